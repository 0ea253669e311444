"""Threads: kernelnb's Cython cores parallelise with OpenMP and call single-threaded BLAS from
each thread, so BLAS's own pool must stay at one thread meanwhile (two pools spinning on the same
cores cost more than the arithmetic)."""
import contextlib
import os

from threadpoolctl import ThreadpoolController

_CONTROLLER = None


def blas_single_thread():
    """Context manager holding BLAS to one thread (the library scan is done once per process)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")


# Below this many multiply-adds a BLAS product runs on one thread: a small product is over in well
# under a millisecond, while waking a second BLAS thread on a busy 2-core machine can cost a
# scheduler time slice (measured: a 410 x 410 x 8 product took 10 ms on two threads under load,
# 0.4 ms on one).
SMALL_PRODUCT = 50_000_000


def blas_threads_for(n_madds):
    """One BLAS thread for a product of ``n_madds`` multiply-adds below :data:`SMALL_PRODUCT`,
    the library's default above it."""
    if n_madds < SMALL_PRODUCT:
        return blas_single_thread()
    return contextlib.nullcontext()


def n_threads(n_jobs):
    """Threads for a computation given an estimator's ``n_jobs`` (joblib's meaning): -1 every
    core this process may use, ``None`` or 1 one thread, k > 1 that many.  (``n_jobs`` itself is
    checked by the estimators' parameter tables, :data:`kernelnb._validation.N_JOBS`.)"""
    if n_jobs is None:
        return 1
    if n_jobs == -1:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover (not on Linux)
            return max(1, os.cpu_count() or 1)
    return int(n_jobs)
