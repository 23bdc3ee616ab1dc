"""DSAG on the simulated clock (Section V), its special cases, load balancing (Section VI)
and the artificial scenario of Section VII-B."""

import math

import numpy as np
import pytest

from codedlib.experiments.dsag import (
    artificial_model,
    artificial_slowdown,
    fig8_convergence,
    logistic_problem,
    mean_time_to_gap,
    pca_problem,
    pca_projection,
)
from codedlib.latency.gamma_model import GammaLatencyModel
from codedlib.problems import PCA
from codedlib.schemes.dsag import (
    LatencyProfiler,
    LoadBalancerConfig,
    balance_objective,
    contribution,
    optimize_subpartitions,
    simulate_coded_bound,
    simulate_dsag,
)


def _model(N, seed=0, cv=0.2):
    rng = np.random.default_rng(seed)
    return GammaLatencyModel.from_cv(
        rng.uniform(1e-3, 2e-3, N), rng.uniform(0.5, 1.5, N), comm_cv=0.3, comp_cv=cv
    )


def _gd(problem, theta0, eta, n_iterations, projection=lambda v: v):
    theta, out = projection(theta0.copy()), []
    for _ in range(n_iterations):
        theta = projection(theta - eta * problem.gradient(theta))
        out.append(theta)
    return out


@pytest.mark.parametrize("method", ["dsag", "sag", "sgd", "gd"])
@pytest.mark.parametrize("kind", ["pca", "logistic"])
def test_w_equals_n_one_subpartition_is_gd(method, kind):
    N = 7
    if kind == "pca":
        problem = pca_problem(n_samples=200, dim=12, k=2, rng=1)
        projection, eta = pca_projection(problem), 0.9
    else:
        problem = logistic_problem(n_samples=200, dim=5, rng=1)
        projection, eta = (lambda v: v), 0.25
    theta0 = projection(problem.initial_point(np.random.default_rng(2)))
    run = simulate_dsag(
        problem,
        _model(N),
        N,
        1,
        eta,
        method=method,
        n_iterations=15,
        projection=projection,
        theta0=theta0,
        rng=3,
    )
    expected = _gd(problem, theta0, eta, 15, projection)
    for got, want in zip(run.thetas, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    assert (run.history.n_fresh == N).all() and (run.history.coverage == 1.0).all()


def test_sgd_uses_only_this_iterations_results():
    # w = N, p = 2: iteration t uses the k-th half of every worker's data only (eq. 5 order)
    N, p = 4, 2
    problem = logistic_problem(n_samples=40, dim=3, rng=0)
    theta0 = np.zeros(problem.dim)
    run = simulate_dsag(
        problem, _model(N), N, p, 0.25, method="sgd", n_iterations=4, theta0=theta0, rng=0
    )
    theta = theta0.copy()
    for t in range(4):
        k = t % p
        ranges = [(10 * i + 5 * k, 10 * i + 5 * k + 5) for i in range(N)]
        g = sum(problem.partial_gradient(theta, a, b) for a, b in ranges) / 20
        theta = theta - 0.25 * g
        np.testing.assert_allclose(run.thetas[t], theta, rtol=1e-12)


def test_sag_discards_stale_and_dsag_uses_them():
    N = 10
    problem = logistic_problem(n_samples=400, dim=4, rng=0)
    slow = artificial_slowdown(N, strength=3.0, recover_after=np.inf)
    kwargs = {"n_iterations": 60, "slowdown": slow, "rng": 5}
    dsag = simulate_dsag(problem, _model(N, cv=0.05), 3, 4, 0.25, method="dsag", **kwargs)
    sag = simulate_dsag(problem, _model(N, cv=0.05), 3, 4, 0.25, method="sag", **kwargs)
    assert sag.history.n_stale.sum() == 0
    assert dsag.history.n_stale.sum() > 0
    # stale results complete the cache: DSAG covers all data, SAG only the fast workers'
    assert dsag.history.coverage.iloc[-1] == 1.0
    assert sag.history.coverage.iloc[-1] < 1.0
    assert (dsag.history.n_fresh >= 3).all()
    # identical latencies (same seed), hence identical clocks
    np.testing.assert_allclose(dsag.history.time, sag.history.time)


def test_margin_collects_more_results():
    N = 20
    problem = logistic_problem(n_samples=400, dim=4, rng=0)
    model = GammaLatencyModel.from_cv(np.full(N, 1e-4), np.full(N, 1.0), 0.1, 0.01)
    tight = simulate_dsag(problem, model, 5, 2, 0.25, margin=0.0, n_iterations=30, rng=1)
    loose = simulate_dsag(problem, model, 5, 2, 0.25, margin=0.02, n_iterations=30, rng=1)
    assert (tight.history.n_fresh == 5).all()
    assert loose.history.n_fresh.mean() > 5


def test_coded_bound_latency_and_iterates():
    N, rate = 10, 0.8
    problem = logistic_problem(n_samples=200, dim=3, rng=0)
    model = GammaLatencyModel.from_cv(
        np.full(N, 1e-3), np.linspace(1.0, 2.0, N), comm_cv=1e-4, comp_cv=1e-4
    )
    theta0 = np.zeros(problem.dim)
    run = simulate_coded_bound(problem, model, rate, 1.0, n_iterations=5, theta0=theta0, rng=0)
    needed = math.ceil(rate * N)  # the ceil(rN)-th fastest, computation scaled by 1/r
    per_iteration = np.sort(1e-3 + np.linspace(1.0, 2.0, N) / rate)[needed - 1]
    np.testing.assert_allclose(np.diff(run.history.time, prepend=0.0), per_iteration, rtol=1e-3)
    for got, want in zip(run.thetas, _gd(problem, theta0, 1.0, 5), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)


# ---------------------------------------------------------------- load balancing (Section VI)
def test_contribution_definition():
    # h(p) = sum_i u_i n_i / (p_i n)
    assert contribution([1.0, 0.5], [2, 4], [10, 10]) == pytest.approx(0.5 * 0.5 + 0.5 * 0.125)


def test_optimizer_equalises_latency_and_keeps_contribution():
    N = 8
    comp_full = np.array([1.0, 1.0, 1.0, 1.0, 1.5, 1.5, 2.0, 2.0])
    comm = np.full(N, 1e-3)
    n_local = np.full(N, 1000)
    p0 = np.full(N, 20)
    for w in (N, 4):
        p_new, info = optimize_subpartitions(
            p0,
            n_local,
            comm,
            comm**2 * 0.01,
            comp_full,
            (0.05 * comp_full) ** 2,
            w,
            rng=0,
            replicas=4,
        )
        assert balance_objective(p_new, comm, comp_full) < 0.9 * balance_objective(
            p0, comm, comp_full
        )
        assert info["h"] >= 0.99 * info["h_min"]
        # slower workers get fewer samples per task (more subpartitions)
        assert p_new[6] > p_new[0] and p_new[4] > p_new[0]
        assert np.all((p_new >= 1) & (p_new <= n_local))


def test_optimizer_w_equals_n_contribution_is_exact():
    # with w = N every worker is fresh every iteration: u_i = 1 and h(p) = mean(1/p_i)
    N = 5
    comp_full = np.linspace(1.0, 2.0, N)
    p_new, info = optimize_subpartitions(
        np.full(N, 10),
        np.full(N, 100),
        np.full(N, 1e-3),
        np.full(N, 1e-9),
        comp_full,
        (0.01 * comp_full) ** 2,
        N,
        rng=0,
    )
    assert info["h_min"] == pytest.approx(0.1)
    assert info["h"] == pytest.approx(np.mean(1.0 / p_new))
    assert info["h"] >= 0.099


def test_profiler_window_and_normalisation():
    prof = LatencyProfiler(2, window=1.0)
    for t in range(10):
        prof.record(0.1 * t, 0, 0.01, 0.5, load=0.5)  # full-load equivalent 1.0
        prof.record(0.1 * t, 1, 0.02, 0.25 + 0.01 * (t % 2), load=0.25)
    assert prof.statistics(now=0.9, min_samples=20) is None
    stats = prof.statistics(now=0.9)
    np.testing.assert_allclose(stats[0], [0.01, 0.02])
    np.testing.assert_allclose(stats[2], [1.0, 1.02], rtol=0.01)
    # old recordings drop out of the window
    prof.record(2.5, 0, 0.03, 1.0, load=0.5)
    prof.record(2.6, 0, 0.03, 1.0, load=0.5)
    prof.record(2.6, 1, 0.03, 1.0, load=0.5)
    prof.record(2.7, 1, 0.03, 1.0, load=0.5)
    np.testing.assert_allclose(prof.statistics(now=3.0)[2], [2.0, 2.0])
    with pytest.raises(ValueError, match="non-negative"):
        prof.record(0.0, 0, -1.0, 1.0, 1.0)


def test_load_balanced_run_repartitions_and_converges():
    N = 8
    problem = logistic_problem(n_samples=1600, dim=4, rng=0)
    rng = np.random.default_rng(0)
    model = GammaLatencyModel.from_cv(np.full(N, 1e-4), rng.uniform(0.5, 2.0, N), 0.2, 0.05)
    lb = LoadBalancerConfig(interval=0.05, window=0.5)
    run = simulate_dsag(problem, model, 4, 20, 0.25, n_iterations=400, load_balancer=lb, rng=1)
    assert len(run.repartitions) > 0
    tasks = run.tasks
    assert (tasks.stop > tasks.start).all()
    # coverage never exceeds the data; the cache is rebuilt after evictions
    assert (run.history.coverage <= 1.0).all() and run.history.coverage.iloc[-1] == 1.0
    opt = problem.loss(problem.optimum())
    assert problem.loss(run.theta) - opt < 1e-6


# ---------------------------------------------------------------- Section VII-B, Fig. 8
def test_artificial_scenario_dsag_converges_sag_stalls():
    methods = [
        ("SAG w=10", "sag", 10, False),
        ("SAG w=49", "sag", 49, False),
        ("DSAG w=10", "dsag", 10, False),
    ]
    df = fig8_convergence(
        kind="pca", n_samples=980, n_subpartitions=10, time_limit=60.0, methods=methods, seed=0
    )
    times = mean_time_to_gap(df, gaps=(1e-8,))
    final = df.groupby("method").gap.min()
    assert final["DSAG w=10"] <= 1e-8
    assert final["SAG w=10"] > 1e-4  # stalls: the slow workers' data never enter
    assert list(times.columns) == [1e-8, "final_gap"]  # the gaps themselves label the columns
    assert times.loc["DSAG w=10", 1e-8] < times.loc["SAG w=49", 1e-8]


def test_artificial_slowdown_factors():
    f = artificial_slowdown(49)
    before, after = f(0.5, 0), f(1.5, 100)
    np.testing.assert_allclose(before, 1 + 0.4 * np.arange(1, 50) / 49)
    np.testing.assert_allclose(after[:39], before[:39])
    np.testing.assert_allclose(after[39:], 1.0)
    m = artificial_model("pca", 49, rng=0)
    assert 0.02 < m.mean_latency(1 / 100).min() < m.mean_latency(1 / 100).max() < 0.031


# ---------------------------------------------------------------- bad inputs
def test_bad_inputs():
    problem = logistic_problem(n_samples=50, dim=3, rng=0)
    model = _model(5)
    with pytest.raises(ValueError, match="w must satisfy 1 <= w <= 5"):
        simulate_dsag(problem, model, 6, 1, 0.1)
    with pytest.raises(ValueError, match="w must satisfy"):
        simulate_dsag(problem, model, 0, 1, 0.1)
    with pytest.raises(ValueError, match="n_subpartitions must satisfy"):
        simulate_dsag(problem, model, 2, 11, 0.1)
    with pytest.raises(ValueError, match="eta must satisfy"):
        simulate_dsag(problem, model, 2, 1, 0.0)
    with pytest.raises(ValueError, match="method must be one of"):
        simulate_dsag(problem, model, 2, 1, 0.1, method="adam")
    with pytest.raises(ValueError, match="method='gd' needs"):
        simulate_dsag(problem, model, 2, 1, 0.1, method="gd")
    with pytest.raises(ValueError, match="at least one sample per worker"):
        simulate_dsag(logistic_problem(n_samples=3, dim=2), model, 2, 1, 0.1)
    with pytest.raises(ValueError, match="at least one row"):
        PCA(np.zeros((0, 3)), 1)
    with pytest.raises(ValueError, match="comp_mean must be positive"):
        GammaLatencyModel([1e-3], [1e-8], [-0.1], [1e-4])
    with pytest.raises(ValueError, match="rate must satisfy"):
        simulate_coded_bound(problem, model, 1.5)
    with pytest.raises(ValueError, match="w must satisfy"):
        optimize_subpartitions([2, 2], [10, 10], [1, 1], [1, 1], [1, 1], [1, 1], 3)
    with pytest.raises(ValueError, match="p must satisfy"):
        optimize_subpartitions([0, 2], [10, 10], [1, 1], [1, 1], [1, 1], [1, 1], 1)
    with pytest.raises(ValueError, match="kind must be"):
        fig8_convergence(kind="svm")


def test_load_balancer_delay_postpones_repartitioning():
    N = 6
    problem = logistic_problem(n_samples=1200, dim=3, rng=0)
    model = GammaLatencyModel.from_cv(np.full(N, 1e-4), np.linspace(0.5, 2.0, N), 0.2, 0.05)
    first = {}
    for delay in (0.0, 0.3):
        lb = LoadBalancerConfig(interval=0.05, window=0.5, delay=delay)
        run = simulate_dsag(problem, model, N, 20, 0.25, n_iterations=200, load_balancer=lb, rng=2)
        first[delay] = min(t for t, *_ in run.repartitions)
    assert first[0.3] >= first[0.0] + 0.3


# ------------------------------------------------------------------ coordinator semantics
def _latencies_of(run, n_iterations, n_workers):
    """The task latencies a run drew, as ``(iteration, worker)``: tasks it never finished get a
    latency past the end of the run (they cannot matter to the iterations simulated)."""
    lat = np.full((n_iterations, n_workers), 1e6)
    tasks = run.tasks
    lat[tasks.iteration.to_numpy(), tasks.worker.to_numpy()] = (
        tasks.compute_time + tasks.comm_time
    ).to_numpy()
    return lat


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method", ["dsag", "sag", "sgd"])
def test_simulator_follows_the_reference_rules_event_for_event(seed, method):
    """Default semantics: every iteration's end time and fresh set equal those of the port of the
    authors' coordinator rules (CodedComputing.jl's step!) on the very latencies the run drew."""
    from codedlib.latency.event_driven import simulate_event_driven_reference

    rng = np.random.default_rng(seed)
    N, T = int(rng.integers(4, 12)), 40
    w = int(rng.integers(1, N))
    problem = logistic_problem(n_samples=40 * N, dim=3, rng=0)
    model = GammaLatencyModel.from_cv(
        rng.uniform(1e-3, 2e-3, N), rng.uniform(0.5, 2.0, N), 0.3, 0.3
    )
    run = simulate_dsag(
        problem, model, w, 2, 0.25, method=method, margin=0.3, n_iterations=T, rng=seed
    )
    ref = simulate_event_driven_reference(_latencies_of(run, T, N), w, margin=0.3)
    np.testing.assert_allclose(run.history.time.to_numpy(), ref.iteration_end[0], rtol=1e-12)
    fresh = np.zeros((T, N), dtype=bool)
    mine = run.tasks[run.tasks.fresh]
    fresh[mine.iteration.to_numpy(), mine.worker.to_numpy()] = True
    np.testing.assert_array_equal(fresh, ref.fresh[0])


def test_deadline_semantics_differ_from_the_reference_and_match_the_deadline_simulator():
    """``semantics="deadline"`` (our MPI coordinator) ends each iteration at the full deadline and
    restarts late workers at once; with a wide margin the two rules give different clocks."""
    from codedlib.latency.event_driven import simulate_event_driven

    N, T, w = 10, 40, 4
    problem = logistic_problem(n_samples=400, dim=3, rng=0)
    model = _model(N, cv=0.3)
    runs = {
        s: simulate_dsag(problem, model, w, 2, 0.25, margin=0.3, n_iterations=T, rng=3, semantics=s)
        for s in ("reference", "deadline")
    }
    lat = _latencies_of(runs["deadline"], T, N)
    ends = simulate_event_driven(lat, w, margin=0.3, semantics="deadline").iteration_end[0]
    np.testing.assert_allclose(runs["deadline"].history.time.to_numpy(), ends, rtol=1e-12)
    assert runs["deadline"].history.time.iloc[-1] != pytest.approx(
        runs["reference"].history.time.iloc[-1]
    )
    with pytest.raises(ValueError, match="semantics"):
        simulate_dsag(problem, model, w, 2, 0.25, n_iterations=2, semantics="paper")


def test_coordinator_policy_is_the_one_definition_of_the_rules():
    """Section V-A's rules as one record: the window, the late-worker rule per semantics, and
    which results enter the cache per method (DSAG: all; SAG: fresh only)."""
    from codedlib.runtime.dsag import DSAGCoordinator
    from codedlib.schemes.dsag import CoordinatorPolicy, GradientCache

    ref = CoordinatorPolicy(3, 0.5)
    ddl = CoordinatorPolicy(3, 0.5, semantics="deadline")
    assert ref.window_end(3.0, 1.0) == ddl.window_end(3.0, 1.0) == 4.0
    assert ref.restarts_late_worker(2) and not ref.restarts_late_worker(3)
    assert ddl.restarts_late_worker(3)
    assert ref.iteration_end(4.0, 3.5) == 3.5 and ddl.iteration_end(4.0, 3.5) == 4.0
    for method, stale_enters in (("dsag", True), ("sag", False)):
        cache = GradientCache(10, shape=(2,))
        policy = CoordinatorPolicy(3, method=method)
        assert policy.absorb(cache, 0, 5, 2, np.ones(2), fresh=True)
        assert policy.absorb(cache, 5, 10, 1, np.ones(2), fresh=False) is stale_enters
    assert "CoordinatorPolicy" in DSAGCoordinator.setup.__code__.co_names
    for bad, match in (
        (dict(w=0), "w"),
        (dict(w=2, margin=-1.0), "margin"),
        (dict(w=2, semantics="paper"), "semantics"),
        (dict(w=2, method="adam"), "method"),
    ):
        with pytest.raises(ValueError, match=match):
            CoordinatorPolicy(**bad)
