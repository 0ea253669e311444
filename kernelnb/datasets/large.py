"""A synthetic two-class problem of any size, for scaling studies (the thesis's Forest data is not
available): labelled Gaussian clusters in ``n_features`` dimensions.

Each class is a mixture of ``n_clusters // 2`` spherical Gaussian clusters whose centres are drawn
once from the seed; clusters of the two classes interleave, so the Bayes boundary is non-linear
and local (the setting where a mixture of experts helps).  Points are generated chunk by chunk
from independent streams, so one million points cost their own memory only (80 MB in float32 with
20 features) and the first ``m`` points of a large draw are the same as a draw of ``m``.
"""
from __future__ import annotations

from numbers import Integral

import numpy as np

from .._validation import check_param
from ._checks import check_int, check_positive

__all__ = ["make_large_problem"]

_CHUNK = 65536


def make_large_problem(n_samples=100_000, *, n_features=20, n_clusters=64, cluster_std=1.0,
                       spread=0.8, random_state=0, dtype=np.float32):
    """Draw ``n_samples`` points of the synthetic scaling problem.

    Parameters
    ----------
    n_samples : int, default=100_000
        Number of points (>= 2).
    n_features : int, default=20
        Dimension (>= 1).
    n_clusters : int, default=64
        Gaussian clusters (even, >= 2), half of them per class.
    cluster_std : float, default=1.0
        Standard deviation of every cluster (> 0).
    spread : float, default=0.8
        Standard deviation of the cluster centres (> 0): smaller means more overlap, a harder
        problem (with the defaults an RBF SVM on 4,000 points makes about 20 % test errors, the
        order of the thesis's Forest task).
    random_state : int, default=0
        Seed (an integer, so that chunks draw from reproducible independent streams).
    dtype : numpy float type, default=numpy.float32
        Float type of ``X``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The points.
    y : ndarray of int of shape (n_samples,)
        0/1 labels, balanced in expectation.

    Examples
    --------
    >>> from kernelnb.datasets import make_large_problem
    >>> X, y = make_large_problem(1000, n_features=5)
    >>> print(X.shape, X.dtype, sorted(set(y.tolist())))
    (1000, 5) float32 [0, 1]
    """
    for name, v, lo in (("n_samples", n_samples, 2), ("n_features", n_features, 1),
                        ("n_clusters", n_clusters, 2)):
        check_int(name, v, minimum=lo)
    if n_clusters % 2:
        raise ValueError(f"n_clusters must be even (half per class), got {n_clusters}")
    check_positive("cluster_std", cluster_std)
    check_positive("spread", spread)
    check_param("random_state", random_state, [Integral], "make_large_problem")
    root = np.random.SeedSequence(int(random_state))
    centres_seq, data_seq = root.spawn(2)
    centres = spread * np.random.default_rng(centres_seq).standard_normal((n_clusters, n_features))
    labels = np.arange(n_clusters) % 2
    X = np.empty((int(n_samples), int(n_features)), dtype=dtype)
    y = np.empty(int(n_samples), dtype=np.int64)
    n_chunks = -(-int(n_samples) // _CHUNK)
    for c, seq in enumerate(data_seq.spawn(n_chunks)):
        rng = np.random.default_rng(seq)
        s, e = c * _CHUNK, min((c + 1) * _CHUNK, int(n_samples))
        # whole chunks are drawn (then cut), so a smaller draw is a prefix of a larger one
        k = rng.integers(0, n_clusters, _CHUNK)[:e - s]
        noise = rng.standard_normal((_CHUNK, n_features))[:e - s]
        X[s:e] = centres[k] + cluster_std * noise
        y[s:e] = labels[k]
    return X, y
