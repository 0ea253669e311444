"""RegularizedKernelClassifier against independent references: kernelnb's and scikit-learn's SVM
(hinge, squared hinge), scikit-learn's LogisticRegression (logistic loss, linear kernel)."""
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from kernelnb.datasets import load_sonar, make_moons
from kernelnb.regularized import RegularizedKernelClassifier as RKC
from kernelnb.svm import SVC


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(n_samples=120, noise=0.25, random_state=0)
    G = np.random.RandomState(1).uniform(-1.5, 2.5, (3000, 2))
    return X, y, G


@pytest.mark.parametrize("C", [0.3, 3.0])
def test_hinge_tends_to_the_svm(moons, C):
    X, y, G = moons
    r = RKC(loss="hinge", C=C, sigma=0.5, smoothing=1e-3).fit(X, y)
    ref = SkSVC(C=C, gamma=2.0, tol=1e-8).fit(X, y)  # LIBSVM: 1/2||f||^2 + C sum hinge
    assert r.converged_
    agree = np.mean(np.sign(r.decision_function(G)) == np.sign(ref.decision_function(G)))
    assert agree > 0.99
    # the primal value of our solution equals LIBSVM's optimal primal (= -dual objective)
    m = np.where(y == 1, 1.0, -1.0) * r.decision_function(X)
    K = r.kernel_(X)
    primal = 0.5 * r.dual_coef_ @ K @ r.dual_coef_ + C * np.maximum(0, 1 - m).sum()
    kn = SVC(C=C, sigma=0.5, tol=1e-6).fit(X, y)
    assert primal == pytest.approx(-kn.objective_, rel=5e-3)
    # and the documented objective is that primal divided by C n (smoothed hinge: within h/2)
    assert r.objective_ == pytest.approx(primal / (C * len(y)), abs=1e-3)


def test_squared_hinge_is_the_l2_svm_with_twice_C(moons):
    X, y, G = moons
    r = RKC(loss="squared_hinge", C=1.0, sigma=0.5).fit(X, y)
    l2 = SVC(C=2.0, sigma=0.5, margin="l2", tol=1e-6).fit(X, y)
    fr, fs = r.decision_function(G), l2.decision_function(G)
    assert np.mean(np.sign(fr) == np.sign(fs)) > 0.995
    np.testing.assert_allclose(fr, fs, atol=2e-2 * np.abs(fs).max())


def test_logistic_linear_is_sklearn_logistic_regression():
    X, y = load_sonar()
    X = StandardScaler().fit_transform(X)
    for C in (0.05, 1.0):
        r = RKC(loss="logistic", kernel="linear", C=C, tol=1e-10).fit(X, y)
        lr = LogisticRegression(C=C, tol=1e-10, max_iter=10000).fit(X, y)
        w = X.T @ r.dual_coef_
        np.testing.assert_allclose(w, lr.coef_[0], atol=2e-3 * np.abs(lr.coef_).max())
        assert r.intercept_ == pytest.approx(lr.intercept_[0], abs=2e-3)
        np.testing.assert_allclose(r.decision_function(X), lr.decision_function(X), atol=1e-2)
        assert np.array_equal(r.predict(X), lr.predict(X))


@pytest.mark.parametrize("loss", ["logitboost", "exponential", "1-tanh", "tanh", "squared"])
def test_every_smooth_loss_fits_the_moons(moons, loss):
    X, y, _ = moons
    r = RKC(loss=loss, C=1.0, sigma=0.5).fit(X, y)
    assert r.score(X, y) > 0.85
    # a stationary point: the gradient of J vanishes in the expansion coordinates
    yv = np.where(y == 1, 1.0, -1.0)
    from kernelnb.losses import get_loss
    L = get_loss(loss)
    g = yv * L.derivative(yv * r.decision_function(X)) / len(y)
    assert abs(g.sum()) < 1e-4                            # d J / d b
    K = r.kernel_(X)
    grad_f = K @ (g + r.dual_coef_ / (r.C * len(y)))      # d J / d a = K (g + a / (C n))
    assert np.linalg.norm(grad_f) < 1e-4


def test_labels_and_scale_sigma():
    X, y = make_moons(n_samples=60, noise=0.2, random_state=2)
    labels = np.where(y == 1, "yes", "no")
    r = RKC(loss="logistic", sigma="scale").fit(X, labels)
    assert list(r.classes_) == ["no", "yes"] and set(r.predict(X)) <= {"no", "yes"}
    assert r.sigma_ == pytest.approx(np.sqrt(1 / (2 * (1 / (2 * X.var())))))


@pytest.mark.parametrize("params, match", [
    (dict(loss="zero_one"), "zero_one"),
    (dict(loss="epsilon_insensitive"), "margin loss"),
    (dict(loss="nope"), "unknown loss"),
    (dict(C=0.0), "'C' parameter of RegularizedKernelClassifier must be"),
    (dict(C=np.inf), "'C' parameter of RegularizedKernelClassifier must be"),
    (dict(sigma=-1.0), "sigma"),
    (dict(sigma="auto"), "sigma"),
    (dict(kernel="cosine"), "kernel"),
    (dict(loss="hinge", smoothing=0.0), "smoothing"),
    (dict(max_iter=0), "max_iter"),
])
def test_bad_parameters_are_named(params, match):
    X, y = make_moons(n_samples=20, random_state=0)
    with pytest.raises(ValueError, match=match):
        RKC(**params).fit(X, y)


def test_bad_data():
    X, y = make_moons(n_samples=20, random_state=0)
    with pytest.raises(ValueError, match="exactly 2 classes"):
        RKC().fit(X, np.arange(20) % 3)
    X2 = X.copy()
    X2[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        RKC().fit(X2, y)
