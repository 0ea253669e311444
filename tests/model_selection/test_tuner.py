"""GradientTuner: L-BFGS-B on the log parameters of an SVC (thesis ch. 4)."""
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from sklearn.preprocessing import StandardScaler

import kernelnb
from kernelnb.datasets import load_ionosphere
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


@pytest.fixture(scope="module")
def iono():
    """120 Ionosphere points, standardised (the constant feature dropped): R^2 ||w||^2 has one
    interior minimum over (log C, log sigma) near (1.2, 0.85) and long flat valleys around it."""
    X, y = load_ionosphere()
    X = StandardScaler().fit_transform(X[:120])
    return X[:, X.std(axis=0) > 0], y[:120]


def _log_gradient(X, y, C, sigma):
    """d log T / d (log C, log sigma), computed afresh."""
    value, grad, _ = criterion_and_gradient(SVC(margin="l2", C=C, sigma=sigma), X, y)
    return np.array([grad["C"], grad["sigma"]]) / value


@pytest.mark.parametrize("start", [dict(C=1.0, sigma=30.0), dict(C=0.01, sigma="scale")])
def test_does_not_stop_while_the_gradient_is_large(iono, start):
    # From these starts the earlier rule (scipy's relative decrease of log T, and a first step
    # of -grad) stopped with |d log T / d theta| above 0.01, at T up to 1 % above its minimum.
    X, y = iono
    tol = 1e-3
    tuner = GradientTuner(SVC(margin="l2", **start), tol=tol).fit(X, y)
    assert "PROJECTED GRADIENT" in tuner.stop_reason_, tuner.stop_reason_
    last = tuner.history_[-1]
    lo, hi = tuner.log_bounds
    g = _log_gradient(X, y, last["C"], last["sigma"])
    theta = np.log([last["C"], last["sigma"]])
    g[(theta <= lo) & (g > 0)] = 0.0           # projected on the box
    g[(theta >= hi) & (g < 0)] = 0.0
    assert np.max(np.abs(g)) <= tol, g


@pytest.fixture(scope="module")
def iono_grid(iono):
    """R^2 ||w||^2 on a dense (log C, log sigma) grid: ``(log_C, log_sigma, T)``."""
    X, y = iono
    log_C = np.arange(-2.0, 5.01, 0.5)
    log_sigma = np.arange(0.0, 2.01, 0.2)
    T = np.array([[criterion_and_gradient(SVC(margin="l2", C=np.exp(c), sigma=np.exp(s)), X, y,
                                          tune=("C",))[0] for s in log_sigma] for c in log_C])
    return log_C, log_sigma, T


@pytest.mark.parametrize("start", [dict(), dict(C=0.01, sigma="scale"), dict(C=1.0, sigma=30.0)])
def test_reaches_the_minimiser_of_a_dense_grid(iono, iono_grid, start):
    X, y = iono
    log_C, log_sigma, T = iono_grid
    i, j = np.unravel_index(np.argmin(T), T.shape)
    assert 0 < i < log_C.size - 1 and 0 < j < log_sigma.size - 1   # an interior minimum
    tuner = GradientTuner(SVC(margin="l2", **start) if start else None).fit(X, y)
    assert tuner.criterion_ <= T[i, j]
    p = tuner.best_params_
    assert abs(np.log(p["C"]) - log_C[i]) <= 0.5 + 1e-9
    assert abs(np.log(p["sigma"]) - log_sigma[j]) <= 0.2 + 1e-9
    assert tuner.n_trainings_ <= 50                 # >= 10 x fewer than a 10 x 10 x 5 grid


@pytest.mark.parametrize("C0", [1.0, 0.01])
def test_n_trainings_counts_every_fit(data, monkeypatch, C0):
    X, y = data
    calls = []
    original = svm_estimators.SVC.fit

    def counting_fit(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(svm_estimators.SVC, "fit", counting_fit)
    tuner = GradientTuner(SVC(margin="l2", C=C0), max_iter=8).fit(X, y)
    assert tuner.n_trainings_ == len(calls) > 1
    assert tuner.history_[-1]["n_trainings"] <= tuner.n_trainings_
    counts = [r["n_trainings"] for r in tuner.history_]
    assert counts[0] == 1 and np.all(np.diff(counts) >= 1)   # every iterate is a new training
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


def _interrupt_the_third_svm_fit(monkeypatch):
    """Ctrl-C during the search's third SVM training (the first two train as usual)."""
    calls = []
    original = svm_estimators.SVC.fit

    def interrupting_fit(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(svm_estimators.SVC, "fit", interrupting_fit)


def test_interrupt_keeps_best_point(data, monkeypatch):
    X, y = data
    _interrupt_the_third_svm_fit(monkeypatch)
    with kernelnb.config_context(keep_partial_on_interrupt=True), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tuner = GradientTuner(max_iter=20).fit(X, y)
    said = [w for w in caught if "interrupted" in str(w.message)]
    assert len(said) == 1 and said[0].category is RuntimeWarning     # one warning, not two
    assert tuner.interrupted_ and tuner.stop_reason_ == "interrupted"
    assert tuner.n_trainings_ == 2 and tuner.fit_time_ > 0
    assert tuner.criterion_ <= min(r["criterion"] for r in tuner.history_)
    assert tuner.predict(X).shape == y.shape


def test_an_svm_that_reports_its_own_interruption_stops_the_search_with_one_warning(
        data, monkeypatch):
    # the solver catches Ctrl-C itself: the SVC returns with fit_status_ = 2 and its own warning;
    # the tuner stops there, keeps its best point and warns once for the whole fit
    X, y = data
    calls = []
    original = svm_estimators.SVC.fit

    def self_interrupted_fit(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        calls.append(1)
        if len(calls) == 3:
            warnings.warn("SVC.fit was interrupted; the model holds the state reached",
                          RuntimeWarning)
            self.fit_status_ = 2
        return out

    monkeypatch.setattr(svm_estimators.SVC, "fit", self_interrupted_fit)
    with kernelnb.config_context(keep_partial_on_interrupt=True), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tuner = GradientTuner(max_iter=20).fit(X, y)
    assert len([w for w in caught if "interrupted" in str(w.message)]) == 1
    assert tuner.interrupted_ and tuner.stop_reason_ == "interrupted"
    assert tuner.n_trainings_ == 3 and len(tuner.history_) >= 1


def test_an_interrupt_before_any_training_propagates(data, monkeypatch):
    X, y = data

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(svm_estimators.SVC, "fit", interrupted)
    with kernelnb.config_context(keep_partial_on_interrupt=True), \
            pytest.raises(KeyboardInterrupt):
        GradientTuner(max_iter=20).fit(X, y)


def test_an_interrupt_propagates_from_the_search_by_default(data, monkeypatch):
    X, y = data
    _interrupt_the_third_svm_fit(monkeypatch)
    tuner = GradientTuner(max_iter=20)
    with pytest.raises(KeyboardInterrupt):
        tuner.fit(X, y)
    assert not hasattr(tuner, "best_estimator_") and "_interrupted_search" not in vars(tuner)


def test_the_constructor_is_keyword_only_after_the_estimator():
    with pytest.raises(TypeError):
        GradientTuner(None, "span")
    assert GradientTuner(SVC(C=2.0), criterion="span").estimator.C == 2.0


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
    with pytest.raises(ValueError, match="max_iter"):
        GradientTuner(max_iter=-1).fit(X, y)
    with pytest.raises(ValueError, match="estimator"):
        GradientTuner(estimator="svc").fit(X, y)


def test_warns_when_the_kernel_isolates_the_points():
    # 40 standardised features: the points are ~9 apart, so with sigma = 1 no pair has a kernel
    # value above 1e-4 (checked directly): T is flat there and the search cannot leave its start.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 40))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1, -1)
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    assert np.exp(-d2.min() / 2.0) < 1e-4
    with pytest.warns(RuntimeWarning, match="nearly the identity"):
        GradientTuner(SVC(margin="l2", sigma=1.0)).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        tuner = GradientTuner().fit(X, y)          # sigma='scale': no warning
    assert tuner.best_params_["sigma"] > 2.0


@pytest.mark.parametrize("criterion", ["radius_margin", "span"])
def test_default_svc_is_tuned_in_the_l2_formulation(data, criterion):
    # The package's default SVC() has margin='l1', where C is a box: the tuner tunes its L2
    # formulation instead, and the search is then the one of an explicit SVC(margin='l2').
    X, y = data
    t1 = GradientTuner(SVC(), criterion=criterion, max_iter=4).fit(X, y)
    t2 = GradientTuner(SVC(margin="l2"), criterion=criterion, max_iter=4).fit(X, y)
    assert t1.margin_ == "l2" and t2.margin_ == "l2"
    assert t1.best_estimator_.margin == "l2"
    assert t1.n_iter_ > 0 and t1.best_params_["C"] != 1.0
    assert t1.best_params_["C"] == t2.best_params_["C"]
    assert t1.best_params_["sigma"] == t2.best_params_["sigma"]
    assert t1.criterion_ == t2.criterion_
    np.testing.assert_array_equal(t1.decision_function(X), t2.decision_function(X))
    # tuning sigma alone by the radius-margin bound keeps the L1 box (C fixed)
    t3 = GradientTuner(SVC(), tune=("sigma",), max_iter=2).fit(X, y)
    assert t3.margin_ == "l1"
