"""Figures of notebook 06 (the shoot-out): rankings, trajectories, regime maps, scale; each
names its stand-ins (the cluster's ``describe()`` and the stand-in problem).

Reference: severinson2023dsag, reisizadeh2022codedreduce.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import matplotlib as mpl
import numpy as np

from codedlib.plots import new_axes, subplots
from codedlib.schemes.shootout import SCHEMES

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from codedlib.experiments.shootout import Ranking, RegimeMap
    from codedlib.schemes.shootout import Shootout

#: One colour per scheme, fixed across every figure of the notebook.
SCHEME_COLORS = {name: mpl.colormaps["tab20"](i % 20) for i, name in enumerate(sorted(SCHEMES))}
SCHEME_COLORS["none"] = (0.85, 0.85, 0.85, 1.0)

_AXIS_LABELS = {
    "pareto_tail": "Pareto tail index ξ (← heavier tail)",
    "straggling": "straggling share v (shifted exponential)",
    "comm_to_comp": "communication / computation (one message / one share, via bandwidth)",
    "latency": "per-message latency [s] (bandwidth kept)",
    "heterogeneity": "heterogeneity h (worker i is 1 + h i/N slower)",
    "burst_factor": "burst slowdown factor (1 = no bursts)",
    "n_workers": "workers N",
}
_LOG_AXES = {"comm_to_comp", "n_workers", "latency"}


def problem_label(setup: Shootout) -> str:
    """The stand-in problem in words, for captions."""
    p = setup.problem
    return (
        f"stand-in problem: synthetic least squares, {p.n_samples // setup.n_workers} "
        f"rows/worker x {p.dim} features, target gap {setup.target:g}"
    )


def plot_ranking(ranking: Ranking, ax: Axes | None = None, title: str | None = None) -> Figure:
    """Time to target per scheme (mean and 95 % interval over seeds), ratio to the fastest
    written beside each bar, bars hatched where the interval cannot tell it from the fastest;
    right panels: communication (numbers) and computation (shares) per iteration."""
    table = ranking.table.iloc[::-1]
    if ax is None:
        fig, (ax, ax2, ax3) = subplots(
            1, 3, figsize=(13.0, 0.35 * len(table) + 2.0), gridspec_kw={"width_ratios": [3, 1, 1]}
        )
    else:
        fig, ax2, ax3 = ax.figure, None, None
    y = np.arange(len(table))
    finite = np.isfinite(table["mean"].to_numpy())
    means = np.where(finite, table["mean"], np.nan)
    err = np.vstack([means - table["ci_low"], table["ci_high"] - means])
    colors = [SCHEME_COLORS[s] for s in table.scheme]
    bars = ax.barh(y, means, xerr=np.where(finite, err, 0), color=colors, capsize=2)
    top = np.nanmax(means) if finite.any() else 1.0
    for bar, yi, (_, r) in zip(bars, y, table.iterrows()):
        if r["verdict"].startswith("tied"):
            bar.set_hatch("//")
        if np.isfinite(r["mean"]):
            text = f"×{r['ratio_to_best']:.2f}" if r["ratio_to_best"] != 1 else "fastest"
            ax.text(r["ci_high"] + 0.01 * top, yi, f" {text}", va="center", fontsize=8)
        else:
            ax.text(0.01 * top, yi, "target not reached", va="center", fontsize=8)
    ax.set_yticks(y, [f"{s} ({SCHEMES[s].paper})" for s in table.scheme])
    ax.set_xlabel(f"time to relative gap {ranking.setup.target:g} [s] (hatched: tied with fastest)")
    ax.set_xlim(0, top * 1.25)
    if ax2 is not None:
        for side, col, verb in ((ax2, "numbers", "sent"), (ax3, "shares", "computed")):
            side.barh(y, table[f"{col}_per_iteration"], color=colors)
            side.set_yticks(y, [])
            side.set_xlabel(f"{col} {verb} / iteration")
    seeds = int(table["n_seeds"].iloc[0])
    setting = f"{ranking.setup.cluster.describe()}; {seeds} seeds; {problem_label(ranking.setup)}"
    fig.suptitle(f"{title or 'Every scheme on one cluster'}\n{setting}", fontsize=9)
    return fig


def plot_trajectories(
    ranking: Ranking, seed: int | None = None, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """Relative optimality gap against clock time, one line per scheme (one seed)."""
    traj = ranking.trajectories
    seed = int(traj.seed.min()) if seed is None else seed
    fig, ax = new_axes(ax, figsize=(7.5, 4.5))
    for scheme, g in traj[traj.seed == seed].groupby("scheme", sort=False):
        ax.plot(g.time, g.gap, color=SCHEME_COLORS[scheme], label=scheme, lw=1.2)
    ax.axhline(ranking.setup.target, color="k", ls=":", lw=0.8)
    ax.set(yscale="log", ylim=(max(1e-12, ranking.setup.target / 100), 2))
    ax.set(xlabel="clock time [s]", ylabel="relative gap (F - F*) / (F0 - F*)")
    ax.legend(fontsize=7, ncol=3)
    setting = f"{ranking.setup.cluster.describe()}; {problem_label(ranking.setup)}"
    ax.set_title(f"{title or f'Convergence on one cluster (seed {seed})'}\n{setting}", fontsize=9)
    return fig


def plot_regime_map(
    rmap: RegimeMap,
    points: pd.DataFrame | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Winner of each cell (colour), its margin over the runner-up (text, ``≈`` and hatching
    where the interval cannot tell them apart); the papers' operating points (``points``: a
    frame with ``paper`` and the two axes' values) drawn at their interpolated position."""
    cells = rmap.cells
    xs, ys = list(dict.fromkeys(cells.x)), list(dict.fromkeys(cells.y))
    fig, ax = new_axes(ax, figsize=(max(1.2 * len(xs) + 3.0, 7.5), 0.8 * len(ys) + 2.4))
    for _, c in cells.iterrows():
        i, j = xs.index(c.x), ys.index(c.y)
        tied = c.verdict != "wins"
        color, hatch = SCHEME_COLORS.get(c.winner, "w"), "//" if tied else None
        ax.add_patch(
            mpl.patches.Rectangle((i - 0.5, j - 0.5), 1, 1, ec="w", lw=1.0, fc=color, hatch=hatch)
        )
        margin = f"≈{c.runner_up}" if tied else f"×{c.margin:.2f}"
        margin = margin if np.isfinite(c.margin) else ""
        ax.text(i, j + 0.12, c.winner, ha="center", va="center", fontsize=7, weight="bold")
        ax.text(i, j - 0.2, margin, ha="center", va="center", fontsize=6)
    ax.set(xlim=(-0.5, len(xs) - 0.5), ylim=(-0.5, len(ys) - 0.5))
    ax.set_xticks(range(len(xs)), [f"{v:g}" for v in xs])
    ax.set_yticks(range(len(ys)), [f"{v:g}" for v in ys])
    ax.set(xlabel=_AXIS_LABELS[rmap.x_axis], ylabel=_AXIS_LABELS[rmap.y_axis])
    if points is not None:
        placed: dict = {}
        for _, p in points.iterrows():
            px, py = p.get(rmap.x_axis, np.nan), p.get(rmap.y_axis, np.nan)
            if not (np.isfinite(px) and np.isfinite(py)):
                continue
            fx = _fractional_index(xs, px, rmap.x_axis in _LOG_AXES)
            fy = _fractional_index(ys, py, rmap.y_axis in _LOG_AXES)
            label = p["paper"] + (f" (N={p['n_workers']})" if "n_workers" in p else "")
            placed.setdefault((round(fx, 3), round(fy, 3)), []).append(label)
        for (fx, fy), labels in placed.items():
            ax.plot(fx, fy, marker="*", ms=12, mfc="w", mec="k")
            box = {"fc": "w", "alpha": 0.8, "lw": 0}
            kw = {"textcoords": "offset points", "fontsize": 7, "bbox": box}
            ax.annotate("\n".join(labels), (fx, fy), xytext=(6, 4), **kw)
    notes = f"\nbase: {rmap.base.describe()}\n×: runner-up / winner; hatched ≈: tied (95 % CI)"
    ax.set_title((title or "Which scheme reaches the target first") + notes, fontsize=8)
    return fig


def _fractional_index(values, v, log):
    grid, v = (np.log(values), np.log(v)) if log else (np.asarray(values, dtype=float), v)
    order = np.argsort(grid)
    return float(np.interp(v, grid[order], np.arange(len(values))[order]))


def plot_scale(runs: pd.DataFrame, title: str | None = None) -> Figure:
    """The scale study's ``runs``. Left: time per iteration vs N per scheme (log-log). Right: the
    simulator's wall time per worker-iteration (what N = 10,000 costs to simulate)."""
    fig, (ax1, ax2) = subplots(1, 2, figsize=(12.0, 4.5))
    runs = runs.assign(per_worker_iteration=runs.wall_seconds / (runs.n_workers * runs.max_iter))
    agg = runs.groupby(["scheme", "n_workers"]).agg(
        t=("time_per_iteration", "mean"), wall=("per_worker_iteration", "mean")
    )
    for scheme in dict.fromkeys(runs.scheme):
        g = agg.loc[scheme]
        for ax, col in ((ax1, "t"), (ax2, "wall")):
            ax.plot(g.index, g[col], marker="o", ms=3, color=SCHEME_COLORS[scheme], label=scheme)
    ylabels = ("mean time per iteration [s]", "simulator wall time per worker-iteration [s]")
    for ax, ylabel in zip((ax1, ax2), ylabels):
        ax.set(xscale="log", yscale="log", xlabel="workers N", ylabel=ylabel)
    ax1.legend(fontsize=7, ncol=2)
    default = "From 10 to 10,000 workers (tree schemes choose (n, L) per N)"
    fig.suptitle(title or default, fontsize=9)
    return fig


def plot_headlines(
    headlines: pd.DataFrame, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """Each paper's headline ratio (slower / faster scheme) on its operating point of the one
    cluster, with the 95 % paired interval, beside the paper's number where it gives one;
    right of the dashed line at 1 the paper's direction holds."""
    rows = headlines.iloc[::-1].reset_index(drop=True)
    fig, ax = new_axes(ax, figsize=(9.0, 0.5 * len(rows) + 1.8))
    y = np.arange(len(rows))
    for yi, r in rows.iterrows():
        if np.isfinite(r.ratio):
            err = [[r.ratio - r.ratio_low], [r.ratio_high - r.ratio]]
            ax.errorbar(r.ratio, yi, xerr=err, fmt="o", color="k", capsize=3)
        else:
            arms = ((r.slower, r.numerator), (r.faster, r.denominator))
            missed = ", ".join(name for name, arm in arms if not np.all(np.isfinite(arm)))
            text = f"  {missed} misses the target in some seeds"
            ax.text(1.0, yi, text, va="center", fontsize=7)
        paper = r.paper_value
        if isinstance(paper, tuple):
            ax.plot(paper, [yi, yi], color="tab:red", lw=4, alpha=0.6)
        elif paper is not None and np.isfinite(paper):
            ax.plot(paper, yi, marker="D", color="tab:red", ms=6)
    ax.axvline(1.0, color="0.5", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_yticks(y, [f"{r.paper}: {r.quantity}" for _, r in rows.iterrows()], fontsize=8)
    ax.set_xlabel("slower / faster scheme (paired over seeds; > 1: the paper's direction)")
    default = "Each paper's headline on its operating point of the one cluster"
    notes = "\nblack: ours (95 % CI); red: the paper's number where it gives one"
    ax.set_title((title or default) + notes, fontsize=9)
    return fig
