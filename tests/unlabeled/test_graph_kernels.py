"""The shortest-path kernel and the Ng-Jordan-Weiss spectral kernel (thesis 7.4.2-7.4.3):
distances against a brute-force Floyd-Warshall on a brute-force neighbour graph and against
scipy's shortest_path, the clipped spectrum against a direct eigendecomposition, the spectral
map against a direct eigendecomposition of D^-1/2 A D^-1/2."""
import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path
from sklearn.datasets import make_moons
from sklearn.metrics.pairwise import rbf_kernel

from kernelnb.unlabeled import ClusterKernelSVC, ShortestPathKernel, SpectralKernel


def _graph(X, k):
    """Brute force: squared distances, each point joined to its k nearest, symmetrised."""
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    W = np.full_like(d2, np.inf)
    for i in range(len(X)):
        nn = np.argsort(d2[i])[1:k + 1]
        W[i, nn] = d2[i, nn]
    W = np.minimum(W, W.T)
    np.fill_diagonal(W, 0.0)
    return d2, W


def _floyd_warshall(W):
    D = W.copy()
    for m in range(len(D)):
        D = np.minimum(D, D[:, m:m + 1] + D[m:m + 1, :])
    return D


@pytest.fixture(scope="module")
def moons():
    return make_moons(n_samples=60, noise=0.08, random_state=0)


def test_shortest_path_distances_against_floyd_warshall_and_scipy(moons):
    X, _ = moons
    sp = ShortestPathKernel(n_neighbors=4, sigma=0.5).fit(X)
    _, W = _graph(X, 4)
    D = _floyd_warshall(W)
    np.testing.assert_allclose(sp.distances_, D, rtol=1e-12)
    Wsp = np.where(np.isinf(W), 0.0, W)
    np.testing.assert_allclose(sp.distances_, shortest_path(Wsp, method="FW", directed=False),
                               rtol=1e-12)
    assert np.isinf(D).any()        # two moons, 4 neighbours: two components of the graph
    # a new point enters through its 4 nearest fitted points
    Xt = np.array([[0.5, 0.25], [-1.0, 0.1]])
    dt = ((Xt[:, None] - X[None]) ** 2).sum(-1)
    want = np.array([np.min([dt[a, i] + D[i] for i in np.argsort(dt[a])[:4]], axis=0)
                     for a in range(2)])
    np.testing.assert_allclose(sp.shortest_distances(Xt), want, rtol=1e-12)


def test_indefinite_kernel_is_clipped_to_its_positive_part():
    X = np.random.RandomState(3).uniform(size=(50, 2))
    sp = ShortestPathKernel(n_neighbors=5, sigma=0.3).fit(X)
    _, W = _graph(X, 5)
    K = np.exp(-_floyd_warshall(W) / (2 * 0.3 ** 2))
    lam, U = np.linalg.eigh(K)
    assert lam.min() < -1e-6 and sp.negative_mass_ > 0     # K_SP is not positive definite
    np.testing.assert_allclose(sp.kernel_matrix_, K, rtol=1e-10, atol=1e-14)
    K_plus = (U * np.maximum(lam, 0)) @ U.T
    np.testing.assert_allclose(sp.kernel(), K_plus, atol=1e-10)
    np.testing.assert_allclose(sp.negative_mass_, -lam[lam < 0].sum() / np.abs(lam).sum(),
                               rtol=1e-8)
    # the Nystrom extension gives the fitted points their own coordinates back
    np.testing.assert_allclose(sp.transform(X[:5]), sp.embedding_[:5], atol=1e-8)


def test_spectral_map_against_a_direct_eigendecomposition(moons):
    X, _ = moons
    sk = SpectralKernel(sigma=0.3, n_components=3).fit(X)
    A = rbf_kernel(X, gamma=1 / (2 * 0.3 ** 2))
    np.fill_diagonal(A, 0.0)
    d = A.sum(1)
    L = A / np.sqrt(np.outer(d, d))
    lam, V = np.linalg.eigh(L)
    lam, V = lam[::-1][:3], V[:, ::-1][:, :3]
    np.testing.assert_allclose(sk.eigenvalues_, lam, atol=1e-10)
    Z = V / np.linalg.norm(V, axis=1, keepdims=True)
    # eigenvectors are defined up to sign (and rotation within a repeated eigenvalue): compare
    # the kernel Z Z', which is not
    assert lam[0] - lam[1] > 1e-8 and lam[1] - lam[2] > 1e-8 and lam[2] - np.sort(
        np.linalg.eigvalsh(L))[-4] > 1e-8
    np.testing.assert_allclose(sk.embedding_ @ sk.embedding_.T, Z @ Z.T, atol=1e-8)
    # a new point: the Nystrom extension written out
    Xt = np.array([[0.2, 0.9], [1.8, -0.1]])
    At = rbf_kernel(Xt, X, gamma=1 / (2 * 0.3 ** 2))
    Lt = At / np.sqrt(np.outer(At.sum(1), d))
    vt = Lt @ V / lam
    zt = vt / np.linalg.norm(vt, axis=1, keepdims=True)
    np.testing.assert_allclose(sk.transform(Xt) @ sk.embedding_.T, zt @ Z.T, atol=1e-8)


def test_both_kernels_in_the_svm_on_the_moons():
    X, y = make_moons(n_samples=200, noise=0.1, random_state=0)
    Xt, yt = make_moons(n_samples=400, noise=0.1, random_state=1)
    lab = np.r_[np.flatnonzero(y == 0)[:2], np.flatnonzero(y == 1)[:2]]
    unl = np.setdiff1d(np.arange(200), lab)
    for emb in (ShortestPathKernel(n_neighbors=8, sigma=1.0),
                SpectralKernel(sigma=0.1, n_components=2)):
        m = ClusterKernelSVC(emb, C=100.0).fit(X[lab], y[lab], X_unlabeled=X[unl])
        assert m.score(Xt, yt) > 0.95, emb
    with pytest.raises(ValueError, match="n_neighbors"):
        ShortestPathKernel(n_neighbors=10).fit(X[:10])
