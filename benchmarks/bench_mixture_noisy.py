"""The hard mixture of SVMs on noisy data: which part loses accuracy against one SVC?

Issue 25's problem: a 6-D checkerboard -- x uniform in [0, 4]^6, the label the parity of the
4 x 4 cell of (x_0, x_1), the other four inputs noise -- with 5 % of the labels flipped (Bayes
error 5 %).  One SVC and ``MixtureSVC`` (``--experts``; by default 'auto', one expert per
2,000 points of the experts' pool, MixtureSVC's default since issue 43) share C and sigma (the
thesis's rule: the experts' C and sigma are those of the single SVM).  Ablations, one change
each from the default mixture (global gater, the gater's held-out points, 3 outer iterations, balance rule,
validation fraction 0.1, and -- the default since issue 43 -- refit_held_out: after the iterations the
validation and gater points go to the experts the gater prefers, and each expert is refitted
once on all its points):

* ``no refit``          refit_held_out=False: the experts keep only the pool (the default
                        before issue 43);
* ``uniform``           the experts on a random partition, averaged (no gater, no reassignment);
* ``no reassignment``   max_iter=1: the global gater on the random partition's experts;
* ``local gater``       Alg. 6.2;
* ``no holdout``        GlobalGater(holdout=False) (the thesis's choice; only the validation set is then
                        refitted on);
* ``5 experts``         bigger experts;
* ``4 experts``         n_experts=4, MixtureSVC's default before issue 43;
* ``10 experts``        n_experts=10, the number issue 25 and 43 measured at 30,000 points;
* ``no validation``     validation_fraction=None (the last iteration kept; only the gater's
                        points are refitted on);
* ``all data``          no holdout, no validation: the experts share every training point from
                        the start, and there is nothing to refit on;
* ``gater 50 epochs``   GlobalGater(epochs=50): with its holdout the gater trains on a fifth of the
                        points, so 10 epochs are a fifth of the Adam steps it gets without;
* ``no refit 50 ep.``   both changes.

Every model runs serially on one thread (``client='serial'``), so times compare work; they are
CPU times of this process (``time.process_time``), less disturbed than wall times when other
programs share the cores.  Printed per seed: test error on 20,000 fresh points (%); then for every model the mean +- sd
over seeds of the test error, of its difference to one SVC (paired by seed), and of the speed-up
``time(SVC) / time(model)`` measured in the same process on the same data.

``--problem large`` runs the same models on ``make_large_problem`` (20 features, overlapping
Gaussian clusters, no label noise; the problem of ``bench_largescale.py``, sigma='scale');
``--noise 0`` the checkerboard without label noise.

Usage: python benchmarks/bench_mixture_noisy.py [--n 8000] [--seeds 2] [--C 10] [--sigma 1]
       [--variants "mixture (default),no refit"] [--problem checkerboard|large]
"""
import argparse
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

from kernelnb.datasets import make_large_problem
from kernelnb.largescale import GlobalGater, MixtureSVC
from kernelnb.svm import SVC


def checkerboard(n, noise=0.05, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 4, size=(n, 6))
    y = ((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2).astype(int)
    flip = rng.random(n) < noise
    return X, np.where(flip, 1 - y, y)


VARIANTS = {
    "mixture (default)": {},
    "no refit": {"refit_held_out": False},
    "uniform": {"gater": "uniform"},
    "no reassignment": {"max_iter": 1},
    "local gater": {"gater": "local"},
    "no holdout": {"gater": GlobalGater(holdout=False)},
    "5 experts": {"n_experts": 5},
    "4 experts": {"n_experts": 4},
    "10 experts": {"n_experts": 10},
    "no validation": {"validation_fraction": None},
    "all data": {"gater": GlobalGater(holdout=False), "validation_fraction": None},
    "gater 50 epochs": {"gater": GlobalGater(epochs=50)},
    "no refit 50 ep.": {"refit_held_out": False, "gater": GlobalGater(epochs=50)},
}


def draw(problem, n, seed, noise, n_test=20000):
    """Training and test data of one problem (seed: the draw).  ``make_large_problem``'s seed
    also draws its cluster centres, so its training and test points come from one call."""
    if problem == "large":
        X, y = make_large_problem(n + n_test, random_state=seed, dtype=np.float64)
        return X[:n], y[:n], X[n:], y[n:]
    return (*checkerboard(n, noise=noise, seed=seed),
            *checkerboard(n_test, noise=noise, seed=1000 + seed))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8000)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--C", type=float, default=10.0)
    ap.add_argument("--sigma", default="1", help="a width or 'scale' (default 1; 'scale' "
                    "for --problem large)")
    ap.add_argument("--experts", default="auto",
                    help="n_experts of the mixtures: 'auto' (the default since issue 43: one "
                    "expert per 2,000 pool points) or a number")
    ap.add_argument("--noise", type=float, default=0.05)
    ap.add_argument("--problem", choices=["checkerboard", "large"], default="checkerboard")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    args = ap.parse_args(argv)
    sigma = args.sigma if args.sigma == "scale" else float(args.sigma)
    names = args.variants.split(",")
    res = {k: [] for k in ["SVC"] + names}
    load0 = os.getloadavg()
    for seed in range(args.seeds):
        X, y, Xt, yt = draw(args.problem, args.n, seed, args.noise)
        with threadpool_limits(limits=1):
            t = time.process_time()
            svc = SVC(C=args.C, sigma=sigma, n_jobs=1).fit(X, y)
            t_svc = time.process_time() - t
            res["SVC"].append((100 * np.mean(svc.predict(Xt) != yt), t_svc, 0, 0))
            for name in names:
                experts = args.experts if args.experts == "auto" else int(args.experts)
                kw = {"expert": SVC(C=args.C, sigma=sigma), "n_experts": experts,
                      "client": "serial", "random_state": seed, **VARIANTS[name]}
                t = time.process_time()
                m = MixtureSVC(**kw).fit(X, y)
                res[name].append((100 * np.mean(m.predict(Xt) != yt), time.process_time() - t,
                                  m.best_iteration_, m.n_experts_))
        print(f"seed {seed}: " + ", ".join(f"{k} {v[-1][0]:.2f} ({v[-1][1]:.1f} s)"
                                           for k, v in res.items()), flush=True)
    base = np.array(res["SVC"])
    print(f"\n{args.problem}, n = {args.n}, C = {args.C}, sigma = {args.sigma}, "
          f"{args.experts} experts, {args.seeds} seeds (mean +- sd over seeds); load average "
          f"{load0[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end, "
          f"{os.cpu_count()} cores")
    print(f"  {'model':18s} {'test error %':>14s} {'vs SVC':>14s} {'time s':>7s} "
          f"{'speed-up':>12s}  experts  best iterations")
    for k, v in res.items():
        a = np.array(v)
        d = a[:, 0] - base[:, 0]
        r = base[:, 1] / a[:, 1]
        print(f"  {k:18s} {a[:, 0].mean():6.2f} +- {a[:, 0].std(ddof=1) if len(a) > 1 else 0:4.2f}"
              f"  {d.mean():+6.2f} +- {d.std(ddof=1) if len(a) > 1 else 0:4.2f}"
              f"  {a[:, 1].mean():7.1f}  {r.mean():5.2f}x +- {r.std(ddof=1) if len(a) > 1 else 0:4.2f}"
              f"  {'' if k == 'SVC' else int(a[0, 3]):>7}"
              f"  {'' if k == 'SVC' else a[:, 2].astype(int).tolist()}")


if __name__ == "__main__":
    main()
