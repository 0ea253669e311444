"""Margin tracking and the bounds of Collobert's chapter 8 (Theorems 8.2, 8.3 and (8.23)) on
toys, each with a deliberately wrong variant that must fail; the recorded history against the
weights; training stopped after exactly t updates; the Fig. 8.2 protocol."""
import numpy as np
import pytest

from kernelnb.largescale import (KernelMarginPerceptron, MarginPerceptron, NilssonMLP,
                                 OriginalPerceptron, SimpleMLP, margin_bound_separable,
                                 linearly_separable, margin_bound_updates, maximal_margin,
                                 perceptron_update_bound)
from kernelnb.reproductions.collobert.margin import margin_curves
from kernelnb.svm import SVC


def _std(X):
    return (X - X.mean(0)) / X.std(0)


def _blobs(n=60, gap=2.0, seed=0):
    rng = np.random.RandomState(seed)
    y = np.where(np.arange(n) % 2 == 0, 1, -1)
    X = rng.standard_normal((n, 2)) + gap * y[:, None] * np.array([1.0, 0.5])
    return X * [2.0, 0.5] + [1.0, -3.0], y


@pytest.fixture(scope="module")
def separable():
    X, y = _blobs(60, gap=2.0)
    Xs = _std(X)
    svm = SVC(kernel="linear", C=1e8).fit(Xs, y)
    u, a = svm.dual_coef_[0] @ svm.support_vectors_, svm.intercept_[0]
    return X, y, u, a


def test_maximal_margin_is_the_hard_margin_svm(separable):
    X, y, u, a = separable
    rho_max, R = maximal_margin(X, y)
    assert rho_max == pytest.approx(2 / np.linalg.norm(u), rel=1e-9)
    assert R == pytest.approx(np.sqrt((_std(X) ** 2).sum(axis=1).max()))
    assert np.min(y * (_std(X) @ u + a)) == pytest.approx(1.0, abs=1e-2)


def test_maximal_margin_refuses_points_that_are_not_separable():
    """Overlapping classes have no maximal margin: an error naming the cause, found by the LP
    before the hard-margin solver (which would run for minutes)."""
    X, y = _blobs(60, gap=0.2)
    assert not linearly_separable(_std(X), y)
    with pytest.raises(ValueError, match="not linearly separable"):
        maximal_margin(X, y)
    Xs, ys = _blobs(60, gap=2.0)
    assert linearly_separable(_std(Xs), ys)


def test_bounds_are_vectorised_over_the_learning_rate():
    """Each bound over an array of rates equals the bound at each rate; a non-positive rate in
    the array is refused by name."""
    lams = np.array([1e-3, 0.1, 2.0])
    for f, args in ((margin_bound_separable, (0.3, 2.5)), (perceptron_update_bound, (0.3, 2.5)),
                    (margin_bound_updates, (50, 2.5))):
        got = f(*args, lams)
        assert got.shape == (3,)
        np.testing.assert_allclose(got, [f(*args, float(v)) for v in lams], rtol=1e-12)
        with pytest.raises(ValueError, match="learning_rate"):
            f(*args, np.array([0.1, 0.0]))


@pytest.mark.parametrize("lr", [0.01, 0.1, 1.0, 10.0])
def test_theorem_8_2_and_the_update_count_on_separable_data(separable, lr):
    X, y, u, a = separable
    est = MarginPerceptron(learning_rate=lr, max_iter=20000, random_state=0).fit(X, y)
    assert est.n_updates_[-1] == 0                                   # converged
    rho_max, R = maximal_margin(X, y)
    assert est.radius_ == pytest.approx(R)
    rho = est.margin_history_["rho"][-1]
    assert rho == pytest.approx(2 / np.linalg.norm(est.weights_[0]))
    assert rho >= margin_bound_separable(rho_max, R, lr)              # Theorem 8.2
    # the wrong way round: a converged Perceptron is a feasible hard-margin hyperplane, so its
    # margin cannot exceed rho_max ("rho >= 1.01 rho_max" must fail)
    assert rho < 1.01 * rho_max
    # (8.23) with the bias folded into the inputs (substitution 8.25)
    t = sum(est.n_updates_)
    rho_aug, R_aug = 2 / np.sqrt(u @ u + a * a), np.sqrt(R ** 2 + 1)
    bound = perceptron_update_bound(rho_aug, R_aug, lr)
    assert t <= bound
    if lr == 0.01:                         # tight enough here for a wrong constant to fail:
        assert t > bound / 4               # (1/rho^2)(2/lam + R^2) instead of (4/rho^2)(...)
    assert est.margin_history_["updates"][-1] == t


def test_theorem_8_2_smaller_learning_rate_larger_margin(separable):
    X, y, _, _ = separable
    rhos = [MarginPerceptron(learning_rate=lr, max_iter=20000, random_state=0).fit(X, y)
            .margin_history_["rho"][-1] for lr in (10.0, 1.0, 0.1, 0.01)]
    assert np.all(np.diff(rhos) > 0)
    assert rhos[-1] > 0.95 * maximal_margin(X, y)[0]


@pytest.mark.parametrize("lr", [0.01, 1.0, 10.0])
@pytest.mark.parametrize("beta", [1.0, 0.5])
def test_theorem_8_3_at_every_update_non_separable(lr, beta):
    X, y = _blobs(80, gap=0.5, seed=1)
    est = MarginPerceptron(beta=beta, learning_rate=lr, max_iter=20, record_every=1,
                           random_state=0).fit(X, y)
    h = est.margin_history_
    t = h["updates"]
    assert np.all(np.diff(t) >= 0) and t[-1] == sum(est.n_updates_) and t.size >= t[-1]
    bound = margin_bound_updates(t, est.radius_, lr, beta=beta)
    assert np.all(h["rho"] >= bound)                                  # Theorem 8.3
    if lr >= 1.0:
        # dropping the (R + 1)^2 term (the lam^2 ||x||^2 of (8.21)) gives a bound that fails
        assert np.any(h["rho"] < np.sqrt(2 * beta / (lr * t)))


def test_theorem_8_3_in_the_feature_space_of_a_kernel():
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, (60, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.2 * rng.standard_normal(60) > 0, 1, -1)
    est = KernelMarginPerceptron(sigma=0.7, learning_rate=2.0, max_iter=10, record_every=1,
                                 random_state=0).fit(X, y)
    h = est.margin_history_
    assert est.radius_ == pytest.approx(1.0)                          # Gaussian: k(x, x) = 1
    assert np.all(h["rho"] >= margin_bound_updates(h["updates"], 1.0, 2.0))
    assert np.any(h["rho"] < np.sqrt(2 / (2.0 * h["updates"])))


def test_history_matches_the_weights_and_max_updates_stops_exactly():
    X, y = _blobs(50, gap=0.6, seed=2)
    est = MarginPerceptron(learning_rate=0.1, max_iter=100, max_updates=37,
                           random_state=3).fit(X, y)
    assert sum(est.n_updates_) == 37 == est.n_updates_total_
    # numpy: Algorithm 8.1 stopped after its 37th update
    r = np.random.RandomState(3)
    Xs, w, b, t = _std(X), np.zeros(2), 0.0, 0
    while t < 37:
        for l in r.permutation(50):
            if y[l] * (w @ Xs[l] + b) <= 1:
                w, b, t = w + 0.1 * y[l] * Xs[l], b + 0.1 * y[l], t + 1
                if t == 37:
                    break
    np.testing.assert_allclose(est.weights_[0], w, atol=1e-12)
    h = est.margin_history_
    assert h["updates"][-1] == 37
    assert h["rho"][-1] == pytest.approx(2 / np.linalg.norm(w))
    f = Xs @ w + b
    assert h["geometric_margin"][-1] == pytest.approx(np.min(y * f) / np.linalg.norm(w))
    assert h["training_error"][-1] == pytest.approx(np.mean(y * f <= 0))
    # one record per epoch, at the cumulative update counts
    np.testing.assert_array_equal(h["updates"], np.cumsum(est.n_updates_))
    np.testing.assert_array_equal(h["epoch"], np.arange(1, est.n_iter_ + 1))


def test_record_every_k_updates_and_validation_error():
    X, y = _blobs(60, gap=0.6, seed=4)
    Xv, yv = _blobs(40, gap=0.6, seed=5)
    est = OriginalPerceptron(max_iter=8, record_every=5, n_iter_no_change=100,
                             random_state=0).fit(X, y, X_val=Xv, y_val=yv)
    h = est.margin_history_
    inside = h["epoch"] != np.round(h["epoch"])
    assert np.all(h["updates"][inside] % 5 == 0) and inside.sum() > 0
    ends = ~inside
    np.testing.assert_array_equal(h["updates"][ends], np.cumsum(est.n_updates_))
    np.testing.assert_allclose(1 - h["validation_error"][ends], est.validation_scores_)


@pytest.mark.parametrize("Est,N", [(SimpleMLP, 9), (NilssonMLP, 9)])
def test_committee_margins_live_in_the_hidden_space(Est, N):
    X, y = _blobs(60, gap=1.0, seed=6)
    kw = {"beta": 1.5} if Est is SimpleMLP else {}
    est = Est(n_hidden=N, learning_rate=0.05, max_iter=5, random_state=0, **kw).fit(X, y)
    h = est.margin_history_
    np.testing.assert_allclose(h["rho"], 2 * kw.get("beta", 1.0) / np.sqrt(N))
    f = est.decision_function(X)
    assert h["geometric_margin"][-1] == pytest.approx(np.min(y * f) / np.sqrt(N))


def test_margin_curves_fig_8_2_protocol():
    X, y = _blobs(300, gap=0.7, seed=7)
    Xv, yv = _blobs(200, gap=0.7, seed=8)
    lrs = [0.003, 0.03, 0.3, 3.0]
    res = margin_curves(X, y, Xv, yv, learning_rates=lrs, n_updates=60, learning_rate=0.03,
                        updates=[20, 40, 80, 160, 320], n_trials=3, train_size=100)
    assert res["rho_lr"].shape == (4,) and res["trials_rho_t"].shape == (3, 5)
    # Theorem 8.3 along both axes, and its direction: smaller lam or fewer updates, larger rho
    assert np.all(res["trials_rho_lr"] >= res["bound_lr"])
    assert np.all(res["trials_rho_t"] >= res["bound_t"])
    assert np.all(np.diff(res["rho_lr"]) < 0) and np.all(np.diff(res["rho_t"]) < 0)
    assert np.all((res["val_error_t"] >= 0) & (res["val_error_t"] <= 1))
    with pytest.raises(ValueError, match="updates must be positive multiples"):
        margin_curves(X, y, Xv, yv, updates=[20, 30], n_trials=1)
    with pytest.raises(ValueError, match="two classes"):
        margin_curves(X, np.arange(300) % 3, Xv, yv, n_trials=1)
    with pytest.raises(ValueError, match="learning_rates"):
        margin_curves(X, y, Xv, yv, learning_rates=[0.1, -1.0], n_trials=1)
