"""kernelnb.lab.viz: the figures hold what they claim, checked against independent computations."""
import numpy as np
import plotly.graph_objects as go
import pytest
from sklearn.svm import SVC as SkSVC

from kernelnb import losses
from kernelnb.datasets import make_moons, make_toy
from kernelnb.svm import SVC
from kernelnb.lab.viz import (SURFACE_TRACES, boundaries_figure, c_path_figure, decision_grid,
                          decision_surface, grid_arrays, learning_curve_figure, level_lines,
                          loss_curves, margin_width, nice_levels, plane_bounds, support_masks,
                          surface_data)


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(n_samples=150, noise=0.25, random_state=0)
    return X, y, SVC(C=1.0, sigma=0.5).fit(X, y)


def _levels(tr):
    c = tr.contours
    return set(np.round(np.arange(c.start, c.end + c.size / 2, c.size), 9))


def test_nice_levels_step_is_the_first_round_step_over_the_range_over_n():
    """nice_levels: the step is the first of 1, 2, 5 times a power of ten that is at least the
    range over n (the round step below it is less), and the levels are every multiple of it
    strictly inside the values' range, so at most n."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        lo = rng.normal(0, 10 ** rng.uniform(-3, 3))
        hi = lo + 10 ** rng.uniform(-3, 3)
        n = int(rng.integers(1, 30))
        Z = np.array([[lo, np.nan], [hi, (lo + hi) / 2]])
        levels = nice_levels(Z, n)
        if len(levels) == 0:
            continue
        assert len(levels) <= n and lo < levels[0] and levels[-1] < hi
        if len(levels) > 1:
            step = levels[1] - levels[0]
            np.testing.assert_allclose(np.diff(levels), step, rtol=1e-9)
            mant = step / 10 ** np.floor(np.log10(step) + 1e-9)
            m = min((1, 2, 5), key=lambda m: abs(mant - m))
            assert abs(mant - m) < 1e-6, step
            below = step * {1: 0.5, 2: 0.5, 5: 0.4}[m]          # the round step before it
            assert below < (hi - lo) / n <= step * (1 + 1e-9)
            # every multiple of the step inside the range is there
            assert levels[0] - step <= lo and levels[-1] + step >= hi
            np.testing.assert_allclose(levels / step, np.round(levels / step), atol=1e-6)
    np.testing.assert_allclose(nice_levels([-11.3, 3.7], 15), np.arange(-11.0, 4.0))
    np.testing.assert_allclose(nice_levels([0.0, 0.99], 10), np.arange(1, 10) / 10)
    assert nice_levels([1.0, 1.0, np.nan], 5).shape == (0,)
    assert nice_levels([np.inf, -np.inf], 5).shape == (0,)
    with pytest.raises(ValueError, match="n must be at least 1"):
        nice_levels([0, 1], 0)


def test_level_lines_of_a_plane_two_lines_and_a_circle():
    """level_lines against the lines known in closed form: f = x - 0.3 (a plane: linear
    interpolation is exact, the line is x = 0.3), f = |x| - 0.5 (two lines, one gap between them)
    and f = x² + y² - r² (each vertex on a cell's edge of length h, where linear interpolation
    of f, whose second derivative along an axis is 2, errs by at most h²/4)."""
    xs = np.linspace(-1, 1, 41)
    ys = np.linspace(-1, 1, 37)
    xx, yy = np.meshgrid(xs, ys)
    x, y = level_lines(xs, ys, xx - 0.3, [0.0])
    assert x.dtype == np.float64 and np.isfinite(x).all()
    np.testing.assert_allclose(x, 0.3, atol=1e-12)
    assert y.min() == pytest.approx(-1) and y.max() == pytest.approx(1)
    x, y = level_lines(xs, ys, np.abs(xx) - 0.5, [0.0])
    gaps = np.isnan(x)
    assert gaps.sum() == 1 and np.isnan(y[gaps]).all()
    np.testing.assert_allclose(np.sort(np.unique(np.round(x[~gaps], 12))), [-0.5, 0.5])
    h = max(xs[1] - xs[0], ys[1] - ys[0])              # the longer edge of a cell
    x, y = level_lines(xs, ys, (xx ** 2 + yy ** 2 - 0.6 ** 2).astype(np.float32), [0.0, 0.1])
    assert x.dtype == np.float32                       # a float32 grid gives float32 lines
    ok = np.isfinite(x)
    r2 = x[ok].astype(np.float64) ** 2 + y[ok].astype(np.float64) ** 2
    assert np.isnan(x).sum() == 1                      # one closed line per level, a gap between
    near = np.minimum(np.abs(r2 - 0.36), np.abs(r2 - 0.46))
    assert near.max() <= h ** 2 / 4 + 1e-6, near.max()  # 1e-6: the float32 grid and vertices
    # no line: a level outside the values, a grid without a finite value
    for Z, level in ((xx - 0.3, 5.0), (np.full(xx.shape, np.nan), 0.0)):
        x, y = level_lines(xs, ys, Z, [level])
        assert x.shape == y.shape == (0,)
    with pytest.raises(ValueError, match="shape"):
        level_lines(xs, ys, xx.T, [0.0])


def test_decision_surface_with_lines_draws_the_levels_as_line_traces(moons):
    """lines=True: f = 0 and f = ±1 as line traces (uids and meta kept) whose vertices are where
    the heat map's grid, interpolated linearly (scipy), is 0 and ±1; the chart's words still
    call them contour lines."""
    from scipy.interpolate import RegularGridInterpolator
    from kernelnb.lab.app._a11y import figure_summary
    X, y, model = moons
    fig = decision_surface(model, X, y, grid=40, lines=True)
    assert [t.uid for t in fig.data] == list(SURFACE_TRACES)
    surface = fig.data[0]
    at = RegularGridInterpolator((np.asarray(surface.y), np.asarray(surface.x)),
                                 np.asarray(surface.z))
    span = float(np.ptp(surface.z))
    for trace, level in ((fig.data[1], 0.0), (fig.data[2], 1.0)):
        assert trace.type == "scatter" and trace.mode == "lines" and trace.meta == trace.uid
        ok = np.isfinite(trace.x)
        f = at(np.column_stack([np.asarray(trace.y)[ok], np.asarray(trace.x)[ok]]))
        assert np.abs(np.abs(f) - level).max() <= 1e-9 * span
    assert fig.data[2].line.dash == "dash"
    assert "f(x) = 0 (contour lines)" in figure_summary(fig)
    # surface_data gives the same lines, for a FigureWidget's update
    d = surface_data(model, X, y, grid=40, lines=True)
    np.testing.assert_array_equal(d["boundary"]["x"], fig.data[1].x)
    assert set(d["margins"]) == {"x", "y"}


def test_decision_surface_traces_and_levels(moons):
    X, y, model = moons
    fig = decision_surface(model, X, y, grid=40)
    assert isinstance(fig, go.Figure)
    assert [t.uid for t in fig.data] == list(SURFACE_TRACES)
    boundary, margins = fig.data[1], fig.data[2]
    assert _levels(boundary) == {0.0}
    assert _levels(margins) == {-1.0, 1.0}
    assert boundary.contours.coloring == margins.contours.coloring == "lines"
    assert margins.line.dash == "dash" and boundary.line.dash in (None, "solid")
    # the two class traces hold every training point, split by label
    assert len(fig.data[3].x) + len(fig.data[4].x) == X.shape[0]
    np.testing.assert_array_equal(np.sort(fig.data[3].x), np.sort(X[y == 0, 0]))


def test_surface_values_are_the_decision_function(moons):
    X, y, model = moons
    fig = decision_surface(model, X, y, grid=30)
    heat = fig.data[0]
    xs, ys, Z = np.asarray(heat.x), np.asarray(heat.y), np.asarray(heat.z)
    assert Z.shape == (30, 30)
    rng = np.random.RandomState(0)
    # scikit-learn's LIBSVM on the same problem: an independent reference of f
    ref = SkSVC(C=1.0, gamma=1 / (2 * 0.5 ** 2), tol=1e-6).fit(X, y)
    for i, j in rng.randint(0, 30, size=(10, 2)):
        assert Z[i, j] == pytest.approx(ref.decision_function([[xs[j], ys[i]]])[0], abs=5e-3)
    xmin, xmax, ymin, ymax = plane_bounds(X)
    assert xs[0] == pytest.approx(xmin) and ys[-1] == pytest.approx(ymax)


def test_support_vector_markers(moons):
    X, y, model = moons
    fig = decision_surface(model, X, y, grid=10)
    free, bound = fig.data[5], fig.data[6]
    assert len(free.x) + len(bound.x) == model.support_.size
    assert len(bound.x) == int(np.sum(model.at_bound_)) > 0
    assert len(free.x) > 0
    got = {(a, b) for a, b in zip(np.r_[free.x, bound.x], np.r_[free.y, bound.y])}
    want = {tuple(p) for p in np.asarray(model.support_vectors_, dtype=float)}
    assert got == want
    hidden = decision_surface(model, X, y, grid=10, show_margins=False, show_support=False)
    assert hidden.data[2].visible is False and hidden.data[5].visible is False


def test_support_masks_without_at_bound_attribute(moons):
    X, y, _ = moons
    sk = SkSVC(C=1.0, gamma=2.0).fit(X, y)
    free, bound = support_masks(sk)
    at_c = np.isclose(np.abs(sk.dual_coef_[0]), 1.0)
    assert set(bound) == set(sk.support_[at_c]) and set(free) == set(sk.support_[~at_c])


def test_support_masks_of_a_dual_perceptron():
    """A kernel Perceptron keeps one coefficient per training point beside a shorter support_:
    its support points are the ones with a coefficient, none at a bound (no C)."""
    from kernelnb.largescale import KernelMarginPerceptron
    X, y = make_toy("blobs", n_samples=200, noise=0.3, random_state=0)
    model = KernelMarginPerceptron(max_iter=50, learning_rate=1.0).fit(X, y)
    assert model.dual_coef_.shape[1] == 200 > model.support_.size > 0
    free, bound = support_masks(model)
    assert set(free) == set(np.flatnonzero(model.dual_coef_[0])) and bound.size == 0
    surface_data(model, X, y, grid=8)


def test_margin_width_matches_primal_weight_vector():
    X, y = make_toy("blobs", n_samples=80, noise=0.4, random_state=1)
    model = SVC(C=10.0, kernel="linear", tol=1e-6).fit(X, y)
    ref = SkSVC(C=10.0, kernel="linear", tol=1e-8).fit(X, y)
    assert margin_width(model) == pytest.approx(2 / np.linalg.norm(ref.coef_), rel=1e-3)


def test_surface_rejects_bad_input(moons):
    X, y, model = moons
    with pytest.raises(ValueError, match="grid"):
        decision_surface(model, X, y, grid=1)
    with pytest.raises(ValueError, match=r"shape \(n_samples, 2\)"):
        decision_surface(model, np.c_[X, X], y)
    with pytest.raises(ValueError, match="lengths"):
        decision_surface(model, X, y[:-1])
    X3 = np.r_[X, [[0, 0]]]
    y3 = np.r_[y, 2]
    m3 = SVC().fit(X3, y3)
    with pytest.raises(ValueError, match="binary|two classes"):
        decision_surface(m3, X3, y3)


def test_boundaries_figure_one_zero_line_per_model(moons):
    X, y, model = moons
    other = SVC(C=100.0, sigma=0.3).fit(X, y)
    fig = boundaries_figure({"C=1": model, "C=100": other}, X, y, grid=25)
    contours = [t for t in fig.data if t.type == "contour"]
    assert [t.name for t in contours] == ["C=1", "C=100"]
    assert all(_levels(t) == {0.0} for t in contours)
    xs, ys, Z = decision_grid(other, plane_bounds(X), 25)
    np.testing.assert_allclose(contours[1].z, Z)
    assert contours[0].line.color != contours[1].line.color


def test_decision_grid_of_no_model_is_the_same_lattice_all_nan(moons):
    X, y, model = moons
    bounds = plane_bounds(X)
    xs, ys, Z = decision_grid(model, bounds, 7)
    xs0, ys0, Z0 = decision_grid(None, bounds, 7)
    np.testing.assert_array_equal(xs0, xs)
    np.testing.assert_array_equal(ys0, ys)
    assert Z0.shape == Z.shape == (7, 7) and np.isnan(Z0).all()
    with pytest.raises(ValueError, match="grid must be an integer >= 2"):
        decision_grid(None, bounds, 1)


def test_loss_curves_values_and_derivatives():
    fig = loss_curves(["hinge", "logistic", "exponential"], margin_range=(-2, 3), n_points=201)
    assert len(fig.data) == 6
    values = {t.meta[1]: t for t in fig.data if t.meta[0] == "value"}
    derivs = {t.meta[1]: t for t in fig.data if t.meta[0] == "deriv"}
    m = np.asarray(values["hinge"].x)
    assert m[0] == -2 and m[-1] == 3 and 0.0 in m
    np.testing.assert_allclose(values["hinge"].y, np.maximum(0, 1 - m))
    np.testing.assert_allclose(values["logistic"].y, np.log1p(np.exp(-m)))
    np.testing.assert_allclose(values["exponential"].y, np.exp(-m))
    # derivative traces agree with finite differences of the value traces (smooth losses)
    for name in ("logistic", "exponential"):
        fd = np.gradient(np.asarray(values[name].y), m)
        np.testing.assert_allclose(np.asarray(derivs[name].y)[5:-5], fd[5:-5], atol=2e-3)
    assert all(t.visible is False for t in derivs.values())
    assert fig.layout.yaxis2.visible is False
    on = loss_curves(["hinge"], show_derivative=True, highlight=0.5)
    assert on.data[1].visible is True and on.layout.yaxis2.visible is True
    assert on.layout.shapes[0].x0 == 0.5


def test_loss_curves_default_is_every_loss_and_validates():
    fig = loss_curves()
    names = [t.meta[1] for t in fig.data if t.meta[0] == "value"]
    assert names == list(losses.LOSS_NAMES)
    styles = [(t.line.color, t.line.dash) for t in fig.data if t.meta[0] == "value"]
    assert len(set(styles)) == len(styles)      # every loss is told apart (colour, line style)
    assert any("of r" in t.name for t in fig.data if t.meta[1] == "epsilon_insensitive")
    with pytest.raises(ValueError, match="margin_range"):
        loss_curves(margin_range=(3, -2))
    with pytest.raises(ValueError, match="unknown loss"):
        loss_curves(["nope"])


def test_learning_curve_figure_bands_and_second_axis():
    rng = np.random.RandomState(0)
    sizes = np.array([10, 20, 40, 80])
    test = rng.uniform(0.1, 0.3, (4, 5))
    curves = {"svm": dict(sizes=sizes, train_error=test / 2, test_error=test,
                          n_support=rng.randint(5, 30, (4, 5))),
              "knn": dict(sizes=sizes, train_error=test / 3, test_error=test * 1.1, n_support=None)}
    fig = learning_curve_figure(curves)
    by_uid = {t.uid: t for t in fig.data}
    np.testing.assert_allclose(by_uid["test:svm"].y, test.mean(1))
    band = np.asarray(by_uid["test_band:svm"].y)
    np.testing.assert_allclose(band[:4], test.mean(1) + test.std(1))
    np.testing.assert_allclose(band[4:], np.clip(test.mean(1) - test.std(1), 0, 1)[::-1])
    spread = learning_curve_figure({"x": dict(sizes=[5, 10], train_error=[[0, 0.4], [0, 0]],
                                              test_error=[[0.0, 0.5], [0.9, 1.0]])})
    assert min(spread.data[0].y) >= 0 and max(spread.data[0].y) <= 1   # bands stay rates
    assert by_uid["nsv:svm"].yaxis == "y2" and "nsv:knn" not in by_uid
    assert fig.layout.yaxis2.overlaying == "y" and fig.layout.xaxis.type == "log"
    with pytest.raises(ValueError, match="test_error"):
        learning_curve_figure({"x": dict(sizes=[1, 2, 3], train_error=np.zeros((3, 2)),
                                         test_error=np.zeros((2, 2)))})


def test_c_path_figure_one_point_per_C():
    Cs = np.logspace(-1, 2, 7)
    fig = c_path_figure(Cs, np.arange(7)[::-1] + 3, np.linspace(.3, 0, 7), np.linspace(.3, .1, 7),
                        n_bound=np.arange(7)[::-1], current_C=10.0)
    assert [t.uid for t in fig.data] == ["train", "test", "nsv", "nbound"]
    assert all(len(t.x) == 7 for t in fig.data)
    assert fig.layout.xaxis.type == "log"
    # on a log axis plotly places shapes at the data value, annotations at its log10
    assert fig.layout.shapes[0].x0 == pytest.approx(10.0)
    assert fig.layout.annotations[0].x == pytest.approx(1.0)
    with pytest.raises(ValueError, match="one value per C"):
        c_path_figure(Cs, [1, 2], np.zeros(7))


def test_margin_width_from_objective_matches_kernel_sum(moons):
    X, y, model = moons
    c = model.dual_coef_[0]
    K = model.kernel_(model.support_vectors_)
    assert margin_width(model) == pytest.approx(2 / np.sqrt(c @ K @ c), rel=1e-4)
    sk = SkSVC(C=1.0, gamma=2.0, tol=1e-8).fit(X, y)     # no kernel_ attribute: unknown
    assert np.isnan(margin_width(sk))


def test_binary_surface_holds_the_same_grid_in_float32(moons):
    X, y, model = moons
    grid = decision_surface(model, X, y, grid=20).data[0]
    light = decision_surface(model, X, y, grid=20, binary=True).data[0]
    assert np.asarray(light.z).shape == (20, 20)
    # float32 (half the bytes sent): equal to the grid within one rounding to single precision
    # of the largest value
    assert {np.asarray(a).dtype for a in (light.x, light.y, light.z)} == {np.dtype(np.float32)}

    def close(a, b):
        b = np.asarray(b, dtype=np.float64)
        tol = np.finfo(np.float32).eps * np.abs(b).max()
        np.testing.assert_allclose(np.asarray(a, dtype=np.float64), b, rtol=0, atol=tol)
    close(light.z, grid.z)
    close(light.x, grid.x)
    close(light.y, grid.y)


def test_grid_arrays_keep_the_grid_in_single_precision():
    xs, ys = np.array([0.0, 1.0, 2.0]), np.array([10.0, 20.0])
    Z = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, np.nan]])        # Z[i, j] at (xs[j], ys[i])
    x, y, z = grid_arrays(xs, ys, Z)
    assert [(a.dtype, a.shape) for a in (x, y, z)] == [(np.float32, (3,)), (np.float32, (2,)),
                                                        (np.float32, (2, 3))]
    np.testing.assert_array_equal(z, Z)                          # a missing value stays missing
    with pytest.raises(ValueError, match=r"Z must have shape \(len\(ys\), len\(xs\)\) = \(2, 3\)"):
        grid_arrays(xs, ys, Z.T)
    # no value at all: nothing to draw, three empty arrays
    assert [a.shape for a in grid_arrays(xs, ys, np.full((2, 3), np.nan))] == [(0,)] * 3


def test_ellipse_outlines_lie_on_the_covariance_ellipses():
    from kernelnb.lab.viz import ellipse_outlines
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(4, 2))
    A = rng.normal(size=(4, 2, 2))
    S = A @ np.swapaxes(A, 1, 2) + 0.1 * np.eye(2)
    xs, ys = ellipse_outlines(centres, S, scale=2.0, n_points=20)
    assert len(xs) == len(ys) == 4 * 21 and xs[20] is None and ys[-1] is None
    P = np.c_[np.array(xs, dtype=float), np.array(ys, dtype=float)].reshape(4, 21, 2)[:, :20]
    for c, s, p in zip(centres, S, P):
        d = p - c
        # every point at Mahalanobis radius 2, and the outline closes
        np.testing.assert_allclose(np.einsum("ij,jk,ik->i", d, np.linalg.inv(s), d), 4.0)
        np.testing.assert_allclose(p[0], p[-1], atol=1e-12)
    # a number is a circle of that variance
    xs, ys = ellipse_outlines([[1.0, 0.0]], 0.25, n_points=9)
    r = np.hypot(np.array(xs[:9]) - 1.0, np.array(ys[:9]))
    np.testing.assert_allclose(r, 0.5)


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
@pytest.mark.parametrize("covs, match", [
    (np.ones((3, 2, 2)), r"shape \(2, 2, 2\)"),
    (np.array([[[1.0, 0.0], [0.0, -1.0]]] * 2), "positive semi-definite"),
    (np.full((2, 2, 2), np.nan), "finite")])
def test_ellipse_outlines_refuse_bad_covariances(covs, match):
    from kernelnb.lab.viz import ellipse_outlines
    with pytest.raises(ValueError, match=match):
        ellipse_outlines(np.zeros((2, 2)), covs)
