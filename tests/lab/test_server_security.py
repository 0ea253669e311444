"""``kernelnb serve`` against other websites: DNS rebinding (the ``Host`` checked), requests made by
another site's page, the websocket's ``Origin``, the security headers, what a visitor's messages
on a kernel websocket can do, and the token on every route of the server's router.

See :mod:`kernelnb.lab.server._security`. Every server here listens on 127.0.0.1 only; every wait is
bounded.
"""
from __future__ import annotations

import asyncio
import http.client
import json
import re
import signal
import time
import uuid
from pathlib import Path

import pytest

from kernelnb.lab import cli
from kernelnb.lab.server import _security
from kernelnb.lab.server._security import CONTENT_SECURITY_POLICY, HostPolicy, split_host
from kernelnb.lab.server._websocket import V1_PROTOCOL, parse_v1_offsets, v1_frame

from ..conftest import kernelnb_serve, run_async

try:                                         # the regular expression parser (3.11: private names)
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:                          # pragma: no cover - Python 3.10
    import sre_constants
    import sre_parse
from .test_server_hardening import _kernel_processes, kernel_id_of, message, write_dashboards

EVIL = "evil.example"
CLASS_NAME = "class.example.org"


# ----------------------------------------------------------------------------- the policy


def test_split_host_reads_names_addresses_and_ports():
    assert split_host("127.0.0.1:8866") == ("127.0.0.1", "8866")
    assert split_host("[::1]:8866") == ("::1", "8866")
    assert split_host("[::1]") == ("::1", "")
    assert split_host("::1") == ("::1", "")
    assert split_host("LocalHost.:80") == ("localhost", "80")
    assert split_host("evil.example") == ("evil.example", "")
    assert split_host("") == ("", "")


def test_host_policy_answers_loopback_its_address_and_the_names_given():
    default = HostPolicy("127.0.0.1")
    for host in ("127.0.0.1:8866", "localhost:8866", "LOCALHOST", "[::1]:8866", "127.0.0.2",
                 None):
        assert default.allows(host), host
    for host in (f"{EVIL}:8866", EVIL, "localhost.evil.example", "10.0.0.1:8866",
                 "127.0.0.1.evil.example", ""):
        assert not default.allows(host), host
    named = HostPolicy("127.0.0.1", [CLASS_NAME])
    assert named.allows(f"{CLASS_NAME}:443") and named.allows(CLASS_NAME.upper())
    assert not named.allows(f"x.{CLASS_NAME}") and not named.allows(EVIL)
    # a server on one address answers that address; one on every interface, any address
    one = HostPolicy("10.0.0.5")
    assert one.allows("10.0.0.5:8866") and not one.allows("10.0.0.6:8866")
    assert not one.allows(f"{EVIL}:8866")
    every = HostPolicy("0.0.0.0")
    assert every.allows("10.0.0.6:8866") and every.allows("[fe80::1]:8866")
    assert not every.allows(f"{EVIL}:8866")
    assert HostPolicy("127.0.0.1", ["*"]).allows(f"{EVIL}:8866")
    # an address given as a name (a reverse proxy reaching a loopback server by its own address)
    proxied = HostPolicy("127.0.0.1", ["10.1.2.3", "fd00::7"])
    assert proxied.allows("10.1.2.3:80") and proxied.allows("[fd00::7]:443")
    assert not proxied.allows("10.1.2.4:80")
    assert _security.tornado_settings(proxied)["allow_remote_access"] is True


def test_jupyter_servers_own_host_check_is_configured_where_it_says_the_same():
    """Loopback: jupyter_server's check on, with the same names; elsewhere off (it refuses every
    address that is not a loopback one), kernelnb's rule alone. The user's settings win."""
    loop = _security.tornado_settings(HostPolicy("127.0.0.1", [CLASS_NAME]))
    assert loop["allow_remote_access"] is False
    assert {"localhost", CLASS_NAME} <= set(loop["local_hostnames"])
    assert EVIL not in loop["local_hostnames"]
    assert loop["headers"]["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert _security.tornado_settings(HostPolicy("10.0.0.5"))["allow_remote_access"] is True
    given = _security.tornado_settings(HostPolicy(), {"headers": {"X-Mine": "1"}, "a": 2})
    assert given["headers"]["X-Mine"] == "1" and given["a"] == 2
    assert given["headers"]["X-Content-Type-Options"] == "nosniff"


def test_allow_host_reaches_voila_and_bad_names_are_refused(tmp_path):
    write_dashboards(tmp_path, names=("alpha",))
    args, extra = cli.build_parser().parse_known_args(
        ["serve", "--dashboards", str(tmp_path), "--allow-host", CLASS_NAME,
         "--allow-host", "10.1.2.3"])
    argv = cli.serve_argv(args, extra)
    assert f"--KernelnbVoila.allow_hosts={CLASS_NAME}" in argv
    assert "--KernelnbVoila.allow_hosts=10.1.2.3" in argv
    args, extra = cli.build_parser().parse_known_args(["serve", "--dashboards", str(tmp_path)])
    assert not any("allow_hosts" in a for a in cli.serve_argv(args, extra))
    for bad in ("https://class.example.org", "class.example.org:443", "a b", "x/y", ""):
        args, extra = cli.build_parser().parse_known_args(
            ["serve", "--dashboards", str(tmp_path), "--allow-host", bad])
        with pytest.raises(SystemExit, match="--allow-host"):
            cli.serve_argv(args, extra)


def test_a_fetch_by_another_sites_page_is_told_from_a_navigation():
    def request(method="GET", **headers):
        return _request(method, "/voila/render/a.ipynb",
                        {"Host": "127.0.0.1:8866",
                         **{k.replace("_", "-"): v for k, v in headers.items()}})

    fetch = _security.foreign_fetch
    assert not fetch(request())                                     # no Fetch Metadata
    assert not fetch(request(Sec_Fetch_Site="same-origin", Sec_Fetch_Mode="cors"))
    assert not fetch(request(Sec_Fetch_Site="none", Sec_Fetch_Mode="navigate"))
    # the book's link: another site, a top-level navigation
    assert not fetch(request(Sec_Fetch_Site="cross-site", Sec_Fetch_Mode="navigate",
                             Sec_Fetch_Dest="document"))
    for mode, dest in (("no-cors", "image"), ("navigate", "iframe"), ("cors", "empty"),
                       ("no-cors", "script"), ("websocket", "websocket")):
        assert fetch(request(Sec_Fetch_Site="cross-site", Sec_Fetch_Mode=mode,
                             Sec_Fetch_Dest=dest)), (mode, dest)
        assert fetch(request(Sec_Fetch_Site="same-site", Sec_Fetch_Mode=mode,
                             Sec_Fetch_Dest=dest)), (mode, dest)
    assert fetch(request("POST", Sec_Fetch_Site="cross-site", Sec_Fetch_Mode="navigate",
                         Sec_Fetch_Dest="document"))                 # a form posted from there


# ----------------------------------------------------------------------------- a real server


def raw(port, path, host=None, method="GET", headers=None, body=None, timeout=120):
    """(status, body, headers) of one request to 127.0.0.1:port with this ``Host`` header."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, "/" + path.lstrip("/"), body=body,
                     headers={"Host": host or f"127.0.0.1:{port}", **(headers or {})})
        r = conn.getresponse()
        return r.status, r.read().decode("utf-8", "replace"), dict(r.getheaders())
    finally:
        conn.close()


def port_of(url):
    return int(url.rstrip("/").rsplit(":", 1)[1])


def kernels(port):
    code, body, _ = raw(port, "kernelnb/api/status", timeout=30)
    assert code == 200, body
    return json.loads(body)["kernels"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = write_dashboards(tmp_path_factory.mktemp("security"), names=("alpha",))
    # every dashboard page this module renders starts a kernel that stays until culled (about
    # nine before the Chromium test): a budget of 4 left that last test's page "class is full"
    with kernelnb_serve("--dashboards", str(folder), "--max-kernels", "10",
                        "--allow-host", CLASS_NAME, log_name="security") as (url, proc):
        yield port_of(url), proc


#: Routes asked with another site's name as Host: pages, APIs, static files, an unknown URL.
REBOUND = ("", "voila/tree", "voila/render/alpha.ipynb", "kernelnb/api/status",
           f"kernelnb/api/kernels/{uuid.uuid4()}", f"api/kernels/{uuid.uuid4()}",
           "voila/static/voila.js", "kernelnb/lab/static/plain-math.js", "no/such/page")


@pytest.mark.slow
def test_a_rebound_host_is_refused_before_any_kernel_starts(server):
    port, proc = server
    assert kernels(port) == 0 and not _kernel_processes(proc)
    for path in REBOUND:
        for host in (f"{EVIL}:{port}", EVIL, f"127.0.0.1.{EVIL}:{port}"):
            code, body, headers = raw(port, path, host=host)
            assert code == 403, (path, host, code, body[:200])
            assert "does not answer to the name" in body and "--allow-host" in body, body
            assert headers["Content-Type"].startswith("text/plain")
    code, body, _ = raw(port, "voila/api/shutdown/x", host=f"{EVIL}:{port}", method="POST",
                        body=b"")
    assert code == 403
    # in the reader's language
    code, body, _ = raw(port, "", host=f"{EVIL}:{port}", headers={"Accept-Language": "fr"})
    assert code == 403 and "ne répond pas au nom evil.example" in body, body
    # nothing was rendered: no kernel in the server's count, no kernel process
    assert kernels(port) == 0 and not _kernel_processes(proc)


@pytest.mark.slow
def test_the_servers_own_names_are_answered(server):
    port, _ = server
    # (a browser sends the name in lower case: jupyter_server's own check, on for a loopback
    # binding, compares it as it comes)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"{CLASS_NAME}",
                 f"{CLASS_NAME}:443"):
        code, body, _ = raw(port, "", host=host)
        assert code == 200 and "alpha" in body, (host, code, body[:200])


@pytest.mark.slow
def test_a_page_of_another_site_cannot_start_a_kernel_but_its_link_opens_the_page(server):
    """An ``<img>`` or ``<iframe>`` of another site's page pointing at a dashboard is refused
    before its kernel starts; the book's link (a top-level navigation from another site) opens
    the dashboard."""
    port, proc = server
    before = kernels(port)
    for mode, dest in (("no-cors", "image"), ("navigate", "iframe"), ("cors", "empty")):
        code, body, _ = raw(port, "voila/render/alpha.ipynb", headers={
            "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": mode, "Sec-Fetch-Dest": dest})
        assert code == 403 and "another website" in body, (mode, dest, code, body[:200])
    assert kernels(port) == before
    code, page, _ = raw(port, "voila/render/alpha.ipynb", headers={
        "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document",
        "Sec-Fetch-User": "?1"})
    assert code == 200 and kernel_id_of(page)


async def ws_open(port, kernel_id, host, origin, subprotocols=(V1_PROTOCOL,)):
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect
    url = f"ws://127.0.0.1:{port}/api/kernels/{kernel_id}/channels?session_id={uuid.uuid4().hex}"
    headers = {"Host": host}
    if origin is not None:
        headers["Origin"] = origin
    return await websocket_connect(HTTPRequest(url, headers=headers, request_timeout=30),
                                   subprotocols=list(subprotocols))


@pytest.fixture(scope="module")
def dashboard_kernel(server):
    port, _ = server
    code, page, _ = raw(port, "voila/render/alpha.ipynb")
    assert code == 200
    return kernel_id_of(page)


@pytest.mark.slow
def test_a_websocket_from_another_origin_is_refused(server, dashboard_kernel):
    port, _ = server
    own = f"127.0.0.1:{port}"

    async def attempts():
        from tornado.httpclient import HTTPClientError
        codes = {}
        for host, origin in ((f"{EVIL}:{port}", f"http://{EVIL}:{port}"),    # rebinding
                             (own, f"http://{EVIL}:{port}"),                 # another site
                             (own, "null")):                                 # a sandboxed frame
            try:
                ws = await ws_open(port, dashboard_kernel, host, origin)
                ws.close()
                codes[(host, origin)] = 101
            except HTTPClientError as exc:
                codes[(host, origin)] = exc.code
        ws = await ws_open(port, dashboard_kernel, own, f"http://{own}")     # the page's own
        ws.write_message(v1_frame("shell", message("kernel_info_request", {})), binary=True)
        for _ in range(50):
            frame = await asyncio.wait_for(ws.read_message(), 30)
            if isinstance(frame, bytes) and b"kernel_info_reply" in frame:
                ws.close()
                return codes, True
        return codes, False

    codes, answered = run_async(attempts)
    assert set(codes.values()) == {403}, codes
    assert answered


# ----------------------------------------------------------------------------- what is inherited

#: What a page's visitor may not ask a dashboard's kernel: run code, complete or inspect it, read
#: its history (Voila's allowed message types let only comms, kernel_info and shutdown through).
FORBIDDEN_REQUESTS = ("execute_request", "complete_request", "inspect_request", "history_request")


def _requests(target: Path):
    code = f"open({str(target)!r}, 'w').write('ran')"
    contents = {"execute_request": {"code": code, "silent": False, "store_history": True,
                                    "user_expressions": {}, "allow_stdin": False,
                                    "stop_on_error": True},
                "complete_request": {"code": "import o", "cursor_pos": 8},
                "inspect_request": {"code": "open", "cursor_pos": 4, "detail_level": 0},
                "history_request": {"output": False, "raw": True, "hist_access_type": "tail",
                                    "n": 10}}
    return [message(t, contents[t]) for t in FORBIDDEN_REQUESTS]


def _header_and_parent(frame):
    """(msg_type, parent msg_id) of a frame in either protocol; (None, None) if unreadable."""
    try:
        if isinstance(frame, bytes):
            off = parse_v1_offsets(frame)
            header = json.loads(frame[off[1]:off[2]])
            parent = json.loads(frame[off[2]:off[3]]) if off[3] > off[2] else {}
        else:
            msg = json.loads(frame)
            header, parent = msg["header"], msg.get("parent_header") or {}
        return header.get("msg_type"), parent.get("msg_id")
    except (TypeError, ValueError, KeyError, IndexError):
        return None, None


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["v1", "legacy"])
def test_a_visitors_code_requests_run_nothing_and_get_no_answer(server, dashboard_kernel,
                                                                tmp_path, protocol):
    """With the page's own Host and Origin, on the dashboard's kernel websocket: an
    execute_request (whose code would write a file), complete_request, inspect_request and
    history_request, on the shell and control channels, get no reply and run nothing; a
    kernel_info_request sent after them is answered (so the kernel and the connection work, and
    any reply to the earlier requests would have come first). The legacy JSON protocol is
    refused before the upgrade (kernelnb.lab.server._websocket), or, if a Voila accepts it, holds the
    same."""
    port, _ = server
    own = f"127.0.0.1:{port}"
    target = tmp_path / "written_by_a_visitor"
    sent = _requests(target)

    async def visit():
        from tornado.httpclient import HTTPClientError
        try:
            ws = await ws_open(port, dashboard_kernel, own, f"http://{own}",
                               subprotocols=(V1_PROTOCOL,) if protocol == "v1" else ())
        except HTTPClientError as exc:
            assert protocol == "legacy", exc
            return {"refused": exc.code}

        def send(channel, msg):
            if protocol == "v1":
                ws.write_message(v1_frame(channel, msg), binary=True)
            else:
                ws.write_message(json.dumps({**msg, "channel": channel}))

        ids = set()
        for channel in ("shell", "control"):
            for msg in sent:
                msg = {**msg, "header": {**msg["header"], "msg_id": uuid.uuid4().hex}}
                ids.add(msg["header"]["msg_id"])
                send(channel, msg)
        info = message("kernel_info_request", {})
        send("shell", info)
        replies, answered = [], False
        deadline = time.monotonic() + 60
        quiet_until = None
        while time.monotonic() < deadline:
            timeout = (quiet_until - time.monotonic()) if quiet_until else 30
            if timeout <= 0:
                break
            try:
                frame = await asyncio.wait_for(ws.read_message(), timeout)
            except asyncio.TimeoutError:
                break
            if frame is None:
                break
            msg_type, parent = _header_and_parent(frame)
            if parent in ids:
                replies.append(msg_type)
            if msg_type == "kernel_info_reply" and parent == info["header"]["msg_id"]:
                answered = True
                quiet_until = time.monotonic() + 3          # a few seconds more for stragglers
        ws.close()
        return {"answered": answered, "replies": replies}

    got = run_async(visit)
    if "refused" in got:
        assert got["refused"] == 400, got
    else:
        assert got["answered"], got
        assert not got["replies"], f"the kernel answered a visitor's requests: {got['replies']}"
    time.sleep(1.0)
    assert not target.exists(), "a visitor's execute_request ran in the dashboard's kernel"


# ----------------------------------------------------------------------------- the headers

#: The sources a fetch directive may name: none is another host.
_SOURCES_OF_THIS_PAGE = {"'self'", "'none'", "'unsafe-inline'", "'unsafe-eval'", "data:", "blob:"}


def _csp(header):
    return {d.split()[0]: d.split()[1:] for d in header.split(";") if d.strip()}


def test_the_policy_names_no_other_host():
    policy = _csp(CONTENT_SECURITY_POLICY)
    assert policy["default-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'self'"] and policy["object-src"] == ["'none'"]
    for directive, sources in policy.items():
        assert set(sources) <= _SOURCES_OF_THIS_PAGE, (directive, sources)
    assert "'unsafe-eval'" not in policy["style-src"] and "data:" not in policy["script-src"]


@pytest.mark.slow
def test_every_kind_of_answer_carries_the_security_headers(server, dashboard_kernel):
    port, _ = server
    for path, host, want in (("", None, 200), ("?lang=fr", None, 200),
                             ("voila/render/alpha.ipynb", None, 200), ("voila/tree", None, 200),
                             ("voila/static/voila.js", None, 200),
                             ("kernelnb/lab/static/plain-math.js", None, 200),
                             ("kernelnb/api/status", None, 200),
                             (f"kernelnb/api/kernels/{dashboard_kernel}", None, 200),
                             ("no/such/page", None, 404),
                             ("voila/render/no_such.ipynb", None, 404),
                             ("", f"{EVIL}:{port}", 403)):
        code, _, headers = raw(port, path, host=host)
        assert code == want, (path, code)
        assert headers.get("Content-Security-Policy") == CONTENT_SECURITY_POLICY, (path, headers)
        assert "frame-ancestors 'self'" in headers["Content-Security-Policy"]
        assert headers.get("X-Content-Type-Options") == "nosniff", (path, headers)
        assert headers.get("Referrer-Policy") == "same-origin", (path, headers)


# ----------------------------------------------------------------------------- the token

TOKEN = "class-secret"

#: Routes answered without the token, each with a file it serves and why it is public: what a
#: page needs before it can log in (the login page, Voila's scripts and styles), or public code
#: that holds nothing of the server's users (the widgets' scripts, JupyterLab's themes).
PUBLIC_ROUTES = {
    "/login": ("/login", "the login page itself"),
    "/logout": (None, "logging out (jupyter_server's page)"),
    r"/voila/static/(.*)": ("/voila/static/voila.js",
                            "Voila's scripts and styles, the login page's too (a tornado "
                            "StaticFileHandler)"),
    r"/voila/templates/(.*)": ("/voila/templates/lab/static/voila-style.js",
                               "the page template's scripts and styles, as Voila's"),
    r"/voila/labextensions/(.*)": (None, "the widgets' JavaScript (jupyter_server serves "
                                         "extensions' files without authentication)"),
    r"/voila/api/themes/(.*)": (None, "JupyterLab's theme stylesheets (jupyterlab_server "
                                      "serves them without authentication)"),
}

#: What stands for a capturing group in a route's sample path, replaced by a real kernel id where
#: the route takes one (else by a plain sample value).
_GROUP = "\x00"


def _sample(pattern, groups=True):
    """A path that ``pattern`` (a tornado route) matches in full, with plain sample values: a
    letter for a character class, one repeat for ``+``/``*``, the first branch of an
    alternation; each capturing group is :data:`_GROUP` when ``groups``. The test checks that
    the router sends the path to the route's handler."""
    def walk(parsed):
        out = []
        for op, arg in parsed:
            if op is sre_constants.LITERAL:
                out.append(chr(arg))
            elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
                lo, _hi, sub = arg
                out.append(walk(sub) * max(lo, 1))
            elif op is sre_constants.SUBPATTERN:
                out.append(_GROUP if groups and arg[0] is not None else walk(arg[-1]))
            elif op is sre_constants.BRANCH:
                out.append(walk(arg[1][0]))
            elif op is sre_constants.IN:
                out.append(_one_of(arg))
            elif op is sre_constants.ANY:
                out.append("a")
            elif op is sre_constants.CATEGORY:
                out.append("1" if "DIGIT" in str(arg) else "a")
            elif op in (sre_constants.AT,):
                pass
            elif op is sre_constants.NOT_LITERAL:
                out.append("a" if chr(arg) != "a" else "b")
            else:
                raise AssertionError(f"route {pattern!r}: no sample for {op}")
        return "".join(out)
    return walk(sre_parse.parse(pattern))


def _one_of(items):
    negate = any(op is sre_constants.NEGATE for op, _ in items)
    for op, arg in items:
        if op is sre_constants.LITERAL and not negate:
            return chr(arg)
        if op is sre_constants.RANGE and not negate:
            return chr(arg[0])
        if op is sre_constants.CATEGORY and not negate:
            return "1" if "DIGIT" in str(arg) else "a"
    return "a"


def _served_routes(tmp_path, monkeypatch, argv):
    """The tornado application ``kernelnb serve`` runs with ``argv`` (made by the server's own
    start, up to listening), and its path rules: [(pattern, handler class)]."""
    import tornado.web
    import voila.app

    from kernelnb.lab.viz._figure_widget import ESM_ENV
    from kernelnb.lab.server.app import KernelnbVoila

    monkeypatch.setenv(ESM_ENV, "")
    made = {}
    monkeypatch.setattr(voila.app.Voila, "listen", lambda self: made.setdefault("app", self.app))
    app = KernelnbVoila()
    previous = signal.getsignal(signal.SIGTERM)
    try:
        app.initialize(argv)
        app.connection_dir_root = str(tmp_path)
        app.start()
    finally:
        signal.signal(signal.SIGTERM, previous)
    web_app = made["app"]
    assert isinstance(web_app, tornado.web.Application)
    rules = []
    for router in (web_app.default_router, web_app.wildcard_router):
        for host_rule in router.rules:
            for rule in getattr(host_rule.target, "rules", ()):
                regex = getattr(rule.matcher, "regex", None)
                if regex is not None:
                    rules.append((regex.pattern, rule.target))
    return web_app, list(dict.fromkeys(rules))


def _request(method, path, headers):
    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine
    return HTTPServerRequest(start_line=RequestStartLine(method, path, "HTTP/1.1"),
                             headers=HTTPHeaders(headers))


def _handler_for(web_app, path, port):
    """The handler class the application's router picks for GET ``path``."""
    request = _request("GET", path, {"Host": f"127.0.0.1:{port}"})
    return web_app.find_handler(request).handler_class


@pytest.mark.slow
def test_every_route_of_the_router_needs_the_token(tmp_path, monkeypatch, capsys):
    """Every path rule of the application ``kernelnb serve`` runs, read from its tornado router
    (a route added later is walked too), asked without the token: a redirect to the login page
    or 403 (405 for a POST to a route that takes none), but for :data:`PUBLIC_ROUTES`. A kernel id is a real kernel's (started with the
    token), so "unknown id" cannot be what keeps a route closed. GET and POST."""
    folder = tmp_path / "dashboards"
    folder.mkdir()
    write_dashboards(folder, names=("alpha",))
    with kernelnb_serve("--dashboards", str(folder), log_name="security_token",
                        env={"KERNELNB_TOKEN": TOKEN}, ready_path=f"?token={TOKEN}") as (url, _):
        port = port_of(url)
        args, extra = cli.build_parser().parse_known_args(
            ["serve", "--no-browser", "--no-fork-kernels", "--dashboards", str(folder),
             "--port", str(port), "--token", TOKEN])
        web_app, rules = _served_routes(tmp_path, monkeypatch, cli.serve_argv(args, extra))
        code, page, _ = raw(port, f"voila/render/alpha.ipynb?token={TOKEN}")
        assert code == 200
        kid = kernel_id_of(page)
        table, problems = [], []
        for pattern, handler in rules:
            pattern = pattern.removesuffix("$")
            # a real kernel's id where the route takes one, else the dashboard, else a sample
            values = ([kid] if "kernels/" in pattern else []) + ["alpha.ipynb"]
            candidates = [_sample(pattern).replace(_GROUP, value) for value in values]
            path = next((c for c in candidates if re.fullmatch(pattern, c)),
                        _sample(pattern, groups=False))
            assert re.fullmatch(pattern, path), (pattern, path)
            taken = _handler_for(web_app, path, port)
            name = handler.__name__ if taken is handler else \
                f"{handler.__name__} (shadowed by {taken.__name__})"
            if pattern in PUBLIC_ROUTES:
                example, why = PUBLIC_ROUTES[pattern]
                assert taken is handler, (pattern, taken)
                if example is not None:                  # public indeed: served without the token
                    assert re.fullmatch(pattern, example), (pattern, example)
                    code, body, _ = raw(port, example)
                    assert code == 200 and body, (example, code)
                table.append((pattern, name, example or path, "public: " + why))
                continue
            answers = []
            for method in ("GET", "POST"):
                code, body, headers = raw(port, path, method=method,
                                          body=b"{}" if method == "POST" else None)
                location = headers.get("Location", "")
                answers.append(f"{method} {code}" + (f" -> {location}" if location else ""))
                # 405: a POST to a route that takes none (a static file's) does nothing
                closed = (code == 403 or (code == 302 and location.startswith("/login?"))
                          or (method == "POST" and code == 405))
                if not closed:
                    problems.append((pattern, path, method, code, location, body[:120]))
            table.append((pattern, name, path, "; ".join(answers)))
        with capsys.disabled():
            print("\nroute | handler | asked | without the token")
            for row in table:
                print(" | ".join(row))
        assert not problems, problems
        assert len(table) >= 15, table                 # the router was read, not a stub
        gone = set(PUBLIC_ROUTES) - {p.removesuffix("$") for p, _ in rules}
        assert not gone, f"public routes the server no longer has: {gone}"


# ----------------------------------------------------------------------------- in a browser

CSP_EVENTS = """window.__kernelnbCsp = [];
document.addEventListener('securitypolicyviolation',
    e => window.__kernelnbCsp.push(e.violatedDirective + ' ' + e.blockedURI));"""


def _chromium(*args):
    import os
    import shutil
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Python Playwright is not installed")
    chromium = os.environ.get("KERNELNB_CHROMIUM") or shutil.which("chromium") \
        or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip(f"no Chromium at {chromium}")
    return sync_api, chromium, ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                *args]


@pytest.mark.slow
@pytest.mark.browser
def test_in_chromium_a_rebinding_page_is_refused_and_the_pages_break_no_rule(server):
    """Chromium resolving ``evil.example`` to 127.0.0.1 (a DNS rebinding done by the browser's
    own resolver): the page at http://evil.example:PORT/ is the 403, and a script of that page
    reading its "own" origin's status API gets 403 too. The real gallery and a dashboard, under
    the server's Content-Security-Policy, report no violation and draw their widgets; another
    site's page that frames the gallery shows nothing of it, and its link to a dashboard opens
    it (the book's "try it live" links). (Every dashboard's page is loaded
    under the same policy by tests/browser, which fails on any console error, a CSP violation
    included.)"""
    port, _ = server
    sync_api, chromium, args = _chromium(f"--host-resolver-rules=MAP {EVIL} 127.0.0.1")

    def run():
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True, args=args)
            try:
                page = browser.new_context().new_page()
                response = page.goto(f"http://{EVIL}:{port}/", timeout=60_000)
                assert response.status == 403
                assert "does not answer to the name evil.example" in page.inner_text("body")
                code = page.evaluate("fetch('/kernelnb/api/status').then(r => r.status)")
                assert code == 403
                # the server's own pages, under its policy
                ctx = browser.new_context()
                ctx.add_init_script(CSP_EVENTS)
                page = ctx.new_page()
                errors = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                for path in ("", "voila/render/alpha.ipynb"):
                    page.goto(f"http://127.0.0.1:{port}/{path}", timeout=180_000)
                    if path:
                        page.wait_for_selector(".widget-slider", timeout=120_000)
                    else:
                        page.wait_for_selector("a[href*='alpha']", timeout=60_000)
                    assert page.evaluate("window.__kernelnbCsp") == [], path
                assert not errors, errors
                # another site's page framing the gallery: one on this machine (Chromium itself
                # keeps a public site's page from framing a local address)
                other = browser.new_context().new_page()
                statuses = []
                other.on("response", lambda r: r.url.startswith(f"http://localhost:{port}/")
                         and statuses.append(r.status))
                other.goto(framing_site, timeout=60_000)
                other.wait_for_timeout(3000)
                assert len(other.frames) == 2, other.frames
                text = other.frames[1].evaluate("document.body ? document.body.innerText : ''")
                # refused by the server (a frame another site asked for: 403), and its answer
                # not shown either (frame-ancestors 'self': Chromium's "refused to connect")
                assert statuses == [403], statuses
                assert "alpha" not in text and "another website" not in text, text[:200]
                # the book's "try it live" link on that site's page opens the dashboard, in one
                # click (a top-level navigation from another site)
                with other.expect_navigation(timeout=180_000):
                    other.click("#live")
                assert other.url == f"http://localhost:{port}/voila/render/alpha.ipynb"
                other.wait_for_selector(".widget-slider", timeout=120_000)
            finally:
                browser.close()

    framing_site, stop = _site_framing(f"http://localhost:{port}/",
                                       f"http://localhost:{port}/voila/render/alpha.ipynb")
    try:
        # in a thread of its own: Playwright's sync API refuses a thread whose asyncio loop runs
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(1) as pool:
            pool.submit(run).result()
    finally:
        stop()


def _site_framing(url, link):
    """Another site on this machine (127.0.0.1, another port) whose page frames ``url`` and links
    to ``link`` (as the book's live links); its URL and a function that stops it."""
    import http.server
    import threading

    page = (f'<!DOCTYPE html><iframe id="f" src="{url}"></iframe>'
            f'<p><a id="live" href="{link}">Try it live</a></p>').encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()

    def stop():
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)
    return f"http://127.0.0.1:{httpd.server_port}/", stop
