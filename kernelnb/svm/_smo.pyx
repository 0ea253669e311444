# cython: language_level=3
"""Decomposition (SMO-type) solver for the SVM dual, in the form shared by C-SVC, the L2 soft
margin, the hard margin and epsilon-SVR:

    minimise   f(a) = 1/2 a' Q a + p' a
    subject to y' a = 0,   0 <= a_t <= ub_t,

with Q_ts = y_t y_s K(x_ex[t], x_ex[s]) + [t == s] dadd_t.  Variables t map to examples ex[t]
(the identity for classification; t mod n for regression, where a and a* share a kernel row:
Collobert's thesis ch. 5).

The module is built in three layers, as LIBSVM keeps ``Cache``, ``Kernel``/``QMatrix`` and
``Solver`` apart (svm.cpp); each calls only the one below it:

``_RowCache``
    Kernel rows K(x_e, x_.) of the n examples, float32: an LRU cache of rows, and the computation
    of missing rows in a *block* -- the row asked for plus the rows the caller expects to ask for
    next -- by a GEMM of the gathered rows against X and one fused pass of the kernel map (or, for
    the RBF kernel on few features, a direct evaluation).  The block is split over ``n_threads``
    OpenMP threads, each running a single-threaded GEMM on its slice of the examples (the Python
    layer holds BLAS's own pool to one thread during a solve).  The block size adapts: it halves
    when prefetched rows are evicted unused and doubles back when they are used.
``_QMatrix``
    Q over the m variables: the index map ex[], the labels y, the diagonal QD and the diagonal
    addition dadd, and the source of kernel rows (the row cache, a precomputed float32 matrix, or
    the float64 matrix of the exact path, read through one accessor), with the products of Q rows
    with vectors that the solver's gradient updates need.
``_Solver``
    The optimisation:

    * working-set selection of a pair by second-order information (Fan, Chen & Lin 2005, "WSS3"):
      i maximises the violation -y_i G_i over I_up, j minimises -(G-gap)^2 / curvature over I_low;
    * the analytic two-variable step (SVMTorch's "enhanced SMO", Collobert's thesis ch. 5);
    * stopping when the maximal KKT violation m(a) - M(a) <= tol (LIBSVM's rule);
    * shrinking of bound variables whose KKT inequality holds strictly, with the gradient of
      shrunk variables rebuilt from G_bar before the final check on the whole problem
      ("unshrinking");
    * the choice of the rows a cache miss computes with the missing one: the most violating
      uncached variables, which the next iterations are likely to ask for;
    * SVMTorch's q-variable working sets (Collobert & Bengio 2001, "SVMTorch: Support Vector
      Machines for Large-Scale Regression Problems", JMLR 1; Collobert's thesis 2004, ch. 5), for
      problems whose rows do not fit in the cache: the most violating variables of I_up and of
      I_low (all fresh at first, then a quarter fresh and the rest kept from the previous working
      set, free variables first, as ThunderSVM keeps half of its own), their q rows computed in
      GEMM blocks, the q-variable sub-problem (``_WorkingSet``) solved by WSS3 pair steps on the
      cached q x q block, then the gradient of every active variable updated from the q rows.  The
      stopping rule and the shrinking are the pair path's, so both reach the same optimum.

All of it runs without the GIL; the GIL is taken only in ``_Solver._report``, every
``report_every`` iterations of either loop, for the progress callback and to notice Ctrl-C.
"""
import numpy as np
cimport cython
cimport numpy as cnp
from cython.parallel cimport prange
from libc.math cimport INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from scipy.linalg.cython_blas cimport sgemm

cnp.import_array()

cdef extern from "Python.h":
    int PyErr_CheckSignals()
    void PyErr_Clear()

# The two passes of the pair selection (WSS3) over the active set, in C.  They read the gradient
# and one status byte per variable (its label and whether it is in I_up and in I_low, kept by
# the solver as the alphas move) instead of y, alpha and ub: 9 and 21 bytes a variable instead
# of 29 and 45, which is what the passes cost once the arrays outgrow the CPU's L2 cache; and
# while no variable is shrunk (the longest, widest part of a fit) they read the arrays in order,
# without the active list.  Scores and comparisons are the plain loops' (LIBSVM's), so the pair
# chosen is the same, ties included.
cdef extern from *:
    """
    #include <math.h>
    #define KN_ST_POS 1
    #define KN_ST_UP 2
    #define KN_ST_LOW 4
    /* 0 for a variable in the set, -inf otherwise: added to a score, it masks it without a
       branch (the membership of a noisy problem's variables follows no pattern) */
    static const double kn_st_mask[2] = {-INFINITY, 0.0};
    /* i: the last t (in act order) maximising -y_t G_t over I_up; -1 if I_up is empty */
    #define KN_WSS_I_BODY(T) { \
        unsigned char f = st[T]; \
        double v = ((f & KN_ST_POS) ? -G[T] : G[T]) + kn_st_mask[(f >> 1) & 1]; \
        if (v >= m && v > -INFINITY) { m = v; best = T; } }
    static int kn_wss_i(const int* __restrict act, int n, const unsigned char* __restrict st,
                        const double* __restrict G, double* gmax) {
        double m = -INFINITY;
        int best = -1;
        if (act == NULL) {
            for (int t = 0; t < n; t++) KN_WSS_I_BODY(t)
        } else {
            for (int k = 0; k < n; k++) { int t = act[k]; KN_WSS_I_BODY(t) }
        }
        *gmax = m;
        return best;
    }
    /* j: the last t in I_low maximising gd^2 / qc among those with gd = gmax + y_t G_t > 0,
       qc = qdi + QD_t - 2 K_it (tau when not positive), the ratios compared by
       cross-multiplication (no division); -1 if none.  *gmax2: the largest y_t G_t over I_low.
       K is the float32 (K32) or float64 (K64) row of i, read at ex[t] (at t when ex is NULL). */
    #define KN_WSS_J_BODY(T, KV) { \
        unsigned char f = st[T]; \
        double v = ((f & KN_ST_POS) ? G[T] : -G[T]) + kn_st_mask[(f >> 2) & 1]; \
        double gd = gmax + v; \
        double num = gd > 0 ? gd * gd : 0.0; \
        double qc = qdi + QD[T] - 2.0 * (KV); \
        qc = qc > 0 ? qc : tau; \
        m2 = v > m2 ? v : m2; \
        if (num * bqc >= bnum * qc && num > 0) { bnum = num; bqc = qc; best = T; } }
    static int kn_wss_j(const int* __restrict act, int n, const int* __restrict ex,
                        const unsigned char* __restrict st, const double* __restrict G,
                        const double* __restrict QD, const float* __restrict K32,
                        const double* __restrict K64, double gmax, double qdi, double tau,
                        double* gmax2) {
        double m2 = -INFINITY, bnum = 0.0, bqc = 1.0;
        int best = -1;
        if (act == NULL && ex == NULL && K32 != NULL) {
            for (int t = 0; t < n; t++) KN_WSS_J_BODY(t, K32[t])
        } else if (K32 != NULL) {
            for (int k = 0; k < n; k++) {
                int t = act == NULL ? k : act[k];
                KN_WSS_J_BODY(t, K32[ex == NULL ? t : ex[t]])
            }
        } else {
            for (int k = 0; k < n; k++) {
                int t = act == NULL ? k : act[k];
                KN_WSS_J_BODY(t, K64[ex == NULL ? t : ex[t]])
            }
        }
        *gmax2 = m2;
        return best;
    }
    """
    int kn_wss_i(const int* act, int n, const unsigned char* st, const double* G,
                 double* gmax) nogil
    int kn_wss_j(const int* act, int n, const int* ex, const unsigned char* st,
                 const double* G, const double* QD, const float* K32, const double* K64,
                 double gmax, double qdi, double tau, double* gmax2) nogil
    int KN_ST_POS, KN_ST_UP, KN_ST_LOW

# The RBF map of a kernel row (kn_rbf_pass, after a GEMM) and the direct evaluation for few
# features (kn_rbf_direct): kernelnb/_rbf_pass.pxd, the one RBF pass of the package (also behind
# kernelnb._kernels.rbf_from_gram in float32).
from kernelnb._rbf_pass cimport kn_rbf_pass, kn_rbf_direct

# Up to this many features, RBF rows are evaluated directly (kn_rbf_direct) instead of by GEMM.
cdef int LOW_D = 16
#: the same bound, for the Python layer (SVC's automatic working-set size)
LOW_D_FEATURES = LOW_D
# A block of kernel rows is split over threads only above this many (roughly) flops: on a busy
# machine a parallel region waits for a descheduled thread, which costs more than small blocks.
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

# Kernel kinds understood by the row cache, and the status codes of a solve.
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
# A working set's gradient update is split over threads only from this many active variables.
cdef int PARALLEL_ACTIVE = 8192
# Rows added to a gradient together (_QMatrix.add_rows): the gradient is read and written once
# for the group.
cdef enum:
    ROW_GROUP = 8
# Parallel loops over the examples or the active set split them into this many chunks a thread,
# scheduled dynamically.
cdef int CHUNKS_PER_THREAD = 4

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
    """Offer (sc, e) to the min-heap (hs, he) of size h that keeps the ``cap`` largest scores seen;
    return its new size."""
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



# ==========================================================================================
# Layer 1: the row cache (LRU storage of float32 kernel rows and their block computation)
# ==========================================================================================
@cython.final
cdef class _RowCache:
    """Kernel rows K(x_e, x_.) of the n examples (length n, float32), ``capacity`` of them kept in
    an LRU list, the missing ones computed a block at a time.

    A row is computed whole (not shrunk: GEMM makes full rows cheap and keeps the cache simple).
    The caller of ``fill`` names the rows of a block: the row it needs first, then the rows it
    expects to ask for soon ("prefetched"); ``next_block`` tells it how many to name, halving when
    most prefetched rows are evicted unused and doubling back when most are used.
    """
    # ---- the kernel --------------------------------------------------------------------------
    cdef int n, d, kind, degree, n_threads
    cdef double gamma, coef0
    cdef float[:, ::1] X          # n x d (float32, centred for RBF)
    cdef float[::1] xn            # squared norms of the rows of X (RBF)
    cdef float[:, ::1] XT         # X transposed (d x n), for the direct low-dimension RBF rows
    cdef bint lowd
    # ---- storage: capacity rows, an LRU list over their slots --------------------------------
    cdef int capacity, n_cached, head, tail
    cdef float[:, ::1] rows       # capacity x n
    cdef int[::1] slot_of         # example -> slot or -1
    cdef int[::1] ex_of           # slot -> example or -1
    cdef int[::1] prv, nxt        # LRU list over slots (head = most recent)
    cdef signed char[::1] pref    # slot holds a prefetched row not used yet
    # ---- block computation -------------------------------------------------------------------
    cdef int block, cur_block     # largest block, current (adapted) block
    cdef long useful, wasted      # prefetched rows used / evicted unused since the last adaptation
    cdef float[:, ::1] gbuf       # block x d gathered rows
    cdef float[:, ::1] kbuf       # block x n GEMM output
    cdef int[::1] slot_tmp        # the slots of a direct (low-dimension) block
    cdef int[::1] want            # ensure(): the examples of the next block
    cdef int[::1] mark            # ensure(): scratch marks over examples
    cdef long n_rows              # kernel rows computed

    def __init__(self, float[:, ::1] X, int kind, double gamma, double coef0, int degree,
                 double cache_mb, int block, int together, int n_threads):
        """``together``: rows that must be cached at the same time besides one block (the
        q-variable working set), 0 for none."""
        self.n = X.shape[0]
        self.d = X.shape[1]
        self.X = X
        self.kind = kind
        self.gamma = gamma
        self.coef0 = coef0
        self.degree = degree
        self.n_threads = max(1, n_threads)
        self.n_rows = 0
        if kind == K_RBF:
            self.xn = np.einsum("ij,ij->i", np.asarray(X), np.asarray(X)).astype(np.float32)
        self.lowd = kind == K_RBF and self.d <= LOW_D
        if self.lowd:
            self.XT = np.ascontiguousarray(np.asarray(X).T)
        cap = int(cache_mb * 1024.0 * 1024.0 / (4.0 * max(self.n, 1)))
        block = max(1, min(block, self.n))
        cap = max(cap, 2 * block + 2)
        if together > 0:
            cap = max(cap, together + block)
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
        self.slot_tmp = np.empty(block, dtype=np.int32)
        self.want = np.empty(block, dtype=np.int32)
        self.mark = np.zeros(self.n, dtype=np.int32)

    # ---- the LRU list ------------------------------------------------------------------------
    cdef inline void _unlink(self, int s) noexcept nogil:
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

    cdef inline void _push_front(self, int s) noexcept nogil:
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
            self._unlink(s)
            self.slot_of[self.ex_of[s]] = -1
            if self.pref[s]:
                self.wasted += 1
        self.pref[s] = 0
        return s

    # ---- access ------------------------------------------------------------------------------
    cdef inline bint has(self, int e) noexcept nogil:
        return self.slot_of[e] >= 0

    cdef float* get(self, int e) noexcept nogil:
        """Row e if it is cached (now the most recently used; a prefetched row counts as used),
        else NULL."""
        cdef int s = self.slot_of[e]
        if s < 0:
            return NULL
        if self.pref[s]:
            self.useful += 1
            self.pref[s] = 0
        self._unlink(s)
        self._push_front(s)
        return &self.rows[s, 0]

    cdef void touch(self, int e) noexcept nogil:
        """Make row e, if cached, the most recently used (so that the next evictions spare it)."""
        cdef int s = self.slot_of[e]
        if s >= 0:
            self._unlink(s)
            self._push_front(s)

    cdef int next_block(self) noexcept nogil:
        """How many rows the next miss should compute (the missing one and the prefetched ones).

        Sized to the evidence: when most prefetched rows are evicted unused (a cache smaller than
        the rows the solver cycles through), halve the block, down to the single missing row as
        LIBSVM; when most are used, double it back.  A cache that holds every row never evicts,
        so it keeps the full block."""
        cdef long seen = self.useful + self.wasted
        if seen >= 2 * self.cur_block:
            if self.useful * 10 < 3 * seen:
                self.cur_block = max(1, self.cur_block // 2)
            elif self.useful * 10 > 7 * seen and self.cur_block < self.block:
                self.cur_block = min(self.block, self.cur_block * 2)
            self.useful = 0
            self.wasted = 0
        return self.cur_block

    cdef float* fill(self, int* want, int count) noexcept nogil:
        """Compute the rows of the uncached examples want[0:count] in one block, want[0] asked
        for and the others prefetched, and return want[0]'s row."""
        self._compute_block(want, count, 1)
        return &self.rows[self.slot_of[want[0]], 0]

    cdef void ensure(self, int* exs, int count) noexcept nogil:
        """Compute (in blocks) the rows of the listed examples that are not cached yet.

        Used where many rows are needed in a known order (initial gradient, reconstruction, a
        working set).  The listed rows already cached are made the most recent first, so that
        the rows computed for the others never evict them (they were the least recent ones
        when the gradient is reconstructed: Fashion-MNIST n = 30k, q = 872, 8,466 of the fit's
        17,853 rows were such evicted rows computed again by misses).  Rows computed here may
        still be evicted by later ones when the list is longer than the cache; callers then get
        them again through a miss, which recomputes.
        """
        cdef int k = 0, c = 0, e
        for k in range(count):
            self.touch(exs[k])
        k = 0
        while k < count:
            e = exs[k]
            k += 1
            if self.slot_of[e] >= 0 or self.mark[e]:
                continue
            self.mark[e] = 1
            self.want[c] = e
            c += 1
            if c == self.block:
                self._compute_wanted(c)
                c = 0
        if c > 0:
            self._compute_wanted(c)

    cdef inline void _compute_wanted(self, int c) noexcept nogil:
        cdef int r
        for r in range(c):
            self.mark[self.want[r]] = 0
        self._compute_block(&self.want[0], c, c)

    # ---- the block computation ---------------------------------------------------------------
    cdef void _compute_block(self, int* want, int count, int n_requested) noexcept nogil:
        """Compute the kernel rows of the examples want[0:count] and store them in the cache (the
        first ``n_requested`` as asked for, the others as prefetched).

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
        # the examples in CHUNKS_PER_THREAD chunks a thread, taken in turn: a thread that the
        # system deschedules on a busy machine holds up the others by one chunk, not by half
        cdef int nch = nth * CHUNKS_PER_THREAD if nth > 1 else 1
        if self.lowd:
            # Few features: each row straight into its cache slot, no GEMM and no copy.
            for r in range(count):
                e = want[r]
                s = self._take_slot()
                self.slot_of[e] = s
                self.ex_of[s] = e
                self.pref[s] = 1 if r >= n_requested else 0
                self._push_front(s)
                self.slot_tmp[r] = s
            for th in prange(nch, num_threads=nth, schedule="dynamic"):
                j0 = (n * th) // nch
                j1 = (n * (th + 1)) // nch
                for r in range(count):
                    kn_rbf_direct(&self.rows[self.slot_tmp[r], 0], &self.XT[0, 0], n, d,
                                  &self.X[want[r], 0], g2, j0, j1)
                    e = want[r]
                    if e >= j0 and e < j1:
                        self.rows[self.slot_tmp[r], e] = 1.0
            self.n_rows += count
            return
        for r in range(count):
            memcpy(&self.gbuf[r, 0], &self.X[want[r], 0], d * sizeof(float))
        for th in prange(nch, num_threads=nth, schedule="dynamic"):
            j0 = (n * th) // nch
            j1 = (n * (th + 1)) // nch
            mj = j1 - j0
            # kbuf[:, j0:j1] (count x mj, row stride n) = gbuf (count x d) . X[j0:j1]'.
            # Column-major view: kbuf' block (mj x count, ld n) = X[j0:j1] (as d x mj)^T . gbuf'.
            if mj > 0:
                sgemm("T", "N", &mj, &count, &d, &one, &self.X[j0, 0], &d, &self.gbuf[0, 0], &d,
                      &zero, &self.kbuf[0, j0], &n)
                for r in range(count):
                    kb = &self.kbuf[r, 0]
                    if self.kind == K_RBF:
                        e = want[r]
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
        self.n_rows += count
        for r in range(count):
            e = want[r]
            s = self._take_slot()
            memcpy(&self.rows[s, 0], &self.kbuf[r, 0], n * sizeof(float))
            self.slot_of[e] = s
            self.ex_of[s] = e
            self.pref[s] = 1 if r >= n_requested else 0
            self._push_front(s)



# ==========================================================================================
# Layer 2: Q over the variables (kernel rows through ex[], labels, diagonal)
# ==========================================================================================
@cython.final
cdef class _QMatrix:
    """Q_ts = y_t y_s K(x_ex[t], x_ex[s]) + [t == s] dadd_t over the m variables.

    Kernel rows come from the row cache, or from a precomputed matrix read through global
    indices (float32, or float64 on the exact path): a row is a ``void*`` of length n, read with
    ``kv``; the products below are written once per type.  The solver addresses rows by example
    (``ex[t]``), so a and a* of regression share one row.
    """
    cdef int m
    cdef signed char[::1] y
    cdef int[::1] ex
    cdef double[::1] QD           # Q_tt, dadd included
    cdef double[::1] dadd
    cdef _RowCache cache          # None with a precomputed kernel
    cdef float[:, ::1] K32        # precomputed kernel (n x n), float32
    cdef double[:, ::1] K64       # precomputed kernel in float64 (the exact path)
    cdef bint precomputed, k64

    def __init__(self, signed char[::1] y, int[::1] ex, double[::1] QD, double[::1] dadd,
                 _RowCache cache, object K32, object K64):
        self.m = y.shape[0]
        self.y = y
        self.ex = ex
        self.QD = QD
        self.dadd = dadd
        self.cache = cache
        self.precomputed = cache is None
        self.k64 = K64 is not None
        if self.k64:
            self.K64 = K64
        elif self.precomputed:
            self.K32 = K32

    # ---- kernel rows -------------------------------------------------------------------------
    cdef inline double kv(self, void* r, int e) noexcept nogil:
        """Entry e of a kernel row: float32, or float64 on the exact path."""
        if self.k64:
            return (<double*> r)[e]
        return (<float*> r)[e]

    cdef void* get(self, int e) noexcept nogil:
        """Kernel row of example e when it is at hand (precomputed, or cached: now the most
        recently used), else NULL."""
        if self.k64:
            return <void*> &self.K64[e, 0]
        if self.precomputed:
            return <void*> &self.K32[e, 0]
        return <void*> self.cache.get(e)

    cdef inline bint has(self, int e) noexcept nogil:
        return self.precomputed or self.cache.has(e)

    cdef void* fill(self, int* want, int count) noexcept nogil:
        """On a miss: compute the rows of want[0:count] in one block (want[0] asked for, the
        others prefetched) and return want[0]'s."""
        return <void*> self.cache.fill(want, count)

    cdef int next_block(self) noexcept nogil:
        """How many rows a miss should compute at once (1 with a precomputed kernel)."""
        if self.precomputed:
            return 1
        return self.cache.next_block()

    cdef int chunk(self) noexcept nogil:
        """How many rows to request together when many are needed in a known order."""
        if self.precomputed:
            return self.m
        return self.cache.block

    cdef void ensure(self, int* exs, int count) noexcept nogil:
        """Compute the uncached rows among the examples exs[0:count], in blocks."""
        if not self.precomputed:
            self.cache.ensure(exs, count)

    cdef void touch(self, int e) noexcept nogil:
        if not self.precomputed:
            self.cache.touch(e)

    cdef long n_rows(self) noexcept nogil:
        """Kernel rows computed so far (0 with a precomputed kernel)."""
        if self.precomputed:
            return 0
        return self.cache.n_rows

    # ---- products with Q rows ----------------------------------------------------------------
    cdef void add_row(self, void* Kj, double cy, double* target, int* idx,
                      int count) noexcept nogil:
        """target[t] += cy y_t K(x_j, x_ex[t]) for t in idx[0:count], every variable when idx is
        NULL: with cy = c y_j, c times row j of Q off the diagonal (Kj is example ex[j]'s row)."""
        cdef int k, t
        cdef signed char* y = &self.y[0]
        cdef int* ex = &self.ex[0]
        cdef float* K32 = <float*> Kj
        cdef double* K64 = <double*> Kj
        if idx == NULL:
            if self.k64:
                for t in range(self.m):
                    target[t] += cy * y[t] * K64[ex[t]]
            else:
                for t in range(self.m):
                    target[t] += cy * y[t] * K32[ex[t]]
        elif self.k64:
            for k in range(count):
                t = idx[k]
                target[t] += cy * y[t] * K64[ex[t]]
        else:
            for k in range(count):
                t = idx[k]
                target[t] += cy * y[t] * K32[ex[t]]

    cdef void add_rows(self, void** rows, double* cy, int nrows, double* target, int* idx,
                       int count, int n_threads) noexcept nogil:
        """add_row for each of the given rows (target[t] += cy[a] y_t K_a(ex[t]) for t in
        idx[0:count]), the variables split between n_threads threads."""
        cdef int th, a, g, k0, k1, nth = max(1, n_threads)
        cdef int n_groups = (nrows + ROW_GROUP - 1) // ROW_GROUP
        cdef int nch = nth * CHUNKS_PER_THREAD if nth > 1 else 1
        for th in prange(nch, num_threads=nth, schedule="dynamic"):
            k0 = (count * th) // nch
            k1 = (count * (th + 1)) // nch
            for g in range(n_groups):
                a = g * ROW_GROUP
                self._add_group(rows + a, cy + a, min(ROW_GROUP, nrows - a), target,
                                NULL if idx == NULL else idx + k0,
                                k0 if idx == NULL else 0, k1 - k0)

    cdef void _add_group(self, void** rows, double* cy, int nb, double* target, int* idx,
                         int first, int count) noexcept nogil:
        """target[t] += y_t sum_a cy[a] K_a(ex[t]) over nb <= ROW_GROUP rows, for t in
        idx[0:count] (t in [first, first + count) when idx is NULL): one read and one write of
        target for the whole group, instead of one per row."""
        cdef int k, t, e, a
        cdef double acc
        cdef signed char* y = &self.y[0]
        cdef int* ex = &self.ex[0]
        cdef float* r32[ROW_GROUP]
        cdef double* r64[ROW_GROUP]
        for a in range(nb):
            r32[a] = <float*> rows[a]
            r64[a] = <double*> rows[a]
        for k in range(count):
            t = first + k if idx == NULL else idx[k]
            e = ex[t]
            acc = 0.0
            if self.k64:
                for a in range(nb):
                    acc += cy[a] * r64[a][e]
            else:
                for a in range(nb):
                    acc += cy[a] * r32[a][e]
            target[t] += y[t] * acc

    cdef void add_pair(self, void* Ki, double cyi, void* Kj, double cyj, double* target,
                       int* idx, int count) noexcept nogil:
        """target[t] += y_t (cyi K(x_i, x_ex[t]) + cyj K(x_j, x_ex[t])) for t in idx[0:count]:
        the gradient update of a pair step in one pass."""
        cdef int k, t
        cdef signed char* y = &self.y[0]
        cdef int* ex = &self.ex[0]
        cdef float* Ki32 = <float*> Ki
        cdef float* Kj32 = <float*> Kj
        cdef double* Ki64 = <double*> Ki
        cdef double* Kj64 = <double*> Kj
        if self.k64:
            for k in range(count):
                t = idx[k]
                target[t] += y[t] * (cyi * Ki64[ex[t]] + cyj * Kj64[ex[t]])
        else:
            for k in range(count):
                t = idx[k]
                target[t] += y[t] * (cyi * Ki32[ex[t]] + cyj * Kj32[ex[t]])



# ==========================================================================================
# Layer 3: the solver
# ==========================================================================================
@cython.final
cdef class _WorkingSet:
    """SVMTorch's working set of up to q variables: who they are, their kernel rows, and the
    q-variable sub-problem on the cached q x q block of Q (Collobert & Bengio 2001; Collobert's
    thesis ch. 5).  ``_Solver`` selects the variables, loads the sub-problem and applies its
    solution; ``solve`` only reads and writes the local arrays."""
    cdef int q, size, n_prev
    cdef int[::1] var             # the variables of the current working set
    cdef int[::1] wex             # their examples
    cdef int[::1] prev            # the previous working set (kept in part, as ThunderSVM)
    cdef signed char[::1] in_ws   # scratch marks over the m variables
    cdef double[::1] hs           # selection heap (scores)
    cdef int[::1] he              # selection heap (variables)
    cdef void** rows              # kernel rows of the working set (float or double)
    # ---- the sub-problem ----------------------------------------------------------------------
    cdef double[:, ::1] lQ        # Q on the working set (q x q)
    cdef double[::1] lG, la, lub  # gradient, alphas, upper bounds
    cdef signed char[::1] ly
    # ---- applying it: the changed variables' rows and coefficients ---------------------------
    cdef int[::1] chg
    cdef void** crow
    cdef double[::1] ccy

    def __cinit__(self):
        self.rows = NULL
        self.crow = NULL

    def __dealloc__(self):
        free(self.rows)
        free(self.crow)

    def __init__(self, int q, int m):
        self.q = q
        self.size = 0
        self.n_prev = 0
        self.var = np.empty(q, dtype=np.int32)
        self.wex = np.empty(q, dtype=np.int32)
        self.prev = np.empty(q, dtype=np.int32)
        self.in_ws = np.zeros(m, dtype=np.int8)
        self.hs = np.empty(q)
        self.he = np.empty(q, dtype=np.int32)
        self.lQ = np.empty((q, q), dtype=np.float64)
        self.lG = np.empty(q)
        self.la = np.empty(q)
        self.lub = np.empty(q)
        self.ly = np.empty(q, dtype=np.int8)
        self.chg = np.empty(q, dtype=np.int32)
        self.ccy = np.empty(q)
        self.rows = <void**> malloc(q * sizeof(void*))
        self.crow = <void**> malloc(q * sizeof(void*))
        if self.rows == NULL or self.crow == NULL:
            raise MemoryError()

    cdef long solve(self, double eps, long max_inner) noexcept nogil:
        """Solve the sub-problem by SMO steps (WSS3 pairs, the analytic two-variable step) on the
        block lQ, until its maximal violation is below eps or after max_inner steps.  Returns
        the number of steps; la[] holds the new alphas, lG[] their gradient."""
        cdef int c = self.size, a, b, i, j
        cdef double Gmax, Gmax2, obj_min, gd, qc, od, yQ
        cdef double ai, aj, ai_old, aj_old, Ci, Cj, Qij, dai, daj
        cdef long it = 0
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


@cython.final
cdef class _Solver:
    """The decomposition loop over Q (module docstring): pairs, or q-variable working sets."""
    # ---- the problem (Q holds y, ex and the diagonal too) ------------------------------------
    cdef _QMatrix Q
    cdef int m
    cdef signed char[::1] y
    cdef int[::1] ex
    cdef double[::1] p, ub
    # ---- the state ---------------------------------------------------------------------------
    cdef double[::1] alpha, G, G_bar
    cdef unsigned char[::1] st    # per variable: KN_ST_POS (y > 0), KN_ST_UP, KN_ST_LOW
    cdef bint ex_identity         # ex[t] == t for every variable
    cdef int[::1] act             # the active variables, in index order
    cdef int active_size
    cdef signed char[::1] shrunk  # variables out of the active set
    cdef bint shrinking, unshrink
    cdef int n_threads
    # ---- the rows a cache miss computes with the missing one ---------------------------------
    cdef int[::1] want            # the block's examples
    cdef int[::1] mark            # scratch marks over examples
    cdef double[::1] heap_s       # the prefetch heap (scores)
    cdef int[::1] heap_e          # the prefetch heap (examples)
    # ---- the q-variable path (None: pairs) ---------------------------------------------------
    cdef _WorkingSet W
    cdef bint use_ws
    # ---- progress ----------------------------------------------------------------------------
    cdef object callback
    cdef long report_every, next_report
    cdef long n_iter, n_outer

    def __init__(self, _QMatrix Q, double[::1] p, double[::1] ub, double[::1] alpha0,
                 bint shrinking, int n_threads, int q, int n_examples):
        cdef int block = 1 if Q.precomputed else Q.cache.block
        cdef int t
        self.Q = Q
        self.m = Q.m
        self.y = Q.y
        self.ex = Q.ex
        self.p = p
        self.ub = ub
        self.alpha = np.array(alpha0, dtype=np.float64)
        self.G = np.zeros(self.m)
        self.G_bar = np.zeros(self.m)
        self.st = np.zeros(self.m, dtype=np.uint8)
        for t in range(self.m):
            self._set_status(t)
        self.ex_identity = bool(np.array_equal(np.asarray(Q.ex), np.arange(self.m)))
        self.act = np.arange(self.m, dtype=np.int32)
        self.active_size = self.m
        self.shrunk = np.zeros(self.m, dtype=np.int8)
        self.shrinking = shrinking
        self.unshrink = False
        self.n_threads = max(1, n_threads)
        self.want = np.empty(block, dtype=np.int32)
        self.mark = np.zeros(n_examples, dtype=np.int32)
        self.heap_s = np.empty(block, dtype=np.float64)
        self.heap_e = np.empty(block, dtype=np.int32)
        self.use_ws = q >= 4
        self.W = _WorkingSet(q, self.m) if self.use_ws else None
        self.callback = None
        self.report_every = 1000
        self.next_report = 1000
        self.n_iter = 0
        self.n_outer = 0

    # ======================================================================================
    # Rows: Q's, with the prefetch choice on a miss
    # ======================================================================================
    cdef void* row(self, int e) noexcept nogil:
        """Kernel row of example e (read it with Q.kv).  On a miss it is computed in one block
        with the rows the next iterations are likely to ask for (``_pick_prefetch``)."""
        cdef void* r = self.Q.get(e)
        if r == NULL:
            r = self.Q.fill(&self.want[0], self._pick_prefetch(e))
        return r

    cdef inline void _violations(self, int t, double* su, double* sl) noexcept nogil:
        """t's violation scores: -y_t G_t if t is in I_up, y_t G_t if in I_low, else -inf
        (the larger, the likelier WSS3 picks t as i, resp. j)."""
        su[0] = -INFINITY
        sl[0] = -INFINITY
        if self.y[t] > 0:
            if self.alpha[t] < self.ub[t]:
                su[0] = -self.G[t]
            if self.alpha[t] > 0:
                sl[0] = self.G[t]
        else:
            if self.alpha[t] > 0:
                su[0] = self.G[t]
            if self.alpha[t] < self.ub[t]:
                sl[0] = -self.G[t]

    cdef int _pick_prefetch(self, int first) noexcept nogil:
        """Fill want[] with `first` then the most violating uncached examples; return the count.

        A variable's score is the larger of its two violations; a min-heap keeps the best
        (block size - 1) examples, each once (a and a* of regression share one)."""
        cdef int k, t, e, h = 0, cap = self.Q.next_block() - 1
        cdef double su, sl, sc
        cdef double* hs = &self.heap_s[0]
        cdef int* he = &self.heap_e[0]
        self.want[0] = first
        if cap <= 0:
            return 1
        self.mark[first] = 1
        for k in range(self.active_size):
            t = self.act[k]
            e = self.ex[t]
            if self.mark[e] or self.Q.has(e):
                continue
            self._violations(t, &su, &sl)
            sc = su if su > sl else sl
            if sc == -INFINITY:
                continue
            if h < cap:
                self.mark[e] = 1
            elif sc > hs[0]:
                self.mark[he[0]] = 0     # the root leaves the heap
                self.mark[e] = 1
            else:
                continue
            h = _heap_offer(hs, he, h, cap, sc, e)
        for k in range(h):
            self.want[k + 1] = he[k]
            self.mark[he[k]] = 0
        self.mark[first] = 0
        return h + 1

    # ======================================================================================
    # Gradient
    # ======================================================================================
    cdef inline void _set_status(self, int t) noexcept nogil:
        """Status byte of t from its label and alpha (the selection passes read it)."""
        cdef bint pos = self.y[t] > 0
        cdef bint at_ub = self.alpha[t] >= self.ub[t], at_0 = self.alpha[t] <= 0
        cdef unsigned char f = KN_ST_POS if pos else 0
        if (pos and not at_ub) or (not pos and not at_0):
            f = f | KN_ST_UP
        if (pos and not at_0) or (not pos and not at_ub):
            f = f | KN_ST_LOW
        self.st[t] = f

    cdef inline bint _is_upper(self, int t) noexcept nogil:
        return self.alpha[t] >= self.ub[t]

    cdef inline bint _is_lower(self, int t) noexcept nogil:
        return self.alpha[t] <= 0

    cdef void _add_row_to(self, int j, double coef, double* target) noexcept nogil:
        """target[t] += coef * Q_jt for every variable t."""
        cdef void* Kj = self.row(self.ex[j])
        self.Q.add_row(Kj, coef * self.y[j], target, NULL, self.m)
        target[j] += coef * self.Q.dadd[j]

    cdef void init_gradient(self) noexcept nogil:
        """G = Q a + p and G_bar from a warm start, one block of rows at a time (a block is
        used while it is cached, so a cache smaller than the support does not thrash)."""
        cdef int t, u, c = 0, t0 = 0
        cdef int chunk = self.Q.chunk()
        cdef int* lst = <int*> malloc(max(self.m, 1) * sizeof(int))
        for t in range(self.m):
            self.G[t] = self.p[t]
            self.G_bar[t] = 0.0
        for t in range(self.m + 1):
            if t < self.m and self.alpha[t] > 0:
                lst[c] = self.ex[t]
                c += 1
            if c == chunk or (t == self.m and c > 0):
                self.Q.ensure(lst, c)
                for u in range(t0, min(t + 1, self.m)):
                    if self.alpha[u] > 0:
                        self._add_row_to(u, self.alpha[u], &self.G[0])
                        if self._is_upper(u):
                            self._add_row_to(u, self.ub[u], &self.G_bar[0])
                t0 = t + 1
                c = 0
        free(lst)

    cdef void reconstruct_gradient(self) noexcept nogil:
        """G_t = G_bar_t + p_t + sum over free j of a_j Q_jt, for the shrunk variables t."""
        cdef int k, t, j, c = 0, n_out = 0
        if self.active_size == self.m:
            return
        cdef int* out = <int*> malloc(self.m * sizeof(int))
        cdef int* lst = <int*> malloc(self.m * sizeof(int))
        for t in range(self.m):
            if self.shrunk[t]:
                self.G[t] = self.G_bar[t] + self.p[t]
                out[n_out] = t
                n_out += 1
        # Free variables in blocks of rows: each block is computed, then used while cached.
        cdef int chunk = self.Q.chunk(), k0 = 0, kk
        for k in range(self.active_size + 1):
            if k < self.active_size:
                j = self.act[k]
                if not self._is_upper(j) and not self._is_lower(j):
                    lst[c] = self.ex[j]
                    c += 1
            if c == chunk or (k == self.active_size and c > 0):
                self.Q.ensure(lst, c)
                for kk in range(k0, min(k + 1, self.active_size)):
                    j = self.act[kk]
                    if self._is_upper(j) or self._is_lower(j):
                        continue
                    self.Q.add_row(self.row(self.ex[j]), self.alpha[j] * self.y[j], &self.G[0],
                                   out, n_out)
                k0 = k + 1
                c = 0
        # The whole problem is active again, in index order.
        for t in range(self.m):
            self.act[t] = t
            self.shrunk[t] = 0
        self.active_size = self.m
        free(out)
        free(lst)

    # ======================================================================================
    # Pairs: selection, step, shrinking
    # ======================================================================================
    cdef int select(self, double tol, int* out_i, int* out_j, double* gap) noexcept nogil:
        """WSS3 on the active set.  Returns 1 when the maximal violation is <= tol.

        i maximises -y_t G_t over I_up (kn_wss_i); j minimises -(G-gap)^2 / curvature over
        I_low (kn_wss_j), with y_i Q_it = y_t K_it so that the curvature is QD_i + QD_t -
        2 K_it on either side.  Both passes read the status bytes, in order while nothing is
        shrunk."""
        cdef double Gmax = -INFINITY, Gmax2 = -INFINITY
        cdef int i, jmin, n_act = self.active_size
        cdef const int* act = NULL if n_act == self.m else &self.act[0]
        cdef void* Ki
        i = kn_wss_i(act, n_act, &self.st[0], &self.G[0], &Gmax)
        if i < 0:
            gap[0] = 0.0
            return 1
        Ki = self.row(self.ex[i])
        jmin = kn_wss_j(act, n_act, NULL if self.ex_identity else &self.ex[0], &self.st[0],
                        &self.G[0], &self.Q.QD[0],
                        NULL if self.Q.k64 else <const float*> Ki,
                        <const double*> Ki if self.Q.k64 else NULL,
                        Gmax, self.Q.QD[i], TAU, &Gmax2)
        gap[0] = Gmax + Gmax2
        if Gmax + Gmax2 < tol or jmin < 0:
            return 1
        out_i[0] = i
        out_j[0] = jmin
        return 0

    cdef void step(self, int i, int j) noexcept nogil:
        """Analytic solution of the two-variable sub-problem, then the gradient updates."""
        cdef void* Ki = self.row(self.ex[i])
        cdef void* Kj = self.row(self.ex[j])
        # Ki may have been evicted by the fetch of Kj only if capacity < 2: excluded at init.
        cdef double Ci = self.ub[i], Cj = self.ub[j]
        cdef double ai_old = self.alpha[i], aj_old = self.alpha[j]
        cdef double ai = ai_old, aj = aj_old
        cdef double Qij = self.y[i] * self.y[j] * self.Q.kv(Ki, self.ex[j])
        cdef double dai, daj
        cdef bint ui, uj
        _two_variable_step(self.y[i] == self.y[j], self.Q.QD[i], self.Q.QD[j], Qij, self.G[i],
                           self.G[j], Ci, Cj, &ai, &aj)
        self.alpha[i] = ai
        self.alpha[j] = aj
        self._set_status(i)
        self._set_status(j)
        dai = ai - ai_old
        daj = aj - aj_old
        self.Q.add_pair(Ki, dai * self.y[i], Kj, daj * self.y[j], &self.G[0], &self.act[0],
                        self.active_size)
        self.G[i] += dai * self.Q.dadd[i]
        self.G[j] += daj * self.Q.dadd[j]
        # G_bar follows the variables that enter or leave their upper bound.
        ui = ai_old >= Ci
        uj = aj_old >= Cj
        if ui != self._is_upper(i):
            self._add_row_to(i, Ci if not ui else -Ci, &self.G_bar[0])
        if uj != self._is_upper(j):
            self._add_row_to(j, Cj if not uj else -Cj, &self.G_bar[0])

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
            else:
                self.shrunk[t] = 1
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
        """Fill W.var[] with SVMTorch's working set and return its size (0: optimal on the active
        set).

        The fresh part: half of it the variables of I_up with the largest -y_t G_t (the steepest
        feasible direction's "p = -1" half), then, among the others, the variables of I_low with
        the largest y_t G_t.  It is the whole working set at first, a quarter of it later, the
        rest kept from the previous working set (active variables only, free ones first).
        The pair (i, j) that WSS3 would start from is always in it, so the sub-problem's
        violation is the whole (active) problem's.

        Keeping part of the previous set is what makes the loop converge (all fresh every time,
        it needs thousands of sub-problems); three quarters computes the fewest kernel rows
        (benchmarks/results/svm_working_set_kept.json).
        """
        cdef int q = self.W.q, k, t, h = 0, c = 0, a
        cdef int fresh = q if self.W.n_prev == 0 else max(4, q // 4)
        cdef int half = fresh // 2
        cdef double Gmax = -INFINITY, Gmax2 = -INFINITY, su, sl
        cdef double* hs = &self.W.hs[0]
        cdef int* he = &self.W.he[0]
        cdef int* var = &self.W.var[0]
        cdef signed char* in_ws = &self.W.in_ws[0]
        for k in range(self.active_size):
            t = self.act[k]
            self._violations(t, &su, &sl)
            if su > Gmax:
                Gmax = su
            if sl > Gmax2:
                Gmax2 = sl
            if su > -INFINITY:
                h = _heap_offer(hs, he, h, half, su, t)
        if Gmax == -INFINITY or Gmax2 == -INFINITY:
            gap[0] = 0.0
            return 0
        gap[0] = Gmax + Gmax2
        if Gmax + Gmax2 < tol:
            return 0
        for k in range(h):
            var[c] = he[k]
            in_ws[he[k]] = 1
            c += 1
        h = 0
        for k in range(self.active_size):
            t = self.act[k]
            if in_ws[t]:
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
            var[c] = he[k]
            in_ws[he[k]] = 1
            c += 1
        # The rest from the previous working set, free variables first: their rows are cached
        # and SMO's steps mostly move free variables (ThunderSVM keeps half of its working set
        # the same way).  Without this, a q below the number of free support vectors makes
        # the selection cycle through them in thousands of short sub-problems.
        for a in range(2):
            for k in range(self.W.n_prev):
                if c >= q:
                    break
                t = self.W.prev[k]
                if in_ws[t] or self.shrunk[t]:
                    continue
                if (a == 0) != (self.alpha[t] > 0 and self.alpha[t] < self.ub[t]):
                    continue
                var[c] = t
                in_ws[t] = 1
                c += 1
        for k in range(c):
            in_ws[var[k]] = 0
            self.W.prev[k] = var[k]
        self.W.n_prev = c
        self.W.size = c
        return c

    cdef void _load_ws(self) noexcept nogil:
        """Point W.rows at the kernel rows of the working set, computing the missing ones in GEMM
        blocks, and load its sub-problem.  Cached rows are touched first, so the misses'
        evictions never take them (the cache holds at least q + block rows)."""
        cdef int c = self.W.size, a, b, t
        cdef void* Ka
        for a in range(c):
            self.W.wex[a] = self.ex[self.W.var[a]]
            self.Q.touch(self.W.wex[a])
        self.Q.ensure(&self.W.wex[0], c)
        for a in range(c):
            self.W.rows[a] = self.row(self.W.wex[a])
        for a in range(c):
            t = self.W.var[a]
            self.W.ly[a] = self.y[t]
            self.W.la[a] = self.alpha[t]
            self.W.lG[a] = self.G[t]
            self.W.lub[a] = self.ub[t]
        for a in range(c):
            Ka = self.W.rows[a]
            for b in range(c):
                self.W.lQ[a, b] = self.W.ly[a] * self.W.ly[b] * self.Q.kv(Ka, self.W.wex[b])
            self.W.lQ[a, a] = self.Q.QD[self.W.var[a]]

    cdef void _apply_ws(self) noexcept nogil:
        """Move the working set to its new alphas: G over the active set with the q cached rows
        (threads split the active set), G_bar for the variables that reach or leave their upper
        bound, then the alphas themselves."""
        cdef int a, t, k, nchg = 0, nb
        cdef double da, bound
        cdef bint was_up, now_up
        for a in range(self.W.size):
            t = self.W.var[a]
            if self.W.la[a] != self.alpha[t]:
                self.W.chg[nchg] = a
                self.W.crow[nchg] = self.W.rows[a]
                self.W.ccy[nchg] = (self.W.la[a] - self.alpha[t]) * self.W.ly[a]
                nchg += 1
        if nchg == 0:
            return
        self.Q.add_rows(self.W.crow, &self.W.ccy[0], nchg, &self.G[0], &self.act[0],
                        self.active_size,
                        self.n_threads if self.active_size >= PARALLEL_ACTIVE else 1)
        # G_bar for the variables that reach or leave their bound, in one grouped pass
        nb = 0
        for k in range(nchg):
            a = self.W.chg[k]
            t = self.W.var[a]
            da = self.W.la[a] - self.alpha[t]
            self.G[t] += da * self.Q.dadd[t]
            was_up = self.alpha[t] >= self.ub[t]
            now_up = self.W.la[a] >= self.ub[t]
            if was_up != now_up:
                bound = self.ub[t] if now_up else -self.ub[t]
                self.W.crow[nb] = self.W.rows[a]
                self.W.ccy[nb] = bound * self.y[t]
                nb += 1
                self.G_bar[t] += bound * self.Q.dadd[t]
            self.alpha[t] = self.W.la[a]
            self._set_status(t)
        if nb > 0:
            self.Q.add_rows(self.W.crow, &self.W.ccy[0], nb, &self.G_bar[0], NULL, self.m,
                            self.n_threads if self.m >= PARALLEL_ACTIVE else 1)

    # ======================================================================================
    # The two loops, and their one progress report
    # ======================================================================================
    cdef int _report(self, double gap) except -1 nogil:
        """Every ``report_every`` iterations: take the GIL, notice Ctrl-C (ST_INTERRUPTED) and
        call the progress callback (ST_CALLBACK when it returns False).  Returns ST_OPTIMAL to
        go on; an exception raised by the callback propagates."""
        if self.n_iter < self.next_report:
            return ST_OPTIMAL
        self.next_report = self.n_iter + self.report_every
        with gil:
            if PyErr_CheckSignals() != 0:
                PyErr_Clear()
                return ST_INTERRUPTED
            if self.callback is not None:
                if self.callback(int(self.n_iter), float(gap), float(self.objective())) is False:
                    return ST_CALLBACK
        return ST_OPTIMAL

    cdef int _solve_pairs(self, double tol, long max_iter, double* gap) except -1 nogil:
        """SMO: a WSS3 pair and its analytic step per iteration; shrinking every min(m, 1000)."""
        cdef int i = 0, j = 0, status
        cdef long counter = min(self.m, 1000) + 1
        while True:
            if max_iter >= 0 and self.n_iter >= max_iter:
                return ST_MAX_ITER
            counter -= 1
            if counter == 0:
                counter = min(self.m, 1000)
                if self.shrinking:
                    self.shrink(tol)
            if self.select(tol, &i, &j, gap) != 0:
                # Optimal on the active set: check the whole problem.
                self.reconstruct_gradient()
                if self.select(tol, &i, &j, gap) != 0:
                    return ST_OPTIMAL
                counter = 1
            self.step(i, j)
            self.n_iter += 1
            status = self._report(gap[0])
            if status != ST_OPTIMAL:
                return status

    cdef int _solve_working_sets(self, double tol, long max_iter, double* gap) except -1 nogil:
        """SVMTorch's loop: a working set of q variables, its rows in GEMM blocks, its
        sub-problem solved on the cached block, then G for every active variable.  Iterations
        count the sub-problems' pair steps."""
        cdef int i = 0, j = 0, status
        cdef long counter = min(self.m, 1000) + 1, it, cap
        while True:
            if max_iter >= 0 and self.n_iter >= max_iter:
                return ST_MAX_ITER
            if counter <= 0:
                counter = min(self.m, 1000)
                if self.shrinking:
                    self.shrink(tol)
            if self._select_ws(tol, gap) == 0:
                # Optimal on the active set: check the whole problem.
                self.reconstruct_gradient()
                if self._select_ws(tol, gap) == 0:
                    return ST_OPTIMAL
                counter = 0
            self._load_ws()
            # Each sub-problem lowers its violation tenfold (or to tol), as ThunderSVM; the steps
            # are capped so that progress reports fall on their iterations.
            cap = max(1000, 50 * <long> self.W.size)
            cap = min(cap, self.next_report - self.n_iter)
            if max_iter >= 0:
                cap = min(cap, max_iter - self.n_iter)
            it = self.W.solve(max(tol, INNER_FRACTION * gap[0]), cap)
            self.n_outer += 1
            self._apply_ws()
            if it == 0:
                # Not expected (the sub-problem holds the maximal violating pair), but a
                # rounding corner must not loop: one ordinary pair step instead.
                if self.select(tol, &i, &j, gap) != 0:
                    return ST_OPTIMAL
                self.step(i, j)
                it = 1
            self.n_iter += it
            counter -= it
            status = self._report(gap[0])
            if status != ST_OPTIMAL:
                return status

    def solve(self, double tol, long max_iter, object callback, long report_every):
        cdef double gap = INFINITY
        cdef int status
        self.callback = callback
        self.report_every = report_every
        self.next_report = report_every
        with nogil:
            self.init_gradient()
            if self.use_ws:
                status = self._solve_working_sets(tol, max_iter, &gap)
            else:
                status = self._solve_pairs(tol, max_iter, &gap)
            if status != ST_OPTIMAL:
                self.reconstruct_gradient()
        self.callback = None
        return {
            "alpha": np.asarray(self.alpha).copy(),
            "G": np.asarray(self.G).copy(),
            "rho": self.rho(),
            "objective": self.objective(),
            "n_iter": int(self.n_iter),
            "status": status,
            "gap": float(gap),
            "n_kernel_rows": int(self.Q.n_rows()),
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
    cdef _RowCache cache = None
    cdef int n
    if q < 4:
        q = 2
    if Kpre64 is not None:
        n = Kpre64.shape[0]
    elif kind == K_PRECOMPUTED:
        n = Kpre.shape[0]
    else:
        if X is None:
            X = np.zeros((0, 0), dtype=np.float32)
        n = X.shape[0]
        cache = _RowCache(X, kind, gamma, coef0, degree, cache_mb, block, q if q >= 4 else 0,
                          n_threads)
    Q = _QMatrix(y, ex, QD, dadd, cache, Kpre, Kpre64)
    solver = _Solver(Q, p, ub, alpha0, shrinking, n_threads, q, n)
    return solver.solve(tol, max_iter, callback, report_every)
