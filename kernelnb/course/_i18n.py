"""The course's own translations: English source, French through gettext, domain ``kernelnb_course``.

Every text a student reads in the course's exercises (statements, hints, the checks' answers, the
quizzes) is written in English in the chapter sources (:mod:`kernelnb.course.chapters`), marked
with :func:`N_`, and translated at use time with :func:`gettext` into the language asked for.
The catalog is ``kernelnb/locale/<lang>/LC_MESSAGES/kernelnb_course.po``, beside the lab's own
(``kernelnb.po``) and compiled the same way by the package build; in a source checkout whose
``.po`` is newer than its ``.mo`` (or that has none) it is compiled in memory with Babel, as the
lab does (:func:`kernelnb.lab.i18n.translations`). ``python -m kernelnb.course.catalog update``
writes the catalog's new entries; ``check`` lists what is left to translate.

Which language: the ``lang`` argument of a call, else the one set by :func:`set_language`, else
the lab's language in effect (a dashboard's context, ``KERNELNB_LANG``) when the lab is loaded
in the process, else ``KERNELNB_LANG``, else English. Only the standard library is needed: the course
works with kernelnb's core install.
"""
from __future__ import annotations

import functools
import gettext as _gettext
import os
import re
import sys
from pathlib import Path

from .._catalogs import read_catalog

__all__ = ["DOMAIN", "LANGUAGES", "SOURCE_LANGUAGE", "N_", "gettext", "resolve", "set_language",
           "translations", "catalog_path"]


#: The course's gettext domain (the lab's is ``kernelnb``).
DOMAIN = "kernelnb_course"
SOURCE_LANGUAGE = "en"
LANGUAGES = ("en", "fr")
_ENV = "KERNELNB_LANG"
_chosen = [None]


def N_(message):
    """Mark ``message`` for translation, translated later where it is shown."""
    return message


def _supported(code):
    if not isinstance(code, str):
        return None
    primary = re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]
    return primary if primary in LANGUAGES else None


def set_language(lang):
    """Speak ``lang`` in this kernel from now on (None: back to the default).

    Parameters
    ----------
    lang : str or None
        ``"en"`` or ``"fr"`` (a tag such as ``"fr-CA"`` is read as its language).
    """
    if lang is not None and _supported(lang) is None:
        raise ValueError(f"lang must be one of {', '.join(map(repr, LANGUAGES))}, got {lang!r}")
    _chosen[0] = _supported(lang) if lang is not None else None


def resolve(lang=None):
    """The language of an answer: ``lang``, else :func:`set_language`'s, else the lab's, else
    ``KERNELNB_LANG``, else English.

    Parameters
    ----------
    lang : str or None

    Returns
    -------
    str
        One of :data:`LANGUAGES`.
    """
    if lang is not None:
        found = _supported(lang)
        if found is None:
            raise ValueError(f"lang must be one of {', '.join(map(repr, LANGUAGES))}, "
                             f"got lang={lang!r}")
        return found
    if _chosen[0] is not None:
        return _chosen[0]
    # the lab's language in effect (a dashboard's context) when the lab is loaded in this
    # process; the course does not load it (it works with kernelnb's core install)
    lab_i18n = sys.modules.get("kernelnb.lab.i18n")
    if lab_i18n is not None:
        return lab_i18n.get_language()
    return _supported(os.environ.get(_ENV)) or SOURCE_LANGUAGE


def catalog_path(lang, suffix=".po"):
    """The catalog file of ``lang`` (``kernelnb/locale/<lang>/LC_MESSAGES/kernelnb_course.po``)."""
    return (Path(__file__).resolve().parents[1] / "locale" / lang / "LC_MESSAGES"
            / (DOMAIN + suffix))


@functools.lru_cache(maxsize=None)
def translations(lang):
    """The compiled catalog of ``lang`` (English: the null catalog); cached.

    Parameters
    ----------
    lang : str

    Returns
    -------
    gettext.NullTranslations
    """
    if lang == SOURCE_LANGUAGE or lang not in LANGUAGES:
        return _gettext.NullTranslations()
    return read_catalog(catalog_path(lang).parent, DOMAIN, "the course")


def gettext(message, lang=None):
    """``message`` (an English msgid) in ``lang`` (see :func:`resolve`).

    Parameters
    ----------
    message : str
    lang : str or None

    Returns
    -------
    str
    """
    if not message:
        return message
    return translations(resolve(lang)).gettext(message)
