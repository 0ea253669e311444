"""Model selection for SVMs: leave-one-out estimates and bounds, gradient tuning of kernel
parameters and scaling factors, feature selection (Chapelle's thesis, chapters 3-5)."""
# Each block below is owned by one module; add names to its block only.

# --- estimates (_estimates.py) ---
from ._estimates import (ESTIMATE_NAMES, LeaveOneOut, estimate_all,  # noqa: F401
                         jaakkola_haussler, loo_error, opper_winther, radius_margin,
                         radius_squared, radius_squared_from_kernel, span_estimate, span_values,
                         sv_fraction, training_error, validation_error, xi_alpha)
# --- estimates along a parameter (_tables.py) ---
from ._tables import bounds_table  # noqa: F401
# --- gradients and tuner (_gradient.py, _tuner.py) ---
from ._gradient import criterion_and_gradient, full_dual, sphere_radius2  # noqa: F401
from ._tuner import GradientTuner  # noqa: F401
# --- feature selection (_features.py) ---
from ._features import SVMRFE, ScalingSelector, filter_scores, rfe_scores  # noqa: F401
# --- small-sample regression model selection (_regression.py) ---
from ._regression import (REGRESSION_CRITERIA, SeriesRegressor, basis_matrix,  # noqa: F401
                          regression_risk_estimates)

__all__ = [
    # estimates
    "ESTIMATE_NAMES", "LeaveOneOut", "estimate_all", "jaakkola_haussler", "loo_error",
    "opper_winther", "radius_margin", "radius_squared", "radius_squared_from_kernel",
    "span_estimate", "span_values", "sv_fraction", "training_error", "validation_error",
    "xi_alpha",
    # estimates along a parameter
    "bounds_table",
    # gradients and tuner
    "criterion_and_gradient", "full_dual", "sphere_radius2", "GradientTuner",
    # feature selection
    "SVMRFE", "ScalingSelector", "filter_scores", "rfe_scores",
    # small-sample regression model selection
    "REGRESSION_CRITERIA", "SeriesRegressor", "basis_matrix", "regression_risk_estimates",
]
