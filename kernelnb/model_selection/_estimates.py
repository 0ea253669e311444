"""Estimates of the generalisation error of a fitted binary SVM (Chapelle's thesis, ch. 3).

Every estimate takes a fitted binary :class:`kernelnb.svm.SVC` and its training data and returns
an error *rate* in [0, 1] (a number of predicted leave-one-out errors divided by ``n``):

========================  ==============================================================
:func:`loo_error`         exact leave-one-out, by retraining only where it can change
:func:`validation_error`  error on held-out data
:func:`sv_fraction`       ``N_SV / n``
:func:`jaakkola_haussler` ``#{p : alpha_p K_pp >= y_p f(x_p)} / n``
:func:`opper_winther`     ``#{p : alpha_p / (K_SV^-1)_pp >= y_p f(x_p)} / n``
:func:`radius_margin`     ``R^2 ||w||^2 / n`` (clipped to 1)
:func:`span_estimate`     ``#{p : alpha_p S_p^2 >= y_p f(x_p)} / n`` (fast O(N_SV^3) span)
:func:`xi_alpha`          Joachims: ``#{p : 2 alpha_p R^2 + xi_p >= 1} / n``
:func:`wahba`             Wahba's approximate bound ``(sum_p xi_p + c_p alpha_p K_pp) / n``
========================  ==============================================================

Conventions
-----------
* ``y_p = +1`` for ``classes_[1]`` and ``-1`` for ``classes_[0]``; ``alpha_p = |dual_coef_|``;
  ``f`` is the decision function (with its bias ``b``).
* Margin ``'l2'`` is a hard margin on ``K~ = K + I / C`` (Chapelle's thesis ch. 2): every estimate
  then works on ``K~`` and on its output ``f~(x_p) = f(x_p) + y_p alpha_p / C`` at the training
  points (so ``y_p f~(x_p) = 1`` on every support vector).  ``C`` there includes
  ``class_weight``; a model fitted with ``sample_weight`` is not supported (the weights are not
  stored in the model).
* Margin ``'l1'``: support vectors with ``0 < alpha < C`` are *free*, those with ``alpha = C``
  are *bounded* (``at_bound_``).  Only the free ones span the sets of the span rule.
* The kernel is evaluated in float64 from ``estimator.kernel_``; a ``'precomputed'`` or callable
  kernel is refused (the estimates need ``X``).

References: Chapelle, thesis ch. 3 and 4.4.4; Vapnik & Chapelle (2000), *Bounds on error
expectation for SVM*, Neural Computation 12, 2000.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import lapack as _lapack
from sklearn.base import clone
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import check_is_fitted

from .. import kernels as _k
from .._callbacks import run_to_end
from .._validation import NONNEGATIVE, POSITIVE, check_param
from ..svm import _smo
from ..svm.estimators import _block_size

__all__ = [
    "LeaveOneOut",
    "loo_error",
    "validation_error",
    "training_error",
    "sv_fraction",
    "jaakkola_haussler",
    "opper_winther",
    "radius_margin",
    "radius_squared",
    "radius_squared_from_kernel",
    "span_values",
    "span_estimate",
    "xi_alpha",
    "wahba",
    "estimate_all",
    "ESTIMATE_NAMES",
]

#: Keys of :func:`estimate_all` (always present), in display order.
ESTIMATE_NAMES = ("training_error", "sv_fraction", "jaakkola_haussler", "opper_winther",
                  "radius_margin", "radius_margin_variance", "span", "span_regularized",
                  "xi_alpha", "wahba")

#: Thesis default of the span regulariser eta (section 4.4.4).
DEFAULT_ETA = 0.1


def _class_weights(estimator, y_idx):
    """The weights of the fitted SVC's two classes (``class_weight``: None, 'balanced' or a
    dict), from its public parameters; ``y_idx`` is the class index of every training point."""
    classes = np.asarray(estimator.classes_)
    if estimator.class_weight is None:
        return np.ones(classes.shape[0])
    return compute_class_weight(estimator.class_weight, classes=classes, y=classes[y_idx])


# The fitted problem, as the estimates see it
class _Problem:
    """Everything the estimates share: K~ on the training points, alpha, y in {-1, +1}, the
    outputs f~ at the training points, free / bounded support vectors."""

    def __init__(self, estimator, X, y):
        if not hasattr(estimator, "dual_coef_") or not hasattr(estimator, "kernel_"):
            raise ValueError("estimator must be a fitted kernelnb.svm.SVC, got "
                             f"{type(estimator).__name__}")
        check_is_fitted(estimator)
        classes = np.asarray(estimator.classes_)
        if classes.shape[0] != 2:
            raise ValueError("the estimates are for binary classifiers; estimator was fitted on "
                             f"{classes.shape[0]} classes (fit one SVC per pair of classes)")
        kern = estimator.kernel_
        if isinstance(kern, (_k.Precomputed, _k.CallableKernel)):
            raise ValueError(f"kernel={estimator.kernel!r}: the estimates evaluate the kernel on X "
                             "and need kernel 'rbf', 'linear' or 'poly'")
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape != tuple(estimator.shape_fit_):
            raise ValueError(f"X must be the training data of shape {tuple(estimator.shape_fit_)}, "
                             f"got shape {X.shape}")
        y = np.asarray(y).ravel()
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y must hold {X.shape[0]} labels, got {y.shape[0]}")
        known = np.isin(y, classes)
        if not known.all():
            raise ValueError(f"y holds labels not among the estimator's classes "
                             f"{classes.tolist()}: {np.unique(y[~known]).tolist()[:5]}")
        sv = np.asarray(estimator.support_, dtype=np.intp)
        if not np.allclose(X[sv], np.asarray(estimator.support_vectors_, dtype=np.float64)):
            raise ValueError("X is not the data the estimator was fitted on (its support vectors "
                             "differ from the rows of X at support_)")
        ys = np.where(y == classes[1], 1.0, -1.0)
        coef_sv = np.asarray(estimator.dual_coef_, dtype=np.float64)[0]
        if np.any(np.sign(coef_sv) != ys[sv]):
            raise ValueError("y does not match the fitted model (the signs of dual_coef_ are not "
                             "the labels of the support vectors)")
        n = X.shape[0]
        self.n = n
        self.estimator = estimator
        self.X = X
        self.y_raw = y
        self.y = ys
        self.sv = sv
        self.alpha = np.zeros(n)
        self.alpha[sv] = np.abs(coef_sv)
        self.coef = ys * self.alpha
        # C = inf is the hard margin whatever ``margin`` says
        self.margin = "hard" if np.isinf(float(estimator.C)) else estimator.margin
        self.b = float(np.asarray(estimator.intercept_).ravel()[0])
        K = np.asarray(kern(X), dtype=np.float64)
        K = 0.5 * (K + K.T)
        self.K = K
        # Per-sample C (class weights included) for the L2 margin's diagonal.
        self.dadd = np.zeros(n)
        if self.margin == "l2":
            y_idx = (ys > 0).astype(int)
            cw = _class_weights(estimator, y_idx)
            self.dadd = 1.0 / (float(estimator.C) * cw[y_idx])
        self.Kt = K + np.diag(self.dadd)                       # K~ (= K except for 'l2')
        self.f = K[:, sv] @ self.coef[sv] + self.b              # decision function at X
        self.ft = self.f + self.dadd * self.coef                # output on K~
        self.yft = ys * self.ft
        bound = np.zeros(n, dtype=bool)
        if self.margin == "l1":
            bound[sv] = np.asarray(estimator.at_bound_, dtype=bool)
        self.bound = bound
        self.free = (self.alpha > 0) & ~bound
        self._cache = {}

    # -- shared pieces ---------------------------------------------------------------------
    def w2(self):
        """``||w||^2 = sum_ij alpha_i alpha_j y_i y_j K~_ij`` (= 1 / M^2)."""
        c = self.coef[self.sv]
        return float(c @ self.Kt[np.ix_(self.sv, self.sv)] @ c)

    def radius2(self, radius, previous=None):
        """``(R^2, beta)`` of :func:`radius_squared_from_kernel` on K~, computed once.

        ``previous`` is another problem's ``(K~, (R^2, beta))`` (the previous value of a
        :func:`bounds_table`): for the sphere, its result where K~ is the same, else its
        weights as the QP's starting point (only when the sphere is first computed)."""
        key = ("R2", radius)
        if key not in self._cache:
            beta_init = None
            if previous is not None and radius == "sphere":
                if np.array_equal(previous[0], self.Kt):
                    self._cache[key] = previous[1]
                    return previous[1]
                beta_init = previous[1][1]
            self._cache[key] = radius_squared_from_kernel(self.Kt, radius, beta_init=beta_init)
        return self._cache[key]

    def spans(self, eta, bias=True):
        key = ("span", float(eta), bias)
        if key not in self._cache:
            self._cache[key] = _fast_span(self, float(eta), bias)
        return self._cache[key]

    def loo_outputs(self):
        """``(S2, f_loo)``: the squared spans (``nan`` off the support vectors and everywhere
        when no support vector is free) and the leave-one-out outputs on K~,
        ``f~(x_p) - y_p alpha_p S_p^2`` (Theorem 3.8; ``f~`` where a span is undefined)."""
        S2 = self.spans(0.0)[0]
        return S2, self.ft - self.y * self.alpha * np.where(np.isnan(S2), 0.0, S2)


def _check_eta(eta):
    return float(check_param("span_regularization", eta, NONNEGATIVE, "the span estimate"))


def _rate(mask, n):
    return float(np.count_nonzero(mask)) / n


# Span
def _fast_span(pb, eta, bias):
    """Squared spans of the support vectors (nan elsewhere) from one Cholesky factor of
    ``A = K~_FF + D`` (F: free SVs, ``D = diag(eta / alpha_F)``; Vapnik & Chapelle 2000,
    Chapelle's thesis §3.2).

    With ``bias`` the span is the distance to the affine hull of the other free SVs: a free SV
    gets ``S_p^2 = 1 / (M^-1)_pp - D_pp`` and a bounded SV ``S_p^2 = K~_pp - v_p' M^-1 v_p``
    with ``v_p = (K~_Fp, 1)``, ``M = [[A, 1], [1', 0]]`` the bordered matrix.  Its inverse is
    read from ``A``'s: with ``u = A^-1 1`` and ``s = 1' u``, ``M^-1 = [[A^-1 - u u' / s,
    u / s], [u' / s, -1 / s]]``, so ``(M^-1)_pp = (A^-1)_pp - u_p^2 / s`` and ``v_p' M^-1 v_p
    = k_p' A^-1 k_p - (u' k_p - 1)^2 / s`` (``k_p = K~_Fp``).  Without ``bias`` the border is
    dropped (Opper-Winther's linear span): ``A`` alone.  The factor of ``A`` is kept on ``pb``
    per ``eta``, so the span with and without the bias share it.  Where ``A`` is not positive
    definite in floating point, the bordered matrix is inverted instead
    (:func:`_fast_span_inverse`).  Returns ``(S2, degenerate)``: degenerate is True when there
    is no free SV.
    """
    F = np.flatnonzero(pb.free)
    if F.size == 0:
        return np.full(pb.n, np.nan), True
    key = ("span_factor", float(eta))
    if key not in pb._cache:
        pb._cache[key] = _span_factor(pb, F, eta)
    factor = pb._cache[key]
    if factor is None:
        return _fast_span_inverse(pb, eta, bias)
    Li, D = factor                          # Li = L^-1, A = L L', so A^-1 = Li' Li
    B = np.flatnonzero(pb.bound)
    S2 = np.full(pb.n, np.nan)
    diag_inv = np.einsum("ij,ij->j", Li, Li)        # (A^-1)_pp
    if bias:
        w1 = Li.sum(axis=1)                         # L^-1 1
        s = float(w1 @ w1)                          # 1' A^-1 1
        u = Li.T @ w1                               # A^-1 1
        diag_inv = diag_inv - u * u / s
    with np.errstate(divide="ignore"):
        S2[F] = 1.0 / diag_inv - D
    if B.size:
        W = Li @ pb.Kt[np.ix_(F, B)]                # L^-1 k_p, one column per bounded SV
        q = np.einsum("ij,ij->j", W, W)             # k_p' A^-1 k_p
        if bias:
            q = q - (w1 @ W - 1.0) ** 2 / s
        S2[B] = np.diag(pb.Kt)[B] - q
    S2[pb.sv] = np.maximum(S2[pb.sv], 0.0)   # rounding on points inside the hull
    return S2, False


def _span_matrix(pb, F, eta):
    """``(A, D)``: ``A = K~_FF + D`` with a tiny ridge that keeps it invertible, and the
    diagonal ``D = eta / alpha_F``."""
    KF = pb.Kt[np.ix_(F, F)]
    scale = max(1.0, float(np.mean(np.diag(KF))))
    D = eta / pb.alpha[F]
    return KF + np.diag(D + 1e-12 * scale), D


def _span_factor(pb, F, eta):
    """``(L^-1, D)`` for the Cholesky factor ``L`` of :func:`_span_matrix`'s ``A``, or None
    where ``A`` is not positive definite in floating point."""
    A, D = _span_matrix(pb, F, eta)
    L, info = _lapack.dpotrf(A, lower=1, clean=1)
    if info != 0:
        return None
    Li, info = _lapack.dtrtri(L, lower=1)
    if info != 0:
        return None
    return Li, D


def _fast_span_inverse(pb, eta, bias):
    """:func:`_fast_span` by one (N_free + 1)^2 inverse of the bordered matrix ``M`` (the same
    formulas), for an ``A`` that is not positive definite in floating point."""
    F = np.flatnonzero(pb.free)
    B = np.flatnonzero(pb.bound)
    S2 = np.full(pb.n, np.nan)
    m = F.size
    A, D = _span_matrix(pb, F, eta)
    size = m + 1 if bias else m
    M = np.zeros((size, size))
    M[:m, :m] = A
    if bias:
        M[:m, m] = 1.0
        M[m, :m] = 1.0
    iM = np.linalg.inv(M)
    with np.errstate(divide="ignore"):
        S2[F] = 1.0 / np.diag(iM)[:m] - D
    if B.size:
        V = np.ones((size, B.size))
        V[:m] = pb.Kt[np.ix_(F, B)]
        S2[B] = np.diag(pb.Kt)[B] - np.einsum("ij,ij->j", V, iM @ V)
    S2[pb.sv] = np.maximum(S2[pb.sv], 0.0)   # rounding on points inside the hull
    return S2, False


def span_values(estimator, X, y, span_regularization=0.0):
    """Squared span ``S_p^2`` of every training point (Vapnik & Chapelle 2000; thesis 3.2).

    ``S_p`` is the distance, in feature space, from ``Phi(x_p)`` to the set
    ``Lambda_p = {sum_{i != p} lambda_i Phi(x_i) : sum lambda_i = 1}`` spanned by the *free*
    support vectors (``0 < alpha_i < C``).  This is the fast computation of the thesis (3.2.4):
    it assumes the support-vector sets do not change when ``p`` is removed, so the
    constraints ``0 <= alpha_i + y_i y_p alpha_p lambda_i <= C`` of the span's definition are
    dropped (where they are inactive both agree; otherwise this value is a lower bound).  One
    ``(N_free + 1)``-square inverse serves all points: O(N_SV^3).

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.
    span_regularization : float, default=0.0
        ``eta`` of the regularised span (thesis 4.4.4): the distance is penalised by
        ``eta sum_i lambda_i^2 / alpha_i``, i.e. ``S_p^2 = 1 / ((K~_SV + D)^-1)_pp - D_pp`` with
        ``D_ii = eta / alpha_i``.  It is continuous in the hyper-parameters where the plain span
        jumps; 0 is the plain span; the thesis uses 0.1 for gradients.

    Returns
    -------
    ndarray of shape (n_samples,)
        ``S_p^2`` for support vectors (``nan`` for non-support vectors, whose span is not
        needed: they cannot be leave-one-out errors).  When no support vector is free the spans
        are undefined and every entry is ``nan``.

    Notes
    -----
    Margin ``'l2'``: computed on ``K~ = K + I / C`` (all SVs are free there).
    """
    eta = _check_eta(span_regularization)
    pb = _Problem(estimator, X, y)
    return pb.spans(eta)[0].copy()


def span_estimate(estimator, X, y, span_regularization=0.0):
    """Span-rule estimate of the leave-one-out error rate (thesis 3.11/3.12).

    ``#{p : alpha_p S_p^2 >= y_p f(x_p)} / n``: by Theorem 3.8, when the support-vector sets do
    not change, ``y_p f^p(x_p) = y_p f(x_p) - alpha_p S_p^2`` exactly.  Non-support vectors are
    never counted (their leave-one-out solution is the full one); bounded support vectors that
    are training errors always are.

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.
    span_regularization : float, default=0.0
        ``eta`` of the regularised span (:func:`span_values`; 0.1 is the thesis's smoothed
        span).

    Returns
    -------
    float
        The estimated error rate, in [0, 1].  Without any free support vector (degenerate case)
        it is the training error rate, as in the thesis's Matlab code.
    """
    eta = _check_eta(span_regularization)
    pb = _Problem(estimator, X, y)
    return _span_rate(pb, eta)


def _span_errors(pb, eta):
    """The span rule point by point: ``alpha_p S_p^2 >= y_p f~(x_p)`` for the support vectors
    (False elsewhere), or None in the degenerate case without a free support vector."""
    S2, degenerate = pb.spans(eta)
    if degenerate:
        return None
    err = np.zeros(pb.n, dtype=bool)
    sv = pb.sv
    err[sv] = pb.alpha[sv] * S2[sv] >= pb.yft[sv]
    return err


def _span_rate(pb, eta):
    err = _span_errors(pb, eta)
    return _training_rate(pb) if err is None else _rate(err, pb.n)


# Simple estimates
def _training_rate(pb):
    pred_pos = pb.f > 0
    return _rate(pred_pos != (pb.y > 0), pb.n)


def training_error(estimator, X, y):
    """Training error rate (``predict(X) != y``), in [0, 1].

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.

    Returns
    -------
    float
        The training error rate, in [0, 1].
    """
    return _training_rate(_Problem(estimator, X, y))


def sv_fraction(estimator, X, y):
    """``N_SV / n``, the fraction of support vectors.

    A bound on the leave-one-out error rate: only support vectors can be leave-one-out errors.

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.

    Returns
    -------
    float
        The fraction of training points that are support vectors, in [0, 1].
    """
    pb = _Problem(estimator, X, y)
    return pb.sv.size / pb.n


def jaakkola_haussler(estimator, X, y):
    """Jaakkola-Haussler estimate ``#{p : alpha_p K~_pp >= y_p f(x_p)} / n`` (thesis 3.3).

    Derived for an SVM *without* bias ``b`` (then ``y_p f^p(x_p) >= y_p f(x_p) - alpha_p K_pp``
    and this counts an upper bound of the leave-one-out errors); here it is applied to the
    model's ``f`` with its bias, where it is only an estimate.  On the margin
    (``y_p f(x_p) = 1``) it is ``Psi(alpha_p K_pp - 1)``.

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.

    Returns
    -------
    float
        The estimated error rate, in [0, 1].
    """
    pb = _Problem(estimator, X, y)
    return _jh_rate(pb)


def _jh_rate(pb):
    sv = pb.sv
    return _rate(pb.alpha[sv] * np.diag(pb.Kt)[sv] >= pb.yft[sv], pb.n)


def opper_winther(estimator, X, y):
    """Opper-Winther estimate ``#{p : alpha_p / (K_SV^-1)_pp >= y_p f(x_p)} / n``.

    ``K_SV`` is the kernel matrix of the free support vectors (hard margin: all of them);
    ``1 / (K_SV^-1)_pp`` is the squared distance from ``x_p`` to the *linear* span of the other
    free SVs, i.e. the span without the bias row (thesis ch. 3: "without b and with fixed SVs,
    S_p^2 = 1/(K_SV^-1)_pp").  Bounded SVs (``'l1'``) use their distance to that linear span,
    ``K_pp - k_p' K_SV^-1 k_p``.  The formula assumes no bias and unchanged support vectors;
    it is applied to ``f`` with its bias.  Without free SV: the training error.

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.

    Returns
    -------
    float
        The estimated error rate, in [0, 1].
    """
    pb = _Problem(estimator, X, y)
    return _ow_rate(pb)


def _ow_rate(pb):
    S2, degenerate = pb.spans(0.0, bias=False)
    if degenerate:
        return _training_rate(pb)
    sv = pb.sv
    return _rate(pb.alpha[sv] * S2[sv] >= pb.yft[sv], pb.n)


def xi_alpha(estimator, X, y):
    """Joachims' xi-alpha estimate ``#{p : 2 alpha_p R^2 + xi_p >= 1} / n``.

    ``R^2 = max_i K~_ii`` (so that ``K~_ii <= R^2``, our reading of the thesis; 1 for the RBF
    kernel, ``1 + 1/C`` with ``'l2'``) and ``xi_p = max(0, 1 - y_p f(x_p))`` are the slacks
    (0 on ``K~`` for ``'l2'`` and ``'hard'``).

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.

    Returns
    -------
    float
        The estimated error rate, in [0, 1].
    """
    pb = _Problem(estimator, X, y)
    return _xa_rate(pb)


def _xa_rate(pb):
    R2 = float(np.max(np.diag(pb.Kt)))
    xi = np.maximum(0.0, 1.0 - pb.yft)
    return _rate(2.0 * pb.alpha * R2 + xi >= 1.0, pb.n)


def wahba(estimator, X, y, clip=True):
    """Wahba's approximate leave-one-out bound (Wahba, Lin and Zhang 2000; thesis 3.1).

    Replacing ``y_p`` by the prediction ``mu(f^p(x_p))`` (Lemma 3.3) and expanding the output to
    first order gives the approximate bound on the number of leave-one-out errors

    ``T = sum_p (1 - y_p f(x_p))_+ + sum_{y_p f(x_p) < -1} 2 alpha_p K_pp
    + sum_{y_p f(x_p) in [-1, 1]} alpha_p K_pp``;

    for a hard margin it is ``sum_p alpha_p K_pp``, an upper bound of the Jaakkola-Haussler
    count.  The rate returned is ``T / n``.  Margin ``'l2'`` (a hard margin on ``K~``): every
    support vector has ``y_p f~(x_p) = 1``, so ``T = sum_p alpha_p K~_pp``.

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.
    clip : bool, default=True
        Return ``min(1, T / n)`` (an error rate); ``False`` gives the raw value, which can
        exceed 1.

    Returns
    -------
    float
        ``T / n``, clipped to 1 when ``clip``.

    References
    ----------
    O. Chapelle, PhD thesis, Université Paris 6, 2002, section 3.1 ("Wahba's bound");
    G. Wahba, Y. Lin and H. Zhang, Generalized approximate cross-validation for support vector
    machines, in Advances in Large Margin Classifiers, MIT Press, 2000.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.model_selection import jaakkola_haussler, wahba
    >>> from kernelnb.svm import SVC
    >>> X, y = make_moons(n_samples=100, noise=0.2, random_state=0)
    >>> svm = SVC(C=10.0, sigma=0.5).fit(X, y)
    >>> print(round(wahba(svm, X, y), 2), round(jaakkola_haussler(svm, X, y), 2))
    0.79 0.13
    """
    if not isinstance(clip, (bool, np.bool_)):
        raise ValueError(f"clip must be True or False, got {clip!r}")
    return _wahba_rate(_Problem(estimator, X, y), clip)


def _wahba_rate(pb, clip=True):
    yf = pb.yft
    factor = np.where(yf < -1.0, 2.0, 1.0)          # alpha = 0 where y f > 1 (no SV there)
    T = float(np.maximum(0.0, 1.0 - yf).sum() + (factor * pb.alpha * np.diag(pb.Kt)).sum())
    return min(1.0, T / pb.n) if clip else T / pb.n


# Radius-margin
def radius_squared_from_kernel(K, radius="sphere", tol=1e-10, max_iter=None, beta_init=None):
    """Squared radius of the data in the feature space of the kernel matrix ``K``.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric positive semi-definite kernel matrix.
    radius : {'sphere', 'variance'}, default='sphere'
        ``'sphere'``: the smallest enclosing sphere, ``R^2 = max_beta sum_i beta_i K_ii -
        beta' K beta`` over the simplex (``beta >= 0, sum beta = 1``; thesis 4.7), solved by
        kernelnb's SVM solver (pair steps, shrinking) on the float64 matrix.  ``'variance'``: ``beta_i = 1/n``, the mean
        squared distance to the centre of mass (``mean K_ii - mean K``), the thesis's advice.
    tol : float, default=1e-10
        Stop when the largest violation of the optimality conditions (gradient gap between a
        coordinate that can grow and one that can shrink) is below ``tol * max K_ii``.
    max_iter : int, optional
        Pairwise steps allowed (default ``100 n + 1000``).
    beta_init : array of shape (n,), optional
        Warm start for ``'sphere'`` (e.g. the weights at the previous kernel parameters of a
        gradient descent), projected to the simplex; by default the uniform weights.

    Returns
    -------
    R2 : float
        The squared radius.
    beta : ndarray of shape (n,)
        The weights (the centre is ``sum beta_i Phi(x_i)``).
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise ValueError(f"K must be a non-empty square matrix, got shape {K.shape}")
    n = K.shape[0]
    d = np.diag(K).copy()
    if radius == "variance":
        beta = np.full(n, 1.0 / n)
        return float(d.mean() - K.mean()), beta
    if radius != "sphere":
        raise ValueError(f"radius must be 'sphere' or 'variance', got {radius!r}")
    if max_iter is None:
        max_iter = 100 * n + 1000
    if beta_init is None:
        beta = np.full(n, 1.0 / n)
    else:
        beta = np.clip(np.asarray(beta_init, dtype=np.float64).ravel(), 0.0, None)
        if beta.shape[0] != n or not beta.sum() > 0:
            raise ValueError(f"beta_init must have {n} non-negative entries, not all zero")
        beta /= beta.sum()
    beta = _sphere_weights(K, d, beta, tol * max(1.0, float(np.max(np.abs(d)))), int(max_iter))
    R2 = float(d @ beta - beta @ K @ beta)
    return max(R2, 0.0), beta


def _sphere_weights(K, d, beta0, stop, max_iter):
    """Minimise ``beta' K beta - d' beta`` on the simplex with kernelnb's SVM solver.

    It is the solver's dual form ``1/2 a'Qa + p'a`` with ``Q = 2K`` (read in float64 as it is),
    ``p = -d``, every ``y_t = +1`` and ``0 <= a_t <= 1``: the pair steps keep ``sum a_t`` at the
    starting point's 1, and the solver stops when the largest gradient gap between a weight
    that can grow and one that can shrink (``max_{beta_j > 0} g_j - min_i g_i``, ``g = 2 K beta
    - d``) is at most ``stop`` -- the optimality conditions of the enclosing sphere (thesis 4.7).
    """
    n = K.shape[0]
    Q = np.ascontiguousarray(2.0 * K)
    res = _smo.solve_dual(
        None, None, _smo.KIND_PRECOMPUTED, 0.0, 0.0, 1,
        np.ones(n, dtype=np.int8), np.arange(n, dtype=np.int32), np.ascontiguousarray(-d),
        np.ones(n), np.zeros(n), np.ascontiguousarray(np.diag(Q)), np.ascontiguousarray(beta0),
        max(1.0, 8.0 * n * n / 2**20 + 1.0), _block_size(n), True, float(stop),
        int(max_iter), None, 1000, 1, 2, Q)
    beta = np.maximum(res["alpha"], 0.0)
    return beta / beta.sum()


def radius_squared(estimator, X, y, radius="sphere"):
    """``R^2`` of the training points in the feature space of ``K~``.

    ``K~`` is the kernel the SVM solves a hard margin on: ``K + I / C`` for ``margin='l2'``,
    ``K`` otherwise (see :func:`radius_squared_from_kernel`).

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.
    radius : {'sphere', 'variance'}, default='sphere'
        The smallest enclosing sphere, or the mean squared distance to the centre of mass.

    Returns
    -------
    float
        The squared radius.
    """
    pb = _Problem(estimator, X, y)
    return pb.radius2(radius)[0]


def radius_margin(estimator, X, y, radius="sphere", clip=True):
    """Radius-margin estimate ``R^2 ||w||^2 / n`` (Vapnik; thesis Thm 3.1 and ch. 4).

    ``||w||^2 = 1 / M^2 = sum alpha_i alpha_j y_i y_j K~_ij`` and ``R`` is the radius of the
    smallest sphere enclosing the training points in feature space (its own QP,
    ``radius='sphere'``) or their spread about their mean (``radius='variance'``,
    ``beta_i = 1/n``, the thesis's recommendation for tuning).  It bounds the number of
    leave-one-out errors of the hard margin (and of ``'l2'``, a hard margin on ``K~``); with a
    bias the bound proven through the span is ``4 R^2 ||w||^2`` (``S_p <= 2R``), and for
    ``'l1'`` it is only an indicator.

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.
    radius : {'sphere', 'variance'}, default='sphere'
        The radius ``R`` (see :func:`radius_squared_from_kernel`).
    clip : bool, default=True
        Return ``min(1, R^2 ||w||^2 / n)`` (an error rate); ``False`` gives the raw value,
        which can exceed 1.

    Returns
    -------
    float
        ``R^2 ||w||^2 / n``, clipped to 1 when ``clip``.
    """
    if not isinstance(clip, (bool, np.bool_)):
        raise ValueError(f"clip must be True or False, got {clip!r}")
    pb = _Problem(estimator, X, y)
    return _rm_rate(pb, radius, clip)


def _rm_rate(pb, radius, clip=True):
    val = pb.radius2(radius)[0] * pb.w2() / pb.n
    return min(1.0, val) if clip else val


# Leave-one-out and validation
@dataclass(kw_only=True)
class LeaveOneOut:
    """Result of :func:`loo_error`: the leave-one-out error, overall and point by point.

    The parameters are kept as attributes of the same names.

    Parameters
    ----------
    error : float
        Leave-one-out error rate, in [0, 1] (``float(result)`` gives it too).
    errors : ndarray of bool, shape (n_samples,)
        Whether each point is a leave-one-out error.
    decision : ndarray of shape (n_samples,)
        ``f^p(x_p)``, the decision value of the model trained without ``p``, where it was
        computed: retrained points, and non-support vectors (whose ``f^p`` is the full model's
        ``f``).  ``nan`` for the support vectors known to be errors without retraining.
    retrained : ndarray of bool, shape (n_samples,)
        The points for which an SVM was retrained.
    n_trainings : int
        Number of retrainings (``retrained.sum()``).
    """

    error: float
    errors: np.ndarray = field(repr=False)
    decision: np.ndarray = field(repr=False)
    retrained: np.ndarray = field(repr=False)
    n_trainings: int = 0

    def __float__(self):
        return float(self.error)


def _refit_params(estimator):
    """Parameters of a clone that refits exactly the same problem (sigma resolved)."""
    params = dict(warm_start=False, callback=None, verbose=False)
    if getattr(estimator, "sigma_", None) is not None:
        params["sigma"] = float(estimator.sigma_)
    return params


def _warm_start_without(pb, p):
    """Signed coefficients ``y_i alpha_i`` with ``alpha_p`` removed and handed to the other free
    SVs of its class (so that ``sum y_i alpha_i = 0`` still holds where the box allows it; the
    solver's feasibility step fixes what remains)."""
    a = pb.alpha.copy()
    ap = a[p]
    a[p] = 0.0
    same = np.flatnonzero(pb.free & (pb.y == pb.y[p]))
    same = same[same != p]
    if ap > 0 and same.size:
        if pb.margin == "l1":
            C = float(pb.estimator.C)
            cw = _class_weights(pb.estimator, (pb.y > 0).astype(int))
            room = C * cw[(pb.y[same] > 0).astype(int)] - a[same]
        else:
            room = np.full(same.size, np.inf)
        add = np.minimum(room, ap / same.size)
        a[same] += np.maximum(add, 0.0)
    return pb.y * a


def loo_error(estimator, X, y, *, tol=None):
    """Exact leave-one-out error rate of a fitted binary SVC, retraining only where needed.

    For each point ``p`` the SVM is retrained without it (``sample_weight`` 0 at ``p``, same
    kernel width, warm-started from the full solution with ``alpha_p`` handed to the other free
    support vectors of its class) and ``x_p`` is classified.  Retraining is skipped where the
    answer is known:

    * non-support vectors (``alpha_p = 0``, so ``y_p f(x_p) >= 1`` up to the solver's tolerance)
      cannot be leave-one-out errors: removing them leaves the solution unchanged;
    * support vectors that are training errors (``y_p f(x_p) < 0``) are leave-one-out errors:
      removing a point can only lower its own margin ``y_p f(x_p)``.

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.
    tol : float or None, default=None
        Solver tolerance of the retrainings (None: the estimator's ``tol``).

    Returns
    -------
    LeaveOneOut
        ``.error`` is the rate in [0, 1]; ``.n_trainings`` the number of retrainings; per-point
        ``.errors``, ``.decision``, ``.retrained``.
    """
    return run_to_end(_loo_steps(estimator, X, y, tol=tol))


def _loo_steps(estimator, X, y, *, tol=None):
    """:func:`loo_error` as a generator: it yields None after each retraining and returns the
    :class:`LeaveOneOut` (so that a dashboard can pause between retrainings)."""
    pb = _Problem(estimator, X, y)
    params = _refit_params(estimator)
    if tol is not None:
        params["tol"] = float(check_param("tol", tol, POSITIVE, "loo_error"))
    model = clone(estimator).set_params(**params)
    n = pb.n
    sv_mask = pb.alpha > 0
    decision = np.where(sv_mask, np.nan, pb.f)
    known_error = sv_mask & (pb.y * pb.f < 0)
    todo = np.flatnonzero(sv_mask & ~known_error)
    retrained = np.zeros(n, dtype=bool)
    sw = np.ones(n)
    for p in todo:
        sw[p] = 0.0
        model.fit(pb.X, pb.y_raw, sample_weight=sw, alpha_init=_warm_start_without(pb, p))
        sw[p] = 1.0
        # f^p(x_p) from the float64 kernel row already at hand (decision_function would
        # validate and rebuild the same numbers)
        decision[p] = float(pb.K[p, model.support_] @ model.dual_coef_[0] + model.intercept_[0])
        retrained[p] = True
        yield None
    errors = known_error.copy()
    ok = ~np.isnan(decision)
    errors[ok] = (decision[ok] > 0) != (pb.y[ok] > 0)
    return LeaveOneOut(error=_rate(errors, n), errors=errors, decision=decision,
                       retrained=retrained, n_trainings=int(retrained.sum()))


def validation_error(estimator, X_val, y_val):
    """Error rate on held-out data, ``mean(predict(X_val) != y_val)`` (thesis 3.1), in [0, 1].

    Parameters
    ----------
    estimator : classifier
        A fitted classifier (with ``classes_`` and ``predict``).
    X_val : array-like of shape (n_val, n_features)
        Validation inputs, not used in training.
    y_val : array-like of shape (n_val,)
        Their labels, among the estimator's ``classes_``.

    Returns
    -------
    float
        The validation error rate, in [0, 1].
    """
    check_is_fitted(estimator)
    X_val = np.asarray(X_val)
    y_val = np.asarray(y_val).ravel()
    if X_val.ndim != 2 or X_val.shape[0] == 0:
        raise ValueError(f"X_val must be a non-empty 2-D array, got shape {X_val.shape}")
    if y_val.shape[0] != X_val.shape[0]:
        raise ValueError(f"y_val must hold {X_val.shape[0]} labels (one per row of X_val), got "
                         f"{y_val.shape[0]}")
    known = np.isin(y_val, estimator.classes_)
    if not known.all():
        raise ValueError(f"y_val holds labels not among the estimator's classes "
                         f"{np.asarray(estimator.classes_).tolist()}: "
                         f"{np.unique(y_val[~known]).tolist()[:5]}")
    return float(np.mean(estimator.predict(X_val) != y_val))


# All at once (bounds_table, along a parameter, is in _tables.py)
def _estimates(pb, span_regularization=DEFAULT_ETA):
    return {
        "training_error": _training_rate(pb),
        "sv_fraction": pb.sv.size / pb.n,
        "jaakkola_haussler": _jh_rate(pb),
        "opper_winther": _ow_rate(pb),
        "radius_margin": _rm_rate(pb, "sphere"),
        "radius_margin_variance": _rm_rate(pb, "variance"),
        "span": _span_rate(pb, 0.0),
        "span_regularized": _span_rate(pb, span_regularization),
        "xi_alpha": _xa_rate(pb),
        "wahba": _wahba_rate(pb),
    }


def estimate_all(estimator, X, y, *, X_val=None, y_val=None, loo=False,
                 span_regularization=DEFAULT_ETA):
    """Every estimate of the fitted binary SVC at once (the kernel is evaluated once).

    Parameters
    ----------
    estimator : SVC
        A fitted binary :class:`kernelnb.svm.SVC`.
    X : array-like of shape (n_samples, n_features)
        Its training inputs.
    y : array-like of shape (n_samples,)
        Its training labels.
    X_val : array-like of shape (n_val, n_features) or None, default=None
        Validation inputs (given with ``y_val``): adds ``'validation'``.
    y_val : array-like of shape (n_val,) or None, default=None
        Their labels.
    loo : bool, default=False
        Also run :func:`loo_error` (retrainings); adds ``'loo'`` and ``'loo_trainings'``.
    span_regularization : float, default=0.1
        ``eta`` of ``'span_regularized'``.

    Returns
    -------
    dict
        Name -> error rate in [0, 1]: the keys of :data:`ESTIMATE_NAMES` (``'span'`` is the plain
        span, ``'radius_margin'`` uses the enclosing sphere and ``'radius_margin_variance'`` the
        variance, both clipped to 1), then ``'validation'`` and ``'loo'`` when asked.
    """
    eta = _check_eta(span_regularization)
    if not isinstance(loo, (bool, np.bool_)):
        raise ValueError(f"loo must be True or False, got {loo!r}")
    if (X_val is None) != (y_val is None):
        raise ValueError("X_val and y_val must be given together")
    pb = _Problem(estimator, X, y)
    out = _estimates(pb, eta)
    if X_val is not None:
        out["validation"] = validation_error(estimator, X_val, y_val)
    if loo:
        res = loo_error(estimator, X, y)
        out["loo"] = res.error
        out["loo_trainings"] = res.n_trainings
    return out
