"""The reweighting and vicinal-risk experiments with unlabeled data of Chapelle's thesis, sections
7.2.1 and 7.2.2 (Fig. 7.2 and the 1-D toy's table).
"""
from __future__ import annotations

import numpy as np
from scipy.special import ndtr
from sklearn.utils import check_random_state
from ...svm import SVC
from ...unlabeled.reweighting import (ReweightedParzenClassifier, UnlabeledVicinalClassifier,
                                     likelihood_sigma)

__all__ = ["reweighting_toy", "vrm_unlabeled_toy"]


# ------------------------------------------------------------------------------------------
# Reproductions
# ------------------------------------------------------------------------------------------
def reweighting_toy(dims=range(1, 11), n_trials=1000, n_train=10, n_test=1000, separation=2.0,
                    random_state=0):
    """Fig. 7.2 of Chapelle's thesis: Parzen window classifier with and without reweighting.

    Data ``N(1 * separation y / sqrt(d), I_d)``, ``P(y = +-1) = 1/2`` (separation 2: Bayes error
    ``Phi(-2) = 2.28 %``); ``n_train`` training points, ``n_test`` test points that are also
    the unlabeled set; the width maximises the unlabeled likelihood with equal weights, then
    the weights are fitted by KL (7.4) at that width.  Training sets with one class only are
    redrawn.

    Parameters
    ----------
    dims : iterable of int, default=range(1, 11)
        The dimensions d.
    n_trials : int, default=1000
        Trials per dimension.
    n_train : int, default=10
        Labeled training points of a trial.
    n_test : int, default=1000
        Test points, also the unlabeled set.
    separation : float, default=2.0
        Distance of each class mean from the origin.
    random_state : int, default=0
        Seed of the trials.

    Returns
    -------
    dict
        ``dims``, ``error_plain`` and ``error_reweighted`` (mean test error per d), their
        standard errors ``se_plain``, ``se_reweighted``, and ``bayes`` (``Phi(-separation)``).
    """
    rng = check_random_state(random_state)
    dims = list(dims)
    ep, er, sp, sr = [], [], [], []
    for d in dims:
        a, b = [], []
        mu = separation / np.sqrt(d)
        for _ in range(n_trials):
            while True:
                y = rng.choice([-1, 1], n_train)
                if abs(y.sum()) < n_train:
                    break
            X = rng.randn(n_train, d) + mu * y[:, None]
            yt = rng.choice([-1, 1], n_test)
            Xt = rng.randn(n_test, d) + mu * yt[:, None]
            sigma = likelihood_sigma(X, Xt)
            plain = ReweightedParzenClassifier(sigma=sigma).fit(X, y)
            rew = ReweightedParzenClassifier(sigma=sigma).fit(X, y, X_unlabeled=Xt)
            a.append(np.mean(plain.predict(Xt) != yt))
            b.append(np.mean(rew.predict(Xt) != yt))
        ep.append(float(np.mean(a)))
        er.append(float(np.mean(b)))
        sp.append(float(np.std(a) / np.sqrt(n_trials)))
        sr.append(float(np.std(b) / np.sqrt(n_trials)))
    return {"dims": dims, "error_plain": ep, "error_reweighted": er, "se_plain": sp,
            "se_reweighted": sr, "bayes": float(ndtr(-separation))}


def _threshold_error(w, b, mean):
    """Exact error of the 1-D linear classifier ``sgn(w x + b)`` (positive class +mean) on
    N(+-mean, 1) with equal priors."""
    w, b = float(w), float(b)
    if w == 0:
        return 0.5
    t = -b / w
    pos_right = w > 0      # positive class (classes_[1] = +1) where w x + b > 0
    if pos_right:
        return 0.5 * ndtr(t - mean) + 0.5 * (1 - ndtr(t + mean))
    return 0.5 * (1 - ndtr(t - mean)) + 0.5 * ndtr(t + mean)


def _vicinal_error(clf, mean):
    return _threshold_error(clf.coef_[0], clf.intercept_, mean)


def vrm_unlabeled_toy(n_runs=100, n_labeled=20, n_unlabeled=100, mean=1.6,
                      sigmas_labeled=(0.1, 0.2, 0.4, 0.8, 1.6, 3.2),
                      sigmas_unlabeled=(0.1, 0.2, 0.4, 0.8, 1.6), random_state=0):
    """The 1-D example of Chapelle's thesis §7.2.1: vicinal risk with unlabeled points.

    N(-mean, 1) against N(mean, 1), 20 labeled and 100 unlabeled points, 100 runs; linear
    functions, Gaussian vicinities.  Four settings, as the thesis's table: labeled only or labeled
    + unlabeled, with ``sigma_L -> 0`` or the best ``sigma_L``; "best" widths by leave-one-out
    cross-validation on the labeled points (the unlabeled points stay in every fold; ties go to the
    first grid value). Labeled only with ``sigma_L -> 0`` is the plain SVM, as in the thesis
    (linear :class:`kernelnb.svm.SVC`, C = 1000).  Errors are exact (the threshold's error under
    the two Gaussians), not sampled.

    Parameters
    ----------
    n_runs : int, default=100
        Runs averaged.
    n_labeled : int, default=20
        Labeled points of a run.
    n_unlabeled : int, default=100
        Unlabeled points of a run.
    mean : float, default=1.6
        The classes' means are ``-mean`` and ``+mean``.
    sigmas_labeled : sequence of float, default=(0.1, 0.2, 0.4, 0.8, 1.6, 3.2)
        The grid of the labeled points' vicinity widths.
    sigmas_unlabeled : sequence of float, default=(0.1, 0.2, 0.4, 0.8, 1.6)
        The grid of the unlabeled points' vicinity widths.
    random_state : int, default=0
        Seed of the runs.

    Returns
    -------
    dict
        Mean errors ``labeled_sigma0``, ``unlabeled_sigma0``, ``labeled_best``,
        ``unlabeled_best``, their standard errors (keys with ``_se``), and ``bayes``.
    """
    rng = check_random_state(random_state)
    out = {k: [] for k in ("labeled_sigma0", "unlabeled_sigma0", "labeled_best",
                           "unlabeled_best")}

    def loo_error(x, y, xu, sl, su):
        wrong = 0
        for i in range(x.shape[0]):
            keep = np.arange(x.shape[0]) != i
            if np.unique(y[keep]).size < 2:
                wrong += 1
                continue
            clf = UnlabeledVicinalClassifier(sigma_labeled=sl, sigma_unlabeled=su, n_grid=400).fit(
                x[keep], y[keep], X_unlabeled=xu)
            wrong += int(clf.predict(x[i:i + 1])[0] != y[i])
        return wrong

    for _ in range(n_runs):
        while True:
            y = rng.choice([-1, 1], n_labeled)
            if abs(y.sum()) < n_labeled - 2:
                break
        x = (rng.randn(n_labeled) + mean * y)[:, None]
        yu = rng.choice([-1, 1], n_unlabeled)
        xu = (rng.randn(n_unlabeled) + mean * yu)[:, None]
        svc = SVC(C=1000.0, kernel="linear", n_jobs=1, precision="float64").fit(x, y)
        out["labeled_sigma0"].append(_threshold_error(
            svc.dual_coef_.ravel() @ svc.support_vectors_[:, 0], svc.intercept_[0], mean))
        su_best = min(sigmas_unlabeled, key=lambda su: loo_error(x, y, xu, 0.0, su))
        out["unlabeled_sigma0"].append(_vicinal_error(
            UnlabeledVicinalClassifier(sigma_labeled=0.0, sigma_unlabeled=su_best)
            .fit(x, y, X_unlabeled=xu), mean))
        sl_best = min(sigmas_labeled, key=lambda sl: loo_error(x, y, None, sl, 1.0))
        out["labeled_best"].append(_vicinal_error(
            UnlabeledVicinalClassifier(sigma_labeled=sl_best, sigma_unlabeled=1.0).fit(x, y),
            mean))
        pairs = [(sl, su) for sl in sigmas_labeled for su in sigmas_unlabeled]
        sl_b, su_b = min(pairs, key=lambda p: loo_error(x, y, xu, *p))
        out["unlabeled_best"].append(_vicinal_error(
            UnlabeledVicinalClassifier(sigma_labeled=sl_b, sigma_unlabeled=su_b)
            .fit(x, y, X_unlabeled=xu), mean))
    res = {}
    for k, v in out.items():
        res[k] = float(np.mean(v))
        res[k + "_se"] = float(np.std(v) / np.sqrt(len(v)))
    res["bayes"] = float(ndtr(-mean))
    return res
