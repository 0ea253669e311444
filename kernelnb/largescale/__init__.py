"""Large scale learning (Collobert's thesis, chapters 5-8): MLPs trained by stochastic gradient,
the margin models of chapter 8, and mixtures of SVMs trained on Dask."""
__all__ = []

# --- D ---
from .margin import MarginPerceptron, SimpleMLP  # noqa: E402
from .mlp import MLPClassifier, MLPRegressor  # noqa: E402

__all__ += ["MLPClassifier", "MLPRegressor", "MarginPerceptron", "SimpleMLP"]
# --- end D ---

# --- E ---
from ._dask import dask_client, dask_grid_search, local_client  # noqa: E402
from .mixture import GaterMLP, MixtureSVC, balanced_assignment  # noqa: E402

__all__ += ["MixtureSVC", "GaterMLP", "balanced_assignment", "dask_grid_search", "dask_client",
            "local_client"]
# --- end E ---

# --- issue15 ch7 ---
from .hessian import HessianStudy, hessian_study  # noqa: E402
from .mixture import MixtureSVR  # noqa: E402
from .moe import MixtureOfExpertsClassifier, MixtureOfExpertsRegressor  # noqa: E402

__all__ += ["MixtureOfExpertsClassifier", "MixtureOfExpertsRegressor", "MixtureSVR",
            "hessian_study", "HessianStudy"]
# --- end issue15 ch7 ---

# --- issue15 ch8 ---
from .margin import (HingeMLPClassifier, KernelMarginPerceptron, NilssonMLP,  # noqa: E402
                     OriginalPerceptron, SGDHingeClassifier, Theorem81Epochs, margin_bound_separable,
                     linearly_separable, margin_bound_updates, maximal_margin,
                     perceptron_update_bound, theorem_8_1_epochs)

__all__ += ["OriginalPerceptron", "SGDHingeClassifier", "KernelMarginPerceptron",
            "HingeMLPClassifier", "NilssonMLP", "Theorem81Epochs", "theorem_8_1_epochs",
            "margin_bound_separable", "perceptron_update_bound", "margin_bound_updates",
            "maximal_margin", "linearly_separable"]
# --- end issue15 ch8 ---
