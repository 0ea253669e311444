"""Vincent's thesis Tables 13.2, 13.3 and 13.4 (Manifold Parzen windows, ch. 13) in kind, with the
local Gaussian density of section 14.3 beside them, computed here beside the published numbers.

* Table 13.2: the density of one class.  The thesis used MNIST digit 2 (5400 train / 558
  validation / 1032 test); here Fashion-MNIST class ``--cls`` (default 2, "pullover"; pixels /
  255): the first 5400 of its training images train, the next 558 validate, its 1000 test images
  test.  Parzen, Manifold Parzen and the local Gaussian density are each chosen by the validation
  ANLL; test ANLL with its standard error.  scikit-learn's KernelDensity is timed on the same data.
* Tables 13.3 and 13.4: Bayes classifiers built from Parzen and Manifold Parzen class densities
  against a Gaussian SVM.  The thesis used USPS (first 6291 / last 1000 of the training set,
  2007 test); here scikit-learn's 8x8 digits (pixels / 16) stand in, split at random into
  1000 train / 297 validation / 500 test (``--seeds`` splits, averaged).  Hyperparameters are
  chosen by the validation error (13.3) and by the validation ANCLL (13.4).  scikit-learn's SVC
  is timed on the same data.

The published numbers are MNIST's and USPS's: only the ordering and the size of the gaps can be
compared, not the values (ANLLs depend on the data's dimension and scale).

Usage: python benchmarks/bench_density_tables.py [--cls 2] [--seeds 3] [--skip 13.2]
       [--results-dir docs/reproductions/results]
"""
import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits

from _common import add_results_option, fashion, save_results
from kernelnb.reproductions.vincent.local import (
    TABLE_13_2_PUBLISHED,
    TABLE_13_3_PUBLISHED,
    TABLE_13_4_PUBLISHED,
    bayes_tables,
    class_density_table,
)


def table_13_2(args):
    from sklearn.neighbors import KernelDensity

    from kernelnb.neighbors import ParzenDensity

    X, y = fashion("train")
    Xt, yt = fashion("test")
    Xc = X[y == args.cls].astype(np.float64)
    tr, va, te = Xc[:5400], Xc[5400:5958], Xt[yt == args.cls].astype(np.float64)
    t = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        r = class_density_table(
            tr, va, te, parzen_grid=np.geomspace(0.1, 1.0, 11),
            mparzen_grid={"n_components": args.mp_d, "n_neighbors": args.mp_k,
                          "sigma": args.mp_sigma},
            local_grid={"n_components": args.mp_d, "n_neighbors": [args.mp_k[-1]],
                        "sigma": args.local_width, "noise": args.local_noise,
                        "max_neighbors": [args.local_max_neighbors]})
    total = time.perf_counter() - t
    save_results(args.results_dir, "vincent-table-13-2",
                 "kernelnb.reproductions.vincent.local.class_density_table",
                 {"data": f"Fashion-MNIST class {args.cls}, pixels / 255: its first 5400 training "
                          "images train, the next 558 validate, its 1000 test images test",
                  "parzen_grid": "geomspace(0.1, 1.0, 11)",
                  "mparzen_grid": {"n_components": args.mp_d, "n_neighbors": args.mp_k,
                                   "sigma": args.mp_sigma},
                  "local_grid": {"n_components": args.mp_d, "n_neighbors": [args.mp_k[-1]],
                                 "sigma": args.local_width, "noise": args.local_noise,
                                 "max_neighbors": [args.local_max_neighbors]}},
                 r, total)
    print(f"Table 13.2 in kind: density of Fashion-MNIST class {args.cls} ({len(tr)} train / "
          f"{len(va)} valid / {len(te)} test, d = 784, pixels / 255) in place of MNIST digit 2 "
          "(5400 / 558 / 1032)")
    print("| estimator | valid ANLL (se) | test ANLL (se) | chosen | on grid edge | published test ANLL (MNIST) |")
    print("|---|---|---|---|---|---|")
    for name, row in r.items():
        pub = TABLE_13_2_PUBLISHED.get(name)
        pub_s = f"{pub[0]} ({pub[1]}), {pub[2]}" if pub else "not measured in the thesis"
        print(f"| {name} | {row['valid_anll']:.2f} ({row['valid_se']:.2f}) | {row['test_anll']:.2f} "
              f"({row['test_se']:.2f}) | {row['params']} | {', '.join(row['on_edge']) or '-'} | {pub_s} |")
    print(f"(selection and test of the three estimators: {total:.0f} s)")
    for w in caught:
        print("warning:", w.message)
    s = r["Parzen"]["params"]["sigma"]
    t = time.perf_counter()
    ours = ParzenDensity(sigma=s).fit(tr).score_samples(te)
    t1 = time.perf_counter() - t
    t = time.perf_counter()
    ref = KernelDensity(bandwidth=s).fit(tr).score_samples(te)
    t2 = time.perf_counter() - t
    # an exact reference: the log-sum-exp of the Gaussian windows, written out in numpy
    from scipy.special import logsumexp
    d2 = ((te * te).sum(1)[:, None] + (tr * tr).sum(1)[None, :] - 2.0 * te @ tr.T).clip(0.0)
    exact = (logsumexp(-d2 / (2 * s * s), axis=1) - np.log(len(tr))
             - 0.5 * tr.shape[1] * np.log(2 * np.pi * s * s))
    print(f"Parzen test log densities, sigma={s:.3g}: kernelnb {t1:.2f} s, scikit-learn "
          f"KernelDensity {t2:.2f} s (ratio {t2 / t1:.1f}x)")
    print(f"  mean log density: kernelnb {ours.mean():.2f}, scikit-learn {ref.mean():.2f}; queries "
          f"where they differ by more than 1e-6: {int(np.sum(np.abs(ours - ref) > 1e-6))} of {len(te)}")
    print(f"  against the exact log-sum-exp: kernelnb max |error| {np.abs(ours - exact).max():.1e}, "
          f"scikit-learn max |error| {np.abs(ref - exact).max():.1e}")


def tables_13_3_13_4(args):
    from sklearn.svm import SVC as SkSVC

    from kernelnb.kernels import gamma_from_sigma, scale_sigma
    from kernelnb.svm import SVC

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    runs = []
    t = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        for s in range(args.seeds):
            p = np.random.RandomState(s).permutation(len(y))
            tr, va, te = p[:1000], p[1000:1297], p[1297:]
            runs.append(bayes_tables(
                X[tr], y[tr], X[va], y[va], X[te], y[te],
                parzen_grid=np.geomspace(0.1, 1.0, 13),
                mparzen_grid={"n_components": [2, 5, 11, 17], "n_neighbors": [11, 17, 25, 40, 60],
                              "sigma": [0.1, 0.2, 0.3, 0.5, 0.8]},
                C_grid=(1.0, 10.0, 100.0), sigma_factors=(0.5, 1.0, 2.0)))
    total = time.perf_counter() - t
    save_results(args.results_dir, "vincent-tables-13-3-13-4",
                 "kernelnb.reproductions.vincent.local.bayes_tables",
                 {"data": "scikit-learn digits / 16, split s: RandomState(s).permutation, "
                          "1000 train / 297 validation / 500 test", "seeds": args.seeds,
                  "parzen_grid": "geomspace(0.1, 1.0, 13)",
                  "mparzen_grid": {"n_components": [2, 5, 11, 17],
                                   "n_neighbors": [11, 17, 25, 40, 60],
                                   "sigma": [0.1, 0.2, 0.3, 0.5, 0.8]},
                  "C_grid": (1.0, 10.0, 100.0), "sigma_factors": (0.5, 1.0, 2.0)},
                 runs, total)
    split = f"scikit-learn digits 8x8 (1000 / 297 / 500, {args.seeds} random splits, mean +- std)"

    def cell(table, name, key, scale=1.0, fmt="{:.2f}"):
        v = np.array([r[table][name][key] for r in runs], dtype=float) * scale
        return (fmt + " +- " + fmt).format(v.mean(), v.std())

    print(f"Table 13.3 in kind, selection by validation error: {split}, in place of USPS")
    print("| classifier | valid err % | test err % | chosen (split 0) | published test err % (USPS) |")
    print("|---|---|---|---|---|")
    for name in ("SVM", "Parzen", "Manifold Parzen"):
        pub = TABLE_13_3_PUBLISHED[name]
        print(f"| {name} | {cell('by_error', name, 'valid_error', 100)} | "
              f"{cell('by_error', name, 'test_error', 100)} | {runs[0]['by_error'][name]['params']} | "
              f"{pub[0]} ({pub[1]}) |")
    print()
    print(f"Table 13.4 in kind, selection by validation ANCLL: {split}")
    print("| classifier | valid ANCLL | test ANCLL | test err % | chosen (split 0) | published test ANCLL (USPS) |")
    print("|---|---|---|---|---|---|")
    for name in ("Parzen", "Manifold Parzen"):
        pub = TABLE_13_4_PUBLISHED[name]
        print(f"| {name} | {cell('by_ancll', name, 'valid_ancll', fmt='{:.4f}')} | "
              f"{cell('by_ancll', name, 'test_ancll', fmt='{:.4f}')} | "
              f"{cell('by_ancll', name, 'test_error', 100)} | {runs[0]['by_ancll'][name]['params']} | "
              f"{pub[0]} ({pub[1]}) |")
    print(f"(all splits: {total:.0f} s)")
    edges = sorted({str(w.message).split(":")[0] for w in caught})
    print("selections on a grid edge:", len(caught), "(" + ", ".join(edges) + ")" if edges else "")
    # the SVM against scikit-learn's on split 0
    p = np.random.RandomState(0).permutation(len(y))
    tr, te = p[:1000], p[1297:]
    sp = runs[0]["by_error"]["SVM"]["params"]
    out = []
    for name, make in (("kernelnb SVC", lambda: SVC(C=sp["C"], sigma=sp["sigma"])),
                       ("scikit-learn SVC", lambda: SkSVC(C=sp["C"], gamma=gamma_from_sigma(sp["sigma"])))):
        t = time.perf_counter()
        m = make().fit(X[tr], y[tr])
        out.append((name, time.perf_counter() - t, 1 - m.score(X[te], y[te])))
    print("SVM fit on split 0 (" + ", ".join(f"{k}={v:.3g}" for k, v in sp.items()) + "): " + "; ".join(
        f"{n} {t:.2f} s, test err {100 * e:.2f} %" for n, t, e in out)
          + f" (ratio {out[1][1] / out[0][1]:.1f}x); scale_sigma = {scale_sigma(X[tr]):.3g}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cls", type=int, default=2)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--mp-d", type=int, nargs="+", default=[20, 50])
    ap.add_argument("--mp-k", type=int, nargs="+", default=[80])
    ap.add_argument("--mp-sigma", type=float, nargs="+", default=[0.05, 0.09, 0.2])
    ap.add_argument("--local-width", type=float, nargs="+", default=[1.0, 2.0])
    ap.add_argument("--local-noise", type=float, nargs="+", default=[0.09, 0.2])
    ap.add_argument("--local-max-neighbors", type=int, default=200)
    ap.add_argument("--skip", nargs="*", default=[], choices=["13.2", "13.3"])
    add_results_option(ap)
    args = ap.parse_args(argv)
    if "13.2" not in args.skip:
        t = time.perf_counter()
        table_13_2(args)
        print(f"(table 13.2: {time.perf_counter() - t:.0f} s)\n", flush=True)
    if "13.3" not in args.skip:
        t = time.perf_counter()
        tables_13_3_13_4(args)
        print(f"(tables 13.3, 13.4: {time.perf_counter() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
