"""Kernel Matching Pursuit speed and memory on Fashion-MNIST T-shirt (0) vs shirt (6).

kernelnb's pre-fitting (and back-fitting) with N = 100 support points against scikit-learn's
OrthogonalMatchingPursuit on the precomputed kernel matrix (back-fitting is OMP; the kernel
time is counted for both), at l = 2k, 5k, 10k training points; peak memory by tracemalloc
(numpy reports its buffers to it).  Then prediction time of KMP against kernelnb's SVC on the
2,000 official test points, with test accuracy beside each.

Usage: python benchmarks/bench_kmp.py [--sizes 2000 5000 10000] [--n-basis 100]
"""
import argparse
import gc
import time
import tracemalloc

import numpy as np
from sklearn.linear_model import OrthogonalMatchingPursuit

from _common import fashion
from kernelnb.kernels import RBF, scale_sigma
from kernelnb.kmp import KMPClassifier
from kernelnb.svm import SVC


def measure(fn):
    gc.collect()
    tracemalloc.start()
    t = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, dt, peak


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 10000])
    ap.add_argument("--n-basis", type=int, default=100)
    args = ap.parse_args(argv)
    X_all, y_all = fashion("train")
    Xt_all, yt_all = fashion("test")
    keep, keept = np.isin(y_all, [0, 6]), np.isin(yt_all, [0, 6])
    Xp, yp = X_all[keep].astype(np.float64), np.where(y_all[keep] == 6, 1.0, -1.0)
    Xt, yt = Xt_all[keept].astype(np.float64), np.where(yt_all[keept] == 6, 1.0, -1.0)
    N = args.n_basis
    rows = []
    for n in args.sizes:
        X, y = Xp[:n], yp[:n]
        sigma = scale_sigma(X)
        for variant, precision in (("prefit", "float64"), ("backfit", "float64"),
                                   ("prefit", "float32")):
            model, t, mem = measure(lambda: KMPClassifier(n_basis=N, variant=variant, sigma=sigma,
                                                          bias=False, precision=precision).fit(X, y))
            rows.append(dict(n=n, name=f"kernelnb KMP {variant} {precision}", fit=t, mem=mem,
                             acc=model.score(Xt, yt)))

        def sk_omp():
            K = RBF(sigma)(X)
            norms = np.linalg.norm(K, axis=0)
            omp = OrthogonalMatchingPursuit(n_nonzero_coefs=N, fit_intercept=False)
            omp.fit(K / norms, y)
            return omp, norms

        (omp, norms), t, mem = measure(sk_omp)
        sv = np.flatnonzero(omp.coef_)
        f = RBF(sigma)(Xt, X[sv]) @ (omp.coef_[sv] / norms[sv])
        rows.append(dict(n=n, name="scikit-learn OMP (precomputed K)", fit=t, mem=mem,
                         acc=float(np.mean(np.sign(f) == yt))))
        print(f"  done n={n}", flush=True)
    print()
    print(f"Pre-fitting / back-fitting with N = {N} (kernel time included), T-shirt vs shirt")
    print("| n train | method | fit (s) | peak memory (MB) | test acc | time: OMP / this |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        ref = next(b for b in rows if b["n"] == r["n"] and b["name"].startswith("scikit"))
        ratio = "" if r is ref else f"{ref['fit'] / r['fit']:.1f}x"
        print(f"| {r['n']} | {r['name']} | {r['fit']:.2f} | {r['mem']:.0f} | {r['acc']:.4f} | {ratio} |")

    # prediction: KMP against SVC at the largest size
    n = args.sizes[-1]
    X, y = Xp[:n], yp[:n]
    sigma = scale_sigma(X)
    svc = SVC(C=10.0, sigma=sigma, cache_size=1000).fit(X, y)
    kmp = KMPClassifier(n_basis=N, sigma=sigma, bias=True).fit(X, y)
    print()
    print(f"Prediction of {len(yt)} test points (n train = {n})")
    print("| model | support points | predict (s) | test acc |")
    print("|---|---|---|---|")
    for name, m in (("kernelnb SVC (C=10)", svc), (f"kernelnb KMP prefit (N={N})", kmp)):
        _, t, _ = measure(lambda: m.predict(Xt))
        print(f"| {name} | {len(m.support_)} | {t:.3f} | {m.score(Xt, yt):.4f} |")


if __name__ == "__main__":
    main()
