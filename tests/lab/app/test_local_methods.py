"""The local-methods playground and the density explorer, without a browser."""
import numpy as np
import pytest

from kernelnb.lab.viz import nice_levels
from kernelnb.lab.app import DensityExplorer, LocalMethodsPlayground
from kernelnb.neighbors import (
    CKNNClassifier,
    HKNNClassifier,
    KernelCentroidClassifier,
    KNeighborsClassifier,
    ManifoldParzen,
    ParzenClassifier,
)

from ._lessons import check_lesson, lesson_app as make_lesson_app

from ._grid import nodes


@pytest.fixture(scope="module")
def play():
    return LocalMethodsPlayground(grid=30)


def test_query_hulls_match_the_estimator(play):
    s = play.update(method="hknn", n_neighbors=3, weight_decay=0.01)
    play.query(0.3, 0.2)
    assert play.last_error == ""
    s = play.last_stats
    X, y = play._train
    ref = HKNNClassifier(n_neighbors=3, weight_decay=0.01).fit(X, y).hull_distances(np.array([[0.3, 0.2]]))[0]
    assert s["dist_0"] == pytest.approx(ref[0]) and s["dist_1"] == pytest.approx(ref[1])
    base = 7                                   # after the surface traces
    assert len(play.fig.data[base].x) == 3 and len(play.fig.data[base + 3].x) == 3
    # the drawn projection: with K = 2 the affine hull is a line, and with a tiny lambda the
    # squared distance to the projected point is the hull distance (less lambda ||a||^2)
    play.update(n_neighbors=2, weight_decay=1e-4)
    proj = play.fig.data[base + 2]             # query -> projection on class 0
    assert proj.x[0] == pytest.approx(0.3)
    d2 = (proj.x[1] - proj.x[0]) ** 2 + (proj.y[1] - proj.y[0]) ** 2
    assert d2 == pytest.approx(play.last_stats["dist_0"], rel=1e-2)


def _brute_force_hull(P):
    """Hull vertices by definition: i is one when, for some j, every other point lies strictly on
    one side of the line through P[i] and P[j] (points in general position)."""
    out = set()
    for i in range(len(P)):
        for j in range(len(P)):
            if i == j:
                continue
            d = P[j] - P[i]
            side = d[0] * (P[:, 1] - P[i, 1]) - d[1] * (P[:, 0] - P[i, 0])
            others = np.delete(side, [i, j])
            if np.all(others > 0) or np.all(others < 0):
                out.update({i, j})
    return out


@pytest.mark.parametrize("seed,n", [(0, 3), (1, 4), (2, 12), (3, 40)])
def test_hull_outline_is_the_convex_hull(seed, n):
    from kernelnb.lab.app.local_methods import _hull_outline

    P = np.random.RandomState(seed).randn(n, 2)
    hx, hy = _hull_outline(P)
    assert (hx[0], hy[0]) == (hx[-1], hy[-1])                  # closed
    ring = np.column_stack([hx, hy])
    got = {int(np.flatnonzero((P == v).all(axis=1))[0]) for v in ring[:-1]}
    assert len(got) == len(ring) - 1 and got == _brute_force_hull(P)
    # counter-clockwise and convex: every point on the left of (or on) every edge
    for a, b in zip(ring[:-1], ring[1:]):
        cross = (b[0] - a[0]) * (P[:, 1] - a[1]) - (b[1] - a[1]) * (P[:, 0] - a[0])
        assert np.all(cross >= -1e-12)


def test_hull_outline_of_flat_sets_is_a_segment():
    from kernelnb.lab.app.local_methods import _hull_outline

    line = np.array([[1.0, 1.0], [3.0, 3.0], [0.0, 0.0], [2.0, 2.0]])
    hx, hy = _hull_outline(line)
    assert list(zip(hx, hy)) == [(0.0, 0.0), (3.0, 3.0)]
    hx, hy = _hull_outline(np.array([[0.5, 2.0], [0.5, 2.0], [0.5, 2.0]]))   # all equal
    assert list(zip(hx, hy)) == [(0.5, 2.0), (0.5, 2.0)]
    hx, hy = _hull_outline(np.array([[0.0, 1.0], [2.0, 0.0]]))
    assert list(zip(hx, hy)) == [(0.0, 1.0), (2.0, 0.0)]


def test_methods_and_sliders_change_the_surface(play):
    z = {}
    for method in ("knn", "hknn", "cknn", "parzen"):
        play.update(method=method, n_neighbors=5)
        assert play.last_error == ""
        z[method] = np.array(play.fig.data[0].z)
    assert not np.allclose(z["knn"], z["parzen"])
    play.update(method="knn", n_neighbors=1)
    assert play.last_stats["train_error"] == 0.0
    assert play.controls["bandwidth"].disabled and not play.controls["n_neighbors"].disabled


def test_errors_are_shown(play):
    play.update(method="hknn")
    out = play.update(weight_decay=-1.0)                # as a forged browser message could
    assert "error" in out and "weight_decay" in play.last_error
    play.update(weight_decay=0.01)
    assert play.last_error == ""


def test_the_comparison_table_matches_the_estimators(play):
    s = play.update(method="knn", n_neighbors=5, weight_decay=0.1)
    X, y = play._train
    Xt, yt = play._test
    for key, m in (("knn", KNeighborsClassifier(n_neighbors=5)),
                   ("hknn", HKNNClassifier(n_neighbors=5, weight_decay=0.1)),
                   ("hknn0", HKNNClassifier(n_neighbors=5, weight_decay=1e-4)),
                   ("cknn", CKNNClassifier(n_neighbors=5))):
        assert s[f"{key}_test_error"] == pytest.approx(np.mean(m.fit(X, y).predict(Xt) != yt))
    assert s["knn_test_error"] == s["test_error"]
    assert "HKNN without weight decay" in play.stats.value


def test_a_k_that_is_not_local_says_so(play):
    s = play.update(method="cknn", n_neighbors=25, n_samples=150)
    assert s["regime"] and "no longer local" in play.stats.value
    s = play.update(n_neighbors=4)
    assert not s["regime"] and "kernelnb-regime" not in play.stats.value


@pytest.mark.parametrize("control", sorted(LocalMethodsPlayground.LESSONS[0].sweep))
def test_lessons_weight_decay_repairs_hknn(control):
    app = make_lesson_app(LocalMethodsPlayground)
    check_lesson(app, LocalMethodsPlayground.LESSONS[0], control)


def test_density_explorer_anll_matches_the_estimators():
    e = DensityExplorer(grid=30)
    s = e.update(model="manifold", n_components=1, n_neighbors=11, sigma=0.007)
    ref = ManifoldParzen(n_components=1, n_neighbors=11, sigma=0.007).fit(e._train).anll(e._test)
    assert s["test_anll"] == pytest.approx(ref)
    assert e.fig.data[3].name.startswith("local Gaussians") and len(e.fig.data[3].x) > 0
    # the log density as a heat map, and its round levels as lines on it: every vertex of the
    # lines lies on a grid cell's edge where the heat map's values straddle one of the levels
    heat, lines = e.fig.data[0], e.fig.data[1]
    assert heat.type == "heatmap" and lines.meta == "levels"
    z = np.asarray(heat.z, dtype=float)
    levels = nice_levels(z, DensityExplorer.N_LEVELS)
    assert 5 <= len(levels) <= DensityExplorer.N_LEVELS
    lx, ly = np.asarray(lines.x, dtype=float), np.asarray(lines.y, dtype=float)
    ok = np.isfinite(lx)
    assert ok.sum() > 100 and (np.isnan(lx) == np.isnan(ly)).all()
    gx, gy = np.asarray(heat.x, dtype=float), np.asarray(heat.y, dtype=float)
    assert gx[0] <= lx[ok].min() and lx[ok].max() <= gx[-1]
    assert gy[0] <= ly[ok].min() and ly[ok].max() <= gy[-1]
    # heard as a surface and contour lines, not as a curve of its vertices
    from kernelnb.lab.app._a11y import figure_summary
    assert "log-density levels (contour lines)" in figure_summary(e.fig)
    assert "log density (a surface of values from" in figure_summary(e.fig)
    e.update(ellipses=False)
    assert len(e.fig.data[3].x) == 0
    s2 = e.update(model="parzen", bandwidth=0.013)
    assert s2["test_anll"] > s["test_anll"]             # the spiral favours Manifold Parzen
    out = e.update(model="manifold", n_neighbors=1, n_components=2)
    assert "error" in out and "n_components" in e.last_error


def test_density_explorer_best_parzen_is_chosen_on_validation_and_the_axes_fit_the_data():
    from kernelnb.neighbors import ParzenDensity
    e = DensityExplorer(grid=20)
    s = e.last_stats
    X = e._train
    H = DensityExplorer.PARZEN_WIDTHS
    h = H[np.argmin([ParzenDensity(sigma=w).fit(X).anll(e._valid) for w in H])]
    assert s["parzen_best_h"] == pytest.approx(h)
    assert s["parzen_best_anll"] == pytest.approx(ParzenDensity(sigma=h).fit(X).anll(e._test))
    assert s["manifold_anll"] == s["test_anll"] < s["parzen_best_anll"]      # the lesson
    # the axes span the data (and the density grid), never twice its width
    xr = e.fig.layout.xaxis.range
    assert xr[0] <= X[:, 0].min() and X[:, 0].max() <= xr[1]
    assert (xr[1] - xr[0]) < 1.5 * np.ptp(X[:, 0])
    assert e.fig.layout.xaxis.constrain == "domain" and e.fig.layout.yaxis.constrain == "domain"
    assert "−" in e.stats.value and not s["regime"]


def test_density_explorer_regime_notes():
    e = DensityExplorer(grid=10)
    base = {"model": "manifold", "sigma": 0.007, "n_neighbors": 11, "dataset": "spiral"}
    for kw, words in (({"sigma": 0.05}, "far from the spiral"), ({"n_neighbors": 40}, "bends"),
                      ({"model": "parzen", "bandwidth": 0.002}, "spike"),
                      ({"dataset": "moons"}, "not tuned")):
        s = e.update(**{**base, **kw})
        assert any(words in n for n in s["regime"]), (kw, s["regime"])
        assert "kernelnb-regime" in e.stats.value


@pytest.mark.parametrize("control", sorted(DensityExplorer.LESSONS[0].sweep))
def test_lessons_manifold_parzen_beats_the_best_parzen(control):
    app = make_lesson_app(DensityExplorer)
    check_lesson(app, DensityExplorer.LESSONS[0], control)


def test_kernel_centroid_matches_the_estimator_and_decides_like_parzen(play):
    """The kernel centroid (Vincent §5.3.4) with the width h: its numbers and surface are the
    estimator's, and beside it the Parzen classifier of the same h, which decides alike on
    nearly every test point (distance to a centroid = constant - 2 x the class's density)."""
    s = play.update(method="centroid", bandwidth=0.3, n_samples=150, seed=1)
    assert play.last_error == ""
    X, y = play._train
    Xt, yt = play._test
    ref = KernelCentroidClassifier(sigma=0.3).fit(X, y)
    assert s["test_error"] == pytest.approx(np.mean(ref.predict(Xt) != yt))
    assert s["train_error"] == pytest.approx(np.mean(ref.predict(X) != y))
    q = np.array([s["query"]])
    assert s["query_class"] == ref.predict(q)[0]
    parzen = ParzenClassifier(sigma=0.3).fit(X, y).predict(Xt)
    assert s["parzen_test_error"] == pytest.approx(np.mean(parzen != yt))
    assert s["parzen_agreement"] == pytest.approx(np.mean(parzen == ref.predict(Xt)))
    assert s["parzen_agreement"] > 0.9
    # the surface is the centroid's decision (d_0 - d_1) on the grid
    # (sent as float32: each value within one single-precision rounding of the largest)
    surf = play.fig.data[0]
    xmin, xmax, ymin, ymax = play._bounds
    xx, yy = np.meshgrid(np.linspace(xmin, xmax, play.grid), np.linspace(ymin, ymax, play.grid))
    gx, gy, gz = nodes(surf)
    np.testing.assert_array_equal(gx, xx.ravel().astype(np.float32))
    np.testing.assert_array_equal(gy, yy.ravel().astype(np.float32))
    want = ref.decision_function(np.column_stack([xx.ravel(), yy.ravel()]))
    np.testing.assert_allclose(gz, want, rtol=0,
                               atol=np.finfo(np.float32).eps * np.abs(want).max())
    assert not play.controls["bandwidth"].disabled and play.controls["n_neighbors"].disabled
    assert not s["regime"]                             # K is not the centroid's
    assert "Parzen classifier, h = 0.3" in play.stats.value and "§5.3.4" in play.stats.value
    play.update(method="cknn", bandwidth=0.2, seed=0)


def test_k_beyond_the_smallest_class_uses_that_class_and_says_so():
    """n points = 20 and K = 30 (both within the sliders): no error; each K-method runs with K
    = the smallest class, and the readout says so."""
    app = LocalMethodsPlayground(grid=20)
    for method in ("cknn", "parzen"):
        big = app.update(method=method, n_samples=20, n_neighbors=30)
        assert "error" not in big, big
        smallest = int(np.min(np.unique(app._train[1], return_counts=True)[1]))
        assert smallest < 30
        capped = app.update(method=method, n_samples=20, n_neighbors=smallest)
        for key in ("knn_test_error", "hknn_test_error", "cknn_test_error", "test_error"):
            assert big[key] == capped[key], key
        noted = any(f"use K = {smallest}" in note for note in big["regime"])
        assert noted == (method == "cknn"), big["regime"]
