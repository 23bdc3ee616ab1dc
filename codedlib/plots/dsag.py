"""Figures of the DSAG paper (Severinson et al.).

The experiments (:mod:`codedlib.experiments.dsag`) return snake_case data; the display labels
are set here: in each ``plot_*`` (legends, axes, titles: ``title=`` replaces the default
title) and, for the tables a notebook shows, in :data:`LABELS` (:func:`with_labels`).

Reference: severinson2023dsag."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
from matplotlib import ticker
from matplotlib.figure import Figure

from codedlib.plots import new_axes, subplots

if TYPE_CHECKING:
    from types import SimpleNamespace

    import pandas as pd
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

#: Display label of each snake_case column the experiments return whose label a reader sees
#: differently (columns not listed are shown as they are).
LABELS = {
    "load_balanced": "load-balanced",
    "not_balanced": "not balanced",
    "final_gap": "final gap",
}


def with_labels(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its display column labels, for showing it: the names in :data:`LABELS`
    replaced, float column labels (the gaps of
    :func:`codedlib.experiments.dsag.mean_time_to_gap`) formatted with ``:g`` ("1e-06")."""
    return table.rename(columns=lambda c: f"{c:g}" if isinstance(c, float) else LABELS.get(c, c))


def add_caption(fig: Figure, text: str, fontsize: str | float = "small") -> Figure:
    """Write ``text`` under everything the figure draws (the setting: stand-in data, chosen
    parameters); saved with the figure (``savefig.bbox = tight``)."""
    import textwrap

    bottom = fig.get_tightbbox().y0 / fig.get_figheight()  # inches -> figure fraction
    width = max(40, int(fig.get_figwidth() * 15))
    wrapped = "\n".join(textwrap.wrap(text, width))
    fig.text(0.01, bottom - 0.02, wrapped, ha="left", va="top", fontsize=fontsize, color="0.25")
    return fig


def plot_load_scaling(data: SimpleNamespace, *, title: str | None = None) -> Figure:
    """Fig. 1: per-worker mean and variance of computation latency vs load c."""
    fig, axes = subplots(1, 2, figsize=(10, 4))
    workers, avg = data.workers, data.average
    c = np.linspace(0, workers["load"].max() * 1.05, 50)
    for ax, col, slope, power, label in (
        (axes[0], "mean", data.mean_slope, 1, "mean [s]"),
        (axes[1], "var", data.var_slope, 2, "variance [s²]"),
    ):
        ax.scatter(workers["load"], workers[col], s=10, alpha=0.4, label="workers")
        ax.scatter(avg["load"], avg[col], marker="s", s=50, color="k", label="average")
        fit_label = f"fit ∝ c{'²' if power == 2 else ''} through the origin"
        ax.plot(c, slope * c**power, "k--", lw=1, label=fit_label)
        ax.set(xlabel="computational load c (relative)", ylabel=f"computation latency {label}")
        ax.legend(fontsize="small")
    axes[0].set_title("Fig. 1: mean scales with c" if title is None else title)
    axes[1].set_title("variance scales with c²")
    fig.tight_layout()
    return fig


def plot_worker_latency(data: SimpleNamespace, *, title: str | None = None) -> Figure:
    """Fig. 2: per-iteration communication (circles) and computation (triangles) latency."""
    fig, ax = subplots(figsize=(8, 4))
    workers = list(data.workers)
    for j, w in enumerate(workers):
        tr = data.workers[w].trace.iloc[:100]
        color = f"C{j}"
        for column, marker, kind in (
            ("comm_time", "o", "communication"),
            ("compute_time", "^", "computation"),
        ):
            ax.plot(
                tr["iteration"], tr[column], marker, ms=3, color=color, label=f"worker {w} {kind}"
            )
    ax.set_yscale("log")
    if title is None:
        title = f"Fig. 2: worker {workers[1]} is {100 * data.slower_by:.0f}% slower"
    ax.set(xlabel="iteration", ylabel="latency [s]", title=title)
    ax.legend(fontsize="small", ncol=2)
    return fig


def plot_latency_cdfs(data: SimpleNamespace, *, title: str | None = None) -> Figure:
    """Fig. 3: empirical CDFs of the two workers' latency with fitted gammas (dashed)."""
    fig, ax = subplots(figsize=(7, 4))
    for j, w in enumerate(data.workers):
        x = np.sort(data.workers[w].trace["compute_time"].to_numpy())
        label = f"worker {w} computation (recorded)"
        ax.step(x, np.arange(1, x.size + 1) / x.size, "-", color=f"C{j}", where="post", label=label)
        grid = np.linspace(x.min() * 0.9, x.max() * 1.1, 200)
        ax.plot(grid, data.workers[w].comp_fit.cdf(grid), "k--", lw=1)
    ax.plot([], [], "k--", lw=1, label="fitted gamma")
    if title is None:
        title = "Fig. 3: empirical CDFs and fitted gamma distributions"
    ax.set(xlabel="computation latency [s]", ylabel="CDF", title=title)
    ax.legend(fontsize="small")
    return fig


def plot_bursts(data: SimpleNamespace, *, title: str | None = None) -> Figure:
    """Fig. 4: computation latency of the three workers with the most burst time."""
    fig, ax = subplots(figsize=(8, 4))
    trace, in_burst = data.trace, data.in_burst
    shown = np.argsort(-in_burst.sum(axis=0), kind="stable")[:3]
    for j, w in enumerate(shown):
        sub = trace[trace.worker == w]
        ax.plot(sub["iteration"], sub["compute_time"], lw=0.8, color=f"C{j}", label=f"worker {w}")
        burst_its = np.flatnonzero(in_burst[:, w])
        if burst_its.size:
            ax.plot(burst_its, sub["compute_time"].to_numpy()[burst_its], ".", ms=2, color=f"C{j}")
    if title is None:
        title = (
            f"Fig. 4: bursts (at least one of {in_burst.shape[1]} workers bursting in "
            f"{100 * data.any_burst_fraction:.0f}% of iterations)"
        )
    ax.set(xlabel="iteration", ylabel="computation latency [s]", title=title)
    ax.legend(fontsize="small")
    return fig


def plot_order_statistics(df: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Fig. 5: latency of the w-th fastest worker, recorded vs heterogeneous and i.i.d. models."""
    fig, ax = subplots(figsize=(7, 4))
    ax.plot(df["w"], df["recorded"], "o", ms=3, color="k", label="recorded (trace)")
    ax.plot(df["w"], df["heterogeneous"], "-", label="model: independent, per-worker gamma")
    ax.plot(df["w"], df["iid"], "--", label="model: i.i.d. gamma (global moments)")
    title = f"Fig. 5: order statistics, N = {len(df)}" if title is None else title
    ax.set(xlabel="w", ylabel="latency of the w-th fastest worker [s]", title=title)
    ax.legend(fontsize="small")
    return fig


def plot_cumulative_latency(
    df: pd.DataFrame,
    *,
    title: str | None = None,
    extra: Mapping[str, ArrayLike] | None = None,
    model_note: str = "",
) -> Figure:
    """Fig. 6: cumulative latency, recorded vs the event-driven and order-statistic models;
    ``extra``: label -> a further curve (one value per iteration, dash-dotted); ``model_note``
    is appended to the two models' legend labels (e.g. ", fit to the trace")."""
    fig, ax = subplots(figsize=(7, 4))
    for j, (w, sub) in enumerate(df.groupby("w")):
        color = f"C{j}"
        ax.plot(sub["iteration"], sub["recorded"], "-", color=color, lw=2, label=f"recorded, w={w}")
        ax.plot(sub["iteration"], sub["event_driven"], "--", color="k", lw=1)
        ax.plot(sub["iteration"], sub["order_statistic"], ":", color=color, lw=1.5)
    ax.plot([], [], "--", color="k", lw=1, label=f"event-driven model (Sec. IV-B){model_note}")
    ax.plot(
        [], [], ":", color="gray", lw=1.5, label=f"order-statistic model (Sec. IV-A){model_note}"
    )
    for j, (label, curve) in enumerate((extra or {}).items()):
        curve = np.asarray(curve, dtype=float)
        style = "-." if j % 2 == 0 else (0, (3, 1, 1, 1, 1, 1))
        x = np.arange(1, curve.size + 1)
        ax.plot(x, curve, linestyle=style, color=f"C{j + 4}", lw=1.5, label=label)
    title = "Fig. 6: cumulative latency over 100 iterations" if title is None else title
    ax.set(xlabel="iteration", ylabel="cumulative latency [s]", title=title)
    ax.legend(fontsize="small")
    return fig


def plot_load_balancing(
    df: pd.DataFrame, *, summary: pd.DataFrame, seed: int, title: str | None = None
) -> Figure:
    """Fig. 7: per-worker latency with (left) and without (right) load balancing, from
    :func:`codedlib.experiments.dsag.fig7_load_balancing` over seeds (the run of ``seed``, its
    ``marks``), and each seed's mean latency over the last iterations, balanced vs not, and
    their mean (``summary``: ``fig7_final_latency``)."""
    df = df[df.seed == seed]
    fig = Figure(figsize=(14, 4))
    grid = fig.add_gridspec(1, 3, width_ratios=(1, 1, 0.55))
    first = fig.add_subplot(grid[0])
    axes = [first, fig.add_subplot(grid[1], sharey=first), fig.add_subplot(grid[2])]
    colors = {"slowed": "C0", "sped up": "C3", "other": "0.6"}
    for ax, run in zip(axes[:2], ("load-balanced", "not balanced"), strict=True):
        sub = df[df.run == run]
        for _worker, tr in sub.groupby("worker"):
            ax.plot(tr["iteration"] + 1, tr["latency"], lw=1, color=colors[tr["role"].iloc[0]])
        if run == "load-balanced":
            # darker than the grid so the re-partitioning marks stand out from it
            for k, it in enumerate(sub.marks.iloc[0]):
                label = "re-partitioning" if k == 0 else None
                ax.axvline(it, color="0.35", ls=":", lw=1.0, zorder=0, label=label)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize="small", loc="upper right")
        ax.set_title(
            title if (title is not None and ax is axes[0]) else f"Fig. 7: {run} (seed {seed})"
        )
        ax.set_xlabel("iteration")
    for role, c in colors.items():
        axes[1].plot([], [], color=c, label=role)
    axes[1].legend(fontsize="small")
    axes[0].set_ylabel("per-worker latency [s]")
    ax = axes[2]
    runs = ("load_balanced", "not_balanced")
    for _, row in summary.iterrows():
        ax.plot([0, 1], [row[r] for r in runs], "-o", color="0.5", ms=4, lw=1)
    means = [summary.attrs["mean"][r] for r in runs]
    ax.plot([0, 1], means, "s", color="k", ms=7, label="mean over seeds")
    ax.set_xticks([0, 1], ["balanced", "not\nbalanced"])
    ax.set(xlim=(-0.4, 1.4), ylabel="iteration latency [s]")
    ax.set_title(f"mean of the last iterations, {len(summary)} seeds")
    ax.legend(fontsize="small", loc="upper left")
    fig.tight_layout()
    return fig


def _method_styles(methods):
    """Colour, line style and width of each Fig. 8 method (an -LB variant shares its family's
    colour, dashed)."""
    fixed = {"GD": "k", "coded": "0.55"}
    # distinct hues in order of appearance (C3 is too close to C1, C7 is grey like 'coded')
    palette = [f"C{j}" for j in (0, 1, 2, 4, 5, 9, 6, 8, 3)]
    family_colors, styles = {}, {}
    for method in methods:
        family = method.replace("-LB", "")
        color = next((c for key, c in fixed.items() if family.startswith(key)), None)
        if color is None:
            color = family_colors.setdefault(family, palette[len(family_colors) % len(palette)])
        dashed = "--" if "-LB" in method else "-"
        styles[method] = (color, dashed, 2.2 if family.startswith("DSAG") else 1.5)
    return styles


def plot_convergence(
    df: pd.DataFrame, ax: Axes | None = None, *, title: str | None = None
) -> Figure:
    """Fig. 8: suboptimality gap vs time for each method (one run)."""
    fig, ax = new_axes(ax, figsize=(7, 4.5))
    styles = _method_styles(list(dict.fromkeys(df["method"])))
    for method, sub in df.groupby("method", sort=False):
        color, style, width = styles[method]
        gap = np.maximum(sub["gap"].to_numpy(), 1e-16)
        ax.plot(sub["time"], gap, style, color=color, lw=width, label=method)
    ax.set_yscale("log")
    ax.set(xlabel="time [s] (simulated)", ylabel="suboptimality gap", ylim=(1e-13, None))
    ax.set_title("Fig. 8" if title is None else title)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def plot_convergence_bands(
    band: pd.DataFrame, per_seed: pd.DataFrame, summary: pd.DataFrame, *, title: str | None = None
) -> Figure:
    """Fig. 8 over seeds: median gap vs time per method with the min-max band across seeds
    (left) and the time each method takes to reach each gap (``per_seed``: from
    ``time_to_gap_per_seed``; ``summary``: from ``time_to_gap_summary``, its methods and gaps):
    every seed as a dot, the mean with its 95 % t-interval as an error bar (right)."""
    fig, axes = subplots(1, 2, figsize=(13, 4.8), width_ratios=(1.35, 1))
    order = list(dict.fromkeys(band["method"]))
    styles = _method_styles(order)
    ax = axes[0]
    n_seeds = int(band["n_seeds"].max())
    for method in order:
        sub = band[band.method == method]
        color, style, width = styles[method]
        median, low, high = (np.maximum(sub[c], 1e-16) for c in ("median", "low", "high"))
        ax.plot(sub["time"], median, style, color=color, lw=width, label=method)
        if n_seeds > 1:
            ax.fill_between(sub["time"], low, high, color=color, alpha=0.15, lw=0)
    ax.set_yscale("log")
    ax.set(ylim=(1e-13, None), xlabel="time [s] (simulated)", ylabel="suboptimality gap")
    ax.set_title("Fig. 8" if title is None else title)
    ax.legend(
        fontsize="x-small",
        loc="upper center",
        bbox_to_anchor=(0.5, -0.2),
        ncol=3,
        title=(f"median of {n_seeds} seeds, band: min–max" if n_seeds > 1 else None),
        title_fontsize="x-small",
    )
    ax = axes[1]
    methods = list(dict.fromkeys(summary.method))
    gaps = list(dict.fromkeys(summary.gap))
    width = 0.8 / len(methods)
    markers = ["s", "o", "D", "^", "v", "P"]
    for r in summary.itertuples():
        j, g_idx = methods.index(r.method), gaps.index(r.gap)
        color = styles.get(r.method, ("k", "-", 1))[0]
        marker = markers[j % len(markers)]
        face = "white" if "-LB" in r.method else color
        at_gap = np.isclose(per_seed.gap, r.gap, rtol=1e-9, atol=0.0)
        t = per_seed[(per_seed.method == r.method) & at_gap].time.to_numpy(dtype=float)
        x = g_idx + (j - (len(methods) - 1) / 2) * width
        reached = t[np.isfinite(t)]
        ax.plot(np.full(reached.size, x), reached, ".", ms=4, color=color, alpha=0.7)
        style = dict(ms=6, color=color, mfc=face, label=r.method if g_idx == 0 else None)
        if np.isfinite(r.low):
            m, lo, hi = r.mean, r.low, r.high
            ax.errorbar([x], [m], yerr=[[m - lo], [hi - m]], fmt=marker, capsize=3, lw=1.5, **style)
        elif r.never < r.n:
            ax.plot([x], [r.mean], marker, **style)
        if r.never:
            note = dict(fontsize="xx-small", color=color, rotation=90, ha="center", va="bottom")
            ax.annotate(f"{r.never} never", (x, 0), xycoords=("data", "axes fraction"), **note)
    ax.set_xticks(range(len(gaps)), [f"{g:g}" for g in gaps])
    ax.set_ylim(bottom=0)
    ax.set(xlabel="suboptimality gap reached", ylabel="time to reach it [s] (simulated)")
    ax.set_title("time to gap: seeds (dots), mean ± 95 % CI (clipped at 0)")
    ax.legend(fontsize="x-small", loc="upper left")
    fig.tight_layout()
    return fig


def plot_lb_gain_vs_task_noise(
    table: pd.DataFrame,
    paper_range: tuple[float, float],
    chosen: float,
    *,
    title: str | None = None,
) -> Figure:
    """Left: DSAG-LB / DSAG time to the gap per per-task noise level, one line per balancer
    schedule (geometric mean of the paired per-seed ratios, 95 % interval), the paper's range
    shaded; right: mean fresh results per iteration of DSAG and of DSAG-LB per schedule. From
    :func:`codedlib.experiments.dsag.lb_gain_table`."""
    fig, (ax1, ax2) = subplots(1, 2, figsize=(10.0, 4.0))
    cvs = sorted(table["comp_cv"].unique())
    for k, (name, t) in enumerate(table.groupby("schedule", sort=False)):
        t = t.sort_values("comp_cv")
        r, color = t["LB / DSAG"].to_numpy(), f"C{k + 2}"
        yerr = [r - t["ci low"], t["ci high"] - r]
        ax1.errorbar(
            t.comp_cv, r, yerr=yerr, fmt="o-", capsize=3, color=color, label=f"balancer {name}"
        )
        ax2.plot(t.comp_cv, t["fresh, DSAG-LB"], "o-", color=color, label=f"DSAG-LB, {name}")
    base = table.groupby("comp_cv")["fresh, DSAG"].first()
    ax2.plot(base.index, base.to_numpy(), "o-", color="C0", label="DSAG")
    ax1.axhspan(*paper_range, color="0.85", label=f"paper: {paper_range[0]:g}–{paper_range[1]:g}")
    ax1.axhline(1.0, color="0.5", lw=0.8)
    ax1.axvline(chosen, color="k", ls=":", lw=1, label=f"chosen for Fig. 8: {chosen:g}")
    ax1.set_ylabel("time to gap: DSAG-LB / DSAG")
    ax1.legend(fontsize=7)
    ax2.set_ylabel("fresh results per iteration (mean over seeds)")
    ax2.legend(fontsize=7)
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_xticks(cvs, [f"{cv:g}" for cv in cvs])
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel("per-task coefficient of variation (comp_cv)")
    fig.suptitle("" if title is None else title, fontsize=9)
    fig.tight_layout()
    return fig


def plot_sgd_floor_vs_rows(
    df: pd.DataFrame, fit: Mapping[str, float], *, title: str | None = None
) -> Figure:
    """SGD's and DSAG's gap floor (median over the last quarter of each run) against the rows per
    subpartition, one point per seed, log-log; the fitted power law for SGD extended to
    ``paper_rows`` (the paper's subpartitions), the 1e-3 level marked. From
    :func:`codedlib.experiments.dsag.sgd_gap_vs_subpartition_rows` (``df``) and
    :func:`~codedlib.experiments.dsag.sgd_floor` (``fit``: ``slope``, ``intercept``,
    ``paper_rows``)."""
    slope, intercept, paper_rows = fit["slope"], fit["intercept"], fit["paper_rows"]
    fig, ax = subplots(1, 1, figsize=(7.0, 4.2))
    for method, color in (("SGD", "C1"), ("DSAG", "C0")):
        sub = df[df.method == method]
        label = f"{method} (one point per seed)"
        ax.plot(sub.rows_per_subpartition, sub.floor_gap, "o", color=color, alpha=0.8, label=label)
    top = max(float(df.rows_per_subpartition.max()), float(paper_rows))
    x = np.geomspace(float(df.rows_per_subpartition.min()), top, 50)
    label = f"SGD fit: floor ∝ rows^{slope:.2f} (extrapolated)"
    ax.plot(x, np.exp(intercept) * x**slope, color="C1", ls="--", label=label)
    ax.axvline(paper_rows, color="k", ls=":", lw=1, label=f"paper: ≈ {paper_rows:,.0f} rows")
    ax.axhline(1e-3, color="0.5", lw=0.8, label="gap 1e-3")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set(xlabel="rows per subpartition", ylabel="gap floor (median, last quarter of the run)")
    ax.legend(fontsize=7)
    ax.set_title("" if title is None else title, fontsize=9)
    fig.tight_layout()
    return fig


def plot_participation(participation: ArrayLike, *, title: str | None = None) -> Figure:
    """Each worker's participation u_i (share of iterations it was fresh in, Section VI-B) as
    bars; from :func:`codedlib.experiments.dsag.latency_prediction`."""
    u = np.asarray(participation, dtype=float)
    fig, ax = subplots(figsize=(7, 2.8), layout="constrained")
    ax.bar(np.arange(1, u.size + 1), u)
    ax.set(xlabel="worker", ylabel="participation $u_i$", title="" if title is None else title)
    return fig
