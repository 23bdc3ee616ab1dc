"""LAGC schemes on one simulated clock (codedlib.schemes.lagc): Remark 2 identities,
convergence, hand counts, simulated times against eq. 21/22/28, selection bound eq. 25."""

import math

import numpy as np
import pytest

from codedlib.problems import LeastSquares
from codedlib.schemes import lagc as sc
from codedlib.theory import lagc as th


def _problem(n_workers=6, per=20, dim=5, heterogeneity=20.0, seed=0):
    rng = np.random.default_rng(seed)
    scales = heterogeneity ** (np.arange(n_workers) / max(n_workers - 1, 1))
    X = np.vstack([rng.standard_normal((per, dim)) * np.sqrt(s) for s in scales])
    y = X @ rng.standard_normal(dim) + 0.1 * rng.standard_normal(X.shape[0])
    return LeastSquares(X, y, lam=0.01)


@pytest.fixture(scope="module")
def prob():
    return _problem()


# ------------------------------------------------------------------ Remark 2 identities
@pytest.mark.parametrize("delay", [th.exponential_delay(1.0), th.pareto_delay(1.0, 2.0)])
@pytest.mark.parametrize("r", [2, 3, 6])
def test_lagc_one_group_no_laziness_is_gc(prob, delay, r):
    delays = sc.DelayStream(delay, 6, replicas=3, rng=7)
    gc = sc.run_gc(prob, 6, r, delays=delays, max_iter=60, keep_iterates=True)
    lagc = sc.run_lagc(prob, 6, r, 1, xi=0.0, delays=delays, max_iter=60, keep_iterates=True)
    np.testing.assert_array_equal(gc.iterates, lagc.iterates)
    np.testing.assert_array_equal(gc.iteration_times, lagc.iteration_times)
    for field in ("downloads", "uploads", "computation"):
        np.testing.assert_array_equal(getattr(gc, field), getattr(lagc, field))
    assert [s.tolist() for s in gc.survivors] == [d[0].tolist() for d in lagc.survivors]


@pytest.mark.parametrize("r", [1, 2, 4])
@pytest.mark.parametrize("xi, history", [(0.05, 10), (0.2, 3), (0.0, 1)])
def test_lagc_n_groups_is_lag(prob, r, xi, history):
    delays = sc.DelayStream(th.exponential_delay(1.0), 6, replicas=2, rng=1)
    alpha = 1.0 / (prob.n_samples * prob.smoothness())  # explicit, so any xi is allowed
    lag = sc.run_lag_ps(
        prob,
        6,
        xi=xi,
        history=history,
        delays=delays,
        stepsize=alpha,
        max_iter=150,
        keep_iterates=True,
    )
    lagc = sc.run_lagc(
        prob,
        6,
        r,
        6,
        xi=xi,
        history=history,
        delays=delays,
        stepsize=alpha,
        max_iter=150,
        keep_iterates=True,
    )
    np.testing.assert_array_equal(lag.iterates, lagc.iterates)
    np.testing.assert_array_equal(lag.selected, lagc.selected)
    np.testing.assert_array_equal(lag.iteration_times, lagc.iteration_times)
    for field in ("downloads", "uploads", "computation"):
        np.testing.assert_array_equal(getattr(lag, field), getattr(lagc, field))
    if xi > 0:
        assert lag.n_selected.mean() < 6  # laziness actually skipped workers


def test_g_gd_equals_gd_for_singleton_groups(prob):
    delays = sc.DelayStream(th.exponential_delay(1.0), 6, rng=2)
    gd = sc.run_gd(prob, 6, delays=delays, max_iter=40, keep_iterates=True)
    ggd = sc.run_g_gd(prob, 6, 1, delays=delays, max_iter=40, keep_iterates=True)
    np.testing.assert_allclose(gd.iterates, ggd.iterates, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(gd.iteration_times, ggd.iteration_times)


# ------------------------------------------------------------------ convergence
@pytest.mark.parametrize(
    "scheme, groups",
    [("g-lag", 3), ("g-lag", 6), ("lagc", 2), ("lagc", 3), ("lag", None), ("gc", None)],
)
def test_reaches_gd_optimum(prob, scheme, groups):
    theta_star = prob.optimum()
    run = sc.run_scheme(
        scheme,
        prob,
        6,
        2,
        groups,
        delay=th.exponential_delay(1.0),
        xi=0.05,
        history=10,
        max_iter=20_000,
        gap_tol=1e-10,
        rng=0,
    )
    assert run.gap[-1] <= 1e-8
    gd = sc.run_gd(prob, 6, delay=th.exponential_delay(1.0), max_iter=20_000, gap_tol=1e-10)
    np.testing.assert_allclose(run.theta, gd.theta, atol=1e-4)
    np.testing.assert_allclose(run.theta, theta_star, atol=1e-4)


# ------------------------------------------------------------------ hand counts N=3, r=2
def test_hand_counts_n3_r2():
    p = _problem(n_workers=3, per=10, dim=3)
    kw = {"delay": th.exponential_delay(1.0), "max_iter": 25, "rng": 0}
    gd = sc.run_gd(p, 3, **kw)
    assert gd.downloads.tolist() == [3] * 25 and gd.uploads.tolist() == [3] * 25
    assert gd.computation.tolist() == [3] * 25
    gc = sc.run_gc(p, 3, 2, **kw)  # Fig. 3: 3 downloads, 2 fastest upload, 3 x 2 gradients
    assert gc.downloads.tolist() == [3] * 25 and gc.uploads.tolist() == [2] * 25
    assert gc.computation.tolist() == [6] * 25
    assert gc.metrics()["communication"].iloc[-1] == 25 * 5
    lag = sc.run_lag_ps(p, 3, xi=0.08, history=2, stepsize=1 / (30 * p.smoothness()), **kw)
    m = lag.n_selected
    assert (m < 3).any() and m[0] == 3  # Fig. 4: some iterations contact fewer workers
    np.testing.assert_array_equal(lag.downloads, m)
    np.testing.assert_array_equal(lag.uploads, m)
    np.testing.assert_array_equal(lag.computation, m)
    assert lag.metrics()["communication"].iloc[-1] == 2 * m.sum()
    assert lag.metrics()["computation"].iloc[-1] == m.sum()


def test_hand_counts_g_lag_n4_r2():
    """N=4, r=2, G=2 (G-LAG): a selected group costs 2 downloads, 1 upload (its fastest
    worker) and 2 workers x 2 batches = 4 fine-partition gradients."""
    p = _problem(n_workers=4, per=10, dim=3)
    run = sc.run_g_lag(
        p,
        4,
        2,
        xi=0.08,
        history=2,
        stepsize=1 / (40 * p.smoothness()),
        delay=th.exponential_delay(1.0),
        max_iter=30,
        rng=0,
    )
    m = run.n_selected
    np.testing.assert_array_equal(run.downloads, 2 * m)
    np.testing.assert_array_equal(run.uploads, m)
    np.testing.assert_array_equal(run.computation, 4 * m)


# ------------------------------------------------------------------ times vs eq. 21/22/28
def _mean_and_se(values):
    values = np.asarray(values, dtype=float).ravel()
    return values.mean(), values.std(ddof=1) / math.sqrt(values.size)


@pytest.mark.parametrize("delay", [th.exponential_delay(2.0), th.pareto_delay(1.0, 2.5)])
def test_simulated_iteration_times_match_closed_forms(prob, delay):
    kw = {"delay": delay, "replicas": 300, "max_iter": 40, "rng": 11}
    cases = [
        (sc.run_gd(prob, 6, **kw), th.expected_iteration_time("gd", 6, delay=delay)),
        (sc.run_gc(prob, 6, 3, **kw), th.expected_iteration_time("gc", 6, 3, delay=delay)),
        (sc.run_g_gd(prob, 6, 2, **kw), th.expected_iteration_time("g-gd", 6, 2, delay=delay)),
    ]
    for run, expected in cases:
        mean, se = _mean_and_se(run.iteration_times)
        assert abs(mean - expected) < 4 * se, run.scheme


@pytest.mark.parametrize("delay", [th.exponential_delay(1.0), th.pareto_delay(1.0, 3.0)])
def test_lazy_iteration_times_match_eq28_given_selection(prob, delay):
    """Given the selected groups |G^k|, the iteration time is the max of |G^k| group times."""
    for scheme, groups in [("lag", None), ("lagc", 3), ("g-lag", 3)]:
        run = sc.run_scheme(
            scheme,
            prob,
            6,
            2,
            groups,
            delay=delay,
            xi=0.05,
            history=10,
            replicas=200,
            max_iter=60,
            rng=5,
        )
        assert run.n_selected.min() < run.selected.shape[1]
        layout = run.layout
        cache = {}
        expected = []
        for m in run.n_selected:
            if m not in cache:
                cache[m] = th.expected_iteration_time(
                    "lagc", 6, layout.redundancy, layout.n_groups, delay, n_selected=int(m)
                )
            expected.append(cache[m])
        centred = run.iteration_times - np.array(expected)[None, :]
        mean, se = _mean_and_se(centred)
        assert abs(mean) < 4 * se, scheme


# ------------------------------------------------------------------ eq. 25/26 bound
@pytest.mark.parametrize("groups", [6, 3])
def test_selection_counts_obey_eq25(groups):
    p = _problem(heterogeneity=200.0, seed=3)
    xi, history = 0.06, 8
    run = sc.run_lagc(
        p,
        6,
        2,
        groups,
        xi=xi,
        history=history,
        delay=th.exponential_delay(1.0),
        max_iter=400,
        rng=0,
    )
    bounds = np.array([0, *np.cumsum([20] * 6)])
    n_g = 6 // groups
    L_units = np.array(
        [
            (bounds[(g + 1) * n_g] - bounds[g * n_g])
            * p.smoothness(bounds[g * n_g], bounds[(g + 1) * n_g])
            for g in range(groups)
        ]
    )
    periods = th.selection_period(L_units, xi, history, run.stepsize)
    assert periods.max() >= 1  # the bound is not vacuous for this data
    K = run.n_iterations
    counts = run.selected.sum(axis=0)
    assert np.all(counts <= np.ceil(K / (periods + 1)))
    frac_bound = th.selection_fraction_bound(L_units, xi, history, run.stepsize)
    assert run.n_selected.mean() / groups <= frac_bound + 1.0 / K


# ------------------------------------------------------------------ complexities, errors
def test_complexity_matches_metrics(prob):
    run = sc.run_g_lag(
        prob,
        6,
        2,
        xi=0.05,
        history=10,
        delay=th.exponential_delay(1.0),
        replicas=5,
        max_iter=5000,
        gap_tol=1e-9,
        rng=3,
    )
    c = run.complexity(1e-6)
    df = run.metrics()
    k = c["iterations"]
    assert df["gap"].iloc[k] <= 1e-6 < df["gap"].iloc[k - 1]
    assert c["communication"] == df["communication"].iloc[k]
    assert c["computation"] == df["computation"].iloc[k]
    assert c["time"] == pytest.approx(df["time"].iloc[k])
    assert math.isnan(run.complexity(1e-30)["time"])


def test_same_seed_same_run(prob):
    a = sc.run_lagc(
        prob,
        6,
        2,
        2,
        xi=0.05,
        history=5,
        delay=th.pareto_delay(1, 2),
        max_iter=30,
        replicas=2,
        rng=4,
    )
    b = sc.run_lagc(
        prob,
        6,
        2,
        2,
        xi=0.05,
        history=5,
        delay=th.pareto_delay(1, 2),
        max_iter=30,
        replicas=2,
        rng=4,
    )
    np.testing.assert_array_equal(a.iteration_times, b.iteration_times)
    np.testing.assert_array_equal(a.gap, b.gap)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_groups": 4}, "n_groups must divide"),
        ({"redundancy": 7}, "redundancy must satisfy"),
        ({"xi": -0.1}, "xi must satisfy"),
        ({"history": 0}, "history must satisfy"),
        ({"xi": 0.5}, "xi must satisfy"),  # D xi >= 1 with the default stepsize
    ],
)
def test_scheme_errors(prob, kwargs, match):
    args = {"redundancy": 2, "n_groups": 3, "xi": 0.05, "history": 5}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        sc.run_lagc(
            prob,
            6,
            args.pop("redundancy"),
            args.pop("n_groups"),
            delay=th.exponential_delay(1.0),
            max_iter=5,
            **args,
        )
    if "xi" in kwargs and kwargs["xi"] < 0:
        with pytest.raises(ValueError, match=match):
            sc.run_lag_ps(prob, 6, xi=-0.1, history=5, delay=th.exponential_delay(1.0))


def test_delay_stream_is_shared_across_lengths():
    ds = sc.DelayStream(th.exponential_delay(1.0), 4, replicas=2, rng=9)
    late = ds.draws(300).copy()
    early = ds.draws(3).copy()
    ds2 = sc.DelayStream(th.exponential_delay(1.0), 4, replicas=2, rng=9)
    np.testing.assert_array_equal(ds2.draws(3), early)
    np.testing.assert_array_equal(ds2.draws(300), late)
    with pytest.raises(ValueError, match="delay must be"):
        sc.DelayStream("exp", 4)


# ------------------------------------------------------------------ GC inside groups, Remark 1
@pytest.mark.parametrize("n, stored", [(3, 2), (4, 3), (6, 2), (6, 4)])
def test_group_decoding_every_straggler_pattern(n, stored):
    """The PS recovers the exact group gradient from every set of N/G - r + 1 fastest."""
    import itertools

    rng = np.random.default_rng(n + stored)
    grads = rng.standard_normal((n, 4))
    decoder = sc._Decoder(n, stored)
    for survivors in itertools.combinations(range(n), n - stored + 1):
        np.testing.assert_allclose(
            decoder.decode(grads, np.array(survivors)), grads.sum(axis=0), rtol=1e-10, atol=1e-10
        )


def test_remark1_original_lag_recursion(prob):
    """Eq. (15)-(16): the PS-side estimate (14) equals LAG's recursion
    ∇^k = ∇^{k-1} + Σ_{m in M^k} (∇L_m(θ^k) - ∇L_m(θ̂_m^{k-1}))."""
    run = sc.run_lag_ps(
        prob,
        6,
        xi=0.05,
        history=10,
        delay=th.exponential_delay(1.0),
        max_iter=80,
        keep_iterates=True,
    )
    bounds = np.array([0, *np.cumsum([20] * 6)])

    def g(m, theta):
        return prob.partial_gradient(theta, bounds[m], bounds[m + 1])

    theta_hat = [run.iterates[0]] * 6
    grad = sum(g(m, run.iterates[0]) for m in range(6))
    for k in range(run.n_iterations):
        theta = run.iterates[k]
        if k > 0:
            for m in np.flatnonzero(run.selected[k]):
                grad = grad + g(m, theta) - g(m, theta_hat[m])
        for m in np.flatnonzero(run.selected[k]):
            theta_hat[m] = theta
        np.testing.assert_allclose(
            (theta - run.iterates[k + 1]) / run.stepsize, grad, rtol=1e-9, atol=1e-9
        )


def test_heterogeneous_workers_eq28(prob):
    """Non-identical workers (HeterogeneousCluster): G-GD's simulated time matches eq. (28)."""
    from codedlib.latency.models import HeterogeneousCluster

    cluster = HeterogeneousCluster(
        [th.exponential_delay(m) for m in (0.5, 1.0, 1.5, 2.0, 0.7, 3.0)]
    )
    run = sc.run_g_gd(prob, 6, 2, delay=cluster, replicas=400, max_iter=30, rng=8)
    expected = th.expected_iteration_time("g-gd", 6, 2, delay=cluster)
    mean, se = _mean_and_se(run.iteration_times)
    assert abs(mean - expected) < 4 * se
    identical = th.expected_iteration_time("g-gd", 6, 2, delay=th.exponential_delay(1.5))
    assert abs(expected - identical) > 10 * se  # heterogeneity matters
