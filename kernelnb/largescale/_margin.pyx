# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Inner loops of the margin models of Collobert's thesis (2004, ch. 3 and 8).

Every function runs the examples ``order[start:]`` one at a time, without the GIL, in place on
the model's arrays, and stops early once it has made ``max_updates`` updates (``max_updates <
0``: no limit).  It returns ``(position, loss, updates)``: the position in ``order`` of the
first example not processed (``len(order)`` at the end of the epoch), the sum of the losses of
the processed examples (each before its own update) and the number of updates made.  The
Python layer resumes at ``position`` -- this is how the margin is recorded every ``k``
updates and how training stops after exactly ``t`` updates (Figs. 8.2 and 8.3).

* :func:`linear_run`: ``f(x) = w . x + b``; on ``y f(x) <= beta`` the update ``w += lam y x,
  b += lam y``, and the weight decay ``w <- (1 - lam mu) w`` on every example: the original
  Perceptron (Alg. 3.1: ``beta = 0``, ``mu = 0``), the margin Perceptron (Alg. 8.1: ``beta =
  1``, ``mu = 0``) and stochastic gradient on the hinge with weight decay (eq. 8.16), with the
  dual coefficients of eq. (8.17) kept beside ``w``.  The decay is a scale factor applied
  lazily, so an example without update costs one dot product.
* :func:`simple_mlp_run`: Algorithm 8.2 (HardTanh committee without output weights).
* :func:`nilsson_run`: Algorithm 8.3 (committee of sign units, majority vote).
* :func:`hinge_mlp_run`: stochastic gradient of the MLP cost (8.10) (hinge loss, weight decays
  ``mu`` on the output weights and ``nu`` on the hidden weights, two learning rates).
* :func:`kernel_margin_run`: the margin Perceptron in dual form, on the vector ``F`` of the
  training outputs kept up to date from the kernel rows of the updated examples (a row cache
  filled by the caller: the loop returns asking for a row it does not have).

:func:`linear_record` is not a loop over updates: it reads a linear model's margin and errors
on a set in one pass, what the margin history records every ``k`` updates.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport INFINITY, fabs, sqrt, tanh
from kernelnb._blas cimport _axpy, _dot, _scal

cnp.import_array()

HARDTANH = 0
TANH = 1


def _check_order(const cnp.intp_t[::1] order, Py_ssize_t n, Py_ssize_t start):
    cdef Py_ssize_t i
    if start < 0 or start > order.shape[0]:
        raise ValueError(f"start = {start} is not a position in order (length "
                         f"{order.shape[0]})")
    for i in range(start, order.shape[0]):
        if order[i] < 0 or order[i] >= n:
            raise ValueError(f"order[{i}] = {order[i]} is not a row index of X")


def linear_run(const double[:, ::1] X, const double[::1] y, const cnp.intp_t[::1] order,
               Py_ssize_t start, double[::1] w, double[::1] b, double[::1] alpha,
               double learning_rate, double beta, double decay, Py_ssize_t max_updates):
    """Linear Perceptrons (Alg. 3.1, Alg. 8.1, eq. 8.16) from ``order[start]`` on.

    For each example: ``f = w . x + b``; ``w <- (1 - decay) w`` (``decay = lam mu``; the bias is
    not decayed) and, when ``y f <= beta``, ``w += lam y x, b += lam y``.  ``alpha`` (length
    ``n`` or 0) holds the coefficients of ``w = sum_l alpha_l y_l x_l`` (eq. 8.17 divided by
    ``mu``): every ``alpha`` decays by ``1 - decay`` and ``alpha_l += lam`` on an update.
    The loss of an example is ``|beta - y f|_+``.
    """
    cdef Py_ssize_t n = X.shape[0], m = order.shape[0], i = start, l, updates = 0
    cdef int d = X.shape[1]
    cdef bint dual = alpha.shape[0] > 0
    cdef double f, yl, lam = learning_rate, keep = 1.0 - decay, s = 1.0, total = 0.0
    if w.shape[0] != d or b.shape[0] != 1 or y.shape[0] != n or (dual and alpha.shape[0] != n):
        raise ValueError("inconsistent shapes: X (n, d), y (n,), w (d,), b (1,), alpha (n,) "
                         "or (0,)")
    if not 0.0 <= decay < 1.0:
        raise ValueError(f"decay = learning_rate * weight_decay must be in [0, 1), got {decay}")
    _check_order(order, n, start)
    with nogil:
        while i < m and updates != max_updates:
            l = order[i]
            i += 1
            yl = y[l]
            f = s * _dot(&w[0], &X[l, 0], d) + b[0]
            s *= keep                               # w <- (1 - lam mu) w, lazily
            if yl * f <= beta:
                total += beta - yl * f
                updates += 1
                _axpy(lam * yl / s, &X[l, 0], &w[0], d)
                b[0] += lam * yl
                if dual:
                    alpha[l] += lam / s
            if s < 1e-100:                          # fold the scale in before it underflows
                _scal(s, &w[0], d)
                if dual:
                    _scal(s, &alpha[0], <int>n)
                s = 1.0
        if s != 1.0:
            _scal(s, &w[0], d)
            if dual:
                _scal(s, &alpha[0], <int>n)
    return i, total, updates


def simple_mlp_run(const double[:, ::1] X, const double[::1] y, const cnp.intp_t[::1] order,
                   Py_ssize_t start, double[:, ::1] V, double[::1] a, double[::1] b,
                   double learning_rate, double beta, Py_ssize_t max_updates):
    """The Simple MLP (Alg. 8.2): ``f(x) = b + sum_n HardTanh(v_n . x + a_n)``; on ``y f <=
    beta`` every unit with ``|v_n . x + a_n| <= 1`` (before the update) moves by ``v_n += lam y
    x, a_n += lam y``, and ``b += lam y``.  Loss ``|beta - y f|_+``."""
    cdef Py_ssize_t n = X.shape[0], m = order.shape[0], i = start, l, updates = 0
    cdef int d = X.shape[1], N = V.shape[0], j
    cdef double[::1] z = np.empty(max(N, 1))
    cdef double f, yl, lam = learning_rate, total = 0.0
    if V.shape[1] != d or a.shape[0] != N or b.shape[0] != 1 or y.shape[0] != n:
        raise ValueError("inconsistent shapes: X (n, d), y (n,), V (N, d), a (N,), b (1,)")
    _check_order(order, n, start)
    with nogil:
        while i < m and updates != max_updates:
            l = order[i]
            i += 1
            yl = y[l]
            f = b[0]
            for j in range(N):
                z[j] = _dot(&V[j, 0], &X[l, 0], d) + a[j]
                f += 1.0 if z[j] > 1.0 else (-1.0 if z[j] < -1.0 else z[j])
            if yl * f <= beta:
                total += beta - yl * f
                updates += 1
                for j in range(N):
                    if fabs(z[j]) <= 1.0:
                        _axpy(lam * yl, &X[l, 0], &V[j, 0], d)
                        a[j] += lam * yl
                b[0] += lam * yl
    return i, total, updates


def nilsson_run(const double[:, ::1] X, const double[::1] y, const cnp.intp_t[::1] order,
                Py_ssize_t start, double[:, ::1] V, double[::1] a, double learning_rate,
                Py_ssize_t max_updates):
    """The Nilsson MLP (Alg. 8.3): ``f(x) = sum_n sign(v_n . x + a_n)`` (``sign(0) = +1``, so
    ``f`` is odd for an odd number of units), no output bias.  On ``y f <= 0`` the units with
    ``y sign(z_n) < 0``, sorted by ``|z_n|`` ascending, are updated ``v_n += lam y x, a_n += lam
    y`` for the first ``ceil((|f| + 1) / 2)`` of them (the fewest flips that make ``y f > 0``).
    Loss: the number of units to flip, ``ceil((|f| + 1) / 2)`` on a mistake, else 0."""
    cdef Py_ssize_t n = X.shape[0], m = order.shape[0], i = start, l, updates = 0
    cdef int d = X.shape[1], N = V.shape[0], j, k, q, nw, need, f
    cdef double[::1] z = np.empty(max(N, 1))
    cdef cnp.intp_t[::1] wrong = np.empty(max(N, 1), dtype=np.intp)
    cdef double yl, lam = learning_rate, total = 0.0, key
    if V.shape[1] != d or a.shape[0] != N or y.shape[0] != n:
        raise ValueError("inconsistent shapes: X (n, d), y (n,), V (N, d), a (N,)")
    _check_order(order, n, start)
    with nogil:
        while i < m and updates != max_updates:
            l = order[i]
            i += 1
            yl = y[l]
            f = 0
            for j in range(N):
                z[j] = _dot(&V[j, 0], &X[l, 0], d) + a[j]
                f += 1 if z[j] >= 0.0 else -1
            if yl * f > 0:
                continue
            need = (abs(f) + 2) // 2                # ceil((|f| + 1) / 2)
            total += need
            updates += 1
            # the misclassifying units, by |z| ascending (insertion sort: N is small)
            nw = 0
            for j in range(N):
                if yl * (1.0 if z[j] >= 0.0 else -1.0) < 0:
                    key = fabs(z[j])
                    q = nw
                    while q > 0 and fabs(z[wrong[q - 1]]) > key:
                        wrong[q] = wrong[q - 1]
                        q -= 1
                    wrong[q] = j
                    nw += 1
            for k in range(min(need, nw)):
                j = wrong[k]
                _axpy(lam * yl, &X[l, 0], &V[j, 0], d)
                a[j] += lam * yl
    return i, total, updates


def hinge_mlp_run(const double[:, ::1] X, const double[::1] y, const cnp.intp_t[::1] order,
                  Py_ssize_t start, double[:, ::1] V, double[::1] a, double[::1] w,
                  double[::1] b, double lr_output, double lr_hidden, double mu, double nu,
                  int activation, Py_ssize_t max_updates):
    """Stochastic gradient of the MLP cost (8.10), ``mu/2 ||w||^2 + nu/2 sum_n ||v_n||^2 +
    (1/L) sum_l |1 - y_l f(x_l)|_+`` with ``f(x) = sum_n w_n h(v_n . x + a_n) + b``, ``h`` the
    HardTanh (``activation = 0``) or tanh (``1``).

    Every example: the gradient of its hinge at the current weights, then ``w <- (1 - lr_output
    mu) w``, ``V <- (1 - lr_hidden nu) V`` (biases not decayed) and, when ``y f <= 1``: ``w_n +=
    lr_output y h_n``, ``b += lr_output y``, ``v_n += lr_hidden y w_n h'(z_n) x``, ``a_n +=
    lr_hidden y w_n h'(z_n)``.  Loss ``|1 - y f|_+``."""
    cdef Py_ssize_t n = X.shape[0], m = order.shape[0], i = start, l, updates = 0
    cdef int d = X.shape[1], N = V.shape[0], j, NV = V.shape[0] * V.shape[1]
    cdef double[::1] h = np.empty(max(N, 1)), g = np.empty(max(N, 1))
    cdef double f, yl, total = 0.0, zj
    cdef double keep_w = 1.0 - lr_output * mu, keep_v = 1.0 - lr_hidden * nu
    if (V.shape[1] != d or a.shape[0] != N or w.shape[0] != N or b.shape[0] != 1
            or y.shape[0] != n):
        raise ValueError("inconsistent shapes: X (n, d), y (n,), V (N, d), a (N,), w (N,), "
                         "b (1,)")
    if not (0.0 < keep_w <= 1.0 and 0.0 < keep_v <= 1.0):
        raise ValueError("learning rate * weight decay must be in [0, 1)")
    _check_order(order, n, start)
    with nogil:
        while i < m and updates != max_updates:
            l = order[i]
            i += 1
            yl = y[l]
            f = b[0]
            for j in range(N):
                zj = _dot(&V[j, 0], &X[l, 0], d) + a[j]
                if activation == 0:
                    h[j] = 1.0 if zj > 1.0 else (-1.0 if zj < -1.0 else zj)
                    g[j] = 1.0 if fabs(zj) <= 1.0 else 0.0
                else:
                    h[j] = tanh(zj)
                    g[j] = 1.0 - h[j] * h[j]
                f += w[j] * h[j]
            if keep_v != 1.0:
                _scal(keep_v, &V[0, 0], NV)
            if yl * f <= 1.0:
                total += 1.0 - yl * f
                updates += 1
                for j in range(N):
                    g[j] *= yl * w[j]               # y w_n h'(z_n) with the old w_n
                    w[j] = keep_w * w[j] + lr_output * yl * h[j]
                    if g[j] != 0.0:
                        _axpy(lr_hidden * g[j], &X[l, 0], &V[j, 0], d)
                        a[j] += lr_hidden * g[j]
                b[0] += lr_output * yl
            elif keep_w != 1.0:
                _scal(keep_w, &w[0], N)
    return i, total, updates


def kernel_margin_run(const double[::1] y, const cnp.intp_t[::1] order, Py_ssize_t start,
                      double[::1] alpha, double[::1] b, double[::1] F, double[::1] wnorm2,
                      const double[:, ::1] rows, const cnp.intp_t[::1] slot,
                      const double[::1] kdiag, double learning_rate, double beta,
                      Py_ssize_t max_updates):
    """The margin Perceptron in dual form: ``f(x) = sum_j alpha_j y_j k(x_j, x) + b``.

    ``F`` holds ``f(x_i)`` for every training example; ``rows[slot[l]]`` is the kernel row
    ``k(x_l, .)`` when ``slot[l] >= 0``.  On ``y_l F_l <= beta``: ``alpha_l += lam``, ``b +=
    lam y_l``, ``F += lam y_l (k(x_l, .) + 1)`` and ``wnorm2[0] = ||w||^2`` (in the feature space
    of the kernel) is updated exactly.  Returns ``(position, loss, updates, missing)``: when
    the example at ``position`` needs a row that is not cached, the loop stops there and
    ``missing`` is its index (else -1); the caller fills a slot and calls again."""
    cdef Py_ssize_t n = F.shape[0], m = order.shape[0], i = start, l, updates = 0, missing = -1
    cdef Py_ssize_t j, s
    cdef double yl, lam = learning_rate, total = 0.0, c
    if (y.shape[0] != n or alpha.shape[0] != n or slot.shape[0] != n or kdiag.shape[0] != n
            or rows.shape[1] != n or b.shape[0] != 1 or wnorm2.shape[0] != 1):
        raise ValueError("inconsistent shapes: y, alpha, F, slot, kdiag (n,), rows (r, n), b, "
                         "wnorm2 (1,)")
    _check_order(order, n, start)
    with nogil:
        while i < m and updates != max_updates:
            l = order[i]
            yl = y[l]
            if yl * F[l] <= beta:
                s = slot[l]
                if s < 0:
                    missing = l
                    break
                total += beta - yl * F[l]
                updates += 1
                c = lam * yl
                wnorm2[0] += 2.0 * c * (F[l] - b[0]) + c * c * kdiag[l]
                alpha[l] += lam
                b[0] += c
                for j in range(n):
                    F[j] += c * (rows[s, j] + 1.0)
            i += 1
    return i, total, updates, missing


def linear_record(const double[:, ::1] X, const double[::1] y, const double[::1] w, double b):
    """``(||w||, min_l y_l f(x_l), #{l: y_l f(x_l) <= 0}, #{l: sign error})`` for ``f(x) = w . x
    + b`` on the rows of ``X`` with targets ``y`` = +-1, in one pass.

    The third count is the margin history's training error (an output of 0 is an error); the
    fourth is predict's (``f > 0`` is the class of ``y = +1``, ``f <= 0`` the other): a
    validation error.  The minimum is ``inf`` for no rows.
    """
    cdef Py_ssize_t n = X.shape[0], l
    cdef int d = X.shape[1]
    cdef double f, yf, lo = INFINITY, nw
    cdef Py_ssize_t nonpos = 0, wrong = 0
    if w.shape[0] != d or y.shape[0] != n:
        raise ValueError("inconsistent shapes: X (n, d), y (n,), w (d,)")
    with nogil:
        nw = sqrt(_dot(&w[0], &w[0], d)) if d > 0 else 0.0
        for l in range(n):
            f = (_dot(&w[0], &X[l, 0], d) if d > 0 else 0.0) + b
            yf = y[l] * f
            if yf < lo:
                lo = yf
            if yf <= 0.0:
                nonpos += 1
            if (f > 0.0) != (y[l] > 0.0):
                wrong += 1
    return nw, lo, nonpos, wrong
