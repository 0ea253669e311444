"""Published numbers of Chapelle's thesis, chapter 7, for the reproductions of
:mod:`kernelnb.unlabeled.reweighting` and :mod:`kernelnb.unlabeled.transduction` (typed from the
thesis, labelled "published"; the reproductions compute their own), and
:func:`boston_loo_setting`, the thesis's rule for choosing the Boston setting (gamma and sigma by
the leave-one-out error on five more splits) applied to our data."""

#: §7.2.1 table: 1-D toy N(+-1.6, 1), 20 labeled + 100 unlabeled, 100 runs (% error).
PUBLISHED_VRM_UNLABELED = {
    "labeled_sigma0": 6.5, "unlabeled_sigma0": 5.6, "labeled_best": 5.0, "unlabeled_best": 4.3,
}

#: §7.2.2 text: separation 1.5, d = 1, Parzen error without -> with reweighting (%).
PUBLISHED_REWEIGHTING_SEP15_D1 = (10.6, 10.9)

#: §7.2.2: Bayes error of the Fig. 7.2 toy (%).
PUBLISHED_REWEIGHTING_BAYES = 2.28

#: Table 7.1 (% test error; Rätsch et al. 2001 splits): (AB, AB_R, SVM, TLD).
PUBLISHED_TABLE_7_1 = {
    "Postal": (None, None, 5.5, 4.7),
    "Banana": (12.3, 10.9, 11.5, 11.4),
    "Diabetes": (26.5, 23.8, 23.5, 23.3),
    "Titanic": (22.6, 22.6, 22.4, 22.4),
    "Breast Cancer": (30.4, 26.5, 26.0, 25.7),
    "Heart": (20.3, 16.6, 16.0, 15.7),
    "Thyroid": (4.4, 4.6, 4.8, 4.0),
}

#: §7.6.2 Boston housing setting (100 splits of 481/25): gamma, log sigma, gamma*.
PUBLISHED_BOSTON_SETTING = {"alpha": 0.005, "log_sigma": 0.7, "alpha_star": 10.0}


def boston_loo_setting(n_splits=5, n_test=25, log_sigmas=None, alphas=None, random_state=1):
    """The thesis's own rule for the Boston setting (Chapelle, §7.6.2), applied to our data.

    "The values of gamma and sigma [minimise] the average leave-one-out error over five more
    random splits of the data, stepping over the parameter space".  ``n_splits`` random splits of
    the 506 points into ``506 - n_test`` training points (inputs standardised on them, as
    :func:`boston_transduction`); on each, the closed-form leave-one-out error (5.8) of ridge
    regression on the RBF basis functions centred at the training points, ``A = K'K + gamma I``,
    for every pair of the grid ``exp(log_sigmas)`` x ``alphas``; the pair with the smallest mean is
    returned.  The splits come from their own ``random_state`` (1), not the evaluation splits' (0).

    Parameters
    ----------
    n_splits : int, default=5
        Random splits averaged.
    n_test : int, default=25
        Points left out of each split's training set.
    log_sigmas : array-like or None, default=None
        Natural logarithms of the widths (None: -1 to 2.5 by 0.1).
    alphas : array-like or None, default=None
        Ridge penalties gamma (None: 25 values from 1e-5 to 10, log-spaced).
    random_state : int, default=1
        Seed of the splits.

    Returns
    -------
    dict
        ``alpha``, ``sigma``, ``log_sigma`` (natural logarithm) and ``loo`` (the grid of mean
        leave-one-out errors, shape (len(log_sigmas), len(alphas))).
    """
    import numpy as np
    from sklearn.preprocessing import StandardScaler

    from ...datasets import load_boston
    from ...kernels import KernelSpec
    from ...ridge import loo_residuals

    log_sigmas = (np.round(np.arange(-1.0, 2.51, 0.1), 2) if log_sigmas is None
                  else np.asarray(log_sigmas, dtype=float))
    alphas = np.logspace(-5, 1, 25) if alphas is None else np.asarray(alphas, dtype=float)
    X, y = load_boston()
    rng = np.random.RandomState(random_state)
    loo = np.zeros((log_sigmas.size, alphas.size))
    for _ in range(n_splits):
        trn = rng.permutation(X.shape[0])[n_test:]
        Xa = StandardScaler().fit_transform(X[trn])
        ya = np.asarray(y[trn], dtype=float)
        for i, ls in enumerate(log_sigmas):
            K = np.asarray(KernelSpec(kernel="rbf", sigma=float(np.exp(ls))).fit(Xa)(Xa),
                           dtype=float)
            # ridge on the basis K with A = K'K + a I: the hat matrix of K K' (one eigh a sigma)
            loo[i] += (loo_residuals(K @ K.T, ya, alphas) ** 2).mean(axis=1) / n_splits
    i, j = np.unravel_index(np.argmin(loo), loo.shape)
    return {"alpha": float(alphas[j]), "sigma": float(np.exp(log_sigmas[i])),
            "log_sigma": float(log_sigmas[i]), "loo": loo, "log_sigmas": log_sigmas,
            "alphas": alphas}


# imports of the protocols below
from ...unlabeled.transduction import (TransductiveLinearDiscriminant, TransductiveRidge,
                                      TransductiveSVC)
import numpy as np
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler
from ...ridge import ScalingRidge
from ...svm import SVC

__all__ = ["PUBLISHED_VRM_UNLABELED", "PUBLISHED_REWEIGHTING_SEP15_D1",
           "PUBLISHED_REWEIGHTING_BAYES", "PUBLISHED_TABLE_7_1", "PUBLISHED_BOSTON_SETTING",
           "boston_loo_setting", "boston_transduction", "uci_transduction"]


# ------------------------------------------------------------------------------------------
# Reproductions (thesis §7.6.2)
# ------------------------------------------------------------------------------------------
def _standardize(X_train, *others):
    """Inputs standardised on the training part (scikit-learn's StandardScaler)."""
    scaler = StandardScaler().fit(X_train)
    return [scaler.transform(Z) for Z in (X_train, *others)]


def boston_transduction(n_splits=100, n_test=25, alpha=0.005, sigma=np.exp(0.7), alpha_star=10.0,
                        random_state=0):
    """Transductive ridge regression against ridge regression on Boston housing.

    Chapelle's thesis, §7.6.2, Fig. 7.9a at its minimum: ``n_splits`` random splits of the 506
    points into ``506 - n_test`` training and ``n_test`` test points, the thesis's ``gamma =
    0.005``, ``log sigma = 0.7`` (read as the natural logarithm) and ``gamma* = 10``; inputs
    standardised on each training set (the thesis does not say; RBF widths need a common scale).

    Parameters
    ----------
    n_splits : int, default=100
        Random splits.
    n_test : int, default=25
        Test points of each split.
    alpha : float, default=0.005
        The ridge penalty gamma.
    sigma : float, default=exp(0.7)
        Width of the RBF basis functions.
    alpha_star : float, default=10.0
        The weight gamma* of the test points' labels (7.18).
    random_state : int, default=0
        Seed of the splits.

    Returns
    -------
    dict
        ``mse_ridge``, ``mse_transductive`` (mean test MSE over the splits), their standard
        errors, ``wins`` (splits where transduction is lower), the per-split arrays ``ridge``
        and ``transductive``, and the mean fit times ``time_ridge``, ``time_transductive``.
    """
    import time

    from ...datasets import load_boston
    X, y = load_boston()
    rng = np.random.RandomState(random_state)
    r, t, tr, tt = [], [], [], []
    for _ in range(n_splits):
        perm = rng.permutation(X.shape[0])
        te, trn = perm[:n_test], perm[n_test:]
        Xa, Xb = _standardize(X[trn], X[te])
        t0 = time.perf_counter()
        model = TransductiveRidge(alpha=alpha, sigma=sigma, alpha_star=alpha_star).fit(
            Xa, y[trn], X_unlabeled=Xb)
        tt.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ind = ScalingRidge(alpha=alpha, sigma=sigma, tune_scales=False).fit(Xa, y[trn])
        y0 = ind.predict(Xb)
        tr.append(time.perf_counter() - t0)
        r.append(float(np.mean((y0 - y[te]) ** 2)))
        t.append(float(np.mean((model.transduction_ - y[te]) ** 2)))
    r, t = np.array(r), np.array(t)
    return {"mse_ridge": float(r.mean()), "mse_transductive": float(t.mean()),
            "se_ridge": float(r.std() / np.sqrt(n_splits)),
            "se_transductive": float(t.std() / np.sqrt(n_splits)),
            "wins": int(np.sum(t < r)), "ridge": r, "transductive": t,
            "time_ridge": float(np.mean(tr)), "time_transductive": float(np.mean(tt))}


def uci_transduction(dataset="pima", n_splits=100, n_train=468, n_tsvm_splits=0,
                     sigmas=None, Cs=(0.1, 1.0, 10.0, 100.0), alpha_stars=(0.1, 1.0, 10.0),
                     random_state=0):
    """SVM against TLD (and optionally the TSVM) in the idea of Table 7.1 (thesis §7.6.2).

    ``n_splits`` random splits of a bundled UCI set (:func:`kernelnb.datasets.load_dataset`)
    into ``n_train`` training points and the rest as test points, which TLD and the TSVM are
    given unlabeled; inputs standardised on each training set.  As in Rätsch's protocol the free
    parameters are chosen on the first five training sets by 5-fold cross-validation: the SVM's
    RBF width and C; TLD's width (and its gamma* with the held-out fold as the unlabeled set),
    its ridge penalty gamma by the closed-form leave-one-out error on each split (5.8).  The TSVM
    uses the SVM's width and C with ``C* = C`` on the first ``n_tsvm_splits`` splits.  Not
    Rätsch's splits: his sets are subsets of other sizes (breast cancer is the Ljubljana set,
    277 points, 200/77; the bundled one is the Wisconsin set), and his splits are not bundled.

    Parameters
    ----------
    dataset : str, default='pima'
        A bundled UCI set (:data:`kernelnb.datasets.UCI_DATASETS`).
    n_splits : int, default=100
        Random splits.
    n_train : int, default=468
        Training points of each split.
    n_tsvm_splits : int, default=0
        Splits on which the TSVM also runs.
    sigmas : sequence of float or None, default=None
        The grid of RBF widths (None: ``sqrt(d) * (0.25, 0.5, 1, 2)``, d the input dimension).
    Cs : sequence of float, default=(0.1, 1.0, 10.0, 100.0)
        The grid of the SVM's C.
    alpha_stars : sequence of float, default=(0.1, 1.0, 10.0)
        The grid of TLD's gamma*.
    random_state : int, default=0
        Seed of the splits.

    Returns
    -------
    dict
        ``error_svm``, ``error_tld`` (mean % error), their standard errors, ``error_tsvm``
        (None when not run, else over its splits with ``error_svm_tsvm_splits`` beside), the
        chosen parameters, and mean fit times ``time_svm``, ``time_tld``, ``time_tsvm``.
    """
    import time

    from ...datasets import load_dataset
    X, y = load_dataset(dataset)
    rng = np.random.RandomState(random_state)
    splits = []
    for _ in range(n_splits):
        perm = rng.permutation(X.shape[0])
        splits.append((perm[:n_train], perm[n_train:]))
    d = X.shape[1]
    sigmas = (np.sqrt(d) * np.array([0.25, 0.5, 1.0, 2.0]) if sigmas is None
              else np.asarray(sigmas, dtype=float))

    def folds(idx, k=5):
        return [(idx[a], idx[b])
                for a, b in KFold(k, shuffle=True, random_state=1).split(idx)]

    cv = [f for trn, _ in splits[:5] for f in folds(trn)]
    svm_err = {}
    for s in sigmas:
        for C in Cs:
            e = 0.0
            for a, b in cv:
                Xa, Xb = _standardize(X[a], X[b])
                e += np.mean(SVC(C=C, sigma=s, n_jobs=1).fit(Xa, y[a]).predict(Xb) != y[b])
            svm_err[(s, C)] = e
    s_svm, C_svm = min(svm_err, key=svm_err.get)
    tld_err = {}
    for s in sigmas:
        for a_star in alpha_stars:
            e = 0.0
            for a, b in cv:
                Xa, Xb = _standardize(X[a], X[b])
                m = TransductiveLinearDiscriminant(sigma=s, alpha_star=a_star).fit(
                    Xa, y[a], X_unlabeled=Xb)
                e += np.mean(m.transduction_ != y[b])
            tld_err[(s, a_star)] = e
    s_tld, a_tld = min(tld_err, key=tld_err.get)
    es, et, ets, ess, ts, tt, tts = [], [], [], [], [], [], []
    for k, (a, b) in enumerate(splits):
        Xa, Xb = _standardize(X[a], X[b])
        t0 = time.perf_counter()
        svm = SVC(C=C_svm, sigma=s_svm, n_jobs=1).fit(Xa, y[a])
        es.append(100 * np.mean(svm.predict(Xb) != y[b]))
        ts.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        tld = TransductiveLinearDiscriminant(sigma=s_tld, alpha_star=a_tld).fit(
            Xa, y[a], X_unlabeled=Xb)
        et.append(100 * np.mean(tld.transduction_ != y[b]))
        tt.append(time.perf_counter() - t0)
        if k < n_tsvm_splits:
            t0 = time.perf_counter()
            tsvm = TransductiveSVC(C=C_svm, C_unlabeled=C_svm, sigma=s_svm).fit(
                Xa, y[a], X_unlabeled=Xb)
            ets.append(100 * np.mean(tsvm.transduction_ != y[b]))
            ess.append(es[-1])
            tts.append(time.perf_counter() - t0)
    es, et = np.array(es), np.array(et)
    return {"dataset": dataset, "n_splits": n_splits, "n_train": n_train,
            "n_test": X.shape[0] - n_train,
            "error_svm": float(es.mean()), "error_tld": float(et.mean()),
            "se_svm": float(es.std() / np.sqrt(n_splits)),
            "se_tld": float(et.std() / np.sqrt(n_splits)),
            "error_tsvm": float(np.mean(ets)) if ets else None,
            "error_svm_tsvm_splits": float(np.mean(ess)) if ess else None,
            "n_tsvm_splits": len(ets),
            "svm_params": {"sigma": float(s_svm), "C": float(C_svm)},
            "tld_params": {"sigma": float(s_tld), "alpha_star": float(a_tld)},
            "time_svm": float(np.mean(ts)), "time_tld": float(np.mean(tt)),
            "time_tsvm": float(np.mean(tts)) if tts else None}
