"""Opening notebook 00-stragglers: experiments, plots and widgets (issue 2, item 8)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from codedlib.experiments import stragglers as ex
from codedlib.latency.models import pareto, shifted_exponential
from codedlib.plots import stragglers as pl
from codedlib.replicate import over_seeds
from codedlib.widgets import stragglers as wd


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_known_values_table():
    table = ex.known_values_table(replicas=50_000, rng=0)
    np.testing.assert_allclose(table["closed_form"], table["reference"], atol=1e-6)
    np.testing.assert_allclose(table["numeric"], table["reference"], atol=1e-6)
    # the Pareto maximum with xi = 2 has infinite variance: its standard error is not reliable
    finite_var = ~((table["model"].str.startswith("Pareto")) & (table["k"] == 10))
    assert (table.loc[finite_var, "z"].abs() < 3).all()


def test_standard_models_share_the_mean():
    models = ex.standard_models(mean=2.0, cv=0.25)
    assert list(models) == ["shifted exponential", "Pareto", "gamma"]
    for dist in models.values():
        assert dist.mean() == pytest.approx(2.0)
    assert models["gamma"].std() == pytest.approx(0.5)
    with pytest.raises(ValueError, match="cv must satisfy"):
        ex.standard_models(cv=1.5)


def test_order_statistic_comparison_pareto_heavy_tail():
    table = ex.order_statistic_comparison(pareto(1.0, 0.6), 10, replicas=5_000, rng=1)
    # xi (n-k+1) > 1 iff k <= 9; finite variance iff xi (n-k+1) > 2 iff k <= 7
    assert np.isinf(table["closed_form"].iloc[-1]) and np.isinf(table["numeric"].iloc[-1])
    assert np.isfinite(table["numeric"].iloc[:-1]).all()
    assert table["mc_valid"].tolist() == [True] * 7 + [False] * 3
    np.testing.assert_allclose(
        table["numeric"].iloc[:-1], table["closed_form"].iloc[:-1], rtol=1e-8
    )
    assert (table.loc[table["mc_valid"], "z"].abs() < 4).all()


def test_order_statistic_comparison_gamma_has_no_closed_form():
    table = ex.order_statistic_comparison(ex.standard_models()["gamma"], 8, replicas=20_000, rng=2)
    assert table["closed_form"].isna().all()
    assert (table["z"].abs() < 4).all()  # z against the numeric value


def test_non_identical_comparison_agrees():
    table = ex.non_identical_comparison(ex.demo_cluster(15), replicas=30_000, rng=3)
    assert (table["z"].abs() < 4).all()
    assert np.all(np.diff(table["numeric"]) > 0)


def test_pareto_limit_convergence_shrinks():
    data = ex.pareto_limit_convergence(ns=[10, 100, 1000, 10_000, 100_000])
    for _, part in data.groupby("alpha"):
        assert abs(part["relative_error"].iloc[-1]) < 1e-4
        assert abs(part["relative_error"].iloc[-1]) < abs(part["relative_error"].iloc[0])


def test_cost_of_waiting_grows_with_k():
    models = ex.standard_models()
    cost = ex.cost_of_waiting(models, n=30, cluster=ex.demo_cluster(30))
    for _, part in cost.groupby("model"):
        assert np.all(np.diff(part["relative"]) > 0)
    with pytest.raises(ValueError, match="cluster must have n=20"):
        ex.cost_of_waiting(models, n=20, cluster=ex.demo_cluster(30))


def test_bursty_path_summary_matches_stationary():
    result = ex.bursty_path(n_workers=50, n_iterations=5000, p_enter=0.02, p_exit=0.1, rng=4)
    summary = result.summary.set_index("quantity")
    assert summary.loc["burst fraction", "sampled"] == pytest.approx(
        summary.loc["burst fraction", "stationary"], rel=0.1
    )
    assert summary.loc["mean latency", "sampled"] == pytest.approx(
        summary.loc["mean latency", "stationary"], rel=0.01
    )
    # the three workers shown are those with the most burst iterations
    shown = result.path.groupby("worker")["in_burst"].sum()
    assert len(shown) == 3 and shown.min() > 0


def test_plots_return_figures():
    models = ex.standard_models()
    figs = [
        pl.plot_delay_models(ex.delay_model_curves(models)),
        pl.plot_cluster_ecdf(ex.cluster_ecdf(ex.demo_cluster(6), n_samples=200, rng=0)),
        pl.plot_bursty_path(ex.bursty_path(n_iterations=50, rng=0).path, title="a title"),
        pl.plot_order_statistics(
            ex.order_statistic_comparison(shifted_exponential(0, 1), 6, replicas=500, rng=0)
        ),
        pl.plot_non_identical(ex.non_identical_comparison(ex.demo_cluster(5), replicas=500, rng=0)),
        pl.plot_pareto_limit(ex.pareto_limit_convergence(ns=[10, 100])),
        pl.plot_cost_of_waiting(ex.cost_of_waiting(models, n=10)),
    ]
    for fig in figs:
        assert isinstance(fig, matplotlib.figure.Figure)
        assert fig.axes
    assert figs[2].axes[0].get_title() == "a title"
    fig = pl.plot_pareto_limit(ex.pareto_limit_convergence(ns=[10, 100]), title="left")
    assert fig.axes[0].get_title() == "left"


@pytest.mark.parametrize(
    "call,match",
    [
        (
            lambda: wd.order_statistics_report("Pareto", 1.0, 2.0, 10, 11),
            r"k must satisfy 1 <= k <= 10",
        ),
        (lambda: wd.order_statistics_report("Pareto", 1.0, 2.0, 0, 1), r"n must satisfy 1 <= n"),
        (lambda: wd.order_statistics_report("Pareto", -1.0, 2.0, 10, 1), r"t0 must satisfy"),
        (lambda: wd.order_statistics_report("gamma", 1.0, 0.0, 10, 1), r"var must satisfy"),
        (lambda: wd.order_statistics_report("normal", 1.0, 1.0, 10, 1), r"model must be one of"),
        (lambda: wd.pareto_limit_report(1.0, 2.0, 0.0), r"alpha must satisfy"),
        (lambda: wd.bursts_report(0.0, 0.1, 1.1), r"p_enter must satisfy"),
    ],
)
def test_reports_raise_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_reports_text():
    _, text = wd.order_statistics_report("Pareto", 1.0, 2.0, 10, 8, replicas=2_000)
    assert "closed form  2.1283" in text
    _, text = wd.order_statistics_report("Pareto", 1.0, 0.5, 10, 10, replicas=2_000)
    assert "infinite" in text
    _, text = wd.pareto_limit_report(1.0, 2.0, 0.25, n_max=1000)
    assert "limit t0 alpha^(-1/xi) = 2" in text


def test_widgets_show_errors_instead_of_raising():
    ui = wd.explore_order_statistics(n=10, k=8, replicas=2_000)
    assert "closed form" in ui.status.value
    ui.controls["k"].value = 12  # k > n
    assert "ValueError" in ui.status.value and "k must satisfy" in ui.status.value
    assert ui.images[0].layout.display == "none"  # the stale figure is cleared
    ui.controls["k"].value = 3
    assert "ValueError" not in ui.status.value and ui.images[0].layout.display == ""
    calls = ui.calls
    ui.controls["model"].value = "gamma"  # model switch resets the sliders, one recompute
    assert "gamma" in ui.status.value and "ValueError" not in ui.status.value
    assert ui.calls == calls + 1
    assert (ui.last_values["first"], ui.last_values["second"]) == (1.0, 0.25)

    ui = wd.explore_pareto_limit()
    assert "limit" in ui.status.value
    ui = wd.explore_bursts()
    assert "burst fraction" in ui.status.value


# -- replicas over seeds (claims with intervals) ---------------------------------------------
def test_monte_carlo_means_over_seeds_is_tidy_and_independent():
    dist = shifted_exponential(0.0, 1.0)
    table = over_seeds(
        ex.monte_carlo_means,
        [3, 4, 5],
        executor=1,
        dist_or_cluster=dist,
        ks=[8, 10],
        n=10,
        replicas=2_000,
    )
    assert list(table.columns) == ["seed", "k", "mc_mean", "mc_stderr"]
    assert table["seed"].tolist() == [3, 3, 4, 4, 5, 5] and table["k"].tolist() == [8, 10] * 3
    # one seed reproduces a direct call; different seeds give different estimates
    from codedlib.latency.order_stats import order_statistic_monte_carlo

    direct = order_statistic_monte_carlo(dist, [8, 10], 10, replicas=2_000, rng=4)
    np.testing.assert_allclose(table.loc[table["seed"] == 4, "mc_mean"], direct.mean)
    assert table.loc[table["k"] == 10, "mc_mean"].nunique() == 3
    # the seeds' means scatter like their own standard errors around H_10
    z = (table.loc[table["k"] == 10, "mc_mean"] - 2.928968) / table.loc[
        table["k"] == 10, "mc_stderr"
    ]
    assert (z.abs() < 4).all()
    with pytest.raises(ValueError, match="seeds must be distinct"):
        over_seeds(
            ex.monte_carlo_means, [1, 1], executor=1, dist_or_cluster=dist, ks=5, n=10, replicas=100
        )
    with pytest.raises(ValueError, match="seeds must hold"):
        over_seeds(
            ex.monte_carlo_means, [], executor=1, dist_or_cluster=dist, ks=5, n=10, replicas=100
        )


def test_ecdf_ks_model_samples_look_uniform():
    cluster = ex.demo_cluster(6)
    table = over_seeds(
        ex.ecdf_ks, range(20), executor=1, cluster=cluster, workers=(0, -1), n_samples=500
    )
    assert len(table) == 40 and set(table["worker"]) == {1, 6}
    assert table["p_value"].between(0, 1).all()
    assert 0.3 < table["p_value"].mean() < 0.7  # uniform p-values under the model
    # the KS distance shrinks like 1/sqrt(n_samples)
    big = over_seeds(
        ex.ecdf_ks, range(10), executor=1, cluster=cluster, workers=(0,), n_samples=8_000
    )
    small = over_seeds(
        ex.ecdf_ks, range(10), executor=1, cluster=cluster, workers=(0,), n_samples=125
    )
    assert big["ks_statistic"].mean() < 0.5 * small["ks_statistic"].mean()  # expected ratio 1/8
    with pytest.raises(ValueError, match="worker must satisfy"):
        over_seeds(ex.ecdf_ks, [0], executor=1, cluster=cluster, workers=(6,))


def test_burst_stats_match_the_stationary_law():
    table = over_seeds(
        ex.burst_stats,
        range(8),
        executor=1,
        n_workers=20,
        n_iterations=2_000,
        p_enter=0.02,
        p_exit=0.1,
        factor=1.5,
    )
    assert table["seed"].tolist() == list(range(8))
    pi = 0.02 / 0.12
    assert table["burst_fraction"].mean() == pytest.approx(pi, rel=0.1)
    assert table["any_burst"].mean() == pytest.approx(1 - (1 - pi) ** 20, rel=0.05)
    assert table["burst_latency_ratio"].mean() == pytest.approx(1.5, rel=0.02)
    assert (table["workers_with_burst"] == 1.0).all()
    # no burst at all: the ratio is undefined, not an error
    calm = over_seeds(
        ex.burst_stats, [0], executor=1, n_workers=2, n_iterations=5, p_enter=1e-12, p_exit=1.0
    )
    assert np.isnan(calm["burst_latency_ratio"].iloc[0]) and calm["burst_iterations"].iloc[0] == 0


def test_burst_consistency_and_run_needed():
    table = ex.burst_consistency(
        n_workers=36, any_fraction=0.4, run_in_bursts=30, burst_lengths=(5, 20, 1000)
    )
    pi = 1 - 0.6 ** (1 / 36)
    np.testing.assert_allclose(table["burst_probability"], pi)
    np.testing.assert_allclose(table["any_burst"], 0.4)
    np.testing.assert_allclose(table["p_enter"] / (table["p_enter"] + table["p_exit"]), pi)
    assert table["n_iterations"].tolist() == [150, 600, 30_000]
    # the share hardly depends on the burst length and tends to the long-burst limit
    limit = 1 - (1 - pi) * np.exp(-30 * pi / (1 - pi))
    assert table["workers_with_burst"].iloc[-1] == pytest.approx(limit, rel=1e-3)
    assert table["workers_with_burst"].max() < 0.5
    # a MarkovBursts path calibrated by the table gives the same stationary value
    summary = ex.bursty_path(
        n_workers=36, n_iterations=600, p_enter=table["p_enter"].iloc[1], p_exit=0.05, rng=0
    ).summary.set_index("quantity")
    assert summary.loc["workers with >= 1 burst", "stationary"] == pytest.approx(
        table["workers_with_burst"].iloc[1]
    )
    # run_needed solves the long-burst limit for a share of one half
    r = ex.burst_run_needed(n_workers=36, any_fraction=0.4, share=0.5)
    assert 1 - (1 - pi) * np.exp(-r * pi / (1 - pi)) == pytest.approx(0.5)
    long_run = ex.burst_consistency(run_in_bursts=r, burst_lengths=(10_000,))
    assert long_run["workers_with_burst"].iloc[0] == pytest.approx(0.5, abs=1e-3)
    assert ex.burst_run_needed(n_workers=1, any_fraction=0.9, share=0.5) == 0.0
    with pytest.raises(ValueError, match="any_fraction must satisfy"):
        ex.burst_consistency(any_fraction=1.0)
    with pytest.raises(ValueError, match="burst_length must satisfy"):
        ex.burst_consistency(burst_lengths=(0.5,))
