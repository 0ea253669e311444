"""Kernel ridge regression: dual against primal, closed-form leave-one-out against refits."""
import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

from kernelnb.ridge import (KernelRidge, KernelRidgeCV, ScalingRidge, loo_residuals,
                            scaling_ridge_loo)


def _data(n=60, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-3, 3, (n, 2))
    return X, np.sin(X[:, 0]) * X[:, 1] + 0.1 * rng.randn(n)


def test_linear_kernel_dual_equals_primal_ridge():
    X, y = _data()
    lam = 0.7
    dual = KernelRidge(alpha=lam, kernel="linear").fit(X, y)
    w = np.linalg.solve(X.T @ X + lam * np.eye(2), X.T @ y)
    Xt, _ = _data(20, seed=1)
    np.testing.assert_allclose(dual.predict(Xt), Xt @ w, atol=1e-10)


def test_rbf_matches_sklearn():
    X, y = _data()
    ours = KernelRidge(alpha=0.1, sigma=0.8).fit(X, y)
    ref = SkKernelRidge(alpha=0.1, kernel="rbf", gamma=1 / (2 * 0.64)).fit(X, y)
    Xt, _ = _data(30, seed=2)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), atol=1e-8)


def test_closed_form_leave_one_out_equals_explicit_refits():
    X, y = _data(40)
    model = KernelRidge(alpha=0.05, sigma=1.0, compute_loo=True).fit(X, y)
    explicit = []
    for i in range(40):
        keep = np.arange(40) != i
        m = KernelRidge(alpha=0.05, sigma=1.0).fit(X[keep], y[keep])
        explicit.append(y[i] - m.predict(X[i:i + 1])[0])
    np.testing.assert_allclose(model.loo_residuals_, explicit, atol=1e-8)


def test_cv_picks_the_grid_minimum_of_loo():
    X, y = _data(50)
    cv = KernelRidgeCV(alphas=[1e-3, 1e-2, 1e-1, 1.0], sigmas=[0.5, 1.0, 2.0]).fit(X, y)
    best = np.inf
    for s in [0.5, 1.0, 2.0]:
        from kernelnb.kernels import RBF
        R = loo_residuals(RBF(s)(X), y, [1e-3, 1e-2, 1e-1, 1.0])
        mse = (R ** 2).mean(axis=1)
        if mse.min() < best:
            best, choice = mse.min(), (s, [1e-3, 1e-2, 1e-1, 1.0][int(np.argmin(mse))])
    assert (cv.sigma_, cv.alpha_) == choice
    assert cv.loo_mse_.min() == pytest.approx(best)


def test_bad_input():
    X, y = _data()
    with pytest.raises(ValueError, match="'alpha' parameter of KernelRidge"):
        KernelRidge(alpha=0).fit(X, y)
    with pytest.raises(ValueError, match="'alphas' parameter of KernelRidgeCV"):
        KernelRidgeCV(alphas=[1.0, -1.0]).fit(X, y)
    with pytest.raises(ValueError, match="sigma"):
        KernelRidge(sigma=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="'kernel' parameter of KernelRidge must be a str among"):
        KernelRidge(kernel="gauss").fit(X, y)
    with pytest.raises(ValueError, match="sigmas"):
        KernelRidgeCV(sigmas=[0.0]).fit(X, y)


# ------------------------------------------------------------------ ScalingRidge (thesis 5.4)
def _rbf_scaled(X, Z, sigma, s):
    d2 = (((X[:, None, :] - Z[None, :, :]) * s) ** 2).sum(-1)
    return np.exp(-d2 / (2 * sigma ** 2))


def _relevance_data(n=70, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-2, 2, (n, 5))
    return X, np.sin(2 * X[:, 0]) * np.cos(1.5 * X[:, 1]) + 0.05 * rng.randn(n)


def test_scaling_ridge_loo_equals_brute_force_refits():
    X, y = _relevance_data(40)
    Z = X[::3]
    s = np.array([1.2, 0.7, 1.0, 0.3, 2.0])
    loo, _, _ = scaling_ridge_loo(X, y, Z, 1.4, s, 0.05)
    res = []
    for i in range(40):
        keep = np.arange(40) != i
        K = _rbf_scaled(X[keep], Z, 1.4, s)
        a = np.linalg.solve(K.T @ K + 0.05 * np.eye(len(Z)), K.T @ y[keep])
        res.append(y[i] - _rbf_scaled(X[i:i + 1], Z, 1.4, s) @ a)
    assert loo == pytest.approx(np.mean(np.square(res)), rel=1e-8)


def test_scaling_ridge_loo_gradient_matches_finite_differences():
    X, y = _relevance_data(50)
    Z = X[:20]
    s = np.exp(np.random.RandomState(1).uniform(-0.5, 0.5, 5))
    _, gs, ga = scaling_ridge_loo(X, y, Z, 1.1, s, 0.02)
    h = 1e-6
    for q in range(5):
        e = np.zeros(5)
        e[q] = h
        fd = (scaling_ridge_loo(X, y, Z, 1.1, s * np.exp(e), 0.02)[0]
              - scaling_ridge_loo(X, y, Z, 1.1, s * np.exp(-e), 0.02)[0]) / (2 * h)
        assert gs[q] == pytest.approx(fd, rel=1e-5, abs=1e-10)
    fd = (scaling_ridge_loo(X, y, Z, 1.1, s, 0.02 * np.exp(h))[0]
          - scaling_ridge_loo(X, y, Z, 1.1, s, 0.02 * np.exp(-h))[0]) / (2 * h)
    assert ga == pytest.approx(fd, rel=1e-5, abs=1e-10)


def test_scaling_ridge_predicts_the_thesis_solution_and_reports_its_loo():
    X, y = _relevance_data(60)
    m = ScalingRidge(n_centers=25, max_iter=10, random_state=0).fit(X, y)
    assert m.centers_.shape == (25, 5) and len(set(m.center_indices_)) == 25
    np.testing.assert_array_equal(m.centers_, X[m.center_indices_])
    K = _rbf_scaled(X, m.centers_, m.sigma_, m.scales_)
    a = np.linalg.solve(K.T @ K + m.alpha_ * np.eye(25), K.T @ y)
    np.testing.assert_allclose(m.dual_coef_, a, rtol=1e-6, atol=1e-8)
    Xt, _ = _relevance_data(15, seed=3)
    np.testing.assert_allclose(m.predict(Xt), _rbf_scaled(Xt, m.centers_, m.sigma_, m.scales_) @ a,
                               atol=1e-8)
    H = K @ np.linalg.solve(K.T @ K + m.alpha_ * np.eye(25), K.T)
    r = (y - H @ y) / (1 - np.diag(H))                          # (5.8) written out
    assert m.loo_mse_ == pytest.approx(np.mean(r ** 2), rel=1e-8)
    same = ScalingRidge(n_centers=25, max_iter=10, random_state=0).fit(X, y)
    np.testing.assert_array_equal(same.center_indices_, m.center_indices_)


def test_scaling_ridge_grid_start_is_the_loo_minimum_of_the_grid():
    X, y = _relevance_data(40)
    sigmas, alphas = [0.5, 1.0, 3.0], [1e-4, 1e-2, 1.0]
    m = ScalingRidge(sigmas=sigmas, alphas=alphas, tune_scales=False).fit(X, y)
    loo = {(sg, a): scaling_ridge_loo(X, y, X, sg, np.ones(5), a)[0]
           for sg in sigmas for a in alphas}
    best = min(loo, key=loo.get)
    assert (m.sigma_, m.alpha_) == pytest.approx(best)
    assert m.loo_mse_start_ == pytest.approx(loo[best], rel=1e-6)
    assert m.n_iter_ == 0 and np.all(m.scales_ == 1)


def test_scaling_ridge_shrinks_the_irrelevant_features():
    X, y = _relevance_data(80)
    m = ScalingRidge(max_iter=60).fit(X, y)
    assert m.loo_mse_ < 0.5 * m.loo_mse_start_
    assert min(m.scales_[:2]) > 3 * max(m.scales_[2:])      # features 2-4 do not matter
    assert m.best_iteration_ > 0
    assert m.history_[m.best_iteration_ - 1] == pytest.approx(m.loo_mse_, rel=1e-6)


def test_scaling_ridge_callback_stops_the_descent():
    X, y = _relevance_data(40)
    seen = []
    m = ScalingRidge(max_iter=50, callback=lambda info: seen.append(info) or False).fit(X, y)
    assert len(seen) == 1 and m.n_iter_ == 1 and len(m.history_) == 1
    assert set(seen[0]) >= {"iteration", "loo_mse", "alpha", "scales"}


@pytest.mark.parametrize("params, name", [
    (dict(alpha=-1.0), "alpha"),
    (dict(sigma=0.0), "sigma"),
    (dict(n_centers=0), "n_centers"),
    (dict(max_iter=-1), "max_iter"),
    (dict(scales=[1.0, 1.0]), "scales"),
    (dict(scales=[1.0, 0.0, 1.0, 1.0, 1.0]), "scales"),
    (dict(alphas=[1.0, -2.0]), "alphas"),
    (dict(sigmas=[-1.0]), "sigmas"),
    (dict(callback=3), "callback"),
])
def test_scaling_ridge_bad_parameters_are_named(params, name):
    X, y = _relevance_data(20)
    with pytest.raises(ValueError, match=name):
        ScalingRidge(**params).fit(X, y)


def test_scaling_ridge_loo_stays_finite_below_the_rounding_of_kk():
    """A penalty far below the rounding of K K' (wide kernel, singular to working precision)
    breaks a Cholesky factorisation; the criterion stays finite (and positive)."""
    X, y = _relevance_data(60)
    loo, gs, ga = scaling_ridge_loo(X, y, X, 50.0, np.ones(5), 1e-14)
    assert np.isfinite(loo) and loo > 0 and np.all(np.isfinite(gs)) and np.isfinite(ga)


def test_scaling_ridge_early_stopping_rule():
    # The rule: every point's squared error after t iterations is recomputed here with
    # ScalingRidge itself stopped after t iterations (L-BFGS-B's first t iterates do not depend
    # on max_iter) from the same start on the other folds of KFold(3, shuffle, random_state);
    # the iteration kept beats the start by more than the gain's standard error and has the
    # lowest cross-validated MSE among those (none: the start).  The LOO error kept is never
    # above the untuned start's (the descended criterion).
    from sklearn.model_selection import KFold

    rng = np.random.RandomState(0)
    X = rng.standard_normal((60, 6))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.3 * rng.standard_normal(60)
    m = ScalingRidge(max_iter=6, random_state=0).fit(X, y)
    assert m.loo_mse_ <= m.loo_mse_start_ + 1e-12
    full = ScalingRidge(max_iter=6, early_stopping=False, random_state=0).fit(X, y)
    assert m.history_ == full.history_
    T = len(m.validation_curve_)
    E = np.empty((T, 60))
    for tr, va in KFold(3, shuffle=True, random_state=np.random.RandomState(0)).split(X):
        for t in range(T):
            r = ScalingRidge(sigma=m.sigma_, alpha=m.alpha_start_, max_iter=t,
                             early_stopping=False, tune_scales=t > 0).fit(X[tr], y[tr])
            E[t, va] = (r.predict(X[va]) - y[va]) ** 2
    np.testing.assert_allclose(m.validation_curve_, E.mean(axis=1), rtol=1e-6)
    gain = E[0] - E
    se = gain.std(axis=1) / np.sqrt(60)
    np.testing.assert_allclose(m.validation_gain_se_, se, rtol=1e-5, atol=1e-12)
    ok = gain.mean(axis=1) > se
    expected = int(np.argmin(np.where(ok, E.mean(axis=1), np.inf))) if ok.any() else 0
    assert m.n_iter_ == full.n_iter_ == full.best_iteration_
    assert m.best_iteration_ == min(expected, full.n_iter_)
    if m.best_iteration_ == 0:
        np.testing.assert_array_equal(m.scales_, np.ones(6))
    else:
        assert m.loo_mse_ == pytest.approx(full.history_[m.best_iteration_ - 1], rel=1e-10)
