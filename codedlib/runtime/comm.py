"""Message layout, tags and polling helpers shared by the engines.

Point-to-point calls only (Iprobe, Recv, Isend, Test): MPICH, Open MPI, Intel MPI. No blocking
wait (MPI libraries spin in them, stealing the cores of an oversubscribed laptop): every wait
probes and sleeps with an exponential back-off (50 µs up to ``poll`` s). Float64 buffers:
``TASK [iteration, theta...]`` parent -> worker; ``RESULT [iteration, compute, injected,
elapsed, start, stop, vector...]`` worker -> parent; ``STOP`` / ``DONE`` empty; ``TRACE``
pickled rows at shutdown; ``RING`` one chunk; ``PROGRESS [iteration, iteration_time,
gradient...]`` RAR worker 0 -> root; ``REPARTITION [subpartitions]`` DSAG-LB -> worker.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable

    from mpi4py import MPI

TAG_TASK, TAG_RESULT, TAG_STOP, TAG_DONE, TAG_TRACE, TAG_RING, TAG_PROGRESS = range(11, 18)
TAG_REPARTITION = 18
HEADER = 6  # iteration, compute, injected, elapsed, start, stop

now = time.perf_counter


class Poller:
    """Sleep between probes with exponential back-off, reset whenever something happened."""

    def __init__(self, max_sleep: float = 1e-3, min_sleep: float = 5e-5) -> None:
        self.max_sleep = max_sleep
        self.min_sleep = min(min_sleep, max_sleep)
        self._sleep = self.min_sleep

    def reset(self) -> None:
        self._sleep = self.min_sleep

    def idle(self, until: float | None = None) -> None:
        """Sleep the current back-off (never past ``until``), then grow it."""
        pause = self._sleep
        if until is not None:
            pause = min(pause, max(until - now(), 0.0))
        if pause > 0:
            time.sleep(pause)
        self._sleep = min(self._sleep * 2, self.max_sleep)


def pack_result(
    iteration, compute, injected, elapsed, start, stop, vector: np.ndarray
) -> np.ndarray:
    """``RESULT``: the header (iteration, seconds computing, injected and elapsed, the rows
    ``start:stop``) and the vector."""
    buf = np.empty(HEADER + vector.size)
    buf[:HEADER] = (iteration, compute, injected, elapsed, start, stop)
    buf[HEADER:] = vector
    return buf


class SendQueue:
    """Outstanding non-blocking sends, kept alive with their buffers until complete."""

    def __init__(self) -> None:
        self._pending = []

    def isend(self, comm: MPI.Comm, buf: np.ndarray, dest: int, tag: int) -> None:
        self._pending.append((comm.Isend(buf, dest=dest, tag=tag), buf))

    def isend_object(self, comm: MPI.Comm, obj: object, dest: int, tag: int) -> None:
        self._pending.append((comm.isend(obj, dest=dest, tag=tag), None))

    def prune(self) -> bool:
        """Drop completed sends; True when none is left."""
        self._pending = [(r, b) for r, b in self._pending if not r.Test()]
        return not self._pending


class Interrupted(Exception):
    """Told to stop while waiting (:func:`wait_all`'s ``interrupt``)."""


def wait_all(
    reqs: list[MPI.Request], poller: Poller | None, interrupt: Callable[[], bool] | None = None
) -> None:
    """Complete ``reqs`` probing with ``poller``'s naps (None: a blocking ``Waitall``);
    ``interrupt()`` returning True cancels them and raises :class:`Interrupted`."""
    from mpi4py import MPI

    if poller is None:
        MPI.Request.Waitall(reqs)
        return
    while not MPI.Request.Testall(reqs):
        if interrupt is not None and interrupt():
            for req in reqs:
                req.Cancel()
            raise Interrupted
        poller.idle()
    poller.reset()


def quiet_barrier(comm: MPI.Comm, nap: float = 0.01) -> None:
    """A barrier whose waiting ranks nap between tests: a blocking collective spins, and 12
    spinning ranks slow the one the others wait for (rank 0 reading the command line, writing
    the results) several-fold on 2 cores."""
    wait_all([comm.Ibarrier()], Poller(nap))


def sleep_interruptible(seconds: float, pump: Callable[[], bool], poller: Poller) -> bool:
    """Sleep ``seconds`` (``inf`` allowed) in naps; ``pump()`` between naps returns True to
    interrupt. True if the full time elapsed."""
    end = now() + seconds
    while True:
        if pump():
            return False
        t = now()
        if t >= end:
            return True
        time.sleep(min(end - t, poller.max_sleep))
