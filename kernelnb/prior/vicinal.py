"""Vicinal risk minimisation: SVMs and classifiers with a vicinity around every training point.

Vicinal risk minimisation (VRM; Chapelle's thesis [1] §1.3, Chapelle, Weston, Bottou & Vapnik
[2]) replaces the empirical risk by the risk of a density estimate that spreads each training
point ``x_i`` over a vicinity, here a Gaussian ``N(x_i, sigma_i^2 I)`` (Eq. 1.14 and, with
point-dependent widths, Eq. 2.22):

    R_vic(f) = (1/n) sum_i  integral  1[y_i f(x) <= 0]  dN(x_i, sigma_i^2 I)(x).

For a linear function ``f(x) = w.x + b`` (or one linear in a kernel's feature space, the
vicinities then being Gaussians there) this is ``(1/n) sum_i phi(-y_i f(x_i) / (sigma_i ||w||))``
with ``phi(t) = (1 + erf(t / sqrt 2)) / 2`` (Eqs. 1.15/1.16): the erf loss ``'vrm'`` of
:mod:`kernelnb.losses` of the distance of each point to the boundary.

* :class:`VicinalRiskClassifier` minimises that risk itself (by L-BFGS, as the thesis's
  experiments of §2.3.1 minimised it by gradient descent).  It is non-convex and scale-free:
  only the widths matter, and no C.
* :class:`VicinalSVC` is its convex approximation (§2.3.1): the erf loss replaced by its
  piecewise-linear surrogate (Fig. 2.2, ``'vrm_hinge'``), which gives the SVM

      min 1/2 ||w||^2 + C sum_i xi_i / gamma_i,   y_i (w.x_i + b) >= gamma_i - xi_i,

  whose dual is ``max sum gamma_i alpha_i - 1/2 a'(yy' o K)a``, ``sum y_i alpha_i = 0``,
  ``0 <= alpha_i <= C / gamma_i``, with relative widths ``gamma_i = sigma_i / mean(sigma)``.  Points
  whose location is uncertain (large sigma_i) get a larger margin.  There the global width is
  the role of C (§2.1.3: sigma -> 0 is the hard margin, C -> infinity), so only the relative
  widths enter; equal widths give the plain SVM exactly.
* :func:`vicinity_widths` computes the widths: ``'knn'``, the mean distance to the
  ``n_neighbors`` nearest other training points (thesis §2.3.1, 5 neighbours in its breast-cancer
  experiment), or ``'quantile'``, the ``quantile`` (5/1000 in the thesis's MNIST experiment)
  quantile of the distances to all other training points; times ``width_factor``.  Distances
  are measured in the kernel's feature space, where the vicinities live:
  ``d(x, z)^2 = k(x, x) + k(z, z) - 2 k(x, z)`` (for the linear kernel the Euclidean distance of
  the inputs; for the RBF kernel a monotone function of the scaled input distance).

References
----------
[1] O. Chapelle, Support Vector Machines: Induction Principles, Adaptive Tuning and Prior
    Knowledge, PhD thesis, Université Paris 6, 2002, §1.3 (VRM), §2.1.3 (the SVM as the convex
    approximation, Fig. 2.2) and §2.3.1 (adaptive kernel widths).
[2] O. Chapelle, J. Weston, L. Bottou and V. Vapnik, Vicinal Risk Minimization, NIPS 13, 2000.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.optimize import minimize
from .._estimator import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import type_of_target
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .. import kernels as _k
from .._classifier import BinaryClassifierMixin
from .._fit import fit_context
from .._threads import blas_single_thread, blas_threads_for
from .._validation import (NONNEGATIVE, POSITIVE, POSITIVE_INT, interval, str_options, check_input,
                           check_param)
from ..losses import get_loss
from ..svm import SVC
from .invariance import kernel_input_derivative, kernel_tangent_gram

__all__ = ["VicinalSVC", "VicinalRiskClassifier", "EllipsoidalVicinalSVC", "vicinity_widths",
           "vicinal_margins", "input_margins", "WIDTH_RULES"]

#: The width rules of :func:`vicinity_widths` (besides a number or an array).
WIDTH_RULES = ("knn", "quantile")

_WIDTH_CONSTRAINTS = [str_options(set(WIDTH_RULES)),
                      interval(numbers.Real, 0, None, closed="neither"), "array-like"]
_RULE_CONSTRAINTS = {
    "width": _WIDTH_CONSTRAINTS,
    "width_factor": POSITIVE,
    "n_neighbors": POSITIVE_INT,
    "quantile": [interval(numbers.Real, 0, 1, closed="both")],
}
# Rows of distances computed at once (about 32 MB of float64).
_BLOCK_BYTES = 32 * 2**20


def _distance_blocks(X, kernel):
    """Yield (rows, distances of X[rows] to every row of X) in the kernel's feature space
    (Euclidean on X when ``kernel`` is None or linear)."""
    n = X.shape[0]
    step = max(1, int(_BLOCK_BYTES // (8 * max(n, 1))))
    kernel = _k.Linear() if kernel is None else kernel   # its feature space is the input space
    precomputed = isinstance(kernel, _k.Precomputed)
    diag = np.diag(X).astype(np.float64) if precomputed else kernel.diag(X)
    for s in range(0, n, step):
        rows = slice(s, min(n, s + step))
        Kb = np.asarray(X[rows] if precomputed else kernel(X[rows], X), dtype=np.float64)
        d2 = diag[rows, None] + diag[None, :] - 2.0 * Kb
        yield rows, np.sqrt(np.maximum(d2, 0.0))


def vicinity_widths(X, width="knn", *, n_neighbors=5, quantile=0.005, factor=1.0, kernel=None):
    """Widths sigma_i of the Gaussian vicinities of the training points.

    Chapelle's thesis §2.3.1, Eq. 2.22.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        Training inputs (the kernel matrix itself for a precomputed kernel).
    width : {'knn', 'quantile'}, float or array of shape (n_samples,), default='knn'
        ``'knn'``: the mean distance to the ``n_neighbors`` nearest other points (at most
        n - 1); ``'quantile'``: the ``quantile`` quantile of the distances to all other points
        (linear interpolation, :func:`numpy.quantile`); a number: the same width for every
        point; an array: the widths themselves.
    n_neighbors : int, default=5
        Neighbours of the ``'knn'`` rule.
    quantile : float in [0, 1], default=0.005
        Quantile of the ``'quantile'`` rule.
    factor : float, default=1.0
        Multiplies the widths (the global factor the thesis chooses by cross-validation).
    kernel : kernelnb.kernels.Kernel, optional
        A fitted kernel: distances are then measured in its feature space,
        ``d^2 = k(x, x) + k(z, z) - 2 k(x, z)``; None (or linear): Euclidean distances of X.

    Returns
    -------
    ndarray of shape (n_samples,)
        The widths, non-negative (0 where a point's neighbours are all duplicates of it; a
        single point gets 0 from the rules).
    """
    check_param("width", width, _WIDTH_CONSTRAINTS, "vicinity_widths")
    check_param("n_neighbors", n_neighbors, POSITIVE_INT, "vicinity_widths")
    check_param("quantile", quantile, _RULE_CONSTRAINTS["quantile"], "vicinity_widths")
    check_param("factor", factor, POSITIVE, "vicinity_widths")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got shape {X.shape}")
    n = X.shape[0]
    if isinstance(width, str):
        if width not in WIDTH_RULES:
            raise ValueError(f"width must be one of {list(WIDTH_RULES)}, a positive number or "
                             f"an array, got {width!r}")
        sig = np.zeros(n)
        if n > 1:
            k = min(int(n_neighbors), n - 1)
            # BLAS threads only for products large enough to gain from them
            with blas_threads_for(n * n * X.shape[1]):
                for rows, D in _distance_blocks(X, kernel):
                    idx = np.arange(rows.start, rows.stop)
                    D[np.arange(D.shape[0]), idx] = np.inf      # not its own neighbour
                    if width == "knn":
                        sig[rows] = np.partition(D, k - 1, axis=1)[:, :k].mean(axis=1)
                    else:
                        D.sort(axis=1)
                        sig[rows] = np.quantile(D[:, :n - 1], float(quantile), axis=1)
    elif isinstance(width, numbers.Real):
        sig = np.full(n, float(width))
    else:
        sig = np.asarray(width, dtype=np.float64).ravel() if np.ndim(width) else np.asarray([])
        if sig.shape[0] != n or np.ndim(width) != 1:
            raise ValueError(f"width given as an array must have shape ({n},) (one width per "
                             f"sample), got shape {np.shape(width)}")
        if not np.all(np.isfinite(sig) & (sig > 0)):
            raise ValueError("width given as an array must hold positive finite numbers; got "
                             f"{sig[~(np.isfinite(sig) & (sig > 0))][0]!r}")
    return sig * float(factor)


def vicinal_margins(sigmas):
    """Relative widths ``gamma_i = sigma_i / mean(sigma)``, the margins of the VRM-SVM.

    Chapelle's thesis §2.3.1.  A zero width (a point whose neighbours all coincide with it) is
    raised to 1e-3 times the mean so that every margin is positive; all zero (or all equal)
    gives ones.

    Parameters
    ----------
    sigmas : array of shape (n_samples,)
        The vicinity widths (:func:`vicinity_widths`).

    Returns
    -------
    ndarray of shape (n_samples,)
        The margins, positive, of mean 1.
    """
    s = np.asarray(sigmas, dtype=np.float64).ravel()
    mean = float(s.mean()) if s.size else 0.0
    if not mean > 0:
        return np.ones(s.shape[0])
    s = np.maximum(s, 1e-3 * mean)
    return s / s.mean()


class VicinalSVC(SVC):
    """SVM with a Gaussian vicinity of its own width around each training point.

    The convex approximation of vicinal risk minimisation with adaptive widths (Chapelle's
    thesis §2.3.1).  It solves ``min 1/2 ||w||^2 + C sum_i xi_i / gamma_i`` subject to
    ``y_i f(x_i) >= gamma_i - xi_i``, i.e. the dual ``max sum gamma_i alpha_i -
    1/2 a'(yy' o K)a``, ``sum y_i alpha_i = 0``, ``0 <= alpha_i <= C / gamma_i``, with
    ``gamma_i = sigma_i / mean(sigma)`` (:func:`vicinal_margins`) and the widths sigma_i from
    :func:`vicinity_widths`.  It is :class:`kernelnb.svm.SVC` fitted with
    ``SVC.fit(X, y, margins=gamma)``: equal widths (``width`` a number) give the plain SVC.

    Parameters
    ----------
    width : {'knn', 'quantile'}, float or array of shape (n_samples,), default='knn'
        How the vicinity widths are chosen (:func:`vicinity_widths`), in the kernel's feature
        space: mean distance to the ``n_neighbors`` nearest training points, the ``quantile``
        quantile of the distances to the others, one width for all (the plain SVM), or the
        widths of the training points themselves.
    width_factor : float, default=1.0
        Multiplies the widths (``sigmas_``).  The margins gamma_i are relative widths and do not
        depend on it: in this formulation C sets the overall width (thesis §2.1.3).
    n_neighbors : int, default=5
        Neighbours of the ``'knn'`` rule (the thesis's 5).
    quantile : float, default=0.005
        Quantile of the ``'quantile'`` rule (the thesis's 5/1000).
    C : float, default=1.0
        Soft-margin penalty (> 0; ``np.inf``: the hard margin).
    kernel : {'rbf', 'linear', 'poly', 'precomputed'} or callable, default='rbf'
        The SVM's kernel; the widths are measured in its feature space.
    sigma : float or 'scale', default=1.0
        The RBF kernel's width (not a vicinity's): ``exp(-||s (x - y)||^2 / (2 sigma^2))``.
    scales : array of shape (n_features,), optional
        Per-feature scaling factors ``s`` of the RBF kernel.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    margin : {'l1', 'l2', 'hard'}, default='l1'
        Linear slack, squared slack (the slack term ``C xi_i^2 / (2 gamma_i)``), or none.
    tol : float, default=1e-3
        Stop when the maximal KKT violation is at most ``tol``.
    cache_size : float, default=200
        Kernel row cache in MB.
    max_iter : int, default=-1
        Solver iterations per binary problem (-1: no limit).
    shrinking : bool, default=True
        Shrinking of bound variables (LIBSVM's heuristic).
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C per class.
    decision_function_shape : {'ovr', 'ovo'}, default='ovr'
        Shape of the multi-class decision values.
    warm_start : bool, default=False
        Start from the previous fit's dual variables (same data).
    n_jobs : int or None, default=None
        Threads of the solver.  None: the threads the context allows (every core, at most
        ``OMP_NUM_THREADS`` or a threadpoolctl OpenMP limit); -1: every core; k: k threads.
    verbose : bool, default=False
        Print the solver's progress every 1000 iterations.
    callback : callable or None, default=None
        ``callback(info)`` every 1000 solver iterations; returning ``False`` stops the solver
        (as in :class:`kernelnb.svm.SVC`).
    q : 'auto' or even int >= 2, default='auto'
        Working-set size of the decomposition (2: SMO).
    precision : {'float32', 'float64'}, default='float32'
        Kernel values the solver reads.

    Attributes
    ----------
    sigmas_ : ndarray of shape (n_samples,)
        The vicinity widths sigma_i (times ``width_factor``).
    margins_ : ndarray of shape (n_samples,)
        gamma_i = sigma_i / mean(sigma), mean 1.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The support vectors.
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
        ``y_i alpha_i`` in LIBSVM's one-vs-one layout.
    intercept_ : ndarray of shape (n_problems,)
        The offsets of the binary problems.
    objective_ : float or ndarray of shape (n_problems,)
        ``1/2 a'Qa - sum gamma_i a_i`` at the solution.
    n_iter_ : ndarray of shape (n_problems,)
        Solver iterations per binary problem.
    fit_time_ : float
        Seconds spent in ``fit``.

    Notes
    -----
    ``fit`` takes no ``sample_weight``: the widths come from the neighbourhoods of the points,
    so a repeated point is not a weighted one.  Per-sample weights and margins together:
    ``SVC().fit(X, y, sample_weight=w, margins=vicinal_margins(vicinity_widths(X)))``.
    Multi-class problems are one-vs-one, each pair with the margins of its points.

    References
    ----------
    O. Chapelle, Support Vector Machines: Induction Principles, Adaptive Tuning and Prior
    Knowledge, PhD thesis, Université Paris 6, 2002, §2.3.1 (Eq. 2.23 and the dual below it);
    O. Chapelle, J. Weston, L. Bottou and V. Vapnik, Vicinal Risk Minimization, NIPS 13, 2000.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from kernelnb.prior import VicinalSVC
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = VicinalSVC(kernel="linear", C=0.1).fit(X[:100], y[:100])
    >>> clf.margins_.shape, round(float(clf.margins_.mean()), 6)
    ((100,), 1.0)
    >>> bool(clf.score(X[100:], y[100:]) > 0.9)
    True
    """

    _parameter_constraints = {**SVC._parameter_constraints, **_RULE_CONSTRAINTS}

    def __init__(self, *, width="knn", width_factor=1.0, n_neighbors=5, quantile=0.005, C=1.0,
                 kernel="rbf", sigma=1.0, scales=None, degree=3, coef0=1.0, margin="l1",
                 tol=1e-3, cache_size=200, max_iter=-1, shrinking=True, class_weight=None,
                 decision_function_shape="ovr", warm_start=False, n_jobs=None, verbose=False,
                 callback=None, q="auto", precision="float32"):
        self.width = width
        self.width_factor = width_factor
        self.n_neighbors = n_neighbors
        self.quantile = quantile
        super().__init__(C=C, kernel=kernel, sigma=sigma, scales=scales, degree=degree,
                         coef0=coef0, margin=margin, tol=tol, cache_size=cache_size,
                         max_iter=max_iter, shrinking=shrinking, class_weight=class_weight,
                         decision_function_shape=decision_function_shape,
                         warm_start=warm_start, n_jobs=n_jobs, verbose=verbose,
                         callback=callback, q=q, precision=precision)

    @fit_context
    def fit(self, X, y, *, alpha_init=None):
        """Compute the widths and margins of the training points, then solve the SVM with them.

        Parameters
        ----------
        X : array of shape (n_samples, n_features), or (n_samples, n_samples) if precomputed
            Training points.
        y : array of shape (n_samples,)
            Their labels.
        alpha_init : array of shape (n_samples,), optional
            A warm start (two classes), as in :meth:`kernelnb.svm.SVC.fit`.

        Returns
        -------
        self : VicinalSVC
            The fitted classifier.
        """
        Xv, _ = self._check_input(X, y)
        kern = _k.KernelSpec.of(self).fit(Xv)
        self.sigmas_ = vicinity_widths(Xv, self.width, n_neighbors=self.n_neighbors,
                                       quantile=self.quantile, factor=self.width_factor,
                                       kernel=kern)
        self.margins_ = vicinal_margins(self.sigmas_)
        return super().fit(X, y, alpha_init=alpha_init, margins=self.margins_)


class VicinalRiskClassifier(BinaryClassifierMixin, BaseEstimator):
    """Binary classifier minimising the vicinal risk with Gaussian vicinities itself.

    Chapelle's thesis §1.3, Eqs. 1.15/1.16, and §2.3.1, where it was minimised by gradient
    descent.  Over f = w.Phi(x) + b (``w = sum_j a_j Phi(x_j)``), it minimises

        R_vic(f) = (1/n) sum_i phi(-y_i f(x_i) / (sigma_i ||w||)),   phi(t) = (1 + erf(t/√2)) / 2,

    the probability that a point drawn from the vicinity N(x_i, sigma_i^2 I) of a training point
    (in the kernel's feature space; the input space for the linear kernel, the thesis's setting)
    lands on the wrong side: the erf loss ``'vrm'`` of :mod:`kernelnb.losses` of the distance
    y_i f(x_i) / ||w|| of each point to the boundary.  It depends on the direction of w only:
    there is no C, the widths are the one hyperparameter (their ``width_factor``, chosen by
    cross-validation in the thesis).  Small widths approach the hard margin (with margins
    proportional to the widths, §2.3.1), large ones the difference of the width-weighted class
    means.  The risk is not convex; L-BFGS is started from the large-width solution and from
    the convex approximation (:class:`VicinalSVC`, C = 1 on the feature coordinates), and the
    lower risk kept.

    The problem is solved in the empirical kernel map, as
    :class:`kernelnb.regularized.RegularizedKernelClassifier` solves its own; only the objective
    differs: that class's penalised risk ``mean L(y f) + ||f||^2 / (2 C n)`` with
    ``loss='vrm'`` has one width for all points and fixes the scale of f by C, whereas here
    each point has its own width and the scale is free.

    Parameters
    ----------
    width : {'knn', 'quantile'}, float or array of shape (n_samples,), default='knn'
        Vicinity widths (:func:`vicinity_widths`): a number is one width for every point (the
        thesis's "VRM, best fixed sigma"), ``'knn'`` the mean distance to the ``n_neighbors``
        nearest training points ("adaptive sigma_i").
    width_factor : float, default=1.0
        Multiplies the widths.
    n_neighbors : int, default=5
        Neighbours of the ``'knn'`` rule.
    quantile : float, default=0.005
        Quantile of the ``'quantile'`` rule.
    kernel : {'linear', 'rbf', 'poly'} or callable, default='linear'
        The kernel of f.
    sigma : float or 'scale', default=1.0
        The RBF kernel's width (not a vicinity's): ``exp(-||s (x - y)||^2 / (2 sigma^2))``.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    scales : array of shape (n_features,), optional
        Per-feature scaling factors ``s`` of the RBF kernel.
    fit_intercept : bool, default=True
        Fit the offset b (False: b = 0).
    tol : float, default=1e-8
        L-BFGS gradient tolerance.
    max_iter : int, default=2000
        L-BFGS iterations (per starting point).
    eig_tol : float, default=1e-10
        Relative eigenvalue threshold of the kernel matrix.

    Attributes
    ----------
    sigmas_ : ndarray of shape (n_samples,)
        The vicinity widths.
    vicinal_risk_ : float
        R_vic at the solution (also ``objective_``).
    objective_ : float
        R_vic at the solution.
    dual_coef_ : ndarray of shape (n_samples,)
        f = sum_j a_j k(x_j, .) + b, scaled so that ||w|| = 1 / mean(sigma) (Eq. 1.16's
        constraint with the mean width): f(x) is then the distance to the boundary in mean
        widths.
    intercept_ : float
        The offset b.
    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is the positive class (f > 0).
    loss_ : Loss
        The erf loss ``'vrm'``.
    kernel_ : kernelnb.kernels.Kernel
        The fitted kernel.
    sigma_ : float or None
        The RBF width used (``'scale'`` resolved).
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training points f is expanded on.
    n_iter_ : int
        L-BFGS iterations of the solution kept.
    converged_ : bool
        Whether that L-BFGS run converged.
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    O. Chapelle, Support Vector Machines: Induction Principles, Adaptive Tuning and Prior
    Knowledge, PhD thesis, Université Paris 6, 2002, §1.3 (Eqs. 1.14-1.16) and §2.3.1;
    O. Chapelle, J. Weston, L. Bottou and V. Vapnik, Vicinal Risk Minimization, NIPS 13, 2000.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.prior import VicinalRiskClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(30, 2) - 1.5, rng.randn(30, 2) + 1.5])
    >>> y = np.repeat([0, 1], 30)
    >>> clf = VicinalRiskClassifier(width="knn", n_neighbors=5).fit(X, y)
    >>> bool(0 < clf.vicinal_risk_ < 0.1), bool(clf.score(X, y) > 0.9)
    (True, True)
    >>> w = clf.dual_coef_ @ clf.X_fit_                  # linear kernel: ||w|| = 1 / mean(sigma)
    >>> round(float(np.linalg.norm(w) * clf.sigmas_.mean()), 6)
    1.0
    """

    _parameter_constraints = {
        **_RULE_CONSTRAINTS,
        "kernel": [str_options({"rbf", "linear", "poly"}), callable],
        "sigma": [*POSITIVE, str_options({"scale"})],
        "degree": POSITIVE_INT,
        "coef0": [interval(numbers.Real, None, None, closed="neither")],
        "scales": ["array-like", None],
        "fit_intercept": ["boolean"],
        "tol": POSITIVE,
        "max_iter": POSITIVE_INT,
        "eig_tol": NONNEGATIVE,
    }

    def __init__(self, *, width="knn", width_factor=1.0, n_neighbors=5, quantile=0.005,
                 kernel="linear", sigma=1.0, degree=3, coef0=1.0, scales=None,
                 fit_intercept=True, tol=1e-8, max_iter=2000, eig_tol=1e-10):
        self.width = width
        self.width_factor = width_factor
        self.n_neighbors = n_neighbors
        self.quantile = quantile
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.scales = scales
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.eig_tol = eig_tol

    @fit_context
    def fit(self, X, y):
        """Minimise the vicinal risk on ``(X, y)``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training points.
        y : array of shape (n_samples,)
            Their labels, exactly two classes.

        Returns
        -------
        self : VicinalRiskClassifier
            The fitted classifier.
        """
        X, y = check_input(self, X, y)
        check_classification_targets(y)
        classes, y_idx = np.unique(y, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(f"y must hold 2 classes; got 1 class ({classes[0]!r})" if
                             classes.size else "y is empty")
        if classes.shape[0] != 2:
            raise ValueError(f"Only binary classification is supported: y must hold exactly 2 "
                             f"classes, got {classes.shape[0]} ({list(classes)[:5]})")
        self.classes_ = classes
        yv = np.where(y_idx == 1, 1.0, -1.0)
        self.kernel_ = _k.KernelSpec.of(self).fit(X)
        self.sigma_ = self.kernel_.sigma if isinstance(self.kernel_, _k.RBF) else None
        # small dense problems: BLAS on one thread (as RegularizedKernelClassifier)
        with blas_single_thread():
            return self._fit_risk(X, yv, get_loss("vrm"))

    def decision_function(self, X):
        """Decision values ``f(x) = sum_j a_j k(x_j, x) + b``; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``f(X)``: the signed distance to the boundary in mean widths.
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return self._expansion(X) + self.intercept_

    def _fit_risk(self, X, yv, loss):
        n = X.shape[0]
        sig = vicinity_widths(X, self.width, n_neighbors=self.n_neighbors,
                              quantile=self.quantile, factor=self.width_factor,
                              kernel=self.kernel_)
        self.sigmas_ = sig
        if not np.all(sig > 0):
            raise ValueError("every vicinity width must be positive: a training point whose "
                             "nearest neighbours all coincide with it has width 0 (remove the "
                             "duplicates, or give width as a number)")
        K = np.asarray(self.kernel_(X), dtype=np.float64)
        if not np.all(np.isfinite(K)):
            raise ValueError("the kernel matrix has NaN or infinite values "
                             "(check X, degree, coef0)")
        s, U = np.linalg.eigh(0.5 * (K + K.T))
        keep = s > self.eig_tol * max(s[-1], 0.0) if s[-1] > 0 else np.zeros(n, dtype=bool)
        root = np.sqrt(s[keep])
        Phi = U[:, keep] * root                          # f(x_i) = (Phi beta)_i + b
        r = Phi.shape[1]
        fit_b = bool(self.fit_intercept)
        ys = yv / sig                                    # y_i / sigma_i

        def fun(w):
            beta, b = w[:r], (w[r] if fit_b else 0.0)
            norm = float(np.sqrt(beta @ beta))
            if not norm > 0:
                return 0.5, np.zeros_like(w)
            f = Phi @ beta + b
            u = ys * f / norm                            # y_i f_i / (sigma_i ||w||)
            val = float(np.mean(loss.value(u)))
            g = loss.derivative(u) / n                   # dR/du_i
            grad = np.empty_like(w)
            gs = g * ys / norm
            grad[:r] = Phi.T @ gs - (g @ u) * beta / (norm * norm)
            if fit_b:
                grad[r] = gs.sum()
            return val, grad

        starts = []
        if r:
            beta0 = Phi.T @ ys                           # the large-width limit
            starts.append(np.append(beta0, _best_offset(Phi @ beta0, yv, sig,
                                                         float(np.sqrt(beta0 @ beta0))))
                          if fit_b else beta0)
            try:
                with warnings.catch_warnings():   # a start point: its convergence is not needed
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    svm = SVC(kernel="linear", C=1.0, precision="float64", tol=1e-6,
                              max_iter=100_000, n_jobs=1).fit(Phi, yv,
                                                               margins=vicinal_margins(sig))
                beta1 = svm.dual_coef_[0] @ Phi[svm.support_]
                if np.any(beta1 != 0):
                    starts.append(np.append(beta1, svm.intercept_[0]) if fit_b else beta1)
            except ValueError:   # a degenerate sub-problem: the first start suffices
                pass
        best = None
        for w0 in starts:
            res = minimize(fun, w0, jac=True, method="L-BFGS-B",
                           options=dict(maxiter=int(self.max_iter), gtol=float(self.tol),
                                        ftol=1e-15, maxcor=20))
            if best is None or res.fun < best.fun:
                best = res
        self.loss_ = loss
        self.X_fit_ = X
        if best is None or not np.any(best.x[:r] != 0):
            # no direction in feature space: the constant decision of the larger class
            self.dual_coef_ = np.zeros(n)
            self.intercept_ = float(np.sign(yv.sum()) or 1.0) if fit_b else 0.0
            self.objective_ = self.vicinal_risk_ = 0.5
            self.n_iter_, self.converged_ = 0, True
        else:
            beta, b = best.x[:r], (float(best.x[r]) if fit_b else 0.0)
            scale = 1.0 / (float(np.sqrt(beta @ beta)) * float(sig.mean()))
            self.dual_coef_ = U[:, keep] @ (beta * scale / root)
            self.intercept_ = b * scale
            self.objective_ = self.vicinal_risk_ = float(best.fun)
            self.n_iter_ = int(best.nit)
            self.converged_ = bool(best.success)
        self._expansion = _k.KernelExpansion(self.kernel_, X, self.dual_coef_)
        return self


def _best_offset(f, yv, sig, norm):
    """The offset b minimising the vicinal risk of f + b for a fixed direction w (``norm`` =
    ||w||): scanned over the midpoints between consecutive sorted values of -f (and one mean
    width beyond both ends)."""
    loss = get_loss("vrm")
    norm = max(norm, 1e-300)
    pad = norm * float(sig.mean())
    cands = np.sort(-f)
    cands = np.concatenate([[cands[0] - pad], 0.5 * (cands[1:] + cands[:-1]), [cands[-1] + pad]])
    risks = [np.mean(loss.value(yv * (f + b) / (sig * norm))) for b in cands]
    return float(cands[int(np.argmin(risks))])


def _decision_gradients(svc, X):
    """grad f(x) at every row of X (n, d) for a fitted binary kernel SVC (float64 X)."""
    coef = svc.dual_coef_[0]
    sv = svc.support_vectors_
    G = np.empty(X.shape)
    eye = np.eye(X.shape[1])
    for j in range(X.shape[1]):
        V = np.broadcast_to(eye[j], X.shape)
        G[:, j] = kernel_input_derivative(svc.kernel_, X, V, sv) @ coef
    return G


def input_margins(svc, X, y):
    """Signed first-order distances of points to an SVM's boundary in the *input* space.

    ``y_i f(x_i) / ||grad f(x_i)||`` for a fitted two-class :class:`kernelnb.svm.SVC`
    (``y_i`` = +1 for ``classes_[1]``, -1 otherwise; a point where f is flat gets +-inf).  The
    SVM maximises the smallest margin in the kernel's feature space, not this one (Chapelle's
    thesis §2.3.2, Fig. 2.8); :class:`EllipsoidalVicinalSVC` approximately maximises it.

    Parameters
    ----------
    svc : SVC
        A fitted :class:`kernelnb.svm.SVC` (or a subclass) with two classes and a kernel on the
        inputs.
    X : array of shape (n_samples, n_features)
        The points.
    y : array of shape (n_samples,)
        Their labels, among ``svc.classes_``.

    Returns
    -------
    ndarray of shape (n_samples,)
        The signed distances (positive on the side of the point's own class).
    """
    check_is_fitted(svc)
    if not isinstance(svc, SVC) or svc.kernel == "precomputed" or len(svc.classes_) != 2:
        raise ValueError("svc must be a fitted two-class kernelnb SVC with a kernel on the "
                         f"inputs, got {type(svc).__name__}")
    Xd = check_input(svc, X, reset=False, dtype=np.float64, order="C")
    y = np.asarray(y)
    if y.shape != (Xd.shape[0],):
        raise ValueError(f"y must have shape ({Xd.shape[0]},) for {Xd.shape[0]} samples, "
                         f"got {y.shape}")
    unknown = np.setdiff1d(y, svc.classes_)
    if unknown.size:
        raise ValueError(f"y has labels the model was not fitted on: {unknown[:5].tolist()}")
    sign = np.where(y == svc.classes_[1], 1.0, -1.0)
    return _signed_input_margins(svc, Xd, sign, _decision_gradients(svc, Xd))


def _signed_input_margins(svc, Xd, sign, G):
    """``sign * f / ||G||`` row by row (G the gradients of f at the rows of Xd)."""
    norm = np.sqrt(np.einsum("ij,ij->i", G, G))
    f = svc.decision_function(Xd)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norm > 0, sign * f / norm, np.inf * sign * f)


class EllipsoidalVicinalSVC(SVC):
    """SVM with ellipsoidal vicinities: approximately, a maximal margin in *input* space.

    The vicinities are the ellipsoids that small input-space spheres become in the kernel's
    feature space (Chapelle's thesis §2.3.2, Eqs. 2.24-2.28 and the fixed point after
    Corollary 2.5; Fig. 2.8).

    A Gaussian of variance ``vicinity_sigma^2 / d`` per input coordinate around x_i is mapped
    to a Gaussian of covariance ``C_i = (vicinity_sigma^2 / d) M_i M_i'`` in the feature space
    (M_i the Jacobian of the empirical kernel PCA map at x_i, Eq. 2.25), for which the vicinal
    risk of f = w.psi + b is ``phi(-y_i f(x_i) / sqrt(w'C_i w))`` (Eq. 2.28), and
    ``sqrt(w'C_i w) = (vicinity_sigma / sqrt d) ||grad f(x_i)||``: the ratio
    ``|f(x_i)| / ||grad f(x_i)||`` is the first-order distance of x_i to the boundary in input
    space.  The thesis's fixed point, run here:

    1. gamma_i = 1 (the plain SVM);
    2. the SVM with margins gamma_i: ``y_i f(x_i) >= gamma_i - xi_i``
       (:meth:`kernelnb.svm.SVC.fit` with ``margins``, warm-started from the previous solution);
    3. ``gamma_i = sqrt(w'(lambda C_i + (1 - lambda) I) w) / ||w||``, i.e.
       ``gamma_i^2 = lambda (vicinity_sigma^2 / d) ||grad f(x_i)||^2 / ||w||^2 + 1 - lambda``,
       with ``lambda = ellipsoid_weight``, divided by their mean;
    4. back to 2 until the margins change by less than ``fixed_point_tol`` (relative), at most
       ``n_fixed_point`` times.

    The thesis gives no convergence guarantee (``fixed_point_converged_`` says whether it
    stopped on the tolerance).  With a rich kernel (RBF) the input-margin solution tends to the
    1-nearest-neighbour rule; ``ellipsoid_weight < 1`` mixes in the isotropic vicinity of the
    plain SVM (``0`` is the SVM), as the thesis suggests.  For the linear kernel
    ``grad f = w`` and all margins are equal: the plain SVM.

    Dividing the margins by their mean (step 3) is our choice where the thesis is silent: with
    a hard margin it changes nothing (the boundary does not depend on a common scale of the
    margins), and with a soft one it keeps C on the plain SVM's scale, as the adaptive-width
    margins ``sigma_i / mean sigma`` of :class:`VicinalSVC` do.  Without it a margin of scale t
    acts as the penalty C / t^2 (t = sigma ||grad f|| / ||w|| is often 0.01-0.1, so C grows
    100 to 10^4 times and the solver with it).  So ``vicinity_sigma`` only weighs the
    ellipsoids against the identity; at ``ellipsoid_weight=1`` it has no effect.

    It is its own class rather than a width rule of :class:`VicinalSVC`: its margins depend on
    the solution (they are recomputed from it, several SVMs are solved), and its vicinities are
    fixed in the input space and shaped by the kernel, not measured between training points.

    Parameters
    ----------
    vicinity_sigma : float, default=1.0
        Width of the spherical input-space vicinities (total variance vicinity_sigma^2);
        relative to the identity of ``lambda C_i + (1 - lambda) I`` (no effect at lambda = 1).
    ellipsoid_weight : float in [0, 1], default=1.0
        The lambda of ``lambda C_i + (1 - lambda) I`` (0: the plain SVM).
    n_fixed_point : int, default=20
        Most SVM solves after the first.
    fixed_point_tol : float, default=1e-3
        Stop when ``max_i |gamma_i(new) - gamma_i| / gamma_i`` is below it.
    C : float, default=1.0
        Soft-margin penalty (> 0; ``np.inf``: the hard margin).
    kernel : {'rbf', 'linear', 'poly'} or callable, default='rbf'
        The SVM's kernel; it must act on the inputs (its input derivatives are taken).
    sigma : float or 'scale', default=1.0
        The RBF kernel's width: ``exp(-||s (x - y)||^2 / (2 sigma^2))``.
    scales : array of shape (n_features,), optional
        Per-feature scaling factors ``s`` of the RBF kernel.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    margin : {'l1', 'l2', 'hard'}, default='l1'
        Linear slack, squared slack, or none (the thesis's step 2 is ``'hard'``).
    tol : float, default=1e-3
        Stop each SVM when the maximal KKT violation is at most ``tol``.
    cache_size : float, default=200
        Kernel row cache in MB.
    max_iter : int, default=-1
        Solver iterations per SVM (-1: no limit).
    shrinking : bool, default=True
        Shrinking of bound variables (LIBSVM's heuristic).
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C per class.
    warm_start : bool, default=False
        Start the first SVM from the previous fit's dual variables (same data).
    n_jobs : int or None, default=None
        Threads of the solver.  None: the threads the context allows (every core, at most
        ``OMP_NUM_THREADS`` or a threadpoolctl OpenMP limit); -1: every core; k: k threads.
    verbose : bool, default=False
        Print the solver's progress every 1000 iterations.
    callback : callable or None, default=None
        ``callback(info)`` every 1000 solver iterations; returning ``False`` stops the solver
        (as in :class:`kernelnb.svm.SVC`).
    q : 'auto' or even int >= 2, default='auto'
        Working-set size of the decomposition (2: SMO).
    precision : {'float32', 'float64'}, default='float32'
        Kernel values the solver reads.

    Attributes
    ----------
    margins_ : ndarray of shape (n_samples,)
        The gamma_i of the last SVM solved.
    input_margins_ : ndarray of shape (n_samples,)
        ``y_i f(x_i) / ||grad f(x_i)||`` of the final f: signed first-order distances of the
        training points to the boundary in input space.
    n_fixed_point_iter_ : int
        SVMs solved after the first.
    n_iter_ : int
        Solver iterations of all the SVMs together (one binary problem).
    fixed_point_converged_ : bool
        Whether the fixed point stopped on ``fixed_point_tol``.
    classes_ : ndarray of shape (2,)
        The class labels (two classes only).
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors of the last SVM.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The support vectors.
    dual_coef_ : ndarray of shape (1, n_SV)
        ``y_i alpha_i`` of the support vectors.
    intercept_ : ndarray of shape (1,)
        The offset.
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    O. Chapelle, Support Vector Machines: Induction Principles, Adaptive Tuning and Prior
    Knowledge, PhD thesis, Université Paris 6, 2002, §2.3.2 (Eqs. 2.24-2.31, Fig. 2.8).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.prior import EllipsoidalVicinalSVC, input_margins
    >>> from kernelnb.svm import SVC
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, (40, 2))
    >>> y = np.where(X[:, 1] > 0.3 * np.sin(3 * X[:, 0]), 1, -1)
    >>> poly = dict(kernel="poly", degree=3, margin="hard", precision="float64")
    >>> ev = EllipsoidalVicinalSVC(**poly).fit(X, y)
    >>> svm = SVC(**poly).fit(X, y)
    >>> bool(ev.input_margins_.min() >= input_margins(svm, X, y).min())
    True
    >>> ev.fixed_point_converged_, isinstance(ev.n_iter_, int)
    (True, True)
    """

    _parameter_constraints = {
        **{k: v for k, v in SVC._parameter_constraints.items()
           if k != "decision_function_shape"},
        # a kernel on the inputs: the margins need its input derivatives
        "kernel": [str_options({"rbf", "linear", "poly"}), callable],
        "vicinity_sigma": POSITIVE,
        "ellipsoid_weight": [interval(numbers.Real, 0, 1, closed="both")],
        "n_fixed_point": [interval(numbers.Integral, 0, None, closed="left")],
        "fixed_point_tol": POSITIVE,
    }

    def __init__(self, *, vicinity_sigma=1.0, ellipsoid_weight=1.0, n_fixed_point=20,
                 fixed_point_tol=1e-3, C=1.0, kernel="rbf", sigma=1.0, scales=None, degree=3,
                 coef0=1.0, margin="l1", tol=1e-3, cache_size=200, max_iter=-1,
                 shrinking=True, class_weight=None, warm_start=False, n_jobs=None,
                 verbose=False, callback=None, q="auto", precision="float32"):
        self.vicinity_sigma = vicinity_sigma
        self.ellipsoid_weight = ellipsoid_weight
        self.n_fixed_point = n_fixed_point
        self.fixed_point_tol = fixed_point_tol
        super().__init__(C=C, kernel=kernel, sigma=sigma, scales=scales, degree=degree,
                         coef0=coef0, margin=margin, tol=tol, cache_size=cache_size,
                         max_iter=max_iter, shrinking=shrinking, class_weight=class_weight,
                         warm_start=warm_start, n_jobs=n_jobs, verbose=verbose,
                         callback=callback, q=q, precision=precision)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _margins_from_solution(self, X):
        G = _decision_gradients(self, X)
        coef = self.dual_coef_[0]
        sv = self.support_vectors_
        w2 = float(coef @ np.asarray(self.kernel_(sv, sv), dtype=np.float64) @ coef)
        g2 = np.einsum("ij,ij->i", G, G)
        if not w2 > 0:
            return np.ones(X.shape[0]), G
        lam, d = float(self.ellipsoid_weight), X.shape[1]
        gam2 = lam * float(self.vicinity_sigma) ** 2 / d * g2 / w2 + (1.0 - lam)
        # a point where f is flat (zero gradient, lambda = 1) keeps a tiny positive margin
        gam = np.sqrt(np.maximum(gam2, 1e-12))
        return gam / gam.mean(), G

    def vicinity_covariances(self, X):
        """The input-space covariance of each point's vicinity as the model weighs it.

        ``lambda (vicinity_sigma^2 / d) I + (1 - lambda) g(x)^{-1}``, with ``lambda =
        ellipsoid_weight`` and ``g(x) = d^2 k(x, z) / dx dz`` at ``z = x`` the metric that the
        kernel's feature map pulls back onto the input space (``||Phi(x + dx) - Phi(x)||^2 ~=
        dx' g(x) dx``).  The first term is the spherical input vicinity itself; the second is
        the input-space image of the isotropic feature-space vicinity of the plain SVM (the
        ``(1 - lambda) I`` of step 3): the part of the identity along the surface the inputs
        map to (by the push-through identity, ``(J'(a JJ' + b I)^{-1} J)^{-1} = a I + b
        (J'J)^{-1}`` for the Jacobian J of the map).  So with the first-order f, the variance
        of ``f(x_i + e)`` under this covariance is the ``gamma_i^2 ||w||^2`` of the fixed point
        less the part of ``(1 - lambda) ||w||^2`` normal to that surface.

        The matrices are circles for the linear and the (unscaled) RBF kernels, whose metric is
        a multiple of I, and ellipses where the kernel stretches the inputs unequally: the
        polynomial kernel (``g = p gamma b^{p-2} (b I + (p - 1) gamma x x')``, ``b = gamma
        ||x||^2 + coef0``), the scaled RBF.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_features, n_features)
        """
        check_is_fitted(self)
        X = np.asarray(self._check_input(X, reset=False), dtype=np.float64)
        n, d = X.shape
        eye = np.eye(d)
        lam = float(self.ellipsoid_weight)
        out = np.broadcast_to(lam * float(self.vicinity_sigma) ** 2 / d * eye, (n, d, d)).copy()
        if lam < 1.0:                    # the metric is needed only for the identity's part
            g = np.empty((n, d, d))
            for a in range(d):
                Va = np.broadcast_to(eye[a], X.shape)
                for b in range(a, d):
                    Vb = np.broadcast_to(eye[b], X.shape)
                    # only the diagonal of the (n, n) tangent Gram is wanted: diagonal blocks
                    for r in range(0, n, 256):
                        sl = slice(r, min(r + 256, n))
                        g[sl, a, b] = g[sl, b, a] = np.diagonal(kernel_tangent_gram(
                            self.kernel_, X[sl], Va[sl], X[sl], Vb[sl]))
            w, U = np.linalg.eigh(g)
            # a direction the map does not stretch at all (g singular) has no finite image
            inv = np.where(w > 1e-12 * np.maximum(w.max(axis=1, keepdims=True), 1e-300),
                           1.0 / np.where(w > 0, w, 1.0), np.inf)
            out += (1.0 - lam) * np.einsum("nij,nj,nkj->nik", U, inv, U)
        return out

    @fit_context
    def fit(self, X, y, *, alpha_init=None):
        """Run the fixed point (see the class docstring).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training points.
        y : array of shape (n_samples,)
            Their labels, two classes.
        alpha_init : array of shape (n_samples,), optional
            A warm start of the first SVM, as in :meth:`kernelnb.svm.SVC.fit`.

        Returns
        -------
        self : EllipsoidalVicinalSVC
            The fitted classifier.
        """
        Xv, yv = self._check_input(X, y)
        check_classification_targets(yv)
        kind = type_of_target(yv, input_name="y")
        if np.unique(yv).shape[0] > 2:
            raise ValueError(f"Only binary classification is supported: EllipsoidalVicinalSVC is "
                             f"for two classes. The type of the target is {kind}.")
        gam = np.ones(Xv.shape[0])
        super().fit(Xv, yv, alpha_init=alpha_init, margins=gam)
        solver_iter = int(self.n_iter_.sum())
        self.n_fixed_point_iter_, self.fixed_point_converged_ = 0, False
        Xd = np.asarray(Xv, dtype=np.float64)
        G = None                         # grad f of the current solution, once computed
        for _ in range(int(self.n_fixed_point)):
            new, G = self._margins_from_solution(Xd)
            change = float(np.max(np.abs(new - gam) / gam))
            if change < float(self.fixed_point_tol):
                self.fixed_point_converged_ = True
                break
            signed = np.zeros(Xd.shape[0])
            signed[self.support_] = self.dual_coef_[0]
            gam = new
            super().fit(Xv, yv, alpha_init=signed, margins=gam)
            solver_iter += int(self.n_iter_.sum())
            self.n_fixed_point_iter_ += 1
            G = None
        self.n_iter_ = solver_iter
        if G is None:
            G = _decision_gradients(self, Xd)
        sign = np.where(yv == self.classes_[1], 1.0, -1.0)
        self.input_margins_ = _signed_input_margins(self, Xd, sign, G)
        self.margins_ = gam
        return self
