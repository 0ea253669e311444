"""The protocol of the VRM table (Chapelle's thesis §2.3.1): splits, standardisation and
selection recomputed independently for a few runs."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from kernelnb.reproductions.chapelle.vicinal import (PUBLISHED_VRM_TABLE, VRM_TABLE_METHODS,
                                                     vrm_breast_cancer_table)


def test_hard_svm_column_recomputed_independently():
    X, y = load_breast_cancer(return_X_y=True)
    res = vrm_breast_cancer_table(sizes=(20,), n_runs=3, methods=("hard_svm",), random_state=7)
    errs = []
    for r in range(3):
        tr, te = next(StratifiedShuffleSplit(n_splits=1, train_size=20, random_state=7 + r)
                      .split(X, y))
        assert np.bincount(y[tr]).tolist() == [7, 13]          # stratified: 212/357 of 20
        sc = StandardScaler().fit(X[tr])
        ref = SkSVC(kernel="linear", C=1e8, tol=1e-6).fit(sc.transform(X[tr]), y[tr])
        errs.append(np.mean(ref.predict(sc.transform(X[te])) != y[te]))
    np.testing.assert_allclose(res["errors"][20]["hard_svm"], errs, atol=2.5 / 549)
    assert res["mean"][20]["hard_svm"] == pytest.approx(100 * np.mean(res["errors"][20]["hard_svm"]))
    assert res["not_separable"][20] == 0 and res["chosen"][20]["hard_svm"] == [None] * 3


def test_selected_methods_run_and_choose_from_their_grids():
    res = vrm_breast_cancer_table(sizes=(10,), n_runs=2, methods=VRM_TABLE_METHODS,
                                  standardize="all")
    for m in VRM_TABLE_METHODS:
        e = res["errors"][10][m]
        assert e.shape == (2,) and np.all((0 <= e) & (e < 0.5))
    for m in ("soft_svm", "vicinal_svc"):
        assert all(1e-3 <= c <= 1e3 for c in res["chosen"][10][m])
    for m in ("vrm_fixed", "vrm_adaptive"):
        assert all(2.0 ** -6 <= f <= 2.0 for f in res["chosen"][10][m])
    assert res["published"] is PUBLISHED_VRM_TABLE and PUBLISHED_VRM_TABLE[10] == (11.3, 11.1,
                                                                                  10.8, 9.6)


def test_table_errors_name_the_parameter():
    with pytest.raises(ValueError, match="'standardize' parameter"):
        vrm_breast_cancer_table(standardize="yes", n_runs=1)
    with pytest.raises(ValueError, match="methods must be among"):
        vrm_breast_cancer_table(methods=("svm",), n_runs=1)
    with pytest.raises(ValueError, match="'n_runs' parameter"):
        vrm_breast_cancer_table(n_runs=0)
