"""DSAG partition bookkeeping (Section VI-C, Examples 1-3) and the gradient cache (Section V)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codedlib.schemes.dsag import (
    GradientCache,
    align_partition,
    gram_schmidt,
    p_start,
    p_stop,
    p_trans,
    subpartition_range,
)


# ---------------------------------------------------------------- Examples 1-3 of the paper
def test_example1_partitions():
    # two workers with n_1 = n_2 = 10 (n = 20): the second worker's rows start at 11
    assert [(p_start(20, 2, i), p_stop(20, 2, i)) for i in (1, 2)] == [(1, 10), (11, 20)]
    assert [(p_start(10, 2, k), p_stop(10, 2, k)) for k in (1, 2)] == [(1, 5), (6, 10)]
    assert [(10 + p_start(10, 2, k), 10 + p_stop(10, 2, k)) for k in (1, 2)] == [(11, 15), (16, 20)]
    # p_1 <- 3: X_{1:3}, X_{4:6}, X_{7:10}
    assert [(p_start(10, 3, k), p_stop(10, 3, k)) for k in (1, 2, 3)] == [(1, 3), (4, 6), (7, 10)]


def _cache_with(ranges_1based, iteration, n=10):
    cache = GradientCache(n, shape=(n,))
    for a, b in ranges_1based:
        cache.insert(a - 1, b, iteration, _indicator(a, b, n))
    return cache


def _indicator(a, b, n=10):
    """Sub-gradient whose j-th entry counts sample j (1-based a..b): exposes double counting."""
    v = np.zeros(n)
    v[a - 1 : b] = 1.0
    return v


def _ranges(cache):
    return [(s + 1, e) for s, e, _, _ in cache.entries()]


def test_example1_eviction():
    cache = _cache_with([(1, 5), (6, 10)], iteration=0)
    assert cache.insert(3, 6, 1, _indicator(4, 6))  # X_{4:6} evicts both entries
    assert _ranges(cache) == [(4, 6)]
    assert cache.n_evicted == 2
    assert cache.coverage == pytest.approx(0.3)
    np.testing.assert_array_equal(cache.H, _indicator(4, 6))


def test_example2_in_order_processing():
    cache = _cache_with([(1, 5), (6, 10)], iteration=0)
    missing = []
    for t, (a, b) in enumerate([(1, 3), (4, 6), (7, 10)], start=1):
        assert cache.insert(a - 1, b, t, _indicator(a, b))
        missing.append(np.flatnonzero(cache.H == 0) + 1)
    assert _ranges(cache) == [(1, 3), (4, 6), (7, 10)]
    assert missing[0].tolist() == [4, 5]  # X_{4:5} missing after step 1
    assert missing[1].tolist() == [7, 8, 9, 10]  # X_{7:10} missing after step 2
    assert missing[2].tolist() == []
    np.testing.assert_array_equal(cache.H, np.ones(10))


def test_example3_alignment_walkthrough():
    steps = []
    assert align_partition(10, 2, 3, 1, trace=steps) == (3, 1)
    # line 1-2: k = 2, k' = 2 (not aligned: 4 != 6); lines 4-5: k' = 1, k = 1 (aligned)
    assert steps == [(2, 2), (1, 1)]
    assert p_start(10, 3, 2) == 4 and p_start(10, 2, 2) == 6
    assert p_trans(10, 2, 3, 2) == 2 and p_trans(10, 3, 2, 1) == 1


def test_alignment_other_solution():
    # n_i = 10, p = 2 -> p' = 4: k = 2 and k' = 3 are aligned (p_start = 6)
    assert align_partition(10, 2, 4, 1) == (4, 3)
    assert p_start(10, 4, 3) == 6 == p_start(10, 2, 2)


def test_alignment_when_partitions_shrink():
    # as printed, Algorithm 2 would decrement k' to 0 here; we stop at k' = 1 (aligned)
    assert align_partition(10, 3, 2, 1) == (2, 1)
    assert align_partition(2, 2, 1, 1) == (1, 1)
    # shrinking with an aligned boundary available: p = 4 -> 2, k = 2 -> 3 starts at 6
    assert align_partition(10, 4, 2, 2) == (2, 2)


def test_no_change_is_eq5():
    assert align_partition(10, 3, 3, 3) == (3, 1)
    assert align_partition(10, 3, 3, 0) == (3, 1)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 200), st.data())
def test_alignment_properties(n, data):
    p = data.draw(st.integers(1, n))
    p_new = data.draw(st.integers(1, n))
    k = data.draw(st.integers(0, p))
    q, k_new = align_partition(n, p, p_new, k)
    assert q == p_new and 1 <= k_new <= p_new
    old_starts = {p_start(n, p, j) for j in range(1, p + 1)}
    assert p_start(n, p_new, k_new) in old_starts
    # p_trans returns the partition containing the given sample
    kk = data.draw(st.integers(1, p))
    kt = p_trans(n, p, p_new, kk)
    assert p_start(n, p_new, kt) <= p_start(n, p, kk) <= p_stop(n, p_new, kt)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 300), st.data())
def test_partitions_tile_the_data(n, data):
    p = data.draw(st.integers(1, n))
    covered = []
    for k in range(1, p + 1):
        lo, hi = subpartition_range(n, p, k)
        assert hi > lo
        covered.extend(range(lo, hi))
    assert covered == list(range(n))


def test_partition_bad_inputs():
    with pytest.raises(ValueError, match="p must satisfy"):
        p_start(10, 11, 1)
    with pytest.raises(ValueError, match="i must satisfy"):
        p_stop(10, 3, 4)
    with pytest.raises(ValueError, match="n must satisfy"):
        p_start(0, 1, 1)
    with pytest.raises(ValueError, match="p_new must satisfy"):
        p_trans(10, 2, 0, 1)
    with pytest.raises(ValueError, match="k must satisfy"):
        align_partition(10, 2, 3, 5)


# ---------------------------------------------------------------- the cache never double counts
@st.composite
def insert_sequences(draw):
    n = draw(st.integers(1, 40))
    ops = []
    for _ in range(draw(st.integers(1, 60))):
        # random re-partitioning: any p and k, any iteration stamp
        p = draw(st.integers(1, n))
        k = draw(st.integers(1, p))
        ops.append((p, k, draw(st.integers(0, 30))))
    return n, ops


@settings(max_examples=300, deadline=None)
@given(insert_sequences())
def test_cache_never_double_counts(case):
    n, ops = case
    cache = GradientCache(n, shape=(n,))
    for p, k, t in ops:
        lo, hi = subpartition_range(n, p, k)
        v = np.zeros(n)
        v[lo:hi] = t + 1.0  # integer-valued: the running sum is exact
        before = cache.entries()
        accepted = cache.insert(lo, hi, t, v)
        overlapping = [e for e in before if e[0] < hi and e[1] > lo]
        assert accepted == all(e[2] < t for e in overlapping)
        entries = cache.entries()
        # disjoint, sorted entries
        for (_s1, e1, *_), (s2, _e2, *_) in itertools.pairwise(entries):
            assert e1 <= s2
        # H is exactly the sum of the cached sub-gradients; every sample counted at most once
        np.testing.assert_array_equal(cache.H, sum((y for *_, y in entries), np.zeros(n)))
        counts = np.zeros(n)
        for s, e, _, _ in entries:
            counts[s:e] += 1
        assert counts.max() <= 1
        assert cache.covered == counts.sum()
        # each covered sample carries the stamp of the entry covering it
        for s, e, tt, _ in entries:
            np.testing.assert_array_equal(cache.H[s:e], tt + 1.0)


def test_cache_rejects_stale_and_equal():
    cache = GradientCache(10, shape=())
    assert cache.insert(0, 5, 3, 1.0)
    assert not cache.insert(0, 5, 3, 2.0)  # t' >= t: rejected
    assert not cache.insert(2, 3, 1, 2.0)
    assert cache.insert(2, 3, 4, 7.0)  # newer: evicts [0, 5)
    assert cache.H == 7.0 and cache.covered == 1 and cache.n_rejected == 2


def test_cache_contained_entry_is_evicted():
    # the old entry strictly contains the new one (missed by the paper's written condition)
    cache = GradientCache(10, shape=())
    cache.insert(0, 10, 0, 10.0)
    assert cache.insert(3, 5, 1, 2.0)
    assert cache.H == 2.0 and cache.covered == 2


def test_cache_bad_inputs():
    with pytest.raises(ValueError, match="n_samples"):
        GradientCache(0)
    cache = GradientCache(5)
    with pytest.raises(ValueError, match="start < stop"):
        cache.insert(3, 3, 0, 1.0)
    with pytest.raises(ValueError, match="stop <= 5"):
        cache.insert(0, 6, 0, 1.0)


def test_gram_schmidt_orthonormal_same_span():
    rng = np.random.default_rng(0)
    V = rng.standard_normal((8, 3))
    Q = gram_schmidt(V)
    np.testing.assert_allclose(Q.T @ Q, np.eye(3), atol=1e-12)
    # same span and triangular relation (classical Gram-Schmidt: V = Q R, R upper, diag > 0)
    R = Q.T @ V
    np.testing.assert_allclose(Q @ R, V, atol=1e-12)
    assert np.all(np.diag(R) > 0) and np.allclose(np.tril(R, -1), 0, atol=1e-12)
