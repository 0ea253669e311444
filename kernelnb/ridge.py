"""Kernel ridge regression with the exact leave-one-out residuals in closed form.

``a = (K + lambda I)^-1 y`` (no bias), predictions ``f(x) = sum_i a_i k(x_i, x)``.  With the
hat matrix ``H = K (K + lambda I)^-1`` the leave-one-out residual of point i is
``(y_i - f(x_i)) / (1 - H_ii)`` (Chapelle's thesis, section 7.6), so
:class:`KernelRidgeCV` scores a whole grid of lambda from one eigendecomposition of K per sigma.

:class:`ScalingRidge` is the ridge regression on basis functions of Chapelle's thesis, section
5.4: ``a = (K'K + gamma I)^-1 K'Y`` with K the kernel between the training points and p centres,
an RBF kernel with one scaling factor per feature, and the factors and gamma chosen by gradient
descent on the closed-form leave-one-out error (5.8).
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import cho_factor, cho_solve, eigh
from scipy.optimize import minimize
from ._estimator import BaseEstimator
from sklearn.base import RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from . import kernels as _k
from ._callbacks import progress_caller
from ._fit import fit_context
from ._threads import blas_threads_for
from ._validation import (CALLBACK, NONNEGATIVE_INT, POSITIVE, POSITIVE_INT, interval, str_options,
                          check_input, check_param)

__all__ = ["KernelRidge", "KernelRidgeCV", "ScalingRidge", "loo_residuals",
           "scaling_ridge_loo"]


_KERNEL_CONSTRAINTS = {
    "kernel": [str_options({"linear", "poly", "rbf", "precomputed"}), callable],
    "scales": ["array-like", None],
    "degree": POSITIVE_INT,
    "coef0": [interval(numbers.Real, None, None, closed="neither")],
}


def _kernel(est, X, **override):
    """The fitted kernel of ``est`` on ``X`` (:meth:`kernelnb.kernels.KernelSpec.fit`)."""
    return _k.KernelSpec.of(est, **override).fit(X)


def loo_residuals(K, y, alphas):
    """Leave-one-out residuals of kernel ridge regression for every penalty in ``alphas``.

    One eigendecomposition ``K = U diag(e) U'``; then the hat matrix of each penalty lambda is
    ``H = U diag(e / (e + lambda)) U'`` and the residual of point i is
    ``(y_i - f(x_i)) / (1 - H_ii)`` (Chapelle's thesis, section 7.6).

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_samples)
        The (symmetric, positive semi-definite) kernel matrix of the training points.
    y : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The targets.
    alphas : float or array-like of float
        The ridge penalties lambda (> 0).

    Returns
    -------
    ndarray of shape (n_alphas, n_samples) or (n_alphas, n_samples, n_targets)
        The exact leave-one-out residuals, one row per penalty.
    """
    e, U = eigh(K)
    e = np.maximum(e, 0.0)
    Uy = U.T @ y
    out = []
    for lam in np.atleast_1d(alphas):
        g = e / (e + lam)
        fit = U @ (g[:, None] * Uy) if y.ndim == 2 else U @ (g * Uy)
        h = np.einsum("ij,j,ij->i", U, g, U)
        r = (y - fit) / (1.0 - h)[(...,) + (None,) * (y.ndim - 1)]
        out.append(r)
    return np.array(out)


class KernelRidge(RegressorMixin, BaseEstimator):
    """Kernel ridge regression ``a = (K + alpha I)^-1 y``, predictions ``f(x) = sum_i a_i k(x_i, x)``.

    Parameters
    ----------
    alpha : float, default=1.0
        The ridge penalty lambda (> 0; scikit-learn's ``KernelRidge(alpha=...)``).
    kernel : {'rbf', 'linear', 'poly', 'precomputed'} or callable, default='rbf'
        The kernel; a callable ``f(X, Y) -> K``.
    sigma : float or 'scale', default='scale'
        RBF width, ``k(x, y) = exp(-||s (x - y)||^2 / (2 sigma^2))``; ``'scale'`` (the default)
        as scikit-learn's ``gamma='scale'``: ``sigma^2 = n_features Var(X) / 2``.
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors ``s`` of the RBF kernel (None: all ones).
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel (the ``(1 + x.z)^p`` of the theses).
    compute_loo : bool, default=False
        Also compute the exact leave-one-out residuals (:func:`loo_residuals`).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The expansion coefficients a.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training inputs.
    kernel_ : kernelnb.kernels.Kernel
        The fitted kernel.
    sigma_ : float or None
        The RBF width used (``'scale'`` resolved).
    loo_residuals_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The exact leave-one-out residuals (only with ``compute_loo=True``).
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    O. Chapelle, PhD thesis, Université Paris 6, 2002, section 7.6 (the leave-one-out
    residuals in closed form).

    Examples
    --------
    >>> from kernelnb.datasets import make_sinc
    >>> from kernelnb.ridge import KernelRidge
    >>> X, y = make_sinc(n_samples=100, noise=0.1, random_state=0)
    >>> model = KernelRidge(alpha=0.1, sigma=1.0, compute_loo=True).fit(X, y)
    >>> print(round(model.score(X, y), 2))
    0.88
    >>> print(round(float((model.loo_residuals_ ** 2).mean()), 3))
    0.013
    """

    _parameter_constraints = {**_KERNEL_CONSTRAINTS, "alpha": POSITIVE,
                              "sigma": [*POSITIVE, str_options({"scale"})],
                              "compute_loo": ["boolean"]}

    def __init__(self, *, alpha=1.0, kernel="rbf", sigma="scale", scales=None, degree=3,
                 coef0=1.0, compute_loo=False):
        self.alpha = alpha
        self.kernel = kernel
        self.sigma = sigma
        self.scales = scales
        self.degree = degree
        self.coef0 = coef0
        self.compute_loo = compute_loo

    @fit_context
    def fit(self, X, y):
        """Solve ``(K + alpha I) a = y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs, or the kernel matrix when ``kernel='precomputed'``.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Real targets.

        Returns
        -------
        KernelRidge
            The fitted regressor.
        """
        lam = float(self.alpha)
        X, y = check_input(self, X, y, y_numeric=True, multi_output=True)
        self.kernel_ = _kernel(self, X)
        K = np.ascontiguousarray(self.kernel_(X), dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if self.compute_loo:
            self.loo_residuals_ = loo_residuals(K, y, [lam])[0]
        # K is symmetric and ours: K.T is the same matrix in Fortran order, so LAPACK factors
        # K + lambda I in place (no copy, no C-to-Fortran conversion of an n x n matrix)
        K.flat[:: K.shape[0] + 1] += lam
        factor = cho_factor(K.T, lower=False, overwrite_a=True, check_finite=False)
        self.dual_coef_ = cho_solve(factor, y, check_finite=False)
        self.X_fit_ = X
        self.sigma_ = self.kernel_.sigma if isinstance(self.kernel_, _k.RBF) else None
        self._expansion = _k.KernelExpansion(self.kernel_, X, self.dual_coef_)
        return self

    def predict(self, X):
        """Predict the targets of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
            ``f(x) = sum_i dual_coef_i k(x_i, x)``.
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return self._expansion(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class KernelRidgeCV(RegressorMixin, BaseEstimator):
    """Kernel ridge regression with its penalty and width chosen by the exact leave-one-out error.

    Every penalty of one width is scored from one eigendecomposition of its kernel matrix
    (:func:`loo_residuals`); the best pair is refitted on all the data.

    Parameters
    ----------
    alphas : array-like of float, default=None
        Ridge penalties to try (> 0; None: ``np.logspace(-6, 2, 17)``).
    sigmas : array-like of float, default=None
        RBF widths to try (None: the ``'scale'`` width times {1/4, 1/2, 1, 2, 4}); ignored for
        other kernels.
    kernel : {'rbf', 'linear', 'poly', 'precomputed'} or callable, default='rbf'
        The kernel; a callable ``f(X, Y) -> K``.
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors of the RBF kernel (None: all ones).
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.

    Attributes
    ----------
    alpha_ : float
        The chosen penalty.
    sigma_ : float or None
        The chosen width (None for a kernel other than 'rbf').
    loo_mse_ : ndarray of shape (n_sigmas, n_alphas)
        Leave-one-out mean squared error of every pair.
    best_estimator_ : KernelRidge
        The model refitted with the chosen pair.
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    O. Chapelle, PhD thesis, Université Paris 6, 2002, section 7.6.

    Examples
    --------
    >>> from kernelnb.datasets import make_sinc
    >>> from kernelnb.ridge import KernelRidgeCV
    >>> X, y = make_sinc(n_samples=100, noise=0.1, random_state=0)
    >>> cv = KernelRidgeCV(alphas=[0.01, 0.1, 1.0], sigmas=[0.5, 1.0, 2.0]).fit(X, y)
    >>> print(cv.alpha_, cv.sigma_, cv.loo_mse_.shape)
    0.01 1.0 (3, 3)
    >>> print(round(cv.score(X, y), 2))
    0.89
    """

    _parameter_constraints = {**_KERNEL_CONSTRAINTS, "alphas": ["array-like", None],
                              "sigmas": ["array-like", None]}

    def __init__(self, *, alphas=None, sigmas=None, kernel="rbf", scales=None, degree=3,
                 coef0=1.0):
        self.alphas = alphas
        self.sigmas = sigmas
        self.kernel = kernel
        self.scales = scales
        self.degree = degree
        self.coef0 = coef0

    def _check_params_extra(self):
        # each value of the grids (a table checks the containers only)
        if self.alphas is not None:
            for lam in np.asarray(self.alphas, dtype=np.float64).ravel():
                check_param("alphas", lam, POSITIVE, "KernelRidgeCV")
        if self.kernel == "rbf" and self.sigmas is not None:
            for s in np.asarray(self.sigmas, dtype=np.float64).ravel():
                _k.check_sigma(s, name="sigmas")

    @fit_context
    def fit(self, X, y):
        """Score every (sigma, alpha) pair by leave-one-out and refit the best one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs, or the kernel matrix when ``kernel='precomputed'``.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Real targets.

        Returns
        -------
        KernelRidgeCV
            The fitted regressor.
        """
        X, y = check_input(self, X, y, y_numeric=True, multi_output=True)
        lams = np.logspace(-6, 2, 17) if self.alphas is None else np.asarray(
            self.alphas, dtype=np.float64).ravel()
        if self.kernel == "rbf":
            if self.sigmas is None:
                base = _kernel(self, X, sigma="scale").sigma
                sigmas = base * np.array([0.25, 0.5, 1, 2, 4])
            else:
                sigmas = np.asarray(self.sigmas, dtype=np.float64).ravel()
        else:
            sigmas = np.array([1.0])
        y = np.asarray(y, dtype=np.float64)
        self.loo_mse_ = np.empty((len(sigmas), len(lams)))
        for i, s in enumerate(sigmas):
            kern = _kernel(self, X, sigma=s)
            R = loo_residuals(np.asarray(kern(X), dtype=np.float64), y, lams)
            self.loo_mse_[i] = (R ** 2).reshape(len(lams), -1).mean(axis=1)
        i, j = np.unravel_index(np.argmin(self.loo_mse_), self.loo_mse_.shape)
        self.sigma_ = float(sigmas[i]) if self.kernel == "rbf" else None
        self.alpha_ = float(lams[j])
        self.best_estimator_ = KernelRidge(
            alpha=self.alpha_, kernel=self.kernel, sigma=self.sigma_ if self.sigma_ else 1.0,
            scales=self.scales, degree=self.degree, coef0=self.coef0).fit(X, y)
        return self

    def predict(self, X):
        """Predict the targets of ``X`` with the refitted model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
            ``best_estimator_.predict(X)``.
        """
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


# ------------------------------------------------------------------------------------------
# Ridge regression on basis functions with scaling factors (thesis 5.4)
# ------------------------------------------------------------------------------------------
def _design(X, Z, sigma, scales):
    """The RBF kernel with per-feature scales and the n x p matrix K_ij = k(x_i, z_j)."""
    kern = _k.RBF(sigma=sigma, scales=scales)
    kern.center = kern.scale(X).mean(axis=0, dtype=np.float64)
    return kern, np.asarray(kern(X, Z), dtype=np.float64)


def _loo_and_gradient(X, Z, y, sigma, scales, gamma, gradient=True):
    """T_loo (5.8) and its derivatives in log scales and log gamma.

    With ``G = K K'`` and ``B = (G + gamma I)^-1``, the hat matrix is
    ``K A^-1 K' = G (G + gamma I)^-1 = I - gamma B``, so the residual is ``gamma B y`` and
    ``1 - H_ii = gamma B_ii``: the leave-one-out residual is ``r_i = (B y)_i / B_ii``.  With
    ``a = B y``, ``d = diag B``, ``u = r / d``:
    ``dT = <Gm, dM>`` for ``M = G + gamma I`` and
    ``Gm = (2/n) [B diag(u r) B - sym((B u) a')]``; then ``dT/dlog gamma = gamma tr(Gm)`` and
    ``dT = <2 Gm K, dK>`` with ``dK_ij/dlog s_q = -K_ij s_q^2 (x_iq - z_jq)^2 / sigma^2``.
    """
    _, K = _design(X, Z, sigma, scales)
    n = K.shape[0]
    with blas_threads_for(n * n * (n + K.shape[1])):   # small problems: no BLAS thread pool
        return _loo_and_gradient_blas(X, Z, y, K, sigma, scales, gamma, gradient)


def _loo_and_gradient_blas(X, Z, y, K, sigma, scales, gamma, gradient):
    n = K.shape[0]
    G = K @ K.T
    M = G.copy()
    M.flat[:: n + 1] += gamma
    try:
        factor = cho_factor(M, lower=False, overwrite_a=True, check_finite=False)
        B = cho_solve(factor, np.eye(n), check_finite=False)
    except np.linalg.LinAlgError:
        # gamma below the rounding of K K' (a tiny penalty): K K' is PSD, so its eigenvalues
        # clipped at 0 give the inverse of K K' + gamma I without the rounding's negative part
        e, U = eigh(G)
        B = (U / (np.maximum(e, 0.0) + gamma)) @ U.T
    B = 0.5 * (B + B.T)
    a = B @ y
    d = np.diag(B).copy()
    r = a / d
    T = float(np.mean(r ** 2))
    if not gradient:
        return T, None, None
    u = r / d
    Bu = B @ u
    Gm = (B * (u * r)) @ B
    Gm -= 0.5 * (np.outer(Bu, a) + np.outer(a, Bu))
    Gm *= 2.0 / n
    g_gamma = gamma * float(np.trace(Gm))
    W = 2.0 * (Gm @ K) * K
    row, col = W.sum(axis=1), W.sum(axis=0)
    S = (X ** 2).T @ row + (Z ** 2).T @ col - 2.0 * np.einsum("iq,iq->q", X, W @ Z)
    g_scales = -(scales ** 2) * S / sigma ** 2
    return T, g_scales, g_gamma


def scaling_ridge_loo(X, y, centers, sigma, scales, alpha):
    """Closed-form leave-one-out error of ridge regression on RBF basis functions, and its gradient.

    ``f(x) = sum_j a_j k(x, z_j)``, ``a = (K'K + alpha I)^-1 K'Y`` (``K_ij = k(x_i, z_j)``,
    the thesis's gamma is ``alpha`` here) and

    ``T_loo = (1/n) sum_i ((y_i - k_i' A^-1 K'Y) / (1 - k_i' A^-1 k_i))^2``,
    ``A = K'K + alpha I`` (Chapelle's thesis, section 5.4, eq. 5.8; the basis functions stay
    when a point is left out).  The gradient is taken in the log scaling factors and the log
    ridge penalty.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training inputs.
    y : array-like of shape (n_samples,)
        Real targets.
    centers : array-like of shape (n_centers, n_features)
        The centres ``z_j`` of the basis functions.
    sigma : float
        The common RBF width.
    scales : array-like of shape (n_features,)
        Positive per-feature factors: ``k(x, z) = exp(-sum_q s_q^2 (x_q - z_q)^2 / (2 sigma^2))``,
        i.e. the thesis's ``sigma_q = sigma / s_q`` (its eq. 4.15).
    alpha : float
        The ridge penalty (> 0).

    Returns
    -------
    loo : float
        The leave-one-out mean squared error ``T_loo``.
    grad_log_scales : ndarray of shape (n_features,)
        ``dT_loo / dlog s_q`` (``= -dT_loo / dlog sigma_q``).
    grad_log_alpha : float
        ``dT_loo / dlog alpha``.
    """
    caller = "scaling_ridge_loo"
    check_param("sigma", sigma, POSITIVE, caller)
    check_param("alpha", alpha, POSITIVE, caller)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).ravel()
    Z = np.asarray(centers, dtype=np.float64)
    s = _check_scales(scales, X.shape[1])
    if X.ndim != 2 or Z.ndim != 2 or Z.shape[1] != X.shape[1] or y.shape[0] != X.shape[0]:
        raise ValueError(f"X (n, d), y (n,) and centers (p, d) must agree, got shapes "
                         f"{X.shape}, {y.shape} and {Z.shape}")
    return _loo_and_gradient(X, Z, y, float(sigma), s, float(alpha))


def _check_scales(scales, d):
    s = np.asarray(scales, dtype=np.float64).ravel()
    if s.shape[0] != d or not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise ValueError(f"scales must hold {d} finite positive values (one per feature), got "
                         f"{np.array2string(s, threshold=6)}")
    return s


class _StopDescent(Exception):
    """Raised from scipy's iteration callback when the user's callback returns False."""


def _descend(X, Z, y, sigma, theta0, max_iter, tol, report=None, history=None):
    """L-BFGS-B on the leave-one-out error (5.8) over ``theta = (log scales, log alpha)`` from
    ``theta0``; returns the iterates ``[theta0, theta_1, ...]`` (one per iteration) and whether
    ``report`` (a progress caller; True stops the descent) stopped it; ``history`` receives the
    LOO error of each iterate."""
    d = X.shape[1]
    cache = {}
    path = [np.array(theta0, dtype=np.float64)]

    def fun(t):
        key = t.tobytes()
        if key not in cache:
            cache.clear()
            T, gs, ga = _loo_and_gradient(X, Z, y, sigma, np.exp(t[:d]), float(np.exp(t[d])))
            cache[key] = (T, np.concatenate([gs, [ga]]))
        return cache[key]

    def step(t):
        path.append(np.array(t, dtype=np.float64))
        if history is not None:
            history.append(float(fun(t)[0]))
        if report is not None:
            info = {"iteration": len(path) - 1, "loo_mse": float(fun(t)[0]),
                    "alpha": float(np.exp(t[d])), "scales": np.exp(t[:d])}
            if report(info):
                raise _StopDescent

    bounds = [(-12.0, 12.0)] * d + [(np.log(1e-12), np.log(1e8))]
    try:
        minimize(fun, theta0, jac=True, method="L-BFGS-B", bounds=bounds, callback=step,
                 options={"maxiter": int(max_iter), "ftol": tol, "gtol": tol})
    except _StopDescent:
        return path, True
    return path, False


def _ridge_sq_errors(Xa, ya, Za, Xb, yb, sigma, theta):
    """Squared errors on ``(Xb, yb)`` of the ridge on ``(Xa, ya)`` with centres ``Za`` at
    ``theta``."""
    d = Xa.shape[1]
    kern, K = _design(Xa, Za, sigma, np.exp(theta[:d]))
    A = K.T @ K
    A.flat[:: A.shape[0] + 1] += float(np.exp(theta[d]))
    a = cho_solve(cho_factor(A, check_finite=False), K.T @ ya, check_finite=False)
    pred = np.asarray(kern(Xb, Za), dtype=np.float64) @ a
    return (yb - pred) ** 2



class ScalingRidge(RegressorMixin, BaseEstimator):
    """Ridge regression on RBF basis functions with one scaling factor per feature, tuned by LOO.

    Chapelle's thesis, section 5.4: the scaling factors and the penalty are tuned by gradient
    descent on the closed-form leave-one-out error.
    ``f(x) = sum_{j<=p} a_j k(x, z_j)`` with ``a = (K'K + alpha I)^-1 K'Y`` (thesis 5.4.1;
    ``K_ij = k(x_i, z_j)``, ``z_j`` the centres) and
    ``k(x, z) = exp(-sum_q s_q^2 (x_q - z_q)^2 / (2 sigma^2))`` (thesis eq. 4.15 with
    ``sigma_q = sigma / s_q``).  The scales ``s_q`` and the penalty ``alpha`` (the thesis's
    gamma) minimise the leave-one-out error (5.8) (:func:`scaling_ridge_loo`) over their
    logarithms with L-BFGS-B, as the thesis does (it used Matlab's optimiser on ``log sigma_p``
    and ``log gamma``).

    Start (the thesis starts from grid-tuned ``sigma`` and ``gamma``, chosen on a validation set):
    scales ``scales`` (default ones) and the pair (``sigma``, ``alpha``) of the grid
    ``sigmas`` x ``alphas`` with the lowest leave-one-out error (5.8), all of one sigma's alphas
    from one eigendecomposition (:func:`loo_residuals` on ``K K'``, since
    ``K (K'K + alpha I)^-1 K' = K K' (K K' + alpha I)^-1``); a fixed ``sigma`` or ``alpha`` skips
    its grid.  ``sigma`` stays at its start value during the descent (it is redundant with the
    scales).

    Parameters
    ----------
    alpha : float, default=None
        Starting ridge penalty (> 0); None: the best of ``alphas``.
    sigma : float or 'scale', default=None
        Common RBF width; None: the best of ``sigmas``.
    scales : array-like of shape (n_features,), default=None
        Starting scaling factors (positive; None: ones).
    n_centers : int, default=None
        Number of centres, drawn at random among the training points; None: all of them (p = n).
    alphas : array-like of float, default=None
        Grid of starting penalties (None: ``logspace(-6, 3, 19)``).
    sigmas : array-like of float, default=None
        Grid of starting widths (None: the ``'scale'`` width times {1/4, 1/2, 1, 2, 4}).
    tune_scales : bool, default=True
        Descend on the scales and alpha (False: only the grid start).
    early_stopping : bool, default=True
        Stop the descent at the iteration with the lowest cross-validated error (see Notes):
        the leave-one-out error it descends is an estimate that the descent itself fits, with
        one parameter per feature.  False: descend until L-BFGS-B stops (``max_iter``,
        ``tol``), the thesis's procedure.
    n_splits : int >= 2, default=3
        Folds of the early-stopping rule.
    max_iter : int, default=100
        L-BFGS-B iterations (>= 0).
    tol : float, default=1e-6
        L-BFGS-B's ``ftol`` and ``gtol``.
    random_state : int, RandomState instance or None, default=None
        Draws the centres.
    callback : callable, default=None
        ``callback(info)`` is called after each iteration with ``{'iteration', 'loo_mse',
        'alpha', 'scales'}``; returning ``False`` stops the descent.

    Attributes
    ----------
    centers_ : ndarray of shape (n_centers, n_features)
        The centres of the basis functions.
    center_indices_ : ndarray of int
        Their indices in the training data.
    dual_coef_ : ndarray of shape (n_centers,)
        The weights a of the basis functions.
    alpha_ : float
        The tuned penalty.
    sigma_ : float
        The common width (its start value).
    scales_ : ndarray of shape (n_features,)
        The tuned factors (``sigma_ / scales_`` are the thesis's ``sigma_q``).
    loo_mse_ : float
        Leave-one-out error (5.8) at the end.
    loo_mse_start_ : float
        Leave-one-out error at the grid start.
    alpha_start_ : float
        The penalty at the grid start.
    history_ : list of float
        Leave-one-out error after each iteration of the descent on the whole training set
        (run to its end; ``best_iteration_`` of them are kept).
    validation_curve_ : ndarray or None
        ``early_stopping``: the cross-validated MSE after each iteration (entry 0: the
        start); None otherwise (or when ``callback`` stopped the descent: its iterations are
        then kept).
    validation_gain_se_ : ndarray or None
        ``early_stopping``: the standard error of the mean gain over the start, per
        iteration (the per-point differences of squared errors).
    n_iter_ : int
        L-BFGS-B iterations run on the whole training set.
    best_iteration_ : int
        The iterations kept: ``n_iter_``, or the ``early_stopping`` rule's choice (0: the
        grid start, untuned scales).
    kernel_ : kernelnb.kernels.RBF
        The fitted kernel (with the tuned scales).
    fit_time_ : float
        Seconds spent in ``fit``.

    Notes
    -----
    The safeguard.  With p scales and one penalty tuned on n points, the minimum of the
    leave-one-out error is an optimistic estimate (Chapelle's thesis, section 1.2.2: the excess
    of a model selected among many grows as sqrt(p / n), and ch. 9 asks the selection to
    account for the variance of the risk estimate; his Fig. 5.7 shows the validation error
    rising at the end of the descent).  On unseen regressions (300 points, 10-36 inputs,
    ``benchmarks/bench_scaling_ridge.py``) the full descent can end with a test error above the
    untuned start's.  With ``early_stopping`` the descent is stopped by an estimate
    that it does not see: on each of ``n_splits`` folds the same descent (same start) runs on
    the other folds and the ridge at each iterate predicts the fold, giving every training
    point's squared error after each iteration t.  An iteration counts only if its mean gain
    over the start (t = 0) exceeds the gain's standard error; of those, the one with the lowest
    cross-validated MSE is the number of iterations kept from the descent on the whole set,
    and with none the untuned start is kept.  It costs ``n_splits`` more descents.

    References
    ----------
    O. Chapelle, PhD thesis, Université Paris 6, 2002, sections 1.2.2 and 5.4 (eqs. 4.15 and
    5.8).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.ridge import ScalingRidge
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-2, 2, (80, 4))
    >>> y = np.sin(2 * X[:, 0]) + 0.05 * rng.randn(80)      # only the first feature matters
    >>> model = ScalingRidge(max_iter=50, random_state=0).fit(X, y)
    >>> int(np.argmax(model.scales_))                           # the tuned scales find it
    0
    """

    _parameter_constraints = {
        "alpha": [*POSITIVE, None],
        "sigma": [*POSITIVE, str_options({"scale"}), None],
        "scales": ["array-like", None],
        "n_centers": [*POSITIVE_INT, None],
        "alphas": ["array-like", None],
        "sigmas": ["array-like", None],
        "tune_scales": ["boolean"],
        "early_stopping": ["boolean"],
        "n_splits": [interval(numbers.Integral, 2, None, closed="left")],
        "max_iter": NONNEGATIVE_INT,
        "tol": POSITIVE,
        "random_state": ["random_state"],
        "callback": CALLBACK,
    }

    def __init__(self, *, alpha=None, sigma=None, scales=None, n_centers=None, alphas=None,
                 sigmas=None, tune_scales=True, early_stopping=True, n_splits=3, max_iter=100,
                 tol=1e-6, random_state=None, callback=None):
        self.alpha = alpha
        self.sigma = sigma
        self.scales = scales
        self.n_centers = n_centers
        self.alphas = alphas
        self.sigmas = sigmas
        self.tune_scales = tune_scales
        self.early_stopping = early_stopping
        self.n_splits = n_splits
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.callback = callback

    def _start(self, X, Z, y, s0):
        """(sigma, alpha, loo) of the grid start."""
        if self.alpha is not None:
            alphas = np.array([float(self.alpha)])
        else:
            alphas = (np.logspace(-6, 3, 19) if self.alphas is None
                      else np.asarray(self.alphas, dtype=np.float64).ravel())
            for a in alphas:
                check_param("alphas", a, POSITIVE, "ScalingRidge")
        if self.sigma is not None:
            sigmas = np.array([_k.KernelSpec(sigma=self.sigma).resolve_sigma(X * s0)])
        elif self.sigmas is None:
            sigmas = _k.scale_sigma(X * s0) * np.array([0.25, 0.5, 1.0, 2.0, 4.0])
        else:
            sigmas = np.asarray(self.sigmas, dtype=np.float64).ravel()
            for sg in sigmas:
                _k.check_sigma(sg, name="sigmas")
        best = (np.inf, None, None)
        for sg in sigmas:
            _, K = _design(X, Z, float(sg), s0)
            R = loo_residuals(K @ K.T, y, alphas)
            mse = (R ** 2).mean(axis=1)
            j = int(np.nanargmin(np.where(np.isfinite(mse), mse, np.nan)))
            if mse[j] < best[0]:
                best = (float(mse[j]), float(sg), float(alphas[j]))
        return best[1], best[2], best[0]

    def _validation_errors(self, X, y, idx, sigma, theta0, rng):
        """Validation squared error of every point after each iteration of the descent.

        On each fold of ``KFold(n_splits, shuffle=True)`` (seeded by ``random_state``) the
        descent runs from the same start on the other folds (centres: the chosen centres among
        them) and the ridge at every iterate predicts the fold; a descent that stopped early
        keeps its last iterate.  Returns an array (T, n): entry ``[t, i]`` is point i's squared
        error after iteration t (0: the start), each point predicted by the fold leaving it out.
        """
        from sklearn.model_selection import KFold

        is_centre = np.zeros(X.shape[0], dtype=bool)
        is_centre[idx] = True
        parts = []
        for tr, va in KFold(int(self.n_splits), shuffle=True, random_state=rng).split(X):
            Za = X[tr][is_centre[tr]]
            path, _ = _descend(X[tr], Za, y[tr], sigma, theta0, int(self.max_iter),
                               float(self.tol))
            parts.append((va, [_ridge_sq_errors(X[tr], y[tr], Za, X[va], y[va], sigma, t)
                               for t in path]))
        T = max(len(e) for _, e in parts)
        E = np.empty((T, X.shape[0]))
        for va, errs in parts:
            errs = errs + [errs[-1]] * (T - len(errs))
            E[:, va] = np.array(errs)
        return E

    @fit_context
    def fit(self, X, y):
        """Choose the start on the grid, then descend on the scales and the penalty.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Real targets.

        Returns
        -------
        ScalingRidge
            The fitted regressor.
        """
        X, y = check_input(self, X, y, y_numeric=True)
        y = np.asarray(y, dtype=np.float64)
        n, d = X.shape
        s0 = np.ones(d) if self.scales is None else _check_scales(self.scales, d)
        rng = check_random_state(self.random_state)
        if self.n_centers is None or self.n_centers >= n:
            idx = np.arange(n)
        else:
            idx = np.sort(rng.choice(n, size=int(self.n_centers), replace=False))
        Z = X[idx]
        sigma, alpha, loo0 = self._start(X, Z, y, s0)
        self.loo_mse_start_ = loo0
        self.alpha_start_ = float(alpha)
        self.history_ = []
        theta0 = np.concatenate([np.log(s0), [np.log(alpha)]])
        theta, n_iter, kept = theta0, 0, 0
        self.validation_curve_ = self.validation_gain_se_ = None
        if self.tune_scales and self.max_iter > 0:
            path, stopped = _descend(X, Z, y, sigma, theta0, int(self.max_iter),
                                     float(self.tol), progress_caller(self.callback),
                                     self.history_)
            n_iter = kept = len(path) - 1
            if self.early_stopping and not stopped:
                E = self._validation_errors(X, y, idx, sigma, theta0, rng)
                self.validation_curve_ = curve = E.mean(axis=1)
                gain = E[0] - E                       # per point, against the start
                self.validation_gain_se_ = gain.std(axis=1) / np.sqrt(n)
                # iterations that beat the start by more than the gain's standard error; of
                # those the first with the lowest validation error; none: keep the start
                ok = gain.mean(axis=1) > self.validation_gain_se_
                best = int(np.argmin(np.where(ok, curve, np.inf))) if ok.any() else 0
                kept = min(best, n_iter)
            theta = path[kept]
        self.n_iter_ = n_iter
        self.best_iteration_ = kept
        self.scales_ = np.exp(theta[:d])
        self.alpha_ = float(np.exp(theta[d]))
        self.sigma_ = float(sigma)
        self.loo_mse_ = _loo_and_gradient(X, Z, y, self.sigma_, self.scales_, self.alpha_,
                                          gradient=False)[0]
        kern, K = _design(X, Z, self.sigma_, self.scales_)
        A = K.T @ K
        A.flat[:: A.shape[0] + 1] += self.alpha_
        self.dual_coef_ = cho_solve(cho_factor(A, check_finite=False), K.T @ y,
                                    check_finite=False)
        self.centers_ = Z
        self.center_indices_ = idx
        self.kernel_ = kern
        self._expansion = _k.KernelExpansion(kern, Z, self.dual_coef_)
        return self

    def predict(self, X):
        """Predict the targets of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``f(x) = sum_j dual_coef_j k(x, z_j)``.
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return self._expansion(X)
