"""VicinalRisk: the circles are the widths of the rule, the ellipses the ellipsoidal VRM's
vicinities, the boundaries those of the models the controls describe (the hard-margin SVM among
them, or a note where it has no solution), the readout their errors and input margins; bad
values are refused in the page."""
import numpy as np
import pytest

from kernelnb.kernels import make_kernel
from kernelnb.lab.app import VicinalRisk
from kernelnb.lab.app.vicinal_risk import MODEL_KEYS, separable
from kernelnb.lab.viz import decision_grid
from kernelnb.prior import (
    EllipsoidalVicinalSVC,
    VicinalRiskClassifier,
    VicinalSVC,
    input_margins,
    vicinity_widths,
)
from kernelnb.svm import SVC

from ._lessons import check_lesson, lesson_app as make_lesson_app


@pytest.fixture(scope="module")
def app():
    return VicinalRisk(grid=25)


def _tr(app, name):
    """The trace of a model (a key of MODEL_KEYS), of the circles or of the ellipses: the two
    classes, then one boundary per model, then the circles and the ellipses."""
    order = [*MODEL_KEYS, "circles", "ellipses"]
    return app.fig.data[2 + order.index(name)]


def _bounds(app):
    return (app.fig.layout.xaxis.range[0], app.fig.layout.xaxis.range[1],
            app.fig.layout.yaxis.range[0], app.fig.layout.yaxis.range[1])


def _data(app):
    f = app.fig
    X = np.r_[np.c_[f.data[0].x, f.data[0].y], np.c_[f.data[1].x, f.data[1].y]]
    y = np.r_[np.zeros(len(f.data[0].x), int), np.ones(len(f.data[1].x), int)]
    return X, y


def _outlines(trace):
    """The None-separated polylines of a trace, one (k, 2) array each."""
    xs = np.array([np.nan if v is None else v for v in trace.x], float)
    ys = np.array([np.nan if v is None else v for v in trace.y], float)
    polys = np.split(np.c_[xs, ys], np.flatnonzero(np.isnan(xs)) + 1)
    return [p[~np.isnan(p[:, 0])] for p in polys if np.isfinite(p).any()]


def test_first_open(app):
    s = app.last_stats
    assert not app.last_error and app.error.value == ""
    assert app.controls["dataset"].value == "blobs" and app.controls["kernel"].value == "linear"
    assert "kernelnb-main-slider" in app.controls["width_factor"]._dom_classes
    assert [t.name for t in app.fig.data][2:7] == ["hard SVM", "soft SVM (C)",
                                                   "VRM-SVM (adaptive margins)",
                                                   "vicinal risk (erf)",
                                                   "ellipsoidal VRM (input margin)"]
    assert not _tr(app, "ellipses").visible            # the ellipses wait for their checkbox
    assert s["test_error_svm"] < 0.1 and s["test_error_vrm"] < 0.1
    # the first sample is separable: the hard SVM is drawn, without a note
    assert s["train_error_hard"] == 0 and s["test_error_hard"] < 0.1
    assert not app.fig.layout.annotations and "hard-note" not in app.stats.value
    assert s["margin_min"] < 1 < s["margin_max"]
    for key in ("vicinal risk", "mean width", "margins γᵢ", "Smallest input margin"):
        assert key in app.stats.value
    # three boundaries by default, the soft SVM and the ellipsoidal VRM one click away
    shown = [t.name for t in app.fig.data[2:7] if t.visible is not False
             and t.visible != "legendonly"]
    assert shown == ["hard SVM", "VRM-SVM (adaptive margins)", "vicinal risk (erf)"]


def test_circles_have_the_rule_widths(app):
    app.update(width="knn", width_factor=0.8, n_neighbors=3, show_circles=True)
    X, _ = _data(app)
    # the rows in the chart are grouped by class; the widths do not depend on the order
    radii = vicinity_widths(X, "knn", n_neighbors=3, factor=0.8)
    polys = _outlines(_tr(app, "circles"))
    assert len(polys) == len(X)
    got = sorted(np.mean(np.linalg.norm(p - p.mean(axis=0), axis=1)) for p in polys)
    np.testing.assert_allclose(got, sorted(radii), rtol=2e-2)
    app.update(show_circles=False)
    assert not _tr(app, "circles").visible and len(_tr(app, "circles").x) == 0
    app.update(show_circles=True)


def test_boundaries_are_the_models_described(app):
    app.update(kernel="linear", C=2.0, width="quantile", width_factor=1.5)
    X, y = _data(app)
    refs = {"svm": SVC(kernel="linear", C=2.0).fit(X, y),
            "vsvc": VicinalSVC(kernel="linear", C=2.0, width="quantile",
                               width_factor=1.5).fit(X, y),
            "vrm": VicinalRiskClassifier(width="quantile", width_factor=1.5).fit(X, y)}
    for key, ref in refs.items():
        # the grid in float32: its vectors and z, rows along y
        xs, ys, Z = decision_grid(ref, _bounds(app), 25)
        np.testing.assert_allclose(np.asarray(_tr(app, key).z), Z, atol=1e-3, rtol=1e-3)
        np.testing.assert_allclose(_tr(app, key).x, xs, rtol=1e-6)
        np.testing.assert_allclose(_tr(app, key).y, ys, rtol=1e-6)
    assert app.last_stats["vicinal_risk"] == pytest.approx(refs["vrm"].vicinal_risk_,
                                                           rel=1e-6)


def test_factor_moves_the_vrm_boundary_not_the_margins(app):
    # without the circles the plot (the grid) does not widen with the factor
    app.update(kernel="linear", width="knn", width_factor=0.2, show_circles=False)
    z_small = np.array(_tr(app, "vrm").z)
    g = (app.last_stats["margin_min"], app.last_stats["margin_max"])
    z_svm = np.array(_tr(app, "vsvc").z)
    app.controls["width_factor"].value = 3.0
    assert not np.allclose(z_small, _tr(app, "vrm").z)                 # the erf VRM moves
    # gamma_i = sigma_i / mean sigma: the same problem up to rounding (solver tol 1e-3)
    np.testing.assert_allclose(z_svm, _tr(app, "vsvc").z, rtol=1e-2, atol=1e-2)
    assert (app.last_stats["margin_min"], app.last_stats["margin_max"]) == pytest.approx(g)
    app.update(show_circles=True)


def test_bad_values_are_refused_then_recovery(app):
    out = app.update(width="nearest")
    assert "width" in out["error"] and "width" in app.error.value
    out = app.update(width="knn", sigma=-1.0, kernel="rbf")
    assert "sigma" in out["error"]
    app.update(kernel="rbf", sigma=1.0, dataset="moons")
    assert app.error.value == "" and app.last_stats["test_error_vsvc"] < 0.3


def test_ellipses_are_the_ellipsoidal_vrm_vicinities(app):
    app.update(kernel="poly", width="knn", width_factor=1.0, n_neighbors=5, C=1.0,
               ellipsoid_weight=0.5, show_ellipses=True)
    assert app.error.value == ""
    X, y = _data(app)
    radii = vicinity_widths(X, "knn", n_neighbors=5, factor=1.0)
    ref = EllipsoidalVicinalSVC(kernel="poly", degree=2, coef0=1.0, C=1.0,
                                vicinity_sigma=np.mean(radii), ellipsoid_weight=0.5).fit(X, y)
    polys = _outlines(_tr(app, "ellipses"))
    assert _tr(app, "ellipses").visible and len(polys) == len(X)
    centres = np.array([p[:-1].mean(axis=0) for p in polys])
    np.testing.assert_allclose(np.sort(centres, axis=0), np.sort(X, axis=0), atol=1e-9)
    S = ref.vicinity_covariances(centres)
    for p, s in zip(polys, S):
        # equally spaced angles on c + sqrt(2) L u: the outline's scatter is 2 L L'/2 = S
        d = p[:-1] - p[:-1].mean(axis=0)
        np.testing.assert_allclose(d.T @ d / len(d), s, rtol=1e-6, atol=1e-12)
    ratios = [np.sqrt(w[1] / w[0]) for w in np.linalg.eigvalsh(S)]
    assert max(ratios) > 1.05                         # poly 2 at lambda < 1: real ellipses
    app.update(kernel="linear")
    polys = _outlines(_tr(app, "ellipses"))
    S = [np.cov(p[:-1].T, bias=True) for p in polys]
    np.testing.assert_allclose([np.sqrt(w[1] / w[0]) for w in np.linalg.eigvalsh(S)], 1.0,
                               rtol=1e-6)             # the linear kernel: circles
    app.update(show_ellipses=False)
    assert not _tr(app, "ellipses").visible and len(_tr(app, "ellipses").x) == 0


def test_the_ellipsoidal_boundary_and_the_input_margins(app):
    app.update(kernel="poly", width="quantile", width_factor=1.0, C=5.0, ellipsoid_weight=1.0,
               dataset="blobs", seed=3)
    X, y = _data(app)
    radii = vicinity_widths(X, "quantile", factor=1.0)
    svm = SVC(kernel="poly", degree=2, coef0=1.0, C=5.0).fit(X, y)
    ref = EllipsoidalVicinalSVC(kernel="poly", degree=2, coef0=1.0, C=5.0,
                                vicinity_sigma=np.mean(radii)).fit(X, y)
    _, _, Z = decision_grid(ref, _bounds(app), 25)
    np.testing.assert_allclose(np.asarray(_tr(app, "evrm").z), Z, atol=1e-3, rtol=1e-3)
    s = app.last_stats
    m_svm, m_e = input_margins(svm, X, y), ref.input_margins_
    # The references are refitted on the chart's points, grouped by class; the page fitted them
    # in the sample's order.  The decomposition solver then takes other pairs and stops at
    # another point within its tolerance: when the largest KKT violation is below tol (1e-3, in
    # units of y f(x): LIBSVM's rule).  So two solves agree on y_i f(x_i) at a margin point to
    # about tol, i.e. to tol / gamma_i relatively (gamma_i the point's margin: 1 for the SVM, at
    # least min(margins_) for the ellipsoidal fit), and on ||grad f(x_i)||, made of the same
    # coefficients, to about as much: on the input margin y f / ||grad f|| to 2 tol / gamma_i.
    # Measured over 30 random orders of this sample, the readouts spread over 1e-3 (SVM) and
    # 4e-5 (ellipsoidal) relatively; they differ from each other by 4%, so neither can pass for
    # the other.
    assert s["input_margin_svm"] == pytest.approx(m_svm[m_svm > 0].min(), rel=2 * svm.tol)
    assert s["input_margin_evrm"] == pytest.approx(m_e[m_e > 0].min(),
                                                   rel=2 * ref.tol / ref.margins_.min())
    assert s["fixed_point_iter"] == ref.n_fixed_point_iter_
    assert s["test_error_evrm"] == pytest.approx(
        np.mean(ref.predict(app._test[0]) != app._test[1]))
    assert "Smallest input margin" in app.stats.value
    # lambda = 0 is the plain SVM
    app.update(ellipsoid_weight=0.0)
    np.testing.assert_allclose(_tr(app, "evrm").z, _tr(app, "svm").z, atol=1e-9)
    assert app.last_stats["fixed_point_iter"] == 0


def test_bad_kernel_and_weight_are_refused(app):
    out = app.update(kernel="sigmoid")
    assert "kernel" in out["error"] and "kernel" in app.error.value
    out = app.update(kernel="poly", ellipsoid_weight=1.5)
    assert "ellipsoid_weight" in out["error"]
    app.update(kernel="linear", ellipsoid_weight=1.0, dataset="blobs")
    assert app.error.value == ""


def test_an_unsettled_fixed_point_is_said(monkeypatch):
    import kernelnb.lab.app.vicinal_risk as vr
    monkeypatch.setattr(vr, "N_FIXED_POINT", 0)          # no step after the first SVM
    page = VicinalRisk(grid=10, kernel="poly")
    assert page.last_stats["fixed_point_iter"] == 0
    assert "without settling" in page.stats.value
    monkeypatch.setattr(vr, "N_FIXED_POINT", 20)
    page.update(seed=1)
    assert "without settling" not in page.stats.value


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_the_hard_svm_is_the_hard_margin_svc(app, kernel):
    """The 'hard SVM' trace holds the decision values of SVC(margin='hard') fitted on the
    points of the chart; C moves the soft SVM, not the hard one."""
    app.update(dataset="blobs", noise=0.5, seed=0, kernel=kernel, sigma=0.5, C=0.05,
               width="knn", width_factor=0.5)
    assert app.error.value == ""
    X, y = _data(app)
    ref = SVC(kernel=kernel, margin="hard", sigma=0.5, degree=2, coef0=1.0).fit(X, y)
    assert ref.fit_status_ == 0 and np.all(ref.predict(X) == y)    # a separable sample
    _, _, Z = decision_grid(ref, _bounds(app), 25)
    z_hard = np.asarray(_tr(app, "hard").z, float)
    np.testing.assert_allclose(z_hard, Z, atol=1e-3, rtol=1e-3)
    # at this small C the soft margin lets points in: another boundary
    assert np.abs(np.asarray(_tr(app, "svm").z, float) - Z).max() > 0.1
    s = app.last_stats
    Xt, yt = app._test
    assert s["train_error_hard"] == 0
    assert s["test_error_hard"] == pytest.approx(np.mean(ref.predict(Xt) != yt))
    m = input_margins(ref, X, y)
    assert s["input_margin_hard"] == pytest.approx(m.min(), rel=1e-3)
    assert "hard SVM: test error" in app.stats.value
    z_soft = np.asarray(_tr(app, "svm").z, float)
    app.update(C=50.0)
    np.testing.assert_array_equal(np.asarray(_tr(app, "hard").z, float), z_hard)
    assert not np.allclose(np.asarray(_tr(app, "svm").z, float), z_soft, atol=1e-3)


def test_separable_decides_with_the_kernel():
    """XOR's four corners: no line separates them, x1 x2 (in the poly 2 kernel) and the RBF
    kernel do; a point given both labels is separable by no kernel."""
    X = np.array([[-1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])
    y = np.array([0, 0, 1, 1])
    assert not separable(make_kernel("linear")(X), y)
    assert separable(make_kernel("poly", degree=2, coef0=1.0)(X), y)
    assert separable(make_kernel("rbf", sigma=1.0)(X), y)
    assert separable(make_kernel("linear")(X), np.array([0, 1, 1, 1]))
    X2, y2 = np.r_[X, X[:1]], np.r_[y, 1]
    assert not separable(make_kernel("rbf", sigma=1.0)(X2), y2)


def test_a_sample_no_line_separates_is_said_not_drawn(app):
    """Moons with the linear kernel: no hard-margin SVM exists; the page says so in the chart
    and under it, draws no hard boundary, and keeps the other models."""
    app.update(dataset="moons", seed=0, kernel="linear", C=1.0)
    X, y = _data(app)
    # even at a huge C the best line leaves training points on the wrong side
    assert np.mean(SVC(kernel="linear", C=1e4).fit(X, y).predict(X) != y) > 0
    assert app.error.value == "" and not app.last_error     # a finding, not an error
    note = app.stats.value
    assert "No hard-margin SVM" in note and "not separable with the linear kernel" in note
    (ann,) = app.fig.layout.annotations
    assert "not separable" in ann.text
    assert _tr(app, "hard").name.startswith("hard SVM: none")
    assert len(_tr(app, "hard").z) == 0                      # nothing drawn
    # and nothing computed for it: the model that has no solution is not evaluated on the grid
    calls = []
    real = SVC.decision_function
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SVC, "decision_function",
                   lambda self, Z: calls.append(self.margin) or real(self, Z))
        app.update(C=2.0)
    assert calls and "hard" not in calls and len(_tr(app, "hard").z) == 0
    app.update(C=1.0)
    assert np.all(np.isfinite(np.asarray(_tr(app, "svm").z, float)))
    s = app.last_stats
    assert np.isnan(s["train_error_hard"]) and np.isnan(s["input_margin_hard"])
    assert 0 < s["train_error_svm"] < 0.5
    # an RBF kernel narrow enough separates the moons: the hard SVM is back, the note gone
    app.update(kernel="rbf", sigma=0.3)
    assert not app.fig.layout.annotations and "No hard-margin SVM" not in app.stats.value
    assert _tr(app, "hard").name == "hard SVM" and app.last_stats["train_error_hard"] == 0
    z_hard = np.asarray(_tr(app, "hard").z, float)
    assert z_hard.size == 25 * 25 and np.all(np.isfinite(z_hard))
    app.update(dataset="blobs", kernel="linear")


def test_a_separable_sample_the_solver_does_not_settle_is_said(monkeypatch):
    """Stopped by the step cap on a separable sample: the note says separable, not settled."""
    import kernelnb.lab.app.vicinal_risk as vr
    monkeypatch.setattr(vr, "HARD_MAX_ITER", 2)
    page = VicinalRisk(grid=10, kernel="rbf", sigma=0.5)
    X, y = page._train
    assert separable(make_kernel("rbf", sigma=0.5)(X), y)
    assert page.error.value == ""
    assert "separable with the RBF kernel" in page.stats.value
    assert "had not settled after 2 steps" in page.stats.value
    assert "not settled" in page.fig.layout.annotations[0].text
    assert np.isnan(page.last_stats["test_error_hard"])
    monkeypatch.setattr(vr, "HARD_MAX_ITER", 300_000)
    page.update(seed=1)
    assert not page.fig.layout.annotations and "settled" not in page.stats.value


LESSON = VicinalRisk.LESSONS[0]


@pytest.fixture(scope="module")
def lesson_app():
    return make_lesson_app(VicinalRisk)


@pytest.mark.parametrize("control", list(LESSON.sweep))
def test_lessons_vicinities_cost_nothing_against_the_hard_svm(lesson_app, control):
    check_lesson(lesson_app, LESSON, control)


def test_no_hard_svm_is_out_of_regime_and_the_vicinal_risk_still_answers(lesson_app):
    try:
        s = lesson_app.update(raise_errors=True, noise=1.5, seed=0)
        assert np.isnan(s["test_error_hard"]) and np.isfinite(s["test_error_vrm"])
        assert s["regime"] and "no hard-margin SVM" in lesson_app.stats.value
    finally:
        lesson_app.update(noise=0.5)
    assert not lesson_app.last_stats["regime"]


@pytest.mark.parametrize("factor", [0.5, 10.0])
def test_every_circle_lies_inside_the_plot(lesson_app, factor):
    lesson_app.update(width_factor=factor, show_circles=True)
    circles = _tr(lesson_app, "circles")
    x = np.array([v for v in circles.x if v is not None], float)
    y = np.array([v for v in circles.y if v is not None], float)
    x0, x1 = lesson_app.fig.layout.xaxis.range
    y0, y1 = lesson_app.fig.layout.yaxis.range
    assert x0 <= np.nanmin(x) and np.nanmax(x) <= x1 and y0 <= np.nanmin(y) and np.nanmax(y) <= y1
    lesson_app.update(width_factor=0.5)
