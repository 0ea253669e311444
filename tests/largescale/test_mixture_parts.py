"""Pieces of MixtureSVC's outer loop checked against direct references."""
import numpy as np
import pytest

from kernelnb.datasets import make_large_problem
from kernelnb.largescale import GlobalGater, MixtureSVC
from kernelnb.svm import SVC
from kernelnb.largescale.mixture import (_assign_from_preferences, _subsets, _top_preferences,
                                         balanced_assignment)


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


# ---------------------------------------------------------------------------------------------
# The balance rule: refreshing the preference lists in blocks gives the sequential rule's choices


def _naive_balance(scores, capacity, order):
    """Thesis Alg. 6.1 step 2.3 written plainly: each example in turn takes its best expert
    (ties: lower index) among those holding fewer than ``capacity``."""
    n, k = scores.shape
    counts = np.zeros(k, dtype=int)
    out = np.empty(n, dtype=int)
    for l in order:
        sc = np.where(counts < capacity, scores[l], -np.inf)
        out[l] = int(np.argmax(sc))
        counts[out[l]] += 1
    return out


@pytest.mark.parametrize("k, capacity_extra, dtype", [(40, 1, np.float64), (200, 1, np.float32),
                                                      (200, 30, np.float64), (12, 1, np.float64)])
def test_block_refresh_matches_the_sequential_rule(k, capacity_extra, dtype):
    rng = np.random.default_rng(k + capacity_extra)
    n = 6000
    # clustered preferences: many examples want the same few experts, so most lists run out
    scores = (rng.standard_normal((n, k)) + 3.0 * (rng.random((n, k)) < 0.02)).astype(dtype)
    capacity = n // k + capacity_extra
    order = rng.permutation(n)
    ref = _naive_balance(scores, capacity, order)
    one_by_one = _assign_from_preferences(_top_preferences(scores), lambda l: scores[l], n, k,
                                          capacity, order)
    in_blocks = _assign_from_preferences(_top_preferences(scores), lambda l: scores[l], n, k,
                                         capacity, order, lambda rows: scores[rows])
    np.testing.assert_array_equal(one_by_one, ref)
    np.testing.assert_array_equal(in_blocks, ref)
    np.testing.assert_array_equal(balanced_assignment(scores, capacity, order), ref)
    assert np.bincount(in_blocks, minlength=k).max() <= capacity


def test_balance_rule_with_unusable_scores_still_places_everyone():
    # all-NaN and all -inf rows: the rule falls back to the lowest-index expert not full
    n, k = 500, 40
    scores = np.full((n, k), np.nan)
    scores[::3] = -np.inf
    capacity = n // k + 1
    got = balanced_assignment(scores, capacity, np.arange(n))
    assert np.bincount(got, minlength=k).max() <= capacity
    np.testing.assert_array_equal(got, np.repeat(np.arange(k), capacity)[:n])


@pytest.mark.parametrize("k", [5, 16, 17, 200])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_top_preferences_order_against_lexsort(k, dtype):
    rng = np.random.default_rng(k)
    S = rng.integers(-3, 4, size=(400, k)).astype(dtype)      # many ties
    S[rng.random(S.shape) < 0.05] = np.nan
    S[rng.random(S.shape) < 0.05] = -np.inf
    S[rng.random(S.shape) < 0.02] = np.inf
    got = _top_preferences(S)
    m = min(k, 16)
    key = np.where(np.isnan(S), -np.inf, S)
    for r in range(S.shape[0]):
        # best first: score descending, then index ascending; NaN counts as -inf
        ref = np.lexsort((np.arange(k), -key[r]))[:m]
        np.testing.assert_array_equal(got[r], ref)


@pytest.mark.parametrize("kw", [dict(), dict(gater=GlobalGater(epochs=1, holdout=False)),
                                dict(gater="uniform"), dict(validation_fraction=None),
                                dict(max_validation=50)])
def test_pool_size_is_what_the_experts_share(kw):
    """pool_size(n) -- what a user divides by the expert size M -- is the number of examples the
    first iteration's experts hold between them (validation and held-out points excluded)."""
    X, y = make_large_problem(1200, random_state=1)
    m = MixtureSVC(SVC(sigma="scale"), **{"gater": GlobalGater(epochs=1), **kw}, n_experts=3,
                   max_iter=1, client="serial", random_state=0)
    pool = m.pool_size(X.shape[0])
    m.fit(X, y)
    assert int(np.sum(m.expert_sizes_[0])) == pool
    n_val = (0 if m.validation_fraction is None
             else min(int(m.validation_fraction * 1200), m.max_validation))
    L = 1200 - n_val
    g = m.gater
    held = L // 5 if isinstance(g, GlobalGater) and g.holdout else 0   # the documented rule
    assert pool == L - held


def test_pool_size_checks_its_argument():
    with pytest.raises(ValueError, match="n_samples"):
        MixtureSVC().pool_size(0)
