"""KernelPCAMap against scikit-learn's KernelPCA and Nystroem: time, peak memory, accuracy.

The kernel PCA map of Chapelle's thesis (section 2.2), exact and low-rank (section 2.2.1),
measured on Fashion-MNIST (upper-body garments {T-shirt, pullover, coat, shirt} against the
rest, pixels / 255; training sets of the first n images, test on the first 2,000 test images)
with the RBF width of scikit-learn's ``gamma='scale'`` (``kernelnb.kernels.scale_sigma``).

For each n, in one process:

* **exact, every component**: ``KernelPCAMap()`` against ``KernelPCA(eigen_solver='dense')``;
* **exact, top k**: ``KernelPCAMap(n_components=k)`` against ``KernelPCA(n_components=k)`` with
  ``eigen_solver='dense'``, ``'arpack'`` and ``'randomized'``;
* **low rank k**: ``KernelPCAMap(method='subset' | 'cholesky', n_components=k)`` against
  scikit-learn's two low-rank maps, ``sklearn.kernel_approximation.Nystroem(n_components=k)``
  (random subset, like 'subset', without centring or principal axes) and
  ``KernelPCA(n_components=k, eigen_solver='randomized')``.

Time: wall-clock seconds of ``fit_transform`` on the training set plus ``transform`` of the test
set (median of ``--repeat`` runs, ours and the peers taking turns); memory: the peak traced
by ``tracemalloc`` during one such run (numpy reports its buffers to it; LAPACK's workspace is not traced for either side).  The ratio is
scikit-learn's time (memory) over kernelnb's for the peer on the same row: > 1 means kernelnb is
faster (lighter).  Beside each: the test accuracy of a linear :class:`kernelnb.svm.SVC`
(C = 10) trained on the map.

Then Fig. 2.4 of the thesis in kind (``--part figure``): the test error of a linear SVM on the
k-component map for exact kernel PCA, a random subset and incomplete Cholesky, on scikit-learn's
8x8 digits (0-4 against 5-9; USPS, the thesis's data, is not shipped), two halves of 898 points
training and testing in turn (:func:`kernelnb.reproductions.chapelle.kpca.digits_kpca_curve`).  The thesis gives the
curves but no numbers, so there is no published value to print beside.

Run: ``python benchmarks/bench_kpca.py`` (n = 1,000, 2,000, 4,000; k = 100; then the figure),
``--quick`` (n = 1,000 and 2,000; the figure on 300 training points), ``--sizes``, ``--k``,
``--part timing|figure|all``, ``--groups all top subset cholesky`` (rows of the timing
table).  The timing part needs the Fashion-MNIST files (``KERNELNB_DATA``).
"""
import argparse
import gc
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from sklearn.decomposition import KernelPCA
from sklearn.kernel_approximation import Nystroem

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import fashion  # noqa: E402
from kernelnb.kernels import gamma_from_sigma, scale_sigma  # noqa: E402
from kernelnb.prior import KernelPCAMap
from kernelnb.reproductions.chapelle.kpca import digits_kpca_curve  # noqa: E402
from kernelnb.svm import SVC  # noqa: E402


def run(make, X, Xt):
    model = make()
    Z = model.fit_transform(X)
    return Z, model.transform(Xt)


def interleaved_times(makers, X, Xt, repeat):
    """Wall times of ``run`` for each maker, the makers taking turns in every repetition (so
    that a slow spell of a shared machine falls on all of them), after one untimed warm-up
    round; the table reports medians."""
    for make in makers:
        run(make, X, Xt)
    times = [[] for _ in makers]
    for _ in range(max(int(repeat), 1)):
        for j, make in enumerate(makers):
            gc.collect()
            t = time.perf_counter()
            run(make, X, Xt)
            times[j].append(time.perf_counter() - t)
    return times


def measure(make, X, Xt, repeat):
    """(train map, test map), best time of ``repeat`` runs (none: 0), peak MB of one traced
    run."""
    best, out = np.inf, None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = run(make, X, Xt)
        best = min(best, time.perf_counter() - t)
    del out
    gc.collect()
    tracemalloc.start()
    out = run(make, X, Xt)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, best, peak


def accuracy(Z, y, Zt, yt):
    return float(SVC(kernel="linear", C=10.0).fit(Z, y).score(Zt, yt))


def load(n_test):
    X, y = fashion("train")
    Xt, yt = fashion("test")
    upper = (0, 2, 4, 6)
    lab = lambda v: np.where(np.isin(v, upper), 1, -1)  # noqa: E731
    return (X.astype(np.float64) / 255.0, lab(y),
            Xt[:n_test].astype(np.float64) / 255.0, lab(yt[:n_test]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--n-test", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="n = 1,000 and 2,000, one repeat")
    ap.add_argument("--part", choices=("timing", "figure", "all"), default="all")
    ap.add_argument("--groups", nargs="+", choices=GROUPS, default=list(GROUPS),
                    help="which rows of the timing table")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.repeat = [1000, 2000], 1
    if args.part in ("timing", "all"):
        timing(args)
    if args.part in ("figure", "all"):
        figure(args.quick)


GROUPS = ("all", "top", "subset", "cholesky")


def figure(quick):
    """Fig. 2.4 in kind: test error (%) against the number of components."""
    ks = (5, 10, 20, 50, 100, 200, 300) if quick else (5, 10, 20, 50, 100, 200, 400, 898)
    t = time.perf_counter()
    out = digits_kpca_curve(n_components=ks, n_train=300 if quick else None)
    dt = time.perf_counter() - t
    print(f"\nFig. 2.4 in kind: 8x8 digits 0-4 vs 5-9, {out['n_train']} training points per half, "
          f"RBF sigma = scale, linear SVC (C=10); test error %, mean of the two halves "
          f"({dt:.0f} s)\n")
    names = ("exact", "subset", "cholesky")
    print("| k | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for i, k in enumerate(out["n_components"]):
        print(f"| {k} | " + " | ".join(f"{100 * out[m][i]:.2f}" for m in names) + " |")


def timing(args):
    Xall, yall, Xt, yt = load(args.n_test)
    k = args.k
    print(f"\nFashion-MNIST upper-body vs rest, RBF sigma = scale, test on {args.n_test}; "
          f"linear SVC (C=10) on the map; median of {args.repeat} interleaved runs; "
          "ratio = sklearn / kernelnb\n")
    head = ("n", "model", "time s", "peak MB", "test acc", "time ratio", "mem ratio")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head), flush=True)

    def row(n, name, t, m, a, rt="", rm=""):
        print(f"| {n} | {name} | {t:.3f} | {m:.1f} | {a:.4f} | {rt} | {rm} |", flush=True)

    for n in args.sizes:
        X, y = Xall[:n], yall[:n]
        sigma = scale_sigma(X)
        gamma = gamma_from_sigma(sigma)
        # scikit-learn's two low-rank maps: the Nystroem map of a random subset (no centring, no
        # rotation onto principal axes), and KernelPCA's randomized eigensolver
        low_rank_peers = [
            (f"Nystroem {k}", lambda: Nystroem(kernel="rbf", gamma=gamma, n_components=k,
                                               random_state=0)),
            (f"KernelPCA randomized {k}", lambda: KernelPCA(
                n_components=k, kernel="rbf", gamma=gamma, eigen_solver="randomized",
                random_state=0))]
        groups = [
            ("exact, all", lambda: KernelPCAMap(sigma=sigma),
             [("KernelPCA dense", lambda: KernelPCA(kernel="rbf", gamma=gamma,
                                                      eigen_solver="dense"))]),
            (f"exact, top {k}", lambda: KernelPCAMap(n_components=k, sigma=sigma),
             [(f"KernelPCA {s}", (lambda s=s: KernelPCA(
                 n_components=k, kernel="rbf", gamma=gamma, eigen_solver=s, random_state=0)))
              for s in ("dense", "arpack", "randomized")]),
            (f"subset {k}", lambda: KernelPCAMap(n_components=k, method="subset", sigma=sigma,
                                                 random_state=0), low_rank_peers),
            (f"cholesky {k}", lambda: KernelPCAMap(n_components=k, method="cholesky",
                                                   sigma=sigma), low_rank_peers),
        ]
        for (label, ours, peers), key in zip(groups, GROUPS):
            if key not in args.groups:
                continue
            makers = [ours] + [peer for _, peer in peers]
            times = interleaved_times(makers, X, Xt, args.repeat)
            (Z, Zt), _, m0 = measure(ours, X, Xt, 0)
            a0 = accuracy(Z, y, Zt, yt)
            t0 = float(np.median(times[0]))
            row(n, f"kernelnb {label}", t0, m0, a0)
            for j, (name, peer) in enumerate(peers, start=1):
                (P, Pt), _, m1 = measure(peer, X, Xt, 0)
                a1 = accuracy(P, y, Pt, yt)
                t1 = float(np.median(times[j]))
                row(n, f"sklearn {name}", t1, m1, a1, f"{t1 / t0:.2f}", f"{m1 / m0:.2f}")


if __name__ == "__main__":
    main()
