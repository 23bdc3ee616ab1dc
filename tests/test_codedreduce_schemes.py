"""Simulated clock of the CodedReduce paper: closed forms, Theorem 2, ordering of schemes."""

import numpy as np
import pytest

from codedlib.codes.codedreduce import allocate, execute, local_messages_from_point_gradients
from codedlib.latency.order_stats import harmonic_number
from codedlib.network import Network, single_port_receive
from codedlib.schemes.codedreduce import (
    ClusterConfig,
    TimingModel,
    cr_times,
    draw_delays,
    gc_times,
    rar_times,
    sgd_times,
    simulate_iteration_times,
    tree_finish,
    umw_times,
)
from codedlib.theory.codedreduce import r_cr, theorem2_bounds


def test_single_port_reception_by_hand():
    ready = np.array([[3.0, 0.0, 1.0, 10.0]])
    # sorted 0,1,3,10; tau 2: 0->2, max(2,1)+2=4, max(4,3)+2=6, max(6,10)+2=12
    assert single_port_receive(ready, 1, 2.0)[0] == 2.0
    assert single_port_receive(ready, 3, 2.0)[0] == 6.0
    assert single_port_receive(ready, 4, 2.0)[0] == 12.0


def test_deterministic_closed_forms():
    """With all exponential draws zero every scheme's time has a closed form."""
    cfg = ClusterConfig(4, 3, 1, 6552)
    N, S = cfg.N, cfg.S
    net = Network(latency=2e-3, bandwidth=1e6)
    model = TimingModel(a=1e-4, mu=1.0, network=net, gradient_numbers=5001)
    E = np.zeros((2, N))
    tc = model.t_c
    assert tc == pytest.approx(2e-3 + 8 * 5001 / 1e6)  # latency + bytes / bandwidth
    assert umw_times(cfg, model, E).times == pytest.approx(1e-4 * 6552 / N + N * tc)
    assert gc_times(cfg, model, E).times == pytest.approx(1e-4 * (S + 1) * 6552 / N + (N - S) * tc)
    assert sgd_times(cfg, model, E).times == pytest.approx(1e-4 * 6552 / N + (N - S) * tc)
    tau = 2e-3 + 8 * np.ceil(5001 / N) / 1e6  # a ceil(p/N)-number segment on the same link
    assert rar_times(cfg, model, E).times == pytest.approx(1e-4 * 6552 / N + 2 * (N - 1) * tau)
    load = r_cr(4, 1, 3) * 6552
    assert cr_times(cfg, model, E).times == pytest.approx(1e-4 * load + 3 * (4 - 1) * tc)


def test_one_layer_cr_matches_order_statistic_closed_form():
    """L = 1 and t_c = 0: T_CR is the (n-s)-th order statistic, E = (load/mu)(H_n - H_s) + a load."""
    n, s, d = 20, 5, 4000
    cfg = ClusterConfig(n, 1, s, d)
    model = TimingModel(a=2e-4, mu=500.0, network=Network(latency=0.0, bandwidth=1e30))
    times = cr_times(cfg, model, draw_delays(20_000, n, 7)).times
    load = r_cr(n, s, 1) * d
    want = load / 500.0 * (harmonic_number(n) - harmonic_number(s)) + 2e-4 * load
    se = times.std(ddof=1) / np.sqrt(times.size)
    assert abs(times.mean() - want) < 4 * se


@pytest.mark.parametrize("n", [16, 32])
def test_monte_carlo_cr_time_lies_between_theorem2_bounds(n):
    """Fig. 13 constants (t_c = 0.05 s, a = 5e-5 s/pt, a mu = 1), L = 2, alpha = 1/4, d = 50000.
    The bounds drop o(.) terms, so they hold from n ~ 16 on (n = 8 falls below the lower one)."""
    s, L, d = n // 4, 2, 50_000
    cfg = ClusterConfig(n, L, s, d)
    net = Network.from_message_time(0.05, 120_000, 3e-4)
    model = TimingModel(network=net, gradient_numbers=120_000)
    assert model.t_c == pytest.approx(0.05)
    times = cr_times(cfg, model, draw_delays(200, cfg.N, n)).times
    b = theorem2_bounds(n, L, s, d, model.a, model.mu, model.t_c)
    assert b["lower"] < times.mean() < b["upper"]


def test_same_draws_make_sgd_never_slower_than_umw():
    cfg = ClusterConfig(12, 2, 2, 6552)
    res = simulate_iteration_times(cfg, n_iterations=100, rng=3)
    assert np.all(res["SGD"].times <= res["UMW"].times)
    assert res["SGD"].used_workers.sum(axis=1).tolist() == [cfg.N - cfg.S] * 100


@pytest.mark.parametrize(
    "n,L,s,d", [(4, 3, 1, 7644), (12, 2, 1, 6552), (12, 2, 2, 6552), (12, 2, 3, 7644)]
)
def test_fig2_ordering_cr_then_rar_then_sgd_gc_then_umw(n, L, s, d):
    """In the communication-bound regime of the paper's stated t_c = 0.05 s per gradient."""
    cfg = ClusterConfig(n, L, s, d)
    model = TimingModel(network=Network.from_message_time(0.05, 6500, 0.005))
    res = simulate_iteration_times(cfg, model, n_iterations=200, rng=0)
    m = {k: v.mean for k, v in res.items()}
    assert m["CR"] < m["RAR"] < min(m["SGD"], m["GC"])
    assert max(m["SGD"], m["GC"]) < m["UMW"]
    assert res["CR"].busiest_messages == n - s and res["UMW"].busiest_messages == cfg.N


def test_cr_survivors_feed_execute_exactly():
    cfg = ClusterConfig(3, 3, 1, 400)
    alloc = allocate(3, 3, 1, 400)
    draws = draw_delays(5, cfg.N, 0)
    _timing, survivors = cr_times(
        cfg, TimingModel(), draws, loads=alloc.load_points, return_survivors=True
    )
    G = np.random.default_rng(1).standard_normal((400, 3))
    local = local_messages_from_point_gradients(alloc, G)
    for it in range(5):
        chosen = {p: v[it] for p, v in survivors.items()}
        assert all(len(v) == 2 for v in chosen.values())
        got, _ = execute(alloc, local, survivors=chosen)
        np.testing.assert_allclose(got, G.sum(0), rtol=1e-9, atol=1e-9)


def test_scheme_errors():
    with pytest.raises(ValueError, match=r"s must satisfy 0 <= s < n, got s=4, n=4"):
        ClusterConfig(4, 2, 4, 100)
    with pytest.raises(ValueError, match="L must satisfy"):
        ClusterConfig(4, 0, 1, 100)
    with pytest.raises(ValueError, match="straggle_prob must satisfy"):
        TimingModel(straggle_prob=1.5)
    with pytest.raises(TypeError, match="network must be"):
        TimingModel(network=0.05)
    with pytest.raises(ValueError, match="draws must be finite and >= 0"):
        umw_times(ClusterConfig(3, 2, 1, 100), TimingModel(), np.full((2, 12), np.nan))
    with pytest.raises(ValueError, match="draws must be finite and >= 0"):
        umw_times(ClusterConfig(3, 2, 1, 100), TimingModel(), -np.ones((2, 12)))
    with pytest.raises(ValueError, match="message_time must be finite and >= 0"):
        single_port_receive([[0.0, 1.0]], 2, -1.0)
    with pytest.raises(ValueError, match="loads must be finite and >= 0"):
        cr_times(ClusterConfig(3, 2, 1, 100), TimingModel(), np.ones((2, 12)), loads=-np.ones(12))
    with pytest.raises(ValueError, match="draws must have shape"):
        umw_times(ClusterConfig(3, 2, 1, 100), TimingModel(), np.zeros((3, 5)))
    with pytest.raises(ValueError, match="scheme must be one of"):
        simulate_iteration_times(ClusterConfig(3, 2, 1, 100), schemes=("XYZ",), n_iterations=2)


@pytest.mark.parametrize("convention", ["appendix", "eq6"])
def test_compute_time_model_agrees_with_latency_module(convention):
    from codedlib.latency.models import codedreduce_compute_time

    model = TimingModel(a=2e-3, mu=3.0, rate_convention=convention)
    dist = codedreduce_compute_time(250, a=2e-3, mu=3.0, rate_convention=convention)
    q = np.array([0.1, 0.5, 0.9])
    draws = -np.log1p(-q)  # Exp(1) quantiles
    np.testing.assert_allclose(model.compute_times(250, draws), dist.ppf(q), rtol=1e-12)


def test_ring_allreduce_finish_matches_the_roll_recursion_and_stacks_models():
    from codedlib.schemes.codedreduce import ring_allreduce_finish

    rng = np.random.default_rng(0)
    ready = rng.exponential(size=(4, 7))
    ref = ready.copy()
    for _ in range(2 * 6):
        ref = np.maximum(ref, np.roll(ref, 1, axis=1)) + 0.3
    np.testing.assert_array_equal(ring_allreduce_finish(ready, 0.3), ref.max(axis=1))
    # per-row tau: two models in one pass equal two separate passes
    both = ring_allreduce_finish(np.vstack([ready, ready]), np.repeat([0.3, 0.05], 4))
    np.testing.assert_array_equal(both[:4], ring_allreduce_finish(ready, 0.3))
    np.testing.assert_array_equal(both[4:], ring_allreduce_finish(ready, 0.05))
    before = ready.copy()
    ring_allreduce_finish(ready, 0.3)
    np.testing.assert_array_equal(ready, before)  # the input is not modified


def test_straggler_process_hits_the_top_q_draws_and_spares_tolerant_schemes():
    """A worker straggles (D more seconds) exactly when its draw is in the top-q tail;
    CR with s = 1 per parent and GC with S stragglers do not wait for a lone straggler."""
    model = TimingModel(a=1e-4, mu=1e4, straggle_prob=0.1, straggle_delay=5.0)
    draws = np.array([[0.0, np.log(10) - 1e-9, np.log(10) + 1e-9]])
    got = model.compute_times(100.0, draws)
    np.testing.assert_allclose(got - 1e-4 * 100 - 100 / 1e4 * draws, [[0.0, 0.0, 5.0]])
    cfg = ClusterConfig(3, 2, 1, 120)
    E = np.zeros((1, cfg.N))
    E[0, 5] = 10.0  # one straggler, a leaf
    calm = simulate_iteration_times(cfg, TimingModel(), draws=np.zeros((1, cfg.N)))
    hit = simulate_iteration_times(
        cfg, TimingModel(straggle_prob=0.01, straggle_delay=3.0), draws=E
    )
    assert hit["RAR"].mean > 3.0 and hit["UMW"].mean > 3.0  # both wait for the straggler
    assert hit["CR"].mean == pytest.approx(calm["CR"].mean)
    assert hit["GC"].mean == pytest.approx(calm["GC"].mean)


def test_tree_finish_is_cr_times_on_compute_times():
    cfg = ClusterConfig(3, 2, 1, 300)
    draws = draw_delays(4, cfg.N, 2)
    model = TimingModel()
    loads = np.full(cfg.N, 40.0)
    want = cr_times(cfg, model, draws, loads=loads).times
    got = tree_finish(model.compute_times(loads[None, :], draws), 3, 2, 1, model.message_time())
    np.testing.assert_array_equal(got, want)
