"""Shared fixtures: free ports, a running ``kernelnb serve``, the test-output folder, and a guard
that fails a test which leaves the process's thread limits or numpy's error state changed.

Outputs meant for people (screenshots, server logs) go to ``test-output/`` at the repository root
(git-ignored).
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController

REPO = Path(__file__).resolve().parents[1]
TEST_OUTPUT = REPO / "test-output"
# The book's Sphinx extension (kernelnb_book) and the catalogs' tool live with the docs, not in the
# package: the tests of the book import them from there, as docs/conf.py does.
if (REPO / "docs" / "_ext").is_dir():
    sys.path.insert(0, str(REPO / "docs" / "_ext"))


def run_async(coroutine_function):
    """Run ``coroutine_function()`` to completion on a fresh event loop in its own thread (a test
    run earlier in the session may have left a loop running in this one)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coroutine_function())).result()


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float, proc: subprocess.Popen | None = None) -> str:
    """GET ``url`` until it answers 200 (returns the body) or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with code {proc.returncode} before answering {url}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return r.read().decode("utf-8", "replace")
        except (urllib.error.URLError, ConnectionError, socket.timeout) as exc:
            last = exc
        time.sleep(0.3)
    raise TimeoutError(f"{url} did not answer within {timeout} s (last error: {last})")


def stop_process(proc: subprocess.Popen, timeout: float = 15) -> None:
    """SIGINT twice (Jupyter's clean shutdown, kernels included), then SIGTERM, then SIGKILL."""
    if proc.poll() is not None:
        return
    for sig in (signal.SIGINT, signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout / 3)
            return
        except subprocess.TimeoutExpired:
            continue
    proc.kill()
    proc.wait(timeout=10)


@contextlib.contextmanager
def kernelnb_serve(*args: str, command: list[str] | None = None, port: int | None = None,
                   log_name: str = "serve", timeout: float = 90, env: dict | None = None,
                   cwd: Path = REPO, ready_path: str = ""):
    """Run ``kernelnb serve --no-browser`` on a free loopback port; yield (base URL, process).

    ``command`` replaces the default ``python -m kernelnb.lab.cli`` (e.g. a venv's ``kernelnb``
    script). The server's output goes to ``test-output/logs/<log_name>.log``; it is ready when
    ``<url><ready_path>`` answers 200 (e.g. ``?token=...`` for a server with a token).
    """
    port = port or free_port()
    logs = TEST_OUTPUT / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"{log_name}.log"
    command = command or [sys.executable, "-m", "kernelnb.lab.cli"]
    cmd = [*command, "serve", "--no-browser", "--port", str(port), *args]
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=cwd,
                                env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}/"
    try:
        try:
            wait_http(url + ready_path, timeout, proc)
        except (RuntimeError, TimeoutError) as exc:
            raise RuntimeError(f"{exc}\n--- {log_path} ---\n{log_path.read_text()[-3000:]}") from None
        yield url, proc
    finally:
        stop_process(proc)


@pytest.fixture
def port() -> int:
    return free_port()


#: The README's command that builds the book (tests/test_docs.py checks that it is there).
BOOK_COMMAND = "python3 -m sphinx -W --keep-going -b html docs docs/_build/html"
#: Where a developer may keep the book's caches between test runs (executed notebooks, dashboard
#: pages); unset in CI, which builds the book from nothing.
BOOK_CACHE_ENV = "KERNELNB_BOOK_CACHE"


@dataclass
class BuiltBook:
    """The book built once per test session (:func:`book`)."""

    html: Path          # the site
    cache: Path         # the jupyter-cache of the executed notebooks
    log: str            # Sphinx's output
    seconds: float      # the build's wall time
    command: list = field(default_factory=list)


def build_book(out: Path, cache: Path | None = None, extra=()) -> tuple[subprocess.CompletedProcess, float]:
    """Run the README's book command into ``out`` (never into the checkout)."""
    cmd = BOOK_COMMAND.split()
    cmd[0] = sys.executable
    cmd[-1] = str(out / "html")
    cmd[-1:-1] = ["-d", str(out / "doctrees")]
    if cache is not None:
        cmd[-1:-1] = ["-D", f"nb_execution_cache_path={cache / 'jupyter_cache'}",
                      "-D", f"kernelnb_cache_path={cache / 'kernelnb_cache'}"]
    cmd[-1:-1] = list(extra)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=2400)
    return r, time.perf_counter() - t0


@pytest.fixture(scope="session")
def book(tmp_path_factory) -> BuiltBook:
    """The book, built once for the session with the README's command (warnings as errors): the
    course notebooks executed, the dashboard and reproduction pages computed. Its jupyter-cache is
    what tests/test_notebooks.py reads the executed notebooks from."""
    out = tmp_path_factory.mktemp("book")
    cache = Path(os.environ[BOOK_CACHE_ENV]) if os.environ.get(BOOK_CACHE_ENV) else out
    r, seconds = build_book(out, cache)
    log = r.stdout + r.stderr
    assert r.returncode == 0, f"the book's build failed:\n{r.stdout[-3000:]}\n{r.stderr[-8000:]}"
    return BuiltBook(html=out / "html", cache=cache / "jupyter_cache", log=log, seconds=seconds)


@pytest.fixture(scope="session")
def test_output() -> Path:
    TEST_OUTPUT.mkdir(exist_ok=True)
    return TEST_OUTPUT


@pytest.fixture(scope="session")
def dashboards_folder() -> Path:
    """The dashboards the server tests run against.

    The package's own (``kernelnb.lab.server.gallery.dashboards_dir()``); ``KERNELNB_TEST_DASHBOARDS``
    points the tests at another folder (a dashboard in progress, say).
    """
    override = os.environ.get("KERNELNB_TEST_DASHBOARDS")
    if override:
        return Path(override).resolve()
    from kernelnb.lab.server.gallery import dashboards_dir
    return dashboards_dir()


@pytest.fixture(scope="session")
def served(dashboards_folder):
    """Base URL of one ``kernelnb serve`` shared by the session (real dashboards)."""
    with kernelnb_serve("--dashboards", str(dashboards_folder), log_name="served") as (url, _):
        yield url


# -- process state a test must give back ------------------------------------------------------
# BLAS's thread count is process-wide: a limit a test leaves behind changes the rounding of every
# later product (one thread sums in another order), and a result computed near double precision
# then differs in the full run from the same test run alone (SLSQP's success flag in
# tests/svm/test_margins.py did, after a Dask test had left BLAS at one thread).  OpenMP's limit
# and numpy's error state (np.seterr) outlive a test the same way.
_THREADS = {"controller": None, "modules": -1}


def _thread_limits():
    """{library path: its thread count now}.  The library scan (~7 ms) is redone only when a
    module was imported since the last one (a new library may have been loaded); reading the
    counts of known libraries costs microseconds."""
    if len(sys.modules) != _THREADS["modules"]:
        _THREADS["controller"] = ThreadpoolController()
        _THREADS["modules"] = len(sys.modules)
    return {lib.filepath: lib.num_threads for lib in _THREADS["controller"].lib_controllers}


_WATCHED_SIGNALS = (signal.SIGINT, signal.SIGTERM)

# A run started as a background job of a non-interactive shell (``pytest &``, nohup) inherits
# SIGINT ignored, and Python then keeps it ignored instead of installing its KeyboardInterrupt
# handler. Every notebook that nbclient runs in the main thread ends by putting that handler in
# place (asyncio's signal handlers removed), which the check below would blame on the test. The
# suite starts as a run from a terminal does.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _gives_back_process_state():
    """Fail (in teardown) a test that leaves a BLAS / OpenMP thread limit, numpy's error state
    or the SIGINT / SIGTERM handler other than it found them, and put them back so that the next
    test starts clean (a library's SIGINT handler left behind swallows Ctrl-C: the solver's
    interrupt test then sees none)."""
    threads, errors = _thread_limits(), np.geterr()
    handlers = {sig: signal.getsignal(sig) for sig in _WATCHED_SIGNALS}
    yield
    after_threads, after_errors = _thread_limits(), np.geterr()
    moved = [sig for sig, handler in handlers.items() if signal.getsignal(sig) is not handler]
    changed = {path: (threads[path], n) for path, n in after_threads.items()
               if path in threads and threads[path] != n}
    problems = []
    if changed:
        for lib in _THREADS["controller"].lib_controllers:
            if lib.filepath in changed:
                lib.set_num_threads(threads[lib.filepath])
        problems.append("thread limits changed (before, after): " + ", ".join(
            f"{Path(path).name} {was} -> {now}" for path, (was, now) in changed.items()))
    if after_errors != errors:
        np.seterr(**errors)
        problems.append(f"numpy error state changed: {errors} -> {after_errors}")
    for sig in moved:
        now = signal.getsignal(sig)
        signal.signal(sig, handlers[sig])
        problems.append(f"{signal.Signals(sig).name} handler changed: {handlers[sig]!r} -> {now!r}")
    if problems:
        pytest.fail("the test leaked process state into the tests after it: "
                    + "; ".join(problems), pytrace=False)
