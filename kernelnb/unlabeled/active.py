"""Pool-based active learning (Chapelle's thesis, chapter 8).

O. Chapelle, *Support Vector Machines: Induction Principles, Adaptive Tuning and Prior
Knowledge*, PhD thesis, Universite Paris 6, 2002, chapter 8.

A learner holds a labelled training set and a pool of unlabelled candidates.  At each step a
*strategy* scores the pool, :meth:`ActiveLearner.query` returns the candidate it asks about, the
oracle (a person in a dashboard, or the true label in an experiment) answers through
:meth:`ActiveLearner.teach`, and the model is retrained.  The strategies:

``'random'``
    Passive learning: a pool point drawn at random.
``'margin'``
    The point nearest the decision boundary: smallest ``|f(x)|`` for an SVM (the "simple
    margin" of Tong & Koller 2001, Schohn & Cohn 2000, Campbell et al. 2000), posterior nearest
    1/2 for a probabilistic classifier ("maximum uncertainty", section 8.3).
``'gem'``
    The optimal greedy rule of section 8.2 (generalisation-error minimisation): for each
    candidate ``x`` and label ``y``, retrain on ``D + (x, y)``, estimate the error by (8.2),
    ``T = mean over the pool of (1 - max_y' P(y'|x'))``, and choose the ``x`` of smallest
    ``sum_y P(y|x) T(D + (x, y))``.  Posteriors are the classifier's own (``predict_proba``,
    e.g. the Parzen window classifier of 8.3) or, for an SVM, Platt's sigmoid (8.3) fitted on
    the leave-one-out outputs ``f(x_i) - y_i alpha_i S_i^2`` (8.4.2, the span of 3.2).
``'ratio'``
    Tong & Koller's version-space ratio (8.5.1): retrain with ``(x, +1)`` and with ``(x, -1)``
    and choose the ``x`` of largest ``min(m+/m-, m-/m+)`` (margins ``m = 1/||w||``).
``'fast_ratio'``, ``'fast_gem'``
    The same two rules without retraining, through the incremental update of 8.5.2: if the
    support-vector set does not change when ``(x_0, y_0)`` is added,
    ``sum alpha_new = sum alpha_0 + (1 - y_0 f(x_0))_+^2 / S_0^2`` (8.11), with the span
    ``S_0^2 = K_00 - v' H^-1 v`` (8.8) of the candidate; the new coefficients follow from the
    bordered inverse (8.7), and fast GEM re-estimates the leave-one-out outputs and Platt's
    sigmoid from them (8.6).  One inverse serves every candidate: ``O(n^2 (n + m))`` per query
    instead of ``O(n^3 m)``.

The thesis's experiments (8.3, 8.7) are negative: the "optimal" rule is worse than random on a
Parzen toy and GEM is much worse than the margin heuristic on a majority toy; see
:func:`kernelnb.reproductions.chapelle.active.parzen_toy_experiment` and
:func:`kernelnb.reproductions.chapelle.active.majority_toy_experiment`.
"""
from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy.special import expit
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from .._callbacks import progress_caller
from .._fit import fit_context
from .._platt import platt_fit
from .._validation import CALLBACK, has_methods, interval, str_options, check_input
from ..model_selection._estimates import _Problem

__all__ = ["ActiveLearner", "STRATEGIES", "platt_fit", "incremental_span_update"]

#: The strategies of :class:`ActiveLearner`, in display order.
STRATEGIES = ("random", "margin", "gem", "ratio", "fast_ratio", "fast_gem")

_SVM_ONLY = ("ratio", "fast_ratio", "fast_gem")


# ------------------------------------------------------------------------------------------
# The incremental update of a fitted SVM (thesis 8.5.2)
# ------------------------------------------------------------------------------------------
class _Increment:
    """A fitted binary SVC and everything the incremental update shares across candidates.

    Signed coefficients ``c_i = y_i alpha_i`` and ``f(x) = sum c_i K(x, x_i) + b``.  With ``F``
    the free support vectors and ``M = [[K_FF, 1], [1', 0]]`` (the thesis's ``H`` of (4.8) up to
    the signs ``y_i``), adding ``(x_0, y_0)`` while ``F`` stays free and the bounded SVs stay at
    ``C`` gives ``c_0 = (y_0 - f(x_0)) / S_0^2``, ``(dc_F, db) = -M^-1 u c_0`` with
    ``u = (K_F0, 1)`` and ``S_0^2 = K_00 - u' M^-1 u`` (8.5-8.8)."""

    def __init__(self, estimator, X, y):
        pb = _Problem(estimator, X, y)
        if pb.margin == "l2" and estimator.class_weight is not None:
            raise ValueError("the incremental update supports margin='l2' without class_weight")
        self.pb = pb
        self.kern = estimator.kernel_
        self.dadd0 = 1.0 / float(estimator.C) if pb.margin == "l2" else 0.0
        self.F = np.flatnonzero(pb.free)
        self.B = np.flatnonzero(pb.bound)
        m = self.F.size
        M = np.zeros((m + 1, m + 1))
        KF = pb.Kt[np.ix_(self.F, self.F)]
        scale = max(1.0, float(np.mean(np.diag(KF)))) if m else 1.0
        M[:m, :m] = KF + 1e-12 * scale * np.eye(m)      # the span's tiny ridge (3.2.4)
        M[:m, m] = 1.0
        M[m, :m] = 1.0
        if m == 0:
            M[0, 0] = -1e-12                              # no free SV: only the bias moves
        self.iM = np.linalg.inv(M)
        self.w2 = pb.w2()
        self.sum_alpha = float(np.sum(pb.alpha))
        # spans and leave-one-out outputs of the current training set (thesis 8.4.2)
        self.S2, self.loo = _loo_outputs(estimator, X, y, pb)

    def candidates(self, Xc):
        """Spans ``S_0^2``, outputs ``f(x_0)`` and ``W = U M^-1`` of the candidate rows."""
        pb = self.pb
        Xc = np.asarray(Xc, dtype=np.float64)
        KcX = np.asarray(self.kern(Xc, pb.X), dtype=np.float64)          # (m, n)
        f = KcX[:, pb.sv] @ pb.coef[pb.sv] + pb.b
        U = np.ones((Xc.shape[0], self.F.size + 1))
        U[:, :-1] = KcX[:, self.F]
        W = U @ self.iM
        k00 = np.asarray(self.kern.diag(Xc), dtype=np.float64) + self.dadd0
        S2 = np.maximum(k00 - np.einsum("ij,ij->i", W, U), 1e-12 * max(1.0, float(k00.max())))
        return S2, f, W, KcX


def incremental_span_update(estimator, X, y, X_candidates):
    """The thesis's margin update (8.11) for every candidate and both labels, without retraining.

    Parameters
    ----------
    estimator : fitted binary :class:`kernelnb.svm.SVC`
        With an ``'rbf'``, ``'linear'`` or ``'poly'`` kernel.
    X, y : arrays
        Its training data and labels.
    X_candidates : array of shape (m, n_features)
        The points that could be added.

    Returns
    -------
    dict
        ``span2`` (``S_0^2`` of (8.8), shape (m,)), ``decision`` (``f(x_0)``), ``reduction``
        (shape (m, 2): ``(1 - y_0 f(x_0))_+^2 / S_0^2`` for ``y_0 = -1, +1``, the columns in the
        order of ``classes_``), ``sum_alpha`` (shape (m, 2): ``sum alpha`` after the addition,
        (8.11)), ``alpha0`` (shape (m, 2): the new point's multiplier ``(1 - y_0 f)_+ / S_0^2``).
        Exact (up to rounding) for a hard-margin SVM when the support-vector set does not change
        (thesis 8.5.2); an approximation otherwise.
    """
    inc = _Increment(estimator, X, y)
    S2, f, _, _ = inc.candidates(check_input(estimator, X_candidates, reset=False))
    ys = np.array([-1.0, 1.0])
    viol = np.maximum(1.0 - ys[None, :] * f[:, None], 0.0)
    red = viol ** 2 / S2[:, None]
    return {"span2": S2, "decision": f, "reduction": red, "sum_alpha": inc.sum_alpha + red,
            "alpha0": viol / S2[:, None]}


# ------------------------------------------------------------------------------------------
# Posteriors and the estimated error (8.2)
# ------------------------------------------------------------------------------------------
def _is_svm(est):
    return hasattr(est, "dual_coef_") and hasattr(est, "kernel_")


def _loo_outputs(est, X, y, pb=None):
    """Squared spans (0 off the support vectors) and the leave-one-out outputs
    ``f(x_i) - y_i alpha_i S_i^2`` of a fitted SVC (thesis 8.4.2, Theorem 3.8)."""
    pb = _Problem(est, X, y) if pb is None else pb
    S2, loo = pb.loo_outputs()
    return np.where(np.isnan(S2), 0.0, S2), loo


def _svm_platt(est, X, y):
    """Platt's (a, b) of a fitted SVC, fitted on its leave-one-out outputs (thesis 8.4.2)."""
    pb = _Problem(est, X, y)
    return platt_fit(_loo_outputs(est, X, y, pb)[1], pb.y)


def _expected_error(P):
    """(8.2): the mean over the points of ``1 - max_y P(y|x) = min(P, 1 - P)`` (last axis)."""
    return np.mean(np.minimum(P, 1.0 - P), axis=-1)


# ------------------------------------------------------------------------------------------
# The learner
# ------------------------------------------------------------------------------------------
def _inner_has(name):
    def check(self):
        est = getattr(self, "estimator_", None)
        if est is None:
            est = self._base_estimator()
        return hasattr(est, name)
    return check


class ActiveLearner(ClassifierMixin, BaseEstimator):
    """Pool-based active learning loop with the strategies of Chapelle's thesis, chapter 8.

    ``fit(X, y, X_unlabeled)`` trains ``estimator`` on the labelled points and keeps the
    unlabelled ones as the pool of candidates.  Then, as long as the budget lasts,
    :meth:`query` returns the pool index the strategy asks about and :meth:`teach` adds its
    label (or any other labelled point) and retrains; :meth:`run` does both with an oracle.
    The learner predicts as its current model.

    Parameters
    ----------
    estimator : classifier, default=None
        The binary classifier to train.  ``None``: ``kernelnb.svm.SVC(precision='float64',
        n_jobs=1)``.  ``'margin'`` needs ``decision_function`` or ``predict_proba``, ``'gem'``
        an SVC or ``predict_proba`` (e.g. :class:`kernelnb.neighbors.ParzenClassifier`, thesis
        8.3); ``'ratio'``, ``'fast_ratio'`` and ``'fast_gem'`` a :class:`kernelnb.svm.SVC`
        (kernel ``'rbf'``, ``'linear'`` or ``'poly'``; the update of 8.5.2 is exact for
        ``margin='hard'``).  Use ``precision='float64'`` for the spans.
    strategy : {'random', 'margin', 'gem', 'ratio', 'fast_ratio', 'fast_gem'}, default='margin'
        How the next point is chosen (see :mod:`kernelnb.unlabeled.active`).
    budget : int or None, default=None
        Number of labels the oracle may give (``teach`` calls); ``None``: the pool size.
    sigma_selection : {'likelihood'} or None, default=None
        ``'likelihood'``: before each training the estimator's ``sigma`` is set to the width
        that maximises the likelihood of the pool under the Parzen density of the labelled
        points (the width choice of thesis 8.3, from 7.2.2;
        :func:`kernelnb.unlabeled.likelihood_sigma`).
    random_state : int, RandomState or None, default=None
        Draws of ``'random'``.
    callback : callable ``callback(info)`` or None, default=None
        Called after each ``teach`` with a dict: ``iteration`` (labels taught so far), ``index``
        (pool index, -1 for a point from outside the pool), ``label``, ``score`` (the strategy's
        score of the point, nan when it was not queried), ``val_error`` (the error on the
        validation data given to ``fit``, nan without), ``n_labeled``.  Returning ``False``
        stops :meth:`run`.  The package's one callback form (:mod:`kernelnb._callbacks`).

    Attributes
    ----------
    estimator_ : classifier
        The model trained on the current labelled set.
    classes_ : ndarray of shape (2,)
        The class labels.
    X_labeled_ : ndarray of shape (n_labeled, n_features)
        The current labelled points.
    y_labeled_ : ndarray of shape (n_labeled,)
        Their labels.
    pool_ : ndarray of shape (n_pool, n_features)
        The ``X_unlabeled`` given to ``fit``.
    remaining_ : ndarray of int
        The pool indices not labelled yet.
    scores_ : ndarray or None
        The strategy's scores of ``remaining_`` at the last query (larger: asked first);
        ``'gem'`` scores ``-T``, the negated expected error.
    expected_error_ : ndarray or None
        The expected error ``sum_y P(y|x) T(D + (x, y))`` of each remaining candidate at the
        last ``'gem'``/``'fast_gem'`` query.
    label_errors_ : ndarray of shape (n_remaining, 2) or None
        ``T(D + (x, y))`` (8.2) for ``y`` = ``classes_[0]``, ``classes_[1]`` at that query.
    n_queries_ : int
        Labels taught since ``fit``.
    history_ : dict of lists
        One entry per ``teach``: ``index``, ``label``, ``score``, ``val_error``,
        ``n_labeled``.
    initial_val_error_ : float
        The error on the validation data after ``fit`` (nan without validation data).
    sigma_ : float
        The estimator's width at the last training (``sigma_selection='likelihood'`` only).
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    Chapelle, thesis ch. 8 (8.2 optimal strategy, 8.4 Platt posteriors from leave-one-out
    outputs, 8.5 incremental training (8.11), 8.6 fast GEM (8.12)); Tong & Koller, *Support
    vector machine active learning with applications to text classification*, JMLR 2, 2001;
    Schohn & Cohn, ICML 2000; Roy & McCallum, ICML 2001 (8.2).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.svm import SVC
    >>> from kernelnb.unlabeled import ActiveLearner
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, (206, 2)); y = np.where(X.sum(axis=1) > 0, 1, -1)
    >>> start = [int(np.argmax(y)), int(np.argmin(y))]
    >>> pool = np.setdiff1d(np.arange(200), start)
    >>> al = ActiveLearner(SVC(kernel='linear', margin='hard', precision='float64'),
    ...                    strategy='margin').fit(X[start], y[start], X_unlabeled=X[pool],
    ...                                           X_val=X[200:], y_val=y[200:])
    >>> al = al.run(y[pool], n_queries=10)
    >>> len(al.history_['index']), al.n_queries_, al.error_curve_.shape
    (10, 10, (11,))
    """

    _parameter_constraints = {
        "estimator": [has_methods(["fit", "predict"]), None],
        "strategy": [str_options(set(STRATEGIES))],
        "budget": [interval(Integral, 1, None, closed="left"), None],
        "sigma_selection": [str_options({"likelihood"}), None],
        "random_state": ["random_state"],
        "callback": CALLBACK,
    }

    def __init__(self, estimator=None, *, strategy="margin", budget=None, sigma_selection=None,
                 random_state=None, callback=None):
        self.estimator = estimator
        self.strategy = strategy
        self.budget = budget
        self.sigma_selection = sigma_selection
        self.random_state = random_state
        self.callback = callback

    # -- set-up -----------------------------------------------------------------------------
    def _base_estimator(self):
        if self.estimator is None:
            from ..svm import SVC
            return SVC(precision="float64", n_jobs=1)
        return self.estimator

    def _check_params_extra(self):
        """What the strategy and ``sigma_selection`` need of the estimator."""
        base = self._base_estimator()
        if self.strategy in _SVM_ONLY or (self.strategy == "gem"
                                          and not hasattr(base, "predict_proba")):
            kern = getattr(base, "kernel", None)
            if not hasattr(base, "dual_coef_") and not (hasattr(base, "margin")
                                                        and hasattr(base, "C")):
                raise ValueError(f"strategy={self.strategy!r} needs a kernelnb.svm.SVC as "
                                 f"estimator, got {type(base).__name__}")
            if kern == "precomputed" or callable(kern):
                raise ValueError(f"strategy={self.strategy!r} evaluates the kernel on X: the "
                                 "estimator's kernel must be 'rbf', 'linear' or 'poly'")
        if self.strategy == "margin" and not (hasattr(base, "decision_function")
                                              or hasattr(base, "predict_proba")):
            raise ValueError("strategy='margin' needs an estimator with decision_function or "
                             "predict_proba")
        if self.sigma_selection is not None and "sigma" not in base.get_params():
            raise ValueError("sigma_selection='likelihood' needs an estimator with a 'sigma' "
                             "parameter")

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None, X_val=None, y_val=None):
        """Train on the labelled points and keep ``X_unlabeled`` as the pool.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labelled points.
        y : array of shape (n_samples,)
            Their labels, two classes (any two values).
        X_unlabeled : array of shape (n_pool, n_features) or None, default=None
            The candidates; ``None``: an empty pool (only :meth:`teach` with points).
        X_val : array of shape (n_val, n_features) or None, default=None
            Validation points, never trained on: the error on them is recorded after ``fit``
            and after each step (``history_``, :attr:`error_curve_`).
        y_val : array of shape (n_val,) or None, default=None
            Their labels (given together with ``X_val``).

        Returns
        -------
        self : ActiveLearner
            The fitted learner.
        """
        X, y = check_input(self, X, y)
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type != "binary":
            raise ValueError("Only binary classification is supported. The type of the target "
                             f"is {y_type}.")
        self.classes_ = np.unique(y)
        if X_unlabeled is None:
            pool = np.empty((0, X.shape[1]))
        else:
            pool = check_input(self, X_unlabeled, reset=False)
        self.pool_ = pool
        self.remaining_ = np.arange(pool.shape[0])
        self._X_val = self._y_val = None
        if X_val is not None or y_val is not None:
            if X_val is None or y_val is None:
                raise ValueError("X_val and y_val go together")
            self._X_val = check_input(self, X_val, reset=False)
            self._y_val = np.asarray(y_val).ravel()
            if self._y_val.shape[0] != self._X_val.shape[0]:
                raise ValueError(f"y_val must hold {self._X_val.shape[0]} labels, got "
                                 f"{self._y_val.shape[0]}")
        self.X_labeled_ = X
        self.y_labeled_ = np.asarray(y)
        self._rng = check_random_state(self.random_state)
        self._retrain()
        self.n_queries_ = 0
        self.scores_ = None
        self.expected_error_ = self.label_errors_ = None
        self.history_ = {"index": [], "label": [], "score": [], "val_error": [],
                         "n_labeled": []}
        self.initial_val_error_ = self._val_error()
        self._stop = False
        return self

    def _train(self, X, y, params=None):
        est = clone(self._base_estimator())
        if params:
            est.set_params(**params)
        return est.fit(X, y)

    def _retrain(self):
        params = None
        if self.sigma_selection is not None:
            from .reweighting import likelihood_sigma
            pool = self.pool_[self.remaining_]
            self.sigma_ = likelihood_sigma(self.X_labeled_, pool if pool.shape[0] else None)
            params = {"sigma": self.sigma_}
        self._params = params
        self.estimator_ = self._train(self.X_labeled_, self.y_labeled_, params)
        self.n_features_in_ = self.estimator_.n_features_in_

    def _val_error(self):
        if self._X_val is None:
            return float("nan")
        return float(np.mean(self.estimator_.predict(self._X_val) != self._y_val))

    # -- the budget -------------------------------------------------------------------------
    @property
    def budget_left_(self):
        """Labels the oracle may still give (``None``-budget: the pool's remaining size)."""
        check_is_fitted(self)
        if self.budget is None:
            return int(self.remaining_.size)
        return int(self.budget) - self.n_queries_

    def _check_budget(self):
        if self.budget is not None and self.n_queries_ >= self.budget:
            raise RuntimeError(f"the budget of {self.budget} labels is spent (budget="
                               f"{self.budget}); fit again or raise budget")

    # -- strategies -------------------------------------------------------------------------
    def query(self):
        """The pool index (a row of ``X_unlabeled``) the strategy asks to label next.

        Sets ``scores_`` (one per ``remaining_``; the chosen point has the largest)."""
        check_is_fitted(self)
        self._check_budget()
        if self.remaining_.size == 0:
            raise RuntimeError("the pool is empty: every candidate is labelled")
        scores = self.score_candidates()
        self.scores_ = scores
        return int(self.remaining_[int(np.argmax(scores))])

    def score_candidates(self):
        """The strategy's score of every remaining pool point (larger: asked first)."""
        check_is_fitted(self)
        Xc = self.pool_[self.remaining_]
        s = self.strategy
        self.expected_error_ = self.label_errors_ = None
        if s == "random":
            return self._rng.uniform(size=Xc.shape[0])
        est = self.estimator_
        if s == "margin":
            if hasattr(est, "decision_function"):
                return -np.abs(np.asarray(est.decision_function(Xc), dtype=np.float64))
            P = self._proba(est, Xc)
            return -np.abs(P - 0.5)
        if s == "gem":
            P0, E = (self._gem_parzen(Xc) if type(est).__name__ == "ParzenClassifier"
                     and type(est).__module__.startswith("kernelnb.") else self._gem_exact(Xc))
        elif s == "ratio":
            return self._ratio_exact(Xc)
        elif s == "fast_ratio":
            return self._ratio_fast(Xc)
        else:
            P0, E = self._gem_fast(Xc)
        self.label_errors_ = E
        T = (1.0 - P0) * E[:, 0] + P0 * E[:, 1]
        self.expected_error_ = T
        return -T

    def _proba(self, est, Xq, X_lab=None, y_lab=None):
        """P(classes_[1] | x) of a trained model: its own posteriors, or for an SVM Platt's
        sigmoid fitted on its leave-one-out outputs (thesis 8.4.2)."""
        if hasattr(est, "predict_proba") and not _is_svm(est):
            P = np.asarray(est.predict_proba(Xq), dtype=np.float64)
            cls = list(est.classes_)
            if self.classes_[1] in cls:
                return P[:, cls.index(self.classes_[1])]
            return np.zeros(Xq.shape[0])
        X_lab = self.X_labeled_ if X_lab is None else X_lab
        y_lab = self.y_labeled_ if y_lab is None else y_lab
        a, b = _svm_platt(est, X_lab, y_lab)
        return expit(a * est.decision_function(Xq) + b)

    def _gem_exact(self, Xc):
        """(8.2)/(8.12) by retraining for every candidate and label (thesis 8.2)."""
        m = Xc.shape[0]
        P0 = self._proba(self.estimator_, Xc)
        E = np.zeros((m, 2))
        for j in range(m):
            rest = np.delete(Xc, j, axis=0)
            X2 = np.vstack([self.X_labeled_, Xc[j:j + 1]])
            for k, lab in enumerate(self.classes_):
                y2 = np.append(self.y_labeled_, lab)
                if rest.shape[0] == 0:
                    continue
                est = self._train(X2, y2, self._params)
                E[j, k] = _expected_error(self._proba(est, rest, X2, y2))
        return P0, E

    def _gem_parzen(self, Xc):
        """The greedy rule for the Parzen window classifier (thesis 8.3), exactly and without
        refitting: its posterior is ``sum_{y_i = c} K(x, x_i) / sum_i K(x, x_i)``, so adding
        ``(x_j, c)`` adds ``K(x, x_j)`` to class ``c``'s sum (in log space, as the classifier
        computes it)."""
        est = self.estimator_
        h2 = 2.0 * float(est.densities_[0].sigma_) ** 2

        def logk(A, B):
            d2 = (np.sum(A * A, 1)[:, None] + np.sum(B * B, 1)[None, :] - 2.0 * A @ B.T)
            return -np.maximum(d2, 0.0) / h2

        L = logk(Xc, self.X_labeled_)                          # (m, n)
        pos = self.y_labeled_ == self.classes_[1]
        with np.errstate(divide="ignore"):
            lp = np.logaddexp.reduce(np.where(pos[None, :], L, -np.inf), axis=1)
            ln = np.logaddexp.reduce(np.where(pos[None, :], -np.inf, L), axis=1)
        P0 = expit(lp - ln)
        Lc = logk(Xc, Xc)                                      # Lc[j, k] = log K(x_k, x_j)
        m = Xc.shape[0]
        off = ~np.eye(m, dtype=bool)
        E = np.zeros((m, 2))
        for k in range(2):
            lp2 = np.logaddexp(lp[None, :], Lc) if k == 1 else np.broadcast_to(lp, (m, m))
            ln2 = np.logaddexp(ln[None, :], Lc) if k == 0 else np.broadcast_to(ln, (m, m))
            P = expit(lp2 - ln2)
            E[:, k] = np.sum(np.minimum(P, 1.0 - P) * off, axis=1) / max(m - 1, 1)
        return P0, E

    def _ratio_exact(self, Xc):
        """Tong & Koller's ratio by two retrainings per candidate (thesis 8.5.1)."""
        score = np.zeros(Xc.shape[0])
        for j in range(Xc.shape[0]):
            X2 = np.vstack([self.X_labeled_, Xc[j:j + 1]])
            w2 = []
            for lab in self.classes_:
                y2 = np.append(self.y_labeled_, lab)
                est = self._train(X2, y2, self._params)
                w2.append(_Problem(est, X2, y2).w2())
            score[j] = min(w2[0] / w2[1], w2[1] / w2[0])
        return score

    def _ratio_fast(self, Xc):
        """Tong & Koller's ratio through (8.11): ``||w||^2`` after adding ``(x, y)`` is
        ``||w||^2 + (1 - y f(x))_+^2 / S_0^2`` (thesis 8.5.2)."""
        inc = _Increment(self.estimator_, self.X_labeled_, self.y_labeled_)
        S2, f, _, _ = inc.candidates(Xc)
        wp = inc.w2 + np.maximum(1.0 - f, 0.0) ** 2 / S2
        wm = inc.w2 + np.maximum(1.0 + f, 0.0) ** 2 / S2
        return np.minimum(wp / wm, wm / wp)

    def _gem_fast(self, Xc):
        """Fast GEM (thesis 8.6): the updated SVM of (8.5)/(8.7) for every candidate and label,
        its leave-one-out outputs with the updated spans, Platt's sigmoid on them, and (8.2)
        on the rest of the pool; no retraining."""
        inc = _Increment(self.estimator_, self.X_labeled_, self.y_labeled_)
        pb = inc.pb
        m, n = Xc.shape[0], pb.n
        F, B = inc.F, inc.B
        nF = F.size
        S2c, fc, W, KcX = inc.candidates(Xc)                  # W = U M^-1: (m, nF + 1)
        Kcc = np.asarray(inc.kern(Xc), dtype=np.float64)       # pool x pool
        a0, b0 = platt_fit(inc.loo, pb.y)
        P0 = expit(a0 * fc + b0)                               # P~(y = +1 | x_j)
        diag_iM = np.diag(inc.iM)[:nF]
        # bounded SVs' spans after the update: S_B^2 - (K_0B - u' M^-1 v_B)^2 / S_0^2
        if B.size:
            VB = np.ones((nF + 1, B.size))
            VB[:nF] = pb.Kt[np.ix_(F, B)]
            gB = KcX[:, B] - W @ VB                            # (m, |B|)
        E = np.zeros((m, 2))
        off = ~np.eye(m, dtype=bool)
        for k, y0 in enumerate((-1.0, 1.0)):
            c0 = (y0 - fc) / S2c                              # signed new coefficient
            act = y0 * fc < 1.0                                # the point becomes an SV
            c0 = np.where(act, c0, 0.0)
            dC = -W * c0[:, None]                              # (dc_F, db) per candidate
            # outputs on the training points and on the pool after the update
            f_lab = pb.ft[None, :] + dC[:, :nF] @ pb.Kt[np.ix_(F, np.arange(n))] \
                + dC[:, nF:] + c0[:, None] * KcX
            K_cF = KcX[:, F]
            f_pool = fc[None, :] + dC[:, :nF] @ K_cF.T + dC[:, nF:] + c0[:, None] * Kcc
            # multipliers and spans after the update
            alpha = np.broadcast_to(pb.alpha, (m, n)).copy()
            alpha[:, F] += pb.y[F][None, :] * dC[:, :nF]
            alpha = np.maximum(alpha, 0.0)
            S2 = np.broadcast_to(inc.S2, (m, n)).copy()
            if nF:
                with np.errstate(divide="ignore"):
                    grow = np.where(act, 1.0 / S2c, 0.0)[:, None] * W[:, :nF] ** 2
                    newdiag = diag_iM[None, :] + grow
                    S2[:, F] = np.where(act[:, None], 1.0 / newdiag, S2[:, F])
            if B.size:
                S2[:, B] = np.where(act[:, None], S2[:, B] - gB ** 2 / S2c[:, None], S2[:, B])
            S2 = np.maximum(S2, 0.0)
            loo = f_lab - pb.y[None, :] * alpha * S2
            # the new point: an SV (alpha_0 = (1 - y_0 f)/S_0^2, span S_0^2) or not (LOO = f)
            f_new = np.where(act, y0, fc)                      # an SV lies on the margin
            loo_new = f_new - y0 * np.where(act, y0 * c0, 0.0) * S2c
            Fl = np.column_stack([loo, loo_new])
            Yl = np.column_stack([np.broadcast_to(pb.y, (m, n)), np.full(m, y0)])
            ab = platt_fit(Fl, Yl)
            P = expit(ab[:, :1] * f_pool + ab[:, 1:])
            E[:, k] = np.sum(np.minimum(P, 1.0 - P) * off, axis=1) / max(m - 1, 1)
        return P0, E

    # -- the oracle's answers -----------------------------------------------------------------
    def teach(self, index_or_x, y):
        """Add a labelled point and retrain.

        Parameters
        ----------
        index_or_x : int or array of shape (n_features,)
            A pool index (what :meth:`query` returned, or any unlabelled pool row), or a point:
            a pool row is recognised and leaves the pool, another point is simply added.
        y : label
            One of ``classes_``.
        """
        check_is_fitted(self)
        self._check_budget()
        if y not in set(self.classes_.tolist()):
            raise ValueError(f"y must be one of the classes {self.classes_.tolist()}, got {y!r}")
        score = float("nan")
        if isinstance(index_or_x, (Integral, np.integer)):
            idx = int(index_or_x)
            if not 0 <= idx < self.pool_.shape[0]:
                raise ValueError(f"index_or_x: pool index {idx} is out of range "
                                 f"[0, {self.pool_.shape[0]})")
            if idx not in set(self.remaining_.tolist()):
                raise ValueError(f"index_or_x: pool point {idx} is already labelled")
            x = self.pool_[idx]
        else:
            x = np.asarray(index_or_x, dtype=np.float64).ravel()
            if x.shape[0] != self.n_features_in_ or not np.all(np.isfinite(x)):
                raise ValueError(f"index_or_x must be a pool index or a finite point of "
                                 f"{self.n_features_in_} features, got {index_or_x!r}")
            hit = np.flatnonzero(np.all(self.pool_[self.remaining_] == x, axis=1))
            idx = int(self.remaining_[hit[0]]) if hit.size else -1
        if idx >= 0:
            pos = int(np.flatnonzero(self.remaining_ == idx)[0])
            if self.scores_ is not None and len(self.scores_) == self.remaining_.size:
                score = float(self.scores_[pos])
            self.remaining_ = np.delete(self.remaining_, pos)
        self.scores_ = None
        self.X_labeled_ = np.vstack([self.X_labeled_, x[None, :]])
        self.y_labeled_ = np.append(self.y_labeled_, y)
        self._retrain()
        self.n_queries_ += 1
        err = self._val_error()
        h = self.history_
        h["index"].append(idx)
        h["label"].append(y)
        h["score"].append(score)
        h["val_error"].append(err)
        h["n_labeled"].append(int(self.y_labeled_.shape[0]))
        progress = progress_caller(self.callback)
        self._stop = progress({"iteration": self.n_queries_, "index": idx, "label": y,
                               "score": score, "val_error": err,
                               "n_labeled": int(self.y_labeled_.shape[0])})
        return self

    def run(self, oracle, n_queries=None):
        """Query and teach ``n_queries`` times (default: until the budget or the pool ends).

        Parameters
        ----------
        oracle : callable or array-like
            ``oracle(x) -> label`` for a pool row, or the labels of the pool rows (indexed by
            pool index).
        n_queries : int or None
        """
        check_is_fitted(self)
        if callable(oracle):
            answer = lambda i: oracle(self.pool_[i])  # noqa: E731
        else:
            labels = np.asarray(oracle).ravel()
            if labels.shape[0] != self.pool_.shape[0]:
                raise ValueError(f"oracle must hold one label per pool point "
                                 f"({self.pool_.shape[0]}), got {labels.shape[0]}")
            answer = lambda i: labels[i]  # noqa: E731
        left = min(self.budget_left_, int(self.remaining_.size))
        if n_queries is None:
            n_queries = left
        elif not isinstance(n_queries, (Integral, np.integer)) or n_queries < 0:
            raise ValueError(f"n_queries must be an integer >= 0, got {n_queries!r}")
        elif n_queries > left:
            raise ValueError(f"n_queries={n_queries} exceeds what the budget and the pool "
                             f"allow ({left})")
        for _ in range(int(n_queries)):
            i = self.query()
            self.teach(i, answer(i))
            if self._stop:
                break
        return self

    @property
    def error_curve_(self):
        """Error on the validation data after 0, 1, ..., ``n_queries_`` labels (nan without)."""
        check_is_fitted(self)
        return np.array([self.initial_val_error_] + list(self.history_["val_error"]))

    # -- prediction (the current model) -------------------------------------------------------
    def predict(self, X):
        check_is_fitted(self)
        return self.estimator_.predict(check_input(self, X, reset=False))

    @available_if(_inner_has("decision_function"))
    def decision_function(self, X):
        check_is_fitted(self)
        return self.estimator_.decision_function(check_input(self, X, reset=False))

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_proba(check_input(self, X, reset=False))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
