"""A run's files are replaced as one (issue 25): a save or a ``--force`` run killed midway
leaves the earlier complete run or the new complete run in ``--out``, never a mix."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]

SAVE = textwrap.dedent(
    """
    import sys, numpy as np, pandas as pd
    from codedlib.latency.traces import ITERATION_COLUMNS, TRACE_COLUMNS
    from codedlib.runtime.traces import RunResult
    out, tag, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = np.random.default_rng(0)
    trace = pd.DataFrame({c: rng.random(rows) for c in TRACE_COLUMNS})
    its = pd.DataFrame({c: np.arange(rows // 100, dtype=float) for c in ITERATION_COLUMNS})
    result = RunResult(trace, its, None, {"tag": tag, "rows": rows})
    print("saving", flush=True)
    result.save(out)
    print("saved", flush=True)
    """
)


def _save(out, tag, rows):
    return subprocess.Popen(
        [sys.executable, "-c", SAVE, str(out), tag, str(rows)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )


def _generation(out: Path):
    """The run ``out`` holds: its tag, after checking every file belongs to that same run."""
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    trace = pd.read_csv(out / "trace.csv", comment="#")
    its = pd.read_csv(out / "iterations.csv", comment="#")
    assert len(trace) == meta["rows"] and len(its) == meta["rows"] // 100, "files of two runs"
    return meta["tag"]


@pytest.mark.parametrize("wait", [0.0, 0.4, 1.2])
def test_a_save_killed_midway_leaves_the_old_run_or_the_new_one(tmp_path, wait):
    out = tmp_path / "run"
    first = _save(out, "old", 20_000)
    assert first.wait(timeout=300) == 0
    proc = _save(out, "new", 400_000)  # seconds of writing on a loaded machine
    assert proc.stdout.readline().strip() == "saving"
    time.sleep(wait)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert _generation(out) in ("old", "new")
    assert sorted(p.name for p in out.iterdir()) == ["iterations.csv", "run.json", "trace.csv"]


def test_a_save_that_finishes_replaces_the_run_and_leaves_no_staging(tmp_path):
    out = tmp_path / "run"
    for tag in ("old", "new"):
        assert _save(out, tag, 5_000).wait(timeout=300) == 0
    assert _generation(out) == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_progress_file_is_never_truncated(tmp_path):
    from codedlib.runtime.traces import ProgressWriter

    ProgressWriter(tmp_path, {"scheme": "gc"}).close()
    with pytest.raises(FileExistsError):
        ProgressWriter(tmp_path, {"scheme": "gc"})


@pytest.mark.mpi
def _rows(csv_path):
    try:
        return len(pd.read_csv(csv_path, comment="#"))
    except pd.errors.EmptyDataError:  # the writer opened the file; its header is not there yet
        return 0


def test_force_keeps_the_earlier_run_until_the_new_one_is_saved(tmp_path):
    from codedlib.runtime.notebook import mpiexec_command, mpiexec_env

    out = tmp_path / "run"
    args = ["codedlib.runtime", "--scheme", "gc", "--N", "3", "--S", "1", "--quiet"]
    fast = [*args, "--iterations", "3", "--out", str(out)]
    assert subprocess.run(mpiexec_command(4, fast), env=mpiexec_env(), cwd=ROOT).returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    slow = [*args, "--iterations", "2000", "--delay", "shiftexp:shift=0.05,rate=20"]
    proc = subprocess.Popen(
        mpiexec_command(4, [*slow, "--out", str(out), "--force"]),
        env=mpiexec_env(),
        cwd=ROOT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 240
    partial = []
    while time.monotonic() < deadline and proc.poll() is None:
        partial = [
            p / "iterations.csv"
            for p in tmp_path.glob("run.partial-*")
            if (p / "iterations.csv").exists()
        ]
        if partial and _rows(partial[0]) >= 1:
            break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    assert partial, "the new run never wrote an iteration"
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the old run, whole
    assert len(pd.read_csv(partial[0], comment="#")) >= 1  # the new run's progress, kept
