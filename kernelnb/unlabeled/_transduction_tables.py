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
    """The thesis's own rule for the Boston setting (§7.6.2): "the values of gamma and sigma
    [minimise] the average leave-one-out error over five more random splits of the data,
    stepping over the parameter space".

    ``n_splits`` random splits of the 506 points into ``506 - n_test`` training points (inputs
    standardised on them, as :func:`kernelnb.unlabeled.transduction.boston_transduction`); on
    each, the closed-form leave-one-out error (5.8) of ridge regression on the RBF basis
    functions centred at the training points, ``A = K'K + gamma I``, for every pair of the grid
    ``exp(log_sigmas)`` x ``alphas``; the pair with the smallest mean is returned.  The splits
    come from their own ``random_state`` (1), not the evaluation splits' (0).

    Returns
    -------
    dict with ``alpha``, ``sigma``, ``log_sigma`` (natural logarithm) and ``loo`` (the grid of
    mean leave-one-out errors, shape (len(log_sigmas), len(alphas))).
    """
    import numpy as np
    from sklearn.preprocessing import StandardScaler

    from ..datasets import load_boston
    from ..kernels import KernelSpec
    from ..ridge import loo_residuals

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
