"""Shared plumbing of the local methods: threads and the neighbour search.  Parameters and
inputs are checked by :mod:`kernelnb._validation` (one table per estimator)."""
from __future__ import annotations

import numpy as np

from .._threads import blas_single_thread, n_threads
from . import _neighbors


def check_n_neighbors(K, n_available, where="the training set"):
    """K against the data: at most ``n_available`` points (its type and sign are checked by the
    parameter tables)."""
    if K > n_available:
        unit = "sample" if n_available == 1 else "samples"
        raise ValueError(f"n_neighbors={K} is larger than {where} ({n_available} {unit})")
    return int(K)


def kneighbors(Q, R, K, n_jobs=-1, exclude=None):
    """(squared distances, indices) of the K nearest rows of R for each row of Q, ascending.

    Runs in float32 when both sets are float32 (half the time of the products), else float64."""
    dt = np.float32 if (np.asarray(Q).dtype == np.float32 and np.asarray(R).dtype == np.float32) \
        else np.float64
    Q = np.ascontiguousarray(Q, dtype=dt)
    R = np.ascontiguousarray(R, dtype=dt)
    ex = None if exclude is None else np.ascontiguousarray(exclude, dtype=np.int64)
    with blas_single_thread():
        return _neighbors.knn_search(Q, R, int(K), n_threads(n_jobs), 256, ex)


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
