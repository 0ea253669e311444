"""The Fisher kernel dashboard's logic (thesis §5.3), without a browser, and its notebook."""
from pathlib import Path

import nbformat
import numpy as np
import pytest
from scipy.interpolate import RegularGridInterpolator

from kernelnb.datasets import make_moons
from kernelnb.lab.app import REGISTRY
from kernelnb.lab.app.fisher_kernel import FisherKernelExplorer
from kernelnb.lab.server.gallery import DASHBOARDS, dashboards_dir
from kernelnb.lab.viz import decision_grid
from kernelnb.model_selection import FisherKernelSVC

from ._lessons import check_lesson


NOTEBOOK = Path(__file__).resolve().parents[3] / "dashboards" / "fisher_kernel.ipynb"
LESSON = FisherKernelExplorer.LESSONS[0]


@pytest.fixture(scope="module")
def app():
    return FisherKernelExplorer()


def _moons(n, seed):
    rng = np.random.RandomState(seed)
    X, y = make_moons(n, noise=0.2, random_state=rng)
    Xt, yt = make_moons(500, noise=0.2, random_state=rng)
    return X, y, Xt, yt


def test_the_kernels_are_those_of_direct_fits(app):
    """FisherKernelSVC fitted twice on the moons (noise 0.2) drawn from the sample seed, which
    also seeds the mixture: the numbers, means, curve and boundaries are those of the two
    estimators fitted here."""
    assert app.params() == {"dataset": "moons", "n_samples": 200, "seed": 0, "n_components": 4,
                            "C": 1.0}
    assert app.last_error == "" and not app.last_stats["regime"]
    s = app.update(raise_errors=True, n_samples=120, seed=1, C=2.0, n_components=3)
    X, y, Xt, yt = _moons(120, 1)
    ml = FisherKernelSVC(n_components=3, C=2.0, criterion="likelihood", random_state=1).fit(X, y)
    rm = FisherKernelSVC(n_components=3, C=2.0, criterion="radius_margin", random_state=1).fit(X, y)
    assert s["test_error_ml"] == np.mean(ml.predict(Xt) != yt)
    assert s["test_error_rm"] == np.mean(rm.predict(Xt) != yt)
    assert s["radius_margin_ml"] == pytest.approx(ml.radius_margin_, rel=1e-9)
    assert s["radius_margin_rm"] == pytest.approx(rm.radius_margin_, rel=1e-9)
    np.testing.assert_allclose(s["means_ml"], ml.means_)
    np.testing.assert_allclose(s["means_rm"], rm.means_)
    np.testing.assert_allclose(s["trace_criterion"], [h["radius_margin"] for h in rm.history_])
    assert s["n_evaluations"] == len(rm.history_) and s["n_iterations"] == rm.n_iter_ - 1
    # the chart: the points by class, both sets of means, both boundaries f = 0 on a grid
    f = app.fig
    assert f is app.figures[0]
    assert len(f.data[0].x) + len(f.data[1].x) == 120 and len(f.data) == 6
    np.testing.assert_allclose(np.c_[f.data[5].x, f.data[5].y], rm.means_)
    np.testing.assert_allclose(np.c_[f.data[4].x, f.data[4].y], ml.means_)
    (x0, x1), (y0, y1) = f.layout.xaxis.range, f.layout.yaxis.range
    for i, model in ((2, ml), (3, rm)):
        # the line f = 0 of the model's decision values on the chart's 80 x 80 grid: where
        # scipy's linear interpolation of that grid (computed here from the model) is 0, to the
        # float32 rounding of the grid and the vertices sent (1e-5 of the values' range)
        xs, ys, Z = decision_grid(model, (x0, x1, y0, y1), 80)
        lx, ly = np.asarray(f.data[i].x, float), np.asarray(f.data[i].y, float)
        ok = np.isfinite(lx)
        assert ok.sum() > 10 and f.data[i].mode == "lines"
        # (a vertex on the border, rounded to float32, may lie a hair outside: extrapolated)
        at = RegularGridInterpolator((ys, xs), Z, bounds_error=False, fill_value=None)(
            np.c_[ly[ok], lx[ok]])
        assert np.abs(at).max() < 1e-5 * np.ptp(Z), np.abs(at).max()
    # every mean lies inside the chart
    (x0, x1), (y0, y1) = f.layout.xaxis.range, f.layout.yaxis.range
    means = np.r_[ml.means_, rm.means_]
    assert np.all((means[:, 0] > x0) & (means[:, 0] < x1) & (means[:, 1] > y0)
                  & (means[:, 1] < y1))
    assert f.layout.title.text == "moons, 120 points: Fisher kernel of 3 Gaussians, C = 2"
    # the bound along the tuning: its running lowest, and the trial steps above it
    t = app.trace_fig
    curve = np.asarray(s["trace_criterion"])
    np.testing.assert_allclose(np.asarray(t.data[0].y, float), np.minimum.accumulate(curve))
    assert len(t.data[1].x) == s["trace_trials"] == np.sum(curve > np.minimum.accumulate(curve))
    readout = app.stats.value
    assert "means by likelihood" in readout and LESSON.html() in readout
    assert f"({s['n_evaluations']} SVM trainings)" in readout


def test_in_a_kernel_the_likelihoods_kernel_is_drawn_first():
    """Moved in a kernel, where the last tuning took a while, the update draws the likelihood's
    kernel at once (its boundary and means; no tuned means, no R²/M² boundary yet) and returns;
    the tuning finishes in pending and draws the numbers an update from Python gives."""
    import asyncio

    app = FisherKernelExplorer(n_samples=120)
    reference = FisherKernelExplorer(n_samples=120).update(raise_errors=True, n_components=3)
    app._last_tail_s = 1.0          # the last tuning took a second: the toy's chart not held
    drawn = []
    render = app._render
    app._render = lambda r: drawn.append(dict(r["stats"])) or render(r)

    async def main():
        app.controls["n_components"].value = 3
        first = dict(app.last_stats)
        partial_chart = [np.asarray(app.fig.data[i].x, float) for i in (2, 3)]
        rm_means = len(app.fig.data[5].x)
        await app.pending
        return first, partial_chart, rm_means

    first, (z_ml, z_rm), rm_means = asyncio.run(main())
    assert first["partial"] and "test_error_rm" not in first and len(drawn) == 2
    assert first["test_error_ml"] == reference["test_error_ml"]
    # the likelihood's boundary drawn (a line, NaN only between its pieces), none for R²/M² yet
    assert z_ml.size and np.isfinite(z_ml[[0, -1]]).all() and z_rm.size == 0 and rm_means == 0
    final = app.last_stats
    assert "partial" not in final and app.pending is None and not app.last_error
    for key in ("test_error_ml", "test_error_rm", "radius_margin_ml", "radius_margin_rm",
                "n_evaluations"):
        assert final[key] == reference[key], key
    np.testing.assert_array_equal(final["means_rm"], reference["means_rm"])
    assert len(app.fig.data[5].x) == 3 and app.progress.layout.visibility == "hidden"


def test_a_quick_tuning_draws_the_toy_chart_once():
    """Where the last tuning was quick (under hold_under_s), the first partial result draws the
    bound's first evaluation and leaves the toy's chart, which the end draws a moment later
    (the browser draws a page's charts one after another): the chart is drawn once a step."""
    import asyncio

    app = FisherKernelExplorer(n_samples=120)
    app._last_tail_s = 0.0
    before = [np.asarray(app.fig.data[i].x, float).copy() for i in (2, 3)]

    async def main():
        app.controls["n_components"].value = 3
        partial = ([np.asarray(app.fig.data[i].x, float) for i in (2, 3)],
                   len(app.trace_fig.data[0].x), dict(app.last_stats))
        await app.pending
        return partial

    (z_ml, z_rm), n_trace, first = asyncio.run(main())
    assert first["partial"] and n_trace == 1           # the likelihood's R²/M², drawn
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip((z_ml, z_rm), before))
    assert "partial" not in app.last_stats and len(app.fig.data[5].x) == 3
    assert np.asarray(app.fig.data[3].x, float).size      # the R²/M² boundary, drawn at the end


def test_the_charts_say_where_the_means_are(app):
    s = app.update(raise_errors=True, n_samples=200, seed=0, C=1.0, n_components=2)
    (name, desc), (trace_name, trace_desc) = app.last_description
    assert name == app.fig.layout.title.text
    ml = "; ".join(", ".join(f"({a:.2f}, {b:.2f})" for a, b in s[k]) for k in ("means_ml",
                                                                               "means_rm"))
    first, second = ml.split("; ")
    assert f"means by likelihood at {first}; means by R²/M² at {second}" in desc
    assert "test error, means by R²/M² " in desc and "means by likelihood (2 points)" in desc
    assert trace_name.startswith("R²/M² while the means move")
    curve = s["trace_criterion"]
    assert (f"R²/M² goes from {curve[0]:.3g} at the likelihood's means to {min(curve):.3g}, its "
            f"lowest, in {len(curve)} evaluations") in trace_desc
    french = FisherKernelExplorer(lang="fr", n_components=2)
    desc = french.last_description[0][1]
    assert "moyennes par la vraisemblance en (" in desc and " ; " in desc


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
@pytest.mark.parametrize("control", sorted(LESSON.sweep))
def test_lessons_fisher_kernel(app, control):
    check_lesson(app, LESSON, control)


@pytest.mark.slow  # about two seconds of CPU: not in the fast loop
def test_on_the_blobs_the_likelihood_kernel_is_far_worse_than_a_line(app):
    """What the notebook's text says: the blobs, which a straight line separates (one Gaussian:
    a linear kernel, no error), get a far worse kernel from the likelihood's means once there
    are two Gaussians or more, and a nearly perfect one from the means tuned by R²/M²; the
    other toys are drawn as make_toy draws them."""
    one = app.update(raise_errors=True, dataset="blobs", n_components=1, n_samples=200, C=1.0,
                     seed=0)
    assert one["test_error_ml"] < 0.01 and one["regime"]
    for m in (2, 4, 6):
        runs = [app.update(raise_errors=True, n_components=m, seed=seed) for seed in range(3)]
        assert np.mean([r["test_error_ml"] for r in runs]) > 0.15, m
        assert np.mean([r["test_error_rm"] for r in runs]) < 0.03, m
    assert app.fig.layout.title.text.startswith("blobs, 200 points")
    from kernelnb.datasets import make_toy
    rng = np.random.RandomState(2)
    X, _y = make_toy("xor", 60, noise=0.1, random_state=rng)
    app.update(raise_errors=True, dataset="xor", n_samples=60, seed=2, n_components=2)
    drawn = np.r_[np.c_[app.fig.data[0].x, app.fig.data[0].y],
                  np.c_[app.fig.data[1].x, app.fig.data[1].y]]
    np.testing.assert_allclose(np.sort(drawn, axis=0), np.sort(X, axis=0))
    assert app.update(dataset="rings")["error"].startswith("ValueError: dataset must be one of")
    app.update(dataset="moons", n_samples=200, seed=0, n_components=4, C=1.0)


def test_one_component_is_noted(app):
    """One Gaussian: the readout says the kernel is linear, and it is (the boundary drawn, the
    line f = 0 of the decision values on the grid, is straight: linear interpolation of an
    affine f is exact, so its vertices are on one line to the float32 rounding of the grid)."""
    s = app.update(raise_errors=True, n_components=1, n_samples=200, seed=0, C=1.0)
    assert s["regime"] and "linear kernel" in s["regime"][0]
    assert "kernelnb-regime" in app.stats.value
    f = app.fig.data[2]
    x, y = np.asarray(f.x, float), np.asarray(f.y, float)
    assert x.size >= 3 and np.isfinite(x).all()          # one piece, no gap
    P = np.c_[x, y] - np.c_[x, y].mean(axis=0)
    extent = float(np.ptp(P, axis=0).max())
    off_line = np.linalg.svd(P, compute_uv=False)[1] / np.sqrt(x.size)   # rms distance off it
    assert off_line < 1e-5 * extent, (off_line, extent)
    s = app.update(raise_errors=True, n_components=2)
    assert not s["regime"] and "kernelnb-regime" not in app.stats.value


def test_bad_values_are_refused_and_named(app):
    """Every value is checked in the kernel: from Python (an error naming it), from a page that
    widens a slider (put back) or sends a value out of range (moved back into it)."""
    app.update(n_components=4, n_samples=200, seed=0, C=1.0)
    assert app.controls["C"].min == -1 and app.controls["C"].max == 1     # C from 0.1 to 10
    for bad, name in ((dict(C=100.0), "C"), (dict(C=-1.0), "C"), (dict(C=0.01), "C"),
                      (dict(C="1"), "C"), (dict(n_components=0), "n_components"),
                      (dict(n_components=7), "n_components"),
                      (dict(n_components=2.5), "n_components"), (dict(n_samples=5), "n_samples"),
                      (dict(n_samples=True), "n_samples"), (dict(seed=-1), "seed")):
        out = app.update(**bad)
        assert "error" in out and out["error"].startswith(f"ValueError: {name} must be"), out
    assert app.last_stats["test_error_rm"] < app.last_stats["test_error_ml"]   # the last good
    # a page that widens the slider gets it put back, and the kernel still refuses the value
    app.controls["C"].max = 3
    assert app.controls["C"].max == 1
    app.controls["n_components"].set_state({"max": 50, "value": 50})
    s = app.update()
    assert app.controls["n_components"].max == 6 and app.params()["n_components"] == 6
    assert app.last_error == "" and s["means_rm"].shape == (6, 2)
    refused = app.apply_query("?C=100&n_components=3")
    assert [key for key, _text, _why in refused] == ["C"] and app.params()["n_components"] == 3
    app.update(C=1.0, n_components=4)


def test_the_challenge_is_reached_at_its_solution():
    app = FisherKernelExplorer()
    ch = app.challenge()
    assert ch is not None and not app.challenge_panel.done
    assert app.last_stats["test_error_ml"] >= 0.06           # the defaults do not reach it
    s = app.update(raise_errors=True, **ch.solution)
    assert s["test_error_ml"] < 0.06 and app.challenge_panel.done
    assert app.url_query() == "n_components=3&challenge=done"


def test_registered_right_after_feature_selection_and_shipped():
    modules = [module for module, _cls in REGISTRY]
    assert modules.index("fisher_kernel") == modules.index("feature_selection") + 1
    entry = next(d for d in DASHBOARDS if d.name == "fisher_kernel")
    assert (entry.class_name, entry.title) == ("FisherKernelExplorer", FisherKernelExplorer.title)
    assert (dashboards_dir() / "fisher_kernel.ipynb").is_file()
    from kernelnb.lab.server.gallery import static_dir
    assert (static_dir() / "fisher_kernel.png").is_file()      # the gallery's thumbnail


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
    assert "application/vnd.jupyter.widget-view+json" in [m for o in outputs
                                                          for m in o.get("data", {})]
