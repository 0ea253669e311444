"""Kernels built from unlabeled points: the cluster kernel, the random-walk kernel and the
marginalized kernel (Chapelle's thesis, section 7.4 and 7.5.1).

O. Chapelle, *Support Vector Machines: Induction Principles, Adaptive Tuning and Prior
Knowledge*, PhD thesis, Universite Paris 6, 2002, chapter 7; O. Chapelle, J. Weston and
B. Schoelkopf, "Cluster kernels for semi-supervised learning", NIPS 15, 2003.

All three are *feature maps*: each transformer, fitted on the labeled and unlabeled points
together, returns coordinates ``Z`` whose dot products are the new kernel, ``K~ = Z Z'``.  A
non-linear kernel learned from unlabeled points is then a *linear* SVM on ``Z``
(:class:`ClusterKernelSVC`), which is the one way these kernels are used with
:class:`kernelnb.svm.SVC` in kernelnb; the span estimate of
:mod:`kernelnb.model_selection` applies unchanged to that linear SVM (it is how the cut-off
``r`` is chosen, :func:`cutoff_span_curve`).  :meth:`ClusterKernel.kernel` gives the matrix
itself (for ``SVC(kernel='precomputed')`` or a look at it).

Cluster kernel (section 7.4.4)
------------------------------
1. ``K`` the RBF matrix of labeled and unlabeled points (unit diagonal), ``D = diag(K 1)``;
2. ``L = D^{-1/2} K D^{-1/2} = U Lambda U'``;
3. ``L~ = U phi(Lambda) U'`` for a transfer function ``phi`` (eigenvalues in decreasing order
   ``1 = lambda_1 >= lambda_2 >= ...``):

   * ``'linear'``: ``phi(lambda) = lambda``, so ``K~ = K`` and nothing changes;
   * ``'step'``: 1 for the ``r`` largest, 0 beyond: the spectral-clustering representation of
     Ng, Jordan and Weiss (2001), section 7.4.3;
   * ``'linear-step'``: ``lambda`` for the ``r`` largest, 0 beyond (close to kernel PCA);
   * ``'polynomial'``: ``lambda^t``, so ``L~ = L^t``, a normalised, symmetrised ``t``-step
     random walk ``(D^{-1} K)^t``;
   * ``'poly-step'`` (7.11): ``lambda^p`` for ``i <= r``, ``lambda^q`` for ``i > r``; the thesis
     uses ``p = 1/2, q = 2`` with ``r = n + 10`` (n labeled points).

4. ``D~_ii = 1 / L~_ii`` and ``K~ = D~^{1/2} L~ D~^{1/2}`` (unit diagonal again).

With ``Z = D~^{1/2} U phi(Lambda)^{1/2}``, ``K~ = Z Z'``.  The eigenvalues of ``L`` lie in
``[0, 1]`` (``K`` is positive semi-definite, and ``L``'s spectral radius is 1); rounding below
zero is clipped to 0.

**Test points** (end of 7.4.4): ``Phi(x)`` is approximated by its projection on the span of the
fitted points, ``alpha0 = K^{-1} v`` with ``v_i = K(x, x_i)``, and ``K~(x, x_i) = (K~ K^{-1} v)_i``,
i.e. the coordinates ``z(x) = Z' K^{-1} v``.  ``K`` is invertible in exact arithmetic but its
smallest eigenvalues are tiny, so the solve is regularised: ``(K + ridge I)^{-1} v`` (``ridge``
relative to the unit diagonal; a Cholesky factorisation at fit).  At a fitted point ``x_j``,
``v = K e_j`` and ``z(x_j) = Z_j`` up to that regularisation.

**Partial eigensolvers.**  Transfer functions that vanish beyond ``r`` (``'step'``,
``'linear-step'``) need only the ``r`` leading eigenpairs; ``n_components`` truncates the others
(``'poly-step'``'s tail ``lambda^q`` is small).  ``k`` leading pairs are computed by
``kernelnb._linalg.top_eigh``: Lanczos (ARPACK on symmetric matrix-vector products) when
``n >= 1000`` and ``k <= n / 10``, LAPACK's MRRR driver restricted to the top ``k`` otherwise, and
divide and conquer for the whole spectrum.

Random-walk kernel (section 7.4.1)
----------------------------------
Szummer and Jaakkola (2001): ``P = D^{-1} K`` is the transition matrix of a random walk on the
points, ``P^t`` after ``t`` steps.  ``P^t`` is not symmetric; of the symmetrisations the thesis
lists (``D P^t``, ``P^t + (P^t)'``, ``P^t (P^t)'``), :class:`RandomWalkKernel` takes the last:
the ``i``-th row of ``P^t`` is the representation of ``x_i`` and the kernel is their dot product,
positive semi-definite by construction.  A new point starts with one step
``p(x)_i = K(x, x_i) / sum_j K(x, x_j)`` and walks ``t - 1`` more: ``z(x) = p(x) P^{t-1}``
(exactly the row of ``P^t`` at a fitted point).  The cluster kernel's ``'polynomial'`` transfer
is the thesis's "properly justified" version of the same walk.

Marginalized kernel (section 7.5.1, equation 7.13)
--------------------------------------------------
Tsuda et al. (2002): with a Gaussian mixture ``(pi_k, mu_k, Sigma_k)`` fitted by EM on the
labeled and unlabeled points, ``K(x, y) = sum_k P(k|x) P(k|y) x' Sigma_k^{-1} y``.  Its feature
map is ``z(x) = (P(k|x) C_k' x)_k`` with ``C_k C_k' = Sigma_k^{-1}`` (scikit-learn's
``GaussianMixture`` and its ``precisions_cholesky_``).
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg as sla
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from .. import kernels as _k
from .._fit import fit_context
from .._linalg import top_eigh
from .._threads import blas_threads_for
from .._validation import POSITIVE, has_methods, interval, str_options, check_input, check_param

__all__ = ["ClusterKernel", "RandomWalkKernel", "MarginalizedKernel", "ClusterKernelSVC",
           "transfer_function", "cutoff_span_curve", "TRANSFER_FUNCTIONS"]

#: The transfer functions of section 7.4.4.
TRANSFER_FUNCTIONS = ("linear", "step", "linear-step", "polynomial", "poly-step")
_STEP_LIKE = ("step", "linear-step")

_EXPONENT = [interval(numbers.Real, 0, None, closed="neither")]


def transfer_function(eigenvalues, transfer="poly-step", r=10, p=0.5, q=2.0, t=5):
    """``phi`` applied to eigenvalues sorted in decreasing order (thesis 7.4.4 and 7.11).

    Parameters
    ----------
    eigenvalues : array of shape (k,)
        The eigenvalues ``lambda_1 >= lambda_2 >= ...`` of ``L = D^{-1/2} K D^{-1/2}`` (values
        below 0 are treated as 0).
    transfer : {'linear', 'step', 'linear-step', 'polynomial', 'poly-step'}
        See :class:`ClusterKernel`.
    r : int >= 1
        The cut-off index (``'step'``, ``'linear-step'``, ``'poly-step'``): the ``r`` largest
        eigenvalues are on the first branch.
    p, q : float > 0
        ``'poly-step'``: ``lambda^p`` for ``i <= r``, ``lambda^q`` beyond.
    t : float > 0
        ``'polynomial'``: ``lambda^t``.

    Returns
    -------
    ndarray of shape (k,)
        ``phi(lambda_i)`` (non-negative).
    """
    check_param("transfer", transfer, [str_options(set(TRANSFER_FUNCTIONS))], "transfer_function")
    check_param("r", r, [interval(numbers.Integral, 1, None, closed="left")], "transfer_function")
    for name, val in (("p", p), ("q", q), ("t", t)):
        check_param(name, val, _EXPONENT, "transfer_function")
    lam = np.clip(np.asarray(eigenvalues, dtype=np.float64), 0.0, None)
    head = np.arange(lam.shape[0]) < r
    if transfer == "linear":
        return lam.copy()
    if transfer == "step":
        return head.astype(np.float64)
    if transfer == "linear-step":
        return np.where(head, lam, 0.0)
    if transfer == "polynomial":
        return lam ** float(t)
    return np.where(head, lam ** float(p), lam ** float(q))


class _EmbeddingKernel:
    """Shared by the kernels given by an embedding of the fitted points (``_fit`` sets
    ``embedding_``, ``transform`` maps new points): ``fit``, ``fit_transform`` and the kernel
    ``z(X) z(Y)'``."""

    def kernel(self, X=None, Y=None):
        """The new kernel ``K~(X, Y) = z(X) z(Y)'``.

        Parameters
        ----------
        X : array of shape (n_x, n_features) or None, default=None
            The points of the rows; None: the fitted points (their exact rows ``embedding_``).
        Y : array of shape (n_y, n_features) or None, default=None
            The points of the columns; None: ``Y = X``.

        Returns
        -------
        ndarray of shape (n_x, n_y)
            The kernel matrix.
        """
        ZX = self.embedding_ if X is None else self.transform(X)
        ZY = ZX if Y is None else self.transform(Y)
        return ZX @ ZY.T

    @fit_context
    def fit(self, X, y=None):
        """Fit on all the points, labeled and unlabeled together.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labeled and unlabeled points.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The fitted map.
        """
        self._fit(X)
        return self

    @fit_context
    def fit_transform(self, X, y=None, **fit_params):
        """Fit, and return the exact coordinates of the fitted points (``embedding_``).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labeled and unlabeled points.
        y : None
            Ignored.
        **fit_params : dict
            Ignored (scikit-learn's signature).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            ``embedding_``.
        """
        self._fit(X)
        return self.embedding_.copy()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags


class _RBFGraph(_EmbeddingKernel):
    """Shared by the cluster and random-walk kernels: the RBF matrix of the fitted points (the
    package's one kernel specification, :class:`kernelnb.kernels.KernelSpec`) and its degrees."""

    def _fit_graph(self, X):
        X = check_input(self, X, reset=True, dtype=np.float64, order="C")
        self.kernel_ = _k.KernelSpec(kernel="rbf", sigma=self.sigma).fit(X)
        self.sigma_ = float(self.kernel_.sigma)
        K = np.asarray(self.kernel_(X), dtype=np.float64)
        K = 0.5 * (K + K.T)
        self.X_fit_ = X
        self.degrees_ = K.sum(axis=1)
        return X, K

    def _kernel_rows(self, X):
        check_is_fitted(self, "X_fit_")
        X = check_input(self, X, reset=False, dtype=np.float64, order="C")
        return np.asarray(self.kernel_(X, self.X_fit_), dtype=np.float64)


class ClusterKernel(_RBFGraph, TransformerMixin, BaseEstimator):
    """The cluster kernel of Chapelle's thesis, section 7.4.4, as a feature map.

    Fitted on the labeled and unlabeled points together, it returns coordinates ``Z`` with
    ``Z Z' = K~ = D~^{1/2} U phi(Lambda) U' D~^{1/2}`` (see the module's description); new
    points get ``z(x) = Z' (K + ridge I)^{-1} v``, ``v_i = K(x, x_i)``, the thesis's
    ``K~(x, x_i) = (K~ K^{-1} v)_i``.

    Parameters
    ----------
    sigma : float or 'scale', default=1.0
        Width of the RBF kernel ``exp(-||x - y||^2 / (2 sigma^2))`` (``'scale'``: scikit-learn's
        ``gamma='scale'``, resolved on the fitted points).
    transfer : {'linear', 'step', 'linear-step', 'polynomial', 'poly-step'}, default='poly-step'
        The transfer function ``phi`` (:func:`transfer_function`).
    r : int >= 1, default=10
        Cut-off index of ``'step'``, ``'linear-step'`` and ``'poly-step'`` (clipped to the
        number of points).
    p, q : float > 0, default=0.5, 2.0
        Exponents of ``'poly-step'`` (7.11).
    t : float > 0, default=5
        Exponent of ``'polynomial'`` (the number of random-walk steps).
    n_components : int >= 1 or None, default=None
        Compute only this many leading eigenpairs (the rest of ``phi`` is taken as 0).  None:
        ``r`` for ``'step'`` and ``'linear-step'`` (exact), the whole spectrum otherwise.
    ridge : float > 0, default=1e-8
        Regulariser of the test-point solve ``(K + ridge I)^{-1} v``.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (k,)
        The ``k`` leading eigenvalues of ``L``, decreasing (``lambda_1 = 1``).
    eigenvectors_ : ndarray of shape (n, k)
    transferred_ : ndarray of shape (k,)
        ``phi(eigenvalues_)``.
    embedding_ : ndarray of shape (n, k)
        ``Z``, the coordinates of the fitted points: ``K~ = Z Z'``.
    degrees_ : ndarray of shape (n,)
        The row sums ``D_ii`` of ``K``.
    sigma_ : float
        The RBF width used.
    n_components_ : int
        Eigenpairs kept (the columns of ``embedding_``).
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import ClusterKernel
    >>> X = np.random.RandomState(0).randn(30, 2)
    >>> ck = ClusterKernel(sigma=1.0, transfer="linear").fit(X)
    >>> bool(np.allclose(ck.kernel(), ck.kernel_(X)))   # linear transfer: K~ = K
    True
    """

    _parameter_constraints = {
        "sigma": [*POSITIVE, str_options({"scale"})],
        "transfer": [str_options(set(TRANSFER_FUNCTIONS))],
        "r": [interval(numbers.Integral, 1, None, closed="left")],
        "p": _EXPONENT,
        "q": _EXPONENT,
        "t": _EXPONENT,
        "n_components": [interval(numbers.Integral, 1, None, closed="left"), None],
        "ridge": POSITIVE,
    }

    def __init__(self, *, sigma=1.0, transfer="poly-step", r=10, p=0.5, q=2.0, t=5,
                 n_components=None, ridge=1e-8):
        self.sigma = sigma
        self.transfer = transfer
        self.r = r
        self.p = p
        self.q = q
        self.t = t
        self.n_components = n_components
        self.ridge = ridge

    def _n_eigen(self, n):
        if self.n_components is not None:
            return min(int(self.n_components), n)
        return min(int(self.r), n) if self.transfer in _STEP_LIKE else n

    def _fit(self, X):
        X, K = self._fit_graph(X)
        n = X.shape[0]
        s = 1.0 / np.sqrt(self.degrees_)
        L = K * s[:, None] * s[None, :]      # top_eigh reads it in place (no Fortran copy)
        w, U = top_eigh(L, self._n_eigen(n))
        del L
        self.eigenvalues_ = np.clip(w, 0.0, None)
        self.eigenvectors_ = U
        # the factor of the test-point solve, kept for with_cutoff
        K[np.diag_indices(n)] += float(self.ridge)
        with blas_threads_for(n ** 3):
            self._chol = sla.cho_factor(K, lower=True, overwrite_a=True, check_finite=False)
        self._set_features()
        return self

    def _set_features(self):
        phi = transfer_function(self.eigenvalues_, self.transfer, r=int(self.r), p=self.p,
                                q=self.q, t=self.t)
        self.transferred_ = phi
        Z0 = self.eigenvectors_ * np.sqrt(phi)[None, :]
        Ldiag = np.einsum("ij,ij->i", Z0, Z0)
        tiny = np.finfo(np.float64).tiny
        # D~_ii = 1 / L~_ii; a point with L~_ii = 0 (no weight on the kept eigenvectors) keeps
        # a zero row
        dt = np.where(Ldiag > tiny, 1.0 / np.sqrt(np.maximum(Ldiag, tiny)), 0.0)
        self.embedding_ = Z0 * dt[:, None]
        self.extension_ = sla.cho_solve(self._chol, self.embedding_, check_finite=False)
        self.n_components_ = int(phi.shape[0])

    def with_cutoff(self, r):
        """A copy of this fitted kernel with another cut-off ``r``.

        The copy shares the eigendecomposition: nothing is recomputed but the transfer function
        and the coordinates.

        Parameters
        ----------
        r : int >= 1
            The new cut-off; it must not exceed the number of eigenpairs computed when the
            transfer function vanishes beyond ``r``.

        Returns
        -------
        ClusterKernel
            The fitted copy.
        """
        check_is_fitted(self, "embedding_")
        check_param("r", r, [interval(numbers.Integral, 1, None, closed="left")],
                    "ClusterKernel.with_cutoff")
        k = self.eigenvalues_.shape[0]
        if self.transfer in _STEP_LIKE and r > k and k < self.X_fit_.shape[0]:
            raise ValueError(f"r={r} exceeds the {k} eigenpairs computed at fit: fit with "
                             f"n_components >= {r}")
        other = clone(self).set_params(r=int(r))
        for name in ("kernel_", "sigma_", "X_fit_", "degrees_", "eigenvalues_", "eigenvectors_",
                     "_chol", "n_features_in_"):
            setattr(other, name, getattr(self, name))
        other._set_features()
        return other

    def transform(self, X):
        """Coordinates ``z(x) = Z' (K + ridge I)^{-1} v`` of new points (``v_i = K(x, x_i)``).

        ``z(x) . Z_i`` is the thesis's ``K~(x, x_i) = (K~ K^{-1} v)_i``.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n, n_components_)
            Their coordinates.
        """
        V = self._kernel_rows(X)
        with blas_threads_for(V.shape[0] * V.shape[1] * self.extension_.shape[1]):
            return V @ self.extension_


class RandomWalkKernel(_RBFGraph, TransformerMixin, BaseEstimator):
    """The ``t``-step random-walk representation of Szummer and Jaakkola (2001), thesis 7.4.1.

    ``P = D^{-1} K`` (RBF ``K`` on the labeled and unlabeled points); the representation of
    ``x_i`` is the ``i``-th row of ``P^t`` and the kernel ``P^t (P^t)'`` (the thesis's third
    symmetrisation: positive semi-definite, a linear kernel on the rows).  A new point:
    ``z(x) = p(x) P^{t-1}`` with ``p(x)_i = K(x, x_i) / sum_j K(x, x_j)``.

    Parameters
    ----------
    sigma : float or 'scale', default=1.0
        RBF width.
    t : int >= 1, default=5
        Number of steps.

    Attributes
    ----------
    embedding_ : ndarray of shape (n, n)
        ``P^t``.
    degrees_ : ndarray of shape (n,)
        The row sums ``D_ii`` of ``K``.
    sigma_ : float
        The RBF width used.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import RandomWalkKernel
    >>> X = np.random.RandomState(0).randn(30, 2)
    >>> walk = RandomWalkKernel(sigma=1.0, t=3).fit(X)
    >>> np.allclose(walk.embedding_.sum(axis=1), 1.0)      # rows of P^t: probabilities
    True
    >>> np.allclose(walk.transform(X), walk.embedding_)    # a fitted point walks as its row
    True
    """

    _parameter_constraints = {
        "sigma": [*POSITIVE, str_options({"scale"})],
        "t": [interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(self, *, sigma=1.0, t=5):
        self.sigma = sigma
        self.t = t

    def _fit(self, X):
        X, K = self._fit_graph(X)
        P = K / self.degrees_[:, None]
        with blas_threads_for(X.shape[0] ** 3 * int(self.t)):
            self.extension_ = np.linalg.matrix_power(P, int(self.t) - 1)
            self.embedding_ = P @ self.extension_
        return self

    def transform(self, X):
        """``z(x) = p(x) P^{t-1}``: the ``t``-step transition probabilities from ``x``.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n, n_fitted)
            Their transition probabilities to the fitted points.
        """
        V = self._kernel_rows(X)
        s = V.sum(axis=1, keepdims=True)
        # a point far from all fitted ones (every K(x, x_i) underflows) has no walk: zero row
        V = np.divide(V, s, out=np.zeros_like(V), where=s > 0)
        return V @ self.extension_


class MarginalizedKernel(TransformerMixin, BaseEstimator):
    """The marginalized kernel (7.13), ``K(x, y) = sum_k P(k|x) P(k|y) x' Sigma_k^{-1} y``.

    Tsuda, Kin and Asai (2002), as used in Chapelle's thesis, section 7.5.1 (Fig. 7.7): the
    Gaussian mixture is fitted by EM (scikit-learn's ``GaussianMixture``) on the labeled and
    unlabeled points; the coordinates are ``z(x) = (P(k|x) C_k' x)_{k=1..q}`` with
    ``C_k C_k' = Sigma_k^{-1}``, so that ``z(x) . z(y) = K(x, y)``.

    Parameters
    ----------
    n_components : int >= 1, default=2
        Number of mixture components ``q``.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}, default='full'
        The mixture's covariances (scikit-learn's ``GaussianMixture``).
    reg_covar : float >= 0, default=1e-6
        Added to the covariances' diagonals.
    max_iter : int >= 1, default=100
        EM iterations.
    n_init : int >= 1, default=1
        EM runs from different starts; the best is kept.
    random_state : int, RandomState instance or None, default=None
        The starts of EM.

    Attributes
    ----------
    mixture_ : sklearn.mixture.GaussianMixture
        The fitted mixture.
    embedding_ : ndarray of shape (n, q * n_features)
        The coordinates of the fitted points.
    n_iter_ : int
        EM iterations of the best initialisation.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import MarginalizedKernel
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(20, 2) - 3, rng.randn(20, 2) + 3])
    >>> mk = MarginalizedKernel(n_components=2, random_state=0).fit(X)
    >>> mk.embedding_.shape
    (40, 4)
    >>> K = mk.kernel()
    >>> bool(np.allclose(K, K.T)) and bool(np.all(np.linalg.eigvalsh(K) > -1e-9))
    True
    """

    _parameter_constraints = {
        "n_components": [interval(numbers.Integral, 1, None, closed="left")],
        "covariance_type": [str_options({"full", "tied", "diag", "spherical"})],
        "reg_covar": [interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [interval(numbers.Integral, 1, None, closed="left")],
        "n_init": [interval(numbers.Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, n_components=2, covariance_type="full", reg_covar=1e-6, max_iter=100,
                 n_init=1, random_state=None):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state

    @fit_context
    def fit(self, X, y=None):
        """Fit the mixture by EM on all the points, labeled and unlabeled.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labeled and unlabeled points.
        y : None
            Ignored.

        Returns
        -------
        self : MarginalizedKernel
            The fitted map.
        """
        from sklearn.mixture import GaussianMixture

        X = check_input(self, X, reset=True, dtype=np.float64)
        self.mixture_ = GaussianMixture(
            n_components=self.n_components, covariance_type=self.covariance_type,
            reg_covar=self.reg_covar, max_iter=self.max_iter, n_init=self.n_init,
            random_state=self.random_state).fit(X)
        self.n_iter_ = int(self.mixture_.n_iter_)
        self.embedding_ = self._map(X)
        return self

    def _precision_factors(self):
        gm = self.mixture_
        pc = gm.precisions_cholesky_
        q, d = gm.means_.shape
        if self.covariance_type == "full":
            return pc
        if self.covariance_type == "tied":
            return np.broadcast_to(pc, (q, d, d))
        if self.covariance_type == "diag":
            return np.stack([np.diag(pc[k]) for k in range(q)])
        return np.stack([pc[k] * np.eye(d) for k in range(q)])

    def _map(self, X):
        post = self.mixture_.predict_proba(X)
        C = self._precision_factors()
        return np.hstack([post[:, k:k + 1] * (X @ C[k]) for k in range(C.shape[0])])

    def transform(self, X):
        """``z(x) = (P(k|x) C_k' x)_k``.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n, q * n_features)
            Their coordinates.
        """
        check_is_fitted(self, "mixture_")
        X = check_input(self, X, reset=False, dtype=np.float64)
        return self._map(X)

    def kernel(self, X=None, Y=None):
        """The marginalized kernel ``K(X, Y) = z(X) z(Y)'``.

        Parameters
        ----------
        X : array of shape (n_x, n_features) or None, default=None
            The points of the rows; None: the fitted points.
        Y : array of shape (n_y, n_features) or None, default=None
            The points of the columns; None: ``Y = X``.

        Returns
        -------
        ndarray of shape (n_x, n_y)
            The kernel matrix.
        """
        ZX = self.embedding_ if X is None else self.transform(X)
        ZY = ZX if Y is None else self.transform(Y)
        return ZX @ ZY.T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags


# ------------------------------------------------------------------------------------------
# The classifier
# ------------------------------------------------------------------------------------------
def _svc(C, margin, class_weight, tol):
    from ..svm import SVC
    return SVC(C=C, kernel="linear", margin=margin, class_weight=class_weight, tol=tol,
               precision="float64")


def _fit_embedding(embedding, X, X_unlabeled):
    """Fit ``embedding`` on ``X`` (labeled, first) stacked on ``X_unlabeled``; the labeled
    points' exact coordinates."""
    allX = X if X_unlabeled is None else np.vstack([X, X_unlabeled])
    emb = clone(embedding).fit(allX)
    return emb, np.ascontiguousarray(emb.embedding_[:X.shape[0]])


def _check_unlabeled(est, X_unlabeled):
    if X_unlabeled is None:
        return None
    Xu = np.asarray(X_unlabeled, dtype=np.float64)
    if Xu.ndim != 2 or Xu.shape[1] != est.n_features_in_:
        raise ValueError(f"X_unlabeled must be a 2-D array with {est.n_features_in_} features "
                         f"(as X), got shape {Xu.shape}")
    if Xu.shape[0] and not np.all(np.isfinite(Xu)):
        raise ValueError("X_unlabeled contains NaN or infinity")
    return Xu if Xu.shape[0] else None


class ClusterKernelSVC(ClassifierMixin, BaseEstimator):
    """An SVM with a kernel learned from unlabeled points.

    Chapelle's thesis, section 7.4 (Chapelle, Weston & Schölkopf, NIPS 15, 2003):
    ``fit(X, y, X_unlabeled=...)`` fits ``embedding`` (:class:`ClusterKernel`,
    :class:`RandomWalkKernel` or :class:`MarginalizedKernel`) on the labeled and unlabeled
    points together, then a linear :class:`kernelnb.svm.SVC` (float64) on the labeled points'
    coordinates: the same machine as ``SVC(kernel='precomputed')`` on ``K~``.  New points are
    mapped by the embedding's test-point extension.

    Parameters
    ----------
    embedding : transformer or None, default=None
        A kernel map with ``fit``, ``transform`` and an ``embedding_`` attribute; None means
        ``ClusterKernel()``.  The one parameter that may be given by position (the wrapped
        estimator of a meta-estimator).
    C : float > 0, default=1.0
        The SVM's soft-margin penalty.
    margin : {'l1', 'l2', 'hard'}, default='l1'
        As :class:`kernelnb.svm.SVC`.
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C per class.
    tol : float > 0, default=1e-3
        The SVM's KKT tolerance.
    select_r : array-like of int or None, default=None
        When given (binary problems, a :class:`ClusterKernel` embedding), the cut-off ``r`` is
        chosen among these values by the span estimate (:func:`cutoff_span_curve`; the smallest
        ``r`` among ties), as in the thesis's Fig. 7.6.

    Attributes
    ----------
    embedding_ : transformer
        The fitted kernel map.
    svc_ : kernelnb.svm.SVC
        The linear SVM on the coordinates.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    r_ : int or None
        The selected cut-off (``select_r``), else None.
    span_curve_ : dict or None
        ``{r: span estimate}`` when ``select_r`` was given.
    fit_time_ : float
        Seconds spent in ``fit``.

    Notes
    -----
    Unlabeled points are an explicit argument (``X_unlabeled``), as everywhere in
    :mod:`kernelnb.unlabeled`; with none, the kernel is built from the labeled points alone.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import ClusterKernel, ClusterKernelSVC
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(40, 2) * 0.3 + [-1, 0], rng.randn(40, 2) * 0.3 + [1, 0]])
    >>> y = np.repeat([0, 1], 40)
    >>> lab = [0, 1, 40, 41]                              # two labels per cluster
    >>> clf = ClusterKernelSVC(ClusterKernel(sigma=0.5, transfer="step", r=2), C=100.0)
    >>> clf = clf.fit(X[lab], y[lab], X_unlabeled=np.delete(X, lab, axis=0))
    >>> bool(clf.score(X, y) > 0.95)
    True
    """

    _parameter_constraints = {
        "embedding": [has_methods(["fit", "transform"]), None],
        "C": POSITIVE,
        "margin": [str_options({"l1", "l2", "hard"})],
        "class_weight": [dict, str_options({"balanced"}), None],
        "tol": POSITIVE,
        "select_r": ["array-like", None],
    }

    def __init__(self, embedding=None, *, C=1.0, margin="l1", class_weight=None, tol=1e-3,
                 select_r=None):
        self.embedding = embedding
        self.C = C
        self.margin = margin
        self.class_weight = class_weight
        self.tol = tol
        self.select_r = select_r

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None):
        """Fit the kernel on ``X`` and ``X_unlabeled``, the SVM on ``(X, y)``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labeled points.
        y : array of shape (n_samples,)
            Their labels.
        X_unlabeled : array of shape (n_unlabeled, n_features) or None, default=None
            The unlabeled points the kernel is also built from.

        Returns
        -------
        self : ClusterKernelSVC
            The fitted classifier.
        """
        X, y = check_input(self, X, y, reset=True, dtype=np.float64)
        Xu = _check_unlabeled(self, X_unlabeled)
        embedding = ClusterKernel() if self.embedding is None else self.embedding
        self.r_ = None
        self.span_curve_ = None
        if self.select_r is not None:
            curve, fitted = _span_curve(X, y, Xu, self.select_r, embedding, self.C,
                                        self.margin, self.class_weight, 0.0)
            self.span_curve_ = curve
            best = min(curve.values())
            self.r_ = min(r for r, v in curve.items() if v == best)
            self.embedding_ = fitted.with_cutoff(self.r_)
            Z = np.ascontiguousarray(self.embedding_.embedding_[:X.shape[0]])
        else:
            self.embedding_, Z = _fit_embedding(embedding, X, Xu)
        self.svc_ = _svc(self.C, self.margin, self.class_weight, self.tol).fit(Z, y)
        self.classes_ = self.svc_.classes_
        return self

    def _coordinates(self, X):
        check_is_fitted(self, "svc_")
        X = check_input(self, X, reset=False, dtype=np.float64)
        return self.embedding_.transform(X)

    def decision_function(self, X):
        """The SVM's output on the coordinates of ``X`` (``K~(x, x_i)`` by the extension).

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,) or (n, n_classes)
            The decision values (as :meth:`kernelnb.svm.SVC.decision_function`).
        """
        Z = self._coordinates(X)
        return self.svc_.decision_function(Z)

    def predict(self, X):
        """Predicted labels of ``X``.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,)
            Their labels.
        """
        Z = self._coordinates(X)
        return self.svc_.predict(Z)


def cutoff_span_curve(X, y, X_unlabeled, r_values, embedding=None, C=1.0, margin="l1",
                      class_weight=None, span_regularization=0.0):
    """The span estimate of the cluster-kernel SVM for each cut-off ``r`` (thesis Fig. 7.6).

    One eigendecomposition serves every ``r`` (:meth:`ClusterKernel.with_cutoff`); for each, a
    linear :class:`kernelnb.svm.SVC` on the labeled points' coordinates is scored by
    :func:`kernelnb.model_selection.span_estimate`.  The thesis observed on digits a local
    minimum at ``r`` = the number of classes.

    Parameters
    ----------
    X : array of shape (n, d)
        The labeled points.
    y : array of shape (n,)
        Their labels, two classes.
    X_unlabeled : array of shape (m, d) or None
        The unlabeled points the kernel is also built from.
    r_values : sequence of int >= 1
        The cut-offs to score.
    embedding : ClusterKernel or None
        Its parameters other than ``r`` are used (None: ``ClusterKernel()``).
    C : float, default=1.0
        The SVM's soft-margin penalty.
    margin : {'l1', 'l2', 'hard'}, default='l1'
        The SVM's margin.
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C per class.
    span_regularization : float >= 0, default=0.0
        Passed to :func:`~kernelnb.model_selection.span_estimate`.

    Returns
    -------
    dict
        ``{r: span estimate of the leave-one-out error rate}``.
    """
    return _span_curve(X, y, X_unlabeled, r_values, embedding, C, margin, class_weight,
                       span_regularization)[0]


def _span_curve(X, y, X_unlabeled, r_values, embedding, C, margin, class_weight,
                span_regularization):
    from ..model_selection import span_estimate

    embedding = ClusterKernel() if embedding is None else embedding
    if not isinstance(embedding, ClusterKernel):
        raise ValueError(f"embedding must be a ClusterKernel to select its cut-off r, got "
                         f"{type(embedding).__name__}")
    rs = np.asarray(r_values).ravel()
    if rs.size == 0 or not np.all([isinstance(v, numbers.Integral) for v in rs.tolist()]) \
            or np.any(rs < 1):
        raise ValueError(f"r_values must be a non-empty list of integers >= 1, got "
                         f"{list(np.asarray(r_values).ravel())!r}")
    X = np.asarray(X, dtype=np.float64)
    if np.unique(y).shape[0] != 2:
        raise ValueError("y: the span estimate selects r on binary problems, got "
                         f"{np.unique(y).shape[0]} classes")
    base = clone(embedding)
    if base.transfer in _STEP_LIKE:
        need = int(rs.max())
        base.set_params(n_components=max(need, base.n_components or 0))
    base.set_params(r=int(rs[0]))
    fitted, _ = _fit_embedding(base, X, X_unlabeled)
    n = X.shape[0]
    curve = {}
    for r in rs.tolist():
        emb = fitted.with_cutoff(int(r))
        Z = np.ascontiguousarray(emb.embedding_[:n])
        svc = _svc(C, margin, class_weight, 1e-3).fit(Z, y)
        curve[int(r)] = span_estimate(svc, Z, y, span_regularization=span_regularization)
    return curve, fitted
