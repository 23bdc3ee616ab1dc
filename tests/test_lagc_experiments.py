"""LAGC experiments, plots and widget report (codedlib.experiments/plots/widgets.lagc)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from codedlib.experiments import lagc as ex
from codedlib.plots import lagc as pl
from codedlib.replicate import over_seeds as over_seeds_
from codedlib.widgets.lagc import lagc_report


@pytest.fixture(scope="module")
def small():
    problem = ex.heterogeneous_regression(6, 15, 5, heterogeneity=20.0, condition=10.0, rng=1)
    runs = ex.convergence_runs(
        problem, 6, 2, delay=ex.make_delay("pareto", shape=2.5), replicas=20, rng=0, rel_tol=1e-9
    )
    return problem, runs


def test_heterogeneous_regression_has_requested_spread():
    problem = ex.heterogeneous_regression(8, 200, 6, heterogeneity=50.0, condition=20.0, rng=0)
    c = ex.problem_constants(problem, 8)
    spread = c.partition_smoothness.max() / c.partition_smoothness.min()
    assert 25 < spread < 100  # sampling noise around the requested factor 50
    assert 10 < c.kappa < 40
    assert c.kappa == pytest.approx(c.total_smoothness / c.strong_convexity)
    with pytest.raises(ValueError, match="heterogeneity must satisfy"):
        ex.heterogeneous_regression(heterogeneity=0.5)


def test_default_configs():
    labels = [c[0] for c in ex.default_configs(12, 3)]
    assert labels == ["GD", "GC", "LAG", "G-GD", "G-LAG", "LAGC (G=3)"]
    with pytest.raises(ValueError, match="redundancy must divide"):
        ex.default_configs(12, 5)


def test_runs_share_delays_and_converge(small):
    _problem, runs = small
    assert all(run.gap[-1] <= 1e-9 * run.gap[0] for run in runs.values())
    # same worker draws: G-GD's slowest group minimum never exceeds GD's overall maximum, so
    # with load r = 2 its iteration time is at most twice GD's
    gd, ggd = runs["GD"], runs["G-GD"]
    k = min(gd.n_iterations, ggd.n_iterations)
    assert np.all(ggd.iteration_times[:, :k] <= 2 * gd.iteration_times[:, :k] + 1e-12)


def test_tables(small):
    problem, runs = small
    summary = ex.complexity_summary(runs)
    assert list(summary["scheme"]) == list(runs)
    c, delay = ex.problem_constants(problem, 6), ex.make_delay("pareto", shape=2.5)
    checks = pd.DataFrame([ex.run_checks(r, problem, c, delay, 0.05, 10) for r in runs.values()])
    assert (checks["z"].abs() < 4.5).all() and checks["eq25_respected"].all()
    lazy = summary.join(checks)[[r.scheme in ("lag", "g-lag", "lagc") for r in runs.values()]]
    assert len(lazy) == 3 and (lazy["active_fraction"] <= lazy["selection_bound"] + 0.01).all()


def test_complexity_curves_and_plots(small):
    problem, runs = small
    delays = {"exponential": ex.make_delay("exponential")}
    curves = ex.complexity_curves(problem, 6, delays=delays, vary="r")
    gd = curves[curves["scheme"] == "GD"]
    assert np.allclose(gd["communication"], 2 * 6 * gd["iterations"])
    curves_g = ex.complexity_curves(problem, 6, delays=delays, vary="G", redundancy=2)
    assert set(curves_g["n_groups"]) == {1, 2, 3, 6}
    assert set(curves["redundancy"]) == {1, 2, 3, 6}
    layouts = ex.storage_layouts()
    assert list(layouts) == ["gc", "lag", "g_lag", "lagc"]
    assert (layouts["gc"].n_workers, layouts["gc"].redundancy) == (3, 2)
    assert layouts["lagc"].n_groups == 2
    for fig in (
        pl.plot_storage_layouts(layouts),
        pl.plot_complexity_curves(curves, "r"),
        pl.plot_convergence(ex.convergence_metrics(runs)),
    ):
        assert isinstance(fig, matplotlib.figure.Figure)
    # display labels are set at plotting time
    fig = pl.plot_storage_layouts(layouts)
    assert fig.axes[0].get_title().startswith("Fig. 3: GC (N=3, r=2)\n")
    assert fig.axes[3].get_title().startswith("Fig. 5(b): LAGC (N=6, r=2, G=2)\n")
    fig = pl.plot_complexity_curves(curves_g, "G")
    assert fig.axes[0].get_xlabel() == "G (worker groups)"
    with pytest.raises(ValueError, match="vary must be"):
        ex.complexity_curves(problem, 6, delays=delays, vary="x")


def test_widget_report_and_errors():
    report = lagc_report(
        n_workers=6, redundancy=2, n_groups=2, samples_per_partition=10, replicas=2
    )
    assert isinstance(report["theory"], pd.DataFrame) and len(report["measured"]) == 6
    assert "upper_bound" in report["theory"].columns
    for bad, match in [
        ({"n_groups": 4}, "n_groups must divide"),
        ({"redundancy": 7}, "redundancy must satisfy"),
        ({"xi": -0.1}, "xi must satisfy"),
        ({"history": 0}, "history must"),
        ({"delay_kind": "gamma"}, "kind must be"),
    ]:
        args = {"n_workers": 6, "redundancy": 2, "n_groups": 2, **bad}
        with pytest.raises(ValueError, match=match):
            lagc_report(**args)


@pytest.mark.parametrize("rule", ["gd", "theory"])
def test_table2_against_runs(small, rule):
    problem, _ = small
    delay = ex.make_delay("exponential")
    runs = ex.convergence_runs(
        problem, 6, 2, delay=delay, stepsize_rule=rule, replicas=30, rng=2, rel_tol=1e-9
    )
    c = ex.problem_constants(problem, 6)
    tab = ex.complexity_summary(runs).join(
        pd.DataFrame([ex.run_checks(r, problem, c, delay, 0.05, 10) for r in runs.values()])
    )
    tab["bound"] = [r.scheme in ("lag", "g-lag", "lagc") for r in runs.values()]
    exact = tab[~tab["bound"]]
    np.testing.assert_array_equal(exact["communication"], exact["table2_communication"])
    np.testing.assert_array_equal(exact["computation"], exact["table2_computation"])
    assert ((exact["time"] - exact["table2_time"]).abs() < 4 * exact["time_stderr"]).all()
    lazy = tab[tab["bound"]]
    for col in ("time", "communication", "computation"):
        assert (
            lazy[col] <= lazy[f"table2_{col}"] + 4 * lazy["time_stderr"] * (col == "time")
        ).all()
    bounded = tab.dropna(subset=["iter_bound"])
    assert (bounded["iterations"] <= bounded["iter_bound"]).all()
    assert bounded["bound"].any() == (rule == "theory")


# -- Section VI over seeds (issue 11: claims with intervals over independent seeds) ---------
@pytest.fixture(scope="module")
def over_seeds():
    delays = {
        "exponential": ex.make_delay("exponential"),
        "pareto": ex.make_delay("pareto", shape=2.5),
    }
    runs = over_seeds_(
        ex.seed_runs,
        3,
        executor=1,
        pairs=ex.seed_pairs(3, 5),
        n_workers=6,
        redundancy=2,
        delays=delays,
        replicas=4,
        problem_kwargs={
            "samples_per_partition": 8,
            "dim": 4,
            "heterogeneity": 20.0,
            "condition": 10.0,
        },
        rel_tol=1e-6,
        eps_rel=1e-6,
    )
    return ex.stack_seed_runs(runs)


def test_seed_pairs_are_reproducible_and_independent():
    pairs = ex.seed_pairs(4, 7)
    assert pairs == ex.seed_pairs(4, 7)
    assert ex.seed_pairs(2, 7) == pairs[:2]  # pair i does not depend on n_seeds
    assert len({p for pair in pairs for p in pair}) == 8
    assert ex.seed_pairs(3, 8) != ex.seed_pairs(3, 7)
    with pytest.raises(ValueError, match="n_seeds must satisfy"):
        ex.seed_pairs(0, 1)


def test_seed_runs_tidy_and_paired(over_seeds):
    s, curves = over_seeds
    labels = [c[0] for c in ex.default_configs(6, 2)]
    assert len(s) == 3 * 2 * 2 * len(labels)
    assert set(s["seed"]) == {0, 1, 2} and set(s["rule"]) == {"gd", "theory"}
    # trajectories do not depend on the delays: iterations and loads equal across delay models
    for col in ("iterations", "communication", "computation"):
        exp = ex.seed_table(s, col, delay="exponential", rule="gd")
        par = ex.seed_table(s, col, delay="pareto", rule="gd")
        np.testing.assert_array_equal(exp.to_numpy(), par.to_numpy())
        assert list(exp.columns) == labels
    # a new problem per seed: GD's iteration counts are not all equal
    assert ex.seed_table(s, "iterations", delay="exponential", rule="gd")["GD"].nunique() > 1
    # fixed per-iteration loads of the non-lazy schemes (eq. 32, 33)
    gd = s[(s["scheme"] == "GD")]
    assert (gd["messages_per_iter"] == 12).all() and (gd["gradients_per_iter"] == 6).all()
    gc = s[(s["scheme"] == "GC")]
    assert (gc["messages_per_iter"] == 2 * 6 - 2 + 1).all()
    lazy = s[s["lazy"]]
    assert lazy["selection_bound"].between(0, 1).all() and lazy["eq25_respected"].all()
    assert s.loc[~s["lazy"], "selection_bound"].isna().all()
    assert (s["time_per_iter"] > 0).all() and (s["time_per_iter_formula"] > 0).all()
    assert np.allclose(s.loc[s["rule"] == "gd", "stepsize_times_smoothness"], 1.0)
    assert {"rel_gap", "seed", "delay", "rule"} <= set(curves.columns)
    assert np.allclose(curves.groupby(["seed", "delay", "rule", "scheme"])["rel_gap"].first(), 1.0)
    with pytest.raises(ValueError, match="rel_tol must satisfy"):
        ex.seed_runs(
            0,
            pairs=[(1, 2)],
            n_workers=6,
            redundancy=2,
            delays={"e": ex.make_delay()},
            rel_tol=1e-3,
            eps_rel=1e-6,
        )
    with pytest.raises(ValueError, match="rules must hold"):
        ex.seed_runs(
            0,
            pairs=[(1, 2)],
            n_workers=6,
            redundancy=2,
            delays={"e": ex.make_delay()},
            rules=("sgd",),
        )
    with pytest.raises(ValueError, match="no rows match"):
        ex.seed_table(s, "time", delay="gamma")


def test_convergence_bands_cover_every_seed(over_seeds):
    bands = ex.convergence_bands(over_seeds[1], n_grid=50)
    assert set(bands["quantity"]) == {"rel_gap", "communication", "computation"}
    assert (bands["n_seeds"] == 3).all()
    assert (bands["low"] <= bands["median"]).all() and (bands["median"] <= bands["high"]).all()
    start = bands[bands["time"] == 0.0]
    assert np.allclose(start.loc[start["quantity"] == "rel_gap", "median"], 1.0)
    # at the end of the clock every run has stopped at its target: final loads = summary totals
    s = over_seeds[0]
    end = bands[
        (bands["time"] == bands.groupby(["delay", "rule"])["time"].transform("max"))
        & (bands["quantity"] == "communication")
    ]
    for _, row in end.iterrows():
        totals = s[
            (s["delay"] == row["delay"])
            & (s["rule"] == row["rule"])
            & (s["scheme"] == row["scheme"])
        ]
        assert row["high"] >= totals["communication"].max() - 1e-9
    with pytest.raises(ValueError, match="n_grid must satisfy"):
        ex.convergence_bands(over_seeds[1], n_grid=1)


def test_table1_seeds_and_intervals(over_seeds):
    t1 = ex.table1_seeds(over_seeds[0])
    assert len(t1) == 3 * 2 * 3 * 3  # seeds x delays x techniques x metrics
    gc_comp = t1[(t1["technique"] == "coding (GC)") & (t1["metric"] == "computation")]
    assert np.allclose(gc_comp["ratio"], 2.0)  # r = 2 partitions per GC worker
    summary = ex.table1_intervals(t1)
    assert list(summary["metric"].drop_duplicates()) == ["time", "communication", "computation"]
    assert len(summary) == 2 * 3 + 3 + 3  # time per delay model, loads once
    fixed = summary[
        (summary["technique"] == "grouping (G-GD)") & (summary["metric"] == "communication")
    ]
    assert fixed["low"].iloc[0] == fixed["high"].iloc[0] == pytest.approx((6 + 3) / 12)
    assert (summary["low"] <= summary["mean"]).all() and (summary["mean"] <= summary["high"]).all()
    with pytest.raises(ValueError, match="no rows with rule"):
        ex.table1_seeds(over_seeds[0], rule="sgd")


def test_seed_interval():
    assert ex.seed_interval([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    m, lo, hi = ex.seed_interval([1.0, 2.0, 3.0])
    assert m == 2.0 and lo < 2.0 < hi


def test_seed_plots(over_seeds):
    bands = ex.convergence_bands(over_seeds[1], n_grid=20)
    fig = pl.plot_convergence_bands(bands[bands["delay"] == "pareto"], title="title")
    assert len(fig.axes) == 6 and fig.get_suptitle() == "title"
    fig = pl.plot_table1_seeds(ex.table1_intervals(ex.table1_seeds(over_seeds[0])), title="t")
    assert isinstance(fig, matplotlib.figure.Figure)
    table = pd.DataFrame(
        {
            "scheme": ["GD", "GC"],
            "formula": [1.0, 2.0],
            "mean": [1.1, 1.9],
            "low": [1.0, 1.8],
            "high": [1.2, 2.0],
        }
    )
    both = pd.concat([table.assign(delay="exponential"), table.assign(delay="pareto")])
    fig = pl.plot_iteration_time_panels(both, panel_titles={"pareto": "P"}, title="t")
    assert [ax.get_title() for ax in fig.axes] == ["exponential", "P"]
    assert fig.get_suptitle() == "t"


# ------------------------------------------- issue 13 item 7: bound vs simulation grid
@pytest.fixture(scope="module")
def bound_grid():
    delays = {
        "exponential": ex.make_delay("exponential", 1.0),
        "pareto": ex.make_delay("pareto", scale=1.0, shape=2.0),
    }
    grid = ex.bound_grid(
        12,
        3,
        delays=delays,
        xis=(0.01, 0.05),
        histories=(1, 10),
        n_seeds=5,
        eps_rel=1e-4,
        rng=1,
        problem_kwargs=dict(samples_per_partition=10, dim=8, condition=30.0),
    )
    return grid, ex.bound_grid_summary(grid)


def test_bound_grid_is_tidy_and_seeded(bound_grid):
    grid, summary = bound_grid
    assert len(grid) == 5 * 2 * 4 * 2  # seeds x delays x (ξ, D) cells x rules
    assert grid.groupby(["delay", "xi", "history", "rule"]).size().eq(5).all()
    assert len(summary) == 2 * 4 * 2
    # the trajectory does not depend on the delay model, only the time does
    a, b = (grid[grid["delay"] == d].reset_index(drop=True) for d in ("exponential", "pareto"))
    assert (a["iterations"] == b["iterations"]).all() and not np.allclose(a["time"], b["time"])


def test_bound_holds_at_its_own_step_size(bound_grid):
    """With the eq. (20) step every simulated count is below its bound: iterations (20),
    time (31), and the active fraction below 1-ΔC (30) up to the one ceil of eq. (25)."""
    grid, _ = bound_grid
    th_rows = grid[grid["rule"] == "theory"]
    assert (th_rows["iterations"] <= th_rows["iter_bound"]).all()
    assert (th_rows["time"] <= th_rows["bound_time"]).all()
    assert (
        th_rows["active_fraction"]
        <= th_rows["selection_bound"] + 1.0 / th_rows["iterations"] + 1e-12
    ).all()
    assert (grid["ggd_iterations"] <= grid["ggd_iter_bound"]).all()


def test_eq20_factor_is_realised_by_the_simulation(bound_grid):
    """The reconstruction's exponent: at the eq. (20) step G-LAG needs 1/(1-sqrt(Dξ)) times
    G-GD's iterations (exponent 1), far from 1/(1-sqrt(Dξ))² (exponent 2) when sqrt(Dξ)=0.71."""
    grid, _ = bound_grid
    th_rows = grid[grid["rule"] == "theory"]
    np.testing.assert_allclose(
        th_rows["sim_iteration_factor"], th_rows["iteration_factor"], rtol=0.05
    )
    big = th_rows[th_rows["sqrt_d_xi"] > 0.7]
    assert (big["sim_iteration_factor"] < 0.5 * big["iteration_factor"] ** 2).all()
    # with step 1/L lazy selection costs (almost) no iterations
    gd_rows = grid[grid["rule"] == "gd"]
    assert (gd_rows["sim_iteration_factor"] < 1.02).all()


def test_grid_direction_bound_vs_simulation(bound_grid):
    """The verdict: the bound says G-GD in every cell; so does the simulation at the bound's
    step size; with step 1/L the simulation says G-LAG where the selection skips groups."""
    _, s = bound_grid
    assert (s["bound_winner"] == "G-GD").all() and (s["bound_ratio"] > 1).all()
    assert (s.loc[s["rule"] == "theory", "sim_winner"] == "G-GD").all()
    # the bound's ratio tracks the simulated one and exceeds it where eq. (30) is loose
    theory = s[s["rule"] == "theory"]
    assert (theory["looseness"] > 0.95).all()
    assert (theory.loc[theory["sqrt_d_xi"] > 0.7, "looseness"] > 1.1).all()
    skipping = s[(s["rule"] == "gd") & (s["sqrt_d_xi"] > 0.2)]
    assert len(skipping) and (skipping["sim_winner"] == "G-LAG").all()
    assert (skipping["sim_high"] < 1).all()


def test_bound_best_case_needs_a_large_smoothness_spread():
    delays = {"exponential": ex.make_delay("exponential", 1.0)}
    best = ex.bound_best_case((1.0, 30.0, 1e6), delays=delays, histories=(1, 3, 10), n_xi=30)
    by_spread = best.set_index("spread")["best_ratio"]
    assert by_spread[1.0] > 1 and by_spread[30.0] > 1  # no (ξ, D) lets the bound favour G-LAG
    assert by_spread[1e6] < 0.85  # it can, for extreme heterogeneity


def test_bound_grid_plot(bound_grid):
    _, summary = bound_grid
    best = pd.DataFrame(
        {"delay": ["exponential"] * 2, "spread": [1.0, 1e3], "best_ratio": [1.01, 0.9]}
    )
    fig = pl.plot_bound_grid(summary, best, spread=15.0, title="grid")
    assert len(fig.axes) == 3 and fig.get_suptitle() == "grid"
    assert all(ax.get_ylabel() for ax in fig.axes)
    assert "ratio" in fig.axes[0].get_ylabel()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(rules=("fast",)), r"rules must hold 'gd' or 'theory', got 'fast'"),
        (dict(xis=(0.5,), histories=(2,)), r"at least one cell with D\*xi < 1"),
        (dict(n_seeds=0), r"n_seeds must satisfy 1 <= n_seeds, got n_seeds=0"),
        (dict(eps_rel=2.0), r"eps_rel must satisfy 0(\.0)? < eps_rel < 1(\.0)?, got eps_rel=2"),
        (dict(delays={}), r"delays must map at least one name"),
        (dict(xis=(-0.1,)), r"xis must satisfy 0(\.0)? < xis, got xis=-0.1"),
    ],
)
def test_bound_grid_errors(kwargs, match):
    args = dict(delays={"exponential": ex.make_delay("exponential", 1.0)}, n_seeds=1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ex.bound_grid(12, 3, **args)


def test_the_widget_shows_compare_schemes():
    """The explorer only wires controls to the experiment and the plot (issue 16, item 2)."""
    kwargs = dict(n_workers=6, redundancy=2, n_groups=2, samples_per_partition=10, replicas=2)
    out = ex.compare_schemes(**kwargs)
    report = lagc_report(**kwargs)
    assert set(out) == {"theory", "measured", "metrics"}
    pd.testing.assert_frame_equal(out["theory"], report["theory"])
    pd.testing.assert_frame_equal(out["measured"], report["measured"])
    theory = out["theory"]
    assert "note" not in theory or theory["note"].isna().all()  # every layout valid
    assert all(c == c.lower() and " " not in c for c in theory.columns)


def test_the_widget_takes_compare_schemes_arguments_and_defaults(monkeypatch):
    """lagc_report repeats no signature: whatever compare_schemes takes and defaults to is what
    it passes on (the defaults live in compare_schemes only); the title reads the bound values."""
    import inspect

    import codedlib.widgets.lagc as widget

    calls, titles = [], []
    real = ex.compare_schemes

    def fake(*args, **kwargs):
        calls.append(inspect.signature(real).bind(*args, **kwargs).arguments)
        return {"theory": pd.DataFrame(), "measured": pd.DataFrame(), "metrics": None}

    fake.__signature__ = inspect.signature(real)  # what the widget reads its arguments from
    monkeypatch.setattr(ex, "compare_schemes", fake)
    monkeypatch.setattr(widget, "plot_convergence", lambda metrics, *, title: titles.append(title))
    defaults = {n: p.default for n, p in inspect.signature(real).parameters.items()}
    report = lagc_report()
    assert calls[-1] == defaults and set(report) == {"theory", "measured", "figure"}
    assert titles[-1] == "N=12, r=3, G=3, ξ=0.05, D=10, exponential delays, stepsize rule 'gd'"
    lagc_report(6, 2, history=4, delay_kind="pareto", max_iter=7)
    assert calls[-1] == {
        **defaults,
        "n_workers": 6,
        "redundancy": 2,
        "history": 4,
        "delay_kind": "pareto",
        "max_iter": 7,
    }
    assert titles[-1] == "N=6, r=2, G=3, ξ=0.05, D=4, pareto delays, stepsize rule 'gd'"
    for bad in ({"n_worker": 6}, {"bogus": 1}):
        with pytest.raises(TypeError, match="unexpected keyword"):
            lagc_report(**bad)
    with pytest.raises(TypeError, match="multiple values"):
        lagc_report(6, n_workers=6)
    # the explorer's controls are compare_schemes arguments (they start at its defaults)
    assert set(widget.explore_lagc().controls) <= set(defaults)


# ------------------------------------------- issue 23: the Table I beta sweep
def test_gc_gd_beta_sweep_follows_eq22_and_is_seeded():
    sweep = ex.gc_gd_beta_sweep(12, 3, n_seeds=3, shapes=(1.5, 3.0), replicas=5000, rng=7)
    assert len(sweep) == 6 and set(sweep["seed"]) == {0, 1, 2}
    light = sweep[sweep["shape"] == 3.0]
    np.testing.assert_allclose(light["sim_ratio"], light["formula_ratio"], rtol=0.03)
    heavy = sweep[sweep["shape"] == 1.5]
    assert (heavy["sim_ratio"] < 1).all() and (light["sim_ratio"] > 1).all()
    again = ex.gc_gd_beta_sweep(12, 3, n_seeds=3, shapes=(1.5, 3.0), replicas=5000, rng=7)
    pd.testing.assert_frame_equal(sweep, again)
    with pytest.raises(ValueError, match="n_seeds"):
        ex.gc_gd_beta_sweep(12, 3, n_seeds=1)
