"""Regularised kernel classifiers for any margin loss, fitted in the primal with L-BFGS.

:class:`RegularizedKernelClassifier` minimises, over f = sum_j a_j k(x_j, .) + b,

    J(f) = (1/n) sum_i L(y_i f(x_i)) + ||f||_H^2 / (2 C n),

the regularised risk of the loss comparisons of the KMP paper (Vincent & Bengio 2002, §3.2 and
Fig. 5) and of Collobert's thesis (2004, ch. 3). Multiplied by C n it is
C sum_i L(y_i f(x_i)) + ||f||^2 / 2: with the hinge loss the C-SVC primal with the same C, with the
squared hinge the L2-margin SVM with C_svm = 2 C (kernelnb's ``SVC(margin='l2')`` penalises
(C/2) sum xi^2), and with the logistic loss and a linear kernel scikit-learn's
``LogisticRegression(C=C)`` (its intercept is unpenalised, as b is here).

How it is solved: the kernel matrix is diagonalised once, K = U diag(s) U', and the problem is
solved in the coordinates beta = diag(s)^(1/2) U' a, where f(x_i) = (U diag(s)^(1/2) beta)_i + b and
||f||_H^2 = ||beta||^2 (the empirical kernel map; eigenvalues below ``eig_tol`` times the largest
are dropped, directions in which f cannot vary anyway). That problem is well conditioned, and its
exact gradient follows from the loss derivative L'(m) of :mod:`kernelnb.losses`.
Kinked losses (hinge, perceptron) are not differentiable at their kink; they are replaced by their
Huber smoothing of width ``smoothing`` (quadratic over a margin interval of that width before the
kink, the Moreau envelope of the hinge), which differs from the loss by at most smoothing/2 and
whose minimiser tends to the SVM's as ``smoothing`` -> 0. The 0-1 loss (no useful gradient) and
regression losses are refused. Non-convex losses (1 - tanh, (0.65 - tanh m)^2) give a local
minimum reached from f = 0.
"""
import numbers

import numpy as np
from scipy.optimize import minimize
from ._estimator import BaseEstimator
from ._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import kernels as _k
from ._classifier import BinaryClassifierMixin
from ._fit import fit_context
from ._threads import blas_single_thread
from ._validation import NONNEGATIVE, POSITIVE, POSITIVE_INT, interval, str_options, check_input
from .losses import Loss, get_loss

__all__ = ["RegularizedKernelClassifier"]

_KINKED = ("hinge", "perceptron")


class _Smoothed:
    """Huber smoothing of max(0, kink - m) over [kink - h, kink]."""

    def __init__(self, kink, h):
        self.kink, self.h = float(kink), float(h)

    def value(self, m):
        u = self.kink - m
        return np.where(u <= 0, 0.0, np.where(u >= self.h, u - self.h / 2, u * u / (2 * self.h)))

    def derivative(self, m):
        u = self.kink - m
        return np.where(u <= 0, 0.0, np.where(u >= self.h, -1.0, -u / self.h))


class RegularizedKernelClassifier(BinaryClassifierMixin, BaseEstimator):
    """Binary kernel classifier minimising a margin loss plus an RKHS penalty (L-BFGS, primal).

    Parameters
    ----------
    loss : str or Loss, default='hinge'
        A margin loss of :mod:`kernelnb.losses` (name, alias or object): 'hinge',
        'squared_hinge', 'logistic', 'logitboost', 'exponential', '1-tanh', 'tanh', 'squared',
        'perceptron'. Not 'zero_one' nor a regression loss.
    C : float, default=1.0
        Inverse regularisation: J = mean loss + ||f||^2 / (2 C n) (see the module docstring for
        the equivalences with SVC and LogisticRegression).
    kernel : {'rbf', 'linear', 'poly'} or callable, default='rbf'
        The kernel; a callable ``f(X, Y) -> K``.
    sigma : float or 'scale', default=1.0
        RBF width, k(x, y) = exp(-||x - y||^2 / (2 sigma^2)); 'scale' as scikit-learn's
        gamma='scale'.
    degree : int, default=3
        Degree of the polynomial kernel (<x, y> + coef0) ** degree.
    coef0 : float, default=1.0
        Offset of the polynomial kernel (the ``(1 + x.z)^p`` of the theses).
    smoothing : float, default=1e-2
        Huber width used for the kinked losses (hinge, perceptron); ignored otherwise.
    fit_intercept : bool, default=True
        Fit the unpenalised offset b.
    tol : float, default=1e-8
        L-BFGS projected-gradient tolerance (on the objective multiplied by n).
    max_iter : int, default=2000
        L-BFGS iteration limit.
    eig_tol : float, default=1e-10
        Relative eigenvalue threshold of the kernel matrix.
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors of the RBF kernel, as in :class:`kernelnb.svm.SVC`
        (``sigma='scale'`` is resolved on the scaled inputs).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class (f > 0).
    loss_ : Loss
        The loss minimised (before smoothing).
    kernel_ : kernelnb.kernels.Kernel
        The fitted kernel.
    sigma_ : float or None
        The RBF width used (``'scale'`` resolved).
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training inputs.
    dual_coef_ : ndarray of shape (n_samples,)
        Expansion coefficients a of f = sum_j a_j k(x_j, .) + b.
    intercept_ : float
        The offset b.
    objective_ : float
        J at the solution (with the smoothed loss for kinked losses).
    n_iter_ : int
        L-BFGS iterations.
    converged_ : bool
        Whether L-BFGS reported convergence.
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    P. Vincent & Y. Bengio, Kernel Matching Pursuit, Machine Learning 48, 2002, §3.2 and Fig. 5;
    R. Collobert, Large Scale Machine Learning, PhD thesis, Université Paris VI, 2004, ch. 3;
    O. Chapelle, Support Vector Machines: Induction Principles, Adaptive Tuning and Prior
    Knowledge, PhD thesis, Université Paris 6, 2002, ch. 4.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.regularized import RegularizedKernelClassifier
    >>> X, y = make_moons(n_samples=100, noise=0.2, random_state=0)
    >>> clf = RegularizedKernelClassifier(loss="logistic", C=10, sigma=0.5).fit(X, y)
    >>> print(clf.converged_, clf.predict(X[:4]))
    True [0 1 0 1]
    >>> print(round(clf.score(X, y), 2))
    0.98
    """

    # One table (kernelnb._validation) checked by the fit wrapper (kernelnb._fit.fit_context);
    # _check_params_extra adds what the table cannot say (which losses this solver minimises).
    _parameter_constraints = {
        "loss": [str, Loss],
        "C": POSITIVE,
        "kernel": [str_options({"rbf", "linear", "poly"}), callable],
        "sigma": [*POSITIVE, str_options({"scale"})],
        "degree": POSITIVE_INT,
        "coef0": [interval(numbers.Real, None, None, closed="neither")],
        "smoothing": NONNEGATIVE,
        "fit_intercept": ["boolean"],
        "tol": POSITIVE,
        "max_iter": POSITIVE_INT,
        "eig_tol": NONNEGATIVE,
        "scales": ["array-like", None],
    }

    def __init__(self, *, loss="hinge", C=1.0, kernel="rbf", sigma=1.0, degree=3, coef0=1.0,
                 smoothing=1e-2, fit_intercept=True, tol=1e-8, max_iter=2000, eig_tol=1e-10,
                 scales=None):
        self.loss = loss
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.smoothing = smoothing
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.eig_tol = eig_tol
        self.scales = scales

    # -- validation ------------------------------------------------------------------------
    def _check_params_extra(self):
        self._loss_terms()

    def _loss_terms(self):
        """(loss, C, smoothing) the solver minimises, checked: a subclass minimising another
        criterion with the same solver (:meth:`_fit`) overrides this."""
        loss = get_loss(self.loss)
        if loss.kind != "margin":
            raise ValueError(f"loss must be a margin loss for a classifier, got {self.loss!r} "
                             f"(a {loss.kind} loss)")
        if loss.name == "zero_one":
            raise ValueError("loss='zero_one' has zero derivative almost everywhere and cannot be "
                             "minimised by gradient; use 'hinge' or 'logistic'")
        C, h = float(self.C), float(self.smoothing)
        if loss.name in _KINKED and h == 0:
            raise ValueError(f"smoothing must be > 0 for the kinked loss {loss.name!r}, got 0")
        if not loss.smooth and loss.name not in _KINKED:
            raise ValueError(f"loss {loss.name!r} is not differentiable and has no smoothing here")
        return loss, C, h

    # -- fit -------------------------------------------------------------------------------
    @fit_context
    def fit(self, X, y):
        """Fit f on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Labels of exactly two classes.

        Returns
        -------
        RegularizedKernelClassifier
            The fitted classifier.
        """
        loss, C, h = self._loss_terms()
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
        self.loss_ = loss
        yv = np.where(y_idx == 1, 1.0, -1.0)

        self.kernel_ = _k.KernelSpec.of(self).fit(X)
        self.sigma_ = self.kernel_.sigma if isinstance(self.kernel_, _k.RBF) else None
        # Small dense problems: a multi-threaded BLAS pool only adds synchronisation, which
        # outweighs the arithmetic of small products, so BLAS stays on one thread throughout.
        with blas_single_thread():
            return self._fit(X, yv, loss, C, h)

    def _fit(self, X, yv, loss, C, h):
        n = X.shape[0]
        K = np.asarray(self.kernel_(X), dtype=np.float64)
        if not np.all(np.isfinite(K)):
            raise ValueError("the kernel matrix has NaN or infinite values "
                             "(check X, degree, coef0)")
        K = 0.5 * (K + K.T)
        s, U = np.linalg.eigh(K)
        keep = s > self.eig_tol * max(s[-1], 0.0) if s[-1] > 0 else np.zeros(n, dtype=bool)
        root = np.sqrt(s[keep])
        Phi = U[:, keep] * root                       # f(x_i) = (Phi beta)_i + b
        r = Phi.shape[1]

        f_loss = _Smoothed(loss.params.get("beta", 0.0) if loss.name == "hinge" else 0.0, h) \
            if loss.name in _KINKED else loss
        inv_c = 1.0 / C
        fit_b = bool(self.fit_intercept)

        def fun(w):
            beta, b = w[:r], (w[r] if fit_b else 0.0)
            m = yv * (Phi @ beta + b)
            with np.errstate(over="ignore"):
                lv = np.sum(f_loss.value(m))
                g = yv * f_loss.derivative(m)          # dL/df_i
            if not np.isfinite(lv):
                return np.inf, np.zeros_like(w)
            val = lv + 0.5 * inv_c * (beta @ beta)
            grad = np.empty_like(w)
            grad[:r] = Phi.T @ g + inv_c * beta
            if fit_b:
                grad[r] = g.sum()
            return val, grad                           # n J and its gradient

        w0 = np.zeros(r + (1 if fit_b else 0))
        res = minimize(fun, w0, jac=True, method="L-BFGS-B",
                       options=dict(maxiter=int(self.max_iter), gtol=float(self.tol),
                                    ftol=1e-15, maxcor=20))
        w = res.x
        beta = w[:r]
        self.dual_coef_ = U[:, keep] @ (beta / root) if r else np.zeros(n)
        self.intercept_ = float(w[r]) if fit_b else 0.0
        self.X_fit_ = X
        self._expansion = _k.KernelExpansion(self.kernel_, X, self.dual_coef_)
        self.objective_ = float(res.fun) / n
        self.n_iter_ = int(res.nit)
        self.converged_ = bool(res.success)
        return self

    # -- prediction ------------------------------------------------------------------------
    def decision_function(self, X):
        """Decision values ``f(x) = sum_j a_j k(x_j, x) + b``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,)
            f(x); positive means ``classes_[1]``.
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return self._expansion(X) + self.intercept_
