"""The synthetic scaling problem: shapes, labels, reproducibility, prefix property, bad input."""
import numpy as np
import pytest

from kernelnb.datasets import make_large_problem
from kernelnb.datasets import large


def test_shapes_labels_and_balance():
    X, y = make_large_problem(5000, n_features=7, random_state=3)
    assert X.shape == (5000, 7) and X.dtype == np.float32 and y.shape == (5000,)
    assert set(np.unique(y)) == {0, 1}
    assert abs(y.mean() - 0.5) < 0.05
    X64, _ = make_large_problem(10, dtype=np.float64)
    assert X64.dtype == np.float64


def test_reproducible_and_prefix_across_chunks(monkeypatch):
    monkeypatch.setattr(large, "_CHUNK", 1000)          # several chunks in a small draw
    X1, y1 = make_large_problem(3500, random_state=5)
    X2, y2 = make_large_problem(3500, random_state=5)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    Xp, yp = make_large_problem(1200, random_state=5)    # a smaller draw is a prefix
    np.testing.assert_array_equal(Xp, X1[:1200])
    np.testing.assert_array_equal(yp, y1[:1200])
    Xo, _ = make_large_problem(3500, random_state=6)
    assert not np.allclose(Xo, X1)


def test_clusters_carry_their_class():
    """Points sit near centres of their own class: a 1-NN rule on cluster centres estimated from
    labelled points beats chance by far, and spread controls the difficulty."""
    from sklearn.neighbors import KNeighborsClassifier
    errs = []
    for spread in (3.0, 0.3):
        X, y = make_large_problem(4000, n_features=5, n_clusters=8, spread=spread, random_state=0)
        knn = KNeighborsClassifier(15).fit(X[:3000], y[:3000])
        errs.append(np.mean(knn.predict(X[3000:]) != y[3000:]))
    assert errs[0] < 0.1 < errs[1]


@pytest.mark.parametrize("kw, match", [
    (dict(n_samples=1), "n_samples"), (dict(n_features=0), "n_features"),
    (dict(n_clusters=3), "n_clusters must be even"), (dict(cluster_std=0.0), "cluster_std"),
    (dict(spread=-1.0), "spread"), (dict(random_state=None), "random_state"),
])
def test_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        make_large_problem(**{"n_samples": 100, **kw})
