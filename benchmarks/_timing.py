"""Timing helper shared by the benchmark scripts.

The scripts run as ``python benchmarks/bench_<topic>.py``, which puts this folder on
``sys.path``: import with ``from _timing import best_time``.
"""

from __future__ import annotations

import time
import timeit


def best_time(fn, repeat: int = 3, clock=time.perf_counter, number: int = 1) -> float:
    """Best time in seconds per call over ``repeat`` batches of ``number`` calls of ``fn()``
    (``timeit.repeat``) on ``clock`` (default wall-clock; ``time.process_time`` counts only
    this process's CPU time, steadier on a busy machine)."""
    return min(timeit.repeat(fn, repeat=repeat, number=number, timer=clock)) / number


def timed(fn, repeat: int = 1):
    """``(best seconds per call, the last call's result)``: :func:`best_time` for a function
    whose output the benchmark also checks."""
    out = []
    seconds = best_time(lambda: out.append(fn()), repeat)
    return seconds, out[-1]
