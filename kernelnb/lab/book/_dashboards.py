"""A page of the book per dashboard, made from the dashboard's class (nothing written twice).

:func:`dashboard_report` builds a dashboard and computes what its page shows:

* its title, purpose and controls (name, label, range or options, default) as the class declares
  them (the same declared limits that check every value a page or a URL sends);
* every lesson (:meth:`Dashboard.all_lessons`) with its source and what its sweep found, by the
  function the tests assert (:func:`kernelnb.lab.app._lessons.sweep_lesson`), on the dashboard as
  its lessons are checked (``LESSON_APP``): for each control of the sweep, each value, how many
  sample seeds were inside the lesson's regime, whether the lesson held on their mean, and the
  regime notes met;
* the lesson figure that moves in the reader's browser: the dashboard's main chart at a range of
  values of one control (its main slider, else the first control its first lesson sweeps), each
  frame drawn by the dashboard's own :meth:`Dashboard.update` and recorded as a plotly frame, with
  a slider over them and the readout's numbers in each frame's title (:func:`lesson_figure`).

:func:`write_pages` writes ``docs/dashboards/<name>.md`` and the part's index for Sphinx. The
reports are cached in the build folder under a key made of kernelnb's sources (every ``.py`` and
``.pyx`` file of the package): a rebuild with unchanged sources computes nothing, a change to
any of them computes every report again.
"""
from __future__ import annotations

import hashlib
import html
import importlib
import inspect
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from urllib.parse import quote

import numpy as np

__all__ = ["FRAMES", "figure_control", "frame_values", "lesson_figure", "dashboard_report",
           "sources_key", "write_pages"]

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
    """A digest of kernelnb's sources (every ``.py`` and ``.pyx`` file of the package).

    Returns
    -------
    str
        16 hexadecimal digits.
    """
    import kernelnb
    root = Path(kernelnb.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".pyx", ".pxd") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


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
    from ..app._base import MAIN_SLIDER_CLASS
    declared = (getattr(cls, "BOOK_FIGURE", None) or {}).get("control")
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
    """The values of ``control`` the lesson figure is drawn at: round values spread evenly over
    its declared range (every quarter, half, whole or second decade of a log slider; steps of
    1, 2, 2.5 or 5 times a power of ten of a linear one, at least the slider's step), about
    ``count`` of them, and its default; every option of a drop-down or toggle.

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


def _layout_without_template(layout):
    layout = dict(layout)
    layout.pop("template", None)
    return layout


def _float32(trace):
    """A trace dict with its float64 arrays as float32 (half the bytes, the same picture)."""
    out = {}
    for key, value in trace.items():
        if isinstance(value, np.ndarray) and value.dtype == np.float64:
            value = value.astype(np.float32)
        elif isinstance(value, dict):
            value = _float32(value)
        out[key] = value
    return out


def _format(value, spec):
    from ..app._base import _fmt
    return _fmt(value, spec)


def _readout(cls, stats):
    rows = [(label.strip(), _format(stats[key], spec)) for key, label, spec in cls.STATS
            if key in stats and not isinstance(stats[key], (list, tuple, dict, np.ndarray))]
    return " · ".join(f"{label} {value}" for label, value in rows[:TITLE_STATS])


def lesson_figure(cls, app, control=None, values=None):
    """The dashboard's main chart at several values of one control, as a plotly figure with
    frames and a slider: every frame is drawn by the dashboard's own :meth:`update`.

    Parameters
    ----------
    cls : type
        The dashboard class.
    app : kernelnb.lab.app.Dashboard
        A built dashboard (it is put back at its values afterwards).
    control : str or None
        The control moved (default :func:`figure_control`).
    values : list or None
        Its values (default :func:`frame_values`).

    Returns
    -------
    spec : dict
        The figure as plotly's JSON, with ``frames`` and ``layout.sliders``.
    frames : list of dict
        Per value: ``value``, ``query`` (the URL settings of that frame), ``stats`` (the
        readout's numbers), ``regime`` (the notes).
    """
    import plotly.graph_objects as go
    import plotly.io as pio

    control = control or figure_control(cls, app)
    values = list(values if values is not None else frame_values(app, control))
    before = app.params()
    fig_index = (getattr(cls, "BOOK_FIGURE", None) or {}).get("figure", 0)
    label = (app.controls[control].description or control).strip().rstrip("=").strip()
    default = app.defaults[control]
    frames, info = [], []
    try:
        for value in values:
            stats = app.update(raise_errors=True, **{control: value})
            fig = app.figures[fig_index]
            data = [_float32(t.to_plotly_json()) for t in fig.data]
            layout = _layout_without_template(fig.layout.to_plotly_json())
            numbers = _readout(cls, stats)
            if stats.get("regime"):
                numbers += " · outside the lesson's regime: " + stats["regime"][0]
            from ..app._urlstate import encode_value
            name = f"{control}={encode_value(value)}"
            frames.append(go.Frame(name=name, data=data, layout=layout))
            info.append(dict(value=value, query=app.url_query(), name=name, readout=numbers,
                             stats={k: v for k, v in stats.items()
                                    if isinstance(v, (int, float)) and not isinstance(v, bool)},
                             regime=list(stats.get("regime", ()))))
    finally:
        app.update(**before)
    start = next((i for i, f in enumerate(info) if f["value"] == default), 0)
    first = frames[start]
    steps = [dict(label=nice(f["value"]),
                  method="animate",
                  args=[[fr.name], {"mode": "immediate", "frame": {"duration": 0, "redraw": True},
                                    "transition": {"duration": 0}}])
             for f, fr in zip(info, frames)]
    layout = dict(first.layout.to_plotly_json())
    height = int(layout.get("height") or 450)
    margin = dict(layout.get("margin") or {})
    margin["b"] = max(int(margin.get("b") or 0), 110)
    margin["t"] = max(int(margin.get("t") or 0), 80)
    layout.update(height=height + 90, margin=margin,
                  sliders=[dict(active=start, steps=steps, pad={"t": 45},
                                currentvalue={"prefix": f"{label} = ", "visible": True},
                                len=1.0, x=0, xanchor="left")])
    figure = go.Figure(data=first.data, layout=layout, frames=frames)
    spec = json.loads(pio.to_json(figure, validate=False))
    _slim_frames(spec)
    # what kernelnb-book.js shows under the chart for the frame on show (plotly ignores it)
    spec["kernelnb"] = {"readouts": {f["name"]: f["readout"] for f in info},
                        "active": info[start]["name"]}
    return spec, info


def nice(value):
    """A control value as a slider label: ``0.001``, ``3.16``, ``2,510``, ``rbf``.

    Parameters
    ----------
    value : object

    Returns
    -------
    str
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if value != 0 and abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


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
        from ..app._urlstate import encode_value
        rows.append(dict(name=name, label=(w.description or name).strip(), kind=kind,
                         limits=limits, default=encode_value(app.defaults[name]),
                         tooltip=getattr(w, "tooltip", None) or ""))
    return rows


def _lesson_rows(cls, app):
    from ..app._lessons import sweep_lesson
    from ..app._urlstate import encode_value
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
    declared = (getattr(cls, "BOOK_FIGURE", None) or {}).get("app")
    if declared is not None:
        return dict(declared)
    params = inspect.signature(cls.__init__).parameters
    return {"grid": BOOK_GRID} if "grid" in params else {}


def dashboard_report(module, class_name):
    """Compute everything a dashboard's page shows (see the module docstring).

    Parameters
    ----------
    module : str
        The dashboard's module, e.g. ``"kernelnb.lab.app.svm_playground"``.
    class_name : str
        Its class, e.g. ``"SVMPlayground"``.

    Returns
    -------
    dict
        JSON-ready: ``title``, ``purpose``, ``notebook``, ``doc`` (the module's docstring),
        ``controls``, ``lessons``, ``figure`` (plotly JSON), ``frames``, ``frame_control``,
        ``lesson_app``, ``book_app``, ``seconds``.
    """
    from ..._threads import blas_single_thread
    t0 = time.perf_counter()
    mod = importlib.import_module(module)
    cls = getattr(mod, class_name)
    with blas_single_thread():
        from ..app._lessons import lesson_app
        checked = lesson_app(cls)
        lessons = _lesson_rows(cls, checked)
        book_kwargs = _book_app_kwargs(cls)
        app = cls(**book_kwargs)
        control = figure_control(cls, app)
        spec, frames = lesson_figure(cls, app, control)
    return dict(title=cls.title, purpose=cls.purpose, notebook=cls.notebook, module=module,
                class_name=class_name, doc=inspect.getdoc(mod) or "",
                controls=_control_rows(app), lessons=lessons, figure=spec, frames=frames,
                frame_control=control,
                frame_label=(app.controls[control].description or control).strip().rstrip(
                    "=").strip(),
                lesson_app={k: repr(v) for k, v in (cls.LESSON_APP or {}).items()},
                book_app={k: repr(v) for k, v in book_kwargs.items()},
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
    shown = ", ".join(nice(v) for v in values)
    lines += ["## The lesson you can move", "",
              f"Move the slider under the chart: each position is the dashboard at "
              f"{_md(label)} = the value shown, the other controls at their defaults, drawn "
              "when this book was built by the dashboard's own `update()`, with the numbers of "
              "its readout under the chart. It runs in your browser, without a kernel.", "",
              "```{raw} html", figure_html(report["figure"], css_class="kernelnb-lesson-figure",
                                           label=f"{title} at several values of {label}"),
              "```", "",
              f"*How the frames were chosen:* {len(values)} values of {_md(label)} "
              f"(`{report['frame_control']}`): {_md(shown)}; "
              + ("every option of the control" if not any(isinstance(v, (int, float))
                                                           and not isinstance(v, bool)
                                                           for v in values)
                 else "spread evenly over the slider's range (in the exponent for a log "
                      "slider), snapped to its step, with its default")
              + ". Dashboard built with "
              + (", ".join(f"`{k}={v}`" for k, v in report["book_app"].items()) or "its defaults")
              + ".", ""]
    frames_links = [f for f in report["frames"] if f["query"]]
    if frames_links:
        pick = frames_links[:: max(1, len(frames_links) // 4)][:5]
        links = " ".join(
            f'<a class="kernelnb-live-link" href="{html.escape(live_url(config, name, f["query"]))}">'
            f'{html.escape(label)} = {html.escape(nice(f["value"]))}</a>' for f in pick)
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


def _write_if_changed(path, text):
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _entries():
    from ..app.gallery import DASHBOARDS
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
    from . import cache_path
    cache = cache_path(app) / "dashboards"
    all_reports = reports(cache, workers=app.config.kernelnb_notebook_workers,
                          log=lambda message: log.info(f"[kernelnb] {message}"))
    names = []
    for report in all_reports:
        _write_if_changed(target / f"{report['notebook']}.md",
                          page_markdown(report, app.config))
        names.append(report["notebook"])
    for stale in target.glob("*.md"):
        if stale.stem not in names and stale.stem != "index":
            stale.unlink()
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
    _write_if_changed(target / "index.md", "\n".join(index))
    app.env.kernelnb_dashboard_reports = {r["notebook"]: r["seconds"] for r in all_reports}
    return [f"dashboards/{n}" for n in names]
