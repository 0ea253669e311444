"""Local kernel methods: K nearest neighbours, Parzen windows, Nadaraya-Watson, local hyperplane
and convex distance nearest neighbours (HKNN, CKNN), Manifold Parzen windows and the local
Gaussian density; the kernel centroid classifier."""
from .centroid import KernelCentroidClassifier
from .knn import KNeighborsClassifier, KNeighborsRegressor
from .local_density import LocalGaussianDensity
from .local_hyperplane import CKNNClassifier, HKNNClassifier
from .manifold_parzen import ManifoldParzen, ManifoldParzenClassifier
from .parzen import NadarayaWatsonRegressor, ParzenClassifier, ParzenDensity

__all__ = [
    "KNeighborsClassifier", "KNeighborsRegressor", "ParzenDensity", "ParzenClassifier",
    "NadarayaWatsonRegressor", "HKNNClassifier", "CKNNClassifier", "ManifoldParzen",
    "ManifoldParzenClassifier", "LocalGaussianDensity", "KernelCentroidClassifier",
]
