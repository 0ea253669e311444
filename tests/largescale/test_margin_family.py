"""The chapter-8 margin family (Collobert 2004): the original Perceptron, SGD with weight decay on
the hinge (8.16) and its dual view (8.17), the Nilsson MLP (Alg. 8.3), the hinge MLP (8.10) and
the kernel margin Perceptron, each against an independent numpy implementation; SGD against an
exact SVM; Theorem 8.1's counts against the thesis's exact expressions; scikit-learn
conformance; bad input."""
import math
import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from kernelnb.largescale import (HingeMLPClassifier, KernelMarginPerceptron, MarginPerceptron,
                                 NilssonMLP, OriginalPerceptron, SGDHingeClassifier,
                                 theorem_8_1_epochs)
from kernelnb.largescale import _margin
from kernelnb.svm import SVC


def _std(X):
    return (X - X.mean(0)) / X.std(0)


def _noisy(n=80, d=3, noise=0.5, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d)) * np.linspace(2.0, 0.5, d) + 1.0
    y = np.where(X[:, 0] - 1 + 0.7 * X[:, 1] + noise * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def _orders(seed, n, epochs):
    r = np.random.RandomState(seed)
    return [r.permutation(n) for _ in range(epochs)]


# -- the original Perceptron (Alg. 3.1) ----------------------------------------------------------
def test_original_perceptron_is_algorithm_3_1():
    X, y = _noisy(60, noise=1.0)
    est = OriginalPerceptron(max_iter=5, random_state=3).fit(X, y)
    Xs, w, b, counts = _std(X), np.zeros(3), 0.0, []
    for order in _orders(3, 60, 5):
        c = 0
        for l in order:
            if y[l] * (w @ Xs[l] + b) <= 0:
                w, b, c = w + y[l] * Xs[l], b + y[l], c + 1
        counts.append(c)
    np.testing.assert_allclose(est.weights_[0], w, atol=1e-12)
    assert est.bias_[0] == pytest.approx(b, abs=1e-12)
    assert est.n_updates_ == counts


def test_original_perceptron_stops_at_zero_mistakes_on_separable_data():
    X, y = _noisy(60, noise=0.0)
    est = OriginalPerceptron(max_iter=1000, random_state=0).fit(X, y)
    assert est.n_updates_[-1] == 0 and est.n_iter_ < 1000
    assert est.score(X, y) == 1.0
    h = est.margin_history_
    assert h["geometric_margin"][-1] > 0 and h["training_error"][-1] == 0
    # no margin asked: the closest example is nearer than the margin Perceptron's
    mp = MarginPerceptron(learning_rate=0.01, max_iter=5000, random_state=0).fit(X, y)
    assert mp.margin_history_["geometric_margin"][-1] > h["geometric_margin"][-1]


# -- SGD with weight decay on the hinge (8.16, 8.17) --------------------------------------------
def _numpy_sgd(Xs, y, orders, lr, mu):
    """Eq. (8.16) and its dual (8.17), literally: every example decays w and every alpha."""
    n, d = Xs.shape
    w, b, alpha = np.zeros(d), 0.0, np.zeros(n)
    for order in orders:
        for l in order:
            viol = y[l] * (w @ Xs[l] + b) <= 1
            w = (1 - lr * mu) * w
            alpha = (1 - lr * mu) * alpha
            if viol:
                w = w + lr * y[l] * Xs[l]
                b += lr * y[l]
                alpha[l] += lr
    return w, b, alpha


@pytest.mark.parametrize("lr,mu,epochs", [(0.05, 0.1, 4), (0.9, 1.0, 3)])
def test_sgd_hinge_matches_eq_8_16_and_its_dual(lr, mu, epochs):
    # the second case decays w by 0.1 per example: the lazy scale is folded in mid-epoch
    X, y = _noisy(300 if mu == 1.0 else 50)
    est = SGDHingeClassifier(learning_rate=lr, weight_decay=mu, max_iter=epochs,
                             random_state=1).fit(X, y)
    Xs = _std(X)
    w, b, alpha = _numpy_sgd(Xs, y, _orders(1, len(y), epochs), lr, mu)
    np.testing.assert_allclose(est.weights_[0], w, rtol=1e-9, atol=1e-12)
    assert est.bias_[0] == pytest.approx(b, abs=1e-12)
    np.testing.assert_allclose(est.dual_coef_[0], alpha, rtol=1e-9, atol=1e-300)
    # the dual view: w = sum_l alpha_l y_l x_l
    np.testing.assert_allclose((est.dual_coef_[0] * y) @ Xs, est.weights_[0], atol=1e-10)
    assert est.n_iter_ == epochs


def test_sgd_hinge_reaches_the_svm_objective_after_theorem_8_1_epochs():
    X, y = _noisy(120, noise=0.5, seed=0)
    Xs = _std(X)
    mu, L = 1e-2, len(y)
    svm = SVC(kernel="linear", C=1.0 / (L * mu), tol=1e-6).fit(Xs, y)
    u, a = svm.dual_coef_[0] @ svm.support_vectors_, svm.intercept_[0]
    J_svm = mu / 2 * u @ u + np.maximum(0, 1 - y * (Xs @ u + a)).mean()
    lr = 0.003
    th = theorem_8_1_epochs(L, lr, mu)
    est = SGDHingeClassifier(learning_rate=lr, weight_decay=mu, max_iter=3000, random_state=0,
                             track_margin=False).fit(Xs, y)
    assert est.n_iter_ > th.bound_sv                 # ran past Thm 8.1's count ...
    J = est.objective_[0]
    assert J_svm - 1e-7 <= J <= J_svm * (1 + 1e-3)     # ... and reached the SVM's cost
    assert est.svm_objective(Xs, y)[0] == pytest.approx(J, rel=1e-12)
    # far fewer epochs than 1/(L lam mu): far from the solution
    few = SGDHingeClassifier(learning_rate=lr, weight_decay=mu, max_iter=3,
                             random_state=0).fit(Xs, y)
    assert few.objective_[0] > 1.5 * J_svm


def test_theorem_8_1_counts_against_the_exact_expressions():
    # the thesis's example: lam mu = 1e-7, L = 1e4 -> 1e3 epochs
    assert theorem_8_1_epochs(10_000, 1e-3, 1e-4).order == pytest.approx(1e3)
    L, lm = 200, 1e-7
    th = theorem_8_1_epochs(L, 1e-3, lm / 1e-3)
    # halving: N_e log(1 - lam mu) = -log(2) / L
    assert th.halving == pytest.approx(-math.log(2) / (L * math.log1p(-lm)), rel=1e-6)
    # bound SV: N_e log(1 - lam mu) = (1/L) log[1 - (1 - (1 - lam mu)^L) / (L lam mu)], whose
    # ratio to -log(lam mu) / (L lam mu) tends to 1 (slowly: log L / -log(lam mu)) as lam mu -> 0
    ratios = []
    for lm in (1e-6, 1e-9, 1e-12):
        q = -math.expm1(L * math.log1p(-lm))
        exact = math.log1p(-q / (L * lm)) / (L * math.log1p(-lm))
        ratios.append(exact / theorem_8_1_epochs(L, 1.0, lm).bound_sv)
    assert ratios[0] < ratios[1] < ratios[2] < 1.0 and ratios[2] > 0.75


def test_sgd_hinge_reports_theorem_8_1_in_verbose(capsys):
    X, y = _noisy(40)
    est = SGDHingeClassifier(learning_rate=0.01, weight_decay=0.01, max_iter=2,
                             verbose=True).fit(X, y)
    out = capsys.readouterr().out
    assert f"{est.theorem_8_1_epochs_.order:.4g}" in out and "ran 2 epochs" in out
    assert est.theorem_8_1_epochs_ == theorem_8_1_epochs(40, 0.01, 0.01)


# -- the Nilsson MLP (Alg. 8.3) ------------------------------------------------------------------
def _numpy_nilsson(Xs, y, V, a, orders, lr):
    V, a = V.copy(), a.copy()
    for order in orders:
        for l in order:
            z = V @ Xs[l] + a
            s = np.where(z >= 0, 1, -1)
            f = s.sum()
            if y[l] * f > 0:
                continue
            wrong = np.flatnonzero(y[l] * s < 0)
            wrong = wrong[np.argsort(np.abs(z[wrong]), kind="stable")]
            for j in wrong[:(abs(f) + 2) // 2]:
                V[j] += lr * y[l] * Xs[l]
                a[j] += lr * y[l]
    return V, a


def test_nilsson_mlp_is_algorithm_8_3():
    X, y = _noisy(60, noise=1.0)
    est = NilssonMLP(n_hidden=7, learning_rate=0.1, max_iter=4, random_state=2).fit(X, y)
    r = np.random.RandomState(2)
    V0 = r.standard_normal((7, 3)) / np.sqrt(3)
    V, a = _numpy_nilsson(_std(X), y, V0, np.zeros(7), [r.permutation(60) for _ in range(4)],
                          0.1)
    np.testing.assert_allclose(est.hidden_weights_[0], V, atol=1e-12)
    np.testing.assert_allclose(est.hidden_bias_[0], a, atol=1e-12)
    f = np.where(_std(X) @ V.T + a >= 0, 1, -1).sum(axis=1)
    np.testing.assert_array_equal(est.decision_function(X), f)


def test_nilsson_update_makes_the_vote_right_with_the_fewest_units():
    # units at z = -0.1, -0.3, -2, +0.5, -0.2 on x with y = +1: f = -3, 4 units wrong;
    # ceil((3 + 1) / 2) = 2 of them, the closest to zero (-0.1, -0.2), move by +lam x
    x = np.array([[1.0, 0.0]])
    a0 = np.array([-0.1, -0.3, -2.0, 0.5, -0.2])
    V, a = np.zeros((5, 2)), a0.copy()
    pos, loss, upd = _margin.nilsson_run(x, np.array([1.0]), np.array([0], dtype=np.intp), 0,
                                         V, a, 0.25, -1)
    assert (pos, loss, upd) == (1, 2.0, 1)
    np.testing.assert_allclose(a, a0 + 0.25 * np.array([1, 0, 0, 0, 1]))
    np.testing.assert_allclose(V[:, 0], 0.25 * np.array([1, 0, 0, 0, 1]))


# -- the hinge MLP (8.10) ------------------------------------------------------------------------
def _cost_l(p, x, y, N, d, mu, nu, act, L):
    """One example's share of (8.10): mu/2L ||w||^2 + nu/2L sum ||v||^2 + |1 - y f|_+ / L,
    the stochastic cost whose gradient (times L) one update follows."""
    V, a, w, b = p[:N * d].reshape(N, d), p[N * d:N * d + N], p[N * d + N:-1], p[-1]
    z = V @ x + a
    h = np.clip(z, -1, 1) if act == "hardtanh" else np.tanh(z)
    return (mu / 2 * w @ w + nu / 2 * (V ** 2).sum() + max(0.0, 1 - y * (w @ h + b))) / L


@pytest.mark.parametrize("act", ["hardtanh", "tanh"])
def test_hinge_mlp_step_is_the_gradient_of_eq_8_10(act):
    rng = np.random.RandomState(0)
    N, d, L = 4, 3, 1
    x, y = rng.standard_normal(d), -1.0
    V, a = rng.standard_normal((N, d)) * 0.3, rng.standard_normal(N) * 0.2
    w, b = rng.standard_normal(N), 0.1
    p0 = np.concatenate([V.ravel(), a, w, [b]])
    mu, nu, lr = 0.3, 0.2, 1e-3                   # one learning rate: a plain gradient step
    grad = np.array([(_cost_l(p0 + e, x, y, N, d, mu, nu, act, L)
                      - _cost_l(p0 - e, x, y, N, d, mu, nu, act, L)) / 2e-6
                     for e in np.eye(p0.size) * 1e-6])
    Vc, ac, wc, bc = V.copy(), a.copy(), w.copy(), np.array([b])
    kind = _margin.HARDTANH if act == "hardtanh" else _margin.TANH
    _margin.hinge_mlp_run(x[None, :], np.array([y]), np.array([0], dtype=np.intp), 0, Vc, ac,
                          wc, bc, lr, lr, mu, nu, kind, -1)
    p1 = np.concatenate([Vc.ravel(), ac, wc, bc])
    np.testing.assert_allclose(p1, p0 - lr * grad, atol=1e-9)


def test_hinge_mlp_two_learning_rates_and_weight_decays():
    X, y = _noisy(50, noise=0.8)
    est = HingeMLPClassifier(n_hidden=5, learning_rate=0.05, learning_rate_hidden=0.02,
                             weight_decay=0.1, weight_decay_hidden=0.05, max_iter=3,
                             random_state=4).fit(X, y)
    from kernelnb.largescale.mlp import init_mlp_weights
    r = np.random.RandomState(4)
    V, a, W2, b2 = init_mlp_weights(r, 3, 5, 1)
    w, b, Xs = W2[0].copy(), b2[0], _std(X)
    for order in [r.permutation(50) for _ in range(3)]:
        for l in order:
            z = V @ Xs[l] + a
            h, g = np.clip(z, -1, 1), (np.abs(z) <= 1).astype(float)
            viol = y[l] * (w @ h + b) <= 1
            gv = y[l] * w * g
            V, w = (1 - 0.02 * 0.05) * V, (1 - 0.05 * 0.1) * w
            if viol:
                w = w + 0.05 * y[l] * h
                b += 0.05 * y[l]
                V = V + 0.02 * gv[:, None] * Xs[l]
                a = a + 0.02 * gv
    np.testing.assert_allclose(est.hidden_weights_[0], V, atol=1e-10)
    np.testing.assert_allclose(est.output_weights_[0], w, atol=1e-10)
    np.testing.assert_allclose(est.hidden_bias_[0], a, atol=1e-10)
    assert est.bias_[0] == pytest.approx(b, abs=1e-10)
    # the margin in the space of the hidden units is 2 / ||w||
    assert est.margin_history_["rho"][-1] == pytest.approx(2 / np.linalg.norm(w))


# -- the kernel margin Perceptron ----------------------------------------------------------------
@pytest.mark.parametrize("cache_size", [200.0, 1e-3])        # Gram matrix / a few cached rows
def test_kernel_margin_perceptron_with_a_linear_kernel_is_the_margin_perceptron(cache_size):
    X, y = _noisy(70, noise=0.8)
    kw = dict(beta=1.0, learning_rate=0.05, max_iter=6, random_state=0)
    kmp = KernelMarginPerceptron(kernel="linear", cache_size=cache_size, **kw).fit(X, y)
    mp = MarginPerceptron(**kw).fit(X, y)
    np.testing.assert_allclose(kmp.decision_function(X), mp.decision_function(X), atol=1e-9)
    assert kmp.n_updates_ == mp.n_updates_
    np.testing.assert_allclose(kmp.margin_history_["rho"], mp.margin_history_["rho"],
                               rtol=1e-9)
    Xs = _std(X)
    np.testing.assert_allclose((kmp.dual_coef_[0] * y) @ Xs, mp.weights_[0], atol=1e-10)


def test_kernel_margin_perceptron_rbf_norm_and_multiclass():
    rng = np.random.RandomState(1)
    X = rng.uniform(-1, 1, (90, 2))
    y = np.where(np.hypot(X[:, 0], X[:, 1]) < 0.6, 1, -1)            # a disc: not linear
    est = KernelMarginPerceptron(sigma=0.5, learning_rate=0.1, max_iter=200,
                                 random_state=0).fit(X, y)
    assert est.score(X, y) >= 0.95 and est.radius_ == pytest.approx(1.0)
    Xs = _std(X)
    Kmat = est.kernel_(Xs)
    c = est.dual_coef_[0] * y
    assert est.margin_history_["rho"][-1] == pytest.approx(2 / np.sqrt(c @ Kmat @ c), rel=1e-9)
    y3 = np.digitize(X[:, 0], [-0.33, 0.33])
    ovr = KernelMarginPerceptron(sigma=0.5, learning_rate=0.1, max_iter=50,
                                 random_state=0).fit(X, y3)
    assert ovr.decision_function(X).shape == (90, 3) and ovr.score(X, y3) > 0.9
    assert ovr.margin_history_["rho"].shape[1] == 3


# -- conformance and bad input -------------------------------------------------------------------
@pytest.mark.parametrize("est", [OriginalPerceptron(max_iter=20), SGDHingeClassifier(max_iter=20),
                                 NilssonMLP(max_iter=20), HingeMLPClassifier(max_iter=20),
                                 KernelMarginPerceptron(max_iter=20)],
                         ids=lambda e: type(e).__name__)
def test_scikit_learn_conformance(est):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        failed = [r for r in check_estimator(est, on_fail=None) if r["status"] == "failed"]
    assert failed == []


@pytest.mark.parametrize("Est", [OriginalPerceptron, MarginPerceptron, SGDHingeClassifier,
                                 NilssonMLP, HingeMLPClassifier, KernelMarginPerceptron])
def test_callback_sees_every_epoch_and_can_stop(Est):
    X, y = _noisy(60, noise=1.0)
    seen = []

    def cb(info):
        # the estimator given holds the weights of the epoch just run
        seen.append((info["iteration"], info["loss"], info["estimator"].loss_curve_[-1]))
        return info["iteration"] < 3

    est = Est(max_iter=50, random_state=0, callback=cb).fit(X, y)
    assert [s[0] for s in seen] == [1, 2, 3] and est.n_iter_ == 3 == len(est.loss_curve_)
    assert all(a == b for _, a, b in seen)
    with pytest.raises(ValueError, match="callback"):
        Est(callback=3).fit(X, y)


@pytest.mark.parametrize("est,match", [
    (NilssonMLP(n_hidden=4), "n_hidden must be odd"),
    (SGDHingeClassifier(learning_rate=2.0, weight_decay=0.5), "learning_rate \\* weight_decay"),
    (SGDHingeClassifier(weight_decay=0.0), "weight_decay"),
    (HingeMLPClassifier(activation="relu"), "activation"),
    (HingeMLPClassifier(learning_rate_hidden=2.0, weight_decay_hidden=1.0),
     "learning_rate_hidden \\* weight_decay_hidden"),
    (KernelMarginPerceptron(sigma=-1.0), "sigma"),
    (KernelMarginPerceptron(kernel="cosine"), "kernel"),
    (MarginPerceptron(record_every=0), "record_every"),
    (OriginalPerceptron(max_updates=0), "max_updates"),
])
def test_bad_parameters(est, match):
    X, y = _noisy(30)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_bad_input():
    X, y = _noisy(30)
    with pytest.raises(ValueError, match="record_every needs two classes"):
        MarginPerceptron(record_every=5).fit(X, np.arange(30) % 3)
    for args, match in [((0, 0.1, 0.1), "n_samples"), ((10, -1.0, 0.1), "learning_rate"),
                        ((10, 0.1, 0.0), "weight_decay"), ((10, 2.0, 0.5), "below 1")]:
        with pytest.raises(ValueError, match=match):
            theorem_8_1_epochs(*args)
    with pytest.raises(ValueError, match="order"):
        _margin.linear_run(np.zeros((2, 2)), np.ones(2), np.array([0, 5], dtype=np.intp), 0,
                           np.zeros(2), np.zeros(1), np.zeros(0), 0.1, 1.0, 0.0, -1)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _margin.kernel_margin_run(np.ones(3), np.arange(3, dtype=np.intp), 0, np.zeros(3),
                                  np.zeros(1), np.zeros(3), np.zeros(1), np.zeros((1, 2)),
                                  np.zeros(3, dtype=np.intp), np.ones(3), 0.1, 1.0, -1)
