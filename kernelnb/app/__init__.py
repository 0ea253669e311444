"""Dashboards of kernelnb: one class per dashboard (widgets, ``go.FigureWidget``s and a pure
``update(**params)``), built on :class:`Dashboard` and the figures of :mod:`kernelnb.viz`.

The notebooks of ``dashboards/`` only build one and display it, e.g.
``SVMPlayground().widget``. The gallery's registry is :mod:`kernelnb.app.gallery`.
"""
from ._base import Dashboard
from .bounds_explorer import BoundsExplorer
from .feature_selection import FeatureSelection
from .learning_curves import (CurveEstimator, ESTIMATORS, LearningCurves, learning_curve_data,
                              register_estimator)
from .kmp_playground import KMPPlayground
from .local_methods import DensityExplorer, LocalMethodsPlayground
from .margin_losses import MarginLosses
from .svm_playground import SVMPlayground

__all__ = ["Dashboard", "SVMPlayground", "MarginLosses", "LearningCurves", "KMPPlayground",
           "LocalMethodsPlayground", "DensityExplorer", "BoundsExplorer", "FeatureSelection",
           "CurveEstimator",
           "ESTIMATORS", "register_estimator", "learning_curve_data"]
