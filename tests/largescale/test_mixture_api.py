"""MixtureSVC and MixtureSVR as scikit-learn meta-estimators: the expert is an estimator cloned
per expert, the gater a name or an object with its own parameters, and a live Dask client a
fit-time argument that clone, get_params and pickle never meet."""
import copy
import pickle

import numpy as np
import pytest
import sklearn.svm
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.utils._param_validation import InvalidParameterError

from kernelnb.largescale import (GlobalGater, LocalGater, MixtureSVC, MixtureSVR, UniformGater)
from kernelnb.largescale._dask import ThreadPoolClient
from kernelnb.svm import SVC, SVR


def xor(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1, -1)


class NoCopyClient(ThreadPoolClient):
    """A live client that must not be copied: deep-copying or pickling it fails the test."""

    def __deepcopy__(self, memo):
        raise AssertionError("a live client was deep-copied")

    def __reduce__(self):
        raise AssertionError("a live client was pickled")


def _holds(obj, target, seen=None):
    """Whether ``target`` is reachable from ``obj`` through attributes, lists and dicts."""
    seen = set() if seen is None else seen
    if obj is target:
        return True
    if id(obj) in seen or isinstance(obj, (str, bytes, int, float, np.ndarray)):
        return False
    seen.add(id(obj))
    if isinstance(obj, dict):
        return any(_holds(v, target, seen) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(_holds(v, target, seen) for v in obj)
    return hasattr(obj, "__dict__") and _holds(vars(obj), target, seen)


def test_clone_of_a_mixture_fitted_with_a_live_client_copies_no_client():
    X, y = xor(120)
    with NoCopyClient(2) as live:
        m = MixtureSVC(SVC(C=10, sigma=0.5), n_experts=3, max_iter=2,
                       random_state=0).fit(X, y, client=live)
        assert not _holds(m, live)          # the fitted model keeps no reference to it
        twin = clone(m)                     # would raise in NoCopyClient.__deepcopy__
        copied = copy.deepcopy(m)
        restored = pickle.loads(pickle.dumps(m))
    assert twin.get_params()["client"] is None
    np.testing.assert_array_equal(restored.predict(X), m.predict(X))
    np.testing.assert_array_equal(copied.predict(X), m.predict(X))
    # the same seed on the caller's thread gives the same model
    serial = clone(twin).set_params(client="serial").fit(X, y)
    np.testing.assert_array_equal(serial.predict(X), m.predict(X))


@pytest.mark.parametrize("live", [ThreadPoolClient(2), object()])
def test_a_live_client_is_not_a_constructor_parameter(live):
    X, y = xor(40)
    with pytest.raises(InvalidParameterError, match="'client' parameter of MixtureSVC"):
        MixtureSVC(client=live).fit(X, y)


def test_fit_time_client_must_be_a_client():
    X, y = xor(40)
    with pytest.raises(ValueError, match="client must be"):
        MixtureSVC(n_experts=2).fit(X, y, client=42)


def test_expert_is_cloned_per_expert_with_its_parameters():
    X, y = xor(120)
    expert = SVC(C=7.0, sigma="scale", tol=1e-4, n_jobs=3)
    m = MixtureSVC(expert, n_experts=3, max_iter=1, client="serial", random_state=0).fit(X, y)
    # the given estimator is not fitted nor changed
    assert not hasattr(expert, "support_")
    assert expert.get_params() == SVC(C=7.0, sigma="scale", tol=1e-4, n_jobs=3).get_params()
    assert len({id(e) for e in m.experts_}) == 3
    held = m.assignment_ < 0
    for k, e in enumerate(m.experts_):
        assert e is not expert and isinstance(e, SVC)
        assert e.C == 7.0 and e.tol == 1e-4 and e.n_jobs == 1 and e.sigma == m.sigma_
        # each expert is the SVC fitted on its points, with the one width of the training set
        own = m.assignment_ == k
        ref = SVC(C=7.0, sigma=m.sigma_, tol=1e-4).fit(X[own], np.where(y[own] > 0, 1, -1))
        np.testing.assert_allclose(e.decision_function(X), ref.decision_function(X), atol=1e-2)
    assert held.sum() == 0            # the refit gave every held-out point to an expert


def test_default_expert_is_the_svc_and_names_are_the_default_gaters():
    X, y = xor(100)
    assert MixtureSVC().get_params()["expert"] is None
    kw = dict(n_experts=2, max_iter=2, client="serial", random_state=0)
    a = MixtureSVC(**kw).fit(X, y)
    b = MixtureSVC(SVC(), gater=GlobalGater(), **kw).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert all(isinstance(e, SVC) for e in a.experts_)
    for name, obj in (("local", LocalGater()), ("uniform", UniformGater())):
        c = MixtureSVC(gater=name, **kw).fit(X, y)
        d = MixtureSVC(gater=obj, **kw).fit(X, y)
        np.testing.assert_array_equal(c.decision_function(X), d.decision_function(X))
    r = MixtureSVR(n_experts=2, max_iter=1, client="serial", random_state=0).fit(X, X[:, 0])
    assert all(isinstance(e, SVR) for e in r.experts_)


def test_nested_parameters_reach_the_expert_and_the_gater():
    m = MixtureSVC(SVC(C=2.0), gater=GlobalGater(epochs=4))
    params = m.get_params()
    assert params["expert__C"] == 2.0 and params["gater__epochs"] == 4
    m.set_params(expert__C=5.0, gater__n_hidden=7)
    assert m.expert.C == 5.0 and m.gater.n_hidden == 7
    X, y = xor(90)
    search = GridSearchCV(MixtureSVC(SVC(sigma=0.5), gater=GlobalGater(epochs=2), n_experts=2,
                                     max_iter=1, client="serial", random_state=0),
                          {"expert__C": [0.01, 10.0]}, cv=3).fit(X, y)
    assert search.best_params_ == {"expert__C": 10.0}


def test_gater_parameters_are_checked():
    X, y = xor(40)
    for gater, name in ((GlobalGater(epochs=-1), "epochs"), (LocalGater(reg_covar=0.0),
                                                             "reg_covar"),
                        (UniformGater(n_samples=0), "n_samples")):
        match = f"'{name}' parameter of {type(gater).__name__}"
        with pytest.raises(InvalidParameterError, match=match):
            MixtureSVC(gater=gater, client="serial").fit(X, y)


def test_local_gater_parameters_reach_the_densities():
    X, y = xor(120)
    m = MixtureSVC(SVC(C=10, sigma=0.5), gater=LocalGater(n_components=2, reg_covar=0.05),
                   n_experts=2, max_iter=1, client="serial", random_state=0).fit(X, y)
    assert all(d.n_components == 2 and d.reg_covar == 0.05 for d in m.densities_)


def test_a_scikit_learn_svc_as_expert_matches_kernelnb_experts():
    """The expert is any classifier with decision_function: scikit-learn's SVC (LIBSVM) with
    the same kernel, gamma = 1 / (2 sigma^2), gives the mixture of kernelnb's SVC experts, the
    uniform gater's partition being the same for a seed."""
    X, y = xor(200)
    sigma = 0.5
    kw = dict(gater="uniform", n_experts=3, client="serial", random_state=0)
    ours = MixtureSVC(SVC(C=10, sigma=sigma, tol=1e-6, precision="float64"), **kw).fit(X, y)
    theirs = MixtureSVC(sklearn.svm.SVC(C=10, gamma=1 / (2 * sigma ** 2), tol=1e-6),
                        **kw).fit(X, y)
    np.testing.assert_array_equal(ours.assignment_, theirs.assignment_)
    assert all(isinstance(e, sklearn.svm.SVC) for e in theirs.experts_)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               atol=1e-3)
    assert theirs.sigma_ is None                     # no Gaussian width of kernelnb's to share
