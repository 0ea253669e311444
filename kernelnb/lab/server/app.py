"""Serving the dashboards: Voila with kernelnb's gallery as its landing page.

Two ways in:

* :class:`KernelnbVoila`, the standalone Voila application that ``kernelnb serve`` runs: Voila's
  own handlers (``/voila/render/<name>.ipynb``, kernels, static assets) plus the gallery at ``/``,
  kernelnb's static files at ``/kernelnb/lab/static/``, ``/kernelnb/api/status`` and
  ``/kernelnb/api/kernels/<kernel_id>`` (what became of a page's kernel; JSON). It is
  hardened for a class: kernel websockets check every frame and speak the v1 protocol only
  (:mod:`kernelnb.lab.server._websocket`), kernels are capped, culled and optionally preheated
  (:mod:`kernelnb.lab.server._kernelpool`), a render past the cap gets HTTP 503, and no page refers to
  another host.
* A Jupyter server extension (``jupyter server extension enable kernelnb.lab.server``, done by
  ``binder/postBuild``): inside JupyterLab or Binder the gallery is at ``/kernelnb/`` and links to
  the Voila server extension's ``/voila/render/dashboards/<name>.ipynb``. The extension also puts
  the checked kernel websocket connection in place when the server uses jupyter_server's own,
  serves ``/kernelnb/api/status`` and ``/kernelnb/api/kernels/<kernel_id>`` and gives Voila's render
  handler the "class is full" page; with
  :class:`kernelnb.lab.server._kernelpool.BudgetKernelManager` as the server's kernel manager, a
  JupyterHub student's server is held to the same budget (see :mod:`kernelnb.lab.hub`).

Every page speaks the reader's language (:mod:`kernelnb.lab.i18n`): the gallery, the "class is
full" page and the error pages choose it from the request (``?lang=``, then ``Accept-Language``,
then the server's default, ``KERNELNB_LANG``); a dashboard page's kernel chooses its own the same
way, and the page's message when its kernel is gone (``kernelnb-watch.js``) is given in every
language (:func:`watch_texts`), the page picking the one its kernel speaks.
"""
from __future__ import annotations

import functools
import html
import json
import logging
import os
import re
from pathlib import Path

import tornado.ioloop
from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.base.handlers import FileFindHandler, JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web
from nbformat.sign import NotebookNotary
from traitlets import Bool, List, Unicode
from traitlets.utils.importstring import import_item
from voila.app import Voila
from voila.tornado.handler import TornadoVoilaHandler
from voila.tornado.kernel_websocket_handler import VoilaKernelWebsocketHandler
from voila.tornado.treehandler import TornadoVoilaTreeHandler

from ._forkserver import ForkServer, set_fork_server
from ._forkserver import supported as fork_supported
from ._kernelpool import BudgetKernelManager, ClassFull, PoolKeeper
from ._websocket import (MAX_MESSAGE_BYTES, HardenedVoilaWebsocketHandler,
                         hardened_connection_class)
from .. import i18n
from ..i18n import N_
from . import _security
from .config import is_loopback as _is_loopback
from .gallery import dashboards_dir, render_gallery, static_dir

__all__ = ["KernelnbVoila", "FULL_PAGE", "full_page", "request_language", "watch_texts",
           "WATCH_TEXTS", "dashboard_markdown"]

#: The page a visitor gets when the server runs as many kernels as it may (HTTP 503); its texts
#: are messages, written in the visitor's language by :func:`full_page`.
FULL_PAGE = """<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
<link rel="icon" href="data:,">
<meta http-equiv="refresh" content="60">
<style>body{{font-family:sans-serif;max-width:40em;margin:4em auto;color:#222}}
h1{{font-size:1.6em}} p{{line-height:1.5}}</style></head>
<body><h1>{heading}</h1>
<p>{text}</p>
<p><a href="{gallery}">{back}</a></p></body></html>
"""
_FULL_TITLE = N_("The class is full")
_FULL_HEADING = N_("The class is full — try again in a minute")
_FULL_TEXT = N_("This kernelnb server already runs {running} dashboards, as many as it may "
                "({option}). Dashboards that nobody uses are closed after a while; this page "
                "reloads itself in a minute.")
_BACK = N_("Back to the gallery")
#: HTTP reasons the error pages show (``error.html``: ``tr(status_message)``).
HTTP_REASONS = (N_("Bad Request"), N_("Forbidden"), N_("Not Found"), N_("Method Not Allowed"),
                N_("Internal Server Error"), N_("Service Unavailable"))

#: The message of a dashboard page whose kernel is gone (``static/kernelnb-watch.js``, which
#: holds the same English texts as fallbacks), by key; ``{n}`` is a duration or a limit.
WATCH_TEXTS = {
    # kernelnb-a11y.js: the page's skip link to the dashboard
    "skip": N_("Skip to the dashboard"),
    "unreachable": N_("The server is not answering: it may have been restarted, or the "
                      "connection to it is lost."),
    "restarted": N_("The server was restarted since this page was opened: this dashboard's "
                    "session ended with it."),
    "culled_idle_n": N_("This dashboard stopped after {n} without use, to free the server for "
                        "others."),
    "culled_idle": N_("This dashboard stopped after a while without use, to free the server for "
                      "others."),
    "culled_unconnected": N_("This dashboard stopped because its page was closed or "
                             "unreachable for a while."),
    "memory": N_("This dashboard stopped: a setting needed more memory than a dashboard may use "
                 "({n} MB)."),
    "died": N_("This dashboard's Python process stopped unexpectedly (it may have run out of "
               "memory, or been stopped on the server)."),
    "shutdown": N_("This dashboard was shut down on the server."),
    "lost": N_("The connection to this dashboard was lost."),
    "hint": N_("Your settings are kept: bringing it back opens it where you left it."),
    "hint_memory": N_("It comes back at its defaults, not at the setting that needed the "
                      "memory."),
    "button": N_("Bring the dashboard back"),
    "second": N_("second"), "seconds": N_("seconds"),
    "minute": N_("minute"), "minutes": N_("minutes"),
}


def watch_texts(default=None):
    """The texts of ``kernelnb-watch.js`` in every language, for the page template.

    Parameters
    ----------
    default : str or None
        The server's default language (None: :func:`kernelnb.lab.i18n.default_language`).

    Returns
    -------
    dict
        ``{"default": lang, lang: {key: text}}`` for every language of
        :data:`kernelnb.lab.i18n.LANGUAGES`; the page takes the language its kernel speaks.
    """
    out = {"default": i18n.supported(default) or i18n.default_language()}
    for lang in i18n.LANGUAGES:
        out[lang] = {key: i18n.translate(text, lang) for key, text in WATCH_TEXTS.items()}
    return out


def dashboard_markdown(directory):
    """The Markdown cells of the notebooks in ``directory`` in every language but English.

    Voila renders a notebook's Markdown (the dashboard's title and text) into the page before the
    kernel speaks; kernelnb's page template (``templates/voila/index.html.j2``) puts each
    language's version beside the English, and the page shows the one its kernel speaks.

    Parameters
    ----------
    directory : path-like
        The dashboards' folder.

    Returns
    -------
    dict
        ``{lang: {cell source: its Markdown in lang}}`` for the cells a catalog translates
        (:func:`kernelnb.lab.i18n.translate_markdown`).
    """
    sources = []
    for path in sorted(Path(directory).glob("*.ipynb")):
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError, AttributeError):
            continue
        for cell in cells:
            if isinstance(cell, dict) and cell.get("cell_type") == "markdown":
                src = cell.get("source", "")
                sources.append("".join(src) if isinstance(src, list) else str(src))
    out = {}
    for lang in i18n.LANGUAGES:
        if lang == i18n.SOURCE_LANGUAGE:
            continue
        table = {src: i18n.translate_markdown(src, lang) for src in sources}
        out[lang] = {src: text for src, text in table.items() if text != src.strip()}
    return out


def request_language(handler):
    """The language of the page a request asks for.

    ``?lang=``, else ``Accept-Language``, else the server's default (a ``lang`` naming no
    language of the lab gives English).

    Parameters
    ----------
    handler : tornado.web.RequestHandler
        The request's handler.

    Returns
    -------
    str
        One of :data:`kernelnb.lab.i18n.LANGUAGES`.
    """
    asked = handler.get_query_arguments("lang")
    return i18n.choose(asked[-1] if asked else None,
                       handler.request.headers.get("Accept-Language"))


def full_page(running, limit, gallery, lang):
    """The "class is full" page (:data:`FULL_PAGE`) in ``lang``.

    Parameters
    ----------
    running : int or str
        Kernels running.
    limit : int or str
        The kernel budget (``--max-kernels``).
    gallery : str
        The gallery's URL.
    lang : str
        One of :data:`kernelnb.lab.i18n.LANGUAGES`.

    Returns
    -------
    str
        The page's HTML.
    """
    def tr(message):
        return html.escape(i18n.translate(message, lang))
    option = f"<code>--max-kernels {html.escape(str(limit))}</code>"
    return FULL_PAGE.format(
        lang=lang, title=tr(_FULL_TITLE), heading=tr(_FULL_HEADING), back=tr(_BACK),
        text=tr(_FULL_TEXT).replace("{running}", html.escape(str(running))).replace(
            "{option}", option),
        gallery=html.escape(gallery))

_TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


class _Speaking:
    """A handler whose templates speak the request's language: ``kernelnb_lang`` and
    ``kernelnb_gettext`` in their namespace (kernelnb's error pages use them through their
    ``tr`` macro)."""

    @property
    def template_namespace(self):
        ns = dict(super().template_namespace)
        lang = request_language(self)
        ns.update(kernelnb_lang=lang,
                  kernelnb_gettext=lambda message: i18n.translate(message, lang))
        return ns


class _KernelnbTemplates(_Speaking):
    """Error pages of a plain Jupyter handler from kernelnb's templates (``404.html``,
    ``error.html``: load nothing from another host), as Voila's own handlers already get them."""

    def get_template(self, name):
        env = self.settings.get("voila_jinja2_env")
        return env.get_template(name) if env is not None else super().get_template(name)


class GalleryHandler(_KernelnbTemplates, JupyterHandler):
    """The gallery page: one card per dashboard found in ``directory``."""

    def initialize(self, directory, render_prefix, static_prefix):
        self.directory = directory
        self.render_prefix = render_prefix
        self.static_prefix = static_prefix

    @web.authenticated
    def get(self):
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Vary", "Accept-Language")
        asked = self.get_query_arguments("lang")
        self.finish(render_gallery(self.directory, self.render_prefix, self.static_prefix,
                                   lang=request_language(self), keep_lang=bool(asked)))


class _StaticHandler(_KernelnbTemplates, JupyterHandler):
    """kernelnb's thumbnails (``<name>.png``) and the pages' plain typesetter
    (:data:`PLAIN_MATH_SCRIPT`), behind the same authentication as the pages."""

    _NAME = re.compile(r"^[A-Za-z0-9_-]{1,80}\.(png|js)$")
    _TYPES = {"png": "image/png", "js": "text/javascript; charset=utf-8"}

    def initialize(self, path):
        self.root = Path(path)

    @web.authenticated
    def get(self, name):
        match = self._NAME.match(name or "")
        if not match or not (self.root / name).is_file():
            raise web.HTTPError(404)
        self.set_header("Content-Type", self._TYPES[match.group(1)])
        self.set_header("Cache-Control", "max-age=600")
        self.finish((self.root / name).read_bytes())


#: The script a page whose notebook writes no TeX is given as its MathJax (in kernelnb's static
#: folder): it leaves text as written, so the page loads no MathJax (see :func:`plain_math_hook`).
PLAIN_MATH_SCRIPT = "plain-math.js"

#: What marks TeX in a cell's source: a dollar sign, ``\(``, ``\[`` or ``\begin{``.
_TEX = re.compile(r"\$|\\[(\[]|\\begin\{")


@functools.lru_cache(maxsize=256)
def _notebook_writes_tex(path: str, mtime_ns: int, size: int) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            cells = json.load(f).get("cells", [])
        # nbformat stores a cell's source as one string or as a list of lines
        sources = [c.get("source", "") for c in cells]
        sources = ["".join(src) if isinstance(src, list) else str(src) for src in sources]
    except (OSError, ValueError, AttributeError, TypeError):
        return True                      # unreadable here: the page keeps Voila's typesetter
    return any(_TEX.search(src) for src in sources)


def notebook_writes_tex(root_dir, notebook_path) -> bool:
    """True when a cell of the notebook (``notebook_path``, relative to ``root_dir`` or absolute
    inside it) holds TeX, or when it is not a notebook file that can be read inside ``root_dir``."""
    root = Path(root_dir).resolve()
    path = Path(notebook_path or "")
    path = (path if path.is_absolute() else root / path).resolve()
    if path.suffix != ".ipynb" or root not in path.parents:
        return True
    try:
        st = path.stat()
    except OSError:
        return True
    return _notebook_writes_tex(str(path), st.st_mtime_ns, st.st_size)


def plain_math_hook(root_dir, then=None):
    """A ``VoilaConfiguration.page_config_hook``: a page whose notebook writes no TeX (no cell
    holds ``$``, ``\\(``, ``\\[`` or ``\\begin{``) gets :data:`PLAIN_MATH_SCRIPT` as its MathJax.

    Voila's page otherwise loads the MathJax 3 it bundles (16 scripts, 0.9 MB) and runs it at
    start, whatever the notebook holds; the dashboards write their math in Unicode. A page with
    TeX keeps Voila's typesetter. ``then`` (a hook configured by the user) runs after this one.
    """
    def hook(page_config, base_url, settings, log, voila_configuration, notebook_path):
        if not notebook_writes_tex(root_dir, notebook_path):
            page_config["fullMathjaxUrl"] = url_path_join(base_url, "kernelnb/lab/static",
                                                          PLAIN_MATH_SCRIPT)
        if then is not None:
            page_config = then(page_config, base_url=base_url, settings=settings, log=log,
                               voila_configuration=voila_configuration,
                               notebook_path=notebook_path)
        return page_config

    hook.kernelnb_plain_math = True
    return hook


def _use_plain_math(voila_configuration, root_dir) -> bool:
    """Put :func:`plain_math_hook` in ``voila_configuration`` (before any hook given there), once;
    whether it was added."""
    given = voila_configuration.page_config_hook
    if getattr(given, "kernelnb_plain_math", False):
        return False
    voila_configuration.page_config_hook = plain_math_hook(root_dir, then=given)
    return True


class PlotlyBundleHandler(_KernelnbTemplates, JupyterHandler):
    """plotly's widget bundle at ``kernelnb/esm/plotly-<hash>.classic.js`` (see :mod:`kernelnb.lab.server._plotly_bundle`).

    The name carries the content hash, so the browser keeps it; the dashboards' figures load it
    instead of receiving it through the kernel once per figure. It is plotly's ES module rewritten
    as a classic script (whose compiled code Chromium keeps), or the module itself
    (``plotly-<hash>.js``) when plotly's bundle has a shape the rewrite refuses.
    """

    _CACHE_CONTROL = "private, max-age=31536000, immutable"

    def _send_bundle(self):
        from ._plotly_bundle import plotly_bundle
        self.set_header("Content-Type", "text/javascript; charset=utf-8")
        self.set_header("Cache-Control", self._CACHE_CONTROL)
        self.finish(plotly_bundle().body)

    @web.authenticated
    def get(self):
        self._send_bundle()


class _PublicPlotlyBundleHandler(PlotlyBundleHandler):
    """The bundle without authentication, in a Jupyter server (the extension: JupyterHub, Binder).

    A figure may import it with ``import()`` (the module, when plotly's bundle cannot be served as
    a classic script), a script's fetch (``Sec-Fetch-Mode: cors``), which JupyterHub's single-user
    server answers only with an XSRF token that an import cannot carry: the figure would stay
    blank. The bundle is plotly's public code, nothing of the user's, and is served as Voila's own
    static files are.
    """

    _CACHE_CONTROL = "public, max-age=31536000, immutable"

    @allow_unauthenticated
    def get(self):
        self._send_bundle()


class LabExtensionFileHandler(FileFindHandler):
    """Voila's widget extensions' files (``/voila/labextensions/``), kept by the browser when their
    name carries their content's hash.

    Voila serves every file there with ``Cache-Control: no-cache``, so a returning student's
    browser asked again for each of a page's ~20 extension files (a 304 each, in three rounds,
    the last one after the widgets' state had arrived). The extensions' builds name their
    scripts by a hash of their content (``remoteEntry.<hash>.js``, ``<chunk>.<hash>.js``): such
    a file never changes under its name, and is served as immutable. Any other file is served as
    Voila serves it.
    """

    #: A script named by the hash of its content, as webpack names the extensions' builds.
    HASHED = re.compile(r"/[\w-]+\.[0-9a-f]{8,}\.js\Z")

    def set_headers(self):
        super().set_headers()
        if self.HASHED.search(self.request.path):
            self.set_header("Cache-Control", "public, max-age=31536000, immutable")


#: Where Voila serves its widget extensions' files (a regular expression, as tornado's routes).
_LABEXTENSIONS_ROUTE = re.compile(r"/voila/labextensions/\(\.\*\)\$?\Z")


def _cache_hashed_labextensions(web_app) -> int:
    """Serve Voila's ``/voila/labextensions/`` route with :class:`LabExtensionFileHandler` in a
    running Jupyter server (Voila's server extension); returns how many routes were changed."""
    return _replace_handler_classes(web_app, {FileFindHandler: LabExtensionFileHandler},
                                    route=_LABEXTENSIONS_ROUTE)


def _announce_plotly_bundle(log):
    """Tell the kernels started from now on where the bundle is; its route (relative). ``log``
    (None: nothing said) says when plotly's bundle is served as a module, or registering all its
    trace types at load (see :func:`kernelnb.lab.server._plotly_bundle.plotly_bundle`)."""
    from ._plotly_bundle import ESM_ENV, plotly_bundle
    bundle = plotly_bundle()
    if log is not None and not bundle.classic:
        log.warning("kernelnb: plotly's widget bundle is served as an ES module (its compiled code "
                    "is not cached by the browser): it cannot be rewritten as a classic script: "
                    "%s", bundle.reason)
    if log is not None and bundle.deferral_reason is not None:
        log.warning("kernelnb: plotly's widget bundle registers all its trace types when a page "
                    "loads it (about 1 s more of a first visit): %s", bundle.deferral_reason)
    os.environ[ESM_ENV] = bundle.route
    return bundle.route


def _add_template_resource(config, key, value):
    """Add ``key: value`` to ``VoilaConfiguration.resources`` (what Voila passes to its page
    template as ``resources``), keeping what the user configured there."""
    from voila.configuration import VoilaConfiguration
    given = config.VoilaConfiguration.get("resources", {})
    if "DeferredConfigString" in type(given).__name__:     # given on the command line
        given = VoilaConfiguration.resources.from_string(given)
    if not isinstance(given, dict):
        given = given.to_dict()
    config.VoilaConfiguration.resources = {**given, key: value}


class StatusHandler(_KernelnbTemplates, JupyterHandler):
    """``GET /kernelnb/api/status``: kernels running, the limit, preheated kernels ready (JSON)."""

    @web.authenticated
    def get(self):
        km = self.kernel_manager
        status = km.status() if hasattr(km, "status") else {
            "kernels": len(km.list_kernel_ids()), "max_kernels": None, "preheated_ready": 0}
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(status))


class KernelFateHandler(_KernelnbTemplates, JupyterHandler):
    """``GET /kernelnb/api/kernels/<kernel_id>``: what became of a page's kernel (JSON).

    ``{"kernel_id", "state": "alive" | "ended" | "unknown", "reason", "idle_seconds",
    "ended_seconds_ago", "limit_mb", "memory_mb"}``, the reason of an ended kernel being one of
    :data:`kernelnb.lab.server._kernelpool.END_REASONS` (see
    :meth:`kernelnb.lab.server._kernelpool.BudgetKernelManager.kernel_fate`). A page whose kernel is gone
    asks it what to tell the student. Behind the same authentication as the pages; an id that is
    not a kernel id's form is refused (400) before it is looked up.
    """

    @web.authenticated
    def get(self, kernel_id):
        from ._kernelpool import is_kernel_id
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        if not is_kernel_id(kernel_id):
            self.set_status(400)
            self.finish(json.dumps({"error": "kernel_id must be a kernel's id (a UUID), got "
                                             f"{kernel_id[:80]!r}"}))
            return
        km = self.kernel_manager
        if hasattr(km, "kernel_fate"):
            fate = km.kernel_fate(kernel_id)
        else:                       # another kernel manager: alive or not, no more is known
            fate = {"kernel_id": kernel_id, "state": "alive" if kernel_id in km else "unknown",
                    "reason": None, "idle_seconds": None, "ended_seconds_ago": None,
                    "limit_mb": None, "memory_mb": None}
        self.finish(json.dumps(fate))


#: The route of :class:`KernelFateHandler`, under the server's base URL.
KERNEL_FATE_ROUTE = r"kernelnb/api/kernels/([^/]*)"


class RenderNotary(NotebookNotary):
    """The notary of the notebooks Voila renders: every notebook is trusted.

    A notebook's signature decides whether Jupyter shows the HTML and JavaScript outputs stored in
    it; Voila runs the notebook afresh and marks every output of that run trusted itself
    (``voila.exporter``), so the check decided nothing and only logged "Notebook ... is not
    trusted" for every page opened (and kept a signature database on the teacher's disk).
    """

    def check_signature(self, nb):
        return True


class _NoPingTimeoutNotice(logging.Filter):
    """Drops tornado's "The websocket_ping_timeout (90000) cannot be longer than the
    websocket_ping_interval (30000)" notice.

    jupyter_server pings its websockets itself (every 30 s, a connection closed after 90 s
    without an answer) and gives tornado the same numbers in milliseconds where tornado reads
    seconds; tornado then complains of a timeout longer than the interval and clamps its own
    pinger, which at 30,000 s never runs. Nothing is wrong for kernelnb's pages, and giving the
    timeout as 30 s instead (to silence it) closed the kernel connections of busy pages on a
    loaded machine: the notice is dropped instead.
    """

    def filter(self, record):
        return not str(record.msg).startswith("The websocket_ping_timeout (")


def _quiet_tornado_ping_notice():
    log = logging.getLogger("tornado.general")
    if not any(isinstance(f, _NoPingTimeoutNotice) for f in log.filters):
        log.addFilter(_NoPingTimeoutNotice())


def _full_page(handler):
    km = handler.kernel_manager
    handler.set_status(503)
    handler.set_header("Retry-After", "60")
    handler.set_header("Content-Type", "text/html; charset=utf-8")
    handler.set_header("Cache-Control", "no-store")
    handler.finish(full_page(km.n_kernels() if hasattr(km, "n_kernels") else "",
                             getattr(km, "max_kernels", ""),
                             handler.settings.get("kernelnb_gallery_url", handler.base_url),
                             request_language(handler)))


class BudgetVoilaHandler(_Speaking, TornadoVoilaHandler):
    """Voila's dashboard renderer, answering 503 instead of starting a kernel past the limit."""

    @web.authenticated
    async def get(self, path=None):
        # The page shuts its kernel down when it is left (a POST with the _xsrf cookie's value);
        # nothing in the page asks for the token, so the cookie was never set and every such
        # POST was refused (403): the kernel lived on until culled. Reading it sets the cookie.
        self.xsrf_token  # noqa: B018
        km = self.kernel_manager
        pooled = path is not None and hasattr(km, "get_pool_size") and km.get_pool_size(path) > 0
        if not pooled and getattr(km, "is_full", lambda: False)():
            if hasattr(km, "note_refused"):
                km.note_refused()
            _full_page(self)
            return
        try:
            await super().get(path)
        except ClassFull:
            if self._headers_written:
                raise
            self.clear()
            _full_page(self)


class OfflineTreeHandler(_Speaking, TornadoVoilaTreeHandler):
    """Voila's folder listing, without the stylesheet it fetches from a CDN."""

    def render_template(self, name, **ns):
        return strip_external(super().render_template(name, **ns))


_EXTERNAL = re.compile(
    r"""<link\b[^>]*\bhref=["'](?:https?:)?//[^"']*["'][^>]*>"""
    r"""|<script\b[^>]*\bsrc=["'](?:https?:)?//[^"']*["'][^>]*>\s*</script>""",
    re.IGNORECASE)


def strip_external(page: str) -> str:
    """``page`` without the stylesheets and scripts it would load from another host."""
    return _EXTERNAL.sub("", page)


class NotFoundHandler(_KernelnbTemplates, JupyterHandler):
    """Every URL nothing else answers: kernelnb's plain 404 page."""

    async def prepare(self):
        await super().prepare()          # Jupyter's prepare sets the user the page needs
        raise web.HTTPError(404)


class KernelnbVoila(Voila):
    """Voila serving a dashboards folder with kernelnb's gallery at ``/``.

    Everything else is Voila's: configure it with the usual ``--Voila.*`` and
    ``--VoilaConfiguration.*`` options (preheated kernels, culling, templates, ...). The kernels
    are kernelnb's through Voila's configuration: ``kernelnb serve`` gives
    ``VoilaConfiguration.multi_kernel_manager_class`` as
    :class:`kernelnb.lab.server._kernelpool.BudgetKernelManager` and the preheated pools as
    ``VoilaKernelManager.kernel_pools_config`` (from ``preheat_plan``).

    Parameters
    ----------
    **kwargs
        Traits of the application, as for any traitlets ``Application`` (``config`` among them);
        ``kernelnb serve`` runs ``KernelnbVoila.launch_instance(argv=...)`` instead, with the
        options of :func:`kernelnb.lab.cli.serve_argv`.
    """

    name = "kernelnb-voila"
    description = "kernelnb dashboards served by Voila, with a gallery landing page"

    preheat_plan = Unicode(
        "", config=True,
        help="Preheated kernels per dashboard, as JSON {notebook: count}: with "
             "VoilaConfiguration.preheat_kernel, it becomes VoilaKernelManager.kernel_pools_config "
             "(0 for the other notebooks). kernelnb serve --preheat fills it: traitlets' command "
             "line has no form but a deprecated one for a dict of dicts.")

    allow_hosts = List(
        Unicode(), config=True,
        help="Host names the server answers to besides the loopback names and its own address "
             "(a class's server, a reverse proxy): a request whose Host header names another is "
             "refused (403), as a DNS-rebinding page's would be (kernelnb.lab.server._security). "
             "'*': any. kernelnb serve --allow-host NAME fills it.")

    fork_kernels = Bool(
        True, config=True,
        help="Make the dashboard kernels by forking one process that has already imported what "
             "they import (kernelnb.lab.server._forkserver), where the system allows it (Linux): a page "
             "without a preheated kernel then skips ~3.5 CPU-seconds of imports. False: start "
             "every kernel as a new Python process.")

    def init_settings(self):
        self._plotly_route = _announce_plotly_bundle(self.log)
        # before Voila's settings: its preheated-kernel manager takes the hook when built
        _use_plain_math(self.voila_configuration, self.root_dir)
        # Pages preload the bundle (templates/voila/index.html.j2) through Voila's template
        # resources, so the browser fetches and compiles it while Voila's own scripts load.
        _add_template_resource(self.config, "kernelnb_plotly_bundle", self._plotly_route)
        # The message of a page whose kernel is gone, and the notebooks' Markdown, in every
        # language (the page shows the one its kernel speaks).
        _add_template_resource(self.config, "kernelnb_watch_texts", watch_texts())
        _add_template_resource(self.config, "kernelnb_markdown", dashboard_markdown(self.root_dir))
        if self.preheat_plan and self.voila_configuration.preheat_kernel:
            pools = {nb: {"pool_size": int(n)} for nb, n in json.loads(self.preheat_plan).items()}
            self.config.VoilaKernelManager.kernel_pools_config = {"default": {"pool_size": 0},
                                                                  **pools}
        # Voila's own traits: its websocket connection class (hardened; a class configured by
        # the user is hardened too, see hardened_connection_class) and its extra tornado settings
        # (those the user gives win).
        self.kernel_websocket_connection_class = hardened_connection_class(
            self.kernel_websocket_connection_class)
        # The security headers and jupyter_server's Host check (kernelnb.lab.server._security).
        self.tornado_settings = {"websocket_max_message_size": MAX_MESSAGE_BYTES,
                                 "default_handler_class": NotFoundHandler,
                                 **_security.tornado_settings(self.host_policy(),
                                                              self.tornado_settings)}
        _quiet_tornado_ping_notice()
        settings = super().init_settings()
        self.contents_manager.notary = RenderNotary(parent=self.contents_manager)
        km = self.kernel_manager
        if (self.voila_configuration.preheat_kernel and isinstance(km, BudgetKernelManager)
                and not isinstance(km, PoolKeeper)):
            # Voila's own refill would start kernels past the budget: refuse rather than serve
            # a pool that nobody keeps (see BudgetKernelManager.__new__).
            raise RuntimeError(
                "kernelnb: this Voila's preheated-kernel manager is not one kernelnb can keep "
                "within the kernel budget (kernelnb was written against Voila 0.5.9 to 0.5.13); "
                "serve without --preheat / VoilaConfiguration.preheat_kernel")
        return settings

    def setup_template_dirs(self):
        super().setup_template_dirs()
        if self.voila_configuration.template == "lab":
            # Our index.html.j2 (Voila's lab page minus its CDN stylesheets) is found first.
            self.template_paths = [str(_TEMPLATES / "voila"), *self.template_paths]

    def init_handlers(self):
        handlers = super().init_handlers()
        base = self.server_url
        static_prefix = url_path_join(base, "kernelnb/lab/static/")
        ours = [
            (base, GalleryHandler,
             {"directory": self.root_dir,
              "render_prefix": url_path_join(base, "voila/render/"),
              "static_prefix": static_prefix}),
            (url_path_join(base, r"/kernelnb/lab/static/(.*)"), _StaticHandler,
             {"path": str(static_dir())}),
            (url_path_join(base, r"/kernelnb/api/status"), StatusHandler),
            (url_path_join(base, KERNEL_FATE_ROUTE), KernelFateHandler),
            (url_path_join(base, re.escape(self._plotly_route)), PlotlyBundleHandler),
        ]
        # Voila 0.5.9 to 0.5.13 offer no public hook for its handler classes: its own are replaced
        # by kernelnb's subclasses in the list init_handlers returns. A Voila whose list no longer
        # holds one of them fails here rather than serve without the websocket checks or the
        # budget page.
        replace = {VoilaKernelWebsocketHandler: HardenedVoilaWebsocketHandler,
                   TornadoVoilaHandler: BudgetVoilaHandler,
                   TornadoVoilaTreeHandler: OfflineTreeHandler}
        expected = set(replace)
        if self.notebook_path:                   # one notebook served: no folder listing
            expected.discard(TornadoVoilaTreeHandler)
        missing = sorted(c.__name__ for c in expected - {h[1] for h in handlers})
        if missing:
            raise RuntimeError(f"kernelnb: Voila serves no {', '.join(missing)} any more "
                               "(kernelnb was written against Voila 0.5.9 to 0.5.13)")
        handlers = [(h[0], replace.get(h[1], h[1]), *h[2:]) for h in handlers]
        handlers = [(h[0], LabExtensionFileHandler, *h[2:])
                    if h[1] is FileFindHandler and _LABEXTENSIONS_ROUTE.search(h[0]) else h
                    for h in handlers]
        # Tornado takes the first matching rule: ours go before Voila's tree at the root.
        return ours + handlers

    def host_policy(self):
        """The ``Host`` names this server answers to (:class:`kernelnb.lab.server._security.HostPolicy`:
        ``--Voila.ip`` and :attr:`allow_hosts`)."""
        return _security.HostPolicy(self.ip, self.allow_hosts)

    def listen(self):
        # Voila has made its tornado application (start): the Host and the fetch's site are
        # checked in front of every route, every answer gets the security headers.
        _security.protect(self.app, self.host_policy())
        super().listen()

    def start(self):
        # Runs once the loop is started, i.e. after the socket is bound.
        tornado.ioloop.IOLoop.current().add_callback(self._announce)
        forks = self._start_fork_server()
        try:
            super().start()
        finally:
            if forks is not None:
                set_fork_server(None)
                forks.stop()

    def _start_fork_server(self):
        """The fork server the kernel manager's kernels come from, or None (see fork_kernels).

        Started by ``start`` (not by ``initialize``), before Voila makes its kernel manager, so
        that preheated kernels are forked too: it imports for a few seconds in a process of its
        own while the server waits for its first visitor."""
        if not self.fork_kernels or not fork_supported():
            return None
        managers = self.voila_configuration.multi_kernel_manager_class
        if isinstance(managers, str):
            managers = import_item(managers)
        if not (isinstance(managers, type) and issubclass(managers, BudgetKernelManager)):
            return None
        # Its environment is the kernels': the plotly bundle's route (set here first, as
        # init_settings sets it) and Voila's mark of a dashboard kernel, VOILA_PREHEAT.
        _announce_plotly_bundle(None)         # (init_settings says it, if need be)
        env = dict(os.environ, VOILA_PREHEAT="False")
        server = ForkServer(env=env).start()
        set_fork_server(server)
        return server

    def _announce(self):
        """Say once what matters to the teacher: the address, who can reach it, the token, the
        kernels."""
        url = f"http://{_url_host(self.ip)}:{self.port}{self.base_url}"
        token = (getattr(self, "token", "")
                 or getattr(getattr(self, "identity_provider", None), "token", ""))
        limit = getattr(self.kernel_manager, "max_kernels", None)
        transport = self.config.KernelManager.get("transport", "tcp")
        self.log.info(
            "kernelnb dashboards gallery: %s  (dashboards from %s; Ctrl-C stops)\n"
            "    reachable from %s; %s; %s; kernels talk to the server over %s",
            url, self.root_dir,
            "this machine only" if _is_loopback(self.ip) else f"the network, as {self.ip}",
            "a token is needed (?token=...)" if token else "no token",
            f"at most {limit} kernels at once" if limit else "no limit on kernels",
            "local sockets" if transport == "ipc" else "TCP")


def _url_host(ip):
    return f"[{ip}]" if ":" in ip else ip


# ---------------------------------------------------------------------------------------------
# Jupyter server extension (Binder, JupyterLab): the gallery at /kernelnb/
# ---------------------------------------------------------------------------------------------

def _jupyter_server_extension_points():
    return [{"module": "kernelnb.lab.server.app"}]


def _load_jupyter_server_extension(serverapp):
    """Add the gallery at ``<base_url>kernelnb/`` to a running Jupyter server.

    The dashboards are looked up in ``<root_dir>/dashboards`` (a checkout, as on Binder), else in
    the installed package; links go to the Voila server extension's render handler.
    """
    web_app = serverapp.web_app
    base = web_app.settings["base_url"]
    root = os.path.abspath(serverapp.root_dir)
    local = os.path.join(root, "dashboards")
    if os.path.isdir(local):
        directory = local
        render_prefix = url_path_join(base, "voila/render/dashboards/")
    else:
        directory = str(dashboards_dir())
        rel = os.path.relpath(directory, root)
        if rel.startswith(".."):
            serverapp.log.warning("kernelnb: dashboards %s are outside the server root %s; the "
                                  "gallery links will not render", directory, root)
        render_prefix = url_path_join(base, "voila/render", rel.replace(os.sep, "/")) + "/"
    static_prefix = url_path_join(base, "kernelnb/lab/static/")
    # Kernel websockets that check every frame (see kernelnb.lab.server._websocket), where the server uses
    # jupyter_server's own connection class; another one is left as it is.
    web_app.settings["kernel_websocket_connection_class"] = hardened_connection_class(
        web_app.settings.get("kernel_websocket_connection_class"))
    plotly_route = _announce_plotly_bundle(serverapp.log)
    web_app.add_handlers(".*$", [
        (url_path_join(base, re.escape(plotly_route)), _PublicPlotlyBundleHandler),
        (url_path_join(base, "kernelnb/?"), GalleryHandler,
         {"directory": directory, "render_prefix": render_prefix, "static_prefix": static_prefix}),
        (url_path_join(base, r"kernelnb/lab/static/(.*)"), _StaticHandler, {"path": str(static_dir())}),
        (url_path_join(base, r"kernelnb/api/status"), StatusHandler),
        (url_path_join(base, KERNEL_FATE_ROUTE), KernelFateHandler),
    ])
    web_app.settings["kernelnb_gallery_url"] = url_path_join(base, "kernelnb/")
    web_app.settings["kernelnb_dashboards_dir"] = directory
    serverapp.log.info("kernelnb: dashboards gallery at %s", url_path_join(base, "kernelnb/"))


async def _start_jupyter_server_extension(serverapp):
    """Once every extension is loaded (Voila's after this one: extensions load in name order),
    give Voila's render handler the "class is full" page and its folder listing no CDN."""
    n = _replace_handler_classes(serverapp.web_app, {TornadoVoilaHandler: BudgetVoilaHandler,
                                                     TornadoVoilaTreeHandler: OfflineTreeHandler})
    if n:
        serverapp.log.info("kernelnb: Voila's render handler answers 503 past the kernel budget")
    _use_kernelnb_page_template(serverapp.web_app)
    # kernelnb's Content-Security-Policy on the gallery's and Voila's answers (kernelnb.lab.server._security)
    _security.protect_extension(serverapp.web_app, serverapp.web_app.settings["base_url"])
    _cache_hashed_labextensions(serverapp.web_app)
    # Voila's page loads MathJax from a CDN unless the server names another URL; dashboards write
    # their math in Unicode, so none (kernelnb serve's pages load none either), and a page whose
    # notebook writes no TeX loads no MathJax at all (plain_math_hook).
    serverapp.web_app.settings.setdefault("mathjax_url", "")
    for vc in _voila_configurations(serverapp.web_app):
        _use_plain_math(vc, serverapp.root_dir)
        # the message of a page whose kernel is gone and the dashboards' Markdown, in every
        # language (as kernelnb serve's)
        _add_template_resource(vc.config, "kernelnb_watch_texts", watch_texts())
        directory = serverapp.web_app.settings.get("kernelnb_dashboards_dir")
        if directory:
            _add_template_resource(vc.config, "kernelnb_markdown", dashboard_markdown(directory))


def _use_kernelnb_page_template(web_app) -> int:
    """Give Voila's render handler kernelnb's page template (``templates/voila``: Voila's "lab"
    page without its CDN stylesheets and scripts), as ``kernelnb serve`` does in
    ``setup_template_dirs``; the extension offers no option for it, so the handler's
    ``template_paths`` argument is extended. Returns how many routes were changed."""
    n = 0
    ours = str(_TEMPLATES / "voila")
    for rule in _route_rules(web_app):
        kwargs = getattr(rule, "target_kwargs", None) or {}
        paths, vc = kwargs.get("template_paths"), kwargs.get("voila_configuration")
        if (isinstance(paths, list) and ours not in paths and vc is not None
                and vc.template == "lab"):
            paths.insert(0, ours)
            n += 1
    return n


def _voila_configurations(web_app) -> list:
    """The ``VoilaConfiguration`` instances ``web_app``'s routes were given, each once."""
    found = {}
    for rule in _route_rules(web_app):
        vc = (getattr(rule, "target_kwargs", None) or {}).get("voila_configuration")
        if vc is not None:
            found[id(vc)] = vc
    return list(found.values())


def _route_rules(web_app):
    """``web_app``'s path rules (tornado's ``Rule`` objects, each with its handler class as
    ``target``), from every host rule.

    Jupyter server extensions offer no hook to change another extension's handlers or their
    arguments: kernelnb's extension changes them on these rules."""
    for host_rule in web_app.default_router.rules:
        yield from getattr(host_rule.target, "rules", ())


def _replace_handler_classes(web_app, replace, route=None) -> int:
    """Swap the handler classes of ``web_app``'s routes per ``replace`` (only on the routes whose
    pattern ``route`` matches, when given); how many were swapped (see :func:`_route_rules`).
    """
    n = 0
    for rule in _route_rules(web_app):
        new = replace.get(rule.target)
        pattern = getattr(getattr(rule.matcher, "regex", None), "pattern", "")
        if new is not None and (route is None or route.search(pattern)):
            rule.target = new
            n += 1
    return n
