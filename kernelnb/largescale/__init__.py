"""Large scale learning (Collobert's thesis, chapters 3-8): MLPs and soft mixtures of experts
trained by stochastic gradient, the margin models and bounds of chapter 8, the study of the
Hessian's block structure of chapter 7, and hard mixtures of SVMs trained on Dask (chapter 6)."""
from ._dask import dask_client, dask_grid_search, local_client
from .hessian import HessianStudy, hessian_study
from .margin import (HingeMLPClassifier, KernelMarginPerceptron, MarginPerceptron, NilssonMLP,
                     OriginalPerceptron, SGDHingeClassifier, SimpleMLP, Theorem81Epochs,
                     linearly_separable, margin_bound_separable, margin_bound_updates,
                     maximal_margin, perceptron_update_bound, theorem_8_1_epochs)
from ._gater import GaterMLP, GlobalGater, LocalGater, UniformGater
from .mixture import MixtureSVC, MixtureSVR, balanced_assignment
from .mlp import MLPClassifier, MLPRegressor
from .moe import MixtureOfExpertsClassifier, MixtureOfExpertsRegressor

__all__ = [
    # estimators
    "MLPClassifier", "MLPRegressor", "MixtureOfExpertsClassifier", "MixtureOfExpertsRegressor",
    "MixtureSVC", "MixtureSVR", "OriginalPerceptron", "MarginPerceptron", "SGDHingeClassifier",
    "KernelMarginPerceptron", "SimpleMLP", "NilssonMLP", "HingeMLPClassifier",
    # the mixtures' pieces and Dask
    "GlobalGater", "LocalGater", "UniformGater", "GaterMLP", "balanced_assignment", "dask_client", "local_client", "dask_grid_search",
    # the theorems of chapter 8
    "Theorem81Epochs", "theorem_8_1_epochs", "margin_bound_separable", "perceptron_update_bound",
    "margin_bound_updates", "maximal_margin", "linearly_separable",
    # the Hessian study of chapter 7
    "hessian_study", "HessianStudy",
]
