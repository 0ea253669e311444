"""The chapter-8 protocols: shapes, shared data across strategies, and agreement with a run of
ActiveLearner on the same draws."""
import numpy as np

from kernelnb.neighbors import ParzenClassifier
from kernelnb.unlabeled import ActiveLearner
from kernelnb.reproductions.chapelle.active import (majority_toy_experiment, parzen_toy_experiment,
                                                    span_update_speed)
from kernelnb.reproductions.chapelle.active import (_draw_majority, _draw_square, _labelled_start,
                                               majority_svc)


def test_parzen_protocol_is_a_mean_of_learner_runs():
    res = parzen_toy_experiment(n_runs=2, n_queries=3, pool_size=30, n_test=200,
                                strategies=("margin", "gem"), random_state=5)
    assert res["curves"]["gem"].shape == (4,) and res["estimated"]["gem"].shape == (3,)
    # every strategy starts from the same model (same data in run r)
    assert res["curves"]["gem"][0] == res["curves"]["margin"][0]
    errs = []
    for r in range(2):
        rng = np.random.RandomState(5 + r)
        X0, y0 = _labelled_start(rng, _draw_square, None, n=10)
        Xp, yp = _draw_square(rng, 30)
        Xt, yt = _draw_square(rng, 200)
        al = ActiveLearner(ParzenClassifier(n_jobs=1), strategy="gem",
                           sigma_selection="likelihood").fit(X0, y0, X_unlabeled=Xp, X_val=Xt, y_val=yt)
        al.run(yp, n_queries=3)
        # the width is the one maximising the pool's Parzen likelihood
        assert al.estimator_.sigma == al.sigma_
        errs.append(al.error_curve_)
    np.testing.assert_allclose(res["curves"]["gem"], np.mean(errs, axis=0))


def test_majority_protocol_start_and_run_caps():
    res = majority_toy_experiment(n_runs=3, n_queries=2, pool_size=40, n_test=100,
                                  strategies=("random", "fast_gem"), runs={"fast_gem": 1})
    assert res["runs"] == {"random": 3, "fast_gem": 1}
    rng = np.random.RandomState(0)
    X0, y0 = _labelled_start(rng, _draw_majority, 3, 3)
    assert X0.shape == (6, 5) and np.sum(y0 > 0) == 3 and np.all(np.abs(X0) < np.tanh(1))
    assert abs(majority_svc().sigma ** 2 - 1.5) < 1e-12


def test_span_update_speed_rows():
    rows = span_update_speed(pool_size=20, n_labeled=(6,), repeats=1)
    assert [r["rule"] for r in rows] == ["ratio", "gem"]
    for r in rows:
        assert r["retrain_s"] > 0 and r["fast_s"] > 0
        assert r["speedup"] == r["retrain_s"] / r["fast_s"]
        assert -1 <= r["rank_corr"] <= 1
