"""The feature selection dashboard's logic, without a browser, and its notebook."""
from pathlib import Path

import nbformat
import numpy as np
import pytest

from kernelnb.lab.app.feature_selection import FEATURE_DATASETS, METHODS, FeatureSelection
from kernelnb.lab.server.gallery import DASHBOARDS, dashboards_dir
from kernelnb.model_selection import ForwardSpanSelector, ScalingSelector
from kernelnb.svm import SVC

from ._lessons import check_lesson, lesson_app as make_lesson_app

NOTEBOOK = Path(__file__).resolve().parents[3] / "dashboards" / "feature_selection.ipynb"


@pytest.fixture(scope="module")
def dash():
    return FeatureSelection()


def test_first_view_runs_the_linear_toy_quickly(dash):
    s = dash.last_stats
    assert dash.last_error == ""
    assert s["update_ms"] < 5000 * 3            # ~1.3 s measured; slack for loaded shared cores
    assert len(s["kept"]) == 2 and s["n_relevant_kept"] == 2
    assert s["test_error_scaled"] < s["test_error_all"]
    # the bar chart shows the factors after the first optimisation (every feature has one),
    # the relevant ones in their own trace, and a star over each kept feature
    rel, irr, kept = dash.fig.data[1], dash.fig.data[0], dash.fig.data[2]
    assert list(rel.x) == list(range(6)) and len(irr.x) == 196
    assert np.all(np.asarray(rel.y) > 0) and np.all(np.asarray(irr.y) > 0)
    # the relevant features stand out after the first optimisation
    assert np.median(rel.y) > 3 * np.median(irr.y)
    assert sorted(kept.x) == sorted(s["kept"]) and "★ the 2 kept" in dash.fig.layout.title.text
    assert dash.map_box.layout.display == "none"
    assert dash.progress.layout.visibility == "hidden"


def test_curves_match_an_independent_run(dash):
    """The trace and the elimination curve are those of the selector run with the same data."""
    s = dash.update(n_samples=40, seed=1)
    X, y, Xt, yt = dash._data("linear", 40, 1)
    sel = ScalingSelector(SVC(kernel="linear", C=10.0, margin="l2", n_jobs=1, max_iter=100000),
                          n_features_to_select=2).fit(X, y)
    np.testing.assert_array_equal(s["kept"], sel.get_support(indices=True))
    np.testing.assert_allclose(s["trace_criterion"], [r["criterion"] for r in sel.trace_])
    assert list(s["curve_n_features"]) == sel.planned_sizes(202)
    assert s["test_error_final"] == pytest.approx(np.mean(sel.predict(Xt) != yt))
    # test error after optimising the factors (stage 0) = first point of the elimination curve
    s0 = sel.history_[0]["scales"]
    m0 = SVC(kernel="linear", C=10.0, margin="l2").fit(X * s0, y)
    assert s["curve_test_error"][0] == pytest.approx(np.mean(m0.predict(Xt * s0) != yt),
                                                     abs=2 / len(yt))
    assert len(dash.trace_fig.data[0].x) == len(sel.trace_)
    assert len(dash.trace_fig.layout.shapes) == len(sel.history_) - 1     # stage boundaries
    # the line is the running best of each stage; the evaluations above it are the line
    # search's trial steps, drawn as dots
    crit = np.array([r["criterion"] for r in sel.trace_])
    stage = np.array([r["stage"] for r in sel.trace_])
    best = np.asarray(dash.trace_fig.data[0].y, float)
    for st in np.unique(stage):
        m = stage == st
        np.testing.assert_allclose(best[m], np.minimum.accumulate(crit[m]))
    trial = crit > best
    np.testing.assert_array_equal(np.asarray(dash.trace_fig.data[2].x), np.flatnonzero(trial) + 1)
    assert s["trace_trials"] == trial.sum()


LESSON = FeatureSelection.LESSONS[0]


@pytest.fixture(scope="module")
def quick():
    """The linear toy with a cheap schedule (the lesson's neighbourhood, at a fraction of the
    default run's time)."""
    return make_lesson_app(FeatureSelection)


@pytest.mark.parametrize("control", sorted(LESSON.sweep))
def test_lessons_feature_selection(quick, control):
    check_lesson(quick, LESSON, control)


def test_digits_are_noted(quick):
    s = quick.update(dataset="digits", n_samples=100, n_keep=32, max_iter=2)
    assert s["regime"] and "no irrelevant features" in s["regime"][0]
    assert "kernelnb-regime" in quick.stats.value
    s = quick.update(dataset="linear", n_samples=30, n_keep=6, max_iter=3)
    assert not s["regime"] and "kernelnb-regime" not in quick.stats.value


def test_nonlinear_toy_and_digits(dash):
    s = dash.update(dataset="nonlinear")
    assert dash.last_error == "" and dash.controls["n_samples"].value == 50
    assert s["n_relevant_kept"] >= 1
    s = dash.update(dataset="digits", n_samples=100, n_keep=32, max_iter=5)
    assert dash.last_error == "", dash.last_error
    assert "n_relevant_kept" not in s
    assert dash.map_box.layout.display == "flex"
    z = np.asarray(dash.map_fig.data[0].z)
    assert z.shape == (8, 8) and np.sum(z > 0) == 32
    assert s["curve_n_features"].tolist() == [64, 32]


def test_run_button_runs_again(dash):
    dash.update(dataset="linear", n_samples=30, seed=0)
    before = dash.last_stats["update_ms"]
    dash.run_button.click()
    assert dash.last_stats["update_ms"] != before and dash.last_error == ""


def test_errors_show_in_the_page_and_the_dashboard_lives_on(dash):
    out = dash.update(dataset="no-such-set")
    assert "error" in out and "dataset must be one of" in dash.last_error
    out = dash.update(dataset="linear", n_keep=500)
    assert "error" in out and "n_keep" in dash.last_error
    s = dash.update(dataset="linear", n_keep=3)
    assert dash.last_error == "" and len(s["kept"]) == 3


def test_registered_and_shipped_like_the_other_dashboards():
    assert "feature_selection" in [d.name for d in DASHBOARDS]
    assert (dashboards_dir() / "feature_selection.ipynb").is_file()
    assert set(FEATURE_DATASETS) == {"linear", "nonlinear", "digits"}


@pytest.mark.slow
def test_notebook_executes():
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in nb.cells if c.cell_type == "code")
    assert len(nb.cells) == 2 and nb.cells[0].source.startswith("# ")
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert "application/vnd.jupyter.widget-view+json" in [m for o in outputs for m in o.get("data", {})]


def test_tuning_path_over_the_criterion_map(dash):
    """The (log C, log sigma) section: a map of R²/M² computed independently, and the tuner's path
    from the starting point down to a lower criterion."""
    from kernelnb.kernels import scale_sigma
    from kernelnb.model_selection import criterion_and_gradient

    assert dash.path_box.layout.display == "none"        # off by default
    s = dash.update(raise_errors=True, dataset="digits", n_samples=150, seed=2, tune_path=True)
    assert dash.path_box.layout.display == "flex"
    X, y, _Xt, _yt = dash._data("digits", 150, 2)
    pf = dash.path_fig
    Z = np.asarray(pf.data[0].z)
    g = FeatureSelection.PATH_GRID
    assert Z.shape == (g, g)
    i, j = 2, 5                                          # one map cell, recomputed here
    est = SVC(kernel="rbf", margin="l2", C=10.0 ** pf.data[0].x[j], sigma=10.0 ** pf.data[0].y[i],
              n_jobs=1, max_iter=100000)
    ref = criterion_and_gradient(est, X, y, tune=("C",))[0]
    assert Z[i, j] == pytest.approx(np.log10(ref), rel=1e-4)
    # the path starts at (C slider, the 'scale' width) and ends where the criterion is lower
    c0, s0 = pf.data[1].x[0], pf.data[1].y[0]
    assert c0 == pytest.approx(np.log10(dash.params()["C"]))
    assert s0 == pytest.approx(np.log10(scale_sigma(X)))
    start = criterion_and_gradient(SVC(kernel="rbf", margin="l2", C=10.0 ** c0, sigma=10.0 ** s0),
                                   X, y, tune=("C",))[0]
    end = criterion_and_gradient(SVC(kernel="rbf", margin="l2", C=s["path_C"], sigma=s["path_sigma"]),
                                 X, y, tune=("C",))[0]
    assert end < start
    assert s["path_trainings"] >= len(pf.data[1].x) and 0.0 <= s["path_test_error"] <= 1.0
    dash.update(tune_path=False, dataset="linear")
    assert dash.path_box.layout.display == "none"


def test_forward_selection_on_the_span_matches_the_selector(dash):
    """The 'forward' method is ForwardSpanSelector (thesis §5.1.4) on the same data: the chosen
    features, the bars (each feature's span alone), the curve per step and the test errors."""
    s = dash.update(dataset="nonlinear", method="forward", n_keep=2, seed=0)
    assert dash.last_error == ""
    assert dash.controls["schedule"].disabled and dash.controls["max_iter"].disabled
    X, y, Xt, yt = dash._data("nonlinear", 50, 0)
    est = SVC(kernel="poly", degree=2, coef0=1.0, C=10.0, margin="l2", n_jobs=1,
              max_iter=100000)
    sel = ForwardSpanSelector(est, n_features_to_select=2).fit(X, y)
    np.testing.assert_array_equal(s["kept"], sel.order_)
    assert s["n_relevant_kept"] == np.isin(sel.order_, [0, 1]).sum() >= 1
    assert s["test_error_final"] == pytest.approx(np.mean(sel.predict(Xt) != yt))
    assert s["n_trainings"] == sel.n_trainings_ == 52 + 51 + 1
    first = sel.history_[0]
    bars = dict(zip(np.r_[dash.fig.data[0].x, dash.fig.data[1].x],
                    np.r_[dash.fig.data[0].y, dash.fig.data[1].y]))
    for j, v in zip(first["candidates"], first["span"]):
        assert bars[j] == pytest.approx(v)
    assert sorted(dash.fig.data[2].x) == sorted(sel.order_) and dash.fig.data[2].name == "chosen"
    for i, h in enumerate(sel.history_):            # per step: the chosen SVM's span, test error
        assert s["curve_span"][i] == pytest.approx(h["span"].min())
        m = SVC(kernel="poly", degree=2, coef0=1.0, C=10.0, margin="l2").fit(
            X[:, sel.order_[:i + 1]], y)
        assert s["curve_test_error"][i] == pytest.approx(
            np.mean(m.predict(Xt[:, sel.order_[:i + 1]]) != yt), abs=2 / len(yt))
    assert list(dash.elim_fig.data[1].y) == pytest.approx(list(s["curve_span"]))
    assert dash.elim_fig.data[1].visible and dash.trace_box.layout.display == "none"
    assert "104 SVM trainings" in dash.stats.value and "§5.1.4" in dash.stats.value
    s = dash.update(dataset="linear", method="scaling")
    assert not dash.controls["schedule"].disabled and dash.elim_fig.data[1].visible is False
    assert dash.trace_box.layout.display == "flex" and "test_error_scaled" in s
    out = dash.update(method="backward")
    assert "error" in out and "method must be one of" in dash.last_error


def test_the_fisher_kernel_is_a_dashboard_of_its_own(quick):
    """The Fisher kernel left this dashboard (issue 49): its method and its control are gone,
    and an old notebook's ``FeatureSelection(method="fisher", n_components=2)`` draws the
    selection under a message that names the Fisher kernel dashboard; an update or an old link
    (``feature_selection.ipynb?method=fisher``) that asks for them is refused with that message,
    and the dashboard goes on."""
    assert set(METHODS) == {"scaling", "forward"} and "n_components" not in quick.controls
    assert not any("Fisher" in f.layout.title.text for f in quick.figures if f.layout.title.text)
    old = FeatureSelection(method="fisher", n_components=2, **FeatureSelection.LESSON_APP)
    assert old.last_error.startswith("method='fisher', n_components=2: the Fisher kernel has its "
                                     "own dashboard now, “Fisher kernel tuned by R²/M²”: the page "
                                     "fisher_kernel.ipynb, or FisherKernelExplorer() in a notebook")
    assert old.params()["method"] == "scaling" and "test_error_scaled" in old.last_stats
    before = dict(quick.last_stats)
    out = quick.update(method="fisher")
    assert out["error"].startswith("ValueError: method='fisher': the Fisher kernel has its own")
    assert quick.last_stats["kept"] is before["kept"]           # nothing recomputed
    with pytest.raises(ValueError, match=r"n_components=3: .*FisherKernelExplorer\(\)"):
        quick.update(raise_errors=True, n_components=3)
    refused = quick.apply_query("?method=fisher&n_components=3&n_keep=4")
    assert [(key, text) for key, text, _why in refused] == [("method", "fisher"),
                                                            ("n_components", "3")]
    assert all("fisher_kernel.ipynb" in why for _key, _text, why in refused)
    assert quick.params()["n_keep"] == 4 and "test_error_scaled" in quick.last_stats
    assert "method=fisher (the Fisher kernel has its own dashboard now" in quick.last_error
    quick.set_language("fr")
    try:
        quick.apply_query("?method=fisher")
        assert ("le noyau de Fisher a maintenant son propre tableau de bord, «\u00a0Noyau de "
                "Fisher réglé par R²/M²\u00a0»") in quick.last_error
    finally:
        quick.set_language("en")
        quick.update(**FeatureSelection.LESSON_APP)


def test_a_quick_selection_draws_its_stage_charts_once():
    """Moved in a kernel where the last run ended soon after its first stage (under
    hold_under_s), the first stage draws the factors' bars (those of the first optimisation,
    which the end shows too) and leaves the criterion and elimination charts, which the end
    draws a moment later."""
    import asyncio

    app = FeatureSelection(schedule="half", max_iter=3)
    reference = FeatureSelection(schedule="half", max_iter=3).update(raise_errors=True, n_keep=3)
    app._last_tail_s = 0.0
    before = [np.asarray(f.data[0].y, float).copy() for f in (app.trace_fig, app.elim_fig)]

    async def main():
        app.controls["n_keep"].value = 3
        partial = ([np.asarray(f.data[0].y, float) for f in (app.trace_fig, app.elim_fig)],
                   np.asarray(app.fig.data[0].y, float), dict(app.last_stats))
        await app.pending
        return partial

    held, partial_bars, first = asyncio.run(main())
    assert first["partial"]
    assert all(np.array_equal(a, b) for a, b in zip(held, before))
    # the first stage's bars are the end's: the factors after the first optimisation
    np.testing.assert_array_equal(partial_bars, np.asarray(app.fig.data[0].y, float))
    assert "partial" not in app.last_stats and app.pending is None and not app.last_error
    for key in ("test_error_final", "n_relevant_kept", "n_evaluations"):
        assert app.last_stats[key] == reference[key], key
    np.testing.assert_array_equal(app.last_stats["curve_test_error"], reference["curve_test_error"])
