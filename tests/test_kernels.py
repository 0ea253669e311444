"""Kernel blocks against scikit-learn's pairwise kernels; gradients against finite differences."""
import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from kernelnb import kernels as K


@pytest.fixture
def XY():
    rng = np.random.RandomState(0)
    return rng.randn(40, 6) * 3 + 5, rng.randn(25, 6) * 3 + 5


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_rbf_block_matches_sklearn(XY, dtype, tol):
    X, Y = XY
    s = np.array([1.0, 0.5, 2.0, 0.0, 1.5, 1.0])
    kern = K.RBF(sigma=1.7, scales=s)
    ref = rbf_kernel(X * s, Y * s, gamma=1 / (2 * 1.7 ** 2))
    out = kern(X.astype(dtype), Y.astype(dtype))
    assert out.dtype == dtype
    np.testing.assert_allclose(out, ref, atol=tol)
    sym = kern(X.astype(dtype))
    np.testing.assert_allclose(np.diag(sym), 1.0)
    np.testing.assert_allclose(sym, sym.T, atol=tol)


def test_linear_and_polynomial_blocks(XY):
    X, Y = XY
    np.testing.assert_allclose(K.Linear()(X, Y), linear_kernel(X, Y), rtol=1e-12)
    poly = K.Polynomial(degree=3, coef0=1.0)
    np.testing.assert_allclose(poly(X, Y), polynomial_kernel(X, Y, degree=3, gamma=1.0, coef0=1),
                               rtol=1e-10)
    np.testing.assert_allclose(poly.diag(X), np.diag(poly(X)), rtol=1e-10)
    np.testing.assert_allclose(K.Linear().diag(X), np.diag(K.Linear()(X)), rtol=1e-12)


def test_rbf_matrix_is_positive_semidefinite(XY):
    X, _ = XY
    eig = np.linalg.eigvalsh(K.RBF(sigma=2.0)(X))
    assert eig.min() > -1e-10


def test_sigma_gamma_conversions():
    assert K.gamma_from_sigma(2.0) == pytest.approx(1 / 8)
    assert K.sigma_from_gamma(K.gamma_from_sigma(0.3)) == pytest.approx(0.3)
    X = np.random.RandomState(1).rand(50, 4)
    g = 1.0 / (4 * X.var())
    assert K.gamma_from_sigma(K.scale_sigma(X)) == pytest.approx(g)


def test_gradients_match_finite_differences(XY):
    X, Y = XY
    X, Y = X[:8] / 3, Y[:6] / 3
    s = np.array([1.0, 0.5, 2.0, 0.3, 1.5, 1.0])
    kern = K.RBF(sigma=1.3, scales=s)
    g = kern.gradient(X, Y)
    h = 1e-6
    up = K.RBF(sigma=1.3 * np.exp(h), scales=s)(X, Y)
    dn = K.RBF(sigma=1.3 * np.exp(-h), scales=s)(X, Y)
    np.testing.assert_allclose(g["log_sigma"], (up - dn) / (2 * h), atol=1e-7)
    assert g["log_scales"].shape == (6, 8, 6)
    for p in range(6):
        su, sd = s.copy(), s.copy()
        su[p] *= np.exp(h)
        sd[p] *= np.exp(-h)
        fd = (K.RBF(1.3, su)(X, Y) - K.RBF(1.3, sd)(X, Y)) / (2 * h)
        np.testing.assert_allclose(g["log_scales"][p], fd, atol=1e-7)


def test_make_kernel_and_errors():
    assert isinstance(K.make_kernel("rbf", sigma=2.0), K.RBF)
    assert isinstance(K.make_kernel("linear"), K.Linear)
    assert isinstance(K.make_kernel("poly", degree=2), K.Polynomial)
    assert isinstance(K.make_kernel("precomputed"), K.Precomputed)
    assert isinstance(K.make_kernel(lambda a, b: a @ b.T), K.CallableKernel)
    with pytest.raises(ValueError, match="kernel must be one of"):
        K.make_kernel("gauss")
    with pytest.raises(ValueError, match="The 'sigma' parameter of the RBF kernel must be"):
        K.RBF(sigma=0.0)
    with pytest.raises(ValueError, match="The 'sigma' parameter of the RBF kernel must be"):
        K.RBF(sigma=np.nan)
    with pytest.raises(ValueError, match="scales must be finite"):
        K.RBF(scales=[1.0, -1.0])
    with pytest.raises(ValueError, match="degree"):
        K.Polynomial(degree=0)
    with pytest.raises(ValueError, match="scales has 3 entries"):
        K.RBF(scales=[1.0, 1.0, 1.0])(np.ones((2, 2)))
    with pytest.raises(ValueError, match="returned shape"):
        K.CallableKernel(lambda a, b: np.ones((1, 1)))(np.ones((3, 2)))
    with pytest.raises(ValueError, match="2-D"):
        K.Linear()(np.ones(3))
