"""Data cleaning with SVMs: which training labels are most likely wrong (Chapelle's thesis, 5.2).

Every method gives each training point a *suspicion score* (higher: more likely mislabelled);
ranking the points by decreasing score gives the list of suspects (thesis 5.2.3-5.2.4, after
J. Weston, O. Chapelle and I. Guyon, "Data cleaning with support vector machines", Biowulf
Technologies technical report, 2001):

==========  ===================================================================================
``svm_xi``  ``xi_i = 1 - y_i f(x_i)`` of the SVM trained on all the points (SVM-xi)
``sub_xi``  mean ``xi_i`` over the SVMs trained on ``p`` random subsets of ``q`` points that
            leave point i out (SUB-xi)
``loo_xi``  ``1 - y_i f^i(x_i)``, ``f^i`` trained without point i, through the span: when the
            support vectors do not change, ``y_i f^i(x_i) = y_i f(x_i) - alpha_i S_i^2``
            (thesis Theorem 3.8) (LOO-xi)
``grad_c``  one ``C_i`` per point in ``K~ = K + diag(1/C_i)`` (the L2 margin), the radius-margin
            criterion ``R^2(C) W^2(alpha, C)`` (thesis eqs. 5.5-5.6) minimised over the ``C_i``;
            the score is ``1 / C_i`` (GRAD-C)
==========  ===================================================================================

The thesis scores a method by the rank of the one mislabelled point in each of ``k`` runs:
the number of runs where it is ranked first, and the "mean <= 10", ``(1/k) sum_i min(10, r_i)``
(:func:`suspect_rank`, :func:`cleaning_metrics`).  :func:`cleaning_toy_experiment` runs the
protocol of the thesis's Fig. 5.5.

References
----------
O. Chapelle, *Support Vector Machines: Induction Principles, Adaptive Tuning and Prior
Knowledge*, PhD thesis, Universite Paris 6, 2002: section 5.2 (data cleaning), Theorem 3.8 (the
span), Lemma 4.1 and eq. (4.2) (the L2 margin).  J. Weston, O. Chapelle, I. Guyon, *Data
cleaning with support vector machines*, technical report, Biowulf Technologies, 2001.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.utils import check_random_state

from .._validation import (POSITIVE_INT, has_methods, interval, str_options,
                           check_input, check_param)
from ..model_selection._estimates import _Problem
from ..svm import SVC

__all__ = [
    "CLEANING_METHODS",
    "grad_c_objective",
    "rank_suspects",
    "suspect_rank",
    "suspicion_scores",
]

#: The methods of :func:`suspicion_scores`.
CLEANING_METHODS = ("svm_xi", "sub_xi", "loo_xi", "grad_c")

_CALLER = "suspicion_scores"


# ------------------------------------------------------------------------------------------
# Checks
# ------------------------------------------------------------------------------------------
def _check_estimator(estimator, caller):
    check_param("estimator", estimator, [has_methods(["fit", "decision_function"])], caller)
    if not isinstance(estimator, SVC):
        raise ValueError(f"estimator must be a kernelnb.svm.SVC, got {type(estimator).__name__}")
    if isinstance(estimator.kernel, str) and estimator.kernel == "precomputed":
        raise ValueError("estimator: kernel='precomputed' is not supported (the scores "
                         "retrain on subsets of X and evaluate the kernel on X)")
    return estimator


def _check_data(estimator, X, y):
    """X as float64, y as given, and y in {-1, +1} (+1 for the larger label, scikit-learn's
    ``classes_[1]``)."""
    X, y = check_input(clone(estimator), X, y)
    classes = np.unique(y)
    if classes.shape[0] != 2:
        raise ValueError(f"y must hold exactly two classes (the cleaning scores are for binary "
                         f"SVMs), got {classes.shape[0]}")
    return X, y, np.where(y == classes[1], 1.0, -1.0)


def _slacks(model, X, ys):
    """``1 - y_i f(x_i)`` for a fitted binary SVC."""
    return 1.0 - ys * model.decision_function(X)


# ------------------------------------------------------------------------------------------
# The four scores
# ------------------------------------------------------------------------------------------
def _svm_xi(estimator, X, y, ys):
    return _slacks(clone(estimator).fit(X, y), X, ys)


def _draw_subset(rng, ys, q):
    """A random subset of q points holding both classes (redrawn until it does)."""
    n = ys.shape[0]
    for _ in range(1000):
        idx = rng.choice(n, size=q, replace=False)
        if np.unique(ys[idx]).size == 2:
            return idx
    raise ValueError(f"subsample_size={q}: 1000 random subsets in a row held a single class")


def _sub_xi(estimator, X, y, ys, n_subsamples, subsample_size, random_state):
    n = X.shape[0]
    if isinstance(subsample_size, numbers.Integral):
        q = int(subsample_size)
        if not 2 <= q <= n - 1:
            raise ValueError(f"subsample_size must be an int in [2, n_samples - 1] = [2, {n - 1}] "
                             f"or a fraction in (0, 1), got {subsample_size!r}")
    else:
        q = int(round(float(subsample_size) * n))
        if not 2 <= q <= n - 1:
            raise ValueError(f"subsample_size={subsample_size!r} gives subsets of {q} points "
                             f"out of {n}; it must give between 2 and {n - 1}")
    rng = check_random_state(random_state)
    total = np.zeros(n)
    count = np.zeros(n)
    inside = np.zeros(n, dtype=bool)
    for _ in range(n_subsamples):
        idx = _draw_subset(rng, ys, q)
        inside[:] = False
        inside[idx] = True
        model = clone(estimator).fit(X[idx], y[idx])
        out = ~inside
        total[out] += _slacks(model, X[out], ys[out])
        count[out] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = total / count
    if np.any(count == 0):
        warnings.warn(f"sub_xi: {int(np.sum(count == 0))} point(s) were in every subsample and "
                      "have no out-of-sample slack (score nan, ranked last); use more "
                      "subsamples or smaller ones", RuntimeWarning, stacklevel=3)
    return scores


def _loo_xi(estimator, X, y, ys):
    # the span's leave-one-out outputs on the kernel the solver saw (K + I/C for 'l2')
    S2, loo = _Problem(clone(estimator).fit(X, y), X, y).loo_outputs()
    sv = ~np.isnan(S2)
    if not sv.any():
        raise ValueError("loo_xi: the span is undefined for this model (no support vector is "
                         "strictly inside its box 0 < alpha < C); use a larger C or the 'l2' or "
                         "'hard' margin")
    return 1.0 - ys * loo        # non-support vectors: the leave-one-out model is f


class _GradC:
    """R^2(C) W^2(alpha, C) for the L2-margin SVM with one C_i per point (thesis 5.5, 5.6)."""

    def __init__(self, estimator, X, y, ys):
        tol = min(float(estimator.tol), 1e-8)
        self.model = clone(estimator).set_params(margin="l2", C=1.0, class_weight=None,
                                                 precision="float64", tol=tol,
                                                 warm_start=False)
        self.X, self.y, self.ys = X, y, ys
        self.kernel = None
        self.alpha = None

    def _fit(self, C):
        init = None if self.alpha is None else self.ys * self.alpha
        m = self.model.fit(self.X, self.y, sample_weight=C, alpha_init=init)
        if self.kernel is None:
            K = np.asarray(m.kernel_(self.X), dtype=np.float64)
            self.K = 0.5 * (K + K.T)
            n = K.shape[0]
            self.radius_fixed = float(np.trace(self.K) / n - self.K.sum() / n ** 2)
            self.kernel = m.kernel_
        alpha = np.zeros(self.X.shape[0])
        alpha[m.support_] = np.abs(np.asarray(m.dual_coef_, dtype=np.float64)[0])
        self.alpha = alpha
        return alpha

    def value_and_gradient(self, C):
        """``T = R^2 W^2`` and ``dT/dC`` (envelope theorem for ``W^2``, thesis Lemma 4.1)."""
        C = np.asarray(C, dtype=np.float64)
        alpha = self._fit(C)
        n = C.shape[0]
        c = self.ys * alpha
        quad = float(c @ self.K @ c + np.sum(alpha ** 2 / C))
        W2 = float(alpha.sum() - 0.5 * quad)                                   # (5.5)
        R2 = self.radius_fixed + float(np.sum((1.0 - 1.0 / n) / C)) / n       # (5.6)
        dW2 = alpha ** 2 / (2.0 * C ** 2)
        dR2 = -(1.0 - 1.0 / n) / (n * C ** 2)
        return R2 * W2, R2 * dW2 + W2 * dR2, R2, W2


def grad_c_objective(estimator, X, y, C):
    """GRAD-C's criterion ``R^2(C) W^2(alpha, C)`` and its gradient in the per-point ``C_i``.

    The SVM is the L2 soft margin, i.e. the hard margin on ``K~ = K + diag(1/C_i)`` (thesis
    ch. 2), trained with the estimator's kernel in float64.  With ``W^2`` the dual objective
    (thesis eq. 5.5) at its maximum ``alpha`` and ``R^2`` the variance radius of ``K~`` (eq. 5.6,
    the mean squared distance to the centre of mass),

    ``dW^2/dC_p = alpha_p^2 / (2 C_p^2)`` (envelope theorem, thesis Lemma 4.1),
    ``dR^2/dC_p = -(1 - 1/n) / (n C_p^2)``.

    The thesis (5.2.4) prints ``dR^2/dC_p = -(1 - 1/n) / C_p^2``; differentiating its own (5.6)
    gives the extra factor ``1/n`` (checked against finite differences in the tests).  A common
    factor does not change the thesis's conclusion: one gradient step from equal ``C_i`` ranks
    the points by ``alpha_p``, i.e. by ``xi_p = alpha_p / C_p`` (eq. 4.2).

    Parameters
    ----------
    estimator : kernelnb.svm.SVC
        Its kernel parameters are used (``margin``, ``C`` and ``class_weight`` are replaced by the
        L2 margin with the given ``C``).
    X : array of shape (n_samples, n_features)
        Training points.
    y : array of shape (n_samples,)
        Their labels, two classes.
    C : array of shape (n_samples,)
        One positive soft-margin parameter per point.

    Returns
    -------
    value : float
        ``R^2 W^2``.
    gradient : ndarray of shape (n_samples,)
        ``d(R^2 W^2)/dC``.
    """
    _check_estimator(estimator, "grad_c_objective")
    X, y, ys = _check_data(estimator, X, y)
    C = np.asarray(C, dtype=np.float64).ravel()
    if C.shape[0] != X.shape[0] or not np.all(np.isfinite(C)) or np.any(C <= 0):
        raise ValueError(f"C must hold {X.shape[0]} finite positive values, got shape "
                         f"{np.shape(C)}")
    value, grad, _, _ = _GradC(estimator, X, y, ys).value_and_gradient(C)
    return value, grad


def _grad_c(estimator, X, y, ys, max_iter, log_range):
    """Minimise log(R^2 W^2) over log C_i (L-BFGS-B, warm-started SVMs); scores 1 / C_i."""
    problem = _GradC(estimator, X, y, ys)
    c0 = float(estimator.C) if np.isfinite(float(estimator.C)) else 1.0
    t0 = np.full(X.shape[0], np.log(c0))
    cache = {}

    def fun(t):
        key = t.tobytes()
        if key not in cache:
            cache.clear()
            C = np.exp(t)
            value, grad, _, _ = problem.value_and_gradient(C)
            value = max(value, 1e-300)
            cache[key] = (np.log(value), grad * C / value)
        return cache[key]

    bounds = [(np.log(c0) - log_range, np.log(c0) + log_range)] * X.shape[0]
    res = minimize(fun, t0, jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"maxiter": int(max_iter)})
    return np.exp(-res.x)


def suspicion_scores(estimator, X, y, method="svm_xi", *, n_subsamples=100, subsample_size=0.5,
                     max_iter=50, random_state=None):
    """Suspicion score of every training point: higher means more likely mislabelled.

    Parameters
    ----------
    estimator : kernelnb.svm.SVC
        The SVM (kernel, ``C``, margin) the scores are computed with; it is cloned, never
        modified.  The thesis's variants: the hard margin (``margin='hard'``) and the soft
        margin with ``C`` chosen on validation data.
    X : array of shape (n_samples, n_features)
        Training points.
    y : array of shape (n_samples,)
        Their labels, two classes.
    method : {'svm_xi', 'sub_xi', 'loo_xi', 'grad_c'}, default='svm_xi'
        * ``'svm_xi'``: ``xi_i = 1 - y_i f(x_i)`` of the SVM trained on all points.
        * ``'sub_xi'``: ``n_subsamples`` SVMs, each trained on a random subset of
          ``subsample_size`` points (both classes present); the score is the mean of
          ``1 - y_i f(x_i)`` over the SVMs that did not see point i.
        * ``'loo_xi'``: ``1 - y_i f^i(x_i)`` where ``f^i`` is trained without point i, through
          the span (:func:`kernelnb.model_selection.span_values`, thesis Theorem 3.8):
          ``xi_i + alpha_i S_i^2`` for a support vector, ``xi_i`` otherwise (on ``K + I/C`` for
          the L2 margin).  Exact when the support vectors keep their status without point i;
          needs a support vector strictly inside its box for the L1 margin.
        * ``'grad_c'``: one ``C_i`` per point in ``K + diag(1/C_i)``, ``log(R^2 W^2)`` minimised
          over ``log C_i`` by L-BFGS-B from ``C_i = estimator.C`` (1 for an infinite C), within
          ``[C / 1e6, C * 1e6]``; the score is ``1 / C_i`` (thesis 5.2.4; see
          :func:`grad_c_objective`).
    n_subsamples : int >= 1, default=100
        ``p`` of ``'sub_xi'``.
    subsample_size : float in (0, 1) or int >= 2, default=0.5
        ``q`` of ``'sub_xi'``: a fraction of n or a number of points (at most ``n - 1``).  The
        thesis does not state its values; half the points leaves each point out of about half
        the subsets.
    max_iter : int >= 1, default=50
        L-BFGS-B iterations of ``'grad_c'``.
    random_state : int, RandomState or None
        Draws the subsets of ``'sub_xi'``.

    Returns
    -------
    ndarray of shape (n_samples,)
        The scores, higher for the more suspect points (``nan`` where ``'sub_xi'`` has no
        subset without the point).
    """
    check_param("method", method, [str_options(set(CLEANING_METHODS))], _CALLER)
    check_param("n_subsamples", n_subsamples, POSITIVE_INT, _CALLER)
    check_param("subsample_size", subsample_size,
                [interval(numbers.Real, 0, 1, closed="neither"),
                 interval(numbers.Integral, 2, None, closed="left")], _CALLER)
    check_param("max_iter", max_iter, POSITIVE_INT, _CALLER)
    check_param("random_state", random_state, ["random_state"], _CALLER)
    _check_estimator(estimator, _CALLER)
    X, y, ys = _check_data(estimator, X, y)
    if method == "svm_xi":
        return _svm_xi(estimator, X, y, ys)
    if method == "sub_xi":
        return _sub_xi(estimator, X, y, ys, int(n_subsamples), subsample_size, random_state)
    if method == "loo_xi":
        return _loo_xi(estimator, X, y, ys)
    return _grad_c(estimator, X, y, ys, int(max_iter), 6.0 * np.log(10.0))


def rank_suspects(estimator, X, y, method="svm_xi", **kwargs):
    """The training points ordered from most to least suspect.

    Parameters
    ----------
    estimator : kernelnb.svm.SVC
        The SVM the scores are computed with (cloned, never modified).
    X : array of shape (n_samples, n_features)
        Training points.
    y : array of shape (n_samples,)
        Their labels, two classes.
    method : {'svm_xi', 'sub_xi', 'loo_xi', 'grad_c'}, default='svm_xi'
        The score (:func:`suspicion_scores`).
    **kwargs : dict
        Further arguments of :func:`suspicion_scores`.

    Returns
    -------
    order : ndarray of int, shape (n_samples,)
        Indices of the points by decreasing score (ties in index order; ``nan`` last).
    scores : ndarray of shape (n_samples,)
        The scores, in the original order of the points.
    """
    scores = suspicion_scores(estimator, X, y, method, **kwargs)
    return _order(scores), scores


def _order(scores):
    key = np.where(np.isnan(scores), -np.inf, scores)
    return np.argsort(-key, kind="stable")


def suspect_rank(scores, index):
    """Rank (1 = most suspect) of point ``index`` under ``scores``.

    One plus the number of points scored higher, plus the tied ones before it (the order of
    :func:`rank_suspects`).

    Parameters
    ----------
    scores : array of shape (n_samples,)
        Suspicion scores (:func:`suspicion_scores`).
    index : int
        The point whose rank is wanted (e.g. the deliberately mislabelled one).

    Returns
    -------
    int
        The rank, from 1.
    """
    scores = np.asarray(scores, dtype=np.float64).ravel()
    check_param("index", index, [interval(numbers.Integral, 0, scores.shape[0] - 1,
                                          closed="both")], "suspect_rank")
    order = _order(scores)
    return int(np.flatnonzero(order == index)[0]) + 1
