"""Transductive ridge / TLD (thesis 7.6) and the label-switching TSVM: checked against brute-force
leave-one-out refits, a direct numerical minimisation, the package's ridge regressions and SVC."""
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from kernelnb.ridge import KernelRidge, ScalingRidge, loo_residuals
from kernelnb.svm import SVC
from kernelnb.unlabeled import (TransductiveLinearDiscriminant, TransductiveRidge,
                                TransductiveSVC, loo_matrix, transductive_labels)


def _rbf(A, B, sigma):
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * sigma ** 2))


def _brute_loo(K, Y, alpha, basis):
    """Leave-one-out residuals by refitting without each point (basis functions kept)."""
    N = K.shape[0]
    r = np.empty(N)
    for i in range(N):
        keep = np.arange(N) != i
        if basis == "functions":
            Ki = K[keep]
            a = np.linalg.solve(Ki.T @ Ki + alpha * np.eye(N), Ki.T @ Y[keep])
            r[i] = Y[i] - K[i] @ a
        else:
            Kk = K[np.ix_(keep, keep)]
            a = np.linalg.solve(Kk + alpha * np.eye(N - 1), Y[keep])
            r[i] = Y[i] - K[i, keep] @ a
    return r


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = rng.randn(30, 2)
    y = np.sin(X[:, 0]) + 0.1 * rng.randn(30)
    return X[:18], y[:18], X[18:]


@pytest.mark.parametrize("basis", ["functions", "kernel"])
def test_loo_matrix_is_the_leave_one_out_error(basis):
    rng = np.random.RandomState(1)
    X = rng.randn(25, 3)
    Y = rng.randn(25)
    K = _rbf(X, X, 1.5)
    M, C = loo_matrix(K, 0.05, basis=basis)
    brute = _brute_loo(K, Y, 0.05, basis)
    assert Y @ M @ Y / 25 == pytest.approx(np.mean(brute ** 2), rel=1e-8)
    # the residuals themselves, (C Y)_i / C_ii, and the package's closed form
    np.testing.assert_allclose((C @ Y) / np.diag(C), brute, rtol=1e-7, atol=1e-10)
    G = K @ K.T if basis == "functions" else K
    np.testing.assert_allclose(loo_residuals(G, Y, [0.05])[0], brute, rtol=1e-6, atol=1e-9)


def test_loo_matrix_bad_input():
    with pytest.raises(ValueError, match="alpha"):
        loo_matrix(np.eye(3), -1.0)
    with pytest.raises(ValueError, match="basis"):
        loo_matrix(np.eye(3), 1.0, basis="nope")
    with pytest.raises(ValueError, match="square"):
        loo_matrix(np.ones((3, 2)), 1.0)


@pytest.mark.parametrize("basis", ["functions", "kernel"])
def test_transductive_labels_minimise_the_functional(data, basis):
    """Y* of the closed form against BFGS on (7.20) with leave-one-out errors by refitting."""
    Xl, yl, Xu = data
    model = TransductiveRidge(alpha=0.1, sigma=1.0, alpha_star=0.5, basis=basis).fit(
        Xl, yl, X_unlabeled=Xu)
    Xh = np.vstack([Xl, Xu])
    K = _rbf(Xh, Xh, 1.0)
    t = yl - yl.mean()
    y0 = model.inductive_labels_ - yl.mean()

    def functional(ys):
        Yh = np.r_[t, ys]
        return np.sum(_brute_loo(K, Yh, 0.1, basis) ** 2) + 0.5 * np.sum((ys - y0) ** 2)

    res = minimize(functional, y0.copy(), method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(model.transduction_ - yl.mean(), res.x, atol=1e-5)
    ystar = model.transduction_ - yl.mean()
    assert functional(ystar) <= res.fun + 1e-10
    # the reported joint leave-one-out error (7.18)
    assert model.loo_transductive_ == pytest.approx(
        np.mean(_brute_loo(K, np.r_[t, ystar], 0.1, basis) ** 2), rel=1e-7)


def test_transductive_labels_uses_the_transpose_of_m1():
    """n != m: -M1 Y would not even have the right shape; the solution solves the normal
    equations M1'Y + M2 Y* + gamma*(Y* - Y0) = 0."""
    rng = np.random.RandomState(2)
    A = rng.randn(12, 12)
    M = A @ A.T
    y, y0 = rng.randn(8), rng.randn(4)
    ys = transductive_labels(M, y, y0, 0.3)
    np.testing.assert_allclose(M[:8, 8:].T @ y + M[8:, 8:] @ ys + 0.3 * (ys - y0), 0, atol=1e-10)
    with pytest.raises(ValueError, match="alpha_star"):
        transductive_labels(M, y, y0, -1.0)


def test_inductive_predictions_are_the_package_ridges(data):
    Xl, yl, Xu = data
    m = TransductiveRidge(alpha=0.1, sigma=1.0).fit(Xl, yl, X_unlabeled=Xu)
    ref = ScalingRidge(alpha=0.1, sigma=1.0, tune_scales=False).fit(Xl, yl - yl.mean())
    np.testing.assert_allclose(m.inductive_labels_, ref.predict(Xu) + yl.mean(), rtol=1e-7)
    m = TransductiveRidge(alpha=0.1, sigma=1.0, basis="kernel").fit(Xl, yl, X_unlabeled=Xu)
    ref = KernelRidge(alpha=0.1, sigma=1.0).fit(Xl, yl - yl.mean())
    np.testing.assert_allclose(m.inductive_labels_, ref.predict(Xu) + yl.mean(), rtol=1e-7)
    # no unlabeled points: the inductive ridge itself
    m = TransductiveRidge(alpha=0.1, sigma=1.0, basis="kernel").fit(Xl, yl)
    np.testing.assert_allclose(m.predict(Xu), ref.predict(Xu) + yl.mean(), rtol=1e-6)
    assert m.transduction_.shape == (0,)


def test_predict_is_the_ridge_on_the_joint_set(data):
    Xl, yl, Xu = data
    m = TransductiveRidge(alpha=0.1, sigma=1.0, alpha_star=2.0).fit(Xl, yl, X_unlabeled=Xu)
    Xh = np.vstack([Xl, Xu])
    K = _rbf(Xh, Xh, 1.0)
    a = np.linalg.solve(K.T @ K + 0.1 * np.eye(30), K @ np.r_[yl - yl.mean(),
                                                              m.transduction_ - yl.mean()])
    Xn = np.random.RandomState(5).randn(7, 2)
    np.testing.assert_allclose(m.predict(Xn), _rbf(Xn, Xh, 1.0) @ a + yl.mean(), rtol=1e-6,
                               atol=1e-8)


def test_alpha_by_leave_one_out(data):
    Xl, yl, Xu = data
    grid = [1e-3, 1e-2, 1e-1, 1.0]
    m = TransductiveRidge(alphas=grid, sigma=1.0).fit(Xl, yl, X_unlabeled=Xu)
    K = _rbf(Xl, Xl, 1.0)
    errs = [np.mean(_brute_loo(K, yl - yl.mean(), a, "functions") ** 2) for a in grid]
    np.testing.assert_allclose(m.loo_mse_, errs, rtol=1e-6)
    assert m.alpha_ == grid[int(np.argmin(errs))]


def test_alpha_star_limits_and_auto(data):
    Xl, yl, Xu = data
    big = TransductiveRidge(alpha=0.1, sigma=1.0, alpha_star=1e9).fit(Xl, yl, X_unlabeled=Xu)
    np.testing.assert_allclose(big.transduction_, big.inductive_labels_, atol=1e-6)
    for radius in (0.2, 1.0):
        m = TransductiveRidge(alpha=0.1, sigma=1.0, alpha_star="auto", radius=radius).fit(
            Xl, yl, X_unlabeled=Xu)
        y0 = m.inductive_labels_
        R = radius * m.prediction_se_
        dist = np.linalg.norm(m.transduction_ - y0)
        free = TransductiveRidge(alpha=0.1, sigma=1.0, alpha_star=1e-8).fit(
            Xl, yl, X_unlabeled=Xu)
        if np.linalg.norm(free.transduction_ - y0) > R:     # the constraint is active
            assert dist == pytest.approx(R, rel=1e-3)
        assert dist <= R * (1 + 1e-3)


def test_tld_labels_any_two_classes():
    rng = np.random.RandomState(3)
    X = np.vstack([rng.randn(30, 2) - 1.5, rng.randn(30, 2) + 1.5])
    y = np.array(["neg"] * 30 + ["pos"] * 30)
    lab = np.r_[0:5, 30:35]
    unl = np.setdiff1d(np.arange(60), lab)
    m = TransductiveLinearDiscriminant(sigma=2.0, alpha_star=1.0).fit(
        X[lab], y[lab], X_unlabeled=X[unl])
    assert list(m.classes_) == ["neg", "pos"]
    np.testing.assert_array_equal(m.transduction_,
                                  np.where(m.transductive_values_ > 0, "pos", "neg"))
    assert np.mean(m.transduction_ == y[unl]) > 0.9
    # TLD is TransductiveRidge on +-1 targets without centring
    r = TransductiveRidge(alpha=m.alpha_, sigma=2.0, alpha_star=1.0)
    r._fit_targets(X[lab], np.where(y[lab] == "pos", 1.0, -1.0), X[unl])
    np.testing.assert_allclose(r.inductive_labels_, m.inductive_labels_)
    with pytest.raises(ValueError, match="binary"):
        TransductiveLinearDiscriminant().fit(X[:9], np.arange(9) % 3)


def _clusters(seed=0):
    """Two clusters; the labeled points sit so that the inductive SVM cuts the clusters."""
    rng = np.random.RandomState(seed)
    Xu = np.vstack([rng.randn(40, 2) * 0.5 + [-2, 0], rng.randn(40, 2) * 0.5 + [2, 0]])
    yu = np.repeat([0, 1], 40)
    Xl = np.array([[-0.3, 0.5], [-2.0, 3.0], [0.3, -0.5], [2.0, -3.0]])
    yl = np.array([0, 0, 1, 1])
    return Xl, yl, Xu, yu


def test_tsvm_c_star_zero_is_the_inductive_svm():
    Xl, yl, Xu, _ = _clusters()
    t = TransductiveSVC(kernel="linear", C=1.0, C_unlabeled=0.0).fit(Xl, yl, X_unlabeled=Xu)
    svc = SVC(kernel="linear", C=1.0, precision="float64").fit(Xl, yl)
    np.testing.assert_array_equal(t.transduction_, svc.predict(Xu))
    np.testing.assert_allclose(t.decision_function(Xu), svc.decision_function(Xu), atol=1e-6)


def test_tsvm_switching_never_increases_the_objective_and_keeps_the_ratio():
    Xl, yl, Xu, yu = _clusters()
    t = TransductiveSVC(kernel="linear", C=10.0, C_unlabeled=10.0, tol=1e-6).fit(
        Xl, yl, X_unlabeled=Xu)
    assert t.n_switches_ > 0
    # balanced labeled set: C*_- = C*_+, so each switch lowers the objective at fixed (w, b)
    hist = t.objective_history_
    for (cn0, cp0, f0), (cn1, cp1, f1) in zip(hist, hist[1:]):
        if (cn0, cp0) == (cn1, cp1):
            assert f1 <= f0 + 1e-6 * max(1.0, abs(f0))
    assert np.sum(t.transduction_ == 1) == 40          # the labeled ratio 1/2 of 80 points
    svm = SVC(kernel="linear", C=10.0).fit(Xl, yl)
    assert np.mean(t.transduction_ == yu) > np.mean(svm.predict(Xu) == yu)


def test_tsvm_objective_is_the_svm_primal():
    """The primal objective the TSVM tracks equals minus the SVC's dual objective (duality)."""
    Xl, yl, Xu, _ = _clusters(1)
    svc = SVC(kernel="rbf", sigma=1.5, C=2.0, tol=1e-8, precision="float64")
    X = np.vstack([Xl, Xu])
    y = np.r_[np.where(yl == 1, 1, -1), np.where(Xu[:, 0] > 0, 1, -1)]
    w = np.r_[np.ones(4), np.full(80, 0.5)]
    svc.fit(X, y, sample_weight=w)
    primal, _ = TransductiveSVC._objective(svc, X, y, 2.0 * w)
    assert primal == pytest.approx(-float(np.ravel(svc.objective_)[0]), rel=1e-4)


def test_tsvm_positive_fraction_and_errors():
    Xl, yl, Xu, _ = _clusters()
    t = TransductiveSVC(kernel="linear", C_unlabeled=1.0, positive_fraction=0.25).fit(
        Xl, yl, X_unlabeled=Xu)
    assert np.sum(t.transduction_ == 1) == 20
    with pytest.raises(ValueError, match="positive_fraction"):
        TransductiveSVC(positive_fraction=1.5).fit(Xl, yl, X_unlabeled=Xu)
    with pytest.raises(ValueError, match="C_unlabeled"):
        TransductiveSVC(C_unlabeled=-1).fit(Xl, yl, X_unlabeled=Xu)
    with pytest.raises(ValueError, match="binary"):
        TransductiveSVC().fit(Xu[:9], np.arange(9) % 3)
    with pytest.raises(ValueError, match="features"):
        TransductiveSVC().fit(Xl, yl, X_unlabeled=np.ones((3, 5)))


def test_keyword_only_constructors_and_fit_time():
    Xl, yl, Xu, _ = _clusters()
    for cls in (TransductiveSVC, TransductiveRidge, TransductiveLinearDiscriminant):
        with pytest.raises(TypeError):
            cls(1.0)
        assert cls().fit(Xl, yl, X_unlabeled=Xu).fit_time_ > 0


def test_boston_loo_setting_is_the_mean_closed_form_loo():
    from sklearn.preprocessing import StandardScaler

    from kernelnb.datasets import load_boston
    from kernelnb.ridge import scaling_ridge_loo
    from kernelnb.reproductions.chapelle.transduction import boston_loo_setting

    out = boston_loo_setting(n_splits=2, log_sigmas=[0.5, 1.0], alphas=[0.01, 1.0])
    X, y = load_boston()
    rng = np.random.RandomState(1)
    ref = np.zeros((2, 2))
    for _ in range(2):
        trn = rng.permutation(X.shape[0])[25:]
        Xa = StandardScaler().fit_transform(X[trn])
        for i, ls in enumerate([0.5, 1.0]):
            for j, a in enumerate([0.01, 1.0]):
                ref[i, j] += scaling_ridge_loo(Xa, y[trn].astype(float), Xa, np.exp(ls),
                                               np.ones(X.shape[1]), a)[0] / 2
    np.testing.assert_allclose(out["loo"], ref, rtol=1e-8)
    i, j = np.unravel_index(np.argmin(ref), ref.shape)
    assert out["log_sigma"] == [0.5, 1.0][i] and out["alpha"] == [0.01, 1.0][j]


def test_tsvm_warns_when_the_labeled_fraction_is_far_from_the_inductive_one():
    # Two separated clusters of 60 unlabeled points each; 16 labels, 3 of them positive
    # (p = 0.1875, standard error sqrt(p (1 - p) / 16) = 0.098): the inductive SVM labels half
    # of the unlabeled points positive, 0.31 away from p, beyond two standard errors.
    rng = np.random.RandomState(0)
    Xu = np.vstack([rng.randn(60, 2) * 0.5 + [-2, 0], rng.randn(60, 2) * 0.5 + [2, 0]])
    Xl = np.vstack([rng.randn(13, 2) * 0.5 + [-2, 0], rng.randn(3, 2) * 0.5 + [2, 0]])
    yl = np.repeat([0, 1], [13, 3])
    kw = {"kernel": "linear", "C_unlabeled": 1.0}
    with pytest.warns(UserWarning, match=r"positive fraction is 0\.188 \(16 labels"):
        t = TransductiveSVC(**kw).fit(Xl, yl, X_unlabeled=Xu)
    assert t.inductive_fraction_ == pytest.approx(0.5, abs=0.02)
    assert t.positive_fraction_ == round(120 * 3 / 16) / 120
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        t = TransductiveSVC(positive_fraction=0.5, **kw).fit(Xl, yl, X_unlabeled=Xu)
        assert np.sum(t.transduction_ == 1) == 60
        # a balanced labeled set: no warning
        sel = np.r_[0:3, 13:16]
        TransductiveSVC(**kw).fit(Xl[sel], yl[sel], X_unlabeled=Xu)


@pytest.mark.parametrize("basis", ["functions", "kernel"])
def test_auto_radius_is_the_standard_error_of_the_inductive_predictions(data, basis):
    # Y0 = H Y is linear in the labeled targets: H's columns are the inductive ridge's
    # predictions for the unit target vectors; the noise variance is the mean squared
    # leave-one-out residual, here by explicit refits without each point.
    Xl, yl, Xu = data
    m = TransductiveRidge(alpha=0.1, sigma=1.0, alpha_star="auto", basis=basis).fit(
        Xl, yl, X_unlabeled=Xu)
    n = Xl.shape[0]

    def ridge(X, t):
        if basis == "functions":
            return ScalingRidge(alpha=0.1, sigma=1.0, tune_scales=False).fit(X, t)
        return KernelRidge(alpha=0.1, sigma=1.0).fit(X, t)

    H = np.column_stack([ridge(Xl, np.eye(n)[i]).predict(Xu) for i in range(n)])
    t = yl - yl.mean()
    loo = [t[i] - ridge(np.delete(Xl, i, 0), np.delete(t, i)).predict(Xl[i:i + 1])[0]
           for i in range(n)] if basis == "kernel" else None
    if basis == "functions":
        # the basis functions stay when a point is left out (eq. 5.8): refit on the full design
        # with the point's row removed
        from kernelnb.kernels import RBF
        K = RBF(sigma=1.0)(Xl)
        loo = []
        for i in range(n):
            Ki, ti = np.delete(K, i, 0), np.delete(t, i)
            a = np.linalg.solve(Ki.T @ Ki + 0.1 * np.eye(n), Ki.T @ ti)
            loo.append(t[i] - K[i] @ a)
    s2 = np.mean(np.square(loo))
    assert m.prediction_se_ == pytest.approx(np.sqrt(s2 * np.sum(H * H)), rel=1e-6)
