"""The local Gaussian density estimator, the "probabilistic HKNN" that Vincent's thesis proposes
without testing it (ch. 14, section 14.3).

For a query x0, a Gaussian weighting window K_x0 centred on x0 (of fixed width sigma, or of width
sigma times the distance from x0 to its k-th nearest training point) turns the sample into a
weighted sample of the product density h_x0 = p K_x0 / Z_x0, Z_x0 = E_p[K_x0(X)].  Since
p(x0) = h_x0(x0) Z_x0 / K_x0(x0), the thesis's estimator is

    p_hat(x0) = h_hat(x0) Z_hat / K_x0(x0),      Z_hat = (1/l) sum_i K_x0(x_i),

with h_hat a Gaussian fitted to the weighted sample (weighted mean E_hat, weighted covariance
V_hat) and evaluated at x0.  As in Manifold Parzen windows (thesis ch. 13) the covariance may be
flattened: its d leading eigenvectors keep their eigenvalues mu_j, and the variance noise^2 of
an isotropic noise off the local hyperplane is added in every direction,

    C = sum_j mu_j v_j v_j' + noise^2 I.

The scale of K cancels (K_x0(x0) = 1 here).  With a normalised kernel, Z_hat is the Parzen
estimate at x0, so p_hat is the Parzen estimate times h_hat(x0) / N(x0; x0, sigma^2 I): the
Parzen window corrected by how the local sample is actually spread around x0.

p_hat is not a normalised density in general: every query has its own model.  With a single
training point x1 and a fixed width it integrates to (sigma^2 / (sigma^2 + noise^2))^(n/2); on a
large sample with a small window its integral approaches 1 (the tests measure both).

Each query costs one pass over the training set (the distances, as Parzen) and one weighted
principal component analysis of its ``max_neighbors`` heaviest points, so memory is that of
HKNN (the training set) and far below Manifold Parzen's (d + 1) copies of it.
"""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from .._estimator import BaseEstimator
from sklearn.base import DensityMixin
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .._threads import n_threads
from .._fit import fit_context
from .._validation import N_JOBS, NONNEGATIVE_INT, POSITIVE, POSITIVE_INT, check_input
from ._base import check_n_neighbors, leading_directions

__all__ = ["LocalGaussianDensity"]


class LocalGaussianDensity(DensityMixin, BaseEstimator):
    """Local Gaussian ("probabilistic HKNN") density estimator of Vincent's thesis section 14.3.

    For each query x0, a Gaussian fitted to the training sample weighted by a window centred
    on x0, times the window's mean value over the sample (see the module docstring for the
    formula).  The estimate is not normalised: each query has its own model.

    Parameters
    ----------
    sigma : float, default=1.0
        Width of the Gaussian weighting window K_x0(x) = exp(-||x - x0||^2 / (2 sigma^2));
        with ``n_neighbors`` set, a multiple of the distance from x0 to its ``n_neighbors``-th
        nearest training point instead.
    n_neighbors : int or None, default=None
        None: the fixed window width ``sigma``.  k: the adaptive width ``sigma * d_k(x0)``.
    n_components : int or None, default=None
        The number d of leading directions of the weighted covariance that keep their variance
        (None: all of them, the thesis's full covariance; 0: the isotropic Gaussian
        N(E_hat, noise^2 I)).
    noise : float, default=0.01
        Standard deviation of the isotropic noise added to the covariance in every direction
        (variance ``noise^2``): with d below the dimension, the spread of the data off the
        local d-dimensional hyperplane.
    max_neighbors : int or None, default=None
        Fit h_hat on this many nearest training points only (their weights are the largest);
        None: on all of them.  Z_hat always sums over the whole training set.
    n_jobs : int or None, default=None
        Threads of the linear algebra: None the threads the context allows (every core, at
        most ``OMP_NUM_THREADS`` or a threadpoolctl OpenMP limit), -1 every core, k that many.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.neighbors import LocalGaussianDensity
    >>> rng = np.random.RandomState(0)
    >>> t = rng.uniform(-2, 2, 300)
    >>> X = np.column_stack([t, 0.5 * t]) + 0.01 * rng.normal(size=(300, 2))
    >>> dens = LocalGaussianDensity(sigma=0.3, n_components=1, noise=0.02).fit(X)
    >>> on, off = dens.score_samples([[0.0, 0.0], [0.0, 0.3]])
    >>> print(bool(on > off))
    True
    """

    _parameter_constraints = {"sigma": POSITIVE, "n_neighbors": POSITIVE_INT + [None],
                              "n_components": NONNEGATIVE_INT + [None], "noise": POSITIVE,
                              "max_neighbors": POSITIVE_INT + [None], "n_jobs": N_JOBS}

    def __init__(self, *, sigma=1.0, n_neighbors=None, n_components=None, noise=0.01,
                 max_neighbors=None, n_jobs=None):
        self.sigma = sigma
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.noise = noise
        self.max_neighbors = max_neighbors
        self.n_jobs = n_jobs

    @fit_context
    def fit(self, X, y=None):
        """Keep the training set (the estimator is local: all the work is done per query).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points.
        y : None
            Ignored.

        Returns
        -------
        self : LocalGaussianDensity
            The fitted density.
        """
        X = check_input(self, X)
        l, n = X.shape
        if self.n_neighbors is not None:
            check_n_neighbors(self.n_neighbors, l)
        if self.n_components is not None and self.n_components > n:
            raise ValueError(f"n_components={self.n_components} must not exceed the dimension "
                             f"of the data (n_features={n})")
        self._X = np.ascontiguousarray(X, dtype=np.float64)
        self._sq = np.einsum("ij,ij->i", self._X, self._X)
        return self

    def _block(self, Q):
        """log p_hat for a block of queries."""
        X, l, n = self._X, self._X.shape[0], self._X.shape[1]
        d2 = np.einsum("ij,ij->i", Q, Q)[:, None] + self._sq[None, :] - 2.0 * Q @ X.T
        d2 = np.maximum(d2, 0.0)
        s = float(self.sigma)
        if self.n_neighbors is None:
            s2 = np.full(Q.shape[0], s * s)
        else:
            k = int(self.n_neighbors)
            dk2 = np.partition(d2, k - 1, axis=1)[:, k - 1]
            # a query sitting on k coincident points has d_k = 0: fall back to the nearest
            # positive distance so that the window keeps a width
            tiny = np.where(d2 > 0, d2, np.inf).min(axis=1)
            dk2 = np.where(dk2 > 0, dk2, np.where(np.isfinite(tiny), tiny, 1.0))
            s2 = s * s * dk2
        logk = -d2 / (2.0 * s2[:, None])                        # log K_x0(x_i); log K_x0(x0) = 0
        log_z = logsumexp(logk, axis=1) - np.log(l)
        M = l if self.max_neighbors is None else min(int(self.max_neighbors), l)
        if M < l:
            sel = np.argpartition(-logk, M - 1, axis=1)[:, :M]
            logw = np.take_along_axis(logk, sel, axis=1)
            P = X[sel]                                          # (b, M, n)
        else:
            logw = logk
            P = np.broadcast_to(X, (Q.shape[0], l, n))
        w = np.exp(logw - logw.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        mean = np.einsum("bm,bmn->bn", w, P)
        A = np.sqrt(w)[:, :, None] * (P - mean[:, None, :])     # A'A = weighted covariance
        noise2 = float(self.noise) ** 2
        d = n if self.n_components is None else int(self.n_components)
        r = Q - mean
        quad = np.einsum("bn,bn->b", r, r) / noise2
        logdet = n * np.log(noise2)
        if d > 0:
            mu, V = leading_directions(A, d)                    # (b, d), (b, d, n)
            proj = np.einsum("bdn,bn->bd", V, r)
            mu = np.maximum(mu, 0.0)
            lam = mu + noise2
            logdet = logdet + np.log(lam / noise2).sum(axis=1)
            quad = quad + np.einsum("bd,bd->b", proj * proj, 1.0 / lam - 1.0 / noise2)
        log_h = -0.5 * (n * np.log(2 * np.pi) + logdet + quad)
        return log_h + log_z

    def score_samples(self, X):
        """log p_hat(x0) for every row x0 of X (computed in blocks of queries)."""
        check_is_fitted(self)
        X = np.ascontiguousarray(check_input(self, X, reset=False), dtype=np.float64)
        l, n = self._X.shape
        M = l if self.max_neighbors is None else min(int(self.max_neighbors), l)
        per_query = 3 * M * n + l + (n * n if M >= n else 0)
        step = max(1, int(2e7 // per_query))
        out = np.empty(X.shape[0])
        with threadpool_limits(limits=n_threads(self.n_jobs), user_api="blas"):
            for a in range(0, X.shape[0], step):
                out[a:a + step] = self._block(X[a:a + step])
        return out

    def score(self, X, y=None):
        """Mean log-likelihood."""
        return float(np.mean(self.score_samples(X)))

    def anll(self, X):
        """Average negative log-likelihood -(1/m) sum log p_hat(x_i) (the thesis's ANLL)."""
        return -self.score(X)
