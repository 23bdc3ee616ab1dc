"""Notebook 06's explorer: controls wired to :func:`codedlib.experiments.shootout.your_cluster`
(your cluster, or one fitted to a latency trace) -> every scheme's ranking with intervals
(:func:`codedlib.plots.shootout.plot_ranking`) and the cluster on the regime maps' axes.

Reference: severinson2023dsag (Sec. VI-A, latency fitted from traces).
"""

from __future__ import annotations

import html
from functools import partial
from typing import TYPE_CHECKING

from codedlib.cluster import FAMILIES
from codedlib.latency.traces import list_traces, trace_path
from codedlib.widgets._common import Explorer, Report, log_slider

if TYPE_CHECKING:
    from codedlib.experiments.shootout import YourCluster

#: The trace menu's entry meaning "use the controls, not a trace".
TRACE_NONE = "(none: the controls describe the cluster)"


def trace_choices() -> list[str]:
    """:data:`TRACE_NONE` and the CSV traces shipped under ``data/traces``."""
    return [TRACE_NONE] + [f"{name}.csv" for name in list_traces()]


def your_cluster_report(
    n_workers: int,
    family: str,
    shape: float,
    heterogeneity: float,
    burst_factor: float,
    comm_to_comp: float,
    trace: str,
    seeds: int,
    max_iter: int = 300,
) -> tuple[YourCluster, str]:
    """``(YourCluster, html)`` the explorer shows: the ranking on the described cluster, or on
    the one fitted to ``trace`` (a file under ``data/traces``; :data:`TRACE_NONE`: none), at N =
    ``n_workers``."""
    from codedlib.experiments import shootout as ex

    if trace == TRACE_NONE:
        cluster = ex.default_cluster(n_workers, family=family, shape=shape, name="your cluster")
        cluster = cluster.with_(heterogeneity=heterogeneity, burst_factor=burst_factor)
        source = ex.apply_axis(cluster, "comm_to_comp", comm_to_comp)
    else:
        if trace not in trace_choices():
            raise ValueError(f"trace must be one of {trace_choices()}, got trace={trace!r}")
        source = trace_path(trace.removesuffix(".csv"))
    result = ex.your_cluster(source, seeds=int(seeds), n_workers=n_workers, max_iter=max_iter)
    rows = "".join(
        f"<tr><td>{r.scheme}</td><td>{r['mean']:.4g}</td><td>[{r.ci_low:.4g}, "
        f"{r.ci_high:.4g}]</td><td>×{r.ratio_to_best:.3g}</td><td>{r.verdict}</td></tr>"
        for _, r in result.ranking.table.iterrows()
    )
    where = ", ".join(f"{k} = {v:.3g}" for k, v in result.position.items() if v == v)
    fitted = ""
    if result.fit is not None:
        notes = "; ".join(html.escape(n) for n in result.fit.notes[:3])
        fitted = f"<p>fitted from <code>{html.escape(trace)}</code>: {notes}</p>"
    winners = ", ".join(result.ranking.winners) or "none reaches the target"
    text = (
        f"<p><b>{html.escape(result.cluster.describe())}</b></p>{fitted}"
        f"<p>fastest (with those the 95 % interval cannot tell from it): <b>{winners}</b></p>"
        f"<p>on the map's axes: {where}</p>"
        "<table><tr><th>scheme</th><th>time to target [s]</th><th>95 % CI</th>"
        f"<th>vs fastest</th><th>verdict</th></tr>{rows}</table>"
    )
    return result, text


def _view(**values) -> Report:
    from codedlib.plots import shootout as sp

    result, text = your_cluster_report(**values)
    return Report(text, [sp.plot_ranking(result.ranking, title="Your cluster")])


def explore_your_cluster(
    n_workers: int = 24, seeds: int = 3, max_iter: int = 300, trace: str = TRACE_NONE
) -> Explorer:
    """The "your cluster" explorer: N, delay family and shape, heterogeneity, bursts,
    communication/computation, or a trace; the Rank button ranks every scheme (ranked once at
    construction with the initial values)."""
    import ipywidgets as W

    kw = {"style": {"description_width": "initial"}}
    number = partial(W.BoundedFloatText, **kw)
    controls = {
        "n_workers": W.BoundedIntText(value=n_workers, min=2, max=10_000, description="N", **kw),
        "family": W.Dropdown(
            options=list(FAMILIES), value="shifted_exponential", description="delay family", **kw
        ),
        "shape": number(value=0.5, max=100.0, step=0.05, description="shape (v, ξ or cv)"),
        "heterogeneity": number(max=10.0, step=0.1, description="heterogeneity h"),
        "burst_factor": number(value=1.0, max=20.0, step=0.1, description="burst factor"),
        "comm_to_comp": log_slider("comm_to_comp", 0.0235, 0.01, 100.0, description="comm / comp"),
        "trace": W.Dropdown(options=trace_choices(), value=trace, description="or a trace", **kw),
        "seeds": W.IntSlider(value=seeds, min=2, max=10, description="seeds", **kw),
    }
    rows = [
        ["n_workers", "family", "shape", "heterogeneity"],
        ["burst_factor", "comm_to_comp", "trace", "seeds"],
    ]
    options = dict(rows=rows, auto=False, button="Rank the schemes", fixed={"max_iter": max_iter})
    explorer = Explorer(_view, controls, **options)
    explorer.refresh()  # a reader sees the first ranking before pressing anything
    return explorer


#: This module's notebook (tests/test_browser.py) and the explorers tests/test_widgets.py builds.
WIDGET_TESTS = {
    "notebook": "06-shootout",
    "explorers": {},  # explore_your_cluster is tested in tests/test_shootout_experiments.py
}
