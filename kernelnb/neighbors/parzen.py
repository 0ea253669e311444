"""Parzen windows: Gaussian kernel density, its Bayes classifier, and Nadaraya-Watson regression
(the course lecture, ``seeds/003``; Vincent's thesis ch. 13 for the density's use as a baseline).

With a window of width h in d dimensions::

    p(x) = (1/l) sum_i N(x; x_i, h^2 I) = (1/l) (2 pi h^2)^(-d/2) sum_i exp(-||x - x_i||^2 / (2 h^2))
"""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, DensityMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import check_positive, gaussian_logsumexp

__all__ = ["ParzenDensity", "ParzenClassifier", "NadarayaWatsonRegressor"]


class ParzenDensity(DensityMixin, BaseEstimator):
    """Gaussian Parzen window density estimator.

    Parameters
    ----------
    bandwidth : float, default=1.0
        Window width h (standard deviation of each Gaussian).
    n_jobs : int, optional

    Methods give the log density (``score_samples``), its mean (``score``) and the average
    negative log-likelihood ``anll`` used in Vincent's thesis tables.
    """

    def __init__(self, bandwidth=1.0, n_jobs=None):
        self.bandwidth = bandwidth
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        X = validate_data(self, X, dtype=np.float64)
        check_positive("bandwidth", self.bandwidth)
        self._X = np.ascontiguousarray(X)
        return self

    def score_samples(self, X):
        """log p(x) for every row of X."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        h = float(self.bandwidth)
        n, d = self._X.shape
        lse = gaussian_logsumexp(X, self._X, h, self.n_jobs)
        return lse - np.log(n) - 0.5 * d * np.log(2 * np.pi * h * h)

    def score(self, X, y=None):
        """Mean log-likelihood."""
        return float(np.mean(self.score_samples(X)))

    def anll(self, X):
        """Average negative log-likelihood -(1/m) sum log p(x_i)."""
        return -self.score(X)


class BayesDensityClassifier(ClassifierMixin, BaseEstimator):
    """Bayes rule over one density estimator per class: argmax_c log p(x|c) + log P(c).

    Subclasses fit ``densities_`` (objects with ``score_samples``) and ``class_prior_``."""

    def _joint_log(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return np.column_stack([dens.score_samples(X) for dens in self.densities_]) + np.log(
            self.class_prior_)

    def _fit_densities(self, X, y, make_density):
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, yi = np.unique(y, return_inverse=True)
        self.densities_ = [make_density().fit(X[yi == c]) for c in range(self.classes_.shape[0])]
        self.class_prior_ = np.bincount(yi) / yi.shape[0]
        return self

    def predict_log_proba(self, X):
        J = self._joint_log(X)
        return J - logsumexp(J, axis=1, keepdims=True)

    def predict_proba(self, X):
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        joint = self._joint_log(X)
        return self.classes_[np.argmax(joint, axis=1)]


class ParzenClassifier(BayesDensityClassifier):
    """One Parzen density per class and the Bayes rule with the class priors (class frequencies).

    Parameters
    ----------
    bandwidth : float, default=1.0
    n_jobs : int, optional
    """

    def __init__(self, bandwidth=1.0, n_jobs=None):
        self.bandwidth = bandwidth
        self.n_jobs = n_jobs

    def fit(self, X, y):
        check_positive("bandwidth", self.bandwidth)
        return self._fit_densities(X, y, lambda: ParzenDensity(self.bandwidth, self.n_jobs))


class NadarayaWatsonRegressor(RegressorMixin, BaseEstimator):
    """Kernel-weighted average of the training targets with a Gaussian window of width h::

        f(x) = sum_i K_h(x, x_i) y_i / sum_i K_h(x, x_i)
    """

    def __init__(self, bandwidth=1.0, n_jobs=None):
        self.bandwidth = bandwidth
        self.n_jobs = n_jobs

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        check_positive("bandwidth", self.bandwidth)
        self._X = np.ascontiguousarray(X)
        self._y = np.asarray(y, dtype=np.float64)
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        h = float(self.bandwidth)
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
