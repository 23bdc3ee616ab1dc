"""Measured MPI iteration times against the simulator's prediction for the same injected model.

For a :class:`~codedlib.runtime.config.RunConfig`, three numbers per run:

* ``predicted``: the expected iteration time under the injected delay model alone (no real
  cost), from :mod:`codedlib.latency.order_stats` where a closed form or numeric integral
  exists (master--worker schemes without ``t_c``: ``E[X_(k:N)]`` with ``k = N`` for UMW and
  ``N - S`` for GC/SGD; RAR: ``E[X_(N:N)]`` plus ``2 (N - 1) t_c`` for the ring), else the
  Monte Carlo mean of :func:`replay_iteration_times` over fresh draws (CodedReduce tree,
  single-port queues with ``t_c``, DSAG through the event-driven simulator of
  :mod:`codedlib.latency.event_driven`);
* ``replayed``: the same model applied to the *very delays the run injected* (they are drawn
  from the seed and stored in ``meta["delays"]``), which removes the sampling noise of a
  short run;
* ``measured``: the mean iteration time the root measured.

``measured / replayed - 1`` is then the real cost of the machine (computation, MPI transfer,
polling granularity, scheduling of K processes on few cores), and ``measured / predicted - 1``
adds the sampling noise of a finite run. Frozen workers (``config.freeze``) are part of the
model: their delay is infinite from the given iteration on, in the prediction as in the run.

Measured on the development laptop (2 cores shared with other jobs, load average ~10; 13 MPI
processes; 59 timed iterations; delays 50 ms + Exp(mean 50 ms)), against the model
expectation: UMW +2 %, SGD +7 %, GC +8 %, GC with t_c = 5 ms +8 %, CodedReduce (3, 2) +6 %,
RAR +7 %, DSAG (w = 6) +6 %; against the simulator replayed on the same draw +2 % to +7 %
(the real cost). Quick runs (4-7 processes, 29 iterations): +6 % to +16 % against the
expectation, of which up to +11 % is the sampling noise of that short draw (+1 % to +6 %
against the replay).
"""

from __future__ import annotations

import numpy as np

from codedlib._validation import as_generator, check_int
from codedlib.latency import order_stats
from codedlib.runtime.config import RunConfig, build_problem
from codedlib.runtime.engines import worker_loads
from codedlib.runtime.injection import apply_freeze

__all__ = ["compare_with_simulator", "predict_iteration_time", "replay_iteration_times"]


def replay_iteration_times(config: RunConfig, delays) -> np.ndarray:
    """Per-iteration time the engine would take if only the injected delays cost time.

    ``delays``: array ``(..., iterations, N)`` of computation delays (worker ``i`` = rank
    ``i + 1``). Returns ``(..., iterations)``: the scheme record's timing
    (:meth:`codedlib.runtime.registry.Scheme.iteration_times`), the simulator's own code: in
    "abandon" mode every iteration starts with all workers (the single-port master
    :func:`codedlib.network.single_port_receive`, the tree
    :func:`codedlib.schemes.codedreduce.tree_finish`); in "finish" mode (DSAG) busy workers
    carry over (event-driven simulation, DSAG Section IV-B). One timing model for the paper
    figures and the real runs.
    """
    return config.spec.iteration_times(config, delays)


def predict_iteration_time(config: RunConfig, replicas: int = 2000, rng=None) -> dict:
    """Expected iteration time under the injected model (see the module docstring); with an
    explicit ``delays_file`` (no model to draw from) the replay of those delays.

    Returns ``{"mean": ..., "stderr": ..., "method": ...}``; ``stderr`` is 0 for closed forms.
    """
    replicas = check_int("replicas", replicas, low=2)
    rng = as_generator(rng)
    spec = config.spec
    N = config.n_workers
    if config.delays_file is not None:  # no model to draw afresh from: the explicit delays
        times = replay_iteration_times(
            config, apply_freeze(config.injected_delays(), config.freeze)
        )
        return {
            "mean": float(times.mean()),
            "stderr": 0.0,
            "method": f"{spec.replay_method(config)} of the explicit delays (delays_file)",
        }
    model = config.delay
    loads = (
        worker_loads(config, build_problem(config)[0].n_samples) if model.kind == "cr6" else None
    )
    if model.kind == "none":
        return {"mean": spec.extra_time(config), "stderr": 0.0, "method": "no injected delay"}
    k = spec.closed_form_k(config)
    if k is not None:
        extra = spec.extra_time(config)
        if model.kind == "shiftexp":
            mean = order_stats.expected_order_statistic_exponential(
                k, N, rate=model.params["rate"], shift=model.params["shift"]
            )
            return {
                "mean": mean + extra,
                "stderr": 0.0,
                "method": f"order_stats.expected_order_statistic_exponential(k={k}, n={N})",
            }
        mean = order_stats.expected_order_statistic_numeric(model.cluster(N, loads), k)
        return {
            "mean": mean + extra,
            "stderr": 0.0,
            "method": f"order_stats.expected_order_statistic_numeric(k={k}, n={N})",
        }
    draws = np.stack(
        [
            apply_freeze(model.sample(config.iterations, N, rng=rng, loads=loads), config.freeze)
            for _ in range(max(2, replicas // config.iterations))
        ]
    )
    times = replay_iteration_times(config, draws).mean(axis=-1)
    what = spec.replay_method(config)
    return {
        "mean": float(times.mean()),
        "stderr": float(times.std(ddof=1) / np.sqrt(times.size)),
        "method": f"{what} ({times.size} runs of {config.iterations} iterations)",
    }


def compare_with_simulator(results, replicas: int = 2000, rng=0):
    """Table ``name, scheme, N, processes, iterations, measured, measured_sem, replayed,
    predicted, predicted_stderr, gap_replayed, gap_predicted, method`` for ``{name: RunResult}``
    (``gap = measured / x - 1``). Iteration 0 (process warm-up) is dropped from both sides."""
    import pandas as pd

    rows = []
    for name, result in results.items():
        config = RunConfig(**result.meta["config"])
        it = result.iterations["iteration_time"].to_numpy()[1:]
        delays = np.asarray(result.meta["delays"], dtype=float)
        replayed = replay_iteration_times(config, delays)[1:]
        if config.delays_file is not None:  # the run's own explicit delays (the file may be gone)
            pred = {
                "mean": float(replayed.mean()),
                "stderr": 0.0,
                "method": f"{config.spec.replay_method(config)} of the explicit delays (delays_file)",
            }
        else:
            pred = predict_iteration_time(config, replicas=replicas, rng=rng)
        rows.append(
            {
                "name": name,
                "scheme": config.scheme,
                "N": config.n_workers,
                "processes": config.world_size,
                "iterations": it.size,
                "measured": it.mean(),
                "measured_sem": it.std(ddof=1) / np.sqrt(it.size),
                "replayed": replayed.mean(),
                "predicted": pred["mean"],
                "predicted_stderr": pred["stderr"],
                "gap_replayed": it.mean() / replayed.mean() - 1,
                "gap_predicted": it.mean() / pred["mean"] - 1,
                "method": pred["method"],
            }
        )
    return pd.DataFrame(rows)
