"""The dashboards' plotly widgets under ``kernelnb serve``: the 5 MB front-end bundle is served once
by URL (content-hashed, cached by the browser) instead of travelling in every figure's state, as a
classic script made from plotly's ES module (whose compiled code the browser keeps)."""
from __future__ import annotations

import hashlib
import json
import logging
import re
import shutil
import subprocess
import sys
import urllib.request
import warnings

import pytest

import kernelnb.lab.server._plotly_bundle as _bundle
from kernelnb.lab.server._plotly_bundle import (
    COMPILE_HINT,
    EAGER_TRACES,
    UnexpectedBundle,
    _defer_trace_registration,
    defer_trace_registration,
    plotly_bundle,
    plotly_bundle_path,
    plotly_bundle_route,
)
from kernelnb.lab.viz import _figure_widget as _figure
from kernelnb.lab.viz._figure_widget import ESM_ENV, PLOTLY_GLOBAL, PLOTLY_TRACES_GLOBAL, esm_shim
from kernelnb.lab.server._plotly_bundle._on_demand import compile_on_demand


def _state_sizes(env_value):
    code = ("import json\n"
            "from kernelnb.lab.app import SVMPlayground\n"
            "app = SVMPlayground()\n"
            "sizes = [len(f.get_state()['_esm']) for f in app.figures]\n"
            "print(json.dumps([sizes, type(app.figures[0]).__module__]))\n")
    env = {k: v for k, v in __import__("os").environ.items() if k != ESM_ENV}
    if env_value is not None:
        env[ESM_ENV] = env_value
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=300, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.slow
def test_figures_carry_a_shim_only_when_the_server_says_so():
    route = plotly_bundle_route()
    sizes, module = _state_sizes(route)
    # the shim: a few kilobytes of loader, click, delta and trace-type code, not the 5 MB bundle
    assert module == "kernelnb.lab.viz._figure_widget" and all(s < 8000 for s in sizes), sizes
    bundle = len(plotly_bundle_path().read_text(encoding="utf-8"))
    # a notebook: plotly's own front end (kernelnb's class only sends 2-D arrays as binary rows)
    sizes, module = _state_sizes(None)
    assert all(s == bundle for s in sizes), (sizes, bundle)
    sizes_bad, _ = _state_sizes("../../etc/passwd")      # anything else: ignored, the same
    assert sizes_bad == sizes


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_shim_imports_the_route_relative_to_the_page_base_url():
    route = plotly_bundle_route()
    shim = esm_shim(route)
    assert f'base + "{route}"' in shim and "jupyter-config-data" in shim
    for name in ("FigureModel", "FigureView", "default"):   # what plotly's bundle exports
        assert name in shim
    bundle = plotly_bundle_path().read_text(encoding="utf-8", errors="replace")
    assert "FigureModel" in bundle and "FigureView" in bundle
    with pytest.raises(ValueError, match=ESM_ENV):
        esm_shim("https://example.org/x.js")


def test_installed_bundle_becomes_a_classic_script_with_its_exports_on_the_global():
    """plotly's module (its trace registration rewritten, the factories that only the deferred
    types reach left as text), its final ``export{...}`` (the last one of the file: an earlier one
    is inside a string) replaced by the assignment of the same bindings to the global."""
    raw, _, table = _defer_trace_registration(plotly_bundle_path().read_text(encoding="utf-8"),
                                              EAGER_TRACES, PLOTLY_TRACES_GLOBAL)
    assert raw[table[0]:].startswith("(new Map([") and raw[:table[1]].endswith("]))")
    raw, on_demand, _ = compile_on_demand(raw, ignore=[table])
    at = raw.rindex("export{")
    end = raw.index("}", at) + 1
    assert raw[end:].lstrip(";").strip().startswith(("/*", "//")) or not raw[end:].strip(";\n ")
    pairs = dict(reversed(p.split(" as ")) for p in raw[at + 7:end - 1].split(","))
    assert {"FigureModel", "FigureView", "default"} <= set(pairs)
    bundle = plotly_bundle()
    body = bundle.body.decode()
    assert bundle.classic and bundle.reason is None and bundle.deferral_reason is None
    assert bundle.on_demand == on_demand > 100
    assert bundle.route == ("kernelnb/esm/plotly-"
                            f"{hashlib.sha256(bundle.body).hexdigest()[:16]}.classic.js")
    assigned = ", ".join(f'"{name}": {local}' for name, local in pairs.items())
    assert body == (COMPILE_HINT + '(function () {\n"use strict";\n' + raw[:at].rstrip() + "\n"
                    f";globalThis.{PLOTLY_GLOBAL} = Object.freeze({{{assigned}}});\n}}());\n"
                    + raw[end:].lstrip(";"))


def test_installed_bundle_defers_every_trace_type_the_dashboards_do_not_draw():
    """Deferred: every trace module of the bundle (found here by its own declaration) but
    scatter and the eager ones; plotly's calendars component is still registered at load, and
    the rest of the bundle is unchanged."""
    raw = plotly_bundle_path().read_text(encoding="utf-8")
    traces = set(re.findall(r'moduleType:"trace",name:"([\w-]+)"', raw))
    assert {"scatter", "bar", "scatter3d"} | EAGER_TRACES <= traces
    out, deferred = defer_trace_registration(raw)
    assert set(deferred) == traces - {"scatter"} - EAGER_TRACES
    assert len(deferred) == len(set(deferred))
    [(core, now)] = re.findall(r"\),([\w$]+)\.register\(\[([^\]]*)\]\)\)", out)
    registered_now = {re.search(r'(?<![\w$.])' + re.escape(f[:-2]) + r'=[\w$]+\(\{"lib/([\w-]+)',
                                raw).group(1) for f in now.split(",")}
    assert registered_now == EAGER_TRACES | {"calendars"}
    at = out.index(f"(globalThis.{PLOTLY_TRACES_GLOBAL}=")
    end = out.index(f"{core}.register([{now}]))", at) + len(f"{core}.register([{now}]))")
    assert out[:at] + out[end:] == raw.replace(raw[at:raw.index("]),", at) + 2], "", 1)


# A bundle in esbuild's shape: the entry module registers its lib/ modules; bar and contour are
# trace modules, calendars a component.
FAKE_PLOTLY = """var ye=(d)=>d;var B=ye({"lib/bar.js"(e,r){r.exports={}}}),
C=ye({"lib/contour.js"(e,r){}}),K=ye({"lib/calendars.js"(e,r){}}),H=ye({"lib/heatmap.js"(e,r){}});
var tb={moduleType:"trace",name:"bar"},tc={moduleType:"trace",name:"contour"},
th={moduleType:"trace",name:"heatmap"},kc={moduleType:"component",name:"calendars"};
var I=ye({"lib/index.js"(e,r){var t=L();t.register([B(),C(),K(),H()]),r.exports=t}});"""


def test_deferred_registration_of_a_small_bundle():
    out, deferred = defer_trace_registration(FAKE_PLOTLY, eager={"contour"}, global_name="g")
    assert deferred == ("bar", "heatmap")
    assert ('var t=L();(globalThis.g=(__kbLater=>__kbTypes=>{for(const __kbType of __kbTypes){'
            'const __kbF=__kbLater.get(__kbType);if(__kbF){__kbLater.delete(__kbType);'
            't.register([__kbF()])}}})(new Map([["bar",B],["heatmap",H]])),'
            't.register([C(),K()])),r.exports=t}});') in out
    assert out.replace(out[out.index("(globalThis.g"):out.index(",r.exports=t")], "") == \
        FAKE_PLOTLY.replace("t.register([B(),C(),K(),H()])", "")


def test_the_modules_only_deferred_types_reach_are_served_as_text():
    """In the small bundle, with the table of deferred types set apart, bar's and heatmap's
    modules are reached from nothing that runs at load: their bodies become text; contour's and
    the calendars' (registered at load) stay code."""
    src = FAKE_PLOTLY + "\nvar plotly=I();"
    out, _, table = _defer_trace_registration(src, {"contour"}, "g")
    assert out[table[0]:table[1]] == '(new Map([["bar",B],["heatmap",H]]))'
    lazy, count, _ = compile_on_demand(out, ignore=[table])
    assert count == 2
    assert 'B=ye({"lib/bar.js"(e,r){return eval("(function(e,r){r.exports={}\\n})")' in lazy
    assert 'H=ye({"lib/heatmap.js"(e,r){return eval("(function(e,r){\\n})")' in lazy
    assert 'C=ye({"lib/contour.js"(e,r){}})' in lazy and 'K=ye({"lib/calendars.js"(e,r){}})' in lazy


@pytest.mark.parametrize("change, eager, reason", [
    (("lib/index.js", "lib/main.js"), {"contour"}, "found 0 times"),
    (("var I=", 'var J=ye({"lib/index.js"(e,r){t.register([B()])}});var I='), {"contour"},
     "found 2 times"),
    (("[B(),C(),", "[B(),B(),C(),"), {"contour"}, "registers a module twice"),
    (("K(),H()]", "K(),H(),Z()]"), {"contour"}, "factory Z is defined as a lib/ module 0 times"),
    (("K=ye(", 'B=ye({"lib/bar.js"(e,r){}}),K=ye('), {"contour"}, "factory B is defined"),
    (("", ""), {"contour", "violin"}, "registers no trace module violin"),
    (("", ""), {"contour", "bar", "heatmap"}, "no trace type to defer"),
    (("var t=L();t.", "var __kbX=L();__kbX."), {"contour"}, "named __kbX"),
])
def test_deferred_registration_refuses_what_it_does_not_know(change, eager, reason):
    with pytest.raises(UnexpectedBundle, match=re.escape(reason)):
        defer_trace_registration(FAKE_PLOTLY.replace(*change), eager=eager)


def test_deferred_registration_takes_only_an_identifier_for_its_global():
    with pytest.raises(ValueError, match="global_name must be a JavaScript identifier"):
        defer_trace_registration(FAKE_PLOTLY, eager={"contour"}, global_name="a=alert(1);b")


def test_a_bundle_registering_otherwise_is_served_registering_everything(
        fake_bundle, monkeypatch, caplog):
    from kernelnb.lab.server.app import _announce_plotly_bundle
    fake_bundle.write_text("const a = 0;\n"
                           "export{a as FigureModel, a as FigureView, a as default};\n")
    bundle = plotly_bundle()
    assert bundle.classic and bundle.deferred == () and "found 0 times" in bundle.deferral_reason
    assert PLOTLY_TRACES_GLOBAL not in bundle.body.decode()
    monkeypatch.setenv(ESM_ENV, "")                 # set by the announcement; put back after
    log = logging.getLogger("kernelnb.test.bundle")
    with caplog.at_level(logging.WARNING, logger=log.name):
        _announce_plotly_bundle(log)
    assert [r.getMessage() for r in caplog.records] == [
        "kernelnb: plotly's widget bundle registers all its trace types when a page loads it "
        "(about 1 s more of a first visit): plotly.js's entry module and its register([...]) "
        "call were found 0 times, not once"]


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js parses the script")
def test_installed_bundle_as_a_classic_script_parses(tmp_path):
    script = tmp_path / "plotly.cjs"      # a CommonJS file: node --check parses it as a script
    script.write_bytes(plotly_bundle().body)
    subprocess.run([shutil.which("node"), "--check", str(script)], check=True, timeout=120)


@pytest.fixture
def fake_bundle(tmp_path, monkeypatch):
    """Replace plotly's bundle by a file the test writes; the cached build is rebuilt before and
    after the test."""
    path = tmp_path / "widgetbundle.js"
    monkeypatch.setattr(_bundle, "plotly_bundle_path", lambda: path)
    plotly_bundle.cache_clear()
    yield path
    plotly_bundle.cache_clear()


def test_route_names_the_served_content(fake_bundle):
    routes = []
    for value in (1, 2):
        fake_bundle.write_text(f"const a = {value}, b = 0, c = 0;\n"
                               "export{a as FigureModel, b as FigureView, c as default};\n")
        plotly_bundle.cache_clear()
        bundle = plotly_bundle()
        assert bundle.classic and f"const a = {value}" in bundle.body.decode()
        assert bundle.route == ("kernelnb/esm/plotly-"
                                f"{hashlib.sha256(bundle.body).hexdigest()[:16]}.classic.js")
        routes.append(bundle.route)
    assert routes[0] != routes[1]


def test_a_bundle_of_another_shape_is_served_as_the_module_and_the_log_says_so(
        fake_bundle, monkeypatch, caplog):
    from kernelnb.lab.server.app import _announce_plotly_bundle
    fake_bundle.write_text("const a = import.meta.url;\n"
                           "export{a as FigureModel, a as FigureView, a as default};\n")
    bundle = plotly_bundle()
    raw = fake_bundle.read_bytes()
    assert not bundle.classic and bundle.body == raw and "import.meta" in bundle.reason
    assert bundle.route == f"kernelnb/esm/plotly-{hashlib.sha256(raw).hexdigest()[:16]}.js"
    monkeypatch.setenv(ESM_ENV, "")                 # set by the announcement; put back after
    log = logging.getLogger("kernelnb.test.bundle")
    with caplog.at_level(logging.WARNING, logger=log.name):
        assert _announce_plotly_bundle(log) == bundle.route
    # the module's reason, then the registration's (this bundle has no plotly.js in it)
    assert [r.getMessage().count("import.meta") for r in caplog.records] == [1, 0]
    assert "served as an ES module" in caplog.records[0].getMessage()
    assert "registers all its trace types" in caplog.records[1].getMessage()
    shim = esm_shim(bundle.route)
    assert "await import(url)" in shim and "createElement" not in shim


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_shim_loads_a_classic_route_with_one_script_element_per_page():
    route = plotly_bundle_route()
    assert route.endswith(".classic.js")
    shim = esm_shim(route)
    assert 'document.createElement("script")' in shim and "import(" not in shim
    assert "window.__kernelnbPlotlyLoads" in shim and f"window.{PLOTLY_GLOBAL}" in shim
    assert '"error"' in shim and "could not load plotly's widget bundle" in shim
    assert shim.index("const m = await loads[url];") < shim.index("m.FigureView.prototype")


def test_served_bundle_is_the_classic_script_and_cacheable(served):
    route = plotly_bundle_route()
    with urllib.request.urlopen(served + route, timeout=60) as r:
        body = r.read()
        assert r.headers["Content-Type"].startswith("text/javascript")
        assert r.headers["Cache-Control"] == "private, max-age=31536000, immutable"
    assert body == plotly_bundle().body
    assert body.rstrip().endswith(b"*/") and f"globalThis.{PLOTLY_GLOBAL} =".encode() in body


def test_served_dashboard_kernel_skips_only_the_iri_grammar():
    """In a dashboard kernel of ``kernelnb serve`` (Voila's and kernelnb's variables set), plotly's
    widgets load without jsonschema's RFC 3987 grammar; nbformat and jsonschema still work."""
    code = ("import json, sys\n"
            "from kernelnb.lab.viz._figure_widget import FigureWidget\n"
            "import nbformat, jsonschema\n"
            "nbformat.validate(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('1')]))\n"
            "bad = jsonschema.Draft7Validator({'type': 'integer'}).is_valid('x')\n"
            "print(json.dumps([sys.modules['rfc3987_syntax'] is None, 'nbformat' in sys.modules,\n"
            "                  FigureWidget.__module__, bad]))\n")
    env = dict(__import__("os").environ, **{ESM_ENV: plotly_bundle_route(),
                                             "VOILA_PREHEAT": "False"})
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=300, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == [True, True, "kernelnb.lab.viz._figure_widget",
                                                        False]


@pytest.mark.parametrize("route_ok, voila, expected", [(True, True, True), (True, False, False),
                                                        (False, True, False)])
def test_only_a_served_dashboard_kernel_counts_as_one(monkeypatch, route_ok, voila, expected):
    monkeypatch.setenv(ESM_ENV, plotly_bundle_route() if route_ok else "../x.js")
    if voila:
        monkeypatch.setenv("VOILA_PREHEAT", "True")
    else:
        monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    assert _figure._served_kernel() is expected
    # this process has imported jsonschema long ago: nothing to skip here, in any case
    assert _figure.skip_iri_grammar() is False


def test_pages_preload_the_bundle_the_figures_load(served):
    """A dashboard page asks the browser for the bundle from its head, at the URL the figures'
    shim loads (base URL of the page + route), as a script, so that the figures' script element
    finds it already fetched."""
    with urllib.request.urlopen(served + "voila/render/margin_losses.ipynb", timeout=300) as r:
        page = r.read().decode()
    assert "modulepreload" not in page
    links = re.findall(r'<link rel="preload" as="script" href="([^"]+)">', page)
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">'
                                  r"(.*?)</script>", page, re.DOTALL).group(1))
    assert links == [config["baseUrl"] + plotly_bundle_route()]
    assert page.index('rel="preload" as="script"') < page.index("</head>")


def test_template_resource_keeps_what_the_user_gave():
    from traitlets.config import Config
    from traitlets.config.loader import DeferredConfigString

    from kernelnb.lab.server.app import _add_template_resource
    config = Config()
    _add_template_resource(config, "kernelnb_plotly_bundle", "kernelnb/esm/plotly-0.js")
    assert config.VoilaConfiguration.resources == {"kernelnb_plotly_bundle":
                                                   "kernelnb/esm/plotly-0.js"}
    config = Config()
    config.VoilaConfiguration.resources = {"theme": "dark"}          # a configuration file
    _add_template_resource(config, "k", "v")
    assert config.VoilaConfiguration.resources == {"theme": "dark", "k": "v"}
    config = Config()                                                 # the command line
    config.VoilaConfiguration.resources = DeferredConfigString("{'theme': 'dark'}")
    with warnings.catch_warnings():       # traitlets deprecates this form; Voila still reads it
        warnings.simplefilter("ignore", DeprecationWarning)
        _add_template_resource(config, "k", "v")
    assert config.VoilaConfiguration.resources == {"theme": "dark", "k": "v"}


def test_a_click_message_reaches_the_trace_callback_and_a_malformed_one_nothing():
    """The shim's view sends a click as a message of its own: the kernel side hands it to
    plotly's points callback (the trace's on_click gets the point); anything else a page could
    send (a trace that does not exist, a missing list, another event) calls nothing."""
    import plotly.graph_objects as go

    from kernelnb.lab.viz._figure_widget import _on_click_message

    fig = go.FigureWidget(go.Figure([go.Heatmap(z=[[1, 2], [3, 4]]), go.Scatter(x=[0], y=[0])]))
    got = []
    fig.data[0].on_click(lambda trace, points, state: got.append((points.xs, points.ys)))
    click = {"xs": [0.5], "ys": [1.0], "point_indexes": [[1, 0]], "trace_indexes": [0]}
    for bad in ({**click, "trace_indexes": [7]}, {**click, "xs": None}, {"points": click},
                {"kernelnb_event": "plotly_hover", "points": click}, "click", None):
        content = bad if not isinstance(bad, dict) or "kernelnb_event" in bad or "points" in bad \
            else {"kernelnb_event": "plotly_click", "points": bad}
        _on_click_message(fig, content, [])
    assert got == []
    _on_click_message(fig, {"kernelnb_event": "plotly_click", "points": click}, [])
    assert got == [([0.5], [1.0])]


def test_the_installed_plotly_has_what_the_click_messages_use():
    """The click messages rely on two internals of plotly's FigureWidget that plotly offers no
    public form of (docs/architecture.md, "Upstream internals kernelnb still relies on"): in the
    front end, the view's methods the shim wraps and calls (``handle_plotly_click``, which plotly's
    'plotly_click' listener calls, ``buildPointsObject``, ``buildInputDeviceStateObject``); in the
    kernel, the handler of the synced points trait. A plotly without them fails here."""
    import inspect

    import plotly.graph_objects as go

    src = plotly_bundle_path().read_text(encoding="utf-8")
    assert re.search(r"\.handle_plotly_click\([\w$]+\)", src), "no plotly_click listener calls it"
    for method in ("handle_plotly_click", "buildPointsObject", "buildInputDeviceStateObject"):
        defined = re.findall(r"[}\s;]" + method + r"\([\w$]+\)\{", src)
        assert len(defined) == 1, f"FigureView.{method} is defined {len(defined)} times"
    handler = getattr(go.FigureWidget, "_handler_js2py_pointsCallback", None)
    handler = getattr(handler, "func", handler)          # traitlets' @observe wraps it
    assert callable(handler), "plotly's FigureWidget has no _handler_js2py_pointsCallback"
    assert list(inspect.signature(handler).parameters) == ["self", "change"]


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js runs the script")
def test_trace_deltas_are_the_uids_and_the_edit_id(tmp_path):
    """The shim's trace deltas: each trace's uid (from the widget's data, else from plotly.js's
    full data) and the edit id the view was given, none of the data or defaults."""
    script = tmp_path / "deltas.cjs"
    script.write_text("const m = {FigureView: function () {}};\n" + _figure._DELTAS_JS + """
const sent = {};
const view = Object.create(m.FigureView.prototype);
const x = new Float32Array(6400);
view.model = {get: () => [{uid: "a", x, z: x, name: "f", line: {width: 2}}, {name: "g"}],
              set: (k, v) => { sent[k] = v; }};
view.touch = () => {};
view.el = {_fullData: [{index: 0, uid: "a", x: new Float32Array(6400), z: x, name: "f",
                        visible: true, line: {width: 2, dash: "solid"}},
                       {index: 1, uid: "b", name: "g", visible: true}]};
view._sendTraceDeltas(7);
console.log(JSON.stringify(sent));
""")
    out = subprocess.run([shutil.which("node"), str(script)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert json.loads(out) == {"_js2py_traceDeltas": {"trace_edit_id": 7, "trace_deltas": [
        {"uid": "a"}, {"uid": "b"}]}}


def test_the_installed_plotly_view_sends_trace_deltas_as_the_shim_replaces_them():
    from pathlib import Path

    import plotly
    body = (Path(plotly.__file__).parent / "package_data" / "widgetbundle.js").read_text()
    assert '_sendTraceDeltas(' in body and 'this.model.set("_js2py_traceDeltas"' in body
    assert "trace_deltas:" in body and "trace_edit_id:" in body


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js runs the script")
def test_the_layout_delta_no_trait_receives_is_not_made(tmp_path):
    """A view whose _sendLayoutDelta sets the trait the kernel lacks (plotly 6) sends its other
    changes (touch) and neither computes the full layout nor sets that trait; a view that sends
    the delta under another name keeps its own method."""
    script = tmp_path / "layout.cjs"
    script.write_text("""
const calls = [];
function make(name) {
  const View = function () {};
  View.prototype._sendLayoutDelta = new Function("e",
    "this.getFullLayout(); this.model.set('" + name + "', {layout_edit_id: e}); this.touch();");
  const m = {FigureView: View};
  """ + _figure._LAYOUT_DELTA_JS + """
  const v = Object.create(View.prototype);
  v.model = {set: (k) => calls.push(name + ": set " + k)};
  v.touch = () => calls.push(name + ": touch");
  v.getFullLayout = () => calls.push(name + ": full layout");
  v._sendLayoutDelta(3);
}
make("%s");
make("_js2py_layoutDelta");
console.log(JSON.stringify(calls));
""" % _figure.LAYOUT_DELTA_TRAIT)
    out = subprocess.run([shutil.which("node"), str(script)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    name = _figure.LAYOUT_DELTA_TRAIT
    assert json.loads(out) == [f"{name}: touch", "_js2py_layoutDelta: full layout",
                               "_js2py_layoutDelta: set _js2py_layoutDelta",
                               "_js2py_layoutDelta: touch"]


def test_the_installed_plotly_sends_its_layout_delta_where_the_kernel_does_not_read_it():
    """The premise of the shim's layout-delta override: plotly's view sets
    LAYOUT_DELTA_TRAIT, which plotly's FigureWidget does not have; the shim then carries the
    override, and would not for a FigureWidget that had the trait."""
    from pathlib import Path
    from unittest import mock

    import plotly
    import plotly.graph_objects as go
    body = (Path(plotly.__file__).parent / "package_data" / "widgetbundle.js").read_text()
    assert f'this.model.set("{_figure.LAYOUT_DELTA_TRAIT}"' in body
    assert _figure.LAYOUT_DELTA_TRAIT not in go.FigureWidget.class_trait_names()
    assert _figure._LAYOUT_DELTA_JS in esm_shim("kernelnb/esm/plotly-0123456789abcdef.classic.js")
    with mock.patch.object(go.FigureWidget, "class_trait_names",
                           return_value=[_figure.LAYOUT_DELTA_TRAIT]):
        assert _figure._layout_delta_js() == ""
