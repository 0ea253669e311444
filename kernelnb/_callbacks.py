"""One callback convention for every long computation of kernelnb.

``callback(info)`` is called with one dict describing the progress (its keys are listed in each
estimator's docstring; ``'iteration'`` is always among them) and may return ``False`` to stop the
computation after that step; any other return value continues.  The parameter is checked by the
package's one rule (:data:`kernelnb._validation.CALLBACK`: a callable or None).

A computation a dashboard shows step by step is also written as a generator that yields where
it may pause (None, or a partial result) and returns its result; the plain function runs it to
its end (:func:`run_to_end`), so both give the same numbers.
"""
from __future__ import annotations

__all__ = ["progress_caller", "run_to_end"]


def progress_caller(callback):
    """A function ``call(info) -> bool`` (True: stop) that passes ``info`` to ``callback``.

    Parameters
    ----------
    callback : callable or None
        The user's callback (already checked to be callable or None).

    Returns
    -------
    callable
        ``call(info) -> bool``: True when the callback asked to stop (returned ``False``).
    """
    if callback is None:
        return lambda info: False
    return lambda info: callback(info) is False


def run_to_end(steps):
    """Run a generator of steps to its end and return what it returns.

    Parameters
    ----------
    steps : generator
        Yields where the work may pause (what it yields is dropped) and returns the result.

    Returns
    -------
    object
        The generator's return value.
    """
    while True:
        try:
            next(steps)
        except StopIteration as end:
            return end.value
