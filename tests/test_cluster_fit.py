"""fit_cluster: a ClusterModel fitted to a latency trace (DSAG Section VI-A).

Round trips draw a synthetic trace from a known cluster (fixed seeds) and check the fit recovers
it within tolerances derived below; the shipped traces must fit to finite parameters; bad input
raises ValueError / TypeError naming the argument.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import polygamma

from codedlib.cluster import ClusterModel, Workload
from codedlib.cluster_fit import ClusterFit, fit_cluster, synthetic_trace
from codedlib.latency.traces import TRACE_COLUMNS, list_traces, read_trace, trace_path
from codedlib.network import Network

N, T, H = 6, 2000, 0.4  # 6 workers x 2000 iterations = 12000 samples, slowdown 1 + 0.4 i / N
SHAPES = {"shifted_exponential": 0.5, "pareto": 3.0, "gamma": 0.5}


def _cv(family, shape):
    return ClusterModel(n_workers=1, family=family, shape=shape).cv


def _shape_tolerance(family, shape):
    """Four standard errors of the ML shape.

    Each worker's factors are normalised by its sample mean, off by a relative error of
    sd ``s = cv / sqrt(T)``; ``d = 4 s`` bounds it. Shifted exponential: ``v = 1 - min X`` moves
    by ``(1 - v) d`` (plus the minimum of ``n`` exponentials, ``v / n``). Pareto: the ML index
    sits on the support's edge ``x_m = (xi - 1) / xi = min X``, so ``xi`` moves by
    ``dxi/dx_m * x_m d = xi^2 x_m d``. Gamma (interior ML): Fisher information with the mean
    known, ``I(k) = trigamma(k) - 1/k`` per sample, ``se(cv) = se(k) k^(-3/2) / 2``.
    """
    n = N * T
    d = 4 * _cv(family, shape) / math.sqrt(T)
    if family == "shifted_exponential":
        return (1 - shape) * d + 4 * shape / n
    if family == "pareto":
        return shape**2 * (shape - 1) / shape * d
    k = 1 / shape**2
    se_k = 1 / math.sqrt(n * (float(polygamma(1, k)) - 1 / k))
    return 4 * se_k * 0.5 * k**-1.5


def _heterogeneity_tolerance(family, shape):
    """Four standard errors of ``h = slope / intercept`` of the least-squares line through the
    per-worker means ``b (1 + h u_k)(1 + e_k)``, ``u_k = k / N``, ``sd(e_k) = cv / sqrt(T)``
    (delta method, errors bounded by the slowest worker's): ``Var h ~ (1 + h)^2 sd^2
    ((1 + h u_bar)^2 / S_uu + h^2 / N)``."""
    u = np.arange(1, N + 1) / N
    s_uu = float(((u - u.mean()) ** 2).sum())
    sd = _cv(family, shape) / math.sqrt(T)
    se = (1 + H) * sd * math.sqrt((1 + H * u.mean()) ** 2 / s_uu + H**2 / N)
    return 4 * se


@pytest.mark.parametrize("family", list(SHAPES))
def test_round_trip_recovers_family_shape_and_heterogeneity(family):
    shape = SHAPES[family]
    true = ClusterModel(n_workers=N, family=family, shape=shape, heterogeneity=H)
    trace = synthetic_trace(true, T, rng=2024)
    assert list(trace.columns) == TRACE_COLUMNS
    fit = fit_cluster(trace)
    assert isinstance(fit, ClusterFit)
    c = fit.cluster
    assert c.family == family
    assert max(fit.loglik, key=fit.loglik.get) == family
    assert abs(c.shape - shape) < _shape_tolerance(family, shape)
    assert abs(c.heterogeneity - H) < _heterogeneity_tolerance(family, shape)
    assert c.n_workers == N
    assert fit.worker_order == tuple(range(N))  # adjacent means ~3 sd apart at these sizes
    # base share time: the intercept's relative sd is about (1+h) sd sqrt(1/N + u^2/S_uu) < 3 sd
    assert abs(c.share_time / true.share_time - 1) < 12 * _cv(family, shape) / math.sqrt(T)
    assert c.burst_factor == 1.0
    # constant comm_time: the message time is exact, and so is the network's time for `dim`
    assert fit.message_time == pytest.approx(true.message_time, rel=1e-12)
    assert c.message_time == pytest.approx(true.message_time, rel=1e-12)


def test_worker_order_follows_the_means_not_the_ids():
    true = ClusterModel(n_workers=4, family="gamma", shape=0.2, heterogeneity=1.0)
    trace = synthetic_trace(true, 300, rng=5)
    trace["worker"] = trace["worker"].map({0: 30, 1: 10, 2: 20, 3: 0})
    fit = fit_cluster(trace)
    assert fit.worker_order == (30, 10, 20, 0)


def test_shares_and_given_family():
    true = ClusterModel(n_workers=4, family="gamma", shape=0.5, heterogeneity=0.2)
    fit = fit_cluster(synthetic_trace(true, 500, rng=1, shares=3.0), shares=3.0, family="pareto")
    assert fit.cluster.family == "pareto"  # imposed, though gamma fits better
    assert fit.loglik["gamma"] > fit.loglik["pareto"]
    assert fit.cluster.share_time == pytest.approx(true.share_time, rel=0.1)
    how = fit.summary().set_index("parameter")["how"]
    assert how["family"] == "assumed" and how["shape"] == "fitted"


def test_bursts_recovered():
    """burst_factor 2, enter 0.05, exit 0.1 (a third of the time in a burst). Over 4 x 2000
    iterations about T N pi p_exit ~ 270 bursts start and end, so se(p) ~ p / sqrt(270): the
    tolerances are 5 se (misclassified iterations of the HMM cost a little more than 4)."""
    true = ClusterModel(
        n_workers=4,
        family="gamma",
        shape=0.3,
        heterogeneity=0.2,
        burst_factor=2.0,
        burst_enter=0.05,
        burst_exit=0.1,
    )
    fit = fit_cluster(synthetic_trace(true, 2000, rng=7))
    c = fit.cluster
    episodes = 2000 * 4 * true.burst_probability * true.burst_exit
    assert fit.burst_autocorrelation > 3 / math.sqrt(4 * 1999)
    assert abs(c.burst_factor - 2.0) < 0.1
    assert abs(c.burst_enter - 0.05) < 5 * 0.05 / math.sqrt(episodes)
    assert abs(c.burst_exit - 0.1) < 5 * 0.1 / math.sqrt(episodes)
    assert c.family == "gamma"
    assert abs(c.shape - 0.3) < 0.05
    assert abs(c.heterogeneity - 0.2) < 0.1
    how = fit.summary().set_index("parameter")["how"]
    assert how["burst_exit"] == "fitted"


@pytest.mark.parametrize("family", list(SHAPES))
def test_no_bursts_when_absent(family):
    true = ClusterModel(n_workers=6, family=family, shape=SHAPES[family], heterogeneity=0.4)
    fit = fit_cluster(synthetic_trace(true, 1000, rng=11))
    assert fit.cluster.burst_factor == 1.0 and not fit.cluster.bursty
    assert fit.burst_autocorrelation < 3 / math.sqrt(6 * 999)
    assert fit.summary().set_index("parameter").loc["burst_enter", "how"] == "assumed"


@pytest.mark.parametrize("name", list_traces())
def test_real_traces_fit_to_finite_parameters(name):
    fit = fit_cluster(trace_path(name), name=name)
    c = fit.cluster
    df = read_trace(trace_path(name))
    assert c.n_workers == df["worker"].nunique() and c.name == name
    values = [c.shape, c.heterogeneity, c.share_time, c.burst_factor, c.burst_enter]
    values += [c.burst_exit, fit.message_time, c.network.bandwidth, c.network.latency]
    values += [fit.burst_autocorrelation, *fit.loglik.values()]
    assert all(math.isfinite(v) for v in values)
    assert sorted(fit.worker_order) == sorted(df["worker"].unique().tolist())
    assert c.network.vector_time(c.workload.dim) == pytest.approx(fit.message_time)
    assert set(fit.summary()["how"]) == {"fitted", "assumed"}
    assert fit.notes and all(isinstance(n, str) for n in fit.notes)


def test_real_bursts_found_only_in_the_bursty_dsag_trace():
    # the shipped recordings (injected Markov bursts factor 3 in one, none in the other)
    assert fit_cluster(trace_path("dsag-N12-w6-bursts")).cluster.burst_factor > 1.5
    assert fit_cluster(trace_path("dsag-N12-w6-steady")).cluster.burst_factor == 1.0


def test_dataframe_and_path_give_the_same_fit():
    path = trace_path("umw-N12-gamma-hetero")
    a, b = fit_cluster(path), fit_cluster(read_trace(path))
    assert a.cluster == b.cluster and a.loglik == b.loglik


def test_workload_sets_flop_time_not_times():
    trace = synthetic_trace(ClusterModel(n_workers=3), 50, rng=0)
    a = fit_cluster(trace)
    b = fit_cluster(trace, workload=Workload(dim=50, rows=200))
    assert a.cluster.share_time == pytest.approx(b.cluster.share_time)
    assert a.cluster.message_time == pytest.approx(b.cluster.message_time)
    flops_ratio = Workload().share_flops / Workload(dim=50, rows=200).share_flops
    assert b.cluster.worker_flop_time == pytest.approx(a.cluster.worker_flop_time * flops_ratio)


def _trace():
    return synthetic_trace(ClusterModel(n_workers=3), 10, rng=0)


@pytest.mark.parametrize(
    "change, kwargs, error, word",
    [
        (lambda d: d.drop(columns="comm_time"), {}, ValueError, "comm_time"),
        (lambda d: d.drop(columns="worker"), {}, ValueError, "worker"),
        (lambda d: d[d.worker == 0], {}, ValueError, "2 workers"),
        (lambda d: d[d.iteration < 4], {}, ValueError, "5 rows per worker"),
        (lambda d: d.assign(compute_time=d.compute_time * 0), {}, ValueError, "compute_time"),
        (lambda d: d.assign(comm_time=-d.comm_time), {}, ValueError, "comm_time"),
        (lambda d: d.assign(compute_time=np.nan), {}, ValueError, "compute_time"),
        (lambda d: d.assign(compute_time="slow"), {}, TypeError, "compute_time"),
        (lambda d: d.to_numpy(), {}, TypeError, "trace"),
        (lambda d: d, {"family": "weibull"}, ValueError, "family"),
        (lambda d: d, {"family": 3}, TypeError, "family"),
        (lambda d: d, {"shares": 0}, ValueError, "shares"),
        (lambda d: d, {"shares": "1"}, TypeError, "shares"),
        (lambda d: d, {"workload": 1000}, TypeError, "workload"),
        (lambda d: d, {"name": 1}, TypeError, "name"),
        (lambda d: d.assign(wall_clock=np.nan), {}, ValueError, "wall_clock"),
        (lambda d: d.assign(wall_clock=-d.wall_clock), {}, ValueError, "wall_clock"),
        (lambda d: d.assign(worker=d.worker.where(d.index != 3)), {}, ValueError, "worker"),
    ],
)
def test_bad_input(change, kwargs, error, word):
    with pytest.raises(error, match=word):
        fit_cluster(change(_trace()), **kwargs)


def test_bad_input_names_allowed_families():
    with pytest.raises(ValueError, match="shifted_exponential"):
        fit_cluster(_trace(), family="weibull")


def test_synthetic_trace_bad_input():
    with pytest.raises(TypeError, match="cluster"):
        synthetic_trace(Network(), 10)
    with pytest.raises(ValueError, match="n_iterations"):
        synthetic_trace(ClusterModel(), 0)
    with pytest.raises(TypeError, match="rng"):
        synthetic_trace(ClusterModel(), 3, rng="seed")
