"""The dashboards' pages of the book (``kernelnb_book._dashboards``), without building it.

Each dashboard class declares its lesson figure (``BOOK_FIGURE``): the declarations must name
controls the dashboard has, at values its controls take; the figure's frames must be the
dashboard's own pictures (decoded from the lean JSON the page carries, as ``kernelnb-book.js``
and plotly.js read it) and differ from one another; the heaviest pages must stay light.
"""
import base64
import importlib
import inspect

import ipywidgets as widgets
import numpy as np
import pytest

from kernelnb.lab.server.gallery import DASHBOARDS
from kernelnb.lab.app.svm_playground import SVMPlayground
from kernelnb_book import _dashboards as D
from kernelnb_book._figures import figure_html

CLASSES = {e.name: getattr(importlib.import_module(f"kernelnb.lab.app.{e.module}"), e.class_name)
           for e in DASHBOARDS if e.class_name}
#: The largest lesson figure a page may carry (bytes of its HTML): the page around it (lessons'
#: tables, controls, the theme's markup) adds under 150 kB, and a page should stay under 1 MB.
FIGURE_BOUND = 700_000
#: plotly's names of the binary arrays' types.
DTYPES = {"f4": np.float32, "f8": np.float64, "i1": np.int8, "u1": np.uint8, "i2": np.int16,
          "u2": np.uint16, "i4": np.int32, "u4": np.uint32}


def _limits_hold(widget, value):
    """Whether ``widget`` (an ipywidgets control) can hold ``value``, read from the widget."""
    if isinstance(widget, widgets.FloatLogSlider):
        return widget.base ** widget.min <= value <= widget.base ** widget.max * (1 + 1e-12)
    if hasattr(widget, "options") and not isinstance(widget, widgets.SelectMultiple):
        options = [o[1] if isinstance(o, tuple) else o for o in widget.options]
        return value in options
    if isinstance(widget, widgets.Checkbox):
        return isinstance(value, bool)
    if isinstance(widget.value, int) and not isinstance(value, int):
        return False
    return widget.min <= value <= widget.max


@pytest.fixture(scope="module")
def lesson_apps():
    from kernelnb.lab.app._lessons import lesson_app
    return {name: lesson_app(cls) for name, cls in CLASSES.items()}


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_every_dashboard_declares_a_valid_lesson_figure(lesson_apps):
    assert len(CLASSES) == 16
    for name, cls in CLASSES.items():
        app = lesson_apps[name]
        declared = D.book_figure(cls)
        assert {"control", "values", "why"} <= set(declared), name
        control = D.figure_control(cls, app)
        assert control == declared["control"] and control in app.controls
        values = D.figure_values(cls, app, control)
        assert len(values) >= 4 and len({repr(v) for v in values}) == len(values), name
        widget = app.controls[control]
        assert all(_limits_hold(widget, v) for v in values), (name, values)
        assert 0 <= declared.get("figure", 0) < len(app.figures), name
        rows = D._readout_rows(cls, declared.get("readout"))
        assert rows and all(len(r) == 3 for r in rows), name
        init = inspect.signature(cls.__init__).parameters
        for key, value in (declared.get("app") or {}).items():
            assert key in init or key in app.controls, (name, key)
            if key in app.controls:
                assert _limits_hold(app.controls[key], value), (name, key, value)
        labels = D.nice_labels(values)
        assert len(set(labels)) == len(labels), (name, labels)


def _decode(value):
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=DTYPES[value["dtype"]])
        if "shape" in value:
            array = array.reshape([int(n) for n in str(value["shape"]).split(",")])
        return array
    return value


def _resolve(traces):
    """What kernelnb-book.js does before plotly.js reads a list of traces."""
    for trace in traces:
        for key, value in list(trace.items()):
            if isinstance(value, dict) and D.SAME in value:
                position, source = value[D.SAME]
                trace[key] = traces[position][source]
    return traces


def _columns(trace):
    """A trace's x, y, z as plotly draws them: a grid (vectors and a 2-D z) as its columns."""
    x, y, z = (np.asarray(_decode(trace.get(k)), dtype=float) if trace.get(k) is not None
               else None for k in ("x", "y", "z"))
    if z is not None and z.ndim == 2:
        xx, yy = np.meshgrid(x, y)
        return xx.ravel(), yy.ravel(), z.ravel()
    return x, y, z


def _as_floats(value):
    if value is None:
        return None
    return np.array([np.nan if v is None else v for v in np.ravel(np.asarray(value, object))],
                    dtype=float)


class _SmallSVM(SVMPlayground):
    BOOK_FIGURE = {**SVMPlayground.BOOK_FIGURE, "values": [0.1, 1.0, 100.0]}


def test_frames_are_the_dashboards_own_pictures():
    app = _SmallSVM(grid=12, noise=0.2)
    spec, frames = D.lesson_figure(_SmallSVM, app, "C")
    assert [f["value"] for f in frames] == [0.1, 1.0, 100.0]
    assert app.params()["C"] == 1.0        # put back as it was
    base = _resolve(spec["data"])
    shared = [t for fr in spec["frames"] for t in fr["data"] if D.SAME in str(t)]
    assert shared, "the surface's contours should share its grid"
    pictures = []
    for frame, info in zip(spec["frames"], frames):
        drawn = [dict(t) for t in base]
        for position, trace in zip(frame["traces"], _resolve(frame["data"])):
            drawn[position].update(trace)
        reference = SVMPlayground(grid=12, noise=0.2, C=info["value"]).figures[0]
        assert len(drawn) == len(reference.data)
        for mine, theirs in zip(drawn, reference.data):
            theirs = theirs.to_plotly_json()
            assert mine.get("name") == theirs.get("name")
            if theirs.get("type") in ("heatmap", "contour"):
                # both as one (x, y, z) per node (the dashboard's own grid is 2-D too)
                got, want = _columns(mine), _columns(theirs)
            else:
                got = [_as_floats(_decode(mine.get(k))) for k in ("x", "y")]
                want = [_as_floats(theirs.get(k)) for k in ("x", "y")]
            for g, w in zip(got, want):
                if w is None or w.size == 0:
                    assert g is None or np.size(g) == 0
                else:   # float32 in the page: 7 significant digits
                    np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6 * np.nanmax(abs(w)))
        pictures.append(_columns(drawn[0])[2])
        assert info["readout"].startswith("training error") and "#SV / n" in info["readout"]
        # the frame's live link: its setting, C left out at the dashboard's default
        assert "noise=0.2" in info["query"]
        assert (f"C={info['value']:g}" in info["query"]) == (info["value"] != 1.0)
    assert not np.allclose(pictures[0], pictures[-1])
    assert len({f["readout"] for f in frames}) == 3
    assert spec["layout"]["sliders"][0]["active"] == 1           # the dashboard's C, 1
    assert [s["label"] for s in spec["layout"]["sliders"][0]["steps"]] == ["0.1", "1", "100"]
    assert spec["kernelnb"]["active"] == "C=1"


def test_a_dashboard_that_declares_nothing_gets_the_default_rule():
    class Plain(SVMPlayground):
        BOOK_FIGURE = {}

    app = Plain(grid=6)
    assert D.figure_control(Plain, app) == "C"          # the main slider
    values = D.figure_values(Plain, app, "C")
    # the slider spans 10^-3 ... 10^4: every half decade, three significant digits, and C = 1
    assert values == [float(f"{10.0 ** e:.3g}") for e in np.arange(-3.0, 4.01, 0.5)]
    assert D._book_app_kwargs(Plain) == {"grid": D.BOOK_GRID}


@pytest.mark.parametrize("declared, message", [
    ({"contrl": "C"}, "unknown key"),
    ({"control": "Cee"}, "does not have"),
    ({"control": "C", "values": [0.0001, 1.0]}, "outside"),
    ({"control": "n_samples", "values": [50, 60.5]}, "not a whole number"),
    ({"control": "kernel", "values": ["rbf", "sigmoid"]}, "not one of"),
    ({"control": "C", "values": [1.0, 1]}, "repeats"),
    ({"control": "C", "values": []}, "empty"),
    ({"figure": True}, "must be int"),
    ({"figure": 7}, "has 2 chart"),
    ({"readout": ["nope"]}, "neither a key"),
])
def test_a_bad_declaration_is_refused_with_its_reason(declared, message):
    class Bad(SVMPlayground):
        BOOK_FIGURE = declared

    with pytest.raises(ValueError, match=message) as err:
        app = Bad(grid=4)
        D.lesson_figure(Bad, app)
    assert "Bad.BOOK_FIGURE" in str(err.value)


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_the_page_says_what_moves_and_reads_well():
    report = D.dashboard_report("kernelnb.lab.app.margin_losses", "MarginLosses", lessons=False)
    page = D.page_markdown(report)
    assert report["frame_control"] == "C" and report["frame_figure"] == 1
    assert "the dashboard's chart number 2 at C = the value shown" in page
    assert "*Why this chart and this control:*" in page
    assert "= =" not in page and "mark m =" not in page    # the control's label ends in "="
    assert "| `margin` | mark m |" in page
    assert "chosen for this dashboard" in page
    assert page.count('class="kernelnb-live-link"') >= 4
    assert f"Dashboard built with `grid={D.BOOK_GRID}`" in page


@pytest.mark.parametrize("name", ["vicinal_risk", "density_explorer", "invariance_explorer"])
def test_the_heaviest_pages_stay_light(name):
    """The three dashboards whose lesson figures weigh most (measured when the book is built)."""
    spec, frames, _app, _control = D.book_lesson_figure(CLASSES[name])
    size = len(figure_html(spec).encode())
    assert size < FIGURE_BOUND, f"{name}: {size} bytes"
    assert len(frames) == len(CLASSES[name].BOOK_FIGURE["values"])
    assert len({f["readout"] for f in frames}) == len(frames)
