"""Vicinal risk minimisation (Chapelle's thesis §1.3, §2.3.1): the widths against brute-force
distances, VicinalSVC against SVC with margins and the plain SVC, VicinalRiskClassifier against
a direct computation of the vicinal risk and a brute-force search over directions."""
import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.special import ndtr

from kernelnb.kernels import RBF
from kernelnb.prior import (VicinalRiskClassifier, VicinalSVC, vicinal_margins,
                            vicinity_widths)
from kernelnb.svm import SVC


def _data(n=40, d=2, seed=0, sep=1.5):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    X[y == 1, 0] += sep
    # uneven density: a few far-away points, whose widths are larger
    X[:4] *= 3.0
    return X, y


def test_knn_and_quantile_widths_against_brute_force():
    X, _ = _data(n=30, d=3)
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    Ds = np.sort(D, axis=1)[:, :-1]                     # the n - 1 distances to the others
    np.testing.assert_allclose(vicinity_widths(X), Ds[:, :5].mean(axis=1), rtol=1e-10)
    np.testing.assert_allclose(vicinity_widths(X, n_neighbors=3, factor=2.0),
                               2.0 * Ds[:, :3].mean(axis=1), rtol=1e-10)
    np.testing.assert_allclose(vicinity_widths(X, "quantile", quantile=0.3),
                               [np.quantile(row, 0.3) for row in Ds], rtol=1e-10)
    # the thesis's 5/1000: close to the nearest neighbour's distance
    q = vicinity_widths(X, "quantile")
    assert np.all(q >= Ds[:, 0] - 1e-12) and np.all(q <= Ds[:, 1] + 1e-12)
    # more neighbours than points: all of them
    np.testing.assert_allclose(vicinity_widths(X[:4], n_neighbors=10),
                               np.sort(cdist(X[:4], X[:4]), axis=1)[:, 1:].mean(axis=1))
    np.testing.assert_allclose(vicinity_widths(X, 0.7), np.full(30, 0.7))
    w = np.linspace(1, 2, 30)
    np.testing.assert_allclose(vicinity_widths(X, w, factor=3.0), 3 * w)


def test_widths_in_the_kernel_feature_space():
    X, _ = _data(n=25)
    kern = RBF(sigma=0.9)
    kern.center = X.mean(axis=0)
    D = np.sqrt(np.maximum(2.0 - 2.0 * np.exp(-cdist(X, X, "sqeuclidean") / (2 * 0.9 ** 2)), 0))
    np.fill_diagonal(D, np.inf)
    ref = np.sort(D, axis=1)[:, :5].mean(axis=1)
    np.testing.assert_allclose(vicinity_widths(X, kernel=kern), ref, rtol=1e-7)
    # a precomputed kernel matrix gives the same widths as its kernel
    from kernelnb.kernels import Precomputed
    K = kern(X)
    np.testing.assert_allclose(vicinity_widths(K, kernel=Precomputed()), ref, rtol=1e-7)


def test_margins_are_relative_widths():
    s = np.array([1.0, 2.0, 3.0, 6.0])
    np.testing.assert_allclose(vicinal_margins(s), s / 3.0)
    np.testing.assert_allclose(vicinal_margins(5 * s), s / 3.0)    # scale-free
    np.testing.assert_allclose(vicinal_margins(np.zeros(3)), np.ones(3))
    g = vicinal_margins(np.array([0.0, 1.0, 1.0]))
    assert np.all(g > 0) and g.mean() == pytest.approx(1.0) and g[0] < 0.01


def test_width_errors_name_the_parameter():
    X, _ = _data(n=10)
    with pytest.raises(ValueError, match="width"):
        vicinity_widths(X, "nearest")
    with pytest.raises(ValueError, match=r"width given as an array must have shape \(10,\)"):
        vicinity_widths(X, np.ones(3))
    with pytest.raises(ValueError, match="positive finite"):
        vicinity_widths(X, np.r_[np.ones(9), -1.0])
    with pytest.raises(ValueError, match="'quantile' parameter of vicinity_widths"):
        vicinity_widths(X, "quantile", quantile=1.5)
    with pytest.raises(ValueError, match="'n_neighbors' parameter"):
        vicinity_widths(X, n_neighbors=0)


def test_vicinal_svc_is_svc_with_the_margins():
    X, y = _data(n=50, seed=1)
    for params in (dict(kernel="linear", C=0.5), dict(sigma=1.0, C=2.0)):
        v = VicinalSVC(**params).fit(X, y)
        kern = None if params.get("kernel") == "linear" else RBF(sigma=1.0)
        sig = vicinity_widths(X, kernel=kern)
        np.testing.assert_allclose(v.sigmas_, sig, rtol=1e-7)
        np.testing.assert_allclose(v.margins_, sig / sig.mean(), rtol=1e-7)
        ref = SVC(**params).fit(X, y, margins=v.margins_)
        np.testing.assert_array_equal(v.dual_coef_, ref.dual_coef_)
        np.testing.assert_array_equal(v.intercept_, ref.intercept_)
        # the far points (larger widths) get larger margins
        assert v.margins_[:4].mean() > v.margins_[4:].mean()


def test_fixed_width_is_the_plain_svc_and_the_factor_only_scales_the_widths():
    X, y = _data(n=40, seed=2)
    v = VicinalSVC(width=0.3, kernel="linear", C=1.0).fit(X, y)
    s = SVC(kernel="linear", C=1.0).fit(X, y)
    np.testing.assert_array_equal(v.margins_, np.ones(40))
    np.testing.assert_array_equal(v.dual_coef_, s.dual_coef_)
    np.testing.assert_array_equal(v.intercept_, s.intercept_)
    a = VicinalSVC(kernel="linear", width_factor=1.0).fit(X, y)
    b = VicinalSVC(kernel="linear", width_factor=4.0).fit(X, y)
    np.testing.assert_allclose(b.sigmas_, 4 * a.sigmas_)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)


def test_adaptive_margins_push_the_boundary_away_from_uncertain_points():
    """Fig. 2.5 in kind: one isolated point of class 1 (large width) near the boundary; with
    adaptive widths the hyperplane keeps farther from it than the plain hard-margin SVM."""
    rng = np.random.RandomState(3)
    neg = rng.normal(loc=(-2.0, 0.0), scale=0.2, size=(15, 2))
    pos = np.vstack([rng.normal(loc=(2.0, 0.0), scale=0.2, size=(14, 2)), [[0.0, 2.5]]])
    X = np.vstack([neg, pos])
    y = np.r_[np.zeros(15), np.ones(15)].astype(int)
    hard = SVC(kernel="linear", margin="hard").fit(X, y)
    vic = VicinalSVC(kernel="linear", margin="hard").fit(X, y)
    assert vic.margins_[-1] == vic.margins_.max()

    def distance(m, x):
        w = m.dual_coef_[0] @ m.support_vectors_
        return (x @ w + m.intercept_[0]) / np.linalg.norm(w)
    assert distance(vic, X[-1]) > distance(hard, X[-1]) + 0.05


def test_vicinal_svc_multiclass_and_params():
    rng = np.random.RandomState(4)
    X = np.vstack([rng.normal(loc=c, size=(15, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat(["a", "b", "c"], 15)
    v = VicinalSVC(width="quantile", sigma="scale").fit(X, y)
    assert v.score(X, y) > 0.85 and v.sigmas_.shape == (45,)
    with pytest.raises(ValueError, match="'width_factor' parameter of VicinalSVC"):
        VicinalSVC(width_factor=0).fit(X, y)
    with pytest.raises(ValueError, match=r"width given as an array must have shape \(45,\)"):
        VicinalSVC(width=np.ones(3)).fit(X, y)


# -- the vicinal risk itself -----------------------------------------------------------------

def _risk(X, y, sig, w, b):
    yv = np.where(y == 1, 1.0, -1.0)
    return float(np.mean(ndtr(-yv * (X @ w + b) / (sig * np.linalg.norm(w)))))


def test_vicinal_risk_classifier_reports_the_risk_of_its_function():
    X, y = _data(n=40, d=3, seed=5)
    m = VicinalRiskClassifier(width_factor=0.5).fit(X, y)
    w = m.dual_coef_ @ X
    sig = 0.5 * vicinity_widths(X)
    np.testing.assert_allclose(m.sigmas_, sig)
    assert m.vicinal_risk_ == pytest.approx(_risk(X, y, sig, w, m.intercept_), rel=1e-9)
    assert np.linalg.norm(w) == pytest.approx(1.0 / sig.mean(), rel=1e-9)   # Eq. 1.16's scale
    np.testing.assert_allclose(m.decision_function(X), X @ w + m.intercept_, atol=1e-9)


@pytest.mark.parametrize("width", ["knn", 0.4])
def test_vicinal_risk_classifier_finds_the_brute_force_minimum_in_2d(width):
    """In 2-D the risk is a function of the angle of w and the offset: a fine grid over both
    is an independent minimiser."""
    X, y = _data(n=30, seed=6, sep=1.0)
    m = VicinalRiskClassifier(width=width, width_factor=0.8).fit(X, y)
    sig = m.sigmas_
    yv = np.where(y == 1, 1.0, -1.0)
    best = np.inf
    for t in np.linspace(0, 2 * np.pi, 720, endpoint=False):
        proj = X @ np.array([np.cos(t), np.sin(t)])     # unit w: f = proj + b
        b = np.linspace(-proj.max(), -proj.min(), 300)[:, None]
        best = min(best, float(np.min(np.mean(ndtr(-yv * (proj + b) / sig), axis=1))))
    assert m.vicinal_risk_ <= best + 1e-4
    assert m.vicinal_risk_ >= best - 0.01                # the grid is fine enough to be close


def test_vicinal_risk_is_scale_free():
    """Scaling the inputs and the widths together changes nothing but the scale of f."""
    X, y = _data(n=30, d=3, seed=7)
    a = VicinalRiskClassifier(width=0.5).fit(X, y)
    b = VicinalRiskClassifier(width=5.0).fit(10 * X, y)
    assert a.vicinal_risk_ == pytest.approx(b.vicinal_risk_, rel=1e-6)
    np.testing.assert_array_equal(a.predict(X), b.predict(10 * X))


def test_vicinal_risk_limits():
    """Small widths: the risk of a separable set goes to zero (every point far from the
    boundary in widths); large widths: the width-weighted class-mean direction."""
    rng = np.random.RandomState(8)
    X = np.vstack([rng.normal(loc=(-2, 0), scale=0.3, size=(10, 2)),
                   rng.normal(loc=(2, 1), scale=0.3, size=(10, 2))])
    y = np.r_[np.zeros(10), np.ones(10)].astype(int)
    small = VicinalRiskClassifier(width=0.05).fit(X, y)
    assert small.vicinal_risk_ < 1e-6 and small.score(X, y) == 1.0
    big = VicinalRiskClassifier(width=200.0).fit(X, y)
    w = big.dual_coef_ @ X
    ref = X[y == 1].sum(axis=0) - X[y == 0].sum(axis=0)
    cos = w @ ref / (np.linalg.norm(w) * np.linalg.norm(ref))
    assert cos > 0.999


def test_vicinal_risk_classifier_kernel_and_errors():
    X, y = _data(n=40, seed=9)
    m = VicinalRiskClassifier(kernel="rbf", sigma=1.0, width_factor=0.5).fit(X, y)
    assert m.score(X, y) > 0.85 and m.loss_.name == "vrm"
    with pytest.raises(ValueError, match="'width' parameter of VicinalRiskClassifier|width"):
        VicinalRiskClassifier(width="nearest").fit(X, y)
    Xd = np.vstack([X[:5]] * 6)
    with pytest.raises(ValueError, match="every vicinity width must be positive"):
        VicinalRiskClassifier().fit(Xd, np.tile([0, 1, 0, 1, 1], 6))
    with pytest.raises(ValueError, match="Only binary classification"):
        VicinalRiskClassifier().fit(X, np.arange(40) % 3)
    assert isinstance(m.n_iter_, int) and m.n_iter_ > 0      # one problem: an int
    with pytest.raises(TypeError):
        VicinalRiskClassifier("knn")                 # keyword-only constructors
    with pytest.raises(TypeError):
        VicinalSVC("knn")
