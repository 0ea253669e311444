"""Dashboard kernels forked from one interpreter that has already imported what they need.

A dashboard kernel started the ordinary way is a new Python process that imports ipykernel,
numpy, scipy, scikit-learn, plotly, ipywidgets and its dashboard's module before it runs a line
of the dashboard: several CPU-seconds, paid by every page a visitor opens
without a preheated kernel. ``kernelnb serve`` instead starts, once, a *fork server*: a process
that imports all of that (every dashboard module included), then waits on a private socket pair.
Asked for a kernel, it forks; the child takes the kernel's environment, working folder and
arguments and runs ``ipykernel_launcher`` as ``python -m ipykernel_launcher -f <connection
file>`` would, with the imports already done. The children share with the fork server, copy on
write, every memory page they do not write to, so a forked kernel also holds less memory of its
own (USS) than a started one.

:class:`ForkProvisioner` is the kernel provisioner (jupyter_client's extension point for how a
kernel process is made) that asks it, :class:`ForkKernelManager` the kernel manager that uses
that provisioner (kernelnb's ``BudgetKernelManager`` makes its kernels with it), and
:class:`ForkServer` the server's end of the socket. The
provisioner forks only a kernel whose command is this interpreter's ``-m ipykernel_launcher``
and whose environment agrees with the fork server's on everything read at import time
(``PYTHON*`` variables, the BLAS/OpenMP thread counts, kernelnb's plotly bundle route): any other
kernel, or any failure of the fork server, is started the ordinary way (and logged once).

A forked kernel is the fork server's child, not the Jupyter server's: the server watches and
signals it through a pidfd (Linux 5.3 and later) that the fork server hands over with the pid,
so a recycled pid can never be signalled. Its exit status is not known to the server (the fork
server reaps it); the provisioner reports 0. It ends when its parent is neither the fork server nor the Jupyter server: a watch of its own, ``KERNELNB_SERVER_PID``),
and its parent, the fork server, ends when the Jupyter server does (end of file on its socket): so a
forked kernel, like one started as usual, does not outlive its server. Should the fork server
die alone, the Jupyter server (a child subreaper) adopts its kernels, which keep running, and
reaps them when they end; kernels are then started the ordinary way. Until the fork server has
finished importing (a few seconds after the server starts), kernels are started as usual.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time

from jupyter_client.ioloop.restarter import AsyncIOLoopKernelRestarter
from jupyter_client.provisioning import LocalProvisioner
from jupyter_server.services.kernels.kernelmanager import ServerKernelManager
from traitlets import Integer, default

from ._forkserver_process import DASHBOARDS, KERNEL_PROCESS_NAME, PROCESS_NAME

__all__ = ["DASHBOARDS", "KERNEL_PROCESS_NAME", "PROCESS_NAME",
           "ForkKernelManager", "ForkProvisioner", "ForkServer", "ForkServerError",
           "fork_server", "set_fork_server", "supported"]

#: Modules the fork server imports before it forks: what every dashboard kernel imports.
PRELOAD = (
    "ipykernel.ipkernel",
    "ipykernel.zmqshell",
    "ipykernel.iostream",
    "ipykernel.heartbeat",
    "ipykernel.parentpoller",
    "ipykernel.debugger",            # and debugpy: imported by every kernel's start
    "IPython.core.completerlib",
    "sqlite3",
    "pdb",
    "ipykernel.comm",
    "ipywidgets",
    "anywidget",
    "numpy",
    "scipy.linalg",
    "scipy.stats",
    "sklearn.base",
    "plotly.graph_objects",
    "kernelnb",
    DASHBOARDS,
)

#: Environment variables read at import time besides ``PYTHON*`` and ``*_NUM_THREADS``: a kernel
#: is forked only when it would see the same values as the fork server saw when importing.
_IMPORT_ENV = ("KERNELNB_PLOTLY_ESM", "LD_PRELOAD", "LD_LIBRARY_PATH", "VIRTUAL_ENV",
               "MPLBACKEND", "JUPYTER_PLATFORM_DIRS")

#: How long a request waits for the fork server to be ready (its imports) before giving up.
READY_TIMEOUT = 90.0


class ForkServerError(RuntimeError):
    """The fork server could not make a kernel (not started, gone, refused)."""


def supported() -> bool:
    """True where kernels can be forked: POSIX with ``fork``, pidfds and fd passing."""
    return (os.name == "posix" and hasattr(os, "fork") and hasattr(os, "pidfd_open")
            and hasattr(signal, "pidfd_send_signal") and hasattr(socket, "send_fds"))


def _import_env(env) -> dict:
    keys = {k for k in env if k.startswith("PYTHON") or k.endswith("_NUM_THREADS")}
    keys.update(_IMPORT_ENV)
    return {k: env.get(k) for k in keys}


# --------------------------------------------------------------------------- the server's end

#: The Jupyter server's pid, in a forked kernel's environment: the kernel ends when its parent
#: process is neither its fork server nor that server (orphaned to init: the server is gone).
SERVER_PID_ENV = "KERNELNB_SERVER_PID"

#: prctl's option that makes a process the "child subreaper" of its descendants (Linux 3.4).
_PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper() -> bool:
    """Make this process (the Jupyter server) adopt its orphaned descendants.

    A forked kernel's parent is the fork server. Should the fork server die (killed, out of
    memory), its kernels are adopted by this process instead of init: they keep running, and
    their pages keep working (a kernel ends when its parent becomes init, see
    :meth:`ForkProvisioner.launch_kernel`); this process reaps them when they end
    (:func:`_reap`). Returns whether it worked.
    """
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _reap(pidfd: int) -> int:
    """The exit status of the ended process of ``pidfd`` if it is this process's child (a kernel
    adopted after its fork server died), reaping it; else 0 (the fork server reaps its own)."""
    try:
        result = os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOHANG)
    except (ChildProcessError, OSError, AttributeError):
        return 0
    if result is None:
        return 0
    return result.si_status if result.si_code == os.CLD_EXITED else -result.si_status


class _ForkedKernel:
    """The part of ``subprocess.Popen`` that jupyter_client's provisioner uses, for a kernel
    forked by the fork server (not a child of this process), watched through its pidfd."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int, pidfd: int):
        self.pid = pid
        self._pidfd = pidfd
        self.returncode = None

    def _ended(self, timeout: float = 0.0) -> bool:
        if self.returncode is not None:
            return True
        ready, _, _ = select.select([self._pidfd], [], [], timeout)
        if ready:
            self.returncode = _reap(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1
        return bool(ready)

    def poll(self):
        self._ended()
        return self.returncode

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._ended(0.1):
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
        return self.returncode

    def send_signal(self, signum):
        if not self._ended():
            signal.pidfd_send_signal(self._pidfd, signum)

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        self.send_signal(signal.SIGKILL)

    def __del__(self):
        if getattr(self, "_pidfd", -1) >= 0:
            try:
                os.close(self._pidfd)
            except OSError:
                pass


class ForkServer:
    """The Jupyter server's end of the fork server: starts it, asks it for kernels.

    Parameters
    ----------
    env : dict
        The fork server's environment: the one the kernels it forks will be compared against.
    preload : sequence of str or None
        Modules it imports before forking; None: :data:`PRELOAD` (:data:`DASHBOARDS` stands for
        every dashboard module).
    """

    def __init__(self, env=None, preload=None):
        self.env = dict(os.environ if env is None else env)
        self.preload = tuple(PRELOAD if preload is None else preload)
        self._proc = None
        self._sock = None
        self._lock = threading.Lock()
        self._ready = False
        self._failed = None
        self.forked = 0

    def start(self):
        """Start the fork server process (it imports in the background)."""
        if not supported():
            raise ForkServerError("forking kernels needs Linux (fork, pidfd_open, SCM_RIGHTS)")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        cmd = [sys.executable, "-m", "kernelnb.lab.server._forkserver_process", str(theirs.fileno()),
               *self.preload]
        _become_subreaper()       # the kernels outlive a fork server that dies before them
        self._proc = subprocess.Popen(cmd, pass_fds=[theirs.fileno()], env=self.env,
                                      stdin=subprocess.DEVNULL, start_new_session=True)
        theirs.close()
        self._sock = ours
        threading.Thread(target=self._wait_ready_in_background, daemon=True,
                         name="kernelnb-fork-server-ready").start()
        return self

    def _wait_ready_in_background(self):
        with self._lock:
            try:
                self._wait_ready()
            except (OSError, ValueError, ForkServerError) as exc:
                self._failed = f"the fork server failed: {exc}"

    @property
    def ready(self) -> bool:
        """True once the fork server has imported and can fork."""
        return self._ready and not self._failed

    @property
    def state(self) -> str:
        """``"starting"``, ``"ready"`` or ``"failed: <why>"`` (what the status page says)."""
        if self._failed:
            return "failed: " + self._failed
        return "ready" if self._ready else "starting"

    @property
    def pid(self):
        return None if self._proc is None else self._proc.pid

    def can_fork(self, cmd, kwargs) -> str | None:
        """None when the kernel ``cmd`` with Popen ``kwargs`` can be forked, else why not."""
        if self._failed:
            return self._failed
        if self._proc is None:
            return "the fork server is not started"
        if not self._ready:
            # never wait for its imports: a kernel started as usual is no slower than before
            return "the fork server is still importing"
        if len(cmd) < 3 or list(cmd[1:3]) != ["-m", "ipykernel_launcher"]:
            return "not an ipykernel command"
        if os.path.realpath(cmd[0]) != os.path.realpath(sys.executable):
            return "another Python interpreter"
        for key in ("stdin", "stdout", "stderr"):
            if kwargs.get(key) not in (None, subprocess.DEVNULL):
                return f"{key} redirected"
        env = kwargs.get("env") or os.environ
        theirs, ours = _import_env(env), _import_env(self.env)
        for key in sorted(set(theirs) | set(ours)):
            if theirs.get(key) != ours.get(key):
                return f"the kernel's {key} differs from the fork server's"
        return None

    def _exchange(self, request: dict, timeout: float):
        """Send one request, read one JSON line (and its pidfd); blocking, under the lock."""
        sock = self._sock
        sock.settimeout(timeout)
        if request is not None:
            sock.sendall(json.dumps(request).encode() + b"\n")
        data, fds = b"", []
        while not data.endswith(b"\n"):
            chunk, got, _flags, _addr = socket.recv_fds(sock, 65536, 1)
            if not chunk:
                raise ForkServerError("the fork server has ended")
            data += chunk
            fds += got
        return json.loads(data), fds

    def _wait_ready(self):
        if self._ready:
            return
        reply, _ = self._exchange(None, READY_TIMEOUT)
        if not reply.get("ready"):
            raise ForkServerError(f"the fork server could not start: {reply.get('error')}")
        self._ready = True

    def fork_blocking(self, args, env, cwd) -> _ForkedKernel:
        """Fork a kernel running ``ipykernel_launcher`` with ``args`` (blocking)."""
        with self._lock:
            try:
                self._wait_ready()
                reply, fds = self._exchange(
                    {"args": list(args), "env": dict(env), "cwd": str(cwd)}, 30.0)
            except (OSError, ValueError, ForkServerError) as exc:
                # Not used again; left running, since the kernels it forked are its children.
                self._failed = f"the fork server failed: {exc}"
                raise ForkServerError(self._failed) from exc
        if "pid" not in reply or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            raise ForkServerError(f"the fork server refused: {reply.get('error')}")
        self.forked += 1
        return _ForkedKernel(int(reply["pid"]), fds[0])

    async def fork(self, args, env, cwd) -> _ForkedKernel:
        """Fork a kernel (the exchange, a few milliseconds, in a worker thread)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, self.fork_blocking, args, env, cwd)

    def stop(self):
        """End the fork server. The kernels it forked end with it, as a kernel started as usual
        ends with its server (ipykernel watches its parent process, ``JPY_PARENT_PID``)."""
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()


_SERVER: ForkServer | None = None


def set_fork_server(server: ForkServer | None) -> None:
    """Make ``server`` the one :class:`ForkProvisioner` asks (None: start kernels as usual)."""
    global _SERVER
    _SERVER = server


def fork_server() -> ForkServer | None:
    """The fork server :class:`ForkProvisioner` asks, or None."""
    return _SERVER


class ForkProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, forking the kernel from the fork server when it can.

    Everything but the launch is :class:`jupyter_client.provisioning.LocalProvisioner`'s
    (connection file, ports, signals to the kernel's process group, shutdown).
    """

    _said = set()

    async def launch_kernel(self, cmd, **kwargs):
        server = fork_server()
        why = "no fork server" if server is None else server.can_fork(cmd, kwargs)
        if why is None:
            try:
                env = dict(kwargs.get("env") or os.environ)
                if not kwargs.get("independent"):
                    # The kernel ends when its parent is neither the fork server nor this
                    # server (its own watch, SERVER_PID_ENV; ipykernel's would end it with the
                    # fork server): the fork server ends when this server does. Should the fork
                    # server die alone, this server adopts the kernel (_become_subreaper): it
                    # lives on, with its page.
                    env["JPY_PARENT_PID"] = "0"
                    env[SERVER_PID_ENV] = str(os.getpid())
                cwd = kwargs.get("cwd") or os.getcwd()
                proc = await server.fork(cmd[3:], env, cwd)
            except ForkServerError as exc:
                why = str(exc)
            else:
                self.process = proc
                self.pid = proc.pid
                self.pgid = proc.pid             # the child's own session (see _become_kernel)
                self.cwd = cwd
                return self.connection_info
        if server is not None and why not in ForkProvisioner._said:
            ForkProvisioner._said.add(why)
            # said once per reason; "still importing" is the expected one at start-up
            level = logging.DEBUG if why.endswith("still importing") else logging.INFO
            self.log.log(level, "kernelnb: a kernel started without the fork server (%s)", why)
        return await super().launch_kernel(cmd, **kwargs)


class DeadKernelRestarter(AsyncIOLoopKernelRestarter):
    """jupyter_client's restarter, which reports a dead kernel at once instead of restarting it.

    A dashboard kernel restarted after its process died would have none of its page's widgets,
    and hold budget until culled: with ``restart_limit`` 0 the restarter's first finding of a
    dead process is its "dead" notice (to the page's websocket too), and
    :class:`kernelnb.lab.server._kernelpool.BudgetKernelManager` ends the kernel.
    """

    restart_limit = Integer(
        0, config=True,
        help="Restarts of a kernel whose process died before it is reported dead; kernelnb's "
             "dashboard kernels: none.")


class ForkKernelManager(ServerKernelManager):
    """jupyter_server's kernel manager, whose kernels are made by :class:`ForkProvisioner` while
    a fork server is set (:func:`set_fork_server`); otherwise ``ServerKernelManager``.

    Each kernel process it launches, forked or started as usual, first start and restarts alike,
    gets the memory limit of the kernel manager that made it (``BudgetKernelManager``'s
    ``limit_kernel_memory``, :mod:`kernelnb.lab.server._memory`) as soon as it exists. Its restarter is
    :class:`DeadKernelRestarter` (jupyter_client's ``restarter_class`` trait): a kernel whose
    process dies is not restarted.
    """

    @default("restarter_class")
    def _default_restarter_class(self):
        return DeadKernelRestarter

    async def _async_pre_start_kernel(self, **kw):
        if self.provisioner is None and fork_server() is not None:
            self.provisioner = ForkProvisioner(
                kernel_id=self.kernel_id or kw.get("kernel_id") or "", kernel_spec=self.kernel_spec,
                parent=self)
        return await super()._async_pre_start_kernel(**kw)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        await super()._async_launch_kernel(kernel_cmd, **kw)
        limit = getattr(self.parent, "limit_kernel_memory", None)
        if limit is not None:
            limit(getattr(self.provisioner, "pid", None))

    _launch_kernel = _async_launch_kernel
