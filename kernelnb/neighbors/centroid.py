"""The kernel centroid classifier (Vincent's thesis, section 5.3.4).

The squared distance in feature space from Phi(x) to the centroid of a class T = {x_1..x_l} is

    d_Phi(x, T) = K(x, x) - (2 / l) sum_i K(x, x_i) + (1 / l^2) sum_ij K(x_i, x_j),

and the class of the nearest centroid wins.  With the linear kernel this is the nearest
centroid (nearest class mean) rule.
"""
from __future__ import annotations

import numbers

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .. import kernels as _k
from .._fit import fit_context
from .._validation import POSITIVE, POSITIVE_INT, interval, str_options, check_input

__all__ = ["KernelCentroidClassifier"]


class KernelCentroidClassifier(ClassifierMixin, BaseEstimator):
    """Nearest class centroid in the feature space of a kernel (Vincent's thesis §5.3.4).

    Each class T of l training points is represented by the centroid of its images
    ``Phi(x_i)``; the squared distance of ``Phi(x)`` to it needs only kernel values,
    ``d(x, T) = K(x, x) - (2 / l) sum_i K(x, x_i) + (1 / l^2) sum_ij K(x_i, x_j)``, and a point
    goes to the class of the nearest centroid.  With ``kernel='linear'`` this is the nearest
    class mean rule (scikit-learn's ``NearestCentroid``).

    Parameters
    ----------
    kernel : {'rbf', 'linear', 'poly'} or callable, default='rbf'
        The kernel; a callable ``f(X, Y) -> K``.
    sigma : float or 'scale', default=1.0
        RBF width, ``k(x, y) = exp(-||s (x - y)||^2 / (2 sigma^2))``; ``'scale'`` as
        scikit-learn's ``gamma='scale'``.
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors ``s`` of the RBF kernel (None: all ones).
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel (the ``(1 + x.z)^p`` of the theses).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    centroid_sqnorms_ : ndarray of shape (n_classes,)
        ``(1 / l^2) sum_ij K(x_i, x_j)`` per class: the squared norm of each centroid.
    kernel_ : kernelnb.kernels.Kernel
        The fitted kernel.
    n_features_in_ : int
        Number of features seen in ``fit``.
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    P. Vincent, Modèles à noyaux à structure locale, PhD thesis, Université de Montréal, 2003,
    section 5.3.4.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.neighbors import KernelCentroidClassifier
    >>> X, y = make_moons(n_samples=200, noise=0.2, random_state=0)
    >>> clf = KernelCentroidClassifier(sigma=0.5).fit(X[:150], y[:150])
    >>> print(clf.centroid_distances(X[150:152]).shape)
    (2, 2)
    >>> print(round(clf.score(X[150:], y[150:]), 2))
    0.98
    """

    _parameter_constraints = {
        "kernel": [str_options({"linear", "poly", "rbf"}), callable],
        "sigma": [*POSITIVE, str_options({"scale"})],
        "scales": ["array-like", None],
        "degree": POSITIVE_INT,
        "coef0": [interval(numbers.Real, None, None, closed="neither")],
    }

    def __init__(self, *, kernel="rbf", sigma=1.0, scales=None, degree=3, coef0=1.0):
        self.kernel = kernel
        self.sigma = sigma
        self.scales = scales
        self.degree = degree
        self.coef0 = coef0

    @fit_context
    def fit(self, X, y):
        """Compute each class's centroid term from the training kernel.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).

        Returns
        -------
        self : object
            The fitted classifier.
        """
        X, y = check_input(self, X, y)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if self.classes_.shape[0] < 2:
            raise ValueError("KernelCentroidClassifier needs at least two classes; got 1 class")
        self.kernel_ = _k.KernelSpec.of(self).fit(X)
        counts = np.bincount(codes, minlength=self.classes_.shape[0])
        W = np.zeros((X.shape[0], self.classes_.shape[0]))
        W[np.arange(X.shape[0]), codes] = 1.0 / counts[codes]
        # the class means of the kernel columns, block by block (no n x n matrix kept)
        self._expansion = _k.KernelExpansion(self.kernel_, X, W)
        M = self._expansion(X)                       # M[i, c] = (1 / l_c) sum_{j in c} K(x_i, x_j)
        self.centroid_sqnorms_ = np.array([M[codes == c, c].mean()
                                           for c in range(self.classes_.shape[0])])
        return self

    def centroid_distances(self, X):
        """Squared feature-space distance of each row of X to each class centroid.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Query points.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``d(x, T_c)``, one column per class of ``classes_``.
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        D = (self.kernel_.diag(X)[:, None] - 2.0 * self._expansion(X)
             + self.centroid_sqnorms_[None, :])
        return np.maximum(D, 0.0)

    def decision_function(self, X):
        """Two classes: ``d_0 - d_1`` (positive towards ``classes_[1]``); more: minus the
        squared centroid distances, one column per class (larger is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Query points.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The decision values.
        """
        D = self.centroid_distances(X)
        if D.shape[1] == 2:
            return D[:, 0] - D[:, 1]
        return -D

    def predict(self, X):
        """The class of the nearest centroid.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Query points.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels.
        """
        D = self.centroid_distances(X)
        return self.classes_[np.argmin(D, axis=1)]
