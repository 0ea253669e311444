"""Toy generators: determinism, shapes, labels, the seeds' formulas and the argument errors."""
import numpy as np
import pytest

from kernelnb import datasets as ds
from kernelnb.datasets.toy import MANIFOLD_SPIRAL_SIZES

# name -> (callable taking n_samples and random_state, n_features, classification?)
GENERATORS = {
    "two_spirals": (lambda n, rs: ds.make_two_spirals(n, noise=0.1, random_state=rs), 2, True),
    "manifold_spiral": (lambda n, rs: (ds.make_manifold_spiral(n, random_state=rs), None), 2, False),
    "moons": (lambda n, rs: ds.make_moons(n, random_state=rs), 2, True),
    "xor": (lambda n, rs: ds.make_xor(n, random_state=rs), 2, True),
    "blobs": (lambda n, rs: ds.make_blobs(n, random_state=rs), 2, True),
    "fs_linear": (lambda n, rs: ds.make_feature_selection_linear(n, random_state=rs), 202, True),
    "fs_nonlinear": (lambda n, rs: ds.make_feature_selection_nonlinear(n, random_state=rs), 52, True),
    "sinc": (lambda n, rs: ds.make_sinc(n, random_state=rs), 1, False),
}


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_deterministic_shapes_and_labels(name):
    gen, d, classification = GENERATORS[name]
    X, y = gen(101, 7)
    X2, y2 = gen(101, 7)
    X3, _ = gen(101, 8)
    X4, _ = gen(101, np.random.RandomState(7))
    assert X.shape == (101, d) and X.dtype == np.float64
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(X, X4)
    assert not np.array_equal(X, X3)
    assert np.all(np.isfinite(X))
    if y is not None:
        np.testing.assert_array_equal(y, y2)
        assert y.shape == (101,)
        if classification:
            assert y.dtype.kind == "i"
            assert set(np.unique(y)) == {0, 1}


@pytest.mark.parametrize("name", sorted(ds.TOY_DATASETS))
def test_registry_toys_accept_the_dashboard_arguments(name):
    func, description = ds.TOY_DATASETS[name]
    assert isinstance(description, str) and description
    X, y = func(n_samples=150, noise=0.2, random_state=3)
    assert X.shape == (150, 2) and set(np.unique(y)) == {0, 1}
    assert np.abs(X).max() < 4
    default, top = ds.TOY_NOISE[name]
    assert 0 < default < top
    Xd, yd = ds.make_toy(name, n_samples=150, random_state=3)
    Xf, yf = func(n_samples=150, noise=default, random_state=3)
    np.testing.assert_array_equal(Xd, Xf)
    np.testing.assert_array_equal(yd, yf)


@pytest.mark.parametrize("name", sorted(ds.TOY_DATASETS))
def test_noise_moves_the_same_points(name):
    func = ds.TOY_DATASETS[name][0]
    X0, y0 = func(n_samples=80, noise=0.0, random_state=1)
    Xa, ya = func(n_samples=80, noise=0.1, random_state=1)
    Xb, yb = func(n_samples=80, noise=0.3, random_state=1)
    np.testing.assert_array_equal(y0, ya)
    np.testing.assert_array_equal(y0, yb)
    np.testing.assert_allclose((Xb - X0) / 0.3, (Xa - X0) / 0.1, atol=1e-9)


def test_make_toy_unknown_name():
    with pytest.raises(ValueError, match=r"The 'name' parameter of make_toy must be one of \['blobs', 'moons', 'spirals', 'xor'\]\. Got 'circles' instead"):
        ds.make_toy("circles")


def _wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


@pytest.mark.parametrize("turns", [0.75, 1.5, 3.0])
def test_two_spirals_follow_the_archimedean_curve(turns):
    X, y = ds.make_two_spirals(301, noise=0.0, turns=turns, random_state=0)
    assert np.sum(y == 0) == 150 and np.sum(y == 1) == 151
    r = np.hypot(X[:, 0], X[:, 1])
    assert r.max() <= 1 + 1e-12
    angle = np.arctan2(X[:, 1], X[:, 0])
    # class 0: polar angle = 2 pi turns r (mod 2 pi); class 1: the same plus pi
    np.testing.assert_allclose(_wrap(angle - 2 * np.pi * turns * r - np.pi * y), 0, atol=1e-9)


def test_two_spirals_noise_has_the_requested_std():
    X0, _ = ds.make_two_spirals(20000, noise=0.0, random_state=5)
    X, _ = ds.make_two_spirals(20000, noise=0.05, random_state=5)
    d = X - X0
    assert abs(d.mean()) < 0.002
    assert abs(d.std() - 0.05) < 0.002


def test_two_spirals_are_hard_for_a_linear_rule_easy_for_nearest_neighbours():
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier

    X, y = ds.make_two_spirals(600, noise=0.02, random_state=0)
    Xt, yt = ds.make_two_spirals(600, noise=0.02, random_state=1)
    assert LogisticRegression().fit(X, y).score(Xt, yt) < 0.75
    assert KNeighborsClassifier(3).fit(X, y).score(Xt, yt) > 0.95


def test_manifold_spiral_formula():
    X, t = ds.make_manifold_spiral(5000, noise=0.0, random_state=0, return_t=True)
    assert t.min() >= 3 and t.max() <= 15
    assert abs(t.mean() - 9) < 0.2          # U(3, 15) has mean 9 and std 12/sqrt(12) = 3.46
    assert abs(t.std() - 12 / np.sqrt(12)) < 0.1
    np.testing.assert_allclose(X[:, 0], 0.04 * t * np.sin(t), atol=1e-15)
    np.testing.assert_allclose(X[:, 1], 0.04 * t * np.cos(t), atol=1e-15)
    # radius / angle relation, without t: radius 0.04 t and atan2(x, y) = t (mod 2 pi)
    r = np.hypot(X[:, 0], X[:, 1])
    t_from_r = r / 0.04
    np.testing.assert_allclose(_wrap(np.arctan2(X[:, 0], X[:, 1]) - t_from_r), 0, atol=1e-9)


def test_manifold_spiral_noise_std_is_0_01_by_default():
    X, t = ds.make_manifold_spiral(20000, random_state=3, return_t=True)
    resid = X - np.column_stack([0.04 * t * np.sin(t), 0.04 * t * np.cos(t)])
    assert abs(resid.std() - 0.01) < 3e-4
    assert abs(resid.mean()) < 3e-4
    # without return_t: the same X
    np.testing.assert_array_equal(ds.make_manifold_spiral(20000, random_state=3), X)


def test_manifold_spiral_splits_sizes():
    splits = ds.make_manifold_spiral_splits(random_state=0)
    assert {k: v.shape for k, v in splits.items()} == {
        "train": (300, 2), "valid": (300, 2), "test": (10000, 2)}
    assert MANIFOLD_SPIRAL_SIZES == {"train": 300, "valid": 300, "test": 10000}
    again = ds.make_manifold_spiral_splits(random_state=0)
    np.testing.assert_array_equal(splits["test"], again["test"])
    assert not np.array_equal(splits["train"], splits["valid"])
    small = ds.make_manifold_spiral_splits(random_state=0, sizes={"train": 5, "valid": 6, "test": 7})
    assert [len(small[k]) for k in ("train", "valid", "test")] == [5, 6, 7]
    with pytest.raises(ValueError, match="sizes must have the keys"):
        ds.make_manifold_spiral_splits(sizes={"train": 5})


def test_moons_noise_free_points_lie_on_the_two_half_circles():
    X, y = ds.make_moons(400, noise=0.0, random_state=0)
    a, b = X[y == 0], X[y == 1]
    np.testing.assert_allclose(np.hypot(a[:, 0], a[:, 1]), 1, atol=1e-12)
    assert np.all(a[:, 1] >= -1e-12)
    np.testing.assert_allclose(np.hypot(b[:, 0] - 1, b[:, 1] - 0.5), 1, atol=1e-12)
    assert np.all(b[:, 1] <= 0.5 + 1e-12)


def test_xor_labels_are_the_quadrant_parity():
    X, y = ds.make_xor(1000, noise=0.0, random_state=0)
    assert np.all(np.abs(X) <= 1)
    np.testing.assert_array_equal(y, (np.sign(X[:, 0]) != np.sign(X[:, 1])).astype(int))
    from sklearn.linear_model import LogisticRegression

    Xt, yt = ds.make_xor(2000, noise=0.0, random_state=1)
    assert LogisticRegression().fit(X, y).score(Xt, yt) < 0.65


def test_blobs_centres_and_std():
    centres = np.array([[-1.0, -1.0], [1.0, 1.0]])
    X, y = ds.make_blobs(20000, centers=centres, cluster_std=0.5, random_state=0)
    for k in (0, 1):
        np.testing.assert_allclose(X[y == k].mean(axis=0), centres[k], atol=0.02)
        np.testing.assert_allclose(X[y == k].std(axis=0), 0.5, atol=0.02)
    X3, y3 = ds.make_blobs(90, centers=3, n_features=4, random_state=0)
    assert X3.shape == (90, 4) and sorted(np.bincount(y3)) == [30, 30, 30]
    Xb, yb = ds.TOY_DATASETS["blobs"][0](n_samples=20000, noise=0.3, random_state=0)
    np.testing.assert_allclose(Xb[yb == 1].mean(axis=0), [1, 1], atol=0.02)
    np.testing.assert_allclose(Xb[yb == 0].std(axis=0), 0.3, atol=0.02)


def test_feature_selection_linear_follows_the_recipe():
    n = 40000
    X, y = ds.make_feature_selection_linear(n, random_state=0)
    assert X.shape == (n, 202)
    assert abs(y.mean() - 0.5) < 0.01
    s = 2 * y - 1
    # E[x_i s] = 0.7 i for i = 1..3 (the 70% branch) and 0.3 (i - 3) for i = 4..6
    expected = np.array([0.7, 1.4, 2.1, 0.3, 0.6, 0.9])
    np.testing.assert_allclose((X[:, :6] * s[:, None]).mean(axis=0), expected, atol=0.04)
    # exactly one of the two groups carries the label: the other is N(0, 1) whatever s
    np.testing.assert_allclose(X[:, 6:].std(axis=0).mean(), 20.0, rtol=0.01)
    np.testing.assert_allclose(X[:, 6:].mean(axis=0), 0.0, atol=0.5)
    # per-sample: the group with the larger mean |x| is the signal group; their counts are 70/30
    first = np.abs(X[:, :3]).mean(axis=1) > np.abs(X[:, 3:6]).mean(axis=1)
    assert abs(first.mean() - 0.7) < 0.03
    Xs, _ = ds.make_feature_selection_linear(100, n_features=10, noise_std=np.sqrt(20), random_state=0)
    assert Xs.shape == (100, 10)


def test_feature_selection_linear_reproduces_the_28_percent_when_standardised():
    """Fig. 5.3 of seed_004: a linear SVM on all 202 features, 30 points, about 28% test error."""
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    rng = np.random.RandomState(0)
    errs = []
    for _ in range(20):
        X, y = ds.make_feature_selection_linear(30, random_state=rng)
        Xt, yt = ds.make_feature_selection_linear(500, random_state=rng)
        sc = StandardScaler().fit(X)
        clf = LinearSVC(C=100.0, max_iter=20000).fit(sc.transform(X), y)
        errs.append(np.mean(clf.predict(sc.transform(Xt)) != yt))
    assert 0.18 < np.mean(errs) < 0.38
    # on the 6 relevant features alone the problem is easy
    X, y = ds.make_feature_selection_linear(200, random_state=1)
    Xt, yt = ds.make_feature_selection_linear(2000, random_state=2)
    assert LinearSVC().fit(X[:, :6], y).score(Xt[:, :6], yt) > 0.9


def test_feature_selection_toys_return_the_relevant_features_and_code_the_labels():
    X, y, rel = ds.make_feature_selection_linear(4000, labels="pm1", return_relevant=True,
                                                 random_state=1)
    assert X.shape == (4000, 202) and set(np.unique(y)) == {-1, 1}
    np.testing.assert_array_equal(rel, np.arange(6))
    X01, y01 = ds.make_feature_selection_linear(4000, random_state=1)
    np.testing.assert_array_equal(X01, X)                        # same draws, other coding
    np.testing.assert_array_equal(2 * y01 - 1, y)
    # the relevant features correlate with the label, the others do not
    corr = np.abs([np.corrcoef(X[:, p], y)[0, 1] for p in range(12)])
    assert corr[:6].min() > 0.1 and corr[6:].max() < 0.06
    np.testing.assert_allclose(X[:, 6:].std(), 20.0, rtol=0.02)
    # the variance reading of N(0, 20): the same draws, another noise level
    Xv, _ = ds.make_feature_selection_linear(4000, noise_std=np.sqrt(20.0), random_state=1)
    np.testing.assert_allclose(Xv[:, 6:].std(), np.sqrt(20.0), rtol=0.02)
    np.testing.assert_array_equal(Xv[:, :6], X[:, :6])
    Xn, yn, reln = ds.make_feature_selection_nonlinear(50, return_relevant=True, random_state=0)
    assert Xn.shape == (50, 52) and set(np.unique(yn)) <= {0, 1}
    np.testing.assert_array_equal(reln, [0, 1])
    with pytest.raises(ValueError, match="labels"):
        ds.make_feature_selection_linear(10, labels="+-")
    with pytest.raises(ValueError, match="labels"):
        ds.make_feature_selection_nonlinear(10, labels="+-")


def test_generators_take_keyword_arguments_after_n_samples():
    for gen in (ds.make_two_spirals, ds.make_moons, ds.make_xor, ds.make_blobs, ds.make_sinc,
                ds.make_feature_selection_linear, ds.make_feature_selection_nonlinear,
                ds.make_manifold_spiral):
        with pytest.raises(TypeError):
            gen(20, 0.1)
    with pytest.raises(TypeError):
        ds.make_toy("moons", 20, 0.1)


def test_feature_selection_nonlinear_follows_the_recipe():
    n = 40000
    X, y = ds.make_feature_selection_nonlinear(n, random_state=0)
    assert X.shape == (n, 52)
    assert abs(y.mean() - 0.5) < 0.01
    x1, x2 = X[:, 0], X[:, 1]
    for label, centres in ((0, [(-0.75, -3.0), (0.75, 3.0)]), (1, [(3.0, -3.0), (-3.0, 3.0)])):
        for c in centres:
            near = (y == label) & (np.sign(x2) == np.sign(c[1]))
            np.testing.assert_allclose([x1[near].mean(), x2[near].mean()], c, atol=0.05)
            np.testing.assert_allclose(x1[near].std(), 1.0, atol=0.05)
            assert abs(near.sum() / (y == label).sum() - 0.5) < 0.02
    np.testing.assert_allclose(X[:, 2:].std(axis=0).mean(), 20.0, rtol=0.01)


def test_sinc():
    X, y = ds.make_sinc(500, noise=0.0, random_state=0)
    assert X.shape == (500, 1) and np.all(np.abs(X) <= 5)
    np.testing.assert_allclose(y, np.sin(np.pi * X[:, 0]) / (np.pi * X[:, 0]))
    Xn, yn = ds.make_sinc(20000, noise=0.2, random_state=0)
    assert abs((yn - np.sinc(Xn[:, 0])).std() - 0.2) < 0.005


# One mechanism (kernelnb._validation): InvalidParameterError, a ValueError and a TypeError,
# naming the argument and the function.
BAD_N = [(0, ValueError, r"The 'n_samples' parameter of make_\w+ must be an int in the range "
                         r"\[\d+, inf\)\. Got 0 instead"),
         (-5, ValueError, r"'n_samples' parameter of make_\w+ must be an int .* Got -5 instead"),
         (2.5, TypeError, r"'n_samples' parameter of make_\w+ must be an int .* Got 2\.5 instead"),
         ("10", TypeError, r"'n_samples' parameter of make_\w+ must be an int .* Got '10' instead")]
BAD_NOISE = [(-0.1, ValueError, r"The 'noise' parameter of make_\w+ must be a float in the range "
                                r"\[0\.0, inf\)\. Got -0\.1 instead"),
             (float("nan"), ValueError, r"'noise' parameter of make_\w+ must be .* Got nan instead"),
             (float("inf"), ValueError, r"'noise' parameter of make_\w+ must be .* Got inf instead"),
             ("a", TypeError, r"'noise' parameter of make_\w+ must be .* Got 'a' instead")]
NOISY = {
    "make_two_spirals": ds.make_two_spirals,
    "make_manifold_spiral": ds.make_manifold_spiral,
    "make_moons": ds.make_moons,
    "make_xor": ds.make_xor,
    "make_sinc": ds.make_sinc,
}


@pytest.mark.parametrize("func", sorted(NOISY))
@pytest.mark.parametrize("bad,exc,msg", BAD_N)
def test_bad_n_samples(func, bad, exc, msg):
    with pytest.raises(exc, match=msg):
        NOISY[func](n_samples=bad)


@pytest.mark.parametrize("func", sorted(NOISY))
@pytest.mark.parametrize("bad,exc,msg", BAD_NOISE)
def test_bad_noise(func, bad, exc, msg):
    with pytest.raises(exc, match=msg):
        NOISY[func](n_samples=10, noise=bad)


def test_other_bad_arguments():
    with pytest.raises(ValueError, match=r"'n_samples' parameter of make_two_spirals must be an int in the range \[2, inf\)\. Got 1 instead"):
        ds.make_two_spirals(1)
    with pytest.raises(ValueError, match=r"'turns' parameter of make_two_spirals must be a float in the range \(0\.0, inf\)\. Got 0 instead"):
        ds.make_two_spirals(10, turns=0)
    with pytest.raises(ValueError, match=r"'cluster_std' parameter of make_blobs must be .* Got -1 instead"):
        ds.make_blobs(10, cluster_std=-1)
    with pytest.raises(ValueError, match=r"centers \(20\) must not exceed n_samples \(10\)"):
        ds.make_blobs(10, centers=20)
    with pytest.raises(ValueError, match="centers must be an int or a finite 2-D array"):
        ds.make_blobs(10, centers=[1.0, np.nan])
    with pytest.raises(ValueError, match=r"'n_features' parameter of make_feature_selection_linear must be an int in the range \[6, inf\)\. Got 5 instead"):
        ds.make_feature_selection_linear(10, n_features=5)
    with pytest.raises(ValueError, match=r"'n_features' parameter of make_feature_selection_nonlinear must be an int in the range \[2, inf\)\. Got 1 instead"):
        ds.make_feature_selection_nonlinear(10, n_features=1)
    with pytest.raises(ValueError, match=r"'noise_std' parameter of make_feature_selection_nonlinear must be .* Got -2 instead"):
        ds.make_feature_selection_nonlinear(10, noise_std=-2)
    with pytest.raises(ValueError, match="'random_state' parameter of make_xor"):
        ds.make_xor(10, random_state="seed")
