"""Reference computations for the SVM tests (independent of the solver under test)."""
import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel


def kernel_matrix(model, X, Y=None):
    """Float64 kernel matrix with scikit-learn's pairwise functions and the model's parameters."""
    Y = X if Y is None else Y
    if model.kernel == "rbf":
        s = 1.0 if model.scales is None else np.asarray(model.scales)
        return rbf_kernel(X * s, Y * s, gamma=1.0 / (2.0 * model.sigma_ ** 2))
    if model.kernel == "linear":
        return linear_kernel(X, Y)
    if model.kernel == "poly":
        return polynomial_kernel(X, Y, degree=model.degree, gamma=1.0, coef0=model.coef0)
    raise AssertionError(model.kernel)


def sklearn_params(model):
    """scikit-learn SVC/SVR keyword arguments equivalent to a fitted kernelnb model."""
    kw = dict(kernel=model.kernel, C=model.C, tol=model.tol, cache_size=200)
    if model.kernel == "rbf":
        kw["gamma"] = 1.0 / (2.0 * model.sigma_ ** 2)
    elif model.kernel == "poly":
        kw.update(gamma=1.0, degree=model.degree, coef0=model.coef0)
    return kw


def svc_dual_objective(coef, K):
    """1/2 c'Kc - sum |c| for coefficients c_i = y_i alpha_i of one binary problem."""
    return 0.5 * coef @ K @ coef - np.abs(coef).sum()


def pair_coefficients(dual_coef, support, n_support, classes_a_b):
    """Indices and coefficients of one one-vs-one problem in LIBSVM's dual_coef_ layout."""
    a, b = classes_a_b
    starts = np.concatenate([[0], np.cumsum(n_support)])
    blk_a = np.arange(starts[a], starts[a + 1])
    blk_b = np.arange(starts[b], starts[b + 1])
    coef = np.concatenate([dual_coef[b - 1, blk_a], dual_coef[a, blk_b]])
    idx = np.concatenate([support[blk_a], support[blk_b]])
    keep = coef != 0
    return idx[keep], coef[keep]


def assert_kkt(model, X, y, tol_factor=2.0):
    """KKT conditions of a binary L1 soft-margin solution, recomputed in float64 from its duals."""
    K = kernel_matrix(model, X)
    coef = np.zeros(X.shape[0])
    coef[model.support_] = model.dual_coef_[0]
    yy = np.where(y == model.classes_[1], 1.0, -1.0)
    alpha = yy * coef
    C = model.C
    assert np.all(alpha >= -1e-12), "alpha must be non-negative"
    assert np.all(alpha <= C * (1 + 1e-12)), "alpha must be at most C"
    assert abs(yy @ alpha) <= 1e-8 * max(1.0, C * X.shape[0]), "sum y_i alpha_i must vanish"
    f = K @ coef + model.intercept_[0]
    margin = yy * f
    d = tol_factor * model.tol
    at_zero = alpha <= 1e-12
    at_c = alpha >= C * (1 - 1e-12)
    free = ~at_zero & ~at_c
    assert np.all(margin[at_zero] >= 1 - d), "alpha = 0 needs y f(x) >= 1"
    assert np.all(margin[at_c] <= 1 + d), "alpha = C needs y f(x) <= 1"
    assert np.all(np.abs(margin[free] - 1) <= d), "free alpha needs y f(x) = 1"


@pytest.fixture(scope="session")
def fashion_subset():
    """2000 training and 1000 test images of Fashion-MNIST (10 classes), where the loader finds
    them (KERNELNB_DATA, then ~/.cache/kernelnb)."""
    from kernelnb.datasets import load_fashion_mnist
    from tests._data import NO_FASHION_MNIST

    try:
        X, y = load_fashion_mnist("train", n_samples=2000, random_state=0)
        Xt, yt = load_fashion_mnist("test", n_samples=1000, random_state=0)
    except FileNotFoundError:
        pytest.skip(NO_FASHION_MNIST)
    return X, y, Xt, yt
