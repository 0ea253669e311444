"""RegressionSelectionExplorer: the fit drawn is the least-squares fit (numpy.linalg.lstsq), the
curves are the criteria's estimates, the true risk is checked by Monte Carlo, bad values are
refused."""
import numpy as np
import pytest

from kernelnb.lab.app import RegressionSelectionExplorer
from kernelnb.lab.app.regression_selection import largest_dim, sample
from kernelnb.model_selection import REGRESSION_CRITERIA, basis_matrix, regression_risk_estimates
from kernelnb.reproductions.chapelle.regression import regression_target

from ._lessons import check_lesson, lesson_app as make_lesson_app


@pytest.fixture(scope="module")
def app():
    return RegressionSelectionExplorer()


def test_first_open(app):
    assert not app.last_error
    assert "kernelnb-main-slider" in app.controls["d"]._dom_classes
    s = app.last_stats
    for c in REGRESSION_CRITERIA:
        assert s[f"ratio_{c}"] >= 1.0 and 1 <= s[f"d_{c}"] <= largest_dim(40)


def test_fit_and_curves_are_the_computed_ones(app):
    app.update(target="sinc", n=30, noise=0.1, seed=3, d=7)
    x, y, u = sample("sinc", 30, 0.1, 3)
    coef = np.linalg.lstsq(basis_matrix(x, 7), y, rcond=None)[0]
    grid = np.asarray(app.fig.data[2].x)
    np.testing.assert_allclose(app.fig.data[2].y, basis_matrix(grid, 7) @ coef, atol=1e-8)
    res = regression_risk_estimates(x, y, u, max_dim=largest_dim(30))
    for k, c in enumerate(REGRESSION_CRITERIA):
        est = np.where(np.isfinite(res.estimates[c]), res.estimates[c], np.nan)
        np.testing.assert_allclose(np.asarray(app.risk.data[1 + k].y, float), est, rtol=1e-10)
        assert app.last_stats[f"d_{c}"] == res.chosen[c]
    # the true risk of the fit drawn, by Monte Carlo on fresh points
    rng = np.random.RandomState(0)
    t = rng.uniform(-np.pi, np.pi, 400000)
    mc = 0.1 ** 2 + np.mean((regression_target("sinc")(t) - basis_matrix(t, 7) @ coef) ** 2)
    assert app.last_stats["true_risk_d"] == pytest.approx(mc, rel=2e-2)


def test_d_beyond_the_range_and_bad_values(app):
    app.update(n=10, d=60)
    assert not app.last_error and "largest d" in app.fig.layout.title.text
    before = dict(app.last_stats)
    app.update(target="cosine")
    assert app.last_error and "target" in app.error.value
    assert app.controls["target"].value != "cosine"
    assert {k: v for k, v in app.last_stats.items() if k != "update_ms"} == {
        k: v for k, v in before.items() if k != "update_ms"}


LESSON = RegressionSelectionExplorer.LESSONS[0]


@pytest.fixture(scope="module")
def fresh():
    return make_lesson_app(RegressionSelectionExplorer)


@pytest.mark.parametrize("control", sorted(LESSON.sweep))
def test_lessons_regression_selection(fresh, control):
    held = check_lesson(fresh, LESSON, control)
    if control == "target":       # at the defaults (Fig. 9.2's setting) FPE fails outright
        assert held["quadratic"]["ratio_fpe"] > 10 * held["quadratic"]["ratio_adj"]


def test_large_and_tiny_n_are_noted_in_the_readout(fresh):
    s = fresh.update(n=150)
    assert s["regime"] and "far below n" in s["regime"][0]
    assert "kernelnb-regime" in fresh.stats.value and "far below n" in fresh.stats.value
    assert "handful of points" in fresh.update(n=10)["regime"][0]
    assert not fresh.update(n=40)["regime"] and "kernelnb-regime" not in fresh.stats.value


def test_six_curves_at_first_and_ticks_by_decade():
    app = RegressionSelectionExplorer()
    shown = [t.name for t in app.risk.data if t.visible is not False and t.visible != "legendonly"]
    assert len(shown) == 6 and shown[0] == "true risk"
    ax = app.risk.layout.yaxis
    assert ax.type == "log" and ax.dtick == 1
    # the true risk and the training error lie inside the drawn range
    lo, hi = ax.range
    for tr in (app.risk.data[0], app.risk.data[-1]):
        y = np.log10(np.asarray(tr.y, float))
        assert lo <= y.min() and y.max() <= hi
