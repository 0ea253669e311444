"""Where MixtureSVC's experts run: serially, on a thread pool (no Dask), on Dask's LocalCluster.

The mixture's default ``client=None`` starts an embedded Dask ``LocalCluster`` of worker threads
when the ``dask`` extra is installed, and a ``concurrent.futures`` thread pool (``client='threads'``)
when it is not (issue 48); ``client='serial'`` runs the experts one after the other. The three
train the same model for a seed: this benchmark fits each on the same mid-size problem, checks
that their predictions agree, and reports the wall time (best of ``--repeats``), the test error
beside it, and each engine's time against the serial fit of the same run.

Problem: ``make_large_problem`` (20 features, 64 labelled Gaussian clusters), ``--n`` training
points (default 20,000: about 8 experts of 2,000 points), 10,000 test points; ``C=10``,
``sigma='scale'``, 2 outer iterations, ``n_jobs`` workers or threads (default 2).

Run: ``python benchmarks/bench_mixture_engines.py`` (a few minutes on 2 cores), ``--n 10000``,
``--save`` to write ``benchmarks/results/mixture_engines.json``.
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_now, load_text, save_table  # noqa: E402

from kernelnb.datasets import make_large_problem  # noqa: E402
from kernelnb.largescale import MixtureSVC  # noqa: E402
from kernelnb.svm import SVC  # noqa: E402
from kernelnb.largescale._dask import distributed_available  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "mixture_engines.json"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20000, help="training points (default 20,000)")
    ap.add_argument("--jobs", type=int, default=2, help="workers / threads (default 2)")
    ap.add_argument("--repeats", type=int, default=2, help="fits per engine, best kept")
    ap.add_argument("--save", action="store_true", help=f"write {RESULTS.name}")
    args = ap.parse_args()

    X, y = make_large_problem(args.n + 10000, random_state=0)
    X, Xt, y, yt = X[:args.n], X[args.n:], y[:args.n], y[args.n:]
    kw = dict(expert=SVC(C=10.0, sigma="scale"), max_iter=2, n_iter_no_change=None, random_state=0)
    engines = [("serial", "serial", 1), ("thread pool (client='threads')", "threads", args.jobs)]
    if distributed_available():
        engines.append(("Dask LocalCluster (client=None)", None, args.jobs))
    start = load_now()
    rows, reference, t_serial = [], None, None
    print(f"MixtureSVC on make_large_problem, n={args.n}, {args.jobs} workers; "
          f"load {start:.1f}", flush=True)
    for name, client, jobs in engines:
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            m = MixtureSVC(client=client, n_jobs=jobs, **kw).fit(X, y)
            times.append(time.perf_counter() - t0)
        pred = m.predict(Xt)
        if reference is None:
            reference = pred
        same = bool(np.array_equal(pred, reference))
        best = min(times)
        t_serial = best if t_serial is None else t_serial
        err = float(np.mean(pred != yt))
        rows.append([name, jobs, m.n_experts_, f"{best:.1f}", f"{t_serial / best:.2f}",
                     f"{100 * err:.2f}", "yes" if same else "NO"])
        print(f"  {name:34} {jobs} workers  {m.n_experts_} experts  best {best:6.1f} s "
              f"(runs {', '.join(f'{t:.1f}' for t in times)})  speed-up {t_serial / best:.2f}  "
              f"test error {100 * err:.2f} %  same predictions as serial: {same}  "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
    if args.save:
        save_table(RESULTS, title="MixtureSVC's experts serially, on a thread pool and on "
                                  "Dask's LocalCluster",
                   setup=f"make_large_problem, {args.n} training and 10,000 test points, "
                         "C=10, sigma='scale', 2 outer iterations, n_experts='auto'; best wall "
                         f"time of {args.repeats} fits per engine; speed-up against the serial "
                         "fit of the same run",
                   columns=["engine", "workers", "experts", "time (s)", "speed-up",
                            "test error (%)", "same predictions as serial"],
                   rows=rows, load=load_text(start, load_now()))


if __name__ == "__main__":
    main()
