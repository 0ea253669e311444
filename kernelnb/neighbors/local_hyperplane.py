"""K-local hyperplane and convex distance nearest neighbours (Vincent's thesis ch. 11;
Vincent & Bengio, NIPS 14, 2002).

HKNN: the distance from x to the affine hull of its K nearest neighbours in each class,
with weight decay lambda (eq. 11.5: ``(V'V + lambda I) alpha = V'(x - mean)``); lambda = 0 is
plain HKNN.  CKNN: the distance to their convex hull (a small QP per class and test point,
solved exactly by Wolfe's minimum-norm-point algorithm).  The class with the smallest
distance wins.
"""
from __future__ import annotations

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin, clone
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._threads import blas_single_thread
from .._fit import fit_context
from .._validation import NONNEGATIVE, N_JOBS, POSITIVE_INT, has_methods, check_input
from . import _neighbors
from ._base import SearchIndex, check_n_neighbors, kneighbors, n_threads

__all__ = ["HKNNClassifier", "CKNNClassifier"]


class _LocalHullClassifier(ClassifierMixin, BaseEstimator):
    """Base of HKNN and CKNN: the reference set per class and the nearest-hull rule.

    A subclass declares its parameters and ``_distances`` (squared distances of points to the
    local hulls of one class) and ``_project`` (the nearest point of one hull)."""

    @fit_context
    def fit(self, X, y):
        """Keep the reference set.

        All of (X, y), or the support vectors of ``reference`` (an estimator with
        ``support_``, e.g. an SVC, fitted here on X, y; thesis Table 11.2).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs (float32 inputs are searched in float32).
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).

        Returns
        -------
        self : object
            The fitted classifier.
        """
        X, y = check_input(self, X, y, dtype=[np.float64, np.float32])
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] < 2:
            raise ValueError(f"{type(self).__name__} needs at least two classes; got 1 class")
        keep = np.arange(X.shape[0])
        if self.reference is not None:
            ref = clone(self.reference).fit(X, y)
            if not hasattr(ref, "support_"):
                raise ValueError(f"reference {type(ref).__name__} has no support_ after fit")
            keep = np.sort(np.asarray(ref.support_))
            self.reference_estimator_ = ref
        self.reference_indices_ = keep
        Xr, yr = X[keep], y[keep]
        # per class: the reference points in float64 for the local solves, and in the input's
        # precision for the neighbour search (float32 searches run twice as fast)
        self._refs, self._search_refs = [], []
        for c in self.classes_:
            Rc = np.ascontiguousarray(Xr[yr == c])
            check_n_neighbors(self.n_neighbors, Rc.shape[0], f"the reference set of class {c!r}")
            self._refs.append(Rc.astype(np.float64))
            self._search_refs.append(SearchIndex(Rc))
        return self

    def hull_distances(self, X):
        """Squared distance of each row of X to each class's local hull.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Query points.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The squared distances, one column per class of ``classes_``.
        """
        check_is_fitted(self)
        X = np.ascontiguousarray(check_input(self, X, reset=False, dtype=[np.float64, np.float32]))
        Xs = X.astype(self._search_refs[0].dtype, copy=False)   # the references' precision
        X64 = np.ascontiguousarray(X, dtype=np.float64)
        out = np.empty((X.shape[0], len(self._refs)))
        for c, Rc in enumerate(self._refs):
            _, idx = kneighbors(Xs, None, self.n_neighbors, self.n_jobs,
                                index=self._search_refs[c])
            with blas_single_thread():
                out[:, c] = self._distances(X64, Rc, idx)
        return out

    def decision_function(self, X):
        """Two classes: d_0 - d_1 (positive towards ``classes_[1]``); more: minus the squared
        hull distances, one column per class (larger is better)."""
        D = self.hull_distances(X)
        if D.shape[1] == 2:
            return D[:, 0] - D[:, 1]
        return -D

    def predict(self, X):
        dist = self.hull_distances(X)
        return self.classes_[np.argmin(dist, axis=1)]

    def local_hulls(self, x):
        """For one point: per class, the K neighbours and the nearest point of their hull.

        Parameters
        ----------
        x : array-like of shape (n_features,)
            The query point.

        Returns
        -------
        list of dict
            One dict per class: ``class``, ``neighbors`` (K x n_features) and ``projection``
            (the point of their hull nearest to x).
        """
        check_is_fitted(self)
        x = check_input(self, np.asarray(x).reshape(1, -1), reset=False)
        out = []
        for c, Rc in enumerate(self._refs):
            _, idx = kneighbors(x, Rc, self.n_neighbors, 1)
            N = Rc[idx[0]]
            out.append({"class": self.classes_[c], "neighbors": N,
                        "projection": self._project(x[0], N)})
        return out


class HKNNClassifier(_LocalHullClassifier):
    """K-local hyperplane distance nearest neighbour classifier (Vincent's thesis ch. 11).

    The class whose K nearest points have the nearest affine hull wins; the distance to the
    hull is regularised by a weight decay (thesis eq. 11.5; Vincent and Bengio, NIPS 14, 2002).

    Parameters
    ----------
    n_neighbors : int, default=10
        K, neighbours taken in each class.
    weight_decay : float, default=0.0
        The weight decay lambda of eq. 11.5 (0: plain HKNN).
    reference : estimator with ``support_`` or None, default=None
        Use only its support vectors as the reference set (e.g. ``SVC(...)``).
    n_jobs : int or None, default=None
        Threads: None the threads the context allows (every core, at most ``OMP_NUM_THREADS``
        or a threadpoolctl OpenMP limit), -1 every core, k that many.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    reference_indices_ : ndarray of int
        Rows of the training set kept as the reference set.
    reference_estimator_ : estimator
        The fitted ``reference`` (only when one is given).
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.neighbors import HKNNClassifier
    >>> X, y = make_moons(n_samples=200, noise=0.2, random_state=0)
    >>> clf = HKNNClassifier(n_neighbors=5, weight_decay=0.1).fit(X[:150], y[:150])
    >>> print(clf.hull_distances(X[150:152]).shape)
    (2, 2)
    >>> print(round(clf.score(X[150:], y[150:]), 2))
    0.98
    """

    _parameter_constraints = {"n_neighbors": POSITIVE_INT, "weight_decay": NONNEGATIVE,
                              "reference": [has_methods(["fit"]), None], "n_jobs": N_JOBS}

    def __init__(self, *, n_neighbors=10, weight_decay=0.0, reference=None, n_jobs=None):
        self.n_neighbors = n_neighbors
        self.weight_decay = weight_decay
        self.reference = reference
        self.n_jobs = n_jobs

    def _distances(self, X, Rc, idx):
        return _neighbors.hyperplane_distances(X, Rc, np.ascontiguousarray(idx),
                                               float(self.weight_decay), n_threads(self.n_jobs))

    def _project(self, x, N):
        m = N.mean(axis=0)
        V = (N - m).T
        lam = float(self.weight_decay)
        A = V.T @ V + (lam if lam > 0 else 1e-10 * max(np.trace(V.T @ V), 1e-300)) * np.eye(N.shape[0])
        a = np.linalg.solve(A, V.T @ (x - m))
        return m + V @ a


class CKNNClassifier(_LocalHullClassifier):
    """K-local convex distance nearest neighbour classifier (Vincent's thesis section 11.3.2).

    The class whose K nearest points have the nearest convex hull wins (one small quadratic
    problem per class and query, solved exactly by Wolfe's minimum-norm-point algorithm).

    Parameters
    ----------
    n_neighbors : int, default=10
        K, neighbours taken in each class.
    reference : estimator with ``support_`` or None, default=None
        Use only its support vectors as the reference set (e.g. ``SVC(...)``).
    n_jobs : int or None, default=None
        Threads: None the threads the context allows (every core, at most ``OMP_NUM_THREADS``
        or a threadpoolctl OpenMP limit), -1 every core, k that many.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    reference_indices_ : ndarray of int
        Rows of the training set kept as the reference set.
    reference_estimator_ : estimator
        The fitted ``reference`` (only when one is given).
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.neighbors import CKNNClassifier
    >>> X, y = make_moons(n_samples=200, noise=0.2, random_state=0)
    >>> clf = CKNNClassifier(n_neighbors=5).fit(X[:150], y[:150])
    >>> hulls = clf.local_hulls(X[150])
    >>> print(len(hulls), hulls[0]["neighbors"].shape)
    2 (5, 2)
    >>> print(round(clf.score(X[150:], y[150:]), 2))
    0.98
    """

    _parameter_constraints = {"n_neighbors": POSITIVE_INT, "reference": [has_methods(["fit"]), None],
                              "n_jobs": N_JOBS}

    def __init__(self, *, n_neighbors=10, reference=None, n_jobs=None):
        self.n_neighbors = n_neighbors
        self.reference = reference
        self.n_jobs = n_jobs

    def _distances(self, X, Rc, idx):
        return _neighbors.convex_distances(X, Rc, np.ascontiguousarray(idx), n_threads(self.n_jobs))

    def _project(self, x, N):
        _, W = _neighbors.convex_distances(x[None, :], N, np.arange(N.shape[0])[None, :], 1, True)
        return W[0] @ N
