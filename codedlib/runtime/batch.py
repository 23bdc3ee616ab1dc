"""Several runs in one job: ``mpiexec -n K python -m mpi4py -m codedlib.runtime.batch RUNS.json``.

``RUNS.json`` lists :mod:`codedlib.runtime` command lines (each with its own ``--out``) run one
after the other in the same processes, so start-up (about 10 s of a 13-process job on 2 cores)
is paid once. Stops at the first failing run with its exit code; ``RUNS.done`` holds the
number of runs that succeeded.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

from mpi4py import MPI

from codedlib.atomic import write_text_atomic
from codedlib.runtime.__main__ import main as run_main


def main(argv: list[str] | None = None) -> int:
    """Run every command line of ``RUNS.json`` in this job; the first failing exit code or 0."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m codedlib.runtime.batch RUNS.json", file=sys.stderr)
        return 2
    runs = Path(argv[0])
    for done, run_argv in enumerate(json.loads(runs.read_text(encoding="utf-8")), 1):
        code = run_main(list(run_argv))
        if code:
            return code
        if MPI.COMM_WORLD.Get_rank() == 0:
            write_text_atomic(runs.with_suffix(".done"), str(done))
        gc.freeze()  # the next run's collections skip what this one left (pandas on the root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
