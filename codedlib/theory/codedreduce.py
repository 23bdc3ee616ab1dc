"""Closed forms of CodedReduce: loads (Theorem 1, eq. 5; Remark 2), Table I and Theorem 2's
bounds (7)-(8) without their o(.) terms, with the appendix rate ``mu / (r_CR d)`` (the printed
eq. (6) has ``mu / a``) and the single-port model (``t_c`` per incoming message).

Reference: reisizadeh2022codedreduce, tandon2017gradient.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import check_int, check_real

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike


def check_tree(n: int, L: int, s: int | None = None) -> tuple[int, ...]:
    """The one check of an (n, L)-regular tree (CR Section III-A) and its straggler tolerance."""
    n = check_int("n", n, 1)
    L = check_int("L", L, 1)
    if s is None:
        return n, L
    s = check_int("s", s, 0)
    if s >= n:
        raise ValueError(f"s must satisfy 0 <= s < n, got s={s}, n={n}")
    return n, L, s


def n_tree_workers(n: int, L: int) -> int:
    """``N = n + n^2 + ... + n^L`` (Fig. 5)."""
    n, L = check_tree(n, L)
    return sum(n**layer for layer in range(1, L + 1))


def r_cr(n: int, s: int, L: int, exact: bool = False) -> float | Fraction:
    """Computation load of CodedReduce, Theorem 1 eq. (5).

    ``r_CR = 1 / ((n/(s+1)) + (n/(s+1))^2 + ... + (n/(s+1))^L)``; a ``Fraction`` if ``exact``.

    Examples
    --------
    >>> r_cr(3, 1, 2, exact=True)
    Fraction(4, 15)
    """
    n, L, s = check_tree(n, L, s)
    ratio = Fraction(n, s + 1)
    value = 1 / sum(ratio**layer for layer in range(1, L + 1))
    return value if exact else float(value)


def r_gc(N: int, S: int) -> float:
    """Gradient coding load ``(S + 1) / N`` (Section II-C; Remark 2)."""
    N = check_int("N", N, 1)
    S = check_int("S", S, 0, N - 1)
    return (S + 1) / N


def load_vs_alpha(alpha: ArrayLike, L: int, n: int | None = None) -> np.ndarray:
    """CR load as a function of the per-parent resiliency ``alpha = s/n`` (Remark 2).

    With ``n``: ``1 / sum_l (n/(alpha n + 1))^l`` (any real ``alpha n``); else the large-n limit
    ``1 / sum_l alpha^-l`` (``~ alpha^L``). ``L = 1`` is GC.
    """
    L = check_int("L", L, 1)
    alpha = np.asarray(alpha, dtype=float)
    if np.any((alpha <= 0) | (alpha >= 1)) or not np.all(np.isfinite(alpha)):
        raise ValueError(f"alpha must satisfy 0 < alpha < 1, got alpha={alpha}")
    if n is not None:
        n = check_int("n", n, 1)
    ratio = 1.0 / alpha if n is None else n / (alpha * n + 1.0)
    return 1.0 / sum(ratio**layer for layer in range(1, L + 1))


def alpha_for_load(r: float, L: int, n: int | None = None) -> float:
    """Resiliency CR reaches at load r: the largest ``alpha`` with ``load_vs_alpha <= r``.

    With ``n``: the largest ``s/n`` with ``r_CR(n, s, L) <= r``; else the large-n limit
    solving ``sum_l alpha^-l = 1/r`` (``alpha ~ r^(1/L)``, Table I).
    """
    r = check_real("r", r, 0.0, 1.0, low_open=True)
    L = check_int("L", L, 1)
    if n is not None:
        n = check_int("n", n, 1)
        return max([s for s in range(n) if r_cr(n, s, L) <= r + 1e-15], default=0) / n
    lo, hi = 0.0, 1.0  # load_vs_alpha increases in alpha
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        ok = mid > 0 and 1.0 / sum(mid ** (-layer) for layer in range(1, L + 1)) <= r
        lo, hi = (mid, hi) if ok else (lo, mid)
    return lo


def table_one(N: int, r: float, L: int, n: int | None = None) -> pd.DataFrame:
    """Table I: resiliency alpha and parallelisation gain beta of RAR, GC and CR at load r.

    ``beta_order`` without constants; ``alpha_exact`` on the (n, L) tree when ``n`` is given.
    """
    import pandas as pd

    N = check_int("N", N, 1)
    r = check_real("r", r, 0.0, 1.0, low_open=True)
    if n is not None and n_tree_workers(n, L) != N:
        raise ValueError(
            f"N must equal n + ... + n^L = {n_tree_workers(n, L)} for n={n}, L={L}, got N={N}"
        )
    gc_alpha = math.floor(r * N - 1 + 1e-12) / N if r * N >= 1 else 0.0
    cr_alpha = alpha_for_load(r, L, n)  # checks L
    rows = [
        ("RAR", "0", "Θ(N)", 0.0, 0.0, float(N)),
        ("GC", "r", "Θ(1)", r, gc_alpha, 1.0),
        ("CR", "r^(1/L)", "Θ(N^(1-1/L))", r ** (1.0 / L), cr_alpha, float(N) ** (1.0 - 1.0 / L)),
    ]
    columns = ["scheme", "alpha_paper", "beta_paper", "alpha_approx", "alpha_exact", "beta_order"]
    return pd.DataFrame(rows, columns=columns).set_index("scheme")


def theorem2_bounds(
    n: int, L: int, s: int, d: float, a: float, mu: float, t_c: float
) -> dict[str, float]:
    """Theorem 2 bounds on ``E[T_CR]`` with the ``o(.)`` terms dropped, eqs. (7)-(8).

    ``lower = (r d/mu) log(1/alpha) + a r d + (n (1 - alpha) + L - 1) t_c``
    ``upper = (r d/mu) log(1/alpha) + a r d + n L t_c``
    with ``r = r_CR(n, s, L)``, ``alpha = s/n``; also the proof's ``sibling_order_statistic``
    ``E[T_(n-s)] = (r d/mu)(H_n - H_s) + a r d`` of the (n-s)-th fastest sibling (Appendix D).
    """
    n, L, s = check_tree(n, L, s)
    if s < 1:
        raise ValueError(f"s must satisfy 1 <= s < n for Theorem 2 (log(1/alpha)), got s={s}")
    d = check_real("d", d, 0.0, low_open=True)
    a = check_real("a", a, 0.0)
    mu = check_real("mu", mu, 0.0, low_open=True)
    t_c = check_real("t_c", t_c, 0.0)
    alpha = s / n
    load = r_cr(n, s, L) * d
    computation = load / mu * math.log(1.0 / alpha) + a * load
    lower_comm = (n * (1.0 - alpha) + L - 1) * t_c
    from codedlib.latency.order_stats import harmonic_number  # scipy.stats: not on a rank's path

    out = dict(N=n_tree_workers(n, L), computation=computation, lower_communication=lower_comm)
    out |= dict(lower=computation + lower_comm, upper=computation + n * L * t_c)
    sibling = load / mu * (harmonic_number(n) - harmonic_number(s)) + a * load
    return out | dict(sibling_order_statistic=sibling)
