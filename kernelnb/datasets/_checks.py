"""Argument checks of the data-set generators and loaders: thin wrappers over the package's one
validation mechanism (:mod:`kernelnb._validation`, scikit-learn's parameter constraints).

Every function takes ``(name, value)``, as :func:`kernelnb._validation.check_param`, and raises
scikit-learn's ``InvalidParameterError`` (a ``ValueError`` and a ``TypeError``)
naming the argument and the function it was given to: ``The 'n_samples' parameter of
make_moons must be an int in the range [1, inf). Got 0 instead.``  The older ``(value, name)``
order is still understood (a string name in second place), so that callers can move over one
at a time.
"""
import sys
from numbers import Integral

from sklearn.utils import check_random_state

from .._validation import NONNEGATIVE, POSITIVE, interval, check_param

__all__ = ["check_int", "check_nonnegative", "check_positive", "check_rng"]


def _order(name, value):
    if isinstance(value, str) and not isinstance(name, str):
        return value, name              # the older (value, name) order
    return name, value


def _caller():
    """Name of the public function that called the check (for the error message)."""
    return sys._getframe(2).f_code.co_name


def check_int(name, value, minimum=1):
    """``value`` as an int >= ``minimum``."""
    name, value = _order(name, value)
    return int(check_param(name, value, [interval(Integral, minimum, None, closed="left")],
                           _caller()))


def check_nonnegative(name, value):
    """``value`` as a finite float >= 0."""
    name, value = _order(name, value)
    return float(check_param(name, value, NONNEGATIVE, _caller()))


def check_positive(name, value):
    """``value`` as a finite float > 0."""
    name, value = _order(name, value)
    return float(check_param(name, value, POSITIVE, _caller()))


def check_rng(random_state, name="random_state"):
    """:func:`sklearn.utils.check_random_state` of a checked ``random_state``."""
    return check_random_state(check_param(name, random_state, ["random_state"], _caller()))
