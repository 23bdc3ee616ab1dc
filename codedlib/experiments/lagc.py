"""Experiments of the LAGC paper (zhang2021lagc): the Section VI task and runs, the storage
layouts of Figs. 3-5, the Section V-D complexity curves, the G-LAG bound against simulation
over ``(ξ, D)`` (issue 13 item 7), and notebook 04's sizes (:data:`SETTINGS`), setting texts
(:class:`Notebook`) and claims (:data:`CLAIMS`).

Reference: zhang2021lagc, tandon2017gradient, chen2018lag.
"""

from __future__ import annotations

import itertools
import math
import textwrap
from dataclasses import dataclass
from functools import partial
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from codedlib._validation import RngLike, as_generator, check_int, check_real
from codedlib.claims import mean_interval, ratio_interval, spec
from codedlib.codes.cyclic import cyclic_repetition_code
from codedlib.latency.order_stats import expected_order_statistic_numeric
from codedlib.problems import LeastSquares, even_partition
from codedlib.replicate import over_seeds
from codedlib.schemes.lagc import DelayStream, run_gc, run_gd, run_lag_ps, run_lagc, run_scheme
from codedlib.theory import lagc as th

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike
    from scipy.stats._distn_infrastructure import rv_frozen

    from codedlib.latency.models import HeterogeneousCluster
    from codedlib.replicate import Executor
    from codedlib.schemes.lagc import SchemeRun
    from codedlib.theory.lagc import LAGCLayout

_LAZY = ("lag", "g-lag", "lagc")


def heterogeneous_regression(
    n_workers: int = 12,
    samples_per_partition: int = 50,
    dim: int = 20,
    heterogeneity: float = 30.0,
    condition: float = 100.0,
    noise: float = 0.1,
    rng: RngLike = None,
) -> LeastSquares:
    """Synthetic linear regression with heterogeneous smoothness across partitions (Sec. VI).

    Fine partition ``p`` has rows ``z ⊙ c · sqrt(s_p)``, ``z ~ N(0, I)``, feature scales ``c_j``
    log-spaced from 1 to ``condition**-1/2`` (Hessian condition number ≈ ``condition``) and
    ``s_p = heterogeneity**(p/(N-1))`` (the ``L_p`` span a factor ``heterogeneity``, as the LAG
    paper's ``1.3**(m-1)``); labels ``y = Xθ₀ + noise · N(0, 1)``.
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
    return LeastSquares(X, y)


def problem_constants(problem: LeastSquares, n_workers: int) -> SimpleNamespace:
    """Constants of ``problem`` split over ``N`` fine partitions (Section V): ``L`` (sum
    objective), ``μ``, ``κ``, ``Δ = L(θ⁰) - L*``, ``L*`` and fine-partition ``L_p``."""
    n = problem.n_samples
    bounds = even_partition(n, n_workers)
    H = (problem.X.T @ problem.X) / n + problem.lam * np.eye(problem.dim)
    eig = np.linalg.eigvalsh(H)
    L_parts = np.array([(b - a) * problem.smoothness(a, b) for a, b in itertools.pairwise(bounds)])
    f_star = problem.loss(problem.optimum())
    return SimpleNamespace(
        total_smoothness=n * eig[-1],
        strong_convexity=n * eig[0],
        kappa=eig[-1] / eig[0],
        initial_gap=n * (problem.loss(problem.initial_point()) - f_star),
        f_star=f_star,
        partition_smoothness=L_parts,
    )


def group_smoothness(problem: LeastSquares, n_workers: int, n_groups: int) -> np.ndarray:
    """Smoothness ``L_g`` of each group's sum loss (eq. 17)."""
    b = even_partition(problem.n_samples, n_workers)[:: n_workers // n_groups]
    return np.array(
        [(b[g + 1] - b[g]) * problem.smoothness(b[g], b[g + 1]) for g in range(n_groups)]
    )


def make_delay(
    kind: str = "exponential", mean: float = 1.0, scale: float = 1.0, shape: float = 2.0
) -> rv_frozen:
    """Unit-load delay: ``"exponential"`` with ``mean`` or ``"pareto"`` with ``scale, shape``."""
    if kind == "exponential":
        return th.exponential_delay(mean)
    if kind == "pareto":
        return th.pareto_delay(scale, shape)
    raise ValueError(f"kind must be 'exponential' or 'pareto', got kind={kind!r}")


def storage_layouts() -> dict:
    """The layouts of Fig. 3 GC (N=3, r=2), Fig. 4 LAG (N=3), Fig. 5(a) G-LAG and Fig. 5(b) LAGC
    (N=6, r=2, G=3 and G=2), by name in the paper's order; the figures select group 1 only."""
    sizes = {"gc": (3, 2, 1), "lag": (3, 1, 3), "g_lag": (6, 2, 3), "lagc": (6, 2, 2)}  # N, r, G
    return {name: th.lagc_layout(*nrg) for name, nrg in sizes.items()}


def default_configs(n_workers: int, redundancy: int) -> list[tuple[str, str, int | None]]:
    """``(label, scheme, n_groups)`` for GD, GC, LAG, G-GD, G-LAG (G = N/r) and LAGC with the
    largest divisor ``G < N/r`` (groups big enough to need coding), if any."""
    glag = th.scheme_layout("g-lag", n_workers, redundancy).n_groups  # r must divide N
    configs = [("GD", "gd", None), ("GC", "gc", None), ("LAG", "lag", None)]
    configs += [("G-GD", "g-gd", glag), ("G-LAG", "g-lag", glag)]
    lagc = [g for g in range(1, glag) if n_workers % g == 0]
    return configs + [(f"LAGC (G={lagc[-1]})", "lagc", lagc[-1])] if lagc else configs


def convergence_runs(
    problem: LeastSquares,
    n_workers: int,
    redundancy: int,
    *,
    delay: rv_frozen | HeterogeneousCluster,
    xi: float = 0.05,
    history: int = 10,
    stepsize_rule: str = "gd",
    configs: Sequence[tuple[str, str, int | None]] | None = None,
    replicas: int = 20,
    max_iter: int = 20_000,
    rel_tol: float = 1e-10,
    rng: RngLike = None,
) -> dict:
    """``{label: SchemeRun}``: every scheme on the same delay draws until the gap falls below
    ``rel_tol * gap(θ⁰)`` (Section VI). ``stepsize_rule="gd"``: ``α = 1/L`` for every scheme
    (as in LAG's experiments); ``"theory"``: ``(1 - sqrt(Dξ))/L`` for the lazy ones (eq. 20).
    """
    if stepsize_rule not in ("gd", "theory"):
        raise ValueError(f"stepsize_rule must be 'gd' or 'theory', got {stepsize_rule!r}")
    configs = configs or default_configs(n_workers, redundancy)
    f_star = problem.loss(problem.optimum())
    gap0 = problem.loss(problem.initial_point()) - f_star
    tol = check_real("rel_tol", rel_tol, low=0.0, low_open=True) * gap0
    alpha = 1.0 / (problem.n_samples * problem.smoothness()) if stepsize_rule == "gd" else None
    kw = {"xi": xi, "history": history, "stepsize": alpha, "max_iter": max_iter, "f_star": f_star}
    kw |= {"delays": DelayStream(delay, n_workers, replicas, rng), "gap_tol": tol}
    return {
        label: run_scheme(scheme, problem, n_workers, redundancy, groups, **kw)
        for label, scheme, groups in configs
    }


def convergence_metrics(runs: dict, max_points: int = 400) -> pd.DataFrame:
    """Long table (scheme, time, communication, computation, gap) thinned for plotting."""
    frames = []
    for label, run in runs.items():
        df = run.metrics()
        if len(df) > max_points:
            df = df.iloc[np.unique(np.linspace(0, len(df) - 1, max_points).astype(int))]
        frames.append(df.assign(scheme=label))
    return pd.concat(frames, ignore_index=True)


def complexity_summary(runs: dict, eps_rel: float = 1e-8) -> pd.DataFrame:
    """Measured iteration / time / communication / computation complexity (eq. 10-12) at gap
    ``eps_rel * gap(θ⁰)``, and the mean fraction of active units per iteration."""
    rows = [
        {
            **run.complexity(eps_rel * run.gap[0]),
            "scheme": label,
            "active_fraction": float(run.n_selected.mean() / run.selected.shape[1]),
        }
        for label, run in runs.items()
    ]
    return pd.DataFrame(rows)


def _iteration_time(layout, delay, n_selected) -> float:
    """``E[T_(m:m)]`` of ``m`` active units of ``layout`` (eq. 21/22/28)."""
    return th.expected_iteration_time(
        "lagc", layout.n_workers, layout.redundancy, layout.n_groups, delay, n_selected=n_selected
    )


def run_checks(
    run: SchemeRun,
    problem: LeastSquares,
    consts: SimpleNamespace,
    delay: rv_frozen | HeterogeneousCluster,
    xi: float,
    history: int,
    eps_rel: float = 1e-8,
) -> dict:
    """One run's measurements beside the analysis (``consts``: :func:`problem_constants`).

    ``time_per_iter`` (simulated) and ``time_per_iter_formula`` (eq. 21/22/28 given the
    realised active units, ``z`` their difference in standard errors); ``iter_bound`` (eq. 19;
    eq. 20 for the lazy schemes at the theory step size, else NaN); ``table2_*`` (Table II with
    the measured iteration count: exact for GD, GC, G-GD, the bounds (26)/(27)/(30)/(31) with
    ``ΔC`` from the run's step size for the lazy ones); ``selection_bound`` (``1 - ΔC``, eq.
    26/30) and ``eq25_respected`` (per-unit counts ≤ ``ceil(K/(d_m+1))``) for the lazy ones.
    """
    lay, lazy = run.layout, run.scheme in _LAZY
    iters = run.complexity(eps_rel * run.gap[0])["iterations"]
    eps = eps_rel * consts.initial_gap
    cache = {m: _iteration_time(lay, delay, int(m)) for m in np.unique(run.n_selected)}
    expected = np.array([cache[m] for m in run.n_selected])
    diff = run.iteration_times - expected[None, :]
    se = float(diff.std(ddof=1) / math.sqrt(diff.size)) if diff.size > 1 else math.nan
    m, frac, eq25, i_bound = lay.n_groups, math.nan, True, math.nan
    if not lazy:
        i_bound = th.iteration_complexity_gd(consts.kappa, consts.initial_gap, eps)
    else:
        L_units = group_smoothness(problem, lay.n_workers, lay.n_groups)
        frac = th.selection_fraction_bound(L_units, xi, history, run.stepsize)
        m = max(1, min(lay.n_groups, math.ceil(frac * lay.n_groups - 1e-12)))
        if history * xi < 1 and math.isclose(  # eq. (20) holds at its own step size only
            run.stepsize, th.lag_stepsize(consts.total_smoothness, xi, history)
        ):
            i_bound = th.iteration_complexity_lag(
                consts.kappa, consts.initial_gap, eps, xi, history
            )
        periods = th.selection_period(L_units, xi, history, run.stepsize)
        eq25 = bool(np.all(run.selected.sum(axis=0) <= np.ceil(run.n_iterations / (periods + 1))))
    units = frac * lay.n_groups if lazy else m
    loads = th.loads_per_iteration("lagc", lay.n_workers, lay.redundancy, lay.n_groups, units)
    return {
        "time_per_iter": float(run.iteration_times.mean()),
        "time_per_iter_formula": float(expected.mean()),
        "z": float(diff.mean() / se) if se > 0 else 0.0,
        "messages_per_iter": float((run.downloads + run.uploads).mean()),
        "gradients_per_iter": float(run.computation.mean()),
        "iter_bound": float(i_bound),
        "table2_time": float(iters * _iteration_time(lay, delay, m)),
        "table2_communication": float(iters * loads["communication"]),
        "table2_computation": float(iters * loads["computation"]),
        "selection_bound": frac,
        "eq25_respected": eq25,
    }


def complexity_curves(
    problem: LeastSquares,
    n_workers: int,
    *,
    delays: dict,
    vary: str = "r",
    redundancy: int = 2,
    xi: float = 0.05,
    history: int = 10,
) -> pd.DataFrame:
    """Table II evaluated on ``problem`` (Section V-D illustration), per delay model of ``delays``.

    ``vary="r"``: for every divisor ``r`` of ``N``, GD and LAG (``r = 1``), GC(r), G-GD and
    G-LAG with ``G = N/r``. ``vary="G"``: fixed ``redundancy``, LAGC for every divisor ``G``
    (``G = 1`` is GC-like, ``G = N`` is LAG, ``G >= N/r`` is G-LAG), GD and GC repeated per ``G``.
    Lazy schemes use the bounds (26)/(30) at the theory step size ``(1 - sqrt(Dξ))/L``. Columns
    ``delay, redundancy, n_groups, scheme, iterations, selected, time_per_iter, time,
    communication, computation, bound``.
    """
    if vary not in ("r", "G"):
        raise ValueError(f"vary must be 'r' or 'G', got vary={vary!r}")
    c = problem_constants(problem, n_workers)
    divisors = [d for d in range(1, n_workers + 1) if n_workers % d == 0]
    if vary == "r":  # (r, label, scheme, groups, G shown: None for the layout's)
        entries = [
            (r, label, scheme, groups, None)
            for r in divisors
            for label, scheme, groups in [
                ("GD", "gd", None),
                ("LAG", "lag", n_workers),
                ("GC", "gc", 1),
                ("G-GD", "g-gd", n_workers // r),
                ("G-LAG", "g-lag", n_workers // r),
            ]
        ]
    else:  # LAGC per G, then GD and GC repeated per G
        r = check_int("redundancy", redundancy, low=1, high=n_workers)
        entries = [(r, "LAGC", "lagc", g, g) for g in divisors]
        entries += [
            (r, lb, sch, None, g) for lb, sch in [("GD", "gd"), ("GC", "gc")] for g in divisors
        ]
    keys = ("iterations", "selected", "time_per_iter", "time", "communication", "computation")
    rows = []
    for dname, delay in delays.items():
        table2 = partial(_table2, problem, c, n_workers, delay=delay, xi=xi, history=history)
        for r, label, scheme, groups, shown in entries:
            try:
                out = table2(scheme, r, groups, EPS_REL)
            except ValueError:  # e.g. Pareto mean infinite for this order statistic
                continue
            g = out["n_groups"] if shown is None else shown
            rows.append(
                {"delay": dname, "redundancy": r, "n_groups": g, "scheme": label}
                | {k: out[k] for k in (*keys, "bound")}
            )
    return pd.DataFrame(rows)


def _table2(problem, c, n_workers, scheme, redundancy, groups, eps_rel, **kw) -> dict:
    """Table II (:func:`codedlib.theory.lagc.complexities`) on ``problem`` (constants ``c``)."""
    g = th.scheme_layout(scheme, n_workers, redundancy, groups).n_groups
    kw |= {"kappa": c.kappa, "initial_gap": c.initial_gap, "total_smoothness": c.total_smoothness}
    kw["unit_smoothness"] = group_smoothness(problem, n_workers, g)
    return th.complexities(scheme, n_workers, redundancy, groups, eps=eps_rel * c.initial_gap, **kw)


def _check_setting(delays, rules=()) -> None:
    if not delays:
        raise ValueError(
            f"delays must map at least one name to a delay distribution, got {delays!r}"
        )
    for rule in rules:
        if rule not in ("gd", "theory"):
            raise ValueError(f"rules must hold 'gd' or 'theory', got {rule!r}")


def seed_pairs(n_seeds: int, rng: RngLike = None) -> list[tuple[int, int]]:
    """``n_seeds`` independent ``(problem_seed, delay_seed)`` pairs: children of
    ``SeedSequence(rng)`` (an int ``rng``), so pair ``i`` does not depend on ``n_seeds``."""
    n_seeds = check_int("n_seeds", n_seeds, low=1)
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        entropy = int(rng)
    else:
        entropy = int(as_generator(rng).integers(2**62))
    children = np.random.SeedSequence(entropy).spawn(n_seeds)
    return [tuple(int(v) for v in child.generate_state(2)) for child in children]


def seed_runs(
    seed: int,
    *,
    pairs: Sequence[tuple[int, int]],
    n_workers: int,
    redundancy: int,
    delays: dict,
    rules: Sequence[str] = ("gd", "theory"),
    problem_kwargs: dict | None = None,
    xi: float = 0.05,
    history: int = 10,
    configs: Sequence[tuple[str, str, int | None]] | None = None,
    replicas: int = 20,
    rel_tol: float = 1e-10,
    eps_rel: float = 1e-8,
) -> dict:
    """Section VI on seed ``seed`` (a measure for ``over_seeds``): a new problem and new delays
    from ``pairs[seed]``, every scheme and step-size rule on the same delay draws (paired).

    ``summary``: one row per (delay, rule, scheme) with ``stepsize_times_smoothness`` (``αL``),
    the complexities (eq. 10-12) at gap ``eps_rel * gap(θ⁰)``, ``active_fraction`` and
    :func:`run_checks`' columns; ``curves``: thinned time / loads / relative gap per run. Runs
    stop at ``rel_tol * gap(θ⁰)``.
    """
    eps_rel = check_real("eps_rel", eps_rel, low=0.0, low_open=True)
    rel_tol = check_real("rel_tol", rel_tol, low=0.0, low_open=True)
    if rel_tol > eps_rel:
        raise ValueError(f"rel_tol must satisfy rel_tol <= eps_rel={eps_rel:g}, got {rel_tol:g}")
    _check_setting(delays, rules)
    p_seed, d_seed = pairs[seed]
    problem = heterogeneous_regression(n_workers, rng=p_seed, **(problem_kwargs or {}))
    consts = problem_constants(problem, n_workers)
    kw = {"xi": xi, "history": history, "configs": configs, "replicas": replicas, "rng": d_seed}
    kw["rel_tol"] = rel_tol
    rows, curves = [], []
    seeds = {"seed": seed, "problem_seed": p_seed, "delay_seed": d_seed}
    for (dname, delay), rule in itertools.product(delays.items(), rules):
        runs = convergence_runs(
            problem, n_workers, redundancy, delay=delay, stepsize_rule=rule, **kw
        )
        summary = complexity_summary(runs, eps_rel).set_index("scheme")
        for label, run in runs.items():
            checks = run_checks(run, problem, consts, delay, xi, history, eps_rel)
            del checks["z"]
            row = {**seeds, "delay": dname, "rule": rule, "scheme": label, "kind": run.scheme}
            row["lazy"] = run.scheme in _LAZY
            row["stepsize_times_smoothness"] = run.stepsize * consts.total_smoothness
            row["kappa"] = consts.kappa
            rows.append(row | summary.loc[label].to_dict() | checks)
        metrics = convergence_metrics(runs)
        gap0 = metrics.groupby("scheme")["gap"].transform("first")
        curves.append(
            metrics.assign(rel_gap=metrics["gap"] / gap0, seed=seed, delay=dname, rule=rule)
        )
    return {"summary": pd.DataFrame(rows), "curves": pd.concat(curves, ignore_index=True)}


def stack_seed_runs(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(summary, curves)`` of every seed's :func:`seed_runs` (an ``over_seeds`` frame)."""
    return tuple(pd.concat(list(frame[k]), ignore_index=True) for k in ("summary", "curves"))


def seed_table(summary: pd.DataFrame, column: str, **where: object) -> pd.DataFrame:
    """``column`` as a (seed x scheme) table of the rows matching ``where`` (e.g.
    ``delay="pareto", rule="gd"``), schemes in the order they ran."""
    sub = summary
    for key, value in where.items():
        sub = sub[sub[key] == value]
    if sub.empty:
        raise ValueError(f"no rows match {where}")
    order = list(dict.fromkeys(sub["scheme"]))
    return sub.pivot(index="seed", columns="scheme", values=column)[order]


def seed_values(
    summary: pd.DataFrame, column: str, scheme: str, delay: str, rule: str = "gd"
) -> np.ndarray:
    """One scheme's per-seed values of ``column`` (a column of :func:`seed_table`)."""
    return seed_table(summary, column, delay=delay, rule=rule)[scheme].to_numpy()


def convergence_bands(curves: pd.DataFrame, n_grid: int = 300) -> pd.DataFrame:
    """Median, min and max over seeds of the relative gap, communication and computation on a
    common clock per (delay, rule), from 0 to the latest end of any run; a run's value at ``t``
    is that of its last iterate finished by ``t`` (a run that reached its target stays flat).
    Columns ``delay, rule, scheme, time, quantity, median, low, high, n_seeds``."""
    n_grid = check_int("n_grid", n_grid, low=2)
    quantities = ("rel_gap", "communication", "computation")
    out = []
    for (dname, rule), part in curves.groupby(["delay", "rule"], sort=False):
        grid = np.linspace(0.0, float(part["time"].max()), n_grid)
        for (label, sub), q in itertools.product(part.groupby("scheme", sort=False), quantities):
            values = []
            for _, run in sub.groupby("seed", sort=True):
                idx = np.searchsorted(run["time"].to_numpy(), grid, side="right") - 1
                values.append(run[q].to_numpy()[np.clip(idx, 0, len(run) - 1)])
            values = np.array(values)
            out.append(
                pd.DataFrame(
                    {"delay": dname, "rule": rule, "scheme": label, "time": grid, "quantity": q}
                    | {"median": np.median(values, axis=0), "low": values.min(axis=0)}
                    | {"high": values.max(axis=0), "n_seeds": values.shape[0]}
                )
            )
    return pd.concat(out, ignore_index=True)


_MLH = ("mean", "low", "high")  # an interval's columns
_TABLE1 = {"coding (GC)": "GC", "grouping (G-GD)": "G-GD", "selection (LAG)": "LAG"}
_TABLE1_METRICS = {
    "time": "time_per_iter",
    "communication": "messages_per_iter",
    "computation": "gradients_per_iter",
}


def table1_seeds(summary: pd.DataFrame, rule: str = "gd") -> pd.DataFrame:
    """Table I per seed: time, communication and computation *per iteration* of coding (GC),
    grouping (G-GD) and selection (LAG) over GD's on the same seed and delays. Columns
    ``seed, delay, technique, metric, ratio``."""
    sub = summary[summary["rule"] == rule]
    if sub.empty:
        raise ValueError(f"no rows with rule={rule!r}")
    rows = [
        {
            "seed": seed,
            "delay": dname,
            "technique": technique,
            "metric": metric,
            "ratio": s.loc[label, col] / s.loc["GD", col],
        }
        for (seed, dname), part in sub.groupby(["seed", "delay"], sort=True)
        for s in [part.set_index("scheme")]
        for technique, label in _TABLE1.items()
        for metric, col in _TABLE1_METRICS.items()
    ]
    return pd.DataFrame(rows)


def seed_interval(values: ArrayLike, level: float = 0.95) -> tuple[float, float, float]:
    """Mean over seeds and its Student-t interval (``claims.mean_interval``); zero width when
    every seed gives the same value."""
    x = np.asarray(values, dtype=float)
    if x.size > 1 and np.all(x == x[0]):
        return float(x[0]), float(x[0]), float(x[0])
    return mean_interval(x, level)


#: Pareto shapes and delay replicas per seed of the GC / GD sweep (one draw serves every shape).
BETA_SWEEP = {"shapes": (1.2, 1.5, 1.7, 2.0, 2.5, 3.0), "replicas": 20_000}


def _beta_sweep_seed(seed, *, state, n, r, shapes, replicas) -> list[dict]:
    """Seed ``seed`` of :func:`gc_gd_beta_sweep`: the ``seed``-th block of the generator's
    uniform draws (``state`` advanced past the earlier blocks), one row per shape."""
    bits = np.random.PCG64()
    bits.state = state
    bits.advance(seed * replicas * n)
    u = np.sort(np.random.Generator(bits).random((replicas, n)), axis=1)
    return [
        {
            "shape": float(beta),
            "sim_ratio": r
            * np.mean(u[:, r - 1] ** (-1.0 / beta))
            / np.mean(u[:, 0] ** (-1.0 / beta)),
            "formula_ratio": th.gc_gd_pareto_ratio(n, r, beta),
        }
        for beta in shapes
    ]


def gc_gd_beta_sweep(
    n_workers: int,
    redundancy: int,
    *,
    n_seeds: int,
    shapes: Sequence[float] = BETA_SWEEP["shapes"],
    replicas: int = BETA_SWEEP["replicas"],
    rng: RngLike = None,
    executor: Executor = None,
) -> pd.DataFrame:
    """GC / GD mean time per iteration over Pareto shapes, simulated, one row per (shape, seed),
    beside eq. (22)'s ratio (:func:`codedlib.theory.lagc.gc_gd_pareto_ratio`).

    Pareto times are ``U**(-1/beta)`` of one uniform draw per seed (consecutive blocks of
    ``rng``'s PCG64 stream), so every shape sees the same random numbers; GC waits for the
    ``N-r+1``-th of ``N`` workers at load ``r``, GD for all.
    """
    n = check_int("n_workers", n_workers, low=2)
    r = check_int("redundancy", redundancy, low=2, high=n)
    n_seeds = check_int("n_seeds", n_seeds, low=2)
    replicas = check_int("replicas", replicas, low=2)
    gen = as_generator(rng)
    state = gen.bit_generator.state
    gen.bit_generator.advance(n_seeds * replicas * n)  # a caller's generator moves on as it used to
    setting = {"state": state, "n": n, "r": r, "shapes": shapes, "replicas": replicas}
    out = over_seeds(_beta_sweep_seed, range(n_seeds), executor=executor, **setting)
    return out[["shape", "seed", "sim_ratio", "formula_ratio"]]


def table1_intervals(table: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Table I ratios of :func:`table1_seeds` over seeds (mean, t-interval); communication and
    computation do not depend on the delay model (the trajectories do not): once, ``delay="all"``."""
    first = table["delay"].iloc[0]
    rows = [
        dict(zip(("technique", "metric"), key[:2]))
        | {"delay": key[2] if key[1] == "time" else "all"}
        | dict(zip(_MLH, seed_interval(part["ratio"], level)))
        | {"n_seeds": len(part)}
        for key, part in table.groupby(["technique", "metric", "delay"], sort=False)
        if key[1] == "time" or key[2] == first
    ]
    order = {"time": 0, "communication": 1, "computation": 2}
    key = lambda c: c.map(order) if c.name == "metric" else c
    table = pd.DataFrame(rows).sort_values(["metric", "delay"], key=key, kind="stable")
    return table.reset_index(drop=True)


def _bound_grid_seed(
    i, *, problems, n_workers, redundancy, delays, cells, rules, eps_rel, max_iter
) -> pd.DataFrame:
    """One seed of :func:`bound_grid` (a measure for ``over_seeds``)."""
    problem = problems[i]
    G = th.scheme_layout("g-lag", n_workers, redundancy).n_groups
    rows = []
    c = problem_constants(problem, n_workers)
    L_units = group_smoothness(problem, n_workers, G)
    gap0 = problem.loss(problem.initial_point()) - c.f_star
    common = {"max_iter": max_iter, "gap_tol": eps_rel * gap0, "f_star": c.f_star}
    common["delays"] = DelayStream(next(iter(delays.values())), n_workers, 1, 0)
    nrg = (n_workers, redundancy, G)
    args = (problem, *nrg)
    # the run stops at the first iterate below the target
    ggd_iters = run_scheme("g-gd", *args, **common).n_iterations
    eps = eps_rel * c.initial_gap
    ggd_bound_iters = th.iteration_complexity_gd(c.kappa, c.initial_gap, eps)
    for xi, history in cells:
        lazy = {"xi": xi, "history": history}
        iter_bound = th.iteration_complexity_lag(c.kappa, c.initial_gap, eps, xi, history)
        for rule in rules:
            alpha = 1.0 / c.total_smoothness if rule == "gd" else None
            run = run_scheme("g-lag", *args, stepsize=alpha, **lazy, **common)
            iters = run.complexity(eps_rel * gap0)["iterations"]
            if math.isnan(iters):
                raise ValueError(
                    f"max_iter={max_iter} is too small: G-LAG (xi={xi:g}, D={history}, "
                    f"rule={rule!r}) did not reach eps_rel={eps_rel:g}"
                )
            active = float(run.n_selected.mean() / G)
            for name, delay in delays.items():
                t_all = th.expected_iteration_time("lagc", *nrg, delay)
                time_ = sum(  # Σ_k E[T_(m_k:m_k)] given the run's selections (eq. 10, 28/29/31)
                    count * _iteration_time(run.layout, delay, int(m))
                    for m, count in zip(*np.unique(run.n_selected, return_counts=True))
                )
                b = th.lazy_time_ratio_bound(L_units, c.total_smoothness, *nrg, delay=delay, **lazy)
                row = {"seed": i, "delay": name, "xi": xi, "history": history}
                row |= {"sqrt_d_xi": math.sqrt(history * xi), "rule": rule, "iterations": iters}
                row |= {"ggd_iterations": ggd_iters, "active_fraction": active, "time": time_}
                row["ggd_time"] = ggd_iters * t_all
                row["sim_iteration_factor"] = iters / ggd_iters
                row |= {"iter_bound": iter_bound, "ggd_iter_bound": ggd_bound_iters}
                row["selection_bound"] = b["selection_bound"]
                row["bound_time"] = iter_bound * b["time_factor"] * t_all
                row |= {"iteration_factor": b["iteration_factor"], "bound_ratio": b["ratio"]}
                rows.append(row)
    return pd.DataFrame(rows)


def bound_grid(
    n_workers: int = 12,
    redundancy: int = 3,
    *,
    delays: dict,
    xis: Sequence[float] = (0.002, 0.01, 0.03, 0.05, 0.08),
    histories: Sequence[int] = (1, 2, 5, 10),
    n_seeds: int = 5,
    rules: Sequence[str] = ("gd", "theory"),
    problem_kwargs: dict | None = None,
    eps_rel: float = 1e-8,
    max_iter: int = 100_000,
    rng: RngLike = None,
    executor: Executor = None,
) -> pd.DataFrame:
    """G-LAG against G-GD (``G = N/r``): Table II's time bound next to the simulated time.

    Per seed (a new :func:`heterogeneous_regression` problem drawn from ``rng``) G-GD runs once
    with ``α = 1/L``, G-LAG for every ``(ξ, D)`` with ``Dξ < 1`` and step-size rule (``"gd"``:
    ``1/L``; ``"theory"``: the eq. (20) step ``(1 - sqrt(Dξ))/L``, the only one the bound
    covers), each to gap ``eps_rel × gap(θ⁰)``. The simulated time is exact given the run's
    selections, ``Σ_k E[T_(m_k:m_k)]`` (eq. 10 with eq. 28/29/31), per delay model.

    One row per (seed, delay, ξ, D, rule): measured ``iterations, ggd_iterations,
    active_fraction, time, ggd_time, sim_iteration_factor``; the bound's
    ``iter_bound`` (eq. 20), ``ggd_iter_bound`` (eq. 19), ``selection_bound`` (eq. 30),
    ``bound_time`` (eq. 31), ``bound_ratio`` and ``iteration_factor = 1/(1-sqrt(Dξ))``.
    """
    n_workers = check_int("n_workers", n_workers, low=2)
    redundancy = check_int("redundancy", redundancy, low=1, high=n_workers)
    n_seeds = check_int("n_seeds", n_seeds, low=1)
    eps_rel = check_real("eps_rel", eps_rel, low=0.0, high=1.0, low_open=True, high_open=True)
    _check_setting(delays, rules)
    xis = [check_real("xis", x, low=0.0, low_open=True) for x in xis]
    histories = [check_int("histories", d, low=1) for d in histories]
    cells = [(x, d) for d in histories for x in xis if d * x < 1.0]
    if not cells:
        raise ValueError(
            f"xis and histories must give at least one cell with D*xi < 1, got "
            f"xis={xis}, histories={histories}"
        )
    gen, kw = as_generator(rng), problem_kwargs or {}
    problems = [heterogeneous_regression(n_workers, rng=gen, **kw) for _ in range(n_seeds)]
    setting = {"n_workers": n_workers, "redundancy": redundancy, "delays": delays, "cells": cells}
    setting |= {"rules": tuple(rules), "eps_rel": eps_rel, "max_iter": max_iter}
    run = partial(over_seeds, _bound_grid_seed, range(n_seeds), desc="bound grid seeds")
    return run(executor=executor, problems=problems, **setting)


def bound_grid_summary(grid: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per (delay, ξ, D, rule): the bound's ratio G-LAG/G-GD (mean over seeds), the simulated
    one (geometric mean, paired t-interval), the winner each says (``"G-LAG"`` when below 1,
    ``"G-GD"`` when above, else ``"tie"``), ``looseness = bound / simulated`` and mean factors.
    """
    rows = []
    keys = ["delay", "xi", "history", "rule"]
    for key, part in grid.groupby(keys, sort=False):
        sim, lo, hi = ratio_interval(part["time"], part["ggd_time"], level)
        b = part["bound_ratio"]
        rows.append(
            {
                **dict(zip(keys, key)),
                "sqrt_d_xi": float(part["sqrt_d_xi"].iloc[0]),
                "bound_ratio": float(b.mean()),
                "sim_ratio": sim,
                "sim_low": lo,
                "sim_high": hi,
                "bound_winner": "G-LAG" if b.max() < 1 else ("G-GD" if b.min() > 1 else "tie"),
                "sim_winner": "G-LAG" if hi < 1 else ("G-GD" if lo > 1 else "tie"),
                "looseness": float(b.mean()) / sim,
                **{k: float(part[k].mean()) for k in _GRID_MEANS},
            }
        )
    return pd.DataFrame(rows)


_GRID_MEANS = ("selection_bound", "active_fraction", "iteration_factor", "sim_iteration_factor")


def bound_best_case(
    spreads: Sequence[float] = (1.0, 10.0, 30.0, 100.0, 1e3, 1e4, 1e5, 1e6),
    *,
    n_workers: int = 12,
    redundancy: int = 3,
    delays: dict,
    histories: Sequence[int] = tuple(range(1, 21)),
    n_xi: int = 60,
) -> pd.DataFrame:
    """Smallest G-LAG / G-GD time bound (eq. 29-31 with eq. 19-20) over ``(ξ, D)``.

    Group smoothness ``L_g = spread**(g/(G-1))`` (``G = N/r``) with ``L = Σ_g L_g``, the
    largest ``L`` convexity allows and so the most favourable to skipping (eq. 25); per ``D``,
    ``n_xi`` values of ``ξ`` log-spaced in ``[1e-4/D, 0.99/D)``. One row per (delay, spread):
    ``best_ratio`` and the ``xi, history, selected`` (``m`` of eq. 30) reaching it; below 1
    the bound can show G-LAG beating G-GD.
    """
    n_workers = check_int("n_workers", n_workers, low=2)
    n_xi = check_int("n_xi", n_xi, low=2)
    _check_setting(delays)
    spreads = [check_real("spreads", v, low=1.0) for v in spreads]
    histories = [check_int("histories", d, low=1) for d in histories]
    G = th.scheme_layout("g-lag", n_workers, redundancy).n_groups
    rows = []
    for (name, delay), spread in itertools.product(delays.items(), spreads):
        L_units = spread ** (np.arange(G) / max(G - 1, 1))
        bound = partial(th.lazy_time_ratio_bound, L_units, float(L_units.sum()), delay=delay)
        b, xi, D = min(  # the first of the smallest ratios
            (
                (bound(n_workers, redundancy, G, xi=float(xi), history=D), float(xi), D)
                for D in histories
                for xi in np.geomspace(1e-4 / D, 0.99 / D, n_xi)
            ),
            key=lambda c: c[0]["ratio"],
        )
        best = {"best_ratio": b["ratio"], "xi": xi, "history": D, "selected": b["selected"]}
        rows.append({"delay": name, "spread": spread, "n_groups": G, **best})
    return pd.DataFrame(rows)


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
) -> dict:
    """``theory`` (Table II complexities) and ``measured`` (a fresh simulated run) for one setting:
    LAGC with ``n_groups`` groups, G-GD / G-LAG with ``N/r`` (when ``r`` divides ``N``); ``metrics``
    is what :func:`codedlib.plots.lagc.plot_convergence` draws."""
    th.lagc_layout(n_workers, redundancy, n_groups)  # validates N, r and G
    xi = check_real("xi", xi, low=0.0)
    history = check_int("history", history, low=1)
    delay = make_delay(delay_kind, mean=mean, scale=scale, shape=shape)
    problem = heterogeneous_regression(
        n_workers, samples_per_partition, 10, heterogeneity, condition, 0.1, rng=seed
    )
    configs = [("GD", "gd", None), ("GC", "gc", None), ("LAG", "lag", None)]
    if n_workers % redundancy == 0:
        glag = n_workers // redundancy
        configs += [("G-GD", "g-gd", glag), ("G-LAG", "g-lag", glag)]
    configs.append((f"LAGC (G={n_groups})", "lagc", n_groups))
    c = problem_constants(problem, n_workers)
    kw = {"delay": delay, "xi": xi, "history": history}
    table2 = partial(_table2, problem, c, n_workers, **kw)
    rows = []
    for label, scheme, groups in configs:
        try:
            out = table2(scheme, redundancy, groups, eps_rel)
            keys = ("iterations", "time", "communication", "computation")
            rows.append({"scheme": label, **{k: out[k] for k in keys}, "upper_bound": out["bound"]})
        except ValueError as err:  # e.g. infinite Pareto mean or D xi >= 1
            rows.append({"scheme": label, "note": str(err)})
    kw |= {"stepsize_rule": stepsize_rule, "configs": configs, "replicas": replicas, "rng": seed}
    runs = convergence_runs(problem, n_workers, redundancy, max_iter=max_iter, **kw)
    return {
        "theory": pd.DataFrame(rows),
        "measured": complexity_summary(runs, eps_rel),
        "metrics": convergence_metrics(runs),
    }


# ---- Notebook 04: sizes, the setting every row names, and the claims declared as data -----
#: Sizes of notebook 04 per preset; ``overrides`` replace the notebook's parameters (quick only).
SETTINGS = {
    "quick": {
        "overrides": dict(samples_per_partition=20, dim=8, condition=30.0, replicas=8, n_seeds=3),
        "rel_tol": 1e-8,
        "grid_xi": (0.01, 0.05),
        "grid_d": (1,),
        "grid_eps": 1e-4,
        "n_xi": 15,
        "real_run": ("lagc", "gc"),
    },
    "faithful": {
        "overrides": {},
        "rel_tol": 1e-10,
        "grid_xi": (0.002, 0.01, 0.03, 0.05, 0.08),
        "grid_d": (1, 2, 5),
        "grid_eps": 1e-8,
        "n_xi": 60,
        "real_run": ("lagc", "g-lag", "gc", "umw"),
    },
}
EPS_REL = 1e-8  # target of the complexities (10)-(12): gap EPS_REL x initial gap
RULES = {"gd": "α=1/L", "theory": "theory α"}
SECTIONS = {
    "sec2": "2. The schemes (Sections III–IV) and who stores what (Figs. 3–5)",
    "sec3": "3. Analysis (Section V, reconstructed)",
    "sec5": "5. Convergence vs wall-clock time (Section VI)",
    "sec6": "6. Table I measured, and the formulas against simulation",
    "sec7": "7. The paper's conclusion",
    "sec8": "8. Section V-D: how the complexities trade off as r and G vary",
    "sec9": "9. Is the G-LAG bound wrong or loose? Bound vs simulation over (ξ, D)",
}


def join(*parts: str) -> str:
    """The non-empty parts joined by ``"; "`` (a row's setting)."""
    return "; ".join(p for p in parts if p)


@dataclass
class Notebook:
    """Notebook 04's parameters after the preset's overrides, and the texts its rows name."""

    preset: dict
    seed: int = 0
    n_workers: int = 12
    redundancy: int = 3
    xi: float = 0.05
    history: int = 10
    exp_mean: float = 1.0
    pareto_scale: float = 1.0
    pareto_shape: float = 2.0
    samples_per_partition: int = 50
    dim: int = 20
    heterogeneity: float = 30.0
    condition: float = 100.0
    replicas: int = 100
    n_seeds: int = 8
    grid_seeds: int = 5

    def __post_init__(self):
        for key, value in self.preset["overrides"].items():
            setattr(self, key, value)
        n, r = self.n_workers, self.redundancy
        self.delays = {
            "exponential": make_delay("exponential", mean=self.exp_mean),
            "pareto": make_delay("pareto", scale=self.pareto_scale, shape=self.pareto_shape),
        }
        self.first = next(iter(self.delays))  # a delay model the trajectories do not depend on
        self.unit = {"exponential": "μ0", "pareto": "t0"}
        self.configs = default_configs(n, r)
        self.labels = [label for label, _, _ in self.configs]
        self.others = [label for label in self.labels if label != "G-LAG"]
        self.lazy = [lb for lb, scheme, _ in self.configs if scheme in _LAZY]
        keys = ("samples_per_partition", "dim", "heterogeneity", "condition")
        self.problem = {k: getattr(self, k) for k in keys} | {"noise": 0.1}
        self.data_problem = f"synthetic heterogeneous linear regression (N={n} partitions × {self.samples_per_partition} samples, d={self.dim}, partition smoothness spread ×{self.heterogeneity:g}, κ≈{self.condition:g}, noise 0.1)"
        self.data = (
            f"stand-in for the paper's regression data: {self.data_problem}, a new draw per seed"
        )
        self.delay_text = {
            "exponential": f"exponential unit-load times, mean μ0={self.exp_mean:g} (chosen)",
            "pareto": f"Pareto unit-load times, t0={self.pareto_scale:g}, β={self.pareto_shape:g} (chosen)",
        }
        self.schemes = f"N={n}, r={r}, G-GD/G-LAG G={n // r}, {self.labels[-1]}, ξ={self.xi:g}, D={self.history} (chosen)"
        self.rule_text = {
            "gd": "α=1/L for every scheme (chosen, as in LAG's experiments)",
            "theory": f"α=(1−√(Dξ))/L={1 - math.sqrt(self.history * self.xi):.3f}/L for the lazy schemes (eq. 20), 1/L for the others",
        }
        self.runs = f"{self.n_seeds} seeds, {self.replicas} delay replicas per seed, target gap {EPS_REL:g}×Δ"
        self.grid_xi, self.grid_eps = self.preset["grid_xi"], self.preset["grid_eps"]
        self.grid_d = (*self.preset["grid_d"], self.history)
        self.grid_setting = join(
            self.data,
            f"N={n}, r={r}, G-GD/G-LAG G={n // r}",
            f"ξ ∈ {self.grid_xi}, D ∈ {self.grid_d} (chosen, D·ξ<1)",
            f"target gap {self.grid_eps:g}×Δ",
            f"{self.grid_seeds} seeds",
        )

    def run_setting(self, *parts: str) -> str:
        """The setting of a row measured on the Section 5 runs."""
        return join(self.data, self.schemes, *parts, self.runs)

    def sweep(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Section 5's ``(summary, curves)``: every scheme, delay model and step-size rule
        over the seeds (:func:`seed_runs`)."""
        same = ("n_workers", "redundancy", "delays", "xi", "history", "configs", "replicas")
        setting = {k: getattr(self, k) for k in same} | {"problem_kwargs": self.problem}
        setting |= {"rules": tuple(RULES), "eps_rel": EPS_REL, "rel_tol": self.preset["rel_tol"]}
        pairs = seed_pairs(self.n_seeds, self.seed)
        out = over_seeds(seed_runs, range(self.n_seeds), desc="LAGC seeds", pairs=pairs, **setting)
        return stack_seed_runs(out)

    def grid(self) -> pd.DataFrame:
        """Section 9's (ξ, D) grid of G-LAG against G-GD (:func:`bound_grid`)."""
        cells = {"xis": self.grid_xi, "histories": self.grid_d, "eps_rel": self.grid_eps}
        kw = {"delays": self.delays, "n_seeds": self.grid_seeds, "problem_kwargs": self.problem}
        return bound_grid(self.n_workers, self.redundancy, rng=self.seed, **cells, **kw)

    def title(self, key: str, dname: str | None = None) -> str:
        """The wrapped title of a figure of notebook 04."""
        d = self.delay_text
        n, r, runs_gd = self.n_workers, self.redundancy, self.rule_text["gd"]
        vd = f"stand-in problem of the first seed: {self.data_problem}; ξ={self.xi:g}, D={self.history}, ε=1e-8 Δ"
        texts = {
            "sec6": f"Section VI (rebuilt; data, N, r, ξ, D and step sizes are ours: the paper's are not in our copy), {d.get(dname)}; {self.data}\n{self.schemes}; top: {runs_gd}; bottom: {self.rule_text['theory']}; {self.runs}; lines: median, bands: min–max over seeds",
            "table1": f"Table I measured, per iteration relative to GD; {runs_gd}; {self.data}; {self.schemes}; error bars: 95 % CI over {self.n_seeds} seeds",
            "eq28": f"Time per iteration, eq. 21/22/28 vs simulation; {self.data}; {self.schemes}; {runs_gd}; {self.n_seeds} seeds × {self.replicas} delay replicas",
            "vd-r": f"Section V-D (rebuilt): Table II complexities vs r, N = {n}; {vd}",
            "vd-G": f"Section V-D (rebuilt): Table II complexities vs G, N = {n}, r = {r}; {vd}",
            "grid": f"Issue 13 item 7: G-LAG / G-GD time to the target, Table II bound vs simulation; {self.grid_setting}; {d['exponential']}; {d['pareto']}; error bars: 95 % CI over seeds",
        }
        width = {"table1": 120, "eq28": 150, "grid": 200}.get(key, 170)
        return "\n".join(textwrap.fill(line, width) for line in texts[key].split("\n"))


# ---- Section 2: who stores what, Remark 2, the examples' loads -----------------------
def storage_text(layout: LAGCLayout) -> str:
    """``"W1: D1 D2 | W2: ..."``: the partitions each worker stores (Figs. 3-5)."""
    return " | ".join(
        f"W{w + 1}: " + " ".join(f"D{p + 1}" for p in sorted(layout.stored_partitions(w)))
        for w in range(layout.n_workers)
    )


def groups_text(layout: LAGCLayout) -> str:
    """``"{W1,W2}: all of D_1 | ..."``: the groups, and whether each worker holds all of ``D_g``."""
    parts = []
    for g in range(layout.n_groups):
        ws = layout.group_workers(g)
        whole = all(set(layout.stored_partitions(w)) == set(ws) for w in ws)
        parts.append(
            "{" + ",".join(f"W{w + 1}" for w in ws) + "}" + (f": all of D_{g + 1}" if whole else "")
        )
    return " | ".join(parts)


def any_wait_for_decodes(layout: LAGCLayout) -> bool:
    """Every set of ``wait_for`` workers of a group recovers its gradient sum (cyclic GC code)."""
    n_g, stored, first = layout.workers_per_group, layout.stored_per_worker, layout.group_workers(0)
    if not layout.coded:
        return all(set(layout.stored_partitions(w)) == set(first) for w in first)
    code = cyclic_repetition_code(n_g, stored - 1)
    support_ok = np.array_equal(code.B != 0, layout.storage_matrix()[:n_g, :n_g])
    return support_ok and all(
        np.allclose(code.decode(np.array(s)) @ code.B, 1.0)
        for s in itertools.combinations(range(n_g), layout.wait_for)
    )


REMARK2_PAIRS = ("LAGC(G=1, ξ=0) vs GC", "LAGC(G=N) vs LAG-PS")
_LOADS = ("downloads", "uploads", "computation")  # a run's loads per iteration (eq. 7-8)


def remark2(nb: Notebook) -> pd.DataFrame:
    """Remark 2: LAGC(G=1, ξ=0) against GC and LAGC(G=N) against LAG-PS on shared delays."""
    tiny = heterogeneous_regression(6, 10, 4, heterogeneity=20.0, condition=10.0, rng=nb.seed)
    shared = DelayStream(nb.delays["pareto"], 6, replicas=4, rng=nb.seed)
    kw = {"delays": shared, "max_iter": 100, "keep_iterates": True}
    lazy = {"xi": nb.xi, "history": nb.history}
    pairs = {
        REMARK2_PAIRS[0]: (run_lagc(tiny, 6, 2, 1, xi=0.0, **kw), run_gc(tiny, 6, 2, **kw)),
        REMARK2_PAIRS[1]: (
            run_lagc(tiny, 6, 2, 6, **lazy, **kw),
            run_lag_ps(tiny, 6, **lazy, **kw),
        ),
    }
    return pd.DataFrame(
        [
            {
                "pair": name,
                "max |iterate difference|": float(np.abs(a.iterates - b.iterates).max()),
                "same times": bool(np.array_equal(a.iteration_times, b.iteration_times)),
                "same loads": all(np.array_equal(getattr(a, f), getattr(b, f)) for f in _LOADS),
                "same selections": bool(np.array_equal(a.selected, b.selected)),
                "mean active units": float(a.n_selected.mean()),
            }
            for name, (a, b) in pairs.items()
        ]
    )


def example_loads(nb: Notebook) -> pd.DataFrame:
    """Loads of the first iterations of GD, GC (r=2) and LAG-PS on three workers."""
    three = heterogeneous_regression(3, 10, 3, heterogeneity=20.0, condition=5.0, rng=nb.seed)
    small = DelayStream(nb.delays["exponential"], 3, rng=nb.seed)
    kw = {"delays": small, "max_iter": 6}
    hand = {
        "GD": run_gd(three, 3, **kw),
        "GC (r=2)": run_gc(three, 3, 2, **kw),
        "LAG-PS": run_lag_ps(
            three, 3, xi=0.08, history=2, stepsize=1 / (30 * three.smoothness()), **kw
        ),
    }
    frames = {name: pd.DataFrame({f: getattr(r, f) for f in _LOADS}) for name, r in hand.items()}
    return pd.concat(frames, axis=1).rename_axis("iteration")


def _loads_text(down, up, grads) -> str:
    return f"down {down:g}, up {up:g}, gradients {grads:g}"


_READ = {  # what a row of Figs. 3-5 reads off a layout
    "storage": storage_text,
    "groups": groups_text,
    "wait": lambda lay: lay.wait_for,
    "decodes": lambda lay: str(any_wait_for_decodes(lay)),
    "batches": lambda lay: len(lay.group_workers(0)),
}
_G3 = "{W1,W2}: all of D_1 | {W3,W4}: all of D_2 | {W5,W6}: all of D_3"
_FIGS = [  # item, quantity, layout, what we read, the paper's value
    ("Fig. 3", "GC storage (N=3, r=2)", "gc", "storage", "W1: D1 D2 | W2: D2 D3 | W3: D1 D3"),
    ("Fig. 3", "GC: fastest workers the PS waits for (N−r+1)", "gc", "wait", 2),
    ("Fig. 3", "GC: any 2 of 3 uploads give the full gradient", "gc", "decodes", "True"),
    ("Fig. 4", "LAG storage (N=3)", "lag", "storage", "W1: D1 | W2: D2 | W3: D3"),
    ("Fig. 5(a)", "G-LAG groups (N=6, r=2, G=3)", "g_lag", "groups", _G3),
    ("Fig. 5(a)", "G-LAG: workers the PS waits for per group", "g_lag", "wait", 1),
    ("Fig. 5(b)", "LAGC groups (N=6, r=2, G=2)", "lagc", "groups", "{W1,W2,W3} | {W4,W5,W6}"),
    ("Fig. 5(b)", "LAGC: batches per group block", "lagc", "batches", 2),
    ("Fig. 5(b)", "LAGC: workers the PS waits for per group (N/G−r+1)", "lagc", "wait", 2),
    (
        "Fig. 5(b)",
        "LAGC: any 2 of the 3 workers of a group give its gradient",
        "lagc",
        "decodes",
        "True",
    ),
]


def _layout_specs(_nb: Notebook) -> list:
    examples = "the paper's examples (Sections III-A, III-B, IV), our layout code"
    n_g = storage_layouts()["lagc"].workers_per_group  # the example's sizes word the erratum row
    reason = f"our copy's example text says D_g is 'divided into two parts, each stored at two workers'; Section IV's own rule splits D_g into N/G = {n_g} batches, each stored at r = 2 workers, and only {n_g} batches give each of the group's {n_g} workers r = 2 batches ({n_g} × 2 copies); two parts at two workers each are 4 copies"
    kw = {
        "decodes": {"setting": examples + "; cyclic GC code", "basis": "check"},
        "batches": {
            "verdict": "paper erratum",
            "setting": examples,
            "reason": reason,
            "basis": "paper",
        },
    }
    S = partial(spec, "exact", section=SECTIONS["sec2"])
    return [
        S(
            item,
            q,
            lambda layouts, f=field, h=how: {"ours": _READ[h](layouts[f])},
            paper=paper,
            **kw.get(how, {"setting": examples, "basis": "check"}),
        )
        for item, q, field, how, paper in _FIGS
    ]


def _remark2_specs(nb: Notebook) -> list:
    setting = f"tiny stand-in regression (6 partitions × 10 samples, d=4), N=6, r=2, {nb.delay_text['pareto']}, 4 delay replicas, 100 iterations; ξ={nb.xi:g}, D={nb.history} for the lazy pair"
    S = partial(spec, "exact", section=SECTIONS["sec2"], basis="check")

    def pair(remark2, *, name, same):
        row = remark2.set_index("pair").loc[name]
        if not same:
            return {"ours": row["max |iterate difference|"]}
        same_sel = row["same selections"] or name.endswith("vs GC")
        return {"ours": str(bool(row["same times"] and row["same loads"] and same_sel))}

    def example(*args):
        loads = th.loads_per_iteration(*args, n_selected=1)
        return lambda: {"ours": _loads_text(*(loads[f] for f in _LOADS))}

    specs = [
        S(
            "Remark 2",
            f"{name}: {what}",
            partial(pair, name=name, same=same),
            setting=setting,
            **paper,
        )
        for name in REMARK2_PAIRS
        for same, what, paper in (
            (False, "max |θ difference|", {"paper": 0.0, "rtol": 0.0}),
            (
                True,
                f"same {'' if name.endswith('vs GC') else 'selections, '}times and loads",
                {"paper": "True"},
            ),
        )
    ]
    first_gc = lambda loads: {
        "ours": _loads_text(*(loads[("GC (r=2)", f)].iloc[0] for f in _LOADS))
    }
    examples = [  # item, quantity, the paper's loads, what we measure
        ("Fig. 3", "GC loads of one iteration", (3, 2, 6), first_gc),
        ("Fig. 4", "LAG loads, only worker 1 selected", (1, 1, 1), example("lag", 3, 1, 3)),
        ("Fig. 5(a)", "G-LAG loads, only group 1 selected", (2, 1, 4), example("g-lag", 6, 2, 3)),
        ("Fig. 5(b)", "LAGC loads, only group 1 selected", (3, 2, 6), example("lagc", 6, 2, 2)),
    ]
    setting = "the paper's example selection; our per-iteration loads (Table II code)"
    settings = {"Fig. 3": "N=3, r=2: our GC simulator, first iteration"}
    return specs + [
        S(item, q, measured, paper=_loads_text(*paper), setting=settings.get(item, setting))
        for item, q, paper, measured in examples
    ]


# ---- Section 3: eqs. (21)-(22) against the numerical eq. (28) ---------------------------
def _closed_forms(nb: Notebook) -> list:
    """``(item, quantity, closed form, delay, k, load)`` of the eq. (21)/(22) rows."""
    n, r = nb.n_workers, nb.redundancy
    return [
        (
            f"eq. ({eq}) (reconstructed)",
            f"{what}: eq. ({eq}) vs eq. (28)",
            th.expected_order_statistic(nb.delays[d], k, n, load),  # eq. (21)/(22)
            d,
            k,
            load,
        )
        for d, eq, name in (("exponential", 21, "exponential"), ("pareto", 22, "Pareto"))
        for k, load, what in (
            (n, 1, f"E[T_(N:N)], {name}"),
            (n - r + 1, r, f"E[T_(N−r+1:N)], {name}, load r"),
        )
    ]


def order_statistic_checks(nb: Notebook) -> pd.DataFrame:
    """The closed forms (21)-(22) beside the numerical integral (28) they must equal."""
    rows = [
        {
            "quantity": quantity,
            "closed form": closed,
            "eq. (28) numeric": load
            * expected_order_statistic_numeric(nb.delays[d], k, nb.n_workers),
        }
        for _, quantity, closed, d, k, load in _closed_forms(nb)
    ]
    return pd.DataFrame(rows)


def _sec3(nb: Notebook) -> list:
    S = partial(spec, "exact", rtol=1e-6, section=SECTIONS["sec3"], basis="check")
    return [
        S(
            item,
            q,
            lambda eq28, q=q: {"ours": eq28.set_index("quantity").loc[q, "eq. (28) numeric"]},
            paper=closed,
            unit=nb.unit[d],
            setting=f"N={nb.n_workers}, r={nb.redundancy}; {nb.delay_text[d]}",
        )
        for item, q, closed, d, _, _ in _closed_forms(nb)
    ]


def _sec5(_nb: Notebook) -> list:
    reason = "our copy of the paper has no Section VI: its data set, N, r, ξ, D, step size and curves are unknown to us; we rebuild the experiment on a synthetic stand-in and test only the abstract's conclusion on it"
    paper = "Section VI regression experiments (figures)"
    S = partial(spec, "not_attempted", section=SECTIONS["sec5"], basis="paper")
    return [
        S("Sec. VI", "data set, parameters and curves of the paper", paper=paper, reason=reason)
    ]


# ---- Section 6: Table I measured, the formulas against simulation ----------------------
_PAPER_T1 = {
    "communication": ("same", "same", "better"),
    "computation": ("worse", "worse", "better"),
}
_T1_REASON = {  # why a fixed communication load differs from "same"
    "GC": "downloads equal (all N), uploads N−r+1 of N: ratio (2N−r+1)/2N; the paper's own text after eq. (33) gives this reduction",
    "G-GD": "downloads equal (all N), uploads one per group (G = N/r) instead of N (eq. 35 as rebuilt)",
}
_ITEM_T = {
    "gd": "eq. (21)/(22), (23) (reconstructed)",
    "gc": "eq. (21)/(22), (24) (reconstructed)",
    "lag": "eq. (21)/(22), (27) (reconstructed)",
    "g-gd": "eq. (28), (29) (reconstructed)",
    "g-lag": "eq. (28), (31) (reconstructed)",
    "lagc": "eq. (28), (31) (reconstructed)",
}


def beta_sweep_table(sweep: pd.DataFrame) -> pd.DataFrame:
    """The GC / GD sweep per Pareto shape: mean and 95 % interval over seeds, eq. (22) beside."""
    ci = {b: seed_interval(g["sim_ratio"]) for b, g in sweep.groupby("shape")}
    sw = pd.DataFrame(ci, index=["mean", "low", "high"]).T
    sw["formula (eq. 22)"] = sweep.groupby("shape")["formula_ratio"].first()
    return sw


def iteration_time_table(nb: Notebook, summary: pd.DataFrame) -> pd.DataFrame:
    """Simulated time per iteration (mean, 95 % interval over seeds) and eq. 21/22/28."""
    rows = []
    for dname, label in itertools.product(nb.delays, nb.labels):
        formula = seed_values(summary, "time_per_iter_formula", label, dname).mean()
        ci = mean_interval(seed_values(summary, "time_per_iter", label, dname))
        rows.append({"delay": dname, "scheme": label, "formula": formula} | dict(zip(_MLH, ci)))
    return pd.DataFrame(rows)


def _ratio_word(num, den, paper_word, label) -> dict:
    """A fixed load per iteration (the layouts fix it) as a word with its exact ratio."""
    value = float(num[0] / den[0])
    word = "same" if math.isclose(value, 1.0) else ("better" if value < 1 else "worse")
    verdict = "reproduced" if word == paper_word else "partly"
    return {
        "ours": f"{word}: ×{value:.4g} on every seed",
        "verdict": verdict,
        "reason": _T1_REASON.get(label, "") if verdict != "reproduced" else "",
    }


def _check(ok: bool, why: str) -> dict:
    """An exact ``"True"``/``"False"`` row's measured part: ``why`` is its reason when False."""
    return {"ours": str(ok), "reason": "" if ok else why}


def _ratio(column, label, other, dname, rule="gd", other_column=None):
    """``measured`` of a paired ratio over seeds: ``column`` of scheme ``label`` over
    ``other_column`` (default: the same) of ``other``, on the Section 5 summary."""
    return lambda summary: {
        "numerator": seed_values(summary, column, label, dname, rule),
        "denominator": seed_values(summary, other_column or column, other, dname, rule),
    }


def _table1_specs(nb: Notebook) -> list:
    setting = nb.run_setting("any delay model", nb.rule_text["gd"])
    S = partial(spec, item="Table I", setting=setting, section=SECTIONS["sec6"], basis="paper")

    def row(metric, technique, label, word):
        q = f"{metric} per iteration, {technique} / GD"
        ratio = _ratio(_TABLE1_METRICS[metric], label, "GD", nb.first)
        if label == "LAG":  # selection: a paired ratio over seeds
            sign, expected = ("<", "less") if word == "better" else (">", "greater")
            return S(
                "comparison",
                quantity=q,
                measured=ratio,
                expected=expected,
                paper_text=f"{word} (ratio {sign} 1)",
            )
        fixed = lambda summary: _ratio_word(*ratio(summary).values(), word, label)
        return S(
            "qualitative",
            quantity=q,
            measured=fixed,
            paper=word,
            uncertainty="exact (a fixed load per iteration)",
        )

    return [
        row(metric, technique, label, word)
        for metric, words in _PAPER_T1.items()
        for (technique, label), word in zip(_TABLE1.items(), words)
    ]


def _robustness_specs(nb: Notebook) -> list:
    n, r, g = nb.n_workers, nb.redundancy, nb.n_workers // nb.redundancy
    tolerance = {
        "coding (GC)": ("better", f"better: any r−1 = {r - 1} vs none for GD"),
        "grouping (G-GD)": ("better", f"better: any r−1 = {r - 1}, up to N−G = {n - g} vs none"),
        "selection (LAG)": ("same", "same: none (every selected worker is waited for), as GD"),
    }
    S = partial(
        spec,
        "qualitative",
        "Table I",
        verdict="reproduced",
        setting=join(nb.schemes, "by construction of the layouts"),
        uncertainty="exact (by construction)",
        section=SECTIONS["sec6"],
        basis="check",
    )
    return [
        S(
            f"robustness to stragglers, {technique} / GD: stragglers tolerated",
            paper=word,
            ours=ours,
        )
        for technique, (word, ours) in tolerance.items()
    ]


def _time_per_iter_specs(nb: Notebook) -> list:
    def measured(summary, *, label, dname, why):
        f = np.divide(*_ratio("time_per_iter_formula", label, "GD", dname)(summary).values())
        return _ratio("time_per_iter", label, "GD", dname)(summary) | {
            "expected": "greater" if f.mean() > 1 else "less",
            "paper_text": f"formula ×{f.mean():.3f}: {why}",
        }

    why = {
        "GC": "GC is faster only if r·E[T_(N−r+1:N)] < E[T_(N:N)] (text after eq. 24)",
        "LAG": "LAG waits for the slowest of fewer active workers (eq. 27)",
    }
    S = partial(spec, "comparison", section=SECTIONS["sec6"], basis="derived")
    return [
        S(
            f"eqs. (23), {eq} (reconstructed)",
            f"time per iteration, {technique} / GD, {dname} (not Table I's robustness)",
            partial(measured, label=label, dname=dname, why=why[label]),
            setting=nb.run_setting(nb.delay_text[dname], nb.rule_text["gd"]),
        )
        for label, technique, eq in (
            ("GC", "coding (GC)", "(24)"),
            ("LAG", "selection (LAG)", "(27)"),
        )
        for dname in nb.delays
    ]


def _beta_spec(nb: Notebook) -> list:
    n, r = nb.n_workers, nb.redundancy
    beta_star = th.gc_gd_pareto_threshold(n, r)

    def measured(sweep):
        sw = beta_sweep_table(sweep)
        faster, slower = sw.index[sw["high"] < 1], sw.index[sw["low"] > 1]
        ok = len(faster) > 0 and len(slower) > 0 and faster.max() < beta_star < slower.min()
        sims = "; ".join(
            f"β = {b:g}: {v['mean']:.3f} [{v['low']:.3f}, {v['high']:.3f}]"
            for b, v in sw.iterrows()
        )
        return {
            "ours": f"eq. (22): β* = {beta_star:.3f} (N = {n}, r = {r}); simulated GC / GD: {sims}",
            "verdict": "reproduced" if ok else "not reproduced",
            "reason": "" if ok else "the simulated sign change does not bracket β*",
            "setting": join(
                f"N={n}, r={r}, Pareto t0={nb.pareto_scale:g}",
                f"{nb.n_seeds} seeds × {BETA_SWEEP['replicas']} delay replicas, β ∈ {tuple(sw.index)}",
            ),
        }

    return [
        spec(
            "qualitative",
            "text after eq. (24), eq. (22) (reconstructed)",
            "GC / GD time per iteration over the Pareto shape β: GC faster iff β < β*",
            measured,
            paper="GC can reduce the time complexity if r·E[T_(N−r+1:N)] < E[T_(N:N)] (no β printed)",
            uncertainty=f"95 % t-interval over {nb.n_seeds} seeds",
            section=SECTIONS["sec6"],
            basis="derived",
        )
    ]


def _iteration_time_specs(nb: Notebook) -> list:
    kind = {label: scheme for label, scheme, _ in nb.configs}
    n_rows = len(nb.delays) * len(nb.labels)

    def measured(summary, *, dname, label):
        fixed = kind[label] not in _LAZY  # no selection: a fixed formula
        sim = seed_values(summary, "time_per_iter", label, dname)
        formula = seed_values(summary, "time_per_iter_formula", label, dname)
        if fixed != bool(np.allclose(formula, formula[0], rtol=1e-12)):
            raise ValueError(f"{label}, {dname}: the formula's time per iteration varies")
        samples, paper, unit = (
            (sim, formula[0], nb.unit[dname]) if fixed else (sim / formula, 1.0, "×")
        )
        m, lo, hi = mean_interval(samples)
        reason = ""
        if not lo <= paper <= hi:
            se = float(np.std(samples, ddof=1) / math.sqrt(len(samples)))
            z = (m - paper) / se if se > 0 else math.inf
            heavy = dname == "pareto" and nb.pareto_shape <= 2 and kind[label] in ("gd", "lag")
            reason = (
                f"simulated {m:.4g} vs formula {paper:.4g} ({m / paper - 1:+.2%}, {abs(z):.1f} standard errors)"
                + (
                    "; with Pareto shape β ≤ 2 the time of a wait-for-all iteration has infinite variance, so the t-interval over seeds under-covers"
                    if heavy
                    else f"; {n_rows} such rows at 95 % expect {0.05 * n_rows:.1f} misses"
                )
            )
        return {"samples": samples, "paper": paper, "unit": unit, "reason": reason}

    S = partial(spec, "interval", section=SECTIONS["sec6"], basis="check")
    return [
        S(
            _ITEM_T[kind[label]],
            f"{'simulated / formula ' if kind[label] in _LAZY else ''}time per iteration, {label}, {dname}",
            partial(measured, dname=dname, label=label),
            setting=nb.run_setting(nb.delay_text[dname], nb.rule_text["gd"]),
        )
        for dname in nb.delays
        for label in nb.labels
    ]


def _selection_specs(nb: Notebook) -> list:
    S = partial(spec, section=SECTIONS["sec6"], basis="derived")
    eq25 = lambda summary: {"ours": str(bool(summary.loc[summary["lazy"], "eq25_respected"].all()))}
    both = nb.run_setting("both delay models and step-size rules")
    return [
        S(
            "exact",
            "eq. (25) (reconstructed)",
            "per-unit selections ≤ ⌈K/(d_m+1)⌉ in every lazy run",
            eq25,
            paper="True",
            setting=both,
        )
    ] + [
        S(
            "comparison",
            "eq. (26)/(30) (reconstructed)",
            f"active fraction / bound 1−ΔC, {label}, theory α",
            _ratio("active_fraction", label, label, nb.first, "theory", "selection_bound"),
            expected="less",
            paper_text="at most the bound (ratio < 1)",
            setting=nb.run_setting(nb.rule_text["theory"]),
        )
        for label in nb.lazy
    ]


def _fixed_load(summary, label, column) -> float:
    gd_rows = summary[summary["rule"] == "gd"]
    return float(gd_rows.loc[gd_rows["scheme"] == label, column].mean())


def _table2_specs(nb: Notebook) -> list:
    n, r, first = nb.n_workers, nb.redundancy, nb.first
    S = partial(spec, section=SECTIONS["sec6"])
    load_setting = join(
        nb.schemes, "measured in every α=1/L run of Section 5 (a fixed load per iteration)"
    )
    msg, grad = "messages_per_iter", "gradients_per_iter"
    loads = [  # eq. of Table II, quantity, the formula's value, scheme, column
        ("32", "messages per iteration, GD (2N)", 2 * n, "GD", msg),
        ("33", "messages per iteration, GC (2N−r+1)", 2 * n - r + 1, "GC", msg),
        ("35", "messages per iteration, G-GD (N+N/r)", n + n // r, "G-GD", msg),
        ("", "gradients per iteration, GD (N)", n, "GD", grad),
        ("", "gradients per iteration, GC (rN)", r * n, "GC", grad),
        ("", "gradients per iteration, G-GD (rN)", r * n, "G-GD", grad),
    ]

    def within(summary):
        lazy = summary[summary["lazy"]]
        ok = all(
            (lazy[q] <= lazy[f"table2_{q}"]).all() for q in ("time", "communication", "computation")
        )
        return _check(ok, "some lazy run exceeds its Table II bound (table above)")

    def same_iters(summary):
        tables = (seed_table(summary, "iterations", delay=first, rule=rule) for rule in RULES)
        ok = all((t[["GC", "G-GD"]].to_numpy() == t[["GD"]].to_numpy()).all() for t in tables)
        return {"ours": str(ok)}

    saving = lambda summary: {
        "ours": _fixed_load(summary, "GD", msg) / _fixed_load(summary, "GC", msg)
    }
    bound = {"expected": "greater", "paper_text": "an upper bound (ratio > 1)", "basis": "derived"}
    upper = partial(S, "comparison", **bound)
    check = partial(S, "exact", basis="check")
    eps = f"ε={EPS_REL:g}×Δ"
    return (
        [
            check(
                f"Table II, eq. ({eq}) (reconstructed)" if eq else "Table II (reconstructed)",
                q,
                lambda summary, lb=lb, col=col: {"ours": _fixed_load(summary, lb, col)},
                paper=v,
                setting=load_setting,
            )
            for eq, q, v, lb, col in loads
        ]
        + [
            check(
                "text after eq. (33) (reconstructed)",
                "GC communication saving over GD, 2N/(2N−r+1)",
                saving,
                paper=2 * n / (2 * n - r + 1),
                setting=load_setting,
            ),
            S(
                "exact",
                "Table II, eqs. (27), (31), (34) (reconstructed)",
                "lazy schemes: measured ≤ per-iteration bound × iterations",
                within,
                paper="True",
                setting=nb.run_setting("every lazy run, both delay models and step-size rules"),
                basis="derived",
            ),
            check(
                "Sec. V",
                "GC and G-GD need exactly as many iterations as GD",
                same_iters,
                paper="True",
                setting=nb.run_setting("every seed, both step-size rules"),
            ),
            upper(
                "eq. (19) (reconstructed)",
                "I_GD(ε) / measured GD iterations",
                _ratio("iter_bound", "GD", "GD", first, "gd", "iterations"),
                setting=join(nb.data, "α=1/L", eps, nb.runs),
            ),
        ]
        + [
            upper(
                "eq. (20) (reconstructed)",
                f"I_LAG(ε) / measured iterations, {label}, theory α",
                _ratio("iter_bound", label, label, first, "theory", "iterations"),
                setting=nb.run_setting(nb.rule_text["theory"], eps),
            )
            for label in nb.lazy
        ]
    )


# ---- Section 7: the paper's conclusion --------------------------------------------------
_WORDS = {
    "time": {"less": "faster", "greater": "slower", "indistinguishable": "indistinguishable"},
    "messages": {"less": "fewer", "greater": "more", "indistinguishable": "indistinguishable"},
}


def _abstract(kind, quantity, measured, **fixed):
    """A row of the paper's Section VI conclusion, as its abstract words it (notebook Section 7)."""
    sec7 = {"section": SECTIONS["sec7"], "basis": "paper"}
    return spec(kind, "Sec. VI (abstract)", quantity, measured, **sec7, **fixed)


def _gmean_ratio(summary, column, other, dname, rule) -> float:
    return ratio_interval(
        seed_values(summary, column, "G-LAG", dname, rule),
        seed_values(summary, column, other, dname, rule),
    )[0]


def conclusion_keys(nb: Notebook) -> list:
    """``(metric, rule, delay, other)`` of the Section 7 comparison rows, in their order."""
    keys = []
    for rule in RULES:
        keys += [("time", rule, d, o) for d in nb.delays for o in nb.others]
        keys += [("messages", rule, "any", o) for o in nb.others]
    return keys


def _conclusion_specs(nb: Notebook) -> list:
    same = "the same for both delay models (the trajectories do not depend on the delays)"

    def row(metric, rule, dname, other):
        time = metric == "time"
        column, d = ("time", dname) if time else ("communication", nb.first)

        def measured(summary):
            num, den = _ratio(column, "G-LAG", other, d, rule)(summary).values()
            reason = ""
            if not ratio_interval(num, den)[2] < 1:
                per_iter = "time_per_iter" if time else "messages_per_iter"
                reason = (
                    f"measured over {nb.n_seeds} paired seeds: G-LAG/{other} iterations ×{_gmean_ratio(summary, 'iterations', other, d, rule):.2f}, {metric} per iteration ×{_gmean_ratio(summary, per_iter, other, d, rule):.2f}"
                    + (" (time to target = their product)" if time else "")
                )
            return {"numerator": num, "denominator": den, "reason": reason}

        quantity = (
            f"{metric} to target, G-LAG / {other}, {f'{dname}, ' if time else ''}{RULES[rule]}"
        )
        return _abstract(
            "comparison",
            quantity,
            measured,
            paper_text=f"G-LAG {'fastest' if time else 'fewest'} (ratio < 1)",
            setting=nb.run_setting(nb.delay_text[dname] if time else same, nb.rule_text[rule]),
            expected="less",
        )

    return [row(*key) for key in conclusion_keys(nb)]


def _computation_specs(nb: Notebook) -> list:
    redundant = [label for label, scheme, _ in nb.configs if scheme in ("gc", "g-gd", "lagc")]

    def measured(summary, *, rule):
        comp = {
            o: ratio_interval(*_ratio("computation", "G-LAG", o, nb.first, rule)(summary).values())
            for o in nb.others
        }
        ours = "G-LAG / " + "; / ".join(
            f"{o} ×{m:.2f} [{lo:.2f}, {hi:.2f}]" for o, (m, lo, hi) in comp.items()
        )
        below = [o for o, (_, _, hi) in comp.items() if hi < 1]
        if len(below) == len(nb.others):
            return {"ours": ours, "verdict": "reproduced", "reason": ""}
        above = [o for o, (_, lo, _) in comp.items() if lo > 1]
        tied = [o for o in nb.others if o not in below and o not in above]
        verdict = "partly" if all(o in below for o in redundant[:2]) else "not reproduced"
        frac = seed_values(summary, "active_fraction", "G-LAG", nb.first, rule).mean()
        reason = (
            f"fewer gradients than {', '.join(below) or 'no scheme'}, more than {', '.join(above) or 'no scheme'}"
            + (f", indistinguishable from {', '.join(tied)}" if tied else "")
            + f": each G-LAG worker computes r={nb.redundancy} partitions and {frac:.0%} of the groups are active per iteration (measured)"
        )
        return {"ours": ours, "verdict": verdict, "reason": reason}

    uncertainty = (
        f"geometric mean [95 % t-interval of the log ratio over {nb.n_seeds} paired seeds]"
    )
    return [
        _abstract(
            "qualitative",
            f"computation to target: G-LAG low, {short}",
            partial(measured, rule=rule),
            paper="low computational cost",
            setting=nb.run_setting(nb.rule_text[rule]),
            uncertainty=uncertainty,
        )
        for rule, short in RULES.items()
    ]


def _best_specs(nb: Notebook) -> list:
    def measured(summary, outcomes, *, rule):
        named = {  # the rule's comparison rows by what they compare
            f"{m}{'' if d == 'any' else f' ({d})'} vs {o}": row.outcome
            for (m, rl, d, o), row in outcomes.items()
            if rl == rule
        }
        worse = [n for n, out in named.items() if out == "greater"]
        tied = [n for n, out in named.items() if out == "indistinguishable"]
        wins = sum(out == "less" for out in named.values())
        ours = (
            f"G-LAG better in {wins} of {len(named)} paired comparisons (time: both delay models; messages)"
            + (f"; worse: {', '.join(worse)}" if worse else "")
            + (f"; indistinguishable: {', '.join(tied)}" if tied else "")
        )
        if wins == len(named):
            return {"ours": ours, "verdict": "reproduced", "reason": ""}
        it = ", ".join(
            f"{o} ×{_gmean_ratio(summary, 'iterations', o, nb.first, rule):.2f}" for o in nb.others
        )
        reason = f"per-comparison reasons in the rows above; G-LAG's iterations relative to the others {it} (measured)"
        return {"ours": ours, "verdict": "not reproduced" if worse else "partly", "reason": reason}

    return [
        _abstract(
            "qualitative",
            f"G-LAG best time and communication, {short}",
            partial(measured, rule=rule),
            paper="G-LAG best wall-clock time and communication (exponential and Pareto)",
            setting=nb.run_setting(*nb.delay_text.values(), nb.rule_text[rule]),
            uncertainty="summary of the paired comparison rows (95 % intervals)",
            headline=True,
        )
        for rule, short in RULES.items()
    ]


def conclusion_text(nb: Notebook, outcomes: dict) -> str:
    """The Section 7 comparisons, one line each, grouped by step-size rule."""
    lines = []
    for rule in RULES:
        lines.append(f"{nb.rule_text[rule]}:")
        for (metric, rl, dname, other), row in outcomes.items():
            if rl == rule:
                where = f", {dname}" if dname != "any" else ""
                lines.append(
                    f"  {metric}{where}: G-LAG / {other} = {row.our_value:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}] -> G-LAG {_WORDS[metric][row.outcome]}"
                )
    return "\n".join(lines)


# ---- Section 8: Table II as r and G vary -------------------------------------------------
def vd_text(nb: Notebook, curves_r: pd.DataFrame, curves_g: pd.DataFrame) -> str:
    """Per delay model: where GC beats GD, and where G-GD's and LAGC's time bounds are smallest."""
    lines = []
    for dname in nb.delays:
        sub = curves_r[curves_r["delay"] == dname]
        gd_time = float(sub.loc[sub["scheme"] == "GD", "time"].iloc[0])
        faster = (sub["scheme"] == "GC") & (sub["time"] < gd_time * (1 - 1e-9))
        gc_wins = sorted(int(v) for v in sub.loc[faster, "redundancy"])
        ggd = sub[sub["scheme"] == "G-GD"].sort_values("time")
        lagc_g = curves_g[(curves_g["delay"] == dname) & (curves_g["scheme"] == "LAGC")]
        lagc_g = lagc_g.sort_values("time")
        lines.append(
            f"{dname}: GC below GD (r·E[T_(N−r+1:N)] < E[T_(N:N)], text after eq. 24) for r in {gc_wins or 'none'}; G-GD time smallest at r = {int(ggd['redundancy'].iloc[0])}; LAGC time bound smallest at G = {int(lagc_g['n_groups'].iloc[0])}"
        )
    return "\n".join(lines)


def _table2_rank_specs(nb: Notebook) -> list:
    n, r = nb.n_workers, nb.redundancy

    def measured(curves_r, summary):
        at_r = curves_r[curves_r["redundancy"] == r]
        ranks = {
            d: {m: int(sub[m].rank(method="min")["G-LAG"]) for m in ("time", "communication")}
            for d in nb.delays
            for sub in [at_r[at_r["delay"] == d].set_index("scheme")]
        }
        n_sch = at_r["scheme"].nunique()
        best = all(v == 1 for d in ranks.values() for v in d.values())
        glag = summary[(summary["rule"] == "theory") & (summary["scheme"] == "G-LAG")]
        return {
            "ours": "; ".join(
                f"{d}: G-LAG rank {v['time']} of {n_sch} in time, {v['communication']} of {n_sch} in communication"
                for d, v in ranks.items()
            ),
            "reason": (
                "Table II and Section V-D are not in our copy (it ends in Section V-B): the bounds are our reconstruction, so the ranks they give on our stand-in are shown for orientation; "
                + ("" if best else "G-LAG is not first because ")
                + f"the rebuilt lazy rows are worst-case bounds: eq. (20) multiplies the iterations by 1/(1−√(Dξ)) = {1 / (1 - math.sqrt(nb.history * nb.xi)):.2f} and eq. (30) assumes up to a fraction {glag['selection_bound'].mean():.2f} of the groups active, while the Section 5 runs (theory α, mean over seeds) measure {glag['active_fraction'].mean():.2f} active and an iteration bound loose by ×{(glag['iter_bound'] / glag['iterations']).mean():.2f}"
            ),
        }

    setting = join(
        "rebuilt Table II on the first seed's stand-in problem",
        f"N={n}, r={r}, G-LAG G={n // r}",
        f"ξ={nb.xi:g}, D={nb.history}",
        nb.rule_text["theory"],
        f"ε={EPS_REL:g}×Δ",
        *nb.delay_text.values(),
    )
    reason = "our copy of the paper ends in Section V-B: the V-D figures, their parameters and values are unavailable; the curves here evaluate the rebuilt Table II on our stand-in problem"
    S = partial(spec, section=SECTIONS["sec8"], basis="paper")
    return [
        S(
            "qualitative",
            "Table II (reconstructed)",
            f"G-LAG best time and communication bound at r = {r}",
            measured,
            paper="G-LAG best (abstract: 'analysis and results show')",
            verdict="not attempted",
            setting=setting,
            uncertainty="exact (formulas)",
        ),
        S(
            "not_attempted",
            "Sec. V-D",
            "numerical illustration of the paper",
            paper="Section V-D plots of the Table II complexities",
            reason=reason,
        ),
    ]


# ---- Section 9: is the G-LAG bound wrong or loose? ----------------------------------------
def grid_facts(grid: pd.DataFrame, grid_summary: pd.DataFrame) -> dict:
    """What Section 9's rows and verdict read off the (ξ, D) grid."""
    th_rows = grid[grid["rule"] == "theory"]
    s_th, s_gd = (grid_summary[grid_summary["rule"] == r] for r in ("theory", "gd"))
    factor_err = float(
        (th_rows["sim_iteration_factor"] / th_rows["iteration_factor"] - 1).abs().max()
    )
    return {
        "s_th": s_th,
        "s_gd": s_gd,
        "factor_err": factor_err,
        "bound_holds": bool(
            (th_rows["iterations"] <= th_rows["iter_bound"]).all()
            and (th_rows["time"] <= th_rows["bound_time"]).all()
        ),
        "loose": s_th["looseness"],
        "wins": {
            name: int((s["sim_winner"] == "G-LAG").sum())
            for name, s in (("gd", s_gd), ("theory", s_th))
        },
    }


def grid_verdict(
    nb: Notebook,
    grid: pd.DataFrame,
    grid_summary: pd.DataFrame,
    best_case: pd.DataFrame,
    spread: float,
) -> str:
    """Section 9's verdict in numbers (the prose below the cell reads it)."""
    f = grid_facts(grid, grid_summary)
    s_th, s_gd, loose = f["s_th"], f["s_gd"], f["loose"]
    best_exp = best_case[best_case["delay"] == "exponential"]
    first_win = best_exp.loc[best_exp["best_ratio"] < 1, "spread"]
    return f"Verdict: every run stays below the reconstructed bound — at its step size the runs need 1/(1−√(Dξ)) times G-GD's iterations (largest deviation {f['factor_err']:.1%}) and stay below every bound. The bound's G-LAG/G-GD ratio is ×{loose.min():.2f}–{loose.max():.2f} the simulated one (median ×{loose.median():.2f}) over {len(s_th) // len(nb.delays)} (ξ, D) cells × {len(nb.delays)} delay models (its absolute times are higher still: eq. (19) itself is loose), and it never shows G-LAG faster because at that step G-LAG is not faster: simulated G-LAG/G-GD {s_th['sim_ratio'].min():.2f}–{s_th['sim_ratio'].max():.2f}. With step 1/L (outside eq. 20) G-LAG costs no extra iterations and is faster in {f['wins']['gd']} of {len(s_gd)} (cell, delay model) pairs (ratio down to {s_gd['sim_ratio'].min():.2f}). On this layout (G = {nb.n_workers // nb.redundancy}) the bound admits a G-LAG win only for group spreads ≥ {first_win.min() if len(first_win) else float('nan'):.0e} (exponential delays); ours is ×{spread:.0f}."


def _grid_specs(nb: Notebook) -> list:
    S = partial(spec, section=SECTIONS["sec9"])

    def factor(grid, grid_summary):
        err = grid_facts(grid, grid_summary)["factor_err"]
        return _check(err < 0.05, f"largest relative deviation {err:.1%}") | {
            "setting": join(
                nb.grid_setting,
                "step (1−√(Dξ))/L for G-LAG, 1/L for G-GD",
                f"largest deviation {err:.2%}; not a paper statement: the shorter step's cost in iterations on our stand-in",
            ),
        }

    def holds(grid, grid_summary):
        return _check(
            grid_facts(grid, grid_summary)["bound_holds"], "a run exceeds its bound (table above)"
        )

    def ratio_cell(grid, *, dname):
        at = (grid["rule"] == "theory") & (grid["xi"] == nb.xi) & (grid["history"] == nb.history)
        cell = grid[at & (grid["delay"] == dname)]
        return {"numerator": cell["bound_time"], "denominator": cell["time"]}

    def verdict(grid, grid_summary, spread):
        f = grid_facts(grid, grid_summary)
        s_th, s_gd, loose, wins = f["s_th"], f["s_gd"], f["loose"], f["wins"]
        sel_gap = s_th["selection_bound"] - s_th["active_fraction"]
        n_pairs = len(s_th)
        return {
            "ours": (
                f"bound: G-GD faster in {int((s_th['bound_winner'] == 'G-GD').sum())} of {n_pairs} (cell, delay model) pairs (ratio {s_th['bound_ratio'].min():.2f}–{s_th['bound_ratio'].max():.2f}); simulated with the eq. (20) step: G-LAG faster in {wins['theory']} of {n_pairs} (ratio {s_th['sim_ratio'].min():.2f}–{s_th['sim_ratio'].max():.2f}); simulated with step 1/L: G-LAG faster in {wins['gd']} of {len(s_gd)} (ratio {s_gd['sim_ratio'].min():.2f}–{s_gd['sim_ratio'].max():.2f})"
            ),
            "reason": (
                f"the bound is loose, not wrong: at its own step (1−√(Dξ))/L the simulation also has G-GD faster; the bound's G-LAG/G-GD ratio is ×{loose.min():.2f}–{loose.max():.2f} the simulated one (median ×{loose.median():.2f}), the excess mostly from eq. (30) (bound 1−ΔC exceeds the measured active fraction by up to {sel_gap.max():.2f}); at that step the runs need 1/(1−√(Dξ)) times G-GD's iterations (±{f['factor_err']:.1%}). G-LAG wins only with step 1/L, which eq. (20) does not cover; the bound could favour G-LAG only for group smoothness spreads ≥ 10³ (ours ×{spread:.0f})"
            ),
        }

    derived = partial(S, basis="derived")
    return [
        S(
            "exact",
            "eq. (20) (reconstructed), our step size",
            "G-LAG/G-GD iterations at the step (1−√(Dξ))/L = 1/(1−√(Dξ)) ±5 % in every grid cell",
            factor,
            paper="True",
            basis="check",
        ),
        derived(
            "exact",
            "eqs. (20), (29)–(31) (reconstructed)",
            "bound ≥ simulated G-LAG iterations and time at the eq. (20) step, every grid cell",
            holds,
            paper="True",
            setting=join(nb.grid_setting, "both delay models"),
        ),
        *[
            derived(
                "comparison",
                "eqs. (20), (31) (reconstructed) vs simulation",
                f"bound / simulated G-LAG time, eq. (20) step, ξ={nb.xi:g}, D={nb.history}, {dname}",
                partial(ratio_cell, dname=dname),
                expected="greater",
                paper_text="an upper bound (ratio > 1)",
                setting=join(nb.grid_setting, nb.delay_text[dname]),
            )
            for dname in nb.delays
        ],
        derived(
            "qualitative",
            "eqs. (20), (29)–(31) (reconstructed) over (ξ, D)",
            "G-LAG vs G-GD time: bound and simulation over the (ξ, D) grid",
            verdict,
            paper="G-LAG best wall-clock time (abstract: 'analysis and results show')",
            verdict="partly",
            setting=join(nb.grid_setting, *nb.delay_text.values()),
            uncertainty=f"95 % t-intervals of the log ratio over {nb.grid_seeds} paired seeds",
        ),
    ]


def iteration_bound_text(nb: Notebook, summary: pd.DataFrame) -> str:
    """How loose eqs. (19)/(20) are on the runs, and the lazy schemes' iterations over GD's."""
    loose = summary.dropna(subset=["iter_bound"])
    loose = loose["iter_bound"] / loose["iterations"]
    iter_ratio = {
        label: ratio_interval(
            seed_values(summary, "iterations", label, nb.first, "theory"),
            seed_values(summary, "iterations", "GD", nb.first, "theory"),
        )
        for label in nb.lazy
    }
    return (
        f"eq. (19)/(20) divided by the measured iteration count: {loose.min():.2f} to {loose.max():.2f}\neq. (20)/eq. (19) = 1/(1−√(Dξ)) = {1 / (1 - math.sqrt(nb.history * nb.xi)):.2f}; measured iterations of the lazy schemes with the theory step size / GD's: "
        + ", ".join(f"{k} ×{v[0]:.2f} [{v[1]:.2f}, {v[2]:.2f}]" for k, v in iter_ratio.items())
    )


#: Notebook 04's claims by section: each a function of the :class:`Notebook` giving its specs.
CLAIMS = {
    "sec2": _layout_specs,
    "remark2": _remark2_specs,
    "sec3": _sec3,
    "sec5": _sec5,
    "table1": _table1_specs,
    "robustness": _robustness_specs,
    "time_per_iter": _time_per_iter_specs,
    "beta": _beta_spec,
    "eq28": _iteration_time_specs,
    "selection": _selection_specs,
    "table2": _table2_specs,
    "conclusion": _conclusion_specs,
    "computation": _computation_specs,
    "best": _best_specs,
    "sec8": _table2_rank_specs,
    "sec9": _grid_specs,
}
