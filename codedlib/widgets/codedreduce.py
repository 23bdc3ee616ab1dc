"""Interactive explorer for CodedReduce: tree shape, resiliency and timing constants in,
loads, resiliency, tree drawing, Theorem 2 bounds and a fresh simulation out.

Reference: reisizadeh2022codedreduce, tandon2017gradient.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from codedlib.widgets._common import Explorer, Report, float_slider, log_slider

#: Display label of every scalar entry of ``configuration_summary``, in table order.
SUMMARY_LABELS = {
    "n_workers": "N",
    "alpha": "alpha",
    "stragglers_flat": "S (GC/SGD)",
    "r_cr": "r_CR",
    "r_gc": "r_GC at S = alpha N",
    "cr_points_per_node": "CR points per node",
    "r_cr_d": "r_CR d",
    "t_c": "t_c (full gradient) [s]",
    "rar_segment": "RAR segment [s]",
    "theorem2_lower": "Theorem 2 lower",
    "theorem2_upper": "Theorem 2 upper",
}


def render_summary(summary: Mapping[str, object]) -> str:
    """HTML table of the scalar entries of ``experiments.codedreduce.configuration_summary``,
    labelled by :data:`SUMMARY_LABELS` (Theorem 2's bounds only when they exist, s >= 1).
    """
    rows = []
    for key, label in SUMMARY_LABELS.items():
        if (value := summary[key]) is not None:
            text = f"{value:.4g}" if isinstance(value, float) else str(value)
            rows.append(f"<tr><td>{html.escape(label)}</td><td>{html.escape(text)}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def codedreduce_report(
    n: int,
    L: int,
    s: int,
    d: int,
    a: float,
    amu: float,
    bandwidth_mbps: float,
    latency_ms: float,
    p: int,
    straggle_prob: float,
    straggle_delay: float,
    seed: int,
) -> Report:
    """What the explorer shows for one configuration (ValueError on invalid input)."""
    from codedlib._validation import check_real
    from codedlib.experiments.codedreduce import configuration_summary
    from codedlib.network import Network
    from codedlib.plots.codedreduce import plot_iteration_times, plot_time_breakdown, plot_tree
    from codedlib.schemes.codedreduce import TimingModel

    a = check_real("a", a, low=0.0, low_open=True)  # Network and TimingModel check the rest
    network = Network(latency_ms / 1e3, bandwidth_mbps * 1e6 / 8)
    model = TimingModel(
        a, amu / a, network, p, straggle_prob=straggle_prob, straggle_delay=straggle_delay
    )
    summary = configuration_summary(n, L, s, d, model, n_iterations=200, rng=seed)
    alloc = summary["allocation"]
    text = render_summary(summary)
    tree = plot_tree(alloc) if alloc.n**alloc.L <= 81 else None
    if tree is None:
        text += f"<p>(tree with {alloc.n**alloc.L} leaves not drawn)</p>"
    figures = [tree, plot_iteration_times(summary["simulation"])]
    figures.append(plot_time_breakdown({"this configuration": summary["breakdown"]}))
    return Report(html=text, figures=figures)


def explore_codedreduce(
    n: int = 4, L: int = 3, s: int = 1, d: int = 7644, seed: int = 0
) -> Explorer:
    """ipywidgets UI: n, L, s, d, a, a·μ, the network (bandwidth, latency), the gradient size p,
    the straggler process (q, D) and a seed -> computation loads of CR and GC, the
    resiliency, message times, the tree (up to 81 leaves), Theorem 2's bounds, the mean
    iteration time of every scheme in a fresh simulation and where it goes; "simulate again"
    draws a new seed. Invalid combinations show the error message and no stale figure.
    """
    import ipywidgets as W

    from codedlib.schemes.codedreduce import PAPER_NETWORK

    style = {"description_width": "initial"}
    mbps = round(PAPER_NETWORK.bandwidth * 8 / 1e6, 1)
    decades = {  # log_slider's (value, low, high, description)
        "a": (5e-5, 1e-7, 1e-2, "a [s/point]"),
        "amu": (1.0, 1e-2, 1e2, "a·μ"),
        "bandwidth_mbps": (mbps, 1.0, 1e5, "bandwidth [Mb/s]"),
        "latency_ms": (PAPER_NETWORK.latency * 1e3, 1e-3, 100.0, "latency [ms]"),
        "straggle_delay": (0.1, 1e-4, 100.0, "straggler delay D [s]"),
    }
    controls = {
        "n": W.IntSlider(value=n, min=1, max=16, description="n (children)", style=style),
        "L": W.IntSlider(value=L, min=1, max=4, description="L (layers)", style=style),
        "s": W.IntSlider(value=s, min=0, max=15, description="s (per parent)", style=style),
        "d": W.BoundedIntText(value=d, min=1, max=10**7, description="d (points)", style=style),
        "p": W.BoundedIntText(value=6500, min=1, max=10**9, description="p (numbers)", style=style),
        "straggle_prob": float_slider(
            "straggle_prob", 0.0, 0.0, 0.5, 0.01, description="straggler probability q"
        ),
        "seed": W.IntText(value=seed, description="seed", style=style),
    } | {name: log_slider(name, *v, description=label) for name, (*v, label) in decades.items()}
    again = W.Button(description="simulate again", tooltip="a new seed")
    rows = [
        ["n", "L", "s", "d"],
        ["a", "amu", "p"],
        ["bandwidth_mbps", "latency_ms"],
        ["straggle_prob", "straggle_delay", "seed"],
    ]
    explorer = Explorer(codedreduce_report, controls, n_figures=3, rows=rows, extra=[again])
    again.on_click(lambda _: setattr(controls["seed"], "value", controls["seed"].value + 1))
    explorer.refresh()
    return explorer


#: This module's notebook (tests/test_browser.py) and the explorers tests/test_widgets.py builds.
WIDGET_TESTS = {
    "notebook": "01-codedreduce",
    "explorers": {"codedreduce": (explore_codedreduce, {"n": 3, "L": 2, "s": 1, "d": 45})},
}
