"""Experiments of the Reed–Solomon GC paper, one function per figure/table of notebook 02.

* :func:`mask_example` — eq. (5) and the encoding matrix of eqs. (7)–(10);
* :func:`any_f_rows_check` — any f rows of B span the all-ones row, f − 1 rows do not;
* :func:`any_f_rows_exhaustive` — the same over *every* set of f survivors;
* :func:`decoding_cost` / :func:`decoding_cost_summary` — Algorithm 3 (O(f²)) vs least squares
  (O(f³)) wall-clock time, one row per (f, repeat);
* :func:`accuracy_study` — round-off of online decoding vs n, paper root vs well-conditioned root;
* :func:`pareto_order_statistic_check` — appendix formula vs Monte Carlo vs eq. (19);
* :func:`fig3_tf_curve` — T_f of eq. (21) (and eq. 20) with α* of eq. (22);
* :func:`workers_choice` — f_RS and f_MDS from eq. (17) as a function of c_m;
* :func:`fig2_experiment` / :func:`fig2_summary` — test error vs time of the five schemes over
  independent seeds (delay draw and train/test split); :func:`fig2_curves`,
  :func:`fig2_seed_metrics`, :func:`fig2_wide` turn the runs into per-seed numbers for paired
  comparisons.

Reference: halbawi2018reedsolomon, tandon2017gradient.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from codedlib._validation import as_generator, check_frame, check_int, check_real
from codedlib.codes.reed_solomon import (
    accuracy_limit,
    least_squares_decoding_vector,
    reed_solomon_gradient_code,
    row_balanced_mask_matrix,
    vandermonde_decoding_vector,
)
from codedlib.latency.models import pareto
from codedlib.problems import SoftmaxRegression, digits_multiclass
from codedlib.progress import track
from codedlib.schemes.reed_solomon import fig2_schemes, pareto_delays, simulate_schemes
from codedlib.theory.reed_solomon import (
    expected_pareto_delay,
    iteration_time_offline,
    iteration_time_online,
    iteration_time_table,
    optimal_alpha,
    optimal_alpha_numeric,
    pareto_delay_limit,
    workers_needed,
)

__all__ = [
    "PAPER",
    "AccuracyStudyResult",
    "AnyFRowsExhaustiveResult",
    "HeavyTailMeanResult",
    "MaskExampleResult",
    "TfCurveResult",
    "accuracy_study",
    "any_f_rows_check",
    "any_f_rows_exhaustive",
    "c_m_range_for_f_mds",
    "decoding_cost",
    "decoding_cost_summary",
    "fig2_curves",
    "fig2_experiment",
    "fig2_seed_metrics",
    "fig2_summary",
    "fig2_wide",
    "fig3_tf_curve",
    "mask_example",
    "pareto_order_statistic_check",
    "residual_tol_check",
    "workers_choice",
    "STRAGGLER_REGIMES",
    "ignore_stragglers_regimes",
    "sample_mean_of_heavy_tail",
    "summary_column",
]

#: numbers the paper reports
PAPER = {
    "eq5": np.array(
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
    ),
    "alpha_star": 0.1477,
    "f_rs": 68,
    "f_mds": 33,
    "n": 80,
    "t0": 0.001,
    "xi": 1.1,
    "cg_N": 0.035,
}


@dataclass(frozen=True)
class MaskExampleResult:
    """Mask, encoding matrix and straggler tolerance of one RS gradient code (:func:`mask_example`)."""

    mask: np.ndarray
    encoding: np.ndarray
    s: int
    f: int
    code: object
    matches_eq5: bool | None = None


def mask_example(n: int = 8, k: int = 4, w: int = 3) -> MaskExampleResult:
    """Mask (Algorithm 1 with d = nw/k when k | nw, else Algorithm 4), code and eq. (5) check."""
    code = reed_solomon_gradient_code(n, k, w)
    matches = None
    if (n, k, w) == (8, 4, 3):
        matches = bool(np.array_equal(row_balanced_mask_matrix(8, 4, 6, 0), PAPER["eq5"]))
    return MaskExampleResult(
        mask=code.M, encoding=code.B, s=code.s, f=code.f, code=code, matches_eq5=matches
    )


def any_f_rows_check(
    n: int = 16, k: int = 8, w: int = 3, n_sets: int = 200, root_power=1, rng=None
) -> pd.DataFrame:
    """Residual max|a B_F − 1| of the best decoding vector for three kinds of survivor sets.

    * "f random (Algorithm 3)": any f survivors decode (Algorithm 3's vector, round-off);
    * "f-1: holders of one chunk straggle": the s + 1 workers holding a lightest chunk are
      all slow; no vector works (least squares residual stays O(1)): eq. (2) is tight;
    * "f-1 random (least squares)": most random sets of f − 1 survivors *can* still decode when
      k < f, because B = G T has rank <= k; the guarantee is about the worst case.
    """
    n_sets = check_int("n_sets", n_sets, low=1)
    gen = as_generator(rng)
    code = reed_solomon_gradient_code(n, k, w, root_power)
    light = np.flatnonzero(code.M.sum(axis=0) == code.s + 1)
    rows = []
    for _ in range(n_sets):
        perm = gen.permutation(code.n)
        F = perm[: code.f]
        a = code.decoding_vector(F, check=False)  # the residual is what is measured
        rows.append(
            {
                "kind": "f random (Algorithm 3)",
                "survivors": code.f,
                "residual": float(np.abs(a @ code.B[F] - 1).max()),
            }
        )
        if code.f > 1:
            G = perm[: code.f - 1]
            a_ls = least_squares_decoding_vector(code.B[G])
            rows.append(
                {
                    "kind": "f-1 random (least squares)",
                    "survivors": code.f - 1,
                    "residual": float(np.abs(a_ls @ code.B[G] - 1).max()),
                }
            )
            chunk = gen.choice(light)
            H = np.flatnonzero(code.M[:, chunk] == 0)  # everyone except the chunk's holders
            a_h = least_squares_decoding_vector(code.B[H])
            rows.append(
                {
                    "kind": "f-1: holders of one chunk straggle",
                    "survivors": H.size,
                    "residual": float(np.abs(a_h @ code.B[H] - 1).max()),
                }
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class AnyFRowsExhaustiveResult:
    """The two properties of Section 2.1 checked on every survivor set
    (:func:`any_f_rows_exhaustive`).
    """

    n: int
    k: int
    w: int
    s: int
    f: int
    n_sets: int
    max_residual_f: float
    min_residual_tight: float
    any_f_decode: bool
    tight: bool


def any_f_rows_exhaustive(
    n: int = 16, k: int = 8, w: int = 3, root_power=1, max_sets: int = 200_000
) -> AnyFRowsExhaustiveResult:
    """Check the two properties of Section 2.1 on *every* survivor set, not a sample.

    * ``max_residual_f``: max over all C(n, f) sets F of max|a_F B_F − 1| with Algorithm 3's
      vector a_F (0 in exact arithmetic: any f rows span the all-ones row);
    * ``min_residual_tight``: min over the light chunks j (column weight s + 1) of the least
      squares residual when the s + 1 holders of j straggle (f − 1 survivors): stays O(1), so no
      decoding vector exists and s = ⌊wn/k⌋ − 1 of eq. (2) cannot be raised.

    Returns an :class:`AnyFRowsExhaustiveResult` with n, k, w, s, f, n_sets (C(n, f)), the two
    residuals and booleans ``any_f_decode`` (max_residual_f < 1e-10) and ``tight``
    (min_residual_tight > 0.1).
    """
    max_sets = check_int("max_sets", max_sets, low=1)
    code = reed_solomon_gradient_code(n, k, w, root_power)
    from math import comb

    n_sets = comb(code.n, code.f)
    if n_sets > max_sets:
        raise ValueError(
            f"C(n, f) must be <= max_sets={max_sets}, got C({code.n}, {code.f})={n_sets}"
        )
    worst = 0.0
    for F in itertools.combinations(range(code.n), code.f):
        F = np.asarray(F)
        a = code.decoding_vector(F, check=False)  # the residual is what is measured
        worst = max(worst, float(np.abs(a @ code.B[F] - 1).max()))
    light = np.flatnonzero(code.M.sum(axis=0) == code.s + 1)
    tight = np.inf
    for j in light:
        H = np.flatnonzero(code.M[:, j] == 0)
        a_h = least_squares_decoding_vector(code.B[H])
        tight = min(tight, float(np.abs(a_h @ code.B[H] - 1).max()))
    return AnyFRowsExhaustiveResult(
        n=code.n,
        k=code.k,
        w=code.w,
        s=code.s,
        f=code.f,
        n_sets=n_sets,
        max_residual_f=worst,
        min_residual_tight=float(tight),
        any_f_decode=bool(worst < 1e-10),
        tight=bool(tight > 0.1),
    )


def _elapsed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def decoding_cost(
    fs=(50, 100, 200, 400, 800), straggler_fraction: float = 0.15, repeats: int = 5, rng=None
) -> pd.DataFrame:
    """Wall-clock time to compute one decoding vector, Algorithm 3 vs least squares, timed
    only where Algorithm 3 is accurate.

    For each f: n = round(f / (1 − straggler_fraction)), k = n, w = n − f + 1 (so exactly f
    workers are needed) and a random survivor set. The timed code uses the better-spread root
    (``root_power="auto"``); the paper's root α = e^{2πi/n} costs the same operations but
    loses all accuracy as n grows, so its residual is reported beside (``paper_root_residual``)
    and never timed. ``lstsq`` solves a B_F = 1 (f × n, the generic decoder: an SVD least-squares
    solve); ``lu`` solves eq. (12), a G_F = e_1, by LU (the f × f Vandermonde system the code's
    structure gives without Algorithm 3); Algorithm 3 uses the precomputed table. Each of the ``repeats`` times both decoders back to back (after one
    untimed warm-up call of each), so repeat r of the two is a pair measured under the same
    machine load. One row per (f, repeat): f, n, root_power, repeat, alg3_seconds,
    lstsq_seconds, lu_seconds, alg3_residual, lstsq_residual and lu_residual (max |a B_F − 1|
    of each timed decoder), paper_root_residual, accurate (the three residuals below 1e-6). Both run on one BLAS
    thread (an algorithmic comparison on one core).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _decoding_cost(fs, straggler_fraction, repeats, rng)


def _decoding_cost(fs, straggler_fraction, repeats, rng):
    straggler_fraction = check_real(
        "straggler_fraction", straggler_fraction, low=0.0, high=1.0, high_open=True
    )
    repeats = check_int("repeats", repeats, low=1)
    gen = as_generator(rng)
    rows = []
    for f in fs:
        f = check_int("f", f, low=2)
        n = max(f + 1, round(f / (1 - straggler_fraction)))
        code = reed_solomon_gradient_code(n, n, n - f + 1, "auto", on_inaccurate="ignore")
        paper = reed_solomon_gradient_code(n, n, n - f + 1, 1, on_inaccurate="ignore")
        F = np.sort(gen.choice(n, f, replace=False))
        B_F = code.B[F]
        a = code.decoding_vector(F)  # warm-up (tables, caches) + residual
        a_ls = least_squares_decoding_vector(B_F)
        a_lu = vandermonde_decoding_vector(F, n, code.root_power)
        residual = code.residual(F, a)
        ls_residual = float(np.abs(a_ls @ B_F - 1).max())
        lu_residual = float(np.abs(a_lu @ B_F - 1).max())
        paper_residual = paper.residual(F)
        for r in range(repeats):
            t_alg3 = _elapsed(lambda c=code, F=F: c.decoding_vector(F, check=False))
            t_ls = _elapsed(lambda B_F=B_F: least_squares_decoding_vector(B_F))
            t_lu = _elapsed(
                lambda F=F, n=n, q=code.root_power: vandermonde_decoding_vector(F, n, q)
            )
            rows.append(
                {
                    "f": f,
                    "n": n,
                    "root_power": code.root_power,
                    "repeat": r,
                    "alg3_seconds": t_alg3,
                    "lstsq_seconds": t_ls,
                    "lu_seconds": t_lu,
                    "alg3_residual": residual,
                    "lstsq_residual": ls_residual,
                    "lu_residual": lu_residual,
                    "paper_root_residual": paper_residual,
                    "accurate": bool(max(residual, ls_residual, lu_residual) < 1e-6),
                }
            )
    return pd.DataFrame(rows)


def residual_tol_check(
    n: int = 80, k: int = 80, w: int = 13, root_power: int = 1, n_sets: int = 200, rng=None
) -> dict:
    """How often the code's ``residual_tol`` check fires on random survivor sets, against the
    error of the gradient those sets decode (Algorithm 3, eq. 14).

    ``residual_tol`` bounds max |a B_F − 1|, not the gradient error: with the paper's root the
    residual is large where the decoded gradient ‖Re(a C_F) − Σ g_j‖/‖Σ g_j‖ (standard-normal
    partial gradients, 8 features) is still small. Returns residual_tol, n_sets,
    share_flagged (residual above the tolerance), median_residual, median_gradient_error and
    max_gradient_error.
    """
    n_sets = check_int("n_sets", n_sets, low=1)
    gen = as_generator(rng)
    code = reed_solomon_gradient_code(n, k, w, root_power, on_inaccurate="ignore")
    g = gen.standard_normal((code.k, 8))
    exact = g.sum(axis=0)
    res, err = [], []
    for _ in range(n_sets):
        F = np.sort(gen.choice(code.n, code.f, replace=False))
        a = code.decoding_vector(F, check=False)
        res.append(code.residual(F, a))
        err.append(np.linalg.norm((a @ (code.B[F] @ g)).real - exact) / np.linalg.norm(exact))
    res, err = np.array(res), np.array(err)
    return {
        "residual_tol": code.residual_tol,
        "n_sets": n_sets,
        "f": code.f,
        "share_flagged": float(np.mean(res > code.residual_tol)),
        "median_residual": float(np.median(res)),
        "median_gradient_error": float(np.median(err)),
        "max_gradient_error": float(err.max()),
    }


def decoding_cost_summary(cost: pd.DataFrame) -> pd.DataFrame:
    """Per f: median times over repeats, the median of the paired ratios lstsq/Algorithm 3
    (``speedup``) and the log–log slope of each decoder's median time against the previous f
    (``alg3_slope``, ``lstsq_slope``; O(f²) and O(f³) give 2 and 3 for large f).
    """
    ratio = cost.assign(
        speedup=cost["lstsq_seconds"] / cost["alg3_seconds"],
        lu_speedup=cost["lu_seconds"] / cost["alg3_seconds"],
    )
    out = ratio.groupby(["f", "n"], as_index=False).agg(
        alg3_seconds=("alg3_seconds", "median"),
        lstsq_seconds=("lstsq_seconds", "median"),
        lu_seconds=("lu_seconds", "median"),
        speedup=("speedup", "median"),
        lu_speedup=("lu_speedup", "median"),
        repeats=("repeat", "size"),
        alg3_residual=("alg3_residual", "first"),
        lstsq_residual=("lstsq_residual", "first"),
        lu_residual=("lu_residual", "first"),
        paper_root_residual=("paper_root_residual", "first"),
        accurate=("accurate", "first"),
        root_power=("root_power", "first"),
    )
    logf = np.log(out["f"].to_numpy(float))
    for col in ("alg3", "lstsq"):
        logt = np.log(out[f"{col}_seconds"].to_numpy(float))
        slope = np.full(len(out), np.nan)
        slope[1:] = np.diff(logt) / np.diff(logf)
        out[f"{col}_slope"] = slope
    return out


@dataclass(frozen=True)
class AccuracyStudyResult:
    """Round-off of online decoding vs n (:func:`accuracy_study`)."""

    table: pd.DataFrame
    limits: pd.DataFrame


def accuracy_study(
    ns=(10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 120, 160, 200, 300),
    loads=(13 / 80, 0.3),
    root_powers=(1, "auto"),
    tol: float = 1e-6,
    n_random: int = 20,
    rng=None,
) -> AccuracyStudyResult:
    """Relative error of the decoded gradient vs n (k = n, w = round(load·n)).

    Returns an :class:`AccuracyStudyResult` (table, limits): table rows per (root, load, n) from
    :func:`codedlib.codes.reed_solomon.accuracy_limit`; limits gives the largest n of the
    sweep with error <= ``tol`` for worst-case and random survivor sets.
    """
    if len(ns) == 0:
        raise ValueError("ns must hold at least one n, got an empty sequence")
    gen = as_generator(rng)
    tables, limits = [], []
    for root in root_powers:
        for load in loads:
            table, lim = accuracy_limit(
                ns, load=load, root_power=root, tol=tol, n_random=n_random, rng=gen
            )
            label = "α = e^{2πi/n} (paper)" if root == 1 else f"root_power={root}"
            table.insert(0, "root", label)
            table.insert(1, "load", load)
            tables.append(table)
            limits.append(
                {
                    "root": label,
                    "load": load,
                    "tol": tol,
                    "largest_accurate_n_worst": lim["worst"],
                    "largest_accurate_n_random": lim["random"],
                }
            )
    return AccuracyStudyResult(
        table=pd.concat(tables, ignore_index=True), limits=pd.DataFrame(limits)
    )


def pareto_order_statistic_check(
    ns=(10, 20, 40, 80, 160, 320, 1000, 10_000),
    alpha: float = 0.2,
    t0: float = 0.001,
    xi: float = 1.1,
    replicas: int = 20_000,
    mc_max_n: int = 1000,
    rng=None,
) -> pd.DataFrame:
    """E[T^(f)] with f = n − ⌊αn⌋: exact appendix formula, Monte Carlo, and eq. (19)'s limit.

    Monte Carlo (``replicas`` draws of n delays) only for n <= ``mc_max_n``; reports the mean,
    its standard error and the z-score against the exact value.
    """
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    replicas = check_int("replicas", replicas, low=2)
    gen = as_generator(rng)
    dist = pareto(t0, xi)
    limit = pareto_delay_limit(alpha, t0, xi)
    rows = []
    for n in ns:
        n = check_int("n", n, low=2)
        f = n - int(np.floor(alpha * n))
        exact = expected_pareto_delay(f, n, t0, xi)
        row = {
            "n": n,
            "f": f,
            "exact": exact,
            "limit_eq19": limit,
            "relative_gap_to_limit": exact / limit - 1,
            "mc_mean": np.nan,
            "mc_stderr": np.nan,
            "z": np.nan,
        }
        if n <= mc_max_n:
            draws = dist.rvs(size=(replicas, n), random_state=gen)
            kth = np.partition(draws, f - 1, axis=1)[:, f - 1]
            row.update(mc_mean=kth.mean(), mc_stderr=kth.std(ddof=1) / np.sqrt(replicas))
            row["z"] = (row["mc_mean"] - exact) / row["mc_stderr"]
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class TfCurveResult:
    """Fig. 3's curve and optimum (:func:`fig3_tf_curve`)."""

    curve: pd.DataFrame
    alpha_star: float | None
    alpha_star_numeric: float
    alpha_star_online: float
    t_star: float
    f_star: int
    c_m: float
    n: int


def fig3_tf_curve(
    t0: float = 0.001,
    xi: float = 1.1,
    cg_N: float = 0.035,
    c_m: float = 0.0,
    n: int = 80,
    alphas=None,
) -> TfCurveResult:
    """Fig. 3: T_f(α) of eq. (21) (and eq. 20 when c_m > 0) with α* of eq. (22).

    Returns a :class:`TfCurveResult`: curve (alpha, t_offline, t_online), alpha_star,
    alpha_star_numeric, alpha_star_online, t_star and f_star = f(α*) by eq. (18).
    ``alpha_star`` is None when t0/(c_g N ξ) >= 1 (the closed form is not a valid load).
    """
    alphas = np.linspace(0.01, 1.0, 400) if alphas is None else np.asarray(alphas, float)
    try:
        a_star = optimal_alpha(t0, xi, cg_N)
    except ValueError:
        a_star = None
    a_num = optimal_alpha_numeric(t0, xi, cg_N)
    a_on = optimal_alpha_numeric(t0, xi, cg_N, c_m, n)
    curve = pd.DataFrame(
        {
            "alpha": alphas,
            "t_offline": iteration_time_offline(alphas, t0, xi, cg_N),
            "t_online": iteration_time_online(alphas, t0, xi, cg_N, c_m, n),
        }
    )
    best = a_num if a_star is None else a_star
    return TfCurveResult(
        curve=curve,
        alpha_star=a_star,
        alpha_star_numeric=a_num,
        alpha_star_online=a_on,
        t_star=iteration_time_offline(best, t0, xi, cg_N),
        f_star=workers_needed(max(best, 1.0 / n), n),
        c_m=c_m,
        n=n,
    )


def _base_table(n, t0, xi, cg_N):
    """eq. (17) without decoding cost, for every f (delay + compute; inf where infinite)."""
    table = iteration_time_table(n, t0, xi, cg_N, 0.0, decoders=("offline",))
    return table["f"].to_numpy(float), table["T_offline"].to_numpy()


def workers_choice(
    n: int = 80,
    t0: float = 0.001,
    xi: float = 1.1,
    cg_N: float = 0.035,
    c_ms=(0.0, 1e-10, 1e-9, 1e-8, 3e-8, 1e-7, 3e-7, 1e-6),
) -> pd.DataFrame:
    """f_RS and f_MDS minimising eq. (17) (exact order statistic) for each FLOP time c_m.

    RS decodes in c_m f(f − 1) (Algorithm 3), MDS in c_m f³ (generic solve). The loads are the
    minimal ones, (n − f + 1)/n, for both codes.
    """
    f, base = _base_table(n, t0, xi, cg_N)
    rows = []
    for c_m in c_ms:
        c_m = check_real("c_m", c_m, low=0.0)
        t_rs = base + c_m * f * (f - 1)
        t_mds = base + c_m * f**3
        rows.append(
            {
                "c_m": c_m,
                "f_rs": int(f[np.argmin(t_rs)]),
                "f_mds": int(f[np.argmin(t_mds)]),
                "t_rs": float(t_rs.min()),
                "t_mds": float(t_mds.min()),
            }
        )
    return pd.DataFrame(rows)


def c_m_range_for_f_mds(
    target: int = 33, n: int = 80, t0: float = 0.001, xi: float = 1.1, cg_N: float = 0.035
) -> tuple[float, float] | None:
    """The interval of c_m (log grid, 10⁻¹⁰..10⁻⁵) for which eq. (17) gives f_MDS = ``target``."""
    f, base = _base_table(n, t0, xi, cg_N)
    grid = np.logspace(-10, -5, 2001)
    best = f[np.argmin(base[None, :] + grid[:, None] * f[None, :] ** 3, axis=1)]
    hits = grid[best == target]
    return (float(hits.min()), float(hits.max())) if hits.size else None


def fig2_experiment(
    n: int = 80,
    f_rs: int = 68,
    f_mds: int = 33,
    t0: float = 0.001,
    xi: float = 1.1,
    cg_N: float = 0.035,
    c_m: float = 1e-9,
    time_budget: float = 5.0,
    n_seeds: int = 1,
    lam: float = 1e-4,
    root_power=1,
    seed: int = 0,
    resplit: bool = True,
    record_points: int = 250,
    partition: str = "shuffled",
    slow_workers: int = 0,
    slowdown: float = 1.0,
    scheme_names=None,
) -> pd.DataFrame:
    """Fig. 2: softmax regression on the digits (MNIST stand-in), five schemes, test error vs
    time, over ``n_seeds`` independent seeds.

    Seed r (0, 1, ...) draws its own (iterations × n) Pareto delay matrix and, with ``resplit``,
    its own random 75 / 25 train/test split of the digits, both from
    ``np.random.SeedSequence([seed, r])``; all five schemes of one seed share its delays and its
    split, so scheme differences are paired by seed. ``resplit=False`` keeps the library's
    default split for every seed (only the delays vary). Returns :func:`simulate_schemes`'s rows
    with ``seed``, ``n_train`` and ``n_test`` columns in front.

    Where ignoring stragglers hurts (*ours*, not in the paper): ``partition="class-sorted"``
    sorts the training set by label before the even split, so each worker's chunk holds one
    or two classes (data not identically distributed across workers), and ``slow_workers``
    workers (the last ones, i.e. whole classes when sorted) are persistently ``slowdown``
    times slower, so the same chunks are dropped every iteration. ``scheme_names`` keeps a
    subset of the five schemes.
    """
    n_seeds = check_int("n_seeds", n_seeds, low=1)
    record_points = check_int("record_points", record_points, low=1)
    if partition not in ("shuffled", "class-sorted"):
        raise ValueError(
            f"partition must be 'shuffled' or 'class-sorted', got partition={partition!r}"
        )
    slow_workers = check_int("slow_workers", slow_workers, low=0, high=n)
    slowdown = check_real("slowdown", slowdown, low=1.0)
    schemes = fig2_schemes(n, f_rs, f_mds)
    if scheme_names is not None:
        unknown = set(scheme_names) - {sp.name for sp in schemes}
        if unknown or not scheme_names:
            raise ValueError(
                f"scheme_names must be a non-empty subset of "
                f"{[sp.name for sp in schemes]}, got {list(scheme_names)}"
            )
        schemes = [sp for sp in schemes if sp.name in set(scheme_names)]
    frames = []
    for r in track(range(n_seeds), "Fig. 2 seeds"):
        delay_seq, split_seq = np.random.SeedSequence([seed, r]).spawn(2)
        data = (
            digits_multiclass(rng=np.random.default_rng(split_seq))
            if resplit
            else digits_multiclass()
        )
        X, y = data.X, data.y
        if partition == "class-sorted":
            order = np.argsort(y, kind="stable")
            X, y = X[order], y[order]
        problem = SoftmaxRegression(X, y, 10, lam=lam)
        fastest = min(t0 + cg_N * s.load(n) for s in schemes)
        delays = pareto_delays(
            int(np.ceil(time_budget / fastest)) + 1, n, t0, xi, rng=np.random.default_rng(delay_seq)
        )
        if slow_workers:
            delays[:, n - slow_workers :] *= slowdown  # the same workers straggle every time
        df = simulate_schemes(
            problem,
            data.X_test,
            data.y_test,
            schemes,
            n=n,
            t0=t0,
            xi=xi,
            cg_N=cg_N,
            c_m=c_m,
            time_budget=time_budget,
            root_power=root_power,
            delays=delays,
            record_interval=time_budget / record_points,
        )
        df.insert(0, "seed", r)
        df.insert(1, "n_train", len(data.y))
        df.insert(2, "n_test", len(data.y_test))
        df.insert(3, "partition", partition)
        df.insert(4, "slow_workers", slow_workers)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


#: The regimes of :func:`ignore_stragglers_regimes`: label -> fig2_experiment options.
STRAGGLER_REGIMES = {
    "paper-like: shuffled data, i.i.d. stragglers": {},
    "class-sorted data, i.i.d. stragglers": {"partition": "class-sorted"},
    "shuffled data, 12 persistent stragglers (x100)": {"slow_workers": 12, "slowdown": 100.0},
    "class-sorted data, 12 persistent stragglers (x100)": {
        "partition": "class-sorted",
        "slow_workers": 12,
        "slowdown": 100.0,
    },
}


def ignore_stragglers_regimes(
    regimes=None,
    n: int = 80,
    f_rs: int = 68,
    f_mds: int = 33,
    t0: float = 0.001,
    xi: float = 1.1,
    cg_N: float = 0.035,
    c_m: float = 1.25e-7,
    time_budget: float = 5.0,
    n_seeds: int = 5,
    lam: float = 1e-4,
    seed: int = 0,
) -> pd.DataFrame:
    """Where exact gradients (Coded-RS) beat ignoring the same number of stragglers.

    The paper's argument for Coded-RS over "Uncoded (f_RS)" is that the latter's gradient
    drops the slowest workers' data. That biases the gradient only when the dropped data
    differ from the rest: when classes are not spread evenly over workers and when the same
    workers are slow every iteration. Each regime (:data:`STRAGGLER_REGIMES` by default) runs
    Coded-RS and Uncoded (f_RS) on ``n_seeds`` paired seeds (:func:`fig2_experiment`).
    Returns :func:`fig2_seed_metrics` rows with a ``regime`` column.
    """
    regimes = STRAGGLER_REGIMES if regimes is None else regimes
    if not regimes:
        raise ValueError("regimes must hold at least one regime, got an empty mapping")
    names = ["Coded-RS", f"Uncoded (f_RS={f_rs})"]
    frames = []
    for label, options in regimes.items():
        df = fig2_experiment(
            n=n,
            f_rs=f_rs,
            f_mds=f_mds,
            t0=t0,
            xi=xi,
            cg_N=cg_N,
            c_m=c_m,
            time_budget=time_budget,
            n_seeds=n_seeds,
            lam=lam,
            seed=seed,
            scheme_names=names,
            **options,
        )
        frames.append(fig2_seed_metrics(df, time_budget).assign(regime=label))
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class HeavyTailMeanResult:
    """The sample mean of a few heavy-tailed iteration times (:func:`sample_mean_of_heavy_tail`)."""

    expectation: float
    median: float
    q025: float
    q975: float
    p_reach_expectation: float
    n_samples: int
    replicas: int


def sample_mean_of_heavy_tail(
    f: int = 80,
    n: int = 80,
    t0: float = 0.001,
    xi: float = 1.1,
    cg_N: float = 0.035,
    n_samples: int = 22,
    replicas: int = 20_000,
    rng=None,
) -> HeavyTailMeanResult:
    """What the mean of ``n_samples`` simulated iteration times of "wait for f of n"
    (Pareto delays, eq. 16) looks like next to its expectation (eq. 17).

    With xi = 1.1 the f = n order statistic has a finite mean but infinite variance: the mean
    of a few samples is usually far below the expectation, which only rare huge delays reach.
    Returns the expectation, the median and the 2.5 / 97.5 % quantiles of the sample mean over
    ``replicas`` and the probability that a sample mean reaches the expectation.
    """
    from codedlib.theory.reed_solomon import expected_iteration_time

    n_samples = check_int("n_samples", n_samples, low=1)
    replicas = check_int("replicas", replicas, low=10)
    gen = as_generator(rng)
    expect = expected_iteration_time(f, n, t0, xi, cg_N, 0.0, "rs")
    comp = cg_N * (n - f + 1) / n
    means = np.empty(replicas)
    for start in range(0, replicas, 1000):
        stop = min(start + 1000, replicas)
        draws = t0 * (1.0 - gen.random((stop - start, n_samples, n))) ** (-1.0 / xi)
        times = np.sort(draws, axis=2)[:, :, f - 1] + comp
        means[start:stop] = times.mean(axis=1)
    return HeavyTailMeanResult(
        expectation=expect,
        median=float(np.median(means)),
        q025=float(np.quantile(means, 0.025)),
        q975=float(np.quantile(means, 0.975)),
        p_reach_expectation=float(np.mean(means >= expect)),
        n_samples=n_samples,
        replicas=replicas,
    )


def _step_values(run: pd.DataFrame, quantity: str, grid: np.ndarray) -> np.ndarray:
    """The value after the last iteration finished by each time of ``grid`` (a step function)."""
    idx = np.searchsorted(run["time"].to_numpy(), grid, side="right") - 1
    return run[quantity].to_numpy()[np.maximum(idx, 0)]


def fig2_curves(
    df: pd.DataFrame,
    quantity: str = "test_error",
    time_budget: float | None = None,
    n_points: int = 401,
) -> pd.DataFrame:
    """``quantity`` of every (seed, scheme) on a common time grid 0..``time_budget`` (default:
    the last recorded time), as a tidy frame seed, scheme, time, value.
    """
    n_points = check_int("n_points", n_points, low=2)
    t_max = float(df["time"].max()) if time_budget is None else float(time_budget)
    grid = np.linspace(0.0, t_max, n_points)
    frames = []
    for (seed, scheme), run in df.groupby(["seed", "scheme"], sort=False):
        frames.append(
            pd.DataFrame(
                {
                    "seed": seed,
                    "scheme": scheme,
                    "time": grid,
                    "value": _step_values(run, quantity, grid),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def fig2_seed_metrics(df: pd.DataFrame, time_budget: float | None = None) -> pd.DataFrame:
    """One row per (seed, scheme) of a :func:`fig2_experiment` frame.

    Columns: test_error (at the end of the budget), test_errors (the same as a count of
    misclassified test images), test_error_mean (time average of the test-error curve over
    [0, budget]: the whole curve of Fig. 2 in one number), train_loss (at the end),
    iterations, mean_iteration_time (time of the last iteration / iterations), max_decode_error
    (largest relative error of the gradient the scheme used), n_test.
    """
    curves = fig2_curves(df, "test_error", time_budget)
    mean_curve = curves.groupby(["seed", "scheme"], sort=False)["value"].mean()
    rows = []
    for (seed, scheme), run in df.groupby(["seed", "scheme"], sort=False):
        last = run.iloc[-1]
        n_test = int(run["n_test"].iloc[0]) if "n_test" in run else 0
        rows.append(
            {
                "seed": seed,
                "scheme": scheme,
                "test_error": float(last["test_error"]),
                "test_errors": int(round(last["test_error"] * n_test)),
                "test_error_mean": float(mean_curve.loc[(seed, scheme)]),
                "train_loss": float(last["train_loss"]),
                "iterations": int(last["iteration"]),
                "mean_iteration_time": float(last["time"] / max(last["iteration"], 1)),
                "max_decode_error": float(run["decode_error"].max()),
                "n_test": n_test,
            }
        )
    return pd.DataFrame(rows)


def fig2_wide(metrics: pd.DataFrame, column: str) -> pd.DataFrame:
    """``column`` of :func:`fig2_seed_metrics` as a seed × scheme table (schemes in run order),
    the paired layout :meth:`codedlib.claims.ClaimsTable.comparison` takes column by column.
    """
    order = list(dict.fromkeys(metrics["scheme"]))
    return metrics.pivot(index="seed", columns="scheme", values=column)[order]


def summary_column(t: float) -> str:
    """Name of :func:`fig2_summary`'s column holding the mean test error at time ``t`` (seconds):
    ``test_error_at_`` and ``t`` formatted with ``:g``, its ``.``, ``-`` and ``+`` spelled ``_``,
    ``m`` and ``p`` (``0.5`` -> ``test_error_at_0_5``).
    """
    text = f"{float(t):g}".replace(".", "_").replace("-", "m").replace("+", "p")
    return f"test_error_at_{text}"


def fig2_summary(df: pd.DataFrame, times=None) -> pd.DataFrame:
    """Mean over seeds of each scheme's test error at the given times (step function: the
    error after the last iteration finished by t), iterations completed and mean iteration
    time, and the largest relative gradient error over all seeds.
    """
    check_frame("df", df, ("scheme", "seed", "time", "test_error"))
    times = np.asarray([0.5, 1, 2, 5] if times is None else times, dtype=float)
    out = []
    for scheme, g in df.groupby("scheme", sort=False):
        row = {"scheme": scheme}
        for t in times:
            vals = [
                _step_values(run, "test_error", np.array([t]))[0] for _, run in g.groupby("seed")
            ]
            row[summary_column(t)] = float(np.mean(vals))
        last = g.groupby("seed").tail(1)
        row["iterations"] = float(last["iteration"].mean())
        row["mean_iteration_time"] = float((last["time"] / last["iteration"]).mean())
        row["max_gradient_error"] = float(g["decode_error"].max())
        out.append(row)
    return pd.DataFrame(out)
