"""MixtureSVR: the regression hard mixture against kernelnb's SVR trained on the same subsets,
the mixed prediction against the gater and the experts, bad input."""
import numpy as np
import pytest
from sklearn.datasets import make_friedman1

from kernelnb.largescale import GaterMLP, GlobalGater, MixtureSVR
from kernelnb.svm import SVR


def _data(n=400, seed=0):
    X, y = make_friedman1(n, 5, noise=0.3, random_state=seed)
    return X, 10.0 * y + 3.0


def test_one_expert_is_kernelnb_svr_on_standardised_targets():
    X, y = _data(200)
    mix = MixtureSVR(SVR(C=2.0, epsilon=0.05, sigma=2.0), n_experts=1, validation_fraction=None,
                     client="serial", random_state=0).fit(X, y)
    m, s = y.mean(), y.std()
    ref = SVR(C=2.0, epsilon=0.05, sigma=2.0).fit(X, (y - m) / s)
    np.testing.assert_allclose(mix.predict(X), ref.predict(X) * s + m, rtol=1e-6, atol=1e-6)
    assert mix.y_mean_ == pytest.approx(m) and mix.y_scale_ == pytest.approx(s)


def test_given_validation_set_gives_the_validation_errors():
    X, y = _data(200)
    Xv, yv = _data(60, seed=1)
    mix = MixtureSVR(SVR(kernel="linear", C=1.0), gater=GlobalGater(holdout=False), n_experts=2,
                     max_iter=2, n_iter_no_change=None, client="serial",
                     random_state=0).fit(X, y, X_val=Xv, y_val=yv)
    assert not np.any(mix.assignment_ == -1)
    mse = np.mean((mix.predict(Xv) - yv) ** 2)
    assert mix.validation_errors_[mix.best_iteration_] == pytest.approx(mse, rel=1e-9)


def test_uniform_gater_averages_svr_experts_of_the_partition():
    X, y = _data(300)
    mix = MixtureSVR(SVR(C=1.0, sigma="scale"), gater="uniform", n_experts=3, client="serial",
                     random_state=1).fit(X, y)
    ys = (y - mix.y_mean_) / mix.y_scale_
    own = []
    for k in range(3):
        idx = np.flatnonzero(mix.assignment_ == k)
        e = SVR(C=1.0, epsilon=0.1, sigma=mix.sigma_).fit(X[idx], ys[idx])
        np.testing.assert_allclose(mix.experts_[k].predict(X), e.predict(X), rtol=1e-6,
                                   atol=1e-6)
        own.append(e.predict(X))
    np.testing.assert_allclose(mix.predict(X), np.mean(own, axis=0) * mix.y_scale_
                               + mix.y_mean_, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(mix.gate(X), 1 / 3)


def test_global_gater_prediction_and_recorded_errors():
    X, y = _data(600)
    Xt, yt = _data(400, seed=1)
    mix = MixtureSVR(SVR(C=10.0, sigma="scale"), gater=GlobalGater(epochs=20), n_experts=3,
                     max_iter=2, n_iter_no_change=None, refit_held_out=False, client="serial",
                     random_state=0).fit(X, y)
    G, F = mix.gate(Xt), mix.expert_decisions(Xt)
    np.testing.assert_allclose(G.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(mix.predict(Xt), np.sum(G * F, axis=1) * mix.y_scale_
                               + mix.y_mean_, rtol=1e-10)
    assert mix.score(Xt, yt) > 0.8
    # the validation error of the kept iteration is the MSE of the prediction on those points
    val = mix.assignment_ == -1
    mse = np.mean((mix.predict(X[val]) - y[val]) ** 2)
    assert mix.validation_errors_[mix.best_iteration_] == pytest.approx(mse, rel=1e-3)
    assert mix.train_errors_.shape == (mix.n_iter_,)


def test_identity_link_gater_cost():
    rng = np.random.default_rng(0)
    G = rng.dirichlet(np.ones(3), size=10)
    F = rng.standard_normal((10, 3))
    y = rng.standard_normal(10)
    assert GaterMLP.cost(G, F, y, "identity") == pytest.approx(
        0.5 * np.mean((y - np.sum(G * F, axis=1)) ** 2))
    with pytest.raises(ValueError, match="link"):
        GaterMLP(2, 3, 2, rng, link="relu")


@pytest.mark.parametrize("params,name", [({"gater": "bayes"}, "gater"),
                                         ({"expert": SVR(epsilon=-1.0)}, "epsilon"),
                                         ({"n_experts": 0}, "n_experts")])
def test_bad_parameters(params, name):
    X, y = _data(50)
    with pytest.raises(ValueError, match=name):
        MixtureSVR(client="serial", **params).fit(X, y)


def test_local_gater_is_bayes_rule_on_the_experts_densities():
    # Two regions with different functions: the local gater's P(k|x) is Bayes' rule on the
    # experts' Gaussian mixtures (recomputed here with scikit-learn's), each expert is kernelnb's
    # SVR on its assigned points, the prediction is sum_k P(k|x) f_k(x), and the noise
    # variance of P(y|x,k) is the expert's mean squared residual on its own points.
    from scipy.special import logsumexp
    from sklearn.mixture import GaussianMixture

    rng = np.random.RandomState(0)
    X = np.vstack([rng.uniform(-3, -1, (120, 1)), rng.uniform(1, 3, (120, 1))])
    y = np.where(X[:, 0] < 0, np.sin(3 * X[:, 0]), 0.3 * X[:, 0]) + 0.05 * rng.randn(240)
    mix = MixtureSVR(SVR(C=10.0, sigma=0.5), gater="local", n_experts=2, max_iter=2,
                     n_iter_no_change=None, client="serial", random_state=0).fit(X, y)
    G = mix.gate(X)
    np.testing.assert_allclose(G.sum(axis=1), 1.0, rtol=1e-12)
    ys = (y - mix.y_mean_) / mix.y_scale_
    logp = []
    for k, expert in enumerate(mix.experts_):
        idx = np.flatnonzero(mix.assignment_ == k)
        ref = SVR(C=10.0, epsilon=0.1, sigma=0.5, n_jobs=1).fit(X[idx], ys[idx])
        np.testing.assert_allclose(expert.predict(X), ref.predict(X), rtol=1e-10, atol=1e-12)
        res = np.mean((ys[idx] - ref.predict(X[idx])) ** 2)
        # the fit evaluates the experts in float32 (outputs within ~1e-6 relative); residuals
        # of ~0.08 then carry ~1e-5 relative error, their mean square twice that
        assert mix.platt_[k, 0] == pytest.approx(max(res, 1e-4), rel=1e-4)
        gmm = GaussianMixture(1, covariance_type="diag", reg_covar=1e-3).fit(X[idx])
        logp.append(gmm.score_samples(X) + np.log(idx.size / np.sum(mix.assignment_ >= 0)))
    logp = np.column_stack(logp)
    np.testing.assert_allclose(G, np.exp(logp - logsumexp(logp, axis=1, keepdims=True)),
                               rtol=1e-6, atol=1e-9)
    F = np.column_stack([e.predict(X) for e in mix.experts_])
    np.testing.assert_allclose(mix.predict(X), np.sum(G * F, axis=1) * mix.y_scale_ + mix.y_mean_,
                               rtol=1e-6, atol=1e-6)
    assert mix.score(X, y) > 0.9


def test_auto_experts_hold_about_2000_pool_points():
    """MixtureSVR's default n_experts='auto' is MixtureSVC's: one expert per 2,000 points of the
    pool (7,000 points: a tenth for validation, a fifth of the rest for the gater, 5,040 left,
    3 experts)."""
    X, y = _data(7000)
    mix = MixtureSVR(SVR(C=1.0, sigma=2.0), gater=GlobalGater(epochs=1), max_iter=1,
                     client="serial", refit_held_out=False, random_state=0)
    assert mix.get_params()["n_experts"] == "auto"
    assert mix.pool_size(7000) == 5040 and mix.n_experts_for(7000) == 3
    mix.fit(X, y)
    assert mix.n_experts_ == 3 == len(mix.experts_)
    assert mix.expert_sizes_[0].sum() == 5040 and mix.expert_sizes_[0].max() <= 5040 // 3 + 1
