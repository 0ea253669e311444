"""MixtureSVC/MixtureSVR ``refit_held_out``: the validation and gater points handed to the
experts after the outer iterations, every expert refitted once on all its points."""
import numpy as np
import pytest

from kernelnb.largescale import GlobalGater, MixtureSVC, MixtureSVR
from kernelnb.largescale.mixture import _assign_from_preferences, _top_preferences
from kernelnb.svm import SVC, SVR


def xor(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1, -1)


KW = {"n_experts": 3, "max_iter": 2, "client": "serial", "validation_fraction": 0.2,
      "random_state": 0}


def expert(kernel="rbf"):
    return SVC(C=10, sigma=0.5, kernel=kernel)


def gater(name="global", **params):
    return GlobalGater(epochs=3, **params) if name == "global" else name


def test_balance_rule_counts_the_points_experts_already_hold():
    """Each example in turn to its best expert (ties: lower index) holding fewer than the
    capacity, the experts starting with ``counts`` examples: written plainly."""
    rng = np.random.default_rng(0)
    n, k, cap = 40, 4, 22
    counts = np.array([20, 2, 22, 2])     # expert 2 full from the start
    scores = rng.random((n, k))
    scores[:, 0] += 1.0                    # expert 0, nearly full, is everybody's first choice
    order = rng.permutation(n)
    held = counts.copy()
    want = np.empty(n, dtype=int)
    for l in order:
        want[l] = int(np.argmax(np.where(held < cap, scores[l], -np.inf)))
        held[want[l]] += 1
    got = _assign_from_preferences(_top_preferences(scores), lambda l: scores[l], n, k, cap,
                                   order, counts=counts)
    np.testing.assert_array_equal(got, want)
    assert (counts + np.bincount(got, minlength=k) <= cap).all()
    with pytest.raises(ValueError, match="besides the 46 they hold"):
        _assign_from_preferences(_top_preferences(scores), lambda l: scores[l], n, k, 21,
                                 order, counts=counts)


# a linear kernel: experts without the float32 Gaussian evaluation (the refit, which evaluates
# its experts nowhere, failed on them)
@pytest.mark.parametrize("name,kernel", [("global", "rbf"), ("uniform", "rbf"),
                                         ("global", "linear")])
def test_refit_experts_are_svcs_on_all_their_points(name, kernel):
    X, y = xor(200)
    base = MixtureSVC(expert(kernel), gater=gater(name), refit_held_out=False, **KW).fit(X, y)
    m = MixtureSVC(expert(kernel), gater=gater(name), **KW).fit(X, y)   # refit_held_out=True
    held = base.assignment_ < 0
    assert held.sum() >= 40                          # the validation set, and the gater's points
    assert (m.assignment_ >= 0).all()                # every point now belongs to an expert
    # the same iterations, then the held-out points added: the pool points stay where they were
    np.testing.assert_array_equal(m.assignment_[~held], base.assignment_[~held])
    assert m.best_iteration_ == base.best_iteration_
    np.testing.assert_array_equal(m.validation_errors_, base.validation_errors_)
    assert np.bincount(m.assignment_, minlength=3).max() <= 200 // 3 + 1   # the balance rule
    if name == "global":
        # the gater is not retrained: the same weights as without the refit
        np.testing.assert_array_equal(m.gate(X), base.gate(X))
    # each expert is one SVC on its points, started from the iteration's expert (its dual
    # variables on its old points, zero on the added ones): the same solver on the same data
    # from the same start gives the same numbers; a cold start reaches the same optimum within
    # the solver's stopping rule (a KKT violation <= tol = 1e-3 for both, so their outputs,
    # of order 1, differ by a few tol)
    Xt = xor(50, seed=1)[0]
    for k, e in enumerate(m.experts_):
        own = m.assignment_ == k
        old, new = np.flatnonzero(base.assignment_ == k), np.flatnonzero(own)
        assert np.isin(old, new).all() and len(new) > len(old)
        init = np.zeros(len(new))
        init[np.searchsorted(new, old)[base.experts_[k].support_]] = \
            base.experts_[k].dual_coef_[0]
        warm = SVC(C=10, kernel=kernel, sigma=0.5, n_jobs=1).fit(X[own], y[own],
                                                                  alpha_init=init)
        np.testing.assert_allclose(e.decision_function(Xt), warm.decision_function(Xt),
                                   rtol=1e-9, atol=1e-9)
        cold = SVC(C=10, kernel=kernel, sigma=0.5, n_jobs=1).fit(X[own], y[own])
        np.testing.assert_allclose(e.decision_function(Xt), cold.decision_function(Xt),
                                   atol=5e-3)
    np.testing.assert_allclose(m.decision_function(Xt),
                               np.sum(m.gate(Xt) * m.expert_decisions(Xt), axis=1), rtol=1e-12)


def test_refit_without_held_out_points_changes_nothing():
    """A given validation set and no gater holdout: every point of X already trains."""
    X, y = xor(150)
    Xv, yv = xor(60, seed=2)
    kw = {**KW, "expert": expert(), "gater": gater(holdout=False)}
    base = MixtureSVC(refit_held_out=False, **kw).fit(X, y, X_val=Xv, y_val=yv)
    m = MixtureSVC(refit_held_out=True, **kw).fit(X, y, X_val=Xv, y_val=yv)
    np.testing.assert_array_equal(m.assignment_, base.assignment_)
    np.testing.assert_array_equal(m.decision_function(Xv), base.decision_function(Xv))


def test_refit_local_gater_refits_its_densities_and_priors():
    X, y = xor(200)
    m = MixtureSVC(expert(), gater="local", refit_held_out=True,
                   **{**KW, "max_iter": 1}).fit(X, y)
    assert (m.assignment_ >= 0).all()
    sizes = np.bincount(m.assignment_, minlength=3)
    np.testing.assert_allclose(np.exp(m.log_prior_), sizes / 200, rtol=1e-12)
    for k, d in enumerate(m.densities_):   # one diagonal Gaussian per expert: its points' mean
        np.testing.assert_allclose(d.means_[0], X[m.assignment_ == k].mean(axis=0), rtol=1e-6)


def test_refit_multiclass_and_regression():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (180, 2))
    y = np.digitize(X[:, 0], [-0.33, 0.33])            # three bands
    kw = {**KW, "max_iter": 1, "gater": gater()}
    m = MixtureSVC(expert(), refit_held_out=True, **kw).fit(X, y)
    for est in m.estimators_:
        assert (est.assignment_ >= 0).all()
    assert np.mean(m.predict(X) == y) > 0.9
    t = np.sin(3 * X[:, 0])
    r = MixtureSVR(SVR(C=10, sigma=0.5, epsilon=0.1), refit_held_out=True, **kw).fit(X, t)
    assert (r.assignment_ >= 0).all()
    own = r.assignment_ == 0
    s = SVR(C=10, sigma=0.5, epsilon=0.1, n_jobs=1).fit(X[own], (t[own] - r.y_mean_) / r.y_scale_)
    np.testing.assert_allclose(r.experts_[0].predict(X), s.predict(X), rtol=1e-9, atol=1e-9)
