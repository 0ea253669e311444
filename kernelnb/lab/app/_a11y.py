"""What a dashboard's charts and changes say in words: names, descriptions, a status line, a table.

A plotly chart is a picture; WCAG 2.2 (1.1.1, non-text content; 1.3.1, info and relationships;
4.1.3, status messages) asks that what it shows be given in text too. Each dashboard writes, from
its own state, after every complete update:

* for each chart, a **name** (its title) and a **description** (what it shows now: the readout's
  numbers for the main chart, then the axes and what is drawn, with how many points), written by
  :meth:`kernelnb.lab.app._base.Dashboard.describe` (a dashboard adds what its chart alone says,
  e.g. the SVM playground's number of regions of the boundary);
* a **status line** that says what changed ("C = 3.16: training error 0.5 %, ...") in a region
  the page keeps (``kernelnb-status``, a polite live region), so a screen reader announces it;
* on request (a toggle button), a **table** of what each chart plots: the points of each trace
  (class, support vectors, errors, a curve's points, the bars' values), a surface's range.

The page script ``kernelnb/lab/static/kernelnb-a11y.js`` ties each chart (CSS class
``kernelnb-chart-<key>``) to its name and description (ids ``kernelnb-chart-name-<key>``,
``kernelnb-chart-desc-<key>``). The texts are written in the dashboard's language.

:class:`Accessible`, a mixin of :class:`kernelnb.lab.app.Dashboard`, adds these to a dashboard's
layout and writes them after each update; its public methods, :meth:`Accessible.describe` and
:meth:`Accessible.click_at` (the keyboard's way to what a click on the chart does), are the
dashboard's own (``Dashboard.describe``, ``Dashboard.click_at``).
"""
from __future__ import annotations

import html
import itertools
import numbers
import re

import ipywidgets as widgets
import numpy as np
from plotly.basedatatypes import BaseFigure

from .. import i18n
from ..i18n import _
from ..viz.surface import LEVEL_LINE_TRACES, LEVELS_META
from ._words import _fmt, _label, _same, speaks

__all__ = ["surface_grid", "figure_name", "figure_summary", "charts_html", "table_html", "sentence",
           "next_key", "TABLE_ROWS", "Accessible"]

#: CSS classes of the status line a screen reader announces after each change (a live region,
#: see ``kernelnb/lab/static/kernelnb-a11y.js``) and of the table view of the charts; the
#: browser tests (``tests/browser/``) rely on them.
STATUS_CLASS = "kernelnb-status"
TABLE_CLASS = "kernelnb-tableview"

#: Rows of a trace shown in the table view (the rest is counted, not listed): enough for every
#: support vector of a toy problem and every point of a curve.
TABLE_ROWS = 60

_TAG = re.compile(r"<[^>]+>")
_keys = itertools.count(1)


def next_key():
    """A key unique in this process for a dashboard's charts (``kernelnb-chart-<key>-<i>``)."""
    return f"k{next(_keys)}"


def plain(text):
    """Text without plotly's HTML tags (``<br>``, ``<sub>``, ``<b>``)."""
    return " ".join(_TAG.sub(" ", str(text or "")).split())


def _title_text(title):
    if title is None:
        return ""
    text = getattr(title, "text", title)
    return plain(text) if isinstance(text, str) else ""


def surface_grid(trace):
    """A heat map's values as a 2-D array (rows along y), as the dashboards send them
    (:func:`kernelnb.lab.viz.grid_arrays`); None when the trace holds no grid."""
    z = np.asarray(trace.z if trace.z is not None else [], dtype=float)
    return z if z.ndim == 2 and z.size else None


def figure_name(fig, fallback=""):
    """The chart's accessible name: its title, else ``fallback``."""
    return _title_text(fig.layout.title) or fallback


def _axis_titles(fig):
    layout = fig.layout
    names = []
    for key in ("xaxis", "yaxis"):
        axis = getattr(layout, key, None)
        text = _title_text(axis.title) if axis is not None else ""
        if text:
            names.append(text)
    return names


def _length(values):
    if values is None:
        return 0
    try:
        return int(np.size(values))
    except Exception:  # noqa: BLE001 - an odd array is simply not counted
        return 0


def _visible(trace):
    return getattr(trace, "visible", True) not in (False, "legendonly")


_COUNTED = re.compile(r"\(\d+\)\s*$")


#: The ``meta`` of line traces that draw level lines (:func:`kernelnb.lab.viz.level_lines`): a
#: plane's f = 0 and f = +-1 (:data:`kernelnb.lab.viz.LEVEL_LINE_TRACES`) and other levels
#: (:data:`kernelnb.lab.viz.surface.LEVELS_META`).
_LEVEL_METAS = (*LEVEL_LINE_TRACES, LEVELS_META)


def _level_lines(trace):
    """Whether ``trace`` is a line trace of level lines (its ``meta`` one of
    :data:`_LEVEL_METAS`): contour lines, not a curve of points."""
    return trace.type == "scatter" and getattr(trace, "meta", None) in _LEVEL_METAS


def _trace_phrase(trace):
    """'class 0 (100 points)', 'f(x) = 0 (contour lines)', 'f(x) (a surface from -2 to 2)'."""
    name = plain(getattr(trace, "name", "") or "")
    kind = trace.type
    if (kind == "contour" and getattr(trace.contours, "coloring", None) in ("lines", "none")) \
            or _level_lines(trace):
        what = _("contour lines")
        return f"{name} ({what})" if name else what
    if kind in ("heatmap", "contour", "surface"):
        z = np.asarray(trace.z if trace.z is not None else [], dtype=float)
        z = z[np.isfinite(z)] if z.size else z
        what = (_("a surface of values from {low} to {high}").format(
            low=i18n.number(float(z.min()), ".3g"), high=i18n.number(float(z.max()), ".3g"))
            if z.size else _("a surface"))
        return f"{name} ({what})" if name else what
    n = _length(getattr(trace, "x", None)) or _length(getattr(trace, "y", None))
    if not name or n == 0:
        return ""
    if kind == "bar":
        return f"{name} " + i18n.ngettext("({n} bar)", "({n} bars)", n).format(n=n)
    mode = getattr(trace, "mode", None) or ""
    if "markers" in mode or "lines" not in mode:
        # a legend entry that gives its count already ('class 0 (100)') is not counted twice
        return name if _COUNTED.search(name) else \
            f"{name} " + i18n.ngettext("({n} point)", "({n} points)", n).format(n=n)
    return f"{name} " + i18n.ngettext("(a curve of {n} point)", "(a curve of {n} points)",
                                      n).format(n=n)


def figure_summary(fig):
    """What a chart draws, in words: its axes and each visible named trace with its size."""
    parts = []
    axes = _axis_titles(fig)
    if len(axes) == 2:
        parts.append(_("{y} against {x}").format(y=axes[1], x=axes[0]))
    phrases = [p for p in (_trace_phrase(t) for t in fig.data if _visible(t)) if p]
    if phrases:
        parts.append(_("drawn: {items}").format(items=", ".join(phrases)))
    return "; ".join(parts)


def sentence(parts):
    """Parts joined as one sentence (empty parts left out), ending with a full stop."""
    text = "; ".join(p.strip().rstrip(".") for p in parts if p and p.strip())
    return text + "." if text else ""


def charts_html(key, described):
    """The hidden-but-referenced texts of the charts: one name and one description each.

    Parameters
    ----------
    key : str
        The dashboard's key (:func:`next_key`).
    described : list of (str, str)
        (name, description) per chart, in the order of the charts' keys.

    Returns
    -------
    str
        HTML: for chart ``i``, ``<p id="kernelnb-chart-name-<key>-<i>">`` and
        ``<p id="kernelnb-chart-desc-<key>-<i>">``.
    """
    rows = []
    for i, (name, desc) in enumerate(described):
        rows.append(f'<p class="kernelnb-chartname" id="kernelnb-chart-name-{key}-{i}">'
                    f"{html.escape(name)}</p>"
                    f'<p class="kernelnb-chartdesc" id="kernelnb-chart-desc-{key}-{i}">'
                    f"{html.escape(desc)}</p>")
    return "".join(rows)


def _cell(value):
    if isinstance(value, (float, np.floating)):
        return i18n.number(float(value), ".4g") if np.isfinite(value) else "–"
    if isinstance(value, (int, np.integer)):
        return i18n.number(int(value))
    return plain(value)


def _trace_table(trace, fallback):
    name = plain(getattr(trace, "name", "") or "") or fallback
    if trace.type in ("heatmap", "contour", "surface") or _level_lines(trace):
        phrase = _trace_phrase(trace)
        return f"<p>{html.escape(phrase or name)}</p>" if phrase else ""
    xs = getattr(trace, "x", None)
    ys = getattr(trace, "y", None)
    n = max(_length(xs), _length(ys))
    if n == 0:
        return ""
    xs = list(np.ravel(xs)) if xs is not None else list(range(n))
    ys = list(np.ravel(ys)) if ys is not None else [None] * n
    body = "".join(f"<tr><td>{html.escape(_cell(x))}</td><td>{html.escape(_cell(y))}</td></tr>"
                   for x, y in itertools.islice(zip(xs, ys), TABLE_ROWS))
    # gettext calls stand outside f-strings: Babel does not extract them from inside one
    more_rows = _("… and {n} more rows").format(n=n - TABLE_ROWS)
    more = f"<p>{html.escape(more_rows)}</p>" if n > TABLE_ROWS else ""
    return (f"<table><caption>{html.escape(name)} "
            f"{html.escape(i18n.ngettext('({n} row)', '({n} rows)', n).format(n=n))}</caption>"
            f'<thead><tr><th scope="col">x</th><th scope="col">y</th></tr></thead>'
            f"<tbody>{body}</tbody></table>{more}")


def table_html(figures, names):
    """The table view: for each chart, its name as a heading and a table per visible trace.

    Parameters
    ----------
    figures : list of plotly.graph_objects.FigureWidget
    names : list of str
        The charts' names.

    Returns
    -------
    str
    """
    out = []
    for fig, name in zip(figures, names):
        tables = [_trace_table(t, _("trace {i}").format(i=i + 1))
                  for i, t in enumerate(fig.data) if _visible(t)]
        tables = [t for t in tables if t]
        if tables:
            out.append(f"<h2>{html.escape(name)}</h2>{''.join(tables)}")
    return f'<div class="kernelnb-table">{"".join(out)}</div>'


class Accessible:
    """What a screen reader and the keyboard need of a dashboard (see the module docstring); a
    mixin of :class:`kernelnb.lab.app.Dashboard`. It reads the dashboard's ``controls``,
    ``figures``, ``STATS``, ``title``, ``click_action``, ``click_label``, ``widget``,
    ``progress`` and ``status``, ``speaking()`` and ``_widget_attributes()``."""

    def _accessible_layout(self):
        """Add to the layout what a screen reader and the keyboard need (this module): each
        chart marked for its name and description, the status line, the table view, and, where a
        click on the chart does something, the coordinates to type and a button that does it."""
        self._a11y_key = next_key()
        self._announced = None
        self.status_line = widgets.HTML(value="")
        self.status_line.add_class(STATUS_CLASS)
        self.chart_texts = widgets.HTML(value="", layout=widgets.Layout(display="none"))
        self.chart_texts.add_class("kernelnb-charttexts")
        self.table_button = widgets.ToggleButton(
            value=False, description=_("table of the charts' data"),
            tooltip=_("show what the charts draw as tables"), layout=widgets.Layout(width="auto"))
        self.table_view = widgets.HTML(value="")
        self.table_view.add_class(TABLE_CLASS)
        self.table_button.observe(lambda _change: self._draw_table(), names="value")
        # the charts are built before the layout and stay the dashboard's: found once
        self._chart_list = self._find_charts()
        for i, fig in enumerate(self._chart_list):
            fig.add_class(f"kernelnb-chart-{self._a11y_key}-{i}")
        extra = [self.status_line, self.table_button, self.table_view, self.chart_texts]
        columns = self.widget.children[-1] if self.widget.children else None
        if isinstance(columns, widgets.HBox) and len(columns.children) == 2:
            columns.add_class("kernelnb-columns")
            left, right = columns.children
            right.children = (*right.children, *extra)
            if self.click_action is not None:
                rows = list(left.children)
                at = len(rows) - 2 if rows[-2:] == [self.progress, self.status] else len(rows)
                left.children = tuple(rows[:at] + self._point_widgets() + rows[at:])
        else:
            self.widget.children = (*self.widget.children, *extra)

    def _point_widgets(self):
        """x₁, x₂ and the button that does at (x₁, x₂) what a click on the chart does."""
        style, layout = {"description_width": "24px"}, dict(width="130px")
        self.point_x = widgets.FloatText(value=0.0, step=0.1, description="x₁", style=style,
                                         layout=widgets.Layout(**layout))
        self.point_y = widgets.FloatText(value=0.0, step=0.1, description="x₂", style=style,
                                         layout=widgets.Layout(**layout))
        self.point_button = widgets.Button(description=_(self.click_label),
                                           layout=widgets.Layout(width="auto"))
        self.point_button.on_click(lambda _b: self.click_at(self.point_x.value,
                                                            self.point_y.value))
        return [widgets.HBox([self.point_x, self.point_y]), self.point_button]

    @speaks
    def click_at(self, x, y):
        """Do at (``x``, ``y``) what a click on the chart does (:attr:`click_action`).

        Parameters
        ----------
        x, y : float
            The point, in the chart's coordinates.
        """
        if self.click_action is None:
            raise ValueError(f"{type(self).__name__} has no click action")
        return getattr(self, self.click_action)(x, y)

    def _charts(self):
        """The figures: :attr:`figures` first, then those held in attributes (a mode's)."""
        return list(self._chart_list)

    def _find_charts(self):
        found = {id(f): f for f in self.figures}
        for value in self._widget_attributes():
            if isinstance(value, BaseFigure):
                found.setdefault(id(value), value)
        return list(found.values())

    def _readout_sentence(self, stats):
        parts = [f"{_label(label)} {_fmt(stats[key], spec)}" for key, label, spec in self.STATS
                 if key in stats]
        return ", ".join(parts)

    def describe(self, stats):
        """Each chart's name and description, from the dashboard's state now.

        The name is the chart's title; the main chart's description gives the readout's numbers,
        then what only that chart says (:meth:`chart_notes`), then, for every chart, its axes
        and what it draws (each named trace and its size).

        Parameters
        ----------
        stats : dict
            What the last update returned.

        Returns
        -------
        list of (str, str)
            (name, description) per chart, main chart first, in the dashboard's language.
        """
        described = []
        for i, fig in enumerate(self._charts()):
            name = figure_name(fig, fallback=f"{_(self.title)} ({i + 1})")
            parts = [self._readout_sentence(stats)] if i == 0 else []
            parts += self.chart_notes(i, stats)
            parts.append(figure_summary(fig))
            described.append((name, sentence(parts)))
        return described

    def chart_notes(self, index, stats):
        """What chart ``index`` alone says, for its description (a dashboard overrides this).

        Parameters
        ----------
        index : int
            The chart's place in :meth:`describe`'s list.
        stats : dict
            What the last update returned.

        Returns
        -------
        list of str
            Phrases in the dashboard's language; none by default.
        """
        return []

    def _control_phrase(self, name):
        """'C = 3.16', 'kernel = linear', 'show f = ±1 lines: off': a control and its value."""
        w = self.controls[name]
        label = getattr(w, "description", "") or name
        value = w.value
        if isinstance(value, bool):
            state = _("on") if value else _("off")
            return f"{label}: {state}"
        shown = getattr(w, "label", None)
        if isinstance(shown, str) and shown:
            text = shown
        elif isinstance(value, numbers.Real):
            try:
                text = i18n.number(value, getattr(w, "readout_format", "") or "g")
            except (TypeError, ValueError):
                text = i18n.number(value)
        else:
            text = str(value)
        return f"{label} = {text}"

    def _changes(self, values):
        before = self._announced
        if before is None:
            return []
        return [self._control_phrase(k) for k, v in values.items()
                if k in self.controls and not _same(before.get(k), v)]

    def _announce_partial(self, values):
        """While long work runs (partial results drawn): the status line says what changed and
        that the numbers are coming."""
        changed = self._changes(values)
        text = (_("{changes}: {numbers}").format(changes=", ".join(changed), numbers=_("working…"))
                if changed else _("working…"))
        value = f"<p>{html.escape(text)}</p>"
        if self.status_line.value != value:
            self.status_line.value = value

    def _announce(self, values, stats):
        """After a complete update: the charts' texts, the status line, the table view."""
        described = self.describe(stats)
        self.last_description = described
        self.chart_texts.value = charts_html(self._a11y_key, described)
        changed = self._changes(values)
        self._announced = dict(values)
        readout = self._readout_sentence(stats)
        text = (_("{changes}: {numbers}").format(changes=", ".join(changed), numbers=readout)
                if changed and readout else readout or ", ".join(changed))
        self.status_line.value = f"<p>{html.escape(text)}</p>" if text else ""
        self._draw_table()

    def _draw_table(self):
        if self.table_button.value:
            with self.speaking():
                names = [n for n, _d in (getattr(self, "last_description", None) or [])]
                charts = self._charts()
                names += [figure_name(f) for f in charts[len(names):]]
                self.table_view.value = table_html(charts, names)
        elif self.table_view.value:
            self.table_view.value = ""
