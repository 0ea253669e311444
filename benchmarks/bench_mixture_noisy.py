"""The hard mixture of SVMs on noisy data: which part loses accuracy against one SVC?

Issue 25's problem: a 6-D checkerboard -- x uniform in [0, 4]^6, the label the parity of the
4 x 4 cell of (x_0, x_1), the other four inputs noise -- with 5 % of the labels flipped (Bayes
error 5 %).  One SVC and ``MixtureSVC`` (10 experts by default) share C and sigma (the thesis's
rule: the experts' C and sigma are those of the single SVM).  Ablations, one change each from
the default mixture (global gater, gater_holdout, 3 outer iterations, balance rule, validation
fraction 0.1):

* ``uniform``           the experts on a random partition, averaged (no gater, no reassignment);
* ``no reassignment``   max_iter=1: the global gater on the random partition's experts;
* ``local gater``       Alg. 6.2;
* ``no holdout``        gater_holdout=False (the thesis's choice);
* ``5 experts``         bigger experts;
* ``no validation``     validation_fraction=None (every point trains; last iteration kept);
* ``all data``          both: the experts share every training point, as the single SVC.

Every model runs serially on one thread (``client='serial'``), so times compare work.
Printed: test error on 20,000 fresh points (%), training time, the speed-up over one SVC.

Usage: python benchmarks/bench_mixture_noisy.py [--n 8000] [--seeds 2] [--C 10] [--sigma 1]
"""
import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from kernelnb.largescale import MixtureSVC
from kernelnb.svm import SVC


def checkerboard(n, noise=0.05, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 4, size=(n, 6))
    y = ((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2).astype(int)
    flip = rng.random(n) < noise
    return X, np.where(flip, 1 - y, y)


VARIANTS = {
    "mixture (default)": {},
    "uniform": {"gater": "uniform"},
    "no reassignment": {"max_iter": 1},
    "local gater": {"gater": "local"},
    "no holdout": {"gater_holdout": False},
    "5 experts": {"n_experts": 5},
    "no validation": {"validation_fraction": None},
    "all data": {"gater_holdout": False, "validation_fraction": None},
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8000)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--C", type=float, default=10.0)
    ap.add_argument("--sigma", type=float, default=1.0)
    ap.add_argument("--experts", type=int, default=10)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    args = ap.parse_args(argv)
    names = args.variants.split(",")
    res = {k: [] for k in ["SVC"] + names}
    for seed in range(args.seeds):
        X, y = checkerboard(args.n, seed=seed)
        Xt, yt = checkerboard(20000, seed=1000 + seed)
        with threadpool_limits(limits=1):
            t = time.perf_counter()
            svc = SVC(C=args.C, sigma=args.sigma, n_jobs=1).fit(X, y)
            t_svc = time.perf_counter() - t
            res["SVC"].append((100 * np.mean(svc.predict(Xt) != yt), t_svc))
            for name in names:
                kw = {"n_experts": args.experts, "C": args.C, "sigma": args.sigma,
                      "client": "serial", "random_state": seed, **VARIANTS[name]}
                t = time.perf_counter()
                m = MixtureSVC(**kw).fit(X, y)
                res[name].append((100 * np.mean(m.predict(Xt) != yt), time.perf_counter() - t))
        print(f"seed {seed}: " + ", ".join(f"{k} {v[-1][0]:.2f}" for k, v in res.items()),
              flush=True)
    base = np.array(res["SVC"])
    print(f"\nn = {args.n}, C = {args.C}, sigma = {args.sigma}, {args.seeds} seeds; "
          "test error % (mean), minus SVC, time s, speed-up over SVC")
    for k, v in res.items():
        a = np.array(v)
        print(f"  {k:18s} {a[:, 0].mean():6.2f}  {a[:, 0].mean() - base[:, 0].mean():+5.2f}  "
              f"{a[:, 1].mean():7.1f}  {base[:, 1].mean() / a[:, 1].mean():5.1f}x")


if __name__ == "__main__":
    main()
