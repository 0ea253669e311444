"""The fork server's process (``python -m kernelnb.lab.server._forkserver_process FD [MODULE ...]``).

It imports the modules named (:data:`kernelnb.lab.server._forkserver.PRELOAD` for ``kernelnb serve``),
then forks a dashboard kernel for each request read from the socket ``FD``, replying with the
kernel's pid and a pidfd; see :mod:`kernelnb.lab.server._forkserver` for the whole design. This module
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
            _warm_plotly()
            # the scan of the loaded BLAS libraries kernelnb's solvers do at their first fit
            from kernelnb._threads import blas_single_thread
            with blas_single_thread():
                pass
        else:
            importlib.import_module(name)


def _warm_plotly():
    """Build and serialise one figure with what the dashboards' charts use (trace types, axes,
    shapes, annotations, kernelnb's shared layout): plotly builds its property validators and
    loads its templates on first use, about a second of every kernel's first chart otherwise.
    No widget is made here (a widget needs a kernel)."""
    import plotly.graph_objects as go

    from kernelnb.lab.viz._style import BASE_LAYOUT, SURFACE_SCALE, title_layout
    grid = [[0.0, 1.0], [1.0, 0.0]]
    fig = go.Figure([
        go.Scatter(x=[0, 1], y=[0, 1], mode="markers+lines", name="points",
                   marker=dict(color=[0, 1], colorscale=SURFACE_SCALE, size=6, symbol="diamond",
                               line=dict(width=1, color="black")),
                   line=dict(dash="dash", width=2), customdata=[0, 1], hovertemplate="%{x}",
                   error_y=dict(type="data", array=[0.1, 0.1]), fill="tonexty"),
        go.Contour(x=[0, 1], y=[0, 1], z=grid, colorscale=SURFACE_SCALE, showscale=False,
                   contours=dict(start=0, end=1, size=0.5, coloring="lines",
                                 showlabels=True), line=dict(width=2), hoverinfo="skip"),
        go.Heatmap(x=[0, 1], y=[0, 1], z=grid, colorscale=SURFACE_SCALE, zmid=0.5,
                   colorbar=dict(title=dict(text="f"))),
    ])
    fig.update_layout(**BASE_LAYOUT, title=title_layout("warm"), height=300, width=400,
                      xaxis=dict(type="log", title=dict(text="x"), range=[0, 1]),
                      yaxis=dict(scaleanchor="x", title=dict(text="y"), tickformat=".0%"),
                      xaxis2=dict(anchor="y2"), yaxis2=dict(anchor="x2"),
                      shapes=[dict(type="line", x0=0, x1=1, y0=0, y1=1),
                              dict(type="rect", x0=0, x1=1, y0=0, y1=1)],
                      annotations=[dict(text="a", x=0, y=0, showarrow=False)],
                      hovermode="closest", dragmode=False, uirevision="warm")
    fig.to_plotly_json()
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
    # debugpy (imported by ipykernel's debugger) prints a notice about frozen modules when it is
    # imported; a kernel started as usual prints it into its own start-up, here it would reach
    # the teacher's terminal. The kernels get their own environment when forked.
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
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


def _watch_parents(fork_server, server):
    """End this kernel once its parent is neither the fork server nor the Jupyter server (it was
    orphaned to init: the server is gone), as ipykernel's parent poller would."""
    while True:
        if os.getppid() not in (fork_server, server):
            os._exit(1)
        time.sleep(1.0)


def _become_kernel(args, env, cwd):
    """In the forked child (already in a session of its own, as jupyter_client starts kernels):
    be ``python -m ipykernel_launcher <args>`` in ``env`` and ``cwd``."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    server = env.get("KERNELNB_SERVER_PID", "")
    if server.isdigit() and int(server) > 1:
        threading.Thread(target=_watch_parents, args=(os.getppid(), int(server)), daemon=True,
                         name="kernelnb-parent-watch").start()
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
    if "ipywidgets" in sys.modules:
        # ipywidgets registers its comm targets ('jupyter.widget', and 'jupyter.widget.control',
        # through which a page asks for every widget's state in one message) when it is imported
        # inside a running kernel. Imported by the fork server, before any kernel existed, it
        # registered none, and each page fell back to one request per widget. Its IPython
        # extension hook registers them once this kernel's shell is up.
        args = [*args, "--ext=ipywidgets"]
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
