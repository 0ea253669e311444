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
``_compute``: a generator of steps and partial results, drawn as they come in a kernel while the
kernel keeps answering (:mod:`kernelnb.lab.app._scheduler`, the mixin ``StepScheduler``).

Server-side limits. A page can send any widget state; the limits each control declares when the
dashboard is built are enforced in the kernel, and :meth:`update` re-checks every value a control
holds (:mod:`kernelnb.lab.app._limits`, the mixin ``ControlLimits``).

Accessibility. Each chart's name and description, the status line, the table view and the
keyboard's way to a click (:meth:`Dashboard.describe`, :meth:`Dashboard.click_at`) are written by
the mixin ``Accessible`` of :mod:`kernelnb.lab.app._a11y`.

Long work runs under a per-update time budget (:attr:`Dashboard.time_budget_s`), and under
``kernelnb.config_context(keep_partial_on_interrupt=True)``: an interrupted fit draws the model it
reached rather than losing it.

Languages. A dashboard speaks English or French (:mod:`kernelnb.lab.i18n`): every text it shows
is marked for gettext, ``_()`` where it is written at update time, ``N_()`` for class attributes
(``title``, ``purpose``, the readout labels of ``STATS``, the lessons), translated where shown.
Its widgets and figures are built in English and moved to its language by
:meth:`Dashboard.set_language` (:mod:`kernelnb.lab.i18n.relabel`); every update, click and
refusal then speaks that language, numbers included (``0,5`` in French).
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import html
import json
import math
import time
import traceback
import typing

import ipywidgets as widgets
from plotly.basedatatypes import BaseFigure

from ..._config import config_context
from ..._threads import dashboard_threads
from .. import i18n
from ..i18n import N_, _
from . import _challenge, _urlstate
from ..i18n.relabel import Labels
from ..viz._figure_widget import FigureWidget
# The mixins Dashboard is made of; the other names are imported from here too (by the dashboards,
# the book's extension, the tests), as they were when they lived in this module.
from ._a11y import STATUS_CLASS, TABLE_CLASS, Accessible  # noqa: F401
from ._limits import _LIMIT_TRAITS, ControlLimits, _Limits, _limits_of, _member  # noqa: F401
from ._scheduler import StepScheduler, _advance, _running_loop, run_timed  # noqa: F401
from ._words import _fmt, _label, _same, _same_value, num, speaks  # noqa: F401

__all__ = ["Dashboard", "Lesson", "log_slider", "num", "speaks", "TimeBudgetExceeded"]

#: CSS classes the browser tests (``tests/browser/``) rely on (with ``STATUS_CLASS`` and
#: ``TABLE_CLASS`` of :mod:`kernelnb.lab.app._a11y`).
ERROR_CLASS = "kernelnb-error"
STATS_CLASS = "kernelnb-stats"
MAIN_SLIDER_CLASS = "kernelnb-main-slider"

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
.kernelnb-tableview h2 {font-family:sans-serif;font-size:14px;margin:8px 0 2px 0;}
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


class TimeBudgetExceeded(RuntimeError):
    """Raised by :meth:`Dashboard.check_time` when an update has used its time budget."""


def _memory_limit_mb():
    """This kernel's memory limit (``RLIMIT_DATA``, which ``kernelnb serve`` sets on each kernel:
    :mod:`kernelnb.lab.server._memory`), MB; None when it has none."""
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_DATA)
    except (ImportError, OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft / 2**20


class Dashboard(Accessible, ControlLimits, StepScheduler):
    """Base class of the dashboards (see the module docstring).

    Its control limits, partial results and accessibility come from its mixins,
    :class:`~kernelnb.lab.app._limits.ControlLimits`,
    :class:`~kernelnb.lab.app._scheduler.StepScheduler` and
    :class:`~kernelnb.lab.app._a11y.Accessible`. Building one builds its controls and figures,
    then draws the first picture with :meth:`update`.

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

    #: What the gallery shows and links (read from the source by :mod:`kernelnb.lab.server.gallery`,
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

    def moved_setting(self, name, value):
        """Why the setting ``name`` = ``value`` is refused when another dashboard has it now (an
        old notebook's or an old link's setting, from before a mode became a dashboard of its
        own); None for any other setting (the default, for every setting).

        :meth:`update` refuses such a setting with this reason, and a page's address
        (:meth:`apply_query`) too, instead of the plain "unknown parameter" or "not one of".

        Parameters
        ----------
        name : str
            The setting's name.
        value : object
            Its value (the text written in a page's address).

        Returns
        -------
        str or None
            The reason, naming the dashboard that has the setting now, in the language in effect.
        """
        return None

    def _moved_message(self, params):
        """The error of an update given moved settings (:meth:`moved_setting`), else ""."""
        reasons = {}
        for name, value in params.items():
            reason = self.moved_setting(name, value)
            if reason:
                reasons.setdefault(reason, []).append(f"{name}={value!r}")
        return "; ".join(f"{', '.join(names)}: {reason}" for reason, names in reasons.items())

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
        from their English msgids (:mod:`kernelnb.lab.i18n.relabel`), the charts' decimal mark
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
        limit = _memory_limit_mb()
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

    #: Seconds an update's work lasts before its progress bar shows, where the dashboard's
    #: previous update took less than that: a bar shown for a tenth of a second is not read,
    #: and each of its moves is a widget message that the page handles between two charts
    #: (in Chromium, a few milliseconds each: ten of them delayed the margin explorer's last
    #: charts by 40 ms). Where the previous update took longer, the bar shows at once.
    progress_after_s: float = 0.3
    #: Seconds the dashboard's last complete update took (infinite before one).
    _last_update_s: float = math.inf
    #: ``time.perf_counter()`` at the start of the update under way.
    _work_t0: float = -math.inf

    def report_progress(self, fraction, text=""):
        """Move the progress bar (``fraction`` in [0, 1]) and show ``text`` under it.

        Nothing is shown while the update under way has lasted less than
        :attr:`progress_after_s` where the previous one took less than that; the next report
        after that shows the bar.
        """
        if (self.progress.layout.visibility != "visible"
                and self._last_update_s < self.progress_after_s
                and time.perf_counter() - self._work_t0 < self.progress_after_s):
            return
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
            moved = self._moved_message(params)
            if moved:
                raise ValueError(moved)
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
            t0 = self._work_t0 = time.perf_counter()
            steps = self._steps(values)
            loop = _running_loop() if _progressive else None
            if loop is None:
                # Dashboards solve small problems: a second BLAS or OpenMP thread costs more than
                # it gives (its synchronisation outweighs a small problem's arithmetic, and the
                # browser drawing the charts holds a core); see dashboard_threads.
                with dashboard_threads(), config_context(keep_partial_on_interrupt=True):
                    result, tail = run_timed(steps)
                if tail is not None:
                    self._last_tail_s = tail
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

    def _draw(self, result, values, t0, partial=False, hold=()):
        """Draw ``result`` (inside every figure's ``batch_update``) and the readout; returns the
        stats. A complete result also gets its regime notes, the synced figure state, the
        page's address and :attr:`last_stats`. The figures in ``hold`` (a partial result's)
        are left as they are: their edits are dropped before the batch ends."""
        with contextlib.ExitStack() as stack:
            for fig in self.figures:
                stack.enter_context(fig.batch_update())
            stats = self._render(result)
            for fig in hold:
                fig._batch_trace_edits.clear()
                fig._batch_layout_edits.clear()
        stats["update_ms"] = 1e3 * (time.perf_counter() - t0)
        if not partial:
            self._last_update_s = stats["update_ms"] / 1e3
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

    def sync_figures(self):
        """Copy the Python-side state of each figure that is not kernelnb's ``FigureWidget``
        into its synced widget state.

        A ``FigureWidget`` sends edits as restyle/relayout messages to the views that exist, but
        refreshes the state a *new* view starts from (``_widget_data``/``_widget_layout``) only
        when it is displayed by itself (plotly's ``_repr_mimebundle_``). Inside a ``VBox`` that
        never happens, so a view created later (Voila renders after the notebook has run; a
        re-rendered output in JupyterLab) would start from the figure as first built.
        kernelnb's ``FigureWidget`` (:mod:`kernelnb.lab.viz._figure_widget`), which every
        dashboard of the package draws with, reads that state from the figure when a view asks
        for it, so nothing is sent here; a plotly ``FigureWidget`` of a dashboard of one's own
        gets its traits assigned, which sends its traces to the page a second time.
        """
        for fig in self.figures:
            if isinstance(fig, FigureWidget):
                continue
            fig._widget_layout = copy.deepcopy(fig._layout_obj._props)
            fig._widget_data = copy.deepcopy(fig._data)
