"""The Table 3 protocol: the resampled t-test and a one-split run."""
import numpy as np
import pytest
from scipy import stats

from kernelnb.reproductions.vincent.kmp import (TABLE3_PUBLISHED, format_table3, resampled_ttest,
                                                uci_table3)


def test_resampled_ttest_of_one_split_is_undefined():
    """One split has no sample variance: nan, without numpy's degrees-of-freedom warning."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t, p = resampled_ttest([0.02], n_train=100, n_test=50)
    assert np.isnan(t) and np.isnan(p)


def test_resampled_ttest_by_hand():
    d = np.array([0.01, -0.02, 0.03, 0.00, 0.02])
    t, p = resampled_ttest(d, n_train=100, n_test=50)
    s2 = np.sum((d - d.mean()) ** 2) / 4
    t_ref = d.mean() / np.sqrt((1 / 5 + 50 / 100) * s2)
    assert t == pytest.approx(t_ref)
    assert p == pytest.approx(1 - stats.t.cdf(abs(t_ref), 4))
    assert resampled_ttest(np.zeros(4), 10, 5) == (0.0, 0.5)


def test_one_split_of_the_protocol():
    res = uci_table3(datasets=("breast_cancer",), n_splits=1, max_basis=20, max_basis_tanh=8)
    r = res["breast_cancer"]
    assert r["n"] == 683 and r["sigma"] == pytest.approx(4 / np.sqrt(2))
    for key in ("svm", "mse", "tanh"):
        assert r["errors"][key].shape == (1,)
        assert 0 <= r["errors"][key][0] < 0.15      # an easy data set: far from chance
    assert 0 < r["n_sv"]["mse"][0] <= 20
    table = format_table3(res)
    assert "published" in table and str(TABLE3_PUBLISHED["breast_cancer"]["svm"]) in table
    with pytest.raises(ValueError, match="scaling"):
        uci_table3(datasets=("sonar",), n_splits=1, scaling="robust")
