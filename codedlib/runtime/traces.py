"""Latency traces: one row per (iteration, worker) result, written as CSV with a ``#`` header.

Trace columns (the DSAG latency model is fitted to these; DSAG Section VI-A records the same
two quantities):

``iteration``        the receiving node's iteration when the result arrived
``worker``           worker index ``0 .. N-1`` (MPI rank - 1)
``compute_time``     seconds from the worker receiving the iterate to having its result ready:
                     real computation + injected delay (+ for a tree node, waiting for and
                     decoding its children)
``comm_time``        round trip measured by the receiver minus the worker's ``compute_time``:
                     real MPI transfer + queueing + injected per-message delay ``t_c``
``fresh``            computed from the receiver's current iterate (False: a stale result)
``wall_clock``       seconds since the start of the run when the result was received
``injected_delay``   the injected part of ``compute_time`` (0 when no model is injected)
``real_compute``     the measured gradient computation alone
``task_iteration``   the iterate the result was computed from
``used``             the result entered the aggregate (decoded / summed / cached)
``parent``           rank that received it (0: the root)

The per-iteration table (``iterations.csv``) has ``iteration, start, end, iteration_time,
loss, grad_rel_error, normalized_error, n_fresh``; ``grad_rel_error`` (with ``check``) is
``||g - g_serial|| / sum_j ||g_j||``, see :func:`codedlib.runtime.engines.gradient_error`.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "ITERATION_COLUMNS",
    "RUN_FILES",
    "ProgressWriter",
    "TRACE_COLUMNS",
    "TRACE_DIR",
    "RunResult",
    "list_traces",
    "per_iteration_worker_latency",
    "read_trace",
    "trace_path",
    "write_csv",
]

TRACE_COLUMNS = [
    "iteration",
    "worker",
    "compute_time",
    "comm_time",
    "fresh",
    "wall_clock",
    "injected_delay",
    "real_compute",
    "task_iteration",
    "used",
    "parent",
]
#: The files a run writes into its ``--out`` directory (and the only ones it ever removes).
RUN_FILES = ("trace.csv", "iterations.csv", "rounds.csv", "run.json")

ITERATION_COLUMNS = [
    "iteration",
    "start",
    "end",
    "iteration_time",
    "loss",
    "grad_rel_error",
    "normalized_error",
    "n_fresh",
]
ROUND_COLUMNS = ["iteration", "worker", "phase", "round", "seconds"]


#: ``data/traces`` of the repository: the traces recorded by ``codedlib.runtime.record_traces``.
TRACE_DIR = Path(__file__).resolve().parents[2] / "data" / "traces"


def list_traces() -> list[str]:
    """Names of the shipped traces (file stems in :data:`TRACE_DIR`)."""
    return sorted(p.stem for p in TRACE_DIR.glob("*.csv"))


def trace_path(name: str) -> Path:
    """Path of a shipped trace, e.g. ``trace_path("umw-N12-gamma-hetero")``; works from any
    working directory (notebooks run in ``notebooks/``)."""
    path = TRACE_DIR / f"{name}.csv"
    if not path.exists():
        raise ValueError(f"name must be one of {list_traces()}, got name={name!r}")
    return path


def write_csv(df, path, header_lines=()) -> Path:
    """Write ``df`` to ``path`` preceded by ``# `` comment lines (how the data were made)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for line in header_lines:
            fh.writelines(f"# {part}\n" for part in str(line).splitlines())
        df.to_csv(fh, index=False, float_format="%.9g")
    return path


class ProgressWriter:
    """Completed iterations on disk as they finish (``iterations.csv`` in ``out_dir``, one
    flushed line per iteration), so a job ended from outside keeps what it completed; the
    final :meth:`RunResult.save` replaces the file with the full one."""

    def __init__(self, out_dir, meta: dict):
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        self.path = out / "iterations.csv"
        self._fh = open(self.path, "w", encoding="utf-8")
        self._fh.write(
            f"# codedlib.runtime progress (iterations completed so far): "
            f"scheme={meta.get('scheme')} command: {meta.get('command', '?')}\n"
        )
        self._fh.write(",".join(ITERATION_COLUMNS) + "\n")
        self._fh.flush()

    def write(self, row: dict):
        values = []
        for col in ITERATION_COLUMNS:
            v = row.get(col, "")
            values.append(f"{v:.9g}" if isinstance(v, float) else str(v))
        self._fh.write(",".join(values) + "\n")
        self._fh.flush()

    def close(self):
        self._fh.close()


def read_trace(path_or_text):
    """Read a trace CSV (ours or any with the same columns); ``#`` lines are skipped.

    Accepts a path or the CSV text. ``fresh`` and ``used`` come back as booleans.
    """
    import pandas as pd

    if isinstance(path_or_text, str) and "\n" in path_or_text:
        src = io.StringIO(path_or_text)
    else:
        src = Path(path_or_text)
    df = pd.read_csv(src, comment="#")
    missing = [c for c in TRACE_COLUMNS[:6] if c not in df.columns]
    if missing:
        raise ValueError(f"trace must have columns {TRACE_COLUMNS[:6]}, missing {missing}")
    for col in ("fresh", "used"):
        if col in df.columns:
            df[col] = df[col].astype(str).str.lower().isin(("true", "1", "1.0"))
    return df


def header_lines(header_lines_or_text) -> list[str]:
    if isinstance(header_lines_or_text, str):
        return header_lines_or_text.splitlines()
    return list(header_lines_or_text)


def per_iteration_worker_latency(trace):
    """Pivot a trace into the latency ``compute_time + comm_time`` of each worker per
    iteration (rows: task iteration, columns: worker), fresh results only."""
    df = trace[trace["fresh"]] if "fresh" in trace.columns else trace
    df = df.assign(latency=df["compute_time"] + df["comm_time"])
    key = "task_iteration" if "task_iteration" in df.columns else "iteration"
    return df.pivot_table(index=key, columns="worker", values="latency", aggfunc="first")


@dataclass
class RunResult:
    """What a run returns: the trace, the per-iteration table (loss curve), RAR ring rounds,
    and metadata (config, which delays were real and which injected, timings, notes)."""

    trace: object
    iterations: object
    rounds: object = None
    meta: dict = field(default_factory=dict)

    @property
    def mean_iteration_time(self) -> float:
        return float(np.mean(self.iterations["iteration_time"]))

    def header(self) -> list[str]:
        m = self.meta
        lines = [
            (
                f"codedlib.runtime trace: scheme={m.get('scheme')} world_size={m.get('world_size')} "
                f"mpi={m.get('mpi_library', '?')}"
            ),
            f"command: {m.get('command', '?')}",
            f"recorded: {m.get('host', '?')} ({m.get('cpus', '?')} cpus), python {m.get('python', '?')}",
            f"real: {m.get('real', '')}",
            f"injected: {m.get('injected', '')}",
        ]
        for note in m.get("notes", []):
            lines.append(f"note: {note}")
        return lines

    def save(self, out_dir) -> dict:
        """Write ``trace.csv``, ``iterations.csv``, (``rounds.csv``) and ``run.json``; any
        of these files an earlier run left there is removed first (no stale ``rounds.csv``)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        for name in RUN_FILES:
            if (out / name).is_file() and not (out / name).is_symlink():
                (out / name).unlink()
        paths = {
            "trace": write_csv(self.trace, out / "trace.csv", self.header()),
            "iterations": write_csv(self.iterations, out / "iterations.csv", self.header()),
        }
        if self.rounds is not None and len(self.rounds):
            paths["rounds"] = write_csv(self.rounds, out / "rounds.csv", self.header())
        with open(out / "run.json", "w", encoding="utf-8") as fh:
            json.dump(self.meta, fh, indent=2, sort_keys=True, default=str)
        paths["meta"] = out / "run.json"
        return paths

    @classmethod
    def load(cls, out_dir) -> RunResult:
        import pandas as pd

        out = Path(out_dir)
        rounds = None
        if (out / "rounds.csv").exists():
            rounds = pd.read_csv(out / "rounds.csv", comment="#")
        with open(out / "run.json", encoding="utf-8") as fh:
            meta = json.load(fh)
        return cls(
            read_trace(out / "trace.csv"),
            pd.read_csv(out / "iterations.csv", comment="#"),
            rounds,
            meta,
        )
