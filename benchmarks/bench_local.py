"""Local methods: kernelnb against scikit-learn, measured in this one run.

* KNN and HKNN prediction throughput on Fashion-MNIST (60,000 reference points, 10,000 queries,
  K = 10, pixels / 255 in float32) against scikit-learn's KNeighborsClassifier (brute, auto);
* Parzen score_samples against scikit-learn's KernelDensity (Gaussian kernel);
* KernelRidge fit + predict against scikit-learn's KernelRidge (RBF).

Usage: python benchmarks/bench_local.py [--n-ref 60000] [--n-query 10000]
"""
import argparse
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
    args = ap.parse_args(argv)
    X, y = fashion("train")
    Xt, yt = fashion("test")
    X, y = X[:args.n_ref].astype(np.float32), y[:args.n_ref]
    Xt, yt = Xt[:args.n_query].astype(np.float32), yt[:args.n_query]
    K = args.k
    rows = []
    for name, make in [
        ("kernelnb KNN", lambda: KNeighborsClassifier(n_neighbors=K)),
        ("scikit-learn KNN (brute)", lambda: SkKNN(K, algorithm="brute", n_jobs=-1)),
        ("scikit-learn KNN (auto)", lambda: SkKNN(K, algorithm="auto", n_jobs=-1)),
        ("kernelnb HKNN (lambda=10)", lambda: HKNNClassifier(n_neighbors=K, weight_decay=10.0)),
    ]:
        model = make().fit(X, y)
        pred, t = timed(lambda: model.predict(Xt))
        rows.append((name, t, args.n_query / t, float(np.mean(pred == yt))))
        print(f"  done: {name} {t:.2f}s", flush=True)
    print()
    print(f"Prediction of {args.n_query} Fashion-MNIST queries against {args.n_ref} references, K={K}")
    print("| method | predict (s) | queries / s | test acc | time / kernelnb KNN |")
    print("|---|---|---|---|---|")
    base = rows[0][1]
    for name, t, qps, acc in rows:
        print(f"| {name} | {t:.2f} | {qps:.0f} | {acc:.4f} | {t / base:.2f}x |")

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
