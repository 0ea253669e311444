"""The solver's kernel rows: direct low-dimension evaluation, GEMM blocks, the vectorised exp."""
import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from kernelnb.svm import SVC, _smo


@pytest.mark.parametrize("d", [1, 2, 6, 16, 17, 60])
def test_rbf_matrix_matches_float64_reference(d):
    rng = np.random.RandomState(d)
    X = rng.randn(300, d).astype(np.float32)
    gamma = 0.7 / d
    K = _smo.rbf_matrix(X, gamma, 2)
    ref = rbf_kernel(X.astype(np.float64), gamma=gamma)
    assert K.dtype == np.float32 and K.shape == (300, 300)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    # float32 rounding of the distances, and the exp within a few ulps
    np.testing.assert_allclose(K, ref, rtol=2e-5 * d, atol=1e-6)


def test_rbf_matrix_far_points_underflow_to_zero_not_garbage():
    X = np.array([[0.0, 0.0], [100.0, 0.0], [0.1, 0.0]], dtype=np.float32)
    K = _smo.rbf_matrix(X, 1.0, 1)
    assert 0.0 <= K[0, 1] < 1e-30 and np.all(np.isfinite(K))
    np.testing.assert_allclose(K[0, 2], np.exp(-0.01), rtol=1e-6)
    assert _smo.rbf_matrix(np.zeros((0, 3), dtype=np.float32), 1.0, 1).shape == (0, 0)


@pytest.mark.parametrize("d", [2, 6, 40])
def test_row_paths_low_and_high_dimension_agree_with_the_whole_matrix(d, monkeypatch):
    """Rows evaluated directly (d <= 16) or by GEMM, cached, give the whole matrix's optimum."""
    rng = np.random.RandomState(0)
    X = rng.randn(800, d)
    y = (np.sin(X[:, 0] * 2) + X[:, 1] ** 2 + 0.3 * rng.randn(800) > 1).astype(int)
    whole = SVC(C=5.0, sigma="scale").fit(X, y)
    monkeypatch.setattr(SVC, "_precompute_whole", False)
    rows = SVC(C=5.0, sigma="scale", q=2).fit(X, y)
    assert rows.n_kernel_rows_ > 0 and whole.n_kernel_rows_ == 0
    assert abs(rows.objective_ - whole.objective_) <= 1e-5 * abs(whole.objective_)
    np.testing.assert_allclose(rows.decision_function(X), whole.decision_function(X), atol=1e-3)
