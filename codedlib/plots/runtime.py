"""Figures for real MPI runs (:mod:`codedlib.runtime`): iteration times, per-worker latency,
loss against wall-clock time, and measured vs simulated iteration times (``table``:
:func:`codedlib.runtime.validation.compare_with_simulator`'s)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from codedlib.plots import new_axes, save_figure, subplots

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence

    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from codedlib.runtime.traces import RunResult

    #: One run, or runs by label
    Runs = RunResult | dict[str, RunResult]


def _results_dict(results: Runs) -> dict[str, RunResult]:
    if hasattr(results, "iterations"):
        return {results.meta.get("scheme", "run"): results}
    return dict(results)


def plot_iteration_times(results: Runs, ax: Axes | None = None) -> Figure:
    """Per-iteration times (ms) of each run as points with the mean as a bar."""
    res = _results_dict(results)
    fig, ax = new_axes(ax, figsize=(1.2 * len(res) + 3.0, 4.0))
    rng = np.random.default_rng(0)
    for k, (_label, r) in enumerate(res.items()):
        t = r.iterations["iteration_time"].to_numpy() * 1e3
        ax.bar(k, t.mean(), width=0.6, alpha=0.35, color=f"C{k}")
        ax.scatter(k + rng.uniform(-0.2, 0.2, t.size), t, s=12, color=f"C{k}", zorder=3)
        ax.annotate(f"{t.mean():.1f}", (k, t.mean()), ha="center", va="bottom", fontsize="small")
    ax.set_xticks(range(len(res)), list(res), rotation=20)
    ax.set_ylabel("iteration time (ms)")
    ax.set_title("Measured per-iteration time (MPI)")
    return fig


def plot_worker_latency(trace: pd.DataFrame, ax: Axes | None = None) -> Figure:
    """The first 13 workers' latency over iterations (faint: its injected part; crosses: stale)."""
    fig, ax = new_axes(ax, figsize=(7.0, 4.0))
    df = trace.copy()
    df["latency_ms"] = (df["compute_time"] + df["comm_time"]) * 1e3
    workers = sorted(df["worker"].unique())[:13]
    for k, w in enumerate(workers):
        d = df[df["worker"] == w]
        fresh = d[d["fresh"]]
        x, color = fresh["task_iteration"], f"C{k % 10}"
        ax.plot(x, fresh["latency_ms"], "o-", ms=3, lw=1, color=color, label=f"worker {w}")
        ax.plot(x, fresh["injected_delay"] * 1e3, "-", lw=3, alpha=0.2, color=color)
        stale = d[~d["fresh"]]
        if len(stale):
            ax.plot(stale["task_iteration"], stale["latency_ms"], "x", color=color)
    ax.set_xlabel("iteration the result was computed for")
    ax.set_ylabel("worker latency (ms)")
    ax.set_title("Per-worker latency (faint: injected delay; x: stale)")
    ax.legend(fontsize="x-small", ncol=2)
    return fig


def plot_loss_vs_time(results: Runs, ax: Axes | None = None, metric: str = "loss") -> Figure:
    """``metric`` ("loss" or "normalized_error", CR eq. 11) against wall-clock seconds."""
    res = _results_dict(results)
    fig, ax = new_axes(ax)
    for k, (label, r) in enumerate(res.items()):
        it = r.iterations
        ax.plot(it["end"], it[metric], "o-", ms=3, color=f"C{k}", label=label)
    ax.set_yscale("log")
    ax.set_xlabel("wall-clock time (s)")
    ax.set_ylabel(metric.replace("_", " "))
    ax.legend()
    ax.set_title("Convergence against wall-clock time (MPI)")
    return fig


def plot_measured_vs_predicted(
    table: pd.DataFrame,
    ax: Axes | None = None,
    tolerance: float = 0.2,
    not_run: dict[str, str] | None = None,
) -> Figure:
    """Grouped bars per run: measured mean iteration time (± s.e.m.), the simulator on the
    injected draw and the model's expectation, with the gaps measured/expectation - 1 (``!``
    beyond ``tolerance``) and, in brackets, measured/replay - 1; ``not_run`` names the runs
    that did not complete."""
    fig, ax = new_axes(ax, figsize=(1.6 * max(len(table), 1) + 3.0, 4.2))
    if not_run:
        text = "not run: " + "; ".join(f"{s} ({why})" for s, why in not_run.items())
        ax.text(0.01, 0.99, text, transform=ax.transAxes, va="top", fontsize=7, wrap=True)
    if len(table) == 0:
        ax.set_axis_off()
        return fig
    x = np.arange(len(table))
    width = 0.27
    bars = [("measured", "measured_sem", "measured (MPI)")]
    bars += [("replayed", None, "simulator on the injected draw")]
    bars += [("predicted", "predicted_stderr", "model expectation")]
    for k, (column, err, label) in enumerate(bars):
        yerr = None if err is None else table[err] * 1e3
        kw = dict(yerr=yerr, label=label, color=f"C{k}")
        ax.bar(x + (k - 1) * width, table[column] * 1e3, width, **kw)
    gaps = zip(table["measured"], table["gap_predicted"], table["gap_replayed"])
    for xi, (m, g, gr) in enumerate(gaps):
        text = f"{g:+.0%}{'' if abs(g) <= tolerance else ' !'}\n({gr:+.0%})"
        ax.annotate(text, (xi - width, m * 1e3), ha="center", va="bottom", fontsize="x-small")
    ax.set_xticks(x, [f"{n}\n({p} procs)" for n, p in zip(table["name"], table["processes"])])
    ax.set_ylabel("mean iteration time (ms)")
    ax.set_title(
        f"Measured vs simulated iteration time (gap vs expectation, ! beyond "
        f"{tolerance:.0%}; in brackets vs replay)"
    )
    ax.margins(y=0.3)
    ax.legend(fontsize="small", loc="upper center", ncol=3)
    return fig


def plot_run_summary(result: RunResult, label: str) -> Figure:
    """One run's iteration times (left) and per-worker latency (right)."""
    fig, axes = subplots(1, 2, figsize=(12, 4), layout="constrained")
    plot_iteration_times({label: result}, ax=axes[0])
    plot_worker_latency(result.trace, ax=axes[1])
    return fig


def real_run_section(
    runs: str | Sequence[str] | dict[str, dict | None],
    *,
    fig_dir: str | os.PathLike | None = None,
    figure: str | None = None,
    **options: Any,
) -> tuple[dict[str, RunResult], pd.DataFrame]:
    """A notebook's "Run it for real on MPI" section: :func:`codedlib.runtime.notebook.real_runs`
    with ``options``, the measured-vs-predicted figure saved as ``figure``, and ``(results,
    display table)``."""
    from codedlib.runtime import notebook

    results, table, not_run = notebook.real_runs(runs, **options)
    if figure is not None:
        save_figure(plot_measured_vs_predicted(table, not_run=not_run), figure, fig_dir)
    return results, notebook.real_run_table(table, not_run)
