# cython: language_level=3
"""Stochastic-gradient inner loops of the MLP and of the margin models (Collobert's thesis).

Every loop runs one epoch over the examples in the order given by the Python layer (a
permutation drawn from its ``numpy.random.RandomState``), one example at a time, without the
GIL.  Rows of weight matrices are contiguous, so each hidden unit costs one dot product forward
and one axpy backward (level-1 BLAS from scipy).

* :func:`mlp_epoch`: one hidden tanh layer, linear outputs; squared error, binary logistic
  cross-entropy (one output, targets +-1) or softmax cross-entropy (one output per class,
  one-hot targets); per-example weight decay on the weight matrices (not on the biases) and a
  learning rate ``lr / (1 + decay * t)`` where ``t`` counts the examples seen since the start.
* :func:`mlp_loss_grad`: the mean loss (+ weight decay) and its exact gradient for given
  weights, through the same forward/backward code (the tests compare it with finite
  differences).
* :func:`simple_mlp_epoch`: Algorithm 8.2 (HardTanh hidden units, no output weights,
  beta-hinge), updating only on examples with ``y f(x) <= beta`` and only the units in their
  linear region ``|v_n . x + a_n| <= 1``.
* :func:`margin_perceptron_epoch`: Algorithm 8.1 with the beta-hinge.
* :func:`balance_run`: the mixture of SVMs' reassignment loop (Collobert's thesis Alg. 6.1, step
  2.3) on precomputed preference lists, until an example finds every listed expert full.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log, log1p, tanh, fabs
from scipy.linalg.cython_blas cimport ddot, daxpy, dscal

cnp.import_array()

cdef enum:
    SQUARED = 0
    LOGISTIC = 1
    SOFTMAX = 2

LOSSES = {"squared": SQUARED, "logistic": LOGISTIC, "softmax": SOFTMAX}


cdef inline double _dot(const double* a, const double* b, int n) noexcept nogil:
    cdef int one = 1
    return ddot(&n, <double*>a, &one, <double*>b, &one)


cdef inline void _axpy(double alpha, const double* x, double* y, int n) noexcept nogil:
    cdef int one = 1
    daxpy(&n, &alpha, <double*>x, &one, y, &one)


cdef inline void _scal(double alpha, double* x, int n) noexcept nogil:
    cdef int one = 1
    dscal(&n, &alpha, x, &one)


cdef double _forward_backward(const double* x, const double* t, int d, int H, int K,
                              const double* W1, const double* b1,
                              const double* W2, const double* b2,
                              double* h, double* o, double* go, double* gh,
                              int loss) noexcept nogil:
    """Loss of one example; fills the hidden outputs h, the outputs o, dQ/do (go) and dQ/da
    for the hidden pre-activations a (gh), all with the weights as given."""
    cdef int j, k
    cdef double Q = 0.0, z, e, m, s, tsum, g
    for j in range(H):
        h[j] = tanh(_dot(W1 + <Py_ssize_t>j * d, x, d) + b1[j])
    for k in range(K):
        o[k] = _dot(W2 + <Py_ssize_t>k * H, h, H) + b2[k]
    if loss == SQUARED:
        for k in range(K):
            go[k] = o[k] - t[k]
            Q += 0.5 * go[k] * go[k]
    elif loss == LOGISTIC:
        # Q = log(1 + exp(-z)), z = t o (t = +-1); dQ/do = -t / (1 + exp(z))
        z = t[0] * o[0]
        if z >= 0:
            e = exp(-z)
            Q = log1p(e)
            go[0] = -t[0] * e / (1.0 + e)
        else:
            e = exp(z)
            Q = -z + log1p(e)
            go[0] = -t[0] / (1.0 + e)
    else:
        # Q = -sum_k t_k log softmax(o)_k ; dQ/do_k = p_k sum(t) - t_k
        m = o[0]
        for k in range(1, K):
            if o[k] > m:
                m = o[k]
        s = 0.0
        for k in range(K):
            go[k] = exp(o[k] - m)
            s += go[k]
        tsum = 0.0
        for k in range(K):
            Q -= t[k] * (o[k] - m - log(s))
            tsum += t[k]
        for k in range(K):
            go[k] = go[k] / s * tsum - t[k]
    for j in range(H):
        g = 0.0
        for k in range(K):
            g += go[k] * W2[<Py_ssize_t>k * H + j]
        gh[j] = g * (1.0 - h[j] * h[j])
    return Q


def _check_shapes(X, T, W1, b1, W2, b2):
    n, d = X.shape[0], X.shape[1]
    H, K = W1.shape[0], W2.shape[0]
    if T.shape[0] != n or T.shape[1] != K:
        raise ValueError(f"T must have shape ({n}, {K}), got ({T.shape[0]}, {T.shape[1]})")
    if W1.shape[1] != d or b1.shape[0] != H or W2.shape[1] != H or b2.shape[0] != K:
        raise ValueError("inconsistent weight shapes: W1 (H, d), b1 (H,), W2 (K, H), b2 (K,)")


def mlp_epoch(const double[:, ::1] X, const double[:, ::1] T, const cnp.intp_t[::1] order,
              double[:, ::1] W1, double[::1] b1, double[:, ::1] W2, double[::1] b2,
              double learning_rate, double decay=0.0, double weight_decay=0.0,
              long long t0=0, int loss=SQUARED):
    """One epoch of per-example stochastic gradient, in place on (W1, b1, W2, b2).

    For each example ``l = order[i]``, with ``lam = learning_rate / (1 + decay * t)`` and ``t``
    the number of examples seen before it (starting at ``t0``): forward pass, dQ/do and the
    hidden gradients (with the current W2), then ``W2 <- (1 - lam mu) W2 - lam go h'``,
    ``b2 -= lam go``, ``W1 <- (1 - lam mu) W1 - lam gh x'``, ``b1 -= lam gh`` (mu =
    ``weight_decay``).

    Returns ``(mean loss of the examples before their update, t0 + len(order))``.
    """
    _check_shapes(X, T, W1, b1, W2, b2)
    cdef Py_ssize_t n = X.shape[0], i, l, m = order.shape[0]
    cdef int d = X.shape[1], H = W1.shape[0], K = W2.shape[0], j, k
    cdef double[::1] h = np.empty(H), gh = np.empty(H), o = np.empty(K), go = np.empty(K)
    cdef double total = 0.0, lam, shrink
    cdef long long t = t0
    for i in range(m):
        if order[i] < 0 or order[i] >= n:
            raise ValueError(f"order[{i}] = {order[i]} is not a row index of X")
    if H == 0 or K == 0:
        return 0.0, t0 + m
    with nogil:
        for i in range(m):
            l = order[i]
            lam = learning_rate / (1.0 + decay * t)
            shrink = 1.0 - lam * weight_decay
            total += _forward_backward(&X[l, 0], &T[l, 0], d, H, K, &W1[0, 0], &b1[0],
                                       &W2[0, 0], &b2[0], &h[0], &o[0], &go[0], &gh[0], loss)
            for k in range(K):
                if shrink != 1.0:
                    _scal(shrink, &W2[k, 0], H)
                _axpy(-lam * go[k], &h[0], &W2[k, 0], H)
                b2[k] -= lam * go[k]
            for j in range(H):
                if shrink != 1.0:
                    _scal(shrink, &W1[j, 0], d)
                if gh[j] != 0.0:
                    _axpy(-lam * gh[j], &X[l, 0], &W1[j, 0], d)
                b1[j] -= lam * gh[j]
            t += 1
    return (total / m if m else 0.0), t


def mlp_loss_grad(const double[:, ::1] X, const double[:, ::1] T,
                  const double[:, ::1] W1, const double[::1] b1,
                  const double[:, ::1] W2, const double[::1] b2,
                  double weight_decay=0.0, int loss=SQUARED):
    """Mean loss ``(1/n) sum_l Q_l + mu/2 (||W1||^2 + ||W2||^2)`` and its gradient.

    Returns ``(J, gW1, gb1, gW2, gb2)``; the expectation over a random example of the step
    taken by :func:`mlp_epoch` is ``-lam`` times this gradient.
    """
    _check_shapes(X, T, W1, b1, W2, b2)
    cdef Py_ssize_t n = X.shape[0], l
    cdef int d = X.shape[1], H = W1.shape[0], K = W2.shape[0], j, k
    gW1_a = np.zeros((H, d))
    gW2_a = np.zeros((K, H))
    gb1_a = np.zeros(H)
    gb2_a = np.zeros(K)
    cdef double[:, ::1] gW1 = gW1_a, gW2 = gW2_a
    cdef double[::1] gb1 = gb1_a, gb2 = gb2_a
    cdef double[::1] h = np.empty(max(H, 1)), gh = np.empty(max(H, 1))
    cdef double[::1] o = np.empty(max(K, 1)), go = np.empty(max(K, 1))
    cdef double total = 0.0
    if n == 0:
        raise ValueError("X has no rows")
    if H > 0 and K > 0:
        with nogil:
            for l in range(n):
                total += _forward_backward(&X[l, 0], &T[l, 0], d, H, K, &W1[0, 0], &b1[0],
                                           &W2[0, 0], &b2[0], &h[0], &o[0], &go[0], &gh[0],
                                           loss)
                for k in range(K):
                    _axpy(go[k], &h[0], &gW2[k, 0], H)
                    gb2[k] += go[k]
                for j in range(H):
                    _axpy(gh[j], &X[l, 0], &gW1[j, 0], d)
                    gb1[j] += gh[j]
    W1a = np.asarray(W1)
    W2a = np.asarray(W2)
    J = total / n + 0.5 * weight_decay * (float(np.sum(W1a * W1a)) + float(np.sum(W2a * W2a)))
    gW1_a /= n
    gW2_a /= n
    gb1_a /= n
    gb2_a /= n
    gW1_a += weight_decay * W1a
    gW2_a += weight_decay * W2a
    return J, gW1_a, gb1_a, gW2_a, gb2_a


def simple_mlp_epoch(const double[:, ::1] X, const double[::1] y, const cnp.intp_t[::1] order,
                     double[:, ::1] V, double[::1] a, double[::1] b,
                     double learning_rate, double beta):
    """One epoch of the Simple MLP (thesis Algorithm 8.2), in place on (V, a, b).

    ``f(x) = b + sum_n HardTanh(v_n . x + a_n)`` with ``HardTanh(z) = clip(z, -1, 1)``;
    ``y = +-1``; ``b`` is an array of length 1.  For each example with ``y f(x) <= beta``:
    every unit with ``|v_n . x + a_n| <= 1`` moves by ``v_n += lam y x, a_n += lam y`` (the
    pre-activations are those before the example's update), then ``b += lam y``.

    Returns ``(mean beta-hinge |beta - y f(x)|_+ of the examples before their update,
    number of updated examples)``.
    """
    cdef Py_ssize_t n = X.shape[0], i, l, m = order.shape[0], updates = 0
    cdef int d = X.shape[1], N = V.shape[0], j
    cdef double[::1] z = np.empty(max(N, 1))
    cdef double f, yl, lam = learning_rate, total = 0.0
    if V.shape[1] != d or a.shape[0] != N or b.shape[0] != 1 or y.shape[0] != n:
        raise ValueError("inconsistent shapes: X (n, d), y (n,), V (N, d), a (N,), b (1,)")
    for i in range(m):
        if order[i] < 0 or order[i] >= n:
            raise ValueError(f"order[{i}] = {order[i]} is not a row index of X")
    with nogil:
        for i in range(m):
            l = order[i]
            yl = y[l]
            f = b[0]
            for j in range(N):
                z[j] = _dot(&V[j, 0], &X[l, 0], d) + a[j]
                if z[j] > 1.0:
                    f += 1.0
                elif z[j] < -1.0:
                    f -= 1.0
                else:
                    f += z[j]
            if yl * f <= beta:
                total += beta - yl * f
                updates += 1
                for j in range(N):
                    if fabs(z[j]) <= 1.0:
                        _axpy(lam * yl, &X[l, 0], &V[j, 0], d)
                        a[j] += lam * yl
                b[0] += lam * yl
    return (total / m if m else 0.0), updates


def margin_perceptron_epoch(const double[:, ::1] X, const double[::1] y,
                            const cnp.intp_t[::1] order, double[::1] w, double[::1] b,
                            double learning_rate, double beta):
    """One epoch of the margin Perceptron (thesis Algorithm 8.1 with margin ``beta``).

    ``f(x) = w . x + b``; for each example with ``y f(x) <= beta``: ``w += lam y x``,
    ``b += lam y`` (``b`` an array of length 1).  Returns ``(mean beta-hinge before the
    updates, number of updates)``.
    """
    cdef Py_ssize_t n = X.shape[0], i, l, m = order.shape[0], updates = 0
    cdef int d = X.shape[1]
    cdef double f, yl, lam = learning_rate, total = 0.0
    if w.shape[0] != d or b.shape[0] != 1 or y.shape[0] != n:
        raise ValueError("inconsistent shapes: X (n, d), y (n,), w (d,), b (1,)")
    for i in range(m):
        if order[i] < 0 or order[i] >= n:
            raise ValueError(f"order[{i}] = {order[i]} is not a row index of X")
    with nogil:
        for i in range(m):
            l = order[i]
            yl = y[l]
            f = _dot(&w[0], &X[l, 0], d) + b[0]
            if yl * f <= beta:
                total += beta - yl * f
                updates += 1
                _axpy(lam * yl, &X[l, 0], &w[0], d)
                b[0] += lam * yl
    return (total / m if m else 0.0), updates


def balance_run(const cnp.int64_t[:, ::1] prefs, const cnp.int64_t[::1] order, Py_ssize_t start,
                cnp.int64_t capacity, cnp.int64_t[::1] counts, cnp.uint8_t[::1] full,
                cnp.int64_t[::1] out):
    """Examples ``order[start:]`` in turn each take the first expert of their list
    ``prefs[l]`` (best first) that is not ``full``, updating ``counts``/``full``/``out`` in
    place; returns the position in ``order`` of the first example whose listed experts are all
    full (its list must be refreshed by the caller), or ``len(order)`` when every example is
    placed."""
    cdef Py_ssize_t t, j, m = prefs.shape[1], n = order.shape[0], stop = n
    cdef cnp.int64_t l, e
    with nogil:
        for t in range(start, n):
            l = order[t]
            e = -1
            for j in range(m):
                if not full[prefs[l, j]]:
                    e = prefs[l, j]
                    break
            if e < 0:
                stop = t
                break
            out[l] = e
            counts[e] += 1
            if counts[e] >= capacity:
                full[e] = 1
    return stop
