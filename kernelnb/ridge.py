"""Kernel ridge regression with the exact leave-one-out residuals in closed form.

``a = (K + lambda I)^-1 y`` (no bias), predictions ``f(x) = sum_i a_i k(x_i, x)``.  With the
hat matrix ``H = K (K + lambda I)^-1`` the leave-one-out residual of point i is
``(y_i - f(x_i)) / (1 - H_ii)`` (Chapelle's thesis, section 7.6), so
:class:`KernelRidgeCV` scores a whole grid of lambda from one eigendecomposition of K per sigma.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.linalg import cho_factor, cho_solve, eigh
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from . import kernels as _k
from ._deprecation import resolve_renamed, with_renamed
from ._validation import (POSITIVE, POSITIVE_INT, Interval, StrOptions, check_input, check_param,
                          check_params)

__all__ = ["KernelRidge", "KernelRidgeCV", "loo_residuals"]


_KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions({"linear", "poly", "rbf", "precomputed"}), callable],
    "scales": ["array-like", None],
    "degree": POSITIVE_INT,
    "coef0": [Interval(numbers.Real, None, None, closed="neither")],
}


def _kernel(est, X, **override):
    """The fitted kernel of ``est`` on ``X`` (:meth:`kernelnb.kernels.KernelSpec.fit`)."""
    return _k.KernelSpec.of(est, **override).fit(X)


def loo_residuals(K, y, alphas):
    """Leave-one-out residuals for every lambda in ``alphas``: array (n_lambdas, n, ...).

    One eigendecomposition K = U diag(e) U'; then H = U diag(e / (e + lambda)) U'."""
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
    """Kernel ridge regression ``a = (K + alpha I)^-1 y``.

    Parameters
    ----------
    alpha : float, default=1.0
        The ridge penalty lambda (scikit-learn's ``KernelRidge(alpha=...)``).  Named
        ``weight_decay`` before kernelnb 0.2 (still accepted, with a ``FutureWarning``).
    kernel, sigma, scales, degree, coef0 :
        As :class:`kernelnb.svm.SVC` (``sigma`` may be 'scale'; ``coef0`` defaults to 1 here as
        there, the ``(1 + x.z)^p`` of the theses).

    Attributes
    ----------
    dual_coef_ : (n_samples,) or (n_samples, n_targets)
    sigma_ : float or None
        The RBF width used (``'scale'`` resolved).
    loo_residuals_ : the exact leave-one-out residuals (computed when ``compute_loo=True``).

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

    _renamed = {"weight_decay": "alpha"}
    _parameter_constraints = with_renamed({**_KERNEL_CONSTRAINTS, "alpha": POSITIVE,
                                           "sigma": [*POSITIVE, StrOptions({"scale"})],
                                           "compute_loo": ["boolean"]}, _renamed)

    def __init__(self, alpha=1.0, kernel="rbf", sigma=1.0, scales=None, degree=3,
                 coef0=1.0, compute_loo=False, weight_decay="deprecated"):
        self.alpha = alpha
        self.weight_decay = weight_decay
        self.kernel = kernel
        self.sigma = sigma
        self.scales = scales
        self.degree = degree
        self.coef0 = coef0
        self.compute_loo = compute_loo

    def fit(self, X, y):
        check_params(self)
        lam = float(resolve_renamed(self, self._renamed)["alpha"])
        X, y = check_input(self, X, y, y_numeric=True, multi_output=True)
        self.kernel_ = _kernel(self, X)
        K = np.ascontiguousarray(self.kernel_(X), dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if self.compute_loo:
            self.loo_residuals_ = loo_residuals(K, y, [lam])[0]
        # K is symmetric and ours: K.T is the same matrix in Fortran order, so LAPACK factors
        # K + lambda I in place (a copy and a C-to-Fortran conversion cost 1 s at n = 5000)
        K.flat[:: K.shape[0] + 1] += lam
        factor = cho_factor(K.T, lower=False, overwrite_a=True, check_finite=False)
        self.dual_coef_ = cho_solve(factor, y, check_finite=False)
        self.X_fit_ = X
        self.sigma_ = self.kernel_.sigma if isinstance(self.kernel_, _k.RBF) else None
        self._expansion = _k.KernelExpansion(self.kernel_, X, self.dual_coef_)
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return self._expansion(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class KernelRidgeCV(RegressorMixin, BaseEstimator):
    """Kernel ridge regression with lambda and sigma chosen by the exact leave-one-out error.

    Parameters
    ----------
    alphas : array, default=np.logspace(-6, 2, 17)
        Ridge penalties to try (named ``weight_decays`` before kernelnb 0.2; still accepted,
        with a ``FutureWarning``).
    sigmas : array or None, default=None
        RBF widths to try (None: 'scale' times {1/4, 1/2, 1, 2, 4}).
    kernel : str, default='rbf' (sigmas ignored for other kernels)

    Attributes
    ----------
    alpha_, sigma_ : the chosen values; ``loo_mse_`` (n_sigmas, n_alphas);
    best_estimator_ : the KernelRidge refitted with them.
    """

    _renamed = {"weight_decays": "alphas"}
    _parameter_constraints = with_renamed({**_KERNEL_CONSTRAINTS, "alphas": ["array-like", None],
                                           "sigmas": ["array-like", None]}, _renamed)

    def __init__(self, alphas=None, sigmas=None, kernel="rbf", scales=None, degree=3,
                 coef0=1.0, weight_decays="deprecated"):
        self.alphas = alphas
        self.weight_decays = weight_decays
        self.sigmas = sigmas
        self.kernel = kernel
        self.scales = scales
        self.degree = degree
        self.coef0 = coef0

    def fit(self, X, y):
        check_params(self)
        alphas = resolve_renamed(self, self._renamed)["alphas"]
        X, y = check_input(self, X, y, y_numeric=True, multi_output=True)
        lams = np.logspace(-6, 2, 17) if alphas is None else np.asarray(
            alphas, dtype=np.float64).ravel()
        for lam in lams:
            check_param("alphas", lam, POSITIVE, "KernelRidgeCV")
        if self.kernel == "rbf":
            if self.sigmas is None:
                base = _kernel(self, X, sigma="scale").sigma
                sigmas = base * np.array([0.25, 0.5, 1, 2, 4])
            else:
                sigmas = np.asarray(self.sigmas, dtype=np.float64).ravel()
            for s in sigmas:
                _k.check_sigma(s, name="sigmas")
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
        self.best_estimator_ = KernelRidge(self.alpha_, self.kernel,
                                           self.sigma_ if self.sigma_ else 1.0, self.scales,
                                           self.degree, self.coef0).fit(X, y)
        return self

    def predict(self, X):
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    @property
    def weight_decay_(self):
        """Deprecated name of ``alpha_`` (kernelnb 0.2; removed in 0.4)."""
        warnings.warn("KernelRidgeCV: 'weight_decay_' was renamed 'alpha_' in kernelnb 0.2 and "
                      "will be removed in 0.4", FutureWarning, stacklevel=2)
        return self.alpha_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
