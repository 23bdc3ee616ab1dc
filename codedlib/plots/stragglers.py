"""Figures of notebook ``00-stragglers``: each ``plot_*`` takes the data of
:mod:`codedlib.experiments.stragglers` and returns the Figure (never shows or saves).

Reference: reisizadeh2022codedreduce, halbawi2018reedsolomon, severinson2023dsag,
zhang2021lagc, esfahanizadeh2022stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from codedlib.plots import new_axes, subplots

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def _axes_row(n_panels, axes=None):
    if axes is not None:
        return axes[0].figure, list(axes)
    fig, axes = subplots(1, n_panels, figsize=(4.2 * n_panels, 3.4), layout="constrained")
    return fig, list(axes)


def plot_delay_models(
    curves: pd.DataFrame, axes: Sequence[Axes] | None = None, title: str | None = None
) -> Figure:
    """pdf, cdf and log-log survival ``P[T > t]`` of each delay model (long format);
    ``title`` (a figure title) should name the models' parameters.
    """
    fig, (ax_pdf, ax_cdf, ax_sf) = _axes_row(3, axes)
    if title:
        fig.suptitle(title)
    for name, part in curves.groupby("model", sort=False):
        ax_pdf.plot(part["t"], part["pdf"], label=name)
        ax_cdf.plot(part["t"], part["cdf"], label=name)
        positive = (part["t"] > 0) & (part["sf"] > 0)
        ax_sf.loglog(part["t"][positive], part["sf"][positive], label=name)
    bulk = curves.loc[curves["cdf"] < 0.995, "t"].max()
    ax_pdf.set(xlabel="latency t", ylabel="density f(t)", title="pdf", xlim=(0.0, bulk))
    ax_cdf.set(xlabel="latency t", ylabel="P[T <= t]", title="cdf", xlim=(0.0, bulk))
    ax_sf.set(xlabel="latency t", ylabel="P[T > t]", title="tail (log-log)", ylim=(1e-5, 1.5))
    ax_sf.set_xlim(left=0.5 * curves.loc[curves["sf"] < 0.999, "t"].min())
    ax_pdf.legend(fontsize="small")
    return fig


def plot_cluster_ecdf(
    ecdf: pd.DataFrame, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """Empirical CDF (steps) vs model CDF (dashed) for a few workers (DSAG Fig. 3 style);
    ``title`` should name the stand-in cluster's parameters."""
    fig, ax = new_axes(ax)
    for worker, part in ecdf.groupby("worker", sort=False):
        ax.step(part["t"], part["ecdf"], where="post", label=f"worker {worker}: samples")
        ax.plot(part["t"], part["model_cdf"], "--", color="black", lw=1)
    ax.plot([], [], "--", color="black", lw=1, label="model CDF")
    ax.set(xlabel="latency t", ylabel="P[T <= t]")
    ax.set_title(title or "heterogeneous workers: empirical vs model CDF")
    ax.legend(fontsize="small")
    return fig


def plot_bursty_path(
    path: pd.DataFrame, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """Per-iteration latency of a few bursty workers, burst iterations shaded (DSAG Fig. 4
    style); ``title`` should name the chosen and calibrated parameters."""
    fig, ax = new_axes(ax, figsize=(8.0, 3.6))
    for worker, part in path.groupby("worker", sort=False):
        (line,) = ax.plot(part["iteration"], part["latency"], lw=0.8, label=f"worker {worker}")
        burst = part["in_burst"].to_numpy().astype(int)
        edges = np.diff(np.concatenate([[0], burst, [0]]))
        iterations = part["iteration"].to_numpy()
        for start, stop in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
            span = (iterations[start] - 0.5, iterations[stop - 1] + 0.5)
            ax.axvspan(*span, color=line.get_color(), alpha=0.15, lw=0)
    ax.fill_between([], [], color="0.5", alpha=0.3, label="in a burst (shaded)")
    ax.set(xlabel="iteration", ylabel="latency")
    ax.set_title(title or "bursty workers (two-state Markov slowdown)")
    ax.legend(fontsize="small", ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


def plot_order_statistics(
    comparison: pd.DataFrame, title: str | None = None, axes: Sequence[Axes] | None = None
) -> Figure:
    """``E[T_(k)]`` vs ``k``: closed form (line), numeric (o), Monte Carlo (3 s.e. bars); and the
    Monte Carlo deviation in standard errors.
    """
    fig, (ax, ax_z) = _axes_row(2, axes)
    k = comparison["k"].to_numpy()
    finite = np.isfinite(comparison["closed_form"].to_numpy())
    if finite.any():
        ax.plot(k[finite], comparison["closed_form"][finite], "-", color="C0", label="closed form")
    num = np.isfinite(comparison["numeric"].to_numpy())
    numeric = "numeric (LAGC eq. 28)"
    ax.plot(k[num], comparison["numeric"][num], "o", mfc="none", color="C1", label=numeric)
    err, mc = 3 * comparison["mc_stderr"], "Monte Carlo ± 3 s.e."
    ax.errorbar(k, comparison["mc_mean"], yerr=err, fmt=".", color="C2", capsize=2, label=mc)
    if not num.all():
        ax.plot([], [], " ", label=f"k >= {int(k[~num].min())}: infinite mean")
    ax.set(xlabel="k (wait for the k fastest)", ylabel="E[T_(k)]", yscale="log")
    ax.set_title(title or "expected k-th order statistic")
    ax.legend(fontsize="small")
    z = comparison["z"].to_numpy()
    valid = comparison["mc_valid"].to_numpy()
    ax_z.axhspan(-3, 3, color="0.9", label="±3 s.e.")
    ax_z.plot(k[valid], z[valid], "o", color="C2", label="finite variance")
    if (~valid).any():
        ax_z.plot(k[~valid], z[~valid], "x", color="C3", label="infinite variance: s.e. unreliable")
    ax_z.axhline(0, color="black", lw=0.8)
    ax_z.set(xlabel="k", ylabel="(MC - exact) / s.e.", title="Monte Carlo deviation")
    lim = max(4.0, float(np.nanmax(np.abs(z))) * 1.1) if np.isfinite(z).any() else 4.0
    ax_z.set_ylim(-lim, lim)
    ax_z.legend(fontsize="small")
    return fig


def plot_non_identical(
    comparison: pd.DataFrame, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """Non-identical workers: numeric integration (Poisson-binomial) vs Monte Carlo, and the
    i.i.d. approximation. ``title`` should name the stand-in cluster.
    """
    fig, ax = new_axes(ax)
    k, err, mc = comparison["k"], 3 * comparison["mc_stderr"], "Monte Carlo ± 3 s.e."
    ax.plot(k, comparison["numeric"], "-", label="numeric, per-worker CDFs")
    ax.errorbar(k, comparison["mc_mean"], yerr=err, fmt=".", capsize=2, label=mc)
    ax.plot(k, comparison["iid_approximation"], ":", label="i.i.d. approximation")
    ax.set(xlabel="k", ylabel="E[T_(k)]", title=title or "non-identical workers")
    ax.legend(fontsize="small")
    return fig


def plot_pareto_limit(
    convergence: pd.DataFrame, axes: Sequence[Axes] | None = None, title: str | None = None
) -> Figure:
    """RS Proposition 1: exact ``E[T_((1-alpha)n)]`` approaching ``t0 alpha**(-1/xi)`` (eq. 19)."""
    fig, (ax, ax_err) = _axes_row(2, axes)
    for i, (alpha, part) in enumerate(convergence.groupby("alpha", sort=False)):
        style = {"ms": 3, "color": f"C{i}"}
        ax.semilogx(part["n"], part["exact"], "o-", **style, label=f"exact, alpha={alpha:g}")
        ax.axhline(part["limit"].iloc[0], ls="--", color=style["color"], lw=1)
        error = np.abs(part["relative_error"])
        ax_err.loglog(part["n"], error, "o-", **style, label=f"alpha={alpha:g}")
    ax.plot([], [], "--", color="black", lw=1, label="limit t0 alpha^(-1/xi) (eq. 19)")
    ax.set(xlabel="n workers", ylabel="E[T_(ceil((1-alpha) n))]")
    ax.set_title(title or "RS Proposition 1: Pareto order statistic vs eq. (19)")
    # between the two upper limit lines (paper parameters), clear of the curves
    ax.legend(fontsize="small", loc="center right", bbox_to_anchor=(1.0, 0.42))
    ax_err.set(xlabel="n workers", ylabel="|exact / limit - 1|", title="distance to the limit")
    ax_err.legend(fontsize="small", loc="lower left")  # the errors fall from the upper left
    return fig


def plot_cost_of_waiting(
    cost: pd.DataFrame, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """``E[T_(k)] / E[T]`` against the fraction ``k/n`` of workers waited for (``title``
    should name the models' parameters).
    """
    fig, ax = new_axes(ax)
    for name, part in cost.groupby("model", sort=False):
        finite = np.isfinite(part["relative"])
        ax.plot(part["fraction"][finite], part["relative"][finite], "o-", ms=3, label=name)
    ax.axhline(1.0, color="black", lw=0.8)
    n = int(cost["k"].max())
    ax.set(xlabel=f"fraction k/n of the n={n} workers waited for", ylabel="E[T_(k)] / E[T]")
    ax.set(yscale="log", title=title or "the cost of waiting for the k-th fastest")
    ax.legend(fontsize="small")
    return fig
