"""Shared plumbing of the local methods: threads and the neighbour search.  Parameters and
inputs are checked by :mod:`kernelnb._validation` (one table per estimator)."""
from __future__ import annotations

import numpy as np

from .._special import logsumexp_rows  # noqa: F401 - the densities' shared log-sum-exp
from .._threads import blas_single_thread, n_threads
from . import _neighbors


def check_n_neighbors(K, n_available, where="the training set"):
    """K against the data: at most ``n_available`` points (its type and sign are checked by the
    parameter tables)."""
    if K > n_available:
        unit = "sample" if n_available == 1 else "samples"
        raise ValueError(f"n_neighbors={K} is larger than {where} ({n_available} {unit})")
    return int(K)


# float32 and float64 unit roundoffs
_U32 = 2.0 ** -24
_U64 = 2.0 ** -53

# A reference set is searched through its projection on a few leading principal directions
# when it has at least this many features and points (below, the plain float32 products cost
# less than building the directions) ...
PROJECT_MIN_FEATURES = 128
PROJECT_MIN_REFERENCES = 512
# ... on at most this many directions (and a quarter of the features), found from at most this
# many evenly spaced rows of the reference set ...
PROJECT_DIRECTIONS = 96
PROJECT_SAMPLE = 1024
# ... and while the exact distances measured per query stay under this fraction of the
# reference points times the share of the product the projection saves: a measured distance
# (d float64 multiply-adds on gathered rows) costs about this many float32 multiply-adds of a
# blocked product (sgemm), so beyond that the plain products are cheaper.
MEASURE_COST = 8.0


def _gamma(k, u):
    """gamma_k = k u / (1 - k u), the bound of the relative error of a k-term dot product
    (Higham, Accuracy and Stability of Numerical Algorithms, 2002, sec. 3.1)."""
    ku = k * u
    if ku >= 0.5:
        raise ValueError(f"too many features for the float32 search ({k})")
    return ku / (1.0 - ku)


class SearchIndex:
    """A reference set R prepared for exact K-nearest-neighbour searches.

    Every search measures exact squared distances ``||q - r||^2`` (float64, from the
    differences of the rows in their own dtype) only for the references that float32 bounds
    cannot exclude (:func:`_neighbors.knn_search`).  The bounds come from the rows centred on
    R's mean and scaled by a power of two (no overflow or underflow in float32, and no change to
    the order of the distances), in one of two forms:

    * ``plain``: the float32 product of the centred rows.  A float32 dot product of rows of d
      features (rounded to float32 first) is within gamma_(d+3) ||q|| ||r|| of the exact one
      (Higham 2002, sec. 3.1), so ``a = ||q||^2 + ||r||^2 - 2 q.r`` is within ``e1 =
      2 gamma_(d+3) ||q|| max ||r||`` of the squared distance.
    * ``projected`` (many features, many points, a spectrum that decays): the rows' float32
      projections ``p(x) = fl(x V)`` on ``l`` orthonormal directions V, an approximation of the
      leading principal subspace of R (subspace iteration on the covariance of a sample of R's
      rows; Halko, Martinsson and Tropp, SIAM Review 53, 2011, alg. 4.4).  Orthogonal
      projection shortens every difference, so ``||p(q) - p(r)||`` is a lower bound of the
      distance up to the float32 errors: ``a`` (the same formula on the projections) is within
      ``e1 = 2 gamma_l ||p(q)|| max ||p(r)||`` of ``||p(q) - p(r)||^2``, and each projection is
      within ``sqrt(l) gamma_(d+2) ||x||`` of the exact one, which gives ``eps``.  The product
      then has ``l`` terms instead of ``d`` (96 instead of 784 for 28 x 28 images), and the
      bound leaves about a hundred of 10,000 Fashion-MNIST training images to measure per
      query.  The first queries of each search check that the projection pays (few distances
      measured); if not, the search goes on with the plain products.

    Both margins also cover the float64 roundings around the products (the norms, ``a`` itself
    and the measured distances: ``8 (d + 8) u64 (||q||^2 + max ||r||^2)``, u64 = 2^-53, and for
    the projection the departure of V from orthonormality).  Whatever the data, the neighbours
    are those of the exact distances, ties to the smaller index: the bounds only decide which
    references to measure.

    The arrays are built when a search first needs them and kept: an estimator keeps its
    index, so its searches after the first pay none of the preparation.
    """

    def __init__(self, R):
        self.R = np.ascontiguousarray(R)
        if self.R.dtype not in (np.float32, np.float64):
            self.R = self.R.astype(np.float64)
        self.n, self.d = self.R.shape
        self._plain = None
        self._proj = None        # None: not built yet; False: not worth it for this set

    @property
    def dtype(self):
        return self.R.dtype

    def _base(self, nt):
        """The mean, the scale, and the plain float32 rows with their squared norms."""
        if self._plain is None:
            R = self.R
            mu, amax = _neighbors.column_stats(R, nt)
            scale = 2.0 ** -np.ceil(np.log2(amax)) if 0.0 < amax < np.inf else 1.0
            R32, rn = _neighbors.centre_rows(R, mu, scale, nt)
            self._plain = (mu, scale, R32, rn)
        return self._plain

    def _projection(self, nt):
        """(V32 (d x l), projected rows (n x l), their squared norms, orthonormality error)."""
        if self._proj is None:
            mu, scale, R32, rn = self._base(nt)
            l = min(PROJECT_DIRECTIONS, self.d // 4)
            rows = np.unique(np.linspace(0, self.n - 1, min(self.n, PROJECT_SAMPLE)).astype(int))
            C = _neighbors.gram_rows(np.ascontiguousarray(R32[rows]), nt)
            # subspace iteration from a fixed start (the result only steers the bounds)
            Z = np.random.default_rng(0).standard_normal((self.d, l))
            for _ in range(2):
                Z, _ = np.linalg.qr(C @ Z)
            V = Z
            trace = float(np.trace(C))
            captured = float(np.einsum("ij,ij->", V, C @ V))
            if trace <= 0 or captured < 0.5 * trace:
                self._proj = False          # a flat spectrum: the projection bounds little
            else:
                orth = float(np.linalg.norm(V.T @ V - np.eye(l)))
                V32 = np.ascontiguousarray(V, dtype=np.float32)
                P = _neighbors.matmul_rows(R32, V32, nt)
                pn = np.einsum("ij,ij->i", P, P, dtype=np.float64)
                self._proj = (V32, P, pn, orth)
        return self._proj

    def _queries(self, Q, nt, self_query):
        mu, scale, R32, rn = self._base(nt)
        if self_query:
            return R32, rn
        return _neighbors.centre_rows(Q, mu, scale, nt)

    def search(self, Q, K, n_threads=1, exclude=None, self_query=False, mode=None):
        """(squared distances float64, indices int64) of the K nearest references of each row
        of Q (R's dtype), ascending, ties to the smaller index.  ``mode`` forces 'plain' or
        'projected' (tests); by default the projection is used where it pays.  Sets
        ``last_measured``: the exact distances measured per query."""
        nt = max(1, int(n_threads))
        Q = self.R if self_query else np.ascontiguousarray(Q, dtype=self.dtype)
        if Q.ndim != 2 or Q.shape[1] != self.d:
            raise ValueError(f"queries have {Q.shape[-1]} features but the reference set has "
                             f"{self.d}")
        nq, d = Q.shape[0], self.d
        ex = None if exclude is None else np.ascontiguousarray(exclude, dtype=np.int64)
        out_d, out_i = np.empty((nq, K)), np.empty((nq, K), dtype=np.int64)
        measured = np.zeros(nq, dtype=np.int32)

        def run(rows, Qa, Ra, qa_n, ra_n, e1, eps, block):
            """The kernel on the queries ``rows`` (their bound rows given in that order)."""
            whole = len(rows) == nq and bool(np.all(rows[1:] > rows[:-1]))
            got = _neighbors.knn_search(Qa, Ra, qa_n, ra_n, e1, eps, s2,
                                        Q if whole else np.ascontiguousarray(Q[rows]), self.R,
                                        K, nt, block, ex if whole or ex is None else ex[rows])
            out_d[rows], out_i[rows], measured[rows] = got
            return got[2]

        with blas_single_thread():
            mu, scale, R32, rn = self._base(nt)
            Q32, qn = self._queries(Q, nt, self_query)
            rmax2 = float(rn.max()) if self.n else 0.0
            margin = 8.0 * (d + 8) * _U64 * (qn + rmax2)
            s2 = scale * scale
            todo = np.arange(nq)
            proj = None
            if mode == "projected" or (mode is None and self._projection_pays(nq, nt)):
                proj = self._projection(nt)
            if proj:
                V32, P, pn, orth = proj
                l = V32.shape[1]
                Pq = P if self_query else _neighbors.matmul_rows(Q32, V32, nt)
                pqn = pn if self_query else np.einsum("ij,ij->i", Pq, Pq, dtype=np.float64)
                e1 = (2.002 * _gamma(l, _U32) * np.sqrt(pqn * float(pn.max())) + margin
                      + 4.0 * orth * (qn + rmax2))
                eps = 1.001 * np.sqrt(l) * _gamma(d + 2, _U32) * (np.sqrt(qn) + np.sqrt(rmax2))
                block = int(min(128, max(16, 2 ** 21 // max(self.n, 1))))
                # queries taken in the order of their leading coordinate: neighbouring queries
                # measure many of the same references, which are then still in cache
                order = np.argsort(Pq[:, 0], kind="stable")
                # the first blocks check that the projection pays (few distances measured)
                first = nq if mode is not None else min(nq, nt * block)
                parts = [order[:first], order[first:]]
                limit = self.n * (d - l) / (MEASURE_COST * d)
                for k, rows in enumerate(parts):
                    if len(rows) == 0:
                        continue
                    got = run(rows, np.ascontiguousarray(Pq[rows]), P, pqn[rows], pn, e1[rows],
                              eps[rows], block)
                    if k == 0 and got.mean() > limit:
                        self._proj = False
                        todo = parts[1]
                        break
                else:
                    todo = todo[:0]
            if len(todo):
                e1 = 2.002 * _gamma(d + 3, _U32) * np.sqrt(qn * rmax2) + margin
                block = int(min(256, max(16, 2 ** 22 // max(self.n, 1))))
                rows = todo
                Qa = Q32 if len(rows) == nq else np.ascontiguousarray(Q32[rows])
                run(rows, Qa, R32, qn[rows], rn, e1[rows], np.zeros(len(rows)), block)
        self.last_measured = measured
        return out_d, out_i

    def _projection_pays(self, nq, nt):
        """Whether to search through the projection: a large, high-dimensional set (and, before
        the projection is built, enough queries to pay for it)."""
        if self._proj is False or self.d < PROJECT_MIN_FEATURES or self.n < PROJECT_MIN_REFERENCES:
            return False
        if self._proj is not None:
            return True
        l = min(PROJECT_DIRECTIONS, self.d // 4)
        build = PROJECT_SAMPLE * self.d * self.d + self.n * self.d * l
        return nq * self.n * (self.d - l) > 2 * build


def kneighbors(Q, R, K, n_jobs=None, exclude=None, index=None):
    """(squared distances, indices) of the K nearest rows of R for each row of Q, ascending,
    ties to the smaller index: the exact float64 distances (see :class:`SearchIndex`).

    Runs in float32 bounds when both sets are float32 or float64; the distances are measured
    in float64 from the rows in R's dtype (float32 when both sets are float32).  ``index``: a
    :class:`SearchIndex` of R kept by the caller (then R may be None).  ``exclude[i] = j``
    leaves reference j out of query i's neighbours (-1: none); ``Q is R`` with an index reuses
    its prepared rows."""
    if index is None:
        dt = np.float32 if (np.asarray(Q).dtype == np.float32
                            and np.asarray(R).dtype == np.float32) else np.float64
        index = SearchIndex(np.ascontiguousarray(R, dtype=dt))
    elif index.dtype == np.float32 and np.asarray(Q).dtype != np.float32:
        index = SearchIndex(index.R.astype(np.float64))
    self_query = Q is R or Q is index.R
    return index.search(Q, int(K), n_threads(n_jobs), exclude, self_query=self_query)


def gaussian_logsumexp(Q, R, h, n_jobs=-1, weights=None):
    """log sum_i w_i exp(-||q - r_i||^2 / (2 h^2)) for every row q of Q."""
    Q = np.ascontiguousarray(Q, dtype=np.float64)
    R = np.ascontiguousarray(R, dtype=np.float64)
    w = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    with blas_single_thread():
        return _neighbors.gaussian_logsumexp(Q, R, float(h), n_threads(n_jobs), 256, w)


def leading_directions(D, d):
    """The ``d`` leading principal directions of each matrix of a stack ``D`` (b, m, n) of
    (centred, possibly weighted) rows: ``mu`` (b, d'), the eigenvalues of ``D'D``, and unit
    directions ``V`` (b, d', n), ``d' = min(d, m, n)``.

    With at least as many rows as dimensions, an SVD of each ``m x n`` matrix; with fewer
    (images), the ``m x m`` Gram matrices ``DD'`` give the same pairs several times faster,
    ``v_j = D'u_j / sqrt(mu_j)``, and a direction of (numerically) zero eigenvalue gets ``mu =
    0`` and ``v = 0``.  Used by Manifold Parzen windows (thesis eq. 13.3) and the local Gaussian
    density."""
    m, n = D.shape[1], D.shape[2]
    if m >= n:
        _, sv, Vt = np.linalg.svd(D, full_matrices=False)
        return sv[:, :d] ** 2, Vt[:, :d, :]
    mu, U = np.linalg.eigh(np.matmul(D, D.transpose(0, 2, 1)))
    mu, U = mu[:, ::-1][:, :d], U[:, :, ::-1][:, :, :d]
    mu = np.where(mu > 1e-12 * np.maximum(mu[:, :1], 1e-300), mu, 0.0)
    scale = np.divide(1.0, np.sqrt(mu), out=np.zeros_like(mu), where=mu > 0)
    return mu, np.matmul(U.transpose(0, 2, 1), D) * scale[:, :, None]
