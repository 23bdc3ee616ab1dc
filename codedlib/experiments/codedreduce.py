"""One function per CodedReduce figure / table.

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

import functools
import itertools
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import replace
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from codedlib._validation import RngLike, as_generator, check_frame, check_real
from codedlib.claims import magnitude_factor, mean_interval, ratio_interval, spec
from codedlib.codes.codedreduce import (
    allocate,
    execute,
    local_messages_from_point_gradients,
    tree_allocation,
)
from codedlib.codes.cyclic import (
    PAPER_EXAMPLE_A,
    PAPER_EXAMPLE_B,
    cyclic_repetition_code,
    gradient_code_from_matrices,
)
from codedlib.network import Network
from codedlib.replicate import check_seeds, first_reach, over_seeds
from codedlib.schemes.codedreduce import (
    SCHEMES,
    ClusterConfig,
    TimingModel,
    cr_times,
    draw_delays,
    ring_allreduce_finish,
    simulate_iteration_times,
)
from codedlib.theory.codedreduce import (
    alpha_for_load,
    load_vs_alpha,
    n_tree_workers,
    r_cr,
    r_gc,
    table_one,
    theorem2_bounds,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from codedlib.claims import Claim, ClaimsTable
    from codedlib.codes.codedreduce import CodedReduceAllocation

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

#: (n, L, s, d) of Fig. 2: the (4, 3) tree we infer for N = 84, Fig. 10's d.
FIG2_TREE = (4, 3, 1, 7644)
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
GRADIENT_NUMBERS = (
    {"fig2": 6500}
    | dict.fromkeys(("fig8", "fig9a", "fig9b", "fig9c"), 5001)
    | dict.fromkeys(("fig10", "fig11a", "fig11b", "fig11c"), 6500)
    | {"fig12": 5000, "fig13": 120_000}
)


def figure_model(figure: str, model: TimingModel | None = None) -> TimingModel:
    """``model`` (default :class:`TimingModel`) with the gradient size of ``figure``: the
    network is the same for every figure, the message times follow from p.
    """
    if figure not in GRADIENT_NUMBERS:
        raise ValueError(f"figure must be one of {sorted(GRADIENT_NUMBERS)}, got figure={figure!r}")
    model = TimingModel() if model is None else model
    return replace(model, gradient_numbers=GRADIENT_NUMBERS[figure])


def example1_gc(rng: RngLike = 0) -> SimpleNamespace:
    """Example 1 (Fig. 4): GC with N = 3, S = 1 and eq. (4)'s matrices, on random g_k: its
    ``code`` and a ``table`` with one row per straggler."""
    code = gradient_code_from_matrices(PAPER_EXAMPLE_B, 1, PAPER_EXAMPLE_A)
    g = as_generator(rng).standard_normal((3, 2))
    rows = [
        dict(straggler=f"W{f + 1}", decoding_row=np.round(a, 12).tolist())
        | dict(paper_row=PAPER_EXAMPLE_A[f].tolist())
        | dict(max_abs_error=float(np.max(np.abs(a @ code.B @ g - g.sum(0)))))
        for f, a in ((f, code.decode([w for w in range(3) if w != f])) for f in range(3))
    ]
    return SimpleNamespace(code=code, table=pd.DataFrame(rows))


def example2_codedreduce(d: int = 15, rng: RngLike = 0) -> SimpleNamespace:
    """Example 2 (Fig. 7): the (3, 2) tree with s = 1 and eq. (4)'s code, worked numerically.

    Returns the allocation, r_CR, the decoding rows at node (1,1) when (2,3) straggles and at
    the master, the ``messages`` (each followed by what it must equal) and the master's error.
    """
    code = gradient_code_from_matrices(PAPER_EXAMPLE_B, 1, PAPER_EXAMPLE_A)
    alloc = allocate(3, 2, 1, d, code=code)  # checks d
    G = as_generator(rng).standard_normal((d, 2))
    local = local_messages_from_point_gradients(alloc, G)
    gradient, messages = execute(alloc, local, stragglers=[6, 2])  # (2,3) and (1,2) straggle
    g1, g2, g3 = (G[idx].sum(0) for idx in np.array_split(np.arange(d), 3))
    shown = {"m_(1,1)": messages[1], "½g_D1 + g_D2": 0.5 * g1 + g2, "m_(1,3)": messages[3]}
    shown |= {"½g_D1 + g_D3": 0.5 * g1 + g3, "master": gradient, "g_D": G.sum(0)}
    out = dict(allocation=alloc, r_cr=r_cr(3, 1, 2, exact=True), messages=shown)
    out |= dict(decoding_11=alloc.decoding_coefficients([0, 1]))  # node (1,1)
    out |= dict(decoding_master=alloc.decoding_coefficients([0, 2]))
    return SimpleNamespace(**out, max_abs_error=float(np.max(np.abs(gradient - G.sum(0)))))


def load_curves(alphas: ArrayLike | None = None) -> pd.DataFrame:
    """Computation load vs resiliency alpha for L = 1 (GC), 2, 3 (Theorem 1, Remark 2; n → ∞)."""
    alphas = np.linspace(0.02, 0.9, 89) if alphas is None else np.asarray(alphas, dtype=float)
    cols = lambda L: dict(alpha=alphas, L=L, load=load_vs_alpha(alphas, L), alpha_power_l=alphas**L)
    return pd.concat([pd.DataFrame(cols(L)) for L in (1, 2, 3)], ignore_index=True)


def seven_times_claim(alpha: float = 0.5, n: int | None = None) -> SimpleNamespace:
    """Remark 2: at alpha = 0.5, going from 1 layer (GC) to 3 layers cuts the load 7x."""
    one, three = float(load_vs_alpha(alpha, 1, n)), float(load_vs_alpha(alpha, 3, n))
    loads = dict(alpha=alpha, load_one_layer=one, load_three_layers=three)
    return SimpleNamespace(**loads, reduction=one / three)


def table1(N: int = 156, n: int = 12, L: int = 2, s: int = 3) -> pd.DataFrame:
    """Table I at the load of a concrete CR tree (default the paper's (12, 2), alpha = 1/4)."""
    return table_one(N, r_cr(n, s, L), L, n=n)


def theorem2_check(
    ns: Sequence[int] = (8, 16, 32, 64),
    model: TimingModel | None = None,
    n_iterations: int = 400,
    rng: RngLike = 0,
) -> pd.DataFrame:
    """Monte Carlo mean CR iteration time vs Theorem 2's bounds (7)-(8) without their o(.)
    terms, for growing n (L = 2, alpha = 1/4, d = 50 000); every iteration an independent
    replica (``ci_low``..``ci_high``: the normal 95 % interval; ``position``: "below (7)",
    "inside" or "above (8)"). The two gaps a bound can have at finite n, measured apart: the
    exact E[T_(n-s)] of one sibling group (``sibling_order_statistic``) against the
    ``computation_term``, and the rest of the mean (``monte_carlo_rest``: reception, the
    slowest group) against the ``communication_term``.
    """
    model = figure_model("fig13") if model is None else model  # the paper's t_c = 0.05 s
    gen, L, d = as_generator(rng), 2, 50_000
    rows = []
    for n in ns:
        cfg = ClusterConfig(n, L, round(0.25 * n), d)
        times = cr_times(cfg, model, draw_delays(n_iterations, cfg.N, gen)).times
        b = theorem2_bounds(n, L, cfg.s, d, model.a, model.mu, model.t_c)
        mean, se = float(times.mean()), float(times.std(ddof=1) / np.sqrt(times.size))
        lo, hi = mean - 1.96 * se, mean + 1.96 * se
        position = "below (7)" if hi < b["lower"] else "above (8)" if lo > b["upper"] else "inside"
        order_stat = b["sibling_order_statistic"]
        rows.append(
            dict(n=n, s=cfg.s, N=cfg.N, lower_bound=b["lower"], monte_carlo_mean=mean)
            | dict(ci_low=lo, ci_high=hi, upper_bound=b["upper"])
            | dict(within_bounds=b["lower"] <= mean <= b["upper"], position=position)
            | dict(computation_term=b["computation"], sibling_order_statistic=order_stat)
            | dict(communication_term=b["lower_communication"], monte_carlo_rest=mean - order_stat)
            | dict(replicas=int(times.size))
        )
    return pd.DataFrame(rows)


def fig2_iteration_times(
    tree: tuple[int, int, int, int] = FIG2_TREE,
    model: TimingModel | None = None,
    n_iterations: int = 300,
    rng: RngLike = 0,
) -> pd.DataFrame:
    """Fig. 2: average iteration time per scheme on ``tree`` = (n, L, s, d) (the paper's N = 84
    as a (4, 3) tree, alpha = 1/4), with per-iteration costs and CR's speedup beside the paper's.
    """
    cfg, draws, loads = _tree(*tree, n_iterations, rng)
    res = simulate_iteration_times(cfg, model, draws=draws, cr_loads=loads)
    rows = [
        dict(scheme=name, mean_iteration_time=t.mean, std=float(np.std(t.times)))
        | dict(load_points=t.load_points, busiest_node_messages=t.busiest_messages)
        | dict(busiest_node_gradients=t.busiest_gradients, cr_speedup_ours=t.mean / res["CR"].mean)
        | dict(cr_speedup_paper=PAPER_SPEEDUPS["fig2"].get(name, np.nan))
        for name, t in res.items()
    ]
    return pd.DataFrame(rows).set_index("scheme")


def fig2_measure(seed: int, **setting) -> pd.DataFrame:
    """Fig. 2 on one seed (a measure for :func:`codedlib.replicate.over_seeds`): the rows of
    :func:`fig2_iteration_times` (``setting`` its arguments), ``scheme`` a column."""
    return fig2_iteration_times(**setting, rng=seed).reset_index()


def fig2_summary(frame: pd.DataFrame) -> SimpleNamespace:
    """Fig. 2 over seeds from ``over_seeds(fig2_measure, seeds, ...)``: ``summary`` per scheme
    (mean iteration time with its 95 % t-interval and CR's speedup as the geometric mean of the
    paired per-seed ratios with its 95 % interval, beside the paper's number), ``per_seed``."""
    seeds = list(dict.fromkeys(frame["seed"]))
    per_seed = frame[["seed", "scheme", "mean_iteration_time", "cr_speedup_ours"]]
    summary = frame[frame["seed"] == seeds[0]].set_index("scheme").drop(columns=["seed", "std"])
    times = per_seed.pivot(index="seed", columns="scheme", values="mean_iteration_time")
    cols = ["mean_iteration_time", "time_ci_low", "time_ci_high"]
    cols += ["cr_speedup_ours", "speedup_ci_low", "speedup_ci_high"]
    for name in summary.index:
        t, cr = times[name], times["CR"]
        # one seed: a point without an interval (NaN bounds), never a zero-width "CI"
        summary.loc[name, cols] = (
            (*mean_interval(t), *ratio_interval(t, cr))
            if len(seeds) > 1
            else (t.iloc[0], np.nan, np.nan, t.iloc[0] / cr.iloc[0], np.nan, np.nan)
        )
    summary["seeds"] = len(seeds)
    return SimpleNamespace(summary=summary, per_seed=per_seed)


def model_speedup_range(
    settings: dict,
    bandwidths: Sequence[float] = (1.25e6, 1.25e7, 1.25e8, 1.25e9),
    latencies: Sequence[float] = (5e-5, 3e-4, 2e-3),
    a_mus: Sequence[float] = (0.1, 1.0, 10.0),
    straggle_delays: Sequence[float] = (0.0, 0.3, 3.0),
    straggle_prob: float = 0.02,
    n_iterations: int = 100,
    rng: RngLike = 0,
) -> pd.DataFrame:
    """CR's speedup (ratio of mean iteration times) over every scheme across the simulated
    cluster's constants: which paper numbers can the model produce at all? ``settings`` maps
    a label to ``(n, L, s, d, p)``; every bandwidth [bytes/s] x latency [s] x ``a mu`` x
    straggler delay ``D`` (probability ``straggle_prob``) runs on one set of draws.
    """
    gen, a = as_generator(rng), 5e-5  # the paper's a; aμ spans the sweep
    rows = []
    for label, (n, L, s, d, p) in settings.items():
        cfg, draws, loads = _tree(n, L, s, d, n_iterations, gen)
        cells = list(itertools.product(bandwidths, latencies, a_mus, straggle_delays))
        fixed = dict(gradient_numbers=p, straggle_prob=straggle_prob)
        models = [
            TimingModel(a=a, mu=a_mu / a, network=Network(lat, bw), straggle_delay=delay, **fixed)
            for bw, lat, a_mu, delay in cells
        ]
        rars, flat = _rar_means(cfg, models, draws), ("UMW", "GC", "SGD", "CR")
        for (bw, lat, a_mu, delay), model, rar in zip(cells, models, rars):
            res = simulate_iteration_times(cfg, model, draws=draws, cr_loads=loads, schemes=flat)
            cell = dict(label=label, n=n, L=L, s=s, N=cfg.N, bandwidth=bw, latency=lat)
            cell |= dict(a_mu=a_mu, straggle_delay=delay)
            rows += [
                cell
                | dict(scheme=k, cr_speedup=(rar if k == "RAR" else res[k].mean) / res["CR"].mean)
                for k in ("UMW", "GC", "SGD", "RAR")
            ]
    return pd.DataFrame(rows)


def speedup_range_summary(tidy: pd.DataFrame) -> pd.DataFrame:
    """Per label and scheme: the smallest and largest CR speedup over the sweep of
    :func:`model_speedup_range` and the communication-bound limit.
    """
    rows = []
    for (label, scheme), g in tidy.groupby(["label", "scheme"], sort=False):
        n, L, s, N = (int(g[k].iloc[0]) for k in ("n", "L", "s", "N"))
        S = int(np.floor(s / n * N + 1e-9))
        limit = {"UMW": N, "GC": N - S, "SGD": N - S}.get(scheme, np.nan) / (L * (n - s))
        rows.append((label, scheme, g["cr_speedup"].min(), g["cr_speedup"].max(), limit))
    columns = ["label", "scheme", "min", "max", "communication_bound_limit"]
    return pd.DataFrame(rows, columns=columns).set_index(["label", "scheme"])


def cr_rar_network_table(
    model: TimingModel | None = None, n_iterations: int = 200, rng: RngLike = 0
) -> pd.DataFrame:
    """Per paper figure: the constant-free bound on its printed UMW and RAR speedups, and
    where CR and RAR tie on the single-port α–β network (CR Sec. III-C model).

    Whatever the constants, UMW and RAR wait for the same slowest worker with the same load
    and UMW's master then receives at most N messages, while CR's slowest path receives
    L(n − s): UMW/CR − RAR/CR ≤ N/(L(n − s)) (``bound``; ``paper_gap`` is the printed
    UMW − RAR speedups, ``breaks`` when it exceeds the bound). UMW/CR alone has no ceiling
    (``umw_over_cr_straggling``: stragglers q = 0.005, D = 3 s added). On ``model``'s
    network: ``rar_over_cr`` (mean iteration times, same draws), ``break_even_latency`` (the
    per-message latency at which they tie, bandwidth held; NaN when none in [1 µs, 1 s]),
    ``rar_over_cr_float32`` (t_c = 0.05 s read as a float32 model: half the bandwidth for the
    float64 gradients of Figs. 2, 8–12; Fig. 13 unchanged) and the model download that no
    iteration time charges: ``download`` = L·n·t_c down CR's tree (RAR needs none), with its
    ``download_share`` of CR's iteration.
    """
    from scipy.optimize import brentq

    gen = as_generator(rng)
    rows = []
    for figure in PAPER_SPEEDUPS:
        cfg, draws, loads = _tree(*RANGE_SETTINGS[figure][:4], n_iterations, gen)
        n, L, s, m = cfg.n, cfg.L, cfg.s, figure_model(figure, model)

        def means(mod, schemes=("RAR", "CR"), cfg=cfg, draws=draws, loads=loads):
            res = simulate_iteration_times(cfg, mod, draws=draws, cr_loads=loads, schemes=schemes)
            return {k: v.mean for k, v in res.items()}

        def log_ratio(log_lat, m=m, means=means):
            t = means(replace(m, network=replace(m.network, latency=float(np.exp(log_lat)))))
            return np.log(t["RAR"] / t["CR"])

        lo, hi = np.log(1e-6), np.log(1.0)
        found = log_ratio(lo) * log_ratio(hi) < 0
        tie = float(np.exp(brentq(log_ratio, lo, hi, xtol=1e-4))) if found else np.nan
        half = replace(m, network=replace(m.network, bandwidth=m.network.bandwidth / 2))
        t, f32_times = means(m), means(m if figure == "fig13" else half)
        strag = means(replace(m, straggle_prob=0.005, straggle_delay=3.0), ("UMW", "RAR", "CR"))
        paper, bound = PAPER_SPEEDUPS[figure], cfg.N / (L * (n - s))
        gap = paper["UMW"] - paper["RAR"]
        rows.append(
            dict(figure=figure, N=cfg.N, tree=f"({n}, {L}), s = {s}", bound=bound, paper_gap=gap)
            | dict(breaks=gap > bound, umw_over_cr_straggling=strag["UMW"] / strag["CR"])
            | dict(gap_straggling=(strag["UMW"] - strag["RAR"]) / strag["CR"])
            | dict(rar_over_cr=t["RAR"] / t["CR"], break_even_latency=tie)
            | dict(rar_over_cr_float32=f32_times["RAR"] / f32_times["CR"])
            | dict(download=L * n * m.t_c, download_share=L * n * m.t_c / t["CR"])
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


def _network_reason(row: pd.Series, figure: str, scheme: str, latency: float) -> str:
    """What :func:`cr_rar_network_table`'s ``row`` says about ``figure``'s UMW speedup row
    (``scheme == "UMW"``) or its RAR row (any other ``scheme``)."""
    paper = PAPER_SPEEDUPS[figure]
    if scheme == "UMW":
        fits = "breaks it: the paper's UMW and RAR numbers cannot both come from one single-port network"
        return (
            f"UMW/CR alone has no ceiling (UMW waits for every straggler: {row['umw_over_cr_straggling']:.3g}× with stragglers added, see the bound table); "
            f"the model bounds UMW/CR − RAR/CR ≤ N/(L(n − s)) = {row['bound']:.3g} for any constants, and the printed {paper['UMW']:g} − {paper['RAR']:g} = "
            f"{row['paper_gap']:.3g} {fits if row['breaks'] else 'fits it'}"
        )
    tie = row["break_even_latency"]
    tie_text = (
        f"CR and RAR tie at a per-message latency of {1e3 * tie:.2g} ms on this bandwidth (ours {1e3 * latency:g} ms)"
        if np.isfinite(tie)
        else "CR and RAR do not tie for any latency in [1 µs, 1 s] on this bandwidth"
    )
    return (
        f"{tie_text}; reading t_c = 0.05 s as a float32 model gives RAR/CR = {row['rar_over_cr_float32']:.3g}; not charged: the model download, "
        f"L·n·t_c = {1e3 * row['download']:.3g} ms down CR's tree ({100 * row['download_share']:.0f} % of its iteration), none for RAR"
    )


def _tree(n, L, s, d, n_iterations, rng):
    """The tree's config, ``n_iterations`` delay draws and default CR allocation's loads."""
    cfg = ClusterConfig(n, L, s, d)
    return cfg, draw_delays(n_iterations, cfg.N, rng), tree_allocation(n, L, s, d).load_points


def _rar_means(cfg, models, draws) -> np.ndarray:
    """RAR's mean iteration time under every model on the same draws, in one ring pass."""
    ready = np.vstack([m.compute_times(cfg.d / cfg.N, draws) for m in models])
    taus = np.concatenate([np.full(len(draws), m.message_time(1.0 / cfg.N)) for m in models])
    return ring_allreduce_finish(ready, taus).reshape(len(models), -1).mean(axis=1)


def time_breakdown(
    tree: tuple[int, int, int, int] = FIG2_TREE,
    model: TimingModel | None = None,
    n_iterations: int = 300,
    rng: RngLike = 0,
) -> pd.DataFrame:
    """Where each scheme's iteration time goes (CR Section III-C model): ``computation`` = the
    shift ``a d_i`` of its load, ``communication`` = the time with every draw at zero minus
    that shift, ``straggling`` = the rest (waiting for slow draws), their ``*_share`` of the
    ``total``.
    """
    cfg, draws, loads = _tree(*tree, n_iterations, rng)
    model = TimingModel() if model is None else model
    full = simulate_iteration_times(cfg, model, draws=draws, cr_loads=loads)
    calm = simulate_iteration_times(cfg, model, draws=np.zeros((1, cfg.N)), cr_loads=loads)
    rows = [  # the shift of the busiest worker's load (CR: the largest of the tree's loads)
        dict(scheme=k, computation=model.a * full[k].load_points)
        | dict(communication=calm[k].mean - model.a * full[k].load_points)
        | dict(straggling=full[k].mean - calm[k].mean, total=full[k].mean)
        for k in SCHEMES
    ]
    out = pd.DataFrame(rows).set_index("scheme")
    for part in ("computation", "communication", "straggling"):
        out[f"{part}_share"] = out[part] / out["total"]
    return out


def regime_map(
    bandwidths: Sequence[float] | None = None,
    latencies: Sequence[float] | None = None,
    straggle_delays: Sequence[float] = (0.0, 0.1, 0.3, 1.0),
    straggle_prob: float = 0.02,
    model: TimingModel | None = None,
    n_iterations: int = 200,
    rng: RngLike = 0,
) -> pd.DataFrame:
    """Where CR beats RAR on Fig. 2's tree (p = 6500): mean iteration time of every scheme over
    bandwidth [bytes/s] x latency [s] x straggler delay ``D`` (each worker-iteration straggles
    with probability ``straggle_prob``), on one set of draws. Tidy: bandwidth, latency,
    straggle_delay, scheme, mean_time, plus ``cr_over_rar`` = RAR's time / CR's (above 1: CR
    faster).
    """
    bandwidths = np.geomspace(1.25e6, 1.25e9, 13) if bandwidths is None else bandwidths
    latencies = np.geomspace(1e-5, 1e-2, 13) if latencies is None else latencies
    base = TimingModel() if model is None else model
    base = replace(base, gradient_numbers=6500, straggle_prob=straggle_prob)
    cfg, draws, loads = _tree(*FIG2_TREE, n_iterations, rng)
    rows = []
    for delay, bw in itertools.product(straggle_delays, bandwidths):
        models = [
            replace(base, network=Network(float(lat), float(bw)), straggle_delay=float(delay))
            for lat in latencies
        ]
        for lat, m, rar_mean in zip(latencies, models, _rar_means(cfg, models, draws)):
            cr = cr_times(cfg, m, draws, loads=loads).mean
            rows.append(
                dict(bandwidth=float(bw), latency=float(lat), straggle_delay=float(delay))
                | dict(rar=float(rar_mean), cr=cr, cr_over_rar=float(rar_mean) / cr)
            )
    return pd.DataFrame(rows)


def calibrate_straggle_delay(
    target: float,
    scheme: str = "RAR",
    model: TimingModel | None = None,
    straggle_prob: float = 0.02,
    n_iterations: int = 300,
    rng: RngLike = 0,
    tol: float = 1e-3,
) -> float:
    """The straggler delay ``D`` [s] in [0, 10] at which CR's speedup over ``scheme`` (ratio of
    mean iteration times, same draws, Fig. 2's tree) equals ``target``; bisection (the ratio
    grows with ``D`` for schemes that wait for every worker). A **calibrated** parameter.
    """
    target = check_real("target", target, 0.0, low_open=True)
    base = TimingModel() if model is None else model
    cfg, draws, loads = _tree(*FIG2_TREE, n_iterations, rng)

    def ratio(delay):
        m = replace(base, straggle_prob=straggle_prob, straggle_delay=delay)
        res = simulate_iteration_times(cfg, m, draws=draws, cr_loads=loads, schemes=(scheme, "CR"))
        return res[scheme].mean / res["CR"].mean

    lo, hi = 0.0, 10.0
    if not ratio(lo) <= target <= ratio(hi):
        raise ValueError(
            f"target must lie between the speedups at D = {lo} and {hi} ({ratio(lo):.3g}, {ratio(hi):.3g}), got target={target}"
        )
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ratio(mid) < target else (lo, mid)
    return 0.5 * (lo + hi)


def _problem(task: str, quick: bool, rng):
    """A task of :data:`FIGURE_SETTINGS`: its problem, data and metric name."""
    from codedlib import problems as pr

    if task != "linear":
        return _digits_problem(task)
    d_learn, p_learn = _sizes(quick)["linear_problem"]
    data = pr.synthetic_linear_regression(d_learn, p_learn, noise=1.0, rng=rng)
    return pr.LeastSquares(data.X, data.y), data, "normalized error rate (11)"


@functools.lru_cache(maxsize=2)
def _digits_problem(task: str):
    """The digits tasks' problem (no randomness: cached, never mutated; loading the data set
    took 0.08 s per figure and seed)."""
    from codedlib import problems as pr

    if task == "logistic":
        data = pr.digits_binary(4, 9)
        prob = pr.LogisticRegression(data.X, data.y, lam=1.0 / data.X.shape[0])
        return prob, data, "relative error rate (9)"
    data = pr.digits_multiclass()
    prob = pr.SoftmaxRegression(data.X, data.y, 10, lam=1.0 / data.X.shape[0])
    return prob, data, "test accuracy"


def _metric(task, prob, data, theta, previous):
    if task == "logistic":
        denom = float(previous @ previous)
        return float(np.sum((theta - previous) ** 2) / denom) if denom > 0 else np.nan
    if task == "linear":
        ts = data.theta_star
        return float(np.sum((theta - ts) ** 2) / np.sum(ts**2))
    return 1.0 - prob.error_rate(theta, data.X_test, data.y_test)


def _worker_bounds(n_samples, N):
    return np.linspace(0, n_samples, N + 1).round().astype(int)


#: The optimisation's small dense products on one BLAS thread: threads only add overhead at a
#: few hundred rows, and oversubscribed on a shared machine (2 cores) made them ~10x slower.
_one_blas_thread = functools.partial(threadpool_limits, limits=1, user_api="blas")
#: The default cyclic-repetition code of (N, S) (deterministic; cached with its decoder's SVD).
_gc_code = functools.lru_cache(maxsize=32)(cyclic_repetition_code)


def _parts(prob, theta, N):
    """Every worker's partial gradient over its equal share of the data (GC, RAR, UMW)."""
    bounds = _worker_bounds(prob.n_samples, N)
    return np.array([prob.partial_gradient(theta, a, b) for a, b in itertools.pairwise(bounds)])


def _cr_gradient(alloc, prob, theta, survivors):
    """CR.EXECUTE (Algorithm 2) on the real local gradients at ``theta``."""
    local = np.zeros((len(alloc.nodes), prob.dim))
    for nd in alloc.nodes[1:]:
        if nd.n_points:
            local[nd.rank] = nd.local_data.gradient(lambda a, b: prob.partial_gradient(theta, a, b))
    return execute(alloc, local, survivors=survivors)[0]


def _gc_gradient(code, ready, parts):
    """GC: the cyclic code decoded from the first ``N - S`` finishers of ``ready``."""
    finishers = np.sort(np.argsort(ready, kind="stable")[: code.n_workers - code.stragglers])
    return code.decode(finishers) @ (code.B @ parts)


def _verify_coded(prob, cfg, theta, model, rng) -> dict:
    """Run the actual CR and GC coded computations once on the real problem and compare the
    decoded gradient with the true one (relative error)."""
    true = prob.partial_gradient(theta)
    draws = draw_delays(1, cfg.N, rng)
    alloc = tree_allocation(cfg.n, cfg.L, cfg.s, prob.n_samples)
    _, survivors = cr_times(cfg, model, draws, loads=alloc.load_points, return_survivors=True)
    grads = {
        "CR": _cr_gradient(alloc, prob, theta, {p: v[0] for p, v in survivors.items()}),
        # equal GC loads: the first N - S finishers are the smallest draws
        "GC": _gc_gradient(_gc_code(cfg.N, cfg.S), draws[0], _parts(prob, theta, cfg.N)),
    }
    return {k: float(np.max(np.abs(g - true)) / np.max(np.abs(true))) for k, g in grads.items()}


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


def _run_sgd(prob, theta0, unused, c1, c2, n_iter):
    """theta_{t+1} = theta_t - c1/(t + c2) * (mean gradient over the first N - S workers' data)."""
    thetas = [theta0]
    for t, rows in zip(range(n_iter), unused):
        theta = thetas[-1]
        total = prob.partial_gradient(theta)
        if rows.size:
            total = total - prob._grad_terms(theta, rows)  # same per-sample terms, index array
        thetas.append(theta - c1 / (t + c2) * total / max(prob.n_samples - rows.size, 1))
    return thetas


def _setup(figure, model, n_iterations, quick, gen) -> dict:
    """One seed's timing, problem, initial point and the rows SGD leaves out (Figs. 8-13)."""
    if figure not in FIGURE_SETTINGS:
        raise ValueError(f"figure must be one of {sorted(FIGURE_SETTINGS)}, got figure={figure!r}")
    task, n, L, s, d_timing, iters = FIGURE_SETTINGS[figure]
    if n_iterations is None:
        n_iterations = _sizes(quick)["default_conv_iterations"] or iters
    model = figure_model(figure, model)
    cfg, draws, loads = _tree(n, L, s, d_timing, n_iterations, gen)  # checks n_iterations
    timings = simulate_iteration_times(cfg, model, draws=draws, cr_loads=loads)
    prob, data, metric_name = _problem(task, quick, gen)
    theta0 = 0.01 * gen.standard_normal(prob.dim)
    # SGD on the first N - S workers of every iteration (same draws as the timing): per
    # iteration, the data rows of the workers it ignored (in increasing order)
    shares = np.diff(_worker_bounds(prob.n_samples, cfg.N))
    ignored = ~np.repeat(timings["SGD"].used_workers, shares, axis=1)  # (iterations, rows)
    unused = [np.flatnonzero(row) for row in ignored]
    out = dict(task=task, n_iterations=len(draws), model=model, cfg=cfg, timings=timings)
    out |= dict(prob=prob, data=data, metric=metric_name, theta0=theta0, unused=unused)
    return out | dict(step=_step_size(prob))


def _tune(run: dict, quick: bool) -> tuple[float, float]:
    """SGD's ``(c1, c2)`` of the rate ``c1/(t + c2)`` on ``run`` (:func:`_setup`), from a small
    grid (the paper optimised them numerically): c2 in grid[0], c1 = k * step * c2 with k in
    grid[1]; score = final loss (logistic), normalised error (linear) or test accuracy (softmax)."""
    prob, task, data, theta0 = run["prob"], run["task"], run["data"], run["theta0"]
    best, sign = None, -1.0 if task == "softmax" else 1.0  # accuracy: higher is better
    for c2, k in itertools.product(*_sizes(quick)["sgd_grid"]):
        c1 = k * run["step"] * c2
        theta = _run_sgd(prob, theta0, run["unused"], c1, c2, run["n_iterations"])[-1]
        score = sign * (
            prob.loss(theta) if task == "logistic" else _metric(task, prob, data, theta, theta0)
        )
        if np.isfinite(score) and (best is None or score < best[0]):
            best = (score, c1, c2)
    return best[1], best[2]


def convergence(
    figure: str = "fig10",
    model: TimingModel | None = None,
    n_iterations: int | None = None,
    quick: bool = False,
    rng: RngLike = 0,
    sgd_learning_rate: tuple[float, float] | None = None,
    verify: bool = True,
) -> SimpleNamespace:
    """Error vs wall-clock for one of Figs. 8-13 (see :data:`FIGURE_SETTINGS`).

    GD-type schemes (UMW, GC, RAR, CR) recover the exact gradient, so they share iterates and
    differ only in time; SGD steps with the first ``N - S`` workers' data and the rate
    ``c1/(t + c2)`` of :func:`_tune` unless ``sgd_learning_rate=(c1, c2)`` is given
    (the notebook reuses one tuning per task). ``verification``: relative error of the
    actually decoded CR and GC gradients on the real problem, one iteration (None with
    ``verify=False``).
    """
    gen = as_generator(rng)
    run = _setup(figure, model, n_iterations, quick, gen)
    c1, c2 = _tune(run, quick) if sgd_learning_rate is None else sgd_learning_rate
    c1, c2 = check_real("c1", c1, 0.0), check_real("c2", c2, 0.0)
    task, prob, data, theta0 = run["task"], run["prob"], run["data"], run["theta0"]
    n_iter = run["n_iterations"]
    gd = [theta0]  # GD: shared by the exact schemes
    for _ in range(n_iter):
        gd.append(gd[-1] - run["step"] * prob.gradient(gd[-1]))
    sgd = _run_sgd(prob, theta0, run["unused"], c1, c2, n_iter)
    errors = {
        k: [_metric(task, prob, data, th[t + 1], th[t]) for t in range(n_iter)]
        for k, th in (("GD", gd), ("SGD", sgd))
    }
    iteration = np.arange(1, n_iter + 1)
    curve = lambda k: dict(scheme=k, iteration=iteration, time=np.cumsum(run["timings"][k].times))
    curves = [pd.DataFrame(curve(k) | dict(error=errors.get(k, errors["GD"]))) for k in SCHEMES]
    curves = pd.concat(curves, ignore_index=True)
    out = dict(figure=figure, task=task, metric=run["metric"], config=run["cfg"], curves=curves)
    out |= dict(speedups=speedups(curves, figure, higher_is_better=(task == "softmax")))
    verification = _verify_coded(prob, run["cfg"], theta0, run["model"], gen) if verify else None
    out |= dict(verification=verification, sgd_learning_rate=(c1, c2), data=data.description)
    shape = (int(prob.n_samples), int(prob.dim))
    return SimpleNamespace(**out, data_shape=shape, n_iterations=n_iter)


def coded_gradient_descent(
    figure: str = "fig8",
    n_iterations: int = 300,
    model: TimingModel | None = None,
    quick: bool = False,
    rng: RngLike = 0,
) -> pd.DataFrame:
    """Gradient descent whose every gradient goes through the schemes' actual codes, on the
    figure's problem and tree: CR.EXECUTE (Algorithm 2) with the children each parent combines
    first in the timing, GC decoding its first ``N - S`` finishers, RAR and UMW summing; each
    scheme from its own iterate. Per iteration and scheme: ``gradient_error`` (relative) and
    ``distance_to_gd`` (``||theta - theta_GD|| / ||theta_GD||``), both at rounding level.
    """
    if figure not in FIGURE_SETTINGS:
        raise ValueError(f"figure must be one of {sorted(FIGURE_SETTINGS)}, got figure={figure!r}")
    task, n, L, s, _, _ = FIGURE_SETTINGS[figure]
    model = figure_model(figure, model)
    gen = as_generator(rng)
    prob, _, _ = _problem(task, quick, gen)
    d = prob.n_samples
    cfg, draws, loads = _tree(n, L, s, d, n_iterations, gen)  # checks n_iterations
    _, survivors = cr_times(cfg, model, draws, loads=loads, return_survivors=True)
    code, alloc = _gc_code(cfg.N, cfg.S), tree_allocation(n, L, s, d)
    gc_ready = model.compute_times((cfg.S + 1) * d / cfg.N, draws)
    step = _step_size(prob)
    theta0 = 0.01 * gen.standard_normal(prob.dim)
    thetas = dict.fromkeys(("GD", "UMW", "RAR", "GC", "CR"), theta0)
    rows = []
    with _one_blas_thread():
        for t, ready in enumerate(gc_ready):
            combined = {q: v[t] for q, v in survivors.items()}  # the children CR's parents use
            grads = {
                "GD": prob.partial_gradient(thetas["GD"]),
                "UMW": _parts(prob, thetas["UMW"], cfg.N).sum(axis=0),
                "RAR": np.sum(_parts(prob, thetas["RAR"], cfg.N)[::-1], axis=0),  # the ring's order
                "GC": _gc_gradient(code, ready, _parts(prob, thetas["GC"], cfg.N)),
                "CR": _cr_gradient(alloc, prob, thetas["CR"], combined),
            }
            errors = {}
            for name, g in grads.items():
                exact = prob.partial_gradient(thetas[name])
                errors[name] = float(np.linalg.norm(g - exact) / np.linalg.norm(exact))
                thetas[name] = thetas[name] - step * g / d
            ref = np.linalg.norm(thetas["GD"])
            rows += [
                dict(iteration=t + 1, scheme=k, gradient_error=errors[k])
                | dict(distance_to_gd=float(np.linalg.norm(thetas[k] - thetas["GD"]) / ref))
                for k in ("UMW", "RAR", "GC", "CR")
            ]
    return pd.DataFrame(rows)


def _convergence_row(seed: int, verify_seed: int, **setting) -> dict:
    """:func:`convergence` on one seed as a row of :func:`codedlib.replicate.over_seeds`, on
    one BLAS thread; the coded gradients are verified on ``verify_seed`` only."""
    with _one_blas_thread():
        return {"run": convergence(**setting, rng=seed, verify=seed == verify_seed)}


def convergence_over_seeds(
    figure: str = "fig10",
    model: TimingModel | None = None,
    n_iterations: int | None = None,
    quick: bool = False,
    seeds: int | Iterable[int] = (0, 1),
    sgd_learning_rate: tuple[float, float] | None = None,
) -> SimpleNamespace:
    """:func:`convergence` once per independent seed (fresh delay draws, initial point and,
    for the synthetic task, data set per seed), as tidy tables with a ``seed`` column.

    SGD's rate is tuned on the first seed (:func:`_tune`) unless ``sgd_learning_rate`` is
    given, then every seed runs with it; the decoded gradients are verified on the first
    seed (``verification``: seed, CR, GC). ``final``: seed, scheme, final_error.
    """
    seeds = check_seeds(seeds)
    setting = dict(figure=figure, model=model, n_iterations=n_iterations, quick=quick)
    if sgd_learning_rate is None:
        with _one_blas_thread():
            sgd_learning_rate = _tune(_setup(**setting, gen=as_generator(seeds[0])), quick)
    setting |= dict(sgd_learning_rate=sgd_learning_rate, verify_seed=seeds[0])
    runs = over_seeds(_convergence_row, seeds, desc=f"{figure} seeds", **setting)["run"].tolist()
    curves = pd.concat([r.curves.assign(seed=sd) for sd, r in zip(seeds, runs)], ignore_index=True)
    speeds = pd.concat(
        [r.speedups.reset_index().assign(seed=sd) for sd, r in zip(seeds, runs)], ignore_index=True
    )
    last = curves.sort_values("iteration").groupby(["seed", "scheme"], sort=False)["error"].last()
    final = last.rename("final_error").reset_index()
    verification = pd.DataFrame([{"seed": seeds[0], **runs[0].verification}])
    out = dict(seeds=seeds, curves=curves, speedups=speeds, final=final, verification=verification)
    return SimpleNamespace(**vars(runs[0]) | out, bands=_convergence_bands(curves))


def _convergence_bands(curves: pd.DataFrame, points: int = 300) -> pd.DataFrame:
    """Per scheme on a common log time grid: ``median`` error over seeds and the band
    ``low``..``high`` from the smallest to the largest seed (a seed's error at a time: its
    last iteration finished by then; NaN before its first and after its last)."""
    grid = np.geomspace(curves["time"].min(), curves["time"].max(), points)
    frames = []
    for name, group in curves.groupby("scheme", sort=False):
        errs = []
        for _, g in group.groupby("seed"):
            t, e = g.sort_values("iteration")[["time", "error"]].to_numpy().T
            idx = np.searchsorted(t, grid, side="right") - 1
            ok = (idx >= 0) & (grid <= t[-1] * (1 + 1e-12))
            errs.append(np.where(ok, e[np.where(ok, idx, 0)], np.nan))
        with warnings.catch_warnings():  # all-NaN columns before the first iteration ends
            warnings.simplefilter("ignore", RuntimeWarning)
            stats = dict(median=np.nanmedian(errs, axis=0), low=np.nanmin(errs, axis=0))
            stats["high"] = np.nanmax(errs, axis=0)
        frames.append(pd.DataFrame({"scheme": name, "time": grid, **stats}))
    return pd.concat(frames, ignore_index=True)


def speedup_intervals(speedups: pd.DataFrame) -> pd.DataFrame:
    """Per scheme, from the tidy ``speedups`` of :func:`convergence_over_seeds`: CR's speedup
    to target and the mean-iteration-time ratio as geometric means of the per-seed ratios with
    95 % paired log-ratio t-intervals (one seed gives a point, NaN bounds), beside the paper's number.
    """
    rows = []
    for name, g in speedups.groupby("scheme", sort=False):
        ratio = g["mean_iteration_time_ratio_ours"]
        if len(g) < 2:
            to_target = (g["cr_speedup_to_target_ours"].iloc[0], np.nan, np.nan)
            per_iter = (ratio.iloc[0], np.nan, np.nan)
        else:
            to_target = ratio_interval(g["time_to_target"], g["cr_time_to_target"])
            per_iter = ratio_interval(ratio, np.ones(len(g)))
        rows.append((name, g["cr_speedup_paper"].iloc[0], *to_target, *per_iter, len(g)))
    columns = ["scheme", "cr_speedup_paper", "to_target_ours", "to_target_ci_low"]
    columns += ["to_target_ci_high", "mean_iteration_time_ratio_ours", "ratio_ci_low"]
    columns += ["ratio_ci_high", "seeds"]
    return pd.DataFrame(rows, columns=columns).set_index("scheme")


def speedups(
    curves: pd.DataFrame, figure: str | None = None, higher_is_better: bool = False
) -> pd.DataFrame:
    """CR's speedup over each scheme: time to reach the best error both reach, and the ratio
    of mean iteration times, beside the paper's number for ``figure``.
    """
    check_frame("curves", curves, ("scheme", "time", "error"))
    cr = curves[curves.scheme == "CR"]
    pick = np.nanmax if higher_is_better else np.nanmin
    rows = []
    for name in ("UMW", "GC", "RAR", "SGD"):
        other = curves[curves.scheme == name]
        if other.empty:  # a scheme the caller's curves leave out
            continue
        best_other, best_cr = pick(other["error"]), pick(cr["error"])
        target = min(best_other, best_cr) if higher_is_better else max(best_other, best_cr)
        t_other = first_reach(other["time"], other["error"], target, below=not higher_is_better)
        t_cr = first_reach(cr["time"], cr["error"], target, below=not higher_is_better)
        rows.append(
            dict(scheme=name, target_error=target, time_to_target=t_other, cr_time_to_target=t_cr)
            | dict(cr_speedup_to_target_ours=t_other / t_cr)
            | dict(mean_iteration_time_ratio_ours=other["time"].iloc[-1] / cr["time"].iloc[-1])
            | dict(cr_speedup_paper=PAPER_SPEEDUPS.get(figure, {}).get(name, np.nan))
        )
    return pd.DataFrame(rows).set_index("scheme")


def load_table() -> pd.DataFrame:
    """Per-worker loads of GC and CR for the paper's N = 156 settings (points and fraction):
    the (12, 2) tree, alpha = 1/12, 2/12, 3/12, d = 6552."""
    rows = []
    for s in (1, 2, 3):  # alpha = s/12
        cfg, alloc = ClusterConfig(12, 2, s, 6552), tree_allocation(12, 2, s, 6552)
        points = alloc.load_points
        rows.append(
            dict(alpha=cfg.alpha, s=s, S=cfg.S, r_gc=r_gc(cfg.N, cfg.S), r_cr=alloc.r_cr)
            | dict(cr_points_range=f"{points.min()}..{points.max()}", r_cr_d=alloc.r_cr * cfg.d)
        )
    return pd.DataFrame(rows)


def configuration_summary(
    n: int = 4,
    L: int = 3,
    s: int = 1,
    d: int = 7644,
    model: TimingModel | None = None,
    n_iterations: int = 200,
    rng: RngLike = 0,
) -> dict:
    """Everything the explorer widget shows for one configuration: loads (CR vs GC at the
    same alpha), resiliency, message times, Theorem 2 bounds (None when s = 0), a fresh
    simulation of all schemes and where their time goes (:func:`time_breakdown`).
    """
    cfg = ClusterConfig(n, L, s, d)
    model = TimingModel() if model is None else model
    alloc = tree_allocation(n, L, s, d)
    b = theorem2_bounds(n, L, s, d, model.a, model.mu, model.t_c) if s >= 1 else {}
    out = dict(n_workers=cfg.N, alpha=cfg.alpha, stragglers_flat=cfg.S, r_cr=r_cr(n, s, L))
    out |= dict(r_gc=r_gc(cfg.N, cfg.S), r_cr_d=r_cr(n, s, L) * d, t_c=model.t_c)
    out |= dict(cr_points_per_node=f"{alloc.load_points.min()}..{alloc.load_points.max()}")
    out |= dict(rar_segment=model.message_time(1.0 / cfg.N), allocation=alloc)
    out |= dict(theorem2_lower=b.get("lower"), theorem2_upper=b.get("upper"))
    return out | dict(
        simulation=fig2_iteration_times((n, L, s, d), model, n_iterations, rng),
        breakdown=time_breakdown((n, L, s, d), model, n_iterations, rng),
    )


#: The notebook's sizes: quick mode (CI) and the paper-faithful run.
SETTINGS = {
    "quick": {
        "iterations": 60,  # Fig. 2: iterations per seed
        "conv_iterations": 20,  # Figs. 8-13 (None: the paper's rounds)
        "replicas": 60,  # Theorem 2: i.i.d. iterations per n
        "n_seeds": 2,
        "conditioning": ((12, 3), (100, 5), (101, 5)),
        "model_iterations": 40,  # regime table and map
        "sweep_iterations": 10,
        "coded_iterations": 30,
        "plotted": ("fig8", "fig10", "fig13"),
        "real_schemes": ("cr",),
        # the library's own sizes in quick mode (convergence)
        "linear_problem": (478, 406),  # paper (7644, 6500) / 16
        "default_conv_iterations": 60,
        "sgd_grid": ([10.0, 100.0], [0.5, 1.0]),  # SGD's (c1, c2) tuning grid
    },
    "faithful": {  # iterations, replicas, n_seeds: the notebook's parameters (300, 400, 5)
        "conv_iterations": None,
        "conditioning": ((12, 3), (100, 5), (101, 5), (500, 10), (1000, 10)),
        "model_iterations": 200,
        "sweep_iterations": 40,
        "coded_iterations": 300,
        "plotted": tuple(FIGURE_SETTINGS),
        "real_schemes": ("cr", "gc", "rar", "umw", "sgd"),
        "linear_problem": (956, 812),  # paper (7644, 6500) / 8
        "default_conv_iterations": None,  # the figure's own (FIGURE_SETTINGS)
        "sgd_grid": ([10.0, 100.0, 1000.0], [0.5, 1.0]),
    },
}


def _sizes(quick: bool) -> dict:
    return SETTINGS["quick" if quick else "faithful"]


SEC_BACKGROUND = "II. Background: Ring-AllReduce and gradient coding"
SEC_CR = "III. CodedReduce"
SEC_T1 = "Theorem 1: computation load"
SEC_T = "Table I: resiliency and parallelisation gain at computation load r"
SEC_T2 = "Theorem 2: expected run time"
SEC_ALL = "All speedups side by side"

#: "Fig. 9(a)" for "fig9a".
LABELS = {
    f: "Fig. " + (f"{f[3:-1]}({f[-1]})" if f[-1] in "abc" else f[3:]) for f in FIGURE_SETTINGS
}
#: File names of the convergence figures.
SLUGS = {
    f: f"{f}-{v[0]}-N{n_tree_workers(*v[1:3])}"
    + (f"-alpha{v[3]}of{v[1]}" if f[-1] in "abc" else "-large" if f == "fig12" else "")
    for f, v in FIGURE_SETTINGS.items()
}
#: Fig. 2 and every convergence figure as ``(n, L, s, d, p)`` for :func:`model_speedup_range`.
RANGE_SETTINGS = {"fig2": (*FIG2_TREE, 6500)} | {
    k: (*v[1:5], GRADIENT_NUMBERS[k]) for k, v in FIGURE_SETTINGS.items()
}
KNOBS = "bandwidth ∈ [10 Mb/s, 10 Gb/s], latency ∈ [50 µs, 2 ms], aμ ∈ [0.1, 10], D ∈ [0, 3 s]"
SIM_RTOL = 0.05  # Fig. 13: our simulation against the paper's own, same constants


def clock_texts(
    network: Network, a: float, a_mu: float, t_c: float, t_c_numbers: int
) -> tuple[str, str, str]:
    """``(NET, CLOCK, CLOCK_SHORT)``: the notebook's descriptions of the simulated cluster."""
    mbit = f"{network.bandwidth * 8 / 1e6:.0f} Mb/s"
    net = f"{mbit}, {network.latency * 1e3:g} ms latency (bandwidth from the paper's t_c = {t_c:g} s for p = {t_c_numbers:,}; latency assumed)"
    clock = f"simulated clock: a = {a:g} s/point, aμ = {a_mu:g} (paper); network {net}"
    return net, clock, f"simulated: aμ = {a_mu:g}; {mbit}, {network.latency * 1e3:g} ms"


def claim_rows(table: ClaimsTable, *items: str) -> pd.DataFrame:
    """The claims rows of these paper items (the closing section shows every row)."""
    frame = table.display_frame()
    rows = frame[frame["item"].isin(items)]
    return rows.drop(columns="uncertainty").set_index(["item", "quantity"])


def cyclic_conditioning(cases: Iterable[tuple[int, int]], seed: int) -> pd.DataFrame:
    """Worst condition number of the cyclic-repetition decoder over 5 random straggler sets."""

    def row(n, s):
        code, gen = cyclic_repetition_code(n, s), np.random.default_rng(seed)
        survivors = (np.setdiff1d(np.arange(n), gen.choice(n, s, replace=False)) for _ in range(5))
        return n, s, code.load, max(code.decoding_condition(v) for v in survivors)

    columns = ["n", "s", "load (s+1)/n", "worst condition number (5 patterns)"]
    return pd.DataFrame([row(n, s) for n, s in cases], columns=columns)


def example2_messages(ex2: SimpleNamespace) -> pd.DataFrame:
    """Example 2's messages beside what they must equal."""
    values = [np.round(v, 6) for v in ex2.messages.values()]
    return pd.DataFrame({"quantity": list(ex2.messages), "value": values}).set_index("quantity")


def remark3_outcome(allocation: CodedReduceAllocation) -> str | None:
    """Execute with stragglers 7 and 8 (one parent, beyond s): the error text, or None."""
    local = local_messages_from_point_gradients(allocation, np.ones((allocation.d, 1)))
    try:
        execute(allocation, local, stragglers=[7, 8])
    except ValueError as err:
        return str(err)
    return None


def regime_table(model: TimingModel, n_iterations: int, rng: RngLike) -> pd.DataFrame:
    """Per figure: message times and each scheme's communication and waiting shares."""
    rows = []
    for name, (n, L, s, d, _) in RANGE_SETTINGS.items():  # Fig. 2, then Figs. 8-13
        m = figure_model(name, model)
        bd = time_breakdown((n, L, s, d), model=m, n_iterations=n_iterations, rng=rng)
        segment, total = m.message_time(1 / n_tree_workers(n, L)), bd["total"]
        share = bd[["computation_share", "communication_share", "straggling_share"]]
        comm, wait = share["communication_share"], share["straggling_share"]
        rows.append(
            {"figure": name, "p": m.gradient_numbers, "t_c [ms]": 1e3 * m.t_c}
            | {"RAR segment [ms]": 1e3 * segment}
            | {"latency share of a RAR segment": m.network.latency / segment}
            | {f"{k} comm. share": comm[k] for k in ("UMW", "GC", "RAR", "CR")}
            | {f"{k} waiting share": wait[k] for k in ("RAR", "CR")}
            # the part of the iteration time that dominates, averaged over the five schemes
            | {"regime": share.mean().idxmax().replace("_share", "") + "-bound"}
            | {"faster of CR / RAR": "CR" if total["CR"] < total["RAR"] else "RAR"}
            | {"RAR / CR time": total["RAR"] / total["CR"]}
        )
    return pd.DataFrame(rows).set_index("figure")


def convergence_figures(
    model: TimingModel | None, seeds: int | Iterable[int], n_iterations: int | None, quick: bool
) -> dict[str, SimpleNamespace]:
    """:func:`convergence_over_seeds` for every figure; SGD's rate tuned once per task."""
    conv, rates = {}, {}
    setting = dict(model=model, n_iterations=n_iterations, quick=quick, seeds=seeds)
    for name, (task, *_) in FIGURE_SETTINGS.items():
        conv[name] = convergence_over_seeds(name, **setting, sgd_learning_rate=rates.get(task))
        rates.setdefault(task, conv[name].sgd_learning_rate)
    return conv


def stand_in(res: SimpleNamespace) -> str:
    """What stands in for the paper's data set in a convergence result."""
    d_, p_ = res.data_shape
    return {
        "logistic": f"stand-in: scikit-learn digits 4-vs-9 for GISETTE ({d_} points, p = {p_})",
        "linear": f"stand-in: synthetic eq.-(10) data, (d, p) = ({d_}, {p_}) for (7644, 6500)",
        "softmax": "stand-in: softmax regression on scikit-learn digits for the CIFAR-10 CNN",
    }[res.task]


def _to_target(res, scheme):
    """Per seed: ``scheme``'s time to target (CR's from the UMW rows)."""
    row, col = ("UMW", "cr_time_to_target") if scheme == "CR" else (scheme, "time_to_target")
    return res.speedups.loc[res.speedups["scheme"] == row, col].to_numpy()


def _miss_reason(key, scheme, paper, value, lo, hi, *, ranges, net_table, latency, NET, **_):
    """Why our speedup interval misses the paper's value, from the sweep and the bound table."""
    rg = ranges.loc[(key, scheme)]
    span = f"[{rg['min']:.3g}, {rg['max']:.3g}]×"
    text = f"ours {value:.3g}× [{lo:.3g}, {hi:.3g}], paper {paper:g}×: "
    if scheme == "UMW":
        text += _network_reason(net_table.loc[key], key, scheme, latency)
    elif paper > rg["max"]:
        text += f"the paper's value is above every CR speedup over {scheme} of this sweep ({KNOBS}: {span} in mean iteration time"
        if scheme != "RAR":
            text += f"; the communication-bound limit is {rg['communication_bound_limit']:.3g}×"
        text += "); the paper does not say what else slowed the other schemes on EC2"
    elif paper < rg["min"]:
        text += f"the paper's value is below every CR speedup over {scheme} our clock gives for this setting at any {KNOBS} ({span} in mean iteration time)"
    else:
        text += (
            f"inside the span {span} (mean iteration time) our clock gives over {KNOBS}; on the physical network ({NET}) without calibrated straggling the model gives "
            "less; the paper gives no EC2 network or straggler figures to set it"
        )
    if scheme == "RAR":
        text += "; " + _network_reason(net_table.loc[key], key, scheme, latency)
    return text


def _fig13_reason(key, scheme, paper, value, lo, hi, *, eq6, model, net_table, latency, **_):
    alt = eq6.loc[scheme, "cr_speedup_ours"]
    closer = abs(np.log(alt / paper)) < abs(np.log(value / paper))
    text = (
        f"ours {value:.3g}× [{lo:.3g}, {hi:.3g}], paper {paper:g}×: Fig. 13 is the paper's own "
        f"simulation with the t_c, a, aμ we use (t_c = 0.05 s for its p = 120 000 is exactly our network's); it does not describe the rest of its simulator, e.g. RAR's segment cost. "
        f"Measured: eq. (6)'s rate instead of the appendix's gives an iteration-time ratio of {alt:.3g}× ({'closer to' if closer else 'further from'} the paper's), so the rate "
        f"convention {'narrows' if closer else 'does not explain'} the gap"
    )
    if scheme == "RAR":
        text += f"; our RAR segments cost latency + size/bandwidth ({1e3 * figure_model('fig13', model).message_time(1 / 156):.2g} ms each); "
        text += _network_reason(net_table.loc[key], key, scheme, latency)
    if scheme == "SGD":
        text += "; SGD's time to target also depends on the training curve of our stand-in"
    else:
        text += (
            "; for exact schemes the time-to-target ratio is close to the ratio of mean iteration times (table under Fig. 13), so the stand-in model (softmax on digits "
            "instead of the CNN on CIFAR-10) matters little"
        )
    return text + "; we have not identified the remaining cause"


def _speedup(numerator, denominator, fig, scheme, results) -> dict:
    """A 'CR is faster' comparison: paired per-seed times of ``scheme`` over CR's in ``fig``
    (why a miss misses: from the notebook's ``results``)."""
    paper, rtol = PAPER_SPEEDUPS[fig][scheme], SIM_RTOL if fig == "fig13" else 0.0
    value, lo, hi = ratio_interval(numerator, denominator)
    verdict = speedup_verdict(paper, value, lo, hi, rtol=rtol)
    if verdict == "reproduced within CI":
        reason = ""
    elif verdict == "reproduced":
        reason = f"simulation vs simulation: ours is {100 * (value / paper - 1):+.1f} % from the paper's own simulation with the same t_c, a, aμ, within the stated tolerance of {100 * rtol:g} %"
    else:
        explain = _fig13_reason if fig == "fig13" else _miss_reason
        reason = explain(fig, scheme, paper, value, lo, hi, **results)
    if fig == "fig10" and scheme != "SGD":
        reason = f"duplicate of Fig. 2's row (same setting, same delay draws): a check, not counted; {reason}"
    out = dict(numerator=numerator, denominator=denominator, expected="greater", paper=paper)
    return out | dict(verdict=verdict, reason=reason)


def _as_row(v) -> str:
    return "[" + ", ".join(f"{x:g}" for x in np.round(v, 12) + 0.0) + "]"


def _ex1_rows_match(ex1):
    rows = zip(ex1.table["decoding_row"], ex1.table["paper_row"])
    ok = all(np.allclose(got, want, atol=1e-12) for got, want in rows)
    return {"ours": str(ok), "setting": "one decoding per straggler"}


def _points_per_node(ex2):
    points = ex2.allocation.load_points
    same = points.min() == points.max()
    return {"ours": int(points.max()) if same else float(points.mean())}


def _remark3(outcome):
    return {
        "ours": (
            f"two stragglers under one parent of the (3, 2) tree with s = 1: no recovery (ValueError: {outcome})"
            if outcome
            else "recovered (unexpected)"
        ),
        "verdict": "reproduced" if outcome else "not reproduced",
        "reason": "" if outcome else "execute did not detect the pattern",
    }


_N156, _R1 = n_tree_workers(12, 2), r_cr(12, 3, 2)
_SETTING_T1 = f"load r = r_CR(12, 3, 2) = {_R1:.4g}, N = {_N156}"


def _table1_gc(t1):
    alpha = t1.loc["GC", "alpha_exact"]
    return {
        "ours": float(alpha),
        "reason": f"Table I's α_GC = r is leading order: with r = (S+1)/N (Sec. II-C) the exact resiliency is S/N = r − 1/N = {alpha:.4g}",
    }


def _table1_cr(t1):
    return {
        "ours": float(t1.loc["CR", "alpha_exact"]),
        "reason": f"Table I's α_CR ≈ r^(1/L) = {_R1**0.5:.4g} is an approximation: at this load the (12, 2) tree tolerates s/n = {t1.loc['CR', 'alpha_exact']:.4g} per parent "
        f"(eq. (5) has n/(s+1), not 1/α); the n → ∞ solution of Σ_l α^-l = 1/r is {alpha_for_load(_R1, 2):.4g}; the ordering CR > GC > RAR holds",
    }


def _thm2_row(thm2, CLOCK, replicas, *, n_):
    row = thm2[thm2["n"] == n_].iloc[0]
    if row["position"] == "inside":
        reason = ""
    else:
        gap_comp = row["computation_term"] - row["sibling_order_statistic"]
        gap_comm = row["communication_term"] - row["monte_carlo_rest"]
        where = (
            f"{row['lower_bound'] - row['monte_carlo_mean']:.3g} s below the lower bound (7)"
            if row["position"] == "below (7)"
            else f"{row['monte_carlo_mean'] - row['upper_bound']:.3g} s above the upper bound (8)"
        )
        share = gap_comp / (gap_comp + gap_comm) if gap_comp + gap_comm > 0 else np.nan
        reason = (
            f"at n = {n_} our mean is {where}; measured: the bounds' computation term exceeds the exact E[T_(n−s)] by "
            f"{gap_comp:.3g} s ({100 * share:.0f} % of the two gaps: step (a) of the proof replaces H_n − H_s by the larger log(1/α)"
            f", true only up to its o(1)) and the rest of the mean, MC − E[T_(n−s)] = {row['monte_carlo_rest']:.3g} s, is {gap_comm:.3g} s below the communication term "
            f"(n(1−α) + L − 1)t_c (a parent already receives early children while later ones compute): both are o(·) terms the asymptotic theorem drops, so (7) is not a bound at this n"
        )
    return {
        "estimate": (row["monte_carlo_mean"], row["ci_low"], row["ci_high"]),
        "paper_range": (row["lower_bound"], row["upper_bound"]),
        "uncertainty": f"95 % normal interval over {int(row['replicas'])} i.i.d. iterations",
        "setting": f"L = 2, α = 1/4, d = 50 000; {CLOCK}; bounds without their o(·) terms; {replicas} i.i.d. iterations per n",
        "reason": reason,
    }


def _network_bound(net_table):
    n_break = int(net_table["breaks"].sum())
    return {
        "ours": f"{n_break} of {len(net_table)} figures exceed the bound: "
        + "; ".join(
            f"{f} {r['paper_gap']:.3g} {'>' if r['breaks'] else '≤'} {r['bound']:.3g}"
            for f, r in net_table.iterrows()
        ),
        "verdict": "not reproduced" if n_break else "reproduced",
    }


def _f2_setting(CLOCK, iterations, seeds):
    return f"(4, 3) tree (our inference), s = 1 (α = 1/4), N = 84 (paper: 84 ± 2 EC2 instances), d = 7644, p = 6500; {CLOCK}; {iterations} iterations × {len(seeds)} seeds"


def _fig2_physical(f2, CLOCK, iterations, seeds, *, scheme, **results):
    times = f2.per_seed.pivot(index="seed", columns="scheme", values="mean_iteration_time")
    setting = _f2_setting(CLOCK, iterations, seeds)
    return _speedup(times[scheme], times["CR"], "fig2", scheme, results) | {"setting": setting}


def _fig2_straggler(f2s, D_cal, seed, STRAG, CLOCK, iterations, seeds, *, scheme):
    times = f2s.per_seed.pivot(index="seed", columns="scheme", values="mean_iteration_time")
    paper_ = PAPER_SPEEDUPS["fig2"][scheme]
    value, lo, hi = ratio_interval(times[scheme], times["CR"])
    delays = "not at all (it tolerates S = 21 stragglers)"
    delays = "as much (it also waits for every worker)" if scheme == "UMW" else delays
    if scheme == "RAR":
        verdict = "calibrated"
        reason = f"calibrated parameter: the straggler delay D = {D_cal:.3g} s was chosen so that this ratio is the paper's {paper_:g}× (on seed {seed})"
    else:
        verdict, reason = speedup_verdict(paper_, value, lo, hi), ""
    if scheme != "RAR" and not lo <= paper_ <= hi:
        reason = (
            f"ours {value:.3g}× [{lo:.3g}, {hi:.3g}], paper {paper_:g}×: a prediction of the model calibrated on RAR alone; the straggling that makes RAR 4.3× slower than CR delays {scheme} "
            f"{delays}, so the paper's {paper_:g}× needs more than one straggler process"
        )
    reason = "our calibrated regime, derived from the paper's 4.3×: " + reason
    setting = f"{_f2_setting(CLOCK, iterations, seeds)}; {STRAG}"
    out = dict(numerator=times[scheme], denominator=times["CR"], expected="greater", paper=paper_)
    return out | dict(verdict=verdict, reason=reason, setting=setting)


def _coded_run(coded_runs, seed, *, fig):
    run = coded_runs[fig]
    worst_run = run.groupby("scheme")["distance_to_gd"].max()
    n_it = int(run["iteration"].max())
    ok = bool((worst_run < 1e-10).all())  # round-off: GC decodes a 63 x 84 system
    return {
        "ours": (
            f"{n_it} iterations, every gradient decoded (CR tree with the timed survivors, GC's first N − S, RAR/UMW sums), each from its own iterate: max ‖θ − θ_GD‖/‖θ_GD‖ = "
            + ", ".join(f"{k} {v:.1e}" for k, v in worst_run.items())
        ),
        "verdict": "reproduced" if ok else "not reproduced",
        "reason": ""
        if ok
        else "an exact scheme drifted from GD by more than 1e-10 (beyond round-off)",
        "setting": f"{fig}'s problem and tree; seed {seed}; tolerance 1e-10 relative (round-off)",
    }


def _conv_speedup(conv, seeds, CLOCK, *, fig, scheme, **results):
    res = conv[fig]
    cfg, g = res.config, res.speedups[res.speedups["scheme"] == scheme]
    times = g["time_to_target"].to_numpy(), g["cr_time_to_target"].to_numpy()
    return _speedup(*times, fig, scheme, results) | {
        "setting": f"{stand_in(res)}; timing d = {cfg.d}, ({cfg.n}, {cfg.L}) tree, s = {cfg.s}, N = {cfg.N}; {res.n_iterations} iterations × {len(seeds)} seeds; {CLOCK}; "
        "one centralised GD re-timed per exact scheme (exact: see the coded runs above); SGD rate tuned once per task"
    }


SPEEDUP_KEYS = [(name, s) for name in FIGURE_SETTINGS for s in ("UMW", "GC", "RAR", "SGD")]


def speed_table(f2: SimpleNamespace, rows: Sequence[Claim]) -> pd.DataFrame:
    """Fig. 2's speedups and the rows of ``CLAIMS["speedups"]`` as one table for the plot."""
    cols = ["cr_speedup_paper", "cr_speedup_ours", "speedup_ci_low", "speedup_ci_high"]
    table = [("fig2", s, *f2.summary.loc[s, cols]) for s in ("UMW", "GC", "RAR")]
    table += [
        (name, scheme, r.paper_value, r.our_value, r.ci_low, r.ci_high)
        for (name, scheme), r in zip(SPEEDUP_KEYS, rows)
    ]
    return pd.DataFrame(table, columns=["figure", "scheme", "paper", "ours", "ci_low", "ci_high"])


def _ordering(conv, seeds, CLOCK, *, figs, order):
    faster, *slower = order.split()
    hits = total = 0
    for f in figs or list(conv):
        t_fast = _to_target(conv[f], faster)
        for other in slower:
            hits += int(np.sum(t_fast < _to_target(conv[f], other)))
            total += len(t_fast)
    return {
        "ours": f"{faster} faster than {', '.join(slower)} in {hits} of {total} (figure, seed, scheme) runs",
        "verdict": "reproduced" if hits == total else "partly",
        "reason": "" if hits == total else f"{total - hits} runs reverse the order",
        "setting": f"every figure's setting; {len(seeds)} seeds each; {CLOCK}",
    }


def _sgd_over_rar(conv, regimes, seeds, CLOCK, *, fig):
    res = conv[fig]
    paper_ratio = PAPER_SPEEDUPS[fig]["SGD"] / PAPER_SPEEDUPS[fig]["RAR"]
    num, den = _to_target(res, "SGD"), _to_target(res, "RAR")
    value, lo, hi = ratio_interval(num, den)
    return dict(numerator=num, denominator=den, paper=paper_ratio) | {
        "paper_text": f"RAR similar to SGD: SGD slightly faster ({PAPER_SPEEDUPS[fig]['SGD']:g}× vs {PAPER_SPEEDUPS[fig]['RAR']:g}× CR speedups, ratio {paper_ratio:.3g})",
        "reason": (
            ""
            if lo <= paper_ratio <= hi
            else f"ours {value:.3g} [{lo:.3g}, {hi:.3g}]: on our physical network RAR's iteration is {regimes.loc[fig, 'RAR / CR time']:.2g}× CR's while SGD's master receives N − S full gradients "
            f"({100 * regimes.loc[fig, 'UMW comm. share']:.0f} % of UMW's time is communication), so RAR is far "
            f"faster than SGD; the paper's EC2 RAR (MPI_Allreduce) was slower, by a cost it does not state"
        ),
        "setting": f"{stand_in(res)}; {len(seeds)} seeds; {CLOCK}",
    }


def _sgd_iteration_gain(conv, CLOCK):
    hits = total = 0
    for f in ["fig10", "fig11a", "fig11b", "fig11c", "fig12"]:
        tim = conv[f].speedups.pivot(
            index="seed", columns="scheme", values="mean_iteration_time_ratio_ours"
        )
        hits += int(np.sum((tim["SGD"] < tim["UMW"]) & (tim["SGD"] < tim["GC"])))
        total += len(tim)
    return {
        "ours": f"mean iteration time of SGD below UMW's and GC's in {hits} of {total} (figure, seed) runs",
        "verdict": "reproduced" if hits == total else "partly",
        "reason": "" if hits == total else f"{total - hits} runs reverse the order",
        "setting": f"linear-regression settings (Figs. 10–12); {CLOCK}",
    }


def _sgd_final_error(conv, seeds):
    res = conv["fig10"]
    fin = res.final.pivot(index="seed", columns="scheme", values="final_error")
    setting = f"{stand_in(res)}; {res.n_iterations} iterations × {len(seeds)} seeds"
    return dict(numerator=fin["SGD"], denominator=fin["CR"], setting=setting)


def gradient_complexity(res: SimpleNamespace, seed: int) -> dict:
    """Section III-C.2: iterations and gradient computations of CR and SGD to reach the errors
    GD reaches after 10 %, 50 % and 100 % of ``res``'s run (``seed``: the seed whose GD curve
    sets the levels)."""
    cfg = res.config
    alloc = tree_allocation(cfg.n, cfg.L, cfg.s, cfg.d)
    per_iter = {"CR": float(alloc.load_points.sum()), "SGD": float(cfg.d)}
    curves = res.curves
    n_run = int(curves["iteration"].max())
    gd_curve = curves[(curves["scheme"] == "CR") & (curves["seed"] == seed)]
    gd_curve = gd_curve.set_index("iteration")["error"]
    levels = [float(gd_curve.loc[max(1, round(f * n_run))]) for f in (0.1, 0.5, 1.0)]
    rows = []
    for eps in levels:
        for scheme in ("CR", "SGD"):
            its = [
                first_reach(g["iteration"], g["error"], eps * (1 + 1e-9))
                for _, g in curves[curves["scheme"] == scheme].groupby("seed")
            ]
            med = float(np.nanmedian(its)) if np.isfinite(its).any() else np.nan
            reached = int(np.isfinite(its).sum())
            rows.append((eps, scheme, med, reached, len(its), med * per_iter[scheme]))
    columns = ["epsilon", "scheme", "iterations (median)", "reached in seeds", "of seeds"]
    table = pd.DataFrame(rows, columns=[*columns, "gradient computations"]).set_index(columns[:2])
    return {"table": table, "levels": levels, "per_iter": per_iter, "n_run": n_run}


def _complexity(complexity, conv, seeds):
    table, levels, per_iter = complexity["table"], complexity["levels"], complexity["per_iter"]
    computations = table["gradient computations"]
    cr_fewer = [e for e in levels if not computations[(e, "CR")] >= computations[(e, "SGD")]]
    sgd_never = [eps for eps in levels if table.loc[(eps, "SGD"), "reached in seeds"] == 0]
    return {
        "ours": (
            f"Fig. 10's runs ({complexity['n_run']} iterations, {len(seeds)} seeds), ε = the errors GD reaches after 10 %, 50 %, 100 % "
            f"of the run ({', '.join(f'{e:.3g}' for e in levels)}): CR needs fewer computations at "
            f"{len(cr_fewer)} of 3 levels (SGD never reaches {len(sgd_never)} of them within the run); per iteration CR computes {per_iter['CR']:.0f} point gradients, SGD {per_iter['SGD']:.0f}"
        ),
        "verdict": "reproduced" if len(cr_fewer) == 3 else "partly",
        "reason": ""
        if len(cr_fewer) == 3
        else (
            f"SGD's cheaper iterations need fewer computations at ε = {', '.join(f'{e:.3g}' for e in levels if e not in cr_fewer)}; "
            f"CR needs fewer (or SGD never gets there) at ε = {', '.join(f'{e:.3g}' for e in cr_fewer) or 'none'}: the paper's ordering holds only as ε shrinks"
        ),
        "setting": f"{stand_in(conv['fig10'])}; normalised error (11) = ‖θ − θ*‖²/‖θ*‖²",
    }


def reading_summary(frame: pd.DataFrame, net_table: pd.DataFrame, NET: str) -> str:
    """The closing bullet points (Markdown), computed from the claims rows of this run."""
    sp_rows = frame[
        frame["quantity"].str.startswith("CR speedup")
        & ~frame["quantity"].str.contains("straggler regime")
        & (frame["basis"] == "paper")
    ]
    n_break = int(net_table["breaks"].sum())
    faster = int((sp_rows["outcome"] == "greater").sum())
    verdicts = sp_rows["verdict"].value_counts()
    f13 = sp_rows[sp_rows["item"] == "Fig. 13"]
    lines = [
        f"* **Direction.** In {faster} of {len(sp_rows)} speedup rows (Fig. 10's repeats of Fig. 2 left out) our interval shows CR faster; the paper reports CR faster in all of them.",
        "* **Verdicts:** " + ", ".join(f"{v} {k}" for k, v in verdicts.items()) + ".",
        f"* **UMW:** no ceiling in the model, but the printed UMW − RAR speedups exceed the single-port bound "
        f"N/(L(n − s)) in {n_break} of {len(net_table)} figures (bound table): those EC2 numbers include costs the model does not have and the paper does not name.",
        f"* **RAR:** CR and RAR tie at latencies of {1e3 * net_table['break_even_latency'].min():.2g}–"
        f"{1e3 * net_table['break_even_latency'].max():.2g} ms on this bandwidth, and the uncharged model download favours CR; the convergence figures run on the physical network "
        f"({NET}) without calibrated straggling.",
        "* **Fig. 13** (the paper's own simulation with our constants): "
        + ", ".join(
            f"over {r['quantity'].split(' over ')[1].split(' ')[0]} ours {r['our_value']:.3g}× [{r['ci_low']:.3g}, {r['ci_high']:.3g}] vs paper {r['paper_value']:g}× ({r['verdict']})"
            for _, r in f13.iterrows()
        )
        + ".",
    ]
    return "\n".join(lines)


_ex1 = functools.partial(spec, "exact", "Example 1 (Fig. 4)", section=SEC_BACKGROUND)
_ex2 = functools.partial(spec, "exact", "Example 2 (Fig. 7)", section=SEC_CR)
_cr = functools.partial(spec, "qualitative", section=SEC_CR)
_t1 = functools.partial(spec, section=SEC_T1)
_table = functools.partial(spec, "exact", "Table I", section=SEC_T)
_partly = functools.partial(_table, verdict="partly", setting=_SETTING_T1)
_t2 = functools.partial(spec, section=SEC_T2)
_bounds = functools.partial(_t2, "interval", "Theorem 2, eqs. (7)-(8)", unit="s")
_f2 = functools.partial(
    spec, "comparison", "Fig. 2", section="Fig. 2: average iteration time (N = 84)"
)
_all = functools.partial(spec, section=SEC_ALL)
_ordered = functools.partial(_all, "qualitative", "Figs. 8–13")
_TRUE = {"paper": "True"}
#: Notebook 01's claims, per section: ``evaluate(table, CLAIMS[key], **results)``.
CLAIMS = {
    "example1": [
        _ex1(
            "GC load per worker (N = 3, S = 1)",
            lambda ex1: {"ours": ex1.code.load},
            paper=2 / 3,
            rtol=1e-12,
            setting="eq. (4)'s B",
        ),
        _ex1("online decoder finds the rows of A of eq. (4)", _ex1_rows_match, **_TRUE),
        _ex1(
            "g recovered from any N − S = 2 workers",
            lambda ex1: {"ours": str(bool(ex1.table["max_abs_error"].max() < 1e-12))},
            setting="random partial gradients g_k; tolerance 1e-12",
            **_TRUE,
        ),
    ],
    "example2": [
        _ex2(
            "points per node at d = 15 (r_CR d)",
            _points_per_node,
            paper=4,
            rtol=0,
            setting="eq. (4)'s code on the (3, 2) tree, s = 1",
        ),
    ],
    "example2_rows": [
        _ex2(quantity, lambda ex2, at=at: {"ours": _as_row(getattr(ex2, at))}, paper=paper)
        for quantity, at, paper in (
            ("decoding row at (1,1) when (2,3) straggles", "decoding_11", "[2, -1, 0]"),
            ("decoding row at the master from (1,1) and (1,3)", "decoding_master", "[1, 0, 1]"),
        )
    ]
    + [
        _ex2(
            "master recovers g_D exactly",
            lambda ex2: {"ours": str(bool(ex2.max_abs_error < 1e-12))},
            setting="random per-point gradients, d = 15; tolerance 1e-12",
            **_TRUE,
        ),
        _cr(
            "Example 2 (Fig. 7)",
            "which row of A node (1,1) uses",
            paper="'from (2, 1) and (2, 1) and using the first row in A', then 2m_(2,1) − m_(2,2)",
            ours="[2, −1, 0] is the third row of A (row f belongs to straggler f, here (2,3)); the survivors are (2,1) and (2,2)",
            verdict="paper erratum",
            reason="the text's 'first row' and '(2, 1) and (2, 1)' contradict its own computation 2m_(2,1) − m_(2,2), which is right and which we reproduce",
        ),
    ],
    "remark3": [
        _cr(
            "Remark 3",
            "stragglers beyond s under one parent defeat CR",
            _remark3,
            paper="CR fails to recover the gradient when stragglers are picked adversarially",
        ),
    ],
    "theorem1": [
        _t1(
            "exact",
            "Theorem 1, eq. (5)",
            "r_CR(n=3, s=1, L=2)",
            lambda: {"ours": float(r_cr(3, 1, 2, exact=True))},
            paper=4 / 15,
            rtol=1e-12,
            setting="exact rational arithmetic",
            headline=True,
        ),
        _t1(
            "exact",
            "Remark 2",
            "load cut from 1 to 3 layers at α = 0.5",
            lambda claim7: {"ours": claim7.reduction},
            paper=7.0,
            rtol=1e-12,
            unit="×",
            setting="Remark 2's n → ∞ form: r_GC = α, r_CR = 1/Σ_l α^-l",
        ),
        _t1(
            "not_attempted",
            "Theorem 1 (converse)",
            "no scheme on the tree has load below r_CR",
            paper="r ≥ r_CR for every scheme robust to any s stragglers per parent (Appendix C-B)",
            reason="a statement over all schemes, proved in the paper; we check achievability (our allocation gives every node r_CR d points, eq. (13) solved exactly in the tests) "
            "but cannot test the converse numerically",
        ),
    ],
    "table1": [
        _table(
            "RAR resiliency α",
            lambda t1: {"ours": float(t1.loc["RAR", "alpha_exact"])},
            paper=0.0,
            setting="RAR waits for every worker",
        ),
        _partly("GC resiliency α at r = 1/12, N = 156", _table1_gc, paper=_R1),
        _partly("CR resiliency α at r = 1/12, L = 2", _table1_cr, paper=_R1**0.5),
        spec(
            "qualitative",
            "Table I",
            "parallelisation gain β (nodes receiving at once)",
            paper="RAR Θ(N), GC Θ(1), CR Θ(N^(1−1/L))",
            ours=f"N = {_N156}: RAR {_N156}, GC 1, CR {sum(12**layer for layer in range(2))} (N^(1−1/L) = {_N156**0.5:.3g})",
            verdict="reproduced",
            setting="counted on the simulated schemes, (12, 2) tree",
            section=SEC_T,
        ),
    ],
    "theorem2": [
        _bounds(f"E[T_CR] between the bounds, n = {n_}", functools.partial(_thm2_row, n_=n_))
        for n_ in (8, 16, 32, 64)
    ]
    + [
        _t2(
            "qualitative",
            "Eq. (6) vs Appendix D",
            "rate of the shifted-exponential computation time",
            paper="eq. (6): rate μ/a (independent of the load d_i); Appendix D: rate μ/(r_CR d)",
            ours="we use the appendix's rate μ/d_i: with eq. (6)'s rate the log(1/α) term of (7)-(8) would be (a/μ) log(1/α), not (r_CR d/μ) log(1/α)",
            verdict="paper erratum",
            reason="the model (6) and the proof of Theorem 2 use different rates; Theorem 2 holds for the appendix's",
        ),
    ],
    "network": [
        spec(
            "qualitative",
            "Figs. 2, 8–13",
            "printed UMW/CR − RAR/CR within the single-port bound N/(L(n − s))",
            _network_bound,
            paper="the UMW and RAR speedups printed with Figs. 2 and 8–13",
            reason="derived from the printed speedups: in the paper's own model (Sec. III-C, single port, t_c per gradient) UMW − RAR ≤ N t_c and CR ≥ L(n − s) t_c for any constants, so these EC2 "
            "numbers include costs outside the model that the paper does not name; Fig. 13, its own simulation, fits",
            setting="the paper's printed speedups and trees; no simulation",
            section="IV. The simulated cluster",
            basis="derived",
        ),
    ],
    "fig2": [
        _f2(f"CR speedup over {s} (Fig. 2{regime})", functools.partial(measure, scheme=s), **fixed)
        for regime, measure, fixed in (
            ("", _fig2_physical, {"headline": False}),
            (", straggler regime", _fig2_straggler, {"basis": "derived"}),
        )
        for s in ("UMW", "GC", "RAR")
    ],
    "exact": [
        spec(
            "qualitative",
            LABELS[f],
            f"GD through the actual codes equals centralised GD ({LABELS[f]})",
            functools.partial(_coded_run, fig=f),
            paper="CR (Algorithm 2) and GC recover the exact full gradient every iteration, as UMW and RAR do",
            section="Figs. 8–13: the exact schemes equal GD",
            basis="check",
        )
        for f in ("fig8", "fig10")
    ],
    "speedups": [
        _all(
            "comparison",
            LABELS[name],
            f"CR speedup to target over {scheme} ({LABELS[name]})",
            functools.partial(_conv_speedup, fig=name, scheme=scheme),
            # the abstract's "up to 27.2x and 7.0x over GC and RAR" is Fig. 9(a)
            headline=(name == "fig9a" and scheme in ("GC", "RAR")),
            basis="check" if name == "fig10" and scheme != "SGD" else "paper",
        )
        for name, scheme in SPEEDUP_KEYS
    ],
    "orderings": [
        _ordered(quantity, functools.partial(_ordering, figs=figs, order=order), paper=paper)
        for quantity, figs, order, paper in (
            (
                "CR reaches the target first in every setting",
                None,
                "CR UMW GC RAR SGD",
                "CR achieves significant speedups over all baselines (Figs. 8–13)",
            ),
            (
                "RAR faster than UMW and GC (Figs. 8–12)",
                [f for f in FIGURE_SETTINGS if f != "fig13"],
                "RAR UMW GC",
                "RAR significantly outperforms UMW as well as GC for N = 84 and N = 156",
            ),
            (
                "RAR faster than every master-worker scheme at N = 156",
                ["fig9a", "fig9b", "fig9c", "fig11a", "fig11b", "fig11c", "fig12"],
                "RAR UMW GC SGD",
                "RAR ultimately beats all master-worker schemes at N = 156 (Figs. 9, 11, 12)",
            ),
        )
    ]
    + [
        _all(
            "comparison",
            LABELS[name],
            f"SGD/RAR time to target ({LABELS[name]})",
            functools.partial(_sgd_over_rar, fig=name),
            expected="less",
            basis="derived",
        )
        for name in ("fig8", "fig10")
    ]
    + [
        _all(
            "qualitative",
            "Figs. 10–12",
            "SGD iteration faster than UMW and GC iterations",
            _sgd_iteration_gain,
            paper="SGD achieves a gain in per iteration time over UMW and GC",
        ),
        _all(
            "comparison",
            "Fig. 10",
            "SGD/GD final normalised error (Fig. 10)",
            _sgd_final_error,
            expected="greater",
            paper_text="SGD has higher normalized error (11) w.r.t. the true model",
        ),
        _all(
            "qualitative",
            "Fig. 12",
            "size of the Fig. 12 data set",
            lambda conv: {
                "ours": f"only d = 32760 enters our timing; the stand-in problem is {conv['fig12'].data_shape}"
            },
            paper="caption: (d, p) = (32760, 5000); text: (d, p) = (32760, 500)",
            verdict="paper erratum",
            reason="the paper states two different sizes for one experiment",
        ),
    ],
    "complexity": [
        spec(
            "qualitative",
            "Section III-C.2",
            "total gradient computations to an ε-accurate model, CR vs SGD",
            _complexity,
            paper="CR: O(α^L N log(1/ε) d); SGD: O(α (1/ε) d); CR needs far fewer as ε → 0",
            section="Section III-C.2: total gradient computations",
        ),
    ],
}
