"""Figure of the real-process shoot-out: measured MPI iteration times against the shoot-out
simulator on the same injected cluster (:mod:`codedlib.runtime.shootout`).

Reference: reisizadeh2022codedreduce (Sec. III-C, single port).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import InputTypeError
from codedlib.plots import new_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from codedlib.runtime.shootout import RealVsPredicted


def plot_real_vs_predicted(
    result: RealVsPredicted, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """Measured against predicted mean iteration time (ms), one point per scheme that ran with
    the 95 % interval of the measured mean and its ratio in the legend, a ±10 % band around
    y = x; a note names the schemes not run, the caption what is injected and what is real."""
    # a plot reads the result it is given (plots sit below experiments: no import of it)
    if not (hasattr(result, "frame") and hasattr(result, "cluster")):
        raise InputTypeError(f"result must be a RealVsPredicted, got {type(result).__name__}")
    fig, ax = new_axes(ax, figsize=(6.8, 5.6))
    frame = result.frame
    ran, not_run = frame[frame["status"] == "run"], frame[frame["status"] != "run"]
    if len(ran):
        measured = [f"measured_{c}" for c in ("mean_iteration_time", "ci_low", "ci_high")]
        x, y, low, high = (ran[c].to_numpy() * 1e3 for c in ["predicted_mean", *measured])
        top = float(max(x.max(), high.max())) * 1.12
        line = np.array([0.0, top])
        ax.fill_between(line, 0.9 * line, 1.1 * line, color="0.9", label="±10 %")
        ax.plot(line, line, color="0.4", lw=1, label="measured = predicted")
        points = zip(x, y, low, high, ran["scheme"], ran["ratio"])
        for k, (xi, yi, lo, hi, name, ratio) in enumerate(points):
            marker, label = "os^Dv<>ph*"[k % 10], f"{name}  ×{ratio:.2f}"
            err = [[yi - lo], [hi - yi]]
            ax.errorbar(xi, yi, yerr=err, fmt=marker, color=f"C{k % 10}", capsize=3, label=label)
        ax.set(xlim=(0, top), ylim=(0, top), aspect="equal")
        legend = dict(loc="lower right", fontsize="small", title_fontsize="small")
        ax.legend(title="measured / predicted", **legend)
    else:
        ax.set_axis_off()
    if len(not_run):
        why = "; ".join(f"{s} ({w})" for s, w in zip(not_run["scheme"], not_run["status"]))
        corner = {"transform": ax.transAxes, "ha": "right", "va": "bottom"}
        ax.text(0.99, 0.01, "not run: " + why, fontsize="x-small", wrap=True, **corner)
    ax.set_xlabel("predicted: shoot-out simulator on the injected draws (ms / iteration)")
    ax.set_ylabel("measured: real MPI processes, 95 % CI (ms / iteration)")
    processes = int(frame["processes"].max()) if len(frame) else 0
    default = f"Real processes ({processes}) vs the shoot-out simulator\n"
    default += result.cluster.describe()
    ax.set_title(default if title is None else title, fontsize="medium")
    caption = result.caption.replace("; real:", "\nreal:").replace(" and t_c", "\nand t_c")
    fig.text(0.5, -0.02, caption, ha="center", va="top", fontsize="x-small", wrap=True)
    return fig
