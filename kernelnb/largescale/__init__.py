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
from .moe import MixtureOfExpertsClassifier, MixtureOfExpertsRegressor  # noqa: E402

__all__ += ["MixtureOfExpertsClassifier", "MixtureOfExpertsRegressor"]
# --- end issue15 ch7 ---
