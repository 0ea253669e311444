"""The one fit wrapper of kernelnb's estimators (in the spirit of scikit-learn's ``_fit_context``).

Every public ``fit`` (and ``partial_fit``) of the library is decorated with :func:`fit_context`,
which does, in this order, what no estimator then writes by hand:

1. **checks the constructor parameters** against the class's ``_parameter_constraints`` table
   (:func:`kernelnb._validation.check_params`), then calls the class's ``_check_params_extra()``
   when it defines one (the rules a table cannot state, e.g. "q must be even");
2. **times the fit**: ``fit_time_`` is the wall-clock seconds of the whole call, set on success
   and on an interruption that keeps a usable model;
3. **the interrupt protocol**: a ``KeyboardInterrupt`` (Ctrl-C, or a dashboard's stop) raised
   inside ``fit`` propagates, unless the library's setting ``keep_partial_on_interrupt`` is on
   (:func:`kernelnb.config_context`; the dashboards turn it on) *and* the estimator defines
   ``_on_interrupt()`` and that method returns True (it has made the state reached so far a
   usable model): ``fit`` then returns ``self`` with ``interrupted_ = True`` and a
   ``RuntimeWarning`` saying so.  ``interrupted_`` is False after an uninterrupted fit.

The callback protocol itself (``callback(info)``, ``False`` stops after that step) is
:func:`kernelnb._callbacks.progress_caller`.

A nested call (a ``fit`` that calls another decorated method of the same object, e.g.
``fit_predict`` or a subclass's ``fit`` calling ``super().fit``) checks and times once, at the
outermost call.

A fit whose work a dashboard draws step by step is written as a generator method decorated with
:func:`fit_steps` (the same check and timing, around the whole iteration), and its ``fit`` runs
that generator to its end under :func:`fit_context`.
"""
from __future__ import annotations

import functools
import time
import warnings

from ._config import get_config
from ._validation import check_params

__all__ = ["fit_context", "fit_steps"]


def _check(estimator):
    """The constructor parameters against the class's table, then its own extra rules."""
    check_params(estimator)
    extra = getattr(estimator, "_check_params_extra", None)
    if extra is not None:
        extra()


def fit_context(fit):
    """Decorate an estimator's ``fit``: parameter check, ``fit_time_``, interrupt protocol.

    Parameters
    ----------
    fit : callable
        The method ``fit(self, *args, **kwargs)`` (or ``partial_fit``), returning ``self``.

    Returns
    -------
    callable
        The wrapped method.
    """

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        if getattr(self, "_kernelnb_in_fit", False):
            return fit(self, *args, **kwargs)
        _check(self)
        t0 = time.perf_counter()
        self._kernelnb_in_fit = True
        try:
            out = fit(self, *args, **kwargs)
        except KeyboardInterrupt:
            keep = getattr(self, "_on_interrupt", None)
            if not get_config()["keep_partial_on_interrupt"] or keep is None or not keep():
                raise
            self.interrupted_ = True
            warnings.warn(f"{type(self).__name__}.{fit.__name__} was interrupted; the model "
                          "holds the state reached so far", RuntimeWarning, stacklevel=2)
            out = self
        else:
            self.interrupted_ = False
        finally:
            del self._kernelnb_in_fit
        self.fit_time_ = time.perf_counter() - t0
        return out

    return wrapper


def fit_steps(steps):
    """Decorate the generator method that holds an estimator's fit, one step at a time.

    Iterating the decorated method checks the constructor parameters first (as
    :func:`fit_context` does), marks the estimator as fitting until the generator ends or is
    closed, and sets ``fit_time_`` (wall-clock seconds from the first step to the end, pauses
    included) when it returns. Inside a ``fit`` decorated with :func:`fit_context` (which runs
    the generator to its end, interrupt protocol included) it only runs the steps.

    Parameters
    ----------
    steps : callable
        A generator method ``steps(self, *args, **kwargs)`` that yields between steps and
        returns ``self``.

    Returns
    -------
    callable
        The wrapped generator method.
    """
    @functools.wraps(steps)
    def wrapper(self, *args, **kwargs):
        if getattr(self, "_kernelnb_in_fit", False):
            return (yield from steps(self, *args, **kwargs))
        _check(self)
        t0 = time.perf_counter()
        self._kernelnb_in_fit = True
        try:
            out = yield from steps(self, *args, **kwargs)
        finally:
            del self._kernelnb_in_fit
        self.interrupted_ = False
        self.fit_time_ = time.perf_counter() - t0
        return out
    return wrapper
