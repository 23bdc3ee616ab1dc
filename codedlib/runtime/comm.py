"""Message layout, tags and polling helpers shared by the engines.

Only standard MPI point-to-point calls are used (Iprobe, Recv, Isend, Test), so the same code
runs with MPICH, Open MPI or Intel MPI. Waiting is never a blocking MPI call or a busy loop:
many MPI libraries spin inside blocking calls, which on an oversubscribed laptop (13
processes on 2 cores) would steal the cores from the processes doing real work. Every wait
below probes, and sleeps with an exponential back-off (50 µs up to ``poll`` seconds) between
probes.

Messages (all float64 buffers, no pickling on the hot path):

``TASK``    ``[iteration, theta...]``                   root/parent -> worker
``RESULT``  ``[iteration, compute, injected, elapsed, start, stop, vector...]``  worker -> parent
``STOP``    empty                                        root -> every worker
``DONE``    empty                                        worker -> parent (its sends are complete)
``TRACE``   pickled list of trace rows                   worker -> root (at shutdown)
``RING``    one chunk of the vector                      worker -> next worker on the ring
``PROGRESS`` ``[iteration, iteration_time, gradient...]``  RAR worker 0 -> root (watchdog, loss)
``REPARTITION`` ``[subpartitions]``                     DSAG-LB coordinator -> worker (load balancer)
"""

from __future__ import annotations

import time

import numpy as np

TAG_TASK, TAG_RESULT, TAG_STOP, TAG_DONE, TAG_TRACE, TAG_RING, TAG_PROGRESS = (
    11,
    12,
    13,
    14,
    15,
    16,
    17,
)
TAG_REPARTITION = 18
HEADER = 6  # iteration, compute, injected, elapsed, start, stop

now = time.perf_counter


class Poller:
    """Sleep between probes with exponential back-off, reset whenever something happened."""

    def __init__(self, max_sleep: float = 1e-3, min_sleep: float = 5e-5):
        self.max_sleep = max_sleep
        self.min_sleep = min(min_sleep, max_sleep)
        self._sleep = self.min_sleep

    def reset(self):
        self._sleep = self.min_sleep

    def idle(self, until: float | None = None):
        """Sleep the current back-off (never past ``until``), then grow it."""
        pause = self._sleep
        if until is not None:
            pause = min(pause, max(until - now(), 0.0))
        if pause > 0:
            time.sleep(pause)
        self._sleep = min(self._sleep * 2, self.max_sleep)


def pack_result(iteration, compute, injected, elapsed, start, stop, vector) -> np.ndarray:
    buf = np.empty(HEADER + vector.size)
    buf[:HEADER] = (iteration, compute, injected, elapsed, start, stop)
    buf[HEADER:] = vector
    return buf


class SendQueue:
    """Outstanding non-blocking sends, kept alive with their buffers until complete."""

    def __init__(self):
        self._pending = []

    def isend(self, comm, buf, dest, tag):
        self._pending.append((comm.Isend(buf, dest=dest, tag=tag), buf))

    def isend_object(self, comm, obj, dest, tag):
        self._pending.append((comm.isend(obj, dest=dest, tag=tag), None))

    def prune(self) -> bool:
        """Drop completed sends; True when none is left."""
        self._pending = [(r, b) for r, b in self._pending if not r.Test()]
        return not self._pending

    def __len__(self):
        return len(self._pending)


def sleep_interruptible(seconds: float, pump, poller: Poller) -> bool:
    """Sleep ``seconds`` (``inf`` allowed) in short naps, calling ``pump()`` between naps.

    ``pump()`` handles incoming messages and returns True to interrupt. Returns True if the
    full time elapsed, False if interrupted.
    """
    end = now() + seconds
    while True:
        if pump():
            return False
        t = now()
        if t >= end:
            return True
        time.sleep(min(end - t, poller.max_sleep))
