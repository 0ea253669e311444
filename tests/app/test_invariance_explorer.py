"""InvarianceExplorer: the rotation toy's boundaries and diagnostics follow the controls."""
import numpy as np
import pytest

from kernelnb.app import InvarianceExplorer
from kernelnb.app.invariance_explorer import EXPLORER_METHODS


@pytest.fixture(scope="module")
def app():
    return InvarianceExplorer(grid=25)


def test_first_open(app):
    s = app.last_stats
    assert not app.last_error
    for m in EXPLORER_METHODS:
        assert 0 <= s[f"error_{m}"] < 0.5
    assert 0 < s["ratio"] <= 1 + 1e-9
    assert "kernelnb-main-slider" in app.controls["sigma"]._dom_classes
    assert app.fig is app.figures[0]


def test_tangent_arrows_are_orthogonal_to_the_points(app):
    arrows = app.fig.data[-1]
    x = np.array(arrows.x, dtype=float).reshape(-1, 3)
    yv = np.array(arrows.y, dtype=float).reshape(-1, 3)
    start = np.c_[x[:, 0], yv[:, 0]]
    direction = np.c_[x[:, 1] - x[:, 0], yv[:, 1] - yv[:, 0]]
    np.testing.assert_allclose((start * direction).sum(1), 0, atol=1e-8)
    app.update(tangents=False)
    assert len(app.fig.data[-1].x) == 0
    app.update(tangents=True)


def test_gamma_zero_gives_the_svm_boundary(app):
    app.update(gamma=0.0)
    z_svm = np.array(app.fig.data[2].z)
    for k in (4, 5):          # ISVM, IH_KPCA
        # the same problem solved to the solver's tol (1e-3) on two kernel paths
        np.testing.assert_allclose(np.array(app.fig.data[k].z), z_svm, atol=1e-2)
    assert abs(app.last_stats["error_ISVM"] - app.last_stats["error_SVM"]) <= 2 / 2000
    app.update(gamma=0.99)
    assert not np.allclose(np.array(app.fig.data[4].z), z_svm, atol=0.1)
    assert app.last_stats["gamma_eff"] > 0.5


def test_wide_kernel_ratio_near_one_and_shown_subset(app):
    app.update(sigma=8.0, shown=("SVM", "ISVM"))
    assert app.last_stats["ratio"] > 0.99
    visible = {app.fig.data[2 + i].name.split(" ")[0]: app.fig.data[2 + i].visible
               for i in range(len(EXPLORER_METHODS))}
    assert visible == {"SVM": True, "VSV": False, "ISVM": True, "IH_KPCA": False, "LIH": False}
    app.update(sigma=1.0, shown=EXPLORER_METHODS)


def test_bad_value_is_refused(app):
    out = app.update(shown=("SVM", "nonsense"))
    assert "error" in out
    assert not app.update(shown=("SVM",)).get("error")
