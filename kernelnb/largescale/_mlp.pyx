# cython: language_level=3
"""Stochastic-gradient inner loops of the MLP and of the mixtures (Collobert's thesis); the
margin models of chapter 8 run in :mod:`kernelnb.largescale._margin`.

Every loop runs one epoch over the examples in the order given by the Python layer (a
permutation drawn from its ``numpy.random.RandomState``), one example at a time, without the
GIL.  Rows of weight matrices are contiguous, so each hidden unit costs one dot product forward
and one axpy backward (level-1 BLAS from scipy).

* :func:`mlp_epoch`: one hidden tanh layer, linear outputs; squared error, binary logistic
  cross-entropy (one output, targets +-1) or softmax cross-entropy (one output per class,
  one-hot targets); per-example weight decay on the weight matrices (not on the biases) and a
  learning rate ``lr / (1 + decay * t)`` where ``t`` counts the examples seen since the start.
  ``tanh_squared`` is the squared error of tanh outputs, ``1/2 (t - tanh(o))^2`` (the thesis's
  "MLP+Tanh+MSE", ch. 7).
* :func:`moe_epoch` / :func:`moe_loss_grad`: the standard (soft) mixture of experts
  ``f(x) = sum_k g_k(x) f_k(x)`` with one-hidden-layer tanh MLP experts and a softmax gater
  (linear or one tanh hidden layer), per-example stochastic gradient on the squared error of
  ``f`` or on the negative log-likelihood of ``P(y|x) = sum_k g_k(x) P(y|x,k)``.
* :func:`mlp_loss_grad`: the mean loss (+ weight decay) and its exact gradient for given
  weights, through the same forward/backward code (the tests compare it with finite
  differences).
* :func:`balance_run`: the mixture of SVMs' reassignment loop (Collobert's thesis Alg. 6.1, step
  2.3) on precomputed preference lists, until an example finds every listed expert full.
"""
import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log, log1p, tanh, fabs
from kernelnb._blas cimport _axpy, _dot, _scal

cnp.import_array()

cdef enum:
    SQUARED = 0
    LOGISTIC = 1
    SOFTMAX = 2
    TANH_SQUARED = 3
    MIX_LIKELIHOOD = 4

LOSSES = {"squared": SQUARED, "logistic": LOGISTIC, "softmax": SOFTMAX,
          "tanh_squared": TANH_SQUARED}
#: the mixture of experts' criteria: squared error of the mixed output, or the negative
#: log-likelihood of P(y|x) = sum_k P(k|x) P(y|x,k)
MOE_LOSSES = {"squared": SQUARED, "likelihood": MIX_LIKELIHOOD}


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
    elif loss == TANH_SQUARED:
        # Q = 1/2 (t - tanh(o))^2 ; dQ/do = -(t - z)(1 - z^2)   (thesis eq. 7.13)
        for k in range(K):
            z = tanh(o[k])
            go[k] = (z - t[k]) * (1.0 - z * z)
            Q += 0.5 * (t[k] - z) * (t[k] - z)
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


# -- the standard mixture of experts ----------------------------------------------------------

cdef double _moe_fb(const double* x, const double* t, int d, int K, int H, int C, int Hg,
                    const double* W1, const double* b1, const double* W2, const double* b2,
                    const double* G1, const double* c1, const double* G2, const double* c2,
                    double* h, double* o, double* hg, double* g, double* f,
                    double* go, double* gh, double* ga, double* ghg, int loss) noexcept nogil:
    """Loss of one example for the mixture; fills the experts' hidden outputs h (K*H) and
    outputs o (K*C), the gater's hidden outputs hg (Hg) and weights g (K), the mixed output f
    (C), and the derivatives of the loss with respect to the experts' outputs (go), their
    hidden pre-activations (gh), the gater's softmax inputs (ga) and its hidden
    pre-activations (ghg), all with the weights as given.  Hg = 0: linear gater on x."""
    cdef int k, j, c, gd = Hg if Hg > 0 else d, y
    cdef const double* gin
    cdef double Q = 0.0, m, s, sf, e, lp, lse, op, tc
    # experts
    for k in range(K):
        for j in range(H):
            h[k * H + j] = tanh(_dot(W1 + (<Py_ssize_t>k * H + j) * d, x, d) + b1[k * H + j])
        for c in range(C):
            o[k * C + c] = _dot(W2 + (<Py_ssize_t>k * C + c) * H, h + k * H, H) + b2[k * C + c]
    # gater: softmax of G2 gin + c2, gin = tanh(G1 x + c1) or x
    if Hg > 0:
        for j in range(Hg):
            hg[j] = tanh(_dot(G1 + <Py_ssize_t>j * d, x, d) + c1[j])
        gin = hg
    else:
        gin = x
    m = -1e300
    for k in range(K):
        ga[k] = _dot(G2 + <Py_ssize_t>k * gd, gin, gd) + c2[k]
        if ga[k] > m:
            m = ga[k]
    s = 0.0
    for k in range(K):
        g[k] = exp(ga[k] - m)
        s += g[k]
    for k in range(K):
        g[k] /= s
    if loss == SQUARED:
        # Q = 1/2 ||t - f||^2, f = sum_k g_k o_k ; dQ/do_k = g_k e ; dQ/da_k = g_k (e.o_k - e.f)
        for c in range(C):
            f[c] = 0.0
            for k in range(K):
                f[c] += g[k] * o[k * C + c]
        sf = 0.0
        for c in range(C):
            e = f[c] - t[c]
            Q += 0.5 * e * e
            sf += e * f[c]
        for k in range(K):
            s = 0.0
            for c in range(C):
                e = f[c] - t[c]
                go[k * C + c] = g[k] * e
                s += e * o[k * C + c]
            ga[k] = g[k] * (s - sf)
    else:
        # Q = -log sum_k g_k P(y|x,k); with the posterior p_k = g_k P(y|x,k) / P(y|x):
        # dQ/da_k = g_k - p_k ; dQ/do_k = p_k dlog P(y|x,k)/do_k (negated)
        y = 0
        if C > 1:
            for c in range(1, C):
                if t[c] > t[y]:
                    y = c
        lse = -1e300
        for k in range(K):
            if C == 1:
                op = t[0] * o[k]               # log P(y|x,k) = -log(1 + exp(-t o_k))
                lp = -log1p(exp(-op)) if op >= 0 else op - log1p(exp(op))
            else:
                m = o[k * C]
                for c in range(1, C):
                    if o[k * C + c] > m:
                        m = o[k * C + c]
                s = 0.0
                for c in range(C):
                    s += exp(o[k * C + c] - m)
                lp = o[k * C + y] - m - log(s)
            f[0] = lp + log(g[k]) if g[k] > 0 else -1e300   # scratch: log g_k P(y|x,k)
            ga[k] = f[0]
            if f[0] > lse:
                lse = f[0]
        s = 0.0
        for k in range(K):
            s += exp(ga[k] - lse)
        lse = lse + log(s)                        # log P(y|x)
        Q = -lse
        for k in range(K):
            e = exp(ga[k] - lse)                  # posterior p_k
            if C == 1:
                op = t[0] * o[k]
                # dQ/do_k = -p_k t (1 - sigma(t o_k))
                tc = exp(-op) / (1.0 + exp(-op)) if op >= 0 else 1.0 / (1.0 + exp(op))
                go[k] = -e * t[0] * tc
            else:
                m = o[k * C]
                for c in range(1, C):
                    if o[k * C + c] > m:
                        m = o[k * C + c]
                s = 0.0
                for c in range(C):
                    s += exp(o[k * C + c] - m)
                for c in range(C):
                    go[k * C + c] = e * (exp(o[k * C + c] - m) / s - (1.0 if c == y else 0.0))
            ga[k] = g[k] - e
        for c in range(C):
            f[c] = 0.0
    # back through the experts' hidden layers and the gater's
    for k in range(K):
        for j in range(H):
            s = 0.0
            for c in range(C):
                s += go[k * C + c] * W2[(<Py_ssize_t>k * C + c) * H + j]
            gh[k * H + j] = s * (1.0 - h[k * H + j] * h[k * H + j])
    if Hg > 0:
        for j in range(Hg):
            s = 0.0
            for k in range(K):
                s += ga[k] * G2[<Py_ssize_t>k * Hg + j]
            ghg[j] = s * (1.0 - hg[j] * hg[j])
    return Q


def _check_moe(X, T, W1, b1, W2, b2, G1, c1, G2, c2, int Hg):
    n, d = X.shape[0], X.shape[1]
    K, H, C = W1.shape[0], W1.shape[1], W2.shape[1]
    if T.shape[0] != n or T.shape[1] != C:
        raise ValueError(f"T must have shape ({n}, {C}), got ({T.shape[0]}, {T.shape[1]})")
    if (W1.shape[2] != d or b1.shape[0] != K or b1.shape[1] != H or W2.shape[0] != K
            or W2.shape[2] != H or b2.shape[0] != K or b2.shape[1] != C):
        raise ValueError("inconsistent expert shapes: W1 (K, H, d), b1 (K, H), W2 (K, C, H), "
                         "b2 (K, C)")
    gd = Hg if Hg > 0 else d
    if (G1.shape[0] < max(Hg, 1) or G1.shape[1] != d or c1.shape[0] < max(Hg, 1)
            or G2.shape[0] != K or G2.shape[1] != gd or c2.shape[0] != K):
        raise ValueError("inconsistent gater shapes: G1 (Hg, d), c1 (Hg,), G2 (K, Hg or d), "
                         "c2 (K,)")
    if K < 1 or H < 1 or C < 1:
        raise ValueError("the mixture needs at least one expert, hidden unit and output")


def moe_epoch(const double[:, ::1] X, const double[:, ::1] T, const cnp.intp_t[::1] order,
              double[:, :, ::1] W1, double[:, ::1] b1, double[:, :, ::1] W2, double[:, ::1] b2,
              double[:, ::1] G1, double[::1] c1, double[:, ::1] G2, double[::1] c2,
              int gater_hidden, double learning_rate, double gater_learning_rate,
              double decay=0.0, double weight_decay=0.0, long long t0=0, int loss=SQUARED):
    """One epoch of per-example stochastic gradient for the mixture of experts, in place.

    Experts ``k``: ``o_k = W2[k] tanh(W1[k] x + b1[k]) + b2[k]``; gater
    ``g = softmax(G2 gin + c2)`` with ``gin = tanh(G1 x + c1)`` (``gater_hidden`` rows of G1)
    or ``gin = x`` when ``gater_hidden == 0`` (G1, c1 are then unused placeholders of one
    row).  The learning rates of the t-th example are ``learning_rate / (1 + decay t)`` for
    the experts and ``gater_learning_rate / (1 + decay t)`` for the gater; ``weight_decay``
    shrinks every weight matrix (not the biases) at each example.

    Returns ``(mean loss of the examples before their update, t0 + len(order))``.
    """
    _check_moe(X, T, W1, b1, W2, b2, G1, c1, G2, c2, gater_hidden)
    cdef Py_ssize_t n = X.shape[0], i, l, m = order.shape[0]
    cdef int d = X.shape[1], K = W1.shape[0], H = W1.shape[1], C = W2.shape[1]
    cdef int Hg = gater_hidden, gd = gater_hidden if gater_hidden > 0 else X.shape[1], k, j, c
    cdef double[::1] h = np.empty(K * H), o = np.empty(K * C), hg = np.empty(max(Hg, 1))
    cdef double[::1] g = np.empty(K), f = np.empty(C), go = np.empty(K * C)
    cdef double[::1] gh = np.empty(K * H), ga = np.empty(K), ghg = np.empty(max(Hg, 1))
    cdef double total = 0.0, lam, lamg, shrink, shrinkg
    cdef long long t = t0
    cdef const double* gin
    for i in range(m):
        if order[i] < 0 or order[i] >= n:
            raise ValueError(f"order[{i}] = {order[i]} is not a row index of X")
    with nogil:
        for i in range(m):
            l = order[i]
            lam = learning_rate / (1.0 + decay * t)
            lamg = gater_learning_rate / (1.0 + decay * t)
            shrink = 1.0 - lam * weight_decay
            shrinkg = 1.0 - lamg * weight_decay
            total += _moe_fb(&X[l, 0], &T[l, 0], d, K, H, C, Hg, &W1[0, 0, 0], &b1[0, 0],
                             &W2[0, 0, 0], &b2[0, 0], &G1[0, 0], &c1[0], &G2[0, 0], &c2[0],
                             &h[0], &o[0], &hg[0], &g[0], &f[0], &go[0], &gh[0], &ga[0],
                             &ghg[0], loss)
            for k in range(K):
                for c in range(C):
                    if shrink != 1.0:
                        _scal(shrink, &W2[k, c, 0], H)
                    _axpy(-lam * go[k * C + c], &h[k * H], &W2[k, c, 0], H)
                    b2[k, c] -= lam * go[k * C + c]
                for j in range(H):
                    if shrink != 1.0:
                        _scal(shrink, &W1[k, j, 0], d)
                    if gh[k * H + j] != 0.0:
                        _axpy(-lam * gh[k * H + j], &X[l, 0], &W1[k, j, 0], d)
                    b1[k, j] -= lam * gh[k * H + j]
            gin = &hg[0] if Hg > 0 else &X[l, 0]
            for k in range(K):
                if shrinkg != 1.0:
                    _scal(shrinkg, &G2[k, 0], gd)
                _axpy(-lamg * ga[k], gin, &G2[k, 0], gd)
                c2[k] -= lamg * ga[k]
            for j in range(Hg):
                if shrinkg != 1.0:
                    _scal(shrinkg, &G1[j, 0], d)
                _axpy(-lamg * ghg[j], &X[l, 0], &G1[j, 0], d)
                c1[j] -= lamg * ghg[j]
            t += 1
    return (total / m if m else 0.0), t


def moe_loss_grad(const double[:, ::1] X, const double[:, ::1] T,
                  const double[:, :, ::1] W1, const double[:, ::1] b1,
                  const double[:, :, ::1] W2, const double[:, ::1] b2,
                  const double[:, ::1] G1, const double[::1] c1,
                  const double[:, ::1] G2, const double[::1] c2,
                  int gater_hidden, int loss=SQUARED):
    """Mean loss of the mixture over the rows of X and its gradient with respect to
    ``(W1, b1, W2, b2, G1, c1, G2, c2)`` (no weight decay), through the code of
    :func:`moe_epoch`.  Returns ``(J, gradients...)`` in that order."""
    _check_moe(X, T, W1, b1, W2, b2, G1, c1, G2, c2, gater_hidden)
    cdef Py_ssize_t n = X.shape[0], l
    cdef int d = X.shape[1], K = W1.shape[0], H = W1.shape[1], C = W2.shape[1]
    cdef int Hg = gater_hidden, gd = gater_hidden if gater_hidden > 0 else X.shape[1], k, j, c
    cdef double[::1] h = np.empty(K * H), o = np.empty(K * C), hg = np.empty(max(Hg, 1))
    cdef double[::1] g = np.empty(K), f = np.empty(C), go = np.empty(K * C)
    cdef double[::1] gh = np.empty(K * H), ga = np.empty(K), ghg = np.empty(max(Hg, 1))
    grads = [np.zeros((W1.shape[0], W1.shape[1], W1.shape[2])),
             np.zeros((b1.shape[0], b1.shape[1])),
             np.zeros((W2.shape[0], W2.shape[1], W2.shape[2])),
             np.zeros((b2.shape[0], b2.shape[1])),
             np.zeros((G1.shape[0], G1.shape[1])), np.zeros(c1.shape[0]),
             np.zeros((G2.shape[0], G2.shape[1])), np.zeros(c2.shape[0])]
    cdef double[:, :, ::1] gW1 = grads[0], gW2 = grads[2]
    cdef double[:, ::1] gb1 = grads[1], gb2 = grads[3], gG1 = grads[4], gG2 = grads[6]
    cdef double[::1] gc1 = grads[5], gc2 = grads[7]
    cdef double total = 0.0
    cdef const double* gin
    if n == 0:
        raise ValueError("X has no rows")
    with nogil:
        for l in range(n):
            total += _moe_fb(&X[l, 0], &T[l, 0], d, K, H, C, Hg, &W1[0, 0, 0], &b1[0, 0],
                             &W2[0, 0, 0], &b2[0, 0], &G1[0, 0], &c1[0], &G2[0, 0], &c2[0],
                             &h[0], &o[0], &hg[0], &g[0], &f[0], &go[0], &gh[0], &ga[0],
                             &ghg[0], loss)
            for k in range(K):
                for c in range(C):
                    _axpy(go[k * C + c], &h[k * H], &gW2[k, c, 0], H)
                    gb2[k, c] += go[k * C + c]
                for j in range(H):
                    _axpy(gh[k * H + j], &X[l, 0], &gW1[k, j, 0], d)
                    gb1[k, j] += gh[k * H + j]
            gin = &hg[0] if Hg > 0 else &X[l, 0]
            for k in range(K):
                _axpy(ga[k], gin, &gG2[k, 0], gd)
                gc2[k] += ga[k]
            for j in range(Hg):
                _axpy(ghg[j], &X[l, 0], &gG1[j, 0], d)
                gc1[j] += ghg[j]
    for arr in grads:
        arr /= n
    return (total / n, *grads)
