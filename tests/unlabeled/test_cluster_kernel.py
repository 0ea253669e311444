"""Cluster, random-walk and marginalized kernels (Chapelle's thesis 7.4, 7.5.1) against direct
numpy / scipy computations of the thesis's formulas."""
import numpy as np
import pytest
from numpy.linalg import eigh, eigvalsh, matrix_power

from kernelnb.model_selection import span_estimate
from kernelnb.svm import SVC
from kernelnb.unlabeled import (ClusterKernel, ClusterKernelSVC, MarginalizedKernel,
                                RandomWalkKernel, cutoff_span_curve, transfer_function)


def _rbf(A, B, sigma):
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * sigma ** 2))


def _blobs(n=60, seed=0, d=2):
    rng = np.random.RandomState(seed)
    centres = np.array([[0, 0], [3, 0], [0, 3]])[:, :d] if d == 2 else rng.randn(3, d) * 3
    lab = rng.randint(0, 3, n)
    return centres[lab] + 0.5 * rng.randn(n, d), lab


def _direct(X, sigma, phi_of):
    """K~ of 7.4.4 by a full numpy eigendecomposition: returns (K, K~, eigenvalues)."""
    K = _rbf(X, X, sigma)
    d = K.sum(1)
    L = K / np.sqrt(np.outer(d, d))
    w, U = eigh(L)
    w, U = w[::-1], U[:, ::-1]
    Lt = (U * phi_of(np.clip(w, 0, None))) @ U.T
    Dt = 1.0 / np.diag(Lt)
    return K, np.sqrt(np.outer(Dt, Dt)) * Lt, w


X0, _ = _blobs()
SIGMA = 0.8


def test_linear_transfer_gives_back_K():
    ck = ClusterKernel(sigma=SIGMA, transfer="linear").fit(X0)
    K = _rbf(X0, X0, SIGMA)
    np.testing.assert_allclose(ck.kernel(), K, atol=1e-10)
    np.testing.assert_allclose(np.diag(ck.kernel()), 1.0, atol=1e-12)


def test_step_with_r_n_is_identity_and_linear_step_r_n_is_K():
    n = X0.shape[0]
    ck = ClusterKernel(sigma=SIGMA, transfer="step", r=n).fit(X0)
    np.testing.assert_allclose(ck.kernel(), np.eye(n), atol=1e-9)
    ls = ClusterKernel(sigma=SIGMA, transfer="linear-step", r=n).fit(X0)
    np.testing.assert_allclose(ls.kernel(), _rbf(X0, X0, SIGMA), atol=1e-9)


def test_step_is_ng_jordan_weiss_representation():
    r = 3
    ck = ClusterKernel(sigma=SIGMA, transfer="step", r=r).fit(X0)
    K = _rbf(X0, X0, SIGMA)
    d = K.sum(1)
    w, U = eigh(K / np.sqrt(np.outer(d, d)))
    V = U[:, -r:]
    V = V / np.linalg.norm(V, axis=1, keepdims=True)   # NJW's row-normalised eigenvectors
    np.testing.assert_allclose(ck.kernel(), V @ V.T, atol=1e-8)
    assert ck.eigenvalues_.shape == (r,)
    np.testing.assert_allclose(ck.eigenvalues_, w[::-1][:r], atol=1e-10)
    assert ck.eigenvalues_[0] == pytest.approx(1.0, abs=1e-10)


def test_polynomial_is_normalised_random_walk():
    t = 3
    ck = ClusterKernel(sigma=SIGMA, transfer="polynomial", t=t).fit(X0)
    K = _rbf(X0, X0, SIGMA)
    D = K.sum(1)
    Pt = matrix_power(K / D[:, None], t)
    # L^t = D^{1/2} P^t D^{-1/2}; D~ = 1 / diag(L^t)
    Lt = np.sqrt(D)[:, None] * Pt / np.sqrt(D)[None, :]
    Dt = 1.0 / np.diag(Lt)
    expected = np.sqrt(np.outer(Dt, Dt)) * Lt
    np.testing.assert_allclose(ck.kernel(), expected, atol=1e-9)


@pytest.mark.parametrize("p,q,r", [(0.5, 2.0, 7), (1.0, 3.0, 2), (2.0, 2.0, 10)])
def test_poly_step_against_full_eigendecomposition(p, q, r):
    ck = ClusterKernel(sigma=SIGMA, transfer="poly-step", r=r, p=p, q=q).fit(X0)
    phi = lambda w: np.where(np.arange(w.size) < r, w ** p, w ** q)  # noqa: E731
    _, Kt, _ = _direct(X0, SIGMA, phi)
    np.testing.assert_allclose(ck.kernel(), Kt, atol=1e-9)
    assert np.min(eigvalsh(ck.kernel())) > -1e-10     # PSD
    np.testing.assert_allclose(np.diag(ck.kernel()), 1.0, atol=1e-10)


def test_truncated_spectrum_uses_partial_solver_and_approximates():
    # n = 400 points, 12 leading pairs: the Lanczos path; 100: the MRRR subset path
    rng = np.random.RandomState(1)
    X = rng.randn(400, 3)
    full = ClusterKernel(sigma=1.0, transfer="step", r=12, n_components=400).fit(X)
    lan = ClusterKernel(sigma=1.0, transfer="step", r=12).fit(X)
    mrrr = ClusterKernel(sigma=1.0, transfer="step", r=12, n_components=100).fit(X)
    np.testing.assert_allclose(lan.eigenvalues_, full.eigenvalues_[:12], atol=1e-9)
    np.testing.assert_allclose(mrrr.eigenvalues_, full.eigenvalues_[:100], atol=1e-9)
    np.testing.assert_allclose(lan.kernel(), full.kernel(), atol=1e-7)
    np.testing.assert_allclose(mrrr.kernel(), full.kernel(), atol=1e-7)


def test_extension_formula_and_training_rows():
    rng = np.random.RandomState(2)
    Xt = rng.randn(7, 2) * 2
    ck = ClusterKernel(sigma=1.5, transfer="poly-step", r=5, ridge=1e-8).fit(X0)
    K = _rbf(X0, X0, 1.5)
    Kt = ck.kernel()
    V = _rbf(Xt, X0, 1.5)
    # the thesis's K~(x, x_i) = (K~ K^-1 v)_i, with the same ridge
    expected = (Kt @ np.linalg.solve(K + 1e-8 * np.eye(len(K)), V.T)).T
    np.testing.assert_allclose(ck.transform(Xt) @ ck.embedding_.T, expected, atol=1e-6)
    # at the fitted points: (K + ridge I)^-1 K Z, i.e. their rows up to the regularisation,
    # which matters where K is ill-conditioned (wide sigma) ...
    Kr = K + 1e-8 * np.eye(len(K))
    np.testing.assert_allclose(ck.transform(X0), np.linalg.solve(Kr, K @ ck.embedding_),
                               atol=1e-6)
    assert np.abs(ck.transform(X0) - ck.embedding_).max() < 1e-2
    # ... and not where it is well conditioned
    narrow = ClusterKernel(sigma=0.3, transfer="poly-step", r=5).fit(X0)
    np.testing.assert_allclose(narrow.transform(X0[:10]), narrow.embedding_[:10], atol=1e-7)
    np.testing.assert_allclose(narrow.kernel(X0[:10], X0), narrow.kernel()[:10], atol=1e-7)


def test_with_cutoff_equals_refit():
    ck = ClusterKernel(sigma=SIGMA, transfer="poly-step", r=3).fit(X0)
    other = ck.with_cutoff(8)
    ref = ClusterKernel(sigma=SIGMA, transfer="poly-step", r=8).fit(X0)
    np.testing.assert_allclose(other.kernel(), ref.kernel(), atol=1e-12)
    assert other.r == 8 and ck.r == 3
    step = ClusterKernel(sigma=SIGMA, transfer="step", r=3).fit(X0)
    with pytest.raises(ValueError, match="n_components"):
        step.with_cutoff(8)


def test_transfer_function_values():
    w = np.array([1.0, 0.5, 0.25, 0.1])
    np.testing.assert_allclose(transfer_function(w, "linear"), w)
    np.testing.assert_allclose(transfer_function(w, "step", r=2), [1, 1, 0, 0])
    np.testing.assert_allclose(transfer_function(w, "linear-step", r=3), [1, 0.5, 0.25, 0])
    np.testing.assert_allclose(transfer_function(w, "polynomial", t=2), w ** 2)
    np.testing.assert_allclose(transfer_function(w, "poly-step", r=1, p=0.5, q=2),
                               [1, 0.25, 0.0625, 0.01])


def test_sigma_scale_matches_kernelspec():
    from kernelnb.kernels import scale_sigma
    ck = ClusterKernel(sigma="scale", transfer="linear").fit(X0)
    assert ck.sigma_ == pytest.approx(scale_sigma(X0))
    np.testing.assert_allclose(ck.kernel(), _rbf(X0, X0, scale_sigma(X0)), atol=1e-10)


def test_random_walk_kernel():
    t = 4
    rw = RandomWalkKernel(sigma=SIGMA, t=t).fit(X0)
    K = _rbf(X0, X0, SIGMA)
    Pt = matrix_power(K / K.sum(1)[:, None], t)
    np.testing.assert_allclose(rw.embedding_, Pt, atol=1e-12)
    np.testing.assert_allclose(rw.kernel(), Pt @ Pt.T, atol=1e-12)
    np.testing.assert_allclose(rw.embedding_.sum(1), 1.0, atol=1e-12)   # stochastic rows
    np.testing.assert_allclose(rw.transform(X0[:5]), Pt[:5], atol=1e-12)  # exact at fitted points
    xt = np.array([[1.0, 1.0]])
    v = _rbf(xt, X0, SIGMA)
    np.testing.assert_allclose(rw.transform(xt), (v / v.sum()) @ matrix_power(
        K / K.sum(1)[:, None], t - 1), atol=1e-12)


def test_marginalized_kernel_against_formula():
    rng = np.random.RandomState(3)
    X = np.vstack([rng.randn(80, 2) * 0.15 + [0.5, 0], rng.randn(80, 2) * 0.4 + [-0.5, 0]])
    for cov in ("full", "diag", "spherical", "tied"):
        mk = MarginalizedKernel(n_components=2, covariance_type=cov, random_state=0).fit(X)
        gm = mk.mixture_
        covs = {"full": lambda k: gm.covariances_[k], "tied": lambda k: gm.covariances_,
                "diag": lambda k: np.diag(gm.covariances_[k]),
                "spherical": lambda k: gm.covariances_[k] * np.eye(2)}[cov]
        Y = rng.randn(6, 2)
        P, Q = gm.predict_proba(X[:9]), gm.predict_proba(Y)
        expected = sum(np.outer(P[:, k], Q[:, k]) * (X[:9] @ np.linalg.inv(covs(k)) @ Y.T)
                       for k in range(2))
        np.testing.assert_allclose(mk.kernel(X[:9], Y), expected, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(mk.embedding_[:9], mk.transform(X[:9]), atol=1e-12)


def test_svc_on_precomputed_Ktilde_matches_classifier():
    rng = np.random.RandomState(4)
    Xall, lab = _blobs(120, seed=4)
    y = np.where(lab == 0, "a", "b")
    idx = rng.permutation(120)
    L, U, T = idx[:12], idx[12:100], idx[100:]
    emb = ClusterKernel(sigma=1.0, transfer="poly-step", r=4, p=0.5, q=2)
    clf = ClusterKernelSVC(embedding=emb, C=10.0, tol=1e-9).fit(Xall[L], y[L],
                                                             X_unlabeled=Xall[U])
    # independent route: K~ by numpy on L u U, test rows by (K~ K^-1 v)
    pts = np.vstack([Xall[L], Xall[U]])
    phi = lambda w: np.where(np.arange(w.size) < 4, np.sqrt(w), w ** 2)  # noqa: E731
    K, Kt, _ = _direct(pts, 1.0, phi)
    svc = SVC(kernel="precomputed", C=10.0, precision="float64", tol=1e-9).fit(Kt[:12, :12], y[L])
    V = _rbf(Xall[T], pts, 1.0)
    Ktest = (Kt @ np.linalg.solve(K + 1e-8 * np.eye(len(K)), V.T)).T[:, :12]
    np.testing.assert_allclose(clf.decision_function(Xall[T]), svc.decision_function(Ktest),
                               atol=1e-4)
    np.testing.assert_array_equal(clf.predict(Xall[T]), svc.predict(Ktest))
    assert list(clf.classes_) == ["a", "b"]


def test_span_curve_reuses_span_estimate_and_select_r():
    rng = np.random.RandomState(5)
    Xall, lab = _blobs(150, seed=5)
    y = (lab == 0).astype(int)
    L = rng.permutation(150)[:16]
    U = np.setdiff1d(np.arange(150), L)
    rs = [1, 2, 3, 6, 12]
    emb = ClusterKernel(sigma=1.0, transfer="poly-step", p=0.5, q=2)
    curve = cutoff_span_curve(Xall[L], y[L], Xall[U], rs, embedding=emb, C=10.0)
    assert sorted(curve) == rs
    # independently: refit for one r and score the linear SVM on the coordinates
    ck = ClusterKernel(sigma=1.0, transfer="poly-step", p=0.5, q=2, r=3).fit(
        np.vstack([Xall[L], Xall[U]]))
    Z = ck.embedding_[:16]
    svc = SVC(kernel="linear", C=10.0, precision="float64").fit(Z, y[L])
    assert curve[3] == pytest.approx(span_estimate(svc, Z, y[L]))
    clf = ClusterKernelSVC(embedding=emb, C=10.0, select_r=rs).fit(Xall[L], y[L],
                                                                   X_unlabeled=Xall[U])
    assert clf.span_curve_ == curve
    assert clf.r_ == min(r for r in rs if curve[r] == min(curve.values()))
    assert clf.embedding_.r == clf.r_


def test_cluster_kernel_helps_on_separated_clusters():
    # two elongated clusters, one labeled point each: the cluster kernel labels clusters
    rng = np.random.RandomState(6)
    A = np.c_[rng.uniform(-3, 3, 150), 0.2 * rng.randn(150)]
    B = np.c_[rng.uniform(-3, 3, 150), 2 + 0.2 * rng.randn(150)]
    X = np.vstack([A, B])
    y = np.r_[np.zeros(150), np.ones(150)]
    L = np.array([0, 150])          # the leftmost-ish labeled points are arbitrary ones
    X[0] = [-3, 0]
    X[150] = [3, 2]
    U = np.setdiff1d(np.arange(300), L)
    clf = ClusterKernelSVC(ClusterKernel(sigma=0.5, transfer="step", r=2), C=100.0).fit(
        X[L], y[L], X_unlabeled=X[U])
    assert np.mean(clf.predict(X[U]) == y[U]) > 0.95
    # a plain RBF SVM on the two points cuts along their perpendicular bisector
    plain = SVC(sigma=0.5, C=100.0).fit(X[L], y[L])
    assert np.mean(plain.predict(X[U]) == y[U]) < 0.8


@pytest.mark.parametrize("params,name", [
    (dict(transfer="cubic"), "transfer"), (dict(r=0), "'r'"), (dict(p=-1.0), "'p'"),
    (dict(q=0.0), "'q'"), (dict(t=-2), "'t'"), (dict(sigma=-1.0), "sigma"),
    (dict(ridge=0.0), "ridge"), (dict(n_components=0), "n_components")])
def test_errors_name_the_parameter(params, name):
    with pytest.raises(ValueError, match=name):
        ClusterKernel(**params).fit(X0)
    with pytest.raises(ValueError, match=name):
        ClusterKernel(**params).fit_transform(X0)       # checked on either way in


def test_keyword_only_constructors():
    for cls in (ClusterKernel, RandomWalkKernel, MarginalizedKernel):
        with pytest.raises(TypeError):
            cls(1.0)
    # the wrapped kernel map alone may be given by position (a meta-estimator's estimator)
    assert ClusterKernelSVC(RandomWalkKernel()).get_params()["embedding"] is not None
    with pytest.raises(TypeError):
        ClusterKernelSVC(None, 10.0)


def test_other_errors_name_the_parameter():
    y = (np.arange(60) % 2)
    with pytest.raises(ValueError, match="t"):
        RandomWalkKernel(t=0).fit(X0)
    with pytest.raises(ValueError, match="X_unlabeled"):
        ClusterKernelSVC().fit(X0, y, X_unlabeled=np.ones((3, 5)))
    with pytest.raises(ValueError, match="r_values"):
        cutoff_span_curve(X0, y, None, [0, 2])
    with pytest.raises(ValueError, match="embedding"):
        cutoff_span_curve(X0, y, None, [2], embedding=RandomWalkKernel())
    with pytest.raises(ValueError, match="transfer"):
        transfer_function([1.0], "bad")
    with pytest.raises(ValueError, match="embedding"):
        ClusterKernelSVC(embedding="cluster").fit(X0, y)
