"""The seed runner's speed-up: one sweep of 8 seeds on 1 vs 2 local worker processes.

Target (issue 24): >= 1.7x with 2 worker processes on a machine with 2 idle cores (each seed is
about a second of CPU, so process start-up and pickling are small beside it). Both sweeps run in
this process, one after the other, and must return the same frame. On a busy machine the ratio
falls towards 1: read it beside the load.

A cluster: start engines (``ipcluster start -n 16``, or ``ipyparallel.Cluster(engines="mpi")``,
SSH or a batch system, see the ipyparallel docs), then in the notebook or script::

    import ipyparallel as ipp
    from codedlib import replicate
    client = ipp.Client()                       # or: ipp.Cluster(n=16).start_and_connect_sync()
    replicate.set_default_executor(client)      # every over_seeds call now runs on the engines

Run: ``.venv/bin/python benchmarks/bench_replicate.py``
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from _timing import timed

from codedlib.replicate import over_seeds

SEEDS = range(8)
TARGET = 1.7


def order_statistic_sweep(seed, n_workers=1000, k=800, replicas=15_000):
    """One seed's Monte Carlo mean of the k-th fastest of n exponential workers."""
    rng = np.random.default_rng(seed)
    draws = rng.exponential(size=(replicas, n_workers))
    return {"mean": float(np.partition(draws, k - 1, axis=1)[:, k - 1].mean())}


def main() -> None:
    over_seeds(order_statistic_sweep, range(2), executor=2, replicas=10)  # start the pool
    serial_s, serial = timed(lambda: over_seeds(order_statistic_sweep, SEEDS, executor=1))
    pair_s, pair = timed(lambda: over_seeds(order_statistic_sweep, SEEDS, executor=2))
    pd.testing.assert_frame_equal(serial, pair)
    ratio = serial_s / pair_s
    cores = len(os.sched_getaffinity(0))
    print(f"{len(SEEDS)} seeds, cores available: {cores}, load average {os.getloadavg()[0]:.1f}")
    print(f"  1 worker process : {serial_s:7.2f} s")
    print(f"  2 worker processes: {pair_s:7.2f} s   speed-up {ratio:.2f}x (target >= {TARGET}x)")
    print("  same frame on both: yes")
    print(f"  target met: {'yes' if ratio >= TARGET else 'no (busy machine?)'}")


if __name__ == "__main__":
    main()
