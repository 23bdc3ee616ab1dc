"""Real processes against the shoot-out simulator: one injected cluster, a root and N workers.

The MPI-run part of notebook 06 (claims in :mod:`codedlib.experiments.shootout_mpi`). Every
shoot-out scheme with an MPI engine (``runtime`` field of
:data:`~codedlib.schemes.shootout.SCHEMES`) runs on a root and ``N = 12`` workers (CodedReduce
on the (3, 2) tree), one after the other, those of one world size in one `mpiexec` job
(:func:`codedlib.runtime.notebook.run_all`).
**Injected**: each task's computation time, ``cluster.compute_times`` of the scheme's shares on
the draws ``cluster.factors(T, seed)``, slept after the real gradient
(``RunConfig(delays_file=...)``), and ``t_c`` per received message (CR Sec. III-C; a ring
message carries ``dim / N`` numbers). **Real**: the gradients of a 2400 x 50 stand-in (0.1-0.3
ms a task against 10-95 ms injected), MPI over shared memory, 1 ms polling and the processes'
scheduling, so ``measured / predicted - 1`` is the real cost. The prediction is the shoot-out
simulator on the same draws and, for LAGC/G-LAG's group selection (eq. 17), on the runs' own
data (the runtime's ``build_problem``); the registry's replay is reported beside it.

Measured / predicted in notebook 06's faithful run (40 iterations, 2 cores): 1.04 (GC, RS-GC,
LAGC) to 1.13 (DSAG-LB, whose prediction uses the oracle sub-partitions the run learns online).

>>> delays, t_c = scheme_injection(Shootout(real_cluster(), max_iter=5, tune=False), "gc")
>>> delays.shape, round(t_c, 5)
((5, 12), 0.00264)

Reference: reisizadeh2022codedreduce, halbawi2018reedsolomon, severinson2023dsag,
zhang2021lagc, tandon2017gradient.
"""

from __future__ import annotations

import tempfile
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from codedlib._validation import InputTypeError, check_int
from codedlib.claims import mean_interval
from codedlib.cluster import ClusterModel, Workload
from codedlib.network import Network
from codedlib.schemes.shootout import SCHEMES as SHOOTOUT_SCHEMES
from codedlib.schemes.shootout import Shootout, iteration_times, mpich_allreduce_algorithm, simulate

if TYPE_CHECKING:
    from collections.abc import Iterable

    from codedlib.runtime.traces import RunResult

#: Shoot-out schemes with an MPI engine, in the shoot-out's order (name -> runtime engine).
REAL_SCHEMES = {name: s.runtime for name, s in SHOOTOUT_SCHEMES.items() if s.runtime is not None}
#: Real stand-in problem of the MPI runs (rows, features): a task's real gradient costs about
#: 0.1-0.3 ms (measured) against 10-95 ms of injected computation.
REAL_SAMPLES, REAL_DIM = 2400, 50


def real_cluster(n_workers: int = 12) -> ClusterModel:
    """The cluster injected into a root and ``n_workers`` processes: shifted-exponential
    straggling (share 0.5, CR eq. 6), DSAG Sec. VII-B slowdown ``1 + 0.4 i / N``, 30 ms per
    share, 2.64 ms per gradient message (2 ms latency)."""
    return ClusterModel(
        n_workers=n_workers,
        family="shifted_exponential",
        shape=0.5,
        heterogeneity=0.4,
        workload=Workload(dim=1000, rows=7500),
        network=Network(latency=2e-3),
        name=f"injected into {n_workers + 1} MPI processes",
    )


def _scheme_name(name: str) -> str:
    """A :data:`REAL_SCHEMES` key, or the first whose runtime engine is ``name``."""
    for key, runtime in REAL_SCHEMES.items():
        if name in (key, runtime):
            return key
    raise ValueError(
        f"schemes must be among the shoot-out schemes with an MPI engine {list(REAL_SCHEMES)} "
        f"(or their runtime names {list(REAL_SCHEMES.values())}), got {name!r}"
    )


def scheme_injection(setup: Shootout, name: str, seed: int = 0) -> tuple[np.ndarray, float]:
    """What a real run of shoot-out scheme ``name`` (a :data:`REAL_SCHEMES` key or its runtime
    name) injects to be ``setup.cluster``: the delays [s] ``(T, N)``,
    ``cluster.compute_times`` of its layout's shares on the draws ``cluster.factors(T, seed)``
    (the runtime's own delay models cannot draw a cluster's family x slowdown x burst), and
    ``t_c`` [s] per received message (a gradient; a ring message: ``dim / N`` numbers).
    DSAG-LB: the runtime's default sub-partition ``1 / setup.subpartitions`` (the MPI worker
    scales a task's delay by the task's size)."""
    if not isinstance(setup, Shootout):
        raise InputTypeError(f"setup must be a Shootout, got {type(setup).__name__}")
    name, c = _scheme_name(name), setup.cluster
    shares = SHOOTOUT_SCHEMES[name].layout(setup)["shares"]
    if name == "dsag-lb":
        shares = np.full(setup.n_workers, 1.0 / setup.subpartitions)
    t_c = c.message_time
    if name == "rar":
        t_c = float(c.network.vector_time(c.workload.dim / setup.n_workers))
    return c.compute_times(shares, setup.max_iter, rng=check_int("seed", seed, 0)), t_c


def _run_config(setup: Shootout, name: str, t_c: float, path: str, seed: int):
    """The :class:`~codedlib.runtime.config.RunConfig` of the shoot-out layout of ``name``."""
    from codedlib.runtime.notebook import scheme_config

    lay, runtime = SHOOTOUT_SCHEMES[name].layout(setup), REAL_SCHEMES[name]
    sizes = {"n_workers": setup.n_workers}
    if runtime in ("sgd", "gc", "rs"):
        sizes["stragglers"] = setup.n_stragglers
    elif runtime == "cr":
        sizes = {"n": lay["n"], "L": lay["L"], "s": lay["s"]}
    elif name == "mpi-allreduce":
        sizes["allreduce"] = "mpi"  # MPICH's own MPI_Allreduce: no t_c, real transfers
    elif runtime == "rar":
        sizes["allreduce"] = "ring"  # the hand-written ring charges t_c per round, as simulated
    elif runtime in ("dsag", "dsag-lb"):
        sizes.update(w=lay["w"], subpartitions=setup.subpartitions, margin=setup.margin)
    elif runtime in ("lagc", "g-lag"):
        sizes.update(
            redundancy=setup.redundancy, groups=lay["groups"], xi=setup.xi, history=setup.history
        )
    fixed = {"quick": False, "samples": REAL_SAMPLES, "dim": REAL_DIM, "delay": "none"}
    run = {"seed": seed, "iterations": setup.max_iter, "delays_file": path, "t_c": t_c}
    return scheme_config(runtime, **fixed, **run, **sizes)


@dataclass
class RealVsPredicted:
    """Measured (real MPI processes) against predicted (shoot-out simulator) iteration times:
    ``frame``, one row per scheme (seconds; iteration 0 left out on both
    sides; ``measured_ci_*``: 95 % t-interval over iterations; ``replayed_mean``: the registry's
    replay of the injected delays; ``status``: ``"run"`` or ``"not run: <reason>"``), and each
    run's result in ``results``."""

    frame: pd.DataFrame
    cluster: ClusterModel
    results: dict[str, RunResult] = field(default_factory=dict)

    @property
    def caption(self) -> str:
        """Which part of a measured time is injected and which is real, in one line."""
        return (
            "injected: each task's computation time (cluster.compute_times on the shoot-out's "
            "draws, slept after the real gradient) and t_c per received message (single port); "
            f"real: gradients of a {REAL_SAMPLES} x {REAL_DIM} least-squares stand-in, MPI "
            f"transfers, 1 ms polling, {self.cluster.n_workers + 1} processes' scheduling"
        )


def _check_schemes(schemes: str | Iterable[str] | None) -> list[str]:
    if schemes is None:
        return list(REAL_SCHEMES)
    if isinstance(schemes, str):
        schemes = [schemes]
    try:
        names = [_scheme_name(s) for s in schemes]
    except TypeError:
        raise InputTypeError(
            f"schemes must be a scheme name or an iterable of names, got {schemes!r}"
        ) from None
    if not names:
        raise ValueError(f"schemes must name at least one of {list(REAL_SCHEMES)}, got none")
    return list(dict.fromkeys(names))


def real_vs_predicted(
    cluster: ClusterModel,
    schemes: str | Iterable[str] | None = None,
    iterations: int = 40,
    seed: int = 0,
) -> RealVsPredicted:
    """Run each scheme (:data:`REAL_SCHEMES` or runtime names; default all) on real MPI
    processes with the cluster injected and compare with the simulator on the same draws
    ``cluster.factors(iterations, seed)`` (module docstring). A scheme whose run fails gets
    ``status = "not run: <reason>"`` and a ``RuntimeWarning``; the others go on."""
    from codedlib.runtime.config import RunConfig, build_problem
    from codedlib.runtime.notebook import run_all

    if not isinstance(cluster, ClusterModel):
        raise InputTypeError(f"cluster must be a ClusterModel, got {type(cluster).__name__}")
    names = _check_schemes(schemes)
    iterations = check_int("iterations", iterations, 2)
    seed = check_int("seed", seed, 0)
    # CodedReduce's tree of 13 processes; tune=False: the runtime's fixed S, w and groups
    tree = (3, 2) if cluster.n_workers == 12 else None
    # the runs' own problem, so LAGC's and G-LAG's group selection sees the same data
    config = RunConfig(
        "umw", n_workers=cluster.n_workers, samples=REAL_SAMPLES, dim=REAL_DIM, seed=seed
    )
    problem = build_problem(config)[0]
    setup = Shootout(cluster, problem=problem, max_iter=iterations, tree=tree, tune=False)
    for name in names:
        if not SHOOTOUT_SCHEMES[name].applies(setup):
            raise ValueError(
                f"schemes: {name!r} does not apply at N={cluster.n_workers}, got schemes={names}"
            )
    factors = cluster.factors(iterations, seed)
    with tempfile.TemporaryDirectory(prefix="shootout-mpi-") as tmp:
        runs = {name: _prepare(setup, name, seed, factors, Path(tmp)) for name in names}
        # one mpiexec job for the runs of one world size; a failed run is a row, not an error
        results, errors = run_all(
            {n: r["config"] for n, r in runs.items()}, tolerate=(RuntimeError,)
        )
    rows, ran = [], {}
    for name, run in runs.items():
        if (err := errors.get(name)) is not None:  # KilledFromOutside, timeouts, failures
            reason = str(err).splitlines()[0] if str(err) else type(err).__name__
            warnings.warn(f"{name}: {reason}", RuntimeWarning, stacklevel=2)
            rows.append({**run["row"], "status": f"not run: {reason}"})
        else:
            ran[name] = results[name]
            rows.append(_finish(setup, name, run, results[name]))
    return RealVsPredicted(pd.DataFrame(rows), cluster, ran)


def _prepare(setup, name, seed, factors, tmp: Path) -> dict:
    """A scheme's run config, its injected delays, the simulator's prediction and the row's
    fields known before the run."""
    scheme = SHOOTOUT_SCHEMES[name]
    (delays, t_c), run = scheme_injection(setup, name, seed), None
    n_run = int(scheme.layout(setup).get("tree_workers", setup.n_workers))
    delays = delays[:, :n_run]  # the workers the run has
    path = str(tmp / f"{name}.npy")
    np.save(path, np.ascontiguousarray(delays))
    config = _run_config(setup, name, t_c, path, seed)
    if name == "mpi-allreduce":  # the waiting rule (every rank, per-rank rounds) checked
        free = setup.cluster.with_(network=Network(latency=0.0, bandwidth=1e300))
        predicted = iteration_times(name, replace(setup, cluster=free), factors)
        algorithm = mpich_allreduce_algorithm(setup.n_workers, REAL_DIM)
        method = (
            f"shootout.iteration_times (mpi-allreduce: MPICH's {algorithm} for {REAL_DIM} "
            f"doubles on {setup.n_workers} ranks) on a free network: the run's MPI_Allreduce "
            "moves shared memory and is charged no t_c"
        )
    elif scheme.engine in ("exact", "sgd"):
        predicted = iteration_times(name, setup, factors)
        method = f"shootout.iteration_times ({scheme.engine} engine, {scheme.timing} timing)"
    else:
        run = simulate(setup, name, seed, factors=factors)
        predicted = run.times
        method = (
            "shootout.simulate (lazy engine, LAGC Alg. 1 / eq. 17) on the run's own data: "
            "the group selection is the simulator's"
            if scheme.engine == "lazy"
            else "shootout.simulate (event engine: DSAG Sec. V-A deadline coordinator, single port)"
        )
    if name == "dsag-lb":
        method += (
            f" with the oracle sub-partitions p={scheme.layout(setup)['p'].tolist()} from the "
            f"start (the MPI run starts at p={setup.subpartitions} and re-balances online)"
        )
    replayed = config.spec.iteration_times(config, delays)[1:]
    nan = np.nan  # measured: filled in by _finish
    row = {
        "scheme": name,
        "runtime": scheme.runtime,
        "title": scheme.title,
        "processes": config.world_size,
        "iterations": setup.max_iter - 1,
        "measured_mean_iteration_time": nan,
        "measured_ci_low": nan,
        "measured_ci_high": nan,
        "predicted_mean": float(predicted[1:].mean()),
        "ratio": nan,
        "replayed_mean": float(replayed.mean()),
        "replay_method": config.spec.replay_method(config),
        "real_compute_mean": nan,
        "injected_delay_mean": nan,
        "t_c": t_c,
        "method": method,
        "status": "run",
    }
    return {"config": config, "row": row, "delays": delays, "sim": run}


def _finish(setup, name, prepared, result) -> dict:
    """The row of a scheme whose run completed: measured against predicted."""
    scheme, row, run = SHOOTOUT_SCHEMES[name], prepared["row"], prepared["sim"]
    injected = np.asarray(result.meta["delays"], dtype=float)
    if not np.array_equal(injected, prepared["delays"]):
        raise RuntimeError(f"{name}: the run injected other delays than the cluster's")
    measured = result.iterations["iteration_time"].to_numpy(dtype=float)[1:]
    if scheme.engine == "event":
        trace, T = result.trace, setup.max_iter
        row["method"] += (
            f"; results received per iteration: simulator {run.messages.mean():.2f}, run "
            f"{len(trace) / T:.2f} of which {trace['fresh'].astype(bool).sum() / T:.2f} fresh "
            "(both single ports take t_c for each, stale ones too)"
        )
    if scheme.engine == "lazy":  # groups selected per iteration (eq. 17)
        selected = run.shares / (run.layout["group_size"] * run.layout["stored"])
        real = np.asarray(result.meta["groups_selected"], dtype=float)
        row["method"] += (
            f"; groups selected per iteration: simulator {selected.mean():.2f}, run "
            f"{real.mean():.2f}, the same number in {int((real == selected).sum())} of "
            f"{real.size} iterations"
        )
    mean, low, high = mean_interval(measured)
    return {
        **row,
        "iterations": measured.size,
        "measured_mean_iteration_time": mean,
        "measured_ci_low": low,
        "measured_ci_high": high,
        "ratio": mean / row["predicted_mean"],
        "real_compute_mean": float(result.trace["real_compute"].mean()),
        "injected_delay_mean": float(result.trace["injected_delay"].mean()),
    }
