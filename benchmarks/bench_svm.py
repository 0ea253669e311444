"""SVC speed and accuracy: kernelnb against scikit-learn (LIBSVM) and scikit-learn-intelex (when it
is installed), all measured in this one run on this machine, accuracy beside each time.

Tasks (``--tasks``):

(a) Fashion-MNIST T-shirt (0) vs shirt (6), C = 10, sigma equivalent to gamma='scale', tol = 1e-3,
    cache 1000 MB, training sizes ``--sizes`` (default 2k, 5k, 10k, 20k; the training set holds
    12,000 T-shirts and shirts, so (a) stops at 12k), the official test set (2,000 points).
(b) Fashion-MNIST, all 10 classes, same settings, 5,000 official test points.
(c) Fashion-MNIST upper-body garments {0, 2, 4, 6} against the rest (issue 11), C = 10,
    gamma='scale' on each training prefix, at ``--large-sizes`` (default 10k, 30k, 60k) with
    each cache of ``--caches`` (default 200 MB, every estimator's default, and 1000 MB), the
    official 10k test set; the log-log slope of fit time from the smallest to the largest size.
    kernelnb picks its working-set size itself (``q='auto'``; the column q says which it used).
(t) Toys at ``--toy-sizes`` (default 4k, 30k), C = 10, gamma='scale', default cache, 2,000 test
    points: the 2-D moons (noise 0.3) and the 6-D labelled clusters of
    ``kernelnb.datasets.make_large_problem`` (``n_features=6``).
(p) Against the peers on three kinds of problem (issue 43), each at ``--peer-sizes`` (default
    10k, 16k, 30k, 60k), C = 10, gamma='scale', tol = 1e-3, the default cache (200 MB), 5,000
    test points: ``board``, the noisy 6-D checkerboard of ``bench_mixture_noisy.py`` (5 % of the
    labels flipped; most points become support vectors); ``16-D``, a two-class problem made of
    26 Gaussian sub-classes in 16 dimensions (``make_large_problem(n_features=16,
    n_clusters=26)``, 13 sub-classes a class); ``fashion``, Fashion-MNIST {0, 2, 4, 6} against
    the rest (784-d, the first n training images, the first 5,000 test images).  Beside each time:
    the test accuracy and the agreement with LIBSVM (the fraction of test points whose label is
    scikit-learn's SVC's), and the fit and predict times over scikit-learn-intelex's.
    scikit-learn's labels can be kept in a file (``--libsvm-labels``) and read by a later run, so
    that alternating runs of two versions fit LIBSVM once.

Each fit is timed twice over: the first fit of a fresh process (a script fits once: a new Python
process imports the library, reads the same training set, and its one fit is timed, with what a
first call costs: thread pools started, pages first touched, the peers' dispatch), and the best
of ``--repeat`` fits (default 3) in this process.  ``--no-fresh`` skips the fresh processes.  The
machine may be shared: timings of one run are comparable with each other, not across runs.

Usage::

    python benchmarks/bench_svm.py                       # everything (hours on 2 cores)
    python benchmarks/bench_svm.py --tasks t --repeat 3  # the toys
    python benchmarks/bench_svm.py --tasks c --large-sizes 10000 20000 --caches 200
    python benchmarks/bench_svm.py --tasks a b --sizes 2000 5000 10000 --skip-sklearn-above 10000
    python benchmarks/bench_svm.py --tasks p --libsvm-labels /tmp/libsvm.npz  # vs sklearnex

The data folder is found as kernelnb.datasets.load_fashion_mnist finds it (KERNELNB_DATA, ...).
"""
import argparse
import gc
import os
import sys
import time

import numpy as np

from _common import fashion, peer_svcs
from kernelnb.datasets import make_large_problem, make_moons
from kernelnb.kernels import gamma_from_sigma, scale_sigma
from kernelnb.svm import SVC

SkSVC, SkxSVC = peer_svcs()

UPPER = (0, 2, 4, 6)


def timed(fn, *args):
    gc.collect()
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def timed_cpu(fn, *args):
    """(result, wall seconds, CPU seconds of the whole process: every thread's, the peers' pools
    included), the CPU time being the steadier measure of work on a busy machine."""
    gc.collect()
    c = time.process_time()
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t, time.process_time() - c


# The estimators, as a fresh process builds them: module, class and keyword arguments.
_FRESH = '''
import json, sys, time
import numpy as np
module, cls, kwargs, path = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
Estimator = getattr(__import__(module, fromlist=[cls]), cls)
with np.load(path) as f:
    X, y = f["X"], f["y"]
model = Estimator(**kwargs)
c, t = time.process_time(), time.perf_counter()
model.fit(X, y)
print(json.dumps({"fit": time.perf_counter() - t, "fit_cpu": time.process_time() - c}))
'''


def fresh_fit(spec, X, y):
    """(wall, CPU) seconds of the first fit of a new process on X, y; ``spec`` is (module,
    class, keyword arguments).  The data go through a temporary .npz file."""
    import json
    import subprocess
    import tempfile
    module, cls, kwargs = spec
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "train.npz")
        np.savez(path, X=X, y=y)
        out = subprocess.run([sys.executable, "-c", _FRESH, module, cls, json.dumps(kwargs), path],
                             capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return got["fit"], got["fit_cpu"]


def run_one(name, make, X, y, Xt, yt, repeat=1, keep_pred=False, spec=None):
    first = first_cpu = float("nan")
    if spec is not None and FRESH[0]:
        first, first_cpu = fresh_fit(spec, X, y)
    best = best_cpu = None
    for _ in range(max(1, repeat)):
        model, t_fit, c_fit = timed_cpu(make().fit, X, y)
        best = t_fit if best is None else min(best, t_fit)
        best_cpu = c_fit if best_cpu is None else min(best_cpu, c_fit)
    pred, t_pred, c_pred = timed_cpu(model.predict, Xt)
    acc = float(np.mean(pred == yt))
    n_sv = int(np.sum(model.n_support_))
    q = getattr(model, "q_", None)
    out = dict(name=name, fit=best, predict=t_pred, acc=acc, n_sv=n_sv, q=q, fit_cpu=best_cpu,
               predict_cpu=c_pred, first=first, first_cpu=first_cpu)
    if keep_pred:
        out["pred"] = np.asarray(pred)
    return out


# whether run_one also times the first fit of a fresh process (--no-fresh turns it off)
FRESH = [True]


def peers(sigma, cache, n, skip_above):
    """(name, factory, spec) of each estimator; spec rebuilds it in a fresh process."""
    gamma = gamma_from_sigma(sigma)
    ours = dict(C=10.0, sigma=float(sigma), tol=1e-3, cache_size=float(cache))
    theirs = dict(C=10.0, gamma=float(gamma), tol=1e-3, cache_size=float(cache))
    out = [("kernelnb", lambda: SVC(**ours), ("kernelnb.svm", "SVC", ours))]
    if SkSVC is not None and n <= skip_above:
        out.append(("scikit-learn", lambda: SkSVC(**theirs), ("sklearn.svm", "SVC", theirs)))
    if SkxSVC is not None:
        out.append(("sklearn-intelex", lambda: SkxSVC(**theirs), ("sklearnex.svm", "SVC", theirs)))
    return out


def measure(rows, label, n, cache, X, y, Xt, yt, args, sigma=None):
    sigma = scale_sigma(X) if sigma is None else sigma
    for name, make, spec in peers(sigma, cache, n, args.skip_sklearn_above):
        r = run_one(name, make, X, y, Xt, yt, args.repeat, spec=spec)
        r.update(task=label, n=n, cache=cache, n_test=len(yt))
        rows.append(r)
        print(f"  done: {label} n={n} cache={cache:g} {name}: fit {r['fit']:.2f}s "
              f"predict {r['predict']:.2f}s acc {r['acc']:.4f}", file=sys.stderr, flush=True)


def fashion_tasks(args, rows):
    X_all, y_all = fashion("train")
    Xt_all, yt_all = fashion("test")
    for task in [t for t in args.tasks if t in "abc"]:
        if task == "a":
            keep, keept = np.isin(y_all, [0, 6]), np.isin(yt_all, [0, 6])
            Xp, yp, Xt, yt = X_all[keep], y_all[keep], Xt_all[keept], yt_all[keept]
            label, sizes, caches = "(a) T-shirt vs shirt", args.sizes, [1000]
        elif task == "b":
            Xp, yp, Xt, yt = X_all, y_all, Xt_all[:5000], yt_all[:5000]
            label, sizes, caches = "(b) 10 classes", args.sizes, [1000]
        else:
            Xp, yp = X_all, np.isin(y_all, UPPER).astype(int)
            Xt, yt = Xt_all, np.isin(yt_all, UPPER).astype(int)
            label, sizes, caches = "(c) {0,2,4,6} vs rest", args.large_sizes, args.caches
        Xt = Xt.astype(np.float64)
        done = set()
        for n in sizes:
            n_eff = min(n, Xp.shape[0])
            if n_eff in done:
                continue
            done.add(n_eff)
            X = Xp[:n_eff].astype(np.float64)
            for cache in caches:
                measure(rows, label, n_eff, cache, X, yp[:n_eff], Xt, yt, args)


def toy_tasks(args, rows):
    if "t" not in args.tasks:
        return
    for toy in ("2-D moons", "6-D clusters"):
        for n in args.toy_sizes:
            if toy == "2-D moons":
                X, y = make_moons(n + 2000, noise=0.3, random_state=0)
            else:
                X, y = make_large_problem(n + 2000, n_features=6, random_state=0)
                X = X.astype(np.float64)
            measure(rows, f"(t) {toy}", n, 200, X[:n], y[:n], X[n:], y[n:], args)


def peer_problem(kind, n, n_test=5000):
    """Training and test data of one of task (p)'s problems."""
    if kind == "board":
        from bench_mixture_noisy import checkerboard
        X, y = checkerboard(n + n_test, seed=0)
        return X[:n], y[:n], X[n:], y[n:]
    if kind == "16-D":
        X, y = make_large_problem(n + n_test, n_features=16, n_clusters=26, random_state=0,
                                  dtype=np.float64)
        return X[:n], y[:n], X[n:], y[n:]
    X, y = fashion("train")
    Xt, yt = fashion("test")
    return (X[:n].astype(np.float64), np.isin(y[:n], UPPER).astype(int),
            Xt[:n_test].astype(np.float64), np.isin(yt[:n_test], UPPER).astype(int))


def peer_tasks(args, rows):
    """Task (p): kernelnb, scikit-learn-intelex and LIBSVM on the three kinds of problem."""
    if "p" not in args.tasks:
        return
    stored, kept = {}, {}
    if args.libsvm_labels and os.path.exists(args.libsvm_labels):
        with np.load(args.libsvm_labels) as f:
            stored = {k: f[k] for k in f.files}
    for kind in args.problems:
        for n in args.peer_sizes:
            X, y, Xt, yt = peer_problem(kind, n)
            sigma = scale_sigma(X)
            key = f"{kind}_{n}"
            found = []
            for name, make, spec in peers(sigma, 200, n, -1):
                r = run_one(name, make, X, y, Xt, yt, args.repeat, keep_pred=True, spec=spec)
                r.update(task=f"(p) {kind}", n=n, cache=200, n_test=len(yt),
                         load=os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan"))
                found.append(r)
                print(f"  done: {kind} n={n} {name}: first fit {r['first']:.2f}s, best fit "
                      f"{r['fit']:.2f}s (CPU {r['fit_cpu']:.2f}) "
                      f"predict {r['predict']:.3f}s (CPU {r['predict_cpu']:.3f}) acc "
                      f"{r['acc']:.4f} load {r['load']:.1f}", file=sys.stderr, flush=True)
            if key not in stored and SkSVC is not None and n <= args.skip_sklearn_above:
                r = run_one("scikit-learn", lambda: SkSVC(C=10.0, gamma=gamma_from_sigma(sigma),
                                                          tol=1e-3, cache_size=200),
                            X, y, Xt, yt, 1, keep_pred=True)
                stored[key] = r["pred"]
                print(f"  done: {kind} n={n} scikit-learn: fit {r['fit']:.2f}s", file=sys.stderr,
                      flush=True)
                if args.libsvm_labels:
                    np.savez(args.libsvm_labels, **stored)
            for r in found:
                r["agree"] = (float(np.mean(r["pred"] == stored[key])) if key in stored
                              else float("nan"))
                if args.save_labels:
                    kept[f"{key}_{r['name']}"] = r["pred"]
                    np.savez(args.save_labels, **kept)
                del r["pred"]
            rows.extend(found)


PEER_COLUMNS = ["problem", "n train", "estimator", "first fit, fresh process (s) wall / CPU",
                "best fit (s) wall / CPU", "predict 5k (s) wall / CPU", "test acc",
                "agreement with LIBSVM", "#SV", "first fit / sklearnex's first, wall",
                "best fit / sklearnex's best, wall, CPU", "predict / sklearnex wall, CPU", "load"]


def peer_table(rows):
    """Task (p)'s rows as table cells (strings), in :data:`PEER_COLUMNS`' order."""
    rows = [r for r in rows if r["task"].startswith("(p)")]
    out = []
    for r in rows:
        ref = next((b for b in rows if b["task"] == r["task"] and b["n"] == r["n"]
                    and b["name"] == "sklearn-intelex"), None)
        r0 = rf = rp = ""
        if ref is not None and r is not ref:
            r0 = f"{r['first'] / ref['first']:.2f}x"
            rf = f"{r['fit'] / ref['fit']:.2f}x, {r['fit_cpu'] / ref['fit_cpu']:.2f}x"
            rp = (f"{r['predict'] / ref['predict']:.2f}x, "
                  f"{r['predict_cpu'] / ref['predict_cpu']:.2f}x")
        out.append([r["task"][4:], str(r["n"]), r["name"],
                    f"{r['first']:.2f} / {r['first_cpu']:.2f}",
                    f"{r['fit']:.2f} / {r['fit_cpu']:.2f}",
                    f"{r['predict']:.3f} / {r['predict_cpu']:.3f}", f"{r['acc']:.4f}",
                    f"{r['agree']:.4f}", str(r["n_sv"]), r0, rf, rp, f"{r['load']:.1f}"])
    return out


def print_peer_table(rows):
    cells = peer_table(rows)
    if not cells:
        return
    print()
    print("| " + " | ".join(PEER_COLUMNS) + " |")
    print("|" + "---|" * len(PEER_COLUMNS))
    for row in cells:
        print("| " + " | ".join(row) + " |")


def slope(ns, ts):
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def print_table(rows):
    print_peer_table(rows)
    rows = [r for r in rows if not r["task"].startswith("(p)")]
    if not rows:
        return
    print()
    print("| task | n train | cache MB | n test | estimator | first fit, fresh process (s) | "
          "best fit (s) | predict (s) | test acc | #SV "
          "| kernelnb q | fit: peer / kernelnb | predict: peer / kernelnb |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        base = next(b for b in rows if b["task"] == r["task"] and b["n"] == r["n"]
                    and b["cache"] == r["cache"] and b["name"] == "kernelnb")
        ratio_f = "" if r["name"] == "kernelnb" else f"{r['fit'] / base['fit']:.2f}x"
        ratio_p = "" if r["name"] == "kernelnb" else f"{r['predict'] / base['predict']:.2f}x"
        q = "" if r["q"] is None else str(r["q"])
        print(f"| {r['task']} | {r['n']} | {r['cache']:g} | {r['n_test']} | {r['name']} | "
              f"{r['first']:.2f} | {r['fit']:.2f} | {r['predict']:.3f} | {r['acc']:.4f} | {r['n_sv']} | {q} | "
              f"{ratio_f} | {ratio_p} |")
    slopes = []
    for task in dict.fromkeys(r["task"] for r in rows):
        for cache in dict.fromkeys(r["cache"] for r in rows if r["task"] == task):
            for name in dict.fromkeys(r["name"] for r in rows):
                sel = [r for r in rows if r["task"] == task and r["cache"] == cache
                       and r["name"] == name]
                if len(sel) >= 2 and len({r["n"] for r in sel}) >= 2:
                    ns = [r["n"] for r in sel]
                    slopes.append(f"| {task} | {cache:g} | {name} | {min(ns)} -> {max(ns)} | "
                                  f"{slope(ns, [r['fit'] for r in sel]):.2f} |")
    if slopes:
        print()
        print("| task | cache MB | estimator | n | log-log slope of fit time |")
        print("|---|---|---|---|---|")
        print("\n".join(slopes))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", nargs="+", default=["a", "b", "c", "t", "p"],
                    choices=["a", "b", "c", "t", "p"])
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 10000, 20000],
                    help="training sizes of tasks (a) and (b)")
    ap.add_argument("--large-sizes", type=int, nargs="+", default=[10000, 30000, 60000],
                    help="training sizes of task (c)")
    ap.add_argument("--caches", type=float, nargs="+", default=[200, 1000],
                    help="cache sizes (MB) of task (c), the same for every estimator")
    ap.add_argument("--toy-sizes", type=int, nargs="+", default=[4000, 30000])
    ap.add_argument("--peer-sizes", type=int, nargs="+", default=[10000, 16000, 30000, 60000],
                    help="training sizes of task (p)")
    ap.add_argument("--problems", nargs="+", default=["board", "16-D", "fashion"],
                    choices=["board", "16-D", "fashion"], help="task (p)'s problems")
    ap.add_argument("--libsvm-labels", default=None,
                    help="task (p): a .npz file keeping scikit-learn's test labels between runs")
    ap.add_argument("--save-labels", default=None,
                    help="task (p): a .npz file receiving every estimator's test labels")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many fits")
    ap.add_argument("--no-fresh", action="store_true",
                    help="do not time the first fit of a fresh process")
    ap.add_argument("--skip-sklearn-above", type=int, default=10**9,
                    help="do not run scikit-learn above this training size (it is slow)")
    ap.add_argument("--results", default=None, metavar="FILE",
                    help="write task (p)'s table to this results file (benchmarks/results/)")
    args = ap.parse_args(argv)
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    FRESH[0] = not args.no_fresh
    print(f"# cores: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}, "
          f"load average at start: {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "",
          flush=True)
    rows = []
    peer_tasks(args, rows)
    toy_tasks(args, rows)
    fashion_tasks(args, rows)
    print_table(rows)
    if hasattr(os, "getloadavg"):
        print(f"\n# load average at the end: {os.getloadavg()[0]:.2f}")
    if args.results and peer_table(rows):
        from _common import load_now, load_text, save_table
        save_table(args.results, title="SVC against scikit-learn-intelex: a script's first fit "
                                       "and the best of several",
                   setup=f"task (p): C = 10, gamma='scale', 5,000 test points; each fit timed "
                         f"as the first fit of a fresh process (what a script that fits once "
                         f"pays) and as the best of {args.repeat} fits in one process; the "
                         f"ratios are kernelnb's (or LIBSVM's) time over scikit-learn-intelex's "
                         f"in the same run",
                   columns=PEER_COLUMNS, rows=peer_table(rows), load=load_text(load0, load_now()))
    return rows


if __name__ == "__main__":
    main()
