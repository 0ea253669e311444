"""The standard soft mixture of experts: the Cython loss and gradient against finite differences
of a numpy re-implementation, one epoch against numpy per-example SGD, learning toys, the
likelihood form's probabilities, bad input."""
import numpy as np
import pytest
from scipy.special import logsumexp, softmax

from kernelnb.largescale import MixtureOfExpertsClassifier, MixtureOfExpertsRegressor
from kernelnb.largescale import _mlp
from kernelnb.largescale.moe import MOE_WEIGHTS, init_moe_weights, moe_loss_grad


def _tiny(C, Hg, loss, seed=0, n=6, d=3, K=3, H=2):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d))
    w = init_moe_weights(rng, d, K, H, C, Hg)
    for k in w:                                        # non-zero biases too
        w[k] = w[k] + 0.3 * rng.standard_normal(w[k].shape)
    if Hg == 0:
        w["G1"][:] = 0.0
        w["c1"][:] = 0.0
    if loss == "squared":
        T = rng.standard_normal((n, C))
    elif C == 1:
        T = rng.choice([-1.0, 1.0], (n, 1))
    else:
        T = np.eye(C)[rng.randint(C, size=n)]
    return X, T, w


def _naive_loss(X, T, w, Hg, loss):
    """The mixture's mean loss written directly in numpy."""
    Hx = np.tanh(np.einsum("nd,khd->nkh", X, w["W1"]) + w["b1"])
    O = np.einsum("nkh,kch->nkc", Hx, w["W2"]) + w["b2"]
    U = np.tanh(X @ w["G1"].T + w["c1"]) if Hg else X
    G = softmax(U @ w["G2"].T + w["c2"], axis=1)
    if loss == "squared":
        F = np.einsum("nk,nkc->nc", G, O)
        return np.mean(0.5 * np.sum((T - F) ** 2, axis=1))
    if T.shape[1] == 1:
        lp = -np.logaddexp(0.0, -T[:, None, 0] * O[:, :, 0])
    else:
        lp = np.sum(T[:, None, :] * (O - logsumexp(O, axis=2, keepdims=True)), axis=2)
    return -np.mean(logsumexp(np.log(G) + lp, axis=1))


@pytest.mark.parametrize("loss", ["squared", "likelihood"])
@pytest.mark.parametrize("C,Hg", [(1, 0), (1, 4), (3, 4)])
def test_loss_and_gradient_against_finite_differences(loss, C, Hg):
    X, T, w = _tiny(C, Hg, loss)
    J, G = moe_loss_grad(X, T, w, Hg, loss)
    assert J == pytest.approx(_naive_loss(X, T, w, Hg, loss), rel=1e-12)
    eps = 1e-6
    for name in MOE_WEIGHTS:
        if Hg == 0 and name in ("G1", "c1"):
            assert not np.any(G[name])                 # the linear gater's placeholder
            continue
        fd = np.zeros_like(w[name])
        for idx in np.ndindex(w[name].shape):
            plus = {k: v.copy() for k, v in w.items()}
            minus = {k: v.copy() for k, v in w.items()}
            plus[name][idx] += eps
            minus[name][idx] -= eps
            fd[idx] = (_naive_loss(X, T, plus, Hg, loss)
                       - _naive_loss(X, T, minus, Hg, loss)) / (2 * eps)
        np.testing.assert_allclose(G[name], fd, rtol=1e-6, atol=1e-8, err_msg=name)


@pytest.mark.parametrize("loss,Hg", [("squared", 3), ("cross_entropy", 0)])
def test_estimator_epochs_match_numpy_sgd(loss, Hg):
    rng = np.random.RandomState(1)
    n, d, K, H = 25, 3, 3, 4
    X = rng.standard_normal((n, d)) * [1.0, 2.0, 0.5] + 3.0
    y = rng.randint(2, size=n)
    lr, lrg, dec, wd = 0.05, 0.02, 0.01, 0.01
    est = MixtureOfExpertsClassifier(n_experts=K, n_hidden=H, gater_n_hidden=Hg, loss=loss,
                                     learning_rate=lr, gater_learning_rate=lrg, decay=dec,
                                     weight_decay=wd, max_iter=2, n_iter_no_change=50,
                                     random_state=5).fit(X, y)
    Xs = (X - X.mean(0)) / X.std(0)
    T = (2.0 * y - 1)[:, None]
    r = np.random.RandomState(5)
    w = init_moe_weights(r, d, K, H, 1, Hg)
    kind = "squared" if loss == "squared" else "likelihood"
    t = 0
    for _ in range(2):
        for l in r.permutation(n):
            _, g = moe_loss_grad(Xs[[l]], T[[l]], w, Hg, kind)
            for name in MOE_WEIGHTS:
                step = (lrg if name[0] in "Gc" else lr) / (1 + dec * t)
                shrink = 1 - step * wd if name in ("W1", "W2", "G1", "G2") else 1.0
                if Hg == 0 and name in ("G1", "c1"):
                    continue
                w[name] = shrink * w[name] - step * g[name]
            t += 1
    for name in MOE_WEIGHTS:
        np.testing.assert_allclose(est.weights_[name], w[name], rtol=0, atol=1e-10,
                                   err_msg=name)
    assert est.n_iter_ == 2 and len(est.loss_curve_) == 2


def _xor(n=120, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, (n, 2))
    X = X[np.abs(X).min(axis=1) > 0.1]
    return X, np.where(X[:, 0] * X[:, 1] > 0, "same", "diff")


@pytest.mark.parametrize("loss", ["squared", "cross_entropy"])
def test_mixture_of_linear_gated_experts_learns_xor(loss):
    X, y = _xor()
    est = MixtureOfExpertsClassifier(n_experts=4, n_hidden=3, gater_n_hidden=0, loss=loss,
                                     learning_rate=0.05, max_iter=150, random_state=0).fit(X, y)
    assert est.score(X, y) >= 0.95
    G = est.gate(X)
    assert G.shape == (X.shape[0], 4)
    np.testing.assert_allclose(G.sum(axis=1), 1.0)
    assert est.expert_outputs(X).shape == (X.shape[0], 4, 1)
    if loss == "squared":
        np.testing.assert_allclose(est.decision_function(X),
                                   np.sum(G * est.expert_outputs(X)[:, :, 0], axis=1))
        assert not hasattr(est, "predict_proba")


def test_likelihood_probabilities_are_the_gated_expert_posteriors():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((90, 4))
    y = np.array(["a", "b", "c"])[np.argmax(X[:, :3], axis=1)]
    est = MixtureOfExpertsClassifier(n_experts=3, n_hidden=4, gater_n_hidden=5,
                                     loss="cross_entropy", max_iter=5, random_state=0).fit(X, y)
    P = est.predict_proba(X)
    ref = np.einsum("nk,nkc->nc", est.gate(X), softmax(est.expert_outputs(X), axis=2))
    np.testing.assert_allclose(P, ref, rtol=1e-10)
    np.testing.assert_allclose(est.predict_log_proba(X), np.log(ref), rtol=1e-10)
    np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmax(ref, axis=1)])
    # two classes: P(classes_[1]|x) = sum_k g_k sigmoid(f_k)
    yb = (X[:, 0] > 0).astype(int)
    est2 = MixtureOfExpertsClassifier(n_experts=2, n_hidden=3, gater_n_hidden=0,
                                      loss="cross_entropy", max_iter=3, random_state=0).fit(X, yb)
    p1 = np.sum(est2.gate(X) / (1 + np.exp(-est2.expert_outputs(X)[:, :, 0])), axis=1)
    np.testing.assert_allclose(est2.predict_proba(X)[:, 1], p1, rtol=1e-10)
    np.testing.assert_allclose(est2.decision_function(X), np.log(p1 / (1 - p1)), rtol=1e-8)


def test_regressor_fits_a_piecewise_function_and_multi_output():
    rng = np.random.RandomState(0)
    X = rng.uniform(-2, 2, (300, 1))
    y = np.where(X[:, 0] > 0, 3.0 * X[:, 0], -1.0) + 10.0
    est = MixtureOfExpertsRegressor(n_experts=3, n_hidden=5, gater_n_hidden=5,
                                    learning_rate=0.05, max_iter=80, random_state=0).fit(X, y)
    assert est.score(X, y) > 0.97
    assert est.y_mean_[0] == pytest.approx(y.mean()) and est.predict(X).shape == (300,)
    Y = np.column_stack([y, -y])
    est2 = MixtureOfExpertsRegressor(n_experts=2, n_hidden=3, gater_n_hidden=0, max_iter=3,
                                     random_state=0).fit(X, Y)
    assert est2.predict(X).shape == (300, 2)
    assert est2.n_parameters_ == 2 * (3 * 1 + 3 + 2 * 3 + 2) + 2 * 1 + 2


def test_early_stopping_and_validation_set():
    X, y = _xor()
    est = MixtureOfExpertsClassifier(n_experts=2, n_hidden=3, gater_n_hidden=0,
                                     learning_rate=0.05, max_iter=30, validation_fraction=0.1,
                                     n_iter_no_change=5, random_state=0).fit(X, y)
    assert len(est.validation_scores_) == est.n_iter_
    assert est.best_validation_score_ == max(est.validation_scores_)


@pytest.mark.parametrize("params,name", [({"n_experts": 0}, "n_experts"),
                                         ({"gater_n_hidden": -1}, "gater_n_hidden"),
                                         ({"loss": "hinge"}, "loss"),
                                         ({"gater_learning_rate": 0.0}, "gater_learning_rate")])
def test_bad_parameters(params, name):
    X, y = _xor()
    with pytest.raises(ValueError, match=name):
        MixtureOfExpertsClassifier(**params).fit(X, y)


def test_bad_input():
    X, y = _xor()
    with pytest.raises(ValueError, match="2 classes"):
        MixtureOfExpertsClassifier(max_iter=1).fit(X, np.zeros(X.shape[0]))
    with pytest.raises(ValueError, match="loss"):
        moe_loss_grad(X, y[:, None], {}, 0, loss="hinge")
    Xt, T, w = _tiny(1, 0, "squared")
    with pytest.raises(ValueError, match="T must have shape"):
        _mlp.moe_loss_grad(Xt, T[:3], *(w[k] for k in MOE_WEIGHTS), 0)
    with pytest.raises(ValueError, match="gater shapes"):
        _mlp.moe_loss_grad(Xt, T, *(w[k] for k in MOE_WEIGHTS), 5)
