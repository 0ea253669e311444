"""One kernel specification and one block evaluator (kernelnb.kernels.KernelSpec,
KernelExpansion): values against scikit-learn's pairwise kernels, sigma='scale' resolved the same
way by every estimator, centring on the training mean, extreme widths and huge rows."""
import numpy as np
import pytest
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from kernelnb import _kernels
from kernelnb import kernels as K
from kernelnb.kmp import KMPClassifier, KMPRegressor
from kernelnb.model_selection import GradientTuner, criterion_and_gradient
from kernelnb.regularized import RegularizedKernelClassifier
from kernelnb.ridge import KernelRidge, KernelRidgeCV
from kernelnb.svm import SVC, SVR


@pytest.fixture
def data():
    rng = np.random.RandomState(3)
    X = rng.randn(60, 4) * np.array([1.0, 3.0, 0.5, 2.0]) + 4.0
    y = np.where(X[:, 0] + 0.3 * X[:, 1] + 0.4 * rng.randn(60) > 5.0, 1, -1)
    T = rng.randn(15, 4) * 2.0 + 4.0
    return X, y, T


def _sklearn_scale_sigma(X):
    """The width of scikit-learn's gamma='scale': gamma = 1 / (n_features Var X), written from
    its definition (sigma = sqrt(1 / (2 gamma)))."""
    gamma = 1.0 / (X.shape[1] * X.var())
    return np.sqrt(1.0 / (2.0 * gamma))


# -- values ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 3e-6)])
def test_expansion_blocks_match_sklearn(data, dtype, tol):
    X, _, T = data
    s = np.array([1.0, 0.3, 2.0, 0.7])
    kern = K.KernelSpec(sigma=2.5, scales=s).fit(X)
    ex = K.KernelExpansion(kern, X[:20], dtype=dtype)
    blocks = list(ex.blocks(T))
    Kb = np.vstack([b for _, b in blocks])
    assert Kb.dtype == dtype
    ref = rbf_kernel(T * s, X[:20] * s, gamma=1 / (2 * 2.5 ** 2))
    np.testing.assert_allclose(Kb, ref, atol=tol, rtol=0)
    coef = np.linspace(-1, 1, 20)
    np.testing.assert_allclose(K.KernelExpansion(kern, X[:20], coef, dtype=dtype)(T), ref @ coef,
                               atol=50 * tol, rtol=0)


@pytest.mark.parametrize("offset, centres", [(0.0, False), (4.0, False), (1e4, True),
                                             (1e8, True)])
def test_float64_blocks_copy_rows_only_far_from_the_centre(offset, centres):
    """Gaussian float64 blocks multiply the rows as they are by the centred support vectors
    where the training mean is near the origin (relative to the support vectors' spread), and
    centre a copy of the rows further out, where the uncentred product would lose the distances
    to cancellation (at 1e8 it would be wrong from the eighth digit on)."""
    rng = np.random.RandomState(0)
    X = rng.randn(80, 5) * np.array([1.0, 2.0, 0.5, 3.0, 1.0]) + offset
    T = rng.randn(30, 5) * 2.0 + offset
    kern = K.KernelSpec(sigma=2.0).fit(X)
    ex = K.KernelExpansion(kern, X[:25])
    assert ex.centres_rows is centres
    assert K.KernelExpansion(kern, X[:25], dtype=np.float32).centres_rows
    Kb = np.vstack([b for _, b in ex.blocks(T)])
    d2 = ((T[:, None, :] - X[None, :25, :]) ** 2).sum(axis=-1)     # from the differences
    np.testing.assert_allclose(Kb, np.exp(-d2 / 8.0), rtol=1e-10, atol=1e-15)


def test_row_norms_computed_once_for_several_expansions():
    """Rows met by several expansions of one fitted kernel (the incomplete Cholesky's batches)
    give their norms once: the blocks are the same; an expansion that copies its rows, or a
    kernel other than the Gaussian, has no use for them."""
    rng = np.random.RandomState(2)
    X = rng.randn(90, 6) + 2.0
    kern = K.KernelSpec(sigma=1.5).fit(X)
    first, second = K.KernelExpansion(kern, X[:7]), K.KernelExpansion(kern, X[40:52])
    xn = first.row_norms(X)
    np.testing.assert_allclose(xn, ((X - X.mean(axis=0)) ** 2).sum(axis=1), rtol=1e-12)
    for ex in (first, second):
        np.testing.assert_array_equal(np.vstack([b for _, b in ex.blocks(X, row_norms=xn)]),
                                      np.vstack([b for _, b in ex.blocks(X)]))
    far = K.KernelSpec(sigma=1.5).fit(X + 1e6)
    assert K.KernelExpansion(far, X[:7] + 1e6).row_norms(X + 1e6) is None
    assert K.KernelExpansion(K.KernelSpec(kernel="linear").fit(X), X[:7]).row_norms(X) is None
    # without a training mean each expansion centres on its own support vectors: no sharing
    assert K.KernelExpansion(K.RBF(sigma=1.5), X[:7]).row_norms(X) is None


def test_centred_sqnorms():
    rng = np.random.RandomState(1)
    X = rng.randn(37, 11) + 3.0
    mu = rng.randn(11)
    out = np.empty(37)
    _kernels.centred_sqnorms(X, mu, out)
    np.testing.assert_allclose(out, ((X - mu) ** 2).sum(axis=1), rtol=1e-13)
    empty = np.empty(37)
    _kernels.centred_sqnorms(np.empty((37, 0)), np.empty(0), empty)
    np.testing.assert_array_equal(empty, 0.0)
    with pytest.raises(ValueError, match="one entry per column"):
        _kernels.centred_sqnorms(X, mu[:5], out)


def test_polynomial_default_is_one_plus_dot(data):
    X, _, T = data
    kern = K.KernelSpec(kernel="poly", degree=3).fit(X)
    ref = polynomial_kernel(T / 4, X / 4, degree=3, gamma=1.0, coef0=1.0)
    np.testing.assert_allclose(kern(T / 4, X / 4), ref, rtol=1e-12)
    np.testing.assert_allclose(np.vstack([b for _, b in K.KernelExpansion(kern, X / 4).blocks(T / 4)]),
                               ref, rtol=1e-12)
    for est in (SVC(), SVR(), KMPClassifier(), KMPRegressor(), KernelRidge(),
                RegularizedKernelClassifier()):
        assert est.get_params()["coef0"] == 1.0, type(est).__name__


def test_float32_pass_matches_exp():
    """The shared vectorised pass (kernelnb._rbf_pass) keeps float32 accuracy over the whole
    range of the exponent (a compiler that folded its rounding trick would be off by 100%)."""
    t = np.linspace(0.0, 80.0, 20001).astype(np.float32)
    G = np.zeros((1, t.size), dtype=np.float32)
    _kernels.rbf_from_gram(G, np.zeros(1, np.float32), t, 1.0)
    ref = np.exp(-t.astype(np.float64))
    assert np.max(np.abs(G[0] - ref) / ref) < 5e-7


def test_float64_pass_matches_exp():
    """The float64 pass (polynomial exp, not libm) stays within 2 ulp of numpy's exp from 0 to
    the underflow, gives exactly 1 at distance 0, libm's denormals near -745 and 0 beyond, and
    propagates NaN."""
    rng = np.random.default_rng(0)
    t = np.concatenate([np.linspace(0.0, 800.0, 200001), rng.exponential(3.0, 100000),
                        [0.0, 5e-324, 1e-300, 744.0, 745.0, 746.0, 1e5, np.inf, np.nan]])
    for gamma in (1.0, 0.37):
        G = np.zeros((1, t.size))
        _kernels.rbf_from_gram(G, np.zeros(1), t, gamma)
        with np.errstate(invalid="ignore"):
            ref = np.exp(-gamma * t)
        normal = ref > np.finfo(np.float64).tiny
        rel = np.abs(G[0, normal] - ref[normal]) / ref[normal]
        assert rel.max() <= 2.5 * np.finfo(np.float64).eps
        small = ~normal & ~np.isnan(ref)
        assert np.max(np.abs(G[0, small] - ref[small])) < 1e-315
        assert G[0, 0] == 1.0 and G[0, -3] == 0.0 and np.isnan(G[0, -1])

# -- one place of resolution ---------------------------------------------------------------------
def test_scale_sigma_is_resolved_once_for_every_estimator(data):
    X, y, _ = data
    s = np.array([1.0, 0.5, 2.0, 1.5])
    want = _sklearn_scale_sigma(X * s)
    spec = K.KernelSpec(sigma="scale", scales=s)
    assert spec.resolve_sigma(X) == pytest.approx(want, rel=1e-12)
    fitted = {
        "SVC": SVC(sigma="scale", scales=s).fit(X, y).sigma_,
        "SVR": SVR(sigma="scale", scales=s).fit(X, y.astype(float)).sigma_,
        "KMPClassifier": KMPClassifier(n_basis=5, sigma="scale", scales=s).fit(X, y).sigma_,
        "KMPRegressor": KMPRegressor(n_basis=5, sigma="scale", scales=s).fit(X, y * 1.0).sigma_,
        "KernelRidge": KernelRidge(sigma="scale", scales=s).fit(X, y * 1.0).sigma_,
        # the grid is 'scale' times {1/4, ..., 4}: the chosen width divided by its factor
        "KernelRidgeCV": KernelRidgeCV(alphas=[1.0], scales=s).fit(X, y * 1.0).sigma_
                         / np.array([0.25, 0.5, 1, 2, 4]),
        "RegularizedKernelClassifier":
            RegularizedKernelClassifier(sigma="scale", scales=s).fit(X, y).sigma_,
    }
    for name, sigma in fitted.items():
        assert np.any(np.isclose(sigma, want, rtol=1e-12)), (name, sigma, want)
    est = SVC(sigma="scale", scales=s, margin="l2", C=1.0)
    _, _, model = criterion_and_gradient(est, X, y, tune=("sigma",))
    assert model.criterion_info_["sigma"] == pytest.approx(want, rel=1e-12)
    tuner = GradientTuner(est, tune=("sigma",), max_iter=1).fit(X, y)
    assert tuner.history_[0]["sigma"] == pytest.approx(want, rel=1e-12)


def test_regularized_classifier_uses_scales(data):
    X, y, T = data
    s = np.array([1.0, 0.0, 0.0, 0.0])
    a = RegularizedKernelClassifier(sigma=1.0, scales=s).fit(X, y)
    T2 = T.copy()
    T2[:, 1:] += 10.0  # features with scale 0 cannot change the decision
    np.testing.assert_allclose(a.decision_function(T2), a.decision_function(T), rtol=1e-10)
    b = RegularizedKernelClassifier(sigma=1.0).fit(X, y)
    assert not np.allclose(b.decision_function(T2), b.decision_function(T))


# -- centring on the training mean ---------------------------------------------------------------
def test_rbf_is_centred_on_the_training_mean(data):
    X, _, T = data
    s = np.array([1.0, 0.3, 2.0, 0.7])
    kern = K.KernelSpec(sigma=3.0, scales=s).fit(X)
    np.testing.assert_allclose(kern.center, (X * s).mean(axis=0), rtol=1e-12)
    # A large (finite) row in the batch: centring on the batch mean would move every row of the
    # batch far from the origin, and float32 would lose the other rows' distances to
    # cancellation.  Centred on the training mean, the other rows keep their values.
    big = np.vstack([T, np.full((1, T.shape[1]), 1e6)])
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 2e-6)):
        ref = rbf_kernel(T * s, X * s, gamma=1 / 18)
        got = kern(big.astype(dtype), X.astype(dtype))[:T.shape[0]]
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol)
        ex = K.KernelExpansion(kern, X, np.ones(X.shape[0]), dtype=dtype)
        np.testing.assert_allclose(ex(big)[:T.shape[0]], ref.sum(axis=1), rtol=10 * rtol)
        rows = np.concatenate([ex(T[i:i + 1]) for i in range(T.shape[0])])
        np.testing.assert_allclose(ex(T), rows, rtol=rtol)


@pytest.mark.parametrize("make", [
    lambda: KMPClassifier(n_basis=8, sigma=2.0, precision="float32"),
    lambda: KMPClassifier(n_basis=8, sigma=2.0),
    lambda: SVC(sigma=2.0),
    lambda: KernelRidge(sigma=2.0),
    lambda: RegularizedKernelClassifier(sigma=2.0),
])
def test_prediction_of_a_row_does_not_depend_on_its_batch(data, make):
    X, y, T = data
    est = make().fit(X, y)
    f = est.decision_function if hasattr(est, "decision_function") else est.predict
    batch = f(T)
    single = np.concatenate([np.atleast_1d(f(T[i:i + 1])) for i in range(T.shape[0])])
    np.testing.assert_allclose(batch, single, rtol=1e-12, atol=1e-12)


# -- extreme widths ------------------------------------------------------------------------------
@pytest.mark.parametrize("sigma", [1e-300, 1e300, 1e-160, 1e160, 0.0, -1.0, np.inf, np.nan])
@pytest.mark.parametrize("make", [
    lambda s: SVC(sigma=s), lambda s: SVR(sigma=s), lambda s: KMPClassifier(n_basis=3, sigma=s),
    lambda s: KernelRidge(sigma=s), lambda s: RegularizedKernelClassifier(sigma=s),
])
def test_extreme_sigma_is_a_value_error_naming_sigma(data, make, sigma):
    X, y, _ = data
    with pytest.raises(ValueError, match="sigma"):
        make(sigma).fit(X, y)


def test_extreme_sigma_in_conversions_and_grids(data):
    X, y, _ = data
    for bad in (1e-300, 1e300):
        with pytest.raises(ValueError, match="sigma"):
            K.gamma_from_sigma(bad)
        with pytest.raises(ValueError, match="sigma"):
            K.RBF(sigma=bad)
        with pytest.raises(ValueError, match="sigma"):
            KernelRidgeCV(sigmas=[1.0, bad]).fit(X, y * 1.0)
    with pytest.raises(ValueError, match="gamma"):
        K.sigma_from_gamma(0.0)
    with pytest.raises(ValueError, match="sigma"):
        K.sigma_from_gamma(1e-320)
    # float32 solvers need 1/(2 sigma^2) to be a normal float32 number
    with pytest.raises(ValueError, match="sigma.*float32"):
        SVC(sigma=1e-20).fit(X, y)
    assert SVC(sigma=1e-20, precision="float64").fit(X, y).sigma_ == 1e-20
    assert K.check_sigma(1e10) == 1e10


# -- huge rows in a batch ------------------------------------------------------------------------
@pytest.mark.parametrize("make, target", [
    (lambda: SVC(sigma=2.0), "class"),
    (lambda: SVR(sigma=2.0), "real"),
    (lambda: KMPClassifier(n_basis=8, sigma=2.0), "class"),
    (lambda: KMPClassifier(n_basis=8, sigma=2.0, precision="float32"), "class"),
    (lambda: KMPRegressor(n_basis=8, sigma=2.0), "real"),
    (lambda: KernelRidge(sigma=2.0), "real"),
    (lambda: RegularizedKernelClassifier(sigma=2.0), "class"),
])
def test_a_huge_row_does_not_poison_the_others(data, make, target):
    X, y, T = data
    est = make().fit(X, y if target == "class" else y * 1.0 + 0.1 * X[:, 0])
    f = est.decision_function if hasattr(est, "decision_function") else est.predict
    before = f(T)
    # Large rows the input check accepts: centring on the batch mean would shift every row of
    # the batch by about 2e7 and lose its distances to cancellation (decision values changed by
    # about 100% when KMP and KernelRidge centred on the batch).
    large = np.vstack([T, np.full((1, T.shape[1]), 1e8), np.full((1, T.shape[1]), 2e8)])
    after = f(large)
    np.testing.assert_allclose(after[:T.shape[0]], before, rtol=1e-12, atol=1e-12)
    assert np.all(np.isfinite(after))
    # The large rows are far from every training point: their kernel values vanish, leaving
    # the bias alone (the same for both).
    far = after[T.shape[0]:]
    np.testing.assert_allclose(far[0], far[1], atol=1e-12)
    if target == "class":
        np.testing.assert_array_equal(est.predict(large)[:T.shape[0]], est.predict(T))
    # 1e300: the estimators' input check may refuse the batch, naming X (kernelnb._validation);
    # what it lets through must leave the other rows as they are.
    huge = np.vstack([T, np.full((1, T.shape[1]), 1e300)])
    try:
        with np.errstate(all="raise"):
            out = f(huge)
    except ValueError as exc:
        assert "X" in str(exc)
    else:
        np.testing.assert_allclose(out[:T.shape[0]], before, rtol=1e-12, atol=1e-12)
        assert np.all(np.isfinite(out))


@pytest.mark.parametrize("dtype, kind", [(np.float64, "rbf"), (np.float32, "rbf"),
                                         (np.float64, "scale")])
def test_expansion_rows_of_1e300(data, dtype, kind):
    """The block evaluator itself (no input check in front of it): rows of +-1e300 get kernel
    values 0 and leave every other row of their block unchanged, in float32 and float64."""
    X, _, T = data
    spec = K.KernelSpec(sigma="scale" if kind == "scale" else 2.0)
    kern = spec.fit(X)
    ex = K.KernelExpansion(kern, X, np.linspace(-1, 1, X.shape[0]), dtype=dtype)
    before = ex(T)
    huge = np.vstack([T[:7], np.full((1, 4), 1e300), -np.full((1, 4), 1e300), T[7:]])
    with np.errstate(all="raise"):
        after = ex(huge)
    rtol = 1e-12 if dtype == np.float64 else 2e-6   # a block's rounding depends on its shape
    np.testing.assert_allclose(np.delete(after, [7, 8]), before, rtol=rtol,
                               atol=rtol * np.abs(before).max())
    np.testing.assert_array_equal(after[7:9], 0.0)
    Kb = np.vstack([b for _, b in ex.blocks(huge)])
    assert np.all(np.isfinite(Kb)) and np.all(Kb[7:9] == 0.0)
    with np.errstate(all="raise"):
        G = kern(huge, X)
    np.testing.assert_array_equal(G[7:9], 0.0)
    np.testing.assert_allclose(np.delete(G, [7, 8], axis=0), kern(T, X), rtol=1e-12)


def test_rbf_expansion_for_block_prediction(data):
    """The API a float32 predictor (the mixture's experts) calls: support vectors, coefficients,
    sigma and the training mean."""
    X, y, T = data
    svc = SVC(sigma=2.0, C=10.0).fit(X, y)
    want = svc.decision_function(T) - svc.intercept_[0]
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-5)):
        ex = K.rbf_expansion(svc.support_vectors_, svc.dual_coef_[0], svc.sigma_,
                             center=svc.kernel_.center, dtype=dtype)
        got = ex(T)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
    with pytest.raises(ValueError, match="sigma"):
        K.rbf_expansion(svc.support_vectors_, svc.dual_coef_[0], 1e-25, dtype=np.float32)
