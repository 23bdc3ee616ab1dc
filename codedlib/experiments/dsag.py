"""Experiments of the DSAG paper (Severinson et al.): one function per figure.

Functions return plain data for ``codedlib.plots.dsag`` (tidy snake_case DataFrames or small
namespaces; display labels live in the plots). Without the paper's Azure/AWS/eX3 traces the
latency figures (1-6) use a synthetic ground truth, a heterogeneous gamma cluster with Markov
bursts (Section III) recorded in the ``data/traces`` format and fitted as a recorded trace
would be (:func:`codedlib.latency.gamma_model.fit_gamma_model`); real traces take the same
path (:func:`load_traces`). The ``*_measure`` functions, :func:`fig7_load_balancing` and
:func:`fig8_convergence` take the seed first and run one seed for
:func:`codedlib.replicate.over_seeds`; the summaries next to them give the per-seed numbers
the claims table turns into intervals. :func:`trace_dsag_predictions` checks a recorded DSAG
run against models of decreasing fidelity.

Reference: severinson2023dsag."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from codedlib._validation import RngLike, as_generator, check_frame, check_int, check_real
from codedlib.claims import Claim, mean_interval, ratio_interval, spec
from codedlib.latency.event_driven import (
    SEMANTICS,
    simulate_event_driven,
    simulate_event_driven_heapq,
)
from codedlib.latency.gamma_model import (
    GammaLatencyModel,
    burst_slowdown,
    fit_gamma_model,
    fit_line_through_origin,
    order_statistic_latency,
    without_queueing,
)
from codedlib.latency.models import MarkovBursts, linear_slowdown
from codedlib.problems import PCA, LogisticRegression, sparse_lowrank_binary, standardize
from codedlib.replicate import first_reach, over_seeds
from codedlib.schemes.dsag import (
    LoadBalancerConfig,
    gram_schmidt,
    simulate_coded_bound,
    simulate_dsag,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


# -- Latency model, traces (Figs. 1-6) -----------------------------------------------------
def cloud_model(
    n_workers: int = 72,
    comp_mean: float = 0.05,
    comm_mean: float = 2e-3,
    spread: float = 0.15,
    comp_cv: float = 0.1,
    rng: RngLike = None,
) -> GammaLatencyModel:
    """A heterogeneous 'cloud' cluster (Section III): worker i's mean latencies are the given
    means × U(1 - spread, 1 + spread), its computation cv ``comp_cv`` × U(0.5, 1.5), its
    communication cv 0.3 (Fig. 2 of the paper shows two Azure workers 14 % apart)."""
    n_workers = check_int("n_workers", n_workers, 1)
    spread = check_real("spread", spread, 0.0, 1.0, high_open=True)
    rng = as_generator(rng)
    zm = comp_mean * rng.uniform(1 - spread, 1 + spread, n_workers)
    ym = comm_mean * rng.uniform(1 - spread, 1 + spread, n_workers)
    zcv = comp_cv * rng.uniform(0.5, 1.5, n_workers)
    return GammaLatencyModel.from_cv(ym, zm, 0.3, zcv)


def record_trace(
    model: GammaLatencyModel,
    n_iterations: int,
    load: float = 1.0,
    bursts: ArrayLike | None = None,
    rng: RngLike = None,
) -> pd.DataFrame:
    """A w = N profiling trace of ``model`` in the ``data/traces`` columns, one row per
    (iteration, worker); ``fresh`` always True, ``wall_clock`` the iteration's end."""
    n_iterations = check_int("n_iterations", n_iterations, 1)
    rng = as_generator(rng)
    N = model.n_workers
    comm, comp = model.sample((n_iterations,), rng=rng, load=load, slowdown=bursts)
    end = np.cumsum((comm + comp).max(axis=1))
    it, wk = np.meshgrid(np.arange(n_iterations), np.arange(N), indexing="ij")
    return pd.DataFrame(
        {
            "iteration": it.ravel(),
            "worker": wk.ravel(),
            "compute_time": comp.ravel(),
            "comm_time": comm.ravel(),
            "fresh": True,
            "wall_clock": np.repeat(end, N),
        }
    )


def load_traces(directory: str | Path = "data/traces") -> dict[str, pd.DataFrame]:
    """Every ``*.csv`` trace in ``directory`` with rows and the ``worker``, ``compute_time``
    and ``comm_time`` columns (``#`` comment lines skipped)."""
    out = {}
    for f in sorted(Path(directory).glob("*.csv")):  # none if the directory does not exist
        df = pd.read_csv(f, comment="#")
        if {"worker", "compute_time", "comm_time"} <= set(df.columns) and len(df):
            out[f.stem] = df
    return out


def fig1_load_scaling(
    loads: Sequence[float] = (0.25, 0.5, 1.0, 2.0, 4.0),
    n_workers: int = 100,
    n_iterations: int = 200,
    rng: RngLike = None,
) -> SimpleNamespace:
    """Fig. 1: per-worker mean and variance of computation latency vs load c: fresh workers
    per load (as in the paper), the gamma model fitted to each trace, lines through the origin
    fitted to mean vs c and variance vs c² (Section VI-B's linearisation)."""
    rng = as_generator(rng)
    rows = []
    for load in loads:
        model = cloud_model(n_workers, rng=rng)
        fit = fit_gamma_model(record_trace(model, n_iterations, load=load, rng=rng))
        rows += [(load, i, fit.comp_mean[i], fit.comp_var[i]) for i in range(n_workers)]
    df = pd.DataFrame(rows, columns=["load", "worker", "mean", "var"])
    avg = df.groupby("load")[["mean", "var"]].mean().reset_index()
    return SimpleNamespace(
        workers=df,
        average=avg,
        mean_slope=fit_line_through_origin(df["load"], df["mean"]),
        var_slope=fit_line_through_origin(df["load"] ** 2, df["var"]),
    )


def fig3_cdfs(trace: pd.DataFrame, workers: Sequence[int] = (0, 1)) -> SimpleNamespace:
    """Figs. 2-3: two workers' per-iteration latency, empirical CDFs and fitted gammas."""
    from scipy import stats

    out = {}
    fit = fit_gamma_model(trace)
    ids = list(fit.workers)
    for w in workers:
        sub = trace[trace.worker == w]
        j = ids.index(w)
        out[w] = SimpleNamespace(
            trace=sub[["iteration", "comm_time", "compute_time"]].reset_index(drop=True),
            comp_fit=stats.gamma(fit.comp_shape[j], scale=fit.comp_scale[j]),
            mean_total=float(sub.comm_time.mean() + sub.compute_time.mean()),
        )
    a, b = (out[w].mean_total for w in workers)
    return SimpleNamespace(workers=out, slower_by=b / a - 1)


def fig4_bursts(
    n_workers: int = 36,
    n_iterations: int = 600,
    p_enter: float = 0.004,
    p_exit: float = 0.02,
    factor: float = 1.12,
    rng: RngLike = None,
) -> SimpleNamespace:
    """Fig. 4: computation latency of workers with Markov bursts (Section III-B): ×1.12 (the
    paper's ~12 %) for 1/p_exit = 50 iterations on average (the paper: at least one of 36 AWS
    workers in a burst in about 40 % of iterations)."""
    rng = as_generator(rng)
    model = cloud_model(n_workers, comp_cv=0.03, rng=rng)
    slow = burst_slowdown(model, n_iterations, p_enter, p_exit, factor, rng=rng)
    trace = record_trace(model, n_iterations, bursts=slow, rng=rng)
    in_burst = slow > 1
    return SimpleNamespace(
        trace=trace,
        in_burst=in_burst,
        any_burst_fraction=float(in_burst.any(axis=1).mean()),
    )


def fig5_measure(
    seed: int, n_workers: int = 72, n_iterations: int = 1000, replicas: int = 20_000
) -> pd.DataFrame:
    """Fig. 5 for one seed: mean latency of the w-th fastest of N = 72 workers (``w,
    recorded, heterogeneous, iid``) over a w = N trace of a fresh ground truth, and the Monte
    Carlo predictions (``replicas`` rounds, Section IV-A) of the per-worker gamma model fitted
    to it and of its i.i.d. version (global mean and variance)."""
    rng = as_generator(seed)
    truth = cloud_model(n_workers, spread=0.3, rng=rng)
    trace = record_trace(truth, n_iterations, rng=rng)
    totals = (trace.comm_time + trace.compute_time).to_numpy().reshape(n_iterations, n_workers)
    return _order_statistics(totals, fit_gamma_model(trace), replicas, rng)


def _order_statistics(totals, fit, replicas, rng) -> pd.DataFrame:
    """Fig. 5's columns: the mean w-th fastest of ``totals`` (iterations × workers) and the
    per-worker and i.i.d. models' Monte Carlo predictions of it."""
    ks = np.arange(1, totals.shape[1] + 1)
    return pd.DataFrame(
        {
            "w": ks,
            "recorded": np.sort(totals, axis=1).mean(axis=0),
            "heterogeneous": order_statistic_latency(fit, ks, replicas=replicas, rng=rng),
            "iid": order_statistic_latency(fit.iid(), ks, replicas=replicas, rng=rng),
        }
    )


def fig6_measure(
    seed: int,
    n_workers: int = 72,
    ws: Sequence[int] = (9, 72),
    n_iterations: int = 100,
    replicas: int = 200,
) -> pd.DataFrame:
    """Fig. 6 for one seed: cumulative latency over 100 iterations, w = 9 and 72 of N = 72.

    'Recorded': one run of the bursty ground truth through the heap-based simulator; the
    models are fitted to a separate 2000-iteration w = N trace: event-driven (Section IV-B,
    mean over ``replicas``) and order statistic (Section IV-A, t × the mean w-th fastest)."""
    rng = as_generator(seed)
    truth = cloud_model(n_workers, spread=0.3, rng=rng)
    bursts = (0.002, 0.02, 1.12)  # p_enter, p_exit, factor
    profile_slow = burst_slowdown(truth, 2000, *bursts, rng=rng)
    fit = fit_gamma_model(record_trace(truth, 2000, bursts=profile_slow, rng=rng))
    rows = []
    t = np.arange(1, n_iterations + 1)
    for w in ws:
        slow = burst_slowdown(truth, n_iterations, *bursts, rng=rng)
        comm, comp = truth.sample((n_iterations,), rng=rng, slowdown=slow)
        recorded = simulate_event_driven_heapq(comm + comp, w).iteration_end[0]
        lat = fit.sample_total((replicas, n_iterations), rng=rng)
        event = simulate_event_driven(lat, w).iteration_end.mean(axis=0)
        order = t * order_statistic_latency(fit, [w], replicas=20_000, rng=rng)[0]
        frame = dict(w=w, iteration=t, recorded=recorded, event_driven=event, order_statistic=order)
        rows.append(pd.DataFrame(frame))
    return pd.concat(rows, ignore_index=True)


# -- Load balancing (Fig. 7) ---------------------------------------------------------------
def fig7_load_balancing(
    rng: RngLike = None,
    n_workers: int = 8,
    n_iterations: int = 150,
    slow_at: int = 40,
    fast_at: int = 90,
) -> pd.DataFrame:
    """Fig. 7: per-worker latency of DSAG (w = N = 8, p = 20, step 0.9, small PCA problem) with
    and without the load balancer of Section VI on the same seed; after ``slow_at`` iterations 3
    random workers slow down by ×2, after ``fast_at`` another 3 speed up by ×2. One row
    per (run, task): :class:`codedlib.schemes.dsag.DSAGRun`'s task columns, ``latency``,
    ``run``, ``role`` and ``marks`` (the run's repartition iterations). The seed comes first,
    as :func:`codedlib.replicate.over_seeds` passes it."""
    rng = as_generator(rng)
    n = n_workers * 20 * 8
    data = sparse_lowrank_binary(n_samples=n, dim=20, rng=rng)
    problem = PCA(data.X, 2)
    model = cloud_model(n_workers, comp_mean=0.5, comm_mean=1e-3, spread=0.1, comp_cv=0.05, rng=rng)
    perm = rng.permutation(n_workers)
    slowed, sped = perm[:3], perm[3:6]
    role = np.full(n_workers, "other", dtype=object)
    role[slowed], role[sped] = "slowed", "sped up"

    def slowdown(time, iteration):  # noqa: ARG001 (the simulator calls slowdown(time, iteration))
        f = np.ones(n_workers)
        if iteration >= slow_at:
            f[slowed] = 2.0
        if iteration >= fast_at:
            f[sped] = 0.5
        return f

    seed = int(rng.integers(2**31))
    common = dict(n_iterations=n_iterations, slowdown=slowdown, projection=pca_projection(problem))
    frames = []
    for label, lb in (
        ("load-balanced", LoadBalancerConfig(interval=0.1, window=1.0)),
        ("not balanced", None),
    ):
        run = simulate_dsag(
            problem, model, n_workers, 20, 0.9, load_balancer=lb, rng=seed, **common
        )
        t, ends = run.tasks, run.history.time.to_numpy()
        marks = tuple(sorted({int(np.searchsorted(ends, t)) + 1 for t, *_ in run.repartitions}))
        latency = t.comm_time + t.compute_time
        frames.append(
            t.assign(latency=latency, run=label, role=role[t.worker], marks=[marks] * len(t))
        )
    df = pd.concat(frames, ignore_index=True)
    df.attrs.update(slow_at=slow_at, fast_at=fast_at)
    return df


# -- Artificial scenario (Section VII-B, Fig. 8 top row) -----------------------------------
def artificial_model(
    kind: str = "pca", n_workers: int = 49, rng: RngLike = None, comp_cv: float = 0.05
) -> GammaLatencyModel:
    """eX3-like homogeneous cluster (Table I) before the artificial slowdown: computation
    2.2 s per worker's data for PCA (0.022 s per subpartition at p = 100), 0.018 s for logistic
    regression (1.8 ms at p = 10), communication 2-6e-5 s (PCA) and 0.2-3e-5 s (logistic);
    per-worker means within ±2 %; ``comp_cv`` (per task) is our choice (the paper gives none)."""
    rng = as_generator(rng)
    if kind == "pca":
        comm, comp = rng.uniform(2e-5, 6e-5, n_workers), 2.2
    elif kind == "logistic":
        comm, comp = rng.uniform(2e-6, 3e-5, n_workers), 0.018
    else:
        raise ValueError(f"kind must be 'pca' or 'logistic', got kind={kind!r}")
    comp = comp * rng.uniform(0.98, 1.02, n_workers)
    return GammaLatencyModel.from_cv(comm, comp, comm_cv=0.3, comp_cv=comp_cv)


def artificial_slowdown(
    n_workers: int = 49, strength: float = 0.4, recover_after: float = 1.0
) -> Callable[[float, int], np.ndarray]:
    """Section VII-B: worker i (1-based) is slowed by a factor ``1 + (i/N) * strength``;
    workers 40-49 return to normal after ``recover_after`` s."""
    base = linear_slowdown(n_workers, strength)
    recovered = base.copy()
    recovered[39:49] = 1.0

    def slowdown(time, iteration):  # noqa: ARG001 (the simulator calls slowdown(time, iteration))
        return recovered if time >= recover_after else base

    return slowdown


#: Table I, AWS rows: per-task latency ranges [s] at the paper's p (100 for PCA, 10 for logistic
#: regression): (communication low, high), (computation low, high).
AWS_TABLE_I = {
    "pca": ((1.5e-4, 1e-3), (1.3e-2, 1.6e-2), 100),
    "logistic": ((1e-4, 6e-4), (1.1e-3, 1.3e-3), 10),
}


def aws_model(
    kind: str = "pca", n_workers: int = 100, rng: RngLike = None, comp_cv: float = 0.1
) -> GammaLatencyModel:
    """An AWS-like stand-in for Section VII-C (N = 100 c5.xlarge workers): per-worker mean
    communication and per-task computation latency drawn uniformly in Table I's AWS ranges
    (a worker's data is ``p`` tasks at the paper's p); ``comp_cv`` is our choice (the paper:
    AWS is noisier than eX3, no number; the eX3 stand-in uses 0.05)."""
    if kind not in AWS_TABLE_I:
        raise ValueError(f"kind must be 'pca' or 'logistic', got kind={kind!r}")
    n_workers = check_int("n_workers", n_workers, 1)
    rng = as_generator(rng)
    (c_lo, c_hi), (z_lo, z_hi), p = AWS_TABLE_I[kind]
    comm = rng.uniform(c_lo, c_hi, n_workers)
    comp = rng.uniform(z_lo, z_hi, n_workers) * p
    return GammaLatencyModel.from_cv(comm, comp, comm_cv=0.3, comp_cv=comp_cv)


def static_spread(
    kind: str = "logistic",
    cluster: str = "aws",
    rng: RngLike = 0,
) -> float:
    """Max / min over the workers of the mean task latency of a Fig. 8 stand-in cluster (the
    static variation between workers, Section VII-C): :func:`aws_model` with N = 100, or
    :func:`artificial_model` with N = 49 and its slowdown ``1 + 0.4 i/N`` before recovery, at
    the paper's p (100 for PCA, 10 for logistic regression)."""
    p = 100 if kind == "pca" else 10
    if cluster == "aws":
        e = aws_model(kind, 100, rng=rng).mean_latency(1.0 / p)
    elif cluster == "ex3":
        m = artificial_model(kind, 49, rng=rng)
        e = m.comm_mean + m.comp_mean / p * artificial_slowdown(49)(0.0, 0)
    else:
        raise ValueError(f"cluster must be 'ex3' or 'aws', got cluster={cluster!r}")
    return float(e.max() / e.min())


def timed_bursts(
    n_workers: int,
    horizon: float,
    mean_duration: float = 60.0,
    busy_fraction: float = 0.0141,
    factor: float = 1.12,
    rng: RngLike = None,
) -> Callable[[float, int], np.ndarray]:
    """Bursts in wall-clock time (Section III-B, Fig. 4): each worker alternates exponential
    normal and burst periods (``factor`` times slower, ``mean_duration`` s on average, a share
    ``busy_fraction`` of the time; the first state drawn from that share). Defaults from Fig. 4
    (AWS, N = 36): about +12 % for about a minute, at least one of 36 workers in a burst in
    about 40 % of iterations, i.e. 1 - (1 - f)^36 = 0.4, f = 0.0141."""
    n_workers = check_int("n_workers", n_workers, 1)
    horizon = check_real("horizon", horizon, 0.0, low_open=True)
    mean_duration = check_real("mean_duration", mean_duration, 0.0, low_open=True)
    busy_fraction = check_real(
        "busy_fraction", busy_fraction, 0.0, 1.0, low_open=True, high_open=True
    )
    factor = check_real("factor", factor, 0.0, low_open=True)
    rng = as_generator(rng)
    mean_normal = mean_duration * (1 - busy_fraction) / busy_fraction
    switches = []  # per worker: times at which the state flips, and the state at time 0
    for _ in range(n_workers):
        state = bool(rng.random() < busy_fraction)
        first, t, flips = state, 0.0, []
        while t <= horizon:
            t += rng.exponential(mean_duration if state else mean_normal)
            flips.append(t)
            state = not state
        switches.append((first, flips))

    def slowdown(time, iteration):  # noqa: ARG001 (the simulator calls slowdown(time, iteration))
        out = np.ones(n_workers)
        for i, (first, flips) in enumerate(switches):
            if first ^ bool(bisect.bisect_right(flips, time) % 2):  # in a burst
                out[i] = factor
        return out

    return slowdown


def pca_problem(n_samples: int = 9800, dim: int = 100, k: int = 3, rng: RngLike = 0) -> PCA:
    """PCA (eq. 6) of the sparse binary low-rank stand-in for the 1000 Genomes matrix."""
    data = sparse_lowrank_binary(
        n_samples=n_samples, dim=dim, n_populations=4, density=0.1, rng=rng
    )
    return PCA(data.X, k)


def logistic_problem(
    n_samples: int = 9800, dim: int = 28, rng: RngLike = 0, correlation: float = 0.0
) -> LogisticRegression:
    """L2-regularised logistic regression on a HIGGS-like data set (Section VII; HIGGS is not
    shippable): ``dim`` Gaussian features (pairwise ``correlation`` through one shared factor:
    worse conditioned, more iterations), labels ±1 from a logistic model, features standardised
    plus an intercept, λ = 1/n as the paper sets for HIGGS."""
    correlation = check_real("correlation", correlation, low=0.0, high=1.0, high_open=True)
    rng = as_generator(rng)
    Z = rng.standard_normal((n_samples, dim))
    beta = rng.standard_normal(dim) / math.sqrt(dim)
    y = np.where(Z @ beta + rng.logistic(size=n_samples) > 0, 1.0, -1.0)
    if correlation > 0:
        shared = rng.standard_normal((n_samples, 1))
        Z = math.sqrt(1 - correlation) * Z + math.sqrt(correlation) * shared
    X = standardize(Z, intercept=True)
    return LogisticRegression(X, y, lam=1.0 / n_samples)


def pca_gap(problem: PCA) -> Callable[[np.ndarray], float]:
    """The PCA suboptimality gap of Fig. 8: explained variance ``tr(Vᵀ C V) / tr(C)`` of the
    top-k eigenvectors of the Gram matrix ``C = XᵀX`` minus that of the iterate ``V`` (whose
    columns are orthonormal after G), floored at 0. C is computed once."""
    gram = problem.X.T @ problem.X
    d, k = problem.X.shape[1], problem.k
    V_opt = np.linalg.eigh(gram)[1][:, ::-1][:, :k]  # top-k eigenvectors = optimum
    trace = np.trace(gram)
    best = float(np.sum(V_opt * (gram @ V_opt)) / trace)

    def gap(theta):
        V = np.asarray(theta).reshape(d, k)
        return max(best - float(np.sum(V * (gram @ V)) / trace), 0.0)

    return gap


def pca_projection(problem: PCA) -> Callable[[np.ndarray], np.ndarray]:
    """G(.) for PCA: Gram–Schmidt on θ reshaped to (d, k)."""
    d, k = problem.X.shape[1], problem.k

    def project(theta):
        return gram_schmidt(theta.reshape(d, k)).ravel()

    return project


def fig8_methods(n_workers: int = 49, w: int = 10) -> list[tuple[str, str, int, bool]]:
    """The methods of Fig. 8: (label, kind, w, load-balanced)."""
    return [
        ("GD", "gd", n_workers, False),
        ("coded (r=45/49)", "coded", n_workers, False),
        (f"SGD w={w}", "sgd", w, False),
        (f"SAG w={w}", "sag", w, False),
        (f"SAG w={n_workers}", "sag", n_workers, False),
        (f"DSAG w={w}", "dsag", w, False),
        (f"DSAG-LB w={w}", "dsag", w, True),
        (f"SAG-LB w={w}", "sag", w, True),
        (f"SGD-LB w={w}", "sgd", w, True),
    ]


def fig8_convergence(
    seed: int = 0,
    kind: str = "pca",
    *,
    n_workers: int = 49,
    w: int = 10,
    n_subpartitions: int | None = None,
    eta: float | None = None,
    time_limit: float | None = None,
    n_samples: int = 9800,
    dim: int | None = None,
    methods: Sequence[tuple[str, str, int, bool]] | None = None,
    margin: float = 0.02,
    comp_cv: float = 0.05,
    semantics: str = "reference",
    cluster: str = "ex3",
    correlation: float = 0.0,
    load_balancer: LoadBalancerConfig | None = None,
) -> pd.DataFrame:
    """Fig. 8: suboptimality gap vs time; ``cluster="ex3"``: the artificial scenario of
    Section VII-B (top row); ``"aws"``: Section VII-C on :func:`aws_model` with
    :func:`timed_bursts` (bottom row).

    Gap: explained variance to the top-k SVD (PCA), loss to the L-BFGS optimum (logistic).
    Defaults: step 1.0 for GD and coded, 0.9 (PCA) / 0.25 (logistic) for the stochastic methods;
    100 / 10 subpartitions; coded: rate 45/49. A run stops once its gap is below 1e-12 (the
    floating-point floor) and records about 300 points. Data from seed 0 (the same for every
    run, as in the paper); cluster, latencies and initial point from ``seed`` (first, as
    :func:`codedlib.replicate.over_seeds` passes it; the paper averages 5 runs)."""
    if kind == "pca":
        problem = pca_problem(n_samples=n_samples, dim=100 if dim is None else dim, rng=0)
        # explained-variance gap, equal to PCA.explained_variance's
        projection, gap = pca_projection(problem), pca_gap(problem)
        p_default, eta_default, limit_default = 100, 0.9, 60.0
        lb = LoadBalancerConfig(interval=1.0, window=3.0)
    elif kind == "logistic":
        problem = logistic_problem(
            n_samples=n_samples, dim=28 if dim is None else dim, rng=0, correlation=correlation
        )
        best, projection = problem.loss(problem.optimum()), None

        def gap(theta):
            return max(problem.loss(theta) - best, 0.0)

        p_default, eta_default, limit_default = 10, 0.25, 1.5
        lb = LoadBalancerConfig(interval=0.05, window=0.3)
    else:
        raise ValueError(f"kind must be 'pca' or 'logistic', got kind={kind!r}")
    rng = as_generator(seed)
    lb = lb if load_balancer is None else load_balancer
    p = p_default if n_subpartitions is None else n_subpartitions
    eta = eta_default if eta is None else eta
    time_limit = limit_default if time_limit is None else time_limit
    if cluster == "ex3":
        model = artificial_model(kind, n_workers, rng=rng, comp_cv=comp_cv)
        slowdown = artificial_slowdown(n_workers)
    elif cluster == "aws":
        model = aws_model(kind, n_workers, rng=rng, comp_cv=comp_cv)
        slowdown = timed_bursts(n_workers, time_limit, rng=rng)
    else:
        raise ValueError(f"cluster must be 'ex3' or 'aws', got cluster={cluster!r}")
    methods = fig8_methods(n_workers, w) if methods is None else methods
    theta0 = problem.initial_point(rng)
    if projection is not None:
        theta0 = projection(theta0)
    # the same clock, slowdown, start and recording for every method
    clock = dict(time_limit=time_limit, slowdown=slowdown, projection=projection, theta0=theta0)
    frames = []
    for label, method, mw, balanced in methods:
        run_seed = int(rng.integers(2**31))
        if method in ("gd", "coded"):
            per_iteration = float(model.mean_latency().max())
            n_it = int(time_limit / per_iteration * 0.9) + 2
        else:
            per_iteration = float(np.sort(model.mean_latency(1.0 / p))[mw - 1])
            n_it = int(time_limit / per_iteration) + 2
        gaps = []

        def stop(theta, gaps=gaps):
            gaps.append(gap(theta))
            return gaps[-1] <= 1e-12

        common = dict(clock, n_iterations=n_it, record_every=max(1, n_it // 300), rng=run_seed)
        if method == "coded":
            run = simulate_coded_bound(problem, model, 45 / 49, 1.0, callback=stop, **common)
        else:
            run = simulate_dsag(
                problem,
                model,
                mw,
                1 if method == "gd" else p,
                1.0 if method == "gd" else eta,
                method=method,
                margin=margin,
                load_balancer=lb if balanced else None,
                semantics=semantics,
                callback=stop,
                **common,
            )
        columns = ["method", "time", "iteration", "gap", "n_fresh", "total_subpartitions"]
        frames.append(run.history.assign(method=label, gap=gaps)[columns])
    df = pd.concat(frames, ignore_index=True)
    df.attrs.update(kind=kind, n_workers=n_workers, w=w, n_subpartitions=p, eta=eta)
    df.attrs.update(comp_cv=comp_cv, cluster=cluster, n_samples=problem.n_samples)
    df.attrs.update(n_features=problem.X.shape[1], time_limit=time_limit)
    return df


# -- Recorded traces (data/traces): the same checks on real measurements -------------------
def trace_order_statistics(
    trace: pd.DataFrame, replicas: int = 20_000, rng: RngLike = None
) -> pd.DataFrame | None:
    """Fig. 5 on a recorded w = N trace: per-iteration w-th fastest latency vs the models.

    Uses the iterations in which every worker delivered a fresh result."""
    fresh = trace[trace.fresh.astype(bool)] if "fresh" in trace else trace
    N = trace.worker.nunique()
    counts = fresh.groupby("iteration").worker.nunique()
    full = counts.index[counts == N]
    if len(full) < 5:
        return None
    sub = fresh[fresh.iteration.isin(full)].drop_duplicates(["iteration", "worker"])
    lat = (sub.compute_time + sub.comm_time).to_numpy()
    totals = lat[np.argsort(sub.iteration.to_numpy(), kind="stable")].reshape(len(full), N)
    return _order_statistics(totals, fit_gamma_model(trace), replicas, as_generator(rng))


#: The margin rule of ``codedlib.runtime``'s DSAG coordinator (it waits out the whole margin and
#: its workers start the newest task at once): what predictions of our own traces use.
OUR_COORDINATOR = "deadline"


def coordinator_semantics_difference(
    model: GammaLatencyModel,
    w: int,
    n_iterations: int = 30,
    margin: float = 0.02,
    load: float = 1.0,
    replicas: int = 200,
    rng: RngLike = None,
) -> pd.DataFrame:
    """The authors' margin-window rules (``reference``) and ours (``deadline``,
    :mod:`codedlib.latency.event_driven`) on ``replicas`` paired draws of ``n_iterations`` task
    latencies from ``model`` at ``load``."""
    n_iterations = check_int("n_iterations", n_iterations, 1)
    replicas = check_int("replicas", replicas, 1)
    lat = model.sample_total((replicas, n_iterations), rng=as_generator(rng), load=load)
    ref = simulate_event_driven(lat, w, margin=margin, semantics="reference")
    ddl = simulate_event_driven(lat, w, margin=margin, semantics="deadline")
    differs = (ref.fresh != ddl.fresh).any(axis=-1)
    return pd.DataFrame(
        {
            "total_reference": ref.iteration_end[:, -1],
            "total_deadline": ddl.iteration_end[:, -1],
            "relative_difference": ddl.iteration_end[:, -1] / ref.iteration_end[:, -1] - 1,
            "share_iterations_fresh_differs": differs.mean(axis=-1),
            "fresh_set_differs": differs.any(axis=-1),
        }
    )


def trace_cumulative_latency(
    trace: pd.DataFrame, margin: float = 0.02, replicas: int = 500, rng: RngLike = None
) -> pd.DataFrame | None:
    """Fig. 6 on a recorded w < N trace (e.g. a DSAG run): cumulative latency per iteration,
    recorded (:func:`_recorded_cumulative`) and predicted by the gamma model fitted to the
    trace with queue waits taken out (:func:`~codedlib.latency.gamma_model.without_queueing`):
    event-driven (Section IV-B, our ``"deadline"`` rules) and order statistic (IV-A)."""
    if "fresh" not in trace or trace.fresh.astype(bool).all():
        return None
    rng = as_generator(rng)
    fresh = trace[trace.fresh.astype(bool)]
    w = int(fresh.groupby("iteration").size().min())  # the fewest fresh results of an iteration
    recorded = _recorded_cumulative(trace)
    n_it = len(recorded)
    fit = fit_gamma_model(without_queueing(trace))
    lat = fit.sample_total((replicas, n_it), rng=rng)
    # our MPI coordinator waits out the whole margin and restarts late workers at once
    event = simulate_event_driven(
        lat, w, margin=margin, semantics=OUR_COORDINATOR
    ).iteration_end.mean(axis=0)
    t = np.arange(1, n_it + 1)
    order = t * order_statistic_latency(fit, [w], rng=rng)[0]
    frame = dict(w=w, iteration=t, recorded=recorded, event_driven=event, order_statistic=order)
    return pd.DataFrame(frame)


#: Balancer schedules of the load-balancing sweep: Fig. 8's (logistic) and one whose optimizer
#: takes the paper's 0.5 s per solution (Section VII-B: "about ... 0.5 seconds for the
#: load-balancer to produce a first solution" for logistic regression; ours otherwise takes none).
LB_SCHEDULES = {
    "every 0.05 s, no run time": LoadBalancerConfig(interval=0.05, window=0.3),
    "0.5 s per solution": LoadBalancerConfig(interval=0.05, window=0.3, delay=0.5),
}

#: Sizes of the load-balancing sweep (:func:`lb_gain_vs_task_noise`) per notebook mode: a
#: logistic stand-in with correlated features (0.2), which needs about 400 iterations (0.8 s)
#: to a gap of 1e-6 instead of Fig. 8's about 130 (0.25 s, less than the balancer's window).
#: Quick: one level, a smaller data set and a shorter clock (runs may stop short of the gap).
LB_SWEEP = {
    "quick": dict(comp_cvs=(0.02,), n_samples=980, correlation=0.2, time_limit=0.5),
    "faithful": dict(
        comp_cvs=(0.005, 0.01, 0.02, 0.05), n_samples=9800, correlation=0.2, time_limit=1.5
    ),
}


def _lb_gain_measure(seed, comp_cvs, runs, gap=1e-6, **kwargs) -> list[dict]:
    """One seed of :func:`lb_gain_vs_task_noise`: each (level, run)'s time to ``gap``."""
    rows = []
    for level, cv in enumerate(comp_cvs):
        for name, method, cfg in runs:
            sub = fig8_convergence(
                seed, "logistic", methods=[method], comp_cv=cv, load_balancer=cfg, **kwargs
            )
            hit = sub[sub.gap <= gap]
            end = hit.iloc[0] if len(hit) else sub.iloc[-1]
            rows.append(
                {
                    "level": level,
                    "comp_cv": cv,
                    "schedule": name,
                    "method": "DSAG-LB" if cfg is not None else "DSAG",
                    "time_to_gap": float(end.time) if len(hit) else np.nan,
                    "time_limit": float(sub.attrs["time_limit"]),
                    "iterations": int(end.iteration),
                    "n_fresh": float(sub[sub.time <= end.time].n_fresh.mean()),
                }
            )
    return rows


def lb_gain_vs_task_noise(
    comp_cvs: Sequence[float] = (0.01, 0.02, 0.05, 0.1),
    seeds: int | Iterable[int] = (0, 1, 2, 3, 4),
    gap: float = 1e-6,
    n_workers: int = 49,
    w: int = 10,
    schedules: Mapping[str, LoadBalancerConfig] | None = None,
    **kwargs,
) -> pd.DataFrame:
    """What sets the load-balancing gain (Section VI): per per-task ``comp_cv`` of the stand-in
    cluster, DSAG and DSAG-LB (one run per balancer schedule) on the same seeds
    (:func:`fig8_convergence`, logistic regression): per seed the time to ``gap`` and the mean
    fresh results per iteration up to then."""
    comp_cvs = [check_real("comp_cv", c, low=0.0, low_open=True) for c in comp_cvs]
    schedules = LB_SCHEDULES if schedules is None else schedules
    methods = {m[0]: m for m in fig8_methods(n_workers, w)}
    runs = [("", methods[f"DSAG w={w}"], None)] + [
        (name, methods[f"DSAG-LB w={w}"], cfg) for name, cfg in schedules.items()
    ]
    df = over_seeds(
        _lb_gain_measure,
        seeds,
        comp_cvs=comp_cvs,
        runs=runs,
        gap=gap,
        n_workers=n_workers,
        w=w,
        desc="task-noise sweep",
        **kwargs,
    )
    columns = ["comp_cv", "seed", "schedule", "method", "time_to_gap", "time_limit"]
    df = df.sort_values("level", kind="stable")  # a serial loop's order: level, then seed
    return df[columns + ["iterations", "n_fresh"]].reset_index(drop=True)


def lb_gain_table(sweep: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per ``(comp_cv, schedule)`` of :func:`lb_gain_vs_task_noise`: the paired ratio DSAG-LB /
    DSAG of the time to the gap (t-interval of the log ratio; runs that never reached it count
    at the time limit, ``censored``), seeds where balancing was slower, DSAG's iterations to
    the gap and both methods' mean fresh results per iteration."""
    plain = sweep[sweep.method == "DSAG"].set_index(["comp_cv", "seed"])
    rows = []
    for (cv, name), lb in sweep[sweep.method == "DSAG-LB"].groupby(
        ["comp_cv", "schedule"], sort=False
    ):
        lb = lb.set_index(["comp_cv", "seed"])
        base = plain.loc[lb.index]
        t_lb = lb.time_to_gap.fillna(lb.time_limit)
        t_base = base.time_to_gap.fillna(base.time_limit)
        r, lo, hi = ratio_interval(t_lb, t_base, level)
        rows.append(
            {
                "comp_cv": cv,
                "schedule": name,
                "LB / DSAG": r,
                "ci low": lo,
                "ci high": hi,
                "seeds": len(lb),
                "censored": int(lb.time_to_gap.isna().sum() + base.time_to_gap.isna().sum()),
                "LB slower in": int((t_lb > t_base).sum()),
                "DSAG iterations": float(base.iterations.mean()),
                "fresh, DSAG": float(base.n_fresh.mean()),
                "fresh, DSAG-LB": float(lb.n_fresh.mean()),
            }
        )
    return pd.DataFrame(rows)


def describe_lb_gain(table: pd.DataFrame, paper_range: tuple[float, float] = (0.6, 0.7)) -> dict:
    """The claims row of :func:`lb_gain_table`: ``ours`` (every ratio with its interval and
    seeds where balancing was slower, by schedule), ``verdict`` (``partly`` when some setting's
    interval meets ``paper_range`` and excludes 1, ``direction only`` when some interval is
    below 1 but none meets it, else ``not reproduced``) and ``reason`` naming both levers."""
    lo_p, hi_p = paper_range
    met = table[(table["ci low"] <= hi_p) & (table["ci high"] >= lo_p) & (table["ci high"] < 1)]
    best = table.loc[table["LB / DSAG"].idxmin()]
    ours = "LB / DSAG by balancer schedule and comp_cv: " + "; ".join(
        f"{name}: "
        + ", ".join(
            f"{t['LB / DSAG']:.2f} [{t['ci low']:.2f}, {t['ci high']:.2f}] at {t.comp_cv:g} "
            f"(slower in {t['LB slower in']} of {t.seeds}"
            + (f", {t.censored} runs censored at the time limit)" if t.censored else ")")
            for _, t in sub.iterrows()
        )
        for name, sub in table.groupby("schedule", sort=False)
    )
    below = (table["ci high"] < 1).any()
    verdict = "partly" if len(met) else "direction only" if below else "not reproduced"
    reason = (
        "two levers of our stand-in set the gain: the per-task noise comp_cv (chosen; the paper gives "
        "none) and the balancer's schedule; largest gain "
        f"{best['LB / DSAG']:.2f} [{best['ci low']:.2f}, {best['ci high']:.2f}] at comp_cv "
        f"{best.comp_cv:g} ({best.schedule}); the paper's range is met in {len(met)} of {len(table)} "
        "settings"
    )
    return dict(ours=ours, verdict=verdict, reason=reason)


def _semantics_measure(seed, kind="logistic", gap=1e-6, **kwargs) -> list[dict]:
    """One seed of Fig. 8's methods under both margin-window rules (same cluster, draws, start
    and data; :func:`fig8_convergence` with ``semantics`` = reference / deadline)."""
    return [
        {
            "method": label,
            "semantics": semantics,
            "time_to_gap": first_reach(sub.time, sub.gap, gap),
        }
        for semantics in SEMANTICS
        for label, sub in fig8_convergence(seed, kind, semantics=semantics, **kwargs).groupby(
            "method", sort=False
        )
    ]


def _sgd_floor_measure(seed, rows_per_subpartition, gap=1e-3, **kwargs) -> list[dict]:
    """One seed of :func:`sgd_gap_vs_subpartition_rows`."""
    out = []
    for level, r in enumerate(rows_per_subpartition):
        n_samples = r * kwargs["n_workers"] * kwargs["n_subpartitions"]
        df = fig8_convergence(seed, "pca", n_samples=n_samples, **kwargs)
        out += [
            {
                "level": level,
                "rows_per_subpartition": r,
                "n_samples": n_samples,
                "method": label.split(" ")[0],
                "time_to_gap": first_reach(sub.time, sub.gap, gap),
                "floor_gap": float(sub.gap[sub.time >= 0.75 * sub.time.max()].median()),
            }
            for label, sub in df.groupby("method", sort=False)
        ]
    return out


def sgd_gap_vs_subpartition_rows(
    rows_per_subpartition: Sequence[int] = (2, 8, 32),
    seeds: int | Iterable[int] = (0, 1, 2, 3, 4),
    gap: float = 1e-3,
    n_workers: int = 49,
    w: int = 10,
    n_subpartitions: int = 100,
    dim: int = 100,
    **kwargs,
) -> pd.DataFrame:
    """SGD's noise floor on PCA against the rows per subpartition (Section VII, Fig. 8): SGD
    uses only this iteration's w fresh subpartitions, so its floor falls with their size (the
    paper's hold ≈ 16,600 rows, our default stand-in 2). Per size the stand-in holds
    ``rows × N × p`` samples (same cluster and clock); SGD and DSAG on the same seeds."""
    rows = [check_int("rows_per_subpartition", r, 1) for r in rows_per_subpartition]
    methods = [(f"SGD w={w}", "sgd", w, False), (f"DSAG w={w}", "dsag", w, False)]
    df = over_seeds(
        _sgd_floor_measure,
        seeds,
        rows_per_subpartition=rows,
        gap=gap,
        n_workers=n_workers,
        w=w,
        methods=methods,
        n_subpartitions=n_subpartitions,
        dim=dim,
        desc="rows per subpartition",
        **kwargs,
    )
    columns = ["rows_per_subpartition", "n_samples", "seed", "method", "time_to_gap"]
    df = df.sort_values("level", kind="stable")  # a serial loop's order: level, then seed
    return df[columns + ["floor_gap"]].reset_index(drop=True)


def mean_time_to_gap(df: pd.DataFrame, gaps: Sequence[float] = (1e-4, 1e-6, 1e-8)) -> pd.DataFrame:
    """First simulated time [s] each method's gap falls below each threshold, the mean over
    seeds (NaN if some seed never reaches it), and ``final_gap``, the mean smallest gap: one row
    per method (in order of appearance), one column per gap (float labels,
    :func:`codedlib.plots.dsag.with_labels` formats them)."""
    check_frame("df", df, ("method", "time", "gap"))
    df = df if "seed" in df else df.assign(seed=0)
    per_seed = [
        pd.DataFrame(
            {
                method: {float(g): first_reach(sub.time, sub.gap, g) for g in gaps}
                | {"final_gap": sub.gap.min()}
                for method, sub in run.groupby("method", sort=False)
            }
        ).T
        for _seed, run in df.groupby("seed")
    ]
    stacked = pd.concat(per_seed, keys=range(len(per_seed)))
    order = list(dict.fromkeys(df["method"]))
    mean = stacked.groupby(level=1).mean()
    never = stacked.isna().groupby(level=1).any()
    return mean.mask(never).loc[order]


# -- The explorer's experiments (widgets.dsag wires them to controls) ----------------------
SLOWDOWN_PATTERNS = ("none", "linear (Sec. VII-B)", "3 workers x2")


def _explorer_cluster(n_workers, pattern, burst_rate, n_steps, rng):
    """The explorer's cluster: the eX3-like PCA stand-in (:func:`artificial_model`), a static
    slowdown ``pattern`` (:data:`SLOWDOWN_PATTERNS`) and, if ``burst_rate > 0``, Markov bursts
    (×1.5, exit probability 0.05 per step)."""
    model = artificial_model("pca", n_workers, rng=rng)
    static = np.ones(n_workers)
    if pattern == "linear (Sec. VII-B)":
        static = artificial_slowdown(n_workers, recover_after=np.inf)(0.0, 0)
    elif pattern == "3 workers x2":
        static[rng.permutation(n_workers)[: min(3, n_workers)]] = 2.0
    elif pattern != "none":
        raise ValueError(f"pattern must be one of {SLOWDOWN_PATTERNS}, got pattern={pattern!r}")
    if burst_rate > 0:
        bursts = burst_slowdown(model, n_steps, burst_rate, 0.05, 1.5, rng=rng)
    else:
        bursts = np.ones((n_steps, n_workers))
    return model, static * bursts


def latency_prediction(
    n_workers: int = 49,
    w: int = 10,
    n_subpartitions: int = 100,
    pattern: str = "linear (Sec. VII-B)",
    burst_rate: float = 0.0,
    n_iterations: int = 100,
    replicas: int = 50,
    rng: RngLike = 0,
) -> SimpleNamespace:
    """Mean iteration latency of the w-th fastest of N: event-driven (Section IV-B, workers
    stay busy with stale tasks) and order statistic (IV-A), and each worker's participation."""
    n_workers = check_int("N", n_workers, 1, 500)
    w = check_int("w", w, 1, n_workers)
    p = check_int("n_subpartitions", n_subpartitions, 1, 10_000)
    burst_rate = check_real("burst_rate", burst_rate, 0.0, 1.0)
    rng = as_generator(rng)
    model, factors = _explorer_cluster(n_workers, pattern, burst_rate, n_iterations, rng)
    comm, comp = model.sample((replicas, n_iterations), rng=rng, load=1.0 / p, slowdown=factors)
    lat = comm + comp
    res = simulate_event_driven(lat, w, margin=0.02)
    order = np.partition(lat, w - 1, axis=2)[..., w - 1].mean()
    return SimpleNamespace(
        event_driven=res.mean_latency, order_statistic=float(order), participation=res.participation
    )


def small_pca_convergence(
    n_workers: int = 49,
    w: int = 10,
    n_subpartitions: int = 10,
    eta: float = 0.9,
    pattern: str = "linear (Sec. VII-B)",
    burst_rate: float = 0.0,
    time_limit: float = 30.0,
    rng: RngLike = 0,
) -> pd.DataFrame:
    """A fresh, small PCA run (sparse binary stand-in, 2 samples per subpartition, d = 30)
    of DSAG w, SAG w and SAG w = N in the chosen scenario; returns gap vs time rows."""
    n_workers = check_int("N", n_workers, 1, 200)
    w = check_int("w", w, 1, n_workers)
    p = check_int("n_subpartitions", n_subpartitions, 1, 50)
    eta = check_real("eta", eta, 0.0, 2.0, low_open=True)
    time_limit = check_real("time_limit", time_limit, 0.0, 600.0, low_open=True)
    rng = as_generator(rng)
    problem = pca_problem(n_samples=n_workers * p * 2, dim=30, k=3, rng=rng)
    projection = pca_projection(problem)
    gap = pca_gap(problem)
    n_steps = 4000
    model, factors = _explorer_cluster(n_workers, pattern, burst_rate, n_steps, rng)

    def slowdown(time, iteration):  # noqa: ARG001 (the simulator calls slowdown(time, iteration))
        return factors[min(iteration, n_steps - 1)]

    theta0 = projection(problem.initial_point(rng))
    clock = dict(n_iterations=n_steps, time_limit=time_limit, slowdown=slowdown, theta0=theta0)
    clock.update(projection=projection, record_every=2, rng=rng)  # the same for every method
    frames = []
    for label, method, mw in (
        (f"DSAG w={w}", "dsag", w),
        (f"SAG w={w}", "sag", w),
        (f"SAG w={n_workers}", "sag", n_workers),
    ):
        gaps = []

        def record(theta, gaps=gaps):
            gaps.append(gap(theta))
            return gaps[-1] < 1e-12

        run = simulate_dsag(problem, model, mw, p, eta, method=method, callback=record, **clock)
        frames.append(pd.DataFrame({"method": label, "time": run.history.time, "gap": gaps}))
    return pd.concat(frames, ignore_index=True)


# -- Repetitions over seeds: the intervals of the notebook's claims table ------------------
def fig4_measure(seed: int, **kwargs) -> dict:
    """Fig. 4 for one seed (:func:`codedlib.replicate.over_seeds`): the share of iterations
    with at least one worker in a burst."""
    return {"any_burst_fraction": fig4_bursts(rng=seed, **kwargs).any_burst_fraction}


def order_statistic_errors(df: pd.DataFrame) -> pd.DataFrame:
    """Per seed, the largest and the mean relative error ``|model / recorded - 1|`` over w of
    the per-worker (``heterogeneous``) and the i.i.d. model of Fig. 5."""
    df = df if "seed" in df else df.assign(seed=0)
    rows = []
    for s, sub in df.groupby("seed", sort=True):
        het = np.abs(sub.heterogeneous / sub.recorded - 1)
        iid = np.abs(sub.iid / sub.recorded - 1)
        worst = int(sub.w.to_numpy()[int(np.argmax(iid.to_numpy()))])
        rows.append((s, het.max(), iid.max(), het.mean(), iid.mean(), worst))
    cols = ["seed", "heterogeneous_max", "iid_max", "heterogeneous_mean", "iid_mean", "iid_worst_w"]
    return pd.DataFrame(rows, columns=cols)


def cumulative_endpoints(df: pd.DataFrame, iteration: int) -> pd.DataFrame:
    """Cumulative latency at ``iteration`` per seed and w, with the two models' ratios to the
    recorded value."""
    end = df[df.iteration == iteration][
        ["seed", "w", "recorded", "event_driven", "order_statistic"]
    ]
    end = end.sort_values(["w", "seed"]).reset_index(drop=True)
    end["event_driven_ratio"] = end.event_driven / end.recorded
    end["order_statistic_ratio"] = end.order_statistic / end.recorded
    return end


def fig7_final_latency(df: pd.DataFrame, last: int = 20) -> pd.DataFrame:
    """Per seed, the mean iteration latency (slowest task, w = N) over the last ``last``
    iterations, one column per run of :func:`fig7_load_balancing`; ``attrs["mean"]``: each
    run's mean over the seeds."""
    last = check_int("last", last, 1)
    rows = []
    for s, sub in df.groupby("seed", sort=True):
        tail = sub[sub.iteration >= int(sub.iteration.max()) + 1 - last]
        per_run = tail.groupby(["run", "iteration"]).latency.max().groupby("run").mean()
        rows.append({"seed": s, **per_run})
    out = pd.DataFrame(rows).rename(columns=lambda c: c.replace("-", "_").replace(" ", "_"))
    out.attrs["mean"] = {c: out[c].mean() for c in out.columns[1:]}
    return out


def time_to_gap_per_seed(
    df: pd.DataFrame, gaps: Sequence[float] = (1e-4, 1e-6, 1e-8)
) -> pd.DataFrame:
    """Tidy: one row per (seed, method, gap) with the first time the gap falls below the
    threshold (NaN: never within the run) and the run's final (smallest) gap."""
    rows = [
        (s, method, float(g), first_reach(sub.time, sub.gap, g), float(sub.gap.min()))
        for (s, method), sub in df.groupby(["seed", "method"], sort=False)
        for g in gaps
    ]
    return pd.DataFrame(rows, columns=["seed", "method", "gap", "time", "final_gap"])


def time_to_gap_summary(per_seed: pd.DataFrame, methods: Sequence[str]) -> pd.DataFrame:
    """Per (method, gap) of :func:`time_to_gap_per_seed` (``methods`` in that order; the gaps
    descending): ``n`` runs, ``never`` (runs that did not reach the gap), ``mean`` time of
    those that did and, if all did (n >= 2), the 95 % t-interval ``low``, ``high``
    (:func:`codedlib.claims.mean_interval`; else NaN)."""
    gaps = sorted(per_seed.gap.unique(), reverse=True)
    rows = []
    for method in methods:
        for g in gaps:
            at_gap = np.isclose(per_seed.gap, g, rtol=1e-9, atol=0.0)
            t = per_seed[(per_seed.method == method) & at_gap].time.to_numpy(dtype=float)
            reached = t[np.isfinite(t)]
            m, lo, hi = (np.nan,) * 3 if not reached.size else (reached.mean(), np.nan, np.nan)
            if reached.size == t.size >= 2:
                m, lo, hi = mean_interval(t)
            rows.append((method, g, t.size, t.size - reached.size, m, lo, hi))
    return pd.DataFrame(rows, columns=["method", "gap", "n", "never", "mean", "low", "high"])


def _at_gap(ps, gap=1e-4):
    """Seeds × methods: the times to ``gap`` of :func:`time_to_gap_per_seed`."""
    return ps[np.isclose(ps.gap, gap, rtol=1e-9, atol=0)].pivot(
        index="seed", columns="method", values="time"
    )


def paired_times(
    per_seed: pd.DataFrame,
    numerator: str,
    denominator: str,
    gap: float,
    censor: float | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Times to ``gap`` of two methods paired by seed (:func:`time_to_gap_per_seed`) and how
    many runs never reached it: those count as ``censor`` (the time limit, a lower bound), or
    without ``censor`` raise ValueError."""
    wide = _at_gap(per_seed, gap)
    for m in (numerator, denominator):
        if m not in wide:
            raise ValueError(f"method {m!r} not in the runs, got {list(wide.columns)}")
    pair = wide[[numerator, denominator]].sort_index()
    missing = int(pair.isna().to_numpy().sum())
    if missing and censor is None:
        raise ValueError(
            f"{missing} run(s) of {numerator!r} / {denominator!r} never reached "
            f"gap {gap:g}; pass censor= (the time limit) to bound them"
        )
    if missing:
        pair = pair.fillna(float(censor))
    return pair[numerator].to_numpy(), pair[denominator].to_numpy(), missing


def convergence_band(df: pd.DataFrame, n_grid: int = 300) -> pd.DataFrame:
    """Fig. 8 over seeds: per method, the median and min-max of the gap across seeds on one
    time grid (log-linear interpolation; a run that ended early keeps its last gap; the band
    ends with the method's last run)."""
    n_grid = check_int("n_grid", n_grid, 2)
    grid = np.linspace(0.0, float(df.time.max()), n_grid)
    frames = []
    for method, sub in df.groupby("method", sort=False):
        curves = []
        for _, run in sub.groupby("seed", sort=True):
            t, lg = run.time.to_numpy(), np.log10(np.maximum(run.gap.to_numpy(), 1e-300))
            curves.append(np.where(grid < t[0], np.nan, np.interp(grid, t, lg)))
        curves = np.array(curves)
        n = np.isfinite(curves).sum(axis=0)
        keep = (n > 0) & (grid <= sub.time.max())
        covered = curves[:, keep]
        frames.append(
            pd.DataFrame(
                {
                    "method": method,
                    "time": grid[keep],
                    "median": 10 ** np.nanmedian(covered, axis=0),
                    "low": 10 ** np.nanmin(covered, axis=0),
                    "high": 10 ** np.nanmax(covered, axis=0),
                    "n_seeds": n[keep],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def event_driven_timing(
    n_workers: int = 100,
    w: int = 50,
    n_iterations: int = 100,
    repeats: int = 7,
    number: int = 50,
    reference_calls: int = 2,
    rng: RngLike = None,
) -> SimpleNamespace:
    """Wall-clock ms per event-driven simulation (footnote 16: N = 100, w = 50, 100
    iterations): the compiled kernel, warmed up, timed ``repeats`` times over ``number`` calls;
    the ``heapq`` reference over ``reference_calls``. Machine-dependent: report, never test."""
    import time

    repeats = check_int("repeats", repeats, 1)
    number = check_int("number", number, 1)
    rng = as_generator(rng)
    model = GammaLatencyModel.from_cv(
        rng.uniform(1e-4, 1e-3, n_workers), rng.uniform(0.02, 0.03, n_workers), 0.3, 0.1
    )
    lat = model.sample_total((n_iterations,), rng=rng)
    simulate_event_driven(lat, w)  # compile

    def per_call(fn, calls):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        return 1e3 * (time.perf_counter() - start) / calls

    compiled = np.array(
        [per_call(lambda: simulate_event_driven(lat, w), number) for _ in range(repeats)]
    )
    heap = per_call(lambda: simulate_event_driven_heapq(lat, w), max(1, int(reference_calls)))
    return SimpleNamespace(compiled_ms=compiled, heapq_ms=heap)


# -- Recorded traces: the DSAG trace against its own injected model -------------------------
def _recorded_cumulative(trace) -> np.ndarray:
    """Recorded cumulative latency per iteration of a w < N trace: the last fresh arrival of
    each iteration (the margin included), measured from the start of the first task."""
    fresh = trace[trace.fresh.astype(bool)]
    ends = fresh.groupby("iteration").wall_clock.max().to_numpy()
    first = trace[trace.iteration == trace.iteration.min()]
    start = float((first.wall_clock - first.compute_time - first.comm_time).min())
    return ends - start


def trace_dsag_predictions(
    run: Mapping[str, Any], replicas: int = 200, long_iterations: int = 4000, rng: RngLike = None
) -> SimpleNamespace:
    """Fig. 6 on a recorded DSAG run (``run``: :func:`codedlib.runtime.validation.recorded_dsag_run`,
    whose configuration redraws the injected delays exactly): one total per simulated run of
    each model, of decreasing fidelity: ``injected`` (event-driven on fresh draws of the
    injected model, bursts persist), ``order statistic (injected)`` (Section IV-A, same draws),
    ``injected, shuffled`` (bursts no longer persist), ``gamma fit (long draw)`` (stationary
    moments of ``long_iterations`` draws), ``gamma fit (trace, queueing as latency)`` (the raw
    trace), ``gamma fit (trace)`` (after :func:`~codedlib.latency.gamma_model.without_queueing`,
    as Fig. 6) and ``order statistic (trace fit)``."""
    replicas = check_int("replicas", replicas, 2)
    long_iterations = check_int("long_iterations", long_iterations, 2)
    config, trace, injected = run["config"], run["trace"], run["injected"]
    rng = as_generator(rng)
    N, T, w, margin = config.n_workers, config.iterations, config.w, config.margin
    redrawn = injected[trace.task_iteration.to_numpy(), trace.worker.to_numpy()]
    mismatch = float(np.abs(trace.injected_delay.to_numpy() - redrawn).max())
    recorded = _recorded_cumulative(trace)

    def simulate(lat):
        return simulate_event_driven(lat, w, margin=margin, semantics=OUR_COORDINATOR).iteration_end

    cluster, b = config.delay.cluster(N), config.delay.bursts
    bursty = b and MarkovBursts(cluster, b["p_enter"], b["p_exit"], b["factor"])

    def draw(n_it):  # DelayModel.sample's draw, its distributions built once, not per call
        return bursty.sample_path(n_it, rng).latency if bursty else cluster.sample(n_it, rng)

    totals = {}
    draws = np.stack([draw(T) for _ in range(replicas)])
    injected_runs = simulate(draws)
    totals["injected"] = injected_runs[:, -1]
    order_injected = np.cumsum(np.partition(draws, w - 1, axis=-1)[..., w - 1], axis=1)
    totals["order statistic (injected)"] = order_injected[:, -1]
    long = draw(long_iterations)
    shuffled = np.stack([rng.permutation(long[:, i]) for i in range(N)], axis=1)
    n_cut = long_iterations // T
    totals["injected, shuffled"] = simulate(shuffled[: n_cut * T].reshape(n_cut, T, N))[:, -1]
    tiny = np.full(N, 1e-12)
    stationary = GammaLatencyModel(tiny, tiny**2, long.mean(axis=0), long.var(axis=0))
    lat = stationary.sample_total((replicas, T), rng=rng)
    totals["gamma fit (long draw)"] = simulate(lat)[:, -1]
    raw = fit_gamma_model(trace).sample_total((replicas, T), rng=rng)
    totals["gamma fit (trace, queueing as latency)"] = simulate(raw)[:, -1]
    net = without_queueing(trace)
    lat = fit_gamma_model(net).sample_total((replicas, T), rng=rng)
    totals["gamma fit (trace)"] = simulate(lat)[:, -1]
    totals["order statistic (trace fit)"] = np.partition(lat, w - 1, -1)[..., w - 1].sum(axis=1)
    # out of sample: fit one half of the iterations, predict the other half's recorded total
    half = T // 2
    in_first = net.iteration.to_numpy() < net.iteration.min() + half
    split = []
    for fit_on, predict, mask, n_it, recorded_half in (
        ("first", "second", in_first, T - half, recorded[-1] - recorded[half - 1]),
        ("second", "first", ~in_first, half, recorded[half - 1]),
    ):
        lat = fit_gamma_model(net[mask]).sample_total((replicas, n_it), rng=rng)
        model = f"fit on the {fit_on} half / {predict} half recorded"
        ratio = simulate(lat)[:, -1] / float(recorded_half)
        split.append(pd.DataFrame(dict(model=model, ratio=ratio)))
    frame = pd.concat(
        [pd.DataFrame({"model": k, "total": v}) for k, v in totals.items()], ignore_index=True
    )
    waited = net.queue_wait[net.queue_wait > 0]
    return SimpleNamespace(
        w=w,
        n_iterations=T,
        recorded=float(recorded[-1]),
        replay=run["replay"],
        injected_cumulative=injected_runs.mean(axis=0),
        order_statistic_injected_cumulative=order_injected.mean(axis=0),
        injected_mismatch=mismatch,
        queued_share=float((net.queue_wait > 0).mean()),
        queue_wait_mean=float(waited.mean()) if len(waited) else 0.0,
        comm_time_mean=float(trace.comm_time.mean()),
        totals=frame,
        split_half=pd.concat(split, ignore_index=True),
    )


# -- Notebook 03: sizes per mode, the notebook's computations and its claims (declared as data)
#: The notebook's sizes per mode; read them through :func:`settings` (it fills the faithful p).
SETTINGS = {
    "quick": dict(  # smoke-test sizes: Fig. 8's clocks cut short, some gaps censored
        n_seeds=2,
        fig1_workers=30,
        fig1_iterations=100,
        fig5_iterations=300,
        fig5_replicas=5000,
        fig6_replicas=50,
        trace_replicas=50,
        timing_repeats=3,
        semantics_replicas=30,
        pca=dict(n_samples=980, dim=30, n_subpartitions=10, time_limit=16.0),
        logistic=dict(n_samples=980, n_subpartitions=10, time_limit=0.3),
        aws=dict(
            pca=dict(n_samples=2000, dim=30, n_subpartitions=10, time_limit=6.0),
            logistic=dict(n_samples=2000, n_subpartitions=10, time_limit=0.2),
        ),
        lb_sweep=LB_SWEEP["quick"],
        sgd_rows=(2, 8),
        sgd_seeds=1,
        real_schemes=["dsag"],
    ),
    "faithful": dict(
        n_seeds=None,  # the parameter n_seeds, at least 5 (the paper averages 5 runs)
        fig1_workers=100,
        fig1_iterations=200,
        fig5_iterations=1000,
        fig5_replicas=20000,
        fig6_replicas=300,
        trace_replicas=400,
        timing_repeats=7,
        semantics_replicas=400,
        # n_subpartitions None: the parameters pca_subpartitions / logreg_subpartitions (settings)
        pca=dict(n_samples=9800, dim=100, n_subpartitions=None, time_limit=60.0),
        logistic=dict(n_samples=9800, n_subpartitions=None, time_limit=1.5),
        aws=dict(
            pca=dict(n_samples=20000, dim=100, n_subpartitions=None, time_limit=60.0),
            logistic=dict(n_samples=20000, n_subpartitions=None, time_limit=1.5),
        ),
        lb_sweep=LB_SWEEP["faithful"],
        sgd_rows=(2, 8, 32),
        sgd_seeds=3,
        real_schemes=["dsag", "dsag-lb"],
    ),
}

#: Fig. 4's burst process (calibrated entry rate, chosen factor and length).
BURSTS = dict(n_workers=36, n_iterations=1800, p_enter=3e-4, p_exit=0.02, factor=1.12)
PCA_GAPS = (1e-3, 1e-4, 1e-6, 1e-8)
LOG_GAPS = (1e-4, 1e-6, 1e-8, 1e-10)
REAL_TRACE = "umw-N12-real"
#: The recorded DSAG runs of Fig. 6 on our traces: file stem -> label.
DSAG_TRACES = {"dsag-N12-w6-steady": "steady", "dsag-N12-w6-bursts": "bursty"}

CLOUD_SETTING = (
    "stand-in cluster: synthetic gamma workers, per-worker means spread ±15 %, per-task "
    "comp_cv = 0.1 × U(0.5, 1.5) (chosen), comm_cv 0.3"
)
BURST_SETTING = (
    "stand-in: 36 synthetic gamma workers, per-task comp_cv = 0.03 × U(0.5, 1.5) (chosen); "
    "bursts ×1.12, mean length 50 iterations (chosen); calibrated: entry rate p_enter = 3e-4"
)
TRACE_SETTING = {
    name: f"our MPI trace {name}: DSAG N = 12, w = 6, 40 iterations, 13 processes on a 2-core VM; "
    f"injected gamma computation delay, mean 30 ms and sd 10 ms × (1 + 0.4 i/N), {bursts}; "
    "computation and transfer real"
    for name, bursts in (
        ("dsag-N12-w6-steady", "no bursts"),
        ("dsag-N12-w6-bursts", "Markov bursts ×3 (p_enter 0.05, p_exit 0.2)"),
    )
}
FIG6_SETTING = (
    "stand-in cluster: 72 synthetic gamma workers, means ±30 %, per-task comp_cv = 0.1 × U(0.5, 1.5) "
    "(chosen), Markov bursts ×1.12 (p_enter 0.002, p_exit 0.02, chosen); model fitted to a "
    "2000-iteration w = N profiling trace"
)
FIG7_SETTING = (
    "stand-in: 8 synthetic gamma workers, mean 0.5 s per worker's data ±10 % (0.025 s per task at "
    "p = 20), per-task comp_cv = 0.05 × U(0.5, 1.5) "
    "(chosen); slowdown/speed-up ×2 (chosen); DSAG w = N on PCA of a 1280 × 20 sparse binary low-rank matrix"
)
SEC1, SEC1T = "1. The latency model", "1. The latency model / Our own recorded traces"
SEC2, SEC3 = "2. Latency of the w-th fastest worker", "3. DSAG (Section V)"
SEC4 = "4. Load balancing (Section VI)"
SEC5 = "5. The artificial scenario (Fig. 8 top row)"
SEC5B = "5b. Fig. 8 bottom row: AWS-like stand-in (Section VII-C)"


def settings(preset: str, pca_subpartitions: int = 100, logreg_subpartitions: int = 10) -> dict:
    """``SETTINGS[preset]`` with every ``n_subpartitions=None`` (the faithful Fig. 8 and AWS
    runs) set from the notebook's parameters: ``pca_subpartitions`` for PCA,
    ``logreg_subpartitions`` for logistic regression."""
    p = {"pca": pca_subpartitions, "logistic": logreg_subpartitions}
    out = dict(SETTINGS[preset])
    out["aws"] = dict(out["aws"])
    for sizes in (out, out["aws"]):
        for kind in p:
            sizes[kind] = dict(sizes[kind])
            if sizes[kind]["n_subpartitions"] is None:
                sizes[kind]["n_subpartitions"] = p[kind]
    return out


def run_seeds(seed: int, n_seeds: int, setting: Mapping[str, Any]) -> list[int]:
    """The notebook's seeds: ``setting["n_seeds"]`` of them, or ``max(5, n_seeds)``."""
    return list(range(seed, seed + (setting["n_seeds"] or max(5, n_seeds))))


def ratio_text(row: Claim) -> str:
    """A comparison row's ratio, interval and outcome as text for the prose."""
    return f"{row.our_value:.2f} [{row.ci_low:.2f}, {row.ci_high:.2f}] ({row.outcome})"


def fig5_setting(n_iterations: int) -> str:
    """The setting text of the Fig. 5 rows."""
    return (
        "stand-in cluster: 72 synthetic gamma workers, per-worker means spread ±30 %, per-task "
        f"comp_cv = 0.1 × U(0.5, 1.5) (chosen); {n_iterations}-iteration w = N trace"
    )


def describe_iid_ends(df: pd.DataFrame) -> str:
    """Fig. 5: the i.i.d. model's relative error at w = 1 and w = N, range over seeds."""
    first, last = df.groupby("seed").first(), df.groupby("seed").last()
    fastest, slowest = first.iid / first.recorded - 1, last.iid / last.recorded - 1
    return (
        f"i.i.d. model vs recorded, over seeds: fastest worker (w = 1) {100 * fastest.min():+.1f} to "
        f"{100 * fastest.max():+.1f} %, slowest (w = N) {100 * slowest.min():+.1f} to "
        f"{100 * slowest.max():+.1f} % (negative: predicted too fast)"
    )


def check_traces(traces: Mapping[str, pd.DataFrame], rng: RngLike = None) -> tuple[dict, str]:
    """Our master-worker traces (tree traces skipped): per-worker fit, and on w = N traces the
    largest Fig. 5 errors of both models; returns ``({name: errors}, printed text)``."""
    checks, lines = {}, []
    for name, trace in traces.items():
        if "parent" in trace and (trace["parent"] != 0).any():
            lines.append(f"{name}: rows from tree parents (CodedReduce) - skipped")
            continue
        fit = fit_gamma_model(trace)
        lines.append(
            f"{name}: {len(trace)} rows, {fit.n_workers} workers; fitted mean computation latency "
            f"{fit.comp_mean.min() * 1e3:.2f}-{fit.comp_mean.max() * 1e3:.2f} ms, "
            f"communication {fit.comm_mean.min() * 1e3:.2f}-{fit.comm_mean.max() * 1e3:.2f} ms"
        )
        order = trace_order_statistics(trace, rng=rng)
        if order is not None:
            checks[name] = err = order_statistic_errors(order).iloc[0]
            lines.append(
                f"   w = N trace: max relative error of the w-th order statistic: per-worker model "
                f"{100 * err.heterogeneous_max:.1f} %, i.i.d. model {100 * err.iid_max:.1f} %"
            )
    return checks, "\n".join(lines)


def gamma_ks_summary(trace: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3 on a trace: per latency column, the median Kolmogorov-Smirnov distance of each
    worker's latency to the gamma fitted to the same data and the workers rejected at 5 %
    (conservative p-values: a rejection is trustworthy, an acceptance weak evidence)."""
    from scipy import stats

    fit = fit_gamma_model(trace)
    rows = []
    for column, shape, scale in (
        ("compute_time", fit.comp_shape, fit.comp_scale),
        ("comm_time", fit.comm_shape, fit.comm_scale),
    ):
        for j, worker in enumerate(fit.workers):
            x = trace.loc[trace.worker == worker, column].to_numpy(dtype=float)
            res = stats.kstest(x, stats.gamma(shape[j], scale=scale[j]).cdf)
            rows.append((column, float(res.statistic), float(res.pvalue)))
    return (
        pd.DataFrame(rows, columns=["column", "ks", "pvalue"])
        .groupby("column")
        .agg(
            median_ks=("ks", "median"),
            rejected=("pvalue", lambda p: int((p < 0.05).sum())),
            workers=("ks", "size"),
        )
    )


def trace_fig6(
    run: Mapping[str, Any],
    name: str,
    trace: pd.DataFrame,
    margin: float,
    replicas: int,
    rng: RngLike,
) -> dict:
    """Fig. 6 on one recorded DSAG run (``run``: its reading for :func:`trace_dsag_predictions`):
    the recorded curve, the models' totals, their 95 % bands and the bands ÷ the recorded total."""
    recorded_fig6 = trace_cumulative_latency(trace, margin=margin, rng=rng)
    tp = trace_dsag_predictions(run, replicas=replicas, rng=rng)
    if not tp.injected_mismatch < 1e-6:
        raise ValueError("the redrawn injected delays must match the trace")
    rec = tp.recorded
    band = tp.totals.groupby("model", sort=False).total.agg(
        mean="mean", low=lambda t: t.quantile(0.025), high=lambda t: t.quantile(0.975)
    )
    band_ratio = band / rec
    ratios = {"mean": "ratio_to_recorded", "low": "ratio_low", "high": "ratio_high"}
    text = (
        f"{name}: recorded {rec:.3f} s over {tp.n_iterations} iterations (w = {tp.w}); event-driven "
        f"replay on the very injected delays {tp.replay:.3f} s ({100 * (tp.replay / rec - 1):+.0f} % vs recorded: the real "
        f"cost of computation, transfer and polling); {100 * tp.queued_share:.0f} % of the tasks waited behind a "
        f"stale task, {1e3 * tp.queue_wait_mean:.1f} ms on average, inside comm_time (raw mean "
        f"{1e3 * tp.comm_time_mean:.1f} ms)"
    )
    bands = band.join(band_ratio.rename(columns=ratios))
    return dict(
        recorded_fig6=recorded_fig6, tp=tp, band=band, band_ratio=band_ratio, text=text, bands=bands
    )


def coordinator_semantics(
    seeds: int | Iterable[int],
    *,
    seed: int,
    n_workers: int,
    w: int,
    margin: float,
    eta: float,
    replicas: int,
    logreg_p: int,
    pca_p: int,
    logistic: Mapping[str, Any],
) -> tuple[pd.DataFrame, str]:
    """Sec. V-A: our margin-window rule against the authors' on paired draws (four settings)
    and DSAG's time to 1e-6 (logistic, Fig. 8); returns the table and its summary text."""
    settings = [
        (
            f"Fig. 8 stand-in, {label} (p = {p})",
            artificial_model(kind, n_workers, rng=seed),
            w,
            1 / p,
        )
        for label, kind, p in (("logistic", "logistic", logreg_p), ("PCA", "pca", pca_p))
    ] + [
        ("cloud stand-in of Figs. 5-6 (N = 72)", cloud_model(72, rng=seed), k, 1.0) for k in (9, 36)
    ]
    rows = []
    for label, model, w_, load in settings:
        d = coordinator_semantics_difference(
            model, w_, n_iterations=30, margin=margin, load=load, replicas=replicas, rng=seed
        )
        rd = d.relative_difference
        rows.append(
            {
                "setting": label,
                "N": model.n_workers,
                "w": w_,
                "time after 30 it.: ours / authors' - 1": rd.mean(),
                "2.5 %": rd.quantile(0.025),
                "97.5 %": rd.quantile(0.975),
                "share of iterations, fresh set differs": d.share_iterations_fresh_differs.mean(),
            }
        )
    table = pd.DataFrame(rows)
    conv = over_seeds(  # logistic regression, time to a gap of 1e-6
        _semantics_measure,
        seeds,
        n_workers=n_workers,
        w=w,
        methods=[(f"DSAG w={w}", "dsag", w, False)],
        eta=eta,
        margin=margin,
        desc="coordinator semantics",
        **logistic,
    )
    wide = conv.pivot(index="seed", columns="semantics", values="time_to_gap")
    conv_text = "; DSAG did not reach a gap of 1e-6 in every run"
    if wide.notna().all().all():
        r = ratio_interval(wide["deadline"], wide["reference"])
        conv_text = (
            "; DSAG's time to a gap of 1e-6 (logistic, Fig. 8 setting): ours / authors' = "
            f"{r[0]:.3f} [{r[1]:.3f}, {r[2]:.3f}] over {len(wide)} paired seeds"
        )
    worst = table.iloc[:, 3:6]
    summary = (
        f"total time after 30 iterations differs by {100 * worst.iloc[:, 0].min():+.1f} to "
        f"{100 * worst.iloc[:, 0].max():+.1f} % on average (95 % ranges within "
        f"{100 * worst.iloc[:, 1].min():+.1f} to {100 * worst.iloc[:, 2].max():+.1f} %), while the fresh set "
        f"differs in {100 * table.iloc[:, 6].min():.0f}-{100 * table.iloc[:, 6].max():.0f} % "
        f"of iterations" + conv_text
    )
    return table, summary


def algorithm2_as_printed(
    n: int, p: int, p_new: int, k: int, max_steps: int = 20
) -> tuple[list[tuple[int, int]], bool]:
    """Algorithm 2 line by line; returns the visited (k, k') and whether k' left 1..p_new."""
    from codedlib.schemes.dsag import p_start, p_trans

    k = k % p + 1  # line 1
    k_new = p_trans(n, p, p_new, k)  # line 2
    visited = [(k, k_new)]
    for _ in range(max_steps):
        if p_start(n, p_new, k_new) == p_start(n, p, k):  # line 3
            return visited, False
        k_new -= 1  # line 4
        if k_new < 1:
            return visited + [(k, k_new)], True
        k = p_trans(n, p_new, p, k_new)  # line 5
        visited.append((k, k_new))
    return visited, False


def paper_examples() -> dict:
    """Examples 1-3 and Algorithm 2 of Sections V-VI on n = 10 samples, with printed text."""
    from codedlib.schemes.dsag import GradientCache, align_partition, p_start, p_stop

    def indicator(a, b):
        v = np.zeros(10)
        v[a - 1 : b] = 1
        return v

    out, lines = {}, []
    parts2 = [(p_start(10, 2, k), p_stop(10, 2, k)) for k in (1, 2)]
    out["parts3"] = [(p_start(10, 3, k), p_stop(10, 3, k)) for k in (1, 2, 3)]
    lines.append(f"p = 2: {parts2}   p = 3: {out['parts3']}")
    cache = GradientCache(10, shape=(10,))
    for a, b in [(1, 5), (6, 10)]:
        cache.insert(a - 1, b, 0, indicator(a, b))
    out["evicted"] = [(s + 1, e) for s, e, *_ in cache.entries() if s < 6 and e > 3]
    lines.append(f"Example 1: inserting X_{{4:6}} would evict {out['evicted']}")
    out["missing_rows"] = []
    for t, (a, b) in enumerate([(1, 3), (4, 6), (7, 10)], start=1):
        cache.insert(a - 1, b, t, indicator(a, b))
        missing = (np.flatnonzero(cache.H == 0) + 1).tolist()
        out["missing_rows"].append(missing)
        lines.append(
            f"Example 2, step {t}: cache {[(s + 1, e) for s, e, *_ in cache.entries()]}, missing rows {missing}"
        )
    steps = []
    out["aligned"] = align_partition(10, 2, 3, 1, trace=steps)
    lines.append(
        f"Example 3: Algorithm 2 returns (p, k) = {out['aligned']}  visiting (k, k') = {steps}"
    )
    out["aligned4"] = align_partition(10, 2, 4, 1)
    lines.append(
        f"p = 2 -> 4 from k = 1: {out['aligned4']} (k' = 3 starts at row 6, like k = 2 of p = 2)"
    )
    (i, j), (i2, j2) = (4, 5), (1, 10)  # new X_{4:5}, cached X_{1:10}
    out["written"] = (i <= i2 <= j) or (i <= j2 <= j)  # Section V's overlap test as written
    out["actual"] = max(i, i2) <= min(j, j2)
    lines.append(
        f"new X_{{4:5}} against cached X_{{1:10}}: written test {out['written']}, ranges overlap {out['actual']}"
    )
    out["visited"], out["broke"] = algorithm2_as_printed(10, 3, 2, 1)
    out["text"] = "\n".join(lines)
    out["algorithm2_text"] = (
        f"Algorithm 2 as printed, n = 10, p = 3 -> 2 from k = 1: visits (k, k') = {out['visited']}; "
        f"k' leaves 1..p': {out['broke']}; align_partition returns {align_partition(10, 3, 2, 1)}"
    )
    return out


def fig8_setting(df: pd.DataFrame, kind: str, eta: float, n_seeds: int) -> str:
    """The setting text of Fig. 8's rows (data, cluster, sizes, balancer, seeds)."""
    a = df.attrs
    if kind == "pca":
        data_text = (
            f"stand-in for the 1000 Genomes matrix: sparse binary low-rank matrix {a['n_samples']} × "
            f"{a['n_features']} (4 populations, density 0.1), top 3 components"
        )
        lb_text = "every 1 s, 3 s window, no optimizer run time (chosen)"
    else:
        data_text = (
            f"stand-in for HIGGS: synthetic logistic data {a['n_samples']} × 28 standardised Gaussian "
            f"features + intercept, labels from a logistic model, λ = 1/n"
        )
        lb_text = "every 0.05 s, 0.3 s window, no optimizer run time (chosen)"
    return (
        f"{data_text}; cluster: eX3-like gamma workers (Table I means ±2 %, per-task comp_cv = {a['comp_cv']:g}, "
        f"chosen), slowdown 1 + 0.4 i/N, workers 40-49 recover after 1 s; N = {a['n_workers']}, w = {a['w']}, "
        f"p = {a['n_subpartitions']}, η = {eta} (GD, coded: 1); load balancer {lb_text}; "
        f"{n_seeds} seeds, time limit {a['time_limit']:g} s"
    )


def _paired_problem(problems, problem, a, b, gap):
    """Times to ``gap`` of methods a and b on one Fig. 8 problem, paired by seed, runs that
    never reached it counted at the time limit (said in the returned setting)."""
    df, ps, setting, limit = problems[problem]
    num, den, censored = paired_times(ps, a, b, gap, censor=limit)
    if censored:
        setting = setting + f"; {censored} run(s) never reached {gap:g}: counted at the time limit"
    return num, den, setting


def _seed_spread(num, den) -> str:
    """Why a paired ratio is undecided: the per-seed ratios, as text."""
    r = np.asarray(num) / np.asarray(den)
    return f"per-seed ratios {r.min():.2f} to {r.max():.2f} over {r.size} seeds"


def lb_decompositions(problems: Mapping[str, tuple], w: int) -> dict:
    """At the gaps of the load-balancing rows, per seed for DSAG and DSAG-LB: iterations and mean
    latency per iteration to reach the gap, mean fresh results per iteration and mean total
    subpartitions up to then: ``{(problem, gap): (per-seed frame, ratio intervals DSAG-LB / DSAG,
    text)}``."""
    dsag, lb = f"DSAG w={w}", f"DSAG-LB w={w}"
    out = {}
    for problem, gap in (("PCA", 1e-8), ("log. reg.", 1e-6), ("log. reg.", 1e-10)):
        df, rows = problems[problem][0], []
        for (s, method), sub in df[df.method.isin([dsag, lb])].groupby(["seed", "method"]):
            hit = sub[sub.gap <= gap]
            end = hit.iloc[0] if len(hit) else sub.iloc[-1]
            upto = sub[sub.time <= end.time]
            rows.append(
                dict(
                    seed=s,
                    method=method,
                    iterations=end.iteration,
                    latency=end.time / end.iteration,
                    n_fresh=upto.n_fresh.mean(),
                    subpartitions=upto.total_subpartitions.mean(),
                )
            )
        dec = pd.DataFrame(rows).pivot(index="seed", columns="method")
        parts = {
            q: ratio_interval(dec[q][lb], dec[q][dsag])
            for q in ("iterations", "latency", "n_fresh", "subpartitions")
        }
        out[(problem, gap)] = (
            dec,
            parts,
            f"DSAG-LB / DSAG at {gap:g}: iterations ×{parts['iterations'][0]:.2f} [{parts['iterations'][1]:.2f}, "
            f"{parts['iterations'][2]:.2f}], latency per iteration ×{parts['latency'][0]:.2f} "
            f"[{parts['latency'][1]:.2f}, {parts['latency'][2]:.2f}], fresh results per iteration "
            f"×{parts['n_fresh'][0]:.2f}, total subpartitions ×{parts['subpartitions'][0]:.2f}",
        )
    return out


def sgd_floor(sgd_size: pd.DataFrame) -> dict:
    """SGD's noise floor against rows per subpartition: the median table, a power law fitted
    over the runs, its extrapolation to the paper's subpartitions and the rows it needs to
    reach 1e-3."""
    sgd_only = sgd_size[sgd_size.method == "SGD"]
    slope, intercept = np.polyfit(
        np.log(sgd_only.rows_per_subpartition), np.log(sgd_only.floor_gap), 1
    )
    paper_rows = 81_271_767 / (49 * 100)
    return dict(
        table=sgd_size.pivot_table(
            index="rows_per_subpartition",
            columns="method",
            values=["floor_gap", "time_to_gap"],
            aggfunc="median",
        ),
        slope=slope,
        intercept=intercept,
        paper_rows=paper_rows,
        n_runs=len(sgd_only),
        floor_at_paper=float(np.exp(intercept) * paper_rows**slope),
        rows_for_1e3=float(np.exp((np.log(1e-3) - intercept) / slope)),
    )


def aws_methods(w: int) -> list:
    """The methods of the AWS-like bottom row: GD, coded, SAG w = N, DSAG and DSAG-LB w = 20."""
    return [
        m
        for m in fig8_methods(100, w)
        if m[0] in ("GD", "coded (r=45/49)", "SAG w=100", f"DSAG w={w}")
    ] + [("DSAG-LB w=20", "dsag", 20, True)]


def aws_setting(
    sizes: Mapping[str, Mapping[str, Any]], comp_cv: float, w: int, n_seeds: int
) -> str:
    """The setting text of the AWS-like rows."""
    return (
        f"AWS-like stand-in (not AWS): N = 100, Table I AWS means (calibrated), per-task comp_cv = {comp_cv:g} "
        f"(chosen), timed bursts +12 % for ~60 s (Fig. 4); stand-in data as in the top row "
        f"({sizes['pca']['n_samples']} rows for PCA, {sizes['logistic']['n_samples']} for logistic "
        f"regression); w = {w}; {n_seeds} paired seeds"
    )


# -- claims ---------------------------------------------------------------------------------
_EVENT_PAPER = dict(paper=1.0, paper_text="1 (event-driven model accurate)")
_BELOW_PAPER = dict(paper_range=(0.0, 1.0), paper_text="below 1 (underestimates for w < N)")
_CALIBRATED = dict(verdict="calibrated", basis="check")


def _fig1(fig1):
    avg = fig1.average.set_index("load")
    return {
        "ours": f"stand-in built ∝ c: fitted mean at c = 4 / c = 1 = {avg.loc[4.0, 'mean'] / avg.loc[1.0, 'mean']:.2f}, "
        f"variance {avg.loc[4.0, 'var'] / avg.loc[1.0, 'var']:.1f}"
    }


def _ks(ks_summary):
    rej = ks_summary.rejected
    n_w = int(ks_summary.workers.iloc[0])
    verdict = (
        "reproduced" if rej.sum() == 0 else "not reproduced" if (rej > n_w / 2).all() else "partly"
    )
    return dict(
        verdict=verdict,
        ours=(
            f"KS rejects the fitted gamma at 5 % for {rej['compute_time']} of {n_w} workers' computation latency "
            f"(median distance {ks_summary.median_ks['compute_time']:.2f}) and {rej['comm_time']} of {n_w} workers' "
            f"communication latency ({ks_summary.median_ks['comm_time']:.2f})"
        ),
        reason=(
            ""
            if verdict == "reproduced"
            else "our only fully real trace is a sub-millisecond numpy computation on an oversubscribed 2-core VM, "
            "not the paper's cloud workers; by this test its computation latency is not gamma-shaped, its "
            "communication latency is not rejected"
        ),
    )


def _fig5_traces(trace_checks):
    parts = [
        f"{name}: per-worker {100 * e.heterogeneous_max:.1f} %, i.i.d. {100 * e.iid_max:.1f} %"
        for name, e in trace_checks.items()
    ]
    fits = all(e.heterogeneous_max < 0.05 for e in trace_checks.values())
    much_worse = all(e.iid_max > 2 * e.heterogeneous_max for e in trace_checks.values())
    verdict = "reproduced" if fits and much_worse else "partly"
    return dict(
        verdict=verdict,
        ours="max relative error over w: " + "; ".join(parts),
        reason=(
            ""
            if verdict == "reproduced"
            else "the i.i.d. model is not much worse than the per-worker one on any of our w = N traces: with 12 workers "
            "whose injected gamma means differ by the factor 1 + 0.4 i/N the spread is small, and on the fully real "
            "trace neither model fits (its computation latency is not gamma: row 'Fig. 3')"
        ),
    )


def _fit_reason(br, **_):
    f = br.loc["gamma fit (trace)"]
    return dict(
        reason=f"measured, model by model: the simulator on the injected model gives "
        f"{br.loc['injected', 'mean']:.2f}; shuffling each worker's injected delays over iterations "
        f"(bursts no longer persist) {br.loc['injected, shuffled', 'mean']:.2f}; a stationary "
        f"per-worker gamma with the injected moments {br.loc['gamma fit (long draw)', 'mean']:.2f}; "
        f"the fit to this 40-iteration trace {f['mean']:.2f}: a stationary model fitted to a bursty "
        f"trace loses the bursts' persistence (the paper's Fig. 6 uses steady-state traces)"
    )


def _queue_reason(tp, br, **_):
    return dict(
        reason=f"{100 * tp.queued_share:.0f} % of the tasks waited {1e3 * tp.queue_wait_mean:.1f} ms on "
        f"average behind a stale task, and a round trip minus compute_time counts that wait as "
        f"communication latency, as the paper's Section VI-A profiler does (round trip minus the worker's "
        f"time, 'any queuing at either end' included); the simulator queues tasks itself, so this fit "
        f"double-counts it ({br.loc['gamma fit (trace, queueing as latency)', 'mean']:.2f} × recorded, "
        f"{br.loc['gamma fit (trace)', 'mean']:.2f} once the waits are taken out)"
    )


def _trace_specs(name, label):
    """The Fig. 6 rows of one recorded DSAG run (results: ``tp``, ``band``, ``band_ratio``)."""

    fig6 = partial(spec, "interval", "Fig. 6", unit="×", section=SEC1T)

    def row(quantity, model, judge, **fixed):
        def measured(tp, band, band_ratio):
            r = band_ratio.loc[model]
            extra = judge(tp=tp, band=band, br=band_ratio, r=r)
            if "verdict" not in extra and r["low"] <= 1 <= r["high"]:
                extra["reason"] = ""  # reproduced within CI: no reason kept
            return dict(
                estimate=(r["mean"], r["low"], r["high"]),
                uncertainty=f"95 % range of the model's {tp.n_iterations}-iteration total over its "
                "simulated runs, ÷ the one recorded total",
                **extra,
            )

        quantity = f"MPI trace ({label}): {quantity}"
        return fig6(quantity, measured, setting=TRACE_SETTING[name], **fixed)

    def below(what):  # reproduced if the model's whole range lies below the recorded total
        def judge(r, **results):
            if r["high"] < 1:
                return dict(verdict="reproduced within CI", reason="")
            return dict(verdict="not reproduced", reason=what(r=r, **results))

        return judge

    def split(model):
        def measured(tp):
            r = tp.split_half[tp.split_half.model == model].ratio
            inside = r.quantile(0.025) <= 1 <= r.quantile(0.975)
            return dict(
                estimate=(r.mean(), r.quantile(0.025), r.quantile(0.975)),
                uncertainty=f"95 % range of the model's half-run total over {r.size} simulated runs ÷ the recorded half",
                reason=""
                if inside
                else "the recorded half lies outside the range of the model fitted to the other half",
            )

        return fig6(
            f"MPI trace ({label}): event-driven, {model} (out of sample)",
            measured,
            setting=TRACE_SETTING[name] + "; gamma fit with queue waits taken out",
            **_EVENT_PAPER,
        )

    return [
        row(
            "event-driven (injected model) / recorded",
            "injected",
            lambda tp, **_: dict(
                reason=f"the recorded run is outside the model's 95 % range; the replay on the very injected delays is "
                f"{tp.replay / tp.recorded:.2f} × recorded (the rest is the real cost of this VM)"
            ),
            **_EVENT_PAPER,
        ),
        row(
            "order statistic (injected model) / recorded",
            "order statistic (injected)",
            below(
                lambda **_: "the recorded total lies inside the order-statistic model's 95 % range"
            ),
            **_BELOW_PAPER,
        ),
        row(
            "event-driven (gamma fit to the same trace, in-sample) / recorded",
            "gamma fit (trace)",
            _fit_reason,
            **_EVENT_PAPER,
        ),
        row(
            "event-driven (fit with queue waits counted as latency) / recorded",
            "gamma fit (trace, queueing as latency)",
            _queue_reason,
            **_EVENT_PAPER,
        ),
        split("fit on the first half / second half recorded"),
        split("fit on the second half / first half recorded"),
        row(
            "order statistic (gamma fit to the trace) / recorded",
            "order statistic (trace fit)",
            below(
                lambda tp, band, r, **_: (
                    f"the recorded total lies inside the order-statistic model's 95 % range "
                    f"({r['low']:.2f}-{r['high']:.2f}) on this {tp.n_iterations}-iteration run; "
                    f"it is {band.loc['order statistic (trace fit)', 'mean'] / band.loc['gamma fit (trace)', 'mean']:.2f}"
                    f" × the event-driven prediction on the same fit"
                ),
            ),
            **_BELOW_PAPER,
        ),
    ]


#: A comparison row of section 5 (Fig. 8 top row).
_compare5 = partial(spec, "comparison", section=SEC5)


def _faster(w, n, problem, gap, faster, headline=False):
    """Fig. 8: DSAG w / SAG w = N time to ``gap``, the paper's "about x % faster"."""
    lo_p, hi_p = 1 - faster - 0.05, 1 - faster + 0.05

    def measured(problems):
        num, den, setting = _paired_problem(problems, problem, f"DSAG w={w}", f"SAG w={n}", gap)
        value, lo, hi = ratio_interval(num, den)
        reason = ""
        if lo <= 1 <= hi:
            reason = (
                f"indistinguishable: {_seed_spread(num, den)}, interval {lo:.2f}–{hi:.2f} includes 1"
                + (" and the paper's range" if lo <= hi_p and hi >= lo_p else "")
            )
        elif hi < 1 and (hi < lo_p or lo > hi_p):
            reason = f"faster, by {100 * (1 - value):.0f} % [{100 * (1 - hi):.0f}, {100 * (1 - lo):.0f}] instead of about {100 * faster:.0f} %"
        return dict(
            numerator=num,
            denominator=den,
            verdict="inconclusive" if lo <= 1 <= hi and lo <= hi_p and hi >= lo_p else None,
            reason=reason,
            setting=setting,
        )

    return _compare5(
        f"Fig. 8 {problem}",
        f"time to gap {gap:g}: DSAG w={w} / SAG w=N",
        measured,
        expected="less",
        paper_range=(lo_p, hi_p),
        paper_text=f"about {100 * faster:.0f} % faster (ratio {lo_p:.2f}–{hi_p:.2f})",
        headline=headline,
    )


def _lb_pca(w):
    def measured(problems, lb_rows):
        num, den, setting = _paired_problem(problems, "PCA", f"DSAG-LB w={w}", f"DSAG w={w}", 1e-8)
        value, lo, hi = ratio_interval(num, den)
        measured_text = lb_rows[("PCA", 1e-8)][2]
        if lo > 1:
            verdict, reason = "reproduced", ""
        elif hi >= 1:
            verdict, reason = (
                "partly",
                f"no speedup, as in the paper, but the interval includes 1 (indistinguishable): the "
                f"slowdown from cache invalidation is not resolved with {len(num)} seeds; measured: {measured_text}",
            )
        else:
            verdict, reason = (
                "not reproduced",
                f"load balancing is faster in our runs; measured: {measured_text}. The paper's "
                "optimizer needed about 7 s for a first PCA solution, ours takes no simulated time",
            )
        return dict(numerator=num, denominator=den, verdict=verdict, reason=reason, setting=setting)

    return _compare5(
        "Fig. 8 PCA",
        f"time to gap 1e-08: DSAG-LB / DSAG w={w}",
        measured,
        expected="greater",
        paper_text="no speedup from load balancing (ratio ≥ 1: cache invalidation)",
    )


def _lb_log(w, gap):
    def measured(problems, lb_rows):
        num, den, setting = _paired_problem(
            problems, "log. reg.", f"DSAG-LB w={w}", f"DSAG w={w}", gap
        )
        value, lo, hi = ratio_interval(num, den)
        within = lo <= 0.7 and hi >= 0.6
        small = hi < 1 and 1 - value < 0.3 / 2  # right direction, gain under half the paper's
        reason = (
            ""
            if within
            else f"gain {100 * (1 - value):.0f} % [{100 * (1 - hi):.0f}, {100 * (1 - lo):.0f}] against the paper's "
            f"30–40 %; measured: {lb_rows[('log. reg.', gap)][2]}; what sets the gain in our stand-in: the row "
            "'what sets the load-balancing gain'"
            + ("" if hi < 1 else f"; {_seed_spread(num, den)}")
        )
        return dict(
            numerator=num,
            denominator=den,
            verdict="direction only" if small else None,
            reason=reason,
            setting=setting,
        )

    return _compare5(
        "Fig. 8 log. reg.",
        f"time to gap {gap:g}: DSAG-LB / DSAG w={w}",
        measured,
        expected="less",
        paper_range=(0.6, 0.7),
        paper_text="30–40 % lower latency (ratio 0.6–0.7)",
        headline=(gap == 1e-6),
    )


def _fresh(w):
    def measured(problems, lb_rows):
        dec = lb_rows[("log. reg.", 1e-6)][0]
        num, den = dec["n_fresh"][f"DSAG-LB w={w}"], dec["n_fresh"][f"DSAG w={w}"]
        return dict(
            numerator=num,
            denominator=den,
            reason=""
            if ratio_interval(num, den)[1] > 1
            else f"indistinguishable or fewer: {_seed_spread(num, den)}",
            setting=problems["log. reg."][2] + "; mean over the recorded iterations up to gap 1e-6",
        )

    return _compare5(
        "Fig. 8 log. reg.",
        "fresh results per iteration: DSAG-LB / DSAG",
        measured,
        expected="greater",
        paper_text="load balancing raises the number of workers responding within the 2 % margin",
    )


def _final_gaps(problems, problem):
    return problems[problem][1].groupby(["seed", "method"]).final_gap.first().unstack()


def _gd_fastest(problems, w, n, problem):
    stochastic = [f"SGD w={w}", f"SAG w={w}", f"SAG w={n}", f"DSAG w={w}"]
    df, ps, setting, limit = problems[problem]
    at = _at_gap(ps)
    fastest = at[stochastic].min(axis=1)
    gd = at["GD"].fillna(limit)
    value, lo, hi = ratio_interval(gd, fastest)
    verdict, reason = "reproduced", ""
    if lo <= 1:
        verdict = "not reproduced"
        reason = (
            "GD is faster over the seeds"
            if hi < 1
            else "indistinguishable: the interval includes 1"
        )
    elif lo <= 2 <= hi:
        verdict = "reproduced within CI"
    elif lo <= 2:
        verdict = "partly"
        reason = "the fastest stochastic method is faster than GD, but by less than 2×"
    return dict(
        numerator=gd,
        denominator=fastest,
        verdict=verdict,
        reason=reason,
        setting=setting + f"; fastest of {', '.join(stochastic)} per seed",
    )


def _converges(problems, w, n, problem):
    dsag = f"DSAG w={w}"
    f = _final_gaps(problems, problem)
    sagN = f"SAG w={n}"
    converged = (f[dsag] <= 1e-10) & (f[sagN] <= 1e-10)
    stalled = (f[f"SAG w={w}"] > 1e-6) & (f[f"SGD w={w}"] > 1e-6)
    ok = bool((converged & stalled).all())
    return dict(
        verdict="reproduced" if ok else "partly",
        ours=(
            f"final gap over {len(f)} seeds: DSAG {f[dsag].max():.1e} (largest), SAG w=N {f[sagN].max():.1e}, "
            f"SAG w={w} {f[f'SAG w={w}'].min():.1e} (smallest), SGD {f[f'SGD w={w}'].min():.1e} (smallest)"
        ),
        reason=""
        if ok
        else (
            f"within the time limit, DSAG and SAG w=N reach 1e-10 in {int(converged.sum())} of "
            f"{len(f)} seeds, SAG w={w} and SGD stay above 1e-6 in {int(stalled.sum())} of "
            f"{len(f)}"
        ),
        setting=problems[problem][2],
    )


def _fastest(problems, w, problem):
    dsag = f"DSAG w={w}"
    df, ps, setting, limit = problems[problem]
    f = _final_gaps(problems, problem)
    gaps = PCA_GAPS if problem == "PCA" else LOG_GAPS
    times = mean_time_to_gap(df, gaps=gaps).drop(columns="final_gap")
    plain = times[[not m.endswith(f"-LB w={w}") for m in times.index]]
    by_gap = {col: plain[col].idxmin() for col in plain.columns if plain[col].notna().any()}
    everywhere = all(m == dsag for m in by_gap.values())
    if problem == "PCA":
        paper_text = f"DSAG w={w} fastest without load balancing, except SGD at gap 1e-3"
        sgd_first = by_gap.get(1e-3) == f"SGD w={w}"
        others = all(m == dsag for g, m in by_gap.items() if g != 1e-3)
        verdict = (
            "reproduced" if (sgd_first and others) else "partly" if others else "not reproduced"
        )
        reason = (
            ""
            if verdict == "reproduced"
            else f"at 1e-3 the fastest is {by_gap.get(1e-3)}: our SGD stalls at a final gap of "
            f"{f[f'SGD w={w}'].min():.1e} or more"
            if verdict == "partly"
            else "another method is fastest at some gap below 1e-3"
        )
    else:
        paper_text = f"DSAG w={w} fastest without load balancing"
        verdict = "reproduced" if everywhere else "not reproduced"
        reason = "" if everywhere else "another method is fastest at some gap"
    return dict(
        verdict=verdict,
        paper=paper_text,
        ours=", ".join(f"{g:g}: {m}" for g, m in by_gap.items()),
        reason=reason,
        setting=setting,
    )


def _method_specs(w, n, problem):
    """The five Fig. 8 rows of one problem comparing the methods (GD, coded, SAG-LB, ...)."""

    def coded(problems):
        df, ps, setting, limit = problems[problem]
        at = _at_gap(ps)
        value, lo, hi = ratio_interval(at["coded (r=45/49)"].fillna(limit), at["GD"].fillna(limit))
        outcome = "greater" if lo > 1 else "less" if hi < 1 else "indistinguishable"
        return dict(
            verdict="not reproduced" if outcome == "less" else "reproduced",
            ours=f"{value:.3f} [{lo:.3f}, {hi:.3f}] ({outcome})",
            reason="the coded bound is faster than GD in our runs" if outcome == "less" else "",
            setting=setting,
            uncertainty=f"95 % t-interval of the log ratio over {len(at)} paired seeds",
        )

    def sag_lb(problems):
        f = _final_gaps(problems, problem)
        a, b = f[f"SAG-LB w={w}"], f[f"SAG w={w}"]
        return dict(
            numerator=a,
            denominator=b,
            reason="" if ratio_interval(a, b)[2] < 1 else f"not resolved: {_seed_spread(a, b)}",
            setting=problems[problem][2],
        )

    item = f"Fig. 8 {problem}"
    qualitative = partial(spec, "qualitative", item, section=SEC5)
    return [
        _compare5(
            item,
            "time to gap 1e-4: GD / fastest stochastic method",
            lambda problems: _gd_fastest(problems, w, n, problem),
            expected="greater",
            paper=2.0,
            paper_text="more than 2× (for any gap)",
        ),
        qualitative(
            "time to gap 1e-4: coded bound (r = 45/49) / GD",
            coded,
            paper="the straggler resilience of coding is cancelled out by its higher computational load (not faster than GD)",
        ),
        _compare5(
            item,
            f"final gap: SAG-LB / SAG w={w}",
            sag_lb,
            expected="less",
            paper_text="load balancing improves the precision of SAG with w < N",
        ),
        qualitative(
            "with w < N only DSAG converges to the optimum",
            lambda problems: _converges(problems, w, n, problem),
            paper="SAG (w < N) and SGD stall; DSAG (w < N) and SAG (w = N) converge",
        ),
        qualitative(
            "fastest method without load balancing (mean time over seeds)",
            lambda problems: _fastest(problems, w, problem),
        ),
    ]


def _aws(item, quantity, ratio, paper_range, paper_text):
    """A Fig. 8 bottom-row ratio (``ratio``: kind, numerator, denominator, gap) on the AWS-like
    stand-in, the paper's "x % faster" read as a time ratio 1 - x (± 5 % for "about"), as in the
    eX3 rows."""
    kind, numerator, denominator, gap = ratio

    def measured(aws_ps, aws_sizes, aws_setting, seed):
        a, b, censored = paired_times(
            aws_ps[kind], numerator, denominator, gap, censor=aws_sizes[kind]["time_limit"]
        )
        value, lo, hi = ratio_interval(a, b)
        within = lo <= paper_range[1] and hi >= paper_range[0]
        saved = (1 - value) / (1 - np.mean(paper_range))  # our time saved / the paper's
        verdict, reason = None, ""
        if within and lo <= 1 <= hi:
            verdict, reason = "inconclusive", "the interval holds both the paper's ratio and 1"
        elif not within:
            if hi < 1 and not 0.5 <= saved <= 2:
                verdict = "direction only"
            spread = static_spread(kind, "aws", seed), static_spread(kind, "ex3", seed)
            reason = (
                f"measured causes in our AWS-like stand-in: per-seed ratios {np.min(a / b):.2f} to "
                f"{np.max(a / b):.2f} over {len(a)} paired seeds, and the static spread of per-worker mean task "
                f"latency drawn from Table I's ranges, max/min {spread[0]:.2f} against {spread[1]:.2f} in our "
                "eX3-like stand-in"
            )
            if spread[0] >= spread[1]:
                reason += " (Section VII-C says AWS's static variation is smaller than eX3's: ours is larger)"
        censored_text = f"; {censored} run(s) censored at the time limit" if censored else ""
        return dict(
            numerator=a,
            denominator=b,
            verdict=verdict,
            setting=aws_setting + censored_text,
            reason=reason,
        )

    return spec(
        "comparison",
        item,
        quantity,
        measured,
        expected="less",
        paper_range=paper_range,
        paper_text=paper_text,
        section=SEC5B,
    )


def _table1(problem, kind, share, paper_comm, paper_comp):
    """Table I (eX3): the stand-in's latencies per task, set from the table (calibrated)."""

    def measured(seed, n_workers):
        model = artificial_model(kind, n_workers, rng=np.random.default_rng(seed))
        comp = model.comp_mean * share * artificial_slowdown(n_workers)(0.0, 0)
        return dict(
            ours=(
                f"model means: communication {model.comm_mean.min():.1e} to {model.comm_mean.max():.1e}, "
                f"computation {comp.min():.2e} to {comp.max():.2e} (slowdown 1 + 0.4 i/N included)"
            ),
            setting=(
                f"calibrated: comp_mean = {model.comp_mean.mean() * share:.3g} s per task at the paper's p, comm means "
                f"drawn uniformly in the Table I range; chosen: ±2 % per-worker spread, comp_cv = 0.05"
            ),
        )

    return spec(
        "qualitative",
        "Table I",
        f"eX3 {problem} latency per task [s]",
        measured,
        **_CALIBRATED,
        paper=f"communication {paper_comm}, computation {paper_comp}",
        reason="the stand-in cluster's means are set from Table I; this row documents the calibration",
        section=SEC5,
    )


def sgd_text(fit: Mapping[str, float], rows: Sequence[int]) -> str:
    """The measured SGD floor of :func:`sgd_floor` as text."""
    return (
        f"SGD's floor falls as rows^{fit['slope']:.2f} (fit over {fit['n_runs']} runs, {rows} rows); it reaches 1e-3 "
        f"at ≈ {fit['rows_for_1e3']:.0f} rows per subpartition, and extrapolates to {fit['floor_at_paper']:.1e} at the paper's "
        f"{fit['paper_rows']:,.0f}"
    )


def _sgd(sgd, rows, sgd_seeds, pca_size, n_workers):
    p, dim = pca_size["n_subpartitions"], pca_size.get("dim", 100)
    return dict(
        ours=sgd_text(sgd, rows),
        reason=(
            f"our stand-in's subpartitions hold {rows[0]} rows and SGD stalls above 1e-3; the dependence on "
            f"subpartition size is measured and its extrapolation puts the paper's subpartitions far below 1e-3, but a "
            f"stand-in with {sgd['rows_for_1e3']:.0f}+ rows per subpartition ({sgd['rows_for_1e3'] * n_workers * p:,.0f}+ rows) is not run here"
        ),
        setting=(
            f"stand-in PCA matrix of rows × {n_workers} × {p} rows, "
            f"{dim} features; cluster and clock as Fig. 8; seeds {sgd_seeds}"
        ),
    )


def _examples():
    def exact(item, quantity, key, paper):
        return spec(
            "exact", item, quantity, lambda **r: {"ours": str(r[key])}, paper=paper, section=SEC3
        )

    return [
        exact(
            "Example 1",
            "rows of the p = 3 subpartitions of n = 10",
            "parts3",
            "[(1, 3), (4, 6), (7, 10)]",
        ),
        exact("Example 1", "cache entries evicted by X_{4:6}", "evicted", "[(1, 5), (6, 10)]"),
        exact(
            "Example 2",
            "rows missing from the cache after steps 1, 2, 3",
            "missing_rows",
            "[[4, 5], [7, 8, 9, 10], []]",
        ),
        exact("Example 3", "Algorithm 2, p = 2 -> 3 from k = 1: (p, k)", "aligned", "(3, 1)"),
        exact("Sec. VI-C", "Algorithm 2, p = 2 -> 4 from k = 1: (p, k)", "aligned4", "(4, 3)"),
        spec(
            "qualitative",
            "Sec. V",
            "overlap test for a cached range containing the new one",
            lambda written, actual: {
                "ours": f"for new X_{{4:5}} and cached X_{{1:10}} the written test gives {written} although the ranges overlap ({actual})"
            },
            verdict="paper erratum",
            paper="Y' = {Y_{i':j'} : i <= i' <= j or i <= j' <= j} selects the overlapping cache entries",
            reason="the written condition misses a cached range that strictly contains the new one; we use interval "
            "intersection (the text's intent: discard the overlapping entries)",
            section=SEC3,
        ),
    ]


def _algorithm2(visited, broke):
    ours = f"as printed it visits (k, k') = {visited}"
    if not broke:
        return dict(verdict="reproduced", ours=ours, reason="")
    return dict(
        verdict="paper erratum",
        ours=ours + ": k' = 0 is no partition",
        reason="line 4 decrements k' before the alignment test can stop at k' = 1; we stop at k' = 1 (the "
        "termination argument's intent)",
    )


def _timing(ms):
    """The fn. 16 timing row: the timings ``ms`` against the paper's 1.5 ms."""
    _, lo, hi = mean_interval(ms)
    verdict, reason = "reproduced within CI", ""
    if hi < 1.5:
        verdict = "partly"
        reason = (
            "faster than the paper's 1.5 ms on this machine: the claim's point (fast enough "
            "for the load balancer's inner loop) holds; the number depends on machine, load "
            "and implementation (numba here, Julia in the paper)"
        )
    elif lo > 1.5:
        verdict = "not reproduced"
        reason = "slower than the paper's 1.5 ms on this machine and load (numba here, Julia in the paper)"
    uncertainty = f"95 % t-interval over {ms.size} repeated timings"
    return dict(samples=ms, uncertainty=uncertainty, verdict=verdict, reason=reason)


def _latency_claims() -> dict:
    """Section 1: the latency model (Figs. 1-4, our recorded traces)."""
    c = {}
    cloud = partial(
        spec, "qualitative", verdict="not attempted", setting=CLOUD_SETTING, section=SEC1
    )
    c["fig1"] = [
        cloud(
            "Fig. 1",
            "mean latency ∝ load c, variance grows with c",
            _fig1,
            paper="mean and variance of the computation latency grow with c; a line through the origin fits the means (Azure, 100 workers)",
            reason="a claim about measured cloud latency at several loads; our stand-in cluster is built with this scaling "
            "and our MPI traces each have one load, so the figure only checks the fitting pipeline",
        )
    ]
    c["fig2"] = [
        cloud(
            "Fig. 2",
            "mean latency difference of two workers",
            lambda fig23: {"ours": f"{100 * fig23.slower_by:.1f} % (one draw of the stand-in)"},
            paper="worker 2 about 14 % slower than worker 1 (two Azure workers)",
            reason="a property of two particular Azure instances; ours is a draw from the stand-in's chosen ±15 % spread",
        )
    ]
    c["fig4"] = [
        spec(
            "interval",
            "Fig. 4",
            "iterations with ≥ 1 of 36 workers in a burst",
            lambda fig4_seeds: {"samples": 100 * fig4_seeds.any_burst_fraction},
            paper=40.0,
            paper_text="about 40 % (AWS, N = 36)",
            **_CALIBRATED,
            unit="%",
            setting=BURST_SETTING,
            section=SEC1,
            reason="the burst entry rate was chosen to give about 40 %; the row checks the calibration, not the claim",
        )
    ]
    traces = partial(spec, "qualitative", section=SEC1T)
    c["traces"] = [
        traces(
            "Fig. 3",
            "gamma fit of real latency (KS test per worker)",
            _ks,
            paper="communication and computation latency are well approximated by gamma distributions (Azure, AWS)",
            setting=f"our MPI trace {REAL_TRACE} (UMW, N = 12, 40 iterations, 13 processes on a 2-core "
            "VM, nothing injected: computation is a 2400 × 50 least-squares gradient)",
            uncertainty="KS test at 5 % per worker, parameters fitted to the same 40 samples",
        ),
        traces(
            "Fig. 5",
            "per-worker vs i.i.d. model on our w = N traces",
            _fig5_traces,
            paper="the per-worker model predicts the w-th fastest latency accurately; the i.i.d. model can be significantly worse",
            setting="our MPI traces umw-N12-gamma-hetero (injected gamma delays, transfer real) and umw-N12-real (nothing injected)",
            uncertainty="Monte Carlo model predictions (20 000 rounds); one recorded trace each",
        ),
    ]
    for name, label in DSAG_TRACES.items():
        c[f"fig6 {label}"] = _trace_specs(name, label)
    return c


def _order_statistic_claims() -> dict:
    """Section 2: the w-th fastest worker's latency models (Figs. 5-6), the event-driven
    simulator's speed and coordinator rules."""
    by_construction = (
        "; calibrated by construction: recorded latencies drawn from the fitted gamma family"
    )
    sec2 = partial(spec, section=SEC2)
    ratio = partial(sec2, "interval", "Fig. 6", paper=1.0, unit="×", **_CALIBRATED)
    return {
        "fig5": [
            sec2(
                "comparison",
                "Fig. 5",
                "max error of the i.i.d. model / of the per-worker model",
                lambda fig5_err, setting: dict(
                    numerator=fig5_err.iid_max,
                    denominator=fig5_err.heterogeneous_max,
                    setting=setting + by_construction,
                ),
                expected="greater",
                paper_text="i.i.d. 'can significantly reduce accuracy'; per-worker model accurate",
                **_CALIBRATED,
                reason="by construction: the stand-in's workers are gamma with means spread ±30 % (chosen), the family the "
                "per-worker model fits, so its accuracy checks the fitting code; the paper's claim is about Azure",
            )
        ],
        "fig6": [
            sec2(
                "comparison",
                "Fig. 6",
                "order statistic / recorded, w = 9 of 72",
                lambda ends6: dict(
                    numerator=ends6[ends6.w == 9].order_statistic,
                    denominator=ends6[ends6.w == 9].recorded,
                ),
                expected="less",
                paper_text="below 1 (underestimates for w < N)",
                setting=FIG6_SETTING,
            ),
            ratio(
                "event-driven / recorded, w = 9 of 72",
                lambda ends6: {"samples": ends6[ends6.w == 9].event_driven_ratio},
                paper_text="1 (event-driven model accurate)",
                setting=FIG6_SETTING
                + "; calibrated by construction: the stand-in's latencies are drawn from the gamma "
                "family that is fitted",
                reason=(
                    "calibrated parameter: none chosen, but the match is by construction: the recorded run is drawn "
                    "from the same per-worker gamma model family the event-driven model fits, so this checks the "
                    "fitting code, not the paper's claim about real clusters (our real MPI trace: the Fig. 6 rows "
                    "of section 2 above)"
                ),
            ),
            ratio(
                "order statistic / recorded, w = N = 72",
                lambda ends6: {"samples": ends6[ends6.w == 72].order_statistic_ratio},
                paper_text="1 (both models accurate for w = N)",
                setting=FIG6_SETTING + by_construction,
                reason="by construction: the recorded run is drawn from the per-worker gamma family the model fits "
                "(a check of the fitting code, not of the paper's AWS claim)",
            ),
        ],
        "timing": [
            sec2(
                "interval",
                "Sec. VI-B, fn. 16",
                "simulate 100 iterations, N = 100, w = 50",
                _timing,
                paper=1.5,
                paper_text="about 1.5 ms",
                unit="ms",
                setting="N = 100, w = 50, 100 iterations; numba kernel on this machine (a shared 2-core "
                "VM), mean of 50 calls per repeat; paper: the authors' Julia implementation",
                machine_dependent=True,  # a wall-clock timing of this machine
            )
        ],
        "semantics": [
            sec2(
                "qualitative",
                "Sec. V-A",
                "coordinator rules inside the 2 % margin window (the authors' simulator)",
                lambda summary, margin, replicas, seeds: dict(
                    ours="the default of every simulation here, equal event for event to a port of those rules (tests); "
                    "measured against our earlier rule: " + summary,
                    setting=f"paired draws, margin {margin}, {replicas} simulated runs per setting; "
                    f"{len(seeds)} seeds for the convergence ratio",
                ),
                paper="the authors' simulator (CodedComputing.jl): clock to the last arrival in the window; a worker whose stale "
                "result arrives in the window idles until the next iteration",
                verdict="reproduced",
                basis="check",
            )
        ],
    }


def _dsag_claims(w, n_workers) -> dict:
    """Sections 3-5: the paper's examples, Algorithm 2, Fig. 7, Fig. 8 top row (the artificial
    scenario) and Table I."""
    not_attempted = partial(spec, "not_attempted", section=SEC5)
    c = {}
    c["examples"] = _examples()
    c["algorithm2"] = [
        spec(
            "qualitative",
            "Algorithm 2",
            "termination when p shrinks (n = 10, p = 3 -> 2, k = 1)",
            _algorithm2,
            paper="Algorithm 2 always terminates: k = k' = 1 is always aligned (Section VI-C)",
            section=SEC3,
        )
    ]
    c["fig7"] = [
        spec(
            "comparison",
            "Fig. 7",
            "latency without / with load balancing, last 20 iterations",
            lambda fig7_last: dict(
                numerator=fig7_last["not_balanced"], denominator=fig7_last["load_balanced"]
            ),
            expected="greater",
            paper=2.0,
            paper_text="more than 2×",
            **_CALIBRATED,
            setting=FIG7_SETTING
            + "; calibrated: the ×2 slowdown is chosen to match the paper's experiment",
            reason=(
                "calibrated parameter: the ×2 slowdown of the slowed workers is our choice, and an unbalanced "
                "iteration waits for a slowed worker, so a ratio of about 2 follows from it; what is measured is "
                "that the balancer recovers it"
            ),
            section=SEC4,
        )
    ]
    c["fig8"] = [
        _faster(w, n_workers, "PCA", 1e-4, 0.20),
        _faster(w, n_workers, "PCA", 1e-8, 0.30, headline=True),
        _faster(w, n_workers, "log. reg.", 1e-4, 0.30, headline=True),
        _faster(w, n_workers, "log. reg.", 1e-8, 0.30),
    ]
    c["lb"] = [_lb_pca(w), _lb_log(w, 1e-6), _lb_log(w, 1e-10), _fresh(w)]
    c["lb_gain"] = [
        spec(
            "qualitative",
            "Fig. 8 log. reg.",
            "what sets the load-balancing gain (DSAG-LB / DSAG time to 1e-6)",
            lambda noise_table, sweep, seeds: dict(
                setting=f"logistic stand-in as in Fig. 8 but features correlated {sweep['correlation']:g} "
                f"({noise_table['DSAG iterations'].mean():.0f} DSAG iterations to 1e-6 on average), "
                f"{sweep['n_samples']} rows; {len(seeds)} paired seeds per level",
                **describe_lb_gain(noise_table),
            ),
            paper="30–40 % lower latency with load balancing (ratio 0.6–0.7)",
            basis="check",
            section=SEC4,
        )
    ]
    c["methods"] = _method_specs(w, n_workers, "PCA") + _method_specs(w, n_workers, "log. reg.")
    c["table1"] = [
        _table1("PCA", "pca", 0.01, "2e-5 to 6e-5", "2.2e-2 to 3.1e-2"),
        _table1("log. reg.", "logistic", 0.1, "0.2e-5 to 3e-5", "1.8e-3 to 2.5e-3"),
        not_attempted(
            "Sec. II-B",
            "PCA of the 1000 Genomes matrix",
            paper="81271767 × 2504 sparse binary matrix, density 5.36 %",
            reason="the matrix is far too large to ship or run here; PCA runs on a sparse binary low-rank stand-in (named in each row)",
        ),
        not_attempted(
            "Sec. VII",
            "logistic regression on HIGGS",
            paper="11000000 samples, 28 features",
            reason="HIGGS is not shipped; logistic regression runs on a synthetic HIGGS-like stand-in (named in each row)",
        ),
        not_attempted(
            "Sec. VII-B",
            "load balancer's time to a first solution",
            paper="about 7 s (PCA) and 0.5 s (logistic regression)",
            reason="our optimizer runs in zero simulated time (chosen); its real run time on the paper's cluster is not modelled",
        ),
    ]
    c["sgd"] = [
        spec(
            "qualitative",
            "Fig. 8 PCA",
            "SGD reaches a gap of 1e-3 (the paper: SGD fastest there)",
            _sgd,
            paper="SGD w=10 is the fastest method to a gap of 1e-3 (≈ 16,600 rows per subpartition)",
            verdict="partly",
            section=SEC5,
        )
    ]
    return c


def _aws_claims(w) -> dict:
    """Section 5b: Fig. 8 bottom row (the AWS-like stand-in)."""
    dsag, lb, sag = f"DSAG w={w}", "DSAG-LB w=20", "SAG w=100"
    rows = [
        _aws(
            "Fig. 8 bottom row",
            "AWS PCA: DSAG w=10 / SAG w=N, time to 1e-6",
            ("pca", dsag, sag, 1e-6),
            (0.85, 0.95),
            "DSAG up to about 10 % faster (gap below 1e-6; ratio 0.85–0.95)",
        ),
        _aws(
            "Fig. 8 bottom row",
            "AWS log. reg.: DSAG w=10 / SAG w=N, time to 1e-4",
            ("logistic", dsag, sag, 1e-4),
            (0.65, 0.75),
            "DSAG about 30 % faster (gap 1e-4 or lower; ratio 0.65–0.75)",
        ),
        _aws(
            "Sec. VII-C",
            "AWS log. reg.: DSAG-LB w=20 / DSAG w=10, time to 1e-4",
            ("logistic", lb, dsag, 1e-4),
            (0.85, 0.90),
            "DSAG-LB w=20 about 10–15 % faster (ratio 0.85–0.90)",
        ),
        _aws(
            "Abstract, Sec. VII-C, Sec. VIII",
            "AWS log. reg.: DSAG-LB w=20 / SAG w=N, time to 1e-4",
            ("logistic", lb, sag, 1e-4),
            (0.45, 0.55),
            "up to about 50 % faster than SAG; 'reduce latency by up to 50 %' (ratio 0.45–0.55)",
        ),
    ]
    for kind, label in (("pca", "PCA"), ("logistic", "log. reg.")):
        rows.append(
            _aws(
                "Sec. VII-C",
                f"AWS {label}: DSAG w=10 / coded, time to 1e-4",
                (kind, dsag, "coded (r=45/49)", 1e-4),
                (0.45, 0.55),
                "about twice as fast as coded computing on AWS (ratio 0.45–0.55; the abstract: more than twice)",
            )
        )
    for label, kind in (("PCA", "pca"), ("log. reg.", "logistic")):
        (c_lo, c_hi), (z_lo, z_hi), _ = AWS_TABLE_I[kind]
        rows.append(
            spec(
                "qualitative",
                "Table I",
                f"AWS {label} latency per task [s]",
                lambda aws_setting: {"setting": aws_setting},
                **_CALIBRATED,
                paper=f"communication {c_lo:g} to {c_hi:g}, computation {z_lo:g} to {z_hi:g}",
                ours="the AWS-like stand-in's per-worker means are drawn uniformly in these ranges",
                reason="the stand-in is built from Table I; this row documents the calibration",
                section=SEC5B,
            )
        )
    return {"aws": rows}


def claim_specs(w: int = 10, n_workers: int = 49) -> dict:
    """The notebook's claims by section, for its parameters w and N (method labels)."""
    return {
        **_latency_claims(),
        **_order_statistic_claims(),
        **_dsag_claims(w, n_workers),
        **_aws_claims(w),
    }


#: The claims of notebook 03 at its default parameters (w = 10, N = 49), by section.
CLAIMS = claim_specs()
