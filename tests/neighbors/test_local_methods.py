"""Local methods against brute-force numpy references and scikit-learn."""
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import minimize
from scipy.special import logsumexp
from sklearn.datasets import make_moons
from sklearn.neighbors import KernelDensity
from sklearn.neighbors import KNeighborsClassifier as SkKNN
from sklearn.neighbors import KNeighborsRegressor as SkKNNR

from kernelnb.neighbors import (
    CKNNClassifier,
    HKNNClassifier,
    KNeighborsClassifier,
    KNeighborsRegressor,
    ManifoldParzen,
    ManifoldParzenClassifier,
    NadarayaWatsonRegressor,
    ParzenClassifier,
    ParzenDensity,
)
from kernelnb.svm import SVC


def _moons(n=200, seed=0):
    return make_moons(n, noise=0.25, random_state=seed)


def test_knn_matches_brute_force_and_sklearn():
    X, y = _moons()
    Xt, _ = _moons(100, seed=1)
    ours = KNeighborsClassifier(n_neighbors=7).fit(X, y)
    D = ((Xt[:, None] - X[None]) ** 2).sum(-1)
    ref_idx = np.argsort(D, axis=1, kind="stable")[:, :7]
    dist, idx = ours.kneighbors(Xt)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(dist, np.sqrt(np.take_along_axis(D, ref_idx, 1)), atol=1e-12)
    np.testing.assert_array_equal(ours.predict(Xt), SkKNN(7, algorithm="brute").fit(X, y).predict(Xt))
    r = KNeighborsRegressor(n_neighbors=4).fit(X, X[:, 0] * y)
    np.testing.assert_allclose(r.predict(Xt), SkKNNR(4, algorithm="brute").fit(X, X[:, 0] * y).predict(Xt))
    # leave-one-out neighbours of the training set exclude the point itself
    _, loo = ours.kneighbors()
    assert not np.any(loo == np.arange(len(X))[:, None])


def test_kneighbors_return_distance_as_in_sklearn():
    """``kneighbors(X, n_neighbors, return_distance)`` answers as scikit-learn's does: the
    (distances, indices) pair by default, the indices alone with ``return_distance=False``
    (positionally too), and for X=None each training point left out of its own neighbours."""
    X, y = _moons()
    Xt, _ = _moons(60, seed=2)
    ours = KNeighborsClassifier(n_neighbors=5).fit(X, y)
    theirs = SkKNN(5, algorithm="brute").fit(X, y)
    for query in (Xt, None):
        d, i = ours.kneighbors(query, 3)
        sd, si = theirs.kneighbors(query, 3)
        np.testing.assert_array_equal(i, si)
        np.testing.assert_allclose(d, sd, atol=1e-12)
        only = ours.kneighbors(query, 3, False)
        assert isinstance(only, np.ndarray)
        np.testing.assert_array_equal(only, theirs.kneighbors(query, 3, return_distance=False))
    r = KNeighborsRegressor(n_neighbors=4).fit(X, X[:, 0])
    np.testing.assert_array_equal(r.kneighbors(Xt, return_distance=False),
                                  SkKNNR(4, algorithm="brute").fit(X, X[:, 0])
                                  .kneighbors(Xt, return_distance=False))


def _brute_force(Q, R, K, exclude=None):
    """The K nearest by exact float64 differences, ties to the smaller index."""
    D = ((np.asarray(Q, np.float64)[:, None] - np.asarray(R, np.float64)[None]) ** 2).sum(-1)
    if exclude is not None:
        D[np.arange(len(Q)), exclude] = np.inf
    idx = np.argsort(D, axis=1, kind="stable")[:, :K]
    return np.take_along_axis(D, idx, 1), idx


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_knn_search_ties_and_near_ties_match_brute_force(dtype):
    """The float32 candidate search with exact re-measurement gives the neighbours of the exact
    distances: exact ties (repeated reference points, points on an integer lattice at equal
    distances) go to the smaller index, and near-ties that float32 cannot separate (distances
    differing by one part in 10^9 in 300 dimensions) are ordered as in float64."""
    from kernelnb.neighbors._base import kneighbors
    rng = np.random.default_rng(0)
    # integer lattice points, each reference twice: many exactly equal distances
    R = rng.integers(-3, 4, size=(150, 12)).astype(dtype)
    R = np.concatenate([R, R[::-1]])
    Q = rng.integers(-3, 4, size=(40, 12)).astype(dtype)
    for K in (1, 5, 23):
        d2, idx = kneighbors(Q, R, K)
        ref_d, ref_i = _brute_force(Q, R, K)
        np.testing.assert_array_equal(idx, ref_i)
        np.testing.assert_allclose(d2, ref_d, rtol=1e-12)
    # leave-one-out on the lattice set
    d2, idx = kneighbors(R, R, 4, exclude=np.arange(len(R)))
    np.testing.assert_array_equal(idx, _brute_force(R, R, 4, exclude=np.arange(len(R)))[1])
    # near-ties: references on a sphere around the query far from the origin, radii spaced by
    # less than float32 arithmetic resolves there (1e-6 for float32 rows, 1e-9 for float64)
    dirs = rng.normal(size=(200, 300))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    step = 1e-6 if dtype == np.float32 else 1e-9
    radii = 1.0 + step * rng.permutation(200)
    centre = rng.normal(size=(1, 300)) + 5.0
    Rs = (centre + dirs * radii[:, None]).astype(dtype)
    Qs = centre.astype(dtype)
    d2, idx = kneighbors(Qs, Rs, 10)
    ref_d, ref_i = _brute_force(Qs, Rs, 10)
    np.testing.assert_array_equal(idx, ref_i)
    np.testing.assert_allclose(d2, ref_d, rtol=1e-12)
    if dtype == np.float64:
        np.testing.assert_array_equal(idx[0], np.argsort(radii)[:10])


def _grid_integral(density, lo, hi, n=600):
    """Midpoint sum of exp(score_samples) over [lo, hi]^2: for Gaussians much wider than the
    spacing it is accurate far beyond the tolerances used here."""
    h = (hi - lo) / n
    g = lo + h * (np.arange(n) + 0.5)
    A, B = np.meshgrid(g, g)
    P = np.exp(density.score_samples(np.column_stack([A.ravel(), B.ravel()])))
    return P.sum() * h * h


def test_parzen_density_matches_sklearn_and_integrates_to_one():
    X, _ = _moons()
    Xt, _ = _moons(50, seed=2)
    ours = ParzenDensity(sigma=0.3).fit(X)
    ref = KernelDensity(bandwidth=0.3).fit(X)
    np.testing.assert_allclose(ours.score_samples(Xt), ref.score_samples(Xt), atol=1e-10)
    x1 = np.random.RandomState(0).randn(20, 1)
    d1 = ParzenDensity(sigma=0.4).fit(x1)
    total, _ = quad(lambda t: np.exp(d1.score_samples(np.array([[t]]))[0]), -8, 8, limit=200)
    assert abs(total - 1) < 1e-6
    d2 = ParzenDensity(sigma=0.5).fit(X[:15])
    assert abs(_grid_integral(d2, -5, 6) - 1) < 1e-6
    assert ours.anll(Xt) == pytest.approx(-np.mean(ref.score_samples(Xt)))


def test_parzen_classifier_bayes_rule():
    X, y = _moons()
    Xt, _ = _moons(60, seed=3)
    clf = ParzenClassifier(sigma=0.25).fit(X, y)
    joint = np.column_stack([KernelDensity(bandwidth=0.25).fit(X[y == c]).score_samples(Xt)
                             + np.log(np.mean(y == c)) for c in (0, 1)])
    np.testing.assert_array_equal(clf.predict(Xt), np.argmax(joint, axis=1))
    np.testing.assert_allclose(clf.predict_proba(Xt).sum(1), 1.0)


def test_nadaraya_watson_matches_weighted_mean():
    rng = np.random.RandomState(0)
    X = rng.uniform(-3, 3, (80, 1))
    y = np.sin(X[:, 0]) + 0.1 * rng.randn(80)
    Xt = np.linspace(-3, 3, 25)[:, None]
    nw = NadarayaWatsonRegressor(sigma=0.4).fit(X, y)
    W = np.exp(-((Xt - X.T) ** 2) / (2 * 0.4 ** 2))
    np.testing.assert_allclose(nw.predict(Xt), W @ y / W.sum(1), atol=1e-12)
    # a tiny window far from the data does not underflow to 0/0: the nearest target wins
    tiny = NadarayaWatsonRegressor(sigma=1e-3).fit(X, y)
    far = np.array([[10.0]])
    assert tiny.predict(far)[0] == pytest.approx(y[np.argmax(X[:, 0])])


def _hull_distance_reference(x, N, lam, convex):
    """Distance to the affine (weight-decay) or convex hull by a generic solver."""
    K = len(N)
    if convex:
        res = minimize(lambda a: np.sum((x - a @ N) ** 2), np.ones(K) / K, method="SLSQP",
                       bounds=[(0, None)] * K, constraints=({"type": "eq", "fun": lambda a: a.sum() - 1},),
                       options={"ftol": 1e-15, "maxiter": 1000})
        return res.fun
    m = N.mean(0)
    V = (N - m).T
    r = x - m
    if lam == 0:
        a = np.linalg.lstsq(V, r, rcond=None)[0]
    else:
        a = np.linalg.solve(V.T @ V + lam * np.eye(K), V.T @ r)
    return np.sum((r - V @ a) ** 2) + lam * a @ a


@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_hknn_distances_against_least_squares(lam):
    rng = np.random.RandomState(1)
    X = rng.randn(120, 6)
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int)
    Xt = rng.randn(20, 6)
    clf = HKNNClassifier(n_neighbors=4, weight_decay=lam).fit(X, y)
    D = clf.hull_distances(Xt)
    for i in range(20):
        for c in (0, 1):
            Rc = X[y == c]
            idx = np.argsort(((Rc - Xt[i]) ** 2).sum(1), kind="stable")[:4]
            assert D[i, c] == pytest.approx(_hull_distance_reference(Xt[i], Rc[idx], lam, False),
                                            abs=1e-9)
    np.testing.assert_array_equal(clf.predict(Xt), np.argmin(D, 1))


def test_cknn_distances_against_a_generic_qp():
    rng = np.random.RandomState(2)
    X = rng.randn(100, 3)
    y = (X[:, 0] * X[:, 2] > 0).astype(int)
    Xt = rng.randn(15, 3)
    clf = CKNNClassifier(n_neighbors=6).fit(X, y)
    D = clf.hull_distances(Xt)
    for i in range(15):
        for c in (0, 1):
            Rc = X[y == c]
            idx = np.argsort(((Rc - Xt[i]) ** 2).sum(1), kind="stable")[:6]
            assert D[i, c] == pytest.approx(_hull_distance_reference(Xt[i], Rc[idx], 0, True),
                                            abs=1e-7)
    hulls = clf.local_hulls(Xt[0])
    for h in hulls:
        p = h["projection"]
        assert np.sum((Xt[0] - p) ** 2) == pytest.approx(D[0, list(clf.classes_).index(h["class"])])


def test_hull_classifiers_on_a_reduced_reference_set():
    X, y = _moons(300)
    full = HKNNClassifier(n_neighbors=5, weight_decay=0.1).fit(X, y)
    red = HKNNClassifier(n_neighbors=5, weight_decay=0.1, reference=SVC(C=1.0, sigma=0.5)).fit(X, y)
    assert len(red.reference_indices_) < len(X)
    np.testing.assert_array_equal(red.reference_indices_, np.sort(red.reference_estimator_.support_))
    assert red.score(X, y) > 0.85 and full.score(X, y) > 0.9


def test_manifold_parzen_log_density_against_explicit_gaussians():
    rng = np.random.RandomState(3)
    t = rng.uniform(0, 3, 40)
    X = np.column_stack([t, np.sin(t), 0.1 * rng.randn(40)])
    mp = ManifoldParzen(n_components=1, n_neighbors=6, sigma=0.2).fit(X)
    Xt = X[:5] + 0.05
    # explicit covariance of each component: sum_j lam_j v_j v_j' + sigma^2 (I - sum v_j v_j')
    logs = []
    for i in range(40):
        diffs = np.delete(X, i, 0) - X[i]
        nn = np.argsort((diffs ** 2).sum(1), kind="stable")[:6]
        M = diffs[nn]
        _, s, Vt = np.linalg.svd(M, full_matrices=False)
        v = Vt[0]
        C = (0.04 + s[0] ** 2 / 6) * np.outer(v, v) + 0.04 * (np.eye(3) - np.outer(v, v))
        r = Xt - X[i]
        logs.append(-0.5 * (3 * np.log(2 * np.pi) + np.linalg.slogdet(C)[1]
                            + np.einsum("ij,jk,ik->i", r, np.linalg.inv(C), r)))
    ref = logsumexp(np.array(logs), axis=0) - np.log(40)
    np.testing.assert_allclose(mp.score_samples(Xt), ref, atol=1e-9)
    # d = 0 is ordinary Parzen with width sigma
    flat = ManifoldParzen(n_components=0, n_neighbors=6, sigma=0.2).fit(X)
    np.testing.assert_allclose(flat.score_samples(Xt),
                               ParzenDensity(sigma=0.2).fit(X).score_samples(Xt), atol=1e-9)


def test_manifold_parzen_integrates_to_one_in_2d():
    rng = np.random.RandomState(4)
    t = rng.uniform(3, 15, 12)
    X = np.column_stack([0.04 * t * np.sin(t), 0.04 * t * np.cos(t)])
    mp = ManifoldParzen(n_components=1, n_neighbors=3, sigma=0.05).fit(X)
    assert abs(_grid_integral(mp, -3, 3, 1200) - 1) < 1e-6


def test_manifold_parzen_classifier_ancll():
    X, y = _moons(200)
    clf = ManifoldParzenClassifier(n_components=1, n_neighbors=8, sigma=0.1).fit(X, y)
    lp = clf.predict_log_proba(X)
    assert clf.ancll(X, y) == pytest.approx(-np.mean(lp[np.arange(200), y]))
    assert clf.score(X, y) > 0.9


@pytest.mark.parametrize("make, message", [
    (lambda: KNeighborsClassifier(n_neighbors=500), "n_neighbors=500 is larger"),
    (lambda: KNeighborsClassifier(n_neighbors=0), "'n_neighbors' parameter of KNeighborsClassifier must be"),
    (lambda: HKNNClassifier(n_neighbors=150), "class"),
    (lambda: HKNNClassifier(weight_decay=-1), "weight_decay"),
    (lambda: ParzenDensity(sigma=0), "'sigma' parameter of ParzenDensity"),
    (lambda: ParzenClassifier(sigma=-1), "'sigma' parameter of ParzenClassifier"),
    (lambda: NadarayaWatsonRegressor(sigma=0), "'sigma' parameter of NadarayaWatsonRegressor"),
    (lambda: ManifoldParzen(n_components=3), "must not exceed the dimension"),
    (lambda: ManifoldParzen(n_components=1, n_neighbors=1, sigma=-1.0), "sigma"),
    (lambda: ManifoldParzen(n_components=2, n_neighbors=1), "n_neighbors=1 must be at least"),
    (lambda: ManifoldParzenClassifier(n_components=2, n_neighbors=1), "must be at least"),
    (lambda: HKNNClassifier(reference="svm"), "reference"),
])
def test_bad_input(make, message):
    X, y = _moons()
    est = make()
    with pytest.raises(ValueError, match=message):
        if hasattr(est, "predict") and not isinstance(est, (ManifoldParzen, ParzenDensity)):
            est.fit(X, y if not isinstance(est, NadarayaWatsonRegressor) else X[:, 0])
        else:
            est.fit(X)



@pytest.mark.parametrize("cls", [KNeighborsClassifier, KNeighborsRegressor, ParzenDensity,
                                 ParzenClassifier, NadarayaWatsonRegressor, HKNNClassifier,
                                 CKNNClassifier, ManifoldParzen, ManifoldParzenClassifier])
def test_constructors_are_keyword_only(cls):
    with pytest.raises(TypeError):
        cls(3)


def test_bayes_density_base_is_private_and_says_so():
    """The per-class density classifier is a base (its subclasses choose the density): it is
    not exported, and fitting it directly says what to use instead."""
    import kernelnb.neighbors as nb
    from kernelnb.neighbors import parzen

    assert not hasattr(parzen, "BayesDensityClassifier")
    assert not any("Bayes" in name for name in nb.__all__)
    X, y = _moons()
    with pytest.raises(TypeError, match="abstract base: use ParzenClassifier"):
        parzen._BayesDensityClassifier().fit(X, y)
    # the subclasses are generative classifiers over their per-class densities
    clf = ParzenClassifier(sigma=0.3).fit(X, y)
    assert len(clf.densities_) == 2 and clf.class_prior_.sum() == pytest.approx(1.0)
    assert clf.score(X, y) > 0.85


def test_manifold_parzen_in_high_dimension_matches_the_svd_of_the_neighbourhoods():
    # k < n: the fit goes through the k x k Gram matrices; the variances and directions must be
    # those of the SVD of the k neighbour differences (eq. 13.3, hard neighbourhood)
    from kernelnb.neighbors import ManifoldParzen
    from kernelnb.neighbors._base import kneighbors

    rng = np.random.RandomState(0)
    X = rng.rand(120, 30)
    m = ManifoldParzen(n_components=5, n_neighbors=12, sigma=0.1).fit(X)
    _, idx = kneighbors(X, X, 12, exclude=np.arange(120))
    _, s, Vt = np.linalg.svd(X[idx] - X[:, None, :], full_matrices=False)
    np.testing.assert_allclose(m.variances_, 0.01 + s[:, :5] ** 2 / 12, rtol=1e-9)
    cos = np.abs(np.einsum("ldn,ldn->ld", m.components_, Vt[:, :5]))
    np.testing.assert_allclose(cos, 1.0, atol=1e-7)


def test_logsumexp_rows_is_scipys_logsumexp_with_its_infinities_and_nans():
    from kernelnb.neighbors._base import logsumexp_rows
    rng = np.random.RandomState(0)
    A = np.vstack([rng.randn(5, 40) * 1e3 - 5e3,            # terms far below exp's underflow
                   [[-np.inf] * 40, [np.inf] + [1.0] * 39, [np.nan] + [1.0] * 39,
                    [-np.inf] * 39 + [3.0]]])
    got = logsumexp_rows(A.copy())
    np.testing.assert_allclose(got, logsumexp(A, axis=1), rtol=1e-14, atol=0)
    assert np.isneginf(got[5]) and np.isposinf(got[6]) and np.isnan(got[7]) and got[8] == 3.0


def test_manifold_parzen_refitted_with_other_d_sigma_or_points_is_a_fresh_fit():
    """A refit reuses the neighbourhoods (same points and k) and their directions (same d too):
    every density and direction is that of a fresh estimator, bit for bit."""
    from kernelnb.datasets import make_manifold_spiral
    X = make_manifold_spiral(n_samples=120, random_state=0)
    T = make_manifold_spiral(n_samples=200, random_state=1)
    mp = ManifoldParzen()
    for data, d, k, s in [(X, 1, 11, 0.007), (X, 1, 11, 0.01), (X, 2, 11, 0.01), (X, 0, 11, 0.01),
                          (X, 1, 11, 0.02), (X, 1, 5, 0.02), (X + 1e-3, 1, 5, 0.02)]:
        mp.set_params(n_components=d, n_neighbors=k, sigma=s).fit(data)
        fresh = ManifoldParzen(n_components=d, n_neighbors=k, sigma=s).fit(data)
        np.testing.assert_array_equal(mp.score_samples(T), fresh.score_samples(T))
        np.testing.assert_array_equal(mp.components_, fresh.components_)
        np.testing.assert_array_equal(mp.variances_, fresh.variances_)
