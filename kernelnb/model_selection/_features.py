"""Feature selection with SVMs (Chapelle's thesis, ch. 5.1; Weston et al., NIPS 2000).

Chapelle's thesis §5.1 (after Weston et al., NIPS 2000). Three families:

* :class:`ScalingSelector`, the thesis's method: one scaling factor per feature inside the kernel,
  ``k_s(x, y) = k(s * x, s * y)``, all set to 1, optimised by gradient descent on a bound of the
  leave-one-out error (``R^2/M^2`` by default), then backward elimination of the features with
  the smallest factors (half of them while more than 10 remain, then one at a time), the
  remaining factors being re-optimised after each removal;
* :class:`SVMRFE`, recursive feature elimination (Guyon et al., 2002): retrain, drop the
  feature(s) whose removal changes ``||w||^2 = sum_ij a_i a_j y_i y_j K_ij`` least with the
  multipliers held fixed: ``w_p^2`` for a linear kernel, ``|W^2 - W^2_(p)|`` with ``K^(p)`` the
  kernel without feature ``p`` for the others;
* :class:`ForwardSpanSelector`, forward selection on the span estimate (the thesis's
  comparison of §5.1.4): add, one at a time, the feature whose SVM has the smallest span
  estimate of the leave-one-out error;
* :func:`filter_scores`, the filter baselines of the thesis's comparison (Pearson correlation,
  Fisher criterion, Kolmogorov-Smirnov statistic).

The selectors follow scikit-learn (:class:`~sklearn.feature_selection.SelectorMixin`):
``support_``, ``ranking_`` (1 for the kept features, larger for those removed earlier, as
:class:`sklearn.feature_selection.RFE`), ``get_support()``, ``transform(X)``; ``estimator_`` is
the SVM refitted on the kept features (with their scaling factors for :class:`ScalingSelector`),
used by ``predict`` / ``decision_function`` / ``score``.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import ClassifierTags
from sklearn.utils.validation import check_is_fitted, check_X_y

from .. import kernels as _k
from .._callbacks import run_to_end
from .._fit import fit_context, fit_steps
from .._validation import (CALLBACK, POSITIVE, POSITIVE_INT, interval, str_options,
                           check_input, check_param)
from ..svm import SVC
from ._estimates import _check_eta, _Problem, _span_rate
from ._gradient import CRITERIA, RADII

__all__ = ["ScalingSelector", "SVMRFE", "ForwardSpanSelector", "filter_scores", "rfe_scores",
           "span_criterion"]


# -- shared checks ---------------------------------------------------------------------------
def _check_n_select(value, n_features, caller, name="n_features_to_select"):
    check_param(name, value, POSITIVE_INT, caller)
    if value > n_features:
        raise ValueError(f"{name}={value!r} is larger than the number of features "
                         f"({n_features})")
    return int(value)


def _check_binary(y):
    classes = np.unique(y)
    if classes.shape[0] != 2:
        n = classes.shape[0]
        raise ValueError(f"feature selection needs exactly two classes in y, got {n} "
                         f"class{'' if n == 1 else 'es'} ({classes[:5]!r})")
    return classes


def _check_svc(estimator, default):
    """A clone of the estimator (an SVC: the parameter tables check its type) or the default."""
    return clone(default if estimator is None else estimator)


class _BinarySelectorMixin:
    """Tags of the SVM feature selectors: they take class labels, two classes only."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags = ClassifierTags(multi_class=False)
        tags.target_tags.required = True
        return tags

    def _precision(self):
        """The precision of the SVM solver the inputs go to (float32 by default)."""
        return getattr(self.estimator, "precision", "float32")

    def _check_input(self, X, y="no_validation", reset=True, **kwargs):
        return check_input(self, X, y, reset=reset, precision=self._precision(), **kwargs)

    def transform(self, X):
        """The kept features of X (checked as every other input)."""
        check_is_fitted(self, "support_")
        return super().transform(self._check_input(X, reset=False))


# -- filters ---------------------------------------------------------------------------------
def filter_scores(X, y, method="fisher"):
    """Filter scores of the features (larger = more relevant), thesis §5.1.3.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs.
    y : array-like of shape (n_samples,)
        Labels (two classes).
    method : {'fisher', 'pearson', 'ks'}, default='fisher'
        * ``'fisher'``: ``|mu+ - mu-| / sqrt(sd+^2 + sd-^2)`` (per-class means and standard
          deviations);
        * ``'pearson'``: absolute Pearson correlation between the feature and the ``+-1`` label;
        * ``'ks'``: ``sqrt(n) sup_t |F(t) - F+(t)|``, the Kolmogorov-Smirnov distance between the
          feature's empirical distribution and that of the positive class.

    Returns
    -------
    ndarray of shape (n_features,)
        The score of each feature.
    """
    check_param("method", method, [str_options({"fisher", "pearson", "ks"})], "filter_scores")
    X, y = check_X_y(X, y, dtype=np.float64)
    classes = _check_binary(y)
    pos = y == classes[1]
    if method == "fisher":
        mp, mn = X[pos].mean(axis=0), X[~pos].mean(axis=0)
        vp, vn = X[pos].var(axis=0), X[~pos].var(axis=0)
        den = np.sqrt(vp + vn)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(den > 0, np.abs(mp - mn) / np.where(den > 0, den, 1.0), 0.0)
        return out
    if method == "pearson":
        s = np.where(pos, 1.0, -1.0)
        Xc = X - X.mean(axis=0)
        sc = s - s.mean()
        den = np.sqrt((Xc ** 2).sum(axis=0) * (sc ** 2).sum())
        return np.where(den > 0, np.abs(Xc.T @ sc) / np.where(den > 0, den, 1.0), 0.0)
    if method == "ks":
        n = X.shape[0]
        out = np.empty(X.shape[1])
        for p in range(X.shape[1]):
            order = np.argsort(X[:, p], kind="stable")
            xs = X[order, p]
            # evaluate both empirical CDFs after each distinct value
            last = np.r_[xs[1:] != xs[:-1], True]
            F = (np.arange(1, n + 1) / n)[last]
            Fp = (np.cumsum(pos[order]) / max(pos.sum(), 1))[last]
            out[p] = np.sqrt(n) * np.max(np.abs(F - Fp))
        return out
    raise ValueError(f"method must be 'fisher', 'pearson' or 'ks', got {method!r}")


# -- RFE -------------------------------------------------------------------------------------
def _w2_without(kern, Xsv, coef):
    """``W2 = c'Kc`` and ``W2_(p) = c'K^(p)c`` for every feature p (``c = y * alpha``), where
    ``K^(p)`` is ``kern`` evaluated with feature p removed (the RBF's scale of p removed too)."""
    d = Xsv.shape[1]
    out = np.empty(d)
    if isinstance(kern, _k.Linear):
        G = Xsv @ Xsv.T
        W2 = coef @ G @ coef
        w = coef @ Xsv
        return W2, W2 - w ** 2
    if isinstance(kern, _k.Polynomial):
        G = Xsv @ Xsv.T
        K = (G + kern.coef0) ** kern.degree
        W2 = coef @ K @ coef
        for p in range(d):
            Kp = (G - np.outer(Xsv[:, p], Xsv[:, p]) + kern.coef0) ** kern.degree
            out[p] = coef @ Kp @ coef
        return W2, out
    if isinstance(kern, _k.RBF):
        K = kern(Xsv)
        W2 = coef @ K @ coef
        s = np.ones(d) if kern.scales is None else kern.scales
        for p in range(d):
            diff = Xsv[:, p][:, None] - Xsv[:, p][None, :]
            # the exponent loses the term of feature p: K^(p) = K * exp(gamma s_p^2 (x_p - x'_p)^2)
            out[p] = coef @ (K * np.exp(kern.gamma * s[p] ** 2 * diff ** 2)) @ coef
        return W2, out
    if isinstance(kern, _k.CallableKernel):
        K = kern(Xsv)
        W2 = coef @ K @ coef
        for p in range(d):
            keep = np.arange(d) != p
            out[p] = coef @ kern(Xsv[:, keep]) @ coef
        return W2, out
    raise ValueError(f"non-linear RFE needs a kernel computed from the features; got "
                     f"{type(kern).__name__}")


def rfe_scores(fitted, X):
    """Importance of each feature for (non-linear) RFE, from a fitted binary SVC.

    ``|W^2 - W^2_(p)|`` where ``W^2 = sum_ij a_i a_j y_i y_j K(x_i, x_j)`` and ``W^2_(p)`` is the
    same sum with feature ``p`` removed from the kernel and the multipliers held fixed (thesis
    §5.1.2, "Non-linear RFE"). For a linear kernel it equals ``w_p^2``. The feature with the
    smallest importance is the first to go.

    Parameters
    ----------
    fitted : kernelnb.svm.SVC
        Fitted on ``X`` with two classes.
    X : array of shape (n_samples, n_features)
        The training data of ``fitted``.

    Returns
    -------
    importance : ndarray of shape (n_features,)
        ``|W^2 - W^2_(p)|`` for every feature p.
    W2 : float
        ``||w||^2`` of the fitted machine.
    W2_without : ndarray of shape (n_features,)
        The scores ``sum_ij a_i a_j y_i y_j K^(p)_ij`` of the thesis.
    """
    check_is_fitted(fitted, "dual_coef_")
    if fitted.dual_coef_.shape[0] != 1:
        raise ValueError("rfe_scores needs an SVC fitted on two classes")
    X = np.asarray(X, dtype=np.float64)
    Xsv = X[fitted.support_]
    coef = np.asarray(fitted.dual_coef_[0], dtype=np.float64)
    W2, W2p = _w2_without(fitted.kernel_, Xsv, coef)
    return np.abs(W2 - W2p), float(W2), W2p


class SVMRFE(_BinarySelectorMixin, SelectorMixin, BaseEstimator):
    """Recursive feature elimination with an SVM, linear or non-linear (thesis §5.1.2).

    At each step the SVM is retrained on the remaining features and the ``step`` features with
    the smallest importance (:func:`rfe_scores`: ``w_p^2`` for a linear kernel, the change of
    ``||w||^2`` with the multipliers fixed for the others) are removed, until
    ``n_features_to_select`` remain.

    Parameters
    ----------
    estimator : SVC or None, default=None
        The :class:`kernelnb.svm.SVC` (cloned). None: ``SVC(kernel=kernel, C=1, n_jobs=1)``,
        with ``degree=2, coef0=1`` for ``'poly'`` (the thesis's non-linear toy) and
        ``sigma='scale'`` for ``'rbf'``.
    n_features_to_select : int, default=2
        The number of features kept.
    step : int or float, default=1
        Features removed per step (an int >= 1), or a fraction in (0, 1) of the initial number
        of features.
    kernel : {'linear', 'poly', 'rbf'} or None, default=None
        Kernel of the default estimator, or set on a given one; None keeps the estimator's
        (linear for the default estimator).
    verbose : bool, default=False
        Print one line per step.
    callback : callable or None, default=None
        ``callback(record)``, called after each step with the dict appended to ``history_``
        (its ``iteration`` is the step's index); returning ``False`` stops there, with the
        features kept so far selected.

    Attributes
    ----------
    support_ : ndarray of bool, shape (n_features,)
        The kept features.
    ranking_ : ndarray of int, shape (n_features,)
        1 for the kept features; features removed at the last step get 2, the step before 3, ...
    history_ : list of dict
        Per step: ``features`` (indices before the removal), ``removed``, ``importance`` (of the
        features before the removal, same order), ``W2``.
    estimator_ : SVC
        Refitted on the kept features.
    n_trainings_ : int
        SVM trainings done (the final refit included).
    n_iter_ : int
        Elimination steps done.
    classes_ : ndarray of shape (2,)
        The class labels.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.model_selection import SVMRFE
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(60, 6))
    >>> y = (X[:, 1] + X[:, 4] > 0).astype(int)
    >>> rfe = SVMRFE(n_features_to_select=2).fit(X, y)
    >>> print(np.flatnonzero(rfe.support_))
    [1 4]
    >>> print(rfe.ranking_)
    [4 1 3 2 1 5]
    >>> print(rfe.transform(X).shape)
    (60, 2)
    """

    _parameter_constraints = {
        "estimator": [SVC, None],
        "n_features_to_select": POSITIVE_INT,
        "step": [interval(numbers.Integral, 1, None, closed="left"),
                 interval("real_not_int", 0, 1, closed="neither")],
        "kernel": [str_options({"linear", "poly", "rbf"}), None],
        "verbose": ["verbose"],
        "callback": CALLBACK,
    }

    def __init__(self, estimator=None, *, n_features_to_select=2, step=1, kernel=None, verbose=False,
                 callback=None):
        self.estimator = estimator
        self.n_features_to_select = n_features_to_select
        self.step = step
        self.kernel = kernel
        self.verbose = verbose
        self.callback = callback

    def _make_estimator(self):
        kernel = self.kernel
        if self.estimator is None:
            kernel = kernel or "linear"
            extra = {"poly": dict(degree=2, coef0=1.0), "rbf": dict(sigma="scale")}.get(kernel, {})
            return SVC(kernel=kernel, C=1.0, n_jobs=1, **extra)
        est = _check_svc(self.estimator, None)
        if kernel is not None:
            est.set_params(kernel=kernel)
        if not isinstance(est.kernel, str) and not callable(est.kernel):
            raise ValueError(f"estimator kernel must be a name or a callable, got {est.kernel!r}")
        if est.kernel == "precomputed":
            raise ValueError("SVMRFE needs the features: kernel='precomputed' is not supported")
        return est

    def _step_size(self, d):
        step = self.step
        if 0 < step < 1:
            return max(1, int(step * d))
        return int(step)

    @fit_context
    def fit(self, X, y):
        """Run the elimination on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Training labels (two classes).

        Returns
        -------
        self : SVMRFE
            The fitted selector.
        """
        X, y = self._check_input(X, y, ensure_min_features=1)
        d = X.shape[1]
        k = _check_n_select(self.n_features_to_select, d, "SVMRFE")
        step = self._step_size(d)
        self.classes_ = _check_binary(y)
        base = self._make_estimator()
        support = np.ones(d, dtype=bool)
        ranking = np.ones(d, dtype=np.int64)
        self.history_ = []
        self.n_trainings_ = 0
        while support.sum() > k:
            feats = np.flatnonzero(support)
            est = clone(base).fit(X[:, feats], y)
            self.n_trainings_ += 1
            imp, W2, _ = rfe_scores(est, X[:, feats])
            n_out = min(step, feats.shape[0] - k)
            out = feats[np.argsort(imp, kind="stable")[:n_out]]
            support[out] = False
            ranking[~support] += 1
            rec = dict(iteration=len(self.history_), features=feats, removed=out,
                       importance=imp, W2=W2)
            self.history_.append(rec)
            if self.verbose:
                print(f"[SVMRFE] {feats.shape[0]} features, removed {out.tolist()}", flush=True)
            if self.callback is not None and self.callback(rec) is False:
                break
        self.support_ = support
        self.ranking_ = ranking
        self.n_iter_ = len(self.history_)
        self.estimator_ = clone(base).fit(X[:, support], y)
        self.n_trainings_ += 1
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def decision_function(self, X):
        """The refitted SVM's decision on the kept features."""
        check_is_fitted(self, "support_")
        return self.estimator_.decision_function(self.transform(X))

    def predict(self, X):
        check_is_fitted(self, "support_")
        return self.estimator_.predict(self.transform(X))

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y)))


# -- forward selection on the span -----------------------------------------------------------
def span_criterion(fitted, X, y, span_regularization=0.0):
    """The criterion of forward selection: the span estimate and its continuous tie-breaker.

    Parameters
    ----------
    fitted : kernelnb.svm.SVC
        Fitted on ``(X, y)`` with two classes.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.
    span_regularization : float, default=0.0
        ``eta`` of the span (:func:`kernelnb.model_selection.span_values`).

    Returns
    -------
    rate : float
        The span estimate of the leave-one-out error rate
        (:func:`kernelnb.model_selection.span_estimate`).
    hinge : float
        The mean leave-one-out hinge loss ``(1/n) sum_p (1 - y_p f^p(x_p))_+`` with the
        leave-one-out outputs of Theorem 3.8, ``y_p f^p(x_p) = y_p f(x_p) - alpha_p S_p^2``
        (on ``K~`` for the L2 margin): a count of errors is often tied between candidate
        features on few points, this continuous loss is not.
    """
    eta = _check_eta(span_regularization)
    pb = _Problem(fitted, X, y)
    rate = _span_rate(pb, eta)
    S2, _ = pb.spans(eta)
    yf_loo = pb.yft - pb.alpha * np.where(np.isnan(S2), 0.0, S2)
    return rate, float(np.mean(np.maximum(0.0, 1.0 - yf_loo)))


class ForwardSpanSelector(_BinarySelectorMixin, SelectorMixin, BaseEstimator):
    """Forward feature selection on the span estimate (Chapelle's thesis, §5.1.4).

    Starting from no feature, each step trains one SVM per remaining feature on the features
    chosen so far plus that one, and adds the feature whose SVM has the smallest span estimate
    of the leave-one-out error (thesis 3.11; ties broken by the span's leave-one-out hinge loss,
    then by the feature's index; :func:`span_criterion`), until ``n_features_to_select`` are
    chosen.  A step costs ``n_features`` SVM trainings and as many ``O(N_SV^3)`` spans.  The
    thesis found it marginally better than gradient descent on ``R^2/M^2``
    (:class:`ScalingSelector`) on the Weston et al. toys.

    Parameters
    ----------
    estimator : SVC or None, default=None
        The :class:`kernelnb.svm.SVC` (cloned). None: ``SVC(kernel=kernel, C=1, n_jobs=1)``,
        with ``degree=2, coef0=1`` for ``'poly'`` and ``sigma='scale'`` for ``'rbf'``.
    n_features_to_select : int, default=2
        The number of features chosen.
    kernel : {'linear', 'poly', 'rbf'} or None, default=None
        Kernel of the default estimator, or set on a given one; None keeps the estimator's
        (linear for the default estimator).
    span_regularization : float, default=0.0
        ``eta`` of the span (0: the plain span; 0.1: the thesis's smoothed span, §4.4.4).
    verbose : bool, default=False
        Print one line per step.
    callback : callable or None, default=None
        ``callback(record)``, called after each step with the dict appended to ``history_``;
        returning ``False`` stops there, with the features chosen so far selected.

    Attributes
    ----------
    support_ : ndarray of bool, shape (n_features,)
        The chosen features.
    order_ : ndarray of int
        The chosen features in the order they were added.
    ranking_ : ndarray of int, shape (n_features,)
        1 for the chosen features, 2 for the others (they were never ranked among themselves).
    history_ : list of dict
        Per step: ``iteration``, ``selected`` (the features before the step), ``candidates``,
        ``span`` (the span estimate of each candidate's SVM), ``hinge`` (the tie-breaker),
        ``added`` and ``estimator`` (the SVM of the step's choice, on the columns
        ``selected`` then ``added``, in that order).
    estimator_ : SVC
        Refitted on the chosen features.
    n_trainings_ : int
        SVM trainings done (the final refit included).
    n_iter_ : int
        Steps done.
    classes_ : ndarray of shape (2,)
        The class labels.
    n_features_in_ : int
        Number of features seen in ``fit``.

    References
    ----------
    O. Chapelle, PhD thesis, Université Paris 6, 2002, section 5.1; J. Weston, S. Mukherjee,
    O. Chapelle, M. Pontil, T. Poggio and V. Vapnik, Feature selection for SVMs, NIPS 13, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.model_selection import ForwardSpanSelector
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(60, 6))
    >>> y = (X[:, 1] + X[:, 4] > 0).astype(int)
    >>> sel = ForwardSpanSelector(n_features_to_select=2).fit(X, y)
    >>> print(sel.order_)
    [1 4]
    >>> print(sel.transform(X).shape)
    (60, 2)
    """

    _parameter_constraints = {
        "estimator": [SVC, None],
        "n_features_to_select": POSITIVE_INT,
        "kernel": [str_options({"linear", "poly", "rbf"}), None],
        "span_regularization": [interval(numbers.Real, 0, None, closed="left")],
        "verbose": ["verbose"],
        "callback": CALLBACK,
    }

    def __init__(self, estimator=None, *, n_features_to_select=2, kernel=None,
                 span_regularization=0.0, verbose=False, callback=None):
        self.estimator = estimator
        self.n_features_to_select = n_features_to_select
        self.kernel = kernel
        self.span_regularization = span_regularization
        self.verbose = verbose
        self.callback = callback

    def _make_estimator(self):
        est = SVMRFE._make_estimator(self)
        if est.kernel == "precomputed" or callable(est.kernel):
            raise ValueError("ForwardSpanSelector evaluates the span on the features: the "
                             "estimator's kernel must be 'linear', 'poly' or 'rbf'")
        return est

    @fit_context
    def fit(self, X, y):
        """Run the forward selection on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Training labels (two classes).

        Returns
        -------
        self : ForwardSpanSelector
            The fitted selector.
        """
        return run_to_end(self._fit_steps(X, y))

    @fit_steps
    def _fit_steps(self, X, y):
        """:meth:`fit` as a generator (for a dashboard that draws each step): it yields None
        after each SVM training and the record of ``history_`` after each step, and returns
        the fitted selector."""
        X, y = self._check_input(X, y, ensure_min_features=1)
        d = X.shape[1]
        k = _check_n_select(self.n_features_to_select, d, "ForwardSpanSelector")
        self.classes_ = _check_binary(y)
        base = self._make_estimator()
        eta = float(self.span_regularization)
        order = []
        self.history_ = []
        self.n_trainings_ = 0
        while len(order) < k:
            cand = np.array([j for j in range(d) if j not in order])
            span = np.empty(cand.shape[0])
            hinge = np.empty(cand.shape[0])
            fitted = []
            for i, j in enumerate(cand):
                feats = order + [int(j)]
                fitted.append(clone(base).fit(X[:, feats], y))
                self.n_trainings_ += 1
                span[i], hinge[i] = span_criterion(fitted[-1], X[:, feats], y, eta)
                yield None
            i_best = int(np.lexsort((cand, hinge, span))[0])
            best = int(cand[i_best])
            rec = dict(iteration=len(self.history_), selected=np.array(order, dtype=int),
                       candidates=cand, span=span, hinge=hinge, added=best,
                       estimator=fitted[i_best])
            del fitted
            order.append(best)
            self.history_.append(rec)
            if self.verbose:
                print(f"[ForwardSpanSelector] added {best} (span {span.min():.3f})", flush=True)
            if self.callback is not None and self.callback(rec) is False:
                break
            if len(order) < k:
                yield rec
        self.order_ = np.array(order, dtype=int)
        support = np.zeros(d, dtype=bool)
        support[self.order_] = True
        self.support_ = support
        self.ranking_ = np.where(support, 1, 2)
        self.n_iter_ = len(self.history_)
        self.estimator_ = clone(base).fit(X[:, support], y)
        self.n_trainings_ += 1
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def decision_function(self, X):
        """The refitted SVM's decision on the chosen features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs with all the features.

        Returns
        -------
        ndarray of shape (n_samples,)
            The decision values.
        """
        check_is_fitted(self, "support_")
        return self.estimator_.decision_function(self.transform(X))

    def predict(self, X):
        """The refitted SVM's labels on the chosen features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs with all the features.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels.
        """
        check_is_fitted(self, "support_")
        return self.estimator_.predict(self.transform(X))

    def score(self, X, y):
        """Accuracy of :meth:`predict` on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs with all the features.
        y : array-like of shape (n_samples,)
            True labels.

        Returns
        -------
        float
            The fraction of correct labels.
        """
        return float(np.mean(self.predict(X) == np.asarray(y)))


# -- scaling factors -------------------------------------------------------------------------
def _gradient_api():
    """``(criterion_and_gradient, full_dual)`` of :mod:`kernelnb.model_selection._gradient`."""
    from ._gradient import criterion_and_gradient, full_dual
    return criterion_and_gradient, full_dual


def _normalized_log_scales(theta, var, total):
    """Log factors ``phi = theta - 1/2 log(sum_p exp(2 theta_p) var_p / total)``, for which
    ``sum_p exp(2 phi_p) var_p = total``, and the weights ``w`` of the Jacobian
    ``d phi / d theta = I - 1 w'`` (``w_q = exp(2 theta_q) var_q / sum_p exp(2 theta_p) var_p``):
    a gradient ``g`` in ``phi`` is ``g - w * sum(g)`` in ``theta``."""
    top = theta.max()
    e = np.exp(2.0 * (theta - top)) * var
    w = e / e.sum()
    return theta - (0.5 * np.log(e.sum() / total) + top), w


class _Stop(Exception):
    """Raised inside the optimisation when the callback returns False."""


_SCHEDULES = ("thesis", "half", "one")


class ScalingSelector(_BinarySelectorMixin, SelectorMixin, BaseEstimator):
    """Feature selection by scaling factors (Chapelle's thesis, ch. 5.1, after Weston et al.).

    One factor ``s_p`` per feature (or per group of features) enters the kernel as
    ``k(s * x, s * y)``. Starting from ``s = 1``, the factors are optimised by L-BFGS-B on
    ``log s`` to minimise a bound on the leave-one-out error (``R^2/M^2`` by default, with the
    gradient of :func:`kernelnb.model_selection.criterion_and_gradient`: one SVM training per
    evaluation, warm-started from the previous multipliers). Then the features with the smallest
    factors are removed and the remaining factors re-optimised, until ``n_features_to_select``
    remain. With ``schedule='thesis'`` half of the features go while more than 10 are left, then
    one at a time (the thesis's "coarse" and "accurate" regimes, ranking by the factors).

    Parameters
    ----------
    estimator : SVC or None, default=None
        The :class:`kernelnb.svm.SVC` whose kernel gets the factors (cloned). None:
        ``SVC(kernel='linear', C=10, margin='l2', n_jobs=1, max_iter=100000)`` (one thread:
        the problems are small; an iteration cap: far from the optimum, with very unequal
        factors, the solver can converge slowly): the L2 soft margin, a hard margin on
        ``K + I/C``, for which ``R^2/M^2`` is a bound and differentiable (thesis ch. 4). For
        ``'rbf'`` the factors are the SVC's ``scales``; for ``'linear'`` and ``'poly'`` they
        multiply the inputs.
    n_features_to_select : int, default=2
        Stop when this many features (groups with ``groups``) remain; the number of features
        itself means no elimination (only the factors are optimised).
    criterion : str, default='radius_margin'
        Passed to :func:`criterion_and_gradient` (``'radius_margin'`` or ``'span'``).
    schedule : {'thesis', 'half', 'one'}, default='thesis'
        How many features go after each optimisation: half while more than 10 remain then one
        ('thesis'), always half ('half'), or one at a time ('one'); never below
        ``n_features_to_select``.
    radius : str, default='variance'
        The ``R^2`` of the criterion (``'variance'``: ``beta_i = 1/n``, the thesis's advice).
    max_iter : int, default=30
        L-BFGS-B iterations per optimisation (stage).
    tol : float, default=1e-4
        Relative decrease of the criterion below which a stage stops (L-BFGS-B's ``ftol``).
    scale_bounds : (float, float), default=(1e-4, 1e4)
        Bounds of each factor during the optimisation (a factor at the lower bound is
        effectively removed; the bound keeps ``log s`` finite).
    normalize : bool, default=True
        Keep ``sum_p s_p^2 Var(x_p)`` at its initial value (the sum of the variances), i.e.
        optimise the factors' *proportions* only. Their common scale is not a choice of
        features: for an RBF kernel it is the width, for the L2 margin it sets the weight of
        ``I/C`` against ``K``, and ``R^2/M^2`` then keeps decreasing as all factors grow (the
        SVM's condition number growing with them). Implemented as the change of variables
        ``log s = theta - 1/2 log(sum_p exp(2 theta_p) Var(x_p) / V0)``; the kept features' share
        grows as others are removed.
    removal : {'scales', 'explicit'}, default='scales'
        Which features go: those with the smallest factors, or, where one feature goes at a
        time, the one whose removal gives the smallest criterion of the SVM retrained without
        it (the thesis's "explicit" refined removal, one training per remaining feature; the
        thesis scores the accurate regime with the span: ``removal_criterion='span'``).
    removal_criterion : str, optional
        Criterion of the explicit removal (default: ``criterion``).
    groups : array of int of shape (n_features,), optional
        Group of each feature: one factor per group (e.g. 2x2 tiles of an image); elimination
        removes whole groups and ``n_features_to_select`` counts groups.
    verbose : bool or int, default=False
        True (or 1): one line per stage; 2: one line per evaluation.
    callback : callable or None, default=None
        ``callback(record)``, called after every evaluation with a dict: ``iteration`` (the
        evaluation's index within its stage), ``stage``, ``evaluation``, ``n_features``,
        ``criterion``, ``scales`` (all features, zeros for the removed ones), ``n_trainings``,
        ``features`` (the indices in use) and ``estimator`` (the SVM of this evaluation, fitted
        on ``X[:, features]``, times ``scales[features]`` for the linear and polynomial kernels).
        Returning ``False`` stops the whole run; the selector is then fitted with the state
        reached (``stopped_ = True``).

    Attributes
    ----------
    scales_ : ndarray of shape (n_features,)
        Final factors, zeros for the removed features.
    support_ : ndarray of bool, shape (n_features,)
        The kept features.
    ranking_ : ndarray of int, shape (n_features,)
        1 for the kept features, 2 for those removed at the last elimination, 3 the one before...
    history_ : list of dict
        Per stage (one optimisation): ``features`` (indices kept during it), ``criterion`` (at
        its end), ``criterion_start``, ``scales`` (all features), ``n_evaluations``, ``removed``
        (features removed after it), ``estimator`` (the SVM at the stage's final factors) and,
        after an explicit removal, ``removal_scores`` (criterion without each remaining group).
    trace_ : list of dict
        Every evaluation's record (as passed to ``callback``).
    estimator_ : SVC
        The SVM at the final factors, fitted on the kept features.
    n_trainings_ : int
        SVM trainings done.
    n_iter_ : int
        Criterion evaluations of the optimisations, all stages together.
    fit_time_ : float
        Seconds of the whole fit.
    stopped_ : bool
        Whether the callback stopped the run.
    classes_ : ndarray of shape (2,)
        The class labels.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Notes
    -----
    On the linear toy of the thesis (:func:`kernelnb.datasets.make_feature_selection_linear`,
    30 training points, standardised), a linear SVM on all 202 features errs on 26.7% of the test
    points and the SVM with the optimised factors on 4.6% (thesis Fig. 5.3: 28% and 4.6%), measured over
    100 draws by ``benchmarks/bench_feature_selection.py``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.model_selection import ScalingSelector
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(30, 4))
    >>> y = (X[:, 0] - X[:, 3] > 0).astype(int)
    >>> sel = ScalingSelector(n_features_to_select=2, schedule="half").fit(X, y)
    >>> print(np.flatnonzero(sel.support_))
    [0 3]
    >>> print(sel.predict(X[:5]), y[:5])
    [0 1 0 1 1] [0 1 0 1 1]
    """

    _parameter_constraints = {
        "estimator": [SVC, None],
        "n_features_to_select": POSITIVE_INT,
        "criterion": [str_options(set(CRITERIA))],
        "schedule": [str_options(set(_SCHEDULES))],
        "radius": [str_options(set(RADII))],
        "max_iter": POSITIVE_INT,
        "tol": POSITIVE,
        "scale_bounds": ["array-like"],
        "normalize": ["boolean"],
        "removal": [str_options({"scales", "explicit"})],
        "removal_criterion": [str_options(set(CRITERIA)), None],
        "groups": ["array-like", None],
        "verbose": ["verbose"],
        "callback": CALLBACK,
    }

    def __init__(self, estimator=None, *, n_features_to_select=2, criterion="radius_margin",
                 schedule="thesis", radius="variance", max_iter=30, tol=1e-4,
                 scale_bounds=(1e-4, 1e4), normalize=True, removal="scales",
                 removal_criterion=None, groups=None, verbose=False, callback=None):
        self.estimator = estimator
        self.n_features_to_select = n_features_to_select
        self.criterion = criterion
        self.schedule = schedule
        self.radius = radius
        self.max_iter = max_iter
        self.tol = tol
        self.scale_bounds = scale_bounds
        self.normalize = normalize
        self.removal = removal
        self.removal_criterion = removal_criterion
        self.groups = groups
        self.verbose = verbose
        self.callback = callback

    # -- checks ------------------------------------------------------------------------------
    def _check_params_extra(self):
        """The rules the parameter table cannot state: the bounds' order and the kernel."""
        self._scale_bounds()
        kernel = self._base_estimator().kernel
        if kernel not in ("linear", "poly", "rbf"):
            raise ValueError(f"the estimator's kernel must be 'linear', 'poly' or 'rbf' for "
                             f"scaling factors, got {kernel!r}")

    def _scale_bounds(self):
        """``scale_bounds`` as two floats ``0 < low < 1 < high``."""
        try:
            lo, hi = (float(v) for v in self.scale_bounds)
        except (TypeError, ValueError):
            raise ValueError(f"scale_bounds must be two numbers 0 < low < 1 < high, got "
                             f"{self.scale_bounds!r}") from None
        if not (0 < lo < 1 < hi < np.inf):
            raise ValueError(f"scale_bounds must be two numbers 0 < low < 1 < high, got "
                             f"{self.scale_bounds!r}")
        return lo, hi

    def _base_estimator(self):
        """A clone of the SVM whose kernel gets the factors (the default one if None)."""
        return _check_svc(self.estimator, SVC(kernel="linear", C=10.0, margin="l2", n_jobs=1,
                                              max_iter=100000))

    def _validate(self, d):
        """The relations with the data: the groups and the number of them to select."""
        if self.groups is None:
            groups = np.arange(d)
        else:
            g = np.asarray(self.groups)
            if g.shape != (d,) or not np.issubdtype(g.dtype, np.integer):
                raise ValueError(f"groups must be {d} integers (one per feature), got "
                                 f"{np.shape(self.groups)} of dtype {g.dtype}")
            _, groups = np.unique(g, return_inverse=True)
        n_groups = int(groups.max()) + 1
        k = _check_n_select(self.n_features_to_select, n_groups, "ScalingSelector")
        return groups, n_groups, k, self._base_estimator(), self._scale_bounds()

    def _n_remove(self, m, k):
        if self.schedule == "one" or (self.schedule == "thesis" and m <= 10):
            n = 1
        else:
            n = m // 2
        return max(1, min(n, m - k))

    def planned_sizes(self, n_features):
        """Numbers of features (groups) optimised at each stage, e.g. ``[202, 101, ..., 2]``.

        Parameters
        ----------
        n_features : int
            The number of features (or groups) at the start.

        Returns
        -------
        list of int
            The sizes of the successive stages, from ``n_features`` down to
            ``n_features_to_select``.
        """
        k = _check_n_select(self.n_features_to_select, n_features, "ScalingSelector")
        sizes = [int(n_features)]
        while sizes[-1] > k:
            sizes.append(sizes[-1] - self._n_remove(sizes[-1], k))
        return sizes

    # -- the work ----------------------------------------------------------------------------
    def _evaluate(self, est, X, y, feats, s_feat, alpha, criterion=None):
        """Criterion and gradient (per feature, log scale) on the features ``feats``."""
        cag, full_dual = self._api
        criterion = self.criterion if criterion is None else criterion
        Xa = X[:, feats]
        # the factors as criterion_and_gradient's scales: they replace an RBF SVC's own in the
        # clone it fits (no clone of ours first), and the other kernels' SVC is trained on
        # X * scales
        value, grad, fitted = cag(est, Xa, y, criterion=criterion, tune=("scales",),
                                  radius=self.radius, alpha_init=alpha, scales=s_feat)
        self.n_trainings_ += 1
        return float(value), np.asarray(grad["scales"], dtype=np.float64), fitted, \
            full_dual(fitted, X.shape[0])

    def _removal_scores(self, est, X, y, groups, active, log_s):
        """The thesis's explicit removal: for each active group, the criterion of the SVM
        retrained without it (the other factors as they are, renormalised)."""
        act = np.flatnonzero(active)
        scores = np.empty(act.shape[0])
        for i, g in enumerate(act):
            trial = active.copy()
            trial[g] = False
            rest = np.flatnonzero(trial)
            phi = log_s[rest]
            if self.normalize and self._total_var > 0 and np.any(self._group_var[rest] > 0):
                phi, _ = _normalized_log_scales(phi, self._group_var[rest], self._total_var)
            s_g = np.zeros(active.shape[0])
            s_g[rest] = np.exp(phi)
            feats = np.flatnonzero(trial[groups])
            scores[i] = self._evaluate(est, X, y, feats, s_g[groups][feats], None,
                                       criterion=self.removal_criterion)[0]
        return scores

    def _stage(self, est, X, y, groups, active, log_s, stage, bounds):
        """Optimise the log factors of the ``active`` groups.

        Returns ``(log_s, value, fitted, state, stopped)`` with the best point met (log factors
        of every group, normalised when ``normalize``)."""
        from scipy.optimize import minimize

        feats = np.flatnonzero(active[groups])
        g_of = groups[feats]
        act = np.flatnonzero(active)
        pos = np.full(active.shape[0], -1)
        pos[act] = np.arange(act.shape[0])
        v_act = self._group_var[act]
        normalize = self.normalize and self._total_var > 0 and np.any(v_act > 0)
        state = dict(alpha=None, best=(np.inf, None, None), n=0, first=None)

        def fun(theta):
            phi, w = _normalized_log_scales(theta, v_act, self._total_var) if normalize \
                else (theta, None)
            s_feat = np.exp(phi[pos[g_of]])
            value, g_feat, fitted, alpha = self._evaluate(est, X, y, feats, s_feat, state["alpha"])
            state["alpha"] = alpha
            grad = np.bincount(pos[g_of], weights=g_feat, minlength=act.shape[0])
            if w is not None:
                grad = grad - w * grad.sum()
            state["n"] += 1
            if state["first"] is None:
                state["first"] = value
            if value < state["best"][0]:
                state["best"] = (value, phi.copy(), fitted)
            scales = np.zeros(self._d)
            scales[feats] = s_feat
            rec = dict(iteration=state["n"], stage=stage, evaluation=state["n"],
                       n_features=int(act.shape[0]), criterion=value, scales=scales,
                       n_trainings=self.n_trainings_)
            self.trace_.append(rec)
            if self.verbose > 1:
                print(f"[ScalingSelector] stage {stage} eval {state['n']:3d}  "
                      f"{act.shape[0]} features  criterion {value:.6g}", flush=True)
            if self.callback is not None and \
                    self.callback(dict(rec, features=feats, estimator=fitted)) is False:
                raise _Stop
            if not np.all(np.isfinite(grad)):
                raise FloatingPointError("the gradient of the criterion is not finite")
            return value, grad

        lo, hi = np.log(bounds[0]), np.log(bounds[1])
        theta0 = np.clip(log_s[act], lo, hi)
        stopped = False
        try:
            minimize(fun, theta0, jac=True, method="L-BFGS-B", bounds=[(lo, hi)] * act.shape[0],
                     options=dict(maxiter=int(self.max_iter), ftol=float(self.tol)))
        except _Stop:
            stopped = True
        value, phi, fitted = state["best"]
        out = log_s.copy()
        if phi is not None:
            out[act] = phi
        return out, value, fitted, state, stopped

    @fit_context
    def fit(self, X, y):
        """Optimise the factors and eliminate features on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Training labels (two classes).

        Returns
        -------
        self : ScalingSelector
            The fitted selector.
        """
        return run_to_end(self._fit_steps(X, y))

    @fit_steps
    def _fit_steps(self, X, y):
        """:meth:`fit` as a generator (for a dashboard that draws each stage): it yields the
        record of ``history_`` after each stage but the last (its ``removed`` set), and
        returns the fitted selector."""
        X, y = self._check_input(X, y, ensure_min_features=1)
        self._d = d = X.shape[1]
        groups, n_groups, k, est, bounds = self._validate(d)
        self.classes_ = _check_binary(y)
        self._api = _gradient_api()
        if est.kernel == "rbf" and isinstance(est.sigma, str):
            # resolve the width once: re-resolving it at every evaluation would move it with the
            # factors, outside the gradient
            est.set_params(sigma=_k.scale_sigma(X))
        self._group_var = np.bincount(groups, weights=X.var(axis=0), minlength=n_groups)
        self._total_var = float(self._group_var.sum())
        self.n_trainings_ = 0
        self.history_, self.trace_ = [], []
        self.stopped_ = False
        active = np.ones(n_groups, dtype=bool)
        rank_g = np.ones(n_groups, dtype=np.int64)
        log_s = np.zeros(n_groups)
        stage = 0
        fitted = None
        while True:
            with warnings.catch_warnings():
                # far from the optimum an SVM may stop at its iteration cap: the criterion is
                # then that of the state reached, which the line search handles
                warnings.simplefilter("ignore", ConvergenceWarning)
                log_s, value, fitted_stage, state, stopped = self._stage(
                    est, X, y, groups, active, log_s, stage, bounds)
            if fitted_stage is not None:
                fitted = fitted_stage
            scales = np.where(active, np.exp(log_s), 0.0)[groups]
            rec = dict(stage=stage, features=np.flatnonzero(active[groups]),
                       criterion=value, criterion_start=state["first"], scales=scales,
                       n_evaluations=state["n"], removed=np.array([], dtype=np.int64),
                       estimator=fitted_stage)
            self.history_.append(rec)
            if self.verbose:
                print(f"[ScalingSelector] stage {stage}: {active.sum()} features, criterion "
                      f"{state['first']:.6g} -> {value:.6g} in {state['n']} evaluations",
                      flush=True)
            m = int(active.sum())
            if stopped:
                self.stopped_ = True
                break
            if m <= k:
                break
            act = np.flatnonzero(active)
            n_out = self._n_remove(m, k)
            if self.removal == "explicit" and n_out == 1:
                scores = self._removal_scores(est, X, y, groups, active, log_s)
                out = act[[int(np.argmin(scores))]]
                rec["removal_scores"] = scores
            else:
                out = act[np.argsort(log_s[act], kind="stable")[:n_out]]
            active[out] = False
            rank_g[~active] += 1
            rec["removed"] = np.flatnonzero(np.isin(groups, out))
            stage += 1
            yield rec
        self.support_ = active[groups]
        self.ranking_ = rank_g[groups]
        self.scales_ = np.where(self.support_, np.exp(log_s)[groups], 0.0)
        self._final_feats = np.flatnonzero(self.support_)
        n_kept = self._final_feats.shape[0]
        if fitted is None or fitted.n_features_in_ != n_kept:
            s_feat = self.scales_[self._final_feats]
            _, _, fitted, _ = self._evaluate(est, X, y, self._final_feats, s_feat, None)
        self.estimator_ = fitted
        self.n_iter_ = sum(rec["n_evaluations"] for rec in self.history_)
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    @staticmethod
    def inputs_of(estimator, X, features, scales):
        """Inputs of an SVM of ``history_`` or of a callback record: ``X[:, features]``, times
        ``scales[features]`` unless the kernel is the RBF (whose SVC holds the factors)."""
        Xk = np.asarray(X, dtype=np.float64)[:, features]
        return Xk if estimator.kernel == "rbf" else Xk * np.asarray(scales)[features]

    @staticmethod
    def _error_of(estimator, X, y, features, scales):
        """Error rate on ``(X, y)`` of the SVM of a ``history_`` or callback record, two classes,
        ``X`` a float64 array already checked by the caller: the labels :meth:`predict` gives
        (the SVC's signs, :meth:`kernelnb.kernels.KernelExpansion.positive`), without its input
        check, which a callback run at every evaluation would repeat on the same test set."""
        Xk = ScalingSelector.inputs_of(estimator, X, features, scales)
        expansion = getattr(estimator, "_expansion", None)
        if expansion is None or estimator.classes_.shape[0] != 2:
            return float(np.mean(estimator.predict(Xk) != y))
        positive = expansion.positive(Xk, estimator._coef_matrix, estimator.intercept_)
        return float(np.mean(estimator.classes_[positive[:, 0].astype(int)] != y))

    def scaled_transform(self, X):
        """The kept features multiplied by their factors (the inputs of ``estimator_`` for the
        linear and polynomial kernels; the RBF's ``estimator_`` holds the factors itself)."""
        Xk = self.transform(X)
        return Xk * self.scales_[self.support_]

    def _inputs(self, X):
        if self.estimator_.kernel == "rbf":
            return self.transform(X)
        return self.scaled_transform(X)

    def decision_function(self, X):
        """Decision of ``estimator_`` (the SVM at the final factors)."""
        check_is_fitted(self, "support_")
        return self.estimator_.decision_function(self._inputs(X))

    def predict(self, X):
        check_is_fitted(self, "support_")
        return self.estimator_.predict(self._inputs(X))

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y)))
