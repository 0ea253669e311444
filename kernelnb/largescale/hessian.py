"""How block-diagonal the Hessian of the training cost is, measured along training (Collobert's
thesis, 2004, ch. 7; Collobert & Bengio, ICASSP 2004).

The thesis's argument (ch. 7, "a local cost study"): if the instantaneous Hessian ``H_{x,y}`` of
the cost of one example is block-diagonal across sub-vectors ``theta_i`` of the parameters, the
local cost decouples and each sub-vector trains independently; the error of ignoring the
off-diagonal blocks is at most ``1/2 sum_{i != j} ||H^{ij}||_2 ||dtheta_i|| ||dtheta_j||``.
For the models of Table 7.1 the off-diagonal blocks are (two classes, ``y = +-1``, one output
``f``):

* an MLP ``f = sum_n w_n h(v_n . x + a_n) + b``, blocks across hidden units ``theta_i = (v_i,
  a_i)``: ``Q''(f) w_i w_j h'_i h'_j x x^T`` (eq. 7.12 and after) with the factor ``Q''`` equal
  to 1 for the squared error ("MLP+MSE": nothing makes it vanish), ``P(y|x) P(-y|x)`` for the
  cross-entropy ("MLP+CE") and ``c(z) = (1 - z^2)(1 + 2zy - 3z^2)``, ``z = tanh f``, for the
  squared error of a tanh output ("MLP+Tanh+MSE", eq. 7.15);
* a mixture ``f = sum_k g_k f_k`` with the squared error, blocks across experts ``theta_i =
  u_i`` (all the weights of expert i): ``g_i g_j df_i/du_i (df_j/du_j)^T`` (eq. 7.10);
* the Simple MLP of the margin criterion (ch. 8, ``f = b + sum_n HardTanh(v_n . x + a_n)``
  trained on the beta-hinge ``|beta - y f|_+``), blocks across hidden units: the same form as
  the MLP's with the factor ``Q''(f) = 0`` and ``HardTanh'' = 0`` (both piecewise linear):
  every block, off the diagonal and on it, is zero wherever the cost is twice differentiable
  (everywhere but on the kinks, a set of measure zero), the exactly block-diagonal case of
  the thesis (the units train independently: an update moves only the units in their linear
  region).

The diagonal blocks add the second-order terms of each unit or expert
(``Q'(f) w_i h''_i x x^T``; ``(f - y) g_i d^2 f_i/du_i^2``).  Here every block of the *total*
Hessian ``H = 1/L sum_l H_{x_l,y_l}`` (eq. 7.9, over a subsample) is assembled exactly from these
formulas -- the inputs carry a constant 1 so the hidden biases belong to their unit -- and its
spectral norm taken; :func:`hessian_study` records, after every epoch, the matrix of block norms,
the ratio "mean off-diagonal norm / mean diagonal norm", the factor of the model (averaged over
the training examples: ``P(y|x)P(-y|x)``, ``|c(z)|`` or ``g_i g_j``, i != j, as Figs. 7.3a,
7.4a and 7.6b plot) and the training error (Fig. 7.1).  The tests check the blocks against a
Hessian obtained by finite differences of the training loop's own gradient.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.sparse.linalg import LinearOperator, eigsh
from scipy.special import expit
from sklearn.base import clone

from .._validation import check_param, POSITIVE_INT
from .margin import SimpleMLP
from .mlp import MLPClassifier
from .moe import MixtureOfExpertsClassifier, moe_forward

__all__ = ["HessianStudy", "hessian_study", "mlp_hessian_blocks", "moe_hessian_blocks",
           "simple_mlp_hessian_blocks", "block_norms", "tanh_mse_factor", "STUDY_MODELS"]

#: the four models of the thesis's Table 7.1, by name -> (estimator class, fixed parameters)
STUDY_MODELS = {
    "mlp_squared": (MLPClassifier, {"loss": "squared"}),
    "mlp_tanh_squared": (MLPClassifier, {"loss": "tanh_squared"}),
    "mlp_cross_entropy": (MLPClassifier, {"loss": "cross_entropy"}),
    "moe_squared": (MixtureOfExpertsClassifier, {"loss": "squared"}),
    "simple_mlp_margin": (SimpleMLP, {}),
}

#: the factor each model's off-diagonal blocks carry (the name used in the records)
FACTOR_NAMES = {"squared": "1 (MSE: no factor)", "tanh_squared": "mean |c(z)|",
                "cross_entropy": "mean P(y|x) P(-y|x)", "moe": "mean g_i g_j (i != j)",
                "margin": "mean Q''(f) (beta-hinge: 0)"}


def tanh_mse_factor(z, y):
    """Compute the factor ``c(z)`` of the MLP+Tanh+MSE Hessian's off-diagonal blocks.

    ``c(z) = (1 - z^2)(1 + 2 z y - 3 z^2)`` is the second derivative of ``1/2 (y - tanh f)^2``
    in ``f``, with ``z = tanh f`` (Collobert's thesis, eq. 7.15).

    Parameters
    ----------
    z : float or array-like
        The tanh of the outputs.
    y : float or array-like
        The targets, +-1.

    Returns
    -------
    ndarray
        ``c(z)``, broadcast over ``z`` and ``y``.
    """
    z = np.asarray(z, dtype=np.float64)
    return (1.0 - z * z) * (1.0 + 2.0 * z * y - 3.0 * z * z)


def _loss_derivatives(f, y, loss):
    """First and second derivatives in ``f`` of the loss of one output (arrays over examples)."""
    if loss == "squared":
        return f - y, np.ones_like(f)
    if loss == "tanh_squared":
        z = np.tanh(f)
        return -(y - z) * (1.0 - z * z), tanh_mse_factor(z, y)
    if loss == "cross_entropy":
        p_wrong = expit(-y * f)                    # P(-y|x)
        return -y * p_wrong, p_wrong * (1.0 - p_wrong)
    raise ValueError(f"loss must be 'squared', 'tanh_squared' or 'cross_entropy', got {loss!r}")


def _augment(X):
    return np.column_stack([np.asarray(X, dtype=np.float64), np.ones(X.shape[0])])


def _check_binary_output(W2, what):
    if np.shape(W2)[-2] != 1:
        raise ValueError(f"the Hessian study needs one output ({what} of two classes), got "
                         f"{np.shape(W2)[-2]} outputs")


# -- MLP blocks across hidden units --------------------------------------------------------------

def _mlp_block_coefficients(X, y, W1, b1, W2, b2, loss, units):
    """Per-example coefficients ``alpha^{ij}_l`` with ``H^{ij} = 1/n sum_l alpha^{ij}_l x~ x~^T``
    for the units listed, shape (n, m, m)."""
    _check_binary_output(W2, "an MLP")
    Hh = np.tanh(X @ W1.T + b1)                              # (n, H)
    f = Hh @ W2[0] + b2[0]
    d1, d2 = _loss_derivatives(f, y, loss)
    w = W2[0, units]
    hp = 1.0 - Hh[:, units] ** 2                              # h'
    hpp = -2.0 * Hh[:, units] * hp                           # h''
    s = hp * w                                               # w_i h'_i, (n, m)
    A = d2[:, None, None] * s[:, :, None] * s[:, None, :]
    idx = np.arange(len(units))
    A[:, idx, idx] += d1[:, None] * w[None, :] * hpp
    return A


def mlp_hessian_blocks(X, y, W1, b1, W2, b2, loss, units=None):
    """Compute the blocks across hidden units of a one-output MLP's total Hessian.

    The total Hessian ``1/n sum_l H_{x_l,y_l}`` (thesis eq. 7.9) of the MLP
    ``f = W2 tanh(W1 x + b1) + b2``, with respect to each unit's input weights and bias
    ``(v_i, a_i)``, assembled from the formulas of the thesis's ch. 7.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs as the net sees them (standardised).
    y : array-like of shape (n_samples,)
        Targets, +-1.
    W1 : ndarray of shape (n_hidden, n_features)
        Input weights of the hidden units.
    b1 : ndarray of shape (n_hidden,)
        Hidden biases.
    W2 : ndarray of shape (1, n_hidden)
        Output weights.
    b2 : ndarray of shape (1,)
        Output bias.
    loss : {'squared', 'tanh_squared', 'cross_entropy'}
        The loss of the output.
    units : sequence of int, optional
        The hidden units (default: all).

    Returns
    -------
    ndarray of shape (m, m, n_features + 1, n_features + 1)
        ``blocks[i, j]`` is the block of units ``units[i], units[j]``, the last coordinate
        being the bias.
    """
    X = np.asarray(X, dtype=np.float64)
    units = np.arange(W1.shape[0]) if units is None else np.asarray(units)
    A = _mlp_block_coefficients(X, np.asarray(y, float), W1, b1, W2, b2, loss, units)
    Xa = _augment(X)
    return np.einsum("nij,nd,ne->ijde", A, Xa, Xa) / X.shape[0]


def _simple_mlp_block_coefficients(X, y, V, a, b, beta, units):
    """Per-example coefficients of the Simple MLP's blocks, shape (n, m, m): those of the MLP
    with output weights 1, ``h = HardTanh``, the beta-hinge ``Q(f) = |beta - y f|_+``:
    ``Q''(f) h'_i h'_j`` off the diagonal, plus ``Q'(f) h''_i`` on it, with ``Q'' = 0`` and
    ``h'' = 0`` wherever they are defined (off the kinks)."""
    U = X @ V[units].T + a[units]                            # (n, m)
    f = np.clip(X @ V.T + a, -1.0, 1.0).sum(axis=1) + b
    d1 = np.where(y * f < beta, -y, 0.0)                     # Q'(f)
    d2 = np.zeros_like(f)                                    # Q''(f): the hinge is linear by parts
    hp = (np.abs(U) < 1.0).astype(np.float64)                # HardTanh'
    hpp = np.zeros_like(U)                                   # HardTanh'': linear by parts
    A = d2[:, None, None] * hp[:, :, None] * hp[:, None, :]
    idx = np.arange(len(units))
    A[:, idx, idx] += d1[:, None] * hpp
    return A


def simple_mlp_hessian_blocks(X, y, V, a, b, beta, units=None):
    """Compute the blocks across hidden units of the Simple MLP's total Hessian.

    The Simple MLP of Collobert's thesis (Algorithm 8.2), ``f = b + sum_n HardTanh(v_n . x +
    a_n)``, with the beta-hinge ``|beta - y f|_+`` (the margin criterion); the blocks are with
    respect to each unit's ``(v_i, a_i)``.  The cost is piecewise linear in the weights: every
    block is zero wherever it is twice differentiable (all but the measure-zero set where an
    example sits on the hinge's kink or a unit on HardTanh's), the exactly block-diagonal case
    of the thesis's ch. 7.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs as the net sees them (standardised).
    y : array-like of shape (n_samples,)
        Targets, +-1.
    V : ndarray of shape (n_hidden, n_features)
        Input weights of the hidden units.
    a : ndarray of shape (n_hidden,)
        Hidden biases.
    b : float
        Output bias.
    beta : float
        Margin of the beta-hinge.
    units : sequence of int, optional
        The hidden units (default: all).

    Returns
    -------
    ndarray of shape (m, m, n_features + 1, n_features + 1)
        ``blocks[i, j]`` is the block of units ``units[i], units[j]``, the last coordinate
        being the bias.
    """
    X = np.asarray(X, dtype=np.float64)
    units = np.arange(V.shape[0]) if units is None else np.asarray(units)
    A = _simple_mlp_block_coefficients(X, np.asarray(y, float), V, a, float(b), float(beta),
                                       units)
    Xa = _augment(X)
    return np.einsum("nij,nd,ne->ijde", A, Xa, Xa) / X.shape[0]


def _sym_norm(M):
    return float(np.max(np.abs(np.linalg.eigvalsh(M)))) if M.size else 0.0


def _mlp_block_norms(X, y, W1, b1, W2, b2, loss, units):
    """Spectral norms of the blocks (m, m): each block is ``Xa^T diag(alpha) Xa / n``; with
    ``Xa = U S V^T`` its norm is that of the small symmetric ``(US)^T diag(alpha) (US) / n``."""
    A = _mlp_block_coefficients(X, y, W1, b1, W2, b2, loss, units)
    return _norms_from_coefficients(A, X)


def _norms_from_coefficients(A, X):
    """Spectral norms (m, m) of the blocks ``Xa^T diag(A[:, i, j]) Xa / n``."""
    m = A.shape[1]
    U, S, _ = np.linalg.svd(_augment(X), full_matrices=False)
    US = U * S
    N = np.zeros((m, m))
    for i in range(m):
        for j in range(i, m):
            N[i, j] = N[j, i] = _sym_norm(US.T @ (A[:, i, j, None] * US) / X.shape[0])
    return N


# -- mixture blocks across experts -------------------------------------------------------------

def _expert_jacobian(Xa, Hx_k, W2_k):
    """``df_k/du_k`` for every example, shape (n, H (d + 1) + H + 1): the input weights and
    bias of each hidden unit (row-major), then the output weights, then the output bias."""
    n = Xa.shape[0]
    s = (1.0 - Hx_k ** 2) * W2_k[0]                           # w_n h'_n, (n, H)
    JV = (s[:, :, None] * Xa[:, None, :]).reshape(n, -1)
    return np.hstack([JV, Hx_k, np.ones((n, 1))])


def _expert_second_order(Xa, Hx_k, W2_k, rho):
    """``sum_l rho_l d^2 f_k(x_l)/du_k^2`` as a dense matrix."""
    H, D = Hx_k.shape[1], Xa.shape[1]
    P = H * D + H + 1
    hp = 1.0 - Hx_k ** 2
    hpp = -2.0 * Hx_k * hp
    M = np.zeros((P, P))
    for u in range(H):
        sl = slice(u * D, (u + 1) * D)
        M[sl, sl] = Xa.T @ ((rho * W2_k[0, u] * hpp[:, u])[:, None] * Xa)
        cross = Xa.T @ (rho * hp[:, u])
        M[sl, H * D + u] = cross
        M[H * D + u, sl] = cross
    return M


def _expert_second_order_matvec(Xa, Hx_k, W2_k, rho, u):
    """``(sum_l rho_l d^2 f_k(x_l)/du_k^2) u`` without forming the matrix: O(n H (d + 1))."""
    H, D = Hx_k.shape[1], Xa.shape[1]
    V, wu = u[:H * D].reshape(H, D), u[H * D:H * D + H]
    hp = 1.0 - Hx_k ** 2
    hpp = -2.0 * Hx_k * hp
    A = Xa @ V.T                                             # (n, H): x~ . v_u of each unit
    out = np.zeros_like(u)
    out[:H * D] = ((rho[:, None] * (W2_k[0] * hpp * A + hp * wu)).T @ Xa).ravel()
    out[H * D:H * D + H] = (rho[:, None] * hp * A).sum(axis=0)
    return out


#: diagonal expert blocks larger than this are not formed: their norm comes from Lanczos
#: iterations (scipy's ``eigsh``) on matrix-vector products
_DENSE_MAX = 800


def _moe_parts(X, y, weights, gater_n_hidden):
    w = weights
    _check_binary_output(w["W2"], "a mixture")
    Hx, O, _, G = moe_forward(np.asarray(X, dtype=np.float64), w, int(gater_n_hidden))
    f = np.sum(G * O[:, :, 0], axis=1)
    return Hx, G, f - y


def moe_hessian_blocks(X, y, weights, gater_n_hidden, experts=None):
    """Compute the blocks across experts of a one-output mixture's total Hessian.

    The total Hessian of the squared error ``1/2 (y - sum_k g_k f_k)^2`` of a mixture of
    :mod:`kernelnb.largescale.moe`, with respect to each expert's weights
    ``u_k = (W1[k] | b1[k] row by row, W2[k], b2[k])`` (thesis eq. 7.10).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs as the mixture sees them (standardised).
    y : array-like of shape (n_samples,)
        Targets, +-1.
    weights : dict
        The mixture's weights, as :func:`~kernelnb.largescale.moe.init_moe_weights` returns
        them (one output).
    gater_n_hidden : int
        Hidden units of the gater (0: linear gater).
    experts : sequence of int, optional
        The experts (default: all).

    Returns
    -------
    list of list of ndarray
        ``blocks[i][j]``, of shape (P, P) with ``P = H (d + 1) + H + 1``, is the block of the
        experts ``experts[i], experts[j]``.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    experts = range(weights["W1"].shape[0]) if experts is None else experts
    experts = list(experts)
    Hx, G, r = _moe_parts(X, y, weights, gater_n_hidden)
    Xa, n = _augment(X), X.shape[0]
    J = [_expert_jacobian(Xa, Hx[:, k], weights["W2"][k]) for k in experts]
    out = [[None] * len(experts) for _ in experts]
    for a, i in enumerate(experts):
        for b, j in enumerate(experts):
            out[a][b] = J[a].T @ ((G[:, i] * G[:, j])[:, None] * J[b]) / n
        out[a][a] = out[a][a] + _expert_second_order(Xa, Hx[:, i], weights["W2"][i],
                                                     r * G[:, i] / n)
    return out


def _moe_block_norms(X, y, weights, gater_n_hidden, experts):
    """Spectral norms (m, m) of the expert blocks.  Off the diagonal ``J_i^T D J_j / n`` is
    reduced through thin QR factors of the Jacobians (its norm is that of
    ``R_i^T Q_i^T D Q_j R_j``); the diagonal blocks are assembled and their eigenvalues taken."""
    Hx, G, r = _moe_parts(X, y, weights, gater_n_hidden)
    Xa, n = _augment(X), X.shape[0]
    QR = []
    for k in experts:
        Jk = _expert_jacobian(Xa, Hx[:, k], weights["W2"][k])
        QR.append(np.linalg.qr(Jk.T))                          # Jk^T = Q R  -> Jk = R^T Q^T
    m = len(experts)
    N = np.zeros((m, m))
    for a, i in enumerate(experts):
        Qa, Ra = QR[a]
        for b in range(a + 1, m):
            j = experts[b]
            Qb, Rb = QR[b]
            # J_i^T D J_j = Q_i R_i D R_j^T Q_j^T : norm of R_i D R_j^T
            N[a, b] = N[b, a] = np.linalg.norm(Ra @ ((G[:, i] * G[:, j] / n)[:, None] * Rb.T), 2)
        rho = r * G[:, i] / n
        if Qa.shape[0] <= _DENSE_MAX:
            diag = Qa @ (Ra @ ((G[:, i] ** 2 / n)[:, None] * Ra.T)) @ Qa.T
            diag += _expert_second_order(Xa, Hx[:, i], weights["W2"][i], rho)
            N[a, a] = _sym_norm(diag)
        else:
            Jk = (Qa @ Ra).T                                     # (n, P)
            gg = G[:, i] ** 2 / n

            def mv(u, Jk=Jk, gg=gg, k=i, rho=rho):
                u = np.ravel(u)
                return Jk.T @ (gg * (Jk @ u)) + _expert_second_order_matvec(
                    Xa, Hx[:, k], weights["W2"][k], rho, u)

            P = Jk.shape[1]
            op = LinearOperator((P, P), matvec=mv, dtype=np.float64)
            N[a, a] = float(abs(eigsh(op, k=1, which="LM", tol=1e-6,
                                      return_eigenvectors=False,
                                      v0=np.ones(P) / np.sqrt(P))[0]))
    return N


def block_norms(estimator, X, y, max_blocks=None):
    """Compute the spectral norms of the blocks of a fitted model's total Hessian.

    The total Hessian is taken over the rows of X at the estimator's current weights, in
    blocks across the hidden units of a two-class
    :class:`~kernelnb.largescale.MLPClassifier` or across the experts of a squared-error
    :class:`~kernelnb.largescale.MixtureOfExpertsClassifier`.

    Parameters
    ----------
    estimator : MLPClassifier, MixtureOfExpertsClassifier or SimpleMLP
        The fitted two-class model.
    X : array-like of shape (n_samples, n_features)
        Inputs in the estimator's input space (standardised here as the estimator does).
    y : array-like of shape (n_samples,)
        Labels, of ``estimator.classes_``.
    max_blocks : int, optional
        Only the blocks of the first this many hidden units or experts (default: all).

    Returns
    -------
    ndarray of shape (m, m)
        The spectral norm of each block.
    """
    Z, ys = _standardised(estimator, X, y)
    if isinstance(estimator, MixtureOfExpertsClassifier):
        if estimator.loss != "squared":
            raise ValueError("the block formulas of the mixture are those of loss='squared'")
        K = estimator.weights_["W1"].shape[0]
        m = K if max_blocks is None else min(K, int(max_blocks))
        return _moe_block_norms(Z, ys, estimator.weights_, estimator.gater_n_hidden,
                                list(range(m)))
    if isinstance(estimator, SimpleMLP):
        V, a = estimator.hidden_weights_[0], estimator.hidden_bias_[0]
        m = V.shape[0] if max_blocks is None else min(V.shape[0], int(max_blocks))
        # _b: the live output bias (bias_ is set at the end of fit; the study reads every epoch)
        A = _simple_mlp_block_coefficients(Z, ys, V, a, float(estimator._b[0, 0]),
                                           float(estimator.beta), np.arange(m))
        return _norms_from_coefficients(A, Z)
    H = estimator.hidden_weights_.shape[0]
    m = H if max_blocks is None else min(H, int(max_blocks))
    return _mlp_block_norms(Z, ys, estimator.hidden_weights_, estimator.hidden_bias_,
                            estimator.output_weights_, estimator.output_bias_, estimator.loss,
                            np.arange(m))


def _standardised(est, X, y):
    if est.classes_.shape[0] != 2:
        raise ValueError(f"the Hessian study needs two classes, got {est.classes_.shape[0]}")
    Z = (np.asarray(X, dtype=np.float64) - est.mean_) / est.scale_
    ys = np.where(np.asarray(y) == est.classes_[1], 1.0, -1.0)
    return Z, ys


def _factor(est, Z, ys):
    """The model's off-diagonal factor averaged over the examples."""
    if isinstance(est, MixtureOfExpertsClassifier):
        G = moe_forward(Z, est.weights_, int(est.gater_n_hidden))[3]
        K = G.shape[1]
        if K < 2:
            return 0.0
        # mean over i != j of g_i g_j = ((sum g)^2 - sum g^2) / (K (K - 1))
        return float(np.mean((1.0 - np.sum(G * G, axis=1)) / (K * (K - 1))))
    if isinstance(est, SimpleMLP):
        # Q''(f) of the beta-hinge, zero off its kink (every example's, almost surely)
        return 0.0
    f = np.tanh(Z @ est.hidden_weights_.T + est.hidden_bias_) @ est.output_weights_[0] \
        + est.output_bias_[0]
    _, d2 = _loss_derivatives(f, ys, est.loss)
    return float(np.mean(np.abs(d2)))


@dataclass
class HessianStudy:
    """The records of :func:`hessian_study`, one entry per epoch (after epochs 1, 2, ...).

    Parameters
    ----------
    model : str
        The model's name, as in :data:`STUDY_MODELS` (e.g. ``'mlp_tanh_squared'``).
    factor_name : str
        What ``factor`` is for this model (e.g. ``'mean |c(z)|'``).
    epochs : ndarray of shape (n_epochs,)
        The epochs 1, 2, ...
    train_error : ndarray of shape (n_epochs,)
        The training error (a fraction) after each epoch.
    loss : ndarray of shape (n_epochs,)
        The estimator's mean training loss of each epoch.
    factor : ndarray of shape (n_epochs,)
        The model's off-diagonal factor averaged over the training examples:
        ``P(y|x) P(-y|x)``, ``|c(z)|``, 1 or the mean ``g_i g_j`` (i != j).
    offdiag_ratio : ndarray of shape (n_epochs,)
        Mean off-diagonal block norm over mean diagonal block norm (0 when every block is
        zero, as for the Simple MLP).
    block_norms : list of ndarray
        The (m, m) block norms after each epoch.
    estimator : MLPClassifier, MixtureOfExpertsClassifier or SimpleMLP
        The fitted estimator.
    n_parameters : int, default=0
        Its number of weights and biases.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.largescale import hessian_study
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(100, 2)
    >>> y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    >>> study = hessian_study("mlp_tanh_squared", X, y, n_epochs=3, n_hidden=4,
    ...                       learning_rate=0.1, max_blocks=3)
    >>> study.epochs
    array([1, 2, 3])
    >>> sorted(study.as_dict())
    ['epoch', 'factor', 'loss', 'offdiag_ratio', 'train_error']
    """

    model: str
    factor_name: str
    epochs: np.ndarray
    train_error: np.ndarray
    loss: np.ndarray
    factor: np.ndarray
    offdiag_ratio: np.ndarray
    block_norms: list = field(repr=False)
    estimator: object = field(repr=False)
    n_parameters: int = 0

    def as_dict(self):
        """Return the per-epoch records as plain lists (for a table or a plot).

        Returns
        -------
        dict
            ``epoch``, ``train_error``, ``loss``, ``factor`` and ``offdiag_ratio``, lists.
        """
        return {"epoch": self.epochs.tolist(), "train_error": self.train_error.tolist(),
                "loss": self.loss.tolist(), "factor": self.factor.tolist(),
                "offdiag_ratio": self.offdiag_ratio.tolist()}


def _ratio(N):
    m = N.shape[0]
    if m < 2:
        return np.nan
    off = N[~np.eye(m, dtype=bool)].mean()
    dia = np.diag(N).mean()
    if dia == 0 and off == 0:
        return 0.0              # a zero Hessian (piecewise linear cost): nothing couples blocks
    return float(off / dia) if dia > 0 else np.nan


def hessian_study(model, X, y, n_epochs=10, *, n_block_samples=128, max_blocks=6,
                  n_factor_samples=5000, random_state=0, **params):
    """Train one of Table 7.1's models and record how block-diagonal its Hessian is.

    After every epoch the blocks of the total Hessian (over a subsample) are assembled from
    the formulas of Collobert's thesis, ch. 7 (see :mod:`kernelnb.largescale.hessian`), and
    their spectral norms recorded with the model's off-diagonal factor and training error
    (the thesis's Figs. 7.1, 7.3a, 7.4a and 7.6b).

    Parameters
    ----------
    model : str or estimator
        A name of :data:`STUDY_MODELS` (``'mlp_squared'``, ``'mlp_tanh_squared'``,
        ``'mlp_cross_entropy'``, ``'moe_squared'``, ``'simple_mlp_margin'``; built with
        ``params``), or an unfitted :class:`~kernelnb.largescale.MLPClassifier`, squared-error
        :class:`~kernelnb.largescale.MixtureOfExpertsClassifier` or
        :class:`~kernelnb.largescale.SimpleMLP` (the margin criterion, ch. 8: its blocks are
        zero almost everywhere, see :func:`simple_mlp_hessian_blocks`).
    X : array-like of shape (n_samples, n_features)
        Training inputs.
    y : array-like of shape (n_samples,)
        Training labels (two classes).
    n_epochs : int, default=10
        Epochs run (training does not stop early: no validation, no tolerance).
    n_block_samples : int, default=128
        Training examples (a fixed random subsample) over which the total Hessian's blocks are
        averaged.
    max_blocks : int, default=6
        Blocks of the first this many hidden units (MLP) or experts (mixture).
    n_factor_samples : int or None, default=5000
        Training examples (a fixed subsample) over which the factor and the training error are
        averaged; None: all.
    random_state : int, default=0
        Seeds the subsamples and (unless ``params`` give one) the named model.
    **params : dict
        Constructor parameters of the model (e.g. ``n_hidden``, ``learning_rate``).

    Returns
    -------
    HessianStudy
        The records: ``epochs`` (1 .. n_epochs), ``train_error``, ``loss``, ``factor`` (see
        ``factor_name``), ``block_norms`` (one (m, m) array per epoch), ``offdiag_ratio``,
        the fitted ``estimator``.
    """
    n_epochs = check_param("n_epochs", n_epochs, POSITIVE_INT, "hessian_study")
    if isinstance(model, str):
        if model not in STUDY_MODELS:
            raise ValueError(f"model must be one of {tuple(STUDY_MODELS)} or an estimator, "
                             f"got {model!r}")
        cls, fixed = STUDY_MODELS[model]
        est = cls(**{"random_state": random_state, **params, **fixed})
        name = model
    elif isinstance(model, (MLPClassifier, MixtureOfExpertsClassifier, SimpleMLP)):
        est = clone(model)
        if params:
            est.set_params(**params)
        if isinstance(est, SimpleMLP):
            name = "simple_mlp_margin"
        else:
            moe = isinstance(est, MixtureOfExpertsClassifier)
            name = ("moe_" if moe else "mlp_") + est.loss
    else:
        raise ValueError(f"model must be one of {tuple(STUDY_MODELS)}, an MLPClassifier, a "
                         f"MixtureOfExpertsClassifier or a SimpleMLP, got {type(model).__name__}")
    if isinstance(est, MixtureOfExpertsClassifier) and est.loss != "squared":
        raise ValueError("the mixture's block formulas are those of loss='squared'")
    X = np.asarray(X)
    y = np.asarray(y)
    rng = np.random.default_rng(random_state)
    n = X.shape[0]
    blk = np.sort(rng.choice(n, size=min(n, int(n_block_samples)), replace=False))
    fac = (np.arange(n) if n_factor_samples is None or n_factor_samples >= n
           else np.sort(rng.choice(n, size=int(n_factor_samples), replace=False)))
    records = {"error": [], "loss": [], "factor": [], "norms": []}

    def record(e, loss):
        Zf, yf = _standardised(e, X[fac], y[fac])
        records["error"].append(float(np.mean(e.predict(X[fac]) != y[fac])))
        records["loss"].append(loss)
        records["factor"].append(_factor(e, Zf, yf))
        records["norms"].append(block_norms(e, X[blk], y[blk], max_blocks))

    def callback(info):
        record(info["estimator"], info["loss"])

    simple = isinstance(est, SimpleMLP)
    est.set_params(max_iter=n_epochs, n_iter_no_change=n_epochs + 1,
                   validation_fraction=None, callback=callback)
    if not simple:
        est.set_params(tol=0.0)
    est.fit(X, y)
    est.set_params(callback=None)
    norms = records["norms"]
    is_moe = isinstance(est, MixtureOfExpertsClassifier)
    factor_key = "moe" if is_moe else "margin" if simple else est.loss
    if simple:
        n_par = est.hidden_weights_[0].size + est.hidden_bias_[0].size + 1
    elif is_moe:
        n_par = est.n_parameters_
    else:
        n_par = sum(a.size for a in (est.hidden_weights_, est.hidden_bias_, est.output_weights_,
                                     est.output_bias_))
    return HessianStudy(
        model=name, factor_name=FACTOR_NAMES[factor_key],
        epochs=np.arange(1, len(norms) + 1), train_error=np.array(records["error"]),
        loss=np.array(records["loss"]), factor=np.array(records["factor"]),
        offdiag_ratio=np.array([_ratio(N) for N in norms]), block_norms=norms, estimator=est,
        n_parameters=n_par)
