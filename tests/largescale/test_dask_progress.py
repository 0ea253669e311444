"""dask_grid_search's progress: a tqdm bar advanced by the completed fits on Dask, with nothing
of joblib patched."""
import joblib
import joblib.parallel
import numpy as np
import pytest

pytest.importorskip("distributed", reason="dask_grid_search needs the dask extra")
pytest.importorskip("tqdm", reason="dask_grid_search needs the dask extra")
import tqdm.auto  # noqa: E402

from kernelnb.largescale import dask_grid_search
from kernelnb.svm import SVC


class _Recorder(tqdm.auto.tqdm):
    """A tqdm that keeps every bar made and the steps it was given."""

    made = []

    def __init__(self, *args, **kwargs):
        kwargs["disable"] = False
        super().__init__(*args, **kwargs)
        self.steps = []
        _Recorder.made.append(self)

    def update(self, n=1):
        self.steps.append(n)
        return super().update(n)


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1, -1)


def test_grid_search_progress_counts_every_fit_without_patching_joblib(client, monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", _Recorder)
    _Recorder.made.clear()
    before = (joblib.Parallel.print_progress, joblib.parallel.Parallel.print_progress)
    X, y = _data()
    grid = {"C": [1.0, 10.0], "sigma": [0.3, 1.0]}
    search = dask_grid_search(SVC(n_jobs=1), grid, X, y, cv=3, client=client, progress=True)
    assert search.best_params_ in [dict(C=c, sigma=s) for c in grid["C"] for s in grid["sigma"]]
    (bar,) = _Recorder.made
    total = 4 * 3
    assert bar.total == total and bar.n == total
    # the completed batches on Dask advanced the bar: the final catch-up step adds nothing
    assert sum(bar.steps[:-1]) == total and bar.steps[-1] == 0
    assert (joblib.Parallel.print_progress, joblib.parallel.Parallel.print_progress) == before


def test_serial_search_progress_ends_at_total(monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", _Recorder)
    _Recorder.made.clear()
    X, y = _data(40)
    dask_grid_search(SVC(n_jobs=1), {"C": [1.0, 10.0]}, X, y, cv=2, client="serial")
    (bar,) = _Recorder.made
    assert bar.n == bar.total == 2 * 2


def test_progress_false_gives_a_disabled_bar(monkeypatch):
    made = []

    class Spy(tqdm.auto.tqdm):
        def __init__(self, *args, **kwargs):
            made.append(kwargs.get("disable"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(tqdm.auto, "tqdm", Spy)
    X, y = _data(40)
    dask_grid_search(SVC(n_jobs=1), {"C": [1.0]}, X, y, cv=2, client="serial", progress=False)
    assert made == [True]


_ORIGINAL = joblib.parallel.Parallel.print_progress


def _unpatched(estimator, X, y):
    """A scorer: 1.0 while joblib's Parallel.print_progress is joblib's own, else 0.0."""
    return float(joblib.parallel.Parallel.print_progress is _ORIGINAL)


def test_joblib_is_not_patched_while_the_fits_run(client):
    X, y = _data()
    search = dask_grid_search(SVC(n_jobs=1), {"C": [1.0, 10.0]}, X, y, cv=3, client=client,
                              scoring=_unpatched, refit=False, progress=True)
    assert np.all(search.cv_results_["mean_test_score"] == 1.0)
