"""The KMP playground's logic, without a browser."""
import numpy as np
import pytest

from kernelnb.lab.app import KMPPlayground
from kernelnb.lab.app.kmp_playground import far_cluster_data


@pytest.fixture(scope="module")
def dash():
    return KMPPlayground(grid=30)


def test_first_view_has_numbers_and_numbered_support_points(dash):
    s = dash.update(n_basis=10)
    assert dash.last_error == ""
    assert s["n_basis_used"] == 10
    sv = dash.fig.data[5]                        # the support-point trace
    assert list(sv.text) == [str(i) for i in range(1, len(sv.x) + 1)]
    assert len(sv.x) >= 9                         # 10 atoms, one may be the bias
    assert 0 <= s["kmp_test_error"] < 0.2


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
