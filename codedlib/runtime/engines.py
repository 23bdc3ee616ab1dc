"""The MPI driver: every rank runs :func:`run` with one :class:`~codedlib.runtime.config.RunConfig`.

Rank 0 is the root, ranks ``1 .. N`` workers ``0 .. N-1``, each rebuilding its data from the
seed; the root hands out the injected delays, then the scheme's nodes iterate. Only the root
enforces ``timeout``; a process ignoring STOP is ended by ``MPI_Abort``.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from typing import TYPE_CHECKING

import numpy as np

from codedlib.latency.traces import ITERATION_COLUMNS, TRACE_COLUMNS
from codedlib.runtime.comm import Poller, now
from codedlib.runtime.config import RunConfig, build_problem
from codedlib.runtime.injection import apply_freeze
from codedlib.runtime.nodes import (
    DEAD_WORKERS,
    ENDED_WORKERS,
    WORKER_PIDS,
    Diverged,
    ParentSilent,
    StragglerTimeout,
    inject_root_failure,
)
from codedlib.runtime.traces import ProgressWriter, RunResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from mpi4py import MPI

TAG_DELAYS, TAG_READY = 111, 112


def worker_loads(config: RunConfig, n_samples: int) -> np.ndarray:
    """Samples each worker processes per task (drives the ``cr6`` delay model, CR eq. 6)."""
    plans = (config.spec.plan(config, n_samples, rank) for rank in range(1, config.n_workers + 1))
    sizes = [[stop - start for start, stop, _ in plan.terms] for plan in plans]
    return np.array([s[0] if config.spec.one_term_per_task else sum(s) for s in sizes])


# ---------------------------------------------------------------------------- driver
def _distribute_delays(comm, config, problem, rank):
    """The root sends each worker ``[stop_at (>= 0: SIGSTOP then), start_wall, delays...]``;
    workers answer READY (with their pid), so no timeout includes start-up."""
    from mpi4py import MPI

    T, N = config.iterations, config.n_workers
    limit = max(60.0, 4 * config.timeout)  # how long start-up may take before a rank gives up
    poller = Poller(config.poll)
    if rank == 0:
        loads = worker_loads(config, problem.n_samples) if config.delay.kind == "cr6" else None
        delays = config.injected_delays(loads)
        stop_at = np.full(N, -1.0)
        if config.freeze_mode == "sleep":
            delays = apply_freeze(delays, config.freeze)
        else:
            for worker, it in config.freeze:
                stop_at[worker] = it
        start_wall = time.time()
        cols = [np.concatenate([[stop_at[w], start_wall], delays[:, w]]) for w in range(N)]
        reqs = [comm.Isend(col, dest=w + 1, tag=TAG_DELAYS) for w, col in enumerate(cols)]
        ready = [np.full(1, np.nan) for _ in range(N)]
        reqs += [comm.Irecv(buf, source=w + 1, tag=TAG_READY) for w, buf in enumerate(ready)]
        deadline = now() + limit
        while not MPI.Request.Testall(reqs):
            if now() > deadline:
                missing = [w for w, buf in enumerate(ready) if not np.isfinite(buf[0])]
                raise RuntimeError(f"workers {missing} did not start within {limit:g} s")
            poller.idle()
        WORKER_PIDS.clear()
        ENDED_WORKERS.clear()  # a process may run several runs (codedlib.runtime.batch)
        WORKER_PIDS.update({w: int(buf[0]) for w, buf in enumerate(ready)})
        return delays
    col = np.empty(T + 2)
    req = comm.Irecv(col, source=0, tag=TAG_DELAYS)
    deadline = now() + limit
    while not req.Test():
        if now() > deadline:  # the root failed before the run (or is frozen): never hang
            raise ParentSilent(
                f"rank {rank} got no work from the root within {limit:g} s "
                "of start-up: the root failed before the run or is frozen; ending the job"
            )
        poller.idle()
    req = comm.Isend(np.full(1, float(os.getpid())), dest=0, tag=TAG_READY)
    while not req.Test():
        poller.idle()
    return col


def _meta(config, comm, command=None):
    from mpi4py import MPI

    lib = MPI.Get_library_version().strip().splitlines()[0][:80]
    launch = ["python", "-m", "codedlib.runtime", *config.cli_args()]
    injected, slept = [], "computation delay per (iteration, worker) slept before sending, "
    if config.delays_file is not None:
        shape = f"({config.iterations}, {config.n_workers})"
        injected.append(slept + f"read from the explicit {shape} array {config.delays_file}")
    elif config.delay.kind != "none":
        injected.append(slept + f"drawn with seed {config.seed} from {config.delay.describe()}")
    if config.t_c > 0:
        injected.append(
            f"per-message delay t_c={config.t_c:g} s at each receiving node "
            "(single-port model, CodedReduce Sec. III-C)"
        )
    if config.freeze:
        how = {"sleep": "infinite injected delay", "stop": "SIGSTOP (real freeze)"}
        how = how[config.freeze_mode]
        frozen = ", ".join(f"{w} from iteration {t}" for w, t in config.freeze)
        injected.append(f"frozen workers {frozen} by {how}")
    return {
        "scheme": config.scheme,
        "world_size": comm.Get_size(),
        "config": config.to_dict(),
        "mpi_library": lib,
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "command": command or " ".join(["mpiexec", "-n", str(comm.Get_size()), *launch]),
        "real": (
            f"gradient computation (numpy, {config.samples} x {config.dim} {config.problem} data), "
            f"MPI message transfer ({lib.split(',')[0]}), process scheduling "
            f"({comm.Get_size()} processes on {os.cpu_count()} cores), polling granularity "
            f"<= {config.poll:g} s"
        ),
        "injected": "; ".join(injected) if injected else "nothing (all delays are real)",
        "notes": [],
    }


def run(
    config: RunConfig,
    comm: MPI.Comm | None = None,
    command: str | None = None,
    progress_dir: str | os.PathLike | None = None,
    on_start: Callable[[], None] | None = None,
) -> RunResult | None:
    """Run ``config`` on ``comm`` (default ``MPI.COMM_WORLD``); every rank must call it.

    The result on rank 0, None elsewhere (workers in ``meta["unresponsive"]`` ignored STOP: the
    caller must abort them); ``progress_dir`` gets each iteration as it ends. Raises
    ``WorldSizeError``, :class:`StragglerTimeout`, :class:`Diverged`, :class:`ParentSilent`.
    """
    from mpi4py import MPI

    comm = MPI.COMM_WORLD if comm is None else comm
    config.check_world(comm.Get_size())
    comm = run_communicator(comm)
    rank = comm.Get_rank()
    spec = config.spec
    problem, theta_star = build_problem(config)
    plan = spec.plan(config, problem.n_samples, rank)  # before READY: start-up is not timed
    if rank == 0:
        inject_root_failure(config, -1)  # before the run: the workers are waiting for work
    column = _distribute_delays(comm, config, problem, rank)
    if rank == 0 and on_start is not None:
        on_start()  # every worker has its data, plan and delays: the run starts now
    t0 = now()
    if rank != 0:
        stop_at, start_wall = int(column[0]), float(column[1])
        spec.worker(comm, config, plan, problem, t0, column[2:], stop_at, start_wall).run()
        return None
    root = spec.root(comm, config, plan, problem, t0, theta_star)
    meta = _meta(config, comm, command)
    if progress_dir is not None:
        root.progress = ProgressWriter(progress_dir, meta)
    error = None
    try:
        root.run()
    except (StragglerTimeout, Diverged) as exc:
        error = exc
    unresponsive = root.shutdown()
    if root.progress is not None:
        root.progress.close()
    rows, rounds = root.collect()
    import pandas as pd  # the root's only, at the end: every rank starts faster without it

    trace = pd.DataFrame(rows, columns=TRACE_COLUMNS)
    trace = trace.sort_values(list(root.trace_order), kind="stable").reset_index(drop=True)
    iterations = pd.DataFrame(root.iteration_rows, columns=ITERATION_COLUMNS)
    meta["unresponsive"] = unresponsive
    meta["withheld_tasks"] = {str(c - 1): k for c, k in root.skipped.items() if k}
    meta["delays"] = column.tolist() if config.iterations * config.n_workers <= 20000 else None
    meta["dead"] = sorted(DEAD_WORKERS)
    meta["notes"].extend(root.notes)
    meta.update(root.extra)
    if unresponsive:
        meta["notes"].append(
            f"workers {unresponsive} did not answer STOP (frozen); ended by MPI_Abort"
        )
    if DEAD_WORKERS:
        meta["notes"].append(
            f"workers {sorted(DEAD_WORKERS)} died during the run; it went on without them"
        )
    result = RunResult(trace, iterations, rounds, meta)
    if error is not None:
        error.result = result
        raise error
    return result


#: The communicators of this process's runs, kept (never freed) until the process ends.
_RUN_COMMS: list = []


def run_communicator(comm: MPI.Comm) -> MPI.Comm:
    """A never-freed duplicate of ``comm`` for one run (late unreceived results on a built-in
    communicator make MPICH's ``MPI_Finalize`` fail and Hydra SIGKILL the job)."""
    dup = comm.Dup()
    _RUN_COMMS.append(dup)
    return dup


def abort_job(comm: MPI.Comm, code: int) -> None:
    """``MPI_Abort(code)`` after flushing stdout/stderr and a pause (else output got lost)."""
    sys.stdout.flush()
    sys.stderr.flush()
    time.sleep(0.5)
    comm.Abort(code)


def abort_if_needed(comm: MPI.Comm, result: RunResult, code: int = 0) -> None:
    """``MPI_Abort`` the job if processes ignored STOP (SIGSTOPped workers)."""
    if result.meta.get("unresponsive"):
        sys.stderr.write(
            f"codedlib.runtime: workers {result.meta['unresponsive']} ignored STOP "
            f"(frozen); ending them with MPI_Abort({code})\n"
        )
        abort_job(comm, code)
