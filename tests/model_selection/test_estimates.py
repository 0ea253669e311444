"""Generalisation-error estimates: each against its definition computed naively here (scipy
QPs, explicit refits, closed formulas written out), Theorem 3.8, bounds_table, bad input."""
import numpy as np
import pytest
from scipy.optimize import minimize

from kernelnb.datasets import make_moons
from kernelnb.model_selection import (ESTIMATE_NAMES, bounds_table, estimate_all,
                                      jaakkola_haussler, loo_error, opper_winther, radius_margin,
                                      radius_squared, radius_squared_from_kernel, span_estimate,
                                      span_values, sv_fraction, training_error, validation_error,
                                      wahba, xi_alpha)
from kernelnb.svm import SVC


# ---------------------------------------------------------------------------------- helpers
def rbf(X, Y, sigma):
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * sigma ** 2))


def naive(model, X, y, sigma=None, kernel="rbf", degree=3, coef0=0.0):
    """Everything the estimates need, recomputed from the model's dual coefficients."""
    if kernel == "rbf":
        K = rbf(X, X, sigma)
    elif kernel == "linear":
        K = X @ X.T
    else:
        K = (X @ X.T + coef0) ** degree
    n = len(y)
    ys = np.where(y == model.classes_[1], 1.0, -1.0)
    alpha = np.zeros(n)
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    f = K @ (ys * alpha) + model.intercept_[0]
    dadd = np.full(n, 1.0 / model.C) if model.margin == "l2" else np.zeros(n)
    Kt = K + np.diag(dadd)
    ft = f + dadd * ys * alpha
    bound = np.zeros(n, bool)
    if model.margin == "l1":
        bound = alpha >= model.C * (1 - 1e-12)
    free = (alpha > 0) & ~bound
    return dict(K=K, Kt=Kt, y=ys, alpha=alpha, f=f, ft=ft, free=free, bound=bound, n=n)


def span_qp(Kt, p, others, alpha=None, ys=None, C=None, constrained=False, eta=0.0):
    """min ||Phi(x_p) - sum lambda_i Phi(x_i)||^2 (+ eta sum lambda_i^2 / alpha_i) with
    sum lambda = 1 over ``others``; with ``constrained`` also 0 <= alpha_i + y_i y_p alpha_p
    lambda_i (<= C)."""
    Ko, k = Kt[np.ix_(others, others)], Kt[others, p]
    pen = eta / alpha[others] if eta else np.zeros(len(others))

    def fun(lam):
        return Kt[p, p] - 2 * lam @ k + lam @ Ko @ lam + pen @ lam ** 2

    def jac(lam):
        return -2 * k + 2 * Ko @ lam + 2 * pen * lam

    cons = [{"type": "eq", "fun": lambda lam: lam.sum() - 1, "jac": lambda lam: np.ones_like(lam)}]
    if constrained:
        a, s = alpha[others], ys[others] * ys[p] * alpha[p]
        cons.append({"type": "ineq", "fun": lambda lam: a + s * lam, "jac": lambda lam: np.diag(s)})
        if C is not None:
            cons.append({"type": "ineq", "fun": lambda lam: C - a - s * lam,
                         "jac": lambda lam: -np.diag(s)})
    lam0 = np.full(len(others), 1.0 / len(others))
    res = minimize(fun, lam0, jac=jac, constraints=cons, method="SLSQP",
                   options=dict(ftol=1e-14, maxiter=500))
    return res.fun, res.x


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(n_samples=60, noise=0.3, random_state=1)
    return X, y


@pytest.fixture(scope="module", params=["l1", "l2"])
def fitted(request, moons):
    X, y = moons
    model = SVC(C=2.0, sigma=0.6, margin=request.param, tol=1e-8).fit(X, y)
    return model, X, y, naive(model, X, y, sigma=0.6)


def separable(n=16, seed=0):
    """A small separable problem: random labels, an RBF so narrow that every point is an SV."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.r_[np.zeros(n // 2), np.ones(n - n // 2)].astype(int)
    rng.shuffle(y)
    return X, y


# ---------------------------------------------------------------------------------- span
def test_fast_span_is_the_distance_to_the_affine_hull_of_the_free_svs(fitted):
    model, X, y, nv = fitted
    S2 = span_values(model, X, y)
    free = np.flatnonzero(nv["free"])
    assert free.size >= 3
    points = np.r_[free[::3], np.flatnonzero(nv["bound"])]      # every bounded SV, 1/3 of the free
    for p in points:
        others = free[free != p]
        want, _ = span_qp(nv["Kt"], p, others)
        assert S2[p] == pytest.approx(want, rel=1e-5, abs=1e-7), p
    non_sv = np.setdiff1d(np.arange(len(y)), model.support_)
    assert np.all(np.isnan(S2[non_sv]))
    assert S2.shape == (len(y),)


def test_fast_span_equals_the_constrained_span_where_the_constraints_are_inactive(fitted):
    model, X, y, nv = fitted
    S2 = span_values(model, X, y)
    free = np.flatnonzero(nv["free"])
    C = model.C if model.margin == "l1" else None
    agree = 0
    for p in free[::3]:
        others = free[free != p]
        val, lam = span_qp(nv["Kt"], p, others, nv["alpha"], nv["y"], C, constrained=True)
        # dropping constraints can only lower the minimum
        assert S2[p] <= val * (1 + 1e-5) + 1e-7
        a = nv["alpha"][others] + nv["y"][others] * nv["y"][p] * nv["alpha"][p] * lam
        inactive = np.all(a > 1e-6) and (C is None or np.all(a < C - 1e-6))
        if inactive:
            assert S2[p] == pytest.approx(val, rel=1e-5, abs=1e-7)
            agree += 1
    assert agree >= 1


def test_regularized_span_matches_its_penalised_qp_and_tends_to_the_plain_span(fitted):
    model, X, y, nv = fitted
    free = np.flatnonzero(nv["free"])
    S2_reg = span_values(model, X, y, span_regularization=0.1)
    for p in free[:8]:
        want, _ = span_qp(nv["Kt"], p, free[free != p], alpha=nv["alpha"], eta=0.1)
        assert S2_reg[p] == pytest.approx(want, rel=1e-5, abs=1e-7)
    plain = span_values(model, X, y)
    sv = model.support_
    prev = S2_reg[sv]
    assert np.all(prev >= plain[sv] - 1e-9)
    for eta in (1e-2, 1e-4, 1e-7):
        cur = span_values(model, X, y, span_regularization=eta)[sv]
        assert np.all(cur <= prev + 1e-9)          # the penalty only adds
        prev = cur
    np.testing.assert_allclose(prev, plain[sv], rtol=1e-4, atol=1e-6)


def test_span_estimate_counts_alpha_S2_against_the_margin(fitted):
    model, X, y, nv = fitted
    for eta in (0.0, 0.1):
        S2 = span_values(model, X, y, span_regularization=eta)
        sv = model.support_
        want = np.sum(nv["alpha"][sv] * S2[sv] >= nv["y"][sv] * nv["ft"][sv]) / len(y)
        assert span_estimate(model, X, y, span_regularization=eta) == want
    assert 0 <= want <= 1


def test_theorem_3_8_span_gives_the_exact_loo_change():
    """If removing p leaves the other SVs unchanged, y_p (f0 - f^p)(x_p) = alpha_p S_p^2."""
    X, y = separable()
    checked = 0
    for margin, C in (("hard", 1.0), ("l2", 5.0)):
        model = SVC(C=C, sigma=0.4, margin=margin, tol=1e-10).fit(X, y)
        nv = naive(model, X, y, sigma=0.4)
        S2 = span_values(model, X, y)
        sv = set(model.support_.tolist())
        for p in model.support_:
            keep = np.arange(len(y)) != p
            m = SVC(C=C, sigma=0.4, margin=margin, tol=1e-10).fit(X[keep], y[keep])
            if set(np.flatnonzero(keep)[m.support_].tolist()) != sv - {p}:
                continue                                  # the theorem's assumption fails
            fp = m.decision_function(X[p:p + 1])[0]
            lhs = nv["y"][p] * (nv["ft"][p] - fp)
            # the solver works on a float32 kernel: agreement to ~1e-5 (a broken assumption
            # gives 3-50 % here)
            assert lhs == pytest.approx(nv["alpha"][p] * S2[p], rel=5e-4, abs=1e-6)
            checked += 1
    assert checked >= 10


# ---------------------------------------------------------------------------------- radius
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_enclosing_sphere_matches_slsqp(kernel, moons):
    X, y = moons
    X = X[:40]
    K = {"rbf": rbf(X, X, 0.5), "linear": X @ X.T, "poly": (X @ X.T + 1.0) ** 2}[kernel]
    d = np.diag(K)
    res = minimize(lambda b: -(d @ b - b @ K @ b), np.full(len(d), 1 / len(d)),
                   jac=lambda b: -(d - 2 * K @ b), bounds=[(0, 1)] * len(d),
                   constraints=[{"type": "eq", "fun": lambda b: b.sum() - 1}], method="SLSQP",
                   options=dict(ftol=1e-14, maxiter=1000))
    R2, beta = radius_squared_from_kernel(K)
    assert R2 == pytest.approx(-res.fun, rel=1e-6)
    assert beta.sum() == pytest.approx(1.0) and beta.min() >= 0
    # every point lies inside the sphere centred at sum beta_i Phi(x_i)
    dist2 = d - 2 * K @ beta + beta @ K @ beta
    assert dist2.max() <= R2 * (1 + 1e-8) + 1e-10
    Rv, bv = radius_squared_from_kernel(K, radius="variance")
    assert Rv == pytest.approx(d.mean() - K.mean())
    assert Rv <= R2 + 1e-12


def test_radius_margin_is_R2_w2_over_n(fitted):
    model, X, y, nv = fitted
    c = nv["y"] * nv["alpha"]
    w2 = c @ nv["Kt"] @ c
    for radius in ("sphere", "variance"):
        R2 = radius_squared(model, X, y, radius=radius)
        raw = radius_margin(model, X, y, radius=radius, clip=False)
        assert raw == pytest.approx(R2 * w2 / len(y), rel=1e-6)
        assert radius_margin(model, X, y, radius=radius) == pytest.approx(min(1.0, raw))
    Kt = nv["Kt"]
    assert radius_squared(model, X, y, "variance") == pytest.approx(
        np.mean(np.diag(Kt)) - Kt.mean())


# ---------------------------------------------------------------------------------- formulas
def test_jaakkola_haussler_opper_winther_xi_alpha_formulas(fitted):
    model, X, y, nv = fitted
    n, a, yft = len(y), nv["alpha"], nv["y"] * nv["ft"]
    sv = model.support_
    Kt = nv["Kt"]
    assert jaakkola_haussler(model, X, y) == np.sum(a[sv] * np.diag(Kt)[sv] >= yft[sv]) / n
    F, B = np.flatnonzero(nv["free"]), np.flatnonzero(nv["bound"])
    iK = np.linalg.inv(Kt[np.ix_(F, F)])
    S2 = np.zeros(n)
    S2[F] = 1 / np.diag(iK)
    S2[B] = np.diag(Kt)[B] - np.einsum("ij,ij->j", Kt[np.ix_(F, B)], iK @ Kt[np.ix_(F, B)])
    assert opper_winther(model, X, y) == np.sum(a[sv] * S2[sv] >= yft[sv]) / n
    R2 = np.diag(Kt).max()
    xi = np.maximum(0, 1 - yft)
    assert xi_alpha(model, X, y) == np.sum(2 * a * R2 + xi >= 1) / n
    assert sv_fraction(model, X, y) == len(sv) / n
    assert training_error(model, X, y) == np.mean(model.predict(X) != y)


def test_wahba_formula_from_the_duals(fitted):
    """Wahba's bound written out case by case (thesis 3.1) from the model's dual coefficients
    and its decision values (scikit-learn-style decision_function, not the estimates' own f)."""
    model, X, y, nv = fitted
    n, a, ys = len(y), nv["alpha"], nv["y"]
    f = model.decision_function(X)
    np.testing.assert_allclose(f, nv["f"], atol=1e-8)
    T = 0.0
    for p in range(n):
        Kpp = nv["K"][p, p]
        if model.margin == "l2":              # a hard margin on K~ = K + I / C
            yf, Kpp = ys[p] * f[p] + a[p] / model.C, Kpp + 1.0 / model.C
        else:
            yf = ys[p] * f[p]
        T += max(0.0, 1.0 - yf)
        if yf < -1:
            T += 2 * a[p] * Kpp
        elif yf <= 1 + 1e-6:     # the free SVs sit on the margin to the solver's tol=1e-8
            T += a[p] * Kpp
        else:
            assert a[p] == 0
    assert wahba(model, X, y, clip=False) == pytest.approx(T / n, rel=1e-10)
    assert wahba(model, X, y) == pytest.approx(min(1.0, T / n), rel=1e-10)
    assert estimate_all(model, X, y)["wahba"] == wahba(model, X, y)


def test_wahba_hard_margin_is_sum_alpha_kpp_and_bounds_jaakkola_haussler():
    X, y = separable(20, seed=3)
    model = SVC(sigma=0.5, margin="hard", tol=1e-10).fit(X, y)
    nv = naive(model, X, y, sigma=0.5)
    T = float(nv["alpha"] @ np.diag(nv["K"]))
    # the slacks vanish up to the solver's tolerance
    assert wahba(model, X, y, clip=False) == pytest.approx(T / len(y), rel=1e-6)
    assert wahba(model, X, y, clip=False) >= jaakkola_haussler(model, X, y)
    with pytest.raises(ValueError, match="clip"):
        wahba(model, X, y, clip="yes")


def test_opper_winther_hard_margin_is_alpha_over_inverse_diagonal():
    X, y = separable(20, seed=3)
    model = SVC(sigma=0.5, margin="hard", tol=1e-10).fit(X, y)
    nv = naive(model, X, y, sigma=0.5)
    sv = model.support_
    iK = np.linalg.inv(nv["K"][np.ix_(sv, sv)])
    want = np.sum(nv["alpha"][sv] / np.diag(iK) >= nv["y"][sv] * nv["f"][sv]) / len(y)
    assert opper_winther(model, X, y) == want


@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_other_kernels_run_and_match_the_span_definition(kernel, moons):
    X, y = moons
    model = SVC(C=1.0, kernel=kernel, degree=2, coef0=1.0, tol=1e-8).fit(X, y)
    nv = naive(model, X, y, kernel=kernel, degree=2, coef0=1.0)
    est = estimate_all(model, X, y)
    assert all(0 <= est[k] <= 1 for k in ESTIMATE_NAMES)
    S2 = span_values(model, X, y)
    free = np.flatnonzero(nv["free"])
    for p in free[:5]:
        want, _ = span_qp(nv["Kt"], p, free[free != p])
        # with a rank-deficient kernel the affine hull may contain x_p: S_p = 0
        assert S2[p] == pytest.approx(want, rel=1e-4, abs=1e-6)


# ---------------------------------------------------------------------------------- LOO
@pytest.mark.parametrize("margin", ["l1", "l2"])
def test_loo_error_matches_n_explicit_refits(margin):
    X, y = make_moons(n_samples=40, noise=0.35, random_state=4)
    params = dict(C=3.0, sigma=0.5, margin=margin, tol=1e-8)
    model = SVC(**params).fit(X, y)
    res = loo_error(model, X, y)
    want = np.zeros(len(y), bool)
    for p in range(len(y)):
        keep = np.arange(len(y)) != p
        m = SVC(**params).fit(X[keep], y[keep])
        want[p] = m.predict(X[p:p + 1])[0] != y[p]
        if res.retrained[p]:
            assert res.decision[p] == pytest.approx(m.decision_function(X[p:p + 1])[0], abs=1e-5)
    np.testing.assert_array_equal(res.errors, want)
    assert res.error == pytest.approx(want.mean()) and float(res) == res.error
    non_sv = np.setdiff1d(np.arange(len(y)), model.support_)
    assert not res.retrained[non_sv].any()
    assert res.n_trainings == res.retrained.sum() <= model.support_.size < len(y)


def test_validation_error(moons):
    X, y = moons
    model = SVC(C=1.0, sigma=0.5).fit(X[:40], y[:40])
    assert validation_error(model, X[40:], y[40:]) == np.mean(model.predict(X[40:]) != y[40:])
    est = estimate_all(model, X[:40], y[:40], X_val=X[40:], y_val=y[40:])
    assert est["validation"] == validation_error(model, X[40:], y[40:])


# ---------------------------------------------------------------------------------- all, table
def test_estimate_all_agrees_with_each_function(fitted):
    model, X, y, nv = fitted
    est = estimate_all(model, X, y, loo=True)
    assert set(ESTIMATE_NAMES) <= set(est) and "loo" in est
    assert est["span"] == span_estimate(model, X, y)
    assert est["span_regularized"] == span_estimate(model, X, y, span_regularization=0.1)
    assert est["radius_margin"] == radius_margin(model, X, y)
    assert est["radius_margin_variance"] == radius_margin(model, X, y, radius="variance")
    assert est["opper_winther"] == opper_winther(model, X, y)
    assert est["loo"] == loo_error(model, X, y).error
    assert all(0 <= v <= 1 for k, v in est.items() if k != "loo_trainings")


def test_bounds_table_refits_in_order_with_warm_starts(moons):
    X, y = moons
    Xt, yt = make_moons(n_samples=200, noise=0.3, random_state=9)
    values = [0.3, 1.0, 0.5, 2.0]                       # kept in the order given
    rows = []
    tab = bounds_table(SVC(C=2.0, tol=1e-8), X, y, param="sigma", values=values,
                       X_test=Xt, y_test=yt, X_val=Xt[:50], y_val=yt[:50], loo=True,
                       callback=lambda info: rows.append((info["iteration"], info)))
    assert [i for i, _ in rows] == [0, 1, 2, 3]
    np.testing.assert_array_equal(tab["sigma"], values)
    for key in (*ESTIMATE_NAMES, "validation", "test_error", "loo", "n_sv", "fit_time",
                "n_trainings", "R2", "w2"):
        assert tab[key].shape == (4,), key
    for k, s in enumerate(values):                      # each row = a fresh fit at that value
        m = SVC(C=2.0, sigma=s, tol=1e-8).fit(X, y)
        assert tab["n_sv"][k] == m.support_.size
        assert tab["test_error"][k] == pytest.approx(np.mean(m.predict(Xt) != yt), abs=1 / 200)
        assert tab["radius_margin"][k] == pytest.approx(radius_margin(m, X, y), rel=1e-4)
        assert tab["loo"][k] == pytest.approx(loo_error(m, X, y).error, abs=1 / 60)
        assert tab["n_trainings"][k] == 1 + loo_error(m, X, y).n_trainings
    assert rows[2][1]["sigma"] == 0.5 and rows[2][1]["n_sv"] == tab["n_sv"][2]
    tabC = bounds_table(SVC(sigma=0.5, margin="l2"), X, y, param="C", values=[0.1, 1, 10])
    assert tabC["C"].tolist() == [0.1, 1, 10] and np.all(tabC["n_trainings"] == 1)
    assert "test_error" not in tabC and "loo" not in tabC


@pytest.mark.parametrize("param, values, margin", [
    ("sigma", [0.3, 0.5, 1.0, 2.0], "l1"), ("C", [0.1, 1.0, 10.0], "l1"),
    ("C", [0.1, 1.0, 10.0], "l2")])
def test_bounds_table_radius_is_each_values_enclosing_sphere(moons, monkeypatch, param, values,
                                                            margin):
    """Each row's R^2 is the enclosing sphere of its own K~, as a fresh fit's radius_squared
    computes it from uniform weights: the table warm-starts the sphere's QP from the previous
    value's weights, and along C with the L1 margin (K~ = K, one sphere) solves it once."""
    import kernelnb.model_selection._estimates as est

    X, y = moons
    solved = []
    real = est._sphere_weights
    monkeypatch.setattr(est, "_sphere_weights", lambda *a: solved.append(1) or real(*a))
    template = SVC(C=2.0, sigma=0.5, margin=margin, tol=1e-8)
    tab = bounds_table(template, X, y, param=param, values=values)
    assert len(solved) == (1 if (param, margin) == ("C", "l1") else len(values))
    monkeypatch.setattr(est, "_sphere_weights", real)
    for k, value in enumerate(values):
        m = SVC(**{**template.get_params(), param: value}).fit(X, y)
        # both stop at a gradient gap of 1e-10 max K~_ii: R^2 agrees far below that
        assert tab["R2"][k] == pytest.approx(radius_squared(m, X, y), rel=1e-8, abs=1e-10)


def test_bounds_table_in_steps_grows_the_curves_value_by_value(moons):
    """Without the leave-one-out, _bounds_table_steps yields after each value's fit but the
    last the table of every value with the rows fitted so far (NaN after them, no training
    counted there): the dashboard draws the first of them while the rest is fitted."""
    from kernelnb.model_selection._tables import _bounds_table_steps

    X, y = moons
    values = [0.3, 0.6, 1.2]
    kw = dict(param="sigma", values=values, X_test=X[:30], y_test=y[:30])
    full = bounds_table(SVC(C=2.0, tol=1e-6), X, y, **kw)
    tables = [t for t in _bounds_table_steps(SVC(C=2.0, tol=1e-6), X, y, **kw) if t is not None]
    assert len(tables) == len(values) - 1
    for done, t in enumerate(tables, start=1):
        assert set(t) == set(full) and t["sigma"].tolist() == values
        assert t["n_trainings"].tolist() == [1] * done + [0] * (len(values) - done)
        for key in (*ESTIMATE_NAMES, "test_error", "n_sv", "R2", "w2"):
            np.testing.assert_array_equal(t[key][:done], full[key][:done], err_msg=key)
            assert np.all(np.isnan(t[key][done:])), key


def test_bounds_table_in_steps_fills_the_leave_one_out_value_by_value(moons):
    """The steps a dashboard draws (_bounds_table_steps): every value's row without the
    leave-one-out first, then its column filled in order; the fits are those of a table
    without it, and the end is bounds_table's result."""
    from kernelnb.model_selection._tables import _bounds_table_steps

    X, y = moons
    values = [0.3, 0.6, 1.2]
    kw = dict(param="sigma", values=values, X_test=X[:30], y_test=y[:30])
    plain = bounds_table(SVC(C=2.0, tol=1e-6), X, y, **kw)
    out = list(_bounds_table_steps(SVC(C=2.0, tol=1e-6), X, y, loo=True, **kw))
    tables = [t for t in out if t is not None]
    done = [int(np.sum(~np.isnan(t["loo"]))) for t in tables]
    assert done == [0, 1, 2]                     # the whole chart, then one value at a time
    steps = _bounds_table_steps(SVC(C=2.0, tol=1e-6), X, y, loo=True, **kw)
    while True:
        try:
            next(steps)
        except StopIteration as end:
            full = end.value
            break
    for t in tables:
        np.testing.assert_array_equal(t["loo"][:2][~np.isnan(t["loo"][:2])],
                                      full["loo"][:2][~np.isnan(t["loo"][:2])])
    for key in (*ESTIMATE_NAMES, "test_error", "n_sv", "R2", "w2"):
        np.testing.assert_array_equal(full[key], plain[key], err_msg=key)
        np.testing.assert_array_equal(tables[0][key], plain[key], err_msg=key)
    for k, s in enumerate(values):               # each row's leave-one-out: that fit's
        assert full["loo"][k] == pytest.approx(
            loo_error(SVC(C=2.0, sigma=s, tol=1e-6).fit(X, y), X, y).error, abs=1 / 60)
    with_loo = bounds_table(SVC(C=2.0, tol=1e-6), X, y, loo=True, **kw)
    np.testing.assert_array_equal(with_loo["loo"], full["loo"])
    np.testing.assert_array_equal(with_loo["n_trainings"], full["n_trainings"])


def test_bounds_table_callback_stops(moons):
    X, y = moons
    seen = []
    tab = bounds_table(SVC(C=2.0), X, y, param="sigma", values=[0.3, 1.0, 2.0],
                       callback=lambda info: seen.append(info["sigma"]) or info["iteration"] < 1)
    assert seen == [0.3, 1.0] and tab["sigma"].tolist() == [0.3, 1.0]
    with pytest.raises(ValueError, match="'callback' parameter of bounds_table"):
        bounds_table(SVC(C=2.0), X, y, param="sigma", values=[0.3], callback=3)


# ---------------------------------------------------------------------------------- errors
def test_bad_input_raises_clear_errors(moons):
    X, y = moons
    model = SVC(C=1.0, sigma=0.5).fit(X, y)
    y3 = np.arange(len(y)) % 3
    multi = SVC().fit(X, y3)
    with pytest.raises(ValueError, match="binary"):
        span_estimate(multi, X, y3)
    pre = SVC(kernel="precomputed").fit(rbf(X, X, 0.5), y)
    with pytest.raises(ValueError, match="kernel='precomputed'"):
        radius_margin(pre, rbf(X, X, 0.5), y)
    call = SVC(kernel=lambda A, B: A @ B.T).fit(X, y)
    with pytest.raises(ValueError, match="need kernel"):
        xi_alpha(call, X, y)
    with pytest.raises(ValueError, match="X must be the training data"):
        jaakkola_haussler(model, X[:10], y[:10])
    with pytest.raises(ValueError, match="not the data"):
        span_values(model, X[::-1], y[::-1])
    with pytest.raises(ValueError, match="y does not match"):
        span_estimate(model, X, 1 - y)
    with pytest.raises(ValueError, match="labels not among"):
        sv_fraction(model, X, y + 5)
    with pytest.raises(ValueError, match="span_regularization"):
        span_values(model, X, y, span_regularization=-1)
    with pytest.raises(ValueError, match="radius"):
        radius_margin(model, X, y, radius="ball")
    with pytest.raises(ValueError, match="fitted"):
        loo_error(SVC(), X, y)
    with pytest.raises(ValueError, match="y_val"):
        validation_error(model, X[:5], y[:4])
    with pytest.raises(ValueError, match="X_val and y_val"):
        estimate_all(model, X, y, X_val=X)
    with pytest.raises(ValueError, match="param"):
        bounds_table(model, X, y, param="gamma", values=[1])
    with pytest.raises(ValueError, match="values"):
        bounds_table(model, X, y, values=[1.0, -2.0])
    with pytest.raises(ValueError, match="values"):
        bounds_table(model, X, y)
    with pytest.raises(ValueError, match="kernel='rbf'"):
        bounds_table(SVC(kernel="linear"), X, y, values=[1.0])
    with pytest.raises(ValueError, match="margin='hard'"):
        bounds_table(SVC(margin="hard"), X, y, param="C", values=[1.0])
    with pytest.raises(ValueError, match="two classes"):
        bounds_table(SVC(), X, y3, values=[1.0])
    with pytest.raises(ValueError, match="callback"):
        bounds_table(model, X, y, values=[1.0], callback=3)


def test_enclosing_sphere_of_a_triangle_and_warm_start():
    # three points on the unit circle 120 degrees apart and points inside: the smallest
    # enclosing sphere is the unit circle (R^2 = 1), its weights 1/3 on the triangle
    ang = np.array([0.0, 2 * np.pi / 3, 4 * np.pi / 3])
    rng = np.random.default_rng(0)
    inner = rng.uniform(-0.4, 0.4, (30, 2))
    X = np.vstack([np.column_stack([np.cos(ang), np.sin(ang)]) + 3.0, inner + 3.0])
    K = X @ X.T
    R2, beta = radius_squared_from_kernel(K)
    assert R2 == pytest.approx(1.0, rel=1e-9)
    np.testing.assert_allclose(beta[:3], 1 / 3, atol=1e-9)
    assert beta[3:].max() <= 1e-12
    R2w, _ = radius_squared_from_kernel(K, beta_init=np.r_[np.zeros(32), 1.0])
    assert R2w == pytest.approx(1.0, rel=1e-9)
    with pytest.raises(ValueError, match="beta_init"):
        radius_squared_from_kernel(K, beta_init=np.zeros(33))
