"""Published numbers of Chapelle's thesis, chapter 7, for the reproductions of
:mod:`kernelnb.unlabeled.reweighting` and :mod:`kernelnb.unlabeled.transduction` (typed from the
thesis, labelled "published"; the reproductions compute their own)."""

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
