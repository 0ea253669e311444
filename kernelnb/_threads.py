"""Threads: kernelnb's Cython cores parallelise with OpenMP and call single-threaded BLAS from
each thread, so BLAS's own pool must stay at one thread meanwhile (two pools spinning on the same
cores cost more than the arithmetic)."""
from threadpoolctl import ThreadpoolController

_CONTROLLER = None


def blas_single_thread():
    """Context manager holding BLAS to one thread (the library scan is done once per process)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")
