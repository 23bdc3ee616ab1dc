"""Interactive explorer for CodedReduce: tree shape, resiliency and timing constants in,
loads, resiliency, tree drawing, Theorem 2 bounds and a fresh simulation out."""

from __future__ import annotations

import html

from codedlib.widgets._common import Explorer, Report, float_slider, log_slider

__all__ = ["codedreduce_report", "explore_codedreduce", "render_summary"]


def render_summary(summary: dict) -> str:
    """HTML table of the scalar entries of ``experiments.codedreduce.configuration_summary``."""
    rows = []
    for key, value in summary.items():
        if key in ("allocation", "simulation"):
            continue
        text = f"{value:.4g}" if isinstance(value, float) else str(value)
        rows.append(f"<tr><td>{html.escape(key)}</td><td>{html.escape(text)}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def codedreduce_report(n, L, s, d, a, amu, t_c, latency_fraction, seed) -> Report:
    """What the explorer shows for one configuration (ValueError on invalid input)."""
    from codedlib._validation import check_real
    from codedlib.experiments.codedreduce import configuration_summary
    from codedlib.plots.codedreduce import plot_iteration_times, plot_tree

    a = check_real("a", a, low=0.0, low_open=True)
    summary = configuration_summary(n=n, L=L, s=s, d=d, a=a, mu=amu / a, t_c=t_c,
                                    latency_fraction=latency_fraction, n_iterations=200,
                                    rng=seed)
    alloc = summary["allocation"]
    text = render_summary(summary)
    tree = None
    if alloc.n**alloc.L <= 81:
        tree = plot_tree(alloc)
    else:
        text += f"<p>(tree with {alloc.n**alloc.L} leaves not drawn)</p>"
    return Report(html=text, figures=[tree, plot_iteration_times(summary["simulation"])])


def explore_codedreduce(n: int = 4, L: int = 3, s: int = 1, d: int = 7644, seed: int = 0) -> Explorer:
    """ipywidgets UI: n, L, s, d, a, a·μ, t_c, the RAR latency share (chosen, not from the
    paper) and a seed -> computation loads of CR and GC, the resiliency, the tree (up to 81
    leaves), Theorem 2's bounds and the mean iteration time of every scheme in a fresh
    simulation; "simulate again" draws a new seed. Invalid combinations show the error
    message and no stale figure."""
    import ipywidgets as W

    style = {"description_width": "initial"}
    controls = {
        "n": W.IntSlider(value=n, min=1, max=16, description="n (children)", style=style),
        "L": W.IntSlider(value=L, min=1, max=4, description="L (layers)", style=style),
        "s": W.IntSlider(value=s, min=0, max=15, description="s (per parent)", style=style),
        "d": W.BoundedIntText(value=d, min=1, max=10**7, description="d (points)", style=style),
        "a": log_slider("a", 5e-5, 1e-7, 1e-2, description="a [s/point]"),
        "amu": log_slider("amu", 1.0, 1e-2, 1e2, description="a·μ"),
        "t_c": log_slider("t_c", 0.05, 1e-4, 1.0, description="t_c [s]"),
        "latency_fraction": float_slider("latency_fraction", 0.1, 0.0, 1.0, 0.01,
                                         description="RAR latency share λ (chosen)"),
        "seed": W.IntText(value=seed, description="seed", style=style),
    }
    again = W.Button(description="simulate again", tooltip="a new seed")
    explorer = Explorer(codedreduce_report, controls, n_figures=2,
                        rows=[["n", "L", "s", "d"], ["a", "amu", "t_c"],
                              ["latency_fraction", "seed"]], extra=[again])
    again.on_click(lambda _: setattr(controls["seed"], "value", controls["seed"].value + 1))
    explorer.refresh()
    return explorer
