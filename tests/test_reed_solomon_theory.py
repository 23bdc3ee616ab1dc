"""Section 5 of the Reed–Solomon GC paper: Pareto delays, T_f, α*, f(α), eq. (17) optimum."""

import itertools

import numpy as np
import pytest

from codedlib.latency.models import pareto
from codedlib.latency.order_stats import (
    expected_order_statistic_pareto,
    pareto_order_statistic_limit,
)
from codedlib.theory.reed_solomon import (
    decoding_time,
    expected_iteration_time,
    iteration_time_offline,
    iteration_time_online,
    iteration_time_table,
    optimal_alpha,
    optimal_alpha_numeric,
    optimal_workers,
    workers_needed,
)

T0, XI, CGN = 0.001, 1.1, 0.035  # Fig. 3


def test_alpha_star_of_fig3():
    assert round(optimal_alpha(T0, XI, CGN), 4) == 0.1477
    assert optimal_alpha_numeric(T0, XI, CGN) == pytest.approx(optimal_alpha(T0, XI, CGN), rel=1e-6)


def test_alpha_star_is_stationary_point_of_eq21():
    a = optimal_alpha(T0, XI, CGN)
    h = 1e-6
    slope = (
        iteration_time_offline(a + h, T0, XI, CGN) - iteration_time_offline(a - h, T0, XI, CGN)
    ) / (2 * h)
    assert abs(slope) < 1e-6
    grid = np.linspace(0.01, 1, 2000)
    assert iteration_time_offline(a, T0, XI, CGN) <= iteration_time_offline(grid, T0, XI, CGN).min()


def test_decoding_cost_moves_optimum_towards_more_load():
    """eq. (20): the c_m (1-α)² n² term rewards larger α (fewer workers to decode)."""
    a0 = optimal_alpha_numeric(T0, XI, CGN, c_m=0.0, n=80)
    a1 = optimal_alpha_numeric(T0, XI, CGN, c_m=1e-6, n=80)
    assert a1 > a0
    grid = np.linspace(1e-3, 1, 20000)
    vals = iteration_time_online(grid, T0, XI, CGN, 1e-6, 80)
    assert iteration_time_online(a1, T0, XI, CGN, 1e-6, 80) <= vals.min() + 1e-12


@pytest.mark.parametrize("n, f", [(10, 3), (20, 15), (80, 68), (80, 80)])
def test_pareto_order_statistic_matches_monte_carlo(n, f):
    rng = np.random.default_rng(12)
    reps = 100_000
    samples = np.partition(pareto(T0, XI).rvs(size=(reps, n), random_state=rng), f - 1, axis=1)[
        :, f - 1
    ]
    exact = expected_order_statistic_pareto(f, n, T0, XI)
    if f == n:  # xi (n - f + 1) = 1.1: finite mean, infinite variance; use a median check
        # the sample mean of a heavy tail converges slowly; compare the exact CDF instead
        cdf_at_exact = np.mean(samples <= exact)
        assert 0.5 < cdf_at_exact < 0.95
        return
    stderr = samples.std() / np.sqrt(reps)
    assert abs(samples.mean() - exact) < 5 * stderr


def test_limit_of_eq19_approached_as_n_grows():
    alpha = 0.2
    limit = pareto_order_statistic_limit(T0, XI, alpha)
    assert limit == pytest.approx(T0 * alpha ** (-1 / XI))
    gaps = []
    for n in (10, 100, 1000, 10_000, 100_000):
        f = round((1 - alpha) * n)
        gaps.append(abs(expected_order_statistic_pareto(f, n, T0, XI) - limit) / limit)
    assert all(b < a for a, b in itertools.pairwise(gaps))
    assert gaps[-1] < 1e-3


def test_workers_needed_eq18():
    n = 80
    for s in range(79):
        assert workers_needed((s + 1) / n, n) == n - s
    assert workers_needed(0.1477, 80) == 70  # ceil(68.18) + 1
    with pytest.raises(ValueError, match="alpha must satisfy 0.0125 <= alpha <= 1"):
        workers_needed(0.01, 80)


def test_eq17_optimum_offline_and_with_decoding():
    # offline decoding: exact order statistic at n = 80 gives f = 68, the paper's f_RS
    assert optimal_workers(80, T0, XI, CGN, 0.0, "offline") == 68
    assert optimal_workers(80, T0, XI, CGN, 1e-9, "rs") == 68
    # the cubic decoding cost pushes f_MDS down once c_m is large
    f_mds = [optimal_workers(80, T0, XI, CGN, c, "mds") for c in (1e-9, 1e-8, 1e-7, 1e-6)]
    assert f_mds == sorted(f_mds, reverse=True) and f_mds[-1] < 20
    table = iteration_time_table(80, T0, XI, CGN, 1e-7)
    row = table.set_index("f").loc[33]
    assert row["T_mds"] == pytest.approx(expected_iteration_time(33, 80, T0, XI, CGN, 1e-7, "mds"))
    assert row["T_mds"] - row["T_rs"] == pytest.approx(1e-7 * (33**3 - 33 * 32))


def test_infinite_delay_is_explicit_not_nan():
    # xi (n - f + 1) <= 1 at f = n when xi <= 1: the mean is infinite
    table = iteration_time_table(10, T0, 0.9, CGN)
    assert np.isinf(table["T_rs"].iloc[-1])
    assert not table.isna().any().any()
    assert optimal_workers(10, T0, 0.9, CGN) < 10
    with pytest.raises(ValueError, match=r"xi must satisfy xi > 1/\(n-k\+1\)"):
        expected_order_statistic_pareto(10, 10, T0, 0.9)
    with pytest.raises(ValueError, match=r"xi must satisfy xi > 1/\(n-k\+1\)"):
        expected_iteration_time(10, 10, T0, 0.5, CGN)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: optimal_alpha(0.1, 1.1, 0.035), r"t0/\(cg_N\*xi\) must be < 1"),
        (lambda: optimal_alpha(0.0, 1.1, 0.035), "t0 must satisfy 0.0 < t0"),
        (lambda: iteration_time_offline(0.0, T0, XI, CGN), "alpha must satisfy 0 < alpha <= 1"),
        (lambda: iteration_time_offline([0.5, 1.5], T0, XI, CGN), "alpha=1.5"),
        (lambda: iteration_time_online(0.5, T0, XI, CGN, -1, 80), "c_m must satisfy 0.0 <= c_m"),
        (lambda: optimal_alpha_numeric(T0, XI, CGN, c_m=1e-6), "n must be given"),
        (lambda: decoding_time(10, 1e-9, "fft"), "decoder must be one of"),
        (lambda: expected_iteration_time(81, 80, T0, XI, CGN), "f must satisfy 1 <= f <= 80"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_degenerate_alpha_one_numeric():
    """When t0/(c_g N ξ) >= 1 eq. (21) decreases on (0, 1]: the numeric optimum is α = 1."""
    assert optimal_alpha_numeric(0.1, 1.1, 0.035) == 1.0
