"""A dashboard's settings in its page's URL: a link opens it at a setting, and the URL follows it.

``…/voila/render/svm_playground.ipynb?C=1000&sigma=0.2&dataset=spirals`` opens the SVM playground
at those values. Each key is a control's name (:attr:`Dashboard.controls`), each value is checked
by the limits the control declared when the dashboard was built (the same limits that a slider
value sent by the page is checked against, :meth:`Dashboard._checked_controls`): a number inside
the slider's range, one of a drop-down's options, a boolean. A value that fails, or a key that
names no control, is *refused*: that control keeps its default and the page says which value was
refused and why (never a traceback); the other values are applied. An old link's setting that
another dashboard has now (:meth:`Dashboard.moved_setting`) is refused with a reason that names
that dashboard.

The URL is one mechanism for two uses: the links of the book and the course open a dashboard at a
setting, and the page keeps its own URL in step with its controls (with the browser's
``history.replaceState``), so that a reload, a bookmark or a new kernel after the old one stopped
opens the dashboard where the student left it. Only the values that differ from the defaults are
written, in the controls' order.

The page's side is :class:`UrlState`, an anywidget in the dashboard's layout: when it is drawn
it sends the page's query string to the kernel (``page_query``), and it writes the kernel's
``query`` into the address bar. What the student's clicks on a chart made (points added, labels
flipped: :meth:`Dashboard.clicks_state`) goes the same way into the browser's local storage, under
the dashboard's path, and back to a new kernel after the settings (``page_clicks``,
:meth:`Dashboard.restore_clicks`): a reload after the kernel was lost brings them back too. It acts only in a Voila page (``enabled``: a kernel Voila
started, preheated or not, has ``VOILA_PREHEAT`` in its environment); in JupyterLab it does
nothing. A kernel Voila starts for a request also finds the query in its environment
(``QUERY_STRING``), so the first picture is computed at the URL's setting directly
(:func:`initial_query`); a preheated kernel, which ran the dashboard before any request, applies it
when the page's widget sends it.

The page's language goes the same way (:func:`page_language`): the URL's ``lang`` first (a value
that names no language of the lab gives English, without an error), then the browser's
``Accept-Language`` (a kernel started for a request finds it in ``HTTP_ACCEPT_LANGUAGE``, which
``kernelnb serve`` asks Voila to pass, ``VoilaConfiguration.http_header_envs``; a preheated one
gets the browser's ``navigator.languages`` from the widget: ``page_languages``), then the
server's default (``KERNELNB_LANG``). The kernel tells the page which it chose (``lang``): the
page puts it on ``<html lang>`` and in ``window.kernelnbLang``, where the message of a page whose
kernel is gone (``kernelnb-watch.js``) finds it. The refusals are written in the page's language.
"""
from __future__ import annotations

import math
import os
from urllib.parse import parse_qsl, quote, urlencode

import anywidget
import traitlets

from .. import i18n
from ..i18n import _

__all__ = ["RESERVED_KEYS", "MAX_QUERY", "Refusal", "encode_value", "decode_value",
           "parse_query", "query_text", "query_string", "initial_query", "initial_language",
           "page_language", "UrlState"]

#: Keys of a dashboard's URL that are not controls and are left alone (Jupyter's token, the
#: language, Voila's own options).
RESERVED_KEYS = frozenset({"token", "lang", "voila-template", "voila-theme"})
#: Longest query string read (characters); a longer one is refused whole.
MAX_QUERY = 4096
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


class Refusal(tuple):
    """A refused URL value: ``(key, text, reason)``."""

    __slots__ = ()

    def __new__(cls, key, text, reason):
        return super().__new__(cls, (key, text, reason))

    def __str__(self):
        shown = self[1] if len(self[1]) <= 40 else self[1][:37] + "..."
        return f"{self[0]}={shown} ({self[2]})"


def encode_value(value):
    """The URL text of a control value (the inverse of :func:`decode_value`).

    Parameters
    ----------
    value : bool, int, float, str or tuple
        A control's value; a tuple (a multiple selection) is written comma-separated.

    Returns
    -------
    str
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return format(value, ".6g")
    if isinstance(value, (tuple, list)):
        return ",".join(encode_value(v) for v in value)
    return str(value)


#: Relative distance from a slider's end within which a URL number is read as that end: the URL
#: writes 6 significant digits (10**1.5 as 31.6228), which may fall just outside the range.
END_TOLERANCE = 1e-5


def within(value, limits):
    """``value`` checked against the range of ``limits``: a number a rounding away from an end
    (:data:`END_TOLERANCE`) is that end.

    Parameters
    ----------
    value : int or float
    limits : kernelnb.lab.app._base._Limits

    Returns
    -------
    int or float

    Raises
    ------
    ValueError
        When the number is outside the range.
    """
    lo, hi = limits.lo, limits.hi
    if lo <= value <= hi:
        return value
    for end in (lo, hi):
        if math.isfinite(end) and abs(value - end) <= END_TOLERANCE * max(abs(end), 1e-12):
            return int(end) if limits.integer else type(value)(end)
    raise ValueError(_("outside {lo} … {hi}").format(lo=i18n.number(lo, ".6g"),
                                                      hi=i18n.number(hi, ".6g")))


def _option(text, options):
    for option in options:
        if encode_value(option) == text:
            return option
    folded = [o for o in options if encode_value(o).lower() == text.lower()]
    if len(folded) == 1:
        return folded[0]
    raise ValueError(_("not one of {options}").format(
        options=", ".join(encode_value(o) for o in options)))


def _number(text):
    try:
        value = float(text)
    except ValueError:
        raise ValueError(_("not a number")) from None
    if not math.isfinite(value):
        raise ValueError(_("not a finite number"))
    return value


def decode_value(text, limits, check_range=True):
    """The control value that the URL text ``text`` stands for, checked against ``limits``.

    Parameters
    ----------
    text : str
        The value as written in the URL.
    limits : kernelnb.lab.app._base._Limits
        What the control declared (:meth:`Dashboard._declare_limits`).
    check_range : bool, default=True
        Check a number against the range (False: only its type, for a range that another
        control's value may still change).

    Returns
    -------
    object
        The value, of the control's type.

    Raises
    ------
    ValueError
        With the reason, in a few words, when the value is not one the control can hold.
    """
    kind = limits.kind
    if kind == "range":
        value = _number(text)
        if limits.integer:
            if not value.is_integer():
                raise ValueError(_("not a whole number"))
            value = int(value)
        if check_range:
            value = within(value, limits)
        return value
    if kind == "options":
        return _option(text, limits.options)
    if kind == "multi":
        parts = [p for p in text.split(",") if p]
        return tuple(_option(p, limits.options) for p in parts)
    if kind == "bool":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ValueError(_("not true or false"))
    raise ValueError(_("this control cannot be set from the URL"))


def parse_query(dashboard, query, check_ranges=True):
    """The control values a query string asks for, and the values refused.

    Parameters
    ----------
    dashboard : kernelnb.lab.app.Dashboard
        A built dashboard (its controls' declared limits are the checks).
    query : str
        The query string, with or without its leading ``?``.
    check_ranges : bool, default=True
        Check numbers against their sliders' ranges now (False: only their type; see
        :meth:`Dashboard.apply_query`, which checks them once the other values are applied).

    Returns
    -------
    params : dict
        Control name -> value, for every value that passed, in the controls' order.
    refused : list of Refusal
        The keys and values that did not, with the reason.
    """
    if not isinstance(query, str):
        return {}, [Refusal("query", repr(query)[:40], _("not a text"))]
    query = query[1:] if query.startswith("?") else query
    if len(query) > MAX_QUERY:
        return {}, [Refusal("query", query[:40],
                            _("longer than {n} characters").format(n=MAX_QUERY))]
    found, refused = {}, []
    for key, text in parse_qsl(query, keep_blank_values=True):
        if key in RESERVED_KEYS:
            continue
        moved = dashboard.moved_setting(key, text)
        if moved:               # a setting another dashboard has now: the reason names it
            refused.append(Refusal(key, text, moved))
            continue
        limits = dashboard._limits.get(key)
        if limits is None:
            refused.append(Refusal(key, text, _("no such setting; the settings are {names}")
                                   .format(names=", ".join(dashboard.controls))))
            continue
        try:
            found[key] = decode_value(text, limits, check_range=check_ranges)
        except ValueError as exc:
            refused.append(Refusal(key, text, str(exc)))
    params = {name: found[name] for name in dashboard.controls if name in found}
    return params, refused


def query_text(query, key):
    """The text of ``key`` in the query string ``query`` as written (its last value), else "".

    Parameters
    ----------
    query : str
    key : str

    Returns
    -------
    str
    """
    query = query[1:] if query.startswith("?") else query
    found = [v for k, v in parse_qsl(query[:MAX_QUERY], keep_blank_values=True) if k == key]
    return found[-1] if found else ""


def query_string(dashboard, values=None):
    """The query string of a setting: the values that differ from the dashboard's defaults.

    Parameters
    ----------
    dashboard : kernelnb.lab.app.Dashboard
        A built dashboard.
    values : dict or None
        Control values (default: the controls' current values).

    Returns
    -------
    str
        ``key=value`` pairs joined by ``&``, without a leading ``?``; empty at the defaults.
    """
    values = dashboard.params() if values is None else values
    pairs = []
    for name in dashboard.controls:
        if name not in values:
            continue
        value, default = values[name], dashboard.defaults.get(name)
        if encode_value(value) != encode_value(default):
            pairs.append((name, encode_value(value)))
    return urlencode(pairs, quote_via=quote, safe=",")


def in_voila():
    """Whether this kernel was started by Voila (for a page, or preheated for one)."""
    return "VOILA_PREHEAT" in os.environ


def initial_query():
    """The query string of the request a Voila kernel was started for, else "".

    A kernel that Voila starts for a request has it in ``QUERY_STRING``; a preheated one
    (``VOILA_PREHEAT=True``) was started before any request, and gets it from the page.

    Returns
    -------
    str
    """
    if os.environ.get("VOILA_PREHEAT") != "False":
        return ""
    return os.environ.get("QUERY_STRING", "")


def _started_for_a_request():
    return os.environ.get("VOILA_PREHEAT") == "False"


def page_language(query, page_languages=()):
    """The language a page asks for: its URL's ``lang``, else the browser's languages.

    Parameters
    ----------
    query : str
        The page's query string.
    page_languages : sequence of str
        The browser's ``navigator.languages`` (sent by the page's widget), used when the kernel
        was not started for the page's request (a preheated kernel) or that request's
        ``Accept-Language`` is not in its environment.

    Returns
    -------
    str or None
        One of :data:`kernelnb.lab.i18n.LANGUAGES`; None when nothing names a language (the
        dashboard keeps its own).
    """
    query = query if isinstance(query, str) else ""
    query = query[1:] if query.startswith("?") else query
    asked = [v for k, v in parse_qsl(query[:MAX_QUERY], keep_blank_values=True) if k == "lang"]
    if asked:
        return i18n.from_query(asked[-1])
    accept = os.environ.get("HTTP_ACCEPT_LANGUAGE") if _started_for_a_request() else None
    wanted = i18n.accept_language(accept) or i18n.accept_language(
        ",".join(str(v) for v in list(page_languages)[:64]))
    return wanted[0] if wanted else None


def initial_language():
    """The language of a dashboard built with no ``lang`` given.

    A kernel Voila started for a page's request: the page's (:func:`page_language` of its
    ``QUERY_STRING``), else the server's default; elsewhere (a preheated kernel, a notebook) the
    process's default (:func:`kernelnb.lab.i18n.default_language`).

    Returns
    -------
    str
    """
    if _started_for_a_request():
        return page_language(os.environ.get("QUERY_STRING", "")) or i18n.default_language()
    return i18n.default_language()


_ESM = r"""
// The page's URL with its query made of the keys that are not settings (the token, the
// language: \`keep\`) and the kernel's query; a key the kernel refused does not stay.
function merged(query, keep) {
  const url = new URL(window.location.href);
  const kept = new URLSearchParams();
  for (const [k, v] of url.searchParams) {
    if (keep.has(k)) kept.append(k, v);
  }
  for (const [k, v] of new URLSearchParams(query)) kept.append(k, v);
  const text = kept.toString().replace(/%2C/g, ",");
  url.search = text ? "?" + text : "";
  return url;
}
export default {
  render({ model, el }) {
    el.style.display = "none";
    if (!model.get("enabled")) return;
    const keep = new Set(model.get("keep"));
    const follow = () => {
      const url = merged(model.get("query"), keep);
      if (url.href !== window.location.href) {
        window.history.replaceState(window.history.state, "", url.href);
      }
    };
    model.on("change:query", follow);
    model.on("change:revision", follow);   // the kernel has read the page's query
    // The language the kernel speaks, for the page's <html lang> and its other scripts.
    const speak = () => {
      const lang = model.get("lang");
      if (lang) {
        document.documentElement.lang = lang;
        window.kernelnbLang = lang;
        // the notebook's Markdown (title, text) in every language the page holds: this one
        for (const cell of document.querySelectorAll(".kernelnb-md-cell")) {
          const parts = Array.from(cell.children).filter((c) => c.classList.contains("kernelnb-md"));
          const shown = parts.some((c) => c.lang === lang) ? lang : "en";
          for (const c of parts) c.hidden = c.lang !== shown;
        }
      }
    };
    model.on("change:lang", speak);
    speak();
    // The browser's languages first (what its Accept-Language says), then the query: the
    // kernel reads both when the query arrives.
    model.set("page_languages", Array.from(navigator.languages || [navigator.language || ""])
      .filter((l) => typeof l === "string" && l).slice(0, 16));
    model.save_changes();
    model.set("page_query", window.location.search || "?");
    model.save_changes();
    if (model.get("query")) follow();      // a kernel that read it from its request
    // What the student's clicks made (points added, labels flipped): kept in this browser for
    // this dashboard, and sent back to a new kernel after the settings.
    const key = "kernelnb:clicks:" + window.location.pathname;
    model.on("change:clicks", () => {
      const clicks = model.get("clicks");
      try {
        if (clicks) window.localStorage.setItem(key, clicks);
        else window.localStorage.removeItem(key);
      } catch (e) { /* storage refused (private mode): clicks are not kept */ }
    });
    let stored = null;
    try { stored = window.localStorage.getItem(key); } catch (e) { stored = null; }
    if (stored && !model.get("clicks")) {
      model.set("page_clicks", stored);
      model.save_changes();
    }
  },
};
"""


class UrlState(anywidget.AnyWidget):
    """The page's side of a dashboard's URL settings (see the module docstring).

    Parameters
    ----------
    controls : list of str
        The dashboard's control names (the keys the page replaces in its URL).
    enabled : bool
        Whether the page's URL is read and written (in a Voila page only).
    """

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    #: The kernel's query string (the settings that differ from the defaults), for the URL.
    query = traitlets.Unicode("").tag(sync=True)
    #: The page's query string when it was drawn ("?" for none; "" until the page says).
    page_query = traitlets.Unicode("").tag(sync=True)
    controls = traitlets.List(traitlets.Unicode()).tag(sync=True)
    #: What the clicks made, as JSON (:meth:`Dashboard.clicks_state`), kept by the page.
    clicks = traitlets.Unicode("").tag(sync=True)
    #: The clicks the page kept from an earlier kernel, sent when it is drawn.
    page_clicks = traitlets.Unicode("").tag(sync=True)
    #: The browser's languages (``navigator.languages``), most wanted first, sent when drawn.
    page_languages = traitlets.List(traitlets.Unicode(), default_value=[]).tag(sync=True)
    #: The language the dashboard speaks (the page puts it on ``<html lang>``).
    lang = traitlets.Unicode("").tag(sync=True)
    #: Counts the page queries the kernel has applied (the page then rewrites its address).
    revision = traitlets.Int(0).tag(sync=True)
    #: The keys of the page's URL that are not settings and stay (:data:`RESERVED_KEYS`).
    keep = traitlets.List(traitlets.Unicode(), default_value=sorted(RESERVED_KEYS)).tag(sync=True)
    enabled = traitlets.Bool(False).tag(sync=True)
