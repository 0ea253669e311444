"""kernelnb in French as well as English: the lab's messages and the course's notebooks.

:mod:`kernelnb.lab.i18n.notebooks` generates the French course notebooks from the English ones
and their catalogs (one gettext catalog per notebook, kept up by
``docs/_ext/notebook_catalogs.py``).
This module is the lab's side: English, the source language, and French, chosen by the reader.

Every string the lab shows a student (the dashboards, the gallery, the server's own pages, the
message of a page whose kernel is gone) is written in English in the code and marked for
gettext, domain :data:`DOMAIN`:

* ``_("text")`` translates at use time, into the language in effect (:func:`get_language`);
* ``N_("text")`` only marks a string kept for later (a class attribute: a dashboard's title,
  its readout labels, its lessons), translated with ``_()`` where it is shown.

Babel extracts the marked strings (``kernelnb/locale/babel.cfg``) into
``kernelnb/locale/kernelnb.pot``; the French catalog is
``kernelnb/locale/fr/LC_MESSAGES/kernelnb.po``; the package build (``setup.py``'s ``build_py``,
for a wheel and for an editable install alike) compiles it to ``kernelnb.mo``. In a source
checkout whose ``.po`` is newer than its ``.mo`` (or that has none), the catalog is compiled in
memory from the ``.po`` instead, so an edited translation shows without a rebuild.

The language in effect is a context variable (:func:`language`), so that two dashboards of a
notebook may speak two languages; outside any such context it is the process's default
(:func:`default_language`: the ``KERNELNB_LANG`` environment variable that ``kernelnb serve
--lang`` sets for its kernels, else English). Which language a page gets is decided by
:func:`choose`: the page's ``?lang=`` first (a value that names no language of the lab gives
English), then the browser's ``Accept-Language``, then the server's default.

Numbers follow the language (:func:`number`): a decimal comma and a narrow no-break space
between thousands in French (``0,5``, ``12 345``, ``12,3 %``); plotly's charts get the same
through their layout's ``separators`` (:data:`PLOTLY_SEPARATORS`).
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import gettext as _gettext
import os
import re
from pathlib import Path

from ..._catalogs import read_catalog

__all__ = ["DOMAIN", "SOURCE_LANGUAGE", "LANGUAGES", "LANGUAGE_NAMES", "DEFAULT_ENV",
           "PLOTLY_SEPARATORS", "locale_dir", "supported", "from_query", "accept_language",
           "default_language", "choose", "translations", "get_language", "language", "gettext",
           "ngettext", "translate", "msgid_of", "is_msgid", "message_ids", "markdown_units",
           "translate_markdown", "number", "N_", "_"]

#: The gettext domain of the lab's messages.
DOMAIN = "kernelnb"
#: The language the code is written in (the catalog's msgids).
SOURCE_LANGUAGE = "en"
#: The languages the lab speaks, the source first.
LANGUAGES = ("en", "fr")
#: Each language's name, in that language (the gallery's language switch).
LANGUAGE_NAMES = {"en": "English", "fr": "Français"}
#: The environment variable holding the default language (``kernelnb serve --lang``).
DEFAULT_ENV = "KERNELNB_LANG"
#: plotly's ``layout.separators`` per language: the decimal mark, then the thousands separator.
PLOTLY_SEPARATORS = {"en": ".,", "fr": ",\u202f"}

#: French thousands separator and the space before a percent sign: a narrow no-break space.
_NNBSP = "\u202f"
_LOCALIZE = {"fr": str.maketrans({".": ",", ",": _NNBSP})}

_current: contextvars.ContextVar = contextvars.ContextVar("kernelnb_language", default=None)


def locale_dir() -> Path:
    """The folder of the catalogs (``kernelnb/locale``).

    Returns
    -------
    pathlib.Path
        ``kernelnb/locale`` of the installed package (or of the checkout).
    """
    return Path(__file__).resolve().parents[2] / "locale"


def supported(code):
    """The lab's language that a language tag names, else None.

    Parameters
    ----------
    code : str or None
        A tag as a URL or a browser writes it: ``"fr"``, ``"fr-CA"``, ``"FR_fr"``, ``"en-GB"``.

    Returns
    -------
    str or None
        One of :data:`LANGUAGES`, or None for a tag of another language or not a tag.
    """
    if not isinstance(code, str):
        return None
    primary = re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]
    return primary if primary in LANGUAGES else None


def from_query(value):
    """The language a ``lang=`` value of a URL asks for: a bad value gives English, no error.

    Parameters
    ----------
    value : str
        The value as written in the URL.

    Returns
    -------
    str
        One of :data:`LANGUAGES`.
    """
    return supported(value) or SOURCE_LANGUAGE


def accept_language(header):
    """The lab's languages an ``Accept-Language`` header asks for, most wanted first.

    Parameters
    ----------
    header : str or None
        E.g. ``"fr-CA,fr;q=0.9,en;q=0.8"``; ranges of other languages, ``*`` and malformed
        entries are passed over, as is anything past 64 entries.

    Returns
    -------
    list of str
        Languages of :data:`LANGUAGES`, each once, by decreasing quality (ties in the header's
        order); empty when the header names none of them.
    """
    if not isinstance(header, str):
        return []
    ranked = []
    for position, part in enumerate(header[:2000].split(",")[:64]):
        tag, _sep, params = part.partition(";")
        quality = 1.0
        match = re.search(r"\bq\s*=\s*([0-9.]+)", params)
        if match:
            try:
                quality = float(match.group(1))
            except ValueError:
                continue
        lang = supported(tag)
        if lang is not None and quality > 0:
            ranked.append((-quality, position, lang))
    out = []
    for _q, _p, lang in sorted(ranked):
        if lang not in out:
            out.append(lang)
    return out


def default_language():
    """The process's default language: :data:`DEFAULT_ENV` when it names one, else English.

    Returns
    -------
    str
        One of :data:`LANGUAGES`.
    """
    return supported(os.environ.get(DEFAULT_ENV)) or SOURCE_LANGUAGE


def choose(query=None, accept=None, default=None):
    """The language of a page: ``?lang=`` first, then ``Accept-Language``, then the default.

    Parameters
    ----------
    query : str or None
        The page's ``lang`` value; None when its URL has none. A value that names no language
        of the lab gives English (without an error).
    accept : str or list of str or None
        The browser's ``Accept-Language`` header, or its languages as a list
        (``navigator.languages``), most wanted first.
    default : str or None
        The server's default (None: :func:`default_language`).

    Returns
    -------
    str
        One of :data:`LANGUAGES`.
    """
    if query is not None:
        return from_query(query)
    if isinstance(accept, (list, tuple)):
        accept = ",".join(str(a) for a in accept[:64])
    wanted = accept_language(accept)
    if wanted:
        return wanted[0]
    return supported(default) or default_language()


@functools.lru_cache(maxsize=None)
def translations(lang):
    """The gettext catalog of ``lang`` (cached).

    Parameters
    ----------
    lang : str
        One of :data:`LANGUAGES`.

    Returns
    -------
    gettext.NullTranslations
        For English, the null catalog (msgids are English); for another language its compiled
        ``.mo``, or its ``.po`` compiled in memory when that is newer (a source checkout). A
        language whose catalog cannot be found falls back to English, with a warning in the log.
    """
    if lang == SOURCE_LANGUAGE or lang not in LANGUAGES:
        return _gettext.NullTranslations()
    return read_catalog(locale_dir() / lang / "LC_MESSAGES", DOMAIN, "the lab")


def get_language():
    """The language in effect: the innermost :func:`language` context, else the default.

    Returns
    -------
    str
        One of :data:`LANGUAGES`.
    """
    return _current.get() or default_language()


@contextlib.contextmanager
def language(lang):
    """Speak ``lang`` inside the ``with`` block (this thread or task only).

    Parameters
    ----------
    lang : str
        One of :data:`LANGUAGES`.

    Yields
    ------
    str
        ``lang``.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {', '.join(map(repr, LANGUAGES))}, got {lang!r}")
    token = _current.set(lang)
    try:
        yield lang
    finally:
        _current.reset(token)


def translate(message, lang):
    """``message`` (an English msgid) in ``lang``.

    Parameters
    ----------
    message : str
        An English text (a msgid).
    lang : str
        One of :data:`LANGUAGES`.

    Returns
    -------
    str
        Its translation, or ``message`` itself when the catalog has none.
    """
    return translations(lang).gettext(message) if message else message


def gettext(message):
    """``message`` in the language in effect (:func:`get_language`).

    Parameters
    ----------
    message : str
        An English text, marked for extraction.

    Returns
    -------
    str
        Its translation, or ``message`` itself when the catalog has none.
    """
    return translate(message, get_language())


#: The marker of a string translated at use time.
_ = gettext


def ngettext(singular, plural, n):
    """The singular or plural of a message for the count ``n``, in the language in effect.

    Parameters
    ----------
    singular, plural : str
        The English forms.
    n : int
        The count the form is chosen for.

    Returns
    -------
    str
        The form for ``n``, translated.
    """
    return translations(get_language()).ngettext(singular, plural, n)


def N_(message):
    """Mark ``message`` for extraction without translating it (translate it where shown).

    Parameters
    ----------
    message : str
        An English text.

    Returns
    -------
    str
        ``message`` itself.
    """
    return message


@functools.lru_cache(maxsize=None)
def _reverse(lang):
    """{translation: msgid} of ``lang``'s catalog (the first msgid of a shared translation)."""
    catalog = getattr(translations(lang), "_catalog", {}) or {}
    out = {}
    for msgid, msgstr in catalog.items():
        if isinstance(msgid, str) and msgid and isinstance(msgstr, str) and msgstr:
            out.setdefault(msgstr, msgid)
    return out


@functools.lru_cache(maxsize=None)
def _msgids():
    """The msgids of the catalogs (those of the first language that has any)."""
    for lang in LANGUAGES[1:]:
        catalog = getattr(translations(lang), "_catalog", {}) or {}
        ids = frozenset(k for k in catalog if isinstance(k, str) and k)
        if ids:
            return ids
    return frozenset()


def message_ids():
    """The English messages of the catalogs.

    Returns
    -------
    frozenset of str
        Every msgid (of the first language other than English that has a catalog).
    """
    return _msgids()


def is_msgid(text):
    """Whether ``text`` is an English message of the catalogs.

    Parameters
    ----------
    text : str
        A text as shown.

    Returns
    -------
    bool
        True when some catalog has ``text`` as a message.
    """
    return isinstance(text, str) and text in _msgids()


def msgid_of(text, lang):
    """The English msgid whose translation into ``lang`` is ``text``, else None.

    Parameters
    ----------
    text : str
        A text shown in ``lang``.
    lang : str
        One of :data:`LANGUAGES`.

    Returns
    -------
    str or None
        ``text`` itself when it is a msgid (English text, or a text the same in both languages).
    """
    if not isinstance(text, str) or not text:
        return None
    if is_msgid(text):
        return text
    if lang == SOURCE_LANGUAGE:
        return None
    return _reverse(lang).get(text)


_HEADING = re.compile(r"^(#{1,6}\s+)(.*)$")


def markdown_units(source):
    """The messages of a notebook's Markdown cell: each heading's text and each paragraph.

    Parameters
    ----------
    source : str
        The cell's Markdown (blocks separated by blank lines).

    Returns
    -------
    list of str
        Its units in order: a heading's text without its ``#`` marks, a paragraph whole.
    """
    units = []
    for block in re.split(r"\n\s*\n", source.strip()):
        block = block.strip()
        if not block:
            continue
        match = _HEADING.match(block)
        units.append(match.group(2).strip() if match and "\n" not in block else block)
    return units


def translate_markdown(source, lang):
    """A notebook's Markdown cell in ``lang``, the markup that places each unit kept.

    Each unit (:func:`markdown_units`) is translated.

    Parameters
    ----------
    source : str
        The cell's Markdown.
    lang : str
        One of :data:`LANGUAGES`.

    Returns
    -------
    str
        The Markdown in ``lang`` (a unit without a translation stays as it is).
    """
    blocks = []
    for block in re.split(r"\n\s*\n", source.strip()):
        block = block.strip()
        if not block:
            continue
        match = _HEADING.match(block)
        if match and "\n" not in block:
            blocks.append(match.group(1) + translate(match.group(2).strip(), lang))
        else:
            blocks.append(translate(block, lang))
    return "\n\n".join(blocks)


def number(value, spec="", lang=None):
    """``format(value, spec)`` written as ``lang`` writes numbers.

    Parameters
    ----------
    value : int or float
        The number.
    spec : str, default=""
        A format specification (``".3g"``, ``".1%"``, ``",d"``).
    lang : str or None
        The language (None: the one in effect).

    Returns
    -------
    str
        In French a decimal comma, a narrow no-break space between thousands and before ``%``
        (``"12,3 %"``); in English ``format``'s own text.
    """
    text = format(value, spec)
    table = _LOCALIZE.get(lang or get_language())
    if table is None:
        return text
    text = text.translate(table)
    return text.replace("%", _NNBSP + "%") if text.endswith("%") else text
