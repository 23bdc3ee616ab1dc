"""Interactive exploration for paper 5: per-worker speeds and communication times, K, Omega,
gamma, lambda, I -> theta, kappa split, active set, predicted and simulated delay.

Reference: esfahanizadeh2022stream.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from codedlib.schemes import stream as sim
from codedlib.theory import stream as th
from codedlib.widgets._common import Explorer, Report, float_slider, log_slider, text_html


def parse_values(name: str, text: str) -> np.ndarray:
    """Comma-separated numbers -> array; ValueError naming the field otherwise."""
    try:
        values = [float(v) for v in str(text).replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"{name} must be comma-separated numbers, got {name}={text!r}") from None
    if not values:
        raise ValueError(f"{name} must list at least one worker (P >= 1), got P=0")
    return np.asarray(values)


def split_report(
    rates_text: str,
    comm_text: str,
    heterogeneity: float,
    K: int,
    omega: float,
    gamma: float,
    lam: float,
    iterations: int,
    simulate: bool = True,
    complexity: float = th.EXAMPLE2["complexity"],
    n_jobs: int = 300,
) -> tuple[SimpleNamespace, str]:
    """``(result, text)`` the widget shows: theta, kappa, active set, predicted and simulated
    (3 seeds) delays of both splits for exponential workers ``Exp(mu_p / C)``, where
    ``heterogeneity`` h maps each speed to ``mean(mu) * (mu_p / mean(mu))^h`` (h = 0: identical
    speeds, h = 1: as typed); raises ``ValueError`` on bad input."""
    rates, comm = parse_values("mu_p", rates_text), parse_values("c_p", comm_text)
    if rates.size != comm.size:
        raise ValueError(
            f"mu_p and c_p must list the same number of workers, got {rates.size} and {comm.size}"
        )
    if np.any(rates <= 0):
        raise ValueError(f"mu_p must satisfy mu_p > 0, got mu_p={rates.min():g}")
    base = rates.mean()
    workers = th.StreamWorkers.exponential(base * (rates / base) ** heterogeneity, comm, complexity)
    res = {"lower_bound": th.lower_bound_delay(workers, K, iterations), "workers": workers}
    args, tail = (workers, K, omega), []
    for split in (th.optimal_split(*args, gamma), th.uniform_split(*args)):
        kind, pred = split.kind, th.predict_delay(workers, split.kappa, iterations, lam)
        run = (workers, split.kappa, K, iterations, lam, n_jobs, True, (0, 1, 2))
        summary = sim.simulate_mean_delay(*run) if simulate else None
        res |= {kind: split, f"{kind}_prediction": pred, f"{kind}_simulation": summary}
        res[f"{kind}_metric"] = th.balance_metric(workers, split.kappa, gamma)
        text = (
            f"{pred.pk_delay:.4g} s (rho = {pred.rho:.3f})"
            if pred.stable
            else f"UNSTABLE: E[T_s] = {pred.service_mean:.4g} s >= E[T_a] = {1 / lam:.4g} s"
        )
        tail.append(f"{kind:8s} theory, no purging (eq. 7): {text}")
        if simulate:
            tail[-1] += f";  simulated with purging ({n_jobs} jobs x 3 seeds): {summary}"
    opt, res = res["optimal"], SimpleNamespace(**res)
    lines = [
        (
            f"theta = {opt.theta:.6g}   active workers: {np.flatnonzero(opt.active) + 1}"
            f" ({opt.n_active} of {workers.n_workers})"
        ),
        f"kappa optimal (real):    {np.round(opt.kappa_continuous, 3)}",
        f"kappa optimal (integer): {opt.kappa}  (sum {opt.kappa.sum()} = K*Omega)",
        f"kappa uniform:           {res.uniform.kappa}",
        f"lower bound D_L (eq. 9): {res.lower_bound:.4g} s",
    ]
    return res, "\n".join(lines + tail)


def split_view(**values) -> Report:
    """:func:`split_report` as what the explorer shows: the summary and the per-worker chart."""
    from codedlib.plots import subplots

    res, text = split_report(**values)
    fig, ax = subplots(figsize=(7, 3.0), layout="constrained")
    x = np.arange(1, res.workers.n_workers + 1)
    ax.bar(x - 0.2, res.uniform_metric, width=0.4, color="C1", label="uniform")
    ax.bar(x + 0.2, res.optimal_metric, width=0.4, color="C0", label="optimal")
    ax.axhline(res.optimal.theta, color="k", lw=1, label="θ")
    ax.set(xlabel="worker p", ylabel="E[T] + γE[T²]", xticks=x)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return Report(html=text_html(text), figures=[fig])


def explore_load_split(n_jobs: int = 300) -> Explorer:
    """ipywidgets UI around Theorem 2, eqs. (6)-(9) and the Section VI simulation.

    It starts at Example 2's workers and task complexity. Bad input (mismatched lists, K*Omega not an integer,
    negative values) is shown as the error message instead of raising.
    """
    import ipywidgets as W

    ex2 = th.EXAMPLE2
    rates = ", ".join(f"{r:.3g}" for r in ex2["rates"])
    comm = ", ".join(f"{c:.4g}" for c in ex2["comm_time"])
    style = {"description_width": "initial"}
    wide = W.Layout(width="560px")
    controls = {
        "rates_text": W.Text(value=rates, description="μ_p (tasks/s)", style=style, layout=wide),
        "comm_text": W.Text(value=comm, description="c_p [s]", style=style, layout=wide),
        "heterogeneity": float_slider("heterogeneity", 1.0, 0.0, 2.0, 0.1),
        "K": W.IntSlider(value=ex2["K"], min=1, max=500, description="K", style=style),
        "omega": float_slider("omega", ex2["omega"], 1.0, 2.0, 0.02, description="Ω"),
        "gamma": log_slider("gamma", ex2["gamma"], 1e-3, 1e2, description="γ"),
        "lam": float_slider(
            "lam", ex2["arrival_rate"], 0.001, 0.05, 0.001, description="λ", readout_format=".3f"
        ),
        "iterations": W.IntSlider(
            value=ex2["iterations"], min=1, max=100, description="I", style=style
        ),
        "simulate": W.Checkbox(value=True, description="simulate (purging)", style=style),
    }
    explorer = Explorer(
        split_view,
        controls,
        fixed={"n_jobs": n_jobs},
        rows=[
            ["rates_text"],
            ["comm_text"],
            ["heterogeneity", "K", "omega"],
            ["gamma", "lam", "iterations"],
            ["simulate"],
        ],
    )
    explorer.refresh()
    return explorer


#: This module's notebook (tests/test_browser.py) and the explorers tests/test_widgets.py builds.
WIDGET_TESTS = {
    "notebook": "05-stream",
    "explorers": {"stream": (explore_load_split, {"n_jobs": 30})},
}
