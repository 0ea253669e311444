"""DataCleaning dashboard: the suspects drawn are those of kernelnb.prior's ranking on the data
shown, clicks flip labels (and flip them back), bad clicks are refused."""
import numpy as np
import pytest
from plotly.callbacks import InputDeviceState, Points

from kernelnb.lab.app import DataCleaning
from kernelnb.lab.app.data_cleaning import TRACES
from kernelnb.prior import suspicion_scores
from kernelnb.svm import SVC

from ._lessons import check_lesson, lesson_app as make_lesson_app

I = {name: k for k, name in enumerate(TRACES)}


@pytest.fixture(scope="module")
def app():
    return DataCleaning(grid=20)


def _shown_data(app):
    """The training set as drawn: the two class traces, with their labels."""
    X0 = np.c_[app.fig.data[I["class0"]].x, app.fig.data[I["class0"]].y]
    X1 = np.c_[app.fig.data[I["class1"]].x, app.fig.data[I["class1"]].y]
    return np.r_[X0, X1], np.r_[np.zeros(len(X0)), np.ones(len(X1))]


def test_first_open_looks_right(app):
    s = app.last_stats
    assert not app.last_error and app.error.value == ""
    assert s["n_flipped"] == 4 and len(s["suspects"]) == 5
    assert "kernelnb-main-slider" in app.controls["n_flip"]._dom_classes
    assert len(app.fig.data[I["suspects"]].x) == 5 and len(app.fig.data[I["flipped"]].x) == 4
    for key in ("labels flipped", "best rank", "mean of min(10, rank)"):
        assert key in app.stats.value


@pytest.mark.parametrize("method", ["svm_xi", "loo_xi"])
def test_suspects_drawn_are_the_top_scores_of_the_data_shown(app, method):
    app.update(method=method, n_show=6, C=2.0, sigma=0.5)
    X, y = _shown_data(app)
    scores = suspicion_scores(SVC(C=2.0, sigma=0.5, precision="float64"), X, y, method)
    top = X[np.argsort(-scores, kind="stable")[:6]]
    drawn = np.c_[app.fig.data[I["suspects"]].x, app.fig.data[I["suspects"]].y]
    # the class traces reorder the points: compare the sets of top points and the first one
    assert {tuple(p) for p in np.round(drawn, 12)} == {tuple(p) for p in np.round(top, 12)}
    np.testing.assert_allclose(drawn[0], top[0])
    assert list(app.fig.data[I["suspects"]].text) == [str(k) for k in range(1, 7)]


def test_flipped_points_are_marked_and_ranked(app):
    s = app.update(method="svm_xi", n_flip=3, n_show=5)
    flipped = np.c_[app.fig.data[I["flipped"]].x, app.fig.data[I["flipped"]].y]
    assert flipped.shape == (3, 2) and s["n_flipped"] == 3
    assert 1 <= s["best_rank"] <= len(app._X)
    assert s["found_in_top"] <= 3


def test_a_click_flips_the_nearest_label_and_a_second_click_flips_it_back(app):
    app.update(n_flip=0, method="svm_xi")
    X, y = _shown_data(app)
    n1 = int(y.sum())
    x0, y0 = app._X[5]
    heat = app.fig.data[0]
    heat._dispatch_on_click(Points(point_inds=[0], xs=[x0 + 1e-3], ys=[y0], trace_name="f(x)",
                                   trace_index=0), InputDeviceState())
    s = app.last_stats
    assert s["flipped"] == [5] and s["n_flipped"] == 1
    _, y_after = _shown_data(app)
    assert abs(int(y_after.sum()) - n1) == 1
    app.flip_at(x0, y0)
    assert app.last_stats["n_flipped"] == 0


def test_bad_clicks_are_refused_without_change(app):
    before = dict(app.last_stats)
    out = app.flip_at(np.nan, 0.0)
    assert "error" in out and "not finite" in app.error.value
    out = app.flip_at(1e9, 0.0)
    assert "error" in out and "outside" in out["error"]
    assert app.last_stats["flipped"] == before["flipped"]


LESSON = DataCleaning.LESSONS[0]


@pytest.fixture(scope="module")
def lesson_app():
    return make_lesson_app(DataCleaning)


@pytest.mark.parametrize("control", list(LESSON.sweep))
def test_lessons_every_score_ranks_flips_near_the_top(lesson_app, control):
    held = check_lesson(lesson_app, LESSON, control)
    if control == "method":          # each score, not only the default one
        assert set(held) == set(LESSON.sweep["method"])


@pytest.mark.parametrize("setting, words", [
    ({"n_flip": 0}, "no label is flipped"),
    ({"n_flip": 20}, "20 of 80 labels are flipped (25.0 %)"),
    ({"sigma": 0.03}, "the SVM fits 4 of the 4 flipped labels"),
    ({"noise": 0.5}, "even with the true labels the SVM errs on"),
])
def test_out_of_regime_settings_say_so(lesson_app, setting, words):
    try:
        stats = lesson_app.update(raise_errors=True, **setting)
        assert any(words in n for n in stats["regime"]), stats["regime"]
        assert words in lesson_app.stats.value
    finally:
        lesson_app.update(n_flip=4, sigma=0.5, noise=0.1)
    assert not lesson_app.last_stats["regime"]
