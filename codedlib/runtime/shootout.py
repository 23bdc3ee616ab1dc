"""Real processes against the shoot-out simulator: one injected cluster, 13 MPI processes.

The MPI-run part of notebook 06 (its claims are in :mod:`codedlib.experiments.shootout_mpi`).

Every shoot-out scheme with an MPI engine (``runtime`` field of
:data:`~codedlib.schemes.shootout.SCHEMES`) runs on a root and ``N = 12`` workers (CodedReduce
on the (3, 2) tree), one scheme at a time (:func:`codedlib.runtime.notebook.run_with_mpiexec`).
**Injected**: each task's computation time, ``cluster.compute_times`` of the scheme's shares on
the draws ``cluster.factors(T, seed)``, slept after the real gradient
(``RunConfig(delays_file=...)``), and ``t_c`` per received message (CR Sec. III-C; a ring
message carries ``dim / N`` numbers). **Real**: the gradients of a 2400 x 50 stand-in
(0.1-0.3 ms a task against 10-95 ms injected), MPI over shared memory, 1 ms polling and 13
processes' scheduling, so ``measured / predicted - 1`` is the real cost. The prediction is the
shoot-out simulator on the same draws and, for LAGC/G-LAG's group selection (eq. 17), on the
runs' own data (:func:`real_problem`); the registry's replay is reported beside it.

Measured (:func:`real_cluster`, 40 iterations, seed 0, the first iteration left out; the
faithful run of notebook 06 on a 2-core machine), measured / predicted: UMW 1.05, SGD 1.07,
GC 1.04, RS-GC 1.04, CodedReduce (3, 2) 1.06, RAR (hand-written ring) 1.11, DSAG 1.10,
DSAG-LB 1.13, LAGC 1.04, G-LAG 1.05 (the lazy schemes' 95 % intervals are wide: iterations that
select no group take about nothing). Both the simulator's and the MPI coordinator's single port
charge ``t_c`` for every result they read, stale ones included (before the runtime did so, for
fresh results only, DSAG measured 0.93); DSAG-LB's prediction uses
the shoot-out's oracle sub-partitions from the first iteration, the run learns them online.

Examples
--------
>>> cluster = real_cluster()
>>> round(cluster.share_time, 3), round(cluster.message_time, 5)
(0.03, 0.00264)
>>> injection = cluster_delay_model(cluster, np.full(12, 2.0), n_iterations=5, seed=0)
>>> injection.delays.shape, bool(np.allclose(
...     injection.delays, cluster.compute_times(np.full(12, 2.0), 5, rng=0)))
((5, 12), True)

Reference: reisizadeh2022codedreduce, halbawi2018reedsolomon, severinson2023dsag,
zhang2021lagc, tandon2017gradient.
"""

from __future__ import annotations

import tempfile
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from codedlib._validation import InputTypeError, check_int, check_real
from codedlib.claims import mean_interval
from codedlib.cluster import ClusterModel, Workload
from codedlib.network import Network
from codedlib.schemes.shootout import SCHEMES as SHOOTOUT_SCHEMES
from codedlib.schemes.shootout import (
    Shootout,
    iteration_times,
    mpich_allreduce_algorithm,
    simulate,
)

__all__ = ["REAL_SCHEMES", "ClusterInjection", "RealVsPredicted", "cluster_delay_model",
           "real_cluster", "real_problem", "real_vs_predicted", "scheme_injection"]  # fmt: skip

#: Shoot-out schemes with an MPI engine, in the shoot-out's order (name -> runtime engine).
REAL_SCHEMES = {name: s.runtime for name, s in SHOOTOUT_SCHEMES.items() if s.runtime is not None}
#: Real stand-in problem of the MPI runs (rows, features): a task's real gradient costs about
#: 0.1-0.3 ms (measured) against 10-95 ms of injected computation.
REAL_SAMPLES, REAL_DIM = 2400, 50

WHAT_IS_REAL = (
    f"real: gradients of a {REAL_SAMPLES} x {REAL_DIM} least-squares stand-in, MPI transfers, "
    "1 ms polling, {processes} processes' scheduling"
)
WHAT_IS_INJECTED = (
    "injected: each task's computation time (cluster.compute_times on the shoot-out's draws, "
    "slept after the real gradient) and t_c per received message (single port)"
)


def real_cluster(n_workers: int = 12) -> ClusterModel:
    """The shoot-out cluster the real runs inject into a root and ``n_workers`` processes:
    shifted-exponential straggling (share 0.5, CR eq. 6), DSAG Sec. VII-B slowdown
    ``1 + 0.4 i / N``, 30 ms per share, 2.64 ms per gradient message (2 ms latency; comm/comp
    0.088)."""
    return ClusterModel(n_workers=n_workers, family="shifted_exponential", shape=0.5,
                        heterogeneity=0.4, workload=Workload(dim=1000, rows=7500),
                        network=Network(latency=2e-3),
                        name=f"injected into {n_workers + 1} MPI processes")  # fmt: skip


@dataclass(frozen=True)
class ClusterInjection:
    """What a real run injects: ``delays`` [s] per (iteration, worker) ``(T, N)`` and ``t_c``
    [s] per received message (single port)."""

    delays: np.ndarray
    t_c: float

    def save(self, path, n_workers: int | None = None) -> str:
        """Write the delays of the first ``n_workers`` workers (default all) as ``.npy``; returns
        the path, for ``RunConfig(delays_file=...)``."""
        np.save(str(path), np.ascontiguousarray(self.delays[:, :n_workers]))
        return str(path)


def cluster_delay_model(
    cluster, shares, n_iterations: int, seed: int = 0, factors=None, message_numbers=None
) -> ClusterInjection:
    """The injected delays that make a real run the shoot-out cluster for these shares.

    The runtime's :class:`~codedlib.runtime.injection.DelayModel` draws i.i.d. (or gamma
    per-worker) delays from its own generator; it cannot reproduce a cluster's family x
    slowdown x burst draws. So the delays are the explicit matrix
    ``cluster.compute_times(shares, n_iterations, rng=seed)`` (or on ``factors``), handed to the
    runtime as ``RunConfig(delays_file=...)``, and ``t_c`` is the network time of one message
    of ``message_numbers`` numbers (default a gradient: ``cluster.message_time``)."""
    if not isinstance(cluster, ClusterModel):
        raise InputTypeError(f"cluster must be a ClusterModel, got {type(cluster).__name__}")
    n_iterations = check_int("n_iterations", n_iterations, 1)
    seed = check_int("seed", seed, 0)
    if factors is None:
        factors = cluster.factors(n_iterations, seed)
    factors = np.asarray(factors, dtype=float)
    if factors.shape != (n_iterations, cluster.n_workers) or not np.all(factors >= 0):
        raise ValueError(
            f"factors must be ({n_iterations}, {cluster.n_workers}) numbers >= 0 (n_iterations, "
            f"N), got shape {factors.shape}"
        )
    if message_numbers is None:
        t_c = cluster.message_time
    else:
        message_numbers = check_real("message_numbers", message_numbers, 0.0, low_open=True)
        t_c = float(cluster.network.vector_time(message_numbers))
    return ClusterInjection(cluster.compute_times(shares, n_iterations, factors=factors), t_c)


def _scheme_name(name) -> str:
    """A :data:`REAL_SCHEMES` key, or the first whose runtime engine is ``name``."""
    if isinstance(name, str) and name in REAL_SCHEMES:
        return name
    matches = [key for key, runtime in REAL_SCHEMES.items() if runtime == name]
    if matches:
        return matches[0]
    raise ValueError(
        f"schemes must be among the shoot-out schemes with an MPI engine {list(REAL_SCHEMES)} "
        f"(or their runtime names {list(REAL_SCHEMES.values())}), got {name!r}"
    )


def scheme_injection(setup, name: str, seed: int = 0, factors=None) -> ClusterInjection:
    """The injection of shoot-out scheme ``name`` on ``setup.cluster``: its layout's shares
    per worker and its messages' size.

    DSAG-LB: the shares of the runtime's default sub-partition ``1 / setup.subpartitions``
    (the MPI worker scales a task's delay by the task's size, so whatever ``p_i`` the load
    balancer picks, the injected time is the cluster's time of that task). RAR: a ring message
    carries ``dim / N`` numbers. CodedReduce: the workers beyond the tree get no task (their
    column is zero and not handed to the runtime). ``name``: a :data:`REAL_SCHEMES` key or
    its runtime name."""
    if not isinstance(setup, Shootout):
        raise InputTypeError(f"setup must be a Shootout, got {type(setup).__name__}")
    name = _scheme_name(name)
    lay = SHOOTOUT_SCHEMES[name].layout(setup)
    shares = np.asarray(lay["shares"], dtype=float)
    if name == "dsag-lb":
        shares = np.full(setup.n_workers, 1.0 / setup.subpartitions)
    numbers = setup.cluster.workload.dim / setup.n_workers if name == "rar" else None
    return cluster_delay_model(
        setup.cluster, shares, setup.max_iter, seed, factors=factors, message_numbers=numbers
    )


def real_problem(n_workers: int, seed: int = 0):
    """The real runs' learning problem, which the shoot-out simulator then runs on too.

    The runtime's :func:`~codedlib.runtime.config.build_problem` (CodedReduce eq. 10 synthetic
    least squares, :data:`REAL_SAMPLES` x :data:`REAL_DIM`, seeded): the iteration times of
    every engine but the lazy one do not depend on the iterates, and LAGC's and G-LAG's group
    selection (eq. 17) then sees the same data in the simulator as on the real processes."""
    from codedlib.runtime.config import RunConfig, build_problem

    n_workers = check_int("n_workers", n_workers, 1)
    seed = check_int("seed", seed, 0)
    config = RunConfig("umw", n_workers=n_workers, samples=REAL_SAMPLES, dim=REAL_DIM, seed=seed)
    return build_problem(config)[0]


def _run_config(setup: Shootout, name: str, injection: ClusterInjection, path: str, seed: int):
    """The :class:`~codedlib.runtime.config.RunConfig` of the shoot-out layout of ``name``."""
    from codedlib.runtime.notebook import scheme_config

    lay = SHOOTOUT_SCHEMES[name].layout(setup)
    runtime = REAL_SCHEMES[name]
    N = setup.n_workers
    sizes = {"n_workers": N}
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
    return scheme_config(runtime, quick=False, seed=seed, iterations=setup.max_iter,
                         samples=REAL_SAMPLES, dim=REAL_DIM, delay="none", delays_file=path,
                         t_c=injection.t_c, **sizes)  # fmt: skip


def _method(setup: Shootout, name: str) -> str:
    scheme = SHOOTOUT_SCHEMES[name]
    if name == "mpi-allreduce":
        algorithm = mpich_allreduce_algorithm(setup.n_workers, REAL_DIM)
        return (
            f"shootout.iteration_times (mpi-allreduce: MPICH's {algorithm} for {REAL_DIM} "
            f"doubles on {setup.n_workers} ranks) on a free network: the run's MPI_Allreduce "
            "moves shared memory and is charged no t_c"
        )
    if scheme.engine in ("exact", "sgd"):
        return f"shootout.iteration_times ({scheme.engine} engine, {scheme.timing} timing)"
    if scheme.engine == "event":
        text = "shootout.simulate (event engine: DSAG Sec. V-A deadline coordinator, single port)"
        if name == "dsag-lb":
            p = SHOOTOUT_SCHEMES[name].layout(setup)["p"]
            text += (
                f" with the oracle sub-partitions p={p.tolist()} from the start (the MPI run "
                f"starts at p={setup.subpartitions} and re-balances online)"
            )
        return text
    return (
        "shootout.simulate (lazy engine, LAGC Alg. 1 / eq. 17) on the run's own data: the group "
        "selection is the simulator's"
    )


@dataclass
class RealVsPredicted:
    """Measured (real MPI processes) against predicted (shoot-out simulator) iteration times.

    ``frame``: one row per scheme (:data:`FRAME_COLUMNS`; seconds; ``iterations`` timed, the
    warm-up iteration 0 left out on both sides; ``measured_ci_*`` the 95 % t-interval over
    iterations; ``replayed_mean`` the runtime registry's replay of the injected delays;
    ``status`` ``"run"`` or ``"not run: <reason>"``); ``results``: each run's ``RunResult``.
    """

    frame: pd.DataFrame
    cluster: ClusterModel
    results: dict = field(default_factory=dict)

    @property
    def caption(self) -> str:
        """Which part of a measured time is injected and which is real, in one line."""
        real = WHAT_IS_REAL.replace("{processes}", str(self.cluster.n_workers + 1))
        return f"{WHAT_IS_INJECTED}; {real}"


def _check_schemes(schemes) -> list[str]:
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
    cluster, schemes=None, iterations: int = 40, seed: int = 0
) -> RealVsPredicted:
    """Run each scheme on 13 real MPI processes with the cluster injected; compare with the
    shoot-out simulator on the same draws (module docstring).

    One scheme at a time, through :func:`codedlib.runtime.notebook.run_with_mpiexec` (which
    starts a run once more when a rank is SIGKILLed from outside). A scheme whose run still
    fails gets ``status = "not run: <reason>"`` and a ``RuntimeWarning``; the others go on.
    All schemes see the same draws ``cluster.factors(iterations, seed)`` (common random
    numbers, as in the shoot-out). ``schemes``: :data:`REAL_SCHEMES` names or runtime names
    (default all)."""
    if not isinstance(cluster, ClusterModel):
        raise InputTypeError(f"cluster must be a ClusterModel, got {type(cluster).__name__}")
    names = _check_schemes(schemes)
    iterations = check_int("iterations", iterations, 2)
    seed = check_int("seed", seed, 0)
    tree = (3, 2) if cluster.n_workers == 12 else None  # CodedReduce's tree of 13 processes
    setup = Shootout(
        cluster,
        problem=real_problem(cluster.n_workers, seed),
        max_iter=iterations,
        tree=tree,
        tune=False,  # the runtime's fixed S, w and groups; both sides run the same layout
    )
    for name in names:
        if not SHOOTOUT_SCHEMES[name].applies(setup):
            raise ValueError(
                f"schemes: {name!r} does not apply at N={cluster.n_workers}, got schemes={names}"
            )
    factors = cluster.factors(iterations, seed)
    out = RealVsPredicted(pd.DataFrame(), cluster)
    rows = []
    with tempfile.TemporaryDirectory(prefix="shootout-mpi-") as tmp:
        for name in names:
            rows.append(_one_scheme(setup, name, seed, factors, Path(tmp), out))
    out.frame = pd.DataFrame(rows, columns=FRAME_COLUMNS)
    return out


FRAME_COLUMNS = ["scheme", "runtime", "title", "processes", "iterations",
                 "measured_mean_iteration_time", "measured_ci_low", "measured_ci_high",
                 "predicted_mean", "ratio", "replayed_mean", "replay_method", "real_compute_mean",
                 "injected_delay_mean", "t_c", "method", "status"]  # fmt: skip


def _one_scheme(setup, name, seed, factors, tmp: Path, out: RealVsPredicted) -> dict:
    from codedlib.runtime.notebook import run_with_mpiexec

    scheme = SHOOTOUT_SCHEMES[name]
    injection = scheme_injection(setup, name, seed, factors)
    n_run = int(scheme.layout(setup).get("tree_workers", setup.n_workers))
    path = injection.save(tmp / f"{name}.npy", n_run)
    config = _run_config(setup, name, injection, path, seed)
    selected = messages = None
    if name == "mpi-allreduce":
        # the run's MPI_Allreduce moves shared memory and is charged no injected t_c: the
        # prediction checks the waiting rule (every rank, per-rank rounds) on a free network
        free = setup.cluster.with_(network=Network(latency=0.0, bandwidth=1e300))
        predicted = iteration_times(name, replace(setup, cluster=free), factors)
    elif scheme.engine in ("exact", "sgd"):
        predicted = iteration_times(name, setup, factors)
    else:
        run = simulate(setup, name, seed, factors=factors)
        predicted = run.times
        messages = run.messages
        if scheme.engine == "lazy":  # groups selected per iteration (eq. 17) in the simulator
            lay = run.layout
            selected = run.shares / (lay["group_size"] * lay["stored"])
    replayed = config.spec.iteration_times(config, injection.delays[:, :n_run])[1:]
    row = {"scheme": name, "runtime": scheme.runtime, "title": scheme.title,
           "processes": config.world_size, "iterations": setup.max_iter - 1,
           "predicted_mean": float(predicted[1:].mean()), "replayed_mean": float(replayed.mean()),
           "replay_method": config.spec.replay_method(config), "t_c": injection.t_c,
           "method": _method(setup, name)}  # fmt: skip
    try:
        result = run_with_mpiexec(config)
    except RuntimeError as err:  # KilledFromOutside (after the retries), timeouts, failures
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        warnings.warn(f"{name}: {reason}", RuntimeWarning, stacklevel=3)
        return {**row, "status": f"not run: {reason}"}
    injected = np.asarray(result.meta["delays"], dtype=float)
    if not np.array_equal(injected, injection.delays[:, :n_run]):
        raise RuntimeError(f"{name}: the run injected other delays than the cluster's")
    measured = result.iterations["iteration_time"].to_numpy(dtype=float)[1:]
    if scheme.engine == "event":
        trace = result.trace
        fresh = trace["fresh"].astype(bool)
        T = setup.max_iter
        row["method"] += (
            f"; results received per iteration: simulator {messages.mean():.2f}, run "
            f"{len(trace) / T:.2f} of which {fresh.sum() / T:.2f} fresh (both single ports take "
            f"t_c for each, stale ones too)"
        )
    if selected is not None:
        real = np.asarray(result.meta["groups_selected"], dtype=float)
        row["method"] += (
            f"; groups selected per iteration: simulator {selected.mean():.2f}, run "
            f"{real.mean():.2f}, the same number in {int((real == selected).sum())} of "
            f"{real.size} iterations"
        )
    mean, low, high = mean_interval(measured)
    out.results[name] = result
    return {**row, "iterations": measured.size, "measured_mean_iteration_time": mean,
            "measured_ci_low": low, "measured_ci_high": high, "ratio": mean / row["predicted_mean"],
            "real_compute_mean": float(result.trace["real_compute"].mean()),
            "injected_delay_mean": float(result.trace["injected_delay"].mean()),
            "status": "run"}  # fmt: skip
