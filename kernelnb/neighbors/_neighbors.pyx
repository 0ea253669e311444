# cython: language_level=3
"""Cython cores of the local methods: brute-force K-nearest-neighbour search, row-wise
log-sum-exp of Gaussian windows, and the per-point local solves of HKNN and CKNN.

Neighbour search: squared distances ``||q||^2 + ||r||^2 - 2 q.r`` by blocks of queries; each
OpenMP thread runs a single-threaded GEMM on its block (the Python layer holds BLAS to one
thread) and keeps the K smallest per row by insertion into a sorted list, so memory stays at
``block x n_ref`` per thread whatever the number of queries.
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange, threadid
from libc.math cimport exp, log, fabs, sqrt, INFINITY, NAN
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from scipy.linalg.cython_blas cimport dgemm, sgemm, ddot
from scipy.linalg.cython_lapack cimport dpotrf, dpotrs

cnp.import_array()

ctypedef fused floating:
    float
    double


cdef extern from *:
    """
    /* Squared Euclidean distance of two rows, in float64, from their differences.  The simd
       reduction lets the compiler keep several partial sums (the order of the additions is
       the only freedom taken; each difference and square is the float64 one).  Compiled for
       AVX2 as well where GCC's function multiversioning is available (chosen at load time by
       the processor; the default clone runs everywhere). */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define KNB_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define KNB_CLONES
    #endif
    KNB_CLONES static double knb_sqdist_df(const double *q, const float *r, int d) {
        double s = 0.0;
        #pragma omp simd reduction(+:s)
        for (int l = 0; l < d; l++) { double t = q[l] - (double) r[l]; s += t * t; }
        return s;
    }
    KNB_CLONES static double knb_sqdist_dd(const double *q, const double *r, int d) {
        double s = 0.0;
        #pragma omp simd reduction(+:s)
        for (int l = 0; l < d; l++) { double t = q[l] - r[l]; s += t * t; }
        return s;
    }
    /* a[j] = qn + rn[j] - c g[j], a NaN (an overflow of the float32 product) made -inf so
       that the reference stays a candidate */
    KNB_CLONES static void knb_bounds(double *a, const double *rn, const float *g, double qn,
                                      double c, int n) {
        #pragma omp simd
        for (int j = 0; j < n; j++) {
            double v = qn + rn[j] - c * (double) g[j];
            a[j] = (v == v) ? v : -INFINITY;
        }
    }
    /* Ask for the cache lines of a row that is measured next (its distance is computed while
       the lines of the next one arrive). */
    static inline void knb_prefetch(const void *p, long bytes) {
        const char *c = (const char *) p;
        for (long o = 0; o < bytes; o += 64) __builtin_prefetch(c + o, 0, 0);
    }
    """
    double knb_sqdist_df(const double* q, const float* r, int d) noexcept nogil
    double knb_sqdist_dd(const double* q, const double* r, int d) noexcept nogil
    void knb_bounds(double* a, const double* rn, const float* g, double qn, double c,
                    int n) noexcept nogil
    void knb_prefetch(const void* p, long bytes) noexcept nogil


cdef inline bint _before(double d1, int j1, double d2, int j2) noexcept nogil:
    """(d1, j1) comes before (d2, j2): smaller distance, then smaller index; an empty slot
    (j2 = -1) comes after everything."""
    return j2 < 0 or d1 < d2 or (d1 == d2 and j1 < j2)


cdef inline void _insert(double* dk, int* ik, int K, double d, int j) noexcept nogil:
    """Insert (d, j) into the list dk/ik of length K sorted by (distance, index), dropping the
    last."""
    cdef int p = K - 1
    if not _before(d, j, dk[p], ik[p]):
        return
    while p > 0 and _before(d, j, dk[p - 1], ik[p - 1]):
        dk[p] = dk[p - 1]
        ik[p] = ik[p - 1]
        p -= 1
    dk[p] = d
    ik[p] = j


cdef inline void _sift_down(double* hk, int* hi, int n, int p) noexcept nogil:
    """Restore the min-heap order of hk (ids hi) below position p."""
    cdef double key = hk[p]
    cdef int ident = hi[p], c
    while True:
        c = 2 * p + 1
        if c >= n:
            break
        if c + 1 < n and hk[c + 1] < hk[c]:
            c += 1
        if hk[c] >= key:
            break
        hk[p] = hk[c]
        hi[p] = hi[c]
        p = c
    hk[p] = key
    hi[p] = ident


cdef inline double _prune_above(double U, double s2, double eps, double e1) noexcept nogil:
    """The bound a reference's value must exceed to be further than U (see ``knn_search``)."""
    cdef double t
    if U == INFINITY:
        return INFINITY
    t = sqrt(s2 * U) + eps
    return t * t + e1


def column_stats(const floating[:, ::1] X, int n_threads=1):
    """Column means (float64 sums) and the largest absolute deviation of an entry from its
    column's mean, in one pass over X (the rows split between the OpenMP threads)."""
    cdef Py_ssize_t n = X.shape[0], i
    cdef int d = X.shape[1], l, t, nt = max(1, min(n_threads, max(1, <int> (n // 256))))
    cdef double[:, ::1] sums = np.zeros((nt, d))
    cdef double[:, ::1] lo = np.full((nt, d), np.inf)
    cdef double[:, ::1] hi = np.full((nt, d), -np.inf)
    cdef Py_ssize_t per = (n + nt - 1) // nt, r0, r1
    cdef double v
    if n == 0:
        return np.zeros(d), 0.0
    with nogil:
        for t in prange(nt, num_threads=nt, schedule="static"):
            r0 = t * per
            r1 = r0 + per if r0 + per < n else n
            for i in range(r0, r1):
                for l in range(d):
                    v = X[i, l]
                    sums[t, l] += v
                    if v < lo[t, l]:
                        lo[t, l] = v
                    if v > hi[t, l]:
                        hi[t, l] = v
    mu = np.asarray(sums).sum(axis=0) / n
    amax = max(float(np.max(np.asarray(hi).max(axis=0) - mu)),
               float(np.max(mu - np.asarray(lo).min(axis=0))))
    return mu, amax


def centre_rows(const floating[:, ::1] X, const double[::1] mu, double scale, int n_threads=1):
    """The rows of X centred on ``mu`` and multiplied by ``scale`` (a power of two), in float32,
    and their squared norms ``||scale (x - mu)||^2`` computed in float64 from the float64
    differences.  One pass over X, no float64 copy of it."""
    cdef Py_ssize_t n = X.shape[0], i
    cdef int d = X.shape[1], l
    if mu.shape[0] != d:
        raise ValueError("mu must have one entry per feature")
    cdef float[:, ::1] out = np.empty((n, d), dtype=np.float32)
    cdef double[::1] norms = np.empty(n)
    cdef double t, s
    with nogil:
        for i in prange(n, num_threads=max(1, n_threads), schedule="static"):
            s = 0.0
            for l in range(d):
                t = (<double> X[i, l] - mu[l]) * scale
                out[i, l] = <float> t
                s = s + t * t
            norms[i] = s
    return np.asarray(out), np.asarray(norms)


def matmul_rows(const float[:, ::1] X, const float[:, ::1] V, int n_threads=1, int block=512):
    """X @ V in float32 (X n x d, V d x l), by blocks of rows of X, each OpenMP thread a
    single-threaded sgemm on its block (the caller holds BLAS to one thread)."""
    cdef int n = X.shape[0], d = X.shape[1], l = V.shape[1]
    if V.shape[0] != d:
        raise ValueError(f"X has {d} columns but V has {V.shape[0]} rows")
    cdef float[:, ::1] out = np.zeros((n, l), dtype=np.float32)
    if n == 0 or l == 0 or d == 0:
        return np.asarray(out)
    block = max(1, block)
    cdef int n_blocks = (n + block - 1) // block, b, q0, nb
    cdef float fone = 1.0, fzero = 0.0
    with nogil:
        for b in prange(n_blocks, num_threads=max(1, n_threads), schedule="static"):
            q0 = b * block
            nb = block if q0 + block <= n else n - q0
            # out[q0:q0+nb] = X[q0:q0+nb] V   (column-major: out' = V' X')
            sgemm("N", "N", &l, &nb, &d, &fone, &V[0, 0], &l, &X[q0, 0], &d, &fzero,
                  &out[q0, 0], &l)
    return np.asarray(out)


def gram_rows(const float[:, ::1] S, int n_threads=1):
    """S' S in float64 accumulation of float32 products (d x d), the rows of S split between
    the OpenMP threads (each a single-threaded sgemm into its own buffer), then summed."""
    cdef int m = S.shape[0], d = S.shape[1]
    n_threads = max(1, min(n_threads, m))
    cdef float[:, :, ::1] parts = np.zeros((n_threads, d, d), dtype=np.float32)
    cdef int t, r0, nb, per = (m + n_threads - 1) // n_threads if m else 0
    cdef float fone = 1.0, fzero = 0.0
    if m == 0 or d == 0:
        return np.zeros((d, d))
    with nogil:
        for t in prange(n_threads, num_threads=n_threads, schedule="static"):
            r0 = t * per
            nb = per if r0 + per <= m else m - r0
            if nb > 0:
                sgemm("N", "T", &d, &d, &nb, &fone, &S[r0, 0], &d, &S[r0, 0], &d, &fzero,
                      &parts[t, 0, 0], &d)
    return np.asarray(parts).sum(axis=0, dtype=np.float64)


def knn_search(const float[:, ::1] Qa, const float[:, ::1] Ra, const double[::1] qn,
               const double[::1] rn, const double[::1] e1, const double[::1] eps, double s2,
               const floating[:, ::1] Q, const floating[:, ::1] R, int K, int n_threads=1,
               int block=256, const cnp.int64_t[::1] exclude=None):
    """The K nearest rows of R for every row of Q, exactly, found through bounds.

    Rows ``Qa[i]``, ``Ra[j]`` (float32, ``m`` columns) and float64 numbers ``qn[i]``, ``rn[j]``,
    ``e1[i] >= 0``, ``eps[i] >= 0`` are such that, with ``a_ij = qn[i] + rn[j] - 2 Qa[i].Ra[j]``
    (the product in float32, by one single-threaded sgemm per block of queries and OpenMP
    thread) and ``D_ij = ||Q[i] - R[j]||^2`` the exact squared distance,

        sqrt(max(a_ij - e1[i], 0)) - eps[i] <= sqrt(s2 D_ij).

    Two such families are built by :mod:`kernelnb.neighbors._base`: the scaled centred rows
    themselves (``a`` approximates ``s2 D`` within ``e1``, ``eps = 0``) and their projections
    on a few leading principal directions (``a`` then approximates the projected distance, a
    lower bound of the distance, within ``e1``, and ``eps`` bounds the error of the float32
    projections).  So a reference j is further than a distance U whenever ``a_ij >
    (sqrt(s2 U) + eps)^2 + e1``.  For each query the K references of smallest ``a`` are
    measured exactly (float64 differences of Q and R, whose common dtype they keep), giving U,
    the K-th smallest exact distance so far; every reference not excluded by that test is taken
    in increasing ``a`` (a heap), measured and kept while it is before the current K-th, until
    the next ``a`` passes the test for the current U.  The neighbours are thus those of the
    exact float64 distances, in (distance, index) order: an exact tie goes to the smaller
    index.  ``exclude[i] = j`` removes reference j from query i's candidates (leave-one-out);
    -1 excludes nothing.

    Returns (dist2 (nq, K) ascending, float64; idx (nq, K) int64; n_measured (nq,) int32, the
    exact distances measured per query).
    """
    cdef int nq = Q.shape[0], nr = R.shape[0], d = Q.shape[1], m = Qa.shape[1]
    if R.shape[1] != d:
        raise ValueError(f"queries have {d} features but the reference set has {R.shape[1]}")
    if K < 1 or K > nr:
        raise ValueError(f"K must be between 1 and the number of reference points ({nr}), got {K}")
    if exclude is not None and exclude.shape[0] != nq:
        raise ValueError("exclude must have one entry per query")
    if (Qa.shape[0] != nq or Ra.shape[0] != nr or Ra.shape[1] != m or qn.shape[0] != nq
            or rn.shape[0] != nr or e1.shape[0] != nq or eps.shape[0] != nq):
        raise ValueError("the bounds' arrays do not match the queries and references")
    cdef double[:, ::1] out_d = np.full((nq, K), np.inf)
    cdef cnp.int64_t[:, ::1] out_i = np.full((nq, K), -1, dtype=np.int64)
    cdef int[::1] out_n = np.zeros(nq, dtype=np.int32)
    if nq == 0:
        return np.asarray(out_d), np.asarray(out_i), np.asarray(out_n)
    n_threads = max(1, n_threads)
    block = max(1, min(block, nq))
    cdef int n_blocks = (nq + block - 1) // block
    n_threads = min(n_threads, n_blocks)
    cdef float[:, ::1] G = np.zeros((n_threads * block, nr), dtype=np.float32)
    cdef double[:, ::1] A = np.empty((n_threads, nr))
    cdef double[:, ::1] HK = np.empty((n_threads, nr))
    cdef int[:, ::1] HI = np.empty((n_threads, nr), dtype=np.int32)
    cdef double[:, ::1] QD = np.empty((n_threads, d))
    cdef double[:, ::1] SK = np.empty((n_threads, K))
    cdef int[:, ::1] SI = np.empty((n_threads, K), dtype=np.int32)
    cdef double[:, ::1] TD = np.empty((n_threads, K))
    cdef int[:, ::1] TI = np.empty((n_threads, K), dtype=np.int32)
    cdef int b, tid, q0, nb, r, i, j, k, l, ex, nh, nmeas
    cdef float fone = 1.0, fzero = 0.0
    cdef double dist, U, lim, key, thr
    cdef long rowbytes = d * sizeof(floating)
    cdef double* a
    cdef double* hk
    cdef int* hi
    cdef double* qd
    cdef bint has_ex = exclude is not None
    with nogil:
        for b in prange(n_blocks, num_threads=n_threads, schedule="dynamic"):
            tid = threadid()
            q0 = b * block
            nb = block if q0 + block <= nq else nq - q0
            # G[tid*block : +nb, :nr] = Qa[q0:q0+nb] . Ra'   (column-major: Ra'^T . Qa')
            if m > 0:
                sgemm("T", "N", &nr, &nb, &m, &fone, &Ra[0, 0], &m, &Qa[q0, 0], &m,
                      &fzero, &G[tid * block, 0], &nr)
            a = &A[tid, 0]
            hk = &HK[tid, 0]
            hi = &HI[tid, 0]
            qd = &QD[tid, 0]
            for r in range(nb):
                i = q0 + r
                ex = <int> exclude[i] if has_ex else -1
                if floating is float:
                    for l in range(d):
                        qd[l] = <double> Q[i, l]
                knb_bounds(a, &rn[0], &G[tid * block + r, 0], qn[i], 2.0, nr)
                if 0 <= ex < nr:
                    a[ex] = NAN
                # the K smallest values of a (NaN marks a reference out of the running)
                for k in range(K):
                    SK[tid, k] = INFINITY
                    SI[tid, k] = -1
                    TD[tid, k] = INFINITY
                    TI[tid, k] = -1
                thr = INFINITY
                for j in range(nr):
                    if a[j] < thr:
                        _insert(&SK[tid, 0], &SI[tid, 0], K, a[j], j)
                        if SI[tid, K - 1] >= 0:
                            thr = SK[tid, K - 1]
                nmeas = 0
                for k in range(K):
                    j = SI[tid, k]
                    if j < 0:
                        continue
                    if k + 1 < K and SI[tid, k + 1] >= 0:
                        knb_prefetch(&R[SI[tid, k + 1], 0], rowbytes)
                    if floating is float:
                        dist = knb_sqdist_df(qd, &R[j, 0], d)
                    else:
                        dist = knb_sqdist_dd(&Q[i, 0], &R[j, 0], d)
                    nmeas = nmeas + 1
                    _insert(&TD[tid, 0], &TI[tid, 0], K, dist, j)
                    a[j] = NAN
                # every reference the bound does not put beyond the K-th distance so far
                U = TD[tid, K - 1] if TI[tid, K - 1] >= 0 else INFINITY
                lim = _prune_above(U, s2, eps[i], e1[i])
                nh = 0
                for j in range(nr):             # branch-free compaction
                    hk[nh] = a[j]
                    hi[nh] = j
                    nh = nh + (a[j] <= lim)
                for k in range(nh // 2 - 1, -1, -1):
                    _sift_down(hk, hi, nh, k)
                # measured in increasing a until the next a passes the test
                while nh > 0:
                    key = hk[0]
                    j = hi[0]
                    if key > lim:
                        break
                    nh = nh - 1
                    hk[0] = hk[nh]
                    hi[0] = hi[nh]
                    _sift_down(hk, hi, nh, 0)
                    if nh > 0 and hk[0] <= lim:
                        knb_prefetch(&R[hi[0], 0], rowbytes)
                    if floating is float:
                        dist = knb_sqdist_df(qd, &R[j, 0], d)
                    else:
                        dist = knb_sqdist_dd(&Q[i, 0], &R[j, 0], d)
                    nmeas = nmeas + 1
                    if _before(dist, j, TD[tid, K - 1], TI[tid, K - 1]):
                        _insert(&TD[tid, 0], &TI[tid, 0], K, dist, j)
                        if TI[tid, K - 1] >= 0:
                            lim = _prune_above(TD[tid, K - 1], s2, eps[i], e1[i])
                for k in range(K):
                    out_d[i, k] = TD[tid, k]
                    out_i[i, k] = TI[tid, k]
                out_n[i] = nmeas
    return np.asarray(out_d), np.asarray(out_i), np.asarray(out_n)


def gaussian_logsumexp(const double[:, ::1] Q, const double[:, ::1] R, double h,
                       int n_threads=1, int block=256, const double[::1] weights=None):
    """For every query x: log sum_i w_i exp(-||x - r_i||^2 / (2 h^2)) (w_i = 1 by default),
    computed by blocks with the same GEMM scheme as ``knn_search`` and a stable log-sum-exp."""
    cdef int nq = Q.shape[0], nr = R.shape[0], d = Q.shape[1]
    if R.shape[1] != d:
        raise ValueError(f"queries have {d} features but the reference set has {R.shape[1]}")
    cdef double[::1] qn = np.einsum("ij,ij->i", np.asarray(Q), np.asarray(Q))
    cdef double[::1] rn = np.einsum("ij,ij->i", np.asarray(R), np.asarray(R))
    cdef double[::1] out = np.empty(nq)
    n_threads = max(1, n_threads)
    block = max(1, min(block, max(nq, 1)))
    cdef int n_blocks = (nq + block - 1) // block
    cdef double[:, ::1] buf = np.empty((n_threads * block, max(nr, 1)))
    cdef int b, tid, q0, nb, r, j
    cdef double one = 1.0, zero = 0.0, dist, m, s, inv = 1.0 / (2.0 * h * h)
    cdef bint has_w = weights is not None
    with nogil:
        for b in prange(n_blocks, num_threads=n_threads, schedule="dynamic"):
            tid = threadid()
            q0 = b * block
            nb = block if q0 + block <= nq else nq - q0
            dgemm("T", "N", &nr, &nb, &d, &one, &R[0, 0], &d, &Q[q0, 0], &d, &zero,
                  &buf[tid * block, 0], &nr)
            for r in range(nb):
                m = -INFINITY
                for j in range(nr):
                    dist = qn[q0 + r] + rn[j] - 2.0 * buf[tid * block + r, j]
                    if dist < 0:
                        dist = 0
                    dist = -dist * inv
                    buf[tid * block + r, j] = dist
                    if dist > m:
                        m = dist
                s = 0.0
                for j in range(nr):
                    if has_w:
                        s = s + weights[j] * exp(buf[tid * block + r, j] - m)
                    else:
                        s = s + exp(buf[tid * block + r, j] - m)
                out[q0 + r] = m + log(s) if s > 0 else -INFINITY
    return np.asarray(out)


cdef int _cholesky_solve(double* A, double* b, int n) noexcept nogil:
    """Solve A x = b in place (b <- x) for symmetric positive definite A (n x n, overwritten by
    its Cholesky factor) with LAPACK's dpotrf/dpotrs.  A is symmetric, so its row-major storage
    is also its column-major one.  Returns 1 if A is not positive definite."""
    cdef char uplo = b'L'
    cdef int info = 0, nrhs = 1
    dpotrf(&uplo, &n, A, &n, &info)
    if info != 0:
        return 1
    dpotrs(&uplo, &n, &nrhs, A, &n, b, &n, &info)
    return 1 if info != 0 else 0


cdef void _local_gram(const double* x, const double[:, ::1] R, const cnp.int64_t* nb,
                      int K, int d, bint centre_on_mean, double* P, double* r,
                      double* G, double* pr) noexcept nogil:
    """Differences P_k = N_k - c (c = the neighbours' mean, or x itself), r = x - c, their Gram
    matrix G = P P' and pr = P r, by BLAS dots on the gathered rows.  Working with differences
    keeps the local scale: Gram identities on the raw points would subtract numbers of the size
    of ||x||^2 and lose digits."""
    cdef int k, l, j, one = 1
    cdef double inv = 1.0 / K
    for j in range(d):
        r[j] = 0.0
    if centre_on_mean:
        for k in range(K):
            for j in range(d):
                r[j] += R[nb[k], j]
        for j in range(d):
            r[j] *= inv
    else:
        for j in range(d):
            r[j] = x[j]
    for k in range(K):
        for j in range(d):
            P[k * d + j] = R[nb[k], j] - r[j]
    for j in range(d):
        r[j] = x[j] - r[j]
    for k in range(K):
        for l in range(k + 1):
            G[k * K + l] = ddot(&d, &P[k * d], &one, &P[l * d], &one)
            G[l * K + k] = G[k * K + l]
        pr[k] = ddot(&d, &P[k * d], &one, r, &one)


def hyperplane_distances(const double[:, ::1] X, const double[:, ::1] R,
                         const cnp.int64_t[:, ::1] idx, double lam, int n_threads=1):
    """Squared distance of each x to the (weight-decay) affine hull of its K neighbours.

    For x with neighbours N_1..N_K (rows of R given by ``idx``): N = mean, V_k = N_k - N,
    solve (V'V + lam I) a = V'(x - N) and return ||x - N - V a||^2 + lam ||a||^2
    (Vincent's thesis eq. 11.5; lam = 0 is plain HKNN, solved with a tiny ridge for the
    rank deficiency of V'V, which does not change the distance)."""
    cdef int n = X.shape[0], d = X.shape[1], K = idx.shape[1], one = 1
    if R.shape[1] != d:
        raise ValueError(f"X has {d} features but the reference set has {R.shape[1]}")
    cdef double[::1] out = np.empty(n)
    n_threads = max(1, n_threads)
    cdef double[:, ::1] Pb = np.empty((n_threads, K * d))
    cdef double[:, ::1] rb = np.empty((n_threads, d))
    cdef double[:, ::1] Ab = np.empty((n_threads, K * K))
    cdef double[:, ::1] bb = np.empty((n_threads, K))
    cdef double[:, ::1] vr = np.empty((n_threads, K))
    cdef int i, tid, k, fail
    cdef double rr, tr, ridge, s, reg, dist
    with nogil:
        for i in prange(n, num_threads=n_threads, schedule="static"):
            tid = threadid()
            _local_gram(&X[i, 0], R, &idx[i, 0], K, d, True, &Pb[tid, 0], &rb[tid, 0],
                        &Ab[tid, 0], &vr[tid, 0])
            rr = ddot(&d, &rb[tid, 0], &one, &rb[tid, 0], &one)
            tr = 0.0
            for k in range(K):
                tr = tr + Ab[tid, k * K + k]
                bb[tid, k] = vr[tid, k]
            ridge = lam if lam > 0 else 1e-10 * (tr / K + 1e-300)
            for k in range(K):
                Ab[tid, k * K + k] += ridge
            fail = _cholesky_solve(&Ab[tid, 0], &bb[tid, 0], K)
            # d'^2 = ||r||^2 - a'V'r at the optimum of the regularised problem
            dist = rr
            if fail == 0:
                s = 0.0
                reg = 0.0
                for k in range(K):
                    s = s + bb[tid, k] * vr[tid, k]
                    reg = reg + bb[tid, k] * bb[tid, k]
                dist = dist - s
                if lam <= 0:
                    dist = dist - ridge * reg   # the tiny ridge's own term is not a distance
            out[i] = dist if dist > 0 else 0.0
    return np.asarray(out)


cdef double _min_norm_point(int K, double* w, double* G,
                            int* S, double* v, double* A, double* rhs) noexcept nogil:
    """Wolfe's minimum-norm-point algorithm: squared norm of the point of the convex hull of K
    points nearest the origin, given their Gram matrix G (K x K); w receives the convex weights.

    The affine minimiser over the current corral S solves [G_SS 1; 1' 0][v; mu] = [0; 1]
    (a bordered system, by Gaussian elimination with partial pivoting)."""
    cdef int k, j, i, ns, it, jmin, p, r, c, piv
    cdef double best, xx, xp, theta, t, eps = 1e-12, maxnorm = 0.0, tmp
    for k in range(K):
        if G[k * K + k] > maxnorm:
            maxnorm = G[k * K + k]
    for k in range(K):
        w[k] = 0.0
    # start at the point of smallest norm
    jmin = 0
    for k in range(1, K):
        if G[k * K + k] < G[jmin * K + jmin]:
            jmin = k
    S[0] = jmin
    ns = 1
    w[jmin] = 1.0
    for it in range(100 * K + 100):
        # x = sum w_k p_k; x.p_j = sum_k w_k G[k, j]; x.x = w'Gw
        xx = 0.0
        for k in range(ns):
            for j in range(ns):
                xx = xx + w[S[k]] * w[S[j]] * G[S[k] * K + S[j]]
        best = INFINITY
        jmin = -1
        for j in range(K):
            xp = 0.0
            for k in range(ns):
                xp = xp + w[S[k]] * G[S[k] * K + j]
            if xp < best:
                best = xp
                jmin = j
        if xx - best <= eps * maxnorm:
            return xx if xx > 0 else 0.0
        # jmin already in the corral: numerical stall, stop here
        for k in range(ns):
            if S[k] == jmin:
                return xx if xx > 0 else 0.0
        S[ns] = jmin
        ns += 1
        w[jmin] = 0.0
        while True:
            # bordered system of size ns + 1 in A (row-major), rhs
            p = ns + 1
            for r in range(ns):
                for c in range(ns):
                    A[r * p + c] = G[S[r] * K + S[c]]
                A[r * p + ns] = 1.0
                rhs[r] = 0.0
            for c in range(ns):
                A[ns * p + c] = 1.0
            A[ns * p + ns] = 0.0
            rhs[ns] = 1.0
            for c in range(p):            # Gaussian elimination, partial pivoting
                piv = c
                for r in range(c + 1, p):
                    if fabs(A[r * p + c]) > fabs(A[piv * p + c]):
                        piv = r
                if fabs(A[piv * p + c]) < 1e-300:
                    continue
                if piv != c:
                    for i in range(p):
                        tmp = A[c * p + i]
                        A[c * p + i] = A[piv * p + i]
                        A[piv * p + i] = tmp
                    tmp = rhs[c]
                    rhs[c] = rhs[piv]
                    rhs[piv] = tmp
                for r in range(c + 1, p):
                    t = A[r * p + c] / A[c * p + c]
                    for i in range(c, p):
                        A[r * p + i] -= t * A[c * p + i]
                    rhs[r] -= t * rhs[c]
            for r in range(p - 1, -1, -1):
                t = rhs[r]
                for i in range(r + 1, p):
                    t -= A[r * p + i] * v[i]
                v[r] = t / A[r * p + r] if fabs(A[r * p + r]) > 1e-300 else 0.0
            # v[0:ns] affine weights of the corral
            t = INFINITY
            for k in range(ns):
                if v[k] <= eps:
                    break
            else:
                for k in range(ns):
                    w[S[k]] = v[k]
                break
            theta = 1.0
            for k in range(ns):
                if v[k] <= eps:
                    t = w[S[k]] / (w[S[k]] - v[k]) if w[S[k]] - v[k] > 0 else 0.0
                    if t < theta:
                        theta = t
            for k in range(ns):
                w[S[k]] = (1 - theta) * w[S[k]] + theta * v[k]
            # drop the points whose weight vanished
            j = 0
            for k in range(ns):
                if w[S[k]] > eps:
                    S[j] = S[k]
                    j += 1
                else:
                    w[S[k]] = 0.0
            ns = j
            if ns == 0:
                return 0.0
    xx = 0.0
    for k in range(ns):
        for j in range(ns):
            xx = xx + w[S[k]] * w[S[j]] * G[S[k] * K + S[j]]
    return xx if xx > 0 else 0.0


def convex_distances(const double[:, ::1] X, const double[:, ::1] R,
                     const cnp.int64_t[:, ::1] idx, int n_threads=1, bint return_weights=False):
    """Squared distance of each x to the convex hull of its K neighbours (CKNN), exactly, by
    Wolfe's minimum-norm-point algorithm on the points P_k = N_k - x.  Optionally the convex
    weights."""
    cdef int n = X.shape[0], d = X.shape[1], K = idx.shape[1]
    if R.shape[1] != d:
        raise ValueError(f"X has {d} features but the reference set has {R.shape[1]}")
    cdef double[::1] out = np.empty(n)
    cdef double[:, ::1] W = np.zeros((n if return_weights else 1, K))
    n_threads = max(1, n_threads)
    cdef double[:, ::1] Pb = np.empty((n_threads, K * d))
    cdef double[:, ::1] xb = np.empty((n_threads, d))
    cdef double[:, ::1] Gb = np.empty((n_threads, K * K))
    cdef double[:, ::1] pb = np.empty((n_threads, K))
    cdef double[:, ::1] wb = np.empty((n_threads, K))
    cdef int[:, ::1] Sb = np.empty((n_threads, K + 1), dtype=np.int32)
    cdef double[:, ::1] vb = np.empty((n_threads, K + 2))
    cdef double[:, ::1] Ab = np.empty((n_threads, (K + 2) * (K + 2)))
    cdef double[:, ::1] rb = np.empty((n_threads, K + 2))
    cdef int i, tid, k
    with nogil:
        for i in prange(n, num_threads=n_threads, schedule="dynamic"):
            tid = threadid()
            _local_gram(&X[i, 0], R, &idx[i, 0], K, d, False, &Pb[tid, 0], &xb[tid, 0],
                        &Gb[tid, 0], &pb[tid, 0])
            out[i] = _min_norm_point(K, &wb[tid, 0], &Gb[tid, 0], &Sb[tid, 0],
                                     &vb[tid, 0], &Ab[tid, 0], &rb[tid, 0])
            if return_weights:
                for k in range(K):
                    W[i, k] = wb[tid, k]
    if return_weights:
        return np.asarray(out), np.asarray(W)
    return np.asarray(out)
