"""Model-selection criteria of an SVM and their gradients in the log kernel parameters.

Chapelle's thesis ch. 4 (Chapelle, Vapnik, Bousquet & Mukherjee, Machine Learning 46, 2002): a criterion T(theta) that estimates the
generalisation error is minimised over theta = (log C, log sigma, log scales) by a quasi-Newton
method; every evaluation trains one SVM and the gradient costs a few matrix products more.

Both criteria are written as ``dT = sum_ij G_ij dK~_ij`` for one matrix ``G`` (n x n) where
``K~ = K + I / C`` is the kernel of the L2 soft margin.  Then

* ``dT / dlog C = -trace(G) / C``  (``dK~/dlog C = -I/C``);
* a kernel parameter contributes ``sum_ij G_ij dK_ij/dtheta``, computed per feature by matrix
  products (:func:`_contract`): no (n_features, n, n) array is built.
"""
from __future__ import annotations


import numpy as np
from scipy import linalg
from sklearn.base import clone

from .. import kernels as _k
from .._threads import blas_single_thread
from .._validation import NONNEGATIVE, POSITIVE_INT, str_options, check_param
from ._estimates import radius_squared_from_kernel

__all__ = ["criterion_and_gradient", "full_dual", "sphere_radius2", "CRITERIA", "TUNABLE"]

CRITERIA = ("radius_margin", "span")
TUNABLE = ("C", "sigma", "scales")
RADII = ("variance", "sphere")
# Solver tolerance of the fits behind the criteria: the KKT gap of the float64 solve (the
# criteria and their gradients assume the exact optimum).
_TOL = 1e-9
# Smoothing of the step in the span criterion: Psi(x) = 1 / (1 + exp(-A x + B)) (thesis 4.2,
# Fig. 4.1 uses A = 5, B = 0).
SPAN_SIGMOID = (5.0, 0.0)


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------
def full_dual(fitted, n):
    """The dual variables ``alpha_i >= 0`` of a fitted binary SVC, one per training sample.

    Parameters
    ----------
    fitted : SVC
        A fitted two-class :class:`kernelnb.svm.SVC`.
    n : int
        Number of training samples it was fitted on.

    Returns
    -------
    ndarray of shape (n,)
        ``alpha_i`` (zero off the support vectors).  ``SVC.fit(..., alpha_init=alpha)`` accepts
        it as a warm start (the SVC takes absolute values of its ``alpha_init``).
    """
    if not hasattr(fitted, "dual_coef_"):
        raise ValueError("fitted must be a fitted SVC (it has no dual_coef_)")
    if np.asarray(fitted.dual_coef_).shape[0] != 1:
        raise ValueError("full_dual handles two-class SVCs only, got dual_coef_ of shape "
                         f"{np.shape(fitted.dual_coef_)}")
    check_param("n", n, POSITIVE_INT, "full_dual")
    if len(fitted.support_) and int(np.max(fitted.support_)) >= n:
        raise ValueError(f"n={n} is smaller than the number of training samples of fitted")
    alpha = np.zeros(int(n))
    alpha[fitted.support_] = np.abs(np.asarray(fitted.dual_coef_, dtype=np.float64)[0])
    return alpha


def sphere_radius2(K, tol=1e-12, max_iter=200_000, beta_init=None):
    """Squared radius of the smallest sphere enclosing the points of kernel ``K``, and its weights.

    :func:`~kernelnb.model_selection.radius_squared_from_kernel` with ``radius='sphere'`` and
    a tighter default tolerance (the gradients of the radius-margin criterion need the exact
    sphere), warm-started from ``beta_init`` when given.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric positive semi-definite kernel matrix.
    tol : float, default=1e-12
        Stop when the largest violation of the optimality conditions is below ``tol * max
        K_ii``.
    max_iter : int, default=200000
        Pairwise steps allowed.
    beta_init : array-like of shape (n,) or None, default=None
        Warm start (e.g. the weights at the previous kernel parameters); None: uniform weights.

    Returns
    -------
    R2 : float
        The squared radius.
    beta : ndarray of shape (n,)
        The weights (the centre is ``sum beta_i Phi(x_i)``).
    """
    return radius_squared_from_kernel(K, "sphere", tol=tol, max_iter=max_iter, beta_init=beta_init)


def _sigmoid(x, A, B):
    return 0.5 * (1.0 + np.tanh(0.5 * (A * x - B)))


# --------------------------------------------------------------------------------------------
# Kernel derivatives contracted with a matrix
# --------------------------------------------------------------------------------------------
def _contract(kind, Xraw, s, K, G, kern, want_sigma, want_scales):
    """``sum_ij G_ij dK_ij/dlog sigma`` and, per feature p, ``sum_ij G_ij dK_ij/dlog s_p``.

    ``Xraw`` are the unscaled inputs, ``s`` the scales, ``K`` the kernel matrix, ``kern`` the
    kernel object (its gamma / degree / coef0 for 'poly').  Every per-feature sum is a quadratic
    form ``x_p' H x_p`` taken for all p at once with two matrix products, O(n^2 d) time and
    O(n d) extra memory.
    """
    out = {}
    Gs = 0.5 * (G + G.T)
    if kind == "rbf":
        # dK/dlog s_p = -K s_p^2 (x_ip - x_jp)^2 / sigma^2 ; dK/dlog sigma = -sum_p of these.
        H = Gs * K
        Xc = Xraw - Xraw.mean(axis=0)      # sum_ij H_ij (a_i - a_j)^2 is translation invariant
        r = H.sum(axis=1)
        quad = np.einsum("ij,ij->j", Xc, H @ Xc)
        per_feature = 2.0 * (r @ (Xc * Xc) - quad)          # sum_ij H_ij (x_ip - x_jp)^2
        g_scales = -(s * s) * per_feature / kern.sigma ** 2
        if want_scales:
            out["scales"] = g_scales
        if want_sigma:
            out["sigma"] = float(-g_scales.sum())
        return out
    if want_scales:
        # K = k(<sx, sy>): dK/dlog s_p = k'(<sx, sy>) * 2 s_p^2 x_ip x_jp
        if kind == "linear":
            H = Gs
        else:
            Xs = Xraw * s
            base = Xs @ Xs.T + kern.coef0
            H = Gs * (kern.degree * base ** (kern.degree - 1))
        quad = np.einsum("ij,ij->j", Xraw, H @ Xraw)
        out["scales"] = 2.0 * (s * s) * quad
    return out


# --------------------------------------------------------------------------------------------
# The SVM solution in float64
# --------------------------------------------------------------------------------------------
def _free_bounded(alpha, box):
    """Indices of the free (0 < alpha < box) and bounded (alpha = box) support vectors."""
    if box is None:
        return np.flatnonzero(alpha > 0), np.zeros(0, dtype=np.intp)
    at = alpha >= box * (1.0 - 1e-8)
    return np.flatnonzero((alpha > 0) & ~at), np.flatnonzero(at)


def _sv_system(Kt, yv, F):
    """``H = [[Q_FF, y_F], [y_F', 0]]`` with ``Q = yy' o K~`` (the support-vector system)."""
    m = F.size
    H = np.empty((m + 1, m + 1))
    H[:m, :m] = (yv[F, None] * yv[None, F]) * Kt[np.ix_(F, F)]
    H[:m, m] = yv[F]
    H[m, :m] = yv[F]
    H[m, m] = 0.0
    return H


# --------------------------------------------------------------------------------------------
# Criteria
# --------------------------------------------------------------------------------------------
def _radius_margin(Kt, yv, alpha, radius, beta_init=None, box=None):
    """T = R^2 ||w||^2 and G with dT = <G, dK~> (envelope theorem; thesis 4.4).

    ``box=None``: hard margin on K~ (L2 soft margin), ``||w||^2 = sum alpha`` and
    ``dW2 = -alpha'(yy' o dK~)alpha``.  With a box C (L1 margin, C fixed) ``||w||^2 = alpha'Q alpha``
    is not twice the dual optimum: ``dW2 = alpha' dQ alpha + 2 * 1' dalpha_F`` where the free
    alphas move by ``d(alpha_F, b) = -H_F^-1 ((dQ alpha)_F, 0)`` (the bounded ones stay at C).
    """
    n = yv.shape[0]
    ay = alpha * yv
    if radius == "variance":
        beta = np.full(n, 1.0 / n)
        R2 = float(np.mean(np.diag(Kt)) - Kt.mean())
    else:
        R2, beta = sphere_radius2(Kt, beta_init=beta_init)
    G_R = np.diag(beta) - np.outer(beta, beta)   # dR2 = beta' diag(dK~) - beta' dK~ beta
    if box is None:
        W2 = float(alpha.sum())            # = alpha' Q alpha at the hard-margin optimum on K~
        G_W = -np.outer(ay, ay)
    else:
        W2 = float(ay @ Kt @ ay)
        G_W = np.outer(ay, ay)
        F, _ = _free_bounded(alpha, box)
        if F.size:
            rhs = np.zeros(F.size + 1)
            rhs[:F.size] = 2.0
            u = linalg.solve(_sv_system(Kt, yv, F), rhs, assume_a="sym")[:F.size]
            G_W[F] -= np.outer(u * yv[F], ay)
    return R2 * W2, W2 * G_R + R2 * G_W, {"R2": R2, "W2": W2, "beta": beta}


def _span(Kt, K, yv, alpha, b, eta, A, B):
    """Smoothed regularised span estimate and G with dT = <G, dK~>.

    T = (1/n) sum_p Psi(alpha_p S_p^2 - y_p f~(x_p)) where f~ is the output on K~.  Support
    vectors (all on the K~ margin: y_p f~(x_p) = 1) enter through their regularised span; the
    other points through Psi(-y_p f(x_p)) (they make no leave-one-out error; the term is
    continuous when a point joins the support set, where alpha_p = 0 and y_p f = 1).
    """
    n = yv.shape[0]
    S = np.flatnonzero(alpha > 0)
    N = np.flatnonzero(alpha <= 0)
    m = S.size
    aS, yS = alpha[S], yv[S].astype(np.float64)
    KtSS = Kt[np.ix_(S, S)]
    # Regularised span: M = [[K~_SS + D, 1], [1', 0]], D = eta / alpha
    Dd = eta / aS
    M = np.zeros((m + 1, m + 1))
    M[:m, :m] = KtSS + np.diag(Dd)
    M[:m, m] = 1.0
    M[m, :m] = 1.0
    Minv = linalg.inv(M)
    s = 1.0 / np.diag(Minv)[:m]           # S_p^2 + D_pp
    span2 = s - Dd
    # outputs
    ay = alpha * yv
    out = np.ones(n)
    if N.size:
        out[N] = yv[N] * (K[np.ix_(N, S)] @ ay[S] + b)
    z = np.zeros(n)
    z[S] = aS * span2 - 1.0
    z[N] = -out[N]
    psi = _sigmoid(z, A, B)
    T = float(psi.mean())
    w = A * psi * (1.0 - psi) / n         # dT/dz_p
    wS, wN = w[S], w[N]

    G = np.zeros((n, n))
    # (1) alpha_p dS_p^2: s_p^2 (Minv dM Minv)_pp - dD_pp with dM_SS = dK~_SS + diag(dD)
    c = np.zeros(m + 1)
    c[:m] = wS * aS * s * s
    P = (Minv * c) @ Minv                  # Minv diag(c) Minv
    G[np.ix_(S, S)] += P[:m, :m]
    # dD_i = -eta dalpha_i / alpha_i^2 ; coefficient of dD_i is P_ii - w_i alpha_i
    g_alpha = -(np.diag(P)[:m] - wS * aS) * eta / (aS * aS)
    # (2) dalpha_p S_p^2
    g_alpha += wS * span2
    g_b = 0.0
    # (3) non-support points: dz_p = -y_p (sum_j dalpha_j y_j K_pj + alpha_j y_j dK_pj + db)
    if N.size:
        wy = wN * yv[N]
        g_alpha -= yS * (wy @ K[np.ix_(N, S)])
        g_b = -float(wy.sum())
        G[np.ix_(N, S)] -= np.outer(wy, ay[S])
    # (4) d(alpha, b) = -H^{-1} dH (alpha, b), dH_SS = yy' o dK~_SS (adjoint: v = H^{-1} g)
    H = np.zeros((m + 1, m + 1))
    H[:m, :m] = (yS[:, None] * yS[None, :]) * KtSS
    H[:m, m] = yS
    H[m, :m] = yS
    v = linalg.solve(H, np.append(g_alpha, g_b), assume_a="sym")
    G[np.ix_(S, S)] -= np.outer(v[:m] * yS, aS * yS)
    return T, G, {"span2": span2, "support": S}


# --------------------------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------------------------
def _check_tune(tune):
    if isinstance(tune, str):
        tune = (tune,)
    try:
        tune = tuple(tune)
    except TypeError:
        raise ValueError(f"tune must be a sequence of names among {TUNABLE}, got {tune!r}") from None
    bad = [t for t in tune if not isinstance(t, str) or t not in TUNABLE]
    if bad or not tune:
        raise ValueError(f"tune must name parameters among {TUNABLE}, got {tune!r}")
    if len(set(tune)) != len(tune):
        raise ValueError(f"tune names a parameter twice: {tune!r}")
    return tune


def criterion_and_gradient(estimator, X, y, criterion="radius_margin", tune=("C", "sigma"),
                           radius="variance", span_regularization=0.1, alpha_init=None, *,
                           scales=None, span_sigmoid=SPAN_SIGMOID, beta_init=None):
    """Train an SVC; return a model-selection criterion and its gradient in the log parameters.

    Chapelle's thesis ch. 4 (Chapelle, Vapnik, Bousquet and Mukherjee, Machine Learning 46,
    2002): the radius-margin bound or the smoothed span estimate, differentiated with respect
    to ``log C``, ``log sigma`` and the log scaling factors.

    Parameters
    ----------
    estimator : SVC
        A two-class :class:`kernelnb.svm.SVC` whose ``C``, ``sigma`` and ``scales`` are the
        evaluation point.  ``margin='l2'`` (the L2 soft margin, a hard margin on
        ``K~ = K + I/C``: Chapelle's ridge trick) is the thesis's choice and the only one where
        ``C`` can be tuned; ``margin='hard'`` (``K~ = K``) and, for ``'radius_margin'`` only,
        ``margin='l1'`` (``K~ = K``, box ``alpha <= C``) are accepted with ``C`` fixed.
        ``class_weight`` must be None.  ``kernel`` is ``'rbf'``, ``'linear'`` or ``'poly'``.  ``sigma='scale'`` is
        resolved on the scaled training inputs first and the gradient is taken at that width.
        A clone is fitted; the estimator itself is not modified.
    X : array-like of shape (n_samples, n_features)
        Training inputs.
    y : array-like of shape (n_samples,)
        Training labels (two classes).
    criterion : {'radius_margin', 'span'}, default='radius_margin'
        * ``'radius_margin'``: ``T = R^2 ||w||^2`` with ``||w||^2 = sum_i alpha_i`` (the hard
          margin optimum on K~) and ``R^2`` from ``radius``.  Gradient by the envelope theorem:
          ``dW2 = -alpha'(yy' o dK~)alpha``, ``dR2 = beta' diag(dK~) - beta' dK~ beta``.
        * ``'span'``: the smoothed, regularised span estimate of the leave-one-out error,
          ``T = (1/n) sum_p Psi(alpha_p S_p^2 - y_p f~(x_p))``, ``Psi(x) = 1/(1+exp(-A x + B))``.
          With the L2 margin every support vector lies on the K~ margin (``y_p f~(x_p) = 1``)
          and all of them enter through ``S_p^2 = 1/((M^-1)_pp) - eta/alpha_p``,
          ``M = [[K~_SV + diag(eta/alpha), 1], [1', 0]]`` (thesis 4.4.4); the other points enter
          through ``Psi(-y_p f(x_p))`` (small: they make no leave-one-out error, and the term
          is continuous when a point joins the support set).  The gradient goes through the
          support-vector system ``d(alpha, b) = -H^-1 dH (alpha, b)`` (thesis 4.4.3) and
          ``dS_p^2`` (thesis 4.4), assembled by one adjoint solve.
    tune : sequence of {'C', 'sigma', 'scales'}, default=('C', 'sigma')
        Parameters whose derivatives are returned.  ``'sigma'`` is for the RBF kernel only;
        ``'C'`` needs ``margin='l2'``.
    radius : {'variance', 'sphere'}, default='variance'
        ``R^2`` of the radius-margin criterion: the variance of the points in feature space
        (``beta_i = 1/n``, the thesis's advice, default) or the smallest enclosing sphere
        (:func:`sphere_radius2`).
    span_regularization : float, default=0.1
        ``eta >= 0`` of the regularised span (the thesis uses 0.1).
    alpha_init : array-like of shape (n_samples,) or None, default=None
        Warm start: the previous solution's dual vector (:func:`full_dual`).
    scales : array-like of shape (n_features,) or None, default=None
        Per-feature scaling factors.  For ``'linear'`` and ``'poly'`` (whose SVC has no
        ``scales``) the SVC is trained on ``X * scales``; for ``'rbf'`` they replace the
        estimator's ``scales``.  ``None``: the estimator's scales (RBF) or ones.
    span_sigmoid : tuple of (float, float), default=(5.0, 0.0)
        Smoothing of the step in the span criterion (default ``(5, 0)``, thesis Fig. 4.1).
    beta_init : array-like of shape (n_samples,) or None, default=None
        Warm start of the sphere QP (``radius='sphere'``).

    Returns
    -------
    value : float
        The criterion at the evaluation point.
    grad : dict
        One entry per name of ``tune``: ``'C'`` -> dT/dlog C (float), ``'sigma'`` ->
        dT/dlog sigma (float), ``'scales'`` -> dT/dlog s_p (ndarray of shape (n_features,)).
    fitted : SVC
        The fitted clone (``full_dual(fitted, n)`` gives the next ``alpha_init``).  It also
        carries ``criterion_info_`` (a dict: ``R2``, ``W2``, ``beta`` or ``span2``, ``alpha``,
        ``b``, ``polished``, ``sigma``, ``scales``).

    Notes
    -----
    The SVC is fitted by kernelnb's solver in float64 (``precision='float64'``) to a KKT gap of
    at most 1e-9 (or the estimator's ``tol`` if smaller), so that the criterion and its
    gradient are those of the exact optimum and agree with finite differences;
    ``criterion_info_['polished']`` says whether that fit converged.
    """
    from ..svm import SVC  # local import: kernelnb.svm imports nothing from here

    caller = "criterion_and_gradient"
    check_param("estimator", estimator, [SVC], caller)
    check_param("criterion", criterion, [str_options(set(CRITERIA))], caller)
    tune = _check_tune(tune)
    check_param("radius", radius, [str_options(set(RADII))], caller)
    check_param("span_regularization", span_regularization, NONNEGATIVE, caller)
    try:
        A, B = (float(v) for v in span_sigmoid)
    except (TypeError, ValueError):
        raise ValueError(f"span_sigmoid must be a pair (A, B), got {span_sigmoid!r}") from None
    kind = estimator.kernel
    if kind not in ("rbf", "linear", "poly"):
        raise ValueError(f"estimator.kernel must be 'rbf', 'linear' or 'poly', got {kind!r}")
    margin = "hard" if np.isinf(estimator.C) else estimator.margin
    if margin == "l1":
        if "C" in tune:
            raise ValueError("tuning 'C' needs the L2 soft margin (estimator margin='l2', a hard "
                             "margin on K + I/C); got margin='l1'")
        if criterion == "span":
            raise ValueError("criterion='span' needs margin='l2' (or 'hard'), where every support "
                             "vector lies on the margin; got margin='l1'")
    if estimator.class_weight is not None:
        raise ValueError("criterion_and_gradient needs class_weight=None (per-class C changes "
                         f"K + I/C), got class_weight={estimator.class_weight!r}")
    if margin == "hard" and "C" in tune:
        raise ValueError("tuning 'C' needs the L2 soft margin (estimator margin='l2'); got a "
                         "hard margin")
    if "sigma" in tune and kind != "rbf":
        raise ValueError(f"tune names 'sigma', which only the 'rbf' kernel has (kernel={kind!r})")

    X = _k._as_float(X).astype(np.float64)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-D with {X.shape[0]} entries, got shape {y.shape}")
    classes = np.unique(y)
    if classes.shape[0] != 2:
        raise ValueError("criterion_and_gradient handles binary classification only; y has "
                         f"{classes.shape[0]} classes")
    n, d = X.shape
    yv = np.where(y == classes[1], 1.0, -1.0)

    # scales
    if scales is not None:
        s = np.asarray(scales, dtype=np.float64).ravel()
    elif kind == "rbf" and estimator.scales is not None:
        s = np.asarray(estimator.scales, dtype=np.float64).ravel()
    else:
        s = np.ones(d)
    if s.shape[0] != d or not np.all(np.isfinite(s)) or np.any(s < 0):
        raise ValueError(f"scales must hold {d} finite non-negative values, got "
                         f"{np.array2string(s, threshold=6)}")
    if kind != "rbf" and estimator.scales is not None:
        raise ValueError(f"the '{kind}' SVC ignores its scales: pass them as "
                         "criterion_and_gradient(..., scales=...)")

    params = {}
    if kind == "rbf":
        sigma = _k.KernelSpec.of(estimator, scales=s).resolve_sigma(X)
        params.update(sigma=sigma, scales=s.copy())
    # The one solver in float64 on the exact kernel, to a tolerance tight enough for the
    # envelope theorem (its gradients are those of the exact optimum).
    params.update(precision="float64", tol=min(float(estimator.tol), _TOL))
    model = clone(estimator).set_params(**params)
    X_fit = X if kind == "rbf" else X * s
    if alpha_init is not None:
        alpha_init = np.asarray(alpha_init, dtype=np.float64).ravel()
        if alpha_init.shape[0] != n:
            raise ValueError(f"alpha_init must hold {n} values, got shape {alpha_init.shape}")
    model.fit(X_fit, y, alpha_init=alpha_init)

    # The dense algebra below is on matrices of a few hundred rows: one BLAS thread is faster
    # (several threads spinning on shared cores made a 200 x 200 inverse 100 times slower).
    with blas_single_thread():
        return _evaluate(model, X, X_fit, yv, n, s, kind, margin, estimator, criterion, tune,
                         radius, beta_init, float(span_regularization), A, B)


def _evaluate(model, X, X_fit, yv, n, s, kind, margin, estimator, criterion, tune, radius,
              beta_init, eta, A, B):
    kern = model.kernel_
    K = kern(X_fit).astype(np.float64)
    invC = 1.0 / float(estimator.C) if margin == "l2" else 0.0
    box = float(estimator.C) if margin == "l1" else None
    Kt = K.copy()
    Kt[np.diag_indices(n)] += invC
    alpha = full_dual(model, n)
    b = float(model.intercept_[0])
    polished = model.fit_status_ == 0

    if criterion == "radius_margin":
        value, G, info = _radius_margin(Kt, yv, alpha, radius, beta_init=beta_init, box=box)
    else:
        value, G, info = _span(Kt, K, yv, alpha, b, eta, A, B)

    grad = {}
    if "C" in tune:
        grad["C"] = float(-np.trace(G) * invC)
    want_sigma, want_scales = "sigma" in tune, "scales" in tune
    if want_sigma or want_scales:
        g = _contract(kind, X, s, K, G, kern, want_sigma, want_scales)
        grad.update({k: g[k] for k in ("sigma", "scales") if k in g})
    grad = {name: grad[name] for name in tune}
    info.update(alpha=alpha, b=b, polished=polished,
                sigma=float(kern.sigma) if kind == "rbf" else None, scales=s.copy())
    model.criterion_info_ = info
    return float(value), grad, model
