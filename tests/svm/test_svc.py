"""SVC against scikit-learn's LIBSVM: dual objectives, predictions, KKT conditions, formulations."""
import os
import signal
import threading
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits, make_blobs, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

import kernelnb
from kernelnb import datasets
from kernelnb.svm import SVC, svc_path

from .conftest import (
    assert_kkt,
    kernel_matrix,
    pair_coefficients,
    sklearn_params,
    svc_dual_objective,
)


def _moons():
    return make_moons(300, noise=0.3, random_state=0)


def _uci(loader, standardize):
    X, y = loader()
    if standardize:
        X = StandardScaler().fit_transform(X)
    return X, y


BINARY_CASES = {
    "moons-rbf": (_moons, dict(C=10.0, sigma=0.5)),
    "moons-linear": (_moons, dict(C=1.0, kernel="linear")),
    "moons-poly": (lambda: (StandardScaler().fit_transform(_moons()[0]), _moons()[1]),
                   dict(C=1.0, kernel="poly", degree=3, coef0=1.0)),
    "sonar": (lambda: _uci(datasets.load_sonar, False), dict(C=10.0, sigma="scale")),
    "sonar-linear": (lambda: _uci(datasets.load_sonar, False), dict(C=1.0, kernel="linear")),
    "ionosphere": (lambda: _uci(datasets.load_ionosphere, False), dict(C=10.0, sigma="scale")),
    "pima": (lambda: _uci(datasets.load_pima, True), dict(C=1.0, sigma="scale")),
    "breast-cancer": (lambda: _uci(datasets.load_breast_cancer, True), dict(C=10.0, sigma="scale")),
}


@pytest.mark.parametrize("case", sorted(BINARY_CASES))
def test_binary_matches_libsvm(case):
    make, params = BINARY_CASES[case]
    X, y = make()
    model = SVC(**params).fit(X, y)
    ref = SkSVC(**sklearn_params(model)).fit(X, y)
    K = kernel_matrix(model, X)
    ours = svc_dual_objective(_full(model.dual_coef_[0], model.support_, len(y)), K)
    theirs = svc_dual_objective(_full(ref.dual_coef_[0], ref.support_, len(y)), K)
    assert abs(model.objective_ - ours) <= 1e-5 * abs(ours), "reported objective is the dual's"
    assert abs(ours - theirs) <= 1e-3 * abs(theirs)
    assert np.mean(model.predict(X) == ref.predict(X)) >= 0.995
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X),
                               atol=5e-2 * max(1.0, np.abs(ref.decision_function(X)).max()))
    assert_kkt(model, X, y)
    assert model.fit_status_ == 0


def _full(coef, support, n):
    out = np.zeros(n)
    out[support] = coef
    return out


def _assert_multiclass_matches(model, ref, X, Xt):
    K = kernel_matrix(model, X)
    classes = range(len(model.classes_))
    pairs = [(a, b) for a in classes for b in classes if a < b]
    for p_i, pair in enumerate(pairs):
        idx_r, c_r = pair_coefficients(ref.dual_coef_, ref.support_, ref.n_support_, pair)
        idx_o, c_o = pair_coefficients(model.dual_coef_, model.support_, model.n_support_, pair)
        theirs = svc_dual_objective(c_r, K[np.ix_(idx_r, idx_r)])
        ours = svc_dual_objective(c_o, K[np.ix_(idx_o, idx_o)])
        assert abs(model.objective_[p_i] - ours) <= 1e-5 * abs(ours)
        assert abs(ours - theirs) <= 1e-3 * abs(theirs), f"pair {pair}"
    assert np.mean(model.predict(Xt) == ref.predict(Xt)) >= 0.995
    assert np.array_equal(model.classes_, ref.classes_)


def test_digits_multiclass_matches_libsvm():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    model = SVC(C=10.0, sigma="scale").fit(X[:1200], y[:1200])
    ref = SkSVC(**sklearn_params(model)).fit(X[:1200], y[:1200])
    _assert_multiclass_matches(model, ref, X[:1200], X[1200:])
    assert model.dual_coef_.shape == ref.dual_coef_.shape
    np.testing.assert_array_equal(model.n_support_.sum(), model.support_.shape[0])
    assert model.decision_function(X[:5]).shape == (5, 10)
    model.set_params(decision_function_shape="ovo")
    assert model.decision_function(X[:5]).shape == (5, 45)
    # ovr scores rank the predicted class first wherever the vote is not tied (on ties predict
    # takes the lowest class, as LIBSVM, while the scores break the tie by confidence)
    model.set_params(decision_function_shape="ovr")
    scores = model.decision_function(X[1200:])
    votes = np.floor(scores + 0.5)
    unique = (votes == votes.max(1, keepdims=True)).sum(1) == 1
    assert unique.mean() > 0.9
    np.testing.assert_array_equal(model.classes_[scores.argmax(1)][unique],
                                  model.predict(X[1200:])[unique])


def test_fashion_mnist_subset_matches_libsvm(fashion_subset):
    X, y, Xt, yt = fashion_subset
    model = SVC(C=10.0, sigma="scale").fit(X, y)
    ref = SkSVC(**sklearn_params(model)).fit(X, y)
    _assert_multiclass_matches(model, ref, X, Xt)
    assert abs(model.score(Xt, yt) - ref.score(Xt, yt)) <= 0.002


@pytest.mark.parametrize("whole", [True, False])
def test_single_thread_and_parallel_pairs_agree(whole, monkeypatch):
    monkeypatch.setattr(SVC, "_precompute_whole", whole)
    X, y = load_digits(return_X_y=True)
    a = SVC(C=3.0, sigma="scale", n_jobs=1).fit(X[:600] / 16, y[:600])
    b = SVC(C=3.0, sigma="scale", n_jobs=2).fit(X[:600] / 16, y[:600])
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-12)
    np.testing.assert_array_equal(a.predict(X[600:] / 16), b.predict(X[600:] / 16))


def test_float32_input_matches_float64():
    X, y = _moons()
    a = SVC(C=10.0, sigma=0.5).fit(X, y)
    b = SVC(C=10.0, sigma=0.5).fit(X.astype(np.float32), y)
    assert abs(a.objective_ - b.objective_) <= 1e-5 * abs(a.objective_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X.astype(np.float32)))


def test_l2_soft_margin_is_hard_margin_on_shifted_kernel():
    """Chapelle's thesis ch. 4: the L2 soft margin is a hard margin on K + I/C."""
    X, y = _moons()
    C = 2.0
    model = SVC(C=C, sigma=0.7, margin="l2", tol=1e-5).fit(X, y)
    K = kernel_matrix(model, X)
    ref = SkSVC(kernel="precomputed", C=1e8, tol=1e-5).fit(K + np.eye(len(y)) / C, y)
    coef_r = _full(ref.dual_coef_[0], ref.support_, len(y))
    theirs = svc_dual_objective(coef_r, K + np.eye(len(y)) / C)
    assert abs(model.objective_ - theirs) <= 1e-4 * abs(theirs)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(K), atol=1e-3)
    assert not model.at_bound_.any()
    # every training point is a support vector or outside the margin; the slack is alpha / C
    coef = _full(model.dual_coef_[0], model.support_, len(y))
    yy = np.where(y == model.classes_[1], 1.0, -1.0)
    margin = yy * model.decision_function(X)
    alpha = yy * coef
    sv = alpha > 1e-10
    np.testing.assert_allclose(margin[sv], 1 - alpha[sv] / C, atol=1e-3)


def test_hard_margin_on_separable_data():
    X, y = make_blobs(200, centers=[[-3, 0], [3, 0]], cluster_std=0.8, random_state=1)
    model = SVC(kernel="linear", margin="hard", tol=1e-7).fit(X, y)
    ref = SkSVC(kernel="linear", C=1e8, tol=1e-7).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), atol=1e-4)
    assert model.predict(X).tolist() == y.tolist()
    margin = np.where(y == 1, 1, -1) * model.decision_function(X)
    assert margin.min() >= 1 - 2e-3


def test_infinite_c_is_the_hard_margin():
    X, y = make_blobs(100, centers=[[-3, 0], [3, 0]], random_state=1)
    a = SVC(kernel="linear", C=np.inf).fit(X, y)
    b = SVC(kernel="linear", margin="hard").fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X))


def test_warm_start_from_given_dual_coefficients():
    X, y = _moons()
    first = SVC(C=2.0, sigma=0.5, tol=1e-6).fit(X, y)
    coef = np.zeros(len(y))
    coef[first.support_] = first.dual_coef_[0]
    again = SVC(C=2.0, sigma=0.5, tol=1e-6).fit(X, y, alpha_init=coef)
    assert again.n_iter_[0] == 0
    np.testing.assert_allclose(again.decision_function(X), first.decision_function(X), atol=1e-9)
    # an infeasible start (wrong box, unbalanced) is repaired and reaches the same optimum
    bad = SVC(C=2.0, sigma=0.5, tol=1e-6).fit(X, y, alpha_init=np.abs(coef) * 5)
    assert abs(bad.objective_ - first.objective_) <= 1e-6 * abs(first.objective_)
    with pytest.raises(ValueError, match="alpha_init must hold 300"):
        SVC().fit(X, y, alpha_init=np.zeros(5))
    Xd, yd = load_digits(return_X_y=True)
    with pytest.raises(ValueError, match="alpha_init is for two classes"):
        SVC().fit(Xd[:100], yd[:100], alpha_init=np.zeros(100))


def test_hard_margin_on_overlapping_data_warns():
    X, y = make_blobs(60, centers=[[0, 0], [0.5, 0]], random_state=2)
    with pytest.warns(ConvergenceWarning, match="separable"):
        SVC(kernel="linear", margin="hard", max_iter=2000).fit(X, y)


def test_sample_and_class_weights_match_libsvm():
    X, y = _moons()
    rng = np.random.RandomState(0)
    sw = rng.uniform(0.2, 3.0, size=len(y))
    cw = {0: 1.0, 1: 4.0}
    model = SVC(C=2.0, sigma=0.5, class_weight=cw).fit(X, y, sample_weight=sw)
    ref = SkSVC(**sklearn_params(model), class_weight=cw).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), atol=2e-2)
    assert_kkt_weighted = np.abs(model.dual_coef_[0]) <= 2.0 * 4.0 * 3.0 + 1e-9
    assert assert_kkt_weighted.all()
    bal = SVC(C=1.0, sigma=0.5, class_weight="balanced").fit(X[:200], y[:200])
    refb = SkSVC(**sklearn_params(bal), class_weight="balanced").fit(X[:200], y[:200])
    assert np.mean(bal.predict(X) == refb.predict(X)) >= 0.995


def test_warm_start_path_reaches_the_same_optima_in_fewer_iterations():
    X, y = _moons()
    Cs = list(np.geomspace(1.0, 20.0, 8))
    path = svc_path(X, y, Cs=Cs[::-1], sigma=0.5)   # any order in, sorted out
    np.testing.assert_allclose([m.C for m in path], Cs)
    cold = [SVC(C=C, sigma=0.5).fit(X, y) for C in Cs]
    for w, c in zip(path, cold):
        assert abs(w.objective_ - c.objective_) <= 1e-3 * abs(c.objective_)
    assert sum(m.n_iter_[0] for m in path[1:]) < sum(m.n_iter_[0] for m in cold[1:])
    # more support vectors at small C on noisy data
    assert len(path[0].support_) > len(path[-1].support_)
    # a warm refit at the same C starts at the optimum
    same = SVC(C=3.0, sigma=0.5, warm_start=True).fit(X, y)
    assert same.fit(X, y).n_iter_[0] == 0


def test_callback_reports_progress_and_can_stop():
    X, y = make_moons(2000, noise=0.3, random_state=0)
    seen = []
    SVC(C=1000.0, sigma=0.2, callback=lambda info: seen.append(
        (info["iteration"], info["kkt_gap"], info["objective"]))).fit(X, y)
    assert seen, "the callback must be called on a long run"
    its = [s[0] for s in seen]
    assert its == sorted(its) and its[0] == 1000
    assert all(np.isfinite(s[1]) and s[1] >= 0 for s in seen)
    stopped = SVC(C=1000.0, sigma=0.2, callback=lambda info: False).fit(X, y)
    assert stopped.fit_status_ == 3 and stopped.n_iter_[0] == 1000
    assert stopped.predict(X).shape == (2000,)


def test_verbose_prints_progress(capsys):
    X, y = make_moons(2000, noise=0.3, random_state=0)
    # stopped at max_iter to stay quick: the progress lines are printed all the same
    with pytest.warns(ConvergenceWarning, match="max_iter=3000"):
        SVC(C=1000.0, sigma=0.2, verbose=True, max_iter=3000).fit(X, y)
    out = capsys.readouterr().out
    assert "kkt gap" in out and "iter" in out


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT to the test process")
def test_ctrl_c_stops_cleanly_and_leaves_a_usable_model():
    X, y = make_blobs(1500, centers=[[0, 0], [0.3, 0]], random_state=3)
    # Ctrl-C as a user's Python has it (the default handler), whatever an earlier test's library
    # left installed in this process; that handler is put back afterwards.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with kernelnb.config_context(keep_partial_on_interrupt=True), \
                pytest.warns(RuntimeWarning, match="interrupted"):
            model = SVC(kernel="rbf", sigma=0.1, margin="hard", max_iter=50_000_000).fit(X, y)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert model.fit_status_ == 2 and model.interrupted_ is True
    assert model.predict(X).shape == (1500,)


def test_max_iter_warns_and_keeps_the_state():
    X, y = _moons()
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = SVC(C=100.0, sigma=0.3, max_iter=50).fit(X, y)
    assert model.fit_status_ == 1 and model.n_iter_[0] == 50
    assert model.score(X, y) > 0.5


def test_precomputed_and_callable_kernels_agree_with_rbf():
    X, y = _moons()
    base = SVC(C=3.0, sigma=0.6).fit(X, y)
    K = kernel_matrix(base, X)
    pre = SVC(C=3.0, kernel="precomputed").fit(K, y)
    gamma = 1 / (2 * 0.6 ** 2)
    func = SVC(C=3.0, kernel=lambda A, B: np.exp(-gamma * ((A[:, None] - B[None]) ** 2).sum(-1))).fit(X, y)
    for other, Xp in ((pre, K), (func, X)):
        assert abs(other.objective_ - base.objective_) <= 1e-4 * abs(base.objective_)
        np.testing.assert_allclose(other.decision_function(Xp), base.decision_function(X), atol=1e-3)


def test_scales_equal_rescaled_features():
    X, y = _moons()
    s = np.array([2.0, 0.5])
    a = SVC(C=3.0, sigma=0.6, scales=s).fit(X, y)
    b = SVC(C=3.0, sigma=0.6).fit(X * s, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X * s), atol=1e-6)


def test_kernel_row_paths_give_the_same_solution(monkeypatch):
    """Whole matrix (fits in the cache), row cache holding everything, and a tiny row cache: the
    pair path (q=2) makes the same steps whatever the cache, so the optima agree to rounding."""
    X, y = make_moons(1500, noise=0.3, random_state=0)
    whole = SVC(C=10.0, sigma=0.3, cache_size=200).fit(X, y)
    assert whole.n_kernel_rows_ == 0   # rows read from the precomputed matrix
    monkeypatch.setattr(SVC, "_precompute_whole", False)
    big = SVC(C=10.0, sigma=0.3, cache_size=200, q=2).fit(X, y)
    tiny = SVC(C=10.0, sigma=0.3, cache_size=0.2, q=2).fit(X, y)   # ~30 rows of 1500
    assert abs(big.objective_ - tiny.objective_) <= 1e-9 * abs(big.objective_)
    assert abs(big.objective_ - whole.objective_) <= 1e-6 * abs(big.objective_)
    assert tiny.n_kernel_rows_ > big.n_kernel_rows_ > 0
    noshrink = SVC(C=10.0, sigma=0.3, shrinking=False).fit(X, y)
    assert abs(noshrink.objective_ - big.objective_) <= 1e-3 * abs(big.objective_)


def test_small_cache_does_not_thrash(monkeypatch):
    """With more support vectors than cached rows, prefetched blocks must not evict the rows the
    solver comes back to: the block shrinks towards one row per miss (it computed 90 rows per
    iteration here before the prefetch adapted)."""
    monkeypatch.setattr(SVC, "_precompute_whole", False)
    X, y = make_moons(3000, noise=0.5, random_state=0)
    small = SVC(C=1.0, sigma=0.3, cache_size=1.0, q=2).fit(X, y)     # ~90 rows of 3000
    big = SVC(C=1.0, sigma=0.3, cache_size=200, q=2).fit(X, y)
    assert len(small.support_) > 1000
    assert small.n_kernel_rows_ < 2 * small.n_iter_[0]
    assert abs(small.objective_ - big.objective_) <= 1e-9 * abs(big.objective_)


def test_free_and_bound_support_vectors():
    X, y = _moons()
    model = SVC(C=0.5, sigma=0.5).fit(X, y)
    alpha = np.abs(model.dual_coef_[0])
    np.testing.assert_array_equal(model.at_bound_, alpha >= 0.5 * (1 - 1e-12))
    assert 0 < model.at_bound_.sum() < len(alpha)


BAD_INPUT = [
    (dict(C=0.0), "'C' parameter of SVC must be"),
    (dict(C=-1.0), "'C' parameter of SVC must be"),
    (dict(sigma=0.0), "'sigma' parameter of SVC must be"),
    (dict(sigma=-2.0), "'sigma' parameter of SVC must be"),
    (dict(sigma="wide"), "'sigma' parameter of SVC must be"),
    (dict(kernel="gaussian"), "'kernel' parameter of SVC must be"),
    (dict(margin="l3"), "'margin' parameter of SVC must be"),
    (dict(tol=0.0), "'tol' parameter of SVC must be"),
    (dict(cache_size=1e12), "cache_size"),
    (dict(cache_size=-5), "cache_size"),
    (dict(max_iter=-7), "max_iter"),
    (dict(n_jobs=0), "n_jobs"),
    (dict(class_weight="heavy"), "class_weight"),
    (dict(class_weight={7: 1.0}), "class_weight"),
    (dict(scales=[1.0, 2.0, 3.0]), "scales"),
    (dict(decision_function_shape="ova"), "decision_function_shape"),
]


@pytest.mark.parametrize("params, message", BAD_INPUT, ids=[m for _, m in BAD_INPUT])
def test_bad_parameters_raise_clear_errors(params, message):
    X, y = _moons()
    with pytest.raises(ValueError, match=message):
        SVC(**params).fit(X, y)


def test_bad_data_raises_clear_errors():
    X, y = _moons()
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SVC().fit(Xn, y)
    Xi = X.copy()
    Xi[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity|inf"):
        SVC().fit(Xi, y)
    with pytest.raises(ValueError, match="class"):
        SVC().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        SVC().fit(X, y[:-1])
    with pytest.raises(ValueError, match="0 sample"):
        SVC().fit(np.empty((0, 2)), [])
    with pytest.raises(ValueError, match="sample_weight"):
        SVC().fit(X, y, sample_weight=-np.ones(len(y)))
    model = SVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(np.ones((3, 5)))
    with pytest.raises(ValueError, match="square"):
        SVC(kernel="precomputed").fit(np.ones((5, 4)), [0, 1, 0, 1, 0])
    with pytest.raises(ValueError):
        SVC(kernel=lambda A, B: np.ones((2, 2))).fit(X, y)


def test_no_warning_on_a_clean_fit():
    X, y = _moons()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SVC(C=1.0, sigma="scale").fit(X, y)
