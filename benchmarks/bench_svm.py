"""SVC speed and accuracy on Fashion-MNIST: kernelnb against scikit-learn (and scikit-learn-intelex
when it is installed), all measured in this one run on this machine.

Setting (issue 2): pixels / 255, C = 10, sigma equivalent to gamma='scale', tol = 1e-3,
cache 1000 MB; (a) T-shirt (0) vs shirt (6), (b) all 10 classes; training sizes 2k, 5k, 10k, 20k.
The training set holds only 12,000 T-shirts and shirts, so (a) stops at 12k; its test set is the
official one (2,000 points).  (b) predicts 5,000 official test points.

Usage: python benchmarks/bench_svm.py [--sizes 2000 5000 10000 20000] [--skip-sklearn-above N]
The data folder is found as kernelnb.datasets.load_fashion_mnist finds it (KERNELNB_DATA, ...).
"""
import argparse
import gc
import sys
import time

import numpy as np

from _common import fashion
from kernelnb.kernels import gamma_from_sigma, scale_sigma
from kernelnb.svm import SVC

try:
    from sklearn.svm import SVC as SkSVC
except ImportError:  # pragma: no cover
    SkSVC = None
try:
    from sklearnex.svm import SVC as SkxSVC
except ImportError:
    SkxSVC = None


def timed(fn, *args):
    gc.collect()
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def run_one(name, make, X, y, Xt, yt):
    model, t_fit = timed(make().fit, X, y)
    pred, t_pred = timed(model.predict, Xt)
    acc = float(np.mean(pred == yt))
    n_sv = int(np.sum(model.n_support_))
    return dict(name=name, fit=t_fit, predict=t_pred, acc=acc, n_sv=n_sv)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 10000, 20000])
    ap.add_argument("--tasks", nargs="+", default=["a", "b"], choices=["a", "b"])
    ap.add_argument("--skip-sklearn-above", type=int, default=10**9,
                    help="do not run scikit-learn above this training size (it is slow)")
    args = ap.parse_args(argv)

    X_all, y_all = fashion("train")
    Xt_all, yt_all = fashion("test")
    rows = []
    for task in args.tasks:
        if task == "a":
            keep, keept = np.isin(y_all, [0, 6]), np.isin(yt_all, [0, 6])
            Xp, yp, Xt, yt = X_all[keep], y_all[keep], Xt_all[keept], yt_all[keept]
        else:
            Xp, yp, Xt, yt = X_all, y_all, Xt_all[:5000], yt_all[:5000]
        Xt = Xt.astype(np.float64)
        for n in args.sizes:
            n_eff = min(n, Xp.shape[0])
            if n_eff < n and any(r["task"] == task and r["n"] == n_eff for r in rows):
                continue
            X = Xp[:n_eff].astype(np.float64)
            y = yp[:n_eff]
            sigma = scale_sigma(X)
            gamma = gamma_from_sigma(sigma)
            peers = [("kernelnb", lambda: SVC(C=10.0, sigma=sigma, tol=1e-3, cache_size=1000))]
            if SkSVC is not None and n_eff <= args.skip_sklearn_above:
                peers.append(("scikit-learn", lambda: SkSVC(C=10.0, gamma=gamma, tol=1e-3,
                                                            cache_size=1000)))
            if SkxSVC is not None:
                peers.append(("sklearn-intelex", lambda: SkxSVC(C=10.0, gamma=gamma, tol=1e-3,
                                                                cache_size=1000)))
            for name, make in peers:
                r = run_one(name, make, X, y, Xt, yt)
                r.update(task=task, n=n_eff, n_test=len(yt))
                rows.append(r)
                print(f"  done: task ({task}) n={n_eff} {name}: fit {r['fit']:.2f}s "
                      f"predict {r['predict']:.2f}s acc {r['acc']:.4f}", file=sys.stderr, flush=True)
    print_table(rows)
    return rows


def print_table(rows):
    print()
    print("| task | n train | n test | estimator | fit (s) | predict (s) | test acc | #SV | "
          "fit: peer / kernelnb | predict: peer / kernelnb |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        base = next(b for b in rows if b["task"] == r["task"] and b["n"] == r["n"]
                    and b["name"] == "kernelnb")
        ratio_f = "" if r["name"] == "kernelnb" else f"{r['fit'] / base['fit']:.1f}x"
        ratio_p = "" if r["name"] == "kernelnb" else f"{r['predict'] / base['predict']:.1f}x"
        label = "(a) T-shirt vs shirt" if r["task"] == "a" else "(b) 10 classes"
        print(f"| {label} | {r['n']} | {r['n_test']} | {r['name']} | {r['fit']:.2f} | "
              f"{r['predict']:.3f} | {r['acc']:.4f} | {r['n_sv']} | {ratio_f} | {ratio_p} |")


if __name__ == "__main__":
    main()
