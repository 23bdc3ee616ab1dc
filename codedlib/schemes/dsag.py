"""DSAG (Severinson et al., Sections V and VI) on a simulated clock.

Partition bookkeeping of Section VI-C (:func:`p_start`, :func:`p_stop`, :func:`p_trans`,
:func:`align_partition`: Algorithm 2; eq. (5)'s cyclic counter is ``k % p + 1``), the gradient
cache of Section V (:class:`GradientCache`), the PCA projection G of eq. (2)
(:func:`gram_schmidt`), the load balancer of Section VI (:class:`LatencyProfiler`,
:func:`contribution`, :func:`optimize_subpartitions`: Algorithm 1), the coordinator of Section
V-A with DSAG, SAG, SGD and GD, optionally load-balanced (:func:`simulate_dsag`), and the
idealised MDS coded-computing bound of Section VII-A (:func:`simulate_coded_bound`).

Partition indices follow the paper (1-based, inclusive); sample ranges handed to problems are
0-based half-open ``[start, stop)`` as in ``codedlib.problems``. Reference: severinson2023dsag."""

from __future__ import annotations

import bisect
import functools
import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from codedlib._validation import RngLike, as_generator, check_array, check_int, check_real
from codedlib.latency.event_driven import SEMANTICS, _check_inputs, _simulate_checked
from codedlib.latency.traces import REQUIRED_COLUMNS
from codedlib.problems import PCA, Problem

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike

    from codedlib.latency.gamma_model import GammaLatencyModel

METHODS = ("dsag", "sag", "sgd", "gd")


# -- Partition bookkeeping (Section VI-C) --------------------------------------------------
def _check_partition(n, p, i, name_i="i"):
    n = check_int("n", n, 1)
    p = check_int("p", p, 1, n)
    i = check_int(name_i, i, 1, p)
    return n, p, i


def p_start(n: int, p: int, i: int) -> int:
    """Section VI's p_start: first sample (1-based) of the i-th of p partitions: ⌊(i-1)n/p⌋ + 1."""
    n, p, i = _check_partition(n, p, i)
    return (i - 1) * n // p + 1


def p_stop(n: int, p: int, i: int) -> int:
    """Section VI's p_stop: last sample (1-based, inclusive) of the i-th of p partitions: ⌊in/p⌋."""
    n, p, i = _check_partition(n, p, i)
    return i * n // p


def p_trans(n: int, p: int, p_new: int, k: int) -> int:
    """Index of the partition (out of ``p_new``) holding sample ``p_start(n, p, k)``.

    Section VI-C: ``p_trans(n, p, p', k) = ⌈p_start(n, p, k) p' / n⌉``."""
    n, p, k = _check_partition(n, p, k, "k")
    p_new = check_int("p_new", p_new, 1, n)
    return -(-p_start(n, p, k) * p_new // n)


def align_partition(
    n: int, p: int, p_new: int, k: int, trace: list | None = None
) -> tuple[int, int]:
    """Algorithm 2 (partition alignment) when a worker goes from ``p`` to ``p_new`` parts:
    the returned ``(p_new, k)``, whose first sample starts a partition of the old subdivision.

    As printed, line 4 can decrement k' to 0 when p shrinks (n = 10, p = 3 -> 2, k = 1: k = 2
    starts at sample 4, k' = p_trans = 1 at 1). We keep k' >= 1; with k' = 1 line 5 gives k = 1
    and the loop ends aligned, the termination argument of Section VI-C."""
    n = check_int("n", n, 1)
    p = check_int("p", p, 1, n)
    p_new = check_int("p_new", p_new, 1, n)
    k = check_int("k", k, 0, p)
    k = k % p + 1  # line 1
    if p_new == p:
        return p, k
    k_new = p_trans(n, p, p_new, k)  # line 2
    if trace is not None:
        trace.append((k, k_new))
    while p_start(n, p_new, k_new) != p_start(n, p, k):  # line 3
        k_new = max(k_new - 1, 1)  # line 4 (kept >= 1, see the note above)
        k = p_trans(n, p_new, p, k_new)  # line 5 (the paper's "n" is the worker's n_i)
        if trace is not None:
            trace.append((k, k_new))
    return p_new, k_new  # lines 7-8


def subpartition_range(n_local: int, p: int, k: int, offset: int = 0) -> tuple[int, int]:
    """0-based half-open global sample range ``[start, stop)`` of local partition k of p (Sec. VI)."""
    if not (1 <= k <= p <= n_local):
        raise ValueError(f"need 1 <= k <= p <= n_local, got k={k}, p={p}, n_local={n_local}")
    return offset + (k - 1) * n_local // p, offset + k * n_local // p


# -- Gradient cache (Section V) ------------------------------------------------------------
class GradientCache:
    """The DSAG gradient cache 𝒴 with running sum H (Section V).

    Entries are sub-gradients ``Y_{i:j}^{(t)}`` keyed by their 0-based sample range ``[start,
    stop)`` and the iteration t of their iterate, sorted by start (O(log |𝒴|) lookups). A new
    one is rejected if an overlapping entry is at least as recent (t' >= t), else the
    overlapping entries 𝒴' are evicted: ``H <- H + Y - sum(𝒴')``. Overlap is interval
    intersection: the paper's written ``i <= i' <= j or i <= j' <= j`` misses an old entry that
    strictly contains the new one, which would double-count samples."""

    def __init__(self, n_samples: int, shape=()):
        self.n_samples = check_int("n_samples", n_samples, 1)
        self._starts: list[int] = []
        self._entries: list[tuple[int, int, int, np.ndarray]] = []  # (start, stop, t, Y)
        self.H = np.zeros(shape)
        self.covered = 0
        self.n_evicted = 0
        self.n_rejected = 0

    @property
    def coverage(self) -> float:
        """ξ: fraction of samples covered by the cached sub-gradients, in ``[0, 1]``."""
        return self.covered / self.n_samples

    def entries(self) -> list[tuple[int, int, int, np.ndarray]]:
        """The cached entries, in order of their first sample."""
        return list(self._entries)

    def insert(self, start: int, stop: int, iteration: int, value: ArrayLike) -> bool:
        """Offer sub-gradient ``value`` over samples ``[start, stop)`` computed at ``iteration``."""
        start, stop = check_int("start", start), check_int("stop", stop)
        iteration = check_int("iteration", iteration)
        if not (0 <= start < stop <= self.n_samples):
            raise ValueError(
                f"sample range must satisfy 0 <= start < stop <= {self.n_samples}, "
                f"got start={start}, stop={stop}"
            )
        slots = self._admit(start, stop, iteration)
        if slots is not None:
            self._store(slots, start, stop, iteration, value)
        return slots is not None

    def _admit(self, start, stop, iteration):
        """The slots ``(lo, hi)`` of the entries a checked range would evict, or None (counted)
        if an overlapping entry is at least as recent."""
        lo = bisect.bisect_right(self._starts, start) - 1
        if lo < 0 or self._entries[lo][1] <= start:
            lo += 1
        hi = bisect.bisect_left(self._starts, stop)
        if any(t >= iteration for _s, _e, t, _ in self._entries[lo:hi]):
            self.n_rejected += 1
            return None
        return lo, hi

    def _store(self, slots, start, stop, iteration, value):
        """Replace the entries in ``slots`` (from :meth:`_admit`) by ``value``."""
        lo, hi = slots
        value = np.asarray(value, dtype=float)
        for s, e, _t, y in self._entries[lo:hi]:
            self.H -= y
            self.covered -= e - s
        self.n_evicted += hi - lo
        self._entries[lo:hi] = [(start, stop, iteration, value)]
        self._starts[lo:hi] = [start]
        self.H += value
        self.covered += stop - start


def gram_schmidt(V: np.ndarray) -> np.ndarray:
    """Gram–Schmidt orthonormalisation of the columns of V (the G(.) of eq. 2 for PCA).

    Computed by :meth:`codedlib.problems.PCA.project`: a thin QR factorisation with the signs
    fixed so that R has a positive diagonal, which is exactly classical Gram–Schmidt's output.

    Returns q with orthonormal columns spanning the same nested subspaces as the columns of V.
    Examples
    --------
    >>> Q = gram_schmidt(np.array([[3.0, 1.0], [4.0, 1.0]]))
    >>> np.allclose(Q.T @ Q, np.eye(2)), Q[:, 0].round(12).tolist()
    (True, [0.6, 0.8])
    """
    V = check_array("V", V, ndim=2)
    return PCA.project(V)


# -- Load balancing (Section VI) -----------------------------------------------------------
class LatencyProfiler:
    """Moving-window latency statistics per worker (Section VI-A). A recording's computation
    latency is divided by its ``load`` (the share of the worker's data; Section VI-B's
    linearisation), so recordings at different numbers of subpartitions average consistently
    (footnote 15)."""

    def __init__(self, n_workers: int, window: float):
        self.n_workers = check_int("n_workers", n_workers, 1)
        self.window = check_real("window", window, 0.0, low_open=True)
        self._records: list[list[tuple[float, float, float]]] = [[] for _ in range(n_workers)]

    def record(self, time: float, worker: int, comm: float, comp: float, load: float) -> None:
        """Record one completed task of ``worker``."""
        if comm < 0 or comp < 0:
            raise ValueError(f"latency must be non-negative, got comm={comm}, comp={comp}")
        self._records[worker].append((time, comm, comp / load))

    def statistics(self, now: float, min_samples: int = 2) -> np.ndarray | None:
        """Latency moments per worker over the window ``(now - window, now]``.

        Recordings older than the window are dropped. Variances are floored at ``1e-12`` times the
        squared mean (so a gamma fit of them stays finite)."""
        stats = np.empty((4, self.n_workers))
        for i, rec in enumerate(self._records):
            while rec and rec[0][0] <= now - self.window:
                rec.pop(0)
            if len(rec) < min_samples:
                return None
            comm, comp = np.asarray(rec)[:, 1:].T
            stats[:, i] = comm.mean(), comm.var(ddof=1), comp.mean(), comp.var(ddof=1)
        stats[1::2] = np.maximum(stats[1::2], 1e-12 * stats[::2] ** 2 + 1e-300)  # the variances
        return stats


def contribution(participation: ArrayLike, p: ArrayLike, n_local: np.ndarray) -> float:
    """Per-iteration contribution ``h(p) = Σ u_i n_i / (p_i n)`` (Section VI-B)."""
    p = np.asarray(p, dtype=float)
    n_local = np.asarray(n_local, dtype=float)
    return float(np.sum(np.asarray(participation) * n_local / (p * n_local.sum())))


def balance_objective(p: ArrayLike, comm_mean: ArrayLike, comp_mean_full: ArrayLike) -> float:
    """Objective of (4): ``max e'_X / min e'_X`` with ``e'_X,i = e_Y,i + E_Z,i / p_i``."""
    p = check_array("p", p, ndim=1)
    if np.any(p <= 0):
        raise ValueError(f"p must hold positive numbers of sub-partitions, got p={p.tolist()}")
    e = np.asarray(comm_mean) + np.asarray(comp_mean_full) / p
    return float(e.max() / e.min())


def optimize_subpartitions(
    p: ArrayLike,
    n_local: ArrayLike,
    comm_mean: ArrayLike,
    comm_var: ArrayLike,
    comp_mean_full: ArrayLike,
    comp_var_full: ArrayLike,
    w: int,
    p_baseline: ArrayLike | None = None,
    margin: float = 0.02,
    n_iterations: int = 100,
    replicas: int = 2,
    rng: RngLike = None,
    semantics: str = "reference",
) -> tuple[np.ndarray, dict[str, float]]:
    """Algorithm 1 (load balancer): the updated numbers of subpartitions p' and a summary.

    h(p') is estimated by event-driven simulation (Section IV-B) of the gamma model with
    computation latency mean ``E_Z,i / p'_i`` and variance ``V_Z,i / p'_i²`` (Section VI-B),
    common random numbers across one call; ``h_min = h(p_baseline)`` (default p). The last
    loop keeps the last p' within the 1 % tolerance (as printed: the first one outside it)."""
    p = np.asarray(p, dtype=np.int64).copy()
    n_local = np.asarray(n_local, dtype=np.int64)
    n_workers = p.shape[0]
    w = check_int("w", w, 1, n_workers)
    if np.any(p < 1) or np.any(p > n_local):
        raise ValueError(f"p must satisfy 1 <= p_i <= n_i, got p={p.tolist()}")
    names = ("comm_mean", "comm_var", "comp_mean_full", "comp_var_full")
    moments = (comm_mean, comm_var, comp_mean_full, comp_var_full)
    moments = [check_array(name, value) for name, value in zip(names, moments)]
    for name, arr in zip(names, moments):
        if np.any(arr < 0):
            raise ValueError(f"{name} must be >= 0 (latency moments), got min={arr.min():g}")
    rng = as_generator(rng)
    comm_mean, comm_var, comp_mean_full, comp_var_full = moments
    # common random numbers (replicas, T, N) for every p' of this call
    shape = (replicas, n_iterations, n_workers)
    comm = rng.gamma(comm_mean**2 / comm_var, comm_var / comm_mean, size=shape)
    comp_full = rng.gamma(
        comp_mean_full**2 / comp_var_full, comp_var_full / comp_mean_full, size=shape
    )
    # the latencies of any p >= 1 are finite and >= 0 iff those of p = 1 are: checked once
    _, w, margin, _, reference, _ = _check_inputs(comm + comp_full, w, margin, None, semantics)
    evaluations = 0

    def h_of(q):  # u_i(q) and h(q) by event-driven simulation (Section VI-B, via Section IV-B)
        nonlocal evaluations
        evaluations += 1
        u = _simulate_checked(comm + comp_full / q, w, margin, reference).participation
        return contribution(u, q, n_local)

    h_min = h_of(p if p_baseline is None else np.asarray(p_baseline))

    def latency(q):
        return comm_mean + comp_mean_full / q

    # Equalise total latency with the slowest worker.
    slowest = int(np.argmax(latency(p)))
    target = latency(p)[slowest]
    with np.errstate(divide="ignore"):
        ratio = comp_mean_full / np.maximum(target - comm_mean, 1e-300)
    q = np.clip(np.floor(ratio * (1 + 1e-12)), 1, n_local).astype(np.int64)
    h = h_of(q)
    steps = 0
    # Increase the workload of the fastest workers until the contribution constraint holds.
    while h < h_min and steps < 10_000:
        steps += 1
        lat = latency(q)
        lat[q <= 1] = np.inf  # cannot give these workers more work
        if np.all(np.isinf(lat)):
            break
        i = int(np.argmin(lat))
        q[i] = max(1, min(q[i] - 1, math.floor(0.99 * q[i])))
        h = h_of(q)
    best = q.copy()
    # Decrease the workload of the slowest workers while the constraint (1 % tol.) holds.
    while h >= 0.99 * h_min and steps < 10_000:
        best = q.copy()
        steps += 1
        lat = latency(q)
        lat[q >= n_local] = -np.inf
        if np.all(np.isneginf(lat)):
            break
        i = int(np.argmax(lat))
        q[i] = min(n_local[i], math.ceil(1.01 * q[i]))
        h = h_of(q)
    return best, dict(h_min=float(h_min), h=float(h_of(best)), evaluations=evaluations, steps=steps)


@dataclass(frozen=True)
class LoadBalancerConfig:
    """Settings of the load balancer of Section VI."""

    interval: float = 0.5
    window: float = 2.0
    threshold: float = 0.1
    delay: float = 0.0
    n_iterations: int = 100
    replicas: int = 2


# -- The coordinator on a simulated clock (Section V-A) ------------------------------------
@dataclass
class DSAGRun:
    """Result of :func:`simulate_dsag` / :func:`simulate_coded_bound`: ``history`` per recorded
    iteration; ``tasks`` (a frame, one row per task) is built from ``task_rows`` when first read."""

    history: pd.DataFrame
    thetas: list
    theta: np.ndarray
    task_rows: list
    repartitions: list = field(default_factory=list)

    @functools.cached_property
    def tasks(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.task_rows, columns=list(_TASK_COLUMNS))


_HISTORY_COLUMNS = (
    "iteration",
    "time",
    "coverage",
    "n_fresh",
    "n_stale",
    "n_rejected",
    "n_evicted",
    "total_subpartitions",
)
_TASK_COLUMNS = (*REQUIRED_COLUMNS, "start", "stop")  # a trace's columns and the task's rows


def _history_frame(history):
    import pandas as pd

    return pd.DataFrame(history, columns=list(_HISTORY_COLUMNS))


def _worker_ranges(n_samples, n_workers):
    starts = np.array([p_start(n_samples, n_workers, i) - 1 for i in range(1, n_workers + 1)])
    stops = np.array([p_stop(n_samples, n_workers, i) for i in range(1, n_workers + 1)])
    return starts, stops - starts


@dataclass
class ClockOptions:
    """What every run on the simulated clock shares (:func:`simulate_dsag`,
    :func:`simulate_coded_bound` and the experiments that compare them): the length of the run,
    the slowdown, the projection G, the start, what is recorded, and the random stream."""

    n_iterations: int = 100
    time_limit: float | None = None
    slowdown: Callable[[float, int], ArrayLike] | None = None
    projection: Callable[[np.ndarray], np.ndarray] | None = None
    theta0: ArrayLike | None = None
    record_every: int = 1
    callback: Callable[[np.ndarray], object] | None = None

    def __post_init__(self):
        self.n_iterations = check_int("n_iterations", self.n_iterations, 1)
        self.record_every = check_int("record_every", self.record_every, 1)
        if self.time_limit is not None:
            self.time_limit = check_real("time_limit", self.time_limit, 0.0, low_open=True)

    def project(self, theta: np.ndarray) -> np.ndarray:
        """Apply the projection G to ``theta``."""
        return theta if self.projection is None else self.projection(theta)

    def start(self, problem: Problem, rng: np.random.Generator) -> np.ndarray:
        """The projected initial iterate (drawn from ``rng`` unless ``theta0`` is given)."""
        theta = problem.initial_point(rng) if self.theta0 is None else self.theta0
        return self.project(np.array(theta, dtype=float))

    def out_of_time(self, now: float) -> bool:
        """Whether the run is past its time limit."""
        return self.time_limit is not None and now > self.time_limit

    def records(self, t: int) -> bool:
        """Whether iteration ``t`` is recorded."""
        return t % self.record_every == 0 or t == self.n_iterations - 1

    def factors(self, now: float, t: int, n_workers: int) -> np.ndarray:
        """Per-worker slowdown factors of tasks starting at ``now`` in iteration ``t``."""
        if self.slowdown is None:
            return np.ones(n_workers)
        return np.asarray(self.slowdown(now, t), dtype=float)


@dataclass(frozen=True)
class CoordinatorPolicy:
    """The coordinator's rules of Section V-A, one definition for the simulator
    (:func:`simulate_dsag`) and the MPI coordinator (:mod:`codedlib.runtime.dsag`).

    Wait for ``w`` fresh results, then ``margin`` times the elapsed time longer; inside that
    window a late worker either idles until the next iteration (``semantics="reference"``, the
    authors' simulator) or starts its queued task at once (``"deadline"``, our MPI workers, which
    hold the newest task); the iteration ends at the last arrival in the window (reference) or
    at the window's end (deadline). DSAG offers every result to the gradient cache, SAG only
    fresh ones (SGD keeps no cache)."""

    w: int
    margin: float = 0.02
    method: str = "dsag"
    semantics: str = "reference"

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got method={self.method!r}")
        if self.semantics not in SEMANTICS:
            raise ValueError(
                f"semantics must be one of {SEMANTICS}, got semantics={self.semantics!r}"
            )
        object.__setattr__(self, "w", check_int("w", self.w, 1))
        object.__setattr__(self, "margin", check_real("margin", self.margin, 0.0))

    def window_end(self, wth_arrival: float, start: float) -> float:
        """When the window after the w-th fresh result (at ``wth_arrival``) closes."""
        return wth_arrival + self.margin * (wth_arrival - start)

    def restarts_late_worker(self, n_fresh: int) -> bool:
        """Does a worker whose stale result just arrived start its queued task now?"""
        return not (self.semantics == "reference" and n_fresh >= self.w)

    def iteration_end(self, window_end: float, last_arrival: float) -> float:
        """When the iteration ends."""
        return last_arrival if self.semantics == "reference" else window_end

    def absorb(
        self,
        cache: GradientCache,
        start: int,
        stop: int,
        iteration: int,
        grad: ArrayLike,
        fresh: bool,
    ) -> bool:
        """Offer a result to the cache (Section V; stale ones under DSAG only): True if it entered."""
        return self.offers(fresh) and cache.insert(start, stop, iteration, grad)

    def offers(self, fresh: bool) -> bool:
        """Is a fresh (or stale) result offered to the cache? (SGD's fresh ones: its sum.)"""
        return fresh or self.method == "dsag"


class _Coordinator:
    """The coordinator of Section V-A and its workers on a simulated clock; one
    :meth:`iteration` hands out tasks, collects results until the deadline and steps.

    Per-worker state is kept in Python lists (scalar work per task). A task records the iterate
    it was handed; its partial gradient is computed when the result is used (pure, so the same
    bits), never for a result the cache rejects or SAG discards."""

    def __init__(self, problem, latency_model, p0, eta, policy, load_balancer, options, rng):
        self.problem, self.eta, self.policy = problem, eta, policy
        m = latency_model
        gamma = m.comm_shape, m.comm_scale, m.comp_shape, m.comp_scale  # per worker
        self.gamma = [np.asarray(g, dtype=float).tolist() for g in gamma]
        self.options, self.rng = options, rng
        self.n_workers = n_workers = latency_model.n_workers
        self.n = problem.n_samples
        starts, n_local = _worker_ranges(self.n, n_workers)
        self.starts, self.n_local = starts.tolist(), n_local.tolist()
        self.p0 = p0
        self.theta = options.start(problem, rng)
        self.cache = GradientCache(self.n, shape=self.theta.shape)
        self.p = [p0] * n_workers
        self.k = [0] * n_workers
        self.pending_p = [0] * n_workers  # 0: no change pending
        self.running = [-1] * n_workers  # iteration of the task in progress
        self.queued = [-1] * n_workers  # iteration of the queued task
        self.task_info = [None] * n_workers  # (start, stop, theta, comm, comp, begin, load)
        self.events: list = []  # (completion time, worker)
        self.balancer = load_balancer
        self.profiler = LatencyProfiler(n_workers, load_balancer.window) if load_balancer else None
        self.lb_next = load_balancer.interval if load_balancer else None
        self.lb_result = self.lb_ready = None
        self.factors = [1.0] * n_workers
        self.now = 0.0
        self.repartitions, self.task_rows, self.history, self.thetas = [], [], [], []

    def gradient(self, theta, lo, hi):
        """``problem.partial_gradient(theta, lo, hi)`` of a checked iterate and range."""
        return self.problem._grad_terms(theta, slice(lo, hi))

    # -- workers -------------------------------------------------------------------------
    def start_task(self, i, t, at):
        """Worker i starts the task of iteration t at time ``at`` on its next subpartition
        (eq. 5), re-partitioned first if the balancer asked for it (Algorithm 2)."""
        n_local = self.n_local[i]
        if self.pending_p[i]:
            p_new, k_new = align_partition(n_local, self.p[i], self.pending_p[i], self.k[i])
            self.repartitions.append((at, i, self.p[i], p_new))
            self.p[i], self.k[i] = p_new, k_new
            self.pending_p[i] = 0
        else:
            self.k[i] = self.k[i] % self.p[i] + 1
        lo, hi = subpartition_range(n_local, self.p[i], self.k[i], self.starts[i])
        load = (hi - lo) / n_local
        comm_shape, comm_scale, comp_shape, comp_scale = self.gamma
        comm = self.rng.gamma(comm_shape[i], comm_scale[i])
        comp = self.rng.gamma(comp_shape[i], comp_scale[i]) * load * self.factors[i]
        self.running[i] = t
        self.task_info[i] = (lo, hi, self.checked_theta, comm, comp, at, load)
        heapq.heappush(self.events, (at + comm + comp, i))

    def hand_out(self, t):
        """Every idle worker starts iteration t's task; a busy one queues it (length one)."""
        for i in range(self.n_workers):
            if self.running[i] < 0:
                self.start_task(i, t, self.now)
            else:
                self.queued[i] = t

    # -- load balancer (Section VI) ----------------------------------------------------------
    def rebalance(self):
        """Apply a finished optimizer result; restart the optimizer on its schedule."""
        lb = self.balancer
        if self.lb_result is not None and self.now >= self.lb_ready:
            for i in np.flatnonzero(self.lb_result != np.array(self.p)):
                self.pending_p[i] = int(self.lb_result[i])
            self.lb_result = None
        if self.now < self.lb_next or self.lb_result is not None:
            return
        self.lb_next = self.now + lb.interval
        stats = self.profiler.statistics(self.now)
        if stats is None:
            return
        pending = np.array(self.pending_p)
        current = np.where(pending > 0, pending, np.array(self.p))
        q, _ = optimize_subpartitions(
            current,
            np.array(self.n_local),
            *stats,
            self.policy.w,
            p_baseline=np.full(self.n_workers, self.p0),
            margin=self.policy.margin,
            n_iterations=lb.n_iterations,
            replicas=lb.replicas,
            rng=self.rng,
            semantics=self.policy.semantics,
        )
        old = balance_objective(current, stats[0], stats[2])
        new = balance_objective(q, stats[0], stats[2])
        if new < (1 - lb.threshold) * old:
            self.lb_result, self.lb_ready = q, self.now + lb.delay
            if lb.delay == 0:
                for i in np.flatnonzero(q != np.array(self.p)):
                    self.pending_p[i] = int(q[i])
                self.lb_result = None

    # -- one iteration -----------------------------------------------------------------------
    def collect(self, t):
        """Pop results until the margin window after the w-th fresh one closes; returns
        ``(n_fresh, n_stale, sgd_sum, sgd_covered, end)``. Fresh results enter the cache (SGD:
        a plain sum); stale ones enter DSAG's cache only. A worker with a queued task starts
        it at once, except (reference rules) when its stale result arrives in the window."""
        start, n_fresh, n_stale = self.now, 0, 0
        sgd_sum, sgd_covered = np.zeros_like(self.theta), 0
        deadline, last_arrival = np.inf, start
        events, policy, profiler = self.events, self.policy, self.profiler
        sgd = policy.method == "sgd"
        while events and events[0][0] <= deadline:
            finish, i = heapq.heappop(events)
            last_arrival = finish
            lo, hi, theta, comm, comp, _begin, load = self.task_info[i]
            task_t = self.running[i]
            is_fresh = task_t == t
            self.task_rows.append((task_t, i, comp, comm, is_fresh, finish, lo, hi))
            if profiler is not None:
                profiler.record(finish, i, comm, comp, load)
            if is_fresh:
                n_fresh += 1
                if sgd:
                    sgd_sum += self.gradient(theta, lo, hi)
                    sgd_covered += hi - lo
                else:
                    self.absorb(lo, hi, task_t, theta, fresh=True)
                if n_fresh == policy.w:
                    deadline = policy.window_end(finish, start)
            elif not sgd:
                n_stale += self.absorb(lo, hi, task_t, theta, fresh=False)
            self.running[i] = -1
            if self.queued[i] >= 0:
                self.queued[i] = -1
                if policy.restarts_late_worker(n_fresh):
                    self.start_task(i, t, finish)
        end = policy.iteration_end(deadline, last_arrival)
        return n_fresh, n_stale, sgd_sum, sgd_covered, end

    def absorb(self, lo, hi, task_t, theta, fresh):
        """:meth:`CoordinatorPolicy.absorb` of the task's gradient, computed only if it enters."""
        slots = self.cache._admit(lo, hi, task_t) if self.policy.offers(fresh) else None
        if slots is not None:
            self.cache._store(slots, lo, hi, task_t, self.gradient(theta, lo, hi))
        return slots is not None

    def iteration(self, t) -> bool:
        """Iteration t: hand out, collect, step V <- G(V - eta H / (xi n)); True to stop."""
        options = self.options
        self.factors = options.factors(self.now, t, self.n_workers).tolist()
        if self.balancer is not None:
            self.rebalance()
        # checked once per iterate; a copy, as tasks use it after later callbacks and projections
        self.checked_theta = self.problem._theta(self.theta).copy()
        self.hand_out(t)
        n_fresh, n_stale, sgd_sum, sgd_covered, self.now = self.collect(t)
        sgd, cache = self.policy.method == "sgd", self.cache
        estimate = sgd_sum / sgd_covered if sgd else cache.H / cache.covered
        self.theta = options.project(self.theta - self.eta * estimate)
        if not options.records(t):
            return False
        coverage = sgd_covered / self.n if sgd else cache.coverage
        row = (t + 1, self.now, coverage, n_fresh, n_stale, cache.n_rejected, cache.n_evicted)
        self.history.append((*row, sum(self.p)))
        self.thetas.append(self.theta.copy())
        return options.callback is not None and bool(options.callback(self.theta))

    def run(self) -> DSAGRun:
        for t in range(self.options.n_iterations):
            if self.options.out_of_time(self.now) or self.iteration(t):
                break
        hist = _history_frame(self.history)
        return DSAGRun(hist, self.thetas, self.theta, self.task_rows, self.repartitions)


def simulate_dsag(
    problem: Problem,
    latency_model: GammaLatencyModel,
    w: int,
    n_subpartitions: int,
    eta: float,
    *,
    method: str = "dsag",
    margin: float = 0.02,
    load_balancer: LoadBalancerConfig | None = None,
    rng: RngLike = None,
    semantics: str = "reference",
    **clock: Any,
) -> DSAGRun:
    """Simulate DSAG and its special cases on a simulated clock (Sections V and VI).

    The ``problem.n_samples`` rows are split evenly over the ``N = latency_model.n_workers``
    workers (``p_start(n, N, i)``), each worker's into ``n_subpartitions`` processed cyclically
    (eq. 5). Iteration t sends V^(t) to every worker: an idle one computes the partial gradient
    of its next subpartition, a busy one queues the task (length one, Section IV-B). A task
    takes ``Y_i + Z_i * load * slowdown`` (``load``: its share of the worker's data). The
    coordinator waits ``margin`` (2 %) of the elapsed time after the w-th fresh result, by the
    rules ``semantics`` (:class:`CoordinatorPolicy`; ``"reference"``: the authors' simulator,
    ``"deadline"``: our MPI coordinator), then steps ``V^(t+1) = G(V^(t) - eta H / (ξ n))`` with
    the cache H of Section V. ``method``: ``"dsag"`` (every arrival offered to the cache),
    ``"sag"`` (stale arrivals discarded; SAG-LB with a load balancer), ``"sgd"`` (no memory, this
    iteration's fresh results only) or ``"gd"`` (w = N, one subpartition: exact GD). ``clock``:
    the fields of :class:`ClockOptions` (length, slowdown, projection G, start, recording)."""
    n_workers = latency_model.n_workers
    n = check_int("problem.n_samples", problem.n_samples, 1)
    if n < n_workers:
        raise ValueError(f"need at least one sample per worker, got n_samples={n} < N={n_workers}")
    w = check_int("w", w, 1, n_workers)
    _, n_local = _worker_ranges(n, n_workers)
    p0 = check_int("n_subpartitions", n_subpartitions, 1, int(n_local.min()))
    eta = check_real("eta", eta, 0.0, low_open=True)
    options = ClockOptions(**clock)
    if method == "gd" and (w != n_workers or p0 != 1):
        raise ValueError(
            f"method='gd' needs w=N={n_workers} and n_subpartitions=1, "
            f"got w={w}, n_subpartitions={p0}"
        )
    policy = CoordinatorPolicy(w, margin, method, semantics)  # checks method, semantics, margin
    coordinator = _Coordinator(
        problem, latency_model, p0, eta, policy, load_balancer, options, as_generator(rng)
    )
    return coordinator.run()


def simulate_coded_bound(
    problem: Problem,
    latency_model: GammaLatencyModel,
    rate: float,
    eta: float = 1.0,
    *,
    rng: RngLike = None,
    **clock: Any,
) -> DSAGRun:
    """Idealised MDS coded-computing bound of Section VII-A.

    Each iteration every worker processes its whole local data with computation latency
    scaled by ``1/rate``; the iteration lasts until the ``⌈rate N⌉``-th fastest worker
    responds (zero decoding cost), and the iterate follows exact GD; ``clock`` as in
    :func:`simulate_dsag`."""
    n_workers = latency_model.n_workers
    rate = check_real("rate", rate, 0.0, 1.0, low_open=True)
    eta = check_real("eta", eta, 0.0, low_open=True)
    options = ClockOptions(**clock)
    rng = as_generator(rng)
    needed = math.ceil(rate * n_workers - 1e-9)
    theta = options.start(problem, rng)
    now = 0.0
    history, thetas, task_rows = [], [], []
    for t in range(options.n_iterations):
        if options.out_of_time(now):
            break
        factors = options.factors(now, t, n_workers)
        comm, comp = latency_model.sample((), rng=rng, slowdown=factors / rate)
        total = comm + comp
        finish = now + np.partition(total, needed - 1)[needed - 1]
        for i in range(n_workers):
            task_rows.append(
                (t, i, comp[i], comm[i], bool(total[i] <= finish - now), now + total[i], -1, -1)
            )
        now = finish
        theta = options.project(theta - eta * np.asarray(problem.gradient(theta)))
        if options.records(t):
            history.append((t + 1, now, 1.0, needed, 0, 0, 0, n_workers))
            thetas.append(theta.copy())
            if options.callback is not None and options.callback(theta):
                break

    return DSAGRun(_history_frame(history), thetas, theta, task_rows)
