"""Invariances learned from unlabeled points (Chapelle's thesis, section 7.5.2).

The vicinity of a point is modelled by a Gaussian of covariance ``Sigma`` in the coordinates of
the empirical kernel PCA map ``psi`` (section 2.2), the same for every point; with the
neighbours of each labeled point among the unlabeled ones,

    Sigma = sum_i sum_{j <= k} (psi_i - psi_unl(i,j)) (psi_i - psi_unl(i,j))',

and minimising the vicinal risk with those Gaussians is an invariant SVM (chapter 6) whose
matrix ``C_gamma`` of eq. (6.2) becomes ``((1 - gamma) I + gamma Sigma)^{1/2}``: the differences
``psi_i - psi_unl(i,j)`` play the part of the tangent vectors (:func:`kernelnb.prior.invariant_linear_map`,
:class:`kernelnb.prior.LinearInvariantSVC`).
"""
from __future__ import annotations

import numbers

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._fit import fit_context
from .._validation import interval, options, str_options, check_input
from ..neighbors._base import kneighbors
from ..prior.invariance import LinearInvariantSVC
from ..prior.kpca import KernelPCAMap

__all__ = ["UnlabeledInvariantSVC"]


class UnlabeledInvariantSVC(ClassifierMixin, BaseEstimator):
    """Invariant SVM whose invariances come from the unlabeled points (thesis §7.5.2).

    1. the empirical kernel PCA map ``psi`` (:class:`kernelnb.prior.KernelPCAMap`) of the
       labeled and unlabeled points (``method='subset'``: of ``n_components`` random ones, the
       thesis's ``p`` points);
    2. for each labeled point ``x_i`` its ``n_neighbors`` nearest unlabeled points (Euclidean
       distance in input space) and the differences ``psi_i - psi_unl(i,j)``;
    3. ``Sigma`` = the sum of their outer products (``covariance_``), and the linear SVM on
       ``psi C_gamma^{-1}``, ``C_gamma = ((1 - gamma) I + gamma Sigma)^{1/2}``, ``gamma`` the
       parameter ``invariance`` (0: the SVM on ``psi``, i.e. the kernel SVM on the span of the
       fitted points) -- :class:`kernelnb.prior.LinearInvariantSVC` with those differences as
       its tangent vectors.

    The thesis estimated ``Sigma`` this way rather than by EM "for computational reasons".

    Parameters
    ----------
    invariance : float in [0, 1), default=0.5
        ``gamma``.
    n_neighbors : int, default=5
        ``k``, unlabeled neighbours per labeled point.
    scale_free : bool, default=True
        Make ``invariance`` scale free (:func:`kernelnb.prior.scale_free_invariance` of
        ``trace(Sigma)``), as the invariant SVMs of chapter 6.
    n_components : int or None, default=None
        Components of the kernel PCA map (``p``); None: all (``method='exact'`` only).
    method : {'exact', 'subset', 'cholesky'}, default='exact'
        The map's method (:class:`kernelnb.prior.KernelPCAMap`).
    C : float, default=1.0
        Soft-margin penalty of the SVM.
    kernel : {'rbf', 'linear', 'poly'}, default='rbf'
        The kernel of the map.
    sigma : float or 'scale', default=1.0
        RBF width.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    random_state : int, RandomState instance or None, default=None
        The random subset of ``method='subset'``.

    Attributes
    ----------
    kpca_ : KernelPCAMap
        The map, fitted on the labeled and unlabeled points.
    neighbors_ : ndarray of shape (n_labeled, n_neighbors)
        Indices, in ``X_unlabeled`` (in ``X`` without it), of each labeled point's nearest
        unlabeled points.
    covariance_ : ndarray of shape (p, p)
        ``Sigma``.
    invariant_svc_ : LinearInvariantSVC
        The invariant SVM on ``psi`` of the labeled points.
    invariance_ : float
        The trade-off used (after the scale-free substitution).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_features_in_ : int
        Number of features seen in ``fit``.
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    O. Chapelle, PhD thesis, Université Paris 6, 2002, section 7.5.2 (and 6.2 for
    ``C_gamma``).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import UnlabeledInvariantSVC
    >>> rng = np.random.RandomState(0)
    >>> y = np.repeat([0, 1], 100)
    >>> X = np.column_stack([(2 * y - 1) * 0.5 + 0.05 * rng.randn(200), 3 * rng.randn(200)])
    >>> lab = np.r_[0, 1, 100, 101]
    >>> unl = np.setdiff1d(np.arange(200), lab)
    >>> clf = UnlabeledInvariantSVC(kernel="linear", invariance=0.5, C=10.0).fit(
    ...     X[lab], y[lab], X_unlabeled=X[unl])
    >>> print(clf.covariance_.shape, clf.score(X[unl], y[unl]) > 0.9)
    (2, 2) True
    """

    _parameter_constraints = {
        "invariance": [interval(numbers.Real, 0, 1, closed="left")],
        "n_neighbors": [interval(numbers.Integral, 1, None, closed="left")],
        "scale_free": ["boolean"],
        "n_components": [interval(numbers.Integral, 1, None, closed="left"), None],
        "method": [str_options({"exact", "subset", "cholesky"})],
        "C": [interval(numbers.Real, 0, None, closed="neither"), options(numbers.Real, {np.inf})],
        "kernel": [str_options({"linear", "poly", "rbf"})],
        "sigma": [interval(numbers.Real, 0, None, closed="neither"), str_options({"scale"})],
        "degree": [interval(numbers.Integral, 1, None, closed="left")],
        "coef0": [interval(numbers.Real, None, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, invariance=0.5, n_neighbors=5, scale_free=True, n_components=None,
                 method="exact", C=1.0, kernel="rbf", sigma=1.0, degree=3, coef0=1.0,
                 random_state=None):
        self.invariance = invariance
        self.n_neighbors = n_neighbors
        self.scale_free = scale_free
        self.n_components = n_components
        self.method = method
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.random_state = random_state

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None):
        """Fit the map on all the points, ``Sigma`` from the unlabeled neighbours, the SVM.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labeled points.
        y : array of shape (n_samples,)
            Their labels.
        X_unlabeled : array of shape (n_unlabeled, n_features) or None, default=None
            The unlabeled points (at least ``n_neighbors``); None: the neighbours are taken
            among the other labeled points.

        Returns
        -------
        self : UnlabeledInvariantSVC
            The fitted classifier.
        """
        X, y = check_input(self, X, y)
        check_classification_targets(y)
        if np.unique(y).shape[0] < 2:
            raise ValueError("UnlabeledInvariantSVC needs at least two classes in y; got 1 class")
        own = X_unlabeled is None
        Xu = X[:0] if own else check_input(self, X_unlabeled, reset=False)
        pool = X if own else Xu
        k = int(self.n_neighbors)
        if pool.shape[0] - own < k:
            raise ValueError(f"n_neighbors={k} is larger than the number of "
                             f"{'other labeled' if own else 'unlabeled'} points: got "
                             f"n_samples={pool.shape[0] - own}")
        if self.method != "exact" and self.n_components is None:
            raise ValueError(f"n_components must be set for method={self.method!r}")
        self.kpca_ = KernelPCAMap(n_components=self.n_components, method=self.method,
                                  kernel=self.kernel, sigma=self.sigma, degree=self.degree,
                                  coef0=self.coef0, random_state=self.random_state)
        Psi_all = self.kpca_.fit_transform(np.vstack([X, Xu]))
        Psi, Psi_u = Psi_all[:X.shape[0]], Psi_all[X.shape[0]:]
        if own:      # no unlabeled points: each labeled point's labeled neighbours
            _, self.neighbors_ = kneighbors(X, X, k, n_jobs=1, exclude=np.arange(X.shape[0]))
            Psi_u = Psi
        else:
            _, self.neighbors_ = kneighbors(X, Xu, k, n_jobs=1)
        diffs = Psi[:, None, :] - Psi_u[self.neighbors_]          # (n, k, p)
        flat = diffs.reshape(-1, diffs.shape[-1])
        self.covariance_ = flat.T @ flat
        self.invariant_svc_ = LinearInvariantSVC(
            invariance=self.invariance, scale_free=self.scale_free, C=self.C, kernel="linear",
            precision="float64").fit(Psi, y, tangents=diffs)
        self.invariance_ = self.invariant_svc_.invariance_
        self.classes_ = self.invariant_svc_.classes_
        return self

    def decision_function(self, X):
        """Decision values of the invariant SVM on ``psi(X)``.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,) or (n, n_classes * (n_classes - 1) / 2)
            The decision values (as :meth:`kernelnb.svm.SVC.decision_function`).
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return self.invariant_svc_.decision_function(self.kpca_.transform(X))

    def predict(self, X):
        """The predicted labels.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,)
            The labels.
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return self.invariant_svc_.predict(self.kpca_.transform(X))
