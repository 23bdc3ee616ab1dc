"""Latency traces, the schema every layer shares: one row per result received, CSV with ``#``
header lines saying how the data were made.

The columns are :data:`TRACE_COLUMNS` (meanings beside it; DSAG Section VI-A records the same
two times); the first six (:data:`REQUIRED_COLUMNS`) are what a trace from elsewhere must
have. Our MPI runtime (:mod:`codedlib.runtime`) writes these files; :func:`synchronous_trace`
writes one from drawn times. Reference: severinson2023dsag.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike

TRACE_COLUMNS = [
    "iteration",  # the receiving node's iteration when the result arrived
    "worker",  # 0 .. N-1 (MPI rank - 1)
    # seconds from receiving the iterate to the result being ready: real computation +
    # injected delay (+ for a tree node, waiting for and decoding its children)
    "compute_time",
    # round trip measured by the receiver minus compute_time: MPI transfer + queueing +
    # injected per-message delay t_c
    "comm_time",
    "fresh",  # computed from the receiver's current iterate (False: a stale result)
    "wall_clock",  # seconds since the start of the run when the result was received
    "injected_delay",  # the injected part of compute_time (0 when no model is injected)
    "real_compute",  # the measured gradient computation alone
    "task_iteration",  # the iterate the result was computed from
    "used",  # the result entered the aggregate (decoded / summed / cached)
    "parent",  # rank that received it (0: the root)
]

#: The columns a trace must have (the rest are optional).
REQUIRED_COLUMNS = tuple(TRACE_COLUMNS[:6])

#: The per-iteration table of a run (``iterations.csv``); ``grad_rel_error`` (with ``check``) is
#: ``||g - g_serial|| / sum_j ||g_j||``, see :func:`codedlib.runtime.nodes.gradient_error`.
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
    working directory (notebooks run in ``notebooks/``).
    """
    if not isinstance(name, str) or name not in list_traces():  # never a path out of TRACE_DIR
        raise ValueError(f"name must be one of {list_traces()}, got name={name!r}")
    return TRACE_DIR / f"{name}.csv"


def write_csv(df: pd.DataFrame, path: str | Path, header_lines: Iterable[str] = ()) -> Path:
    """Write ``df`` to ``path`` (folder created) after ``# `` lines (how the data were made)."""
    from codedlib.atomic import atomic_write

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as fh:  # a reader never sees a half-written file
        for line in header_lines:
            fh.writelines(f"# {part}\n" for part in str(line).splitlines())
        df.to_csv(fh, index=False, float_format="%.9g")
    return path


def read_trace(path_or_text: str | Path) -> pd.DataFrame:
    """Read a trace CSV (ours or any with the same columns); ``#`` lines are skipped.

    Accepts a path or the CSV text. ``fresh`` and ``used`` come back as booleans. A file that
    is missing, empty, header-only or truncated (a row with an empty field), or holds a value
    of the wrong kind (``fresh`` not a boolean, a non-numeric or non-finite time, a negative
    ``compute_time`` or ``wall_clock``, a negative or fractional ``worker``) raises
    ``ValueError`` naming the file, the row (1-based data row) and the column.
    """
    import pandas as pd

    if isinstance(path_or_text, str) and "\n" in path_or_text:
        src, where = io.StringIO(path_or_text), "trace text"
    else:
        src = Path(path_or_text)
        where = f"trace {src}"
        if not src.is_file():
            raise ValueError(f"{where}: no such file")
    try:
        df = pd.read_csv(src, comment="#", dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{where}: empty file (no header, no rows)") from None
    except pd.errors.ParserError as exc:
        raise ValueError(f"{where}: not a CSV table ({exc})") from None
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(
            f"{where}: a trace must have columns {list(REQUIRED_COLUMNS)}, missing {missing}"
        )
    if not len(df):
        raise ValueError(f"{where}: header only, no rows")

    def bad(col, mask, what):
        row = int(np.flatnonzero(np.asarray(mask))[0])
        value = df[col].iloc[row]
        return ValueError(
            f"{where}, row {row + 1}, column {col!r}: {what}, got {value!r}"
            + (" (the last row: a truncated file?)" if row == len(df) - 1 else "")
        )

    for col in df.columns:
        parsed = _parse_column(col, df[col].str.strip(), bad)
        if parsed is not None:
            df[col] = parsed
    return df


def _parse_column(col, text, bad):
    """A trace column's values parsed and checked (None: leave a foreign text column as is)."""
    import pandas as pd

    if col in ("fresh", "used"):
        low = text.str.lower()
        ok = low.isin(("true", "false", "1", "0", "1.0", "0.0"))
        if not ok.all():
            raise bad(col, ~ok, "must be a boolean (True/False or 1/0)")
        return low.isin(("true", "1", "1.0"))
    values = pd.to_numeric(text, errors="coerce")
    if col not in TRACE_COLUMNS:  # a column of someone else's: numbers if it holds numbers
        return None if values[text != ""].isna().any() else values
    finite = np.isfinite(values.to_numpy(dtype=float))
    if not finite.all():
        raise bad(col, ~finite, "must be a finite number")
    if col in ("iteration", "worker", "task_iteration", "parent"):
        low = -1 if col == "parent" else 0  # parent -1: RAR's rows (no receiving parent)
        whole = (values >= low) & (values == np.round(values))
        if not whole.all():
            raise bad(col, ~whole, f"must be an integer >= {low}")
        return values.astype(np.int64)
    if (
        col in ("compute_time", "wall_clock", "injected_delay", "real_compute")
        and (values < 0).any()
    ):
        raise bad(col, values < 0, "must be >= 0 (seconds)")
    return values


def synchronous_trace(compute: ArrayLike, comm: ArrayLike) -> pd.DataFrame:
    """The trace of synchronous iterations: every worker computes ``compute[t, i]`` seconds
    (all of it injected) and sends one message of ``comm`` seconds (scalar or ``(T, N)``);
    iteration ``t + 1`` starts when the last result of iteration ``t`` has arrived (no queue
    waits); rows in arrival order.

    Examples
    --------
    >>> df = synchronous_trace([[1.0, 2.0], [1.0, 1.0]], 0.5)
    >>> df.wall_clock.tolist()
    [1.5, 2.5, 4.0, 4.0]
    """
    import pandas as pd

    compute = np.asarray(compute, dtype=float)
    if compute.ndim != 2 or compute.size == 0:
        raise ValueError(f"compute must be a (T, N) array, got shape {compute.shape}")
    if not np.all(np.isfinite(compute)) or np.any(compute < 0):
        raise ValueError("compute must hold finite times >= 0")
    T, N = compute.shape
    comm = np.broadcast_to(np.asarray(comm, dtype=float), (T, N))
    if not np.all(np.isfinite(comm)) or np.any(comm < 0):
        raise ValueError("comm must hold finite times >= 0")
    arrival = np.empty((T, N))
    start = 0.0
    for t in range(T):
        arrival[t] = start + compute[t] + comm[t]
        start = float(arrival[t].max())
    it = np.repeat(np.arange(T), N)
    df = pd.DataFrame(
        {
            "iteration": it,
            "worker": np.tile(np.arange(N), T),
            "compute_time": compute.ravel(),
            "comm_time": comm.ravel(),
            "fresh": True,
            "wall_clock": arrival.ravel(),
            "injected_delay": compute.ravel(),
            "real_compute": 0.0,
            "task_iteration": it,
            "used": True,
            "parent": 0,
        }
    )
    return df.sort_values(["iteration", "wall_clock"], kind="stable").reset_index(drop=True)
