"""Server-side latency of the SVM playground: from a slider change to the updated figure.

The playground (400 training points, 100 x 100 grid) runs in this process; every widget gets a
comm that serialises what it is sent (JSON for the state, binary buffers kept aside), as the kernel
does before handing the message to ZeroMQ. The time measured for one change runs from setting the
slider's value (what the front end's message does in the kernel) to the return of the observer,
i.e. fit + grid prediction + errors + figure update + message serialisation. Browser rendering is
not included.

Usage: python benchmarks/bench_latency.py [--changes 30] [--n 400] [--grid 100] [--profile]

Every dashboard (``--dashboards all``, or names such as ``svm_playground,kmp_playground``): each in
a fresh interpreter started as a dashboard kernel of ``kernelnb serve`` is (the variables Voila
and kernelnb serve put in a kernel's environment), what its notebook's code cell costs, split into
the imports an IPython kernel has before any cell (ipykernel, ipywidgets), the cell's import and
the build with the first update (CPU and wall seconds each), the process's memory after (RSS and
USS, the memory no other process shares), then the latency of ``--changes`` changes of each
control (values spread over its range, options in turn), p50 and p95 in ms (wall and CPU), through
the same serialising comms::

    python benchmarks/bench_latency.py --dashboards all [--changes 8] [--repo CHECKOUT] [--no-loop]

The changes run as in a kernel: inside a running asyncio loop, so that a dashboard that draws
partial results (``Dashboard._steps``) draws the first one, returns, and finishes in its
``pending`` task, which is awaited. Per change three times are kept: until the first message to
a figure leaves (what the page sees first: a partial result, else the complete one), until the
control's observer returns (after which the kernel reads the next control change), and until
the update is complete; and the CPU seconds of it all. ``--no-loop``: no loop, every update
complete before the observer returns (an update called from Python; the measure before partial
results existed). The last table gives, per dashboard, p50, p95 and max over all its changes:
the issue's goal is p95 <= 1 s and max <= 5 s for the complete update, or else the first
drawing within 0.5 s.

``--repo`` runs the dashboards of another checkout (its ``kernelnb`` first on ``sys.path`` and its
``dashboards/`` notebooks), e.g. a worktree at an older commit, for a before/after table.
"""
import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
import types
import uuid
from pathlib import Path

import numpy as np


class SerialisingComm:
    """Stand-in for the kernel's comm: serialises every message and counts the bytes; a
    figure's comm (``figure``) notes when its first message after ``counter.first_figure`` was
    reset leaves."""

    kernel = True  # ipywidgets sends only when the comm has a kernel

    def __init__(self, counter, figure=False):
        self.comm_id = uuid.uuid4().hex
        self.counter = counter
        self.figure = figure

    def send(self, data=None, metadata=None, buffers=None):
        t0 = time.perf_counter()
        text = json.dumps(data, default=str)
        c = self.counter
        if self.figure and getattr(c, "first_figure", 0) is None:
            c.first_figure = time.perf_counter()
        c.bytes += len(text) + sum(memoryview(b).nbytes for b in (buffers or []))
        c.messages += 1
        c.seconds += time.perf_counter() - t0

    def on_msg(self, *a, **k):
        pass

    def close(self, *a, **k):
        pass


def _all_widgets(w, seen=None):
    seen = set() if seen is None else seen
    if id(w) in seen:
        return []
    seen.add(id(w))
    out = [w]
    for child in getattr(w, "children", ()) or ():
        out += _all_widgets(child, seen)
    return out


# ------------------------------------------------------------------------ every dashboard
def _control_values(w, k, rng):
    """``k`` values for the widget ``w`` spread over what it can hold (None: not a control to
    move: a button, a text, a multiple selection)."""
    value = getattr(w, "value", None)
    options = getattr(w, "options", None)
    if isinstance(value, bool):
        return [not value if i % 2 == 0 else value for i in range(k)]
    if options is not None and not isinstance(value, (tuple, list)):
        opts = [o[1] if isinstance(o, tuple) and len(o) == 2 else o for o in options]
        others = [o for o in opts if o != value] or opts
        return [others[i % len(others)] if i % 2 == 0 else value for i in range(k)]
    lo, hi = getattr(w, "min", None), getattr(w, "max", None)
    if lo is None or hi is None or isinstance(value, (tuple, list)):
        return None
    if hasattr(w, "base"):                           # FloatLogSlider: min/max are exponents
        vals = w.base ** rng.uniform(lo, hi, k)
    else:
        vals = rng.uniform(lo, hi, k)
    if isinstance(value, int):
        step = int(getattr(w, "step", 1) or 1)
        vals = [int(lo + step * round((v - lo) / step)) for v in vals]
    return [float(v) if not isinstance(v, int) else v for v in vals]


def one_dashboard(notebook, changes, loop=True):
    """Run ``notebook``'s code cell in this (fresh) process; a dict of timings (see the module's
    docstring)."""
    timings = {}
    c0, t0 = time.process_time(), time.perf_counter()
    import ipykernel.kernelapp  # noqa: F401 - what a kernel has imported before any cell
    import ipywidgets  # noqa: F401
    c1, t1 = time.process_time(), time.perf_counter()
    cells = [c for c in json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "code"]
    source = "".join(cells[0]["source"]).strip()
    head, _, expr = source.rpartition("\n")
    ns = {}
    exec(head, ns)  # noqa: S102 - the notebook's own cell, as its kernel runs it
    c2, t2 = time.process_time(), time.perf_counter()
    expr = expr.strip()
    if not expr.endswith(".widget"):
        raise SystemExit(f"{notebook}: its cell does not end with '<Dashboard>(...).widget'")
    app = eval(expr[:-len(".widget")], ns)           # the notebook's own cell
    app.widget  # noqa: B018 - what the cell shows
    c3, t3 = time.process_time(), time.perf_counter()
    timings.update(kernel_cpu=c1 - c0, kernel_wall=t1 - t0, import_cpu=c2 - c1,
                   import_wall=t2 - t1, build_cpu=c3 - c2, build_wall=t3 - t2,
                   first_update_ms=app.last_stats.get("update_ms"),
                   first_error=app.last_error)
    try:
        import psutil
        mem = psutil.Process().memory_full_info()
        timings.update(rss_mb=mem.rss / 2**20, uss_mb=mem.uss / 2**20)
    except (ImportError, AttributeError):
        timings.update(rss_mb=None, uss_mb=None)
    timings["modules"] = {m: m in sys.modules and sys.modules[m] is not None
                          for m in ("nbformat", "jsonschema", "rfc3987_syntax", "sklearn",
                                    "scipy.stats", "pandas")}

    counter = types.SimpleNamespace(bytes=0, messages=0, seconds=0.0, first_figure=0)
    figures = {id(f) for f in app.figures}
    for w in _all_widgets(app.widget) + list(app.figures):
        w.comm = SerialisingComm(counter, figure=id(w) in figures)
    rng = np.random.RandomState(0)
    start = app.params()
    per_control = {}

    async def one_change(name, w, v):
        """Seconds until the first figure message, the observer's return and the complete
        update, and CPU seconds; None when the widget refuses ``v``."""
        counter.first_figure = None
        c, t = time.process_time(), time.perf_counter()
        try:
            w.value = v
        except Exception as exc:  # noqa: BLE001 - a value the widget refuses: not timed
            print(f"{name}={v!r} refused: {exc}", file=sys.stderr)
            return None
        returned = time.perf_counter()
        task = getattr(app, "pending", None)
        if task is not None:
            try:
                await task
            except asyncio.CancelledError:
                pass
        end = time.perf_counter()
        first = counter.first_figure if counter.first_figure is not None else end
        return first - t, returned - t, end - t, time.process_time() - c

    async def run_all():
        for name, w in app.controls.items():
            values = _control_values(w, changes, rng)
            if not values:
                continue
            rows, errors = [], 0
            for v in values:
                row = await one_change(name, w, v)
                if row is not None:
                    rows.append(row)
                    errors += bool(app.last_error)
            app.update(**start)
            if rows:
                first, returned, walls, cpus = (1e3 * np.array(col) for col in zip(*rows))
                per_control[name] = {
                    "n": len(rows), "errors": errors,
                    "p50": float(np.percentile(walls, 50)), "p95": float(np.percentile(walls, 95)),
                    "cpu_p50": float(np.percentile(cpus, 50)),
                    "cpu_p95": float(np.percentile(cpus, 95)),
                    "walls": walls.tolist(), "cpus": cpus.tolist(), "first": first.tolist(),
                    "returned": returned.tolist()}

    if loop:
        asyncio.run(run_all())
    else:                    # no running loop: every update is complete when the setter returns
        coro = run_all()
        try:
            coro.send(None)
        except StopIteration:
            pass
        else:
            raise RuntimeError("an update left work pending without an event loop")
    timings["controls"] = per_control
    return timings


def served_kernel_env(repo=None):
    """This process's environment as a dashboard kernel of ``kernelnb serve`` would see it, with
    the checkout ``repo`` first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(repo), *filter(None, [env.get("PYTHONPATH")])])
    try:
        from kernelnb.lab.server._plotly_bundle import ESM_ENV, plotly_bundle_route
        env[ESM_ENV] = plotly_bundle_route()
    except ImportError:              # an older checkout: its kernels had no such variable
        pass
    env.setdefault("VOILA_PREHEAT", "False")
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, "1")    # as kernelnb serve sets them for its kernels
    return env


def all_dashboards(args):
    repo = Path(args.repo).resolve() if args.repo else Path(__file__).resolve().parents[1]
    folder = repo / "dashboards"
    names = (sorted(p.stem for p in folder.glob("*.ipynb")) if args.dashboards == "all"
             else [n.strip() for n in args.dashboards.split(",") if n.strip()])
    env = served_kernel_env(repo)
    results = {}
    for name in names:
        try:
            proc = subprocess.run([sys.executable, __file__, "--one",
                                   str(folder / f"{name}.ipynb"), "--changes", str(args.changes)]
                                  + (["--no-loop"] if args.no_loop else []),
                                  capture_output=True, text=True, env=env, timeout=args.timeout,
                                  check=False)
        except subprocess.TimeoutExpired:
            print(f"{name}: FAILED: not done within --timeout {args.timeout:.0f} s", flush=True)
            continue
        lines = proc.stdout.strip().splitlines()
        if proc.returncode or not lines:
            print(f"{name}: FAILED\n{proc.stderr[-2000:]}", flush=True)
            continue
        r = results[name] = json.loads(lines[-1])
        print(f"{name}: import {r['import_cpu']:.2f} s CPU, build {r['build_cpu']:.2f} s CPU",
              file=sys.stderr, flush=True)

    print(f"\nDashboards of {repo} as served kernels ({os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}): CPU s / wall s of each step, memory after the first chart")
    head = (f"{'dashboard':<22} {'kernel':>11} {'cell import':>11} {'build+1st':>11} "
            f"{'1st upd ms':>10} {'RSS MB':>7} {'USS MB':>7}  nbformat rfc3987")
    print(head)
    for name, r in results.items():
        m = r["modules"]
        print(f"{name:<22} {r['kernel_cpu']:5.2f}/{r['kernel_wall']:<5.2f} "
              f"{r['import_cpu']:5.2f}/{r['import_wall']:<5.2f} "
              f"{r['build_cpu']:5.2f}/{r['build_wall']:<5.2f} "
              f"{r['first_update_ms'] or float('nan'):10.0f} "
              f"{r['rss_mb'] or float('nan'):7.0f} {r['uss_mb'] or float('nan'):7.0f}  "
              f"{'yes' if m['nbformat'] else 'no':>8} {'yes' if m['rfc3987_syntax'] else 'no':>7}"
              + (f"  ERROR: {r['first_error']}" if r["first_error"] else ""))
    if results:
        cols = ("kernel_cpu", "import_cpu", "build_cpu", "rss_mb", "uss_mb")
        means = {c: statistics.mean(r[c] for r in results.values() if r[c] is not None)
                 for c in cols}
        print(f"{'mean':<22} {means['kernel_cpu']:5.2f}       {means['import_cpu']:5.2f}       "
              f"{means['build_cpu']:5.2f}       {'':10} {means['rss_mb']:7.0f} "
              f"{means['uss_mb']:7.0f}")
    print(f"\nControl changes ({args.changes} each): slider change -> update complete, ms "
          "(wall p50 / p95 / max, CPU p50 / p95), and the first figure message (wall p95)"
          + (" (no event loop)" if args.no_loop else ""))
    for name, r in results.items():
        for control, c in r["controls"].items():
            print(f"{name:<22} {control:<22} {c['p50']:8.1f} {c['p95']:8.1f} "
                  f"{max(c['walls']):8.1f}   {c['cpu_p50']:8.1f} {c['cpu_p95']:8.1f}   "
                  f"{np.percentile(c['first'], 95):8.1f}"
                  + (f"   ({c['errors']} of {c['n']} showed an error)" if c["errors"] else ""))
    print(f"\nPer dashboard, all its changes together (load {os.getloadavg()[0]:.1f}): "
          "p50 / p95 / max, s")
    print(f"{'dashboard':<22} {'n':>4}  {'complete (wall)':>20}  {'CPU':>20}  "
          f"{'first figure msg (wall)':>23}  {'observer returns':>20}")

    def trio(xs):
        xs = np.asarray(xs) / 1e3
        return (f"{np.percentile(xs, 50):6.2f} {np.percentile(xs, 95):6.2f} "
                f"{xs.max():6.2f}")

    for name, r in results.items():
        cs = r["controls"].values()
        pool = {k: [x for c in cs for x in c[k]] for k in ("walls", "cpus", "first", "returned")}
        if pool["walls"]:
            print(f"{name:<22} {len(pool['walls']):4d}  {trio(pool['walls']):>20}  "
                  f"{trio(pool['cpus']):>20}  {trio(pool['first']):>23}  "
                  f"{trio(pool['returned']):>20}")
    return 0 if len(results) == len(names) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dashboards", default=None, metavar="NAMES",
                    help="'all' or comma-separated dashboards: the per-dashboard table")
    ap.add_argument("--repo", default=None, metavar="CHECKOUT",
                    help="with --dashboards: the checkout whose kernelnb and dashboards to run")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="with --dashboards: seconds each dashboard may take")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--no-loop", action="store_true",
                    help="with --dashboards: no event loop (every update complete at once)")
    ap.add_argument("--changes", type=int, default=None,
                    help="changes per control (default 30; 8 with --dashboards)")
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--grid", type=int, default=100)
    ap.add_argument("--slider", default="C", choices=["C", "sigma"])
    ap.add_argument("--profile", action="store_true", help="print the top of a cProfile run")
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one_dashboard(args.one, args.changes or 8, loop=not args.no_loop)))
        return 0
    if args.dashboards:
        args.changes = args.changes or 8
        return all_dashboards(args)
    args.changes = args.changes or 30

    from kernelnb.lab.app import SVMPlayground
    from kernelnb.lab.viz import decision_grid

    app = SVMPlayground(grid=args.grid, n_samples=args.n, dataset="moons", noise=0.2)
    comm = types.SimpleNamespace(bytes=0, messages=0, seconds=0.0)
    for w in _all_widgets(app.widget) + list(app.figures):
        w.comm = SerialisingComm(comm)
    rng = np.random.RandomState(0)
    if args.slider == "C":
        values = 10 ** rng.uniform(-1, 2, args.changes)
    else:
        values = 10 ** rng.uniform(np.log10(0.2), np.log10(1.5), args.changes)
    slider = app.controls[args.slider]
    slider.value = float(values[-1] * 1.01)  # warm up
    comm.bytes = comm.messages = 0

    prof = cProfile.Profile() if args.profile else None
    total, fit, grid_pred, ser = [], [], [], []
    for v in values:
        comm.seconds = 0.0
        if prof:
            prof.enable()
        t0 = time.perf_counter()
        slider.value = float(v)
        t1 = time.perf_counter()
        if prof:
            prof.disable()
        assert not app.last_error, app.last_error
        total.append(1e3 * (t1 - t0))
        fit.append(app.last_stats["fit_time_ms"])
        ser.append(1e3 * comm.seconds)
        # the grid prediction alone, on a model fitted with the same parameters
        from kernelnb.svm import SVC
        X, y = app._data(app.params())
        m = SVC(C=app.controls["C"].value, sigma=app.controls["sigma"].value, coef0=1.0).fit(X, y)
        t2 = time.perf_counter()
        decision_grid(m, app._bounds, args.grid)
        grid_pred.append(1e3 * (time.perf_counter() - t2))

    def row(name, xs):
        xs = np.asarray(xs)
        return f"{name:<34} {np.median(xs):9.1f} {np.percentile(xs, 90):9.1f} {xs.mean():9.1f}"

    print(f"SVM playground latency: {args.changes} changes of {args.slider}, n = {args.n} training "
          f"points, {args.grid} x {args.grid} grid, {comm.messages} messages, "
          f"{comm.bytes / max(len(values), 1) / 1e3:.0f} kB per change")
    print(f"{'':<34} {'median':>9} {'p90':>9} {'mean':>9}   (ms)")
    print(row("slider change -> figure sent", total))
    print(row("  of which SVC fit", fit))
    print(row("  of which message serialisation", ser))
    print(row("grid prediction alone (same model)", grid_pred))
    print(f"goal: median under 100 ms -> {'met' if statistics.median(total) < 100 else 'NOT met'}")
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    sys.exit(main())
