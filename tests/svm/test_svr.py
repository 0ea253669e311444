"""SVR against scikit-learn's LIBSVM epsilon-SVR."""
import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR as SkSVR

from kernelnb import datasets
from kernelnb.svm import SVR

from .conftest import kernel_matrix, sklearn_params


def svr_dual_objective(coef, K, y, eps):
    """LIBSVM's epsilon-SVR dual: 1/2 c'Kc - y'c + eps |c|_1 with c = alpha - alpha*."""
    return 0.5 * coef @ K @ coef - y @ coef + eps * np.abs(coef).sum()


def _sinc():
    rng = np.random.RandomState(0)
    X = rng.uniform(-5, 5, size=(300, 1))
    y = np.sinc(X[:, 0]) + 0.1 * rng.randn(300)
    return X, y


def _boston():
    X, y = datasets.load_boston()
    return StandardScaler().fit_transform(X), y


CASES = {
    "sinc": (_sinc, dict(C=10.0, epsilon=0.05, sigma=0.7)),
    "sinc-linear": (_sinc, dict(C=1.0, epsilon=0.1, kernel="linear")),
    "boston": (_boston, dict(C=30.0, epsilon=0.5, sigma="scale")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_svr_matches_libsvm(case):
    make, params = CASES[case]
    X, y = make()
    model = SVR(**params).fit(X, y)
    ref = SkSVR(**sklearn_params(model), epsilon=model.epsilon).fit(X, y)
    K = kernel_matrix(model, X)
    c_o = np.zeros(len(y))
    c_o[model.support_] = model.dual_coef_[0]
    c_r = np.zeros(len(y))
    c_r[ref.support_] = ref.dual_coef_[0]
    ours = svr_dual_objective(c_o, K, y, model.epsilon)
    theirs = svr_dual_objective(c_r, K, y, model.epsilon)
    # the solver's objective uses its float32 kernel rows (as LIBSVM's cache): 1e-4 relative
    assert abs(model.objective_ - ours) <= 1e-4 * abs(ours)
    assert abs(ours - theirs) <= 1e-3 * abs(theirs)
    scale = np.std(y)
    np.testing.assert_allclose(model.predict(X), ref.predict(X), atol=2e-2 * scale)
    # KKT: points strictly inside the tube have no coefficient; outside ones are at the bound
    r = y - model.predict(X)
    inside = np.abs(r) < model.epsilon - 2 * model.tol
    assert np.all(c_o[inside] == 0)
    outside = np.abs(r) > model.epsilon + 2 * model.tol
    np.testing.assert_allclose(np.abs(c_o[outside]), model.C)
    assert np.all(np.abs(c_o) <= model.C * (1 + 1e-12))
    assert abs(c_o.sum()) <= 1e-8 * model.C * len(y)


def test_svr_bad_input():
    X, y = _sinc()
    with pytest.raises(ValueError, match="epsilon"):
        SVR(epsilon=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="margin='l1'"):
        SVR(margin="l2").fit(X, y)
    with pytest.raises(ValueError, match="'C' parameter of SVR must be"):
        SVR(C=0).fit(X, y)
    with pytest.raises(ValueError, match="finite C"):
        SVR(C=np.inf).fit(X, y)
    with pytest.raises(ValueError, match="alpha_init"):
        SVR().fit(X, y, alpha_init=np.ones(3))


def test_svr_warm_start_same_optimum():
    X, y = _sinc()
    # a step along a path of C (from C = 1 the start is no closer than zero: about as many
    # iterations either way, and which is fewer depends on the kernel's last bits)
    model = SVR(C=8.0, sigma=0.7, warm_start=True).fit(X, y)
    model.set_params(C=10.0).fit(X, y)
    cold = SVR(C=10.0, sigma=0.7).fit(X, y)
    assert abs(model.objective_ - cold.objective_) <= 1e-3 * abs(cold.objective_)
    assert model.n_iter_ < cold.n_iter_
    coef = np.zeros(len(y))
    coef[cold.support_] = cold.dual_coef_[0]
    again = SVR(C=10.0, sigma=0.7).fit(X, y, alpha_init=coef)
    assert again.n_iter_ == 0 and isinstance(again.n_iter_, int)   # one problem: an int
    np.testing.assert_allclose(again.predict(X), cold.predict(X), atol=1e-9)
