"""Thesis Tables 9.1 / 9.2 protocols, the k-means RBF network and basis pursuit."""
import numpy as np
import pytest
from scipy import stats
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits, make_moons
from sklearn.linear_model import Lasso

from kernelnb.kmp import KMPClassifier
from kernelnb.reproductions.vincent.kmp import (_delve_design, basis_pursuit, delve_table,
                                      dictionary_comparison, format_dictionary_comparison,
                                      format_table91, format_table92, make_kmeans_rbf_network,
                                      one_vs_rest_table)
from kernelnb.svm import SVC


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    return X[:300], y[:300], X[300:450], y[300:450]


def test_kmeans_rbf_network_by_hand():
    X, y = make_moons(120, noise=0.2, random_state=0)
    t = np.where(y == 1, 1.0, -1.0)
    net = make_kmeans_rbf_network(8, sigma=0.4, random_state=3).fit(X, t)
    centres = KMeans(8, n_init=1, random_state=3).fit(X).cluster_centers_
    Phi = np.exp(-((X[:, None, :] - centres[None]) ** 2).sum(-1) / (2 * 0.4 ** 2))
    A = np.hstack([Phi, np.ones((len(X), 1))])
    w = np.linalg.lstsq(A, t, rcond=None)[0]
    np.testing.assert_allclose(net.predict(X), A @ w, atol=1e-8)


def test_set_n_basis_per_target_matches_separate_cuts(digits):
    X, y, _, _ = digits
    m = KMPClassifier(n_basis=12, sigma=1.5).fit(X, y)
    Ns = np.arange(3, 13)
    m.set_n_basis(Ns)
    F = m.decision_function(X[:20])
    for j in (0, 4, 9):
        m.set_n_basis(int(Ns[j]))
        np.testing.assert_allclose(F[:, j], m.decision_function(X[:20])[:, j], atol=1e-12)
    with pytest.raises(ValueError, match="one value per target"):
        m.set_n_basis([3, 4])


def test_one_vs_rest_table_against_binary_fits(digits):
    X, y, Xt, yt = digits
    r = one_vs_rest_table(X, y, Xt, yt, sigma=1.5, C=10.0, classes=[1, 8])
    for i, c in enumerate((1, 8)):
        t, tt = np.where(y == c, 1, -1), np.where(yt == c, 1, -1)
        svm = SVC(C=10.0, sigma=1.5).fit(X, t)
        assert r["n_sv"][i] == len(svm.support_)
        assert r["svm"][i] == np.sum(svm.predict(Xt) != tt)
        for key, N in (("kmp_same", r["n_sv"][i]), ("kmp_half", r["n_sv"][i] // 2)):
            k = KMPClassifier(n_basis=N, sigma=1.5).fit(X, t)
            assert r[key][i] == np.sum(k.predict(Xt) != tt), key
        assert 0 <= r["kmeans_rbf"][i] < 0.3 * len(yt)
    table = format_table91(r)
    assert "| 187 |" in table and "published" in table
    with pytest.raises(ValueError, match="at least 3 classes"):
        one_vs_rest_table(X[y < 2], y[y < 2], Xt, yt, sigma=1.0)


def test_delve_design_is_the_thesis_one():
    assert _delve_design(8124, 512, 8, 503) == (8, 503)
    assert _delve_design(8124, 1024, 8, 503) == (4, 1007)
    with pytest.raises(ValueError, match="does not fit"):
        _delve_design(100, 200, 2, 10)


def test_tiny_delve_table():
    X, y = make_moons(400, noise=0.3, random_state=0)
    res = delve_table(X, y, sizes=(30, 60), n_runs=2, test_size=50, n_folds=3,
                      C_grid=(1.0, 10.0), max_basis=15, random_state=1)
    for size, r in res.items():
        assert r["runs"] == 2 and r["test_size"] == 50
        e = r["errors"]
        assert e["kmp"].shape == e["svm"].shape == (2,)
        assert np.all(e["svm"] < 0.4) and np.all(e["kmp"] < 0.4)
        if not np.all(e["kmp"] - e["svm"] == (e["kmp"] - e["svm"])[0]):
            assert r["p"] == pytest.approx(stats.ttest_rel(e["kmp"], e["svm"]).pvalue)
        assert all(1 <= c["kmp_N"] <= 15 and c["svm_C"] in (1.0, 10.0) for c in r["chosen"])
        assert np.all(r["n_sv"]["kmp"] <= 15)
    table = format_table92(res)
    assert "| 30 (2 x 50), measured |" in table and "published" not in table   # sizes not in 9.2


def test_basis_pursuit_is_the_lasso_at_its_alpha():
    X, y = make_moons(80, noise=0.2, random_state=2)
    D = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 0.5)
    t = np.where(y == 1, 1.0, -1.0)
    coef, b, alpha = basis_pursuit(D, t, 10)
    assert 0 < np.count_nonzero(coef) <= 10
    ref = Lasso(alpha=alpha, tol=1e-12, max_iter=200000).fit(D, t)
    np.testing.assert_allclose(D @ coef + b, ref.predict(D), atol=1e-5)


def test_dictionary_comparison_rows():
    X, y = make_moons(260, noise=0.25, random_state=4)
    rows = dictionary_comparison(X[:120], y[:120], X[120:180], y[120:180], X[180:], y[180:],
                                 sigma=0.5, max_basis=15, n_components=1, n_neighbors=5)
    assert [r["dictionary"] for r in rows] == ["kernel"] * 3 + ["widths"] * 3 + ["oriented"]
    for kmp, bp, omp in (rows[0:3], rows[3:6]):
        assert bp["atoms"] <= kmp["atoms"] and omp["atoms"] <= kmp["atoms"]
    assert all(r["error"] < 0.3 for r in rows)
    assert "basis pursuit" in format_dictionary_comparison(rows)
