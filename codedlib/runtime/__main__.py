"""Command line: ``mpiexec -n K python -m codedlib.runtime --scheme ... [options]``.

Examples (``K`` = workers + 1; the run fails fast with the right ``-n`` if it does not match)::

    mpiexec -n 13 python -m codedlib.runtime --scheme cr --n 3 --L 2 --s 1 \\
        --delay shiftexp:shift=0.01,rate=100 --iterations 20 --out runs/cr
    mpiexec -n 4 python -m codedlib.runtime --scheme gc --N 3 --S 1 --freeze 2@5
    mpiexec -n 5 python -m codedlib.runtime --scheme rar --N 4 --allreduce ring --t-c 0.002
    mpiexec -n 9 python -m codedlib.runtime --scheme dsag --N 8 --w 4 --subpartitions 4 \\
        --delay gamma:mean=0.02,var=4e-5,spread=0.4

Writes ``trace.csv`` (one row per received result), ``iterations.csv`` (loss curve, written
iteration by iteration while the run goes), ``rounds.csv`` (ring rounds) and ``run.json`` into
``--out`` and prints a summary saying which delays were real and which injected. An existing
``--trace`` file or a non-empty ``--out`` directory is never overwritten without ``--force``.

Exit codes: 0 success; 2 bad arguments or wrong world size (checked before any process
computes, printed once); 3 more stragglers than tolerated (after ``--timeout``); 4 ``--check``
found a gradient off by more than ``--check-tol``; 5 the iterate diverged (the message names the
step size); 6 a process died or went silent (a worker ends the job when its parent stays silent
longer than ``--timeout`` + 4 s, so a frozen or failed root never leaves the job hanging).

A killed worker: MPICH ends the whole job when any process dies; the iterations completed so
far are already in ``--out``. Launched with ``mpiexec -disable-auto-cleanup``, MPICH first
tells the root, which names the dead worker before the job ends.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
import traceback
from pathlib import Path

from codedlib.runtime.config import RunConfig, WorldSizeError, add_arguments, config_from_namespace


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m codedlib.runtime",
        description="Run straggler-resilient distributed gradient descent on MPI "
        "(launch under mpiexec -n <workers + 1>).",
    )
    add_arguments(p)  # one option per RunConfig field, from its declaration
    p.add_argument(
        "--compare",
        action="store_true",
        help="also print the simulator's prediction for the injected model",
    )
    p.add_argument("--out", help="directory for trace.csv, iterations.csv, run.json")
    p.add_argument("--trace", help="also write the latency trace CSV to this file")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an existing --trace file / this tool's files in --out",
    )
    p.add_argument(
        "--check-tol",
        type=float,
        default=1e-8,
        help="largest relative gradient error --check accepts (exit 4 beyond it)",
    )
    p.add_argument("--quiet", action="store_true")
    return p


def check_outputs(args) -> None:
    """``--out`` and ``--trace`` must be writable places that hold no earlier run (unless
    ``--force``); raises ValueError naming the option, the path and what is wrong."""
    from codedlib.runtime.traces import RUN_FILES

    def writable_dir(option, path):
        probe = path
        while not probe.exists():
            probe = probe.parent
        if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
            raise ValueError(
                f"{option} {path}: cannot create it ({probe} is not a writable directory)"
            )

    if args.trace:
        trace = Path(args.trace)
        if trace.is_dir():
            raise ValueError(f"--trace must name a file, got the directory {trace}")
        if trace.exists() and not args.force:
            raise ValueError(
                f"--trace {trace} exists: refusing to overwrite an earlier trace "
                "(choose another file or add --force)"
            )
        writable_dir("--trace", trace.parent if str(trace.parent) else Path("."))
    if args.out:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise ValueError(f"--out must name a directory, got the file {out}")
        if out.is_dir():
            ours = [name for name in RUN_FILES if (out / name).exists()]
            others = sorted(p.name for p in out.iterdir() if p.name not in RUN_FILES)
            if ours and not args.force:
                raise ValueError(
                    f"--out {out} holds an earlier run ({', '.join(ours)}): refusing to "
                    "mix two runs' files (choose another directory or add --force)"
                )
            if others:
                raise ValueError(
                    f"--out {out} holds files that are not a run's ({', '.join(others[:5])}"
                    f"{', ...' if len(others) > 5 else ''}): choose an empty or new directory"
                )
        writable_dir("--out", out)
    if not args.check_tol > 0:
        raise ValueError(f"--check-tol must be > 0, got {args.check_tol}")


def config_from_args(args) -> RunConfig:
    """The :class:`RunConfig` of the parsed command line (options not given keep the field's
    default; see :func:`codedlib.runtime.config.config_from_namespace`)."""
    return config_from_namespace(vars(args))


def summary(result) -> str:
    it = result.iterations
    m = result.meta
    lines = [
        f"scheme {m['scheme']}: {len(it)} iterations on {m['world_size']} processes, "
        f"mean iteration time {it['iteration_time'].mean() * 1e3:.2f} ms, "
        f"final loss {it['loss'].iloc[-1]:.6g}"
        if len(it)
        else f"scheme {m['scheme']}: no iteration finished",
        f"  real:     {m['real']}",
        f"  injected: {m['injected']}",
    ]
    if "grad_rel_error" in it and it["grad_rel_error"].notna().any():
        lines.append(
            f"  max relative gradient error vs serial: {it['grad_rel_error'].max():.3e} "
            "(||g - g_serial|| / sum of the partition gradients' norms)"
        )
    for note in m.get("notes", []):
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def comparison(result) -> str:
    """Measured mean iteration time next to the simulator's (validation.compare_with_simulator)."""
    from codedlib.runtime.validation import compare_with_simulator

    row = compare_with_simulator({result.meta["scheme"]: result}).iloc[0]
    return (
        f"  simulator (iterations 1..): measured {row['measured'] * 1e3:.2f} ms, "
        f"simulator on the injected draw {row['replayed'] * 1e3:.2f} ms "
        f"({row['gap_replayed']:+.1%}), model expectation {row['predicted'] * 1e3:.2f} ms "
        f"({row['gap_predicted']:+.1%}; {row['method']})"
    )


def _name_dead_workers(signum, frame):  # pragma: no cover - needs a killed process
    """MPICH (with ``-disable-auto-cleanup``) signals SIGUSR1 when a process of the job died:
    name it (by the pids the workers sent at start-up) and send it nothing more. The run goes
    on without it; a scheme that cannot do without it ends at its straggler ``--timeout``."""

    from codedlib.runtime.engines import DEAD_WORKERS, WORKER_PIDS

    def gone(pid):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
                return fh.read().rsplit(")", 1)[-1].split()[0] in ("Z", "X")
        except FileNotFoundError:
            return True
        except OSError:
            return False

    dead = []
    for _ in range(20):  # the kernel may still be ending the process: look again briefly
        dead = [w for w, pid in sorted(WORKER_PIDS.items()) if gone(pid)]
        if dead:
            break
        time.sleep(0.025)
    fresh = [w for w in dead if w not in DEAD_WORKERS]
    DEAD_WORKERS.update(dead)
    if dead and not fresh:
        return
    who = (
        ", ".join(f"worker {w} (rank {w + 1}, pid {WORKER_PIDS[w]})" for w in fresh)
        if fresh
        else "a process of the job (not one of this host's workers)"
    )
    sys.stderr.write(
        f"codedlib.runtime: warning: {who} died; the run goes on without it (no more "
        "tasks to it): a scheme that tolerates it finishes, else --timeout ends the run "
        "with the iterations completed so far in --out\n"
    )
    sys.stderr.flush()


def _fail(comm, rank, message, code):
    """Print ``message`` (once per failing rank) and end every process of the job."""
    from codedlib.runtime.engines import abort_job

    print(f"codedlib.runtime: error: {message}", file=sys.stderr, flush=True)
    abort_job(comm, code)
    return code


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    # everything checked before any process computes; the verdict is rank 0's (it writes the
    # files) and every rank returns the same exit code, so the error is printed once
    problem = None
    try:
        config = config_from_args(args)
        config.check_world(comm.Get_size())
        if rank == 0:
            check_outputs(args)
            if config.delays_file is not None:  # a bad file fails here, before any compute
                config.injected_delays()
    except (ValueError, WorldSizeError) as exc:
        problem = str(exc)
    if comm.Get_size() > 1:
        problem = comm.bcast(problem if rank == 0 else None, root=0)
    if problem is not None:
        if rank == 0:
            print(f"codedlib.runtime: error: {problem}", file=sys.stderr, flush=True)
        return 2
    from codedlib.runtime.engines import (
        Diverged,
        ParentSilent,
        StragglerTimeout,
        abort_if_needed,
        run,
    )

    if hasattr(signal, "SIGUSR1"):  # a worker must not die of the news that another one did
        signal.signal(signal.SIGUSR1, _name_dead_workers if rank == 0 else signal.SIG_IGN)
    shown = list(sys.argv[1:] if argv is None else argv)
    for option in ("--out", "--trace"):  # where the files went is not part of how they were made
        if option in shown:
            k = shown.index(option)
            del shown[k : k + 2]
    shown = [a for a in shown if a not in ("--quiet", "--force")]
    command = "mpiexec -n {} python -m codedlib.runtime {}".format(comm.Get_size(), " ".join(shown))
    if rank == 0 and args.out and args.force:
        from codedlib.runtime.traces import RUN_FILES

        for name in RUN_FILES:  # only this tool's files, never anything else
            path = Path(args.out) / name
            if path.is_file() and not path.is_symlink():
                path.unlink()

    def announce():
        if not args.quiet:
            print(
                f"codedlib.runtime: started scheme {config.scheme} on {comm.Get_size()} processes",
                file=sys.stderr,
                flush=True,
            )

    try:
        result = run(
            config,
            comm,
            command=command,
            progress_dir=args.out if rank == 0 else None,
            on_start=announce,
        )
    except (StragglerTimeout, Diverged) as exc:
        print(f"codedlib.runtime: error: {exc}", file=sys.stderr, flush=True)
        result = getattr(exc, "result", None)
        if result is not None and args.out:
            result.meta["error"] = str(exc)
            result.save(args.out)
        code = 3 if isinstance(exc, StragglerTimeout) else 5
        if result is not None and result.meta.get("unresponsive"):
            abort_if_needed(comm, result, code)
        return code
    except ParentSilent as exc:
        return _fail(comm, rank, str(exc), 6)
    except Exception as exc:  # any other failure on any rank: end the whole job, never hang
        traceback.print_exc()
        return _fail(comm, rank, f"rank {rank} failed: {type(exc).__name__}: {exc}", 1)
    code = 0
    if rank == 0:
        if args.out:
            paths = result.save(args.out)
            if not args.quiet:
                print(f"wrote {', '.join(str(p) for p in paths.values())}")
        if args.trace:
            from codedlib.runtime.traces import write_csv

            path = write_csv(result.trace, args.trace, result.header())
            if not args.quiet:
                print(f"wrote {path}")
        if not args.quiet:
            print(summary(result), flush=True)
        if args.compare:
            print(comparison(result), flush=True)
        errors = (
            result.iterations["grad_rel_error"] if "grad_rel_error" in result.iterations else None
        )
        if config.check and errors is not None and errors.notna().any():
            worst = float(errors.max())
            if not worst <= args.check_tol:
                print(
                    f"codedlib.runtime: error: --check: largest relative gradient error {worst:.3g} "
                    f"exceeds --check-tol {args.check_tol:g}",
                    file=sys.stderr,
                    flush=True,
                )
                code = 4
        abort_if_needed(comm, result, code)
    return code


if __name__ == "__main__":
    sys.exit(main())
