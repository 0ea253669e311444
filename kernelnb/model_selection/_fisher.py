"""The Fisher kernel of a Gaussian mixture, its parameters tuned by the radius-margin bound
(Chapelle's thesis, section 5.3; Jaakkola and Haussler, NIPS 11, 1999).

A generative model ``p(x | theta)`` gives each point its Fisher score
``U_x = grad_theta log p(x | theta)`` and the empirical information matrix
``I = (1/n) sum_i U_i U_i'``; the point is represented by ``x~ = I^-1/2 U_x`` and an SVM is
trained on ``x~`` (here with the linear kernel, ``K(x, y) = U_x' I^-1 U_y``, the Fisher kernel).
The thesis proposes (and did not test) to choose ``theta`` by minimising ``R^2 / M^2`` of that
SVM instead of by maximum likelihood.

Here the model is a mixture of spherical Gaussians fitted by maximum likelihood
(:class:`sklearn.mixture.GaussianMixture`); ``theta`` is the component means (weights and
variances stay at their likelihood values).  With responsibilities ``g_k(x)`` and
``D_k(x) = (x - mu_k) / s_k^2``, ``U_x = (g_k(x) D_k(x))_k`` and its derivatives are in closed
form (the second derivatives of ``log p`` that the thesis mentions):

``dU_(k,j) / dmu_(l,m) = g_k (delta_kl - g_l) D_lm D_kj - g_k delta_kl delta_jm / s_k^2``.
"""
from __future__ import annotations

import time

import numpy as np
from scipy.optimize import minimize
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin
from sklearn.mixture import GaussianMixture
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._classifier import BinaryClassifierMixin
from .._special import logsumexp_rows
from .._callbacks import run_to_end
from .._fit import fit_context, fit_steps
from .._threads import blas_single_thread, scipy_blas_single_thread
from .._validation import (
    NONNEGATIVE_INT,
    POSITIVE,
    POSITIVE_INT,
    str_options,
    check_input,
)
from ..svm import _smo
from ._gradient import _radius_margin, full_dual

__all__ = ["FisherKernelSVC", "gaussian_mixture_fisher_scores"]


def _responsibilities(X, weights, means, variances):
    """``(log p(x), g (n, M), D (n, M, d))`` of the spherical mixture."""
    d = X.shape[1]
    diff = X[:, None, :] - means[None, :, :]                       # (n, M, d)
    sq = np.einsum("nkd,nkd->nk", diff, diff)
    logc = (np.log(weights) - 0.5 * d * np.log(2.0 * np.pi * variances))[None, :]
    logpk = logc - 0.5 * sq / variances[None, :]
    logp = logsumexp_rows(logpk.copy())
    g = np.exp(logpk - logp[:, None])
    return logp, g, diff / variances[None, :, None]


def gaussian_mixture_fisher_scores(X, weights, means, variances, derivatives=False):
    """Fisher scores of a spherical Gaussian mixture with respect to its means.

    ``log p(x) = log sum_k w_k N(x; mu_k, s_k^2 I)``; the score is
    ``U_x = grad_mu log p(x) = (g_k(x) (x - mu_k) / s_k^2)_k`` with the responsibilities
    ``g_k(x)`` (Jaakkola and Haussler 1999; Chapelle's thesis §5.3).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points.
    weights : array-like of shape (n_components,)
        Mixture weights (positive, summing to 1).
    means : array-like of shape (n_components, n_features)
        Component means.
    variances : array-like of shape (n_components,)
        Component variances ``s_k^2`` (spherical).
    derivatives : bool, default=False
        Also return the derivatives of the scores with respect to the means.

    Returns
    -------
    U : ndarray of shape (n_samples, n_components * n_features)
        The scores, component-major (``U[:, k * d + j] = d log p / d mu_kj``).
    dU : ndarray of shape (n_samples, n_components * n_features, n_components * n_features)
        ``dU[i, a, b] = d U[i, a] / d theta_b`` (only with ``derivatives=True``).
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    mu = np.asarray(means, dtype=np.float64)
    v = np.asarray(variances, dtype=np.float64)
    _, g, D = _responsibilities(X, w, mu, v)
    n, M, d = D.shape
    U = (g[:, :, None] * D).reshape(n, M * d)
    if not derivatives:
        return U
    # g_k (delta_kl - g_l) D_lm D_kj
    A = (g[:, :, None] * (np.eye(M)[None] - g[:, None, :]))          # (n, k, l)
    dU = np.einsum("nkl,nlm,nkj->nkjlm", A, D, D)
    diag = g / v[None, :]                                            # g_k / s_k^2
    for k in range(M):
        dU[:, k, np.arange(d), k, np.arange(d)] -= diag[:, k:k + 1]
    return U, dU.reshape(n, M * d, M * d)


def _inv_sqrt(I, ridge):
    """``(I + ridge * mean(diag I) * Id)^-1/2`` by one symmetric eigendecomposition."""
    e, V = np.linalg.eigh(I)
    e = np.maximum(e, 0.0) + ridge * max(float(np.mean(np.diag(I))), 1e-300)
    return (V / np.sqrt(e)) @ V.T


def _l2_svm_primal(Z, yv, C, active=None, max_iter=50):
    """The dual ``alpha`` of the L2-margin SVM on the features ``Z`` (a hard margin on
    ``Z Z' + I/C``, with a bias), by Newton's method on its primal (Chapelle, Training a support
    vector machine in the primal, Neural Computation 19(5), 2007; Keerthi & DeCoste, JMLR 6,
    2005): ``min_(w,b) 1/2 ||w||^2 + C/2 sum_i max(0, 1 - y_i f_i)^2``, ``f = Z w + b``.

    On the points with ``y_i f_i < 1`` (the active set) the objective is a quadratic whose
    minimiser solves ``(J + C A'A) (w, b) = C A'y`` (``A = [Z, 1]`` on those rows, ``J`` the
    identity but for the bias); each step goes there, or part of the way when that does not
    descend, until the active set no longer changes: the optimum, reached in finitely many
    steps, and ``alpha_i = C max(0, 1 - y_i f_i)`` (the KKT conditions of the dual thesis ch. 4
    differentiates). With few features (the Fisher scores of a small mixture) a step costs a
    small linear system, where the dual's pair steps crawl on an ill-conditioned ``K + I/C``.

    Parameters
    ----------
    Z : ndarray of shape (n, p)
        The features.
    yv : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float
        The C of the L2 margin (``inf``: a hard margin, which this does not solve).
    active : ndarray of bool of shape (n,), optional
        A guess of the active set (the support vectors of a nearby problem).
    max_iter : int, default=50
        Newton steps allowed.

    Returns
    -------
    ndarray of shape (n,) or None
        ``alpha``, or None when ``C`` is infinite or the active set did not settle.
    """
    if not np.isfinite(C):
        return None
    n, p = Z.shape
    A = np.empty((n, p + 1))
    A[:, :p], A[:, p] = Z, 1.0
    J = np.eye(p + 1)
    J[p, p] = 0.0

    def objective(wb, f):
        xi = np.maximum(0.0, 1.0 - yv * f)
        return 0.5 * float(wb[:p] @ wb[:p]) + 0.5 * C * float(xi @ xi)

    wb, f = np.zeros(p + 1), np.zeros(n)
    value = objective(wb, f)
    sv = yv * f < 1.0 if active is None else np.asarray(active, dtype=bool)
    for _ in range(int(max_iter)):
        if not (np.any(sv & (yv > 0)) and np.any(sv & (yv < 0))):
            sv = yv * f < 1.0
        As = A[sv]
        try:
            new = np.linalg.solve(J + C * (As.T @ As), C * (As.T @ yv[sv]))
        except np.linalg.LinAlgError:
            return None
        f_new = A @ new
        v_new = objective(new, f_new)
        full = v_new <= value
        if not full:
            new, f_new, v_new = _line_search(wb, f, new - wb, f_new - f, yv, C, p, value)
        settled = full and np.array_equal(yv * f_new < 1.0, sv)
        wb, f, value = new, f_new, v_new
        if settled:
            return C * np.maximum(0.0, 1.0 - yv * f)
        sv = yv * f < 1.0
    return None


def _line_search(wb, f, dwb, df, yv, C, p, value, steps=40):
    """A step ``t`` in (0, 1) along ``(dwb, df)`` that lowers the primal below ``value``, the
    largest of 1/2, 1/4, ... (the objective is convex: some ``t`` does, unless the point is
    optimal already, when ``t = 0`` is returned)."""
    t = 1.0
    for _ in range(steps):
        t *= 0.5
        new, f_new = wb + t * dwb, f + t * df
        xi = np.maximum(0.0, 1.0 - yv * f_new)
        v_new = 0.5 * float(new[:p] @ new[:p]) + 0.5 * C * float(xi @ xi)
        if v_new < value:
            return new, f_new, v_new
    return wb, f, value


class FisherKernelSVC(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    """SVM on the Fisher scores of a Gaussian mixture, the means tuned by ``R^2/M^2``.

    Chapelle's thesis §5.3: a mixture of ``n_components`` spherical Gaussians is fitted to the
    training inputs by maximum likelihood; each point is mapped to
    ``x~ = I^-1/2 U_x`` (:func:`gaussian_mixture_fisher_scores`, ``I`` the empirical
    information matrix of the training scores) and an L2-margin SVM (a hard margin on
    ``K~ = K + I/C``, ``K`` the linear kernel on ``x~``) is trained.  With
    ``criterion='radius_margin'`` the component means are then moved, from their likelihood values,
    by L-BFGS on ``log(R^2 ||w||^2)`` (``R^2`` the variance of the points in feature space, the
    thesis's advice), with the gradient of the envelope theorem (thesis ch. 4:
    ``dT = <G, dK~>``) through the closed-form derivatives of the scores; one SVM training per
    evaluation, by Newton's method on the primal (the features are few and whitened), the
    model's SVC started at that solution.  ``criterion='likelihood'`` keeps the likelihood
    means (the original Fisher kernel).  Two classes only.

    Parameters
    ----------
    n_components : int, default=2
        Components of the mixture.
    C : float, default=1.0
        The SVM's (L2 margin) C.
    criterion : {'radius_margin', 'likelihood'}, default='radius_margin'
        How the means are chosen.
    max_iter : int, default=30
        L-BFGS iterations of the tuning (0: keep the likelihood means).
    ridge : float, default=1e-6
        Relative ridge added to ``I`` before its inverse square root (a score direction with no
        variance would otherwise blow up).
    random_state : int, RandomState or None, default=None
        Seeds the mixture's initialisation.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels.
    mixture_ : sklearn.mixture.GaussianMixture
        The maximum-likelihood mixture.
    means_ : ndarray of shape (n_components, n_features)
        The means the kernel uses (tuned or the likelihood's).
    radius_margin_ : float
        ``R^2 ||w||^2`` at ``means_``.
    radius_margin_ml_ : float
        ``R^2 ||w||^2`` at the likelihood means.
    history_ : list of dict
        One record per criterion evaluation: ``radius_margin``, ``R2``, ``W2``.
    svm_ : kernelnb.svm.SVC
        The linear L2-margin SVM on the training ``x~``.
    n_iter_ : int
        1 (the SVM at the likelihood means) plus the L-BFGS iterations done.
    n_features_in_ : int
        Number of features seen in ``fit``.
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    O. Chapelle, PhD thesis, Université Paris 6, 2002, section 5.3; T. Jaakkola and
    D. Haussler, Exploiting generative models in discriminative classifiers, NIPS 11, 1999.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.model_selection import FisherKernelSVC
    >>> X, y = make_moons(n_samples=200, noise=0.2, random_state=0)
    >>> ml = FisherKernelSVC(n_components=4, criterion="likelihood", random_state=0).fit(X, y)
    >>> rm = FisherKernelSVC(n_components=4, random_state=0).fit(X, y)
    >>> print(rm.radius_margin_ < ml.radius_margin_)
    True
    >>> print(rm.fisher_map(X[:3]).shape)
    (3, 8)
    """

    _parameter_constraints = {
        "n_components": POSITIVE_INT,
        "C": POSITIVE,
        "criterion": [str_options({"radius_margin", "likelihood"})],
        "max_iter": NONNEGATIVE_INT,
        "ridge": POSITIVE,
        "random_state": ["random_state"],
    }

    def __init__(self, *, n_components=2, C=1.0, criterion="radius_margin", max_iter=30, ridge=1e-6,
                 random_state=None):
        self.n_components = n_components
        self.C = C
        self.criterion = criterion
        self.max_iter = max_iter
        self.ridge = ridge
        self.random_state = random_state

    # -- the map -------------------------------------------------------------------------------
    def _scores(self, X, means, derivatives=False):
        m = self.mixture_
        return gaussian_mixture_fisher_scores(X, m.weights_, means, m.covariances_,
                                              derivatives=derivatives)

    def _features(self, U):
        """``(X~, A)``: the training map ``U A`` with ``A = I^-1/2``."""
        A = _inv_sqrt(U.T @ U / U.shape[0], float(self.ridge))
        return U @ A, A

    def _svm(self, Z, y=None, alpha_init=None):
        """The linear L2-margin SVM on ``Z``: fitted to ``y``, or unfitted (``y=None``)."""
        from ..svm import SVC  # kernelnb.svm imports nothing from here
        svm = SVC(kernel="linear", margin="l2", C=float(self.C), tol=1e-8, precision="float64")
        return svm if y is None else svm.fit(Z, y, alpha_init=alpha_init)

    def _dual(self, K, yv, alpha_init):
        """The dual ``alpha`` of the SVM :meth:`_svm` trains, from its linear kernel ``K = Z Z'``
        (float64): the same solver call as ``SVC.fit`` makes on these inputs (a hard margin on
        ``K + I/C``), without the estimator around it (the input checks, the model's attributes),
        which a criterion evaluation does not read."""
        svm = self._svm(None)
        n = K.shape[0]
        C_i = np.full(n, 1.0 if svm._margin == "hard" else float(self.C))
        ub, dadd = svm._bounds(C_i)
        a0 = np.zeros(n) if alpha_init is None else np.abs(alpha_init)
        ex = np.arange(n)
        with blas_single_thread():
            res = svm._solve((None, K, _smo.KIND_PRECOMPUTED, 0.0, 0.0, 1), ex,
                             np.where(yv > 0, 1, -1).astype(np.int8), ex, -np.ones(n), ub, dadd,
                             a0, n_threads=svm._n_threads())
        svm._report_status([res["status"]])        # warns, or hands on an interrupt
        return np.maximum(res["alpha"], 0.0)

    def _alpha(self, Z, K, yv, alpha_init=None):
        """The SVM's dual ``alpha`` on the features ``Z`` (``K = Z Z'``): by Newton's method on
        the primal (:func:`_l2_svm_primal`, the active set guessed from ``alpha_init``), or, where
        that does not settle, by the dual solver (:meth:`_dual`)."""
        active = None if alpha_init is None else alpha_init > 0
        alpha = _l2_svm_primal(Z, yv, float(self.C), active)
        return self._dual(K, yv, alpha_init) if alpha is None else alpha

    def _criterion(self, theta, X, y, yv, record):
        """``log T`` and its gradient in the flattened means."""
        M, d = self.n_components, X.shape[1]
        U, dU = self._scores(X, theta.reshape(M, d), derivatives=True)
        Z, A = self._features(U)
        n = X.shape[0]
        K = Z @ Z.T
        alpha = self._alpha(Z, K, yv, record.get("alpha"))
        record["alpha"] = alpha
        Kt = K + np.eye(n) / float(self.C)
        T, G, info = _radius_margin(Kt, yv, alpha, "variance")
        self.history_.append({"radius_margin": T, "R2": info["R2"], "W2": info["W2"]})
        # K = U B U' with B = A A = I^-1 (ridged); I = U'U / n.
        # <G, dK> = 2 <G U B, dU> - <B U' G U B, dI>,  dI = (dU'U + U'dU) / n
        B = A @ A
        Q = G @ U @ B
        P = B @ U.T @ G @ U @ B
        W = 2.0 * Q - 2.0 * (U @ P) / n                       # <W, dU_p> for every parameter p
        grad = np.einsum("na,nap->p", W, dU)
        return float(np.log(T)), grad / T

    @fit_context
    def fit(self, X, y):
        """Fit the mixture, tune its means (``criterion='radius_margin'``) and train the SVM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Training labels (two classes).

        Returns
        -------
        self : FisherKernelSVC
            The fitted classifier.
        """
        return run_to_end(self._fit_steps(X, y))

    @fit_steps
    def _fit_steps(self, X, y):
        """:meth:`fit` as a generator: with ``criterion='radius_margin'`` (and ``max_iter > 0``)
        it yields None once, after the mixture and the SVM at the likelihood's means, before the
        tuning; :meth:`_likelihood_model` then gives the likelihood's kernel (a dashboard draws
        it while the means move). Returns self."""
        t0 = time.perf_counter()
        X, y = check_input(self, X, y)
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.shape[0] < 2:
            raise ValueError(f"y must hold 2 classes; got 1 class ({classes[0]!r})")
        if classes.shape[0] != 2:
            raise ValueError("Only binary classification is supported: y must hold exactly 2 "
                             f"classes, got {classes.shape[0]} ({list(classes)[:5]})")
        self.classes_ = classes
        yv = np.where(y == self.classes_[1], 1.0, -1.0)
        M, d = int(self.n_components), X.shape[1]
        if M > X.shape[0]:
            raise ValueError(f"n_components={M} is larger than the number of samples "
                             f"({X.shape[0]})")
        self.mixture_ = GaussianMixture(n_components=M, covariance_type="spherical",
                                        random_state=self.random_state).fit(X)
        self.history_ = []
        record = {}
        theta0 = self.mixture_.means_.ravel().copy()
        self.radius_margin_ml_ = float(np.exp(self._criterion(theta0, X, y, yv, record)[0]))
        theta, self.n_iter_ = theta0, 1
        if self.criterion == "radius_margin" and int(self.max_iter) > 0:
            self._likelihood_stage = (X, y, yv, time.perf_counter() - t0)
            try:
                yield None
            finally:
                del self._likelihood_stage
            # scipy's L-BFGS-B calls scipy's own BLAS on short vectors: one thread
            with scipy_blas_single_thread():
                res = minimize(self._criterion, theta0, args=(X, y, yv, record), jac=True,
                               method="L-BFGS-B", options={"maxiter": int(self.max_iter)})
            if res.fun <= np.log(self.radius_margin_ml_):
                theta = res.x
            self.n_iter_ = 1 + int(res.nit)
        self._final_svm(theta.reshape(M, d), X, y, yv)
        return self

    def _final_svm(self, means, X, y, yv):
        """Set ``means_`` and train the SVM the model predicts with, at those means."""
        self.means_ = means
        U = self._scores(X, self.means_)
        Z, self._A = self._features(U)
        K = Z @ Z.T
        # the SVC started at the solution: it only checks it, and holds it for predictions
        self.svm_ = self._svm(Z, y, alpha_init=self._alpha(Z, K, yv))
        a = full_dual(self.svm_, X.shape[0])
        Kt = K + np.eye(X.shape[0]) / float(self.C)
        self.radius_margin_ = float(_radius_margin(Kt, yv, a, "variance")[0])

    def _likelihood_model(self):
        """At the pause of :meth:`_fit_steps`: the fitted model with the likelihood's means, the
        one ``FisherKernelSVC`` with the same parameters and ``criterion='likelihood'`` fits on
        the same data (its mixture is this one's, fitted once)."""
        t0 = time.perf_counter()
        X, y, yv, stage_s = self._likelihood_stage
        twin = type(self)(**{**self.get_params(), "criterion": "likelihood"})
        for name in ("n_features_in_", "feature_names_in_", "classes_", "mixture_",
                     "radius_margin_ml_"):
            if hasattr(self, name):
                setattr(twin, name, getattr(self, name))
        twin.history_ = [dict(self.history_[0])]
        twin.n_iter_ = 1
        twin._final_svm(self.mixture_.means_.copy(), X, y, yv)
        twin.interrupted_ = False
        twin.fit_time_ = stage_s + time.perf_counter() - t0
        return twin

    def fisher_map(self, X):
        """The representation ``x~ = I^-1/2 U_x`` of each row of X (``I`` from the training set).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        ndarray of shape (n_samples, n_components * n_features)
            Their normalised Fisher scores.
        """
        check_is_fitted(self, "svm_")
        X = check_input(self, X, reset=False)
        return self._scores(X, self.means_) @ self._A

    def decision_function(self, X):
        """The SVM's decision on the Fisher map of X (positive towards ``classes_[1]``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        ndarray of shape (n_samples,)
            The decision values.
        """
        Z = self.fisher_map(X)
        return self.svm_.decision_function(Z)
