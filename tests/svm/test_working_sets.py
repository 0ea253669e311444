"""SVMTorch's q-variable working sets (``q`` > 2) against LIBSVM and against the pair path.

The working-set path stops on the same KKT rule as the pair path, so it must reach LIBSVM's
optimum within the tolerances of ``test_svc.py``, whatever q, kernel, C and weights."""
import numpy as np
import pytest
from sklearn.datasets import load_digits, make_classification, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC
from sklearn.svm import SVR as SkSVR

from kernelnb import datasets
from kernelnb.svm import SVC, SVR, _smo, estimators

from .conftest import assert_kkt, kernel_matrix, sklearn_params, svc_dual_objective
from .test_svr import svr_dual_objective


def _moons(n=300, noise=0.3):
    return make_moons(n, noise=noise, random_state=0)


def _full(coef, support, n):
    out = np.zeros(n)
    out[support] = coef
    return out


CASES = {
    "moons-rbf-C10": (_moons, dict(C=10.0, sigma=0.5)),
    "moons-rbf-C0.5": (_moons, dict(C=0.5, sigma=0.3)),
    "moons-linear": (_moons, dict(C=1.0, kernel="linear")),
    "moons-poly": (lambda: (StandardScaler().fit_transform(_moons()[0]), _moons()[1]),
                   dict(C=1.0, kernel="poly", degree=3, coef0=1.0)),
    "breast-cancer": (lambda: (StandardScaler().fit_transform(datasets.load_breast_cancer()[0]),
                               datasets.load_breast_cancer()[1]), dict(C=10.0, sigma="scale")),
}


def _assert_matches_libsvm(model, X, y, ref_kw=None):
    ref = SkSVC(**sklearn_params(model), **(ref_kw or {})).fit(X, y)
    K = kernel_matrix(model, X)
    ours = svc_dual_objective(_full(model.dual_coef_[0], model.support_, len(y)), K)
    theirs = svc_dual_objective(_full(ref.dual_coef_[0], ref.support_, len(y)), K)
    assert abs(model.objective_ - ours) <= 1e-5 * abs(ours), "reported objective is the dual's"
    assert abs(ours - theirs) <= 1e-3 * abs(theirs)
    assert np.mean(model.predict(X) == ref.predict(X)) >= 0.995
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X),
                               atol=5e-2 * max(1.0, np.abs(ref.decision_function(X)).max()))
    assert model.fit_status_ == 0


@pytest.mark.parametrize("q", [4, 16, 64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_working_sets_match_libsvm(case, q):
    make, params = CASES[case]
    X, y = make()
    model = SVC(q=q, **params).fit(X, y)
    assert model.q_ == q
    _assert_matches_libsvm(model, X, y)
    assert_kkt(model, X, y)


@pytest.mark.parametrize("q", [8, 128])
def test_working_sets_with_a_row_cache_smaller_than_the_problem(q, monkeypatch):
    """Rows from the solver's cache (not the whole matrix), far fewer than the examples."""
    monkeypatch.setattr(SVC, "_precompute_whole", False)
    X, y = _moons(1500)
    model = SVC(C=10.0, sigma=0.3, cache_size=0.5, q=q).fit(X, y)   # ~90 rows of 1500
    assert model.n_kernel_rows_ > 0
    _assert_matches_libsvm(model, X, y)
    assert_kkt(model, X, y)


def test_auto_uses_working_sets_on_kernel_rows_and_pairs_on_a_whole_matrix():
    X, y = _moons(1500)
    pairs = SVC(C=10.0, sigma=0.3, q=2).fit(X, y)
    # small data whose whole matrix (9 MB) fits in the cache: computed once, solved by pairs
    whole = SVC(C=10.0, sigma=0.3).fit(X, y)
    assert whole.q_ == 2 and whole.n_kernel_rows_ == 0
    # rows from the cache: working sets, also for rows of few features (evaluated directly)
    for cache in (5, 0.2):                                 # ~870 rows of 1500 / ~30
        blocks = SVC(C=10.0, sigma=0.3, cache_size=cache).fit(X, y)
        assert blocks.q_ > 2 and blocks.q_ % 2 == 0
        assert blocks.n_kernel_rows_ > 0                   # rows, not the whole matrix
        assert abs(blocks.objective_ - pairs.objective_) <= 1e-4 * abs(pairs.objective_)
        _assert_matches_libsvm(blocks, X, y)
    # rows by GEMM (more features than the direct row path takes), and by the direct path
    Xw, yw = make_classification(600, n_features=_smo.LOW_D_FEATURES + 4, random_state=0)
    for cols in (Xw.shape[1], _smo.LOW_D_FEATURES):
        auto = SVC(C=10.0, sigma="scale", cache_size=0.5).fit(Xw[:, :cols], yw)
        assert auto.q_ > 2 and auto.n_kernel_rows_ > 0
        ref = SVC(C=10.0, sigma="scale", cache_size=0.5, q=2).fit(Xw[:, :cols], yw)
        assert abs(auto.objective_ - ref.objective_) <= 1e-4 * abs(ref.objective_)
    # too few points for a working set: pairs
    assert SVC(C=10.0, sigma=0.3, cache_size=0.01).fit(X[:50], y[:50]).q_ == 2
    # one-vs-one problems share the whole matrix, and solve on it by pairs
    Xd, yd = load_digits(return_X_y=True)
    multi = SVC(C=10.0, sigma="scale").fit(Xd[:300] / 16, yd[:300])
    assert multi.q_ == 2 and multi.n_kernel_rows_ == 0


@pytest.mark.parametrize("q", [4, 32])
def test_working_sets_with_sample_and_class_weights(q):
    X, y = _moons()
    sw = np.random.RandomState(0).uniform(0.2, 3.0, size=len(y))
    cw = {0: 1.0, 1: 4.0}
    model = SVC(C=2.0, sigma=0.5, class_weight=cw, q=q).fit(X, y, sample_weight=sw)
    ref = SkSVC(**sklearn_params(model), class_weight=cw).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), atol=2e-2)
    C_i = 2.0 * sw * np.where(y == 1, 4.0, 1.0)
    assert np.all(np.abs(model.dual_coef_[0]) <= C_i[model.support_] * (1 + 1e-12))


def test_working_sets_multiclass_match_the_pair_path():
    X, y = load_digits(return_X_y=True)
    X = X[:600] / 16.0
    y = y[:600]
    pairs = SVC(C=10.0, sigma="scale", q=2).fit(X, y)
    blocks = SVC(C=10.0, sigma="scale", q=32).fit(X, y)
    np.testing.assert_allclose(blocks.objective_, pairs.objective_, rtol=1e-3)
    assert np.mean(blocks.predict(X) == pairs.predict(X)) >= 0.995
    ref = SkSVC(**sklearn_params(blocks)).fit(X, y)
    assert np.mean(blocks.predict(X) == ref.predict(X)) >= 0.995


@pytest.mark.parametrize("q", [4, 16])
def test_working_sets_svr_match_libsvm(q):
    """Regression: a and a* of one example share a kernel row, and may share a working set."""
    rng = np.random.RandomState(0)
    X = rng.uniform(-5, 5, size=(300, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.randn(300)
    model = SVR(C=10.0, epsilon=0.05, sigma=0.7, q=q).fit(X, y)
    assert model.q_ == q
    ref = SkSVR(**sklearn_params(model), epsilon=0.05).fit(X, y)
    K = kernel_matrix(model, X)
    c_o = _full(model.dual_coef_[0], model.support_, len(y))
    c_r = _full(ref.dual_coef_[0], ref.support_, len(y))
    ours = svr_dual_objective(c_o, K, y, 0.05)
    theirs = svr_dual_objective(c_r, K, y, 0.05)
    assert abs(ours - theirs) <= 1e-3 * abs(theirs)
    np.testing.assert_allclose(model.predict(X), ref.predict(X), atol=2e-2 * np.std(y))


@pytest.mark.parametrize("margin", ["l2", "hard"])
def test_working_sets_l2_and_hard_margins_match_the_pair_path(margin):
    if margin == "hard":
        X, y = datasets.make_blobs(200, centers=[[-3, 0], [3, 0]], cluster_std=0.8, random_state=1)
        kw = dict(kernel="linear", margin="hard", tol=1e-6)
    else:
        X, y = _moons()
        kw = dict(C=2.0, sigma=0.7, margin="l2", tol=1e-5)
    pairs = SVC(q=2, **kw).fit(X, y)
    blocks = SVC(q=16, **kw).fit(X, y)
    assert blocks.fit_status_ == 0
    assert abs(blocks.objective_ - pairs.objective_) <= 1e-4 * abs(pairs.objective_)
    np.testing.assert_allclose(blocks.decision_function(X), pairs.decision_function(X), atol=1e-3)


def test_working_sets_warm_start_and_progress():
    X, y = _moons(2000)
    first = SVC(C=2.0, sigma=0.5, tol=1e-6, q=16).fit(X, y)
    coef = _full(first.dual_coef_[0], first.support_, len(y))
    again = SVC(C=2.0, sigma=0.5, tol=1e-6, q=16).fit(X, y, alpha_init=coef)
    assert again.n_iter_[0] == 0
    seen = []
    model = SVC(C=1000.0, sigma=0.2, q=8,
                callback=lambda info: seen.append(info["iteration"])).fit(X, y)
    assert seen and seen == sorted(seen) and all(it % 1000 == 0 for it in seen)
    stopped = SVC(C=1000.0, sigma=0.2, q=8, callback=lambda *a: False).fit(X, y)
    assert stopped.fit_status_ == 3 and stopped.n_iter_[0] == 1000
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        capped = SVC(C=100.0, sigma=0.3, q=8, max_iter=50).fit(X, y)
    assert capped.n_iter_[0] == 50
    assert model.fit_status_ == 0


@pytest.mark.parametrize("q", [0, 3, -2, 2.0, True, "big"])
def test_bad_working_set_size_raises(q):
    X, y = _moons()
    with pytest.raises(ValueError, match="'q' parameter of SVC must be|q must be"):
        SVC(q=q).fit(X, y)
