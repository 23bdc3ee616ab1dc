"""The shoot-out engines (codedlib.schemes.shootout) against the per-paper references.

* lazy engine == LAGC paper's ``run_lag_ps`` / ``run_lagc`` / ``run_g_lag`` / ``run_g_gd``;
* event engine (no network cost) == ``simulate_event_driven(semantics="deadline")`` and a
  plain SAG/DSAG cache recursion; its GD and SAG special cases;
* exact schemes' clocks == ``single_port_receive`` / ring / ``tree_finish``;
* every scheme at N in {3, 12, 100}; seeds and common random numbers; bad input.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from codedlib.cluster import ClusterModel
from codedlib.latency.event_driven import simulate_event_driven
from codedlib.network import Network, single_port_receive
from codedlib.problems import LeastSquares, even_partition
from codedlib.schemes import shootout as so
from codedlib.schemes.codedreduce import tree_finish
from codedlib.theory.codedreduce import n_tree_workers, r_cr

LAZY = ("lag", "lagc", "g-lag", "g-gd")
EVENT = ("sag", "dsag", "dsag-lb")
EXACT = tuple(name for name, s in so.SCHEMES.items() if s.engine == "exact")
#: a network on which messages cost nothing (latency 0, huge bandwidth)
FREE = Network(latency=0.0, bandwidth=1e300)


def _problem(N, extra_rows=0, lam=0.0, rng=3):
    """Stand-in problem with ``8 N + extra_rows`` rows (uneven partitions if not 0)."""
    base = so.shootout_problem(N, rows=9, rng=rng)
    n = 8 * N + extra_rows
    return LeastSquares(base.X[:n], base.y[:n], lam=lam)


# ----------------------------------------------------------------------------- a. lazy engine
@pytest.mark.parametrize(
    "N, r, group_size, xi, extra_rows, lam",
    [
        (12, 2, 4, 0.01, 0, 0.0),
        (12, 3, 6, 0.05, 0, 0.0),
        (8, 2, 4, 0.02, 0, 0.0),
        (8, 4, 8, 0.0, 0, 0.0),
        (12, 2, 4, 0.01, 5, 0.0),  # uneven rows: groups must own their workers' rows
        (8, 2, 4, 0.02, 0, 0.3),  # ridge: L_g includes lam per row
        (12, 3, 6, 0.05, 7, 0.1),
    ],
)
def test_lazy_engine_equals_lagc_paper(N, r, group_size, xi, extra_rows, lam):
    setup = so.Shootout(
        ClusterModel(n_workers=N),
        problem=_problem(N, extra_rows, lam),
        xi=xi,
        max_iter=80,
        redundancy=r,
        group_size=group_size,
        tune=False,
    )
    lazy_somewhere = False
    for name in LAZY:
        run = so.simulate(setup, name)
        ref = so.lagc_reference_run(setup, name)
        lay = run.layout
        assert lay["groups"] == ref.layout.n_groups, name
        assert lay["need"] == ref.layout.wait_for, name
        np.testing.assert_allclose(run.gaps, ref.gap / ref.gap[0], rtol=0, atol=1e-10)
        n_selected = run.shares / (lay["group_size"] * lay["stored"])
        np.testing.assert_array_equal(n_selected, ref.n_selected, err_msg=name)
        lazy_somewhere |= bool((ref.n_selected < lay["groups"]).any())
    # the comparison is not trivial: the selection rule skipped groups somewhere
    assert lazy_somewhere or xi == 0.0


# ----------------------------------------------------------------------------- b. event engine
def _event_reference(setup, lay, factors, step):
    """Plain SAG/DSAG (Section V) on the clock of ``simulate_event_driven`` (deadline rule).

    Returns ``(iteration_end, fresh, gaps, messages, shares)``: gaps of the cache recursion
    driven by the reference simulator's fresh sets, results received per iteration (fresh +
    stale ones) and shares of the tasks started per iteration.
    """
    c, problem = setup.cluster, setup.problem
    N, w, margin, p = setup.n_workers, lay["w"], lay["margin"], lay["p"]
    lat = c.share_time * lay["shares"][None, :] * factors
    T = lat.shape[0]
    ref = simulate_event_driven(lat, w, margin, semantics="deadline")
    # who started a task in iteration t: the busy-until time moved (latencies are > 0)
    busy = [np.zeros(N)] + [
        simulate_event_driven(lat[: t + 1], w, margin, semantics="deadline").busy_until[0]
        for t in range(T)
    ]
    bounds = setup.bounds
    subs = [bounds[i] + even_partition(int(bounds[i + 1] - bounds[i]), int(p[i])) for i in range(N)]
    theta, eta = setup.theta0.copy(), step / setup.smoothness
    cache, pending, count = {}, {}, np.zeros(N, dtype=int)
    gaps, messages, shares = [setup.relative_gap(theta)], [], []
    for t in range(T):
        started = busy[t + 1] != busy[t]
        fresh = ref.fresh[0, t]
        assert not np.any(fresh & ~started)
        # a pending (stale) result is received in t exactly when its worker starts anew
        stale = [i for i in sorted(pending) if started[i]]
        results = []
        for i in np.flatnonzero(started):
            j = count[i] % p[i]
            count[i] += 1
            lo, hi = int(subs[i][j]), int(subs[i][j + 1])
            results.append((i, (i, j), lo, hi, problem.partial_gradient(theta, lo, hi)))
        offered = [pending.pop(i) for i in stale] if lay["method"] == "dsag" else []
        for i in stale:
            pending.pop(i, None)
        offered += [(t, key, lo, hi, g) for i, key, lo, hi, g in results if fresh[i]]
        for it, key, lo, hi, g in offered:
            if key not in cache or cache[key][0] < it:
                cache[key] = (it, hi - lo, g)
        for i, key, lo, hi, g in results:
            if not fresh[i]:
                pending[i] = (t, key, lo, hi, g)
        messages.append(len(stale) + int(fresh.sum()))
        shares.append(lay["shares"][started].sum())
        H = sum(g for _, _, g in cache.values())
        covered = sum(rows for _, rows, _ in cache.values())
        theta = theta - eta * H / covered
        gaps.append(setup.relative_gap(theta))
    return ref.iteration_end[0], ref.fresh[0], np.array(gaps), np.array(messages), shares


@pytest.mark.parametrize(
    "N, family, shape, w_fraction, margin, subpartitions, heterogeneity, extra_rows, lam",
    [
        (12, "gamma", 0.8, 0.5, 0.02, 4, 0.5, 0, 0.0),
        (8, "pareto", 1.5, 0.25, 0.1, 2, 0.0, 0, 0.0),
        (12, "gamma", 1.5, 0.75, 0.3, 3, 1.0, 0, 0.0),
        (10, "shifted_exponential", 0.9, 0.5, 0.0, 1, 2.0, 0, 0.0),
        (10, "gamma", 1.0, 0.5, 0.05, 3, 1.0, 7, 0.05),  # uneven sub-partitions, ridge
    ],
)
def test_event_engine_equals_event_driven_reference(
    N, family, shape, w_fraction, margin, subpartitions, heterogeneity, extra_rows, lam
):
    cluster = ClusterModel(
        n_workers=N,
        family=family,
        shape=shape,
        heterogeneity=heterogeneity,
        network=FREE,
        burst_factor=3.0,
        master_flop_time=0.0,
    )
    assert cluster.message_time < 1e-200
    setup = so.Shootout(
        cluster,
        problem=_problem(N, extra_rows, lam),
        max_iter=40,
        tune=False,
        w_fraction=w_fraction,
        margin=margin,
        subpartitions=subpartitions,
    )
    factors = cluster.factors(40, 5)
    stale_seen = False
    for name in ("sag", "dsag"):
        run = so.simulate(setup, name, seed=5)
        lay = run.layout
        ends, fresh, gaps, messages, shares = _event_reference(setup, lay, factors, lay["step"])
        np.testing.assert_allclose(np.cumsum(run.times), ends, rtol=1e-12, atol=0)
        np.testing.assert_array_equal(run.messages, messages)
        np.testing.assert_allclose(run.shares, shares, rtol=1e-12)
        np.testing.assert_allclose(run.gaps, gaps, rtol=0, atol=1e-10)
        stale_seen |= bool((messages > fresh.sum(axis=1)).any())
    assert stale_seen  # the cases exercise stale deliveries, not only fresh ones


@pytest.mark.parametrize("lam", [0.0, 0.2])
def test_range_gradients_equal_partition_gradients(lam):
    """The event engine's gradients of the N sub-partitions in work == those rows of
    ``partition_gradients`` over every sub-partition."""
    rng = np.random.default_rng(lam > 0)
    problem = _problem(20, extra_rows=11, lam=lam)
    bounds = np.unique(np.r_[0, rng.choice(np.arange(1, 171), 60), 171])
    theta = rng.standard_normal(problem.dim)
    every = problem.partition_gradients(theta, bounds)
    for _ in range(5):
        sub = np.sort(rng.choice(bounds.size - 1, 25, replace=False))
        got = so._range_gradients(problem, theta, bounds[sub], np.diff(bounds)[sub])
        np.testing.assert_allclose(got, every[sub], rtol=1e-12, atol=1e-12)


def test_event_engine_with_everyone_fresh_is_gd():
    """w = N, margin 0, one sub-partition: every result fresh, the cache is the exact gradient
    and step 1 (which the tuner picks) is GD; the clock is GD's (the same summing charge)."""
    setup = so.Shootout(
        ClusterModel(n_workers=12, family="pareto", shape=2.0),
        max_iter=60,
        w_fraction=1.0,
        margin=0.0,
        subpartitions=1,
        tune=False,
    )
    gd = so.simulate(setup, "gd", seed=2)
    c = setup.cluster
    combine = setup.n_workers * c.workload.dim * c.master_flop_time
    for name in ("sag", "dsag"):
        run = so.simulate(setup, name, seed=2)
        assert run.layout["step"] == 1.0
        np.testing.assert_array_equal(run.messages, setup.n_workers)
        np.testing.assert_allclose(run.gaps, gd.gaps, rtol=0, atol=1e-12)
        np.testing.assert_allclose(run.times, gd.times, rtol=1e-12)
        assert combine > 0


@pytest.mark.parametrize("w_fraction, margin", [(1.0, 0.0), (0.5, 1e3)])
def test_dsag_with_every_result_fresh_equals_sag(w_fraction, margin):
    setup = so.Shootout(
        ClusterModel(n_workers=12, family="gamma", shape=1.0),
        max_iter=50,
        w_fraction=w_fraction,
        margin=margin,
        tune=False,
    )
    sag, dsag = so.simulate(setup, "sag", seed=4), so.simulate(setup, "dsag", seed=4)
    np.testing.assert_array_equal(dsag.messages, setup.n_workers)  # all delivered fresh
    assert sag.layout["step"] == dsag.layout["step"]
    for field in ("times", "gaps", "messages", "numbers", "shares"):
        np.testing.assert_array_equal(getattr(dsag, field), getattr(sag, field), err_msg=field)


def test_dsag_differs_from_sag_with_stale_results():
    setup = so.Shootout(
        ClusterModel(n_workers=12, family="gamma", shape=1.0), max_iter=50, tune=False
    )
    sag, dsag = so.simulate(setup, "sag", seed=4), so.simulate(setup, "dsag", seed=4)
    np.testing.assert_array_equal(dsag.times, sag.times)  # same clock, different cache
    assert not np.array_equal(dsag.gaps, sag.gaps)


# ----------------------------------------------------------------------------- c. exact clocks
@pytest.fixture(scope="module")
def exact_setup():
    cluster = ClusterModel(n_workers=13, family="pareto", shape=2.5, heterogeneity=0.5)
    setup = so.Shootout(cluster, max_iter=30)
    return setup, cluster.factors(30, 7)


def test_gd_clock_is_single_port_receive_plus_combine(exact_setup):
    setup, factors = exact_setup
    c, N = setup.cluster, setup.n_workers
    comp = c.share_time * factors
    expected = (
        single_port_receive(comp, N, c.message_time) + N * c.workload.dim * c.master_flop_time
    )
    np.testing.assert_allclose(so.iteration_times("gd", setup, factors), expected, rtol=1e-13)


def test_rar_clock_is_max_compute_plus_ring_rounds(exact_setup):
    setup, factors = exact_setup
    c, N = setup.cluster, setup.n_workers
    segment = c.network.vector_time(c.workload.dim / N)
    expected = (c.share_time * factors).max(axis=1) + 2 * (N - 1) * segment
    np.testing.assert_allclose(so.iteration_times("rar", setup, factors), expected, rtol=1e-13)


def test_cr_clock_is_tree_finish_on_the_chosen_tree(exact_setup):
    setup, factors = exact_setup
    c, N = setup.cluster, setup.n_workers
    lay = so.SCHEMES["cr"].layout(setup)  # the tree tune() chose
    n, L = lay["n"], lay["L"]
    assert (n, L) in so.tree_candidates(N, setup.tree_s)
    N_tree = n_tree_workers(n, L)
    load = float(r_cr(n, setup.tree_s, L)) * N
    comp = c.share_time * load * factors[:, :N_tree]
    expected = tree_finish(comp, n, L, setup.tree_s, c.message_time)
    np.testing.assert_allclose(so.iteration_times("cr", setup, factors), expected, rtol=1e-13)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 9).flatmap(
        lambda M: st.tuples(
            arrays(float, (3, M), elements=st.floats(0.0, 50.0)),
            st.integers(0, M),
            st.floats(0.0, 5.0),
            st.floats(0.0, 60.0),
            st.integers(0, M),
        )
    )
)
def test_port_receive_equals_single_port_receive(case):
    ready, need, tau, port_free, n_never = case
    ready = ready.copy()
    ready[:, ready.shape[1] - n_never :] = np.inf  # messages never sent
    got = so.port_receive(ready, need, tau, port_free)
    # a port busy until port_free is a port on which every message is ready no earlier
    expected = single_port_receive(np.maximum(ready, port_free), need, tau)
    if need == 0:
        expected = np.full(3, port_free)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    if port_free == 0.0:
        np.testing.assert_allclose(got, single_port_receive(ready, need, tau), rtol=1e-12)


# ----------------------------------------------------------------------------- d. all schemes
@pytest.fixture(scope="module", params=[3, 12, 100])
def runs(request):
    N = request.param
    setup = so.Shootout(ClusterModel(n_workers=N, heterogeneity=0.3), max_iter=40)
    names = [name for name, s in so.SCHEMES.items() if s.applies(setup)]
    return setup, {name: so.simulate(setup, name, seed=1) for name in names}


def test_every_scheme_runs(runs):
    setup, by_name = runs
    expected = {n for n in so.SCHEMES if so.SCHEMES[n].applies(setup)}
    assert set(by_name) == expected
    assert {"gd", "sgd", "dsag", "lagc", "rar"} <= expected
    for name, run in by_name.items():
        assert run.times.shape == (setup.max_iter,), name
        assert run.gaps.shape == (setup.max_iter + 1,), name
        assert np.all(np.isfinite(run.gaps)) and np.all(run.gaps >= -1e-12), name
        assert run.gaps[0] == 1.0 and run.gaps[-1] < 1.0, name
        assert np.all(np.isfinite(run.times)), name
        # an iteration takes time iff the master heard from someone (a lazy one may skip all)
        np.testing.assert_array_equal(run.times > 0, run.messages > 0, err_msg=name)
        assert so.SCHEMES[name].engine == "lazy" or np.all(run.messages > 0), name
    exact = [by_name[n] for n in EXACT if n in by_name]
    for run in exact[1:]:
        np.testing.assert_array_equal(run.gaps, exact[0].gaps, err_msg=run.scheme)


def _bytes(run):
    return b"".join(
        np.ascontiguousarray(getattr(run, f)).tobytes()
        for f in ("times", "gaps", "messages", "numbers", "shares")
    )


def test_same_seed_same_run_other_seed_other_times(runs):
    setup, by_name = runs
    for name, run in by_name.items():
        again = so.simulate(setup, name, seed=1)
        assert _bytes(again) == _bytes(run), name
        other = so.simulate(setup, name, seed=2)
        assert not np.array_equal(other.times, run.times), name


def test_common_random_numbers(runs, monkeypatch):
    """Every scheme of one seed reads the one array ``cluster.factors(max_iter, seed)``."""
    setup, by_name = runs
    calls = []
    draw = ClusterModel.factors

    def spy(self, n_iterations, rng=None):
        calls.append((n_iterations, rng))
        return draw(self, n_iterations, rng)

    monkeypatch.setattr(ClusterModel, "factors", spy)
    factors = draw(setup.cluster, setup.max_iter, 1)
    for name, run in by_name.items():
        calls.clear()
        assert _bytes(so.simulate(setup, name, seed=1)) == _bytes(run), name
        assert calls == [(setup.max_iter, 1)], name  # step/tree pilots are cached
        assert _bytes(so.simulate(setup, name, seed=1, factors=factors)) == _bytes(run), name
    for name in EXACT + ("sgd",):
        if name in by_name:
            np.testing.assert_array_equal(
                by_name[name].times, so.iteration_times(name, setup, factors), err_msg=name
            )


# ----------------------------------------------------------------------------- e. bad input
@pytest.mark.parametrize(
    "changes, error, name",
    [
        ({"cluster": "cluster"}, TypeError, "cluster"),
        ({"cluster": None}, TypeError, "cluster"),
        ({"problem": np.zeros((96, 3))}, TypeError, "problem"),
        ({"problem": so.shootout_problem(12, rows=3)}, ValueError, "problem"),
        ({"target": 0.0}, ValueError, "target"),
        ({"target": 1.0}, ValueError, "target"),
        ({"target": -0.5}, ValueError, "target"),
        ({"target": 2.0}, ValueError, "target"),
        ({"target": float("nan")}, ValueError, "target"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"max_iter": 2.5}, ValueError, "max_iter"),
        ({"stragglers": 1.0}, ValueError, "stragglers"),
        ({"tree_s": -1}, ValueError, "tree_s"),
        ({"w_fraction": 0.0}, ValueError, "w_fraction"),
        ({"w_fraction": 1.5}, ValueError, "w_fraction"),
        ({"subpartitions": 0}, ValueError, "subpartitions"),
        ({"subpartitions": "4"}, TypeError, "subpartitions"),
        ({"margin": -0.1}, ValueError, "margin"),
        ({"redundancy": 0}, ValueError, "redundancy"),
        ({"group_size": 0}, ValueError, "group_size"),
        ({"xi": -0.01}, ValueError, "xi"),
        ({"xi": 0.2}, ValueError, "xi"),  # history * xi >= 1
        ({"history": 0}, ValueError, "history"),
    ],
)
def test_shootout_rejects_bad_fields(changes, error, name):
    kwargs = {"cluster": ClusterModel(n_workers=12), **changes}
    with pytest.raises(error, match=rf"\b{name}\b"):
        so.Shootout(**kwargs)


@pytest.fixture(scope="module")
def small_setup():
    return so.Shootout(ClusterModel(n_workers=12), max_iter=10)


@pytest.mark.parametrize(
    "args, kwargs, error, name",
    [
        (("nope",), {}, ValueError, "scheme"),
        ((None,), {}, ValueError, "scheme"),
        ((["gd"],), {}, ValueError, "scheme"),
        (("gd",), {"seed": -1}, ValueError, "seed"),
        (("gd",), {"seed": 1.5}, ValueError, "seed"),
        (("gd",), {"factors": np.ones((10, 11))}, ValueError, "factors"),
        (("dsag",), {"factors": np.ones(12)}, ValueError, "factors"),
        (("lagc",), {"factors": np.ones((9, 12))}, ValueError, "factors"),
        (("gd",), {"factors": np.full((10, 12), np.nan)}, ValueError, "factors"),
        (("sgd",), {"factors": -np.ones((10, 12))}, ValueError, "factors"),
    ],
)
def test_simulate_rejects_bad_arguments(small_setup, args, kwargs, error, name):
    with pytest.raises(error, match=rf"\b{name}\b"):
        so.simulate(small_setup, *args, **kwargs)


def test_simulate_rejects_bad_setup_and_inapplicable_scheme():
    with pytest.raises(TypeError, match=r"\bsetup\b"):
        so.simulate(ClusterModel(n_workers=12), "gd")
    with pytest.raises(ValueError, match=r"\bcr\b"):
        so.simulate(so.Shootout(ClusterModel(n_workers=2)), "cr")
    with pytest.raises(ValueError, match=r"\bscheme\b"):
        so.iteration_times("dsag", so.Shootout(ClusterModel(n_workers=4)), np.ones((3, 4)))


# ----------------------------------------------------------------------------- e. MPI all-reduce
@pytest.mark.parametrize("N", [2, 8, 13, 64, 100])
def test_allreduce_clocks_on_free_compute_are_the_hand_formulas(N):
    """Zero compute time: recursive doubling (log2 p + 2[r>0]) t(d), Rabenseifner
    2 sum_k t(d / 2^k) + 2[r>0] t(d), binomial 2 ceil(log2 N) t(d); p = pof2, r = N - p."""
    net = Network(latency=3e-4, bandwidth=12.5e6)
    setup = so.Shootout(ClusterModel(n_workers=N, network=net), max_iter=3)
    zero = np.zeros((3, N))
    d, lg = setup.cluster.workload.dim, N.bit_length() - 1
    p, r = 2**lg, N - 2**lg

    def t(m):
        return 3e-4 + 8 * m / 12.5e6

    fold = 2 * t(d) if r else 0.0
    expected = {
        "rd": lg * t(d) + fold,
        "rabenseifner": 2 * sum(t(d / 2**k) for k in range(1, lg + 1)) + fold,
        "binomial": 2 * math.ceil(math.log2(N)) * t(d),
        "rar": 2 * (N - 1) * t(d / N),
    }
    for name, value in expected.items():
        np.testing.assert_allclose(so.iteration_times(name, setup, zero), value, rtol=1e-13)
    mpi = so.iteration_times("mpi-allreduce", setup, zero)
    choice = {"recursive-doubling": "rd", "rabenseifner": "rabenseifner"}
    pick = so.mpich_allreduce_algorithm(N, d)
    np.testing.assert_allclose(mpi, expected[choice[pick]], rtol=1e-13)
    assert pick == ("recursive-doubling" if d < p else "rabenseifner")


def test_mpich_rule_thresholds():
    assert so.mpich_allreduce_algorithm(100, 256) == "recursive-doubling"  # 2048 B: short
    assert so.mpich_allreduce_algorithm(100, 257) == "rabenseifner"
    assert so.mpich_allreduce_algorithm(1024, 1023) == "recursive-doubling"  # count < pof2
    assert so.mpich_allreduce_algorithm(1500, 1024) == "rabenseifner"
    with pytest.raises(ValueError, match="n_workers"):
        so.mpich_allreduce_algorithm(0, 10)


@pytest.mark.parametrize("name", ["rd", "rabenseifner", "binomial", "mpi-allreduce"])
def test_allreduce_with_compute_waits_for_every_rank(exact_setup, name):
    """Per rank: each rank enters when its computation is done, so an iteration lasts at least
    the slowest worker plus one message and at most the slowest plus the free-compute time."""
    setup, factors = exact_setup
    c = setup.cluster
    comp = c.share_time * factors
    free = so.iteration_times(name, setup, np.zeros_like(factors))
    got = so.iteration_times(name, setup, factors)
    assert np.all(got >= comp.max(axis=1) + c.message_time * (1 - 1e-12) / 2)
    assert np.all(got <= comp.max(axis=1) + free + 1e-12)
    # a straggler late by far more than the whole all-reduce sets the end alone
    late = factors.copy()
    late[:, 5] = 1e3
    tail = so.iteration_times(name, setup, late) - c.share_time * 1e3
    assert np.all(tail > 0) and np.all(tail <= free[0] + 1e-9)


def test_tree_candidates_include_binary_trees():
    cands = so.tree_candidates(10_000, 1)
    assert (2, 12) in cands and (99, 2) in cands and (10_000, 1) in cands
    assert all(n_tree_workers(n, L) <= 10_000 and n >= 2 for n, L in cands)
    assert (2, 13) not in cands  # 2 + ... + 2^13 = 16382 > 10,000
    assert so.tree_candidates(3, 1) == [(2, 1), (3, 1)]


def test_tuning_is_one_rule_on_the_pilot_draw():
    """Every tuned parameter is the grid's least time to target on the pilot draw."""
    setup = so.Shootout(ClusterModel(n_workers=12, family="pareto", shape=1.5), max_iter=60)
    factors = so._pilot_factors(setup)
    pilot = setup.with_max_iter(factors.shape[0])
    times = {}
    for S in (0, 1, 2, 3):  # the S grid at N = 12: 0, 1, 2 and ceil(f N) of S_FRACTIONS
        lay = {"shares": np.full(12, S + 1.0), "need": 12 - S, "decoder": "mds", "S": S}
        run = so._run_exact(pilot, so.SCHEMES["gc"], lay, factors, 0)
        times[S] = so._projected_time(run, setup.target)
    assert 0 in times and so.SCHEMES["gc"].layout(setup)["S"] == min(times, key=times.get)
    assert "S=" in so.chosen_parameters(setup, "gc")
    assert "tree (" in so.chosen_parameters(setup, "cr")
