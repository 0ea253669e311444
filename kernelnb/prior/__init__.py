"""Prior knowledge in the kernel (Chapelle's thesis, chapters 2, 5 and 6): vicinal risk
minimisation, the kernel PCA map, invariant SVMs, and data cleaning."""
from .cleaning import (CLEANING_METHODS, grad_c_objective, rank_suspects, suspect_rank,
                       suspicion_scores)
from .invariance import (TRANSFORMATIONS, InvariantKPCASVC, InvariantSVC, LinearInvariantSVC,
                         VirtualSVC, invariant_linear_map, kernel_input_derivative,
                         kernel_tangent_gram, scale_free_invariance, tangent_vectors,
                         transform_points)
from .kpca import KernelPCAMap
from .vicinal import (WIDTH_RULES, EllipsoidalVicinalSVC, VicinalRiskClassifier, VicinalSVC,
                      input_margins, vicinal_margins, vicinity_widths)

# The reproductions' protocols and published values, from the modules that move to
# kernelnb.reproductions (imported here until they have moved).
from ._invariance_tables import (PUBLISHED_TOY_TABLE_6_1, PUBLISHED_USPS_RATIO, TOY_METHODS,
                                 digit_tangents, digits_scaling_table, digits_timing_table,
                                 digits_translation_data, digits_translation_experiment,
                                 fashion_translation_data, make_rotation_toy, mean_and_sem,
                                 rotation_toy_experiment)
from ._vrm_table import PUBLISHED_VRM_TABLE, VRM_TABLE_METHODS, vrm_breast_cancer_table
from .cleaning import (PUBLISHED_FIG_5_5, PUBLISHED_REMOVAL_ERRORS, cleaning_metrics,
                       cleaning_toy_experiment, make_flipped_gaussians)
from .kpca import digits_kpca_curve, kpca_components_curve

__all__ = [
    # vicinal risk
    "VicinalSVC", "VicinalRiskClassifier", "EllipsoidalVicinalSVC", "vicinity_widths",
    "vicinal_margins", "input_margins", "WIDTH_RULES",
    # the kernel PCA map
    "KernelPCAMap",
    # invariances
    "VirtualSVC", "LinearInvariantSVC", "InvariantSVC", "InvariantKPCASVC", "tangent_vectors",
    "transform_points", "kernel_input_derivative", "kernel_tangent_gram",
    "invariant_linear_map", "scale_free_invariance", "TRANSFORMATIONS",
    # data cleaning
    "suspicion_scores", "rank_suspects", "suspect_rank", "grad_c_objective", "CLEANING_METHODS",
    # the moving reproductions (above)
    "PUBLISHED_VRM_TABLE", "VRM_TABLE_METHODS", "vrm_breast_cancer_table",
    "kpca_components_curve", "digits_kpca_curve",
    "PUBLISHED_TOY_TABLE_6_1", "PUBLISHED_USPS_RATIO", "TOY_METHODS", "digit_tangents",
    "digits_scaling_table", "digits_timing_table", "digits_translation_data",
    "digits_translation_experiment", "fashion_translation_data", "make_rotation_toy",
    "mean_and_sem", "rotation_toy_experiment",
    "PUBLISHED_FIG_5_5", "PUBLISHED_REMOVAL_ERRORS", "cleaning_metrics",
    "cleaning_toy_experiment", "make_flipped_gaussians",
]
