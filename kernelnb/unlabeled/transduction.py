"""Transduction: labels for given test points (Chapelle's thesis, chapter 7, sections 7.1 and 7.6).

Two algorithms, each told the points to label by ``fit(X, y, X_unlabeled=...)``:

* :class:`TransductiveRidge` and :class:`TransductiveLinearDiscriminant` (TLD): the test labels
  ``Y*`` that minimise the closed-form leave-one-out error of ridge regression trained on the
  labeled points together with the test points labeled ``Y*`` (thesis §7.6, Eqs. 7.15-7.21;
  Chapelle, Vapnik & Weston, "Transductive inference for estimating values of functions",
  NIPS 12, 1999).
* :class:`TransductiveSVC`: the transductive SVM baseline the thesis compares against (§7.4.5),
  by the label-switching scheme of Joachims ("Transductive inference for text classification
  using support vector machines", ICML 1999).

Transductive ridge regression, in the thesis's notation: with the joint points
``x^ = (x_1..x_n, x*_1..x*_m)``, the basis functions ``phi_j = k(x^_j, .)`` (one per joint point,
RBF), the matrix ``K^_ij = phi_j(x^_i)`` and ``A = K^'K^ + gamma I``, the ridge hat matrix is
``H = K^ A^-1 K^'`` and ``C = I - H``.  The leave-one-out residual of point i (the basis stays
when the point is left out, Eq. 5.8) is ``(C Y^)_i / C_ii``, so

    T_loo = (1/(n+m)) sum_i ((C Y^)_i / C_ii)^2 = Y^' M Y^ / (n+m),
    M_ij = sum_k C_ik C_kj / C_kk^2                                   (7.18).

Splitting ``M = [[M0, M1], [M1', M2]]`` (labeled / test blocks), the functional (7.20)
``Y^' M Y^ + gamma* ||Y* - Y0||^2`` (``Y0`` the inductive ridge predictions) is minimised by

    Y* = (gamma* I + M2)^-1 (-M1' Y + gamma* Y0).

The thesis prints ``-M1 Y``; ``M1`` is n x m, so the product with the n-vector ``Y`` needs its
transpose (the derivative of ``2 Y*' M1' Y``), which is what is computed here.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.linalg import eigh, solve
from .._estimator import BaseEstimator
from sklearn.base import RegressorMixin
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .. import kernels as _k
from .._threads import blas_threads_for
from .._classifier import BinaryClassifierMixin
from .._fit import fit_context
from .._validation import (NONNEGATIVE, POSITIVE, POSITIVE_INT, interval, str_options,
                           check_input, check_param)
from ..ridge import KernelRidge, ScalingRidge, loo_residuals
from ..svm import SVC

__all__ = ["TransductiveRidge", "TransductiveLinearDiscriminant", "TransductiveSVC",
           "loo_matrix", "transductive_labels"]


def _binary_targets(name, y):
    """classes_ and the +-1 targets (``classes_[1]`` is +1) of a binary problem."""
    check_classification_targets(y)
    classes, idx = np.unique(y, return_inverse=True)
    if classes.shape[0] < 2:
        raise ValueError(f"{name} needs two classes; got 1 class ({classes[0]!r})")
    if classes.shape[0] > 2:
        raise ValueError(f"Only binary classification is supported by {name}; y has "
                         f"{classes.shape[0]} classes")
    return classes, np.where(idx == 1, 1.0, -1.0)


# ------------------------------------------------------------------------------------------
# Transductive ridge regression (thesis 7.6)
# ------------------------------------------------------------------------------------------
def _hat_eigen(K, basis):
    """Eigenvectors U and the eigenvalues e of the matrix G with hat ``G (G + gamma I)^-1``:
    ``G = K K'`` for basis functions (``K A^-1 K' = K K' (K K' + gamma I)^-1``), ``G = K`` for
    kernel ridge."""
    s, U = eigh(0.5 * (K + K.T))
    e = s ** 2 if basis == "functions" else np.maximum(s, 0.0)
    return e, U, s


def loo_matrix(K, alpha, basis="functions"):
    """The matrix M of Eq. (7.18): ``Y' M Y / N`` is the leave-one-out error of ridge regression.

    Parameters
    ----------
    K : array of shape (N, N)
        Symmetric kernel matrix of the points (``K_ij = phi_j(x_i)``, one basis function per
        point, as in the thesis's §7.6.2).
    alpha : float > 0
        The ridge penalty (the thesis's gamma): ``A = K'K + alpha I``.
    basis : {'functions', 'kernel'}, default='functions'
        'functions': ridge regression on the basis functions (thesis 5.4, hat ``K A^-1 K'``);
        'kernel': kernel ridge regression (hat ``K (K + alpha I)^-1``).

    Returns
    -------
    M : ndarray of shape (N, N)
        ``M_ij = sum_k C_ik C_kj / C_kk^2`` with ``C = I - hat``.
    C : ndarray of shape (N, N)
        ``I - hat``, the matrix of the residuals.
    """
    check_param("alpha", alpha, POSITIVE, "loo_matrix")
    check_param("basis", basis, [str_options({"functions", "kernel"})], "loo_matrix")
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    e, U, _ = _hat_eigen(K, basis)
    return _m_from_eigen(e, U, float(alpha))


def _m_from_eigen(e, U, alpha):
    C = (U * (alpha / (e + alpha))) @ U.T          # C = I - G (G + alpha I)^-1 = alpha (G + alpha I)^-1
    C = 0.5 * (C + C.T)
    d = np.diag(C)
    M = (C / d ** 2) @ C
    return 0.5 * (M + M.T), C


def transductive_labels(M, y, y0, alpha_star):
    """The minimiser ``Y* = (alpha* I + M2)^-1 (-M1' Y + alpha* Y0)`` of (7.20)-(7.21).

    Parameters
    ----------
    M : ndarray of shape (n + m, n + m)
        The matrix of :func:`loo_matrix`, the n labeled points first.
    y : array of shape (n,)
        The labeled targets.
    y0 : array of shape (m,)
        The inductive predictions at the m test points.
    alpha_star : float >= 0
        The pull towards ``y0`` (the thesis's gamma*); 0 is allowed when ``M2`` is
        nonsingular.

    Returns
    -------
    ndarray of shape (m,)
        ``Y*``.
    """
    check_param("alpha_star", alpha_star, NONNEGATIVE, "transductive_labels")
    y = np.asarray(y, dtype=np.float64).ravel()
    y0 = np.asarray(y0, dtype=np.float64).ravel()
    n = y.shape[0]
    M1, M2 = M[:n, n:], M[n:, n:]
    lhs = M2 + alpha_star * np.eye(M2.shape[0])
    return solve(lhs, -M1.T @ y + alpha_star * y0, assume_a="pos")


class _TransductiveRidgeBase(BaseEstimator):
    _parameter_constraints = {
        "alpha": [*POSITIVE, None],
        "alphas": ["array-like", None],
        "alpha_star": [*NONNEGATIVE, str_options({"auto"})],
        "radius": POSITIVE,
        "sigma": [*POSITIVE, str_options({"scale"})],
        "basis": [str_options({"functions", "kernel"})],
    }

    def __init__(self, *, alpha=None, alphas=None, alpha_star=1.0, radius=1.0, sigma=1.0,
                 basis="functions"):
        self.alpha = alpha
        self.alphas = alphas
        self.alpha_star = alpha_star
        self.radius = radius
        self.sigma = sigma
        self.basis = basis

    def _fit_targets(self, X, t, X_unlabeled):
        """Shared fit on numeric targets t; sets the attributes and returns Y*."""
        if X_unlabeled is None:
            Xu = np.empty((0, X.shape[1]))
        else:
            Xu = check_input(self, X_unlabeled, reset=False)
        with blas_threads_for((X.shape[0] + Xu.shape[0]) ** 3):
            return self._fit_blas(X, t, Xu)

    def _fit_blas(self, X, t, Xu):
        n = X.shape[0]
        self.kernel_ = _k.KernelSpec(kernel="rbf", sigma=self.sigma).fit(X)
        self.sigma_ = float(self.kernel_.sigma)
        K = np.asarray(self.kernel_(X), dtype=np.float64)
        # the ridge penalty gamma by the closed-form leave-one-out error (5.8) on the labeled set
        if self.alpha is None:
            grid = (np.logspace(-6, 2, 17) if self.alphas is None
                    else np.asarray(self.alphas, dtype=np.float64).ravel())
            for a in grid:
                check_param("alphas", a, POSITIVE, type(self).__name__)
            G = K @ K.T if self.basis == "functions" else K
            R = loo_residuals(G, t, grid)
            self.loo_mse_ = (R ** 2).mean(axis=1)
            self.alpha_ = float(grid[int(np.argmin(self.loo_mse_))])
        else:
            self.alpha_ = float(self.alpha)
        # inductive ridge predictions Y0 at the test points (the labeled basis only)
        if self.basis == "functions":
            ind = ScalingRidge(alpha=self.alpha_, sigma=self.sigma_, tune_scales=False)
        else:
            ind = KernelRidge(alpha=self.alpha_, sigma=self.sigma_)
        ind.fit(X, t)
        self.inductive_ = ind
        m = Xu.shape[0]
        Xh = np.vstack([X, Xu])
        Kh = np.asarray(self.kernel_(Xh), dtype=np.float64)
        e, U, s = _hat_eigen(Kh, self.basis)
        if m:
            y0 = ind.predict(Xu)
            M, _ = _m_from_eigen(e, U, self.alpha_)
            if isinstance(self.alpha_star, str):
                Ku = np.asarray(self.kernel_(Xu, X), dtype=np.float64)
                self.prediction_se_ = self._prediction_se(K, Ku, t)
                a_star = self._auto_alpha_star(M, t, y0, float(self.radius) * self.prediction_se_)
            else:
                a_star = float(self.alpha_star)
            ystar = transductive_labels(M, t, y0, a_star)
            yh = np.concatenate([t, ystar])
            self.loo_transductive_ = float(yh @ M @ yh) / (n + m)
            self.alpha_star_ = a_star
        else:
            y0 = ystar = np.empty(0)
            yh = t
            self.alpha_star_ = None
        self.inductive_labels_ = y0
        # the ridge trained on the joint set with Y* (predictions at new points)
        if self.basis == "functions":
            g = s / (s ** 2 + self.alpha_)
        else:
            g = 1.0 / (np.maximum(s, 0.0) + self.alpha_)
        self.dual_coef_ = U @ (g * (U.T @ yh))
        self.X_fit_ = Xh
        return ystar

    def _prediction_se(self, K, Ku, t):
        """``sqrt(sum_j Var(Y0_j))``: the standard error of the inductive predictions at the m
        test points, ``Var(Y0_j) = s^2 ||h_j||^2`` with ``h_j`` the row of the ridge's hat
        matrix giving ``Y0_j = h_j' Y`` and ``s^2`` the noise variance estimated by the
        closed-form leave-one-out error (5.8) at ``alpha_``."""
        e, U = eigh(K)
        e = np.maximum(e, 0.0)
        if self.basis == "functions":
            g, G = e / (e * e + self.alpha_), (U * (e * e)) @ U.T
        else:
            g, G = 1.0 / (e + self.alpha_), K
        Hu = (Ku @ U) * g                               # rows h_j' U: ||h_j|| is their norm
        s2 = float(np.mean(loo_residuals(G, t, np.array([self.alpha_])) ** 2))
        return float(np.sqrt(s2 * np.sum(Hu * Hu)))

    def _auto_alpha_star(self, M, t, y0, R):
        """gamma* as the Lagrange multiplier of the constraint (7.19) ``||Y* - Y0|| <= R``: the
        smallest gamma* whose minimiser lies in the ball (bisection on log gamma*,
        ``||Y*(gamma*) - Y0||`` decreases with gamma*)."""
        R = max(R, 1e-12)

        def dist(a):
            return np.linalg.norm(transductive_labels(M, t, y0, a) - y0)

        lo, hi = -8.0, 8.0
        if dist(10.0 ** lo) <= R:
            return 10.0 ** lo
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if dist(10.0 ** mid) <= R else (mid, hi)
        return float(10.0 ** hi)

    def _decision(self, X):
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return np.asarray(self.kernel_(X, self.X_fit_), dtype=np.float64) @ self.dual_coef_


class TransductiveRidge(RegressorMixin, _TransductiveRidgeBase):
    """Transductive ridge regression: values at given test points by leave-one-out error.

    Chapelle's thesis §7.6 (Chapelle, Vapnik & Weston, NIPS 12, 1999): the values ``Y*`` at
    the given test points that minimise the ridge leave-one-out error on the labeled and test
    points together, (7.18)-(7.21).

    ``fit(X, y, X_unlabeled=X_test)`` sets ``transduction_`` (the thesis's output, ``Y*``).
    ``predict`` evaluates the ridge trained on the labeled points and the test points labeled
    ``Y*`` (so it is defined for new points too; at the test points it is the ridge fit of
    ``Y*``, not ``Y*`` itself).  The targets are centred on the labeled mean (the basis
    functions have no bias) and the mean is added back.  Without ``X_unlabeled`` it is the
    inductive ridge regression.

    Parameters
    ----------
    alpha : float or None, default=None
        The ridge penalty (the thesis's gamma, ``A = K'K + gamma I``); None: the value of
        ``alphas`` with the lowest closed-form leave-one-out error (5.8) on the labeled points
        (:func:`kernelnb.ridge.loo_residuals`), as the thesis chooses it.
    alphas : array, optional
        Grid for ``alpha=None`` (default ``logspace(-6, 2, 17)``).
    alpha_star : float >= 0 or 'auto', default=1.0
        The thesis's gamma* of (7.20), the pull of ``Y*`` towards the inductive predictions
        ``Y0``; it multiplies ``||Y* - Y0||^2`` against the *sum* ``Y^'MY^`` (not the mean), so
        the thesis's values (gamma* = 10 on Boston housing) apply as they are.  'auto': the
        thesis leaves gamma* free, to be chosen "according to the variance of the predictions
        Y0" (it fixes it per experiment: 10, n/(2m), 50/m, or by validation for Table 7.1);
        here it is the Lagrange multiplier of the ball (7.19) ``||Y* - Y0|| <= R`` (found by
        bisection) with ``R = radius * sqrt(sum_j Var(Y0_j))``, the standard error of the
        inductive predictions: ``Var(Y0_j) = s^2 ||h_j||^2``, ``h_j`` the ridge's hat-matrix
        row of test point j and ``s^2`` the leave-one-out error (5.8) of the labeled points
        (``prediction_se_``).  ``Y*`` may then move from ``Y0`` by about what ``Y0`` itself
        is uncertain by.
    radius : float > 0, default=1.0
        The ball's radius in units of ``prediction_se_`` (only for ``alpha_star='auto'``).
    sigma : float or 'scale', default=1.0
        Width of the RBF basis functions ``exp(-||x - x_j||^2 / (2 sigma^2))``.
    basis : {'functions', 'kernel'}, default='functions'
        'functions': ridge regression on one RBF basis function per labeled and test point (the
        thesis's §7.6.2 setting, ``a = (K'K + gamma I)^-1 K'Y``); 'kernel': kernel ridge
        regression ``a = (K + gamma I)^-1 Y`` (:class:`kernelnb.ridge.KernelRidge`).

    Attributes
    ----------
    transduction_ : ndarray of shape (n_unlabeled,)
        ``Y*``.
    inductive_labels_ : ndarray of shape (n_unlabeled,)
        ``Y0``, the inductive ridge predictions at the test points.
    alpha_ : float
        The ridge penalty used.
    alpha_star_ : float or None
        The gamma* used (None without test points).
    prediction_se_ : float
        ``alpha_star='auto'`` with test points: ``sqrt(sum_j Var(Y0_j))``, the standard error
        of the inductive predictions (see ``alpha_star``).
    sigma_ : float
        The RBF width used.
    loo_mse_ : ndarray of shape (n_alphas,)
        Leave-one-out error of each of ``alphas`` (only when ``alpha=None``).
    loo_transductive_ : float
        ``Y^'MY^ / (n+m)`` at ``Y*``: the leave-one-out error (7.18) on the joint set.
    y_mean_ : float
        The labeled targets' mean (added back to the predictions).
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import TransductiveRidge
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-3, 3, (60, 1)); y = np.sin(X[:, 0]) + 0.1 * rng.randn(60)
    >>> model = TransductiveRidge(sigma=1.0, alpha_star=1.0).fit(X[:40], y[:40],
    ...                                                          X_unlabeled=X[40:])
    >>> model.transduction_.shape
    (20,)
    """

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None):
        """Label the test points ``X_unlabeled`` and fit the ridge on the joint set.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labeled points.
        y : array of shape (n_samples,)
            Their targets.
        X_unlabeled : array of shape (n_unlabeled, n_features) or None, default=None
            The test points to label; None: the inductive ridge regression.

        Returns
        -------
        self : TransductiveRidge
            The fitted regressor.
        """
        X, y = check_input(self, X, y, y_numeric=True)
        y = np.asarray(y, dtype=np.float64)
        self.y_mean_ = float(y.mean())
        ystar = self._fit_targets(X, y - self.y_mean_, X_unlabeled)
        self.transduction_ = ystar + self.y_mean_
        self.inductive_labels_ = self.inductive_labels_ + self.y_mean_
        return self

    def predict(self, X):
        """Values of the ridge trained on the labeled and test points.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,)
            The predicted values.
        """
        check_is_fitted(self)
        return self._decision(X) + self.y_mean_


class TransductiveLinearDiscriminant(BinaryClassifierMixin, _TransductiveRidgeBase):
    """Transductive linear discrimination (TLD): transductive ridge regression on +-1 targets.

    Chapelle's thesis §7.6.2, Table 7.1: :class:`TransductiveRidge` on the targets ``y = +-1``
    of a binary problem, the test points labeled by the sign of ``Y*``.

    The two classes may have any labels (``classes_[1]`` is +1).  ``transduction_`` holds the
    test points' labels, ``transductive_values_`` the real ``Y*``; ``predict`` and
    ``decision_function`` use the ridge trained on the labeled and test points (``Y*`` as their
    targets), so new points get labels too.

    Parameters
    ----------
    alpha : float or None, default=None
        The ridge penalty (the thesis's gamma, ``A = K'K + gamma I``); None: the value of
        ``alphas`` with the lowest closed-form leave-one-out error (5.8) on the labeled points
        (:func:`kernelnb.ridge.loo_residuals`), as the thesis chooses it.
    alphas : array, optional
        Grid for ``alpha=None`` (default ``logspace(-6, 2, 17)``).
    alpha_star : float >= 0 or 'auto', default=1.0
        The thesis's gamma* of (7.20), the pull of ``Y*`` towards the inductive predictions
        ``Y0``; it multiplies ``||Y* - Y0||^2`` against the *sum* ``Y^'MY^`` (not the mean), so
        the thesis's values (gamma* = 10 on Boston housing) apply as they are.  'auto': the
        thesis leaves gamma* free, to be chosen "according to the variance of the predictions
        Y0" (it fixes it per experiment: 10, n/(2m), 50/m, or by validation for Table 7.1);
        here it is the Lagrange multiplier of the ball (7.19) ``||Y* - Y0|| <= R`` (found by
        bisection) with ``R = radius * sqrt(sum_j Var(Y0_j))``, the standard error of the
        inductive predictions: ``Var(Y0_j) = s^2 ||h_j||^2``, ``h_j`` the ridge's hat-matrix
        row of test point j and ``s^2`` the leave-one-out error (5.8) of the labeled points
        (``prediction_se_``).  ``Y*`` may then move from ``Y0`` by about what ``Y0`` itself
        is uncertain by.
    radius : float > 0, default=1.0
        The ball's radius in units of ``prediction_se_`` (only for ``alpha_star='auto'``).
    sigma : float or 'scale', default=1.0
        Width of the RBF basis functions ``exp(-||x - x_j||^2 / (2 sigma^2))``.
    basis : {'functions', 'kernel'}, default='functions'
        'functions': ridge regression on one RBF basis function per labeled and test point (the
        thesis's §7.6.2 setting, ``a = (K'K + gamma I)^-1 K'Y``); 'kernel': kernel ridge
        regression ``a = (K + gamma I)^-1 Y`` (:class:`kernelnb.ridge.KernelRidge`).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is the +1 target.
    transduction_ : ndarray of shape (n_unlabeled,)
        The labels of the test points.
    transductive_values_ : ndarray of shape (n_unlabeled,)
        ``Y*`` (real values; positive means ``classes_[1]``).
    inductive_labels_ : ndarray of shape (n_unlabeled,)
        ``Y0``, the inductive ridge predictions at the test points (real values).
    alpha_ : float
        The ridge penalty used.
    alpha_star_ : float or None
        The gamma* used (None without test points).
    prediction_se_ : float
        ``alpha_star='auto'`` with test points: ``sqrt(sum_j Var(Y0_j))``, the standard error
        of the inductive predictions (see ``alpha_star``).
    sigma_ : float
        The RBF width used.
    loo_mse_ : ndarray of shape (n_alphas,)
        Leave-one-out error of each of ``alphas`` (only when ``alpha=None``).
    loo_transductive_ : float
        ``Y^'MY^ / (n+m)`` at ``Y*``: the leave-one-out error (7.18) on the joint set.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import TransductiveLinearDiscriminant
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(30, 2) - 1.5, rng.randn(30, 2) + 1.5])
    >>> y = np.repeat(["a", "b"], 30)
    >>> lab = np.r_[0:5, 30:35]
    >>> test = np.setdiff1d(np.arange(60), lab)
    >>> tld = TransductiveLinearDiscriminant(sigma=2.0).fit(X[lab], y[lab],
    ...                                                     X_unlabeled=X[test])
    >>> tld.transduction_[:3]
    array(['a', 'a', 'a'], dtype='<U1')
    >>> bool(np.mean(tld.transduction_ == y[test]) > 0.9)
    True
    """

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None):
        """Label the test points ``X_unlabeled`` by the sign of ``Y*``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labeled points.
        y : array of shape (n_samples,)
            Their labels, two classes.
        X_unlabeled : array of shape (n_unlabeled, n_features) or None, default=None
            The test points to label.

        Returns
        -------
        self : TransductiveLinearDiscriminant
            The fitted classifier.
        """
        X, y = check_input(self, X, y)
        self.classes_, t = _binary_targets("TransductiveLinearDiscriminant", y)
        ystar = self._fit_targets(X, t, X_unlabeled)
        self.transductive_values_ = ystar
        self.transduction_ = self.classes_[(ystar > 0).astype(int)]
        return self

    def decision_function(self, X):
        """Values of the ridge trained on the labeled and test points (positive:
        ``classes_[1]``).

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,)
            The decision values.
        """
        return self._decision(X)



# ------------------------------------------------------------------------------------------
# Transductive SVM (Joachims 1999)
# ------------------------------------------------------------------------------------------
class TransductiveSVC(BinaryClassifierMixin, BaseEstimator):
    """Transductive SVM by label switching (Joachims, ICML 1999).

    The baseline of Chapelle's thesis §7.4.5 (Vapnik's transduction: a large margin on the
    labeled and unlabeled points).  It minimises over the SVM ``(w, b)`` and the labels ``y*``
    of the unlabeled points

        1/2 ||w||^2 + C sum_i xi_i + C*_- sum_{y*_j = -1} xi*_j + C*_+ sum_{y*_j = +1} xi*_j,

    with the fraction of positive unlabeled points fixed:

    1. train an SVM on the labeled points; label the ``m`` unlabeled points by its decision
       values, the ``round(m p)`` largest positive, ``p`` the positive fraction of the labeled
       set (or ``positive_fraction``);
    2. set ``C*_- = C_start`` and ``C*_+ = C_start * n_+ / n_-`` (Joachims's start, ``n_+-``
       the numbers of unlabeled points given each label);
    3. retrain with those costs (:class:`kernelnb.svm.SVC`, per-point costs as
       ``sample_weight``); while some pair ``(j, l)`` of unlabeled points of opposite labels
       has ``xi*_j > 0``, ``xi*_l > 0`` and ``xi*_j + xi*_l > 2``, switch the pair with the
       largest sum and retrain (at fixed ``(w, b)`` the switch strictly lowers the objective,
       retraining lowers it further, so the loop ends);
    4. multiply both ``C*`` by ``growth`` (capped at ``C_unlabeled``) and go to 3 until both reach
       ``C_unlabeled``.

    Switching swaps a pair, so the class ratio of step 1 is kept.  ``C_unlabeled = 0`` gives the
    inductive SVM (the unlabeled points have weight 0).  The objective is guaranteed not to
    rise at a switch when ``C*_- = C*_+`` (a balanced ratio, or once both costs reached
    ``C_unlabeled``); while they differ, a switch also moves a point between the two costs.

    Parameters
    ----------
    C : float > 0, default=1.0
        Cost of the labeled points.
    C_unlabeled : float >= 0, default=1.0
        Final cost of the unlabeled points (the thesis's and Joachims's C*).
    kernel : {'rbf', 'linear', 'poly'}, default='rbf'
        The SVMs' kernel.
    sigma : float or 'scale', default=1.0
        RBF width: ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``; ``'scale'`` is resolved on
        the labeled and unlabeled points together.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    positive_fraction : float in (0, 1) or None, default=None
        Fraction of the unlabeled points labeled ``classes_[1]`` (None: that of the labeled set).
        The constraint keeps it through the whole search, so a wrong fraction costs accuracy
        (a few points when it is 0.2 off): pass the true one when it is known.  With None,
        ``fit`` warns when the labeled fraction ``p`` is far from the fraction the inductive
        SVM predicts positive among the unlabeled points (more than twice the standard error
        ``sqrt(p (1 - p) / n)`` of ``p`` over ``n`` labels), a sign that the labels were not
        drawn at the classes' proportions.
    C_start : float > 0, default=1e-5
        Starting unlabeled cost (Joachims's 10^-5).
    growth : float > 1, default=2.0
        Factor of each increase of the unlabeled cost.
    max_switches : int, default=10000
        Cap on the switches (a safeguard; each switch lowers the objective).
    tol : float, default=1e-3
        The SVC's KKT tolerance.
    precision : {'float32', 'float64'}, default='float64'
        The SVC's kernel precision.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is +1.
    transduction_ : ndarray of shape (n_unlabeled,)
        Labels of the unlabeled points.
    svc_ : SVC
        The final SVM (on labeled and unlabeled points); ``predict`` uses it.
    sigma_ : float
        The RBF width used (1.0 for the other kernels).
    n_switches_ : int
        Label pairs switched.
    positive_fraction_ : float or None
        The fraction of unlabeled points labeled ``classes_[1]`` (None without unlabeled
        points).
    inductive_fraction_ : float or None
        The fraction of the unlabeled points the inductive SVM (labeled points only) predicts
        ``classes_[1]`` (None without unlabeled points).
    objective_history_ : list of (C*_-, C*_+, objective)
        Primal objective after every retraining (one entry per SVM trained).
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import TransductiveSVC
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(50, 2) - 2, rng.randn(50, 2) + 2]); y = np.repeat([0, 1], 50)
    >>> lab = np.r_[0:3, 50:53]
    >>> unl = np.setdiff1d(np.arange(100), lab)
    >>> model = TransductiveSVC(kernel="linear", C=10, C_unlabeled=1).fit(
    ...     X[lab], y[lab], X_unlabeled=X[unl])
    >>> print(float(np.mean(model.transduction_ == y[unl])) > 0.9)
    True
    """

    _parameter_constraints = {
        "C": POSITIVE,
        "C_unlabeled": NONNEGATIVE,
        "kernel": [str_options({"rbf", "linear", "poly"})],
        "sigma": [*POSITIVE, str_options({"scale"})],
        "degree": POSITIVE_INT,
        "coef0": [interval(numbers.Real, None, None, closed="neither")],
        "positive_fraction": [interval(numbers.Real, 0, 1, closed="neither"), None],
        "C_start": POSITIVE,
        "growth": [interval(numbers.Real, 1, None, closed="neither")],
        "max_switches": POSITIVE_INT,
        "tol": POSITIVE,
        "precision": [str_options({"float32", "float64"})],
    }

    def __init__(self, *, C=1.0, C_unlabeled=1.0, kernel="rbf", sigma=1.0, degree=3, coef0=1.0,
                 positive_fraction=None, C_start=1e-5, growth=2.0, max_switches=10000,
                 tol=1e-3, precision="float64"):
        self.C = C
        self.C_unlabeled = C_unlabeled
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.positive_fraction = positive_fraction
        self.C_start = C_start
        self.growth = growth
        self.max_switches = max_switches
        self.tol = tol
        self.precision = precision

    def _svc(self):
        return SVC(C=self.C, kernel=self.kernel, sigma=self.sigma_, degree=self.degree,
                   coef0=self.coef0, tol=self.tol, precision=self.precision, n_jobs=1)

    @staticmethod
    def _objective(svc, Xa, ya, cost):
        """Primal ``1/2 ||w||^2 + sum cost_i xi_i`` of the SVM ``svc`` (``ya`` in {-1, +1})."""
        a = svc.dual_coef_.ravel()
        Ks = np.asarray(svc.kernel_(svc.support_vectors_), dtype=np.float64)
        w2 = float(a @ Ks @ a)
        xi = np.maximum(0.0, 1.0 - ya * svc.decision_function(Xa))
        return 0.5 * w2 + float(cost @ xi), xi

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None):
        """Label the unlabeled points and train the transductive SVM.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labeled points.
        y : array of shape (n_samples,)
            Their labels, two classes.
        X_unlabeled : array of shape (n_unlabeled, n_features) or None, default=None
            The points to label; None (or ``C_unlabeled=0``): the inductive SVM.

        Returns
        -------
        self : TransductiveSVC
            The fitted classifier.
        """
        X, y = check_input(self, X, y)
        self.classes_, t = _binary_targets("TransductiveSVC", y)
        yl = t.astype(int)
        n = X.shape[0]
        Xu = (np.empty((0, X.shape[1])) if X_unlabeled is None
              else check_input(self, X_unlabeled, reset=False))
        m = Xu.shape[0]
        # one RBF width for every SVM trained ('scale' resolved on labeled and unlabeled points)
        self.sigma_ = (_k.KernelSpec(kernel="rbf", sigma=self.sigma).resolve_sigma(
            np.vstack([X, Xu])) if self.kernel == "rbf" else 1.0)
        self.n_switches_ = 0
        self.objective_history_ = []
        svc = self._svc().fit(X, yl)
        dec = svc.decision_function(Xu) if m else np.empty(0)
        self.inductive_fraction_ = float(np.mean(dec > 0)) if m else None
        self.positive_fraction_ = None
        if m == 0 or self.C_unlabeled == 0:
            self.svc_ = svc
            self.transduction_ = self.classes_[(dec > 0).astype(int)]
            if m:
                self.positive_fraction_ = self.inductive_fraction_
            return self
        p = float(np.mean(yl > 0)) if self.positive_fraction is None else self.positive_fraction
        if self.positive_fraction is None:
            self._check_fraction(p, n)
        n_pos = int(np.clip(round(m * p), 0, m))
        self.positive_fraction_ = n_pos / m
        order = np.argsort(-dec, kind="stable")
        yu = -np.ones(m, dtype=int)
        yu[order[:n_pos]] = 1
        Xa = np.vstack([X, Xu])
        C_unlabeled = float(self.C_unlabeled)
        c_neg = min(float(self.C_start), C_unlabeled)
        c_pos = min(float(self.C_start) * n_pos / max(m - n_pos, 1), C_unlabeled) if n_pos else c_neg
        while True:
            while True:
                cost_u = np.where(yu > 0, c_pos, c_neg)
                ya = np.concatenate([yl, yu])
                # per-point costs: C for the labeled points, C*_+- for the unlabeled ones
                weights = np.concatenate([np.ones(n), cost_u / self.C])
                svc = self._svc().fit(Xa, ya, sample_weight=weights)
                obj, xi = self._objective(svc, Xa, ya, self.C * weights)
                self.objective_history_.append((c_neg, c_pos, obj))
                if self.n_switches_ >= self.max_switches:
                    break
                xu = xi[n:]
                pos = np.flatnonzero((yu > 0) & (xu > 0))
                neg = np.flatnonzero((yu < 0) & (xu > 0))
                if not pos.size or not neg.size:
                    break
                j, l = pos[np.argmax(xu[pos])], neg[np.argmax(xu[neg])]
                if xu[j] + xu[l] <= 2.0:
                    break
                yu[j], yu[l] = -1, 1
                self.n_switches_ += 1
            if c_neg >= C_unlabeled and c_pos >= C_unlabeled:
                break
            c_neg = min(c_neg * self.growth, C_unlabeled)
            c_pos = min(c_pos * self.growth, C_unlabeled)
        self.svc_ = svc
        self.transduction_ = self.classes_[(yu > 0).astype(int)]
        return self

    def _check_fraction(self, p, n):
        """Warn when the labeled fraction ``p`` (of ``n`` labels) is more than two standard
        errors from the fraction the inductive SVM predicts positive on the unlabeled points."""
        q = self.inductive_fraction_
        se = np.sqrt(p * (1.0 - p) / n)
        if abs(p - q) > 2.0 * se:
            warnings.warn(
                f"TransductiveSVC: the labeled points' positive fraction is {p:.3f} ({n} labels, "
                f"standard error {se:.3f}) but the inductive SVM labels {q:.3f} of the unlabeled "
                f"points {self.classes_[1]!r}; the transduction keeps {p:.3f} of them positive. "
                "Pass positive_fraction= if the true fraction is known.",
                UserWarning, stacklevel=4)

    def decision_function(self, X):
        """Decision values of the final SVM (positive: ``classes_[1]``).

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,)
            The decision values.
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return self.svc_.decision_function(X)
