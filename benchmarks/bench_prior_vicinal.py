"""Vicinal risk minimisation: the VRM table of Chapelle's thesis §2.3.1, and VicinalSVC's speed.

1. The table (Wisconsin diagnostic breast cancer, 569 x 30, linear models, n = 10/20/40/80
   training points, 100 runs, hyperparameters by cross-validation on the training points):
   hard SVM, soft SVM, VRM with one fixed width, VRM with adaptive widths sigma_i, computed by
   :func:`kernelnb.reproductions.chapelle.vicinal.vrm_breast_cancer_table` (its docstring states the protocol and the
   choices the thesis leaves open) and printed beside the published numbers; the convex
   approximation (VicinalSVC) in a last column.
2. Speed: ``VicinalSVC`` (widths included) against kernelnb's ``SVC.fit(margins=...)`` and
   scikit-learn's ``SVC`` (linear kernel, same C, same standardised data) in the same process,
   median fit time over repeats, test accuracy beside each.

Usage: python benchmarks/bench_prior_vicinal.py [--quick] [--runs R] [--standardize train|all|none]
       [--section all|table|speed] [--results-dir docs/reproductions/results]
"""
import argparse
import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.preprocessing import StandardScaler

from _common import add_results_option, peer_svcs, save_results
from kernelnb.prior import VicinalSVC, vicinal_margins, vicinity_widths
from kernelnb.reproductions.chapelle.vicinal import PUBLISHED_VRM_TABLE, vrm_breast_cancer_table
from kernelnb.svm import SVC

COLUMNS = [("hard_svm", "hard SVM"), ("soft_svm", "soft SVM"), ("vrm_fixed", "VRM fixed σ"),
           ("vrm_adaptive", "VRM adaptive σ_i"), ("vicinal_svc", "VicinalSVC")]


def table(quick, runs, standardize, results_dir=None):
    sizes = (10, 80) if quick else (10, 20, 40, 80)
    n_runs = runs or (5 if quick else 100)
    t0 = time.perf_counter()
    res = vrm_breast_cancer_table(sizes=sizes, n_runs=n_runs, standardize=standardize)
    wall = time.perf_counter() - t0
    save_results(results_dir, "chapelle-vrm-breast-cancer",
                 "kernelnb.reproductions.chapelle.vicinal.vrm_breast_cancer_table",
                 {"sizes": sizes, "n_runs": n_runs, "standardize": standardize,
                  "random_state": 0}, res, wall)
    print(f"\nVRM table, Chapelle's thesis §2.3.1: test error (%), mean ± std over {n_runs} runs; "
          f"standardised on: {standardize}; published in brackets")
    head = f"{'n':>4} | " + " | ".join(f"{name:>22}" for _, name in COLUMNS)
    print(head)
    print("-" * len(head))
    for n in sizes:
        cells = []
        for k, (key, _) in enumerate(COLUMNS):
            m, s = res["mean"][n][key], res["std"][n][key]
            pub = f"[{PUBLISHED_VRM_TABLE[n][k]:4.1f}]" if k < 4 and n in PUBLISHED_VRM_TABLE \
                else "      "
            cells.append(f"{m:5.2f} ± {s:4.2f} {pub}".rjust(22))
        print(f"{n:>4} | " + " | ".join(cells))
    print("\nselection + fit time per run (s): " + "; ".join(
        f"n={n}: " + ", ".join(f"{key} {res['seconds'][n][key] / n_runs:.2f}"
                               for key, _ in COLUMNS) for n in sizes))
    print("hard SVM not converged (not separable) runs: "
          + ", ".join(f"n={n}: {res['not_separable'][n]}" for n in sizes))
    for n in sizes:
        ch = res["chosen"][n]
        print(f"n={n}: median chosen C soft {np.median(ch['soft_svm']):.3g}, VicinalSVC "
              f"{np.median(ch['vicinal_svc']):.3g}; width factor fixed "
              f"{np.median(ch['vrm_fixed']):.3g}, adaptive {np.median(ch['vrm_adaptive']):.3g}")
    wins = {n: float(np.mean(res["errors"][n]["vrm_adaptive"] < res["errors"][n]["soft_svm"]))
            for n in sizes}
    print("runs where adaptive VRM beats the soft SVM: "
          + ", ".join(f"n={n}: {100 * w:.0f}%" for n, w in wins.items()))
    print(f"table wall time {wall:.0f} s")
    return res


def speed(quick):
    sk_svc, _ = peer_svcs()
    X, y = load_breast_cancer(return_X_y=True)
    repeats = 5 if quick else 30
    print(f"\nSpeed: linear kernel, C = 1, median fit time over {repeats} repeats "
          f"(breast cancer, standardised on the training points)")
    print(f"{'n train':>8} | {'estimator':>34} | {'fit ms':>8} | {'ratio':>6} | {'test acc':>8}")
    for n in (80, 284):
        tr, te = next(StratifiedShuffleSplit(n_splits=1, train_size=n, random_state=0)
                      .split(X, y))
        sc = StandardScaler().fit(X[tr])
        Xtr, Xte, ytr, yte = sc.transform(X[tr]), sc.transform(X[te]), y[tr], y[te]
        gam = vicinal_margins(vicinity_widths(Xtr))
        cands = [("kernelnb VicinalSVC (widths incl.)",
                  lambda: VicinalSVC(kernel="linear", C=1.0, n_jobs=1).fit(Xtr, ytr)),
                 ("kernelnb SVC.fit(margins=)",
                  lambda: SVC(kernel="linear", C=1.0, n_jobs=1).fit(Xtr, ytr, margins=gam)),
                 ("kernelnb SVC", lambda: SVC(kernel="linear", C=1.0, n_jobs=1).fit(Xtr, ytr))]
        if sk_svc is not None:
            cands.append(("scikit-learn SVC",
                          lambda: sk_svc(kernel="linear", C=1.0).fit(Xtr, ytr)))
        rows = []
        for name, fit in cands:
            times = []
            for _ in range(repeats):
                t = time.perf_counter()
                model = fit()
                times.append(time.perf_counter() - t)
            rows.append((name, 1e3 * float(np.median(times)), model.score(Xte, yte)))
        ref = rows[-1][1]
        for name, ms, acc in rows:
            print(f"{n:>8} | {name:>34} | {ms:8.2f} | {ms / ref:6.2f} | {acc:8.3f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 10 and 80, 5 runs, 5 repeats")
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("--standardize", default="train", choices=["train", "all", "none"])
    ap.add_argument("--section", default="all", choices=["all", "table", "speed"])
    add_results_option(ap)
    args = ap.parse_args(argv)
    if args.section in ("all", "speed"):
        speed(args.quick)
    if args.section in ("all", "table"):
        table(args.quick, args.runs, None if args.standardize == "none" else args.standardize,
              args.results_dir)


if __name__ == "__main__":
    main()
