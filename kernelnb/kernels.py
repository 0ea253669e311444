"""Kernels: blocks K(X, Y), diagonals, and derivatives with respect to their log-parameters.

Conventions:

* RBF width is ``sigma``: ``k(x, y) = exp(-||s * (x - y)||^2 / (2 sigma^2))`` where ``s`` are the
  per-feature scaling factors ``scales`` (default all ones).  Seed texts that write
  ``exp(-||x - y||^2 / sigma_p^2)`` (the KMP paper) correspond to ``sigma = sigma_p / sqrt(2)``.
* Polynomial: ``k(x, y) = (gamma <x, y> + coef0) ** degree``; the seeds' ``(1 + x.y)^p`` is
  ``Polynomial(degree=p, coef0=1)``.
* Blocks are computed as one BLAS product ``X @ Y.T`` followed by one fused Cython pass
  (:mod:`kernelnb._kernels`); float32 inputs stay float32 and float64 stay float64.

Derivatives (``gradient``) are with respect to ``log sigma`` and ``log scales`` because the
model-selection code (Chapelle's thesis, ch. 4) optimises in log space.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import _kernels
from ._threads import blas_threads_for

__all__ = [
    "Kernel",
    "Linear",
    "Polynomial",
    "RBF",
    "Precomputed",
    "CallableKernel",
    "make_kernel",
    "sigma_from_gamma",
    "gamma_from_sigma",
    "scale_sigma",
    "KERNEL_NAMES",
]

KERNEL_NAMES = ("linear", "poly", "rbf", "precomputed")


def gamma_from_sigma(sigma):
    """Return scikit-learn's ``gamma`` for the width ``sigma``: ``gamma = 1 / (2 sigma^2)``."""
    return 1.0 / (2.0 * float(sigma) ** 2)


def sigma_from_gamma(gamma):
    """Return the width ``sigma`` for scikit-learn's ``gamma``: ``sigma = sqrt(1 / (2 gamma))``."""
    return float(np.sqrt(1.0 / (2.0 * float(gamma))))


def scale_sigma(X):
    """The ``sigma`` equivalent to scikit-learn's ``gamma='scale'`` (``1 / (n_features * X.var())``)."""
    X = np.asarray(X, dtype=np.float64)
    var = X.var()
    if not np.isfinite(var) or var <= 0:
        return 1.0
    return sigma_from_gamma(1.0 / (X.shape[1] * var))


def _as_float(X, name="X"):
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got shape {X.shape}")
    return np.ascontiguousarray(X)


def _check_positive(name, value):
    if not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


class Kernel:
    """Base class: a positive semi-definite kernel with ``K = kernel(X, Y)``."""

    name = "kernel"

    def __call__(self, X, Y=None):
        raise NotImplementedError

    def diag(self, X):
        """``k(x_i, x_i)`` for every row of ``X``."""
        X = _as_float(X)
        return np.array([self(X[i:i + 1])[0, 0] for i in range(X.shape[0])])

    def gradient(self, X, Y=None):
        """Dictionary ``{param: dK/dlog(param)}`` for the differentiable parameters."""
        return {}

    def get_params(self):
        return {}

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class Linear(Kernel):
    """``k(x, y) = <x, y>``."""

    name = "linear"

    def __call__(self, X, Y=None):
        X = _as_float(X)
        Y = X if Y is None else _as_float(Y, "Y").astype(X.dtype, copy=False)
        with blas_threads_for(X.shape[0] * Y.shape[0] * X.shape[1]):
            return X @ Y.T

    def diag(self, X):
        X = _as_float(X)
        return np.einsum("ij,ij->i", X, X)


class Polynomial(Kernel):
    """``k(x, y) = (gamma <x, y> + coef0) ** degree``."""

    name = "poly"

    def __init__(self, degree=3, coef0=1.0, gamma=1.0):
        if not isinstance(degree, numbers.Integral) or degree < 1:
            raise ValueError(f"degree must be an integer >= 1, got {degree!r}")
        self.degree = int(degree)
        self.coef0 = float(coef0)
        self.gamma = _check_positive("gamma", gamma)

    def get_params(self):
        return {"degree": self.degree, "coef0": self.coef0, "gamma": self.gamma}

    def __call__(self, X, Y=None):
        X = _as_float(X)
        Y = X if Y is None else _as_float(Y, "Y").astype(X.dtype, copy=False)
        with blas_threads_for(X.shape[0] * Y.shape[0] * X.shape[1]):
            G = np.ascontiguousarray(X @ Y.T)
        _kernels.poly_from_gram(G, self.gamma, self.coef0, self.degree)
        return G

    def diag(self, X):
        X = _as_float(X)
        return (self.gamma * np.einsum("ij,ij->i", X, X) + self.coef0) ** self.degree


class RBF(Kernel):
    """Gaussian kernel ``exp(-||s * (x - y)||^2 / (2 sigma^2))`` with per-feature scales ``s``.

    Parameters
    ----------
    sigma : float > 0
        Kernel width.
    scales : array of shape (n_features,), optional
        Per-feature scaling factors (Chapelle's thesis ch. 5: feature selection by scaling).
        ``None`` means all ones.
    """

    name = "rbf"

    def __init__(self, sigma=1.0, scales=None):
        self.sigma = _check_positive("sigma", sigma)
        if scales is not None:
            scales = np.asarray(scales, dtype=np.float64).ravel()
            if scales.size == 0 or not np.all(np.isfinite(scales)) or np.any(scales < 0):
                raise ValueError("scales must be finite and non-negative, got "
                                 f"{np.array2string(scales, threshold=6)}")
        self.scales = scales

    @property
    def gamma(self):
        return gamma_from_sigma(self.sigma)

    def get_params(self):
        return {"sigma": self.sigma, "scales": self.scales}

    def scale(self, X):
        """``X`` multiplied coordinate-wise by ``scales`` (a no-op without scales)."""
        X = _as_float(X)
        if self.scales is None:
            return X
        if self.scales.shape[0] != X.shape[1]:
            raise ValueError(f"scales has {self.scales.shape[0]} entries but X has "
                             f"{X.shape[1]} features")
        return np.ascontiguousarray(X * self.scales.astype(X.dtype))

    def __call__(self, X, Y=None):
        Xs = self.scale(X)
        Ys = Xs if Y is None else self.scale(np.asarray(Y).astype(Xs.dtype, copy=False))
        if Ys.shape[1] != Xs.shape[1]:
            raise ValueError(f"X has {Xs.shape[1]} features but Y has {Ys.shape[1]}")
        # Distances are translation invariant: centring first limits the cancellation in
        # ||x||^2 + ||y||^2 - 2 x.y (this matters in float32).
        mu = Xs.mean(axis=0) if Xs.shape[0] else 0.0
        Xc = Xs - mu
        Yc = Xc if Y is None else Ys - mu
        with blas_threads_for(Xc.shape[0] * Yc.shape[0] * Xc.shape[1]):
            G = np.ascontiguousarray(Xc @ Yc.T)
        xn = np.einsum("ij,ij->i", Xc, Xc)
        yn = xn if Y is None else np.einsum("ij,ij->i", Yc, Yc)
        _kernels.rbf_from_gram(G, xn, yn, self.gamma)
        if Y is None:
            np.fill_diagonal(G, 1.0)
        return G

    def diag(self, X):
        return np.ones(_as_float(X).shape[0])

    def gradient(self, X, Y=None):
        """Derivatives of the block with respect to ``log sigma`` and ``log scales``.

        Returns a dict with ``'log_sigma'`` of shape (n, m) and ``'log_scales'`` of shape
        (n_features, n, m):

        * ``dK/dlog sigma = K * ||s (x - y)||^2 / sigma^2``
        * ``dK/dlog s_p   = -K * s_p^2 (x_p - y_p)^2 / sigma^2``
        """
        X = _as_float(X).astype(np.float64)
        Y = X if Y is None else _as_float(Y, "Y").astype(np.float64)
        K = self(X, Y)
        s = np.ones(X.shape[1]) if self.scales is None else self.scales
        diff2 = (s[:, None, None] ** 2) * (X.T[:, :, None] - Y.T[:, None, :]) ** 2
        s2 = self.sigma ** 2
        return {
            "log_sigma": K * diff2.sum(axis=0) / s2,
            "log_scales": -K[None, :, :] * diff2 / s2,
        }


class Precomputed(Kernel):
    """The user passes the kernel matrix itself: ``X`` is K(train, train) at fit, K(test, train) after."""

    name = "precomputed"

    def __call__(self, X, Y=None):
        return _as_float(X)


class CallableKernel(Kernel):
    """Wrap a user function ``f(X, Y) -> K`` (evaluated in blocks, never inside the solver loop)."""

    name = "callable"

    def __init__(self, func):
        if not callable(func):
            raise TypeError(f"kernel must be a name or a callable, got {func!r}")
        self.func = func

    def __call__(self, X, Y=None):
        X = _as_float(X)
        Y = X if Y is None else _as_float(Y, "Y")
        K = np.asarray(self.func(X, Y), dtype=np.float64)
        if K.shape != (X.shape[0], Y.shape[0]):
            raise ValueError(f"the kernel callable returned shape {K.shape}, expected "
                             f"{(X.shape[0], Y.shape[0])}")
        return K


def make_kernel(kernel="rbf", sigma=1.0, scales=None, degree=3, coef0=0.0, gamma=1.0):
    """Build a :class:`Kernel` from the estimator-style parameters.

    ``kernel`` is one of ``'linear'``, ``'poly'``, ``'rbf'``, ``'precomputed'``, a callable
    ``f(X, Y) -> K`` or a :class:`Kernel` instance.
    """
    if isinstance(kernel, Kernel):
        return kernel
    if callable(kernel):
        return CallableKernel(kernel)
    if not isinstance(kernel, str) or kernel not in KERNEL_NAMES:
        raise ValueError(f"kernel must be one of {KERNEL_NAMES} or a callable, got {kernel!r}")
    if kernel == "linear":
        return Linear()
    if kernel == "poly":
        return Polynomial(degree=degree, coef0=coef0, gamma=gamma)
    if kernel == "rbf":
        return RBF(sigma=sigma, scales=scales)
    return Precomputed()
