"""Parzen windows: Gaussian kernel density, its Bayes classifier, and Nadaraya-Watson regression
(Parzen, "On estimation of a probability density function and mode", Ann. Math. Statist. 33,
1962; Nadaraya 1964, Watson 1964; Vincent's thesis ch. 13 for the density's use as a baseline).

With a window of width sigma in d dimensions::

    p(x) = (1/l) sum_i N(x; x_i, sigma^2 I)
         = (1/l) (2 pi sigma^2)^(-d/2) sum_i exp(-||x - x_i||^2 / (2 sigma^2))
"""
from __future__ import annotations

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin, DensityMixin, RegressorMixin
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._fit import fit_context
from .._validation import N_JOBS, POSITIVE, check_input
from ._base import gaussian_logsumexp, logsumexp_rows

__all__ = ["ParzenDensity", "ParzenClassifier", "NadarayaWatsonRegressor"]

_CONSTRAINTS = {"sigma": POSITIVE, "n_jobs": N_JOBS}


class ParzenDensity(DensityMixin, BaseEstimator):
    """Gaussian Parzen window density estimator (Parzen, Ann. Math. Statist. 33, 1962).

    ``p(x) = (1/l) sum_i N(x; x_i, sigma^2 I)`` over the l training points.  The methods give
    the log density (``score_samples``), its mean (``score``) and the average negative
    log-likelihood ``anll`` of Vincent's thesis tables (ch. 13).

    Parameters
    ----------
    sigma : float, default=1.0
        Window width (standard deviation of each Gaussian).
    n_jobs : int or None, default=None
        Threads: None the threads the context allows (every core, at most ``OMP_NUM_THREADS``
        or a threadpoolctl OpenMP limit), -1 every core, k that many.

    Attributes
    ----------
    sigma_ : float
        The window width used.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.neighbors import ParzenDensity
    >>> X = np.random.RandomState(0).normal(size=(200, 1))
    >>> kde = ParzenDensity(sigma=0.3).fit(X)
    >>> print(np.round(np.exp(kde.score_samples([[0.0], [2.0]])), 2))
    [0.33 0.11]
    >>> print(round(kde.anll(X), 2))
    1.42
    """

    _parameter_constraints = _CONSTRAINTS

    def __init__(self, *, sigma=1.0, n_jobs=None):
        self.sigma = sigma
        self.n_jobs = n_jobs

    @fit_context
    def fit(self, X, y=None):
        """Keep the training points (the centres of the windows).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training points.
        y : None
            Ignored.

        Returns
        -------
        self : ParzenDensity
            The fitted density.
        """
        self.sigma_ = float(self.sigma)
        X = check_input(self, X)
        self._X = np.ascontiguousarray(X)
        return self

    def score_samples(self, X):
        """log p(x) for every row of X."""
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        h = self.sigma_
        n, d = self._X.shape
        lse = gaussian_logsumexp(X, self._X, h, self.n_jobs)
        return lse - np.log(n) - 0.5 * d * np.log(2 * np.pi * h * h)

    def score(self, X, y=None):
        """Mean log-likelihood."""
        return float(np.mean(self.score_samples(X)))

    def anll(self, X):
        """Average negative log-likelihood -(1/m) sum log p(x_i)."""
        return -self.score(X)


class _BayesDensityClassifier(ClassifierMixin, BaseEstimator):
    """Base of the generative classifiers: one density per class and the Bayes rule
    argmax_c log p(x|c) + log P(c) (:class:`ParzenClassifier`, :class:`ManifoldParzenClassifier`).

    Not an estimator of its own: a subclass declares its parameters (``__init__`` and
    ``_parameter_constraints``) and ``_make_density()``, the unfitted density of one class;
    ``fit`` then sets ``densities_`` (objects with ``score_samples``) and ``class_prior_`` (the
    class frequencies)."""

    _parameter_constraints: dict = {}

    def _make_density(self):
        raise TypeError(f"{type(self).__name__} is an abstract base: use ParzenClassifier or "
                        "ManifoldParzenClassifier, or subclass it and define _make_density()")

    @fit_context
    def fit(self, X, y):
        """One density per class on its rows of X, and the class frequencies as priors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        X, y = check_input(self, X, y)
        check_classification_targets(y)
        self.classes_, yi = np.unique(y, return_inverse=True)
        self.densities_ = [self._make_density().fit(X[yi == c])
                           for c in range(self.classes_.shape[0])]
        self.class_prior_ = np.bincount(yi) / yi.shape[0]
        return self

    def _joint_log(self, X):
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return np.column_stack([dens.score_samples(X) for dens in self.densities_]) + np.log(
            self.class_prior_)

    def predict_log_proba(self, X):
        J = self._joint_log(X)
        return J - logsumexp_rows(J.copy())[:, None]

    def predict_proba(self, X):
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        joint = self._joint_log(X)
        return self.classes_[np.argmax(joint, axis=1)]


class ParzenClassifier(_BayesDensityClassifier):
    """One Parzen density per class and the Bayes rule with the class priors (class frequencies).

    ``argmax_c log p(x|c) + log P(c)`` with ``p(.|c)`` a :class:`ParzenDensity` on the points of
    class c (Vincent's thesis ch. 13 uses it as the baseline of Manifold Parzen windows).

    Parameters
    ----------
    sigma : float, default=1.0
        Window width of every class's density.
    n_jobs : int or None, default=None
        Threads: None the threads the context allows (every core, at most ``OMP_NUM_THREADS``
        or a threadpoolctl OpenMP limit), -1 every core, k that many.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    densities_ : list of ParzenDensity
        The density of each class, in the order of ``classes_``.
    class_prior_ : ndarray of shape (n_classes,)
        The class frequencies.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.neighbors import ParzenClassifier
    >>> X, y = make_moons(n_samples=200, noise=0.2, random_state=0)
    >>> clf = ParzenClassifier(sigma=0.3).fit(X[:150], y[:150])
    >>> print(clf.classes_, len(clf.densities_))
    [0 1] 2
    >>> print(round(clf.score(X[150:], y[150:]), 2))
    0.98
    """

    _parameter_constraints = _CONSTRAINTS

    def __init__(self, *, sigma=1.0, n_jobs=None):
        self.sigma = sigma
        self.n_jobs = n_jobs

    def _make_density(self):
        return ParzenDensity(sigma=self.sigma, n_jobs=self.n_jobs)


class NadarayaWatsonRegressor(RegressorMixin, BaseEstimator):
    """Kernel-weighted average of the training targets with a Gaussian window.

    ``f(x) = sum_i K(x, x_i) y_i / sum_i K(x, x_i)`` with ``K(x, x') = exp(-||x - x'||^2 /
    (2 sigma^2))`` (Nadaraya, Theory Probab. Appl. 9, 1964; Watson, Sankhya A 26, 1964).

    Parameters
    ----------
    sigma : float, default=1.0
        Window width (standard deviation of the Gaussian).
    n_jobs : int or None, default=None
        Threads: None the threads the context allows (every core, at most ``OMP_NUM_THREADS``
        or a threadpoolctl OpenMP limit), -1 every core, k that many.

    Attributes
    ----------
    sigma_ : float
        The window width used.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.neighbors import NadarayaWatsonRegressor
    >>> X = np.linspace(0, 3, 31).reshape(-1, 1)
    >>> reg = NadarayaWatsonRegressor(sigma=0.2).fit(X, np.sin(X).ravel())
    >>> print(np.round(reg.predict([[1.5]]), 2))
    [0.98]
    """

    _parameter_constraints = _CONSTRAINTS

    def __init__(self, *, sigma=1.0, n_jobs=None):
        self.sigma = sigma
        self.n_jobs = n_jobs

    @fit_context
    def fit(self, X, y):
        """Keep the training points and targets.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        self : NadarayaWatsonRegressor
            The fitted regressor.
        """
        self.sigma_ = float(self.sigma)
        X, y = check_input(self, X, y, y_numeric=True)
        self._X = np.ascontiguousarray(X)
        self._y = np.asarray(y, dtype=np.float64)
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        h = self.sigma_
        # f = sum w_i y_i / sum w_i, computed in log space for the numerator's positive and
        # negative parts so that tiny windows never underflow to 0/0.
        den = gaussian_logsumexp(X, self._X, h, self.n_jobs)
        pos = np.maximum(self._y, 0.0)
        neg = np.maximum(-self._y, 0.0)
        out = np.zeros(X.shape[0])
        if np.any(pos > 0):
            out += np.exp(gaussian_logsumexp(X, self._X, h, self.n_jobs, pos) - den)
        if np.any(neg > 0):
            out -= np.exp(gaussian_logsumexp(X, self._X, h, self.n_jobs, neg) - den)
        return out
