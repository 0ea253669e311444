"""The package's one callback convention (kernelnb._callbacks) and its legacy forms."""
import functools

import numpy as np
import pytest

from kernelnb._callbacks import progress_caller
from kernelnb.datasets import make_large_problem
from kernelnb.largescale import MixtureSVC


def test_new_form_gets_the_dict_and_false_stops():
    seen = []
    call = progress_caller(lambda info: seen.append(info["iteration"]) or info["iteration"] < 1,
                           "Est")
    assert call({"iteration": 0}) is False          # True returned: continue
    assert call({"iteration": 1}) is True           # False returned: stop
    assert seen == [0, 1]
    assert progress_caller(None, "Est")({"iteration": 3}) is False


def test_none_and_other_return_values_continue():
    for value in (None, 0, "", [], True):
        assert progress_caller(lambda info, v=value: v, "Est")({"iteration": 0}) is False


def test_legacy_positional_form_warns_and_gets_its_arguments():
    got = []
    with pytest.warns(FutureWarning, match=r"Est: a callback taking \(iteration, kkt_gap, "
                                           r"objective\) is the old form"):
        call = progress_caller(lambda it, gap, obj: got.append((it, gap, obj)), "Est",
                               legacy=("iteration", "kkt_gap", "objective"))
    call({"iteration": 5, "kkt_gap": 0.1, "objective": -3.0, "other": 1})
    assert got == [(5, 0.1, -3.0)]


def test_one_argument_or_unknown_signatures_use_the_new_form():
    got = []
    # *args, a partial with one free argument, a keyword default: all the new form
    progress_caller(lambda *a: got.append(a), "Est", legacy=("a", "b"))({"iteration": 1})
    progress_caller(functools.partial(lambda tag, info: got.append((tag, info["iteration"])), "t"),
                    "Est", legacy=("a", "b"))({"iteration": 2})
    progress_caller(lambda info, extra=None: got.append(info["iteration"]), "Est",
                    legacy=("a", "b"))({"iteration": 3})
    assert got == [({"iteration": 1},), ("t", 2), 3]


def test_mixture_callback_in_both_forms():
    X, y = make_large_problem(800, n_features=4, random_state=0)
    kw = dict(n_experts=3, max_iter=3, n_iter_no_change=None, C=10.0, sigma=1.0, gater_epochs=2,
              client="serial", random_state=0)
    new = []
    a = MixtureSVC(**kw, callback=lambda info: new.append(info) or info["iteration"] < 1).fit(X, y)
    assert [i["iteration"] for i in new] == [0, 1] and a.n_iter_ == 2
    assert set(new[0]) >= {"iteration", "validation_error", "expert_sizes", "train_cost"}
    old = []
    with pytest.warns(FutureWarning, match="old form"):
        b = MixtureSVC(**kw, callback=lambda it, info: old.append((it, info["validation_error"]))
                       or it < 1).fit(X, y)
    assert old == [(i["iteration"], i["validation_error"]) for i in new]
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
