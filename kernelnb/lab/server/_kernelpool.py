"""Kernels for a class: a budget, culling of abandoned kernels, and a pool of preheated dashboards.

Every dashboard page is a Python kernel (a few hundred MB). :class:`BudgetKernelManager` caps how
many run at once (a render past the cap gets HTTP 503 instead of a new kernel), and reclaims
kernels nobody uses: one whose page has had no websocket for ``cull_unconnected`` seconds (a
``curl`` of the page, a closed tab) and, through Jupyter's own culler
(``MappingKernelManager.cull_idle_timeout``), one idle that long even with a tab still open.
Voila is given it as ``VoilaConfiguration.multi_kernel_manager_class``. Each kernel gets a memory
limit (``kernel_memory_mb``, see :mod:`kernelnb.lab.server._memory`), a kernel whose process dies is not
restarted (a restarted dashboard kernel has none of its page's widgets), and the manager records why
each kernel ended (:meth:`BudgetKernelManager.kernel_fate`, served as
``/kernelnb/api/kernels/<id>``).

:class:`PoolKeeper` replaces the refill policy of Voila's preheated-kernel pool (which starts a
new kernel for every kernel taken, at once, with no cap): kernels that have already executed a
dashboard are kept ready up to each dashboard's ``pool_size`` in Voila's
``VoilaKernelManager.kernel_pools_config``, warmed at most ``pool_concurrency`` at a time, within
the budget, refilled in the background once no visitor has taken one for ``refill_quiet`` seconds
and the machine's load average is below its number of cores (so that a class opening its pages
gets the CPU; after ``refill_max_wait`` seconds it refills anyway).
"""
from __future__ import annotations

import asyncio
import collections
import os
import re
import signal
import time
from datetime import datetime, timezone
from functools import cache

from jupyter_core.utils import ensure_async
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Float, Integer, TraitError, default, validate
from traitlets.config import LoggingConfigurable

from . import _memory
from ._memory import KERNEL_MB

__all__ = ["ClassFull", "BudgetKernelManager", "PoolKeeper", "default_max_kernels",
           "KERNEL_MB", "END_REASONS", "FATES_KEPT", "is_kernel_id"]

#: Why a kernel ended (:meth:`BudgetKernelManager.kernel_fate`): Jupyter's idle culler
#: (``cull_idle_timeout``), no page connected for ``cull_unconnected`` seconds, past its memory
#: limit, its process exited or was killed by itself (the out-of-memory killer, ``kill -9``), and
#: a client's request (a page left, ``DELETE /api/kernels/<id>``, the server stopping).
END_REASONS = ("culled_idle", "culled_unconnected", "memory", "died", "shutdown")

#: How many ended kernels the manager remembers (the oldest are forgotten first).
FATES_KEPT = 4096

#: Seconds after which a kernel killed for its memory that Jupyter's restarter has not found dead
#: (its manager has none) is ended by the watchdog itself.
_KILLED_GRACE_S = 10.0

_KERNEL_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")


def is_kernel_id(text) -> bool:
    """Whether ``text`` has the form of a Jupyter kernel id (a UUID, lower-case, with dashes)."""
    return isinstance(text, str) and _KERNEL_ID.match(text) is not None

_PREHEAT_ENV = "VOILA_PREHEAT"


class ClassFull(RuntimeError):
    """No kernel can be started: the server runs as many as its budget allows."""


def _total_memory_mb() -> float | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (AttributeError, OSError, ValueError):
        return None


def default_max_kernels(memory_mb: float | None = None) -> int:
    """How many dashboard kernels this machine holds: 3/4 of its memory at ~300 MB each, >= 4."""
    memory_mb = _total_memory_mb() if memory_mb is None else memory_mb
    if not memory_mb:
        return 4
    return max(4, int(0.75 * memory_mb / KERNEL_MB))


def _kernel_rss_mb(kernel) -> float | None:
    """Resident memory of a kernel's process (and its children), MB; None when unknown."""
    pid = getattr(getattr(kernel, "provisioner", None), "pid", None)
    if pid is None:
        return None
    try:
        import psutil
        proc = psutil.Process(pid)
        total = proc.memory_info().rss
        for child in proc.children(recursive=True):
            total += child.memory_info().rss
        return total / 2**20
    except Exception:  # noqa: BLE001 - a kernel that just ended, psutil missing: unknown
        return None


def _seconds_since(when) -> float:
    """Seconds since the aware datetime ``when`` (infinite when unknown)."""
    if when is None:
        return float("inf")
    try:
        return (datetime.now(timezone.utc) - when).total_seconds()
    except TypeError:
        return float("inf")


class BudgetKernelManager(AsyncMappingKernelManager):
    """Jupyter's kernel manager with a cap on running kernels and culling of unconnected ones.

    Given to Voila as ``VoilaConfiguration.multi_kernel_manager_class``. With
    ``VoilaConfiguration.preheat_kernel``, Voila builds its pool manager on top of this class, and
    the instance Voila creates is one with :class:`PoolKeeper` in front (see :meth:`__new__`):
    Voila's own refill would start kernels past the budget.
    """

    max_kernels = Integer(
        0, config=True,
        help="Most kernels running at once (preheated ones included); 0: no limit. Past it, "
             "starting a kernel raises ClassFull (kernelnb serve answers HTTP 503).")
    cull_unconnected = Float(
        120.0, config=True,
        help="Shut down a kernel whose page has had no websocket connection for this many "
             "seconds (never connected, or every tab closed); 0 or less: never.")
    unconnected_check_interval = Float(
        0.0, config=True,
        help="Seconds between checks for unconnected kernels; 0: a quarter of "
             "cull_unconnected, at most 30 s.")
    kernel_memory_mb = Integer(
        0, config=True,
        help="Memory limit of each kernel, MB (0: none): its data (Linux's RLIMIT_DATA, set on "
             "its process) may not grow past it, so an allocation that would raises MemoryError "
             "in the kernel; and a kernel whose processes together hold more resident memory is "
             "ended (reason 'memory'). See kernelnb.lab.server._memory. kernelnb serve sets it "
             "(--kernel-memory).")
    memory_check_interval = Float(
        2.0, config=True,
        help="Seconds between two readings of the kernels' memory (with kernel_memory_mb).")

    @validate("kernel_memory_mb")
    def _check_kernel_memory(self, proposal):
        mb = proposal["value"]
        if mb != 0 and not _memory.KERNEL_MEMORY_MIN_MB <= mb <= 2**24:
            raise TraitError(f"kernel_memory_mb must be 0 (no limit) or from "
                             f"{_memory.KERNEL_MEMORY_MIN_MB} to {2**24} MB, got {mb}: a "
                             "dashboard kernel's data is about 450 MB before it computes")
        return mb

    @default("kernel_manager_class")
    def _default_kernel_manager_class(self):
        # jupyter_server's, making its kernels through kernelnb's fork server when the server
        # has one (kernelnb.lab.server._forkserver); otherwise exactly jupyter_server's.
        return "kernelnb.lab.server._forkserver.ForkKernelManager"

    def __new__(cls, *args, **kwargs):
        # Voila 0.5.9 to 0.5.13 offer no public hook for the preheated pool's refill policy: its
        # init_settings wraps multi_kernel_manager_class in a class it builds itself
        # (voila.voila_kernel_manager.voila_kernel_manager_factory), whose fill_if_needed,
        # get_pool_size and get_rendered_notebook shadow this class's. When Voila instantiates
        # that class, the instance is made of PoolKeeper + that class instead: a subclass, so
        # Python runs its __init__ as usual, and nothing of Voila's is modified.
        # tests/lab/test_server_hardening.py::test_voila_pool_manager_is_kernelnbs fails when this
        # stops working (and KernelnbVoila refuses to start with a preheat it cannot keep).
        made = cls
        if _is_voila_pool_class(cls) and not issubclass(cls, PoolKeeper):
            made = _with_pool_keeper(cls)
        return super().__new__(made, *args, **kwargs)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._starting = 0
        self._unconnected_since: dict[str, float] = {}
        self._connected: dict[str, int] = {}
        self._pooled: set[str] = set()
        self._culled_unconnected = 0
        self._refused = 0
        self._check_handle = None
        self._memory_handle = None
        self._memory_mb: dict[str, float] = {}
        self._limit_failed = None
        # why kernels end: the reason of a kernel being ended, and the record of ended ones
        self._ending: dict[str, str] = {}
        self._idle_culling: set[str] = set()
        self._fates: collections.OrderedDict[str, dict] = collections.OrderedDict()
        self._ended = collections.Counter()

    # -- the budget ---------------------------------------------------------------------------
    def n_kernels(self) -> int:
        """Kernels running or starting."""
        return len(self.list_kernel_ids()) + self._starting

    def capacity(self) -> int | None:
        """Kernels that may still be started (None: no limit)."""
        if self.max_kernels <= 0:
            return None
        return max(0, self.max_kernels - self.n_kernels())

    def note_refused(self):
        """Count a page refused for lack of budget (reported by :meth:`status`)."""
        self._refused += 1

    def is_full(self) -> bool:
        cap = self.capacity()
        return cap is not None and cap <= 0

    async def start_kernel(self, *args, kernel_id=None, **kwargs):
        if kernel_id is not None and kernel_id in self:
            return await super().start_kernel(*args, kernel_id=kernel_id, **kwargs)
        if self.is_full():
            self.note_refused()
            raise ClassFull(f"{self.n_kernels()} kernels are running, the limit "
                            f"(--max-kernels) is {self.max_kernels}")
        self._starting += 1
        try:
            kid = await super().start_kernel(*args, kernel_id=kernel_id, **kwargs)
        finally:
            self._starting -= 1
        self._fates.pop(kid, None)
        self._connected[kid] = 0
        env = kwargs.get("env") or {}
        if str(env.get(_PREHEAT_ENV, "")).lower() == "true":
            self._pooled.add(kid)
        else:
            self._unconnected_since[kid] = time.monotonic()
        self._schedule_check()
        self._schedule_memory_check()
        return kid

    def limit_kernel_memory(self, pid) -> bool:
        """Hold the kernel process ``pid`` to ``kernel_memory_mb`` (``RLIMIT_DATA``); called by
        the kernel's manager as soon as the process is launched (:mod:`kernelnb.lab.server._forkserver`).
        False (and said once in the log) where the system refuses."""
        if self.kernel_memory_mb <= 0 or pid is None:
            return False
        try:
            _memory.limit_process_memory(pid, self.kernel_memory_mb)
        except (OSError, ValueError) as exc:
            if self._limit_failed is None:
                self._limit_failed = str(exc)
                self.log.warning("kernelnb: kernels run without their memory limit inside (%s); "
                                 "the server still ends one past %d MB", exc,
                                 self.kernel_memory_mb)
            return False
        return True

    # -- connections ----------------------------------------------------------------------------
    def notify_connect(self, kernel_id):
        super().notify_connect(kernel_id)
        if kernel_id in self._connected:
            self._connected[kernel_id] += 1
        self._unconnected_since.pop(kernel_id, None)

    def notify_disconnect(self, kernel_id):
        super().notify_disconnect(kernel_id)
        if kernel_id in self._connected:
            self._connected[kernel_id] = max(0, self._connected[kernel_id] - 1)
        if kernel_id not in self._pooled and kernel_id in self and self.connections(kernel_id) <= 0:
            self._unconnected_since[kernel_id] = time.monotonic()

    def connections(self, kernel_id) -> int:
        """Websockets open on ``kernel_id`` (0 for a kernel that is not running)."""
        # Counted here from jupyter_server's notify_connect / notify_disconnect, the calls its
        # websocket handler makes for every connection opened and closed (the count it keeps for
        # its own culler is private; its kernel_model() reports it but raises for a kernel still
        # starting).
        return self._connected.get(kernel_id, 0)

    def release_from_pool(self, kernel_id):
        """A preheated kernel was given to a page: from now on it must get a connection."""
        self._pooled.discard(kernel_id)
        if self.connections(kernel_id) <= 0:
            self._unconnected_since[kernel_id] = time.monotonic()

    def remove_kernel(self, kernel_id):
        # Every end comes here: a shutdown (asked by a client, a culler, the memory watchdog, the
        # server stopping) once the kernel has stopped, and a died kernel (_handle_kernel_died).
        self._forget(kernel_id)
        kernel = self._kernels.get(kernel_id)
        if kernel is not None:
            self._record_end(kernel_id, kernel, self._ending.pop(kernel_id, "shutdown"))
        self._ending.pop(kernel_id, None)
        return super().remove_kernel(kernel_id)

    def _forget(self, kernel_id):
        self._unconnected_since.pop(kernel_id, None)
        self._connected.pop(kernel_id, None)
        self._pooled.discard(kernel_id)

    # -- why kernels end ------------------------------------------------------------------------
    def _end_reason(self, kernel_id, reason):
        """Say why ``kernel_id`` is being ended; the first reason given wins (a kernel culled
        while its page closes was culled)."""
        self._ending.setdefault(kernel_id, reason)

    async def shutdown_kernel(self, kernel_id, now=False, restart=False):
        if not restart:
            reason = "shutdown"
            if kernel_id in self._idle_culling:
                kernel = self._kernels.get(kernel_id)
                # Jupyter's culler also ends a kernel it finds dead
                dead = getattr(kernel, "execution_state", None) == "dead"
                reason = "died" if dead else "culled_idle"
            self._end_reason(kernel_id, reason)
        return await super().shutdown_kernel(kernel_id, now=now, restart=restart)

    async def cull_kernel_if_idle(self, kernel_id):
        # Jupyter's idle culler (cull_idle_timeout) ends kernels through shutdown_kernel.
        self._idle_culling.add(kernel_id)
        try:
            return await super().cull_kernel_if_idle(kernel_id)
        finally:
            self._idle_culling.discard(kernel_id)

    def _handle_kernel_died(self, kernel_id):
        # Jupyter's restarter found the kernel's process gone (restart_limit 0: see
        # kernelnb.lab.server._forkserver.DeadKernelRestarter).
        # jupyter_server's own handler only removes the kernel from the map, which leaves its
        # activity watcher's socket open (and a zmq context that never terminates) and its
        # connection files on disk: it is shut down instead, as any other kernel ends.
        self.log.warning("kernelnb: kernel %s died", kernel_id)
        self._end_reason(kernel_id, "died")
        asyncio.ensure_future(self._end_dead_kernel(kernel_id))

    async def _end_dead_kernel(self, kernel_id):
        try:
            await self.shutdown_kernel(kernel_id, now=True)
        except Exception as exc:  # noqa: BLE001 - not removed by the shutdown: removed here
            self.log.warning("kernelnb: cleaning up after kernel %s: %s", kernel_id, exc)
            if kernel_id in self:
                self.remove_kernel(kernel_id)

    async def _kill(self, kernel_id):
        """SIGKILL the kernel's processes (its process group, children included). Jupyter's
        restarter then finds it dead and tells its pages (a "dead" status on their websockets, as
        for a kernel that died by itself), and :meth:`_handle_kernel_died` ends it; a kernel
        manager without a restarter is ended here after ``_KILLED_GRACE_S`` seconds."""
        kernel = self._kernels.get(kernel_id)
        if kernel is None:
            return
        try:
            await ensure_async(kernel.signal_kernel(signal.SIGKILL))
        except Exception as exc:  # noqa: BLE001 - gone already, or no process group
            self.log.warning("kernelnb: killing kernel %s: %s", kernel_id, exc)

        def unnoticed():
            if self._kernels.get(kernel_id) is kernel:
                asyncio.ensure_future(self._end_dead_kernel(kernel_id))

        asyncio.get_running_loop().call_later(_KILLED_GRACE_S, unnoticed)

    def _record_end(self, kernel_id, kernel, reason):
        idle = _seconds_since(getattr(kernel, "last_activity", None))
        self._fates[kernel_id] = {
            "reason": reason,
            "ended": time.monotonic(),
            "idle_seconds": None if idle == float("inf") else round(idle, 1),
            "limit_mb": self.kernel_memory_mb or None,
            "memory_mb": self._memory_mb.pop(kernel_id, None),
        }
        self._fates.move_to_end(kernel_id)
        while len(self._fates) > FATES_KEPT:
            self._fates.popitem(last=False)
        self._ended[reason] += 1
        self.log.info("kernelnb: kernel %s ended (%s)", kernel_id, reason)

    def kernel_fate(self, kernel_id) -> dict:
        """What became of ``kernel_id``: alive, ended (and why), or unknown to this server.

        Parameters
        ----------
        kernel_id : str
            A kernel id (:func:`is_kernel_id`; anything else raises ``ValueError``).

        Returns
        -------
        dict
            ``kernel_id``; ``state``: ``"alive"``, ``"ended"`` (or being ended) or ``"unknown"``
            (never started here, forgotten among more than :data:`FATES_KEPT` ended kernels, or
            started before the server was); ``reason``: for an ended kernel, one of :data:`END_REASONS`, else
            None; ``idle_seconds``: seconds since its last activity (for an ended kernel, at its
            end); ``ended_seconds_ago``; ``limit_mb``: its memory limit (None: none);
            ``memory_mb``: its processes' resident memory that no file backs, as the memory
            watchdog last read it (None without a memory limit).
        """
        if not is_kernel_id(kernel_id):
            raise ValueError(f"kernel_id must be a kernel's id (a UUID), got {kernel_id!r:.80}")
        out = {"kernel_id": kernel_id, "state": "unknown", "reason": None, "idle_seconds": None,
               "ended_seconds_ago": None, "limit_mb": None, "memory_mb": None}
        kernel = self._kernels.get(kernel_id)
        if kernel is not None:
            idle = _seconds_since(getattr(kernel, "last_activity", None))
            out.update(state="alive", limit_mb=self.kernel_memory_mb or None,
                       idle_seconds=None if idle == float("inf") else round(idle, 1),
                       memory_mb=_rounded(self._memory_mb.get(kernel_id)))
            if kernel_id in self._ending:
                # being ended (its page may already have its "dead" status): ended for the page
                out.update(state="ended", reason=self._ending[kernel_id], ended_seconds_ago=0.0)
        elif kernel_id in self._fates:
            fate = self._fates[kernel_id]
            out.update(state="ended", reason=fate["reason"], idle_seconds=fate["idle_seconds"],
                       ended_seconds_ago=round(time.monotonic() - fate["ended"], 1),
                       limit_mb=fate["limit_mb"], memory_mb=_rounded(fate["memory_mb"]))
        return out

    # -- the memory watchdog --------------------------------------------------------------------
    def _schedule_memory_check(self):
        if self.kernel_memory_mb <= 0 or self._memory_handle is not None:
            return
        loop = asyncio.get_event_loop()
        self._memory_handle = loop.call_later(max(0.1, self.memory_check_interval),
                                              self._run_memory_check)

    def _run_memory_check(self):
        asyncio.ensure_future(self._check_memory())

    def _kernel_pids(self) -> dict:
        pids = {}
        for kid in self.list_kernel_ids():
            kernel = self._kernels.get(kid)
            pid = getattr(getattr(kernel, "provisioner", None), "pid", None)
            if pid is not None and kid not in self._ending:
                pids[kid] = pid
        return pids

    async def _check_memory(self):
        try:
            pids = self._kernel_pids()
            if pids:
                # one pass over /proc for all kernels, in a worker thread (a few small reads a process)
                readings = await asyncio.get_running_loop().run_in_executor(
                    None, _read_trees, pids)
                for kid, mb in readings.items():
                    if mb is None or kid not in self or kid in self._ending:
                        continue
                    self._memory_mb[kid] = mb
                    if mb > self.kernel_memory_mb:
                        self.log.warning("kernelnb: ending kernel %s: its processes hold %.0f MB, "
                                         "past its limit of %d MB", kid, mb,
                                         self.kernel_memory_mb)
                        self._end_reason(kid, "memory")
                        await self._kill(kid)
        finally:
            self._memory_handle = None
            for kid in list(self._memory_mb):
                if kid not in self:
                    self._memory_mb.pop(kid, None)
            if self.list_kernel_ids():
                self._schedule_memory_check()

    # -- culling of unconnected kernels -------------------------------------------------------------
    def _check_interval(self) -> float:
        if self.unconnected_check_interval > 0:
            return self.unconnected_check_interval
        return min(30.0, max(0.5, self.cull_unconnected / 4))

    def _schedule_check(self):
        if self.cull_unconnected <= 0 or self._check_handle is not None:
            return
        loop = asyncio.get_event_loop()
        self._check_handle = loop.call_later(self._check_interval(), self._run_check)

    def _run_check(self):
        self._check_handle = None
        asyncio.ensure_future(self._cull_unconnected())

    async def _cull_unconnected(self):
        try:
            now = time.monotonic()
            for kid, since in list(self._unconnected_since.items()):
                if kid not in self:
                    self._forget(kid)
                    continue
                if kid in self._pooled or self.connections(kid) > 0:
                    self._unconnected_since.pop(kid, None)
                    continue
                # A kernel still executing its page (or just done) is not abandoned yet: the
                # clock runs from its last activity, and a busy kernel is left alone, as is one
                # still starting (its page cannot connect before the page is sent: on a loaded
                # machine a kernel's start alone outlasted a short cull_unconnected).
                kernel = self.get_kernel(kid)
                if getattr(kernel, "execution_state", None) in ("busy", "starting"):
                    continue
                waited = min(now - since, _seconds_since(getattr(kernel, "last_activity", None)))
                if waited >= self.cull_unconnected:
                    self.log.info("kernelnb: shutting down kernel %s: no page connected for "
                                  "%.0f s", kid, waited)
                    self._forget(kid)
                    self._culled_unconnected += 1
                    self._end_reason(kid, "culled_unconnected")
                    try:
                        await self.shutdown_kernel(kid)
                    except Exception as exc:  # noqa: BLE001 - already gone: nothing to reclaim
                        self.log.warning("kernelnb: culling %s: %s", kid, exc)
        finally:
            if self._unconnected_since or self.list_kernel_ids():
                self._schedule_check()

    # -- what /kernelnb/api/status reports -------------------------------------------------------
    def status(self, memory=True) -> dict:
        kids = self.list_kernel_ids()
        out = {
            "kernels": len(kids),
            "starting": self._starting,
            "max_kernels": self.max_kernels or None,
            "connected": sum(1 for k in kids if self.connections(k) > 0),
            "unconnected": sum(1 for k in kids if k in self._unconnected_since),
            "culled_unconnected": self._culled_unconnected,
            "refused": self._refused,
            "cull_unconnected_s": self.cull_unconnected,
            "cull_idle_s": self.cull_idle_timeout,
            "kernel_memory_mb": self.kernel_memory_mb or None,
            "ended": {reason: self._ended[reason] for reason in END_REASONS},
            "preheated_ready": 0,
            "preheat_target": 0,
            "pool": {},
            **_fork_status(),
        }
        if memory:
            rss = [r for r in (_kernel_rss_mb(self.get_kernel(k)) for k in kids if k in self)
                   if r is not None]
            out["kernel_rss_mb"] = {
                "total": round(sum(rss), 1),
                "mean": round(sum(rss) / len(rss), 1) if rss else None,
                "max": round(max(rss), 1) if rss else None,
            }
        return out


def _rounded(mb):
    return None if mb is None else round(mb, 1)


def _read_trees(pids: dict) -> dict:
    """{kernel id: resident memory of its process tree, MB (None: gone)} for {kernel id: pid}."""
    children = _memory.children_map()
    return {kid: _memory.tree_resident_mb(pid, children) for kid, pid in pids.items()}


def _fork_status() -> dict:
    """The fork server's state for the status page: off, starting, ready or failed (why)."""
    from ._forkserver import fork_server
    server = fork_server()
    if server is None:
        return {"fork_server": "off", "forked_kernels": 0}
    return {"fork_server": server.state, "forked_kernels": server.forked}


def _ready(task) -> bool:
    return task.done() and not task.cancelled() and task.exception() is None


#: What PoolKeeper overrides or uses of Voila's preheating kernel manager (Voila 0.5.9 to 0.5.13):
#: methods, with their parameters as PoolKeeper calls and overrides them, and attributes.
_VOILA_POOL_METHODS = {
    "fill_if_needed": ("self", "delay", "notebook_name", "extra_kernel_env_variables", "kwargs"),
    "get_pool_size": ("self", "notebook_name"),
    "get_rendered_notebook": ("self", "notebook_name", "extra_kernel_env_variables", "kwargs"),
    "_initialize": ("self", "notebook_path", "kernel_id", "kwargs"),
}
_VOILA_POOL_TRAITS = ("kernel_pools_config",)


def _is_voila_pool_class(cls) -> bool:
    """True for the class Voila builds when it preheats kernels (``VoilaKernelManager``)."""
    has_traits = getattr(cls, "class_trait_names", None)
    return (has_traits is not None and all(t in has_traits() for t in _VOILA_POOL_TRAITS)
            and all(callable(getattr(cls, m, None)) for m in _VOILA_POOL_METHODS))


@cache
def _with_pool_keeper(voila_class):
    return type("KernelnbPoolManager", (PoolKeeper, voila_class), {"__module__": __name__})


class PoolKeeper(LoggingConfigurable):
    """Mixin put in front of Voila's preheating kernel manager (see :class:`BudgetKernelManager`).

    How many executed kernels to keep ready for each dashboard is Voila's configuration:
    ``VoilaKernelManager.kernel_pools_config`` (``pool_size`` of the notebook's entry, else of
    ``"default"``; ``kernel_env_variables`` likewise), for the notebooks Voila preheats (every
    notebook of the folder but those in ``preheat_denylist``). Voila's ``fill_if_needed`` only
    wakes the keeper, which starts kernels one notebook at a time while the budget allows;
    Voila's ``fill_delay`` is not used (``refill_quiet`` takes its place).
    """

    # Voila 0.5.9 to 0.5.13 offer no public hook for the pool's refill policy nor for the order
    # in which pooled kernels are taken: this mixin overrides fill_if_needed, get_pool_size and
    # get_rendered_notebook of Voila's class and works on its pool (_pools: notebook -> tasks of
    # _initialize, which starts a kernel and renders the notebook). _VOILA_POOL_METHODS lists
    # what it relies on; tests/lab/test_server_hardening.py checks it against the installed Voila.

    pool_concurrency = Integer(
        2, config=True, help="Most kernels warming (starting and executing a dashboard) at once.")
    pool_retry_delay = Float(
        30.0, config=True, help="Seconds to wait before warming again after a failure.")
    refill_quiet = Float(
        10.0, config=True,
        help="Refill only after this many seconds without a kernel taken: while a class opens "
             "its pages, warming new kernels would take the CPU those pages need.")
    refill_max_wait = Float(
        300.0, config=True,
        help="Refill after this many seconds without a kernel taken even if the machine is "
             "still busy (see refill_quiet; the load average must otherwise be below the "
             "number of cores).")

    def __init__(self, **kwargs):
        # Set before Voila's __init__, which calls fill_if_needed for every notebook.
        self._notebooks: dict[str, None] = {}
        self._warming = 0
        self._retry_at = 0.0
        self._last_take = -float("inf")
        self._keeper_handle = None
        super().__init__(**kwargs)

    def fill_if_needed(self, delay=None, notebook_name=None, extra_kernel_env_variables=None,
                       **kwargs):
        """Wake the keeper (Voila calls this for every notebook it preheats at start-up, and
        after a kernel is taken); the notebook is one to keep kernels for."""
        if notebook_name is not None:
            self._notebooks[str(notebook_name)] = None
        self._wake(0.0 if delay is None else delay)

    def _wake(self, delay=0.0):
        if self._keeper_handle is not None:
            return
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
        self._keeper_handle = loop.call_later(max(delay, 0.0), self._keep)

    def _busy(self) -> bool:
        """True while the machine's 1-minute load average is at least its number of cores."""
        if self._last_take == -float("inf"):
            return False          # the first fill, before any visitor: nobody to slow down
        try:
            return os.getloadavg()[0] >= (os.cpu_count() or 1)
        except OSError:
            return False

    def _pool_config(self, nb) -> tuple[dict, dict]:
        """(the notebook's entry of kernel_pools_config, its "default" entry), read as Voila
        reads them."""
        default = self.kernel_pools_config.get("default", {})
        return self.kernel_pools_config.get(nb, default), default

    def _targets(self) -> dict:
        """{notebook: kernels to keep ready}, for the notebooks with a pool_size above 0."""
        out = {}
        for nb in self._notebooks:
            config, default = self._pool_config(nb)
            n = int(config.get("pool_size", default.get("pool_size", 1)))
            if n > 0:
                out[nb] = n
        return out

    def _keep(self):
        self._keeper_handle = None
        if not self._targets():
            return
        for nb in self._targets():
            self._prune(nb)
        now = time.monotonic()
        resume = max(self._retry_at, self._last_take + self.refill_quiet)
        if now < resume:
            self._wake(resume - now)
            return
        if self._busy() and now - self._last_take < self.refill_max_wait:
            self._wake(2.0)       # the pages being opened (or anything else) use the cores
            return
        started = True
        while started and self._warming < self.pool_concurrency:
            started = False
            # The notebook whose pool is emptiest (relative to its target) first.
            order = sorted(self._targets().items(),
                           key=lambda kv: len(self._pools.get(kv[0], [])) / kv[1])
            for nb, target in order:
                if len(self._pools.get(nb, [])) >= target:
                    continue
                if self.is_full():
                    break
                self._start_warm(nb)
                started = True
                break
        # Come back while something is missing: a kernel may be culled, capacity freed.
        missing = any(len(self._pools.get(nb, [])) < n for nb, n in self._targets().items())
        if missing:
            self._wake(2.0)

    def _kernel_env(self, nb):
        from voila.utils import ENV_VARIABLE
        env = dict(os.environ)
        config, default = self._pool_config(nb)
        for key, value in config.get("kernel_env_variables",
                                     default.get("kernel_env_variables", {})).items():
            env.setdefault(key, value)
        env[ENV_VARIABLE.VOILA_BASE_URL] = self.parent.base_url
        env[ENV_VARIABLE.VOILA_SERVER_URL] = self.parent.server_url
        env[ENV_VARIABLE.VOILA_APP_PORT] = str(self.parent.port)
        env[ENV_VARIABLE.VOILA_PREHEAT] = "True"
        return env

    def _start_warm(self, nb):
        pool = self._pools.setdefault(nb, [])
        kwargs = {"path": os.path.dirname(nb), "env": self._kernel_env(nb)}
        self._warming += 1
        task = asyncio.ensure_future(self._warm(nb, kwargs))
        pool.append(task)

        def done(t, nb=nb):
            self._warming -= 1
            if t.cancelled() or t.exception() is not None:
                if t in self._pools.get(nb, []):
                    self._pools[nb].remove(t)
                if not t.cancelled():
                    self.log.warning("kernelnb: preheating %s failed: %s", nb, t.exception())
                    self._retry_at = time.monotonic() + self.pool_retry_delay
            self._wake(0.0)

        task.add_done_callback(done)

    async def _warm(self, nb, kwargs):
        content = await self._initialize(nb, None, **kwargs)
        try:
            # Execute the whole dashboard now: that is what makes the kernel "preheated".
            await asyncio.shield(content["task"])
        except Exception:
            kid = content.get("kernel_id")
            if kid is not None and kid in self:
                await self.shutdown_kernel(kid)
            raise
        return content

    def _prune(self, notebook_name) -> bool:
        """Drop the ready kernels of a pool that have ended meanwhile (died, past their memory
        limit): Voila would give one to a visitor. Whether one was dropped."""
        pool = self._pools.get(notebook_name, [])
        gone = [t for t in pool if _ready(t) and t.result().get("kernel_id") not in self]
        for t in gone:
            pool.remove(t)
        return bool(gone)

    def remove_kernel(self, kernel_id):
        pooled = kernel_id in self._pooled
        out = super().remove_kernel(kernel_id)
        if pooled:
            self._wake(0.0)          # a preheated kernel ended: its pool is refilled
        return out

    def get_pool_size(self, notebook_name):
        self._prune(notebook_name)
        return sum(1 for t in self._pools.get(notebook_name, [])
                   if not (t.done() and (t.cancelled() or t.exception() is not None)))

    async def get_rendered_notebook(self, notebook_name, extra_kernel_env_variables=None,
                                    **kwargs):
        # Take a ready kernel if there is one (Voila takes the oldest, which may still be warming).
        self._prune(notebook_name)
        pool = self._pools.get(notebook_name, [])
        for i, t in enumerate(pool):
            if _ready(t):
                if i:
                    pool.insert(0, pool.pop(i))
                break
        self._last_take = time.monotonic()
        render_task, cache, kid = await super().get_rendered_notebook(
            notebook_name, extra_kernel_env_variables=extra_kernel_env_variables or {}, **kwargs)
        self.release_from_pool(kid)
        return render_task, cache, kid

    def status(self, memory=True):
        out = super().status(memory=memory)
        pool = {}
        for nb, target in self._targets().items():
            self._prune(nb)
            tasks = self._pools.get(nb, [])
            pool[nb] = {"target": target, "ready": sum(1 for t in tasks if _ready(t)),
                        "warming": sum(1 for t in tasks if not t.done())}
        out["pool"] = pool
        out["preheat_target"] = sum(p["target"] for p in pool.values())
        out["preheated_ready"] = sum(p["ready"] for p in pool.values())
        return out
