"""n_jobs has joblib's meaning everywhere: -1 every core, None or 1 one thread."""
import inspect
import os

import pytest

from kernelnb._threads import n_threads
from tests._estimators import public_estimator_classes


def test_n_jobs_meaning(monkeypatch):
    cores = len(os.sched_getaffinity(0))
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert n_threads(-1) == cores
    assert n_threads(None) == 1
    assert n_threads(1) == 1 and n_threads(3) == 3


@pytest.mark.parametrize("value, limit", [("1", 1), ("2,1", 2), (" 3 ", 3), ("0", None),
                                          ("", None), ("many", None), ("-2", None)])
def test_every_core_is_at_most_what_OMP_NUM_THREADS_sets(monkeypatch, value, limit):
    """kernelnb serve sets OMP_NUM_THREADS=1 for its kernels: n_jobs=-1 then means one thread
    (an explicit count is kept); a value OpenMP would not read leaves every core."""
    cores = len(os.sched_getaffinity(0))
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert n_threads(-1) == (cores if limit is None else min(cores, limit))
    assert n_threads(3) == 3 and n_threads(None) == 1


@pytest.mark.parametrize("cls", [c for c in public_estimator_classes().values()
                                 if "n_jobs" in inspect.signature(c).parameters],
                         ids=lambda c: c.__name__)
def test_estimators_with_threads_default_to_every_core(cls):
    # the defaults keep the package fast; n_jobs=None means one thread as in joblib
    assert inspect.signature(cls).parameters["n_jobs"].default == -1


def test_blas_single_thread_limits_a_blas_loaded_after_its_first_use():
    """A BLAS whose library is loaded after the first use (scipy's own OpenBLAS, imported late)
    is held to one thread too: the libraries are scanned again when modules were imported."""
    import subprocess
    import sys
    code = (
        "import numpy\n"
        "from kernelnb._threads import blas_single_thread\n"
        "from threadpoolctl import threadpool_info\n"
        "with blas_single_thread():\n"
        "    pass\n"
        "import scipy.linalg.blas\n"
        "with blas_single_thread():\n"
        "    n = [i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas']\n"
        "print(len(n), max(n))\n")
    env = {k: v for k, v in __import__("os").environ.items()
           if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    count, most = map(int, out.stdout.split())
    assert most == 1, f"{count} BLAS libraries, one still at {most} threads"
