"""The mixture without Dask (issue 48): ``client='threads'``, and ``client=None`` where Dask is not
installed, train the experts on a thread pool and give the model that ``'serial'`` and Dask give
for the same seed; ``dask_grid_search``, ``local_client`` and a scheduler address name the
``dask`` extra when it is missing."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from kernelnb.largescale import MixtureSVC, MixtureSVR
from kernelnb.svm import SVC, SVR
from kernelnb.largescale._dask import ThreadPoolClient, dask_client


def xor(n=80, seed=0):
    """The XOR problem of the mixture's tests (``tests/largescale/test_mixture.py``)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1, -1)

#: A subprocess in which dask, distributed, bokeh and tqdm cannot be imported (a meta-path
#: finder refuses them), as in an environment without the dask extra.
NO_DASK = textwrap.dedent("""
    import sys
    BLOCKED = ("dask", "distributed", "bokeh", "tqdm")
    class _Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
            return None
    sys.meta_path.insert(0, _Blocker())
""")

KW = dict(expert=SVC(C=10, sigma=0.5), n_experts=3, max_iter=3, random_state=7)


def _fit_without_dask(estimator, kw, n=80):
    code = NO_DASK + textwrap.dedent(f"""
        import json
        import numpy as np
        from kernelnb.largescale import {estimator}
        from kernelnb.svm import SVC, SVR
        rng = np.random.default_rng(0)
        X = rng.uniform(-1, 1, ({n}, 2))
        y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
        if {estimator == "MixtureSVR"!r}:
            y = X[:, 0] * X[:, 1]
        m = {estimator}(client=None, n_jobs=2, **{kw!r}).fit(X, y)
        Xt = np.random.default_rng(5).uniform(-1, 1, (200, 2))
        print(json.dumps({{"assignment": m.assignment_.tolist(),
                          "predict": m.predict(Xt).tolist(),
                          "modules": sorted(k for k in ("dask", "distributed", "bokeh", "tqdm")
                                            if k in sys.modules)}}))
    """)
    from pathlib import Path
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                       cwd=Path(__file__).resolve().parents[2])
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("gater", ["global", "local"])
def test_threads_give_the_serial_model(gater):
    X, y = xor(80)
    a = MixtureSVC(client="serial", gater=gater, **KW).fit(X, y)
    b = MixtureSVC(client="threads", n_jobs=2, gater=gater, **KW).fit(X, y)
    np.testing.assert_array_equal(a.assignment_, b.assignment_)
    Xt, _ = xor(200, seed=5)
    np.testing.assert_array_equal(a.predict(Xt), b.predict(Xt))
    np.testing.assert_array_equal(a.decision_function(Xt), b.decision_function(Xt))


def test_threads_multiclass_and_regression():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 2))
    y = np.digitize(X[:, 0], [-0.5, 0.5])              # three classes
    kw = dict(expert=SVC(C=10, sigma=1.0), n_experts=2, max_iter=2, random_state=1)
    a = MixtureSVC(client="serial", **kw).fit(X, y)
    b = MixtureSVC(client="threads", n_jobs=2, **kw).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    yr = np.sin(X[:, 0]) + 0.1 * X[:, 1]
    kw["expert"] = SVR(C=10, sigma=1.0)
    ra = MixtureSVR(client="serial", **kw).fit(X, yr)
    rb = MixtureSVR(client="threads", n_jobs=2, **kw).fit(X, yr)
    np.testing.assert_array_equal(ra.predict(X), rb.predict(X))


def test_without_dask_the_default_is_the_thread_pool_and_the_same_model():
    """client=None with Dask absent (a subprocess that cannot import it): it fits, loads none of
    Dask's packages, and gives the model that 'serial' and Dask's LocalCluster give here."""
    pytest.importorskip("distributed")
    out = _fit_without_dask("MixtureSVC", KW)
    assert out["modules"] == []
    X, y = xor(80)
    Xt, _ = xor(200, seed=5)
    serial = MixtureSVC(client="serial", **KW).fit(X, y)
    on_dask = MixtureSVC(client=None, n_jobs=2, **KW).fit(X, y)
    for m in (serial, on_dask):
        np.testing.assert_array_equal(m.assignment_, out["assignment"])
        np.testing.assert_array_equal(m.predict(Xt), out["predict"])


def test_without_dask_the_regressor_fits_on_threads():
    kw = dict(expert=SVR(C=10, sigma=0.5), n_experts=2, max_iter=2, random_state=2)
    out = _fit_without_dask("MixtureSVR", kw, n=100)
    X, _ = xor(100)
    y = X[:, 0] * X[:, 1]
    Xt, _ = xor(200, seed=5)
    serial = MixtureSVR(client="serial", **kw).fit(X, y)
    np.testing.assert_array_equal(serial.predict(Xt), out["predict"])
    assert out["modules"] == []


def test_the_dask_only_tools_name_the_extra_without_it():
    code = NO_DASK + textwrap.dedent("""
        import numpy as np
        from kernelnb.largescale import MixtureSVC, dask_grid_search, local_client
        from kernelnb.svm import SVC
        X = np.random.default_rng(0).normal(size=(40, 2)); y = (X[:, 0] > 0).astype(int)
        for call in (lambda: dask_grid_search(SVC(n_jobs=1), {"C": [1.0]}, X, y, cv=2,
                                              client="serial"),
                     lambda: local_client(n_workers=1),
                     lambda: MixtureSVC(n_experts=2, max_iter=1,
                                        client="tcp://127.0.0.1:1").fit(X, y)):
            try:
                call()
            except ImportError as exc:
                print("ImportError:", exc)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 3, r.stdout
    assert lines[0] == ("ImportError: dask_grid_search needs the dask extra (missing dask, "
                        "distributed, tqdm): pip install 'kernelnb[dask]'")
    assert lines[1].startswith("ImportError: local_client needs the dask extra")
    assert lines[2].startswith("ImportError: client='tcp://127.0.0.1:1' (a Dask scheduler's "
                               "address) needs the dask extra")


def test_thread_pool_client_keeps_order_raises_and_checks_its_size():
    def task(shared, i):
        if i == 3:
            raise ValueError("task 3 failed")
        return shared * 10 + i

    with ThreadPoolClient(2) as pool:
        assert pool.map(task, (1,), [(i,) for i in range(3)]) == [10, 11, 12]
        with pytest.raises(ValueError, match="task 3 failed"):
            pool.map(task, (1,), [(i,) for i in range(5)])
    with pytest.raises(RuntimeError, match="outside its with block"):
        pool.map(task, (1,), [(0,)])
    with pytest.raises(ValueError, match="n_workers"):
        ThreadPoolClient(0)
    with dask_client("threads", n_workers=3) as c:
        assert isinstance(c, ThreadPoolClient) and c.n_workers == 3
