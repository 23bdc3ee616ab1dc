"""Figures of the CodedReduce notebook; a ``plot_*`` never shows or saves.

Reference: reisizadeh2022codedreduce, tandon2017gradient.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

import numpy as np

from codedlib.codes.codedreduce import position_of, tree_links
from codedlib.plots import new_axes, subplots
from codedlib.schemes.codedreduce import SCHEMES
from codedlib.theory.codedreduce import n_tree_workers

if TYPE_CHECKING:
    from types import SimpleNamespace

    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from codedlib.codes.codedreduce import CodedReduceAllocation
    from codedlib.codes.cyclic import GradientCode

SCHEME_COLORS = dict(zip(SCHEMES, ("#7f7f7f", "#0173b2", "#de8f05", "#029e73", "#d55e00")))

#: Display label of every column the notebook's tables (``rename(columns=LABELS)``) and the
#: figures show from :mod:`codedlib.experiments.codedreduce`'s frames; ``_PLAIN`` names show
#: with spaces.
_PLAIN = """alpha_exact beta_order ci_low ci_high speedup_ci_low speedup_ci_high computation_share
communication_share straggling_share to_target_ci_low to_target_ci_high ratio_ci_low ratio_ci_high"""
LABELS = {
    "decoding_row": "decoding row a_f",
    "paper_row": "paper's row of A",
    "max_abs_error": "max |a_f B G - g|",
    "alpha_paper": "alpha (paper)",
    "beta_paper": "beta (paper)",
    "alpha_approx": "alpha ≈",
    "lower_bound": "lower (7)",
    "monte_carlo_mean": "Monte Carlo E[T_CR]",
    "upper_bound": "upper (8)",
    "computation_term": "computation term (7)-(8)",
    "sibling_order_statistic": "E[T_(n-s)] exact",
    "communication_term": "communication term (7)",
    "monte_carlo_rest": "MC - E[T_(n-s)]",
    "mean_iteration_time": "mean iteration time [s]",
    "load_points": "load [points/worker]",
    "busiest_node_messages": "messages at busiest node",
    "busiest_node_gradients": "gradients' worth received at busiest node",
    "cr_speedup_ours": "CR speedup (ours)",
    "cr_speedup_paper": "CR speedup (paper)",
    "time_ci_low": "ci low [s]",
    "time_ci_high": "ci high [s]",
    "communication_bound_limit": "communication-bound limit",
    "mean_iteration_time_ratio_ours": "mean-iteration-time ratio (ours)",
    "to_target_ours": "to target (ours)",
    "r_gc": "r_GC",
    "r_cr": "r_CR",
    "cr_points_range": "CR points (min..max)",
    "r_cr_d": "r_CR d",
} | {name: name.replace("_", " ") for name in _PLAIN.split()}


def _yerr(mid, low, high) -> np.ndarray:
    """Error-bar lengths below and above ``mid`` for the interval ``low``..``high``."""
    mid = np.asarray(mid, dtype=float)
    return np.vstack([mid - np.asarray(low, dtype=float), np.asarray(high, dtype=float) - mid])


def _tree_positions(n: int, L: int):
    """Hierarchical layout: layer l at y = -l, leaves evenly spaced, parents centred."""
    pos = {}
    for rank in range(n_tree_workers(n, L), -1, -1):  # children before their parent
        (layer, index), kids = position_of(rank, n), tree_links(n, L, rank)[1]
        x = float(np.mean([pos[k][0] for k in kids])) if kids else float(index)
        pos[rank] = (x, -float(layer))
    return pos


def tree_title(alloc: CodedReduceAllocation) -> str:
    """Default title of :func:`plot_tree`: the tree's shape, N, s, d and r_CR d."""
    return f"CodedReduce ({alloc.n}, {alloc.L})-regular tree: N = {alloc.n_workers} workers,\ns = {alloc.s} per parent, d = {alloc.d}, r_CR d = {alloc.r_cr * alloc.d:.4g}"


def plot_tree(
    alloc: CodedReduceAllocation,
    ax: Axes | None = None,
    show_data: bool | None = None,
    stragglers: Collection[int] = (),
    *,
    title: str | None = None,
) -> Figure:
    """Draw the CR tree of an allocation (Figs. 5-7): node labels, data counts and, for small
    trees, each node's local data with its combining coefficients. ``stragglers`` (ranks) are
    drawn hatched grey.
    """
    import networkx as nx

    n, L = alloc.n, alloc.L
    if n**L > 400:
        raise ValueError(f"tree too large to draw: n^L = {n**L} leaves > 400; use a smaller n or L")
    graph = alloc.to_networkx()
    pos = _tree_positions(n, L)
    show_data = n**L <= 9 if show_data is None else show_data
    labelled = show_data or n**L <= 27
    # every leaf gets room for its label ("2,13") when labels are drawn
    width = max(7.0, min(18.0, 1.6 * n**L if show_data else (0.6 if labelled else 0.35) * n**L))
    fig, ax = new_axes(ax, figsize=(width, 1.6 + 1.5 * L))
    stragglers = set(stragglers)
    colour = lambda r, l: "#d9d9d9" if r in stragglers else "#d55e00" if l < L else "#0173b2"
    colors = ["#404040"] + [colour(r, layer) for r, layer in graph.nodes(data="layer") if r]
    size = 900 if show_data else (330 if labelled else max(60, 3000 // max(n**L, 1)))
    nx.draw_networkx_edges(graph, pos, ax=ax, arrows=False, edge_color="#999999")
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_color=colors, node_size=size)
    if labelled:
        labels = {r: graph.nodes[r]["label"] if r else "M" for r in graph.nodes}
        nx.draw_networkx_labels(
            graph, pos, labels, ax=ax, font_size=6 if n**L > 9 else 7, font_color="white"
        )
    if show_data:
        style = dict(textcoords="offset points", ha="center", va="top", fontsize=6)
        for nd in alloc.nodes[1:]:
            text = nd.local_data.describe(max_items=3).replace(" + ", "\n")
            ax.annotate(f"{nd.n_points} pts\n{text}", pos[nd.rank], xytext=(0, -22), **style)
    ax.set_title(tree_title(alloc) if title is None else title)
    ax.set_axis_off()
    ax.margins(x=0.05, y=0.25)
    return fig


def plot_topologies(
    n: int = 3, L: int = 2, ax: Axes | None = None, *, title: str | None = None
) -> Figure:
    """Fig. 1: ring (RAR), star (GC / UMW) and tree (CR) on the same N = n + ... + n^L."""
    import networkx as nx

    N = n_tree_workers(n, L)
    axes = subplots(1, 3, figsize=(12, 4))[1] if ax is None else np.atleast_1d(ax)
    fig = axes[0].figure
    style = {"node_size": 180, "font_size": 7, "font_color": "white"}
    labels = {0: "M"} | {i: str(i) for i in range(1, N + 1)}  # node 0 is the master
    ring = nx.cycle_graph(range(1, N + 1))
    nx.draw_networkx(ring, nx.circular_layout(ring), ax=axes[0], node_color="#029e73", **style)
    axes[0].set_title(f"RAR: ring of N = {N}\nα = 0, β = Θ(N)")
    star, style = nx.star_graph(N), style | {"labels": labels}
    master = lambda colour: ["#404040"] + [colour] * N
    star_pos = nx.spring_layout(star, seed=1)
    nx.draw_networkx(star, star_pos, ax=axes[1], node_color=master("#0173b2"), **style)
    axes[1].set_title(f"GC: master + N = {N}\nα = r, β = Θ(1)")
    tree = nx.balanced_tree(n, L)  # numbered breadth-first, like our ranks
    nx.draw_networkx(tree, _tree_positions(n, L), ax=axes[2], node_color=master("#d55e00"), **style)
    axes[2].set_title(f"CR: ({n}, {L}) tree\nα ≈ r^(1/L), β = Θ(N^(1-1/L))")
    for a in axes:
        a.set_axis_off()
    if title is not None:
        fig.suptitle(title, y=1.1)
    return fig


def gc_title(code: GradientCode) -> str:
    """Default title of :func:`plot_gc_diagram`: N, S and the load of the code."""
    return f"Gradient coding, N = {code.n_workers}, S = {code.stragglers}, load {code.load:.3g}"


def plot_gc_diagram(
    code: GradientCode, ax: Axes | None = None, *, title: str | None = None
) -> Figure:
    """Fig. 4: each worker's coded message ``sum_k B[i,k] g_k`` and the decoding rows."""
    fig, ax = new_axes(ax, figsize=(7, 3.2))
    n = code.n_workers
    box = lambda fc: {"ha": "center", "bbox": {"boxstyle": "round", "fc": fc}}
    master = f"master: waits for any N − S = {n - code.stragglers}"
    ax.text(0.5, 0.92, master, fontsize=10, **box("#eeeeee"))
    arrow = {"arrowprops": {"arrowstyle": "->", "color": "#555555"}, "xycoords": "axes fraction"}
    for i in range(n):
        terms = [
            f"{'−' if c < 0 else '+'} {'' if np.isclose(abs(c), 1.0) else f'{abs(c):g}·'}g{k + 1}"
            for c, k in ((code.B[i, k], k) for k in code.support(i))
        ]
        text = " ".join(terms).removeprefix("+ ")
        x = (i + 0.5) / n
        ax.annotate("", xy=(0.5, 0.84), xytext=(x, 0.45), textcoords="axes fraction", **arrow)
        label = f"W{i + 1}\n{text}"
        ax.text(x, 0.35, label, va="top", fontsize=9, transform=ax.transAxes, **box("#cfe2f3"))
    ax.set_axis_off()
    ax.set_title(gc_title(code) if title is None else title)
    return fig


def plot_rar_schedule(N: int = 3, ax: Axes | None = None, *, title: str | None = None) -> Figure:
    """Fig. 3: which reduced segment every worker holds after each RAR round
    (reduce-scatter then all-gather).
    """
    fig, ax = new_axes(ax, figsize=(2 + 1.6 * N, 1 + 0.45 * 2 * N))
    # reduce-scatter round k: worker i (0-based) completes segment i - k from k + 1 workers
    rows = [
        (f"RS {k}", [f"v{(i - k) % N + 1}: {k + 1}/{N}" for i in range(N)]) for k in range(1, N)
    ]
    rows += [(f"AG {k}", [f"{k + 1} full segments"] * N) for k in range(1, N)]
    labels, cells = zip(*rows)
    workers = [f"W{i + 1}" for i in range(N)]
    table = ax.table(cells, rowLabels=labels, colLabels=workers, loc="center", cellLoc="center")
    table.scale(1, 1.3)
    ax.set_axis_off()
    if title is None:
        title = f"Fig. 3: Ring-AllReduce, N = {N}: 2(N−1) = {2 * (N - 1)} rounds of p/N-sized segments\n(entry: segment completed so far / contributors)"
    ax.set_title(title)
    return fig


def plot_load_curves(
    df: pd.DataFrame,
    ax: Axes | None = None,
    claim: SimpleNamespace | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """Theorem 1 / Remark 2: computation load vs resiliency alpha for L = 1 (GC), 2, 3."""
    fig, ax = new_axes(ax, figsize=(6.5, 4.2))
    for L, group in df.groupby("L"):
        label = "L = 1 (GC)" if L == 1 else f"L = {L} (CR)"
        ax.plot(group["alpha"], group["load"], label=label, lw=2)
    ax.set(yscale="log", xlabel="straggler resiliency α = s/n")
    ax.set_ylabel("computation load r (fraction of d)")
    if claim is not None:
        a = claim.alpha
        three, text = claim.load_three_layers, f"{claim.reduction:.3g}× at α = {a:g}"
        arrow = {"arrowstyle": "->"}
        ax.annotate(text, xy=(a, three), xytext=(a + 0.05, three / 3), arrowprops=arrow)
        ax.plot([a, a], [three, claim.load_one_layer], "k:", lw=1)
    ax.legend()
    default = "Theorem 1 / Remark 2: CR load ≈ α^L vs GC load ≈ α (n → ∞)"
    ax.set_title(default if title is None else title)
    return fig


def theorem2_title(df: pd.DataFrame) -> str:
    """What the Monte Carlo rows of ``experiments.theorem2_check`` show, in words: for which n
    the 95 % interval of the mean lies inside the bounds (7)-(8) without their o(.) terms and
    for which below (7) or above (8).
    """
    parts = []
    for where in ("inside", "below (7)", "above (8)"):
        ns = [int(n) for n, p in zip(df["n"], df["position"]) if p == where]
        if ns:
            label = "between (7) and (8)" if where == "inside" else where
            parts.append(f"{label} for n = {', '.join(map(str, ns))}")
    return f"Theorem 2: Monte Carlo E[T_CR] {'; '.join(parts)}\n(bounds without their o(·) terms)"


def plot_theorem2(
    df: pd.DataFrame, ax: Axes | None = None, subtitle: str = "", *, title: str | None = None
) -> Figure:
    """Monte Carlo E[T_CR] (95 % interval) against Theorem 2's lower (7) and upper (8) bounds
    without their o(.) terms, vs n; the title says where the simulation falls (computed).
    """
    fig, ax = new_axes(ax, figsize=(6.5, 4.2))
    ax.plot(df["n"], df["lower_bound"], "v--", label="lower bound (7), o(·) dropped")
    ax.plot(df["n"], df["upper_bound"], "^--", label="upper bound (8), o(·) dropped")
    mean, label = df["monte_carlo_mean"], "Monte Carlo E[T_CR] (95 % interval)"
    yerr = _yerr(mean, df["ci_low"], df["ci_high"])
    ax.errorbar(df["n"], mean, yerr=yerr, fmt="o-", color="k", capsize=3, label=label)
    ax.set_xscale("log", base=2)
    ax.set(xlabel="children per parent n (α, L fixed)", ylabel="expected iteration time [s]")
    title = theorem2_title(df) if title is None else title
    ax.set_title(title + (f"\n{subtitle}" if subtitle else ""), fontsize=9)
    ax.legend(fontsize=8)
    return fig


def plot_iteration_times(
    df: pd.DataFrame, ax: Axes | None = None, *, title: str | None = None
) -> Figure:
    """Fig. 2: mean iteration time per scheme, CR's speedups (ours / paper's) on the bars; with
    ``experiments.fig2_summary``'s ``*_ci_low``/``*_ci_high`` columns, with their 95 % intervals.
    """
    fig, ax = new_axes(ax, figsize=(6.5, 4.2))
    names = list(df.index)
    vals = df["mean_iteration_time"].to_numpy()
    yerr = _yerr(vals, df["time_ci_low"], df["time_ci_high"]) if "time_ci_low" in df else None
    colors = [SCHEME_COLORS.get(n, "C0") for n in names]
    ax.bar(names, vals, color=colors, yerr=yerr, capsize=4, error_kw={"elinewidth": 1.2})
    for i, name in enumerate(names):
        ours, paper = df.loc[name, ["cr_speedup_ours", "cr_speedup_paper"]]
        text = f"{ours:.2f}×"
        if "speedup_ci_low" in df:
            lo, hi = df.loc[name, ["speedup_ci_low", "speedup_ci_high"]]
            text += f"\n[{lo:.2f}, {hi:.2f}]" if lo != hi else ""
        text += "" if np.isnan(paper) else f"\n(paper {paper:g}×)"
        if name != "CR":
            ax.text(i, vals[i], text, ha="center", va="bottom", fontsize=7)
    ax.set_ylabel(LABELS["mean_iteration_time"])
    title = "Average iteration time (CR speedup: ours, paper)" if title is None else title
    ax.set_title(title, fontsize=9)
    ax.set_ylim(0, vals.max() * 1.35)
    return fig


def plot_convergence(
    result: SimpleNamespace,
    ax: Axes | None = None,
    subtitle: str = "",
    *,
    title: str | None = None,
) -> Figure:
    """Error vs wall-clock time per scheme (Figs. 8-13) from ``experiments.convergence`` or
    ``experiments.convergence_over_seeds``. With several seeds each scheme is drawn as the
    median over seeds on a common time grid with a band from the smallest to the largest
    seed (``result.bands``; the legend says how many seeds).
    """
    fig, ax = new_axes(ax, figsize=(6.5, 4.2))
    curves = result.curves
    n_seeds = curves["seed"].nunique() if "seed" in curves else 1
    if n_seeds > 1:
        for name, band in result.bands.groupby("scheme", sort=False):
            colour = SCHEME_COLORS.get(name)
            ax.plot(band["time"], band["median"], label=name, color=colour, lw=1.8)
            ax.fill_between(band["time"], band["low"], band["high"], color=colour, alpha=0.25, lw=0)
    else:
        for name, g in curves.groupby("scheme", sort=False):
            ax.plot(g["time"], g["error"], label=name, color=SCHEME_COLORS.get(name), lw=1.8)
    if result.task != "softmax":  # accuracy on a linear axis
        ax.set_yscale("log")
    ax.set(xscale="log", xlabel="simulated wall-clock time [s]", ylabel=result.metric)
    if title is None:
        cfg = result.config
        label = str(result.figure).replace("fig", "Fig. ")
        title = f"{label}: N = {cfg.N} ({cfg.n}, {cfg.L}) tree, α = {cfg.s}/{cfg.n}"
    if subtitle:
        title += f"\n{subtitle}"
    ax.set_title(title, fontsize=9)
    seeds = f"median, band min–max\nover {n_seeds} seeds" if n_seeds > 1 else None
    ax.legend(title=seeds, fontsize=8, title_fontsize=7)
    return fig


def plot_time_breakdown(
    breakdowns: Mapping[str, pd.DataFrame], *, title: str | None = None
) -> Figure:
    """Stacked bars per scheme: computation (the load's shift ``a d_i``), communication and
    waiting for stragglers (:func:`codedlib.experiments.codedreduce.time_breakdown`); one
    panel per regime (``breakdowns`` maps a panel title to a breakdown frame).
    """
    parts = (("computation", "#56b4e9"), ("communication", "#009e73"), ("straggling", "#cc79a7"))
    fig, axes = subplots(1, len(breakdowns), figsize=(4.2 * len(breakdowns), 4.0), squeeze=False)
    for ax, (label, df) in zip(axes[0], breakdowns.items()):
        bottom = np.zeros(len(df))
        x = np.arange(len(df))
        for part, color in parts:
            vals = df[part].to_numpy(dtype=float)
            ax.bar(x, vals, bottom=bottom, color=color, label=part, width=0.65)
            bottom += vals
        for xi, (total, share) in enumerate(zip(df["total"], df["straggling_share"])):
            text = f"{total * 1e3:.0f} ms\n{100 * share:.0f} % wait"
            ax.text(xi, total, text, ha="center", va="bottom", fontsize=7)
        ax.set_xticks(x, list(df.index))
        ax.set(ylim=(0, 1.25 * float(df["total"].max())), ylabel="mean iteration time [s]")
        ax.set_title(label, fontsize=9)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=3)
    fig.suptitle("Where the iteration time goes" if title is None else title, fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def plot_regime_map(
    df: pd.DataFrame,
    marks: Mapping[str, tuple[float, float]] | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """CR's speedup over RAR (RAR time / CR time, log colour scale centred on 1) over
    bandwidth x latency, one panel per straggler delay; the contour at 1 is where the
    ordering flips. ``marks`` maps a label to ``(bandwidth, latency)`` points to mark.
    """
    from matplotlib.colors import LogNorm

    delays = sorted(df["straggle_delay"].unique())
    grid = dict(squeeze=False, sharey=True, layout="constrained")
    fig, axes = subplots(1, len(delays), figsize=(3.4 * len(delays) + 1.2, 3.9), **grid)
    values = df["cr_over_rar"].to_numpy(dtype=float)
    span = float(np.max(np.abs(np.log10(values))))
    norm = LogNorm(vmin=10**-span, vmax=10**span)
    for ax, delay in zip(axes[0], delays):
        sub = df[df["straggle_delay"] == delay]
        grid = sub.pivot(index="latency", columns="bandwidth", values="cr_over_rar")
        bw = grid.columns.to_numpy(dtype=float) * 8 / 1e6  # Mb/s
        lat = grid.index.to_numpy(dtype=float) * 1e3  # ms
        mesh = ax.pcolormesh(bw, lat, grid.to_numpy(), norm=norm, cmap="RdBu", shading="nearest")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no contour where one scheme wins everywhere
            cs = ax.contour(bw, lat, grid.to_numpy(), levels=[1.0], colors="k", linewidths=1.2)
        ax.clabel(cs, fmt={1.0: "CR = RAR"}, fontsize=7)
        for name, (b, l) in (marks or {}).items():
            xy = (b * 8 / 1e6, l * 1e3)
            ax.plot(*xy, "k*", ms=9)
            ax.annotate(name, xy, (4, 4), textcoords="offset points", fontsize=7)
        ax.set(xscale="log", yscale="log", xlabel="bandwidth [Mb/s]")
        ax.set_title(f"straggler delay D = {delay:g} s", fontsize=9)
    axes[0][0].set_ylabel("per-message latency [ms]")
    cbar = fig.colorbar(mesh, ax=axes[0].tolist(), shrink=0.9, pad=0.01)
    cbar.set_label("RAR time / CR time  (> 1: CR faster)")
    fig.suptitle("Where CR beats RAR" if title is None else title, fontsize=9)
    return fig


def plot_speedups_vs_paper(
    table: pd.DataFrame, ranges: pd.DataFrame | None = None, *, title: str | None = None
) -> Figure:
    """Every CR speedup the notebook compares with the paper, one panel per scheme. ``table``:
    ``figure``, ``scheme``, ``paper``, ``ours``, ``ci_low``, ``ci_high`` (95 % over seeds);
    ``ranges`` (grey bars): ``figure``, ``scheme``, ``min``, ``max``, the span our clock can
    produce for that setting over its free constants.
    """
    schemes = [s for s in ("UMW", "GC", "RAR", "SGD") if s in set(table["scheme"])]
    figures = list(dict.fromkeys(table["figure"]))
    fig, axes = subplots(1, len(schemes), figsize=(3.2 * len(schemes), 4.2), sharey=True)
    axes = np.atleast_1d(axes)
    x = np.arange(len(figures))
    for ax, scheme in zip(axes, schemes):
        sub = table[table["scheme"] == scheme].set_index("figure").reindex(figures)
        if ranges is not None:
            rg = ranges[ranges["scheme"] == scheme].set_index("figure").reindex(figures)
            label = "model range (free constants)"
            ax.bar(x, rg["max"] - rg["min"], 0.6, rg["min"], color="#dddddd", label=label)
        ours = sub["ours"].to_numpy(dtype=float)
        yerr, label = _yerr(ours, sub["ci_low"], sub["ci_high"]), "ours (95 % interval)"
        ax.errorbar(x, ours, yerr, fmt="o", color=SCHEME_COLORS["CR"], capsize=3, label=label)
        ax.plot(x, sub["paper"].to_numpy(dtype=float), "kx", ms=8, mew=2, label="paper")
        ax.axhline(1.0, color="#888888", lw=0.8)
        ax.set(yscale="log", xlabel="paper figure")
        ax.set_xticks(x, [f.replace("fig", "") for f in figures], rotation=60, fontsize=8)
        ax.set_title(f"CR over {scheme}", fontsize=9)
    axes[0].set_ylabel("CR speedup [×]")
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle("CR speedups: paper vs ours" if title is None else title, fontsize=9)
    fig.tight_layout()
    return fig
