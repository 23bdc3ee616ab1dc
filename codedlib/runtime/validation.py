"""Measured MPI iteration times against the simulator's prediction for the injected model:
``predicted`` (the model's expectation: order statistics or Monte Carlo), ``replayed`` (on the
very delays injected) and ``measured``; ``measured / replayed - 1`` is the machine's real cost
(+2 % to +7 % on a 2-core laptop, 13 processes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import RngLike, as_generator, check_int
from codedlib.latency import order_stats
from codedlib.runtime.config import RunConfig, build_problem
from codedlib.runtime.engines import worker_loads
from codedlib.runtime.injection import apply_freeze

if TYPE_CHECKING:
    import os

    import pandas as pd
    from numpy.typing import ArrayLike

    from codedlib.runtime.traces import RunResult


def replay_iteration_times(config: RunConfig, delays: ArrayLike) -> np.ndarray:
    """Iteration times if only the injected ``delays`` ``(..., iterations, N)`` cost time."""
    return config.spec.iteration_times(config, delays)


def recorded_dsag_run(path: str | os.PathLike) -> dict:
    """A recorded DSAG trace's ``config`` (from its ``# command:`` header), ``trace``, the
    ``injected`` delays redrawn and their total ``replay``."""
    import shlex
    from pathlib import Path

    from codedlib.runtime.__main__ import config_from_args, parser
    from codedlib.runtime.traces import read_trace

    path = Path(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    command = next((x.split(":", 1)[1] for x in lines if x.startswith("# command:")), "")
    argv = shlex.split(command)
    if "codedlib.runtime" not in argv:
        raise ValueError(f"{path.name} has no '# command: ... -m codedlib.runtime ...' header line")
    args = parser().parse_args(argv[argv.index("codedlib.runtime") + 1 :])
    if args.scheme != "dsag":  # before config_from_args: recorded commands list every option
        raise ValueError(f"{path.name} is a {args.scheme!r} trace, not a DSAG one")
    config = config_from_args(args)
    injected = config.delay.sample(config.iterations, config.n_workers, rng=config.seed)
    replay = float(replay_iteration_times(config, injected).sum())
    return dict(config=config, trace=read_trace(path), injected=injected, replay=replay)


def predict_iteration_time(config: RunConfig, replicas: int = 2000, rng: RngLike = None) -> dict:
    """``{"mean", "stderr", "method"}`` of the injected model's iteration time (a
    ``delays_file``: its replay)."""
    replicas = check_int("replicas", replicas, low=2)
    rng = as_generator(rng)
    spec = config.spec
    N = config.n_workers
    if config.delays_file is not None:  # no model to draw afresh from: the explicit delays
        delays = apply_freeze(config.injected_delays(), config.freeze)
        return _explicit(config, replay_iteration_times(config, delays))
    model = config.delay
    if model.kind == "none":
        return {"mean": spec.extra_time(config), "stderr": 0.0, "method": "no injected delay"}
    loads = (
        worker_loads(config, build_problem(config)[0].n_samples) if model.kind == "cr6" else None
    )
    # E[X_(need:N)] (+ constant_time) without bursts, freezes, t_c or busy workers carrying over
    plain = spec.constant_time is not None or (config.t_c, config.on_new_iterate) == (0, "abandon")
    if spec.closed_form and config.delay.bursts is None and not config.freeze and plain:
        k, extra = spec.need(config), spec.extra_time(config)
        if model.kind == "shiftexp":
            how = "exponential"
            mean = order_stats.expected_order_statistic_exponential(
                k, N, rate=model.params["rate"], shift=model.params["shift"]
            )
        else:
            how = "numeric"
            mean = order_stats.expected_order_statistic_numeric(model.cluster(N, loads), k)
        method = f"order_stats.expected_order_statistic_{how}(k={k}, n={N})"
        return {"mean": mean + extra, "stderr": 0.0, "method": method}
    draw = lambda: model.sample(config.iterations, N, rng=rng, loads=loads)
    draws = np.stack(
        [apply_freeze(draw(), config.freeze) for _ in range(max(2, replicas // config.iterations))]
    )
    times = replay_iteration_times(config, draws).mean(axis=-1)
    stderr = float(times.std(ddof=1) / np.sqrt(times.size))
    method = f"{spec.replay_method(config)} ({times.size} runs of {config.iterations} iterations)"
    return {"mean": float(times.mean()), "stderr": stderr, "method": method}


def _explicit(config: RunConfig, times: np.ndarray) -> dict:
    method = f"{config.spec.replay_method(config)} of the explicit delays (delays_file)"
    return {"mean": float(times.mean()), "stderr": 0.0, "method": method}


def compare_with_simulator(
    results: dict[str, RunResult], replicas: int = 2000, rng: RngLike = 0
) -> pd.DataFrame:
    """One row per run of ``results``: measured, replayed and predicted mean iteration times
    and the gaps ``measured / x - 1`` (iteration 0, the warm-up, dropped)."""
    import pandas as pd

    rows = []
    for name, result in results.items():
        config = RunConfig(**result.meta["config"])
        it = result.iterations["iteration_time"].to_numpy()[1:]
        delays = np.asarray(result.meta["delays"], dtype=float)
        replayed = replay_iteration_times(config, delays)[1:]
        if config.delays_file is not None:  # the run's own explicit delays (the file may be gone)
            pred = _explicit(config, replayed)
        else:
            pred = predict_iteration_time(config, replicas=replicas, rng=rng)
        m, r = it.mean(), replayed.mean()
        row = dict(name=name, scheme=config.scheme, N=config.n_workers, processes=config.world_size)
        row.update(iterations=it.size, measured=m, measured_sem=it.std(ddof=1) / np.sqrt(it.size))
        row.update(replayed=r, predicted=pred["mean"], predicted_stderr=pred["stderr"])
        row.update(gap_replayed=m / r - 1, gap_predicted=m / pred["mean"] - 1)
        rows.append(row | {"method": pred["method"]})
    return pd.DataFrame(rows)
