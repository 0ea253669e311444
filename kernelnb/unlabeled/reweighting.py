"""Vicinal risk with unlabeled points (Chapelle's thesis, chapter 7, section 7.2).

* Reweighting (§7.2.2): the vicinal estimate ``P_est(x) = (1/n) sum_i lambda_i P_{x_i}(x)`` of
  the input density, with Gaussian vicinities ``P_{x_i} = N(x_i, sigma^2 I)``, is fitted to the
  unlabeled points by weights ``lambda_i >= 0``, ``sum lambda_i = n``, either by maximum
  likelihood (the Kullback-Leibler fit, Eq. 7.4, concave) or by the L2 fit to the Parzen
  estimate of the unlabeled points; the weights then multiply the losses of the training
  points: :func:`fit_weights`, :class:`ReweightedParzenClassifier` (Eq. 7.5) and
  :class:`ReweightedSVC` (the weighted SVM, dual box ``0 <= alpha_i <= C lambda_i``).
* Vicinal risk on unlabeled points (§7.2.1): :class:`UnlabeledVicinalClassifier`, a linear
  classifier minimising the vicinal risk of the labeled points plus that of the unlabeled points
  labeled by the classifier itself.

The thesis reports that neither helps much: the reweighting toy of Fig. 7.2 gains only in low
dimension (and loses at a smaller class separation).  The protocols of both experiments are
:func:`reweighting_toy` and :func:`vrm_unlabeled_toy`.
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import logsumexp, ndtr
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._classifier import BinaryClassifierMixin
from .._fit import fit_context
from .._validation import (NONNEGATIVE, POSITIVE, POSITIVE_INT, interval, str_options,
                           check_input, check_param)
from ..neighbors import ParzenDensity
from ..svm import SVC
from .transduction import _binary_targets

__all__ = ["fit_weights", "likelihood_sigma", "ReweightedParzenClassifier", "ReweightedSVC",
           "UnlabeledVicinalClassifier"]


def _log_vicinity(X, Z, sigma):
    """``log P_{x_i}(z_j)`` for the Gaussian vicinity ``N(x_i, sigma^2 I)``: (n, n_z)."""
    d = X.shape[1]
    D2 = ((X ** 2).sum(1)[:, None] + (Z ** 2).sum(1)[None, :] - 2.0 * X @ Z.T)
    return -np.maximum(D2, 0.0) / (2 * sigma ** 2) - 0.5 * d * np.log(2 * np.pi * sigma ** 2)


def likelihood_sigma(X, X_unlabeled=None, bounds=(1e-3, 1e3)):
    """The Parzen width maximising the likelihood (7.4) of the unlabeled points.

    With all ``lambda_i = 1``: the thesis's first step in §7.2.2
    (:class:`kernelnb.neighbors.ParzenDensity`).  Without unlabeled points, the leave-one-out
    likelihood of ``X`` itself.

    Parameters
    ----------
    X : array of shape (n, d)
        The training points, centres of the Parzen estimate.
    X_unlabeled : array of shape (n_u, d) or None, default=None
        The points whose likelihood is maximised; None: ``X`` itself, leave-one-out.
    bounds : (float, float), default=(1e-3, 1e3)
        The range of widths searched (a bounded scalar search on the log-width).

    Returns
    -------
    float
        The width.
    """
    X = np.asarray(X, dtype=np.float64)

    def nll(log_s):
        s = float(np.exp(log_s))
        if X_unlabeled is None:
            L = _log_vicinity(X, X, s)
            np.fill_diagonal(L, -np.inf)
            return -float(np.sum(logsumexp(L, axis=0) - np.log(max(X.shape[0] - 1, 1))))
        return -float(np.sum(ParzenDensity(sigma=s, n_jobs=1).fit(X).score_samples(X_unlabeled)))

    res = minimize_scalar(nll, bounds=np.log(bounds), method="bounded",
                          options={"xatol": 1e-6})
    return float(np.exp(res.x))


def fit_weights(X, X_unlabeled, sigma, method="kl", penalty=None, penalty_strength=1.0,
                sigma_unlabeled=None, max_iter=5000, tol=1e-10):
    """Reweighting coefficients of the training points (Chapelle's thesis §7.2.2).

    The weights ``lambda_i >= 0``, ``sum lambda_i = n``, of
    ``P_est(x) = (1/n) sum_i lambda_i P_{x_i}(x)``, ``P_{x_i} = N(x_i, sigma^2 I)``, fitted to
    the unlabeled points ``x'_j``:

    * ``method='kl'``: maximise ``sum_j log sum_i lambda_i P_{x_i}(x'_j)`` (7.4), concave.
      Without regulariser or with ``'log'`` it is solved by the EM (minorise-maximise) update
      ``lambda_i <- n (sum_j r_ij + c) / (n_u + n c)``, ``r_ij`` the responsibility of point i
      for ``x'_j`` (each step raises the objective; stopped when the relative increase falls
      below ``tol``); with ``'quadratic'`` by SLSQP.
    * ``method='l2'``: minimise ``sum_j ((1/n) sum_i lambda_i P_{x_i}(x'_j) - P~(x'_j))^2`` with
      ``P~`` the Parzen estimate of the unlabeled points of width ``sigma_unlabeled``: a convex
      quadratic, solved by SLSQP.

    Regularisers (the thesis's suggestions): ``'quadratic'`` adds
    ``penalty_strength * sum (lambda_i - 1)^2`` to the loss, ``'log'`` adds
    ``-penalty_strength * sum log lambda_i``.

    Parameters
    ----------
    X : array of shape (n, d)
        Training points.
    X_unlabeled : array of shape (n_u, d)
        The unlabeled points the density is fitted to.
    sigma : float > 0
        Width of the vicinities ``P_{x_i}``.
    method : {'kl', 'l2'}, default='kl'
    penalty : {None, 'quadratic', 'log'}, default=None
        The regulariser (see above).
    penalty_strength : float >= 0, default=1.0
        Its strength ``penalty_strength``.
    sigma_unlabeled : float > 0 or None, default=None
        Width of the unlabeled Parzen estimate of the L2 fit (None: ``sigma``).
    max_iter : int, default=5000
        Iterations of the EM update or of SLSQP.
    tol : float, default=1e-10
        Relative increase of the objective below which EM stops (SLSQP's ``ftol``).

    Returns
    -------
    lam : ndarray of shape (n,)
        The weights ``lambda_i`` (sum n).
    info : dict
        ``objective`` (the maximised log-likelihood plus regulariser for 'kl', the minimised
        loss for 'l2'), ``n_iter``, ``converged``.
    """
    caller = "fit_weights"
    check_param("sigma", sigma, POSITIVE, caller)
    check_param("method", method, [str_options({"kl", "l2"})], caller)
    check_param("penalty", penalty, [str_options({"quadratic", "log"}), None],
                caller)
    check_param("penalty_strength", penalty_strength, NONNEGATIVE, caller)
    check_param("sigma_unlabeled", sigma_unlabeled, [*POSITIVE, None], caller)
    check_param("max_iter", max_iter, POSITIVE_INT, caller)
    check_param("tol", tol, POSITIVE, caller)
    X = np.asarray(X, dtype=np.float64)
    Xu = np.asarray(X_unlabeled, dtype=np.float64)
    if X.ndim != 2 or Xu.ndim != 2 or X.shape[1] != Xu.shape[1] or not Xu.shape[0]:
        raise ValueError(f"X (n, d) and X_unlabeled (n_u, d) with n_u >= 1 must agree, got "
                         f"shapes {X.shape} and {Xu.shape}")
    n, nu = X.shape[0], Xu.shape[0]
    c = float(penalty_strength) if penalty is not None else 0.0
    logP = _log_vicinity(X, Xu, float(sigma))
    cons = ({"type": "eq", "fun": lambda l: np.sum(l) - n, "jac": lambda l: np.ones(n)},)
    bounds = [(0.0, n)] * n
    if penalty == "log":
        bounds = [(1e-12, n)] * n
    if method == "kl" and penalty != "quadratic":
        # columns scaled by their largest entry: the responsibilities are unchanged and the
        # log-likelihood shifts by the constant sum of the column maxima
        top = logP.max(axis=0)
        P = np.exp(logP - top)
        shift = float(top.sum())

        def objective(lam):
            with np.errstate(divide="ignore"):
                obj = float(np.sum(np.log(lam @ P))) + shift
                if penalty == "log":
                    obj += c * float(np.sum(np.log(lam)))
            return obj

        lam = np.ones(n)
        prev = objective(lam)
        converged = False
        for it in range(1, max_iter + 1):
            resp = lam * (P @ (1.0 / (lam @ P)))          # sum_j r_ij
            lam = n * (resp + c) / (nu + n * c)
            obj = objective(lam)
            if obj - prev <= tol * max(1.0, abs(obj)):
                converged = True
                break
            prev = obj
        return lam, {"objective": obj, "n_iter": it, "converged": converged}
    if method == "kl":
        def fun(lam):
            L = logP + np.log(np.maximum(lam, 1e-300))[:, None]
            R = np.exp(L - logsumexp(L, axis=0))
            g = (R / np.maximum(lam, 1e-300)[:, None]).sum(axis=1)
            obj = float(np.sum(logsumexp(L, axis=0))) - c * float(np.sum((lam - 1) ** 2))
            return -obj, -(g - 2 * c * (lam - 1))
    else:
        P = np.exp(logP) / n
        su = float(sigma if sigma_unlabeled is None else sigma_unlabeled)
        target = np.exp(logsumexp(_log_vicinity(Xu, Xu, su), axis=0)) / nu

        def fun(lam):
            r = P.T @ lam - target
            f, g = float(r @ r), 2.0 * P @ r
            if penalty == "quadratic":
                f, g = f + c * float(np.sum((lam - 1) ** 2)), g + 2 * c * (lam - 1)
            elif penalty == "log":
                f, g = f - c * float(np.sum(np.log(lam))), g - c / lam
            return f, g
    res = minimize(fun, np.ones(n), jac=True, method="SLSQP", bounds=bounds, constraints=cons,
                   options={"maxiter": max_iter, "ftol": tol})
    lam = np.clip(res.x, 0.0, None)
    lam *= n / lam.sum()
    obj = -res.fun if method == "kl" else res.fun
    return lam, {"objective": float(obj), "n_iter": int(res.nit), "converged": bool(res.success)}


_WEIGHT_CONSTRAINTS = {
    "method": [str_options({"kl", "l2"})],
    "penalty": [str_options({"quadratic", "log"}), None],
    "penalty_strength": NONNEGATIVE,
    "sigma_unlabeled": [*POSITIVE, None],
}


class _Reweighted:
    def _prepare(self, X, y, X_unlabeled, sigma):
        """Checked ``(X, y)``, the density width ``sigma`` ('likelihood' resolved) and the
        training points' weights fitted to the unlabeled points (ones without any)."""
        X, y = check_input(self, X, y)
        check_classification_targets(y)
        Xu = None if X_unlabeled is None else check_input(self, X_unlabeled, reset=False)
        width = likelihood_sigma(X, Xu) if isinstance(sigma, str) else float(sigma)
        if Xu is None or not Xu.shape[0]:
            return X, y, width, np.ones(X.shape[0])
        return X, y, width, fit_weights(X, Xu, width, self.method, self.penalty,
                                        self.penalty_strength, self.sigma_unlabeled)[0]


class ReweightedParzenClassifier(_Reweighted, ClassifierMixin, BaseEstimator):
    """Parzen window classifier with the training points reweighted to the unlabeled points.

    Chapelle's thesis §7.2.2, Eq. 7.5, the classifier of Fig. 7.2:
    ``f(x) = argmax_c sum_{y_i = c} lambda_i exp(-||x - x_i||^2 / (2 sigma^2))`` (for two
    classes ``sgn sum_i lambda_i y_i P_{x_i}(x)``).

    As in the thesis there is no free parameter: ``sigma='likelihood'`` is the width maximising
    the likelihood of the unlabeled points with equal weights (:func:`likelihood_sigma`), then
    the weights are fitted at that width.  Without unlabeled points the weights are 1 (the plain
    Parzen classifier, :class:`kernelnb.neighbors.ParzenClassifier`) and the width maximises the
    leave-one-out likelihood of the training points.

    Parameters
    ----------
    sigma : float or 'likelihood', default='likelihood'
        Width of the Parzen windows (and of the vicinities the weights are fitted with).
    method : {'kl', 'l2'}, default='kl'
        The fit of the weights to the unlabeled points (:func:`fit_weights`).
    penalty : {None, 'quadratic', 'log'}, default=None
        Regulariser of the weights (:func:`fit_weights`).
    penalty_strength : float >= 0, default=1.0
        Its strength.
    sigma_unlabeled : float or None, default=None
        Width of the unlabeled Parzen estimate (L2 fit only; None: the density width).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    weights_ : ndarray of shape (n_samples,)
        The ``lambda_i`` (sum n).
    sigma_ : float
        The width used.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import ReweightedParzenClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = np.r_[rng.randn(10, 1) - 1, rng.randn(10, 1) + 1]
    >>> y = np.repeat([-1, 1], 10)
    >>> Xu = np.r_[rng.randn(100, 1) - 1, rng.randn(100, 1) + 1]
    >>> clf = ReweightedParzenClassifier().fit(X, y, X_unlabeled=Xu)
    >>> round(float(clf.weights_.sum()), 6), bool(clf.sigma_ > 0)
    (20.0, True)
    >>> clf.predict([[-2.0], [2.0]])
    array([-1,  1])
    """

    _parameter_constraints = {"sigma": [*POSITIVE, str_options({"likelihood"})],
                              **_WEIGHT_CONSTRAINTS}

    def __init__(self, *, sigma="likelihood", method="kl", penalty=None, penalty_strength=1.0,
                 sigma_unlabeled=None):
        self.sigma = sigma
        self.method = method
        self.penalty = penalty
        self.penalty_strength = penalty_strength
        self.sigma_unlabeled = sigma_unlabeled

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None):
        """Fit the width and the weights, and keep the weighted training points.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training points.
        y : array of shape (n_samples,)
            Their labels.
        X_unlabeled : array of shape (n_unlabeled, n_features) or None, default=None
            The unlabeled points the weights are fitted to; None: weights 1.

        Returns
        -------
        self : ReweightedParzenClassifier
            The fitted classifier.
        """
        X, y, self.sigma_, self.weights_ = self._prepare(X, y, X_unlabeled, self.sigma)
        self.classes_, self._y_idx = np.unique(y, return_inverse=True)
        self.X_fit_ = X
        return self

    def _scores(self, X):
        check_is_fitted(self)
        X = check_input(self, X, reset=False)
        L = _log_vicinity(self.X_fit_, X, self.sigma_)          # (n, n_test)
        with np.errstate(divide="ignore"):
            L = L + np.log(self.weights_)[:, None]
        out = np.full((X.shape[0], self.classes_.shape[0]), -np.inf)
        for c in range(self.classes_.shape[0]):
            rows = self._y_idx == c
            if rows.any():
                out[:, c] = logsumexp(L[rows], axis=0)
        return out

    def predict(self, X):
        """The class of largest weighted Parzen score.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,)
            Their labels.
        """
        check_is_fitted(self)
        return self.classes_[np.argmax(self._scores(X), axis=1)]


class ReweightedSVC(_Reweighted, ClassifierMixin, BaseEstimator):
    """Weighted SVM with weights fitted to the unlabeled points.

    Chapelle's thesis §7.2.2: ``1/2 ||w||^2 + C sum_i lambda_i xi_i``, i.e. the dual box
    ``0 <= alpha_i <= C lambda_i`` (:class:`kernelnb.svm.SVC` with ``sample_weight=lambda``;
    for the hard margin the weights would change nothing, as the thesis notes).

    Parameters
    ----------
    C : float, default=1.0
        The SVM's soft-margin penalty (multiplied by the weights).
    kernel : {'rbf', 'linear', 'poly'}, default='rbf'
        The SVM's kernel (:class:`kernelnb.svm.SVC`).
    sigma : float or 'scale', default=1.0
        The SVM's RBF width: ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))``.
    density_sigma : float or 'likelihood', default='likelihood'
        Width of the vicinities of the density fit (:func:`likelihood_sigma`).
    method : {'kl', 'l2'}, default='kl'
        The fit of the weights to the unlabeled points (:func:`fit_weights`).
    penalty : {None, 'quadratic', 'log'}, default=None
        Regulariser of the weights (:func:`fit_weights`).
    penalty_strength : float >= 0, default=1.0
        Its strength.
    sigma_unlabeled : float or None, default=None
        Width of the unlabeled Parzen estimate (L2 fit only; None: the density width).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    weights_ : ndarray of shape (n_samples,)
        The ``lambda_i`` (sum n).
    density_sigma_ : float
        The density width used.
    svc_ : SVC
        The weighted SVM.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import ReweightedSVC
    >>> rng = np.random.RandomState(0)
    >>> X = np.r_[rng.randn(10, 2) - 1, rng.randn(10, 2) + 1]
    >>> y = np.repeat([0, 1], 10)
    >>> Xu = np.r_[rng.randn(50, 2) - 1, rng.randn(50, 2) + 1]
    >>> clf = ReweightedSVC(kernel="linear").fit(X, y, X_unlabeled=Xu)
    >>> round(float(clf.weights_.sum()), 6)
    20.0
    >>> clf.predict([[-2.0, -2.0], [2.0, 2.0]])
    array([0, 1])
    """

    _parameter_constraints = {"C": POSITIVE,
                              "kernel": [str_options({"rbf", "linear", "poly"})],
                              "sigma": [*POSITIVE, str_options({"scale"})],
                              "density_sigma": [*POSITIVE, str_options({"likelihood"})],
                              **_WEIGHT_CONSTRAINTS}

    def __init__(self, *, C=1.0, kernel="rbf", sigma=1.0, density_sigma="likelihood",
                 method="kl", penalty=None, penalty_strength=1.0, sigma_unlabeled=None):
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.density_sigma = density_sigma
        self.method = method
        self.penalty = penalty
        self.penalty_strength = penalty_strength
        self.sigma_unlabeled = sigma_unlabeled

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None):
        """Fit the weights, then the weighted SVM.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training points.
        y : array of shape (n_samples,)
            Their labels.
        X_unlabeled : array of shape (n_unlabeled, n_features) or None, default=None
            The unlabeled points the weights are fitted to; None: weights 1.

        Returns
        -------
        self : ReweightedSVC
            The fitted classifier.
        """
        X, y, self.density_sigma_, self.weights_ = self._prepare(X, y, X_unlabeled,
                                                                 self.density_sigma)
        self.svc_ = SVC(C=self.C, kernel=self.kernel, sigma=self.sigma, n_jobs=1).fit(
            X, y, sample_weight=self.weights_)
        self.classes_ = self.svc_.classes_
        return self

    def decision_function(self, X):
        """Decision values of the weighted SVM.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,) or (n, n_classes)
            The decision values (as :meth:`kernelnb.svm.SVC.decision_function`).
        """
        check_is_fitted(self)
        return self.svc_.decision_function(check_input(self, X, reset=False))

    def predict(self, X):
        """Labels by the weighted SVM.

        Parameters
        ----------
        X : array of shape (n, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n,)
            Their labels.
        """
        check_is_fitted(self)
        return self.svc_.predict(check_input(self, X, reset=False))


class UnlabeledVicinalClassifier(BinaryClassifierMixin, BaseEstimator):
    """Linear classifier minimising the vicinal risk of the labeled and the unlabeled points.

    Chapelle's thesis §7.2.1:

        R(f) = (1/n) sum_i int l(f(x), y_i) dP_{x_i}(x) + (1/m) sum_j int l(f(x), f(x*_j)) dP_{x*_j}(x)

    with the 0-1 loss, ``f(x) = w.x + b`` and Gaussian vicinities ``N(x_i, sigma_L^2 I)``,
    ``N(x*_j, sigma_U^2 I)``: the integrals are ``Phi(-y_i f(x_i) / (sigma_L ||w||))`` and
    ``Phi(-|f(x*_j)| / (sigma_U ||w||))`` (``Phi`` the normal distribution function): an
    unlabeled point costs by lying close to the boundary, whichever side it is on.

    In one dimension ``w = +-1`` and the risk is a function of the threshold only: it is
    minimised over a fine grid of thresholds spanning the data and refined by a bounded scalar
    search (the risk is not convex).  ``sigma_labeled = 0`` is the limit ``sigma_L -> 0``: the
    labeled term becomes the training error, and the middle of the widest run of grid minimisers
    is kept.  In more dimensions L-BFGS from the linear SVM (C = 1) minimises over ``(w, b)``.

    Parameters
    ----------
    sigma_labeled : float >= 0, default=0.5
        Width ``sigma_L`` of the labeled points' vicinities (0: the limit, one feature only).
    sigma_unlabeled : float > 0, default=0.5
        Width ``sigma_U`` of the unlabeled points' vicinities.
    n_grid : int, default=2000
        Thresholds of the 1-D grid.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is +1.
    coef_ : ndarray of shape (n_features,)
        ``w`` (unit norm).
    intercept_ : float
        ``b``.
    vicinal_risk_ : float
        ``R(f)`` at the solution.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import UnlabeledVicinalClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = np.r_[rng.randn(5, 1) - 2, rng.randn(5, 1) + 2]
    >>> y = np.repeat([0, 1], 5)
    >>> Xu = np.r_[rng.randn(50, 1) - 2, rng.randn(50, 1) + 2]
    >>> clf = UnlabeledVicinalClassifier(sigma_labeled=0.5, sigma_unlabeled=0.5)
    >>> clf = clf.fit(X, y, X_unlabeled=Xu)
    >>> float(clf.coef_[0]), bool(abs(clf.intercept_) < 1.0)    # the gap between the clusters
    (1.0, True)
    """

    _parameter_constraints = {"sigma_labeled": NONNEGATIVE, "sigma_unlabeled": POSITIVE,
                              "n_grid": [interval(numbers.Integral, 10, None, closed="left")]}

    def __init__(self, *, sigma_labeled=0.5, sigma_unlabeled=0.5, n_grid=2000):
        self.sigma_labeled = sigma_labeled
        self.sigma_unlabeled = sigma_unlabeled
        self.n_grid = n_grid

    def _risk_1d(self, t, s, x, yl, xu):
        """Vicinal risk of the thresholds t (array) with direction s for 1-D data."""
        m = yl[:, None] * s * (x[:, None] - t[None, :])
        sl = float(self.sigma_labeled)
        lab = ndtr(-m / sl) if sl > 0 else (m < 0) + 0.5 * (m == 0)
        r = lab.mean(axis=0)
        if xu.shape[0]:
            r = r + ndtr(-np.abs(xu[:, None] - t[None, :]) / self.sigma_unlabeled).mean(axis=0)
        return r

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None):
        """Minimise the vicinal risk of the labeled and unlabeled points.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            The labeled points.
        y : array of shape (n_samples,)
            Their labels, two classes.
        X_unlabeled : array of shape (n_unlabeled, n_features) or None, default=None
            The unlabeled points.

        Returns
        -------
        self : UnlabeledVicinalClassifier
            The fitted classifier.
        """
        X, y = check_input(self, X, y)
        self.classes_, t = _binary_targets("UnlabeledVicinalClassifier", y)
        yl = t
        Xu = (np.empty((0, X.shape[1])) if X_unlabeled is None
              else check_input(self, X_unlabeled, reset=False))
        if X.shape[1] == 1:
            self._fit_1d(X[:, 0], yl, Xu[:, 0])
        else:
            if self.sigma_labeled == 0:
                raise ValueError("sigma_labeled = 0 (the limit) is implemented for one feature "
                                 f"only; X has {X.shape[1]}")
            self._fit_nd(X, yl, Xu)
        return self

    def _fit_1d(self, x, yl, xu):
        allx = np.concatenate([x, xu])
        span = allx.max() - allx.min() + 1e-12
        grid = np.linspace(allx.min() - 0.05 * span, allx.max() + 0.05 * span, self.n_grid)
        step = grid[1] - grid[0]
        best = None
        for s in (1.0, -1.0):
            r = self._risk_1d(grid, s, x, yl, xu)
            k = int(np.argmin(r))
            if self.sigma_labeled == 0:
                low = r <= r[k] + 1e-12
                # the middle of the widest run of grid minimisers
                edges = np.flatnonzero(np.diff(np.concatenate([[0], low.astype(int), [0]])))
                runs = edges.reshape(-1, 2)
                a, b = runs[np.argmax(runs[:, 1] - runs[:, 0])]
                t = 0.5 * (grid[a] + grid[b - 1])
                if xu.shape[0]:
                    res = minimize_scalar(lambda u: self._risk_1d(np.array([u]), s, x, yl, xu)[0],
                                          bounds=(grid[a] - step, grid[b - 1] + step),
                                          method="bounded")
                    t = float(res.x)
            else:
                res = minimize_scalar(lambda u: self._risk_1d(np.array([u]), s, x, yl, xu)[0],
                                      bounds=(grid[k] - step, grid[k] + step), method="bounded")
                t = float(res.x)
            val = float(self._risk_1d(np.array([t]), s, x, yl, xu)[0])
            if best is None or val < best[0] - 1e-12:
                best = (val, s, t)
        val, s, t = best
        self.coef_ = np.array([s])
        self.intercept_ = -s * t
        self.vicinal_risk_ = val

    def _fit_nd(self, X, yl, Xu):
        svc = SVC(C=1.0, kernel="linear", n_jobs=1, precision="float64").fit(X, yl)
        a = svc.dual_coef_.ravel()
        w0 = a @ svc.support_vectors_
        v0 = np.concatenate([w0, [float(svc.intercept_[0])]]) / max(np.linalg.norm(w0), 1e-12)

        def risk(v):
            w, b = v[:-1], v[-1]
            nw = max(np.linalg.norm(w), 1e-12)
            r = ndtr(-yl * (X @ w + b) / (self.sigma_labeled * nw)).mean()
            if Xu.shape[0]:
                r += ndtr(-np.abs(Xu @ w + b) / (self.sigma_unlabeled * nw)).mean()
            return r

        res = minimize(risk, v0, method="L-BFGS-B")
        v = res.x if res.fun <= risk(v0) else v0
        nw = np.linalg.norm(v[:-1])
        self.coef_ = v[:-1] / nw
        self.intercept_ = float(v[-1] / nw)
        self.vicinal_risk_ = float(risk(v))

    def decision_function(self, X):
        """``w.x + b`` (positive: ``classes_[1]``).

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
        return X @ self.coef_ + self.intercept_
