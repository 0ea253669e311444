"""How a dashboard writes a value in its language, and when two control values are the same.

:func:`speaks` runs a method in the dashboard's language; :func:`num` writes a number as that
language does (``0,5`` in French); a readout row's value and label are written by ``_fmt`` and
``_label`` (the readout, the status line and the charts' descriptions share them); ``_same`` and
``_same_value`` say whether two control values are one setting (numbers within rounding), for
the controls, the page's address and the status line's list of what changed.
"""
from __future__ import annotations

import functools
import math

from .. import i18n
from ..i18n import _

__all__ = ["num", "speaks"]


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
