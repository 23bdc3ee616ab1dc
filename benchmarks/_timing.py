"""Timing helper shared by the benchmark scripts.

The scripts run as ``python benchmarks/bench_<topic>.py``, which puts this folder on
``sys.path``: import with ``from _timing import best_time``.
"""

from __future__ import annotations

import time


def best_time(fn, repeat: int = 3, clock=time.perf_counter) -> float:
    """Best time in seconds of ``repeat`` calls of ``fn()`` on ``clock`` (default wall-clock;
    ``time.process_time`` counts only this process's CPU time, steadier on a busy machine)."""
    best = float("inf")
    for _ in range(repeat):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return best
