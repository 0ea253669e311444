"""Server-side limits of every dashboard: what a page sends over the comm is checked in the kernel.

The browser keeps a slider inside its min/max, but any page can send a widget state directly
(``set_state`` is what ipywidgets calls for a client ``comm_msg``). Every dashboard class of
:mod:`kernelnb.lab.app` is found by subclass discovery (a new dashboard is covered without editing
this file) and built once per module; each of its controls then receives hostile states.
"""
import importlib
import inspect
import json
import math
import pkgutil

import numpy as np
import pytest
import traitlets
from plotly.callbacks import InputDeviceState, Points

import kernelnb.lab.app
from kernelnb.lab.app import Dashboard
from kernelnb.lab.server.gallery import DASHBOARDS, dashboards_dir


def _dashboard_classes():
    for info in pkgutil.iter_modules(kernelnb.lab.app.__path__):
        importlib.import_module(f"kernelnb.lab.app.{info.name}")
    out, todo = [], list(Dashboard.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("kernelnb.lab.app.") and cls not in out:
            out.append(cls)
    return sorted(out, key=lambda c: c.__name__)


CLASSES = _dashboard_classes()
#: Cheaper first pictures for the tests (any class not named here is built with its defaults).
FAST = {"LearningCurves": dict(n_repeats=1, n_sizes=3), "BoundsExplorer": dict(n_samples=60),
        "MarginExplorer": dict(trials=1, updates=200)}
HUGE = 10 ** 9


def _build(cls):
    kw = dict(FAST.get(cls.__name__, {}))
    if "grid" in inspect.signature(cls.__init__).parameters:
        kw["grid"] = 12
    return cls(**kw)


@pytest.fixture(scope="module", params=CLASSES, ids=lambda c: c.__name__)
def app(request):
    a = _build(request.param)
    assert not a.last_error, a.last_error
    a._test_initial = a.params()
    return a


class Skipped(RuntimeError):
    """What a dry computation raises (the work itself is not what these tests check)."""


class Recorder:
    """Stands in for ``app._steps`` (the work of every update, ``_compute`` unless the dashboard
    draws partial results): records the parameters of every computation and checks them against
    the declared limits. ``dry``: record only (a hostile state of every slider at once would
    otherwise fit 20 repeats on 600 points), else compute."""

    def __init__(self, app):
        self.app, self.calls, self.inner, self.dry = app, [], app._steps, True

    def __call__(self, params):
        self.calls.append(dict(params))
        for name, lim in self.app._limits.items():
            v = params.get(name)
            if lim.kind == "range":
                assert lim.lo <= v <= lim.hi, f"computed with {name}={v!r}"
        if self.dry:
            raise Skipped("dry run")
        return self.inner(params)


@pytest.fixture
def rec(app, monkeypatch):
    r = Recorder(app)
    monkeypatch.setattr(app, "_steps", r)
    yield r
    # back to the first picture, computed for real: the dashboard still answers
    r.dry = False
    with app.hold():
        for name, v in app._test_initial.items():
            app.controls[name].value = v
    out = app.update()
    assert "error" not in out, out
    assert r.calls and r.calls[-1] == {**app._test_initial, **{
        k: v for k, v in r.calls[-1].items() if k not in app._test_initial}}


def _no_refusal(app):
    assert "refused" not in app.last_error, app.last_error


def _controls(app, kinds):
    return [(n, w) for n, w in app.controls.items() if app._limits[n].kind in kinds]


def _send(w, state):
    """Deliver ``state`` as a client comm message would; ipywidgets may refuse it (TraitError) or
    fail inside its own observers (e.g. IndexError): the kernel logs those and goes on."""
    try:
        w.set_state(state)
    except (traitlets.TraitError, IndexError, ValueError, OverflowError):
        pass


def _hostile_high(w):
    if type(w).__name__ == "FloatLogSlider":      # min/max are exponents
        return {"max": 300, "value": 1e300}
    return {"max": HUGE, "value": HUGE}


def _hostile_low(w):
    if type(w).__name__ == "FloatLogSlider":
        return {"min": -300, "value": 1e-300}
    return {"min": -HUGE, "value": -HUGE}


def test_every_gallery_dashboard_is_a_discovered_class():
    names = {c.__name__ for c in CLASSES}
    assert len(CLASSES) >= 8
    for d in DASHBOARDS:
        nb = json.loads((dashboards_dir() / d.notebook).read_text(encoding="utf-8"))
        src = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        assert any(n in src for n in names), f"{d.notebook} builds no discovered dashboard class"


def test_every_control_declared_limits(app):
    for name, w in app.controls.items():
        lim = app._limits[name]
        assert lim.kind != "free", f"{name} ({type(w).__name__}) has no declared limits"
        if lim.kind == "range":
            assert math.isfinite(lim.lo) and math.isfinite(lim.hi) and lim.lo <= lim.hi


@pytest.mark.parametrize("side", ["high", "low"])
def test_numeric_limits_cannot_be_widened_by_the_page(app, rec, side):
    numeric = _controls(app, {"range"})
    assert numeric, "every dashboard has sliders"
    for name, w in numeric:
        lim = app._limits[name]
        declared = dict(lim.traits)
        n_calls = len(rec.calls)
        _send(w, _hostile_high(w) if side == "high" else _hostile_low(w))
        for t, v in declared.items():
            assert getattr(w, t) == v, f"{name}.{t} left at {getattr(w, t)!r} by the page"
        assert lim.lo <= w.value <= lim.hi, f"{name} holds {w.value!r}"
        assert w.value == pytest.approx(lim.hi if side == "high" else lim.lo)
        _no_refusal(app)
        assert len(rec.calls) > n_calls, f"{name}: the clamped value was not computed"
        for call in rec.calls[n_calls:]:
            assert lim.lo <= call[name] <= lim.hi
        app.update()                               # a normal update, at the clamped value
        _no_refusal(app)
        assert rec.calls[-1][name] == pytest.approx(w.value)


def _comm_update(w, state):
    """What ipywidgets does with a client's ``comm_msg`` (method 'update'), echo included."""
    w._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
                   "buffers": []})


def test_a_comm_message_is_checked_like_set_state(app, rec):
    for name, w in _controls(app, {"range"}):
        lim = app._limits[name]
        n_calls = len(rec.calls)
        _comm_update(w, _hostile_high(w))
        assert w.max == lim.traits["max"] and lim.lo <= w.value <= lim.hi, name
        assert all(lim.lo <= c[name] <= lim.hi for c in rec.calls[n_calls:])
        if not lim.integer:
            n_calls = len(rec.calls)
            _comm_update(w, {"value": float("nan")})
            assert math.isfinite(w.value) and len(rec.calls) == n_calls, name


def test_non_finite_numbers_are_refused_with_a_message(app, rec):
    floats = [(n, w) for n, w in _controls(app, {"range"}) if not app._limits[n].integer]
    assert floats
    for name, w in floats:
        before = w.value
        for bad in (float("nan"), float("inf"), -float("inf")):
            n_calls = len(rec.calls)
            _send(w, {"value": bad})
            assert math.isfinite(w.value), f"{name} holds {w.value!r}"
            for call in rec.calls[n_calls:]:
                assert math.isfinite(call[name])
        app.update()
        _no_refusal(app)
        lim = app._limits[name]
        assert lim.lo <= w.value <= lim.hi
        assert w.value == pytest.approx(before) or w.value in (lim.lo, lim.hi)
    # the refusal itself: a NaN that got into a slider (ipywidgets lets it through) is not
    # computed, and the page says why
    name, w = floats[0]
    n_calls = len(rec.calls)
    w.set_state({"value": float("nan")})
    assert len(rec.calls) == n_calls
    assert "refused" in app.error.value and name in app.error.value
    assert "kernelnb-error" in app.error._dom_classes
    assert math.isfinite(w.value)
    app.update()
    _no_refusal(app)


def test_integer_sliders_refuse_nan(app, rec):
    for name, w in _controls(app, {"range"}):
        if app._limits[name].integer:
            _send(w, {"value": float("nan")})
            assert isinstance(w.value, int)
    app.update()
    _no_refusal(app)


def test_options_cannot_be_extended_by_the_page(app, rec):
    for name, w in _controls(app, {"options", "multi"}):
        lim = app._limits[name]
        labels = lim.traits["_options_labels"]
        n = len(labels)
        bad_index = [0, n + 5] if lim.kind == "multi" else n + 5
        _send(w, {"index": bad_index})
        _send(w, {"_options_labels": list(labels) + ["evil"] * 8,
                  "index": [n + 3] if lim.kind == "multi" else n + 3})
        assert tuple(w._options_labels) == tuple(labels), name
        values = w.value if lim.kind == "multi" else (w.value,)
        assert all(v in lim.options for v in values), f"{name} holds {w.value!r}"
        app.update()
        _no_refusal(app)
        last = rec.calls[-1][name]
        assert all(v in lim.options for v in (last if lim.kind == "multi" else (last,)))


def test_check_boxes_hold_booleans(app, rec):
    boxes = _controls(app, {"bool"})
    for name, w in boxes:
        _send(w, {"value": "yes"})
        _send(w, {"value": [1]})
        assert isinstance(w.value, bool), name
    app.update()
    _no_refusal(app)


def test_refused_value_is_not_computed_and_the_control_goes_back(app, rec):
    """The update-time check on its own (observers bypassed): a control holding a value outside
    its declared options is refused without computing; the control returns to its last value."""
    # a single choice (a data set, a kernel, a loss...), else a multiple choice (the invariance
    # explorer's list of boundaries shown)
    choices = _controls(app, {"options"}) or _controls(app, {"multi"})
    assert choices, f"{type(app).__name__} has no choice control"
    name, w = choices[0]
    lim = app._limits[name]
    good = w.value
    if lim.kind == "multi":
        held = tuple(good)
        spare = [o for o in lim.options if o not in held]
        # add an undeclared option, or (all shown) stop declaring one of those held
        other, declared = (held + (spare[0],), held) if spare else (held, held[:-1])
        foreign = len(held) > 0 and (bool(spare) or len(held) > 1)
    else:
        other = next(o for o in lim.options if o != good) if len(lim.options) > 1 else good
        declared = (good,)
        foreign = other != good
    # pretend the dashboard declared only the current option(s): the other one is now foreign
    saved = lim.options
    lim.options = declared
    try:
        with app.hold():
            w.value = other
        n_calls = len(rec.calls)
        out = app.update()
        if foreign:
            assert "error" in out and "refused" in out["error"] and name in out["error"]
            assert len(rec.calls) == n_calls
            assert w.value == good
    finally:
        lim.options = saved
    app.update()
    _no_refusal(app)


def test_server_side_limit_changes_are_kept_and_then_defended():
    from kernelnb.lab.app import SVMPlayground
    from kernelnb.datasets import TOY_NOISE
    a = SVMPlayground(grid=12)
    a.update(dataset="blobs")
    top = TOY_NOISE["blobs"][1]
    assert a.controls["noise"].max == pytest.approx(top)          # the dashboard's own change
    assert a._limits["noise"].hi == pytest.approx(top)
    a.controls["noise"].set_state({"max": 50.0, "value": 50.0})
    assert a.controls["noise"].max == pytest.approx(top)
    assert a.controls["noise"].value <= top
    a.update(dataset="moons")
    assert a._limits["noise"].hi == pytest.approx(TOY_NOISE["moons"][1])
    # without changing_limits, a change from Python is treated like the page's and put back
    a.controls["n_samples"].max = 5000
    assert a.controls["n_samples"].max == 1000


def test_the_page_is_told_the_restored_limit(monkeypatch):
    from kernelnb.lab.app import SVMPlayground
    a = SVMPlayground(grid=12)
    w = a.controls["n_samples"]
    sent = []
    monkeypatch.setattr(w, "send_state", lambda key=None: sent.append(key))
    w.set_state({"max": HUGE, "value": HUGE})
    keys = {k for ks in sent for k in ([ks] if isinstance(ks, str) else ks or [])}
    assert "max" in keys and "value" in keys
    assert w.max == 1000 and w.value == 1000 and a.last_stats["n_train"] == 1000


# -- clicks --------------------------------------------------------------------------------
def _click(trace, x, y):
    trace._dispatch_on_click(Points(point_inds=[0], xs=[x], ys=[y], trace_name="f(x)",
                                    trace_index=0), InputDeviceState())


@pytest.fixture(scope="module")
def svm():
    from kernelnb.lab.app import SVMPlayground
    return SVMPlayground(grid=12, n_samples=60)


def test_non_finite_click_is_ignored_with_a_message_and_later_updates_work(svm):
    svm.clear_points()
    heat = svm.fig.data[0]
    for x, y in ((float("nan"), 0.1), (0.2, float("inf")), (1e300, 0.0), ("x", 0.0)):
        _click(heat, x, y)
        assert "click ignored" in svm.error.value
        assert svm.last_stats["n_added"] == 0 and len(svm._added) == 0
    out = svm.update(C=2.0)
    assert "error" not in out and svm.error.value == ""
    _click(heat, float(heat.x[3]), float(heat.y[3]))
    assert svm.last_stats["n_added"] == 1


def test_click_added_points_are_capped(svm, monkeypatch):
    import kernelnb.lab.app.svm_playground as pg
    assert pg.MAX_ADDED <= 1000
    monkeypatch.setattr(pg, "MAX_ADDED", 3)
    svm.clear_points()
    heat = svm.fig.data[0]
    for k in range(5):
        _click(heat, float(heat.x[k]), float(heat.y[k]))
    assert len(svm._added) == 3 and svm.last_stats["n_added"] == 3
    assert "at most 3 points" in svm.error.value
    svm.clear_points()
    assert svm.last_stats["n_added"] == 0 and svm.error.value == ""


def test_local_methods_query_click_refuses_nan():
    from kernelnb.lab.app import LocalMethodsPlayground
    a = LocalMethodsPlayground(grid=12)
    q = a._query.copy()
    out = a.query(float("nan"), 0.0)
    assert "error" in out and "not finite" in a.error.value
    np.testing.assert_array_equal(a._query, q)
    assert "error" not in a.update(n_neighbors=3)
    assert "error" not in a.query(0.1, 0.1)
    np.testing.assert_allclose(a._query, [0.1, 0.1])


# -- time budget ---------------------------------------------------------------------------
def test_learning_curves_stop_at_the_time_budget_with_partial_curves(monkeypatch):
    from kernelnb.lab.app import LearningCurves
    a = LearningCurves(n_repeats=1, n_sizes=3)
    checks = []

    def time_left():          # asked before each fit: out after 2 sizes x (svc, knn)
        checks.append(1)
        return 1.0 if len(checks) <= 4 else 0.0

    monkeypatch.setattr(a, "time_left", time_left)
    s = a.update(n_repeats=3, n_sizes=4, C=2.0, estimators=("svc", "knn"))
    assert "error" not in s
    assert "time budget" in a.error.value
    c = s["curves"]["svc"]
    assert c["stopped"] and c["test_error"].shape == (2, 1) and len(s["sizes"]) == 2
    monkeypatch.undo()
    a.time_budget_s = 0.0                 # nothing can be fitted: a message, no crash
    out = a.update(C=3.0)
    assert "error" in out and "time budget" in a.error.value
    a.time_budget_s = 60.0
    s = a.update(C=3.0, n_repeats=1, n_sizes=3)
    assert "error" not in s and a.error.value == ""
    assert not s["curves"]["svc"]["stopped"]


def test_learning_curve_data_stops_when_asked():
    from kernelnb.lab.app.learning_curves import ESTIMATORS, learning_curve_data
    from kernelnb.datasets import make_moons
    X, y = make_moons(n_samples=120, noise=0.2, random_state=0)
    asked = []
    out = learning_curve_data({"knn": ESTIMATORS["knn"]}, X, y, [10, 20, 40], n_repeats=3,
                              should_stop=lambda: asked.append(1) or len(asked) > 4,
                              params=dict(n_neighbors=3))
    c = out["knn"]
    assert c["stopped"] and c["test_error"].shape == (3, 1)     # one whole repeat drawn
    assert np.all(np.isfinite(c["test_error"]))
    with pytest.raises(TimeoutError):
        learning_curve_data({"knn": ESTIMATORS["knn"]}, X, y, [10, 20], n_repeats=2,
                            should_stop=lambda: True, params=dict(n_neighbors=3))


def test_feature_selection_stops_at_the_time_budget():
    from kernelnb.lab.app import FeatureSelection
    a = FeatureSelection(max_iter=3)
    a.time_budget_s = 0.0
    s = a.update(seed=1)
    assert "error" not in s                       # the state reached is drawn
    assert "time budget" in a.error.value
    assert s["n_evaluations"] <= 2


def test_bounds_explorer_stops_at_the_time_budget():
    from kernelnb.lab.app import BoundsExplorer
    a = BoundsExplorer(grid=10, n_samples=40)
    a.time_budget_s = 0.0
    out = a.update(C=2.0)
    assert "error" in out and "time budget" in a.error.value
    a.time_budget_s = 60.0
    assert "error" not in a.update(C=2.0)
