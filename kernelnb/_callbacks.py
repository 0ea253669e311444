"""One callback convention for every long computation of kernelnb.

``callback(info)`` is called with one dict describing the progress (its keys are listed in each
estimator's docstring; ``'iteration'`` is always among them) and may return ``False`` to stop the
computation after that step; any other return value continues.  The parameter is checked by the
package's one rule (:data:`kernelnb._validation.CALLBACK`: a callable or None).

Before kernelnb 0.2 some estimators called their callback with positional arguments
(``SVC``: ``callback(iteration, kkt_gap, objective)``; ``MixtureSVC``: ``callback(iteration,
info)``).  A callable that requires exactly those positional arguments is still called that way,
with a ``FutureWarning``; the old form goes away in 0.4.
"""
from __future__ import annotations

import inspect
import warnings

__all__ = ["progress_caller"]


def _required_positional(fn):
    """How many positional parameters ``fn`` requires, or None when it cannot be told (a
    builtin without a signature, or ``*args``)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    n = 0
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            return None
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
            n += 1
    return n


def progress_caller(callback, owner, legacy=None, legacy_args=None):
    """A function ``call(info) -> bool`` (True: stop) that passes ``info`` to ``callback``.

    Parameters
    ----------
    callback : callable or None
        The user's callback (already checked to be callable or None).
    owner : str
        The estimator's name, for the warning.
    legacy : tuple of str, optional
        The names of the arguments of the estimator's old positional form, in order.  A
        callback requiring exactly that many positional arguments (and more than one) gets them
        positionally, with a ``FutureWarning``: ``info[name]`` for each, or what
        ``legacy_args(info)`` returns.
    legacy_args : callable, optional
        ``legacy_args(info) -> tuple`` of the old form's arguments.
    """
    if callback is None:
        return lambda info: False
    if legacy and len(legacy) > 1 and _required_positional(callback) == len(legacy):
        warnings.warn(f"{owner}: a callback taking ({', '.join(legacy)}) is the old form; "
                      "kernelnb 0.2 calls callback(info) with one dict (the same values under "
                      "these names) and drops the old form in 0.4", FutureWarning, stacklevel=3)
        args = legacy_args or (lambda info: tuple(info[k] for k in legacy))
        return lambda info: callback(*args(info)) is False
    return lambda info: callback(info) is False
