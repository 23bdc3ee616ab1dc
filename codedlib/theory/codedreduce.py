"""Closed forms of CodedReduce (Reisizadeh, Prakash, Pedarsani, Avestimehr, IEEE/ACM ToN 2021).

* :func:`r_cr` — computation load of CR on an (n, L)-regular tree tolerating s stragglers
  per parent, Theorem 1 / eq. (5); also the converse: every scheme robust to s stragglers per
  parent on that tree needs load ``r >= r_CR`` (:func:`theorem1_lower_bound`).
* :func:`r_gc` — gradient coding's load ``(S+1)/N`` (Section II-C, Remark 2).
* :func:`load_vs_alpha` — loads as a function of the resiliency ``alpha = s/n`` (Remark 2:
  ``r_CR ~ alpha^L``, "7x at alpha = 0.5" from L = 1 to L = 3).
* :func:`table_one` — Table I: straggler resiliency and communication parallelisation gain
  of RAR, GC and CR at computation load r.
* :func:`theorem2_bounds` — Theorem 2's bounds (7)-(8) on ``E[T_CR]`` under the shifted
  exponential model with the *appendix* rate ``mu / (r_CR d)`` (the proof's convention; the
  printed eq. (6) has rate ``mu / a``, see ``codedlib.latency.models.codedreduce_compute_time``)
  and the single-port model (one incoming message at a time, ``t_c`` each). The ``o(.)``
  terms are dropped, so they are asymptotic statements in n with alpha and L fixed.

References
----------
.. [CR] A. Reisizadeh, S. Prakash, R. Pedarsani, A. S. Avestimehr, "CodedReduce: A Fast and
   Robust Framework for Gradient Aggregation in Distributed Learning", IEEE/ACM Trans.
   Networking 30(1), 2022, arXiv:1902.01981.
.. [GC] R. Tandon, Q. Lei, A. G. Dimakis, N. Karampatziakis, "Gradient Coding: Avoiding
   Stragglers in Distributed Learning", ICML (PMLR 70), 2017, arXiv:1612.03301.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from codedlib._validation import check_int, check_real
from codedlib.latency.order_stats import harmonic_number

__all__ = [
    "alpha_for_load",
    "check_tree",
    "expected_sibling_order_statistic",
    "load_vs_alpha",
    "n_tree_workers",
    "r_cr",
    "r_gc",
    "table_one",
    "theorem1_lower_bound",
    "theorem2_bounds",
]


def check_tree(n, L, s=None):
    """The one check of an (n, L)-regular tree (CR Section III-A) and its straggler tolerance.

    Parameters
    ----------
    n : int >= 1
        Children per node.
    L : int >= 1
        Layers below the master.
    s : int, 0 <= s < n, optional
        Stragglers tolerated among each node's children.

    Returns
    -------
    tuple
        ``(n, L)``, or ``(n, L, s)`` when ``s`` is given, as ints; ``ValueError`` naming the
        parameter, its value and the allowed range otherwise.
    """
    n = check_int("n", n, 1)
    L = check_int("L", L, 1)
    if s is None:
        return n, L
    s = check_int("s", s, 0)
    if s >= n:
        raise ValueError(f"s must satisfy 0 <= s < n, got s={s}, n={n}")
    return n, L, s


def _check_nsl(n, s, L):
    n, L, s = check_tree(n, L, s)
    return n, s, L


def n_tree_workers(n: int, L: int) -> int:
    """``N = n + n^2 + ... + n^L`` (Fig. 5).

    Parameters
    ----------
    n : int
        Children per node of the (n, L)-regular tree. Must satisfy ``1 <= n``.
    L : int
        Number of worker layers of the tree. Must satisfy ``1 <= L``.

    Returns
    -------
    int
        ``N = n + n^2 + ... + n^L`` (Fig. 5).
    """
    n = check_int("n", n, 1)
    L = check_int("L", L, 1)
    return sum(n**layer for layer in range(1, L + 1))


def r_cr(n: int, s: int, L: int, exact: bool = False):
    """Computation load of CodedReduce, Theorem 1 eq. (5).

    ``r_CR = 1 / ((n/(s+1)) + (n/(s+1))^2 + ... + (n/(s+1))^L)``; a ``Fraction`` if ``exact``.

    Parameters
    ----------
    n : int
        Children per node of the (n, L)-regular tree. Must satisfy ``1 <= n``.
    s : int
        Stragglers tolerated among each node's children. Must satisfy ``0 <= s``.
    L : int
        Number of worker layers of the tree. Must satisfy ``1 <= L``.
    exact : bool, default False
        Return a ``fractions.Fraction``.

    Returns
    -------
    float or fractions.Fraction
        Computation load r_CR.

    Examples
    --------
    >>> r_cr(3, 1, 2, exact=True)
    Fraction(4, 15)
    """
    n, s, L = _check_nsl(n, s, L)
    ratio = Fraction(n, s + 1)
    value = 1 / sum(ratio**layer for layer in range(1, L + 1))
    return value if exact else float(value)


def theorem1_lower_bound(n: int, s: int, L: int) -> float:
    """Theorem 1 converse: any scheme on an (n, L)-regular tree robust to any s stragglers per
    parent has computation load ``r >= r_CR(n, s, L)`` (Appendix C-B). Returns that bound.

    Parameters
    ----------
    n : int
        Children per node of the (n, L)-regular tree. Must satisfy ``1 <= n``.
    s : int
        Stragglers tolerated among each node's children. Must satisfy ``0 <= s``.
    L : int
        Number of worker layers of the tree. Must satisfy ``1 <= L``.

    Returns
    -------
    float
        Theorem 1 converse: any scheme on an (n, L)-regular tree robust to any s stragglers per
        parent has computation load ``r >= r_CR(n, s, L)`` (Appendix C-B).
    """
    return r_cr(n, s, L)


def r_gc(N: int, S: int) -> float:
    """Gradient coding load ``(S + 1) / N`` (Section II-C; Remark 2).

    Parameters
    ----------
    N : int
        Number of workers of the flat (master-worker) schemes. Must satisfy ``1 <= N``.
    S : int
        Number of stragglers S tolerated. Must satisfy ``0 <= S <= N - 1``.

    Returns
    -------
    float
        Gradient coding load ``(S + 1) / N`` (Section II-C; Remark 2).
    """
    N = check_int("N", N, 1)
    S = check_int("S", S, 0, N - 1)
    return (S + 1) / N


def load_vs_alpha(alpha, L: int, n: int | None = None) -> np.ndarray:
    """CR load as a function of the per-parent resiliency ``alpha = s/n`` (Remark 2).

    With ``n`` given, ``r_CR = 1 / sum_l (n/(alpha n + 1))^l`` (``alpha n`` need not be an
    integer: the formula is evaluated as written in Remark 2). With ``n=None`` the
    large-n limit ``1 / sum_l alpha^-l`` (``~ alpha^L`` for small alpha). ``L = 1`` is GC.

    Parameters
    ----------
    alpha : float
        Exponent alpha of the model.
    L : int
        Number of worker layers of the tree. Must satisfy ``1 <= L``.
    n : int | None, optional
        Children per node of the (n, L)-regular tree. Must satisfy ``1 <= n``.

    Returns
    -------
    np.ndarray
        CR load as a function of the per-parent resiliency ``alpha = s/n`` (Remark 2).
    """
    L = check_int("L", L, 1)
    alpha = np.asarray(alpha, dtype=float)
    if np.any((alpha <= 0) | (alpha >= 1)) or not np.all(np.isfinite(alpha)):
        raise ValueError(f"alpha must satisfy 0 < alpha < 1, got alpha={alpha}")
    if n is None:
        ratio = 1.0 / alpha
    else:
        n = check_int("n", n, 1)
        ratio = n / (alpha * n + 1.0)
    total = sum(ratio**layer for layer in range(1, L + 1))
    return 1.0 / total


def alpha_for_load(r: float, L: int, n: int | None = None) -> float:
    """Resiliency CR reaches at load r: the largest ``alpha`` with ``load_vs_alpha <= r``.

    With ``n`` given, ``alpha = s/n`` for the largest integer ``s < n`` with
    ``r_CR(n, s, L) <= r`` (0 if even s = 0 needs more). With ``n=None`` the large-n limit,
    which solves ``sum_l alpha^-l = 1/r`` (``alpha ~ r^(1/L)``, Table I).

    Parameters
    ----------
    r : float
        Computation load (data units per worker, normalised). Must satisfy ``0.0 < r <= 1.0``.
    L : int
        Number of worker layers of the tree. Must satisfy ``1 <= L``.
    n : int | None, optional
        Children per node of the (n, L)-regular tree. Must satisfy ``1 <= n``.

    Returns
    -------
    float
        Resiliency CR reaches at load r: the largest ``alpha`` with ``load_vs_alpha <= r``.
    """
    r = check_real("r", r, 0.0, 1.0, low_open=True)
    L = check_int("L", L, 1)
    if n is not None:
        n = check_int("n", n, 1)
        best = -1
        for s in range(n):
            if r_cr(n, s, L) <= r + 1e-15:
                best = s
        return max(best, 0) / n
    lo, hi = 0.0, 1.0  # load_vs_alpha increases in alpha
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid > 0 and 1.0 / sum(mid ** (-layer) for layer in range(1, L + 1)) <= r:
            lo = mid
        else:
            hi = mid
    return lo


def table_one(N: int, r: float, L: int, n: int | None = None):
    """Table I: resiliency alpha and parallelisation gain beta of RAR, GC and CR at load r.

    Returns a DataFrame with the paper's symbolic entries (``alpha``, ``beta``) and their
    values for this ``N`` (``beta`` as the order ``N``, ``1``, ``N^(1-1/L)`` without constants)
    plus CR's exact resiliency on the (n, L) tree when ``n`` is given (``N`` must then equal
    ``n + ... + n^L``).

    Parameters
    ----------
    N : int
        Number of workers of the flat (master-worker) schemes. Must satisfy ``1 <= N``.
    r : float
        Computation load (data units per worker, normalised). Must satisfy ``0.0 < r <= 1.0``.
    L : int
        Number of worker layers of the tree. Must satisfy ``1 <= L``.
    n : int | None, optional
        Children per node of the (n, L)-regular tree. Must satisfy ``1 <= n``.

    Returns
    -------
    pandas.DataFrame
        Table I: resiliency alpha and parallelisation gain beta of RAR, GC and CR at load r.
    """
    import pandas as pd

    N = check_int("N", N, 1)
    r = check_real("r", r, 0.0, 1.0, low_open=True)
    L = check_int("L", L, 1)
    if n is not None and n_tree_workers(n, L) != N:
        raise ValueError(
            f"N must equal n + ... + n^L = {n_tree_workers(n, L)} for n={n}, L={L}, got N={N}"
        )
    cr_alpha_limit = alpha_for_load(r, L)
    gc_alpha = math.floor(r * N - 1 + 1e-12) / N if r * N >= 1 else 0.0
    rows = [
        ("RAR", "0", "Θ(N)", 0.0, 0.0, float(N)),
        ("GC", "r", "Θ(1)", r, gc_alpha, 1.0),
        (
            "CR",
            "r^(1/L)",
            "Θ(N^(1-1/L))",
            r ** (1.0 / L),
            alpha_for_load(r, L, n) if n is not None else cr_alpha_limit,
            float(N) ** (1.0 - 1.0 / L),
        ),
    ]
    return pd.DataFrame(
        rows,
        columns=[
            "scheme",
            "alpha (paper)",
            "beta (paper)",
            "alpha ≈",
            "alpha exact",
            "beta order",
        ],
    ).set_index("scheme")


def expected_sibling_order_statistic(n: int, s: int, load_points: float, a: float, mu: float):
    """``E[T_(n-s)] = (load/mu)(H_n - H_s) + a load`` for n siblings (Appendix D), i.e. the
    mean (n-s)-th fastest of n shifted exponentials with shift ``a load``, rate ``mu/load``.

    Parameters
    ----------
    n : int
        Number of siblings. Must satisfy ``1 <= n``.
    s : int
        Stragglers tolerated among each node's children. Must satisfy ``0 <= s <= n - 1``.
    load_points : float
        Data points of each sibling. Must satisfy ``0.0 < load_points``.
    a : float
        Shift (deterministic part) of the shifted-exponential computation time. Must satisfy
        ``0.0 <= a``.
    mu : float
        Rate of the exponential part of the computation time. Must satisfy ``0.0 < mu``.

    Returns
    -------
    float
        ``E[T_(n-s)]``.
    """
    n = check_int("n", n, 1)
    s = check_int("s", s, 0, n - 1)
    load_points = check_real("load_points", load_points, 0.0, low_open=True)
    a = check_real("a", a, 0.0)
    mu = check_real("mu", mu, 0.0, low_open=True)
    return load_points / mu * (harmonic_number(n) - harmonic_number(s)) + a * load_points


def theorem2_bounds(
    n: int, L: int, s: int, d: float, a: float, mu: float, t_c: float
) -> dict[str, float]:
    """Theorem 2 bounds on ``E[T_CR]`` with the ``o(.)`` terms dropped, eqs. (7)-(8).

    ``lower = (r d/mu) log(1/alpha) + a r d + (n (1 - alpha) + L - 1) t_c``
    ``upper = (r d/mu) log(1/alpha) + a r d + n L t_c``
    with ``r = r_CR(n, s, L)``, ``alpha = s/n`` (needs ``s >= 1``). Also returns the two
    non-asymptotic ingredients of the proof: ``sibling_order_statistic`` =
    ``E[T_(n-s)]`` and ``pipelined_upper`` = ``E[T_(n-s)] + L (n - s) t_c`` (the proof's
    upper bound before ``E[T_comp] -> E[T_(n-s)]``), and ``computation`` / ``communication``
    parts of each bound.

    Parameters
    ----------
    n : int
        Children per node of the (n, L)-regular tree. Must satisfy ``1 <= n``.
    L : int
        Number of worker layers of the tree. Must satisfy ``1 <= L``.
    s : int
        Stragglers tolerated among each node's children. Must satisfy ``0 <= s``.
    d : float
        Number of data units (the data set is split into d units). Must satisfy ``0.0 < d``.
    a : float
        Shift (deterministic part) of the shifted-exponential computation time. Must satisfy
        ``0.0 <= a``.
    mu : float
        Rate of the exponential part of the computation time. Must satisfy ``0.0 < mu``.
    t_c : float
        Time to send one full gradient, seconds. Must satisfy ``0.0 <= t_c``.

    Returns
    -------
    dict[str, float]
        Theorem 2 bounds on ``E[T_CR]`` with the ``o(.)`` terms dropped, eqs. (7)-(8).
    """
    n, s, L = _check_nsl(n, s, L)
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
    upper_comm = n * L * t_c
    order_stat = expected_sibling_order_statistic(n, s, load, a, mu)
    return {
        "n": n,
        "L": L,
        "s": s,
        "alpha": alpha,
        "N": n_tree_workers(n, L),
        "load_points": load,
        "computation": computation,
        "lower_communication": lower_comm,
        "upper_communication": upper_comm,
        "lower": computation + lower_comm,
        "upper": computation + upper_comm,
        "sibling_order_statistic": order_stat,
        "pipelined_upper": order_stat + L * (n - s) * t_c,
    }
