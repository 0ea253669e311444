"""Learning with unlabeled data (Chapelle's thesis, chapters 7 and 8): cluster kernels and
other kernels built from unlabeled points, reweighting and vicinal risk on unlabeled points,
transduction (TSVM, transductive ridge regression), and active learning.

Convention: the unlabeled points are an explicit argument, ``fit(X, y, X_unlabeled=...)``
(not a label value such as scikit-learn's -1, which is a class label of the binary problems
here); transductive estimators label the points they were given.

The thesis's experiments on these estimators are in :mod:`kernelnb.reproductions.chapelle`."""
from .active import STRATEGIES, ActiveLearner, incremental_span_update, platt_fit
from .cluster_kernel import (TRANSFER_FUNCTIONS, ClusterKernel, ClusterKernelSVC,
                             MarginalizedKernel, RandomWalkKernel, cutoff_span_curve,
                             transfer_function)
from .graph_kernels import ShortestPathKernel, SpectralKernel
from .invariance import UnlabeledInvariantSVC
from .low_density import LowDensitySVC
from .reweighting import (ReweightedParzenClassifier, ReweightedSVC, UnlabeledVicinalClassifier,
                          fit_weights, likelihood_sigma)
from .transduction import (TransductiveLinearDiscriminant, TransductiveRidge, TransductiveSVC,
                           loo_matrix, transductive_labels)

__all__ = [
    # kernels from unlabeled points
    "ClusterKernel", "ClusterKernelSVC", "RandomWalkKernel", "MarginalizedKernel",
    "transfer_function", "cutoff_span_curve", "TRANSFER_FUNCTIONS", "ShortestPathKernel",
    "SpectralKernel",
    # reweighting and vicinal risk on unlabeled points
    "ReweightedParzenClassifier", "ReweightedSVC", "UnlabeledVicinalClassifier", "fit_weights",
    "likelihood_sigma",
    # transduction
    "TransductiveRidge", "TransductiveLinearDiscriminant", "TransductiveSVC", "loo_matrix",
    "transductive_labels",
    # a boundary in low density, invariances from unlabeled points
    "LowDensitySVC", "UnlabeledInvariantSVC",
    # active learning
    "ActiveLearner", "STRATEGIES", "incremental_span_update", "platt_fit",
]
