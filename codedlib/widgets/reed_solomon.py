"""Interactive explorer for notebook 02: code parameters (n, k, w) and the delay model, through
the notebook's functions (Algorithm 4's mask, eq. (2)'s tolerance, α* of eq. (22), eq. (20)'s
numeric optimum, Fig. 3's T_f curve); invalid parameters show the library's ValueError.

Reference: halbawi2018reedsolomon, tandon2017gradient.
"""

from __future__ import annotations

from codedlib.codes.reed_solomon import _check_tolerance, mask_matrix, straggler_tolerance
from codedlib.experiments.reed_solomon import fig3_tf_curve
from codedlib.plots.reed_solomon import plot_mask, plot_tf_curve
from codedlib.theory.reed_solomon import optimal_workers
from codedlib.widgets._common import Explorer, Report, float_slider, log_slider, text_html


def code_summary(
    n: int, k: int, w: int, t0: float, xi: float, cg_N: float, c_m: float
) -> tuple[str, dict]:
    """Text and numbers the widget shows; raises ValueError on invalid parameters."""
    s = straggler_tolerance(n, k, w)
    _check_tolerance(n, k, w)  # s >= 1
    res = fig3_tf_curve(t0, xi, cg_N, c_m, n)
    f_rs = optimal_workers(n, t0, xi, cg_N, c_m, "rs")
    f_mds = optimal_workers(n, t0, xi, cg_N, c_m, "mds")
    a_star = res.alpha_star
    lines = [
        (
            f"load w/k = {w / k:.4f}; tolerates s = floor(nw/k) - 1 = {s} stragglers, "
            f"waits for f = {n - s} of n = {n}"
        ),
        "alpha* (eq. 22) = "
        + (f"{a_star:.4f}" if a_star is not None else "n/a (t0/(c_g N xi) >= 1: best alpha = 1)")
        + f"; numeric with decoding cost (eq. 20) = {res.alpha_star_online:.4f}",
        f"eq. (17) optimum: f_RS = {f_rs}, f_MDS = {f_mds} (paper: 68, 33 at n = 80)",
    ]
    return "\n".join(lines), {"s": s, "f": n - s, "res": res, "f_rs": f_rs, "f_mds": f_mds}


def reed_solomon_report(
    n: int, k: int, w: int, t0: float, xi: float, cg_N: float, c_m: float
) -> Report:
    """Text, mask and T_f curve for one setting (ValueError on invalid input)."""
    from codedlib.plots import subplots

    text, info = code_summary(n, k, w, t0, xi, cg_N, c_m)
    fig, axes = subplots(1, 2, figsize=(11, 4), layout="constrained")
    plot_mask(mask_matrix(n, k, w), ax=axes[0])
    plot_tf_curve(info["res"], ax=axes[1])
    return Report(html=text_html(text), figures=[fig])


def explore_reed_solomon(
    n: int = 8,
    k: int = 4,
    w: int = 3,
    t0: float = 0.001,
    xi: float = 1.1,
    cg_N: float = 0.035,
    c_m: float = 1e-9,
) -> Explorer:
    """Widget: n, k, w, ξ, t0, c_g N, c_m → mask, tolerance, α*, T_f curve. The positive
    parameters spanning decades are typed exactly (no slider rounding).
    """
    import ipywidgets as W

    style = {"description_width": "initial"}
    controls = {
        "n": W.BoundedIntText(value=n, min=2, max=400, description="n", style=style),
        "k": W.BoundedIntText(value=k, min=1, max=400, description="k", style=style),
        "w": W.BoundedIntText(value=w, min=1, max=400, description="w", style=style),
        "t0": log_slider("t0", t0, 1e-5, 1e-1),
        "xi": float_slider("xi", xi, 0.2, 4.0, 0.05, description="ξ"),
        "cg_N": log_slider("cg_N", cg_N, 1e-4, 1.0, description="c_g·N"),
        "c_m": log_slider("c_m", c_m, 1e-11, 1e-5, description="c_m [s/FLOP]"),
    }
    explorer = Explorer(
        reed_solomon_report, controls, rows=[["n", "k", "w"], ["t0", "xi"], ["cg_N", "c_m"]]
    )
    explorer.refresh()
    return explorer


#: This module's notebook (tests/test_browser.py) and the explorers tests/test_widgets.py builds.
WIDGET_TESTS = {
    "notebook": "02-reed-solomon",
    "explorers": {"reed-solomon": (explore_reed_solomon, {})},
}
