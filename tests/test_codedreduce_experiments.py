"""CodedReduce experiment functions (small settings) and the explorer's summary."""

import numpy as np
import pytest

from codedlib.experiments.codedreduce import (
    PAPER_SPEEDUPS,
    configuration_summary,
    convergence,
    example1_gc,
    example2_codedreduce,
    fig2_iteration_times,
    load_curves,
    ordering_vs_latency,
    seven_times_claim,
    speedups_vs_message_time,
    table1,
    theorem2_check,
)


def test_examples_1_and_2_worked_numerically():
    ex1 = example1_gc()
    assert ex1["table"]["max |a_f B G - g|"].max() < 1e-12
    for got, want in zip(ex1["table"]["decoding row a_f"], ex1["table"]["paper's row of A"]):
        np.testing.assert_allclose(got, want, atol=1e-12)
    ex2 = example2_codedreduce()
    assert ex2["max_abs_error"] < 1e-12
    np.testing.assert_allclose(ex2["m_(1,1)"], ex2["g_D1/2 + g_D2"], atol=1e-12)
    np.testing.assert_allclose(ex2["m_(1,3)"], ex2["g_D1/2 + g_D3"], atol=1e-12)
    np.testing.assert_allclose(ex2["decoding_(1,1)"], [2, -1, 0], atol=1e-12)


def test_load_curves_and_claim():
    df = load_curves(alphas=[0.1, 0.5])
    assert set(df["L"]) == {1, 2, 3}
    assert seven_times_claim()["reduction"] == pytest.approx(7.0)
    assert table1().loc["CR", "alpha exact"] == pytest.approx(0.25)


def test_theorem2_check_reports_within_for_large_n():
    df = theorem2_check(ns=(16,), n_iterations=50)
    assert bool(df["within bounds"].iloc[0])


def test_fig2_table_has_costs_and_paper_numbers():
    df = fig2_iteration_times(n_iterations=50)
    assert df["mean iteration time [s]"].idxmin() == "CR"
    assert df["mean iteration time [s]"].idxmax() == "UMW"
    assert df.loc["UMW", "CR speedup (paper)"] == PAPER_SPEEDUPS["fig2"]["UMW"]
    assert df.loc["CR", "messages at busiest node"] == 3
    assert df.loc["GC", "load [points/worker]"] > df.loc["CR", "load [points/worker]"]


def test_ordering_vs_latency_only_moves_rar():
    df = ordering_vs_latency(lams=(0.0, 0.5), n_iterations=20)
    assert df.loc[0.0, "RAR"] < df.loc[0.5, "RAR"]
    assert df.loc[0.0, "CR"] == df.loc[0.5, "CR"]


@pytest.mark.parametrize("figure", ["fig8", "fig10"])
def test_convergence_quick(figure):
    res = convergence(figure, quick=True, n_iterations=25, sgd_learning_rate=(10.0, 100.0))
    curves = res["curves"]
    # exact schemes share iterates: identical error columns
    errs = {k: g["error"].to_numpy() for k, g in curves.groupby("scheme")}
    for name in ("UMW", "GC", "RAR"):
        np.testing.assert_array_equal(errs[name], errs["CR"])
    # the actually decoded gradients on the real problem are exact
    assert res["verification"]["CR"] < 1e-9 and res["verification"]["GC"] < 1e-9
    assert set(res["speedups"].index) == {"UMW", "GC", "RAR", "SGD"}
    assert (res["speedups"]["CR speedup to target (ours)"] > 1).all()


def test_configuration_summary_and_errors():
    out = configuration_summary(n=3, L=2, s=1, d=45, n_iterations=20)
    assert out["r_CR"] == pytest.approx(4 / 15)
    assert out["CR points per node"] == "12..12"
    assert out["Theorem 2 lower"] < out["Theorem 2 upper"]
    with pytest.raises(ValueError, match="s must satisfy"):
        configuration_summary(n=3, L=2, s=3)
    with pytest.raises(ValueError, match="figure must be one of"):
        convergence("fig99")


def test_widget_builds_and_survives_bad_input():
    pytest.importorskip("ipywidgets")
    import matplotlib

    matplotlib.use("Agg")
    from codedlib.widgets.codedreduce import explore_codedreduce, render_summary

    ui = explore_codedreduce(n=3, L=2, s=1, d=45)
    assert all(image.value[:4] == b"\x89PNG" for image in ui.images)  # tree and bar chart
    ui.controls["s"].value = 5  # s >= n: the widget shows the error instead of raising
    assert "s must satisfy" in ui.status.value
    assert all(image.layout.display == "none" for image in ui.images)  # no stale figure
    ui.controls["s"].value = 1
    assert "r_CR" in ui.status.value and ui.calls == 3
    html = render_summary(configuration_summary(n=3, L=2, s=1, d=45, n_iterations=5))
    assert "r_CR" in html and "<table>" in html


def test_speedups_vs_message_time_shows_rar_overtaking_at_small_tc():
    df = speedups_vs_message_time(t_cs=(0.05, 0.002), trees=((4, 3, 1),), n_iterations=30)
    assert bool(df["CR fastest"].iloc[0]) and not bool(df["CR fastest"].iloc[1])
    assert df["CR vs RAR"].iloc[1] < 1 < df["CR vs RAR"].iloc[0]
