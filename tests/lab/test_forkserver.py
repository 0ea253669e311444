"""Dashboard kernels forked from kernelnb's fork server (kernelnb.lab.server._forkserver).

A fork server with a light preload (ipykernel, ipywidgets and numpy, not the dashboards) keeps
these tests to a few seconds; ``kernelnb serve``'s own fork server is checked in
test_server_hardening.py.
"""
from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
import uuid

import pytest

from kernelnb.lab.server import _forkserver as fs

from ..conftest import run_async

pytestmark = pytest.mark.skipif(not fs.supported(), reason="forking kernels needs Linux")

LIGHT = ("ipykernel.ipkernel", "ipywidgets", "numpy")


def kernel_env(**extra):
    return {**os.environ, "VOILA_PREHEAT": "False", **extra}


@pytest.fixture(scope="module")
def fork_server():
    server = fs.ForkServer(env=kernel_env(), preload=LIGHT).start()
    deadline = time.monotonic() + 60
    while not server.ready and not server._failed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.ready, server._failed
    fs.set_fork_server(server)
    try:
        yield server
    finally:
        fs.set_fork_server(None)
        server.stop()


@contextlib.asynccontextmanager
async def forked_kernel(connection_file, cwd, **env):
    """A kernel forked from the fork server, ready: (its manager, a started client); shut down
    on leaving."""
    # (an absolute connection file: the ipc sockets are named after it, not after the cwd)
    km = fs.ForkKernelManager(kernel_name="python3", transport="ipc",
                              connection_file=str(connection_file))
    await km.start_kernel(env=kernel_env(**env), cwd=str(cwd))
    assert isinstance(km.provisioner.process, fs._ForkedKernel)
    kc = km.client()
    kc.start_channels()
    try:
        await kc.wait_for_ready(timeout=60)
        yield km, kc
    finally:
        kc.stop_channels()
        await km.shutdown_kernel(now=True)


async def _run(kc, code, printed=None):
    """Execute ``code``; (status, text printed, error name). ``printed``: an asyncio.Event set
    when the code's standard output first arrives (not a warning on its standard error, which
    ipykernel may send before the code runs)."""
    out = []

    def hook(msg):
        if msg["header"]["msg_type"] == "stream":
            out.append(msg["content"].get("text", ""))
            if printed is not None and msg["content"].get("name") == "stdout":
                printed.set()

    reply = await kc.execute_interactive(code, timeout=60, output_hook=hook)
    return reply["content"]["status"], "".join(out).strip(), reply["content"].get("ename")


def _wchan(pid):
    """Where the process's main thread waits in the Linux kernel (its wchan), '' if unknown."""
    try:
        with open(f"/proc/{pid}/wchan") as f:
            return f.read().strip()
    except OSError:
        return ""


async def _main_thread_sleeps(pid, timeout):
    """Wait until the process's main thread sleeps in a nanosleep (Python's time.sleep), at most
    ``timeout`` seconds; where it waits then."""
    deadline = time.monotonic() + timeout
    while "nanosleep" not in (where := _wchan(pid)) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return where


def test_a_forked_kernel_is_the_kernel_it_was_asked_for(fork_server, tmp_path):
    async def main():
        seen = []
        for k in range(2):
            async with forked_kernel(tmp_path / f"kernel-{k}.json", tmp_path,
                                     KERNELNB_TEST_VALUE=f"v{k}") as (km, kc):
                proc = km.provisioner.process
                status, text, _ = await _run(
                    kc, "import os, sys, numpy as np; print(os.getppid(), os.getpgid(0) == "
                        "os.getpid(), os.environ['KERNELNB_TEST_VALUE'], os.getcwd(), "
                        "os.environ['JPY_PARENT_PID'] + ':' + os.environ['KERNELNB_SERVER_PID'], "
                        "np.random.randint(2**62), "
                        "'ipykernel.kernelapp' in sys.modules)")
                assert status == "ok"
                ppid, own_group, value, cwd, parent_env, draw, kernelapp = text.split()
                # the fork server's child, in a session of its own, in its own env and folder
                assert int(ppid) == fork_server.pid
                # ipykernel's parent poller is off (it would end the kernel with its fork
                # server); the kernel watches for its parent being neither of its servers
                assert parent_env == f"0:{os.getpid()}"
                assert own_group == "True" and kernelapp == "True"
                assert value == f"v{k}" and cwd == str(tmp_path)
                seen.append(draw)
                with open(f"/proc/{proc.pid}/comm") as f:
                    assert f.read().strip() == fs.KERNEL_PROCESS_NAME
                # an interrupt reaches it (jupyter_client signals its process group)
                # (once the code runs: an interrupt of an idle kernel interrupts nothing)
                sleeping = asyncio.Event()
                running = asyncio.ensure_future(_run(
                    kc, "import time; print('sleeping', flush=True); time.sleep(60)", sleeping))
                await asyncio.wait_for(sleeping.wait(), 30)
                # and once its main thread is in the sleep, past the print's flush (a wait on
                # ipykernel's I/O thread): the interrupt tested is the one that reaches the code
                where = await _main_thread_sleeps(proc.pid, 10)
                await km.interrupt_kernel()
                try:
                    status, _, ename = await asyncio.wait_for(running, 30)
                except asyncio.TimeoutError:
                    pytest.fail(f"no reply 30 s after the interrupt; the kernel's main thread was "
                                f"in {where!r} when interrupted, is in {_wchan(proc.pid)!r} now")
                assert (status, ename) == ("error", "KeyboardInterrupt")
            assert not await km.is_alive()
            assert proc.poll() == 0
        # each kernel draws its own random numbers (the fork server's state is reseeded)
        assert seen[0] != seen[1]
        assert fork_server.forked == forked + 2

    forked = fork_server.forked
    run_async(main)


def test_a_forked_kernel_sends_every_widget_state_in_one_reply(fork_server, tmp_path):
    """ipywidgets registers its comm targets when it is imported inside a running kernel; the fork
    server imported it before any kernel existed. A page asks a kernel for all its widgets'
    states on the 'jupyter.widget.control' comm, and falls back to one request per widget when
    the kernel closes that comm (no such target): the forked kernel must answer in one reply."""
    async def main():
        async with forked_kernel(tmp_path / "kernel.json", tmp_path) as (_km, kc):
            status, model_id, _ = await _run(
                kc, "import ipywidgets; s = ipywidgets.IntSlider(value=7); print(s.model_id)")
            assert status == "ok"
            comm_id = uuid.uuid4().hex
            kc.shell_channel.send(kc.session.msg(
                "comm_open", {"comm_id": comm_id, "target_name": "jupyter.widget.control",
                              "data": {}}, metadata={"version": "1.0.0"}))
            kc.shell_channel.send(kc.session.msg(
                "comm_msg", {"comm_id": comm_id, "data": {"method": "request_states"}}))
            deadline = time.monotonic() + 30
            while True:
                msg = await kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1))
                content = msg["content"]
                if content.get("comm_id") != comm_id:
                    continue
                assert msg["msg_type"] == "comm_msg", f"the kernel answered {msg['msg_type']}"
                break
            assert content["data"]["method"] == "update_states"
            assert content["data"]["states"][model_id]["state"]["value"] == 7

    run_async(main)


def test_what_cannot_be_forked_is_started_as_usual(fork_server, tmp_path):
    py = sys.executable
    cmd = [py, "-m", "ipykernel_launcher", "-f", "kernel.json"]
    assert fork_server.can_fork(cmd, {"env": kernel_env()}) is None
    assert "PYTHONPATH" in fork_server.can_fork(cmd, {"env": kernel_env(PYTHONPATH="/x")})
    assert "OMP_NUM_THREADS" in fork_server.can_fork(
        cmd, {"env": kernel_env(OMP_NUM_THREADS="7")})
    assert fork_server.can_fork(["/usr/bin/env", "-m", "ipykernel_launcher"], {}) == \
        "another Python interpreter"
    assert fork_server.can_fork([py, "-m", "other_kernel"], {}) == "not an ipykernel command"
    assert fork_server.can_fork(cmd, {"env": kernel_env(), "stdout": subprocess.PIPE}) == \
        "stdout redirected"

    async def main():
        km = fs.ForkKernelManager(kernel_name="python3", transport="ipc",
                                  connection_file=str(tmp_path / "kernel.json"))
        await km.start_kernel(env=kernel_env(PYTHONPATH=os.pathsep.join(sys.path[1:])))
        try:
            assert isinstance(km.provisioner.process, subprocess.Popen)
            assert await km.is_alive()
        finally:
            await km.shutdown_kernel(now=True)

    forked = fork_server.forked
    run_async(main)
    assert fork_server.forked == forked


def test_a_bad_request_is_refused_and_the_server_goes_on(fork_server):
    reply, fds = fork_server._exchange({"args": ["-f", "x.json"]}, 10)     # no env, no cwd
    assert fds == [] and reply["error"].startswith("bad request")
    reply, fds = fork_server._exchange({"args": [], "env": ["A"], "cwd": "/"}, 10)
    assert fds == [] and reply["error"].startswith("bad request")
    assert fork_server.ready and fork_server._failed is None


def test_a_fork_server_that_cannot_import_starts_nothing():
    server = fs.ForkServer(env=kernel_env(), preload=("kernelnb_no_such_module",)).start()
    try:
        deadline = time.monotonic() + 60
        while server._failed is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "kernelnb_no_such_module" in server._failed and not server.ready
        cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "kernel.json"]
        assert server.can_fork(cmd, {"env": kernel_env()}) == server._failed
        assert server._proc.wait(10) == 1
    finally:
        server.stop()
