"""A challenge in every dashboard: a task the dashboard sets and checks in its kernel.

A :class:`Challenge` is declarative: the task and a hint (msgids, translated in the dashboard's
language), ``reached(stats, params)``, judged on the numbers of every complete :meth:`update`
and the control values it used (so the dashboard's own computation decides, never the page),
and a ``solution``: control values that reach it, which the tests apply through ``update()``.
The challenges of the gallery's dashboards are written in :mod:`kernelnb.lab.app._challenges`,
one per dashboard class; a dashboard may set its own ``CHALLENGE`` class attribute instead.

The panel (:class:`ChallengePanel`, CSS class ``kernelnb-challenge``) shows the task, the hint
folded in a native ``<details>`` (keyboard-operable) and the state in a polite live region: "not
yet", then "done". Completion lives in the page's address like the settings: once reached, the
dashboard's query gets ``challenge=done`` (:data:`KEY`), so a reload, a bookmark or a new kernel
shows it done; a page opened with ``challenge=done`` starts done.
"""
from __future__ import annotations

import dataclasses
import html
import typing
from urllib.parse import parse_qsl, quote, urlencode

import ipywidgets as widgets

from ..i18n import N_, _

__all__ = ["KEY", "DONE", "Challenge", "ChallengePanel", "split_query", "with_state"]

#: The page address's key of the challenge's state, and its value once reached.
KEY = "challenge"
DONE = "done"

_CSS = """<style>
.kernelnb-challenge .kernelnb-chbox {margin:8px 0;padding:6px 10px;border:1px solid #9ab;
  border-radius:4px;font-family:sans-serif;font-size:13px;background:#f4f8fb;}
.kernelnb-challenge .kernelnb-chdone {color:#1e6b34;font-weight:bold;}
.kernelnb-challenge .kernelnb-chtodo {color:#5a4a00;}
</style>"""


@dataclasses.dataclass(frozen=True)
class Challenge:
    """A task a dashboard sets (see the module docstring).

    Parameters
    ----------
    task : str
        What to reach, a msgid (marked with ``N_``).
    hint : str
        How to get there, without the values, a msgid.
    reached : callable
        ``reached(stats, params) -> bool`` on a complete update's numbers and control values.
    solution : dict
        Control values that reach it (applied in one ``update()`` by the tests).
    """

    task: str
    hint: str
    reached: typing.Callable[[dict, dict], bool]
    solution: typing.Mapping[str, object]

    def judge(self, stats, params):
        """Whether the challenge is reached at this update (an error counts as not)."""
        try:
            return bool(self.reached(stats, params))
        except Exception:  # noqa: BLE001 - a missing number (a mode without it) is "not yet"
            return False


def split_query(query):
    """``(query without the challenge key, whether it said done)``.

    Parameters
    ----------
    query : str
        A page's query string, with or without its ``?``.

    Returns
    -------
    tuple of (str, bool)
    """
    if not isinstance(query, str):
        return query, False
    lead = "?" if query.startswith("?") else ""
    pairs = parse_qsl(query[len(lead):], keep_blank_values=True)
    done = any(k == KEY and v == DONE for k, v in pairs)
    rest = [(k, v) for k, v in pairs if k != KEY]
    return lead + urlencode(rest, quote_via=quote, safe=","), done


def with_state(query, done):
    """``query`` (a dashboard's settings) with ``challenge=done`` added when ``done``."""
    if not done:
        return query
    return f"{query}&{KEY}={DONE}" if query else f"{KEY}={DONE}"


class ChallengePanel:
    """The challenge's panel in a dashboard and its state."""

    TITLE = N_("Challenge")
    HINT = N_("Hint")
    DONE_TEXT = N_("✓ Done: you reached it.")
    TODO_TEXT = N_("Not yet: the dashboard checks it after every change.")

    def __init__(self, challenge):
        self.challenge = challenge
        self.done = False
        self.widget = widgets.HTML(value="")
        self.widget.add_class("kernelnb-challenge")

    def after_update(self, stats, params):
        """Judge a complete update; once reached it stays done. Redraws the panel."""
        if self.challenge.judge(stats, params):
            self.done = True
        self.draw()
        return self.done

    def draw(self):
        """Write the panel in the language in effect."""
        ch = self.challenge
        state = (f'<span class="kernelnb-chdone">{html.escape(_(self.DONE_TEXT))}</span>'
                 if self.done else
                 f'<span class="kernelnb-chtodo">{html.escape(_(self.TODO_TEXT))}</span>')
        self.widget.value = (
            f'{_CSS}<div class="kernelnb-chbox" role="region" '
            f'aria-label="{html.escape(_(self.TITLE))}"><b>{html.escape(_(self.TITLE))}.</b> '
            f'{html.escape(_(ch.task))}<details><summary>{html.escape(_(self.HINT))}</summary>'
            f'{html.escape(_(ch.hint))}</details>'
            f'<div aria-live="polite" class="kernelnb-chstate">{state}</div></div>')
