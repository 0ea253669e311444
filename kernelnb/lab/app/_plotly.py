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
{_CLICK_JS}
export const FigureModel = m.FigureModel;
export const FigureView = m.FigureView;
export default m.default;
"""


# Clicks as messages of their own.  plotly's view sends a click to the kernel by setting a synced
# trait, and the widget manager, while a message to the kernel is unanswered (the kernel busy with
# the previous click's refit), keeps only the last value of each trait it is to send: 6 of 10
# quick clicks on the SVM playground were lost so.  A custom message is sent at once, every time;
# the kernel side (_on_click_message) hands it to plotly's own points-callback handler.
_CLICK_JS = """const plotlyClick = m.FigureView.prototype.handle_plotly_click;
m.FigureView.prototype.handle_plotly_click = function (data) {
  // this.model: plotly's FigureModel, holding the widget's model as its 'model'
  const model = this.model && this.model.model;
  const points = data ? this.buildPointsObject(data) : null;
  if (!model || typeof model.send !== "function" || !points) return plotlyClick.call(this, data);
  model.send({kernelnb_event: "plotly_click", points: points,
              device_state: this.buildInputDeviceStateObject(data)});
};"""


def _on_click_message(widget, content, buffers):
    """A click sent by the shim's view as a message: plotly's points callback, as if the click had
    come through the synced trait. A malformed message (a page can send anything) is ignored."""
    if not isinstance(content, dict) or content.get("kernelnb_event") != "plotly_click":
        return
    points = content.get("points")
    keys = ("xs", "ys", "point_indexes", "trace_indexes")
    if not (isinstance(points, dict) and all(isinstance(points.get(k), list) for k in keys)):
        return
    n_traces = len(widget.data)
    if not all(isinstance(t, int) and 0 <= t < n_traces for t in points["trace_indexes"]):
        return
    state = content.get("device_state")
    try:
        widget._handler_js2py_pointsCallback({"new": {
            "event_type": "plotly_click", "points": {k: points[k] for k in keys},
            "device_state": state if isinstance(state, dict) else None, "selector": None}})
    except (TypeError, ValueError, KeyError) as exc:     # device_state with unknown keys, ...
        widget.log.warning("kernelnb: a click message was ignored: %s", exc)


def _init_with_click_messages(self, *args, **kwargs):
    go.FigureWidget.__init__(self, *args, **kwargs)
    self.on_msg(_on_click_message)


def _figure_widget_class():
    route = os.environ.get(ESM_ENV, "")
    if not route or not _ROUTE.match(route):
        return go.FigureWidget
    return type("FigureWidget", (go.FigureWidget,),
                {"_esm": esm_shim(route), "__module__": __name__,
                 "__init__": _init_with_click_messages,
                 "__doc__": "plotly's FigureWidget, its front-end code imported from the server "
                            "(see kernelnb.lab.app._plotly)."})


#: The class the dashboards build their charts with.
FigureWidget = _figure_widget_class()
