"""Stream coded computing (paper 5): Section VI simulation against closed forms."""

import math

import numpy as np
import pytest

from codedlib.schemes import stream as ss
from codedlib.theory import stream as st


def test_fifo_matches_lindley_loop():
    rng = np.random.default_rng(3)
    arrivals = np.cumsum(rng.exponential(1.0, 500))
    service = rng.exponential(0.9, 500)
    start, finish = ss.fifo_delays(arrivals, service)
    free = 0.0
    for j in range(500):
        s = max(arrivals[j], free)
        free = s + service[j]
        assert start[j] == pytest.approx(s, rel=1e-12)
        assert finish[j] == pytest.approx(free, rel=1e-12)


def test_no_purging_iteration_mean_matches_theory():
    w = st.example2_workers()
    kappa = st.optimal_split(w, 50, 1.1, 1.0).kappa
    e1, e2 = st.iteration_time_moments(w, kappa)
    t = ss.sample_iteration_times(w, kappa, 50, 200_000, purging=False, rng=0)
    se = t.std() / math.sqrt(t.size)
    assert t.mean() == pytest.approx(e1, abs=5 * se)
    assert (t**2).mean() == pytest.approx(e2, abs=5 * (t**2).std() / math.sqrt(t.size))


def test_purging_single_worker_is_kth_result():
    # one worker, 10 tasks, K = 6: the 6th result arrives at c + Gamma(6, m)
    w = st.StreamWorkers.exponential([4.0], [0.2])
    t = ss.sample_iteration_times(w, [10], 6, 200_000, purging=True, rng=1)
    assert t.mean() == pytest.approx(0.2 + 6 * 0.25, abs=5 * t.std() / math.sqrt(t.size))


def test_purging_with_omega_one_equals_no_purging():
    w = st.example2_workers()
    kappa = st.optimal_split(w, 50, 1.0, 1.0).kappa
    times = ss.sample_task_times(w, kappa, 1000, rng=5)
    kth = np.partition(times, 49, axis=1)[:, 49]
    np.testing.assert_allclose(kth, times.max(axis=1))
    a = ss.sample_iteration_times(w, kappa, 50, 100_000, purging=True, rng=2)
    b = ss.sample_iteration_times(w, kappa, 50, 100_000, purging=False, rng=3)
    se = math.hypot(a.std(), b.std()) / math.sqrt(a.size)
    assert a.mean() == pytest.approx(b.mean(), abs=5 * se)


def test_purging_never_slower_than_waiting_for_all():
    w = st.example2_workers()
    kappa = st.optimal_split(w, 50, 1.2, 1.0).kappa
    times = ss.sample_task_times(w, kappa, 2000, rng=7)
    kth = np.partition(times, 49, axis=1)[:, 49]
    assert np.all(kth <= times.max(axis=1))


def test_pk_and_kingman_agree_with_simulation_omega1_no_purging():
    """Section IV-B: eq. (7) (and eq. (6), equal for Poisson arrivals) is exact for Omega = 1."""
    w = st.example2_workers()
    kappa = st.optimal_split(w, 50, 1.0, 1.0).kappa
    pred = st.predict_delay(w, kappa, 50, 0.01)
    sim = ss.simulate_mean_delay(w, kappa, 50, 50, 0.01, 1000, purging=False, seeds=range(12))
    assert sim.stable
    lo, hi = sim.mean - sim.ci_halfwidth, sim.mean + sim.ci_halfwidth
    assert lo <= pred.pk_delay <= hi
    assert lo <= pred.kingman_delay <= hi


def test_unstable_configuration_is_not_averaged():
    w = st.example2_workers()
    kappa = st.uniform_split(w, 50, 1.1).kappa
    sim = ss.simulate_stream(w, kappa, 50, 50, 0.01, 300, purging=False, rng=0)
    assert not sim.stable and sim.rho > 1 and math.isnan(sim.mean_delay)
    summary = ss.simulate_mean_delay(w, kappa, 50, 50, 0.01, 300, purging=False, seeds=[0, 1])
    assert not summary.stable and math.isnan(summary.mean) and "unstable" in str(summary)


def test_example2_optimal_beats_uniform_and_bound():
    w = st.example2_workers()
    opt = ss.simulate_mean_delay(
        w, st.optimal_split(w, 50, 1.1, 1.0).kappa, 50, 50, 0.01, 1000, seeds=range(5)
    )
    uni = ss.simulate_mean_delay(
        w, st.uniform_split(w, 50, 1.1).kappa, 50, 50, 0.01, 1000, seeds=range(5)
    )
    assert opt.stable and uni.stable
    assert opt.mean + opt.ci_halfwidth < uni.mean - uni.ci_halfwidth
    assert st.lower_bound_delay(w, 50, 50) < opt.mean


def test_reproducible_and_validated():
    w = st.example2_workers()
    kappa = st.optimal_split(w, 50, 1.1, 1.0).kappa
    a = ss.simulate_stream(w, kappa, 50, 5, 0.01, 50, rng=11)
    b = ss.simulate_stream(w, kappa, 50, 5, 0.01, 50, rng=11)
    np.testing.assert_array_equal(a.delays, b.delays)
    with pytest.raises(ValueError, match="K"):
        ss.sample_iteration_times(w, kappa, 56, 10)
    with pytest.raises(ValueError, match="kappa"):
        ss.sample_iteration_times(w, [1.5, 1, 1, 1, 1], 2, 10)
    with pytest.raises(ValueError, match="arrival_rate"):
        ss.simulate_stream(w, kappa, 50, 5, 0.0, 50)
    with pytest.raises(ValueError, match="seeds"):
        ss.simulate_mean_delay(w, kappa, 50, 5, 0.01, 50, seeds=[0])


def test_activity_trace_consistent():
    w = st.example2_workers()
    kappa = st.optimal_split(w, 50, 1.1, 1.0).kappa
    rows, jobs = ss.activity_trace(w, kappa, 50, 4, 0.01, 3, rng=0)
    assert len(rows) == 3 * 4 * 5
    for r in rows:
        j = r["job"]
        assert jobs["start"][j] - 1e-12 <= r["start"] <= r["stop"] <= jobs["finish"][j] + 1e-12
    # with purging, the iteration ends when the last needed result arrives: some worker is
    # busy until the end of each iteration
    for j in range(3):
        ends = max(r["stop"] for r in rows if r["job"] == j and r["iteration"] == 3)
        assert ends == pytest.approx(jobs["finish"][j])
