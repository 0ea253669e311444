"""Kernels: blocks K(X, Y), diagonals, and derivatives with respect to their log-parameters.

Conventions:

* RBF width is ``sigma``: ``k(x, y) = exp(-||s * (x - y)||^2 / (2 sigma^2))`` where ``s`` are the
  per-feature scaling factors ``scales`` (default all ones).  Seed texts that write
  ``exp(-||x - y||^2 / sigma_p^2)`` (the KMP paper) correspond to ``sigma = sigma_p / sqrt(2)``.
* Polynomial: ``k(x, y) = (<x, y> + coef0) ** degree``; the seeds' ``(1 + x.y)^p`` is
  ``Polynomial(degree=p, coef0=1)``.
* Blocks are computed as one BLAS product ``X @ Y.T`` followed by one fused Cython pass
  (:mod:`kernelnb._kernels`); float32 inputs stay float32 and float64 stay float64.
* Every estimator describes its kernel by one :class:`KernelSpec` (kernel name, ``sigma`` or
  ``'scale'``, ``scales``, ``degree``, ``coef0``) resolved at ``fit`` by
  :meth:`KernelSpec.fit`: ``sigma='scale'`` is resolved there, once, and a fitted RBF kernel
  keeps the mean of its (scaled) training inputs.  RBF blocks are centred on that *training*
  mean, so the value of ``k(x, y)`` never depends on the other rows of a batch.  Predictions
  ``sum_j c_j k(x, sv_j)`` are evaluated block by block by :class:`KernelExpansion`.

Derivatives (``gradient``) are with respect to ``log sigma`` and ``log scales`` because the
model-selection code (Chapelle's thesis, ch. 4) optimises in log space.
"""
from __future__ import annotations

import numpy as np

from . import _kernels
from ._threads import blas_single_thread, blas_threads_for
from ._validation import POSITIVE, POSITIVE_INT, check_param

__all__ = [
    "Kernel",
    "Linear",
    "Polynomial",
    "RBF",
    "Precomputed",
    "CallableKernel",
    "make_kernel",
    "KernelSpec",
    "KernelExpansion",
    "rbf_expansion",
    "check_sigma",
    "sigma_from_gamma",
    "gamma_from_sigma",
    "scale_sigma",
    "KERNEL_NAMES",
]

KERNEL_NAMES = ("linear", "poly", "rbf", "precomputed")


def check_sigma(sigma, dtype=np.float64, name="sigma"):
    """Return ``sigma`` as a float after checking that it is a usable RBF width.

    A width whose ``gamma = 1 / (2 sigma^2)`` overflows or underflows gives kernel matrices of
    NaN, zeros or ones.

    Parameters
    ----------
    sigma : float
        The width: a finite positive number such that ``1 / (2 sigma^2)`` is a normal number of
        ``dtype``.
    dtype : numpy dtype, default=numpy.float64
        The precision the kernel is evaluated in.
    name : str, default='sigma'
        The name the error message gives the value.

    Returns
    -------
    float
        ``sigma``.

    Raises
    ------
    ValueError
        When ``sigma`` is not a usable width (never ``ZeroDivisionError`` or
        ``OverflowError``).
    """
    sigma = float(check_param(name, sigma, POSITIVE, "the RBF kernel"))
    info = np.finfo(dtype)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        gamma = 1.0 / (2.0 * np.float64(sigma) * np.float64(sigma))
    if not (np.isfinite(gamma) and info.tiny <= gamma <= info.max):
        lo = float(np.sqrt(0.5 / float(info.max)))
        hi = float(np.sqrt(0.5 / float(info.tiny)))
        raise ValueError(f"{name}={sigma!r} is too extreme: 1 / (2 {name}^2) over- or underflows "
                         f"in {np.dtype(dtype).name}; use {lo:.3g} <= {name} <= {hi:.3g} "
                         "(or rescale the inputs)")
    return sigma


def gamma_from_sigma(sigma):
    """Return scikit-learn's RBF ``gamma`` for the width ``sigma``.

    Parameters
    ----------
    sigma : float
        The Gaussian's width (checked by :func:`check_sigma`).

    Returns
    -------
    float
        ``gamma = 1 / (2 sigma^2)``.
    """
    sigma = check_sigma(sigma)
    return 1.0 / (2.0 * sigma * sigma)


def sigma_from_gamma(gamma):
    """Return the width ``sigma`` for scikit-learn's RBF ``gamma``.

    Parameters
    ----------
    gamma : float
        The factor of ``exp(-gamma ||x - y||^2)`` (> 0).

    Returns
    -------
    float
        ``sigma = sqrt(1 / (2 gamma))``.
    """
    check_param("gamma", gamma, POSITIVE, "sigma_from_gamma")
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        sigma = np.sqrt(1.0 / (2.0 * np.float64(gamma)))
    return check_sigma(float(sigma), name=f"the sigma of gamma={gamma!r}")


def scale_sigma(X, sample_weight=None):
    """Return the width equivalent to scikit-learn's ``gamma='scale'``.

    scikit-learn's ``gamma = 1 / (n_features * X.var())``, so
    ``sigma = sqrt(n_features * X.var() / 2)``.  With ``sample_weight`` the variance is the
    weighted one (each row's entries count ``w_i`` times), so that a point of weight 2 gives
    the width the same point given twice gives.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The (scaled) training inputs.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the rows (None: all equal).

    Returns
    -------
    float
        The width; 1 when the variance of ``X`` is zero or not finite.
    """
    X = np.asarray(X, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if sample_weight is None:
            var = X.var()
        else:
            w = np.asarray(sample_weight, dtype=np.float64)
            total = w.sum() * X.shape[1]
            mean = float(w @ X.sum(axis=1)) / total
            var = float(w @ ((X - mean) ** 2).sum(axis=1)) / total
        if not np.isfinite(var) or var <= 0:
            return 1.0
        sigma = np.sqrt(X.shape[1] * var / 2.0)
    return float(sigma) if np.isfinite(sigma) and sigma > 0 else 1.0


def _as_float(X, name="X"):
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got shape {X.shape}")
    return np.ascontiguousarray(X)


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
    """Polynomial kernel ``k(x, y) = (<x, y> + coef0) ** degree``.

    Parameters
    ----------
    degree : int, default=3
        The degree (>= 1).
    coef0 : float, default=1.0
        The offset; 1 gives the ``(1 + x.y)^p`` of Collobert's, Vincent's and Chapelle's
        theses.
    """

    name = "poly"

    def __init__(self, degree=3, coef0=1.0):
        self.degree = int(check_param("degree", degree, POSITIVE_INT, "the polynomial kernel"))
        self.coef0 = float(coef0)

    def get_params(self):
        return {"degree": self.degree, "coef0": self.coef0}

    def __call__(self, X, Y=None):
        X = _as_float(X)
        Y = X if Y is None else _as_float(Y, "Y").astype(X.dtype, copy=False)
        with blas_threads_for(X.shape[0] * Y.shape[0] * X.shape[1]):
            G = np.ascontiguousarray(X @ Y.T)
        _kernels.poly_from_gram(G, 1.0, self.coef0, self.degree)
        return G

    def diag(self, X):
        X = _as_float(X)
        return (np.einsum("ij,ij->i", X, X) + self.coef0) ** self.degree


class RBF(Kernel):
    """Gaussian kernel ``exp(-||s * (x - y)||^2 / (2 sigma^2))`` with per-feature scales ``s``.

    Parameters
    ----------
    sigma : float > 0
        Kernel width (checked by :func:`check_sigma`).
    scales : array of shape (n_features,), optional
        Per-feature scaling factors (Chapelle's thesis ch. 5: feature selection by scaling).
        ``None`` means all ones.
    center : array of shape (n_features,), optional
        Mean of the scaled training inputs, set by :meth:`KernelSpec.fit`.  Blocks are computed
        from inputs centred on it (distances are translation invariant; centring limits the
        cancellation in ``||x||^2 + ||y||^2 - 2 x.y``).  ``None``: the mean of ``Y`` (of ``X``
        when ``Y`` is None) -- the reference set, never the rows being evaluated.
    """

    name = "rbf"

    def __init__(self, sigma=1.0, scales=None, center=None):
        self.sigma = check_sigma(sigma)
        if scales is not None:
            scales = np.asarray(scales, dtype=np.float64).ravel()
            if scales.size == 0 or not np.all(np.isfinite(scales)) or np.any(scales < 0):
                raise ValueError("scales must be finite and non-negative, got "
                                 f"{np.array2string(scales, threshold=6)}")
        self.scales = scales
        self.center = None if center is None else np.asarray(center, dtype=np.float64).ravel()

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

    def _centre(self, Xs, ref):
        """The centre used for a block: the training mean, else the reference set's mean."""
        if self.center is not None:
            if self.center.shape[0] != Xs.shape[1]:
                raise ValueError(f"X has {Xs.shape[1]} features but the kernel was fitted on "
                                 f"{self.center.shape[0]}")
            return self.center
        return ref.mean(axis=0, dtype=np.float64) if ref.shape[0] else np.zeros(Xs.shape[1])

    def centred(self, X, mu):
        """Scaled ``X`` minus ``mu`` in X's precision, and the squared norms of its rows."""
        Xs = self.scale(X)
        with np.errstate(over="ignore", invalid="ignore"):
            Xc = np.ascontiguousarray(Xs - mu.astype(Xs.dtype))
            xn = np.einsum("ij,ij->i", Xc, Xc)
        return Xc, xn

    def __call__(self, X, Y=None):
        X = _as_float(X)
        Xs = self.scale(X)
        Ys = Xs if Y is None else self.scale(np.asarray(Y).astype(Xs.dtype, copy=False))
        if Ys.shape[1] != Xs.shape[1]:
            raise ValueError(f"X has {Xs.shape[1]} features but Y has {Ys.shape[1]}")
        mu = self._centre(Xs, Ys)
        Xc, xn = self.centred(X, mu)
        if Y is None:
            Yc, yn = Xc, xn
        else:
            Yc, yn = self.centred(np.asarray(Y).astype(Xs.dtype, copy=False), mu)
        G = rbf_block(Xc, xn, Yc, yn, self.gamma)
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
    """The kernel matrix given by the user: ``X`` is K(train, train) at fit, K(test, train) after."""

    name = "precomputed"

    def __call__(self, X, Y=None):
        return _as_float(X)


class CallableKernel(Kernel):
    """A user function ``f(X, Y) -> K`` as a kernel (evaluated in blocks, never inside a solver loop).

    Parameters
    ----------
    func : callable
        ``func(X, Y)`` returns the kernel matrix of shape (len(X), len(Y)).
    """

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


def make_kernel(kernel="rbf", sigma=1.0, scales=None, degree=3, coef0=1.0):
    """Build a :class:`Kernel` from the estimator-style parameters (``sigma`` a number).

    Estimators use :class:`KernelSpec`, which also resolves ``sigma='scale'`` and stores the
    training mean.

    Parameters
    ----------
    kernel : {'rbf', 'linear', 'poly', 'precomputed'}, callable or Kernel, default='rbf'
        The kernel's name, a callable ``f(X, Y) -> K`` or a :class:`Kernel` (returned as is).
    sigma : float, default=1.0
        RBF width.
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors of the RBF kernel.
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=1.0
        Offset of the polynomial kernel (the ``(1 + x.z)^p`` of the source texts).

    Returns
    -------
    Kernel
        The kernel object.
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
        return Polynomial(degree=degree, coef0=coef0)
    if kernel == "rbf":
        return RBF(sigma=sigma, scales=scales)
    return Precomputed()


# --------------------------------------------------------------------------------------------
# The one block evaluator
# --------------------------------------------------------------------------------------------
def rbf_block(Xc, xn, Yc, yn, gamma):
    """``exp(-gamma ||x_i - y_j||^2)`` from centred rows and their squared norms.

    One BLAS product ``Xc @ Yc.T`` then the fused pass of :func:`kernelnb._kernels.rbf_from_gram`
    (in the precision of ``Xc``).  Rows whose squared norm is not finite (a huge input, or one
    that overflowed in float32) are evaluated on their own, directly from the differences in
    float64: they get kernel values near 0 and leave every other row of the block as it is.
    """
    dt = Xc.dtype
    with np.errstate(over="ignore", invalid="ignore"), \
            blas_threads_for(Xc.shape[0] * Yc.shape[0] * Xc.shape[1]):
        G = np.ascontiguousarray(Xc @ Yc.T)
    xn = np.ascontiguousarray(xn, dtype=dt)
    yn = np.ascontiguousarray(yn, dtype=dt)
    bad_x, bad_y = ~np.isfinite(xn), ~np.isfinite(yn)
    any_bad = bad_x.any() or bad_y.any()
    if any_bad:
        xn = np.where(bad_x, 0, xn).astype(dt)
        yn = np.where(bad_y, 0, yn).astype(dt)
        G[bad_x] = 0
        G[:, bad_y] = 0
    _kernels.rbf_from_gram(G, xn, yn, float(gamma))
    if any_bad:
        _direct_rows(G, Xc, Yc, gamma, np.flatnonzero(bad_x), rows=True)
        _direct_rows(G, Xc, Yc, gamma, np.flatnonzero(bad_y), rows=False)
    return G


def _direct_rows(G, Xc, Yc, gamma, idx, rows):
    """Overwrite rows (or columns) ``idx`` of G by exp(-gamma ||x - y||^2) computed in float64."""
    A, B = (Xc, Yc) if rows else (Yc, Xc)
    B64 = np.asarray(B, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for i in idx:
            d2 = ((B64 - np.asarray(A[i], dtype=np.float64)) ** 2).sum(axis=1)
            v = np.exp(-float(gamma) * np.where(np.isnan(d2), np.inf, d2))
            if rows:
                G[i, :] = v
            else:
                G[:, i] = v


class KernelSpec:
    """The kernel parameters of an estimator, resolved at ``fit`` in one place.

    Parameters
    ----------
    kernel : {'rbf', 'linear', 'poly', 'precomputed'}, callable or Kernel, default='rbf'
        The kernel's name, a callable ``f(X, Y) -> K`` or a :class:`Kernel`.
    sigma : float or 'scale', default=1.0
        RBF width; ``'scale'`` is the width equivalent to scikit-learn's ``gamma='scale'``
        computed on the *scaled* training inputs (:func:`scale_sigma`).
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors of the RBF kernel.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel; the default gives the ``(1 + x.z)^p`` of Collobert's,
        Vincent's and Chapelle's theses.

    Notes
    -----
    :meth:`fit` returns the fitted :class:`Kernel`: RBF with ``sigma`` resolved and the mean of
    the scaled training inputs stored as its ``center``.
    """

    def __init__(self, kernel="rbf", sigma=1.0, scales=None, degree=3, coef0=1.0):
        self.kernel = kernel
        self.sigma = sigma
        self.scales = scales
        self.degree = degree
        self.coef0 = coef0

    @classmethod
    def of(cls, estimator, **override):
        """The spec of an estimator's parameters (``kernel``, ``sigma``, ``scales``, ``degree``,
        ``coef0``; those it does not have take the defaults), with ``override`` applied."""
        params = {k: getattr(estimator, k) for k in ("kernel", "sigma", "scales", "degree", "coef0")
                  if hasattr(estimator, k)}
        params.update(override)
        return cls(**params)

    @property
    def is_rbf(self):
        return isinstance(self.kernel, str) and self.kernel == "rbf"

    def _scales(self, n_features=None):
        if self.scales is None or not self.is_rbf:
            return None
        s = np.asarray(self.scales, dtype=np.float64).ravel()
        if n_features is not None and s.shape[0] != n_features:
            raise ValueError(f"scales has {s.shape[0]} entries but X has {n_features} features")
        return s

    def resolve_sigma(self, X, dtype=np.float64, sample_weight=None):
        """The RBF width for training inputs ``X`` (``'scale'`` resolved on ``X * scales``,
        weighted by ``sample_weight`` when given); ``None`` for other kernels.  Raises
        ``ValueError`` naming ``sigma`` when it is not a usable width in ``dtype``
        (:func:`check_sigma`)."""
        if not self.is_rbf:
            return None
        sigma = self.sigma
        if isinstance(sigma, str):
            if sigma != "scale":
                raise ValueError(f"sigma must be a positive number or 'scale', got {sigma!r}")
            X = _as_float(X)
            s = self._scales(X.shape[1])
            sigma = scale_sigma(X if s is None else X * s, sample_weight)
            return check_sigma(sigma, dtype, name="sigma (resolved from 'scale')")
        return check_sigma(sigma, dtype)

    def fit(self, X, dtype=np.float64, sample_weight=None):
        """The fitted :class:`Kernel` for training inputs ``X`` (``X`` may be None for kernels
        that do not need it).  ``dtype``: the precision the kernel will be evaluated in (for the
        check of ``sigma``); ``sample_weight``: the rows' weights for ``sigma='scale'``."""
        if isinstance(self.kernel, Kernel):
            return self.kernel
        if not self.is_rbf:
            return make_kernel(self.kernel, degree=self.degree, coef0=self.coef0)
        X = _as_float(X)
        sigma = self.resolve_sigma(X, dtype, sample_weight)
        kern = RBF(sigma=sigma, scales=self._scales(X.shape[1]))
        if X.shape[0]:
            with np.errstate(over="ignore", invalid="ignore"):
                Xs = kern.scale(X)
                if Xs.dtype == np.float64:
                    # one BLAS product (ones' X) reads X on every core; numpy's mean on one
                    center = (np.ones(Xs.shape[0]) @ Xs) / Xs.shape[0]
                else:
                    center = Xs.mean(axis=0, dtype=np.float64)
            kern.center = np.where(np.isfinite(center), center, 0.0)
        else:
            kern.center = np.zeros(X.shape[1])
        return kern


#: Gaussian blocks in float64 skip the centred copy of their rows while the squared norm of the
#: centre is at most this many times the support vectors' mean squared distance to it
#: (:class:`KernelExpansion`).
DIRECT_OFFSET = 100.0
#: Gaussian expansions in float64 of at most this many features are evaluated from the
#: differences themselves (:meth:`KernelExpansion.dot`); the SVM solver's kernel rows switch at
#: the same number (``kernelnb.svm._smo.LOW_D_FEATURES``).
DIRECT_FEATURES = 16
#: Memory in MB of a thread's block of the BLAS product behind :meth:`KernelExpansion.dot` (at
#: most 256 rows): small enough to be read again from the processor's cache by the fused map.
FUSED_BLOCK_MB = 4.0


class KernelExpansion:
    """Block evaluation of ``f(x) = sum_j coef_j k(x, sv_j)`` for a fitted kernel.

    The support vectors are scaled, centred on the kernel's training mean (an RBF kernel without
    one is centred on the support vectors' mean) and their norms kept once; then each block of
    about ``block_mb`` MB is one BLAS product and one fused kernel pass, in ``dtype`` (float32
    for the fast path, float64 for the exact one).  A row's value never depends on the other
    rows of its batch.

    Gaussian blocks in float64 multiply the rows as they are by the centred support vectors,
    ``(x - mu).(s - mu) = x.(s - mu) - mu.(s - mu)``, and take the rows' centred norms in one
    read (:func:`kernelnb._kernels.centred_sqnorms`): no centred copy of the rows.  The product's
    rounding error then grows with ``||x||`` instead of ``||x - mu||``, so this is done only
    where ``||mu||^2`` is at most :data:`DIRECT_OFFSET` times the support vectors' mean squared
    distance to ``mu`` (the error at most about 11 times that of centred rows); further out, and
    in float32, each block's rows are centred in a copy (``centres_rows`` is then True).

    Parameters
    ----------
    kernel : Kernel
        A fitted kernel (``Linear``, ``Polynomial``, ``RBF`` or ``CallableKernel``).
    support_vectors : array-like of shape (n_sv, n_features)
        The points ``sv_j`` of the expansion.
    coef : array-like of shape (n_sv,) or (n_sv, n_outputs), default=None
        The coefficients ``coef_j``: needed by :meth:`__call__`; :meth:`blocks` gives the
        kernel blocks themselves.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        The precision of the blocks.
    block_mb : float, default=64
        Memory in MB of one block of kernel values.
    """

    def __init__(self, kernel, support_vectors, coef=None, dtype=np.float64, block_mb=64):
        if isinstance(kernel, Precomputed):
            raise ValueError("a precomputed kernel has no support vectors to expand on")
        self.kernel = kernel
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype must be float32 or float64, got {dtype!r}")
        self.block_mb = float(block_mb)
        self.centres_rows = False
        self.direct = False
        sv = _as_float(support_vectors)
        self.n_features = sv.shape[1]
        self.coef = None if coef is None else np.asarray(coef, dtype=np.float64)
        if self.coef is not None and self.coef.shape[0] != sv.shape[0]:
            raise ValueError(f"coef has {self.coef.shape[0]} rows but there are {sv.shape[0]} "
                             "support vectors")
        if isinstance(kernel, RBF):
            self.center = (kernel.center if kernel.center is not None
                           else kernel.scale(sv).mean(axis=0, dtype=np.float64) if sv.shape[0]
                           else np.zeros(sv.shape[1]))
            self.gamma = kernel.gamma
            Xc, xn = kernel.centred(sv.astype(np.float64), self.center)
            self._sv = np.ascontiguousarray(Xc, dtype=self.dtype)
            self._sv_norm = np.ascontiguousarray(xn, dtype=self.dtype)
            # float64 rows far from the centre relative to the support vectors' spread keep the
            # centred copy; the others are multiplied as they are (see ``centres_rows``)
            spread = float(np.mean(xn)) if xn.size else 0.0
            offset = float(self.center @ self.center)
            self.centres_rows = not (self.dtype == np.float64 and np.isfinite(spread)
                                     and spread > 0 and offset <= DIRECT_OFFSET * spread)
            self._center64 = np.ascontiguousarray(self.center, dtype=np.float64)
            if not self.centres_rows:
                # (x - mu).(s - mu) = x.(s - mu) - mu.(s - mu): the second term joins the norms
                self._sv_norm_shifted = self._sv_norm + 2.0 * (self._sv @ self._center64)
            # few features: the float64 expansion is evaluated from the differences themselves
            self.direct = self.dtype == np.float64 and sv.shape[1] <= DIRECT_FEATURES
            if self.direct:
                self._svT = np.ascontiguousarray(self._sv.T)
        elif isinstance(kernel, CallableKernel):
            self._sv = sv
        else:
            self._sv = np.ascontiguousarray(sv, dtype=self.dtype)

    def row_norms(self, X):
        """The squared distances of the (scaled) rows of ``X`` to the centre, which
        :meth:`blocks` takes as ``row_norms`` when the same rows meet several expansions of one
        fitted kernel; None where this expansion does not use them (``centres_rows``, or not a
        Gaussian kernel) or where its centre is its own (a kernel without a training mean
        centres each expansion on its support vectors' mean)."""
        if self.centres_rows or not isinstance(self.kernel, RBF) or self.kernel.center is None:
            return None
        return self._centred_norms(
            np.ascontiguousarray(self.kernel.scale(_as_float(X)), dtype=np.float64))

    def _centred_norms(self, Xs):
        """Squared distances of the scaled float64 rows ``Xs`` to the centre, in one read."""
        xn = np.empty(Xs.shape[0])
        _kernels.centred_sqnorms(Xs, self._center64, xn)
        return xn

    def blocks(self, X, row_norms=None):
        """Yield ``(rows, K(X[rows], support_vectors))`` block by block, in ``dtype``;
        ``row_norms``: :meth:`row_norms` of ``X`` computed before (by an expansion of the same
        kernel), or None."""
        X = _as_float(X)
        if X.shape[1] != self.n_features:
            raise ValueError(f"X has {X.shape[1]} features, the support vectors "
                             f"{self.n_features}")
        n, n_sv = X.shape[0], max(self._sv.shape[0], 1)
        step = max(1, min(n, int(self.block_mb * 2**20 / (self.dtype.itemsize * n_sv))))
        kern = self.kernel
        for s in range(0, n, step):
            rows = slice(s, s + step)
            if isinstance(kern, CallableKernel):
                yield rows, kern(X[rows], self._sv)
                continue
            if isinstance(kern, RBF):
                yield rows, rbf_block(*self._rbf_operands(
                    X[rows], None if row_norms is None else row_norms[rows]), self.gamma)
                continue
            Xb = np.asarray(X[rows], dtype=self.dtype)
            with blas_threads_for(Xb.shape[0] * self._sv.shape[0] * Xb.shape[1]):
                G = np.ascontiguousarray(Xb @ self._sv.T)
            if isinstance(kern, Polynomial):
                _kernels.poly_from_gram(G, 1.0, kern.coef0, kern.degree)
            yield rows, G

    def _rbf_operands(self, X, row_norms=None):
        """``(A, an, B, bn)`` such that the Gaussian block of the rows ``X`` is
        ``exp(-gamma max(an_i + bn_j - 2 A_i.B_j, 0))`` (:func:`rbf_block`): the rows scaled as
        they are against the centred support vectors and the shifted norms, or, where that is
        not done (``centres_rows``) or a row's norm is not finite, the rows centred in a copy."""
        kern = self.kernel
        with np.errstate(over="ignore"):
            Xb = np.asarray(X, dtype=self.dtype)
        if not self.centres_rows:
            Xs = np.ascontiguousarray(kern.scale(Xb))
            xn = (self._centred_norms(Xs) if row_norms is None
                  else np.asarray(row_norms, dtype=np.float64))
            if np.isfinite(xn).all():
                return Xs, xn, self._sv, self._sv_norm_shifted
        Xc, xn = kern.centred(Xb, self.center)
        return Xc, xn, self._sv, self._sv_norm

    def dot(self, X, coef):
        """``K(X, support_vectors) @ coef``, in float64.

        Gaussian expansions in float64 never form the kernel block: with at most
        :data:`DIRECT_FEATURES` features each row's kernel values are computed from the
        differences themselves (no matrix product, whose inner dimension would be tiny), and
        with more from each thread's blocks of the BLAS product of the rows and the support
        vectors, of about :data:`FUSED_BLOCK_MB` MB (so they are read again from the processor's
        cache); either way a short run of kernel values is combined with the coefficients as
        soon as it is computed (:func:`kernelnb._kernels.rbf_direct_dot`,
        :func:`kernelnb._kernels.rbf_gemm_dot`).  Other kernels, and float32, multiply the
        blocks of :meth:`blocks`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to evaluate.
        coef : array-like of shape (n_sv,) or (n_sv, n_outputs)
            The coefficients of the support vectors.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_outputs)
            The expansion's values, float64.
        """
        X = _as_float(X)
        if X.shape[1] != self.n_features:
            raise ValueError(f"X has {X.shape[1]} features, the support vectors "
                             f"{self.n_features}")
        coef = np.asarray(coef, dtype=np.float64)
        n_sv = self._sv.shape[0]
        if coef.ndim not in (1, 2) or coef.shape[0] != n_sv:
            raise ValueError(f"coef must have shape ({n_sv},) or ({n_sv}, n_outputs), got "
                             f"{coef.shape}")
        C = coef.reshape(n_sv, coef.shape[1] if coef.ndim == 2 else 1)
        n = X.shape[0]
        out = np.zeros((n, C.shape[1]))
        if n_sv == 0 or n == 0:
            return out.reshape((n,) + coef.shape[1:])
        kern = self.kernel
        if isinstance(kern, RBF) and self.dtype == np.float64:
            CT = np.ascontiguousarray(C.T)
            if self.direct:
                with np.errstate(over="ignore", invalid="ignore"):
                    Xs = np.ascontiguousarray(kern.scale(X), dtype=np.float64)
                _kernels.rbf_direct_dot(Xs, self._center64, self._svT, CT, self.gamma, out)
                return out.reshape((n,) + coef.shape[1:])
            A, an, B, bn = self._rbf_operands(X)
            if not (np.isfinite(an).all() and np.isfinite(bn).all()):
                for rows, Kb in self.blocks(X):
                    out[rows] = Kb @ C
                return out.reshape((n,) + coef.shape[1:])
            rows = max(16, min(256, int(FUSED_BLOCK_MB * 2**20 / (8 * n_sv))))
            nth = _kernels.threads_for(n * n_sv * X.shape[1])
            with blas_single_thread():
                _kernels.rbf_gemm_dot(A, np.ascontiguousarray(an), B, np.ascontiguousarray(bn),
                                      self.gamma, CT, out, nth, rows)
            return out.reshape((n,) + coef.shape[1:])
        Cd = C if self.dtype == np.float64 else C.astype(self.dtype)
        for rows, Kb in self.blocks(X):
            out[rows] = Kb @ Cd
        return out.reshape((n,) + coef.shape[1:])

    def positive(self, X, coef, offset):
        """Whether ``dot(X, coef) + offset > 0``, as :meth:`dot`'s float64 values say.

        Gaussian expansions of many features in float64 take it from a float32 product
        (:func:`kernelnb._kernels.rbf_gemm_dot32`, half the time of the float64 one) with a
        bound on its error: the float32 dot product of centred rows of d features is within
        ``gamma_(d+3) ||x|| ||s||`` of the exact one (``gamma_k = k u / (1 - k u)``,
        ``u = 2^-24``; Higham 2002, sec. 3.1), so a squared distance is within twice that and
        each kernel value ``k~`` within ``k~ (exp(gamma e) - 1)`` of the exact one; the sum is
        then within ``(exp(gamma e) - 1) sum_j |coef_j| k~_j`` (and a margin for the float64
        sums).  Rows whose value is not that far from 0 are evaluated again by :meth:`dot`.
        Other expansions compare :meth:`dot`'s values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to evaluate.
        coef : array-like of shape (n_sv, n_outputs)
            The coefficients of the support vectors.
        offset : array-like of shape (n_outputs,)
            Added to each output.

        Returns
        -------
        ndarray of bool, shape (n_samples, n_outputs)
            Whether each value is positive.
        """
        X = _as_float(X)
        coef = np.asarray(coef, dtype=np.float64)
        C = coef.reshape(coef.shape[0], coef.shape[1] if coef.ndim == 2 else 1)
        offset = np.broadcast_to(np.asarray(offset, dtype=np.float64), (C.shape[1],))
        n, d, n_sv = X.shape[0], X.shape[1], self._sv.shape[0]
        if not (isinstance(self.kernel, RBF) and self.dtype == np.float64 and not self.direct
                and n_sv > 0 and n > 0 and d == self.n_features and C.shape[0] == n_sv):
            return self.dot(X, C) + offset > 0
        # the rows centred straight into float32 (each difference rounded once, as a float64
        # centred copy would be) and their centred norms in one read of X: no float64 copy of
        # the rows, whose fresh pages cost more than the arithmetic on a first call
        with np.errstate(over="ignore", invalid="ignore"):
            Xs = np.ascontiguousarray(self.kernel.scale(np.asarray(X, dtype=np.float64)),
                                      dtype=np.float64)
            xn = self._centred_norms(Xs)
            Xc32 = np.empty((n, d), dtype=np.float32)
            np.subtract(Xs, self._center64, out=Xc32, casting="unsafe")
        if not (np.isfinite(xn).all() and np.isfinite(self._sv_norm).all()):
            return self.dot(X, C) + offset > 0
        if getattr(self, "_sv32", None) is None:
            self._sv32 = np.ascontiguousarray(self._sv, dtype=np.float32)
        ku = (d + 3) * 2.0 ** -24
        smax = float(np.sqrt(self._sv_norm.max()))
        # bound on the error of a squared distance, then on the expansion
        e_d2 = 2.0 * ku / (1.0 - ku) * 1.001 * np.sqrt(xn) * smax + 1e-13 * (xn + smax ** 2)
        out = np.zeros((n, C.shape[1]))
        weight = np.zeros(n)
        rows = max(16, min(256, int(FUSED_BLOCK_MB * 2**20 / (4 * n_sv))))
        with blas_single_thread():
            _kernels.rbf_gemm_dot32(
                Xc32, xn, self._sv32, self._sv_norm, self.gamma,
                np.ascontiguousarray(C.T), np.ascontiguousarray(np.abs(C).max(axis=1)), out,
                weight, _kernels.threads_for(n * n_sv * d), rows)
        bound = np.expm1(self.gamma * e_d2) * weight * (1.0 + 1e-6) + 1e-9 * weight + 1e-300
        value = out + offset
        pos = value > 0
        unsure = np.flatnonzero((np.abs(value) <= bound[:, None]).any(axis=1))
        if unsure.size:
            pos[unsure] = self.dot(X[unsure], C) + offset > 0
        return pos

    def __call__(self, X):
        """``K(X, support_vectors) @ coef`` in float64, shape (n_samples,) + coef.shape[1:]."""
        if self.coef is None:
            raise ValueError("this expansion has no coefficients")
        return self.dot(X, self.coef)


def rbf_expansion(support_vectors, coef, sigma, center=None, scales=None, dtype=np.float64):
    """Return the :class:`KernelExpansion` of a Gaussian model built from its parts.

    The model is ``f(x) = sum_j coef_j exp(-||s (x - sv_j)||^2 / (2 sigma^2))``.  Call the
    expansion on ``X`` for the values; :meth:`KernelExpansion.blocks` gives the kernel blocks.

    Parameters
    ----------
    support_vectors : array-like of shape (n_sv, n_features)
        The points ``sv_j``.
    coef : array-like of shape (n_sv,) or (n_sv, n_outputs)
        The coefficients ``coef_j``.
    sigma : float
        The Gaussian's width.
    center : array-like of shape (n_features,), default=None
        The centre of the blocks: the training mean of the scaled inputs (None: the support
        vectors' mean).
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors ``s`` (None: all ones).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        The precision the blocks are evaluated in.

    Returns
    -------
    KernelExpansion
        The expansion, callable on ``X``.
    """
    return KernelExpansion(RBF(check_sigma(sigma, dtype), scales=scales, center=center),
                           support_vectors, coef, dtype=dtype)
