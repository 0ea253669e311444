"""BoundsExplorer: the estimate chart follows the controls and matches independent fits; the
span chart shows the model's support vectors; errors are shown in the page; its notebook runs."""
from pathlib import Path

import nbformat
import numpy as np
import pytest

import kernelnb.lab.app.bounds_explorer as be
from kernelnb.lab.app.bounds_explorer import CURVES, N_GRID, BoundsExplorer
from kernelnb.model_selection import span_estimate, span_values, wahba
from kernelnb.svm import SVC

from ._lessons import check_lesson, lesson_app as make_lesson_app

TRACE = {key: k for k, (key, *_rest) in enumerate(CURVES)}


@pytest.fixture(scope="module")
def app():
    return BoundsExplorer(grid=20, n_samples=80)


def _trace(app, key):
    tr = app.fig.data[TRACE[key]]
    return np.asarray(tr.x, float), np.asarray(tr.y, float)


def test_first_open_looks_right():
    app = BoundsExplorer(grid=20)
    s = app.last_stats
    assert not app.last_error and app.error.value == ""
    assert app.controls["dataset"].value == "moons" and s["n_train"] == 200
    assert "kernelnb-main-slider" in app.controls["sigma"]._dom_classes
    assert all(getattr(w, "continuous_update", False) is False
               for w in app.controls.values() if hasattr(w, "continuous_update"))
    x, y = _trace(app, "test_error")
    assert x.shape == (N_GRID,) and y.shape == (N_GRID,)
    assert x[N_GRID // 2] == pytest.approx(0.5)            # centred on the current sigma
    assert app.fig.layout.shapes[0].x0 == pytest.approx(0.5)
    assert s["test_error"] < 0.1 and 0 <= s["span"] <= 1 and s["n_fits"] == N_GRID
    assert app.fig.data[TRACE["loo"]].visible is False      # LOO only on request
    for key in ("test error", "span estimate", "support vectors", "chart computed"):
        assert key in app.stats.value
    assert app.fig is app.figures[0] and app.widget is not None


def test_curves_match_independent_fits(app):
    app.update(dataset="moons", noise=0.3, n_samples=80, seed=2, C=2.0, sigma=0.4, margin="l1",
               axis="sigma")
    X, y = app._train
    Xt, yt = app._test
    xs, test = _trace(app, "test_error")
    _, span = _trace(app, "span")
    for k in (0, N_GRID // 2, N_GRID - 1):
        m = SVC(C=2.0, sigma=float(xs[k]), tol=1e-3).fit(X, y)
        assert test[k] == pytest.approx(np.mean(m.predict(Xt) != yt), abs=3 / len(yt))
        assert span[k] == pytest.approx(span_estimate(m, X, y), abs=2 / len(y))
    s = app.last_stats
    np.testing.assert_allclose(s["table"]["sigma"], xs)
    assert s["span"] == pytest.approx(span[N_GRID // 2], abs=2 / len(y))


def test_span_chart_shows_each_support_vector_and_its_span(app):
    app.update(dataset="moons", noise=0.3, n_samples=80, seed=2, C=2.0, sigma=0.4, margin="l1")
    X, y = app._train
    m = SVC(C=2.0, sigma=0.4, tol=1e-3).fit(X, y)
    sv_tr = app.plane_fig.data[3]
    assert len(sv_tr.x) == app.last_stats["n_support"]
    got = dict(zip(zip(sv_tr.x, sv_tr.y), sv_tr.marker.color))
    want = span_values(m, X, y)
    for i in m.support_[:10]:
        assert got[(X[i, 0], X[i, 1])] == pytest.approx(want[i], rel=1e-2, abs=1e-3)
    assert len(app.plane_fig.data[1].x) + len(app.plane_fig.data[2].x) == len(y)
    assert app.plane_box.layout.display != "none"


def test_plane_boundary_is_the_line_f_0_of_the_model(app):
    app.update(dataset="moons", noise=0.3, n_samples=80, seed=2, C=2.0, sigma=0.4, margin="l1")
    X, y = app._train
    m = SVC(C=2.0, sigma=0.4, tol=1e-3).fit(X, y)
    line = app.plane_fig.data[0]
    assert line.type == "scatter" and line.mode == "lines" and line.meta == "boundary"
    x, yl = np.asarray(line.x, float), np.asarray(line.y, float)
    pts = np.c_[x, yl][np.isfinite(x)]
    assert len(pts) > 10
    xmin, xmax = app.plane_fig.layout.xaxis.range
    ymin, ymax = app.plane_fig.layout.yaxis.range
    assert np.all((pts[:, 0] >= xmin - 1e-6) & (pts[:, 0] <= xmax + 1e-6))
    assert np.all((pts[:, 1] >= ymin - 1e-6) & (pts[:, 1] <= ymax + 1e-6))
    # a vertex is where f, linear along a cell's edge of the grid, is 0: the model's f there is
    # the error of linear interpolation, at most h^2 max|f''| / 8 along the edge, h^2 f'' read
    # from the grid's second differences (twice that: they sample f'' at the nodes only)
    gx, gy = np.linspace(xmin, xmax, app.grid), np.linspace(ymin, ymax, app.grid)
    F = m.decision_function(np.c_[np.repeat(gx[None, :], app.grid, 0).ravel(),
                                  np.repeat(gy[:, None], app.grid, 1).ravel()])
    F = F.reshape(app.grid, app.grid)
    d2 = max(np.abs(np.diff(F, 2, axis=0)).max(), np.abs(np.diff(F, 2, axis=1)).max())
    assert np.max(np.abs(m.decision_function(pts))) <= d2 / 4
    assert np.any(F > 0) and np.any(F < 0)        # both classes' sides are on the plane


def test_moving_sliders_and_the_axis_toggle_recompute(app):
    app.update(dataset="moons", n_samples=80, C=1.0, sigma=0.5, axis="sigma", margin="l1")
    _, before = _trace(app, "radius_margin")
    app.controls["sigma"].value = 1.0                    # a widget event, as in the browser
    xs, after = _trace(app, "radius_margin")
    assert xs[N_GRID // 2] == pytest.approx(1.0) and not np.allclose(before, after)
    assert app.fig.layout.shapes[0].x0 == pytest.approx(1.0)
    app.controls["axis"].value = "C"
    xs, _ = _trace(app, "test_error")
    assert xs[N_GRID // 2] == pytest.approx(1.0)           # centred on C = 1
    assert np.all(np.diff(np.log10(xs)) > 0)
    assert app.fig.layout.xaxis.title.text == "C" and "along C" in app.fig.layout.title.text
    app.controls["margin"].value = "l2"
    assert "L2" in app.fig.layout.title.text and not app.last_error
    app.update(axis="sigma", margin="l1")


def test_loo_curve_on_request(app):
    app.update(dataset="blobs", n_samples=40, seed=1, loo=True, axis="sigma", sigma=1.0, C=1.0)
    assert app.fig.data[TRACE["loo"]].visible is True
    _, loo = _trace(app, "loo")
    assert loo.shape == (N_GRID,) and np.all((0 <= loo) & (loo <= 1))
    assert app.last_stats["n_fits"] > N_GRID
    app.update(loo=False, n_samples=80, dataset="moons")
    assert app.fig.data[TRACE["loo"]].visible is False


def test_uci_set_hides_the_plane_and_disables_noise(app):
    app.update(dataset="sonar", n_samples=100, sigma=5.0, C=10.0)
    assert not app.last_error
    assert app.plane_box.layout.display == "none" and "60 features" in app.note.value
    assert app.controls["noise"].disabled
    assert app.last_stats["n_train"] == 100
    app.update(dataset="moons", n_samples=80, sigma=0.5, C=1.0)
    assert not app.controls["noise"].disabled and app.plane_box.layout.display != "none"


def test_errors_become_messages_and_the_app_keeps_working(app, monkeypatch):
    app.update(dataset="moons", n_samples=80, C=1.0, sigma=0.5)
    _, good = _trace(app, "span")
    out = app.update(C=-1.0)
    assert "error" in out and "C must be a positive number" in app.error.value
    np.testing.assert_array_equal(_trace(app, "span")[1], good)
    with pytest.raises(ValueError):
        app.update(sigma=0.0, raise_errors=True)
    assert "unknown parameter" in app.update(gamma=1)["error"]

    def broken(*args, **kwargs):
        raise RuntimeError("table exploded")

    monkeypatch.setattr(be, "_bounds_table_steps", broken)
    app.controls["sigma"].value = 0.8                    # must not raise
    assert "table exploded" in app.error.value
    monkeypatch.undo()
    app.controls["sigma"].value = 0.7
    assert app.error.value == "" and app.last_stats["n_support"] > 0


def test_one_class_sample_is_reported(monkeypatch):
    app = BoundsExplorer(grid=10, n_samples=20, dataset="blobs")
    monkeypatch.setattr(be, "make_toy", lambda name, n, noise, random_state: (
        np.random.default_rng(random_state).normal(size=(int(n), 2)), np.zeros(int(n), int)))
    out = app.update(seed=5)
    assert "error" in out and "need two" in app.error.value
    monkeypatch.undo()
    assert "error" not in app.update(seed=6)


@pytest.mark.slow
def test_dashboard_notebook_executes(tmp_path):
    from nbclient import NotebookClient

    from kernelnb.lab.server.gallery import DASHBOARDS, dashboards_dir
    path = Path(__file__).resolve().parents[3] / "dashboards" / "bounds_explorer.ipynb"
    assert (dashboards_dir() / "bounds_explorer.ipynb").is_file()     # shipped with the package
    assert "bounds_explorer" in [d.name for d in DASHBOARDS]
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in nb.cells if c.cell_type == "code")
    assert len(nb.cells) == 2 and nb.cells[0].source.startswith("# ")
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)


LESSON = BoundsExplorer.LESSONS[0]


@pytest.fixture(scope="module")
def small():
    return make_lesson_app(BoundsExplorer)


@pytest.mark.parametrize("control", sorted(LESSON.sweep))
def test_lessons_bounds_explorer(small, control):
    held = check_lesson(small, LESSON, control)
    for mean in held.values():      # the span is also closer than Jaakkola-Haussler on average
        assert mean["gap_span"] < mean["gap_jaakkola_haussler"] + 0.05


def test_memorising_is_noted_and_shaded(small):
    s = small.update(sigma=0.02, seed=0)
    assert s["sv_fraction"] == 1.0 and s["training_error"] == 0.0
    assert s["regime"] and "memorises" in s["regime"][0]
    assert "kernelnb-regime" in small.stats.value
    mem = be.memorising(s["table"])
    assert mem[0] and not mem[-1]          # tiny widths memorise, wide ones do not
    rects = [sh for sh in small.fig.layout.shapes if sh.type == "rect"]
    assert rects and rects[0].x0 == pytest.approx(s["table"]["sigma"][0])
    s = small.update(sigma=0.5)
    assert not s["regime"] and "kernelnb-regime" not in small.stats.value


def test_plurals_in_the_span_chart_title(small):
    small.update(sigma=0.5, seed=0)
    title = small.plane_fig.layout.title.text
    n_err = len(small.plane_fig.data[4].x)
    want = "1 predicted LOO error (" if n_err == 1 else f"{n_err} predicted LOO errors ("
    assert want in title
    n_sv = len(small.plane_fig.data[3].x)
    assert title.startswith(f"{n_sv} support vector{'s' if n_sv > 1 else ''},")
    small.set_language("fr")            # French plurals: one form for 0 and 1, one above
    try:
        title = small.plane_fig.layout.title.text
        assert title.startswith(f"{n_sv} vecteur{'s' if n_sv > 1 else ''} de support,")
        assert (f"{n_err} erreur{'s' if n_err > 1 else ''} LOO prédite{'s' if n_err > 1 else ''}"
                in title)
    finally:
        small.set_language("en")


def test_log_axis_ticks_read_naturally(small):
    small.update(sigma=0.5, axis="sigma")
    ax = small.fig.layout.xaxis
    assert list(ax.ticktext) == ["0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10"]
    np.testing.assert_allclose(ax.tickvals, [float(t) for t in ax.ticktext])


def test_wahba_curve_matches_the_library_and_lies_above_jaakkola_haussler(small):
    """Wahba's estimate (thesis 3.1) is one legend click away; its values are the library's
    on independent fits, and never below the Jaakkola-Haussler count: every point that count
    makes an error adds at least 1 to Wahba's sum."""
    s = small.update(sigma=0.5, C=3.0, seed=1, axis="C", margin="l1")
    tr = small.fig.data[TRACE["wahba"]]
    assert tr.visible == "legendonly" and tr.name == "Wahba"
    shown = sum(t.visible is True for t in small.fig.data)
    assert shown <= 6                                   # the checklist's six curves at most
    xs, wahba_curve = _trace(small, "wahba")
    X, y = small._train
    for k in (0, N_GRID - 1):
        m = SVC(C=float(xs[k]), sigma=0.5, tol=1e-3).fit(X, y)
        assert wahba_curve[k] == pytest.approx(wahba(m, X, y), abs=2 / len(y))
    m = SVC(C=3.0, sigma=0.5, tol=1e-3).fit(X, y)
    assert s["wahba"] == pytest.approx(wahba(m, X, y), abs=2 / len(y))
    _, jh = _trace(small, "jaakkola_haussler")
    assert np.all(wahba_curve >= jh - 1e-12)
    assert s["gap_wahba"] == pytest.approx(np.mean(np.abs(wahba_curve[~be.memorising(
        s["table"])] - s["table"]["test_error"][~be.memorising(s["table"])])))
    assert "Wahba (≥ Jaakkola-Haussler)" in small.stats.value
    small.update(axis="sigma", C=1.0, seed=0)
