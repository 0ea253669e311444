"""Feature selection (thesis ch. 5.1): SVM-RFE against explicit loops and scikit-learn, the
non-linear RFE score against its definition, filter scores against naive formulas, the
scaling-factor selector on the Weston toys, the selector interface and bad input."""
import numpy as np
import pytest
from scipy import stats
from sklearn.feature_selection import RFE
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from kernelnb import kernels as K
from kernelnb.datasets import make_feature_selection_linear, make_feature_selection_nonlinear
from kernelnb.model_selection import (SVMRFE, ScalingSelector, criterion_and_gradient,
                                      filter_scores, rfe_scores)
from kernelnb.model_selection._features import _normalized_log_scales
from kernelnb.svm import SVC


def _std(X):
    return StandardScaler().fit_transform(X)


@pytest.fixture(scope="module")
def linear_small():
    X, y = make_feature_selection_linear(40, n_features=24, random_state=0)
    return _std(X), y


# -- filters ---------------------------------------------------------------------------------
def test_filter_scores_against_naive_formulas(linear_small):
    X, y = linear_small
    pos = y == 1
    fisher = [abs(X[pos, p].mean() - X[~pos, p].mean())
              / np.sqrt(X[pos, p].std() ** 2 + X[~pos, p].std() ** 2) for p in range(X.shape[1])]
    np.testing.assert_allclose(filter_scores(X, y, "fisher"), fisher)
    pearson = [abs(stats.pearsonr(X[:, p], y)[0]) for p in range(X.shape[1])]
    np.testing.assert_allclose(filter_scores(X, y, "pearson"), pearson)
    # KS: sqrt(n) max_t |P(x <= t) - P(x <= t | y = 1)| over the sample values t
    ks = []
    for p in range(X.shape[1]):
        t = X[:, p]
        F = (t[None, :] <= t[:, None]).mean(axis=1)
        Fp = (t[pos][None, :] <= t[:, None]).mean(axis=1)
        ks.append(np.sqrt(len(t)) * np.max(np.abs(F - Fp)))
    np.testing.assert_allclose(filter_scores(X, y, "ks"), ks)
    with pytest.raises(ValueError, match="method"):
        filter_scores(X, y, "chi2")


# -- RFE -------------------------------------------------------------------------------------
def _explicit_linear_rfe(X, y, k, step, C):
    """Retrain, drop the `step` smallest |w_p|, until k features remain; sklearn's ranking."""
    d = X.shape[1]
    kept = list(range(d))
    ranking = np.ones(d, dtype=int)
    while len(kept) > k:
        m = SVC(kernel="linear", C=C, tol=1e-8, n_jobs=1).fit(X[:, kept], y)
        w = (m.dual_coef_ @ m.support_vectors_).ravel()
        drop = [kept[i] for i in np.argsort(np.abs(w))[:min(step, len(kept) - k)]]
        kept = [f for f in kept if f not in drop]
        ranking[[f for f in range(d) if f not in kept]] += 1
    return ranking


@pytest.mark.parametrize("step", [1, 3])
def test_linear_rfe_equals_an_explicit_loop_and_scikit_learn(linear_small, step):
    X, y = linear_small
    est = SVC(kernel="linear", C=1.0, tol=1e-8, n_jobs=1)
    sel = SVMRFE(est, n_features_to_select=2, step=step).fit(X, y)
    np.testing.assert_array_equal(sel.ranking_, _explicit_linear_rfe(X, y, 2, step, 1.0))
    sk = RFE(SkSVC(kernel="linear", C=1.0, tol=1e-10), n_features_to_select=2, step=step).fit(X, y)
    np.testing.assert_array_equal(sel.ranking_, sk.ranking_)
    assert sel.support_.sum() == 2 and np.all(sel.ranking_[sel.support_] == 1)
    assert len(sel.history_) == sel.n_trainings_ - 1 == sel.n_iter_


def test_step_as_a_fraction(linear_small):
    X, y = linear_small
    sel = SVMRFE(SVC(kernel="linear", tol=1e-8, n_jobs=1), n_features_to_select=4, step=0.25).fit(X, y)
    # 24 features, 6 per step: 24 -> 18 -> 12 -> 6 -> 4
    assert [len(h["features"]) for h in sel.history_] == [24, 18, 12, 6]
    assert sel.ranking_.max() == 5


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "rbf-scales", "callable"])
def test_nonlinear_rfe_score_equals_its_definition(kernel):
    X, y = make_feature_selection_nonlinear(40, n_features=6, random_state=3)
    X = _std(X)
    rng = np.random.RandomState(0)
    scales = rng.uniform(0.5, 1.5, 6)
    est = {"linear": SVC(kernel="linear"),
           "poly": SVC(kernel="poly", degree=2, coef0=1.0),
           "rbf": SVC(kernel="rbf", sigma=2.0),
           "rbf-scales": SVC(kernel="rbf", sigma=2.0, scales=scales),
           "callable": SVC(kernel=lambda A, B: (A @ B.T + 2.0) ** 3 / 50.0)}[kernel]
    m = est.set_params(n_jobs=1).fit(X, y)
    c = np.zeros(len(y))
    c[m.support_] = m.dual_coef_[0]                       # y_i alpha_i
    imp, W2, W2p = rfe_scores(m, X)

    def naive_kernel(Z, p):
        keep = np.arange(Z.shape[1]) != p
        if kernel == "linear":
            return Z[:, keep] @ Z[:, keep].T
        if kernel == "poly":
            return (Z[:, keep] @ Z[:, keep].T + 1.0) ** 2
        if kernel == "callable":
            return (Z[:, keep] @ Z[:, keep].T + 2.0) ** 3 / 50.0
        s = np.ones(6) if kernel == "rbf" else scales
        D = ((Z[:, None, keep] - Z[None, :, keep]) * s[keep]) ** 2
        return np.exp(-D.sum(axis=2) / (2 * 2.0 ** 2))

    full = m.kernel_(X)
    assert W2 == pytest.approx(c @ full @ c, rel=1e-10)
    expected = np.array([c @ naive_kernel(X, p) @ c for p in range(6)])
    np.testing.assert_allclose(W2p, expected, rtol=1e-9)
    np.testing.assert_allclose(imp, np.abs(W2 - expected), rtol=1e-7, atol=1e-10)
    if kernel == "linear":
        w = (m.dual_coef_ @ m.support_vectors_).ravel()
        np.testing.assert_allclose(imp, w ** 2, rtol=1e-7)


def test_nonlinear_rfe_on_the_nonlinear_toy_keeps_the_two_relevant_features():
    hits = 0
    for seed in range(3):
        X, y = make_feature_selection_nonlinear(80, random_state=seed)
        sel = SVMRFE(n_features_to_select=2, kernel="poly", step=0.2).fit(_std(X), y)
        hits += set(sel.get_support(indices=True)) == {0, 1}
    assert hits >= 2


# -- scaling factors -------------------------------------------------------------------------
def test_normalised_log_scales_and_their_chain_rule():
    rng = np.random.RandomState(0)
    theta, var = rng.randn(7), rng.uniform(0.2, 2.0, 7)
    phi, w = _normalized_log_scales(theta, var, 5.0)
    assert np.sum(np.exp(2 * phi) * var) == pytest.approx(5.0)
    a = rng.randn(7)

    def f(t):                                            # a smooth function of phi(theta)
        p, _ = _normalized_log_scales(t, var, 5.0)
        return np.sum(a * np.sin(p)) + np.sum(p ** 2)

    g_phi = a * np.cos(phi) + 2 * phi
    g_theta = g_phi - w * g_phi.sum()
    h = 1e-6
    fd = [(f(theta + h * e) - f(theta - h * e)) / (2 * h) for e in np.eye(7)]
    np.testing.assert_allclose(g_theta, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("seed", range(5))
def test_scaling_selector_keeps_relevant_features_on_the_linear_toy(seed):
    X, y = make_feature_selection_linear(100, random_state=seed)
    sel = ScalingSelector(n_features_to_select=2).fit(_std(X), y)
    kept = sel.get_support(indices=True)
    assert set(kept) <= set(range(6)), kept
    # the thesis's schedule: 202 -> 101 -> 51 -> 26 -> 13 -> 7 (coarse), then one at a time
    assert [len(h["features"]) for h in sel.history_] == [202, 101, 51, 26, 13, 7, 6, 5, 4, 3, 2]
    assert all(h["criterion"] <= h["criterion_start"] + 1e-9 for h in sel.history_)
    np.testing.assert_array_equal(sel.scales_ > 0, sel.support_)
    assert sel.ranking_.max() == len(sel.history_)
    assert np.all(sel.ranking_[sel.support_] == 1)


def test_optimised_factors_make_the_linear_toy_easy():
    """Thesis Fig. 5.3: optimising the factors alone (no elimination) cuts the test error."""
    X, y = make_feature_selection_linear(30, random_state=11)
    Xt, yt = make_feature_selection_linear(500, random_state=12)
    sc = StandardScaler().fit(X)
    X, Xt = sc.transform(X), sc.transform(Xt)
    sel = ScalingSelector(n_features_to_select=202).fit(X, y)
    assert len(sel.history_) == 1 and sel.support_.all()
    plain = SVC(kernel="linear", C=10.0, margin="l2").fit(X, y).score(Xt, yt)
    assert sel.score(Xt, yt) > plain + 0.1
    # the fitted machine is the SVM on X * scales_, and its criterion is the recorded one
    value, _, _ = criterion_and_gradient(SVC(kernel="linear", C=10.0, margin="l2"), X, y,
                                         tune=("scales",), scales=sel.scales_)
    assert value == pytest.approx(sel.history_[0]["criterion"], rel=1e-6)
    np.testing.assert_allclose(sel.decision_function(Xt),
                               sel.estimator_.decision_function(Xt * sel.scales_), rtol=1e-6)
    # the normalisation keeps sum_p s_p^2 Var(x_p) (= 202 after standardising)
    assert np.sum(sel.scales_ ** 2 * X.var(axis=0)) == pytest.approx(202.0)
    # most factors end near zero (the thesis's remark)
    assert np.mean(sel.scales_ < 0.1 * sel.scales_.max()) > 0.8


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_scaling_selector_nonlinear_toy_with_a_polynomial_kernel():
    hits = 0
    est = SVC(kernel="poly", degree=2, coef0=1.0, C=10.0, margin="l2", n_jobs=1, max_iter=100000)
    for seed in (0, 1, 3):
        X, y = make_feature_selection_nonlinear(60, n_features=20, random_state=seed)
        sel = ScalingSelector(est, n_features_to_select=2).fit(_std(X), y)
        hits += set(sel.get_support(indices=True)) == {0, 1}
    assert hits >= 2


def test_rbf_factors_live_in_the_svc_and_groups_share_a_factor():
    X, y = make_feature_selection_nonlinear(50, n_features=8, random_state=0)
    X = _std(X)
    groups = np.repeat(np.arange(4), 2)                  # (0, 1), (2, 3), ...
    sel = ScalingSelector(SVC(kernel="rbf", sigma="scale", margin="l2", C=10.0, n_jobs=1),
                          n_features_to_select=1, groups=groups, max_iter=10).fit(X, y)
    s = sel.scales_
    np.testing.assert_allclose(s[0::2], s[1::2])
    assert sel.support_.sum() == 2 and sel.support_[0] == sel.support_[1]
    np.testing.assert_allclose(sel.estimator_.scales, s[sel.support_])
    assert isinstance(sel.estimator_.sigma, float)        # 'scale' resolved once
    np.testing.assert_array_equal(sel.predict(X), sel.estimator_.predict(X[:, sel.support_]))


def test_selector_interface_and_callback(linear_small):
    X, y = linear_small
    records = []
    sel = ScalingSelector(n_features_to_select=3, callback=records.append, schedule="half").fit(X, y)
    assert sel.get_support().shape == (24,) and sel.get_support(indices=True).shape == (3,)
    assert sel.transform(X).shape == (40, 3)
    assert [len(h["features"]) for h in sel.history_] == [24, 12, 6, 3]
    assert len(records) == len(sel.trace_) == sum(h["n_evaluations"] for h in sel.history_)
    assert sel.n_trainings_ >= len(records)
    assert records[-1]["scales"].shape == (24,) and not sel.stopped_
    one = ScalingSelector(n_features_to_select=20, schedule="one").fit(X, y)
    assert [len(h["features"]) for h in one.history_] == [24, 23, 22, 21, 20]
    # a callback returning False stops the run, the selector is usable
    calls = []
    stop = ScalingSelector(n_features_to_select=2,
                           callback=lambda r: calls.append(r) or len(calls) < 4).fit(X, y)
    assert stop.stopped_ and len(calls) == 4 and stop.predict(X).shape == (40,)
    rfe = SVMRFE(n_features_to_select=5).fit(X, y)
    assert rfe.transform(X).shape == (40, 5) and rfe.predict(X).shape == (40,)


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_the_error_of_a_record_is_predicts(linear_small, kernel):
    """ScalingSelector._error_of (a dashboard's test error at every evaluation, its input
    check left out) gives the error that the record's SVM's predict gives, at every record."""
    X, y = linear_small
    Xt = np.random.default_rng(1).normal(size=(60, X.shape[1]))
    yt = np.where(Xt[:, 0] + Xt[:, 1] > 0, y.max(), y.min())
    est = SVC(kernel=kernel, degree=2, coef0=1.0, C=10.0, margin="l2")
    records = []
    ScalingSelector(est, n_features_to_select=3, callback=records.append, schedule="half",
                    max_iter=5).fit(X, y)
    for r in records:
        m = r["estimator"]
        expected = np.mean(m.predict(ScalingSelector.inputs_of(m, Xt, r["features"],
                                                               r["scales"])) != yt)
        assert ScalingSelector._error_of(m, Xt, yt, r["features"], r["scales"]) == expected


def test_bad_input(linear_small):
    X, y = linear_small
    for Sel in (ScalingSelector, SVMRFE):
        with pytest.raises(ValueError, match="n_features_to_select"):
            Sel(n_features_to_select=25).fit(X, y)
        with pytest.raises(ValueError, match="n_features_to_select"):
            Sel(n_features_to_select=0).fit(X, y)
        with pytest.raises(ValueError, match="n_features_to_select"):
            Sel(n_features_to_select=1.5).fit(X, y)
        with pytest.raises(ValueError, match="two classes"):
            Sel().fit(X, np.arange(40) % 3)
        with pytest.raises(ValueError, match="estimator"):
            Sel(estimator=SkSVC()).fit(X, y)
        with pytest.raises(ValueError, match="callback"):
            Sel(callback=3).fit(X, y)
    with pytest.raises(ValueError, match="schedule"):
        ScalingSelector(schedule="quarter").fit(X, y)
    with pytest.raises(ValueError, match="groups"):
        ScalingSelector(groups=np.zeros(5, dtype=int)).fit(X, y)
    with pytest.raises(ValueError, match="scale_bounds"):
        ScalingSelector(scale_bounds=(2.0, 10.0)).fit(X, y)
    with pytest.raises(ValueError, match="max_iter"):
        ScalingSelector(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="kernel"):
        ScalingSelector(SVC(kernel="precomputed")).fit(X, y)
    with pytest.raises(ValueError, match="step"):
        SVMRFE(step=0).fit(X, y)
    with pytest.raises(ValueError, match="step"):
        SVMRFE(step=2.5).fit(X, y)
    with pytest.raises(ValueError, match="kernel"):
        SVMRFE(kernel="sigmoid").fit(X, y)
    # the constructors are keyword-only after the wrapped estimator
    with pytest.raises(TypeError):
        SVMRFE(None, 2)
    with pytest.raises(TypeError):
        ScalingSelector(None, 2)


def test_explicit_removal_drops_the_feature_whose_retrained_criterion_is_smallest():
    X, y = make_feature_selection_linear(40, n_features=8, random_state=2)
    X = _std(X)
    sel = ScalingSelector(n_features_to_select=5, removal="explicit", max_iter=15).fit(X, y)
    assert sel.planned_sizes(8) == [8, 7, 6, 5] == [len(h["features"]) for h in sel.history_]
    est = SVC(kernel="linear", C=10.0, margin="l2")
    for h in sel.history_[:-1]:
        feats, s = h["features"], h["scales"]
        naive = []
        for p in feats:                                 # retrain without p, factors renormalised
            rest = feats[feats != p]
            f = s[rest] * np.sqrt(8.0 / np.sum(s[rest] ** 2 * X[:, rest].var(axis=0)))
            naive.append(criterion_and_gradient(est, X[:, rest], y, tune=("scales",),
                                                scales=f)[0])
        np.testing.assert_allclose(h["removal_scores"], naive, rtol=1e-5)
        np.testing.assert_array_equal(h["removed"], [feats[int(np.argmin(naive))]])


def test_callback_records_carry_the_svm_of_each_evaluation(linear_small):
    X, y = linear_small
    seen = []
    ScalingSelector(n_features_to_select=12, callback=seen.append, max_iter=5).fit(X, y)
    for rec in seen[::3]:
        est, feats = rec["estimator"], rec["features"]
        assert np.all(rec["scales"][feats] > 0) and np.sum(rec["scales"] > 0) == len(feats)
        inputs = ScalingSelector.inputs_of(est, X, feats, rec["scales"])
        np.testing.assert_allclose(inputs, X[:, feats] * rec["scales"][feats])
        again = SVC(kernel="linear", C=10.0, margin="l2", tol=1e-6).fit(inputs, y)
        np.testing.assert_allclose(est.decision_function(inputs), again.decision_function(inputs),
                                   atol=0.05)
    with pytest.raises(ValueError, match="removal"):
        ScalingSelector(removal="obd").fit(X, y)


def test_rfe_callback_reports_steps_and_can_stop(linear_small):
    X, y = linear_small
    seen = []
    full = SVMRFE(n_features_to_select=2, step=1, callback=lambda r: seen.append(r["iteration"])
                  ).fit(X, y)
    assert seen == list(range(len(full.history_))) and full.support_.sum() == 2
    stopped = SVMRFE(n_features_to_select=2, step=1,
                     callback=lambda r: r["iteration"] < 1).fit(X, y)
    assert len(stopped.history_) == 2
    assert stopped.support_.sum() == X.shape[1] - 2     # two steps of one feature each
    assert stopped.predict(X).shape == y.shape


# -- forward selection on the span -----------------------------------------------------------
def test_forward_selection_equals_a_brute_force_loop_over_the_span_estimate():
    """Each step against every candidate's SVM and span estimate computed directly with the
    public SVC and span_estimate (ties by the hinge loss of Theorem 3.8's outputs)."""
    from kernelnb.model_selection import ForwardSpanSelector, span_estimate, span_values

    X, y = make_feature_selection_linear(40, n_features=8, random_state=1)
    X = _std(X)
    sel = ForwardSpanSelector(n_features_to_select=3).fit(X, y)
    chosen = []
    for step in range(3):
        rows = []
        for j in range(8):
            if j in chosen:
                continue
            Xj = X[:, chosen + [j]]
            m = SVC(kernel="linear", C=1.0, n_jobs=1).fit(Xj, y)
            rate = span_estimate(m, Xj, y)
            S2 = np.nan_to_num(span_values(m, Xj, y))
            ys = np.where(y == m.classes_[1], 1.0, -1.0)
            a = np.zeros(len(y))
            a[m.support_] = np.abs(m.dual_coef_[0])
            hinge = np.mean(np.maximum(0, 1 - (ys * m.decision_function(Xj) - a * S2)))
            rows.append((rate, hinge, j))
        rec = sel.history_[step]
        np.testing.assert_array_equal(rec["candidates"], [r[2] for r in rows])
        np.testing.assert_array_equal(rec["span"], [r[0] for r in rows])
        np.testing.assert_allclose(rec["hinge"], [r[1] for r in rows], rtol=1e-6)
        chosen.append(min(rows)[2])
        assert rec["added"] == chosen[-1]
    np.testing.assert_array_equal(sel.order_, chosen)
    assert sel.get_support(indices=True).tolist() == sorted(chosen)
    assert sel.n_trainings_ == 8 + 7 + 6 + 1 and sel.n_iter_ == 3
    np.testing.assert_array_equal(sel.ranking_, np.where(sel.support_, 1, 2))


def test_forward_selection_finds_the_relevant_pair_of_the_nonlinear_toy():
    from kernelnb.model_selection import ForwardSpanSelector

    X, y = make_feature_selection_nonlinear(80, n_features=12, random_state=0)
    sel = ForwardSpanSelector(n_features_to_select=2, kernel="poly").fit(_std(X), y)
    assert set(sel.order_) == {0, 1}
    stop = ForwardSpanSelector(n_features_to_select=2, callback=lambda rec: False).fit(_std(X), y)
    assert stop.n_iter_ == 1 and stop.support_.sum() == 1
    with pytest.raises(ValueError, match="n_features_to_select"):
        ForwardSpanSelector(n_features_to_select=13).fit(X, y)


def test_the_fits_in_steps_yield_each_stage_in_order_and_end_as_fit_does(linear_small):
    """ScalingSelector._fit_steps (what a dashboard draws stage by stage) yields each stage's
    record of history_ as it ends, in the planned order, and leaves the selector as fit does;
    ForwardSpanSelector._fit_steps pauses after each SVM and yields each step's record."""
    from kernelnb.model_selection import ForwardSpanSelector

    X, y = linear_small
    whole = ScalingSelector(n_features_to_select=3, schedule="half", max_iter=5).fit(X, y)
    stepped = ScalingSelector(n_features_to_select=3, schedule="half", max_iter=5)
    recs = list(stepped._fit_steps(X, y))
    assert [r["features"].size for r in recs] == stepped.planned_sizes(24)[:-1]
    assert all(r is h for r, h in zip(recs, stepped.history_)) and len(stepped.history_) == \
        len(recs) + 1
    assert all(r["removed"].size > 0 for r in recs)
    np.testing.assert_array_equal(stepped.scales_, whole.scales_)
    np.testing.assert_array_equal(stepped.support_, whole.support_)
    assert [h["criterion"] for h in stepped.history_] == [h["criterion"] for h in whole.history_]
    assert stepped.fit_time_ > 0 and stepped.n_trainings_ == whole.n_trainings_

    whole = ForwardSpanSelector(n_features_to_select=3).fit(X[:, :8], y)
    stepped = ForwardSpanSelector(n_features_to_select=3)
    out = list(stepped._fit_steps(X[:, :8], y))
    recs = [r for r in out if r is not None]
    assert out.count(None) == 8 + 7 + 6                   # a pause after each SVM
    assert [r["iteration"] for r in recs] == [0, 1]       # the last step ends the fit
    np.testing.assert_array_equal(stepped.order_, whole.order_)
    np.testing.assert_array_equal(stepped.history_[1]["span"], whole.history_[1]["span"])
