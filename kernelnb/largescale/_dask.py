"""Dask helpers: where the tasks of a large-scale fit run, and a grid search on Dask.

kernelnb never schedules work itself across machines: the experts of a :class:`MixtureSVC` and the
folds of a grid search are Dask tasks (``dask.distributed``, the ``dask`` extra:
``pip install 'kernelnb[dask]'``).  Four ways to say where the experts run:

* ``client=None`` -- an embedded :class:`distributed.LocalCluster` in *this* process: one worker
  thread per core (``processes=False``), started for one call and closed at its end.  Threads
  because the work of a task (the SVM solver, BLAS, the float32 kernel passes) runs without the
  GIL, the data need no copy to the workers, and -- unlike worker processes, which Python's
  ``spawn`` starts by re-running the caller's script -- it works from a plain script without an
  ``if __name__ == "__main__":`` guard, in a notebook and in a Voila kernel alike.  Where
  ``distributed`` is not installed, ``client=None`` is ``client='threads'``;
* ``client='threads'`` -- no Dask: a :class:`concurrent.futures.ThreadPoolExecutor` of ``n_jobs``
  threads in this process runs the same task functions on the same arrays (no copy), for the
  same reason as the embedded cluster's threads: the tasks release the GIL;
* ``client='serial'`` -- no Dask at all: the same task functions called one after the other in
  this process (tests, reference results);
* a scheduler address such as ``client='tcp://10.0.0.5:8786'``, or a live
  :class:`distributed.Client` (or any object with its ``submit`` / ``scatter`` / ``gather``
  methods) given to ``fit(X, y, client=...)`` -- the same code on an existing cluster.  A live
  client is a fit-time argument, not an estimator parameter: ``sklearn.base.clone`` deep-copies
  parameters, and a connection is not a value to copy.

Recipe on a real cluster::

    # on the scheduler machine:   dask scheduler
    # on each worker machine:     dask worker tcp://SCHEDULER:8786 --nthreads 1 --nworkers -1
    from kernelnb.largescale import MixtureSVC
    MixtureSVC(n_experts=50, client="tcp://SCHEDULER:8786").fit(X, y)

The workers need ``kernelnb`` installed (the tasks are module-level functions of this package).

Nothing here imports Dask at module level: ``import kernelnb.largescale`` stays light (a Voila
kernel that never trains a mixture never loads ``dask``, ``distributed`` or ``bokeh``).  The
dashboard of every cluster started here listens on 127.0.0.1 only, on a free port.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import importlib.util
import sys
from concurrent.futures import ThreadPoolExecutor

from .._threads import blas_single_thread, n_cores
from .._validation import POSITIVE_INT, check_param

__all__ = ["local_client", "dask_client", "dashboard_available", "dask_grid_search",
           "ThreadPoolClient", "TaskRunner"]

#: The packages of the ``dask`` extra that each use needs.
_DISTRIBUTED = ("dask", "distributed")


def _missing(modules):
    """The modules of ``modules`` that cannot be imported here."""
    missing = []
    for name in modules:
        try:
            if importlib.util.find_spec(name) is None:
                missing.append(name)
        except (ImportError, ValueError):
            missing.append(name)
    return missing


def require_dask_extra(what, modules=_DISTRIBUTED):
    """Raise ``ImportError`` naming the ``dask`` extra when a module of ``modules`` is missing.

    Parameters
    ----------
    what : str
        What needs them, for the message (e.g. ``"dask_grid_search"``).
    modules : tuple of str, default=("dask", "distributed")
        The modules that use needs.

    Raises
    ------
    ImportError
        ``"<what> needs the dask extra (missing ...): pip install 'kernelnb[dask]'"``.
    """
    missing = _missing(modules)
    if missing:
        raise ImportError(f"{what} needs the dask extra (missing {', '.join(missing)}): "
                          "pip install 'kernelnb[dask]'")


def distributed_available():
    """Tell whether ``dask.distributed`` can be imported (the ``dask`` extra is installed).

    Returns
    -------
    bool
    """
    return not _missing(_DISTRIBUTED)


class ThreadPoolClient:
    """The expert tasks on a thread pool of this process: ``client='threads'`` (and
    ``client=None`` where ``distributed`` is not installed).

    The tasks run without the GIL (the SVM solver, BLAS and the kernel passes are compiled and
    release it), so ``n_workers`` threads keep that many cores busy on the same arrays, without
    copying them; results come back in the order of the tasks, and a task's exception is raised
    by :meth:`map` as it is.  Used by :func:`dask_client` for the duration of one fit.

    Parameters
    ----------
    n_workers : int
        Threads of the pool.
    """

    def __init__(self, n_workers):
        check_param("n_workers", n_workers, POSITIVE_INT, "ThreadPoolClient")
        self.n_workers = n_workers
        self._pool = None

    def __enter__(self):
        self._pool = ThreadPoolExecutor(max_workers=self.n_workers,
                                        thread_name_prefix="kernelnb-expert")
        return self

    def __exit__(self, *exc):
        # an interrupted fit drops the tasks not started yet; running ones end on their own
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None
        return False

    def map(self, func, shared, args_list):
        """``[func(*shared, *args) for args in args_list]``, the calls run on the pool.

        Parameters
        ----------
        func : callable
            The task function.
        shared : sequence
            Arguments every task receives first (the fit's arrays, not copied).
        args_list : list of tuple
            Each task's own arguments.

        Returns
        -------
        list
            The tasks' results, in ``args_list``'s order.
        """
        if self._pool is None:
            raise RuntimeError("ThreadPoolClient.map outside its with block")
        futures = [self._pool.submit(func, *shared, *args) for args in args_list]
        try:
            return [f.result() for f in futures]
        finally:
            for f in futures:
                f.cancel()


def _lost_work(err):
    """What Dask said when it lost tasks -- a future cancelled by the scheduler (its data lost),
    a task whose workers all died -- as one line; None for any other error (the task's own)."""
    from distributed import KilledWorker

    if isinstance(err, (concurrent.futures.CancelledError, KilledWorker)):
        return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    return None


class TaskRunner:
    """Runs one fit's tasks where :func:`dask_client` says: in this thread (``client`` None), on
    a :class:`ThreadPoolClient` (the arrays shared as they are) or as Dask tasks on data
    scattered once to every worker.

    A context manager: the data are scattered on entry and released on exit, so that what one
    phase of a fit put on the workers lives exactly as long as that phase.  Each task is
    ``func(*arrays, *args)``: the shared arrays first (scattered futures on Dask), then its own
    arguments (small: index arrays, parameters, seeds).

    The scattered data get keys of their own (``hash=False``), never keys derived from their
    content.  With content keys, two fits of the same data on one client (the one-vs-rest fits
    of :class:`~kernelnb.largescale.MixtureSVC`, two fits of a user's) scatter under the *same*
    key that the previous fit has just released: the release travels to the scheduler on the
    client's message stream while the new scatter is a separate call, and when the release is
    handled second it forgets the key -- the workers drop the new copy -- and the next fit's
    tasks are cancelled for "lost dependencies" (dask/distributed issues 3703 and 8576).

    Parameters
    ----------
    client : None, ThreadPoolClient or distributed.Client
        What :func:`dask_client` yielded.
    arrays : sequence
        The data every task receives first.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.largescale._dask import TaskRunner
    >>> with TaskRunner(None, (np.arange(4),)) as runner:
    ...     runner.map(lambda a, i: int(a[i]), [(1,), (3,)])
    [1, 3]
    """

    def __init__(self, client, arrays):
        self.client = client
        self.arrays = tuple(arrays)
        self.data = None

    def _local(self):
        return self.client is None or isinstance(self.client, ThreadPoolClient)

    def __enter__(self):
        if self._local():
            self.data = self.arrays
        else:
            # one scatter: every worker receives the data once; tasks get their own small
            # arguments.  Unique keys (see the class notes).
            self.data = self.client.scatter(list(self.arrays), broadcast=True, hash=False)
        return self

    def __exit__(self, *exc):
        if not self._local() and self.data is not None:
            for future in self.data:
                future.release()
        self.data = None
        return False

    def map(self, func, args_list):
        """``[func(*arrays, *args) for args in args_list]``, run where the client says.

        Parameters
        ----------
        func : callable
            A module-level function (Dask pickles it to the workers).
        args_list : list of tuple
            Each task's own arguments.

        Returns
        -------
        list
            The tasks' results, in ``args_list``'s order.

        Raises
        ------
        RuntimeError
            When the Dask cluster lost the tasks or their data (a worker died holding the only
            copy, the client was closed); a task's own exception is raised as it is.
        """
        if self.client is None:
            return [func(*self.data, *args) for args in args_list]
        if isinstance(self.client, ThreadPoolClient):
            return self.client.map(func, self.data, args_list)
        futures = [self.client.submit(func, *self.data, *args, pure=False)
                   for args in args_list]
        try:
            return self.client.gather(futures)
        except Exception as err:
            lost = _lost_work(err)
            if lost is None:
                raise                      # an error of the task itself (bad data, a bug)
            raise RuntimeError(
                f"the Dask cluster lost this fit's tasks ({lost}).  This happens when a worker "
                "dies during the fit (killed, out of memory, its machine gone) holding the only "
                "copy of the data scattered for the fit, when a task kills every worker it runs "
                "on, or when the client or cluster is closed during the fit; the fit cannot "
                "continue without its data: fit again (on more workers, or with more memory "
                "per worker)") from err
        finally:
            for future in futures:
                future.release()


def dashboard_available():
    """Tell whether the Dask dashboard can be served (it needs ``bokeh``, an optional package).

    Returns
    -------
    bool
        True when ``bokeh`` can be imported.
    """
    try:
        import bokeh  # noqa: F401
    except ImportError:
        return False
    return True


# Where the dashboard of every cluster started here listens: loopback only, a free port (never the
# fixed 8787 that another session may hold; the scheduler's HTTP server is bound even without a
# dashboard).  ":0" would listen on every interface of the machine.
DASHBOARD_ADDRESS = "127.0.0.1:0"


@contextlib.contextmanager
def _main_not_reimported():
    """Hide the ``__main__`` module's file and spec while worker processes are spawned.

    Python's ``spawn`` and ``forkserver`` start methods re-run the parent's main script (as
    ``__mp_main__``) in every child, so a script without an ``if __name__ == "__main__":`` guard
    starts a cluster inside each worker and Dask reports ``Nanny failed to start``.  Without a
    ``__file__`` or ``__spec__`` there is nothing to re-run; the tasks of this package are
    module-level functions of ``kernelnb`` and do not need the caller's script.
    """
    main = sys.modules.get("__main__")
    if main is None:  # pragma: no cover
        yield
        return
    missing = object()
    saved = {a: main.__dict__.get(a, missing) for a in ("__file__", "__spec__")}
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        for attr, value in saved.items():
            if value is missing:
                main.__dict__.pop(attr, None)
            else:
                main.__dict__[attr] = value


_CLUSTER_CLASS = None


def _loopback_cluster_class():
    """``LocalCluster`` whose dashboard link names 127.0.0.1, where the dashboard listens (an
    in-process cluster would otherwise name the machine's address, which nothing serves).
    Defined on first use: importing this module must not import ``distributed``."""
    global _CLUSTER_CLASS
    if _CLUSTER_CLASS is None:
        from distributed import LocalCluster
        from distributed.utils import format_dashboard_link

        class LoopbackLocalCluster(LocalCluster):
            @property
            def dashboard_link(self):
                try:
                    port = self.scheduler_info["services"]["dashboard"]
                except KeyError:
                    return ""
                return format_dashboard_link("127.0.0.1", port)

        _CLUSTER_CLASS = LoopbackLocalCluster
    return _CLUSTER_CLASS


def local_client(n_workers=None, threads_per_worker=1, dashboard=False, memory_limit="auto",
                 processes=False):
    """Start a :class:`distributed.LocalCluster` and return a client connected to it.

    Parameters
    ----------
    n_workers : int, optional
        Workers (Dask's name for them); default: the number of cores this process may use.
    threads_per_worker : int, default=1
        One thread per worker: each SVM expert then runs single-threaded, and the workers share
        the cores without oversubscription.
    dashboard : bool, default=False
        Whether the caller means to show the Dask dashboard; it is served (needs ``bokeh``) on a
        free port of 127.0.0.1 either way.  With ``dashboard=True`` and no bokeh installed a
        warning says so.
    memory_limit : str or int, default='auto'
        Per worker process (ignored with ``processes=False``: the workers share this process).
    processes : bool, default=False
        ``False``: the workers are threads of this process (the tasks release the GIL; no copy of
        the data; works from any script, notebook or Voila kernel).  ``True``: one worker process
        per worker, spawned without re-running the caller's main script (see
        :func:`_main_not_reimported`), so this too works without a main guard.

    Returns
    -------
    distributed.Client
        Close it with ``client.close(); client.cluster.close()`` (or use :func:`dask_client`).

    Raises
    ------
    ImportError
        When the ``dask`` extra is not installed (the message says so).
    """
    import warnings

    require_dask_extra("local_client")
    from distributed import Client

    LocalCluster = _loopback_cluster_class()
    if n_workers is None:
        n_workers = n_cores()
    check_param("n_workers", n_workers, POSITIVE_INT, "local_client")
    check_param("threads_per_worker", threads_per_worker, POSITIVE_INT, "local_client")
    kwargs = dict(n_workers=n_workers, threads_per_worker=threads_per_worker,
                  dashboard_address=DASHBOARD_ADDRESS,
                  # each worker's own HTTP server (health, metrics) too: loopback, free port
                  worker_dashboard_address=DASHBOARD_ADDRESS)
    if processes:
        # scheduler and workers on loopback TCP
        with _main_not_reimported():
            cluster = LocalCluster(processes=True, memory_limit=memory_limit, host="127.0.0.1",
                                   **kwargs)
    else:
        # in-process transport: nothing but the dashboard listens
        cluster = LocalCluster(processes=False, memory_limit=None, **kwargs)
    if dashboard and not dashboard_available():
        warnings.warn("the Dask dashboard needs bokeh (pip install bokeh); the cluster runs "
                      "without it", stacklevel=2)
    return Client(cluster, set_as_default=False)


def _is_client_like(obj):
    return all(callable(getattr(obj, name, None)) for name in ("submit", "scatter", "gather"))


@contextlib.contextmanager
def dask_client(client=None, n_workers=None):
    """Resolve the ``client`` argument of the large-scale estimators, as a context manager.

    While a client is in use this process's BLAS runs on one thread; the caller's thread counts
    are restored on exit.

    Parameters
    ----------
    client : None, 'serial', 'threads', str or distributed.Client, default=None
        None: a fresh :class:`~distributed.LocalCluster` of worker threads in this process
        (closed on exit), or where ``distributed`` is not installed a thread pool, as
        ``'threads'``; ``'threads'``: a :class:`ThreadPoolClient` of ``n_workers`` threads, no
        Dask; ``'serial'``: no Dask, the work runs in this thread; a scheduler address: a client
        connected to it (closed on exit, the cluster left running); a client object (anything
        with ``submit``, ``scatter`` and ``gather``), or a :class:`ThreadPoolClient`: used as it
        is.
    n_workers : int, optional
        Workers of the fresh cluster or thread pool (default: one per core).

    Yields
    ------
    distributed.Client, ThreadPoolClient or None
        Where to run the tasks, None for ``'serial'``.

    Raises
    ------
    ImportError
        For a scheduler address when the ``dask`` extra is not installed.
    """
    if isinstance(client, str) and client == "serial":
        yield None
        return
    if client is not None and not isinstance(client, (str, ThreadPoolClient)) \
            and not _is_client_like(client):
        raise ValueError("client must be None (a local Dask cluster), 'serial', 'threads', a "
                         f"scheduler address string or a distributed.Client, got {client!r}")
    # BLAS's thread count is process-wide, and each task holds it at one (threadpoolctl) while it
    # trains.  Where the workers are threads of this process (client=None, or a client of a
    # LocalCluster(processes=False) that the caller made) two tasks enter and leave their limits
    # at once, and a limit restores what it found on entry: task A sets 1 over the caller's 2,
    # task B sets 1 over A's 1, A restores 2, B restores 1 -- the caller is left at one thread.
    # Held at one for as long as a client is used, every task's limit finds and restores one,
    # and the caller's own setting comes back at the end.  Workers elsewhere need no hold; the
    # caller only waits for them meanwhile (its own small products run on one thread anyway).
    with blas_single_thread():
        if (client is None and not distributed_available()) or \
                (isinstance(client, str) and client == "threads"):
            with ThreadPoolClient(n_workers if n_workers is not None else n_cores()) as pool:
                yield pool
        elif client is None:
            c = local_client(n_workers=n_workers)
            try:
                yield c
            finally:
                cluster = c.cluster
                c.close()
                cluster.close()
        elif isinstance(client, str):
            require_dask_extra(f"client={client!r} (a Dask scheduler's address)")
            from distributed import Client

            c = Client(client, set_as_default=False)
            try:
                yield c
            finally:
                c.close()
        else:
            yield client


def _progress_backend(bar, **kwargs):
    """joblib's Dask backend, constructed with ``kwargs``, advancing the tqdm ``bar`` by the
    number of fits of every batch that completes (an instance handed to
    ``joblib.parallel_config``: nothing of joblib is patched, other searches are untouched)."""
    from joblib._dask import DaskDistributedBackend

    class ProgressDaskBackend(DaskDistributedBackend):
        def submit(self, func, callback=None):
            n_tasks = len(func) if hasattr(func, "__len__") else 1

            def done(result):          # runs on the client's event loop, after joblib's own
                if callback is not None:
                    callback(result)
                bar.update(n_tasks)

            return super().submit(func, callback=done)

    return ProgressDaskBackend(**kwargs)


def dask_grid_search(estimator, param_grid, X, y, cv=5, client=None, scoring=None, refit=True,
                     progress=True):
    """Cross-validated grid search (scikit-learn's ``GridSearchCV``) with the fits run on Dask.

    The (parameters, fold) fits are joblib tasks dispatched through joblib's Dask backend
    (``joblib.parallel_config(backend='dask')``, the current form of the older
    ``parallel_backend('dask')``); ``X`` and ``y`` are scattered to the workers once, not sent with
    every task.

    Parameters
    ----------
    estimator : estimator object
        A scikit-learn estimator, e.g. :class:`kernelnb.svm.SVC`.  Give it ``n_jobs=1`` when it
        has that parameter: the workers are single-threaded.
    param_grid : dict or list of dict
        The grid, e.g. ``{'C': [1, 10], 'sigma': [3, 6]}``.
    X : array-like of shape (n_samples, n_features)
        Training inputs.
    y : array-like of shape (n_samples,)
        Training targets.
    cv : int or cross-validation splitter, default=5
        The folds, as in ``GridSearchCV``.
    client : None, 'serial', str or distributed.Client, default=None
        As in :func:`dask_client`; ``'serial'`` runs scikit-learn's own sequential loop.
    scoring : str, callable or None, default=None
        As in ``GridSearchCV``.
    refit : bool, default=True
        As in ``GridSearchCV``.
    progress : bool, default=True
        Show the completed fits with a ``tqdm`` bar (``tqdm.auto``: a widget in a notebook, text
        in a terminal).

    Returns
    -------
    sklearn.model_selection.GridSearchCV
        Fitted (``cv_results_``, ``best_params_``, ``best_estimator_`` ...).

    Raises
    ------
    ImportError
        When the ``dask`` extra (Dask, distributed, tqdm) is not installed, whatever ``client``
        says; the message names the extra.
    """
    require_dask_extra("dask_grid_search", ("dask", "distributed", "tqdm"))
    import joblib
    from sklearn.model_selection import GridSearchCV, ParameterGrid, check_cv

    n_candidates = len(ParameterGrid(param_grid))
    n_folds = check_cv(cv, y, classifier=True).get_n_splits(X, y)
    total = n_candidates * n_folds
    search = GridSearchCV(estimator, param_grid, cv=cv, scoring=scoring, refit=refit,
                          n_jobs=1 if client == "serial" else -1)
    from tqdm.auto import tqdm

    with tqdm(total=total, desc="grid search", disable=not progress) as bar, \
            dask_client(client) as c:
        if c is None:
            search.fit(X, y)
        else:
            # (BLAS is held at one thread by dask_client while the tasks run)
            with joblib.parallel_config(
                    backend=_progress_backend(bar, client=c, scatter=[X, y])):
                search.fit(X, y)
        bar.update(max(total - bar.n, 0))          # the serial loop reports nothing on the way
    return search
