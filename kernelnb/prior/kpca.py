"""The kernel PCA map ``psi(x) = Lambda^{-1/2} U' k(x)``, exact and low-rank.

Chapelle's thesis (O. Chapelle, *Support Vector Machines: Induction Principles, Adaptive Tuning
and Prior Knowledge*, PhD thesis, Universite Paris 6, 2002), section 2.2, after Schoelkopf,
Smola and Mueller (1998): the training points span a subspace E of the feature space of
dimension at most n; the coordinates of a point along the principal axes of the training set in
feature space are

    psi(x) = Lambda^{-1/2} U' k(x)          (equation 2.21)

where ``K = U Lambda U'`` is the eigendecomposition of the (centred) Gram matrix and
``k(x) = (k(x, x_1), ..., k(x, x_n))``.  Dot products of training points are kept,
``psi(x_i) . psi(x_j) = K(x_i, x_j)`` (2.16), so a non-linear SVM on x *is* a linear SVM on
psi(x): any algorithm that cannot be kernelised can be run on psi instead (the invariant SVMs of
chapter 6 do so).  The thesis writes the map as ``K^{-1/2} k(x)``; that vector is
``U psi(x)``, the same point in a rotated basis (same dot products).  :class:`KernelPCAMap`
returns the principal-axis coordinates, ordered by decreasing eigenvalue, so that the first
``k`` columns are the top-``k`` kernel PCA map.

Low-rank maps (section 2.2.1, Fig. 2.4), ``O(k^2 n)`` instead of ``O(n^3)``:

* ``'subset'``: the map of a random subset of ``k`` training points (Williams and Seeger, 2001):
  coordinates of the projection of Phi(x) on the span of the subset, ``K_mm^{-1/2} k_m(x)``;
* ``'cholesky'``: a pivoted incomplete Cholesky factorisation ``K ~ V V'`` of rank ``k`` (Fine and
  Scheinberg, 2001), the rows of ``V`` being the coordinates of the projection on the span of
  the pivots, ``L^{-1} k_p(x)`` with ``L`` the Cholesky factor of the pivots' Gram matrix.

Both are then centred on the mean of the mapped training points and rotated by an SVD onto
their principal axes, which gives approximate eigenvalues and the same ordering as the exact
map.  With ``k = n`` both are the exact map.

Centring (end of section 2.2): the exact map uses
``K - row means - column means + grand mean`` at fit, and a test point's ``k(x)`` is centred
with the *training* column means and grand mean and its own mean, which is the feature-space
point ``Phi(x) - (1/n) sum_i Phi(x_i)``.
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import solve_triangular
from .._estimator import BaseEstimator
from sklearn.base import TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .. import _kernels
from .. import kernels as _k
from .._linalg import top_eigh
from .._fit import fit_context
from .._threads import blas_single_thread, blas_threads_for
from .._validation import POSITIVE, POSITIVE_INT, interval, str_options, check_input

__all__ = ["KernelPCAMap"]

METHODS = ("exact", "subset", "cholesky")
#: Kernel columns the incomplete Cholesky factorisation computes in one pass over the inputs,
#: and the pool (in batches) its look-ahead picks them from.
CHOLESKY_BATCH = 16
LOOKAHEAD = 4


def _kept(w, tol, scale=None):
    """Number of leading values of the decreasing ``w`` above ``tol`` times ``scale`` (default
    the largest): the near-zero eigenvalues that are dropped instead of inverted."""
    top = (w[0] if w.size else 0.0) if scale is None else scale
    if not top > 0:
        return 0
    return int(np.count_nonzero(w > tol * top))


def _likely_pivots(kernel, X, V, j, d, i, floor, batch):
    """The next ``batch`` pivots as the greedy rule would take them if the search were limited
    to a pool of ``LOOKAHEAD`` x batch points of largest residual diagonal (``i``, the next
    pivot, first): the incomplete Cholesky run on the pool's own residual kernel
    ``K_pool - V_pool V_pool'``, which costs a pool x pool kernel block.  Near points take each
    other's residual away; the plain top-``batch`` residuals held many such points that were
    never chosen."""
    pool = np.flatnonzero(d > floor)
    pool = pool[pool != i]
    size = LOOKAHEAD * batch - 1
    if pool.shape[0] > size:
        pool = pool[np.argpartition(-d[pool], size - 1)[:size]]
    pool = np.concatenate(([i], pool))
    R = np.asarray(kernel(X[pool]), dtype=np.float64)
    if j:
        R = R - V[pool, :j] @ V[pool, :j].T
    r = d[pool].copy()
    L = np.zeros((pool.shape[0], batch))
    chosen = []
    for t in range(min(batch, pool.shape[0])):
        q = int(np.argmax(r))
        if not r[q] > floor:
            break
        chosen.append(q)
        L[:, t] = (R[:, q] - L[:, :t] @ L[q, :t]) / np.sqrt(r[q])
        r -= L[:, t] ** 2
        r[q] = -np.inf
    return pool[chosen]


def _pivoted_cholesky(kernel, X, k, tol, batch=CHOLESKY_BATCH):
    """Pivoted incomplete Cholesky factorisation ``K ~ V V'`` of rank at most ``k``.

    Greedy pivots (the largest residual diagonal, Fine and Scheinberg 2001); stops early when
    the largest residual falls below ``tol`` times the largest diagonal entry of ``K``.  A pivot
    needs its kernel column ``K(X, x_i)``, and one column is a pass over the whole of ``X`` that
    does two operations per number read; so the columns are made ``batch`` at a time, in one
    BLAS product against the likely next pivots (:func:`_likely_pivots`), with the pivots
    chosen so far taken out of all of them in one product.  They are used while the next pivot
    is among them; when it is not, the next batch replaces them.  The pivots and ``V`` are those
    of the one-column-at-a-time algorithm: only the order in which kernel columns are computed
    changes (Fashion-MNIST, n = 4000, k = 100: 10 passes over X instead of 100).
    ``O(k n d + k^2 n)`` time, ``O(k n)`` memory beyond the inputs.  Returns ``V`` (n, r) and
    the pivots (r,)."""
    n = X.shape[0]
    d = np.asarray(kernel.diag(X), dtype=np.float64).copy()
    floor = tol * (d.max() if d.size else 0.0)
    V = np.zeros((n, k))
    piv = []
    cols, j0, xn = {}, 0, None                  # the batch: point -> column of C; made at j0
    for j in range(k):
        i = int(np.argmax(d))
        if not d[i] > floor or d[i] <= 0:
            break
        if i not in cols:
            free = _likely_pivots(kernel, X, V, j, d, i, floor, min(batch, k - j))
            expansion = _k.KernelExpansion(kernel, X[free])
            if xn is None:
                xn = expansion.row_norms(X)     # the rows' norms, once for every batch
            C = np.empty((n, free.shape[0]))
            for rows, Kb in expansion.blocks(X, row_norms=xn):
                C[rows] = Kb
            if j:
                # the pivots so far, taken out of the whole batch in one product
                with blas_threads_for(n * j * free.shape[0]):
                    C -= V[:, :j] @ V[free, :j].T
            cols, j0 = {int(c): t for t, c in enumerate(free)}, j
        col = C[:, cols.pop(i)]
        if j > j0:
            with blas_single_thread():
                col = col - V[:, j0:j] @ V[i, j0:j]
        else:
            col = col.copy()
        col /= np.sqrt(d[i])                    # contiguous: V's column is strided
        V[:, j] = col
        d -= col * col
        d[i] = 0.0
        np.maximum(d, 0.0, out=d)
        piv.append(i)
    r = len(piv)
    return (V if r == k else np.ascontiguousarray(V[:, :r])), np.asarray(piv, dtype=np.intp)


def _times_in_place(Z, M):
    """``Z @ M`` written over ``Z`` (n x p, ``M`` p x r with r <= p) a chunk of rows at a time,
    so that no second n x r array is held; returns the first r columns, contiguous (a view when
    r = p)."""
    p, r = M.shape
    step = max(1, 2**16 // max(p, 1))
    for s in range(0, Z.shape[0], step):
        Z[s:s + step, :r] = Z[s:s + step] @ M
    return np.ascontiguousarray(Z[:, :r])


class KernelPCAMap(TransformerMixin, BaseEstimator):
    """The empirical kernel PCA map ``psi(x) = Lambda^{-1/2} U' k(x)``, centred in feature space.

    Chapelle's thesis, section 2.2, equation (2.21): the coordinates of ``Phi(x)`` minus the
    training mean along the principal axes of the training set in feature space.  A linear
    method on ``psi(X)`` equals the kernel method on ``X``: ``psi(x_i) . psi(x_j)`` is the
    centred kernel ``K(x_i, x_j) - (1/n) sum_l K(x_i, x_l) - (1/n) sum_l K(x_l, x_j) + (1/n^2)
    sum_lm K(x_l, x_m)`` (2.16), and an SVM with a bias does not see the centring (its
    ``sum_i alpha_i y_i = 0``), so a linear SVM on psi has the decision values of the kernel
    SVM.  Low-rank maps of section 2.2.1 (random subset, incomplete Cholesky then SVD) cost
    ``O(k^2 n)``.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of components ``k``.  ``None`` (``method='exact'`` only): every eigenvalue above
        ``tol`` times the largest.  For ``'subset'`` it is the number of random basis points,
        for ``'cholesky'`` the maximal rank.  Values above the number of training points are
        clipped to it.  Components whose eigenvalue is at most ``tol`` times the largest are
        dropped (never inverted), so ``n_components_`` may be smaller.
    method : {'exact', 'subset', 'cholesky'}, default='exact'
        ``'exact'``: eigendecomposition of the centred Gram matrix (``O(n^3)``; the top ``k``
        eigenpairs only when ``n_components`` is set).  ``'subset'``: the kernel PCA map of
        ``n_components`` random training points (Williams and Seeger, 2001).  ``'cholesky'``:
        pivoted incomplete Cholesky factorisation ``K ~ V V'`` (Fine and Scheinberg, 2001), then
        the principal axes of the centred ``V`` (its SVD, computed from the eigendecomposition of
        the k x k matrix ``V'V``).
    kernel : {'rbf', 'linear', 'poly'} or callable, default='rbf'
        The kernel, as :class:`kernelnb.kernels.KernelSpec` (and :class:`kernelnb.svm.SVC`).
    sigma : float or 'scale', default=1.0
        RBF width: ``k(x, y) = exp(-||s (x - y)||^2 / (2 sigma^2))``; ``'scale'``: the width
        equivalent to scikit-learn's ``gamma='scale'``.
    scales : array of shape (n_features,), optional
        Per-feature scaling factors ``s`` of the RBF kernel.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    tol : float in [0, 1), default=1e-10
        Relative tolerance: eigenvalues (and Cholesky residuals) at most ``tol`` times the
        largest are treated as zero.
    random_state : int, RandomState instance or None, default=None
        The random subset of ``method='subset'`` (subsets of increasing size drawn with the same
        seed are nested).

    Attributes
    ----------
    n_components_ : int
        Number of output coordinates (the ``n_components`` of the shapes below).
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the centred Gram matrix along the kept axes, decreasing (for the low-rank
        maps those of its approximation ``psi(X) psi(X)'``).  Not divided by n: scikit-learn's
        ``KernelPCA.eigenvalues_`` convention.
    basis_indices_ : ndarray of shape (n_basis,)
        Indices, in the training set, of the points the map is expanded on: every point
        (``'exact'``), the random subset, or the Cholesky pivots in their order of selection.
    basis_points_ : ndarray of shape (n_basis, n_features)
        Those points.
    projection_ : ndarray of shape (n_basis, n_components)
        ``psi(x) = k_B(x) @ projection_ - offset_`` (for ``'exact'``, ``k_B(x)`` minus its mean).
    offset_ : ndarray of shape (n_components,)
    kernel_ : kernelnb.kernels.Kernel
        The fitted kernel.
    sigma_ : float or None
        The RBF width used (``'scale'`` resolved).
    n_features_in_ : int
        Number of input features.
    fit_time_ : float
        Seconds spent in ``fit``.

    See Also
    --------
    sklearn.decomposition.KernelPCA : Its ``transform`` is ``psi`` (same centring, same
        ``Lambda^{-1/2}`` scaling), up to the sign of each eigenvector.

    References
    ----------
    O. Chapelle, PhD thesis (2002), section 2.2 (equations 2.16-2.21), section 2.2.1 and
    Fig. 2.4.  B. Schoelkopf, A. Smola, K.-R. Mueller, "Nonlinear component analysis as a kernel
    eigenvalue problem", Neural Computation 10, 1998.  S. Fine, K. Scheinberg, "Efficient SVM
    training using low-rank kernel representations", JMLR 2, 2001.  C. Williams, M. Seeger,
    "Using the Nystroem method to speed up kernel machines", NIPS 13, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.prior import KernelPCAMap
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> psi = KernelPCAMap(sigma=2.0).fit(X)
    >>> Z = psi.transform(X)
    >>> Kc = psi.centred_kernel(X)
    >>> bool(np.allclose(Z @ Z.T, Kc))
    True
    """

    _parameter_constraints = {
        "n_components": [interval(numbers.Integral, 1, None, closed="left"), None],
        "method": [str_options(set(METHODS))],
        "kernel": [str_options({"linear", "poly", "rbf"}), callable],
        "sigma": [*POSITIVE, str_options({"scale"})],
        "scales": ["array-like", None],
        "degree": POSITIVE_INT,
        "coef0": [interval(numbers.Real, None, None, closed="neither")],
        "tol": [interval(numbers.Real, 0, 1, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, n_components=None, method="exact", kernel="rbf", sigma=1.0,
                 scales=None, degree=3, coef0=1.0, tol=1e-10, random_state=None):
        self.n_components = n_components
        self.method = method
        self.kernel = kernel
        self.sigma = sigma
        self.scales = scales
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.random_state = random_state

    # -- input -------------------------------------------------------------------------------
    def _check_input(self, X, reset):
        scales = self.scales if self.kernel == "rbf" else None
        poly = dict(degree=self.degree, offset=self.coef0) if self.kernel == "poly" else {}
        return check_input(self, X, reset=reset, dtype=np.float64, order="C", scale=scales,
                           **poly)

    def _map_blocks(self, X, W, centre_rows=False):
        """``K(X, basis points) @ W`` (``W=None``: the kernel block itself) in float64, the
        kernel evaluated (:class:`KernelExpansion`) in chunks of at least 256 rows and about
        0.5 MB (4 MB for the exact map; kernel block, and the centred copy of the inputs where
        the expansion makes one), so that memory beyond the result does not grow with the
        number of rows; ``centre_rows``: each kernel row minus its mean first."""
        n, m = X.shape[0], self._expansion_rows
        d = self._expansion.n_features if self._expansion.centres_rows else 0
        out = np.empty((n, m if W is None else W.shape[1]))
        # the exact map's kernel rows are long (m = n): bigger blocks keep its products efficient
        step = max(256, int((2**22 if centre_rows else 2**19) // (8 * max(d + m, 1))))
        for s in range(0, n, step):
            for rows, Kb in self._expansion.blocks(X[s:s + step]):
                if centre_rows:
                    Kb -= Kb.mean(axis=1, keepdims=True)
                part = out[s + rows.start:s + rows.start + Kb.shape[0]]
                if W is None:
                    part[...] = Kb
                    continue
                with blas_threads_for(Kb.shape[0] * m * W.shape[1]):
                    np.matmul(Kb, W, out=part)
        return out

    # -- fit ---------------------------------------------------------------------------------
    def _check_params_extra(self):
        if self.method != "exact" and self.n_components is None:
            raise ValueError(f"n_components must be set (an int >= 1) for method="
                             f"{self.method!r}, got None")

    @fit_context
    def fit(self, X, y=None):
        """Compute the map on the training inputs.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training inputs.
        y : None
            Ignored.

        Returns
        -------
        self : KernelPCAMap
            The fitted map.
        """
        self._fit(X)
        return self

    @fit_context
    def fit_transform(self, X, y=None, **fit_params):
        """Fit, then ``psi(X)`` from the quantities of the fit (no second kernel evaluation).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training inputs.
        y : None
            Ignored.
        **fit_params : dict
            Ignored (scikit-learn's signature).

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
            ``psi(X)``.
        """
        return self._fit(X)

    def _fit(self, X):
        X = self._check_input(X, reset=True)
        n = X.shape[0]
        if n < 2:
            raise ValueError(f"KernelPCAMap needs at least 2 samples, got {n} sample: the "
                             "centred Gram matrix of 1 sample is zero")
        k = n if self.n_components is None else min(int(self.n_components), n)
        tol = float(self.tol)
        self.kernel_ = _k.KernelSpec.of(self).fit(X)
        self.sigma_ = getattr(self.kernel_, "sigma", None)
        if self.method == "exact":
            Z = self._fit_exact(X, k, tol)
        else:
            Z = self._fit_low_rank(X, k, tol)
        self.n_components_ = int(self.eigenvalues_.shape[0])
        return Z

    def _set_basis(self, X, idx=None):
        """The points the map expands on: ``X[idx]``, or the training set itself (``idx=None``,
        the exact map), kept by reference as scikit-learn's ``KernelPCA`` keeps ``X_fit_``; the
        expansion holds its own prepared copy."""
        if idx is None:
            self.basis_indices_ = np.arange(X.shape[0])
            self.basis_points_ = X
        else:
            self.basis_indices_ = np.asarray(idx, dtype=np.intp)
            self.basis_points_ = X[self.basis_indices_]
        self._expansion = _k.KernelExpansion(self.kernel_, self.basis_points_)
        self._expansion_rows = self.basis_points_.shape[0]

    def _fit_exact(self, X, k, tol):
        # K is symmetric and ours: centred in one pass, then overwritten by the eigensolver
        K = np.ascontiguousarray(self._own_gram(X))
        col = K.mean(axis=0)
        grand = float(col.mean())
        _kernels.centre_gram(K, col, grand)
        w, U = top_eigh(K, k)
        # the relative tolerance refers to the largest eigenvalue of the whole spectrum, which
        # is the first one returned either way
        r = _kept(w, tol)
        w, U = w[:r], U[:, :r]
        root = np.sqrt(w)
        self.eigenvalues_ = w
        del K                                   # the n x n matrix before the expansion's copy
        self._set_basis(X)
        self.projection_ = U / root
        self.offset_ = (col - grand) @ self.projection_
        self._centre_rows = True
        return U * root

    def _fit_low_rank(self, X, k, tol):
        n = X.shape[0]
        if self.method == "subset":
            idx = check_random_state(self.random_state).permutation(n)[:k]
            self._set_basis(X, idx)
            # K(X, subset) first: its rows at the subset are K_mm, which needs no evaluation of
            # its own, and the map K(X, subset) W overwrites it a chunk of rows at a time
            Z = self._map_blocks(X, None)
            Kmm = Z[idx]
            Kmm += Kmm.T
            Kmm *= 0.5
            w, U = top_eigh(Kmm, k)
            r = _kept(w, tol)
            W = U[:, :r] / np.sqrt(w[:r])            # K_mm^{-1/2}, range of K_mm
            with blas_threads_for(n * k * r):
                Z = _times_in_place(Z, W)
        else:
            Z, idx = _pivoted_cholesky(self.kernel_, X, k, tol)
            self._set_basis(X, idx)
            # the rows of V are L^{-1} k_p(x) with L = V[pivots] lower triangular
            with blas_threads_for(len(idx) ** 3):
                W = solve_triangular(Z[idx], np.eye(idx.shape[0]), lower=True,
                                     check_finite=False).T
        mean = Z.mean(axis=0)
        Z -= mean
        # principal axes of the centred projections (the thesis's "SVD" of V): the eigenvectors
        # B of Z'Z (r x r), psi = Z B, eigenvalues those of Z Z' = psi psi'
        r0 = Z.shape[1]
        with blas_threads_for(n * r0 * r0):
            G = Z.T @ Z
            w, B = top_eigh(G, r0)
            r = _kept(w, tol)
            B = B[:, :r]
            Z = _times_in_place(Z, B)
        self.eigenvalues_ = w[:r]
        self.projection_ = W @ B
        self.offset_ = mean @ B
        self._centre_rows = False
        return Z

    def _own_gram(self, X):
        """``K(X, X)`` in float64, an array this object may overwrite (a user's callable may
        return an array it keeps)."""
        K = np.asarray(self.kernel_(X), dtype=np.float64)
        return K.copy() if isinstance(self.kernel_, _k.CallableKernel) else K

    # -- transform ---------------------------------------------------------------------------
    def transform(self, X):
        """``psi(X)``: shape (n_samples, ``n_components_``)."""
        check_is_fitted(self)
        X = self._check_input(X, reset=False)
        Z = self._map_blocks(X, self.projection_, centre_rows=self._centre_rows)
        Z -= self.offset_
        return Z

    def centred_kernel(self, X, Y=None):
        """The kernel centred on the training mean in feature space, ``K~(x, y) = (Phi(x) - m)
        . (Phi(y) - m)`` with ``m = (1/n) sum_i Phi(x_i)`` (end of the thesis's section 2.2).

        Computed directly from kernel blocks against the training points (not from the map):
        the reference that ``psi(x) . psi(y)`` equals for the exact map.  ``Y=None``: ``Y = X``.
        Needs the training points, i.e. ``method='exact'`` (whose basis is the training set)."""
        check_is_fitted(self)
        if self.method != "exact":
            raise ValueError(f"centred_kernel needs method='exact' (the map keeps only the basis "
                             f"points otherwise), got method={self.method!r}")
        X = self._check_input(X, reset=False)
        Y = X if Y is None else self._check_input(Y, reset=False)
        T = self.basis_points_
        kx = np.asarray(self.kernel_(X, T), dtype=np.float64).mean(axis=1)
        ky = kx if Y is X else np.asarray(self.kernel_(Y, T), dtype=np.float64).mean(axis=1)
        grand = float(np.asarray(self.kernel_(T), dtype=np.float64).mean())
        K = np.asarray(self.kernel_(X, Y), dtype=np.float64)
        return K - kx[:, None] - ky[None, :] + grand

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
