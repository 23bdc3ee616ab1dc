"""Stream coded computing (paper 5): load split, queueing formulas, code parameters."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from scipy import stats

from codedlib.theory import stream as st

GAMMA = 1.0


def example2():
    return st.example2_workers()


@st_.composite
def clusters(draw):
    P = draw(st_.integers(1, 25))
    seed = draw(st_.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    mean = rng.uniform(0.01, 2.0, P)
    cv2 = rng.uniform(0.0, 3.0, P)
    comm = rng.uniform(0.0, 1.0, P) * draw(st_.sampled_from([0.0, 1.0, 5.0]))
    return st.StreamWorkers(mean, cv2 * mean**2 + mean**2, comm)


@st_.composite
def tasks(draw):
    K = draw(st_.integers(1, 400))
    extra = draw(st_.integers(0, K))
    return K, (K + extra) / K


# ---------------------------------------------------------------- Theorem 2 / rounding


def test_example2_split_sums_and_balances():
    w = example2()
    split = st.optimal_split(w, 50, 1.1, GAMMA)
    assert split.kappa.sum() == 55
    assert split.kappa.dtype.kind == "i"
    metric = st.balance_metric(w, split.kappa_continuous, GAMMA)
    np.testing.assert_allclose(metric, split.theta, rtol=0, atol=1e-9)
    assert split.n_active == 5
    # integers are the closest ones: every entry within 1 of the continuous split
    assert np.all(np.abs(split.kappa - split.kappa_continuous) < 1)


@settings(max_examples=60, deadline=None)
@given(clusters(), tasks(), st_.sampled_from([0.0, 0.1, 1.0, 10.0]))
def test_split_properties(workers, kt, gamma):
    K, omega = kt
    split = st.optimal_split(workers, K, omega, gamma)
    n = st.total_tasks(K, omega)
    assert int(split.kappa.sum()) == n
    assert np.all(split.kappa >= 0)
    a, _, _ = st.split_coefficients(workers, gamma)
    active = split.kappa_continuous > 0
    np.testing.assert_array_equal(active, a < split.theta)
    metric = st.balance_metric(workers, split.kappa_continuous, gamma)
    scale = max(1.0, split.theta)
    assert np.all(np.abs(metric[active] - split.theta) <= 1e-9 * scale)
    # inactive workers would already exceed theta with the communication cost alone
    assert np.all(a[~active] >= split.theta)
    # rounding: within one task, idle workers stay idle
    assert np.all(np.abs(split.kappa - split.kappa_continuous) < 1)
    assert np.all(split.kappa[~active] == 0)
    # objective of (5) with eq. (4)'s distance equals its minimum (P - |P^a|) theta^2 (proof
    # of Theorem 2)
    d = np.sum((st.balance_metric(workers, split.kappa_continuous, gamma) - split.theta) ** 2)
    assert d == pytest.approx(
        (workers.n_workers - active.sum()) * split.theta**2, rel=1e-6, abs=1e-9 * scale**2
    )


def test_theorem2_printed_formula_matches_stable_form():
    w = example2()
    a, b, q = st.split_coefficients(w, GAMMA)
    for theta in (0.2, 1.0, 7.5, 100.0):
        printed = b / (2 * q) * (-1 + np.sqrt(1 + 4 * q * np.maximum(theta - a, 0) / b**2))
        np.testing.assert_allclose(st.kappa_of_theta(w, theta, GAMMA), printed, rtol=1e-9)


def test_sum_kappa_strictly_increasing_in_theta():
    w = example2()
    a, _, _ = st.split_coefficients(w, GAMMA)
    thetas = np.linspace(a.min() + 1e-6, 50, 400)
    sums = [st.kappa_of_theta(w, t, GAMMA).sum() for t in thetas]
    assert np.all(np.diff(sums) > 0)


def test_active_set_grows_with_theta():
    w = st.StreamWorkers([1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [0.1, 3.0, 3.0])  # variance 1
    # a_p = c + c^2 = 0.11, 12, 12; one task on worker 0 gives h = 0.11 + 2.2 + 1 = 3.31
    small = st.optimal_split(w, 1, 1.0, GAMMA)
    assert small.theta == pytest.approx(3.31) and list(small.active) == [True, False, False]
    assert list(small.kappa) == [1, 0, 0]
    big = st.optimal_split(w, 40, 1.0, GAMMA)
    assert big.active.all()


def test_example1_closed_form():
    rates = np.array([0.5, 1.0, 2.0, 7.0])
    w = st.StreamWorkers.exponential(rates, np.zeros(4))
    for gamma in (0.3, 1.0, 4.0):
        split = st.optimal_split(w, 30, 1.2, gamma)
        assert split.active.all()  # a_p = 0 for every worker
        np.testing.assert_allclose(
            split.kappa_continuous, st.example1_kappa(rates, split.theta, gamma), rtol=1e-10
        )
        # b_p = (mu_p + gamma) / mu_p^2
        _, b, _ = st.split_coefficients(w, gamma)
        np.testing.assert_allclose(b, (rates + gamma) / rates**2)


def test_uniform_split():
    w = example2()
    u = st.uniform_split(w, 50, 1.1)
    assert list(u.kappa) == [11] * 5
    u = st.uniform_split(w, 7, 1.0)
    assert u.kappa.sum() == 7 and u.kappa.max() - u.kappa.min() == 1


@settings(max_examples=100, deadline=None)
@given(st_.lists(st_.floats(0, 50), min_size=1, max_size=30))
def test_round_split_properties(values):
    kappa = np.array(values)
    total = round(kappa.sum())
    if total == 0:
        return
    kappa = kappa * (total / kappa.sum())
    r = st.round_split(kappa, total)
    assert r.sum() == total
    assert np.all(np.abs(r - kappa) < 1 + 1e-9)
    assert np.all(r[kappa == 0] == 0)


# ---------------------------------------------------------------- moments (eq. 1)


def test_assignment_moments_match_shifted_gamma():
    w = example2()
    kappa = np.array([13, 18, 7, 3, 0])
    first, second = st.assignment_moments(w, kappa)
    for p in range(4):
        dist = stats.gamma(kappa[p], loc=w.comm_time[p], scale=w.task_mean[p])
        assert first[p] == pytest.approx(dist.mean(), rel=1e-12)
        assert second[p] == pytest.approx(dist.moment(2), rel=1e-12)
    assert first[4] == 0 and second[4] == 0  # no tasks: no communication either


# ---------------------------------------------------------------- queueing (Section IV)


def test_iteration_moments_single_worker_exact():
    w = st.StreamWorkers.exponential([2.0], [0.3])
    e1, e2 = st.iteration_time_moments(w, [4])
    dist = stats.gamma(4, loc=0.3, scale=0.5)
    assert e1 == pytest.approx(dist.mean(), rel=1e-9)
    assert e2 == pytest.approx(dist.moment(2), rel=1e-9)


def test_iteration_moments_max_of_two_exponentials():
    a, b = 1.5, 4.0
    w = st.StreamWorkers.exponential([a, b], [0.0, 0.0])
    e1, e2 = st.iteration_time_moments(w, [1, 1])
    assert e1 == pytest.approx(1 / a + 1 / b - 1 / (a + b), rel=1e-9)
    assert e2 == pytest.approx(2 / a**2 + 2 / b**2 - 2 / (a + b) ** 2, rel=1e-9)


def test_iteration_moments_gamma_tasks_vs_monte_carlo():
    m = np.array([0.2, 0.5, 0.1])
    w = st.StreamWorkers(m, np.array([0.01, 0.5, 0.0]) + m**2, [0.1, 0.0, 0.2])
    kappa = np.array([5, 2, 8])
    e1, e2 = st.iteration_time_moments(w, kappa)
    rng = np.random.default_rng(1)
    shape, scale = w.gamma_parameters()
    n = 400_000
    t = np.maximum.reduce(
        [
            0.1 + rng.gamma(5 * shape[0], scale[0], n),
            rng.gamma(2 * shape[1], scale[1], n),
            np.full(n, 0.2 + 8 * 0.1),
        ]
    )
    assert e1 == pytest.approx(t.mean(), abs=5 * t.std() / math.sqrt(n))
    assert e2 == pytest.approx((t**2).mean(), abs=5 * (t**2).std() / math.sqrt(n))


def test_cdf_is_product():
    w = example2()
    kappa = np.array([13, 18, 7, 3, 14])
    t = np.array([0.5, 1.0, 1.5])
    prod = np.ones(3)
    for p in range(5):
        prod *= stats.gamma.cdf(t - w.comm_time[p], kappa[p], scale=w.task_mean[p])
    np.testing.assert_allclose(st.iteration_time_cdf(w, kappa, t), prod, rtol=1e-12)


def test_service_moments_eq8():
    s1, s2 = st.service_time_moments(2.0, 5.0, 10)
    assert s1 == 20.0
    assert s2 == 10 * 5.0 + 90 * 4.0  # = Var * I + (I E)^2 = 10*(5-4) + 400
    assert s2 == pytest.approx(10 * (5.0 - 4.0) + 20.0**2)


def test_pk_mm1_and_kingman_equal_for_poisson():
    mu, lam = 2.0, 0.7
    assert st.pollaczek_khinchin_delay(1 / mu, 2 / mu**2, lam) == pytest.approx(1 / (mu - lam))
    pk = st.pollaczek_khinchin_delay(3.0, 12.0, 0.1)
    king = st.kingman_delay(3.0, 12.0, 10.0, 200.0)
    assert king == pytest.approx(pk, rel=1e-12)
    # deterministic arrivals (c_a^2 = 0) wait less than Poisson ones
    assert st.kingman_delay(3.0, 12.0, 10.0, 100.0) < king


def test_unstable_reported():
    with pytest.raises(st.UnstableQueueError, match="unstable"):
        st.pollaczek_khinchin_delay(120.0, 20000.0, 0.01)
    with pytest.raises(st.UnstableQueueError):
        st.kingman_delay(100.0, 20000.0, 100.0, 20000.0)
    w = example2()
    pred = st.predict_delay(w, st.uniform_split(w, 50, 1.1).kappa, 50, 0.01)
    assert not pred.stable and pred.rho > 1 and math.isinf(pred.pk_delay)
    assert not st.is_stable(pred.service_mean, 100.0)


def test_remark2_slow_communicator_is_not_used():
    w = example2()
    split = st.optimal_split(w, 50, 1.1, GAMMA)
    extra = st.StreamWorkers(
        np.append(w.task_mean, 0.001),
        np.append(w.task_second_moment, 2e-6),
        np.append(w.comm_time, 2.0),
    )  # a_p = 6 > theta
    split2 = st.optimal_split(extra, 50, 1.1, GAMMA)
    assert split2.kappa[-1] == 0 and split2.theta == pytest.approx(split.theta, rel=1e-12)


def test_lower_bound_eq9_example2():
    w = example2()
    rate_sum = sum(st.EXAMPLE2["rates"]) / st.EXAMPLE2["complexity"]
    expected = 50 * (50 / rate_sum + np.mean(st.EXAMPLE2["comm_time"]))
    assert st.lower_bound_delay(w, 50, 50) == pytest.approx(expected, rel=1e-12)
    assert st.lower_bound_delay(w, 50, 50) == pytest.approx(33.93, abs=0.01)
    # the paper's 42.04 is close to eq. 9 behind the Poisson queue (M/D/1), not eq. 9 itself
    assert st.lower_bound_queue_delay(w, 50, 50, 0.01) == pytest.approx(42.64, abs=0.01)


# ---------------------------------------------------------------- errors


def test_clear_errors():
    w = example2()
    with pytest.raises(ValueError, match="K\\*omega must be an integer"):
        st.optimal_split(w, 50, 1.11, GAMMA)
    with pytest.raises(ValueError, match="omega"):
        st.optimal_split(w, 50, 0.9, GAMMA)
    with pytest.raises(ValueError, match="P=0"):
        st.StreamWorkers([], [], [])
    with pytest.raises(ValueError, match="task_mean"):
        st.StreamWorkers([-1.0, 1.0], [1.0, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="variance"):
        st.StreamWorkers([1.0], [0.5], [0.0])
    with pytest.raises(ValueError, match="task_second_moment"):
        st.StreamWorkers([1.0], [-2.0], [0.0])
    with pytest.raises(ValueError, match="comm_time"):
        st.StreamWorkers([1.0], [2.0], [-0.1])
    with pytest.raises(ValueError, match="gamma"):
        st.optimal_split(w, 50, 1.1, -1.0)
    with pytest.raises(ValueError, match="rates"):
        st.StreamWorkers.exponential([1.0, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="kappa"):
        st.iteration_time_moments(w, [1, 2, 3, -1, 0])


# ---------------------------------------------------------------- Algorithm 1


def test_mismatch_and_algorithm1():
    w = example2()
    split = st.optimal_split(w, 50, 1.1, GAMMA)
    assert st.mismatch(w, split.kappa_continuous, GAMMA, "active") == pytest.approx(0, abs=1e-18)
    assert st.mismatch(w, split.kappa, GAMMA) > 0
    unit = st.StreamWorkers.exponential(st.EXAMPLE2["rates"], st.EXAMPLE2["comm_time"], 1.0)
    Z = 50 * st.EXAMPLE2["complexity"]
    search = st.optimise_code_parameters(unit, Z, [10, 25, 50, 100, 200], 1.0, GAMMA)
    np.testing.assert_allclose(search["K"] * search["C"], Z)
    assert np.all(search["n_assigned"] <= search["n_active"])
    # K = 50 reproduces Example 2's workers
    assert search["theta"][2] == pytest.approx(st.optimal_split(w, 50, 1.0, GAMMA).theta)
    with pytest.raises(ValueError, match="over"):
        st.mismatch(w, split.kappa, GAMMA, "some")
