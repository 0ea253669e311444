"""Does descending the leave-one-out error on the scaling factors help ScalingRidge on unseen data?

Chapelle's thesis, section 5.4: ridge regression on RBF basis functions whose per-feature scales
and penalty minimise the closed-form leave-one-out error (5.8).  On regressions the defaults were
not chosen on, this script compares, on the same split and centres:

* ``untuned``   ``ScalingRidge(tune_scales=False)``: the grid start (sigma, alpha) only;
* ``full``      ``ScalingRidge(early_stopping=False)``: the start, then the descent to its end
  (the thesis's procedure, and the package's before the safeguard);
* ``tuned``     ``ScalingRidge()``: the descent stopped by the cross-validated rule;
* ``sk KRR``    scikit-learn's ``KernelRidge`` (RBF) with (alpha, gamma) from a 5-fold 6 x 5
  grid, as an outside reference.

Problems (300 training points, the rest (at most 2000) for the test; inputs standardised on the
training part, targets centred on it): scikit-learn's diabetes (10 inputs) and diabetes with 10
Gaussian noise inputs, Boston housing (13, found through ``KERNELNB_DATA``) with 10 noise inputs,
Friedman #1 (5 relevant inputs + 15 noise, sd 1) and Friedman #1 with 31 noise inputs, and a
scikit-learn ``make_regression`` low-rank problem with 24 inputs.  Printed: test MSE relative to the
untuned fit's (mean over seeds), the number of seeds where tuning was worse, seconds per fit.

Usage: python benchmarks/bench_scaling_ridge.py [--seeds 5] [--problems ...]
"""
import argparse
import time
import warnings

import numpy as np
from sklearn import datasets as skd
from sklearn.kernel_ridge import KernelRidge as SkKRR
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler

from kernelnb.datasets import load_boston
from kernelnb.ridge import ScalingRidge

N_TRAIN = 300


def _noise(X, k, seed=0):
    rng = np.random.default_rng(seed)
    return np.hstack([X, rng.normal(size=(X.shape[0], k))])


def _with_noise(load, k=10):
    X, y = load()
    return _noise(np.asarray(X, dtype=float), k), y


PROBLEMS = {
    "diabetes": lambda: skd.load_diabetes(return_X_y=True),
    "diabetes+10": lambda: _with_noise(lambda: skd.load_diabetes(return_X_y=True)),
    "boston+10": lambda: _with_noise(load_boston),
    "friedman1 20": lambda: skd.make_friedman1(2300, n_features=20, noise=1.0, random_state=0),
    "friedman1 36": lambda: skd.make_friedman1(2300, n_features=36, noise=1.0, random_state=0),
    "lowrank 24": lambda: skd.make_regression(2300, n_features=24, n_informative=8,
                                              effective_rank=5, noise=5.0, random_state=0)[:2],
}


def split(X, y, seed):
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=N_TRAIN, random_state=seed)
    Xte, yte = Xte[:2000], yte[:2000]
    sc = StandardScaler().fit(Xtr)
    m = ytr.mean()
    return sc.transform(Xtr), sc.transform(Xte), ytr - m, yte - m


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--problems", default=",".join(PROBLEMS))
    args = ap.parse_args(argv)
    print(f"{args.seeds} seeds; test MSE / untuned test MSE (mean), seeds worse than untuned, s/fit")
    ratios = []
    for name in args.problems.split(","):
        X, y = PROBLEMS[name]()
        rows = {"untuned": [], "full": [], "tuned": [], "sk KRR": []}
        for seed in range(args.seeds):
            Xtr, Xte, ytr, yte = split(np.asarray(X, float), np.asarray(y, float), seed)
            for m, out in rows.items():
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if m == "sk KRR":
                        g = np.logspace(-2, 0, 5) / Xtr.shape[1]
                        model = GridSearchCV(SkKRR(kernel="rbf"), {"alpha": np.logspace(-4, 1, 6),
                                                                   "gamma": g}, cv=5).fit(Xtr, ytr)
                    else:
                        model = ScalingRidge(tune_scales=(m != "untuned"),
                                             early_stopping=(m == "tuned"),
                                             random_state=seed).fit(Xtr, ytr)
                wall = time.perf_counter() - t
                out.append((np.mean((model.predict(Xte) - yte) ** 2), wall))
        base = np.array(rows["untuned"])[:, 0]
        line = f"{name:13s} d={X.shape[1]:2d} untuned MSE {base.mean():9.4g}"
        for m, r in rows.items():
            a = np.array(r)
            rel = a[:, 0] / base
            line += f" | {m} {rel.mean():5.3f} ({int(np.sum(rel > 1 + 1e-9))} worse, {a[:, 1].mean():5.2f}s)"
            if m in ("full", "tuned"):
                ratios.append((m, rel.mean()))
        print(line, flush=True)
    for key in ("full", "tuned"):
        v = [r for m, r in ratios if m == key]
        print(f"{key} / untuned test MSE, mean over problems: {np.mean(v):.3f}")


if __name__ == "__main__":
    main()
