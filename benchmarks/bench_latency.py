"""Server-side latency of the SVM playground: from a slider change to the updated figure.

The playground (400 training points, 100 x 100 grid) runs in this process; every widget gets a
comm that serialises what it is sent (JSON for the state, binary buffers kept aside), as the kernel
does before handing the message to ZeroMQ. The time measured for one change runs from setting the
slider's value (what the front end's message does in the kernel) to the return of the observer,
i.e. fit + grid prediction + errors + figure update + message serialisation. Browser rendering is
not included.

Usage: python benchmarks/bench_latency.py [--changes 30] [--n 400] [--grid 100] [--profile]
"""
import argparse
import cProfile
import json
import pstats
import statistics
import time
import types
import uuid

import numpy as np


class SerialisingComm:
    """Stand-in for the kernel's comm: serialises every message and counts the bytes."""

    kernel = True  # ipywidgets sends only when the comm has a kernel

    def __init__(self, counter):
        self.comm_id = uuid.uuid4().hex
        self.counter = counter

    def send(self, data=None, metadata=None, buffers=None):
        t0 = time.perf_counter()
        text = json.dumps(data, default=str)
        c = self.counter
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=30)
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--grid", type=int, default=100)
    ap.add_argument("--slider", default="C", choices=["C", "sigma"])
    ap.add_argument("--profile", action="store_true", help="print the top of a cProfile run")
    args = ap.parse_args()

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
    main()
