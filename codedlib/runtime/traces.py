"""What a run of :mod:`codedlib.runtime` writes: the trace (schema and readers in
:mod:`codedlib.latency.traces`), the per-iteration table and ``run.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from codedlib.latency.traces import ITERATION_COLUMNS, read_trace, write_csv

if TYPE_CHECKING:
    import os

    import pandas as pd

#: The files a run writes into its ``--out`` directory (and the only ones it ever removes).
RUN_FILES = ("trace.csv", "iterations.csv", "rounds.csv", "run.json")


class ProgressWriter:
    """Each completed iteration flushed to a new ``iterations.csv`` in ``out_dir`` (a job
    ended from outside keeps them); :meth:`RunResult.save` replaces it with the full table."""

    def __init__(self, out_dir: str | os.PathLike, meta: dict) -> None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        self.path = out / "iterations.csv"
        self._fh = open(self.path, "x", encoding="utf-8")  # noqa: SIM115 (open for the whole run)
        self._fh.write(
            f"# codedlib.runtime progress (iterations completed so far): "
            f"scheme={meta.get('scheme')} command: {meta.get('command', '?')}\n"
        )
        self._fh.write(",".join(ITERATION_COLUMNS) + "\n")
        self._fh.flush()

    def write(self, row: dict) -> None:
        cells = (row.get(col, "") for col in ITERATION_COLUMNS)
        text = ",".join(f"{v:.9g}" if isinstance(v, float) else str(v) for v in cells)
        self._fh.write(text + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


@dataclass
class RunResult:
    """A run's trace, per-iteration table, RAR ring rounds and metadata."""

    trace: pd.DataFrame
    iterations: pd.DataFrame
    rounds: pd.DataFrame | None = None
    meta: dict = field(default_factory=dict)

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
        return lines + [f"note: {note}" for note in m.get("notes", [])]

    def save(self, out_dir: str | os.PathLike) -> dict[str, Path]:
        """Write the run's files into ``out_dir`` in one step (a staged sibling directory
        swapped in); a directory that holds other files gets each replaced atomically."""
        from codedlib.atomic import replace_directory

        out = Path(out_dir)
        others = [p.name for p in out.iterdir() if p.name not in RUN_FILES] if out.is_dir() else []
        if others:
            if self.rounds is None and (out / "rounds.csv").is_file():  # none from an earlier run
                (out / "rounds.csv").unlink()
            self._write(out)
        else:
            with replace_directory(out) as stage:
                self._write(stage)
        return {k: out / name for k, name in self._names().items()}

    def _names(self) -> dict:
        names = {"trace": "trace.csv", "iterations": "iterations.csv"}
        if self.rounds is not None and len(self.rounds):
            names["rounds"] = "rounds.csv"
        return {**names, "meta": "run.json"}

    def _write(self, folder: Path) -> None:
        from codedlib.atomic import write_text_atomic

        for key, name in self._names().items():
            if key != "meta":
                write_csv(getattr(self, key), folder / name, self.header())
        write_text_atomic(
            folder / "run.json", json.dumps(self.meta, indent=2, sort_keys=True, default=str)
        )

    @classmethod
    def load(cls, out_dir: str | os.PathLike) -> RunResult:
        import pandas as pd

        out = Path(out_dir)
        rounds = out / "rounds.csv"
        return cls(
            read_trace(out / "trace.csv"),
            pd.read_csv(out / "iterations.csv", comment="#"),
            pd.read_csv(rounds, comment="#") if rounds.exists() else None,
            json.loads((out / "run.json").read_text(encoding="utf-8")),
        )
