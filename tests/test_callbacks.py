"""The package's one callback convention (kernelnb._callbacks)."""
import numpy as np
import pytest

from kernelnb._callbacks import progress_caller
from kernelnb.datasets import make_large_problem
from kernelnb.largescale import GlobalGater, MixtureSVC
from kernelnb.svm import SVC


def test_new_form_gets_the_dict_and_false_stops():
    seen = []
    call = progress_caller(lambda info: seen.append(info["iteration"]) or info["iteration"] < 1)
    assert call({"iteration": 0}) is False          # True returned: continue
    assert call({"iteration": 1}) is True           # False returned: stop
    assert seen == [0, 1]
    assert progress_caller(None)({"iteration": 3}) is False


def test_none_and_other_return_values_continue():
    for value in (None, 0, "", [], True):
        assert progress_caller(lambda info, v=value: v)({"iteration": 0}) is False


def test_a_positional_callback_gets_the_one_dict():
    got = []
    progress_caller(lambda *a: got.append(a))({"iteration": 1})
    assert got == [({"iteration": 1},)]


def test_mixture_callback():
    X, y = make_large_problem(800, n_features=4, random_state=0)
    kw = dict(expert=SVC(C=10.0, sigma=1.0), gater=GlobalGater(epochs=2), n_experts=3, max_iter=3,
              n_iter_no_change=None, client="serial", random_state=0)
    new = []
    a = MixtureSVC(**kw, callback=lambda info: new.append(info) or info["iteration"] < 1).fit(X, y)
    assert [i["iteration"] for i in new] == [0, 1] and a.n_iter_ == 2
    assert set(new[0]) >= {"iteration", "validation_error", "expert_sizes", "train_cost"}
    b = MixtureSVC(**kw, callback=lambda info: info["iteration"] < 1).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
