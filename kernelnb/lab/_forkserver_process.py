"""The fork server's process (``python -m kernelnb.lab._forkserver_process FD [MODULE ...]``).

It imports the modules named (:data:`kernelnb.lab._forkserver.PRELOAD` for ``kernelnb serve``),
then forks a dashboard kernel for each request read from the socket ``FD``, replying with the
kernel's pid and a pidfd; see :mod:`kernelnb.lab._forkserver` for the whole design. This module
imports nothing but the standard library itself, so that the fork server's imports are only
those its kernels make.
"""
from __future__ import annotations

import gc
import json
import os
import select
import signal
import socket
import sys
import threading
import time

#: Stands, in a preload list, for every dashboard module of :mod:`kernelnb.lab.app`.
DASHBOARDS = "kernelnb.lab.app.*"

#: A forked kernel's process name (its command line is the fork server's).
KERNEL_PROCESS_NAME = "kernelnb-kernel"

#: The fork server's process name.
PROCESS_NAME = "kernelnb-forks"


def _send(sock, message: dict, fds=()):
    data = json.dumps(message).encode() + b"\n"
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


def _preload(names):
    import importlib
    for name in names:
        if name == DASHBOARDS:
            # every dashboard module (kernelnb.lab.app imports each one only when asked for)
            import kernelnb.lab.app as app
            for public in app.__all__:
                getattr(app, public)
        else:
            importlib.import_module(name)
    # ipykernel's kernel application reads JPY_PARENT_PID when it is imported: each kernel
    # imports it afresh, in its own environment
    sys.modules.pop("ipykernel.kernelapp", None)


def _reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _pgid(pid):
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _name_process(name):
    """The process's name in ps and top (Linux's comm, 15 bytes); nothing elsewhere."""
    try:
        with open("/proc/self/comm", "w") as f:
            f.write(name)
    except OSError:
        pass


def _serve(sock, preload):
    """Import, then fork on each request. Returns only in a forked child: its request."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)      # the teacher's Ctrl-C is the server's
    _name_process(PROCESS_NAME)
    try:
        _preload(preload)
        if threading.active_count() != 1:
            raise RuntimeError(f"{threading.active_count()} Python threads after the imports")
    except BaseException as exc:  # noqa: BLE001 - told to the server, which starts kernels as usual
        _send(sock, {"ready": False, "error": f"{type(exc).__name__}: {exc}"})
        raise SystemExit(1) from None
    gc.collect()
    gc.freeze()          # the children's collections leave the shared objects' pages alone
    _send(sock, {"ready": True, "pid": os.getpid()})
    buffered = b""
    while True:
        readable, _, _ = select.select([sock], [], [], 1.0)
        _reap()
        if not readable:
            continue
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise SystemExit(0)                  # the server has gone
        buffered += chunk
        while b"\n" in buffered:
            line, buffered = buffered.split(b"\n", 1)
            try:
                request = json.loads(line)
                args = [str(a) for a in request["args"]]
                env = {str(k): str(v) for k, v in request["env"].items()}
                cwd = str(request["cwd"])
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                _send(sock, {"error": f"bad request: {exc}"})
                continue
            pid = os.fork()
            if pid == 0:
                sock.close()
                os.setsid()          # first: the server signals the kernel's process group
                _name_process(KERNEL_PROCESS_NAME)
                return args, env, cwd
            deadline = time.monotonic() + 5.0
            while _pgid(pid) not in (pid, None) and time.monotonic() < deadline:
                time.sleep(0.001)
            try:
                pidfd = os.pidfd_open(pid)
            except OSError as exc:
                _send(sock, {"error": f"pidfd_open: {exc}"})
                continue
            try:
                _send(sock, {"pid": pid}, [pidfd])
            finally:
                os.close(pidfd)


def _become_kernel(args, env, cwd):
    """In the forked child (already in a session of its own, as jupyter_client starts kernels):
    be ``python -m ipykernel_launcher <args>`` in ``env`` and ``cwd``."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    # a fresh random state: the fork server's would be every kernel's
    import random
    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    # sys.path as `python -m` makes it in cwd; ipykernel_launcher removes that entry itself
    if sys.path and sys.path[0] in ("", _START_CWD):
        sys.path[0] = os.getcwd()
    import runpy
    sys.argv = ["ipykernel_launcher", *args]
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)


_START_CWD = os.getcwd()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    sock = socket.socket(fileno=int(argv[0]))
    args, env, cwd = _serve(sock, argv[1:])
    _become_kernel(args, env, cwd)


if __name__ == "__main__":
    main()
