"""The one stratified subset (scikit-learn's train_test_split with stratify, and its fallback)."""
import numpy as np
import pytest

from kernelnb.datasets._stratify import stratified_subset


@pytest.mark.parametrize("n", [10, 37, 99])
def test_class_proportions_are_kept_up_to_rounding(n):
    y = np.repeat([0, 1, 2], [60, 30, 10])
    np.random.default_rng(0).shuffle(y)
    sub = stratified_subset(y, n, 0)
    assert sub.size == n and np.all(np.diff(sub) > 0) and sub.min() >= 0 and sub.max() < y.size
    counts = np.bincount(y[sub], minlength=3)
    np.testing.assert_array_less(np.abs(counts - n * np.array([0.6, 0.3, 0.1])), 1.0 + 1e-9)


def test_reproducible_under_random_state():
    y = np.arange(200) % 4
    a, b, c = (stratified_subset(y, 50, s) for s in (3, 3, 4))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    rs1, rs2 = np.random.RandomState(7), np.random.RandomState(7)
    np.testing.assert_array_equal(stratified_subset(y, 20, rs1), stratified_subset(y, 20, rs2))


def test_n_at_least_the_size_returns_everything():
    y = np.array([1, 0, 1])
    np.testing.assert_array_equal(stratified_subset(y, 3, 0), [0, 1, 2])
    np.testing.assert_array_equal(stratified_subset(y, 10, 0), [0, 1, 2])


def test_fallback_when_a_class_has_one_member_keeps_every_class():
    y = np.array([0] * 20 + [1] * 20 + [2])           # class 2: a single member
    for seed in range(5):
        sub = stratified_subset(y, 6, seed)
        assert sub.size == 6 and len(set(sub)) == 6
        assert set(y[sub]) == {0, 1, 2}                # the lone member is taken
        assert np.all(np.diff(sub) > 0)


def test_fallback_when_n_is_below_the_number_of_classes():
    y = np.arange(10)                                  # ten classes, one member each
    sub = stratified_subset(y, 3, 1)
    assert sub.size == 3 and len(set(y[sub])) == 3
