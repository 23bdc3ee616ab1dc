"""Explorers of notebook ``00-stragglers``: each wraps a ``*_report`` function returning
``(figure, text)`` and shows its ``ValueError`` as the message.

References: references.bib keys halbawi2018reedsolomon (Proposition 1, eq. 19),
severinson2023dsag (bursts, Sec. III-B).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import check_int
from codedlib.experiments import stragglers as ex
from codedlib.latency.models import gamma_from_moments, pareto, shifted_exponential
from codedlib.widgets._common import Explorer, Report, float_slider, log_slider, text_html

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: per model: (first parameter name, default, range), (second parameter name, default, range)
MODEL_PARAMETERS = {
    "shifted exponential": (("shift", 0.5, (0.0, 5.0)), ("rate", 2.0, (0.05, 10.0))),
    "Pareto": (("t0", 1.0, (0.05, 5.0)), ("xi", 2.0, (0.1, 6.0))),
    "gamma": (("mean", 1.0, (0.05, 5.0)), ("var", 0.25, (0.01, 5.0))),
}


def order_statistics_report(
    model: str,
    first: float,
    second: float,
    n: int,
    k: int,
    replicas: int = 20_000,
    seed: int = 0,
) -> tuple[Figure, str]:
    """Figure (pdf/cdf + ``E[T_(k)]`` vs ``k``) and a text summary for the chosen ``k`` of the
    delay model named ``model`` with its two parameters (:data:`MODEL_PARAMETERS`)."""
    from codedlib.plots import subplots
    from codedlib.plots.stragglers import plot_order_statistics

    if model not in MODEL_PARAMETERS:
        raise ValueError(f"model must be one of {sorted(MODEL_PARAMETERS)}, got model={model!r}")
    makers = {"shifted exponential": shifted_exponential, "Pareto": pareto}
    dist = makers.get(model, gamma_from_moments)(first, second)
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=1, high=n)
    comparison = ex.order_statistic_comparison(dist, n, replicas=replicas, rng=seed)
    curves = ex.delay_model_curves({model: dist})
    fig, axes = subplots(1, 3, figsize=(13.5, 3.6), layout="constrained")
    axes[0].plot(curves["t"], curves["pdf"], label="pdf")
    axes[0].plot(curves["t"], curves["cdf"], label="cdf")
    axes[0].set_xlim(0, curves.loc[curves["cdf"] < 0.995, "t"].max())
    axes[0].set(xlabel="latency t", title=f"{model}: mean {dist.mean():.4g}, var {dist.var():.4g}")
    axes[0].legend(fontsize="small")
    plot_order_statistics(comparison, title=f"E[T_(k)], n={n}", axes=axes[1:])
    axes[1].axvline(k, color="0.5", ls=":", lw=1)
    row = comparison.loc[comparison["k"] == k].iloc[0]
    lines = [f"{model}({first:g}, {second:g}), n={n}, k={k}:"]
    if np.isinf(row["numeric"]):
        lines.append(
            "  E[T_(k)] is infinite: the tail of T_(k) is too heavy (Pareto: xi (n-k+1) <= 1)"
        )
    else:
        if np.isfinite(row["closed_form"]):
            lines.append(f"  closed form  {row['closed_form']:.6g}")
        lines.append(f"  numeric      {row['numeric']:.6g}")
    mc = f"{row['mc_mean']:.6g} ± {row['mc_stderr']:.2g}"
    lines.append(f"  Monte Carlo  {mc} (1 s.e., {replicas:,} replicas)")
    if not row["mc_valid"]:
        lines.append("  (variance of T_(k) is infinite: the standard error is not meaningful)")
    if np.isfinite(row["numeric"]) and np.isfinite(dist.mean()):
        lines.append(f"  cost of waiting E[T_(k)] / E[T] = {row['numeric'] / dist.mean():.3g}")
    return fig, "\n".join(lines)


def pareto_limit_report(
    t0: float, xi: float, alpha: float, n_max: int = 100_000
) -> tuple[Figure, str]:
    """RS Proposition 1 (eq. 19) figure, up to ``n_max``, and the limit for ``(t0, xi, alpha)``."""
    from codedlib.plots.stragglers import plot_pareto_limit

    n_max = check_int("n_max", n_max, low=10)
    ns = np.unique(np.round(np.logspace(1, np.log10(n_max), 25)).astype(int))
    data = ex.pareto_limit_convergence(t0, xi, (alpha,), ns)
    if data.empty:
        raise ValueError(
            f"no n up to {n_max} gives a finite mean: needs xi (alpha n + 1) > 1, got xi={xi:g}, alpha={alpha:g}"
        )
    fig = plot_pareto_limit(data)
    last = data.iloc[-1]
    text = (
        f"limit t0 alpha^(-1/xi) = {last['limit']:.6g};  exact at n={int(last['n'])}, "
        f"k={int(last['k'])}: {last['exact']:.6g} (relative gap {last['relative_error']:.2e})"
    )
    return fig, text


def bursts_report(
    p_enter: float, p_exit: float, factor: float, seed: int = 0
) -> tuple[Figure, str]:
    """Bursty-worker path figure (36 workers, 600 iterations) and the stationary vs sampled
    summary."""
    from codedlib.plots.stragglers import plot_bursty_path

    result = ex.bursty_path(factor=factor, p_enter=p_enter, p_exit=p_exit, rng=seed)
    fig = plot_bursty_path(result.path)
    return fig, result.summary.to_string(index=False, float_format=lambda v: f"{v:.4g}")


# --------------------------------------------------------------------------------------
# ipywidgets front ends
# --------------------------------------------------------------------------------------
def _explorer(report, controls, **options) -> Explorer:
    """An Explorer, computed once, showing ``report(**values)``'s ``(figure, text)``."""

    def compute(**values):
        fig, text = report(**values)
        return Report(html=text_html(text), figures=[fig])

    explorer = Explorer(compute, controls, **options)
    explorer.refresh()
    return explorer


def explore_order_statistics(
    model: str = "Pareto", n: int = 20, k: int = 16, replicas: int = 20_000, seed: int = 0
) -> Explorer:
    """Delay model (:data:`MODEL_PARAMETERS`; switching it resets its two sliders), ``n`` and
    ``k`` -> pdf/cdf and ``E[T_(k)]`` in closed form, numerically and by Monte Carlo.
    """
    import ipywidgets as W

    if model not in MODEL_PARAMETERS:
        raise ValueError(f"model must be one of {sorted(MODEL_PARAMETERS)}, got model={model!r}")
    (p1, p2) = MODEL_PARAMETERS[model]
    style = {"description_width": "initial"}
    controls = {
        "model": W.Dropdown(options=list(MODEL_PARAMETERS), value=model, description="model"),
        "first": float_slider(p1[0], p1[1], *p1[2], 0.05),
        "second": float_slider(p2[0], p2[1], *p2[2], 0.05),
        "n": W.BoundedIntText(value=n, min=-1000, max=500, description="n workers", style=style),
        "k": W.BoundedIntText(value=k, min=-1000, max=500, description="k", style=style),
        "replicas": W.Dropdown(
            options=[2_000, 20_000, 100_000], value=replicas, description="MC replicas", style=style
        ),
    }
    explorer = _explorer(
        order_statistics_report,
        controls,
        rows=[["model", "first", "second"], ["n", "k", "replicas"]],
        fixed={"seed": seed},
        watch=["first", "second", "n", "k", "replicas"],
    )

    def on_model(change):
        first, second = controls["first"], controls["second"]
        with explorer.hold(recompute=True):  # one recompute, after the sliders are reset
            for slider, (name, default, (lo, hi)) in zip(
                (first, second), MODEL_PARAMETERS[change["new"]]
            ):
                with slider.hold_sync():
                    slider.min, slider.max = min(lo, slider.min), max(hi, slider.max)
                    slider.value = default
                    slider.min, slider.max, slider.description = lo, hi, name

    controls["model"].observe(on_model, names="value")
    return explorer


def explore_pareto_limit(t0: float = 0.001, xi: float = 1.1, alpha: float = 0.1477) -> Explorer:
    """``t0``, ``xi``, ``alpha`` -> RS Proposition 1 limit vs exact as ``n`` grows."""
    controls = {
        "t0": log_slider("t0", t0, 1e-4, 10.0),
        "xi": float_slider("xi", xi, 0.05, 6.0, 0.05),
        "alpha": float_slider("alpha", alpha, 0.0001, 1.0, 0.0001, readout_format=".4f"),
    }
    return _explorer(pareto_limit_report, controls)


def explore_bursts(
    p_enter: float = 0.0007, p_exit: float = 0.05, factor: float = 1.12, seed: int = 0
) -> Explorer:
    """Burst entry/exit probabilities and slowdown factor -> sampled path and summary."""
    controls = {
        "p_enter": log_slider("p_enter", p_enter, 1e-5, 1.0),
        "p_exit": log_slider("p_exit", p_exit, 1e-4, 1.0),
        "factor": float_slider("factor", factor, 0.5, 3.0, 0.01),
    }
    return _explorer(bursts_report, controls, fixed={"seed": seed})


#: This module's notebook (tests/test_browser.py) and the explorers tests/test_widgets.py builds.
WIDGET_TESTS = {
    "notebook": "00-stragglers",
    "explorers": {
        "order statistics": (explore_order_statistics, {"replicas": 2_000}),
        "pareto limit": (explore_pareto_limit, {}),
        "bursts": (explore_bursts, {}),
    },
}
