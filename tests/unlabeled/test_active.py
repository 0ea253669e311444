"""ActiveLearner and the incremental span update (Chapelle's thesis ch. 8), against retraining
and brute-force references."""
import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from kernelnb.model_selection import span_values
from kernelnb.neighbors import ParzenClassifier
from kernelnb.svm import SVC
from kernelnb.unlabeled import ActiveLearner, incremental_span_update, platt_fit

SIG = np.sqrt(1.5)


def hard_svc(kernel="rbf"):
    return SVC(kernel=kernel, sigma=SIG, margin="hard", precision="float64", tol=1e-10, n_jobs=1)


def majority(n, seed, d=5):
    rng = np.random.RandomState(seed)
    X = np.tanh(rng.uniform(-1, 1, (n, d)))
    return X, np.where(X.sum(axis=1) > 0, 1, -1)


def start(y, k=3):
    return np.r_[np.flatnonzero(y > 0)[:k], np.flatnonzero(y < 0)[:k]]


def alphas(model, n):
    a = np.zeros(n)
    a[model.support_] = np.abs(model.dual_coef_[0])
    return a


def unchanged(old, new, n_old, a_new):
    """The SV set of the retrained model is the old one, plus the new point iff it is an SV."""
    sv_new = set(np.flatnonzero(a_new > 1e-9).tolist()) - {n_old}
    return sv_new == set(old.support_.tolist())


# -- the incremental update (8.5)-(8.11) --------------------------------------------------------
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_incremental_update_equals_retraining_when_the_sv_set_is_unchanged(kernel):
    X, y = majority(80, 0)
    lab = start(y)
    cand = np.setdiff1d(np.arange(80), lab)
    model = hard_svc(kernel).fit(X[lab], y[lab])
    out = incremental_span_update(model, X[lab], y[lab], X[cand])
    checked = 0
    for j, c in enumerate(cand):
        for k, lab_y in enumerate([-1, 1]):
            X2 = np.vstack([X[lab], X[c]])
            y2 = np.append(y[lab], lab_y)
            new = hard_svc(kernel).fit(X2, y2)
            a2 = alphas(new, len(y2))
            if not unchanged(model, new, len(lab), a2):
                continue
            checked += 1
            assert out["sum_alpha"][j, k] == pytest.approx(a2.sum(), rel=1e-6)
            assert out["alpha0"][j, k] == pytest.approx(a2[-1], rel=1e-6, abs=1e-7)
            if a2[-1] > 1e-6:
                # S_0 of (8.8) is the span of the new point in the retrained SVM (3.14)
                assert out["span2"][j] == pytest.approx(span_values(new, X2, y2)[-1], rel=1e-5)
    assert checked >= 20
    # the decision values are the model's
    np.testing.assert_allclose(out["decision"], model.decision_function(X[cand]), atol=1e-10)


def test_increment_is_zero_outside_the_margin():
    X, y = majority(60, 1)
    lab = start(y)
    model = hard_svc().fit(X[lab], y[lab])
    out = incremental_span_update(model, X[lab], y[lab], X)
    f = model.decision_function(X)
    np.testing.assert_array_equal(out["reduction"][:, 1] == 0, f >= 1)
    np.testing.assert_array_equal(out["reduction"][:, 0] == 0, f <= -1)


# -- Platt's sigmoid -----------------------------------------------------------------------------
def test_platt_fit_matches_a_direct_likelihood_minimisation():
    rng = np.random.RandomState(0)
    F = rng.randn(6, 25)
    Y = np.where(F + 0.8 * rng.randn(6, 25) > 0, 1.0, -1.0)
    ab = platt_fit(F, Y)
    for f, yy, (a, b) in zip(F, Y, ab):
        npos, nneg = np.sum(yy > 0), np.sum(yy < 0)
        t = np.where(yy > 0, (npos + 1) / (npos + 2), 1 / (nneg + 2))

        def nll(p, f=f, t=t):
            z = p[0] * f + p[1]
            return -np.sum(t * log_expit(z) + (1 - t) * log_expit(-z))
        ref = minimize(nll, [0.0, 0.0], method="Nelder-Mead",
                       options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 5000}).x
        np.testing.assert_allclose([a, b], ref, atol=1e-5)
    assert platt_fit(F[0], Y[0]).shape == (2,)


def test_platt_fit_is_finite_on_separable_outputs():
    f = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    a, b = platt_fit(f, np.sign(f))
    assert np.isfinite(a) and a > 0 and abs(b) < 1e-8


# -- the greedy rule against brute force -------------------------------------------------------
def _platt_ref(f, yy):
    """Independent Platt fit for the references (Nelder-Mead on the same likelihood)."""
    npos, nneg = np.sum(yy > 0), np.sum(yy < 0)
    t = np.where(yy > 0, (npos + 1) / (npos + 2), 1 / (nneg + 2))

    def nll(p):
        z = p[0] * f + p[1]
        return -np.sum(t * log_expit(z) + (1 - t) * log_expit(-z))
    return minimize(nll, [0.0, 0.0], method="Nelder-Mead",
                    options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 5000}).x


def _svm_posterior_ref(X, y, Xq):
    m = hard_svc().fit(X, y)
    S2 = np.nan_to_num(span_values(m, X, y))
    a = alphas(m, len(y))
    f = m.decision_function(X)
    A, B = _platt_ref(f - y * a * S2, y)
    return expit(A * m.decision_function(Xq) + B)


def _gem_brute_force(X, y, pool, posterior):
    T = np.zeros(len(pool))
    P0 = posterior(X, y, pool)
    for j in range(len(pool)):
        rest = np.delete(pool, j, axis=0)
        for lab, w in ((1, P0[j]), (-1, 1 - P0[j])):
            P = posterior(np.vstack([X, pool[j]]), np.append(y, lab), rest)
            T[j] += w * np.mean(1 - np.maximum(P, 1 - P))
    return T


def test_gem_equals_brute_force_retraining_for_the_svm():
    X, y = majority(40, 2)
    lab = start(y)
    pool = X[np.setdiff1d(np.arange(40), lab)[:8]]
    al = ActiveLearner(hard_svc(), strategy="gem").fit(X[lab], y[lab], X_unlabeled=pool)
    idx = al.query()
    ref = _gem_brute_force(X[lab], y[lab], pool, _svm_posterior_ref)
    np.testing.assert_allclose(al.expected_error_, ref, atol=1e-5)
    assert idx == int(np.argmin(ref))


def _parzen_posterior_ref(sigma):
    def post(X, y, Xq):
        d2 = ((Xq[:, None, :] - X[None, :, :]) ** 2).sum(-1)
        K = np.exp(-d2 / (2 * sigma ** 2))
        return (K * (y > 0)).sum(1) / K.sum(1)
    return post


def test_gem_with_the_parzen_window_classifier_equals_brute_force():
    rng = np.random.RandomState(3)
    X = rng.uniform(-1, 1, (30, 2))
    y = np.where(X.sum(axis=1) > 0, 1, -1)
    lab = np.r_[np.flatnonzero(y > 0)[:4], np.flatnonzero(y < 0)[:4]]
    pool = X[np.setdiff1d(np.arange(30), lab)[:10]]
    al = ActiveLearner(ParzenClassifier(sigma=0.4, n_jobs=1), strategy="gem").fit(
        X[lab], y[lab], X_unlabeled=pool)
    idx = al.query()
    ref = _gem_brute_force(X[lab], y[lab], pool, _parzen_posterior_ref(0.4))
    np.testing.assert_allclose(al.expected_error_, ref, atol=1e-10)
    assert idx == int(np.argmin(ref))
    # the closed-form update equals refitting the classifier for every candidate and label
    P0, E = al._gem_exact(pool[np.isin(np.arange(len(pool)), al.remaining_)])
    np.testing.assert_allclose(al.label_errors_, E, atol=1e-10)
    # 'margin' with posteriors: the point whose posterior is nearest 1/2 (maximum uncertainty)
    al_m = ActiveLearner(ParzenClassifier(sigma=0.4, n_jobs=1)).fit(X[lab], y[lab], X_unlabeled=pool)
    P = _parzen_posterior_ref(0.4)(X[lab], y[lab], pool)
    assert al_m.query() == int(np.argmin(np.abs(P - 0.5)))


def _sv_set_stable(X, y, cand):
    """(m, 2) mask: adding the candidate with label -1 / +1 leaves the SV set unchanged."""
    model = hard_svc().fit(X, y)
    ok = np.zeros((len(cand), 2), dtype=bool)
    for j, c in enumerate(cand):
        for k, lab in enumerate((-1, 1)):
            new = hard_svc().fit(np.vstack([X, c]), np.append(y, lab))
            ok[j, k] = unchanged(model, new, len(y), alphas(new, len(y) + 1))
    return ok


def test_fast_gem_and_fast_ratio_equal_their_retraining_versions_where_exact():
    X, y = majority(60, 4)
    lab = start(y)
    pool = X[np.setdiff1d(np.arange(60), lab)[:30]]
    stable = _sv_set_stable(X[lab], y[lab], pool)
    assert stable.sum() >= 10
    s, E = {}, {}
    for strategy in ("gem", "fast_gem", "ratio", "fast_ratio"):
        al = ActiveLearner(hard_svc(), strategy=strategy).fit(X[lab], y[lab], X_unlabeled=pool)
        s[strategy] = al.score_candidates()
        E[strategy] = al.label_errors_
    both = stable.all(axis=1)
    assert both.sum() >= 2
    np.testing.assert_allclose(s["fast_ratio"][both], s["ratio"][both], rtol=1e-6)
    # T(D + (x, y)) of (8.2): the fast update gives the retrained SVM, its spans and Platt fit
    np.testing.assert_allclose(E["fast_gem"][stable], E["gem"][stable], atol=1e-6)
    # the posteriors P(y|x) of the current model are shared: equal expected errors where both
    # labels are exact
    np.testing.assert_allclose(s["fast_gem"][both], s["gem"][both], atol=1e-6)


def test_margin_queries_the_smallest_absolute_output():
    X, y = majority(50, 5)
    lab = start(y)
    pool = X[10:]
    al = ActiveLearner(hard_svc(), strategy="margin").fit(X[lab], y[lab], X_unlabeled=pool)
    f = hard_svc().fit(X[lab], y[lab]).decision_function(pool)
    assert al.query() == int(np.argmin(np.abs(f)))


# -- the loop's bookkeeping --------------------------------------------------------------------
@pytest.mark.parametrize("strategy", ["random", "margin", "fast_ratio", "fast_gem"])
def test_run_keeps_the_books(strategy):
    X, y = majority(120, 6)
    lab = start(y)
    rest = np.setdiff1d(np.arange(120), lab)
    pool, test = rest[:60], rest[60:]
    seen = []
    al = ActiveLearner(hard_svc(), strategy=strategy, budget=7, random_state=0,
                       callback=seen.append)
    al.fit(X[lab], y[lab], X_unlabeled=X[pool], X_val=X[test], y_val=y[test])
    al.run(y[pool])
    h = al.history_
    assert al.n_queries_ == 7 and len(h["index"]) == 7 and al.budget_left_ == 0
    assert len(set(h["index"])) == 7                       # no repeated queries
    assert set(h["index"]).isdisjoint(al.remaining_) and al.remaining_.size == 53
    np.testing.assert_array_equal(h["label"], y[pool][h["index"]])
    assert h["n_labeled"] == list(range(7, 14))
    # the recorded validation errors are those of models retrained on the same points
    Xl = np.vstack([X[lab], X[pool][h["index"]]])
    yl = np.append(y[lab], h["label"])
    ref = np.mean(hard_svc().fit(Xl, yl).predict(X[test]) != y[test])
    assert h["val_error"][-1] == pytest.approx(ref)
    assert [i["val_error"] for i in seen] == h["val_error"]
    assert al.initial_val_error_ == al.error_curve_[0]
    assert al.error_curve_.shape == (8,)
    assert al.error_curve_[0] == pytest.approx(
        np.mean(hard_svc().fit(X[lab], y[lab]).predict(X[test]) != y[test]))
    assert [i["iteration"] for i in seen] == list(range(1, 8))
    assert [i["index"] for i in seen] == h["index"]
    with pytest.raises(RuntimeError, match="budget"):
        al.query()
    with pytest.raises(RuntimeError, match="budget"):
        al.teach(int(al.remaining_[0]), 1)


def test_callback_false_stops_run_and_random_is_reproducible():
    X, y = majority(60, 7)
    lab = start(y)
    pool = np.setdiff1d(np.arange(60), lab)
    al = ActiveLearner(hard_svc(), strategy="random", random_state=3,
                       callback=lambda info: info["iteration"] < 3).fit(X[lab], y[lab], X_unlabeled=X[pool])
    al.run(y[pool], n_queries=10)
    assert al.n_queries_ == 3
    al2 = ActiveLearner(hard_svc(), strategy="random", random_state=3).fit(
        X[lab], y[lab], X_unlabeled=X[pool]).run(y[pool], n_queries=3)
    assert al2.history_["index"] == al.history_["index"]


def test_teach_points_and_any_two_labels():
    X, y = majority(40, 8)
    names = np.where(y > 0, "yes", "no")
    lab = start(y)
    pool = np.setdiff1d(np.arange(40), lab)
    al = ActiveLearner(hard_svc()).fit(X[lab], names[lab], X_unlabeled=X[pool])
    assert list(al.classes_) == ["no", "yes"]
    i = al.query()
    al.teach(i, names[pool][i])
    assert al.history_["score"][0] == pytest.approx(-abs(
        hard_svc().fit(X[lab], y[lab]).decision_function(X[pool][i:i + 1])[0]))
    # a pool row given as a point leaves the pool
    j = int(al.remaining_[0])
    al.teach(X[pool][j], names[pool][j])
    assert j not in al.remaining_ and al.history_["index"][-1] == j
    # a point from outside the pool is added with index -1
    al.teach(np.full(5, 0.3), "yes")
    assert al.history_["index"][-1] == -1 and al.remaining_.size == len(pool) - 2
    assert np.isnan(al.history_["score"][-1])
    assert set(al.predict(X)) <= {"yes", "no"}
    # the oracle as a function of the point
    al.run(lambda x: "yes" if x.sum() > 0 else "no", n_queries=2)
    assert al.n_queries_ == 5


def test_errors_name_the_parameter():
    X, y = majority(40, 9)
    lab = start(y)
    pool = X[np.setdiff1d(np.arange(40), lab)]
    with pytest.raises(ValueError, match="strategy"):
        ActiveLearner(strategy="optimal").fit(X[lab], y[lab], X_unlabeled=pool)
    with pytest.raises(ValueError, match="budget"):
        ActiveLearner(budget=0).fit(X[lab], y[lab], X_unlabeled=pool)
    with pytest.raises(ValueError, match="callback"):
        ActiveLearner(callback=3).fit(X[lab], y[lab], X_unlabeled=pool)
    with pytest.raises(ValueError, match="strategy='fast_gem' needs a kernelnb.svm.SVC"):
        ActiveLearner(ParzenClassifier(), strategy="fast_gem").fit(X[lab], y[lab], X_unlabeled=pool)
    with pytest.raises(ValueError, match="Only binary"):
        ActiveLearner().fit(X[:9], np.arange(9) % 3, X_unlabeled=pool)
    al = ActiveLearner(hard_svc()).fit(X[lab], y[lab], X_unlabeled=pool)
    i = al.query()
    al.teach(i, 1)
    with pytest.raises(ValueError, match="index_or_x.*already labelled"):
        al.teach(i, 1)
    with pytest.raises(ValueError, match="index_or_x.*out of range"):
        al.teach(len(pool), 1)
    with pytest.raises(ValueError, match="index_or_x"):
        al.teach(np.zeros(3), 1)
    with pytest.raises(ValueError, match="y must be one of"):
        al.teach(int(al.remaining_[0]), 5)
    with pytest.raises(ValueError, match="oracle"):
        al.run(np.ones(3))
    with pytest.raises(ValueError, match="n_queries"):
        al.run(np.ones(len(pool)), n_queries=10 ** 6)
    with pytest.raises(ValueError, match="X_val and y_val"):
        ActiveLearner().fit(X[lab], y[lab], X_unlabeled=pool, X_val=pool)
    with pytest.raises(TypeError):                  # validation data: keyword-only
        ActiveLearner().fit(X[lab], y[lab], pool, pool, y[:len(pool)])
    with pytest.raises(TypeError):                  # only the estimator by position
        ActiveLearner(hard_svc(), "margin")
    # what the strategy needs of the estimator is checked before any data is read
    with pytest.raises(ValueError, match="strategy='fast_gem' needs a kernelnb.svm.SVC"):
        ActiveLearner(ParzenClassifier(), strategy="fast_gem").fit(None, None)


def test_empty_pool_cannot_be_queried_but_can_be_taught():
    X, y = majority(20, 10)
    lab = start(y)
    al = ActiveLearner(hard_svc()).fit(X[lab], y[lab])
    with pytest.raises(RuntimeError, match="pool is empty"):
        al.query()
    al.teach(X[15], y[15])
    assert al.y_labeled_.shape == (7,)
