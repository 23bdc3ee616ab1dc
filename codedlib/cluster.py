"""One cluster for every scheme (notebook 06): computation delays, heterogeneity, bursts, network.

A :class:`ClusterModel` prices one iteration: a share (the ``1/N`` of the data an uncoded
worker holds) costs ``4 rows dim`` FLOPs at ``worker_flop_time`` s/FLOP; straggling is a
unit-mean factor from :data:`FAMILIES` times worker ``i``'s slowdown ``1 + h i / N`` (DSAG
Sec. VII-B) times a two-state Markov burst (DSAG Sec. III-B); a task of ``k`` shares takes ``k``
times as long (CR eq. 6); every message goes through one :class:`codedlib.network.Network`;
decoding costs ``master_flop_time`` s/FLOP (RS eq. 17).

>>> c = ClusterModel(n_workers=4, family="gamma", shape=0.5, heterogeneity=0.4)
>>> round(c.share_time, 6), round(c.message_time, 6)
(0.04, 0.00094)
>>> c.compute_times(np.ones(4), 3, rng=0).shape
(3, 4)

Reference: reisizadeh2022codedreduce, halbawi2018reedsolomon, severinson2023dsag.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import RngLike, as_generator, check_int, check_real
from codedlib.latency.models import linear_slowdown
from codedlib.network import Network

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: Delay families and what their ``shape`` means (each draws a unit-mean factor X).
FAMILIES = {
    "shifted_exponential": "straggling share v in [0, 1): X = (1 - v) + v Exp(1) (CR eq. 6)",
    "pareto": "tail index xi > 1: X ~ Pareto(xi) scaled to mean 1 (RS eq. 16)",
    "gamma": "coefficient of variation cv > 0: X ~ Gamma(1/cv^2, cv^2) (DSAG Sec. III-A)",
}


def _check_shape(family: str, shape: float) -> float:
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {list(FAMILIES)}, got family={family!r}")
    if family == "shifted_exponential":
        return check_real("shape", shape, 0.0, 1.0, high_open=True)
    if family == "pareto":
        return check_real("shape", shape, 1.0, low_open=True)
    return check_real("shape", shape, 0.0, low_open=True)


def unit_delays(
    family: str, shape: float, size: int | tuple[int, ...], rng: RngLike = None
) -> np.ndarray:
    """Unit-mean straggling factors ``X`` of ``family`` (:data:`FAMILIES`).

    >>> x = unit_delays("pareto", 3.0, 200_000, rng=1)
    >>> bool(abs(x.mean() - 1) < 0.02), bool(x.min() >= 2 / 3)
    (True, True)
    """
    shape = _check_shape(family, shape)
    dims = (size,) if np.ndim(size) == 0 else tuple(size)
    if not all(
        isinstance(d, int | np.integer) and not isinstance(d, bool) and d >= 0 for d in dims
    ):
        raise ValueError(f"size must be an int >= 0 or a tuple of them, got size={size!r}")
    rng = as_generator(rng)
    if family == "shifted_exponential":
        return (1.0 - shape) + shape * rng.standard_exponential(size)
    if family == "pareto":
        # numpy's pareto is Lomax: 1 + pareto(xi) is Pareto(xi) with scale 1 and mean xi/(xi-1)
        return (shape - 1.0) / shape * (1.0 + rng.pareto(shape, size))
    k = 1.0 / shape**2
    return rng.gamma(k, 1.0 / k, size)


@dataclass(frozen=True)
class Workload:
    """What one uncoded share costs: a gradient of ``dim`` numbers over ``rows`` rows, at
    ``flops_per_entry`` FLOPs per (row, parameter) (least squares: 4)."""

    dim: int = 1000
    rows: int = 10_000
    flops_per_entry: float = 4.0

    def __post_init__(self):
        check_int("dim", self.dim, 1)
        check_int("rows", self.rows, 1)
        check_real("flops_per_entry", self.flops_per_entry, 0.0, low_open=True)

    @property
    def share_flops(self) -> float:
        return self.flops_per_entry * self.rows * self.dim


@dataclass(frozen=True)
class ClusterModel:
    """N workers, one delay family, heterogeneity, bursts, one network (module docstring):
    ``heterogeneity`` h: worker ``i`` (1-based) is ``1 + h i / N`` times slower;
    ``burst_factor``: slowdown in a burst (1 = none), entered / left with per-iteration
    probabilities ``burst_enter`` / ``burst_exit``; ``*_flop_time``: seconds per FLOP.
    """

    n_workers: int = 12
    family: str = "shifted_exponential"
    shape: float = 0.5
    heterogeneity: float = 0.0
    burst_factor: float = 1.0
    burst_enter: float = 0.05
    burst_exit: float = 0.2
    network: Network = field(default_factory=Network)
    workload: Workload = field(default_factory=Workload)
    worker_flop_time: float = 1e-9
    master_flop_time: float = 1e-9
    name: str = ""

    def __post_init__(self):
        check_int("n_workers", self.n_workers, 1)
        _check_shape(self.family, self.shape)
        check_real("heterogeneity", self.heterogeneity, 0.0)
        check_real("burst_factor", self.burst_factor, 1.0)
        check_real("burst_enter", self.burst_enter, 0.0, 1.0, low_open=True)
        check_real("burst_exit", self.burst_exit, 0.0, 1.0, low_open=True)
        if not isinstance(self.network, Network):
            raise TypeError(f"network must be a Network, got {type(self.network).__name__}")
        if not isinstance(self.workload, Workload):
            raise TypeError(f"workload must be a Workload, got {type(self.workload).__name__}")
        check_real("worker_flop_time", self.worker_flop_time, 0.0, low_open=True)
        check_real("master_flop_time", self.master_flop_time, 0.0)

    def with_(self, **changes) -> ClusterModel:
        """A copy with some fields changed (``dataclasses.replace``)."""
        return replace(self, **changes)

    # ------------------------------------------------------------------ derived sizes
    @property
    def share_time(self) -> float:
        """Mean time of one share at an unslowed worker outside bursts, seconds."""
        return self.workload.share_flops * self.worker_flop_time

    @property
    def message_time(self) -> float:
        """Time of one gradient message (``dim`` numbers) on the network, seconds."""
        return float(self.network.vector_time(self.workload.dim))

    @property
    def comm_to_comp(self) -> float:
        """Communication-to-computation ratio: one message over one share's mean time."""
        return self.message_time / self.share_time

    @property
    def bursty(self) -> bool:
        return self.burst_factor > 1.0

    @property
    def burst_probability(self) -> float:
        """Stationary share of iterations a worker spends in a burst (0 without bursts)."""
        return self.burst_enter / (self.burst_enter + self.burst_exit) if self.bursty else 0.0

    def slowdowns(self) -> np.ndarray:
        """Fixed per-worker slowdowns ``1 + h i / N`` (DSAG Section VII-B), shape (N,)."""
        return linear_slowdown(self.n_workers, self.heterogeneity)

    @property
    def cv(self) -> float:
        """Coefficient of variation of the straggling factor X (inf for Pareto xi <= 2)."""
        if self.family != "pareto":  # the shifted exponential's share v and gamma's cv
            return self.shape
        xi = self.shape
        return math.inf if xi <= 2 else 1.0 / math.sqrt(xi * (xi - 2.0))

    # ------------------------------------------------------------------ draws
    def factors(self, n_iterations: int, rng: RngLike = None) -> np.ndarray:
        """Per-(iteration, worker) factors ``X * slowdown * burst``, shape ``(T, N)``."""
        n_iterations = check_int("n_iterations", n_iterations, 1)
        rng = as_generator(rng)
        x = unit_delays(self.family, self.shape, (n_iterations, self.n_workers), rng)
        x *= self.slowdowns()[None, :]
        if self.bursty:  # each worker's two-state chain, started from stationarity
            state = rng.random(self.n_workers) < self.burst_probability
            for row in x:
                row *= np.where(state, self.burst_factor, 1.0)
                u = rng.random(self.n_workers)
                state = np.where(state, u >= self.burst_exit, u < self.burst_enter)
        return x

    def compute_times(
        self,
        shares: ArrayLike,
        n_iterations: int,
        rng: RngLike = None,
        factors: np.ndarray | None = None,
    ) -> np.ndarray:
        """Computation times ``(T, N)`` of tasks of ``shares[i]`` shares at worker ``i``.

        ``factors``: reuse draws of :meth:`factors` (common random numbers across schemes).
        """
        shares = np.asarray(shares, dtype=float)
        if shares.ndim == 0:
            shares = np.full(self.n_workers, float(shares))
        if shares.shape != (self.n_workers,) or np.any(~np.isfinite(shares)) or np.any(shares < 0):
            raise ValueError(
                f"shares must be {self.n_workers} finite numbers >= 0, got shape {shares.shape}"
            )
        if factors is None:
            factors = self.factors(n_iterations, rng)
        return self.share_time * shares[None, :] * factors

    def mean_share_times(self) -> np.ndarray:
        """Expected time of one share at each worker, burst share included, shape (N,)."""
        burst = 1.0 + (self.burst_factor - 1.0) * self.burst_probability
        return self.share_time * self.slowdowns() * burst

    def describe(self) -> str:
        """One line for a figure: the family, its shape and what else shapes the delays."""
        parts = [f"N={self.n_workers}", f"{self.family} ({self.shape:g})"]
        if self.heterogeneity:
            parts.append(f"heterogeneity {self.heterogeneity:g}")
        if self.bursty:
            parts.append(
                f"bursts x{self.burst_factor:g} (enter {self.burst_enter:g}, exit "
                f"{self.burst_exit:g})"
            )
        parts.append(f"comm/comp {self.comm_to_comp:.3g}")
        text = ", ".join(parts)
        return f"{self.name}: {text}" if self.name else text
