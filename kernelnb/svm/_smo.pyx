# cython: language_level=3
"""Decomposition (SMO-type) solver for the SVM dual, in the form shared by C-SVC, the L2 soft
margin, the hard margin and epsilon-SVR:

    minimise   f(a) = 1/2 a' Q a + p' a
    subject to y' a = 0,   0 <= a_t <= ub_t,

with Q_ts = y_t y_s K(x_ex[t], x_ex[s]) + [t == s] dadd_t.  Variables t map to examples ex[t]
(the identity for classification; t mod n for regression, where a and a* share a kernel row:
Collobert's thesis ch. 5).

The engine, in the terms of the literature it follows:

* working-set selection of a pair by second-order information (Fan, Chen & Lin 2005, "WSS3"):
  i maximises the violation -y_i G_i over I_up, j minimises -(G-gap)^2 / curvature over I_low;
* the analytic two-variable step (SVMTorch's "enhanced SMO", Collobert's thesis ch. 5);
* stopping when the maximal KKT violation m(a) - M(a) <= tol (LIBSVM's rule);
* shrinking of bound variables whose KKT inequality holds strictly, with the gradient of shrunk
  variables rebuilt from G_bar before the final check on the whole problem ("unshrinking");
* an LRU cache of float32 kernel rows. A miss computes a *block* of rows at once with one BLAS
  GEMM (the missing row plus the most violating uncached variables, which the next iterations are
  likely to ask for), then one fused pass applies the kernel map.  BLAS uses the machine's cores.

* SVMTorch's q-variable working sets (Collobert & Bengio 2001, "SVMTorch: Support Vector Machines
  for Large-Scale Regression Problems", JMLR 1; Collobert's thesis 2004, ch. 5), for problems whose
  rows do not fit in the cache: the most violating variables of I_up and of I_low (all fresh at
  first, then a quarter fresh and the rest kept from the previous working set, free variables
  first, as ThunderSVM keeps half of its own),
  their q rows computed in GEMM blocks, the q-variable sub-problem solved by WSS3 pair steps on the
  cached q x q block, then the gradient of every active variable updated from the q rows.  The
  stopping rule and the shrinking are the pair path's, so both reach the same optimum.

All of it runs without the GIL; the GIL is taken only every ``report_every`` iterations for the
progress callback and to notice Ctrl-C.
"""
import numpy as np
cimport numpy as cnp
from cython.parallel cimport prange
from libc.math cimport exp, expf, fabs, INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from scipy.linalg.cython_blas cimport sgemm

cnp.import_array()

cdef extern from "Python.h":
    int PyErr_CheckSignals()
    void PyErr_Clear()

# The RBF map of a kernel row (kn_rbf_pass, after a GEMM) and the direct evaluation for few
# features (kn_rbf_direct): kernelnb/_rbf_pass.pxd, the one RBF pass of the package (also behind
# kernelnb._kernels.rbf_from_gram in float32).
from kernelnb._rbf_pass cimport kn_rbf_pass, kn_rbf_direct

# Up to this many features, RBF rows are evaluated directly (kn_rbf_direct) instead of by GEMM.
cdef int LOW_D = 16
#: the same bound, for the Python layer (SVC's automatic working-set size)
LOW_D_FEATURES = LOW_D
# A block of kernel rows is split over threads only above this many (roughly) flops: on a busy
# machine a parallel region waits for a descheduled thread, which cost more than small blocks
# (moons, n = 4000, d = 2, blocks of 100 rows: 0.11 s on one thread, 0.40 s on two, under load).
cdef double PARALLEL_WORK = 3e7


def rbf_matrix(float[:, ::1] X, double gamma, int n_threads=1):
    """The n x n RBF kernel matrix exp(-gamma ||x_i - x_j||^2) of the rows of X, in float32.

    Few features (d <= 16): evaluated directly, row by row; otherwise one BLAS product X X'
    (threads as the caller's BLAS settings allow) and the vectorised map.  Diagonal exactly 1.
    """
    cdef int n = X.shape[0], d = X.shape[1], i, nth = max(1, n_threads)
    cdef float g = <float> gamma
    K = np.empty((n, n), dtype=np.float32)
    cdef float[:, ::1] Kv = K
    cdef float[:, ::1] XT
    cdef float[::1] xn
    if n == 0:
        return K
    if <double> n * n * (d + 8) < PARALLEL_WORK:
        nth = 1
    if d <= LOW_D:
        XT = np.ascontiguousarray(np.asarray(X).T)
        with nogil:
            for i in prange(n, num_threads=nth, schedule="static"):
                kn_rbf_direct(&Kv[i, 0], &XT[0, 0], n, d, &X[i, 0], g, 0, n)
                Kv[i, i] = 1.0
        return K
    Xa = np.asarray(X)
    np.matmul(Xa, Xa.T, out=K)
    xn = np.einsum("ij,ij->i", Xa, Xa)
    with nogil:
        for i in prange(n, num_threads=nth, schedule="static"):
            kn_rbf_pass(&Kv[i, 0], &xn[0], xn[i], g, 0, n)
            Kv[i, i] = 1.0
    return K

# Curvature used when a pair's is not positive (non-PSD kernels, duplicated points).
cdef double TAU = 1e-12

# Kernel kinds understood by the row engine, and the status codes of a solve.
cdef enum:
    K_LINEAR = 0
    K_POLY = 1
    K_RBF = 2
    K_PRECOMPUTED = 3
    ST_OPTIMAL = 0
    ST_MAX_ITER = 1
    ST_INTERRUPTED = 2
    ST_CALLBACK = 3

KIND_LINEAR, KIND_POLY, KIND_RBF, KIND_PRECOMPUTED = K_LINEAR, K_POLY, K_RBF, K_PRECOMPUTED
# A working set's sub-problem is solved until its violation is this fraction of the whole
# problem's (or tol): further steps on the same rows gain little before the others' gradient moves.
cdef double INNER_FRACTION = 0.1


cdef inline void _two_variable_step(bint same_label, double Qii, double Qjj, double Qij,
                                    double Gi, double Gj, double Ci, double Cj,
                                    double* ai_io, double* aj_io) noexcept nogil:
    """The analytic solution of the two-variable sub-problem (LIBSVM's form): the unconstrained
    step along the equality constraint, clipped to the boxes [0, Ci] x [0, Cj]. ``Qij`` is the
    signed y_i y_j K_ij; ``ai_io``/``aj_io`` hold the old values and receive the new ones."""
    cdef double ai = ai_io[0], aj = aj_io[0]
    cdef double qc, delta, diff, ssum
    if not same_label:
        qc = Qii + Qjj + 2.0 * Qij
        if qc <= 0:
            qc = TAU
        delta = (-Gi - Gj) / qc
        diff = ai - aj
        ai += delta
        aj += delta
        if diff > 0:
            if aj < 0:
                aj = 0
                ai = diff
        else:
            if ai < 0:
                ai = 0
                aj = -diff
        if diff > Ci - Cj:
            if ai > Ci:
                ai = Ci
                aj = Ci - diff
        else:
            if aj > Cj:
                aj = Cj
                ai = Cj + diff
    else:
        qc = Qii + Qjj - 2.0 * Qij
        if qc <= 0:
            qc = TAU
        delta = (Gi - Gj) / qc
        ssum = ai + aj
        ai -= delta
        aj += delta
        if ssum > Ci:
            if ai > Ci:
                ai = Ci
                aj = ssum - Ci
        else:
            if aj < 0:
                aj = 0
                ai = ssum
        if ssum > Cj:
            if aj > Cj:
                aj = Cj
                ai = ssum - Cj
        else:
            if ai < 0:
                ai = 0
                aj = ssum
    ai_io[0] = ai
    aj_io[0] = aj


cdef inline int _heap_offer(double* hs, int* he, int h, int cap, double sc, int e) noexcept nogil:
    """Keep the ``cap`` largest scores seen in the min-heap (hs, he) of size h; return its new size."""
    cdef int c, ch
    if cap <= 0:
        return h
    if h < cap:
        c = h
        h += 1
        while c > 0 and hs[(c - 1) // 2] > sc:
            hs[c] = hs[(c - 1) // 2]
            he[c] = he[(c - 1) // 2]
            c = (c - 1) // 2
        hs[c] = sc
        he[c] = e
    elif sc > hs[0]:
        c = 0
        while True:
            ch = 2 * c + 1
            if ch >= h:
                break
            if ch + 1 < h and hs[ch + 1] < hs[ch]:
                ch = ch + 1
            if hs[ch] >= sc:
                break
            hs[c] = hs[ch]
            he[c] = he[ch]
            c = ch
        hs[c] = sc
        he[c] = e
    return h


cdef class _Solver:
    # ---- problem --------------------------------------------------------------------------
    cdef int m, n, d
    cdef double[::1] alpha, G, G_bar, p, ub, dadd, QD
    cdef signed char[::1] y
    cdef int[::1] ex
    # ---- kernel rows ----------------------------------------------------------------------
    cdef int kind, degree
    cdef double gamma, coef0
    cdef float[:, ::1] X          # n x d (float32, centred for RBF)
    cdef float[::1] xn            # squared norms of the rows of X (RBF)
    cdef float[:, ::1] XT         # X transposed (d x n), for the direct low-dimension RBF rows
    cdef bint lowd
    cdef int[::1] slot_tmp
    cdef float[:, ::1] Kpre       # precomputed kernel (n x n) or empty
    cdef double[:, ::1] Kpre64    # precomputed kernel in float64 (the exact path) or empty
    cdef bint precomputed, k64
    # ---- cache ----------------------------------------------------------------------------
    cdef int capacity, block, n_cached, n_threads, cur_block
    cdef long useful, wasted
    cdef signed char[::1] pref       # slot holds a prefetched row not used yet
    cdef float[:, ::1] rows       # capacity x n
    cdef int[::1] slot_of         # example -> slot or -1
    cdef int[::1] ex_of           # slot -> example or -1
    cdef int[::1] prv, nxt        # LRU list over slots (head = most recent)
    cdef int head, tail
    cdef float[:, ::1] gbuf       # block x d gathered rows
    cdef float[:, ::1] kbuf       # block x n GEMM output
    cdef int[::1] want            # examples to compute in the next block
    cdef int[::1] mark            # scratch marks over examples
    cdef double[::1] heap_s       # prefetch heap (scores)
    cdef int[::1] heap_e          # prefetch heap (examples)
    cdef public long n_kernel_rows
    # ---- active set -----------------------------------------------------------------------
    cdef int[::1] act
    cdef int active_size
    cdef bint unshrink, shrinking
    # ---- bookkeeping ----------------------------------------------------------------------
    cdef public long n_iter, n_outer
    cdef double last_up, last_low
    # ---- q-variable working sets (SVMTorch) ------------------------------------------------
    cdef int q                    # working-set size; < 4: the pair (SMO) path
    cdef int[::1] ws              # the variables of the current working set
    cdef int[::1] wex             # their examples
    cdef signed char[::1] in_ws   # scratch marks over variables
    cdef double[:, ::1] lQ        # q x q block of Q on the working set
    cdef double[::1] lG, la, lub, hs
    cdef int[::1] he, chg
    cdef signed char[::1] ly
    cdef void** wrow              # cached kernel rows of the working set (float or double)
    cdef int[::1] prev_ws         # the previous working set (kept in part, as ThunderSVM)
    cdef signed char[::1] shrunk  # q path: variables out of the active set
    cdef int n_prev

    def __cinit__(self):
        self.wrow = NULL

    def __dealloc__(self):
        if self.wrow != NULL:
            free(self.wrow)

    def __init__(self, float[:, ::1] X, float[:, ::1] Kpre, int kind, double gamma,
                 double coef0, int degree, signed char[::1] y, int[::1] ex,
                 double[::1] p, double[::1] ub, double[::1] dadd, double[::1] QD,
                 double[::1] alpha0, double cache_mb, int block, bint shrinking,
                 int n_threads, int q=2, object Kpre64=None):
        cdef int t
        self.k64 = Kpre64 is not None
        if self.k64:
            self.Kpre64 = Kpre64
            Kpre = np.zeros((Kpre64.shape[0], 0), dtype=np.float32)
            kind = K_PRECOMPUTED
        self.q = q if q >= 4 else 2
        if self.q >= 4:
            self.ws = np.empty(self.q, dtype=np.int32)
            self.wex = np.empty(self.q, dtype=np.int32)
            self.in_ws = np.zeros(y.shape[0], dtype=np.int8)
            self.lQ = np.empty((self.q, self.q), dtype=np.float64)
            self.lG = np.empty(self.q)
            self.la = np.empty(self.q)
            self.lub = np.empty(self.q)
            self.hs = np.empty(self.q)
            self.he = np.empty(self.q, dtype=np.int32)
            self.chg = np.empty(self.q, dtype=np.int32)
            self.ly = np.empty(self.q, dtype=np.int8)
            self.wrow = <void**> malloc(self.q * sizeof(void*))
            self.prev_ws = np.empty(self.q, dtype=np.int32)
            self.shrunk = np.zeros(y.shape[0], dtype=np.int8)
            self.n_prev = 0
        self.m = y.shape[0]
        self.kind = kind
        self.precomputed = kind == K_PRECOMPUTED
        if self.precomputed:
            self.n = Kpre.shape[0]
            self.d = 0
            self.Kpre = Kpre
        else:
            self.n = X.shape[0]
            self.d = X.shape[1]
            self.X = X
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.y = y
        self.ex = ex
        self.p = p
        self.ub = ub
        self.dadd = dadd
        self.QD = QD
        self.alpha = np.array(alpha0, dtype=np.float64)
        self.G = np.zeros(self.m)
        self.G_bar = np.zeros(self.m)
        self.shrinking = shrinking
        self.n_threads = max(1, n_threads)
        self.unshrink = False
        self.n_iter = 0
        self.n_outer = 0
        self.n_kernel_rows = 0
        self.last_up = 0.0
        self.last_low = 0.0
        self.act = np.arange(self.m, dtype=np.int32)
        self.active_size = self.m
        self.mark = np.zeros(self.n, dtype=np.int32)

        if not self.precomputed:
            if kind == K_RBF:
                self.xn = np.einsum("ij,ij->i", np.asarray(X), np.asarray(X)).astype(np.float32)
            self.lowd = kind == K_RBF and self.d <= LOW_D
            if self.lowd:
                self.XT = np.ascontiguousarray(np.asarray(X).T)
            cap = int(cache_mb * 1024.0 * 1024.0 / (4.0 * max(self.n, 1)))
            block = max(1, min(block, self.n))
            cap = max(cap, 2 * block + 2)
            if self.q >= 4:
                # the working set's rows must be cached together, with room for one block
                cap = max(cap, self.q + block)
            cap = min(cap, self.n)
            if cap < 2 * block + 2:
                block = max(1, (cap - 2) // 2)
            self.capacity = cap
            self.block = block
            self.cur_block = block
            self.useful = 0
            self.wasted = 0
            self.pref = np.zeros(cap, dtype=np.int8)
            self.rows = np.empty((cap, self.n), dtype=np.float32)
            self.slot_of = np.full(self.n, -1, dtype=np.int32)
            self.ex_of = np.full(cap, -1, dtype=np.int32)
            self.prv = np.full(cap, -1, dtype=np.int32)
            self.nxt = np.full(cap, -1, dtype=np.int32)
            self.head = -1
            self.tail = -1
            self.n_cached = 0
            self.gbuf = np.empty((block, max(self.d, 1)), dtype=np.float32)
            self.kbuf = np.empty((block, self.n), dtype=np.float32)
            self.want = np.empty(block, dtype=np.int32)
            self.heap_s = np.empty(block, dtype=np.float64)
            self.heap_e = np.empty(block, dtype=np.int32)
            self.slot_tmp = np.empty(block, dtype=np.int32)

    # ======================================================================================
    # Kernel rows and their cache
    # ======================================================================================
    cdef inline void _lru_unlink(self, int s) noexcept nogil:
        if self.prv[s] >= 0:
            self.nxt[self.prv[s]] = self.nxt[s]
        else:
            self.head = self.nxt[s]
        if self.nxt[s] >= 0:
            self.prv[self.nxt[s]] = self.prv[s]
        else:
            self.tail = self.prv[s]
        self.prv[s] = -1
        self.nxt[s] = -1

    cdef inline void _lru_push_front(self, int s) noexcept nogil:
        self.prv[s] = -1
        self.nxt[s] = self.head
        if self.head >= 0:
            self.prv[self.head] = s
        self.head = s
        if self.tail < 0:
            self.tail = s

    cdef int _take_slot(self) noexcept nogil:
        """A free slot, evicting the least recently used row when the cache is full."""
        cdef int s
        if self.n_cached < self.capacity:
            s = self.n_cached
            self.n_cached += 1
        else:
            s = self.tail
            self._lru_unlink(s)
            self.slot_of[self.ex_of[s]] = -1
            if self.pref[s]:
                self.wasted += 1
        self.pref[s] = 0
        return s

    cdef void _compute_block(self, int count, int n_requested) noexcept nogil:
        """Compute the kernel rows of the examples want[0:count] and store them in the cache.

        One OpenMP region: each thread multiplies the gathered rows by its own slice of X with a
        single-threaded GEMM (the Python layer limits BLAS to one thread during a solve) and
        applies the kernel map to that slice, so no second thread pool competes for the cores.
        """
        cdef int r, j, s, e, n = self.n, d = self.d, nth = self.n_threads, th, j0, j1, mj
        cdef float one = 1.0, zero = 0.0
        cdef float g2 = <float> self.gamma, c0 = <float> self.coef0
        cdef float* kb
        cdef float v, acc
        cdef int k
        if <double> count * n * (d + 8) < PARALLEL_WORK:
            nth = 1
        if self.lowd:
            # Few features: each row straight into its cache slot, no GEMM and no copy.
            for r in range(count):
                e = self.want[r]
                s = self._take_slot()
                self.slot_of[e] = s
                self.ex_of[s] = e
                self.pref[s] = 1 if r >= n_requested else 0
                self._lru_push_front(s)
                self.slot_tmp[r] = s
            for th in prange(nth, num_threads=nth, schedule="static"):
                j0 = (n * th) // nth
                j1 = (n * (th + 1)) // nth
                for r in range(count):
                    kn_rbf_direct(&self.rows[self.slot_tmp[r], 0], &self.XT[0, 0], n, d,
                                  &self.X[self.want[r], 0], g2, j0, j1)
                    e = self.want[r]
                    if e >= j0 and e < j1:
                        self.rows[self.slot_tmp[r], e] = 1.0
            self.n_kernel_rows += count
            return
        for r in range(count):
            memcpy(&self.gbuf[r, 0], &self.X[self.want[r], 0], d * sizeof(float))
        for th in prange(nth, num_threads=nth, schedule="static"):
            j0 = (n * th) // nth
            j1 = (n * (th + 1)) // nth
            mj = j1 - j0
            # kbuf[:, j0:j1] (count x mj, row stride n) = gbuf (count x d) . X[j0:j1]'.
            # Column-major view: kbuf' block (mj x count, ld n) = X[j0:j1] (as d x mj)^T . gbuf'.
            if mj > 0:
                sgemm("T", "N", &mj, &count, &d, &one, &self.X[j0, 0], &d, &self.gbuf[0, 0], &d,
                      &zero, &self.kbuf[0, j0], &n)
                for r in range(count):
                    kb = &self.kbuf[r, 0]
                    if self.kind == K_RBF:
                        e = self.want[r]
                        kn_rbf_pass(kb, &self.xn[0], self.xn[e], g2, j0, j1)
                        if e >= j0 and e < j1:
                            kb[e] = 1.0
                    elif self.kind == K_POLY:
                        for j in range(j0, j1):
                            v = g2 * kb[j] + c0
                            acc = 1.0
                            for k in range(self.degree):
                                acc = acc * v
                            kb[j] = acc
        self.n_kernel_rows += count
        for r in range(count):
            e = self.want[r]
            s = self._take_slot()
            memcpy(&self.rows[s, 0], &self.kbuf[r, 0], n * sizeof(float))
            self.slot_of[e] = s
            self.ex_of[s] = e
            self.pref[s] = 1 if r >= n_requested else 0
            self._lru_push_front(s)

    cdef int _pick_prefetch(self, int first) noexcept nogil:
        """Fill want[] with `first` then the most violating uncached examples; return the count.

        Scores follow the selection rule: -y_t G_t for t in I_up, y_t G_t for t in I_low
        (the larger, the likelier t is chosen soon).  A min-heap keeps the best cur_block - 1.
        """
        cdef int k, t, e, h = 0, cap, c, ch
        self._adapt_block()
        cap = self.cur_block - 1
        cdef double sc, su, sl, ts
        cdef int te
        self.want[0] = first
        if cap <= 0:
            return 1
        self.mark[first] = 1
        for k in range(self.active_size):
            t = self.act[k]
            e = self.ex[t]
            if self.slot_of[e] >= 0 or self.mark[e]:
                continue
            su = -INFINITY
            sl = -INFINITY
            if self.y[t] > 0:
                if self.alpha[t] < self.ub[t]:
                    su = -self.G[t]
                if self.alpha[t] > 0:
                    sl = self.G[t]
            else:
                if self.alpha[t] > 0:
                    su = self.G[t]
                if self.alpha[t] < self.ub[t]:
                    sl = -self.G[t]
            sc = su if su > sl else sl
            if sc == -INFINITY:
                continue
            if h < cap:
                # push and sift up
                c = h
                h += 1
                while c > 0 and self.heap_s[(c - 1) // 2] > sc:
                    self.heap_s[c] = self.heap_s[(c - 1) // 2]
                    self.heap_e[c] = self.heap_e[(c - 1) // 2]
                    c = (c - 1) // 2
                self.heap_s[c] = sc
                self.heap_e[c] = e
                self.mark[e] = 1
            elif sc > self.heap_s[0]:
                self.mark[self.heap_e[0]] = 0
                self.mark[e] = 1
                # replace root and sift down
                c = 0
                while True:
                    ch = 2 * c + 1
                    if ch >= h:
                        break
                    if ch + 1 < h and self.heap_s[ch + 1] < self.heap_s[ch]:
                        ch = ch + 1
                    if self.heap_s[ch] >= sc:
                        break
                    self.heap_s[c] = self.heap_s[ch]
                    self.heap_e[c] = self.heap_e[ch]
                    c = ch
                self.heap_s[c] = sc
                self.heap_e[c] = e
        for k in range(h):
            self.want[k + 1] = self.heap_e[k]
            self.mark[self.heap_e[k]] = 0
        self.mark[first] = 0
        return h + 1

    cdef void _adapt_block(self) noexcept nogil:
        """Size the prefetch to the evidence: when most prefetched rows are evicted unused (a
        cache smaller than the rows the solver cycles through), halve the block, down to the
        single missing row as LIBSVM; when most are used, double it back.  A cache that holds
        every row never evicts, so it keeps the full block."""
        cdef long seen = self.useful + self.wasted
        if seen < 2 * self.cur_block:
            return
        if self.useful * 10 < 3 * seen:
            self.cur_block = max(1, self.cur_block // 2)
        elif self.useful * 10 > 7 * seen and self.cur_block < self.block:
            self.cur_block = min(self.block, self.cur_block * 2)
        self.useful = 0
        self.wasted = 0

    cdef inline double _kv(self, void* r, int j) noexcept nogil:
        """Entry j of a kernel row given by row(): float32, or float64 on the exact path."""
        if self.k64:
            return (<double*> r)[j]
        return (<float*> r)[j]

    cdef void* row(self, int e) noexcept nogil:
        """Kernel row K(x_e, x_.) of length n (read it with _kv), from the cache (computed in a
        block on a miss) or from the precomputed matrix."""
        cdef int s, count
        if self.k64:
            return <void*> &self.Kpre64[e, 0]
        if self.precomputed:
            return <void*> &self.Kpre[e, 0]
        s = self.slot_of[e]
        if s < 0:
            count = self._pick_prefetch(e)
            self._compute_block(count, 1)
            s = self.slot_of[e]
        else:
            if self.pref[s]:
                self.useful += 1
                self.pref[s] = 0
            self._lru_unlink(s)
            self._lru_push_front(s)
        return <void*> &self.rows[s, 0]

    cdef void _ensure_rows(self, int* exs, int count) noexcept nogil:
        """Compute (in blocks) the rows of the listed examples that are not cached yet.

        Used where many rows are needed in a known order (initial gradient, reconstruction).
        Rows computed here may be evicted by later ones when the cache is small; callers then
        get them again through row(), which recomputes.
        """
        cdef int k = 0, c = 0, e
        if self.precomputed:
            return
        while k < count:
            e = exs[k]
            k += 1
            if self.slot_of[e] >= 0 or self.mark[e]:
                continue
            self.mark[e] = 1
            self.want[c] = e
            c += 1
            if c == self.block:
                self._unmark_want(c)
                self._compute_block(c, c)
                c = 0
        if c > 0:
            self._unmark_want(c)
            self._compute_block(c, c)

    cdef inline void _unmark_want(self, int c) noexcept nogil:
        cdef int r
        for r in range(c):
            self.mark[self.want[r]] = 0

    # ======================================================================================
    # Gradient
    # ======================================================================================
    cdef inline bint _is_upper(self, int t) noexcept nogil:
        return self.alpha[t] >= self.ub[t]

    cdef inline bint _is_lower(self, int t) noexcept nogil:
        return self.alpha[t] <= 0

    cdef void _add_row_to(self, int j, double coef, double[::1] target, bint only_active) noexcept nogil:
        """target[t] += coef * Q_jt for all t (or the active ones)."""
        cdef void* Kj = self.row(self.ex[j])
        cdef double cy = coef * self.y[j]
        cdef int k, t
        if only_active:
            for k in range(self.active_size):
                t = self.act[k]
                target[t] += cy * self.y[t] * self._kv(Kj, self.ex[t])
        else:
            for t in range(self.m):
                target[t] += cy * self.y[t] * self._kv(Kj, self.ex[t])
        target[j] += coef * self.dadd[j]

    cdef void init_gradient(self) noexcept nogil:
        """G = Q a + p and G_bar from a warm start, one block of rows at a time (a block is
        used while it is cached, so a cache smaller than the support does not thrash)."""
        cdef int t, u, c = 0, t0 = 0
        cdef int chunk = self.block if not self.precomputed else self.m
        cdef int* lst = <int*> malloc(max(self.m, 1) * sizeof(int))
        for t in range(self.m):
            self.G[t] = self.p[t]
            self.G_bar[t] = 0.0
        for t in range(self.m + 1):
            if t < self.m and self.alpha[t] > 0:
                lst[c] = self.ex[t]
                c += 1
            if c == chunk or (t == self.m and c > 0):
                self._ensure_rows(lst, c)
                for u in range(t0, min(t + 1, self.m)):
                    if self.alpha[u] > 0:
                        self._add_row_to(u, self.alpha[u], self.G, False)
                        if self._is_upper(u):
                            self._add_row_to(u, self.ub[u], self.G_bar, False)
                t0 = t + 1
                c = 0
        free(lst)

    cdef void reconstruct_gradient(self) noexcept nogil:
        """G_t = G_bar_t + p_t + sum over free j of a_j Q_jt, for the shrunk variables t."""
        cdef int k, t, j, c = 0
        cdef void* Kj
        cdef double cy
        if self.active_size == self.m:
            return
        cdef signed char* inactive = <signed char*> malloc(self.m)
        cdef int* lst = <int*> malloc(self.m * sizeof(int))
        for t in range(self.m):
            inactive[t] = 1
        for k in range(self.active_size):
            inactive[self.act[k]] = 0
        for t in range(self.m):
            if inactive[t]:
                self.G[t] = self.G_bar[t] + self.p[t]
        # Free variables in blocks of rows: each block is computed, then used while cached.
        cdef int chunk = self.block if not self.precomputed else self.m, k0 = 0, kk
        for k in range(self.active_size + 1):
            if k < self.active_size:
                j = self.act[k]
                if not self._is_upper(j) and not self._is_lower(j):
                    lst[c] = self.ex[j]
                    c += 1
            if c == chunk or (k == self.active_size and c > 0):
                self._ensure_rows(lst, c)
                for kk in range(k0, min(k + 1, self.active_size)):
                    j = self.act[kk]
                    if self._is_upper(j) or self._is_lower(j):
                        continue
                    Kj = self.row(self.ex[j])
                    cy = self.alpha[j] * self.y[j]
                    for t in range(self.m):
                        if inactive[t]:
                            self.G[t] += cy * self.y[t] * self._kv(Kj, self.ex[t])
                k0 = k + 1
                c = 0
        # The whole problem is active again, in index order.
        for t in range(self.m):
            self.act[t] = t
        if self.q >= 4:
            for t in range(self.m):
                self.shrunk[t] = 0
        self.active_size = self.m
        free(inactive)
        free(lst)

    # ======================================================================================
    # Working set, step, shrinking
    # ======================================================================================
    cdef int select(self, double tol, int* out_i, int* out_j, double* gap) noexcept nogil:
        """WSS3 on the active set.  Returns 1 when the maximal violation is <= tol."""
        cdef double Gmax = -INFINITY, Gmax2 = -INFINITY, obj_min = INFINITY
        cdef double gd, qc, od, yiKit
        cdef int k, t, i = -1, jmin = -1
        cdef void* Ki
        cdef signed char yt
        for k in range(self.active_size):
            t = self.act[k]
            if self.y[t] > 0:
                if self.alpha[t] < self.ub[t] and -self.G[t] >= Gmax:
                    Gmax = -self.G[t]
                    i = t
            else:
                if self.alpha[t] > 0 and self.G[t] >= Gmax:
                    Gmax = self.G[t]
                    i = t
        if i < 0:
            gap[0] = 0.0
            return 1
        Ki = self.row(self.ex[i])
        for k in range(self.active_size):
            t = self.act[k]
            yt = self.y[t]
            # y_i Q_it = y_t K_it  (no diagonal term: t != i whenever it matters below)
            yiKit = yt * self._kv(Ki, self.ex[t])
            if yt > 0:
                if self.alpha[t] > 0:
                    gd = Gmax + self.G[t]
                    if self.G[t] >= Gmax2:
                        Gmax2 = self.G[t]
                    if gd > 0:
                        qc = self.QD[i] + self.QD[t] - 2.0 * yiKit
                        od = -(gd * gd) / (qc if qc > 0 else TAU)
                        if od <= obj_min:
                            jmin = t
                            obj_min = od
            else:
                if self.alpha[t] < self.ub[t]:
                    gd = Gmax - self.G[t]
                    if -self.G[t] >= Gmax2:
                        Gmax2 = -self.G[t]
                    if gd > 0:
                        qc = self.QD[i] + self.QD[t] + 2.0 * yiKit
                        od = -(gd * gd) / (qc if qc > 0 else TAU)
                        if od <= obj_min:
                            jmin = t
                            obj_min = od
        gap[0] = Gmax + Gmax2
        self.last_up = Gmax
        self.last_low = Gmax2
        if Gmax + Gmax2 < tol or jmin < 0:
            return 1
        out_i[0] = i
        out_j[0] = jmin
        return 0

    cdef void step(self, int i, int j) noexcept nogil:
        """Analytic solution of the two-variable sub-problem, then the gradient updates."""
        cdef void* Ki = self.row(self.ex[i])
        cdef void* Kj = self.row(self.ex[j])
        cdef float* Ki32 = <float*> Ki
        cdef float* Kj32 = <float*> Kj
        cdef double* Ki64 = <double*> Ki
        cdef double* Kj64 = <double*> Kj
        # Ki may have been evicted by the fetch of Kj only if capacity < 2: excluded at init.
        cdef double Ci = self.ub[i], Cj = self.ub[j]
        cdef double ai_old = self.alpha[i], aj_old = self.alpha[j]
        cdef double ai = ai_old, aj = aj_old
        cdef double Qij = self.y[i] * self.y[j] * self._kv(Ki, self.ex[j])
        cdef double dai, daj, cyi, cyj
        cdef int k, t
        cdef bint ui, uj
        _two_variable_step(self.y[i] == self.y[j], self.QD[i], self.QD[j], Qij, self.G[i],
                           self.G[j], Ci, Cj, &ai, &aj)
        self.alpha[i] = ai
        self.alpha[j] = aj
        dai = ai - ai_old
        daj = aj - aj_old
        cyi = dai * self.y[i]
        cyj = daj * self.y[j]
        if self.k64:
            for k in range(self.active_size):
                t = self.act[k]
                self.G[t] += self.y[t] * (cyi * Ki64[self.ex[t]] + cyj * Kj64[self.ex[t]])
        else:
            for k in range(self.active_size):
                t = self.act[k]
                self.G[t] += self.y[t] * (cyi * Ki32[self.ex[t]] + cyj * Kj32[self.ex[t]])
        self.G[i] += dai * self.dadd[i]
        self.G[j] += daj * self.dadd[j]
        # G_bar follows the variables that enter or leave their upper bound.
        ui = ai_old >= Ci
        uj = aj_old >= Cj
        if ui != self._is_upper(i):
            self._add_row_to(i, Ci if not ui else -Ci, self.G_bar, False)
        if uj != self._is_upper(j):
            self._add_row_to(j, Cj if not uj else -Cj, self.G_bar, False)

    cdef bint _be_shrunk(self, int t, double Gmax1, double Gmax2) noexcept nogil:
        if self._is_upper(t):
            if self.y[t] > 0:
                return -self.G[t] > Gmax1
            return -self.G[t] > Gmax2
        elif self._is_lower(t):
            if self.y[t] > 0:
                return self.G[t] > Gmax2
            return self.G[t] > Gmax1
        return False

    cdef void shrink(self, double tol) noexcept nogil:
        cdef double Gmax1 = -INFINITY, Gmax2 = -INFINITY
        cdef int k, t, w
        for k in range(self.active_size):
            t = self.act[k]
            if self.y[t] > 0:
                if not self._is_upper(t) and -self.G[t] >= Gmax1:
                    Gmax1 = -self.G[t]
                if not self._is_lower(t) and self.G[t] >= Gmax2:
                    Gmax2 = self.G[t]
            else:
                if not self._is_upper(t) and -self.G[t] >= Gmax2:
                    Gmax2 = -self.G[t]
                if not self._is_lower(t) and self.G[t] >= Gmax1:
                    Gmax1 = self.G[t]
        if not self.unshrink and Gmax1 + Gmax2 <= tol * 10:
            self.unshrink = True
            self.reconstruct_gradient()
        # Stable compaction keeps act sorted, so the loops read memory in order.
        w = 0
        for k in range(self.active_size):
            t = self.act[k]
            if not self._be_shrunk(t, Gmax1, Gmax2):
                self.act[w] = t
                w += 1
            elif self.q >= 4:
                self.shrunk[t] = 1     # a kept working-set variable must be active
        self.active_size = w

    cdef double objective(self) noexcept nogil:
        cdef double v = 0.0
        cdef int t
        for t in range(self.m):
            v += self.alpha[t] * (self.G[t] + self.p[t])
        return 0.5 * v

    cdef double rho(self) noexcept nogil:
        """Threshold rho (decision = sum - rho): mean of -y... over free variables (LIBSVM)."""
        cdef double ub = INFINITY, lb = -INFINITY, s = 0.0, yG
        cdef int t, nfree = 0
        for t in range(self.m):
            yG = self.y[t] * self.G[t]
            if self._is_upper(t):
                if self.y[t] < 0:
                    ub = min(ub, yG)
                else:
                    lb = max(lb, yG)
            elif self._is_lower(t):
                if self.y[t] > 0:
                    ub = min(ub, yG)
                else:
                    lb = max(lb, yG)
            else:
                nfree += 1
                s += yG
        if nfree > 0:
            return s / nfree
        if ub == INFINITY and lb == -INFINITY:
            return 0.0
        if ub == INFINITY:
            return lb
        if lb == -INFINITY:
            return ub
        return 0.5 * (ub + lb)

    # ======================================================================================
    # q-variable working sets (SVMTorch; Collobert & Bengio 2001, Collobert's thesis ch. 5)
    # ======================================================================================
    cdef int _select_ws(self, double tol, double* gap) noexcept nogil:
        """Fill ws[] with SVMTorch's working set and return its size (0: optimal on the active set).

        The fresh part: half of it the variables of I_up with the largest -y_t G_t (the steepest
        feasible direction's "p = -1" half), then, among the others, the variables of I_low with
        the largest y_t G_t.  It is the whole working set at first, a quarter of it later, the
        rest kept from the previous working set (active variables only, free ones first).
        The pair (i, j) that WSS3 would start from is always in it, so the sub-problem's
        violation is the whole (active) problem's.

        Measured on Fashion-MNIST n = 30k, 200 MB (q = 872): all fresh every time, 2,700+
        sub-problems at q = 256-512; half kept 58 sub-problems, 20,431 rows, 29 s; three
        quarters kept 64, 16,506 rows, 26 s; seven eighths kept 86, 16,183 rows, 29 s.
        """
        cdef int k, t, h = 0, c = 0, a, fresh = self.q if self.n_prev == 0 else max(4, self.q // 4)
        cdef int half = fresh // 2
        cdef double Gmax = -INFINITY, Gmax2 = -INFINITY, su, sl
        cdef double* hs = &self.hs[0]
        cdef int* he = &self.he[0]
        for k in range(self.active_size):
            t = self.act[k]
            su = -INFINITY
            sl = -INFINITY
            if self.y[t] > 0:
                if self.alpha[t] < self.ub[t]:
                    su = -self.G[t]
                if self.alpha[t] > 0:
                    sl = self.G[t]
            else:
                if self.alpha[t] > 0:
                    su = self.G[t]
                if self.alpha[t] < self.ub[t]:
                    sl = -self.G[t]
            if su > Gmax:
                Gmax = su
            if sl > Gmax2:
                Gmax2 = sl
            if su > -INFINITY:
                h = _heap_offer(hs, he, h, half, su, t)
        self.last_up = Gmax
        self.last_low = Gmax2
        if Gmax == -INFINITY or Gmax2 == -INFINITY:
            gap[0] = 0.0
            return 0
        gap[0] = Gmax + Gmax2
        if Gmax + Gmax2 < tol:
            return 0
        for k in range(h):
            self.ws[c] = he[k]
            self.in_ws[he[k]] = 1
            c += 1
        h = 0
        for k in range(self.active_size):
            t = self.act[k]
            if self.in_ws[t]:
                continue
            if self.y[t] > 0:
                if self.alpha[t] <= 0:
                    continue
                sl = self.G[t]
            else:
                if self.alpha[t] >= self.ub[t]:
                    continue
                sl = -self.G[t]
            h = _heap_offer(hs, he, h, fresh - c, sl, t)
        for k in range(h):
            self.ws[c] = he[k]
            self.in_ws[he[k]] = 1
            c += 1
        # The rest from the previous working set, free variables first: their rows are cached
        # and SMO's steps mostly move free variables (ThunderSVM keeps half of its working set
        # the same way).  Without this, a q below the number of free support vectors makes
        # the selection cycle through them in thousands of short sub-problems.
        for a in range(2):
            for k in range(self.n_prev):
                if c >= self.q:
                    break
                t = self.prev_ws[k]
                if self.in_ws[t] or self.shrunk[t]:
                    continue
                if (a == 0) != (self.alpha[t] > 0 and self.alpha[t] < self.ub[t]):
                    continue
                self.ws[c] = t
                self.in_ws[t] = 1
                c += 1
        for k in range(c):
            self.in_ws[self.ws[k]] = 0
            self.prev_ws[k] = self.ws[k]
        self.n_prev = c
        return c

    cdef void _fetch_ws_rows(self, int c) noexcept nogil:
        """Point wrow[] at the kernel rows of the working set, computing the missing ones in
        GEMM blocks.  Cached rows are touched first, so the misses' evictions never take them
        (the cache holds at least q + block rows)."""
        cdef int a, e, s
        for a in range(c):
            e = self.ex[self.ws[a]]
            self.wex[a] = e
            if not self.precomputed:
                s = self.slot_of[e]
                if s >= 0:
                    self._lru_unlink(s)
                    self._lru_push_front(s)
        self._ensure_rows(&self.wex[0], c)
        for a in range(c):
            self.wrow[a] = self.row(self.wex[a])

    cdef long _solve_ws(self, int c, double eps, long max_inner) noexcept nogil:
        """Solve the sub-problem on the working set by SMO steps (WSS3 pairs, the analytic
        two-variable step) on the cached c x c block of Q, until its maximal violation is below
        eps or after max_inner steps.  Returns the number of steps; la[] holds the new alphas."""
        cdef int a, b, i, j, t
        cdef void* Ka
        cdef double Gmax, Gmax2, obj_min, gd, qc, od, yQ
        cdef double ai, aj, ai_old, aj_old, Ci, Cj, Qij, dai, daj
        cdef long it = 0
        for a in range(c):
            t = self.ws[a]
            self.ly[a] = self.y[t]
            self.la[a] = self.alpha[t]
            self.lG[a] = self.G[t]
            self.lub[a] = self.ub[t]
        for a in range(c):
            Ka = self.wrow[a]
            for b in range(c):
                self.lQ[a, b] = self.ly[a] * self.ly[b] * self._kv(Ka, self.wex[b])
            self.lQ[a, a] = self.QD[self.ws[a]]
        while it < max_inner:
            Gmax = -INFINITY
            Gmax2 = -INFINITY
            obj_min = INFINITY
            i = -1
            j = -1
            for a in range(c):
                if self.ly[a] > 0:
                    if self.la[a] < self.lub[a] and -self.lG[a] >= Gmax:
                        Gmax = -self.lG[a]
                        i = a
                elif self.la[a] > 0 and self.lG[a] >= Gmax:
                    Gmax = self.lG[a]
                    i = a
            if i < 0:
                break
            for b in range(c):
                yQ = self.ly[i] * self.lQ[i, b]     # y_b K_ib off the diagonal
                if self.ly[b] > 0:
                    if self.la[b] > 0:
                        gd = Gmax + self.lG[b]
                        if self.lG[b] >= Gmax2:
                            Gmax2 = self.lG[b]
                        if gd > 0 and b != i:
                            qc = self.lQ[i, i] + self.lQ[b, b] - 2.0 * yQ
                            od = -(gd * gd) / (qc if qc > 0 else TAU)
                            if od <= obj_min:
                                j = b
                                obj_min = od
                else:
                    if self.la[b] < self.lub[b]:
                        gd = Gmax - self.lG[b]
                        if -self.lG[b] >= Gmax2:
                            Gmax2 = -self.lG[b]
                        if gd > 0 and b != i:
                            qc = self.lQ[i, i] + self.lQ[b, b] + 2.0 * yQ
                            od = -(gd * gd) / (qc if qc > 0 else TAU)
                            if od <= obj_min:
                                j = b
                                obj_min = od
            if Gmax + Gmax2 < eps or j < 0:
                break
            # the analytic two-variable step, on the local block
            Ci = self.lub[i]
            Cj = self.lub[j]
            ai_old = self.la[i]
            aj_old = self.la[j]
            ai = ai_old
            aj = aj_old
            Qij = self.lQ[i, j]
            _two_variable_step(self.ly[i] == self.ly[j], self.lQ[i, i], self.lQ[j, j], Qij,
                               self.lG[i], self.lG[j], Ci, Cj, &ai, &aj)
            self.la[i] = ai
            self.la[j] = aj
            dai = ai - ai_old
            daj = aj - aj_old
            for b in range(c):
                self.lG[b] += self.lQ[i, b] * dai + self.lQ[j, b] * daj
            it += 1
        return it

    cdef void _apply_ws(self, int c) noexcept nogil:
        """Move the working set to its new alphas: G over the active set with the q cached rows
        (threads split the active set), G_bar for the variables that reach or leave their upper
        bound, then the alphas themselves."""
        cdef int a, t, k, nchg = 0, nth = self.n_threads, th, k0, k1
        cdef double cy, da, coef
        cdef void* Ka
        cdef float* Ka32
        cdef double* Ka64
        cdef bint was_up, now_up
        for a in range(c):
            t = self.ws[a]
            if self.la[a] != self.alpha[t]:
                self.chg[nchg] = a
                nchg += 1
        if nchg == 0:
            return
        if self.active_size < 8192:
            nth = 1
        for th in prange(nth, num_threads=nth, schedule="static"):
            k0 = (self.active_size * th) // nth
            k1 = (self.active_size * (th + 1)) // nth
            for a in range(nchg):
                cy = (self.la[self.chg[a]] - self.alpha[self.ws[self.chg[a]]]) * self.ly[self.chg[a]]
                if self.k64:
                    Ka64 = <double*> self.wrow[self.chg[a]]
                    for k in range(k0, k1):
                        t = self.act[k]
                        self.G[t] += cy * self.y[t] * Ka64[self.ex[t]]
                else:
                    Ka32 = <float*> self.wrow[self.chg[a]]
                    for k in range(k0, k1):
                        t = self.act[k]
                        self.G[t] += cy * self.y[t] * Ka32[self.ex[t]]
        for k in range(nchg):
            a = self.chg[k]
            t = self.ws[a]
            da = self.la[a] - self.alpha[t]
            self.G[t] += da * self.dadd[t]
            was_up = self.alpha[t] >= self.ub[t]
            now_up = self.la[a] >= self.ub[t]
            if was_up != now_up:
                Ka = self.wrow[a]
                coef = (self.ub[t] if now_up else -self.ub[t]) * self.y[t]
                for t in range(self.m):
                    self.G_bar[t] += coef * self.y[t] * self._kv(Ka, self.ex[t])
                t = self.ws[a]
                self.G_bar[t] += (self.ub[t] if now_up else -self.ub[t]) * self.dadd[t]
            self.alpha[t] = self.la[a]

    # ======================================================================================
    # Main loop
    # ======================================================================================
    def solve(self, double tol, long max_iter, object callback, long report_every):
        cdef int i = 0, j = 0, r
        cdef long counter
        cdef double gap = INFINITY
        cdef int status = ST_OPTIMAL
        cdef bint stop_cb = False, interrupted = False
        cdef long next_report = report_every
        cdef int c
        cdef long it, cap
        with nogil:
            self.init_gradient()
            counter = min(self.m, 1000) + 1
            while self.q >= 4:
                # SVMTorch's loop: a working set of q variables, its rows in GEMM blocks, its
                # sub-problem solved on the cached block, then G for every active variable.
                if max_iter >= 0 and self.n_iter >= max_iter:
                    status = ST_MAX_ITER
                    break
                if counter <= 0:
                    counter = min(self.m, 1000)
                    if self.shrinking:
                        self.shrink(tol)
                c = self._select_ws(tol, &gap)
                if c == 0:
                    # Optimal on the active set: check the whole problem.
                    self.reconstruct_gradient()
                    c = self._select_ws(tol, &gap)
                    if c == 0:
                        break
                    counter = 0
                self._fetch_ws_rows(c)
                # Each sub-problem lowers its violation tenfold (or to tol), as ThunderSVM;
                # the steps are capped so that progress reports fall on their iterations.
                cap = max(1000, 50 * <long> c)
                cap = min(cap, next_report - self.n_iter)
                if max_iter >= 0:
                    cap = min(cap, max_iter - self.n_iter)
                it = self._solve_ws(c, max(tol, INNER_FRACTION * gap), cap)
                self.n_outer += 1
                self._apply_ws(c)
                if it == 0:
                    # Not expected (the sub-problem holds the maximal violating pair), but a
                    # rounding corner must not loop: one ordinary pair step instead.
                    if self.select(tol, &i, &j, &gap) != 0:
                        break
                    self.step(i, j)
                    it = 1
                self.n_iter += it
                counter -= it
                if self.n_iter >= next_report:
                    next_report = self.n_iter + report_every
                    with gil:
                        if PyErr_CheckSignals() != 0:
                            PyErr_Clear()
                            interrupted = True
                        elif callback is not None:
                            if callback(int(self.n_iter), float(gap), float(self.objective())) is False:
                                stop_cb = True
                    if interrupted:
                        status = ST_INTERRUPTED
                        break
                    if stop_cb:
                        status = ST_CALLBACK
                        break
            while self.q < 4:
                if max_iter >= 0 and self.n_iter >= max_iter:
                    status = ST_MAX_ITER
                    break
                counter -= 1
                if counter == 0:
                    counter = min(self.m, 1000)
                    if self.shrinking:
                        self.shrink(tol)
                r = self.select(tol, &i, &j, &gap)
                if r != 0:
                    # Optimal on the active set: check the whole problem.
                    self.reconstruct_gradient()
                    r = self.select(tol, &i, &j, &gap)
                    if r != 0:
                        break
                    counter = 1
                self.step(i, j)
                self.n_iter += 1
                if self.n_iter >= next_report:
                    next_report = self.n_iter + report_every
                    with gil:
                        if PyErr_CheckSignals() != 0:
                            PyErr_Clear()
                            interrupted = True
                        elif callback is not None:
                            if callback(int(self.n_iter), float(gap), float(self.objective())) is False:
                                stop_cb = True
                    if interrupted:
                        status = ST_INTERRUPTED
                        break
                    if stop_cb:
                        status = ST_CALLBACK
                        break
            if status != ST_OPTIMAL:
                self.reconstruct_gradient()
        return {
            "alpha": np.asarray(self.alpha).copy(),
            "G": np.asarray(self.G).copy(),
            "rho": self.rho(),
            "objective": self.objective(),
            "n_iter": int(self.n_iter),
            "status": status,
            "gap": float(gap),
            "n_kernel_rows": int(self.n_kernel_rows),
            "n_outer": int(self.n_outer),
        }


def solve_dual(X, Kpre, int kind, double gamma, double coef0, int degree,
               y, ex, p, ub, dadd, QD, alpha0, double cache_mb, int block,
               bint shrinking, double tol, long max_iter, callback=None,
               long report_every=1000, int n_threads=1, int q=2, Kpre64=None):
    """Solve the dual QP described in the module docstring and return a dict of results.

    Parameters are arrays already validated by the Python layer: X float32 (n, d) C-contiguous
    (or an empty (0, 0) array with a float32 (n, n) ``Kpre`` when ``kind`` is precomputed),
    y int8 (+1/-1) of length m, ex int32 (variable -> example), p, ub, dadd, QD, alpha0 float64.
    ``n_threads`` threads compute the kernel blocks; call it with BLAS limited to one thread.
    ``q`` >= 4 selects SVMTorch's q-variable working sets (module docstring); 2 the pair path.
    ``Kpre64``, a float64 (n, n) C-contiguous matrix, is the exact path: the solver reads its
    rows as they are (``kind`` and ``Kpre`` are then ignored); everything else is float64 anyway.
    """
    if Kpre is None:
        Kpre = np.zeros((0, 0), dtype=np.float32)
    if X is None:
        X = np.zeros((0, 0), dtype=np.float32)
    solver = _Solver(X, Kpre, kind, gamma, coef0, degree, y, ex, p, ub, dadd, QD, alpha0,
                     cache_mb, block, shrinking, n_threads, q, Kpre64)
    return solver.solve(tol, max_iter, callback, report_every)
