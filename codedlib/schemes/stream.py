"""Stream of iterative jobs on heterogeneous workers, simulated (Section VI).

Jobs arrive as a Poisson process of rate ``lambda`` and are served FIFO by the master; a job
is ``I`` iterations, in each of which worker ``p`` receives the model (``c_p``) and returns
its ``kappa_p`` task results one by one (eq. 1). An iteration ends with purging when ``K`` of
the ``K Omega`` results have arrived, without purging when every assigned task has finished
(``T_itr = max_p T_{p,kappa_p}``). Iterations are i.i.d., so all ``J x I`` iteration times are
drawn at once and the queue runs the vectorised Lindley recursion.

Reference: esfahanizadeh2022stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from codedlib._validation import RngLike, as_generator, check_array, check_int, check_real
from codedlib.replicate import over_seeds
from codedlib.theory.stream import StreamWorkers

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

_CHUNK_ELEMENTS = 2_000_000  # task-time samples drawn at once (memory bound)


def _check_kappa(workers: StreamWorkers, kappa) -> np.ndarray:
    kappa = check_array("kappa", kappa, ndim=1)
    if np.any(kappa != np.round(kappa)) or np.any(kappa < 0):
        raise ValueError(
            f"kappa must hold non-negative integer task counts, got kappa={kappa.tolist()}"
        )
    if not np.any(kappa > 0):
        raise ValueError(f"kappa must give at least one worker a task, got kappa={kappa.tolist()}")
    return check_array("kappa", kappa, shape=(workers.n_workers,)).astype(np.int64)


def sample_task_times(
    workers: StreamWorkers, kappa: ArrayLike, n_iterations: int, rng: RngLike
) -> np.ndarray:
    """Task completion times within an iteration (Sec. II): ``(n_iterations, sum kappa)``.

    Column block ``p`` holds ``c_p + cumsum`` of ``kappa_p`` i.i.d. task times of worker ``p``
    (gamma with the worker's moments; exponential when ``sigma_p = m_p``).
    """
    rng = as_generator(rng)
    n_iterations = check_int("n_iterations", n_iterations, low=1)
    kappa = _check_kappa(workers, kappa)
    shape, scale = workers.gamma_parameters()
    out = np.empty((n_iterations, int(kappa.sum())))
    first = 0
    for p in np.flatnonzero(kappa):
        size = (n_iterations, int(kappa[p]))
        if not np.isfinite(shape[p]):
            draws = np.full(size, workers.task_mean[p])
        elif shape[p] == 1.0:
            draws = rng.exponential(scale[p], size=size)
        else:
            draws = rng.gamma(shape[p], scale[p], size=size)
        np.cumsum(draws, axis=1, out=draws)  # in place: a strided `out` is slower
        np.add(workers.comm_time[p], draws, out=out[:, first : first + size[1]])
        first += size[1]
    return out


def sample_iteration_times(
    workers: StreamWorkers,
    kappa: ArrayLike,
    K: int,
    n_iterations: int,
    purging: bool = True,
    rng: RngLike = None,
) -> np.ndarray:
    """``n_iterations`` i.i.d. iteration times ``T_itr`` for the split ``kappa`` (Sec. II, eq. (2)).

    Purging: the ``K``-th smallest task completion time. No purging: the largest
    ``T_{p,kappa_p}`` (each drawn directly as ``c_p`` plus a gamma sum of ``kappa_p`` tasks).
    """
    rng = as_generator(rng)
    kappa = _check_kappa(workers, kappa)
    K = check_int("K", K, low=1, high=int(kappa.sum()))
    n_iterations = check_int("n_iterations", n_iterations, low=1)
    if not purging:
        shape, scale = workers.gamma_parameters()
        out = np.zeros(n_iterations)
        for p in np.flatnonzero(kappa):
            if np.isfinite(shape[p]):
                total = rng.gamma(kappa[p] * shape[p], scale[p], size=n_iterations)
            else:
                total = np.full(n_iterations, kappa[p] * workers.task_mean[p])
            np.maximum(out, workers.comm_time[p] + total, out=out)
        return out
    step = max(1, _CHUNK_ELEMENTS // int(kappa.sum()))
    out = np.empty(n_iterations)
    for lo in range(0, n_iterations, step):
        hi = min(n_iterations, lo + step)
        times = sample_task_times(workers, kappa, hi - lo, rng)
        times.partition(K - 1, axis=1)  # in place: the array is ours
        out[lo:hi] = times[:, K - 1]
    return out


def fifo_delays(arrivals: ArrayLike, service: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Sec. II's FIFO queue at the master (Fig. 1, G/G/1): returns ``(start, finish)`` times of every job.

    Vectorised Lindley recursion: ``finish_j = S_j + max_{k<=j}(a_k - S_{k-1})`` with
    ``S`` the cumulative service time.
    """
    arrivals = check_array("arrivals", arrivals, ndim=1)
    service = check_array("service", service, shape=arrivals.shape)
    if np.any(service < 0):
        raise ValueError(f"service times must be >= 0, got min(service)={service.min():g}")
    if np.any(np.diff(arrivals) < 0):
        raise ValueError("arrivals must be non-decreasing")
    cum = np.cumsum(service)
    prev = np.concatenate(([0.0], cum[:-1]))
    finish = cum + np.maximum.accumulate(arrivals - prev)
    return finish - service, finish


@dataclass(frozen=True)
class StreamSimulation:
    """One simulated stream of ``J`` jobs (one seed).

    ``stable`` compares the estimated ``E[T_s]`` with ``E[T_a] = 1/lambda``; when it is False
    ``mean_delay`` is nan (the queue grows without bound: no meaningful average).
    """

    arrivals: np.ndarray
    service: np.ndarray
    start: np.ndarray
    delays: np.ndarray
    service_mean: float
    rho: float
    stable: bool

    @property
    def mean_delay(self) -> float:
        return float(self.delays.mean()) if self.stable else math.nan


def simulate_stream(
    workers: StreamWorkers,
    kappa: ArrayLike,
    K: int,
    iterations: int,
    arrival_rate: float,
    n_jobs: int,
    purging: bool = True,
    rng: RngLike = None,
) -> StreamSimulation:
    """Simulate ``n_jobs`` Poisson-arriving jobs of ``iterations`` iterations each (Section VI).

    Stability is judged on the estimated mean service time over the ``n_jobs x I``
    simulated iterations (its standard error included): ``rho >= 1`` is reported as unstable.
    """
    rng = as_generator(rng)
    iterations = check_int("iterations", iterations, low=1)
    arrival_rate = check_real("arrival_rate", arrival_rate, low=0.0, low_open=True)
    n_jobs = check_int("n_jobs", n_jobs, low=1)
    arrivals = np.cumsum(rng.exponential(1.0 / arrival_rate, size=n_jobs))
    itr = sample_iteration_times(workers, kappa, K, n_jobs * iterations, purging, rng)
    itr = itr.reshape(n_jobs, iterations)
    service = itr.sum(axis=1)
    start, finish = fifo_delays(arrivals, service)
    service_mean = float(itr.mean()) * iterations
    rho = service_mean * arrival_rate
    return StreamSimulation(arrivals, service, start, finish - arrivals, service_mean, rho, rho < 1)


def t_halfwidth(sd: ArrayLike, n: ArrayLike) -> float | np.ndarray:
    """Half-width of the 95 % t-interval (ours, Sec. VI's averages) of a mean of ``n`` samples of standard deviation ``sd``
    (elementwise)."""
    return stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n)


@dataclass(frozen=True)
class DelaySummary:
    """Average job delay over several seeds: mean, half-width of a 95% t interval."""

    mean: float
    ci_halfwidth: float
    per_seed: np.ndarray
    rho: float
    stable: bool

    @classmethod
    def of_streams(cls, per_seed: ArrayLike, rho: float, stable: bool = True) -> DelaySummary:
        """Per-stream averages: their mean and :func:`t_halfwidth` (nan when not ``stable``)."""
        per_seed = np.asarray(per_seed, dtype=float)
        if not stable:
            return cls(math.nan, math.nan, per_seed, rho, False)
        half = float(t_halfwidth(per_seed.std(ddof=1), len(per_seed)))
        return cls(float(per_seed.mean()), half, per_seed, rho, True)

    def __str__(self) -> str:
        if not self.stable:
            return f"unstable (rho={self.rho:.3f})"
        return f"{self.mean:.2f} ± {self.ci_halfwidth:.2f}"


def _stream_means(seed, *, stream) -> dict:
    """One seed of :func:`simulate_mean_delay`: ``stream`` is :func:`simulate_stream`'s arguments
    before ``rng``."""
    one = simulate_stream(*stream, seed)
    return {"mean_delay": one.delays.mean(), "service_mean": one.service_mean, "stable": one.stable}


def simulate_mean_delay(
    workers: StreamWorkers,
    kappa: ArrayLike,
    K: int,
    iterations: int,
    arrival_rate: float,
    n_jobs: int,
    purging: bool = True,
    seeds: int | Iterable[int] = range(5),
) -> DelaySummary:
    """Average job delay (Sec. VI's measure) over ``n_jobs`` for every seed and a 95% t interval.

    Each seed is one independent stream; the per-seed averages are the i.i.d. samples of the
    interval. If any seed's stream is unstable (``rho >= 1``) the summary is marked unstable
    and its mean is nan.
    """
    seeds = list(seeds)
    if len(seeds) < 2:
        raise ValueError(f"seeds must hold at least 2 seeds for an interval, got {len(seeds)}")
    stream = (workers, kappa, K, iterations, arrival_rate, n_jobs, purging)
    runs = over_seeds(_stream_means, seeds, desc="stream seeds", stream=stream)
    rho = float(np.mean(runs["service_mean"].to_list())) * arrival_rate
    stable = bool(rho < 1.0 and runs["stable"].all())
    return DelaySummary.of_streams(runs["mean_delay"].to_numpy(), rho, stable)


def activity_trace(
    workers: StreamWorkers,
    kappa: ArrayLike,
    K: int,
    iterations: int,
    arrival_rate: float,
    n_jobs: int,
    rng: RngLike = None,
) -> tuple[list[dict], dict[str, np.ndarray]]:
    """Busy intervals of every worker for the first ``n_jobs`` jobs (Fig. 3, with purging).

    Returns rows ``{job, iteration, worker, start, stop}``: worker ``p`` is
    busy from the iteration start until it has finished its assignment or the iteration is
    over (purged), whichever is first; plus the job arrivals, starts and finishes.
    """
    rng = as_generator(rng)
    kappa = _check_kappa(workers, kappa)
    K = check_int("K", K, low=1, high=int(kappa.sum()))
    iterations = check_int("iterations", iterations, low=1)
    n_jobs = check_int("n_jobs", n_jobs, low=1)
    arrival_rate = check_real("arrival_rate", arrival_rate, low=0.0, low_open=True)
    arrivals = np.cumsum(rng.exponential(1.0 / arrival_rate, size=n_jobs))
    times = sample_task_times(workers, kappa, n_jobs * iterations, rng)
    own_finish = np.zeros((n_jobs * iterations, workers.n_workers))
    # a worker's tasks finish in order: its last column (cumulative sums) is its finish
    own_finish[:, kappa > 0] = times[:, np.cumsum(kappa)[kappa > 0] - 1]
    itr = np.partition(times, K - 1, axis=1)[:, K - 1].reshape(n_jobs, iterations)
    start, finish = fifo_delays(arrivals, itr.sum(axis=1))
    offsets = start[:, None] + np.concatenate(
        (np.zeros((n_jobs, 1)), np.cumsum(itr, axis=1)[:, :-1]), axis=1
    )
    # a worker is busy until its last task or the iteration's end, whichever is first
    busy = np.minimum(own_finish.reshape(n_jobs, iterations, -1), itr[:, :, None])
    stop = offsets[:, :, None] + busy
    rows = [
        {"job": j, "iteration": i, "worker": int(p), "start": offsets[j, i], "stop": stop[j, i, p]}
        for j in range(n_jobs)
        for i in range(iterations)
        for p in np.flatnonzero(kappa)
    ]
    return rows, {"arrival": arrivals, "start": start, "finish": finish}
