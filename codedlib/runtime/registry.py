"""The runtime's schemes: one :class:`Scheme` record each, the only place a scheme is named.

A record holds its sizes, the stragglers it tolerates, every rank's plan, the node classes,
the simulator's timing of an iteration (what :mod:`codedlib.runtime.validation` compares a
real run with), the quick and full defaults and the config fields it uses. Adding a scheme is
adding one entry to :data:`SCHEMES`. World size: one root plus the N workers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import check_int, check_real
from codedlib.network import single_port_receive
from codedlib.runtime.dsag import (
    DSAGCoordinator,
    DSAGLBCoordinator,
    DSAGLBWorker,
    DSAGWorker,
    dsag_plan,
)
from codedlib.runtime.lagc import LAGCRoot, lagc_plan, layout_of
from codedlib.runtime.nodes import RootNode, WorkerNode
from codedlib.runtime.ring import RingWatchdog, RingWorker, ring_plan
from codedlib.runtime.star import SGDRoot, gc_plan, rs_code, rs_plan, sgd_plan, umw_plan
from codedlib.runtime.tree import tree_plan
from codedlib.schemes.codedreduce import tree_finish
from codedlib.theory.codedreduce import n_tree_workers as tree_size

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from codedlib.runtime.config import RunConfig
    from codedlib.runtime.nodes import NodePlan


# ---------------------------------------------------------------------------- sizes
def workers_sizes(cfg: RunConfig) -> dict:
    """Root + ``n_workers`` workers; ``stragglers`` (S) in ``0 .. N - 1``."""
    if cfg.n_workers is None:
        raise ValueError(f"scheme {cfg.scheme!r} needs n_workers (N >= 1), got n_workers=None")
    N = check_int("n_workers", cfg.n_workers, low=1)
    S = check_int("stragglers", cfg.stragglers, low=0, high=N - 1)
    return {"n_workers": N, "stragglers": S}


def tree_sizes(cfg: RunConfig) -> dict:
    """The (n, L)-regular tree: ``N = n + ... + n^L`` workers, ``s`` stragglers per parent."""
    if cfg.n is None or cfg.L is None:
        raise ValueError(
            f"scheme {cfg.scheme!r} needs the tree sizes n (children per parent) and L "
            f"(layers), got n={cfg.n}, L={cfg.L}"
        )
    n = check_int("n", cfg.n, low=2)
    L = check_int("L", cfg.L, low=1)
    s = check_int("s", cfg.s, low=0, high=n - 1)
    N = tree_size(n, L)
    if cfg.n_workers is not None and cfg.n_workers != N:
        raise ValueError(
            f"n_workers must equal n + ... + n^L = {N} for {cfg.scheme} (n={n}, L={L}), "
            f"got n_workers={cfg.n_workers}"
        )
    return {"n": n, "L": L, "s": s, "n_workers": N}


def dsag_sizes(cfg: RunConfig) -> dict:
    """N workers, the coordinator waits for ``w`` (default N) fresh results."""
    sizes = workers_sizes(cfg)
    N = sizes["n_workers"]
    return sizes | {"w": check_int("w", N if cfg.w is None else cfg.w, low=1, high=N)}


def rs_sizes(cfg: RunConfig) -> dict:
    """N workers, S stragglers, and a code that decodes accurately at this N (built now)."""
    sizes = workers_sizes(cfg)
    rs_code(sizes["n_workers"], sizes["stragglers"])
    return sizes


def lagc_sizes(cfg: RunConfig, scheme: str = "lagc") -> dict:
    """N workers in G groups storing r fine partitions each (LAGC Section IV); G-LAG needs
    ``N/G <= r`` (no coding) and defaults to ``G = N/r``; ``D xi < 1`` keeps the step positive."""
    sizes = workers_sizes(cfg)
    N = sizes["n_workers"]
    r = check_int("redundancy", cfg.redundancy, low=1, high=N)
    if scheme == "lagc" and cfg.groups is None:
        raise ValueError("scheme 'lagc' needs groups G (a divisor of N), got groups=None")
    from codedlib.theory.lagc import scheme_layout  # loads scipy.stats: LAGC's ranks only

    layout = scheme_layout(scheme, N, r, cfg.groups)
    xi = check_real("xi", cfg.xi, low=0.0)
    history = check_int("history", cfg.history, low=1)
    if not history * xi < 1:
        raise ValueError(
            f"xi must satisfy history * xi < 1 (step (1 - sqrt(D xi)) / L), got xi={xi:g}, "
            f"history={history}"
        )
    return {**sizes, "redundancy": r, "groups": layout.n_groups, "xi": xi, "history": history}


def replay_groups(cfg: RunConfig, d: np.ndarray) -> np.ndarray:
    """Every group selected: the slowest group's ``wait_for``-th fastest worker (an upper
    bound for a lazy run, ``xi > 0``)."""
    layout = layout_of(cfg)
    k = layout.wait_for
    grouped = d.reshape(d.shape[:-1] + (layout.n_groups, layout.workers_per_group))
    return np.partition(grouped, k - 1, axis=-1)[..., k - 1].max(axis=-1)


def _tree_text(cfg: RunConfig) -> str:
    return (
        f"n={cfg.n}, L={cfg.L}: N = {' + '.join(f'{cfg.n}^{layer}' for layer in range(1, cfg.L + 1))}"
        f" = {cfg.n_workers} workers"
    )


# ---------------------------------------------------------------------------- timing
def replay_tree(cfg: RunConfig, d: np.ndarray) -> np.ndarray:
    """CodedReduce Algorithm 2 on the tree: :func:`codedlib.schemes.codedreduce.tree_finish`."""
    flat = d.reshape(-1, cfg.n_workers)
    return tree_finish(flat, cfg.n, cfg.L, cfg.s, cfg.t_c).reshape(d.shape[:-1])


def replay_ring(cfg: RunConfig, d: ArrayLike) -> np.ndarray:
    """Every worker, then ``2 (N - 1)`` ring rounds of ``t_c`` (hand-written ring)."""
    ring = 2 * (cfg.n_workers - 1) * cfg.t_c if cfg.allreduce == "ring" else 0.0
    return np.asarray(d).max(axis=-1) + ring


def replay_event_driven(
    cfg: RunConfig, d: np.ndarray, need: int, margin: float = 0.0
) -> np.ndarray:
    """Busy workers carry over (DSAG Section IV-B): the event-driven simulator with our MPI
    coordinator's rule (``semantics="deadline"``: it waits out the whole margin)."""
    from codedlib.latency.event_driven import simulate_event_driven  # numba: the root's only

    flat = d.reshape((-1,) + d.shape[-2:])
    out = simulate_event_driven(flat, need, margin=margin, semantics="deadline")
    return out.latency.reshape(d.shape[:-1])


# ---------------------------------------------------------------------------- records
@dataclass(frozen=True)
class Scheme:
    """One runtime scheme.

    ``params``: the scheme-specific :class:`~codedlib.runtime.config.RunConfig` fields it uses
    (``derived``: those computed, not written by ``cli_args``); ``sizes``: checked sizes;
    ``tolerated``: stragglers (per parent for a tree); ``plan(config, n_samples, rank)``;
    ``root`` / ``worker``: node classes; ``need``: results the root waits for;
    ``replay(config, delays (..., T, N))``: the simulator's iteration times in "abandon" mode
    (default: single-port receive of the first ``need``); ``closed_form``: the expected time
    is ``E[X_(need:N)]``; ``exact``: ``--check`` finds the serial gradient to round-off;
    ``one_term_per_task``: DSAG sub-partitions; ``quick`` / ``full``: default sizes.
    """

    name: str
    title: str
    params: tuple[str, ...]
    plan: Callable[[RunConfig, int, int], NodePlan]
    quick: dict
    full: dict
    need: Callable[[RunConfig], int] = lambda cfg: cfg.n_workers - cfg.stragglers
    replay: Callable[[RunConfig, np.ndarray], np.ndarray] | None = None
    sizes: Callable[[RunConfig], dict] = workers_sizes
    tolerated: Callable[[RunConfig], int] = lambda cfg: cfg.stragglers
    root: type[RootNode] = RootNode
    worker: type = WorkerNode
    derived: tuple[str, ...] = ()
    closed_form: bool = False
    on_new_iterate: str = "abandon"
    exact: bool = True
    one_term_per_task: bool = False
    min_samples: Callable[[RunConfig], int] = field(default=lambda cfg: cfg.n_workers)
    sizes_text: Callable[[RunConfig], str] = lambda cfg: f"N={cfg.n_workers} workers"
    constant_time: Callable[[RunConfig], float] | None = None
    replay_name: str = "Monte Carlo replay"

    def iteration_times(self, cfg: RunConfig, d: ArrayLike) -> np.ndarray:
        """The simulator's iteration times for injected delays ``d`` (``..., T, N``); a scheme
        run with busy workers carrying over (``"finish"``) through the event-driven one."""
        d = np.asarray(d, dtype=float)
        if d.shape[-1] != cfg.n_workers:
            raise ValueError(f"delays must have N={cfg.n_workers} columns, got shape {d.shape}")
        if self.carries_over(cfg):
            return replay_event_driven(cfg, d, self.need(cfg))
        if self.replay is None:
            return single_port_receive(d, self.need(cfg), cfg.t_c)
        return self.replay(cfg, d)

    def carries_over(self, cfg: RunConfig) -> bool:
        """Whether busy workers finish their task (``cfg``) where the scheme would abandon it."""
        return cfg.on_new_iterate == "finish" and self.on_new_iterate == "abandon"

    def replay_method(self, cfg: RunConfig) -> str:
        """What :meth:`iteration_times` runs, in words."""
        return "event-driven simulation" if self.carries_over(cfg) else self.replay_name

    def extra_time(self, cfg: RunConfig) -> float:
        """Time every iteration takes on top of the workers' delays (RAR's ring rounds)."""
        return 0.0 if self.constant_time is None else float(self.constant_time(cfg))


#: Sizes of the master-worker schemes that take N and S.
_NS = {"quick": {"n_workers": 3, "stragglers": 1}, "full": {"n_workers": 12, "stragglers": 3}}
_DSAG = Scheme(
    name="dsag",
    title="DSAG: the coordinator waits for w fresh results, stale ones cached",
    params=("n_workers", "w", "subpartitions", "margin"),
    sizes=dsag_sizes,
    tolerated=lambda cfg: cfg.n_workers - cfg.w,
    plan=dsag_plan,
    root=DSAGCoordinator,
    worker=DSAGWorker,
    need=lambda cfg: cfg.w,
    on_new_iterate="finish",
    exact=False,
    one_term_per_task=True,
    replay_name="event-driven simulation",
    replay=lambda cfg, d: replay_event_driven(cfg, d, cfg.w, cfg.margin),
    min_samples=lambda cfg: cfg.n_workers * cfg.subpartitions,
    quick={"n_workers": 3, "w": 2, "subpartitions": 2},
    full={"n_workers": 12, "w": 6, "subpartitions": 4},
)
_LAGC = Scheme(
    name="lagc",
    title="LAGC (Zhang & Simeone): lazily selected groups, cyclic GC inside each group",
    params=("n_workers", "redundancy", "groups", "xi", "history"),
    sizes=lagc_sizes,
    tolerated=lambda cfg: cfg.n_workers // cfg.groups - layout_of(cfg).wait_for,
    plan=lagc_plan,
    root=LAGCRoot,
    need=lambda cfg: layout_of(cfg).wait_for,
    replay=replay_groups,
    replay_name="Monte Carlo replay, every group selected",
    quick={"n_workers": 4, "redundancy": 2, "groups": 2, "xi": 0.01, "history": 10},
    full={"n_workers": 12, "redundancy": 2, "groups": 3, "xi": 0.01, "history": 10},
)
SCHEMES: dict[str, Scheme] = {
    s.name: s
    for s in (
        Scheme(
            name="umw",
            title="uncoded master-worker: the master waits for all N workers",
            params=("n_workers",),
            tolerated=lambda cfg: 0,
            plan=umw_plan,
            need=lambda cfg: cfg.n_workers,
            closed_form=True,
            quick={"n_workers": 3},
            full={"n_workers": 12},
        ),
        Scheme(
            name="sgd",
            title="uncoded, the master uses the first N - S results (rescaled)",
            params=("n_workers", "stragglers"),
            plan=sgd_plan,
            root=SGDRoot,
            closed_form=True,
            exact=False,
            **_NS,
        ),
        Scheme(
            name="gc",
            title="cyclic-repetition gradient code (Tandon et al.), any N - S decode",
            params=("n_workers", "stragglers"),
            plan=gc_plan,
            closed_form=True,
            **_NS,
        ),
        Scheme(
            name="rs",
            title="Reed-Solomon gradient code (Halbawi et al., ISIT 2018), any N - S decode",
            params=("n_workers", "stragglers"),
            sizes=rs_sizes,
            plan=rs_plan,
            closed_form=True,
            **_NS,
        ),
        Scheme(
            name="rar",
            title="Ring-AllReduce over the workers (rank 0 only watches and logs)",
            params=("n_workers", "allreduce"),
            tolerated=lambda cfg: 0,
            plan=ring_plan,
            root=RingWatchdog,
            worker=RingWorker,
            need=lambda cfg: cfg.n_workers,
            replay=replay_ring,
            closed_form=True,
            on_new_iterate="finish",
            constant_time=lambda cfg: replay_ring(cfg, np.zeros(1)),
            quick={"n_workers": 3},
            full={"n_workers": 12},
        ),
        Scheme(
            name="cr",
            title="CodedReduce on the (n, L)-regular tree, any n - s children per parent",
            params=("n_workers", "n", "L", "s"),
            derived=("n_workers",),
            sizes=tree_sizes,
            tolerated=lambda cfg: cfg.s,
            plan=tree_plan,
            need=lambda cfg: cfg.n - cfg.s,
            replay=replay_tree,
            sizes_text=_tree_text,
            # each tree node needs at least one sample per coded part (see codes.codedreduce)
            min_samples=lambda cfg: max(cfg.n_workers, cfg.n**cfg.L),
            quick={"n": 2, "L": 2, "s": 1},
            full={"n": 3, "L": 2, "s": 1},
        ),
        _DSAG,
        replace(
            _DSAG,
            name="dsag-lb",
            title="DSAG with the load balancer (Section VI): p_i re-optimised from profiled latency",
            params=_DSAG.params + ("lb_interval", "lb_window", "lb_threshold"),
            root=DSAGLBCoordinator,
            worker=DSAGLBWorker,
            replay_name="event-driven simulation at the initial sub-partitions (no load balancing)",
            quick=dict(n_workers=3, w=2, subpartitions=4, lb_interval=0.3, lb_window=1.0),
            full=dict(n_workers=12, w=6, subpartitions=8, lb_interval=0.5, lb_window=2.0),
        ),
        _LAGC,
        replace(
            _LAGC,
            name="g-lag",
            title="G-LAG (Zhang & Simeone, Remark 3): lazily selected groups, the fastest worker each",
            sizes=lambda cfg: lagc_sizes(cfg, "g-lag"),
            tolerated=lambda cfg: cfg.n_workers // cfg.groups - 1,
            quick={"n_workers": 4, "redundancy": 2, "xi": 0.01, "history": 10},
            full={"n_workers": 12, "redundancy": 3, "xi": 0.01, "history": 10},
        ),
    )
}


def get_scheme(name: str) -> Scheme:
    """The record of ``name``; ``ValueError`` naming the known schemes otherwise."""
    try:
        return SCHEMES[name]
    except (KeyError, TypeError):
        raise ValueError(f"scheme must be one of {list(SCHEMES)}, got scheme={name!r}") from None
