"""The public estimators of kernelnb, found by walking the package (not a hand-written list),
and the small, fast constructor arguments the common tests build them with."""
import importlib
import inspect
import pkgutil

from sklearn.base import BaseEstimator

import kernelnb
from kernelnb.largescale import GlobalGater

# Modules without estimators whose import pulls in the notebook server or the widgets.
# the lab defines no estimator (and needs the lab extra to import)
_NOT_ESTIMATOR_MODULES = ("kernelnb.lab",)


def _exported(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return [getattr(module, n) for n in names if hasattr(module, n)]


def public_estimator_classes():
    """Every class exported (``__all__``, or a public name) by a kernelnb module or subpackage
    that subclasses :class:`sklearn.base.BaseEstimator`, has a ``fit`` and is defined in
    kernelnb, by name (the mixtures' gaters are BaseEstimators for their parameters only, as
    scikit-learn's kernels are: no fit, not estimators)."""
    found = {}
    for info in pkgutil.walk_packages(kernelnb.__path__, "kernelnb."):
        name = info.name
        if name.startswith(_NOT_ESTIMATOR_MODULES) or any(
                part.startswith("_") for part in name.split(".")[1:]):
            continue
        module = importlib.import_module(name)
        for obj in _exported(module):
            if (inspect.isclass(obj) and issubclass(obj, BaseEstimator)
                    and callable(getattr(obj, "fit", None))
                    and obj.__module__.startswith("kernelnb.")
                    and not obj.__name__.startswith("_") and not inspect.isabstract(obj)):
                found[obj.__name__] = obj
    return dict(sorted(found.items()))


# Small, fast settings for the common checks and the bad-input matrix (every other parameter
# keeps its default).  A class missing here is built with its defaults.
FAST_PARAMS = {
    "CKNNClassifier": dict(n_neighbors=2),
    "HKNNClassifier": dict(n_neighbors=2),
    "KNeighborsClassifier": dict(n_neighbors=3),
    "KNeighborsRegressor": dict(n_neighbors=3),
    "ManifoldParzen": dict(n_components=1, n_neighbors=2, sigma=0.5),
    "ManifoldParzenClassifier": dict(n_components=1, n_neighbors=2, sigma=0.5),
    "KMPClassifier": dict(n_basis=5),
    "KMPRegressor": dict(n_basis=10, sigma="scale"),
    "KernelPCAMap": dict(sigma="scale"),
    "KernelRidgeCV": dict(alphas=[0.01, 1.0], sigmas=[0.5, 2.0]),
    "ScalingRidge": dict(alphas=[0.01, 1.0], sigmas=[0.5, 2.0], max_iter=3),
    "RegularizedKernelClassifier": dict(loss="logistic", max_iter=200),
    "MLPClassifier": dict(n_hidden=5, max_iter=20),
    "MLPRegressor": dict(n_hidden=5, max_iter=20),
    "MarginPerceptron": dict(max_iter=20),
    "SimpleMLP": dict(n_hidden=5, max_iter=20),
    "MixtureSVC": dict(gater=GlobalGater(epochs=2), n_experts=2, max_iter=2, client="serial",
                       random_state=0),
    "MixtureSVR": dict(n_experts=2, max_iter=2, client="serial", random_state=0),
    "MixtureOfExpertsClassifier": dict(n_experts=2, n_hidden=3, gater_n_hidden=3, max_iter=20),
    "MixtureOfExpertsRegressor": dict(n_experts=2, n_hidden=3, gater_n_hidden=3, max_iter=20),
    "GradientTuner": dict(max_iter=3),
    "ScalingSelector": dict(n_features_to_select=1, max_iter=3),
    "SVMRFE": dict(n_features_to_select=1),
    "ForwardSpanSelector": dict(n_features_to_select=1),
    "FisherKernelSVC": dict(max_iter=2),
    "LowDensitySVC": dict(max_iter=5),
    "ShortestPathKernel": dict(n_neighbors=3),
    "UnlabeledInvariantSVC": dict(n_neighbors=1),
    "VirtualSVC": dict(sigma="scale", transformation="rotate_2d"),
    "LinearInvariantSVC": dict(transformation="rotate_2d"),
    "InvariantSVC": dict(sigma="scale", transformation="rotate_2d"),
    "InvariantKPCASVC": dict(sigma="scale", transformation="rotate_2d"),
    "SVC": dict(sigma="scale"),
    "SVR": dict(sigma="scale"),
    "VicinalSVC": dict(sigma="scale"),
    "VicinalRiskClassifier": dict(max_iter=200),
    "EllipsoidalVicinalSVC": dict(sigma="scale", n_fixed_point=3),
    "TransductiveRidge": dict(alphas=[0.01, 1.0]),
    "TransductiveLinearDiscriminant": dict(alphas=[0.01, 1.0]),
    "TransductiveSVC": dict(sigma="scale", growth=10.0),
    "UnlabeledVicinalClassifier": dict(n_grid=200),
    # ActiveLearner's default SVC solves in float64 (the spans need it); say so explicitly
    "ActiveLearner": dict(estimator=importlib.import_module("kernelnb.svm").SVC(
        precision="float64", n_jobs=1)),
}


def make(cls, **extra):
    """An instance of ``cls`` with its fast settings (and ``extra``)."""
    return cls(**{**FAST_PARAMS.get(cls.__name__, {}), **extra})


ESTIMATOR_CLASSES = public_estimator_classes()
