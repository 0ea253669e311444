"""MixtureSVC (hard mixtures of SVMs, thesis ch. 6) serially and on a two-worker Dask cluster,
the balance rule against a naive reference, dask_grid_search against scikit-learn's serial loop."""
import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.model_selection import GridSearchCV

from kernelnb.largescale import (GaterMLP, GlobalGater, MixtureSVC, balanced_assignment,
                                 dask_grid_search)
from kernelnb._platt import platt_fit
from kernelnb.svm import SVC

distributed = pytest.importorskip("distributed")


def xor(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1, -1)


class CountingClient:
    """Wraps a Client: counts scatter calls and records the arguments given to submit."""

    def __init__(self, client):
        self._c = client
        self.scatters = 0
        self.submitted = []

    def scatter(self, *args, **kwargs):
        self.scatters += 1
        return self._c.scatter(*args, **kwargs)

    def submit(self, fn, *args, **kwargs):
        self.submitted.append(args)
        return self._c.submit(fn, *args, **kwargs)

    def gather(self, *args, **kwargs):
        return self._c.gather(*args, **kwargs)


# ---------------------------------------------------------------------------------------------
# The balance rule


def naive_assignment(scores, capacity, order):
    counts = [0] * scores.shape[1]
    out = {}
    for l in order:
        ranked = sorted(range(scores.shape[1]), key=lambda k: (-scores[l, k], k))
        for k in ranked:
            if counts[k] < capacity:
                out[l] = k
                counts[k] += 1
                break
    return np.array([out[l] for l in range(scores.shape[0])])


@pytest.mark.parametrize("n,k", [(50, 3), (37, 5), (20, 1)])
def test_balanced_assignment_matches_naive(n, k):
    rng = np.random.default_rng(n)
    scores = rng.random((n, k))
    scores[:, 0] += 0.5  # everybody prefers expert 0: the capacity must bind
    order = rng.permutation(n)
    cap = n // k + 1
    got = balanced_assignment(scores, cap, order)
    np.testing.assert_array_equal(got, naive_assignment(scores, cap, order))
    assert np.bincount(got, minlength=k).max() <= cap


def test_balanced_assignment_errors():
    with pytest.raises(ValueError, match="capacity"):
        balanced_assignment(np.zeros((10, 2)), 4)
    with pytest.raises(ValueError, match="scores"):
        balanced_assignment(np.zeros(10), 4)


@pytest.mark.parametrize("gater", ["global", "local"])
def test_balance_rule_holds_after_reassignment(gater):
    X, y = xor(80)
    m = MixtureSVC(SVC(C=10, sigma=0.5),
                   gater=GlobalGater(holdout=False) if gater == "global" else gater,
                   n_experts=3, max_iter=3, client="serial", validation_fraction=0.1,
                   refit_held_out=False, random_state=0).fit(X, y)
    L = int(np.sum(m.assignment_ >= 0))
    assert L == 72
    assert len(m.expert_sizes_) == 3
    for sizes in m.expert_sizes_:
        assert sizes.sum() == L
        assert sizes.max() <= L / 3 + 1
    # the partition of the iteration returned (the one with the best validation error)
    np.testing.assert_array_equal(np.bincount(m.assignment_[m.assignment_ >= 0], minlength=3),
                                  m.expert_sizes_[m.best_iteration_])


def test_without_balance_one_expert_takes_more():
    X, y = xor(80)
    kw = dict(expert=SVC(kernel="linear", C=10), gater=GlobalGater(epochs=50, batch_size=16),
              n_experts=4, max_iter=3, client="serial", validation_fraction=None, random_state=0)
    free = MixtureSVC(balance=False, **kw).fit(X, y)
    assert free.expert_sizes_[-1].max() > 80 // 4 + 1


# ---------------------------------------------------------------------------------------------
# Against independent references


def test_one_expert_is_a_single_svc():
    X, y = xor(80)
    for gater in ("global", "uniform"):
        m = MixtureSVC(SVC(C=10, sigma=0.5), gater=gater, n_experts=1, validation_fraction=None,
                       client="serial", random_state=0).fit(X, y)
        s = SVC(C=10, sigma=0.5).fit(X, y)
        # The mixture evaluates its experts in float32.
        np.testing.assert_allclose(m.decision_function(X), s.decision_function(X), atol=1e-5)
        np.testing.assert_array_equal(m.predict(X), s.predict(X))
        np.testing.assert_allclose(m.gate(X), 1.0)


def test_global_gater_lowers_training_cost_vs_uniform():
    """Linear experts on XOR: averaged they cannot do better than chance, but a gater splitting
    the plane lets each one solve its half (thesis Fig. 6.1)."""
    X, y = xor(80)
    kw = dict(expert=SVC(kernel="linear", C=10), n_experts=2, max_iter=4,
              validation_fraction=None, client="serial", random_state=0)
    g = MixtureSVC(gater=GlobalGater(epochs=100, batch_size=16, learning_rate=0.01, n_hidden=8,
                                     holdout=False), **kw).fit(X, y)
    u = MixtureSVC(gater="uniform", **kw).fit(X, y)
    ys = np.where(y == g.classes_[1], 1.0, -1.0)

    def cost(m):  # the global criterion computed from the public parts
        out = np.sum(m.gate(X) * m.expert_decisions(X), axis=1)
        return 0.5 * np.mean((ys - np.tanh(out)) ** 2)

    np.testing.assert_allclose(cost(g), g.train_costs_[-1], rtol=1e-10)
    np.testing.assert_allclose(cost(u), u.train_costs_[-1], rtol=1e-10)
    assert cost(g) < 0.5 * cost(u)
    assert g.train_costs_[-1] < g.train_costs_[0]  # reassignment helped
    assert np.mean(g.predict(X) != y) < np.mean(u.predict(X) != y)


def test_gater_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 3))
    y = np.sign(rng.standard_normal(30))
    F = rng.standard_normal((30, 4))
    g = GaterMLP(3, 5, 4, np.random.default_rng(0))
    g.W2 *= 100  # a gater far from uniform
    g.mean_, g.scale_ = np.zeros(3), np.ones(3)
    # One full-batch plain step of Adam moves each weight by about -lr * sign(gradient): compare
    # those signs with central differences of the global cost.
    before = [p.copy() for p in (g.W1, g.b1, g.W2, g.b2)]

    def cost():
        return GaterMLP.cost(g.gate(X), F, y)

    numeric = []
    for p in (g.W1, g.b1, g.W2, g.b2):
        d = np.zeros_like(p)
        for i in np.ndindex(p.shape):
            old = p[i]
            p[i] = old + 1e-6
            c1 = cost()
            p[i] = old - 1e-6
            c2 = cost()
            p[i] = old
            d[i] = (c1 - c2) / 2e-6
        numeric.append(d)
    g.fit(X, y, F, epochs=1, learning_rate=1e-7, batch_size=30, rng=np.random.default_rng(0))
    for p0, p, d in zip(before, (g.W1, g.b1, g.W2, g.b2), numeric):
        step = p - p0
        big = np.abs(d) > 1e-5
        assert big.any()
        np.testing.assert_array_equal(np.sign(step[big]), -np.sign(d[big]))


def test_float32_expert_decisions_match_svc():
    rng = np.random.default_rng(4)
    X = rng.random((80, 30))
    y = np.where(X[:, 0] + X[:, 1] > 1, 1, -1)
    m = MixtureSVC(SVC(C=10, sigma=1.0), n_experts=2, client="serial", random_state=0).fit(X, y)
    Xt = rng.random((50, 30)) + 5.0  # far from the data: the centring matters
    for k, e in enumerate(m.experts_):
        np.testing.assert_allclose(m.expert_decisions(X)[:, k], e.decision_function(X),
                                   rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(m.expert_decisions(Xt)[:, k], e.decision_function(Xt),
                                   rtol=1e-5, atol=1e-5)


def test_platt_fit_of_the_experts_matches_scipy():
    rng = np.random.default_rng(2)
    f = rng.standard_normal(60) * 2
    y = np.where(f + rng.standard_normal(60) > 0, 1.0, -1.0)
    a, b = platt_fit(f, y)
    n_pos, n_neg = np.sum(y > 0), np.sum(y < 0)
    t = np.where(y > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def nll(p):
        q = 1 / (1 + np.exp(-(p[0] * f + p[1])))
        return -np.sum(t * np.log(q) + (1 - t) * np.log(1 - q))

    ref = minimize(nll, [0.0, 0.0], method="Nelder-Mead", options=dict(xatol=1e-9, fatol=1e-12))
    np.testing.assert_allclose([a, b], ref.x, atol=1e-4)


def test_local_gater_combines_posteriors():
    X, y = xor(80)
    m = MixtureSVC(SVC(C=10, sigma=0.5), gater="local", n_experts=3, max_iter=2, client="serial",
                   refit_held_out=False, random_state=0).fit(X, y)
    G = m.gate(X)
    np.testing.assert_allclose(G.sum(axis=1), 1.0)
    # P(k|x) by Bayes from the densities and the priors |D_k| / L, computed here.
    logpx = np.column_stack([d.score_samples(X) for d in m.densities_])
    L = np.sum(m.assignment_ >= 0)
    joint = np.exp(logpx) * (m.expert_sizes_[m.best_iteration_] / L)
    np.testing.assert_allclose(G, joint / joint.sum(axis=1, keepdims=True), atol=1e-10)
    F = m.expert_decisions(X)
    p = np.sum(G / (1 + np.exp(-(m.platt_[:, 0] * F + m.platt_[:, 1]))), axis=1)
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], p, rtol=1e-8)
    np.testing.assert_array_equal(m.predict(X), np.where(p > 0.5, 1, -1))


@pytest.mark.parametrize("gater", ["global", "local", "uniform"])
def test_validation_errors_per_iteration(gater):
    X, y = xor(80)
    m = MixtureSVC(SVC(C=10, sigma=0.5),
                   gater=GlobalGater(holdout=False) if gater == "global" else gater,
                   n_experts=2, max_iter=3, client="serial", validation_fraction=0.25,
                   refit_held_out=False, random_state=3).fit(X, y)
    expected = 1 if gater == "uniform" else 3
    assert m.n_iter_ == expected
    for arr in (m.validation_errors_, m.train_errors_, m.train_costs_):
        assert arr.shape == (expected,)
    held = m.assignment_ < 0
    assert held.sum() == 20
    # The model returned is the iteration with the best validation error (thesis Alg. 6.1):
    # its error on the held-out points is the minimum of the recorded ones.
    best = m.best_iteration_
    assert m.validation_errors_[best] == m.validation_errors_.min()
    assert m.validation_errors_[best] == pytest.approx(np.mean(m.predict(X[held]) != y[held]))
    assert m.train_errors_[best] == pytest.approx(np.mean(m.predict(X[~held]) != y[~held]))
    assert m.parallel_time_ > 0 and m.fit_time_ >= m.parallel_time_
    assert m.cpu_time_ >= sum(t.sum() for t in m.expert_times_)


def test_fewer_iterations_are_a_prefix():
    X, y = xor(80)
    kw = dict(expert=SVC(C=10, sigma=0.5), n_experts=3, client="serial", random_state=5)
    short = MixtureSVC(max_iter=2, **kw).fit(X, y)
    long = MixtureSVC(max_iter=3, **kw).fit(X, y)
    np.testing.assert_array_equal(short.validation_errors_, long.validation_errors_[:2])
    np.testing.assert_array_equal(short.train_costs_, long.train_costs_[:2])
    for a, b in zip(short.expert_sizes_, long.expert_sizes_):
        np.testing.assert_array_equal(a, b)


def test_callback_stops_and_labels_are_kept():
    X, y = xor(60)
    labels = np.where(y > 0, "yes", "no")
    seen = []
    m = MixtureSVC(SVC(C=10, sigma=0.5), n_experts=2, max_iter=5, client="serial", random_state=0,
                   callback=lambda info: seen.append((info["iteration"], info["validation_error"])) or info["iteration"] < 1)
    m.fit(X, labels)
    assert [s[0] for s in seen] == [0, 1] and m.n_iter_ == 2
    assert set(m.predict(X)) <= {"yes", "no"}
    np.testing.assert_array_equal(m.classes_, ["no", "yes"])


# ---------------------------------------------------------------------------------------------
# Dask


@pytest.mark.parametrize("gater", ["global", "local"])
def test_serial_and_dask_give_the_same_model(client, gater):
    X, y = xor(80)
    kw = dict(expert=SVC(C=10, sigma=0.5), gater=gater, n_experts=3, max_iter=3, random_state=7)
    a = MixtureSVC(client="serial", **kw).fit(X, y)
    b = MixtureSVC(**kw).fit(X, y, client=client)
    for sa, sb in zip(a.expert_sizes_, b.expert_sizes_):
        np.testing.assert_array_equal(sa, sb)
    np.testing.assert_array_equal(a.assignment_, b.assignment_)
    Xt, _ = xor(200, seed=5)
    np.testing.assert_array_equal(a.predict(Xt), b.predict(Xt))
    np.testing.assert_array_equal(a.decision_function(Xt), b.decision_function(Xt))


def test_embedded_local_cluster(monkeypatch):
    """client=None starts a LocalCluster for the fit, and closes it at the end."""
    import kernelnb.largescale._dask as kd

    started = []
    original = kd.local_client

    def spy(**kwargs):
        c = original(**kwargs)
        started.append(c)
        return c

    monkeypatch.setattr(kd, "local_client", spy)
    X, y = xor(60)
    kw = dict(expert=SVC(C=10, sigma=0.5), n_experts=2, max_iter=2, random_state=0)
    a = MixtureSVC(client=None, n_jobs=1, **kw).fit(X, y)
    b = MixtureSVC(client="serial", **kw).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert len(started) == 1 and started[0].status == "closed"


def test_data_scattered_once_and_tasks_get_indices(client):
    X, y = xor(80)
    wrapped = CountingClient(client)
    m = MixtureSVC(SVC(C=10, sigma=0.5), n_experts=4, max_iter=3, random_state=0)
    m.fit(X, y, client=wrapped)
    # once for the outer iterations, once for the refit on the held-out points (all of X)
    assert wrapped.scatters == 2
    assert len(wrapped.submitted) == 4 * 3 + 4  # one task per expert and iteration, and refit
    for i, args in enumerate(wrapped.submitted):
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        # the index array; the data travel as futures.  A refit task also carries its expert's
        # warm start: one dual coefficient per point of its index array
        assert len(arrays) == (1 if i < 4 * 3 else 2)
        assert arrays[0].ndim == 1 and arrays[0].dtype.kind == "i"
        if len(arrays) == 2:
            assert arrays[1].dtype.kind == "f" and arrays[1].shape == arrays[0].shape


def test_dask_grid_search_matches_serial(client):
    X, y = xor(60)
    grid = {"C": [1.0, 10.0], "sigma": [0.3, 1.0]}
    est = SVC(n_jobs=1)
    ours = dask_grid_search(est, grid, X, y, cv=3, client=client, progress=False)
    ref = GridSearchCV(est, grid, cv=3).fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               ref.cv_results_["mean_test_score"])
    assert ours.best_params_ == ref.best_params_
    serial = dask_grid_search(est, grid, X, y, cv=3, client="serial", progress=False)
    assert serial.best_params_ == ref.best_params_


# ---------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize("kwargs,match", [
    (dict(n_experts=0), "n_experts"),
    (dict(n_experts=2.5), "n_experts"),
    (dict(n_experts="many"), "n_experts"),
    (dict(gater="soft"), "gater"),
    (dict(max_iter=0), "max_iter"),
    (dict(validation_fraction=1.0), "validation_fraction"),
    (dict(expert=SVC(C=-1.0)), "C"),
    (dict(expert=SVC(kernel="precomputed")), "precomputed"),
    (dict(client=42), "client"),
])
def test_bad_parameters(kwargs, match):
    X, y = xor(40)
    base = dict(client="serial")
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        MixtureSVC(**base).fit(X, y)


def test_bad_data():
    X, y = xor(40)
    with pytest.raises(ValueError, match="n_experts=50 is larger"):
        MixtureSVC(n_experts=50, client="serial").fit(X, y)
    with pytest.raises(ValueError, match="1 class"):
        MixtureSVC(client="serial").fit(X, np.ones(40))
    with pytest.raises(ValueError, match="X_val and y_val"):
        MixtureSVC(client="serial").fit(X, y, X_val=X[:5])
    with pytest.raises(ValueError, match="not in y"):
        MixtureSVC(client="serial").fit(X, y, X_val=X[:3], y_val=[1, -1, 7])


@pytest.mark.parametrize("n,expected", [(40, 2), (4000, 2), (7000, 3), (12000, 4)])
def test_auto_experts_hold_about_2000_pool_points(n, expected):
    """n_experts='auto' (the default): one expert per 2,000 points of the pool -- the expert
    size of the thesis's Forest runs, 100,000 examples for 50 experts -- at least 2.  The
    expected counts are round(0.72 n / 2000): the pool is what is left after a tenth for
    validation and a fifth of the rest for the gater."""
    rng = np.random.default_rng(n)
    X = rng.uniform(-1, 1, (n, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    m = MixtureSVC(SVC(C=1.0, sigma=0.5), gater=GlobalGater(epochs=1), max_iter=1,
                   client="serial", refit_held_out=False, random_state=0)
    assert m.get_params()["n_experts"] == "auto"
    assert m.pool_size(n) == n - n // 10 - (n - n // 10) // 5
    m.fit(X, y)
    assert m.n_experts_ == expected == len(m.experts_)
    sizes = m.expert_sizes_[0]
    assert sizes.sum() == m.pool_size(n)
    assert sizes.max() <= m.pool_size(n) // expected + 1
    if n >= 7000:
        assert abs(np.mean(sizes) - 2000) < 400


def test_given_validation_set_is_used_whole_and_not_trained_on():
    """With X_val, y_val the validation error of each outer iteration is measured on them (no
    part of X held out), and the returned iteration's error is the model's own on them (linear
    experts: the fit and predict evaluate them the same way)."""
    X, y = xor(120)
    Xv, yv = xor(50, seed=1)
    kw = dict(expert=SVC(kernel="linear", C=10), gater=GlobalGater(epochs=20, holdout=False),
              n_experts=2, max_iter=3, n_iter_no_change=None, refit_held_out=False,
              client="serial", random_state=0)
    m = MixtureSVC(**kw).fit(X, y, X_val=Xv, y_val=yv)
    assert not np.any(m.assignment_ == -1)                 # every point of X trains an expert
    assert int(np.sum(m.expert_sizes_[0])) == 120
    assert m.validation_errors_[m.best_iteration_] == np.mean(m.predict(Xv) != yv)
    assert m.validation_errors_[m.best_iteration_] == m.validation_errors_.min()
    # without them, validation_fraction of X is held out
    h = MixtureSVC(**kw).fit(X, y)
    assert np.sum(h.assignment_ == -1) == 12


# ---------------------------------------------------------------------------------------------
# Bounded work per iteration, best iteration kept, early stopping (thesis Alg. 6.1)


def blobs(n, seed=0, noise=0.1):
    """Noisy two-class problem of Gaussian clusters (labels flipped with probability noise)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=2.0, size=(8, 3))
    k = rng.integers(0, 8, n)
    X = centres[k] + rng.normal(size=(n, 3))
    y = np.where((k % 2 == 0) ^ (rng.random(n) < noise), 1, -1)
    return X, y


def test_gater_points_and_expert_evaluations_are_bounded(monkeypatch):
    """Each expert is evaluated on the gater's subsample and the validation set only, never on
    all L training points; the gater is trained on at most its n_samples points."""
    import kernelnb.largescale.mixture as mx

    sizes = []
    original = mx._expert_decision

    def spy(expert, X, prepared, regression):
        sizes.append(X.shape[0])
        return original(expert, X, prepared, regression)

    monkeypatch.setattr(mx, "_expert_decision", spy)
    fits = []
    original_fit = mx.GaterMLP.fit

    def spy_fit(self, X, y, F, *args, **kwargs):
        fits.append((X.shape[0], F.shape))
        return original_fit(self, X, y, F, *args, **kwargs)

    monkeypatch.setattr(mx.GaterMLP, "fit", spy_fit)
    X, y = blobs(1500)
    m = MixtureSVC(SVC(C=10, sigma=1.0), gater=GlobalGater(n_samples=200), n_experts=4,
                   max_iter=2, client="serial", validation_fraction=0.2, max_validation=100,
                   n_iter_no_change=None, refit_held_out=False, random_state=0).fit(X, y)
    assert m.gater_samples_ == 200
    assert fits == [(200, (200, 4))] * 2
    # per expert and iteration: 200 gater points, then the 100 validation points
    assert sorted(set(sizes)) == [100, 200] and len(sizes) == 2 * 4 * 2
    assert np.sum(m.assignment_ == -1) == 100
    # the gater's points are held out from the experts; the reassignment covers all the others
    assert np.sum(m.assignment_ == -2) == 200
    P = 1400 - 200
    assert all(s.sum() == P and s.max() <= P // 4 + 1 for s in m.expert_sizes_)


def test_best_iteration_is_returned():
    """The returned model is the iteration with the lowest validation error, whichever it is;
    its predictions are that iteration's, not the last one's."""
    X, y = blobs(600, seed=2)
    kw = dict(expert=SVC(C=10, sigma=1.0), gater=GlobalGater(epochs=3, holdout=False),
              n_experts=3, client="serial", validation_fraction=0.3, random_state=0,
              n_iter_no_change=None, refit_held_out=False)
    m = MixtureSVC(max_iter=6, **kw).fit(X, y)
    b = m.best_iteration_
    assert 0 < b < 5  # this seed's errors fall, then rise: a minimum in the middle
    assert m.validation_errors_[b] == m.validation_errors_.min()
    assert np.all(m.validation_errors_[:b] > m.validation_errors_[b])  # the first minimum
    held = m.assignment_ < 0
    assert np.mean(m.predict(X[held]) != y[held]) == pytest.approx(m.validation_errors_[b])
    # the same model as a fit stopped after that iteration (iterations are a prefix)
    short = MixtureSVC(max_iter=b + 1, **kw).fit(X, y)
    np.testing.assert_allclose(m.decision_function(X), short.decision_function(X))


def test_early_stopping_on_validation_error():
    X, y = blobs(600, seed=2)
    kw = dict(expert=SVC(C=10, sigma=1.0), gater=GlobalGater(epochs=3, holdout=False),
              n_experts=3, max_iter=6, client="serial", validation_fraction=0.3, random_state=0)
    full = MixtureSVC(n_iter_no_change=None, **kw).fit(X, y)
    errs = full.validation_errors_
    stops = []
    for patience in (1, 2, 3):
        m = MixtureSVC(n_iter_no_change=patience, **kw).fit(X, y)
        # stops at the first iteration where the error has not improved `patience` times
        best, since, expected = np.inf, 0, len(errs)
        for i, e in enumerate(errs):
            best, since = (e, 0) if e < best else (best, since + 1)
            if since >= patience:
                expected = i + 1
                break
        assert m.n_iter_ == expected
        np.testing.assert_array_equal(m.validation_errors_, errs[:expected])
        assert m.best_iteration_ == int(np.argmin(errs[:expected]))
        stops.append(expected)
    assert stops[0] < len(errs)  # this seed stops early at least once


def test_balanced_assignment_with_many_experts_matches_naive():
    """More experts than the preferences kept per example: the rows whose first choices are all
    full fall back to their whole order."""
    rng = np.random.default_rng(3)
    n, k = 400, 40
    scores = rng.random((n, k))
    scores[:, :20] += 1.0  # everybody prefers the first 20: they fill up
    order = rng.permutation(n)
    cap = n // k + 1
    got = balanced_assignment(scores, cap, order)
    np.testing.assert_array_equal(got, naive_assignment(scores, cap, order))


def test_sigma_scale_resolved_once_for_all_experts():
    """sigma='scale' gives every expert of every iteration the width of the whole training set
    (resolved per expert, a regional subset would get a narrower kernel)."""
    from kernelnb.kernels import scale_sigma

    X, y = blobs(800, seed=1)
    X[:, 0] *= 3.0
    widths = []
    m = MixtureSVC(SVC(C=10, sigma="scale"), n_experts=3, max_iter=3, client="serial",
                   n_iter_no_change=None, refit_held_out=False, random_state=0)
    m.callback = lambda info: widths.extend(e.kernel_.sigma for e in m.experts_)
    m.fit(X, y)
    held = m.assignment_ == -1
    assert m.sigma_ == pytest.approx(scale_sigma(X[~held]))
    np.testing.assert_allclose(widths, m.sigma_)
    assert len(widths) == 9
    # what the experts would have chosen on their own differs
    own = [scale_sigma(X[m.assignment_ == k]) for k in range(3)]
    assert max(abs(w - m.sigma_) for w in own) > 1e-3 * m.sigma_


def test_gater_points_held_out_from_the_experts():
    """GlobalGater(holdout=True): the gater learns from outputs on points no expert was trained on; the
    training error recorded is the returned model's error on those points."""
    X, y = blobs(700, seed=3)
    m = MixtureSVC(SVC(C=10, sigma=1.0), n_experts=3, max_iter=3, client="serial",
                   random_state=0, validation_fraction=0.2, refit_held_out=False).fit(X, y)
    gate_pts = m.assignment_ == -2
    assert gate_pts.sum() == 560 // 5
    for k, e in enumerate(m.experts_):
        # every support vector of expert k is one of its own points, none of the gater's
        own = X[m.assignment_ == k]
        assert all(np.any(np.all(own == sv, axis=1)) for sv in e.support_vectors_)
        assert not any(np.any(np.all(X[gate_pts] == sv, axis=1)) for sv in e.support_vectors_)
    b = m.best_iteration_
    assert m.train_errors_[b] == pytest.approx(np.mean(m.predict(X[gate_pts]) != y[gate_pts]))
    # the thesis's variant gives the experts every training point
    t = MixtureSVC(SVC(C=10, sigma=1.0), gater=GlobalGater(holdout=False), n_experts=3,
                   max_iter=1, client="serial", random_state=0, validation_fraction=0.2,
                   refit_held_out=False).fit(X, y)
    assert np.sum(t.assignment_ == -2) == 0 and np.sum(t.assignment_ >= 0) == 560


@pytest.mark.parametrize("gater", ["global", "local"])
def test_more_classes_one_mixture_per_class(gater):
    # Three classes, one two-class mixture per class against the rest: each expert is the SVC
    # fitted directly on its assigned points with that class's +-1 labels (the refit starts it
    # from its iteration's solution: the same optimum within the solver's stopping rule, a KKT
    # violation <= tol = 1e-3, so outputs of order 1 agree to a few tol), every gater's weights
    # sum to one, and the prediction is the class of the largest decision value.
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(60, 2) + c for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat(["a", "b", "c"], 60)
    m = MixtureSVC(SVC(C=1.0, sigma=1.0), gater=GlobalGater(epochs=2) if gater == "global"
                   else gater, n_experts=2, max_iter=2, client="serial", random_state=0).fit(X, y)
    assert list(m.classes_) == ["a", "b", "c"] and len(m.estimators_) == 3
    D = m.decision_function(X)
    assert D.shape == (180, 3)
    for j, (c, est) in enumerate(zip(m.classes_, m.estimators_)):
        np.testing.assert_allclose(est.gate(X).sum(axis=1), 1.0, rtol=1e-6)
        np.testing.assert_array_equal(D[:, j], est.decision_function(X))
        t = np.where(y == c, 1.0, -1.0)
        for k, expert in enumerate(est.experts_):
            idx = np.flatnonzero(est.assignment_ == k)
            ref = SVC(C=1.0, sigma=est.sigma_, n_jobs=1).fit(X[idx], t[idx])
            np.testing.assert_allclose(expert.decision_function(X), ref.decision_function(X),
                                       atol=5e-3)
    np.testing.assert_array_equal(m.predict(X), m.classes_[np.argmax(D, axis=1)])
    np.testing.assert_allclose(m.predict_proba(X).sum(axis=1), 1.0)
    assert m.score(X, y) > 0.85
    with pytest.raises(ValueError, match="estimators_"):
        m.gate(X)
