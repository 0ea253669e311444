"""The plotly ``FigureWidget`` the dashboards use, light on the wire when kernelnb serves them.

plotly's ``FigureWidget`` is an anywidget whose front-end code (about 5 MB of JavaScript) is a
synced trait, ``_esm``: every figure of every page sends it from the kernel through the server to
the browser, which evaluates it once per figure. ``kernelnb serve`` instead serves that bundle
once at a URL naming its content hash (cached by the browser) and tells its kernels so through the
``KERNELNB_PLOTLY_ESM`` environment variable; a figure's ``_esm`` is then a few lines that import
the bundle from that URL (one download and one evaluation per browser, not per figure). Outside
``kernelnb serve`` (a notebook, JupyterLab, the tests) the variable is unset and this is plotly's
own ``FigureWidget``.
"""
from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path

import plotly.graph_objects as go

__all__ = ["FigureWidget", "ESM_ENV", "plotly_bundle_path", "plotly_bundle_route", "esm_shim"]

#: Environment variable with the bundle's path relative to the server's base URL.
ESM_ENV = "KERNELNB_PLOTLY_ESM"

_ROUTE = re.compile(r"^kernelnb/esm/plotly-[0-9a-f]{16}\.js$")


def plotly_bundle_path() -> Path:
    """The front-end bundle of the installed plotly's ``FigureWidget``."""
    import plotly
    return Path(plotly.__file__).resolve().parent / "package_data" / "widgetbundle.js"


@lru_cache(maxsize=1)
def plotly_bundle_route() -> str:
    """``kernelnb/esm/plotly-<hash>.js``: where kernelnb serves the bundle (relative to base)."""
    digest = hashlib.sha256(plotly_bundle_path().read_bytes()).hexdigest()[:16]
    return f"kernelnb/esm/plotly-{digest}.js"


def esm_shim(route: str) -> str:
    """An ES module that re-exports plotly's widget bundle from ``<base URL><route>``.

    The base URL is the one the page was served with (``jupyter-config-data``), so the same kernel
    works behind a proxy prefix; anywidget loads this module from a blob, hence absolute URLs.
    """
    if not _ROUTE.match(route):
        raise ValueError(f"{ESM_ENV}: not a kernelnb bundle route: {route!r}")
    return f"""const cfg = document.getElementById("jupyter-config-data");
let base = "/";
try {{ base = (cfg && JSON.parse(cfg.textContent).baseUrl) || "/"; }} catch (e) {{ base = "/"; }}
if (!base.endsWith("/")) base += "/";
const m = await import(new URL(base + "{route}", window.location.href).href);
export const FigureModel = m.FigureModel;
export const FigureView = m.FigureView;
export default m.default;
"""


def _figure_widget_class():
    route = os.environ.get(ESM_ENV, "")
    if not route or not _ROUTE.match(route):
        return go.FigureWidget
    return type("FigureWidget", (go.FigureWidget,),
                {"_esm": esm_shim(route), "__module__": __name__,
                 "__doc__": "plotly's FigureWidget, its front-end code imported from the server "
                            "(see kernelnb.lab.app._plotly)."})


#: The class the dashboards build their charts with.
FigureWidget = _figure_widget_class()
