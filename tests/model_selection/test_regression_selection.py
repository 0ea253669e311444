"""Chapter 9 model selection (kernelnb.model_selection._regression) against direct computations:
least squares by numpy.linalg.lstsq, the penalties by their formulas, DEE's trace term by an
explicit solve and by its limit, ADJ by brute force, CV by scikit-learn's cross_val_score."""
import numpy as np
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import KFold, cross_val_score

from kernelnb.model_selection import (REGRESSION_CRITERIA, SeriesRegressor, basis_matrix,
                                      regression_risk_estimates)
from kernelnb.reproductions.chapelle.regression import (generalization_prediction_experiment,
                                                        regression_target,
                                                        selection_ratio_experiment)
from kernelnb.reproductions.chapelle.regression import _true_risk_factory


def _data(n=30, noise=0.1, seed=0, target="step"):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-np.pi, np.pi, n)
    return x, regression_target(target)(x) + noise * rng.randn(n), rng


def _lstsq(Phi, y, d):
    coef = np.linalg.lstsq(Phi[:, :d], y, rcond=None)[0]
    return coef, np.mean((y - Phi[:, :d] @ coef) ** 2)


def test_fourier_basis_columns_and_orthonormality():
    x = np.linspace(-3, 3, 7)
    P = basis_matrix(x, 6)
    s2 = np.sqrt(2)
    expect = np.column_stack([np.ones(7), s2 * np.cos(x), s2 * np.sin(x), s2 * np.cos(2 * x),
                              s2 * np.sin(2 * x), s2 * np.cos(3 * x)])
    np.testing.assert_allclose(P, expect, atol=1e-14)
    grid = -np.pi + (np.arange(400) + 0.5) * 2 * np.pi / 400     # midpoint rule: exact here
    G = basis_matrix(grid, 21).T @ basis_matrix(grid, 21) / 400
    np.testing.assert_allclose(G, np.eye(21), atol=1e-12)
    # Legendre: orthonormal for U[-pi, pi] (Gauss-Legendre quadrature is exact)
    t, w = np.polynomial.legendre.leggauss(30)
    L = basis_matrix(np.pi * t, 8, basis="legendre")
    np.testing.assert_allclose(L.T @ (L * w[:, None] / 2), np.eye(8), atol=1e-12)


def test_least_squares_fits_match_lstsq():
    x, y, _ = _data(n=25)
    res = regression_risk_estimates(x, y, max_dim=20, criteria=("fpe",))
    Phi = basis_matrix(x, 20)
    for d in (1, 2, 7, 14, 20):
        coef, remp = _lstsq(Phi, y, d)
        np.testing.assert_allclose(res.coef[:d, d - 1], coef, rtol=1e-8, atol=1e-8)
        assert np.all(res.coef[d:, d - 1] == 0)
        np.testing.assert_allclose(res.empirical_risk[d - 1], remp, rtol=1e-8)


def test_penalties_by_their_formulas():
    n, D = 30, 25
    x, y, _ = _data(n=n)
    res = regression_risk_estimates(x, y, max_dim=D)
    Phi = basis_matrix(x, D)
    remp = np.array([_lstsq(Phi, y, d)[1] for d in range(1, D + 1)])
    s2 = n * remp[-1] / (n - D)
    for d in range(1, D + 1):
        p, e = d / n, res.estimates
        assert np.isclose(e["fpe"][d - 1], remp[d - 1] * (1 + p) / (1 - p), rtol=1e-8)
        assert np.isclose(e["gcv"][d - 1], remp[d - 1] / (1 - p) ** 2, rtol=1e-8)
        assert np.isclose(e["cpm"][d - 1], remp[d - 1] + 2 * d * s2 / n, rtol=1e-8)
        assert np.isclose(e["ric"][d - 1], remp[d - 1] + 2 * np.log(D) * d * s2 / n, rtol=1e-8)
        assert np.isclose(e["bic"][d - 1], remp[d - 1] * (1 + np.log(n) / 2 * p / (1 - p)),
                          rtol=1e-8)
        u = 1 - np.sqrt((d * (np.log(n / d) + 1) + 3) / n)
        assert (e["ucb"][d - 1] == np.inf) if u <= 0 else np.isclose(
            e["ucb"][d - 1], remp[d - 1] / u, rtol=1e-8)
        k = 1 - np.sqrt((d * (np.log(2 * n / d) + 1) + 4) / n)
        assert (e["seb"][d - 1] == np.inf) if k <= 0 else np.isclose(
            e["seb"][d - 1], remp[d - 1] / (1 - p) * (1 + d / (n * k)), rtol=1e-8)
    for c, v in res.estimates.items():
        assert res.chosen[c] == np.argmin(v) + 1


def test_dee_trace_term_against_explicit_solve_and_its_limit():
    n, D = 40, 21
    x, y, rng = _data(n=n)
    u = rng.uniform(-np.pi, np.pi, 500)
    res = regression_risk_estimates(x, y, u, max_dim=D, criteria=("dee",))
    Phi, Pu = basis_matrix(x, D), basis_matrix(u, D)
    for d in (1, 5, 12, 21):
        C = Phi[:, :d].T @ Phi[:, :d] / n
        Ct = Pu[:, :d].T @ Pu[:, :d] / len(u)
        trace = np.trace(np.linalg.solve(C, Ct))
        remp = _lstsq(Phi, y, d)[1]
        np.testing.assert_allclose(res.estimates["dee"][d - 1],
                                   remp / (1 - d / n) * (1 + trace / n), rtol=1e-7)
    # exact unlabeled expectation (midpoint grid: C~ = I): the term is sum 1/lambda of C_emp
    grid = -np.pi + (np.arange(2000) + 0.5) * 2 * np.pi / 2000
    res = regression_risk_estimates(x, y, grid, max_dim=D, criteria=("dee",))
    lam = np.linalg.eigvalsh(Phi.T @ Phi / n)
    remp = res.empirical_risk[-1]
    np.testing.assert_allclose(res.estimates["dee"][-1],
                               remp / (1 - D / n) * (1 + np.sum(1 / lam) / n), rtol=1e-7)
    # many training points: C_emp -> I, sum 1/lambda -> d, DEE -> FPE's factor
    xb, yb, _ = _data(n=20000, seed=1)
    big = regression_risk_estimates(xb, yb, grid, max_dim=9, criteria=("dee", "fpe"))
    np.testing.assert_allclose(big.estimates["dee"], big.estimates["fpe"], rtol=2e-3)


def test_dee_without_unlabeled_points_is_fpe():
    x, y, _ = _data(n=30)
    res = regression_risk_estimates(x, y, max_dim=20, criteria=("dee", "fpe", "adj"))
    np.testing.assert_allclose(res.estimates["dee"], res.estimates["fpe"], rtol=1e-7)
    np.testing.assert_allclose(res.estimates["adj"], res.empirical_risk, rtol=1e-6)


def test_adj_by_brute_force():
    n, D = 30, 18
    x, y, rng = _data(n=n, seed=3)
    u = rng.uniform(-np.pi, np.pi, 300)
    res = regression_risk_estimates(x, y, u, max_dim=D, criteria=("adj",))
    Phi, Pu = basis_matrix(x, D), basis_matrix(u, D)
    fits = [_lstsq(Phi, y, d)[0] for d in range(1, D + 1)]
    for k in range(1, D + 1):
        remp = np.mean((y - Phi[:, :k] @ fits[k - 1]) ** 2)
        if k == 1:
            expect = remp
        else:
            ratios = []
            for j in range(1, k):
                gl = Phi[:, :k] @ fits[k - 1] - Phi[:, :j] @ fits[j - 1]
                gu = Pu[:, :k] @ fits[k - 1] - Pu[:, :j] @ fits[j - 1]
                ratios.append(np.mean(gu ** 2) / np.mean(gl ** 2))
            expect = remp * max(ratios)
        np.testing.assert_allclose(res.estimates["adj"][k - 1], expect, rtol=1e-5)


def test_cv5_against_cross_val_score():
    n, D = 40, 25
    x, y, _ = _data(n=n, seed=4)
    res = regression_risk_estimates(x, y, max_dim=D, criteria=("cv5",))
    Phi = basis_matrix(x, D)
    for d in (1, 4, 11, 25):
        s = cross_val_score(LinearRegression(fit_intercept=False), Phi[:, :d], y, cv=KFold(5),
                            scoring="neg_mean_squared_error")
        np.testing.assert_allclose(res.estimates["cv5"][d - 1], -s.mean(), rtol=1e-6)
    # d beyond the 32 training points of a fold: no estimate
    full = regression_risk_estimates(x, y, max_dim=39, criteria=("cv5",))
    assert np.all(np.isinf(full.estimates["cv5"][32:]))
    assert np.all(np.isfinite(full.estimates["cv5"][:32]))


def test_series_regressor_uses_the_chosen_fit():
    x, y, rng = _data(n=40, noise=0.05, target="sinc")
    u = rng.uniform(-np.pi, np.pi, 1000)
    for criterion in REGRESSION_CRITERIA:
        est = SeriesRegressor(criterion=criterion, max_dim=30)
        est.fit(x[:, None], y, X_unlabeled=u[:, None])
        res = regression_risk_estimates(x, y, u, max_dim=30, criteria=(criterion,))
        assert est.n_basis_ == res.chosen[criterion]
        coef, _ = _lstsq(basis_matrix(x, 30), y, est.n_basis_)
        np.testing.assert_allclose(est.coef_, coef, rtol=1e-7, atol=1e-9)
        xt = np.linspace(-3, 3, 11)
        np.testing.assert_allclose(est.predict(xt[:, None]),
                                   basis_matrix(xt, est.n_basis_) @ coef, rtol=1e-7, atol=1e-9)
    # a smooth target with little noise: DEE picks a model close to the best one
    est = SeriesRegressor().fit(x[:, None], y, X_unlabeled=u[:, None])
    risk = _true_risk_factory(regression_target("sinc"), 39, "fourier", 0.05)
    r = risk(regression_risk_estimates(x, y, u).coef)
    assert r[est.n_basis_ - 1] < 2 * r.min()


def test_true_risk_against_the_step_function_fourier_series():
    """I_{x>0} = 1/2 + sum_{p odd} 2 sin(px) / (p pi): coefficients sqrt(2) / (p pi) on the
    basis functions sqrt(2) sin(px); the risk of the truncated series is noise^2 + the tail."""
    D = 21
    alpha = np.zeros(D)
    alpha[0] = 0.5
    for p in range(1, 11):
        if p % 2:
            alpha[2 * p] = np.sqrt(2) / (p * np.pi)          # column 2p is sqrt(2) sin(px)
    coef = np.triu(np.tile(alpha[:, None], (1, D)))
    risk = _true_risk_factory(regression_target("step"), D, "fourier", 0.1)(coef)
    energy = 0.25 + np.cumsum(alpha[1:] ** 2)
    np.testing.assert_allclose(risk[1:], 0.01 + 0.5 - energy, rtol=1e-3)


def test_experiments_shapes_and_ratio_floor():
    out = generalization_prediction_experiment(n_trials=5, max_dim=10, n=20)
    assert out.true_risk.shape == (10,) and set(out.estimates) == {"dee", "adj", "fpe", "cv5"}
    assert np.all(out.true_risk >= 0.05 ** 2)
    sel = selection_ratio_experiment("step", n=20, noise=0.1, n_trials=5, criteria=("dee", "fpe"))
    for c in ("dee", "fpe"):
        assert sel.ratios[c].shape == (5,) and np.all(sel.ratios[c] >= 1 - 1e-12)


@pytest.mark.parametrize("kwargs, name", [
    (dict(criterion="foo"), "criterion"), (dict(basis="wavelet"), "basis"),
    (dict(max_dim=0), "max_dim"), (dict(n_folds=1), "n_folds"), (dict(max_dim=40), "max_dim")])
def test_bad_parameters_name_themselves(kwargs, name):
    x, y, _ = _data(n=40)
    with pytest.raises(ValueError, match=name):
        SeriesRegressor(**kwargs).fit(x[:, None], y)


def test_bad_function_arguments():
    x, y, _ = _data(n=20)
    with pytest.raises(ValueError, match="criteria"):
        regression_risk_estimates(x, y, criteria=("dee", "aic"))
    with pytest.raises(ValueError, match="max_dim"):
        regression_risk_estimates(x, y, max_dim=20)
    with pytest.raises(ValueError, match="X_unlabeled"):
        regression_risk_estimates(x, y, np.zeros((5, 2)))
    with pytest.raises(ValueError, match="n_basis"):
        basis_matrix(x, 0)
    with pytest.raises(ValueError, match="X_unlabeled|features"):
        SeriesRegressor().fit(x[:, None], y, X_unlabeled=np.zeros((5, 2)))


def test_series_regressor_takes_keywords_only():
    x, y, _ = _data(n=20)
    with pytest.raises(TypeError):
        SeriesRegressor("legendre")
    with pytest.raises(TypeError):
        SeriesRegressor().fit(x[:, None], y, x[:, None])       # X_unlabeled is keyword-only
