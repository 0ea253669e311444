"""The low-density penalty of Chapelle's thesis §7.3 (LowDensitySVC) against the SVM on the
labeled points alone and the transductive SVM (TransductiveSVC), all three with the same RBF
width and C, on problems with a few labels: the moons, two pairs of scikit-learn's 8 x 8 digits.

Each draw: ``n_labeled`` labeled points (both classes present), the rest of the pool unlabeled;
the error is measured on the unlabeled points (transduction).  Mean error (and its standard
deviation over the draws) and mean fit time.

Usage: python benchmarks/bench_low_density.py [--quick]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import load_digits, make_moons

from kernelnb.svm import SVC
from kernelnb.unlabeled import LowDensitySVC, TransductiveSVC


def _problems():
    X, y = make_moons(n_samples=300, noise=0.1, random_state=0)
    yield "moons, 300 points", X, y, 0.5, 4
    digits = load_digits()
    for a, b in ((3, 8), (4, 9)):
        keep = np.isin(digits.target, (a, b))
        X = digits.data[keep] / 16.0
        yield f"digits {a} vs {b} ({keep.sum()})", X, (digits.target[keep] == b).astype(int), \
            2.5, 10


def _draw(y, n_labeled, rng):
    while True:
        lab = rng.choice(y.shape[0], n_labeled, replace=False)
        if np.unique(y[lab]).shape[0] == 2:
            return lab, np.setdiff1d(np.arange(y.shape[0]), lab)


def run(quick=False):
    n_draws = 3 if quick else 10
    print(f"error on the unlabeled points, mean (std) over {n_draws} draws; mean fit seconds")
    print(f"{'problem':26s} {'labels':>6s}  {'SVM':>22s}  {'low-density SVM':>22s}  "
          f"{'TSVM':>22s}", flush=True)
    for name, X, y, sigma, n_lab in _problems():
        rng = np.random.default_rng(0)
        res = {k: [] for k in ("svm", "lds", "tsvm")}
        for _ in range(n_draws):
            lab, unl = _draw(y, n_lab, rng)
            models = {"svm": SVC(C=10.0, sigma=sigma),
                      "lds": LowDensitySVC(C=10.0, sigma=sigma),
                      "tsvm": TransductiveSVC(C=10.0, C_unlabeled=1.0, sigma=sigma)}
            for k, m in models.items():
                t0 = time.perf_counter()
                if k == "svm":
                    m.fit(X[lab], y[lab])
                else:
                    m.fit(X[lab], y[lab], X_unlabeled=X[unl])
                t = time.perf_counter() - t0
                res[k].append((np.mean(m.predict(X[unl]) != y[unl]), t))
        cells = []
        for k in ("svm", "lds", "tsvm"):
            a = np.array(res[k])
            cells.append(f"{a[:, 0].mean():6.1%} ({a[:, 0].std():5.1%}) {a[:, 1].mean():6.2f} s")
        print(f"{name:26s} {n_lab:6d}  " + "  ".join(f"{c:>22s}" for c in cells), flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    run(ap.parse_args().quick)
