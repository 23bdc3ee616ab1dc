"""CodedReduce paper's five aggregation schemes on one simulated clock.

Model (CR paper Section III-C; every assumption beyond the paper is marked *ours*):

* Computation: worker ``i`` with ``d_i`` points finishes at ``a d_i + (d_i/mu) E_i`` with
  ``E_i ~ Exp(1)`` (shifted exponential; rate ``mu/d_i`` as in the proof of Theorem 2, or the
  printed eq. (6) rate ``mu/a`` with ``rate_convention="eq6"``). All schemes use the **same**
  draws ``E`` (worker ``i`` of every scheme is tree rank ``i`` of CR), so differences come from
  the schemes, not the noise.
* Communication: one single-port :class:`codedlib.network.Network` for every scheme; a full
  gradient is ``p`` numbers (``t_c = latency + 8 p / bandwidth``), a RAR segment ``ceil(p/N)``.
* Straggling beyond the shifted exponential (*ours*, off by default): a worker whose draw
  ``E_i`` lies in its top-``q`` tail (``E_i > log(1/q)``, probability ``q``) is held up by a
  further ``D`` seconds (``straggle_prob = q``, ``straggle_delay = D``), a load-independent
  slowdown such as a background job on a shared instance. Derived from the same draws, so
  every scheme still sees the same stragglers.
* Receiving overlaps with computing; combining/decoding time is neglected.

Reference: reisizadeh2022codedreduce, tandon2017gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import RngLike, as_generator, check_int, check_real
from codedlib.network import Network, single_port_receive
from codedlib.theory.codedreduce import check_tree, n_tree_workers, r_cr

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

SCHEMES = ("UMW", "GC", "SGD", "RAR", "CR")

#: The one network of notebook 01: the paper states t_c = 0.05 s for its p ~ 120 000-parameter
#: network (Section IV-B); with 0.3 ms per-message latency (*assumed*: same-zone EC2) that is a
#: 19.3 MB/s (155 Mb/s) link, and every other message time follows from its size.
PAPER_NETWORK = Network.from_message_time(0.05, 120_000, 3e-4)


@dataclass(frozen=True)
class TimingModel:
    """Computation constants and the network every scheme communicates over.

    Defaults: Section IV-B's ``a = 5e-5`` s/point, ``a mu = 1``, ``p = 6500`` (Figs. 2, 10) and
    :data:`PAPER_NETWORK`; ``t_c`` is derived, never set; ``straggle_delay`` in seconds.
    """

    a: float = 5e-5
    mu: float = 2e4
    network: Network = PAPER_NETWORK
    gradient_numbers: int = 6500
    rate_convention: str = "appendix"
    straggle_prob: float = 0.0
    straggle_delay: float = 0.0

    def __post_init__(self):
        check_real("a", self.a, 0.0)
        check_real("mu", self.mu, 0.0, low_open=True)
        if not isinstance(self.network, Network):
            raise TypeError(f"network must be a codedlib.network.Network, got {self.network!r}")
        check_int("gradient_numbers", self.gradient_numbers, 1)
        check_real("straggle_prob", self.straggle_prob, 0.0, 1.0)
        check_real("straggle_delay", self.straggle_delay, 0.0)
        if self.rate_convention not in ("appendix", "eq6"):
            raise ValueError(
                f"rate_convention must be 'appendix' or 'eq6', got rate_convention={self.rate_convention!r}"
            )

    @property
    def t_c(self) -> float:
        """Time of one full-gradient message, ``latency + 8 p / bandwidth``."""
        return float(self.network.vector_time(self.gradient_numbers))

    def compute_times(self, loads: ArrayLike, draws: ArrayLike) -> np.ndarray:
        """``a d_i + scale_i E_i (+ D if E_i > log(1/q))`` with ``scale = d_i/mu`` (appendix)
        or ``a/mu`` (eq. 6)."""
        loads, draws = np.asarray(loads, dtype=float), np.asarray(draws, dtype=float)
        scale = loads / self.mu if self.rate_convention == "appendix" else self.a / self.mu
        out = self.a * loads + scale * draws
        if self.straggle_prob > 0 and self.straggle_delay > 0:
            out = out + self.straggle_delay * (draws > np.log(1.0 / self.straggle_prob))
        return out

    def message_time(self, fraction: float = 1.0) -> float:
        """Time to receive a message carrying ``ceil(fraction * p)`` numbers."""
        numbers = int(np.ceil(fraction * self.gradient_numbers - 1e-9))
        return float(self.network.vector_time(numbers))


@dataclass(frozen=True)
class ClusterConfig:
    """A CR tree ``(n, L)`` with ``s`` stragglers per parent, ``d`` points; the master-worker
    schemes use the same ``N`` workers with ``S = alpha N`` (``alpha = s/n``) stragglers.
    """

    n: int
    L: int
    s: int
    d: int

    def __post_init__(self):
        check_tree(self.n, self.L, self.s)
        check_int("d", self.d, 1)

    @property
    def N(self) -> int:
        return n_tree_workers(self.n, self.L)

    @property
    def alpha(self) -> float:
        return self.s / self.n

    @property
    def S(self) -> int:
        """Stragglers tolerated by GC / ignored by SGD: ``alpha N`` (rounded down)."""
        return int(np.floor(self.alpha * self.N + 1e-9))


@dataclass(frozen=True, eq=False)
class SchemeTiming:
    """Per-iteration wall-clock times of one scheme and its per-iteration costs."""

    scheme: str
    times: np.ndarray  # (n_iterations,)
    load_points: float  # largest number of data points a worker processes
    busiest_messages: int  # messages received by the busiest node per iteration
    busiest_gradients: float  # gradient-vectors' worth of numbers it receives (x p x 8 bytes)
    used_workers: np.ndarray | None = None  # SGD: (n_iterations, N) mask of contributing workers

    @property
    def mean(self) -> float:
        return float(np.mean(self.times))


def draw_delays(n_iterations: int, n_workers: int, rng: RngLike = None) -> np.ndarray:
    """The shared ``Exp(1)`` draws ``E[t, i]`` for iteration ``t`` and worker (rank) ``i+1``."""
    n_iterations = check_int("n_iterations", n_iterations, 1)
    n_workers = check_int("n_workers", n_workers, 1)
    return as_generator(rng).standard_exponential((n_iterations, n_workers))


def _check_draws(draws, n_workers):
    draws = np.asarray(draws, dtype=float)
    if draws.ndim != 2 or draws.shape[1] != n_workers:
        raise ValueError(
            f"draws must have shape (n_iterations, N={n_workers}), got shape {draws.shape}"
        )
    if not np.all(np.isfinite(draws)) or np.any(draws < 0):
        finite = draws[np.isfinite(draws)]
        raise ValueError(
            f"draws must be finite and >= 0 (Exp(1) draws), got min={finite.min() if finite.size else 'n/a'} and {int(np.sum(~np.isfinite(draws)))} non-finite entries"
        )
    return draws


def _star(name: str, cfg: ClusterConfig, model: TimingModel, draws, parts: int, wait: int):
    """A master-worker scheme: ``parts`` of the N equal data shares per worker, the master
    receives the first ``wait`` full gradients (SGD: records whose)."""
    load = parts * cfg.d / cfg.N
    ready = model.compute_times(load, _check_draws(draws, cfg.N))
    times = single_port_receive(ready, wait, model.message_time())
    used = None
    if name == "SGD":
        used = np.zeros_like(ready, dtype=bool)
        np.put_along_axis(used, np.argsort(ready, axis=1, kind="stable")[:, :wait], True, axis=1)
    return SchemeTiming(name, times, load, wait, float(wait), used_workers=used)


def umw_times(cfg: ClusterConfig, model: TimingModel, draws: ArrayLike) -> SchemeTiming:
    """Sec. IV-A's uncoded master-worker: wait for all N workers (loads ``d/N``)."""
    return _star("UMW", cfg, model, draws, 1, cfg.N)


def gc_times(cfg: ClusterConfig, model: TimingModel, draws: ArrayLike) -> SchemeTiming:
    """Sec. IV-A's GC (Section II-C) with ``S = alpha N``: load ``(S+1) d / N``, first ``N - S`` messages."""
    return _star("GC", cfg, model, draws, cfg.S + 1, cfg.N - cfg.S)


def sgd_times(cfg: ClusterConfig, model: TimingModel, draws: ArrayLike) -> SchemeTiming:
    """Sec. IV-A's ignore-stragglers SGD: UMW's loads, the first ``N - S`` messages; records who counted."""
    return _star("SGD", cfg, model, draws, 1, cfg.N - cfg.S)


def rar_times(cfg: ClusterConfig, model: TimingModel, draws: ArrayLike) -> SchemeTiming:
    """Ring-AllReduce (Section II-B): ``2(N-1)`` rounds of ``p/N`` segments (no straggler
    tolerance; :func:`ring_allreduce_finish`)."""
    N, load = cfg.N, cfg.d / cfg.N
    ready = model.compute_times(load, _check_draws(draws, N))
    times = ring_allreduce_finish(ready, model.message_time(1.0 / N))
    return SchemeTiming("RAR", times, load, 2 * (N - 1), 2.0 * (N - 1) / N)


def ring_allreduce_finish(ready: ArrayLike, tau: ArrayLike) -> np.ndarray:
    """When the last worker ends RAR's ``2(N-1)`` rounds (Section II-B), from the workers' ready times.

    ``ready`` is ``(R, N)`` (row = one iteration); ``tau`` the time of one ``p/N`` segment,
    a scalar or one value per row (shape ``(R,)``), so many timing models run in one pass.
    Round ``k`` at worker ``i`` ends ``tau`` after both ``i`` and ``i-1`` ended round ``k-1``;
    ``2(N-1) >= N-1`` rounds carry the slowest worker's ready time round the whole ring, so the
    last worker ends ``2(N-1)`` taus after it. Bit for bit the round-by-round recursion: the taus
    are added one at a time, and ``x -> x + tau`` rounds monotonically, so it commutes with max.
    """
    ready = np.asarray(ready, dtype=float)
    tau = np.asarray(tau, dtype=float)
    finish = ready.max(axis=1)
    for _ in range(2 * (ready.shape[1] - 1)):
        finish = finish + tau
    return finish


def tree_finish(
    compute: ArrayLike, n: int, L: int, s: int, tau: float, return_survivors: bool = False
) -> np.ndarray | tuple[np.ndarray, dict[int, np.ndarray]]:
    """When the root of an (n, L) tree holds the gradient, from every node's computation
    finish times (CR Algorithm 2, CR.EXECUTE timing).

    ``compute`` is ``(R, N)``, column ``j`` tree rank ``j + 1``; a parent receives its first
    ``n - s`` children one at a time (``tau`` each). ``return_survivors``: also
    ``{parent_rank: (R, n - s) child ranks}``.
    """
    compute = np.asarray(compute, dtype=float)
    R = compute.shape[0]
    offsets = [sum(n**m for m in range(layer)) for layer in range(L + 2)]  # first rank per layer
    if compute.ndim != 2 or compute.shape[1] != offsets[L + 1] - 1:
        raise ValueError(
            f"compute must have shape (R, N={offsets[L + 1] - 1}), got shape {compute.shape}"
        )
    ready = compute[:, offsets[L] - 1 : offsets[L + 1] - 1]  # bottom layer
    survivors = {}
    for layer in range(L - 1, -1, -1):
        groups = ready.reshape(R, n**layer, n)
        if return_survivors:
            order = np.argsort(groups, axis=2, kind="stable")
            sorted_ready = np.take_along_axis(groups, order, axis=2)
        else:  # the same values without the permutation
            sorted_ready = np.sort(groups, axis=2, kind="stable")
        done = np.zeros((R, n**layer))
        for m in range(n - s):
            done = np.maximum(done, sorted_ready[:, :, m]) + tau
        if return_survivors:
            for i in range(n**layer):
                first_child = offsets[layer + 1] + n * i
                survivors[offsets[layer] + i] = first_child + order[:, i, : n - s]
        own = compute[:, offsets[layer] - 1 : offsets[layer + 1] - 1]  # empty for the master
        ready = np.maximum(done, own) if layer > 0 else done
    return (ready[:, 0], survivors) if return_survivors else ready[:, 0]


def cr_times(
    cfg: ClusterConfig,
    model: TimingModel,
    draws: ArrayLike,
    loads: ArrayLike | None = None,
    return_survivors: bool = False,
) -> SchemeTiming | tuple[SchemeTiming, dict[int, np.ndarray]]:
    """CodedReduce on the (n, L) tree (Algorithm 2, CR.EXECUTE timing; :func:`tree_finish`).

    ``loads``: per-rank data counts (ranks 1..N); default ``r_CR d`` for every node (the
    allocation's counts differ by rounding only). With ``return_survivors`` returns
    ``(timing, survivors)``, the children each parent combined, to feed
    :func:`codedlib.codes.codedreduce.execute`.
    """
    n, L, s, N = cfg.n, cfg.L, cfg.s, cfg.N
    draws = _check_draws(draws, N)
    loads = np.full(N, r_cr(n, s, L) * cfg.d) if loads is None else np.asarray(loads, dtype=float)
    if loads.shape != (N,):
        raise ValueError(f"loads must have shape (N,) = ({N},), got shape {loads.shape}")
    if not np.all(np.isfinite(loads)) or np.any(loads < 0):
        raise ValueError(f"loads must be finite and >= 0, got min(loads)={loads.min()}")
    compute = model.compute_times(loads[None, :], draws)  # (R, N), column j = rank j+1
    finish = tree_finish(compute, n, L, s, model.message_time(), return_survivors)
    times, survivors = finish if return_survivors else (finish, None)
    timing = SchemeTiming("CR", times, float(loads.max()), n - s, float(n - s))
    return (timing, survivors) if return_survivors else timing


def simulate_iteration_times(
    cfg: ClusterConfig,
    model: TimingModel | None = None,
    n_iterations: int = 300,
    rng: RngLike = None,
    schemes: Sequence[str] = SCHEMES,
    cr_loads: ArrayLike | None = None,
    draws: ArrayLike | None = None,
) -> dict[str, SchemeTiming]:
    """Sec. IV's schemes on the same delay draws (one row of ``draws`` per iteration)."""
    model = TimingModel() if model is None else model
    draws = draw_delays(n_iterations, cfg.N, rng) if draws is None else draws
    funcs = {"UMW": umw_times, "GC": gc_times, "SGD": sgd_times, "RAR": rar_times}
    funcs["CR"] = lambda cfg, model, draws: cr_times(cfg, model, draws, loads=cr_loads)
    unknown = [name for name in schemes if name not in funcs]
    if unknown:
        raise ValueError(f"scheme must be one of {SCHEMES}, got scheme={unknown[0]!r}")
    return {name: funcs[name](cfg, model, draws) for name in schemes}
