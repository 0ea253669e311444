"""The invariance protocols of thesis section 6.6 on tiny runs: shapes, the toy's definition,
the digits' tangents, and invariance = 0 reproducing the plain SVM inside the protocols."""
import numpy as np
import pytest

from kernelnb.datasets import make_rotation_toy
from kernelnb.reproductions.chapelle.invariance import (DIGIT_TRANSFORMATIONS, TOY_METHODS,
                                                        digit_tangents, digits_timing_table,
                                                        digits_translation_data,
                                                        digits_translation_experiment,
                                                        mean_and_sem, rotation_toy_experiment)


def test_rotation_toy_definition():
    X, y = make_rotation_toy(500, random_state=0)
    assert X.shape == (500, 2) and np.all(np.abs(X) <= 1)
    np.testing.assert_array_equal(y, np.sign((X ** 2).sum(1) - 0.7))


def test_rotation_toy_experiment_small():
    res = rotation_toy_experiment(log_sigmas=(0.0, 1.4), invariances=(0.0, 0.9), n_runs=2,
                                  n_test=200, random_state=1)
    for m in TOY_METHODS:
        assert res["error"][m].shape == (2, 2)
        assert np.all((res["error"][m] >= 0) & (res["error"][m] <= 1))
    assert np.all(res["ratio"] <= 1 + 1e-9) and np.all(res["ratio"] > 0)
    # IH_KPCA at invariance = 0 is the plain SVM: the same test errors, run by run
    np.testing.assert_allclose(res["invariance_error"][0.0][:, 0], res["error"]["SVM"][:, 0],
                               atol=1 / 200)
    np.testing.assert_allclose(res["invariance_error"][1.4][:, 0], res["error"]["SVM"][:, 1],
                               atol=1 / 200)
    mean, sem = mean_and_sem(np.array([[0.1], [0.3]]))
    np.testing.assert_allclose(mean, [0.2])
    np.testing.assert_allclose(sem, [np.std([0.1, 0.3], ddof=1) / np.sqrt(2)])



def test_rotation_toy_isvm_against_the_invariance():
    """The ISVM curve against the invariance (Fig. 6.2 right): one row per run and one column per
    value at each log sigma; invariance = 0 is the plain SVM, and at the experiment's fixed
    invariance it is the ISVM of the curve against sigma (the same model on the same data)."""
    res = rotation_toy_experiment(log_sigmas=(-1.0, 1.4), invariance=0.9,
                                  invariances=(0.0, 0.5, 0.9), invariance_log_sigmas=(-1.0, 1.4),
                                  n_runs=2, n_test=300, random_state=2)
    assert set(res["isvm_invariance_error"]) == {-1.0, 1.4}
    for j, ls in enumerate((-1.0, 1.4)):
        curve = res["isvm_invariance_error"][ls]
        assert curve.shape == (2, 3)
        np.testing.assert_allclose(curve[:, 0], res["error"]["SVM"][:, j], atol=1 / 300)
        np.testing.assert_allclose(curve[:, 2], res["error"]["ISVM"][:, j], atol=1 / 300)

def test_digit_tangents_are_one_pixel_differences():
    X, y = digits_translation_data()
    assert X.shape == (1797, 64) and set(np.unique(y)) == {-1, 1}
    assert X.min() >= -1 / 8 - 1e-12 and X.max() <= 1 / 8 + 1e-12
    T = digit_tangents(X[:5], "both")
    assert T.shape == (5, len(DIGIT_TRANSFORMATIONS["both"][0]), 64)
    img = X[:5].reshape(5, 8, 8)
    right = T[:, 0].reshape(5, 8, 8)
    np.testing.assert_allclose(right[:, :, 1:], img[:, :, :-1] - img[:, :, 1:])
    down = T[:, 2].reshape(5, 8, 8)
    np.testing.assert_allclose(down[:, 1:], img[:, :-1] - img[:, 1:])


def test_digits_experiment_small():
    methods = ("ISVM", "IH_KPCA", "LIH", "ISVM (6.7)", "IH_KPCA (6.7)")
    res = digits_translation_experiment(transformations=("vertical",), invariances=(0.0, 0.9),
                                        n_train=80, n_splits=1, methods=methods)
    table = res["error"]["vertical"]
    n_test = 1797 - 80
    for m in methods:
        assert table[m].shape == (1, 2)
        # invariance = 0 is the plain SVM (float32 solvers on different kernel paths: a test point
        # or two may fall on the other side)
        assert abs(table[m][0, 0] - table["SVM"][0]) <= 2 / n_test
    assert 0 < res["ratio"]["vertical"][0] <= 1


def test_digits_experiment_names_an_unknown_method():
    with pytest.raises(ValueError, match="methods must be among"):
        digits_translation_experiment(methods=("ISVM", "tangent distance"))


def test_images_at_the_usps_resolution():
    from kernelnb.reproductions.chapelle.invariance import (_area_resampling,
                                                            digits16_translation_data,
                                                            fashion16_translation_data)
    # area resampling: 28 -> 14 is the 2 x 2 block mean; 28 -> 16 keeps a constant image
    rng = np.random.RandomState(0)
    img = rng.rand(28, 28)
    R = _area_resampling(28, 14)
    np.testing.assert_allclose(R @ img @ R.T, img.reshape(14, 2, 14, 2).mean(axis=(1, 3)),
                               atol=1e-12)
    np.testing.assert_allclose(_area_resampling(28, 16).sum(axis=1), 1.0, atol=1e-12)
    X, y, shape = fashion16_translation_data(np.full((2, 784), 0.25), [3, 7])
    assert shape == (16, 16) and X.shape == (2, 256)
    np.testing.assert_allclose(X * 16, -0.5, atol=1e-12)
    np.testing.assert_array_equal(y, [-1, 1])
    # digits: bilinear interpolation keeps the 8 x 8 pixels' values at the grid's corners
    X16, y16, shape = digits16_translation_data()
    X8, y8 = digits_translation_data()
    assert shape == (16, 16) and X16.shape == (1797, 256)
    np.testing.assert_array_equal(y16, y8)
    big, small = X16.reshape(-1, 16, 16) * 16, X8.reshape(-1, 8, 8) * 8
    np.testing.assert_allclose(big[:, [0, 0, -1, -1], [0, -1, 0, -1]],
                               small[:, [0, 0, -1, -1], [0, -1, 0, -1]], atol=1e-12)
    assert big.min() >= -1 - 1e-12 and big.max() <= 1 + 1e-12


def test_timing_table_rows():
    rows = digits_timing_table(n_train=60, n_test=200, pool_sizes=(100,), repeats=1,
                               n_splits=3)
    names = [r["method"] for r in rows]
    assert names[:2] == ["scikit-learn SVC", "kernelnb SVC"]
    # the two plain SVMs solve the same problems: the same support vectors (up to a point at the
    # solvers' tolerance on a split) and accuracy
    assert abs(rows[0]["n_sv"] - rows[1]["n_sv"]) <= 1
    assert abs(rows[0]["accuracy"] - rows[1]["accuracy"]) <= 1 / 200
    assert all(0 < r["accuracy"] <= 1 and r["fit_s"] > 0 and r["n_splits"] == 3 for r in rows)
    # the mean over the splits is that of each split's own run
    one = [digits_timing_table(n_train=60, n_test=200, pool_sizes=(), repeats=1, n_splits=1,
                               random_state=k)[1] for k in range(3)]
    assert np.isclose(rows[1]["accuracy"], np.mean([r["accuracy"] for r in one]))
    assert np.isclose(rows[1]["n_sv"], np.mean([r["n_sv"] for r in one]))
    assert rows[1]["accuracy_sem"] > 0 or len({r["accuracy"] for r in one}) == 1


def test_scaling_table_rows():
    from kernelnb.reproductions.chapelle.invariance import digits_scaling_table
    rows = digits_scaling_table(sizes=(60,), n_test=100, repeats=1)
    assert rows[0]["n_train"] == 60
    # the two plain SVMs solve the same problem
    assert abs(rows[0]["scikit-learn SVC"][1] - rows[0]["kernelnb SVC"][1]) <= 1 / 100
    assert set(rows[0]) == {"n_train", "scikit-learn SVC", "kernelnb SVC", "VSV", "ISVM",
                            "IH_KPCA"}


def test_fashion_preparation_and_a_given_test_set():
    from kernelnb.reproductions.chapelle.invariance import fashion_translation_data
    rng = np.random.RandomState(0)
    X = rng.rand(120, 784).astype(np.float32)
    y = rng.randint(0, 10, 120)
    Xp, yp, shape = fashion_translation_data(X, y)
    assert shape == (28, 28)
    np.testing.assert_allclose(Xp * 28, 2 * X - 1, atol=1e-6)
    np.testing.assert_array_equal(yp, np.where(y >= 5, 1, -1))
    res = digits_translation_experiment(transformations=("horizontal",), invariances=(0.0,),
                                        n_train=60,
                                        n_splits=1, methods=("IH_KPCA",),
                                        data=(Xp[:100], yp[:100], shape),
                                        test=(Xp[100:], yp[100:]))
    assert res["n_test"] == 20
    assert res["error"]["horizontal"]["IH_KPCA"].shape == (1, 1)
