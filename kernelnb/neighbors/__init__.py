"""Local kernel methods: K nearest neighbours, Parzen windows, Nadaraya-Watson, local hyperplane
and convex distance nearest neighbours (HKNN, CKNN), Manifold Parzen windows."""
from .knn import KNeighborsClassifier, KNeighborsRegressor
from .local_hyperplane import CKNNClassifier, HKNNClassifier
from .manifold_parzen import ManifoldParzen, ManifoldParzenClassifier
from .parzen import NadarayaWatsonRegressor, ParzenClassifier, ParzenDensity

__all__ = [
    "KNeighborsClassifier", "KNeighborsRegressor", "ParzenDensity", "ParzenClassifier",
    "NadarayaWatsonRegressor", "HKNNClassifier", "CKNNClassifier", "ManifoldParzen",
    "ManifoldParzenClassifier",
]

# --- issue15 local ---
from .local_density import LocalGaussianDensity  # noqa: E402

__all__ += ["LocalGaussianDensity"]
# --- end issue15 local ---
