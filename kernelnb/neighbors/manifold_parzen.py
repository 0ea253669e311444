"""Manifold Parzen windows (Vincent's thesis ch. 13; Vincent & Bengio, NIPS 15, 2003).

Each training point x_i carries a Gaussian "pancake" aligned with the local tangent plane:
the d leading principal directions v_ij of its k nearest neighbours (differences x_j - x_i,
centred on x_i, eq. 13.3), with variances lambda_ij = sigma^2 + s_ij^2 / k, and sigma^2 in
every other direction.  With the printed formulas corrected (their OCR'd and typeset forms
disagree; these are the ones that give a normalised density):

    log N_i(x) = -1/2 [ n log(2 pi) + sum_j log lambda_ij + (n - d) log sigma^2
                        + ||x - x_i||^2 / sigma^2 + sum_j (1/lambda_ij - 1/sigma^2) (v_ij'(x - x_i))^2 ]
    p(x) = (1/l) sum_i N_i(x)        (log-sum-exp over i)

d = 0 is the ordinary Parzen window of width sigma.
"""
from __future__ import annotations

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import DensityMixin
from sklearn.utils.validation import check_is_fitted

from .._fit import fit_context
from .._validation import N_JOBS, NONNEGATIVE_INT, POSITIVE, POSITIVE_INT, check_input
from ._base import check_n_neighbors, kneighbors, leading_directions, logsumexp_rows
from .parzen import _BayesDensityClassifier

__all__ = ["ManifoldParzen", "ManifoldParzenClassifier"]


class ManifoldParzen(DensityMixin, BaseEstimator):
    """Manifold Parzen windows density estimator (Vincent's thesis ch. 13).

    A mixture of one Gaussian "pancake" per training point, flattened along the d leading
    principal directions of its k nearest neighbours, with the width sigma in every other
    direction (thesis eq. 13.3; Vincent and Bengio, NIPS 15, 2003).

    Parameters
    ----------
    n_components : int, default=1
        The number d of principal directions per training point (0: ordinary Parzen; d =
        n_features: a full local covariance, as the thesis's d = 2 on the 2-D spiral).
    n_neighbors : int, default=10
        The number k of neighbours used for each local covariance (k >= d).
    sigma : float, default=0.1
        Standard deviation of each Gaussian off its local directions (the isotropic noise
        added in every direction).
    n_jobs : int or None, default=None
        Threads: None the threads the context allows (every core, at most ``OMP_NUM_THREADS``
        or a threadpoolctl OpenMP limit), -1 every core, k that many.

    Attributes
    ----------
    components_ : ndarray of shape (n_samples, n_components, n_features)
        The local principal directions of every training point.
    variances_ : ndarray of shape (n_samples, n_components)
        The variance along each of them, ``sigma^2 + s^2 / k``.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.neighbors import ManifoldParzen
    >>> rng = np.random.RandomState(0)
    >>> t = rng.uniform(-2, 2, 200)
    >>> X = np.column_stack([t, 0.5 * t]) + 0.01 * rng.normal(size=(200, 2))
    >>> mp = ManifoldParzen(n_components=1, n_neighbors=10, sigma=0.02).fit(X)
    >>> print(mp.components_.shape)
    (200, 1, 2)
    >>> on, off = mp.score_samples([[0.0, 0.0], [0.0, 0.3]])
    >>> print(bool(on > off))
    True
    """

    _parameter_constraints = {"n_components": NONNEGATIVE_INT, "n_neighbors": POSITIVE_INT,
                              "sigma": POSITIVE, "n_jobs": N_JOBS}

    def __init__(self, *, n_components=1, n_neighbors=10, sigma=0.1, n_jobs=None):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.n_jobs = n_jobs

    def _check_params_extra(self):
        if self.n_neighbors < self.n_components:
            raise ValueError(f"n_neighbors={self.n_neighbors} must be at least "
                             f"n_components={self.n_components}")

    @fit_context
    def fit(self, X, y=None):
        """Compute the local directions and variances of every training point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points (at least 2).
        y : None
            Ignored.

        Returns
        -------
        self : ManifoldParzen
            The fitted density.
        """
        X = check_input(self, X)
        l, n = X.shape
        d = int(self.n_components)
        if l < 2:
            raise ValueError(f"ManifoldParzen needs at least 2 samples, got n_samples = {l}")
        if d > n:
            raise ValueError(f"n_components={d} must not exceed the dimension of the data "
                             f"(n_features={n})")
        k = check_n_neighbors(self.n_neighbors, l - 1, "the training set minus one point")
        s2 = float(self.sigma) ** 2
        self._X = np.ascontiguousarray(X)
        # The neighbourhoods do not depend on d or sigma, their directions and spreads s_ij^2 / k
        # not on sigma (eq. 13.3): a refit on the same points with the same k reuses the
        # neighbourhoods, and with the same d too (another sigma) their directions.
        memo = getattr(self, "_neighbourhoods", None)
        if not (memo is not None and memo[1] == k and memo[0].shape == X.shape
                and np.array_equal(memo[0], X)):
            memo = self._neighbourhoods = [self._X.copy(), k, None, None, None, None]
        if memo[3] == d:
            self.components_, spread = memo[4], memo[5]
        else:
            self.components_ = np.zeros((l, d, n))
            spread = np.zeros((l, d))
            if d > 0:
                if memo[2] is None:
                    memo[2] = kneighbors(X, X, k, self.n_jobs, exclude=np.arange(l))[1]
                idx = memo[2]
                # by chunks of points, so that the (chunk, k, n) differences stay small
                step = max(1, int(4e7 // (k * n)))
                for c in range(0, l, step):
                    self._local_directions(X, idx[c:c + step], slice(c, c + step), d, k, spread)
            memo[3:] = d, self.components_, spread
        self.variances_ = s2 + spread
        lam = self.variances_
        self._log_norm = -0.5 * (n * np.log(2 * np.pi) + np.log(lam).sum(axis=1)
                                 + (n - d) * np.log(s2))
        self._proj_train = np.einsum("ljn,ln->lj", self.components_, self._X)
        self._sq_norms = np.einsum("ij,ij->i", self._X, self._X)
        self._coef = 1.0 / lam - 1.0 / s2                      # (l, d), <= 0
        return self

    def _local_directions(self, X, idx, rows, d, k, spread):
        """The d leading directions of the neighbourhoods of X[rows] and their spreads
        ``s_ij^2 / k`` (eq. 13.3, hard k-neighbourhood, centred on each point), into
        ``components_`` and ``spread``."""
        diffs = X[idx] - X[rows, None, :]                      # (m, k, n), centred on x_i
        # directions of zero variance keep sigma^2 whatever the direction
        mu, V = leading_directions(diffs, d)
        self.components_[rows] = V
        spread[rows] = mu / k

    def _log_components(self, Xq):
        """log N_i(x) for every query (rows) and training point (columns), thesis eq. 13.3:
        ``log_norm_i - (||x - x_i||^2 / sigma^2 + sum_j (1/lambda_ij - 1/sigma^2)
        (v_ij'(x - x_i))^2) / 2``, accumulated in place in one (queries, l) block."""
        s2 = float(self.sigma) ** 2
        q = Xq @ self._X.T
        q *= -2.0
        q += np.einsum("ij,ij->i", Xq, Xq)[:, None]
        q += self._sq_norms[None, :]
        np.maximum(q, 0.0, out=q)
        q /= s2
        for j in range(self.components_.shape[1]):
            P = Xq @ self.components_[:, j, :].T               # v_ij' x
            P -= self._proj_train[None, :, j]                  # v_ij'(x - x_i)
            P *= P
            P *= self._coef[None, :, j]
            q += P
        q *= -0.5
        q += self._log_norm[None, :]
        return q

    def score_samples(self, X):
        """log p(x) for every row of X (computed in blocks of queries)."""
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        l = self._X.shape[0]
        # blocks of about 2^16 entries (half a megabyte): the block and the products added to
        # it stay in the processor's cache through the passes over it
        step = max(1, (1 << 16) // l)
        out = np.empty(X.shape[0])
        for s in range(0, X.shape[0], step):
            out[s:s + step] = logsumexp_rows(self._log_components(X[s:s + step])) - np.log(l)
        return out

    def score(self, X, y=None):
        """Mean log-likelihood."""
        return float(np.mean(self.score_samples(X)))

    def anll(self, X):
        """Average negative log-likelihood (the thesis's ANLL)."""
        return -self.score(X)


class ManifoldParzenClassifier(_BayesDensityClassifier):
    """One Manifold Parzen density per class and the Bayes rule with the class priors.

    ``argmax_c log p(x|c) + log P(c)`` with ``p(.|c)`` a :class:`ManifoldParzen` density on the
    points of class c (Vincent's thesis ch. 13).  ``ancll(X, y)`` is the average negative
    conditional log-likelihood ``-(1/m) sum log P(c_i|x_i)``.

    Parameters
    ----------
    n_components : int, default=1
        The number d of principal directions per training point of every class's density.
    n_neighbors : int, default=10
        The number k of neighbours (of the same class) used for each local covariance.
    sigma : float, default=0.1
        Standard deviation of each Gaussian off its local directions.
    n_jobs : int or None, default=None
        Threads: None the threads the context allows (every core, at most ``OMP_NUM_THREADS``
        or a threadpoolctl OpenMP limit), -1 every core, k that many.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    densities_ : list of ManifoldParzen
        The density of each class, in the order of ``classes_``.
    class_prior_ : ndarray of shape (n_classes,)
        The class frequencies.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.neighbors import ManifoldParzenClassifier
    >>> X, y = make_moons(n_samples=200, noise=0.1, random_state=0)
    >>> clf = ManifoldParzenClassifier(n_components=1, n_neighbors=8, sigma=0.1)
    >>> clf = clf.fit(X[:150], y[:150])
    >>> print(round(clf.score(X[150:], y[150:]), 2))
    1.0
    >>> print(round(clf.ancll(X[150:], y[150:]), 2))
    0.01
    """

    _parameter_constraints = ManifoldParzen._parameter_constraints

    def __init__(self, *, n_components=1, n_neighbors=10, sigma=0.1, n_jobs=None):
        self.n_components = n_components
        self.n_neighbors = n_neighbors
        self.sigma = sigma
        self.n_jobs = n_jobs

    _check_params_extra = ManifoldParzen._check_params_extra

    def _make_density(self):
        return ManifoldParzen(n_components=self.n_components, n_neighbors=self.n_neighbors,
                              sigma=self.sigma, n_jobs=self.n_jobs)

    def ancll(self, X, y):
        """Average negative conditional log-likelihood ``-(1/m) sum log P(y_i | x_i)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.
        y : array-like of shape (n_samples,)
            Their labels, among ``classes_``.

        Returns
        -------
        float
            The thesis's ANCLL (ch. 13).
        """
        lp = self.predict_log_proba(X)
        pos = np.searchsorted(self.classes_, y)
        if np.any(pos >= self.classes_.shape[0]) or np.any(self.classes_[np.minimum(pos, len(self.classes_) - 1)] != y):
            raise ValueError("y holds labels that were not seen in fit")
        return float(-np.mean(lp[np.arange(len(y)), pos]))
