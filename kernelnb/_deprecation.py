"""Renamed parameters: one way to keep users' code working while the names change.

A renamed estimator parameter keeps its old name in the constructor with the default
``"deprecated"``; :func:`with_renamed` adds the old names to the estimator's parameter table
(the new name's constraints, plus the marker), and :func:`resolve_renamed`, called in ``fit``,
returns the values to use: the new name's, or the old name's when a user set it, with a
``FutureWarning`` that names both.  (scikit-learn renames its parameters the same way.)
"""
from __future__ import annotations

import warnings

from ._validation import Hidden, StrOptions

__all__ = ["DEPRECATED", "resolve_renamed", "with_renamed"]

#: the default of an old parameter name
DEPRECATED = "deprecated"
#: the release that renamed the parameters, and the one that will drop the old names
RENAMED_IN, REMOVED_IN = "0.2", "0.4"


def with_renamed(constraints, renamed):
    """``constraints`` plus an entry for each old name of ``renamed`` (``{old: new}``)."""
    out = dict(constraints)
    for old, new in renamed.items():
        out[old] = [Hidden(StrOptions({DEPRECATED})), *constraints[new]]
    return out


def resolve_renamed(estimator, renamed, stacklevel=3):
    """``{new: value}`` for every pair of ``renamed``: the old name's value when it was set
    (with a ``FutureWarning``), else the new name's."""
    values = {}
    for old, new in renamed.items():
        value = getattr(estimator, old)
        if isinstance(value, str) and value == DEPRECATED:
            values[new] = getattr(estimator, new)
            continue
        warnings.warn(f"{type(estimator).__name__}: '{old}' was renamed '{new}' in kernelnb "
                      f"{RENAMED_IN} and will be removed in {REMOVED_IN}; use {new}={value!r}",
                      FutureWarning, stacklevel=stacklevel)
        values[new] = value
    return values
