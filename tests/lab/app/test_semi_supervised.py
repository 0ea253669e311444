"""SemiSupervisedExplorer: the boundaries are those of the models the controls describe, the
spectrum is that of L before and after the transfer function, bad values are refused."""
import numpy as np
import pytest

from kernelnb.lab.app import SemiSupervisedExplorer
from kernelnb.lab.app.semi_supervised import labeled_indices
from kernelnb.datasets import make_toy
from kernelnb.svm import SVC
from kernelnb.unlabeled import ClusterKernel, ClusterKernelSVC, transfer_function
from kernelnb.lab.viz import decision_grid


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
    assert np.isnan(s["error_tsvm"])


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
    before = dict(app.last_stats)
    app.update(transfer="cubic")
    assert app.last_error and "transfer" in app.error.value
    assert app.controls["transfer"].value == "poly-step"
    assert app.last_stats == before


def test_labeled_indices():
    y = np.array([1, 0, 1, 1, 0, 0, 1])
    np.testing.assert_array_equal(labeled_indices(y, 2), [0, 1, 2, 4])
