"""KernelPCAMap (Chapelle's thesis, section 2.2): the map against direct computations, the
kernel SVM, scikit-learn's KernelPCA, and the low-rank maps against the exact one."""
import numpy as np
import pytest
from scipy.linalg import eigh
from sklearn.decomposition import KernelPCA
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from kernelnb.prior import KernelPCAMap
from kernelnb.reproductions.chapelle.kpca import kpca_components_curve
from kernelnb.svm import SVC

SIGMA = 1.5
GAMMA = 1.0 / (2 * SIGMA ** 2)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=120) > 0, 1, -1)
    Xt = rng.normal(size=(60, 4))
    yt = np.where(Xt[:, 0] * Xt[:, 1] > 0, 1, -1)
    return X, y, Xt, yt


def _centred(Kxy, Kx_train, Ky_train, Ktrain):
    """K(x, y) - mean_i K(x, x_i) - mean_i K(y, x_i) + mean_ij K(x_i, x_j), with numpy."""
    return (Kxy - Kx_train.mean(axis=1)[:, None] - Ky_train.mean(axis=1)[None, :]
            + Ktrain.mean())


def test_gram_of_the_map_is_the_centred_kernel(data):
    X, _, Xt, _ = data
    K = rbf_kernel(X, gamma=GAMMA)
    Kt = rbf_kernel(Xt, X, gamma=GAMMA)
    psi = KernelPCAMap(sigma=SIGMA).fit(X)
    Z, Zt = psi.transform(X), psi.transform(Xt)
    # (2.16): psi(x_i) . psi(x_j) = centred K(x_i, x_j); and a test point is centred with the
    # training means
    np.testing.assert_allclose(Z @ Z.T, _centred(K, K, K, K), atol=1e-10)
    np.testing.assert_allclose(Zt @ Z.T, _centred(Kt, Kt, K, K), atol=1e-10)
    np.testing.assert_allclose(psi.centred_kernel(Xt, X), _centred(Kt, Kt, K, K), atol=1e-12)
    # the centred Gram matrix has rank n - 1 (the constant vector is in its kernel): the zero
    # eigenvalue is dropped, not inverted
    assert psi.n_components_ == X.shape[0] - 1
    assert Z.shape == (120, 119) and Zt.shape == (60, 119)
    np.testing.assert_allclose(psi.fit_transform(X), Z, atol=1e-10)


def test_map_is_K_to_the_minus_half_k_up_to_a_rotation(data):
    """The thesis's form (2.21), K^{-1/2} k(x), is U psi(x): same point, rotated basis."""
    X, _, Xt, _ = data
    K = rbf_kernel(X, gamma=GAMMA)
    Kc = _centred(K, K, K, K)
    Kt = _centred(rbf_kernel(Xt, X, gamma=GAMMA), rbf_kernel(Xt, X, gamma=GAMMA), K, K)
    w, U = eigh(Kc)
    keep = w > 1e-10 * w.max()
    pinv_root = (U[:, keep] / np.sqrt(w[keep])) @ U[:, keep].T          # K^{-1/2} on its range
    direct = Kt @ pinv_root                                             # rows: K^{-1/2} k(x)
    psi = KernelPCAMap(sigma=SIGMA).fit(X)
    Zt = psi.transform(Xt)
    np.testing.assert_allclose(direct @ direct.T, Zt @ Zt.T, atol=1e-8)
    np.testing.assert_allclose(np.linalg.norm(direct, axis=1), np.linalg.norm(Zt, axis=1),
                               atol=1e-8)
    np.testing.assert_allclose(psi.eigenvalues_, np.sort(w[keep])[::-1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("C", [0.5, 10.0])
def test_linear_svm_on_psi_is_the_kernel_svm(data, C):
    """Section 2.2: a non-linear SVM on x is a linear SVM on psi(x) (decision values equal)."""
    X, y, Xt, _ = data
    psi = KernelPCAMap(sigma=SIGMA).fit(X)
    kern = SVC(kernel="rbf", sigma=SIGMA, C=C, tol=1e-8, precision="float64").fit(X, y)
    lin = SVC(kernel="linear", C=C, tol=1e-8, precision="float64").fit(psi.transform(X), y)
    np.testing.assert_allclose(lin.decision_function(psi.transform(Xt)),
                               kern.decision_function(Xt), atol=1e-6)
    np.testing.assert_allclose(lin.dual_coef_, kern.dual_coef_, atol=1e-6)


def test_polynomial_and_linear_kernels(data):
    X, _, Xt, _ = data
    K = polynomial_kernel(X, degree=2, gamma=1.0, coef0=1.0)
    Kt = polynomial_kernel(Xt, X, degree=2, gamma=1.0, coef0=1.0)
    psi = KernelPCAMap(kernel="poly", degree=2, coef0=1.0).fit(X)
    # the degree-2 feature space of 4 inputs has dimension 15, minus the constant: rank 14
    assert psi.n_components_ == 14
    np.testing.assert_allclose(psi.transform(Xt) @ psi.transform(X).T, _centred(Kt, Kt, K, K),
                               atol=1e-8)
    lin = KernelPCAMap(kernel="linear").fit(X)
    # linear kernel: psi is ordinary PCA of the centred inputs (scores, up to signs)
    Xc = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    np.testing.assert_allclose(np.abs(lin.transform(Xt)), np.abs((Xt - X.mean(axis=0)) @ Vt.T),
                               atol=1e-10)
    np.testing.assert_allclose(lin.eigenvalues_, s ** 2, rtol=1e-10)


def test_against_scikit_learn_kernel_pca(data):
    """scikit-learn's KernelPCA.transform is psi itself: same centring, projections scaled by
    Lambda^{-1/2} (its fit_transform U Lambda^{1/2} is the same thing on the training set),
    eigenvalues of the centred Gram matrix (not divided by n); only eigenvector signs differ."""
    X, _, Xt, _ = data
    k = 30
    sk = KernelPCA(n_components=k, kernel="rbf", gamma=GAMMA, eigen_solver="dense").fit(X)
    psi = KernelPCAMap(n_components=k, sigma=SIGMA).fit(X)
    np.testing.assert_allclose(psi.eigenvalues_, sk.eigenvalues_, rtol=1e-9)
    A, B = psi.transform(Xt), sk.transform(Xt)
    signs = np.sign(np.sum(A * B, axis=0))
    np.testing.assert_allclose(A * signs, B, atol=1e-9)
    np.testing.assert_allclose(psi.fit_transform(X) * signs, sk.fit_transform(X), atol=1e-9)


def test_top_k_is_the_first_columns_of_the_full_map(data):
    X, _, Xt, _ = data
    full = KernelPCAMap(sigma=SIGMA).fit(X)
    top = KernelPCAMap(sigma=SIGMA, n_components=12).fit(X)
    assert top.n_components_ == 12
    signs = np.sign(np.sum(full.transform(Xt)[:, :12] * top.transform(Xt), axis=0))
    np.testing.assert_allclose(top.transform(Xt) * signs, full.transform(Xt)[:, :12], atol=1e-8)


def test_top_k_by_lanczos_is_the_dense_top_k(data, monkeypatch):
    """Large n, small k: the top-k eigenpairs come from ARPACK; same map as the dense driver."""
    from kernelnb import _linalg

    X, _, Xt, _ = data
    dense = KernelPCAMap(sigma=SIGMA, n_components=10).fit(X)
    monkeypatch.setattr(_linalg, "LANCZOS_MIN_N", 50)
    lanczos = KernelPCAMap(sigma=SIGMA, n_components=10).fit(X)
    np.testing.assert_allclose(lanczos.eigenvalues_, dense.eigenvalues_, rtol=1e-10)
    A, B = lanczos.transform(Xt), dense.transform(Xt)
    np.testing.assert_allclose(A * np.sign(np.sum(A * B, axis=0)), B, atol=1e-8)


@pytest.mark.parametrize("method", ["subset", "cholesky"])
def test_low_rank_maps_converge_to_the_exact_map(data, method):
    X, _, Xt, _ = data
    n = X.shape[0]
    exact = KernelPCAMap(sigma=SIGMA).fit(X)
    Kc = exact.centred_kernel(X)
    Kct = exact.centred_kernel(Xt, X)
    errs = []
    for k in (10, 30, 60, 90, n):
        low = KernelPCAMap(sigma=SIGMA, method=method, n_components=k, random_state=0).fit(X)
        Z = low.transform(X)
        assert Z.shape[1] == low.n_components_ <= k
        np.testing.assert_allclose(low.fit_transform(X), Z, atol=1e-8)
        errs.append(np.abs(Z @ Z.T - Kc).max())
        # the projection never adds: psi psi' <= K~ (a projection of the centred features)
        assert np.linalg.eigvalsh(Kc - Z @ Z.T).min() > -1e-8
    assert all(b <= a + 1e-12 for a, b in zip(errs, errs[1:])), errs
    assert errs[0] > 1e-2 and errs[-1] < 1e-9
    # at k = n the low-rank map is the exact map: test points too, eigenvalues too
    low = KernelPCAMap(sigma=SIGMA, method=method, n_components=n, random_state=0).fit(X)
    np.testing.assert_array_equal(low.basis_points_, X[low.basis_indices_])
    Zt = low.transform(Xt)
    np.testing.assert_allclose(Zt @ low.transform(X).T, Kct, atol=1e-8)
    np.testing.assert_allclose(low.eigenvalues_, exact.eigenvalues_, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("rank", [15, 40])
def test_cholesky_pivots_and_subset_are_what_they_say(data, rank):
    """15 pivots fall in the first batch of kernel columns, 40 need several."""
    X, _, _, _ = data
    K = rbf_kernel(X, gamma=GAMMA)
    chol = KernelPCAMap(sigma=SIGMA, method="cholesky", n_components=rank).fit(X)
    # greedy pivoting, recomputed by hand: the largest residual diagonal of K - V V'
    d = np.ones(len(X))
    V = np.zeros((len(X), 0))
    piv = []
    for _ in range(rank):
        i = int(np.argmax(d))
        piv.append(i)
        v = (K[:, i] - V @ V[i]) / np.sqrt(d[i])
        V = np.column_stack([V, v])
        d = np.maximum(np.diag(K) - np.sum(V * V, axis=1), 0)
        d[piv] = 0
    np.testing.assert_array_equal(chol.basis_indices_, piv)
    np.testing.assert_array_equal(chol.basis_points_, X[piv])
    # Nystroem on the pivots: K(x, P) K_PP^{-1} K(P, y), then centred
    P = np.array(piv)
    Kn = K[:, P] @ np.linalg.solve(K[np.ix_(P, P)], K[P])
    Z = chol.transform(X)
    np.testing.assert_allclose(Z @ Z.T, _centred(Kn, Kn, Kn, Kn), atol=1e-8)

    sub = KernelPCAMap(sigma=SIGMA, method="subset", n_components=20, random_state=3).fit(X)
    sub_big = KernelPCAMap(sigma=SIGMA, method="subset", n_components=40, random_state=3).fit(X)
    assert len(set(sub.basis_indices_)) == 20
    assert set(sub.basis_indices_) <= set(sub_big.basis_indices_)       # nested for one seed
    S = sub.basis_indices_
    Kn = K[:, S] @ np.linalg.solve(K[np.ix_(S, S)], K[S])
    Z = sub.transform(X)
    np.testing.assert_allclose(Z @ Z.T, _centred(Kn, Kn, Kn, Kn), atol=1e-8)


@pytest.mark.parametrize("batch", [1, 5, 16])
def test_cholesky_kernel_columns_in_batches(batch):
    """The columns made in batches give the pivots and factor of one column at a time."""
    from kernelnb import kernels as K
    from kernelnb.prior.kpca import _pivoted_cholesky
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 6))
    kern = K.KernelSpec(sigma=2.0).fit(X)
    Kx = rbf_kernel(X, gamma=1 / 8)
    V, piv = _pivoted_cholesky(kern, X, 60, 1e-10, batch=batch)
    assert V.shape == (400, 60) and len(set(piv)) == 60
    # each pivot had the largest residual diagonal when it was chosen
    for j, i in enumerate(piv):
        resid = np.diag(Kx) - np.sum(V[:, :j] ** 2, axis=1)
        resid[piv[:j]] = -np.inf
        assert resid[i] >= resid.max() - 1e-12
    np.testing.assert_allclose(V @ V[piv].T, Kx[:, piv], atol=1e-10)


def test_transform_in_chunks_is_row_by_row(data):
    """Long inputs are mapped in chunks of rows (bounded memory): no row depends on the others."""
    X = data[0]
    big = np.random.default_rng(1).normal(size=(9500, 4))
    for method in ("exact", "cholesky"):
        psi = KernelPCAMap(sigma=SIGMA, method=method, n_components=50).fit(X)
        Z = psi.transform(big)
        parts = np.vstack([psi.transform(big[i:i + 700]) for i in range(0, len(big), 700)])
        np.testing.assert_allclose(Z, parts, atol=1e-12)
        np.testing.assert_allclose(Z[::950], psi.transform(big[::950]), atol=1e-12)


def test_dropped_eigenvalues_and_tolerance():
    # 30 points with only 3 distinct values: the centred Gram matrix has rank 2
    X = np.repeat(np.array([[0.0], [1.0], [2.5]]), 10, axis=0)
    psi = KernelPCAMap(sigma=1.0).fit(X)
    assert psi.n_components_ == 2
    assert np.all(np.isfinite(psi.transform(np.array([[0.3], [7.0]]))))
    chol = KernelPCAMap(sigma=1.0, method="cholesky", n_components=10).fit(X)
    assert chol.basis_indices_.shape[0] == 3 and chol.n_components_ == 2
    sub = KernelPCAMap(sigma=1.0, method="subset", n_components=10, random_state=0).fit(X)
    assert sub.n_components_ <= 2
    # n_components above n is clipped to n
    assert KernelPCAMap(n_components=500, sigma=1.0).fit(X).n_components_ == 2


def test_sigma_scale_and_scales(data):
    X, _, Xt, _ = data
    s = np.array([1.0, 0.5, 2.0, 0.0])
    psi = KernelPCAMap(sigma="scale", scales=s).fit(X)
    Xs = X * s
    sig = np.sqrt(Xs.shape[1] * Xs.var() / 2.0)
    assert psi.sigma_ == pytest.approx(sig)
    K = rbf_kernel(Xs, gamma=1 / (2 * sig ** 2))
    Kt = rbf_kernel(Xt * s, Xs, gamma=1 / (2 * sig ** 2))
    np.testing.assert_allclose(psi.transform(Xt) @ psi.transform(X).T, _centred(Kt, Kt, K, K),
                               atol=1e-9)


@pytest.mark.parametrize("params, name", [
    (dict(method="svd"), "method"),
    (dict(n_components=0), "n_components"),
    (dict(n_components=2.5), "n_components"),
    (dict(sigma=-1.0), "sigma"),
    (dict(sigma="auto"), "sigma"),
    (dict(tol=1.0), "tol"),
    (dict(tol=-1e-3), "tol"),
    (dict(kernel="precomputed"), "kernel"),
    (dict(degree=0, kernel="poly"), "degree"),
    (dict(random_state="x"), "random_state"),
    (dict(method="subset"), "n_components"),
    (dict(method="cholesky"), "n_components"),
])
def test_bad_parameters_name_the_parameter(data, params, name):
    X = data[0]
    with pytest.raises(ValueError, match=name):
        KernelPCAMap(**params).fit(X)
    with pytest.raises(ValueError, match=name):
        KernelPCAMap(**params).fit_transform(X)          # checked on either way in


def test_keyword_only_constructor_and_fit_time(data):
    with pytest.raises(TypeError):
        KernelPCAMap(5)
    psi = KernelPCAMap(sigma=SIGMA)
    psi.fit_transform(data[0])
    assert psi.fit_time_ > 0


def test_bad_input(data):
    X = data[0]
    with pytest.raises(ValueError, match="2 samples"):
        KernelPCAMap().fit(X[:1])
    psi = KernelPCAMap(sigma=SIGMA).fit(X)
    with pytest.raises(ValueError, match="features"):
        psi.transform(X[:, :3])
    with pytest.raises(ValueError, match="method='exact'"):
        KernelPCAMap(method="subset", n_components=5).fit(X).centred_kernel(X)


def test_components_curve_protocol(data):
    """Fig. 2.4's protocol: errors recomputed directly for one point of each curve."""
    X, y, Xt, yt = data
    out = kpca_components_curve(X, y, Xt, yt, [5, 119], C=10.0, sigma=SIGMA)
    assert set(out) >= {"n_components", "exact", "subset", "cholesky"}
    for m in ("exact", "subset", "cholesky"):
        assert out[m].shape == (2,)
        assert np.all((out[m] >= 0) & (out[m] <= 1))
    # with every component, each method is the kernel SVM
    kern = SVC(kernel="rbf", sigma=SIGMA, C=10.0).fit(X, y)
    ref = np.mean(kern.predict(Xt) != yt)
    for m in ("exact", "subset", "cholesky"):
        assert out[m][1] == pytest.approx(ref, abs=1.5 / len(yt))
    psi = KernelPCAMap(sigma=SIGMA, method="cholesky", n_components=5).fit(X)
    lin = SVC(kernel="linear", C=10.0).fit(psi.transform(X), y)
    assert out["cholesky"][0] == pytest.approx(np.mean(lin.predict(psi.transform(Xt)) != yt))
    with pytest.raises(ValueError, match="methods"):
        kpca_components_curve(X, y, Xt, yt, [5], methods=["pca"])
    with pytest.raises(ValueError, match="n_components"):
        kpca_components_curve(X, y, Xt, yt, [0])


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
@pytest.mark.parametrize("n, k", [(2600, 10), (1200, 12), (300, 12), (300, 300)])
def test_top_eigh_against_numpy(n, k):
    """kernelnb._linalg.top_eigh against numpy's full eigh: Lanczos on symmetric products for
    n >= 1000 and k <= n / 10 (scipy's BLAS on one thread below n = 2500, on its own count above),
    MRRR below, divide and conquer for the whole spectrum.  Same leading eigenvalues, same
    eigenvectors up to sign, decreasing order; C- and Fortran-ordered input; scipy's BLAS threads
    restored afterwards."""
    from threadpoolctl import threadpool_info
    from scipy.spatial.distance import cdist

    from kernelnb._linalg import top_eigh

    threads_before = [i["num_threads"] for i in threadpool_info()]
    rng = np.random.RandomState(n + k)
    X = rng.randn(n, 5)
    K = np.exp(-0.5 * cdist(X, X, "sqeuclidean") / 4.0)
    K -= K.mean(axis=0)[None, :] + K.mean(axis=1)[:, None] - K.mean()
    w_ref, U_ref = np.linalg.eigh(K)
    w_ref, U_ref = w_ref[::-1][:k], U_ref[:, ::-1][:, :k]
    for A in (K.copy(), np.asfortranarray(K)):
        w, U = top_eigh(A, k)
        assert w.shape == (k,) and U.shape == (n, k)
        assert np.all(np.diff(w) <= 0)
        np.testing.assert_allclose(w, w_ref, atol=1e-10 * w_ref[0])
        # eigenvectors of well-separated eigenvalues only (the tail of the full spectrum is
        # clustered near 0, where any basis of the cluster is right)
        gap = np.abs(np.diff(w_ref)) > 1e-6 * w_ref[0]
        sep = np.r_[gap, True] & np.r_[True, gap]
        sep &= w_ref > 1e-8 * w_ref[0]
        D = np.abs(np.sum(U[:, sep] * U_ref[:, sep], axis=0))
        np.testing.assert_allclose(D, 1.0, atol=1e-8)
    assert [i["num_threads"] for i in threadpool_info()] == threads_before
