"""CodedReduce experiment functions (small settings) and the explorer's summary."""

import numpy as np
import pandas as pd
import pytest

from codedlib.experiments.codedreduce import (
    PAPER_SPEEDUPS,
    configuration_summary,
    convergence,
    convergence_over_seeds,
    example1_gc,
    example2_codedreduce,
    fig2_iteration_times,
    fig2_over_seeds,
    load_curves,
    model_speedup_range,
    ordering_vs_latency,
    replica_seeds,
    seven_times_claim,
    speedup_intervals,
    speedup_range_summary,
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


# -- seeds, intervals and the model's reach (issue 11) ------------------------------------


def test_replica_seeds_are_deterministic_and_distinct():
    seeds = replica_seeds(0, 5)
    assert seeds == replica_seeds(0, 5)
    assert len(set(seeds)) == 5 and all(isinstance(s, int) for s in seeds)
    assert replica_seeds(1, 5) != seeds
    assert replica_seeds(0, 3) == seeds[:3]  # spawned children do not depend on how many
    with pytest.raises(ValueError, match="n_seeds"):
        replica_seeds(0, 0)


def test_fig2_over_seeds_pairs_seeds_and_brackets_the_mean():
    out = fig2_over_seeds(n_iterations=20, seeds=replica_seeds(3, 3))
    per_seed, summary = out["per_seed"], out["summary"]
    assert set(per_seed.columns) >= {"seed", "scheme", "mean iteration time [s]"}
    assert len(per_seed) == 3 * 5
    for name in summary.index:
        row = summary.loc[name]
        assert row["ci low [s]"] <= row["mean iteration time [s]"] <= row["ci high [s]"]
        assert row["speedup ci low"] <= row["CR speedup (ours)"] <= row["speedup ci high"]
    assert summary.loc["CR", "CR speedup (ours)"] == pytest.approx(1.0)
    # each seed is its own fig2_iteration_times run
    seed0 = per_seed["seed"].iloc[0]
    single = fig2_iteration_times(n_iterations=20, rng=seed0)
    got = per_seed[per_seed["seed"] == seed0].set_index("scheme")["mean iteration time [s]"]
    np.testing.assert_allclose(got[single.index], single["mean iteration time [s]"])
    with pytest.raises(ValueError, match="seeds"):
        fig2_over_seeds(seeds=[])


def test_model_speedup_range_reaches_the_communication_bound_limits():
    tidy = model_speedup_range({"N84": (4, 3, 1, 7644)}, t_cs=(0.05, 50.0), a_mus=(1.0,),
                               lams=(0.0, 0.1, 1.0), n_iterations=10, rng=0)
    assert set(tidy["scheme"]) == {"UMW", "GC", "SGD", "RAR"}
    summary = speedup_range_summary(tidy, at={"t_c": 0.05, "a_mu": 1.0, "lam": 0.1})
    # N / (L (n - s)) = 84 / 9 and (N - S) / (L (n - s)) = 63 / 9, approached for large t_c
    assert summary.loc[("N84", "UMW"), "communication-bound limit"] == pytest.approx(84 / 9)
    assert summary.loc[("N84", "GC"), "communication-bound limit"] == pytest.approx(7.0)
    assert summary.loc[("N84", "UMW"), "max"] == pytest.approx(84 / 9, rel=2e-3)
    assert summary.loc[("N84", "GC"), "max"] <= 7.0 + 1e-9
    # the chosen constants' value equals the plain simulation's ratio
    fig2 = fig2_iteration_times(4, 3, 1, 7644, n_iterations=10, rng=0)
    assert summary.loc[("N84", "RAR"), "at chosen constants"] == pytest.approx(
        fig2.loc["RAR", "CR speedup (ours)"], rel=1e-12)
    # RAR grows with its latency share
    rar = tidy[(tidy["scheme"] == "RAR") & (tidy["t_c"] == 0.05)].set_index("lam")["CR speedup"]
    assert rar[0.0] < rar[0.1] < rar[1.0]


def test_convergence_over_seeds_tidy_tables_and_intervals():
    seeds = replica_seeds(1, 2)
    res = convergence_over_seeds("fig8", quick=True, n_iterations=8, seeds=seeds,
                                 sgd_learning_rate=(10.0, 100.0))
    assert sorted(res["curves"]["seed"].unique()) == sorted(seeds)
    assert set(res["speedups"]["seed"]) == set(seeds)
    assert len(res["final"]) == 2 * 5 and len(res["verification"]) == 1  # one coded check
    assert res["verification"][["CR", "GC"]].to_numpy().max() < 1e-9
    # time-to-target ratio = the per-seed speedup column
    sp = res["speedups"]
    np.testing.assert_allclose(sp["time to target [s]"] / sp["CR time to target [s]"],
                               sp["CR speedup to target (ours)"])
    table = speedup_intervals(sp)
    assert list(table.index) == ["UMW", "GC", "RAR", "SGD"]
    assert (table["to target ci low"] <= table["to target (ours)"]).all()
    assert (table["to target (ours)"] <= table["to target ci high"]).all()
    assert res["data_shape"] == (271, 65) and res["n_iterations"] == 8


def test_theorem2_check_decomposes_the_gap_at_small_n():
    df = theorem2_check(ns=(8, 16), n_iterations=200, rng=1)
    assert list(df["position"]) == ["below (7)", "inside"]
    row = df.iloc[0]
    assert row["ci low"] <= row["Monte Carlo E[T_CR]"] <= row["ci high"]
    # the two measured gaps add up to the miss
    gap = row["lower (7)"] - row["Monte Carlo E[T_CR]"]
    parts = ((row["computation term (7)-(8)"] - row["E[T_(n-s)] exact"])
             + (row["communication term (7)"] - row["MC - E[T_(n-s)]"]))
    assert parts == pytest.approx(gap)
    assert row["computation term (7)-(8)"] > row["E[T_(n-s)] exact"]  # log(1/α) > H_n - H_s


def test_plots_bands_and_honest_titles():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from codedlib.plots.codedreduce import (
        plot_convergence,
        plot_iteration_times,
        plot_speedups_vs_paper,
        plot_theorem2,
        theorem2_title,
    )

    res = convergence_over_seeds("fig8", quick=True, n_iterations=6, seeds=[1, 2],
                                 sgd_learning_rate=(10.0, 100.0))
    fig = plot_convergence(res, subtitle="stand-in: digits")
    ax = fig.axes[0]
    assert len(ax.collections) == 5  # one band per scheme
    assert "stand-in: digits" in ax.get_title()
    assert "2 seeds" in ax.get_legend().get_title().get_text()
    plt.close(fig)
    thm = theorem2_check(ns=(8, 16), n_iterations=100, rng=1)
    title = theorem2_title(thm)
    assert "below (7) for n = 8" in title and "between (7) and (8) for n = 16" in title
    plt.close(plot_theorem2(thm))
    summary = fig2_over_seeds(n_iterations=10, seeds=[1, 2])["summary"]
    fig = plot_iteration_times(summary)
    assert "[" in "".join(t.get_text() for t in fig.axes[0].texts)  # intervals on the bars
    plt.close(fig)
    table = pd.DataFrame({"figure": ["fig2", "fig8"], "scheme": ["GC", "GC"], "paper": [6.4, 5.3],
                          "ours": [6.8, 6.8], "ci low": [6.7, 6.7], "ci high": [6.9, 6.9]})
    ranges = pd.DataFrame({"figure": ["fig2", "fig8"], "scheme": ["GC", "GC"], "min": [2.0, 2.0],
                           "max": [7.0, 7.0]})
    fig = plot_speedups_vs_paper(table, ranges)
    assert len(fig.axes) == 1
    plt.close(fig)
