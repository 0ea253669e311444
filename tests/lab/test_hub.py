"""kernelnb under a real JupyterHub: three students, each with their own single-user server.

One hub for the module, started from the single-host recipe ``deploy/jupyterhub_config.py`` with
what a test needs instead of accounts and PAM: fixed test users, JupyterHub's
``SimpleLocalProcessSpawner`` (every server runs as this process's user, each with its own home
folder) and loopback ports. The proxy is the production one, the Node.js
``configurable-http-proxy`` (Debian's ``node-configurable-http-proxy``, which ``.ci/run`` installs,
or npm's), started by the recipe's own ``ConfigurableHTTPProxy`` options. Every request goes
through the proxy, as a student's would. A student's server runs with a budget of
``MAX_KERNELS`` kernels and culls a kernel left without a page after ``CULL_S`` seconds.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

from kernelnb.lab.server._websocket import V1_PROTOCOL, v1_frame
from kernelnb.lab.hub import singleuser_args, singleuser_config

from ..conftest import REPO, TEST_OUTPUT, free_port
from .test_server_hardening import message

pytest.importorskip("jupyterhub", reason="pip install -e '.[test]' installs JupyterHub")
requests = pytest.importorskip("requests")

pytestmark = pytest.mark.slow

USERS = {"alice": "alice-pw-1", "bob": "bob-pw-22", "carol": "carol-pw-333"}
DASHBOARDS = ("margin_losses", "svm_playground")
MAX_KERNELS = 2
# Long enough for a page to load Voila's scripts and connect on a busy 2-core machine (a page's
# kernel that is still unconnected after CULL_S is culled, and its chart never comes).
CULL_S = 60.0
DEADLINE = 150.0

# Pieces of a test hub's configuration (also tests/course/test_nbgrader_hub.py's). Fixed
# passwords instead of accounts:
TEST_LOGINS = """\
from traitlets import Dict
from jupyterhub.auth import Authenticator


class FixedUsers(Authenticator):
    passwords = Dict(config=True)

    async def authenticate(self, handler, data):
        if self.passwords.get(data["username"]) == data["password"]:
            return data["username"]
        return None


c.JupyterHub.authenticator_class = FixedUsers
c.FixedUsers.passwords = {passwords!r}
"""
# Every server a process of this user in a temporary home, every port on the loopback, the
# hub's files in the test's folder:
LOOPBACK_HUB = """\
import sys
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
# The recipe's proxy (Node.js), named by its path: a Python script of the same name (pip's
# configurable-http-proxy) may come first on the PATH of an older environment.
c.ConfigurableHTTPProxy.command = [{proxy!r}, *c.ConfigurableHTTPProxy.command[1:]]
c.JupyterHub.cookie_secret_file = {tmp!r} + "/cookie_secret"
c.JupyterHub.db_url = "sqlite:///" + {tmp!r} + "/hub.sqlite"
c.JupyterHub.pid_file = {tmp!r} + "/hub.pid"
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
"""

HUB_CONFIG = ("""\
load_subconfig({recipe!r})        # the single-host recipe, then what a test needs instead
""" + TEST_LOGINS + """\
c.Authenticator.allowed_users = set({passwords!r})
""" + LOOPBACK_HUB + """\
c.Spawner.args = {args!r}
""")


def node_proxy():
    """The Node.js ``configurable-http-proxy`` (a path), or None: ``KERNELNB_CHP``, else the first
    one on the PATH that is a Node.js script (pip's package of that name installs a Python script
    under the same name, whose websockets drop the subprotocol and binary frames)."""
    given = os.environ.get("KERNELNB_CHP")
    path = os.environ.get("PATH", "").split(os.pathsep)
    candidates = [given] if given else [
        *(str(Path(d) / "configurable-http-proxy") for d in path if d),
        "/usr/bin/configurable-http-proxy"]
    for path in candidates:
        try:
            with open(path, "rb") as f:
                first = f.readline(200)
        except OSError:
            continue
        if first.startswith(b"#!") and b"node" in first:
            return str(Path(path).absolute())
    return None


NODE_PROXY = node_proxy()


def _tree(pid):
    """``pid`` and all its descendants (Linux /proc)."""
    kids = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d.name))
    out, todo = [pid], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class Hub:
    """A running hub: its URL, process, one logged-in ``requests.Session`` per student, and an
    event loop in a thread of its own, which keeps kernel websockets open from one test to the
    next."""

    def __init__(self, url, proc, log_path):
        self.url, self.proc, self.log_path = url, proc, log_path
        self.sessions, self.times, self.sockets, self.kernels = {}, {}, {}, {}
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine, timeout=2 * DEADLINE):
        """Run ``coroutine`` on the hub's loop; its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close_loop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        self.loop.close()

    def user_url(self, name, path=""):
        return urljoin(self.url, f"user/{name}/{path}")

    def cookie_header(self, name):
        return "; ".join(f"{c.name}={c.value}" for c in self.sessions[name].cookies)

    def log(self):
        return self.log_path.read_text(errors="replace")[-4000:]


def _login(hub, name):
    """Log ``name`` in through the hub's form and wait until their server shows the gallery."""
    s = requests.Session()
    s.get(urljoin(hub.url, "hub/login"), timeout=30)
    r = s.post(urljoin(hub.url, "hub/login"), timeout=60,
               data={"username": name, "password": USERS[name], "_xsrf": s.cookies.get("_xsrf")},
               allow_redirects=False)
    assert r.status_code == 302, (r.status_code, r.text[:300])
    s.get(urljoin(hub.url, r.headers["Location"]), timeout=60)       # starts the spawn
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        r = s.get(hub.user_url(name, "kernelnb/"), timeout=60)
        if r.status_code == 200 and r.url == hub.user_url(name, "kernelnb/"):
            hub.sessions[name] = s
            return r.text
        assert hub.proc.poll() is None, hub.log()
        time.sleep(1.0)
    raise AssertionError(f"{name}'s server did not show the gallery\n{hub.log()}")


def _stop(proc, timeout=60):
    """SIGTERM, JupyterHub's shutdown (it stops the servers and the proxy it started); SIGKILL
    if it has not exited within ``timeout`` seconds."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    if NODE_PROXY is None:
        pytest.skip("no Node.js configurable-http-proxy (apt install node-configurable-http-proxy, "
                    "or npm install -g configurable-http-proxy; KERNELNB_CHP names another)")
    tmp = tmp_path_factory.mktemp("hub")
    homes = tmp / "home"
    homes.mkdir()
    port, hub_port, api_port = free_port(), free_port(), free_port()
    args = singleuser_args(max_kernels=MAX_KERNELS, cull_unconnected=CULL_S, cull_idle=0)
    if os.geteuid() == 0:                      # CI runs as root; Jupyter refuses it unless told
        args.append("--allow-root")
    config = tmp / "jupyterhub_config.py"
    config.write_text(HUB_CONFIG.format(
        recipe=str(REPO / "deploy" / "jupyterhub_config.py"),
        proxy=NODE_PROXY, passwords=USERS, homes=str(homes),
        port=port, hub_port=hub_port, api_port=api_port, tmp=str(tmp), args=args))
    logs = TEST_OUTPUT / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / "hub.log"
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)],
                                stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
    h = Hub(f"http://127.0.0.1:{port}/", proc, log_path)
    try:
        deadline = time.monotonic() + DEADLINE        # seconds on an idle machine
        while True:
            assert proc.poll() is None, h.log()
            try:
                if requests.get(urljoin(h.url, "hub/login"), timeout=5).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, h.log()
            time.sleep(0.3)
        h.times["hub and proxy up"] = time.monotonic() - t0
        # The three log in at once, as a class does.
        t1 = time.monotonic()
        with ThreadPoolExecutor(len(USERS)) as pool:
            h.galleries = dict(zip(USERS, pool.map(lambda n: _login(h, n), USERS)))
        h.times["3 log in, servers spawned, galleries shown"] = time.monotonic() - t1
        yield h
    finally:
        tree = _tree(proc.pid)
        _stop(proc)
        # Whatever the hub left (test_stopping_the_hub_leaves_no_process_behind fails on it) is
        # not left running on the machine.
        for pid in tree:
            if _alive(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        h.close_loop()
        h.times["total"] = time.monotonic() - t0
        timings = {k: round(v, 1) for k, v in h.times.items()}
        (TEST_OUTPUT / "hub_timings.json").write_text(json.dumps(timings, indent=1))
        print("\nhub test measurements:", json.dumps(timings))


# ----------------------------------------------------------------- browserless widget clients

def _v1_parts(frame):
    n = int.from_bytes(frame[:8], "little")
    off = [int.from_bytes(frame[8 * (i + 1): 8 * (i + 2)], "little") for i in range(n)]
    return (json.loads(frame[off[1]:off[2]]),
            json.loads(frame[off[2]:off[3]]) if off[3] > off[2] else {},
            json.loads(frame[off[4]:off[5]]))


def ws_url(hub, name, kid):
    return hub.user_url(name, f"api/kernels/{kid}/channels?session_id=t").replace("http", "ws", 1)


async def ws_connect(url, cookie):
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect
    return await websocket_connect(HTTPRequest(url, headers={"Cookie": cookie},
                                               request_timeout=60),
                                   subprotocols=[V1_PROTOCOL], max_message_size=64 * 2**20)


async def widget_states(ws, deadline=DEADLINE):
    """What a page's widget manager does: list the widget comms and ask each for its state;
    {comm id: state} once every state has arrived."""
    info = message("comm_info_request", {"target_name": "jupyter.widget"})
    ws.write_message(v1_frame("shell", info), binary=True)
    pending, states = None, {}
    t0 = time.monotonic()
    while pending is None or pending:
        frame = await asyncio.wait_for(ws.read_message(), deadline - (time.monotonic() - t0))
        assert frame is not None, "the server closed the kernel websocket"
        if not isinstance(frame, bytes):
            continue
        header, parent, content = _v1_parts(frame)
        if (header["msg_type"] == "comm_info_reply"
                and parent.get("msg_id") == info["header"]["msg_id"]):
            pending = {}
            for cid in content.get("comms", {}):
                m = message("comm_msg", {"comm_id": cid, "data": {"method": "request_state"}})
                pending[m["header"]["msg_id"]] = cid
                ws.write_message(v1_frame("shell", m), binary=True)
        elif header["msg_type"] == "comm_msg" and pending and parent.get("msg_id") in pending:
            states[pending.pop(parent["msg_id"])] = content["data"].get("state", {})
    return states


def kernel_id(page):
    m = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', page)
    assert m, f"no kernel id in the page: {page[:300]}"
    return m.group(1)


def status(hub, name):
    r = hub.sessions[name].get(hub.user_url(name, "kernelnb/api/status"), timeout=30)
    assert r.status_code == 200, r.text[:300]
    return r.json()


def fate(hub, name, kid):
    """What the student's server says became of kernel ``kid`` (kernelnb's extension)."""
    r = hub.sessions[name].get(hub.user_url(name, f"kernelnb/api/kernels/{kid}"), timeout=30)
    assert r.status_code == 200, r.text[:300]
    return r.json()


def _has_chart(states):
    """A plotly figure widget with at least one trace carrying points."""
    for st in states.values():
        for trace in st.get("_widget_data") or []:
            if any(isinstance(trace.get(k), (list, dict)) for k in ("x", "y", "z")):
                return True
    return False


# ----------------------------------------------------------------------------------- the tests

def test_each_student_gets_the_gallery_and_two_dashboards_through_the_proxy(hub):
    """Every request through the proxy; each dashboard's widgets send their state and the charts
    carry data. The websockets stay open: the next tests count on each student's kernels."""
    links = {}
    for name, gallery in hub.galleries.items():
        found = {m[1]: m[0] for m in
                 re.findall(r'href="(/user/[^"]+/voila/render/[^"]*?(\w+)\.ipynb)"', gallery)}
        assert set(DASHBOARDS) <= set(found), (name, gallery[:500])
        assert all(link.startswith(f"/user/{name}/voila/render/") for link in found.values())
        links[name] = [found[d] for d in DASHBOARDS]

    async def open_dashboard(name, link):
        page = await asyncio.to_thread(hub.sessions[name].get, urljoin(hub.url, link),
                                       timeout=DEADLINE)
        assert page.status_code == 200, (name, link, page.text[:300])
        kid = kernel_id(page.text)
        ws = await ws_connect(ws_url(hub, name, kid), hub.cookie_header(name))
        return kid, ws, await widget_states(ws)

    async def everyone():
        # Every student opens both dashboards at once (two tabs).
        opened = await asyncio.gather(*(open_dashboard(n, link) for n in USERS
                                        for link in links[n]))
        k = len(DASHBOARDS)
        return [opened[i * k:(i + 1) * k] for i in range(len(USERS))]

    t0 = time.monotonic()
    for name, opened in zip(USERS, hub.run(everyone())):
        hub.kernels[name] = [kid for kid, _, _ in opened]
        hub.sockets[name] = [ws for _, ws, _ in opened]
        for (kid, _, states), dashboard in zip(opened, DASHBOARDS):
            assert _has_chart(states), (name, dashboard, len(states))
    hub.times["3 students x 2 dashboards: every widget's state"] = time.monotonic() - t0
    kids = [k for v in hub.kernels.values() for k in v]
    assert len(set(kids)) == len(kids) == len(DASHBOARDS) * len(USERS)
    rss = []
    limit = singleuser_config(max_kernels=MAX_KERNELS)["BudgetKernelManager"]["kernel_memory_mb"]
    for name in USERS:
        st = status(hub, name)
        assert st["kernels"] == len(DASHBOARDS) and st["connected"] == len(DASHBOARDS), st
        rss.append(st["kernel_rss_mb"]["mean"])
        for kid in hub.kernels[name]:                  # each kernel under the student's limit
            got = fate(hub, name, kid)
            assert (got["state"], got["limit_mb"]) == ("alive", limit), got
    hub.times["dashboard kernel RSS, MB (mean)"] = sum(rss) / len(rss)


def test_kernelnbs_pages_carry_its_policy_with_the_hubs_frame_ancestors(hub):
    """The gallery and kernelnb's API through the proxy: kernelnb's Content-Security-Policy
    (nothing from another host, kernelnb.lab.server._security) with JupyterHub's ``frame-ancestors
    'none'``; the server's own API keeps the hub's header."""
    from kernelnb.lab.server._security import extension_policy
    alice = hub.sessions["alice"]
    want = extension_policy({"headers": {"Content-Security-Policy": "frame-ancestors 'none'"}})
    for path in ("kernelnb/", "kernelnb/api/status"):
        r = alice.get(hub.user_url("alice", path), timeout=60)
        assert r.status_code == 200, (path, r.status_code)
        assert r.headers.get("Content-Security-Policy") == want, (path, r.headers)
        assert r.headers.get("X-Content-Type-Options") == "nosniff"
    r = alice.get(hub.user_url("alice", "api/status"), timeout=60)       # jupyter_server's
    assert "frame-ancestors 'none'" in r.headers.get("Content-Security-Policy", "")
    assert r.headers.get("Content-Security-Policy") != want


def test_a_student_cannot_reach_another_students_server_or_kernels(hub):
    # not a skip: without the first test's kernels this one cannot check anything, so it fails
    assert hub.kernels, "the first test opened no kernels (see its failure)"
    bob = hub.sessions["bob"]
    alice_kid = hub.kernels["alice"][0]
    for path in ("kernelnb/", f"api/kernels/{alice_kid}", f"kernelnb/api/kernels/{alice_kid}",
                 f"voila/render/dashboards/{DASHBOARDS[0]}.ipynb"):
        r = bob.get(hub.user_url("alice", path), timeout=60)
        assert r.status_code == 403, (path, r.status_code, r.url)
        assert alice_kid not in r.text
    # Alice's kernel is not in Bob's server either.
    r = bob.get(hub.user_url("bob", f"api/kernels/{alice_kid}"), timeout=60)
    assert r.status_code == 404, r.text[:200]

    async def sockets():
        from tornado.httpclient import HTTPClientError
        codes = []
        for url in (ws_url(hub, "alice", alice_kid), ws_url(hub, "bob", alice_kid)):
            with pytest.raises(HTTPClientError) as exc:
                await ws_connect(url, hub.cookie_header("bob"))
            codes.append(exc.value.code)
        return codes

    assert hub.run(sockets()) == [403, 404]


def test_the_websocket_check_and_the_kernel_budget_hold_in_each_server(hub):
    # not a skip: without the first test's kernels this one cannot check anything, so it fails
    assert hub.kernels, "the first test opened no kernels (see its failure)"
    carol = hub.sessions["carol"]
    # A third dashboard past Carol's budget of two: the class-is-full page, through the proxy.
    third = hub.user_url("carol", "voila/render/dashboards/kmp_playground.ipynb")
    r = carol.get(third, timeout=60)
    assert r.status_code == 503 and "The class is full" in r.text, (r.status_code, r.text[:300])
    assert r.headers.get("Retry-After") == "60"
    st = status(hub, "carol")
    assert st["kernels"] == MAX_KERNELS and st["refused"] == 1 and st["max_kernels"] == 2

    async def lying_frame():
        # A frame whose count of parts lies closes that connection only.
        ws = await ws_connect(ws_url(hub, "carol", hub.kernels["carol"][0]),
                              hub.cookie_header("carol"))
        ws.write_message((2**62).to_bytes(8, "little") + b"x" * 200, binary=True)
        while (await asyncio.wait_for(ws.read_message(), 30)) is not None:
            pass
        # Carol's other websocket still works.
        return await widget_states(hub.sockets["carol"][1], deadline=60)

    assert _has_chart(hub.run(lying_frame()))


def test_kernels_without_a_page_are_culled_in_each_server(hub):
    # not a skip: without the first test's kernels this one cannot check anything, so it fails
    assert hub.kernels, "the first test opened no kernels (see its failure)"

    async def close_all():
        for sockets in hub.sockets.values():
            for ws in sockets:
                ws.close()

    hub.run(close_all())
    t0 = time.monotonic()
    left = set(USERS)
    while left and time.monotonic() - t0 < CULL_S + 40:
        for name in list(left):
            st = status(hub, name)
            if st["kernels"] == 0:
                assert st["culled_unconnected"] == len(DASHBOARDS), st
                for kid in hub.kernels[name]:          # what a page coming back is told
                    got = fate(hub, name, kid)
                    assert (got["state"], got["reason"]) == ("ended", "culled_unconnected"), got
                left.discard(name)
        time.sleep(1.0)
    assert not left, {n: status(hub, n) for n in left}
    waited = time.monotonic() - t0
    assert waited >= CULL_S - 1.0          # not before the pages had CULL_S seconds to come back
    hub.times["tabs closed -> every kernel culled"] = waited


CHROMIUM = os.environ.get("KERNELNB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.mark.browser
def test_a_student_sees_a_chart_in_chromium_through_the_hub(hub):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    t0 = time.monotonic()
    # In a thread of its own: Playwright's sync API refuses a thread whose asyncio loop runs, as
    # the browser tests' session-wide Playwright leaves this one when they ran first.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(_bob_sees_a_chart, sync_api, hub).result()
    hub.times["Chromium: log in, open a dashboard, chart drawn"] = time.monotonic() - t0


def _bob_sees_a_chart(sync_api, hub):
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu",
                                           "--disable-dev-shm-usage"])
        try:
            page = browser.new_context().new_page()
            outside = []
            page.on("request", lambda r: urlparse(r.url).hostname not in (None, "127.0.0.1",
                                                                          "localhost")
                    and not r.url.startswith("data:") and outside.append(r.url))
            page.goto(urljoin(hub.url, "hub/login"), timeout=60_000)
            page.fill("input[name=username]", "bob")
            page.fill("input[name=password]", USERS["bob"])
            page.click("input[type=submit], button[type=submit]")
            page.wait_for_url(re.compile(r".*/user/bob/kernelnb/.*"), timeout=90_000)
            page.goto(hub.user_url("bob", f"voila/render/dashboards/{DASHBOARDS[0]}.ipynb"),
                      timeout=DEADLINE * 1000)
            page.wait_for_function(
                "() => { const g = document.querySelector('.js-plotly-plot');"
                " return g && g.data && g.data.length > 0; }", timeout=DEADLINE * 1000)
            assert "Traceback" not in page.inner_text("body")
            assert not outside, f"the page fetched from another host: {outside}"
        finally:
            browser.close()


def test_stopping_the_hub_leaves_no_process_behind(hub):
    tree = _tree(hub.proc.pid)
    kinds = {name: [p for p in tree if name in _cmdline(p)]
             for name in ("configurable-http-proxy", "jupyterhub.singleuser", "ipykernel")}
    assert len(kinds["configurable-http-proxy"]) == 1
    assert _cmdline(kinds["configurable-http-proxy"][0]).split()[0].endswith(("node", "nodejs"))
    assert len(kinds["jupyterhub.singleuser"]) == len(USERS)
    # For the README's sizing: a student's server, resident memory (MB), and its CPU seconds.
    rss = [_rss_mb(p) for p in kinds["jupyterhub.singleuser"]]
    hub.times["single-user server RSS, MB (mean)"] = sum(rss) / len(rss)
    hub.times["single-user server CPU s (mean)"] = sum(
        _cpu_s(p) for p in kinds["jupyterhub.singleuser"]) / len(USERS)
    t0 = time.monotonic()
    _stop(hub.proc)
    while any(_alive(p) for p in tree) and time.monotonic() - t0 < 30:
        time.sleep(0.3)
    hub.times["hub stopped, every process gone"] = time.monotonic() - t0
    assert hub.proc.returncode is not None
    assert not [p for p in tree if _alive(p)], [(p, _cmdline(p)) for p in tree if _alive(p)]


def _cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _cpu_s(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
