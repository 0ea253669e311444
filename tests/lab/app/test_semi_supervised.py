"""SemiSupervisedExplorer: the boundaries are those of the models the controls describe, the
spectrum is that of L before and after the transfer function, bad values are refused."""
import numpy as np
import pytest

from kernelnb.datasets import make_toy
from kernelnb.lab.app import SemiSupervisedExplorer
from kernelnb.lab.app.semi_supervised import labeled_indices
from kernelnb.lab.viz import decision_grid
from kernelnb.svm import SVC
from kernelnb.unlabeled import ClusterKernel, ClusterKernelSVC, transfer_function

from ._lessons import check_lesson


@pytest.fixture(scope="module")
def app():
    return SemiSupervisedExplorer(grid=20)


def _problem(app):
    c = app.controls
    X, y = make_toy(c["dataset"].value, c["n_samples"].value, noise=c["noise"].value,
                    random_state=c["seed"].value)
    L = labeled_indices(y, c["n_labeled"].value)
    return X, y, L, np.setdiff1d(np.arange(len(y)), L)


def test_first_open_cluster_kernel_beats_svm_on_moons(app):
    s = app.last_stats
    assert not app.last_error
    assert "kernelnb-main-slider" in app.controls["r"]._dom_classes
    assert app.controls["dataset"].value == "moons"
    # two labeled points per class: the cluster kernel follows the moons, the SVM cannot
    assert s["error_cluster"] < s["error_svm"] - 0.1
    assert "error_tsvm" not in s and "TSVM" not in app.stats.value     # not shown: no row
    assert not s["regime"]


LESSON = SemiSupervisedExplorer.LESSONS[0]


@pytest.mark.parametrize("control", list(LESSON.sweep))
def test_lessons_cluster_kernel_beats_labeled_svm(app, control):
    held = check_lesson(app, LESSON, control)
    if control == "n_labeled":      # the default's neighbours, not only one lucky value
        assert set(held) == {1, 2, 10}


@pytest.mark.parametrize("setting, words", [
    (dict(r=1), "r = 1 keeps only the first eigenvector"),
    (dict(r=4), "no gap in the spectrum after r = 4"),
    (dict(noise=0.5), "a few isolated points"),
    (dict(transfer="linear"), "leaves K unchanged"),
    (dict(transfer="poly-step", p=0.5, q=2.0), "of its weight beyond r = 2"),
    (dict(transfer="polynomial", t=5), "raise t"),
])
def test_out_of_regime_settings_say_so(app, setting, words):
    try:
        stats = app.update(raise_errors=True, **setting)
        assert any(words in n for n in stats["regime"]), stats["regime"]
        assert "kernelnb-regime" in app.stats.value and words in app.stats.value
    finally:
        app.update(r=2, noise=0.1, transfer="step")
    assert not app.last_stats["regime"]


def test_boundaries_and_spectrum_are_the_models_described(app):
    app.update(transfer="poly-step", r=3, p=0.5, q=3.0, sigma=0.2, C=10.0, n_labeled=3)
    X, y, L, U = _problem(app)
    bounds = (*app.fig.layout.xaxis.range, *app.fig.layout.yaxis.range)
    svm = SVC(sigma=0.2, C=10.0, precision="float64").fit(X[L], y[L])
    ck = ClusterKernelSVC(ClusterKernel(sigma=0.2, r=3, p=0.5, q=3.0), C=10.0).fit(
        X[L], y[L], X_unlabeled=X[U])
    for k, ref in enumerate((svm, ck)):
        _, _, Z = decision_grid(ref, bounds, 20)
        np.testing.assert_allclose(np.asarray(app.fig.data[2 + k].z), Z, atol=1e-6)
    assert app.last_stats["error_cluster"] == pytest.approx(np.mean(ck.predict(X[U]) != y[U]))
    lam = np.asarray(app.spectrum.data[0].y)
    np.testing.assert_allclose(lam, ck.embedding_.eigenvalues_[:lam.size], atol=1e-12)
    np.testing.assert_allclose(app.spectrum.data[1].y,
                               transfer_function(lam, "poly-step", r=3, p=0.5, q=3.0),
                               atol=1e-12)
    assert len(app.fig.data[5].x) == len(U)          # the unlabeled points are drawn


def test_controls_follow_the_transfer_and_bad_values_refused(app):
    app.update(transfer="polynomial")
    assert app.controls["r"].disabled and not app.controls["t"].disabled
    app.update(transfer="poly-step")
    assert not app.controls["p"].disabled and app.controls["t"].disabled
    app.update(transfer="step")
    before = dict(app.last_stats)
    app.update(transfer="cubic")
    assert app.last_error and "transfer" in app.error.value
    assert app.controls["transfer"].value == "step"
    assert app.last_stats == before


def test_labeled_indices():
    y = np.array([1, 0, 1, 1, 0, 0, 1])
    np.testing.assert_array_equal(labeled_indices(y, 2), [0, 1, 2, 4])
