"""Record the small latency traces shipped in ``data/traces/`` (see its README).

    python -m codedlib.runtime.record_traces data/traces

Each trace is one ``python -m codedlib.runtime`` run under ``mpiexec``; its ``trace.csv``
(with the ``#`` header naming the command, the MPI library, the host and which delays are
real and which injected) is copied to ``<out>/<name>.csv``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from codedlib.runtime.config import RunConfig

__all__ = ["TRACE_RUNS", "record"]

_COMMON = {"samples": 2400, "dim": 50, "seed": 0, "timeout": 60.0}

#: file stem -> configuration
TRACE_RUNS = {
    "umw-N12-real": RunConfig("umw", n_workers=12, iterations=40, **_COMMON),
    "umw-N12-gamma-hetero": RunConfig(
        "umw", n_workers=12, iterations=40, delay="gamma:mean=0.04,var=1e-4,spread=0.4", **_COMMON
    ),
    "gc-N12-S3-shiftexp": RunConfig(
        "gc",
        n_workers=12,
        stragglers=3,
        iterations=30,
        delay="shiftexp:shift=0.05,rate=20",
        **_COMMON,
    ),
    "cr-n3-L2-s1-shiftexp": RunConfig(
        "cr",
        n=3,
        L=2,
        s=1,
        iterations=30,
        t_c=0.005,
        delay="shiftexp:shift=0.05,rate=20",
        **_COMMON,
    ),
    "dsag-N12-w6-bursts": RunConfig(
        "dsag",
        n_workers=12,
        w=6,
        subpartitions=4,
        iterations=40,
        delay="gamma:mean=0.03,var=1e-4,spread=0.4",
        bursts="p_enter=0.05,p_exit=0.2,factor=3",
        **_COMMON,
    ),
    # the same run without bursts: steady state, as the traces behind the paper's Fig. 6
    "dsag-N12-w6-steady": RunConfig(
        "dsag",
        n_workers=12,
        w=6,
        subpartitions=4,
        iterations=40,
        delay="gamma:mean=0.03,var=1e-4,spread=0.4",
        **_COMMON,
    ),
}


def record(out_dir, names=None) -> list[Path]:
    """Run the named configurations (default: all of :data:`TRACE_RUNS`) and write
    ``<out_dir>/<name>.csv``."""
    from codedlib.runtime.notebook import run_with_mpiexec

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names or TRACE_RUNS:
        with tempfile.TemporaryDirectory() as tmp:
            run_with_mpiexec(TRACE_RUNS[name], out_dir=tmp)
            target = out_dir / f"{name}.csv"
            text = (Path(tmp) / "trace.csv").read_text(encoding="utf-8")
            target.write_text(
                f"# recorded by: python -m codedlib.runtime.record_traces {out_dir} {name}\n"
                + text,
                encoding="utf-8",
            )
            written.append(target)
            print(f"wrote {target}", flush=True)
    return written


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else "data/traces", sys.argv[2:] or None)
