"""The base of every dashboard: widgets, plotly ``FigureWidget``s and a pure ``update``.

A dashboard subclass declares its controls (``self.controls``: parameter name -> widget), its
figures (``self.figures``, main chart first) and two methods:

* ``_compute(params) -> result``: the work (fits, grids), from a dict of parameter values; no
  widget is touched there, so it can raise freely;
* ``_render(result) -> stats``: applies ``result`` to the figures (called inside every figure's
  ``batch_update()``) and returns the numbers shown in the readout.

:meth:`Dashboard.update` ties them together; every control's ``observe`` calls it, and tests call
it directly. An exception becomes a readable message in the ``kernelnb-error`` widget while the
figures keep their last good state, and the dashboard keeps answering.

Partial results. A dashboard whose work can take seconds defines ``_steps(params)`` instead of
``_compute``: a generator that yields ``None`` where the work may pause, or a partial result
(one ``_render`` draws: the first points of a curve, the repeats done so far), and returns the
complete result. Called from Python, :meth:`Dashboard.update` runs it to the end and draws the
complete result only, so its numbers are those of the unchanged computation. When a control
moves in a kernel (a page, a notebook), the update draws the first partial result and returns;
the rest runs as an asyncio task on the kernel's event loop, a slice of steps at a time, drawing
the latest partial result every :attr:`Dashboard.partial_every_s` and the complete one at the
end (:attr:`Dashboard.pending` is that task). Between slices the kernel reads its messages, so a
control moved meanwhile is handled at once: its update closes the unfinished work (the figures
then show the new setting's results only). Widget messages leave the kernel as they are made,
during an update as after it; what a page cannot do is send the kernel a new control value
before the update running returns, hence the slices.

Server-side limits. The browser keeps a slider inside its ``min``/``max``, but a page can send any
widget state (``set_state({"max": 10**9, "value": 10**9})``). So when a dashboard is built, the
limits each control declares are recorded (:meth:`Dashboard._declare_limits`): ``min``/``max``
(and ``base``) of numeric sliders and bounded texts, the options of drop-downs, toggles and
multiple selections, ``bool`` for check boxes. A change of those traits that the dashboard did not
make itself (inside :meth:`Dashboard.changing_limits`) is put back at once, and :meth:`update`
re-checks every value a control holds: a number outside its limits is clamped (and the control
moved back), a non-finite number, a value of the wrong type or outside the options is refused
with a message in the page and nothing is computed. Values passed to :meth:`update` from Python
are the caller's (a notebook may go beyond a slider); the estimators validate them.
Long work runs under a per-update time budget (:attr:`Dashboard.time_budget_s`), and under
``kernelnb.config_context(keep_partial_on_interrupt=True)``: an interrupted fit draws the model it
reached rather than losing it.

Languages. A dashboard speaks English or French (:mod:`kernelnb.lab.i18n`): every text it shows
is marked for gettext, ``_()`` where it is written at update time, ``N_()`` for class attributes
(``title``, ``purpose``, the readout labels of ``STATS``, the lessons), translated where shown.
Its widgets and figures are built in English and moved to its language by
:meth:`Dashboard.set_language` (:mod:`kernelnb.lab.app._relabel`); every update, click and
refusal then speaks that language, numbers included (``0,5`` in French).
"""
from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import functools
import html
import json
import math
import numbers
import time
import traceback
import typing

import ipywidgets as widgets
from plotly.basedatatypes import BaseFigure

from ..._callbacks import run_to_end
from ..._config import config_context
from ..._threads import blas_single_thread
from .. import i18n
from ..i18n import N_, _
from . import _a11y, _challenge, _urlstate
from ._relabel import Labels

__all__ = ["Dashboard", "Lesson", "log_slider", "num", "speaks", "TimeBudgetExceeded"]

#: CSS classes the browser tests (``tests/browser/``) rely on.
ERROR_CLASS = "kernelnb-error"
STATS_CLASS = "kernelnb-stats"
MAIN_SLIDER_CLASS = "kernelnb-main-slider"
#: The status line a screen reader announces after each change (a live region, see
#: ``kernelnb/lab/static/kernelnb-a11y.js``) and the table view of the charts.
STATUS_CLASS = "kernelnb-status"
TABLE_CLASS = "kernelnb-tableview"

_CSS = """<style>
.kernelnb-error .kernelnb-errbox {background:#fdecea;border:1px solid #f5c2c0;color:#8a1c14;
  padding:6px 10px;border-radius:4px;font-family:sans-serif;white-space:pre-wrap;}
.kernelnb-stats table {border-collapse:collapse;font-family:sans-serif;font-size:13px;}
.kernelnb-stats td, .kernelnb-stats th {padding:2px 10px 2px 0;text-align:left;}
.kernelnb-stats td.num {text-align:right;font-variant-numeric:tabular-nums;}
.kernelnb-stats th {border-bottom:1px solid #ccc;}
.kernelnb-title h2 {margin:4px 0 2px 0;font-family:sans-serif;}
.kernelnb-title p {margin:0 0 6px 0;color:#555;font-family:sans-serif;}
.kernelnb-stats .kernelnb-lesson {margin:6px 0 2px 0;font-family:sans-serif;font-size:13px;}
.kernelnb-stats .kernelnb-regime {margin:6px 0 2px 0;padding:4px 8px;background:#fff4e0;
  border-left:3px solid #e0a030;font-family:sans-serif;font-size:13px;}
.kernelnb-stats details {font-family:sans-serif;font-size:13px;margin-top:4px;}
.kernelnb-status {font-family:sans-serif;font-size:13px;}
.kernelnb-tableview table {border-collapse:collapse;font-family:sans-serif;font-size:12px;
  margin:4px 0 8px 0;}
.kernelnb-tableview caption {text-align:left;font-weight:bold;}
.kernelnb-tableview td, .kernelnb-tableview th {padding:1px 10px 1px 0;text-align:right;
  font-variant-numeric:tabular-nums;}
.kernelnb-tableview h3 {font-family:sans-serif;font-size:14px;margin:8px 0 2px 0;}
</style>"""

_CONTROL_STYLE = {"description_width": "92px"}
_CONTROL_LAYOUT = dict(width="300px")


def log_slider(description, value, min_exp, max_exp, step=0.1, main=False, readout_format=".3g",
               tooltip=None):
    """A base-10 ``FloatLogSlider`` that does not queue work while dragged."""
    s = widgets.FloatLogSlider(value=value, base=10, min=min_exp, max=max_exp, step=step,
                               description=description, continuous_update=False,
                               readout_format=readout_format, style=_CONTROL_STYLE,
                               layout=widgets.Layout(**_CONTROL_LAYOUT))
    if tooltip:
        s.tooltip = tooltip
    if main:
        s.add_class(MAIN_SLIDER_CLASS)
    return s


def styled(widget, tooltip=None):
    """Give a control the dashboards' common description width and layout."""
    if hasattr(widget, "style") and "description_width" in widget.style.keys:
        widget.style.description_width = _CONTROL_STYLE["description_width"]
    widget.layout.width = _CONTROL_LAYOUT["width"]
    if tooltip:
        widget.tooltip = tooltip
    if hasattr(widget, "continuous_update"):
        widget.continuous_update = False
    return widget


def _same_value(a, b):
    """Whether two control values are the same setting (numbers within rounding)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return tuple(a) == tuple(b) if isinstance(a, (tuple, list)) and \
            isinstance(b, (tuple, list)) else False
    return _same(a, b)


def _same(a, b):
    try:
        return bool(a == b) or math.isclose(float(a), float(b), rel_tol=1e-9)
    except (TypeError, ValueError):
        return False


@dataclasses.dataclass(frozen=True)
class Lesson:
    """A lesson a dashboard teaches, and how to check it from :meth:`Dashboard.update`'s numbers.

    Parameters
    ----------
    claim : str
        One sentence a student should see, tied to the source text.
    source : str
        Where the text says it (author, year, section or figure).
    holds : callable
        ``holds(stats) -> bool`` on the mean over :attr:`seeds` of the numbers :meth:`update`
        returns (numeric entries only) at one setting of the controls.
    sweep : dict
        Control name -> the values the tests move it across (one control at a time, the others
        at their defaults); together they span every control's range that the lesson is about.
    seeds : tuple of int, default=(0, 1, 2, 3, 4)
        The sample seeds the lesson is averaged over (values of the dashboard's seed control).
    seed_control : str or None, default="seed"
        The control that draws the sample; None for a dashboard without one (then ``seeds``
        is not used).
    setting : dict, default={}
        Control values the lesson speaks of, applied (as one update, so that the dashboard's
        dependent controls follow) before its sweep; the other controls keep their values.
        E.g. ``{"variant": "basic"}`` for a lesson about basic matching pursuit.
    """

    claim: str
    source: str
    holds: typing.Callable[[dict], bool]
    sweep: typing.Mapping[str, tuple] = dataclasses.field(default_factory=dict)
    seeds: tuple = (0, 1, 2, 3, 4)
    seed_control: typing.Optional[str] = "seed"
    setting: typing.Mapping[str, object] = dataclasses.field(default_factory=dict)

    def html(self, title=None):
        """The lesson as the readout shows it: ``title``, the claim and its source (escaped), in
        the language in effect (``claim`` and ``source`` are msgids, marked with ``N_``).

        Parameters
        ----------
        title : str or None
            The heading (None: "Lesson", translated).

        Returns
        -------
        str
        """
        title = _("Lesson") if title is None else title
        return (f'<div class="kernelnb-lesson"><b>{html.escape(title)}.</b> '
                f'{html.escape(_(self.claim))} <small>({html.escape(_(self.source))})</small>'
                '</div>')


def speaks(method):
    """Decorate a dashboard method so that it runs in the dashboard's language.

    Every text written while it runs (``_()``, numbers) is in :attr:`Dashboard.lang`: put it on
    the methods a page reaches other than through :meth:`Dashboard.update` (a button's action,
    a click on a chart).

    Parameters
    ----------
    method : callable
        A method of a :class:`Dashboard` subclass.

    Returns
    -------
    callable
        The method, run inside :meth:`Dashboard.speaking`.
    """
    @functools.wraps(method)
    def in_language(self, *args, **kwargs):
        with i18n.language(self.lang):
            return method(self, *args, **kwargs)
    return in_language


class TimeBudgetExceeded(RuntimeError):
    """Raised by :meth:`Dashboard.check_time` when an update has used its time budget."""


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclasses.dataclass
class _Limits:
    """What a control declared when the dashboard was built (or re-declared since).

    ``kind``: 'range' (``lo`` <= value <= ``hi``, ``integer`` for int widgets), 'options' (value
    among ``options``), 'multi' (a tuple of values among ``options``), 'bool', or 'free' (not
    checked: a widget kind without limits). ``traits``: the limit traits put back when a page
    changes them.
    """

    kind: str
    traits: dict
    lo: float = -math.inf
    hi: float = math.inf
    integer: bool = False
    options: tuple = ()


#: Traits that carry a control's limits (put back when the page changes them).
_LIMIT_TRAITS = ("min", "max", "base", "_options_labels")


def _limits_of(w):
    """The limits control ``w`` declares now."""
    traits = {t: getattr(w, t) for t in _LIMIT_TRAITS if w.has_trait(t)}
    if isinstance(w, widgets.SelectMultiple):
        return _Limits("multi", traits, options=tuple(w._options_values))
    if hasattr(w, "_options_values"):
        return _Limits("options", traits, options=tuple(w._options_values))
    if isinstance(w, widgets.FloatLogSlider):
        return _Limits("range", traits, lo=float(w.base) ** float(w.min),
                       hi=float(w.base) ** float(w.max))
    if "min" in traits and "max" in traits and _is_number(w.value):
        return _Limits("range", traits, lo=traits["min"], hi=traits["max"],
                       integer=isinstance(w.value, numbers.Integral))
    if isinstance(w.value, bool):
        return _Limits("bool", traits)
    return _Limits("free", traits)


def _member(value, options):
    try:
        return any(value == o and type(value) is type(o) or value is o for o in options)
    except Exception:  # noqa: BLE001 - an odd value is simply not a member
        return False


def _fmt(value, spec):
    """A readout value as the language in effect writes it (``spec``: a format specification
    for numbers, or a callable that writes the text itself)."""
    if value is None:
        return "–"
    if isinstance(value, float) and math.isnan(value):
        return "–"
    if isinstance(value, float) and math.isinf(value):
        return "∞"
    if callable(spec):
        return spec(value)
    if isinstance(value, str):
        return value
    try:
        return i18n.number(value, spec)
    except (TypeError, ValueError):
        return str(value)


def _label(label):
    """A readout label in the language in effect: a msgid, or ``(msgid, {field: value})``."""
    if isinstance(label, tuple):
        msgid, fields = label
        return _(msgid).format(**{k: i18n.number(v) if isinstance(v, float) else v
                                  for k, v in fields.items()})
    return _(label)


def num(value, spec=""):
    """A number as the language in effect writes it (:func:`kernelnb.lab.i18n.number`).

    Parameters
    ----------
    value : int or float
        The number.
    spec : str, default=""
        A format specification (``".3g"``, ``".1%"``).

    Returns
    -------
    str
        E.g. ``"0,5"`` in French, ``"0.5"`` in English.
    """
    return i18n.number(value, spec)


def _running_loop():
    """The asyncio loop running in this thread (a kernel's), or None (a script, a test)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _advance(steps, until, stop_at_partial=False):
    """Run ``steps`` until the clock ``until`` (``time.perf_counter``), its end or, with
    ``stop_at_partial``, its first partial result: ``(done, result, latest partial or None)``."""
    partial = None
    while True:
        try:
            out = next(steps)
        except StopIteration as stop:
            return True, stop.value, partial
        if out is not None:
            partial = out
            if stop_at_partial:
                return False, None, partial
        if time.perf_counter() >= until:
            return False, None, partial


class Dashboard:
    """Base class of the dashboards (see the module docstring).

    Building one builds its controls and figures, then draws the first picture with
    :meth:`update`.

    Parameters
    ----------
    lang : str or None, default=None
        The language it speaks (one of :data:`kernelnb.lab.i18n.LANGUAGES`). None: in a Voila
        kernel started for a page, the page's (its URL's ``lang``, else the request's
        ``Accept-Language``, else the server's default); elsewhere the process's default
        (:func:`kernelnb.lab.i18n.default_language`). A page may change it later
        (:meth:`set_language`).
    **params
        Initial control values by parameter name (see :attr:`controls`), passed to the first
        :meth:`update`; the other controls keep their default values.

    Attributes
    ----------
    lang : str
        The language it speaks now.
    widget : ipywidgets.Widget
        The whole dashboard, to ``display``.
    controls : dict
        Parameter name -> control widget; changing a control's value calls :meth:`update`.
    figures : list of plotly.graph_objects.FigureWidget
        The charts; ``figures[0]`` is the main one.
    error : ipywidgets.HTML
        Error messages (CSS class ``kernelnb-error``); empty when all is well.
    stats : ipywidgets.HTML
        The numbers readout (CSS class ``kernelnb-stats``).
    progress : ipywidgets.FloatProgress
        Shown while long work runs.
    last_stats : dict
        What the last successful :meth:`update` returned, or the numbers of the partial result
        drawn last while :attr:`pending` runs (with ``partial=True``).
    pending : asyncio.Task or None
        In a kernel, the task that finishes the update a control started (partial results,
        then the complete one); None when no work is left. Awaiting it waits for the
        complete result.
    """

    #: What the gallery shows and links (read from the source by :mod:`kernelnb.lab.app.gallery`,
    #: so literal values): the card's title and one line of purpose, the stem of the notebook in
    #: ``dashboards/`` that builds the dashboard (every dashboard class has one), the thumbnail
    #: in ``kernelnb/lab/static/`` (default ``<notebook>.png``) and the place of the card.
    title = "Dashboard"
    purpose = ""
    notebook = ""
    thumbnail = ""
    gallery_order = 1000
    #: Show ``title`` and ``purpose`` above the dashboard (the dashboard notebooks have their own
    #: markdown title, so off by default).
    header = False
    #: Rows of the readout: (key of the stats dict, label, format spec or callable).
    STATS: list = []
    #: The lessons the dashboard teaches (:class:`Lesson`), checked by the tests over the
    #: controls' ranges and several sample seeds; the first one is shown under the readout
    #: (another where ``_render`` returns it as ``stats['_lesson']``, e.g. a mode of its own).
    LESSONS: tuple = ()
    #: Seconds of work one update may take where the work is long (see :meth:`check_time`); a
    #: class attribute, changed per instance by tests or a teacher's notebook.
    time_budget_s: float = 25.0
    #: Seconds between two drawings of partial results (``_steps``), in a kernel.
    partial_every_s: float = 0.4
    #: Seconds of steps the update itself runs, in a kernel, before it draws what it has and
    #: leaves the rest to :attr:`pending` (a partial result drawn ends it sooner).
    first_slice_s: float = 0.3
    #: Seconds of steps between two pauses of the task that finishes an update in a kernel.
    slice_s: float = 0.05
    #: The pause itself: a timer rather than ``asyncio.sleep(0)``, which is not always enough
    #: for ipykernel to read its shell socket (measured with ipykernel 7.4, a chain of 0.3 s
    #: steps with ``sleep(0)`` between them: a control moved meanwhile was handled only after
    #: the chain's end; with 1 ms pauses, after the step under way).
    PAUSE_S = 0.002
    #: Constructor arguments of the dashboard its lessons are checked on, by the tests and the
    #: book (a coarser chart grid, fewer repeats: the lessons are about the numbers, not the
    #: picture); see :func:`kernelnb.lab.app._lessons.lesson_app`.
    LESSON_APP: dict = {}
    #: The task the dashboard sets and checks (:class:`kernelnb.lab.app._challenge.Challenge`);
    #: None: the one :mod:`kernelnb.lab.app._challenges` writes for this class, if any.
    CHALLENGE = None

    @classmethod
    def challenge(cls):
        """The dashboard's challenge, or None.

        Returns
        -------
        kernelnb.lab.app._challenge.Challenge or None
        """
        if cls.CHALLENGE is not None:
            return cls.CHALLENGE
        from ._challenges import CHALLENGES
        return CHALLENGES.get(cls.__name__)

    def _challenge_widgets(self):
        """The challenge's panel, made once (an additive part of the layout)."""
        found = type(self).challenge()
        self.challenge_panel = _challenge.ChallengePanel(found) if found is not None else None
        return (self.challenge_panel.widget,) if self.challenge_panel is not None else ()

    def _challenge_after(self, values, stats):
        panel = getattr(self, "challenge_panel", None)
        if panel is not None:
            panel.after_update(stats, values)

    def _challenge_from_query(self, query):
        """The query without its challenge key; ``challenge=done`` marks the challenge done."""
        query, done = _challenge.split_query(query)
        panel = getattr(self, "challenge_panel", None)
        if done and panel is not None:
            panel.done = True
            with self.speaking():
                panel.draw()
        return query

    @classmethod
    def all_lessons(cls):
        """Every lesson the dashboard teaches: :attr:`LESSONS`, then those of its modes.

        Returns
        -------
        tuple of Lesson
        """
        return tuple(cls.LESSONS)

    def lesson_stats(self, params):
        """The numbers a lesson is checked on at the setting ``params`` (every control's value).

        The default is :meth:`update`'s return value; a dashboard whose lesson reads the
        numbers of an action (a replay) runs it here when the setting is inside the regime.

        Parameters
        ----------
        params : dict
            Control values.

        Returns
        -------
        dict
            With ``regime`` (the notes, empty inside the lessons' regime).
        """
        return self.update(raise_errors=True, **params)

    def lesson_done(self, params):
        """Put the dashboard back at ``params`` after a lesson's sweep.

        Parameters
        ----------
        params : dict
            The control values it had before the sweep.
        """
        self.update(**params)

    def __init__(self, lang=None, **params):
        if lang is None:
            lang = _urlstate.initial_language()
        elif i18n.supported(lang) != lang:
            raise ValueError(f"lang must be one of {', '.join(map(repr, i18n.LANGUAGES))}, "
                             f"got lang={lang!r}")
        #: The language the widgets and figures speak now (they are built in English).
        self.lang = i18n.SOURCE_LANGUAGE
        self._labels = None
        self.error = widgets.HTML(value="")
        self.error.add_class(ERROR_CLASS)
        self.stats = widgets.HTML(value="")
        self.stats.add_class(STATS_CLASS)
        self.progress = widgets.FloatProgress(
            value=0.0, min=0.0, max=1.0, description="", bar_style="info",
            layout=widgets.Layout(width="300px", visibility="hidden"))
        self.status = widgets.HTML(value="")
        self.controls: dict = {}
        self.figures: list = []
        self.last_stats: dict = {}
        self.last_error: str = ""
        self._hold = 0
        self._limits: dict = {}
        self._accepted: dict = {}
        self._changing: set = set()
        self._deadline = math.inf
        self.pending = None
        self._steps_open = None
        with i18n.language(i18n.SOURCE_LANGUAGE):     # built in English: the msgids
            self._build()
            for name, w in self.controls.items():
                w.observe(self._on_control, names="value")
            self._declare_limits()
            #: Every control's value as built: the settings a URL leaves out (:attr:`defaults`).
            self.defaults = self.params()
            self.url = _urlstate.UrlState(controls=list(self.controls),
                                          enabled=_urlstate.in_voila())
            self.widget = self._layout()
            self._accessible_layout()
        self.widget.children = (*self.widget.children, *self._challenge_widgets(), self.url)
        self.set_language(lang, redraw=False)
        query = _urlstate.initial_query()
        with self.speaking():
            if query:   # a Voila kernel started for a page's request: its URL's setting first
                self.apply_query(query, initial=params)
            else:
                self.update(**params)  # the first picture, with the initial parameters given
        self.url.observe(lambda change: self.apply_query(change["new"]), names="page_query")
        self.url.observe(lambda change: self._restore_page_clicks(change["new"]),
                         names="page_clicks")

    def _build(self):
        """Create ``self.controls`` and ``self.figures``."""
        raise NotImplementedError

    def _compute(self, params):
        """Do the work for ``params`` (a dict of every control's value); return a result."""
        raise NotImplementedError

    def _steps(self, params):
        """The work for ``params`` as a generator (see the module docstring): it yields ``None``
        where the work may pause or a partial result to draw, and returns the complete result.
        The default runs :meth:`_compute` in one step."""
        return self._compute(params)
        yield  # noqa: B901 - unreachable: it makes this method a generator

    def _render(self, result):
        """Apply ``result`` to the figures (inside ``batch_update``); return the stats dict."""
        raise NotImplementedError

    def _adjust(self, params, given):
        """Hook: change dependent parameters (e.g. reset noise when the data set changes).

        ``given`` holds the parameters passed explicitly (or the control that changed); the
        return value is the parameter dict used. The default returns ``params``.
        """
        return params

    def regime(self, params, stats):
        """Plain-words notes on why the setting ``params`` leaves the regime the lessons speak of
        (too few labels for the cut-off, a width that isolates every point, ...), given the
        numbers ``stats`` the update computed; an empty list inside the regime.

        The notes are shown in the readout and returned by :meth:`update` as ``stats['regime']``;
        the lesson tests leave out the settings that have notes. The default has none.
        """
        return []

    def _control_rows(self):
        """Widgets of the left column, in order (default: every control)."""
        return list(self.controls.values())

    def _layout(self):
        head = widgets.HTML(_CSS + (
            f'<div class="kernelnb-title"><h2>{html.escape(self.title)}</h2>'
            f"<p>{html.escape(self.purpose)}</p></div>" if self.header else ""))
        left = widgets.VBox(self._control_rows() + [self.progress, self.status],
                            layout=widgets.Layout(width="320px", min_width="320px"))
        right = widgets.VBox([*self.figures, self.stats],
                             layout=widgets.Layout(flex="1 1 auto", min_width="0"))
        return widgets.VBox([head, self.error, widgets.HBox([left, right])])

    def _accessible_layout(self):
        """Add to the layout what a screen reader and the keyboard need (:mod:`._a11y`): each
        chart marked for its name and description, the status line, the table view, and, where a
        click on the chart does something, the coordinates to type and a button that does it."""
        self._a11y_key = _a11y.next_key()
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
        for i, fig in enumerate(self._charts()):
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
        then, for every chart, its axes and what it draws (each named trace and its size). A
        dashboard adds what only its chart says by overriding this method.

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
            name = _a11y.figure_name(fig, fallback=f"{_(self.title)} ({i + 1})")
            parts = [self._readout_sentence(stats)] if i == 0 else []
            parts.append(_a11y.figure_summary(fig))
            described.append((name, _a11y.sentence(parts)))
        return described

    def _control_phrase(self, name):
        """'C = 3.16', 'kernel = linear', 'show f = ±1 lines: off': a control and its value."""
        w = self.controls[name]
        label = getattr(w, "description", "") or name
        value = w.value
        if isinstance(value, bool):
            return f"{label}: {_('on') if value else _('off')}"
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
        self.chart_texts.value = _a11y.charts_html(self._a11y_key, described)
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
                names += [_a11y.figure_name(f) for f in charts[len(names):]]
                self.table_view.value = _a11y.table_html(charts, names)
        elif self.table_view.value:
            self.table_view.value = ""

    def _repr_mimebundle_(self, **kwargs):
        """Display the dashboard (``display(app)`` or an ``app`` last in a cell)."""
        self.sync_figures()
        return self.widget._repr_mimebundle_(**kwargs)

    def speaking(self):
        """A context in which texts are written in the dashboard's language.

        Returns
        -------
        contextlib.AbstractContextManager
            Inside it, ``_()`` and numbers are in :attr:`lang`.
        """
        return i18n.language(self.lang)

    def set_language(self, lang, redraw=True):
        """Speak ``lang``: re-label every widget and chart, then redraw.

        The texts the dashboard was built with (control labels and tooltips, option labels,
        buttons, headings, the charts' titles, axes, legends and hover labels) are translated
        from their English msgids (:mod:`kernelnb.lab.app._relabel`), the charts' decimal mark
        follows, and the update that follows writes the readout, the lesson, the regime notes
        and the charts' titles in ``lang``. The controls' values (what a URL names) do not
        change. A kernel preheated in English does this when a French page takes it.

        Parameters
        ----------
        lang : str
            One of :data:`kernelnb.lab.i18n.LANGUAGES`.
        redraw : bool, default=True
            Run :meth:`update` after a change of language (False: the caller updates).

        Returns
        -------
        bool
            Whether the language changed.
        """
        if i18n.supported(lang) != lang:
            raise ValueError(f"lang must be one of {', '.join(map(repr, i18n.LANGUAGES))}, "
                             f"got lang={lang!r}")
        changed = lang != self.lang
        if changed:
            if self._labels is None:
                self._labels = Labels(skip=(self.stats, self.error, self.status, self.status_line,
                                            self.chart_texts, self.table_view))
            attributes = self._widget_attributes()
            roots = [self.widget, *self.controls.values(), *attributes]
            self._labels.widgets(roots, self.lang, lang, changing=self._changing_options)
            figures = {id(f): f for f in [*self.figures, *(a for a in attributes
                                                           if isinstance(a, BaseFigure))]}
            for fig in figures.values():
                with fig.batch_update():
                    self._labels.figure(fig, self.lang, lang)
            self.lang = lang
        if hasattr(self, "url"):
            self.url.lang = lang
        if changed and redraw:
            self.update()
        return changed

    def _widget_attributes(self):
        """The widgets and figures held in the dashboard's attributes (also those not shown now:
        a mode's controls swapped out of the layout)."""
        found = []
        for value in vars(self).values():
            items = (value.values() if isinstance(value, dict)
                     else value if isinstance(value, (list, tuple)) else (value,))
            found.extend(v for v in items if isinstance(v, (widgets.Widget, BaseFigure)))
        return found

    def _changing_options(self, w):
        names = [name for name, c in self.controls.items() if c is w]
        return self.changing_limits(*names) if names else contextlib.nullcontext()

    def params(self):
        """Current value of every control, as a dict."""
        return {name: w.value for name, w in self.controls.items()}

    @contextlib.contextmanager
    def hold(self):
        """Change controls without triggering updates."""
        self._hold += 1
        try:
            yield
        finally:
            self._hold -= 1

    def _set_controls(self, values):
        """Show ``values`` in the controls (those a control can hold; others stay as they are)."""
        with self.hold():
            for name, value in values.items():
                w = self.controls.get(name)
                if w is None or w.value == value:
                    continue
                old = w.value
                try:
                    w.value = value
                except Exception:  # noqa: BLE001 - a value the widget refuses is still computed
                    continue
                if not _same(w.value, value):  # clamped (out of range): keep the old value shown
                    w.value = old

    def _declare_limits(self, *names):
        """Record the limits the controls ``names`` (default: all) hold now as their declared ones.

        Called once when the dashboard is built; a dashboard that changes a control's limits
        from Python does it inside :meth:`changing_limits`, which calls this at the end.
        """
        for name in names or tuple(self.controls):
            w = self.controls[name]
            first = name not in self._limits
            self._limits[name] = _limits_of(w)
            self._accepted[name] = w.value
            if first:
                traits = [t for t in _LIMIT_TRAITS if w.has_trait(t)]
                if traits:
                    w.observe(lambda change, name=name: self._on_limit_change(name, change),
                              names=traits)

    @contextlib.contextmanager
    def changing_limits(self, *names):
        """Change the limits or options of the controls ``names`` from Python (e.g. a data set's
        noise range): the changes are kept and become the declared limits; no update runs."""
        before = set(self._changing)
        self._changing.update(names)
        try:
            with self.hold():
                yield
        finally:
            self._changing = before
            self._declare_limits(*names)

    def _on_limit_change(self, name, change):
        """A limit trait of a control changed: unless the dashboard did it, put it back."""
        if name in self._changing or name not in self._limits:
            return
        declared = self._limits[name].traits.get(change["name"])
        if declared is not None and change["new"] != declared:
            self._restore_limits(name)

    def _restore_limits(self, *names):
        """Put back the declared limit traits of ``names`` (default: all) where they differ."""
        for name in names or tuple(self._limits):
            if name in self._changing:
                continue
            w, lim = self.controls[name], self._limits[name]
            wrong = {t: v for t, v in lim.traits.items() if getattr(w, t) != v}
            if not wrong:
                continue
            with self.hold():
                # widen first so that no intermediate state is refused (min > max)
                for t in ("base", "_options_labels"):
                    if t in wrong:
                        w.set_trait(t, wrong[t])
                if "min" in wrong and wrong["min"] > w.max:
                    w.max = lim.traits["max"]
                for t in ("min", "max"):
                    if t in wrong and getattr(w, t) != wrong[t]:
                        setattr(w, t, wrong[t])
                if lim.kind == "options" and w.has_trait("index"):
                    w.set_trait("index", lim.options.index(w.value) if w.value in lim.options
                                else w.index if w.index is not None
                                and 0 <= w.index < len(lim.options) else 0)

    def _checked_controls(self, explicit=()):
        """Every control's value, checked against its declared limits.

        A number outside the limits is clamped and the control moved to it; a non-finite
        number, a value of the wrong type or outside the options raises ValueError (the control
        goes back to the last value accepted). Names in ``explicit`` (passed from Python) are
        not read.
        """
        self._restore_limits()
        values, refused = {}, []
        for name, w in self.controls.items():
            if name in explicit:
                continue
            v, lim = w.value, self._limits.get(name)
            ok = v
            if lim is None or lim.kind == "free":
                pass
            elif lim.kind == "range":
                if not _is_number(v) or not math.isfinite(v):
                    ok = None
                elif v < lim.lo or v > lim.hi:
                    ok = min(max(v, lim.lo), lim.hi)
                    ok = int(ok) if lim.integer else ok
                    with self.hold():
                        w.value = ok
            elif lim.kind == "options":
                ok = v if _member(v, lim.options) else None
            elif lim.kind == "multi":
                ok = v if isinstance(v, tuple) and all(_member(e, lim.options) for e in v) \
                    else None
            elif lim.kind == "bool":
                ok = v if isinstance(v, bool) else None
            if ok is None:
                shown = repr(v)
                refused.append(f"{name}={shown if len(shown) <= 60 else shown[:57] + '...'}")
                with self.hold():
                    try:
                        w.value = self._accepted[name]
                    except Exception:  # noqa: BLE001 - the last value may no longer fit
                        pass
                continue
            values[name] = ok
        if refused:
            raise ValueError(_("refused control value(s) outside what the controls allow: "
                               "{values}; nothing was recomputed").format(
                                   values=", ".join(refused)))
        return values

    def url_query(self):
        """The query string of the current setting (the values that differ from the defaults).

        Returns
        -------
        str
            E.g. ``"C=1000&sigma=0.2"``; empty at the defaults.
        """
        panel = getattr(self, "challenge_panel", None)
        return _challenge.with_state(_urlstate.query_string(self),
                                     panel is not None and panel.done)

    def apply_query(self, query, initial=None):
        """Move the controls to the setting a URL's query string asks for, and recompute.

        Each value is checked against the limits its control declared
        (:func:`kernelnb.lab.app._urlstate.parse_query`): the values that pass are applied; a
        value that does not, or a key that names no control, is refused, shown in the page with
        the reason, and its control keeps its value. Drop-downs, toggles and check boxes are
        applied first: they can change a slider's range (a data set's noise), and numbers are
        then checked against the ranges in place. The query's ``lang``, or else the page's
        languages (:func:`kernelnb.lab.app._urlstate.page_language`), set the dashboard's
        language first (:meth:`set_language`).

        Parameters
        ----------
        query : str
            The query string, e.g. ``"?C=1000&sigma=0.2&dataset=spirals"``.
        initial : dict or None
            Initial parameters to apply with the first update (when the dashboard is built);
            None when the dashboard has drawn already, and nothing is recomputed unless the
            query changes a value.

        Returns
        -------
        list of kernelnb.lab.app._urlstate.Refusal
            The refused values (empty when all passed).
        """
        query = self._challenge_from_query(query)
        languages = self.url.page_languages if hasattr(self, "url") else ()
        lang = _urlstate.page_language(query, languages) or self.lang
        switched = lang != self.lang
        self.set_language(lang, redraw=False)
        with self.speaking():
            return self._apply_query(query, initial, switched)

    def _apply_query(self, query, initial, redraw):
        updated = False
        params, refused = _urlstate.parse_query(self, query, check_ranges=False)
        choices = {k: v for k, v in params.items() if self._limits[k].kind != "range"}
        numbers = {k: v for k, v in params.items() if k not in choices}
        first = {k: v for k, v in choices.items() if not _same_value(self.controls[k].value, v)}
        if initial is not None or first:
            self.update(**{**(initial or {}), **first})
            updated = True
        second = {}
        for name, value in numbers.items():
            try:
                value = _urlstate.within(value, self._limits[name])
            except ValueError as exc:
                refused.append(_urlstate.Refusal(
                    name, _urlstate.query_text(query, name) or _urlstate.encode_value(value),
                    str(exc)))
                continue
            if not _same_value(self.controls[name].value, value):
                second[name] = value
        if second or (redraw and not updated):
            self.update(**second)
        if refused:
            self.show_error(
                _("the page's address asked for setting(s) that the controls cannot take, left "
                  "as they were: ") + "; ".join(map(str, refused)))
        if hasattr(self, "url"):
            self.url.query = self.url_query()
            self.url.revision += 1
        return refused

    #: Longest text of kept clicks a page may send back (characters).
    MAX_CLICKS_TEXT = 100_000

    def clicks_state(self):
        """What the student's clicks on the charts made, to keep across kernels.

        Returns
        -------
        list or None
            A JSON-ready list (points added, labels flipped, ...); None for a dashboard whose
            clicks make nothing to keep (the default).
        """
        return None

    def restore_clicks(self, state):
        """Redo what :meth:`clicks_state` returned (a page sends it back after a reload).

        Each entry is checked as a click is; entries that fail are left out.

        Parameters
        ----------
        state : list
            What :meth:`clicks_state` returned.

        Returns
        -------
        int
            How many entries were restored (the default restores none).
        """
        return 0

    def _sync_clicks(self):
        if hasattr(self, "url"):
            state = self.clicks_state()
            self.url.clicks = json.dumps(state, separators=(",", ":")) if state else ""

    @speaks
    def _restore_page_clicks(self, text):
        """The clicks a page kept (JSON text from the browser), checked and redone."""
        if not text:
            return
        try:
            if len(text) > self.MAX_CLICKS_TEXT:
                raise ValueError(_("longer than {n} characters").format(n=self.MAX_CLICKS_TEXT))
            state = json.loads(text)
            if not isinstance(state, list):
                raise ValueError(_("not a list"))
            self.restore_clicks(state)
        except Exception as exc:  # noqa: BLE001 - a page's storage can hold anything
            self.show_error(_("the clicks kept by this page could not be restored ({why})")
                            .format(why=f"{type(exc).__name__}: {str(exc)[:120]}"))

    @speaks
    def memory_message(self, params, exc):
        """The sentence shown when a setting needs more memory than the kernel may use.

        Parameters
        ----------
        params : dict
            The setting (control values) of the update that failed.
        exc : MemoryError
            What was raised (numpy names the array it could not allocate).

        Returns
        -------
        str
        """
        from .._memory import kernel_memory_limit_mb
        limit = kernel_memory_limit_mb()
        changed = _urlstate.query_string(self, {k: v for k, v in params.items()
                                               if k in self.controls}).replace("&", ", ")
        where = f" ({changed})" if changed else ""
        cap = " ({n} MB)".format(n=num(limit, ".0f")) if limit else ""
        return (_("this setting{where} needs more memory than a dashboard may use{cap}, so "
                  "nothing was computed: choose fewer points or a smaller grid.").format(
                      where=where, cap=cap) + f" MemoryError: {str(exc)[:160]}")

    def time_left(self):
        """Seconds left of this update's time budget (:attr:`time_budget_s`)."""
        return self._deadline - time.monotonic()

    def check_time(self, what=None):
        """Raise :class:`TimeBudgetExceeded` when the update has used its time budget.

        Parameters
        ----------
        what : str or None
            The work that stops, in the language in effect (None: "this update").
        """
        if self.time_left() <= 0:
            raise TimeBudgetExceeded(self.budget_message(_("this update") if what is None
                                                         else what))

    @speaks
    def budget_message(self, what=None):
        """The sentence shown when work stops at the time budget.

        Parameters
        ----------
        what : str or None
            The work that stopped, in the language in effect (None: "the work").

        Returns
        -------
        str
        """
        return _("stopped {what} at the time budget of {seconds} s per update, so that the "
                 "page keeps answering: choose fewer points, sizes, repeats or estimators").format(
                     what=_("the work") if what is None else what,
                     seconds=num(self.time_budget_s, "g"))

    #: What a click on a chart does, for dashboards whose traces call ``_on_click``: the name of
    #: a method taking the clicked (x, y) (it checks them, :func:`kernelnb.lab.app._toys.click_problem`).
    click_action = None
    #: The label of the button that does the click's action at the coordinates typed beside it
    #: (the keyboard's way to what a click on the chart does; WCAG 2.1.1 and 2.5.7).
    click_label = N_("do it at (x₁, x₂)")

    @speaks
    def _on_click(self, trace, points, selector):
        """Plotly click callback: the first clicked point's coordinates to ``click_action``."""
        xs, ys = list(getattr(points, "xs", []) or []), list(getattr(points, "ys", []) or [])
        if xs and ys and self.click_action is not None:
            getattr(self, self.click_action)(xs[0], ys[0])

    def _on_control(self, change):
        if self._hold:
            return
        name = next((k for k, w in self.controls.items() if w is change["owner"]), None)
        self.update(_changed=name, _progressive=True)

    def report_progress(self, fraction, text=""):
        """Move the progress bar (``fraction`` in [0, 1]) and show ``text`` under it."""
        self.progress.layout.visibility = "visible"
        self.progress.value = min(max(float(fraction), 0.0), 1.0)
        self.status.value = f"<small>{html.escape(text)}</small>" if text else ""

    @contextlib.contextmanager
    def busy(self, text=None):
        """Show the progress bar during long work; hide it afterwards.

        Parameters
        ----------
        text : str or None
            What is being done, in the language in effect (None: "working…").
        """
        self.report_progress(0.0, _("working…") if text is None else text)
        try:
            yield
        finally:
            self.progress.value = 1.0
            self.progress.layout.visibility = "hidden"
            self.status.value = ""

    def show_error(self, message):
        """Show ``message`` in the error widget (an empty message clears it)."""
        self.last_error = message
        self.error.value = (f'<div class="kernelnb-errbox">⚠ {html.escape(message)}</div>'
                            if message else "")

    def _format_stats(self, stats):
        rows = []
        for key, label, spec in self.STATS:
            if key in stats:
                rows.append(f"<tr><td>{html.escape(_label(label))}</td>"
                            f'<td class="num">{html.escape(_fmt(stats[key], spec))}</td></tr>')
        extra = stats.get("_html", "")
        notes = "".join(f'<div class="kernelnb-regime">{html.escape(n)}</div>'
                        for n in stats.get("regime", ()))
        lesson = stats.get("_lesson") or (self.LESSONS[0] if self.LESSONS else None)
        lesson = lesson.html() if lesson is not None else ""
        details = stats.get("_details", "")
        if details:
            summary = html.escape(_("details"))
            details = f"<details><summary>{summary}</summary>{details}</details>"
        return (f'{notes}<table class="kernelnb-readout">{"".join(rows)}</table>'
                f"{extra}{details}{lesson}")

    @speaks
    def update(self, raise_errors=False, _changed=None, _progressive=False, **params):
        """Recompute and redraw for the given parameters (others keep their control's value).

        Parameters
        ----------
        raise_errors : bool, default=False
            Re-raise an exception after showing it (for tests); by default it is only shown.
        **params
            Control values by parameter name (see :attr:`controls`); the controls are moved
            to them where they can hold them.

        Returns
        -------
        dict
            The numbers shown in the readout, or ``{'error': message}`` when the update failed.
            Called from Python the update is complete when it returns; moved by a control in a
            kernel, a dashboard that draws partial results returns those of the first one
            (``partial=True``) and finishes in :attr:`pending`.
        """
        self.stop_pending()
        unknown = sorted(set(params) - set(self.controls))
        values = None
        try:
            if unknown:
                raise ValueError(_("unknown parameter(s) {unknown} for {name}; valid: {valid}")
                                 .format(unknown=unknown, name=type(self).__name__,
                                         valid=sorted(self.controls)))
            given = set(params) | ({_changed} if _changed else set())
            values = {**self._checked_controls(explicit=params), **params}
            self._accepted.update({k: v for k, v in values.items() if k not in params})
            self._deadline = time.monotonic() + float(self.time_budget_s)
            values = self._adjust(values, given)
            self._set_controls(values)
            t0 = time.perf_counter()
            steps = self._steps(values)
            loop = _running_loop() if _progressive else None
            if loop is None:
                # Dashboards solve small problems: a multi-threaded BLAS pool costs more than it
                # gives (its threads' synchronisation outweighs a small product's arithmetic);
                # kernelnb's Cython cores use their own OpenMP threads anyway.
                with blas_single_thread(), config_context(keep_partial_on_interrupt=True):
                    result = run_to_end(steps)
                return self._draw(result, values, t0)
            return self._start_steps(loop, steps, values, t0)
        except Exception as exc:  # noqa: BLE001 - every error is shown, the dashboard lives on
            msg = self._failed(exc, values if values is not None else params)
            if raise_errors:
                raise
            return {"error": msg}

    def _failed(self, exc, values):
        """Show the error ``exc`` of an update of ``values`` (the figures keep their state);
        returns the message."""
        self._deadline = math.inf
        msg = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if isinstance(exc, MemoryError):
            msg = self.memory_message(values, exc)
        elif not isinstance(exc, (ValueError, TypeError, FileNotFoundError,
                                  TimeBudgetExceeded)):
            tb = traceback.extract_tb(exc.__traceback__)
            if tb:
                where = tb[-1].filename.rsplit("/", 1)[-1]
                msg += f" (in {tb[-1].name}, {where}:{tb[-1].lineno})"
        self.show_error(msg)
        return msg

    def _draw(self, result, values, t0, partial=False):
        """Draw ``result`` (inside every figure's ``batch_update``) and the readout; returns the
        stats. A complete result also gets its regime notes, the synced figure state, the
        page's address and :attr:`last_stats`."""
        with contextlib.ExitStack() as stack:
            for fig in self.figures:
                stack.enter_context(fig.batch_update())
            stats = self._render(result)
        stats["update_ms"] = 1e3 * (time.perf_counter() - t0)
        stats["regime"] = () if partial else tuple(self.regime(values, stats))
        if partial:
            stats["partial"] = True
        # a warning of work that stopped short (e.g. at the time budget) stays on show
        self.show_error(stats.pop("_warning", "") or "")
        self.stats.value = self._format_stats(stats)
        self.last_stats = stats
        if partial:
            self._announce_partial(values)
        else:
            self._challenge_after(values, stats)
            self._announce(values, stats)
            self.sync_figures()
            if hasattr(self, "url"):       # the page's address follows the setting
                self.url.query = self.url_query()
                self._sync_clicks()
            self._deadline = math.inf
        return stats

    def _start_steps(self, loop, steps, values, t0):
        """In a kernel: run ``steps`` for :attr:`first_slice_s` (or to their first partial
        result), draw what there is, and leave the rest to a task (:attr:`pending`)."""
        with blas_single_thread(), config_context(keep_partial_on_interrupt=True):
            done, result, partial = _advance(steps, time.perf_counter() + self.first_slice_s,
                                             stop_at_partial=True)
        if done:
            return self._draw(result, values, t0)
        try:
            stats = (self._draw(partial, values, t0, partial=True) if partial is not None
                     else {"partial": True})
        except BaseException:
            steps.close()
            raise
        self._steps_open = steps
        self.pending = loop.create_task(self._finish_steps(steps, values, t0))
        return stats

    async def _finish_steps(self, steps, values, t0):
        """The rest of a stepwise update: slices of steps with pauses between them (the kernel
        reads its messages there), the latest partial result drawn every
        :attr:`partial_every_s`, then the complete result."""
        drawn = time.perf_counter()
        latest = None
        try:
            while True:
                await asyncio.sleep(self.PAUSE_S)
                with self.speaking(), blas_single_thread(), \
                        config_context(keep_partial_on_interrupt=True):
                    done, result, partial = _advance(steps, time.perf_counter() + self.slice_s)
                    if done:
                        self._steps_open = None
                        self._draw(result, values, t0)
                        return
                    latest = partial if partial is not None else latest
                    if latest is not None and time.perf_counter() - drawn >= self.partial_every_s:
                        self._draw(latest, values, t0, partial=True)
                        drawn, latest = time.perf_counter(), None
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - shown as an update's error would be
            self._steps_open = None
            steps.close()
            with self.speaking():
                self._failed(exc, values)
        finally:
            if self.pending is asyncio.current_task():
                self.pending = None

    def stop_pending(self):
        """Stop the unfinished work of the last update (:attr:`pending`), if any: its steps
        are closed (their progress bar hidden) and nothing more of it is drawn.

        Returns
        -------
        bool
            Whether there was unfinished work.
        """
        task, steps = self.pending, self._steps_open
        self.pending = self._steps_open = None
        if task is not None and not task.done():
            task.cancel()
        if steps is not None:
            steps.close()
        self._deadline = math.inf
        return steps is not None

    def sync_figures(self):
        """Copy each figure's Python-side state into its synced widget state.

        A ``FigureWidget`` sends edits as restyle/relayout messages to the views that exist, but
        refreshes the state a *new* view starts from (``_widget_data``/``_widget_layout``) only
        when it is displayed by itself (plotly's ``_repr_mimebundle_``). Inside a ``VBox`` that
        never happens, so a view created later (Voila renders after the notebook has run; a
        re-rendered output in JupyterLab) would start from the figure as first built. Assigning
        the traits after every update keeps them current (numeric 1-D arrays go out as binary).
        """
        for fig in self.figures:
            fig._widget_layout = copy.deepcopy(fig._layout_obj._props)
            fig._widget_data = copy.deepcopy(fig._data)
