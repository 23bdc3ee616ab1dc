"""Record the small latency traces shipped in ``data/traces/`` (see its README):
``python -m codedlib.runtime.record_traces data/traces``; each is one ``mpiexec`` run's
``trace.csv`` (its ``#`` header names the command, MPI, the host and what was injected).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from codedlib.runtime.config import RunConfig

if TYPE_CHECKING:
    import os
    from collections.abc import Iterable

_COMMON = {"samples": 2400, "dim": 50, "seed": 0, "timeout": 60.0}
_SHIFTEXP = {"iterations": 30, "delay": "shiftexp:shift=0.05,rate=20", **_COMMON}
_DSAG = {"n_workers": 12, "w": 6, "subpartitions": 4, "iterations": 40, **_COMMON}
_GAMMA = "gamma:mean=0.03,var=1e-4,spread=0.4"

#: file stem -> configuration
TRACE_RUNS = {
    "umw-N12-real": RunConfig("umw", n_workers=12, iterations=40, **_COMMON),
    "umw-N12-gamma-hetero": RunConfig(
        "umw", n_workers=12, iterations=40, delay="gamma:mean=0.04,var=1e-4,spread=0.4", **_COMMON
    ),
    "gc-N12-S3-shiftexp": RunConfig("gc", n_workers=12, stragglers=3, **_SHIFTEXP),
    "cr-n3-L2-s1-shiftexp": RunConfig("cr", n=3, L=2, s=1, t_c=0.005, **_SHIFTEXP),
    "dsag-N12-w6-bursts": RunConfig(
        "dsag", delay=_GAMMA, bursts="p_enter=0.05,p_exit=0.2,factor=3", **_DSAG
    ),
    # the same run without bursts: steady state, as the traces behind the paper's Fig. 6
    "dsag-N12-w6-steady": RunConfig("dsag", delay=_GAMMA, **_DSAG),
}


def record(
    out_dir: str | os.PathLike, names: Iterable[str] | None = None, force: bool = False
) -> list[Path]:
    """Run the named configurations (default all) into ``<out_dir>/<name>.csv``; existing files
    are replaced only with ``force`` (checked before any run)."""
    from codedlib.atomic import write_text_atomic
    from codedlib.runtime.notebook import run_with_mpiexec

    names = list(names or TRACE_RUNS)
    unknown = [n for n in names if n not in TRACE_RUNS]
    if unknown:
        raise ValueError(f"names must be among {list(TRACE_RUNS)}, got unknown {unknown}")
    out_dir = Path(out_dir)
    existing = [str(out_dir / f"{n}.csv") for n in names if (out_dir / f"{n}.csv").exists()]
    if existing and not force:
        raise ValueError(
            f"refusing to overwrite recorded traces {existing} (committed data): add --force"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            run_with_mpiexec(TRACE_RUNS[name], out_dir=tmp)
            text = (Path(tmp) / "trace.csv").read_text(encoding="utf-8")
        target = write_text_atomic(
            out_dir / f"{name}.csv",
            f"# recorded by: python -m codedlib.runtime.record_traces {out_dir} {name}\n" + text,
        )
        written.append(target)
        print(f"wrote {target}", flush=True)
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m codedlib.runtime.record_traces [OUT_DIR] [NAME ...] [--force]``."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m codedlib.runtime.record_traces")
    p.add_argument("out_dir", nargs="?", default="data/traces", help="default data/traces")
    p.add_argument("names", nargs="*", help=f"default all: {', '.join(TRACE_RUNS)}")
    p.add_argument("--force", action="store_true", help="replace existing trace files")
    args = p.parse_args(argv)
    try:
        record(args.out_dir, args.names or None, force=args.force)
    except ValueError as exc:
        print(f"record_traces: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
