"""CodedReduce experiment functions (small settings) and the explorer's summary."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from codedlib.experiments.codedreduce import (
    PAPER_SPEEDUPS,
    calibrate_straggle_delay,
    coded_gradient_descent,
    configuration_summary,
    convergence,
    convergence_over_seeds,
    example1_gc,
    example2_codedreduce,
    fig2_iteration_times,
    fig2_measure,
    fig2_summary,
    figure_model,
    load_curves,
    model_speedup_range,
    regime_map,
    seven_times_claim,
    speedup_intervals,
    speedup_range_summary,
    table1,
    theorem2_check,
    time_breakdown,
)
from codedlib.network import Network
from codedlib.replicate import over_seeds, spawn_seeds
from codedlib.schemes.codedreduce import PAPER_NETWORK, TimingModel


def test_examples_1_and_2_worked_numerically():
    ex1 = example1_gc()
    assert isinstance(ex1, SimpleNamespace)
    assert ex1.table["max_abs_error"].max() < 1e-12
    for got, want in zip(ex1.table["decoding_row"], ex1.table["paper_row"]):
        np.testing.assert_allclose(got, want, atol=1e-12)
    ex2 = example2_codedreduce()
    assert isinstance(ex2, SimpleNamespace)
    assert ex2.max_abs_error < 1e-12
    m = ex2.messages
    np.testing.assert_allclose(m["m_(1,1)"], m["½g_D1 + g_D2"], atol=1e-12)
    np.testing.assert_allclose(m["m_(1,3)"], m["½g_D1 + g_D3"], atol=1e-12)
    np.testing.assert_allclose(ex2.decoding_11, [2, -1, 0], atol=1e-12)


def test_load_curves_and_claim():
    df = load_curves(alphas=[0.1, 0.5])
    assert set(df["L"]) == {1, 2, 3}
    claim = seven_times_claim()
    assert isinstance(claim, SimpleNamespace)
    assert claim.reduction == pytest.approx(7.0)
    assert claim.load_one_layer / claim.load_three_layers == pytest.approx(claim.reduction)
    assert table1().loc["CR", "alpha_exact"] == pytest.approx(0.25)


def test_theorem2_check_reports_within_for_large_n():
    df = theorem2_check(ns=(16,), n_iterations=50)
    assert bool(df["within_bounds"].iloc[0])


def test_fig2_table_has_costs_and_paper_numbers():
    model = TimingModel(network=Network.from_message_time(0.05, 6500, 0.005))
    df = fig2_iteration_times(n_iterations=50, model=model)
    assert df["mean_iteration_time"].idxmin() == "CR"
    assert df["mean_iteration_time"].idxmax() == "UMW"
    assert df.loc["UMW", "cr_speedup_paper"] == PAPER_SPEEDUPS["fig2"]["UMW"]
    assert df.loc["CR", "busiest_node_messages"] == 3
    assert df.loc["GC", "load_points"] > df.loc["CR", "load_points"]


def test_one_network_for_every_figure():
    """Message times follow from p on one link; Fig. 13's p gives the paper's t_c = 0.05 s."""
    assert figure_model("fig13").t_c == pytest.approx(0.05)
    m8, m10 = figure_model("fig8"), figure_model("fig10")
    assert m8.network == m10.network == PAPER_NETWORK
    assert m8.t_c == pytest.approx(PAPER_NETWORK.latency + 8 * 5001 / PAPER_NETWORK.bandwidth)
    assert m10.message_time(1 / 84) == pytest.approx(
        PAPER_NETWORK.latency + 8 * np.ceil(6500 / 84) / PAPER_NETWORK.bandwidth
    )
    with pytest.raises(ValueError, match="figure must be one of"):
        figure_model("fig99")


def test_time_breakdown_parts_add_up_and_follow_the_regime():
    calm = time_breakdown(n_iterations=60, rng=1)
    parts = calm[["computation", "communication", "straggling"]].sum(axis=1)
    np.testing.assert_allclose(parts, calm["total"], rtol=1e-12)
    assert (calm["straggling"] >= -1e-12).all() and (calm["communication"] > 0).all()
    # UMW on the physical network: its master receives N messages, almost all of its time
    assert calm.loc["UMW", "communication_share"] > 0.9
    slow = time_breakdown(
        model=TimingModel(straggle_prob=0.02, straggle_delay=1.0), n_iterations=60, rng=1
    )
    assert slow.loc["RAR", "straggling_share"] > 0.8  # RAR waits for every straggler
    # CR waits only when two siblings straggle at once
    assert slow.loc["CR", "straggling"] < 0.1 * slow.loc["RAR", "straggling"]


def test_regime_map_flips_cr_vs_rar_with_latency_and_straggling():
    df = regime_map(
        bandwidths=(1.25e7, 1.25e9),
        latencies=(1e-5, 1e-2),
        straggle_delays=(0.0, 1.0),
        n_iterations=30,
        rng=0,
    )
    calm = df[df["straggle_delay"] == 0.0].set_index(["bandwidth", "latency"])["cr_over_rar"]
    assert calm[(1.25e9, 1e-5)] < 1 < calm[(1.25e9, 1e-2)]  # small latency: RAR; large: CR
    strag = df[df["straggle_delay"] == 1.0]["cr_over_rar"]
    assert (strag > 1).all()


def test_calibrated_straggle_delay_hits_its_target():
    D = calibrate_straggle_delay(4.3, "RAR", n_iterations=100, rng=0, tol=1e-4)
    model = TimingModel(straggle_prob=0.02, straggle_delay=D)
    df = fig2_iteration_times(n_iterations=100, rng=0, model=model)
    assert df.loc["RAR", "cr_speedup_ours"] == pytest.approx(4.3, rel=1e-2)
    with pytest.raises(ValueError, match="target must lie between"):
        calibrate_straggle_delay(1e6, "RAR", n_iterations=20)


@pytest.mark.parametrize("figure", ["fig8", "fig10"])
def test_gradient_descent_through_the_actual_codes_equals_gd(figure):
    """Every iteration's gradient decoded through the CR tree, the GC decoder, RAR and UMW:
    each scheme's own iterates stay within 1e-12 of centralised GD over the whole run."""
    run = coded_gradient_descent(figure, n_iterations=40, quick=True, rng=3)
    assert set(run["scheme"]) == {"UMW", "RAR", "GC", "CR"}
    assert run["iteration"].max() == 40
    assert run["distance_to_gd"].max() < 1e-12
    assert run["gradient_error"].max() < 1e-9


@pytest.mark.parametrize("figure", ["fig8", "fig10"])
def test_convergence_quick(figure):
    res = convergence(figure, quick=True, n_iterations=25, sgd_learning_rate=(10.0, 100.0))
    assert isinstance(res, SimpleNamespace)
    curves = res.curves
    # exact schemes share iterates: identical error columns
    errs = {k: g["error"].to_numpy() for k, g in curves.groupby("scheme")}
    for name in ("UMW", "GC", "RAR"):
        np.testing.assert_array_equal(errs[name], errs["CR"])
    # the actually decoded gradients on the real problem are exact
    assert res.verification["CR"] < 1e-9 and res.verification["GC"] < 1e-9
    assert set(res.speedups.index) == {"UMW", "GC", "RAR", "SGD"}
    # physical network: CR beats the master-worker schemes; RAR is close to CR (regime map)
    assert (res.speedups.loc[["UMW", "GC", "SGD"], "cr_speedup_to_target_ours"] > 1).all()


def test_configuration_summary_and_errors():
    out = configuration_summary(n=3, L=2, s=1, d=45, n_iterations=20)
    assert out["r_cr"] == pytest.approx(4 / 15)
    assert out["cr_points_per_node"] == "12..12"
    assert out["theorem2_lower"] < out["theorem2_upper"]
    assert configuration_summary(n=3, L=2, s=0, d=45, n_iterations=5)["theorem2_lower"] is None
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
    assert "<td>S (GC/SGD)</td>" in html and "<td>Theorem 2 upper</td>" in html
    html0 = render_summary(configuration_summary(n=3, L=2, s=0, d=45, n_iterations=5))
    assert "Theorem 2" not in html0


# -- seeds, intervals and the model's reach (issue 11) ------------------------------------


def test_fig2_summary_pairs_seeds_and_brackets_the_mean():
    out = fig2_summary(over_seeds(fig2_measure, spawn_seeds(3, 3), n_iterations=20))
    assert isinstance(out, SimpleNamespace)
    per_seed, summary = out.per_seed, out.summary
    assert set(per_seed.columns) >= {"seed", "scheme", "mean_iteration_time"}
    assert len(per_seed) == 3 * 5
    for name in summary.index:
        row = summary.loc[name]
        assert row["time_ci_low"] <= row["mean_iteration_time"] <= row["time_ci_high"]
        assert row["speedup_ci_low"] <= row["cr_speedup_ours"] <= row["speedup_ci_high"]
    assert summary.loc["CR", "cr_speedup_ours"] == pytest.approx(1.0)
    # each seed is its own fig2_iteration_times run
    seed0 = per_seed["seed"].iloc[0]
    single = fig2_iteration_times(n_iterations=20, rng=seed0)
    got = per_seed[per_seed["seed"] == seed0].set_index("scheme")["mean_iteration_time"]
    np.testing.assert_allclose(got[single.index], single["mean_iteration_time"])
    with pytest.raises(ValueError, match="seeds"):
        over_seeds(fig2_measure, [])


def test_model_speedup_range_reaches_the_communication_bound_limits():
    tidy = model_speedup_range(
        {"N84": (4, 3, 1, 7644, 6500)},
        bandwidths=(1e4, 1.25e7),
        latencies=(3e-4,),
        a_mus=(1.0,),
        straggle_delays=(0.0, 1.0),
        n_iterations=10,
        rng=0,
    )
    no_straggling = speedup_range_summary(tidy[tidy["straggle_delay"] == 0.0])
    assert set(tidy["scheme"]) == {"UMW", "GC", "SGD", "RAR"}
    summary = speedup_range_summary(tidy)
    # N / (L (n - s)) = 84 / 9 and (N - S) / (L (n - s)) = 63 / 9, approached on a slow link
    assert summary.loc[("N84", "UMW"), "communication_bound_limit"] == pytest.approx(84 / 9)
    assert summary.loc[("N84", "GC"), "communication_bound_limit"] == pytest.approx(7.0)
    assert no_straggling.loc[("N84", "UMW"), "max"] == pytest.approx(84 / 9, rel=2e-3)
    assert no_straggling.loc[("N84", "GC"), "max"] <= 7.0 + 1e-9
    # stragglers UMW waits for and CR does not push past the message-count limit
    assert summary.loc[("N84", "UMW"), "max"] > 84 / 9
    # one cell equals the plain simulation's ratio on the same draws
    model = TimingModel(
        network=Network(3e-4, 1.25e7), gradient_numbers=6500, straggle_prob=0.02, straggle_delay=1.0
    )
    fig2 = fig2_iteration_times(model=model, n_iterations=10, rng=0)
    cell = tidy[(tidy["bandwidth"] == 1.25e7) & (tidy["straggle_delay"] == 1.0)].set_index("scheme")
    assert cell.loc["RAR", "cr_speedup"] == pytest.approx(
        fig2.loc["RAR", "cr_speedup_ours"], rel=1e-12
    )


def test_convergence_over_seeds_tidy_tables_and_intervals():
    seeds = spawn_seeds(1, 2)
    res = convergence_over_seeds(
        "fig8", quick=True, n_iterations=8, seeds=seeds, sgd_learning_rate=(10.0, 100.0)
    )
    assert isinstance(res, SimpleNamespace)
    assert sorted(res.curves["seed"].unique()) == sorted(seeds)
    assert set(res.speedups["seed"]) == set(seeds)
    assert len(res.final) == 2 * 5 and len(res.verification) == 1  # one coded check
    assert set(res.final.columns) == {"seed", "scheme", "final_error"}
    assert res.verification[["CR", "GC"]].to_numpy().max() < 1e-9
    # time-to-target ratio = the per-seed speedup column
    sp = res.speedups
    np.testing.assert_allclose(
        sp["time_to_target"] / sp["cr_time_to_target"], sp["cr_speedup_to_target_ours"]
    )
    table = speedup_intervals(sp)
    assert list(table.index) == ["UMW", "GC", "RAR", "SGD"]
    assert (table["to_target_ci_low"] <= table["to_target_ours"]).all()
    assert (table["to_target_ours"] <= table["to_target_ci_high"]).all()
    assert res.data_shape == (271, 65) and res.n_iterations == 8


def test_theorem2_check_decomposes_the_gap_at_small_n():
    df = theorem2_check(ns=(8, 16), n_iterations=200, rng=1)
    assert list(df["position"]) == ["below (7)", "inside"]
    row = df.iloc[0]
    assert row["ci_low"] <= row["monte_carlo_mean"] <= row["ci_high"]
    # the two measured gaps add up to the miss
    gap = row["lower_bound"] - row["monte_carlo_mean"]
    parts = (row["computation_term"] - row["sibling_order_statistic"]) + (
        row["communication_term"] - row["monte_carlo_rest"]
    )
    assert parts == pytest.approx(gap)
    assert row["computation_term"] > row["sibling_order_statistic"]  # log(1/α) > H_n - H_s


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

    res = convergence_over_seeds(
        "fig8", quick=True, n_iterations=6, seeds=[1, 2], sgd_learning_rate=(10.0, 100.0)
    )
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
    summary = fig2_summary(over_seeds(fig2_measure, [1, 2], n_iterations=10)).summary
    fig = plot_iteration_times(summary)
    assert "[" in "".join(t.get_text() for t in fig.axes[0].texts)  # intervals on the bars
    plt.close(fig)
    table = pd.DataFrame(
        {
            "figure": ["fig2", "fig8"],
            "scheme": ["GC", "GC"],
            "paper": [6.4, 5.3],
            "ours": [6.8, 6.8],
            "ci_low": [6.7, 6.7],
            "ci_high": [6.9, 6.9],
        }
    )
    ranges = pd.DataFrame(
        {"figure": ["fig2", "fig8"], "scheme": ["GC", "GC"], "min": [2.0, 2.0], "max": [7.0, 7.0]}
    )
    fig = plot_speedups_vs_paper(table, ranges)
    assert len(fig.axes) == 1
    plt.close(fig)
