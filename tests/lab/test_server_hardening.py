"""``kernelnb serve`` for a class: hostile websocket frames, the kernel budget and culling, the
status API and pages that refer to no other host (authentication of every route, the Host and
Origin checks and the security headers: tests/lab/test_server_security.py).

Every server here listens on 127.0.0.1 only, and every loop is bounded in count and time.
"""
from __future__ import annotations

import asyncio
import json
import re
import signal
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from kernelnb.lab.server._websocket import V1_PROTOCOL, parse_v1_offsets, v1_frame

from .._hosts import references_to_other_hosts
from ..conftest import kernelnb_serve, run_async

pytestmark = pytest.mark.slow


def write_dashboards(folder: Path, names=("alpha", "beta")) -> Path:
    """Quick dashboards: a widget (so the page opens comms) and nothing heavy."""
    for name in names:
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.cells = [nbformat.v4.new_markdown_cell(f"# {name}"),
                    nbformat.v4.new_code_cell("import ipywidgets as w\n"
                                              f"w.IntSlider(value=3, max=10, description={name!r})")]
        nbformat.write(nb, folder / f"{name}.ipynb")
    return folder


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


_OPENERS = {True: urllib.request.build_opener(),
            False: urllib.request.build_opener(_NoRedirect)}


def get(url, timeout=60.0, follow=True):
    """(status, body, headers) of a GET, errors included; redirects followed if ``follow``."""
    try:
        with _OPENERS[follow].open(url, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace"), dict(r.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace"), dict(exc.headers)


def status(url):
    code, body, _ = get(url + "kernelnb/api/status", timeout=20)
    assert code == 200, body
    return json.loads(body)


def server_rss_mb(proc) -> float:
    import psutil
    return psutil.Process(proc.pid).memory_info().rss / 2**20


def kernel_id_of(page: str) -> str:
    m = re.search(r'"kernelId":\s*"([0-9a-f-]{36})"', page)
    assert m, "no kernel id in the rendered page"
    return m.group(1)


def message(msg_type, content, session="s"):
    return {"header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": session,
                       "username": "", "version": "5.3", "date": "2026-01-01T00:00:00Z"},
            "parent_header": {}, "metadata": {}, "content": content}


async def ws_connect(ws_url, subprotocols):
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect
    return await websocket_connect(HTTPRequest(ws_url, request_timeout=30),
                                   subprotocols=subprotocols)


# ----------------------------------------------------------------------------- frame parser


def test_v1_parser_bounds_the_count_by_the_frame():
    good = v1_frame("shell", message("kernel_info_request", {}))
    offsets = parse_v1_offsets(good)
    assert offsets is not None and offsets[-1] == len(good) and len(offsets) == 6
    huge = (2**62).to_bytes(8, "little") + b"\0" * 64          # the attack: a giant count
    assert parse_v1_offsets(huge) is None
    legacy = (5).to_bytes(4, "big") + (24).to_bytes(4, "big") + b"{}" * 20  # read as 8.6e17
    assert parse_v1_offsets(legacy) is None
    assert parse_v1_offsets(b"") is None and parse_v1_offsets("text") is None
    backwards = bytearray(good)
    backwards[16:24] = (len(good) + 5).to_bytes(8, "little")   # an offset past the end
    assert parse_v1_offsets(bytes(backwards)) is None


# ----------------------------------------------------------------------------- a real server


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    folder = write_dashboards(tmp_path_factory.mktemp("hostile"))
    with kernelnb_serve("--dashboards", str(folder), "--max-kernels", "4",
                        log_name="hardening_ws") as (url, proc):
        yield url, proc


def test_websocket_attack_leaves_the_server_answering(hostile_server):
    url, proc = hostile_server
    code, page, _ = get(url + "voila/render/alpha.ipynb", timeout=120)
    assert code == 200
    kid = kernel_id_of(page)
    ws_url = url.replace("http://", "ws://") + f"api/kernels/{kid}/channels?session_id=attack"
    rss0 = server_rss_mb(proc)

    async def attack():
        from tornado.httpclient import HTTPClientError
        # 1. The legacy protocol (no subprotocol offered): refused before the upgrade.
        with pytest.raises(HTTPClientError) as exc:
            await ws_connect(ws_url, [])
        assert exc.value.code == 400
        # 2. A v1 client: a well-formed request is answered ...
        ws = await ws_connect(ws_url, [V1_PROTOCOL])
        assert ws.selected_subprotocol == V1_PROTOCOL
        ws.write_message(v1_frame("shell", message("kernel_info_request", {})), binary=True)
        got_reply = False
        for _ in range(50):
            frame = await asyncio.wait_for(ws.read_message(), 30)
            assert frame is not None
            if isinstance(frame, bytes) and b"kernel_info_reply" in frame:
                got_reply = True
                break
        assert got_reply
        # ... and frames whose counts lie, or that carry binary buffers in the old format
        # (what made Voila build a list of ~8.6e17 items), close that connection only.
        ws.write_message((2**62).to_bytes(8, "little") + b"x" * 200, binary=True)
        closed = await asyncio.wait_for(_drain(ws), 10)
        assert closed
        ws2 = await ws_connect(ws_url, [V1_PROTOCOL])
        legacy = (3).to_bytes(4, "big") + (16).to_bytes(4, "big") + (40).to_bytes(4, "big")
        ws2.write_message(legacy + b"\0" * 64, binary=True)
        assert await asyncio.wait_for(_drain(ws2), 10)

    run_async(attack)
    t0 = time.monotonic()
    code, _, _ = get(url, timeout=2)
    assert code == 200 and time.monotonic() - t0 < 2
    time.sleep(1.0)
    assert server_rss_mb(proc) - rss0 < 100
    assert proc.poll() is None


def test_dashboard_kernels_are_forked_from_the_fork_server(hostile_server):
    """kernelnb serve starts its fork server with the server; once it has imported, a page's
    kernel is its child (kernelnb.lab.server._forkserver), named so in ps, and the status says so."""
    import psutil

    from kernelnb.lab.server._forkserver import KERNEL_PROCESS_NAME, PROCESS_NAME, supported
    if not supported():
        pytest.skip("forking kernels needs Linux")
    url, proc = hostile_server
    deadline = time.monotonic() + 90
    while status(url)["fork_server"] == "starting" and time.monotonic() < deadline:
        time.sleep(0.2)
    before = status(url)
    assert before["fork_server"] == "ready"

    def named(pid):
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()

    forks = [p for p in psutil.Process(proc.pid).children() if named(p.pid) == PROCESS_NAME]
    assert len(forks) == 1
    code, page, _ = get(url + "voila/render/alpha.ipynb", timeout=120)
    assert code == 200 and "Traceback" not in page
    assert status(url)["forked_kernels"] == before["forked_kernels"] + 1
    assert any(named(k.pid) == KERNEL_PROCESS_NAME for k in forks[0].children())


async def _drain(ws):
    """Read until the server closes the connection; True when it did."""
    while True:
        msg = await ws.read_message()
        if msg is None:
            return True


def test_a_comm_message_with_buffers_still_reaches_the_kernel(hostile_server):
    """The check does not get in the way of real traffic: a request_state with a binary buffer
    (what a plotly FigureWidget's view sends) is answered by the kernel."""
    url, _ = hostile_server
    code, page, _ = get(url + "voila/render/beta.ipynb", timeout=120)
    assert code == 200
    kid = kernel_id_of(page)
    ws_url = url.replace("http://", "ws://") + f"api/kernels/{kid}/channels?session_id=ok"

    async def talk():
        ws = await ws_connect(ws_url, [V1_PROTOCOL])
        ws.write_message(v1_frame("shell", message("comm_info_request",
                                                   {"target_name": "jupyter.widget"})),
                         binary=True)
        comm_ids = None
        for _ in range(50):
            frame = await asyncio.wait_for(ws.read_message(), 30)
            if isinstance(frame, bytes) and b"comm_info_reply" in frame:
                off = parse_v1_offsets(frame)
                content = json.loads(frame[off[4]:off[5]])
                comm_ids = list(content["comms"])
                break
        assert comm_ids, "the dashboard's widgets are not registered"
        ws.write_message(v1_frame("shell", message(
            "comm_msg", {"comm_id": comm_ids[0], "data": {"method": "request_state"}}),
            buffers=[b"\x00\x01\x02\x03"]), binary=True)
        for _ in range(100):
            frame = await asyncio.wait_for(ws.read_message(), 30)
            assert frame is not None, "the connection was closed on a valid message"
            if isinstance(frame, bytes) and b'"method": "update"' in frame.replace(b'":"', b'": "'):
                return True
        return False

    assert run_async(talk)


# ----------------------------------------------------------------------------- the budget


def test_kernel_budget_and_culling_of_unconnected_kernels(tmp_path):
    folder = write_dashboards(tmp_path)
    with kernelnb_serve("--dashboards", str(folder), "--max-kernels", "5",
                        "--cull-unconnected", "4", log_name="hardening_budget") as (url, proc):
        def render(i):
            return get(url + f"voila/render/{'alpha' if i % 2 else 'beta'}.ipynb", timeout=180)

        with ThreadPoolExecutor(max_workers=10) as pool:
            results = list(pool.map(render, range(30)))
        codes = [r[0] for r in results]
        assert set(codes) <= {200, 503}, codes
        assert 1 <= codes.count(200) <= 5, codes
        full = next(r for r in results if r[0] == 503)
        assert "The class is full" in full[1] and "--max-kernels 5" in full[1]
        assert full[2].get("Retry-After") == "60"
        st = status(url)
        assert st["max_kernels"] == 5 and st["kernels"] <= 5 and st["refused"] >= 25
        # Nobody connected to those pages: after the never-connected timeout they are gone.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and status(url)["kernels"] > 0:
            time.sleep(1)
        st = status(url)
        assert st["kernels"] == 0 and st["culled_unconnected"] >= codes.count(200)
        # and the class can come in again
        assert get(url + "voila/render/alpha.ipynb", timeout=120)[0] == 200


def test_preheated_pool_is_used_and_refilled(tmp_path):
    folder = write_dashboards(tmp_path)
    # Refills wait for a quiet machine (load average below the cores) at most 5 s here.
    with kernelnb_serve("--dashboards", str(folder), "--max-kernels", "4", "--preheat", "2",
                        "--preheat-dashboards", "alpha", "--PoolKeeper.refill_quiet=1",
                        "--PoolKeeper.refill_max_wait=5",
                        log_name="hardening_preheat") as (url, proc):
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and status(url)["preheated_ready"] < 2:
            time.sleep(0.5)
        st = status(url)
        assert st["preheated_ready"] == 2 and st["preheat_target"] == 2
        assert st["pool"] == {"alpha.ipynb": {"target": 2, "ready": 2, "warming": 0}}
        assert st["kernels"] == 2 and st["kernel_rss_mb"]["mean"] > 10
        code, page, _ = get(url + "voila/render/alpha.ipynb", timeout=120)
        assert code == 200 and "alpha" in page
        # the taken kernel is replaced in the background, within the budget
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and status(url)["preheated_ready"] < 2:
            time.sleep(0.5)
        st = status(url)
        assert st["preheated_ready"] == 2 and st["kernels"] == 3
        # every kernel killed (kill -9, as the out-of-memory killer would): the ready ones are
        # dropped from the pool, which is filled again, and a visitor gets a live one
        killed = _kernel_processes(proc)
        assert len(killed) == 3
        for p in killed:
            p.kill()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and status(url)["ended"]["died"] < 3:
            time.sleep(0.5)
        assert status(url)["ended"]["died"] == 3
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and status(url)["preheated_ready"] < 2:
            time.sleep(0.5)
        st = status(url)
        assert st["preheated_ready"] == 2 and st["kernels"] == 2
        assert not {p.pid for p in killed} & {p.pid for p in _kernel_processes(proc)}
        code, page, _ = get(url + "voila/render/alpha.ipynb", timeout=120)
        assert code == 200
        fate = json.loads(get(url + f"kernelnb/api/kernels/{kernel_id_of(page)}")[1])
        assert fate["state"] == "alive"


def _kernel_processes(server):
    """The kernel processes of a ``kernelnb serve`` process: forked or started as usual."""
    import psutil

    from kernelnb.lab.server._forkserver import KERNEL_PROCESS_NAME
    out = []
    for p in psutil.Process(server.pid).children(recursive=True):
        try:
            if p.name() == KERNEL_PROCESS_NAME or "ipykernel_launcher" in " ".join(p.cmdline()):
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def _voila_app(folder, monkeypatch, *options):
    """The KernelnbVoila that ``kernelnb serve --dashboards folder *options`` runs, its settings
    and handlers made (nothing started, no port bound)."""
    from kernelnb.lab import cli
    from kernelnb.lab.viz._figure_widget import ESM_ENV
    from kernelnb.lab.server.app import KernelnbVoila

    monkeypatch.setenv(ESM_ENV, "")              # init_settings sets it; put back afterwards
    args, extra = cli.build_parser().parse_known_args(
        ["serve", "--no-browser", "--dashboards", str(folder), *options])
    app = KernelnbVoila()
    previous = signal.getsignal(signal.SIGTERM)
    try:
        app.initialize(cli.serve_argv(args, extra))
    finally:
        # Voila's initialize() installs its own SIGTERM handler, for a server never started here
        signal.signal(signal.SIGTERM, previous)
    app.connection_dir = str(folder)
    app.init_settings()
    return app, app.init_handlers()


def test_voila_pool_manager_is_kernelnbs(tmp_path, monkeypatch):
    """Voila 0.5.13 offers no public hook for the preheated pool's refill policy: it builds its
    pool manager class on top of ``VoilaConfiguration.multi_kernel_manager_class``, and kernelnb
    (BudgetKernelManager.__new__) puts PoolKeeper in front of it. This fails when the installed
    Voila no longer lets that work: the server's kernel manager is not kernelnb's, or Voila's
    class lost (or changed the parameters of) what PoolKeeper overrides and calls."""
    import inspect

    from kernelnb.lab.server._kernelpool import _VOILA_POOL_METHODS, BudgetKernelManager, PoolKeeper
    from kernelnb.lab.server.app import BudgetVoilaHandler

    folder = write_dashboards(tmp_path)
    app, handlers = _voila_app(folder, monkeypatch, "--max-kernels", "4", "--preheat", "2",
                               "--preheat-dashboards", "alpha")
    km = app.kernel_manager
    assert isinstance(km, PoolKeeper) and isinstance(km, BudgetKernelManager)
    mro = type(km).__mro__
    voila_class = next(c for c in mro if "get_rendered_notebook" in vars(c) and c is not PoolKeeper)
    assert mro.index(PoolKeeper) < mro.index(voila_class) < mro.index(BudgetKernelManager)
    for name, params in _VOILA_POOL_METHODS.items():
        assert name in vars(voila_class), f"Voila's pool manager has no {name} any more"
        assert tuple(inspect.signature(vars(voila_class)[name]).parameters) == params, name
        if name in vars(PoolKeeper):
            assert getattr(type(km), name) is getattr(PoolKeeper, name), name
    assert isinstance(km._pools, dict)
    # the pools are Voila's configuration, read by the keeper; the budget is kernelnb's
    assert km.kernel_pools_config == {"default": {"pool_size": 0}, "alpha.ipynb": {"pool_size": 2}}
    assert km._targets() == {"alpha.ipynb": 2} and km.max_kernels == 4
    assert BudgetVoilaHandler in {h[1] for h in handlers}
    # without preheating, the budget manager is Voila's kernel manager as it is
    app, _ = _voila_app(folder, monkeypatch, "--max-kernels", "3")
    assert isinstance(app.kernel_manager, BudgetKernelManager)
    assert not isinstance(app.kernel_manager, PoolKeeper) and app.kernel_manager.max_kernels == 3


def test_voila_settings_are_kernelnbs_through_voilas_traits(tmp_path, monkeypatch):
    """The hardened websocket connection and the tornado settings go through Voila's own traits
    (``kernel_websocket_connection_class``, ``tornado_settings``), and every Voila handler
    kernelnb replaces is replaced (Voila 0.5.13 offers no public hook for its handler classes)."""
    from voila.tornado.handler import TornadoVoilaHandler
    from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler
    from voila.tornado.treehandler import TornadoVoilaTreeHandler

    from kernelnb.lab.server._websocket import MAX_MESSAGE_BYTES, HardenedConnection
    from kernelnb.lab.server.app import NotFoundHandler

    folder = write_dashboards(tmp_path, names=("alpha",))
    app, handlers = _voila_app(folder, monkeypatch)
    assert app.kernel_websocket_connection_class is HardenedConnection
    assert app.tornado_settings["websocket_max_message_size"] == MAX_MESSAGE_BYTES
    assert app.tornado_settings["default_handler_class"] is NotFoundHandler
    classes = {h[1] for h in handlers}
    assert not classes & {TornadoVoilaHandler, VoilaKernelWebsocketHandler,
                          TornadoVoilaTreeHandler}


# ----------------------------------------------------------------------------- authentication
# The token on every route of the server's router: tests/lab/test_server_security.py
# (test_every_route_of_the_router_needs_the_token), which reads the routes from the tornado
# application itself.


# ----------------------------------------------------------------------------- offline pages

def test_no_served_page_refers_to_another_host(served, dashboards_folder):
    """The gallery, the folder listing, the error pages and one dashboard; every dashboard's
    rendered page is checked the same way by the browser test (tests/browser), which opens each
    one anyway (rendering all of them here too cost a minute of the suite)."""
    from kernelnb.lab.server.gallery import gallery_entries
    routes = ["", "voila/tree", "voila/tree/", "no/such/page", "voila/render/no_such.ipynb",
              "kernelnb/lab/static/no_such.png"]
    routes += [f"voila/render/{gallery_entries(dashboards_folder)[0].notebook}"]
    for route in routes:
        code, body, headers = get(served + route, timeout=180)
        assert code in (200, 404), (route, code)
        hits = references_to_other_hosts(body)
        assert not hits, f"{route or '/'} refers to another host: {hits[:3]}"
    assert "application/vnd.jupyter.widget-view+json" in body       # the dashboard was rendered


def test_hashed_widget_extension_files_are_kept_by_the_browser(served, dashboards_folder):
    """Voila serves its widget extensions' files with ``no-cache``: a returning browser asked for
    each again on every page. The scripts a page loads are named by their content's hash and are
    served immutable; a file without a hash in its name is still revalidated."""
    from kernelnb.lab.server.gallery import gallery_entries
    code, page, _ = get(served + f"voila/render/{gallery_entries(dashboards_folder)[0].notebook}",
                        timeout=180)
    assert code == 200
    extensions = json.loads(re.search(r'"federated_extensions":\s*(\[.*?\])', page).group(1))
    assert "@jupyter-widgets/jupyterlab-manager" in {e["name"] for e in extensions}
    from kernelnb.lab.server.config import EXTENSION_ALLOWLIST     # the page loads the widgets' only
    assert {e["name"] for e in extensions} <= set(EXTENSION_ALLOWLIST), extensions
    for ext in extensions:
        url = f"{served}voila/labextensions/{ext['name']}/{ext['load'].removeprefix('./')}"
        code, body, headers = get(url)
        assert code == 200 and body, url
        assert headers["Cache-Control"] == "public, max-age=31536000, immutable", url
    code, _, headers = get(f"{served}voila/labextensions/{extensions[0]['name']}/package.json")
    assert code == 200 and headers["Cache-Control"] == "no-cache"


# ----------------------------------------------------------------------------- the typesetter

def _notebook(folder: Path, name: str, *markdown: str) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(m) for m in markdown]
    nb.cells.append(nbformat.v4.new_code_cell("x = 1"))
    nbformat.write(nb, folder / f"{name}.ipynb")
    return f"{name}.ipynb"


def test_a_notebook_writes_tex_when_a_cell_holds_a_delimiter(tmp_path, dashboards_folder):
    from kernelnb.lab.server.gallery import gallery_entries
    from kernelnb.lab.server.app import notebook_writes_tex

    plain = _notebook(tmp_path, "plain", "# σ and C", "the margin 2/‖w‖, costs of 5 €")
    assert not notebook_writes_tex(tmp_path, plain)
    assert not notebook_writes_tex(tmp_path, tmp_path / plain)        # absolute, inside
    for i, tex in enumerate(("inline $x^2$", "a price of $5", r"\(a\)", r"\[ a \]",
                             r"\begin{align} a \end{align}")):
        assert notebook_writes_tex(tmp_path, _notebook(tmp_path, f"tex{i}", "text", tex)), tex
    code = nbformat.v4.new_notebook()
    code.cells = [nbformat.v4.new_code_cell("w.HTMLMath('$x$')")]    # math made in code
    nbformat.write(code, tmp_path / "code.ipynb")
    assert notebook_writes_tex(tmp_path, "code.ipynb")
    # what cannot be read as a notebook inside the root keeps Voila's typesetter
    (tmp_path / "broken.ipynb").write_text("{not json")
    (tmp_path / "script.py").write_text("x = 1")
    outside = tmp_path / "outside"
    outside.mkdir()
    _notebook(outside, "away", "plain")
    root = tmp_path / "root"
    root.mkdir()
    for path in ("broken.ipynb", "script.py", "no_such.ipynb", "../plain.ipynb"):
        assert notebook_writes_tex(tmp_path if path != "../plain.ipynb" else root, path), path
    assert notebook_writes_tex(root, outside / "away.ipynb")
    # a notebook edited in place is read again
    _notebook(tmp_path, "plain", "now with $x$ and a longer text")
    assert notebook_writes_tex(tmp_path, plain)
    # every dashboard writes its math in Unicode
    writes = [e.notebook for e in gallery_entries(dashboards_folder)
              if notebook_writes_tex(dashboards_folder, e.notebook)]
    assert not writes, f"dashboards whose cells hold TeX: {writes}"


def test_plain_math_hook_names_the_plain_typesetter_only_for_pages_without_tex(tmp_path,
                                                                              monkeypatch):
    from kernelnb.lab.server.app import PLAIN_MATH_SCRIPT, _use_plain_math, plain_math_hook

    plain = _notebook(tmp_path, "plain", "# no math")
    tex = _notebook(tmp_path, "tex", "$x$")
    app, _ = _voila_app(tmp_path, monkeypatch)
    hook = app.voila_configuration.page_config_hook         # put there by kernelnb serve
    kwargs = dict(base_url="/prefix/", settings={}, log=None,
                  voila_configuration=app.voila_configuration)
    config = hook({"fullMathjaxUrl": None}, notebook_path=plain, **kwargs)
    assert config["fullMathjaxUrl"] == f"/prefix/kernelnb/lab/static/{PLAIN_MATH_SCRIPT}"
    assert hook({"fullMathjaxUrl": None}, notebook_path=tex, **kwargs)["fullMathjaxUrl"] is None
    # once only, and a hook the user configured runs after it, with Voila's arguments
    assert not _use_plain_math(app.voila_configuration, tmp_path)
    seen = []

    def users(page_config, **kw):
        seen.append(kw)
        return {**page_config, "mine": True}

    chained = plain_math_hook(tmp_path, then=users)
    config = chained({"fullMathjaxUrl": None}, notebook_path=plain, **kwargs)
    assert config["mine"] and config["fullMathjaxUrl"].endswith(PLAIN_MATH_SCRIPT)
    assert seen == [{**kwargs, "notebook_path": plain}]


def test_a_page_without_tex_gets_the_plain_typesetter(served, dashboards_folder):
    """A dashboard's page names kernelnb's plain typesetter as its MathJax (Voila then loads no
    MathJax; the browser test checks that none is fetched), and the server serves it."""
    from kernelnb.lab.server.gallery import gallery_entries
    from kernelnb.lab.server.app import PLAIN_MATH_SCRIPT

    code, page, _ = get(served + f"voila/render/{gallery_entries(dashboards_folder)[0].notebook}",
                        timeout=180)
    assert code == 200
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">'
                                  r"(.*?)</script>", page, re.S).group(1))
    assert config["fullMathjaxUrl"] == f"/kernelnb/lab/static/{PLAIN_MATH_SCRIPT}"
    code, body, headers = get(served + config["fullMathjaxUrl"].lstrip("/")
                              + "?config=TeX-AMS_CHTML-full,Safe")
    assert code == 200 and headers["Content-Type"].startswith("text/javascript")
    assert "window.MathJax" in body and "Queue" in body


def test_server_extension_caches_only_voilas_extension_files():
    """In a Jupyter server (JupyterHub, Binder), Voila's server extension adds the same route:
    kernelnb gives it the same handler, and leaves every other file route alone."""
    import tornado.web
    from jupyter_server.base.handlers import FileFindHandler

    from kernelnb.lab.server.app import LabExtensionFileHandler, _cache_hashed_labextensions

    app = tornado.web.Application([
        (r"/user/a/voila/labextensions/(.*)", FileFindHandler, {"path": "/nowhere"}),
        (r"/user/a/lab/extensions/(.*)", FileFindHandler, {"path": "/nowhere"}),
        (r"/user/a/voila/labextensions/other/(.*)", FileFindHandler, {"path": "/nowhere"}),
    ])
    assert _cache_hashed_labextensions(app) == 1
    targets = [rule.target for host in app.default_router.rules for rule in host.target.rules]
    assert targets[:3] == [LabExtensionFileHandler, FileFindHandler, FileFindHandler]
    assert _cache_hashed_labextensions(app) == 0
    hashed = LabExtensionFileHandler.HASHED
    assert hashed.search("/voila/labextensions/x/static/remoteEntry.5cbb9d2323598fbda535.js")
    assert hashed.search("/voila/labextensions/anywidget/static/2.3dbf81c0.js")
    assert not hashed.search("/voila/labextensions/x/static/style.js")
    assert not hashed.search("/voila/labextensions/x/static/remoteEntry.5cbb9d2323598fbda535.css")


def test_server_extension_hardens_jupyter_servers_connection_class():
    """What the Jupyter server extension (Binder, JupyterHub) puts in place: jupyter_server's own
    kernel connection (or a subclass) checks frames; someone else's class is left alone."""
    from jupyter_server.services.kernels.connection.base import BaseKernelWebsocketConnection
    from jupyter_server.services.kernels.connection.channels import (
        ZMQChannelsWebsocketConnection)

    from kernelnb.lab.server._websocket import HardenedConnection, hardened_connection_class

    assert hardened_connection_class(None) is HardenedConnection
    assert hardened_connection_class(ZMQChannelsWebsocketConnection) is HardenedConnection
    assert hardened_connection_class(HardenedConnection) is HardenedConnection

    class Custom(ZMQChannelsWebsocketConnection):
        pass

    wrapped = hardened_connection_class(Custom)
    assert issubclass(wrapped, HardenedConnection) and issubclass(wrapped, Custom)

    class Gateway(BaseKernelWebsocketConnection):
        pass

    assert hardened_connection_class(Gateway) is Gateway
