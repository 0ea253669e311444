"""Kernel ridge regression: dual against primal, closed-form leave-one-out against refits."""
import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge

from kernelnb.ridge import KernelRidge, KernelRidgeCV, loo_residuals


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
    with pytest.raises(ValueError, match="'weight_decay' parameter of KernelRidge"):
        KernelRidge(weight_decay=0).fit(X, y)
    with pytest.raises(ValueError, match="'alphas' parameter of KernelRidgeCV"):
        KernelRidgeCV(alphas=[1.0, -1.0]).fit(X, y)
    with pytest.raises(ValueError, match="sigma"):
        KernelRidge(sigma=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="'kernel' parameter of KernelRidge must be a str among"):
        KernelRidge(kernel="gauss").fit(X, y)
    with pytest.raises(ValueError, match="sigmas"):
        KernelRidgeCV(sigmas=[0.0]).fit(X, y)


def test_old_names_still_work_with_a_warning():
    X, y = _data()
    with pytest.warns(FutureWarning, match="'weight_decay' was renamed 'alpha'"):
        old = KernelRidge(weight_decay=0.05, sigma=1.0).fit(X, y)
    new = KernelRidge(alpha=0.05, sigma=1.0).fit(X, y)
    np.testing.assert_array_equal(old.predict(X), new.predict(X))
    with pytest.warns(FutureWarning, match="'weight_decays' was renamed 'alphas'"):
        cv = KernelRidgeCV(weight_decays=[1e-2, 1.0], sigmas=[1.0]).fit(X, y)
    assert cv.alpha_ in (1e-2, 1.0)
    with pytest.warns(FutureWarning, match="'weight_decay_' was renamed 'alpha_'"):
        assert cv.weight_decay_ == cv.alpha_
