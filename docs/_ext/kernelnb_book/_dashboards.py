"""A page of the book per dashboard, made from the dashboard's class (nothing written twice).

:func:`dashboard_report` builds a dashboard and computes what its page shows:

* its title, purpose and controls (name, label, range or options, default) as the class declares
  them (the same declared limits that check every value a page or a URL sends);
* every lesson (:meth:`Dashboard.all_lessons`) with its source and what its sweep found, by the
  function the tests assert (:func:`kernelnb.lab.app._lessons.sweep_lesson`), on the dashboard as
  its lessons are checked (``LESSON_APP``): for each control of the sweep, each value, how many
  sample seeds were inside the lesson's regime, whether the lesson held on their mean, and the
  regime notes met;
* the lesson figure that moves in the reader's browser: one chart of the dashboard at a range of
  values of one control, each frame drawn by the dashboard's own :meth:`Dashboard.update` (or
  :meth:`Dashboard.lesson_stats`, which runs it) and recorded as a plotly frame, with a slider
  over them and the readout's numbers shown under the chart for the frame on show
  (:func:`lesson_figure`). A dashboard class says which chart, control, values and setting show
  its lesson in ``BOOK_FIGURE`` (:func:`book_figure`); one that declares nothing gets its main
  chart moved by its main slider (else the first control its first lesson sweeps) at round
  values over the slider's range (:func:`frame_values`).

The figure's JSON is made lean without changing the picture (:func:`lesson_figure`): a frame keeps
only what differs between frames, a surface given as grid columns becomes its grid vectors and a
2-D array, numbers go out as float32 binary arrays, and an array that a frame repeats in another
trace (a surface's heat map and its level lines share ``z``) is sent once, then copied by
``kernelnb-book.js``.

:func:`write_pages` writes ``docs/dashboards/<name>.md`` and the part's index for Sphinx. The
reports are cached in the build folder under a key made of kernelnb's sources (every ``.py`` and
``.pyx`` file of the package): a rebuild with unchanged sources computes nothing, a change to
any of them computes every report again.
"""
from __future__ import annotations

import html
import importlib
import inspect
import json
import math
import re
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from urllib.parse import quote

import numpy as np

__all__ = ["FRAMES", "BOOK_FIGURE_KEYS", "book_figure", "figure_control", "frame_values",
           "figure_values", "lesson_figure", "book_lesson_figure", "nice", "nice_labels",
           "dashboard_report", "sources_key", "write_pages"]

#: How many values of the moving control the lesson figure has at most (the default included).
FRAMES = 13
#: The chart grid of the dashboards drawn for the book (their own default is 60-100 nodes a
#: side; 40 keeps a page's frames light).
BOOK_GRID = 40
#: The readout rows shown in each frame's title.
TITLE_STATS = 3


def _md(text):
    """``text`` with the characters that Markdown (MyST) would read as markup escaped."""
    out = []
    for ch in str(text):
        if ch in "\\`*_[]<>|$#{}":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out).replace("\n", " ")


def sources_key():
    """A digest of kernelnb's sources (every ``.py``, ``.pyx`` and ``.pxd`` file of the package)
    and of this extension's modules, which write the pages.

    Returns
    -------
    str
        16 hexadecimal digits.
    """
    from . import sources_digest
    return sources_digest(extra=sorted(Path(__file__).resolve().parent.glob("*.py")))


#: What a dashboard class may declare in ``BOOK_FIGURE`` (a dict), and what each key means.
BOOK_FIGURE_KEYS = {
    "control": "the control the slider moves (a name of ``controls``)",
    "figure": "the chart shown: an index into ``figures`` (default 0, the main chart)",
    "values": "the control's values, one frame each, in the slider's order",
    "app": "the constructor's arguments; a control's name sets that control for every frame",
    "readout": "the numbers shown under the chart: keys of ``STATS``, or ``(key, label, "
               "format)`` for a number of ``update``'s that the readout does not show",
    "lesson_stats": "True: each frame is drawn by ``lesson_stats`` (the numbers the lesson is "
                    "checked on, e.g. after a replay) instead of ``update``",
    "why": "one sentence for the page: why this chart and this control show the lesson",
}

_KEY_TYPES = {"control": str, "figure": int, "values": (list, tuple), "app": dict,
              "readout": (list, tuple), "lesson_stats": bool, "why": str}


def book_figure(cls):
    """The lesson figure a dashboard class declares (``cls.BOOK_FIGURE``), checked.

    Parameters
    ----------
    cls : type
        The dashboard class.

    Returns
    -------
    dict
        The declaration (empty when the class declares none); its keys are those of
        :data:`BOOK_FIGURE_KEYS`.

    Raises
    ------
    ValueError
        For an unknown key or a value of the wrong type, naming the class and the key.
    """
    declared = getattr(cls, "BOOK_FIGURE", None) or {}
    if not isinstance(declared, dict):
        raise ValueError(f"{cls.__name__}.BOOK_FIGURE must be a dict, got "
                         f"{type(declared).__name__}")
    unknown = sorted(set(declared) - set(BOOK_FIGURE_KEYS))
    if unknown:
        raise ValueError(f"{cls.__name__}.BOOK_FIGURE has unknown key(s) {unknown}; known: "
                         f"{sorted(BOOK_FIGURE_KEYS)}")
    for key, value in declared.items():
        kind = _KEY_TYPES[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{cls.__name__}.BOOK_FIGURE[{key!r}] must be "
                             f"{getattr(kind, '__name__', 'a list')}, got {value!r}")
    if "values" in declared and not declared["values"]:
        raise ValueError(f"{cls.__name__}.BOOK_FIGURE['values'] is empty")
    return dict(declared)


def figure_control(cls, app):
    """The control the lesson figure moves: ``cls.BOOK_FIGURE['control']`` if declared, else the
    main slider (CSS class ``kernelnb-main-slider``), else the first control the first lesson
    sweeps, else the first slider.

    Parameters
    ----------
    cls : type
        The dashboard class.
    app : kernelnb.lab.app.Dashboard
        A built dashboard of that class.

    Returns
    -------
    str
    """
    from kernelnb.lab.app._base import MAIN_SLIDER_CLASS
    declared = book_figure(cls).get("control")
    if declared:
        if declared not in app.controls:
            raise ValueError(f"{cls.__name__}.BOOK_FIGURE names control {declared!r}, which it "
                             f"does not have ({sorted(app.controls)})")
        return declared
    for name, w in app.controls.items():
        if MAIN_SLIDER_CLASS in getattr(w, "_dom_classes", ()):
            return name
    lessons = cls.all_lessons()
    if lessons and lessons[0].sweep:
        return next(iter(lessons[0].sweep))
    for name, lim in app._limits.items():
        if lim.kind == "range":
            return name
    return next(iter(app.controls))


def frame_values(app, control, count=FRAMES):
    """The values of ``control`` the lesson figure is drawn at when its class declares none:
    round values spread evenly over its declared range (every quarter, half, whole or second
    decade of a log slider; steps of 1, 2, 2.5 or 5 times a power of ten of a linear one, at
    least the slider's step), about ``count`` of them, and its default; every option of a
    drop-down or toggle.

    Parameters
    ----------
    app : kernelnb.lab.app.Dashboard
        A built dashboard.
    control : str
        One of its controls.
    count : int, default=FRAMES
        Most values (the default may add one).

    Returns
    -------
    list
        Sorted (options in their order), without duplicates.
    """
    import ipywidgets as widgets
    w, lim = app.controls[control], app._limits[control]
    default = app.defaults[control]
    if lim.kind in ("options", "multi"):
        return list(lim.options)
    if lim.kind == "bool":
        return [False, True]
    if lim.kind != "range":
        return [default]
    if isinstance(w, widgets.FloatLogSlider):
        lo, hi = float(w.min), float(w.max)
        step = next((st for st in (0.25, 0.5, 1.0, 2.0) if (hi - lo) / st + 1 <= count + 2), 2.0)
        exps = np.arange(math.ceil(lo / step) * step, hi + 1e-9, step)
        values = [float(f"{float(w.base) ** e:.3g}") for e in exps]
    else:
        lo, hi = float(lim.lo), float(lim.hi)
        wstep = float(getattr(w, "step", 0) or 0) or (1.0 if lim.integer else 0.0)
        raw = (hi - lo) / max(count - 1, 1)
        magnitude = 10.0 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
        step = next((m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw), raw)
        if wstep > 0:
            step = max(wstep, round(step / wstep) * wstep)
        vals = np.arange(math.ceil(lo / step) * step if step else lo, hi + 1e-9, step or 1)
        vals = np.clip(vals, lo, hi)
        values = [int(round(v)) for v in vals] if lim.integer else \
            [float(f"{v:.6g}") for v in vals]
    values.append(default)
    return sorted(set(values))


def _checked_value(cls, app, control, value):
    """``value`` as control ``control`` takes it, or ValueError when its limits refuse it."""
    from kernelnb.lab.app._base import _member
    lim = app._limits[control]
    where = f"{cls.__name__}.BOOK_FIGURE['values'] of {control!r}"
    if lim.kind == "range":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not math.isfinite(value):
            raise ValueError(f"{where}: {value!r} is not a finite number")
        if not lim.lo <= value <= lim.hi:
            raise ValueError(f"{where}: {value!r} is outside {lim.lo:.6g} … {lim.hi:.6g}")
        if lim.integer:
            if value != int(value):
                raise ValueError(f"{where}: {value!r} is not a whole number")
            return int(value)
        return float(value)
    if lim.kind == "options":
        if not _member(value, lim.options):
            raise ValueError(f"{where}: {value!r} is not one of {list(lim.options)}")
        return value
    if lim.kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{where}: {value!r} is not true or false")
        return value
    raise ValueError(f"{where}: a control of kind {lim.kind!r} cannot be moved by the slider")


def figure_values(cls, app, control):
    """The values the lesson figure moves ``control`` through.

    Those ``cls.BOOK_FIGURE`` declares (each checked against the control's declared limits),
    else :func:`frame_values`.

    Parameters
    ----------
    cls : type
        The dashboard class.
    app : kernelnb.lab.app.Dashboard
        A built dashboard of that class.
    control : str
        The control moved (:func:`figure_control`).

    Returns
    -------
    list
        The values, in the slider's order.

    Raises
    ------
    ValueError
        When a declared value is outside the control's limits or repeated.
    """
    declared = book_figure(cls).get("values")
    if declared is None or control != figure_control(cls, app):
        return frame_values(app, control)
    values = [_checked_value(cls, app, control, v) for v in declared]
    from kernelnb.lab.app._urlstate import encode_value
    names = [encode_value(v) for v in values]
    if len(set(names)) != len(names):
        raise ValueError(f"{cls.__name__}.BOOK_FIGURE['values'] repeats a value: {names}")
    return values


def _format(value, spec):
    from kernelnb.lab.app._base import _fmt
    return _fmt(value, spec)


def _readout_rows(cls, keys=None):
    """The readout rows shown under the lesson figure, as ``(key, label, format)``: those
    ``keys`` names (a key of ``STATS``, or a ``(key, label, format)`` of its own for a number
    that :meth:`update` returns but the readout does not show), else every ``STATS`` row (of
    which the first :data:`TITLE_STATS` present are shown)."""
    rows = {key: (key, label, spec) for key, label, spec in cls.STATS}
    if keys is None:
        return list(cls.STATS)
    out = []
    for entry in keys:
        if isinstance(entry, str) and entry in rows:
            out.append(rows[entry])
        elif isinstance(entry, (list, tuple)) and len(entry) == 3 and isinstance(entry[0], str) \
                and (isinstance(entry[1], str) or _is_label_with_fields(entry[1])):
            out.append(tuple(entry))
        else:
            raise ValueError(f"{cls.__name__}.BOOK_FIGURE['readout'] entry {entry!r} is neither "
                             f"a key of its readout (STATS: {sorted(rows)}) nor a "
                             "(key, label, format) triple")
    return out


def _is_label_with_fields(label):
    return (isinstance(label, tuple) and len(label) == 2 and isinstance(label[0], str)
            and isinstance(label[1], dict))


def _readout(rows, stats, limit=None):
    from kernelnb.lab.app._base import _label
    shown = [(_label(label).strip(), _format(stats[key], spec)) for key, label, spec in rows
             if key in stats and not isinstance(stats[key], (list, tuple, dict, np.ndarray))]
    return " · ".join(f"{label} {value}" for label, value in shown[:limit])


# -- a lean figure: the same picture in fewer bytes ------------------------------------------------

#: Trace types whose x, y, z may be a grid given as three columns (one triple per node).
_GRID_TYPES = ("heatmap", "contour")
#: Numeric lists shorter than this stay JSON numbers.
_MIN_BINARY = 16


def _grid_form(x, y, z):
    """``(xs, ys, Z)`` when the columns ``x, y, z`` list a full grid row by row (``x`` running
    fastest: plotly's column form, as a figure may give it), else None."""
    if not all(isinstance(a, np.ndarray) and a.ndim == 1 for a in (x, y, z)):
        return None
    n = x.size
    if n < 4 or y.size != n or z.size != n:
        return None
    nx = int(np.argmax(y != y[0])) if np.any(y != y[0]) else n
    if nx < 2 or n % nx:
        return None
    ny = n // nx
    xs, ys = x[:nx], y[::nx]
    if not (np.array_equal(x, np.tile(xs, ny)) and np.array_equal(y, np.repeat(ys, nx))):
        return None
    return xs, ys, z.reshape(ny, nx)


def _numeric_list(value):
    """A list of numbers (None for a gap) as a float32 array with NaN gaps, else None."""
    if not isinstance(value, (list, tuple)) or len(value) < _MIN_BINARY:
        return None
    if not all(v is None or (isinstance(v, (int, float, np.number)) and not isinstance(v, bool))
               for v in value):
        return None
    if all(v is None or float(v).is_integer() for v in value):
        return None      # whole numbers (counts, indices) are short as JSON already
    return np.array([np.nan if v is None else v for v in value], dtype=np.float32)


def _lean_trace(trace):
    """A trace dict whose float arrays are float32 (half the bytes, the same picture: 7
    significant digits, far finer than a pixel), whose numeric lists of ``x``, ``y``, ``z`` are
    float32 arrays (a gap, None, becomes NaN, which plotly.js leaves as a gap too), and whose
    grid given as columns is given as its grid vectors and a 2-D array."""
    out = {}
    for key, value in trace.items():
        if isinstance(value, np.ndarray) and value.dtype == np.float64:
            value = value.astype(np.float32)
        elif isinstance(value, dict):
            value = _lean_trace(value)
        elif key in ("x", "y", "z"):
            packed = _numeric_list(value)
            value = value if packed is None else packed
        out[key] = value
    if out.get("type") in _GRID_TYPES:
        grid = _grid_form(out.get("x"), out.get("y"), out.get("z"))
        if grid is not None:
            out["x"], out["y"], out["z"] = grid
    return out


def _layout_without_template(layout):
    layout = dict(layout)
    layout.pop("template", None)
    return layout


#: Pixels under the x axis's title where a note the dashboard writes under its plot goes, and
#: the room the slider leaves for it.
NOTE_SHIFT, NOTE_ROOM = 52, 24
#: A legend above the plot, across (the dashboards' usual place).
_LEGEND_ABOVE = {"orientation": "h", "x": 0.0, "xanchor": "left", "y": 1.02, "yanchor": "bottom"}


def _book_layout(layout):
    """A frame's layout as the lesson figure draws it, and whether it has a note under the plot.

    A legend under the plot would lie on the slider: it goes above the plot, across, as most
    dashboards have it. A note under the plot (a paper annotation at y < 0, a fraction of the
    plot's height) goes a fixed number of pixels under it, under the x axis's title, where the
    slider leaves it room, whatever height the plot gets on a phone.
    """
    layout = _layout_without_template(layout)
    legend_y = (layout.get("legend") or {}).get("y")
    if isinstance(legend_y, (int, float)) and legend_y < 0:
        layout["legend"] = {**layout["legend"], **_LEGEND_ABOVE}
        margin = dict(layout.get("margin") or {})
        margin["t"] = max(int(margin.get("t") or 0), 95)
        layout["margin"] = margin
    notes, moved = [], False
    for a in layout.get("annotations") or ():
        if a.get("yref") == "paper" and (a.get("y") or 0) < 0:
            a, moved = {**a, "y": 0, "yanchor": "top", "yshift": -NOTE_SHIFT}, True
        notes.append(a)
    if moved:
        layout["annotations"] = notes
    return layout, moved


def lesson_figure(cls, app, control=None, values=None):
    """One chart of a dashboard at several values of one control, as a plotly figure with
    frames and a slider: every frame is drawn by the dashboard's own :meth:`update` (or its
    :meth:`lesson_stats` where ``BOOK_FIGURE`` asks for it).

    Parameters
    ----------
    cls : type
        The dashboard class.
    app : kernelnb.lab.app.Dashboard
        A built dashboard (it is put back at its values afterwards).
    control : str or None
        The control moved (default :func:`figure_control`).
    values : list or None
        Its values (default :func:`figure_values`).

    Returns
    -------
    spec : dict
        The figure as plotly's JSON, with ``frames`` and ``layout.sliders``, made lean
        (the module's docstring says how), and ``kernelnb.readouts``: per frame, the readout's
        numbers shown under the chart.
    frames : list of dict
        Per value: ``value``, ``name`` (the frame's), ``query`` (the URL settings of that
        frame), ``readout`` (the line shown under the chart), ``description`` (the chart's
        name and description from the dashboard's describer, or None), ``stats`` (the
        readout's numbers), ``regime`` (the notes).
    """
    import plotly.graph_objects as go
    import plotly.io as pio
    from kernelnb.lab.app._urlstate import encode_value

    declared = book_figure(cls)
    control = control or figure_control(cls, app)
    values = list(values if values is not None else figure_values(cls, app, control))
    fig_index = declared.get("figure", 0)
    if not 0 <= fig_index < len(app.figures):
        raise ValueError(f"{cls.__name__}.BOOK_FIGURE['figure'] is {fig_index}; the dashboard "
                         f"has {len(app.figures)} chart(s)")
    rows = _readout_rows(cls, declared.get("readout"))
    limit = None if "readout" in declared else TITLE_STATS
    use_lesson = bool(declared.get("lesson_stats"))
    label = (app.controls[control].description or control).strip().rstrip("=").strip()
    before = app.params()
    start_value = before[control]
    frames, info, below = [], [], False
    try:
        for value in values:
            if use_lesson:
                stats = app.lesson_stats({control: value})
            else:
                stats = app.update(raise_errors=True, **{control: value})
            fig = app.figures[fig_index]
            data = [_lean_trace(t.to_plotly_json()) for t in fig.data]
            layout, moved = _book_layout(fig.layout.to_plotly_json())
            below = below or moved
            numbers = _readout(rows, stats, limit)
            if stats.get("regime"):
                numbers = " · ".join(filter(None, [
                    numbers, "outside the lesson's regime: " + stats["regime"][0]]))
            name = f"{control}={encode_value(value)}"
            frames.append(go.Frame(name=name, data=data, layout=layout))
            # the chart's name and description as the dashboard writes them for this state
            # (Dashboard.describe: the page's and the tests' describer)
            described = list(getattr(app, "last_description", None) or ())
            description = (list(described[fig_index]) if fig_index < len(described) and
                           not use_lesson else None)
            info.append(dict(value=value, query=app.url_query(), name=name, readout=numbers,
                             description=description,
                             stats={k: v for k, v in stats.items()
                                    if isinstance(v, (int, float)) and not isinstance(v, bool)},
                             regime=list(stats.get("regime", ()))))
    finally:
        if use_lesson:
            app.lesson_done(before)
        else:
            app.update(**before)
    start = next((i for i, f in enumerate(info)
                  if encode_value(f["value"]) == encode_value(start_value)), 0)
    first = frames[start]
    labels = nice_labels([f["value"] for f in info])
    steps = [dict(label=text,
                  method="animate",
                  args=[[fr.name], {"mode": "immediate", "frame": {"duration": 0, "redraw": True},
                                    "transition": {"duration": 0}}])
             for text, fr in zip(labels, frames)]
    layout = dict(first.layout.to_plotly_json())
    height = int(layout.get("height") or 450)
    margin = dict(layout.get("margin") or {})
    margin["b"] = max(int(margin.get("b") or 0), 110) + (NOTE_ROOM if below else 0)
    margin["t"] = max(int(margin.get("t") or 0), 80)
    layout.update(height=height + 90 + (NOTE_ROOM if below else 0), margin=margin,
                  sliders=[dict(active=start, steps=steps,
                                pad={"t": 45 + (NOTE_ROOM if below else 0)},
                                currentvalue={"prefix": f"{label} = ", "visible": True},
                                len=1.0, x=0, xanchor="left")])
    figure = go.Figure(data=first.data, layout=layout, frames=frames)
    spec = json.loads(pio.to_json(figure, validate=False))
    _slim_frames(spec)
    _share_repeats(spec)
    # what kernelnb-book.js shows under the chart for the frame on show (plotly ignores it)
    spec["kernelnb"] = {"readouts": {f["name"]: f["readout"] for f in info},
                        "descriptions": {f["name"]: f["description"] for f in info
                                         if f.get("description")},
                        "active": info[start]["name"],
                        "autorange": _fitted_axes(spec["layout"])}
    return spec, info


def nice(value, digits=3):
    """A control value as a slider label: ``0.001``, ``3.16``, ``2,510``, ``rbf``.

    Parameters
    ----------
    value : object
        A control's value.
    digits : int, default=3
        Significant digits of a number below 1000.

    Returns
    -------
    str
        The label.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if value != 0 and abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def nice_labels(values):
    """Slider labels of ``values``, each as :func:`nice` writes it.

    With as many significant digits as it takes for different values to get different labels
    (``0.999``, ``0.9999``, ``0.99995``).

    Parameters
    ----------
    values : list
        A control's values.

    Returns
    -------
    list of str
        One label per value.
    """
    for digits in range(3, 10):
        labels = [nice(v, digits) for v in values]
        if len(set(labels)) == len(set(map(repr, values))):
            return labels
    return [str(v) for v in values]


def _slim_frames(spec):
    """Keep in each frame only what differs between frames: the traces, and in them the keys,
    whose values are not the same in every frame (plotly merges a frame into the traces it
    names), and the layout keys that change. The picture is the same; a page carries far less
    (a decision surface's grid nodes, for one, are the same in every frame)."""
    frames = spec.get("frames") or []
    if not frames:
        return
    n_traces = len(frames[0]["data"])
    varying = []
    for t in range(n_traces):
        keys = set()
        for key in frames[0]["data"][t]:
            first = json.dumps(frames[0]["data"][t].get(key), sort_keys=True)
            if any(json.dumps(fr["data"][t].get(key), sort_keys=True) != first for fr in frames):
                keys.add(key)
        for fr in frames:   # a key some frames have and others lack
            keys |= set(fr["data"][t]) ^ set(frames[0]["data"][t])
        varying.append(keys)
    traces = [t for t in range(n_traces) if varying[t]]
    layout_keys = set()
    for key in frames[0].get("layout", {}):
        first = json.dumps(frames[0]["layout"].get(key), sort_keys=True)
        if any(json.dumps(fr.get("layout", {}).get(key), sort_keys=True) != first
               for fr in frames):
            layout_keys.add(key)
    for fr in frames:
        fr["data"] = [{k: v for k, v in fr["data"][t].items() if k in varying[t] or k == "type"}
                      for t in traces]
        fr["traces"] = traces
        fr["layout"] = {k: v for k, v in fr.get("layout", {}).items() if k in layout_keys}


def _fitted_axes(layout):
    """The axes without a range of their own (plotly fits them to the data, but not again
    after an animation: ``kernelnb-book.js`` asks it to)."""
    return sorted(k for k, v in layout.items()
                  if re.fullmatch(r"[xy]axis\d*", k) and isinstance(v, dict) and "range" not in v)


#: The key of a stand-in for an array that an earlier trace of the same list holds:
#: ``{"kernelnb_same": [position, key]}``, resolved by ``kernelnb-book.js`` before plotly.js
#: reads the figure.
SAME = "kernelnb_same"
#: Binary arrays shorter than this (in base-64 characters) are not worth a reference.
_MIN_SHARED = 256


def _share_repeats(spec):
    """Send once an array that several traces of the same list (the figure's data, or one
    frame's) hold: a surface's heat map and its two contours share their ``z``, ``x`` and ``y``.
    The later copies become ``{"kernelnb_same": [position of the first, its key]}``."""
    lists = [spec.get("data") or []] + [fr.get("data") or [] for fr in spec.get("frames") or []]
    for traces in lists:
        seen = {}
        for pos, trace in enumerate(traces):
            for key in ("x", "y", "z"):
                value = trace.get(key)
                if not (isinstance(value, dict) and len(value.get("bdata", "")) >= _MIN_SHARED):
                    continue
                text = json.dumps(value, sort_keys=True)
                if text in seen:
                    trace[key] = {SAME: list(seen[text])}
                else:
                    seen[text] = (pos, key)


def _control_rows(app):
    rows = []
    for name, w in app.controls.items():
        lim = app._limits[name]
        if lim.kind == "range":
            lo, hi = lim.lo, lim.hi
            kind = "whole number" if lim.integer else "number"
            if type(w).__name__ == "FloatLogSlider":
                kind = "number (log scale)"
            limits = f"{lo:.6g} … {hi:.6g}"
        elif lim.kind in ("options", "multi"):
            kind = "one of" if lim.kind == "options" else "any of"
            limits = ", ".join(_format(o, "") for o in lim.options)
        elif lim.kind == "bool":
            kind, limits = "yes / no", "true, false"
        else:
            kind, limits = "text", ""
        from kernelnb.lab.app._urlstate import encode_value
        rows.append(dict(name=name, label=(w.description or name).strip().rstrip("=").strip(),
                         kind=kind,
                         limits=limits, default=encode_value(app.defaults[name]),
                         tooltip=getattr(w, "tooltip", None) or ""))
    return rows


def _lesson_rows(cls, app):
    from kernelnb.lab.app._lessons import sweep_lesson
    from kernelnb.lab.app._urlstate import encode_value
    out = []
    for k, lesson in enumerate(cls.all_lessons()):
        sweeps = []
        for control in lesson.sweep:
            t0 = time.perf_counter()
            result = sweep_lesson(app, lesson, control)
            points = []
            for p in result.points:
                setting = {**dict(lesson.setting), control: p.value}
                query = "&".join(f"{key}={quote(encode_value(v), safe=',')}"
                                 for key, v in setting.items())
                points.append(dict(value=encode_value(p.value), seeds=p.seeds, inside=p.inside,
                                   holds=p.holds, notes=list(p.notes), query=query))
            sweeps.append(dict(control=control, points=points, passed=result.passed,
                               n_values=result.n_values, n_runs=result.n_runs,
                               n_inside=result.n_inside, n_hold=result.n_hold,
                               seconds=time.perf_counter() - t0))
        out.append(dict(index=k, claim=lesson.claim, source=lesson.source,
                        setting={key: encode_value(v) for key, v in lesson.setting.items()},
                        seeds=list(lesson.seeds) if lesson.seed_control else [],
                        seed_control=lesson.seed_control, sweeps=sweeps))
    return out


def _book_app_kwargs(cls):
    """The constructor arguments of the dashboard the lesson figure is drawn on: a chart grid of
    :data:`BOOK_GRID` where the constructor takes one, then what ``BOOK_FIGURE['app']``
    declares."""
    params = inspect.signature(cls.__init__).parameters
    kwargs = {"grid": BOOK_GRID} if "grid" in params else {}
    kwargs.update(book_figure(cls).get("app") or {})
    return kwargs


def book_lesson_figure(cls):
    """The lesson figure of a dashboard class as its page shows it.

    The dashboard is built with the book's arguments (a chart grid of :data:`BOOK_GRID`, then
    ``BOOK_FIGURE['app']``), then drawn by :func:`lesson_figure`.

    Parameters
    ----------
    cls : type
        The dashboard class.

    Returns
    -------
    spec : dict
        The figure (see :func:`lesson_figure`).
    frames : list of dict
        Per frame (see :func:`lesson_figure`).
    app : kernelnb.lab.app.Dashboard
        The dashboard it was drawn on.
    control : str
        The control the slider moves.
    """
    from kernelnb._threads import blas_single_thread
    with blas_single_thread():
        app = cls(**_book_app_kwargs(cls))
        control = figure_control(cls, app)
        spec, frames = lesson_figure(cls, app, control)
    return spec, frames, app, control


def dashboard_report(module, class_name, lessons=True):
    """Compute everything a dashboard's page shows (see the module docstring).

    Parameters
    ----------
    module : str
        The dashboard's module, e.g. ``"kernelnb.lab.app.svm_playground"``.
    class_name : str
        Its class, e.g. ``"SVMPlayground"``.
    lessons : bool, default=True
        Run the lessons' sweeps (the longest part); False leaves ``lessons`` empty (a quick
        look at the rest of the page).

    Returns
    -------
    dict
        JSON-ready: ``title``, ``purpose``, ``notebook``, ``doc`` (the module's docstring),
        ``controls``, ``lessons``, ``figure`` (plotly JSON), ``frames``, ``frame_control``,
        ``frame_label``, ``frame_figure`` (the chart's index), ``frame_values_declared``,
        ``frame_why``, ``frame_setting`` (controls the book's dashboard sets),
        ``lesson_app``, ``book_app`` (its other constructor arguments), ``seconds``.
    """
    from kernelnb._threads import blas_single_thread
    t0 = time.perf_counter()
    mod = importlib.import_module(module)
    cls = getattr(mod, class_name)
    rows = []
    if lessons:
        with blas_single_thread():
            from kernelnb.lab.app._lessons import lesson_app
            rows = _lesson_rows(cls, lesson_app(cls))
    spec, frames, app, control = book_lesson_figure(cls)
    declared = book_figure(cls)
    from kernelnb.lab.app._urlstate import encode_value
    kwargs = _book_app_kwargs(cls)
    return dict(title=cls.title, purpose=cls.purpose, notebook=cls.notebook, module=module,
                class_name=class_name, doc=inspect.getdoc(mod) or "",
                controls=_control_rows(app), lessons=rows, figure=spec, frames=frames,
                frame_control=control,
                frame_label=(app.controls[control].description or control).strip().rstrip(
                    "=").strip(),
                frame_figure=declared.get("figure", 0),
                frame_values_declared="values" in declared and control == declared.get(
                    "control", control),
                frame_why=declared.get("why", ""),
                frame_setting={k: encode_value(v) for k, v in kwargs.items()
                               if k in app.controls},
                lesson_app={k: repr(v) for k, v in (cls.LESSON_APP or {}).items()},
                book_app={k: repr(v) for k, v in kwargs.items() if k not in app.controls},
                seconds=time.perf_counter() - t0)


def _report_job(args):
    module, class_name = args
    return dashboard_report(module, class_name)


# -- the pages ------------------------------------------------------------------------------------

def _live_links(config, name, query, label):
    from . import live_url
    links = [f'<a class="kernelnb-live-link" href="{html.escape(live_url(config, name, query))}">'
             f"{html.escape(label)} (kernelnb serve)</a>"]
    binder = getattr(config, "kernelnb_binder_url", "") or ""
    if binder:
        path = f"voila/render/dashboards/{name}.ipynb" + (f"?{query}" if query else "")
        url = f"{binder.rstrip('/')}?urlpath={quote(path, safe='/')}"
        links.append(f'<a class="kernelnb-live-link" href="{html.escape(url)}">'
                     f"{html.escape(label)} (Binder)</a>")
    return " ".join(links)


def _holds_cell(holds):
    return {True: "holds", False: "**fails**", None: "outside"}[holds]


def page_markdown(report, config=None):
    """The MyST page of one dashboard from its :func:`dashboard_report`.

    Parameters
    ----------
    report : dict
        What :func:`dashboard_report` returned.
    config : sphinx.config.Config or None
        The book's configuration (the live server's and Binder's addresses).

    Returns
    -------
    str
    """
    from . import live_url
    from ._figures import figure_html
    name, title = report["notebook"], report["title"]
    lines = [f"({name})=", f"# {_md(title)}", "", _md(report["purpose"]), "",
             "```{raw} html",
             f'<div class="kernelnb-live">{_live_links(config, name, "", "Open it live")}</div>',
             "```", ""]
    # the lesson that moves
    label = report["frame_label"]
    values = [f["value"] for f in report["frames"]]
    labels = nice_labels(values)
    shown = ", ".join(labels)
    setting = report.get("frame_setting") or {}
    others = "the other controls at their defaults" + (
        ", except " + ", ".join(f"`{k}={v}`" for k, v in setting.items()) if setting else "")
    chart = ("main chart" if not report.get("frame_figure")
             else f"chart number {report['frame_figure'] + 1}")
    lines += ["## The lesson you can move", "",
              f"Move the slider under the chart: each position shows the dashboard's {chart} "
              f"at {_md(label)} = the value shown ({others}), drawn when this book was built by "
              "the dashboard's own `update()`, with the numbers of its readout under the chart. "
              "It runs in your browser, without a kernel.", ""]
    if report.get("frame_why"):
        lines += [f"*Why this chart and this control:* {_md(report['frame_why'])}", ""]
    lines += ["```{raw} html", figure_html(report["figure"], css_class="kernelnb-lesson-figure",
                                           label=f"{title} at several values of {label}"),
              "```", ""]
    numeric = any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if report.get("frame_values_declared"):
        how = "chosen for this dashboard (its class's `BOOK_FIGURE`)"
    elif numeric:
        how = ("spread evenly over the slider's range (in the exponent for a log slider), "
               "snapped to its step, with its default")
    else:
        how = "every option of the control"
    built = ", ".join(f"`{k}={v}`" for k, v in report["book_app"].items())
    lines += [f"*How the frames were chosen:* {len(values)} values of {_md(label)} "
              f"(`{report['frame_control']}`): {_md(shown)}; {how}."
              + (f" Dashboard built with {built}." if built else ""), ""]
    frames_links = [(f, text) for f, text in zip(report["frames"], labels) if f["query"]]
    if frames_links:
        pick = frames_links[:: max(1, len(frames_links) // 4)][:5]
        links = " ".join(
            f'<a class="kernelnb-live-link" '
            f'href="{html.escape(live_url(config, name, f["query"]))}">'
            f'{html.escape(label)} = {html.escape(text)}</a>' for f, text in pick)
        lines += ["```{raw} html", f'<div class="kernelnb-live">Open it live at: {links}</div>',
                  "```", ""]
    # the lessons
    lines += ["## What it teaches", ""]
    if report["lesson_app"]:
        built = ", ".join(f"`{k}={v}`" for k, v in report["lesson_app"].items())
        lines += [f"The lessons are checked on the dashboard built with {built} (the tests check "
                  "the same sweeps): one control moved at a time, the others at their values, "
                  "the numbers averaged over the sample seeds whose setting is inside the "
                  "lesson's regime.", ""]
    for lesson in report["lessons"]:
        n_runs = sum(s["n_runs"] for s in lesson["sweeps"])
        n_values = sum(s["n_values"] for s in lesson["sweeps"])
        n_inside = sum(s["n_inside"] for s in lesson["sweeps"])
        n_hold = sum(s["n_hold"] for s in lesson["sweeps"])
        seeds = lesson["seeds"]
        lines += [f"### Lesson {lesson['index'] + 1}", "",
                  f"> {_md(lesson['claim'])}", ">", f"> — {_md(lesson['source'])}", ""]
        if lesson["setting"]:
            lines += ["At the setting " + ", ".join(f"`{k}={v}`" for k, v in
                                                     lesson["setting"].items()) + ".", ""]
        lines += [f"**What the sweep found** (computed when this book was built): "
                  f"{n_values} settings × {len(seeds) or 1} seed(s) = {n_runs} runs; "
                  f"{n_inside} settings inside the lesson's regime, and the lesson holds at "
                  f"{n_hold} of them.", "",
                  "| control | value | seeds inside the regime | lesson | regime notes met |",
                  "|---|---|---|---|---|"]
        for sweep in lesson["sweeps"]:
            for p in sweep["points"]:
                notes = _md(p["notes"][0]) if p["notes"] else "–"
                if len(p["notes"]) > 1:
                    notes += f" (and {len(p['notes']) - 1} more like it, for other seeds)"
                value = f"[{_md(p['value'])}]({live_url(config, name, p['query'])})"
                lines.append(f"| `{sweep['control']}` | {value} | {p['inside']} of {p['seeds']} "
                             f"| {_holds_cell(p['holds'])} | {notes} |")
        lines.append("")
    # the controls
    lines += ["## Controls and URL settings", "",
              "Each control is a setting of the page's address: "
              f"`…/voila/render/{name}.ipynb?{report['frame_control']}=…` opens the dashboard "
              "there, and the address follows the controls as they move. A value outside the "
              "control's range or options is refused, with the reason, and that control keeps "
              "its default.", "",
              "| setting | control | takes | range or options | default |", "|---|---|---|---|---|"]
    for c in report["controls"]:
        lines.append(f"| `{c['name']}` | {_md(c['label'])} | {c['kind']} | {_md(c['limits'])} "
                     f"| `{_md(c['default'])}` |")
    lines += ["", "## About this dashboard", "", "```{eval-rst}", ".. currentmodule:: "
              + report["module"], "", report["doc"], "```", "",
              "## In a notebook", "", "```python",
              f"from kernelnb.lab.app import {report['class_name']}",
              f"app = {report['class_name']}()          # app.widget shows it",
              f"stats = app.update()          # the readout's numbers, as a dict", "```", ""]
    return "\n".join(lines)


def _entries():
    from kernelnb.lab.server.gallery import DASHBOARDS
    return [e for e in DASHBOARDS if e.class_name]


def reports(cache_dir, workers=2, log=None):
    """Every dashboard's report, from the cache where the sources are unchanged.

    Parameters
    ----------
    cache_dir : path-like
        The folder of the cached reports.
    workers : int, default=2
        Dashboards computed at once, each in a process of its own.
    log : callable or None
        ``log(message)`` for progress lines.

    Returns
    -------
    list of dict
        In the gallery's order.
    """
    log = log or (lambda message: None)
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    key = sources_key()
    entries = _entries()
    found, todo = {}, []
    for e in entries:
        path = cache_dir / f"{e.name}-{key}.json"
        if path.is_file():
            found[e.name] = json.loads(path.read_text(encoding="utf-8"))
        else:
            todo.append(e)
    if todo:
        log(f"computing {len(todo)} dashboard page(s), {workers} at a time "
            f"({len(found)} from the cache)")
        t0 = time.perf_counter()
        ctx = get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            jobs = {e.name: pool.submit(_report_job, (f"kernelnb.lab.app.{e.module}", e.class_name))
                    for e in todo}
            for e in todo:
                report = jobs[e.name].result()
                (cache_dir / f"{e.name}-{key}.json").write_text(json.dumps(report),
                                                               encoding="utf-8")
                found[e.name] = report
                log(f"dashboard {e.name}: {report['seconds']:.1f} s")
        log(f"dashboard pages computed in {time.perf_counter() - t0:.1f} s")
    for stale in cache_dir.glob("*.json"):
        if not stale.name.endswith(f"-{key}.json"):
            stale.unlink()
    return [found[e.name] for e in entries]


def write_pages(app):
    """Write ``dashboards/<name>.md`` and ``dashboards/index.md`` into the book's sources.

    Parameters
    ----------
    app : sphinx.application.Sphinx

    Returns
    -------
    list of str
        The pages' document names.
    """
    from sphinx.util import logging
    log = logging.getLogger(__name__)
    target = Path(app.srcdir) / "dashboards"
    target.mkdir(exist_ok=True)
    from . import cache_path, remove_stale, write_if_changed
    cache = cache_path(app) / "dashboards"
    all_reports = reports(cache, workers=app.config.kernelnb_notebook_workers,
                          log=lambda message: log.info(f"[kernelnb] {message}"))
    names = []
    for report in all_reports:
        write_if_changed(target / f"{report['notebook']}.md",
                          page_markdown(report, app.config))
        names.append(report["notebook"])
    remove_stale(target, {f"{n}.md" for n in names} | {"index.md"}, "*.md")
    index = ["# The dashboards", "",
             "Each dashboard is a page of the lab (`kernelnb serve`), and here a page of the "
             "book: what it teaches, what the lesson's sweep found when the book was built, "
             "and its main chart at a range of settings, moved by a slider in your browser. "
             "Every page links to the live dashboard at a setting.", "",
             "| dashboard | what it is for | lessons |", "|---|---|---|"]
    for report in all_reports:
        n = len(report["lessons"])
        index.append(f"| [{_md(report['title'])}]({report['notebook']}.md) | "
                     f"{_md(report['purpose'])} | {n} |")
    index += ["", "```{toctree}", ":hidden:", ":maxdepth: 1", ""] + names + ["```", ""]
    write_if_changed(target / "index.md", "\n".join(index))
    app.env.kernelnb_dashboard_reports = {r["notebook"]: r["seconds"] for r in all_reports}
    return [f"dashboards/{n}" for n in names]
