"""Argument checks shared by the data-set generators and loaders."""
import numbers

import numpy as np
from sklearn.utils import check_random_state


def check_int(value, name, minimum=1):
    """Return ``value`` as an int, or raise a TypeError/ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def check_nonnegative(value, name):
    """Return ``value`` as a finite float >= 0, or raise a TypeError/ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def check_positive(value, name):
    """Return ``value`` as a finite float > 0, or raise naming ``name``."""
    value = check_nonnegative(value, name)
    if value == 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return value


def check_rng(random_state):
    """:func:`sklearn.utils.check_random_state`, with an error that names ``random_state``."""
    try:
        return check_random_state(random_state)
    except ValueError:
        raise ValueError(f"random_state must be None, an int or a numpy RandomState, "
                         f"got {random_state!r}") from None
