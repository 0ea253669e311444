"""The active-learning experiments of Chapelle's thesis, chapter 8, as functions.

* :func:`parzen_toy_experiment` -- section 8.3, Fig. 8.1: Parzen window classifier on
  ``U[-1, 1]^2`` with ``y = sgn(x1 + x2)``; 10 initial points, 20 queries from a pool of 200,
  the width chosen at each step by the likelihood of the pool; random / maximum uncertainty /
  "optimal" (the greedy rule of 8.2).  Published: "the optimal strategy ... is even worse than
  random".
* :func:`majority_toy_experiment` -- section 8.7, Fig. 8.5: ``x in R^5`` with
  ``x_i = tanh(u_i)``, ``u_i ~ U[-1, 1]``, ``y = sgn(sum x_i)``; 3 + 3 initial points, 10
  queries from a pool of 300, RBF SVM with ``sigma^2 = 1.5``.  Published: GEM and fast GEM
  "behave similarly, but they are much worse than the margin method".
* :func:`span_update_speed` -- the cost of one query with the incremental span update (8.11)
  against retraining for every candidate (thesis: ``O(n^2 (n + m))`` instead of ``O(n^3 m)``).

The thesis gives curves, not numbers; the functions return the mean test-error curves so that a
benchmark or a notebook can print them and check the published orderings.
"""
from __future__ import annotations

import time

import numpy as np

from ...neighbors import ParzenClassifier
from ...svm import SVC
from ...unlabeled.active import ActiveLearner

__all__ = ["parzen_toy_experiment", "majority_toy_experiment", "span_update_speed",
           "majority_svc", "PUBLISHED_CLAIMS"]

#: What the thesis states about its two toy experiments (it shows curves only).
PUBLISHED_CLAIMS = {
    "parzen": "Fig. 8.1: the optimal strategy is 'terrible', even worse than random",
    "majority": "Fig. 8.5: GEM and fast GEM behave similarly and are much worse than margin",
}


def _labelled_start(rng, draw, n_pos, n_neg=None, n=None):
    """Initial points: ``n`` draws containing both classes, or ``n_pos`` / ``n_neg`` of each."""
    while True:
        if n is not None:
            X, y = draw(rng, n)
            if np.unique(y).size == 2:
                return X, y
        else:
            X, y = draw(rng, 20 * (n_pos + n_neg))
            pos, neg = np.flatnonzero(y > 0)[:n_pos], np.flatnonzero(y < 0)[:n_neg]
            if pos.size == n_pos and neg.size == n_neg:
                idx = np.r_[pos, neg]
                return X[idx], y[idx]


def _draw_square(rng, n):
    X = rng.uniform(-1, 1, (n, 2))
    return X, np.where(X[:, 0] + X[:, 1] > 0, 1, -1)


def _draw_majority(rng, n, d=5):
    X = np.tanh(rng.uniform(-1, 1, (n, d)))
    return X, np.where(X.sum(axis=1) > 0, 1, -1)


def _curves(make_learner, draw, strategies, n_runs, n_queries, pool_size, start, n_test,
            random_state, runs=None):
    """Mean test-error curves (and for GEM the estimated error of step (e)) per strategy."""
    curves = {}
    estimated = {}
    times = {}
    for s in strategies:
        n_s = n_runs if runs is None else min(n_runs, runs.get(s, n_runs))
        errs, est = [], []
        t0 = time.perf_counter()
        for r in range(n_s):
            rng = np.random.RandomState(random_state + r)        # same data for every strategy
            X0, y0 = start(rng)
            Xp, yp = draw(rng, pool_size)
            Xt, yt = draw(rng, n_test)
            al = make_learner(s, random_state + r).fit(X0, y0, X_unlabeled=Xp, X_val=Xt, y_val=yt)
            al.run(yp, n_queries=n_queries)
            errs.append(al.error_curve_)
            if s in ("gem", "fast_gem"):
                est.append(-np.asarray(al.history_["score"]))
        curves[s] = np.mean(errs, axis=0)
        times[s] = (time.perf_counter() - t0) / max(n_s, 1)
        if est:
            estimated[s] = np.mean(est, axis=0)
        curves.setdefault("_runs", {})[s] = n_s
    runs_used = curves.pop("_runs")
    return {"curves": curves, "estimated": estimated, "runs": runs_used,
            "seconds_per_run": times, "queries": np.arange(n_queries + 1)}


def parzen_toy_experiment(n_runs=100, n_initial=10, n_queries=20, pool_size=200, n_test=2000,
                          strategies=("random", "margin", "gem"), random_state=0):
    """Fig. 8.1 of Chapelle's thesis (section 8.3): active learning with Parzen windows.

    The Parzen window classifier's width maximises the likelihood of the pool at each step.
    ``'margin'`` is the thesis's "maximum uncertainty" (posterior nearest 1/2), ``'gem'`` its
    "optimal" strategy (8.2 with the Parzen posteriors).  The initial points are ``n_initial``
    uniform draws (redrawn until both classes occur; the thesis does not say); the test error is
    measured on ``n_test`` fresh points (the thesis does not give its test-set size).

    Parameters
    ----------
    n_runs : int, default=100
        Runs averaged; run ``r`` draws its data with seed ``random_state + r``.
    n_initial : int, default=10
        Labeled points to start with.
    n_queries : int, default=20
        Points queried in each run.
    pool_size : int, default=200
        Unlabeled candidates the queries are chosen from.
    n_test : int, default=2000
        Fresh points the test error is measured on.
    strategies : tuple of str, default=('random', 'margin', 'gem')
        :class:`kernelnb.unlabeled.ActiveLearner` strategies compared on the same data.
    random_state : int, default=0
        Seed of the first run.

    Returns
    -------
    dict
        ``curves`` (strategy -> mean test error after 0..n_queries queries), ``estimated``
        (GEM's expected error of the chosen point, step (e) of 8.2, after 1..n_queries),
        ``runs``, ``seconds_per_run``, ``queries``.
    """
    def make(strategy, seed):
        return ActiveLearner(ParzenClassifier(n_jobs=1), strategy=strategy,
                             sigma_selection="likelihood", random_state=seed)

    return _curves(make, _draw_square, strategies, n_runs, n_queries, pool_size,
                   lambda rng: _labelled_start(rng, _draw_square, None, n=n_initial),
                   n_test, random_state)


def majority_svc():
    """The SVM of the majority toy (Chapelle's thesis, section 8.7).

    RBF with ``sigma^2 = 1.5``, hard margin (the toy is noise-free and the chapter's
    version-space arguments assume separable data; the thesis does not state C).

    Returns
    -------
    kernelnb.svm.SVC
        An unfitted SVC with these settings.
    """
    return SVC(kernel="rbf", sigma=float(np.sqrt(1.5)), margin="hard", precision="float64",
               tol=1e-8, n_jobs=1)


def majority_toy_experiment(n_runs=100, n_queries=10, pool_size=300, n_test=2000,
                            strategies=("random", "margin", "fast_ratio", "fast_gem", "gem"),
                            runs=None, random_state=0):
    """Fig. 8.5 of Chapelle's thesis (section 8.7): the majority toy with an RBF SVM.

    3 points of each class to start, ``n_queries`` from a pool of ``pool_size``; every strategy
    sees the same data in run ``r``.

    Parameters
    ----------
    n_runs : int, default=100
        Runs averaged; run ``r`` draws its data with seed ``random_state + r``.
    n_queries : int, default=10
        Points queried in each run.
    pool_size : int, default=300
        Unlabeled candidates the queries are chosen from.
    n_test : int, default=2000
        Fresh points the test error is measured on.
    strategies : tuple of str, default=('random', 'margin', 'fast_ratio', 'fast_gem', 'gem')
        :class:`kernelnb.unlabeled.ActiveLearner` strategies compared.
    runs : dict or None, default=None
        Strategy -> number of runs, capping the expensive ones (``'gem'`` retrains the SVM twice
        per candidate).
    random_state : int, default=0
        Seed of the first run.

    Returns
    -------
    dict
        As :func:`parzen_toy_experiment`.
    """
    def make(strategy, seed):
        return ActiveLearner(majority_svc(), strategy=strategy, random_state=seed)

    return _curves(make, _draw_majority, strategies, n_runs, n_queries, pool_size,
                   lambda rng: _labelled_start(rng, _draw_majority, 3, 3), n_test,
                   random_state, runs=runs)


def span_update_speed(pool_size=300, n_labeled=(6, 16), repeats=3, random_state=0):
    """Seconds per query of the fast rules (8.11, 8.12) against retraining every candidate.

    On the majority toy (:func:`majority_svc`), for each training-set size: the time of
    ``score_candidates`` for ``'ratio'``/``'fast_ratio'`` and ``'gem'``/``'fast_gem'`` (best of
    ``repeats``), the speed-up, and whether both versions pick the same point.

    Parameters
    ----------
    pool_size : int, default=300
        Unlabeled candidates scored.
    n_labeled : tuple of int, default=(6, 16)
        Training-set sizes measured.
    repeats : int, default=3
        Timings of the fast rules; the best is kept.
    random_state : int, default=0
        Seed of the data.

    Returns
    -------
    list of dict
        One per (n_labeled, rule): ``n_labeled``, ``rule``, ``retrain_s``, ``fast_s``,
        ``speedup``, ``same_choice``, ``rank_corr`` (Spearman correlation of the two scores).
    """
    from scipy.stats import spearmanr
    rng = np.random.RandomState(random_state)
    rows = []
    for n in n_labeled:
        X0, y0 = _labelled_start(rng, _draw_majority, n // 2, n - n // 2)
        Xp, _ = _draw_majority(rng, pool_size)
        for exact, fast in (("ratio", "fast_ratio"), ("gem", "fast_gem")):
            t, sc = {}, {}
            for s in (exact, fast):
                al = ActiveLearner(majority_svc(), strategy=s).fit(X0, y0, X_unlabeled=Xp)
                best = np.inf
                for _ in range(repeats if s == fast else 1):
                    t0 = time.perf_counter()
                    sc[s] = al.score_candidates()
                    best = min(best, time.perf_counter() - t0)
                t[s] = best
            rows.append({"n_labeled": n, "rule": exact, "retrain_s": t[exact],
                         "fast_s": t[fast], "speedup": t[exact] / t[fast],
                         "same_choice": bool(np.argmax(sc[exact]) == np.argmax(sc[fast])),
                         "rank_corr": float(spearmanr(sc[exact], sc[fast])[0])})
    return rows
