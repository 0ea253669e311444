"""plotly's widget bundle as ``kernelnb serve`` serves it: rewritten once per server process.

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
:func:`kernelnb.lab.server._plotly_bundle._classic_script.classic_script`) that puts its exports on
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
time they are called (:func:`~kernelnb.lab.server._plotly_bundle._on_demand.compile_on_demand`).
The shim also draws a figure only once its element is laid out: a chart hidden when the page opens
(a tab, a checkbox, another mode) is drawn when it is first shown, not at load.

The kernel side (the ``FigureWidget`` whose ``_esm`` loads this bundle, :data:`ESM_ENV`, the
globals the bundle fills) is :mod:`kernelnb.lab.viz._figure_widget`.
"""
from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from ...viz._figure_widget import ESM_ENV, PLOTLY_GLOBAL, PLOTLY_TRACES_GLOBAL, esm_shim

__all__ = [
    "COMPILE_HINT",
    "EAGER_TRACES",
    "ESM_ENV",
    "PLOTLY_GLOBAL",
    "PLOTLY_TRACES_GLOBAL",
    "UnexpectedBundle",
    "ServedBundle",
    "defer_trace_registration",
    "esm_shim",
    "plotly_bundle",
    "plotly_bundle_path",
    "plotly_bundle_route",
]

#: The trace types the dashboards draw besides scatter: the served bundle registers them when it
#: loads, and every other trace type the first time a figure has one.
EAGER_TRACES = frozenset({"contour", "heatmap"})

#: The first line of the served classic script: V8's explicit compile hint (Chromium 136 and
#: later; a plain comment elsewhere), which compiles every function of the script on the thread
#: that streams it in rather than on the page's main thread the first time each one runs.
COMPILE_HINT = "//# allFunctionsCalledOnLoad\n"

#: What plotly's bundle exports and the figures' shim re-exports.
_EXPORTS = ("FigureModel", "FigureView", "default")


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
    #: compiled when first called (:func:`~kernelnb.lab.server._plotly_bundle._on_demand.compile_on_demand`).
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
    bundle by :func:`~kernelnb.lab.server._plotly_bundle._classic_script.classic_script` and led by V8's compile
    hint (:data:`COMPILE_HINT`); when the bundle has a shape that rewrite refuses (another
    plotly), the module itself, with the reason. Either registers the trace types outside
    :data:`EAGER_TRACES` on demand (:func:`defer_trace_registration`), unless that rewrite finds
    another shape (then ``deferral_reason`` says which); when it does, the module factories and
    top-level functions that only the deferred types reach are served as text, compiled when
    first called
    (:func:`~kernelnb.lab.server._plotly_bundle._on_demand.compile_on_demand`; their number is ``on_demand``).
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
