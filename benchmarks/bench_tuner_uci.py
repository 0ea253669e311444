"""Is the default GradientTuner trustworthy?  Gradient tuning against a 5-fold CV grid on held-out UCI data.

The experiment of Chapelle's thesis, ch. 4.5.2 (Tables 4.1 and 4.2), as a new user would run it
on the four binary UCI sets bundled with kernelnb (Pima diabetes, Wisconsin breast cancer
(original, 683 x 9), Ionosphere, Sonar).  On each of ``--splits`` random stratified splits:
400 training points, or 2/3 of the set when it is smaller (Ionosphere 234, Sonar 139), the rest
held out for the test; inputs standardised by a ``StandardScaler`` fitted on the training part.

Methods (every one on one thread, so that times compare work):

* ``R2/M2 default``   ``GradientTuner()``: R^2 ||w||^2 with the variance radius, L2 soft margin,
  start C = 1, sigma = 'scale';
* ``R2/M2 sphere``    the same with ``radius='sphere'``;
* ``span``            ``GradientTuner(criterion='span')``;
* ``R2/M2 C0=0.01`` / ``R2/M2 C0=100``  the default started from another C (a user's own SVC):
  a check of the optimiser rather than of the criterion;
* ``grid kernelnb``   ``GridSearchCV(kernelnb SVC)``, 10 x 10 grid over (C, sigma), 5-fold CV,
  refit on the training part (501 trainings);
* ``grid sklearn``    the same grid and folds with scikit-learn's ``SVC`` (gamma).

Grid: C in logspace(-2, 4, 10), gamma in logspace(-3, 1, 10) / n_features (sigma =
sqrt(1 / (2 gamma)), around scikit-learn's gamma='scale' on standardised inputs).  Printed per
method: test error (mean +- sd over splits, %), SVM trainings per split, seconds per split, the
median chosen log10 C and sigma, the share of tuner runs stopped by the projected-gradient rule
(``conv``), and the differences with the kernelnb grid.

The published numbers of Tables 4.1 / 4.2 are printed beside as context only: they are on the
Ratsch splits of other data (the Ratsch "breast cancer" is the Ljubljana set; "diabetis" is Pima
with 468 training points; heart, thyroid and titanic are not bundled), with the median of C and
sigma over 5 training sets applied to 100 splits, and the thesis's kernel and start.

Usage: python benchmarks/bench_tuner_uci.py [--quick] [--splits 10] [--datasets pima,sonar]
"""
import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler

from kernelnb.datasets import load_breast_cancer, load_ionosphere, load_pima, load_sonar
from kernelnb.kernels import sigma_from_gamma
from kernelnb.model_selection import GradientTuner
from kernelnb.svm import SVC

try:
    from _common import peer_svcs
except ImportError:  # run from another folder
    from benchmarks._common import peer_svcs

DATASETS = {"pima": load_pima, "breast": load_breast_cancer, "ionosphere": load_ionosphere,
            "sonar": load_sonar}
N_TRAIN = 400
C_GRID = np.logspace(-2, 4, 10)
GAMMA_GRID = np.logspace(-3, 1, 10)
TUNERS = {
    "R2/M2 default": dict(),
    "R2/M2 sphere": dict(radius="sphere"),
    "span": dict(criterion="span"),
    "R2/M2 C0=0.01": dict(C0=0.01),
    "R2/M2 C0=100": dict(C0=100.0),
}
GRIDS = ("grid kernelnb", "grid sklearn")
METHODS = tuple(TUNERS) + GRIDS
QUICK_METHODS = ("R2/M2 default", "span", "R2/M2 C0=0.01", "grid kernelnb", "grid sklearn")
# Published: thesis Table 4.1 (test error %, mean +- sd over 100 Ratsch splits) and Table 4.2
# (SVM trainings per training set), columns 5-fold CV / R2/M2 / span.  Other data (see above).
PUBLISHED = {
    "Breast Cancer (Ljubljana)": (("26.04 +- 4.74", 500), ("26.84 +- 4.71", 14.2),
                                  ("25.59 +- 4.18", 7)),
    "Diabetis (Pima)": (("23.53 +- 1.73", 500), ("23.25 +- 1.7", 12.2), ("23.19 +- 1.67", 9.8)),
    "Heart": (("15.95 +- 3.26", 500), ("15.92 +- 3.18", 9), ("16.13 +- 3.11", 6.2)),
    "Thyroid": (("4.80 +- 2.19", 500), ("4.62 +- 2.03", 3), ("4.56 +- 1.97", 11.6)),
    "Titanic": (("22.42 +- 1.02", 500), ("22.88 +- 1.23", 6.8), ("22.5 +- 0.88", 3.4)),
}
CONVERGED = "NORM OF PROJECTED GRADIENT"


def split(X, y, seed):
    """One stratified split (N_TRAIN or 2/3 training points), standardised on its training part."""
    n_train = min(N_TRAIN, int(round(2 * len(y) / 3)))
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=n_train, random_state=seed, stratify=y)
    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), scaler.transform(Xte), ytr, yte


def run_method(method, Xtr, ytr, seed):
    """Fit one method; returns (model, n_trainings, C, sigma, converged or None)."""
    d = Xtr.shape[1]
    gammas = GAMMA_GRID / d
    cv = StratifiedKFold(5, shuffle=True, random_state=seed)
    if method in TUNERS:
        kw = dict(TUNERS[method])
        C0 = kw.pop("C0", 1.0)
        model = GradientTuner(SVC(margin="l2", C=C0, sigma="scale", n_jobs=1), **kw).fit(Xtr, ytr)
        p = model.best_params_
        return model, model.n_trainings_, p["C"], p["sigma"], CONVERGED in model.stop_reason_
    n_fits = len(C_GRID) * len(gammas) * 5 + 1
    if method == "grid sklearn":
        SkSVC = peer_svcs()[0]
        model = GridSearchCV(SkSVC(kernel="rbf"), {"C": C_GRID, "gamma": gammas}, cv=cv,
                             n_jobs=1).fit(Xtr, ytr)
        p = model.best_params_
        return model, n_fits, p["C"], float(sigma_from_gamma(p["gamma"])), None
    sigmas = [float(sigma_from_gamma(g)) for g in gammas]
    model = GridSearchCV(SVC(kernel="rbf", n_jobs=1), {"C": C_GRID, "sigma": sigmas}, cv=cv,
                         n_jobs=1).fit(Xtr, ytr)
    p = model.best_params_
    return model, n_fits, p["C"], p["sigma"], None


def run_dataset(name, n_splits, methods):
    X, y = DATASETS[name]()
    rows = {m: [] for m in methods}
    for seed in range(n_splits):
        Xtr, Xte, ytr, yte = split(X, y, seed)
        for m in methods:
            t = time.perf_counter()
            model, n_fits, C, sigma, conv = run_method(m, Xtr, ytr, seed)
            wall = time.perf_counter() - t
            err = 100.0 * float(np.mean(model.predict(Xte) != yte))
            rows[m].append((err, n_fits, wall, C, sigma, conv))
    return rows, len(ytr), len(yte)


def summarise(name, rows, n_train, n_test):
    lines = [f"{name} ({n_train} train / {n_test} test)"]
    ref = rows.get("grid kernelnb")
    for m, r in rows.items():
        a = np.array([x[:5] for x in r], dtype=float)
        conv = [x[5] for x in r if x[5] is not None]
        conv_txt = f"{np.mean(conv):4.0%}" if conv else "   -"
        vs = ""
        if ref is not None and m != "grid kernelnb":
            b = np.array([x[:3] for x in ref], dtype=float)
            vs = (f"  {a[:, 0].mean() - b[:, 0].mean():+5.2f} pts, {b[:, 1].mean() / a[:, 1].mean():5.1f}x"
                  f" fewer trainings, {b[:, 2].mean() / a[:, 2].mean():6.1f}x less time")
        lines.append(f"  {m:15s} {a[:, 0].mean():6.2f} +- {a[:, 0].std():5.2f} {a[:, 1].mean():7.1f}"
                     f" {a[:, 2].mean():7.2f}  {np.median(np.log10(a[:, 3])):6.2f}"
                     f" {np.median(a[:, 4]):7.2f}  {conv_txt}{vs}")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="2 splits, Ionosphere and Sonar, fewer methods")
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--datasets", default=",".join(DATASETS), help="among " + ", ".join(DATASETS))
    ap.add_argument("--methods", default=",".join(METHODS), help="among " + ", ".join(METHODS))
    args = ap.parse_args(argv)
    names = args.datasets.split(",")
    methods = args.methods.split(",")
    n_splits = args.splits
    if args.quick:
        names, methods, n_splits = ["ionosphere", "sonar"], list(QUICK_METHODS), 2
    bad = [m for m in methods if m not in METHODS] + [d for d in names if d not in DATASETS]
    if bad:
        ap.error(f"unknown method or data set: {bad}")
    print(f"{n_splits} splits per set; columns: test error % (mean +- sd), SVM trainings per split,"
          " seconds per split, median log10 C, median sigma, share of tuner runs stopped by the"
          " projected gradient; then the difference with 'grid kernelnb'")
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows, n_train, n_test = run_dataset(name, n_splits, methods)
        print("\n".join(summarise(name, rows, n_train, n_test)), flush=True)
    print("\nPublished (thesis Tables 4.1 / 4.2; Ratsch splits of OTHER data, context only):")
    print(f"  {'data set':26s} {'5-fold CV':>15s} {'R2/M2':>15s} {'span':>15s}   trainings CV / R2/M2 / span")
    for name, cols in PUBLISHED.items():
        print(f"  {name:26s} " + " ".join(f"{c[0]:>15s}" for c in cols)
              + "   " + " / ".join(str(c[1]) for c in cols))


if __name__ == "__main__":
    main()
