"""Interactive explorer for DSAG: cluster and method settings in, latency predictions
(event-driven vs order statistics, participation u_i) and a fresh convergence run out.

Reference: severinson2023dsag."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codedlib.experiments.dsag import SLOWDOWN_PATTERNS, latency_prediction, small_pca_convergence
from codedlib.widgets._common import Explorer, Report, float_slider, log_slider

if TYPE_CHECKING:
    import ipywidgets as widgets


def latency_report(
    N: int,
    w: int,
    n_subpartitions: int,
    pattern: str,
    bursts: bool,
    burst_rate: float,
    seed: int,
    **_: object,
) -> Report:
    """Latency prediction text and the participation chart (ValueError on invalid input)."""
    from codedlib.plots.dsag import plot_participation

    pred = latency_prediction(
        N, w, n_subpartitions, pattern, burst_rate if bursts else 0.0, rng=seed
    )
    gap = pred.event_driven / pred.order_statistic - 1
    text = (
        f"mean iteration latency: event-driven {1e3 * pred.event_driven:.2f} ms, "
        f"order statistic {1e3 * pred.order_statistic:.2f} ms "
        f"(the latter underestimates by {100 * gap:.1f}%)"
    )
    fig = plot_participation(pred.participation, title=f"stand-in cluster: N={N}, w={w}, {pattern}")
    return Report(html=f"<p>{text}</p>", figures=[fig])


def convergence_report(
    N: int,
    w: int,
    n_subpartitions: int,
    eta: float,
    pattern: str,
    bursts: bool,
    burst_rate: float,
    seed: int,
) -> Report:
    """A fresh small PCA run of DSAG vs SAG (ValueError on invalid input)."""
    from codedlib.plots.dsag import plot_convergence

    df = small_pca_convergence(
        N, w, n_subpartitions, eta, pattern, burst_rate if bursts else 0.0, rng=seed
    )
    fig = plot_convergence(
        df, title=f"fresh run: small PCA on a sparse binary stand-in, N={N}, w={w}"
    )
    return Report(html="", figures=[fig])


def explore_dsag(
    n_workers: int = 49, w: int = 10, n_subpartitions: int = 10, seed: int = 0
) -> widgets.VBox:
    """ipywidgets UI: N, w, subpartitions, η, slowdown pattern, bursts -> latency prediction
    (event-driven vs order statistics, participation u_i), recomputed on every change, and on
    request ("run convergence", with a progress bar) a fresh convergence run of DSAG vs SAG.
    Invalid settings show the error message. The VBox has ``.latency`` and ``.convergence``
    explorers."""
    import ipywidgets as widgets

    style = {"description_width": "initial"}
    controls = {
        "N": widgets.IntSlider(value=n_workers, min=2, max=100, description="N", style=style),
        "w": widgets.IntSlider(value=w, min=1, max=100, description="w", style=style),
        "n_subpartitions": widgets.IntSlider(
            value=n_subpartitions, min=1, max=50, description="subpartitions", style=style
        ),
        "eta": float_slider("eta", 0.9, 0.05, 1.5, 0.05, description="step η"),
        "pattern": widgets.Dropdown(
            options=SLOWDOWN_PATTERNS,
            value=SLOWDOWN_PATTERNS[1],
            description="slowdown",
            style=style,
        ),
        "bursts": widgets.Checkbox(value=False, description="bursts", style=style),
        "burst_rate": log_slider("burst_rate", 1e-3, 1e-4, 1e-1, description="burst rate"),
        "seed": widgets.IntText(value=seed, description="seed", style=style),
    }
    latency = Explorer(
        latency_report,
        controls,
        watch=["N", "w", "n_subpartitions", "pattern", "bursts", "burst_rate", "seed"],
        rows=[["N", "w", "n_subpartitions"], ["eta", "pattern"], ["bursts", "burst_rate", "seed"]],
    )
    convergence = Explorer(
        convergence_report, controls, auto=False, button="run convergence", rows=[]
    )
    latency.refresh()
    box = widgets.VBox([latency.box, convergence.box])
    box.latency, box.convergence = latency, convergence
    return box


#: This module's notebook (tests/test_browser.py) and the explorers tests/test_widgets.py builds.
WIDGET_TESTS = {
    "notebook": "03-dsag",
    "explorers": {"dsag latency": (explore_dsag, {}, "latency")},
}
