"""Small-sample model selection for linear-in-parameters regression, with unlabeled points.

Chapelle's thesis, chapter 9 (O. Chapelle, "Support Vector Machines: Induction Principles,
Adaptive Tuning and Prior Knowledge", PhD thesis, Universite Paris 6, 2002), and O. Chapelle,
V. Vapnik and Y. Bengio, "Model selection for small sample regression", Machine Learning
48:9-23, 2002.

The models are nested: ``F_d`` is spanned by the first ``d`` functions of a series (the Fourier
basis ``1, sqrt(2) cos(px), sqrt(2) sin(px)`` of section 9.4, orthonormal for x uniform on
[-pi, pi], or the Legendre polynomials ``sqrt(2k+1) P_k(x / pi)``, orthonormal for the same
measure), ``f_d`` is the least-squares fit in ``F_d`` and ``R_emp(d)`` its mean squared training
residual.  Every criterion estimates the risk ``R(f_d)`` and the chosen ``d`` minimises it:

``dee``
    Direct Eigenvalue Estimator (9.16)-(9.17): ``R_emp (1 - d/n)^-1 (1 + sum_i 1/lambda_i / n)``
    with ``sum_i 1/lambda_i = trace(C_emp^-1 C~)``, ``C_emp = Phi'Phi / n`` on the training
    points and ``C~`` the same matrix on the unlabeled points (section 9.3).
``seb``
    Smallest Eigenvalue Bound (9.20)-(9.21): ``R_emp (1 - d/n)^-1 (1 + d / (n k))``,
    ``k = (1 - sqrt((d (log(2n/d) + 1) + 4) / n))_+`` (eta = 0.1, V_d = 1).
``adj``
    Schuurmans' metric-based ADJ (D. Schuurmans, "A new metric-based approach to model
    selection", AAAI 1997; D. Schuurmans and F. Southey, Machine Learning 48, 2002).  The thesis
    uses it (section 9.4) but does not define it; here, with the distance
    ``rho(f, g) = sqrt(E (f(x) - g(x))^2)`` measured on the training points (``rho_L``) and on
    the unlabeled points (``rho_U``), the adjusted distance to the target is
    ``sqrt(R_emp(d)) max_{j<d} rho_U(f_j, f_d) / rho_L(f_j, f_d)`` and its square is the risk
    estimate (``R_emp`` itself at d = 1, where no smaller model exists).
``fpe``
    Akaike's factor (9.4): ``(1 + d/n) / (1 - d/n)``.
``ucb``
    Uniform convergence bound (9.5): ``(1 - c sqrt((d (log(n/d) + 1) - log eta) / n))_+^-1`` with
    ``c = 1`` and ``log eta = -3`` (section 9.4).
``gcv``
    Generalized cross-validation (Wahba et al. 1979): ``(1 - d/n)^-2``.
``bic``
    Schwarz's criterion in the multiplicative form of Cherkassky et al. (1999) that the thesis's
    (9.3) frames all penalties in: ``1 + (log n / 2) (d/n) / (1 - d/n)``.
``cpm``
    Mallows' C_p: ``R_emp + 2 (d/n) s^2`` with the noise variance ``s^2 = n R_emp(D) / (n - D)``
    of the largest model D considered.
``ric``
    Risk inflation criterion (Foster and George 1994): ``R_emp + 2 log(D) (d/n) s^2``, the same
    ``s^2``.
``cv5``
    K-fold cross-validation (5 folds by default, :class:`sklearn.model_selection.KFold`): the
    mean over folds of the held-out mean squared error; ``inf`` where ``d`` exceeds the rank of a
    training fold.

The thesis cites GCV, RIC, BIC and C_p without their formulas; the forms above are the textbook
ones and are a choice of this module.  Without unlabeled points, DEE and ADJ use the training
points themselves as the unlabeled sample (then DEE is FPE and ADJ is ``R_emp``): pass
unlabeled points to use them as the chapter intends.

The experiments of section 9.4 are :func:`generalization_prediction_experiment` (Fig. 9.2) and
:func:`selection_ratio_experiment` (Tables 9.1 and 9.2).
"""
from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy.linalg import qr
from scipy.linalg.lapack import dtrtri
from scipy.special import eval_legendre
from .._estimator import BaseEstimator
from sklearn.base import RegressorMixin
from sklearn.model_selection import KFold
from sklearn.utils import Bunch
from sklearn.utils.validation import check_array, check_is_fitted

from .._fit import fit_context
from .._validation import interval, str_options, check_input, check_param

__all__ = ["REGRESSION_CRITERIA", "SeriesRegressor", "basis_matrix", "regression_risk_estimates"]

#: every criterion of :func:`regression_risk_estimates`, in the column order of Table 9.1
REGRESSION_CRITERIA = ("adj", "seb", "cv5", "dee", "ucb", "gcv", "ric", "bic", "fpe", "cpm")
_BASES = ("fourier", "legendre")
_UCB_C, _UCB_LOG_ETA = 1.0, -3.0          # section 9.4
_SEB_CONST = 4.0                          # -log(eta / 4) with eta = 0.1, rounded as in (9.21)


def basis_matrix(X, n_basis, basis="fourier"):
    """The first ``n_basis`` functions of the series at the rows of ``X``.

    ``basis='fourier'``: ``1, sqrt(2) cos(x), sqrt(2) sin(x), sqrt(2) cos(2x), ...`` (thesis
    section 9.4); ``'legendre'``: ``1, sqrt(3) P_1(x/pi), sqrt(5) P_2(x/pi), ...``.  Both are
    orthonormal for x uniform on [-pi, pi].  With several features the basis is additive: after
    the constant, each frequency (degree) takes its functions feature by feature.

    Parameters
    ----------
    X : array-like of shape (n_samples,) or (n_samples, n_features)
        The points.
    n_basis : int
        The number of basis functions (at least 1).
    basis : {'fourier', 'legendre'}, default='fourier'
        The series.

    Returns
    -------
    ndarray of shape (n_samples, n_basis)
        The value of each basis function (column) at each point (row).
    """
    check_param("n_basis", n_basis, [interval(Integral, 1, None, closed="left")], "basis_matrix")
    check_param("basis", basis, [str_options(set(_BASES))], "basis_matrix")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    n, p = X.shape
    cols = [np.ones(n)]
    k = 1
    while len(cols) < n_basis:
        for j in range(p):
            if basis == "fourier":
                cols.append(np.sqrt(2.0) * np.cos(k * X[:, j]))
                cols.append(np.sqrt(2.0) * np.sin(k * X[:, j]))
            else:
                cols.append(np.sqrt(2.0 * k + 1.0) * eval_legendre(k, X[:, j] / np.pi))
        k += 1
    return np.column_stack(cols[:n_basis])


def _rank(R, n):
    """Number of leading columns of the QR factor R that are numerically independent."""
    diag = np.abs(np.diag(R))
    if diag.size == 0 or diag[0] == 0:
        return 0
    tol = max(R.shape) * np.finfo(np.float64).eps * max(diag.max(), 1.0) * 1e3
    bad = np.flatnonzero(diag <= tol)
    return int(bad[0]) if bad.size else diag.size


def _nested_fits(Phi, y, with_z=False):
    """Least squares on the first d columns of Phi for every d at once, by one QR.

    Returns (rank, Rinv, coef, fitted): ``coef[:, d-1]`` is the fit with d functions (zeros
    beyond d), ``fitted[:, d-1]`` its values at the training points; columns past the numerical
    rank are dropped."""
    Q, R = qr(Phi, mode="economic")
    r = _rank(R, Phi.shape[0])
    Q, R = Q[:, :r], R[:r, :r]
    z = Q.T @ y
    Rinv, info = dtrtri(R, lower=0)          # R^-1 (upper triangular: its leading blocks nest)
    if info != 0:
        raise np.linalg.LinAlgError("singular basis matrix")
    coef = np.cumsum(Rinv * z[None, :], axis=1)
    fitted = np.cumsum(Q * z[None, :], axis=1)
    return (r, Rinv, coef, fitted, z) if with_z else (r, Rinv, coef, fitted)


def _cv_risk(Phi, y, n_folds, D):
    """Mean held-out squared error over K folds for d = 1..D (inf past a fold's rank)."""
    out = np.zeros(D)
    for train, test in KFold(n_splits=n_folds).split(Phi):
        r, _, coef, _ = _nested_fits(Phi[train, :D], y[train])
        err = np.full(D, np.inf)
        pred = Phi[test, :r] @ coef
        err[:r] = np.mean((y[test, None] - pred) ** 2, axis=0)
        out += err
    return out / n_folds


def _adj_factor(n, rinv, z, C_unl):
    """Schuurmans' ADJ factor ``max_{j<k} rho_U(f_j, f_k)^2 / rho_L(f_j, f_k)^2`` for every k
    (1 at k = 1).  ``f_k - f_j`` has coefficients ``sum_{j<i<=k} w_i`` with
    ``w_i = R^-1[:, i] z_i``; on the training points its squared norm is
    ``sum_{j<i<=k} z_i^2 / n`` (Q is orthonormal), on the unlabeled ones
    ``||sum_{j<i<=k} L' w_i||^2`` with ``C~ = L L'``: suffix sums, no cancellation."""
    lam, E = np.linalg.eigh(C_unl)
    V = (E * np.sqrt(np.maximum(lam, 0))).T @ (rinv * z[None, :])      # columns L' w_i
    z2 = z ** 2 / n
    D = len(z)
    factor = np.ones(D)
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(1, D):
            # j = k-1, k-2, ..., 0: sums over i = j+1..k (0-based columns k, k-1..k, ...)
            du = np.sum(np.cumsum(V[:, k:0:-1], axis=1) ** 2, axis=0)
            dl = np.cumsum(z2[k:0:-1])
            r = du / dl
            r = r[np.isfinite(r)]
            factor[k] = r.max() if r.size else np.inf
    return factor


def _criteria(n, dims, remp, rinv, coef, C_emp, C_unl, wanted, cv=None, z=None):
    """The risk estimates of ``wanted`` criteria (dict name -> array over ``dims``)."""
    d = dims.astype(np.float64)
    ratio = d / n
    with np.errstate(divide="ignore", invalid="ignore"):
        inv_free = np.where(ratio < 1, 1.0 / (1.0 - ratio), np.inf)
        out = {}
        if "fpe" in wanted:
            out["fpe"] = remp * (1 + ratio) * inv_free
        if "gcv" in wanted:
            out["gcv"] = remp * inv_free ** 2
        if "bic" in wanted:
            out["bic"] = remp * (1 + 0.5 * np.log(n) * ratio * inv_free)
        if "ucb" in wanted:
            u = 1 - _UCB_C * np.sqrt((d * (np.log(n / d) + 1) - _UCB_LOG_ETA) / n)
            out["ucb"] = np.where(u > 0, remp / np.where(u > 0, u, 1), np.inf)
        if "seb" in wanted:
            k = 1 - np.sqrt(np.maximum(d * (np.log(2 * n / d) + 1) + _SEB_CONST, 0) / n)
            out["seb"] = np.where(k > 0, remp * inv_free * (1 + d / (n * np.where(k > 0, k, 1))),
                                  np.inf)
        if "cpm" in wanted or "ric" in wanted:
            D = dims[-1]
            s2 = n * remp[-1] / (n - D) if n > D else np.inf
            if "cpm" in wanted:
                out["cpm"] = remp + 2 * ratio * s2
            if "ric" in wanted:
                out["ric"] = remp + 2 * np.log(max(D, 2)) * ratio * s2
        if "dee" in wanted:
            # trace(C_emp,d^-1 C~_d) = n trace(R_d^-T C~_d R_d^-1): the leading blocks of R^-1
            # nest, so one product gives every d (thesis section 9.3)
            M = rinv.T @ C_unl @ rinv
            trace = n * np.cumsum(np.diag(M))
            out["dee"] = remp * inv_free * (1 + trace / n)
        if "adj" in wanted:
            out["adj"] = remp * _adj_factor(n, rinv, z, C_unl)
        if "cv5" in wanted:
            out["cv5"] = cv
    return out


def regression_risk_estimates(X, y, X_unlabeled=None, *, basis="fourier", max_dim=None,
                              criteria=None, n_folds=5):
    """Each criterion's estimate of the risk of the least-squares fit in ``F_d``, d = 1..D.

    Parameters
    ----------
    X : array-like of shape (n_samples,) or (n_samples, n_features)
        Training inputs.
    y : array-like of shape (n_samples,)
        Training targets.
    X_unlabeled : array-like, optional
        Unlabeled inputs from the same distribution (used by ``dee`` and ``adj``; the training
        inputs when None).
    basis : {'fourier', 'legendre'}
        The series (see :func:`basis_matrix`).
    max_dim : int, optional
        Largest number of basis functions D (< n); default ``n - 1``.  It is lowered to the
        numerical rank of the training basis matrix.
    criteria : sequence of str, optional
        Names from :data:`REGRESSION_CRITERIA` (default: all).
    n_folds : int
        Folds of ``cv5``.

    Returns
    -------
    Bunch
        ``dims`` (1..D), ``empirical_risk``, ``estimates`` (dict name -> array over dims),
        ``chosen`` (dict name -> chosen d), ``coef`` (D x D, column d-1: the fit with d
        functions).

    Notes
    -----
    Chapelle's thesis, chapter 9: (9.3)-(9.5), (9.16)-(9.21) and section 9.4; the module
    docstring gives each criterion.
    """
    caller = "regression_risk_estimates"
    check_param("basis", basis, [str_options(set(_BASES))], caller)
    check_param("max_dim", max_dim, [interval(Integral, 1, None, closed="left"), None], caller)
    check_param("n_folds", n_folds, [interval(Integral, 2, None, closed="left")], caller)
    check_param("criteria", criteria, ["array-like", None], caller)
    wanted = REGRESSION_CRITERIA if criteria is None else tuple(criteria)
    unknown = [c for c in wanted if c not in REGRESSION_CRITERIA]
    if unknown:
        raise ValueError(f"The 'criteria' parameter of {caller} must hold names from "
                         f"{REGRESSION_CRITERIA}. Got {unknown!r} instead.")
    X = check_array(np.asarray(X, dtype=np.float64).reshape(len(X), -1), input_name="X")
    y = check_array(y, ensure_2d=False, input_name="y").astype(np.float64).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have different numbers of samples: {X.shape[0]} and "
                         f"{y.shape[0]}.")
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"{caller} needs at least 2 samples, got n_samples = {n}.")
    if max_dim is not None and max_dim >= n:
        raise ValueError(f"The 'max_dim' parameter of {caller} must be smaller than the number "
                         f"of samples ({n}). Got {max_dim} instead.")
    if X_unlabeled is None:
        U = X
    else:
        U = check_array(np.asarray(X_unlabeled, dtype=np.float64).reshape(
            len(X_unlabeled), -1), input_name="X_unlabeled")
        if U.shape[1] != X.shape[1]:
            raise ValueError(f"X_unlabeled has {U.shape[1]} features but X has {X.shape[1]}.")
    D = n - 1 if max_dim is None else int(max_dim)
    Phi = basis_matrix(X, D, basis)
    return _estimates_from_matrices(Phi, y, basis_matrix(U, D, basis), wanted, n_folds)


def _estimates_from_matrices(Phi, y, Phi_unl, wanted, n_folds):
    n = Phi.shape[0]
    r, Rinv, coef, fitted, z = _nested_fits(Phi, y, with_z=True)
    D = max(r, 1)
    dims = np.arange(1, D + 1)
    remp = np.mean((y[:, None] - fitted) ** 2, axis=0)
    C_emp = Phi[:, :D].T @ Phi[:, :D] / n
    C_unl = Phi_unl[:, :D].T @ Phi_unl[:, :D] / Phi_unl.shape[0]
    cv = _cv_risk(Phi, y, n_folds, D) if "cv5" in wanted and n >= n_folds else None
    if "cv5" in wanted and cv is None:
        cv = np.full(D, np.inf)
    est = _criteria(n, dims, remp, Rinv, coef, C_emp, C_unl, wanted, cv, z)
    chosen = {c: int(dims[np.argmin(np.where(np.isnan(v), np.inf, v))]) for c, v in est.items()}
    return Bunch(dims=dims, empirical_risk=remp, estimates=est, chosen=chosen, coef=coef)


class SeriesRegressor(RegressorMixin, BaseEstimator):
    """Least squares on the first d functions of a series, d chosen by a chapter-9 criterion.

    Chapelle's thesis ch. 9; Chapelle, Vapnik and Bengio, "Model selection for small sample
    regression", Machine Learning 48:9-23, 2002.  The criteria that use unlabeled points
    (``dee``, ``adj``) take them as ``fit(X, y, X_unlabeled=...)``; without them the training
    inputs stand in.

    Parameters
    ----------
    basis : {'fourier', 'legendre'}, default='fourier'
        The series (:func:`basis_matrix`); inputs are used as they are (the Fourier basis is
        orthonormal for x uniform on [-pi, pi]).
    criterion : str, default='dee'
        One of :data:`REGRESSION_CRITERIA`; DEE is the thesis's method (section 9.3).
    max_dim : int or None, default=None
        Largest number of basis functions (default ``n - 1``).
    n_folds : int, default=5
        Folds of the ``cv5`` criterion.

    Attributes
    ----------
    n_basis_ : int
        The chosen number of basis functions d.
    coef_ : ndarray of shape (d,)
        The least-squares coefficients of the d = ``n_basis_`` functions.
    risk_estimates_ : ndarray of shape (D,)
        The criterion's risk estimate for d = 1..D.
    empirical_risk_ : ndarray of shape (D,)
        The training mean squared error for d = 1..D.

    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.model_selection import SeriesRegressor
    >>> rng = np.random.RandomState(0)
    >>> x = rng.uniform(-np.pi, np.pi, 40)
    >>> y = np.sin(2 * x) + 0.1 * rng.normal(size=40)
    >>> u = rng.uniform(-np.pi, np.pi, 500)
    >>> reg = SeriesRegressor(criterion="dee", max_dim=20)
    >>> reg = reg.fit(x[:, None], y, X_unlabeled=u[:, None])
    >>> print(reg.n_basis_)
    5
    >>> print(np.round(reg.predict([[np.pi / 4]]), 1))
    [1.]
    """

    _parameter_constraints = {
        "basis": [str_options(set(_BASES))],
        "criterion": [str_options(set(REGRESSION_CRITERIA))],
        "max_dim": [interval(Integral, 1, None, closed="left"), None],
        "n_folds": [interval(Integral, 2, None, closed="left")],
    }

    def __init__(self, *, basis="fourier", criterion="dee", max_dim=None, n_folds=5):
        self.basis = basis
        self.criterion = criterion
        self.max_dim = max_dim
        self.n_folds = n_folds

    @fit_context
    def fit(self, X, y, *, X_unlabeled=None):
        """Fit every d up to ``max_dim``, keep the one the criterion picks.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs (at least 2).
        y : array-like of shape (n_samples,)
            Training targets.
        X_unlabeled : array-like of shape (n_unlabeled, n_features) or None, default=None
            Unlabeled inputs from the same distribution, used by ``dee`` and ``adj`` (None:
            the training inputs stand in).

        Returns
        -------
        self : SeriesRegressor
            The fitted regressor.
        """
        X, y = check_input(self, X, y, y_numeric=True)
        if X.shape[0] < 2:
            raise ValueError(f"SeriesRegressor needs at least 2 samples, got n_samples = "
                             f"{X.shape[0]}.")
        if X_unlabeled is not None:
            X_unlabeled = check_input(self, X_unlabeled, reset=False)
        max_dim = self.max_dim
        if max_dim is not None and max_dim >= X.shape[0]:
            raise ValueError(f"The 'max_dim' parameter of SeriesRegressor must be smaller than "
                             f"the number of samples ({X.shape[0]}). Got {max_dim} instead.")
        res = regression_risk_estimates(X, y, X_unlabeled, basis=self.basis, max_dim=max_dim,
                                        criteria=(self.criterion,), n_folds=self.n_folds)
        d = res.chosen[self.criterion]
        self.n_basis_ = d
        self.coef_ = res.coef[:d, d - 1].copy()
        self.risk_estimates_ = res.estimates[self.criterion]
        self.empirical_risk_ = res.empirical_risk
        return self

    def predict(self, X):
        """The fitted series at the rows of X."""
        check_is_fitted(self, "coef_")
        X = check_input(self, X, reset=False)
        return basis_matrix(X, self.n_basis_, self.basis) @ self.coef_
