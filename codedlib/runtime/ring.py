"""Ring-AllReduce (RAR, CodedReduce Section II-B): MPI_Allreduce or a hand-written ring.

The data are split evenly over the N workers (ranks 1..N, their own communicator); every
iteration each worker computes its partial gradient, sleeps its injected delay, and the workers
all-reduce the sum and take the same step. Rank 0 computes nothing: a watchdog (RAR tolerates
no straggler: it stops a run whose iteration exceeds ``timeout``) that keeps the loss curve
from worker 0's progress messages. ``allreduce="mpi"`` is the library's ``MPI_Allreduce`` (the
paper's); ``allreduce="ring"`` the bandwidth-optimal ring (Patarasuk and Yuan), each of whose
``2 (N - 1)`` rounds is timed and charged the injected ``t_c`` (single port).
"""

from __future__ import annotations

import os
import signal
import time
from typing import TYPE_CHECKING

import numpy as np

from codedlib.latency.traces import ROUND_COLUMNS
from codedlib.runtime.comm import (
    TAG_PROGRESS,
    TAG_RING,
    TAG_STOP,
    TAG_TRACE,
    Interrupted,
    Poller,
    now,
    sleep_interruptible,
    wait_all,
)
from codedlib.runtime.nodes import (
    NodePlan,
    RootNode,
    StragglerTimeout,
    inject_root_failure,
    local_gradient,
)
from codedlib.runtime.star import star_plan

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd
    from mpi4py import MPI

    from codedlib.problems import Problem
    from codedlib.runtime.config import RunConfig


def ring_allreduce(
    comm: MPI.Comm,
    vector: np.ndarray,
    t_c: float = 0.0,
    poller: Poller | None = None,
    rounds: list[tuple[str, int, float]] | None = None,
    interrupt: Callable[[], bool] | None = None,
) -> np.ndarray:
    """Sum ``vector`` over ``comm`` with the ring algorithm; every rank gets the sum.

    2 (P - 1) rounds for P ranks; round ``k`` of the reduce-scatter sends chunk
    ``(r - k) mod P`` to rank ``r + 1`` and adds chunk ``(r - k - 1) mod P`` from ``r - 1``;
    the all-gather then circulates the reduced chunks. ``rounds`` receives
    ``(phase, round, seconds)`` per round. Waiting probes and sleeps (no busy loop);
    ``interrupt()`` returning True while waiting raises :class:`~codedlib.runtime.comm.Interrupted`.
    """
    from mpi4py import MPI

    P, r = comm.Get_size(), comm.Get_rank()
    out = np.array(vector, dtype=float, copy=True)
    if P == 1:
        return out
    poller = poller or Poller()
    bounds = np.linspace(0, out.size, P + 1).round().astype(int)
    chunk = lambda c: slice(bounds[c % P], bounds[c % P + 1])
    recv = np.empty(max(int(np.diff(bounds).max()), 1))
    for gather, phase in enumerate(("reduce-scatter", "all-gather")):
        for k in range(P - 1):
            start = now()
            # send chunk r - k (+1 when gathering) right, receive the one before it from the left
            sendbuf, rc = out[chunk(r - k + gather)].copy(), chunk(r - k - 1 + gather)
            n_recv = rc.stop - rc.start
            reqs = [
                comm.Irecv([recv, n_recv, MPI.DOUBLE], source=(r - 1) % P, tag=TAG_RING),
                comm.Isend(sendbuf, dest=(r + 1) % P, tag=TAG_RING),
            ]
            wait_all(reqs, poller, interrupt)
            if t_c > 0:
                time.sleep(t_c)
            if gather:
                out[rc] = recv[:n_recv]
            else:
                out[rc] += recv[:n_recv]
            if rounds is not None:
                rounds.append((phase, k, now() - start))
    return out


def ring_plan(config: RunConfig, n_samples: int, rank: int) -> NodePlan:
    """Worker ``i``: its even partition; rank 0 watches all N workers (it computes nothing)."""
    return star_plan(config, n_samples, rank, config.n_workers, label="watchdog")


def _ring_comm(comm: MPI.Comm, rank: int) -> MPI.Comm:
    """The workers' own communicator (collective over ``comm``: every rank calls it once)."""
    from mpi4py import MPI

    return comm.Split(0 if rank > 0 else MPI.UNDEFINED, rank)


class RingWorker:
    """A RAR worker: compute, sleep the injected delay, all-reduce with the other workers,
    step; worker 0 reports each iteration to the watchdog (rank 0)."""

    def __init__(
        self,
        comm: MPI.Comm,
        config: RunConfig,
        plan: NodePlan,
        problem: Problem,
        t0: float,
        delays: np.ndarray,
        stop_at: int,
        start_wall: float = 0.0,
    ) -> None:
        self.comm, self.config, self.plan, self.problem = comm, config, plan, problem
        self.delays, self.stop_at, self.start_wall = delays, stop_at, start_wall
        self.wcomm = _ring_comm(comm, comm.Get_rank())

    def run(self) -> None:
        try:
            self._run(self.comm, self.wcomm, self.config, self.problem, self.delays)
        finally:
            self.wcomm.Free()

    def _run(self, comm, wcomm, config, problem, delays):
        worker, poller = self.plan.worker, Poller(config.poll)
        theta = problem.initial_point()
        step = config.step_scale / problem.smoothness()
        rows, round_rows = [], []
        stopped = [False]

        def pump():
            if comm.Iprobe(source=0, tag=TAG_STOP):
                comm.Recv(np.empty(1), source=0, tag=TAG_STOP)
                stopped[0] = True
            return stopped[0]

        for t in range(config.iterations):
            if 0 <= self.stop_at <= t:
                os.kill(os.getpid(), signal.SIGSTOP)
            t_start = now()
            g = local_gradient(problem, theta, self.plan.terms)
            real = now() - t_start
            if not sleep_interruptible(float(delays[t]), pump, poller):
                break
            compute = now() - t_start
            c0 = now()
            if config.allreduce == "mpi":
                total = np.empty_like(g)
                wcomm.Allreduce(g, total)
            else:
                rounds = []
                try:
                    total = ring_allreduce(wcomm, g, config.t_c, poller, rounds, interrupt=pump)
                except Interrupted:
                    break
                round_rows += [(t, worker, ph, k, sec) for ph, k, sec in rounds]
            comm_time, wall = now() - c0, time.time() - self.start_wall
            # a TRACE_COLUMNS row: fresh and used, no parent
            rows.append((t, worker, compute, comm_time, True, wall, delays[t], real, t, True, -1))
            theta = theta - step * total / problem.n_samples
            if worker == 0:
                msg = np.concatenate([[t, now() - t_start], total])
                comm.Send(msg, dest=0, tag=TAG_PROGRESS)
            if pump():
                break
        # wait for the root's STOP, then hand over the trace
        while not pump():
            poller.idle()
        req = comm.isend((rows, round_rows), dest=0, tag=TAG_TRACE)
        while not req.Test():
            poller.idle()


class RingWatchdog(RootNode):
    """Rank 0 of RAR: computes nothing; takes worker 0's progress reports (iteration time and
    the all-reduced gradient) through the shared root bookkeeping (:meth:`RootNode.record_step`:
    ``--check``, step, loss, divergence, progress file) and stops the run when an iteration does
    not finish within ``timeout`` (RAR tolerates no straggler)."""

    trace_order = ("iteration", "worker")

    def setup(self) -> None:
        _ring_comm(self.comm, 0)  # collective; rank 0 is not part of the ring
        self.reports = []
        self.notes.append(
            f"RAR via {'MPI_Allreduce' if self.config.allreduce == 'mpi' else 'hand-written ring'}; "
            "iteration_time measured by worker 0 (compute + injected delay + all-reduce)"
        )

    def on_message(self, tag: int, src: int, buf: np.ndarray) -> None:
        if tag == TAG_PROGRESS:
            self.reports.append(buf)

    def run(self) -> None:
        cfg, last = self.config, self.t0
        for t in range(cfg.iterations):
            inject_root_failure(cfg, t)
            if not self.wait(lambda: bool(self.reports), now() + cfg.timeout):
                raise StragglerTimeout(
                    f"scheme 'rar' iteration {t} did not finish within timeout={cfg.timeout:g} s: "
                    f"Ring-AllReduce needs every one of the {cfg.n_workers} workers in every "
                    "iteration (it tolerates no straggler), so a frozen, dead or very slow worker "
                    "blocks it; stopping the run."
                )
            buf, end = self.reports.pop(0), now()
            times = {"start": last - self.t0, "end": end - self.t0, "iteration_time": float(buf[1])}
            row = {"iteration": t, **times, "n_fresh": cfg.n_workers}
            self.record_step(t, row, buf[2:])
            last = end

    def collect(self) -> tuple[list[dict], pd.DataFrame | None]:
        import pandas as pd  # rank 0 only, at the end

        rows = [row for r, _ in self.traces.values() for row in r]
        rounds = [row for _, rr in self.traces.values() for row in rr]
        return rows, (pd.DataFrame(rounds, columns=ROUND_COLUMNS) if rounds else None)
