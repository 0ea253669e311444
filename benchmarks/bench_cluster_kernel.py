"""Cluster kernels (Chapelle's thesis 7.4.5 and Fig. 7.7), computed here beside the published
numbers, and the speed of the cluster-kernel SVM against the plain SVM.

* Digits (the thesis's USPS experiment, :func:`kernelnb.reproductions.chapelle.cluster_kernels.digits_cluster_experiment`):
  0-4 against 5-9, groups of 40 labeled points, the rest of the pool unlabeled, test points
  reached through the cluster kernel's extension.  USPS is not bundled: scikit-learn's 8 x 8
  digits (1797 images: a pool of 1200 = 30 groups, 597 test points) stand in for it; with
  ``--fashion`` (and ``KERNELNB_DATA`` pointing at the Fashion-MNIST files) the thesis's sizes,
  a pool of 2000 = 50 groups and 2000 test images, on Fashion-MNIST.
* Span against the cut-off r (Fig. 7.6, right).
* The marginalized-kernel toy of Fig. 7.7 (sign maps of the decision functions).
* Speed at n = 2000 / 5000 (Fashion-MNIST; digits at 1797 when it is missing), time and error
  beside each other, ratios against the plain SVM on the labeled points, same process.

The TSVM runs on every group of the digits section (about 2 s a run on the 8 x 8 digits);
``--tsvm-runs N`` keeps it to the first N (the quick path: 2).

Usage: python benchmarks/bench_cluster_kernel.py [--quick] [--fashion] [--tsvm-runs N]
       [--sigma S] [--section all|digits|toy|speed] [--results-dir docs/reproductions/results]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import add_results_option, save_results  # noqa: E402

from kernelnb.reproductions.chapelle.cluster_kernels import (PUBLISHED_USPS, cluster_kernel_speed,
                                                 digits_cluster_experiment, marginalized_toy)


def _fashion_available():
    try:
        from kernelnb.datasets.fashion_mnist import fashion_mnist_paths
        fashion_mnist_paths("train")
        fashion_mnist_paths("test")
        return True
    except Exception:  # noqa: BLE001  (any missing-file error)
        return False


def digits(quick, fashion, tsvm_runs=None, sigma=None, results_dir=None):
    data = "fashion" if fashion else "digits"
    sizes = dict(n_pool=2000, n_test=2000) if fashion else dict(n_pool=1200, n_test=597)
    if fashion:   # 784 pixels in [0, 1]: wider widths than the 8 x 8 digits' grid
        sizes["sigmas"] = (2.0, 3.0, 4.0, 6.0, 8.0, 12.0)
    if quick:
        sizes.update(n_pool=400, n_test=300)
    if sigma is not None:   # a fixed width instead of the thesis's rule (the span-against-r study)
        sizes["sigmas"] = (float(sigma),)
    t0 = time.perf_counter()
    if tsvm_runs is None:
        tsvm_runs = 2 if quick else None      # None: every run
    settings = dict(data=data, n_runs=4 if quick else None, tsvm_runs=tsvm_runs, random_state=0,
                    **sizes)
    out = digits_cluster_experiment(**settings)
    if sigma is None:     # the thesis's rule for the width: the table the book shows
        save_results(results_dir, f"chapelle-cluster-kernel-{data}",
                     "kernelnb.reproductions.chapelle.cluster_kernels.digits_cluster_experiment",
                     settings, out, time.perf_counter() - t0)
    s = out["setup"]
    print(f"\n## Cluster kernel on {data} (thesis 7.4.5, USPS): 0-4 vs 5-9, pool {s['n_pool']}, "
          f"{s['n_runs']} runs of {s['group_size']} labeled, {s['n_test']} test points, "
          f"C = {s['C']:g}, {time.perf_counter() - t0:.0f} s")
    rule = ("fixed by --sigma" if sigma is not None
            else "the thesis's rule: the plain SVM's best mean test error")
    print(f"sigma ({rule}): "
          f"{out['sigma']:g}; SVM error per sigma: "
          + ", ".join(f"{k:g}: {100 * v:.1f}%" for k, v in out["sigma_errors"].items()))
    for note in out["notes"]:
        print("note:", note)
    print("\n| method | runs | test error % (mean) | sd | published (USPS) |")
    print("|---|---|---|---|---|")
    for name, e in out["errors"].items():
        key = "cluster kernel" if name.startswith("cluster kernel (r by span") else name
        pub = PUBLISHED_USPS.get(key)
        pub_s = f"{pub[0]} (sd {pub[1]})" if pub else "-"
        print(f"| {name} | {e.size} | {100 * e.mean():.1f} | {100 * e.std():.1f} | {pub_s} |")
    rc = np.bincount(out["r_chosen"])
    print("\nr chosen by the span (r: runs): "
          + ", ".join(f"{r}: {c}" for r, c in enumerate(rc) if c))
    print("\n### Span against the cut-off r (poly-step p = 1/2, q = 2; Fig. 7.6 right)")
    print("| r | mean span estimate % | mean test error % |")
    print("|---|---|---|")
    for r, (sp, te) in out["span_curve"].items():
        print(f"| {r} | {100 * sp:.1f} | {100 * te:.1f} |")
    ev = out["eigenvalues"]
    print("\nleading eigenvalues of L: " + " ".join(f"{v:.3f}" for v in ev[:12]))
    # a cluster structure of k groups shows as k eigenvalues near 1 and a gap after the k-th
    # (Ng, Jordan and Weiss; thesis 7.4.3): where is the largest drop?
    k = min(30, ev.size - 1)
    ratio = ev[1:k] / np.maximum(ev[2:k + 1], 1e-300)
    i = int(np.argmax(ratio)) + 2
    print(f"largest drop lambda_i / lambda_(i+1) for i = 2..{k}: at i = {i} "
          f"({ev[i - 1]:.3f} -> {ev[i]:.3f}, ratio {ratio[i - 2]:.2f})")
    return out


def toy():
    out = marginalized_toy(random_state=0)
    print("\n## Marginalized kernel toy (thesis Fig. 7.7): mixture centres (+-0.5, 0), "
          "sd 0.15 (right) / 0.4 (left), 200 unlabeled points, EM; 3 labeled points")
    print("EM means: " + "; ".join(f"({m[0]:+.2f}, {m[1]:+.2f})" for m in out["means"]))
    print("labeled: " + "; ".join(f"({x[0]:+.2f}, {x[1]:+.2f}) -> {y:+d}"
                                  for x, y in zip(out["X_labeled"], out["y_labeled"])))
    print("\n| kernel | right cluster given its labeled point's label | left cluster labeled +1 |")
    print("|---|---|---|")
    for name, s in out["summary"].items():
        vals = list(s.values())
        print(f"| {name} | {100 * vals[0]:.0f}% | {100 * vals[1]:.0f}% |")
    xx, yy = out["grid"]
    XL = out["X_labeled"]
    for name in ("marginalized", "rbf"):
        print(f"\nsign of the decision function, {name} kernel (x from -1.5 to 1.5, y from 1.2 "
              "at the top; L/l = labeled +1/-1)")
        G = np.where(out[name]["grid"] > 0, "+", ".").astype(object)
        for x, lab in zip(XL, out["y_labeled"]):
            i = int(np.argmin(np.abs(yy[:, 0] - x[1])))
            j = int(np.argmin(np.abs(xx[0] - x[0])))
            G[i, j] = "L" if lab > 0 else "l"
        for row in G[::-1]:
            print("    " + "".join(row))
    return out


def speed(quick):
    data = "fashion" if _fashion_available() else "digits"
    sizes = (1000,) if quick else ((2000, 5000) if data == "fashion" else (1000, 1797 - 597))
    if data == "digits":
        print("\nnote: Fashion-MNIST not found (KERNELNB_DATA): the speed rows use the digits")
    rows = cluster_kernel_speed(sizes=sizes, n_test=1000 if quick else 2000, data=data)
    print(f"\n## Speed: cluster-kernel SVM against the plain SVM ({data}, 0-4 vs 5-9, 100 labeled "
          "points, the rest unlabeled, sigma 'scale', C = 100)")
    print("| n | method | fit s | predict s | fit / plain SVM fit | test error % |")
    print("|---|---|---|---|---|---|")
    base = {}
    for row in rows:
        if row["method"] == "SVM (labeled only)":
            base[row["n"]] = row["fit_s"]
        ratio = row["fit_s"] / base[row["n"]]
        print(f"| {row['n']} | {row['method']} | {row['fit_s']:.2f} | {row['predict_s']:.2f} | "
              f"{ratio:.0f}x | {100 * row['error']:.1f} |")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--fashion", action="store_true",
                    help="the digits section on Fashion-MNIST (thesis sizes)")
    ap.add_argument("--tsvm-runs", type=int, default=None, metavar="N",
                    help="run the TSVM on the first N groups only (default: all of them; 2 "
                         "with --quick)")
    ap.add_argument("--sigma", type=float, default=None,
                    help="digits section: this RBF width instead of the thesis's rule (the "
                         "plain SVM's best test error), e.g. to look at the span against r "
                         "at a width where the spectrum of L shows more cluster structure")
    ap.add_argument("--section", default="all", choices=["all", "digits", "toy", "speed"])
    add_results_option(ap)
    args = ap.parse_args()
    if args.section in ("all", "digits"):
        digits(args.quick, args.fashion, args.tsvm_runs, args.sigma, args.results_dir)
    if args.section in ("all", "toy"):
        toy()
    if args.section in ("all", "speed"):
        speed(args.quick)


if __name__ == "__main__":
    main()
