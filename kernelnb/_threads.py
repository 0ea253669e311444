"""Threads: kernelnb's Cython cores parallelise with OpenMP and call single-threaded BLAS from
each thread, so BLAS's own pool must stay at one thread meanwhile (two pools spinning on the same
cores cost more than the arithmetic)."""
import contextlib
import os
import sys
import threading

from threadpoolctl import ThreadpoolController

_CONTROLLER = None
_SCANNED_AT = -1
_SCIPY_OWN = None


class _BlasSingleThread:
    """:func:`blas_single_thread`'s context manager. In each thread, the first one entered sets
    the limit and the last one left restores the libraries' settings; those entered between (a
    fit inside a dashboard's step, a kernel evaluation inside a fit) only count: setting and
    restoring reads and sets every library twice, about 0.04 ms, and a model selection's hundred
    SVM trainings enter this thousands of times per step. A BLAS loaded since the limit was set
    is limited by the next one entered. The count is per thread: each thread's outermost use
    sets and restores its own."""

    _lock = threading.Lock()
    _state = threading.local()   # depth, and the limiters this thread holds (outermost first)
    _api = "blas"                # the pools limited (threadpoolctl's user_api)

    def __enter__(self):
        global _CONTROLLER, _SCANNED_AT
        state = self._state
        depth = getattr(state, "depth", 0)
        with self._lock:
            rescan = _CONTROLLER is None or len(sys.modules) != _SCANNED_AT
            if rescan:
                _CONTROLLER = ThreadpoolController()
                _SCANNED_AT = len(sys.modules)
            controller = _CONTROLLER
        if depth == 0:
            state.limiters = [controller.limit(limits=1, user_api=self._api)]
        elif rescan:
            state.limiters.append(controller.limit(limits=1, user_api=self._api))
        state.depth = depth + 1
        return self

    def __exit__(self, *exc):
        state = self._state
        state.depth -= 1
        if state.depth == 0:
            for limiter in reversed(state.limiters):
                limiter.restore_original_limits()
            state.limiters = []
        return False


def blas_single_thread():
    """Context manager holding BLAS to one thread in this thread, from its entry to the exit of
    the last one entered (nested uses cost a counter, see :class:`_BlasSingleThread`).

    The libraries are scanned again only when modules were imported since the last scan (a
    BLAS loaded later, scipy's own OpenBLAS say, is then limited too; a scan costs a few
    milliseconds, the check nothing)."""
    return _BlasSingleThread()


class _OpenMPSingleThread(_BlasSingleThread):
    """The OpenMP runtimes held to one thread, counted per thread as
    :class:`_BlasSingleThread` counts BLAS's."""

    _state = threading.local()
    _api = "openmp"


class _DashboardThreads:
    """:func:`dashboard_threads`' context manager: a :func:`blas_single_thread` (so that the
    fits inside, which enter it again, only count) and OpenMP held to one thread."""

    def __enter__(self):
        self._blas = _BlasSingleThread().__enter__()
        try:
            self._omp = _OpenMPSingleThread().__enter__()
        except BaseException:
            self._blas.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        try:
            self._omp.__exit__(*exc)
        finally:
            self._blas.__exit__(*exc)
        return False


def dashboard_threads(environ=None):
    """Context manager for a dashboard's update: BLAS held to one thread (as
    :func:`blas_single_thread`), and OpenMP too unless ``OMP_NUM_THREADS`` is set.

    A dashboard solves small problems while the browser draws its charts on the same machine:
    an OpenMP loop's team then waits for the thread the browser holds a core from, longer than
    a small loop's work (the K-nearest-neighbour loops of the learning curves and the local
    methods; measured in CHANGELOG.md). ``kernelnb serve`` starts its kernels with
    ``OMP_NUM_THREADS=1`` for the same reason; in a notebook this gives a dashboard the same
    threads, and where ``OMP_NUM_THREADS`` is set (``kernelnb serve --kernel-threads N``, a
    host's choice) OpenMP keeps it. Inside, ``n_jobs=None`` means one thread
    (:func:`n_threads` reads the OpenMP runtime's limit); an explicit ``n_jobs`` keeps its
    count. The settings are restored on exit."""
    if omp_thread_limit(environ) is None:
        return _DashboardThreads()
    return blas_single_thread()


def scipy_blas_single_thread():
    """Context manager holding scipy's own BLAS (the OpenBLAS of scipy's wheels, a library apart
    from numpy's) to one thread; a no-op where scipy shares numpy's BLAS (conda) or it is not found.

    Each pool's threads keep spinning for a while after a call, so work that alternates between the
    two pools, such as ARPACK (scipy's BLAS inside, numpy's ``A @ v`` products), has two pools'
    threads on the same cores, each pool's spinning threads delaying the other's work."""
    global _SCIPY_OWN
    if _SCIPY_OWN is None:
        import scipy.linalg.blas  # noqa: F401  (loaded before the scan)
        libs = ThreadpoolController().select(user_api="blas")
        own = [c.filepath for c in libs.lib_controllers
               if "scipy.libs" in c.filepath or f"{os.sep}scipy{os.sep}" in c.filepath]
        shared = any("numpy.libs" in path for path in own)
        _SCIPY_OWN = libs.select(filepath=own) if own and not shared else False
    return _SCIPY_OWN.limit(limits=1) if _SCIPY_OWN else contextlib.nullcontext()


# Below this many multiply-adds a BLAS product runs on one thread: a small product is over before
# a second BLAS thread would be woken, and on a busy machine that wake-up can cost a whole
# scheduler time slice.
SMALL_PRODUCT = 50_000_000


def blas_threads_for(n_madds):
    """One BLAS thread for a product of ``n_madds`` multiply-adds below :data:`SMALL_PRODUCT`,
    the library's default above it."""
    if n_madds < SMALL_PRODUCT:
        return blas_single_thread()
    return contextlib.nullcontext()


def omp_thread_limit(environ=None):
    """The thread count ``OMP_NUM_THREADS`` sets (its first level), or None where it is unset or
    not a positive integer."""
    value = (os.environ if environ is None else environ).get("OMP_NUM_THREADS", "")
    try:
        n = int(value.split(",")[0].strip())
    except ValueError:
        return None
    return n if n >= 1 else None


def _omp_max_threads():
    """The OpenMP runtime's own limit (kernelnb's Cython modules' libgomp)."""
    from . import _kernels
    return max(1, int(_kernels.omp_max_threads()))


def n_cores():
    """Cores this process may run on (the affinity mask where the OS has one).

    Returns
    -------
    int
        At least 1.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover (not on Linux)
        return max(1, os.cpu_count() or 1)


def n_threads(n_jobs):
    """Threads for a computation given an estimator's ``n_jobs``.  (``n_jobs`` itself is
    checked by the estimators' parameter tables, :data:`kernelnb._validation.N_JOBS`.)

    * ``None`` (every estimator's default): the threads the surrounding context allows, as
      scikit-learn's OpenMP estimators do: every core this process may use, at most
      ``OMP_NUM_THREADS`` where it is set and at most a limit set on the OpenMP runtime with
      threadpoolctl (``threadpool_limits(1, user_api="openmp")``).  Inside
      ``GridSearchCV(n_jobs=-1)`` the worker processes joblib starts have ``OMP_NUM_THREADS``
      set to their share of the cores, so the search does not run more threads than cores.
    * ``-1``: every core this process may use, at most ``OMP_NUM_THREADS`` where it is set
      (``kernelnb serve`` sets it to 1 for its kernels: a dashboard's small problems run faster
      on one thread than they wake a second).
    * ``k >= 1``: ``k`` threads, whatever the environment says.
    """
    if n_jobs is None or n_jobs == -1:
        cores = n_cores()
        limit = omp_thread_limit()
        n = cores if limit is None else min(cores, limit)
        if n_jobs is None:
            n = min(n, _omp_max_threads())
        return n
    return int(n_jobs)
