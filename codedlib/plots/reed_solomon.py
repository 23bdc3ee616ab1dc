"""Figures of notebook 02 (Reed–Solomon gradient codes). Each ``plot_*`` returns the Figure.

Reference: halbawi2018reedsolomon, tandon2017gradient.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib import ticker

from codedlib.plots import new_axes, subplots

if TYPE_CHECKING:
    from types import SimpleNamespace

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

#: display labels of the experiments' snake_case columns (what a table shows)
LABELS = {
    "f_rs": "f_RS",
    "f_mds": "f_MDS",
    "t_rs": "T_RS",
    "t_mds": "T_MDS",
    "t_offline": "T_offline",
    "t_online": "T_online",
}


def label(column: str) -> str:
    """Display label of a column of :mod:`codedlib.experiments.reed_solomon`'s frames, for
    ``frame.rename(columns=label)``: :data:`LABELS`, ``test_error@<t>s`` for
    :func:`~codedlib.experiments.reed_solomon.fig2_summary`'s ``test_error_at_<t>``, else as is.
    """
    prefix = "test_error_at_"
    if column.startswith(prefix):
        t = column[len(prefix) :].replace("_", ".").replace("m", "-").replace("p", "+")
        return f"test_error@{t}s"
    return LABELS.get(column, column)


def plot_mask(M: ArrayLike, ax: Axes | None = None, title: str | None = None) -> Figure:
    """The 0/1 mask matrix (rows = workers, columns = data chunks), eq. (5) / Algorithm 4."""
    M = np.asarray(M)
    fig, ax = new_axes(ax, figsize=(0.45 * M.shape[1] + 2.0, 0.3 * M.shape[0] + 1.2))
    ax.imshow(M, cmap="Greys", vmin=0, vmax=1.6, aspect="auto")
    if M.size <= 400:
        for (i, j), v in np.ndenumerate(M):
            color = "white" if v else "0.4"
            ax.text(j, i, str(int(v)), ha="center", va="center", color=color, fontsize=9)
    ax.set(xlabel="chunk j", ylabel="worker i")
    ax.grid(False)
    weights = sorted(set(M.sum(axis=1).tolist()))
    ax.set_title(title or f"mask M ({M.shape[0]}×{M.shape[1]}), row weights {weights}")
    return fig


def plot_encoding_matrix(B: ArrayLike, ax: Axes | None = None, title: str | None = None) -> Figure:
    """log10 |B_ij| of the complex encoding matrix (Algorithm 2); white cells are zeros."""
    B = np.asarray(B)
    fig, ax = new_axes(ax, figsize=(0.45 * B.shape[1] + 2.8, 0.3 * B.shape[0] + 1.2))
    mag = np.where(B != 0, np.log10(np.abs(B) + 1e-300), np.nan)
    im = ax.imshow(mag, cmap="viridis", aspect="auto")
    fig.colorbar(im, ax=ax, label="log10 |B_ij|")
    ax.set(xlabel="chunk j", ylabel="worker i")
    ax.grid(False)
    ax.set_title(title or "encoding matrix B (zeros blank)")
    return fig


def plot_any_f_rows(df: pd.DataFrame, ax: Axes | None = None, title: str | None = None) -> Figure:
    """Residual max|a B_F − 1| of the best decoding vector for f random survivors, f − 1
    random survivors, and the f − 1 workers left when one chunk's holders all straggle.
    """
    fig, ax = new_axes(ax, figsize=(7.0, 4.0))
    vals = np.log10(np.maximum(df["residual"].to_numpy(), 1e-17))
    bins = np.linspace(vals.min() - 0.5, max(vals.max(), 0) + 0.5, 40)
    for kind, g in df.groupby("kind", sort=False):
        ax.hist(np.log10(np.maximum(g["residual"], 1e-17)), bins=bins, alpha=0.7, label=kind)
    ax.set(xlabel="log10 max |a B_F − 1|", ylabel="survivor sets")
    ax.legend(fontsize=8)
    ax.set_title(title or "any f rows reach the all-ones row; f − 1 rows need not")
    return fig


def plot_decoding_cost(
    summary: pd.DataFrame, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """Time for one decoding vector vs f (log–log): median over repeats with min–max bars, and
    f² / f³ guides, from :func:`codedlib.experiments.reed_solomon.decoding_cost_summary`.
    """
    fig, ax = new_axes(ax)
    f = summary["f"].to_numpy(float)
    repeats = int(summary["repeats"].min())
    for col, marker, label in (
        ("alg3", "o-", "Algorithm 3 (table look-ups)"),
        ("lstsq", "s-", "least squares on B_F"),
    ):
        med, low, high = (summary[f"{col}_{s}"].to_numpy() for s in ("seconds", "min", "max"))
        err = np.vstack([med - low, high - med])
        ax.errorbar(f, med, yerr=err, fmt=marker, capsize=3, label=label)
    ax.set(xscale="log", yscale="log")
    for power, col, ls in ((2, "alg3", ":"), (3, "lstsq", "--")):
        med = summary[f"{col}_seconds"].to_numpy()
        ax.plot(f, med[-1] * (f / f[-1]) ** power, ls, color="0.5", label=f"∝ f^{power}")
    ax.set_xticks(f, [f"{v:g}" for v in f])  # the measured f only: minor labels overlapped
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set(xlabel="f (workers decoded)", ylabel="seconds per decoding vector")
    ax.legend()
    ax.set_title(title or f"Sec. 4: online decoding cost (median, min–max of {repeats} repeats)")
    return fig


def plot_accuracy(table: pd.DataFrame, ax: Axes | None = None, title: str | None = None) -> Figure:
    """Relative gradient error of decoding vs n, worst-case and random survivor sets."""
    fig, ax = new_axes(ax, figsize=(7.0, 4.5))
    for (root, load), g in table.groupby(["root", "load"], sort=False):
        worst, random = (np.maximum(g[f"{c}_error"], 1e-17) for c in ("worst", "random"))
        (line,) = ax.semilogy(g["n"], worst, "o-", label=f"{root}, w/k≈{load:.2f}: worst case")
        ax.semilogy(g["n"], random, "x--", color=line.get_color(), label="random survivors")
    ax.axhline(1e-6, color="k", lw=1, ls=":", label="tolerance 1e-06")
    ax.set(xlabel="n (workers)", ylabel="relative error of decoded gradient", ylim=(1e-17, 1e3))
    # below the axes: the diverging curves cross the whole upper half of the plot
    ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    ax.set_title(title or "double-precision accuracy of RS decoding (not in the paper)")
    return fig


def plot_pareto_check(df: pd.DataFrame, ax: Axes | None = None, title: str | None = None) -> Figure:
    """Appendix formula vs Monte Carlo vs eq. (19)'s limit, as n grows."""
    fig, ax = new_axes(ax)
    ax.semilogx(df["n"], df["exact"] * 1e3, "o-", label="exact (appendix)")
    mc = df.dropna(subset=["mc_mean"])
    err, label = 2e3 * mc["mc_stderr"], "Monte Carlo ±2 s.e."
    ax.errorbar(mc["n"], mc["mc_mean"] * 1e3, yerr=err, fmt="x", capsize=3, label=label)
    ax.axhline(df["limit_eq19"].iloc[0] * 1e3, color="k", ls="--", label="t0 α^{-1/ξ} (eq. 19)")
    ax.set(xlabel="n", ylabel="E[T_delay^(f)] (ms)")
    ax.legend()
    ax.set_title(title or "Pareto order statistic, f = n − ⌊αn⌋")
    return fig


def plot_tf_curve(
    result: SimpleNamespace, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """Fig. 3: T_f(α) of eq. (21) with α* (star); eq. (20) with decoding cost when c_m > 0."""
    fig, ax = new_axes(ax)
    curve = result.curve
    ax.plot(curve["alpha"], curve["t_offline"], label="T_f, offline decoding (eq. 21)")
    if result.c_m > 0:
        online = f"T_f, online decoding (eq. 20, c_m={result.c_m:g})"
        ax.plot(curve["alpha"], curve["t_online"], "--", label=online)
    a_star = result.alpha_star
    if a_star is not None:
        star = f"α* = {a_star:.4f} (eq. 22)"
        ax.plot([a_star], [result.t_star], "*", ms=16, color="C3", label=star)
    else:
        text = "t0/(c_g N ξ) ≥ 1: α* of eq. (22) ≥ 1"
        ax.text(0.5, 0.9, text, transform=ax.transAxes, ha="center")
    lo = np.nanmin(curve["t_offline"])
    ax.set_ylim(lo * 0.8, min(np.nanmax(curve["t_offline"]), lo * 6))
    ax.set(xlabel="α = w/k", ylabel="T_f (s)")
    ax.legend()
    ax.set_title(title or "expected time per iteration (Fig. 3)")
    return fig


def plot_workers_choice(
    df: pd.DataFrame, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """f_RS and f_MDS minimising eq. (17) against the FLOP time c_m (the paper's: 68, 33)."""
    fig, ax = new_axes(ax)
    pos = df[df["c_m"] > 0]
    ax.semilogx(pos["c_m"], pos["f_rs"], "o-", label="f_RS (c_m f², Algorithm 3)")
    ax.semilogx(pos["c_m"], pos["f_mds"], "s-", label="f_MDS (c_m f³)")
    ax.axhline(68, color="C0", ls=":", label="paper f_RS = 68")
    ax.axhline(33, color="C1", ls=":", label="paper f_MDS = 33")
    ax.set(xlabel="c_m (seconds per FLOP)", ylabel="f minimising eq. (17)")
    ax.legend()
    ax.set_title(title or "eq. (17): workers to wait for, n = 80")
    return fig


_FIG2_STYLES = ["-", "--", ":", "-.", (0, (5, 1))]


def plot_fig2(
    df: pd.DataFrame,
    bands: pd.DataFrame,
    quantity: str = "test_error",
    n: int = 80,
    title: str | None = None,
    paired: pd.DataFrame | None = None,
    reference: str = "Coded-RS",
) -> Figure:
    """Fig. 2 over seeds (``df``: :func:`codedlib.experiments.reed_solomon.fig2_experiment`'s
    runs). Left: ``bands`` (``fig2_bands``), each scheme's mean of ``quantity`` and seed range.
    Right, with ``paired`` (``fig2_bands`` with ``reference``): the paired difference scheme −
    ``reference`` in test images with its 95 % t-band (above zero the reference is better).
    """
    n_seeds = int(df["seed"].nunique())
    if paired is not None:
        fig, (ax, ax2) = subplots(1, 2, figsize=(12.0, 4.8))
    else:
        fig, ax = subplots(figsize=(9.0, 4.8))
    schemes = list(dict.fromkeys(bands["scheme"]))

    def curve(ax, i, d, low, high, alpha, label):
        """Scheme ``i``'s mean over time and, with several seeds, its band low..high."""
        style = _FIG2_STYLES[i % len(_FIG2_STYLES)]
        (line,) = ax.plot(d["time"].to_numpy(), d["mean"].to_numpy(), ls=style, lw=2, label=label)
        if n_seeds > 1:
            band = (d[c].to_numpy() for c in ("time", low, high))
            ax.fill_between(*band, color=line.get_color(), alpha=alpha, lw=0)

    for i, scheme in enumerate(schemes):
        curve(ax, i, bands[bands["scheme"] == scheme], "low", "high", 0.15, scheme)
    ax.set(xlabel="simulated time (s)", yscale="log")
    ylabel = {"test_error": "test error", "train_loss": "training loss"}.get(quantity, quantity)
    ax.set_ylabel(f"{ylabel} (mean; band: seed range)" if n_seeds > 1 else ylabel)
    if quantity == "test_error":
        low = max(float(df[quantity][df[quantity] > 0].min()), 1e-3)
        ax.set_ylim(0.8 * low, min(1.0, float(df[quantity].max()) * 1.2))
    ax.legend(fontsize=8)
    if paired is not None:
        for i, scheme in enumerate(schemes):
            if scheme == reference:
                continue
            d = paired[paired["scheme"] == scheme]
            curve(ax2, i, d, "ci_low", "ci_high", 0.2, f"{scheme} − {reference}")
        ax2.axhline(0, color="k", lw=1)
        ax2.set(xlabel="simulated time (s)", ylabel="paired difference (test images)")
        # linear within ±20 images (where the close calls are), logarithmic beyond
        ax2.set_yscale("symlog", linthresh=20)
        ax2.legend(fontsize=8)
        band = f"95% t-band over {n_seeds} seeds"
        ax2.set_title(f"> 0: {reference} better (mean, {band})", fontsize=10)
    what = "Fig. 2" if quantity == "test_error" else "Fig. 2 setting; not plotted in the paper"
    default = f"softmax regression, n = {n} workers, Pareto delays ({what}), {n_seeds} seeds"
    fig.suptitle(title or default, fontsize=10)
    fig.tight_layout()
    return fig


def plot_straggler_regimes(
    metrics: pd.DataFrame, bars: pd.DataFrame, column: str = "test_error", title: str | None = None
) -> Figure:
    """Final test error of Coded-RS and ignore-stragglers per regime: ``bars``
    (:func:`codedlib.experiments.reed_solomon.regime_bars`) with the seeds of ``metrics``
    (:func:`~codedlib.experiments.reed_solomon.ignore_stragglers_regimes`) as dots."""
    regimes = list(dict.fromkeys(metrics["regime"]))
    schemes = list(dict.fromkeys(metrics["scheme"]))
    fig, ax = new_axes(None, figsize=(8.0, 4.4))
    width = 0.8 / len(schemes)
    for j, scheme in enumerate(schemes):
        x = np.arange(len(regimes)) + (j - (len(schemes) - 1) / 2) * width
        b = bars[bars["scheme"] == scheme].set_index("regime").loc[regimes]
        mean = b["mean"].to_numpy()
        err = np.array([mean - b["ci_low"].to_numpy(), b["ci_high"].to_numpy() - mean])
        ax.bar(x, mean, width=width * 0.9, yerr=err, capsize=3, label=scheme, alpha=0.8)
        for xi_, r in zip(x, regimes):
            vals = metrics[(metrics["regime"] == r) & (metrics["scheme"] == scheme)][column]
            ax.plot(np.full(len(vals), xi_), vals, "k.", ms=3)
    ax.set_xticks(np.arange(len(regimes)), [r.replace(", ", ",\n") for r in regimes], fontsize=7)
    ax.set_ylabel("test error at the end of the budget")
    ax.legend(fontsize=8)
    ax.set_title(title or "", fontsize=9)
    fig.tight_layout()
    return fig
