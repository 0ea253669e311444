"""What keeps other websites away from ``kernelnb serve``: the Host, the fetch's site, the headers.

``kernelnb serve`` listens on 127.0.0.1 without a token by default, so that the book's "try it
live" links open with one click; the loopback binding is its protection. A web page the student
visits can still reach that address through the student's browser:

* **DNS rebinding.** A site whose name is made to resolve to 127.0.0.1 after its page has loaded
  sends its requests to the student's server with its own name as ``Host``, and reads the
  answers as same-origin (its websockets' ``Origin`` matches that ``Host`` too). Voila's
  standalone settings turn jupyter_server's Host check off (``allow_remote_access=True``), so
  without this module the gallery, a dashboard (its kernel started) and its kernel websocket
  answered such a request. :class:`HostPolicy` says which ``Host`` names the server answers to:
  the loopback names and addresses, the address it listens on, and the names given with
  ``kernelnb serve --allow-host`` (a class's server, a reverse proxy). jupyter_server's own check
  (``allow_remote_access=False`` with ``local_hostnames``) is configured the same way where it
  can say it (a loopback binding: it accepts no IP address but a loopback one), and kernelnb's
  check, a rule in front of every route of the tornado application (:func:`protect`), answers
  every other request with a plain 403 (:class:`RefusedHandler`) before any handler runs, so no
  page is rendered and no kernel started: pages, APIs, static files and websockets alike.
* **Requests from another site's page** (an ``<img>``, an ``<iframe>``, a ``fetch``): they carry
  the server's real ``Host`` and cannot read the answer, but a dashboard's render starts its
  kernel all the same. A browser says where a request comes from (``Sec-Fetch-Site``, Fetch
  Metadata, https://www.w3.org/TR/fetch-metadata/); a request that another site's page made is
  refused unless it is a top-level navigation (``Sec-Fetch-Mode: navigate``, a GET to a
  document): the book's links, which open the page in the tab, keep working. A browser that
  sends no such header (an old one, a script) is not refused for it.
* **The page itself.** Every answer gets the headers of :func:`security_headers`: a
  Content-Security-Policy under which a page loads and sends nothing to another host, is framed
  by no other site (``frame-ancestors 'self'``), and ``X-Content-Type-Options: nosniff``.
  jupyter_server's handlers take them from the application's public ``headers`` setting; a
  response from any other handler (Voila's static files, :class:`RefusedHandler`) gets them from
  :class:`SecurityHeaders`, an output transform of the application.

The websocket's ``Origin`` is jupyter_server's check (``WebSocketMixin.check_origin``: the
``Origin``'s host must be the request's ``Host``); with the ``Host`` checked first, a websocket
opened from a page of another site is refused (403).

Under JupyterHub and on Binder kernelnb runs as a Jupyter server extension and adds no Host or
site check: their proxies forward a ``Host`` that the hub or Binder chose, and every request there
needs the hub's or Binder's token or cookie. The gallery's and Voila's pages there get kernelnb's
policy all the same (:func:`protect_extension`), with the server's own ``frame-ancestors``
(JupyterHub's single-user server says ``'none'``: the hub frames no user page); JupyterLab's own
pages keep the server's headers.
"""
from __future__ import annotations

import ipaddress
import logging
import re
import socket

from tornado import routing, web

from .. import i18n
from ..i18n import N_

__all__ = ["LOOPBACK_NAMES", "ANY_HOST", "HostPolicy", "split_host", "CONTENT_SECURITY_POLICY",
           "security_headers", "tornado_settings", "SecurityHeaders", "RefusedHandler",
           "ForeignRequestMatcher", "protect", "protect_extension", "extension_policy",
           "foreign_fetch"]

log = logging.getLogger(__name__)

#: The loopback interface's names a browser may use for the server.
LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")

#: ``--allow-host`` value that turns the Host check off (a proxy in front that checks it).
ANY_HOST = "*"

#: The Content-Security-Policy of every page ``kernelnb serve`` sends. Nothing from another host:
#: every fetch directive is ``'self'`` plus what the pages were seen to need, loading the gallery,
#: every dashboard, the folder listing and the error pages in Chromium with each allowance below
#: left out in turn (a report-only policy) and no violation reported with all of them:
#:
#: * ``script-src 'unsafe-inline'``: Voila's page template starts the application from inline
#:   scripts (``voila_setup.macro.html.j2``, its ``index.html.j2``) and kernelnb's page gives the
#:   watch texts in one (``templates/voila/index.html.j2``).
#: * ``script-src 'unsafe-eval'``: the plotly bundle kernelnb serves
#:   (:mod:`kernelnb.lab.server._plotly_bundle`) defines the trace types it registers on demand
#:   with ``eval``.
#: * ``script-src blob:``: anywidget (the dashboards' figures) imports each widget's module from a
#:   ``blob:`` URL made in the page.
#: * ``style-src 'unsafe-inline'``: JupyterLab's widgets and plotly set element styles and add
#:   ``<style>`` elements at run time.
#: * ``img-src data: blob:``: the gallery's and the widgets' icons are ``data:`` images; plotly's
#:   mode bar exports a figure ("download as PNG") through an image of the page's own making
#:   (``data:``/``blob:``).
#: * ``connect-src 'self'``: the page's API requests and its kernel websocket (CSP 3: ``'self'``
#:   also matches ``ws:``/``wss:`` to the page's own host).
#: * ``frame-ancestors 'self'``: no other site frames a page (clickjacking); ``object-src``,
#:   ``base-uri`` and ``form-action`` close the remaining ways to load or send elsewhere.
#:
#: Neither ``'unsafe-inline'`` nor ``'unsafe-eval'`` lets a page load code from another host or
#: send anything to one.
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
])

_REFUSED_HOST = N_("Forbidden: this kernelnb server does not answer to the name {host}. A page "
                   "of another website may have tried to reach it through your browser. If "
                   "this name is the server's own (a class's server, a reverse proxy), start "
                   "the server with: kernelnb serve --allow-host {host}")
_REFUSED_FETCH = N_("Forbidden: a page of another website asked this kernelnb server for "
                    "{path}. Open the server's pages yourself, or follow a link to them.")


def split_host(header):
    """``(name, port)`` of a ``Host`` header: the name in lower case without brackets or a
    trailing dot, the port a string ('' when none). ``[::1]:8866`` -> ``('::1', '8866')``."""
    header = (header or "").strip().lower()
    match = re.fullmatch(r"\[([0-9a-f:.]+(?:%[\w.-]+)?)\](?::(\d*))?", header)
    if match:
        return match.group(1), match.group(2) or ""
    name, sep, port = header.rpartition(":")
    if not sep or not port.isdigit() or ":" in name:     # no port, or an IPv6 address bare
        name, port = header, ""
    return name.rstrip("."), port


def _ip(name):
    try:
        return ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return None


class HostPolicy:
    """Which ``Host`` headers a ``kernelnb serve`` answers.

    Parameters
    ----------
    bound : str
        The address the server listens on (``--host``): an IP address, a name, or '' / 0.0.0.0
        / :: for every interface.
    names : iterable of str
        More names (``--allow-host``): the names of a class's server or of a reverse proxy;
        :data:`ANY_HOST` turns the check off.

    Notes
    -----
    A name is answered when it is a loopback name (:data:`LOOPBACK_NAMES`), the ``bound`` name,
    one of ``names`` or, for a server that listens beyond the loopback interface, the server's
    own host name (``socket.gethostname()``). An IP address is answered when it is a loopback
    address, the ``bound`` one, one of ``names``, or any one for a server listening on every
    interface: a browser sends an IP address as ``Host`` only for a page that was loaded from that address, which no rebinding produces. The port is
    not checked: an SSH tunnel or a proxy in front changes it, and a rebinding page's requests
    are told from the server's own by their name alone.
    """

    def __init__(self, bound="127.0.0.1", names=()):
        names = [str(n).strip() for n in names if str(n).strip()]
        self.any = ANY_HOST in names
        bound_name, _ = split_host(bound if ":" not in bound or bound.startswith("[")
                                   else f"[{bound}]")
        self.bound_ip = _ip(bound_name)
        self.every_interface = bound_name in ("", "0.0.0.0", "::")
        loopback = (self.bound_ip is not None and self.bound_ip.is_loopback) or \
            bound_name in LOOPBACK_NAMES
        allowed = set(LOOPBACK_NAMES)
        if self.bound_ip is None and bound_name:
            allowed.add(bound_name)
        if not loopback:
            for name in (socket.gethostname(), socket.getfqdn()):
                if name:
                    allowed.add(name.lower().rstrip("."))
        given = [split_host(n if ":" not in n or n.startswith("[") else f"[{n}]")[0]
                 for n in names if n != ANY_HOST]
        self.ips = frozenset(ip for ip in map(_ip, given) if ip is not None)
        allowed.update(n for n in given if _ip(n) is None)
        self.names = frozenset(allowed)
        self.loopback = loopback

    def allows(self, header) -> bool:
        """Whether a request with this ``Host`` header is answered (no header: yes, tornado's
        default host is 127.0.0.1; a browser always sends one)."""
        if self.any or header is None:
            return True
        name, _ = split_host(header)
        ip = _ip(name)
        if ip is None:
            return name in self.names
        return ip.is_loopback or ip == self.bound_ip or ip in self.ips or self.every_interface

    def local_hostnames(self) -> list:
        """The names for jupyter_server's own check (``local_hostnames``)."""
        return sorted(self.names)


def foreign_fetch(request) -> bool:
    """Whether ``request`` was made by a page of another site other than by a top-level
    navigation (Fetch Metadata's ``Sec-Fetch-Site``, ``Sec-Fetch-Mode`` and ``Sec-Fetch-Dest``).
    """
    site = request.headers.get("Sec-Fetch-Site", "").lower()
    if site not in ("cross-site", "same-site"):        # same-origin, none (typed), or unknown
        return False
    navigation = (request.headers.get("Sec-Fetch-Mode", "").lower() == "navigate"
                  and request.headers.get("Sec-Fetch-Dest", "document").lower() == "document"
                  and request.method in ("GET", "HEAD"))
    return not navigation


def security_headers() -> dict:
    """The headers every answer of ``kernelnb serve`` carries: ``Content-Security-Policy``
    (:data:`CONTENT_SECURITY_POLICY`), ``X-Content-Type-Options: nosniff`` and
    ``Referrer-Policy: same-origin`` (a URL with ``?token=`` is not sent to another host)."""
    return {"Content-Security-Policy": CONTENT_SECURITY_POLICY,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin"}


def tornado_settings(policy: HostPolicy, given=None) -> dict:
    """jupyter_server's public settings for ``policy`` and :func:`security_headers`.

    ``headers`` (every jupyter_server handler sends them, the CSP included), and its Host check:
    on (``allow_remote_access=False``, ``local_hostnames``) for a loopback binding, where it
    says the same as ``policy``; off otherwise, or when ``policy`` allows an IP address (it
    accepts no IP address but a loopback one),
    where kernelnb's rule (:func:`protect`) checks alone. ``given`` (the user's
    ``tornado_settings``) wins, its ``headers`` merged over these.
    """
    given = dict(given or {})
    headers = {**security_headers(), **dict(given.pop("headers", None) or {})}
    settings = {"headers": headers,
                "allow_remote_access": policy.any or not policy.loopback or bool(policy.ips),
                "local_hostnames": policy.local_hostnames()}
    return {**settings, **given}


class SecurityHeaders(web.OutputTransform):
    """Puts :func:`security_headers` on an answer that does not carry them (a handler that is not
    jupyter_server's, e.g. Voila's static files, or :class:`RefusedHandler`)."""

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        for name, value in security_headers().items():
            if name not in headers:
                headers[name] = value
        return status_code, headers, chunk


class RefusedHandler(web.RequestHandler):
    """The answer to a request :class:`ForeignRequestMatcher` refuses: 403, a plain text in the
    reader's language (``Accept-Language``), whatever the method or the route (a websocket's
    upgrade included)."""

    def initialize(self, why):
        self.why = why

    def prepare(self):
        lang = i18n.choose(None, self.request.headers.get("Accept-Language"))
        if self.why == "host":
            host = split_host(self.request.headers.get("Host"))[0][:100]
            log.warning("kernelnb: refused %s %s for Host %r (not a name this server answers "
                        "to; kernelnb serve --allow-host NAME adds one)", self.request.method,
                        self.request.path[:200], self.request.headers.get("Host", "")[:100])
            text = i18n.translate(_REFUSED_HOST, lang).replace("{host}", host)
        else:
            log.warning("kernelnb: refused %s %s asked by a page of another site (Sec-Fetch-Site "
                        "%s, Sec-Fetch-Mode %s)", self.request.method, self.request.path[:200],
                        self.request.headers.get("Sec-Fetch-Site"),
                        self.request.headers.get("Sec-Fetch-Mode"))
            text = i18n.translate(_REFUSED_FETCH, lang).replace("{path}",
                                                               self.request.path[:200])
        self.set_status(403)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.set_header("Vary", "Accept-Language")
        self.finish(text + "\n")


class ForeignRequestMatcher(routing.Matcher):
    """Matches the requests ``kernelnb serve`` refuses: a ``Host`` that ``policy`` does not
    answer to (``why='host'``), or a fetch that a page of another site made
    (:func:`foreign_fetch`, ``why='site'``)."""

    def __init__(self, policy: HostPolicy, why: str):
        self.policy, self.why = policy, why

    def match(self, request):
        if self.why == "host":
            refused = not self.policy.allows(request.headers.get("Host"))
        else:
            refused = foreign_fetch(request)
        return {} if refused else None


def protect(app: web.Application, policy: HostPolicy) -> None:
    """Put the checks in front of every route of ``app`` (tornado's routing: the first rules of
    its default router) and the headers on every answer (:class:`SecurityHeaders`). Done once;
    a rule added later by ``add_handlers`` goes after them."""
    if any(isinstance(r.matcher, ForeignRequestMatcher) for r in app.default_router.rules):
        return
    app.default_router.rules[0:0] = [
        routing.Rule(ForeignRequestMatcher(policy, why), RefusedHandler, {"why": why})
        for why in ("host", "site")]
    app.add_transform(SecurityHeaders)


def _frame_ancestors(policy):
    """The ``frame-ancestors`` directive of a policy, or None."""
    for directive in (policy or "").split(";"):
        if directive.strip().startswith("frame-ancestors"):
            return directive.strip()
    return None


def extension_policy(settings) -> str:
    """:data:`CONTENT_SECURITY_POLICY` with the ``frame-ancestors`` of a Jupyter server's
    ``headers`` setting, if its policy names one (JupyterHub's single-user server: ``'none'``)."""
    given = _frame_ancestors((settings.get("headers") or {}).get("Content-Security-Policy"))
    if not given:
        return CONTENT_SECURITY_POLICY
    return CONTENT_SECURITY_POLICY.replace(_frame_ancestors(CONTENT_SECURITY_POLICY), given)


class _ExtensionHeaders(web.OutputTransform):
    """kernelnb's policy on the answers under the prefixes of :func:`protect_extension` (read
    from the server's settings at each answer: an extension may set its headers after kernelnb's
    is loaded)."""

    prefixes: tuple = ()
    settings: dict = {}
    kernelnb_extension = True

    def __init__(self, request):
        super().__init__(request)
        self.ours = request.path.startswith(self.prefixes)

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        if self.ours:
            headers["Content-Security-Policy"] = extension_policy(self.settings)
            headers.setdefault("X-Content-Type-Options", "nosniff")
        return status_code, headers, chunk


def protect_extension(web_app, base_url) -> bool:
    """Give the answers under ``<base_url>kernelnb/`` and ``<base_url>voila/`` (the gallery,
    kernelnb's files, Voila's pages and files) of a Jupyter server :func:`extension_policy`.
    Done once per application: whether it was done now."""
    if any(getattr(t, "kernelnb_extension", False) for t in web_app.transforms):
        return False
    base = base_url.rstrip("/")
    web_app.add_transform(type("ExtensionHeaders", (_ExtensionHeaders,), {
        "prefixes": (f"{base}/kernelnb/", f"{base}/voila/"), "settings": web_app.settings}))
    return True
