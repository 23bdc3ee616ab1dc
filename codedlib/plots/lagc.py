"""Figures of the LAGC notebook. Every ``plot_*`` takes data (from
:mod:`codedlib.experiments.lagc`) and returns a Figure; nothing is shown or saved here.

Reference: zhang2021lagc, tandon2017gradient, chen2018lag.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import matplotlib
import numpy as np
from matplotlib import ticker

from codedlib.plots import new_axes, subplots

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd
    from matplotlib.figure import Figure

    from codedlib.theory.lagc import LAGCLayout

#: Display labels of the experiments' snake_case columns and result fields (what a reader sees:
#: axis labels, legend entries and table headers, via ``frame.rename(columns=LABELS)``).
LABELS = {
    # storage_layouts names: panel titles of Figs. 3-5
    "gc": "Fig. 3: GC (N=3, r=2)",
    "lag": "Fig. 4: LAG (N=3)",
    "g_lag": "Fig. 5(a): G-LAG (N=6, r=2, G=3)",
    "lagc": "Fig. 5(b): LAGC (N=6, r=2, G=2)",
    # compare_schemes (the explorer's table)
    "upper_bound": "upper bound",
    # complexity_curves
    "n_groups": "G",
    # bound_grid_summary
    "selection_bound": "bound_1_minus_dC",
    "sqrt_d_xi": "sqrt_Dxi",
}

_STYLE = {
    "GD": ("k", "-"),
    "GC": ("tab:blue", "--"),
    "LAG": ("tab:orange", "-."),
    "G-GD": ("tab:green", ":"),
    "G-LAG": ("tab:red", "-"),
    "LAGC": ("tab:purple", "--"),
}


def _style(label):
    return _STYLE.get(label.split(" ")[0], ("tab:gray", "-"))


def plot_storage_layouts(layouts: Mapping[str, LAGCLayout]) -> Figure:
    """Figs. 3-5 as storage diagrams: rows are workers, columns are data batches; a filled
    cell means the worker stores (and computes on) the batch; colours are groups, and the
    group the PS selects in the paper's examples (the first) is drawn solid, the others faded.
    """
    from matplotlib.colors import to_rgba

    n = len(layouts)
    fig, (axes,) = subplots(1, n, figsize=(3.4 * n, 3.2), squeeze=False)
    palette = matplotlib.colormaps["tab10"]
    for ax, (name, layout) in zip(axes, layouts.items()):
        N = layout.n_workers
        img = np.ones((N, N, 4))
        storage = layout.storage_matrix()
        for w in range(N):
            g = w // layout.workers_per_group
            img[w, storage[w]] = to_rgba(palette(g % 10), alpha=1.0 if g == 0 else 0.3)
        ax.imshow(img, aspect="equal")
        ax.set_xticks(range(N), [f"D{p + 1}" for p in range(N)], fontsize=8)
        ax.set_yticks(range(N), [f"W{w + 1}" for w in range(N)], fontsize=8)
        ax.set_xticks(np.arange(-0.5, N), minor=True)
        ax.set_yticks(np.arange(-0.5, N), minor=True)
        ax.grid(which="minor", color="0.7", linewidth=0.6)
        ax.grid(which="major", visible=False)
        ax.tick_params(which="minor", length=0)
        wait = layout.wait_for
        ax.set_title(
            f"{LABELS.get(name, name)}\nPS waits for {wait} of {layout.workers_per_group} per group",
            fontsize=9,
        )
    fig.tight_layout()
    return fig


def plot_complexity_curves(df: pd.DataFrame, x: str = "r", *, title: str | None = None) -> Figure:
    """Section V-D: time, communication and computation complexity (Table II) vs ``x``
    (``"r"`` or ``"G"``), one row of panels per delay distribution. Lazy schemes are upper
    bounds (open markers).
    """

    delays = list(dict.fromkeys(df["delay"]))
    metrics = [  # column, panel title, y label
        ("time", "time complexity (10)", "time to ε [units of μ₀ or t₀]"),
        ("communication", "communication (11)", "messages to ε"),
        ("computation", "computation (12)", "partition gradients to ε"),
    ]
    xlabels = {"r": "r (copies of each partition)", "G": "G (worker groups)"}
    xcol = {"r": "redundancy", "G": "n_groups"}.get(x, x)  # the column of the curves
    fig, axes = subplots(len(delays), 3, figsize=(12, 3.3 * len(delays)), squeeze=False)
    for i, dname in enumerate(delays):
        sub = df[df["delay"] == dname]
        for ax, (col, label, ylabel) in zip(axes[i], metrics):
            for scheme in dict.fromkeys(sub["scheme"]):
                s = sub[sub["scheme"] == scheme].sort_values(xcol)
                color, ls = _style(scheme)
                lazy = bool(s["bound"].iloc[0])  # an upper bound: open markers
                face, name = ("white", f"{scheme} (bound)") if lazy else (color, scheme)
                ax.plot(s[xcol], s[col], color=color, ls=ls, marker="o", mfc=face, label=name)
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:.3g}"))
            ax.yaxis.set_minor_formatter(ticker.NullFormatter())  # plain text: fast to draw
            ax.set_xscale("log", base=2)
            ax.xaxis.set_minor_formatter(ticker.NullFormatter())
            ticks = sorted(sub[xcol].unique())
            ax.set_xticks(ticks, [str(v) for v in ticks])
            ax.set_xlabel(xlabels.get(x, x))
            ax.set_ylabel(ylabel, fontsize=8)
            ax.set_title(f"{dname}: {label}", fontsize=9)
        axes[i, 0].legend(fontsize=7)
    fig.tight_layout()
    if title:
        fig.suptitle(title, fontsize=9, y=1.03)
    return fig


_LOAD_LABELS = ("communication load (messages)", "computation load (partition gradients)")


def plot_convergence(metrics: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Section VI: optimality gap (9), communication load (7) and computation load (8) vs
    computing wall-clock time, one line per scheme.
    """

    fig, axes = subplots(1, 3, figsize=(13, 3.6))
    for label in dict.fromkeys(metrics["scheme"]):
        s = metrics[metrics["scheme"] == label]
        color, ls = _style(label)
        for ax, y in zip(axes, (s["gap"].clip(lower=1e-16), s["communication"], s["computation"])):
            ax.plot(s["time"], y, color=color, linestyle=ls, label=label)
    axes[0].set_yscale("log")
    for ax, ylabel in zip(axes, ["optimality gap F(θ) − F*", *_LOAD_LABELS]):
        ax.set_ylabel(ylabel)
        ax.set_xlabel("wall-clock time [units of μ₀ or t₀]")
    axes[0].legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10, y=1.02)
    fig.tight_layout()
    return fig


_RULE_LABELS = {
    "gd": "α = 1/L for every scheme",
    "theory": "α = (1 − √(Dξ))/L for the lazy schemes",
}


def plot_convergence_bands(bands: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Section VI over seeds: relative optimality gap (9), communication (7) and computation
    (8) vs computing wall-clock time; one row per step-size rule. Lines are the median over
    seeds, bands the min-max range (data from :func:`codedlib.experiments.lagc.convergence_bands`
    for one delay model).
    """

    rules = list(dict.fromkeys(bands["rule"]))
    fig, axes = subplots(len(rules), 3, figsize=(13, 3.5 * len(rules)), squeeze=False)
    panels = [
        ("rel_gap", "relative gap (F(θ) − F*)/(F(θ⁰) − F*)"),
        *zip(("communication", "computation"), _LOAD_LABELS),
    ]
    n_seeds = int(bands["n_seeds"].max()) if len(bands) else 0
    for i, rule in enumerate(rules):
        part = bands[bands["rule"] == rule]
        for j, (q, ylabel) in enumerate(panels):
            ax = axes[i, j]
            sub_q = part[part["quantity"] == q]
            for label in dict.fromkeys(sub_q["scheme"]):
                s = sub_q[sub_q["scheme"] == label]
                color, ls = _style(label)
                low, high, median = s["low"], s["high"], s["median"]
                if q == "rel_gap":
                    low, high, median = (v.clip(lower=1e-16) for v in (low, high, median))
                ax.fill_between(s["time"], low, high, color=color, alpha=0.18, linewidth=0)
                ax.plot(s["time"], median, color=color, linestyle=ls, label=label)
            if q == "rel_gap":
                ax.set_yscale("log")
            ax.xaxis.set_major_locator(ticker.MaxNLocator(5))
            ax.set_ylabel(ylabel, fontsize=8)
            ax.set_xlabel("computing wall-clock time [units of μ₀ or t₀]", fontsize=8)
            ax.set_title(_RULE_LABELS.get(rule, rule), fontsize=9)
        axes[i, 0].legend(
            fontsize=7, title=f"median, band: min–max over {n_seeds} seeds", title_fontsize=7
        )
    if title:
        fig.suptitle(title, fontsize=9.5, y=1.0)
    fig.tight_layout()
    return fig


def _mean_err(table):
    """``mean`` and its error bars (non-negative) down to ``low`` and up to ``high``."""
    mean = table["mean"].to_numpy(float)
    err = np.vstack([mean - table["low"].to_numpy(float), table["high"].to_numpy(float) - mean])
    return mean, np.clip(err, 0, None)


def plot_table1_seeds(table: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Table I measured over seeds: per-iteration time (one bar per delay model),
    communication and computation of each technique relative to GD. ``table`` has columns
    ``technique, metric, delay, mean, low, high`` (95 % interval over seeds as error bars).
    """
    fig, ax = new_axes(None, figsize=(9.0, 3.8))
    groups = list(dict.fromkeys(zip(table["metric"], table["delay"])))
    techniques = list(dict.fromkeys(table["technique"]))
    x = np.arange(len(groups))
    width = 0.8 / len(techniques)
    for i, tech in enumerate(techniques):
        sub = table[table["technique"] == tech].set_index(["metric", "delay"]).loc[groups]
        mean, err = _mean_err(sub)
        at = x + (i - (len(techniques) - 1) / 2) * width
        bars = ax.bar(at, mean, width, yerr=err, capsize=2, label=tech)
        ax.bar_label(bars, fmt="%.2f", fontsize=6, padding=2)
    ax.axhline(1.0, color="k", linewidth=0.8)
    ax.set_xticks(x, [m if d == "all" else f"{m}\n({d})" for m, d in groups], fontsize=8)
    ax.set_ylabel("per iteration, relative to GD")
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def plot_iteration_time_panels(
    table: pd.DataFrame, panel_titles: Mapping[str, str] | None = None, *, title: str | None = None
) -> Figure:
    """Mean time per iteration, one panel per delay model: eq. 21/22/28 (grey) vs simulation
    (blue, 95 % interval over seeds). ``table``: ``delay, scheme, formula, mean, low, high``;
    for the lazy schemes the formula is conditioned on the realised number of active units and
    averages over seeds.
    """
    delays = list(dict.fromkeys(table["delay"]))
    n = len(delays)
    fig, (axes,) = subplots(1, n, figsize=(6.0 * n, 3.6), squeeze=False)
    panel_titles = panel_titles or {}
    sim = {"label": "simulation (95 % CI over seeds)", "color": "tab:blue"}
    for ax, dname in zip(axes, delays):
        sub = table[table["delay"] == dname].reset_index(drop=True)
        x = np.arange(len(sub))
        mean, err = _mean_err(sub)
        ax.bar(x - 0.2, sub["formula"], 0.4, label="formula (eq. 21/22/28)", color="0.6")
        ax.bar(x + 0.2, mean, 0.4, yerr=err, capsize=3, **sim)
        ax.set_xticks(x, sub["scheme"], fontsize=8)
        ax.set_ylabel("mean time per iteration")
        ax.legend(fontsize=7)
        ax.set_title(panel_titles.get(dname, dname), fontsize=9)
    if title:
        fig.suptitle(title, fontsize=8.5, y=1.0)
    fig.tight_layout()
    return fig


_BOUND_SERIES = [
    ("bound", "bound: eq. (20) × (31), eq. (20) step", "k", "white"),
    ("theory", "simulated, eq. (20) step (1−√(Dξ))/L", "tab:red", None),
    ("gd", "simulated, step 1/L (outside eq. 20)", "tab:blue", None),
]
_D_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def plot_bound_grid(
    summary: pd.DataFrame,
    best_case: pd.DataFrame | None = None,
    spread: float | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """Issue 13 item 7: G-LAG / G-GD time to the target gap against ``sqrt(Dξ)``.

    One panel per delay model (``summary`` from :func:`~codedlib.experiments.lagc.
    bound_grid_summary`): the Table II bound (open black), the simulation with the eq. (20)
    step (red) and with step ``1/L`` (blue), both with their 95 % intervals over seeds;
    marker shape is ``D``. Below the dashed line at 1 G-LAG is faster. With ``best_case``
    (from :func:`~codedlib.experiments.lagc.bound_best_case`) a last panel shows the smallest
    bound ratio over all ``(ξ, D)`` against the spread of the group smoothness constants,
    ``spread`` (the problem's own) drawn as a vertical line.
    """
    delays = list(dict.fromkeys(summary["delay"]))
    n = len(delays) + (best_case is not None)
    fig, (axes,) = subplots(1, n, figsize=(4.4 * n, 3.9), squeeze=False)
    histories = sorted(summary["history"].unique())
    marker = {D: _D_MARKERS[i % len(_D_MARKERS)] for i, D in enumerate(histories)}
    for ax, dname in zip(axes, delays):
        sub = summary[summary["delay"] == dname]
        for key, _label, color, face in _BOUND_SERIES:
            for D in histories:
                at = sub[sub["history"] == D]
                s = at[at["rule"] == ("theory" if key == "bound" else key)]
                style = {"linestyle": "none", "marker": marker[D]}
                if key == "bound":
                    s = at.drop_duplicates(["xi"]) if s.empty else s
                    ax.plot(s["sqrt_d_xi"], s["bound_ratio"], mec=color, mfc=face, ms=6, **style)
                elif not s.empty:
                    err = np.vstack([s["sim_ratio"] - s["sim_low"], s["sim_high"] - s["sim_ratio"]])
                    style |= {"color": color, "ms": 5, "capsize": 2, "lw": 0.8}
                    ax.errorbar(s["sqrt_d_xi"], s["sim_ratio"], yerr=err, **style)
        ax.axhline(1.0, color="0.4", linestyle="--", lw=0.8)
        low = ax.get_ylim()[0]
        ax.axhspan(low if low < 1 else 0.5, 1.0, color="tab:blue", alpha=0.06, lw=0)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 1.5, 2.0, 3.0, 5.0)))
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:.3g}"))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xlabel("√(Dξ)  (eq. 20 step = (1−√(Dξ))/L)")
        ax.set_ylabel("time to target gap, G-LAG / G-GD (ratio)", fontsize=8)
        ax.set_title(f"{dname} delays (below 1: G-LAG faster)", fontsize=9)
    # legend: colours for the series, marker shapes for D
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], linestyle="none", marker="o", mec=c, mfc=f or c, color=c, label=label)
        for _, label, c, f in _BOUND_SERIES
    ]
    handles += [
        Line2D([], [], linestyle="none", marker=marker[D], color="0.3", label=f"D = {D}")
        for D in histories
    ]
    axes[0].legend(handles=handles, fontsize=6.5, loc="upper left")
    if best_case is not None:
        ax = axes[-1]
        for dname in dict.fromkeys(best_case["delay"]):
            s = best_case[best_case["delay"] == dname].sort_values("spread")
            ax.plot(s["spread"], s["best_ratio"], marker="o", label=dname)
        ax.axhline(1.0, color="0.4", linestyle="--", lw=0.8)
        if spread is not None:
            ax.axvline(spread, color="tab:red", lw=0.8, label=f"our groups (×{spread:.3g})")
        ax.set_xscale("log")
        ax.set_xlabel("spread of group smoothness, max L_g / min L_g")
        ax.set_ylabel("smallest bound ratio over (ξ, D), G-LAG / G-GD", fontsize=8)
        ax.set_title("best case of the bound (L = Σ L_g)", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    if title:
        fig.suptitle(title, fontsize=8, y=1.09)
    return fig
