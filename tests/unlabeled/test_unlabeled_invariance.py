"""Invariances from unlabeled points (thesis 7.5.2): Sigma against the explicit feature space of
the degree-2 polynomial kernel, the neighbours against brute force, C_gamma against a direct
matrix square root, gamma = 0 against scikit-learn's linear SVC on the map."""
import numpy as np
import pytest
from scipy.linalg import sqrtm
from sklearn.svm import SVC as SkSVC

from kernelnb.unlabeled import UnlabeledInvariantSVC


def _phi(X):
    """Explicit feature map of (1 + x.z)^2 in two dimensions."""
    x1, x2 = X[:, 0], X[:, 1]
    r2 = np.sqrt(2.0)
    return np.column_stack([np.ones_like(x1), r2 * x1, r2 * x2, x1 ** 2, x2 ** 2, r2 * x1 * x2])


@pytest.fixture(scope="module")
def problem():
    rng = np.random.RandomState(0)
    X = rng.randn(60, 2)
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    lab = np.r_[np.flatnonzero(y == 0)[:4], np.flatnonzero(y == 1)[:4]]
    unl = np.setdiff1d(np.arange(60), lab)
    return X, y, lab, unl


def test_sigma_against_the_explicit_feature_space(problem):
    X, y, lab, unl = problem
    clf = UnlabeledInvariantSVC(kernel="poly", degree=2, coef0=1.0, n_neighbors=3,
                                invariance=0.5).fit(X[lab], y[lab], X_unlabeled=X[unl])
    d2 = ((X[lab][:, None] - X[unl][None]) ** 2).sum(-1)
    nn = np.argsort(d2, axis=1)[:, :3]
    np.testing.assert_array_equal(np.sort(clf.neighbors_, axis=1), np.sort(nn, axis=1))
    F, Fu = _phi(X[lab]), _phi(X[unl])
    D = (F[:, None, :] - Fu[nn]).reshape(-1, 6)
    sigma_phi = D.T @ D
    # psi is an orthonormal basis of the centred span of phi, which holds every difference:
    # Sigma in psi coordinates has the spectrum of Sigma in phi coordinates
    ev = np.sort(np.linalg.eigvalsh(clf.covariance_))[::-1]
    ev_phi = np.sort(np.linalg.eigvalsh(sigma_phi))[::-1]
    k = ev.shape[0]
    np.testing.assert_allclose(ev, ev_phi[:k], rtol=1e-7, atol=1e-9 * ev_phi[0])
    assert np.all(np.abs(ev_phi[k:]) < 1e-9 * ev_phi[0])
    # and the same in the map's own coordinates
    Psi = clf.kpca_.transform(np.vstack([X[lab], X[unl]]))
    Dpsi = (Psi[:8][:, None, :] - Psi[8:][nn]).reshape(-1, Psi.shape[1])
    np.testing.assert_allclose(clf.covariance_, Dpsi.T @ Dpsi, atol=1e-9 * ev_phi[0])


def test_c_gamma_is_the_square_root_of_the_regularised_sigma(problem):
    X, y, lab, unl = problem
    clf = UnlabeledInvariantSVC(kernel="rbf", sigma=1.0, invariance=0.3, scale_free=False,
                                n_neighbors=2).fit(X[lab], y[lab], X_unlabeled=X[unl])
    p = clf.covariance_.shape[0]
    C_gamma = sqrtm(0.7 * np.eye(p) + 0.3 * clf.covariance_).real
    np.testing.assert_allclose(clf.invariant_svc_.preprocessing_, np.linalg.inv(C_gamma),
                               atol=1e-8)
    assert clf.invariance_ == 0.3


def test_gamma_zero_is_the_linear_svm_on_the_map(problem):
    X, y, lab, unl = problem
    clf = UnlabeledInvariantSVC(kernel="rbf", sigma=1.0, invariance=0.0, C=10.0).fit(
        X[lab], y[lab], X_unlabeled=X[unl])
    Psi = clf.kpca_.transform(X[lab])
    ref = SkSVC(kernel="linear", C=10.0, tol=1e-8).fit(Psi, y[lab])
    # the invariant SVM's solver stops at a KKT gap of 1e-3 (its default tol)
    np.testing.assert_allclose(clf.decision_function(X[unl]),
                               ref.decision_function(clf.kpca_.transform(X[unl])), atol=2e-3)
    # without unlabeled points the neighbours are the other labeled points
    own = UnlabeledInvariantSVC(n_neighbors=1).fit(X[lab], y[lab])
    d2 = ((X[lab][:, None] - X[lab][None]) ** 2).sum(-1) + np.diag(np.full(8, np.inf))
    np.testing.assert_array_equal(own.neighbors_[:, 0], d2.argmin(1))
    with pytest.raises(ValueError, match="n_neighbors"):
        UnlabeledInvariantSVC(n_neighbors=100).fit(X[lab], y[lab], X_unlabeled=X[unl])
