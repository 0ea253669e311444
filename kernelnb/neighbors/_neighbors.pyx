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
from libc.math cimport exp, log, fabs, INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from scipy.linalg.cython_blas cimport dgemm, sgemm, ddot
from scipy.linalg.cython_lapack cimport dpotrf, dpotrs

cnp.import_array()

ctypedef fused floating:
    float
    double


cdef inline void _insert(double* dk, int* ik, int K, double d, int j) noexcept nogil:
    """Insert (d, j) into the ascending list dk/ik of length K (dropping the largest)."""
    cdef int p = K - 1
    if d >= dk[p]:
        return
    while p > 0 and dk[p - 1] > d:
        dk[p] = dk[p - 1]
        ik[p] = ik[p - 1]
        p -= 1
    dk[p] = d
    ik[p] = j


def knn_search(const floating[:, ::1] Q, const floating[:, ::1] R, int K, int n_threads=1,
               int block=256, const cnp.int64_t[::1] exclude=None):
    """Indices and squared distances of the K nearest rows of R for every row of Q.

    The neighbours are those of the exact distances (ties to the smaller index), found in two
    steps.  Candidates come from a float32 product of the rows centred on R's mean (each OpenMP
    thread a single-threaded ``sgemm`` on its block of queries: half the time of a float64
    product), with a bound on its error: the float32 dot product of rows of d features
    differs from the exact one by at most gamma_(d+3) ||q|| ||r|| (gamma_k = k u / (1 - k u),
    u = 2^-24: the rounding of the rows and the summation, in any order; Higham 2002, sec. 3.1),
    so a reference whose approximate distance exceeds the K-th smallest approximate distance by
    more than twice the distances' bound (at the largest ||r||) cannot be among the K nearest.  The few candidates left
    are then measured exactly, from their differences in float64, and the K smallest kept in
    (distance, index) order.  Q and R share one dtype (float32 rows are measured in float64,
    as scikit-learn upcasts them).  ``exclude[i] = j`` removes reference j from the candidates
    of query i (leave-one-out on the training set); -1 excludes nothing.
    Returns (dist2 (nq, K) ascending, float64; idx (nq, K) int64).
    """
    cdef int nq = Q.shape[0], nr = R.shape[0], d = Q.shape[1]
    if R.shape[1] != d:
        raise ValueError(f"queries have {d} features but the reference set has {R.shape[1]}")
    if K < 1 or K > nr:
        raise ValueError(f"K must be between 1 and the number of reference points ({nr}), got {K}")
    if exclude is not None and exclude.shape[0] != nq:
        raise ValueError("exclude must have one entry per query")
    Qa, Ra = np.asarray(Q), np.asarray(R)
    mu = Ra.mean(axis=0, dtype=np.float64)
    Qc = Qa - mu
    Rc = Ra - mu
    cdef double[::1] qn = np.einsum("ij,ij->i", Qc, Qc)
    cdef double[::1] rn = np.einsum("ij,ij->i", Rc, Rc)
    cdef float[:, ::1] Q32 = np.ascontiguousarray(Qc, dtype=np.float32)
    cdef float[:, ::1] R32 = np.ascontiguousarray(Rc, dtype=np.float32)
    del Qc, Rc
    # the error bound of an approximate squared distance, per query (at the largest ||r||):
    # twice the product's gamma_(d+3) ||q|| ||r|| (gamma_k = k u / (1 - k u)), with a margin for
    # the float64 sums around it
    cdef double ku = (d + 3) * 2.0 ** -24
    if ku >= 0.5:
        raise ValueError(f"too many features for the float32 search ({d})")
    cdef double rmax = float(np.sqrt(np.max(rn))) if nr else 0.0
    cdef double[::1] err = (2.0 * ku / (1.0 - ku) * 1.001 * np.sqrt(qn) * rmax
                            + 1e-13 * (np.asarray(qn) + rmax * rmax))
    cdef double[:, ::1] out_d = np.full((nq, K), np.inf)
    cdef cnp.int64_t[:, ::1] out_i = np.full((nq, K), -1, dtype=np.int64)
    n_threads = max(1, n_threads)
    block = max(1, min(block, nq))
    cdef int n_blocks = (nq + block - 1) // block
    cdef float[:, ::1] buf = np.empty((n_threads * block, max(nr, 1)), dtype=np.float32)
    cdef int[:, ::1] ibuf = np.empty((n_threads, K), dtype=np.int32)
    cdef double[:, ::1] dbuf = np.empty((n_threads, K))
    cdef int[:, ::1] cand = np.empty((n_threads, max(nr, 1)), dtype=np.int32)
    cdef double[:, ::1] cval = np.empty((n_threads, max(nr, 1)))
    cdef int b, tid, q0, nb, r, j, k, ex, nc, c, i, l
    cdef float fone = 1.0, fzero = 0.0
    cdef double a, kth, lim, dist, t
    cdef const float* row
    cdef bint has_ex = exclude is not None
    with nogil:
        for b in prange(n_blocks, num_threads=n_threads, schedule="dynamic"):
            tid = threadid()
            q0 = b * block
            nb = block if q0 + block <= nq else nq - q0
            # buf[tid*block : +nb, :nr] = Q32[q0:q0+nb] . R32'   (column-major: R32'^T . Q32')
            sgemm("T", "N", &nr, &nb, &d, &fone, &R32[0, 0], &d, &Q32[q0, 0], &d,
                  &fzero, &buf[tid * block, 0], &nr)
            for r in range(nb):
                i = q0 + r
                ex = exclude[i] if has_ex else -1
                # one pass: the K smallest approximate distances so far, and every reference
                # within the bound of the current K-th (a superset of the final candidates)
                for k in range(K):
                    dbuf[tid, k] = INFINITY
                    ibuf[tid, k] = -1
                row = &buf[tid * block + r, 0]
                nc = 0
                for j in range(nr):
                    if j == ex:
                        continue
                    a = qn[i] + rn[j] - 2.0 * row[j]
                    if a <= dbuf[tid, K - 1] + 2.0 * err[i]:
                        cand[tid, nc] = j
                        cval[tid, nc] = a
                        nc = nc + 1
                        _insert(&dbuf[tid, 0], &ibuf[tid, 0], K, a, j)
                # the candidates within twice the bound of the final K-th (its own error and
                # theirs), measured exactly
                kth = dbuf[tid, K - 1]
                lim = kth + 2.0 * err[i]
                for k in range(K):
                    dbuf[tid, k] = INFINITY
                    ibuf[tid, k] = -1
                for c in range(nc):
                    if cval[tid, c] > lim:
                        continue
                    j = cand[tid, c]
                    dist = 0.0
                    for l in range(d):
                        t = <double> Q[i, l] - <double> R[j, l]
                        dist = dist + t * t
                    _insert(&dbuf[tid, 0], &ibuf[tid, 0], K, dist, j)
                for k in range(K):
                    out_d[i, k] = dbuf[tid, k]
                    out_i[i, k] = ibuf[tid, k]
    return np.asarray(out_d), np.asarray(out_i)


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
