"""A built dashboard's words in another language: its widgets' and charts' texts re-labelled.

A dashboard builds its widgets and figures in English (the msgids; see :mod:`kernelnb.lab.i18n`)
and :meth:`kernelnb.lab.app.Dashboard.set_language` moves them to the page's language, the same
way at construction (a kernel started for a French page) and later (a kernel preheated in
English, then taken by a French page). What is re-labelled:

* widgets: ``description``, ``tooltip``, ``tooltips`` (toggle buttons), ``placeholder``, the
  options' labels (``_options_labels``; the values, which a URL names, stay), ``titles`` (tabs,
  accordions) and the ``value`` of HTML and label widgets (the readout, the error and the progress
  text excepted: :meth:`~kernelnb.lab.app.Dashboard.update` writes those afresh);
* figures: ``layout.separators`` (the decimal mark of ticks and hover labels), the titles of the
  chart, its axes, its legend and colour bars, its annotations, and each trace's ``name``,
  ``hovertemplate``, ``text`` and legend-group title.

Each text's English msgid is kept when it is first translated (:class:`Labels`), so a later
switch translates from the msgid, not from the translation; a text the dashboard has changed since
is looked up in the catalog (a msgid, or the translation of one, or a message with fields whose
fields are translated in turn: ``"class 0 (100)"`` from ``"class {c} ({n})"``). HTML is
translated a text
segment at a time (between tags; entities decoded and encoded again), and a plain text made of
messages joined by "; " or new lines (a drop-down's tooltip) a message at a time. A text that is neither
(a title with numbers) is left as it is: the update that follows a switch writes it anew.
"""
from __future__ import annotations

import functools
import html
import re
import string

import ipywidgets as widgets

from .. import i18n

__all__ = ["Labels", "retranslate"]

_TAG = re.compile(r"(<[^>]*>)")
_LIST = re.compile(r"(; |\n)")
_WIDGET_TRAITS = ("description", "tooltip", "placeholder")
_LIST_TRAITS = ("tooltips", "titles")
_TEXT_WIDGETS = (widgets.HTML, widgets.HTMLMath, widgets.Label)
_LAYOUT_TEXTS = ("title.text", "legend.title.text", "coloraxis.colorbar.title.text")
_AXES = re.compile(r"^(x|y|z)axis\d*$")
_TRACE_TEXTS = ("name", "hovertemplate", "text", "legendgrouptitle.text", "colorbar.title.text",
                "marker.colorbar.title.text")


def _one(text, old, new, known=None, depth=0):
    """(msgid, ``text`` in ``new``) for a whole text; (None, None) when it is no message.

    A text that is no message itself may be a message with fields (``"class {c} ({n})"``):
    it is matched against the catalog's messages with fields (:func:`_templates`), and each
    field is translated in turn (a message, a number, or kept as it is); its msgid is then
    None (the next switch matches it again)."""
    if known is not None and i18n.translate(known, old) == text:
        return known, i18n.translate(known, new)
    msgid = i18n.msgid_of(text, old)
    if msgid is not None:
        return msgid, i18n.translate(msgid, new)
    if depth > 2 or not text.strip():
        return None, None
    if depth == 0 and _NUMBER.fullmatch(text):    # a number alone (an option's label)
        out = _field(text, old, new, depth)
        return None, (out if out != text else None)
    for pattern, template in _templates(old):
        match = pattern.fullmatch(text)
        if match is None:
            continue
        fields = {name: _field(value, old, new, depth) for name, value in match.groupdict().items()}
        return None, i18n.translate(template, new).format(**fields)
    return None, None


_NUMBER = re.compile(r"[−+-]?[0-9][0-9.,\u202f]*(e[+-]?[0-9]+)?(\u202f?%)?")


def _field(value, old, new, depth):
    """A field of a message with fields, from ``old`` to ``new``: a message, a number, or as
    it is (a name)."""
    if _NUMBER.fullmatch(value):
        if old == new:
            return value
        if old != i18n.SOURCE_LANGUAGE:       # back to the English writing of a number
            value = value.replace(",", "\x00").replace("\u202f%", "%").replace("\u202f", ",")
            value = value.replace("\x00", ".")
        if new == i18n.SOURCE_LANGUAGE:
            return value
        return value.translate({ord("."): ",", ord(","): "\u202f"}).replace("%", "\u202f%") \
            if not value.endswith("\u202f%") else value
    _msgid, out = _one(value, old, new, depth=depth + 1)
    return value if out is None else out


@functools.lru_cache(maxsize=None)
def _templates(lang):
    """(pattern, msgid) of the catalog's messages with fields as written in ``lang``, the most
    specific first (the longest literal text); a message whose literal text has fewer than four
    letters (``"{a}: {b}"``) is left out: it would match anything."""
    out = []
    for msgid in sorted(i18n.message_ids(), key=str):
        if "{" not in msgid:
            continue
        shown = i18n.translate(msgid, lang)
        try:
            parts = list(string.Formatter().parse(shown))
        except ValueError:
            continue
        literal = "".join(p[0] for p in parts)
        if len(re.findall(r"[^\W\d_]", literal)) < 4 or any(
                p[1] is not None and (not p[1].isidentifier() or p[2] or p[3]) for p in parts):
            continue
        names = [p[1] for p in parts if p[1] is not None]
        if len(set(names)) != len(names):
            continue
        regex = "".join(re.escape(p[0]) + (f"(?P<{p[1]}>.+?)" if p[1] is not None else "")
                        for p in parts)
        out.append((len(literal), re.compile(regex, re.S), msgid))
    out.sort(key=lambda t: -t[0])
    return tuple((pattern, msgid) for _n, pattern, msgid in out)


def retranslate(text, old, new, known=None):
    """``text``, shown in language ``old``, in language ``new``.

    Parameters
    ----------
    text : str
        A text as shown (plain, or HTML).
    old, new : str
        Languages of :data:`kernelnb.lab.i18n.LANGUAGES`.
    known : str or None
        The msgid this text was translated from before, if any.

    Returns
    -------
    msgid : str or None
        The whole text's msgid (None for HTML translated by segments, or a text no message
        matches).
    translated : str or None
        The text in ``new``; None when nothing in it is a message.
    """
    if not isinstance(text, str) or not text.strip():
        return None, None
    msgid, out = _one(text, old, new, known)
    if out is not None:
        return msgid, out
    parts = _TAG.split(text)
    if len(parts) == 1:            # plain text: a list of messages ("a; b"), else no message
        pieces = _LIST.split(text)
        if len(pieces) == 1:
            return None, None
        outs = [_one(p, old, new)[1] if k % 2 == 0 else p for k, p in enumerate(pieces)]
        if not any(o is not None for o in outs[::2]):
            return None, None
        return None, "".join(o if o is not None else p for o, p in zip(outs, pieces))
    changed = False
    for k, part in enumerate(parts):
        if k % 2 or not part.strip():
            continue
        core = html.unescape(part.strip())
        _m, out = _one(core, old, new)
        if out is None:
            continue
        lead = part[:len(part) - len(part.lstrip())]
        tail = part[len(part.rstrip()):]
        parts[k] = lead + html.escape(out, quote=False) + tail
        changed = True
    return None, ("".join(parts) if changed else None)


def _widgets_under(roots):
    """Every widget reachable from ``roots`` through box children, each once."""
    seen, out, stack = set(), [], list(roots)
    while stack:
        w = stack.pop()
        if not isinstance(w, widgets.Widget) or id(w) in seen:
            continue
        seen.add(id(w))
        out.append(w)
        stack.extend(getattr(w, "children", ()) or ())
    return out


class Labels:
    """The msgids of a dashboard's shown texts, and the switch of those texts to a language.

    Parameters
    ----------
    skip : iterable of ipywidgets.Widget
        Widgets whose ``value`` is not re-labelled (written afresh by every update).
    """

    def __init__(self, skip=()):
        self.skip = {id(w) for w in skip}
        self.msgids = {}

    def _switch(self, key, text, old, new):
        msgid, out = retranslate(text, old, new, self.msgids.get(key))
        if msgid is not None:
            self.msgids[key] = msgid
        return out

    def widgets(self, roots, old, new, changing=None):
        """Re-label every widget under ``roots`` from ``old`` to ``new``.

        Parameters
        ----------
        roots : iterable of ipywidgets.Widget
        old, new : str
            Languages.
        changing : callable or None
            ``changing(widget)``: a context manager to change a control's option labels in
            (a dashboard keeps its controls' declared options; see
            :meth:`kernelnb.lab.app.Dashboard.changing_limits`).

        Returns
        -------
        int
            How many texts changed.
        """
        n = 0
        for w in _widgets_under(roots):
            key = getattr(w, "model_id", None) or id(w)
            for trait in _WIDGET_TRAITS:
                if w.has_trait(trait):
                    out = self._switch((key, trait), getattr(w, trait), old, new)
                    if out is not None and out != getattr(w, trait):
                        setattr(w, trait, out)
                        n += 1
            for trait in _LIST_TRAITS:
                if w.has_trait(trait) and getattr(w, trait):
                    items = list(getattr(w, trait))
                    new_items = [self._switch((key, trait, k), t, old, new) or t
                                 for k, t in enumerate(items)]
                    if new_items != items:
                        setattr(w, trait, tuple(new_items) if trait == "titles" else new_items)
                        n += 1
            if w.has_trait("_options_labels") and w._options_labels:
                labels = list(w._options_labels)
                new_labels = [self._switch((key, "option", repr(v)), t, old, new) or t
                              for t, v in zip(labels, w._options_values)]
                if new_labels != labels:
                    n += 1
                    with (changing(w) if changing is not None else _nothing()):
                        w.set_trait("_options_labels", tuple(new_labels))
                        index = getattr(w, "index", None)
                        if isinstance(index, int) and 0 <= index < len(new_labels):
                            w.set_trait("label", new_labels[index])
            if isinstance(w, _TEXT_WIDGETS) and id(w) not in self.skip:
                out = self._switch((key, "value"), w.value, old, new)
                if out is not None and out != w.value:
                    w.value = out
                    n += 1
        return n

    def figure(self, fig, old, new):
        """Re-label a plotly figure from ``old`` to ``new`` (its separators too).

        Parameters
        ----------
        fig : plotly.graph_objects.Figure or FigureWidget
        old, new : str
            Languages.

        Returns
        -------
        int
            How many texts changed.
        """
        n = 0
        key = id(fig)
        layout = fig.layout
        paths = list(_LAYOUT_TEXTS)
        paths += [f"{name}.title.text" for name in layout.to_plotly_json()
                  if _AXES.match(name)]
        for path in paths:
            try:
                text = layout[path]
            except (KeyError, ValueError, AttributeError):
                continue
            out = self._switch((key, "layout", path), text, old, new)
            if out is not None and out != text:
                layout[path] = out
                n += 1
        for k, note in enumerate(layout.annotations or ()):
            out = self._switch((key, "annotation", k), note.text, old, new)
            if out is not None and out != note.text:
                note.text = out
                n += 1
        for k, trace in enumerate(fig.data):
            for path in _TRACE_TEXTS:
                try:
                    text = trace[path]
                except (KeyError, ValueError, AttributeError):
                    continue
                if not isinstance(text, str):
                    continue
                out = self._switch((key, "trace", k, path), text, old, new)
                if out is not None and out != text:
                    trace[path] = out
                    n += 1
        separators = i18n.PLOTLY_SEPARATORS[new]
        if layout.separators != separators:
            layout.separators = separators
        return n


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
