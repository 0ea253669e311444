"""KMP dictionaries of several widths and of oriented (Manifold-Parzen) Gaussians."""
import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.metrics.pairwise import rbf_kernel

from kernelnb.kmp import KMPClassifier, KMPRegressor
from kernelnb.neighbors import ManifoldParzen


def _moons(n=80, seed=0):
    return make_moons(n_samples=n, noise=0.25, random_state=seed)


def test_widths_dictionary_is_every_width_of_every_point():
    X, y = _moons()
    m = KMPClassifier(n_basis=6, sigma=0.5, dictionary="widths",
                      width_factors=(0.5, 2.0)).fit(X, y)
    A = m.atoms(X[:7])
    ref = np.hstack([rbf_kernel(X[:7], X, gamma=1 / (2 * s ** 2)) for s in (0.25, 1.0)])
    np.testing.assert_allclose(A, ref, atol=1e-12)
    # prediction is the expansion on the chosen atoms, with their own widths
    f = m.intercept_[0] + sum(c * rbf_kernel(X[:9], sv[None], gamma=1 / (2 * s ** 2))[:, 0]
                              for c, sv, s in zip(m.coef_[0], m.support_vectors_, m.atom_sigma_))
    np.testing.assert_allclose(m.decision_function(X[:9]), f, atol=1e-10)


def test_one_width_is_the_kernel_dictionary():
    X, y = _moons(seed=1)
    a = KMPClassifier(n_basis=8, sigma=0.6).fit(X, y)
    b = KMPClassifier(n_basis=8, sigma=0.6, dictionary="widths", width_factors=[1.0]).fit(X, y)
    assert a.support_.tolist() == b.support_.tolist()
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-10)


def test_oriented_atoms_use_the_manifold_parzen_covariances():
    X, y = _moons(seed=2)
    m = KMPClassifier(n_basis=5, sigma=0.3, dictionary="oriented", n_components=1,
                      n_neighbors=6).fit(X, y)
    mp = ManifoldParzen(n_components=1, n_neighbors=6, sigma=0.3).fit(X)
    A = m.atoms(X[:5])
    for i in (0, 17, 79):
        V, lam = mp.components_[i], mp.variances_[i]
        C = 0.09 * np.eye(2) + (V.T * (lam - 0.09)) @ V     # the explicit local covariance
        D = X[:5] - X[i]
        ref = np.exp(-0.5 * np.einsum("mi,ij,mj->m", D, np.linalg.inv(C), D))
        np.testing.assert_allclose(A[:, i], ref, rtol=1e-10)
    # an atom's value at its own centre is 1 and the model reproduces its expansion
    np.testing.assert_allclose(np.diag(m.atoms(X[:5])[:, :5]), 1.0)
    f = m.atoms(X) @ np.bincount(m.support_, m.coef_[0], minlength=80) + m.intercept_[0]
    np.testing.assert_allclose(m.decision_function(X), f, atol=1e-10)


def test_oriented_without_directions_is_the_gaussian_kernel():
    X, y = _moons(seed=3)
    a = KMPRegressor(n_basis=7, sigma=0.4).fit(X, y.astype(float))
    b = KMPRegressor(n_basis=7, sigma=0.4, dictionary="oriented", n_components=0).fit(X, y * 1.0)
    assert a.support_.tolist() == b.support_.tolist()
    np.testing.assert_allclose(a.predict(X), b.predict(X), atol=1e-10)


def test_dictionary_errors_name_the_parameter():
    X, y = _moons(20)
    with pytest.raises(ValueError, match="kernel='rbf'"):
        KMPClassifier(dictionary="widths", kernel="linear").fit(X, y)
    with pytest.raises(ValueError, match="width_factors"):
        KMPClassifier(dictionary="widths", width_factors=[1.0, -2.0]).fit(X, y)
    with pytest.raises(ValueError, match="dictionary"):
        KMPClassifier(dictionary="spline").fit(X, y)
    with pytest.raises(ValueError, match="n_basis=50 is larger"):
        KMPClassifier(n_basis=50, dictionary="widths", width_factors=[1.0], bias=False).fit(X, y)
