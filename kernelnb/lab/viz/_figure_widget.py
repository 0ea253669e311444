"""The plotly ``FigureWidget`` the dashboards use, light on the wire when kernelnb serves them.

plotly's ``FigureWidget`` is an anywidget whose front-end code (about 5 MB of JavaScript) is a
synced trait, ``_esm``: every figure of every page would send it from the kernel through the server
to the browser. ``kernelnb serve`` instead serves that bundle once at a URL naming its content hash
(:mod:`kernelnb.lab.server._plotly_bundle`) and tells its kernels so through the
``KERNELNB_PLOTLY_ESM`` environment variable; a figure's ``_esm`` is then the few lines of
:func:`esm_shim` that load the bundle from that URL (one download and one evaluation per page, not
per figure), register the trace types a figure uses before it is drawn, draw a figure only once its
element is laid out, send clicks as widget messages, and not make the layout delta that no
trait of the kernel receives (:data:`LAYOUT_DELTA_TRAIT`). Outside ``kernelnb serve`` (a notebook,
JupyterLab, the tests) the variable is unset and the widget has plotly's own front end. In both,
a 2-D numeric array (a heat map's ``z``) is sent as binary rows (:func:`_to_js`), and the state
a new view starts from is the figure as it is when the view asks for it (:func:`_get_state_now`).

In a dashboard kernel of ``kernelnb serve`` this module also spares the kernel jsonschema's RFC 3987
grammar (:func:`skip_iri_grammar`), the largest part of the cost of plotly's widgets at start-up.
This module runs in the kernels: it imports nothing of the server.
"""
from __future__ import annotations

import copy
import os
import re
import sys

import numpy as np
import plotly.graph_objects as go
from traitlets import observe
from ipywidgets.widgets.widget import _remove_buffers
from plotly.serializers import _py_to_js as _plotly_to_js

__all__ = ["ESM_ENV", "LAYOUT_DELTA_TRAIT", "PLOTLY_GLOBAL", "PLOTLY_TRACES_GLOBAL", "FigureWidget", "esm_shim",
           "skip_iri_grammar"]

#: Environment variable with the bundle's path relative to the server's base URL.
ESM_ENV = "KERNELNB_PLOTLY_ESM"

#: Voila puts this variable ("True" or "False") in the environment of every kernel it starts, and
#: only there: with :data:`ESM_ENV`, it marks a dashboard kernel of ``kernelnb serve``.
_VOILA_KERNEL_ENV = "VOILA_PREHEAT"

#: The global that plotly's bundle, served as a classic script, assigns its exports to.
PLOTLY_GLOBAL = "__kernelnbPlotlyWidget"

#: The function the served bundle puts on the global object to register trace types on demand
#: (:func:`kernelnb.lab.server._plotly_bundle.defer_trace_registration`).
PLOTLY_TRACES_GLOBAL = "__kernelnbPlotlyWidgetTraces"

# An ES module (plotly-<hash>.js) or the classic script made from it (plotly-<hash>.classic.js).
_ROUTE = re.compile(r"^kernelnb/esm/plotly-[0-9a-f]{16}(?:\.classic)?\.js$")


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
{_DELTAS_JS}
{_layout_delta_js()}
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


# Trace deltas, reduced to the edit id.  After every restyle or update it draws, plotly's view
# sends the kernel the defaults plotly.js filled in ("trace deltas": every property of each
# trace's full data that differs from the widget's state), which the kernel keeps only as
# defaults for properties read back in Python, and answers by telling the view which of its own
# properties equal those defaults (one more message per trace).  The comparison walks every
# trace's full data at every step (about 6 ms of the page's main thread a step for the bounds
# explorer's two charts, Chromium's profiler), and its messages cross the server while the next
# chart is drawn; nothing of kernelnb reads those defaults back (a dashboard draws the same
# without a page, as in the tests).  This view sends each trace's uid and the edit id it was
# given: the kernel's bookkeeping of edits in flight (an edit from the page, a legend click,
# waits for them) is as before.
_DELTAS_JS = """m.FigureView.prototype._sendTraceDeltas = function (editId) {
  const data = this.model.get("_widget_data") || [];
  const full = (this.el && this.el._fullData) || [];
  const deltas = data.map((t, i) => ({uid: (t && t.uid) || (full[i] && full[i].uid)}));
  this.model.set("_js2py_traceDeltas", {trace_deltas: deltas, trace_edit_id: editId});
  this.touch();
};"""


# The layout delta no trait receives.  After every edit it draws, plotly's view also computes the
# whole layout plotly.js filled in, for its difference from the widget's layout to be kept by the
# kernel as defaults.  plotly 6's view sets it as "_js2py_widget_layoutDelta" (a renaming of
# "_layout" to "_widget_layout" in plotly.py#4956 reached this name too), a trait its Python side
# does not have (it observes "_js2py_layoutDelta"): ipywidgets sets only the traits a widget has,
# so the kernel drops the message once it has crossed the server.  While that is so, the view
# sends whatever else it has to send, and neither computes nor sends the delta: 2-7 ms of the
# page's main thread per chart and per step (the KMP playground's three charts, Chromium's
# profiler), which the next chart's drawing waits for.
LAYOUT_DELTA_TRAIT = "_js2py_widget_layoutDelta"

_LAYOUT_DELTA_JS = f"""const kbLayoutDelta = m.FigureView.prototype._sendLayoutDelta;
if (typeof kbLayoutDelta === "function" && String(kbLayoutDelta).includes("{LAYOUT_DELTA_TRAIT}")) {{
  m.FigureView.prototype._sendLayoutDelta = function () {{ this.touch(); }};
}}"""


def _layout_delta_js() -> str:
    """:data:`_LAYOUT_DELTA_JS` when the kernel's FigureWidget lacks the trait plotly's view sends
    the layout delta as (then nothing reads it), else nothing: a plotly whose view sends it
    where the kernel reads it keeps its own ``_sendLayoutDelta``."""
    return "" if LAYOUT_DELTA_TRAIT in go.FigureWidget.class_trait_names() else _LAYOUT_DELTA_JS


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


# Tick labels past the figure: left to the figure's bounds, not hidden one by one.  plotly.js's
# default ``ticklabeloverflow`` of a linear, log or date axis is "hide past div": after placing
# each tick label it measures every label of the axis (``getBoundingClientRect``) to hide those
# past the figure's edge, a number of measurements that grows as the square of the labels, at
# every drawing.  In Chromium that was 44 of the 74 ms the margin explorer's axes took per slider
# step (its three charts, the page's profiler), for labels that the figures' margins keep inside
# anyway.  "allow" draws them as placed.  Not for a colour bar: there "allow" takes a path that
# measures its labels' box once more (the bounds explorer's colour bar, 11 -> 55 ms a step).
TICKLABEL_OVERFLOW = "allow"
_AXIS = re.compile(r"^[xy]axis\d*$")


def _allow_ticklabel_overflow(fig):
    """The first x and y axes and every other cartesian axis of the figure's layout (those of
    ``make_subplots``, a secondary y): ``ticklabeloverflow`` :data:`TICKLABEL_OVERFLOW`, where
    the figure does not say otherwise (a figure built empty, its traces added later, has its
    first axes so), set as the figure is built, before any view draws it."""
    layout = fig.__dict__["_layout"]           # the figure's layout properties (a dict)
    # written into the properties themselves: the state a view starts from, no edit message
    # sorted: a set's order of strings changes from one process to the next, the layout's
    # keys (and a figure's JSON) would too
    for name in sorted({"xaxis", "yaxis", *(name for name in layout if _AXIS.match(name))}):
        layout.setdefault(name, {}).setdefault("ticklabeloverflow", TICKLABEL_OVERFLOW)


def _init(self, *args, **kwargs):
    go.FigureWidget.__init__(self, *args, **kwargs)
    _allow_ticklabel_overflow(self)


def _init_with_click_messages(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    self.on_msg(_on_click_message)
    # the served pages' typesetter leaves text as written (kernelnb.lab.server.app.plain_math_hook):
    # plotly is told not to typeset either, so that a label with two dollar signs stays text
    self._config = {**self._config, "typesetMath": False}


def _to_js(value, widget_manager):
    """plotly's serializer, which sends a 1-D numeric array as a binary buffer but a 2-D one as
    nested lists of JSON numbers, with 2-D numeric arrays sent as lists of row buffers.

    plotly's front end turns each ``{buffer, dtype, shape}`` into a typed array wherever it is
    (:func:`plotly.serializers._py_to_js` and its JavaScript counterpart), and plotly.js takes a
    heat map's or contour's ``z`` as an array of typed-array rows: so a grid goes in its grid form
    (``x`` and ``y`` the grid vectors, ``z`` rows along ``y``), in binary, rather than in column
    form (one (x, y, z) triple per node: three times the bytes, which plotly.js sorts back into
    a grid at every redraw).
    """
    if isinstance(value, dict):
        return {k: _to_js(v, widget_manager) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_js(v, widget_manager) for v in value]
    if (isinstance(value, np.ndarray) and value.ndim == 2 and value.shape[0] > 0
            and value.dtype.kind in "uif" and value.dtype.str[1:] not in ("i8", "u8")):
        rows = np.ascontiguousarray(value)
        dtype, shape = str(rows.dtype), (rows.shape[1],)
        return [{"buffer": memoryview(row), "dtype": dtype, "shape": shape} for row in rows]
    return _plotly_to_js(value, widget_manager)


#: The synced traits a new view of a figure starts from, and where the figure keeps them now.
_VIEW_START = {"_widget_data": lambda fig: fig.__dict__.get("_data"),
               "_widget_layout": lambda fig: getattr(fig.__dict__.get("_layout_obj"), "_props",
                                                     None)}


def _get_state_now(self, key=None, drop_defaults=False):
    """The widget's state (ipywidgets' ``get_state``), where the traces and layout a new view
    starts from (``_widget_data``, ``_widget_layout``) are the figure's as it is now.

    plotly sends an edit to the views that exist as a restyle/relayout message, and refreshes
    those two traits only when the figure is displayed by itself (``_repr_mimebundle_``); inside
    a box, a view made later (Voila's page, which asks for every widget's state once the
    notebook has run; a re-rendered output) would start from the figure as first built.
    Assigning the traits after every update would send every trace a second time, to views
    that have it already; they are instead read from the figure when a whole state is asked for
    (a page connecting, the widget opening), and only then.
    """
    if key is None:
        keys = self.keys
    elif isinstance(key, str):
        keys = [key]
    else:
        keys = list(key)
    # None: asked for while plotly builds the figure (its opening), when the traits are current
    now = {name: _VIEW_START[name](self) for name in keys if name in _VIEW_START}
    now = {name: value for name, value in now.items() if value is not None}
    state = go.FigureWidget.get_state(self, [k for k in keys if k not in now], drop_defaults)
    for name, value in now.items():
        # serialized at once into new containers (plotly's data arrays are read-only copies):
        # the message is made before the figure can change, so nothing is copied first
        to_json = self.trait_metadata(name, "to_json", self._trait_to_json)
        state[name] = to_json(value, self)
    return state


# Fewer messages a step.  plotly's Python side sends an edit (Plotly.update, restyle or relayout)
# by setting three synced traits, the two edit ids and the message, then the message back to
# None: four comm messages, each through the server and the page, for every chart and step; and
# it answers each message of the view (the trace deltas, a click, a legend click) with an echo
# of it (ipywidgets 8) and a message resetting it to None.  The view needs neither the echoes
# nor the resets (it reads a message when it comes, and each carries its own edit ids), so
# kernelnb's figure sends an edit as one message holding the edit ids and the edit, and sends
# back nothing of the view's messages.  What the kernel holds is unchanged: the messages are
# reset to None there, and a new view starts from the figure as it is (:func:`_get_state_now`).

#: plotly's edit messages to the view: each set to the edit, then back to None at once.
_EDITS = ("_py2js_update", "_py2js_restyle", "_py2js_relayout")
#: The edit ids plotly increments before an edit (the view reads them when it is made).
_EDIT_IDS = ("_last_trace_edit_id", "_last_layout_edit_id")
#: What :func:`_edit_in_one_message` holds for its one message.
_HELD = frozenset(_EDITS + _EDIT_IDS)


def _should_send_property(self, key, value):
    """ipywidgets' check before a synced trait is sent, which here also holds back the view's
    own messages (``_js2py_*``) and the edits' resets to None, and keeps the parts of an edit
    for the one message of :func:`_edit_in_one_message`."""
    if key.startswith("_js2py_") or (key in _EDITS and value is None):
        return False
    held = self.__dict__.get("_kb_held")
    if held is not None and key in _HELD:
        held[key] = value
        return False
    return go.FigureWidget._should_send_property(self, key, value)


def _edit_in_one_message(name):
    """plotly's ``name`` (``_send_update_msg``, ...), its edit ids and edit sent as one
    ``update`` message (ipywidgets' own form: the state, its buffers apart)."""
    base = getattr(go.FigureWidget, name)

    def send(self, *args, **kwargs):
        self._kb_held = held = {}
        try:
            base(self, *args, **kwargs)
        finally:
            self._kb_held = None
        if held:                    # nothing is held where the figure has no comm (a script)
            state = {key: self.trait_metadata(key, "to_json", self._trait_to_json)(value, self)
                     for key, value in held.items()}
            state, paths, buffers = _remove_buffers(state)
            self._send({"method": "update", "state": state, "buffer_paths": paths},
                       buffers=buffers)

    send.__name__ = send.__qualname__ = name
    send.__doc__ = f"plotly's {name}, sent as one message (kernelnb.lab.viz._figure_widget)."
    return send


# Edits that change nothing, where plotly sees a change.  plotly sends a trace's property when
# its new value differs from the one it holds (BasePlotlyType._vals_equal, np.array_equal for
# arrays), and an array holding NaN never equals itself there: the gaps between the pieces of a
# level line (viz.level_lines), the rows of a table not computed yet.  A chart drawn again with
# the same lines (the KMP playground's SVM plane when N moves, a complete result drawing its
# partial result's plane again) was sent them and redrawn by the page, tens of milliseconds on
# a laptop for nothing.  kernelnb's figure remembers the last such array it sent for each
# trace's property and drops an edit equal to it, NaN equal to NaN.  Every edit of a trace made
# in Python passes here (``_restyle_child``, inside ``batch_update`` or not); an edit from the
# view (a legend click) or a direct ``plotly_restyle`` or ``plotly_update`` does not, and makes
# the figure forget what it sent (``batch_update`` ends with a ``plotly_update`` of the edits
# that passed here: that one keeps it).


def _with_nan(value):
    return (isinstance(value, np.ndarray) and value.dtype.kind == "f"
            and bool(np.isnan(value).any()))


def _restyle_child(self, child, key_path_str, val):
    """plotly's ``_restyle_child`` without an edit of an array holding NaN equal (NaN equal to
    NaN) to the last one sent for that property of that trace."""
    sent = self.__dict__.setdefault("_kb_sent_nan", {})
    key = (child.uid, key_path_str)
    if _with_nan(val):
        last = sent.get(key)
        if last is not None and last.shape == val.shape and np.array_equal(last, val,
                                                                            equal_nan=True):
            return
        sent[key] = val
        if len(sent) > 4 * len(self.data) + 16:    # traces replaced since: theirs go
            uids = {t.uid for t in self.data}
            for k in [k for k in sent if k[0] not in uids]:
                del sent[k]
    else:
        sent.pop(key, None)
    go.FigureWidget._restyle_child(self, child, key_path_str, val)


def _batch_params(self):
    """plotly's ``_build_update_params_from_batch``, which ``batch_update`` calls at its end just
    before its ``plotly_update`` of the edits: the restyle it builds is kept, to know that call."""
    out = go.FigureWidget._build_update_params_from_batch(self)
    self.__dict__["_kb_batch_end"] = out[0]
    return out


def _forgetting(name):
    """plotly's ``name`` (``plotly_restyle``, ``plotly_update``, the view's restyle handler),
    with the arrays remembered by :func:`_restyle_child` forgotten first (the traces may hold
    others after it), except for the ``plotly_update`` that ends a ``batch_update`` (its edits
    of traces all passed through :func:`_restyle_child`)."""
    base = getattr(go.FigureWidget, name)

    def call(self, *args, **kwargs):
        batch = self.__dict__.pop("_kb_batch_end", None)
        given = kwargs.get("restyle_data", args[0] if args else None)
        if batch is None or given is not batch:
            self.__dict__.pop("_kb_sent_nan", None)
        return base(self, *args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"plotly's {name}, forgetting the NaN arrays sent (kernelnb)."
    if name == "_handler_js2py_restyle":      # a trait observer: it stays one, in its place
        return observe("_js2py_restyle")(call)
    return call


def _synced_traits(base):
    """The synced traits of ``base`` that kernelnb changes: those plotly serializes, with
    :func:`_to_js` instead, and the view's messages (``_js2py_*``), not echoed back to it."""
    out = {}
    for name, trait in base.class_traits(sync=True).items():
        metadata = dict(trait.metadata)
        if metadata.get("to_json") is _plotly_to_js:
            metadata["to_json"] = _to_js
        if name.startswith("_js2py_"):
            metadata["echo_update"] = False
        if metadata != trait.metadata:
            trait = copy.copy(trait)
            trait.metadata = metadata
            out[name] = trait
    return out


def _figure_widget_class():
    route = os.environ.get(ESM_ENV, "")
    attrs = {"__module__": __name__, **_synced_traits(go.FigureWidget),
             "get_state": _get_state_now, "_should_send_property": _should_send_property,
             **{name: _edit_in_one_message(name) for name in
                ("_send_update_msg", "_send_restyle_msg", "_send_relayout_msg")},
             "_restyle_child": _restyle_child, "_build_update_params_from_batch": _batch_params,
             **{name: _forgetting(name) for name in ("plotly_restyle", "plotly_update",
                                                         "_handler_js2py_restyle")},
             "__init__": _init,
             "__doc__": "plotly's FigureWidget, its 2-D numeric arrays sent as binary rows, an "
                        "edit sent as one message, a new "
                        "view's state read from the figure when asked for, tick labels drawn as "
                        "placed (ticklabeloverflow 'allow'), an unchanged array "
                        "holding NaN not sent again and, "
                        "under kernelnb serve, its front-end code imported from the server (see "
                        "kernelnb.lab.viz._figure_widget)."}
    if route and _ROUTE.match(route):
        attrs.update({"_esm": esm_shim(route), "__init__": _init_with_click_messages})
    return type("FigureWidget", (go.FigureWidget,), attrs)


skip_iri_grammar()
#: The class the dashboards build their charts with.
FigureWidget = _figure_widget_class()
