"""Shared fixtures: free ports, a running ``kernelnb serve``, and the test-output folder.

Outputs meant for people (screenshots, server logs) go to ``test-output/`` at the repository root
(git-ignored).
"""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TEST_OUTPUT = REPO / "test-output"


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


@pytest.fixture(scope="session")
def test_output() -> Path:
    TEST_OUTPUT.mkdir(exist_ok=True)
    return TEST_OUTPUT


@pytest.fixture(scope="session")
def dashboards_folder() -> Path:
    """The dashboards the server tests run against.

    The package's own (``kernelnb.lab.app.gallery.dashboards_dir()``); ``KERNELNB_TEST_DASHBOARDS``
    points the tests at another folder (a dashboard in progress, say).
    """
    override = os.environ.get("KERNELNB_TEST_DASHBOARDS")
    if override:
        return Path(override).resolve()
    from kernelnb.lab.app.gallery import dashboards_dir
    return dashboards_dir()


@pytest.fixture(scope="session")
def served(dashboards_folder):
    """Base URL of one ``kernelnb serve`` shared by the session (real dashboards)."""
    with kernelnb_serve("--dashboards", str(dashboards_folder), log_name="served") as (url, _):
        yield url
