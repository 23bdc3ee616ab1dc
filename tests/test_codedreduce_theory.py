"""CodedReduce closed forms: Theorem 1 (eq. 5), Remark 2, Table I, Theorem 2 (eqs. 7-8)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from codedlib.latency.order_stats import harmonic_number
from codedlib.theory.codedreduce import (
    alpha_for_load,
    load_vs_alpha,
    n_tree_workers,
    r_cr,
    r_gc,
    table_one,
    theorem2_bounds,
)


def test_r_cr_paper_values():
    assert r_cr(3, 1, 2, exact=True) == Fraction(4, 15)  # Example 2
    assert r_cr(3, 1, 2) == pytest.approx(4 / 15)
    # L = 1 is gradient coding: (s+1)/n
    for n in range(1, 9):
        for s in range(n):
            assert r_cr(n, s, 1, exact=True) == Fraction(s + 1, n)
            assert r_gc(n, s) == pytest.approx((s + 1) / n)
    # the experiments' trees: (4,3) alpha = 1/4 and (12,2) alpha = 1/12
    assert r_cr(4, 1, 3, exact=True) == Fraction(1, 14)
    assert r_cr(12, 1, 2, exact=True) == Fraction(1, 42)


def test_r_cr_solves_the_achievability_recursion_eq13():
    # |D^T(L,i)| from (13) equals r_CR d
    for n, s, L in [(3, 1, 2), (5, 2, 3), (12, 3, 2), (7, 0, 4)]:
        q = Fraction(s + 1, n)
        r = r_cr(n, s, L, exact=True)
        size = q
        for _ in range(1, L):
            size = q * (size - r)
        assert size == r


def test_remark2_seven_times_at_alpha_half():
    gc = load_vs_alpha(0.5, 1)
    cr3 = load_vs_alpha(0.5, 3)
    assert gc == pytest.approx(0.5)
    assert gc / cr3 == pytest.approx(7.0)
    # finite n approaches the limit, and r_CR ~ alpha^L for small alpha
    assert load_vs_alpha(0.5, 3, n=10_000) == pytest.approx(cr3, rel=1e-3)
    assert load_vs_alpha(0.01, 2) / 0.01**2 == pytest.approx(1.0, rel=0.02)
    # with alpha n integral the finite-n formula is r_CR itself
    assert load_vs_alpha(0.25, 2, n=12) == pytest.approx(r_cr(12, 3, 2))


def test_alpha_for_load_inverts_load_vs_alpha():
    for L in (1, 2, 3):
        for alpha in (0.1, 0.25, 0.5):
            r = float(load_vs_alpha(alpha, L))
            assert alpha_for_load(r, L) == pytest.approx(alpha, rel=1e-9)
    assert alpha_for_load(r_cr(12, 3, 2), 2, n=12) == pytest.approx(3 / 12)
    assert alpha_for_load(r_cr(12, 3, 2) * 0.999, 2, n=12) == pytest.approx(2 / 12)


def test_table_one():
    N, r, L = 156, float(r_cr(12, 3, 2)), 2
    tab = table_one(N, r, L, n=12)
    assert list(tab.index) == ["RAR", "GC", "CR"]
    assert tab.loc["RAR", "alpha_exact"] == 0 and tab.loc["RAR", "beta_order"] == N
    assert tab.loc["GC", "beta_order"] == 1
    assert tab.loc["CR", "alpha_exact"] == pytest.approx(0.25)
    assert tab.loc["CR", "alpha_approx"] == pytest.approx(r**0.5)
    assert tab.loc["CR", "beta_order"] == pytest.approx(N**0.5)
    # GC at the same load tolerates floor(rN - 1) of N
    assert tab.loc["GC", "alpha_exact"] == pytest.approx(math.floor(r * N - 1 + 1e-12) / N)
    with pytest.raises(ValueError, match="N must equal"):
        table_one(100, r, L, n=12)


def test_theorem2_bounds_formulae():
    b = theorem2_bounds(n=20, L=2, s=5, d=10_000, a=5e-5, mu=2e4, t_c=0.05)
    load = r_cr(20, 5, 2) * 10_000
    comp = load / 2e4 * math.log(4) + 5e-5 * load
    assert b["lower"] == pytest.approx(comp + (20 * 0.75 + 1) * 0.05)
    assert b["upper"] == pytest.approx(comp + 20 * 2 * 0.05)
    assert b["lower"] < b["upper"]
    want = load / 2e4 * (harmonic_number(20) - harmonic_number(5)) + 5e-5 * load
    assert b["sibling_order_statistic"] == pytest.approx(want)
    assert b["N"] == n_tree_workers(20, 2) == 420


def test_theory_errors():
    with pytest.raises(ValueError, match=r"s must satisfy 0 <= s < n, got s=4, n=4"):
        r_cr(4, 4, 2)
    with pytest.raises(ValueError, match="L must satisfy"):
        r_cr(4, 1, 0)
    with pytest.raises(ValueError, match="n must satisfy"):
        r_cr(0, 0, 1)
    with pytest.raises(ValueError, match="1 <= s < n for Theorem 2"):
        theorem2_bounds(4, 2, 0, 100, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="alpha must satisfy"):
        load_vs_alpha(np.array([0.2, 1.0]), 2)
