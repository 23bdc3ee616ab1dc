"""Total computation time of Reed–Solomon gradient coding and the choice of α = w/k (Section 5).

A worker answers after T = T_delay + c_g N w/k (eqs. 15-16, Pareto delay); the master waits for
the f-th fastest and decodes: eq. (17) exactly, eqs. (18)-(22) its large-n forms and α*.
``cg_N`` = c_g·N (s, one worker's time for the whole data set); ``c_m`` s per master FLOP.
The appendix's exact E[T_delay^(f)] and eq. (19)'s limit are in :mod:`codedlib.latency.order_stats`.

>>> round(optimal_alpha(0.001, 1.1, 0.035), 4)   # Fig. 3
0.1477

Reference: halbawi2018reedsolomon, tandon2017gradient.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import optimize

from codedlib._validation import check_int, check_real
from codedlib.latency.order_stats import expected_order_statistic_pareto

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

#: decoding cost models for eq. (17): FLOPs as a function of f
DECODERS = {
    "rs": "c_m f (f - 1): Algorithm 3, O(f^2) (Section 5)",
    "mds": "c_m f^3: generic linear solve of Tandon et al., O(f^3)",
    "offline": "0: decoding vectors precomputed (eq. 21)",
}


def _check_times(t0, xi, cg_N):
    t0 = check_real("t0", t0, low=0.0, low_open=True)
    xi = check_real("xi", xi, low=0.0, low_open=True)
    cg_N = check_real("cg_N", cg_N, low=0.0, low_open=True)
    return t0, xi, cg_N


def workers_needed(alpha: float, n: int) -> int:
    """Eq. (18): f(α) = ⌈(1 − α) n⌉ + 1 workers recover the gradient at load α = w/k;
    α = (s + 1)/n gives exactly f = n − s (a 1e-9 tolerance absorbs round-off)."""
    n = check_int("n", n, low=1)
    alpha = check_real("alpha", alpha, low=1.0 / n, high=1.0)
    return int(np.ceil((1.0 - alpha) * n - 1e-9)) + 1


def iteration_time_offline(
    alpha: ArrayLike, t0: float, xi: float, cg_N: float
) -> float | np.ndarray:
    """Eq. (21): T_f = t0 α^{−1/ξ} + c_g N α (large n, offline decoding). Vectorised in α."""
    return iteration_time_online(alpha, t0, xi, cg_N, 0.0, 1)  # eq. (20) without decoding


def iteration_time_online(
    alpha: ArrayLike, t0: float, xi: float, cg_N: float, c_m: float, n: int
) -> float | np.ndarray:
    """Eq. (20): T_f ≈ t0 α^{−1/ξ} + c_g N α + c_m (1 − α)² n² (Algorithm 3). Vectorised in α."""
    t0, xi, cg_N = _check_times(t0, xi, cg_N)
    c_m = check_real("c_m", c_m, low=0.0)
    n = check_int("n", n, low=1)
    a = np.asarray(alpha, dtype=float)
    if not np.all(np.isfinite(a)) or np.any(a <= 0) or np.any(a > 1):
        bad = a[~(np.isfinite(a) & (a > 0) & (a <= 1))].ravel()[0]
        raise ValueError(f"alpha must satisfy 0 < alpha <= 1, got alpha={bad:g}")
    out = t0 * a ** (-1.0 / xi) + cg_N * a + c_m * (1.0 - a) ** 2 * n**2
    return float(out) if np.ndim(alpha) == 0 else out


def optimal_alpha(t0: float, xi: float, cg_N: float) -> float:
    """Eq. (22): α* = (t0 / (c_g N ξ))^{ξ/(1+ξ)}, the minimiser of eq. (21); ValueError unless
    t0 / (c_g N ξ) < 1 (eq. 21 then decreases on (0, 1]: the optimum is α = 1, all data)."""
    t0, xi, cg_N = _check_times(t0, xi, cg_N)
    ratio = t0 / (cg_N * xi)
    if ratio >= 1.0:
        raise ValueError(
            f"t0/(cg_N*xi) must be < 1 for alpha* < 1 (eq. 22), got t0={t0:g}, xi={xi:g}, "
            f"cg_N={cg_N:g} (ratio {ratio:g}); the constrained optimum is alpha = 1"
        )
    return ratio ** (xi / (1.0 + xi))


def optimal_alpha_numeric(
    t0: float, xi: float, cg_N: float, c_m: float = 0.0, n: int | None = None
) -> float:
    """Minimise eq. (20) (or eq. (21) when c_m = 0) over α ∈ (0, 1] numerically;
    eq. (20) is convex, a bounded search in log α finds its minimum (``n`` needed if c_m > 0)."""
    t0, xi, cg_N = _check_times(t0, xi, cg_N)
    c_m = check_real("c_m", c_m, low=0.0)
    if c_m > 0 and n is None:
        raise ValueError(
            "n must be given when c_m > 0 (the decoding term of eq. 20 is c_m (1-α)² n²)"
        )
    n_ = 1 if n is None else check_int("n", n, low=1)

    def objective(log_a):  # in log α: the t0 α^{-1/ξ} term is steep near 0
        return iteration_time_online(np.exp(log_a), t0, xi, cg_N, c_m, n_)

    res = optimize.minimize_scalar(
        objective, bounds=(np.log(1e-12), 0.0), method="bounded", options={"xatol": 1e-12}
    )
    return 1.0 if objective(0.0) <= objective(res.x) else float(np.exp(res.x))


def decoding_time(f: ArrayLike, c_m: float, decoder: str = "rs") -> float | np.ndarray:
    """T_dec(f) of eq. (17) for the decoders in :data:`DECODERS` (c_m seconds per FLOP)."""
    c_m = check_real("c_m", c_m, low=0.0)
    if decoder not in DECODERS:
        raise ValueError(f"decoder must be one of {sorted(DECODERS)}, got decoder={decoder!r}")
    f = np.asarray(f, dtype=float)
    if not np.all(np.isfinite(f)) or np.any(f < 1):
        raise ValueError(f"f must hold finite worker counts >= 1, got f={f.tolist()}")
    if decoder == "rs":
        return c_m * f * (f - 1.0)
    if decoder == "mds":
        return c_m * f**3
    return np.zeros_like(f)


def expected_iteration_time(
    f: int, n: int, t0: float, xi: float, cg_N: float, c_m: float = 0.0, decoder: str = "rs"
) -> float:
    """Eq. (17): T_f = E[T_delay^(f)] + c_g N α + T_dec(f), exact order statistic, at the least
    load tolerating s = n − f stragglers, α = (n − f + 1)/n (eq. 2, RS and Tandon et al.'s
    cyclic MDS code). ValueError when ξ (n − f + 1) <= 1 (infinite expected delay)."""
    n = check_int("n", n, low=1)
    f = check_int("f", f, low=1, high=n)
    t0, xi, cg_N = _check_times(t0, xi, cg_N)
    delay = expected_order_statistic_pareto(f, n, t0, xi)
    return float(delay + cg_N * ((n - f + 1) / n) + decoding_time(f, c_m, decoder))


def iteration_time_table(
    n: int,
    t0: float,
    xi: float,
    cg_N: float,
    c_m: float = 0.0,
    decoders: Sequence[str] = ("rs", "mds"),
) -> pd.DataFrame:
    """Eq. (17) for every f = 1..n: columns f, s, alpha, delay, comp and T_<decoder>
    (``inf`` where ξ (n − f + 1) <= 1)."""
    n = check_int("n", n, low=1)
    t0, xi, cg_N = _check_times(t0, xi, cg_N)
    f = np.arange(1, n + 1)
    delay = np.array(
        [
            expected_order_statistic_pareto(int(v), n, t0, xi) if xi * (n - v + 1) > 1 else np.inf
            for v in f
        ]
    )
    alpha = (n - f + 1) / n
    table = pd.DataFrame({"f": f, "s": n - f, "alpha": alpha, "delay": delay, "comp": cg_N * alpha})
    for dec in decoders:
        table[f"T_{dec}"] = delay + table["comp"].to_numpy() + decoding_time(f, c_m, dec)
    return table


def optimal_workers(
    n: int, t0: float, xi: float, cg_N: float, c_m: float = 0.0, decoder: str = "rs"
) -> int:
    """The f in 1..n minimising eq. (17) (the paper's f_RS with "rs", f_MDS with "mds")."""
    table = iteration_time_table(n, t0, xi, cg_N, c_m, decoders=(decoder,))
    times = table[f"T_{decoder}"].to_numpy()
    if not np.isfinite(times).any():
        raise ValueError(
            f"xi must exceed 1/n = {1 / n:.3g} for any f to have a finite expected "
            f"iteration time (eq. 17), got xi={xi:g}"
        )
    return int(table["f"].iloc[int(np.argmin(times))])
