"""Active learning, Chapelle's thesis ch. 8: the two toy experiments and the speed of the
incremental span update (8.11), computed here beside what the thesis states.

* Parzen toy (Fig. 8.1, :func:`kernelnb.reproductions.chapelle.active.parzen_toy_experiment`): U[-1,1]^2,
  y = sgn(x1 + x2), 10 initial points + 20 queries from a pool of 200, the Parzen width chosen
  at each step by the likelihood of the pool, 100 runs; random / maximum uncertainty ('margin')
  / optimal ('gem').  Published (a curve): the optimal strategy is worse than random.
* Majority toy (Fig. 8.5, :func:`kernelnb.reproductions.chapelle.active.majority_toy_experiment`): x in R^5,
  x_i = tanh(U[-1,1]), y = sgn(sum x), 3 + 3 initial points, 10 queries from 300, RBF SVM with
  sigma^2 = 1.5 (hard margin: our choice), 100 trials for every strategy, exact GEM included
  (it retrains 600 SVMs per query: about 12 s a trial on one core, 20 minutes for 100;
  ``--gem-trials`` runs it on fewer).  Published (a curve): GEM and fast GEM similar, both much
  worse than margin.
* Speed (the issue's floor: >= 10x at a pool of 300): one query's scores by the fast rules
  against retraining every candidate with kernelnb's SVC, and for the ratio rule also with
  scikit-learn's SVC (the peer), in the same process.

The thesis shows curves, not numbers: the tables print our mean test errors after 0, 2, 4, ...
queries and then the orderings the thesis states, with whether ours agree.

Usage: python benchmarks/bench_active.py [--quick] [--gem-trials N]
       [--section all|parzen|majority|figures|speed] [--results-dir docs/reproductions/results]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.svm import SVC as SkSVC
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import add_results_option, save_results  # noqa: E402

from kernelnb.reproductions.chapelle.active import (PUBLISHED_CLAIMS, majority_toy_experiment,
                                                    parzen_toy_experiment, span_update_speed)
from kernelnb.reproductions.chapelle.active import _draw_majority, _labelled_start


def _table(res, every=2):
    q = res["queries"]
    cols = [i for i in q if i % every == 0 or i == q[-1]]
    print("strategy     runs  " + " ".join(f"{i:>6d}" for i in cols) + "   (test error % after "
          "that many queries)")
    for s, c in res["curves"].items():
        print(f"{s:<12s} {res['runs'][s]:>4d}  " + " ".join(f"{100 * c[i]:6.2f}" for i in cols))
    for s, e in res["estimated"].items():
        print(f"{s + ' est.':<12s} {res['runs'][s]:>4d}  " + "      " +
              " ".join(f"{100 * e[i - 1]:6.2f}" for i in cols if i > 0)
              + "   (expected error of the chosen point, step (e) of 8.2)")
    print("seconds per run: " + ", ".join(f"{s} {t:.2f}" for s, t in
                                          res["seconds_per_run"].items()))


def _area(c):
    return float(np.mean(c[1:]))


def parzen(quick):
    n = 10 if quick else 100
    print(f"\n== Parzen toy (thesis 8.3, Fig. 8.1): {n} runs ==")
    res = parzen_toy_experiment(n_runs=n)
    _table(res)
    c = res["curves"]
    print(f"published: {PUBLISHED_CLAIMS['parzen']}")
    worse = _area(c["gem"]) > _area(c["random"])
    print(f"ours: mean error over queries 1..20: random {100 * _area(c['random']):.2f} %, "
          f"maximum uncertainty {100 * _area(c['margin']):.2f} %, optimal "
          f"{100 * _area(c['gem']):.2f} % -> optimal worse than random: "
          f"{'yes (agrees)' if worse else 'NO (disagrees)'}; maximum uncertainty best (ours, "
          f"the text does not say): "
          f"{'yes' if _area(c['margin']) == min(map(_area, c.values())) else 'no'}")
    return res


def majority(quick, gem_trials=None):
    n = 10 if quick else 100
    n_gem = (2 if quick else n) if gem_trials is None else min(int(gem_trials), n)
    print(f"\n== Majority toy (thesis 8.7, Fig. 8.5): {n} trials, exact GEM {n_gem} ==")
    res = majority_toy_experiment(n_runs=n, runs={"gem": n_gem})
    _table(res, every=1)
    c = res["curves"]
    print(f"published: {PUBLISHED_CLAIMS['majority']}")
    gap = _area(c["fast_gem"]) - _area(c["margin"])
    print(f"ours: mean error over queries 1..10: margin {100 * _area(c['margin']):.2f} %, "
          f"fast GEM {100 * _area(c['fast_gem']):.2f} %, GEM ({res['runs']['gem']} trials) "
          f"{100 * _area(c['gem']):.2f} %, random {100 * _area(c['random']):.2f} %, fast ratio "
          f"{100 * _area(c['fast_ratio']):.2f} % -> fast GEM worse than margin by "
          f"{100 * gap:.2f} points: {'agrees' if gap > 0 else 'disagrees'}")
    if n_gem == n:
        return res, None
    # GEM against the others on the trials it ran (same data in run r)
    sub = majority_toy_experiment(n_runs=n_gem, strategies=("random", "margin", "fast_gem"))
    print(f"on the same {n_gem} trials as GEM (mean error over queries 1..10): GEM "
          f"{100 * _area(c['gem']):.2f} %, " + ", ".join(
              f"{s} {100 * _area(v):.2f} %" for s, v in sub["curves"].items()))
    return res, sub


def _sk_ratio(X0, y0, Xp, sigma2=1.5):
    """Tong-Koller's ratio by retraining scikit-learn's SVC (C = 1e6 ~ hard margin)."""
    g = 1.0 / (2 * sigma2)
    score = np.zeros(len(Xp))
    for j in range(len(Xp)):
        X2 = np.vstack([X0, Xp[j]])
        w2 = []
        for lab in (-1, 1):
            m = SkSVC(C=1e6, gamma=g, tol=1e-6).fit(X2, np.append(y0, lab))
            sv = m.support_vectors_
            d = ((sv[:, None, :] - sv[None, :, :]) ** 2).sum(-1)
            c = m.dual_coef_[0]
            w2.append(float(c @ np.exp(-g * d) @ c))
        score[j] = min(w2[0] / w2[1], w2[1] / w2[0])
    return score


def speed(quick):
    print("\n== Speed: one query at a pool of 300 (majority toy), one BLAS thread ==")
    with threadpool_limits(1):
        rows = span_update_speed(pool_size=300, n_labeled=(6, 16) if not quick else (6,),
                                 repeats=3)
        rng = np.random.RandomState(0)
        X0, y0 = _labelled_start(rng, _draw_majority, 3, 3)
        Xp, _ = _draw_majority(rng, 300)
        t0 = time.perf_counter()
        _sk_ratio(X0, y0, Xp)
        t_sk = time.perf_counter() - t0
    print("n_labeled  rule   retrain (kernelnb SVC) s   fast s    speed-up   same choice  "
          "rank corr")
    for r in rows:
        print(f"{r['n_labeled']:>9d}  {r['rule']:<5s}  {r['retrain_s']:>24.3f}  "
              f"{r['fast_s']:>7.4f}  {r['speedup']:>9.0f}x  {str(r['same_choice']):>11s}  "
              f"{r['rank_corr']:>9.3f}")
    fast6 = next(r["fast_s"] for r in rows if r["n_labeled"] == 6 and r["rule"] == "ratio")
    print(f"ratio by retraining scikit-learn's SVC (n_labeled 6): {t_sk:.3f} s -> fast_ratio "
          f"{t_sk / fast6:.0f}x faster")
    print("floor (issue 14): >= 10x at a pool of 300 -> "
          + ("met" if min(r["speedup"] for r in rows) >= 10 else "NOT met"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 runs, exact GEM on 2")
    parser.add_argument("--gem-trials", type=int, default=None, metavar="N",
                        help="trials of the majority toy that run exact GEM (default: all of "
                             "them, 100; 2 with --quick)")
    parser.add_argument("--section", choices=["all", "parzen", "majority", "figures", "speed"],
                        default="all", help="figures: the two toys (Figs. 8.1 and 8.5)")
    add_results_option(parser)
    args = parser.parse_args(argv)
    if args.section in ("all", "speed"):
        speed(args.quick)
    out, t0 = {}, time.perf_counter()
    if args.section in ("all", "majority", "figures"):
        out["majority"], same = majority(args.quick, args.gem_trials)
        if same is not None:       # the other strategies on exact GEM's trials
            out["majority_gem_trials"] = same
    if args.section in ("all", "parzen", "figures"):
        out["parzen"] = parzen(args.quick)
    if "parzen" in out and "majority" in out:
        n = 10 if args.quick else 100
        n_gem = (2 if args.quick else n) if args.gem_trials is None else min(args.gem_trials, n)
        save_results(args.results_dir, "chapelle-active",
                     "kernelnb.reproductions.chapelle.active.parzen_toy_experiment, "
                     "majority_toy_experiment",
                     {"parzen": {"n_runs": n}, "majority": {"n_runs": n, "runs": {"gem": n_gem}}},
                     out, time.perf_counter() - t0)


if __name__ == "__main__":
    main()
