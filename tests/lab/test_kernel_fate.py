"""A dashboard kernel's memory limit, and the record of why each kernel ended.

:class:`kernelnb.lab.server._kernelpool.BudgetKernelManager` with real kernels, forked from a light fork
server (ipykernel, ipywidgets, numpy and kernelnb's dashboards' base: a few seconds) or started as
new processes: a limit refuses an allocation in the kernel (a dashboard's update shows the
``MemoryError``) or, for memory the limit inside does not count, ends the kernel; a sibling kernel
keeps working; and every way a kernel ends is recorded with its reason. Then the route a page asks,
``/kernelnb/api/kernels/<kernel_id>``, on a real ``kernelnb serve`` (the server extension's is
checked under JupyterHub, tests/lab/test_hub.py).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
import urllib.request
import uuid

import pytest
from traitlets.config import Config

from kernelnb.lab.server import _forkserver as fs
from kernelnb.lab.server import _kernelpool, _memory
from kernelnb.lab.server._kernelpool import END_REASONS, BudgetKernelManager, is_kernel_id

from ..conftest import kernelnb_serve, run_async
from .test_server_hardening import get, kernel_id_of, write_dashboards

#: The limit of these tests' kernels, MB: above a kernel's ~330-460 MB of data, below what the
#: tests allocate (800 MB).
LIMIT_MB = 768
ALLOCATE_MB = 800
#: Seconds a kernel's end may take to be noticed (Jupyter's restarter polls every few seconds).
NOTICED_S = 15.0

LIGHT = ("ipykernel.ipkernel", "ipywidgets", "numpy", "kernelnb.lab.app._base")


def kernel_env():
    return {**os.environ, "VOILA_PREHEAT": "False"}


@pytest.fixture(scope="module")
def fork_server():
    if not fs.supported():
        pytest.skip("forking kernels needs Linux")
    server = fs.ForkServer(env=kernel_env(), preload=LIGHT).start()
    deadline = time.monotonic() + 90
    while not server.ready and not server._failed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.ready, server._failed
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["forked", "cold"])
def mode(request, fork_server):
    """Kernels forked from the fork server, or started as new processes."""
    fs.set_fork_server(fork_server if request.param == "forked" else None)
    try:
        yield request.param
    finally:
        fs.set_fork_server(None)


@pytest.fixture
def conn_dir():
    """A short folder for the kernels' connection files (their ipc sockets are named after them,
    and a socket's path may not be longer than 107 bytes)."""
    path = tempfile.mkdtemp(prefix="knb-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def manager(conn_dir, restarter=None, **traits) -> BudgetKernelManager:
    """A kernel manager whose kernels talk over ipc sockets in ``conn_dir``; ``restarter``: the
    traits of its kernels' restarter (jupyter_client's ``KernelRestarter``)."""
    config = {"KernelManager": {"transport": "ipc"}, "KernelRestarter": restarter or {}}
    km = BudgetKernelManager(config=Config(config), **traits)
    km.connection_dir = str(conn_dir)
    return km


@contextlib.asynccontextmanager
async def kernels(km, n, mode=None):
    """Start ``n`` kernels of ``km``: [(kernel id, started client)]; everything shut down after."""
    started = []
    try:
        for _ in range(n):
            kid = await km.start_kernel(kernel_name="python3", env=kernel_env())
            kernel = km.get_kernel(kid)
            if mode is not None:
                forked = isinstance(kernel.provisioner.process, fs._ForkedKernel)
                assert forked == (mode == "forked"), mode
            kc = kernel.client()
            kc.start_channels()
            started.append((kid, kc))
            await kc.wait_for_ready(timeout=90)
        yield started
    finally:
        for _, kc in started:
            kc.stop_channels()
        await km.shutdown_all(now=True)


async def run(kc, code, timeout=60):
    """Execute ``code``: (status, what it printed)."""
    out = []

    def hook(msg):
        if msg["header"]["msg_type"] == "stream":
            out.append(msg["content"].get("text", ""))

    reply = await kc.execute_interactive(code, timeout=timeout, output_hook=hook)
    return reply["content"]["status"], "".join(out).strip()


def data_limit(pid) -> int | None:
    """The soft RLIMIT_DATA of process ``pid`` in bytes (None: unlimited), from /proc."""
    for line in open(f"/proc/{pid}/limits"):
        if line.startswith("Max data size"):
            soft = line.split()[3]
            return None if soft == "unlimited" else int(soft)
    raise AssertionError(f"no data limit line in /proc/{pid}/limits")


async def ended(km, kid, timeout=NOTICED_S):
    """Wait until ``kid`` is no longer one of ``km``'s kernels; its fate."""
    t0 = time.monotonic()
    while kid in km and time.monotonic() - t0 < timeout:
        await asyncio.sleep(0.1)
    return km.kernel_fate(kid)


# A dashboard whose setting needs as much memory as it says (kernelnb.lab.app.Dashboard's own
# update, which shows any exception in the page and keeps the dashboard running).
HEAVY_DASHBOARD = """
import ipywidgets as w, numpy as np
from kernelnb.lab.app import Dashboard

class Heavy(Dashboard):
    def _build(self):
        self.controls = {"mb": w.IntSlider(value=8, min=1, max=4096, description="MB")}
    def _compute(self, params):
        return float(np.ones(params["mb"] * 2**20 // 8).sum())
    def _render(self, result):
        return {"sum": result}

app = Heavy()
"""


# ----------------------------------------------------------------------------- the memory limit


@pytest.mark.slow  # two kernels and the watchdog's reads: over two seconds
def test_an_allocation_past_the_limit_is_refused_in_the_dashboard_and_the_sibling_works(
        conn_dir, mode):
    """Every kernel, forked or not, runs under the limit (RLIMIT_DATA on its process). A setting
    that needs more is refused: the dashboard's update shows numpy's MemoryError, the kernel and
    its dashboard live on, a sibling kernel computes, and nothing is recorded as ended."""
    async def main():
        km = manager(conn_dir, kernel_memory_mb=LIMIT_MB, memory_check_interval=0.5)
        async with kernels(km, 2, mode) as ((heavy, kc), (sibling, kc2)):
            for kid in (heavy, sibling):
                assert data_limit(km.get_kernel(kid).provisioner.pid) == LIMIT_MB * 2**20
            status, _ = await run(kc, HEAVY_DASHBOARD)
            assert status == "ok"
            status, text = await run(kc, f"r = app.update(mb={ALLOCATE_MB}); print(r['error'])"
                                         "; print(app.last_error == r['error'])")
            assert status == "ok"
            error, shown = text.splitlines()
            assert "needs more memory than a dashboard may use" in error, error
            assert f"may use ({LIMIT_MB} MB)" in error, error      # the kernel reads its limit
            assert f"MemoryError: Unable to allocate {ALLOCATE_MB}. MiB" in error, error
            assert shown == "True"                       # in the page's error widget
            status, text = await run(kc, "r = app.update(mb=16); print(r['sum'], app.last_error)")
            assert (status, text) == ("ok", str(16 * 2**20 // 8 * 1.0))
            status, text = await run(kc2, "import numpy as np; print(np.ones((300, 300)).sum())")
            assert (status, text) == ("ok", "90000.0")
            await asyncio.sleep(1.2)                     # the watchdog has read them
            fate = km.kernel_fate(heavy)
            assert fate["state"] == "alive" and fate["limit_mb"] == LIMIT_MB
            assert 0 < fate["memory_mb"] < LIMIT_MB
            assert km.status(memory=False)["ended"] == dict.fromkeys(END_REASONS, 0)

    run_async(main)


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_a_kernel_whose_processes_hold_more_than_the_limit_is_ended(conn_dir, mode):
    """Shared memory is not data: the limit inside lets it grow, the server's watchdog ends the
    kernel (reason "memory") and its process is gone; the sibling keeps working."""
    async def main():
        km = manager(conn_dir, kernel_memory_mb=LIMIT_MB, memory_check_interval=0.5)
        async with kernels(km, 2, mode) as ((heavy, kc), (sibling, kc2)):
            pid = km.get_kernel(heavy).provisioner.pid
            told = []                                   # what a page's websocket registers
            km.add_restart_callback(heavy, lambda: told.append(km.kernel_fate(heavy)),
                                    "dead")
            # anonymous shared memory, written to (so resident): not data
            code = ("import mmap, time\n"
                    f"m = mmap.mmap(-1, {ALLOCATE_MB} * 2**20)\n"
                    "chunk = b'x' * 2**20\n"
                    f"for _ in range({ALLOCATE_MB}):\n"
                    "    m.write(chunk)\n"
                    "time.sleep(60)")
            running = asyncio.ensure_future(run(kc, code, timeout=90))
            fate = await ended(km, heavy, timeout=60)
            running.cancel()
            assert fate["state"] == "ended" and fate["reason"] == "memory", fate
            assert fate["memory_mb"] > LIMIT_MB and fate["limit_mb"] == LIMIT_MB
            # its pages got a "dead" status, and a page asking then is told why
            assert [(t["state"], t["reason"]) for t in told] == [("ended", "memory")]
            deadline = time.monotonic() + 10
            while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert not os.path.exists(f"/proc/{pid}") or _zombie(pid)
            status, text = await run(kc2, "print(sum(range(10)))")
            assert (status, text) == ("ok", "45")
            assert km.kernel_fate(sibling)["state"] == "alive"
            assert km.status(memory=False)["ended"]["memory"] == 1

    run_async(main)


def _zombie(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_a_kernels_resident_memory_counts_its_children():
    """What the watchdog reads: a process's memory that no file backs, its children's added."""
    child = subprocess.Popen([sys.executable, "-c",
                              "import sys; b = bytearray(200 * 2**20); sys.stdout.write('ok\\n');"
                              " sys.stdout.flush(); sys.stdin.read()"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline() == b"ok\n"
        own = _memory.resident_mb(os.getpid())
        theirs = _memory.resident_mb(child.pid)
        assert theirs >= 200
        tree = _memory.tree_resident_mb(os.getpid())
        assert tree >= own + theirs - 1                  # (this process may grow meanwhile)
        assert child.pid in _memory.process_tree(os.getpid(), _memory.children_map())
    finally:
        child.stdin.close()
        child.wait(10)
    assert _memory.resident_mb(child.pid) is None       # gone: nothing to read
    assert _memory.tree_resident_mb(child.pid) is None


def test_the_default_limit_follows_the_machine_and_the_budget():
    from kernelnb.lab.server._memory import KERNEL_MEMORY_FLOOR_MB, default_kernel_memory_mb
    # 24 GiB and its default budget of 61 kernels at 300 MB: half of what the plan leaves over
    assert default_kernel_memory_mb(61, memory_mb=24576) == (24576 - 61 * 300) // 2
    assert default_kernel_memory_mb(0, memory_mb=24576) == 24576 // 8      # no budget
    assert default_kernel_memory_mb(20, memory_mb=8192) == KERNEL_MEMORY_FLOOR_MB
    assert default_kernel_memory_mb(4, memory_mb=2048) == 1024            # half the machine
    here = default_kernel_memory_mb(_kernelpool.default_max_kernels())     # this machine
    total = _memory._total_memory_mb()
    assert min(KERNEL_MEMORY_FLOOR_MB, total / 2) <= here <= total / 2


def test_a_limit_below_a_kernels_own_size_is_refused():
    from traitlets import TraitError
    with pytest.raises(TraitError, match="kernel_memory_mb.*got 100"):
        BudgetKernelManager(kernel_memory_mb=100)
    assert BudgetKernelManager(kernel_memory_mb=0).kernel_memory_mb == 0


# ----------------------------------------------------------------------------- why kernels end


def test_a_killed_kernel_is_recorded_as_died(conn_dir, mode):
    """kill -9 (what the out-of-memory killer does): Jupyter's restarter notices, the kernel is not
    restarted (a dashboard's restarted kernel has none of its widgets) but ended, reason "died"."""
    async def main():
        # the restarter looks every half second instead of Jupyter's every three: it finds the
        # same death sooner
        km = manager(conn_dir, restarter={"time_to_dead": 0.5}, kernel_memory_mb=LIMIT_MB)
        async with kernels(km, 2, mode) as ((victim, _), (sibling, kc2)):
            told = []                                   # what a page's websocket registers
            km.add_restart_callback(victim, lambda: told.append(km.kernel_fate(victim)),
                                    "dead")
            os.kill(km.get_kernel(victim).provisioner.pid, signal.SIGKILL)
            fate = await ended(km, victim)
            assert fate["state"] == "ended" and fate["reason"] == "died", fate
            # its pages got a "dead" status, and a page asking then is told why
            assert [(t["state"], t["reason"]) for t in told] == [("ended", "died")]
            assert victim not in km.list_kernel_ids()
            status, text = await run(kc2, "print(6 * 7)")
            assert (status, text) == ("ok", "42")
            assert km.status(memory=False)["ended"]["died"] == 1

    run_async(main)


IDLE_S = 10


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_shutdown_and_culling_are_recorded_with_their_reasons(conn_dir):
    """A client's shutdown, a kernel no page connected to (cull_unconnected) and one idle with its
    page connected (Jupyter's culler, cull_idle_timeout): each recorded with its reason, along
    with how long it had been idle."""
    async def start(km, connected):
        kid = await km.start_kernel(kernel_name="python3", env=kernel_env())
        if connected:
            km.notify_connect(kid)                        # what a page's websocket does
        kc = km.get_kernel(kid).client()
        kc.start_channels()
        clients.append(kc)
        await kc.wait_for_ready(timeout=90)
        # until the server has seen it idle (a page's first request does that): the unconnected
        # culler leaves a kernel the server still sees starting, and the status that ends
        # "starting" can be published before the server listens (a loaded run)
        t0 = time.monotonic()
        while km.get_kernel(kid).execution_state == "starting" and time.monotonic() - t0 < 30:
            await kc.kernel_info(reply=True, timeout=10)
            await asyncio.sleep(0.1)
        return kid

    clients = []

    async def main():
        # Jupyter's idle culler counts from the kernel's start, starting kernels included: its
        # timeout stays well above the unconnected one plus a kernel's start on a loaded machine
        # (4 s once let it cull the unconnected kernel, still starting, first)
        km = manager(conn_dir, cull_unconnected=2.0, unconnected_check_interval=0.5,
                     cull_idle_timeout=IDLE_S, cull_interval=1, cull_connected=True)
        try:
            asked = await start(km, connected=True)
            await km.shutdown_kernel(asked)
            idle = await start(km, connected=True)
            unconnected = await start(km, connected=False)
            fates = {kid: await ended(km, kid) for kid in (unconnected, idle)}
        finally:
            for kc in clients:
                kc.stop_channels()
            await km.shutdown_all(now=True)
        assert km.kernel_fate(asked)["reason"] == "shutdown"
        assert fates[unconnected]["reason"] == "culled_unconnected", fates
        assert fates[idle]["reason"] == "culled_idle", fates
        assert fates[idle]["idle_seconds"] >= IDLE_S
        assert all(f["state"] == "ended" for f in fates.values())
        counts = km.status(memory=False)["ended"]
        assert counts == {**dict.fromkeys(END_REASONS, 0), "shutdown": 1,
                          "culled_unconnected": 1, "culled_idle": 1}

    run_async(main)


def test_kernel_ids_are_checked_and_unknown_ones_said_so():
    km = BudgetKernelManager()
    for bad in ("", "../../etc/passwd", "7CC15C35-AB48-4CA8-9405-50CB1623C84C", "x" * 36,
                "7cc15c35-ab48-4ca8-9405-50cb1623c84c/", None, 7):
        assert not is_kernel_id(bad)
        with pytest.raises(ValueError, match="kernel_id"):
            km.kernel_fate(bad)
    kid = str(uuid.uuid4())
    assert is_kernel_id(kid)
    assert km.kernel_fate(kid) == {"kernel_id": kid, "state": "unknown", "reason": None,
                                   "idle_seconds": None, "ended_seconds_ago": None,
                                   "limit_mb": None, "memory_mb": None}


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_the_record_keeps_the_latest_ended_kernels(monkeypatch):
    monkeypatch.setattr(_kernelpool, "FATES_KEPT", 3)
    km = BudgetKernelManager()
    kids = [str(uuid.uuid4()) for _ in range(5)]
    for i, kid in enumerate(kids):
        km._record_end(kid, types.SimpleNamespace(last_activity=None), END_REASONS[i])
    assert [km.kernel_fate(k)["state"] for k in kids] == ["unknown"] * 2 + ["ended"] * 3
    assert [km.kernel_fate(k)["reason"] for k in kids[2:]] == list(END_REASONS[2:])
    assert sum(km.status(memory=False)["ended"].values()) == 5


# ----------------------------------------------------------------------------- the route


def _request(url, method="GET", headers=None):
    req = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.mark.slow
def test_kernelnb_serve_tells_a_page_what_became_of_its_kernel(tmp_path):
    """``GET /kernelnb/api/kernels/<id>`` behind the token: a malformed id is refused, an unknown
    one said so, a page's kernel alive with its limit (its process, forked, holds it), then ended
    "died" when killed and "shutdown" when a client shuts it down."""
    import psutil
    folder = write_dashboards(tmp_path)
    token = "fate-secret"
    with kernelnb_serve("--dashboards", str(folder), "--kernel-memory", str(LIMIT_MB),
                        log_name="kernel_fate", env={"KERNELNB_TOKEN": token},
                        ready_path=f"?token={token}") as (url, proc):
        def api(kid):
            return _request(f"{url}kernelnb/api/kernels/{kid}?token={token}")

        kid0 = str(uuid.uuid4())
        code, body, _ = get(f"{url}kernelnb/api/kernels/{kid0}", follow=False)
        assert code in (302, 401, 403) and kid0 not in body
        code, body = api(kid0)
        assert code == 200 and json.loads(body)["state"] == "unknown"
        code, body = api("not-a-kernel")
        assert code == 400 and "kernel_id" in json.loads(body)["error"]
        # wait for the fork server, so that the page's kernel is forked
        deadline = time.monotonic() + 90
        while (json.loads(get(f"{url}kernelnb/api/status?token={token}")[1])["fork_server"]
               == "starting" and time.monotonic() < deadline):
            time.sleep(0.2)
        def render(name):
            code, page, _ = get(f"{url}voila/render/{name}.ipynb?token={token}", timeout=120)
            assert code == 200
            kid = kernel_id_of(page)
            fate = json.loads(api(kid)[1])
            assert fate["state"] == "alive" and fate["limit_mb"] == LIMIT_MB, fate
            assert fate["idle_seconds"] is not None
            return kid

        forks = [p for p in psutil.Process(proc.pid).children()
                 if p.name() == fs.PROCESS_NAME]
        assert len(forks) == 1
        kids = [render("alpha")]
        (victim,) = forks[0].children()               # the page's kernel, forked
        assert data_limit(victim.pid) == LIMIT_MB * 2**20
        victim.kill()                                   # kill -9
        t0 = time.monotonic()
        while json.loads(api(kids[0])[1])["state"] == "alive" and time.monotonic() - t0 < 30:
            time.sleep(0.2)
        fate = json.loads(api(kids[0])[1])
        assert (fate["state"], fate["reason"]) == ("ended", "died"), fate
        noticed = time.monotonic() - t0
        kids.append(render("beta"))
        # a client (the page, as it is left; here Jupyter's kernels API) shuts the other down
        code, _ = _request(f"{url}api/kernels/{kids[1]}", "DELETE",
                           {"Authorization": f"token {token}"})
        assert code == 204
        fate = json.loads(api(kids[1])[1])
        assert (fate["state"], fate["reason"]) == ("ended", "shutdown"), fate
        status = json.loads(get(f"{url}kernelnb/api/status?token={token}")[1])
        assert status["ended"]["died"] == 1 and status["ended"]["shutdown"] == 1
        assert status["kernel_memory_mb"] == LIMIT_MB
    print(f"\nkill -9 -> the API says died after {noticed:.1f} s")
