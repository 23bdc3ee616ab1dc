"""Event-driven simulation of a w-of-N iterative computation (DSAG paper, Section IV-B).

Each worker has a task queue of length one holding the *newest* task; a busy worker starts
its queued task when its stale one completes. Iteration t ends once ``w`` fresh results have
arrived, plus ``margin`` times the elapsed time (Section V-A's 2 %). Inside that window
``semantics="reference"`` follows the authors' simulator (CodedComputing.jl: the clock moves
to the last arrival; a stale worker stays idle until the next iteration), ``"deadline"`` ends
at ``T'`` and restarts it at once, as ``codedlib.runtime``'s coordinator does.

With every task latency ``task_latency[t, i]`` drawn up front, the priority-queue simulation
(:func:`simulate_event_driven_heapq`) has an exact O(N)-per-iteration form compiled with numba
(:func:`simulate_event_driven`). With busy-until ``b_i`` at iteration start ``s``:

    c_i = max(s, b_i) + task_latency[t, i],  T = w-th smallest c_i,  T' = T + margin (T - s)
    fresh_i = c_i <= T'
    deadline:  next start T';  b_i <- c_i if max(s, b_i) <= T' else b_i
    reference: b_i <- c_i if b_i <= T else b_i; next start = latest arrival in [T, T'].

All three implementations agree (tested). Reference: severinson2023dsag.
"""

from __future__ import annotations

import functools
import heapq
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import check_array, check_int, check_real

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: What the coordinator does inside the margin window (module docstring).
SEMANTICS = ("reference", "deadline")


@dataclass(frozen=True)
class EventDrivenResult:
    """Outcome of an event-driven simulation.

    ``iteration_end`` (replicas, n_iterations): time ``T_w^(t)`` iteration t ends (cumulative);
    ``fresh`` (replicas, n_iterations, N): worker i delivered a fresh result in iteration t;
    ``busy_until`` (replicas, N): when each worker becomes idle after the last iteration.
    """

    iteration_end: np.ndarray
    fresh: np.ndarray
    busy_until: np.ndarray

    @property
    def latency(self) -> np.ndarray:
        """Per-iteration latency ``T^(t) - T^(t-1)``, shape (replicas, n_iterations)."""
        return np.diff(self.iteration_end, axis=-1, prepend=0.0)

    @property
    def participation(self) -> np.ndarray:
        """u_i: fraction of iterations worker i was fresh in, averaged over replicas (N,)."""
        return self.fresh.mean(axis=(0, 1))

    @property
    def mean_latency(self) -> float:
        """Mean per-iteration latency over all iterations and replicas."""
        return float(self.iteration_end[:, -1].mean() / self.iteration_end.shape[1])


def _event_driven_loops(
    task_latency, w, margin, busy_until0, reference, iteration_end, fresh, busy_out
):
    replicas, n_iterations, n_workers = task_latency.shape
    completion = np.empty(n_workers)
    scratch = np.empty(n_workers)
    for r in range(replicas):
        busy = busy_until0[r].copy()
        start = 0.0
        for t in range(n_iterations):
            for i in range(n_workers):
                begin = max(start, busy[i])
                completion[i] = begin + task_latency[r, t, i]
                scratch[i] = completion[i]
            scratch.sort()
            wth = scratch[w - 1]
            deadline = wth + margin * (wth - start)
            end = wth if reference else deadline
            for i in range(n_workers):
                fresh[r, t, i] = False
                if reference:
                    if busy[i] <= wth:  # idle, or restarted before the w-th fresh result
                        busy[i] = completion[i]
                        if completion[i] <= deadline:
                            fresh[r, t, i] = True
                            end = max(end, completion[i])
                    elif busy[i] <= deadline:  # stale arrival in the window: stays idle
                        end = max(end, busy[i])
                elif max(start, busy[i]) <= deadline:
                    busy[i] = completion[i]
                    fresh[r, t, i] = completion[i] <= deadline
            iteration_end[r, t] = end
            start = end
        busy_out[r] = busy


@functools.cache
def _event_driven_kernel():
    # compiled on first use: importing numba costs a second, which an MPI rank never needs
    import numba

    return numba.njit(cache=True)(_event_driven_loops)


def _check_inputs(task_latency, w, margin, busy_until, semantics="reference"):
    """The checked inputs, ``reference`` (the semantics) and the empty outputs
    ``(iteration_end, fresh, busy_until)`` of a simulation."""
    if semantics not in SEMANTICS:
        raise ValueError(f"semantics must be one of {SEMANTICS}, got semantics={semantics!r}")
    lat = check_array("task_latency", task_latency)
    if lat.ndim == 2:
        lat = lat[None]
    if lat.ndim != 3 or lat.shape[1] == 0 or lat.shape[2] == 0:
        raise ValueError(
            "task_latency must have shape (n_iterations, N) or (replicas, n_iterations, N) "
            f"with n_iterations >= 1 and N >= 1, got shape {np.shape(task_latency)}"
        )
    if np.any(lat < 0):
        raise ValueError(f"task_latency must be non-negative, got minimum {lat.min():g}")
    n_workers = lat.shape[2]
    w = check_int("w", w, 1, n_workers)
    margin = check_real("margin", margin, 0.0)
    busy = np.zeros(n_workers) if busy_until is None else check_array("busy_until", busy_until)
    if busy.shape[-1:] != (n_workers,) or busy.ndim > 2:
        raise ValueError(
            f"busy_until must have shape (N,) or (replicas, N) with N={n_workers}, "
            f"got shape {busy.shape}"
        )
    busy = np.broadcast_to(busy, (lat.shape[0], n_workers)).copy()
    if np.any(busy < 0):
        raise ValueError("busy_until must be non-negative")
    return np.ascontiguousarray(lat), w, margin, busy, semantics == "reference", _outputs(lat.shape)


def _outputs(shape):
    """Empty ``(iteration_end, fresh, busy_until)`` for task latencies of ``shape``."""
    replicas, n_iterations, n_workers = shape
    return (
        np.empty((replicas, n_iterations)),
        np.zeros(shape, bool),
        np.empty((replicas, n_workers)),
    )


def simulate_event_driven(
    task_latency: ArrayLike,
    w: int,
    margin: float = 0.0,
    busy_until: ArrayLike | None = None,
    semantics: str = "reference",
) -> EventDrivenResult:
    """Simulate iterations of a w-of-N computation (Section IV-B), compiled with numba.

    ``task_latency`` (n_iterations, N) or (replicas, n_iterations, N); ``margin`` is a fraction
    of the iteration's elapsed time (0.02 in Section V-A); ``busy_until`` (N,) or (replicas, N)
    defaults to all idle at time 0.

    Examples
    --------
    >>> lat = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    >>> res = simulate_event_driven(lat, w=2)
    >>> res.iteration_end[0].tolist()   # worker 2 is still busy in iteration 2
    [2.0, 3.0]
    """
    lat, w, margin, busy, reference, (iteration_end, fresh, busy_out) = _check_inputs(
        task_latency, w, margin, busy_until, semantics
    )
    _event_driven_kernel()(lat, w, margin, busy, reference, iteration_end, fresh, busy_out)
    return EventDrivenResult(iteration_end, fresh, busy_out)


def _simulate_checked(lat, w, margin, reference) -> EventDrivenResult:
    """:func:`simulate_event_driven` of inputs as :func:`_check_inputs` returns them (a
    C-contiguous float (replicas, n_iterations, N) array), every worker idle at time 0."""
    busy = np.zeros((lat.shape[0], lat.shape[2]))
    iteration_end, fresh, busy_out = _outputs(lat.shape)
    _event_driven_kernel()(lat, w, margin, busy, reference, iteration_end, fresh, busy_out)
    return EventDrivenResult(iteration_end, fresh, busy_out)


def simulate_event_driven_heapq(
    task_latency: ArrayLike,
    w: int,
    margin: float = 0.0,
    busy_until: ArrayLike | None = None,
    semantics: str = "reference",
) -> EventDrivenResult:
    """Plain priority-queue (``heapq``) event-driven simulator: pops worker completion events
    in time order as described in Section IV-B (a task queue of length one per worker).

    Same model and arguments as :func:`simulate_event_driven`; pure Python, kept to check the
    compiled kernel and as the benchmark's baseline.
    """
    lat, w, margin, busy, reference, (iteration_end, fresh, busy_out) = _check_inputs(
        task_latency, w, margin, busy_until, semantics
    )
    replicas, n_iterations, n_workers = lat.shape
    for r in range(replicas):
        events = []  # (completion time, worker)
        running = [-1] * n_workers  # iteration of the task in progress, -1 when idle
        queued = [-1] * n_workers
        finish = [0.0] * n_workers
        for i in range(n_workers):
            if busy[r, i] > 0:  # busy with a task older than the simulation
                running[i] = -2
                finish[i] = busy[r, i]
                heapq.heappush(events, (busy[r, i], i))
        start = 0.0
        for t in range(n_iterations):
            for i in range(n_workers):
                if running[i] == -1:
                    running[i] = t
                    finish[i] = start + lat[r, t, i]
                    heapq.heappush(events, (finish[i], i))
                else:
                    queued[i] = t
            n_fresh = 0
            deadline = np.inf
            last = start
            while events and events[0][0] <= deadline:
                time, i = heapq.heappop(events)
                last = time
                if running[i] == t:
                    n_fresh += 1
                    fresh[r, t, i] = True
                    if n_fresh == w:
                        deadline = time + margin * (time - start)
                in_window = n_fresh >= w and running[i] != t
                if queued[i] >= 0 and not (reference and in_window):
                    running[i] = queued[i]
                    queued[i] = -1
                    finish[i] = time + lat[r, running[i], i]
                    heapq.heappush(events, (finish[i], i))
                else:  # reference: a stale result inside the window leaves the worker idle
                    running[i] = -1
                    queued[i] = -1
            iteration_end[r, t] = last if reference else deadline
            start = iteration_end[r, t]
        busy_out[r] = finish  # idle workers: their last completion time (<= start)
    return EventDrivenResult(iteration_end, fresh, busy_out)


def simulate_event_driven_reference(
    task_latency: ArrayLike, w: int, margin: float = 0.0
) -> EventDrivenResult:
    """The authors' coordinator rules, step by step (the check of ``semantics="reference"``).

    From CodedComputing.jl's ``EventDrivenSimulator.step!``: idle flags and task epochs; pop
    results until ``w`` are fresh (a stale one re-enqueues its worker), then pop those within
    ``(1 + margin)`` times the elapsed time without re-enqueueing. Pure Python; for tests.
    """
    lat, w, margin, _, _, (iteration_end, fresh, busy_out) = _check_inputs(
        task_latency, w, margin, None
    )
    replicas, n_iterations, n_workers = lat.shape
    for r in range(replicas):
        clock = 0.0
        idle = [True] * n_workers
        epoch_of = [-1] * n_workers
        done_at = [0.0] * n_workers
        queue = []

        def assign(i, epoch, at, r=r, queue=queue, idle=idle, epoch_of=epoch_of, done_at=done_at):
            done_at[i] = at + lat[r, epoch, i]
            heapq.heappush(queue, (done_at[i], i))
            idle[i], epoch_of[i] = False, epoch

        for epoch in range(n_iterations):
            epoch_start = clock
            for i in range(n_workers):
                if idle[i]:
                    assign(i, epoch, clock)
            n_fresh = 0
            while n_fresh < w:
                clock, i = heapq.heappop(queue)
                idle[i] = True
                if epoch_of[i] == epoch:
                    n_fresh += 1
                    fresh[r, epoch, i] = True
                else:
                    assign(i, epoch, clock)
            limit = (clock - epoch_start) * (1 + margin)
            while queue and queue[0][0] - epoch_start <= limit:
                clock, i = heapq.heappop(queue)
                idle[i] = True
                fresh[r, epoch, i] = epoch_of[i] == epoch
            iteration_end[r, epoch] = clock
        busy_out[r] = done_at
    return EventDrivenResult(iteration_end, fresh, busy_out)
