"""MarginExplorer: the margin rho of the margin Perceptron against lambda and the updates t, checked
against the bounds of Collobert's Thms 8.2/8.3, rho_max against scikit-learn's hard-margin SVM,
and bad values shown as messages."""
import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from kernelnb.app import MarginExplorer
from kernelnb.app.margin_explorer import (LAMBDAS, MARGIN_MODELS, bound_thm82, bound_thm83,
                                          max_margin)
from kernelnb.largescale import MarginPerceptron
from kernelnb.viz import SURFACE_TRACES


@pytest.fixture(scope="module")
def app():
    return MarginExplorer(grid=20)


def test_first_open_separable_blobs_and_the_bounds_hold(app):
    s = app.last_stats
    assert not app.last_error
    assert s["separable"] and np.isfinite(s["rho_max"])
    assert s["train_error"] == 0.0 and s["val_error"] < 0.1
    # Thm 8.3 is a theorem: it holds at every lambda of the sweep and every t of the path
    assert np.all(s["rho_lam"] >= s["bound83_lam"] * (1 - 1e-9))
    assert np.all(s["rho_t"] >= s["bound83_t"] * (1 - 1e-9))
    assert s["mp_rho"] >= s["mp_bound83"]
    # a smaller learning rate gives a larger margin (the thesis's Fig. 8.2a)
    assert s["rho_lam"][0] > s["rho_lam"][-1]
    assert np.all(np.diff(s["t"]) > 0)
    assert len(app.lam_fig.data[0].x) == LAMBDAS.size
    assert "kernelnb-main-slider" in app.controls["lam"]._dom_classes


def test_R_and_bounds_by_hand(app):
    """R from the standardised training points; the two bounds from their formulas."""
    X, y = app._train
    R = np.sqrt((StandardScaler().fit_transform(X) ** 2).sum(axis=1).max())
    assert app.last_stats["R"] == pytest.approx(R, rel=1e-9)
    lam, t = 0.1, 50
    assert bound_thm83(t, lam, R) == pytest.approx(20 / np.sqrt(t * (20 + (R + 1) ** 2)))
    assert bound_thm82(2.0, lam, R) == pytest.approx(2.0 / np.sqrt(1 + R * R) / (2 + R * R * lam))


def test_rho_max_is_scikit_learns_hard_margin(app):
    X, y = app._train
    Xs = StandardScaler().fit_transform(X)
    rho, sep = max_margin(Xs, y)
    ref = SkSVC(kernel="linear", C=1e8, tol=1e-8).fit(Xs, y)
    assert sep and rho == pytest.approx(2 / np.linalg.norm(ref.coef_), rel=2e-3)
    Xo = np.vstack([Xs, Xs[:2]])
    yo = np.concatenate([y, 1 - y[:2]])            # the same points with the other label
    assert max_margin(Xo, yo)[1] is False


def test_the_updates_path_is_the_model_fitted_for_that_many_epochs(app):
    p = app.params()
    X, y = app._train
    m = MarginPerceptron(learning_rate=p["lam"], max_iter=p["epochs"],
                         random_state=p["seed"]).fit(X, y)
    s = app.last_stats
    assert s["t"][-1] == int(np.sum(m.n_updates_))
    assert s["rho_t"][-1] == pytest.approx(2 / np.linalg.norm(m.weights_))
    assert s["mp_rho"] == pytest.approx(s["rho_t"][-1])


def test_thm82_holds_once_converged():
    a = MarginExplorer(grid=10, noise=0.5, n_samples=60, epochs=200, lam=0.1)
    s = a.last_stats
    assert s["separable"] and s["mp_converged"]
    assert s["mp_bound82"] <= s["mp_rho"] <= s["rho_max"] * (1 + 1e-3)


def test_simple_mlp_band_and_fixed_margin(app):
    s = app.update(model="simple_mlp", beta=2.0, n_hidden=9)
    assert not app.last_error
    assert s["rho"] == pytest.approx(2 * 2.0 / 3)
    band = app.fig.data[SURFACE_TRACES.index("margins")]
    assert (band.contours.start, band.contours.end) == (-2.0, 2.0)
    assert not app.controls["n_hidden"].disabled and app.controls["mu"].disabled
    assert "fixed" in app.stats.value
    app.update(model="margin_perceptron", beta=1.0)


def test_non_separable_data_says_so(app):
    s = app.update(dataset="xor")
    assert not s["separable"] and np.isnan(s["rho_max"]) and "not linearly separable" in \
        app.stats.value
    assert len(app.lam_fig.data[2].x) == 0                   # no Thm 8.2 line
    app.update(dataset="blobs")


def test_bad_values_are_messages_and_the_dashboard_recovers(app):
    z = np.array(app.fig.data[0].z)
    out = app.update(model="no_such_model")
    assert "model" in out["error"] and "model" in app.error.value
    out = app.update(lam=-1.0)
    assert "lam" in out["error"]
    np.testing.assert_array_equal(app.fig.data[0].z, z)      # the picture stays
    app.controls["lam"].value = 0.03
    assert app.error.value == "" and app.last_stats["train_error"] == 0.0


def test_time_budget_stops_with_a_message(app):
    app.time_budget_s = 0.0
    try:
        out = app.update(lam=0.05)
        assert "time budget" in out["error"]
    finally:
        app.time_budget_s = MarginExplorer.time_budget_s
    assert "error" not in app.update(lam=0.01)


def test_every_model_draws(app):
    for key in MARGIN_MODELS:
        s = app.update(model=key)
        assert "error" not in s, s
        assert s["val_error"] < 0.2
    app.update(model="margin_perceptron")
