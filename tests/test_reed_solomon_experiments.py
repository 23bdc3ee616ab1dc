"""Experiments, plots and widget helpers of notebook 02 (small sizes)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from codedlib.experiments import reed_solomon as ex
from codedlib.plots import reed_solomon as rsplots
from codedlib.widgets.reed_solomon import code_summary


def test_mask_example_and_any_f_rows():
    out = ex.run_masks()["example"]
    assert (out.s, out.f) == (5, 3)
    df = ex.any_f_rows_check(12, 6, 2, n_sets=30, rng=0)
    alg3 = df[df.kind == "f random (Algorithm 3)"]["residual"]
    blocked = df[df.kind == "f-1: holders of one chunk straggle"]["residual"]
    assert alg3.max() < 1e-10
    assert blocked.min() > 0.1  # the chunk nobody computed cannot be recovered (eq. 2 tight)
    plt.close(rsplots.plot_any_f_rows(df))
    plt.close(rsplots.plot_mask(out.M))
    plt.close(rsplots.plot_encoding_matrix(out.B))


def test_workers_choice_and_cm_window():
    table = ex.workers_choice(c_ms=(0.0, 1e-9, 1e-7))
    assert list(table.columns) == ["c_m", "f_rs", "f_mds", "t_rs", "t_mds"]
    assert table["f_rs"].tolist() == [68, 68, 68]
    assert table["f_mds"].iloc[0] == 68 and table["f_mds"].iloc[2] < 40
    shown = table.rename(columns=rsplots.label)  # what the notebook prints
    assert list(shown.columns) == ["c_m", "f_RS", "f_MDS", "T_RS", "T_MDS"]
    lo, hi = ex.c_m_range_for_f_mds(33)
    assert 1e-7 < lo <= hi < 1.4e-7
    fig = rsplots.plot_workers_choice(table, title="a title")
    assert fig.axes[0].get_title() == "a title"
    plt.close(fig)


def test_fig3_and_pareto_check():
    res = ex.fig3_tf_curve(c_m=1e-9)
    assert round(res.alpha_star, 4) == 0.1477 and res.f_star == 70
    assert list(res.curve.columns) == ["alpha", "t_offline", "t_online"]
    assert res.curve["t_offline"].min() >= res.t_star - 1e-12
    none = ex.fig3_tf_curve(t0=0.1)
    assert none.alpha_star is None and none.alpha_star_numeric == 1.0
    df = ex.pareto_order_statistic_check(ns=(20, 80), replicas=4000, rng=0)
    assert np.all(np.abs(df["z"]) < 4)
    plt.close(rsplots.plot_tf_curve(res))
    plt.close(rsplots.plot_tf_curve(none))
    plt.close(rsplots.plot_pareto_check(df))


def test_any_f_rows_exhaustive_checks_every_set():
    out = ex.any_f_rows_exhaustive(8, 4, 3)
    assert (out["s"], out["f"], out["n_sets"]) == (5, 3, 56)
    assert out["any_f_decode"] and out["max_residual_f"] < 1e-10
    assert out["tight"] and out["min_residual_tight"] > 0.1
    big = ex.any_f_rows_exhaustive(12, 6, 2)
    assert big["n_sets"] == 220 and big["any_f_decode"] and big["tight"]  # C(12, 9)
    with pytest.raises(ValueError, match="max_sets"):
        ex.any_f_rows_exhaustive(16, 8, 3, max_sets=100)


def test_decoding_cost_and_accuracy_tables():
    cost = ex.decoding_cost(fs=(10, 20), repeats=2, rng=0)
    # one row per (f, repeat); the two decoders of a repeat are timed back to back
    assert list(cost["n"]) == [12, 12, 24, 24] and list(cost["repeat"]) == [0, 1, 0, 1]
    assert np.all(cost["alg3_residual"] < 1e-9)
    assert np.all(cost[["alg3_seconds", "lstsq_seconds"]].to_numpy() > 0)
    summary = ex.decoding_cost_summary(cost)
    assert list(summary["f"]) == [10, 20] and list(summary["repeats"]) == [2, 2]
    assert np.isnan(summary["alg3_slope"].iloc[0]) and np.isfinite(summary["lstsq_slope"].iloc[1])
    # consistency only (never wall-clock values): the summary is the median of the repeats
    first = cost[cost["f"] == 10]
    assert summary["alg3_seconds"].iloc[0] == pytest.approx(first["alg3_seconds"].median())
    assert summary["speedup"].iloc[0] == pytest.approx(
        (first["lstsq_seconds"] / first["alg3_seconds"]).median()
    )
    table, limits = ex.accuracy_study(ns=(10, 60, 100), loads=(0.2,), n_random=3, rng=0)
    paper = limits[limits.root.str.contains("paper")].iloc[0]
    auto = limits[~limits.root.str.contains("paper")].iloc[0]
    assert paper["largest_accurate_n_worst"] == 60 and auto["largest_accurate_n_worst"] == 100
    plt.close(rsplots.plot_decoding_cost(summary))
    plt.close(rsplots.plot_accuracy(table))


@pytest.fixture(scope="module")
def small_fig2():
    return ex.fig2_experiment(n=10, f_rs=8, f_mds=4, time_budget=0.1, n_seeds=3, seed=1)


def test_fig2_experiment_small(small_fig2):
    df = small_fig2
    assert sorted(df["seed"].unique()) == [0, 1, 2]
    assert set(df.groupby("seed")["n_test"].first()) == {449}
    summary = ex.fig2_summary(df, times=[0.05, 0.1])
    assert list(summary.columns)[1:3] == ["test_error_at_0_05", "test_error_at_0_1"]
    shown = summary.rename(columns=rsplots.label).columns  # what the notebook prints
    assert list(shown)[1:3] == ["test_error@0.05s", "test_error@0.1s"]
    assert rsplots.label(ex.fig2_summary(df, times=[1e-5]).columns[1]) == "test_error@1e-05s"
    assert list(summary["scheme"])[:2] == ["Coded-RS", "Coded-MDS"]
    assert summary.loc[0, "max_gradient_error"] < 1e-10
    assert not summary.isna().any().any()
    paired = ex.fig2_bands(df, reference="Coded-RS")
    assert list(paired.columns) == ["scheme", "time", "mean", "ci_low", "ci_high"]
    assert len(paired) == 4 * 400 and np.all(paired["ci_low"] <= paired["mean"])
    bands = ex.fig2_bands(df)
    assert list(bands.columns) == ["scheme", "time", "mean", "low", "high"]
    assert np.all((bands["low"] <= bands["mean"]) & (bands["mean"] <= bands["high"]))
    fig = rsplots.plot_fig2(df, bands, title="stand-in title", paired=paired)
    assert len(fig.axes) == 2 and fig._suptitle.get_text() == "stand-in title"
    plt.close(fig)
    fig = rsplots.plot_fig2(df, ex.fig2_bands(df, "train_loss"), quantity="train_loss")
    assert len(fig.axes) == 1
    plt.close(fig)


def test_fig2_seeds_are_independent_and_reproducible(small_fig2):
    # two worker processes (over_seeds) give the serial frame
    again = ex.fig2_experiment(
        n=10, f_rs=8, f_mds=4, time_budget=0.1, n_seeds=2, seed=1, executor=2
    )
    first_two = small_fig2[small_fig2["seed"] < 2].reset_index(drop=True)
    pd.testing.assert_frame_equal(again, first_two)  # seed r does not depend on n_seeds
    rs = small_fig2[(small_fig2["scheme"] == "Coded-RS") & (small_fig2["iteration"] == 0)]
    assert rs["test_error"].nunique() > 1  # each seed has its own test split
    fixed = ex.fig2_experiment(
        n=10, f_rs=8, f_mds=4, time_budget=0.1, n_seeds=2, seed=1, resplit=False
    )
    start = fixed[(fixed["scheme"] == "Coded-RS") & (fixed["iteration"] == 0)]
    assert start["test_error"].nunique() == 1  # same split, only delays differ
    times = fixed[fixed["scheme"] == "Coded-RS"].groupby("seed")["time"].apply(list)
    assert times.iloc[0] != times.iloc[1]


def test_fig2_metrics_wide_and_curves(small_fig2):
    metrics = ex.fig2_seed_metrics(small_fig2, time_budget=0.1)
    assert len(metrics) == 3 * 5
    assert np.all(metrics["test_errors"] == np.round(metrics["test_error"] * metrics["n_test"]))
    last = small_fig2.groupby(["seed", "scheme"], sort=False).tail(1)
    np.testing.assert_allclose(metrics["test_error"], last["test_error"])
    np.testing.assert_array_equal(metrics["iterations"], last["iteration"])
    curves = ex.fig2_curves(small_fig2, time_budget=0.1, n_points=11)
    assert len(curves) == 3 * 5 * 11
    one = curves[(curves["seed"] == 0) & (curves["scheme"] == "Coded-RS")]
    run = small_fig2[(small_fig2["seed"] == 0) & (small_fig2["scheme"] == "Coded-RS")]
    assert one["value"].iloc[0] == run["test_error"].iloc[0]  # t = 0: the initial point
    assert one["value"].iloc[-1] == run["test_error"].iloc[-1]  # t = budget: the last iterate
    mean = metrics[(metrics["seed"] == 0) & (metrics["scheme"] == "Coded-RS")]["test_error_mean"]
    assert min(run["test_error"]) <= mean.iloc[0] <= max(run["test_error"])


def test_widget_summary_and_errors():
    text, info = code_summary(8, 4, 3, 0.001, 1.1, 0.035, 1e-9)
    assert "= 5 stragglers" in text and info["f"] == 3
    with pytest.raises(ValueError, match="w must satisfy 1 <= w <= k"):
        code_summary(8, 4, 5, 0.001, 1.1, 0.035, 1e-9)
    with pytest.raises(ValueError, match=r"floor\(n\*w/k\) must be >= 2"):
        code_summary(8, 8, 1, 0.001, 1.1, 0.035, 1e-9)


def test_widget_builds():
    pytest.importorskip("ipywidgets")
    from codedlib.widgets.reed_solomon import explore_reed_solomon

    box = explore_reed_solomon(n=8, k=4, w=5)  # invalid: shows the error text, no exception
    assert box is not None


def test_decoding_cost_times_only_accurate_decoders():
    from codedlib.experiments.reed_solomon import decoding_cost, decoding_cost_summary

    cost = decoding_cost(fs=(100,), repeats=1, rng=0)
    row = decoding_cost_summary(cost).iloc[0]
    assert bool(row["accurate"]) and row["alg3_residual"] < 1e-6 and row["lstsq_residual"] < 1e-6
    assert row["paper_root_residual"] > 1e-3  # the paper's root at f = 100: not timed
    assert row["root_power"] != 1


def test_sample_mean_of_heavy_tail_sits_below_eq17():
    from codedlib.experiments.reed_solomon import sample_mean_of_heavy_tail
    from codedlib.theory.reed_solomon import expected_iteration_time

    out = sample_mean_of_heavy_tail(80, 80, n_samples=22, replicas=4000, rng=1)
    expectation = out["expectation"]
    assert expectation == pytest.approx(expected_iteration_time(80, 80, 0.001, 1.1, 0.035))
    assert expectation == pytest.approx(0.565, abs=1e-3)
    assert out["median"] < 0.5 * expectation and out["p_reach_expectation"] < 0.2
    # a light tail (xi = 5): the sample mean concentrates around the expectation
    light = sample_mean_of_heavy_tail(80, 80, xi=5.0, n_samples=200, replicas=400, rng=1)
    assert light["median"] == pytest.approx(light["expectation"], rel=0.05)


def test_class_sorted_data_and_persistent_stragglers_make_ignoring_them_costly():
    from codedlib.experiments.reed_solomon import fig2_experiment, fig2_seed_metrics

    kw = dict(
        n_seeds=1, c_m=1.25e-7, time_budget=1.0, scheme_names=["Coded-RS", "Uncoded (f_RS=68)"]
    )
    calm = fig2_seed_metrics(fig2_experiment(**kw), 1.0).set_index("scheme")["test_error"]
    bad = fig2_seed_metrics(
        fig2_experiment(partition="class-sorted", slow_workers=12, slowdown=100.0, **kw), 1.0
    ).set_index("scheme")["test_error"]
    assert calm["Uncoded (f_RS=68)"] < calm["Coded-RS"] + 0.05  # i.i.d.: dropping costs little
    assert (
        bad["Uncoded (f_RS=68)"] > bad["Coded-RS"] + 0.05
    )  # whole classes dropped every iteration
    with pytest.raises(ValueError, match="partition must be"):
        fig2_experiment(partition="sorted", n_seeds=1)
    with pytest.raises(ValueError, match="scheme_names must be"):
        fig2_experiment(scheme_names=["nope"], n_seeds=1)


def test_regimes_run_in_one_sweep_as_per_regime_experiments():
    # every (regime, seed) pair in one over_seeds sweep gives each regime's own sweep
    regimes = {"plain": {}, "sorted, slow": {"partition": "class-sorted", "slow_workers": 2}}
    small = {"n": 10, "f_mds": 4, "seed": 1}
    both = ex.ignore_stragglers_regimes(
        regimes, f_rs=8, c_m=1e-7, time_budget=0.1, n_seeds=2, executor=2, **small
    )
    each = [
        ex.fig2_seed_metrics(
            ex.fig2_experiment(
                n_seeds=2,
                f_rs=8,
                c_m=1e-7,
                time_budget=0.1,
                scheme_names=["Coded-RS", "Uncoded (f_RS=8)"],
                **small,
                **options,
            ),
            0.1,
        ).assign(regime=label)
        for label, options in regimes.items()
    ]
    pd.testing.assert_frame_equal(both, pd.concat(each, ignore_index=True))


def test_regime_bars_feed_the_regimes_plot():
    schemes = ["Coded-RS"] * 2 + ["Uncoded (f_RS=68)"] * 2
    metrics = pd.DataFrame(
        {"seed": [0, 1] * 2, "scheme": schemes, "test_error": [0.1, 0.12, 0.2, 0.3], "regime": "r"}
    )
    bars = ex.regime_bars(metrics)
    assert list(bars["mean"]) == pytest.approx([0.11, 0.25])
    assert (bars["ci_low"] < bars["mean"]).all() and (bars["mean"] < bars["ci_high"]).all()
    fig = rsplots.plot_straggler_regimes(metrics, bars, title="regimes")
    assert fig.axes[0].get_title() == "regimes"
    plt.close(fig)
