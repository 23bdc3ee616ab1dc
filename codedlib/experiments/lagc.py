"""Experiments of the LAGC paper: one function per table / figure, returning data.

* :func:`heterogeneous_regression` -- the Section VI linear-regression task (synthetic data
  with smoothness that varies across partitions, so lazy aggregation can pay off).
* :func:`storage_layouts` -- who stores what in Figs. 3 (GC), 4 (LAG), 5(a) (G-LAG), 5(b) (LAGC).
* :func:`table1_tradeoff` -- Table I (coding / grouping / adaptive selection) as measured
  per-iteration time, communication and computation relative to GD.
* :func:`complexity_curves` -- Section V-D: time / communication / computation complexity of
  GD, GC, LAG, G-GD, G-LAG and LAGC as ``r`` or ``G`` varies (Table II formulas).
* :func:`convergence_runs` -- Section VI: gap, communication and computation vs wall-clock
  time for all schemes on shared delays; :func:`complexity_summary` and
  :func:`conclusion_check` test the paper's conclusion on those runs.
* :func:`iteration_time_check` -- simulated mean time per iteration vs eq. 21/22/28.
* :func:`bound_grid` -- issue 13 item 7: G-LAG / G-GD time to a target gap, bound (eq. 19,
  20, 29, 30, 31) against simulation over a grid of ``(ξ, D)`` and seeds;
  :func:`bound_grid_summary` gives the intervals and the verdict per cell;
  :func:`bound_best_case` the smallest bound ratio over all ``(ξ, D)`` as the groups'
  smoothness spread grows.
* :func:`convergence_seeds` -- the Section VI runs repeated over independent seeds (a new
  problem draw and new delays per seed): one tidy row per (seed, delay, step-size rule,
  scheme) with every measured quantity the notebook compares, and thinned curves;
  :func:`convergence_bands` (median and min-max over seeds on a common clock),
  :func:`seed_table` (seeds x schemes) and :func:`table1_seeds` (Table I ratios per seed).

Reference: zhang2021lagc, tandon2017gradient, chen2018lag.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from codedlib._validation import as_generator, check_int, check_real
from codedlib.problems import LeastSquares, even_partition
from codedlib.progress import track
from codedlib.schemes.lagc import DelayStream, run_scheme
from codedlib.theory import lagc as th

__all__ = [
    "seed_values",
    "BETA_SWEEP",
    "gc_gd_beta_sweep",
    "compare_schemes",
    "CompareSchemesResult",
    "ConclusionCheckResult",
    "ConvergenceRunsResult",
    "ProblemConstantsResult",
    "SCHEME_LABELS",
    "SeedRuns",
    "SeedRunsResult",
    "StorageLayoutsResult",
    "bound_best_case",
    "bound_grid",
    "bound_grid_summary",
    "complexity_curves",
    "complexity_summary",
    "conclusion_check",
    "convergence_bands",
    "convergence_metrics",
    "convergence_runs",
    "convergence_seeds",
    "default_configs",
    "group_smoothness",
    "heterogeneous_regression",
    "iteration_time_check",
    "make_delay",
    "problem_constants",
    "seed_interval",
    "seed_pairs",
    "seed_table",
    "selection_check",
    "storage_layouts",
    "table1_intervals",
    "table1_seeds",
    "table1_tradeoff",
    "table2_check",
]

SCHEME_LABELS = {
    "gd": "GD",
    "gc": "GC",
    "lag": "LAG",
    "g-gd": "G-GD",
    "g-lag": "G-LAG",
    "lagc": "LAGC",
}


# --------------------------------------------------------------------------------------
# Data and constants
# --------------------------------------------------------------------------------------
def heterogeneous_regression(
    n_workers: int = 12,
    samples_per_partition: int = 50,
    dim: int = 20,
    heterogeneity: float = 30.0,
    condition: float = 100.0,
    noise: float = 0.1,
    lam: float = 0.0,
    rng=None,
) -> LeastSquares:
    """Synthetic linear regression with heterogeneous smoothness across partitions.

    Fine partition ``p`` (``samples_per_partition`` rows) has rows ``z ⊙ c · sqrt(s_p)`` with
    ``z ~ N(0, I)``, feature scales ``c_j`` log-spaced from 1 to ``condition**-1/2`` (so the
    condition number of the Hessian is about ``condition``) and partition scale
    ``s_p = heterogeneity**(p/(N-1))`` (so the partition smoothness constants ``L_p`` span a
    factor ``heterogeneity``). Labels ``y = Xθ₀ + noise · N(0, 1)``. Section VI uses linear
    regression; the LAG paper's synthetic data likewise gives every worker its own
    smoothness (``1.3**(m-1)``).
    """
    n_workers = check_int("n_workers", n_workers, low=1)
    samples_per_partition = check_int("samples_per_partition", samples_per_partition, low=1)
    dim = check_int("dim", dim, low=1)
    heterogeneity = check_real("heterogeneity", heterogeneity, low=1.0)
    condition = check_real("condition", condition, low=1.0)
    noise = check_real("noise", noise, low=0.0)
    gen = as_generator(rng)
    feature_scale = np.logspace(0.0, -0.5 * math.log10(condition), dim)
    part_scale = heterogeneity ** (np.arange(n_workers) / max(n_workers - 1, 1))
    X = np.vstack(
        [
            gen.standard_normal((samples_per_partition, dim)) * feature_scale * math.sqrt(s)
            for s in part_scale
        ]
    )
    theta0 = gen.standard_normal(dim)
    y = X @ theta0 + noise * gen.standard_normal(X.shape[0])
    return LeastSquares(X, y, lam=lam)


@dataclass(frozen=True)
class ProblemConstantsResult:
    """Constants of a learning problem split over ``N`` fine partitions (Section V)."""

    total_smoothness: float
    strong_convexity: float
    kappa: float
    initial_gap: float
    f_star: float
    partition_smoothness: np.ndarray
    bounds: np.ndarray


def problem_constants(problem, n_workers: int) -> ProblemConstantsResult:
    """``L`` (sum objective), ``μ``, ``κ``, ``Δ = L(θ⁰) - L*`` and fine-partition ``L_p``."""
    n = problem.n_samples
    bounds = even_partition(n, n_workers)
    theta_star = problem.optimum()
    H = (problem.X.T @ problem.X) / n + problem.lam * np.eye(problem.dim)
    eig = np.linalg.eigvalsh(H)
    L_parts = np.array([(b - a) * problem.smoothness(a, b) for a, b in itertools.pairwise(bounds)])
    f_star = problem.loss(theta_star)
    return ProblemConstantsResult(
        total_smoothness=n * eig[-1],
        strong_convexity=n * eig[0],
        kappa=eig[-1] / eig[0],
        initial_gap=n * (problem.loss(problem.initial_point()) - f_star),
        f_star=f_star,
        partition_smoothness=L_parts,
        bounds=bounds,
    )


def group_smoothness(problem, n_workers: int, n_groups: int) -> np.ndarray:
    """Smoothness ``L_g`` of each group's sum loss (eq. 17)."""
    n = problem.n_samples
    bounds = even_partition(n, n_workers)
    n_g = n_workers // n_groups
    return np.array(
        [
            (bounds[(g + 1) * n_g] - bounds[g * n_g])
            * problem.smoothness(bounds[g * n_g], bounds[(g + 1) * n_g])
            for g in range(n_groups)
        ]
    )


def make_delay(
    kind: str = "exponential", mean: float = 1.0, scale: float = 1.0, shape: float = 2.0
):
    """Unit-load delay: ``"exponential"`` with ``mean`` or ``"pareto"`` with ``scale, shape``."""
    if kind == "exponential":
        return th.exponential_delay(mean)
    if kind == "pareto":
        return th.pareto_delay(scale, shape)
    raise ValueError(f"kind must be 'exponential' or 'pareto', got kind={kind!r}")


# --------------------------------------------------------------------------------------
# Figures 3-5: storage layouts
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StorageLayoutsResult:
    """The storage layouts of the paper's examples (Figs. 3-5) and the groups the PS selects
    in each figure.
    """

    gc: th.LAGCLayout
    lag: th.LAGCLayout
    g_lag: th.LAGCLayout
    lagc: th.LAGCLayout
    selected: dict

    def panels(self) -> list[tuple[str, th.LAGCLayout, list[int]]]:
        """``(name, layout, selected_groups)`` per figure, in the paper's order."""
        names = ("gc", "lag", "g_lag", "lagc")
        return [(name, getattr(self, name), self.selected[name]) for name in names]


def storage_layouts() -> StorageLayoutsResult:
    """The paper's examples: Fig. 3 GC (N=3, r=2), Fig. 4 LAG (N=3), Fig. 5(a) G-LAG and
    Fig. 5(b) LAGC (N=6, r=2, G=3 and G=2), with the selections drawn in the figures
    (Fig. 4: worker 1 only; Fig. 5: group 1 only).
    """
    return StorageLayoutsResult(
        gc=th.lagc_layout(3, 2, 1),
        lag=th.lagc_layout(3, 1, 3),
        g_lag=th.lagc_layout(6, 2, 3),
        lagc=th.lagc_layout(6, 2, 2),
        selected={"gc": [0], "lag": [0], "g_lag": [0], "lagc": [0]},
    )


# --------------------------------------------------------------------------------------
# Section VI: convergence on one clock
# --------------------------------------------------------------------------------------
def default_configs(n_workers: int, redundancy: int, lagc_groups: int | None = None):
    """``(label, scheme, n_groups)`` for GD, GC, LAG, G-GD, G-LAG (G = N/r) and LAGC."""
    n_workers = check_int("n_workers", n_workers, low=1)
    redundancy = check_int("redundancy", redundancy, low=1, high=n_workers)
    if n_workers % redundancy:
        raise ValueError(
            f"redundancy must divide n_workers={n_workers} so that G-LAG can use "
            f"G = N/r groups, got redundancy={redundancy}"
        )
    glag = n_workers // redundancy
    configs = [
        ("GD", "gd", None),
        ("GC", "gc", None),
        ("LAG", "lag", None),
        ("G-GD", "g-gd", glag),
        ("G-LAG", "g-lag", glag),
    ]
    if lagc_groups is None:  # largest divisor below N/r: groups big enough to need coding
        candidates = [g for g in range(1, glag) if n_workers % g == 0]
        lagc_groups = candidates[-1] if candidates else None
    if lagc_groups is not None:
        th.lagc_layout(n_workers, redundancy, lagc_groups)
        configs.append((f"LAGC (G={lagc_groups})", "lagc", lagc_groups))
    return configs


@dataclass(frozen=True)
class ConvergenceRunsResult:
    """Every scheme run on the same delay draws (Section VI), as :func:`convergence_runs`
    returns them.
    """

    runs: dict
    stepsize_rule: str
    f_star: float


def _runs(runs) -> dict:
    """``{label: SchemeRun}`` of a :class:`ConvergenceRunsResult` (or of such a dict)."""
    return runs.runs if isinstance(runs, ConvergenceRunsResult) else runs


def convergence_runs(
    problem,
    n_workers: int,
    redundancy: int,
    *,
    delay,
    xi: float = 0.05,
    history: int = 10,
    stepsize_rule: str = "gd",
    configs=None,
    replicas: int = 20,
    max_iter: int = 20_000,
    rel_tol: float = 1e-10,
    rng=None,
) -> ConvergenceRunsResult:
    """Run every scheme on the same delay draws until the gap falls below
    ``rel_tol * gap(θ⁰)`` (Section VI).

    ``stepsize_rule="gd"`` uses ``α = 1/L`` for every scheme (as in LAG's experiments);
    ``"theory"`` uses ``(1 - sqrt(Dξ))/L`` for the lazy schemes (eq. 20). The result's
    ``runs`` is ``{label: SchemeRun}``.
    """
    if stepsize_rule not in ("gd", "theory"):
        raise ValueError(f"stepsize_rule must be 'gd' or 'theory', got {stepsize_rule!r}")
    configs = configs or default_configs(n_workers, redundancy)
    f_star = problem.loss(problem.optimum())
    gap0 = problem.loss(problem.initial_point()) - f_star
    tol = check_real("rel_tol", rel_tol, low=0.0, low_open=True) * gap0
    delays = DelayStream(delay, n_workers, replicas, rng)
    alpha = 1.0 / (problem.n_samples * problem.smoothness()) if stepsize_rule == "gd" else None
    runs = {}
    for label, scheme, groups in configs:
        runs[label] = run_scheme(
            scheme,
            problem,
            n_workers,
            redundancy,
            groups,
            delays=delays,
            xi=xi,
            history=history,
            stepsize=alpha,
            max_iter=max_iter,
            gap_tol=tol,
            f_star=f_star,
        )
    return ConvergenceRunsResult(runs=runs, stepsize_rule=stepsize_rule, f_star=f_star)


def convergence_metrics(runs: dict, max_points: int = 400) -> pd.DataFrame:
    """Long table (scheme, time, communication, computation, gap) thinned for plotting."""
    frames = []
    for label, run in _runs(runs).items():
        df = run.metrics()
        if len(df) > max_points:
            keep = np.unique(np.linspace(0, len(df) - 1, max_points).astype(int))
            df = df.iloc[keep]
        frames.append(df.assign(scheme=label))
    return pd.concat(frames, ignore_index=True)


def complexity_summary(runs: dict, eps_rel: float = 1e-8) -> pd.DataFrame:
    """Measured iteration / time / communication / computation complexity (eq. 10-12) at
    gap ``eps_rel * gap(θ⁰)``, plus the mean fraction of active units per iteration.
    """
    rows = []
    for label, run in _runs(runs).items():
        c = run.complexity(eps_rel * run.gap[0])
        c["scheme"] = label
        c["active_fraction"] = float(run.n_selected.mean() / run.selected.shape[1])
        rows.append(c)
    cols = [
        "scheme",
        "iterations",
        "time",
        "time_stderr",
        "communication",
        "computation",
        "active_fraction",
    ]
    return pd.DataFrame(rows)[cols]


@dataclass(frozen=True)
class ConclusionCheckResult:
    """Where one scheme ranks among the measured complexities (the paper's conclusion)."""

    best_time: bool
    best_communication: bool
    computation_rank: int
    n_schemes: int
    fastest: str
    least_communication: str
    least_computation: str


def conclusion_check(summary: pd.DataFrame, scheme: str = "G-LAG") -> ConclusionCheckResult:
    """Does ``scheme`` have the best time and communication complexity, and where does its
    computation rank (1 = lowest)? The paper's conclusion: G-LAG best time and communication
    "while maintaining a low computational cost".
    """
    s = summary.set_index("scheme")
    ranks = {
        m: int(s[m].rank(method="min")[scheme]) for m in ("time", "communication", "computation")
    }
    return ConclusionCheckResult(
        best_time=ranks["time"] == 1,
        best_communication=ranks["communication"] == 1,
        computation_rank=ranks["computation"],
        n_schemes=len(s),
        fastest=s["time"].idxmin(),
        least_communication=s["communication"].idxmin(),
        least_computation=s["computation"].idxmin(),
    )


# --------------------------------------------------------------------------------------
# Table I and eq. 21/22/28 checks
# --------------------------------------------------------------------------------------
def table1_tradeoff(runs: dict) -> pd.DataFrame:
    """Table I measured: mean time, communication and computation *per iteration* of coding
    (GC), grouping (G-GD) and adaptive selection (LAG), relative to GD on the same delays.
    """

    def per_iter(run):
        return {
            "time": float(run.iteration_times.mean()),
            "communication": float((run.downloads + run.uploads).mean()),
            "computation": float(run.computation.mean()),
        }

    runs = _runs(runs)
    base = per_iter(runs["GD"])
    rows = []
    for technique, label in [
        ("Coding (GC)", "GC"),
        ("Grouping (G-GD)", "G-GD"),
        ("Adaptive selection (LAG)", "LAG"),
    ]:
        m = per_iter(runs[label])
        rows.append({"technique": technique, **{f"{k}_vs_gd": m[k] / base[k] for k in base}})
    return pd.DataFrame(rows)


def iteration_time_check(runs: dict, delay) -> pd.DataFrame:
    """Simulated mean time per iteration vs the formulas (eq. 21/22 for GD, GC, LAG; eq. 28
    for the group schemes), conditioned on the realised number of active units.
    """
    rows = []
    for label, run in _runs(runs).items():
        layout = run.layout
        cache = {}
        expected = np.empty(run.n_iterations)
        for k, m in enumerate(run.n_selected):
            m = int(m)
            if m not in cache:
                cache[m] = th.expected_iteration_time(
                    "lagc",
                    layout.n_workers,
                    layout.redundancy,
                    layout.n_groups,
                    delay,
                    n_selected=m,
                )
            expected[k] = cache[m]
        sim = run.iteration_times
        diff = sim - expected[None, :]
        se = float(diff.std(ddof=1) / math.sqrt(diff.size)) if diff.size > 1 else math.nan
        formula = {"gd": "eq. 21/22 (23)", "gc": "eq. 21/22 (24)", "lag": "eq. 21/22 (27)"}
        rows.append(
            {
                "scheme": label,
                "formula": formula.get(run.scheme, "eq. 28"),
                "expected": float(expected.mean()),
                "simulated": float(sim.mean()),
                "stderr": se,
                "z": float(diff.mean() / se) if se > 0 else 0.0,
            }
        )
    return pd.DataFrame(rows)


def selection_check(runs: dict, problem, xi: float, history: int) -> pd.DataFrame:
    """Measured mean fraction of active units vs the bound ``1 - ΔC`` (eq. 26 / 30) computed
    with each run's own stepsize, and the worst per-unit count vs ``ceil(K/(d_m+1))``.
    """
    rows = []
    for label, run in _runs(runs).items():
        if run.scheme not in ("lag", "g-lag", "lagc"):
            continue
        layout = run.layout
        L_units = group_smoothness(problem, layout.n_workers, layout.n_groups)
        periods = th.selection_period(L_units, xi, history, run.stepsize)
        K = run.n_iterations
        counts = run.selected.sum(axis=0)
        rows.append(
            {
                "scheme": label,
                "units": layout.n_groups,
                "measured_fraction": float(run.n_selected.mean() / layout.n_groups),
                "selection_bound": th.selection_fraction_bound(L_units, xi, history, run.stepsize),
                "eq25_respected": bool(np.all(counts <= np.ceil(K / (periods + 1)))),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------
# Section V-D: complexity curves
# --------------------------------------------------------------------------------------
def complexity_curves(
    problem,
    n_workers: int,
    *,
    delays: dict,
    vary: str = "r",
    redundancy: int = 2,
    xi: float = 0.05,
    history: int = 10,
    eps_rel: float = 1e-8,
) -> pd.DataFrame:
    """Table II evaluated on ``problem`` (Section V-D illustration).

    ``vary="r"``: for every divisor ``r`` of ``N``, GD and LAG (``r = 1``), GC(r), G-GD and
    G-LAG with ``G = N/r``. ``vary="G"``: fixed ``redundancy``, LAGC for every divisor ``G``
    of ``N`` (``G = 1`` is GC-like, ``G = N`` is LAG, ``G >= N/r`` is G-LAG). ``delays`` maps a
    name to a unit-load delay. Lazy schemes use the upper bounds (26)/(30) with the theory
    stepsize ``(1 - sqrt(Dξ))/L``. Returns a long DataFrame with columns ``delay,
    redundancy`` (``r``), ``n_groups`` (``G``), ``scheme, iterations, selected, time_per_iter,
    time, communication, computation, bound``.
    """
    if vary not in ("r", "G"):
        raise ValueError(f"vary must be 'r' or 'G', got vary={vary!r}")
    c = problem_constants(problem, n_workers)
    eps = eps_rel * c.initial_gap
    divisors = [d for d in range(1, n_workers + 1) if n_workers % d == 0]
    rows = []
    for dname, delay in delays.items():
        common = {
            "delay": delay,
            "kappa": c.kappa,
            "initial_gap": c.initial_gap,
            "eps": eps,
            "total_smoothness": c.total_smoothness,
            "xi": xi,
            "history": history,
        }
        if vary == "r":
            for r in divisors:
                entries = [
                    ("GD", "gd", r, None),
                    ("LAG", "lag", r, n_workers),
                    ("GC", "gc", r, 1),
                    ("G-GD", "g-gd", r, n_workers // r),
                    ("G-LAG", "g-lag", r, n_workers // r),
                ]
                for label, scheme, rr, groups in entries:
                    g = groups if groups is not None else n_workers
                    L_units = group_smoothness(problem, n_workers, g)
                    try:
                        out = th.complexities(
                            scheme, n_workers, rr, groups, unit_smoothness=L_units, **common
                        )
                    except ValueError:  # e.g. Pareto mean infinite for this order statistic
                        continue
                    rows.append(
                        {
                            "delay": dname,
                            "redundancy": r,
                            "n_groups": out["n_groups"],
                            "scheme": label,
                            **_pick(out),
                        }
                    )
        else:
            r = check_int("redundancy", redundancy, low=1, high=n_workers)
            for g in divisors:
                L_units = group_smoothness(problem, n_workers, g)
                try:
                    out = th.complexities(
                        "lagc", n_workers, r, g, unit_smoothness=L_units, **common
                    )
                except ValueError:
                    continue
                rows.append(
                    {"delay": dname, "redundancy": r, "n_groups": g, "scheme": "LAGC", **_pick(out)}
                )
            for label, scheme, groups in [("GD", "gd", None), ("GC", "gc", None)]:
                out = th.complexities(scheme, n_workers, r, groups, **common)
                for g in divisors:
                    rows.append(
                        {
                            "delay": dname,
                            "redundancy": r,
                            "n_groups": g,
                            "scheme": label,
                            **_pick(out),
                        }
                    )
    return pd.DataFrame(rows)


def _pick(out):
    return {
        k: out[k]
        for k in (
            "iterations",
            "selected",
            "time_per_iter",
            "time",
            "communication",
            "computation",
            "bound",
        )
    }


# --------------------------------------------------------------------------------------
# Table II against the runs
# --------------------------------------------------------------------------------------
def table2_check(
    runs: dict, problem, delay, xi: float, history: int, eps_rel: float = 1e-8
) -> pd.DataFrame:
    """Measured complexities (10)-(12) next to Table II evaluated with the *measured*
    iteration count, and the measured iteration count next to eq. (19)/(20).

    For GD, GC and G-GD the per-iteration factors of Table II are exact (communication and
    computation equal, time equal up to Monte Carlo error). For LAG, G-LAG and LAGC they are
    the upper bounds (26)/(27)/(30)/(31) with ``ΔC`` computed from each run's own stepsize.
    Eq. (20) is a bound only for the theory stepsize ``(1 - sqrt(Dξ))/L``; for runs with another
    stepsize its column is NaN.
    """
    runs = _runs(runs)
    c = problem_constants(problem, next(iter(runs.values())).layout.n_workers)
    rows = []
    for label, run in runs.items():
        measured = run.complexity(eps_rel * run.gap[0])
        iters = measured["iterations"]
        layout = run.layout
        lazy = run.scheme in ("lag", "g-lag", "lagc")
        eps = eps_rel * c.initial_gap
        if lazy:
            L_units = group_smoothness(problem, layout.n_workers, layout.n_groups)
            frac = th.selection_fraction_bound(L_units, xi, history, run.stepsize)
            m = max(1, min(layout.n_groups, math.ceil(frac * layout.n_groups - 1e-12)))
            theory_alpha = (
                th.lag_stepsize(c.total_smoothness, xi, history) if history * xi < 1 else None
            )
            if theory_alpha is not None and math.isclose(run.stepsize, theory_alpha):
                i_bound = th.iteration_complexity_lag(c.kappa, c.initial_gap, eps, xi, history)
            else:
                i_bound = math.nan
        else:
            m = layout.n_groups
            i_bound = th.iteration_complexity_gd(c.kappa, c.initial_gap, eps)
        t_iter = th.expected_iteration_time(
            "lagc", layout.n_workers, layout.redundancy, layout.n_groups, delay, n_selected=m
        )
        loads = th.loads_per_iteration(
            "lagc",
            layout.n_workers,
            layout.redundancy,
            layout.n_groups,
            n_selected=m if not lazy else frac * layout.n_groups,
        )
        rows.append(
            {
                "scheme": label,
                "bound": lazy,
                "iterations": iters,
                "iter_bound": i_bound,
                "time": measured["time"],
                "table2_time": iters * t_iter,
                "time_stderr": measured["time_stderr"],
                "communication": measured["communication"],
                "table2_communication": iters * loads["communication"],
                "computation": measured["computation"],
                "table2_computation": iters * loads["computation"],
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------
# Section VI over independent seeds
# --------------------------------------------------------------------------------------
def seed_pairs(n_seeds: int, rng=None) -> list[tuple[int, int]]:
    """``n_seeds`` independent ``(problem_seed, delay_seed)`` pairs derived from ``rng``.

    An int ``rng`` is the entropy of a ``numpy.random.SeedSequence`` whose spawned children
    give the pairs, so the same ``rng`` always gives the same pairs and pair ``i`` does not
    depend on ``n_seeds``.
    """
    n_seeds = check_int("n_seeds", n_seeds, low=1)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        entropy = int(rng)
    else:
        entropy = int(as_generator(rng).integers(2**62))
    children = np.random.SeedSequence(entropy).spawn(n_seeds)
    return [tuple(int(v) for v in child.generate_state(2)) for child in children]


@dataclass
class SeedRunsResult:
    """Section VI over seeds. ``summary``: one row per (seed, delay, rule, scheme) with

    ``stepsize_times_smoothness`` (``αL``), ``iterations``, ``time`` (eq. 10: expected time to the target given the trajectory,
    mean over delay replicas), ``communication`` (eq. 11), ``computation`` (eq. 12),
    ``active_fraction`` (active units per iteration / units), ``time_per_iter`` (simulated),
    ``time_per_iter_formula`` (eq. 21/22/28 given the realised active units),
    ``messages_per_iter``, ``gradients_per_iter``, ``iter_bound`` (eq. 19 for GD, GC, G-GD;
    eq. 20 for the lazy schemes with the theory step size, else NaN), ``table2_*`` (Table II
    with the measured iteration count), ``selection_bound`` (``1 - ΔC`` of eq. 26/30 with the
    run's step size) and ``eq25_respected``. ``curves``: thinned time / communication /
    computation / relative gap per run. ``settings``: the parameters used.
    """

    summary: pd.DataFrame
    curves: pd.DataFrame
    settings: dict


#: Former name of :class:`SeedRunsResult`.
SeedRuns = SeedRunsResult


def convergence_seeds(
    n_workers: int,
    redundancy: int,
    *,
    delays: dict,
    n_seeds: int = 5,
    rules=("gd", "theory"),
    problem_kwargs: dict | None = None,
    xi: float = 0.05,
    history: int = 10,
    configs=None,
    replicas: int = 20,
    rel_tol: float = 1e-10,
    eps_rel: float = 1e-8,
    max_iter: int = 20_000,
    max_points: int = 400,
    rng=None,
) -> SeedRunsResult:
    """Section VI repeated over ``n_seeds`` independent seeds.

    Seed ``i`` draws a new :func:`heterogeneous_regression` problem (``problem_kwargs``) and
    new delays; within a seed every scheme and step-size rule runs on the same delay draws
    (paired comparisons). ``delays`` maps a name to a unit-load delay. Complexities are
    measured at gap ``eps_rel * gap(θ⁰)``; runs stop at ``rel_tol * gap(θ⁰)``.
    """
    n_seeds = check_int("n_seeds", n_seeds, low=1)
    eps_rel = check_real("eps_rel", eps_rel, low=0.0, low_open=True)
    rel_tol = check_real("rel_tol", rel_tol, low=0.0, low_open=True)
    if rel_tol > eps_rel:
        raise ValueError(f"rel_tol must satisfy rel_tol <= eps_rel={eps_rel:g}, got {rel_tol:g}")
    if not delays:
        raise ValueError("delays must map at least one name to a delay distribution")
    for rule in rules:
        if rule not in ("gd", "theory"):
            raise ValueError(f"rules must hold 'gd' or 'theory', got {rule!r}")
    problem_kwargs = dict(problem_kwargs or {})
    configs = configs or default_configs(n_workers, redundancy)
    rows, curves = [], []
    for i, (p_seed, d_seed) in enumerate(track(seed_pairs(n_seeds, rng), "LAGC seeds")):
        problem = heterogeneous_regression(n_workers, rng=p_seed, **problem_kwargs)
        consts = problem_constants(problem, n_workers)
        for dname, delay in delays.items():
            for rule in rules:
                runs = convergence_runs(
                    problem,
                    n_workers,
                    redundancy,
                    delay=delay,
                    xi=xi,
                    history=history,
                    stepsize_rule=rule,
                    configs=configs,
                    replicas=replicas,
                    max_iter=max_iter,
                    rel_tol=rel_tol,
                    rng=d_seed,
                )
                summary = complexity_summary(runs, eps_rel).set_index("scheme")
                times = iteration_time_check(runs, delay).set_index("scheme")
                t2 = table2_check(runs, problem, delay, xi, history, eps_rel).set_index("scheme")
                sel = selection_check(runs, problem, xi, history)
                sel = sel.set_index("scheme") if len(sel) else sel
                for label, run in _runs(runs).items():
                    lazy = run.scheme in ("lag", "g-lag", "lagc")
                    row = {
                        "seed": i,
                        "problem_seed": p_seed,
                        "delay_seed": d_seed,
                        "delay": dname,
                        "rule": rule,
                        "scheme": label,
                        "kind": run.scheme,
                        "lazy": lazy,
                        "stepsize_times_smoothness": run.stepsize * consts.total_smoothness,
                        "kappa": consts.kappa,
                        **summary.loc[label].to_dict(),
                        "time_per_iter": times.loc[label, "simulated"],
                        "time_per_iter_formula": times.loc[label, "expected"],
                        "messages_per_iter": float((run.downloads + run.uploads).mean()),
                        "gradients_per_iter": float(run.computation.mean()),
                        "iter_bound": t2.loc[label, "iter_bound"],
                        "table2_time": t2.loc[label, "table2_time"],
                        "table2_communication": t2.loc[label, "table2_communication"],
                        "table2_computation": t2.loc[label, "table2_computation"],
                        "selection_bound": (
                            sel.loc[label, "selection_bound"] if lazy else math.nan
                        ),
                        "eq25_respected": (
                            bool(sel.loc[label, "eq25_respected"]) if lazy else True
                        ),
                    }
                    rows.append(row)
                metrics = convergence_metrics(runs, max_points)
                gap0 = metrics.groupby("scheme")["gap"].transform("first")
                curves.append(
                    metrics.assign(rel_gap=metrics["gap"] / gap0, seed=i, delay=dname, rule=rule)
                )
    settings = {
        "n_workers": n_workers,
        "redundancy": redundancy,
        "n_seeds": n_seeds,
        "rules": tuple(rules),
        "xi": xi,
        "history": history,
        "replicas": replicas,
        "rel_tol": rel_tol,
        "eps_rel": eps_rel,
        "problem_kwargs": problem_kwargs,
        "configs": list(configs),
    }
    return SeedRunsResult(pd.DataFrame(rows), pd.concat(curves, ignore_index=True), settings)


def seed_table(summary: pd.DataFrame, column: str, **where) -> pd.DataFrame:
    """``column`` as a (seed x scheme) table for the rows matching ``where`` (e.g.
    ``delay="pareto", rule="gd"``); columns in the order the schemes were run.
    """
    sub = summary
    for key, value in where.items():
        sub = sub[sub[key] == value]
    if sub.empty:
        raise ValueError(f"no rows match {where}")
    order = list(dict.fromkeys(sub["scheme"]))
    return sub.pivot(index="seed", columns="scheme", values=column)[order]


def seed_values(summary: pd.DataFrame, column: str, scheme: str, delay: str, rule: str = "gd"):
    """One scheme's per-seed values of ``column`` (a column of :func:`seed_table`), as an array."""
    return seed_table(summary, column, delay=delay, rule=rule)[scheme].to_numpy()


def convergence_bands(
    curves: pd.DataFrame, n_grid: int = 300, quantities=("rel_gap", "communication", "computation")
) -> pd.DataFrame:
    """Median, min and max over seeds of each quantity on a common clock.

    For every (delay, rule) the clock runs from 0 to the latest end of any run; a run's value
    at time ``t`` is that of its last iterate finished by ``t`` (a run that reached its
    target stops, so its curves stay flat afterwards). Returns a long table with columns
    ``delay, rule, scheme, time, quantity, median, low, high, n_seeds``.
    """
    n_grid = check_int("n_grid", n_grid, low=2)
    out = []
    for (dname, rule), part in curves.groupby(["delay", "rule"], sort=False):
        grid = np.linspace(0.0, float(part["time"].max()), n_grid)
        for label, sub in part.groupby("scheme", sort=False):
            for q in quantities:
                values = []
                for _, run in sub.groupby("seed", sort=True):
                    t = run["time"].to_numpy()
                    idx = np.searchsorted(t, grid, side="right") - 1
                    values.append(run[q].to_numpy()[np.clip(idx, 0, len(t) - 1)])
                values = np.array(values)
                out.append(
                    pd.DataFrame(
                        {
                            "delay": dname,
                            "rule": rule,
                            "scheme": label,
                            "time": grid,
                            "quantity": q,
                            "median": np.median(values, axis=0),
                            "low": values.min(axis=0),
                            "high": values.max(axis=0),
                            "n_seeds": values.shape[0],
                        }
                    )
                )
    return pd.concat(out, ignore_index=True)


_TABLE1 = [("coding (GC)", "GC"), ("grouping (G-GD)", "G-GD"), ("selection (LAG)", "LAG")]
_TABLE1_METRICS = {
    "time": "time_per_iter",
    "communication": "messages_per_iter",
    "computation": "gradients_per_iter",
}


def table1_seeds(summary: pd.DataFrame, rule: str = "gd") -> pd.DataFrame:
    """Table I per seed: time, communication and computation *per iteration* of coding
    (GC), grouping (G-GD) and adaptive selection (LAG) divided by GD's on the same seed and
    delays. Long table: ``seed, delay, technique, metric, ratio``.
    """
    sub = summary[summary["rule"] == rule]
    if sub.empty:
        raise ValueError(f"no rows with rule={rule!r}")
    rows = []
    for (seed, dname), part in sub.groupby(["seed", "delay"], sort=True):
        s = part.set_index("scheme")
        for technique, label in _TABLE1:
            for metric, col in _TABLE1_METRICS.items():
                rows.append(
                    {
                        "seed": seed,
                        "delay": dname,
                        "technique": technique,
                        "metric": metric,
                        "ratio": s.loc[label, col] / s.loc["GD", col],
                    }
                )
    return pd.DataFrame(rows)


def seed_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """Mean over seeds and its Student-t interval (``codedlib.claims.mean_interval``); an
    interval of zero width when every seed gives the same value.
    """
    from codedlib.claims import mean_interval

    x = np.asarray(values, dtype=float)
    if x.size > 1 and np.all(x == x[0]):
        return float(x[0]), float(x[0]), float(x[0])
    return mean_interval(x, level)


#: Pareto shapes and delay replicas per seed of the GC / GD sweep (one draw serves every shape).
BETA_SWEEP = {"shapes": (1.2, 1.5, 1.7, 2.0, 2.5, 3.0), "replicas": 20_000}


def gc_gd_beta_sweep(
    n_workers: int,
    redundancy: int,
    *,
    n_seeds: int,
    shapes=BETA_SWEEP["shapes"],
    replicas: int = BETA_SWEEP["replicas"],
    rng=None,
) -> pd.DataFrame:
    """GC / GD mean time per iteration over Pareto shapes, simulated, one row per (shape, seed),
    with eq. (22)'s ratio beside it (:func:`codedlib.theory.lagc.gc_gd_pareto_ratio`).

    Pareto times are ``U**(-1/beta)`` of one uniform draw per seed, so every shape sees the same
    random numbers; GC waits for the ``N-r+1``-th of ``N`` workers at load ``r``, GD for all.
    """
    n = check_int("n_workers", n_workers, low=2)
    r = check_int("redundancy", redundancy, low=2, high=n)
    n_seeds = check_int("n_seeds", n_seeds, low=2)
    replicas = check_int("replicas", replicas, low=2)
    gen = as_generator(rng)
    formula = {beta: th.gc_gd_pareto_ratio(n, r, beta) for beta in shapes}
    rows = []
    for seed in range(n_seeds):
        u = np.sort(gen.random((replicas, n)), axis=1)
        for beta in shapes:
            gd = np.mean(u[:, 0] ** (-1.0 / beta))
            gc = r * np.mean(u[:, r - 1] ** (-1.0 / beta))
            rows.append(
                {
                    "shape": float(beta),
                    "seed": seed,
                    "sim_ratio": gc / gd,
                    "formula_ratio": formula[beta],
                }
            )
    return pd.DataFrame(rows)


def table1_intervals(table: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Table I ratios of :func:`table1_seeds` summarised over seeds (mean, t-interval).
    Communication and computation do not depend on the delay model (the trajectories do
    not), so they are reported once with ``delay = "all"``.
    """
    rows = []
    first = table["delay"].iloc[0]
    for (technique, metric, dname), part in table.groupby(
        ["technique", "metric", "delay"], sort=False
    ):
        if metric != "time" and dname != first:
            continue
        mean, low, high = seed_interval(part["ratio"], level)
        rows.append(
            {
                "technique": technique,
                "metric": metric,
                "delay": dname if metric == "time" else "all",
                "mean": mean,
                "low": low,
                "high": high,
                "n_seeds": len(part),
            }
        )
    out = pd.DataFrame(rows)
    order = {"time": 0, "communication": 1, "computation": 2}
    return out.sort_values(
        ["metric", "delay"], key=lambda c: c.map(order) if c.name == "metric" else c, kind="stable"
    ).reset_index(drop=True)


# --------------------------------------------------------------------------------------
# Issue 13, item 7: is the G-LAG bound wrong or loose? Bound vs simulation over (ξ, D)
# --------------------------------------------------------------------------------------
def _expected_time(run, delay, cache):
    """``Σ_k E[T_(m_k:m_k)]`` of a run (eq. 10 given its selections; eq. 28/29/31)."""
    layout = run.layout
    total = 0.0
    for m, count in zip(*np.unique(run.n_selected, return_counts=True)):
        key = (id(delay), layout.n_groups, int(m))
        if key not in cache:
            cache[key] = th.expected_iteration_time(
                "lagc",
                layout.n_workers,
                layout.redundancy,
                layout.n_groups,
                delay,
                n_selected=int(m),
            )
        total += count * cache[key]
    return total


def bound_grid(
    n_workers: int = 12,
    redundancy: int = 3,
    *,
    delays: dict,
    xis=(0.002, 0.01, 0.03, 0.05, 0.08),
    histories=(1, 2, 5, 10),
    n_seeds: int = 5,
    rules=("gd", "theory"),
    problem_kwargs: dict | None = None,
    eps_rel: float = 1e-8,
    max_iter: int = 100_000,
    rng=None,
) -> pd.DataFrame:
    """G-LAG against G-GD (``G = N/r``): Table II's time bound next to the simulated time.

    For each seed (a new :func:`heterogeneous_regression` problem drawn from a seeded
    ``np.random.Generator``) G-GD runs once with ``α = 1/L``; G-LAG runs for every ``(ξ, D)``
    with ``Dξ < 1`` and every step-size rule (``"gd"``: ``1/L``; ``"theory"``: the eq. (20)
    step ``(1 - sqrt(Dξ))/L``, the only one the bound covers). Each run stops at gap
    ``eps_rel × gap(θ⁰)``. The simulated time is the expected computing time given the run's
    selections, ``Σ_k E[T_(m_k:m_k)]`` for each delay model (eq. 10 with eq. 28/29/31, exact
    rather than Monte Carlo: the trajectory does not depend on the delays).

    One row per (seed, delay, ξ, D, rule): simulated ``iterations``, ``ggd_iterations``,
    ``active_fraction``, ``time``, ``ggd_time``, ``sqrt_d_xi = sqrt(Dξ)``, ``sim_ratio = time/ggd_time``; the bound's
    ``iter_bound`` (eq. 20), ``ggd_iter_bound`` (eq. 19), ``selection_bound`` (``1-ΔC``, eq. 30,
    theory step), ``bound_time`` (eq. 31), ``ggd_bound_time`` (eq. 29), ``bound_ratio``, its
    factors ``iteration_factor = 1/(1-sqrt(Dξ))`` and ``time_factor``, and the
    measured-vs-bound factors ``sim_iteration_factor = iterations/ggd_iterations``.
    """
    n_workers = check_int("n_workers", n_workers, low=2)
    redundancy = check_int("redundancy", redundancy, low=1, high=n_workers)
    n_seeds = check_int("n_seeds", n_seeds, low=1)
    eps_rel = check_real("eps_rel", eps_rel, low=0.0, high=1.0, low_open=True, high_open=True)
    if not delays:
        raise ValueError("delays must map at least one name to a delay distribution, got {}")
    for rule in rules:
        if rule not in ("gd", "theory"):
            raise ValueError(f"rules must hold 'gd' or 'theory', got {rule!r}")
    xis = [check_real("xis", x, low=0.0, low_open=True) for x in xis]
    histories = [check_int("histories", d, low=1) for d in histories]
    cells = [(x, d) for d in histories for x in xis if d * x < 1.0]
    if not cells:
        raise ValueError(
            f"xis and histories must give at least one cell with D*xi < 1, got "
            f"xis={xis}, histories={histories}"
        )
    G = th.scheme_layout("g-lag", n_workers, redundancy).n_groups
    problem_kwargs = dict(problem_kwargs or {})
    gen = as_generator(rng)
    rows, cache = [], {}
    for i in track(range(n_seeds), "bound grid seeds"):
        problem = heterogeneous_regression(n_workers, rng=gen, **problem_kwargs)
        c = problem_constants(problem, n_workers)
        L_units = group_smoothness(problem, n_workers, G)
        f_star = c.f_star
        gap0 = problem.loss(problem.initial_point()) - f_star
        stream = DelayStream(next(iter(delays.values())), n_workers, 1, 0)
        common = {
            "delays": stream,
            "max_iter": max_iter,
            "gap_tol": eps_rel * gap0,
            "f_star": f_star,
        }
        ggd = run_scheme("g-gd", problem, n_workers, redundancy, G, **common)
        ggd_iters = ggd.n_iterations  # the run stops at the first iterate below the target
        eps = eps_rel * c.initial_gap
        ggd_bound_iters = th.iteration_complexity_gd(c.kappa, c.initial_gap, eps)
        for xi, history in cells:
            bound = {
                name: th.lazy_time_ratio_bound(
                    L_units,
                    c.total_smoothness,
                    n_workers,
                    redundancy,
                    G,
                    delay=delay,
                    xi=xi,
                    history=history,
                )
                for name, delay in delays.items()
            }
            iter_bound = th.iteration_complexity_lag(c.kappa, c.initial_gap, eps, xi, history)
            for rule in rules:
                alpha = 1.0 / c.total_smoothness if rule == "gd" else None
                run = run_scheme(
                    "g-lag",
                    problem,
                    n_workers,
                    redundancy,
                    G,
                    xi=xi,
                    history=history,
                    stepsize=alpha,
                    **common,
                )
                iters = run.complexity(eps_rel * gap0)["iterations"]
                if math.isnan(iters):
                    raise ValueError(
                        f"max_iter={max_iter} is too small: G-LAG (xi={xi:g}, "
                        f"D={history}, rule={rule!r}) did not reach eps_rel="
                        f"{eps_rel:g}"
                    )
                active = float(run.n_selected.mean() / G)
                for name, delay in delays.items():
                    t_all = th.expected_iteration_time("lagc", n_workers, redundancy, G, delay)
                    time_ = _expected_time(run, delay, cache)
                    b = bound[name]
                    rows.append(
                        {
                            "seed": i,
                            "delay": name,
                            "xi": xi,
                            "history": history,
                            "sqrt_d_xi": math.sqrt(history * xi),
                            "rule": rule,
                            "iterations": iters,
                            "ggd_iterations": ggd_iters,
                            "active_fraction": active,
                            "time": time_,
                            "ggd_time": ggd_iters * t_all,
                            "sim_ratio": time_ / (ggd_iters * t_all),
                            "sim_iteration_factor": iters / ggd_iters,
                            "iter_bound": iter_bound,
                            "ggd_iter_bound": ggd_bound_iters,
                            "selection_bound": b["selection_bound"],
                            "bound_units": b["selected"],
                            "bound_time": iter_bound * b["time_factor"] * t_all,
                            "ggd_bound_time": ggd_bound_iters * t_all,
                            "iteration_factor": b["iteration_factor"],
                            "time_factor": b["time_factor"],
                            "bound_ratio": b["ratio"],
                        }
                    )
    return pd.DataFrame(rows)


def bound_grid_summary(grid: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per (delay, ξ, D, rule): the simulated ratio G-LAG/G-GD as a geometric mean over seeds
    with its paired t-interval, the bound's ratio (mean over seeds, with min and max), the
    winner each says (``"G-LAG"`` when the ratio's interval is below 1, ``"G-GD"`` when above,
    else ``"tie"``), and how loose the bound is (``looseness = bound ratio / simulated``).
    """
    from codedlib.claims import ratio_interval

    rows = []
    keys = ["delay", "xi", "history", "rule"]
    for key, part in grid.groupby(keys, sort=False):
        sim, lo, hi = ratio_interval(part["time"], part["ggd_time"], level)
        b = part["bound_ratio"]
        rows.append(
            {
                **dict(zip(keys, key)),
                "sqrt_d_xi": float(part["sqrt_d_xi"].iloc[0]),
                "n_seeds": len(part),
                "sim_ratio": sim,
                "sim_low": lo,
                "sim_high": hi,
                "bound_ratio": float(b.mean()),
                "bound_min": float(b.min()),
                "bound_max": float(b.max()),
                "sim_winner": "G-LAG" if hi < 1 else ("G-GD" if lo > 1 else "tie"),
                "bound_winner": "G-LAG" if b.max() < 1 else ("G-GD" if b.min() > 1 else "tie"),
                "looseness": float(b.mean()) / sim,
                "active_fraction": float(part["active_fraction"].mean()),
                "selection_bound": float(part["selection_bound"].mean()),
                "sim_iteration_factor": float(part["sim_iteration_factor"].mean()),
                "iteration_factor": float(part["iteration_factor"].mean()),
                "iterations_within_bound": bool((part["iterations"] <= part["iter_bound"]).all()),
                "time_within_bound": bool((part["time"] <= part["bound_time"]).all()),
            }
        )
    return pd.DataFrame(rows)


def bound_best_case(
    spreads=(1.0, 10.0, 30.0, 100.0, 1e3, 1e4, 1e5, 1e6),
    *,
    n_workers: int = 12,
    redundancy: int = 3,
    delays: dict,
    histories=tuple(range(1, 21)),
    n_xi: int = 60,
) -> pd.DataFrame:
    """Smallest G-LAG / G-GD time bound (eq. 29-31 with eq. 19-20) over ``(ξ, D)``.

    Group smoothness constants ``L_g = spread**(g/(G-1))`` (log-spaced, ``G = N/r``) with
    ``L = Σ_g L_g``, the largest ``L`` convexity allows and so the most favourable to skipping
    (eq. 25). For each ``D`` in ``histories``, ``n_xi`` values of ``ξ`` log-spaced in
    ``[1e-4/D, 0.99/D)``. Returns one row per (delay, spread): ``best_ratio`` and the
    ``xi``, ``history``, ``selected`` (``m`` of eq. 30) where it is reached. A ratio below 1
    means the bound can show G-LAG beating G-GD for that spread.
    """
    n_workers = check_int("n_workers", n_workers, low=2)
    redundancy = check_int("redundancy", redundancy, low=1, high=n_workers)
    n_xi = check_int("n_xi", n_xi, low=2)
    if not delays:
        raise ValueError("delays must map at least one name to a delay distribution, got {}")
    spreads = [check_real("spreads", v, low=1.0) for v in spreads]
    histories = [check_int("histories", d, low=1) for d in histories]
    G = th.scheme_layout("g-lag", n_workers, redundancy).n_groups
    rows = []
    for name, delay in delays.items():
        for spread in spreads:
            L_units = spread ** (np.arange(G) / max(G - 1, 1))
            best = None
            for D in histories:
                for xi in np.geomspace(1e-4 / D, 0.99 / D, n_xi):
                    b = th.lazy_time_ratio_bound(
                        L_units,
                        float(L_units.sum()),
                        n_workers,
                        redundancy,
                        G,
                        delay=delay,
                        xi=float(xi),
                        history=D,
                    )
                    if best is None or b["ratio"] < best["best_ratio"]:
                        best = {
                            "best_ratio": b["ratio"],
                            "xi": float(xi),
                            "history": D,
                            "selected": b["selected"],
                        }
            rows.append({"delay": name, "spread": spread, "n_groups": G, **best})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class CompareSchemesResult:
    """Table II complexities and a fresh simulated run of every scheme for one setting."""

    theory: pd.DataFrame
    measured: pd.DataFrame
    metrics: pd.DataFrame


def compare_schemes(
    n_workers: int = 12,
    redundancy: int = 3,
    n_groups: int = 3,
    xi: float = 0.05,
    history: int = 10,
    delay_kind: str = "exponential",
    mean: float = 1.0,
    scale: float = 1.0,
    shape: float = 2.0,
    stepsize_rule: str = "gd",
    samples_per_partition: int = 30,
    heterogeneity: float = 30.0,
    condition: float = 50.0,
    replicas: int = 5,
    seed: int = 0,
    eps_rel: float = 1e-8,
    max_iter: int = 20_000,
) -> CompareSchemesResult:
    """Complexities (Table II, theory) and a fresh run (simulation) for one setting.

    LAGC uses ``n_groups`` groups; G-GD / G-LAG use ``N/r`` groups (when ``r`` divides ``N``).
    Returns a :class:`CompareSchemesResult` (its ``metrics`` are what
    :func:`codedlib.plots.lagc.plot_convergence` draws).
    """
    n_workers = check_int("n_workers", n_workers, low=1)
    redundancy = check_int("redundancy", redundancy, low=1, high=n_workers)
    th.lagc_layout(n_workers, redundancy, n_groups)  # validates G
    xi = check_real("xi", xi, low=0.0)
    history = check_int("history", history, low=1)
    delay = make_delay(delay_kind, mean=mean, scale=scale, shape=shape)
    problem = heterogeneous_regression(
        n_workers, samples_per_partition, 10, heterogeneity, condition, 0.1, rng=seed
    )
    configs = [("GD", "gd", None), ("GC", "gc", None), ("LAG", "lag", None)]
    if n_workers % redundancy == 0:
        configs += [
            ("G-GD", "g-gd", n_workers // redundancy),
            ("G-LAG", "g-lag", n_workers // redundancy),
        ]
    configs.append((f"LAGC (G={n_groups})", "lagc", n_groups))

    c = problem_constants(problem, n_workers)
    rows = []
    for label, scheme, groups in configs:
        try:
            g = th.scheme_layout(scheme, n_workers, redundancy, groups).n_groups
            out = th.complexities(
                scheme,
                n_workers,
                redundancy,
                groups,
                delay=delay,
                kappa=c.kappa,
                initial_gap=c.initial_gap,
                eps=eps_rel * c.initial_gap,
                unit_smoothness=group_smoothness(problem, n_workers, g),
                total_smoothness=c.total_smoothness,
                xi=xi,
                history=history,
            )
            rows.append(
                {
                    "scheme": label,
                    "iterations": out["iterations"],
                    "time": out["time"],
                    "communication": out["communication"],
                    "computation": out["computation"],
                    "upper_bound": out["bound"],
                }
            )
        except ValueError as err:  # e.g. infinite Pareto mean or D xi >= 1
            rows.append({"scheme": label, "note": str(err)})
    theory = pd.DataFrame(rows)

    runs = convergence_runs(
        problem,
        n_workers,
        redundancy,
        delay=delay,
        xi=xi,
        history=history,
        stepsize_rule=stepsize_rule,
        configs=configs,
        replicas=replicas,
        max_iter=max_iter,
        rng=seed,
    )
    measured = complexity_summary(runs, eps_rel)
    return CompareSchemesResult(theory=theory, measured=measured, metrics=convergence_metrics(runs))
