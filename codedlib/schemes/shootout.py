"""Every scheme of the five papers on one cluster, one problem, one clock (notebook 06).

Each scheme is one entry of :data:`SCHEMES`: its paper, what each worker computes (shares of
the data), whom the master waits for, how the result travels (star, ring or tree over the one
:class:`codedlib.network.Network` of the :class:`codedlib.cluster.ClusterModel`) and which
update it makes. Four engines run them, vectorised over workers, so ``N = 10,000`` workers
for 100 iterations take seconds:

* ``exact`` -- the master (or the tree root, or the ring) ends up with the exact full gradient
  and steps ``θ ← θ - ∇F(θ)/L``: GD/UMW, Tandon GC, Reed–Solomon GC, MDS-coded, CodedReduce,
  RAR and the heterogeneous load split. Their iterates are the same; only the clock differs.
* ``sgd`` -- ignore-stragglers SGD: the first ``N - S`` partial gradients received, rescaled.
* ``event`` -- SAG and DSAG (with or without the load balancer's sub-partitions): the
  event-driven coordinator of DSAG Section IV-B/V-A (``semantics="deadline"``, what our MPI
  coordinator does) with the cluster's single-port master.
* ``lazy`` -- LAG, LAGC, G-LAG, G-GD: the selection rule (eq. 17) of LAGC over groups with
  cyclic GC inside a group (LAGC Algorithm 1).

All schemes of one seed share the same straggling draws (common random numbers, one
``ClusterModel.factors`` array) and the same stand-in problem (:func:`shootout_problem`).
Every master sums what it receives (``dim`` FLOPs per message at ``master_flop_time``);
the event engine counts a result as delivered when it reaches the master's port by the
deadline, and the port's reception of it (``message_time``) delays the next receptions.
Model download is not charged to the clock (the papers' own timing models charge the
aggregation only); it is counted in the communication volume.

Examples
--------
>>> from codedlib.cluster import ClusterModel
>>> setup = Shootout(ClusterModel(n_workers=12), max_iter=60)
>>> run = simulate(setup, "gc", seed=0)
>>> run.scheme, run.times.shape, bool(run.gaps[-1] < run.gaps[0])
('gc', (60,), True)

References
----------
.. [CR] A. Reisizadeh, S. Prakash, R. Pedarsani, A. S. Avestimehr, "CodedReduce: A Fast and
   Robust Framework for Gradient Aggregation in Distributed Learning", IEEE/ACM Trans.
   Networking, 2022, arXiv:1902.01981 -- Algorithm 2, Theorem 1 (r_CR), Section III-C.
.. [RS] W. Halbawi, N. Azizan, F. Salehi, B. Hassibi, "Improving Distributed Gradient Descent
   Using Reed-Solomon Codes", IEEE ISIT, 2018, arXiv:1706.05436 -- eq. (17) decoding cost.
.. [DSAG] A. Severinson, E. Rosnes, S. El Rouayheb, A. Graell i Amat, "DSAG: A Mixed
   Synchronous-Asynchronous Iterative Method for Straggler-Resilient Learning", IEEE Trans.
   Communications, 2023, arXiv:2111.13877 -- Sections IV-B, V, VI.
.. [LAGC] J. Zhang, O. Simeone, "LAGC: Lazily Aggregated Gradient Coding for Straggler-Tolerant
   and Communication-Efficient Distributed Learning", IEEE Trans. Neural Networks and Learning
   Systems 32(3), 2021, arXiv:1905.09148 -- Algorithm 1, eq. (17).
.. [STREAM] Stream coded computing with heterogeneous load splits (this project's notebook 05):
   the load split proportional to worker speed.
.. [GC] R. Tandon, Q. Lei, A. G. Dimakis, N. Karampatziakis, "Gradient Coding: Avoiding
   Stragglers in Distributed Learning", ICML (PMLR 70), 2017, arXiv:1612.03301.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from codedlib._validation import as_generator, check_int, check_real
from codedlib.cluster import ClusterModel
from codedlib.network import single_port_receive
from codedlib.problems import LeastSquares, even_partition
from codedlib.schemes.codedreduce import tree_finish
from codedlib.theory.codedreduce import n_tree_workers, r_cr
from codedlib.theory.lagc import lag_stepsize, lagc_layout
from codedlib.theory.reed_solomon import decoding_time

__all__ = [
    "SCHEMES",
    "SchemeRun",
    "ShootoutScheme",
    "Shootout",
    "choose_tree",
    "tree_candidates",
    "iteration_times",
    "lagc_reference_run",
    "port_receive",
    "shootout_problem",
    "simulate",
]


# ------------------------------------------------------------------------------ problem
def shootout_problem(
    n_partitions: int, rows: int = 8, dim: int = 20, condition: float = 20.0, rng=0
) -> LeastSquares:
    """The stand-in learning problem: least squares with ``rows`` rows per partition.

    Features ``x = z * c`` with ``z ~ N(0, I)`` and column scales ``c`` from 1 down to
    ``1/sqrt(condition)`` (so the Hessian's condition number is about ``condition``), labels
    ``y = xᵀθ* + 0.1 z'`` (CodedReduce eq. 10 with scaled columns). Least squares is linear, so
    the MDS-coded scheme applies too.

    Parameters
    ----------
    n_partitions : int
        Number of partitions (workers). Must satisfy ``1 <= n_partitions``.
    rows : int, default 8
        Rows per partition. Must satisfy ``1 <= rows``.
    dim : int, default 20
        Number of features. Must satisfy ``1 <= dim``.
    condition : float, default 20.0
        Target condition number. Must satisfy ``1.0 <= condition``.
    rng : numpy.random.Generator, int or None, default 0
        Random generator or seed.

    Returns
    -------
    LeastSquares
        ``n_partitions * rows`` rows, ``dim`` features.
    """
    n_partitions = check_int("n_partitions", n_partitions, 1)
    rows = check_int("rows", rows, 1)
    dim = check_int("dim", dim, 1)
    condition = check_real("condition", condition, 1.0)
    rng = as_generator(rng)
    scales = condition ** (-0.5 * np.linspace(0.0, 1.0, dim))
    X = rng.standard_normal((n_partitions * rows, dim)) * scales
    y = X @ rng.standard_normal(dim) + 0.1 * rng.standard_normal(X.shape[0])
    return LeastSquares(X, y)


# ------------------------------------------------------------------------------ timing
def port_receive(ready, need, tau, port_free=0.0) -> np.ndarray:
    """Single-port reception (CR Section III-C) until ``need`` messages are in, vectorised.

    ``ready (..., M)``: when each message reaches the port (``inf``: never sent); the port
    takes them in order of arrival, ``tau`` each, starting no earlier than ``port_free``:
    ``R_m = max(R_{m-1}, a_(m)) + tau``. Same as :func:`codedlib.network.single_port_receive`
    with ``port_free = 0``; ``need = 0`` gives ``port_free``.

    Parameters
    ----------
    ready : array_like
        Arrival times at the port, last axis: messages.
    need : int
        Messages to receive.
    tau : float
        Time to receive one message.
    port_free : float or array_like, default 0.0
        When the port is free.

    Returns
    -------
    numpy.ndarray
        When the ``need``-th message is in, shape ``ready.shape[:-1]``.
    """
    a = np.sort(np.asarray(ready, dtype=float), axis=-1)
    if a.ndim == 0 or np.isnan(a).any():
        raise ValueError(
            "ready must be an array of arrival times (inf: never sent), got "
            + (f"the scalar {ready!r}" if a.ndim == 0 else f"{int(np.isnan(a).sum())} NaN")
        )
    check_int("need", need, low=0, high=a.shape[-1])
    if need == 0:
        return np.broadcast_to(np.asarray(port_free, dtype=float), a.shape[:-1]).copy()
    return _port_schedule(a[..., :need], tau, port_free)[..., -1]


def _port_schedule(arrivals, tau, port_free=0.0):
    """When the port has received each of the sorted ``arrivals`` (last axis), vectorised:
    ``R_m = (m + 1) tau + max(port_free, max_{j <= m} (a_j - j tau))``."""
    m = np.arange(arrivals.shape[-1])
    return (m + 1) * tau + np.maximum(np.maximum.accumulate(arrivals - m * tau, axis=-1), port_free)


def _decode_time(cluster: ClusterModel, need: int, decoder: str | None) -> float:
    """Summing ``need`` gradients plus the decoder of RS eq. (17) at the master."""
    combine = need * cluster.workload.dim * cluster.master_flop_time
    if decoder is None:
        return combine
    return combine + float(decoding_time(need, cluster.master_flop_time, decoder))


def _star(cluster, comp, need, decoder=None):
    """The master decodes from the first ``need`` messages of its single port."""
    return single_port_receive(comp, need, cluster.message_time) + _decode_time(
        cluster, need, decoder
    )


def _ring(cluster, comp):
    """Ring all-reduce: everyone done, then ``2(N-1)`` rounds of ``dim/N``-number messages."""
    N = cluster.n_workers
    segment = cluster.network.vector_time(cluster.workload.dim / N) if N > 1 else 0.0
    return comp.max(axis=1) + 2 * (N - 1) * segment


def _tree(cluster, comp, n, L, s):
    """CodedReduce's root on the first ``n + ... + n^L`` workers (the rest idle)."""
    return tree_finish(comp[:, : n_tree_workers(n, L)], n, L, s, cluster.message_time)


def _compute(cluster, shares, factors):
    """Computation times ``(T, N)`` of ``shares`` on the drawn ``factors``."""
    return cluster.compute_times(shares, factors.shape[0], factors=factors)


def _clock(setup, scheme, lay, factors):
    """Iteration times of an exact or SGD scheme with layout ``lay``."""
    c = setup.cluster
    comp = _compute(c, lay["shares"], factors)
    if scheme.timing == "ring":
        return _ring(c, comp)
    if scheme.timing == "tree":
        return _tree(c, comp, lay["n"], lay["L"], lay["s"])
    return _star(c, comp, lay["need"], lay.get("decoder"))


# ------------------------------------------------------------------------------ entries
@dataclass(frozen=True)
class ShootoutScheme:
    """One scheme of the shoot-out.

    ``engine``: ``"exact"``, ``"sgd"``, ``"event"`` or ``"lazy"`` (module docstring).
    ``layout(setup) -> dict``: the scheme's sizes at the setup's N (``shares`` per worker,
    ``need``, ``decoder``, tree ``n, L, s``, ``w``, ``p``, groups ...). ``timing``:
    ``"star"``, ``"ring"`` or ``"tree"`` for the exact and SGD engines. ``runtime``: the name
    of its MPI engine in :data:`codedlib.runtime.registry.SCHEMES`, if any.

    Attributes
    ----------
    name, title, paper : str
        Key, one-line description, and the papers it comes from.
    engine : str
        How it runs.
    layout : callable
        ``layout(setup) -> dict``.
    timing : str
        Star, ring or tree.
    runtime : str or None
        Its MPI engine.
    applies : callable
        ``applies(setup) -> bool``: whether it runs at this setting.
    """

    name: str
    title: str
    paper: str
    engine: str
    layout: Callable
    timing: str = "star"
    runtime: str | None = None
    applies: Callable = field(default=lambda setup: True)


@dataclass(frozen=True)
class Shootout:
    """One cluster, one stand-in problem, one target: the setting every scheme runs in.

    Parameters
    ----------
    cluster : ClusterModel
        The cluster (its ``n_workers`` is N).
    problem : LeastSquares, optional
        Stand-in problem with at least one row per worker; default
        ``shootout_problem(N)``.
    target : float, default 1e-4
        Relative optimality gap ``(F(θ) - F*) / (F(θ0) - F*)`` to reach.
    max_iter : int, default 300
        Iterations simulated per scheme.
    stragglers : float, default 0.1
        Share of workers the star codes and SGD do without: ``S = max(1, round(f N))``.
    tree_s : int, default 1
        Stragglers per parent of the CodedReduce tree.
    w_fraction : float, default 0.5
        SAG/DSAG wait for ``w = ceil(f N)`` fresh results.
    subpartitions : int, default 4
        SAG/DSAG sub-partitions per worker (DSAG eq. 5).
    margin : float, default 0.02
        DSAG's wait after the w-th result (Section V-A).
    redundancy : int, default 2
        LAGC / G-LAG / G-GD partitions per worker r.
    group_size : int, default 4
        LAGC workers per group ``N/G`` (G-LAG and G-GD use ``r``).
    xi : float, default 0.01
        LAG trigger constant ξ. ``history`` D: 10.
    tree : tuple of int, optional
        CodedReduce's ``(n, L)``; default: chosen per cluster (:func:`choose_tree`).
    """

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

    def __post_init__(self):
        if not isinstance(self.cluster, ClusterModel):
            raise TypeError(f"cluster must be a ClusterModel, got {type(self.cluster).__name__}")
        N = self.cluster.n_workers
        if self.problem is None:
            object.__setattr__(self, "problem", shootout_problem(N))
        elif not isinstance(self.problem, LeastSquares):
            raise TypeError(f"problem must be a LeastSquares, got {type(self.problem).__name__}")
        check_int("subpartitions", self.subpartitions, 1)
        if self.problem.n_samples < N * self.subpartitions:
            raise ValueError(
                f"problem must have at least N * subpartitions = {N * self.subpartitions} rows, "
                f"got n_samples={self.problem.n_samples}"
            )
        check_real("target", self.target, 0.0, 1.0, low_open=True, high_open=True)
        check_int("max_iter", self.max_iter, 1)
        check_real("stragglers", self.stragglers, 0.0, 1.0, high_open=True)
        check_int("tree_s", self.tree_s, 0)
        check_real("w_fraction", self.w_fraction, 0.0, 1.0, low_open=True)
        check_real("margin", self.margin, 0.0)
        check_int("redundancy", self.redundancy, 1)
        check_int("group_size", self.group_size, 1)
        check_real("xi", self.xi, 0.0)
        check_int("history", self.history, 1)
        if self.tree is not None:
            if not (isinstance(self.tree, tuple) and len(self.tree) == 2):
                raise ValueError(f"tree must be a tuple (n, L), got tree={self.tree!r}")
            n, L = (
                check_int("tree n", self.tree[0], self.tree_s + 1),
                check_int("tree L", self.tree[1], 1),
            )
            if n_tree_workers(n, L) > N:
                raise ValueError(
                    f"tree must satisfy n + ... + n^L <= N={N}, got tree=({n}, {L}) with "
                    f"{n_tree_workers(n, L)} workers"
                )
        if not self.history * self.xi < 1:
            raise ValueError(f"xi must satisfy history * xi < 1, got xi={self.xi}")

    @property
    def n_workers(self) -> int:
        return self.cluster.n_workers

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

    def relative_gap(self, theta) -> float:
        f0 = self.problem.loss(self.theta0) - self.f_star
        return (self.problem.loss(theta) - self.f_star) / f0


def _cached(obj, key, compute):
    cache = obj.__dict__.setdefault("_cache", {})
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def tree_candidates(n_workers: int, s: int = 1) -> list[tuple[int, int]]:
    """For each depth L, the widest (n, L)-regular tree with ``n + ... + n^L <= N`` and
    ``n > s`` (CodedReduce on N machines leaves the rest idle).

    Parameters
    ----------
    n_workers : int
        Number of machines N. Must satisfy ``2 <= n_workers``.
    s : int, default 1
        Stragglers per parent.

    Returns
    -------
    list of tuple
        ``(n, L)`` per depth.

    Examples
    --------
    >>> tree_candidates(12)
    [(12, 1), (3, 2)]
    >>> tree_candidates(10_000)[:4]
    [(10000, 1), (99, 2), (21, 3), (9, 4)]
    """
    n_workers = check_int("n_workers", n_workers, 2)
    s = check_int("s", s, 0)
    out = []
    for L in range(1, 40):
        if n_tree_workers(s + 2 if s + 2 > 2 else 2, L) > n_workers:
            break
        n = max(2, s + 1)
        while n_tree_workers(n + 1, L) <= n_workers:
            n += 1
        if n > s and n_tree_workers(n, L) <= n_workers:
            out.append((n, L))
    if not out:
        raise ValueError(f"n_workers={n_workers} is too small for a tree with s={s}")
    return out


def choose_tree(setup: Shootout) -> tuple[int, int]:
    """The candidate tree (:func:`tree_candidates`) with the least mean iteration time on a
    20-iteration pilot draw no reported run uses: CodedReduce's (n, L) chosen per cluster.

    Parameters
    ----------
    setup : Shootout
        The setting (its cluster and ``tree_s``).

    Returns
    -------
    tuple of int
        ``(n, L)``.
    """

    def compute():
        factors = setup.cluster.factors(20, _PILOT_SEED)
        best = None
        for n, L in tree_candidates(setup.n_workers, setup.tree_s):
            lay = _tree_shares(setup, n, L)
            comp = _compute(setup.cluster, lay["shares"], factors)
            mean = float(_tree(setup.cluster, comp, n, L, lay["s"]).mean())
            if best is None or mean < best[0]:
                best = (mean, (n, L))
        return best[1]

    return _cached(setup, "tree", compute)


def _ones(setup):
    return np.ones(setup.n_workers)


def _gd_layout(setup):
    return {"shares": _ones(setup), "need": setup.n_workers}


def _sgd_layout(setup):
    return {"shares": _ones(setup), "need": setup.n_workers - setup.n_stragglers}


def _gc_layout(setup, decoder="mds"):
    S = setup.n_stragglers
    return {"shares": _ones(setup) * (S + 1), "need": setup.n_workers - S, "decoder": decoder}


def _mds_layout(setup):
    S = setup.n_stragglers
    N = setup.n_workers
    return {"shares": _ones(setup) * N / (N - S), "need": N - S, "decoder": "mds"}


def _het_layout(setup):
    """Shares proportional to each worker's speed (the stream paper's heterogeneous split)."""
    speed = 1.0 / setup.cluster.mean_share_times()
    return {"shares": setup.n_workers * speed / speed.sum(), "need": setup.n_workers}


def _tree_layout(setup):
    tree = choose_tree(setup) if setup.tree is None else setup.tree
    return _tree_shares(setup, *tree)


def _tree_shares(setup, n, L):
    s = setup.tree_s
    N_tree = n_tree_workers(n, L)
    shares = np.zeros(setup.n_workers)
    shares[:N_tree] = float(r_cr(n, s, L)) * setup.n_workers
    return {"shares": shares, "n": n, "L": L, "s": s, "need": n - s, "tree_workers": N_tree}


def _event_layout(setup, method="dsag", balanced=False):
    N = setup.n_workers
    w = min(N, math.ceil(setup.w_fraction * N - 1e-9))
    p = np.full(N, setup.subpartitions, dtype=np.int64)
    if balanced:
        p = _balanced_subpartitions(setup, w)
    return {"shares": 1.0 / p, "w": w, "p": p, "method": method, "margin": setup.margin}


def _balanced_subpartitions(setup, w):
    """DSAG-LB (Section VI): Algorithm 1 on the cluster's own means and variances (an oracle
    profiler: the moments the profiler would converge to)."""
    from codedlib.schemes.dsag import optimize_subpartitions

    c = setup.cluster
    N = setup.n_workers
    comp_mean = c.mean_share_times()
    comp_var = (comp_mean * min(c.cv, 10.0)) ** 2
    comm = np.full(N, c.message_time)
    n_local = np.diff(setup.bounds)
    p0 = np.full(N, setup.subpartitions, dtype=np.int64)
    p, _ = optimize_subpartitions(
        p0,
        n_local,
        comm,
        (comm * 1e-3) ** 2,
        comp_mean,
        comp_var,
        w,
        n_iterations=50,
        rng=0,
        semantics="deadline",
    )
    return np.asarray(p, dtype=np.int64)


def _lazy_layout(setup, scheme):
    N, r = setup.n_workers, setup.redundancy
    if scheme == "lag":
        G, r = N, 1
    elif scheme in ("g-lag", "g-gd"):
        G = max(1, N // r) if N % r == 0 else N
        r = r if N % r == 0 else 1
    else:
        size = setup.group_size if N % setup.group_size == 0 else N
        G = N // size
    layout = lagc_layout(N, min(r, N), G)
    xi = 0.0 if scheme == "g-gd" else setup.xi
    return {
        "groups": layout.n_groups,
        "group_size": layout.workers_per_group,
        "stored": layout.stored_per_worker,
        "need": layout.wait_for,
        "shares": np.full(N, float(layout.stored_per_worker)),
        "xi": xi,
        "history": setup.history,
    }


def _entries(*schemes):
    return {s.name: s for s in schemes}


SCHEMES: dict[str, ShootoutScheme] = _entries(
    ShootoutScheme("gd", "GD / uncoded master-worker (UMW)", "CR, LAGC", "exact", _gd_layout,
                   runtime="umw"),
    ShootoutScheme("sgd", "ignore-stragglers SGD (first N - S, rescaled)", "CR, DSAG", "sgd",
                   _sgd_layout, runtime="sgd"),
    ShootoutScheme("gc", "Tandon gradient code (cyclic repetition)", "CR, RS, LAGC", "exact",
                   _gc_layout, runtime="gc"),
    ShootoutScheme("rs", "Reed-Solomon gradient code (online decoding)", "RS", "exact",
                   lambda s: _gc_layout(s, "rs"), runtime="rs"),
    ShootoutScheme("mds", "MDS-coded data (least squares only)", "RS, DSAG", "exact",
                   _mds_layout),
    ShootoutScheme("cr", "CodedReduce tree", "CR", "exact", _tree_layout, timing="tree",
                   runtime="cr", applies=lambda s: s.n_workers >= 3),
    ShootoutScheme("rar", "Ring-AllReduce", "CR", "exact", _gd_layout, timing="ring",
                   runtime="rar"),
    ShootoutScheme("het-split", "GD with speed-proportional load split", "stream", "exact",
                   _het_layout),
    ShootoutScheme("sag", "SAG (w of N, fresh results only)", "DSAG", "event",
                   lambda s: _event_layout(s, "sag")),
    ShootoutScheme("dsag", "DSAG (w of N, stale results kept)", "DSAG", "event",
                   _event_layout, runtime="dsag"),
    ShootoutScheme("dsag-lb", "DSAG with the load balancer", "DSAG", "event",
                   lambda s: _event_layout(s, "dsag", balanced=True), runtime="dsag-lb",
                   applies=lambda s: s.n_workers <= 500),
    ShootoutScheme("lag", "LAG (lazy uploads, parameter server)", "LAGC", "lazy",
                   lambda s: _lazy_layout(s, "lag")),
    ShootoutScheme("lagc", "LAGC (lazy groups, GC inside)", "LAGC", "lazy",
                   lambda s: _lazy_layout(s, "lagc"), runtime="lagc"),
    ShootoutScheme("g-lag", "G-LAG (lazy groups, fastest worker each)", "LAGC", "lazy",
                   lambda s: _lazy_layout(s, "g-lag"), runtime="g-lag"),
    ShootoutScheme("g-gd", "G-GD (every group, fastest worker each)", "LAGC", "lazy",
                   lambda s: _lazy_layout(s, "g-gd")),
)  # fmt: skip


def get_scheme(name: str) -> ShootoutScheme:
    try:
        return SCHEMES[name]
    except (KeyError, TypeError):
        raise ValueError(f"scheme must be one of {list(SCHEMES)}, got scheme={name!r}") from None


def iteration_times(name: str, setup: Shootout, factors) -> np.ndarray:
    """Time of each iteration of an exact or SGD scheme for straggling ``factors (T, N)``.

    The same function predicts real runs.

    Parameters
    ----------
    name : str
        A key of :data:`SCHEMES` whose engine is ``exact`` or ``sgd``.
    setup : Shootout
        The setting.
    factors : array_like
        Straggling factors ``(T, N)`` (:meth:`codedlib.cluster.ClusterModel.factors`).

    Returns
    -------
    numpy.ndarray
        Seconds per iteration, shape ``(T,)``.
    """
    scheme = get_scheme(name)
    if scheme.engine not in ("exact", "sgd"):
        raise ValueError(f"iteration_times needs an exact or sgd scheme, got scheme={name!r}")
    return _clock(setup, scheme, scheme.layout(setup), np.asarray(factors, dtype=float))


# ------------------------------------------------------------------------------ results
@dataclass
class SchemeRun:
    """One scheme, one seed: per-iteration ``times``, ``messages`` (received by the master or
    parents), ``numbers`` (communicated, uploads + downloads), ``shares`` (computed), and
    ``gaps`` (relative optimality gap before each iteration and after the last, ``K + 1``).

    Attributes
    ----------
    scheme : str
        Its name.
    seed : int
        The straggling draws' seed.
    times, gaps, messages, numbers, shares : numpy.ndarray
        As above.
    layout : dict
        The scheme's sizes at this N (:attr:`ShootoutScheme.layout`).
    """

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
        upto = self.times.size if math.isinf(k) else int(k)
        return {
            "scheme": self.scheme,
            "seed": self.seed,
            "time_to_target": self.time_to(target),
            "iterations_to_target": k,
            "reached": not math.isinf(k),
            "time_per_iteration": float(self.times.mean()),
            "numbers_to_target": float(self.numbers[:upto].sum())
            if not math.isinf(k)
            else math.inf,
            "numbers_per_iteration": float(self.numbers.mean()),
            "shares_per_iteration": float(self.shares.mean()),
            "final_gap": float(self.gaps[-1]),
        }


# ------------------------------------------------------------------------------ engines
def _gd_trajectory(setup: Shootout, n_iter: int) -> np.ndarray:
    key = ("gd_gaps", n_iter)

    def compute():
        theta = setup.theta0.copy()
        gaps = [setup.relative_gap(theta)]
        step = 1.0 / setup.smoothness
        for _ in range(n_iter):
            theta = theta - step * setup.problem.gradient(theta)
            gaps.append(setup.relative_gap(theta))
        return np.array(gaps)

    return _cached(setup, key, compute)


def _run_exact(setup, scheme, lay, factors, seed):
    T = factors.shape[0]
    times = _clock(setup, scheme, lay, factors)
    N, dim = setup.n_workers, setup.cluster.workload.dim
    if scheme.timing == "ring":
        messages = np.full(T, 2.0 * (N - 1) * N)
        numbers = np.full(T, 2.0 * (N - 1) * dim + N * dim)
    elif scheme.timing == "tree":
        N_tree = lay["tree_workers"]
        messages = np.full(T, (lay["n"] - lay["s"]) * (N_tree // lay["n"]) * 1.0)
        numbers = np.full(T, 2.0 * N_tree * dim)
    else:
        messages = np.full(T, float(lay["need"]))
        numbers = np.full(T, (lay["need"] + N) * float(dim))
    shares = np.full(T, float(lay["shares"].sum()))
    return SchemeRun(scheme.name, seed, times, _gd_trajectory(setup, T), messages, numbers,
                     shares, lay)  # fmt: skip


def _run_sgd(setup, scheme, lay, factors, seed):
    c, N, need = setup.cluster, setup.n_workers, lay["need"]
    comp = _compute(c, lay["shares"], factors)
    times = _star(c, comp, need)
    fastest = np.argpartition(comp, need - 1, axis=1)[:, :need]
    bounds, problem = setup.bounds, setup.problem
    theta = setup.theta0.copy()
    step = 1.0 / setup.smoothness
    gaps = [setup.relative_gap(theta)]
    for t in range(factors.shape[0]):
        grads = problem.partition_gradients(theta, bounds)
        g = grads[fastest[t]].sum(axis=0) * (N / need) / problem.n_samples
        theta = theta - step * g
        gaps.append(setup.relative_gap(theta))
    T = factors.shape[0]
    dim = c.workload.dim
    return SchemeRun(scheme.name, seed, times, np.array(gaps), np.full(T, float(need)),
                     np.full(T, (need + N) * float(dim)), np.full(T, float(N)), lay)  # fmt: skip


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
    c, problem = setup.cluster, setup.problem
    N, w, margin, method = setup.n_workers, lay["w"], lay["margin"], lay["method"]
    p = lay["p"]
    tau = c.message_time
    # sub-partition boundaries: worker i's rows split evenly into p_i parts (DSAG eq. 5)
    # (even_partition of each worker's rows, for all workers at once: the larger parts first)
    wb = setup.bounds
    p = np.asarray(p, dtype=np.int64)
    offsets = np.cumsum(p) - p
    owner = np.repeat(np.arange(N), p)
    part = np.arange(owner.size) - offsets[owner] + 1  # 1..p_i
    base, extra = np.divmod(np.diff(wb)[owner], p[owner])
    sub_bounds = np.concatenate([[0], wb[owner] + part * base + np.minimum(part, extra)])
    sub_rows = np.diff(sub_bounds)
    n_sub = sub_rows.size
    cache = np.zeros((n_sub, problem.dim))
    cache_iter = np.full(n_sub, -1, dtype=np.int64)
    H = np.zeros(problem.dim)
    covered = 0
    next_sub = np.zeros(N, dtype=np.int64)
    busy = np.zeros(N)
    pend = np.zeros(N, dtype=bool)
    pend_time = np.zeros(N)
    pend_grad = np.zeros((N, problem.dim))
    pend_sub = np.zeros(N, dtype=np.int64)
    pend_iter = np.zeros(N, dtype=np.int64)
    theta = setup.theta0.copy()
    eta = lay.get("step", 1.0) / setup.smoothness
    start, port_free = 0.0, 0.0
    T = factors.shape[0]
    times, gaps = np.zeros(T), [setup.relative_gap(theta)]
    messages, shares_done = np.zeros(T), np.zeros(T)
    task_time = _compute(c, lay["shares"], factors)  # (T, N)
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
        fresh_sorted = order >= N
        wth = np.flatnonzero(fresh_sorted & finite)[w - 1]
        T_w = recv[wth]
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
    dim = c.workload.dim
    return SchemeRun(scheme.name, seed, times, np.array(gaps), messages,
                     (messages + N) * float(dim), shares_done, lay)  # fmt: skip


def _group_smoothness(setup, n_groups):
    """Smoothness of each group's sum loss (LAGC's L_g), batched eigenvalues.

    Group ``g`` owns the rows of its workers' partitions (``setup.bounds``), as in LAGC's
    Algorithm 1 (:func:`codedlib.schemes.lagc.run_lagc`); the ridge adds ``lam`` per row.
    """
    X = setup.problem.X
    bounds = setup.bounds[:: setup.n_workers // n_groups]
    rows = np.diff(bounds)
    if np.all(rows == rows[0]):
        Xg = X.reshape(n_groups, rows[0], X.shape[1])
        gram = Xg @ Xg.transpose(0, 2, 1) if rows[0] <= X.shape[1] else Xg.transpose(0, 2, 1) @ Xg
        return np.linalg.eigvalsh(gram)[:, -1] + setup.problem.lam * rows[0], bounds
    top = [setup.problem.smoothness(a, b) * (b - a) for a, b in zip(bounds[:-1], bounds[1:])]
    return np.array(top), bounds


def _run_lazy(setup, scheme, lay, factors, seed):
    """LAGC Algorithm 1 over groups (LAG: groups of one; G-LAG/G-GD: no coding)."""
    c, problem = setup.cluster, setup.problem
    G, n_g = lay["groups"], lay["group_size"]
    need, xi, D = lay["need"], lay["xi"], lay["history"]
    n = problem.n_samples
    L_total = n * setup.smoothness
    alpha = lag_stepsize(L_total, xi, D) if xi > 0 else 1.0 / L_total
    L_g, gbounds = _group_smoothness(setup, G)
    coef = xi / (alpha**2 * G**2)
    theta = setup.theta0.copy()
    theta_hat = np.repeat(theta[None, :], G, axis=0)
    stale = np.zeros((G, problem.dim))
    steps: list[float] = []
    T = factors.shape[0]
    times, gaps = np.zeros(T), [setup.relative_gap(theta)]
    messages, numbers, shares = np.zeros(T), np.zeros(T), np.zeros(T)
    comp = _compute(c, lay["shares"], factors).reshape(T, G, n_g)
    tau = c.message_time
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
        new_theta = theta - alpha * stale.sum(axis=0)
        step = new_theta - theta
        steps.append(float(step @ step))
        theta = new_theta
        gaps.append(setup.relative_gap(theta))
    return SchemeRun(scheme.name, seed, times, np.array(gaps), messages, numbers, shares, lay)


_ENGINES = {"exact": _run_exact, "sgd": _run_sgd, "event": _run_event, "lazy": _run_lazy}


def simulate(setup: Shootout, name: str, seed: int = 0, factors=None) -> SchemeRun:
    """Run scheme ``name`` of :data:`SCHEMES` for ``setup.max_iter`` iterations.

    Parameters
    ----------
    setup : Shootout
        Cluster, stand-in problem and scheme parameters.
    name : str
        A key of :data:`SCHEMES`.
    seed : int, default 0
        Seed of the straggling draws (every scheme of one seed sees the same draws).
    factors : numpy.ndarray, optional
        Straggling factors ``(max_iter, N)``; default ``setup.cluster.factors(max_iter, seed)``.

    Returns
    -------
    SchemeRun
        Times, gaps, communication and computation per iteration.
    """
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
    if scheme.engine == "event":
        lay["step"] = _tuned_step(setup, scheme, lay)
    return _ENGINES[scheme.engine](setup, scheme, lay, factors, seed)


#: Step sizes (times 1/L) SAG and DSAG choose from; stale gradients may need less than GD's 1/L.
STEP_GRID = (1.0, 0.5, 0.25, 0.125)
_PILOT_SEED = 1_000_003


def _tuned_step(setup, scheme, lay) -> float:
    """The step of :data:`STEP_GRID` with the least time to target on a pilot seed that no
    reported run uses (the least final gap if none reaches it)."""

    def compute():
        n_iter = setup.max_iter
        factors = setup.cluster.factors(n_iter, _PILOT_SEED)
        best = None
        for step in STEP_GRID:
            run = _run_event(setup, scheme, {**lay, "step": step}, factors, _PILOT_SEED)
            gap = run.gaps[-1] if np.isfinite(run.gaps[-1]) else math.inf
            key = (run.time_to(setup.target), gap)
            if best is None or key < best[0]:
                best = (key, step)
        return best[1]

    return _cached(setup, ("step", scheme.name), compute)


def lagc_reference_run(setup: Shootout, name: str):
    """The LAGC paper module's own run of a lazy scheme on the shoot-out's problem and sizes:
    :func:`codedlib.schemes.lagc.run_lag_ps` / ``run_lagc`` / ``run_g_lag`` / ``run_g_gd``,
    whose trajectory (gaps, groups selected) the ``lazy`` engine must reproduce.

    Parameters
    ----------
    setup : Shootout
        The setting (problem, N, r, group size, ξ, D, ``max_iter``).
    name : str
        ``"lag"``, ``"lagc"``, ``"g-lag"`` or ``"g-gd"``.

    Returns
    -------
    codedlib.schemes.lagc.SchemeRun
        The paper module's run (its own exponential delays; only the trajectory compares).
    """
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
