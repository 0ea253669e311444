"""Small-sample regression model selection, Chapelle's thesis chapter 9 (and Chapelle, Vapnik and
Bengio, Machine Learning 2002), computed beside the published numbers.

1. Fig. 9.2: f = (x + 1.5)^2 / 10, noise 0.05, n = 40, d <= 23, 1000 trials, 1000 unlabeled
   points per trial: the mean true risk and the mean DEE / ADJ / FPE / CV5 estimates, each as a
   ratio to the mean training error, per d (:func:`generalization_prediction_experiment`).
   The thesis gives this figure as a plot only: its claims (DEE and ADJ accurate, ADJ a little
   pessimistic, FPE low and CV5 high at large d) are checked on the computed curves.
2. Tables 9.1 / 9.2: median and mean over 1000 trials of R(f_dhat) / min_d R(f_d) for every
   criterion (:func:`selection_ratio_experiment`), in the twelve settings of
   :data:`TABLE_9_SETTINGS`.  The thesis gives the settings' n and noise only in its Figs.
   9.3 / 9.4, which the text does not carry: rows a-f are the sinc target, g-l the step, with
   n in (20, 50, 100) and noise 0.05 / 0.2 chosen here, and d <= ceil(23 n / 40) (Fig. 9.2's
   range relative to n; the tables' range is not stated either).  So rows are compared loosely; the
   ranking of the criteria and the averages are the meaningful comparison.
3. Speed: all ten criteria for d = 1..n-1 from one QR per fit (regression_risk_estimates)
   against 5-fold CV alone by scikit-learn (cross_val_score of LinearRegression for every d).

Usage: python benchmarks/bench_regression_selection.py [--quick]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import KFold, cross_val_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import add_results_option, save_results  # noqa: E402

from kernelnb.model_selection import REGRESSION_CRITERIA, basis_matrix, regression_risk_estimates
from kernelnb.reproductions.chapelle.regression import (PUBLISHED_TABLE_9_1, PUBLISHED_TABLE_9_2,
                                                        TABLE_9_SETTINGS,
                                                        generalization_prediction_experiment,
                                                        regression_target,
                                                        selection_ratio_experiment)

# published: Chapelle's thesis Tables 9.1 (medians) and 9.2 (means), columns in
# REGRESSION_CRITERIA's order (ADJ SEB CV5 DEE UCB GCV RIC BIC FPE CPM)
PUBLISHED_MEDIAN, PUBLISHED_MEAN = PUBLISHED_TABLE_9_1, PUBLISHED_TABLE_9_2


def _g(v):
    return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.1e}"


def fig_9_2(trials):
    t0 = time.perf_counter()
    out = generalization_prediction_experiment("quadratic", n=40, noise=0.05, max_dim=23,
                                               n_trials=trials, random_state=0)
    print(f"\nFig. 9.2: f = (x+1.5)^2/10, noise 0.05, n = 40, {out.n_trials} trials, "
          f"1000 unlabeled points; mean over trials divided by the mean training error "
          f"({time.perf_counter() - t0:.1f} s)")
    names = ("dee", "adj", "fpe", "cv5")
    print(f"{'d':>3} {'true':>9} " + " ".join(f"{c.upper():>9}" for c in names))
    remp = out.empirical_risk
    for i, d in enumerate(out.dims):
        print(f"{d:>3} {_g(out.true_risk[i] / remp[i]):>9} "
              + " ".join(f"{_g(out.estimates[c][i] / remp[i]):>9}" for c in names))
    print("medians over trials (as Fig. 9.1 plots): median true risk and median estimates "
          "divided by the median training error")
    print(f"{'d':>3} {'true':>9} " + " ".join(f"{c.upper():>9}" for c in names))
    for i, d in enumerate(out.dims):
        m = out.empirical_median[i]
        print(f"{d:>3} {_g(out.true_median[i] / m):>9} "
              + " ".join(f"{_g(out.median_estimates[c][i] / m):>9}" for c in names))
    big = out.dims >= 15
    rel = {c: np.median(out.estimates[c][big] / out.true_risk[big]) for c in names}
    print("median over d >= 15 of (mean estimate) / (mean true risk): "
          + ", ".join(f"{c.upper()} {rel[c]:.2f}" for c in names))
    print("thesis: DEE and ADJ accurate (ADJ a little pessimistic), FPE low, CV5 high at large d;"
          f" computed: FPE {'low' if rel['fpe'] < 1 else 'NOT low'}, CV5 "
          f"{'high' if rel['cv5'] > 1 else 'NOT high'}, DEE {rel['dee']:.2f}, "
          f"ADJ {rel['adj']:.2f} of the true risk")


def tables(trials, results_dir=None):
    med, mean = {}, {}
    t0 = time.perf_counter()
    for row, (target, n, noise) in TABLE_9_SETTINGS.items():
        res = selection_ratio_experiment(target, n=n, noise=noise, n_trials=trials,
                                         random_state=ord(row))
        med[row], mean[row] = res.median, res.mean
        print(f"  row {row}: {target}, n = {n}, noise {noise} done "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    save_results(results_dir, "chapelle-tables-9-1-9-2",
                 "kernelnb.reproductions.chapelle.regression.selection_ratio_experiment",
                 {"n_trials": trials, "settings": TABLE_9_SETTINGS,
                  "random_state": "ord(row) for each row of TABLE_9_SETTINGS"},
                 {row: {"median": med[row], "mean": mean[row]} for row in TABLE_9_SETTINGS},
                 time.perf_counter() - t0)
    for title, comp, pub in (("Table 9.1: median", med, PUBLISHED_MEDIAN),
                             ("Table 9.2: mean", mean, PUBLISHED_MEAN)):
        print(f"\n{title} of R(f_dhat) / min_d R(f_d) over {trials} trials, "
              "computed [published]; columns in Table 9.1's order")
        print(f"{'':>16} " + " ".join(f"{c.upper():>17}" for c in REGRESSION_CRITERIA))
        for row, (target, n, noise) in TABLE_9_SETTINGS.items():
            print(f"{row} {target:>5} {n:>3} {noise:<4} "
                  + " ".join(f"{_g(comp[row][c]):>7} [{_g(p):>7}]"
                             for c, p in zip(REGRESSION_CRITERIA, pub[row])))
        avg = {c: np.mean([comp[r][c] for r in TABLE_9_SETTINGS]) for c in REGRESSION_CRITERIA}
        print(f"{'avg':>16} " + " ".join(f"{_g(avg[c]):>7} [{_g(p):>7}]"
                                         for c, p in zip(REGRESSION_CRITERIA, pub["avg"])))
        rank = sorted(REGRESSION_CRITERIA, key=avg.get)
        prank = sorted(REGRESSION_CRITERIA, key=lambda c: pub["avg"][REGRESSION_CRITERIA.index(c)])
        print("ranking by average, computed:  " + " < ".join(c.upper() for c in rank))
        print("ranking by average, published: " + " < ".join(c.upper() for c in prank))


def speed(repeats):
    print("\nSpeed: all ten criteria for d = 1..n-1 (kernelnb, one QR per fit) against 5-fold CV "
          "alone by scikit-learn (cross_val_score of LinearRegression per d); median of "
          f"{repeats} repeats; the CV5 choice beside")
    f = regression_target("step")
    for n in (50, 100, 150):
        rng = np.random.RandomState(n)
        x = rng.uniform(-np.pi, np.pi, n)
        y = f(x) + 0.1 * rng.randn(n)
        u = rng.uniform(-np.pi, np.pi, 1000)
        Phi = basis_matrix(x, n - 1)
        tk, ts = [], []
        for _ in range(repeats):
            t0 = time.perf_counter()
            res = regression_risk_estimates(x, y, u)
            tk.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            cv = []
            for d in range(1, int(0.8 * n) + 1):        # d beyond a training fold: skipped
                s = cross_val_score(LinearRegression(fit_intercept=False), Phi[:, :d], y,
                                    cv=KFold(5), scoring="neg_mean_squared_error")
                cv.append(-s.mean())
            ts.append(time.perf_counter() - t0)
        a, b = np.median(tk), np.median(ts)
        print(f"  n = {n:>3}: kernelnb (10 criteria) {a * 1e3:7.1f} ms, scikit-learn (CV5 only) "
              f"{b * 1e3:8.1f} ms, ratio {b / a:5.1f}x; CV5 picks d = {res.chosen['cv5']} "
              f"(kernelnb) / {int(np.argmin(cv)) + 1} (scikit-learn)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="50 trials instead of 1000")
    add_results_option(ap)
    args = ap.parse_args()
    trials = 50 if args.quick else 1000
    with threadpool_limits(1):      # small matrices: threaded BLAS only contends
        fig_9_2(trials)
        tables(trials, args.results_dir)
        speed(3)


if __name__ == "__main__":
    main()
