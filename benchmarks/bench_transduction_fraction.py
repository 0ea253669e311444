"""Two transduction settings the source texts leave to the user, measured on unseen problems.

1. ``TransductiveSVC`` (Joachims's label switching) keeps the positive fraction of the unlabeled
   points fixed, by default at the labeled set's.  Here 40 labels are drawn with a positive
   fraction of 0.5 (the truth), 0.3 and 0.2 from a balanced problem; the TSVM is run with the
   default (the labeled fraction, which now warns when far from the inductive SVM's), with
   ``positive_fraction`` = the truth, and beside the inductive SVC.
2. ``TransductiveLinearDiscriminant``'s gamma* (``alpha_star``): the thesis (section 7.6) fixes
   it per experiment (gamma* = 10 on Boston, n/(2m) when it varies the test-set size m, chosen by
   validation for Table 7.1) and says only that it can be chosen "according to the variance of
   the predictions Y0"; ``'auto'`` is this package's reading (the multiplier of the ball
   ||Y* - Y0|| <= 0.5 std(Y0) sqrt(m)).  Compared: 'auto', 1.0, n/(2m), and the inductive ridge
   (gamma* = inf).

Problems (inputs standardised on all points, a transductive setting): scikit-learn's digits
odd/even, breast cancer (diagnostic) and wine class 1 vs rest, and two-class Fashion-MNIST
(T-shirt vs shirt) through ``KERNELNB_DATA``.  Per seed: 40 labeled points, 400 unlabeled
(TLD: 300 points, or all of wine's 178, a third labeled).  sigma='scale' for every model, C = 1, C* = 1.

Usage: python benchmarks/bench_transduction_fraction.py [--seeds 5] [--part tsvm,tld]
"""
import argparse
import warnings

import numpy as np
from sklearn import datasets as skd
from sklearn.preprocessing import StandardScaler

from kernelnb.datasets import load_fashion_mnist
from kernelnb.svm import SVC
from kernelnb.unlabeled import TransductiveLinearDiscriminant, TransductiveSVC


def _balanced(X, y, n, rng):
    i0, i1 = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
    k = min(len(i0), len(i1), n // 2)
    idx = np.r_[rng.choice(i0, k, replace=False), rng.choice(i1, k, replace=False)]
    return X[idx], y[idx]


def _digits_odd():
    X, y = skd.load_digits(return_X_y=True)
    return X, y % 2


def _wine_1():
    X, y = skd.load_wine(return_X_y=True)
    return X, (y == 1).astype(int)


def _fashion_0v6():
    X, y = load_fashion_mnist("train", classes=(0, 6), n_samples=2000, random_state=0)
    return X.astype(float), (y == 6).astype(int)


PROBLEMS = {
    "digits odd": _digits_odd,
    "breast diag": lambda: skd.load_breast_cancer(return_X_y=True),
    "wine 1vrest": _wine_1,
    "fashion 0v6": _fashion_0v6,
}


def tsvm(name, X, y, seeds):
    out = {}
    for frac in (0.5, 0.3, 0.2):
        rows = []
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            Xb, yb = _balanced(X, y, 600, rng)
            Xb = StandardScaler().fit_transform(Xb)
            i1, i0 = np.flatnonzero(yb == 1), np.flatnonzero(yb == 0)
            n1 = round(40 * frac)
            lab = np.r_[rng.choice(i1, n1, replace=False), rng.choice(i0, 40 - n1, replace=False)]
            rest = np.setdiff1d(np.arange(len(yb)), lab)
            unl = rng.choice(rest, min(400, len(rest)), replace=False)
            true_p = float(np.mean(yb[unl] == 1))
            kw = {"sigma": "scale", "C": 1.0, "C_unlabeled": 1.0}
            svc = SVC(sigma=TransductiveSVC(**kw).fit(Xb[lab], yb[lab], X_unlabeled=Xb[unl]).sigma_, C=1.0)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                t_def = TransductiveSVC(**kw).fit(Xb[lab], yb[lab], X_unlabeled=Xb[unl])
            warned = any("positive fraction" in str(x.message) for x in w)
            t_true = TransductiveSVC(positive_fraction=true_p, **kw).fit(Xb[lab], yb[lab], X_unlabeled=Xb[unl])
            e = [100 * np.mean(m.predict(Xb[unl]) != yb[unl])
                 for m in (svc.fit(Xb[lab], yb[lab]), t_def, t_true)]
            rows.append(e + [warned])
        a = np.array(rows, dtype=float)
        out[frac] = a
        print(f"  {name:12s} labeled p={frac:.1f}: SVC {a[:, 0].mean():5.2f}  TSVM default "
              f"{a[:, 1].mean():5.2f}  TSVM true p {a[:, 2].mean():5.2f}  warned {a[:, 3].mean():4.0%}",
              flush=True)
    return out


def tld(name, X, y, seeds):
    rows = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        idx = rng.permutation(len(y))[:300]
        Xs = StandardScaler().fit_transform(X[idx])
        ys = y[idx]
        n_lab = len(ys) // 3
        lab, unl = np.arange(n_lab), np.arange(n_lab, len(ys))
        if len(np.unique(ys[lab])) < 2:
            continue
        row = []
        for a in ("auto", 1.0, len(lab) / (2 * len(unl)), None):
            if a is None:
                m = TransductiveLinearDiscriminant(sigma="scale", alpha_star=1.0).fit(
                    Xs[lab], ys[lab], X_unlabeled=Xs[unl])
                pred = m.classes_[(m.inductive_labels_ > 0).astype(int)]
            else:
                m = TransductiveLinearDiscriminant(sigma="scale", alpha_star=a).fit(
                    Xs[lab], ys[lab], X_unlabeled=Xs[unl])
                pred = m.transduction_
            row.append(100 * np.mean(pred != ys[unl]))
        rows.append(row)
    a = np.array(rows)
    print(f"  {name:12s} TLD error %: auto {a[:, 0].mean():5.2f}  1.0 {a[:, 1].mean():5.2f}  "
          f"n/(2m) {a[:, 2].mean():5.2f}  inductive {a[:, 3].mean():5.2f}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--part", default="tsvm,tld")
    ap.add_argument("--problems", default=",".join(PROBLEMS))
    args = ap.parse_args(argv)
    for part in args.part.split(","):
        print(f"## {part} ({args.seeds} seeds, test error % on the unlabeled points)")
        for name in args.problems.split(","):
            try:
                X, y = PROBLEMS[name]()
            except FileNotFoundError as exc:
                print(f"  {name}: skipped ({exc})")
                continue
            (tsvm if part == "tsvm" else tld)(name, np.asarray(X, float), np.asarray(y), args.seeds)


if __name__ == "__main__":
    main()
