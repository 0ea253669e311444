"""The thesis reproductions on small settings."""
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits

from kernelnb.neighbors import (
    CKNNClassifier,
    HKNNClassifier,
    ManifoldParzen,
    ManifoldParzenClassifier,
    ParzenClassifier,
    ParzenDensity,
)
from kernelnb.reproductions.vincent.local import (
    SPIRAL_PUBLISHED,
    SPIRAL_SIGMA_GRID,
    bayes_tables,
    class_density_table,
    digits_table,
    hull_error_curves,
    reduced_reference_table,
    spiral_table,
)
from kernelnb.svm import SVC


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    p = np.random.RandomState(0).permutation(len(y))
    return X, y, p[:500], p[500:800], p[800:1100]


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_spiral_table_orders_the_estimators_like_the_thesis():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # small grids: edges are expected
        r = spiral_table(random_state=0, h_grid=np.geomspace(0.005, 0.05, 6),
                         sigma_grid=np.geomspace(0.001, 0.02, 5), k_grid=(6, 11),
                         local_width_grid=(0.02, 0.05), integral_points=121)
    assert set(SPIRAL_PUBLISHED) <= set(r)
    assert {"Local Gaussian d=1", "Local Gaussian d=2"} <= set(r)
    # Table 13.1's finding: both Manifold Parzen variants beat ordinary Parzen on the spiral
    assert r["Manifold Parzen d=1"]["test_anll"] < r["Parzen"]["test_anll"]
    assert r["Manifold Parzen d=2"]["test_anll"] < r["Parzen"]["test_anll"]
    for v in r.values():
        assert np.isfinite(v["test_anll"]) and v["valid_anll"] <= v["test_anll"] + 0.5
    # the rows hold the test ANLL of the estimator refitted with the selected parameters
    p = r["Manifold Parzen d=1"]["params"]
    data_anll = r["Manifold Parzen d=1"]["test_anll"]
    from kernelnb.datasets import make_manifold_spiral_splits
    d = make_manifold_spiral_splits(random_state=0)
    assert ManifoldParzen(**p).fit(d["train"]).anll(d["test"]) == pytest.approx(data_anll)
    # the local estimator's mass is measured; the normalised ANLL is the ANLL plus log(mass)
    loc = r["Local Gaussian d=1"]
    assert 0.5 < loc["integral"] < 2.0
    assert loc["test_anll_normalised"] == pytest.approx(loc["test_anll"] + np.log(loc["integral"]))


def test_spiral_sigma_grid_holds_the_published_values():
    assert np.any(np.isclose(SPIRAL_SIGMA_GRID, 0.09, rtol=0, atol=1e-15))
    assert np.any(np.isclose(SPIRAL_SIGMA_GRID, 1e-5, rtol=0, atol=1e-18))
    assert SPIRAL_SIGMA_GRID[0] < 1e-5 and SPIRAL_SIGMA_GRID[-1] > 0.09


def test_a_selection_on_the_grid_edge_is_flagged():
    # a Parzen width grid far too small for the spiral: the largest width must be selected
    with pytest.warns(UserWarning, match="edge of its grid"):
        r = spiral_table(random_state=0, h_grid=(1e-4, 2e-4, 4e-4), sigma_grid=(0.005, 0.01),
                         k_grid=(11,), local=False)
    assert r["Parzen"]["params"]["sigma"] == 4e-4
    assert r["Parzen"]["on_edge"] == ["sigma"]


def test_digits_table_selects_on_validation(digits):
    X, y, tr, va, te = digits
    r = digits_table(X[tr], y[tr], X[va], y[va], X[te], y[te], K_grid=(1, 3, 5), lam_grid=(1.0,),
                     C_grid=(10,), sigma_factors=(1,))
    assert set(r) == {"KNN", "SVM", "HKNN", "CKNN"}
    assert all(0 <= err < 0.1 for err, _ in r.values())
    assert r["HKNN"][0] <= r["KNN"][0] + 0.01


def test_hull_error_curves_agree_with_the_classifiers(digits):
    X, y, tr, va, _ = digits
    c = hull_error_curves(X[tr], y[tr], X[va], y[va], K_grid=(3, 12), lam_grid=(0.0, 10.0))
    assert list(c["K"]) == [3, 12]
    for i, K in enumerate((3, 12)):
        for lam in (0.0, 10.0):
            ref = 1 - HKNNClassifier(n_neighbors=K, weight_decay=lam).fit(X[tr], y[tr]).score(X[va], y[va])
            assert c[f"HKNN lambda={lam:g}"][i] == pytest.approx(ref)
        ref = 1 - CKNNClassifier(n_neighbors=K).fit(X[tr], y[tr]).score(X[va], y[va])
        assert c["CKNN"][i] == pytest.approx(ref)
    with pytest.raises(ValueError, match="K_grid"):
        hull_error_curves(X[tr], y[tr], X[va], y[va], K_grid=(3, 500))


def test_reduced_reference_table_uses_the_support_vectors(digits):
    X, y, tr, va, te = digits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = reduced_reference_table(X[tr], y[tr], X[va], y[va], X[te], y[te], C_grid=(10.0,),
                                    K_grid=(3, 6, 10), lam_grid=(1.0, 10.0))
    assert set(r) == {"SVM", "HKNN (SV reference)", "CKNN (SV reference)",
                      "HKNN (full reference)", "CKNN (full reference)"}
    from kernelnb.kernels import scale_sigma
    svm = SVC(C=10.0, sigma=scale_sigma(X[tr])).fit(X[tr], y[tr])
    assert r["SVM"]["n_reference"] == len(svm.support_) < len(tr)
    assert r["HKNN (SV reference)"]["n_reference"] == len(svm.support_)
    assert r["CKNN (full reference)"]["n_reference"] == len(tr)
    # the test error is that of the classifier with the selected parameters on the SV set
    hp = r["HKNN (SV reference)"]["params"]
    ref = HKNNClassifier(**hp, reference=SVC(C=10.0, sigma=scale_sigma(X[tr]))).fit(X[tr], y[tr])
    assert r["HKNN (SV reference)"]["test_error"] == pytest.approx(1 - ref.score(X[te], y[te]))
    assert all(row["test_error"] < 0.1 for row in r.values())


def test_class_density_table_reports_anll_and_standard_errors(digits):
    X, y, *_ = digits
    Xc = X[y == 3]
    tr, va, te = Xc[:100], Xc[100:140], Xc[140:]
    r = class_density_table(tr, va, te, parzen_grid=(0.2, 0.4),
                            mparzen_grid={"n_components": [3], "n_neighbors": [8],
                                          "sigma": [0.1, 0.2]},
                            local_grid={"n_components": [3], "sigma": [1.0],
                                        "noise": [0.2]})
    assert set(r) == {"Parzen", "Manifold Parzen", "Local Gaussian"}
    s = r["Parzen"]["params"]["sigma"]
    lp = ParzenDensity(sigma=s).fit(tr).score_samples(te)
    assert r["Parzen"]["test_anll"] == pytest.approx(-lp.mean())
    assert r["Parzen"]["test_se"] == pytest.approx(lp.std() / np.sqrt(len(te)))
    other = 0.4 if s == 0.2 else 0.2
    assert r["Parzen"]["valid_anll"] <= ParzenDensity(sigma=other).fit(tr).anll(va)


def test_bayes_tables_select_by_error_and_by_ancll(digits):
    X, y, tr, va, te = digits
    mp_grid = {"n_components": [3], "n_neighbors": [5], "sigma": [0.2, 0.5]}
    r = bayes_tables(X[tr], y[tr], X[va], y[va], X[te], y[te], parzen_grid=(0.2, 0.4),
                     mparzen_grid=mp_grid)
    assert set(r["by_error"]) == {"SVM", "Parzen", "Manifold Parzen"}
    assert set(r["by_ancll"]) == {"Parzen", "Manifold Parzen"}
    # the ANCLL rows agree with the classifier's own ancll; the selection minimises it
    p = r["by_ancll"]["Manifold Parzen"]["params"]
    clf = ManifoldParzenClassifier(**p).fit(X[tr], y[tr])
    assert r["by_ancll"]["Manifold Parzen"]["test_ancll"] == pytest.approx(clf.ancll(X[te], y[te]))
    for s in (0.2, 0.4):
        clf = ParzenClassifier(sigma=s).fit(X[tr], y[tr])
        lp = clf.predict_log_proba(X[va])
        ancll = -np.mean(lp[np.arange(len(va)), np.searchsorted(clf.classes_, y[va])])
        assert r["by_ancll"]["Parzen"]["valid_ancll"] <= ancll + 1e-12
        assert r["by_error"]["Parzen"]["valid_error"] <= 1 - clf.score(X[va], y[va]) + 1e-12
    assert all(row["test_error"] < 0.1 for row in r["by_error"].values())


def test_a_grid_without_a_valid_point_is_an_error():
    X = np.random.RandomState(0).rand(30, 3)
    with pytest.raises(ValueError, match="no point of the grid"):
        class_density_table(X[:20], X[20:25], X[25:], parzen_grid=(0.3,),
                            mparzen_grid={"n_components": [3], "n_neighbors": [2], "sigma": [0.1]})
