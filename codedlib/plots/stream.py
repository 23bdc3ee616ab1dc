"""Figures for paper 5 (stream coded computing). Each ``plot_*`` takes a result of
:mod:`codedlib.experiments.stream`, an optional ``ax`` (single-panel figures) and ``title``,
and returns the Figure; display labels are set here.

Reference: esfahanizadeh2022stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import matplotlib
import numpy as np

from codedlib.plots import new_axes, subplots

if TYPE_CHECKING:
    from collections.abc import Mapping
    from types import SimpleNamespace

    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from codedlib.theory.stream import StreamWorkers


def plot_example2(
    table: pd.DataFrame, ax: Axes | None = None, *, title: str | None = None
) -> Figure:
    """Example 2: paper's delays vs ours (simulated mean with 95% CI, or closed form)."""
    fig, ax = new_axes(ax, figsize=(7.5, 3.6))
    rows = table[~table["paper"].isna()].reset_index(drop=True)
    y = np.arange(len(rows))
    ax.scatter(rows["paper"], y + 0.15, marker="s", color="C3", label="paper", zorder=3)
    sim = rows["sim_mean"].to_numpy(dtype=float)
    has_sim = ~np.isnan(sim)
    label = "ours, one stream of J jobs each"
    for yi, values in zip(y, rows["sim_per_seed"]):
        if isinstance(values, tuple) and values:
            y_values = np.full(len(values), yi - 0.3)
            ax.scatter(values, y_values, marker="|", s=40, color="0.5", label=label)
            label = None
    lo, hi = rows["sim_q025"].to_numpy(float), rows["sim_q975"].to_numpy(float)
    ok = np.isfinite(lo) & np.isfinite(hi)
    label = "central 95% of single streams"
    ax.hlines(y[ok] - 0.42, lo[ok], hi[ok], color="0.3", lw=1.5, label=label)
    x, err, label = sim[has_sim], rows["sim_ci_halfwidth"][has_sim], "ours, simulated mean (95% CI)"
    ax.errorbar(
        x, y[has_sim] - 0.15, xerr=err, fmt="o", color="C0", capsize=3, label=label, zorder=3
    )
    theory = rows["theory"].to_numpy(dtype=float)
    has_th = np.isfinite(theory)
    label = "ours, closed form"
    ax.scatter(theory[has_th], y[has_th] - 0.15, marker="D", color="C2", label=label, zorder=3)
    ax.set_yticks(y, rows["quantity"], fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("average job delay [s]")
    ax.set_title("Example 2 (P = 5, K = 50, Ω = 1.1, I = 50, λ = 0.01)" if title is None else title)
    ax.legend(fontsize="small", loc="lower right")
    return fig


def plot_split_metrics(df: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Fig. 2: (a) ``m_p``, ``c_p`` and ``sigma_p`` per worker; (b) ``E[T]+gamma E[T^2]``."""
    fig, (a, b) = subplots(1, 2, figsize=(10, 3.6))
    x = df["worker"].to_numpy()
    a.bar(x, df["sigma_p"], color="C0", alpha=0.5, width=0.5, label="σ_p")
    a.scatter(x, df["m_p"], marker="s", color="C3", label="m_p = E[T_p]", zorder=3)
    a.scatter(x, df["c_p"], marker="o", color="C8", label="c_p", zorder=3)
    a.set(xlabel="worker p", ylabel="seconds", title="(a) workers")
    a.legend(fontsize="small")
    w = 0.38
    b.bar(x - w / 2, df["metric_uniform"], width=w, color="C1", label="uniform split")
    b.bar(x + w / 2, df["metric_optimal"], width=w, color="C0", label="optimal split (integer κ)")
    theta, label = df["metric_optimal_continuous"], "optimal split (real κ) = θ"
    b.scatter(x + w / 2, theta, marker="_", s=300, color="k", label=label, zorder=3)
    for xi, (ku, ko) in zip(x, zip(df["kappa_uniform"], df["kappa_optimal"])):
        b.annotate(f"{ku}", (xi - w / 2, 0), ha="center", va="bottom", fontsize="x-small")
        b.annotate(f"{ko}", (xi + w / 2, 0), ha="center", va="bottom", fontsize="x-small")
    b.set(xlabel="worker p (numbers: κ_p)", title="(b) balance metric of eq. (4)")
    b.set_ylabel(r"$E[T_{p,\kappa}] + \gamma\, E[T^2_{p,\kappa}]$")
    b.legend(fontsize="small")
    fig.tight_layout()
    if title is not None:
        fig.suptitle(title, y=1.03, fontsize="small")
    return fig


def plot_activity(data: SimpleNamespace, *, title: str | None = None) -> Figure:
    """Fig. 3: busy (coloured, one colour per job) and idle periods of every worker."""
    kinds = ("uniform", "optimal")
    fig, axes = subplots(2, 1, figsize=(10, 6.0), sharex=True)
    colors = matplotlib.colormaps["tab10"]
    end = max(float(np.max(getattr(data, k).jobs["finish"])) for k in kinds)
    for ax, kind in zip(axes, kinds):
        d = getattr(data, kind)
        for (worker, job), g in d.intervals.groupby(["worker", "job"]):
            spans, row = list(zip(g["start"], g["stop"] - g["start"])), (worker + 0.6, 0.8)
            ax.broken_barh(spans, row, facecolors=colors(job % 10), edgecolor="none")
        for j, t in enumerate(d.jobs["arrival"]):
            ax.axvline(t, color=colors(j % 10), ls="--", lw=1)
        ax.set_yticks(np.arange(1, d.n_workers + 1))
        ax.set(ylabel="worker", title=f"{kind} split (dashed: job arrivals)")
        ax.set_xlim(0, end * 1.02)
    axes[-1].set_xlabel("time [s]")
    fig.tight_layout()
    if title is not None:
        fig.suptitle(title, y=1.01, fontsize="small")
    return fig


def plot_delay_vs_redundancy(result: SimpleNamespace, *, title: str | None = None) -> Figure:
    """Fig. 4: average delay vs Omega (top) and job-delay realisations (bottom)."""
    fig, (top, bottom) = subplots(2, 1, figsize=(7.5, 7), sharex=True)
    t = result.table
    for kind, color in (("uniform", "C3"), ("optimal", "C0")):
        mean, half = t[f"{kind}_mean"], t[f"{kind}_ci_halfwidth"]
        label = f"{kind} split, simulated (purging)"
        top.errorbar(t["omega"], mean, yerr=half, marker="o", color=color, capsize=3, label=label)
    mean, half = t["optimal_no_purging_mean"], t["optimal_no_purging_ci_halfwidth"]
    label, style = "optimal split, simulated (no purging)", {"ls": ":", "marker": ".", "alpha": 0.7}
    top.errorbar(t["omega"], mean, yerr=half, **style, color="C2", capsize=2, label=label)
    for column, style, label in (
        ("theory_no_purging", {"color": "C2", "lw": 2}, "theory, no purging (eq. 7)"),
        ("lower_bound", {"color": "k", "lw": 1.5}, "lower bound D_L (eq. 9)"),
        ("lower_bound_queue", {"color": "k", "ls": "--", "lw": 1}, "D_L behind the queue (M/D/1)"),
    ):
        top.plot(t["omega"], t[column], **style, label=label)
    top.set(ylabel="average job delay [s]", yscale="log")
    top.legend(fontsize="x-small")
    r = result.realizations
    omegas = np.sort(r["omega"].unique())
    step = np.min(np.diff(omegas)) if omegas.size > 1 else 0.02
    rng = np.random.default_rng(0)
    for kind, color, shift in (("uniform", "C3", -0.2), ("optimal", "C0", 0.2)):
        sub = r[r["split"] == kind]
        jitter = rng.uniform(-0.12, 0.12, len(sub)) * step
        x = sub["omega"] + shift * step + jitter
        bottom.scatter(x, sub["delay"], s=4, alpha=0.5, color=color, label=kind)
    bottom.set(yscale="log", xlabel="redundancy ratio Ω", ylabel="job delay [s]")
    bottom.legend(fontsize="small", markerscale=3)
    fig.tight_layout()
    if title is not None:
        top.set_title(title, fontsize="small")
    return fig


def _legend_of_both(ax, ax2, on, **kw):
    """One legend for the artists of ``ax`` and its twin ``ax2``, drawn on ``on``; ``ax2`` draws
    no grid (its lines would cross ``ax``'s)."""
    ax2.grid(False)
    (h1, l1), (h2, l2) = ax.get_legend_handles_labels(), ax2.get_legend_handles_labels()
    on.legend(h1 + h2, l1 + l2, **kw)


def plot_cluster(
    unit_workers: StreamWorkers, ax: Axes | None = None, *, title: str | None = None
) -> Figure:
    """Fig. 5: the heterogeneous cluster (unit-task ``StreamWorkers``) - unit-task mean time and
    communication time."""
    fig, ax = new_axes(ax, figsize=(8, 3.4))
    x, w = np.arange(1, unit_workers.n_workers + 1), unit_workers
    ax.scatter(x, w.task_mean, marker="s", s=12, color="C3", label="E[U_p] (unit task)")
    ax.set(yscale="log", xlabel="worker p", ylabel="E[U_p] [s per unit complexity]")
    ax2 = ax.twinx()
    ax2.scatter(x, w.comm_time, marker="o", s=12, color="C8", label="c_p")
    ax2.set_ylabel("c_p [s]")
    # below the axes: the twin axis would draw its points over a legend inside them
    kw = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2), "ncol": 2, "frameon": False}
    _legend_of_both(ax, ax2, ax2, fontsize="small", **kw)
    if title is None:
        ax.set_title(f"seeded heterogeneous cluster, P = {w.n_workers}")
    else:
        ax.set_title(title, fontsize="small")
    return fig


def plot_mismatch(
    result: SimpleNamespace, ax: Axes | None = None, *, title: str | None = None
) -> Figure:
    """Fig. 6: mismatch (eq. 10) vs K, over all workers (as printed) and over active ones."""
    fig, ax = new_axes(ax, figsize=(7, 3.6))
    t = result.table
    ax.plot(t["K"], t["mismatch"], marker=".", color="C0", label="over all P workers (eq. 10)")
    ax.axvline(result.best_k, color="C0", ls="--", lw=1)
    ax.set(xlabel="number of critical tasks K (C = Z / K)", ylabel="mismatch, all workers")
    ax2 = ax.twinx()
    ax2.plot(t["K"], t["mismatch_active"], marker=".", color="C1", label="over active workers only")
    ax2.axvline(result.best_k_active_only, color="C1", ls=":", lw=1)
    ax2.set(yscale="log", ylabel="mismatch, active workers")
    _legend_of_both(ax, ax2, ax, fontsize="small", loc="upper right")
    if title is not None:
        ax.set_title(title)
    return fig


def plot_theta_active(
    result: SimpleNamespace, ax: Axes | None = None, *, title: str | None = None
) -> Figure:
    """Fig. 7: theta and the number of active workers vs K for the optimal split."""
    fig, ax = new_axes(ax, figsize=(7, 3.6))
    t = result.table
    ax.plot(t["K"], t["theta"], color="C0", marker=".", label="θ")
    ax.set(xlabel="number of critical tasks K", ylabel="θ")
    ax2 = ax.twinx()
    ax2.step(t["K"], t["n_active"], where="mid", color="C3", label="active: a_p < θ (Theorem 2)")
    label = "κ_p ≥ 1 after rounding"
    ax2.step(t["K"], t["n_assigned"], where="mid", color="C1", ls="--", label=label)
    ax2.set_ylabel("number of workers")
    _legend_of_both(ax, ax2, ax, fontsize="small", loc="center right")
    if title is not None:
        ax.set_title(title)
    return fig


def plot_table2(df: pd.DataFrame, ax: Axes | None = None, *, title: str | None = None) -> Figure:
    """Table II as a chart: simulated delay (95% CI) and theory per K; unstable rows marked."""
    fig, ax = new_axes(ax, figsize=(6, 3.4))
    x = np.arange(len(df))
    stable = df["sim_stable"].to_numpy(dtype=bool)
    mean, half = df["sim_mean"][stable], df["sim_ci_halfwidth"][stable]
    label = "simulated, optimal split (95% CI)"
    ax.bar(x[stable], mean, yerr=half, capsize=4, color="C0", alpha=0.8, label=label)
    th = df["theory_no_purging"].to_numpy(dtype=float)
    ok = np.isfinite(th)
    ax.scatter(x[ok], th[ok], marker="D", color="C2", zorder=3, label="P-K, eq. (7)")
    for xi in x[~stable]:
        ax.annotate("unstable", (xi, 0), ha="center", va="bottom", color="C3")
    ax.set_xticks(x, [str(k) for k in df["K"]])
    ax.set(xlabel="K", ylabel="average job delay [s]")
    # head room so the legend sits above the bars and error bars, not on them
    bars = (df["sim_mean"] + df["sim_ci_halfwidth"])[stable].to_numpy(float)
    ax.set_ylim(0, 1.35 * np.nanmax(np.concatenate([bars, th[ok], [1.0]])))
    ax.legend(fontsize="small", loc="upper right", ncol=2)
    if title is not None:
        ax.set_title(title, fontsize="small")
    return fig


def plot_unstable_growth(
    df: pd.DataFrame,
    paper: Mapping[str, float],
    ax: Axes | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """An unstable stream: the average delay of the first J jobs per seed (points) against
    the linear drift ``E[T_s] + (J - 1)/2 (E[T_s] - E[T_a])`` (line); ``paper`` maps labels to
    the paper's J = 1000 averages (Table II), drawn as markers just right of the largest J.
    """
    fig, ax = new_axes(ax, figsize=(6.5, 3.6))
    for seed, g in df.groupby("seed"):
        label = "ours, one stream per seed" if seed == df["seed"].min() else None
        ax.plot(g["J"], g["mean_delay"], marker="o", ls="none", color="C0", alpha=0.6, label=label)
    pred = df.groupby("J")["prediction"].mean()
    ax.plot(pred.index, pred.to_numpy(), color="C2", label="E[T_s] + (J-1)/2 (E[T_s] - E[T_a])")
    J = float(df["J"].max())
    markers = "sD^v<>ph"
    for i, (label, value) in enumerate(paper.items()):
        marker, label = markers[i % len(markers)], f"paper, Table II, {label}"
        x = J * (1.025 + 0.02 * i)
        ax.scatter([x], [value], marker=marker, color="C3", zorder=3, label=label)
    ax.set(xlabel="first J jobs of the stream", ylabel="average job delay [s]")
    ax.legend(fontsize="small", loc="upper left")
    if title is not None:
        ax.set_title(title, fontsize="small")
    return fig


def plot_example2_setting_check(check: SimpleNamespace, *, title: str | None = None) -> Figure:
    """Each simulated stream's average delay against its realised arrival rate, per split,
    with the least-squares line, the paper's value and the rate where they meet
    (:func:`codedlib.experiments.stream.example2_setting_check`).
    """
    streams, match = check.streams, check.match.set_index("split")
    fig, axes = subplots(1, 2, figsize=(10.0, 4.0))
    for ax, split in zip(axes, ("optimal", "uniform")):
        x, y = streams["realised_rate"].to_numpy(), streams[split].to_numpy()
        color = "#0173b2" if split == "optimal" else "#de8f05"
        ax.plot(x, y, ".", color=color, ms=4, label=f"one simulated stream ({split} split)")
        m = match.loc[split]
        grid = np.linspace(min(x.min(), m["rate_matching_paper"]) * 0.98, x.max() * 1.02, 50)
        ax.plot(grid, m["intercept"] + m["slope"] * grid, "k-", lw=1, label="least squares")
        ax.axhline(m["paper"], color="crimson", ls="--", lw=1, label=f"paper: {m['paper']:g} s")
        label = f"meets the paper at {m['rate_matching_paper'] * 1e3:.2f} jobs / 1000 s"
        ax.axvline(m["rate_matching_paper"], color="crimson", ls=":", lw=1, label=label)
        ax.axvline(0.01, color="#888888", lw=0.8, label="λ = 0.01 (listed)")
        ax.set_xlabel("realised arrival rate of the stream, J / t_J [jobs/s]")
        ax.set_ylabel("average job delay of the stream [s]")
        ax.legend(fontsize=7)
        ax.set_title(f"{split} split", fontsize=9)
    fig.suptitle("" if title is None else title, fontsize=9)
    fig.tight_layout()
    return fig


def plot_stability(
    scan: SimpleNamespace, window: SimpleNamespace, *, title: str | None = None
) -> Figure:
    """The uniform split's instability (Section IV-A): (a) the delay growth per job
    (``scan.slopes``: mean and 95 % interval over seeds) against lambda, with the closed-form
    drift and the critical rates; (b) the job delay at the paper's lambda (``scan.by_job``);
    (c) ``rho`` of both splits against the workers' speed scale (``window``).
    """
    fig, (a, b, c) = subplots(1, 3, figsize=(15, 4.2))
    streams, thr = scan.streams, scan.thresholds
    colors = {"uniform": "C3", "optimal": "C0"}
    for kind, g in scan.slopes.groupby("split"):
        x, y, err = (g[c].to_numpy() for c in ("arrival_rate", "slope", "ci_halfwidth"))
        label = f"{kind} split, simulated (95% CI)"
        a.errorbar(x, y, yerr=err, fmt="o", capsize=3, color=colors[kind], label=label)
        t, rates = thr[thr["split"] == kind].iloc[0], streams["arrival_rate"]
        grid = np.linspace(rates.min() * 0.97, rates.max() * 1.03, 200)
        drift = np.maximum(0.0, t["service_mean"] - 1 / grid)
        label = f"{kind}: E[T_s] − E[T_a] (closed form)"
        a.plot(grid, drift, color=colors[kind], lw=1, label=label)
        crit, label = t["critical_rate"], f"{kind}: λ* = 1/E[T_s] = "
        if grid[0] <= crit <= grid[-1]:
            a.axvline(crit, color=colors[kind], ls=":", lw=1, label=f"{label}{crit:.5f}")
        else:
            a.plot([], [], " ", label=f"{label}{crit:.4f} (off the axis)")
    a.axvline(0.01, color="k", ls="--", lw=1, label="paper's λ = 0.01")
    a.set(xlabel="arrival rate λ [jobs/s]", ylabel="growth of the job delay [s per job]")
    a.set_title("(a) delay growth vs λ", fontsize="small")
    a.legend(fontsize="x-small", loc="upper left")
    by = scan.by_job
    for kind, g in by.groupby("split"):
        b.plot(g["job"], g["mean_delay"], color=colors[kind], lw=1, label=f"{kind} split")
        low, high = g["mean_delay"] - g["ci_halfwidth"], g["mean_delay"] + g["ci_halfwidth"]
        low = low.where(low > 0, g["mean_delay"] / 2)
        b.fill_between(g["job"], low, high, color=colors[kind], alpha=0.25, lw=0)
    b.set(yscale="log", ylabel="job delay [s] (mean over seeds, 95% band)")
    b.set_xlabel(f"job index j (blocks of {int(by['block'].iloc[0])} jobs)")
    b.set_title("(b) at the paper's λ = 0.01", fontsize="small")
    b.legend(fontsize="small", loc="center right")
    t = window.table
    for kind in ("uniform", "optimal"):
        c.plot(t["scale"], t[f"rho_{kind}"], color=colors[kind], label=f"ρ, {kind} split")
    c.axhline(1.0, color="k", lw=0.8)
    s_u, s_o = window.s_uniform, window.s_optimal
    label = f"paper's statement holds: s ∈ [{s_u:.3f}, {s_o:.2f})"
    c.axvspan(s_u, s_o, color="0.85", zorder=0, label=label)
    c.axvline(1.0, color="k", ls="--", lw=1, label="our stand-in (s = 1)")
    label = f"Fig. 4 stand-in's speeds (s = {window.fig4_scale:g})"
    c.axvline(window.fig4_scale, color="0.4", ls=":", lw=1, label=label)
    c.set(xscale="log", yscale="log", ylabel="ρ = λ E[T_s] (eq. 8)")
    c.set_xlabel("task-time scale s of the workers (s > 1: slower)")
    c.set_title("(c) unlisted workers: where the threshold sits", fontsize="small")
    c.legend(fontsize="x-small", loc="upper left")
    if title:
        fig.suptitle(title, fontsize="small")
    fig.tight_layout()
    return fig
