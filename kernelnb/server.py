"""Serving the dashboards: Voila with kernelnb's gallery as its landing page.

Two ways in:

* :class:`KernelnbVoila`, the standalone Voila application that ``kernelnb serve`` runs: Voila's
  own handlers (``/voila/render/<name>.ipynb``, kernels, static assets) plus the gallery at ``/``
  and kernelnb's static files at ``/kernelnb/static/``.
* A Jupyter server extension (``jupyter server extension enable kernelnb.server``, done by
  ``binder/postBuild``): inside JupyterLab or Binder the gallery is at ``/kernelnb/`` and links to
  the Voila server extension's ``/voila/render/dashboards/<name>.ipynb``.
"""
from __future__ import annotations

import os
from pathlib import Path

import tornado.ioloop
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web
from voila.app import Voila

from .app.gallery import dashboards_dir, render_gallery, static_dir

__all__ = ["KernelnbVoila", "GalleryHandler"]

_TEMPLATES = Path(__file__).resolve().parent / "templates"


class GalleryHandler(JupyterHandler):
    """The gallery page: one card per dashboard found in ``directory``."""

    def initialize(self, directory, render_prefix, static_prefix):
        self.directory = directory
        self.render_prefix = render_prefix
        self.static_prefix = static_prefix

    @web.authenticated
    def get(self):
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(render_gallery(self.directory, self.render_prefix, self.static_prefix))


class _StaticHandler(web.StaticFileHandler):
    """kernelnb's thumbnails; short cache so regenerated images show up."""

    def set_extra_headers(self, path):
        self.set_header("Cache-Control", "max-age=600")


class KernelnbVoila(Voila):
    """Voila serving a dashboards folder with kernelnb's gallery at ``/``.

    Everything else is Voila's: configure it with the usual ``--Voila.*`` and
    ``--VoilaConfiguration.*`` options (preheated kernels, culling, templates, ...).
    """

    name = "kernelnb-voila"
    description = "kernelnb dashboards served by Voila, with a gallery landing page"

    def setup_template_dirs(self):
        super().setup_template_dirs()
        if self.voila_configuration.template == "lab":
            # Our index.html.j2 (Voila's lab page minus its CDN stylesheets) is found first.
            self.template_paths = [str(_TEMPLATES / "voila"), *self.template_paths]

    def init_handlers(self):
        handlers = super().init_handlers()
        base = self.server_url
        static_prefix = url_path_join(base, "kernelnb/static/")
        ours = [
            (base, GalleryHandler,
             {"directory": self.root_dir,
              "render_prefix": url_path_join(base, "voila/render/"),
              "static_prefix": static_prefix}),
            (url_path_join(base, r"/kernelnb/static/(.*)"), _StaticHandler,
             {"path": str(static_dir())}),
        ]
        # Tornado takes the first matching rule: ours go before Voila's tree at the root.
        return ours + handlers

    def start(self):
        # Runs once the loop is started, i.e. after the socket is bound.
        tornado.ioloop.IOLoop.current().add_callback(self._announce)
        super().start()

    def _announce(self):
        url = f"http://{_url_host(self.ip)}:{self.port}{self.base_url}"
        self.log.info("kernelnb dashboards gallery: %s  (dashboards from %s; Ctrl-C stops)",
                      url, self.root_dir)


def _url_host(ip):
    return f"[{ip}]" if ":" in ip else ip


# ---------------------------------------------------------------------------------------------
# Jupyter server extension (Binder, JupyterLab): the gallery at /kernelnb/
# ---------------------------------------------------------------------------------------------

def _jupyter_server_extension_points():
    return [{"module": "kernelnb.server"}]


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
    static_prefix = url_path_join(base, "kernelnb/static/")
    web_app.add_handlers(".*$", [
        (url_path_join(base, "kernelnb/?"), GalleryHandler,
         {"directory": directory, "render_prefix": render_prefix, "static_prefix": static_prefix}),
        (url_path_join(base, r"kernelnb/static/(.*)"), _StaticHandler, {"path": str(static_dir())}),
    ])
    serverapp.log.info("kernelnb: dashboards gallery at %s", url_path_join(base, "kernelnb/"))
