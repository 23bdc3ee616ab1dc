"""Every scheme of the five papers on one cluster, one problem, one clock (notebook 06).

Each scheme is one entry of :data:`SCHEMES`: its paper, the shares each worker computes, whom
the master waits for, how the result travels (star, ring, tree or an MPI all-reduce over the
:class:`codedlib.cluster.ClusterModel`'s network) and which update it makes. Four engines run
them, vectorised over workers (``N = 10,000`` for 100 iterations takes seconds):

* ``exact`` -- the full gradient reaches the master (tree root, ring), ``θ ← θ - ∇F(θ)/L``:
  GD/UMW, Tandon GC, RS-GC, MDS-coded, CodedReduce, RAR, MPICH's all-reduces
  (:func:`mpich_allreduce_algorithm`) and the speed-proportional split; only the clock differs.
* ``sgd`` -- ignore-stragglers SGD: the first ``N - S`` partial gradients, rescaled.
* ``event`` -- SAG, DSAG, DSAG-LB: the DSAG Section IV-B/V-A coordinator (deadline rule) with
  the cluster's single-port master (a result counts when the port has it by the deadline).
* ``lazy`` -- LAG, LAGC, G-LAG, G-GD: LAGC's selection rule (eq. 17) over groups, cyclic GC
  inside a group (LAGC Algorithm 1).

All schemes of one seed share the straggling draws (``ClusterModel.factors``) and the stand-in
problem (:func:`shootout_problem`); every master sums what it receives (``dim`` FLOPs per
message); every free parameter is chosen by :func:`tune` on a pilot draw. Model download is
counted in the communication volume, not on the clock (as in the papers' timing models).

Examples
--------
>>> from codedlib.cluster import ClusterModel
>>> setup = Shootout(ClusterModel(n_workers=12), max_iter=60)
>>> run = simulate(setup, "gc", seed=0)
>>> run.scheme, run.times.shape, bool(run.gaps[-1] < run.gaps[0])
('gc', (60,), True)

Reference: reisizadeh2022codedreduce, halbawi2018reedsolomon, severinson2023dsag,
zhang2021lagc, esfahanizadeh2022stream, tandon2017gradient; MPICH's allreduce.c
(``MPIR_Allreduce_intra_auto``; Thakur, Rabenseifner, Gropp 2005).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import RngLike, as_generator, check_int, check_real
from codedlib.cluster import ClusterModel
from codedlib.network import single_port_receive
from codedlib.problems import LeastSquares, even_partition
from codedlib.schemes.codedreduce import tree_finish
from codedlib.theory.codedreduce import n_tree_workers, r_cr
from codedlib.theory.lagc import lag_stepsize, lagc_layout
from codedlib.theory.reed_solomon import decoding_time

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from codedlib.schemes import lagc


# ------------------------------------------------------------------------------ problem
def shootout_problem(n_partitions: int, rows: int = 8, rng: RngLike = 0) -> LeastSquares:
    """The stand-in problem: least squares, ``rows`` rows per partition and 20 columns (CR eq.
    10, scaled columns ``1 .. 1/sqrt(20)`` so the Hessian's condition number is about 20)."""
    n_partitions = check_int("n_partitions", n_partitions, 1)
    rows = check_int("rows", rows, 1)
    rng = as_generator(rng)
    scales = 20.0 ** (-0.5 * np.linspace(0.0, 1.0, 20))
    X = rng.standard_normal((n_partitions * rows, 20)) * scales
    y = X @ rng.standard_normal(20) + 0.1 * rng.standard_normal(X.shape[0])
    return LeastSquares(X, y)


# ------------------------------------------------------------------------------ timing
def port_receive(
    ready: ArrayLike, need: int, tau: ArrayLike, port_free: ArrayLike = 0.0
) -> np.ndarray:
    """Single-port reception (CR Section III-C) until ``need`` messages are in, vectorised.

    ``ready (..., M)``: when each message reaches the port (``inf``: never sent); the port
    takes them in order of arrival, ``tau`` each, from ``port_free`` on: ``R_m = max(R_{m-1},
    a_(m)) + tau`` (:func:`codedlib.network.single_port_receive` when ``port_free = 0``)."""
    a = np.asarray(ready, dtype=float)
    if a.ndim == 0:
        raise ValueError(f"ready must be an array of arrival times, got the scalar {ready!r}")
    if n_nan := int(np.isnan(a).sum()):
        raise ValueError(f"ready must be arrival times (inf: never sent), got {n_nan} NaN")
    a = np.sort(a, axis=-1)
    check_int("need", need, low=0, high=a.shape[-1])
    if need == 0:
        return np.broadcast_to(np.asarray(port_free, dtype=float), a.shape[:-1]).copy()
    return _port_schedule(a[..., :need], tau, port_free)[..., -1]


def _port_schedule(arrivals, tau, port_free=0.0):
    """When the port has received each of the sorted ``arrivals`` (last axis):
    ``R_m = (m + 1) tau + max(port_free, max_{j <= m} (a_j - j tau))``."""
    m = np.arange(arrivals.shape[-1])
    return (m + 1) * tau + np.maximum(np.maximum.accumulate(arrivals - m * tau, axis=-1), port_free)


def _decode_time(cluster: ClusterModel, need: int, decoder: str | None) -> float:
    """Summing ``need`` gradients plus the decoder of RS eq. (17) at the master."""
    combine = need * cluster.workload.dim * cluster.master_flop_time
    if decoder is None:
        return combine
    return combine + float(decoding_time(need, cluster.master_flop_time, decoder))


# ------------------------------------------------------------------------------ MPI all-reduce
def mpich_allreduce_algorithm(n_workers: int, count: int, bytes_per_number: int = 8) -> str:
    """The algorithm MPICH's default ``MPI_Allreduce`` runs for ``count`` numbers on N ranks.

    ``MPIR_Allreduce_intra_auto`` (MPICH 3.3 src/mpi/coll/allreduce.c; MPICH 4's default
    coll_selection.json for builtin ops): recursive doubling if the message is at most
    ``MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE`` = 2048 bytes or ``count < pof2`` (the largest power
    of two <= N), else Rabenseifner's. Every rank is its own node (no SMP variants)."""
    N = check_int("n_workers", n_workers, 1)
    count = check_int("count", count, 1)
    pof2 = 1 << (N.bit_length() - 1)
    short = count * bytes_per_number <= 2048
    return "recursive-doubling" if short or count < pof2 else "rabenseifner"


def _butterfly(ready, sizes, masks, net):
    """Exchange rounds between ranks ``j`` and ``j ^ mask``, ``sizes[k]`` numbers each way: a
    round's message is received once both ranks are in the round."""
    idx = np.arange(ready.shape[-1])
    for size, mask in zip(sizes, masks):
        ready = np.maximum(ready, ready[:, idx ^ mask]) + net.vector_time(size)
    return ready


def _allreduce(cluster, comp, algorithm):
    """When every rank holds the sum, each rank entering when its computation ``comp (T, N)``
    is done, with MPICH's rounds on the α-β network: ``recursive-doubling`` (``log2 pof2``
    full-vector exchanges), ``rabenseifner`` (recursive halving, sizes d/2, d/4, ..., then the
    recursive-doubling all-gather back; blocks of ``d / pof2``), both folding the
    ``r = N - pof2`` excess ranks in before and out after (one full vector each way);
    ``binomial``: binomial reduce then broadcast, ``ceil(log2 N)`` full-vector rounds each.
    Reduction FLOPs are not charged (as for the ring)."""
    net, d = cluster.network, cluster.workload.dim
    N = comp.shape[-1]
    t_full = net.vector_time(d)
    ready = comp.copy()
    if algorithm == "binomial":
        mask = 1
        while mask < N:
            parents = np.arange(0, N - mask, 2 * mask)
            ready[:, parents] = np.maximum(ready[:, parents], ready[:, parents + mask]) + t_full
            mask *= 2
        return ready[:, 0] + math.ceil(math.log2(N)) * t_full
    # MPICH's pre-step: each even rank of the first 2r sends its vector to the odd one after it
    r = N - (1 << (N.bit_length() - 1))
    ready[:, 1 : 2 * r : 2] = np.maximum(ready[:, 1 : 2 * r : 2], ready[:, 0 : 2 * r : 2]) + t_full
    active = ready[:, np.concatenate([np.arange(1, 2 * r, 2), np.arange(2 * r, N)])]
    masks = [1 << k for k in range(active.shape[-1].bit_length() - 1)]
    if algorithm == "recursive-doubling":
        done = _butterfly(active, [d] * len(masks), masks, net)
    else:
        halves = [d / (2 << k) for k in range(len(masks))]
        done = _butterfly(active, halves, masks, net)
        done = _butterfly(done, halves[::-1], masks[::-1], net)
    end = done.max(axis=1)
    return end + t_full if r > 0 else end


def _clock(setup, scheme, lay, factors):
    """Iteration times of an exact or SGD scheme with layout ``lay``: the star's port, the
    ring's ``2(N-1)`` rounds of ``dim/N`` numbers after everyone, CodedReduce's root on the
    first ``n + ... + n^L`` workers (the rest idle) or an MPI all-reduce."""
    c, N = setup.cluster, setup.n_workers
    comp = c.compute_times(lay["shares"], factors.shape[0], factors=factors)
    if scheme.timing == "ring":
        segment = c.network.vector_time(c.workload.dim / N) if N > 1 else 0.0
        return comp.max(axis=1) + 2 * (N - 1) * segment
    if scheme.timing == "tree":
        n, L = lay["n"], lay["L"]
        return tree_finish(comp[:, : n_tree_workers(n, L)], n, L, lay["s"], c.message_time)
    if scheme.timing == "allreduce":
        return _allreduce(c, comp, lay["algorithm"])
    port = single_port_receive(comp, lay["need"], c.message_time)
    return port + _decode_time(c, lay["need"], lay.get("decoder"))


# ------------------------------------------------------------------------------ entries
@dataclass(frozen=True)
class ShootoutScheme:
    """One scheme of the shoot-out: ``layout(setup)`` gives its sizes at the setup's N
    (``shares`` per worker, ``need``, tree ``n, L, s``, ``w``, ``p``, groups ...) from
    ``make(setup, name)``; ``runtime`` names its MPI engine in
    :data:`codedlib.runtime.registry.SCHEMES`; it applies from ``workers[0]`` to
    ``workers[1]`` workers; ``timing``: star, tree, ring or allreduce."""

    name: str
    title: str
    paper: str
    engine: str
    make: Callable
    runtime: str | None = None
    workers: tuple = (1, math.inf)
    timing: str = "star"

    def layout(self, setup: Shootout) -> dict:
        return self.make(setup, self.name)

    def applies(self, setup: Shootout) -> bool:
        return self.workers[0] <= setup.n_workers <= self.workers[1]


@dataclass(frozen=True)
class Shootout:
    """One cluster, one stand-in problem, one target: the setting every scheme runs in.

    ``target``: relative gap ``(F(θ) - F*) / (F(θ0) - F*)`` to reach; ``stragglers``: share of
    workers the star codes and SGD do without (``S = max(1, round(f N))``); ``w_fraction``:
    SAG/DSAG wait for ``ceil(f N)`` fresh results; ``subpartitions`` (DSAG eq. 5), ``margin``
    (Sec. V-A); ``redundancy`` r, ``group_size`` N/G, ``xi``, ``history`` D (LAGC); ``tree``:
    CodedReduce's ``(n, L)`` (default: tuned). ``tune=False`` uses the given sizes (SAG/DSAG
    still tune their step) and the cluster's own moments for DSAG-LB and the split (an oracle)."""

    cluster: ClusterModel
    problem: LeastSquares | None = None
    target: float = 1e-4
    max_iter: int = 300
    stragglers: float = 0.1
    tree_s: int = 1
    w_fraction: float = 0.5
    subpartitions: int = 4
    margin: float = 0.02
    redundancy: int = 2
    group_size: int = 4
    xi: float = 0.01
    history: int = 10
    tree: tuple | None = None
    tune: bool = True

    def __post_init__(self):
        if not isinstance(self.cluster, ClusterModel):
            raise TypeError(f"cluster must be a ClusterModel, got {type(self.cluster).__name__}")
        N = self.cluster.n_workers
        if self.problem is None:
            object.__setattr__(self, "problem", shootout_problem(N))
            self.__dict__["_default_problem"] = True
        elif not isinstance(self.problem, LeastSquares):
            raise TypeError(f"problem must be a LeastSquares, got {type(self.problem).__name__}")
        for name in ("subpartitions", "max_iter", "tree_s", "redundancy", "group_size", "history"):
            check_int(name, getattr(self, name), 0 if name == "tree_s" else 1)
        if self.problem.n_samples < N * self.subpartitions:
            raise ValueError(
                f"problem must have at least N * subpartitions = {N * self.subpartitions} rows, "
                f"got n_samples={self.problem.n_samples}"
            )
        check_real("target", self.target, 0.0, 1.0, low_open=True, high_open=True)
        check_real("stragglers", self.stragglers, 0.0, 1.0, high_open=True)
        check_real("w_fraction", self.w_fraction, 0.0, 1.0, low_open=True)
        check_real("margin", self.margin, 0.0)
        check_real("xi", self.xi, 0.0)
        if self.tree is not None:
            if not (isinstance(self.tree, tuple) and len(self.tree) == 2):
                raise ValueError(f"tree must be a tuple (n, L), got tree={self.tree!r}")
            n = check_int("tree n", self.tree[0], self.tree_s + 1)
            L = check_int("tree L", self.tree[1], 1)
            if n_tree_workers(n, L) > N:
                raise ValueError(f"tree must satisfy n + ... + n^L <= N={N}, got tree=({n}, {L})")
        if not self.history * self.xi < 1:
            raise ValueError(f"xi must satisfy history * xi < 1, got xi={self.xi}")

    def __getstate__(self):
        # the default problem travels as its recipe (seeded: rebuilt bit for bit), so a
        # process gets the setting and its cache, not N * 8 rows
        state = self.__dict__.copy()
        if state.get("_default_problem"):
            state["problem"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self.problem is None:
            self.__dict__["problem"] = shootout_problem(self.cluster.n_workers)

    @property
    def n_workers(self) -> int:
        return self.cluster.n_workers

    def with_max_iter(self, max_iter: int) -> Shootout:
        """The same setting (problem, cache of F* and L) simulated for ``max_iter`` iterations."""
        if max_iter == self.max_iter:
            return self
        other = replace(self, max_iter=max_iter)
        other.__dict__["_cache"] = {
            k: v
            for k, v in self.__dict__.get("_cache", {}).items()
            if k in ("smoothness", "f_star", "f0") or (isinstance(k, tuple) and k[0] == "gd_gaps")
        }
        return other

    @property
    def n_stragglers(self) -> int:
        N = self.n_workers
        return min(N - 1, max(1, round(self.stragglers * N))) if N > 1 else 0

    @property
    def bounds(self) -> np.ndarray:
        return even_partition(self.problem.n_samples, self.n_workers)

    @property
    def smoothness(self) -> float:
        """L of F (mean loss)."""
        return _cached(self, "smoothness", lambda: self.problem.smoothness())

    @property
    def f_star(self) -> float:
        return _cached(self, "f_star", lambda: self.problem.loss(self.problem.optimum()))

    @property
    def theta0(self) -> np.ndarray:
        return np.zeros(self.problem.dim)

    def relative_gap(self, theta: np.ndarray) -> float:
        f0 = _cached(self, "f0", lambda: self.problem.loss(self.theta0) - self.f_star)
        return (self.problem.loss(theta) - self.f_star) / f0


def _cached(obj, key, compute):
    cache = obj.__dict__.setdefault("_cache", {})
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def tree_candidates(n_workers: int, s: int = 1) -> list[tuple[int, int]]:
    """Candidate (n, L)-regular trees with ``n + ... + n^L <= N`` and ``n > s``, ``n >= 2``
    (CodedReduce on N machines leaves the rest idle): for each depth L the narrowest
    (``max(2, s + 1)``), the powers of two between and the widest.

    >>> tree_candidates(12)
    [(2, 1), (4, 1), (8, 1), (12, 1), (2, 2), (3, 2)]
    """
    n_workers = check_int("n_workers", n_workers, 2)
    s = check_int("s", s, 0)
    narrow = max(2, s + 1)
    out = []
    L = 1
    while n_tree_workers(narrow, L) <= n_workers:
        wide = narrow
        while n_tree_workers(wide + 1, L) <= n_workers:
            wide += 1
        widths = {narrow, wide} | {2**k for k in range(1, wide.bit_length()) if narrow < 2**k}
        out += [(n, L) for n in sorted(widths) if n <= wide]
        L += 1
    if not out:
        raise ValueError(f"n_workers={n_workers} is too small for a tree with s={s}")
    return out


#: The S grid of the star codes and SGD: these shares of N (rounded up) and 0, 1, 2.
S_FRACTIONS = (0.01, 0.05, 0.1, 0.2)
#: The w grid of SAG/DSAG: these shares of N (rounded up).
W_FRACTIONS = (0.25, 0.5, 0.75)
#: Step sizes (times 1/L) SAG and DSAG choose from; stale gradients may need less than GD's 1/L.
STEP_GRID = (1.0, 0.5, 0.25, 0.125)
#: Largest group size the LAG family's grid tries (divisors of N up to it).
MAX_GROUP = 12
#: Iterations of the pilot draw (seed ``_PILOT_SEED``) every scheme is tuned on.
PILOT_ITERATIONS = 20
_PILOT_SEED = 1_000_003


def tune(setup: Shootout, name: str, candidates: Sequence[dict]) -> dict:
    """The one tuning rule (ours) of every scheme's free parameter: the first of the
    ``candidates`` (layouts) with the least time to target on the pilot draw (the first
    :data:`PILOT_ITERATIONS` iterations of a seed no reported run uses), projected from the
    pilot's own rate where it does not reach the target. Grids: S (GC/RS/MDS/SGD), (w, step)
    (SAG/DSAG), the CodedReduce tree, the group size (LAGC, G-LAG, G-GD)."""

    def compute():
        scheme, factors = SCHEMES[name], _pilot_factors(setup)
        pilot = setup.with_max_iter(factors.shape[0])
        runs = (
            _ENGINES[scheme.engine](pilot, scheme, dict(lay), factors, _PILOT_SEED)
            for lay in candidates
        )
        keys = [(_projected_time(run, setup.target), run.gaps[-1]) for run in runs]
        return candidates[keys.index(min(keys))]

    return dict(_cached(setup, ("tuned", name), compute))


def _projected_time(run, target) -> float:
    """Time to ``target`` on the pilot, or, if not reached, the pilot's clock time scaled by
    ``log(target) / log(final gap)`` (its own linear rate extrapolated); inf if no progress."""
    reached = run.time_to(target)
    gap = run.gaps[-1]
    if np.isfinite(reached) or not (0.0 < gap < 1.0):
        return reached
    return float(run.times.sum()) * math.log(target) / math.log(gap)


def _pilot_factors(setup):
    n = min(setup.max_iter, PILOT_ITERATIONS)
    return _cached(setup, "pilot", lambda: setup.cluster.factors(n, _PILOT_SEED))


def _tuned_step(setup, scheme, lay) -> float:
    """The step of :data:`STEP_GRID` with the least time to target on a pilot seed that no
    reported run uses (the least final gap if none reaches it)."""

    def compute():
        factors = setup.cluster.factors(setup.max_iter, _PILOT_SEED)
        runs = [
            _run_event(setup, scheme, {**lay, "step": step}, factors, _PILOT_SEED)
            for step in STEP_GRID
        ]
        keys = [
            (r.time_to(setup.target), r.gaps[-1] if np.isfinite(r.gaps[-1]) else math.inf)
            for r in runs
        ]
        return STEP_GRID[keys.index(min(keys))]

    return _cached(setup, ("step", scheme.name), compute)


def _s_layout(setup, name):
    """SGD, GC, RS-GC or MDS-coded data at S stragglers: the first ``N - S`` messages."""
    N = setup.n_workers

    def make(S):
        if name == "sgd":
            return {"shares": np.ones(N), "need": N - S, "S": S}
        shares = np.ones(N) * N / (N - S) if name == "mds" else np.ones(N) * (S + 1)
        # S = 0: every partial gradient arrives, nothing to decode (a plain sum, as GD)
        decoder = ("rs" if name == "rs" else "mds") if S else None
        return {"shares": shares, "need": N - S, "decoder": decoder, "S": S}

    if not setup.tune:
        return make(setup.n_stragglers)
    grid = {0, 1, 2} | {math.ceil(f * N) for f in S_FRACTIONS}
    return tune(setup, name, [make(S) for S in sorted(grid) if S < N])


def _pilot_moments(setup):
    """Per-worker mean and variance of one share's time, from the pilot draw (what a
    profiler would measure) or, if the setup does not tune, the cluster's own (oracle)."""
    c = setup.cluster
    if not setup.tune:
        mean = c.mean_share_times()
        return mean, (mean * min(c.cv, 10.0)) ** 2
    times = c.share_time * _pilot_factors(setup)
    return times.mean(axis=0), times.var(axis=0, ddof=1)


def _het_layout(setup, _name):
    """Shares proportional to each worker's speed (the stream paper's heterogeneous split)."""
    speed = 1.0 / _pilot_moments(setup)[0]
    return {"shares": setup.n_workers * speed / speed.sum(), "need": setup.n_workers}


def _tree_layout(setup, _name):
    if setup.tree is not None:
        return _tree_shares(setup, *setup.tree)
    cands = tree_candidates(setup.n_workers, setup.tree_s)
    return tune(setup, "cr", [_tree_shares(setup, n, L) for n, L in cands])


def _tree_shares(setup, n, L):
    s = setup.tree_s
    N_tree = n_tree_workers(n, L)
    shares = np.zeros(setup.n_workers)
    shares[:N_tree] = float(r_cr(n, s, L)) * setup.n_workers
    return {"shares": shares, "n": n, "L": L, "s": s, "need": n - s, "tree_workers": N_tree}


def _sag_layout(setup, name):
    N, method, balanced = setup.n_workers, "sag" if name == "sag" else "dsag", name == "dsag-lb"

    def make(w):
        w = min(N, math.ceil(w * N - 1e-9))
        p = np.full(N, setup.subpartitions)
        if balanced:
            p = _cached(setup, ("lb", w), lambda: _balanced_subpartitions(setup, w))
        return {"shares": 1.0 / p, "w": w, "p": p, "method": method, "margin": setup.margin}

    if not setup.tune:
        lay = make(setup.w_fraction)
        return {**lay, "step": _tuned_step(setup, SCHEMES[name], lay)}
    return tune(setup, name, [{**make(f), "step": step} for f in W_FRACTIONS for step in STEP_GRID])


def _balanced_subpartitions(setup, w):
    """DSAG-LB (Section VI): Algorithm 1 on the workers' means and variances estimated from
    the pilot draw (:func:`_pilot_moments`)."""
    from codedlib.schemes.dsag import optimize_subpartitions

    comp_mean, comp_var = _pilot_moments(setup)
    comm = np.full(setup.n_workers, setup.cluster.message_time)
    p0 = np.full(setup.n_workers, setup.subpartitions, dtype=np.int64)
    kw = {"n_iterations": 50, "rng": 0, "semantics": "deadline"}
    rows, comm_var = np.diff(setup.bounds), (comm * 1e-3) ** 2
    p, _ = optimize_subpartitions(p0, rows, comm, comm_var, comp_mean, comp_var, w, **kw)
    return np.asarray(p, dtype=np.int64)


def _lazy_layout(setup, scheme):
    N, r = setup.n_workers, setup.redundancy
    if scheme == "lag":
        return _lazy_sizes(setup, scheme, 1, N)
    if not setup.tune:
        fixed = setup.group_size if scheme == "lagc" else r
        fixed = fixed if N % fixed == 0 else N
        return _lazy_sizes(setup, scheme, min(r, fixed), N // fixed)
    sizes = [g for g in range(2 if scheme == "lagc" else 1, min(N, MAX_GROUP) + 1) if N % g == 0]
    grid = [
        _lazy_sizes(setup, scheme, min(r, g) if scheme == "lagc" else g, N // g)
        for g in sizes or [N]
    ]
    return tune(setup, scheme, grid)


def _lazy_sizes(setup, scheme, r, G):
    """LAGC's layout with r partitions per worker and G groups (G-LAG/G-GD: N/G = r)."""
    lay = lagc_layout(setup.n_workers, r, G)
    return {
        "groups": lay.n_groups,
        "group_size": lay.workers_per_group,
        "stored": lay.stored_per_worker,
        "need": lay.wait_for,
        "shares": np.full(setup.n_workers, float(lay.stored_per_worker)),
        "xi": 0.0 if scheme == "g-gd" else setup.xi,
        "history": setup.history,
    }


def _allreduce_layout(setup, name):
    """Every worker one share; the all-reduce waits for all of them (no straggler tolerance)."""
    c = setup.cluster
    if name == "mpi-allreduce":
        name = mpich_allreduce_algorithm(c.n_workers, c.workload.dim, c.network.bytes_per_number)
    algorithm = "recursive-doubling" if name == "rd" else name
    return {"shares": np.ones(setup.n_workers), "need": setup.n_workers, "algorithm": algorithm}


def _gd_layout(setup, _name):
    return {"shares": np.ones(setup.n_workers), "need": setup.n_workers}


_S = ShootoutScheme
_mpich = partial(_S, paper="MPI", engine="exact", make=_allreduce_layout, timing="allreduce")
#: Every scheme: name, title, paper(s), engine, layout, MPI engine, the N it applies at, timing.
_TABLE = (
    _S("gd", "GD / uncoded master-worker (UMW)", "CR, LAGC", "exact", _gd_layout, "umw"),
    _S("sgd", "ignore-stragglers SGD (first N - S, rescaled)", "CR, DSAG", "sgd", _s_layout, "sgd"),
    _S("gc", "Tandon gradient code (cyclic repetition)", "CR, RS, LAGC", "exact", _s_layout, "gc"),
    _S("rs", "Reed-Solomon gradient code (online decoding)", "RS", "exact", _s_layout, "rs"),
    _S("mds", "MDS-coded data (least squares only)", "RS, DSAG", "exact", _s_layout),
    _S("cr", "CodedReduce tree", "CR", "exact", _tree_layout, "cr", (3, math.inf), "tree"),
    _S("rar", "Ring-AllReduce", "CR", "exact", _gd_layout, "rar", timing="ring"),
    _mpich("rd", "Recursive-doubling all-reduce (MPICH)"),
    _mpich("rabenseifner", "Rabenseifner all-reduce (MPICH)"),
    _mpich("binomial", "Binomial-tree reduce + broadcast (MPICH)"),
    _mpich("mpi-allreduce", "MPI_Allreduce (MPICH's default choice)", runtime="rar"),
    _S("het-split", "GD with speed-proportional load split", "stream", "exact", _het_layout),
    _S("sag", "SAG (w of N, fresh results only)", "DSAG", "event", _sag_layout),
    _S("dsag", "DSAG (w of N, stale results kept)", "DSAG", "event", _sag_layout, "dsag"),
    _S("dsag-lb", "DSAG with the load balancer", "DSAG", "event", _sag_layout, "dsag-lb", (1, 500)),
    _S("lag", "LAG (lazy uploads, parameter server)", "LAGC", "lazy", _lazy_layout),
    _S("lagc", "LAGC (lazy groups, GC inside)", "LAGC", "lazy", _lazy_layout, "lagc"),
    _S("g-lag", "G-LAG (lazy groups, fastest worker each)", "LAGC", "lazy", _lazy_layout, "g-lag"),
    _S("g-gd", "G-GD (every group, fastest worker each)", "LAGC", "lazy", _lazy_layout),
)
SCHEMES: dict[str, ShootoutScheme] = {s.name: s for s in _TABLE}


def get_scheme(name: str) -> ShootoutScheme:
    """The shoot-out scheme called ``name`` (ours), or a ValueError listing the names."""
    try:
        return SCHEMES[name]
    except (KeyError, TypeError):
        raise ValueError(f"scheme must be one of {list(SCHEMES)}, got scheme={name!r}") from None


def chosen_parameters(setup: Shootout, name: str) -> str:
    """The free parameters scheme ``name`` runs with at ``setup`` (after :func:`tune`; ours)."""
    lay = get_scheme(name).layout(setup)
    shown = {"S": "S={}", "w": "w={}", "step": "step={:g}/L", "group_size": "group={}"}
    parts = [f.format(lay[k]) for k, f in shown.items() if k in lay and name != "lag"]  # group 1
    if "algorithm" in lay:
        parts.append(lay["algorithm"])
    if "n" in lay:
        parts.append(f"tree ({lay['n']}, {lay['L']})")
    return ", ".join(parts)


def iteration_times(name: str, setup: Shootout, factors: ArrayLike) -> np.ndarray:
    """Seconds per iteration ``(T,)`` (each paper's timing model, e.g. CR Sec. IV) of an exact
    or SGD scheme for straggling ``factors (T, N)``; also predicts real runs."""
    scheme = get_scheme(name)
    if scheme.engine not in ("exact", "sgd"):
        raise ValueError(f"iteration_times needs an exact or sgd scheme, got scheme={name!r}")
    return _clock(setup, scheme, scheme.layout(setup), np.asarray(factors, dtype=float))


# ------------------------------------------------------------------------------ results
@dataclass
class SchemeRun:
    """One scheme, one seed: per-iteration ``times``, ``messages`` (received by the master or
    parents), ``numbers`` (communicated, uploads + downloads), ``shares`` (computed), ``gaps``
    (relative optimality gap before each iteration and after the last) and its ``layout``."""

    scheme: str
    seed: int
    times: np.ndarray
    gaps: np.ndarray
    messages: np.ndarray
    numbers: np.ndarray
    shares: np.ndarray
    layout: dict

    def iterations_to(self, target: float) -> float:
        """First iteration count whose iterate has gap ``<= target`` (inf if none)."""
        hits = np.flatnonzero(self.gaps <= target)
        return float(hits[0]) if hits.size else math.inf

    def time_to(self, target: float) -> float:
        """Clock time at the first iterate with gap ``<= target`` (inf if not reached)."""
        k = self.iterations_to(target)
        return math.inf if math.isinf(k) else float(self.times[: int(k)].sum())

    def summary(self, target: float) -> dict:
        """Tidy row: time, iterations, communication and computation to ``target`` and per
        iteration."""
        k = self.iterations_to(target)
        reached = not math.isinf(k)
        return {
            "scheme": self.scheme,
            "seed": self.seed,
            "time_to_target": self.time_to(target),
            "iterations_to_target": k,
            "reached": reached,
            "time_per_iteration": float(self.times.mean()),
            "numbers_to_target": float(self.numbers[: int(k)].sum()) if reached else math.inf,
            "numbers_per_iteration": float(self.numbers.mean()),
            "shares_per_iteration": float(self.shares.mean()),
            "final_gap": float(self.gaps[-1]),
        }


# ------------------------------------------------------------------------------ engines
def _gd_trajectory(setup: Shootout, n_iter: int) -> np.ndarray:
    def compute():
        theta = setup.theta0.copy()
        gaps = [setup.relative_gap(theta)]
        for _ in range(n_iter):
            theta = theta - 1.0 / setup.smoothness * setup.problem.gradient(theta)
            gaps.append(setup.relative_gap(theta))
        return np.array(gaps)

    return _cached(setup, ("gd_gaps", n_iter), compute)


def _run_exact(setup, scheme, lay, factors, seed):
    """Messages received and numbers sent per iteration (both directions) of an exact scheme."""
    N, dim = setup.n_workers, setup.cluster.workload.dim
    if scheme.timing == "ring":
        messages, numbers = 2.0 * (N - 1) * N, 2.0 * (N - 1) * dim + N * dim
    elif scheme.timing == "allreduce" and lay["algorithm"] == "binomial":
        messages, numbers = 2.0 * (N - 1), 2.0 * (N - 1) * dim
    elif scheme.timing == "allreduce":  # butterflies, with the r = N - pof2 ranks folded in
        pof2 = 1 << (N.bit_length() - 1)
        rounds, fold = pof2.bit_length() - 1, 2.0 * (N - pof2)
        rab = lay["algorithm"] == "rabenseifner"
        messages = (1 + rab) * pof2 * rounds + fold
        numbers = (2.0 * (pof2 - 1) + fold if rab else messages) * dim
    elif scheme.timing == "tree":
        N_tree = lay["tree_workers"]
        messages, numbers = (lay["n"] - lay["s"]) * (N_tree // lay["n"]) * 1.0, 2.0 * N_tree * dim
    else:
        messages, numbers = float(lay["need"]), (lay["need"] + N) * float(dim)
    gaps = _gd_trajectory(setup, factors.shape[0])
    times = _clock(setup, scheme, lay, factors)
    return _steady_run(scheme, seed, lay, times, gaps, messages, numbers, lay["shares"].sum())


def _steady_run(scheme, seed, lay, times, gaps, *per_iteration):
    """The run whose messages, numbers and shares are the same in every iteration."""
    steady = (np.full(times.size, float(v)) for v in per_iteration)
    return SchemeRun(scheme.name, seed, times, gaps, *steady, lay)


def _run_sgd(setup, scheme, lay, factors, seed):
    c, N, need, T = setup.cluster, setup.n_workers, lay["need"], factors.shape[0]
    comp = c.compute_times(lay["shares"], T, factors=factors)
    fastest = np.argpartition(comp, need - 1, axis=1)[:, :need]
    bounds, problem = setup.bounds, setup.problem
    theta = setup.theta0.copy()
    gaps = [setup.relative_gap(theta)]
    for t in range(T):
        grads = problem.partition_gradients(theta, bounds)
        g = grads[fastest[t]].sum(axis=0) * (N / need) / problem.n_samples
        theta = theta - 1.0 / setup.smoothness * g
        gaps.append(setup.relative_gap(theta))
    times, numbers = _clock(setup, scheme, lay, factors), (need + N) * float(c.workload.dim)
    return _steady_run(scheme, seed, lay, times, np.array(gaps), need, numbers, N)


def _range_gradients(problem, theta, first, rows):
    """``Σ ∇f_i`` over rows ``first[j] .. first[j] + rows[j] - 1`` for each j (increasing,
    disjoint, non-empty ranges): ``problem.partition_gradients(theta, bounds)[sub]`` for
    those ranges, computed on their rows only."""
    ends = np.cumsum(rows)
    starts = ends - rows
    idx = np.arange(ends[-1]) + np.repeat(first - starts, rows)
    X = problem.X[idx]
    terms = X * (X @ theta - problem.y[idx])[:, None]
    # reduceat along the last axis of the transpose: the same sums, several times faster
    out = np.add.reduceat(terms.T, starts, axis=1).T
    if problem.lam:
        out += problem.lam * rows[:, None] * theta
    return out


def _run_event(setup, scheme, lay, factors, seed):
    """DSAG Section V-A coordinator (deadline rule) with a single-port master, vectorised."""
    c, problem, tau = setup.cluster, setup.problem, setup.cluster.message_time
    N, w, margin, method = setup.n_workers, lay["w"], lay["margin"], lay["method"]
    # sub-partition boundaries: worker i's rows split evenly into p_i parts (DSAG eq. 5)
    # (even_partition of each worker's rows, for all workers at once: the larger parts first)
    wb = setup.bounds
    p = np.asarray(lay["p"], dtype=np.int64)
    offsets = np.cumsum(p) - p
    owner = np.repeat(np.arange(N), p)
    part = np.arange(owner.size) - offsets[owner] + 1  # 1..p_i
    base, extra = np.divmod(np.diff(wb)[owner], p[owner])
    sub_bounds = np.concatenate([[0], wb[owner] + part * base + np.minimum(part, extra)])
    sub_rows = np.diff(sub_bounds)
    cache, cache_iter = np.zeros((sub_rows.size, problem.dim)), np.full(sub_rows.size, -1)
    H, covered = np.zeros(problem.dim), 0
    # pending (stale) results per worker: when they reach the port, the gradient, its sub, its t
    pend, pend_time, pend_grad = np.zeros(N, dtype=bool), np.zeros(N), np.zeros((N, problem.dim))
    next_sub, pend_sub, pend_iter = (np.zeros(N, dtype=np.int64) for _ in range(3))
    busy = np.zeros(N)
    theta = setup.theta0.copy()
    eta = lay.get("step", 1.0) / setup.smoothness
    start, port_free = 0.0, 0.0
    T = factors.shape[0]
    times, gaps = np.zeros(T), [setup.relative_gap(theta)]
    messages, shares_done = np.zeros(T), np.zeros(T)
    task_time = c.compute_times(lay["shares"], T, factors=factors)  # (T, N)
    for t in range(T):
        sub = offsets + next_sub
        grads_now = _range_gradients(problem, theta, sub_bounds[sub], sub_rows[sub])  # task t
        begin = np.maximum(start, busy)
        done = begin + task_time[t]
        # arrivals at the port: stale pending results and this iteration's fresh ones
        arrive = np.concatenate([np.where(pend, pend_time, np.inf), done])
        order = np.argsort(arrive, kind="stable")
        a = arrive[order]
        finite = np.isfinite(a)  # never-sent results sort last
        recv = _port_schedule(a, tau, port_free)
        T_w = recv[np.flatnonzero((order >= N) & finite)[w - 1]]  # the w-th fresh result
        deadline = T_w + margin * (T_w - start)
        delivered_sorted = finite & (a <= deadline)
        got = np.zeros(2 * N, dtype=bool)
        got[order[delivered_sorted]] = True
        stale_got, fresh_got = got[:N] & pend, got[N:]
        port_free = float(recv[delivered_sorted].max()) if delivered_sorted.any() else port_free
        # the cache (Section V): stale first, then fresh (newer wins)
        deliveries = []
        if method == "dsag":
            idx = np.flatnonzero(stale_got)
            deliveries.append((pend_sub[idx], pend_iter[idx], pend_grad[idx]))
        idx = np.flatnonzero(fresh_got)
        deliveries.append((sub[idx], np.full(idx.size, t), grads_now[idx]))
        for subs, iters, gs in deliveries:
            newer = iters > cache_iter[subs]
            subs, iters, gs = subs[newer], iters[newer], gs[newer]
            covered += int(sub_rows[subs][cache_iter[subs] < 0].sum())
            H += gs.sum(axis=0) - cache[subs].sum(axis=0)
            cache[subs], cache_iter[subs] = gs, iters
        messages[t] = got.sum()
        # workers that started task t (deadline rule): busy until it is done
        started = begin <= deadline
        pend = (pend & ~stale_got) | (started & ~fresh_got)
        new_pending = started & ~fresh_got
        pend_time[new_pending] = done[new_pending]
        pend_grad[new_pending] = grads_now[new_pending]
        pend_sub[new_pending] = sub[new_pending]
        pend_iter[new_pending] = t
        busy = np.where(started, done, busy)
        next_sub = np.where(started, (next_sub + 1) % p, next_sub)
        shares_done[t] = lay["shares"][started].sum()
        # the coordinator sums what it received before it steps (as the exact schemes' master)
        end = deadline + _decode_time(c, int(messages[t]), None)
        times[t] = end - start
        start = end
        theta = theta - eta * H / covered
        gaps.append(setup.relative_gap(theta))
    numbers = (messages + N) * float(c.workload.dim)
    return SchemeRun(scheme.name, seed, times, np.array(gaps), messages, numbers, shares_done, lay)


def _group_smoothness(setup, n_groups):
    """Smoothness of each group's sum loss (LAGC's L_g) over the rows of its workers'
    partitions (as in LAGC's Algorithm 1), batched eigenvalues; the ridge adds ``lam`` per row."""
    X = setup.problem.X
    bounds = setup.bounds[:: setup.n_workers // n_groups]
    rows = np.diff(bounds)
    if np.all(rows == rows[0]):
        Xg = X.reshape(n_groups, rows[0], X.shape[1])
        gram = Xg @ Xg.transpose(0, 2, 1) if rows[0] <= X.shape[1] else Xg.transpose(0, 2, 1) @ Xg
        return np.linalg.eigvalsh(gram)[:, -1] + setup.problem.lam * rows[0], bounds
    top = [setup.problem.smoothness(a, b) * (b - a) for a, b in zip(bounds[:-1], bounds[1:])]
    return np.array(top), bounds


def _lazy_trajectory(setup, G, xi, D, T):
    """The lazy engine's seed-free part, cached per setup: the groups eq. (17) selects at
    each of ``T`` iterations ``(T, G)`` and the gaps (the selection never sees the clock)."""

    def compute():
        problem = setup.problem
        L_total = problem.n_samples * setup.smoothness
        alpha = lag_stepsize(L_total, xi, D) if xi > 0 else 1.0 / L_total
        L_g, gbounds = _group_smoothness(setup, G)
        coef = xi / (alpha**2 * G**2)
        theta = setup.theta0.copy()
        theta_hat = np.repeat(theta[None, :], G, axis=0)
        stale = np.zeros((G, problem.dim))
        steps: list[float] = []
        selected, gaps = np.zeros((T, G), dtype=bool), [setup.relative_gap(theta)]
        for k in range(T):
            if k == 0 or xi == 0.0:
                chosen = np.ones(G, dtype=bool)
            else:
                diff = theta_hat - theta[None, :]
                rhs = coef * (sum(steps[-D:]) if steps else 0.0)
                chosen = L_g**2 * np.einsum("ij,ij->i", diff, diff) > rhs
            if chosen.any():
                grads = problem.partition_gradients(theta, gbounds)
                stale[chosen] = grads[chosen]
                theta_hat[chosen] = theta
            selected[k] = chosen
            new_theta = theta - alpha * stale.sum(axis=0)
            step = new_theta - theta
            steps.append(float(step @ step))
            theta = new_theta
            gaps.append(setup.relative_gap(theta))
        return selected, np.array(gaps)

    return _cached(setup, ("lazy", G, xi, D, T), compute)


def _run_lazy(setup, scheme, lay, factors, seed):
    """LAGC Algorithm 1 over groups (LAG: groups of one; G-LAG/G-GD: no coding)."""
    c = setup.cluster
    G, n_g = lay["groups"], lay["group_size"]
    need, tau = lay["need"], c.message_time
    T = factors.shape[0]
    selected, gaps = _lazy_trajectory(setup, G, lay["xi"], lay["history"], T)
    times, messages, numbers, shares = np.zeros(T), np.zeros(T), np.zeros(T), np.zeros(T)
    comp = c.compute_times(lay["shares"], T, factors=factors).reshape(T, G, n_g)
    for k in range(T):
        chosen = selected[k]
        if chosen.any():
            ready = np.where(chosen[:, None], comp[k], np.inf)
            # the port is done when every chosen group has `need` messages in
            quota = np.partition(ready[chosen], need - 1, axis=1)[:, need - 1].max()
            flat = ready.ravel()
            n_in = int((flat <= quota).sum())
            times[k] = port_receive(flat, n_in, tau) + _decode_time(c, need, None) * chosen.sum()
            messages[k] = n_in
        n_sel = int(chosen.sum())
        numbers[k] = (messages[k] + n_sel * n_g) * c.workload.dim
        shares[k] = n_sel * n_g * lay["stored"]
    return SchemeRun(scheme.name, seed, times, gaps, messages, numbers, shares, lay)


_ENGINES = {"exact": _run_exact, "sgd": _run_sgd, "event": _run_event, "lazy": _run_lazy}


def _prepare(setup: Shootout, names: Sequence[str]) -> None:
    """Tune the schemes ``names`` at ``setup`` and compute their seed-free parts (GD's and the
    lazy engine's trajectories) once, cached on the setup every seed's process gets."""
    for name in names:
        scheme = SCHEMES[name]
        lay = scheme.layout(setup)
        if scheme.engine == "exact":
            _gd_trajectory(setup, setup.max_iter)
        elif scheme.engine == "lazy":
            _lazy_trajectory(setup, lay["groups"], lay["xi"], lay["history"], setup.max_iter)


def simulate(
    setup: Shootout, name: str, seed: int = 0, factors: ArrayLike | None = None
) -> SchemeRun:
    """Run scheme ``name`` of :data:`SCHEMES` (ours: one engine for every paper's scheme) for
    ``setup.max_iter`` iterations on the straggling ``factors (max_iter, N)`` (default
    ``setup.cluster.factors(max_iter, seed)``)."""
    scheme = get_scheme(name)
    if not isinstance(setup, Shootout):
        raise TypeError(f"setup must be a Shootout, got {type(setup).__name__}")
    if not scheme.applies(setup):
        raise ValueError(f"scheme {name!r} does not apply at N={setup.n_workers}")
    seed = check_int("seed", seed, 0)
    if factors is None:
        factors = setup.cluster.factors(setup.max_iter, seed)
    factors = np.asarray(factors, dtype=float)
    if factors.shape != (setup.max_iter, setup.n_workers):
        raise ValueError(
            f"factors must have shape (max_iter, N) = ({setup.max_iter}, {setup.n_workers}), "
            f"got shape {factors.shape}"
        )
    if not np.all(np.isfinite(factors) & (factors >= 0)):
        raise ValueError("factors must be finite and >= 0")
    lay = scheme.layout(setup)
    return _ENGINES[scheme.engine](setup, scheme, lay, factors, seed)


def lagc_reference_run(setup: Shootout, name: str) -> lagc.SchemeRun:
    """The LAGC module's own run (LAGC Sections III-IV, :mod:`codedlib.schemes.lagc`) of a lazy
    scheme on the shoot-out's problem and sizes, whose trajectory (gaps, groups selected) the
    ``lazy`` engine must reproduce (its delays are its own)."""
    from scipy import stats

    from codedlib.schemes import lagc

    if name not in ("lag", "lagc", "g-lag", "g-gd"):
        raise ValueError(f"name must be a lazy scheme (lag, lagc, g-lag, g-gd), got name={name!r}")
    N, p = setup.n_workers, setup.problem
    kw = {"delay": stats.expon(), "max_iter": setup.max_iter, "rng": 0}
    lazy = {"xi": setup.xi, "history": setup.history}
    if name == "lag":
        return lagc.run_lag_ps(p, N, **lazy, **kw)
    if name == "lagc":
        return lagc.run_lagc(p, N, setup.redundancy, N // setup.group_size, **lazy, **kw)
    if name == "g-lag":
        return lagc.run_g_lag(p, N, setup.redundancy, **lazy, **kw)
    return lagc.run_g_gd(p, N, setup.redundancy, **kw)
