"""Settings of the whole library that are not an estimator's parameter.

One setting today, ``keep_partial_on_interrupt``: what a ``fit`` does when it receives a
``KeyboardInterrupt`` (Ctrl-C in a script, the stop button of a notebook, a dashboard's stop).

* ``False`` (the default): the interrupt propagates out of ``fit``, as it does from any Python
  call, so a script's loop stops where the user asked it to.
* ``True``: an estimator that can make the state it reached a usable model (an SVM whose
  decomposition solver stopped between two steps, a gradient tuner that has evaluated a point)
  returns it, with ``interrupted_ = True`` and a ``RuntimeWarning`` saying so; an estimator
  that cannot still lets the interrupt propagate.  The dashboards turn this on around their
  work, so that a stopped computation still draws what it reached.

The value lives in a :class:`contextvars.ContextVar`: :func:`config_context` sets it for a
``with`` block (and for the threads and tasks started from it with a copied context) and puts
the previous value back, so no test or dashboard leaves it changed behind it.
"""
from __future__ import annotations

import contextlib
import contextvars

__all__ = ["config_context", "get_config", "set_config"]

_DEFAULTS = {"keep_partial_on_interrupt": False}
_CONFIG = contextvars.ContextVar("kernelnb_config", default=dict(_DEFAULTS))


def get_config():
    """The library's current settings.

    Returns
    -------
    dict
        ``{"keep_partial_on_interrupt": bool}``, a copy (changing it changes nothing).
    """
    return dict(_CONFIG.get())


def _updated(keep_partial_on_interrupt):
    config = dict(_CONFIG.get())
    if keep_partial_on_interrupt is not None:
        if not isinstance(keep_partial_on_interrupt, bool):
            raise TypeError("keep_partial_on_interrupt must be True, False or None, got "
                            f"{keep_partial_on_interrupt!r}")
        config["keep_partial_on_interrupt"] = keep_partial_on_interrupt
    return config


def set_config(*, keep_partial_on_interrupt=None):
    """Change the library's settings in the current context (see :mod:`kernelnb._config`).

    Parameters
    ----------
    keep_partial_on_interrupt : bool or None, default=None
        True: a ``fit`` interrupted by ``KeyboardInterrupt`` returns the model it reached when
        the estimator can make one (``interrupted_ = True``, a ``RuntimeWarning``); False: the
        interrupt propagates.  None leaves the setting as it is.
    """
    _CONFIG.set(_updated(keep_partial_on_interrupt))


@contextlib.contextmanager
def config_context(*, keep_partial_on_interrupt=None):
    """Change the library's settings inside a ``with`` block only.

    Parameters
    ----------
    keep_partial_on_interrupt : bool or None, default=None
        As in :func:`set_config`.

    Yields
    ------
    None

    Examples
    --------
    >>> import kernelnb
    >>> with kernelnb.config_context(keep_partial_on_interrupt=True):
    ...     kernelnb.get_config()["keep_partial_on_interrupt"]
    True
    >>> kernelnb.get_config()["keep_partial_on_interrupt"]
    False
    """
    token = _CONFIG.set(_updated(keep_partial_on_interrupt))
    try:
        yield
    finally:
        _CONFIG.reset(token)
