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


def test_linear_kernel_gives_equal_margins_and_a_rescaled_svm():
    X, _ = _circle(30, seed=2)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0.1).astype(int)
    lam, s = 0.6, 1.5
    e = EllipsoidalVicinalSVC(kernel="linear", vicinity_sigma=s, ellipsoid_weight=lam, C=2.0,
                              tol=1e-10, precision="float64").fit(X, y)
    c = np.sqrt(lam * s ** 2 / 2 + 1 - lam)
    np.testing.assert_allclose(e.margins_, c, rtol=1e-9)
    ref = SVC(kernel="linear", C=2.0 / c ** 2, tol=1e-10, precision="float64").fit(X, y)
    np.testing.assert_allclose(e.decision_function(X), c * ref.decision_function(X), atol=1e-7)


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
