"""Per-worker gamma latency model of the DSAG paper (Section III) and its fitting.

Worker i's latency is ``X_i = Y_i + Z_i`` (Section III-A), independent gamma communication
``Y_i`` and computation ``Z_i`` with per-worker parameters. At computational load c (relative
to the fitted reference load ``load=1``) ``e_Z(c) = e_Z c`` (Fig. 1) and ``v_Z(c) = v_Z c**2``
(Section VI-B's linearisation), so only the gamma scale grows. Bursts (Section III-B) enter
:meth:`GammaLatencyModel.sample` as a ``slowdown`` multiplier. Fitting uses per-worker sample
moments of a trace (Section VI-A) and shape e²/v, scale v/e (footnote 14);
:meth:`GammaLatencyModel.iid` is Fig. 5's i.i.d. baseline. Reference: severinson2023dsag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import InputTypeError, RngLike, as_generator, check_array, check_int

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike


# Floor on fitted variances (relative to mean^2): a worker whose recorded latencies are all
# equal would otherwise give an infinite gamma shape.
_MIN_RELATIVE_VARIANCE = 1e-8


def _check_moments(name, mean, var, n_workers=None):
    mean = check_array(f"{name}_mean", mean, ndim=1)
    var = check_array(f"{name}_var", var, ndim=1)
    if mean.shape != var.shape or (n_workers is not None and mean.shape[0] != n_workers):
        raise ValueError(
            f"{name}_mean and {name}_var must have the same length N >= 1, got "
            f"{mean.shape} and {var.shape}"
        )
    if mean.size == 0:
        raise ValueError(f"{name}_mean must have at least one worker, got an empty array")
    if np.any(mean <= 0):
        raise ValueError(f"{name}_mean must be positive (latencies), got min {mean.min():g}")
    if np.any(var <= 0):
        raise ValueError(f"{name}_var must be positive, got min {var.min():g}")
    return mean, var


@dataclass(frozen=True)
class GammaLatencyModel:
    """Independent gamma communication and computation latency per worker (Section III-A).

    Arrays (N,): ``e_Y, v_Y`` (communication) and ``e_Z, v_Z`` (computation at ``load=1``).

    >>> m = GammaLatencyModel([1e-3, 1e-3], [1e-8, 1e-8], [0.02, 0.03], [4e-6, 9e-6])
    >>> m.mean_latency(load=2.0).round(4).tolist()
    [0.041, 0.061]
    >>> m.sample_total((5,), rng=0).shape
    (5, 2)
    """

    comm_mean: np.ndarray
    comm_var: np.ndarray
    comp_mean: np.ndarray
    comp_var: np.ndarray
    workers: np.ndarray | None = None  # worker ids (set by fit_gamma_model)

    def __post_init__(self):
        comm = _check_moments("comm", self.comm_mean, self.comm_var)
        comp = _check_moments("comp", self.comp_mean, self.comp_var, n_workers=comm[0].shape[0])
        for name, value in zip(("comm_mean", "comm_var", "comp_mean", "comp_var"), comm + comp):
            object.__setattr__(self, name, value)

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def from_cv(
        cls,
        comm_mean: ArrayLike,
        comp_mean: ArrayLike,
        comm_cv: ArrayLike = 0.1,
        comp_cv: ArrayLike = 0.1,
    ) -> GammaLatencyModel:
        """Model from per-worker means and coefficients of variation (std/mean)."""
        for name, cv in (("comm_cv", comm_cv), ("comp_cv", comp_cv)):
            if not np.all(np.asarray(cv, dtype=float) > 0):  # NaN fails too
                raise ValueError(f"{name} must be > 0 everywhere, got {name}={cv!r}")
        given = (comm_mean, comp_mean, comm_cv, comp_cv)
        comm_mean, comp_mean, comm_cv, comp_cv = np.broadcast_arrays(
            *(np.atleast_1d(np.asarray(a, dtype=float)) for a in given)
        )
        comm_var, comp_var = (comm_cv * comm_mean) ** 2, (comp_cv * comp_mean) ** 2
        return cls(comm_mean.copy(), comm_var, comp_mean.copy(), comp_var)

    @property
    def n_workers(self) -> int:
        return int(self.comm_mean.shape[0])

    # ---- gamma parameters (footnote 14) ---------------------------------------------------
    @property
    def comm_shape(self) -> np.ndarray:
        return self.comm_mean**2 / self.comm_var

    @property
    def comm_scale(self) -> np.ndarray:
        return self.comm_var / self.comm_mean

    @property
    def comp_shape(self) -> np.ndarray:
        return self.comp_mean**2 / self.comp_var

    @property
    def comp_scale(self) -> np.ndarray:
        return self.comp_var / self.comp_mean

    # ---- load scaling ------------------------------------------------------------------
    def _factor(self, value, name="load"):
        value = np.asarray(value, dtype=float)
        if not np.all(np.isfinite(value)) or np.any(value <= 0):
            raise ValueError(f"{name} must be positive and finite, got {value!r}")
        return value

    def mean_latency(self, load: ArrayLike = 1.0) -> np.ndarray:
        """Expected total latency ``e_X,i = e_Y,i + c * e_Z,i`` per worker."""
        return self.comm_mean + self._factor(load) * self.comp_mean

    def iid(self) -> GammaLatencyModel:
        """The i.i.d. baseline (Fig. 5): every worker gets the pooled mean and variance."""

        def pooled(mean, var):
            m = mean.mean()
            v = (var + mean**2).mean() - m**2
            return np.full_like(mean, m), np.full_like(var, v)

        comm, comp = pooled(self.comm_mean, self.comm_var), pooled(self.comp_mean, self.comp_var)
        return GammaLatencyModel(*comm, *comp)

    # ---- sampling ----------------------------------------------------------------------
    def sample(
        self,
        size: int | tuple[int, ...] = (),
        rng: RngLike = None,
        load: ArrayLike = 1.0,
        slowdown: ArrayLike | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Draw ``(comm, comp)`` latencies, each of shape ``size + (N,)``.

        ``load`` scales the computation latency (Section VI-B), ``slowdown`` multiplies it as
        a burst does (Section III-B); both broadcast to the sample shape.
        """
        rng = as_generator(rng)
        size = (int(size),) if np.ndim(size) == 0 and size != () else tuple(size)
        size = tuple(check_int("size", k, low=0) for k in size)
        shape = size + (self.n_workers,)
        comm = rng.gamma(self.comm_shape, self.comm_scale, size=shape)
        comp = rng.gamma(self.comp_shape, self.comp_scale, size=shape)
        factor = self._factor(load)
        if slowdown is not None:
            factor = factor * self._factor(slowdown, "slowdown")
        return comm, comp * factor

    def sample_total(
        self, size: int | tuple[int, ...] = (), rng: RngLike = None, load: ArrayLike = 1.0
    ) -> np.ndarray:
        """Draw total latencies ``X_i = Y_i + Z_i`` of shape ``size + (N,)``."""
        comm, comp = self.sample(size, rng=rng, load=load)
        return comm + comp


def validate_trace(
    trace_df: pd.DataFrame, required=("worker", "compute_time", "comm_time"), *, positive=False
) -> pd.DataFrame:
    """Check a latency trace (:mod:`codedlib.latency.traces`): a DataFrame with ``required``,
    not empty, finite latencies >= 0 (``positive``: > 0), ``wall_clock`` >= 0 and integer
    ``worker``/``iteration`` >= 0 where present; ValueError naming the column otherwise.
    """
    import pandas as pd

    if not isinstance(trace_df, pd.DataFrame):
        raise InputTypeError(f"trace must be a pandas DataFrame, got {type(trace_df).__name__}")
    missing = [c for c in required if c not in trace_df.columns]
    if missing:
        raise ValueError(f"trace is missing columns {missing}; expected columns {list(required)}")
    if len(trace_df) == 0:
        raise ValueError("trace is empty: need at least 2 recordings per worker")
    time = "times > 0 (seconds)" if positive else "times >= 0 (seconds)"
    wanted = {"compute_time": time, "comm_time": time}
    wanted.update(worker="integers >= 0", iteration="integers >= 0")
    for col, what in {**wanted, "wall_clock": "times >= 0 (seconds)"}.items():
        if col not in trace_df.columns:
            continue
        try:
            values = trace_df[col].to_numpy(dtype=float)
        except (TypeError, ValueError):
            raise InputTypeError(f"trace[{col!r}] must be numeric") from None
        bad = ~np.isfinite(values) | ~(values > 0 if "> 0" in what else values >= 0)
        if what.startswith("integers"):
            bad |= values != np.round(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"trace[{col!r}] must hold finite {what}, got {int(bad.sum())} bad values, "
                f"e.g. {values[row]:g} in row {row + 1}"
            )
    return trace_df


def queue_wait(
    previous_arrival: ArrayLike, arrival: ArrayLike, comm_time: ArrayLike, compute_time: ArrayLike
) -> np.ndarray | float:
    """How long a task waited behind its worker's previous task (see :func:`without_queueing`):
    ``max(0, a - s)`` with ``s = arrival - comm_time - compute_time`` the task's send time and
    ``a = previous_arrival`` the parent's receipt of the worker's previous result (NaN: none,
    no wait). Seconds on the parent's clock.
    """
    sent = (
        np.asarray(arrival, float) - np.asarray(comm_time, float) - np.asarray(compute_time, float)
    )
    return np.nan_to_num(np.maximum(np.asarray(previous_arrival, float) - sent, 0.0), nan=0.0)


def without_queueing(trace_df: pd.DataFrame) -> pd.DataFrame:
    """The trace with each task's wait behind its worker's previous task (:func:`queue_wait`)
    taken out of ``comm_time`` (floored at 1 µs) and kept in ``queue_wait``: with w < N
    that wait is the coordinator's queueing (Section IV-B), which the event-driven simulator
    produces itself, not the worker's latency (Section III). Needs ``wall_clock``."""
    df = validate_trace(trace_df).copy()
    if "wall_clock" not in df.columns:
        raise ValueError("trace_df needs a 'wall_clock' column to find queued tasks")
    keys = ["parent", "worker"] if "parent" in df.columns else ["worker"]
    order = df.sort_values(keys + ["wall_clock"], kind="stable")
    previous = order.groupby(keys)["wall_clock"].shift(1)
    wait = queue_wait(previous, order["wall_clock"], order["comm_time"], order["compute_time"])
    df.loc[order.index, "comm_time"] = np.maximum(order["comm_time"] - wait, 1e-6)
    df["queue_wait"] = 0.0
    df.loc[order.index, "queue_wait"] = wait
    return df


def fit_gamma_model(trace_df: pd.DataFrame) -> GammaLatencyModel:
    """Fit the per-worker gamma model from a latency trace (Sections III-A and VI-A): per
    worker (sorted by id), sample moments of ``comm_time`` and ``compute_time`` give the gamma
    parameters (footnote 14). A worker with fewer than 2 recordings raises ValueError."""
    df = validate_trace(trace_df)
    workers = np.sort(df["worker"].unique())
    grouped = df.groupby("worker")[["comm_time", "compute_time"]]
    counts = grouped.size()
    if (counts < 2).any():
        raise ValueError(
            f"need at least 2 recordings per worker, got {dict(counts[counts < 2].items())}"
        )
    means, variances = grouped.mean(), grouped.var(ddof=1)
    moments = []  # comm mean and variance, then compute's, floored
    for col in ("comm_time", "compute_time"):
        mean = np.maximum(means[col].to_numpy(), 1e-12)
        moments += [mean, np.maximum(variances[col].to_numpy(), _MIN_RELATIVE_VARIANCE * mean**2)]
    return GammaLatencyModel(*moments, workers=workers)


def fit_line_through_origin(load: ArrayLike, value: ArrayLike) -> float:
    """Least-squares slope ``a`` of ``value ≈ a * load`` (the reference line of Fig. 1)."""
    load = check_array("load", load, ndim=1)
    value = check_array("value", value, shape=load.shape)
    if load.size == 0 or not np.any(load):
        raise ValueError("load must contain at least one nonzero value")
    return float(load @ value / (load @ load))


def burst_slowdown(
    model: GammaLatencyModel,
    n_steps: int,
    p_enter: float,
    p_exit: float,
    factor: float,
    rng: RngLike = None,
) -> np.ndarray:
    """Burst multipliers ``(n_steps, N)`` for ``model``'s workers (Section III-B).

    The two-state chain of :class:`codedlib.latency.models.MarkovBursts`; ``factor`` in a burst,
    1 otherwise. Pass it as ``slowdown`` to :meth:`GammaLatencyModel.sample`.
    """
    from codedlib.latency.models import HeterogeneousCluster, MarkovBursts

    cluster = HeterogeneousCluster.from_gamma_moments(model.comp_mean, model.comp_var)
    bursts = MarkovBursts(cluster, p_enter, p_exit, factor)
    states = bursts.sample_states(n_steps, rng=as_generator(rng))
    return np.where(states, bursts.factor, 1.0)


def order_statistic_latency(
    model: GammaLatencyModel,
    ks: ArrayLike,
    replicas: int = 10_000,
    rng: RngLike = None,
    load: ArrayLike = 1.0,
) -> np.ndarray:
    """Monte Carlo E[latency of the w-th fastest worker] for each w in ``ks`` (Section IV-A).

    ``np.partition`` on samples of ``X_i = Y_i + Z_i`` (Section IV-A's Quickselect); the sum
    of two gammas is not gamma, so ``order_stats.order_statistic_monte_carlo`` does not apply.
    """
    replicas = check_int("replicas", replicas, low=1)
    ks = np.atleast_1d(np.asarray(ks, dtype=int))
    if ks.size == 0 or ks.min() < 1 or ks.max() > model.n_workers:
        raise ValueError(f"ks must satisfy 1 <= w <= N={model.n_workers}, got {ks.tolist()}")
    samples = model.sample_total((replicas,), rng=rng, load=load)
    samples.partition(np.unique(ks - 1), axis=1)
    return samples[:, ks - 1].mean(axis=0)
