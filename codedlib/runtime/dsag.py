"""DSAG on MPI (DSAG Section V and V-A): coordinator with a gradient cache, stale results used.

Workers each store an equal share of the rows, cut into ``subpartitions`` contiguous
sub-partitions (the simulator's bookkeeping, :func:`dsag_terms`); the k-th task a worker
processes computes the subgradient ``Y_{i:j} = sum_{k=i}^{j} grad f_k(V)`` over its
sub-partition ``k mod p``. Each worker has a
task queue of length one (the newest iterate replaces a queued one) and always finishes the
task it is on (DSAG Section IV-B), so results of older iterates arrive late.

The coordinator, in iteration ``t``, sends ``V^(t)`` to every worker and waits until it has
``w`` *fresh* subgradients (computed from ``V^(t)``), then keeps collecting for ``margin``
(2 %) of the time spent so far (Section V-A). Every received subgradient, fresh or stale, is
offered to the gradient cache (Section V, :class:`codedlib.schemes.dsag.GradientCache`, the
simulator's own cache): it replaces the cached entries it overlaps unless
one of them is at least as recent, and ``H``, the sum of the cache, is kept up to date. The
step is ``V <- V - eta * H / (xi * n)``, ``xi`` the fraction of samples the cache covers (the
regulariser is inside every ``f_i`` in :mod:`codedlib.problems`).
"""

from __future__ import annotations

import numpy as np

from codedlib.runtime.comm import HEADER, now
from codedlib.runtime.nodes import NodePlan, RootNode, WorkerNode
from codedlib.schemes.dsag import GradientCache, p_start, p_stop, subpartition_range


def dsag_terms(n_samples: int, n_workers: int, worker: int, subpartitions: int) -> list:
    """Sample ranges ``(start, stop, 1.0)`` of the sub-partitions of ``worker`` (0-based), in
    the order the worker processes them: the same bookkeeping as the simulator
    (:func:`codedlib.schemes.dsag.subpartition_range`, DSAG eq. 5)."""
    offset = p_start(n_samples, n_workers, worker + 1) - 1
    n_local = p_stop(n_samples, n_workers, worker + 1) - offset
    return [(*subpartition_range(n_local, subpartitions, k, offset), 1.0)
            for k in range(1, subpartitions + 1)]

__all__ = ["DSAGCoordinator", "DSAGWorker", "dsag_plan", "dsag_terms"]


def dsag_plan(config, n_samples: int, rank: int) -> NodePlan:
    """Coordinator: waits for ``w`` fresh results; worker ``i``: its sub-partitions."""
    if rank == 0:
        return NodePlan(0, None, list(range(1, config.n_workers + 1)), need=config.w, label="root")
    return NodePlan(rank, 0, terms=dsag_terms(n_samples, config.n_workers, rank - 1,
                                              config.subpartitions), label=f"worker {rank - 1}")


class DSAGWorker(WorkerNode):
    """Finishes every task; the k-th task covers sub-partition ``k mod p``."""

    def choose_terms(self):
        return [self.plan.terms[self.tasks_done % len(self.plan.terms)]]


class DSAGCoordinator(RootNode):
    """Waits for ``w`` fresh subgradients (+ ``margin``), folds in stale ones."""

    def __init__(self, comm, config, plan, problem, t0, theta_star=None):
        super().__init__(comm, config, plan, problem, t0, theta_star)
        self.cache = GradientCache(problem.n_samples, shape=(problem.dim,))
        self.n_fresh = 0

    def before_iteration(self, t: int):
        """Hook run before iteration ``t`` starts (DSAG-LB: the load balancer)."""

    def check_error(self, g) -> float:
        return np.nan  # no exact reference: the cache mixes iterates

    def on_any_result(self, src, buf, fresh, row):
        start, stop = int(buf[4]), int(buf[5])
        used = self.cache.insert(start, stop, int(buf[0]), buf[HEADER:].copy())
        self.rows[row]["used"] = used
        self.n_fresh += fresh

    def run(self):
        n = self.problem.n_samples
        for t in range(self.config.iterations):
            self.before_iteration(t)
            self.current = t
            self.fresh = []
            self.n_fresh = 0
            start = now()
            self.send_task(t, self.theta)
            if not self.wait(lambda: self.n_fresh >= self.plan.need, start + self.config.timeout):
                self.timeout_error(t)
            extra = self.config.margin * (now() - start)
            self.wait(lambda: False, now() + extra)
            end = now()
            g = self.cache.H * (n / self.cache.covered)  # H / xi: estimate of the full sum
            self.record_iteration(t, start, end, g)

