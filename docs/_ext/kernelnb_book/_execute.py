"""The course notebooks executed for the book, two at a time, into a jupyter-cache.

myst-nb renders a notebook from a jupyter-cache when its code cells match a cached execution
(``nb_execution_mode = "cache"``), and executes it itself otherwise, one notebook after another.
:func:`execute_into_cache` runs, before Sphinx reads anything, every notebook the cache does not
hold, ``workers`` at a time in kernels of their own (the notebooks take most of a build; on two
cores two of them keep both busy), and stores each executed notebook in that same cache. myst-nb
then finds every notebook there and executes nothing; a rebuild in which no code cell changed
executes nothing either.

A cell that raises stops the build with the notebook, the cell's number and its source named
(:class:`NotebookFailed`), not a traceback of Sphinx's.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

__all__ = ["NotebookFailed", "ExecutionReport", "execute_into_cache", "cached_notebook"]


class NotebookFailed(RuntimeError):
    """A cell of a course notebook raised (or timed out) while the book was built."""


@dataclass
class ExecutionReport:
    """What :func:`execute_into_cache` did.

    Attributes
    ----------
    executed : dict
        Notebook file name -> seconds its execution took, for the notebooks run now.
    cached : list of str
        The notebooks whose code cells matched a cached execution (nothing run).
    wall_seconds : float
        Time of the whole call.
    """

    executed: dict
    cached: list
    wall_seconds: float


def _cache(cache_path):
    from jupyter_cache import get_cache
    return get_cache(str(cache_path))


def cached_notebook(cache_path, notebook_path):
    """The notebook at ``notebook_path`` with the outputs of its cached execution.

    Parameters
    ----------
    cache_path : str or path-like
        The jupyter-cache folder (the book's ``nb_execution_cache_path``).
    notebook_path : str or path-like
        A course notebook.

    Returns
    -------
    nbformat.NotebookNode or None
        The notebook with outputs, or None when the cache holds no execution of these code cells.
    """
    import nbformat
    nb = nbformat.read(str(notebook_path), as_version=4)
    cache = _cache(cache_path)
    try:
        cache.match_cache_notebook(nb)
    except KeyError:
        return None
    _, merged = cache.merge_match_into_notebook(nb)
    return merged


def _failing_cell(nb):
    """(index, source) of the first code cell whose outputs hold an error, else (None, '')."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and any(o.get("output_type") == "error"
                                            for o in cell.get("outputs", ())):
            return i, cell.source
    return None, ""


def _run_one(path, cwd, timeout, env):
    import nbclient
    import nbformat
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    nb = nbformat.read(str(path), as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=timeout,
                                     allow_errors=False, record_timing=False,
                                     resources={"metadata": {"path": cwd}})
    t0 = time.perf_counter()
    try:
        client.execute(env=env)
    except CellTimeoutError as exc:
        index = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                      and c.get("execution_count") is None), None)
        raise NotebookFailed(f"{Path(path).name}: cell {index} ran past {timeout} s: "
                             f"{exc}") from None
    except CellExecutionError as exc:
        index, source = _failing_cell(nb)
        first = "\n".join(source.splitlines()[:6])
        raise NotebookFailed(
            f"{Path(path).name}: cell {index} raised {exc.ename}: {exc.evalue}\n"
            f"--- cell {index} begins ---\n{first}\n---") from None
    return nb, time.perf_counter() - t0


def execute_into_cache(notebooks, cache_path, cwd, *, workers=2, timeout=600, env=None,
                       log=None):
    """Execute the notebooks the cache does not hold, ``workers`` at a time, and cache them.

    Parameters
    ----------
    notebooks : list of path-like
        The notebooks (their code cells are what the cache matches).
    cache_path : str or path-like
        The jupyter-cache folder (created when missing).
    cwd : str or path-like
        The folder the kernels run in (the repository's ``notebooks/``, as ``kernelnb lab``
        opens them).
    workers : int, default=2
        Notebooks executed at once, each in a kernel of its own.
    timeout : int, default=600
        Seconds a cell may run.
    env : dict or None
        The kernels' environment (default: this process's).
    log : callable or None
        ``log(message)`` for progress lines.

    Returns
    -------
    ExecutionReport

    Raises
    ------
    NotebookFailed
        When a cell raises or runs past ``timeout``: the notebook, the cell's index and the
        beginning of its source are named. The notebooks that succeeded are cached anyway.
    """
    import nbformat
    from jupyter_cache.base import CacheBundleIn

    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers!r}")
    t0 = time.perf_counter()
    log = log or (lambda message: None)
    cache = _cache(cache_path)
    todo, cached = [], []
    for path in map(Path, notebooks):
        nb = nbformat.read(str(path), as_version=4)
        try:
            cache.match_cache_notebook(nb)
            cached.append(path.name)
        except KeyError:
            todo.append(path)
    env = dict(os.environ if env is None else env)
    executed, failures = {}, []
    if todo:
        log(f"executing {len(todo)} notebook(s), {workers} at a time "
            f"({len(cached)} unchanged, from the cache)")
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="book-nb") as pool:
            runs = {path: pool.submit(_run_one, path, str(cwd), timeout, env) for path in todo}
            for path, run in runs.items():
                try:
                    nb, seconds = run.result()
                except NotebookFailed as exc:
                    failures.append(str(exc))
                    continue
                cache.cache_notebook_bundle(
                    CacheBundleIn(nb, str(path), data={"execution_seconds": seconds}),
                    check_validity=False, overwrite=True)
                executed[path.name] = seconds
                log(f"executed {path.name} in {seconds:.1f} s")
    if failures:
        raise NotebookFailed("\n".join(failures))
    return ExecutionReport(executed=executed, cached=cached,
                           wall_seconds=time.perf_counter() - t0)
