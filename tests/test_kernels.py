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


def _expansion_reference(X, S, C, mu, gamma, scales=None):
    """The Gaussian expansion from its definition, in numpy: explicit differences, np.exp."""
    s = np.ones(X.shape[1]) if scales is None else scales
    D = (((X * s - mu)[:, None, :] - (S * s - mu)[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-gamma * D) @ C


@pytest.mark.parametrize("d", [1, 6, 16, 17, 40])
@pytest.mark.parametrize("n_outputs", [None, 3])
def test_expansion_dot_matches_numpy(d, n_outputs):
    """KernelExpansion.dot (fused: direct differences up to 16 features, blocks of the BLAS
    product beyond) against explicit differences, with support-vector blocks of several sizes
    (600 vectors: two full blocks of 256 and a partial one), a row count that is not a multiple
    of the row chunk, scales, and one or several outputs."""
    rng = np.random.default_rng(d)
    S = rng.normal(2.0, 1.5, size=(600, d))
    X = rng.normal(2.0, 1.5, size=(77, d))
    C = rng.normal(size=(600,) if n_outputs is None else (600, n_outputs))
    scales = rng.uniform(0.5, 1.5, size=d)
    kern = K.KernelSpec(sigma=0.8 * np.sqrt(d), scales=scales).fit(S)
    exp = K.KernelExpansion(kern, S, C)
    assert exp.direct == (d <= K.DIRECT_FEATURES)
    ref = _expansion_reference(X, S, C, kern.center, kern.gamma, scales)
    out = exp(X)
    assert out.shape == ref.shape and out.dtype == np.float64
    # float64 throughout: the error is a few ulps of the sum of |coef| (at most 600 * 4)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12 * np.abs(C).sum(axis=0).max())
    # the same values as the kernel blocks multiplied by the coefficients
    blocks = np.concatenate([Kb for _, Kb in exp.blocks(X)]) @ C
    np.testing.assert_allclose(out, blocks, rtol=0, atol=1e-11 * np.abs(C).sum(axis=0).max())
    # a row's value does not depend on its batch (exactly so on the direct path; BLAS may sum a
    # lone row's products in another order)
    if exp.direct:
        np.testing.assert_array_equal(exp(X[5:6]), out[5:6])
    else:
        np.testing.assert_allclose(exp(X[5:6]), out[5:6], rtol=1e-14, atol=1e-14)


def test_fused_passes_against_numpy():
    """The two Cython passes behind KernelExpansion.dot, on their own."""
    from kernelnb import _kernels
    rng = np.random.default_rng(1)
    X, S = rng.normal(size=(70, 5)), rng.normal(size=(530, 5))
    mu = rng.normal(size=5)
    C = rng.normal(size=(2, 530))
    ref = np.exp(-0.3 * (((X - mu)[:, None] - S[None]) ** 2).sum(axis=2)) @ C.T
    out = np.empty((70, 2))
    _kernels.rbf_direct_dot(X, mu, np.ascontiguousarray(S.T), C, 0.3, out)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12 * np.abs(C).sum())
    Xc = X - mu
    for threads, block in ((1, 256), (2, 16), (3, 7)):     # one block, several, a partial one
        out2 = np.full((70, 2), np.nan)
        _kernels.rbf_gemm_dot(Xc, (Xc ** 2).sum(1), S, (S ** 2).sum(1), 0.3, C, out2, threads,
                              block)
        np.testing.assert_allclose(out2, ref, rtol=0, atol=1e-12 * np.abs(C).sum())
    with pytest.raises(ValueError, match="do not match"):
        _kernels.rbf_direct_dot(X, mu[:4], np.ascontiguousarray(S.T), C, 0.3, out)
    with pytest.raises(ValueError, match="do not match"):
        _kernels.rbf_gemm_dot(Xc, (Xc ** 2).sum(1), S, (S ** 2).sum(1)[:9], 0.3, C, out2)


def test_expansion_dot_far_rows_and_errors():
    """Rows far from the support vectors get 0 (no overflow warning turned error, no NaN);
    a coefficient array of the wrong length is refused with its shape."""
    rng = np.random.default_rng(2)
    S = rng.normal(size=(50, 3))
    exp = K.KernelExpansion(K.KernelSpec(sigma=1.0).fit(S), S)
    out = exp.dot(np.array([[1e200, 0.0, 0.0], [0.0, 0.0, 0.0]]), np.ones(50))
    assert out[0] == 0.0 and np.isfinite(out[1]) and out[1] > 0
    with pytest.raises(ValueError, match=r"coef must have shape \(50,\)"):
        exp.dot(S, np.ones(49))


def test_expansion_positive_matches_float64_signs():
    """KernelExpansion.positive (float32 product, error bound, float64 for the rows it cannot
    settle) gives the signs of dot(X, coef) + offset, also for values a float32 product cannot
    resolve: offsets placed 1e-12 from some rows' values."""
    rng = np.random.default_rng(3)
    d = 40
    S = rng.normal(1.0, 1.0, size=(300, d))
    X = rng.normal(1.0, 1.0, size=(90, d))
    C = rng.normal(size=(300, 2))
    exp = K.KernelExpansion(K.KernelSpec(sigma=0.5 * np.sqrt(d)).fit(S), S)
    assert not exp.direct
    v = exp.dot(X, C)
    for offset in (np.array([0.1, -0.2]), -v[7] + np.array([1e-12, -1e-12]),
                   -v[30] - np.array([1e-12, -1e-12])):
        pos = exp.positive(X, C, offset)
        assert pos.shape == (90, 2) and pos.dtype == bool
        np.testing.assert_array_equal(pos, v + offset > 0)
    # few features (direct path) and a single output: the signs of dot as well
    S2, X2 = S[:, :5], X[:, :5]
    exp2 = K.KernelExpansion(K.KernelSpec(sigma=1.0).fit(S2), S2)
    np.testing.assert_array_equal(exp2.positive(X2, C[:, :1], [0.0])[:, 0],
                                  exp2.dot(X2, C[:, 0]) > 0)


def test_expansion_without_support_vectors_is_zero():
    """An expansion on no support vectors (a model whose duals are all 0) is 0 everywhere."""
    exp = K.KernelExpansion(K.RBF(sigma=1.0, center=np.zeros(3)), np.empty((0, 3)))
    X = np.ones((4, 3))
    np.testing.assert_array_equal(exp.dot(X, np.empty(0)), np.zeros(4))
    np.testing.assert_array_equal(exp.dot(X, np.empty((0, 2))), np.zeros((4, 2)))
    np.testing.assert_array_equal(exp.positive(X, np.empty((0, 2)), [1.0, -1.0]),
                                  np.tile([True, False], (4, 1)))


def test_scale_width_with_weights_is_that_of_repeated_rows():
    # a row of weight 2 counts as the row given twice; zero weight as the row removed
    from kernelnb.kernels import scale_sigma
    rng = np.random.default_rng(5)
    X = rng.normal(size=(7, 3)) * [1.0, 3.0, 0.5] + 2.0
    w = np.array([2, 0, 1, 3, 1, 1, 0])
    repeated = np.repeat(X, w, axis=0)
    assert scale_sigma(X, w) == pytest.approx(scale_sigma(repeated), rel=1e-12)
    assert scale_sigma(X, np.ones(7)) == pytest.approx(scale_sigma(X), rel=1e-12)
    assert scale_sigma(repeated) == pytest.approx(np.sqrt(3 * repeated.var() / 2), rel=1e-12)
