"""Dashboards of kernelnb: one class per dashboard (widgets, ``go.FigureWidget``s and a pure
``update(**params)``), built on :class:`Dashboard` and the figures of :mod:`kernelnb.viz`.

The notebooks of ``dashboards/`` only build one and display it, e.g.
``SVMPlayground().widget``. The gallery's registry is :mod:`kernelnb.app.gallery`.

Each name is imported from its module when first used (``from kernelnb.app import
SVMPlayground`` loads the SVM playground only, not the learning curves' estimators nor the
model-selection machinery), so that a dashboard's kernel starts with what that dashboard needs.
"""
import importlib

from . import _coldstart

_coldstart.install()          # plotly's widgets without nbformat/jsonschema (see _coldstart)

#: public name -> submodule that defines it
_WHERE = {
    "Dashboard": "_base",
    "SVMPlayground": "svm_playground",
    "MarginLosses": "margin_losses",
    "LearningCurves": "learning_curves",
    "CurveEstimator": "learning_curves",
    "ESTIMATORS": "learning_curves",
    "register_estimator": "learning_curves",
    "learning_curve_data": "learning_curves",
    "KMPPlayground": "kmp_playground",
    "LocalMethodsPlayground": "local_methods",
    "DensityExplorer": "local_methods",
    "BoundsExplorer": "bounds_explorer",
    "FeatureSelection": "feature_selection",
}

__all__ = ["Dashboard", "SVMPlayground", "MarginLosses", "LearningCurves", "KMPPlayground",
           "LocalMethodsPlayground", "DensityExplorer", "BoundsExplorer", "FeatureSelection",
           "CurveEstimator",
           "ESTIMATORS", "register_estimator", "learning_curve_data"]


def __getattr__(name):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value          # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
