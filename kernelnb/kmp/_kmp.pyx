# cython: language_level=3
"""Kernel Matching Pursuit with the squared loss: basic, back-fitting and pre-fitting.

Vincent & Bengio (2002), sections 2.1-2.4.  The three variants share one loop:

* keep ``c = D' R`` (correlations of every atom with the residue), the squared norms
  ``s_k = ||P_{B-perp} d_k||^2`` of the atoms' parts orthogonal to the chosen ones, and an
  orthonormal basis ``Q`` of the chosen atoms (Gram-Schmidt applied twice);
* choose ``argmax c_k^2 / s_k`` (pre-fitting, Eq. 7), ``c_k^2 / ||d_k||^2`` (back-fitting and
  basic, Eq. 3);
* after a choice: ``t = D' q`` (one GEMV over the dictionary), ``c -= (q'R) t``,
  ``R -= (q'R) q``, ``s -= t^2``.  For basic MP the residue moves along the atom itself
  (not along q) and its weight accumulates when an atom is chosen again.

Weights for any prefix of N atoms solve the triangular system ``U[:N, :N] a = z[:N]`` where
``U[j, n] = q_j' d_{gamma_n}`` and ``z = Q' y``; the same recursion gives the orthonormal
functions at validation points, so the validation error of every N costs O(n_val N) per step.
Atoms whose orthogonal part vanishes (already chosen, duplicates, numerically dependent) are
skipped, so nothing divides by zero.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport sqrt, fabs
from scipy.linalg.cython_blas cimport dgemv, ddot, sgemv

cnp.import_array()

ctypedef fused floating:
    float
    double

cdef enum:
    BASIC = 0
    BACKFIT = 1
    PREFIT = 2

VARIANTS = {"basic": BASIC, "backfit": BACKFIT, "prefit": PREFIT}


def squared_path(const floating[::1, :] D, const double[::1] y, int n_basis, int variant,
                 const floating[::1, :] Dval=None, const double[::1] yval=None,
                 bint classification=True, double eps=1e-10, int patience=-1):
    """Run ``n_basis`` steps of KMP on the dictionary ``D`` (l x M, Fortran order).

    ``D`` may be float32 (half the memory traffic of the per-step GEMV, which bounds the speed);
    the correlations, norms, residue and basis are kept in float64 either way.

    Returns a dict: ``basis`` (chosen atom per step), ``train_error`` and ``val_error`` (per
    N = 1..n), the final ``residual``, and ``step_coef`` (basic MP: the weight added at each step,
    accumulated per atom) or ``U`` and ``z`` (back-/pre-fitting: any prefix is solved later).
    ``patience`` > 0 stops when the validation error has not improved for that many steps.
    """
    cdef int l = D.shape[0], M = D.shape[1], n, k, j, gamma, one = 1, N = n_basis, it, tries
    cdef int nv = 0 if Dval is None else Dval.shape[0]
    cdef double best, sc, r, nq, proj, f, err, dv, c_y
    cdef double done = 1.0, dzero = 0.0, dminus = -1.0
    cdef float fone = 1.0, fzero = 0.0
    if y.shape[0] != l:
        raise ValueError("y and the dictionary have different lengths")
    if N < 1:
        raise ValueError(f"n_basis must be >= 1, got {N}")
    if Dval is not None and (yval is None or yval.shape[0] != nv or Dval.shape[1] != M):
        raise ValueError("validation dictionary and targets do not match")

    Dn = np.asarray(D)
    cdef double[::1] norm2 = np.einsum("ij,ij->j", Dn, Dn, dtype=np.float64)
    cdef double[::1] s = np.array(norm2)
    cdef double[::1] R = np.array(y)
    cdef double[::1] c = (Dn.T @ np.asarray(y).astype(Dn.dtype)).astype(np.float64)
    cdef double[::1] t = np.empty(M)
    cdef float[::1] tf = np.empty(M if floating is float else 1, dtype=np.float32)
    cdef float[::1] qf = np.empty(l if floating is float else 1, dtype=np.float32)
    cdef double[::1, :] Q = np.zeros((l, N), order="F")
    cdef double[::1, :] U = np.zeros((N, N), order="F")
    cdef double[::1] z = np.zeros(N)
    cdef double[::1] q = np.empty(l)
    cdef double[::1] h = np.empty(N)
    cdef double[::1] hk = np.empty(N)
    cdef int[::1] basis = np.full(N, -1, dtype=np.int32)
    cdef double[::1] step_coef = np.zeros(N)
    cdef double[::1] train_err = np.zeros(N)
    cdef double[::1] val_err = np.zeros(N)
    cdef double[::1] fval = np.zeros(nv)
    cdef double[::1, :] Qv = np.zeros((max(nv, 1), N), order="F")
    cdef double[::1] tv = np.empty(max(nv, 1))
    cdef int steps = 0, since_best = 0
    cdef double best_val = np.inf
    cdef double[::1] eligible_floor = np.empty(M)
    for k in range(M):
        eligible_floor[k] = eps * norm2[k]

    with nogil:
        n = 0
        tries = 0
        while n < N and tries < N + M:
            tries += 1
            # ---- selection -----------------------------------------------------------
            gamma = -1
            best = -1.0
            for k in range(M):
                if norm2[k] <= 0:
                    continue
                if variant != BASIC and s[k] <= eligible_floor[k]:
                    continue
                if variant == PREFIT:
                    sc = c[k] * c[k] / s[k]
                else:
                    sc = c[k] * c[k] / norm2[k]
                if sc > best:
                    best = sc
                    gamma = k
            if gamma < 0 or best <= 0:
                break
            basis[n] = gamma
            steps = n + 1
            if variant == BASIC:
                # ---- basic MP: move along the atom, accumulate its weight ------------
                r = c[gamma] / norm2[gamma]
                step_coef[n] = r
                for j in range(l):
                    R[j] -= r * D[j, gamma]
                # c -= r D' d_gamma
                if floating is float:
                    sgemv("T", &l, &M, &fone, <float*> &D[0, 0], &l, <float*> &D[0, gamma], &one,
                          &fzero, &tf[0], &one)
                    for k in range(M):
                        t[k] = tf[k]
                else:
                    dgemv("T", &l, &M, &done, <double*> &D[0, 0], &l, <double*> &D[0, gamma], &one,
                          &dzero, &t[0], &one)
                for k in range(M):
                    c[k] -= r * t[k]
                for j in range(nv):
                    fval[j] += r * Dval[j, gamma]
            else:
                # ---- orthonormalise the chosen atom against Q (twice) ----------------
                for j in range(l):
                    q[j] = D[j, gamma]
                for k in range(n):
                    h[k] = 0.0
                # classical Gram-Schmidt applied twice (CGS2, as stable as modified G-S), each
                # pass two BLAS GEMVs: hk = Q' q, then q -= Q hk
                if n > 0:
                    for it in range(2):
                        dgemv("T", &l, &n, &done, &Q[0, 0], &l, &q[0], &one, &dzero, &hk[0], &one)
                        dgemv("N", &l, &n, &dminus, &Q[0, 0], &l, &hk[0], &one, &done, &q[0], &one)
                        for k in range(n):
                            h[k] += hk[k]
                nq = sqrt(ddot(&l, &q[0], &one, &q[0], &one))
                if nq <= sqrt(eligible_floor[gamma]) or nq == 0:
                    # numerically dependent after all: exclude it and choose again
                    s[gamma] = 0.0
                    steps = n
                    basis[n] = -1
                    continue
                for j in range(l):
                    q[j] /= nq
                    Q[j, n] = q[j]
                for k in range(n):
                    U[k, n] = h[k]
                U[n, n] = nq
                r = ddot(&l, &q[0], &one, &R[0], &one)
                z[n] = r
                if floating is float:
                    for j in range(l):
                        qf[j] = <float> q[j]
                    sgemv("T", &l, &M, &fone, <float*> &D[0, 0], &l, &qf[0], &one, &fzero,
                          &tf[0], &one)
                    for k in range(M):
                        t[k] = tf[k]
                else:
                    dgemv("T", &l, &M, &done, <double*> &D[0, 0], &l, &q[0], &one, &dzero,
                          &t[0], &one)
                for k in range(M):
                    c[k] -= r * t[k]
                    s[k] -= t[k] * t[k]
                s[gamma] = 0.0
                for j in range(l):
                    R[j] -= r * q[j]
                # validation: q_n(x) = (d_gamma(x) - sum_k U[k, n] q_k(x)) / U[n, n]
                for j in range(nv):
                    dv = Dval[j, gamma]
                    for k in range(n):
                        dv -= U[k, n] * Qv[j, k]
                    Qv[j, n] = dv / nq
                    fval[j] += r * Qv[j, n]
            # ---- errors of the model with n + 1 atoms ----------------------------------
            err = 0.0
            for j in range(l):
                f = y[j] - R[j]
                if classification:
                    if (f > 0) != (y[j] > 0):
                        err += 1
                else:
                    err += (y[j] - f) * (y[j] - f)
            train_err[n] = err / l
            if nv > 0:
                err = 0.0
                for j in range(nv):
                    if classification:
                        if (fval[j] > 0) != (yval[j] > 0):
                            err += 1
                    else:
                        err += (yval[j] - fval[j]) * (yval[j] - fval[j])
                val_err[n] = err / nv
                if val_err[n] < best_val:
                    best_val = val_err[n]
                    since_best = 0
                else:
                    since_best += 1
                    if patience > 0 and since_best >= patience:
                        break
            n += 1

    out = {
        "basis": np.asarray(basis[:steps]).copy(),
        "train_error": np.asarray(train_err[:steps]).copy(),
        "val_error": np.asarray(val_err[:steps]).copy() if nv > 0 else None,
        "residual": np.asarray(R).copy(),
    }
    if variant == BASIC:
        out["step_coef"] = np.asarray(step_coef[:steps]).copy()
    else:
        out["U"] = np.asarray(U)[:steps, :steps].copy()
        out["z"] = np.asarray(z[:steps]).copy()
    return out
