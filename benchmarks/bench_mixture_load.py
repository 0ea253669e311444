"""How often a multi-class MixtureSVC fails on the embedded Dask cluster while the cores are busy.

Issue 44: on a 4-class problem of 500 points, 3 experts, with two other busy processes on two
cores, fits raised ``FutureCancelledError: ... cancelled for reason: lost dependencies``.  The
cause: the one-vs-rest fits (one two-class mixture per class, on one client) scattered their data
under keys derived from the data's content, the same keys for every class (the inputs are the
same); the previous class's fit released those keys as the next one scattered them again, and
when the scheduler handled the release second it forgot the new copy (dask/distributed issues
3703 and 8576).  The fit now scatters under keys of its own.

This script counts the failed fits of each way, alternating fit by fit so that all see the
same load:

* ``own``      -- the fit as it is (``hash=False``: each scatter's keys are its own);
* ``before``   -- the fit as it was before: ``distributed.Client.scatter`` forced to
  ``hash=True`` (Dask's default) and ``refit_held_out=False`` (the default then: one class's
  release is followed at once by the next class's scatter);
* ``content``  -- content keys with today's defaults (the refit between two classes' iterations
  narrows the window, but the refit's own data are the same for every class too).

The load: ``--busy`` processes (default: one per core) spinning a Python loop for the whole run,
started before the first fit; the load average is printed before and after.  Each fit is
``MixtureSVC(SVC(C=1, sigma=1), gater=GlobalGater(epochs=2), n_experts=3, max_iter=2)`` with
the default ``client=None`` (a fresh embedded cluster of one worker thread per core), on four Gaussian blobs (125 points each, a
new draw per fit); its test accuracy on 2,000 fresh points is printed beside its time.

Usage: python benchmarks/bench_mixture_load.py [--fits 100] [--busy 2] [--modes own,before,content]
"""
import argparse
import collections
import os
import subprocess
import sys
import time

import numpy as np

from kernelnb.largescale import GlobalGater, MixtureSVC
from kernelnb.svm import SVC

CENTRES = np.array([[0, 0], [3, 0], [0, 3], [3, 3]], dtype=float)


def blobs(n_per_class, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((4 * n_per_class, 2)) + np.repeat(CENTRES, n_per_class, axis=0)
    return X, np.repeat(np.arange(4), n_per_class)


def fit_once(seed, n_per_class, **kw):
    X, y = blobs(n_per_class, seed)
    Xt, yt = blobs(500, 10_000 + seed)
    t = time.perf_counter()
    m = MixtureSVC(SVC(C=1.0, sigma=1.0), gater=GlobalGater(epochs=2), n_experts=3, max_iter=2,
                   random_state=seed, **kw).fit(X, y)
    return time.perf_counter() - t, float(np.mean(m.predict(Xt) == yt))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fits", type=int, default=100, help="fits per mode")
    ap.add_argument("--busy", type=int, default=os.cpu_count(),
                    help="busy processes spinning during the run (default: one per core)")
    ap.add_argument("--n-per-class", type=int, default=125)
    ap.add_argument("--modes", default="own,before,content")
    args = ap.parse_args(argv)
    modes = args.modes.split(",")

    import distributed

    original = distributed.Client.scatter

    def content_keys(self, data, *a, **kw):
        kw["hash"] = True
        return original(self, data, *a, **kw)

    stats = {m: dict(fail=collections.Counter(), times=[], acc=[]) for m in modes}
    print(f"{os.cpu_count()} cores, {args.busy} busy processes, load before "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(args.busy)]
    try:
        time.sleep(1.0)
        for i in range(args.fits):
            for mode in modes:             # alternating: both modes under the same load
                distributed.Client.scatter = original if mode == "own" else content_keys
                try:
                    t, acc = fit_once(i, args.n_per_class,
                                      **({"refit_held_out": False} if mode == "before" else {}))
                except Exception as err:    # what a user would see, and what Dask said
                    cause = err.__cause__ or err
                    stats[mode]["fail"][f"{type(err).__name__} from {type(cause).__name__}: "
                                        f"{str(cause).splitlines()[0].split(': ')[-1][-50:]}"] += 1
                else:
                    stats[mode]["times"].append(t)
                    stats[mode]["acc"].append(acc)
                finally:
                    distributed.Client.scatter = original
            if (i + 1) % 10 == 0:
                print(f"  {i + 1} fits: " + ", ".join(
                    f"{m} {sum(stats[m]['fail'].values())} failed" for m in modes), flush=True)
        load = os.getloadavg()
    finally:
        for p in busy:
            p.kill()
            p.wait()
    print(f"load at the end (with the busy processes) {' '.join(f'{v:.2f}' for v in load)}")
    print(f"\n4 classes x {args.n_per_class} points, 3 experts, {args.fits} fits per mode")
    print(f"  {'mode':14s} {'failed':>8s} {'rate':>7s} {'fit s (median)':>15s} "
          f"{'test accuracy':>14s}")
    for mode in modes:
        s = stats[mode]
        n_fail = sum(s["fail"].values())
        med = np.median(s["times"]) if s["times"] else float("nan")
        acc = np.mean(s["acc"]) if s["acc"] else float("nan")
        print(f"  {mode:14s} {n_fail:8d} {100 * n_fail / args.fits:6.0f}% {med:15.2f} "
              f"{acc:14.4f}")
        for what, count in s["fail"].most_common():
            print(f"      {count:3d} x {what}")


if __name__ == "__main__":
    main()
