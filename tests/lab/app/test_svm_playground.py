"""SVMPlayground: controls drive update(), figures follow the model, errors are shown."""
import numpy as np
import pytest
from plotly.callbacks import InputDeviceState, Points
from sklearn.svm import SVC as SkSVC

import kernelnb.lab.app.svm_playground as pg_module
from kernelnb.lab.app import SVMPlayground
from kernelnb.lab.viz import SURFACE_TRACES

from ._grid import nodes
from ._lessons import check_lesson, lesson_app as make_lesson_app

I = {name: k for k, name in enumerate(SURFACE_TRACES)}


def test_first_open_looks_right():
    app = SVMPlayground(grid=30)
    s = app.last_stats
    assert not app.last_error and app.error.value == ""
    assert app.controls["dataset"].value == "moons" and s["n_train"] == 200
    assert s["train_error"] < 0.1 and s["test_error"] < 0.1
    assert s["n_support"] == s["n_free"] + s["n_bound"]
    fig = app.fig
    assert len(fig.data[I["sv_free"]].x) + len(fig.data[I["sv_bound"]].x) == s["n_support"]
    assert np.asarray(fig.data[0].z).shape == (30, 30)        # the grid, rows along y
    assert np.asarray(fig.data[0].z).dtype == np.float32      # sent as binary rows
    assert "kernelnb-stats" in app.stats._dom_classes and "kernelnb-error" in app.error._dom_classes
    assert "kernelnb-main-slider" in app.controls["C"]._dom_classes
    assert all(getattr(w, "continuous_update", False) is False
               for w in app.controls.values() if hasattr(w, "continuous_update"))
    for key in ("test error", "support vectors", "margin width", "dual objective", "fit time"):
        assert key in app.stats.value
    assert app.fig is app.figures[0] and app.widget is not None


def test_surface_is_the_decision_function_of_the_data_shown(playground):
    playground.update(dataset="moons", noise=0.2, n_samples=120, C=3.0, sigma=0.4, kernel="rbf")
    X = np.r_[np.c_[playground.fig.data[3].x, playground.fig.data[3].y],
              np.c_[playground.fig.data[4].x, playground.fig.data[4].y]]
    y = np.r_[np.zeros(len(playground.fig.data[3].x)), np.ones(len(playground.fig.data[4].x))]
    ref = SkSVC(C=3.0, gamma=1 / (2 * 0.4 ** 2), tol=1e-6).fit(X, y)
    heat = playground.fig.data[0]
    x, y, z = nodes(heat)
    want = ref.decision_function(np.c_[x, y])
    np.testing.assert_allclose(z, want, atol=1e-2)
    for k in (1, 2):                                   # the contours carry the same f
        np.testing.assert_array_equal(playground.fig.data[k].z, heat.z)
    assert playground.last_stats["n_support"] == ref.support_.size


def test_moving_the_C_slider_updates_and_smaller_C_gives_more_SVs(playground):
    playground.update(dataset="moons", noise=0.35, n_samples=200, kernel="rbf", sigma=0.5, C=10.0)
    many = playground.last_stats["n_support"]
    before = np.array(playground.fig.data[0].z)
    playground.controls["C"].value = 0.01          # as the browser does: a widget change
    small = playground.last_stats
    assert small["n_support"] > many
    assert small["n_bound"] >= small["n_free"]     # small C: most alphas sit at the bound
    assert not np.allclose(before, playground.fig.data[0].z)
    assert len(playground.fig.data[I["sv_free"]].x) + len(playground.fig.data[I["sv_bound"]].x) \
        == small["n_support"]
    assert f"C = {0.01:.3g}" in playground.fig.layout.title.text


def test_switching_kernel_changes_the_surface_and_controls(playground):
    playground.update(kernel="rbf", C=1.0)
    z_rbf = np.array(playground.fig.data[0].z)
    playground.controls["kernel"].value = "linear"
    z_lin = np.array(playground.fig.data[0].z)
    assert not np.allclose(z_rbf, z_lin)
    # a linear f is a plane: constant second differences along the grid rows, up to the float32
    # the surface is sent in (each value within eps/2 of its size; weights 1, -2, 1 of a second
    # difference: 2 eps of the largest)
    g = playground.grid
    z_lin = z_lin.astype(np.float64)
    tol = 2 * np.finfo(np.float32).eps * np.abs(z_lin).max() + 1e-8
    assert np.allclose(np.diff(z_lin.reshape(g, g), 2, axis=1), 0, atol=tol)
    assert playground.controls["sigma"].disabled and playground.controls["degree"].disabled
    playground.controls["kernel"].value = "poly"
    assert not playground.controls["degree"].disabled
    playground.update(kernel="rbf")
    assert not playground.controls["sigma"].disabled


def test_click_adds_a_point_of_the_chosen_class(playground):
    playground.update(dataset="moons", noise=0.1, n_samples=100, seed=3, kernel="rbf")
    n0 = playground.last_stats["n_train"]
    n_class1 = len(playground.fig.data[4].x)
    playground.controls["click_class"].value = 1
    heat = playground.fig.data[0]
    x, y = float(heat.x[7]), float(heat.y[5])
    # what plotly's front end sends on a click on the heat map (a node's row and column)
    heat._dispatch_on_click(Points(point_inds=[[5, 7]], xs=[x], ys=[y], trace_name="f(x)",
                                   trace_index=0), InputDeviceState())
    s = playground.last_stats
    assert s["n_train"] == n0 + 1 and s["n_added"] == 1
    assert len(playground.fig.data[4].x) == n_class1 + 1
    assert (x, y) in set(zip(playground.fig.data[4].x, playground.fig.data[4].y))
    playground.add_point(x, y, label=0)
    assert playground.last_stats["n_train"] == n0 + 2
    playground.clear_points()
    assert playground.last_stats["n_train"] == n0
    # a new sample drops the added points
    playground.add_point(0.0, 0.0)
    playground.update(seed=4)
    assert playground.last_stats["n_added"] == 0


def test_c_path_has_one_point_per_C(playground):
    playground.update(dataset="moons", noise=0.3, n_samples=150, kernel="rbf", sigma=0.5, C=1.0,
                      c_path=True)
    s = playground.last_stats
    n = pg_module.PATH_CS.size
    assert s["path_Cs"].shape == (n,) and s["path_n_support"].shape == (n,)
    for tr in playground.path_fig.data:
        assert len(tr.x) == n
    assert playground.path_box.layout.display != "none"
    assert s["path_n_support"][0] > s["path_n_support"][-1]
    # the point of the path at the current C matches a direct fit
    k = int(np.argmin(np.abs(np.log(s["path_Cs"] / 1.0))))
    assert abs(s["path_n_support"][k] - s["n_support"]) <= 2
    playground.controls["C"].value = 10.0          # moving C only moves the marker
    assert playground.path_fig.layout.shapes[0].x0 == pytest.approx(10.0)   # data value
    playground.update(c_path=False)
    assert playground.path_box.layout.display == "none"


def test_dataset_change_resets_noise_and_redraws(playground):
    playground.update(dataset="moons", noise=0.45)
    playground.controls["dataset"].value = "blobs"
    from kernelnb.datasets import TOY_NOISE
    assert playground.controls["noise"].value == pytest.approx(TOY_NOISE["blobs"][0])
    assert playground.controls["noise"].max == pytest.approx(TOY_NOISE["blobs"][1])
    assert playground.fig.layout.title.text.startswith("blobs")


def test_errors_become_messages_and_the_app_keeps_working(playground, monkeypatch):
    playground.update(C=1.0, kernel="rbf", dataset="moons")
    good_z = np.array(playground.fig.data[0].z)
    out = playground.update(C=-1.0)
    assert "error" in out and "C" in out["error"]
    # the estimator's own message (kernelnb's parameter check) reaches the page, escaped
    assert "&#x27;C&#x27; parameter of SVC" in playground.error.value
    assert "range (0.0, inf)" in playground.error.value and "-1.0" in playground.error.value
    assert playground.controls["C"].value == pytest.approx(1.0)   # slider not clamped to -1
    np.testing.assert_array_equal(playground.fig.data[0].z, good_z)  # last good picture kept
    with pytest.raises(ValueError):
        playground.update(C=-1.0, raise_errors=True)

    class Broken:
        def __init__(self, **kw):
            pass

        def fit(self, X, y):
            raise RuntimeError("solver exploded")

    monkeypatch.setattr(pg_module, "SVC", Broken)
    playground.controls["C"].value = 2.0           # a widget event: must not raise
    assert "solver exploded" in playground.error.value
    monkeypatch.undo()
    playground.controls["C"].value = 3.0
    assert playground.error.value == "" and playground.last_stats["n_support"] > 0
    out = playground.update(not_a_control=1)
    assert "unknown parameter" in out["error"]


def test_single_class_after_clicks_is_reported():
    app = SVMPlayground(grid=20, n_samples=20, dataset="blobs")
    assert app.last_stats["n_train"] == 20
    app._base = (app._base[0], np.zeros(20, dtype=app._base[1].dtype))  # every point class 0
    out = app.update(C=2.0)
    assert "error" in out and "class" in app.error.value


LESSON = SVMPlayground.LESSONS[0]


@pytest.fixture(scope="module")
def lesson_app():
    return make_lesson_app(SVMPlayground)


@pytest.mark.parametrize("control", list(LESSON.sweep))
def test_lessons_support_vector_count_bounds_the_error(lesson_app, control):
    held = check_lesson(lesson_app, LESSON, control)
    for mean in held.values():       # the readout's fraction is the model's
        assert mean["sv_fraction"] == pytest.approx(mean["n_support"] / mean["n_train"])


@pytest.mark.parametrize("setting, words", [({"C": 0.001}, "every α sits at its bound C"),
                                            ({"sigma": 0.01}, "each point is an island"),
                                            ({"sigma": 30.0}, "the kernel is nearly constant")])
def test_out_of_regime_settings_say_so(lesson_app, setting, words):
    try:
        stats = lesson_app.update(raise_errors=True, **setting)
        assert stats["sv_fraction"] >= 0.95
        assert any(words in n for n in stats["regime"]), stats["regime"]
        assert words in lesson_app.stats.value
    finally:
        lesson_app.update(C=1.0, sigma=0.5)
    assert not lesson_app.last_stats["regime"]
