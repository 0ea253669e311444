"""The leading eigenpairs of a symmetric matrix: one routine for the kernel PCA map and the
cluster kernels.

Dense LAPACK drivers reduce the whole matrix to tridiagonal form (4/3 n^3 operations, half of them
matrix-vector products that stream the matrix from memory) whatever the number ``k`` of pairs
wanted.  For ``k`` much smaller than ``n``, ARPACK's implicitly restarted Lanczos needs a few
hundred products ``A v`` instead; they are made with BLAS's *symmetric* product ``dsymv``, which
reads one triangle of the matrix, half the memory traffic of the general product ``A @ v`` (and
a half matrix of a few thousand rows fits in the last-level cache).  Where k is a sizeable
fraction of n (k = n / 4 and beyond) and below n = 1000, the dense drivers win
(``benchmarks/bench_kpca.py``; the speed page's eigensolver table).

Below n = 2500, ARPACK runs with scipy's own BLAS held to one thread
(:func:`kernelnb._threads.scipy_blas_single_thread`): numpy and scipy each load an OpenBLAS with
its own threads, which spin for a while after every call, and a Lanczos run right after a Gram
matrix made by numpy shared the two cores with numpy's spinning threads (then the transform's
products with scipy's).  From about 2500 on, reading the matrix on two threads wins back more.
"""
import contextlib

import numpy as np
from scipy.linalg import eigh
from scipy.linalg.blas import dsymv
from scipy.sparse.linalg import LinearOperator, eigsh

from ._threads import blas_threads_for, scipy_blas_single_thread

#: ARPACK from this size on, for at most ``n / LANCZOS_FRACTION`` pairs.
LANCZOS_MIN_N = 1000
LANCZOS_FRACTION = 10
#: Below this size ARPACK runs with scipy's BLAS on one thread (see the module's description).
ONE_THREAD_BELOW = 2500


def top_eigh(A, k):
    """The ``k`` largest eigenpairs of the symmetric float64 matrix ``A``, decreasing order.

    ``A`` may be overwritten.  The whole spectrum (``k >= n``): LAPACK's divide and conquer
    (``evd``).  ``k < n``: ARPACK's Lanczos on ``dsymv`` products (scipy's BLAS held to one
    thread below ``ONE_THREAD_BELOW``), run to machine precision from a fixed random start (so
    that results repeat), when ``n >= LANCZOS_MIN_N`` and ``k <= n / LANCZOS_FRACTION``;
    LAPACK's MRRR driver restricted to the top ``k`` (``evr``) otherwise.

    Returns
    -------
    w : ndarray of shape (k,)
    U : ndarray of shape (n, k)
        Orthonormal eigenvectors, column ``j`` for ``w[j]``.
    """
    n = A.shape[0]
    k = min(int(k), n)
    if not A.flags.f_contiguous:
        # a symmetric C-ordered matrix is its own transpose in Fortran order: no copy
        A = A.T if A.flags.c_contiguous else np.asfortranarray(A)
    if k < n and n >= LANCZOS_MIN_N and LANCZOS_FRACTION * k <= n:
        op = LinearOperator((n, n), matvec=lambda v: dsymv(1.0, A, np.ravel(v), lower=1),
                            dtype=np.float64)
        # a start vector with a component on every eigenvector: not the constant vector, which
        # spans the null space of a centred Gram matrix
        v0 = np.random.RandomState(0).uniform(-1.0, 1.0, n)
        hold = scipy_blas_single_thread() if n < ONE_THREAD_BELOW else contextlib.nullcontext()
        with hold:
            w, U = eigsh(op, k=k, which="LA", tol=0.0, v0=v0)
    else:
        with blas_threads_for(n ** 3):
            if k >= n:
                w, U = eigh(A, overwrite_a=True, check_finite=False, driver="evd")
            else:
                w, U = eigh(A, overwrite_a=True, check_finite=False, driver="evr",
                            subset_by_index=[n - k, n - 1])
    if np.all(w[1:] >= w[:-1]):
        # the drivers return increasing eigenvalues: reversed views, no copy of U
        return w[::-1], U[:, ::-1]
    order = np.argsort(w)[::-1]
    return w[order], U[:, order]
