"""Run a scheme for real from a notebook: on ipyparallel MPI engines (one MPI world of
``config.world_size`` processes, started and always stopped here) or as an ``mpiexec`` job.

>>> result = run_for_real("cr", quick=True)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codedlib.runtime.config import RunConfig
from codedlib.runtime.registry import get_scheme
from codedlib.runtime.traces import RunResult
from codedlib.runtime.validation import compare_with_simulator

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    import pandas as pd
    from ipyparallel import DirectView

#: 50 ms + Exp(mean 50 ms) (CR eq. 6 form): large against a laptop's few ms of real overhead.
QUICK_DELAY = FULL_DELAY = "shiftexp:shift=0.05,rate=20"


def scheme_config(scheme: str, quick: bool = True, seed: int = 0, **overrides: Any) -> RunConfig:
    """Default config for ``scheme``: its record's ``quick`` (30 iterations) or ``full`` sizes
    (60), then ``overrides`` (any ``RunConfig`` field; overriding N, n or L drops the default
    S, w, G and tree sizes)."""
    spec = get_scheme(scheme)
    sizes = dict(spec.quick if quick else spec.full)
    if any(name in overrides for name in ("n_workers", "n", "L")):
        follow = ("n_workers", "n", "L", "stragglers", "w", "groups")
        sizes = {k: v for k, v in sizes.items() if k not in follow}
    fields = {
        **sizes,
        "iterations": 30 if quick else 60,
        "samples": 600 if quick else 2400,
        "dim": 20 if quick else 50,
        "delay": QUICK_DELAY if quick else FULL_DELAY,
        "seed": seed,
        "check": True,
        "timeout": 60.0,
    }
    fields.update(overrides)
    return RunConfig(scheme, **fields)


def mpiexec_path() -> str:
    """``mpiexec`` next to the running Python (the ``mpich`` wheel puts it there), else on PATH."""
    here = Path(sys.executable).parent / "mpiexec"
    if here.exists():
        return str(here)
    found = shutil.which("mpiexec")
    if found is None:
        raise RuntimeError(
            "no mpiexec found: install an MPI (e.g. `pip install mpich mpi4py`) "
            "so that `mpiexec` is next to python or on PATH"
        )
    return found


def mpiexec_env() -> dict[str, str]:
    """This environment with the running Python first on ``PATH``, this checkout first on
    ``PYTHONPATH``, and (unless set) one BLAS thread per rank, Open MPI oversubscribing."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


@contextlib.contextmanager
def mpi_cluster(n_procs: int, start_timeout: float = 120.0) -> Iterator[DirectView]:
    """A view on an ipyparallel cluster of ``n_procs`` MPI engines, always stopped on exit."""
    import logging
    from unittest.mock import patch

    import ipyparallel as ipp

    # ERROR: the engines' SIGTERM at the end would be reported as warnings in the notebook
    cluster = ipp.Cluster(engines="mpi", n=n_procs, log_level=logging.ERROR)
    cluster.config.MPIEngineSetLauncher.mpi_cmd = [mpiexec_path()]
    client = None
    env = patch.dict(os.environ, mpiexec_env())  # the launcher's environment, restored after
    env.start()
    try:
        cluster.start_cluster_sync()
        client = cluster.connect_client_sync()
        client.wait_for_engines(n_procs, timeout=start_timeout, interactive=False)
        yield client[:]
    finally:
        with contextlib.suppress(Exception):
            client.shutdown(hub=False, block=True)
        env.stop()
        with contextlib.suppress(Exception):
            cluster.stop_cluster_sync()
        # else the client's sockets and I/O thread outlive the cluster in the kernel
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(linger=0)


def _engine_run(config):
    from codedlib.runtime.engines import StragglerTimeout, run

    try:
        return run(config)
    except StragglerTimeout as exc:
        return ("error", str(exc), getattr(exc, "result", None))


def run_on_cluster(config: RunConfig) -> RunResult:
    """Run ``config`` on a fresh ipyparallel MPI cluster (given up after 2 timeout + 60 s)."""
    if config.freeze_mode == "stop" and config.freeze:
        raise ValueError(
            "freeze_mode='stop' SIGSTOPs an engine, which would then be ended by "
            "MPI_Abort and take the cluster down; use freeze_mode='sleep' here or "
            "backend='mpiexec'"
        )
    with mpi_cluster(config.world_size) as view:
        replies = view.apply_async(_engine_run, config).get(timeout=config.timeout * 2 + 60)
    for reply in replies:
        if isinstance(reply, tuple) and reply and reply[0] == "error":
            raise RuntimeError(reply[1])
    results = [r for r in replies if isinstance(r, RunResult)]
    if len(results) != 1:
        raise RuntimeError(f"expected one result from MPI rank 0, got {len(results)}")
    return results[0]


#: mpiexec's exit code when a rank received SIGKILL from outside the job
KILLED_FROM_OUTSIDE = 9


class KilledFromOutside(RuntimeError):
    """An ``mpiexec`` run lost a rank to a SIGKILL (exit 9, no error of ours, no results);
    reported, never retried (the one cause we found, a failed ``MPI_Finalize``, is fixed:
    :func:`codedlib.runtime.engines.run_communicator`)."""


def run_with_mpiexec(config: RunConfig, out_dir: str | os.PathLike | None = None) -> RunResult:
    """Run ``config`` as an ``mpiexec`` job (killed after 2 timeout + 60 s)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(out_dir) if out_dir is not None else Path(tmp)
        args = ["codedlib.runtime", *config.cli_args(), "--out", str(out), "--quiet"]
        proc = _mpiexec_job(config.world_size, args, config.timeout * 2 + 60)
        if killed_from_outside(proc, out / "run.json"):
            raise _killed(proc)
        if proc.returncode != 0 or not (out / "run.json").exists():
            raise _job_error(proc)
        return RunResult.load(out)


def run_batch_with_mpiexec(
    configs: Sequence[RunConfig],
) -> tuple[list[RunResult], RuntimeError | None]:
    """Run ``configs`` (one world size) in one ``mpiexec`` job (:mod:`codedlib.runtime.batch`).
    Returns the completed runs' results, in order, and the error that ended the job early
    (:class:`KilledFromOutside` for a SIGKILL from outside), or None."""
    sizes = sorted({c.world_size for c in configs})
    if len(sizes) != 1:
        raise ValueError(f"configs must share one world size, got world sizes {sizes}")
    with tempfile.TemporaryDirectory() as tmp:
        outs = [Path(tmp) / str(k) for k in range(len(configs))]
        runs = Path(tmp) / "runs.json"
        argvs = [[*c.cli_args(), "--out", str(o), "--quiet"] for c, o in zip(configs, outs)]
        runs.write_text(json.dumps(argvs), encoding="utf-8")
        timeout = sum(c.timeout * 2 + 60 for c in configs)
        job = ["codedlib.runtime.batch", str(runs)]
        try:
            proc, error = _mpiexec_job(sizes[0], job, timeout), None
        except RuntimeError as err:  # the time limit
            proc, error = None, err
        done = runs.with_suffix(".done")
        n_ok = int(done.read_text(encoding="utf-8")) if done.exists() else 0
        results = [RunResult.load(out) for out in outs[:n_ok]]
        if proc is not None and (proc.returncode != 0 or n_ok < len(configs)):
            killed = n_ok < len(configs) and killed_from_outside(proc, outs[n_ok] / "run.json")
            error = _killed(proc) if killed else _job_error(proc)
        return results, error


def run_all(
    configs: Mapping[str, RunConfig],
    backend: str = "mpiexec",
    tolerate: tuple[type[Exception], ...] = (KilledFromOutside,),
) -> tuple[dict[str, RunResult], dict[str, Exception]]:
    """Run ``configs`` (by name) for real, in order, consecutive ones of one world size in one
    ``mpiexec`` job. Returns the results and the errors by name: a run failing with one of
    ``tolerate`` is reported and the others go on; any other failure raises."""
    results, errors, pending = {}, {}, list(configs)
    while pending:
        if backend == "mpiexec":
            sizes = [configs[s].world_size for s in pending]
            n = next((k for k, w in enumerate(sizes) if w != sizes[0]), len(sizes))
            done, error = run_batch_with_mpiexec([configs[s] for s in pending[:n]])
        else:
            config = configs[pending[0]]
            try:
                done, error = [run_for_real(config.scheme, backend=backend, config=config)], None
            except Exception as exc:  # tolerated or raised below
                done, error = [], exc
        results.update(zip(pending, done))
        pending = pending[len(done) :]
        if error is not None:
            if not pending or not isinstance(error, tolerate):
                raise error
            errors[pending.pop(0)] = error
    return results, errors


def _mpiexec_job(n_procs: int, module_args: list[str], timeout: float):
    cmd = mpiexec_command(n_procs, module_args)
    try:  # own session: the launcher's signals never reach the caller (a notebook kernel)
        kw = dict(capture_output=True, text=True, env=mpiexec_env(), start_new_session=True)
        return subprocess.run(cmd, timeout=timeout, check=False, **kw)
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(
            f"mpiexec run did not finish within {timeout:g} s: {' '.join(cmd)}"
        ) from exc


def _killed(proc: subprocess.CompletedProcess) -> KilledFromOutside:
    return KilledFromOutside(
        "an MPI rank was SIGKILLed (mpiexec exit 9, no error message, no results): "
        "Hydra kills the job when a process exits without finalizing its PMI "
        "connection, or the system killed a process (e.g. out of memory); "
        f"stderr: {proc.stderr[-300:]!r}"
    )


def _job_error(proc: subprocess.CompletedProcess) -> RuntimeError:
    lines = [ln for ln in proc.stderr.splitlines() if "error" in ln.lower()]
    lines = lines or proc.stderr.splitlines()
    return RuntimeError(
        "; ".join(lines[-3:])
        or f"mpiexec exited with {proc.returncode} (stdout: {proc.stdout[-500:]!r})"
    )


def run_for_real(
    scheme: str, quick: bool = True, backend: str = "ipyparallel", seed: int = 0, **overrides: Any
) -> RunResult:
    """Run ``scheme`` on real MPI processes (:func:`scheme_config`'s config, or ``config=``);
    ``RuntimeError`` with the engine's message when more workers fail than tolerated."""
    config = overrides.pop("config", None) or scheme_config(scheme, quick, seed, **overrides)
    if backend == "ipyparallel":
        return run_on_cluster(config)
    if backend == "mpiexec":
        return run_with_mpiexec(config)
    raise ValueError(f"backend must be 'ipyparallel' or 'mpiexec', got backend={backend!r}")


def real_runs(
    runs: str | Sequence[str] | dict[str, dict | None],
    *,
    quick: bool = True,
    seed: int = 0,
    backend: str = "mpiexec",
    **overrides: Any,
) -> tuple[dict[str, RunResult], pd.DataFrame, dict[str, str]]:
    """Run each scheme of ``runs`` (names, or ``{scheme: per-scheme overrides}``) for real and
    compare with the simulator on the same draw. Returns ``(results, table, not_run)``: the
    results, :func:`compare_with_simulator`'s table and why a run killed from outside is
    missing (warned)."""
    if isinstance(runs, str):
        runs = [runs]
    per_scheme = dict(runs) if isinstance(runs, dict) else {s: {} for s in runs}
    if not per_scheme:
        raise ValueError("runs must name at least one scheme, got none")
    import pandas as pd

    configs = {
        s: scheme_config(s, quick, seed, **{**overrides, **(kw or {})})
        for s, kw in per_scheme.items()
    }
    results, errors = run_all(configs, backend)
    for s, err in errors.items():  # killed from outside: said in the table, figure and a warning
        warnings.warn(f"{s}: {err}", RuntimeWarning, stacklevel=3)
    not_run = {s: str(err) for s, err in errors.items()}
    table = compare_with_simulator(results, rng=seed) if results else pd.DataFrame()
    return results, table, not_run


def real_run_table(table: pd.DataFrame, not_run: dict[str, str]) -> pd.DataFrame:
    """The display columns of :func:`real_runs`' table, a "not run" row per ``not_run``."""
    import pandas as pd

    columns = ["name", "N", "processes", "measured", "replayed", "predicted", "gap_predicted"]
    columns.append("method")
    missing = pd.DataFrame([{"name": s, "method": f"not run: {why}"} for s, why in not_run.items()])
    frames = [f.reindex(columns=columns) for f in (table, missing) if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def mpiexec_command(n_procs: int, module_args: Sequence[str]) -> list[str]:
    """``mpiexec -n K python -m mpi4py -m <module_args>``."""
    from codedlib._validation import check_int

    n_procs = check_int("n_procs", n_procs, low=1)
    if isinstance(module_args, str):
        raise TypeError(
            f"module_args must be a sequence of strings, got the string {module_args!r}"
        )
    return [mpiexec_path(), "-n", str(n_procs), sys.executable, "-m", "mpi4py", "-m"] + [
        str(arg) for arg in module_args
    ]


def killed_from_outside(
    proc: subprocess.CompletedProcess, results: str | os.PathLike | None = None
) -> bool:
    """Whether an ``mpiexec`` job lost a rank to a SIGKILL from outside: exit code 9, an empty
    stderr and (when ``results`` is given) no results file."""
    if not hasattr(proc, "returncode") or not hasattr(proc, "stderr"):
        raise TypeError(f"proc must be a subprocess.CompletedProcess, got {type(proc).__name__}")
    stderr = proc.stderr or ""
    if isinstance(stderr, bytes):
        stderr = stderr.decode(errors="replace")
    return (
        proc.returncode == KILLED_FROM_OUTSIDE
        and not stderr.strip()
        and not (results is not None and Path(results).exists())
    )
