"""K-nearest-neighbour classification and regression (Cover & Hart, "Nearest neighbor pattern
classification", IEEE Trans. Information Theory 13, 1967)."""
from __future__ import annotations

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin, RegressorMixin
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._fit import fit_context
from .._validation import N_JOBS, POSITIVE_INT, check_input, check_param
from ._base import SearchIndex, check_n_neighbors, kneighbors

__all__ = ["KNeighborsClassifier", "KNeighborsRegressor"]


class _KNNBase(BaseEstimator):
    _parameter_constraints = {"n_neighbors": POSITIVE_INT, "n_jobs": N_JOBS}

    def __init__(self, *, n_neighbors=5, n_jobs=None):
        self.n_neighbors = n_neighbors
        self.n_jobs = n_jobs

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """Distances (not squared) and indices of the nearest training points, ascending
        (scikit-learn's ``KNeighborsMixin.kneighbors``).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features) or None, default=None
            The query points.  None queries the training points, each one left out of its own
            neighbourhood (leave-one-out).
        n_neighbors : int or None, default=None
            Neighbours per query (None: the estimator's ``n_neighbors``).
        return_distance : bool, default=True
            Return the distances with the indices; ``False``: the indices alone.

        Returns
        -------
        distances : ndarray of shape (n_queries, n_neighbors)
            Euclidean distances to the neighbours, ascending (only with ``return_distance``).
        indices : ndarray of shape (n_queries, n_neighbors)
            Their rows in the training set.
        """
        check_is_fitted(self)
        K = self.n_neighbors if n_neighbors is None else check_param(
            "n_neighbors", n_neighbors, POSITIVE_INT, f"{type(self).__name__}.kneighbors")
        if X is None:
            K = check_n_neighbors(K, self._X.shape[0] - 1, "the training set minus one point")
            d2, idx = kneighbors(self._X, self._X, K, self.n_jobs,
                                 exclude=np.arange(self._X.shape[0]), index=self._index)
        else:
            X = check_input(self, X, reset=False, dtype=[np.float64, np.float32])
            K = check_n_neighbors(K, self._X.shape[0])
            d2, idx = kneighbors(X, self._X, K, self.n_jobs, index=self._index)
        return (np.sqrt(d2), idx) if return_distance else idx

    def _fit(self, X, y):
        check_n_neighbors(self.n_neighbors, X.shape[0])
        self._X = np.ascontiguousarray(X)     # float32 stays float32: searches run in its precision
        # the search's prepared rows (built by the first search, kept for the next ones)
        self._index = SearchIndex(self._X)
        self.n_samples_fit_ = X.shape[0]
        return self


class KNeighborsClassifier(ClassifierMixin, _KNNBase):
    """Majority vote of the K nearest training points (ties: the smallest class label).

    Cover and Hart, "Nearest neighbor pattern classification", IEEE Trans. Information Theory
    13, 1967.

    Parameters
    ----------
    n_neighbors : int, default=5
        K, the number of neighbours that vote.
    n_jobs : int or None, default=None
        Threads of the neighbour search: None the threads the context allows (every core, at
        most ``OMP_NUM_THREADS`` or a threadpoolctl OpenMP limit), -1 every core, k that many.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_samples_fit_ : int
        Training points kept.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.neighbors import KNeighborsClassifier
    >>> X, y = make_moons(n_samples=200, noise=0.2, random_state=0)
    >>> knn = KNeighborsClassifier(n_neighbors=5).fit(X[:150], y[:150])
    >>> distances, indices = knn.kneighbors(X[150:152])
    >>> print(indices.shape)
    (2, 5)
    >>> print(round(knn.score(X[150:], y[150:]), 2))
    0.98
    """

    @fit_context
    def fit(self, X, y):
        """Keep the training set (all the work is done per query).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs (float32 inputs are searched in float32).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : KNeighborsClassifier
            The fitted classifier.
        """
        X, y = check_input(self, X, y, dtype=[np.float64, np.float32])
        check_classification_targets(y)
        self.classes_, self._y = np.unique(y, return_inverse=True)
        return self._fit(X, y)

    def predict_proba(self, X):
        check_is_fitted(self)
        _, idx = self.kneighbors(X)
        counts = np.zeros((idx.shape[0], self.classes_.shape[0]))
        np.add.at(counts, (np.arange(idx.shape[0])[:, None], self._y[idx]), 1.0)
        return counts / idx.shape[1]

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class KNeighborsRegressor(RegressorMixin, _KNNBase):
    """Mean target of the K nearest training points.

    Parameters
    ----------
    n_neighbors : int, default=5
        K, the number of neighbours averaged.
    n_jobs : int or None, default=None
        Threads of the neighbour search: None the threads the context allows (every core, at
        most ``OMP_NUM_THREADS`` or a threadpoolctl OpenMP limit), -1 every core, k that many.

    Attributes
    ----------
    n_samples_fit_ : int
        Training points kept.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.neighbors import KNeighborsRegressor
    >>> X = np.arange(10.0).reshape(-1, 1)
    >>> y = X.ravel() ** 2
    >>> reg = KNeighborsRegressor(n_neighbors=2).fit(X, y)
    >>> print(reg.predict([[2.4], [7.6]]))
    [ 6.5 56.5]
    """

    @fit_context
    def fit(self, X, y):
        """Keep the training set (all the work is done per query).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets.

        Returns
        -------
        self : KNeighborsRegressor
            The fitted regressor.
        """
        X, y = check_input(self, X, y, y_numeric=True, multi_output=True)
        self._y = np.asarray(y, dtype=np.float64)
        return self._fit(X, y)

    def predict(self, X):
        _, idx = self.kneighbors(X)
        return self._y[idx].mean(axis=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
