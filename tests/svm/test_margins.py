"""SVC.fit(margins=gamma): the adaptive-width VRM-SVM dual of Chapelle's thesis §2.3.1,
max sum gamma_i a_i - 1/2 a'(yy' o K)a, sum y_i a_i = 0, 0 <= a_i <= C / gamma_i, checked
against an independent solve (scipy's SLSQP), the KKT conditions, exact identities, errors."""
import numpy as np
import pytest
from scipy.optimize import minimize

from kernelnb.svm import SVC


def _data(n=16, seed=0, sep=1.0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=n) > 0, 1, 0)
    X[y == 1, 0] += sep
    return X, y


def _slsqp_dual(K, yv, gam, ub, dadd=None):
    """The dual solved by a general-purpose solver: min 1/2 a'Qa - gam'a, y'a = 0, 0 <= a <= ub.

    ``ftol`` (SLSQP stops when the objective changes by less) is 1e-12: well clear of rounding,
    which moves an objective of a few units by ~1e-15.  At 1e-14 the last line search met that
    noise and SLSQP reported failure ("Positive directional derivative for linesearch") at the
    optimum with BLAS on one thread (scipy 1.17), which sums the products in another order.  At 1e-12
    its alphas agree with those of the solver at tol=1e-10 to 1e-7 or better on the problems
    below, far inside the tolerances the tests ask (1e-4 and 2e-5 on alpha, 1e-6 on the
    objective)."""
    Q = np.outer(yv, yv) * K + (np.diag(dadd) if dadd is not None else 0)
    n = len(yv)
    res = minimize(lambda a: 0.5 * a @ Q @ a - gam @ a, np.zeros(n),
                   jac=lambda a: Q @ a - gam, method="SLSQP",
                   bounds=[(0, u) for u in ub],
                   constraints=[dict(type="eq", fun=lambda a: yv @ a, jac=lambda a: yv.astype(float))],
                   options=dict(ftol=1e-12, maxiter=2000))
    assert res.success, res.message
    return res.x, res.fun


def _alphas(model, n):
    a = np.zeros(n)
    a[model.support_] = np.abs(model.dual_coef_[0])
    return a


@pytest.mark.parametrize("C", [0.3, 5.0])
def test_l1_dual_matches_an_independent_solve(C):
    X, y = _data()
    yv = np.where(y == 1, 1.0, -1.0)
    gam = np.random.RandomState(1).uniform(0.3, 2.5, len(y))
    m = SVC(kernel="linear", C=C, tol=1e-10, precision="float64").fit(X, y, margins=gam)
    a_ref, obj_ref = _slsqp_dual(X @ X.T, yv, gam, C / gam)
    a = _alphas(m, len(y))
    np.testing.assert_allclose(a, a_ref, atol=2e-5)
    assert m.objective_ == pytest.approx(obj_ref, rel=1e-6, abs=1e-8)
    assert np.all(a <= C / gam + 1e-12)
    assert np.any(np.isclose(a, C / gam)) or C > 1     # the small C puts some at their bound


def test_kkt_conditions_with_margins():
    """Primal of the thesis's Eq. 2.23: y_i f(x_i) >= gamma_i where alpha_i = 0, = gamma_i where
    0 < alpha_i < C / gamma_i, <= gamma_i where alpha_i = C / gamma_i."""
    X, y = _data(n=40, seed=3)
    yv = np.where(y == 1, 1.0, -1.0)
    gam = np.random.RandomState(4).uniform(0.5, 2.0, len(y))
    C = 1.0
    m = SVC(kernel="rbf", sigma=1.0, C=C, tol=1e-9, precision="float64").fit(X, y, margins=gam)
    a = _alphas(m, len(y))
    yf = yv * m.decision_function(X)
    ub = C / gam
    zero, bound = a < 1e-9, a > ub - 1e-9
    free = ~zero & ~bound
    assert free.any() and zero.any()
    assert np.all(yf[zero] >= gam[zero] - 1e-6)
    np.testing.assert_allclose(yf[free], gam[free], atol=1e-6)
    assert np.all(yf[bound] <= gam[bound] + 1e-6)
    assert abs(yv @ a) < 1e-9
    np.testing.assert_array_equal(m.at_bound_, bound[m.support_])


def test_unit_margins_are_exactly_the_svc():
    X, y = _data(n=30, seed=5)
    for params in (dict(kernel="linear", C=0.7), dict(sigma=0.8, C=3.0, margin="l2"),
                   dict(sigma="scale", margin="hard")):
        plain = SVC(**params).fit(X, y)
        ones = SVC(**params).fit(X, y, margins=np.ones(len(y)))
        np.testing.assert_array_equal(plain.dual_coef_, ones.dual_coef_)
        np.testing.assert_array_equal(plain.intercept_, ones.intercept_)
        np.testing.assert_array_equal(plain.support_, ones.support_)


@pytest.mark.parametrize("margin", ["l1", "l2"])
def test_uniform_margins_rescale_the_svc(margin):
    """margins = c: with alpha = c beta the dual is c^2 (sum beta - 1/2 beta'Q beta) with
    beta <= C / c^2 (l1) or the diagonal c/C (l2): the SVC with C / c^2 (l1) or C / c (l2),
    its decision times c."""
    X, y = _data(n=30, seed=6)
    c, C = 2.5, 4.0
    C_ref = C / c ** 2 if margin == "l1" else C / c
    m = SVC(kernel="linear", C=C, margin=margin, tol=1e-10, precision="float64").fit(
        X, y, margins=np.full(len(y), c))
    ref = SVC(kernel="linear", C=C_ref, margin=margin, tol=1e-10, precision="float64").fit(X, y)
    np.testing.assert_allclose(m.decision_function(X), c * ref.decision_function(X), atol=1e-7)


def test_l2_margins_match_an_independent_solve():
    X, y = _data(n=14, seed=7)
    yv = np.where(y == 1, 1.0, -1.0)
    gam = np.random.RandomState(8).uniform(0.4, 2.0, len(y))
    C = 2.0
    m = SVC(kernel="linear", C=C, margin="l2", tol=1e-10, precision="float64").fit(
        X, y, margins=gam)
    a_ref, _ = _slsqp_dual(X @ X.T, yv, gam, np.full(len(y), 1e6), dadd=gam / C)
    np.testing.assert_allclose(_alphas(m, len(y)), a_ref, atol=2e-5)


def test_hard_margin_with_margins_on_separable_data():
    X, y = _data(n=20, seed=9, sep=4.0)
    yv = np.where(y == 1, 1.0, -1.0)
    gam = np.random.RandomState(10).uniform(0.5, 2.0, len(y))
    m = SVC(kernel="linear", margin="hard", tol=1e-10, precision="float64").fit(X, y, margins=gam)
    yf = yv * m.decision_function(X)
    assert np.all(yf >= gam - 1e-7)
    np.testing.assert_allclose(yf[m.support_], gam[m.support_], atol=1e-7)
    a_ref, _ = _slsqp_dual(X @ X.T, yv, gam, np.full(len(y), 1e6))
    np.testing.assert_allclose(_alphas(m, len(y)), a_ref, atol=1e-4)


def test_multiclass_pairs_use_their_samples_margins():
    rng = np.random.RandomState(11)
    X = np.vstack([rng.normal(loc=c, size=(12, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat([0, 1, 2], 12)
    gam = rng.uniform(0.5, 2.0, len(y))
    m = SVC(kernel="linear", C=1.0, tol=1e-10, precision="float64",
            decision_function_shape="ovo").fit(X, y, margins=gam)
    dec = m.decision_function(X)
    for p, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        keep = (y == a) | (y == b)
        pair = SVC(kernel="linear", C=1.0, tol=1e-10, precision="float64").fit(
            X[keep], np.where(y[keep] == a, 1, 0), margins=gam[keep])
        np.testing.assert_allclose(dec[:, p], pair.decision_function(X), atol=1e-6)


def test_margins_with_sample_weight_zero_ignore_that_sample():
    X, y = _data(n=20, seed=12)
    gam = np.linspace(0.5, 2.0, len(y))
    w = np.ones(len(y))
    w[3] = 0.0
    m = SVC(kernel="linear", tol=1e-10, precision="float64").fit(X, y, sample_weight=w,
                                                                 margins=gam)
    keep = w > 0
    ref = SVC(kernel="linear", tol=1e-10, precision="float64").fit(X[keep], y[keep],
                                                                   margins=gam[keep])
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-8)


@pytest.mark.parametrize("bad, message", [
    (np.ones(5), r"margins must have shape \(16,\) \(one per sample\), got shape \(5,\)"),
    (np.ones((16, 1)), r"margins must have shape \(16,\).*got shape \(16, 1\)"),
    (np.r_[np.ones(15), -1.0], r"margins must be positive and finite; margins\[15\] = -1\.0"),
    (np.r_[0.0, np.ones(15)], r"margins\[0\] = 0\.0"),
    (np.r_[np.ones(15), np.nan], r"margins\[15\] = nan"),
    (np.r_[np.inf, np.ones(15)], r"margins\[0\] = inf"),
    ("wide", "margins must be an array of 16 positive finite numbers"),
])
def test_bad_margins_name_the_parameter(bad, message):
    X, y = _data()
    with pytest.raises(ValueError, match=message):
        SVC(kernel="linear").fit(X, y, margins=bad)
