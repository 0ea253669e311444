"""Pieces of MixtureSVC's outer loop checked against direct references."""
import numpy as np

from kernelnb.largescale.mixture import _subsets


def test_subsets_match_one_scan_per_expert():
    rng = np.random.default_rng(0)
    k = 7
    assignment = rng.integers(-2, k, size=5000)   # -1/-2: held-out points, no expert
    assignment[:3] = 6                            # expert 6 also holds the first points
    got = _subsets(assignment, k)
    assert len(got) == k
    for j in range(k):
        np.testing.assert_array_equal(got[j], np.flatnonzero(assignment == j))


def test_subsets_with_empty_experts():
    assignment = np.array([2, -1, 2, 0, -2, 0])
    got = _subsets(assignment, 4)
    assert [g.tolist() for g in got] == [[3, 5], [], [0, 2], []]
