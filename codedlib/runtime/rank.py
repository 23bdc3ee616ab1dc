"""Run one MPI rank as a child and exit with its status: ``mpiexec -disable-auto-cleanup -n K
python -m codedlib.runtime.rank python -m mpi4py -m codedlib.runtime ...``.

Hydra ends the whole job when a process dies by a signal; this wrapper turns "killed by
signal N" into exit code 128 + N: the other ranks are told (SIGUSR1), a tolerant scheme ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

#: Set in the rank's environment: the root then knows a dead worker does not end the job.
ENV = "CODEDLIB_RANK_WRAPPED"


def main(argv: list[str] | None = None) -> int:
    """Run ``argv`` as this rank's child; its exit status, 128 + N if signal N killed it."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m codedlib.runtime.rank COMMAND [ARG ...]", file=sys.stderr)
        return 2
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # inherited: the rank sets its own handler
    child = subprocess.Popen(argv, close_fds=False, env={**os.environ, ENV: "1"})
    for sig in (signal.SIGTERM, signal.SIGINT):  # pass the launcher's signals on
        signal.signal(sig, lambda s, _f: child.send_signal(s))
    code = child.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
