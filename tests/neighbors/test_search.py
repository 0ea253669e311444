"""The exact K-nearest-neighbour search (kernelnb.neighbors._base.SearchIndex) against brute
force: the neighbours of the exact float64 distances, ties to the smaller index, through both
kinds of bounds (plain float32 products and projections on leading directions), in float32 and
float64, on one and two threads.

Exact ties can only be checked where every distance is computed without rounding: integer
coordinates (scaled by powers of two), whose squared differences and sums are exact in float64
whatever the order of the additions.  Random real data have no ties, and there the neighbours
must be brute force's as long as no two distances differ by less than float64 rounding."""
import numpy as np
import pytest
from scipy.spatial.distance import cdist
from threadpoolctl import threadpool_limits

from kernelnb.neighbors import KNeighborsClassifier, HKNNClassifier
from kernelnb.neighbors import _base
from kernelnb.neighbors._base import SearchIndex, kneighbors


def _brute_force(Q, R, K, exclude=None):
    """The K nearest by float64 differences (scipy's cdist sums the squared differences of the
    coordinates, without numpy's temporaries of every query-reference-feature triple),
    (distance, index) order."""
    D = cdist(np.asarray(Q, np.float64), np.asarray(R, np.float64), "sqeuclidean")
    if exclude is not None:
        D[np.arange(len(Q)), exclude] = np.inf
    idx = np.argsort(D, axis=1, kind="stable")[:, :K]
    return np.take_along_axis(D, idx, 1), idx


def _low_rank_integers(rng, n, d, rank=6, dup=300):
    """Integer points of a rank-``rank`` lattice in d dimensions (a decaying spectrum, so the
    projection is chosen), a quarter of the columns scaled by 1/4 (still exact), with ``dup``
    repeated rows: many exactly equal distances."""
    A = rng.integers(-3, 4, size=(n, rank))
    B = rng.integers(-2, 3, size=(rank, d))
    X = (A @ B).astype(np.float64) + rng.integers(0, 2, size=(n, d))
    X[:, : d // 4] *= 0.25
    return np.concatenate([X, X[rng.permutation(n)[:dup]]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["plain", "projected"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_ties_and_duplicates_match_brute_force(dtype, mode, n_threads):
    rng = np.random.default_rng(1)
    R = _low_rank_integers(rng, 1200, 160).astype(dtype)
    Q = np.concatenate([_low_rank_integers(rng, 60, 160, dup=0), R[:40]]).astype(dtype)
    for K in (1, 5, 17):
        index = SearchIndex(R)
        d2, idx = index.search(Q, K, n_threads, mode=mode)
        ref_d, ref_i = _brute_force(Q, R, K)
        np.testing.assert_array_equal(idx, ref_i)
        np.testing.assert_array_equal(d2, ref_d)          # integer distances: exact
        assert d2.dtype == np.float64 and idx.dtype == np.int64
    # leave-one-out on the reference set: each point's duplicates come first, the point never
    ex = np.arange(len(R))
    d2, idx = SearchIndex(R).search(R, 4, n_threads, exclude=ex, self_query=True, mode=mode)
    ref_d, ref_i = _brute_force(R, R, 4, exclude=ex)
    np.testing.assert_array_equal(idx, ref_i)
    np.testing.assert_array_equal(d2, ref_d)
    assert not np.any(idx == ex[:, None])


def test_the_projection_is_chosen_where_it_pays_and_measures_few_distances():
    """A large, high-dimensional set near a low-dimensional subspace is searched through the
    projection, with far fewer exact distances than references; a set with a flat spectrum is
    not; both give brute force's neighbours."""
    rng = np.random.default_rng(2)
    W = rng.normal(size=(8, 192))
    R = rng.normal(size=(2500, 8)) @ W + 0.05 * rng.normal(size=(2500, 192))
    Q = rng.normal(size=(1000, 8)) @ W + 0.05 * rng.normal(size=(1000, 192))
    index = SearchIndex(R)
    d2, idx = index.search(Q, 5, 2)
    assert index._proj not in (None, False)
    assert index.last_measured.mean() < 0.02 * len(R), index.last_measured.mean()
    ref_d, ref_i = _brute_force(Q, R, 5)
    np.testing.assert_array_equal(idx, ref_i)
    np.testing.assert_allclose(d2, ref_d, rtol=1e-12)
    flat = rng.normal(size=(2500, 192))
    index = SearchIndex(flat)
    qf = rng.normal(size=(1000, 192))
    d2, idx = index.search(qf, 5, 2)
    assert index._proj is False
    ref_d, ref_i = _brute_force(qf, flat, 5)
    np.testing.assert_array_equal(idx, ref_i)
    np.testing.assert_allclose(d2, ref_d, rtol=1e-12)


def test_a_projection_that_measures_too_much_gives_way_to_the_plain_products(monkeypatch):
    """When the first queries measure more distances than the projection saves, the search
    goes on with the plain products (the answers stay exact either way)."""
    monkeypatch.setattr(_base, "MEASURE_COST", 1e9)          # any measure is too many
    rng = np.random.default_rng(3)
    R = _low_rank_integers(rng, 2500, 192, dup=100)
    Q = _low_rank_integers(rng, 700, 192, dup=0)
    index = SearchIndex(R)
    d2, idx = index.search(Q, 7, 2)
    assert index._proj is False
    ref_d, ref_i = _brute_force(Q, R, 7)
    np.testing.assert_array_equal(idx, ref_i)
    np.testing.assert_array_equal(d2, ref_d)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["plain", "projected"])
def test_random_real_data_in_every_precision(dtype, mode):
    """No ties: the neighbours and distances of brute force (to float64 rounding, relative
    1e-12 for sums of 200 squares), with a few far outliers and queries far from the data."""
    rng = np.random.default_rng(4)
    base = rng.normal(size=(1100, 8)) @ rng.normal(size=(8, 200))
    R = (base + 0.05 * rng.normal(size=base.shape)).astype(dtype)
    R[:3] *= 50.0
    Q = np.concatenate([R[5:65] + 0.01 * rng.normal(size=(60, 200)),
                        30.0 + rng.normal(size=(10, 200))]).astype(dtype)
    d2, idx = SearchIndex(R).search(Q, 9, 2, mode=mode)
    ref_d, ref_i = _brute_force(Q, R, 9)
    np.testing.assert_array_equal(idx, ref_i)
    np.testing.assert_allclose(d2, ref_d, rtol=1e-12)


@pytest.mark.parametrize("scale, offset", [(1e-30, 0.0), (1e30, 0.0), (1.0, 1e6)])
def test_tiny_huge_and_offset_coordinates(scale, offset):
    """The bounds work on centred rows scaled by a power of two: data far from the origin or
    of any magnitude float64 holds keeps its exact neighbours (ties included)."""
    rng = np.random.default_rng(5)
    R = _low_rank_integers(rng, 1100, 160, dup=50) * scale + offset
    Q = _low_rank_integers(rng, 50, 160, dup=0) * scale + offset
    for mode in ("plain", "projected"):
        d2, idx = SearchIndex(R).search(Q, 6, 1, mode=mode)
        np.testing.assert_array_equal(idx, _brute_force(Q, R, 6)[1])


def test_threads_change_nothing():
    rng = np.random.default_rng(6)
    R = _low_rank_integers(rng, 1500, 160)
    Q = _low_rank_integers(rng, 333, 160, dup=0)
    one = kneighbors(Q, R, 8, n_jobs=1)
    two = kneighbors(Q, R, 8, n_jobs=2)
    with threadpool_limits(limits=1, user_api="openmp"):
        context = kneighbors(Q, R, 8, n_jobs=None)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(one, context):
        np.testing.assert_array_equal(a, b)


def test_k_equal_to_n_and_larger():
    rng = np.random.default_rng(7)
    R = rng.integers(0, 3, size=(30, 4)).astype(np.float64)
    Q = rng.integers(0, 3, size=(5, 4)).astype(np.float64)
    d2, idx = kneighbors(Q, R, 30)
    np.testing.assert_array_equal(idx, _brute_force(Q, R, 30)[1])
    with pytest.raises(ValueError, match=r"K must be between 1 and the number of reference "
                                         r"points \(30\), got 31"):
        kneighbors(Q, R, 31)
    with pytest.raises(ValueError, match="n_neighbors=31 is larger than the training set"):
        KNeighborsClassifier(n_neighbors=31).fit(R, np.arange(30) % 2)
    with pytest.raises(ValueError, match="n_neighbors=31 is larger than the training set"):
        KNeighborsClassifier(n_neighbors=5).fit(R, np.arange(30) % 2).kneighbors(Q, 31)
    with pytest.raises(ValueError, match="queries have 3 features but the reference set has 4"):
        SearchIndex(R).search(Q[:, :3], 2, 1)


def test_estimators_keep_their_index_and_answer_as_brute_force():
    """KNN and HKNN search through the index kept at fit: the second search reuses the
    prepared rows and both give brute force's neighbours (float32 images of a low-rank
    lattice)."""
    rng = np.random.default_rng(8)
    R = _low_rank_integers(rng, 2400, 160, dup=0).astype(np.float32)
    y = (R[:, 0] > np.median(R[:, 0])).astype(int)
    Q = _low_rank_integers(rng, 500, 160, dup=0).astype(np.float32)
    knn = KNeighborsClassifier(n_neighbors=5).fit(R, y)
    dist, idx = knn.kneighbors(Q)
    ref_d, ref_i = _brute_force(Q, R, 5)
    np.testing.assert_array_equal(idx, ref_i)
    np.testing.assert_allclose(dist, np.sqrt(ref_d), rtol=1e-15)
    prepared = knn._index._plain
    np.testing.assert_array_equal(knn.kneighbors(Q)[1], ref_i)
    assert knn._index._plain is prepared
    hknn = HKNNClassifier(n_neighbors=4).fit(R, y)
    for c in (0, 1):
        Rc = R[y == c]
        _, idx = kneighbors(Q, None, 4, index=hknn._search_refs[c])
        np.testing.assert_array_equal(idx, _brute_force(Q, Rc, 4)[1])
