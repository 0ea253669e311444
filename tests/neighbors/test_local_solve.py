"""The local solve of HKNN (LAPACK's Cholesky, dpotrf/dpotrs) against numpy.linalg.solve."""
import numpy as np
import pytest

from kernelnb.neighbors._neighbors import hyperplane_distances


def _reference(X, R, idx, lam):
    """||r - V'a||^2 + lam ||a||^2 with (V V' + lam I) a = V r, V_k = N_k - mean, r = x - mean,
    solved by numpy (lam = 0: the least-squares distance to the affine hull, by lstsq)."""
    out = np.empty(len(X))
    for i, (x, nb) in enumerate(zip(X, idx)):
        N = R[nb]
        c = N.mean(axis=0)
        V, r = N - c, x - c
        if lam > 0:
            a = np.linalg.solve(V @ V.T + lam * np.eye(len(nb)), V @ r)
        else:
            a = np.linalg.lstsq(V.T, r, rcond=None)[0]
        out[i] = np.sum((r - V.T @ a) ** 2) + lam * np.sum(a ** 2)
    return out


@pytest.mark.parametrize("K,d,lam", [(1, 3, 0.5), (2, 5, 1.0), (5, 2, 0.1), (10, 20, 1e-3),
                                     (10, 20, 0.0), (4, 30, 0.0), (40, 15, 2.0), (70, 80, 10.0)])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_hyperplane_distances_match_numpy_solve(K, d, lam, n_threads):
    rng = np.random.default_rng(K * 1000 + d)
    R = rng.normal(size=(300, d)) * rng.uniform(0.5, 3.0, size=d)
    X = rng.normal(size=(25, d))
    idx = np.stack([rng.choice(len(R), size=K, replace=False) for _ in X]).astype(np.int64)
    got = hyperplane_distances(X, R, idx, lam, n_threads)
    ref = _reference(X, R, idx, lam)
    assert np.all(got >= 0)
    np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-9 * np.max(ref))

