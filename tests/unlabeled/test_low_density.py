"""The low-density penalty (thesis 7.3): the objective's gradient against finite differences,
the start against the L2-margin SVM, and on two clusters with four labels the boundary moving
into the gap without the objective rising."""
import numpy as np
import pytest

from kernelnb.svm import SVC
from kernelnb.unlabeled import LowDensitySVC


def _clusters(n=40, seed=0):
    rng = np.random.RandomState(seed)
    X = np.vstack([rng.randn(n, 2) - [2.0, 0], rng.randn(n, 2) + [2.0, 0]])
    return X, np.repeat([0, 1], n)


@pytest.mark.parametrize("balance", [None, 0.2])
def test_objective_gradient_against_finite_differences(balance):
    rng = np.random.RandomState(1)
    X = rng.randn(15, 2)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)
    t = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    p = rng.randn(15 if balance is not None else 16) * 0.5
    args = (K, t, 5, 2.0, 0.7, 0.4, balance)
    _, g = LowDensitySVC.objective(p, *args)
    h = 1e-6
    fd = np.array([(LowDensitySVC.objective(p + h * e, *args)[0]
                    - LowDensitySVC.objective(p - h * e, *args)[0]) / (2 * h)
                   for e in np.eye(p.size)])
    # central differences of a C^1 function (the squared hinge has a kink in its 2nd derivative)
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6 * np.abs(fd).max())


def test_the_start_is_the_l2_svm_on_the_labeled_points():
    X, y = _clusters(20)
    lab = np.array([0, 1, 2, 20, 21, 22])
    unl = np.setdiff1d(np.arange(40), lab)
    m = LowDensitySVC(sigma=2.0, balance=False, max_iter=5).fit(X[lab], y[lab],
                                                                X_unlabeled=X[unl])
    ref = SVC(C=1.0, sigma=2.0, margin="l2", tol=1e-10, precision="float64").fit(X[lab], y[lab])
    f_start = m.kernel_(X, m._Xa) @ m.svm_coef_ + m.svm_intercept_
    np.testing.assert_allclose(f_start, ref.decision_function(X), atol=1e-6)
    assert np.all(m.svm_coef_[6:] == 0)
    # its objective, written out: 1/2 ||w||^2 + C/2 sum slack^2 + C_u sum exp(-d^2 / 2 s_u^2)
    K = m.kernel_(m._Xa)
    w2 = m.svm_coef_ @ K @ m.svm_coef_
    t = np.where(y[lab] == 1, 1.0, -1.0)
    slack = np.maximum(0, 1 - t * f_start[lab])
    d = f_start[unl] / np.sqrt(w2)
    J = 0.5 * w2 + 0.5 * slack @ slack + m.C_unlabeled_ * np.exp(-d ** 2 / (2 * 0.5 ** 2)).sum()
    assert m.objective_start_ == pytest.approx(J, rel=1e-9)
    assert m.C_unlabeled_ == pytest.approx(6 / 34)


def test_two_clusters_the_boundary_moves_into_the_gap():
    """Clusters at x = -2.5 and +2.5; labeled: the two leftmost points of each cluster, so that
    the SVM's boundary sits inside the left cluster's tail (about x = -1.35)."""
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(40, 2) * [0.7, 1] - [2.5, 0], rng.randn(40, 2) * [0.7, 1] + [2.5, 0]])
    y = np.repeat([0, 1], 40)
    lab = np.r_[np.argsort(X[:40, 0])[:2], 40 + np.argsort(X[40:, 0])[:2]]
    unl = np.setdiff1d(np.arange(80), lab)
    m = LowDensitySVC(sigma=2.0, max_iter=100).fit(X[lab], y[lab], X_unlabeled=X[unl])
    assert m.objective_ <= m.objective_start_
    assert m.penalty_ < m.penalty_start_
    f_svm = m.kernel_(X[unl], m._Xa) @ m.svm_coef_ + m.svm_intercept_
    svm_acc = np.mean((f_svm > 0) == (y[unl] == 1))
    assert np.mean(m.predict(X[unl]) == y[unl]) >= svm_acc
    # where the boundary crosses the x-axis: towards the gap's centre x = 0
    xs = np.linspace(-3, 3, 601)[:, None] * [1.0, 0.0]
    cross = xs[np.argmin(np.abs(m.decision_function(xs))), 0]
    cross_svm = xs[np.argmin(np.abs(m.kernel_(xs, m._Xa) @ m.svm_coef_ + m.svm_intercept_)), 0]
    assert cross_svm < -1.0 and abs(cross) < abs(cross_svm) - 0.5


def test_without_unlabeled_points_it_is_the_svm():
    X, y = _clusters(10)
    m = LowDensitySVC(sigma=2.0).fit(X, y)
    np.testing.assert_array_equal(m.coef_, m.svm_coef_)
    assert m.penalty_ == 0.0 and m.C_unlabeled_ == 0.0
    with pytest.raises(ValueError, match="two classes"):
        LowDensitySVC().fit(X, np.zeros(20))
