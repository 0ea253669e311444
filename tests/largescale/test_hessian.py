"""The Hessian study: the block formulas against a Hessian obtained by finite differences of the
training loop's own gradient, the block norms against numpy's, the recorded factors against the
fitted estimators."""
import numpy as np
import pytest

from kernelnb.largescale import MixtureOfExpertsClassifier, MLPClassifier, SimpleMLP
from kernelnb.largescale.hessian import (block_norms, hessian_study, mlp_hessian_blocks,
                                         simple_mlp_hessian_blocks,
                                         moe_hessian_blocks, tanh_mse_factor)
from kernelnb.largescale.mlp import mlp_loss_grad
from kernelnb.largescale.moe import init_moe_weights, moe_loss_grad

_GRAD_LOSS = {"squared": "squared", "tanh_squared": "tanh_squared",
              "cross_entropy": "logistic"}


def _fd_hessian(grad, theta, eps=1e-5):
    """Central differences of a gradient function: the full Hessian, symmetrised."""
    Hm = np.zeros((theta.size, theta.size))
    for i in range(theta.size):
        tp, tm = theta.copy(), theta.copy()
        tp[i] += eps
        tm[i] -= eps
        Hm[:, i] = (grad(tp) - grad(tm)) / (2 * eps)
    return 0.5 * (Hm + Hm.T)


@pytest.mark.parametrize("loss", ["squared", "tanh_squared", "cross_entropy"])
def test_mlp_unit_blocks_match_finite_differences(loss):
    rng = np.random.RandomState(0)
    n, d, H = 9, 3, 3
    X = rng.standard_normal((n, d))
    y = rng.choice([-1.0, 1.0], n)
    W1, b1 = rng.standard_normal((H, d)), rng.standard_normal(H)
    W2, b2 = rng.standard_normal((1, H)), rng.standard_normal(1)

    # theta = the units' (v_i, a_i) rows; the gradient from the training loop's own code
    def grad(theta):
        V = theta.reshape(H, d + 1)
        _, gW1, gb1, _, _ = mlp_loss_grad(X, y[:, None], V[:, :d], V[:, d], W2, b2,
                                          loss=_GRAD_LOSS[loss])
        return np.column_stack([gW1, gb1]).ravel()

    ref = _fd_hessian(grad, np.column_stack([W1, b1]).ravel())
    B = mlp_hessian_blocks(X, y, W1, b1, W2, b2, loss)
    full = B.transpose(0, 2, 1, 3).reshape(H * (d + 1), H * (d + 1))
    np.testing.assert_allclose(full, ref, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("Hg", [0, 3])
def test_moe_expert_blocks_match_finite_differences(Hg):
    rng = np.random.RandomState(1)
    n, d, K, H = 8, 2, 3, 2
    X = rng.standard_normal((n, d))
    y = rng.choice([-1.0, 1.0], n)
    w = init_moe_weights(rng, d, K, H, 1, Hg)
    for k in ("b1", "b2", "c2"):
        w[k] = 0.5 * rng.standard_normal(w[k].shape)

    def pack(w):   # per expert: (W1 row | b1) for each unit, then W2, then b2
        return np.concatenate([np.concatenate([np.column_stack([w["W1"][k], w["b1"][k]]).ravel(),
                                               w["W2"][k, 0], w["b2"][k]]) for k in range(K)])

    def unpack(theta):
        out = {k: v.copy() for k, v in w.items()}
        P = H * (d + 1) + H + 1
        for k in range(K):
            u = theta[k * P:(k + 1) * P]
            V = u[:H * (d + 1)].reshape(H, d + 1)
            out["W1"][k], out["b1"][k] = V[:, :d], V[:, d]
            out["W2"][k, 0], out["b2"][k] = u[H * (d + 1):H * (d + 1) + H], u[-1:]
        return out

    def grad(theta):
        _, g = moe_loss_grad(X, y[:, None], unpack(theta), Hg, "squared")
        return pack(g)

    ref = _fd_hessian(grad, pack(w))
    B = moe_hessian_blocks(X, y, w, Hg)
    np.testing.assert_allclose(np.block(B), ref, rtol=1e-5, atol=1e-7)


def test_block_norms_are_the_spectral_norms_of_the_blocks():
    rng = np.random.RandomState(2)
    X = rng.standard_normal((60, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    mlp = MLPClassifier(n_hidden=4, loss="tanh_squared", max_iter=3, random_state=0).fit(X, y)
    Z = (X - mlp.mean_) / mlp.scale_
    B = mlp_hessian_blocks(Z, 2.0 * y - 1, mlp.hidden_weights_, mlp.hidden_bias_,
                           mlp.output_weights_, mlp.output_bias_, "tanh_squared", units=[0, 1, 2])
    ref = np.array([[np.linalg.norm(B[i, j], 2) for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(block_norms(mlp, X, y, max_blocks=3), ref, rtol=1e-8)

    moe = MixtureOfExpertsClassifier(n_experts=3, n_hidden=2, gater_n_hidden=3, max_iter=3,
                                     random_state=0).fit(X, y)
    Bm = moe_hessian_blocks((X - moe.mean_) / moe.scale_, 2.0 * y - 1, moe.weights_, 3)
    ref = np.array([[np.linalg.norm(Bm[i][j], 2) for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(block_norms(moe, X, y), ref, rtol=1e-8)


def test_large_expert_blocks_by_lanczos_match_the_dense_norms(monkeypatch):
    import kernelnb.largescale.hessian as hs

    rng = np.random.RandomState(4)
    X = rng.standard_normal((40, 6))
    y = (X[:, 0] > 0).astype(int)
    moe = MixtureOfExpertsClassifier(n_experts=3, n_hidden=4, gater_n_hidden=0, max_iter=3,
                                     random_state=0).fit(X, y)
    dense = block_norms(moe, X, y)
    monkeypatch.setattr(hs, "_DENSE_MAX", 5)          # every expert block (33 weights) by Lanczos
    np.testing.assert_allclose(block_norms(moe, X, y), dense, rtol=1e-6)


def test_tanh_factor_is_the_second_derivative_and_vanishes_at_saturation():
    f = np.linspace(-3, 3, 13)
    for y in (-1.0, 1.0):
        def q(f):
            return 0.5 * (y - np.tanh(f)) ** 2
        num = (q(f + 1e-4) - 2 * q(f) + q(f - 1e-4)) / 1e-8
        np.testing.assert_allclose(tanh_mse_factor(np.tanh(f), y), num, rtol=1e-5, atol=1e-6)
    assert tanh_mse_factor(1.0, 1.0) == 0.0 and tanh_mse_factor(-1.0, 1.0) == 0.0


def test_study_records_match_the_fitted_estimators():
    rng = np.random.RandomState(3)
    X = rng.standard_normal((200, 4))
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.5, "in", "out")
    ce = hessian_study("mlp_cross_entropy", X, y, n_epochs=4, n_hidden=5, learning_rate=0.05,
                       max_blocks=3, n_block_samples=50)
    est = ce.estimator
    assert ce.epochs.tolist() == [1, 2, 3, 4] and est.n_iter_ == 4
    np.testing.assert_allclose(ce.loss, est.loss_curve_)
    P = est.predict_proba(X)[np.arange(200), np.searchsorted(est.classes_, y)]
    assert ce.factor[-1] == pytest.approx(np.mean(P * (1 - P)), rel=1e-10)
    assert ce.train_error[-1] == pytest.approx(1 - est.score(X, y))
    assert ce.block_norms[-1].shape == (3, 3) and np.all(np.isfinite(ce.offdiag_ratio))
    N = ce.block_norms[-1]
    off = N[~np.eye(3, dtype=bool)].mean() / np.diag(N).mean()
    assert ce.offdiag_ratio[-1] == pytest.approx(off)

    mse = hessian_study("mlp_squared", X, y, n_epochs=2, n_hidden=3, max_blocks=2)
    np.testing.assert_array_equal(mse.factor, [1.0, 1.0])      # MSE: Q'' = 1

    moe = hessian_study(MixtureOfExpertsClassifier(n_experts=3, n_hidden=2, gater_n_hidden=0,
                                                   random_state=0), X, y, n_epochs=2)
    G = moe.estimator.gate(X)
    gij = (np.sum(G, axis=1) ** 2 - np.sum(G ** 2, axis=1)) / 6
    assert moe.factor[-1] == pytest.approx(np.mean(gij), rel=1e-10)
    assert moe.model == "moe_squared" and moe.block_norms[-1].shape == (3, 3)


def test_study_bad_input():
    X = np.random.RandomState(0).standard_normal((30, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="model must be"):
        hessian_study("svm", X, y)
    with pytest.raises(ValueError, match="loss='squared'"):
        hessian_study(MixtureOfExpertsClassifier(loss="cross_entropy"), X, y, n_epochs=1)
    with pytest.raises(ValueError, match="n_epochs"):
        hessian_study("mlp_squared", X, y, n_epochs=0)
    with pytest.raises(ValueError, match="two classes"):
        hessian_study("mlp_squared", X, np.arange(30) % 3, n_epochs=1, n_hidden=2)


def test_simple_mlp_blocks_match_finite_differences():
    # The beta-hinge of the Simple MLP (HardTanh units, output weights 1): its gradient in the
    # units' (v_i, a_i), written here from the update rule, is checked against central
    # differences of the cost; the Hessian from central differences of that gradient (steps far
    # below the distance of every example to a kink) is then the blocks' zero.
    rng = np.random.RandomState(1)
    n, d, H, beta = 40, 3, 4, 1.0
    X = rng.standard_normal((n, d))
    y = rng.choice([-1.0, 1.0], n)
    V, a, b = 0.5 * rng.standard_normal((H, d)), 0.3 * rng.standard_normal(H), 0.1

    def cost(theta):
        P = theta.reshape(H, d + 1)
        f = np.clip(X @ P[:, :d].T + P[:, d], -1, 1).sum(axis=1) + b
        return np.mean(np.maximum(0.0, beta - y * f))

    def grad(theta):
        P = theta.reshape(H, d + 1)
        U = X @ P[:, :d].T + P[:, d]
        f = np.clip(U, -1, 1).sum(axis=1) + b
        c = np.where(y * f < beta, -y, 0.0)[:, None] * (np.abs(U) < 1)     # (n, H)
        return (c.T @ np.column_stack([X, np.ones(n)]) / n).ravel()

    theta = np.column_stack([V, a]).ravel()
    U = X @ V.T + a
    f = np.clip(U, -1, 1).sum(axis=1) + b
    kink = min(np.min(np.abs(np.abs(U) - 1)), np.min(np.abs(y * f - beta)))
    eps = 1e-3 * kink / (np.abs(X).max() + 1) / H
    num = np.array([(cost(theta + eps * e) - cost(theta - eps * e)) / (2 * eps)
                    for e in np.eye(theta.size)])
    np.testing.assert_allclose(grad(theta), num, rtol=1e-6, atol=1e-9)
    assert np.abs(grad(theta)).max() > 0.01            # a cost with a slope, not a flat region
    ref = _fd_hessian(grad, theta, eps=eps)
    B = simple_mlp_hessian_blocks(X, y, V, a, b, beta)
    full = B.transpose(0, 2, 1, 3).reshape(H * (d + 1), H * (d + 1))
    np.testing.assert_array_equal(full, np.zeros_like(full))
    np.testing.assert_allclose(full, ref, atol=1e-12)


def test_study_accepts_the_simple_mlp():
    rng = np.random.RandomState(3)
    X = rng.standard_normal((150, 3))
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.5, "in", "out")
    st = hessian_study(SimpleMLP(n_hidden=5, learning_rate=0.05, random_state=0), X, y,
                       n_epochs=3, max_blocks=3, n_block_samples=50)
    est = st.estimator
    assert st.model == "simple_mlp_margin" and st.epochs.tolist() == [1, 2, 3]
    np.testing.assert_allclose(st.loss, est.loss_curve_)
    assert st.train_error[-1] == pytest.approx(1 - est.score(X, y))
    np.testing.assert_array_equal(st.factor, 0.0)
    np.testing.assert_array_equal(st.block_norms[-1], np.zeros((3, 3)))
    np.testing.assert_array_equal(st.offdiag_ratio, 0.0)
    assert st.n_parameters == 5 * 4 + 1
    named = hessian_study("simple_mlp_margin", X, y, n_epochs=1, n_hidden=2)
    assert isinstance(named.estimator, SimpleMLP)
