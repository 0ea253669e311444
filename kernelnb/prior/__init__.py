"""Prior knowledge in the kernel (Chapelle's thesis, chapters 2, 5 and 6): vicinal risk
minimisation, the kernel PCA map, invariant SVMs, and data cleaning.

The thesis's experiments on these estimators are in :mod:`kernelnb.reproductions.chapelle`."""
from .cleaning import (CLEANING_METHODS, grad_c_objective, rank_suspects, suspect_rank,
                       suspicion_scores)
from .invariance import (TRANSFORMATIONS, InvariantKPCASVC, InvariantSVC, LinearInvariantSVC,
                         VirtualSVC, invariant_linear_map, kernel_input_derivative,
                         kernel_tangent_gram, scale_free_invariance, tangent_vectors,
                         transform_points)
from .kpca import KernelPCAMap
from .vicinal import (WIDTH_RULES, EllipsoidalVicinalSVC, VicinalRiskClassifier, VicinalSVC,
                      input_margins, vicinal_margins, vicinity_widths)


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
]
