"""The estimators that carry a scikit-learn estimator's name default as scikit-learn's do, but for
the differences docs/scikit-learn.md lists: the table there is compared with both libraries'
signatures, so a default changed on either side without the table fails here."""
import inspect
import pathlib
import re

import pytest
import sklearn.kernel_ridge
import sklearn.neighbors
import sklearn.neural_network
import sklearn.svm

from kernelnb.largescale import MLPClassifier, MLPRegressor
from kernelnb.neighbors import KNeighborsClassifier, KNeighborsRegressor
from kernelnb.ridge import KernelRidge
from kernelnb.svm import SVC, SVR

PAIRS = {
    "SVC": (SVC, sklearn.svm.SVC),
    "SVR": (SVR, sklearn.svm.SVR),
    "KernelRidge": (KernelRidge, sklearn.kernel_ridge.KernelRidge),
    "KNeighborsClassifier": (KNeighborsClassifier, sklearn.neighbors.KNeighborsClassifier),
    "KNeighborsRegressor": (KNeighborsRegressor, sklearn.neighbors.KNeighborsRegressor),
    "MLPClassifier": (MLPClassifier, sklearn.neural_network.MLPClassifier),
    "MLPRegressor": (MLPRegressor, sklearn.neural_network.MLPRegressor),
}
PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "scikit-learn.md"


def _defaults(cls):
    return {n: p.default for n, p in inspect.signature(cls).parameters.items()}


def _same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


def _listed():
    rows = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*(\w+)\s*\|\s*(\w+)\s*\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|\s*(.+?)\s*\|$",
                     line)
        if m and m.group(1) in PAIRS:
            rows[(m.group(1), m.group(2))] = (m.group(3), m.group(4), m.group(5))
    return rows


def test_the_table_lists_exactly_the_defaults_that_differ():
    differ = {}
    for name, (ours, theirs) in PAIRS.items():
        a, b = _defaults(ours), _defaults(theirs)
        for param in sorted(set(a) & set(b)):
            if not _same(a[param], b[param]):
                differ[(name, param)] = (repr(a[param]), repr(b[param]))
    listed = _listed()
    assert set(listed) == set(differ), (sorted(set(differ) - set(listed)),
                                        sorted(set(listed) - set(differ)))
    for key, (ours, theirs) in differ.items():
        assert listed[key][:2] == (ours, theirs), (key, listed[key][:2], (ours, theirs))
        assert len(listed[key][2]) >= 10, f"{key}: the reason is missing"


@pytest.mark.parametrize("name", ["SVC", "SVR", "KernelRidge"])
def test_the_kernel_width_is_scaled_to_the_data_by_default(name):
    assert _defaults(PAIRS[name][0])["sigma"] == "scale"
    assert _defaults(PAIRS[name][1])["gamma"] == ("scale" if name != "KernelRidge" else None)
