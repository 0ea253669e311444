"""Prior knowledge in the kernel (Chapelle's thesis, chapters 2, 5 and 6): vicinal risk
minimisation, the kernel PCA map, invariant SVMs, and data cleaning."""
__all__ = []

# --- vicinal risk ---
from .vicinal import (EllipsoidalVicinalSVC, VicinalRiskClassifier, VicinalSVC,  # noqa: E402
                      WIDTH_RULES, input_margins, vicinal_margins, vicinity_widths)
from ._vrm_table import (PUBLISHED_VRM_TABLE, VRM_TABLE_METHODS,  # noqa: E402
                         vrm_breast_cancer_table)

__all__ += ["VicinalSVC", "VicinalRiskClassifier", "EllipsoidalVicinalSVC", "vicinity_widths",
            "vicinal_margins", "input_margins", "WIDTH_RULES", "PUBLISHED_VRM_TABLE",
            "VRM_TABLE_METHODS", "vrm_breast_cancer_table"]
# --- end vicinal risk ---

# --- kernel PCA map ---
from .kpca import KernelPCAMap, digits_kpca_curve, kpca_components_curve  # noqa: E402

__all__ += ["KernelPCAMap", "kpca_components_curve", "digits_kpca_curve"]
# --- end kernel PCA map ---

# --- invariances ---
from .invariance import (INVARIANCES, InvariantKPCASVC, InvariantSVC,  # noqa: E402
                         LinearInvariantSVC, VirtualSVC, invariant_linear_map,
                         kernel_input_derivative, kernel_tangent_gram, scale_free_gamma,
                         tangent_vectors, transform_points)

__all__ += ["INVARIANCES", "InvariantKPCASVC", "InvariantSVC", "LinearInvariantSVC",
            "VirtualSVC", "invariant_linear_map", "kernel_input_derivative",
            "kernel_tangent_gram", "scale_free_gamma", "tangent_vectors", "transform_points"]
# --- end invariances ---

# --- the reproductions of chapter 6 (section 6.6) ---
from ._invariance_tables import (PUBLISHED_TOY_TABLE_6_1, PUBLISHED_USPS_RATIO,  # noqa: E402
                                 TOY_METHODS, digit_tangents, digits_scaling_table,
                                 digits_timing_table, digits_translation_data,
                                 digits_translation_experiment, fashion_translation_data,
                                 make_rotation_toy, mean_and_sem, rotation_toy_experiment)

__all__ += ["PUBLISHED_TOY_TABLE_6_1", "PUBLISHED_USPS_RATIO", "TOY_METHODS", "digit_tangents",
            "digits_scaling_table", "digits_timing_table", "digits_translation_data",
            "digits_translation_experiment", "fashion_translation_data", "make_rotation_toy",
            "mean_and_sem", "rotation_toy_experiment"]
# --- end reproductions of chapter 6 ---

# --- data cleaning ---
from .cleaning import (CLEANING_METHODS, PUBLISHED_FIG_5_5, PUBLISHED_REMOVAL_ERRORS,  # noqa: E402
                       cleaning_metrics, cleaning_toy_experiment, grad_c_objective,
                       make_flipped_gaussians, rank_suspects, suspect_rank, suspicion_scores)

__all__ += ["CLEANING_METHODS", "PUBLISHED_FIG_5_5", "PUBLISHED_REMOVAL_ERRORS",
            "cleaning_metrics", "cleaning_toy_experiment", "grad_c_objective",
            "make_flipped_gaussians", "rank_suspects", "suspect_rank", "suspicion_scores"]
# --- end data cleaning ---
