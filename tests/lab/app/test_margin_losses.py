"""MarginLosses: the loss chart follows the controls; boundaries come from fitted losses."""
import re

import numpy as np
import pytest

from kernelnb import losses
from kernelnb.lab.app import MarginLosses
from kernelnb.lab.app.margin_losses import DEFAULT_SHOWN

from ._lessons import check_lesson, lesson_app as make_lesson_app


@pytest.fixture(scope="module")
def app():
    return make_lesson_app(MarginLosses)


def test_first_open(app):
    s = app.last_stats
    assert not app.last_error
    assert set(s["values"]) == set(DEFAULT_SHOWN) and len(DEFAULT_SHOWN) <= 6
    assert sum(bool(t.visible) for t in app.fig.data) == len(DEFAULT_SHOWN)   # <= 6 curves
    assert s["train_error_a"] < 0.2 and s["test_error_b"] < 0.2
    assert not s["regime"] and "Lesson." in app.stats.value
    assert app.fig is app.figures[0]
    assert "kernelnb-main-slider" in app.controls["margin"]._dom_classes


def test_margin_slider_moves_marker_and_readout(app):
    app.update(shown=("hinge", "exponential", "logistic"))
    app.controls["margin"].value = -0.5
    s = app.last_stats
    assert s["values"]["hinge"] == pytest.approx(1.5)              # max(0, 1 - m)
    assert s["values"]["exponential"] == pytest.approx(np.exp(0.5))
    assert s["derivatives"]["logistic"] == pytest.approx(-1 / (1 + np.exp(-0.5)))
    assert app.fig.layout.shapes[0].x0 == pytest.approx(-0.5)
    assert "<td>hinge</td><td class='num'>1.5</td>" in app.stats.value
    app.update(shown=DEFAULT_SHOWN)


def test_derivative_toggle_and_shown_subset(app):
    app.update(shown=("hinge", "logistic"), derivative=False)
    vis = {tuple(t.meta): t.visible for t in app.fig.data}
    assert vis[("value", "hinge")] and vis[("value", "logistic")]
    assert not vis[("value", "exponential")] and not vis[("deriv", "hinge")]
    app.controls["derivative"].value = True
    vis = {tuple(t.meta): t.visible for t in app.fig.data}
    assert vis[("deriv", "hinge")] and not vis[("deriv", "exponential")]
    assert app.fig.layout.yaxis2.visible is True
    assert set(app.last_stats["values"]) == {"hinge", "logistic"}
    app.update(shown=DEFAULT_SHOWN, derivative=False)


def test_changing_a_loss_refits_its_boundary(app):
    app.update(loss_a="hinge", loss_b="exponential")
    z_b = np.array(app.bfig.data[3].z)
    z_a = np.array(app.bfig.data[2].z)
    app.controls["loss_b"].value = "squared"
    assert not np.allclose(z_b, app.bfig.data[3].z)
    np.testing.assert_array_equal(z_a, app.bfig.data[2].z)        # A unchanged
    assert app.bfig.data[3].name == "B: squared (MSE)"
    app.controls["C"].value = 10.0
    assert not np.allclose(z_a, app.bfig.data[2].z)


def test_errors_shown_then_recovers(app):
    out = app.update(loss_a="zero_one")
    assert "loss_a" in out["error"] and "loss_a" in app.error.value
    out = app.update(sigma=-1.0)
    assert "sigma" in out["error"]
    app.update(loss_a="logistic", sigma=0.5)
    assert app.error.value == "" and app.last_stats["train_error_a"] < 0.3


def test_vicinal_losses_are_shown_and_the_erf_loss_is_fitted(app):
    """The erf loss of the vicinal risk (Chapelle's thesis §1.3) and its Fig. 2.2 surrogate are
    on the chart; the erf loss can be fitted, the surrogate (a rescaled hinge) cannot."""
    from math import erf, pi, sqrt

    from kernelnb.lab.app.margin_losses import FIT_LOSSES
    assert "vrm" in FIT_LOSSES and "vrm_hinge" not in FIT_LOSSES
    app.update(shown=tuple(losses.LOSS_NAMES), margin=1.0, loss_a="vrm", loss_b="hinge")
    s = app.last_stats
    assert s["values"]["vrm"] == pytest.approx((1 + erf(-1 / sqrt(2))) / 2)
    assert s["values"]["vrm_hinge"] == pytest.approx(0.5 - 1 / sqrt(2 * pi))
    vis = {tuple(t.meta): t.visible for t in app.fig.data}
    assert vis[("value", "vrm")] and vis[("value", "vrm_hinge")]
    assert app.bfig.data[2].name == "A: VRM erf" and s["train_error_a"] < 0.3
    out = app.update(loss_a="vrm_hinge")
    assert "loss_a" in out["error"]
    app.update(loss_a="hinge", loss_b="exponential")


def test_collobert_tanh_mse_is_drawn_fitted_and_the_chapter8_losses_are_named(app):
    """Collobert's MSE on a tanh output, 1/2 (y - tanh f)^2 = 1/2 (1 - tanh m)^2 (thesis eq. 7.5),
    is a curve with its derivative and a fittable loss; the readout names what each loss trains."""
    from kernelnb.lab.app.margin_losses import FIT_LOSSES
    assert "tanh_mse" in FIT_LOSSES and "perceptron" not in FIT_LOSSES
    m = -0.5
    s = app.update(shown=("hinge", "tanh_mse"), margin=m, derivative=True, loss_a="hinge",
                   loss_b="tanh_mse")
    assert not app.last_error
    t = np.tanh(m)
    assert s["values"]["tanh_mse"] == pytest.approx(0.5 * (1 - t) ** 2)
    h = 1e-6                                               # derivative by central differences
    fd = (0.5 * (1 - np.tanh(m + h)) ** 2 - 0.5 * (1 - np.tanh(m - h)) ** 2) / (2 * h)
    assert s["derivatives"]["tanh_mse"] == pytest.approx(fd, rel=1e-6)
    vis = {tuple(tr.meta): tr.visible for tr in app.fig.data}
    assert vis[("value", "tanh_mse")] and vis[("deriv", "tanh_mse")]
    assert not vis[("value", "logistic")]
    assert app.bfig.data[3].name == "B: tanh + MSE" and s["test_error_b"] < 0.3
    assert "original Perceptron" in app.stats.value and "Table 7.1" in app.stats.value
    app.update(shown=DEFAULT_SHOWN, derivative=False, loss_a="hinge", loss_b="logistic",
               margin=0.5)


def test_readout_uses_names_and_rounds_without_minus_zero(app):
    """Student names, not code names; 3 significant digits; no '-0' (checklist 12-13)."""
    app.update(shown=tuple(losses.LOSS_NAMES) + ("tanh_mse",), margin=2.0)
    html = app.stats.value
    assert "squared_hinge" not in html and "squared hinge" in html
    assert not re.search(r"[-−]0(\.0*)?<", html)                 # no negative zero
    # at m = 2 the hinge and its derivative are exactly 0: printed "0", not "-0.0000"
    assert "<td>hinge</td><td class='num'>0</td><td class='num'>0</td>" in html
    app.update(shown=DEFAULT_SHOWN, margin=0.5)


def test_a_width_that_isolates_the_points_says_so(app):
    s = app.update(sigma=0.035)
    assert s["regime"] and "kernelnb-regime" in app.stats.value
    assert "own bump" in app.stats.value
    s = app.update(sigma=0.5)
    assert not s["regime"] and "kernelnb-regime" not in app.stats.value


@pytest.mark.parametrize("control", sorted(MarginLosses.LESSONS[0].sweep))
def test_lessons_hinge_and_cross_entropy_fit_the_same_boundary(control):
    app = MarginLosses(grid=10)
    assert (app.params()["loss_a"], app.params()["loss_b"]) == ("hinge", "logistic")
    held = check_lesson(app, MarginLosses.LESSONS[0], control)
    assert held
