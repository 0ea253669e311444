"""Reweighting and vicinal risk on unlabeled points (thesis 7.2): optimality conditions of the
weight fits, an independent solver, the package's Parzen classifier and SVC, direct formulas."""
import numpy as np
import pytest
from scipy.stats import norm

from kernelnb.neighbors import ParzenClassifier
from kernelnb.svm import SVC
from kernelnb.unlabeled import (ReweightedParzenClassifier, ReweightedSVC,
                                UnlabeledVicinalClassifier, fit_weights, likelihood_sigma)
from kernelnb.reproductions.chapelle.reweighting import _threshold_error
from kernelnb.reproductions.chapelle.reweighting import reweighting_toy, vrm_unlabeled_toy


def _density(X, Z, sigma):
    """P_{x_i}(z_j): Gaussian densities computed directly, (n, n_z)."""
    d = X.shape[1]
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * sigma ** 2)) / (2 * np.pi * sigma ** 2) ** (d / 2)


@pytest.fixture
def points():
    rng = np.random.RandomState(0)
    X = rng.randn(12, 2)
    Xu = rng.randn(200, 2) * 1.2 + [0.5, 0.0]
    return X, Xu


def test_kl_weights_are_the_maximum(points):
    X, Xu = points
    lam, info = fit_weights(X, Xu, 0.8)
    assert info["converged"]
    assert lam.sum() == pytest.approx(12) and np.all(lam >= 0)
    P = _density(X, Xu, 0.8)
    assert info["objective"] == pytest.approx(np.sum(np.log(lam @ P)), rel=1e-10)
    # KKT of max sum_j log (lam'P)_j s.t. sum lam = n, lam >= 0: gradient n_u/n on the support
    g = P @ (1.0 / (lam @ P))
    on = lam > 1e-4
    np.testing.assert_allclose(g[on], 200 / 12, rtol=1e-3)
    assert np.all(g[~on] <= 200 / 12 * (1 + 1e-3))
    # an independent solver (SLSQP, the quadratic regulariser at strength 0)
    lam2, _ = fit_weights(X, Xu, 0.8, penalty="quadratic", penalty_strength=0.0)
    np.testing.assert_allclose(lam, lam2, atol=1e-3)
    # reweighting raises the likelihood above the equal weights
    assert info["objective"] > np.sum(np.log(np.ones(12) @ P))


def test_log_regulariser_stationarity(points):
    X, Xu = points
    lam, _ = fit_weights(X, Xu, 0.8, penalty="log", penalty_strength=2.0)
    P = _density(X, Xu, 0.8)
    g = P @ (1.0 / (lam @ P)) + 2.0 / lam          # gradient of the regularised objective
    np.testing.assert_allclose(g, g.mean(), rtol=1e-4)
    assert lam.sum() == pytest.approx(12) and np.all(lam > 0)
    # the regulariser pulls towards 1
    lam0, _ = fit_weights(X, Xu, 0.8)
    assert np.abs(lam - 1).max() < np.abs(lam0 - 1).max()


def test_quadratic_regulariser_pulls_to_one(points):
    X, Xu = points
    lam0, _ = fit_weights(X, Xu, 0.8)
    lam, info = fit_weights(X, Xu, 0.8, penalty="quadratic", penalty_strength=50.0)
    assert info["converged"]
    assert np.abs(lam - 1).max() < np.abs(lam0 - 1).max()
    P = _density(X, Xu, 0.8)
    g = P @ (1.0 / (lam @ P)) - 100.0 * (lam - 1)
    on = lam > 1e-4
    np.testing.assert_allclose(g[on], g[on].mean(), atol=1e-2 * np.abs(g).max())


def test_l2_weights_kkt(points):
    X, Xu = points
    lam, info = fit_weights(X, Xu, 0.8, method="l2", sigma_unlabeled=0.5)
    P = _density(X, Xu, 0.8) / 12
    target = _density(Xu, Xu, 0.5).mean(axis=0)
    r = P.T @ lam - target
    assert info["objective"] == pytest.approx(r @ r, rel=1e-8)
    g = 2 * P @ r                              # minimisation: gradient = mu on the support,
    on = lam > 1e-3                            # >= mu at zero weights
    mu = g[on].mean()
    scale = np.abs(g).max()
    np.testing.assert_allclose(g[on], mu, atol=1e-3 * scale)
    assert np.all(g[~on] >= mu - 1e-3 * scale)
    assert info["objective"] <= float((P.T @ np.ones(12) - target) @ (P.T @ np.ones(12) - target))


def test_fit_weights_bad_input(points):
    X, Xu = points
    with pytest.raises(ValueError, match="sigma"):
        fit_weights(X, Xu, 0.0)
    with pytest.raises(ValueError, match="method"):
        fit_weights(X, Xu, 1.0, method="kld")
    with pytest.raises(ValueError, match="penalty"):
        fit_weights(X, Xu, 1.0, penalty="l1")
    with pytest.raises(ValueError, match="X_unlabeled"):
        fit_weights(X, Xu[:, :1], 1.0)


def test_likelihood_sigma_is_the_maximum(points):
    X, Xu = points
    s = likelihood_sigma(X, Xu)
    grid = np.exp(np.linspace(np.log(0.2), np.log(10), 400))
    ll = [np.sum(np.log(_density(X, Xu, g).mean(axis=0))) for g in grid]
    assert s == pytest.approx(grid[int(np.argmax(ll))], rel=0.02)


def test_parzen_without_unlabeled_is_the_parzen_classifier(points):
    X, Xu = points
    y = (X[:, 0] > 0).astype(int)
    a = ReweightedParzenClassifier(sigma=0.7).fit(X, y)
    np.testing.assert_array_equal(a.weights_, 1.0)
    b = ParzenClassifier(sigma=0.7).fit(X, y)
    np.testing.assert_array_equal(a.predict(Xu), b.predict(Xu))


def test_reweighted_parzen_is_eq_7_5(points):
    X, Xu = points
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    m = ReweightedParzenClassifier().fit(X, y, X_unlabeled=Xu)
    assert m.sigma_ == pytest.approx(likelihood_sigma(X, Xu))
    lam, _ = fit_weights(X, Xu, m.sigma_)
    np.testing.assert_allclose(m.weights_, lam)
    f = (lam * y) @ _density(X, Xu, m.sigma_)
    np.testing.assert_array_equal(m.predict(Xu), np.where(f > 0, 1, -1))


def test_reweighted_svc_is_the_weighted_svc(points):
    X, Xu = points
    y = (X[:, 0] > 0).astype(int)
    m = ReweightedSVC(C=3.0, sigma=1.0, density_sigma=0.8).fit(X, y, X_unlabeled=Xu)
    lam, _ = fit_weights(X, Xu, 0.8)
    ref = SVC(C=3.0, sigma=1.0).fit(X, y, sample_weight=lam)
    np.testing.assert_allclose(m.decision_function(Xu), ref.decision_function(Xu), atol=1e-5)
    # the dual box 0 <= alpha_i <= C lambda_i
    alpha = np.abs(m.svc_.dual_coef_.ravel())
    assert np.all(alpha <= 3.0 * lam[m.svc_.support_] * (1 + 1e-6))


def test_keyword_only_and_parameters_checked_at_fit(points):
    X, Xu = points
    y = (X[:, 0] > 0).astype(int)
    for cls in (ReweightedParzenClassifier, ReweightedSVC, UnlabeledVicinalClassifier):
        with pytest.raises(TypeError):
            cls(0.5)
    with pytest.raises(ValueError, match="penalty_strength"):
        ReweightedSVC(penalty_strength=-1.0).fit(X, y, X_unlabeled=Xu)
    with pytest.raises(ValueError, match="sigma_unlabeled"):
        UnlabeledVicinalClassifier(sigma_unlabeled=0.0).fit(X[:, :1], y)
    assert ReweightedParzenClassifier(sigma=0.5).fit(X, y, X_unlabeled=Xu).fit_time_ > 0


def _risk(t, s, x, y, xu, sl, su):
    m = y * s * (x - t)
    r = np.mean(norm.cdf(-m / sl))
    return r + (np.mean(norm.cdf(-np.abs(xu - t) / su)) if xu is not None else 0.0)


def test_vicinal_1d_is_the_minimum():
    rng = np.random.RandomState(4)
    y = np.repeat([-1, 1], 10)
    x = rng.randn(20) + 1.2 * y
    xu = np.r_[rng.randn(50) - 1.2, rng.randn(50) + 1.2]
    m = UnlabeledVicinalClassifier(sigma_labeled=0.4, sigma_unlabeled=0.3).fit(
        x[:, None], y, X_unlabeled=xu[:, None])
    s = m.coef_[0]
    t = -m.intercept_ / s
    grid = np.linspace(-5, 5, 20001)
    best = min(min(_risk(g, ss, x, y, xu, 0.4, 0.3) for g in grid[::10]) for ss in (1, -1))
    assert m.vicinal_risk_ == pytest.approx(_risk(t, s, x, y, xu, 0.4, 0.3), rel=1e-9)
    assert m.vicinal_risk_ <= best + 1e-9


def test_vicinal_sigma0_is_the_max_margin_without_unlabeled():
    x = np.array([-3.0, -2.0, -1.0, 0.5, 2.0, 4.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    m = UnlabeledVicinalClassifier(sigma_labeled=0.0, sigma_unlabeled=1.0, n_grid=20001).fit(
        x[:, None], y)
    assert -m.intercept_ / m.coef_[0] == pytest.approx(-0.25, abs=1e-3)
    assert m.coef_[0] == 1.0
    np.testing.assert_array_equal(m.predict(x[:, None]), y)


def test_vicinal_nd_lowers_the_risk_of_its_svm_start():
    rng = np.random.RandomState(5)
    X = np.vstack([rng.randn(10, 2) - 1, rng.randn(10, 2) + 1])
    y = np.repeat([0, 1], 10)
    Xu = np.vstack([rng.randn(60, 2) - 1, rng.randn(60, 2) + 1])
    m = UnlabeledVicinalClassifier(sigma_labeled=0.5, sigma_unlabeled=0.5).fit(X, y, X_unlabeled=Xu)
    svc = SVC(kernel="linear", C=1.0, precision="float64").fit(X, np.where(y == 1, 1, -1))
    w = svc.dual_coef_.ravel() @ svc.support_vectors_
    b = svc.intercept_[0]

    def risk(w, b):
        nw = np.linalg.norm(w)
        return (np.mean(norm.cdf(-np.where(y == 1, 1, -1) * (X @ w + b) / (0.5 * nw)))
                + np.mean(norm.cdf(-np.abs(Xu @ w + b) / (0.5 * nw))))

    assert m.vicinal_risk_ == pytest.approx(risk(m.coef_, m.intercept_), rel=1e-9)
    assert m.vicinal_risk_ <= risk(w, b) + 1e-12
    assert np.linalg.norm(m.coef_) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="sigma_labeled"):
        UnlabeledVicinalClassifier(sigma_labeled=0.0).fit(X, y)


def test_threshold_error_formula():
    assert _threshold_error(1.0, 0.0, 1.6) == pytest.approx(norm.cdf(-1.6))
    # a shifted threshold, against a Monte-Carlo-free direct sum of the two tails
    t = 0.4
    assert _threshold_error(2.0, -2 * t, 1.6) == pytest.approx(
        0.5 * norm.sf(t + 1.6) + 0.5 * norm.cdf(t - 1.6))
    assert _threshold_error(-1.0, 0.0, 1.6) == pytest.approx(norm.cdf(1.6))


def test_protocols_run_small():
    r = vrm_unlabeled_toy(n_runs=1, sigmas_labeled=(0.5,), sigmas_unlabeled=(0.5,))
    assert r["bayes"] == pytest.approx(norm.cdf(-1.6))
    for k in ("labeled_sigma0", "unlabeled_sigma0", "labeled_best", "unlabeled_best"):
        assert r["bayes"] <= r[k] <= 0.5            # exact errors are never below Bayes
    t = reweighting_toy(dims=[1, 3], n_trials=2, n_test=200)
    assert t["bayes"] == pytest.approx(0.0228, abs=1e-4)
    assert len(t["error_plain"]) == 2 and all(0 <= e <= 1 for e in t["error_reweighted"])
