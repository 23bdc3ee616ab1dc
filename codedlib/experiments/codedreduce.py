"""One function per CodedReduce figure / table; each returns data (DataFrame or dict).

Stand-ins and scale (see notebook 01): the EC2 clusters are replaced by the simulated clock of
:mod:`codedlib.schemes.codedreduce` (same delay draws for every scheme); the *timing* uses the
paper's data sizes (d = 6552 logistic, 7644 linear) so loads per worker match the paper,
while the *optimisation* runs on data we can afford: scikit-learn's 8x8 digits 4-vs-9 (271
training points, 65 features) for GISETTE, and the eq.-(10) synthetic model at a reduced
size with the paper's aspect ratio d/p ~ 1.18 for the linear regression ((956, 812) =
paper / 8; (478, 406) in quick mode).

Reference: reisizadeh2022codedreduce, tandon2017gradient.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from codedlib._validation import as_generator, check_frame, check_int, check_real
from codedlib.claims import magnitude_factor
from codedlib.codes.codedreduce import (
    allocate,
    execute,
    local_messages_from_point_gradients,
)
from codedlib.codes.cyclic import (
    PAPER_EXAMPLE_A,
    PAPER_EXAMPLE_B,
    cyclic_repetition_code,
    gradient_code_from_matrices,
)
from codedlib.network import Network
from codedlib.progress import track
from codedlib.schemes.codedreduce import (
    PAPER_NETWORK,
    SCHEMES,
    ClusterConfig,
    TimingModel,
    cr_times,
    draw_delays,
    ring_allreduce_finish,
    simulate_iteration_times,
)
from codedlib.theory.codedreduce import (
    load_vs_alpha,
    n_tree_workers,
    r_cr,
    r_gc,
    table_one,
    theorem2_bounds,
)

__all__ = [
    "ConfigurationSummaryResult",
    "ConvergenceResult",
    "ConvergenceSeedsResult",
    "Example1Result",
    "Example2Result",
    "FIGURE_SETTINGS",
    "Fig2SeedsResult",
    "LoadReductionResult",
    "GRADIENT_NUMBERS",
    "PAPER_SPEEDUPS",
    "configuration_summary",
    "convergence",
    "convergence_over_seeds",
    "example1_gc",
    "example2_codedreduce",
    "fig2_iteration_times",
    "fig2_over_seeds",
    "load_curves",
    "load_table",
    "calibrate_straggle_delay",
    "coded_gradient_descent",
    "cr_rar_network_table",
    "speedup_verdict",
    "network_reason",
    "figure_model",
    "model_speedup_range",
    "regime_map",
    "time_breakdown",
    "replica_seeds",
    "seven_times_claim",
    "speedup_intervals",
    "speedup_range_summary",
    "speedups",
    "table1",
    "theorem2_check",
]

#: Speedups of CR the paper reports (Fig. 2 caption text, Figs. 8-13 captions).
PAPER_SPEEDUPS = {
    "fig2": {"UMW": 22.5, "GC": 6.4, "RAR": 4.3},
    "fig8": {"UMW": 32.8, "GC": 5.3, "RAR": 3.8, "SGD": 3.2},
    "fig9a": {"UMW": 32.3, "GC": 27.2, "RAR": 7.0, "SGD": 25.4},
    "fig9b": {"UMW": 29.3, "GC": 23.3, "RAR": 6.4, "SGD": 21.9},
    "fig9c": {"UMW": 25.0, "GC": 16.8, "RAR": 5.4, "SGD": 15.4},
    "fig10": {"UMW": 24.1, "GC": 4.6, "RAR": 3.0, "SGD": 2.8},
    "fig11a": {"UMW": 31.7, "GC": 22.0, "RAR": 5.2, "SGD": 20.7},
    "fig11b": {"UMW": 27.1, "GC": 18.1, "RAR": 4.4, "SGD": 16.8},
    "fig11c": {"UMW": 22.2, "GC": 13.7, "RAR": 3.6, "SGD": 13.0},
    "fig12": {"UMW": 11.3, "GC": 9.7, "RAR": 1.69, "SGD": 6.1},
    "fig13": {"UMW": 6.6, "GC": 4.8, "RAR": 1.8, "SGD": 4.0},
}

#: (task, tree n, L, s, timing d, iterations) of every convergence figure.
FIGURE_SETTINGS = {
    "fig8": ("logistic", 4, 3, 1, 6552, 300),
    "fig9a": ("logistic", 12, 2, 1, 6552, 300),
    "fig9b": ("logistic", 12, 2, 2, 6552, 300),
    "fig9c": ("logistic", 12, 2, 3, 6552, 300),
    "fig10": ("linear", 4, 3, 1, 7644, 300),
    "fig11a": ("linear", 12, 2, 1, 7644, 300),
    "fig11b": ("linear", 12, 2, 2, 7644, 300),
    "fig11c": ("linear", 12, 2, 3, 7644, 300),
    "fig12": ("linear", 12, 2, 3, 32760, 50),
    "fig13": ("softmax", 12, 2, 5, 49920, 300),
}

#: Gradient size p (numbers per full-gradient message) of every figure's model: GISETTE
#: p = 5001 (Figs. 8-9), the linear model p = 6500 (Figs. 2, 10-11; Fig. 2's caption says
#: "a linear model" without p, we take Fig. 10's), p = 5000 (Fig. 12's caption; its text
#: says 500) and p ~ 120 000 (Fig. 13's network, whose t_c = 0.05 s the paper states).
GRADIENT_NUMBERS = {
    "fig2": 6500,
    "fig8": 5001,
    "fig9a": 5001,
    "fig9b": 5001,
    "fig9c": 5001,
    "fig10": 6500,
    "fig11a": 6500,
    "fig11b": 6500,
    "fig11c": 6500,
    "fig12": 5000,
    "fig13": 120_000,
}


#: Column names of :func:`codedlib.theory.codedreduce.table_one` -> ours (snake_case).
_TABLE_ONE_COLUMNS = {
    "alpha (paper)": "alpha_paper",
    "beta (paper)": "beta_paper",
    "alpha ≈": "alpha_approx",
    "alpha exact": "alpha_exact",
    "beta order": "beta_order",
}


def figure_model(figure: str, model: TimingModel | None = None) -> TimingModel:
    """``model`` (default :class:`TimingModel`) with the gradient size of ``figure``: the
    network is the same for every figure, the message times follow from p.
    """
    if figure not in GRADIENT_NUMBERS:
        raise ValueError(f"figure must be one of {sorted(GRADIENT_NUMBERS)}, got figure={figure!r}")
    model = TimingModel() if model is None else model
    return replace(model, gradient_numbers=GRADIENT_NUMBERS[figure])


# --------------------------------------------------------------------------------------
# Examples 1 and 2
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Example1Result:
    """Example 1 (Fig. 4) worked numerically, from :func:`example1_gc`.

    Attributes
    ----------
    code : GradientCode
        The gradient code of eq. (4) (N = 3, S = 1).
    table : pandas.DataFrame
        One row per straggler: ``straggler``, ``decoding_row`` (the online decoder's row
        a_f), ``paper_row`` (the paper's row of A) and ``max_abs_error``
        (``max |a_f B G - g|``).
    load : float
        Computation load per worker of the code.
    """

    code: object
    table: pd.DataFrame
    load: float


@dataclass(frozen=True)
class Example2Result:
    """Example 2 (Fig. 7) worked numerically, from :func:`example2_codedreduce`.

    ``decoding_11``: node (1,1)'s row when (2,3) straggles; ``decoding_master``: the master's
    row from (1,1) and (1,3); ``m_11``/``m_13`` the messages, to equal ``half_g1_plus_g2`` =
    ``g_D1/2 + g_D2`` and ``half_g1_plus_g3``; ``master`` the recovered gradient, ``g_d`` the exact.
    """

    allocation: object
    table: pd.DataFrame
    r_cr: object
    decoding_11: np.ndarray
    decoding_master: np.ndarray
    m_11: np.ndarray
    half_g1_plus_g2: np.ndarray
    m_13: np.ndarray
    half_g1_plus_g3: np.ndarray
    master: np.ndarray
    g_d: np.ndarray
    max_abs_error: float


def example1_gc(rng=0) -> Example1Result:
    """Example 1 (Fig. 4): GC with N = 3, S = 1 and eq. (4)'s matrices, on random g_k."""
    code = gradient_code_from_matrices(PAPER_EXAMPLE_B, 1, PAPER_EXAMPLE_A)
    g = as_generator(rng).standard_normal((3, 2))
    rows = []
    for straggler in range(3):
        survivors = [w for w in range(3) if w != straggler]
        a = code.decode(survivors)
        rows.append(
            {
                "straggler": f"W{straggler + 1}",
                "decoding_row": np.round(a, 12).tolist(),
                "paper_row": PAPER_EXAMPLE_A[straggler].tolist(),
                "max_abs_error": float(np.max(np.abs(a @ code.B @ g - g.sum(0)))),
            }
        )
    return Example1Result(code=code, table=pd.DataFrame(rows), load=code.load)


def example2_codedreduce(d: int = 15, rng=0) -> Example2Result:
    """Example 2 (Fig. 7): the (3, 2) tree with s = 1 and eq. (4)'s code, worked numerically.

    Returns the allocation, its node table, the messages of sub-tree T(1,1) when (2,3)
    straggles, and the master's recovery from (1,1) and (1,3) with the exact gradient.
    """
    d = check_int("d", d, 1)
    code = gradient_code_from_matrices(PAPER_EXAMPLE_B, 1, PAPER_EXAMPLE_A)
    alloc = allocate(3, 2, 1, d, code=code)
    G = as_generator(rng).standard_normal((d, 2))
    local = local_messages_from_point_gradients(alloc, G)
    gradient, messages = execute(alloc, local, stragglers=[6, 2])  # (2,3) and (1,2) straggle
    thirds = np.array_split(np.arange(d), 3)
    g1, g2, g3 = (G[idx].sum(0) for idx in thirds)
    return Example2Result(
        allocation=alloc,
        table=alloc.to_dataframe(),
        r_cr=r_cr(3, 1, 2, exact=True),
        decoding_11=alloc.decoding_coefficients([0, 1]),
        decoding_master=alloc.decoding_coefficients([0, 2]),
        m_11=messages[1],
        half_g1_plus_g2=0.5 * g1 + g2,
        m_13=messages[3],
        half_g1_plus_g3=0.5 * g1 + g3,
        master=gradient,
        g_d=G.sum(0),
        max_abs_error=float(np.max(np.abs(gradient - G.sum(0)))),
    )


# --------------------------------------------------------------------------------------
# Theorem 1, Table I, Theorem 2
# --------------------------------------------------------------------------------------
def load_curves(alphas=None, layers=(1, 2, 3), n: int | None = None) -> pd.DataFrame:
    """Computation load vs resiliency alpha for L = 1 (GC), 2, 3 (Theorem 1, Remark 2)."""
    alphas = np.linspace(0.02, 0.9, 89) if alphas is None else np.asarray(alphas, dtype=float)
    frames = []
    for L in layers:
        frames.append(
            pd.DataFrame(
                {
                    "alpha": alphas,
                    "L": L,
                    "load": load_vs_alpha(alphas, L, n),
                    "alpha_power_l": alphas**L,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class LoadReductionResult:
    """Remark 2's load cut from 1 to 3 layers, from :func:`seven_times_claim`.

    Attributes
    ----------
    alpha : float
        Straggler resiliency alpha.
    load_one_layer : float
        Computation load with L = 1 (GC).
    load_three_layers : float
        Computation load with L = 3 (CR).
    reduction : float
        ``load_one_layer / load_three_layers``.
    """

    alpha: float
    load_one_layer: float
    load_three_layers: float
    reduction: float


def seven_times_claim(alpha: float = 0.5, n: int | None = None) -> LoadReductionResult:
    """Remark 2: at alpha = 0.5, going from 1 layer (GC) to 3 layers cuts the load 7x."""
    alpha = check_real("alpha", alpha, 0.0, 1.0, low_open=True, high_open=True)
    one, three = float(load_vs_alpha(alpha, 1, n)), float(load_vs_alpha(alpha, 3, n))
    return LoadReductionResult(
        alpha=alpha, load_one_layer=one, load_three_layers=three, reduction=one / three
    )


def table1(N: int = 156, n: int = 12, L: int = 2, s: int = 3) -> pd.DataFrame:
    """Table I at the load of a concrete CR tree (default the paper's (12, 2), alpha = 1/4)."""
    return table_one(N, r_cr(n, s, L), L, n=n).rename(columns=_TABLE_ONE_COLUMNS)


def theorem2_check(
    ns=(8, 16, 32, 64),
    L: int = 2,
    alpha: float = 0.25,
    d: int = 50_000,
    model: TimingModel | None = None,
    n_iterations: int = 400,
    rng=0,
) -> pd.DataFrame:
    """Monte Carlo mean CR iteration time vs Theorem 2's bounds (7)-(8), for growing n.

    Every iteration is an independent replica (fresh delay draws), so ``stderr`` is the
    standard error of the mean and ``ci_low`` / ``ci_high`` its normal 95 % interval.
    ``position`` says where the interval lies w.r.t. the bounds without their o(.) terms
    ("below (7)", "inside", "above (8)"). The two gaps a bound can have at finite n are
    measured separately: ``sibling_order_statistic`` (E[T_(n-s)], the exact mean (n-s)-th
    order statistic of one sibling group) against the bounds' ``computation_term``
    ``(r d/mu) log(1/alpha) + a r d``, and the rest of the Monte Carlo mean
    (``monte_carlo_rest`` = MC - E[T_(n-s)]: reception and waiting for the slowest group)
    against the lower bound's ``communication_term`` ``(n(1-alpha) + L - 1) t_c``. The other
    columns: ``n``, ``s``, ``N``, ``lower_bound`` (7), ``monte_carlo_mean`` (E[T_CR]),
    ``stderr``, ``upper_bound`` (8), ``within_bounds``, ``pipelined_upper``
    (E[T_(n-s)] + L(n-s)t_c) and ``replicas``.
    """
    model = figure_model("fig13") if model is None else model  # the paper's t_c = 0.05 s
    gen = as_generator(rng)
    rows = []
    for n in ns:
        s = round(alpha * n)
        cfg = ClusterConfig(n, L, s, d)
        times = cr_times(cfg, model, draw_delays(n_iterations, cfg.N, gen)).times
        b = theorem2_bounds(n, L, s, d, model.a, model.mu, model.t_c)
        mean, se = float(times.mean()), float(times.std(ddof=1) / np.sqrt(times.size))
        lo, hi = mean - 1.96 * se, mean + 1.96 * se
        position = "below (7)" if hi < b["lower"] else "above (8)" if lo > b["upper"] else "inside"
        rows.append(
            {
                "n": n,
                "s": s,
                "N": cfg.N,
                "lower_bound": b["lower"],
                "monte_carlo_mean": mean,
                "stderr": se,
                "ci_low": lo,
                "ci_high": hi,
                "upper_bound": b["upper"],
                "within_bounds": b["lower"] <= mean <= b["upper"],
                "position": position,
                "computation_term": b["computation"],
                "sibling_order_statistic": b["sibling_order_statistic"],
                "communication_term": b["lower_communication"],
                "monte_carlo_rest": mean - b["sibling_order_statistic"],
                "pipelined_upper": b["pipelined_upper"],
                "replicas": int(times.size),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------
# Fig. 2 and the communication-model sensitivity
# --------------------------------------------------------------------------------------
def fig2_iteration_times(
    n: int = 4,
    L: int = 3,
    s: int = 1,
    d: int = 7644,
    model: TimingModel | None = None,
    n_iterations: int = 300,
    rng=0,
) -> pd.DataFrame:
    """Fig. 2: average iteration time per scheme (N = 84 as a (4, 3) tree, alpha = 1/4),
    with per-iteration costs and CR's speedup beside the paper's.
    """
    cfg = ClusterConfig(n, L, s, d)
    model = TimingModel() if model is None else model
    loads = _allocation(n, L, s, d).load_points
    res = simulate_iteration_times(cfg, model, n_iterations, rng, cr_loads=loads)
    cr_mean = res["CR"].mean
    rows = []
    for name in ("UMW", "GC", "SGD", "RAR", "CR"):
        t = res[name]
        rows.append(
            {
                "scheme": name,
                "mean_iteration_time": t.mean,
                "std": float(np.std(t.times)),
                "load_points": t.load_points,
                "busiest_node_messages": t.busiest_messages,
                "busiest_node_gradients": t.busiest_gradients,
                "cr_speedup_ours": t.mean / cr_mean,
                "cr_speedup_paper": PAPER_SPEEDUPS["fig2"].get(name, np.nan),
            }
        )
    return pd.DataFrame(rows).set_index("scheme")


def replica_seeds(seed: int, n_seeds: int) -> list[int]:
    """``n_seeds`` independent seeds derived from one notebook ``seed``
    (``numpy.random.SeedSequence(seed).spawn``); the same inputs give the same list.
    """
    seed = check_int("seed", seed, 0)
    n_seeds = check_int("n_seeds", n_seeds, 1)
    return [int(ss.generate_state(1)[0]) for ss in np.random.SeedSequence(seed).spawn(n_seeds)]


@dataclass(frozen=True)
class Fig2SeedsResult:
    """Fig. 2 over independent seeds, from :func:`fig2_over_seeds`.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per scheme (index ``scheme``): the per-iteration costs of
        :func:`fig2_iteration_times`, ``mean_iteration_time`` (mean over seeds, [s]) with its
        95 % t-interval ``time_ci_low`` / ``time_ci_high`` [s], ``cr_speedup_ours`` (geometric
        mean of the paired per-seed ratios) with ``speedup_ci_low`` / ``speedup_ci_high``,
        ``cr_speedup_paper`` and ``seeds``.
    per_seed : pandas.DataFrame
        Tidy: ``seed``, ``scheme``, ``mean_iteration_time`` [s], ``cr_speedup_ours``.
    """

    summary: pd.DataFrame
    per_seed: pd.DataFrame


def fig2_over_seeds(
    n: int = 4,
    L: int = 3,
    s: int = 1,
    d: int = 7644,
    model: TimingModel | None = None,
    n_iterations: int = 300,
    seeds=(0, 1),
) -> Fig2SeedsResult:
    """Fig. 2 over independent seeds: one :func:`fig2_iteration_times` run per seed.

    Returns ``per_seed`` (tidy: seed, scheme, mean iteration time [s], CR's speedup)
    and ``summary`` (one row per scheme: the per-iteration costs, the mean over seeds of the
    mean iteration time with its 95 % t-interval, and CR's speedup as the geometric mean of
    the paired per-seed ratios with its 95 % interval, beside the paper's number).
    """
    from codedlib.claims import mean_interval, ratio_interval

    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds must hold at least one seed, got seeds=[]")
    frames = [
        fig2_iteration_times(n, L, s, d, model=model, n_iterations=n_iterations, rng=seed)
        .reset_index()
        .assign(seed=seed)
        for seed in seeds
    ]
    per_seed = pd.concat(frames, ignore_index=True)[
        ["seed", "scheme", "mean_iteration_time", "cr_speedup_ours"]
    ]
    summary = frames[0].set_index("scheme").drop(columns=["seed", "std"])
    times = per_seed.pivot(index="seed", columns="scheme", values="mean_iteration_time")
    for name in summary.index:
        # one seed: a point without an interval (NaN bounds), never a zero-width "CI"
        m, lo, hi = (
            mean_interval(times[name]) if len(seeds) > 1 else (times[name].iloc[0], np.nan, np.nan)
        )
        r, rlo, rhi = (
            ratio_interval(times[name], times["CR"])
            if len(seeds) > 1
            else (times[name].iloc[0] / times["CR"].iloc[0], np.nan, np.nan)
        )
        summary.loc[name, "mean_iteration_time"] = m
        summary.loc[name, "time_ci_low"] = lo
        summary.loc[name, "time_ci_high"] = hi
        summary.loc[name, "cr_speedup_ours"] = r
        summary.loc[name, "speedup_ci_low"] = rlo
        summary.loc[name, "speedup_ci_high"] = rhi
    summary["seeds"] = len(seeds)
    return Fig2SeedsResult(summary=summary, per_seed=per_seed)


def model_speedup_range(
    settings: dict,
    bandwidths=(1.25e6, 1.25e7, 1.25e8, 1.25e9),
    latencies=(5e-5, 3e-4, 2e-3),
    a_mus=(0.1, 1.0, 10.0),
    straggle_delays=(0.0, 0.3, 3.0),
    straggle_prob: float = 0.02,
    a: float = 5e-5,
    n_iterations: int = 100,
    rng=0,
) -> pd.DataFrame:
    """CR's speedup (ratio of mean iteration times) over every scheme across the simulated
    cluster's physical constants, to see which paper numbers the model can produce at all.

    ``settings`` maps a label to ``(n, L, s, d, p)``. Every bandwidth [bytes/s] x latency [s]
    x ``a mu`` x straggler delay ``D`` (probability ``straggle_prob``) runs on one set of
    delay draws. Tidy output: label, n, L, s, N, bandwidth, latency, a_mu, straggle_delay,
    scheme, cr_speedup. For slow networks the master-worker schemes approach the
    communication-bound limits ``N / (L (n - s))`` (UMW) and ``(N - S) / (L (n - s))`` (GC,
    SGD).
    """
    gen = as_generator(rng)
    rows = []
    for label, (n, L, s, d, p) in settings.items():
        cfg = ClusterConfig(n, L, s, d)
        draws = draw_delays(n_iterations, cfg.N, gen)
        loads = _allocation(n, L, s, d).load_points
        models, rar_ready, rar_tau = [], [], []
        for bw in bandwidths:
            for lat in latencies:
                for a_mu in a_mus:
                    for delay in straggle_delays:
                        model = TimingModel(
                            a=a,
                            mu=a_mu / a,
                            network=Network(lat, bw),
                            gradient_numbers=p,
                            straggle_prob=straggle_prob,
                            straggle_delay=delay,
                        )
                        models.append((bw, lat, a_mu, delay, model))
                        rar_ready.append(model.compute_times(cfg.d / cfg.N, draws))
                        rar_tau.append(np.full(len(draws), model.message_time(1.0 / cfg.N)))
        # every RAR model of this setting in one pass (rows stacked model after model)
        finish = ring_allreduce_finish(np.vstack(rar_ready), np.concatenate(rar_tau))
        rar_means = finish.reshape(len(models), len(draws)).mean(axis=1)
        for (bw, lat, a_mu, delay, model), rar in zip(models, rar_means):
            res = simulate_iteration_times(
                cfg, model, draws=draws, cr_loads=loads, schemes=("UMW", "GC", "SGD", "CR")
            )
            cr = res["CR"].mean
            for name in ("UMW", "GC", "SGD", "RAR"):
                value = rar if name == "RAR" else res[name].mean
                rows.append(
                    {
                        "label": label,
                        "n": n,
                        "L": L,
                        "s": s,
                        "N": cfg.N,
                        "bandwidth": bw,
                        "latency": lat,
                        "a_mu": a_mu,
                        "straggle_delay": delay,
                        "scheme": name,
                        "cr_speedup": value / cr,
                    }
                )
    return pd.DataFrame(rows)


def speedup_range_summary(tidy: pd.DataFrame, at: dict | None = None) -> pd.DataFrame:
    """Per label and scheme: the smallest and largest CR speedup over the sweep of
    :func:`model_speedup_range` and the communication-bound limit.
    """
    rows = []
    for (label, scheme), g in tidy.groupby(["label", "scheme"], sort=False):
        n, L, s, N = (int(g[k].iloc[0]) for k in ("n", "L", "s", "N"))
        S = int(np.floor(s / n * N + 1e-9))
        limit = {
            "UMW": N / (L * (n - s)),
            "GC": (N - S) / (L * (n - s)),
            "SGD": (N - S) / (L * (n - s)),
        }.get(scheme, np.nan)
        rows.append(
            {
                "label": label,
                "scheme": scheme,
                "min": float(g["cr_speedup"].min()),
                "max": float(g["cr_speedup"].max()),
                "communication_bound_limit": limit,
            }
        )
    return pd.DataFrame(rows).set_index(["label", "scheme"])


def _figure_tree(figure: str) -> tuple[int, int, int, int]:
    """(n, L, s, timing d) of a paper figure (Fig. 2 is Fig. 10's N = 84 linear setting)."""
    return (4, 3, 1, 7644) if figure == "fig2" else FIGURE_SETTINGS[figure][1:5]


def cr_rar_network_table(
    model: TimingModel | None = None,
    figures=tuple(PAPER_SPEEDUPS),
    n_iterations: int = 200,
    straggle_prob: float = 0.005,
    straggle_delay: float = 3.0,
    rng=0,
) -> pd.DataFrame:
    """Per paper figure: the constant-free bound on its printed UMW and RAR speedups, and
    where CR and RAR tie on the single-port α–β network (CR Sec. III-C model).

    Whatever the constants, UMW and RAR wait for the same slowest worker with the same load
    and UMW's master then receives at most N messages, while CR's slowest path receives
    L(n − s): UMW/CR − RAR/CR ≤ N/(L(n − s)) (``bound``; ``paper_gap`` is the printed
    UMW − RAR speedups, ``breaks`` when it exceeds the bound). UMW/CR alone has no ceiling
    (``umw_over_cr_straggling``: ``straggle_prob``, ``straggle_delay`` added). On ``model``'s
    network: ``rar_over_cr`` (mean iteration times, same draws), ``break_even_latency`` (the
    per-message latency at which they tie, bandwidth held; NaN when none in [1 µs, 1 s]),
    ``rar_over_cr_float32`` (t_c = 0.05 s read as a float32 model: half the bandwidth for the
    float64 gradients of Figs. 2, 8–12; Fig. 13 unchanged) and the model download that no
    iteration time charges: ``download`` = L·n·t_c down CR's tree (RAR needs none), with its
    ``download_share`` of CR's iteration.
    """
    from scipy.optimize import brentq

    model = TimingModel() if model is None else model
    gen = as_generator(rng)
    rows = []
    for figure in figures:
        n, L, s, d = _figure_tree(figure)
        cfg = ClusterConfig(n, L, s, d)
        m = figure_model(figure, model)
        draws = draw_delays(n_iterations, cfg.N, gen)
        loads = _allocation(n, L, s, d).load_points

        def means(mod, schemes=("RAR", "CR"), cfg=cfg, draws=draws, loads=loads):
            res = simulate_iteration_times(cfg, mod, draws=draws, cr_loads=loads, schemes=schemes)
            return {k: v.mean for k, v in res.items()}

        def log_ratio(log_lat, m=m, means=means):
            t = means(replace(m, network=replace(m.network, latency=float(np.exp(log_lat)))))
            return np.log(t["RAR"] / t["CR"])

        lo, hi = np.log(1e-6), np.log(1.0)
        tie = (
            float(np.exp(brentq(log_ratio, lo, hi, xtol=1e-4)))
            if log_ratio(lo) * log_ratio(hi) < 0
            else np.nan
        )
        f32 = (
            m
            if figure == "fig13"
            else replace(m, network=replace(m.network, bandwidth=m.network.bandwidth / 2))
        )
        t = means(m)
        strag = means(
            replace(m, straggle_prob=straggle_prob, straggle_delay=straggle_delay),
            ("UMW", "RAR", "CR"),
        )
        paper = PAPER_SPEEDUPS[figure]
        bound = cfg.N / (L * (n - s))
        rows.append(
            {
                "figure": figure,
                "N": cfg.N,
                "tree": f"({n}, {L}), s = {s}",
                "bound": bound,
                "paper_gap": paper["UMW"] - paper["RAR"],
                "breaks": paper["UMW"] - paper["RAR"] > bound,
                "umw_over_cr_straggling": strag["UMW"] / strag["CR"],
                "gap_straggling": (strag["UMW"] - strag["RAR"]) / strag["CR"],
                "rar_over_cr": t["RAR"] / t["CR"],
                "break_even_latency": tie,
                "rar_over_cr_float32": (lambda u: u["RAR"] / u["CR"])(means(f32)),
                "download": L * n * m.t_c,
                "download_share": L * n * m.t_c / t["CR"],
            }
        )
    return pd.DataFrame(rows).set_index("figure")


def speedup_verdict(paper: float, value: float, lo: float, hi: float, rtol: float = 0.0) -> str:
    """Verdict of a 'CR is p× faster' row: ``reproduced within CI`` when our interval holds
    ``paper`` and excludes 1; ``inconclusive`` when it holds both ``paper`` and 1; ``not
    reproduced`` when it does not show CR faster by 10 % (``hi < 1.1``: no speedup to speak of); ``reproduced`` when ``value`` is within ``rtol`` of
    ``paper`` (a simulation-vs-simulation tolerance, stated in the row); ``direction only``
    when the effect |log ratio| is off by more than 2× (:func:`codedlib.claims.magnitude_factor`);
    else ``partly``."""
    if lo <= 1.0:
        return "inconclusive" if paper <= hi else "not reproduced"
    if lo <= paper <= hi:
        return "reproduced within CI"
    if hi < 1.1:
        return "not reproduced"
    if abs(value / paper - 1.0) <= rtol:
        return "reproduced"
    return "direction only" if magnitude_factor(value, paper, paper) > 2.0 else "partly"


def network_reason(row: pd.Series, figure: str, scheme: str, latency: float) -> str:
    """What :func:`cr_rar_network_table`'s ``row`` says about a UMW or RAR speedup row of
    ``figure`` (empty for the other schemes)."""
    paper = PAPER_SPEEDUPS[figure]
    if scheme == "UMW":
        fits = "breaks" if row["breaks"] else "fits"
        return (
            f"UMW/CR alone has no ceiling (UMW waits for every straggler: "
            f"{row['umw_over_cr_straggling']:.3g}× with stragglers added, see the bound table); "
            f"the model bounds UMW/CR − RAR/CR ≤ N/(L(n − s)) = {row['bound']:.3g} for any "
            f"constants, and the printed {paper['UMW']:g} − {paper['RAR']:g} = "
            f"{row['paper_gap']:.3g} {fits} it"
            + (
                ": the paper's UMW and RAR numbers cannot both come from one single-port network"
                if row["breaks"]
                else ""
            )
        )
    if scheme == "RAR":
        tie = row["break_even_latency"]
        tie_text = (
            f"CR and RAR tie at a per-message latency of {1e3 * tie:.2g} ms on this bandwidth "
            f"(ours {1e3 * latency:g} ms)"
            if np.isfinite(tie)
            else "CR and RAR do not tie for any latency in [1 µs, 1 s] on this bandwidth"
        )
        return (
            f"{tie_text}; reading t_c = 0.05 s as a float32 model gives RAR/CR = "
            f"{row['rar_over_cr_float32']:.3g}; not charged: the model download, "
            f"L·n·t_c = {1e3 * row['download']:.3g} ms down CR's tree "
            f"({100 * row['download_share']:.0f} % of its iteration), none for RAR"
        )
    return ""


def time_breakdown(
    n: int = 4,
    L: int = 3,
    s: int = 1,
    d: int = 7644,
    model: TimingModel | None = None,
    n_iterations: int = 300,
    rng=0,
    cr_loads=None,
) -> pd.DataFrame:
    """Where each scheme's iteration time goes (CR Section III-C model).

    Three parts of the mean iteration time, measured by re-running the same schemes:
    ``computation`` = the shift ``a d_i`` of the scheme's load (what a worker computes with no
    randomness), ``communication`` = the iteration time with every draw at zero (no tail, no
    straggler) minus that shift, and ``straggling`` = the rest (waiting for the slow draws).
    Returns one row per scheme with the three parts [s], their shares (``computation_share``,
    ``communication_share``, ``straggling_share``) and the ``total``.
    """
    cfg = ClusterConfig(n, L, s, d)
    model = TimingModel() if model is None else model
    if cr_loads is None:
        cr_loads = _allocation(n, L, s, d).load_points
    draws = draw_delays(n_iterations, cfg.N, rng)
    full = simulate_iteration_times(cfg, model, draws=draws, cr_loads=cr_loads)
    calm = simulate_iteration_times(cfg, model, draws=np.zeros((1, cfg.N)), cr_loads=cr_loads)
    rows = []
    for name in SCHEMES:
        shift = model.a * (float(np.max(cr_loads)) if name == "CR" else full[name].load_points)
        comm = calm[name].mean - shift
        total = full[name].mean
        rows.append(
            {
                "scheme": name,
                "computation": shift,
                "communication": comm,
                "straggling": total - calm[name].mean,
                "total": total,
            }
        )
    out = pd.DataFrame(rows).set_index("scheme")
    for part in ("computation", "communication", "straggling"):
        out[f"{part}_share"] = out[part] / out["total"]
    return out


def regime_map(
    bandwidths=None,
    latencies=None,
    straggle_delays=(0.0, 0.1, 0.3, 1.0),
    straggle_prob: float = 0.02,
    n: int = 4,
    L: int = 3,
    s: int = 1,
    d: int = 7644,
    p: int = 6500,
    model: TimingModel | None = None,
    n_iterations: int = 200,
    rng=0,
) -> pd.DataFrame:
    """Where CR beats RAR: mean iteration time of every scheme over bandwidth [bytes/s] x
    latency [s] x straggler delay ``D`` (each worker-iteration straggles with probability
    ``straggle_prob``), on one set of draws. Tidy: bandwidth, latency, straggle_delay, scheme,
    mean_time, plus ``cr_over_rar`` = RAR's time / CR's (above 1: CR faster).
    """
    bandwidths = np.geomspace(1.25e6, 1.25e9, 13) if bandwidths is None else bandwidths
    latencies = np.geomspace(1e-5, 1e-2, 13) if latencies is None else latencies
    base = TimingModel() if model is None else model
    cfg = ClusterConfig(n, L, s, d)
    draws = draw_delays(n_iterations, cfg.N, rng)
    loads = _allocation(n, L, s, d).load_points
    rows = []
    for delay in straggle_delays:
        for bw in bandwidths:
            models = [
                replace(
                    base,
                    network=Network(float(lat), float(bw)),
                    gradient_numbers=p,
                    straggle_prob=straggle_prob,
                    straggle_delay=float(delay),
                )
                for lat in latencies
            ]
            ready = np.vstack([m.compute_times(cfg.d / cfg.N, draws) for m in models])
            taus = np.concatenate(
                [np.full(len(draws), m.message_time(1.0 / cfg.N)) for m in models]
            )
            rar = ring_allreduce_finish(ready, taus).reshape(len(models), -1).mean(axis=1)
            for lat, m, rar_mean in zip(latencies, models, rar):
                cr = cr_times(cfg, m, draws, loads=loads).mean
                rows.append(
                    {
                        "bandwidth": float(bw),
                        "latency": float(lat),
                        "straggle_delay": float(delay),
                        "rar": float(rar_mean),
                        "cr": cr,
                        "cr_over_rar": float(rar_mean) / cr,
                    }
                )
    return pd.DataFrame(rows)


def calibrate_straggle_delay(
    target: float,
    scheme: str = "RAR",
    n: int = 4,
    L: int = 3,
    s: int = 1,
    d: int = 7644,
    model: TimingModel | None = None,
    straggle_prob: float = 0.02,
    n_iterations: int = 300,
    rng=0,
    bracket=(0.0, 10.0),
    tol: float = 1e-3,
) -> float:
    """The straggler delay ``D`` [s] at which CR's speedup over ``scheme`` (ratio of mean
    iteration times, same draws) equals ``target``; bisection (the ratio grows with ``D`` for
    schemes that wait for every worker). The result is a **calibrated** parameter.
    """
    target = check_real("target", target, 0.0, low_open=True)
    base = TimingModel() if model is None else model
    cfg = ClusterConfig(n, L, s, d)
    draws = draw_delays(n_iterations, cfg.N, rng)
    loads = _allocation(n, L, s, d).load_points

    def ratio(delay):
        m = replace(base, straggle_prob=straggle_prob, straggle_delay=delay)
        res = simulate_iteration_times(cfg, m, draws=draws, cr_loads=loads, schemes=(scheme, "CR"))
        return res[scheme].mean / res["CR"].mean

    lo, hi = bracket
    if not ratio(lo) <= target <= ratio(hi):
        raise ValueError(
            f"target must lie between the speedups at D = {lo} and {hi} "
            f"({ratio(lo):.3g}, {ratio(hi):.3g}), got target={target}"
        )
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ratio(mid) < target else (lo, mid)
    return 0.5 * (lo + hi)


# --------------------------------------------------------------------------------------
# Convergence figures 8-13
# --------------------------------------------------------------------------------------
def _problem(task: str, quick: bool, rng):
    from codedlib.problems import (
        LeastSquares,
        LogisticRegression,
        SoftmaxRegression,
        digits_binary,
        digits_multiclass,
        synthetic_linear_regression,
    )

    if task == "logistic":
        data = digits_binary(4, 9)
        prob = LogisticRegression(data.X, data.y, lam=1.0 / data.X.shape[0])
        return prob, data, "relative error rate (9)"
    if task == "linear":
        d_learn, p_learn = (478, 406) if quick else (956, 812)  # paper (7644, 6500) / 16, / 8
        data = synthetic_linear_regression(d_learn, p_learn, noise=1.0, rng=rng)
        return LeastSquares(data.X, data.y), data, "normalized error rate (11)"
    if task == "softmax":
        data = digits_multiclass()
        prob = SoftmaxRegression(data.X, data.y, 10, lam=1.0 / data.X.shape[0])
        return prob, data, "test accuracy"
    raise ValueError(f"task must be 'logistic', 'linear' or 'softmax', got task={task!r}")


def _metric(task, prob, data, theta, previous):
    if task == "logistic":
        denom = float(previous @ previous)
        return float(np.sum((theta - previous) ** 2) / denom) if denom > 0 else np.nan
    if task == "linear":
        ts = data.theta_star
        return float(np.sum((theta - ts) ** 2) / np.sum(ts**2))
    return 1.0 - prob.error_rate(theta, data.X_test, data.y_test)


def _worker_ranges(n_samples, N):
    bounds = np.linspace(0, n_samples, N + 1).round().astype(int)
    return bounds[:-1], bounds[1:]


@contextlib.contextmanager
def _one_blas_thread():
    """Run the optimisation's small dense products on one BLAS thread: for matrices of a few
    hundred rows threading only adds overhead, and on a shared machine (2 cores, several
    processes) oversubscribed BLAS threads made them ~10x slower. No-op without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@functools.lru_cache(maxsize=32)
def _allocation(n: int, L: int, s: int, d: int):
    """The default CR allocation of a tree (deterministic; cached, never mutated)."""
    return allocate(n, L, s, d)


@functools.lru_cache(maxsize=32)
def _gc_code(N: int, S: int):
    """The default cyclic-repetition code (deterministic; cached with its decoder's SVD)."""
    return cyclic_repetition_code(N, S)


def _verify_coded(prob, cfg, theta, model, rng) -> dict:
    """Run the actual CR and GC coded computations once on the real problem and compare the
    decoded gradient with the true one (relative error)."""
    true = prob.partial_gradient(theta)
    draws = draw_delays(1, cfg.N, rng)
    alloc = _allocation(cfg.n, cfg.L, cfg.s, prob.n_samples)
    _, survivors = cr_times(cfg, model, draws, loads=alloc.load_points, return_survivors=True)
    local = np.zeros((cfg.N + 1, prob.dim))
    for nd in alloc.nodes[1:]:
        if nd.n_points:
            local[nd.rank] = nd.local_data.gradient(lambda a, b: prob.partial_gradient(theta, a, b))
    cr_grad, _ = execute(alloc, local, survivors={p: v[0] for p, v in survivors.items()})
    out = {"CR": float(np.max(np.abs(cr_grad - true)) / np.max(np.abs(true)))}
    # GC: cyclic code over N partitions, the first N - S finishers
    code = _gc_code(cfg.N, cfg.S)
    starts, stops = _worker_ranges(prob.n_samples, cfg.N)
    parts = np.array([prob.partial_gradient(theta, a, b) for a, b in zip(starts, stops)])
    # equal GC loads: the first N - S finishers are the smallest draws
    order = np.argsort(draws[0], kind="stable")[: cfg.N - cfg.S]
    a = code.decode(np.sort(order))
    out["GC"] = float(np.max(np.abs(a @ (code.B @ parts) - true)) / np.max(np.abs(true)))
    return out


def _step_size(prob) -> float:
    """1 / smoothness, with the top eigenvalue of X^T X / n by power iteration (cheaper than
    the full SVD for the larger synthetic problems)."""
    from codedlib.problems import LeastSquares, LogisticRegression, SoftmaxRegression

    X = prob.X
    v = np.ones(X.shape[1]) / np.sqrt(X.shape[1])
    top = 0.0
    for _ in range(300):
        w = X.T @ (X @ v)
        new_top = float(np.linalg.norm(w))
        v = w / new_top
        if abs(new_top - top) <= 1e-10 * new_top:
            break
        top = new_top
    top = 1.01 * new_top / X.shape[0]  # small margin: power iteration approaches from below
    factor = {LeastSquares: 1.0, LogisticRegression: 0.25, SoftmaxRegression: 0.5}[type(prob)]
    return 1.0 / (factor * top + getattr(prob, "lam", 0.0))


def _unused_rows(used, starts, stops):
    """Per iteration, the data rows of the workers SGD ignored."""
    out = []
    for mask in used:
        idx = np.flatnonzero(~mask)
        rows = [np.arange(starts[j], stops[j]) for j in idx]
        out.append(np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64))
    return out


def _run_sgd(prob, theta0, unused, c1, c2, n_iter):
    """theta_{t+1} = theta_t - c1/(t + c2) * (mean gradient over the first N - S workers' data)."""
    thetas = [theta0]
    theta = theta0
    n = prob.n_samples
    for t in range(n_iter):
        rows = unused[t]
        total = prob.partial_gradient(theta)
        if rows.size:
            total = total - prob._grad_terms(theta, rows)  # same per-sample terms, index array
        theta = theta - c1 / (t + c2) * total / max(n - rows.size, 1)
        thetas.append(theta)
    return thetas


def _tune_sgd(prob, task, data, theta0, unused, step, n_iter, grid):
    """Pick (c1, c2) of the rate c1/(t + c2) on a small grid (the paper optimised them
    numerically): c2 in grid[0], c1 = k * step * c2 with k in grid[1]; score = final loss
    (logistic), normalised error (linear) or test accuracy (softmax)."""
    best = None
    for c2 in grid[0]:
        for k in grid[1]:
            c1 = k * step * c2
            theta = _run_sgd(prob, theta0, unused, c1, c2, n_iter)[-1]
            if task == "logistic":
                score = float(prob.loss(theta))
            elif task == "linear":
                score = _metric(task, prob, data, theta, theta0)
            else:
                score = -_metric(task, prob, data, theta, theta0)
            if np.isfinite(score) and (best is None or score < best[0]):
                best = (score, c1, c2)
    return best[1], best[2]


@dataclass(frozen=True)
class ConvergenceResult:
    """Error vs wall-clock for one of Figs. 8-13, from :func:`convergence`.

    Attributes
    ----------
    figure : str
        Paper figure (key of :data:`FIGURE_SETTINGS`).
    task : str
        ``"logistic"``, ``"linear"`` or ``"softmax"``.
    metric : str
        Name of the error metric (the y-axis label).
    config : ClusterConfig
        The tree and data size of the timing.
    curves : pandas.DataFrame
        Tidy: ``scheme``, ``iteration``, ``time``, ``error``.
    timings : dict
        Scheme name to its simulated iteration times.
    speedups : pandas.DataFrame
        CR's speedups, ours vs the paper's (:func:`speedups`).
    verification : dict or None
        Relative error of the actually decoded CR and GC gradients; None when not verified.
    sgd_learning_rate : tuple of float
        ``(c1, c2)`` of SGD's rate ``c1/(t + c2)``.
    data : str
        Description of the stand-in data set.
    data_shape : tuple of int
        ``(n_samples, dim)`` of the learning problem.
    n_iterations : int
        Number of iterations.
    """

    figure: str
    task: str
    metric: str
    config: ClusterConfig
    curves: pd.DataFrame
    timings: dict
    speedups: pd.DataFrame
    verification: dict | None
    sgd_learning_rate: tuple
    data: str
    data_shape: tuple
    n_iterations: int


@dataclass(frozen=True)
class ConvergenceSeedsResult:
    """:func:`convergence` over independent seeds, from :func:`convergence_over_seeds`.

    Attributes
    ----------
    figure : str
        Paper figure (key of :data:`FIGURE_SETTINGS`).
    task : str
        ``"logistic"``, ``"linear"`` or ``"softmax"``.
    metric : str
        Name of the error metric (the y-axis label).
    config : ClusterConfig
        The tree and data size of the timing.
    data : str
        Description of the stand-in data set (first seed).
    data_shape : tuple of int
        ``(n_samples, dim)`` of the learning problem.
    n_iterations : int
        Number of iterations per seed.
    sgd_learning_rate : tuple of float
        ``(c1, c2)`` of SGD's rate, shared by every seed.
    seeds : list of int
        The seeds, one run each.
    curves : pandas.DataFrame
        Tidy: ``scheme``, ``iteration``, ``time``, ``error``, ``seed``.
    speedups : pandas.DataFrame
        Tidy per-seed :func:`speedups` with ``scheme`` and ``seed`` columns.
    final : pandas.DataFrame
        ``seed``, ``scheme``, ``final_error``.
    verification : pandas.DataFrame
        ``seed``, ``CR``, ``GC``: relative error of the actually decoded gradients (first seed).
    """

    figure: str
    task: str
    metric: str
    config: ClusterConfig
    data: str
    data_shape: tuple
    n_iterations: int
    sgd_learning_rate: tuple
    seeds: list
    curves: pd.DataFrame
    speedups: pd.DataFrame
    final: pd.DataFrame
    verification: pd.DataFrame


def convergence(
    figure: str = "fig10",
    model: TimingModel | None = None,
    n_iterations: int | None = None,
    quick: bool = False,
    rng=0,
    sgd_learning_rate: tuple[float, float] | None = None,
    verify: bool = True,
) -> ConvergenceResult:
    """Error vs wall-clock for one of Figs. 8-13 (see :data:`FIGURE_SETTINGS`).

    GD-type schemes (UMW, GC, RAR, CR) recover the exact gradient, so they share iterates and
    differ only in time; SGD steps with the first ``N - S`` workers' data and the rate
    ``c1/(t + c2)`` tuned on a small grid unless ``sgd_learning_rate=(c1, c2)`` is given
    (the notebook reuses one tuning per task). Returns ``curves`` (scheme, iteration, time,
    error), ``speedups`` (ours vs paper), ``timings`` and ``verification`` (relative error of
    the actually decoded CR and GC gradients on the real problem, one iteration; skipped,
    and ``None``, with ``verify=False``).
    """
    if figure not in FIGURE_SETTINGS:
        raise ValueError(f"figure must be one of {sorted(FIGURE_SETTINGS)}, got figure={figure!r}")
    task, n, L, s, d_timing, iters = FIGURE_SETTINGS[figure]
    n_iterations = (60 if quick else iters) if n_iterations is None else n_iterations
    n_iterations = check_int("n_iterations", n_iterations, 1)
    model = figure_model(figure, model)
    gen = as_generator(rng)
    cfg = ClusterConfig(n, L, s, d_timing)
    loads = _allocation(n, L, s, d_timing).load_points
    timings = simulate_iteration_times(cfg, model, n_iterations, gen, cr_loads=loads)
    prob, data, metric_name = _problem(task, quick, gen)
    theta0 = 0.01 * gen.standard_normal(prob.dim)
    step = _step_size(prob)
    # GD (shared by the exact schemes)
    theta = theta0
    gd_errors, prev = [], theta0
    for _ in range(n_iterations):
        theta = theta - step * prob.gradient(theta)
        gd_errors.append(_metric(task, prob, data, theta, prev))
        prev = theta
    # SGD on the first N - S workers of every iteration (same draws as the timing)
    starts, stops = _worker_ranges(prob.n_samples, cfg.N)
    unused = _unused_rows(timings["SGD"].used_workers, starts, stops)
    if sgd_learning_rate is None:
        grid = ([10.0, 100.0], [0.5, 1.0]) if quick else ([10.0, 100.0, 1000.0], [0.5, 1.0])
        c1, c2 = _tune_sgd(prob, task, data, theta0, unused, step, n_iterations, grid)
    else:
        c1, c2 = (
            check_real("c1", sgd_learning_rate[0], 0.0),
            check_real("c2", sgd_learning_rate[1], 0.0),
        )
    sgd_thetas = _run_sgd(prob, theta0, unused, c1, c2, n_iterations)
    sgd_errors = [
        _metric(task, prob, data, sgd_thetas[t + 1], sgd_thetas[t]) for t in range(n_iterations)
    ]
    frames = []
    for name in SCHEMES:
        errors = sgd_errors if name == "SGD" else gd_errors
        frames.append(
            pd.DataFrame(
                {
                    "scheme": name,
                    "iteration": np.arange(1, n_iterations + 1),
                    "time": np.cumsum(timings[name].times),
                    "error": errors,
                }
            )
        )
    curves = pd.concat(frames, ignore_index=True)
    verification = _verify_coded(prob, cfg, theta0, model, gen) if verify else None
    return ConvergenceResult(
        figure=figure,
        task=task,
        metric=metric_name,
        config=cfg,
        curves=curves,
        timings=timings,
        speedups=speedups(curves, figure, higher_is_better=(task == "softmax")),
        verification=verification,
        sgd_learning_rate=(c1, c2),
        data=data.description,
        data_shape=(int(prob.n_samples), int(prob.dim)),
        n_iterations=n_iterations,
    )


def coded_gradient_descent(
    figure: str = "fig8",
    n_iterations: int = 300,
    model: TimingModel | None = None,
    quick: bool = False,
    rng=0,
) -> pd.DataFrame:
    """Gradient descent whose every gradient goes through the schemes' actual codes.

    On the figure's learning problem (its tree; the data split by the actual allocation of
    the problem's ``d`` points), each iteration draws the delays, takes the children each CR
    parent combines first (single-port timing of :func:`cr_times`) and runs CR.EXECUTE
    (Algorithm 2) on the real local gradients; GC decodes the first ``N - S`` finishers of the
    cyclic-repetition code (Tandon et al.); RAR and UMW sum the workers' partial gradients.
    Each scheme steps from its own iterate. Returns per iteration and scheme the relative
    distance ``||theta_scheme - theta_GD|| / ||theta_GD||`` to centralised GD and the
    gradient's relative decoding error: all exact schemes must stay at rounding level.
    """
    if figure not in FIGURE_SETTINGS:
        raise ValueError(f"figure must be one of {sorted(FIGURE_SETTINGS)}, got figure={figure!r}")
    n_iterations = check_int("n_iterations", n_iterations, 1)
    task, n, L, s, _, _ = FIGURE_SETTINGS[figure]
    model = figure_model(figure, model)
    gen = as_generator(rng)
    prob, _, _ = _problem(task, quick, gen)
    d = prob.n_samples
    cfg = ClusterConfig(n, L, s, d)
    alloc = _allocation(n, L, s, d)
    draws = draw_delays(n_iterations, cfg.N, gen)
    _, survivors = cr_times(cfg, model, draws, loads=alloc.load_points, return_survivors=True)
    code = _gc_code(cfg.N, cfg.S)
    starts, stops = _worker_ranges(d, cfg.N)
    gc_ready = model.compute_times((cfg.S + 1) * d / cfg.N, draws)
    step = _step_size(prob)
    theta0 = 0.01 * gen.standard_normal(prob.dim)
    thetas = dict.fromkeys(("GD", "UMW", "RAR", "GC", "CR"), theta0)
    rows = []

    def parts(theta):
        return np.array([prob.partial_gradient(theta, a, b) for a, b in zip(starts, stops)])

    with _one_blas_thread():
        for t in range(n_iterations):
            grads = {"GD": prob.partial_gradient(thetas["GD"])}
            grads["UMW"] = parts(thetas["UMW"]).sum(axis=0)
            grads["RAR"] = np.sum(parts(thetas["RAR"])[::-1], axis=0)  # the ring's order
            finishers = np.sort(np.argsort(gc_ready[t], kind="stable")[: cfg.N - cfg.S])
            grads["GC"] = code.decode(finishers) @ (code.B @ parts(thetas["GC"]))
            theta_cr = thetas["CR"]
            local = np.zeros((cfg.N + 1, prob.dim))
            for nd in alloc.nodes[1:]:
                if nd.n_points:
                    local[nd.rank] = nd.local_data.gradient(
                        lambda a, b, th=theta_cr: prob.partial_gradient(th, a, b)
                    )
            grads["CR"], _ = execute(
                alloc, local, survivors={q: v[t] for q, v in survivors.items()}
            )
            for name, g in grads.items():
                if name != "GD":
                    exact = prob.partial_gradient(thetas[name])
                    rows.append(
                        {
                            "iteration": t + 1,
                            "scheme": name,
                            "gradient_error": float(
                                np.linalg.norm(g - exact) / np.linalg.norm(exact)
                            ),
                        }
                    )
                thetas[name] = thetas[name] - step * g / d
            ref = np.linalg.norm(thetas["GD"])
            for row in rows[-4:]:
                row["distance_to_gd"] = float(
                    np.linalg.norm(thetas[row["scheme"]] - thetas["GD"]) / ref
                )
    return pd.DataFrame(rows)


def convergence_over_seeds(
    figure: str = "fig10",
    model: TimingModel | None = None,
    n_iterations: int | None = None,
    quick: bool = False,
    seeds=(0, 1),
    sgd_learning_rate: tuple[float, float] | None = None,
) -> ConvergenceSeedsResult:
    """:func:`convergence` once per independent seed (fresh delay draws, initial point and,
    for the synthetic task, data set per seed), as tidy tables with a ``seed`` column.

    SGD's rate ``c1/(t + c2)`` is tuned on the first seed unless ``sgd_learning_rate`` is
    given, then reused for every seed. Returns ``curves`` (seed, scheme, iteration, time,
    error), ``speedups`` (seed, scheme and the columns of :func:`speedups`), ``final``
    (seed, scheme, final_error), ``verification`` (seed, CR, GC: relative error of
    the actually decoded gradient at the initial point; one coded execution, on the first
    seed), and the run's ``config``, ``task``, ``metric``, ``data``, ``data_shape``,
    ``n_iterations`` and ``sgd_learning_rate``.
    """
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds must hold at least one seed, got seeds=[]")
    rate = sgd_learning_rate
    runs = []
    with _one_blas_thread():
        for seed in track(seeds, f"{figure} seeds"):
            res = convergence(
                figure,
                model=model,
                n_iterations=n_iterations,
                quick=quick,
                rng=seed,
                sgd_learning_rate=rate,
                verify=not runs,
            )
            rate = res.sgd_learning_rate
            runs.append((seed, res))
    first = runs[0][1]
    curves = pd.concat([r.curves.assign(seed=seed) for seed, r in runs], ignore_index=True)
    speeds = pd.concat(
        [r.speedups.reset_index().assign(seed=seed) for seed, r in runs], ignore_index=True
    )
    final = (
        curves.sort_values("iteration")
        .groupby(["seed", "scheme"], sort=False)["error"]
        .last()
        .rename("final_error")
        .reset_index()
    )
    verification = pd.DataFrame(
        [{"seed": seed, **r.verification} for seed, r in runs if r.verification is not None]
    )
    return ConvergenceSeedsResult(
        figure=figure,
        task=first.task,
        metric=first.metric,
        config=first.config,
        data=first.data,
        data_shape=first.data_shape,
        n_iterations=first.n_iterations,
        sgd_learning_rate=rate,
        seeds=seeds,
        curves=curves,
        speedups=speeds,
        final=final,
        verification=verification,
    )


def speedup_intervals(speedups: pd.DataFrame) -> pd.DataFrame:
    """Per scheme, from the tidy ``speedups`` of :func:`convergence_over_seeds`: CR's speedup
    to target and the mean-iteration-time ratio as geometric means of the per-seed ratios with
    95 % paired log-ratio t-intervals (one seed gives a point, NaN bounds), beside the paper's number.
    """
    from codedlib.claims import ratio_interval

    rows = []
    for name, g in speedups.groupby("scheme", sort=False):
        one = len(g) < 2
        to_target = (
            (g["cr_speedup_to_target_ours"].iloc[0], np.nan, np.nan)
            if one
            else ratio_interval(g["time_to_target"], g["cr_time_to_target"])
        )
        per_iter = (
            (g["mean_iteration_time_ratio_ours"].iloc[0], np.nan, np.nan)
            if one
            else ratio_interval(g["mean_iteration_time_ratio_ours"], np.ones(len(g)))
        )
        rows.append(
            {
                "scheme": name,
                "cr_speedup_paper": g["cr_speedup_paper"].iloc[0],
                "to_target_ours": to_target[0],
                "to_target_ci_low": to_target[1],
                "to_target_ci_high": to_target[2],
                "mean_iteration_time_ratio_ours": per_iter[0],
                "ratio_ci_low": per_iter[1],
                "ratio_ci_high": per_iter[2],
                "seeds": len(g),
            }
        )
    return pd.DataFrame(rows).set_index("scheme")


def _time_to_reach(curve: pd.DataFrame, target: float, higher_is_better: bool) -> float:
    err = curve["error"].to_numpy()
    ok = err >= target if higher_is_better else err <= target
    if not np.any(ok):
        return np.nan
    return float(curve["time"].to_numpy()[np.argmax(ok)])


def speedups(curves: pd.DataFrame, figure: str | None = None, higher_is_better=False):
    """CR's speedup over each scheme: time to reach the best error both reach, and the ratio
    of mean iteration times, beside the paper's number for ``figure``.
    """
    check_frame("curves", curves, ("scheme", "time", "error"))
    cr = curves[curves.scheme == "CR"]
    rows = []
    for name in ("UMW", "GC", "RAR", "SGD"):
        other = curves[curves.scheme == name]
        if other.empty:
            continue
        pick = np.nanmax if higher_is_better else np.nanmin
        best_other, best_cr = pick(other["error"]), pick(cr["error"])
        target = min(best_other, best_cr) if higher_is_better else max(best_other, best_cr)
        t_other = _time_to_reach(other, target, higher_is_better)
        t_cr = _time_to_reach(cr, target, higher_is_better)
        rows.append(
            {
                "scheme": name,
                "target_error": target,
                "time_to_target": t_other,
                "cr_time_to_target": t_cr,
                "cr_speedup_to_target_ours": t_other / t_cr,
                "mean_iteration_time_ratio_ours": other["time"].iloc[-1] / cr["time"].iloc[-1],
                "cr_speedup_paper": PAPER_SPEEDUPS.get(figure, {}).get(name, np.nan),
            }
        )
    return pd.DataFrame(rows).set_index("scheme")


def load_table(n: int = 12, L: int = 2, alphas=(1 / 12, 2 / 12, 3 / 12), d: int = 6552):
    """Per-worker loads of GC and CR for the paper's N = 156 settings (points and fraction)."""
    rows = []
    N = n_tree_workers(n, L)
    for alpha in alphas:
        s = round(alpha * n)
        S = int(np.floor(alpha * N + 1e-9))
        alloc = allocate(n, L, s, d)
        rows.append(
            {
                "alpha": alpha,
                "s": s,
                "S": S,
                "r_gc": r_gc(N, S),
                "r_cr": r_cr(n, s, L),
                "cr_points_range": f"{alloc.load_points.min()}..{alloc.load_points.max()}",
                "r_cr_d": r_cr(n, s, L) * d,
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class ConfigurationSummaryResult:
    """What the explorer widget shows for one configuration, from
    :func:`configuration_summary`.

    Attributes
    ----------
    n_workers : int
        Number of workers N of the tree.
    alpha : float
        Straggler resiliency s/n.
    stragglers_flat : int
        Stragglers S = floor(alpha N) the flat schemes (GC, SGD) tolerate.
    r_cr : float
        CR's computation load.
    r_gc : float
        GC's computation load at S = alpha N.
    cr_points_per_node : str
        ``"min..max"`` data points per CR node.
    r_cr_d : float
        CR's load in points, r_CR d.
    t_c : float
        Time of one full-gradient message [s].
    rar_segment : float
        Time of one RAR segment message [s].
    allocation : CodedReduceAllocation
        The CR allocation.
    simulation : pandas.DataFrame
        :func:`fig2_iteration_times` of this configuration.
    breakdown : pandas.DataFrame
        :func:`time_breakdown` of this configuration.
    theorem2_lower : float or None
        Theorem 2's lower bound (7) [s]; None when s = 0.
    theorem2_upper : float or None
        Theorem 2's upper bound (8) [s]; None when s = 0.
    """

    n_workers: int
    alpha: float
    stragglers_flat: int
    r_cr: float
    r_gc: float
    cr_points_per_node: str
    r_cr_d: float
    t_c: float
    rar_segment: float
    allocation: object
    simulation: pd.DataFrame
    breakdown: pd.DataFrame
    theorem2_lower: float | None = None
    theorem2_upper: float | None = None


def configuration_summary(
    n: int = 4,
    L: int = 3,
    s: int = 1,
    d: int = 7644,
    a: float = 5e-5,
    mu: float = 2e4,
    bandwidth: float = PAPER_NETWORK.bandwidth,
    latency: float = PAPER_NETWORK.latency,
    gradient_numbers: int = 6500,
    straggle_prob: float = 0.0,
    straggle_delay: float = 0.0,
    n_iterations: int = 200,
    rng=0,
) -> ConfigurationSummaryResult:
    """Everything the explorer widget shows for one configuration: loads (CR vs GC at the
    same alpha), resiliency, message times, Theorem 2 bounds, a fresh simulation of all
    schemes and where their time goes (:func:`time_breakdown`).
    """
    cfg = ClusterConfig(n, L, s, d)
    model = TimingModel(
        a=a,
        mu=mu,
        network=Network(latency, bandwidth),
        gradient_numbers=gradient_numbers,
        straggle_prob=straggle_prob,
        straggle_delay=straggle_delay,
    )
    alloc = allocate(n, L, s, d)
    sim = fig2_iteration_times(n, L, s, d, model, n_iterations, rng)
    bounds = {}
    breakdown = time_breakdown(n, L, s, d, model, n_iterations, rng, cr_loads=alloc.load_points)
    if s >= 1:
        b = theorem2_bounds(n, L, s, d, a, mu, model.t_c)
        bounds = {"theorem2_lower": b["lower"], "theorem2_upper": b["upper"]}
    return ConfigurationSummaryResult(
        n_workers=cfg.N,
        alpha=cfg.alpha,
        stragglers_flat=cfg.S,
        r_cr=r_cr(n, s, L),
        r_gc=r_gc(cfg.N, cfg.S),
        cr_points_per_node=f"{alloc.load_points.min()}..{alloc.load_points.max()}",
        r_cr_d=r_cr(n, s, L) * d,
        t_c=model.t_c,
        rar_segment=model.message_time(1.0 / cfg.N),
        allocation=alloc,
        simulation=sim,
        breakdown=breakdown,
        **bounds,
    )
