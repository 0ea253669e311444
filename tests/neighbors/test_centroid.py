"""The kernel centroid classifier (Vincent's thesis §5.3.4) against explicit feature maps and
scikit-learn's NearestCentroid."""
import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.neighbors import NearestCentroid

from kernelnb.neighbors import KernelCentroidClassifier


def _blobs(n=120, centers=3, seed=0):
    return make_blobs(n_samples=n, centers=centers, n_features=2, cluster_std=2.0,
                      random_state=seed)


def test_linear_kernel_is_the_nearest_class_mean():
    X, y = _blobs()
    Xt, _ = _blobs(n=60, seed=1)
    clf = KernelCentroidClassifier(kernel="linear").fit(X, y)
    ref = NearestCentroid().fit(X, y)
    np.testing.assert_array_equal(clf.predict(Xt), ref.predict(Xt))
    means = np.array([X[y == c].mean(axis=0) for c in clf.classes_])
    D = ((Xt[:, None, :] - means[None]) ** 2).sum(-1)
    # the kernel form subtracts O(||x||^2) terms: agreement to rounding of those
    np.testing.assert_allclose(clf.centroid_distances(Xt), D, rtol=1e-10, atol=1e-10)


def _phi_poly2(X):
    """The explicit feature map of (1 + x.z)^2 in two dimensions."""
    x1, x2 = X[:, 0], X[:, 1]
    r2 = np.sqrt(2.0)
    return np.column_stack([np.ones_like(x1), r2 * x1, r2 * x2, x1 ** 2, x2 ** 2, r2 * x1 * x2])


def test_polynomial_kernel_against_its_explicit_feature_map():
    X, y = _blobs(centers=2)
    Xt, _ = _blobs(n=40, seed=2)
    clf = KernelCentroidClassifier(kernel="poly", degree=2, coef0=1.0).fit(X, y)
    P, Pt = _phi_poly2(X), _phi_poly2(Xt)
    K = clf.kernel_(X)
    # the map is right (to rounding of the entries, where 1 + x.z cancels near 0)
    np.testing.assert_allclose(P @ P.T, K, rtol=1e-12, atol=1e-13 * np.abs(K).max())
    cent = np.array([P[y == c].mean(axis=0) for c in clf.classes_])
    D = ((Pt[:, None, :] - cent[None]) ** 2).sum(-1)
    np.testing.assert_allclose(clf.centroid_distances(Xt), D, rtol=1e-9, atol=1e-9 * D.max())
    np.testing.assert_allclose(clf.centroid_sqnorms_, (cent ** 2).sum(1), rtol=1e-12)
    np.testing.assert_array_equal(clf.predict(Xt), clf.classes_[D.argmin(1)])
    np.testing.assert_allclose(clf.decision_function(Xt), D[:, 0] - D[:, 1], atol=1e-9 * D.max())


def test_rbf_distances_against_the_full_gram_formula():
    X, y = _blobs(centers=4)
    Xt, _ = _blobs(n=30, seed=3)
    sigma = 1.5
    clf = KernelCentroidClassifier(sigma=sigma).fit(X, y)
    g = 1.0 / (2 * sigma ** 2)
    D = np.empty((Xt.shape[0], 4))
    for c in range(4):
        Xc = X[y == c]
        D[:, c] = (1.0 - 2.0 * rbf_kernel(Xt, Xc, gamma=g).mean(1)
                   + rbf_kernel(Xc, Xc, gamma=g).mean())
    np.testing.assert_allclose(clf.centroid_distances(Xt), D, atol=1e-12)
    assert clf.decision_function(Xt).shape == (30, 4)
    np.testing.assert_array_equal(clf.predict(Xt), D.argmin(1))


def test_one_class_is_refused():
    X, _ = _blobs(n=20)
    with pytest.raises(ValueError, match="at least two classes"):
        KernelCentroidClassifier().fit(X, np.zeros(20))
