"""Two more kernels built from unlabeled points (Chapelle's thesis, sections 7.4.2 and 7.4.3):
the shortest-path kernel on the neighbour graph and the spectral representation of Ng, Jordan
and Weiss (NIPS 14, 2002) used as a kernel.

Like the cluster and random-walk kernels (:mod:`kernelnb.unlabeled.cluster_kernel`) both are
feature maps fitted on the labeled and unlabeled points together, ``K~ = Z Z'``, so that
:class:`kernelnb.unlabeled.ClusterKernelSVC` trains a linear SVM on them
(``ClusterKernelSVC(ShortestPathKernel(...))``).
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy.sparse.csgraph import shortest_path
from scipy.spatial.distance import cdist
from .._estimator import BaseEstimator
from sklearn.base import TransformerMixin
from sklearn.neighbors import kneighbors_graph
from sklearn.utils.validation import check_is_fitted

from .._validation import POSITIVE, interval, str_options, check_input
from .cluster_kernel import _EmbeddingKernel, _RBFGraph

__all__ = ["ShortestPathKernel", "SpectralKernel"]


class ShortestPathKernel(_EmbeddingKernel, TransformerMixin, BaseEstimator):
    """The shortest-path "kernel" ``exp(-d_SP^2 / (2 sigma^2))`` (Chapelle's thesis §7.4.2).

    ``d_SP^2(x_i, x_j) = min over paths of sum_p ||x_(i_p) - x_(i_(p+1))||^2``, the paths
    running on the symmetrised ``n_neighbors``-nearest-neighbour graph of the labeled and
    unlabeled points (edge weights: squared Euclidean distances): the limit ``sigma -> 0`` of
    the random walk, where one path dominates.  Points of one cluster are joined by short hops;
    a gap costs its squared width at once.  Points the graph does not connect are at distance
    infinity (kernel value 0).

    **Not positive definite.**  ``K_SP`` is in general indefinite (the thesis says so), and an
    SVM on it is not a convex problem.  Here its negative eigenvalues are clipped:
    ``K_SP = U Lambda U'`` and ``K~ = U max(Lambda, 0) U'``, the nearest positive
    semi-definite matrix in Frobenius norm, with coordinates ``Z = U_+ Lambda_+^{1/2}``; the
    SVM (a linear SVM on ``Z``) is then the ordinary convex problem.  ``negative_mass_`` says
    how much was clipped.  A new point ``x`` reaches the graph through its ``n_neighbors``
    nearest fitted points, ``d_SP^2(x, x_j) = min_i ||x - x_i||^2 + d_SP^2(x_i, x_j)``, and its
    coordinates are the Nystrom extension ``z(x) = k(x) U_+ Lambda_+^{-1/2}`` (exactly ``Z_j`` at
    a fitted point ``x_j``).

    Parameters
    ----------
    n_neighbors : int, default=10
        Neighbours of each point in the graph.
    sigma : float, default=1.0
        Width of the kernel.

    Attributes
    ----------
    distances_ : ndarray of shape (n, n)
        ``d_SP^2`` between the fitted points (``inf`` where no path exists).
    kernel_matrix_ : ndarray of shape (n, n)
        ``exp(-d_SP^2 / (2 sigma^2))`` before clipping.
    eigenvalues_ : ndarray of shape (n,)
        Its eigenvalues, decreasing.
    negative_mass_ : float
        ``sum |lambda_-| / sum |lambda|``: the share of the spectrum clipped.
    embedding_ : ndarray of shape (n, n_positive)
        ``Z``, the coordinates of the fitted points.
    X_fit_ : ndarray of shape (n, n_features)
        The fitted points.
    n_features_in_ : int
        Number of features seen in ``fit``.
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    O. Chapelle, PhD thesis, Université Paris 6, 2002, section 7.4.2.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import ShortestPathKernel
    >>> X = np.random.RandomState(0).randn(40, 2)
    >>> sp = ShortestPathKernel(n_neighbors=5, sigma=1.0).fit(X)
    >>> print(sp.embedding_.shape[0], bool(np.allclose(sp.transform(X[:3]), sp.embedding_[:3])))
    40 True
    """

    _parameter_constraints = {
        "n_neighbors": [interval(numbers.Integral, 1, None, closed="left")],
        "sigma": POSITIVE,
    }

    def __init__(self, *, n_neighbors=10, sigma=1.0):
        self.n_neighbors = n_neighbors
        self.sigma = sigma

    def _fit(self, X):
        X = check_input(self, X, reset=True, dtype=np.float64, order="C")
        n = X.shape[0]
        if self.n_neighbors >= n:
            raise ValueError(f"n_neighbors={self.n_neighbors} must be smaller than the number "
                             f"of points: got n_samples={n}")
        G = kneighbors_graph(X, int(self.n_neighbors), mode="distance")
        G.data **= 2                                       # squared Euclidean edge lengths
        G = G.maximum(G.T)                                 # symmetrised graph
        D = shortest_path(G, method="D", directed=False)
        self.X_fit_ = X
        self.distances_ = D
        with np.errstate(over="ignore"):
            K = np.exp(-D / (2.0 * float(self.sigma) ** 2))
        K = 0.5 * (K + K.T)
        self.kernel_matrix_ = K
        lam, U = np.linalg.eigh(K)
        lam, U = lam[::-1], U[:, ::-1]
        self.eigenvalues_ = lam
        self.negative_mass_ = float(np.abs(lam[lam < 0]).sum() / max(np.abs(lam).sum(), 1e-300))
        keep = lam > 1e-12 * max(lam[0], 1e-300)
        self._U, self._lam = U[:, keep], lam[keep]
        self.embedding_ = self._U * np.sqrt(self._lam)
        return self

    def shortest_distances(self, X):
        """``d_SP^2`` from each row of X to the fitted points, entering by its nearest ones.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n, n_fitted)
            ``min_i ||x - x_i||^2 + d_SP^2(x_i, x_j)`` over the ``n_neighbors`` nearest fitted
            points ``x_i``.
        """
        check_is_fitted(self, "X_fit_")
        X = check_input(self, X, reset=False, dtype=np.float64, order="C")
        d2 = cdist(X, self.X_fit_, "sqeuclidean")                    # exact, no (n, m, d) array
        k = int(self.n_neighbors)
        near = np.argpartition(d2, k - 1, axis=1)[:, :k]
        out = np.full((X.shape[0], self.X_fit_.shape[0]), np.inf)
        for i in range(k):
            idx = near[:, i]
            out = np.minimum(out, d2[np.arange(X.shape[0]), idx][:, None] + self.distances_[idx])
        return out

    def transform(self, X):
        """The coordinates ``z(x) = k(x) U_+ Lambda_+^{-1/2}``.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n, n_positive)
            Their coordinates.
        """
        with np.errstate(over="ignore"):
            Kx = np.exp(-self.shortest_distances(X) / (2.0 * float(self.sigma) ** 2))
        return Kx @ self._U / np.sqrt(self._lam)


class SpectralKernel(_RBFGraph, TransformerMixin, BaseEstimator):
    """The spectral representation of Ng, Jordan and Weiss as a kernel (thesis §7.4.3).

    1. the affinity matrix ``A``: the RBF matrix of the labeled and unlabeled points with a zero
       diagonal; ``D = diag(A 1)``;
    2. ``L = D^{-1/2} A D^{-1/2}`` and its ``n_components`` leading eigenvectors
       ``v_1 .. v_k`` (eigenvalues ``1 = lambda_1 >= ...``);
    3. ``phi(x_i) = (v_i1, .., v_ik) / ||(v_i1, .., v_ik)||``, rows of unit length;

    the kernel is ``phi(x)' phi(y)`` (the thesis: "train a linear classifier on the mapped
    points").  It is the cluster kernel with the step transfer function
    (:class:`kernelnb.unlabeled.ClusterKernel`, ``transfer='step'``) except for the affinity's
    zero diagonal.  A new point: the Nystrom extension of the eigenvectors,
    ``v_p(x) = sum_i L(x, x_i) v_ip / lambda_p`` with ``L(x, x_i) = A(x, x_i) /
    sqrt(d(x) d_i)``, ``d(x) = sum_i A(x, x_i)``, then the same normalisation.  For the fitted
    points use ``embedding_`` (or ``fit_transform``): passed again to ``transform`` a fitted point
    counts its own affinity, which the zero diagonal left out.

    Parameters
    ----------
    sigma : float or 'scale', default=1.0
        RBF width of the affinity.
    n_components : int, default=2
        ``k``, the eigenvectors kept (the number of clusters in Ng et al.).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components,)
        The leading eigenvalues of ``L``.
    eigenvectors_ : ndarray of shape (n, n_components)
        The leading eigenvectors (before the rows are normalised).
    embedding_ : ndarray of shape (n, n_components)
        ``phi`` of the fitted points.
    degrees_ : ndarray of shape (n,)
        The row sums of the affinity.
    sigma_ : float
        The RBF width used.
    X_fit_ : ndarray of shape (n, n_features)
        The fitted points.
    n_features_in_ : int
        Number of features seen in ``fit``.
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    O. Chapelle, PhD thesis, Université Paris 6, 2002, section 7.4.3; A. Ng, M. Jordan and
    Y. Weiss, On spectral clustering: analysis and an algorithm, NIPS 14, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import SpectralKernel
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(20, 2) - 3, rng.randn(20, 2) + 3])
    >>> Z = SpectralKernel(sigma=1.0, n_components=2).fit_transform(X)
    >>> K = Z @ Z.T                      # two clusters: two orthogonal directions
    >>> print(round(float(K[:20, :20].min()), 2), round(float(abs(K[:20, 20:]).max()), 2))
    1.0 0.0
    """

    _parameter_constraints = {
        "sigma": [*POSITIVE, str_options({"scale"})],
        "n_components": [interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(self, *, sigma=1.0, n_components=2):
        self.sigma = sigma
        self.n_components = n_components

    def _fit(self, X):
        X, K = self._fit_graph(X)
        n = X.shape[0]
        k = int(self.n_components)
        if k > n:
            raise ValueError(f"n_components={k} is larger than the number of points ({n})")
        A = K - np.diag(np.diag(K))
        d = A.sum(axis=1)
        self.degrees_ = d
        s = np.divide(1.0, np.sqrt(d), out=np.zeros_like(d), where=d > 0)
        L = s[:, None] * A * s[None, :]
        lam, V = np.linalg.eigh(L)
        self.eigenvalues_ = lam[::-1][:k].copy()
        self.eigenvectors_ = V[:, ::-1][:, :k].copy()
        self.embedding_ = self._normalise(self.eigenvectors_)
        return self

    @staticmethod
    def _normalise(V):
        norm = np.linalg.norm(V, axis=1, keepdims=True)
        return np.divide(V, norm, out=np.zeros_like(V), where=norm > 0)

    def transform(self, X):
        """``phi(x)``: the extended eigenvectors at ``x``, normalised to unit length.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n, n_components)
            Their coordinates (a zero row for a point whose affinities all underflow).
        """
        Ax = self._kernel_rows(X)
        dx = Ax.sum(axis=1)
        sx = np.divide(1.0, np.sqrt(dx), out=np.zeros_like(dx), where=dx > 0)
        si = np.divide(1.0, np.sqrt(self.degrees_), out=np.zeros_like(self.degrees_),
                       where=self.degrees_ > 0)
        Lx = sx[:, None] * Ax * si[None, :]
        lam = np.where(np.abs(self.eigenvalues_) > 1e-300, self.eigenvalues_, 1e-300)
        return self._normalise(Lx @ self.eigenvectors_ / lam)
