"""Command line: ``mpiexec -n K python -m codedlib.runtime --scheme ... [options]``.

For example ``mpiexec -n 4 python -m codedlib.runtime --scheme gc --N 3 --S 1 --freeze 2@5``
(``K`` = workers + 1; a wrong ``-n`` fails fast naming the right one). Writes ``trace.csv``,
``iterations.csv`` (as the run goes), ``rounds.csv`` and ``run.json`` into ``--out`` (never
over an earlier run without ``--force``) and prints which delays were real and which injected.

Exit codes: 0 success; 2 bad arguments or world size (before any process computes); 3 more
stragglers than tolerated; 4 ``--check`` beyond ``--check-tol``; 5 the iterate diverged; 6 a
process died or went silent (a worker whose parent is silent for ``--timeout`` + 4 s ends
the job). A killed worker ends the job (the completed iterations are in ``--out``); under
``mpiexec -disable-auto-cleanup`` the root names it first, and with the ranks launched
through :mod:`codedlib.runtime.rank` a scheme that tolerates it finishes without it.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from codedlib.runtime.comm import quiet_barrier
from codedlib.runtime.config import RunConfig, WorldSizeError, add_arguments, config_from_namespace

if TYPE_CHECKING:
    from codedlib.runtime.traces import RunResult


def parser() -> argparse.ArgumentParser:
    """The command line of ``python -m codedlib.runtime``: RunConfig's options and the CLI's own."""
    p = argparse.ArgumentParser(
        prog="python -m codedlib.runtime",
        description="Run straggler-resilient distributed gradient descent on MPI "
        "(launch under mpiexec -n <workers + 1>).",
    )
    add_arguments(p)  # one option per RunConfig field, from its declaration
    p.add_argument("--compare", action="store_true", help="also print the simulator's prediction")
    p.add_argument("--out", help="directory for trace.csv, iterations.csv, run.json")
    p.add_argument("--trace", help="also write the latency trace CSV to this file")
    p.add_argument("--force", action="store_true", help="replace an earlier --trace / run in --out")
    tol = "largest relative gradient error --check accepts (exit 4)"
    p.add_argument("--check-tol", type=float, default=1e-8, help=tol)
    p.add_argument("--quiet", action="store_true")
    return p


def _probe_writable(option, directory: Path) -> None:
    """Create ``directory`` (with missing parents) and a file in it, then remove them: the only
    sure test (``os.access`` says yes to read-only file systems and to root)."""
    created = []
    try:
        for parent in reversed([directory, *directory.parents]):
            if not parent.exists():
                parent.mkdir()
                created.append(parent)
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".codedlib-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(
            f"{option}: cannot write into {directory} ({exc.strerror or exc})"
        ) from None
    finally:
        for d in reversed(created):
            with contextlib.suppress(OSError):
                d.rmdir()


def check_outputs(args: argparse.Namespace) -> None:
    """``--out`` and ``--trace`` must be writable and hold no earlier run (unless ``--force``)."""
    from codedlib.runtime.traces import RUN_FILES

    if args.trace:
        trace = Path(args.trace)
        if trace.is_dir():
            raise ValueError(f"--trace must name a file, got the directory {trace}")
        if trace.exists() and not args.force:
            raise ValueError(
                f"--trace {trace} exists: refusing to overwrite an earlier trace "
                "(choose another file or add --force)"
            )
        _probe_writable(f"--trace {trace}", trace.parent)
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
        _probe_writable(f"--out {out}", out)
        if out.is_dir() and any(out.iterdir()):  # --force: the new run is staged beside it
            _probe_writable(
                f"--out {out} (--force stages the new run beside it)", out.resolve().parent
            )
    if not args.check_tol > 0:
        raise ValueError(f"--check-tol must be > 0, got {args.check_tol}")


def config_from_args(args: argparse.Namespace, world_size: int | None = None) -> RunConfig:
    """The :class:`RunConfig` of the parsed command line; with ``world_size``, a wrong world
    size is the error reported first (before, e.g., too few ``--samples``)."""
    try:
        return config_from_namespace(vars(args))
    except ValueError:
        if world_size is not None:
            try:  # is the world size wrong too? That is what to fix first
                probe = config_from_namespace({**vars(args), "samples": 2**62})
            except ValueError:
                probe = None
            if probe is not None:
                probe.check_world(world_size)
        raise


def summary(result: RunResult) -> str:
    """What the CLI prints after a run: iterations, mean time, final loss, gradient error, notes."""
    it, m = result.iterations, result.meta
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
    return "\n".join(lines + [f"  note: {note}" for note in m.get("notes", [])])


def comparison(result: RunResult) -> str:
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
    """MPICH's SIGUSR1 (``-disable-auto-cleanup``): a process died; name it and send it nothing
    more (a scheme that cannot do without it ends at its ``--timeout``)."""

    from codedlib.runtime.nodes import DEAD_WORKERS, ENDED_WORKERS, WORKER_PIDS

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
        dead = [w for w, pid in sorted(WORKER_PIDS.items()) if gone(pid) and w not in ENDED_WORKERS]
        if dead:
            break
        time.sleep(0.025)
    fresh = [w for w in dead if w not in DEAD_WORKERS]
    DEAD_WORKERS.update(dead)
    if (dead and not fresh) or (not dead and ENDED_WORKERS):  # the others ending after the run
        return
    who = ", ".join(f"worker {w} (rank {w + 1}, pid {WORKER_PIDS[w]})" for w in fresh)
    who = who or "a process of the job (not one of this host's workers)"
    from codedlib.runtime.rank import ENV

    if os.environ.get(ENV):  # launched through codedlib.runtime.rank: the launcher lets us go on
        then = (
            "the run goes on without it (no more tasks to it): a scheme that tolerates it "
            "finishes, else --timeout ends the run with the iterations completed so far in --out"
        )
    else:
        then = (
            "MPICH's launcher now ends the job (a process ended by a signal ends it; launch "
            "the ranks through python -m codedlib.runtime.rank to let a tolerated run "
            "finish); the iterations completed so far are in --out"
        )
    sys.stderr.write(f"codedlib.runtime: warning: {who} died; {then}\n")
    sys.stderr.flush()


def _remove_partial(partial):
    if partial is not None:
        (partial / "iterations.csv").unlink(missing_ok=True)
        partial.rmdir()


def _error(message) -> None:
    print(f"codedlib.runtime: error: {message}", file=sys.stderr, flush=True)


def _fail(comm, message, code):
    """Print ``message`` (once per failing rank) and end every process of the job."""
    from codedlib.runtime.engines import abort_job

    _error(message)
    abort_job(comm, code)
    return code


def _parse_and_check(argv, size):
    """``(args, config, None)`` or ``(None, None, (exit code, message or None))``."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or an argparse error (2), already printed here
        return None, None, (int(exc.code or 0), None)
    try:
        config = config_from_args(args, size)
        config.check_world(size)
        check_outputs(args)
        if config.delays_file is not None:  # a bad file fails here, before any compute
            config.injected_delays()
    except (ValueError, WorldSizeError) as exc:
        return None, None, (2, str(exc))
    return args, config, None


def main(argv: list[str] | None = None) -> int:  # noqa: C901 (one exit code per failure the CLI names)
    """Run one configuration on every rank of ``MPI_COMM_WORLD``; the process exit code."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    # rank 0 checks the command line and outputs before any process computes: one message
    verdict = _parse_and_check(argv, comm.Get_size()) if rank == 0 else None
    if comm.Get_size() > 1:
        quiet_barrier(comm)  # the others nap meanwhile (a bcast spins)
        verdict = comm.bcast(verdict, root=0)
    args, config, problem = verdict
    if problem is not None:
        code, message = problem
        if rank == 0 and message is not None:
            _error(message)
        return code
    from codedlib.runtime.engines import abort_if_needed, run
    from codedlib.runtime.nodes import Diverged, ParentSilent, StragglerTimeout

    if hasattr(signal, "SIGUSR1"):  # a worker must not die of the news that another one did
        signal.signal(signal.SIGUSR1, _name_dead_workers if rank == 0 else signal.SIG_IGN)
    shown = list(sys.argv[1:] if argv is None else argv)
    for option in ("--out", "--trace"):  # where the files went is not part of how they were made
        if option in shown:
            k = shown.index(option)
            del shown[k : k + 2]
    shown = [a for a in shown if a not in ("--quiet", "--force")]
    command = "mpiexec -n {} python -m codedlib.runtime {}".format(comm.Get_size(), " ".join(shown))
    progress_dir = partial = None
    if rank == 0 and args.out:
        progress_dir = Path(args.out)
        if progress_dir.is_dir() and any(progress_dir.iterdir()):  # --force: the earlier run
            # stays whole until the new one is saved; its completed iterations go beside it
            where = dict(dir=progress_dir.resolve().parent, prefix=f"{progress_dir.name}.partial-")
            partial = progress_dir = Path(tempfile.mkdtemp(**where))

    started = f"codedlib.runtime: started scheme {config.scheme} on {comm.Get_size()} processes"
    announce = None if args.quiet else lambda: print(started, file=sys.stderr, flush=True)
    try:
        result = run(config, comm, command=command, progress_dir=progress_dir, on_start=announce)
    except (StragglerTimeout, Diverged) as exc:
        _error(exc)
        result = getattr(exc, "result", None)
        if result is not None and args.out:
            result.meta["error"] = str(exc)
            result.save(args.out)
            _remove_partial(partial)
        code = 3 if isinstance(exc, StragglerTimeout) else 5
        if result is not None and result.meta.get("unresponsive"):
            abort_if_needed(comm, result, code)
        return _finish(comm, code)
    except ParentSilent as exc:
        return _fail(comm, str(exc), 6)
    except Exception as exc:  # any other failure on any rank: end the whole job, never hang
        traceback.print_exc()
        return _fail(comm, f"rank {rank} failed: {type(exc).__name__}: {exc}", 1)
    code = 0
    if rank == 0:
        if args.out:
            paths = result.save(args.out)
            _remove_partial(partial)
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
        errors = result.iterations.get("grad_rel_error")
        worst = float(errors.max()) if config.check and errors is not None else math.nan
        if worst > args.check_tol:  # NaN (no error recorded) is no failure
            _error(
                f"--check: largest relative gradient error {worst:.3g} exceeds --check-tol {args.check_tol:g}"
            )
            code = 4
        abort_if_needed(comm, result, code)
    return _finish(comm, code)


def _finish(comm, code):
    """``code`` once every rank is done (napping: ``MPI_Finalize`` spins), at once after a death."""
    from codedlib.runtime.nodes import DEAD_WORKERS, SKIP_FINALIZE

    if DEAD_WORKERS or SKIP_FINALIZE:  # MPI_Finalize would wait for the dead process forever
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    quiet_barrier(comm)
    return code


if __name__ == "__main__":
    sys.exit(main())
