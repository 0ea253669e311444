"""Fit-time data (points without labels, validation data, tangents, a warm start) is keyword-only
in every estimator, and goes through a scikit-learn Pipeline by metadata routing: with
``transform_input`` the pipeline's steps in front transform it as they transform ``X``
(scikit-learn >= 1.6), so ``make_pipeline(StandardScaler(), est)`` fits what ``est`` fits on data
scaled by hand."""
import inspect

import numpy as np
import pytest
import sklearn
from sklearn.base import clone, is_classifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from tests._estimators import FAST_PARAMS, public_estimator_classes

#: the arguments of fit that carry data beside (X, y) and that a pipeline's steps should
#: transform as X (validation targets and warm starts pass unchanged)
FIT_DATA = ("X_unlabeled", "X_val", "y_val", "tangents", "alpha_init", "margins")
TRANSFORMED = ("X_unlabeled", "X_val")


def _fit_params(cls):
    params = inspect.signature(cls.fit).parameters
    return {n: p for n, p in params.items() if n in FIT_DATA}


CLASSES = {name: cls for name, cls in public_estimator_classes().items() if _fit_params(cls)}


def test_fit_time_data_is_found():
    # the test below must have estimators to check: the unlabeled family, the MLPs and margin
    # networks (validation data), the invariant SVMs (tangents), the SVMs (warm start)
    assert {"TransductiveSVC", "LowDensitySVC", "ActiveLearner", "InvariantSVC", "SVC",
            "MLPClassifier", "KMPClassifier", "MixtureSVC"} <= set(CLASSES), sorted(CLASSES)


@pytest.mark.parametrize("cls", CLASSES.values(), ids=CLASSES.keys())
def test_fit_time_data_is_keyword_only(cls):
    positional = [n for n, p in _fit_params(cls).items() if p.kind is not p.KEYWORD_ONLY]
    assert not positional, f"{cls.__name__}.fit takes {positional} by position"


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal([0.0, 0.0], 1.0, (20, 2)), rng.normal([3.0, 0.0], 1.0, (20, 2))]
    X = X * [100.0, 0.01] + [500.0, -3.0]             # scales a scaler changes
    y = np.r_[np.zeros(20, int), np.ones(20, int)]
    Xu = np.r_[rng.normal([0.0, 0.0], 1.0, (15, 2)), rng.normal([3.0, 0.0], 1.0, (15, 2))]
    Xu = Xu * [100.0, 0.01] + [500.0, -3.0]
    return X, y, Xu


UNLABELED = {n: c for n, c in CLASSES.items() if "X_unlabeled" in _fit_params(c)}


@pytest.mark.parametrize("cls", UNLABELED.values(), ids=UNLABELED.keys())
def test_points_without_labels_are_scaled_by_the_pipeline(cls):
    X, y, Xu = _data()
    est = cls(**FAST_PARAMS.get(cls.__name__, {}))
    if not is_classifier(est):
        y = X[:, 0] / 100.0
    scaler = StandardScaler().fit(X)
    by_hand = clone(est).fit(scaler.transform(X), y, X_unlabeled=scaler.transform(Xu))
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = Pipeline([("scale", StandardScaler()),
                         ("est", clone(est).set_fit_request(X_unlabeled=True))],
                        transform_input=["X_unlabeled"])
        pipe.fit(X, y, X_unlabeled=Xu)
        got = pipe.predict(X)
    np.testing.assert_array_equal(got, by_hand.predict(scaler.transform(X)))


VALIDATED = {n: c for n, c in CLASSES.items() if "X_val" in _fit_params(c)
             and "X_unlabeled" not in _fit_params(c)}


@pytest.mark.parametrize("cls", VALIDATED.values(), ids=VALIDATED.keys())
def test_validation_data_is_scaled_by_the_pipeline(cls):
    X, y, Xv = _data(1)
    yv = np.r_[np.zeros(15, int), np.ones(15, int)]
    params = FAST_PARAMS.get(cls.__name__, {})
    if "random_state" in cls().get_params():
        params = {**params, "random_state": 0}
    est = cls(**params)
    if not is_classifier(est):
        y, yv = X[:, 0] / 100.0, Xv[:, 0] / 100.0
    scaler = StandardScaler().fit(X)
    by_hand = clone(est).fit(scaler.transform(X), y, X_val=scaler.transform(Xv), y_val=yv)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = Pipeline([("scale", StandardScaler()),
                         ("est", clone(est).set_fit_request(X_val=True, y_val=True))],
                        transform_input=["X_val"])
        pipe.fit(X, y, X_val=Xv, y_val=yv)
        got = pipe.predict(X)
    np.testing.assert_allclose(got, by_hand.predict(scaler.transform(X)), rtol=1e-9, atol=1e-12)
