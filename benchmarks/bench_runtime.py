"""Benchmark: CodedReduce tree aggregation (no stragglers) vs MPI_Allreduce, same processes.

    .venv/bin/python benchmarks/bench_runtime.py

Launches itself under ``mpiexec -n K`` for the trees (n, L) = (3, 1), (2, 2) and (3, 2)
(K = 4, 7, 13 processes) and, for vectors of 10^3, 10^5 and 10^6 float64, times

* ``tree``: :func:`codedlib.runtime.tree.tree_reduce` -- every parent waits for its n
  children, adds its own vector and sends up; the sum is then sent back down the tree
  (gradient up, model down: one GD iteration's communication), with the engines'
  non-blocking probe-and-nap waiting;
* ``blocking``: the same tree with blocking MPI calls (no naps; MPICH spins in them);
* ``allreduce``: ``MPI_Allreduce`` of the same vector over the same processes.

Prints the median time of each (ms) and the ratios tree / allreduce (``ratio``) and blocking
tree / allreduce (``ratio_bl``); > 1: the tree is slower.

Target: the tree within 2x of ``MPI_Allreduce`` (``ratio`` <= 2), except where bandwidth
explains it: every parent of the tree receives n full vectors and sends n back through one
port, one layer after the other (2Ln vectors on the critical path), where MPICH's
large-message allreduce (reduce-scatter + allgather) moves 2(K-1)/K vectors per process; for
long vectors the tree can be up to ``port`` = LnK/(K-1) times slower (4 for (3, 1), 4.67 for
(2, 2), 6.5 for (3, 2)). The ``target`` column says which
case a row is; ``NO`` would be a ratio above both.
All delays are real (no injection). On an oversubscribed laptop MPI_Allreduce's processes
spin while waiting whereas the tree's sleep; on a cluster with one process per core the
comparison is the one the CodedReduce paper makes (Fig. 2: RAR vs CR without stragglers).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

TREES = [(3, 1), (2, 2), (3, 2)]
SIZES = [1_000, 100_000, 1_000_000]
REPS = {1_000: 30, 100_000: 15, 1_000_000: 6}


def worker(n: int, L: int) -> None:
    import numpy as np
    from mpi4py import MPI

    from codedlib.runtime.tree import tree_reduce

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    for size in SIZES:
        vec = np.full(size, float(rank + 1))
        expect = comm.Get_size() * (comm.Get_size() + 1) / 2
        times = {"tree": [], "tree-blocking": [], "allreduce": []}
        for rep in range(REPS[size] + 1):
            for name, samples in times.items():
                comm.Barrier()
                t = time.perf_counter()
                if name == "tree":
                    out = tree_reduce(comm, vec, n, L)
                elif name == "tree-blocking":
                    out = tree_reduce(comm, vec, n, L, blocking=True)
                else:
                    out = np.empty_like(vec)
                    comm.Allreduce(vec, out)
                dt = time.perf_counter() - t
                # the operation ends when the slowest rank has the sum
                dt = comm.allreduce(dt, op=MPI.MAX)
                if rep > 0:  # first round warms up buffers and connections
                    samples.append(dt)
                assert out[0] == expect, (name, out[0], expect)
        if rank == 0:
            tree, block, red = (np.median(times[k]) for k in ("tree", "tree-blocking", "allreduce"))
            k = comm.Get_size()
            port = L * n * k / (k - 1)
            ratio = tree / red
            target = "<= 2" if ratio <= 2 else f"<= port {port:.2f}" if ratio <= port else "NO"
            print(
                f"{n:>3} {L:>3} {k:>6} {size:>9} {tree * 1e3:>10.3f} {block * 1e3:>10.3f} "
                f"{red * 1e3:>10.3f} {ratio:>8.2f} {block / red:>8.2f}  {target}",
                flush=True,
            )


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), int(sys.argv[3]))
        return 0
    root = Path(__file__).resolve().parents[1]
    mpiexec = Path(sys.executable).parent / "mpiexec"
    env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    print(
        "tree aggregation (reduce up + broadcast down, no stragglers) vs MPI_Allreduce, "
        "median over repetitions; all delays real"
    )
    print(
        f"{'n':>3} {'L':>3} {'procs':>6} {'floats':>9} {'tree ms':>10} {'blocking':>10} "
        f"{'allreduce':>10} {'ratio':>8} {'ratio_bl':>8}  target",
        flush=True,
    )
    start = time.perf_counter()
    for n, L in TREES:
        k = 1 + sum(n**layer for layer in range(1, L + 1))
        cmd = [
            str(mpiexec),
            "-n",
            str(k),
            sys.executable,
            "-m",
            "mpi4py",
            __file__,
            "--worker",
            str(n),
            str(L),
        ]
        proc = subprocess.run(
            cmd, env=env, timeout=110, check=False, capture_output=True, text=True
        )
        sys.stdout.write(proc.stdout)
        if proc.returncode != 0:
            sys.stdout.write(proc.stderr)
            return proc.returncode
    print(f"total {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
