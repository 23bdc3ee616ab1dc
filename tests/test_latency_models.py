"""Delay models: parameters, moments vs samples, clusters and bursty workers (issue 2, item 5)."""

import numpy as np
import pytest
from scipy import stats

from codedlib.latency.models import (
    HeterogeneousCluster,
    MarkovBursts,
    codedreduce_compute_time,
    gamma_from_moments,
    pareto,
    sample_distribution,
    shifted_exponential,
)


def _mean_within(samples, mean, var, sigmas=4.0):
    stderr = np.sqrt(var / samples.shape[0])
    return np.all(np.abs(samples.mean(axis=0) - mean) < sigmas * stderr)


# ---------------------------------------------------------------- single-worker models


def test_shifted_exponential_parameters():
    d = shifted_exponential(2.0, 4.0)
    assert d.mean() == pytest.approx(2.25)
    assert d.var() == pytest.approx(1 / 16)
    assert d.cdf(2.0) == 0.0
    assert d.cdf(2.5) == pytest.approx(1 - np.exp(-4 * 0.5))


def test_codedreduce_eq6_and_appendix_conventions():
    # eq. (6): shift a d_i, rate mu / a
    a, mu, d_i = 5e-5, 2e4, 400  # a mu = 1 as in the paper's experiments
    d6 = codedreduce_compute_time(d_i, a, mu)
    t = a * d_i + 3e-5
    assert d6.cdf(t) == pytest.approx(1 - np.exp(-(mu / a) * (t - a * d_i)))
    assert d6.mean() == pytest.approx(a * d_i + a / mu)
    # appendix (proof of Theorem 2): rate mu / d_i
    dap = codedreduce_compute_time(d_i, a, mu, rate_convention="appendix")
    assert dap.mean() == pytest.approx(a * d_i + d_i / mu)
    assert dap.support()[0] == pytest.approx(a * d_i)
    with pytest.raises(ValueError, match="rate_convention"):
        codedreduce_compute_time(d_i, a, mu, rate_convention="other")


def test_pareto_eq16():
    d = pareto(0.5, 3.0)
    t = np.array([0.5, 1.0, 4.0])
    np.testing.assert_allclose(d.cdf(t), 1 - (0.5 / t) ** 3)
    assert d.mean() == pytest.approx(3 * 0.5 / 2)
    assert np.isinf(pareto(1.0, 0.8).mean())


def test_gamma_from_moments():
    d = gamma_from_moments(3.0, 0.5)
    assert d.mean() == pytest.approx(3.0)
    assert d.var() == pytest.approx(0.5)
    assert d.kwds["a"] == pytest.approx(18.0)  # shape e^2 / v (DSAG footnote 14)
    assert d.kwds["scale"] == pytest.approx(0.5 / 3)


@pytest.mark.parametrize(
    "dist",
    [
        shifted_exponential(1.0, 0.5),
        pareto(1.0, 4.5),
        gamma_from_moments(2.0, 0.3),
        codedreduce_compute_time(100, 0.01, 2.0),
    ],
)
def test_model_moments_match_samples(dist):
    x = dist.rvs(size=200_000, random_state=np.random.default_rng(0))
    assert abs(x.mean() - dist.mean()) < 4 * np.sqrt(dist.var() / x.size)
    # sample variance standard error needs the 4th moment; use a loose relative check
    assert x.var() == pytest.approx(dist.var(), rel=0.05)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: shifted_exponential(-1.0, 1.0), r"shift must satisfy 0.0 <= shift, got shift=-1"),
        (lambda: shifted_exponential(0.0, 0.0), r"rate must satisfy 0.0 < rate, got rate=0"),
        (lambda: codedreduce_compute_time(0, 1.0, 1.0), r"n_points must satisfy 1 <= n_points"),
        (lambda: codedreduce_compute_time(5, -1.0, 1.0), r"a must satisfy 0.0 < a, got a=-1"),
        (lambda: codedreduce_compute_time(5, 1.0, 0.0), r"mu must satisfy"),
        (lambda: pareto(-1.0, 2.0), r"t0 must satisfy 0.0 < t0, got t0=-1"),
        (lambda: pareto(1.0, 0.0), r"xi must satisfy 0.0 < xi, got xi=0"),
        (lambda: pareto(1.0, np.nan), r"xi must be finite"),
        (lambda: gamma_from_moments(-1.0, 1.0), r"mean must satisfy 0.0 < mean"),
        (lambda: gamma_from_moments(1.0, 0.0), r"var must satisfy 0.0 < var, got var=0"),
        (lambda: HeterogeneousCluster([]), r"at least one"),
        (lambda: HeterogeneousCluster(pareto(1, 2)), r"sequence of frozen distributions"),
        (lambda: HeterogeneousCluster([pareto(1, 2), 3.0]), r"dists\[1\] must be a frozen"),
        (
            lambda: HeterogeneousCluster.from_gamma_moments([1, 2], [1, 2, 3]),
            r"variances must have shape",
        ),
        (
            lambda: HeterogeneousCluster.identical(pareto(1, 2), 0),
            r"n_workers must satisfy 1 <= n_workers",
        ),
        (lambda: MarkovBursts(pareto(1, 3), 0.1, 0.2, 1.5), r"n_workers must be given"),
        (
            lambda: MarkovBursts(pareto(1, 3), 0.0, 0.2, 1.5, n_workers=3),
            r"p_enter must satisfy 0.0 < p_enter <= 1.0",
        ),
        (
            lambda: MarkovBursts(pareto(1, 3), 0.1, 1.2, 1.5, n_workers=3),
            r"p_exit must satisfy .*p_exit=1.2",
        ),
        (
            lambda: MarkovBursts(pareto(1, 3), 0.1, 0.2, -2, n_workers=3),
            r"factor must satisfy 0.0 < factor",
        ),
        (
            lambda: MarkovBursts(
                HeterogeneousCluster([pareto(1, 3)] * 2), 0.1, 0.2, 2, n_workers=3
            ),
            r"n_workers must equal",
        ),
    ],
)
def test_bad_parameters_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ---------------------------------------------------------------- heterogeneous clusters


def _mixed_cluster():
    return HeterogeneousCluster(
        [
            shifted_exponential(1.0, 2.0),
            pareto(1.0, 5.0),
            gamma_from_moments(2.0, 0.5),
            shifted_exponential(0.0, 1.0),
            gamma_from_moments(1.0, 0.1),
            stats.uniform(0.0, 2.0),
            pareto(0.5, 4.0),
        ]
    )


def test_cluster_moments_vs_samples():
    cluster = _mixed_cluster()
    assert cluster.n_workers == 7
    x = cluster.sample(100_000, rng=3)
    assert x.shape == (100_000, 7)
    assert _mean_within(x, cluster.means(), cluster.variances())
    np.testing.assert_allclose(x.var(axis=0), cluster.variances(), rtol=0.06)


def test_cluster_columns_follow_their_own_distribution():
    cluster = _mixed_cluster()
    x = cluster.sample(20_000, rng=4)
    for i, dist in enumerate(cluster.dists):
        assert stats.kstest(x[:, i], dist.cdf).pvalue > 1e-4


def test_cluster_sampling_reproducible_and_grouped():
    cluster = _mixed_cluster()
    np.testing.assert_array_equal(cluster.sample(50, rng=9), cluster.sample(50, rng=9))
    groups, singles = cluster._groups
    assert len(groups) == 4 and singles == []  # expon, pareto, gamma, uniform


def test_cluster_cdfs_shape_and_values():
    cluster = _mixed_cluster()
    t = np.array([[0.5, 1.5], [2.0, 3.0]])
    c = cluster.cdfs(t)
    assert c.shape == (2, 2, 7)
    for i, dist in enumerate(cluster.dists):
        np.testing.assert_allclose(c[..., i], dist.cdf(t))
    np.testing.assert_allclose(cluster.sfs(t), 1 - c, atol=1e-15)


def test_cluster_from_constructors():
    c = HeterogeneousCluster.identical(gamma_from_moments(1, 1), 5)
    assert c.n_workers == 5


# ---------------------------------------------------------------- bursty workers (DSAG III-B)


def test_markov_bursts_stationary_moments_vs_samples():
    base = gamma_from_moments(1.0, 0.04)
    bursts = MarkovBursts(base, p_enter=0.02, p_exit=0.1, factor=1.12, n_workers=20)
    assert bursts.burst_probability == pytest.approx(0.02 / 0.12)
    assert bursts.mean_burst_length == pytest.approx(10.0)
    path = bursts.sample_path(20_000, rng=1)
    assert path.latency.shape == (20_000, 20) and path.in_burst.shape == (20_000, 20)
    # states are autocorrelated, so compare with a loose tolerance averaged over workers
    assert path.in_burst.mean() == pytest.approx(bursts.burst_probability, rel=0.05)
    assert path.latency.mean() == pytest.approx(bursts.stationary_means()[0], rel=0.005)
    # inside a burst the mean is multiplied by the factor
    assert path.latency[path.in_burst].mean() == pytest.approx(1.12, rel=0.01)
    assert path.latency[~path.in_burst].mean() == pytest.approx(1.0, rel=0.01)


def test_markov_bursts_burst_lengths_geometric():
    bursts = MarkovBursts(
        shifted_exponential(0, 1), p_enter=0.05, p_exit=0.25, factor=2.0, n_workers=50
    )
    states = bursts.sample_states(4000, rng=2)
    # burst run lengths are geometric with mean 1 / p_exit = 4
    lengths = []
    for col in states.T:
        edges = np.diff(np.concatenate([[0], col.astype(int), [0]]))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        lengths.extend((ends - starts)[1:-1] if len(starts) > 2 else [])
    assert np.mean(lengths) == pytest.approx(4.0, rel=0.05)


def test_markov_bursts_reproducible_heterogeneous():
    cluster = HeterogeneousCluster.from_gamma_moments([1.0, 2.0, 3.0], [0.1, 0.2, 0.3])
    bursts = MarkovBursts(cluster, 0.1, 0.3, 1.5)
    a, b = bursts.sample_path(100, rng=5), bursts.sample_path(100, rng=5)
    np.testing.assert_array_equal(a.latency, b.latency)
    np.testing.assert_allclose(bursts.stationary_means(), cluster.means() * (1 + 0.25 * 0.5))
    with pytest.raises(ValueError, match="n_iterations must satisfy 1 <= n_iterations"):
        bursts.sample_path(0)


@pytest.mark.parametrize(
    "dist",
    [
        shifted_exponential(0.3, 2.0),
        pareto(2.0, 1.5),
        gamma_from_moments(2.0, 3.0),
        stats.norm(1, 2),
    ],
)
def test_sample_distribution_fast_path_follows_distribution(dist):
    x = sample_distribution(dist, (200, 100), rng=11)
    assert x.shape == (200, 100)
    assert stats.kstest(x.ravel(), dist.cdf).pvalue > 1e-4
    np.testing.assert_array_equal(x, sample_distribution(dist, (200, 100), rng=11))
