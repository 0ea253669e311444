"""The Fisher kernel of a Gaussian mixture with its means chosen by maximum likelihood (the
original Fisher kernel) or by minimising R^2/M^2 (Chapelle's thesis §5.3, proposed there and not
tested), beside an RBF SVM whose (C, sigma) are chosen by 5-fold grid search (scikit-learn).

For each data set and split: standardised inputs, the same mixture (spherical, n_components
given) and C = 1 for both Fisher kernels; test error and fit time.  Averages over the splits.

Usage: python benchmarks/bench_fisher_kernel.py [--quick]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from kernelnb.datasets import load_breast_cancer, load_pima, load_sonar, make_moons
from kernelnb.model_selection import FisherKernelSVC


def _sets(quick):
    Xm, ym = make_moons(n_samples=1200, noise=0.25, random_state=0)
    sets = [("moons (2-D)", Xm, ym, 200, 4), ("breast cancer (9-D)", *load_breast_cancer(), 200, 2),
            ("pima (8-D)", *load_pima(), 300, 2), ("sonar (60-D)", *load_sonar(), 140, 1)]
    return sets[:2] if quick else sets


def run(quick=False):
    n_splits = 2 if quick else 5
    print(f"{n_splits} splits; test error (fit seconds) [R^2||w||^2 of the Fisher SVM]")
    print(f"{'data set':22s} {'M':>2s}  {'Fisher, ML means':>26s}  {'Fisher, R2/M2 means':>26s}"
          f"  {'RBF SVC, 5-fold grid':>22s}", flush=True)
    for name, X, y, n_train, M in _sets(quick):
        res = {k: [] for k in ("ml", "rm", "rbf")}
        for split in range(n_splits):
            Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=n_train, stratify=y,
                                                  random_state=split)
            sc = StandardScaler().fit(Xtr)
            Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
            for key, tune in (("ml", "likelihood"), ("rm", "radius_margin")):
                t0 = time.perf_counter()
                m = FisherKernelSVC(n_components=M, criterion=tune, random_state=split).fit(Xtr, ytr)
                res[key].append((1 - m.score(Xte, yte), time.perf_counter() - t0,
                                 m.radius_margin_))
            t0 = time.perf_counter()
            d = Xtr.shape[1]
            grid = GridSearchCV(SkSVC(), {"C": np.logspace(-1, 3, 5),
                                          "gamma": np.logspace(-2, 1, 5) / d}, cv=5).fit(Xtr, ytr)
            res["rbf"].append((1 - grid.score(Xte, yte), time.perf_counter() - t0, np.nan))
        r = {k: np.mean(v, axis=0) for k, v in res.items()}
        cells = [f"{r[k][0]:6.1%} ({r[k][1]:5.2f} s) [{r[k][2]:7.1f}]" for k in ("ml", "rm")]
        print(f"{name:22s} {M:2d}  {cells[0]:>26s}  {cells[1]:>26s}  "
              f"{r['rbf'][0]:6.1%} ({r['rbf'][1]:5.2f} s)", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    run(ap.parse_args().quick)
