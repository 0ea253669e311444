"""Ellipsoidal VRM (Chapelle's thesis §2.3.2): the fixed point gamma_i = sqrt(w'C_i w)/||w||
checked against finite-difference gradients of the fitted function, its limits (lambda = 0 is
the SVM, the linear kernel a rescaled SVM), and Fig. 2.8 in kind (input-space margins)."""
import numpy as np
import pytest

from kernelnb.prior import EllipsoidalVicinalSVC
from kernelnb.svm import SVC


def _circle(n=10, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, (n, 2))
    return X, (np.sum(X ** 2, axis=1) > 0.5).astype(int)


def _fd_gradients(model, X, h=1e-5):
    G = np.empty(X.shape)
    for j in range(X.shape[1]):
        e = np.zeros(X.shape[1])
        e[j] = h
        G[:, j] = (model.decision_function(X + e) - model.decision_function(X - e)) / (2 * h)
    return G


def _input_margins(model, X, y):
    G = _fd_gradients(model, X)
    return np.where(y == 1, 1.0, -1.0) * model.decision_function(X) / np.linalg.norm(G, axis=1)


def test_zero_weight_is_the_svm():
    X, y = _circle(30, seed=1)
    e = EllipsoidalVicinalSVC(ellipsoid_weight=0.0, sigma=0.7, C=3.0).fit(X, y)
    s = SVC(sigma=0.7, C=3.0).fit(X, y)
    np.testing.assert_array_equal(e.dual_coef_, s.dual_coef_)
    np.testing.assert_array_equal(e.intercept_, s.intercept_)
    assert e.n_fixed_point_iter_ == 0 and e.fixed_point_converged_


def test_n_iter_is_one_count_for_the_one_binary_problem():
    """An int (one problem), the solver iterations of every SVM of the fixed point together:
    without a fixed-point step, those of the one SVM solved."""
    X, y = _circle(30, seed=1)
    e = EllipsoidalVicinalSVC(n_fixed_point=0, sigma=0.7, C=3.0).fit(X, y)
    s = SVC(sigma=0.7, C=3.0).fit(X, y)
    assert isinstance(e.n_iter_, int) and e.n_iter_ == int(s.n_iter_[0])
    more = EllipsoidalVicinalSVC(n_fixed_point=3, sigma=0.7, C=3.0).fit(X, y)
    assert isinstance(more.n_iter_, int) and more.n_iter_ > e.n_iter_
    assert more.n_fixed_point_iter_ >= 1 and more.fit_time_ > 0


def test_linear_kernel_gives_equal_margins_and_the_svm():
    X, _ = _circle(30, seed=2)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0.1).astype(int)
    e = EllipsoidalVicinalSVC(kernel="linear", vicinity_sigma=1.5, ellipsoid_weight=0.6, C=2.0,
                              tol=1e-10, precision="float64").fit(X, y)
    np.testing.assert_allclose(e.margins_, 1.0, rtol=1e-9)       # equal, divided by their mean
    ref = SVC(kernel="linear", C=2.0, tol=1e-10, precision="float64").fit(X, y)
    np.testing.assert_allclose(e.decision_function(X), ref.decision_function(X), atol=1e-7)


def test_the_margins_scale_does_not_change_the_penalty():
    """At lambda = 1 vicinity_sigma scales every raw margin alike: divided by their mean, the
    soft-margin solution is the same for any width (a tiny width would otherwise act as a huge
    C: the case that took minutes on 300 spiral points)."""
    X, y = _circle(40, seed=7)
    y[:3] = 1 - y[:3]                                          # not separable
    fits = [EllipsoidalVicinalSVC(kernel="poly", degree=2, vicinity_sigma=s, C=10.0, tol=1e-8,
                                  precision="float64", n_fixed_point=5).fit(X, y)
            for s in (0.01, 1.0)]
    np.testing.assert_allclose(fits[0].margins_, fits[1].margins_, rtol=1e-6)
    np.testing.assert_allclose(fits[0].decision_function(X), fits[1].decision_function(X),
                               atol=1e-6)
    assert fits[0].margins_.mean() == pytest.approx(1.0)


@pytest.mark.parametrize("kernel, params", [("poly", dict(degree=2)), ("rbf", dict(sigma=0.8))])
def test_fixed_point_margins_match_finite_difference_gradients(kernel, params):
    X, y = _circle(12, seed=3)
    e = EllipsoidalVicinalSVC(kernel=kernel, ellipsoid_weight=0.7, vicinity_sigma=0.8,
                              margin="hard", tol=1e-9, precision="float64",
                              fixed_point_tol=1e-6, n_fixed_point=100, **params).fit(X, y)
    assert e.fixed_point_converged_
    G = _fd_gradients(e, X)
    a = np.zeros(len(y))
    a[e.support_] = e.dual_coef_[0]
    K = e.kernel_(X, X)
    w2 = a @ K @ a
    gam = np.sqrt(0.7 * 0.8 ** 2 / 2 * np.sum(G ** 2, axis=1) / w2 + 0.3)
    gam /= gam.mean()
    np.testing.assert_allclose(e.margins_, gam, rtol=1e-4)
    np.testing.assert_allclose(e.input_margins_, _input_margins(e, X, y), rtol=1e-5)
    # the hard-margin constraints with those margins hold, with equality on the support vectors
    yf = np.where(y == 1, 1.0, -1.0) * e.decision_function(X)
    assert np.all(yf >= e.margins_ - 1e-6)
    np.testing.assert_allclose(yf[e.support_], e.margins_[e.support_], atol=1e-6)


def test_fig_2_8_the_input_space_margin_grows():
    """Ten points, a circular boundary, a degree-2 polynomial kernel: the ellipsoidal vicinities
    give a larger smallest input-space margin than the plain hard-margin SVM."""
    X, y = _circle(10, seed=0)
    svm = SVC(kernel="poly", degree=2, margin="hard", tol=1e-9, precision="float64").fit(X, y)
    e = EllipsoidalVicinalSVC(kernel="poly", degree=2, margin="hard", tol=1e-9,
                              precision="float64").fit(X, y)
    assert e.fixed_point_converged_
    assert e.input_margins_.min() > _input_margins(svm, X, y).min() + 0.02
    assert np.all(e.input_margins_ > 0)


def test_ellipsoid_errors():
    X, y = _circle(20)
    with pytest.raises(ValueError, match="'ellipsoid_weight' parameter of EllipsoidalVicinalSVC"):
        EllipsoidalVicinalSVC(ellipsoid_weight=1.5).fit(X, y)
    with pytest.raises(ValueError, match="precomputed"):
        EllipsoidalVicinalSVC(kernel="precomputed").fit(X @ X.T, y)
    with pytest.raises(ValueError, match="Only binary classification"):
        EllipsoidalVicinalSVC().fit(X, np.arange(20) % 3)
    with pytest.raises(TypeError):
        EllipsoidalVicinalSVC(1.0)                  # keyword-only constructor


def _fd_metric(kernel, x, h=1e-3):
    """g(x) from ||Phi(x + h u) - Phi(x)||^2 = k(x+hu, x+hu) + k(x, x) - 2 k(x+hu, x) ~ h^2 u'gu
    for u = e_1, e_2 and (e_1 + e_2)/sqrt 2: from the kernel's values only."""
    def q1(u):
        a, b = x[None, :], (x + h * u)[None, :]
        return float(kernel(b, b)[0, 0] + kernel(a, a)[0, 0] - 2 * kernel(b, a)[0, 0]) / h ** 2

    def q(u):                        # +u and -u: the h^3 terms cancel
        return (q1(u) + q1(-u)) / 2
    e1, e2 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    g11, g22 = q(e1), q(e2)
    g12 = q((e1 + e2) / np.sqrt(2)) - (g11 + g22) / 2
    return np.array([[g11, g12], [g12, g22]])


@pytest.mark.parametrize("kernel, params", [
    ("poly", dict(degree=2)), ("poly", dict(degree=3, coef0=0.5)), ("rbf", dict(sigma=0.8)),
    ("rbf", dict(sigma=0.8, scales=[1.0, 3.0])), ("linear", {})])
@pytest.mark.parametrize("lam", [0.0, 0.4, 1.0])
def test_vicinity_covariances_are_the_pulled_back_vicinities(kernel, params, lam):
    X, y = _circle(15, seed=4)
    e = EllipsoidalVicinalSVC(kernel=kernel, ellipsoid_weight=lam, vicinity_sigma=0.6,
                              precision="float64", **params).fit(X, y)
    P = X[:6] + 0.1
    S = e.vicinity_covariances(P)
    assert S.shape == (6, 2, 2)
    for p, s in zip(P, S):
        g = _fd_metric(e.kernel_, p)
        ref = lam * 0.6 ** 2 / 2 * np.eye(2) + (1 - lam) * np.linalg.inv(g)
        np.testing.assert_allclose(s, ref, rtol=2e-4, atol=2e-6 * np.abs(ref).max())
    ratio = [np.sqrt(np.linalg.eigvalsh(s)[::-1][0] / np.linalg.eigvalsh(s)[0]) for s in S]
    if lam == 1.0 or kernel == "linear" or (kernel == "rbf" and "scales" not in params):
        np.testing.assert_allclose(ratio, 1.0, rtol=1e-6)          # circles
    else:
        assert min(ratio) > 1.01                                   # ellipses


def test_vicinity_covariances_need_a_fitted_model_and_the_fitted_width():
    from sklearn.exceptions import NotFittedError
    X, y = _circle(12, seed=5)
    with pytest.raises(NotFittedError):
        EllipsoidalVicinalSVC().vicinity_covariances(X)
    e = EllipsoidalVicinalSVC(kernel="poly", degree=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        e.vicinity_covariances(np.c_[X, X])


def test_input_margins_of_any_svc_match_finite_differences_and_refuse_bad_input():
    from kernelnb.prior import input_margins
    X, y = _circle(20, seed=6)
    svm = SVC(kernel="poly", degree=2, C=10.0, precision="float64").fit(X, y)
    np.testing.assert_allclose(input_margins(svm, X, y), _input_margins(svm, X, y), rtol=1e-5)
    labels = np.array(["in", "out"])[y]
    svm_s = SVC(kernel="poly", degree=2, C=10.0, precision="float64").fit(X, labels)
    np.testing.assert_allclose(input_margins(svm_s, X, labels), _input_margins(svm, X, y),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="not fitted on"):
        input_margins(svm_s, X, np.where(y == 1, "out", "elsewhere"))
    with pytest.raises(ValueError, match="shape"):
        input_margins(svm, X, y[:-1])
    three = SVC(kernel="linear").fit(np.r_[X, X + 3], np.r_[y, np.full(20, 2)])
    with pytest.raises(ValueError, match="two-class"):
        input_margins(three, X, y)
