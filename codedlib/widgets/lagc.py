"""Interactive explorer for the LAGC notebook: N, r, G, ξ, D and the delay distribution →
Table II complexities and a fresh simulated run of every scheme.

:func:`lagc_report` does the work (plain function, testable); :func:`explore_lagc` wraps it
in ipywidgets and prints the ValueError message instead of crashing on bad input.

Reference: zhang2021lagc, tandon2017gradient, chen2018lag.
"""

from __future__ import annotations

import inspect
from functools import partial

from codedlib.experiments import lagc as ex
from codedlib.plots.lagc import LABELS, plot_convergence
from codedlib.widgets._common import Explorer, Report, float_slider


def lagc_report(*args, **settings) -> dict:
    """Complexities (Table II, theory) and a fresh run (simulation) for one setting: what
    :func:`codedlib.experiments.lagc.compare_schemes` returns, with its convergence rows drawn.

    The arguments, their defaults and their checks are those of ``compare_schemes`` (one
    home: its signature).
    """
    bound = inspect.signature(ex.compare_schemes).bind(*args, **settings)
    bound.apply_defaults()
    values = bound.arguments
    result = ex.compare_schemes(*bound.args, **bound.kwargs)
    figure = plot_convergence(
        result.pop("metrics"),
        title=f"N={values['n_workers']}, r={values['redundancy']}, G={values['n_groups']},"
        f" ξ={values['xi']}, D={values['history']}, {values['delay_kind']} delays,"
        f" stepsize rule '{values['stepsize_rule']}'",
    )
    return result | {"figure": figure}


def lagc_view(**values) -> Report:
    """:func:`lagc_report` as what the explorer shows: two tables and the figure."""
    report = lagc_report(**values)
    text = (
        "<b>Table II (theory; lazy schemes are upper bounds)</b>"
        + report["theory"].rename(columns=LABELS).round(1).to_html(index=False, na_rep="")
        + "<b>Measured on a fresh run (complexity at gap 1e-8 × initial gap)</b>"
        + report["measured"].rename(columns=LABELS).round(2).to_html(index=False, na_rep="")
    )
    return Report(html=text, figures=[report["figure"]])


def explore_lagc(**defaults) -> Explorer:
    """ipywidgets UI around :func:`lagc_report` (controls: N, r, G, ξ, D, delay, step size);
    "Run" recomputes (a progress bar shows while it runs). Only the delay parameters of the
    chosen distribution are shown.
    """
    import ipywidgets as w

    # the controls start at compare_schemes' defaults (kept there only)
    parameters = inspect.signature(ex.compare_schemes).parameters
    d = {name: p.default for name, p in parameters.items()} | defaults
    style = {"description_width": "initial"}
    drop = partial(w.Dropdown, style=style)
    ints = partial(w.IntSlider, min=1, style=style)
    text = partial(w.BoundedFloatText, min=1e-6, max=1e6, style=style)
    controls = {
        "n_workers": drop(options=[4, 6, 8, 12, 24], value=d["n_workers"], description="N"),
        "redundancy": ints(value=d["redundancy"], max=24, description="r"),
        "n_groups": ints(value=d["n_groups"], max=24, description="G"),
        "xi": float_slider("xi", d["xi"], 0.0, 0.2, 0.005, description="ξ", readout_format=".3f"),
        "history": ints(value=d["history"], max=20, description="D"),
        "delay_kind": drop(
            options=["exponential", "pareto"], value=d["delay_kind"], description="delay"
        ),
        "mean": text(value=d["mean"], description="exponential mean"),
        "scale": text(value=d["scale"], description="Pareto t0"),
        "shape": text(value=d["shape"], min=1e-3, max=100.0, description="Pareto shape"),
        "stepsize_rule": drop(
            options=["gd", "theory"], value=d["stepsize_rule"], description="step size"
        ),
    }

    def show_delay_parameters(*_):
        pareto = controls["delay_kind"].value == "pareto"
        for name, shown in (("mean", not pareto), ("scale", pareto), ("shape", pareto)):
            controls[name].layout.display = "" if shown else "none"

    controls["delay_kind"].observe(show_delay_parameters, names="value")
    show_delay_parameters()
    explorer = Explorer(
        lagc_view,
        controls,
        auto=False,
        button="Run",
        rows=[
            ["n_workers", "redundancy", "n_groups"],
            ["xi", "history"],
            ["delay_kind", "mean", "scale", "shape"],
            ["stepsize_rule"],
        ],
    )
    explorer.refresh()
    return explorer


#: This module's notebook (tests/test_browser.py) and the explorers tests/test_widgets.py builds.
WIDGET_TESTS = {
    "notebook": "04-lagc",
    "explorers": {"lagc": (explore_lagc, {"n_workers": 4, "redundancy": 2, "n_groups": 2})},
}
