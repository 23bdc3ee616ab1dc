"""LAGC theory (codedlib.theory.lagc): layouts, order statistics eq. 21/22/28, selection
bounds eq. 25/26, loads and complexities (Table II)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codedlib.codes.cyclic import cyclic_repetition_code
from codedlib.latency.order_stats import order_statistic_monte_carlo
from codedlib.theory import lagc as th


# ----------------------------------------------------------------------------- layouts
def test_fig3_gc_storage_n3_r2():
    """Fig. 3: worker 1 stores D1, D2; worker 2 stores D2, D3; worker 3 stores D3, D1."""
    layout = th.lagc_layout(3, 2, 1)
    assert [sorted(layout.stored_partitions(w).tolist()) for w in range(3)] == [
        [0, 1],
        [1, 2],
        [0, 2],
    ]
    assert layout.wait_for == 2 and layout.coded


@pytest.mark.parametrize("n, r, g", [(6, 2, 2), (12, 3, 2), (12, 5, 3), (8, 3, 1)])
def test_layout_matches_cyclic_code_support(n, r, g):
    layout = th.lagc_layout(n, r, g)
    n_g = layout.workers_per_group
    code = cyclic_repetition_code(n_g, layout.stored_per_worker - 1)
    for w in range(n):
        group, local = divmod(w, n_g)
        assert sorted(layout.stored_partitions(w)) == sorted(group * n_g + code.support(local))


def test_fig5_examples_n6_r2():
    """Fig. 5: N=6, r=2. G=3 is G-LAG (each worker stores its group's data, wait for 1);
    G=2 splits each group's data into 3 batches stored twice (GC inside, wait for 2)."""
    glag = th.lagc_layout(6, 2, 3)
    assert not glag.coded and glag.wait_for == 1 and glag.stored_per_worker == 2
    assert glag.stored_partitions(0).tolist() == [0, 1]
    lagc = th.lagc_layout(6, 2, 2)
    assert lagc.coded and lagc.wait_for == 2 and lagc.workers_per_group == 3
    assert lagc.storage_matrix().sum(axis=0).tolist() == [2] * 6  # each batch stored twice


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_workers": 12, "redundancy": 3, "n_groups": 5}, "n_groups must divide"),
        ({"n_workers": 4, "redundancy": 5, "n_groups": 2}, "redundancy must satisfy"),
        ({"n_workers": 4, "redundancy": 0, "n_groups": 2}, "redundancy must satisfy"),
        ({"n_workers": 4, "redundancy": 2, "n_groups": 0}, "n_groups must satisfy"),
    ],
)
def test_layout_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        th.lagc_layout(**kwargs)


def test_g_lag_requires_no_coding():
    with pytest.raises(ValueError, match="N/G <= r"):
        th.scheme_layout("g-lag", 12, 3, n_groups=2)
    assert th.scheme_layout("g-lag", 12, 3).n_groups == 4
    with pytest.raises(ValueError, match="scheme must be one of"):
        th.scheme_layout("sgd", 4)


# ------------------------------------------------------------------ order statistics
def test_eq21_exponential_against_monte_carlo():
    delay = th.exponential_delay(2.0)
    for k, n, load in [(4, 4, 1), (3, 6, 2), (1, 5, 3)]:
        closed = th.expected_order_statistic(delay, k, n, load)
        assert closed == pytest.approx(load * 2.0 * sum(1 / j for j in range(n - k + 1, n + 1)))
        mc = order_statistic_monte_carlo(delay, k, n, replicas=40_000, rng=k + n)
        assert abs(closed - load * mc.mean) < 4 * load * mc.stderr


def test_eq22_pareto_against_numeric_and_monte_carlo():
    delay = th.pareto_delay(1.0, 2.5)
    for k, n in [(5, 5), (3, 6), (1, 4)]:
        closed = th.expected_order_statistic(delay, k, n)
        gamma = math.gamma
        beta = 2.5
        formula = (
            gamma(n + 1)
            * gamma(n - k + 1 - 1 / beta)
            / (gamma(n - k + 1) * gamma(n + 1 - 1 / beta))
        )
        assert closed == pytest.approx(formula)
        mc = order_statistic_monte_carlo(delay, k, n, replicas=60_000, rng=k)
        assert abs(closed - mc.mean) < 4 * mc.stderr
    with pytest.raises(ValueError):
        th.expected_order_statistic(th.pareto_delay(1.0, 0.9), 4, 4)


@pytest.mark.parametrize("delay", [th.exponential_delay(1.0), th.pareto_delay(1.0, 3.0)])
def test_eq28_group_times_against_monte_carlo(delay):
    """E[max over selected groups of the (N/G-r+1)-th fastest in the group] (eq. 28)."""
    rng = np.random.default_rng(3)
    for n_workers, r, g, m in [(12, 3, 4, 4), (12, 3, 2, 2), (12, 2, 3, 2)]:
        layout = th.lagc_layout(n_workers, r, g)
        value = th.expected_iteration_time("lagc", n_workers, r, g, delay, n_selected=m)
        X = layout.stored_per_worker * delay.rvs(
            size=(50_000, g, layout.workers_per_group), random_state=rng
        )
        group = np.sort(X, axis=2)[:, :, layout.wait_for - 1]
        sample = group[:, :m].max(axis=1)
        assert abs(value - sample.mean()) < 4 * sample.std() / math.sqrt(sample.size)


def test_group_completion_time_distribution():
    delay = th.exponential_delay(1.0)
    group = th.group_completion_time(delay, 3, 1, load=2.0)  # min of 3 Exp(mean 2)
    t = np.array([0.3, 1.0, 2.5])
    np.testing.assert_allclose(group.cdf(t), 1 - np.exp(-t * 3 / 2))
    assert group.mean() == pytest.approx(2 / 3)
    assert group.ppf(0.5) == pytest.approx(math.log(2) * 2 / 3, rel=1e-8)


def test_iteration_time_reduces_to_closed_forms():
    e = th.exponential_delay(1.0)
    H = lambda n: sum(1 / j for j in range(1, n + 1))
    assert th.expected_iteration_time("gd", 6, delay=e) == pytest.approx(H(6))
    assert th.expected_iteration_time("gc", 6, 2, delay=e) == pytest.approx(2 * (H(6) - H(1)))
    assert th.expected_iteration_time("lag", 6, delay=e, n_selected=3) == pytest.approx(H(3))
    # G-GD with groups of 2 storing everything: min of 2 Exp(mean 2) = Exp(mean 1)
    assert th.expected_iteration_time("g-gd", 6, 2, delay=e) == pytest.approx(H(3), rel=1e-7)
    assert th.expected_iteration_time("lag", 6, delay=e, n_selected=0) == 0.0


# ------------------------------------------------------------------ LAG theory
def test_iteration_complexities():
    assert th.iteration_complexity_gd(10.0, math.e**3, 1.0) == pytest.approx(30.0)
    assert th.iteration_complexity_lag(10.0, math.e**3, 1.0, 0.04, 4) == pytest.approx(30 / 0.6)
    assert th.lag_stepsize(2.0, 0.0, 10) == 0.5


@pytest.mark.parametrize(
    "xi, history, match",
    [(-0.1, 5, "xi must satisfy"), (0.01, 0, "history must satisfy"), (0.2, 5, "xi must satisfy")],
)
def test_lag_parameter_errors(xi, history, match):
    with pytest.raises(ValueError, match=match):
        th.lag_stepsize(1.0, xi, history)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0.01, 10.0), min_size=1, max_size=12),
    st.floats(0.0, 0.09),
    st.integers(1, 10),
    st.floats(0.01, 2.0),
)
def test_eq26_is_mean_of_selection_rates(L, xi, history, alpha):
    """1 - ΔC (eq. 26) equals the mean over units of 1/(d_m+1), d_m from eq. (25)."""
    L = np.array(L)
    periods = th.selection_period(L, xi, history, alpha)
    bound = th.selection_fraction_bound(L, xi, history, alpha)
    assert bound == pytest.approx(np.mean(1.0 / (periods + 1)))
    assert 1.0 / (history + 1) - 1e-12 <= bound <= 1.0


def test_loads_hand_count_n3_r2():
    """N=3, r=2 (Fig. 3/4): per iteration GD 3+3 messages / 3 gradients, GC 3+2 / 6,
    LAG with one selected worker 1+1 / 1 (Fig. 4)."""
    assert th.loads_per_iteration("gd", 3) == {
        "downloads": 3,
        "uploads": 3,
        "communication": 6,
        "computation": 3,
    }
    assert th.loads_per_iteration("gc", 3, 2) == {
        "downloads": 3,
        "uploads": 2,
        "communication": 5,
        "computation": 6,
    }
    assert th.loads_per_iteration("lag", 3, n_selected=1)["communication"] == 2
    # Fig. 5(b): N=6, r=2, G=2, one selected group: 3 downloads, 2 uploads, 3*2 gradients
    assert th.loads_per_iteration("lagc", 6, 2, 2, n_selected=1) == {
        "downloads": 3,
        "uploads": 2,
        "communication": 5,
        "computation": 6,
    }


def test_complexities_table2_consistency():
    e = th.exponential_delay(1.0)
    common = {"delay": e, "kappa": 50.0, "initial_gap": 1.0, "eps": 1e-6}
    gd = th.complexities("gd", 6, **common)
    gc = th.complexities("gc", 6, 2, **common)
    assert gd["communication"] == pytest.approx(2 * 6 * gd["iterations"])  # eq. 32
    assert gc["communication"] == pytest.approx((2 * 6 - 2 + 1) * gd["iterations"])  # eq. 33
    L = np.array([1.0, 1.0, 1.0, 0.1, 0.1, 0.1])
    lag = th.complexities(
        "lag", 6, unit_smoothness=L, total_smoothness=3.3, xi=0.05, history=4, **common
    )
    assert lag["bound"] and lag["selected"] <= 6
    with pytest.raises(ValueError, match="unit_smoothness"):
        th.complexities("lag", 6, **common)


# ------------------------------------------- issue 13 item 7: G-LAG / G-GD time bound
def test_eq20_iteration_factor_closed_form():
    """Eq. (20) over eq. (19) is 1/(1 - sqrt(Dξ)): ξ = 0.05, D = 10 gives 2 + sqrt(2)."""
    ratio = th.iteration_complexity_lag(125.0, 1.0, 1e-8, 0.05, 10) / th.iteration_complexity_gd(
        125.0, 1.0, 1e-8
    )
    assert ratio == pytest.approx(2.0 + math.sqrt(2.0), rel=1e-12)


@pytest.mark.parametrize("xi, history", [(0.002, 1), (0.03, 2), (0.05, 10), (0.08, 5)])
@pytest.mark.parametrize("delay", [th.exponential_delay(1.0), th.pareto_delay(1.0, 2.0)])
def test_lazy_time_ratio_bound_is_table2_ratio(xi, history, delay):
    """The ratio is Table II's G-LAG time bound (31) over G-GD's time (29), factor by factor."""
    L_units = np.array([228.0, 483.0, 1499.0, 3493.0])
    L = 5517.0
    common = dict(
        delay=delay,
        kappa=124.6,
        initial_gap=3.0,
        eps=3e-8,
        total_smoothness=L,
        xi=xi,
        history=history,
    )
    lazy = th.complexities("g-lag", 12, 3, 4, unit_smoothness=L_units, **common)
    full = th.complexities("g-gd", 12, 3, 4, **common)
    out = th.lazy_time_ratio_bound(L_units, L, 12, 3, 4, delay=delay, xi=xi, history=history)
    assert out["ratio"] == pytest.approx(lazy["time"] / full["time"], rel=1e-9)
    assert out["selected"] == lazy["selected"]
    assert out["iteration_factor"] == pytest.approx(1.0 / (1.0 - math.sqrt(history * xi)))
    assert out["time_factor"] <= 1.0 + 1e-12  # fewer active groups never wait longer
    # on these constants (group spread ×15) the bound never favours G-LAG
    assert out["ratio"] > 1.0


def test_skip_smoothness_limit_is_eq25_threshold():
    """A unit just below the limit meets eq. (25) at that d, just above it does not."""
    xi, history, M, L = 0.03, 5, 4, 1000.0
    alpha = th.lag_stepsize(L, xi, history)
    for d in (1, 3, 5):
        limit = th.skip_smoothness_limit(xi, history, M, d) * L
        others = [10 * L] * (M - 1)  # M units in all: the threshold scales with 1/M
        below = th.selection_period(np.array([limit * (1 - 1e-9), *others]), xi, history, alpha)[0]
        above = th.selection_period(np.array([limit * (1 + 1e-9), *others]), xi, history, alpha)[0]
        assert below >= d > above


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            dict(xi=0.2, history=5, n_units=4),
            r"xi must satisfy 0 <= xi < 1/D = 0\.2 .*got xi=0\.2, D=5",
        ),
        (dict(xi=0.01, history=5, n_units=4, d=6), r"d must satisfy 1 <= d <= 5, got d=6"),
        (dict(xi=0.01, history=5, n_units=0), r"n_units must satisfy 1 <= n_units, got n_units=0"),
    ],
)
def test_skip_smoothness_limit_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        th.skip_smoothness_limit(**kwargs)


def test_lazy_time_ratio_bound_errors():
    delay = th.exponential_delay(1.0)
    with pytest.raises(ValueError, match="unit_smoothness"):
        th.lazy_time_ratio_bound([1.0, 2.0], 3.0, 12, 3, 4, delay=delay, xi=0.01, history=2)
    with pytest.raises(ValueError, match="n_groups must divide n_workers=12"):
        th.lazy_time_ratio_bound([1.0] * 5, 5.0, 12, 3, 5, delay=delay, xi=0.01, history=2)


# ------------------------------------------- issue 23: GC vs GD per iteration over the Pareto tail
def test_gc_gd_pareto_threshold_brackets_the_ratio():
    beta_star = th.gc_gd_pareto_threshold(12, 3)
    assert beta_star == pytest.approx(1.8431, abs=1e-3)
    assert th.gc_gd_pareto_ratio(12, 3, beta_star) == pytest.approx(1.0, abs=1e-9)
    assert th.gc_gd_pareto_ratio(12, 3, 1.5) < 1 < th.gc_gd_pareto_ratio(12, 3, 2.0)
    # eq. (22) at beta = 2: 3 E[T_(10:12)] / E[T_(12:12)] = 9/8
    assert th.gc_gd_pareto_ratio(12, 3, 2.0) == pytest.approx(1.125, rel=1e-9)
    with pytest.raises(ValueError, match="shape"):
        th.gc_gd_pareto_ratio(12, 3, 1.0)
    with pytest.raises(ValueError, match="redundancy"):
        th.gc_gd_pareto_threshold(12, 1)
