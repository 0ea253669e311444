"""Invariant support vector machines (Chapelle's thesis, chapter 6; Chapelle & Schölkopf,
"Incorporating invariances in nonlinear Support Vector Machines", NIPS 14, 2001).

A known local transformation ``L_t`` (a translation of ``t`` pixels, a rotation by ``t``
radians, ...) should leave the label unchanged.  Each training point gets a *tangent vector*
``dx_i = d/dt L_t x_i`` at ``t = 0`` (thesis section 6.1), computed here by finite differences
(:func:`tangent_vectors`).  Four ways of using it:

* :class:`VirtualSVC` -- virtual support vectors (Schölkopf, Burges & Vapnik, ICANN 1996): train,
  add transformed copies of the support vectors, retrain (thesis section 6.4, "VSV").
* :class:`LinearInvariantSVC` -- the invariant hyperplane of section 6.2: minimise
  ``(1 - gamma) ||w||^2 + gamma sum_i (w . dx_i)^2`` under the SVM constraints, i.e. a plain SVM
  on ``C_gamma^{-1} x`` with ``C_gamma = ((1 - gamma) I + gamma sum_i dx_i dx_i')^{1/2}``
  (eq. 6.2).  With a nonlinear kernel it is the thesis's "LIH" (the preprocessing of Schölkopf,
  Simard, Smola & Vapnik, NIPS 1998, followed by a nonlinear SVM).
* :class:`InvariantSVC` -- the nonlinear invariant SVM of section 6.3.1 ("ISVM"): the same
  functional in feature space, through the eigendecomposition of the Gram matrix of the tangent
  vectors ``K^t`` (eqs. 6.7-6.8) and the modified kernel ``K~`` (eqs. 6.10-6.12).
* :class:`InvariantKPCASVC` -- section 6.3.2 ("IH_KPCA"): the linear invariant SVM on the kernel
  PCA map ``psi`` (thesis section 2.2, eq. 2.21), with the information ratio (6.13).

The thesis's trade-off ``gamma`` of (6.1) is the estimators' parameter ``invariance`` (in
kernelnb ``gamma`` names only the RBF coefficient ``1 / (2 sigma^2)``); the transformation
``L_t`` is the parameter ``transformation``.  The trade-off is scale free (section 6.6.1): the
functional minimised is ``(1 - gamma) ||w||^2 + gamma sum_i (w . dx_i)^2 / S`` with
``S = sum_i ||dx_i||^2``, i.e. (6.1) with ``gamma`` replaced by ``gamma / (S + gamma (1 - S))``
(:func:`scale_free_invariance`); ``invariance=0`` is the plain SVM.

The kernels' derivatives with respect to their inputs (:func:`kernel_input_derivative`,
:func:`kernel_tangent_gram`) are analytic for the linear, polynomial and RBF kernels of
:mod:`kernelnb.kernels` and by central finite differences for a callable kernel (the four-term
form 6.7).
"""
from __future__ import annotations

import numbers

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .. import kernels as _k
from .._threads import blas_threads_for
from .._fit import fit_context
from .._validation import interval, options, str_options, check_input, check_param
from ..svm import SVC
from .kpca import KernelPCAMap

__all__ = [
    "TRANSFORMATIONS",
    "transform_points",
    "tangent_vectors",
    "kernel_input_derivative",
    "kernel_tangent_gram",
    "invariant_linear_map",
    "scale_free_invariance",
    "VirtualSVC",
    "LinearInvariantSVC",
    "InvariantSVC",
    "InvariantKPCASVC",
]

#: the built-in transformations ``L_t`` (see :func:`transform_points`)
TRANSFORMATIONS = ("translate_x", "translate_y", "rotate_image", "rotate_2d")

# default finite-difference steps: one pixel for translations (the thesis's 1-pixel
# differences), small angles for rotations, and for callables
_DEFAULT_STEP = {"translate_x": 1.0, "translate_y": 1.0, "rotate_image": 1e-2,
                 "rotate_2d": 1e-4, None: 1e-4}
# step of the finite differences of a callable kernel's input derivatives
_KERNEL_FD_STEP = 1e-4


# --------------------------------------------------------------------------------------------
# Transformations and tangent vectors
# --------------------------------------------------------------------------------------------
def _image_shape(image_shape, n_features, transformation):
    if image_shape is None:
        side = int(round(np.sqrt(n_features)))
        if side * side != n_features:
            raise ValueError(f"transformation={transformation!r} needs image_shape=(height, "
                             f"width): {n_features} features is not a square image")
        return side, side
    try:
        h, w = (int(v) for v in image_shape)
    except (TypeError, ValueError):
        raise ValueError(f"image_shape must be a pair (height, width), got {image_shape!r}")
    if h < 1 or w < 1 or h * w != n_features:
        raise ValueError(f"image_shape={image_shape!r} does not match n_features={n_features} "
                         "(height * width must equal the number of features)")
    return h, w


def _warp_images(X, shape, row_of, col_of):
    """Bilinear resampling of flattened images: output pixel (r, c) takes the input at
    (row_of(r, c), col_of(r, c)); coordinates outside the image take the nearest edge pixel."""
    h, w = shape
    imgs = X.reshape(-1, h, w)
    r, c = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64),
                       indexing="ij")
    rs = np.clip(row_of(r, c), 0, h - 1)
    cs = np.clip(col_of(r, c), 0, w - 1)
    r0 = np.minimum(np.floor(rs).astype(int), h - 1)
    c0 = np.minimum(np.floor(cs).astype(int), w - 1)
    r1, c1 = np.minimum(r0 + 1, h - 1), np.minimum(c0 + 1, w - 1)
    fr, fc = rs - r0, cs - c0
    out = ((1 - fr) * (1 - fc) * imgs[:, r0, c0] + (1 - fr) * fc * imgs[:, r0, c1]
           + fr * (1 - fc) * imgs[:, r1, c0] + fr * fc * imgs[:, r1, c1])
    return out.reshape(X.shape[0], h * w)


def transform_points(X, transformation, t, image_shape=None):
    """Apply the transformation ``L_t`` to every row of ``X``.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        The points (images stored as flattened rows for the image transformations).
    transformation : str or callable
        ``'translate_x'`` (move images ``t`` pixels to the right), ``'translate_y'`` (``t``
        pixels down), ``'rotate_image'`` (rotate images by ``t`` radians, counter-clockwise,
        about their centre), all on images stored as flattened ``height x width`` arrays (row
        major) with bilinear interpolation and the edge pixels repeated outside; ``'rotate_2d'``
        (rotate the point by ``t`` radians about the origin in the plane of its first two
        coordinates: the toy of thesis section 6.6.2); or a callable ``transform(X, t)``
        returning an array of the shape of ``X``.
    t : float
        The amount of the transformation (``L_0`` is the identity).
    image_shape : (int, int), optional
        ``(height, width)`` of the images; default a square.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        The transformed points ``L_t x``.
    """
    X = np.asarray(X, dtype=np.float64)
    t = float(t)
    if callable(transformation):
        out = np.asarray(transformation(X, t), dtype=np.float64)
        if out.shape != X.shape:
            raise ValueError(f"the transformation callable returned shape {out.shape}, expected "
                             f"{X.shape}")
        return out
    if not isinstance(transformation, str) or transformation not in TRANSFORMATIONS:
        raise ValueError(f"transformation must be one of {TRANSFORMATIONS} or a callable "
                         f"transform(X, t), got {transformation!r}")
    if transformation == "rotate_2d":
        if X.shape[1] < 2:
            raise ValueError(f"transformation='rotate_2d' rotates the first two coordinates; X has "
                             f"n_features={X.shape[1]}")
        out = X.copy()
        c, s = np.cos(t), np.sin(t)
        out[:, 0] = c * X[:, 0] - s * X[:, 1]
        out[:, 1] = s * X[:, 0] + c * X[:, 1]
        return out
    shape = _image_shape(image_shape, X.shape[1], transformation)
    if transformation == "translate_x":
        return _warp_images(X, shape, lambda r, c: r, lambda r, c: c - t)
    if transformation == "translate_y":
        return _warp_images(X, shape, lambda r, c: r - t, lambda r, c: c)
    cr, cc = (shape[0] - 1) / 2.0, (shape[1] - 1) / 2.0
    cos, sin = np.cos(t), np.sin(t)
    # output pixel p takes the input at R(-t) p (rows point down: counter-clockwise on screen)
    return _warp_images(X, shape,
                        lambda r, c: cr + cos * (r - cr) + sin * (c - cc),
                        lambda r, c: cc - sin * (r - cr) + cos * (c - cc))


def _as_list(transformation):
    if isinstance(transformation, (list, tuple)):
        if len(transformation) == 0:
            raise ValueError("transformation must name at least one transformation")
        return list(transformation), True
    return [transformation], False


def _steps(names, step):
    if step is None:
        return [_DEFAULT_STEP.get(tr if isinstance(tr, str) else None, 1e-4)
                for tr in names]
    steps = np.atleast_1d(np.asarray(step, dtype=np.float64)).ravel()
    if steps.shape[0] == 1:
        steps = np.repeat(steps, len(names))
    if steps.shape[0] != len(names) or not np.all(np.isfinite(steps)) or np.any(steps == 0):
        raise ValueError(f"step must be a non-zero finite number or one per transform, got "
                         f"{step!r}")
    return [float(s) for s in steps]


def tangent_vectors(X, transformation, *, image_shape=None, step=None, method="central"):
    """Tangent vectors ``dx_i = d/dt L_t x_i`` at ``t = 0`` by finite differences.

    Thesis section 6.1.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        The points.
    transformation : str, callable, or a list of them
        A transformation of :func:`transform_points`; a list gives several invariances.
    image_shape : (int, int), optional
        For the image transformations.
    step : float or list of float, optional
        The finite-difference step ``t`` (one per transformation, or one for all).  Defaults: 1
        pixel for translations (the thesis's 1-pixel differences, section 6.6.3), 0.01 rad for
        image rotations, 1e-4 for ``'rotate_2d'`` and callables.  A negative step with
        ``method='forward'`` differentiates towards the other direction (e.g. a translation to
        the left).
    method : {'central', 'forward'}, default='central'
        ``(L_t x - L_{-t} x) / (2t)`` or ``(L_t x - x) / t``.

    Returns
    -------
    ndarray of shape (n_samples, n_features) or (n_samples, n_transformations, n_features)
        The tangent vectors; the second shape when ``transformation`` is a list.
    """
    check_param("method", method, [str_options({"central", "forward"})], "tangent_vectors")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got shape {X.shape}")
    names, many = _as_list(transformation)
    out = np.empty((X.shape[0], len(names), X.shape[1]))
    for k, (tr, h) in enumerate(zip(names, _steps(names, step))):
        plus = transform_points(X, tr, h, image_shape)
        if method == "central":
            out[:, k] = (plus - transform_points(X, tr, -h, image_shape)) / (2.0 * h)
        else:
            out[:, k] = (plus - X) / h
    return out if many else out[:, 0]


def _flatten_tangents(X, tangents):
    """(points, tangent vectors) as two (m, d) arrays: one row per tangent vector."""
    T = np.asarray(tangents, dtype=np.float64)
    n, d = X.shape
    if T.ndim == 2 and T.shape == (n, d):
        return X, T
    if T.ndim == 3 and T.shape[0] == n and T.shape[2] == d:
        k = T.shape[1]
        return np.repeat(X, k, axis=0), T.reshape(n * k, d)
    raise ValueError(f"tangents must have shape (n_samples, n_features) = {(n, d)} or "
                     f"(n_samples, n_invariances, n_features), got {T.shape}")


# --------------------------------------------------------------------------------------------
# Kernel derivatives with respect to the inputs
# --------------------------------------------------------------------------------------------
def _check_differentiable(kernel):
    if isinstance(kernel, _k.Precomputed):
        raise ValueError("kernel='precomputed' has no inputs to differentiate: the invariant "
                         "SVMs need a kernel on the inputs")


def _rbf_a(kernel, d):
    return np.ones(d) if kernel.scales is None else kernel.scales.astype(np.float64) ** 2


def kernel_input_derivative(kernel, P, V, Y):
    """Directional derivatives ``D[i, j] = v_i' dK(p_i, y_j)/dp_i`` of a kernel's first input.

    The derivative of ``K(., y_j)`` at ``p_i`` in the direction ``v_i``: the ``g`` of thesis
    eq. 6.11 and the inner terms of ``d psi`` (section 6.3.2).  Analytic for
    :class:`~kernelnb.kernels.Linear`, :class:`~kernelnb.kernels.Polynomial` and
    :class:`~kernelnb.kernels.RBF` (with its scales); central differences (step 1e-4) for any
    other kernel.

    Parameters
    ----------
    kernel : Kernel
        A fitted kernel (:meth:`kernelnb.kernels.KernelSpec.fit` or
        :func:`kernelnb.kernels.make_kernel`).
    P, V : arrays of shape (m, n_features)
        Points and directions.
    Y : array of shape (n, n_features)
        The second inputs ``y_j``.

    Returns
    -------
    ndarray of shape (m, n)
        ``D[i, j]``.
    """
    _check_differentiable(kernel)
    P = np.asarray(P, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    if isinstance(kernel, _k.Linear):
        return V @ Y.T
    if isinstance(kernel, _k.Polynomial):
        base = P @ Y.T + kernel.coef0
        return kernel.degree * base ** (kernel.degree - 1) * (V @ Y.T)
    if isinstance(kernel, _k.RBF):
        a = _rbf_a(kernel, P.shape[1])
        Av = V * a
        K = kernel(P, Y)
        proj = np.einsum("ij,ij->i", Av, P)[:, None] - Av @ Y.T   # (a v_i).(p_i - y_j)
        return -K * proj / kernel.sigma ** 2
    h = _KERNEL_FD_STEP
    Kp, Km = kernel(P + h * V, Y), kernel(P - h * V, Y)
    return (Kp - Km) / (2.0 * h)


def kernel_tangent_gram(kernel, P, V, Q=None, W=None):
    """Gram matrix of tangent vectors in feature space, ``K^t[i, j] = dPhi(p_i) . dPhi(q_j)``.

    ``K^t[i, j] = v_i' d^2 K(p_i, q_j) / dp_i dq_j w_j`` (thesis eq. 6.8): analytic for the
    linear, polynomial and RBF kernels; the four-term central difference of eq. (6.7) (step
    1e-4) for any other kernel.

    Parameters
    ----------
    kernel : Kernel
        A fitted kernel (:meth:`kernelnb.kernels.KernelSpec.fit` or
        :func:`kernelnb.kernels.make_kernel`).
    P, V : arrays of shape (m, n_features)
        Points and their tangent directions (the rows).
    Q, W : arrays of shape (k, n_features), optional
        Points and directions of the columns; default ``P, V``.

    Returns
    -------
    ndarray of shape (m, k)
        ``K^t``.
    """
    _check_differentiable(kernel)
    P = np.asarray(P, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    Q = P if Q is None else np.asarray(Q, dtype=np.float64)
    W = V if W is None else np.asarray(W, dtype=np.float64)
    if isinstance(kernel, _k.Linear):
        return V @ W.T
    if isinstance(kernel, _k.Polynomial):
        c, deg = kernel.coef0, kernel.degree
        base = P @ Q.T + c
        out = base ** (deg - 1) * (V @ W.T)
        if deg >= 2:
            out = out + (deg - 1) * base ** (deg - 2) * (V @ Q.T) * (P @ W.T)
        return deg * out
    if isinstance(kernel, _k.RBF):
        a = _rbf_a(kernel, P.shape[1])
        s2 = kernel.sigma ** 2
        Av, Aw = V * a, W * a
        K = kernel(P, Q)
        vu = np.einsum("ij,ij->i", Av, P)[:, None] - Av @ Q.T      # (a v_i).(p_i - q_j)
        wu = Aw @ P.T - np.einsum("ij,ij->i", Aw, Q)[:, None]      # (a w_j).(p_i - q_j), (n, m)
        return K * ((Av @ W.T) / s2 - vu * wu.T / s2 ** 2)
    h = _KERNEL_FD_STEP
    return (kernel(P + h * V, Q + h * W) - kernel(P + h * V, Q - h * W)
            - kernel(P - h * V, Q + h * W) + kernel(P - h * V, Q - h * W)) / (4.0 * h * h)


def _tangent_norms2(kernel, P, V):
    """``||dPhi(p_i)||^2 = K^t_ii``, the diagonal of :func:`kernel_tangent_gram` (eq. 6.8 at
    ``q = p``) without the whole matrix."""
    if isinstance(kernel, _k.Linear):
        return np.einsum("ij,ij->i", V, V)
    if isinstance(kernel, _k.Polynomial):
        deg = kernel.degree
        base = np.einsum("ij,ij->i", P, P) + kernel.coef0
        out = base ** (deg - 1) * np.einsum("ij,ij->i", V, V)
        if deg >= 2:
            out = out + (deg - 1) * base ** (deg - 2) * np.einsum("ij,ij->i", V, P) ** 2
        return deg * out
    if isinstance(kernel, _k.RBF):
        return np.einsum("ij,ij->i", V * _rbf_a(kernel, P.shape[1]), V) / kernel.sigma ** 2
    return np.array([kernel_tangent_gram(kernel, P[i:i + 1], V[i:i + 1])[0, 0]
                     for i in range(P.shape[0])])


def _feature_differences(kernel, P, Q, Y):
    """``D[i, j] = K(q_i, y_j) - K(p_i, y_j) = (Phi(q_i) - Phi(p_i)) . Phi(y_j)``: the
    feature-space differences of thesis eq. (6.11)'s first line (``q_i = p_i + dx_i``)."""
    return kernel(Q, Y) - kernel(P, Y)


def _difference_norms2(kernel, P, Q, block=256):
    """``||Phi(q_i) - Phi(p_i)||^2 = K(q_i, q_i) - 2 K(q_i, p_i) + K(p_i, p_i)``, row by row."""
    paired = np.concatenate([np.diagonal(kernel(Q[i:i + block], P[i:i + block]))
                             for i in range(0, P.shape[0], block)])
    return np.clip(kernel.diag(Q) - 2.0 * paired + kernel.diag(P), 0.0, None)


def _eigh(A):
    """Eigendecomposition of a symmetric matrix, on one BLAS thread when it is small (see
    :func:`kernelnb._threads.blas_threads_for`: on a loaded machine a second BLAS thread costs
    more than a 300 x 300 decomposition)."""
    with blas_threads_for(A.shape[0] ** 3):
        return np.linalg.eigh(A)


# --------------------------------------------------------------------------------------------
# The linear invariant map C_gamma^{-1}
# --------------------------------------------------------------------------------------------
def scale_free_invariance(invariance, S):
    """The trade-off of functional (6.1) equivalent to a scale-free one (thesis section 6.6.1).

    The scale-free functional ``(1 - g) ||w||^2 + g sum_i (w . dx_i)^2 / S`` is proportional to
    (6.1) with ``g / (S + g (1 - S))`` in place of ``g``.

    Parameters
    ----------
    invariance : float in [0, 1)
        The scale-free trade-off ``g`` (the thesis's gamma).
    S : float
        ``sum_i ||dx_i||^2``, the total squared length of the tangent vectors.

    Returns
    -------
    float
        ``g / (S + g (1 - S))``; ``g`` itself when ``S <= 0``.
    """
    g, S = float(invariance), float(S)
    if S <= 0:
        return g
    return g / (S + g * (1.0 - S))


def invariant_linear_map(tangents, invariance, *, scale_free=True):
    """The linear invariant map ``C_gamma^{-1}`` of thesis eq. (6.2).

    ``C_gamma = ((1 - gamma) I + gamma sum_i dx_i dx_i')^{1/2}`` with ``gamma`` the trade-off
    ``invariance``: a plain SVM on ``x C_gamma^{-1}`` minimises (6.1) (section 6.2).

    Parameters
    ----------
    tangents : array of shape (m, n_features) or (n_samples, n_transformations, n_features)
        The tangent vectors ``dx_i``.
    invariance : float in [0, 1)
        The trade-off between the margin (0: the identity map) and the invariance.
    scale_free : bool, default=True
        Replace ``invariance`` by :func:`scale_free_invariance` (section 6.6.1).

    Returns
    -------
    Cinv : ndarray of shape (n_features, n_features)
        ``C_gamma^{-1}``, symmetric.
    invariance : float
        The trade-off of (6.1) used (after the scale-free substitution).
    """
    check_param("invariance", invariance, [interval(numbers.Real, 0, 1, closed="left")],
                "invariant_linear_map")
    T = np.asarray(tangents, dtype=np.float64)
    T = T.reshape(-1, T.shape[-1])
    S = float(np.sum(T * T))
    g = scale_free_invariance(invariance, S) if scale_free else float(invariance)
    mu, U = _eigh(T.T @ T)
    mu = (1.0 - g) + g * np.clip(mu, 0.0, None)
    return (U / np.sqrt(mu)) @ U.T, g


# --------------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------------
def _transform_constraint():
    return [str_options(set(TRANSFORMATIONS)), callable, list, tuple]


_TRADE_OFF = [interval(numbers.Real, 0, 1, closed="left")]


class _InvariantBase(ClassifierMixin, BaseEstimator):
    """Parameters shared by the invariant classifiers: the SVM's and the transformation's."""

    _parameter_constraints = {
        "C": [interval(numbers.Real, 0, None, closed="neither"), options(numbers.Real, {np.inf})],
        "kernel": [str_options({"linear", "poly", "rbf"}), callable],
        "sigma": [interval(numbers.Real, 0, None, closed="neither"), str_options({"scale"})],
        "degree": [interval(numbers.Integral, 1, None, closed="left")],
        "coef0": [interval(numbers.Real, None, None, closed="neither")],
        "transformation": _transform_constraint(),
        "image_shape": [tuple, list, None],
        "step": [interval(numbers.Real, None, None, closed="neither"), list, tuple, None],
        "tol": [interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [interval(numbers.Integral, -1, None, closed="left")],
        "precision": [str_options({"float32", "float64"})],
    }

    def _check_X(self, X, y="no_validation", reset=True):
        poly = dict(degree=self.degree, offset=self.coef0) if self.kernel == "poly" else {}
        return check_input(self, X, y, reset=reset, dtype=np.float64, precision=self.precision,
                           **poly)

    def _svc(self, kernel=None, **extra):
        return SVC(C=self.C, kernel=self.kernel if kernel is None else kernel, sigma=self.sigma,
                   degree=self.degree, coef0=self.coef0, tol=self.tol, max_iter=self.max_iter,
                   precision=self.precision, n_jobs=1, **extra)

    def _tangents(self, X, tangents):
        """(points, tangent vectors), one row per tangent vector: the given ``tangents`` or
        those of ``transformation`` by central differences."""
        if tangents is None:
            tangents = tangent_vectors(X, self.transformation, image_shape=self.image_shape,
                                       step=self.step)
        else:
            tangents = np.asarray(tangents, dtype=np.float64)
            if not np.all(np.isfinite(tangents)):
                raise ValueError("tangents must be finite")
        return _flatten_tangents(X, tangents)

    def _fit_targets(self, y):
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.shape[0] < 2:
            raise ValueError(f"{type(self).__name__} needs at least two classes in y; got 1 "
                             f"class ({classes[0]!r})")
        self.classes_ = classes

    def decision_function(self, X):
        """Decision values of the final SVM (as :meth:`kernelnb.svm.SVC.decision_function`)."""
        check_is_fitted(self)
        return self.svc_.decision_function(self._svm_inputs(self._check_X(X, reset=False)))

    def predict(self, X):
        """Predicted labels of the final SVM."""
        check_is_fitted(self)
        return self.svc_.predict(self._svm_inputs(self._check_X(X, reset=False)))

    @property
    def n_support_(self):
        """Support vectors per class of the final SVM."""
        return self.svc_.n_support_

    @property
    def n_iter_(self):
        """Solver iterations of the final SVM, per binary problem."""
        return self.svc_.n_iter_

    def _invariance_rms(self, deriv):
        """Thesis eq. (6.14) from ``deriv`` (n_tangents, n_problems): the derivatives of the
        decision functions along the training tangent vectors."""
        return float(np.sqrt(np.mean(deriv ** 2)))


class VirtualSVC(_InvariantBase):
    """Virtual support vectors: retrain an SVM on its support vectors' transformed copies.

    "VSV" (Schölkopf, Burges & Vapnik, ICANN 1996; Chapelle's thesis section 6.4): train an
    SVM, add transformed copies ``L_t x`` of its support vectors, retrain on the training set
    plus those virtual examples.

    Parameters
    ----------
    transformation : str, callable or list, default='rotate_2d'
        The transformation(s) ``L_t`` (:func:`transform_points`, :data:`TRANSFORMATIONS`).
    image_shape : (int, int), optional
        ``(height, width)`` of the images, for image transformations.
    step : float or list of float, optional
        The amount ``t`` of the virtual examples (one per transformation); default 1 pixel for
        translations, 0.1 rad for rotations and callables.
    both_directions : bool, default=True
        Add ``L_t x`` and ``L_{-t} x``; False adds ``L_t x`` only (the "double size training
        set" of the thesis's digit experiment, section 6.6.3).
    virtual_from : {'support', 'all'}, default='support'
        Transform the first SVM's support vectors (VSV) or every training point (virtual
        examples, Niyogi et al. 1998).
    C : float, default=1.0
        Soft-margin penalty of both SVMs (``np.inf``: the hard margin).
    kernel : {'rbf', 'linear', 'poly'} or callable, default='rbf'
        The SVMs' kernel.
    sigma : float or 'scale', default=1.0
        RBF width: ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    tol : float, default=1e-3
        The SVMs' KKT tolerance.
    max_iter : int, default=-1
        Solver iterations per binary problem (-1: no limit).
    precision : {'float32', 'float64'}, default='float32'
        Kernel values the SVM solver reads.

    Attributes
    ----------
    first_svc_ : SVC
        The SVM on the training set.
    svc_ : SVC
        The SVM retrained with the virtual examples.
    n_virtual_ : int
        Virtual examples added.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_support_ : ndarray of shape (n_classes,)
        Support vectors per class of the final SVM.
    n_iter_ : ndarray of shape (n_problems,)
        Solver iterations of the final SVM, per binary problem.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.prior import VirtualSVC
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, (80, 2))
    >>> y = np.where((X ** 2).sum(axis=1) < 0.5, -1, 1)   # a rotation-invariant boundary
    >>> clf = VirtualSVC(transformation="rotate_2d", step=0.3, C=100.0,
    ...                  precision="float64").fit(X[:40], y[:40])
    >>> clf.n_virtual_ == 2 * clf.first_svc_.support_.shape[0]
    True
    >>> bool(clf.score(X[40:], y[40:]) >= 0.9)
    True
    """

    _parameter_constraints = {
        **_InvariantBase._parameter_constraints,
        "both_directions": ["boolean"],
        "virtual_from": [str_options({"support", "all"})],
    }

    def __init__(self, *, transformation="rotate_2d", image_shape=None, step=None,
                 both_directions=True, virtual_from="support", C=1.0, kernel="rbf", sigma=1.0,
                 degree=3, coef0=1.0, tol=1e-3, max_iter=-1, precision="float32"):
        self.transformation = transformation
        self.image_shape = image_shape
        self.step = step
        self.both_directions = both_directions
        self.virtual_from = virtual_from
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.precision = precision

    def _virtual_steps(self, names):
        if self.step is None:
            return [1.0 if tr in ("translate_x", "translate_y") else 0.1 for tr in names]
        return _steps(names, self.step)

    @fit_context
    def fit(self, X, y):
        """Fit the first SVM, add the virtual examples, fit again.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training points.
        y : array of shape (n_samples,)
            Their labels.

        Returns
        -------
        self : VirtualSVC
            The fitted classifier.
        """
        X, y = self._check_X(X, y)
        self._fit_targets(y)
        first = self._svc().fit(X, y)
        idx = first.support_ if self.virtual_from == "support" else np.arange(X.shape[0])
        names, _ = _as_list(self.transformation)
        Xv, yv = [X], [y]
        for tr, t in zip(names, self._virtual_steps(names)):
            for amount in ((t, -t) if self.both_directions else (t,)):
                Xv.append(transform_points(X[idx], tr, amount, self.image_shape))
                yv.append(y[idx])
        Xa, ya = np.vstack(Xv), np.concatenate(yv)
        if not np.all(np.isfinite(Xa)):
            raise ValueError("the transform produced non-finite virtual examples")
        self.first_svc_ = first
        self.svc_ = self._svc().fit(Xa, ya)
        self.n_virtual_ = int(Xa.shape[0] - X.shape[0])
        return self

    def _svm_inputs(self, X):
        return X


class LinearInvariantSVC(_InvariantBase):
    """The invariant hyperplane: a plain SVM on inputs preprocessed by ``C_gamma^{-1}``.

    Chapelle's thesis section 6.2 (Schölkopf, Simard, Smola & Vapnik, NIPS 1998): the
    preprocessing ``C_gamma^{-1}`` of eq. (6.2) (:func:`invariant_linear_map`) makes a linear
    SVM minimise ``(1 - gamma) ||w||^2 + gamma sum_i (w . dx_i)^2`` (eq. 6.1) under the SVM's
    constraints, ``gamma`` being the parameter ``invariance``.  With a nonlinear kernel this is
    the thesis's "LIH" (section 6.6): the same preprocessing followed by a nonlinear SVM, a
    hybrid without guarantee.

    Parameters
    ----------
    invariance : float in [0, 1), default=0.5
        The trade-off ``gamma`` of (6.1) between the margin (0: the plain SVM) and the
        invariance; scale free (section 6.6.1) when ``scale_free``.
    scale_free : bool, default=True
        Replace ``invariance`` by :func:`scale_free_invariance` of the tangents' total squared
        length, so that its effect does not depend on their scale.
    transformation : str, callable or list, default='rotate_2d'
        The transformation(s) whose tangent vectors :meth:`fit` computes when it is not given
        ``tangents`` (:func:`tangent_vectors`).
    image_shape : (int, int), optional
        ``(height, width)`` of the images, for image transformations.
    step : float or list of float, optional
        Finite-difference steps of :func:`tangent_vectors`.
    C : float, default=1.0
        Soft-margin penalty (``np.inf``: the hard margin).
    kernel : {'linear', 'rbf', 'poly'} or callable, default='linear'
        The SVM's kernel on the preprocessed inputs.
    sigma : float or 'scale', default=1.0
        RBF width: ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    tol : float, default=1e-3
        The SVM's KKT tolerance.
    max_iter : int, default=-1
        Solver iterations per binary problem (-1: no limit).
    precision : {'float32', 'float64'}, default='float32'
        Kernel values the SVM solver reads.

    Attributes
    ----------
    preprocessing_ : ndarray of shape (n_features, n_features)
        ``C_gamma^{-1}`` (inputs are multiplied by it on the right; it is symmetric).
    invariance_ : float
        The trade-off of (6.1) after the scale-free substitution.
    invariance_rms_ : float
        Thesis eq. (6.14), ``sqrt(mean_i (w . dPhi(x_i))^2)``: the root mean square of the
        decision function's derivatives along the training tangent vectors (for the linear
        kernel ``w . dx_i``); the thesis suggests 0.2-0.4 after training.
    svc_ : SVC
        The SVM on the preprocessed inputs.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_support_ : ndarray of shape (n_classes,)
        Support vectors per class.
    n_iter_ : ndarray of shape (n_problems,)
        Solver iterations per binary problem.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.prior import LinearInvariantSVC
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(40, 2)
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> T = np.tile([0.0, 1.0], (40, 1))           # the label ignores moves along x2
    >>> clf = LinearInvariantSVC(invariance=0.9, scale_free=False, C=10.0,
    ...                          precision="float64").fit(X, y, tangents=T)
    >>> w = clf.svc_.dual_coef_ @ clf.svc_.support_vectors_ @ clf.preprocessing_
    >>> bool(abs(w[0, 1]) < 0.1 * abs(w[0, 0]))
    True
    >>> round(clf.invariance_, 2)
    0.9
    """

    _parameter_constraints = {
        **_InvariantBase._parameter_constraints,
        "invariance": _TRADE_OFF,
        "scale_free": ["boolean"],
    }

    def __init__(self, *, invariance=0.5, scale_free=True, transformation="rotate_2d",
                 image_shape=None, step=None, C=1.0, kernel="linear", sigma=1.0, degree=3,
                 coef0=1.0, tol=1e-3, max_iter=-1, precision="float32"):
        self.invariance = invariance
        self.scale_free = scale_free
        self.transformation = transformation
        self.image_shape = image_shape
        self.step = step
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.precision = precision

    @fit_context
    def fit(self, X, y, *, tangents=None):
        """Fit on ``X`` with tangent vectors ``tangents``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training points.
        y : array of shape (n_samples,)
            Their labels.
        tangents : array of shape (n_samples, n_features) or (n_samples, k, n_features), optional
            The tangent vectors (k per point); default those of ``transformation``.

        Returns
        -------
        self : LinearInvariantSVC
            The fitted classifier.
        """
        X, y = self._check_X(X, y)
        self._fit_targets(y)
        P, V = self._tangents(X, tangents)
        self.preprocessing_, self.invariance_ = invariant_linear_map(
            V, self.invariance, scale_free=self.scale_free)
        Z = X @ self.preprocessing_
        self.svc_ = self._svc().fit(Z, y)
        deriv = _decision_derivative(self.svc_, P @ self.preprocessing_,
                                     V @ self.preprocessing_)
        self.invariance_rms_ = self._invariance_rms(deriv)
        return self

    def _svm_inputs(self, X):
        return X @ self.preprocessing_


def _pair_coefficients(svc):
    """The signed dual coefficients ``y_i alpha_i`` of a fitted SVC as (n_SV, n_problems), one
    column per binary problem in the order of its one-vs-one decision values (pairs ``(a, b)``,
    ``a < b``), from the public ``dual_coef_`` in LIBSVM's layout (support vectors grouped by
    class, ``n_support_`` of each): ``decision_function`` (``'ovo'``) is
    ``K(X, support_vectors_) @ coef + intercept_``."""
    n_cls = svc.classes_.shape[0]
    dual = np.asarray(svc.dual_coef_, dtype=np.float64)
    if n_cls == 2:
        return dual.T
    sv_class = np.repeat(np.arange(n_cls), svc.n_support_)
    pairs = [(a, b) for a in range(n_cls) for b in range(a + 1, n_cls)]
    out = np.zeros((sv_class.shape[0], len(pairs)))
    for p, (a, b) in enumerate(pairs):
        in_a, in_b = sv_class == a, sv_class == b
        out[in_a, p] = dual[b - 1, in_a]
        out[in_b, p] = dual[a, in_b]
    return out


def _decision_derivative(svc, P, V):
    """Derivatives of a fitted SVC's pair decision functions at ``P`` along ``V``:
    (m, n_problems)."""
    D = kernel_input_derivative(svc.kernel_, P, V, svc.support_vectors_)
    return D @ _pair_coefficients(svc)


class _TangentKernelSVC(_InvariantBase):
    """Invariant SVMs trained on a precomputed kernel built from the tangent vectors."""

    _parameter_constraints = {
        **_InvariantBase._parameter_constraints,
        "invariance": _TRADE_OFF,
        "scale_free": ["boolean"],
        "feature_tangents": [str_options({"derivative", "difference"})],
    }

    @fit_context
    def fit(self, X, y, *, tangents=None):
        """Fit on ``X`` with tangent vectors ``tangents``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training points.
        y : array of shape (n_samples,)
            Their labels.
        tangents : array of shape (n_samples, n_features) or (n_samples, k, n_features), optional
            The tangent vectors (k per point); default those of ``transformation``.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        X, y = self._check_X(X, y)
        self._fit_targets(y)
        P, V = self._tangents(X, tangents)
        # small products and decompositions on one BLAS thread (kernelnb._threads)
        with blas_threads_for(P.shape[0] * X.shape[0] * max(P.shape[0], X.shape[0])):
            return self._fit_tangents(X, y, P, V)

    def _base_kernel(self, X):
        return _k.KernelSpec(kernel=self.kernel, sigma=self.sigma, degree=self.degree,
                             coef0=self.coef0).fit(X)

    def _feature_tangent_products(self, P, V, Y):
        """``dPhi(p_i) . Phi(y_j)``: the derivative along ``v_i`` (eq. 6.11, second line) or the
        difference ``Phi(p_i + v_i) - Phi(p_i)`` (first line), per ``feature_tangents``."""
        if self.feature_tangents == "difference":
            return _feature_differences(self.kernel_, P, P + V, Y)
        return kernel_input_derivative(self.kernel_, P, V, Y)

    def _fit_precomputed(self, Kmat, y):
        self.svc_ = self._svc(kernel="precomputed").fit(Kmat, y)

    def decision_function(self, X):
        """Decision values of the final SVM (as :meth:`kernelnb.svm.SVC.decision_function`)."""
        check_is_fitted(self)
        return self.svc_.decision_function(self._test_kernel(self._check_X(X, reset=False)))

    def predict(self, X):
        """Predicted labels of the final SVM."""
        check_is_fitted(self)
        return self.svc_.predict(self._test_kernel(self._check_X(X, reset=False)))

    def _test_kernel(self, X):
        """The precomputed test kernel the inner SVC reads: only its support columns are used,
        so only those are computed."""
        sv = self.svc_.support_
        out = np.zeros((X.shape[0], self.n_train_))
        with blas_threads_for(X.shape[0] * self.n_train_ * X.shape[1]):
            out[:, sv] = self._kernel_to(X, sv)
        return out


class InvariantSVC(_TangentKernelSVC):
    """The nonlinear invariant SVM ("ISVM"): functional (6.1) in the kernel's feature space.

    Chapelle's thesis section 6.3.1 (Chapelle & Schölkopf, NIPS 2001).  With the tangent Gram
    matrix ``K^t_ij = dx_i' d^2K(x_i, x_j)/dx_i dx_j dx_j`` (eq. 6.8) decomposed as
    ``U Lambda U'`` and ``g_p(x) = sum_i U_ip dx_i' dK(x_i, x)/dx_i`` (eq. 6.11), the SVM is
    trained on the kernel (eq. 6.12 and the last equation of section 6.3.1)::

        K~(x, y) = K(x, y)/(1 - gamma)
                   + sum_p (1/lambda_p) (1/(gamma lambda_p + 1 - gamma) - 1/(1 - gamma))
                     g_p(x) g_p(y)

    with ``gamma`` the parameter ``invariance``, evaluated here in the equivalent form without
    cancellation, ``(K(x, y) - sum_p gamma g_p(x) g_p(y) / (1 - gamma + gamma lambda_p)) /
    (1 - gamma)``, so that no eigenvalue has to be dropped.  Its cost grows with the number of
    tangent vectors (``n_samples * n_transformations``); :class:`InvariantKPCASVC` scales better
    with several transformations.

    Parameters
    ----------
    invariance : float in [0, 1), default=0.5
        The trade-off ``gamma`` between margin and invariance (0: the plain SVM); scale free
        (section 6.6.1, ``S = trace K^t = sum_i ||dPhi(x_i)||^2``) when ``scale_free``.
    scale_free : bool, default=True
        Replace ``invariance`` by :func:`scale_free_invariance` of ``S``.
    transformation : str, callable or list, default='rotate_2d'
        The transformation(s) whose tangent vectors :meth:`fit` computes when it is not given
        ``tangents`` (:func:`tangent_vectors`).
    image_shape : (int, int), optional
        ``(height, width)`` of the images, for image transformations.
    step : float or list of float, optional
        Finite-difference steps of :func:`tangent_vectors`.
    feature_tangents : {'derivative', 'difference'}, default='derivative'
        The tangent vectors in feature space: ``dPhi(x_i) = J_Phi(x_i) dx_i``, the derivative
        of eq. (6.8) and of the second line of eq. (6.11), or ``Phi(x_i + dx_i) - Phi(x_i)``,
        the finite difference of eq. (6.7) and of the first line of eq. (6.11).  They agree
        for small ``dx_i``; for a 1-pixel translation and a polynomial kernel they do not (the
        thesis writes both and does not say which its digit experiment used).
    C : float, default=1.0
        Soft-margin penalty (``np.inf``: the hard margin).
    kernel : {'rbf', 'linear', 'poly'} or callable, default='rbf'
        The base kernel ``K`` (a callable's input derivatives are taken by finite
        differences).
    sigma : float or 'scale', default=1.0
        RBF width: ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    tol : float, default=1e-3
        The SVM's KKT tolerance.
    max_iter : int, default=-1
        Solver iterations per binary problem (-1: no limit).
    precision : {'float32', 'float64'}, default='float32'
        Kernel values the SVM solver reads.

    Attributes
    ----------
    invariance_ : float
        The trade-off of (6.1) used (after the scale-free substitution).
    tangent_eigenvalues_ : ndarray of shape (n_tangents,)
        ``Lambda``, the eigenvalues of ``K^t`` (eq. 6.7-6.8), decreasing.
    invariance_rms_ : float
        Eq. (6.14), ``sqrt(mean_i (w . dPhi(x_i))^2)`` (0.2-0.4 is the thesis's rule of thumb).
    kernel_ : Kernel
        The base kernel.
    svc_ : SVC
        The SVM on the precomputed ``K~``.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_support_ : ndarray of shape (n_classes,)
        Support vectors per class.
    n_iter_ : ndarray of shape (n_problems,)
        Solver iterations per binary problem.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.prior import InvariantSVC
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, (80, 2))
    >>> y = np.where((X ** 2).sum(axis=1) < 0.5, -1, 1)   # a rotation-invariant boundary
    >>> clf = InvariantSVC(invariance=0.9, transformation="rotate_2d", C=100.0,
    ...                    precision="float64").fit(X[:40], y[:40])
    >>> bool(0 < clf.invariance_ < 0.9)                   # the scale-free substitution
    True
    >>> bool(clf.score(X[40:], y[40:]) >= 0.9)
    True
    """

    def __init__(self, *, invariance=0.5, scale_free=True, transformation="rotate_2d",
                 image_shape=None, step=None, feature_tangents="derivative", C=1.0, kernel="rbf",
                 sigma=1.0, degree=3, coef0=1.0, tol=1e-3, max_iter=-1, precision="float32"):
        self.invariance = invariance
        self.scale_free = scale_free
        self.feature_tangents = feature_tangents
        self.transformation = transformation
        self.image_shape = image_shape
        self.step = step
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.precision = precision

    def _fit_tangents(self, X, y, P, V):
        kern = self.kernel_ = self._base_kernel(X)
        if self.feature_tangents == "difference":
            Q = P + V                                      # the transformed points L_t x_i
            KQP = kern(Q, P)
            Kt = kern(Q) - KQP - KQP.T + kern(P)                             # eq. (6.7)
        else:
            Kt = kernel_tangent_gram(kern, P, V)                             # eq. (6.8)
        Kt = (Kt + Kt.T) / 2.0
        g = (scale_free_invariance(self.invariance, np.trace(Kt)) if self.scale_free
             else float(self.invariance))
        lam, U = _eigh(Kt)
        lam, U = np.clip(lam[::-1], 0.0, None), U[:, ::-1]
        w = g / (1.0 - g + g * lam)                        # the eigen-weights of the correction
        G = self._feature_tangent_products(P, V, X)        # (m, n): g before the rotation by U
        UG = U.T @ G
        Kmat = (kern(X) - UG.T @ (w[:, None] * UG)) / (1.0 - g)
        Kmat = (Kmat + Kmat.T) / 2.0
        self.invariance_, self.tangent_eigenvalues_ = g, lam
        self.n_train_ = X.shape[0]
        self._fit_precomputed(Kmat, y)
        sv = self.svc_.support_
        self._X_sv = X[sv]
        self._P, self._V = P, V
        self._H = U @ (w[:, None] * UG[:, sv])             # (m, n_sv)
        # (6.14): T'w = (gamma K^t + (1 - gamma) I)^{-1} G a, per binary problem
        a = _pair_coefficients(self.svc_)                  # (n_sv, n_problems)
        deriv = U @ ((U.T @ (G[:, sv] @ a)) / (1.0 - g + g * lam)[:, None])
        self.invariance_rms_ = self._invariance_rms(deriv)
        return self

    def _kernel_to(self, X, sv):
        D = self._feature_tangent_products(self._P, self._V, X)     # (m, n_test)
        return (self.kernel_(X, self._X_sv) - D.T @ self._H) / (1.0 - self.invariance_)


class InvariantKPCASVC(_TangentKernelSVC):
    """Invariant hyperplane in kernel PCA coordinates ("IH_KPCA").

    Chapelle's thesis section 6.3.2 (Chapelle & Schölkopf, NIPS 2001): the linear invariant SVM
    of section 6.2 on the kernel PCA map ``psi`` (:class:`kernelnb.prior.KernelPCAMap`, thesis
    section 2.2, eq. 2.21), with the tangent vectors ``dpsi(x_i) = J_psi(x_i) dx_i``, i.e.
    ``dpsi(x_i)_p = (dx_i' / sqrt(lambda_p)) sum_j U_jp dK(x_i, x_j)/dx_i`` (centred, as the
    map is).  The projection of ``dPhi(x_i)`` onto the span of the map's basis loses
    information, measured by the ratio (6.13) ``||dpsi(x_i)|| / ||dPhi(x_i)|| <= 1``.

    Parameters
    ----------
    invariance : float in [0, 1), default=0.5
        The trade-off ``gamma`` of (6.1), as in :class:`LinearInvariantSVC`, applied in the
        coordinates ``psi``.
    scale_free : bool, default=True
        Replace ``invariance`` by :func:`scale_free_invariance` of
        ``S = sum_i ||dpsi(x_i)||^2``.
    transformation : str, callable or list, default='rotate_2d'
        The transformation(s) whose tangent vectors :meth:`fit` computes when it is not given
        ``tangents`` (:func:`tangent_vectors`).
    image_shape : (int, int), optional
        ``(height, width)`` of the images, for image transformations.
    step : float or list of float, optional
        Finite-difference steps of :func:`tangent_vectors`.
    feature_tangents : {'derivative', 'difference'}, default='derivative'
        ``dpsi(x_i) = J_psi(x_i) dx_i`` (the thesis's expression of section 6.3.2) or its
        definition there, the difference ``psi(x_i + dx_i) - psi(x_i)``; the ratio (6.13)
        then divides by ``||Phi(x_i + dx_i) - Phi(x_i)||`` (see :class:`InvariantSVC`).
    n_components : int or None, default=None
        Components of the kernel PCA map (:class:`kernelnb.prior.KernelPCAMap`).
    method : {'exact', 'subset', 'cholesky'}, default='exact'
        The map's method; ``'subset'`` with ``n_components = m`` is the speed-up of thesis
        section 6.5 (the map of ``m`` random training points).
    random_state : int, RandomState instance or None, default=None
        The random subset of ``method='subset'``.
    C : float, default=1.0
        Soft-margin penalty (``np.inf``: the hard margin).
    kernel : {'rbf', 'linear', 'poly'} or callable, default='rbf'
        The kernel of the map.
    sigma : float or 'scale', default=1.0
        RBF width: ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    tol : float, default=1e-3
        The SVM's KKT tolerance.
    max_iter : int, default=-1
        Solver iterations per binary problem (-1: no limit).
    precision : {'float32', 'float64'}, default='float32'
        Kernel values the SVM solver reads.

    Attributes
    ----------
    invariance_ : float
        The trade-off of (6.1) used (after the scale-free substitution).
    information_ratio_ : float
        Mean over the tangent vectors of ``||dpsi(x_i)|| / ||dPhi(x_i)||`` (eq. 6.13).
    information_ratios_ : ndarray of shape (n_tangents,)
        The ratio of each tangent vector.
    invariance_rms_ : float
        Eq. (6.14) with the tangents ``dpsi`` (what the linear SVM on ``psi`` controls).
    kpca_ : KernelPCAMap
        The fitted map.
    preprocessing_ : ndarray of shape (k, k)
        ``C_gamma^{-1}`` in the coordinates ``psi`` (``k = kpca_.n_components_``).
    kernel_ : Kernel
        The kernel of the map.
    svc_ : SVC
        The linear SVM (trained on the precomputed Gram matrix of ``psi C_gamma^{-1}``).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_support_ : ndarray of shape (n_classes,)
        Support vectors per class.
    n_iter_ : ndarray of shape (n_problems,)
        Solver iterations per binary problem.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.prior import InvariantKPCASVC
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, (80, 2))
    >>> y = np.where((X ** 2).sum(axis=1) < 0.5, -1, 1)   # a rotation-invariant boundary
    >>> clf = InvariantKPCASVC(invariance=0.9, transformation="rotate_2d", C=100.0,
    ...                        precision="float64").fit(X[:40], y[:40])
    >>> bool(0 < clf.information_ratio_ <= 1)
    True
    >>> bool(clf.score(X[40:], y[40:]) >= 0.9)
    True
    """

    _parameter_constraints = {
        **_TangentKernelSVC._parameter_constraints,
        "n_components": [interval(numbers.Integral, 1, None, closed="left"), None],
        "method": [str_options({"exact", "subset", "cholesky"})],
        "random_state": ["random_state"],
    }

    def __init__(self, *, invariance=0.5, scale_free=True, transformation="rotate_2d",
                 image_shape=None, step=None, feature_tangents="derivative", n_components=None,
                 method="exact", random_state=None, C=1.0, kernel="rbf", sigma=1.0, degree=3,
                 coef0=1.0, tol=1e-3, max_iter=-1, precision="float32"):
        self.invariance = invariance
        self.scale_free = scale_free
        self.feature_tangents = feature_tangents
        self.transformation = transformation
        self.image_shape = image_shape
        self.step = step
        self.n_components = n_components
        self.method = method
        self.random_state = random_state
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.precision = precision

    def _check_params_extra(self):
        # the map's own rule (KernelPCAMap fits inside fit): said before any work is done
        if self.method != "exact" and self.n_components is None:
            raise ValueError(f"n_components must be set (an int >= 1) for method="
                             f"{self.method!r}, got None")

    def _fit_tangents(self, X, y, P, V):
        kpca = KernelPCAMap(n_components=self.n_components, method=self.method,
                            kernel=self.kernel, sigma=self.sigma, degree=self.degree,
                            coef0=self.coef0, random_state=self.random_state)
        Psi = kpca.fit_transform(X)
        kern = self.kernel_ = kpca.kernel_
        self.kpca_ = kpca
        # d psi = J_psi dx: psi(x) = k_B(x) A - offset, k_B(x) minus its mean for the exact map
        # (or d psi = psi(x + dx) - psi(x), the same affine map of the kernel differences)
        D = self._feature_tangent_products(P, V, kpca.basis_points_)
        if self.method == "exact":
            D -= D.mean(axis=1, keepdims=True)
        dPsi = D @ kpca.projection_
        dphi2 = (_difference_norms2(kern, P, P + V) if self.feature_tangents == "difference"
                 else _tangent_norms2(kern, P, V))
        norm_psi = np.sqrt(np.einsum("ij,ij->i", dPsi, dPsi))
        ratios = np.ones(P.shape[0])
        pos = dphi2 > 0
        ratios[pos] = norm_psi[pos] / np.sqrt(dphi2[pos])
        self.information_ratios_ = ratios
        self.information_ratio_ = float(np.mean(ratios))
        Cinv, self.invariance_ = invariant_linear_map(dPsi, self.invariance,
                                                      scale_free=self.scale_free)
        self.preprocessing_ = Cinv
        Z = Psi @ Cinv
        self.n_train_ = X.shape[0]
        self._fit_precomputed(Z @ Z.T, y)
        self._Z_sv = Z[self.svc_.support_]
        # (6.14) in psi coordinates: w = C^{-1} w~, so w . dpsi_i = w~ . (C^{-1} dpsi_i)
        w_tilde = self._Z_sv.T @ _pair_coefficients(self.svc_)   # (n_components, n_problems)
        self.invariance_rms_ = self._invariance_rms((dPsi @ Cinv) @ w_tilde)
        return self

    def _kernel_to(self, X, sv):
        return (self.kpca_.transform(X) @ self.preprocessing_) @ self._Z_sv.T
