"""A hyperplane in low-density regions (Chapelle's thesis, section 7.3).

The cluster assumption says the decision boundary should cross regions of low density.  With a
Parzen estimate of the input density, its integral over the boundary ``w.x + b = 0`` is, up to
a factor, ``sum_j exp(-d_j^2 / (2 sigma_unlabeled^2))`` with ``d_j`` the distance of the unlabeled
point ``x_j`` to the hyperplane (thesis 7.3); added to the SVM objective it pushes the
hyperplane away from the unlabeled points.
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy.optimize import minimize
from .._estimator import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .. import kernels as _k
from .._classifier import BinaryClassifierMixin
from .._fit import fit_context
from .._threads import scipy_blas_single_thread
from .._validation import POSITIVE, POSITIVE_INT, interval, str_options, check_input
from .transduction import _binary_targets

__all__ = ["LowDensitySVC"]


class LowDensitySVC(BinaryClassifierMixin, BaseEstimator):
    """SVM with the low-density penalty on unlabeled points (Chapelle's thesis §7.3).

    The function is a kernel expansion on the labeled and unlabeled points,
    ``f(x) = sum_i beta_i k(x, x_i) + b``, ``||w||^2 = beta' K beta``, and the objective is

        J = 1/2 ||w||^2 + C/2 sum_labeled max(0, 1 - y_i f(x_i))^2
            + C_u sum_unlabeled exp(-d_j^2 / (2 sigma_unlabeled^2)),   d_j = f(x_j) / ||w||,

    ``d_j`` being the distance in feature space from ``Phi(x_j)`` to the hyperplane ``f = 0``
    (the thesis's distance, for the kernel's hyperplane).  The labeled loss is the squared
    hinge loss of the L2 soft margin, so that ``J`` is differentiable.

    ``J`` is not convex (the thesis: "it is not at all possible to find a convex approximation
    of it"), so the start matters: the fit first trains the L2-margin SVM on the labeled points
    (:class:`kernelnb.svm.SVC`, ``margin='l2'``; ``beta = 0`` on the unlabeled points), with
    its bias moved to meet the balance constraint (``balance``), then minimises ``J`` over
    ``beta`` by L-BFGS from there, in the primal of the expansion (as Chapelle, *Training a
    support vector machine in the primal*, Neural Computation 2007).  The line search never
    accepts a step that raises ``J``, so the result is at least as good as that start for
    ``J``: a local minimum near it, not the global one.

    Parameters
    ----------
    C : float, default=1.0
        Cost of the labeled points' squared hinge loss.
    C_unlabeled : float or 'auto', default='auto'
        ``C_u``, the weight of the low-density penalty; ``'auto'``: ``C * n_labeled /
        n_unlabeled`` (the penalty then weighs the unlabeled set as much as the labeled one).
    sigma_unlabeled : float, default=0.5
        Width of the penalty, in units of feature-space distance (an RBF kernel's points lie on
        the unit sphere, at distances at most 2 from each other).
    kernel : {'rbf', 'linear', 'poly'}, default='rbf'
        The kernel.
    sigma : float or 'scale', default=1.0
        RBF width; ``'scale'`` is resolved on the labeled and unlabeled points together.
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel.
    balance : bool, default=True
        Tie the bias to the class balance: the unlabeled points' mean output is held at
        ``2 p - 1``, ``p`` the positive fraction (the constraint of Chapelle and Zien, AISTATS
        2005, for the same penalty).  Without it a few labeled points let the boundary leave
        the data altogether, all unlabeled points on one side, which the penalty rewards.
    positive_fraction : float in (0, 1) or None, default=None
        ``p`` (None: the labeled points' positive fraction).
    max_iter : int, default=200
        L-BFGS iterations after the start.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is +1.
    coef_ : ndarray of shape (n_labeled + n_unlabeled,)
        The expansion coefficients ``beta``.
    intercept_ : float
        The bias ``b``.
    objective_start_ : float
        ``J`` (penalty included) at the SVM start.
    objective_ : float
        ``J`` at the end.
    penalty_start_ : float
        ``sum_j exp(-d_j^2 / (2 sigma_unlabeled^2))`` at the start.
    penalty_ : float
        The same sum at the end.
    svm_coef_ : ndarray of shape (n_labeled + n_unlabeled,)
        ``beta`` of the SVM on the labeled points (zero on the unlabeled ones).
    svm_intercept_ : float
        ``b`` of that SVM (before the balance constraint moves it).
    kernel_ : kernelnb.kernels.Kernel
        The fitted kernel.
    C_unlabeled_ : float
        The penalty's weight used (``'auto'`` resolved; 0 without unlabeled points).
    n_iter_ : int
        1 (the SVM) plus the L-BFGS iterations.
    n_features_in_ : int
        Number of features seen in ``fit``.
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    O. Chapelle, PhD thesis, Université Paris 6, 2002, section 7.3.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import LowDensitySVC
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.randn(60, 2) - [2, 0], rng.randn(60, 2) + [2, 0]])
    >>> y = np.repeat([0, 1], 60)
    >>> lab = np.array([0, 1, 60, 61])
    >>> unl = np.setdiff1d(np.arange(120), lab)
    >>> model = LowDensitySVC(sigma=2.0).fit(X[lab], y[lab], X_unlabeled=X[unl])
    >>> print(model.penalty_ < model.penalty_start_, model.objective_ <= model.objective_start_)
    True True
    """

    _parameter_constraints = {
        "C": POSITIVE,
        "C_unlabeled": [*POSITIVE, str_options({"auto"})],
        "sigma_unlabeled": POSITIVE,
        "kernel": [str_options({"rbf", "linear", "poly"})],
        "sigma": [*POSITIVE, str_options({"scale"})],
        "degree": POSITIVE_INT,
        "coef0": [interval(numbers.Real, None, None, closed="neither")],
        "balance": ["boolean"],
        "positive_fraction": [interval(numbers.Real, 0, 1, closed="neither"), None],
        "max_iter": POSITIVE_INT,
    }

    def __init__(self, *, C=1.0, C_unlabeled="auto", sigma_unlabeled=0.5, kernel="rbf", sigma=1.0,
                 degree=3, coef0=1.0, balance=True, positive_fraction=None, max_iter=200):
        self.C = C
        self.C_unlabeled = C_unlabeled
        self.sigma_unlabeled = sigma_unlabeled
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.balance = balance
        self.positive_fraction = positive_fraction
        self.max_iter = max_iter

    @staticmethod
    def objective(params, K, t, n_labeled, C, C_u, sigma_unlabeled, balance=None):
        """``J`` and its gradient (the fit's criterion, exposed for checks).

        Parameters
        ----------
        params : ndarray of shape (n + 1,) or (n,)
            ``beta`` then ``b``; only ``beta`` when ``balance`` is given.
        K : ndarray of shape (n, n)
            Kernel matrix of the labeled points followed by the unlabeled ones.
        t : ndarray of shape (n_labeled,)
            The labels in {-1, +1}.
        n_labeled : int
            Number of labeled points (the first rows of K).
        C : float
            Cost of the labeled points.
        C_u : float
            Weight of the low-density penalty (0: the L2-margin SVM).
        sigma_unlabeled : float
            Width of the penalty.
        balance : float or None, default=None
            The mean output ``c`` the unlabeled points must have: ``b`` is then
            ``c - mean_j (K beta)_j`` (a function of ``beta``), not a parameter.

        Returns
        -------
        J : float
            The objective.
        grad : ndarray of the shape of ``params``
            Its gradient.
        """
        if balance is None:
            beta, b = params[:-1], params[-1]
        else:
            beta = params
            b = balance - float(np.mean(K[n_labeled:] @ beta))
        Kb = K @ beta
        s = float(beta @ Kb)
        f = Kb + b
        slack = np.maximum(0.0, 1.0 - t * f[:n_labeled])
        J = 0.5 * s + 0.5 * C * float(slack @ slack)
        gf = np.zeros_like(f)
        gf[:n_labeled] = -C * t * slack
        gs = 0.5
        if C_u > 0 and f.shape[0] > n_labeled:
            fu = f[n_labeled:]
            s_ = max(s, 1e-300)
            e = np.exp(-fu * fu / (2.0 * sigma_unlabeled ** 2 * s_))
            J += C_u * float(e.sum())
            gf[n_labeled:] = -C_u * e * fu / (sigma_unlabeled ** 2 * s_)
            gs += C_u * float(e @ (fu * fu)) / (2.0 * sigma_unlabeled ** 2 * s_ * s_)
        g_beta = K @ gf + 2.0 * gs * Kb
        if balance is not None:         # db/dbeta = -mean of the unlabeled rows of K
            return J, g_beta - gf.sum() * K[n_labeled:].mean(axis=0)
        return J, np.append(g_beta, gf.sum())

    def _outputs(self, beta, b, K, n_labeled):
        """``(d_j)`` the unlabeled points' distances to the hyperplane and the penalty sum."""
        s = max(float(beta @ K @ beta), 1e-300)
        d = ((K[n_labeled:] @ beta) + b) / np.sqrt(s)
        return float(np.exp(-d * d / (2.0 * self.sigma_unlabeled ** 2)).sum())

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None):
        """Train the SVM on the labeled points, then add the low-density penalty.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labeled points.
        y : array of shape (n_samples,)
            Their labels, two classes.
        X_unlabeled : array of shape (n_unlabeled, n_features) or None, default=None
            The unlabeled points; None: the L2-margin SVM alone.

        Returns
        -------
        self : LowDensitySVC
            The fitted classifier.
        """
        from ..svm import SVC  # kernelnb.svm imports nothing from here

        X, y = check_input(self, X, y)
        self.classes_, t = _binary_targets("LowDensitySVC", y)
        Xu = (np.empty((0, X.shape[1])) if X_unlabeled is None
              else check_input(self, X_unlabeled, reset=False))
        n, m = X.shape[0], Xu.shape[0]
        Xa = np.vstack([X, Xu])
        self.kernel_ = kern = _k.KernelSpec.of(self).fit(Xa)
        K = np.asarray(kern(Xa), dtype=np.float64)
        K = 0.5 * (K + K.T)
        self._Xa = Xa
        C = float(self.C)
        C_u = (C * n / m if self.C_unlabeled == "auto" else float(self.C_unlabeled)) if m else 0.0
        # the start: the L2-margin SVM on the labeled points (exact, by the SMO solver)
        svm = SVC(kernel=kern, C=C, margin="l2", tol=1e-8, precision="float64",
                  n_jobs=1).fit(X, t)
        beta = np.zeros(n + m)
        beta[svm.support_] = np.asarray(svm.dual_coef_, dtype=np.float64)[0]
        b = float(np.asarray(svm.intercept_).ravel()[0])
        self.svm_coef_, self.svm_intercept_ = beta.copy(), b
        self.n_iter_ = 1
        target = None
        if m and self.balance:
            p = (float(np.mean(t > 0)) if self.positive_fraction is None
                 else float(self.positive_fraction))
            target = 2.0 * p - 1.0
            b = target - float(np.mean(K[n:] @ beta))
        x0 = beta if target is not None else np.append(beta, b)
        args = (K, t, n, C, C_u, float(self.sigma_unlabeled), target)
        self.objective_start_ = float(self.objective(x0, *args)[0])
        self.penalty_start_ = self._outputs(beta, b, K, n) if m else 0.0
        params = x0
        if m:
            # scipy's L-BFGS-B calls scipy's own BLAS on vectors of n entries: one thread
            with scipy_blas_single_thread():
                res = minimize(self.objective, x0, args=args, jac=True, method="L-BFGS-B",
                               options={"maxiter": int(self.max_iter)})
            if res.fun <= self.objective_start_:
                params = res.x
            self.n_iter_ += int(res.nit)
        if target is not None:
            beta = params
            b = target - float(np.mean(K[n:] @ beta))
        else:
            beta, b = params[:-1], float(params[-1])
        self.coef_, self.intercept_ = beta.copy(), float(b)
        self.objective_ = float(self.objective(params, *args)[0])
        self.penalty_ = self._outputs(beta, b, K, n) if m else 0.0
        self.C_unlabeled_ = C_u
        return self

    def decision_function(self, X):
        """``f(x) = sum_i beta_i k(x, x_i) + b`` (positive: ``classes_[1]``).

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,)
            The decision values.
        """
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        return np.asarray(self.kernel_(X, self._Xa), dtype=np.float64) @ self.coef_ \
            + self.intercept_
