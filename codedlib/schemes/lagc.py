"""GD, GC, LAG-PS, G-GD, G-LAG and LAGC on one simulated clock (LAGC paper, Sections II-IV).

Every scheme runs the gradient step (2) ``θ^{k+1} = θ^k - α ∇^k`` on the sum objective
``L(θ) = Σ_m L_m(θ)`` (``n`` times the problem's mean loss) over the same ``N`` *fine*
partitions (``even_partition``; a group of LAGC owns ``N/G`` consecutive ones), the same delay
draws (worker ``i`` of replica ``ρ`` needs ``load_i * X[ρ, k, i]`` seconds at iteration ``k``,
:class:`DelayStream`) and the same metrics (Section II-A): wall-clock time (eq. 6),
communication (downloads + uploads, eq. 7), computation (fine-partition gradients, eq. 8), gap
``F(θ^k) - F*`` (eq. 9) and complexities at a target gap (eq. 10-12).

Every ``run_*`` takes the simulation keywords ``delay`` or ``delays`` (a shared
:class:`DelayStream`), ``replicas`` and ``rng`` (of the delay draws), ``max_iter`` (1000),
``gap_tol`` (stop at the first gap below it), ``f_star`` (default: the loss at the optimum)
and ``keep_iterates``. The trajectory does not depend on the delays (the PS selection, eq.
13/17, reads only iterates and GC decodes the exact gradient): replica 0 picks the survivors
used for decoding, and expected times are averages over ``replicas`` draws of one trajectory.

:func:`run_gd`, :func:`run_gc`, :func:`run_lag_ps` follow Section III; :func:`run_lagc` is
Algorithm 1 and :func:`run_g_gd`, :func:`run_g_lag` its no-coding cases (Remark 3). The tests
check ``run_lagc(G=1, ξ=0) == run_gc`` and ``run_lagc(G=N) == run_lag_ps`` (Remark 2).

Example
-------
>>> import numpy as np
>>> from codedlib.problems import LeastSquares
>>> from codedlib.theory.lagc import exponential_delay
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((60, 3)); y = X @ np.ones(3)
>>> run = run_lagc(LeastSquares(X, y), 6, 2, 3, delay=exponential_delay(1.0), xi=0.05,
...                history=5, max_iter=50, rng=0)
>>> run.n_iterations, bool(run.gap[-1] < run.gap[0])
(50, True)

Reference: zhang2021lagc, tandon2017gradient, chen2018lag.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import reduce
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from codedlib._validation import as_generator, check_int, check_real
from codedlib.latency.models import HeterogeneousCluster
from codedlib.problems import even_partition
from codedlib.theory.lagc import LAGCLayout, lag_stepsize, lagc_layout, scheme_layout
from codedlib.theory.lagc import _worker_dists as check_delay

if TYPE_CHECKING:
    from codedlib.problems import Problem

_BLOCK = 256  # iterations per block of delay draws


# ---- Shared delays -------------------------------------------------------------------------------
class DelayStream:
    """Unit-load delay draws ``X[ρ, k, i]`` shared by every scheme of one comparison.

    Iteration ``k`` reads block ``k // 256`` generated from ``default_rng([seed, block])``,
    so every scheme sees the same draws at the same iteration however long it runs.
    """

    def __init__(self, delay, n_workers: int, replicas: int = 1, rng=None):
        self.n_workers = check_int("n_workers", n_workers, low=1)
        self.replicas = check_int("replicas", replicas, low=1)
        check_delay(delay, self.n_workers)  # a frozen distribution or a cluster of N workers
        self.delay = delay
        if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
            self.seed = int(rng)
        else:
            self.seed = int(as_generator(rng).integers(2**62))
        self._cache: dict[int, np.ndarray] = {}

    def draws(self, k: int) -> np.ndarray:
        """Unit-load delays of iteration ``k``: array ``(replicas, n_workers)``."""
        b, row = divmod(k, _BLOCK)
        if b not in self._cache:
            if len(self._cache) > 4:
                self._cache.clear()
            gen = np.random.default_rng([self.seed, b])
            rows = self.replicas * _BLOCK
            if isinstance(self.delay, HeterogeneousCluster):
                draws = self.delay.sample(rows, gen)
            else:
                draws = self.delay.rvs(size=(rows, self.n_workers), random_state=gen)
            shape = (self.replicas, _BLOCK, self.n_workers)
            self._cache[b] = np.asarray(draws, dtype=float).reshape(shape)
        return self._cache[b][:, row, :]


# ---- Result --------------------------------------------------------------------------------------
@dataclass
class SchemeRun:
    """Trajectory and per-iteration metrics of one scheme (Section II-A).

    Arrays indexed by iteration ``k = 0..K-1`` describe iteration ``k`` (which produces
    ``θ^{k+1}``): ``selected`` (K, units) active workers (LAG) or groups, ``downloads``,
    ``uploads``, ``computation`` (fine-partition gradients), ``iteration_times`` (replicas, K).
    ``gap`` (K+1,) is ``F(θ^k) - F*`` before iteration ``k`` and after the last one.
    """

    scheme: str
    layout: LAGCLayout
    stepsize: float
    selected: np.ndarray
    downloads: np.ndarray
    uploads: np.ndarray
    computation: np.ndarray
    iteration_times: np.ndarray
    gap: np.ndarray
    theta: np.ndarray
    iterates: np.ndarray | None = field(default=None, repr=False)
    survivors: list | None = field(default=None, repr=False)

    @property
    def n_iterations(self) -> int:
        return int(self.selected.shape[0])

    @property
    def n_selected(self) -> np.ndarray:
        """Active units per iteration ``|M^k|`` (LAG) or ``|G^k|`` (groups)."""
        return self.selected.sum(axis=1)

    def metrics(self) -> pd.DataFrame:
        """One row per iterate ``θ^k``: time (eq. 6, mean over replicas), communication (eq. 7),
        computation (eq. 8) spent before it, and its optimality gap (eq. 9)."""
        zero = np.zeros(1, dtype=float)
        return pd.DataFrame(
            {
                "scheme": self.scheme,
                "iteration": np.arange(self.n_iterations + 1),
                "time": np.concatenate([zero, np.cumsum(self.iteration_times.mean(axis=0))]),
                "communication": np.concatenate([zero, np.cumsum(self.downloads + self.uploads)]),
                "computation": np.concatenate([zero, np.cumsum(self.computation)]),
                "gap": self.gap,
            }
        )

    def complexity(self, eps: float) -> dict:
        """Iteration, time (eq. 10), communication (eq. 11), computation (eq. 12) complexity:
        the cost spent until the first iterate with gap <= ``eps`` (NaN if never reached).
        ``time_stderr`` is the Monte Carlo standard error over replicas."""
        eps = check_real("eps", eps, low=0.0, low_open=True)
        hits = np.flatnonzero(self.gap <= eps)
        if hits.size == 0:
            keys = ("iterations", "time", "time_stderr", "communication", "computation")
            return {"scheme": self.scheme} | dict.fromkeys(keys, math.nan)
        k = int(hits[0])
        per_replica = self.iteration_times[:, :k].sum(axis=1)
        n = per_replica.size
        stderr = per_replica.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
        return {
            "scheme": self.scheme,
            "iterations": k,
            "time": float(per_replica.mean()),
            "time_stderr": float(stderr),
            "communication": int((self.downloads[:k] + self.uploads[:k]).sum()),
            "computation": int(self.computation[:k].sum()),
        }


# ---- Shared helpers ------------------------------------------------------------------------------
class _Sim:
    """A run's simulation keywords (``**sim``), checked, and what it records per iteration
    (the metrics of Section II-A) until it becomes a :class:`SchemeRun`."""

    def __init__(
        self,
        problem,
        n_workers,
        *,
        delay=None,
        delays=None,
        replicas: int = 1,
        rng=None,
        max_iter: int = 1000,
        gap_tol=None,
        f_star=None,
        keep_iterates: bool = False,
        survivors: bool = False,
    ):
        n_workers = check_int("n_workers", n_workers, low=1)
        if not hasattr(problem, "partial_gradient"):
            raise ValueError(f"problem must provide partial_gradient, got problem={problem!r}")
        n = problem.n_samples
        if n < n_workers:
            raise ValueError(
                f"n_workers must satisfy 1 <= n_workers <= n_samples={n}, got n_workers={n_workers}"
            )
        self.max_iter = check_int("max_iter", max_iter, low=1)
        if gap_tol is not None:
            gap_tol = check_real("gap_tol", gap_tol, low=0.0, low_open=True)
        if delays is None:
            if delay is None:
                raise ValueError(
                    "delay (a frozen distribution or HeterogeneousCluster) or delays "
                    "(a DelayStream) must be given"
                )
            delays = DelayStream(delay, n_workers, replicas, rng)
        elif not isinstance(delays, DelayStream) or delays.n_workers != n_workers:
            raise ValueError(
                f"delays must be a DelayStream over n_workers={n_workers} workers, "
                f"got delays={delays!r}"
            )
        if f_star is None:
            if not hasattr(problem, "optimum"):
                raise ValueError("f_star must be given for a problem without optimum()")
            f_star = problem.loss(problem.optimum())
        self.f_star = float(check_real("f_star", f_star))
        self.problem, self.delays, self.gap_tol = problem, delays, gap_tol
        self.bounds = even_partition(n, n_workers)  # fine partition boundaries (N+1,)
        self.total_smoothness = n * problem.smoothness(0, n)  # of the sum objective L(θ)
        # every iterate's gap (problem.loss) has checked it: a Problem's per-range sum
        # skips partial_gradient's checks, the same operations
        self._slices = [slice(int(a), int(b)) for a, b in zip(self.bounds[:-1], self.bounds[1:])]
        self._terms = getattr(problem, "_grad_terms", None)
        self.theta = problem.initial_point().astype(float)
        self.gaps = [self.gap(self.theta)]
        self.iterates = [self.theta.copy()] if keep_iterates else None
        self.rows, self.steps = [], []  # per iteration; steps: ‖θ^{k+1} - θ^k‖²
        self.survivors = [] if survivors else None

    def partition_gradient(self, theta, p):
        if self._terms is not None:
            return self._terms(theta, self._slices[p])
        return self.problem.partial_gradient(theta, int(self.bounds[p]), int(self.bounds[p + 1]))

    def range_smoothness(self, first, last):
        """Smoothness of the sum of f_i over fine partitions first..last-1."""
        start, stop = int(self.bounds[first]), int(self.bounds[last])
        return (stop - start) * self.problem.smoothness(start, stop)

    def gap(self, theta):
        return self.problem.loss(theta) - self.f_star

    def stepsize(self, stepsize, xi=0.0, history=1, lazy=False):
        """``ξ``, ``D`` and the step: by default ``(1 - sqrt(Dξ))/L`` when lazy, else ``1/L``."""
        xi = check_real("xi", xi, low=0.0)
        history = check_int("history", history, low=1)
        if stepsize is None:
            if lazy:
                return xi, history, lag_stepsize(self.total_smoothness, xi, history)
            return xi, history, 1.0 / self.total_smoothness
        return xi, history, check_real("stepsize", stepsize, low=0.0, low_open=True)

    def iterations(self):
        """``k = 0, 1, ...`` until ``max_iter`` or the gap reached ``gap_tol``."""
        for k in range(self.max_iter):
            if self.gap_tol is not None and self.gaps[-1] <= self.gap_tol:
                return
            yield k

    def select(self, k, xi, history, coef, L_units, theta_hat):
        """Eq. (13)/(17): the units with ``L_m² ‖θ̂_m - θ^k‖² > coef Σ_{d=1}^{D} ‖θ^{k+1-d} -
        θ^{k-d}‖²`` (all at ``k = 0`` or when ``ξ = 0``)."""
        if k == 0 or xi == 0.0:
            return np.ones(len(L_units), dtype=bool)
        diff = theta_hat - self.theta[None, :]
        lhs = L_units**2 * np.einsum("ij,ij->i", diff, diff)
        return lhs > coef * (float(sum(self.steps[-history:])) if self.steps else 0.0)

    def record(self, times, selected, downloads, uploads, computation, survivors=None):
        """Iteration ``k``'s per-replica time, active units and loads (eq. 6-8)."""
        self.rows.append((times, selected, downloads, uploads, computation))
        if self.survivors is not None:
            self.survivors.append(survivors)

    def step(self, alpha, grad):
        """``θ^{k+1} = θ^k - α ∇^k`` (2): its step, its gap (eq. 9), the iterate when kept."""
        new_theta = self.theta - alpha * grad
        step = new_theta - self.theta
        self.steps.append(float(step @ step))
        self.theta = new_theta
        self.gaps.append(self.gap(new_theta))
        if self.iterates is not None:
            self.iterates.append(new_theta.copy())

    def result(self, scheme, layout, stepsize) -> SchemeRun:
        K = len(self.rows)
        times, selected, *loads = zip(*self.rows)
        return SchemeRun(
            scheme=scheme,
            layout=layout,
            stepsize=stepsize,
            selected=np.array(selected, dtype=bool).reshape(K, -1),
            downloads=np.array(loads[0], dtype=np.int64),
            uploads=np.array(loads[1], dtype=np.int64),
            computation=np.array(loads[2], dtype=np.int64),
            iteration_times=np.array(times, dtype=float).T.reshape(self.delays.replicas, K),
            gap=np.array(self.gaps),
            theta=self.theta,
            iterates=np.array(self.iterates) if self.iterates is not None else None,
            survivors=self.survivors,
        )


class _Decoder:
    """Cyclic-repetition GC inside one group of ``n`` workers storing ``stored`` batches
    (decoding vectors cached per straggler pattern by a
    :class:`~codedlib.codes.protocol.CachedDecoder`)."""

    def __init__(self, n, stored):
        from codedlib.codes.cyclic import cyclic_repetition_code
        from codedlib.codes.protocol import CachedDecoder

        self.code = cyclic_repetition_code(n, stored - 1)
        self.cached = CachedDecoder(self.code)

    def decode(self, partition_grads, survivors):
        """``a @ (B @ G)`` for the survivors: the group's exact gradient sum."""
        idx = np.asarray(survivors, dtype=np.int64)
        messages = self.code.B[idx] @ partition_grads  # coded uploads
        return self.cached.combine(messages, idx)


# ---- Reference schemes (Section III) -------------------------------------------------------------
def run_gd(
    problem: Problem, n_workers: int, *, stepsize: float | None = None, **sim: Any
) -> SchemeRun:
    """Distributed GD: worker ``i`` holds partition ``i`` (r = 1); the PS waits for all.

    Time per iteration ``max_i X_i`` (eq. 23), ``2N`` messages and ``N`` gradients.
    Stepsize ``1/L`` by default (eq. 19).
    """
    s, N = _Sim(problem, n_workers, **sim), n_workers
    _, _, alpha = s.stepsize(stepsize)
    for k in s.iterations():
        grad = reduce(np.add, [s.partition_gradient(s.theta, p) for p in range(N)])
        s.record(s.delays.draws(k).max(axis=1), np.ones(N, dtype=bool), N, N, N)
        s.step(alpha, grad)
    return s.result("gd", lagc_layout(N, 1, N), alpha)


def run_gc(
    problem: Problem, n_workers: int, redundancy: int, *, stepsize: float | None = None, **sim: Any
) -> SchemeRun:
    """Gradient coding (Section III-A, Tandon et al.): worker ``i`` stores partitions
    ``i..i+r-1 (mod N)``; all download, the PS waits for the ``N-r+1`` fastest (each taking
    ``r X_i``) and decodes ``Σ_i a_i (b_i @ G)``. With ``r = N`` every worker stores all data
    and the fastest one sends the plain sum (no coding).
    """
    s, N = _Sim(problem, n_workers, survivors=True, **sim), n_workers
    r = check_int("redundancy", redundancy, low=1, high=N)
    _, _, alpha = s.stepsize(stepsize)
    wait = N - r + 1
    decoder = _Decoder(N, r) if r < N else None
    for k in s.iterations():
        G = np.array([s.partition_gradient(s.theta, p) for p in range(N)])
        T = r * s.delays.draws(k)
        fast = np.sort(np.argsort(T[0], kind="stable")[:wait])  # replica 0's fastest
        times = np.partition(T, wait - 1, axis=1)[:, wait - 1]
        # the fastest worker's plain sum over all partitions when uncoded
        grad = reduce(np.add, G) if decoder is None else decoder.decode(G, fast)
        s.record(times, np.ones(1, dtype=bool), N, wait, N * r, survivors=fast)
        s.step(alpha, grad)
    return s.result("gc", lagc_layout(N, r, 1), alpha)


def run_lag_ps(
    problem: Problem,
    n_workers: int,
    *,
    xi: float,
    history: int,
    stepsize: float | None = None,
    **sim: Any,
) -> SchemeRun:
    """LAG with PS-side selection (Section III-B, eq. 13-14; LAG-PS of Chen et al.).

    Worker ``m`` (partition ``m``, smoothness ``L_m``) is contacted at iteration ``k >= 1`` iff

        ``L_m² ‖θ̂_m - θ^k‖² > ξ/(α² M²) Σ_{d=1}^{D} ‖θ^{k+1-d} - θ^{k-d}‖²``   (13)

    (all workers at ``k = 0``; ``ξ = 0`` contacts every worker). The PS waits for all
    contacted workers and reuses the others' stale gradients (14). Stepsize
    ``(1 - sqrt(Dξ))/L`` by default (eq. 20).
    """
    s, M = _Sim(problem, n_workers, **sim), n_workers
    xi, history, alpha = s.stepsize(stepsize, xi, history, lazy=True)
    L_m = np.array([s.range_smoothness(m, m + 1) for m in range(M)])
    coef = xi / (alpha**2 * M**2)
    theta_hat = np.repeat(s.theta[None, :], M, axis=0)
    stale = [None] * M
    for k in s.iterations():
        chosen = s.select(k, xi, history, coef, L_m, theta_hat)
        for m in np.flatnonzero(chosen):
            stale[m] = s.partition_gradient(s.theta, m)
            theta_hat[m] = s.theta
        X = s.delays.draws(k)
        n_sel = int(chosen.sum())
        times = X[:, chosen].max(axis=1) if n_sel else np.zeros(X.shape[0])
        s.record(times, chosen, n_sel, n_sel, n_sel)
        s.step(alpha, reduce(np.add, stale))
    return s.result("lag", lagc_layout(M, 1, M), alpha)


# ---- LAGC (Section IV, Algorithm 1) and its no-coding special cases ------------------------------
def run_lagc(
    problem: Problem,
    n_workers: int,
    redundancy: int,
    n_groups: int,
    *,
    xi: float = 0.0,
    history: int = 10,
    lazy: bool = True,
    stepsize: float | None = None,
    scheme: str = "lagc",
    **sim: Any,
) -> SchemeRun:
    """Lazily aggregated gradient coding (Algorithm 1, eq. 17-18).

    ``G`` groups of ``N/G`` workers; group ``g`` owns fine partitions ``g N/G .. (g+1) N/G - 1``
    and stores them cyclically with ``min(r, N/G)`` batches per worker. At iteration ``k >= 1``
    group ``g`` (smoothness ``L_g`` of its sum loss) is selected iff

        ``L_g² ‖θ̂_g - θ^k‖² > ξ/(α² G²) Σ_{d=1}^{D} ‖θ^{k+1-d} - θ^{k-d}‖²``   (17)

    (every group at ``k = 0``, when ``ξ = 0`` or when ``lazy=False``). All workers of a selected
    group download ``θ^k``; the PS waits for the ``N/G - min(r,N/G) + 1`` fastest, decodes the
    group gradient by GC (or takes the fastest worker's plain sum when ``N/G <= r``) and adds
    the stale gradients of the other groups (18). Stepsize ``(1 - sqrt(Dξ))/L`` when lazy,
    ``1/L`` otherwise.
    """
    s = _Sim(problem, n_workers, survivors=True, **sim)
    layout = lagc_layout(n_workers, redundancy, n_groups)
    xi, history, alpha = s.stepsize(stepsize, xi, history, lazy)
    G, n_g = layout.n_groups, layout.workers_per_group
    stored, wait = layout.stored_per_worker, layout.wait_for
    decoder = _Decoder(n_g, stored) if layout.coded else None
    L_g = np.array([s.range_smoothness(g * n_g, (g + 1) * n_g) for g in range(G)])
    coef = xi / (alpha**2 * G**2)
    theta_hat = np.repeat(s.theta[None, :], G, axis=0)
    stale = [None] * G
    for k in s.iterations():
        chosen = s.select(k, xi if lazy else 0.0, history, coef, L_g, theta_hat)
        T = stored * s.delays.draws(k).reshape(-1, G, n_g)  # (replicas, G, N/G)
        group_times = np.partition(T, wait - 1, axis=2)[:, :, wait - 1]
        fast_k = {}
        picked = np.flatnonzero(chosen).tolist()
        if picked:  # each group's fastest survivors in replica 0, all groups at once
            fastest = np.sort(np.argsort(T[0], axis=1, kind="stable")[:, :wait], axis=1)
        for g in picked:
            P = np.array([s.partition_gradient(s.theta, g * n_g + j) for j in range(n_g)])
            fast_k[g] = fastest[g]
            # uncoded: every worker holds the whole group partition
            stale[g] = reduce(np.add, P) if decoder is None else decoder.decode(P, fast_k[g])
            theta_hat[g] = s.theta
        n_sel = int(chosen.sum())
        times = group_times[:, chosen].max(axis=1) if n_sel else np.zeros(group_times.shape[0])
        s.record(times, chosen, n_sel * n_g, n_sel * wait, n_sel * n_g * stored, survivors=fast_k)
        s.step(alpha, reduce(np.add, stale))
    return s.result(scheme, layout, alpha)


def run_g_gd(
    problem: Problem, n_workers: int, redundancy: int, n_groups: int | None = None, **kwargs: Any
) -> SchemeRun:
    """Grouped GD [9] (Remark 3 with every group active): ``G >= N/r`` groups (default
    ``N/r``), every worker stores its group's whole partition, the PS waits for the fastest
    worker of each group. Time per iteration ``E[T_(G:G)]`` of the group minima (eq. 29).
    """
    layout = scheme_layout("g-gd", n_workers, redundancy, n_groups)
    return run_lagc(
        problem, n_workers, redundancy, layout.n_groups, lazy=False, scheme="g-gd", **kwargs
    )


def run_g_lag(
    problem: Problem,
    n_workers: int,
    redundancy: int,
    n_groups: int | None = None,
    *,
    xi: float,
    history: int,
    **kwargs: Any,
) -> SchemeRun:
    """Grouped LAG (Remark 3): LAG selection (17) over ``G >= N/r`` groups (default ``N/r``)
    whose workers each store the whole group partition; the fastest worker of each selected
    group answers, no coding.
    """
    layout = scheme_layout("g-lag", n_workers, redundancy, n_groups)
    lazy = {"xi": xi, "history": history, "scheme": "g-lag"}
    return run_lagc(problem, n_workers, redundancy, layout.n_groups, **lazy, **kwargs)


def run_scheme(
    scheme: str,
    problem: Problem,
    n_workers: int,
    redundancy: int = 1,
    n_groups: int | None = None,
    **kwargs: Any,
) -> SchemeRun:
    """Dispatch by name to the schemes of Sections III–IV: ``gd``, ``gc``, ``lag``, ``g-gd``,
    ``g-lag``, ``lagc``."""
    if scheme not in _RUNS:
        raise ValueError(f"scheme must be one of {tuple(_RUNS)}, got scheme={scheme!r}")
    if scheme in ("gd", "gc", "g-gd"):  # not lazy: no ξ, D
        kwargs.pop("xi", None), kwargs.pop("history", None)
    if scheme == "lagc" and n_groups is None:
        raise ValueError("n_groups must be given for lagc (a divisor of n_workers)")
    args = {"gd": (), "lag": (), "gc": (redundancy,)}.get(scheme, (redundancy, n_groups))
    return _RUNS[scheme](problem, n_workers, *args, **kwargs)


_RUNS = {"gd": run_gd, "gc": run_gc, "lag": run_lag_ps, "g-gd": run_g_gd, "g-lag": run_g_lag}
_RUNS["lagc"] = run_lagc
