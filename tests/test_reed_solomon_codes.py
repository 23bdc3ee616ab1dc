"""Reed–Solomon gradient codes: masks (Alg. 1, 4), encoding (Alg. 2), decoding (Alg. 3)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codedlib.codes.reed_solomon import (
    accuracy_limit,
    decoding_accuracy,
    encoding_matrix,
    least_squares_decoding_vector,
    mask_matrix,
    reed_solomon_gradient_code,
    roots_of_unity,
    row_balanced_mask_matrix,
    straggler_tolerance,
    vandermonde_decoding_vector,
    well_conditioned_root_power,
    worst_case_survivors,
)

EQ5 = np.array(
    [
        [1, 1, 1, 0],
        [1, 1, 1, 0],
        [1, 1, 0, 1],
        [1, 1, 0, 1],
        [1, 0, 1, 1],
        [1, 0, 1, 1],
        [0, 1, 1, 1],
        [0, 1, 1, 1],
    ]
)


def test_algorithm1_reproduces_eq5():
    np.testing.assert_array_equal(row_balanced_mask_matrix(8, 4, 6, 0), EQ5)
    # Algorithm 4 with k | nw is Algorithm 1 with d = nw/k
    np.testing.assert_array_equal(mask_matrix(8, 4, 3), EQ5)


def test_encoding_matrix_of_eqs_7_to_10():
    """Column j is kappa_j times the product over its two zeros, with t_j(0) = 1."""
    n = 8
    alpha = np.exp(2j * np.pi / n)
    B = encoding_matrix(8, 4, 3)
    zeros = {0: (6, 7), 1: (4, 5), 2: (2, 3), 3: (0, 1)}  # eqs. (7)-(10)
    x = alpha ** np.arange(n)
    for j, (r1, r2) in zeros.items():
        kappa = 1.0 / (alpha**r1 * alpha**r2)  # t_j(0) = kappa * a^r1 * a^r2 = 1
        expected = kappa * (x - alpha**r1) * (x - alpha**r2)
        np.testing.assert_allclose(B[:, j], expected, atol=1e-13)
    assert np.all((B != 0) == (EQ5 == 1))


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 60), k=st.integers(1, 60), d=st.integers(0, 60), t=st.integers(0, 59))
def test_algorithm1_weights_follow_corollary1(n, k, d, t):
    d = min(d, n)
    t = t % n
    M = row_balanced_mask_matrix(n, k, d, t)
    assert set(np.unique(M)) <= {0, 1}
    np.testing.assert_array_equal(M.sum(axis=0), d)
    heavy_rows = (t + np.arange((k * d) % n)) % n  # eq. (26)
    expected = np.full(n, k * d // n)
    expected[heavy_rows] += 1
    np.testing.assert_array_equal(M.sum(axis=1), expected)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 80), k=st.integers(1, 80), w=st.integers(1, 80))
def test_algorithm4_rows_weight_w_and_columns_balanced(n, k, w):
    w = min(w, k)
    M = mask_matrix(n, k, w)
    assert M.shape == (n, k)
    np.testing.assert_array_equal(M.sum(axis=1), w)  # Lemma 1 / Section 8.3
    cols = M.sum(axis=0)
    assert set(cols.tolist()) <= {n * w // k, -(-n * w // k)}  # column-balanced (Def. 1)
    assert cols.sum() == n * w


def _random_code_and_survivors(data, n_max=40, root_power=1):
    n = data.draw(st.integers(2, n_max), label="n")
    k = data.draw(st.integers(1, n_max), label="k")
    w_min = max(1, math.ceil(2 * k / n))
    if w_min > k:
        k = data.draw(st.integers(1, n), label="k_small")
        w_min = max(1, math.ceil(2 * k / n))
    w = data.draw(st.integers(w_min, k), label="w")
    code = reed_solomon_gradient_code(n, k, w, root_power)
    perm = data.draw(st.permutations(list(range(n))), label="order")
    return code, np.array(perm[: code.f])


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_f_rows_decode_to_all_ones_well_conditioned_root(data):
    """a B_F = 1 to 1e-9 for every n <= 40 with a well-conditioned primitive root."""
    code, F = _random_code_and_survivors(data, root_power="auto")
    assert code.s == straggler_tolerance(code.n, code.k, code.w) == code.n * code.w // code.k - 1
    np.testing.assert_array_equal(np.abs(code.B) > 0, code.M == 1)
    a = code.decoding_vector(F)
    np.testing.assert_allclose(a @ code.B[F], np.ones(code.k), rtol=0, atol=1e-9)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_f_rows_decode_paper_root(data):
    """alpha = exp(2 pi i/n): a B_F = 1 to 1e-9 up to n = 30 and to its round-off bound beyond."""
    code, F = _random_code_and_survivors(data, root_power=1)
    a = code.decoding_vector(F)
    residual = np.abs(a @ code.B[F] - 1)
    if code.n <= 30:
        assert residual.max() <= 1e-9
    # forward error of a sum of f products of f-term products: f * 2f * eps * sum |a_l B_lj|
    bound = 4 * code.f**2 * np.finfo(float).eps * (np.abs(a) @ np.abs(code.B[F]))
    assert np.all(residual <= bound + 1e-12)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_algorithm3_equals_least_squares(data):
    code, F = _random_code_and_survivors(data, n_max=40, root_power=1)
    a = code.decoding_vector(F, check=False)  # Algorithm 3
    # eq. (12) solved densely: always unique
    np.testing.assert_allclose(a, vandermonde_decoding_vector(F, code.n), rtol=1e-7, atol=1e-9)
    B_F = code.B[F]
    a_ls = least_squares_decoding_vector(B_F)
    np.testing.assert_allclose(a_ls @ B_F, np.ones(code.k), atol=1e-8)
    if np.linalg.matrix_rank(B_F) == code.f:  # unique solution of a B_F = 1
        np.testing.assert_allclose(a, a_ls, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("n, w", [(21, 4), (37, 9), (40, 7)])
def test_least_squares_unique_case_many_chunks(n, w):
    # k = n and gcd(n, d) = 1: the k columns are distinct cyclic shifts, B_F has rank f
    code = reed_solomon_gradient_code(n, n, w)
    rng = np.random.default_rng(3)
    for _ in range(10):
        F = rng.permutation(n)[: code.f]
        assert np.linalg.matrix_rank(code.B[F]) == code.f
        np.testing.assert_allclose(
            code.decoding_vector(F), least_squares_decoding_vector(code.B[F]), rtol=1e-6, atol=1e-9
        )


def test_recovered_gradient_is_real_and_exact():
    code = reed_solomon_gradient_code(24, 12, 3)  # k | nw: d = 6, s = 5
    rng = np.random.default_rng(0)
    g = rng.standard_normal((12, 7))
    C = code.B @ g  # eq. (3): the coded rows
    for _ in range(20):
        F = rng.permutation(24)[: code.f + 2]  # extra survivors are ignored
        total = code.decoding_vector(F) @ C[F[: code.f]]  # eq. (4): a_F C_F = 1 g
        np.testing.assert_allclose(total.real, g.sum(axis=0), atol=1e-10)
        assert np.abs(total.imag).max() < 1e-10


def test_every_survivor_set_small_code():
    """Exhaustive: every f-subset of n = 9 workers recovers the gradient (k not dividing nw)."""
    from itertools import combinations

    code = reed_solomon_gradient_code(9, 6, 4)  # nw/k = 6: d_h = d_l = 6 ... k | nw
    code2 = reed_solomon_gradient_code(9, 7, 4)  # nw/k = 36/7: k_h = 1, d_h = 6, d_l = 5
    for c in (code, code2):
        for F in combinations(range(9), c.f):
            a = c.decoding_vector(list(F))
            np.testing.assert_allclose(a @ c.B[list(F)], 1, atol=1e-11)
    assert code2.s == 4 and list(np.sum(code2.M, axis=0)) == [6, 5, 5, 5, 5, 5, 5]


def test_root_power_changes_points_not_guarantees():
    pts = roots_of_unity(10, 3)
    assert len(set(np.round(pts, 12))) == 10
    q = well_conditioned_root_power(80, 80, 13)
    assert math.gcd(q, 80) == 1
    paper = reed_solomon_gradient_code(80, 80, 13)
    good = reed_solomon_gradient_code(80, 80, 13, q)
    assert np.abs(good.B).max() < 1e-3 * np.abs(paper.B).max()


def test_worst_case_survivors_are_arc_complements():
    F = worst_case_survivors(10, 7, 1, start=8)
    np.testing.assert_array_equal(np.setdiff1d(np.arange(10), F), [0, 8, 9])
    F3 = worst_case_survivors(10, 7, 3)
    missing_points = np.angle(roots_of_unity(10, 3)[np.setdiff1d(np.arange(10), F3)])
    np.testing.assert_allclose(
        np.sort(np.mod(missing_points, 2 * np.pi)), 2 * np.pi * np.arange(3) / 10, atol=1e-12
    )


def test_accuracy_degrades_with_n_and_limit_found():
    table, limits = accuracy_limit([10, 40, 80, 120], load=0.15, root_power=1, rng=0)
    errors = table["worst_error"].to_numpy()
    assert np.all(np.diff(errors) > 0)
    assert errors[0] < 1e-12 and errors[-1] > 1e-6
    assert limits["worst"] in (40, 80)
    assert np.all(table["worst_error"] >= table["random_error"] * 0.999)
    # the imaginary part is round-off of the same size as the error
    assert np.all(table["worst_imag"] <= 10 * table["worst_error"] + 1e-15)
    auto = decoding_accuracy(120, 120, 18, "auto", rng=0)
    assert auto["worst_error"] < 1e-8


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: mask_matrix(8, 4, 5), "w must satisfy 1 <= w <= k"),
        (lambda: reed_solomon_gradient_code(8, 8, 1), r"floor\(n\*w/k\) must be >= 2"),
        (lambda: encoding_matrix(10, 7, 1), "use w >= 2"),
        (lambda: row_balanced_mask_matrix(8, 4, 9), "d must satisfy 0 <= d <= 8"),
        (lambda: reed_solomon_gradient_code(8, 4, 3, root_power=2), "coprime"),
        (lambda: reed_solomon_gradient_code(8, 4, 3).decode([0, 1]), "at least f=3"),
        (lambda: reed_solomon_gradient_code(8, 4, 3).decode([0, 1, 1]), "distinct"),
        (lambda: reed_solomon_gradient_code(8, 4, 3).decode([0, 1, 8]), "0 <= index < n=8"),
        (lambda: mask_matrix(8, 0, 1), "k must satisfy 1 <= k"),
    ],
)
def test_bad_inputs_raise_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_k_not_dividing_nw_is_explicit():
    """k ∤ nw is handled by Algorithm 4 (not an error): s = floor(nw/k) - 1."""
    code = reed_solomon_gradient_code(10, 4, 3)  # nw/k = 7.5
    assert (code.s, code.f) == (6, 4)
    assert sorted(code.M.sum(axis=0).tolist()) == [7, 7, 8, 8]
    F = [9, 2, 5, 6]
    np.testing.assert_allclose(code.decoding_vector(F) @ code.B[F], 1, atol=1e-12)
    # shared GradientCode interface: length-n vector, zero off the first f survivors
    a = code.decode(F + [0, 1])
    assert a.shape == (10,) and np.all(a[[0, 1, 3, 4, 7, 8]] == 0)
    np.testing.assert_allclose(a @ code.B, 1, atol=1e-12)


def test_every_decoding_is_checked_and_garbage_is_never_silent():
    """Issue 12 item 6: with the paper's root at n = 118, f = 100 Algorithm 3's vector misses
    a B_F = 1 by ~1; the code warns (default) or raises with the measured residual, and the
    better-spread root decodes the same survivors accurately."""
    import warnings

    from codedlib.codes.reed_solomon import DecodingAccuracyError, DecodingAccuracyWarning

    F = np.sort(np.random.default_rng(0).choice(118, 100, replace=False))
    paper = reed_solomon_gradient_code(118, 118, 19, 1)
    with pytest.warns(DecodingAccuracyWarning, match=r"misses a·B_F = 1 by [0-9.e+-]+ \(tolerance"):
        paper.decode(F)
    strict = reed_solomon_gradient_code(118, 118, 19, 1, on_inaccurate="raise")
    with pytest.raises(DecodingAccuracyError, match="root_power='auto'"):
        strict.decoding_vector(F)
    assert strict.residual(F) > 1e-3
    good = reed_solomon_gradient_code(118, 118, 19, "auto", on_inaccurate="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = good.decode(F)
    assert np.abs(a @ good.B - 1).max() < 1e-10
    with pytest.raises(ValueError, match="on_inaccurate must be"):
        reed_solomon_gradient_code(8, 4, 3, on_inaccurate="maybe")
