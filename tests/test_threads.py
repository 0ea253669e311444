"""n_jobs everywhere: None (the default) the threads the context allows, -1 every core, k k."""
import inspect
import os

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from threadpoolctl import threadpool_limits

from kernelnb._threads import n_threads
from tests._estimators import public_estimator_classes


def test_n_jobs_meaning(monkeypatch):
    cores = len(os.sched_getaffinity(0))
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert n_threads(-1) == cores
    assert n_threads(None) == cores
    assert n_threads(1) == 1 and n_threads(3) == 3


def test_none_follows_a_threadpoolctl_limit_and_minus_one_does_not(monkeypatch):
    cores = len(os.sched_getaffinity(0))
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with threadpool_limits(limits=1, user_api="openmp"):
        assert n_threads(None) == 1
        assert n_threads(-1) == cores and n_threads(2) == 2
    assert n_threads(None) == cores          # the limit is lifted with the block


@pytest.mark.parametrize("value, limit", [("1", 1), ("2,1", 2), (" 3 ", 3), ("0", None),
                                          ("", None), ("many", None), ("-2", None)])
def test_every_core_is_at_most_what_OMP_NUM_THREADS_sets(monkeypatch, value, limit):
    """kernelnb serve sets OMP_NUM_THREADS=1 for its kernels: n_jobs=-1 and None then mean one
    thread (an explicit count is kept); a value OpenMP would not read leaves every core."""
    cores = len(os.sched_getaffinity(0))
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    expected = cores if limit is None else min(cores, limit)
    assert n_threads(-1) == expected and n_threads(None) == expected
    assert n_threads(3) == 3


@pytest.mark.parametrize("cls", [c for c in public_estimator_classes().values()
                                 if "n_jobs" in inspect.signature(c).parameters],
                         ids=lambda c: c.__name__)
def test_estimators_with_threads_default_to_none(cls):
    # scikit-learn's default: None, which here lets the context (a grid search's workers,
    # OMP_NUM_THREADS, threadpoolctl) decide
    assert inspect.signature(cls).parameters["n_jobs"].default is None


class _ThreadsSeen(ClassifierMixin, BaseEstimator):
    """Records, in ``fit``, the threads ``n_jobs=None`` gives where the fit runs."""

    def __init__(self, *, c=1):
        self.c = c

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.threads_ = n_threads(None)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])

    def score(self, X, y):
        return float(n_threads(None))        # the grid search reports it as the "score"


@pytest.mark.slow
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to share")
def test_a_grid_search_with_every_core_does_not_oversubscribe(monkeypatch):
    # GridSearchCV(n_jobs=-1) runs its fits in joblib's worker processes, which joblib starts
    # with OMP_NUM_THREADS at their share of the cores: the default n_jobs=None follows it,
    # where n_jobs=-1 in each fit would have run every core in every worker.
    from sklearn.model_selection import GridSearchCV
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    cores = len(os.sched_getaffinity(0))
    X = np.arange(40.0).reshape(20, 2)
    y = np.arange(20) % 2
    search = GridSearchCV(_ThreadsSeen(), {"c": [1, 2, 3, 4]}, cv=2, n_jobs=-1,
                          refit=False).fit(X, y)
    threads = search.cv_results_["mean_test_score"]
    assert np.all(threads == max(1, cores // min(cores, 8))), threads


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


def test_blas_single_thread_holds_until_the_last_one_entered_is_left():
    """Nested uses: BLAS stays at one thread until the outermost one is left; a BLAS loaded
    meanwhile is limited by the next one entered; on leaving the outermost, every library is
    back to its own setting."""
    import json
    import subprocess
    import sys
    code = (
        "import json\n"
        "import numpy\n"
        "from kernelnb._threads import blas_single_thread\n"
        "from threadpoolctl import threadpool_info\n"
        "def blas():\n"
        "    return {i['filepath']: i['num_threads'] for i in threadpool_info()\n"
        "            if i['user_api'] == 'blas'}\n"
        "out = {'before': blas()}\n"
        "with blas_single_thread():\n"
        "    with blas_single_thread():\n"
        "        pass\n"
        "    out['after_inner'] = blas()\n"
        "    import scipy.linalg.blas\n"
        "    with blas_single_thread():\n"
        "        out['late'] = blas()\n"
        "    out['after_late'] = blas()\n"
        "out['after'] = blas()\n"
        "print(json.dumps(out))\n")
    env = {k: v for k, v in __import__("os").environ.items()
           if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    for stage in ("after_inner", "late", "after_late"):
        assert set(out[stage].values()) == {1}, (stage, out[stage])
    assert len(out["late"]) > len(out["before"])          # scipy's own OpenBLAS came in
    default = max(out["before"].values())
    assert {path: out["after"][path] for path in out["before"]} == out["before"]
    assert set(out["after"].values()) == {default}, out["after"]


def test_a_nested_blas_single_thread_sets_nothing(monkeypatch):
    """Inside a blas_single_thread, another one (the same thread, no module imported since)
    reads and sets no library: one threadpoolctl limit for the outermost, none for the rest."""
    from threadpoolctl import ThreadpoolController

    from kernelnb._threads import blas_single_thread

    calls = []
    real = ThreadpoolController.limit

    def counted(self, *args, **kwargs):
        calls.append(kwargs)
        return real(self, *args, **kwargs)

    with blas_single_thread():          # the libraries scanned, outside the count
        pass
    monkeypatch.setattr(ThreadpoolController, "limit", counted)
    with blas_single_thread():
        for _ in range(5):
            with blas_single_thread():
                pass
    assert calls == [{"limits": 1, "user_api": "blas"}]


def _omp_threads():
    from threadpoolctl import threadpool_info
    return {i["filepath"]: i["num_threads"] for i in threadpool_info()
            if i["user_api"] == "openmp"}


def test_a_dashboard_holds_openmp_to_one_thread_where_nothing_sets_it(monkeypatch):
    """dashboard_threads: without OMP_NUM_THREADS, n_jobs=None means one thread inside (every
    OpenMP runtime and BLAS at one) and an explicit count is kept; on leaving, each library is
    back to its own setting."""
    from threadpoolctl import threadpool_info

    from kernelnb import _kernels  # noqa: F401  (kernelnb's libgomp loaded before the reading)
    from kernelnb._threads import dashboard_threads

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    cores = len(os.sched_getaffinity(0))
    before = {(i["filepath"], i["user_api"]): i["num_threads"] for i in threadpool_info()}
    assert _omp_threads(), "no OpenMP runtime found"
    with dashboard_threads():
        assert n_threads(None) == 1
        assert n_threads(2) == 2
        assert set(_omp_threads().values()) == {1}
        assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} == {1}
    assert {(i["filepath"], i["user_api"]): i["num_threads"] for i in threadpool_info()} == before
    assert n_threads(None) == cores


def test_a_dashboard_keeps_the_openmp_threads_OMP_NUM_THREADS_sets(monkeypatch):
    """kernelnb serve --kernel-threads N sets OMP_NUM_THREADS=N: a dashboard keeps them (BLAS
    still at one)."""
    from threadpoolctl import threadpool_info

    from kernelnb import _kernels  # noqa: F401
    from kernelnb._threads import dashboard_threads

    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    omp = _omp_threads()
    with dashboard_threads():
        assert _omp_threads() == omp
        assert n_threads(None) == min(2, len(os.sched_getaffinity(0)))
        assert {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"} == {1}


def test_the_fits_inside_a_dashboards_update_set_no_thread_limit(monkeypatch):
    """Inside dashboard_threads, the blas_single_thread every fit enters only counts: a
    hundred fits of a model selection do not each read and set the libraries."""
    from threadpoolctl import ThreadpoolController

    from kernelnb._threads import blas_single_thread, dashboard_threads

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with dashboard_threads():           # the libraries scanned, outside the count
        pass
    calls = []
    real = ThreadpoolController.limit

    def counted(self, *args, **kwargs):
        calls.append(kwargs)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ThreadpoolController, "limit", counted)
    with dashboard_threads():
        for _ in range(5):
            with blas_single_thread():
                pass
    assert calls == [{"limits": 1, "user_api": "blas"}, {"limits": 1, "user_api": "openmp"}]
