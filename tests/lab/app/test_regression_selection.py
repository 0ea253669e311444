"""RegressionSelectionExplorer: the fit drawn is the least-squares fit (numpy.linalg.lstsq), the
curves are the criteria's estimates, the true risk is checked by Monte Carlo, bad values are
refused."""
import numpy as np
import pytest

from kernelnb.lab.app import RegressionSelectionExplorer
from kernelnb.lab.app.regression_selection import largest_dim, sample
from kernelnb.model_selection import REGRESSION_CRITERIA, basis_matrix, regression_risk_estimates
from kernelnb.reproductions.chapelle.regression import regression_target


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
