"""The gradient-code protocol and the one cached decoder (codedlib.codes.protocol).

Both code families satisfy :class:`GradientCodeLike`; :class:`CachedDecoder` returns exactly
the vector a fresh decode gives, for every straggler pattern of every small code (n <= 6),
recovers the full gradient through ``combine`` for every pattern, and keeps at most ``maxsize``
patterns. The places that used to cache on their own (CodedReduce, LAGC's groups) now use it
and give the numbers they gave before, bit for bit.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from codedlib.codes.codedreduce import allocate
from codedlib.codes.cyclic import (
    PAPER_EXAMPLE_A,
    PAPER_EXAMPLE_B,
    GradientCode,
    cyclic_repetition_code,
    gradient_code_from_matrices,
)
from codedlib.codes.protocol import DEFAULT_DECODER_CACHE, CachedDecoder, GradientCodeLike
from codedlib.codes.reed_solomon import (
    ReedSolomonGradientCode,
    reed_solomon_gradient_code,
    straggler_tolerance,
)
from codedlib.schemes import lagc as lagc_schemes

CYCLIC = [(n, s) for n in range(1, 7) for s in range(n)]
RS = [
    (n, k, w)
    for n in range(2, 7)
    for k in range(1, n + 1)
    for w in range(1, k + 1)
    if n * w // k >= 2
]


def _cyclic(n, s):
    return cyclic_repetition_code(n, s)


def _rs(n, k, w):
    return reed_solomon_gradient_code(n, k, w, on_inaccurate="raise")


def _survivor_sets(n, s):
    """Every survivor set that decodes: all straggler patterns of at most s workers."""
    for m in range(n - s, n + 1):
        yield from itertools.combinations(range(n), m)


def test_small_code_lists_cover_both_families():
    assert len(CYCLIC) == 21 and len(RS) >= 20
    assert {straggler_tolerance(*nkw) for nkw in RS} >= {1, 2, 3, 4, 5}


# ---------------------------------------------------------------------------- protocol
@pytest.mark.parametrize(
    "code",
    [
        cyclic_repetition_code(5, 2),
        cyclic_repetition_code(7, 3, rng=1),  # perturbed null space: (s+1) does not divide n
        gradient_code_from_matrices(PAPER_EXAMPLE_B, 1, PAPER_EXAMPLE_A),
        reed_solomon_gradient_code(8, 4, 3),
        reed_solomon_gradient_code(12, 12, 4, root_power="auto"),
    ],
    ids=["cyclic", "cyclic-perturbed", "cr-example", "rs", "rs-auto"],
)
def test_both_codes_satisfy_the_protocol(code):
    assert isinstance(code, GradientCodeLike)
    assert code.n_workers == code.B.shape[0]
    assert 0 <= code.stragglers < code.n_workers
    a = code.decode(np.arange(code.stragglers, code.n_workers))
    assert a.shape == (code.n_workers,) and np.all(a[: code.stragglers] == 0)
    np.testing.assert_allclose(a @ code.B, 1.0, atol=1e-9)


def test_rs_protocol_names_are_its_n_and_s():
    code = reed_solomon_gradient_code(8, 4, 3)
    assert (code.n_workers, code.stragglers) == (code.n, code.s) == (8, 5)
    assert isinstance(code, ReedSolomonGradientCode)


def test_other_objects_are_not_codes():
    for obj in (PAPER_EXAMPLE_B, object(), {"B": PAPER_EXAMPLE_B}):
        assert not isinstance(obj, GradientCodeLike)
        with pytest.raises(TypeError, match="code must be a gradient code"):
            CachedDecoder(obj)


# ---------------------------------------------------------------------------- the cache
def _check_every_pattern(code, rng):
    """The cached vector is the fresh decode's, bit for bit, in any survivor order, and
    ``combine`` recovers the full gradient for every pattern."""
    decoder = CachedDecoder(code)
    n = code.n_workers
    G = rng.standard_normal((code.B.shape[1], 3))
    exact = G.sum(axis=0)
    sets = list(_survivor_sets(n, code.stragglers))
    for _round in range(2):  # the second round is answered from the cache
        for survivors in sets:
            fresh = code.decode(np.array(survivors))
            shuffled = rng.permutation(survivors)
            cached = decoder.vector(shuffled)
            np.testing.assert_array_equal(cached, fresh)
            assert not cached.flags.writeable
            total = decoder.combine(code.B[shuffled] @ G, shuffled)
            np.testing.assert_allclose(total.real, exact, rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(total.imag, 0.0, atol=1e-9)
    assert len(decoder) == decoder.misses == len(sets)
    assert decoder.hits == 3 * len(sets)


@pytest.mark.parametrize("n, s", CYCLIC)
def test_cyclic_cache_and_recovery_every_pattern(n, s):
    _check_every_pattern(_cyclic(n, s), np.random.default_rng(10 * n + s))


@pytest.mark.parametrize("n, k, w", RS)
def test_reed_solomon_cache_and_recovery_every_pattern(n, k, w):
    _check_every_pattern(_rs(n, k, w), np.random.default_rng(100 * n + 10 * k + w))


def test_cr_example_code_every_pattern():
    _check_every_pattern(
        gradient_code_from_matrices(PAPER_EXAMPLE_B, 1, PAPER_EXAMPLE_A), np.random.default_rng(3)
    )


def test_rs_with_more_than_f_survivors_uses_the_first_f_sorted():
    """Algorithm 3 decodes from f survivors; given more, the cache (like every caller before
    it) decodes ``sorted(survivors)``, whose first f are used."""
    code = _rs(6, 6, 3)  # s = 2, f = 4
    decoder = CachedDecoder(code)
    a = decoder.vector([5, 3, 0, 1, 4])
    np.testing.assert_array_equal(a, code.decode([0, 1, 3, 4, 5]))
    assert np.flatnonzero(a).tolist() == [0, 1, 3, 4]


def test_cache_is_bounded_least_recently_used():
    code = _cyclic(6, 2)
    decoder = CachedDecoder(code, maxsize=3)
    sets = list(_survivor_sets(6, 2))
    for survivors in sets:
        decoder.vector(survivors)
        assert len(decoder) <= 3
    assert len(decoder) == 3 and decoder.misses == len(sets) and decoder.hits == 0
    decoder = CachedDecoder(code, maxsize=3)
    first, second, third, fourth = sets[:4]
    for survivors in (first, second, third, first, fourth):  # fourth evicts second, not first
        decoder.vector(survivors)
    assert (decoder.hits, decoder.misses) == (1, 4)
    decoder.vector(first)
    assert decoder.hits == 2
    decoder.vector(second)
    assert decoder.misses == 5
    assert CachedDecoder(code).maxsize == DEFAULT_DECODER_CACHE


def test_cache_bad_input():
    code = _cyclic(5, 2)
    decoder = CachedDecoder(code)
    with pytest.raises(ValueError, match="maxsize must satisfy 1 <= maxsize"):
        CachedDecoder(code, maxsize=0)
    with pytest.raises(TypeError, match="maxsize must be an integer"):
        CachedDecoder(code, maxsize="8")
    with pytest.raises(TypeError, match="survivors must be integer worker indices"):
        decoder.vector([0.0, 1.0, 2.0])
    with pytest.raises(TypeError, match="np.flatnonzero"):
        decoder.vector(np.ones(5, dtype=bool))
    with pytest.raises(ValueError, match="1-d sequence"):
        decoder.vector([[0, 1, 2]])
    with pytest.raises(ValueError, match="need at least n - s = 3 survivors"):
        decoder.vector([0, 1])
    with pytest.raises(ValueError, match="distinct"):
        decoder.vector([0, 1, 1])
    with pytest.raises(ValueError, match="messages must have one row per survivor"):
        decoder.combine(np.ones((2, 4)), [0, 1, 2])
    assert len(decoder) == 0 and decoder.misses == 0  # failures are not cached
    with pytest.raises(ValueError, match="need at least f=1 survivors"):
        CachedDecoder(_rs(6, 6, 6)).vector([])


# ---------------------------------------------------------------------------- its users
def test_codedreduce_decodes_through_the_cache():
    alloc = allocate(3, 2, 1, 36, rng=0)
    assert isinstance(alloc._decoder, CachedDecoder) and alloc._decoder.code is alloc.code
    for survivors in _survivor_sets(3, 1):
        a = alloc.decoding_coefficients(list(reversed(survivors)))
        np.testing.assert_array_equal(a, alloc.code.decode(np.array(survivors)))
        assert a is alloc.decoding_coefficients(survivors)
    assert alloc._decoder.misses == 4 and alloc._decoder.hits == 4


@pytest.mark.parametrize("n, stored", [(3, 2), (4, 3), (6, 2), (6, 4), (5, 5)])
def test_lagc_group_decoder_gives_the_old_numbers(n, stored):
    """LAGC's group decoder gives exactly what its own cache gave: ``a_F @ (B_F @ G)``."""
    rng = np.random.default_rng(n * stored)
    grads = rng.standard_normal((n, 4))
    decoder = lagc_schemes._Decoder(n, stored)
    assert isinstance(decoder.code, GradientCode)
    for survivors in itertools.combinations(range(n), n - stored + 1):
        key = np.array(survivors)
        old = decoder.code.decode(key)[key] @ (decoder.code.B[key] @ grads)
        np.testing.assert_array_equal(decoder.decode(grads, key), old)
    assert decoder.cached.hits == 0 and len(decoder.cached) == decoder.cached.misses
