"""The feature-selection toys of Chapelle's thesis, ch. 5 (after Weston et al., NIPS 2000).

Chapelle's thesis, ch. 5 ("Toy feature selection"). Two generators, named after the paper that
introduced the problems, that return the data and, on request, the indices of the relevant
features (what a selector should keep):

* :func:`make_weston_linear`: 6 relevant features out of 202, learnt with a linear SVM;
* :func:`make_weston_nonlinear`: 2 relevant features out of 52, learnt with a degree-2
  polynomial kernel.

They draw exactly the samples of :func:`kernelnb.datasets.make_feature_selection_linear` and
:func:`kernelnb.datasets.make_feature_selection_nonlinear` (same ``random_state``, same arrays);
this module adds the relevant-feature indices, the choice of the ``+-1`` label coding and
the choice of reading of the noise level.

Reading of ``N(0, 20)``
-----------------------
The thesis writes the irrelevant features as ``x_i = N(0, 20)``. The second argument can be a
variance or a standard deviation. We read it as a **standard deviation** by default, because the
same recipe writes ``N(i, 1)`` and ``N(0, 1)``, where both readings agree, and the thesis's own
notation elsewhere (``N(mu, sigma)`` with the width) is the standard deviation. The parameter
``noise`` makes the other reading one word away: ``noise='variance'`` draws the noise with
standard deviation ``sqrt(20)``; a number sets the standard deviation directly. The choice matters
only without standardisation: a selector or an SVM that standardises the inputs (the thesis
standardises them, ch. 4.5) sees the same data under both readings.
"""
from __future__ import annotations

import numpy as np

from .._validation import NONNEGATIVE, StrOptions, check_param
from .toy import make_feature_selection_linear, make_feature_selection_nonlinear

__all__ = ["make_weston_linear", "make_weston_nonlinear", "WESTON_NOISE_LEVEL"]

#: The second argument of the thesis's ``N(0, 20)`` for the irrelevant features.
WESTON_NOISE_LEVEL = 20.0


def _noise_std(noise, caller):
    check_param("noise", noise, [StrOptions({"std", "variance"}), *NONNEGATIVE], caller)
    if noise == "std":
        return WESTON_NOISE_LEVEL
    if noise == "variance":
        return float(np.sqrt(WESTON_NOISE_LEVEL))
    return float(noise)


def _labels(y01, labels, caller):
    check_param("labels", labels, [StrOptions({"01", "pm1"})], caller)
    return y01 if labels == "01" else 2 * y01 - 1


def make_weston_linear(n_samples=100, n_features=202, noise="std", labels="01",
                       return_relevant=False, random_state=None):
    """Linear toy of thesis §5.1.3: 6 relevant (and redundant) features out of ``n_features``.

    With ``s = +1`` or ``-1`` with probability 1/2 each: with probability 0.7,
    ``x_i = s N(i, 1)`` for ``i = 1, 2, 3`` and ``x_i = N(0, 1)`` for ``i = 4, 5, 6``; otherwise
    ``x_i = N(0, 1)`` for ``i = 1, 2, 3`` and ``x_i = s N(i - 3, 1)`` for ``i = 4, 5, 6``. The
    other features are noise ``N(0, 20)``, read as a standard deviation of 20 by default (see
    the module docstring; ``noise='variance'`` for the other reading).

    Parameters
    ----------
    n_samples : int, default=100
    n_features : int, default=202
        Total number of features (>= 6): the 6 relevant ones come first.
    noise : {'std', 'variance'} or float, default='std'
        How to read ``N(0, 20)``: standard deviation 20, variance 20 (standard deviation
        ``sqrt(20)``), or the standard deviation itself as a number >= 0.
    labels : {'01', 'pm1'}, default='01'
        Label coding: 0/1 (as the package's other toys) or -1/+1 (``y = s``).
    return_relevant : bool, default=False
        Also return the indices of the relevant features.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), int
    relevant : ndarray of int, ``[0, 1, 2, 3, 4, 5]`` (only with ``return_relevant=True``)
        Two features are enough for a low error: one of each redundant group of three.
    """
    std = _noise_std(noise, "make_weston_linear")
    X, y = make_feature_selection_linear(n_samples, n_features=n_features, noise_std=std,
                                         random_state=random_state)
    y = _labels(y, labels, "make_weston_linear")
    if return_relevant:
        return X, y, np.arange(6)
    return X, y


def make_weston_nonlinear(n_samples=100, n_features=52, noise="std", labels="01",
                          return_relevant=False, random_state=None):
    """Non-linear toy of thesis §5.1.3: 2 relevant features out of ``n_features``.

    With ``s = +1`` or ``-1`` with probability 1/2 each, ``(x_1, x_2) ~ N(mu, I)`` with ``mu``
    drawn with equal probability from ``{(-3/4, -3), (3/4, 3)}`` when ``s = -1`` and from
    ``{(3, -3), (-3, 3)}`` when ``s = +1``; the other features are noise ``N(0, 20)`` (see
    :func:`make_weston_linear` for ``noise``). The thesis learns it with a degree-2 polynomial
    kernel.

    Parameters
    ----------
    n_samples : int, default=100
    n_features : int, default=52
        Total number of features (>= 2): the 2 relevant ones come first.
    noise : {'std', 'variance'} or float, default='std'
    labels : {'01', 'pm1'}, default='01'
    return_relevant : bool, default=False
        Also return the indices of the relevant features (``[0, 1]``).
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), int
    relevant : ndarray of int (only with ``return_relevant=True``)
    """
    std = _noise_std(noise, "make_weston_nonlinear")
    X, y = make_feature_selection_nonlinear(n_samples, n_features=n_features, noise_std=std,
                                            random_state=random_state)
    y = _labels(y, labels, "make_weston_nonlinear")
    if return_relevant:
        return X, y, np.arange(2)
    return X, y
