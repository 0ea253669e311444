# cython: language_level=3
"""Fused element-wise passes that turn a BLAS Gram block into a kernel block, in place.

The dot products X @ Y.T come from BLAS (numpy or scipy's cython_blas); these loops apply
the kernel's scalar map in one pass over the block, in parallel over rows, without the
n x m temporaries numpy would create.
"""
cimport openmp
from cython.parallel cimport parallel, prange
from libc.stdlib cimport free, malloc
from scipy.linalg.cython_blas cimport dgemm, sgemm

from kernelnb._rbf_pass cimport (kn_dot_d, kn_rbf_direct_d, kn_rbf_gram_d, kn_rbf_gram_fd,
                                 kn_rbf_pass,
                                 kn_rbf_pass_d)

ctypedef fused floating:
    float
    double

# Below this many entries a parallel region costs more than it saves: serially the pass costs a
# few nanoseconds an entry, while on a busy machine a parallel region waits for a descheduled
# thread.
cdef Py_ssize_t SERIAL_BELOW = 1 << 21


cdef inline int _threads(Py_ssize_t n_entries) noexcept nogil:
    return 1 if n_entries < SERIAL_BELOW else openmp.omp_get_max_threads()


def omp_max_threads():
    """The thread count of this OpenMP runtime's next parallel region: ``OMP_NUM_THREADS`` as
    read at start-up, or a limit set since (``omp_set_num_threads``, which threadpoolctl's
    ``threadpool_limits(user_api="openmp")`` calls), else every core."""
    return openmp.omp_get_max_threads()


def threads_for(Py_ssize_t n_entries):
    """Threads a pass over ``n_entries`` entries uses: one below :data:`SERIAL_BELOW`, OpenMP's
    number above."""
    return _threads(n_entries)


def rbf_from_gram(floating[:, ::1] G, const floating[::1] xn, const floating[::1] yn,
                  double gamma):
    """G[i, j] <- exp(-gamma * max(xn[i] + yn[j] - 2 G[i, j], 0)), in place.

    float32: the vectorised pass of :mod:`kernelnb._rbf_pass`, the one the SVM solver uses for its
    kernel rows (relative error below 1e-7), vectorised where a loop of libm's ``expf`` is not.
    float64: the pass of the same module in double precision (a degree-13 polynomial, within 2
    ulp of libm's ``exp``).
    """
    cdef Py_ssize_t n = G.shape[0], m = G.shape[1], i
    cdef floating g = <floating> gamma
    cdef int nth = _threads(n * m)
    if xn.shape[0] != n or yn.shape[0] != m:
        raise ValueError("norm vectors do not match the Gram block")
    if n == 0 or m == 0:
        return
    if m > 2147483647:
        raise ValueError("Gram block too wide")
    with nogil:
        for i in prange(n, schedule="static", num_threads=nth):
            if floating is float:
                kn_rbf_pass(&G[i, 0], &yn[0], xn[i], g, 0, <int> m)
            else:
                kn_rbf_pass_d(&G[i, 0], &yn[0], xn[i], g, 0, <int> m)


def centre_gram(double[:, ::1] K, const double[::1] col, double grand):
    """K[i, j] <- K[i, j] - col[i] - col[j] + grand, in place, in one parallel pass: the centring
    of a symmetric Gram matrix in feature space (``col`` its column means, ``grand`` their mean),
    which three numpy passes did."""
    cdef Py_ssize_t n = K.shape[0], m = K.shape[1], i, j
    cdef double ci
    cdef int nth = _threads(n * m)
    if col.shape[0] != n or n != m:
        raise ValueError("centre_gram needs a square matrix and its column means")
    with nogil:
        for i in prange(n, schedule="static", num_threads=nth):
            ci = grand - col[i]
            for j in range(m):
                K[i, j] = K[i, j] + (ci - col[j])


def centred_sqnorms(const double[:, ::1] X, const double[::1] mu, double[::1] out):
    """out[i] <- sum_l (X[i, l] - mu[l]) ** 2, in one read of X: the squared norms of the rows
    centred on ``mu`` without the centred copy of X (:class:`kernelnb.kernels.KernelExpansion`
    multiplies the rows as they are by centred support vectors)."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i
    if mu.shape[0] != d or out.shape[0] != n:
        raise ValueError("centred_sqnorms: mu must have one entry per column of X and out one "
                         "per row")
    if n == 0:
        return
    if d == 0:
        out[:] = 0.0
        return
    # serial: the pass is bound by memory, which one core reads about as fast as two
    with nogil:
        for i in range(n):
            out[i] = _centred_sqnorm(&X[i, 0], &mu[0], d)


cdef inline double _centred_sqnorm(const double* x, const double* mu, Py_ssize_t d) noexcept nogil:
    cdef Py_ssize_t l
    cdef double acc = 0.0, t
    for l in range(d):
        t = x[l] - mu[l]
        acc = acc + t * t
    return acc


def poly_from_gram(floating[:, ::1] G, double gamma, double coef0, int degree):
    """G[i, j] <- (gamma * G[i, j] + coef0) ** degree, in place."""
    cdef Py_ssize_t n = G.shape[0], m = G.shape[1], i, j, k
    cdef floating v, acc
    cdef floating g = <floating> gamma, c = <floating> coef0
    cdef int nth = _threads(n * m)
    with nogil:
        for i in prange(n, schedule="static", num_threads=nth):
            for j in range(m):
                v = g * G[i, j] + c
                acc = 1
                for k in range(degree):
                    acc = acc * v
                G[i, j] = acc


# Fused expansions: support vectors in blocks of this many (the block's kernel values, 2 kB, stay
# in L1 between the kernel map and the products with the coefficients), rows in chunks of this
# many (a thread's unit of work; the support vectors' block is reused by every row of a chunk).
cdef int SV_BLOCK = 256
cdef int ROW_CHUNK = 32


def rbf_direct_dot(const double[:, ::1] X, const double[::1] mu, const double[:, ::1] ST,
                   const double[:, ::1] C, double gamma, double[:, ::1] out):
    """out[i, p] = sum_j C[p, j] exp(-gamma ||(X[i] - mu) - S_j||^2), S given transposed as ST
    (d x m): the Gaussian expansion of few features evaluated from the differences themselves, in
    float64, without a kernel block (no matrix product, whose inner dimension d would be tiny, and
    nothing written to memory but ``out``).

    Rows are split between threads in chunks; a row's value does not depend on the others or on
    the threads (each sum runs over the same blocks in the same order).
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], m = ST.shape[1], P = C.shape[0]
    cdef Py_ssize_t c, i, i0, i1, k, p, j0, j1, jb, n_chunks
    cdef Py_ssize_t n_blocks = (m + SV_BLOCK - 1) // SV_BLOCK
    cdef double g = gamma
    cdef double* e
    cdef double* xc
    if mu.shape[0] != d or ST.shape[0] != d or C.shape[1] != m or out.shape[0] != n \
            or out.shape[1] != P:
        raise ValueError("rbf_direct_dot: X (n, d), mu (d,), ST (d, m), C (P, m) and out (n, P) "
                         "do not match")
    if m > 2147483647 or d > 2147483647:
        raise ValueError("rbf_direct_dot: too many support vectors or features")
    out[:, :] = 0.0
    if n == 0 or m == 0 or P == 0:
        return
    n_chunks = (n + ROW_CHUNK - 1) // ROW_CHUNK
    cdef int nth = _threads(n * m * (d + 8))
    with nogil, parallel(num_threads=nth):
        e = <double*> malloc(SV_BLOCK * sizeof(double))
        xc = <double*> malloc(ROW_CHUNK * max(d, 1) * sizeof(double))
        for c in prange(n_chunks, schedule="dynamic"):
            i0 = c * ROW_CHUNK
            i1 = min(i0 + ROW_CHUNK, n)
            for i in range(i0, i1):
                for k in range(d):
                    xc[(i - i0) * d + k] = X[i, k] - mu[k]
            for jb in range(n_blocks):
                j0 = jb * SV_BLOCK
                j1 = min(j0 + SV_BLOCK, m)
                for i in range(i0, i1):
                    kn_rbf_direct_d(e, &ST[0, 0], <int> m, <int> d, &xc[(i - i0) * d], g,
                                    <int> j0, <int> j1)
                    for p in range(P):
                        out[i, p] += kn_dot_d(e, &C[p, j0], <int> (j1 - j0))
        free(e)
        free(xc)


def rbf_gemm_dot(const double[:, ::1] A, const double[::1] an, const double[:, ::1] B,
                 const double[::1] bn, double gamma, const double[:, ::1] C,
                 double[:, ::1] out, int n_threads=1, int block=256):
    """out[i, p] = sum_j C[p, j] exp(-gamma max(an[i] + bn[j] - 2 A[i].B[j], 0)): the Gaussian
    expansion of many features in one parallel region.  Threads take blocks of ``block`` rows
    in turn (dynamic schedule: a thread the system deschedules holds up no other), multiply
    each by B with a single-threaded ``dgemm`` into a buffer of their own, and combine its
    kernel values with the coefficients while the buffer is in cache (the caller holds BLAS to
    one thread).  A row's value does not depend on its block's other rows beyond the order of
    BLAS's sums.
    """
    cdef int n = A.shape[0], d = A.shape[1], m = B.shape[0], P = C.shape[0]
    cdef int nb_blocks, b, r0, nr, i, p, j0, j1, jb, tid
    cdef int n_sv_blocks = (m + SV_BLOCK - 1) // SV_BLOCK
    cdef double one = 1.0, zero = 0.0, g = gamma
    cdef double* e
    cdef double* G
    if B.shape[1] != d or an.shape[0] != n or bn.shape[0] != m or C.shape[1] != m \
            or out.shape[0] != n or out.shape[1] != P:
        raise ValueError("rbf_gemm_dot: A (n, d), an (n,), B (m, d), bn (m,), C (P, m) and out "
                         "(n, P) do not match")
    out[:, :] = 0.0
    if n == 0 or m == 0 or P == 0:
        return
    if d == 0:
        raise ValueError("rbf_gemm_dot: no features")
    block = max(1, min(block, n))
    nb_blocks = (n + block - 1) // block
    cdef int nth = max(1, min(n_threads, nb_blocks))
    with nogil, parallel(num_threads=nth):
        e = <double*> malloc(SV_BLOCK * sizeof(double))
        G = <double*> malloc(<size_t> block * m * sizeof(double))
        for b in prange(nb_blocks, schedule="dynamic"):
            r0 = b * block
            nr = min(block, n - r0)
            # G (nr x m, row-major) = A[r0:r0+nr] . B'  (column-major: B'^T . A'^T)
            dgemm("T", "N", &m, &nr, &d, &one, &B[0, 0], &d, &A[r0, 0], &d, &zero, G, &m)
            for i in range(nr):
                for jb in range(n_sv_blocks):
                    j0 = jb * SV_BLOCK
                    j1 = min(j0 + SV_BLOCK, m)
                    kn_rbf_gram_d(e, G + <size_t> i * m, &bn[0], an[r0 + i], g, j0, j1)
                    for p in range(P):
                        out[r0 + i, p] += kn_dot_d(e, &C[p, j0], j1 - j0)
        free(e)
        free(G)


def rbf_gemm_dot32(const float[:, ::1] A, const double[::1] an, const float[:, ::1] B,
                   const double[::1] bn, double gamma, const double[:, ::1] C,
                   const double[::1] cabs, double[:, ::1] out, double[::1] weight,
                   int n_threads=1, int block=256):
    """:func:`rbf_gemm_dot` with the product in float32 (``sgemm``, half the time of ``dgemm``)
    and the map and sums in float64; ``weight[i]`` receives sum_j cabs[j] K~_ij, the kernel
    values weighted by the coefficients' magnitudes, from which the caller bounds the error."""
    cdef int n = A.shape[0], d = A.shape[1], m = B.shape[0], P = C.shape[0]
    cdef int nb_blocks, b, r0, nr, i, p, j0, j1, jb
    cdef int n_sv_blocks = (m + SV_BLOCK - 1) // SV_BLOCK
    cdef float one = 1.0, zero = 0.0
    cdef double g = gamma
    cdef double* e
    cdef float* G
    if B.shape[1] != d or an.shape[0] != n or bn.shape[0] != m or C.shape[1] != m \
            or cabs.shape[0] != m or out.shape[0] != n or out.shape[1] != P \
            or weight.shape[0] != n:
        raise ValueError("rbf_gemm_dot32: A (n, d), an (n,), B (m, d), bn (m,), C (P, m), "
                         "cabs (m,), out (n, P) and weight (n,) do not match")
    out[:, :] = 0.0
    weight[:] = 0.0
    if n == 0 or m == 0:
        return
    if d == 0:
        raise ValueError("rbf_gemm_dot32: no features")
    block = max(1, min(block, n))
    nb_blocks = (n + block - 1) // block
    cdef int nth = max(1, min(n_threads, nb_blocks))
    with nogil, parallel(num_threads=nth):
        e = <double*> malloc(SV_BLOCK * sizeof(double))
        G = <float*> malloc(<size_t> block * m * sizeof(float))
        for b in prange(nb_blocks, schedule="dynamic"):
            r0 = b * block
            nr = min(block, n - r0)
            sgemm("T", "N", &m, &nr, &d, &one, &B[0, 0], &d, &A[r0, 0], &d, &zero, G, &m)
            for i in range(nr):
                for jb in range(n_sv_blocks):
                    j0 = jb * SV_BLOCK
                    j1 = min(j0 + SV_BLOCK, m)
                    kn_rbf_gram_fd(e, G + <size_t> i * m, &bn[0], an[r0 + i], g, j0, j1)
                    for p in range(P):
                        out[r0 + i, p] += kn_dot_d(e, &C[p, j0], j1 - j0)
                    weight[r0 + i] += kn_dot_d(e, &cabs[j0], j1 - j0)
        free(e)
        free(G)
