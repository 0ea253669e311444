"""Criteria of kernel-parameter selection and their gradients (thesis ch. 4, ``seed_004.md`` 1.5).

Every gradient entry is checked against central finite differences of the criterion itself (the
SVM fitted at tol=1e-10); the radius-margin value against an SLSQP solution of the sphere QP and
scikit-learn's hard-margin SVM on K + I/C; the per-feature contraction against the explicit
(d, n, n) kernel derivatives.
"""
import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.svm import SVC as SkSVC

from kernelnb.kernels import RBF
from kernelnb.model_selection import criterion_and_gradient, full_dual, sphere_radius2
from kernelnb.svm import SVC

N, D = 40, 3
SCALES = np.array([1.2, 0.6, 0.9])


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(N, D))
    y = np.where(X[:, 0] + 0.6 * X[:, 1] ** 2 + 0.6 * rng.normal(size=N) > 0.4, "b", "a")
    return X, y


def _est(kernel, C=2.0, sigma=1.4, **kw):
    extra = {"degree": 2, "coef0": 1.0} if kernel == "poly" else {}
    return SVC(kernel=kernel, margin="l2", C=C, sigma=sigma, tol=1e-10, **extra, **kw)


def _value(X, y, kernel, criterion, C, sigma, scales, radius="variance"):
    kw = {}
    if kernel == "rbf" and scales is not None:
        kw["scales"] = scales
        scales = None
    return criterion_and_gradient(_est(kernel, C, sigma, **kw), X, y, criterion, ("C",),
                                  radius=radius, scales=scales)[0]


CASES = [
    ("rbf", ("C", "sigma"), None),                 # RBF without scales
    ("rbf", ("C", "sigma", "scales"), SCALES),     # RBF with its own scales
    ("linear", ("C", "scales"), SCALES),           # scales applied to X
    ("poly", ("C", "scales"), SCALES),
]


@pytest.mark.parametrize("criterion", ["radius_margin", "span"])
@pytest.mark.parametrize("kernel,tune,scales", CASES, ids=[c[0] + str(len(c[1])) for c in CASES])
def test_gradient_matches_finite_differences(data, criterion, kernel, tune, scales):
    X, y = data
    C, sigma, h = 2.0, 1.4, 1e-4
    kw = {"scales": scales} if kernel == "rbf" and scales is not None else {}
    value, grad, fitted = criterion_and_gradient(
        _est(kernel, C, sigma, **kw), X, y, criterion, tune,
        scales=None if kernel == "rbf" else scales)
    assert list(grad) == list(tune)
    assert fitted.criterion_info_["polished"]
    s0 = np.ones(D) if scales is None else scales
    f = lambda C_, sg, s: _value(X, y, kernel, criterion, C_, sg, s)  # noqa: E731
    assert np.isclose(value, f(C, sigma, scales), rtol=1e-12)
    fd = {"C": (f(C * np.exp(h), sigma, scales) - f(C * np.exp(-h), sigma, scales)) / (2 * h)}
    if "sigma" in tune:
        fd["sigma"] = (f(C, sigma * np.exp(h), scales) - f(C, sigma * np.exp(-h), scales)) / (2 * h)
    if "scales" in tune:
        fd["scales"] = np.array([
            (f(C, sigma, s0 * np.exp(h * e)) - f(C, sigma, s0 * np.exp(-h * e))) / (2 * h)
            for e in np.eye(D)])
        assert grad["scales"].shape == (D,)
    for name in tune:
        scale = max(np.max(np.abs(fd[name])), 1e-3 * abs(value))
        np.testing.assert_allclose(grad[name], fd[name], rtol=1e-4, atol=1e-5 * scale,
                                   err_msg=f"{criterion} {kernel} d/dlog {name}")


def test_sphere_radius_gradient_matches_finite_differences(data):
    X, y = data
    C, sigma, h = 2.0, 1.4, 1e-4
    est = _est("rbf", C, sigma, scales=SCALES)
    _, grad, _ = criterion_and_gradient(est, X, y, "radius_margin", ("C", "sigma", "scales"),
                                        radius="sphere")
    f = lambda C_, sg, s: _value(X, y, "rbf", "radius_margin", C_, sg, s, "sphere")  # noqa: E731
    fd_C = (f(C * np.exp(h), sigma, SCALES) - f(C * np.exp(-h), sigma, SCALES)) / (2 * h)
    fd_s = (f(C, sigma * np.exp(h), SCALES) - f(C, sigma * np.exp(-h), SCALES)) / (2 * h)
    fd_p = (f(C, sigma, SCALES * np.exp(h * np.eye(D)[1]))
            - f(C, sigma, SCALES * np.exp(-h * np.eye(D)[1]))) / (2 * h)
    np.testing.assert_allclose([grad["C"], grad["sigma"], grad["scales"][1]], [fd_C, fd_s, fd_p],
                               rtol=1e-4)


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("radius", ["variance", "sphere"])
def test_l1_margin_radius_margin_gradient(data, kernel, radius):
    """L1 margin, C fixed: ||w||^2 = alpha'Q alpha moves with the free alphas (bounded at C)."""
    X, y = data
    h = 1e-4
    tune = ("sigma", "scales") if kernel == "rbf" else ("scales",)

    def f(sigma, s):
        kw = {"scales": s} if kernel == "rbf" else {}
        est = SVC(kernel=kernel, margin="l1", C=1.5, sigma=sigma, tol=1e-10, **kw)
        return criterion_and_gradient(est, X, y, tune=tune, radius=radius,
                                      scales=None if kernel == "rbf" else s)

    value, grad, fitted = f(1.4, SCALES)
    assert fitted.criterion_info_["polished"] and fitted.at_bound_.any() and not fitted.at_bound_.all()
    ay = np.zeros(N)
    ay[fitted.support_] = fitted.dual_coef_[0]
    assert np.isclose(fitted.criterion_info_["W2"], ay @ fitted.kernel_(
        X if kernel == "rbf" else X * SCALES) @ ay, rtol=1e-5)
    fd = [(f(1.4, SCALES * np.exp(h * e))[0] - f(1.4, SCALES * np.exp(-h * e))[0]) / (2 * h)
          for e in np.eye(D)]
    np.testing.assert_allclose(grad["scales"], fd, rtol=1e-4, atol=1e-6 * value)
    if kernel == "rbf":
        fd_s = (f(1.4 * np.exp(h), SCALES)[0] - f(1.4 * np.exp(-h), SCALES)[0]) / (2 * h)
        assert np.isclose(grad["sigma"], fd_s, rtol=1e-4)


def _slsqp_radius2(Kt):
    n = Kt.shape[0]
    res = minimize(lambda b: b @ Kt @ b - b @ np.diag(Kt), np.full(n, 1.0 / n),
                   jac=lambda b: 2 * Kt @ b - np.diag(Kt), method="SLSQP",
                   bounds=[(0, None)] * n,
                   constraints=[{"type": "eq", "fun": lambda b: b.sum() - 1.0,
                                 "jac": lambda b: np.ones(n)}],
                   options={"ftol": 1e-14, "maxiter": 500})
    return -res.fun


def test_radius_margin_value_against_slsqp_sphere_and_dual(data):
    X, y = data
    C = 2.0
    value, _, fitted = criterion_and_gradient(_est("rbf", C), X, y, radius="sphere")
    Kt = RBF(sigma=1.4)(X) + np.eye(N) / C
    R2 = _slsqp_radius2(Kt)
    ay = np.zeros(N)
    ay[fitted.support_] = fitted.dual_coef_[0]          # y_i alpha_i from the solver
    W2 = ay @ Kt @ ay                                    # ||w||^2 from the dual
    assert np.isclose(value, R2 * W2, rtol=1e-4)
    assert np.isclose(sphere_radius2(Kt)[0], R2, rtol=1e-6)


def test_radius_margin_variance_and_margin_independent(data):
    """Variance radius = mean squared distance to the centroid in the explicit feature space of
    K + I/C (linear kernel: (x, e_i / sqrt(C))); ||w||^2 from scikit-learn's hard margin on K + I/C."""
    X, y = data
    C = 0.7
    value, _, fitted = criterion_and_gradient(_est("linear", C), X, y, tune=("C",))
    Phi = np.hstack([X, np.eye(N) / np.sqrt(C)])
    R2 = np.mean(np.sum((Phi - Phi.mean(axis=0)) ** 2, axis=1))
    sk = SkSVC(kernel="precomputed", C=1e8, tol=1e-10).fit(Phi @ Phi.T, y)
    c = sk.dual_coef_[0]
    W2 = c @ (Phi @ Phi.T)[np.ix_(sk.support_, sk.support_)] @ c
    assert np.isclose(value, R2 * W2, rtol=1e-5)
    assert np.isclose(fitted.criterion_info_["W2"], W2, rtol=1e-5)


def test_scales_contraction_against_explicit_kernel_derivatives():
    """64 features: the per-feature contraction equals sum_ij G_ij dK_ij/dlog s_p built from the
    (d, n, n) derivatives of RBF.gradient (only affordable because n is small here)."""
    rng = np.random.default_rng(0)
    n, d = 50, 64
    X = rng.normal(size=(n, d))
    y = (X[:, :4].sum(axis=1) > 0).astype(int)
    s = rng.uniform(0.5, 1.5, size=d)
    est = SVC(margin="l2", C=3.0, sigma=6.0, scales=s, tol=1e-8)
    value, grad, fitted = criterion_and_gradient(est, X, y, tune=("sigma", "scales"))
    info = fitted.criterion_info_
    ay = info["alpha"] * np.where(y == 1, 1.0, -1.0)
    beta = info["beta"]
    G = info["W2"] * (np.diag(beta) - np.outer(beta, beta)) - info["R2"] * np.outer(ay, ay)
    dK = RBF(sigma=6.0, scales=s).gradient(X)
    np.testing.assert_allclose(grad["scales"], np.einsum("ij,pij->p", G, dK["log_scales"]),
                               rtol=1e-8, atol=1e-10 * value)
    assert np.isclose(grad["sigma"], np.sum(G * dK["log_sigma"]), rtol=1e-8)


def test_sphere_radius2_against_slsqp():
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(30, 4))
    K = Z @ Z.T + 0.1 * np.eye(30)
    R2, beta = sphere_radius2(K)
    assert np.isclose(R2, _slsqp_radius2(K), rtol=1e-7)
    assert beta.min() >= 0 and np.isclose(beta.sum(), 1.0)


def test_full_dual_and_warm_start(data):
    X, y = data
    _, _, fitted = criterion_and_gradient(_est("rbf"), X, y)
    a = full_dual(fitted, N)
    assert a.shape == (N,) and a.min() >= 0
    np.testing.assert_allclose(a[fitted.support_], np.abs(fitted.dual_coef_[0]))
    assert np.count_nonzero(a) == fitted.support_.shape[0]
    v1 = criterion_and_gradient(_est("rbf", C=2.1), X, y)[0]
    v2 = criterion_and_gradient(_est("rbf", C=2.1), X, y, alpha_init=a)[0]
    assert np.isclose(v1, v2, rtol=1e-8)
    with pytest.raises(ValueError, match="alpha_init"):
        criterion_and_gradient(_est("rbf"), X, y, alpha_init=np.ones(3))


def test_errors(data):
    X, y = data
    y3 = np.arange(N) % 3
    with pytest.raises(ValueError, match="binary"):
        criterion_and_gradient(_est("rbf"), X, y3)
    with pytest.raises(ValueError, match="margin='l2'.*l1|'C'.*L2"):
        criterion_and_gradient(SVC(margin="l1"), X, y, tune=("C", "sigma"))
    with pytest.raises(ValueError, match="span.*margin='l2'"):
        criterion_and_gradient(SVC(margin="l1"), X, y, "span", tune=("sigma",))
    with pytest.raises(ValueError, match="class_weight"):
        criterion_and_gradient(_est("rbf", class_weight="balanced"), X, y)
    with pytest.raises(ValueError, match="'C'"):
        criterion_and_gradient(SVC(margin="hard"), X, y, tune=("C",))
    with pytest.raises(ValueError, match="tune"):
        criterion_and_gradient(_est("rbf"), X, y, tune=("C", "gamma"))
    with pytest.raises(ValueError, match="tune"):
        criterion_and_gradient(_est("rbf"), X, y, tune=())
    with pytest.raises(ValueError, match="sigma"):
        criterion_and_gradient(_est("linear"), X, y, tune=("sigma",))
    with pytest.raises(ValueError, match="criterion"):
        criterion_and_gradient(_est("rbf"), X, y, criterion="loo")
    with pytest.raises(ValueError, match="radius"):
        criterion_and_gradient(_est("rbf"), X, y, radius="ball")
    with pytest.raises(ValueError, match="span_regularization"):
        criterion_and_gradient(_est("rbf"), X, y, "span", span_regularization=-1)
    with pytest.raises(ValueError, match="scales"):
        criterion_and_gradient(_est("rbf"), X, y, scales=np.ones(D + 1))
    with pytest.raises(ValueError, match="estimator"):
        criterion_and_gradient(SkSVC(), X, y)
    with pytest.raises(ValueError, match="kernel"):
        criterion_and_gradient(SVC(kernel="precomputed", margin="l2"), X @ X.T, y)
