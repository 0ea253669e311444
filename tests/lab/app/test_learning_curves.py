"""LearningCurves: curves computed over repeats, registry of estimators, progress and errors."""
import numpy as np
import pytest
from sklearn.dummy import DummyClassifier

import kernelnb.lab.app.learning_curves as lc
from kernelnb.lab.app import CurveEstimator, ESTIMATORS, LearningCurves, learning_curve_data

from ._lessons import check_lesson, lesson_app as make_lesson_app


@pytest.fixture(scope="module")
def app():
    return LearningCurves(n_repeats=2, n_sizes=4)


def test_first_open_is_fast_and_complete(app):
    s = app.last_stats
    assert not app.last_error
    curves = s["curves"]
    assert set(curves) == {"svc", "knn"}
    for c in curves.values():
        e = c["test_error"]
        assert e.shape == (4, 2) and np.all((e >= 0) & (e <= 1))
    assert np.all(np.diff(s["sizes"]) > 0)
    assert s["test_error_svc"] < 0.1
    assert curves["knn"]["n_support"] is None
    nsv = curves["svc"]["n_support"]
    assert np.all((nsv >= 2) & (nsv <= s["sizes"][:, None]))
    uids = [t.uid for t in app.fig.data]
    assert len(app.fig.data) == 2 * 4 + 1            # bands+means twice each, one #SV line
    assert any(t.yaxis == "y2" for t in app.fig.data)
    assert app.progress.layout.visibility == "hidden"
    assert len(set(uids)) == len(uids)


def test_C_slider_recomputes(app):
    before = app.last_stats["n_support_svc"]
    app.controls["C"].value = 100.0
    assert app.last_stats["n_support_svc"] < before       # fewer SVs with a larger C on moons
    assert "C = 100" in app.fig.layout.title.text


def test_dataset_switch_sets_sigma_and_runs(app):
    app.update(dataset="sonar", estimators=("svc", "klr"))
    s = app.last_stats
    assert s["n_features"] == 60 and s["dataset_size"] == 208
    assert app.controls["sigma"].value == pytest.approx(np.sqrt(60 / 2), rel=1e-2)
    assert s["test_error_svc"] < 0.35 and "n_support_klr" not in s
    app.update(dataset="moons", estimators=("svc", "knn"))


def test_fashion_choice_only_when_data_present():
    try:
        lc._fashion_home()
        present = True
    except FileNotFoundError:
        present = False
    assert ("fashion_mnist" in lc.DATASETS) == present


def test_registry_takes_new_estimators_and_progress_is_reported():
    spec = CurveEstimator("dummy_test", "majority class",
                          lambda p: DummyClassifier(strategy="most_frequent"))
    lc.register_estimator(spec)
    try:
        with pytest.raises(ValueError, match="already registered"):
            lc.register_estimator(spec)
        rng = np.random.RandomState(0)
        X = rng.randn(200, 3)
        y = (rng.rand(200) < 0.3).astype(int)
        seen = []
        out = learning_curve_data({"dummy": spec}, X, y, [20, 60, 120], n_repeats=3,
                                  progress=lambda f, t: seen.append(f))
        # the majority class is wrong on the minority fraction of the test set
        assert out["dummy"]["test_error"].mean() == pytest.approx(np.mean(y == 1), abs=0.03)
        assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) == 3 * 3 + 1
        app = LearningCurves(estimators=("dummy_test",), n_repeats=1, n_sizes=3)
        assert app.last_stats["test_error_dummy_test"] > 0.3
    finally:
        ESTIMATORS.pop("dummy_test")


def test_the_curves_in_steps_are_drawn_point_by_point_then_repeat_by_repeat():
    """learning_curve_steps (what the dashboard draws while it works): the sizes of the first
    repeat one by one, then each further repeat, each a prefix of the complete curves, which
    are learning_curve_data's numbers."""
    rng = np.random.RandomState(1)
    X = rng.randn(160, 2)
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.randn(160) > 0).astype(int)
    specs = {"svc": ESTIMATORS["svc"], "knn": ESTIMATORS["knn"]}
    kw = dict(n_repeats=3, params=dict(C=1.0, sigma=1.0, n_neighbors=3))
    out = list(lc.learning_curve_steps(specs, X, y, [10, 30, 60, 100], **kw))
    parts = [o for o in out if o is not None]
    assert out.count(None) == 4 * 3 * 2                    # a pause after every fit
    shapes = [p["svc"]["test_error"].shape for p in parts]
    assert shapes == [(1, 1), (2, 1), (3, 1), (4, 1), (4, 2)]
    full = learning_curve_data(specs, X, y, [10, 30, 60, 100], **kw)
    for part in parts:
        for k in specs:
            n, r = part[k]["test_error"].shape
            assert not part[k]["stopped"] and part[k]["sizes"].tolist() == [10, 30, 60, 100][:n]
            for col in ("train_error", "test_error"):
                np.testing.assert_array_equal(part[k][col], full[k][col][:n, :r])
    np.testing.assert_array_equal(parts[-1]["svc"]["n_support"], full["svc"]["n_support"][:, :2])
    assert full["svc"]["test_error"].shape == (4, 3)
    assert not np.isnan(full["svc"]["test_error"]).any()


def test_the_curves_are_those_of_a_pipeline_per_fit():
    """Each point is what make_pipeline(StandardScaler(), estimator) fitted on the subset
    gives (the docstring's promise), to the last bit: the same standardisation, a constant
    feature included, and so the same fits and errors."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.RandomState(3)
    X = np.column_stack([3 * rng.randn(120, 2) + 5, np.full(120, 2.5)])
    y = (X[:, 0] + 0.5 * rng.randn(120) > 5).astype(int)
    specs = {"svc": ESTIMATORS["svc"], "knn": ESTIMATORS["knn"]}
    params = dict(C=1.0, sigma=1.0, n_neighbors=3)
    sizes = [12, 40, 84]
    full = learning_curve_data(specs, X, y, sizes, n_repeats=2, params=params)
    for r in range(2):
        idx_te, subs = lc._splits(y, tuple(sizes), 0.3, r)
        for i, sub in enumerate(subs):
            for k, spec in specs.items():
                pipe = make_pipeline(StandardScaler(), spec.make(params)).fit(X[sub], y[sub])
                assert full[k]["train_error"][i, r] == np.mean(pipe.predict(X[sub]) != y[sub])
                assert full[k]["test_error"][i, r] == np.mean(pipe.predict(X[idx_te]) != y[idx_te])
                if k == "svc":
                    assert full[k]["n_support"][i, r] == pipe[-1].support_.size
    scaler = StandardScaler().fit(X[:50])
    for A in (X, X[::3], np.asfortranarray(X), X.astype(np.float32)):
        Z = lc._standardised(scaler, A)
        assert Z.dtype == scaler.transform(A).dtype
        np.testing.assert_array_equal(Z, scaler.transform(A))


def test_a_second_run_on_the_same_data_reuses_the_standardised_splits():
    """The standardised subsets are kept between runs on the same data and split (a slider step
    of C, sigma or K): the second run standardises nothing and gives the same curves, a change
    of the data's values is a new key, and the kept arrays are read only."""
    rng = np.random.RandomState(5)
    X = rng.randn(90, 2)
    y = (X[:, 0] > 0).astype(int)
    specs = {"svc": ESTIMATORS["svc"]}
    sizes = [10, 30, 60]
    PARAMS = {"C": 1.0, "sigma": 1.0}
    calls = []
    real = lc._standardised

    def counted(scaler, A):
        calls.append(A.shape)
        return real(scaler, A)

    lc._STANDARDISED.clear()
    try:
        lc._standardised = counted
        first = learning_curve_data(specs, X, y, sizes, n_repeats=2, params=PARAMS)
        assert len(calls) == 2 * 3 * 2 and len(lc._STANDARDISED) == 6   # subset and test set
        again = learning_curve_data(specs, X, y, sizes, n_repeats=2, params=PARAMS)
        assert len(calls) == 12                                        # nothing standardised
        for k in ("train_error", "test_error", "n_support"):         # fit_time: a new clock
            np.testing.assert_array_equal(first["svc"][k], again["svc"][k])
        other = learning_curve_data(specs, X + 1e-9, y, sizes, n_repeats=2, params=PARAMS)
        assert len(calls) == 24 and len(lc._STANDARDISED) == 12
        assert np.isfinite(other["svc"]["test_error"]).all()
    finally:
        lc._standardised = real
    Z_sub, Z_te, seconds = next(iter(lc._STANDARDISED.values()))
    assert not Z_sub.flags.writeable and not Z_te.flags.writeable and seconds > 0
    with pytest.raises(ValueError, match="read-only"):
        Z_sub[0, 0] = 1.0
    assert lc._array_key(np.array([[1, "a"]], dtype=object)) is None     # not kept
    # within its bytes (entries over a quarter of them are not kept)
    budget = lc._STANDARDISED_BYTES
    run = sum(a.nbytes + b.nbytes for a, b, _ in list(lc._STANDARDISED.values())[-6:])
    try:
        lc._STANDARDISED_BYTES = run // 2
        lc._STANDARDISED.clear()
        learning_curve_data(specs, X * 2, y, sizes, n_repeats=2, params=PARAMS)
        kept = list(lc._STANDARDISED.values())
        assert 0 < len(kept) < 6
        assert sum(a.nbytes + b.nbytes for a, b, _ in kept) <= lc._STANDARDISED_BYTES
    finally:
        lc._STANDARDISED_BYTES = budget
        lc._STANDARDISED.clear()


def test_errors_are_messages(app):
    out = app.update(estimators=())
    assert "at least one estimator" in out["error"] and "estimator" in app.error.value
    with pytest.raises(ValueError, match="sizes"):
        learning_curve_data({"svc": ESTIMATORS["svc"]}, np.zeros((10, 2)), np.arange(10) % 2,
                            [50], params=dict(C=1.0, sigma=1.0))
    app.update(estimators=("svc", "knn"))
    assert app.error.value == ""


def test_time_exponent_and_figure():
    from kernelnb.lab.viz import fit_time_figure, time_exponent
    n = np.array([100, 200, 400, 800])
    t = 3e-6 * n[:, None] ** 1.7 * np.array([[1.0, 1.1]])      # two repeats, same exponent
    assert time_exponent(n, t) == pytest.approx(1.7, abs=1e-9)
    assert np.isnan(time_exponent([10], [0.1]))
    assert np.isnan(time_exponent(n, t * 1e-3))                # all under 20 ms: no exponent
    assert time_exponent(n, t * 1e-3, min_time=0) == pytest.approx(1.7, abs=1e-9)
    fig = fit_time_figure({"a": dict(sizes=n, fit_time=t), "b": dict(sizes=n, fit_time=2 * t)})
    assert [tr.uid for tr in fig.data] == ["time:a", "time:b"]
    assert "n^1.70" in fig.data[0].name
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    np.testing.assert_allclose(fig.data[1].y, 2 * t.mean(axis=1))
    with pytest.raises(ValueError, match="fit_time"):
        fit_time_figure({"a": dict(sizes=n, fit_time=t[:2])})


def test_large_scale_estimators_and_the_time_view(monkeypatch):
    """The mixture of SVMs and the MLPs are offered; the time view redraws without refitting."""
    for key in ("mixture", "mlp", "simple_mlp", "margin_perceptron"):
        assert key in ESTIMATORS
    app = LearningCurves(dataset="xor", n_repeats=1, n_sizes=3,
                         estimators=("svc", "mixture", "simple_mlp"))
    s = app.last_stats
    assert not app.last_error
    mix = s["curves"]["mixture"]
    assert np.all(mix["n_support"] >= 2) and np.all(mix["test_error"] <= 0.5)
    assert app.time_box.layout.display == "none" and app.fig_box.layout.display == "flex"
    calls = []
    real = lc.learning_curve_steps
    monkeypatch.setattr(lc, "learning_curve_steps",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    s2 = app.update(raise_errors=True, view="time")
    assert calls == [] and app.time_box.layout.display == "flex"
    assert app.fig_box.layout.display == "none"
    names = [t.name for t in app.time_fig.data]
    assert [nm.split(": time")[0].split(" (too fast")[0] for nm in names] == [ESTIMATORS[k].label
                                                        for k in ("svc", "mixture", "simple_mlp")]
    np.testing.assert_allclose(app.time_fig.data[0].y, s["curves"]["svc"]["fit_time"].mean(axis=1))
    assert np.isfinite(s2["time_exponent_svc"]) or np.nanmax(
        s["curves"]["svc"]["fit_time"].mean(axis=1)) < 0.02
    app.update(raise_errors=True, C=2.0)                 # other controls do refit
    assert calls == [1]


def test_chapter7_models_are_curve_estimators():
    """Collobert's Table 7.1 models (MLP+MSE, MLP+Tanh+MSE, the soft mixture of experts with
    MSE) draw curves; each is the kernelnb.largescale estimator its label names."""
    from kernelnb.largescale import MixtureOfExpertsClassifier, MLPClassifier
    keys = ("mlp_tanh_mse", "mlp_mse", "moe")
    made = [ESTIMATORS[k].make({}) for k in keys]
    assert [m.loss for m in made] == ["tanh_squared", "squared", "squared"]
    assert isinstance(made[0], MLPClassifier) and isinstance(made[2], MixtureOfExpertsClassifier)
    app = LearningCurves(dataset="xor", n_repeats=1, n_sizes=3, estimators=keys)
    s = app.last_stats
    assert not app.last_error
    for k in keys:
        assert s[f"test_error_{k}"] < 0.25, k          # xor at 420 points: far below chance
        assert s["curves"][k]["n_support"] is None
    names = {t.name for t in app.fig.data}
    assert {f"{ESTIMATORS[k].label}: test error" for k in keys} <= names


def test_chapter8_models_are_curve_estimators():
    """Collobert's ch. 8 margin family draws curves; the SGD hinge is the linear SVM of the C
    slider (weight decay mu = 1/(C L)), so its test error is close to kernelnb's linear SVC's."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from kernelnb.svm import SVC
    keys = ("original_perceptron", "sgd_hinge", "nilsson_mlp", "hinge_mlp",
            "kernel_margin_perceptron")
    app = LearningCurves(dataset="blobs", n_repeats=1, n_sizes=3, estimators=keys)
    s = app.last_stats
    assert not app.last_error
    for k in keys:
        assert s[f"test_error_{k}"] < 0.3, k
    nsv = s["curves"]["kernel_margin_perceptron"]["n_support"]
    assert np.all((nsv >= 1) & (nsv <= s["sizes"][:, None]))
    rng = np.random.RandomState(0)
    X = rng.randn(300, 2)
    y = (X @ [1.0, -0.5] + 0.3 * rng.randn(300) > 0).astype(int)
    sgd = make_pipeline(StandardScaler(), ESTIMATORS["sgd_hinge"].make({"C": 1.0}))
    sgd.fit(X[:200], y[:200])
    mu = sgd[-1].model_.weight_decay
    assert mu == pytest.approx(1 / 200)
    svc = make_pipeline(StandardScaler(), SVC(kernel="linear", C=1.0)).fit(X[:200], y[:200])
    agree = np.mean(sgd.predict(X[200:]) == svc.predict(X[200:]))
    assert agree >= 0.95


LESSON = LearningCurves.LESSONS[0]


@pytest.fixture(scope="module")
def quick():
    return make_lesson_app(LearningCurves)


@pytest.mark.parametrize("control", sorted(LESSON.sweep))
def test_lessons_learning_curves(quick, control):
    check_lesson(quick, LESSON, control)


def test_too_easy_a_data_set_is_noted(quick):
    s = quick.update(dataset="blobs")
    assert all(s[f"test_error_first_{k}"] < 0.01 for k in ("svc", "knn"))
    assert s["regime"] and "too easy" in s["regime"][0]
    assert "kernelnb-regime" in quick.stats.value
    s = quick.update(dataset="moons", sigma=1.0)
    assert not s["regime"] and "kernelnb-regime" not in quick.stats.value


def test_estimator_names_fit_their_control():
    """The control shows about 26 characters of each name (300 px, 92 px of description)."""
    assert max(len(spec.label) for spec in ESTIMATORS.values()) <= 26


def test_every_K_draws_curves_that_start_where_the_vote_can_be_taken():
    """K-NN with K neighbours is undefined on fewer than K training points: across the K
    slider's whole range the curves are drawn, and start at n = K where K exceeds the usual
    first size, which the data set's line says."""
    app = LearningCurves(estimators=("knn",), n_repeats=1, n_sizes=3)
    usual = int(app.last_stats["sizes"][0])
    slider = app.controls["n_neighbors"]
    for k in range(slider.min, slider.max + 1, slider.step):
        s = app.update(raise_errors=True, n_neighbors=k)
        assert not app.last_error
        assert int(s["sizes"][0]) == max(k, usual)
        assert np.isfinite(s["test_error_knn"])
        said = f"start at n = {k}" in app.description.value
        assert said == (k > usual), (k, app.description.value)
    # without K-NN, K does not move the curves' start
    s = app.update(raise_errors=True, estimators=("svc",), n_neighbors=slider.max)
    assert int(s["sizes"][0]) == usual and "start at" not in app.description.value


def test_a_K_larger_than_the_training_pool_is_refused_by_name():
    app = LearningCurves(estimators=("knn",), n_repeats=1, n_sizes=3)
    s = app.update(dataset="sonar", n_neighbors=150)
    assert "n_neighbors" in s["error"] and "150" in s["error"]


def test_a_redraw_shows_exactly_the_traces_given_and_hands_plotly_only_what_changed(
        monkeypatch):
    """_redraw updates the figure's traces in place with the properties that differ: the
    figure's traces are then those given (uids aside), and an unchanged property (the sizes,
    every line style) is not handed to plotly again."""
    import plotly.graph_objects as go

    from kernelnb.lab.viz._figure_widget import FigureWidget
    from kernelnb.lab.viz.curves import learning_curve_traces

    rng = np.random.default_rng(0)

    def curves(scale):
        sizes = np.array([10.0, 20.0, 40.0])
        return {"SVM": {"sizes": sizes, "test_error": scale * rng.random((3, 2)),
                        "train_error": scale * rng.random((3, 2)),
                        "n_support": 10 * rng.random((3, 2))}}

    fig = FigureWidget()
    handed = []
    real = go.Scatter.update

    def update(self, *args, **kwargs):
        if self.parent is fig:
            handed.extend(k for a in args for k in a)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(go.Scatter, "update", update)
    for scale in (0.5, 0.3):
        traces, _, _ = learning_curve_traces(curves(scale))
        lc._redraw(fig, traces)
        got = [{k: v for k, v in t.to_plotly_json().items() if k != "uid"} for t in fig.data]
        want = [{k: v for k, v in t.to_plotly_json().items() if k != "uid"} for t in traces]
        assert len(got) == len(want) == 5
        for g, w in zip(got, want):
            assert g.keys() == w.keys()
            assert all(lc._same_property(g[k], w[k]) for k in g), (g, w)
    # the second redraw handed the new errors (y, their spread), nothing else
    assert handed and set(handed) <= {"y", "customdata"}
    assert lc._same_property(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    assert not lc._same_property(np.array([1.0, 2.0]), np.array([1.0, 2.0], dtype=np.float32))
    assert not lc._same_property({"a": [1, 2]}, {"a": [1, 3]}) and lc._same_property("a", "a")
