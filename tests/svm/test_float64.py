"""The exact path (``precision='float64'``): the solver reads float64 kernel rows, so its optimum
is exact to float64 rounding, where the float32 path is exact only to float32's."""
import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from kernelnb import datasets
from kernelnb.svm import SVC, SVR

from .conftest import assert_kkt, kernel_matrix, sklearn_params, svc_dual_objective
from .test_svr import svr_dual_objective


def _full(coef, support, n):
    out = np.zeros(n)
    out[support] = coef
    return out


def _moons():
    return make_moons(300, noise=0.3, random_state=0)


def _cancer():
    X, y = datasets.load_breast_cancer()
    return StandardScaler().fit_transform(X), y


CASES = {
    "moons-rbf": (_moons, dict(C=10.0, sigma=0.5)),
    "moons-linear": (_moons, dict(C=1.0, kernel="linear")),
    "moons-poly": (lambda: (StandardScaler().fit_transform(_moons()[0]), _moons()[1]),
                   dict(C=1.0, kernel="poly", degree=3, coef0=1.0)),
    "breast-cancer": (_cancer, dict(C=10.0, sigma="scale")),
}


@pytest.mark.parametrize("q", [2, 16])
@pytest.mark.parametrize("case", sorted(CASES))
def test_float64_kkt_hold_in_float64_at_a_tight_tolerance(case, q):
    make, params = CASES[case]
    X, y = make()
    model = SVC(tol=1e-9, precision="float64", q=q, **params).fit(X, y)
    assert model.fit_status_ == 0
    K = kernel_matrix(model, X)
    ours = svc_dual_objective(_full(model.dual_coef_[0], model.support_, len(y)), K)
    # the reported objective is the float64 dual's, to rounding (float32 rows: ~1e-7)
    assert abs(model.objective_ - ours) <= 1e-12 * abs(ours)
    assert_kkt(model, X, y, tol_factor=2.0)     # margins within 2e-9 of their KKT values


@pytest.mark.parametrize("case", sorted(CASES))
def test_float64_matches_libsvm_tighter(case):
    """LIBSVM caches float kernel values, so it is the reference only to about 1e-6."""
    make, params = CASES[case]
    X, y = make()
    model = SVC(tol=1e-6, precision="float64", **params).fit(X, y)
    ref = SkSVC(**sklearn_params(model)).fit(X, y)
    K = kernel_matrix(model, X)
    ours = svc_dual_objective(_full(model.dual_coef_[0], model.support_, len(y)), K)
    theirs = svc_dual_objective(_full(ref.dual_coef_[0], ref.support_, len(y)), K)
    assert abs(ours - theirs) <= 1e-6 * abs(theirs)      # float32 path's test: 1e-3
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X),
                               atol=1e-3 * max(1.0, np.abs(ref.decision_function(X)).max()))
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


def test_float64_precomputed_callable_and_explicit_kernels_agree():
    X, y = _moons()
    base = SVC(C=3.0, sigma=0.6, tol=1e-9, precision="float64").fit(X, y)
    K = kernel_matrix(base, X)
    pre = SVC(C=3.0, kernel="precomputed", tol=1e-9, precision="float64").fit(K, y)
    gamma = 1 / (2 * 0.6 ** 2)
    func = SVC(C=3.0, tol=1e-9, precision="float64",
               kernel=lambda A, B: np.exp(-gamma * ((A[:, None] - B[None]) ** 2).sum(-1))).fit(X, y)
    for other, Xp in ((pre, K), (func, X)):
        assert abs(other.objective_ - base.objective_) <= 1e-10 * abs(base.objective_)
        np.testing.assert_allclose(other.decision_function(Xp), base.decision_function(X), atol=1e-7)
    # float32 input data is solved in float64 all the same
    f32 = SVC(C=3.0, sigma=0.6, tol=1e-9, precision="float64").fit(X.astype(np.float32), y)
    assert abs(f32.objective_ - base.objective_) <= 1e-6 * abs(base.objective_)


def test_float64_svr_is_exact():
    rng = np.random.RandomState(0)
    X = rng.uniform(-5, 5, size=(300, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.randn(300)
    for q in (2, 8):
        model = SVR(C=10.0, epsilon=0.05, sigma=0.7, tol=1e-9, precision="float64", q=q).fit(X, y)
        K = kernel_matrix(model, X)
        c = _full(model.dual_coef_[0], model.support_, len(y))
        assert abs(svr_dual_objective(c, K, y, 0.05) - model.objective_) <= 1e-12 * abs(model.objective_)
        r = y - model.predict(X)
        free = (np.abs(c) > 1e-12) & (np.abs(c) < 10.0 * (1 - 1e-12))
        np.testing.assert_allclose(np.abs(r[free]), 0.05, atol=2e-9)


@pytest.mark.parametrize("value", ["double", 64, None])
def test_bad_precision_raises(value):
    X, y = _moons()
    with pytest.raises(ValueError, match="'precision' parameter of SVC must be"):
        SVC(precision=value).fit(X, y)
