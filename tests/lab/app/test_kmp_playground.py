"""The KMP playground's logic, without a browser."""
import numpy as np
import pytest

from kernelnb.lab.app import KMPPlayground
from kernelnb.lab.app.kmp_playground import far_cluster_data

from ._grid import level_values
from ._lessons import check_lesson, lesson_app as make_lesson_app


@pytest.fixture(scope="module")
def dash():
    return KMPPlayground(grid=30)


def test_first_view_has_numbers_and_numbered_support_points(dash):
    s = dash.update(n_basis=10)
    assert dash.last_error == ""
    assert s["n_basis_used"] == 10
    sv = dash.fig.data[5]                        # the support-point trace
    order = [int(k) for k in dash._path_cache[1].paths_[0]["basis"][:10]]
    n = len(dash._train[1])                      # atom n is the constant (the bias)
    # each point is labelled with the step that picked it; the legend counts points and bias
    want = [str(step) for step, k in enumerate(order, 1) if k < n]
    assert list(sv.text) == want and len(sv.x) == len(want) == s["n_points"]
    assert f"({len(want)}" in sv.name and (("bias" in sv.name) == (n in order))
    assert 0 <= s["kmp_test_error"] < 0.2


def test_the_legend_counts_the_picks_truly():
    """N = 20 picks: the distinct points plus the bias when it was picked make N (the issue's
    "(19)" at N = 20 was the bias atom, which has no point to draw)."""
    dash = KMPPlayground(grid=10, n_basis=20)
    s = dash.last_stats
    assert s["n_points"] + s["bias_picked"] == 20
    dash.update(variant="basic", n_basis=60)
    s = dash.last_stats
    order = [int(k) for k in dash._path_cache[1].paths_[0]["basis"][:60]]
    n = len(dash._train[1])
    assert s["n_points"] == len({k for k in order if k < n}) < 60   # basic MP re-picks
    assert sum(len(t.split(",")) for t in dash.fig.data[5].text) <= 60


def test_regime_notes_for_a_short_path_and_an_isolating_width(dash):
    s = dash.update(n_basis=200, n_samples=60)
    assert s["regime"] and "stopped after" in dash.stats.value
    assert s["n_basis_used"] == s["path_length"] < 200
    s = dash.update(sigma=0.03, n_samples=200, n_basis=10)
    assert any("σ" in n for n in s["regime"]) and "kernelnb-regime" in dash.stats.value
    s = dash.update(sigma=0.5)
    assert not s["regime"]


@pytest.mark.parametrize("control", sorted(KMPPlayground.LESSONS[0].sweep))
def test_lessons_kmp_matches_the_svm_with_fewer_points(control):
    app = make_lesson_app(KMPPlayground)
    check_lesson(app, KMPPlayground.LESSONS[0], control)


@pytest.mark.parametrize("control", sorted(KMPPlayground.LESSONS[1].sweep))
def test_lessons_basic_mp_repicks_points(control):
    app = make_lesson_app(KMPPlayground)    # the lesson's setting: basic MP, N = 60
    check_lesson(app, KMPPlayground.LESSONS[1], control)


def test_the_n_slider_reads_the_path_without_refitting(dash):
    dash.update(n_basis=5)
    fitted = dash._path_cache[1]
    s = dash.update(n_basis=25)
    assert dash._path_cache[1] is fitted
    assert s["n_basis_used"] == 25
    assert s["kmp_train_error"] == pytest.approx(fitted.train_errors_[0][24])
    assert list(dash.path_fig.data[2].x) == [25, 25]     # the current-N marker


def test_same_number_as_the_svm(dash):
    s = dash.update(C=0.3)
    s2 = dash.match_svm()
    assert s2["n_basis_used"] == min(s["svm_n_support"], dash.controls["n_basis"].max)


def test_other_losses_and_variants_fit(dash):
    for kw in (dict(loss="tanh", n_basis=15), dict(loss="squared", variant="basic"),
               dict(variant="backfit")):
        s = dash.update(**kw)
        assert dash.last_error == "", dash.last_error
        assert 0 <= s["kmp_test_error"] < 0.3
    assert dash.controls["variant"].disabled is False
    dash.update(loss="logistic")
    assert dash.controls["variant"].disabled is True
    dash.update(loss="squared", variant="prefit")


def test_fig7_tanh_resists_the_far_cluster(dash):
    s = dash.update(cluster_distance=10.0)
    assert s["far_error_tanh"] < s["far_error_mse"]
    X, y = far_cluster_data(10.0)
    assert X.shape == (160, 2) and y.sum() == 100


def test_errors_show_in_the_page_and_the_dashboard_lives_on(dash):
    out = dash.update(dataset="no-such-set")
    assert "error" in out and "no-such-set" in dash.last_error and "moons" in dash.last_error
    s = dash.update(dataset="moons")
    assert dash.last_error == "" and "n_basis_used" in s


def test_the_boundaries_are_sent_as_lines_on_their_surfaces_zero(dash):
    """Both planes draw f = 0 (and the SVM f = ±1) as line traces (viz.level_lines), not contour
    traces the page would trace again at every drawing: the lines lie where the surface drawn
    beside them is 0 (or ±1), and no grid but the heat map's is sent."""
    dash.update(n_basis=10, sigma=0.7)
    for fig, levels in ((dash.fig, {"boundary": 0.0}),
                        (dash.svm_fig, {"boundary": 0.0, "margins": 1.0})):
        assert [t.type for t in fig.data].count("contour") == 0
        for uid, level in levels.items():
            line = next(t for t in fig.data if t.meta == uid)
            assert line.type == "scatter" and line.mode == "lines"
            f, z = level_values(line, fig.data[0])
            span = float(np.nanmax(z) - np.nanmin(z))
            assert np.all(np.abs(np.abs(f) - level) <= 1e-5 * span), np.abs(np.abs(f) - level).max()
