"""Model selection for SVMs: leave-one-out estimates and bounds, gradient tuning of kernel
parameters and scaling factors, feature selection (Chapelle's thesis, chapters 3-5), and the
choice of a series' dimension for small-sample regression (chapter 9).

The thesis's experiments on these tools are in :mod:`kernelnb.reproductions.chapelle`."""
from ._estimates import (ESTIMATE_NAMES, LeaveOneOut, estimate_all, jaakkola_haussler,
                         loo_error, opper_winther, radius_margin, radius_squared,
                         radius_squared_from_kernel, span_estimate, span_values, sv_fraction,
                         training_error, validation_error, wahba, xi_alpha)
from ._features import (SVMRFE, ForwardSpanSelector, ScalingSelector, filter_scores, rfe_scores,
                        span_criterion)
from ._fisher import FisherKernelSVC, gaussian_mixture_fisher_scores
from ._gradient import criterion_and_gradient, full_dual, sphere_radius2
from ._regression import (REGRESSION_CRITERIA, SeriesRegressor, basis_matrix,
                          regression_risk_estimates)
from ._tables import bounds_table
from ._tuner import GradientTuner

__all__ = [
    "GradientTuner", "ScalingSelector", "SVMRFE", "ForwardSpanSelector", "SeriesRegressor",
    "LeaveOneOut", "loo_error", "validation_error", "training_error", "sv_fraction",
    "jaakkola_haussler", "opper_winther", "radius_margin", "radius_squared",
    "radius_squared_from_kernel", "span_values", "span_estimate", "xi_alpha", "wahba", "estimate_all",
    "ESTIMATE_NAMES", "bounds_table", "criterion_and_gradient", "full_dual", "sphere_radius2",
    "filter_scores", "rfe_scores", "span_criterion", "REGRESSION_CRITERIA", "basis_matrix",
    "regression_risk_estimates", "FisherKernelSVC", "gaussian_mixture_fisher_scores",
]
