"""DSAG on MPI (DSAG Sections V and V-A): the simulator's rules on real processes.

A worker's k-th task computes ``Y_{i:j} = sum_{k=i}^{j} grad f_k(V)`` over its sub-partition
``k mod p`` (:func:`dsag_terms`); it finishes the task it is on and queues only the newest
iterate (Section IV-B), so results of older iterates arrive late. Iteration ``t`` sends
``V^(t)``, waits for ``w`` fresh results plus ``margin`` of the elapsed time (Section V-A),
offers every result to the :class:`~codedlib.schemes.dsag.GradientCache` (Section V) and
steps ``V <- V - eta * H / (xi * n)``, ``xi`` the share of samples the cache covers.

DSAG-LB (Section VI) profiles every result's latencies over a moving window, runs Algorithm 1
every ``lb_interval`` s and, when objective (4) improves by ``lb_threshold``, sends the
workers whose ``p_i`` changed their new one; a worker switches at its next task (Algorithm 2).
The injected delay scales with the task's size (Section VI-B's linear load model)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from codedlib.latency.gamma_model import queue_wait
from codedlib.runtime.comm import HEADER, TAG_REPARTITION, now
from codedlib.runtime.nodes import NodePlan, RootNode, WorkerNode
from codedlib.schemes.dsag import (
    CoordinatorPolicy,
    GradientCache,
    LatencyProfiler,
    align_partition,
    balance_objective,
    optimize_subpartitions,
    subpartition_range,
)

if TYPE_CHECKING:
    from codedlib.runtime.config import RunConfig
    from codedlib.runtime.nodes import Term


def dsag_terms(n_samples: int, n_workers: int, worker: int, subpartitions: int) -> list[Term]:
    """Sample ranges ``(start, stop, 1.0)`` of the sub-partitions of ``worker`` (0-based), in
    the order the worker processes them: the same bookkeeping as the simulator
    (:func:`codedlib.schemes.dsag.subpartition_range`, DSAG eq. 5)."""
    offset, stop = subpartition_range(n_samples, n_workers, worker + 1)  # the worker's rows
    return [
        (*subpartition_range(stop - offset, subpartitions, k, offset), 1.0)
        for k in range(1, subpartitions + 1)
    ]


def dsag_plan(config: RunConfig, n_samples: int, rank: int) -> NodePlan:
    """Coordinator: waits for ``w`` fresh results; worker ``i``: its sub-partitions."""
    if rank == 0:
        return NodePlan(0, None, list(range(1, config.n_workers + 1)), need=config.w, label="root")
    terms = dsag_terms(n_samples, config.n_workers, rank - 1, config.subpartitions)
    return NodePlan(rank, 0, terms=terms, label=f"worker {rank - 1}")


class DSAGWorker(WorkerNode):
    """Finishes every task; the k-th task covers sub-partition ``k mod p``."""

    def choose_terms(self) -> list[Term]:
        return [self.plan.terms[self.tasks_done % len(self.plan.terms)]]


class DSAGCoordinator(RootNode):
    """Waits for ``w`` fresh subgradients (+ ``margin``), folds in stale ones: the simulator's
    :class:`~codedlib.schemes.dsag.CoordinatorPolicy` with ``semantics="deadline"`` (our workers
    hold the newest task and start it the moment they finish, so a late worker cannot be kept
    idle inside the window, and the window is waited out in full)."""

    def setup(self) -> None:
        self.policy = CoordinatorPolicy(self.plan.need, self.config.margin, "dsag", "deadline")
        self.cache = GradientCache(self.problem.n_samples, shape=(self.problem.dim,))

    reads_stale = True  # every result offered to the cache occupies the port (t_c)

    def check_error(self, g: np.ndarray) -> float:
        return np.nan  # no exact reference: the cache mixes iterates

    def on_any_result(self, src: int, buf: np.ndarray, fresh: bool, row: int) -> None:
        start, stop = int(buf[4]), int(buf[5])
        used = self.policy.absorb(self.cache, start, stop, int(buf[0]), buf[HEADER:].copy(), fresh)
        self.rows[row]["used"] = used

    def finish(self, start: float) -> tuple[float, np.ndarray]:
        """Wait out the window; ``H / xi``, the cache's estimate of the full sum."""
        self.wait(lambda: False, self.policy.window_end(now(), start))
        return now(), self.cache.H * (self.problem.n_samples / self.cache.covered)


class DSAGLBWorker(DSAGWorker):
    """A DSAG worker whose number of sub-partitions the coordinator may change (Section VI)."""

    def setup(self) -> None:
        config, n_samples = self.config, self.problem.n_samples
        self.offset, stop = subpartition_range(n_samples, config.n_workers, self.plan.worker + 1)
        self.n_local = stop - self.offset
        self.p = self.p0 = config.subpartitions
        self.k = 0  # sub-partition processed last (0: none yet)
        self.pending_p = 0

    def on_message(self, tag: int, src: int, buf: np.ndarray) -> None:
        if tag == TAG_REPARTITION:
            self.pending_p = int(buf[0])

    def choose_terms(self) -> list[Term]:
        if self.pending_p:
            self.p, self.k = align_partition(self.n_local, self.p, self.pending_p, self.k)
            self.pending_p = 0
        else:
            self.k = self.k % self.p + 1
        return [(*subpartition_range(self.n_local, self.p, self.k, self.offset), 1.0)]

    def task_delay(self, t: int, terms: list[Term]) -> float:
        """The injected delay is drawn for a sub-partition of the default size
        ``n_local / subpartitions``; a task of another size takes proportionally longer."""
        start, stop, _ = terms[0]
        return super().task_delay(t, terms) * (stop - start) * self.p0 / self.n_local


class DSAGLBCoordinator(DSAGCoordinator):
    """DSAG coordinator with the load balancer of Section VI (see the module docstring)."""

    def setup(self) -> None:
        super().setup()
        config, N = self.config, self.config.n_workers
        ranges = [subpartition_range(self.problem.n_samples, N, i) for i in range(1, N + 1)]
        self.n_local = np.array([stop - start for start, stop in ranges])
        self.p = np.full(N, config.subpartitions, dtype=np.int64)
        self.profiler = LatencyProfiler(N, config.lb_window)
        self.rng = np.random.default_rng(config.seed + 1)
        self.next_balance = now() + config.lb_interval
        self.repartitions = []  # (iteration, worker, p_old, p_new)
        self.last_arrival = {}  # worker -> time its previous result arrived
        # compile the simulator's kernel now, not inside a timed iteration
        moments = (np.full(N, v) for v in (1e-3, 1e-8, 1e-2, 1e-6))
        optimize_subpartitions(
            self.p, self.n_local, *moments, config.w, n_iterations=4, replicas=1, rng=0
        )

    def on_any_result(self, src: int, buf: np.ndarray, fresh: bool, row: int) -> None:
        super().on_any_result(src, buf, fresh, row)
        r = self.rows[row]
        i = src - 1
        # a task sent while the worker still computed its previous one waited in its queue:
        # that wait is inside comm_time but is not the worker's latency (without_queueing)
        arrival = r["wall_clock"] + self.t0
        previous = self.last_arrival.get(i, np.nan)
        wait = float(queue_wait(previous, arrival, r["comm_time"], r["compute_time"]))
        self.last_arrival[i] = arrival
        load = (int(buf[5]) - int(buf[4])) / self.n_local[i]
        if load > 0:
            comm, comp = max(float(r["comm_time"]) - wait, 0.0), max(float(r["compute_time"]), 0.0)
            self.profiler.record(now(), i, comm, comp, load)

    def balance(self, t: int) -> None:
        """Algorithm 1 on the profiled latencies; send the changed ``p_i``."""
        cfg = self.config
        self.next_balance = now() + cfg.lb_interval
        stats = self.profiler.statistics(now())
        if stats is None:
            return
        q, _ = optimize_subpartitions(
            self.p,
            self.n_local,
            *stats,
            cfg.w,
            p_baseline=np.full(cfg.n_workers, cfg.subpartitions),
            margin=cfg.margin,
            rng=self.rng,
            semantics=self.policy.semantics,
        )
        old, new = (balance_objective(x, stats[0], stats[2]) for x in (self.p, q))
        if not new < (1 - cfg.lb_threshold) * old:
            return
        for i in np.flatnonzero(q != self.p):
            self.repartitions.append((t, int(i), int(self.p[i]), int(q[i])))
            self.sends.isend(self.comm, np.array([float(q[i])]), int(i) + 1, TAG_REPARTITION)
        self.p = q

    def run(self) -> None:
        try:
            super().run()
        finally:
            self.extra["repartitions"] = self.repartitions
            self.extra["subpartitions_final"] = self.p.tolist()
            self.notes.append(
                f"load balancer: {len(self.repartitions)} changes of p_i; final "
                f"sub-partitions per worker {self.p.tolist()}"
            )

    def begin(self, t: int) -> None:
        if now() >= self.next_balance:
            self.balance(t)
