"""Self-check of an MPI installation: run every scheme on this world and compare with serial.

    mpiexec -n 4  python -m mpi4py -m codedlib.runtime.checks
    mpiexec -n 13 python -m mpi4py -m codedlib.runtime.checks --frozen
    mpiexec -n 13 python -m mpi4py -m codedlib.runtime.checks --sigstop --record checks.jsonl

Runs the schemes that fit the world (in one job) with injected stragglers and ``check=True``
and prints one JSON line per run: the largest relative gradient error against the serial one
(~1e-12 for exact schemes), the mean iteration time and the survivors the root used.
``--frozen`` adds runs with tolerated frozen workers, ``--sigstop`` (alone) CodedReduce with a
worker frozen by ``SIGSTOP``; ``--record FILE`` appends the lines to FILE.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

import numpy as np

from codedlib.runtime.config import RunConfig
from codedlib.runtime.registry import tree_size

if TYPE_CHECKING:
    from mpi4py import MPI


def _trees(N: int) -> list:
    """Every (n, L) tree with ``n + ... + n^L = N`` workers."""
    return [(n, L) for n in range(2, N + 1) for L in range(1, 6) if tree_size(n, L) == N]


def suite(
    world: int, frozen: bool = False, iterations: int = 6, sigstop: bool = False
) -> list[tuple[str, RunConfig]]:
    """The named configs of the self-check for a world of ``world`` processes; with
    ``sigstop`` only the SIGSTOP run."""
    N = world - 1
    common = dict(iterations=iterations, check=True, timeout=20.0, samples=max(240, 20 * N), dim=16)
    common.update(delay="shiftexp:shift=0.005,rate=200", seed=1)
    S = max(1, N // 4)
    runs = [(s, RunConfig(s, n_workers=N, stragglers=S, **common)) for s in ("gc", "rs")]
    runs += [(f"cr(n={n},L={L})", RunConfig("cr", n=n, L=L, s=1, **common)) for n, L in _trees(N)]
    runs.append(("rar", RunConfig("rar", n_workers=N, **common)))
    if N <= 4:
        runs += [
            ("rar-ring", RunConfig("rar", n_workers=N, allreduce="ring", t_c=0.001, **common)),
            ("umw", RunConfig("umw", n_workers=N, **common)),
            ("sgd", RunConfig("sgd", n_workers=N, stragglers=S, **common)),
            ("dsag", RunConfig("dsag", n_workers=N, w=max(1, N - 1), subpartitions=2, **common)),
        ]
    deep = [(name, cfg) for name, cfg in runs if name.startswith("cr") and cfg.L >= 2][:1]
    if sigstop:
        return [
            (n + "-sigstop", c.replace(freeze=f"{c.n + 1}@2", freeze_mode="stop")) for n, c in deep
        ]
    if frozen:
        for name, first in (("gc", 0), ("rs", 1)):  # S frozen workers: tolerated
            freeze = ",".join(f"{w}@1" for w in range(first, first + S))
            cfg = RunConfig(name, n_workers=N, stragglers=S, freeze=freeze, **common)
            runs.append((f"{name}-frozen", cfg))
        # one frozen leaf under the first parent (worker n, rank n + 1) and one frozen inner
        # node (worker 1): different parents, each still has n - s children
        runs += [(name + "-frozen", cfg.replace(freeze=f"{cfg.n}@1,1@2")) for name, cfg in deep]
    return runs


def _check_tree_reduce(comm: MPI.Comm) -> None:
    """tree_reduce (the benchmark's kernel) and the ring all-reduce against MPI_Allreduce."""
    from mpi4py import MPI

    from codedlib.runtime.ring import ring_allreduce
    from codedlib.runtime.tree import tree_reduce

    N = comm.Get_size() - 1
    vec = np.random.default_rng(comm.Get_rank()).standard_normal(1001)
    exact = np.empty_like(vec)
    comm.Allreduce(vec, exact)
    errors = {}
    for n, L in _trees(N):
        for blocking in (False, True):
            out = tree_reduce(comm, vec, n, L, blocking=blocking)
            errors[f"tree(n={n},L={L},blocking={blocking})"] = float(np.abs(out - exact).max())
    errors["ring"] = float(np.abs(ring_allreduce(comm, vec) - exact).max())
    worst = comm.allreduce(max(errors.values()), op=MPI.MAX)
    if comm.Get_rank() == 0:
        line = {"name": "allreduce-kernels", "kernels": sorted(errors), "max_abs_error": worst}
        print("CHECK " + json.dumps(line), flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run the self-checks this world fits and print their JSON lines; the exit code."""
    p = argparse.ArgumentParser(prog="python -m codedlib.runtime.checks")
    p.add_argument("--frozen", action="store_true")
    p.add_argument("--sigstop", action="store_true")
    p.add_argument("--record", default=None, help="also append the JSON lines to this file")
    p.add_argument("--iterations", type=int, default=6)
    args = p.parse_args(argv)
    from mpi4py import MPI

    from codedlib.runtime.engines import abort_if_needed, run

    comm = MPI.COMM_WORLD
    if comm.Get_size() < 2:
        print("run under mpiexec with at least 2 processes", file=sys.stderr)
        return 2
    if not args.sigstop:
        _check_tree_reduce(comm)
    for name, cfg in suite(comm.Get_size(), args.frozen, args.iterations, args.sigstop):
        result = run(cfg, comm)
        if comm.Get_rank() == 0:
            it, tr = result.iterations, result.trace
            used = tr[tr["used"] & (tr["parent"] == 0)]  # RAR's rows have parent -1: none
            survivors = [sorted(g["worker"].tolist()) for _, g in used.groupby("iteration")]
            patterns = sorted({tuple(p) for p in survivors})
            line = dict(name=name, scheme=cfg.scheme, world=comm.Get_size(), iterations=len(it))
            line.update(max_grad_rel_error=float(np.nanmax(it["grad_rel_error"])))
            line.update(mean_iteration_time=float(it["iteration_time"].mean()))
            line.update(exact=cfg.spec.exact, frozen=[list(f) for f in cfg.freeze])
            line.update(root_patterns=[list(p) for p in patterns], root_survivors=survivors)
            line.update(unresponsive=result.meta["unresponsive"], notes=result.meta["notes"])
            print("CHECK " + json.dumps(line), flush=True)
            if args.record:
                with open(args.record, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(line) + "\n")
            abort_if_needed(comm, result, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
