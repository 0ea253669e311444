"""Dashboards of kernelnb: one class per dashboard (widgets, ``go.FigureWidget``s and a pure
``update(**params)``), built on :class:`Dashboard` and the figures of :mod:`kernelnb.lab.viz`.

The notebooks of ``dashboards/`` only build one and display it, e.g. ``SVMPlayground().widget``.

:data:`REGISTRY` is the list of the dashboards, written out: the gallery
(:mod:`kernelnb.lab.server.gallery`), the server, the book and the tests read it, and its order is
the gallery's. :data:`EXPORTS` names the module of every other public name. Each name is imported
from its module when first used (``from kernelnb.lab.app import SVMPlayground`` loads the SVM
playground only, not the learning curves' estimators nor the model-selection machinery), so that
a dashboard's kernel starts with what that dashboard needs, and listing the dashboards imports
none of them.
"""
import importlib

#: The dashboards, in the gallery's order: (module of this package, class name).
REGISTRY = (
    ("svm_playground", "SVMPlayground"),
    ("margin_losses", "MarginLosses"),
    ("margin_explorer", "MarginExplorer"),
    ("vicinal_risk", "VicinalRisk"),
    ("semi_supervised", "SemiSupervisedExplorer"),
    ("learning_curves", "LearningCurves"),
    ("kmp_playground", "KMPPlayground"),
    ("local_methods", "LocalMethodsPlayground"),
    ("local_methods", "DensityExplorer"),
    ("bounds_explorer", "BoundsExplorer"),
    ("feature_selection", "FeatureSelection"),
    ("fisher_kernel", "FisherKernelExplorer"),
    ("data_cleaning", "DataCleaning"),
    ("active_learning", "ActiveLearning"),
    ("regression_selection", "RegressionSelectionExplorer"),
    ("invariance_explorer", "InvarianceExplorer"),
)

#: The package's other public names: {name: module that defines it}.
EXPORTS = {
    "Dashboard": "_base",
    "CURVES": "bounds_explorer", "UCI_SETS": "bounds_explorer", "memorising": "bounds_explorer",
    "FEATURE_DATASETS": "feature_selection",
    "EXPLORER_METHODS": "invariance_explorer", "INVARIANCE_VALUES": "invariance_explorer",
    "RULE_OF_THUMB": "invariance_explorer", "rule_of_thumb": "invariance_explorer",
    "tangent_arrows": "invariance_explorer",
    "far_cluster_data": "kmp_playground",
    "CurveEstimator": "learning_curves", "ESTIMATORS": "learning_curves",
    "register_estimator": "learning_curves", "learning_curve_data": "learning_curves",
    "learning_curve_steps": "learning_curves", "DATASETS": "learning_curves",
    "training_sizes": "learning_curves",
    "MARGIN_MODELS": "margin_explorer",
    "FIT_LOSSES": "margin_losses",
}

_WHERE = {**{name: module for module, name in REGISTRY}, **EXPORTS}

__all__ = ["REGISTRY", "EXPORTS", *_WHERE]


def __getattr__(name):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value          # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE))
