"""GradientTuner: L-BFGS-B on the log parameters of an SVC (thesis ch. 4)."""
import numpy as np
import pytest
from sklearn.base import clone

from kernelnb.model_selection import GradientTuner, criterion_and_gradient
from kernelnb.svm import SVC
from kernelnb.svm import estimators as svm_estimators


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    n = 70
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] ** 2 + X[:, 1] + 0.5 * rng.normal(size=n) > 0.8, 1, -1)
    return X, y


@pytest.mark.parametrize("criterion", ["radius_margin", "span"])
def test_criterion_decreases(data, criterion):
    X, y = data
    tuner = GradientTuner(criterion=criterion, max_iter=15).fit(X, y)
    crit = np.array([r["criterion"] for r in tuner.history_])
    assert len(crit) >= 2
    assert np.all(np.diff(crit) <= 1e-12 * np.abs(crit[:-1])), crit
    assert crit[-1] < crit[0]
    assert tuner.criterion_ <= crit.min()
    assert [r["iteration"] for r in tuner.history_] == list(range(len(crit)))
    # the best point's criterion, recomputed independently from its parameters
    p = tuner.best_params_
    est = SVC(margin="l2", C=p["C"], sigma=p["sigma"])
    value = criterion_and_gradient(est, X, y, criterion)[0]
    assert np.isclose(value, tuner.criterion_, rtol=1e-6)
    rec = tuner.history_[-1]
    assert set(rec) >= {"iteration", "criterion", "C", "sigma", "scales", "n_trainings",
                        "training_error", "n_SV"}
    assert rec["n_SV"] > 0 and 0 <= rec["training_error"] <= 1


def test_n_trainings_counts_every_fit(data, monkeypatch):
    X, y = data
    calls = []
    original = svm_estimators.SVC.fit

    def counting_fit(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(svm_estimators.SVC, "fit", counting_fit)
    tuner = GradientTuner(max_iter=8).fit(X, y)
    assert tuner.n_trainings_ == len(calls) > 1
    assert tuner.history_[-1]["n_trainings"] <= tuner.n_trainings_
    # far fewer trainings than a grid search, and no training twice for fun and jac
    assert tuner.n_trainings_ <= 3 * (tuner.n_iter_ + 1)


def test_callback_stops(data):
    X, y = data
    seen = []

    def cb(record):
        seen.append(record["iteration"])
        return record["iteration"] < 2

    tuner = GradientTuner(max_iter=20, callback=cb).fit(X, y)
    assert seen == [0, 1, 2]
    assert len(tuner.history_) == 3 and tuner.stop_reason_ == "callback"
    assert hasattr(tuner, "best_estimator_")


def test_interrupt_keeps_best_point(data, monkeypatch):
    X, y = data
    calls = []
    original = svm_estimators.SVC.fit

    def interrupting_fit(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(svm_estimators.SVC, "fit", interrupting_fit)
    with pytest.warns(RuntimeWarning, match="interrupted"):
        tuner = GradientTuner(max_iter=20).fit(X, y)
    assert tuner.stop_reason_ == "interrupted"
    assert tuner.n_trainings_ == 2
    assert tuner.criterion_ <= min(r["criterion"] for r in tuner.history_)
    assert tuner.predict(X).shape == y.shape


def test_delegation_and_scales_for_linear_kernel(data):
    X, y = data
    tuner = GradientTuner(SVC(kernel="linear", margin="l2"), tune=("C", "scales"),
                          max_iter=5).fit(X, y)
    s = tuner.best_params_["scales"]
    assert s.shape == (3,) and np.all(s > 0)
    np.testing.assert_array_equal(tuner.predict(X), tuner.best_estimator_.predict(X * s))
    np.testing.assert_allclose(tuner.decision_function(X),
                               tuner.best_estimator_.decision_function(X * s))
    assert tuner.score(X, y) == np.mean(tuner.predict(X) == y)


def test_verbose_prints_one_line_per_iteration(data, capsys):
    X, y = data
    tuner = GradientTuner(max_iter=3, verbose=True).fit(X, y)
    lines = [l for l in capsys.readouterr().out.splitlines() if l.startswith("[GradientTuner]")]
    assert len(lines) == len(tuner.history_)


def test_clone_and_get_params():
    cb = lambda r: None  # noqa: E731
    t = GradientTuner(SVC(margin="l2", C=3.0), criterion="span", tune=("C",), radius="sphere",
                      max_iter=7, tol=1e-3, callback=cb, refit=False)
    c = clone(t)
    p = c.get_params()
    assert p["criterion"] == "span" and p["tune"] == ("C",) and p["max_iter"] == 7
    assert p["callback"] is cb and p["estimator__C"] == 3.0 and p["estimator"] is not t.estimator
    c.set_params(estimator__C=5.0, max_iter=2)
    assert c.estimator.C == 5.0 and t.estimator.C == 3.0


def test_errors(data):
    X, y = data
    with pytest.raises(ValueError, match="tune"):
        GradientTuner(tune=("C", "gamma")).fit(X, y)
    with pytest.raises(ValueError, match="tune"):
        GradientTuner(tune="width").fit(X, y)
    with pytest.raises(ValueError, match="binary"):
        GradientTuner().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="criterion"):
        GradientTuner(criterion="loo").fit(X, y)
    with pytest.raises(ValueError, match="sigma"):
        GradientTuner(SVC(kernel="linear", margin="l2"), tune=("sigma",)).fit(X, y)
    with pytest.raises(ValueError, match="'C'"):
        GradientTuner(SVC(margin="l1")).fit(X, y)
    with pytest.raises(ValueError, match="max_iter"):
        GradientTuner(max_iter=-1).fit(X, y)
    with pytest.raises(ValueError, match="estimator"):
        GradientTuner(estimator="svc").fit(X, y)
