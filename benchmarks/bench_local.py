"""Local methods: kernelnb against scikit-learn, measured in this one run.

* KNN and HKNN prediction throughput on Fashion-MNIST (60,000 reference points, 10,000 queries,
  K = 10, pixels in [0, 1] in float32, and in float64 with ``--dtypes float32 float64``) against
  scikit-learn's KNeighborsClassifier (brute, auto), with the fraction of queries whose ten
  neighbours (indices, in order) are scikit-learn brute force's;
* Parzen score_samples against scikit-learn's KernelDensity (Gaussian kernel);
* KernelRidge fit + predict against scikit-learn's KernelRidge (RBF).

Usage: python benchmarks/bench_local.py [--n-ref 60000] [--n-query 10000]
       python benchmarks/bench_local.py --n-ref 10000 --n-query 2000 --dtypes float32 float64
"""
import argparse
import os
import time

import numpy as np
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.neighbors import KernelDensity
from sklearn.neighbors import KNeighborsClassifier as SkKNN

from _common import fashion
from kernelnb.neighbors import HKNNClassifier, KNeighborsClassifier, ParzenDensity
from kernelnb.ridge import KernelRidge


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-ref", type=int, default=60000)
    ap.add_argument("--n-query", type=int, default=10000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--dtypes", nargs="+", default=["float32"], choices=["float32", "float64"],
                    help="precision of the pixels / 255 given to every method")
    ap.add_argument("--repeat", type=int, default=1,
                    help="KNN rows: alternate the methods this many times, best time kept")
    args = ap.parse_args(argv)
    X_all, y_all = fashion("train")
    Xt_all, yt_all = fashion("test")
    K = args.k
    print(f"# load average at start: {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg")
          else "", flush=True)
    for dtype in args.dtypes:
        X, y = X_all[:args.n_ref].astype(dtype), y_all[:args.n_ref]
        Xt, yt = Xt_all[:args.n_query].astype(dtype), yt_all[:args.n_query]
        methods = [
            ("kernelnb KNN", lambda: KNeighborsClassifier(n_neighbors=K)),
            ("scikit-learn KNN (brute)", lambda: SkKNN(K, algorithm="brute", n_jobs=-1)),
            ("scikit-learn KNN (auto)", lambda: SkKNN(K, algorithm="auto", n_jobs=-1)),
            ("kernelnb HKNN (lambda=10)",
             lambda: HKNNClassifier(n_neighbors=K, weight_decay=10.0)),
        ]
        models = [(name, make().fit(X, y)) for name, make in methods]
        best, preds, neigh = {}, {}, {}
        for _ in range(max(1, args.repeat)):
            for name, model in models:     # alternating runs, best of each
                pred, t = timed(lambda: model.predict(Xt))
                best[name] = min(t, best.get(name, np.inf))
                preds[name] = pred
                print(f"  done: {name} {dtype} {t:.2f}s", flush=True)
        for name, model in models:
            if hasattr(model, "kneighbors") and "HKNN" not in name:
                neigh[name] = model.kneighbors(Xt)[1]
        ref = neigh["scikit-learn KNN (brute)"]
        print()
        print(f"Prediction of {args.n_query} Fashion-MNIST queries against {args.n_ref} "
              f"references, K={K}, {dtype}")
        print("| method | predict (s) | queries / s | test acc | same neighbours as brute | "
              "time / scikit-learn brute |")
        print("|---|---|---|---|---|---|")
        base = best["scikit-learn KNN (brute)"]
        for name, _ in models:
            t = best[name]
            same = (f"{np.mean(np.all(neigh[name] == ref, axis=1)):.4f}" if name in neigh
                    else "")
            print(f"| {name} | {t:.3f} | {args.n_query / t:.0f} | "
                  f"{np.mean(preds[name] == yt):.4f} | {same} | {t / base:.2f}x |")
    X, y = X_all[:args.n_ref].astype(np.float32), y_all[:args.n_ref]
    Xt, yt = Xt_all[:args.n_query].astype(np.float32), yt_all[:args.n_query]

    # Parzen densities: a 10k reference set of one class, 2k queries, h from a quick choice
    Xr = X[y == 0][:6000].astype(np.float64)
    Xq = Xt[yt == 0][:1000].astype(np.float64)
    h = 2.0
    (ours, t1) = timed(lambda: ParzenDensity(sigma=h).fit(Xr).score_samples(Xq))
    (ref, t2) = timed(lambda: KernelDensity(bandwidth=h).fit(Xr).score_samples(Xq))
    print()
    print(f"Parzen log density of {len(Xq)} queries, {len(Xr)} references, d=784, h={h}")
    print("| method | time (s) | mean log density | max abs diff |")
    print("|---|---|---|---|")
    print(f"| kernelnb ParzenDensity | {t1:.2f} | {ours.mean():.3f} | |")
    print(f"| scikit-learn KernelDensity | {t2:.2f} | {ref.mean():.3f} | {np.abs(ours - ref).max():.2e} |")
    print(f"ratio scikit-learn / kernelnb: {t2 / t1:.1f}x")

    # Kernel ridge on a regression task made from the images: predict the mean intensity of the
    # right half from the left half (n = 5000).
    n = 5000
    left = X[:n, :392].astype(np.float64)
    target = X[:n, 392:].mean(axis=1).astype(np.float64)
    lt = Xt[:2000, :392].astype(np.float64)
    tt = Xt[:2000, 392:].mean(axis=1).astype(np.float64)
    from kernelnb.kernels import gamma_from_sigma, scale_sigma
    sigma = scale_sigma(left)
    (ours, t1) = timed(lambda: KernelRidge(alpha=1e-2, sigma=sigma).fit(left, target).predict(lt))
    (ref, t2) = timed(lambda: SkKernelRidge(alpha=1e-2, kernel="rbf", gamma=gamma_from_sigma(sigma))
                      .fit(left, target).predict(lt))
    print()
    print(f"Kernel ridge fit + predict, n = {n}, 2000 test points, d = 392")
    print("| method | time (s) | test MSE |")
    print("|---|---|---|")
    print(f"| kernelnb KernelRidge | {t1:.2f} | {np.mean((ours - tt) ** 2):.5f} |")
    print(f"| scikit-learn KernelRidge | {t2:.2f} | {np.mean((ref - tt) ** 2):.5f} |")
    print(f"ratio scikit-learn / kernelnb: {t2 / t1:.1f}x")


if __name__ == "__main__":
    main()
