"""The default GradientTuner against 5-fold grid CV on problems its defaults were NOT chosen on.

``bench_tuner_uci.py`` checks the tuner on the four bundled UCI sets on which its defaults (start
C = 1, sigma = 'scale', variance radius, stopping rule) were checked.  This script runs the same
protocol on other problems: two-class splits of scikit-learn's bundled digits and wine, its
breast-cancer (diagnostic, 569 x 30) set, and two-class Fashion-MNIST subsets (found through
``KERNELNB_DATA``).  Per split: ``min(400, 2/3 of the set)`` stratified training points,
standardised on the training part, the rest (at most 2000 points) held out.

Methods: ``GradientTuner()`` (R^2/M^2, the defaults), ``GradientTuner(criterion='span')`` and
scikit-learn's ``GridSearchCV(SVC)`` over the 10 x 10 (C, gamma) grid of bench_tuner_uci (5-fold,
501 trainings).  Printed per problem: test error % (mean over seeds) of each, the tuner minus grid
difference, and the grid's time over the tuner's.

Usage: python benchmarks/bench_tuner_unseen.py [--seeds 5] [--problems digits35,wine] [--methods ...]
"""
import argparse
import time
import warnings

import numpy as np
from sklearn import datasets as skd
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from kernelnb.datasets import load_fashion_mnist
from kernelnb.model_selection import GradientTuner

N_TRAIN = 400
N_TEST = 2000
C_GRID = np.logspace(-2, 4, 10)
GAMMA_GRID = np.logspace(-3, 1, 10)


def _digits(a, b):
    X, y = skd.load_digits(return_X_y=True)
    if b == "odd":
        return X, y % 2
    keep = np.isin(y, (a, b))
    return X[keep], y[keep]


def _wine(c):
    X, y = skd.load_wine(return_X_y=True)
    return X, (y == c).astype(int)


def _fashion(a, b):
    X, y = load_fashion_mnist("train", classes=(a, b), n_samples=3000, random_state=0)
    return X.astype(np.float64), y


PROBLEMS = {
    "digits 3v5": lambda: _digits(3, 5),
    "digits 4v9": lambda: _digits(4, 9),
    "digits 1v7": lambda: _digits(1, 7),
    "digits odd": lambda: _digits(0, "odd"),
    "wine 1vrest": lambda: _wine(1),
    "wine 0vrest": lambda: _wine(0),
    "breast diag": lambda: skd.load_breast_cancer(return_X_y=True),
    "fashion 0v6": lambda: _fashion(0, 6),
    "fashion 2v4": lambda: _fashion(2, 4),
}


def split(X, y, seed):
    n_train = min(N_TRAIN, round(2 * len(y) / 3))
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=n_train, random_state=seed, stratify=y)
    Xte, yte = Xte[:N_TEST], yte[:N_TEST]
    keep = Xtr.std(axis=0) > 0
    scaler = StandardScaler().fit(Xtr[:, keep])
    return scaler.transform(Xtr[:, keep]), scaler.transform(Xte[:, keep]), ytr, yte


def fit(method, Xtr, ytr, seed):
    if method == "grid":
        cv = StratifiedKFold(5, shuffle=True, random_state=seed)
        g = GAMMA_GRID / Xtr.shape[1]
        return GridSearchCV(SkSVC(kernel="rbf"), {"C": C_GRID, "gamma": g}, cv=cv,
                            n_jobs=1).fit(Xtr, ytr)
    kw = {"span": {"criterion": "span"}, "R2/M2": {}}[method]
    return GradientTuner(**kw).fit(Xtr, ytr)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--problems", default=",".join(PROBLEMS))
    ap.add_argument("--methods", default="R2/M2,span,grid")
    args = ap.parse_args(argv)
    methods = args.methods.split(",")
    print(f"{args.seeds} seeds; test error % (mean +- sd over seeds), then tuner - grid (points) "
          "and grid time / tuner time")
    summary = {m: [] for m in methods}
    for name in args.problems.split(","):
        try:
            X, y = PROBLEMS[name]()
        except FileNotFoundError as exc:
            print(f"{name}: skipped ({exc})")
            continue
        res = {m: [] for m in methods}
        for seed in range(args.seeds):
            Xtr, Xte, ytr, yte = split(X, y, seed)
            for m in methods:
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = fit(m, Xtr, ytr, seed)
                wall = time.perf_counter() - t
                res[m].append((100 * np.mean(model.predict(Xte) != yte), wall))
        line = f"{name:12s} n={len(ytr):3d} d={Xtr.shape[1]:3d}"
        for m in methods:
            a = np.array(res[m])
            line += f" | {m} {a[:, 0].mean():5.2f} +- {a[:, 0].std():4.2f}"
            if "grid" in res and m != "grid":
                g = np.array(res["grid"])
                line += f" ({a[:, 0].mean() - g[:, 0].mean():+5.2f}, {g[:, 1].mean() / a[:, 1].mean():4.1f}x)"
            summary[m].append(a[:, 0].mean())
        print(line, flush=True)
    print("mean over problems: " + ", ".join(f"{m} {np.mean(v):.2f}" for m, v in summary.items()))


if __name__ == "__main__":
    main()
