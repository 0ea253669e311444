"""Learning with unlabeled data (Chapelle's thesis, chapters 7 and 8): cluster kernels and
other kernels built from unlabeled points, reweighting and vicinal risk on unlabeled points,
transduction (TSVM, transductive ridge regression), and active learning.

Convention: the unlabeled points are an explicit argument, ``fit(X, y, X_unlabeled=...)``
(not a label value such as scikit-learn's -1, which is a class label of the binary problems
here); transductive estimators label the points they were given."""
__all__ = []

# --- cluster kernels ---
from ._cluster_tables import (PUBLISHED_USPS, cluster_kernel_speed,  # noqa: E402
                              digits_cluster_experiment, marginalized_toy)
from .cluster_kernel import (TRANSFER_FUNCTIONS, ClusterKernel, ClusterKernelSVC,  # noqa: E402
                             MarginalizedKernel, RandomWalkKernel, cutoff_span_curve,
                             transfer_function)

__all__ += ["ClusterKernel", "ClusterKernelSVC", "RandomWalkKernel", "MarginalizedKernel",
            "transfer_function", "cutoff_span_curve", "TRANSFER_FUNCTIONS",
            "digits_cluster_experiment", "marginalized_toy", "cluster_kernel_speed",
            "PUBLISHED_USPS"]
# --- end cluster kernels ---

# --- transduction and reweighting ---
from .reweighting import (ReweightedParzenClassifier, ReweightedSVC,  # noqa: E402
                          UnlabeledVicinalClassifier, fit_weights, likelihood_sigma,
                          reweighting_toy, vrm_unlabeled_toy)
from .transduction import (TransductiveLinearDiscriminant, TransductiveRidge,  # noqa: E402
                           TransductiveSVC, boston_transduction, loo_matrix,
                           transductive_labels, uci_transduction)

__all__ += ["ReweightedParzenClassifier", "ReweightedSVC", "UnlabeledVicinalClassifier",
            "fit_weights", "likelihood_sigma", "TransductiveLinearDiscriminant",
            "TransductiveRidge", "TransductiveSVC", "loo_matrix", "transductive_labels",
            # the reproductions' protocols (thesis 7.2 and 7.6), as the other sections export
            "reweighting_toy", "vrm_unlabeled_toy", "boston_transduction", "uci_transduction"]
# --- end transduction and reweighting ---

# --- active learning ---
from ._active_tables import (PUBLISHED_CLAIMS, majority_toy_experiment,  # noqa: E402
                             parzen_toy_experiment, span_update_speed)
from .active import (STRATEGIES, ActiveLearner, incremental_span_update,  # noqa: E402
                     platt_fit)

__all__ += ["ActiveLearner", "STRATEGIES", "incremental_span_update", "platt_fit",
            "parzen_toy_experiment", "majority_toy_experiment", "span_update_speed",
            "PUBLISHED_CLAIMS"]
# --- end active learning ---
