"""Collobert's Tables 5.2, 5.5 and 5.6 recomputed on this machine, for kernelnb and its peers.

R. Collobert, *Large Scale Machine Learning*, PhD thesis, Université Paris VI, 2004, ch. 5 (and
Collobert & Bengio, "SVMTorch: Support Vector Machines for Large-Scale Regression Problems",
JMLR 1, 2001) measure SVMTorch's decomposition solver three ways:

* **Table 5.2** -- training time against the working-set size ``q`` (2, 4, 10, 50, 100; shrinking
  on, 100 MB cache, the first 10,000 examples).  The thesis: ``q = 2`` is fastest.
* **Table 5.5** -- training time against the kernel cache (10, 20, ..., 100 MB, the same
  10,000 examples).  The thesis: flat where the problem's active rows fit in 10 MB, falling by
  3x (Forest) where they do not.
* **Table 5.6** -- the log-log slope of training time against the training size (500, 1,000,
  2,000, 3,000, 4,000, 5,000 examples, the whole kernel matrix in the cache).  The thesis:
  1.7-1.9 for SVMTorch, 1.8-2.4 for Nodelib.

The thesis's problems are regressions (Kin, Artificial, Forest, Sunspots) that are not available
offline; here the same measurements are made on classification problems that are: Fashion-MNIST
(upper-body garments {0, 2, 4, 6} against the rest, pixels / 255, test on the first 5,000 test
images) and the synthetic ``kernelnb.datasets.make_large_problem`` (20 features, 64 labelled
clusters; test on 5,000 further points of the same draw).  All models use C = 10 and the Gaussian
width of scikit-learn's ``gamma='scale'`` (``kernelnb.kernels.scale_sigma``), tolerance 1e-3.
Peers in the same process: scikit-learn's ``SVC`` (LIBSVM: SMO, ``q = 2``, its own cache) and
scikit-learn-intelex's ``SVC`` (oneDAL) where installed; they have no ``q``, so Table 5.2 shows
them once.  Times are wall-clock seconds of ``fit`` on this machine (best of ``--repeat``),
with the test accuracy and the number of support vectors beside each.

Run: ``python benchmarks/bench_collobert_tables.py`` (the thesis's sizes; an hour or more on two
shared cores: small caches make the peers slow), ``--quick`` (n = 3,000, a few minutes),
``--tables q,cache,slope``, ``--datasets fashion,synthetic``.
"""
import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fashion, peer_svcs  # noqa: E402

from kernelnb.datasets import make_large_problem  # noqa: E402
from kernelnb.kernels import gamma_from_sigma, scale_sigma  # noqa: E402
from kernelnb.svm import SVC  # noqa: E402

SkSVC, SkxSVC = peer_svcs()

UPPER = (0, 2, 4, 6)
C = 10.0
THESIS = {  # Collobert (2004), ch. 5, SVMTorch on its four regression problems (seconds)
    "q": ("q = 2, 4, 10, 50, 100 (s)",
          {"Kin": "11 14 16 28 54", "Artificial": "98 149 190 629 1537",
           "Forest": "272 406 462 670 981", "Sunspots": "7 11 15 45 89"}),
    "cache": ("cache = 10, 20, ..., 100 MB (s)",
              {"Kin": "11 (every size)", "Artificial": "359 182 106 100 99 98 98 98 98 98",
               "Forest": "869 715 622 519 450 391 355 316 305 272", "Sunspots": "7 (every size)"}),
    "slope": ("log-log slope of time against n (500 .. 5,000)",
              {"Kin": "1.81 (Nodelib 1.83)", "Artificial": "1.72 (1.93)",
               "Forest": "1.82 (2.09)", "Sunspots": "1.85 (2.44)"}),
}


def load(name, n, n_test):
    """The first ``n`` training examples and ``n_test`` test examples of a problem."""
    if name == "fashion":
        X, y = fashion("train")
        Xt, yt = fashion("test")
        return (X[:n].astype(np.float64), np.isin(y[:n], UPPER).astype(int),
                Xt[:n_test].astype(np.float64), np.isin(yt[:n_test], UPPER).astype(int))
    X, y = make_large_problem(n + n_test, random_state=0)
    X = X.astype(np.float64)
    return X[:n], y[:n], X[n:], y[n:]


def fit_one(make, X, y, Xt, yt, repeat):
    best, model = None, None
    for _ in range(max(1, repeat)):
        gc.collect()
        t0 = time.perf_counter()
        model = make().fit(X, y)
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    acc = float(np.mean(model.predict(Xt) == yt))
    return dict(time=best, acc=acc, n_sv=int(np.sum(model.n_support_)),
                q=getattr(model, "q_", None), n_iter=getattr(model, "n_iter_", None))


def models(sigma, cache, q_values):
    """(label, constructor) for kernelnb at each q and the peers at the same cache."""
    gamma = gamma_from_sigma(sigma)
    out = [(f"kernelnb q={q}", (lambda q=q: SVC(C=C, sigma=sigma, cache_size=cache, q=q)))
           for q in q_values]
    if SkSVC is not None:
        out.append(("scikit-learn", lambda: SkSVC(C=C, gamma=gamma, cache_size=cache)))
    if SkxSVC is not None:
        out.append(("sklearn-intelex", lambda: SkxSVC(C=C, gamma=gamma, cache_size=cache)))
    return out


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def table_q(data, args):
    """Table 5.2: time against q at a 100 MB cache."""
    rows = []
    for name, (X, y, Xt, yt) in data.items():
        sigma = scale_sigma(X)
        for label, make in models(sigma, args.q_cache, args.q_values + ["auto"]):
            r = fit_one(make, X, y, Xt, yt, args.repeat)
            r.update(data=name, model=label)
            rows.append(r)
            log(f"  q table {name} {label}: {r['time']:.2f} s acc {r['acc']:.4f}")
    print(f"\n## Table 5.2 -- training time against the working-set size q "
          f"(cache {args.q_cache:g} MB, n = {args.n}, shrinking on)")
    print(f" {'problem':<10} {'model':<18} {'time (s)':>9} {'q used':>7} {'#SV':>6} "
          f"{'test acc':>9} {'x q=2':>7}")
    for name in data:
        sub = [r for r in rows if r["data"] == name]
        base = next((r["time"] for r in sub if r["model"] == "kernelnb q=2"), None)
        for r in sub:
            ratio = f"{r['time'] / base:7.2f}" if base else f"{'':>7}"
            q = "" if r["q"] is None else str(r["q"])
            print(f" {name:<10} {r['model']:<18} {r['time']:9.2f} {q:>7} {r['n_sv']:6d} "
                  f"{r['acc']:9.4f} {ratio}")
    return rows


def table_cache(data, args):
    """Table 5.5: time against the cache size."""
    rows = []
    for name, (X, y, Xt, yt) in data.items():
        sigma = scale_sigma(X)
        for cache in args.caches:
            for label, make in models(sigma, cache, args.cache_q):
                r = fit_one(make, X, y, Xt, yt, args.repeat)
                r.update(data=name, model=label, cache=cache)
                rows.append(r)
                log(f"  cache table {name} {cache:g} MB {label}: {r['time']:.2f} s "
                    f"acc {r['acc']:.4f}")
    labels = list(dict.fromkeys(r["model"] for r in rows))
    print(f"\n## Table 5.5 -- training time (s) against the kernel cache (n = {args.n}; "
          f"a row of the kernel holds {args.n} values)")
    for name in data:
        print(f" {name}: {'cache (MB)':<18}" + "".join(f"{c:>8g}" for c in args.caches))
        for label in labels:
            t = {r["cache"]: r["time"] for r in rows if r["data"] == name and r["model"] == label}
            print(f" {'':<{len(name)}}  {label:<18}" + "".join(f"{t[c]:8.2f}" for c in args.caches))
        accs = [r["acc"] for r in rows if r["data"] == name]
        print(f" {'':<{len(name)}}  test accuracy over the row: {min(accs):.4f} .. {max(accs):.4f}")
    return rows


def slope(ns, ts):
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def table_slope(data, args):
    """Table 5.6: log-log slope of time against n, the whole kernel in the cache."""
    rows = []
    for name, (X, y, Xt, yt) in data.items():
        for n in args.slope_sizes:
            sigma = scale_sigma(X[:n])
            for label, make in models(sigma, args.slope_cache, args.cache_q):
                r = fit_one(make, X[:n], y[:n], Xt, yt, args.repeat)
                r.update(data=name, model=label, n=n)
                rows.append(r)
                log(f"  slope table {name} n={n} {label}: {r['time']:.2f} s")
    labels = list(dict.fromkeys(r["model"] for r in rows))
    ns = args.slope_sizes
    print(f"\n## Table 5.6 -- training time (s) against n and its log-log slope "
          f"(cache {args.slope_cache:g} MB: the whole kernel fits)")
    print(f" {'problem':<10} {'model':<18}" + "".join(f"{n:>8}" for n in ns) + f"{'slope':>8}")
    for name in data:
        for label in labels:
            t = [next(r["time"] for r in rows if r["data"] == name and r["model"] == label
                      and r["n"] == n) for n in ns]
            print(f" {name:<10} {label:<18}" + "".join(f"{v:8.3f}" for v in t)
                  + f"{slope(ns, t):8.2f}")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="n = 3,000, caches 2..20 MB, sizes 250..2,000 (a few minutes)")
    ap.add_argument("--n", type=int, default=10000, help="training examples for Tables 5.2/5.5")
    ap.add_argument("--n-test", type=int, default=5000)
    ap.add_argument("--datasets", default="fashion,synthetic")
    ap.add_argument("--tables", default="q,cache,slope")
    ap.add_argument("--repeat", type=int, default=1, help="best of this many fits")
    ap.add_argument("--caches", dest="caches_arg", default=None,
                    help="comma-separated cache sizes (MB) of Table 5.5 (default 10, 20, ..., 100)")
    args = ap.parse_args(argv)
    args.q_values = [2, 4, 10, 50, 100]
    args.q_cache = 100.0
    args.cache_q = [2, "auto"]
    args.caches = [10.0 * k for k in range(1, 11)]
    args.slope_sizes = [500, 1000, 2000, 3000, 4000, 5000]
    args.slope_cache = 1000.0
    if args.quick:
        args.n = min(args.n, 3000)
        args.n_test = min(args.n_test, 2000)
        args.q_cache = 10.0
        args.caches = [2.0, 5.0, 10.0, 20.0]
        args.slope_sizes = [250, 500, 1000, 2000]
    if args.caches_arg:
        try:
            args.caches = [float(v) for v in args.caches_arg.split(",") if v.strip()]
        except ValueError:
            ap.error(f"--caches must be comma-separated numbers, got {args.caches_arg!r}")
        if not args.caches or min(args.caches) <= 0:
            ap.error("--caches needs positive sizes")
    names = [s.strip() for s in args.datasets.split(",") if s.strip()]
    for s in names:
        if s not in ("fashion", "synthetic"):
            ap.error(f"--datasets: unknown problem {s!r} (fashion, synthetic)")
    tables = [s.strip() for s in args.tables.split(",") if s.strip()]
    for s in tables:
        if s not in ("q", "cache", "slope"):
            ap.error(f"--tables: unknown table {s!r} (q, cache, slope)")
    n_data = max([args.n] + (args.slope_sizes if "slope" in tables else []))
    data = {name: load(name, n_data, args.n_test) for name in names}
    small = {k: (X[:args.n], y[:args.n], Xt, yt) for k, (X, y, Xt, yt) in data.items()}
    peers = ", ".join(p for p, m in (("scikit-learn", SkSVC), ("sklearn-intelex", SkxSVC)) if m)
    print(f"# Collobert ch. 5 tables on this machine (C = {C:g}, sigma as gamma='scale', "
          f"tol 1e-3; peers: {peers or 'none installed'})")
    if "q" in tables:
        table_q(small, args)
    if "cache" in tables:
        table_cache(small, args)
    if "slope" in tables:
        table_slope(data, args)
    print("\n## The thesis (SVMTorch, Pentium III 750 MHz, regression problems not available "
          "offline)")
    for key in tables:
        what, values = THESIS[key]
        print(f" Table 5.{ {'q': 2, 'cache': 5, 'slope': 6}[key] }: {what}")
        for prob, v in values.items():
            print(f"   {prob:<11} {v}")


if __name__ == "__main__":
    main()
