"""The plotly ``FigureWidget`` the dashboards use, light on the wire when kernelnb serves them.

plotly's ``FigureWidget`` is an anywidget whose front-end code (about 5 MB of JavaScript) is a
synced trait, ``_esm``: every figure of every page sends it from the kernel through the server to
the browser, which evaluates it once per figure. ``kernelnb serve`` instead serves that bundle
once at a URL naming its content hash (cached by the browser) and tells its kernels so through the
``KERNELNB_PLOTLY_ESM`` environment variable; a figure's ``_esm`` is then a few lines that load
the bundle from that URL (one download and one evaluation per page, not per figure). Outside
``kernelnb serve`` (a notebook, JupyterLab, the tests) the variable is unset and this is plotly's
own ``FigureWidget``.

The bundle is an ES module; the server serves it rewritten as a classic script
(:func:`plotly_bundle`, built once per server process from the installed plotly's bundle by
:func:`kernelnb.lab.app._classic_script.classic_script`) that puts its exports on
``globalThis.__kernelnbPlotlyWidget``, and the figures' shim loads it with a ``<script>`` element.
The reason is V8's code cache: Chromium keeps the compiled code of a classic script from its third
load on, and of a module loaded with ``import()`` never: as a module, a returning student's
browser would evaluate the bundle again on every page. A plotly whose bundle has another shape is
served as the module it is, loaded with ``import()`` (the server says so in its log).

The bundle registers plotly.js's 46 trace types besides scatter (3-D, maps, tables, ...) when it
loads, and registering a trace type runs its module: a large part of the bundle's evaluation,
for trace types no dashboard draws. The served
bundle registers at load only :data:`EAGER_TRACES` (scatter is plotly's core) and plotly's
components; the others stay in the bundle, unevaluated, and the figures' shim registers a type the
first time a figure has a trace of it (:func:`defer_trace_registration`). A bundle in which that
rewrite cannot find its registration is served registering everything (the server says so).
The classic script starts with V8's explicit compile hint (:data:`COMPILE_HINT`): a fresh
browser then compiles the bundle's functions on a background thread while the script streams in,
where it would compile each on the page's main thread the first time it ran. That hint compiles
every function of the script, the modules of the deferred trace types too: the module factories
and top-level functions that nothing run at load reaches (about 800 factories, 3.3 MB of the
5 MB, and 1,000 functions) are therefore served as text, compiled in their own scope the first
time they are called (:func:`~kernelnb.lab.app._on_demand.compile_on_demand`).
The shim also draws a figure only once its element is laid out: a chart hidden when the page opens
(a tab, a checkbox, another mode) is drawn when it is first shown, not at load.

In a dashboard kernel of ``kernelnb serve`` this module also spares the kernel jsonschema's RFC 3987
grammar (:func:`skip_iri_grammar`), the largest part of the cost of plotly's widgets at start-up.
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import plotly.graph_objects as go

__all__ = [
    "COMPILE_HINT",
    "EAGER_TRACES",
    "ESM_ENV",
    "PLOTLY_GLOBAL",
    "PLOTLY_TRACES_GLOBAL",
    "UnexpectedBundle",
    "FigureWidget",
    "ServedBundle",
    "defer_trace_registration",
    "esm_shim",
    "plotly_bundle",
    "plotly_bundle_path",
    "plotly_bundle_route",
    "skip_iri_grammar",
]

#: Environment variable with the bundle's path relative to the server's base URL.
ESM_ENV = "KERNELNB_PLOTLY_ESM"

#: Voila puts this variable ("True" or "False") in the environment of every kernel it starts, and
#: only there: with :data:`ESM_ENV`, it marks a dashboard kernel of ``kernelnb serve``.
_VOILA_KERNEL_ENV = "VOILA_PREHEAT"

#: The global that plotly's bundle, served as a classic script, assigns its exports to.
PLOTLY_GLOBAL = "__kernelnbPlotlyWidget"

#: The function the served bundle puts on the global object to register trace types on demand
#: (:func:`defer_trace_registration`).
PLOTLY_TRACES_GLOBAL = "__kernelnbPlotlyWidgetTraces"

#: The trace types the dashboards draw besides scatter: the served bundle registers them when it
#: loads, and every other trace type the first time a figure has one.
EAGER_TRACES = frozenset({"contour", "heatmap"})

#: The first line of the served classic script: V8's explicit compile hint (Chromium 136 and
#: later; a plain comment elsewhere), which compiles every function of the script on the thread
#: that streams it in rather than on the page's main thread the first time each one runs.
COMPILE_HINT = "//# allFunctionsCalledOnLoad\n"

#: What plotly's bundle exports and the figures' shim re-exports.
_EXPORTS = ("FigureModel", "FigureView", "default")

# An ES module (plotly-<hash>.js) or the classic script made from it (plotly-<hash>.classic.js).
_ROUTE = re.compile(r"^kernelnb/esm/plotly-[0-9a-f]{16}(?:\.classic)?\.js$")


def plotly_bundle_path() -> Path:
    """The front-end bundle of the installed plotly's ``FigureWidget``."""
    import plotly
    return Path(plotly.__file__).resolve().parent / "package_data" / "widgetbundle.js"


class ServedBundle(NamedTuple):
    """What kernelnb serves of plotly's widget bundle (see :func:`plotly_bundle`)."""

    #: ``kernelnb/esm/plotly-<hash>.classic.js`` or ``kernelnb/esm/plotly-<hash>.js`` (relative to
    #: the server's base URL); ``<hash>``: the first 16 hex digits of the body's SHA-256.
    route: str
    #: The bytes served.
    body: bytes
    #: True for the classic script, False for plotly's module itself.
    classic: bool
    #: Why the bundle is served as a module (None when classic).
    reason: str | None
    #: The trace types registered the first time a figure has one (empty: all at load).
    deferred: tuple[str, ...] = ()
    #: Why every trace type is registered at load (None when some are deferred).
    deferral_reason: str | None = None
    #: How many of the bundle's module factories and top-level functions are served as text,
    #: compiled when first called (:func:`~kernelnb.lab.app._on_demand.compile_on_demand`).
    on_demand: int = 0


class UnexpectedBundle(ValueError):
    """plotly's bundle does not register its trace types as :func:`defer_trace_registration`
    expects."""


# plotly.js's entry module as esbuild bundles it: ``X=f({"lib/index.js"(e,r){var t=...;
# t.register([A(),B(),...]),r.exports=t}})``; each of A, B, ... is ``A=f({"lib/bar.js"(e,r){...``.
_INDEX_REGISTER = re.compile(
    r'"lib/index\.js"\(\s*[\w$]+\s*,\s*[\w$]+\s*\)\s*\{[^{}]*?(?<![\w$.])([A-Za-z_$][\w$]*)'
    r"\.register\(\[((?:\s*[A-Za-z_$][\w$]*\(\)\s*,?)*)\]\)")
_CALL = re.compile(r"\s*([A-Za-z_$][\w$]*)\(\)\s*")
_LIB_MODULE = re.compile(r'(?<![\w$.])([A-Za-z_$][\w$]*)=[\w$]+\(\{"lib/([\w-]+)\.js"\(')


def defer_trace_registration(src: str, eager=EAGER_TRACES, global_name: str = PLOTLY_TRACES_GLOBAL
                             ) -> tuple[str, tuple[str, ...]]:
    """plotly's widget bundle with the trace types outside ``eager`` registered on demand.

    plotly.js's entry module registers every module of its ``lib/`` folder when it runs. This
    rewrites that one call so that it registers plotly's components (``lib/calendars.js``) and the
    trace types of ``eager``, and assigns to ``globalThis[global_name]`` a function taking a list
    of trace type names that registers, once, each deferred type among them (other names are
    ignored). A deferred module is not run until then: its code stays in the bundle, parsed but not
    executed. A module counts as a trace type when the bundle holds its trace module
    (``moduleType:"trace",name:"<type>"``).

    Parameters
    ----------
    src : str
        The bundle's JavaScript (plotly's ``widgetbundle.js``).
    eager : set of str, default :data:`EAGER_TRACES`
        The trace types still registered when the bundle loads (scatter, plotly's core, always is).
    global_name : str, default :data:`PLOTLY_TRACES_GLOBAL`
        The JavaScript identifier the registering function is assigned to on ``globalThis``.

    Returns
    -------
    (str, tuple of str)
        The rewritten source and the deferred trace types, in registration order.

    Raises
    ------
    UnexpectedBundle
        When the entry module or its registration call is not found exactly once, a registered
        factory is not defined exactly once as a ``lib/<name>.js`` module, a type of ``eager`` is
        not among them, or nothing would be deferred.
    """
    src, later, _ = _defer_trace_registration(src, eager, global_name)
    return src, later


def _defer_trace_registration(src, eager, global_name):
    """:func:`defer_trace_registration`, and where the table of the deferred factories lies in
    the rewritten source (start, end): code that runs only when a figure asks for a type."""
    from ._classic_script import _IDENT
    if not _IDENT.match(global_name):
        raise ValueError(f"global_name must be a JavaScript identifier, got {global_name!r}")
    calls = list(_INDEX_REGISTER.finditer(src))
    if len(calls) != 1:
        raise UnexpectedBundle(f"plotly.js's entry module and its register([...]) call were found "
                               f"{len(calls)} times, not once")
    call = calls[0]
    core, listed = call.group(1), [c for c in call.group(2).split(",") if c.strip()]
    factories = [_CALL.fullmatch(c).group(1) for c in listed]
    if len(set(factories)) != len(factories):
        raise UnexpectedBundle("plotly.js registers a module twice")
    defined = {}
    for d in _LIB_MODULE.finditer(src):
        defined.setdefault(d.group(1), []).append(d.group(2))
    names = {}
    for f in factories:
        defs = defined.get(f, [])
        if len(defs) != 1:
            raise UnexpectedBundle(f"the registered factory {f} is defined as a lib/ module "
                                   f"{len(defs)} times, not once")
        names[f] = defs[0]
    traces = {f for f, n in names.items()
              if f'moduleType:"trace",name:"{n}"' in src}
    missing = sorted(set(eager) - {names[f] for f in traces})
    if missing:
        raise UnexpectedBundle(f"plotly.js registers no trace module {', '.join(missing)}")
    later = [f for f in factories if f in traces and names[f] not in eager]
    if not later:
        raise UnexpectedBundle("plotly.js registers no trace type to defer")
    now = [f for f in factories if f not in later]
    entries = ",".join(f'["{names[f]}",{f}]' for f in later)
    if core.startswith("__kb"):
        raise UnexpectedBundle(f"plotly.js's core is named {core}, as the rewrite's own names")
    # The names of the function's own variables start with __kb, so that none hides the core.
    lookup = (f"(globalThis.{global_name}=(__kbLater=>__kbTypes=>{{for(const __kbType of "
              f"__kbTypes){{const __kbF=__kbLater.get(__kbType);if(__kbF){{"
              f"__kbLater.delete(__kbType);{core}.register([__kbF()])}}}}}})")
    table = f"(new Map([{entries}]))"
    replacement = f"{lookup}{table},{core}.register([{','.join(f + '()' for f in now)}]))"
    start = call.start(1) + len(lookup)
    return (src[:call.start(1)] + replacement + src[call.end(0):],
            tuple(names[f] for f in later), (start, start + len(table)))


@lru_cache(maxsize=1)
def plotly_bundle() -> ServedBundle:
    """The installed plotly's widget bundle as kernelnb serves it, built once per process.

    A classic script that assigns the module's exports (``FigureModel``, ``FigureView``,
    ``default``) to ``globalThis.__kernelnbPlotlyWidget`` (:data:`PLOTLY_GLOBAL`), made from the
    bundle by :func:`~kernelnb.lab.app._classic_script.classic_script` and led by V8's compile
    hint (:data:`COMPILE_HINT`); when the bundle has a shape that rewrite refuses (another
    plotly), the module itself, with the reason. Either registers the trace types outside
    :data:`EAGER_TRACES` on demand (:func:`defer_trace_registration`), unless that rewrite finds
    another shape (then ``deferral_reason`` says which); when it does, the module factories and
    top-level functions that only the deferred types reach are served as text, compiled when
    first called
    (:func:`~kernelnb.lab.app._on_demand.compile_on_demand`; their number is ``on_demand``).
    """
    from ._classic_script import NotClassicShape, classic_script
    from ._on_demand import compile_on_demand

    def served(body, reason=None, deferred=(), deferral_reason=None, on_demand=0):
        digest = hashlib.sha256(body).hexdigest()[:16]
        suffix = ".js" if reason else ".classic.js"
        return ServedBundle(f"kernelnb/esm/plotly-{digest}{suffix}", body, reason is None,
                            reason, deferred, deferral_reason, on_demand)

    raw = plotly_bundle_path().read_bytes()
    try:
        src = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return served(raw, str(exc), (), str(exc))
    on_demand = 0
    try:
        src, deferred, table = _defer_trace_registration(src, EAGER_TRACES, PLOTLY_TRACES_GLOBAL)
        deferral_reason = None
    except UnexpectedBundle as exc:
        deferred, deferral_reason = (), str(exc)
    try:
        if deferred:
            src, on_demand, _ = compile_on_demand(src, ignore=[table])
        return served((COMPILE_HINT + classic_script(src, PLOTLY_GLOBAL, required=_EXPORTS))
                      .encode(), None, deferred, deferral_reason, on_demand)
    except NotClassicShape as exc:
        return served(src.encode(), str(exc), deferred, deferral_reason)


def plotly_bundle_route() -> str:
    """Where kernelnb serves the bundle, relative to the base URL (see :func:`plotly_bundle`)."""
    return plotly_bundle().route


def esm_shim(route: str) -> str:
    """An ES module that re-exports plotly's widget bundle from ``<base URL><route>``.

    A ``.classic.js`` route is loaded with a ``<script>`` element, once per page (the figures
    share the promise kept in ``window.__kernelnbPlotlyLoads``), and its exports read from
    ``globalThis.__kernelnbPlotlyWidget``; another route is imported as a module. The base URL is
    the one the page was served with (``jupyter-config-data``), so the same kernel works behind a
    proxy prefix; anywidget loads this module from a blob, hence absolute URLs.
    """
    if not _ROUTE.match(route):
        raise ValueError(f"{ESM_ENV}: not a kernelnb bundle route: {route!r}")
    if route.endswith(".classic.js"):
        load = f"""const loads = (window.__kernelnbPlotlyLoads ||= {{}});
if (!loads[url]) {{
  loads[url] = new Promise((resolve, reject) => {{
    const s = document.createElement("script");
    s.src = url;
    s.async = true;
    s.addEventListener("load", () => window.{PLOTLY_GLOBAL} ? resolve(window.{PLOTLY_GLOBAL})
      : reject(new Error("kernelnb: plotly's widget bundle " + url + " did not run")));
    s.addEventListener("error", () => {{
      delete loads[url];          // a later figure tries again
      reject(new Error("kernelnb: could not load plotly's widget bundle from " + url));
    }});
    document.head.appendChild(s);
  }});
}}
const m = await loads[url];"""
    else:
        load = "const m = await import(url);"
    return f"""const cfg = document.getElementById("jupyter-config-data");
let base = "/";
try {{ base = (cfg && JSON.parse(cfg.textContent).baseUrl) || "/"; }} catch (e) {{ base = "/"; }}
if (!base.endsWith("/")) base += "/";
const url = new URL(base + "{route}", window.location.href).href;
{load}
{_CLICK_JS}
{_TRACES_JS}
export const FigureModel = m.FigureModel;
export const FigureView = m.FigureView;
export default widget;
"""


def _served_kernel() -> bool:
    """True in a dashboard kernel started by ``kernelnb serve`` (not in the server itself)."""
    return bool(_ROUTE.match(os.environ.get(ESM_ENV, ""))) and _VOILA_KERNEL_ENV in os.environ


def skip_iri_grammar() -> bool:
    """In a dashboard kernel of ``kernelnb serve``, leave jsonschema without its IRI format checks.

    plotly's ``FigureWidget`` module imports plotly's renderers, which import ``nbformat`` (to read
    its version in ``fig.show()``), which imports ``jsonschema``; jsonschema's format checkers
    import ``rfc3987_syntax`` when it is installed (it is: Jupyter's event schemas need it, in the
    server), and that module compiles an Earley parser for the RFC 3987 grammar when imported:
    most of the CPU time that ``import plotly.graph_objs._figurewidget`` takes, paid by every cold
    dashboard kernel. jsonschema treats the package as
    optional (it then checks no ``"iri"``/``"iri-reference"`` format, the only two it is used for),
    and nothing a dashboard kernel runs validates those formats. So, in such a kernel and before
    jsonschema is first imported, ``sys.modules["rfc3987_syntax"]`` is set to None, the import
    system's own way of marking a module unavailable: jsonschema's ``import`` of it raises
    ImportError, which jsonschema expects. plotly, nbformat and jsonschema are imported unchanged;
    nothing is done elsewhere (a notebook, JupyterLab, the server process, the tests).

    Returns
    -------
    bool
        True when the grammar is (now) unavailable to this process, False when nothing was done
        (not a served dashboard kernel, or jsonschema was already imported).
    """
    if not _served_kernel() or "jsonschema" in sys.modules:
        return False
    sys.modules.setdefault("rfc3987_syntax", None)
    return sys.modules["rfc3987_syntax"] is None


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


# plotly's widget, wrapped. Trace types on demand: before plotly draws a figure, and before it adds
# traces to one, the trace types they use are registered (a no-op for those registered already,
# and for a bundle that registered everything at load); a trace without a type is a scatter,
# plotly's core. And a figure is drawn only once it is shown (its element is laid out).
_TRACES_JS = f"""const registerTraces = globalThis.{PLOTLY_TRACES_GLOBAL};
const needTraces = (traces) => {{
  if (typeof registerTraces !== "function" || !Array.isArray(traces)) return;
  registerTraces(traces.map((t) => (t && typeof t.type === "string" ? t.type : "scatter")));
}};
const widget = () => {{
  const w = typeof m.default === "function" ? m.default() : m.default;
  return {{
    initialize(ctx) {{
      needTraces(ctx.model.get("_widget_data"));
      ctx.model.on("change:_py2js_addTraces", () => {{
        const added = ctx.model.get("_py2js_addTraces");
        needTraces(added && added.trace_data);
      }});
      return w.initialize ? w.initialize(ctx) : undefined;
    }},
    render(ctx) {{
      // A figure not shown yet (in a hidden tab, behind a checkbox, in another mode: no layout
      // box) is drawn when it is first laid out: until then plotly would draw it for nothing, at
      // its default size, while the page's first chart waits for the main thread. An element
      // with a box intersects a root this wide even with no size (an empty flex item), one
      // without a box never does; one inside a scrolled box is drawn when scrolled into view.
      let cleanup, done = false;
      const draw = () => {{
        if (done) return;
        done = true;
        needTraces(ctx.model.get("_widget_data"));
        cleanup = w.render(ctx);
      }};
      if (typeof IntersectionObserver !== "function" || !ctx.el) {{
        draw();
        return cleanup;
      }}
      const observer = new IntersectionObserver((entries) => {{
        if (!entries.some((e) => e.isIntersecting)) return;
        observer.disconnect();
        setTimeout(draw, 0);
      }}, {{rootMargin: "100000px"}});
      observer.observe(ctx.el);
      return () => {{
        observer.disconnect();
        done = true;
        if (typeof cleanup === "function") cleanup();
      }};
    }},
  }};
}};"""


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
    # the served pages' typesetter leaves text as written (kernelnb.lab.server.plain_math_hook):
    # plotly is told not to typeset either, so that a label with two dollar signs stays text
    self._config = {**self._config, "typesetMath": False}


def _figure_widget_class():
    route = os.environ.get(ESM_ENV, "")
    if not route or not _ROUTE.match(route):
        return go.FigureWidget
    return type("FigureWidget", (go.FigureWidget,),
                {"_esm": esm_shim(route), "__module__": __name__,
                 "__init__": _init_with_click_messages,
                 "__doc__": "plotly's FigureWidget, its front-end code imported from the server "
                            "(see kernelnb.lab.app._plotly)."})


skip_iri_grammar()
#: The class the dashboards build their charts with.
FigureWidget = _figure_widget_class()
