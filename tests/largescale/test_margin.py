"""MarginPerceptron and SimpleMLP (thesis ch. 8; loops in kernelnb.largescale._margin): update
rules against numpy, the margin Perceptron's convergence and margin bounds on a separable set,
XOR, early stopping, one-vs-rest, scikit-learn conformance, bad input."""
import numpy as np
import pytest
from scipy.optimize import minimize

from kernelnb.largescale import MarginPerceptron, SimpleMLP
from kernelnb.largescale import _margin


def _standardise(X):
    return (X - X.mean(0)) / X.std(0)


def _xor(n=80, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, (2 * n, 2))
    X = X[np.abs(X).min(axis=1) > 0.1][:n]
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1, -1)


def _blobs(n=60, gap=3.0, seed=0):
    rng = np.random.RandomState(seed)
    y = np.where(np.arange(n) % 2 == 0, 1, -1)
    X = rng.standard_normal((n, 2)) + gap * y[:, None] * np.array([1.0, 0.5])
    return X * [2.0, 0.5] + [1.0, -3.0], y


# -- the Simple MLP update rule -------------------------------------------------------------
def test_simple_mlp_single_step_by_hand():
    x = np.array([[1.0, 2.0]])
    z0 = np.array([0.5, 1.0, 1.5, -0.25, -2.0])       # HardTanh sum 1.25; units 0, 1, 3 linear
    for y, beta, updated in [(1.0, 2.0, True), (1.0, 1.0, False), (-1.0, 0.0, True),
                             (1.0, 1.25, True)]:       # y f = beta updates (the thesis's <=)
        V, a, b = np.zeros((5, 2)), z0.copy(), np.zeros(1)
        pos, loss, n_upd = _margin.simple_mlp_run(x, np.array([y]), np.array([0], dtype=np.intp),
                                                  0, V, a, b, 0.1, beta, -1)
        assert pos == 1
        assert loss == pytest.approx(max(0.0, beta - y * 1.25))
        assert n_upd == int(updated)
        lin = np.abs(z0) <= 1
        step = 0.1 * y * updated
        np.testing.assert_array_equal(V, np.where(lin[:, None], step * x, 0.0))
        np.testing.assert_allclose(a, z0 + step * lin)
        assert b[0] == pytest.approx(step)


def _numpy_simple(X, Y, V, A, B, orders, lr, beta):
    """Algorithm 8.2 in numpy, one model per row of Y."""
    V, A, B = V.copy(), A.copy(), B.copy()
    counts = []
    for order in orders:
        c = 0
        for k in range(Y.shape[0]):
            for l in order:
                x, y = X[l], Y[k, l]
                z = V[k] @ x + A[k]
                if y * (B[k] + np.clip(z, -1, 1).sum()) <= beta:
                    lin = np.abs(z) <= 1
                    V[k][lin] += lr * y * x
                    A[k][lin] += lr * y
                    B[k] += lr * y
                    c += 1
        counts.append(c)
    return V, A, B, counts


@pytest.mark.parametrize("n_classes", [2, 3])
def test_simple_mlp_epochs_match_numpy(n_classes):
    rng = np.random.RandomState(0)
    n, d, N = 40, 3, 7
    X = rng.standard_normal((n, d)) * [1.0, 4.0, 0.2] + 2.0
    y = rng.randint(n_classes, size=n)
    est = SimpleMLP(n_hidden=N, beta=1.5, learning_rate=0.05, init_scale=2.0, max_iter=3,
                    random_state=5).fit(X, y)
    Y = (2.0 * y - 1)[None, :] if n_classes == 2 else 2.0 * (y[None, :] == np.arange(3)[:, None]) - 1
    r = np.random.RandomState(5)
    V0 = r.standard_normal((Y.shape[0], N, d)) * (2.0 / np.sqrt(d))
    orders = [r.permutation(n) for _ in range(3)]
    V, A, B, counts = _numpy_simple(_standardise(X), Y, V0, np.zeros((Y.shape[0], N)),
                                    np.zeros(Y.shape[0]), orders, 0.05, 1.5)
    np.testing.assert_allclose(est.hidden_weights_, V, rtol=0, atol=1e-12)
    np.testing.assert_allclose(est.hidden_bias_, A, rtol=0, atol=1e-12)
    np.testing.assert_allclose(est.bias_, B, rtol=0, atol=1e-12)
    assert est.n_updates_ == counts
    # the decision function is the committee without output weights
    Z = _standardise(X) @ V[0].T + A[0]
    f0 = np.clip(Z, -1, 1).sum(axis=1) + B[0]
    D = est.decision_function(X)
    np.testing.assert_allclose(D if D.ndim == 1 else D[:, 0], f0, atol=1e-12)
    if n_classes == 3:
        assert D.shape == (n, 3)
        np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmax(D, axis=1)])


def test_simple_mlp_learns_xor_where_the_perceptron_cannot():
    X, y = _xor()
    smlp = SimpleMLP(n_hidden=20, beta=2.0, learning_rate=0.05, max_iter=300,
                     random_state=0).fit(X, y)
    perc = MarginPerceptron(learning_rate=0.05, max_iter=100, random_state=0).fit(X, y)
    assert smlp.score(X, y) >= 0.97
    assert perc.score(X, y) <= 0.8
    # sparse training: far fewer updates at the end than at the start
    assert smlp.n_updates_[-1] < 0.5 * smlp.n_updates_[0]


# -- the margin Perceptron ------------------------------------------------------------------
def test_margin_perceptron_iter_match_numpy():
    X, y = _blobs(40, gap=0.5)                          # overlapping: updates every epoch
    est = MarginPerceptron(beta=0.7, learning_rate=0.03, max_iter=4, random_state=2).fit(X, y)
    r = np.random.RandomState(2)
    Xs, w, b = _standardise(X), np.zeros(2), 0.0
    for _ in range(4):
        for l in r.permutation(len(X)):
            if y[l] * (w @ Xs[l] + b) <= 0.7:
                w = w + 0.03 * y[l] * Xs[l]
                b += 0.03 * y[l]
    np.testing.assert_allclose(est.weights_[0], w, atol=1e-12)
    assert est.bias_[0] == pytest.approx(b, abs=1e-12)
    # coef_ and intercept_ give the same function on the raw inputs
    np.testing.assert_allclose(X @ est.coef_[0] + est.intercept_[0], Xs @ w + b, atol=1e-10)


def _max_margin(Xs, y):
    """Hard-margin hyperplane (u, a): min ||u||^2 s.t. y (u.x + a) >= 1 (SLSQP), rescaled to be
    exactly feasible."""
    cons = {"type": "ineq", "fun": lambda p: y * (Xs @ p[:-1] + p[-1]) - 1,
            "jac": lambda p: y[:, None] * np.column_stack([Xs, np.ones(len(y))])}
    res = minimize(lambda p: p[:-1] @ p[:-1], np.r_[np.zeros(Xs.shape[1]), 0.0],
                   jac=lambda p: np.r_[2 * p[:-1], 0.0], constraints=[cons], method="SLSQP",
                   options={"ftol": 1e-12, "maxiter": 500})
    p = res.x / np.min(y * (Xs @ res.x[:-1] + res.x[-1]))
    return p[:-1], p[-1]


@pytest.mark.parametrize("lr,beta", [(0.01, 1.0), (0.5, 1.0), (0.1, 0.3)])
def test_margin_perceptron_converges_with_a_margin_on_separable_data(lr, beta):
    X, y = _blobs(60, gap=2.0)
    est = MarginPerceptron(beta=beta, learning_rate=lr, max_iter=5000, random_state=0)
    est.fit(X, y)
    Xs = _standardise(X)
    u, a = _max_margin(Xs, y)
    assert est.n_iter_ < 5000 and est.n_updates_[-1] == 0      # converged
    f = est.decision_function(X)
    assert np.min(y * f) > beta                                   # every example beyond beta
    assert est.score(X, y) == 1.0
    # Theorem 8.2 with the bias folded into the inputs, x <- (x, 1) and R^2 = max ||x||^2 + 1:
    # ||(w, b)|| <= ||(u, a)|| (2 beta + lr R^2), and (8.23) t <= ||(u, a)||^2 (2 beta / lr + R^2)
    R2 = np.max((Xs ** 2).sum(axis=1)) + 1.0
    norm_u2 = u @ u + a * a
    norm_w = np.sqrt(est.weights_[0] @ est.weights_[0] + est.bias_[0] ** 2)
    assert norm_w <= np.sqrt(norm_u2) * (2 * beta + lr * R2)
    assert sum(est.n_updates_) <= norm_u2 * (2 * beta / lr + R2)
    # a positive geometric margin, no larger than the maximal one 1 / ||u||
    w_std = est.weights_[0]
    assert 0 < np.min(y * f) / np.linalg.norm(w_std) <= (1 + 1e-6) / np.linalg.norm(u)


def test_margin_perceptron_one_vs_rest_equals_binary_fits():
    rng = np.random.RandomState(0)
    y = np.repeat(["a", "b", "c"], 20)
    X = np.array([[0, 0], [4, 0], [0, 4]])[np.searchsorted(["a", "b", "c"], y)] \
        + rng.standard_normal((60, 2))
    ovr = MarginPerceptron(learning_rate=0.1, max_iter=15, random_state=1).fit(X, y)
    assert ovr.decision_function(X).shape == (60, 3)
    for k, c in enumerate(ovr.classes_):
        # the same example orders: each one-vs-rest model equals the binary fit on (y == c)
        # (a model that has converged makes no more updates while the others train)
        one = MarginPerceptron(learning_rate=0.1, max_iter=15, random_state=1).fit(X, y == c)
        np.testing.assert_allclose(ovr.weights_[k], one.weights_[0], atol=1e-12)
    assert ovr.score(X, y) > 0.9


# -- early stopping -------------------------------------------------------------------------
@pytest.mark.parametrize("Est", [SimpleMLP, MarginPerceptron])
def test_early_stopping_keeps_the_best_validation_weights(Est):
    rng = np.random.RandomState(4)
    X, Xv = rng.standard_normal((60, 4)), rng.standard_normal((40, 4))
    f = lambda Z: np.where(Z[:, 0] * Z[:, 1] + 0.5 * rng.standard_normal(len(Z)) > 0, 1, -1)  # noqa
    y, yv = f(X), f(Xv)
    kw = dict(learning_rate=0.05, n_iter_no_change=4, random_state=0)
    est = Est(max_iter=500, **kw).fit(X, y, X_val=Xv, y_val=yv)
    s = est.validation_scores_
    assert est.n_iter_ < 500 and est.n_iter_ == est.best_epoch_ + 4 == len(s)
    assert est.best_validation_score_ == max(s) == s[est.best_epoch_ - 1] == est.score(Xv, yv)
    ref = Est(max_iter=est.best_epoch_, **kw).fit(X, y)
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X), atol=1e-12)


def test_early_stopping_internal_split_is_stratified():
    X, y = _xor(80, seed=3)
    est = SimpleMLP(validation_fraction=0.25, max_iter=30, random_state=0).fit(X, y)
    assert len(est.validation_scores_) == est.n_iter_
    assert est.best_validation_score_ == max(est.validation_scores_)


# -- bad input ------------------------------------------------------------------------------
@pytest.mark.parametrize("Est,params,name", [
    (SimpleMLP, {"n_hidden": 0}, "n_hidden"), (SimpleMLP, {"init_scale": 0.0}, "init_scale"),
    (SimpleMLP, {"beta": -1.0}, "beta"), (MarginPerceptron, {"beta": "one"}, "beta"),
    (SimpleMLP, {"learning_rate": 0.0}, "learning_rate"),
    (MarginPerceptron, {"learning_rate": -0.1}, "learning_rate"),
    (MarginPerceptron, {"max_iter": 0}, "max_iter"),
    (SimpleMLP, {"validation_fraction": 0.0}, "validation_fraction")])
def test_bad_parameters(Est, params, name):
    X, y = _xor(20)
    with pytest.raises(ValueError, match=name):
        Est(**params).fit(X, y)


def test_bad_input():
    X, y = _xor(20)
    with pytest.raises(ValueError, match="2 classes"):
        SimpleMLP().fit(X, np.ones(len(X)))
    with pytest.raises(ValueError, match="X_val"):
        MarginPerceptron().fit(X, y, y_val=y)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _margin.simple_mlp_run(X, y.astype(float), np.arange(3, dtype=np.intp), 0,
                               np.zeros((4, 3)), np.zeros(4), np.zeros(1), 0.1, 1.0, -1)
    with pytest.raises(ValueError, match="order"):
        _margin.linear_run(X, y.astype(float), np.array([-1], dtype=np.intp), 0,
                           np.zeros(2), np.zeros(1), np.zeros(0), 0.1, 1.0, 0.0, -1)
    with pytest.raises(ValueError, match="start"):
        _margin.linear_run(X, y.astype(float), np.array([0], dtype=np.intp), 2,
                           np.zeros(2), np.zeros(1), np.zeros(0), 0.1, 1.0, 0.0, -1)


# -- the margin history's record (linear_record) ---------------------------------------------
def test_linear_record_is_the_numpy_margin_and_both_error_conventions():
    rng = np.random.RandomState(7)
    X = rng.standard_normal((40, 3))
    X[:4] = 0.0                                   # f = b = 0 on these rows: both conventions
    y = np.where(rng.rand(40) < 0.5, 1.0, -1.0)
    y[:2], y[2:4] = 1.0, -1.0
    w = rng.standard_normal(3)
    for b in (0.0, 0.3):
        f = X @ w + b
        nw, lo, nonpos, wrong = _margin.linear_record(X, y, w, b)
        assert nw == pytest.approx(np.linalg.norm(w), rel=1e-15)
        assert lo == pytest.approx(np.min(y * f), rel=1e-14, abs=1e-15)
        assert nonpos == np.sum(y * f <= 0)               # an output of 0 is an error
        assert wrong == np.sum(np.where(f > 0, 1.0, -1.0) != y)   # predict's sign
    assert _margin.linear_record(X[:0], y[:0], w, 0.0)[1:] == (np.inf, 0, 0)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _margin.linear_record(X, y, w[:2], 0.0)


@pytest.mark.parametrize("labels", [(-1, 1), ("no", "yes")])
def test_recorded_validation_error_is_predicts(labels):
    X, y = _blobs(60, gap=0.8, seed=3)
    Xv, yv = _blobs(50, gap=0.8, seed=4)
    Xv[:3] = [[1.0, -3.0]] * 3     # near the boundary's side of the data's mean, f close to 0
    lab = np.array(labels)
    y, yv = lab[(y > 0).astype(int)], lab[(yv > 0).astype(int)]
    est = MarginPerceptron(learning_rate=0.1, max_iter=6, record_every=4,
                           n_iter_no_change=100, random_state=0).fit(X, y, X_val=Xv, y_val=yv)
    # the best epoch's weights are kept: the score recorded for them is predict's accuracy
    assert est.best_validation_score_ == pytest.approx(np.mean(est.predict(Xv) == yv),
                                                       abs=1e-15)
    # a validation label the training set lacks is always an error (the generic count)
    other = 5 if lab.dtype.kind == "i" else "maybe"
    yv2 = np.concatenate([np.array([other] * 5), yv[5:]])
    est2 = MarginPerceptron(learning_rate=0.1, max_iter=6, record_every=4,
                            n_iter_no_change=100, random_state=0).fit(X, y, X_val=Xv, y_val=yv2)
    assert est2.best_validation_score_ == pytest.approx(np.mean(est2.predict(Xv) == yv2),
                                                        abs=1e-15)
