"""Kernel Matching Pursuit against brute force, least squares and scikit-learn's OMP."""
import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.linear_model import OrthogonalMatchingPursuit

from kernelnb.kernels import RBF
from kernelnb.kmp import KMPClassifier, KMPRegressor


def _data(n=60, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 2)
    y = np.where(X[:, 0] * X[:, 1] + 0.2 * rng.randn(n) > 0, 1, -1)
    return X, y


def _dictionary(model, X):
    D = RBF(model.sigma_)(X)
    return np.hstack([D, np.ones((len(X), 1))]) if model.bias else D


@pytest.mark.parametrize("bias", [False, True])
def test_prefit_choice_is_the_brute_force_optimum_of_eq7(bias):
    X, y = _data()
    model = KMPClassifier(n_basis=10, variant="prefit", sigma=0.7, bias=bias).fit(X, y)
    D = _dictionary(model, X)
    t = np.where(y == model.classes_[1], 1.0, -1.0)
    basis = model.paths_[0]["basis"]
    for N in range(10):
        errs = []
        for k in range(D.shape[1]):
            if k in basis[:N]:
                errs.append(np.inf)
                continue
            cols = list(basis[:N]) + [k]
            a = np.linalg.lstsq(D[:, cols], t, rcond=None)[0]
            errs.append(np.sum((D[:, cols] @ a - t) ** 2))
        assert int(np.argmin(errs)) == basis[N], f"step {N + 1}"
        # the weights of every prefix are least squares on the chosen columns
        model.set_n_basis(N + 1)
        w = np.zeros(D.shape[1])
        w[model.support_] = model.coef_[0]
        if bias:
            w[-1] = model.intercept_[0]
        ls = np.linalg.lstsq(D[:, basis[:N + 1]], t, rcond=None)[0]
        np.testing.assert_allclose(w[basis[:N + 1]], ls, atol=1e-8)


def test_backfitting_is_omp_on_the_normalised_kernel_matrix():
    X, y = _data(80, seed=1)
    model = KMPClassifier(n_basis=12, variant="backfit", sigma=0.6, bias=False).fit(X, y)
    D = _dictionary(model, X)
    t = np.where(y == model.classes_[1], 1.0, -1.0)
    norms = np.linalg.norm(D, axis=0)
    omp = OrthogonalMatchingPursuit(n_nonzero_coefs=12, fit_intercept=False).fit(D / norms, t)
    assert sorted(model.paths_[0]["basis"].tolist()) == sorted(np.flatnonzero(omp.coef_).tolist())
    np.testing.assert_allclose(model.decision_function(X), omp.predict(D / norms), atol=1e-8)


def test_basic_mp_accumulates_weights_of_repeated_atoms():
    X, y = _data(40, seed=2)
    model = KMPClassifier(n_basis=60, variant="basic", sigma=0.4, bias=False).fit(X, y)
    basis = model.paths_[0]["basis"]
    assert len(set(basis.tolist())) < len(basis), "basic MP re-chooses atoms on this problem"
    D = _dictionary(model, X)
    t = np.where(y == model.classes_[1], 1.0, -1.0)
    # replay Fig. 1 in numpy: residue, choice and accumulated weights
    R, w = t.copy(), np.zeros(D.shape[1])
    for k in basis:
        score = np.abs(D.T @ R) / np.linalg.norm(D, axis=0)
        assert int(np.argmax(score)) == k
        a = D[:, k] @ R / (D[:, k] @ D[:, k])
        w[k] += a
        R -= a * D[:, k]
    np.testing.assert_allclose(model.decision_function(X), D @ w, atol=1e-8)
    assert len(model.support_) == len(set(basis.tolist()))


def test_dependent_and_duplicate_atoms_never_divide_by_zero():
    X, y = _data(30)
    X = np.vstack([X, X])        # every point twice: half the atoms are duplicates
    y = np.concatenate([y, y])
    model = KMPClassifier(n_basis=40, variant="prefit", sigma=0.5, bias=False).fit(X, y)
    basis = model.paths_[0]["basis"]
    assert len(set((basis % 30).tolist())) == len(basis), "a duplicate point is never chosen twice"
    assert np.all(np.isfinite(model.coef_))


def test_validation_path_and_early_stopping():
    X, y = make_moons(400, noise=0.3, random_state=0)
    model = KMPClassifier(n_basis=60, sigma=0.5, validation_fraction=0.3, random_state=0).fit(X, y)
    val = model.validation_errors_[0]
    assert len(val) == 60 and len(model.train_errors_[0]) == 60
    assert model.n_basis_[0] == int(np.argmin(val)) + 1
    stopped = KMPClassifier(n_basis=60, sigma=0.5, validation_fraction=0.3, n_iter_no_change=5,
                            random_state=0).fit(X, y)
    assert len(stopped.validation_errors_[0]) < 60
    # n_iter_: the steps taken, one entry per target of the classifier
    assert stopped.n_iter_.shape == (1,) and stopped.n_iter_[0] == len(stopped.validation_errors_[0])
    assert model.n_iter_[0] == 60
    # given validation data, validation_fraction is not used: the whole of X is trained on
    given = KMPClassifier(n_basis=20, sigma=0.5, validation_fraction=0.3, random_state=0).fit(
        X[:300], y[:300], X_val=X[300:], y_val=y[300:])
    assert len(given.candidates_) == 300 and len(given.validation_errors_[0]) == 20
    # a prefix of the path is the model fitted with that many atoms
    short = KMPClassifier(n_basis=8, sigma=0.5).fit(X, y)
    full = KMPClassifier(n_basis=30, sigma=0.5).fit(X, y).set_n_basis(8)
    np.testing.assert_allclose(short.decision_function(X), full.decision_function(X), atol=1e-8)


def test_float32_dictionary_makes_the_same_choices():
    X, y = make_moons(300, noise=0.3, random_state=1)
    a = KMPClassifier(n_basis=25, sigma=0.5).fit(X, y)
    b = KMPClassifier(n_basis=25, sigma=0.5, precision="float32").fit(X, y)
    np.testing.assert_array_equal(a.paths_[0]["basis"], b.paths_[0]["basis"])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-3)


@pytest.mark.parametrize("loss", ["tanh", "logistic", "exponential"])
def test_fig4_line_search_and_refits_decrease_the_loss(loss):
    from kernelnb.losses import get_loss

    X, y = make_moons(200, noise=0.3, random_state=0)
    model = KMPClassifier(n_basis=12, loss=loss, refit_every=4, sigma=0.5).fit(X, y)
    res = model.paths_[0]
    t = np.where(y == model.classes_[1], 1.0, -1.0)
    D = _dictionary(model, X)
    L = get_loss(loss)
    totals = [L.value(t * (D @ w)).sum() for w in res["alpha_steps"]]
    assert totals[0] < L.value(np.zeros(len(t))).sum()
    assert np.all(np.diff(totals) <= 1e-9), "every step lowers the training loss"
    # the pseudo-residue picks the atom most correlated with -dL/df at the previous model
    f0 = np.zeros(len(t))
    g = -t * L.derivative(t * f0)
    assert res["basis"][0] == np.argmax((D.T @ g) ** 2 / np.einsum("ij,ij->j", D, D))
    assert model.score(X, y) > 0.8


def test_non_differentiable_losses_are_refused():
    X, y = _data()
    for loss in ("zero_one", "hinge", "epsilon_insensitive"):
        with pytest.raises(ValueError, match="differentiable margin loss"):
            KMPClassifier(loss=loss).fit(X, y)


@pytest.mark.parametrize("variant", ["prefit", "backfit", "basic"])
def test_blocked_recomputation_makes_the_same_choices(variant):
    """A dictionary over cache_size is recomputed in blocks at every step, with the same result."""
    X, y = make_moons(300, noise=0.3, random_state=2)
    Xv, yv = make_moons(100, noise=0.3, random_state=3)
    full = KMPClassifier(n_basis=15, variant=variant, sigma=0.5).fit(X, y, X_val=Xv, y_val=yv)
    tiny = KMPClassifier(n_basis=15, variant=variant, sigma=0.5, cache_size=0.2).fit(
        X, y, X_val=Xv, y_val=yv)                 # 300 x 301 doubles = 0.7 MB > 0.2 MB
    assert tiny.blocked_ and not full.blocked_
    np.testing.assert_array_equal(tiny.paths_[0]["basis"], full.paths_[0]["basis"])
    np.testing.assert_allclose(tiny.validation_errors_[0], full.validation_errors_[0])
    np.testing.assert_allclose(tiny.decision_function(X), full.decision_function(X), atol=1e-8)


def test_multiclass_one_vs_rest():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    model = KMPClassifier(n_basis=15, sigma=1.0).fit(X, y)
    assert model.decision_function(X).shape == (150, 3)
    assert model.score(X, y) > 0.9
    assert len(model.paths_) == 3 and model.n_iter_.shape == (3,)


def test_regressor_matches_least_squares_on_sinc():
    rng = np.random.RandomState(0)
    X = rng.uniform(-5, 5, (120, 1))
    y = np.sinc(X[:, 0]) + 0.05 * rng.randn(120)
    model = KMPRegressor(n_basis=15, sigma=0.8).fit(X, y)
    D = _dictionary(model, X)
    b = model.paths_[0]["basis"]
    a = np.linalg.lstsq(D[:, b], y, rcond=None)[0]
    np.testing.assert_allclose(model.predict(X), D[:, b] @ a, atol=1e-8)
    assert model.score(X, y) > 0.9
    assert model.n_iter_ == len(b) and isinstance(model.n_iter_, int)   # one problem: an int


@pytest.mark.parametrize("params, message", [
    (dict(n_basis=0), "'n_basis' parameter of KMPClassifier must be"),
    (dict(n_basis=500), "larger than the dictionary"),
    (dict(variant="greedy"), "'variant' parameter of KMPClassifier must be a str among"),
    (dict(validation_fraction=1.5), "validation_fraction"),
    (dict(n_candidates=0), "n_candidates"),
    (dict(refit_every=0), "refit_every"),
    (dict(kernel="precomputed"), "precomputed"),
    (dict(cache_size=1e-6, loss="tanh"), "cache_size"),
    (dict(precision="float16"), "precision"),
])
def test_bad_parameters(params, message):
    X, y = _data()
    with pytest.raises(ValueError, match=message):
        KMPClassifier(**params).fit(X, y)


def test_single_class_and_regressor_loss_errors():
    X, y = _data()
    with pytest.raises(ValueError, match="class"):
        KMPClassifier().fit(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="loss='squared'"):
        KMPRegressor(loss="tanh").fit(X, y.astype(float))


def test_one_vs_rest_stops_each_class_at_its_own_n():
    # One N per class: each one-vs-rest path stops at its own N, and each class's model is the
    # binary KMP fitted on that class against the rest (same dictionary, same pursuit).
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(30, 2) + c for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat(["a", "b", "c"], 30)
    Ns = [3, 9, 5]
    kmp = KMPClassifier(n_basis=Ns, sigma=1.0).fit(X, y)
    np.testing.assert_array_equal(kmp.n_iter_, Ns)
    assert kmp.n_basis_ == Ns
    F = kmp.decision_function(X)
    for j, (c, N) in enumerate(zip(kmp.classes_, Ns)):
        alone = KMPClassifier(n_basis=N, sigma=1.0).fit(X, (y == c).astype(int))
        assert len(alone.paths_[0]["basis"]) == N
        np.testing.assert_array_equal(kmp.paths_[j]["basis"], alone.paths_[0]["basis"])
        np.testing.assert_allclose(F[:, j], alone.decision_function(X), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="one positive int per class"):
        KMPClassifier(n_basis=[3, 4], sigma=1.0).fit(X, y)
    with pytest.raises(ValueError, match="one positive int per class"):
        KMPClassifier(n_basis=[3, 0, 2], sigma=1.0).fit(X, y)
