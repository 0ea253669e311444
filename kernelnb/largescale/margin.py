"""The margin models of Collobert's thesis, chapters 3 and 8 (Collobert & Bengio, ICML 2004).

Linear models, ``f(x) = w . x + b`` from ``w = 0, b = 0``:

* :class:`OriginalPerceptron` (Algorithm 3.1, Rosenblatt): every example with ``y f(x) <= 0``
  moves ``w += y x, b += y``.  No margin; only early stopping regularises it.
* :class:`MarginPerceptron` (Algorithm 8.1, Duda & Hart 1973): every example with ``y f(x) <=
  beta`` moves ``w += lam y x, b += lam y`` (stochastic gradient of the beta-hinge ``|beta - y
  f(x)|_+``, no weight decay).  The thesis fixes ``beta = 1``; from a zero start only
  ``learning_rate / beta`` matters for the decision.
* :class:`SGDHingeClassifier` (eq. 8.16): stochastic gradient of ``mu/2 ||w||^2 + (1/L) sum_l
  |1 - y_l f(x_l)|_+`` -- a linear SVM with ``C = 1/(L mu)`` -- with its dual view (8.17) kept
  beside ``w`` and the epoch count of Theorem 8.1 reported.

Committees and MLPs:

* :class:`SimpleMLP` (Algorithm 8.2): HardTanh units with **no output weights**, ``f(x) = b +
  sum_n HardTanh(v_n . x + a_n)``, trained on the beta-hinge: on an example with ``y f(x) <=
  beta`` every unit in its linear region (``|v_n . x + a_n| <= 1``) moves by ``v_n += lam y x,
  a_n += lam y``, and ``b += lam y``.  Initialisation: the printed Algorithm 8.2 says
  "initialize w and b to zero" (copied from Algorithm 8.1); the text says the only thing making
  the hidden units differ is their random initialisation, so here ``v_n ~ N(0, init_scale^2 / d
  I)``, ``a_n = 0`` and ``b = 0``.
* :class:`NilssonMLP` (Algorithm 8.3, Ridgway 1962, Nilsson 1965): ``f(x) = sum_n sign(v_n . x
  + a_n)``, ``N`` odd, no output bias; on a mistake the ``ceil((|f| + 1) / 2)`` misclassifying
  units closest to zero move by ``v_n += lam y x, a_n += lam y``.
* :class:`HingeMLPClassifier` (eq. 8.10): ``f(x) = sum_n w_n h(v_n . x + a_n) + b`` (HardTanh
  or tanh ``h``) trained by stochastic gradient on the hinge with weight decays ``mu`` on the
  output weights and ``nu`` on the hidden weights, and one learning rate for each layer.

Kernel model: :class:`KernelMarginPerceptron`, Algorithm 8.1 in dual form ``f(x) = sum_j
alpha_j y_j k(x_j, x) + b`` with a kernel of :mod:`kernelnb.kernels`.

All standardise their inputs (``mean_``, ``scale_``) and run their loops in Cython
(:mod:`kernelnb.largescale._margin`), in a fresh random order every epoch.  Training stops after
an epoch without any update (models without weight decay), after ``max_iter`` epochs, after
``max_updates`` updates, or, with a validation set (``fit(X, y, X_val=, y_val=)``, or the part
``validation_fraction`` of X held out), when the validation accuracy has not improved for
``n_iter_no_change`` epochs (the weights of the best epoch are kept).  More than two classes
are handled one-vs-rest (one model per class, the same example order for all; the prediction is
the class of largest ``f``).

**Margin tracking** (Theorems 8.2 and 8.3, Figs. 8.2 and 8.3).  With ``track_margin=True`` every
model records, at the end of every epoch and, with ``record_every=k`` (two classes only), after
every ``k``-th update, the dict of arrays ``margin_history_``:

* ``epoch`` -- epochs done (fractional for records inside an epoch); ``updates`` -- the number
  of updates ``t`` since the start;
* ``rho`` -- the margin of the theorems, ``2 beta / ||w||`` (the width of the band ``|f| <=
  beta``; ``2 / ||w||`` for the original Perceptron and the hinge models, whose band is ``|f| <=
  1``), where ``w`` is the weight vector of the space the theorems are about: the standardised
  inputs (linear models), the kernel's feature space (:class:`KernelMarginPerceptron`, ``||w||^2
  = sum_ij alpha_i alpha_j y_i y_j k(x_i, x_j)``), the hidden space (:class:`HingeMLPClassifier`:
  the output weights; :class:`SimpleMLP` and :class:`NilssonMLP`: the output weights are all 1, so
  ``rho = 2 beta / sqrt(N)`` (``2 / sqrt(N)``) is fixed);
* ``geometric_margin`` -- ``min_l y_l f(x_l) / ||w||`` on the training set in the same space
  (negative while a training example is misclassified);
* ``training_error`` -- the fraction of training examples with ``y f(x) <= 0``;
* ``validation_error`` -- the error on the validation set (NaN without one).

For two classes the per-model entries have shape (n_records,), else (n_records, n_classes).
:func:`margin_bound_separable`, :func:`perceptron_update_bound` and :func:`margin_bound_updates`
give the bounds of Theorems 8.2, (8.23) and 8.3; :func:`maximal_margin` the maximal margin
``rho_max`` and radius ``R`` they need; :func:`margin_curves` runs the protocol of Fig. 8.2.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .. import kernels as _k
from .._callbacks import progress_caller
from .._docstrings import fill_doc
from .._fit import fit_context
from .._validation import (NONNEGATIVE, POSITIVE, POSITIVE_INT, interval, str_options,
                           check_input, check_param)
from . import _margin
from .mlp import (SGD_CONSTRAINTS, _class_targets, _labels, _run_epochs, _split, _standardizer,
                  init_mlp_weights)

__all__ = ["MarginPerceptron", "SimpleMLP", "OriginalPerceptron", "SGDHingeClassifier",
           "KernelMarginPerceptron", "HingeMLPClassifier", "NilssonMLP", "Theorem81Epochs",
           "theorem_8_1_epochs", "margin_bound_separable", "perceptron_update_bound",
           "margin_bound_updates", "maximal_margin", "linearly_separable"]

_NO_LIMIT = -1
#: The checked data of the fits under :func:`_checked_once` (None outside it).
_CHECKED_ONCE = contextvars.ContextVar("kernelnb_margin_checked_once", default=None)


@contextlib.contextmanager
def _checked_once():
    """Fits of margin models under it check and standardise a sample once: a fit given the
    very objects (numpy arrays) an earlier fit under it was given, with a validation set,
    reuses that fit's checked, standardised data (read only, so no fit alters them); for
    loops that fit many models on one sample
    (:func:`kernelnb.reproductions.collobert.margin.margin_curves`).  The arrays must not change
    under it.  Nested, the outer one holds."""
    if _CHECKED_ONCE.get() is not None:
        yield
        return
    token = _CHECKED_ONCE.set({})
    try:
        yield
    finally:
        _CHECKED_ONCE.reset(token)


_HISTORY_KEYS = ("epoch", "updates", "rho", "geometric_margin", "training_error",
                 "validation_error")


# -- the theorems ------------------------------------------------------------------------------
class Theorem81Epochs(NamedTuple):
    """Epoch counts of Theorem 8.1 for stochastic gradient with weight decay (eq. 8.16).

    The last two are the thesis's equivalents, for a small ``lam mu``, of its exact
    expressions.

    Parameters
    ----------
    order : float
        ``1 / (L lam mu)``, the order of the least number of epochs to reach the SVM solution.
    halving : float
        ``log 2 / (L lam mu)``, the epochs to halve the coefficient ``alpha_l`` of an example
        that stopped being a support vector.
    bound_sv : float
        ``-log(lam mu) / (L lam mu)``, the epochs to raise the coefficient of a support vector
        at bound from 0 to its bound ``1/L``.
    """

    order: float
    halving: float
    bound_sv: float


def theorem_8_1_epochs(n_samples, learning_rate, weight_decay):
    """Count the epochs Theorem 8.1 says stochastic gradient with weight decay needs.

    Theorem 8.1 (Collobert 2004, ch. 8): at least on the order of ``1 / (L lam mu)`` epochs of
    stochastic gradient with weight decay (eq. 8.16) are needed to reach the SVM solution.

    Parameters
    ----------
    n_samples : int
        ``L``, the number of training examples.
    learning_rate : float
        ``lam`` of eq. (8.16).
    weight_decay : float
        ``mu`` of eq. (8.16); ``lam mu`` must be below 1.

    Returns
    -------
    Theorem81Epochs
        ``(order, halving, bound_sv)``.

    Examples
    --------
    >>> from kernelnb.largescale import theorem_8_1_epochs
    >>> print(round(theorem_8_1_epochs(10_000, 1e-3, 1e-4).order))
    1000
    """
    check_param("n_samples", n_samples, POSITIVE_INT, "theorem_8_1_epochs")
    check_param("learning_rate", learning_rate, POSITIVE, "theorem_8_1_epochs")
    check_param("weight_decay", weight_decay, POSITIVE, "theorem_8_1_epochs")
    lm = float(learning_rate) * float(weight_decay)
    if lm >= 1.0:
        raise ValueError(f"learning_rate * weight_decay must be below 1, got {lm:g}")
    denom = n_samples * lm
    return Theorem81Epochs(1.0 / denom, math.log(2.0) / denom, -math.log(lm) / denom)


def _effective_rate(learning_rate, beta, caller):
    """``learning_rate / beta``, each a positive number or an array of them (the bounds are
    vectorised over lambda as well as over t)."""
    out = []
    for name, value in (("learning_rate", learning_rate), ("beta", beta)):
        if np.ndim(value) == 0:
            check_param(name, value, POSITIVE, caller)
            out.append(float(value))
            continue
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            arr = np.array([np.nan])
        if arr.size == 0 or not np.all(np.isfinite(arr) & (arr > 0)):
            raise ValueError(f"The '{name}' parameter of {caller} must be a positive number or "
                             f"an array of positive numbers, got {value!r}")
        out.append(arr)
    return out[0] / out[1]


def margin_bound_separable(rho_max, R, learning_rate, beta=1.0):
    """Lower-bound the final margin of the margin Perceptron on separable data (Theorem 8.2).

    On linearly separable data the margin Perceptron converges and its final margin
    ``rho = 2 / ||w||`` satisfies ``rho >= rho_max / sqrt(1 + R^2) / (2 + R^2 lam)``.  With a
    margin ``beta`` other than 1 the model is the one of ``beta = 1`` and ``lam / beta`` scaled
    by ``beta``: ``rho = 2 beta / ||w||`` and ``lam`` is replaced by ``lam / beta``.  The
    printed theorem has ``R^2 lam``; its proof through (8.26) gives ``(R^2 + 1) lam`` (the
    radius of the inputs with the bias appended), a slightly weaker bound.

    Parameters
    ----------
    rho_max : float or array-like
        The maximal margin ``2 / ||u||`` (``u`` the hard-margin SVM's weights, with bias), as
        :func:`maximal_margin` gives it.
    R : float or array-like
        The radius ``max_l ||x_l||`` of the training inputs.
    learning_rate : float or array-like
        The step ``lam`` (positive).
    beta : float or array-like, default=1.0
        The margin asked of every example (positive).

    Returns
    -------
    float or ndarray
        The bound on ``rho``, broadcast over the arguments.
    """
    lam = _effective_rate(learning_rate, beta, "margin_bound_separable")
    R = np.asarray(R, dtype=float)
    return np.asarray(rho_max, dtype=float) / np.sqrt(1.0 + R ** 2) / (2.0 + R ** 2 * lam)


def perceptron_update_bound(rho_max, R, learning_rate, beta=1.0):
    """Bound the number of updates of the margin Perceptron on separable data (eq. 8.23).

    At most ``(4 / rho_max^2)(2 / lam + R^2)`` updates (``lam`` -> ``lam / beta`` for a margin
    ``beta``).  Stated without bias; for a model with a bias pass the margin and radius of the
    inputs with a 1 appended, ``rho_max = 2 / ||(u, a)||`` and ``R^2 = max ||x||^2 + 1``
    (substitution 8.25).

    Parameters
    ----------
    rho_max : float or array-like
        The maximal margin ``2 / ||u||``.
    R : float or array-like
        The radius ``max_l ||x_l||`` of the training inputs.
    learning_rate : float or array-like
        The step ``lam`` (positive).
    beta : float or array-like, default=1.0
        The margin asked of every example (positive).

    Returns
    -------
    float or ndarray
        The bound on the number of updates, broadcast over the arguments.
    """
    lam = _effective_rate(learning_rate, beta, "perceptron_update_bound")
    return 4.0 / np.asarray(rho_max, dtype=float) ** 2 * (2.0 / lam + np.asarray(R, float) ** 2)


def margin_bound_updates(t, R, learning_rate, beta=1.0):
    """Lower-bound the margin of the margin Perceptron after ``t`` updates (Theorem 8.3).

    ``rho_t >= (2 / lam) / sqrt(t (2 / lam + (R + 1)^2))``, separable data or not (``lam`` ->
    ``lam / beta`` and ``rho = 2 beta / ||w||`` for a margin ``beta``).

    Parameters
    ----------
    t : int or array-like
        Numbers of updates (``t = 0`` gives ``inf``).
    R : float or array-like
        The radius ``max_l ||x_l||`` of the training inputs.
    learning_rate : float or array-like
        The step ``lam`` (positive).
    beta : float or array-like, default=1.0
        The margin asked of every example (positive).

    Returns
    -------
    float or ndarray
        The bound on ``rho_t``, broadcast over the arguments.
    """
    lam = _effective_rate(learning_rate, beta, "margin_bound_updates")
    t = np.asarray(t, dtype=float)
    with np.errstate(divide="ignore"):
        return (2.0 / lam) / np.sqrt(t * (2.0 / lam + (np.asarray(R, float) + 1.0) ** 2))


def linearly_separable(X, y):
    """Tell whether two-class points are linearly separable (with a bias).

    ``y_l (u . x_l + a) >= 1`` for every l is a linear feasibility problem, solved by scipy's
    ``linprog`` (HiGHS), quick whatever the answer.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.
    y : array-like of shape (n_samples,)
        Their labels (two classes).

    Returns
    -------
    bool
        True when a hyperplane separates the two classes.
    """
    from scipy.optimize import linprog

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    classes = np.unique(y)
    if classes.shape[0] != 2:
        raise ValueError(f"linearly_separable needs two classes, got {classes.shape[0]}")
    yy = np.where(y == classes[1], 1.0, -1.0)
    A = -yy[:, None] * np.column_stack([X, np.ones(X.shape[0])])
    lp = linprog(np.zeros(A.shape[1]), A_ub=A, b_ub=-np.ones(X.shape[0]),
                 bounds=[(None, None)] * A.shape[1], method="highs")
    return lp.status == 0


def maximal_margin(X, y, standardize=True, C=1e8):
    """Compute the maximal margin and the radius of separable two-class data.

    ``rho_max = 2 / ||u||`` of the hard-margin SVM (with bias) and ``R = max ||x_l||``, in the
    space the linear margin models of this module train in (the inputs standardised as they
    standardise them, or as given).  The SVM is :class:`kernelnb.svm.SVC` with a linear kernel
    and a large ``C``.  The points must be linearly separable (checked first by
    :func:`linearly_separable`: on other data there is no maximal margin, and the solver with
    this C would run for minutes); a ``ValueError`` says so otherwise.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.
    y : array-like of shape (n_samples,)
        Their labels (two classes).
    standardize : bool, default=True
        Standardise the inputs first (each column to mean 0 and standard deviation 1).
    C : float, default=1e8
        The SVM's penalty, large enough for a hard margin.

    Returns
    -------
    rho_max : float
        The maximal margin ``2 / ||u||``.
    R : float
        The radius ``max_l ||x_l||``.
    """
    from ..svm import SVC

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    classes = np.unique(y)
    if classes.shape[0] != 2:
        raise ValueError(f"maximal_margin needs two classes, got {classes.shape[0]}")
    if standardize:
        mean, scale = _standardizer(X)
        X = (X - mean) / scale
    if not linearly_separable(X, y):
        raise ValueError("maximal_margin: the points are not linearly separable, so there is no "
                         "maximal margin (check with linearly_separable first)")
    svm = SVC(kernel="linear", C=C).fit(X, y)
    u = svm.dual_coef_[0] @ svm.support_vectors_
    return 2.0 / float(np.linalg.norm(u)), float(np.sqrt((X ** 2).sum(axis=1).max()))


# -- the shared machinery ----------------------------------------------------------------------
_TRACKING = {
    "record_every": [interval(Integral, 1, None, closed="left"), None],
    "max_updates": [interval(Integral, 1, None, closed="left"), None],
    "track_margin": ["boolean"],
}


# The parameters, fit arguments and fitted attributes every model of this module shares, written
# once and substituted into each class's docstring (kernelnb._docstrings.fill_doc).
_DOC = dict(
    training_parameters="""
max_iter : int, default=100
    Most epochs (passes over the training set).
validation_fraction : float in (0, 1) or None, default=None
    Part of the training set held out (stratified) to stop early and keep the weights of
    the epoch with the best validation accuracy; used only when ``fit`` gets no ``X_val``.
    None: no held-out part.
n_iter_no_change : int, default=10
    Epochs without a better validation accuracy before stopping (with a validation set).
random_state : int, RandomState instance or None, default=None
    Seeds the split, the initialisation and the order of every epoch.
verbose : bool, default=False
    Print the loss (and validation score) after every epoch.
callback : callable or None, default=None
    ``callback(info)`` after every epoch, with a dict (``iteration``, ``loss``,
    ``validation_score``, ``estimator``: this estimator with the weights of that epoch);
    returning ``False`` stops training.
record_every : int or None, default=None
    Also record the margin after every ``record_every``-th update (two classes only).
max_updates : int or None, default=None
    Stop each binary model after this many updates (``t`` of Theorem 8.3).
track_margin : bool, default=True
    Record ``margin_history_`` (one pass over the training set per record).""",
    fit_parameters="""
X : array-like of shape (n_samples, n_features)
    Training inputs.
y : array-like of shape (n_samples,)
    Class labels (more than two classes are learned one-vs-rest).
X_val : array-like of shape (n_val, n_features), optional
    Validation inputs: training stops early on their accuracy, and the weights of the
    best epoch are kept.
y_val : array-like of shape (n_val,), optional
    Their labels.""",
    training_attributes="""
classes_ : ndarray of shape (n_classes,)
    The class labels.
mean_, scale_ : ndarray of shape (n_features,)
    Input standardisation (of the training part only).
n_updates_ : list of int
    Updates made in each epoch (all binary models together).
n_updates_total_ : int or ndarray of shape (n_classes,)
    Updates made in all, per binary model for more than two classes.
validation_scores_ : list of float or None
    Validation accuracy per epoch (None without a validation set).
best_epoch_ : int or None
    With a validation set, the epoch whose weights are kept.
best_validation_score_ : float or None
    Its validation accuracy.
n_iter_ : int
    Epochs run (the binary models of more classes share the epochs).
fit_time_ : float
    Seconds the fit took.""",
)


class _BaseMargin(ClassifierMixin, BaseEstimator):
    _parameter_constraints = {**SGD_CONSTRAINTS, "beta": NONNEGATIVE, **_TRACKING}
    #: stop after an epoch without update (False for the models with a weight decay)
    _stop_without_update = True

    def _prepare(self, X, y, X_val, y_val):
        given = (X, y, X_val, y_val)
        cache = _CHECKED_ONCE.get()
        key = None
        if cache is not None and X_val is not None and all(
                type(a) is np.ndarray for a in given):
            key = tuple(id(a) for a in given)
        hit = cache.get(key) if key is not None else None
        if hit is not None and all(a is b for a, b in zip(hit["given"], given)):
            data = hit
            self.n_features_in_ = data["n_features_in"]
            rng = check_random_state(self.random_state)
        else:
            data, rng = self._check_data(X, y, X_val, y_val)
            if key is not None:
                for name in ("Xs", "Y", "Xvs"):   # read only: the fits sharing them keep them
                    data[name].setflags(write=False)
                cache[key] = dict(data, given=given)
        self.classes_ = data["classes"]
        if self.record_every is not None and self.classes_.shape[0] > 2:
            raise ValueError(f"record_every needs two classes (records are taken at update "
                             f"counts of one model), got {self.classes_.shape[0]}")
        self.mean_, self.scale_ = data["mean"].copy(), data["scale"].copy()
        self.radius_ = data["radius"]
        Xvs, yv = data["Xvs"], data["yv"]
        val_score = None if Xvs is None else self._val_score(Xvs, yv)
        return data["Xs"], data["Y"], val_score, rng

    def _val_score(self, Xvs, yv):
        """``val_score() -> accuracy`` of the model being trained on the validation set.  The
        validation inputs are checked (by ``_split``) and standardised once; every record then
        reads predict's labels from the private decision function, without predict's input
        checks and accuracy_score's (most of the cost of a record)."""
        def val_score():
            return float(np.mean(_labels(self.classes_, self._decision(Xvs)) == yv))
        return val_score

    def _check_data(self, X, y, X_val, y_val):
        """The checks and the standardisation of :meth:`_prepare`, which depend on the data
        only: a dict of ``classes``, ``mean``, ``scale``, ``Xs`` (standardised training inputs),
        ``radius``, ``Y`` (the +-1 targets, one row per binary model), ``Xvs`` and ``yv`` (the
        standardised validation set, or None) and ``n_features_in``; and the random state."""
        X, y = check_input(self, X, y)
        check_classification_targets(y)
        rng = check_random_state(self.random_state)
        X, y, Xv, yv = _split(self, X, y, X_val, y_val, rng, True)
        classes = np.unique(y)
        if classes.shape[0] < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes, got 1 "
                             f"class ({classes[0]!r})")
        mean, scale = _standardizer(X)
        Xs = np.ascontiguousarray((X - mean) / scale)
        Y = np.ascontiguousarray(_class_targets(classes, y).T)
        Xvs = None if Xv is None else (Xv - mean) / scale
        return dict(classes=classes, mean=mean, scale=scale, Xs=Xs, Y=Y, Xvs=Xvs, yv=yv,
                    radius=float(np.sqrt((Xs ** 2).sum(axis=1).max())),
                    n_features_in=self.n_features_in_), rng

    def _train(self, Xs, Y, rng, val_score, run_one, state, margins):
        """Epochs of ``run_one(k, y_k, order, start, limit) -> (position, loss, updates)`` over
        the binary problems; ``margins(k) -> (rho, geometric margin, training error)`` of model
        ``k`` for the history."""
        K, n = Y.shape
        every, cap = self.record_every, self.max_updates
        t = np.zeros(K, dtype=np.int64)
        hist = {key: [] for key in _HISTORY_KEYS}
        cached = {}
        self.n_updates_ = []

        def val_error():
            if val_score is None:
                return np.nan
            if "v" not in cached:
                cached["v"] = float(val_score())
            return 1.0 - cached["v"]

        def record(ep):
            if not self.track_margin:
                return
            m = np.array([margins(k) for k in range(K)])          # (K, 3)
            hist["epoch"].append(ep)
            hist["updates"].append(t.copy())
            hist["rho"].append(m[:, 0])
            hist["geometric_margin"].append(m[:, 1])
            hist["training_error"].append(m[:, 2])
            hist["validation_error"].append(val_error())

        n_epoch = [0]

        def epoch(order):
            loss, upd = 0.0, 0
            for k in range(K):
                pos = 0
                while pos < n and (cap is None or t[k] < cap):
                    limit = _NO_LIMIT if cap is None else int(cap - t[k])
                    if every is not None:
                        step = int(every - t[k] % every)
                        limit = step if limit == _NO_LIMIT else min(limit, step)
                    pos, lk, uk = run_one(k, Y[k], order, pos, limit)
                    t[k] += uk
                    loss += lk
                    upd += uk
                    if uk:
                        cached.clear()
                    if every is not None and uk and t[k] % every == 0 and pos < n:
                        record(n_epoch[0] + pos / n)
            n_epoch[0] += 1
            self.n_updates_.append(int(upd))
            record(float(n_epoch[0]))
            capped = cap is not None and bool(np.all(t >= cap))
            return loss / (n * K), capped or (upd == 0 and self._stop_without_update)

        def cached_score():                 # the validation score of the epoch, computed once
            return 1.0 - val_error()

        _run_epochs(self, n, rng, epoch, None if val_score is None else cached_score, state,
                    stop_on_loss=False,
                    report=progress_caller(self.callback))
        self.n_updates_total_ = t if K > 1 else int(t[0])
        out = {}
        for key in _HISTORY_KEYS:
            a = np.asarray(hist[key], dtype=np.int64 if key == "updates" else float)
            if key not in ("epoch", "validation_error"):
                a = a.reshape(-1, K)
                if K == 1:
                    a = a[:, 0]
            out[key] = a
        self.margin_history_ = out

    def _linear_margins(self, Xs, Y, W, B, band):
        """``margins(k)``: :func:`_margins_of` the linear model ``k``, read in one pass
        by :func:`kernelnb.largescale._margin.linear_record` (a record every ``k`` updates of
        a margin study would otherwise cost several NumPy calls for a few rows)."""
        n = Xs.shape[0]

        def margins(k):
            nw, lo, nonpos, _ = _margin.linear_record(Xs, Y[k], W[k], float(B[k, 0]))
            return _margins_of(nw, lo, nonpos / n, band)
        return margins

    def _std(self, X):
        check_is_fitted(self, "classes_")
        X = check_input(self, X, reset=False)
        return (X - self.mean_) / self.scale_

    def decision_function(self, X):
        """``f(x)``: shape (n,) for two classes (> 0 means ``classes_[1]``), else
        (n, n_classes) (one-vs-rest)."""
        return self._decision(self._std(X))

    def _decision(self, Xs):
        """:meth:`decision_function` on inputs already checked and standardised."""
        F = self._f(Xs)
        return F[:, 0] if F.shape[1] == 1 else F

    def predict(self, X):
        """Class labels."""
        D = self.decision_function(X)          # checks the fit before classes_ is read
        return _labels(self.classes_, D)


def _margin_triple(yf, norm, band):
    """(rho = 2 band / norm, min y f / norm, training error) of the outputs ``y f``, with the
    conventions of :func:`_margins_of`."""
    return _margins_of(norm, float(np.min(yf)), float(np.mean(yf <= 0)), band)


def _margins_of(norm, lowest, error, band):
    """(rho = 2 band / norm, lowest / norm, error) with the conventions for a zero norm (an
    untrained model): rho = inf, geometric margin NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = 2.0 * band / norm if norm > 0 else np.inf
        geo = lowest / norm if norm > 0 else np.nan
    return rho, geo, error


def _linear_fit(est, X, y, X_val, y_val, beta, lr, decay, dual):
    """Fit the linear models (Alg. 3.1, Alg. 8.1, eq. 8.16)."""
    Xs, Y, val_score, rng = est._prepare(X, y, X_val, y_val)
    K, n = Y.shape
    W = np.zeros((K, Xs.shape[1]))
    B = np.zeros((K, 1))
    A = np.zeros((K, n if dual else 0))
    est.weights_, est._b = W, B

    def run_one(k, yk, order, start, limit):
        return _margin.linear_run(Xs, yk, order, start, W[k], B[k], A[k], lr, beta, decay,
                                  limit)

    band = 1.0 if beta == 0.0 else beta
    est._train(Xs, Y, rng, val_score, run_one, {"W": W, "B": B, "A": A},
               est._linear_margins(Xs, Y, W, B, band))
    est.bias_ = B[:, 0].copy()
    est.coef_ = W / est.scale_
    est.intercept_ = est.bias_ - est.coef_ @ est.mean_
    return A


class _LinearMargin(_BaseMargin):
    def _f(self, Xs):
        return Xs @ self.weights_.T + self._b[:, 0]

    def _val_score(self, Xvs, yv):
        """For two classes, predict's errors counted by :func:`_margin.linear_record` in one
        pass (``f > 0`` is ``classes_[1]``, as :func:`_labels`); otherwise the base class's."""
        classes = self.classes_
        if classes.shape[0] != 2 or not np.all(np.isin(yv, classes)):
            return super()._val_score(Xvs, yv)
        Xvs = np.ascontiguousarray(Xvs, dtype=np.float64)
        yv_pm = np.where(yv == classes[1], 1.0, -1.0)
        n = Xvs.shape[0]

        def val_score():
            wrong = _margin.linear_record(Xvs, yv_pm, self.weights_[0], float(self._b[0, 0]))[3]
            return 1.0 - wrong / n
        return val_score


@fill_doc(**_DOC)
class MarginPerceptron(_LinearMargin):
    """The margin Perceptron (Collobert's thesis, Algorithm 8.1; Duda & Hart, 1973).

    Stochastic gradient of the beta-hinge ``|beta - y (w . x + b)|_+`` from zero weights,
    without weight decay: every example with ``y f(x) <= beta`` moves ``w += lam y x,
    b += lam y``.  From a zero start only ``learning_rate / beta`` matters for the decision.

    Parameters
    ----------
    beta : float, default=1.0
        Margin asked of every example (the thesis uses 1; 0 gives the Perceptron's rule with a
        step ``lam``).
    learning_rate : float, default=0.01
        Step ``lam`` of every update.
    %(training_parameters)s

    Attributes
    ----------
    radius_ : float
        ``R = max ||x_l||`` of the standardised training inputs.
    weights_ : ndarray of shape (n_models, n_features)
        ``w`` on standardised inputs (one model for two classes, one per class otherwise).
    bias_ : ndarray of shape (n_models,)
        ``b``.
    coef_ : ndarray of shape (n_models, n_features)
        The same hyperplanes on the raw inputs.
    intercept_ : ndarray of shape (n_models,)
        Their offsets on the raw inputs.
    loss_curve_ : list of float
        Mean beta-hinge per epoch (each example's before its update).
    margin_history_ : dict of ndarray
        The margin records (see :mod:`kernelnb.largescale.margin`): ``rho = 2 beta / ||w||`` on the
        standardised inputs.
    %(training_attributes)s

    References
    ----------
    R. Collobert, "Large Scale Machine Learning", PhD thesis, Universite Paris VI, 2004,
    chapter 8.  R. Collobert and S. Bengio, "Links between Perceptrons, MLPs and SVMs",
    ICML 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.largescale import MarginPerceptron
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(100, 2)
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = MarginPerceptron(random_state=0).fit(X, y)
    >>> clf.predict(X[8:12])
    array([1, 0, 0, 1])
    >>> print(clf.score(X, y) > 0.9)
    True
    """

    def __init__(self, *, beta=1.0, learning_rate=0.01, max_iter=100, validation_fraction=None,
                 n_iter_no_change=10, random_state=None, verbose=False, callback=None,
                 record_every=None, max_updates=None, track_margin=True):
        self.beta = beta
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.record_every = record_every
        self.max_updates = max_updates
        self.track_margin = track_margin

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Train on (X, y).

        Parameters
        ----------
        %(fit_parameters)s

        Returns
        -------
        self : MarginPerceptron
            The fitted estimator.
        """
        _linear_fit(self, X, y, X_val, y_val, float(self.beta), float(self.learning_rate),
                    0.0, False)
        return self


@fill_doc(**_DOC)
class OriginalPerceptron(_LinearMargin):
    """The original Perceptron (Collobert's thesis, Algorithm 3.1; Rosenblatt, 1958).

    From ``w = 0, b = 0`` every example with ``y (w . x + b) <= 0`` moves ``w += y x,
    b += y``.  No margin and no learning rate (from a zero start a step ``lam`` only scales
    ``w``); on separable data it stops after the first epoch without mistake (Novikoff),
    otherwise only a validation set or ``max_iter`` stop it.  A weight decay would make
    ``w = 0`` optimal (thesis ch. 8), so there is none.

    Parameters
    ----------
    %(training_parameters)s

    Attributes
    ----------
    radius_ : float
        ``R = max ||x_l||`` of the standardised training inputs.
    weights_ : ndarray of shape (n_models, n_features)
        ``w`` on standardised inputs (one model for two classes, one per class otherwise).
    bias_ : ndarray of shape (n_models,)
        ``b``.
    coef_ : ndarray of shape (n_models, n_features)
        The same hyperplanes on the raw inputs.
    intercept_ : ndarray of shape (n_models,)
        Their offsets on the raw inputs.
    loss_curve_ : list of float
        Mean perceptron criterion ``|-y f(x)|_+`` per epoch.
    margin_history_ : dict of ndarray
        The margin records (see :mod:`kernelnb.largescale.margin`): ``rho = 2 / ||w||`` (the band
        ``|f| <= 1`` of the unit steps), ``geometric_margin`` the distance of the closest example
        to the hyperplane.
    %(training_attributes)s

    References
    ----------
    R. Collobert, "Large Scale Machine Learning", PhD thesis, Universite Paris VI, 2004,
    chapters 3 and 8.  R. Collobert and S. Bengio, "Links between Perceptrons, MLPs and SVMs",
    ICML 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.largescale import OriginalPerceptron
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(100, 2)
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = OriginalPerceptron(random_state=0).fit(X, y)
    >>> clf.predict(X[8:12])
    array([1, 0, 0, 1])
    >>> print(clf.score(X, y) > 0.9)
    True
    """

    _parameter_constraints = {k: v for k, v in _BaseMargin._parameter_constraints.items()
                              if k not in ("beta", "learning_rate")}

    def __init__(self, *, max_iter=100, validation_fraction=None, n_iter_no_change=10,
                 random_state=None, verbose=False, callback=None, record_every=None,
                 max_updates=None, track_margin=True):
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.record_every = record_every
        self.max_updates = max_updates
        self.track_margin = track_margin

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Train on (X, y).

        Parameters
        ----------
        %(fit_parameters)s

        Returns
        -------
        self : OriginalPerceptron
            The fitted estimator.
        """
        _linear_fit(self, X, y, X_val, y_val, 0.0, 1.0, 0.0, False)
        return self


@fill_doc(**_DOC)
class SGDHingeClassifier(_LinearMargin):
    """Linear SVM trained by stochastic gradient with weight decay (Collobert's thesis, eq. 8.16).

    Minimises ``mu/2 ||w||^2 + (1/L) sum_l |1 - y_l (w . x_l + b)|_+`` (a linear SVM with
    ``C = 1 / (L mu)``) one example at a time::

        w <- (1 - lam mu) w + lam y x     if y f(x) <= 1
        w <- (1 - lam mu) w               otherwise;   b += lam y on the updates.

    The dual view (8.17) is kept beside ``w``: ``w = sum_l dual_coef_l y_l x_l`` (standardised
    training inputs), each coefficient decays by ``1 - lam mu`` at every example and grows by
    ``lam`` on its own updates; the thesis's ``alpha_l`` is ``mu dual_coef_l`` (bounded by
    ``1/L`` at the SVM solution).  Theorem 8.1: reaching the SVM solution takes at least on the
    order of ``1 / (L lam mu)`` epochs; the count is reported beside the epochs run.

    Parameters
    ----------
    learning_rate : float, default=0.01
        The step ``lam``.
    weight_decay : float, default=1e-4
        The factor ``mu`` (``lam mu`` must be below 1).
    %(training_parameters)s

    Attributes
    ----------
    radius_ : float
        ``R = max ||x_l||`` of the standardised training inputs.
    weights_ : ndarray of shape (n_models, n_features)
        ``w`` on standardised inputs (one model for two classes, one per class otherwise).
    bias_ : ndarray of shape (n_models,)
        ``b``.
    coef_ : ndarray of shape (n_models, n_features)
        The same hyperplanes on the raw inputs.
    intercept_ : ndarray of shape (n_models,)
        Their offsets on the raw inputs.
    dual_coef_ : ndarray of shape (n_models, n_train)
        The coefficients of ``w`` on the standardised training examples (without the
        validation part held out by ``validation_fraction``).
    objective_ : ndarray of shape (n_models,) or None
        The cost (8.15) of the final weights on the training set (None when
        ``validation_fraction`` held part of ``X`` out: use :meth:`svm_objective`).
    theorem_8_1_epochs_ : Theorem81Epochs
        Theorem 8.1's counts for ``L`` = the training examples, ``lam`` and ``mu``; compare
        with ``n_iter_``.
    loss_curve_ : list of float
        Mean hinge per epoch (without the decay term).
    margin_history_ : dict of ndarray
        The margin records (see :mod:`kernelnb.largescale.margin`): ``rho = 2 / ||w||``.
    %(training_attributes)s

    References
    ----------
    R. Collobert, "Large Scale Machine Learning", PhD thesis, Universite Paris VI, 2004,
    chapter 8 (eq. 8.15-8.17, Theorem 8.1).  R. Collobert and S. Bengio, "Links between
    Perceptrons, MLPs and SVMs", ICML 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.largescale import SGDHingeClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(100, 2)
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = SGDHingeClassifier(learning_rate=0.1, weight_decay=0.01, random_state=0).fit(X, y)
    >>> clf.predict(X[8:12])
    array([1, 0, 0, 1])
    >>> print(clf.score(X, y) > 0.9)
    True
    """

    _parameter_constraints = {**{k: v for k, v in _BaseMargin._parameter_constraints.items()
                                 if k != "beta"}, "weight_decay": POSITIVE}
    _stop_without_update = False

    def __init__(self, *, learning_rate=0.01, weight_decay=1e-4, max_iter=100,
                 validation_fraction=None, n_iter_no_change=10, random_state=None, verbose=False,
                 callback=None, record_every=None, max_updates=None, track_margin=True):
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.record_every = record_every
        self.max_updates = max_updates
        self.track_margin = track_margin

    def _check_params_extra(self):
        lm = float(self.learning_rate) * float(self.weight_decay)
        if lm >= 1.0:
            raise ValueError(f"learning_rate * weight_decay must be below 1, got {lm:g}")

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Train on (X, y).

        Parameters
        ----------
        %(fit_parameters)s

        Returns
        -------
        self : SGDHingeClassifier
            The fitted estimator.
        """
        lr, mu = float(self.learning_rate), float(self.weight_decay)
        A = _linear_fit(self, X, y, X_val, y_val, 1.0, lr, lr * mu, True)
        self.dual_coef_ = A
        whole = X_val is not None or self.validation_fraction is None  # X: the training set
        self.objective_ = self.svm_objective(X, y) if whole else None
        self.theorem_8_1_epochs_ = theorem_8_1_epochs(A.shape[1], lr, mu)
        if self.verbose:
            th = self.theorem_8_1_epochs_
            print(f"Theorem 8.1: at least ~{th.order:.4g} epochs to reach the SVM solution "
                  f"(halving a useless alpha {th.halving:.4g}, a bound support vector "
                  f"{th.bound_sv:.4g}); ran {self.n_iter_} epochs")
        return self

    def _objective(self, X, y):
        """``mu/2 ||w||^2 + mean_l |1 - y_l f(x_l)|_+`` (eq. 8.15) on the standardised (X, y)."""
        Xs = (X - self.mean_) / self.scale_
        Y = _class_targets(self.classes_, y).T
        F = self._f(Xs).T
        return (0.5 * float(self.weight_decay) * (self.weights_ ** 2).sum(axis=1)
                + np.maximum(0.0, 1.0 - Y * F).mean(axis=1))

    def svm_objective(self, X, y):
        """The cost (8.15) ``mu/2 ||w||^2 + (1/L) sum_l |1 - y_l f(x_l)|_+`` of the fitted
        weights on (X, y) (inputs standardised as in training), one value per binary model
        (shape (1,) for two classes).  ``objective_`` holds it on the training set."""
        check_is_fitted(self, "classes_")
        X, y = check_input(self, X, y, reset=False)
        return self._objective(X, np.asarray(y))


@fill_doc(**_DOC)
class SimpleMLP(_BaseMargin):
    """The Simple MLP (Collobert's thesis, Algorithm 8.2): HardTanh units without output weights.

    ``f(x) = b + sum_n HardTanh(v_n . x + a_n)``, trained on the beta-hinge by its sparse
    stochastic algorithm: on an example with ``y f(x) <= beta`` every unit in its linear region
    (``|v_n . x + a_n| <= 1``) moves by ``v_n += lam y x, a_n += lam y``, and ``b += lam y``.
    The printed algorithm initialises the weights to zero; the text says the units differ only
    by their random initialisation, so here ``v_n`` are random (see ``init_scale``).

    Parameters
    ----------
    n_hidden : int, default=20
        Number of HardTanh units N (the margin in hidden space is ``2 beta / sqrt(N)``).
    beta : float, default=1.0
        Margin of the beta-hinge ``|beta - y f(x)|_+``.
    learning_rate : float, default=0.01
        Step ``lam`` of every update.
    init_scale : float, default=1.0
        ``v_n ~ N(0, init_scale^2 / n_features I)``; ``a_n = 0``, ``b = 0``.
    %(training_parameters)s

    Attributes
    ----------
    radius_ : float
        ``R = max ||x_l||`` of the standardised training inputs.
    hidden_weights_ : ndarray of shape (n_models, n_hidden, n_features)
        ``v_n`` on standardised inputs (one model for two classes, one per class otherwise).
    hidden_bias_ : ndarray of shape (n_models, n_hidden)
        ``a_n``.
    bias_ : ndarray of shape (n_models,)
        ``b``.
    loss_curve_ : list of float
        Mean beta-hinge per epoch (each example's before its update).
    margin_history_ : dict of ndarray
        The margin records (see :mod:`kernelnb.largescale.margin`): in the space of the hidden
        units, whose output weights are all 1: ``rho = 2 beta / sqrt(N)`` is fixed,
        ``geometric_margin = min y f / sqrt(N)``.
    %(training_attributes)s

    References
    ----------
    R. Collobert, "Large Scale Machine Learning", PhD thesis, Universite Paris VI, 2004,
    chapter 8.  R. Collobert and S. Bengio, "Links between Perceptrons, MLPs and SVMs",
    ICML 2004.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.largescale import SimpleMLP
    >>> X, y = make_moons(n_samples=200, noise=0.1, random_state=0)
    >>> clf = SimpleMLP(n_hidden=10, learning_rate=0.1, max_iter=50, random_state=0)
    >>> clf.fit(X[:150], y[:150]).predict(X[150:155]).shape
    (5,)
    >>> print(clf.score(X[150:], y[150:]) > 0.9)
    True
    """

    _parameter_constraints = {**_BaseMargin._parameter_constraints, "n_hidden": POSITIVE_INT,
                              "init_scale": POSITIVE}

    def __init__(self, *, n_hidden=20, beta=1.0, learning_rate=0.01, init_scale=1.0, max_iter=100,
                 validation_fraction=None, n_iter_no_change=10, random_state=None, verbose=False,
                 callback=None, record_every=None, max_updates=None, track_margin=True):
        self.n_hidden = n_hidden
        self.beta = beta
        self.learning_rate = learning_rate
        self.init_scale = init_scale
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.record_every = record_every
        self.max_updates = max_updates
        self.track_margin = track_margin

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Train on (X, y).

        Parameters
        ----------
        %(fit_parameters)s

        Returns
        -------
        self : SimpleMLP
            The fitted estimator.
        """
        Xs, Y, val_score, rng = self._prepare(X, y, X_val, y_val)
        n_models, d, N = Y.shape[0], Xs.shape[1], int(self.n_hidden)
        V = rng.standard_normal((n_models, N, d)) * (float(self.init_scale) / np.sqrt(d))
        A = np.zeros((n_models, N))
        B = np.zeros((n_models, 1))
        self.hidden_weights_, self.hidden_bias_, self._b = V, A, B
        lr, beta = float(self.learning_rate), float(self.beta)

        def run_one(k, yk, order, start, limit):
            return _margin.simple_mlp_run(Xs, yk, order, start, V[k], A[k], B[k], lr, beta,
                                          limit)

        band = beta if beta > 0 else 1.0

        def margins(k):
            yf = Y[k] * self._f_one(Xs, k)
            return _margin_triple(yf, np.sqrt(N), band)

        self._train(Xs, Y, rng, val_score, run_one, {"V": V, "A": A, "B": B}, margins)
        self.bias_ = B[:, 0].copy()
        return self

    def _f_one(self, Xs, k):
        Z = Xs @ self.hidden_weights_[k].T + self.hidden_bias_[k]
        return np.clip(Z, -1.0, 1.0).sum(axis=1) + self._b[k, 0]

    def _f(self, Xs):
        return np.column_stack([self._f_one(Xs, k) for k in range(self.hidden_weights_.shape[0])])


@fill_doc(**_DOC)
class NilssonMLP(_BaseMargin):
    """The Nilsson MLP (Collobert's thesis, Algorithm 8.3): a committee of sign units voting.

    ``f(x) = sum_n sign(v_n . x + a_n)`` with ``N`` odd and no output bias (``sign(0) = +1``;
    Ridgway 1962, Nilsson 1965).  On a mistake (``y f(x) <= 0``) the units that misclassify
    ``x``, sorted by ``|v_n . x + a_n|`` ascending, move by ``v_n += lam y x, a_n += lam y``
    for the first ``ceil((|f(x)| + 1) / 2)`` of them -- the fewest flips that make the vote
    right.  It is the Simple MLP's counterpart without margin (thesis Table 8.2).  Sign units
    ignore the scale of ``(v_n, a_n)``: only ``learning_rate / init_scale`` matters.  A step
    moves ``v_n`` by ``lam ||x||`` (about ``lam sqrt(d)`` on standardised inputs) against an
    initial norm of about ``init_scale``, so on few features the default rate moves the units
    slowly.

    Parameters
    ----------
    n_hidden : int, default=21
        Number ``N`` of sign units, odd.
    learning_rate : float, default=0.01
        Step ``lam`` of every update.
    init_scale : float, default=1.0
        ``v_n ~ N(0, init_scale^2 / n_features I)``, ``a_n = 0`` (random, as the Simple MLP:
        identical units would never differ).
    %(training_parameters)s

    Attributes
    ----------
    radius_ : float
        ``R = max ||x_l||`` of the standardised training inputs.
    hidden_weights_ : ndarray of shape (n_models, n_hidden, n_features)
        ``v_n`` on standardised inputs (one model for two classes, one per class otherwise).
    hidden_bias_ : ndarray of shape (n_models, n_hidden)
        ``a_n``.
    loss_curve_ : list of float
        Mean number of units to flip per epoch.
    margin_history_ : dict of ndarray
        The margin records (see :mod:`kernelnb.largescale.margin`): in the space of the hidden
        units, whose output weights are all 1: ``rho = 2 / sqrt(N)`` fixed, ``geometric_margin =
        min y f / sqrt(N)``.
    %(training_attributes)s

    References
    ----------
    R. Collobert, "Large Scale Machine Learning", PhD thesis, Universite Paris VI, 2004,
    chapter 8.  R. Collobert and S. Bengio, "Links between Perceptrons, MLPs and SVMs",
    ICML 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.largescale import NilssonMLP
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(100, 2)
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> clf = NilssonMLP(n_hidden=5, learning_rate=0.1, max_iter=50, random_state=0)
    >>> clf.fit(X, y).predict(X[8:12])
    array([1, 0, 0, 1])
    >>> print(clf.score(X, y) > 0.9)
    True
    """

    _parameter_constraints = {**{k: v for k, v in _BaseMargin._parameter_constraints.items()
                                 if k != "beta"}, "n_hidden": POSITIVE_INT,
                              "init_scale": POSITIVE}

    def __init__(self, *, n_hidden=21, learning_rate=0.01, init_scale=1.0, max_iter=100,
                 validation_fraction=None, n_iter_no_change=10, random_state=None, verbose=False,
                 callback=None, record_every=None, max_updates=None, track_margin=True):
        self.n_hidden = n_hidden
        self.learning_rate = learning_rate
        self.init_scale = init_scale
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.record_every = record_every
        self.max_updates = max_updates
        self.track_margin = track_margin

    def _check_params_extra(self):
        if int(self.n_hidden) % 2 == 0:
            raise ValueError(f"n_hidden must be odd (a majority vote without ties), got "
                             f"{self.n_hidden}")

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Train on (X, y).

        Parameters
        ----------
        %(fit_parameters)s

        Returns
        -------
        self : NilssonMLP
            The fitted estimator.
        """
        Xs, Y, val_score, rng = self._prepare(X, y, X_val, y_val)
        n_models, d, N = Y.shape[0], Xs.shape[1], int(self.n_hidden)
        V = rng.standard_normal((n_models, N, d)) * (float(self.init_scale) / np.sqrt(d))
        A = np.zeros((n_models, N))
        self.hidden_weights_, self.hidden_bias_ = V, A
        lr = float(self.learning_rate)

        def run_one(k, yk, order, start, limit):
            return _margin.nilsson_run(Xs, yk, order, start, V[k], A[k], lr, limit)

        def margins(k):
            return _margin_triple(Y[k] * self._f_one(Xs, k), np.sqrt(N), 1.0)

        self._train(Xs, Y, rng, val_score, run_one, {"V": V, "A": A}, margins)
        return self

    def _f_one(self, Xs, k):
        Z = Xs @ self.hidden_weights_[k].T + self.hidden_bias_[k]
        return np.where(Z >= 0, 1.0, -1.0).sum(axis=1)

    def _f(self, Xs):
        return np.column_stack([self._f_one(Xs, k) for k in range(self.hidden_weights_.shape[0])])


@fill_doc(**_DOC)
class HingeMLPClassifier(_BaseMargin):
    """The MLP on the hinge loss of Collobert's thesis, eq. (8.10).

    ``f(x) = sum_n w_n h(v_n . x + a_n) + b`` trained by stochastic gradient on
    ``mu/2 ||w||^2 + nu/2 sum_n ||v_n||^2 + (1/L) sum_l |1 - y_l f(x_l)|_+``.  With the
    HardTanh ``h(z) = clip(z, -1, 1)`` every hidden unit is a local SVM on the examples in its
    linear region (Theorem 8.4); ``(w, b)`` is the SVM in the space of the hidden units.  The
    thesis finds its four hyperparameters (``mu``, ``nu`` and the two learning rates) too many,
    which led to the Simple MLP.  Weights start as
    :func:`kernelnb.largescale.mlp.init_mlp_weights` draws them (LeCun et al., 1998).

    Parameters
    ----------
    n_hidden : int, default=20
        Number ``N`` of hidden units.
    activation : {'hardtanh', 'tanh'}, default='hardtanh'
        The hidden units' function ``h``.
    learning_rate : float, default=0.01
        Step of the output layer ``(w, b)``.
    learning_rate_hidden : float or None, default=None
        Step of the hidden layer ``(v_n, a_n)`` (None: ``learning_rate``).
    weight_decay : float, default=0.0
        ``mu``, on the output weights ``w`` (not ``b``); ``learning_rate * weight_decay`` must
        be below 1.
    weight_decay_hidden : float, default=0.0
        ``nu``, on the hidden weights ``v_n`` (not ``a_n``); times the hidden step it must be
        below 1.
    %(training_parameters)s

    Attributes
    ----------
    radius_ : float
        ``R = max ||x_l||`` of the standardised training inputs.
    hidden_weights_ : ndarray of shape (n_models, n_hidden, n_features)
        ``v_n`` on standardised inputs (one model for two classes, one per class otherwise).
    hidden_bias_ : ndarray of shape (n_models, n_hidden)
        ``a_n``.
    output_weights_ : ndarray of shape (n_models, n_hidden)
        ``w``.
    bias_ : ndarray of shape (n_models,)
        ``b``.
    loss_curve_ : list of float
        Mean hinge per epoch (without the decay terms).
    margin_history_ : dict of ndarray
        The margin records (see :mod:`kernelnb.largescale.margin`): in the space of the hidden
        units, ``rho = 2 / ||w||``.
    %(training_attributes)s

    References
    ----------
    R. Collobert, "Large Scale Machine Learning", PhD thesis, Universite Paris VI, 2004,
    chapter 8 (eq. 8.10, Theorem 8.4).  R. Collobert and S. Bengio, "Links between
    Perceptrons, MLPs and SVMs", ICML 2004.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.largescale import HingeMLPClassifier
    >>> X, y = make_moons(n_samples=200, noise=0.1, random_state=0)
    >>> clf = HingeMLPClassifier(n_hidden=10, learning_rate=0.1, max_iter=50, random_state=0)
    >>> clf.fit(X[:150], y[:150]).predict(X[150:155]).shape
    (5,)
    >>> print(clf.score(X[150:], y[150:]) > 0.9)
    True
    """

    _parameter_constraints = {
        **{k: v for k, v in _BaseMargin._parameter_constraints.items() if k != "beta"},
        "n_hidden": POSITIVE_INT, "activation": [str_options({"hardtanh", "tanh"})],
        "learning_rate_hidden": POSITIVE + [None], "weight_decay": NONNEGATIVE,
        "weight_decay_hidden": NONNEGATIVE}
    _stop_without_update = False

    def __init__(self, *, n_hidden=20, activation="hardtanh", learning_rate=0.01,
                 learning_rate_hidden=None, weight_decay=0.0, weight_decay_hidden=0.0,
                 max_iter=100, validation_fraction=None, n_iter_no_change=10, random_state=None,
                 verbose=False, callback=None, record_every=None, max_updates=None,
                 track_margin=True):
        self.n_hidden = n_hidden
        self.activation = activation
        self.learning_rate = learning_rate
        self.learning_rate_hidden = learning_rate_hidden
        self.weight_decay = weight_decay
        self.weight_decay_hidden = weight_decay_hidden
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.record_every = record_every
        self.max_updates = max_updates
        self.track_margin = track_margin

    def _rates(self):
        """The two steps and the two decays ``(lr_w, lr_v, mu, nu)``."""
        lr_w = float(self.learning_rate)
        lr_v = lr_w if self.learning_rate_hidden is None else float(self.learning_rate_hidden)
        return lr_w, lr_v, float(self.weight_decay), float(self.weight_decay_hidden)

    def _check_params_extra(self):
        lr_w, lr_v, mu, nu = self._rates()
        for name, value in (("learning_rate * weight_decay", lr_w * mu),
                            ("learning_rate_hidden * weight_decay_hidden", lr_v * nu)):
            if value >= 1.0:
                raise ValueError(f"{name} must be below 1, got {value:g}")

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Train on (X, y).

        Parameters
        ----------
        %(fit_parameters)s

        Returns
        -------
        self : HingeMLPClassifier
            The fitted estimator.
        """
        Xs, Y, val_score, rng = self._prepare(X, y, X_val, y_val)
        lr_w, lr_v, mu, nu = self._rates()
        n_models, d, N = Y.shape[0], Xs.shape[1], int(self.n_hidden)
        V, A = np.empty((n_models, N, d)), np.empty((n_models, N))
        Wo, B = np.empty((n_models, N)), np.empty((n_models, 1))
        for k in range(n_models):
            V[k], A[k], W2, B[k] = init_mlp_weights(rng, d, N, 1)
            Wo[k] = W2[0]
        self.hidden_weights_, self.hidden_bias_, self.output_weights_, self._b = V, A, Wo, B
        act = _margin.HARDTANH if self.activation == "hardtanh" else _margin.TANH

        def run_one(k, yk, order, start, limit):
            return _margin.hinge_mlp_run(Xs, yk, order, start, V[k], A[k], Wo[k], B[k], lr_w,
                                         lr_v, mu, nu, act, limit)

        def margins(k):
            return _margin_triple(Y[k] * self._f_one(Xs, k), float(np.linalg.norm(Wo[k])), 1.0)

        self._train(Xs, Y, rng, val_score, run_one, {"V": V, "A": A, "W": Wo, "B": B}, margins)
        self.bias_ = B[:, 0].copy()
        return self

    def _hidden(self, Xs, k):
        Z = Xs @ self.hidden_weights_[k].T + self.hidden_bias_[k]
        return np.clip(Z, -1.0, 1.0) if self.activation == "hardtanh" else np.tanh(Z)

    def _f_one(self, Xs, k):
        return self._hidden(Xs, k) @ self.output_weights_[k] + self._b[k, 0]

    def _f(self, Xs):
        return np.column_stack([self._f_one(Xs, k) for k in range(self.hidden_weights_.shape[0])])


@fill_doc(**_DOC)
class KernelMarginPerceptron(_BaseMargin):
    """The margin Perceptron (Collobert's thesis, Algorithm 8.1) in dual form with a kernel.

    ``f(x) = sum_j alpha_j y_j k(x_j, x) + b``, from ``alpha = 0, b = 0``; an example with
    ``y f(x) <= beta`` moves ``alpha_l += lam, b += lam y_l``.  Theorems 8.2 and 8.3 hold in the
    kernel's feature space with ``R = max sqrt(k(x_l, x_l))`` (1 for the Gaussian kernel).
    The outputs ``f(x_i)`` of all training examples are kept up to date from the kernel rows
    of the updated examples: the whole Gram matrix when it fits in ``cache_size`` MB, else a
    cache of rows (first in, first out) computed when an update needs them.

    Parameters
    ----------
    kernel : {'rbf', 'linear', 'poly'} or callable, default='rbf'
        The kernel (:mod:`kernelnb.kernels`), on the standardised inputs.
    sigma : float or 'scale', default='scale'
        Gaussian width: ``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))``.
    degree : int, default=3
        Degree of the polynomial kernel ``(x . z + coef0) ** degree``.
    coef0 : float, default=1.0
        Constant of the polynomial kernel.
    beta : float, default=1.0
        Margin asked of every example.
    learning_rate : float, default=0.01
        Step ``lam`` of every update.
    cache_size : float, default=200.0
        Memory in MB for kernel rows.
    %(training_parameters)s

    Attributes
    ----------
    radius_ : float
        ``R = max sqrt(k(x_l, x_l))`` over the training inputs.
    kernel_ : callable
        The fitted kernel (:mod:`kernelnb.kernels`).
    dual_coef_ : ndarray of shape (n_models, n_train)
        ``alpha`` (one model for two classes, one per class otherwise).
    support_ : ndarray of int
        Indices of the training examples with a nonzero ``alpha`` in some model.
    support_vectors_ : ndarray of shape (n_support, n_features)
        Those examples, standardised.
    bias_ : ndarray of shape (n_models,)
        ``b``.
    loss_curve_ : list of float
        Mean beta-hinge per epoch (each example's before its update).
    margin_history_ : dict of ndarray
        The margin records (see :mod:`kernelnb.largescale.margin`): ``rho = 2 beta / ||w||`` in the
        feature space.
    %(training_attributes)s

    References
    ----------
    R. Collobert, "Large Scale Machine Learning", PhD thesis, Universite Paris VI, 2004,
    chapter 8.  R. Collobert and S. Bengio, "Links between Perceptrons, MLPs and SVMs",
    ICML 2004.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.largescale import KernelMarginPerceptron
    >>> X, y = make_moons(n_samples=200, noise=0.1, random_state=0)
    >>> clf = KernelMarginPerceptron(sigma=0.5, learning_rate=0.1, max_iter=20, random_state=0)
    >>> clf.fit(X[:150], y[:150]).predict(X[150:155]).shape
    (5,)
    >>> print(clf.score(X[150:], y[150:]) > 0.9)
    True
    """

    _parameter_constraints = {
        **_BaseMargin._parameter_constraints,
        "kernel": [str_options({"rbf", "linear", "poly"}), callable],
        "sigma": POSITIVE + [str_options({"scale"})],
        "degree": POSITIVE_INT,
        "coef0": [interval(Real, None, None, closed="neither")],
        "cache_size": POSITIVE}

    def __init__(self, *, kernel="rbf", sigma="scale", degree=3, coef0=1.0, beta=1.0,
                 learning_rate=0.01, cache_size=200.0, max_iter=100, validation_fraction=None,
                 n_iter_no_change=10, random_state=None, verbose=False, callback=None,
                 record_every=None, max_updates=None, track_margin=True):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.beta = beta
        self.learning_rate = learning_rate
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback
        self.record_every = record_every
        self.max_updates = max_updates
        self.track_margin = track_margin

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Train on (X, y).

        Parameters
        ----------
        %(fit_parameters)s

        Returns
        -------
        self : KernelMarginPerceptron
            The fitted estimator.
        """
        Xs, Y, val_score, rng = self._prepare(X, y, X_val, y_val)
        self.kernel_ = kern = _k.KernelSpec.of(self).fit(Xs)
        K, n = Y.shape
        self._Xtr, self._sign_matrix = Xs, Y
        kdiag = np.ascontiguousarray(kern.diag(Xs), dtype=np.float64)
        self.radius_ = float(np.sqrt(kdiag.max()))
        capacity = int(min(n, max(1, self.cache_size * 2 ** 20 // (8 * n))))
        slot = np.full(n, -1, dtype=np.intp)
        if capacity == n:
            rows = np.ascontiguousarray(kern(Xs), dtype=np.float64)
            slot[:] = np.arange(n)
        else:
            rows = np.empty((capacity, n))
        owner = np.full(capacity, -1, dtype=np.intp)
        nxt = [0]
        alpha, B = np.zeros((K, n)), np.zeros((K, 1))
        F, wn2 = np.zeros((K, n)), np.zeros((K, 1))
        self.dual_coef_, self._b = alpha, B
        lr, beta = float(self.learning_rate), float(self.beta)

        def run_one(k, yk, order, start, limit):
            pos, loss, upd = start, 0.0, 0
            while True:
                lim = limit if limit == _NO_LIMIT else limit - upd
                pos, lk, uk, missing = _margin.kernel_margin_run(
                    yk, order, pos, alpha[k], B[k], F[k], wn2[k], rows, slot, kdiag, lr, beta,
                    lim)
                loss += lk
                upd += uk
                if missing < 0:
                    return pos, loss, upd
                s = nxt[0]                          # first in, first out
                nxt[0] = (s + 1) % capacity
                if owner[s] >= 0:
                    slot[owner[s]] = -1
                rows[s] = kern(Xs[missing:missing + 1], Xs)[0]
                owner[s], slot[missing] = missing, s

        band = beta if beta > 0 else 1.0

        def margins(k):
            return _margin_triple(Y[k] * F[k], float(np.sqrt(max(wn2[k, 0], 0.0))), band)

        self._train(Xs, Y, rng, val_score, run_one,
                    {"alpha": alpha, "B": B, "F": F, "wn2": wn2}, margins)
        self.bias_ = B[:, 0].copy()
        self.support_ = np.flatnonzero(np.any(alpha != 0, axis=0))
        self.support_vectors_ = Xs[self.support_]
        coef = (alpha * Y)[:, self.support_].T
        self._expansion = _k.KernelExpansion(kern, self.support_vectors_, coef=coef)
        del self._Xtr, self._sign_matrix
        return self

    def _f(self, Xs):
        if hasattr(self, "_Xtr"):                   # during training (validation scores)
            Y = self._sign_matrix
            coef = self.dual_coef_ * Y
            sv = np.flatnonzero(np.any(coef != 0, axis=0))
            if sv.shape[0] == 0:
                return np.zeros((Xs.shape[0], coef.shape[0])) + self._b[:, 0]
            return self.kernel_(Xs, self._Xtr[sv]) @ coef[:, sv].T + self._b[:, 0]
        if self.support_.shape[0] == 0:
            return np.zeros((Xs.shape[0], self._b.shape[0])) + self._b[:, 0]
        return self._expansion(Xs).reshape(Xs.shape[0], -1) + self._b[:, 0]
