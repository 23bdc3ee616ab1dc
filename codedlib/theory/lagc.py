"""Closed forms of LAGC (Zhang & Simeone, "LAGC: Lazily Aggregated Gradient Coding ...").

Our copy lost its equations: these are rebuilt from the text, GC and LAG-PS. Notation:

* ``N`` workers, redundancy ``r``, ``G`` groups of ``N/G`` workers sharing ``N`` fine
  partitions; loads in fine-partition gradients and messages; a worker with ``load``
  partitions takes ``load * X``, ``X`` the unit-load delay (exponential mean ``mu``, Pareto
  ``t0, beta``). Objective ``L(θ) = Σ_m L_m(θ)`` (as in LAG), ``κ = L/μ_sc``, ``Δ = L(θ⁰) - L*``.

Reconstructed equations
-----------------------
(19)  ``I_GD(ε) = κ log(Δ/ε)`` with stepsize ``α = 1/L``.
(20)  ``I_LAG(ε) = κ/(1 - sqrt(Dξ)) log(Δ/ε)`` with ``α = (1 - sqrt(Dξ))/L``, ``Dξ < 1``
      (LAG Theorem 1 with ``ξ_d = ξ``); LAGC has the same. Exponent 1 is tight: LAG with
      every unit selected is GD with step ``α`` (contraction ``1 - αμ``; issue 13 item 7).
(21)  ``E[T_(k:n)] = μ (H_n - H_{n-k})`` (exponential with mean μ).
(22)  ``E[T_(k:n)] = t0 Γ(n+1) Γ(n-k+1-1/β) / (Γ(n-k+1) Γ(n+1-1/β))`` (Pareto, β(n-k+1) > 1).
(25)  ``L_m² ≤ γ_d := ξ / (d α² M²)``, ``1 <= d <= D``: then worker ``m`` is selected in at
      most ``ceil(k/(d+1))`` of the first ``k`` iterations (LAG Lemma 4, PS version).
(26)  ``mean |M^k| <= (1 - ΔC) M`` with ``ΔC = Σ_{d=1}^{D} (1/d - 1/(d+1)) h(γ_d)`` and
      ``h(γ) = (1/M) Σ_m 1(L_m² <= γ)`` (fraction of workers meeting (25)).
(27)  ``T_LAG <= I_LAG(ε) E[T_(m:m)](μ)``, ``m = ceil((1-ΔC)N)`` (Jensen: concave in ``m``).
(28)  ``E[T_(k:G)] = ∫_0^∞ (1 - F_(k:G)(t)) dt`` over the non-identical group times (each
      the ``(N/G - r + 1)``-th order statistic of its group).
(23), (24), (29), (31): time = iteration complexity × expected time per iteration.
(32)–(35) and LAGC: communication = iteration complexity × (downloads + uploads) per iteration.
Computation (Table II): iteration complexity × fine-partition gradients per iteration.

>>> from codedlib.theory.lagc import expected_iteration_time, exponential_delay
>>> round(expected_iteration_time("gd", 4, delay=exponential_delay(1.0)), 4)  # H_4
2.0833

Reference: zhang2021lagc, tandon2017gradient, chen2018lag.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import special, stats

from codedlib._validation import check_array, check_int, check_real
from codedlib.latency.models import (
    HeterogeneousCluster,
    _family_parameters,
    pareto,
    shifted_exponential,
)
from codedlib.latency.order_stats import (
    expected_order_statistic_exponential,
    expected_order_statistic_numeric,
    expected_order_statistic_pareto,
    order_statistic_cdf,
    order_statistic_survival,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike
    from scipy.stats._distn_infrastructure import rv_frozen

SCHEMES = ("gd", "gc", "lag", "g-gd", "g-lag", "lagc")


@dataclass(frozen=True)
class LAGCLayout:
    """Data layout of LAGC with ``n_groups`` groups (Section IV, Algorithm 1).

    ``stored_per_worker = min(r, N/G)`` fine partitions per worker; ``wait_for = N/G -
    stored_per_worker + 1`` fastest workers per group; ``coded`` is False when every worker
    holds its whole group partition (G-LAG / G-GD / LAG, Remark 3).
    """

    n_workers: int
    redundancy: int
    n_groups: int

    @property
    def workers_per_group(self) -> int:
        return self.n_workers // self.n_groups

    @property
    def stored_per_worker(self) -> int:
        return min(self.redundancy, self.workers_per_group)

    @property
    def wait_for(self) -> int:
        return self.workers_per_group - self.stored_per_worker + 1

    @property
    def coded(self) -> bool:
        return self.stored_per_worker < self.workers_per_group

    def group_workers(self, group: int) -> np.ndarray:
        """Worker indices of group ``group`` (0-based, consecutive), also the fine partitions
        it owns (its data block ``D_g``)."""
        group = check_int("group", group, low=0, high=self.n_groups - 1)
        n_g = self.workers_per_group
        return np.arange(group * n_g, (group + 1) * n_g)

    def stored_partitions(self, worker: int) -> np.ndarray:
        """Fine partitions stored by ``worker``: cyclic inside its group (Tandon et al.).

        Local worker ``j`` of group ``g`` stores batches ``j, j+1, ..., j+s`` (mod ``N/G``) of
        ``D_g``, ``s+1 = min(r, N/G)``, as in Fig. 3 (worker 1 stores D1, D2, ...).
        """
        worker = check_int("worker", worker, low=0, high=self.n_workers - 1)
        n_g = self.workers_per_group
        group, local = divmod(worker, n_g)
        return group * n_g + (local + np.arange(self.stored_per_worker)) % n_g

    def storage_matrix(self) -> np.ndarray:
        """Boolean ``(N, N)`` matrix: ``[worker, partition]`` is True when stored."""
        out = np.zeros((self.n_workers, self.n_workers), dtype=bool)
        for w in range(self.n_workers):
            out[w, self.stored_partitions(w)] = True
        return out


def lagc_layout(n_workers: int, redundancy: int, n_groups: int) -> LAGCLayout:
    """Validated :class:`LAGCLayout` (LAGC Section IV); ``G`` must divide ``N`` and ``1 <= r <= N``."""
    n_workers = check_int("n_workers", n_workers, low=1)
    redundancy = check_int("redundancy", redundancy, low=1, high=n_workers)
    n_groups = check_int("n_groups", n_groups, low=1, high=n_workers)
    if n_workers % n_groups:
        divisors = [g for g in range(1, n_workers + 1) if n_workers % g == 0]
        raise ValueError(
            f"n_groups must divide n_workers={n_workers} (one of {divisors}), "
            f"got n_groups={n_groups}"
        )
    return LAGCLayout(n_workers, redundancy, n_groups)


def scheme_layout(
    scheme: str, n_workers: int, redundancy: int = 1, n_groups: int | None = None
) -> LAGCLayout:
    """The layout each scheme uses, as a special case of LAGC (Remarks 2 and 3).

    GD: ``r=1, G=N``; GC: ``G=1``; LAG: ``r=1, G=N``; G-GD and G-LAG: ``G`` given (default
    ``N/r``) with ``N/G <= r`` (no coding); LAGC: ``G`` given.
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got scheme={scheme!r}")
    n_workers = check_int("n_workers", n_workers, low=1)
    redundancy = check_int("redundancy", redundancy, low=1, high=n_workers)
    if scheme in ("gd", "lag"):
        return lagc_layout(n_workers, 1, n_workers)
    if scheme == "gc":
        return lagc_layout(n_workers, redundancy, 1)
    if scheme in ("g-gd", "g-lag"):
        if n_groups is None:
            if n_workers % redundancy:
                raise ValueError(
                    f"redundancy must divide n_workers={n_workers} for the default "
                    f"n_groups=N/r of {scheme}, got redundancy={redundancy}"
                )
            n_groups = n_workers // redundancy
        layout = lagc_layout(n_workers, redundancy, n_groups)
        if layout.coded:
            raise ValueError(
                f"n_groups must satisfy N/G <= r for {scheme} (no coding, Remark 3), got "
                f"n_groups={layout.n_groups}, N/G={layout.workers_per_group}, r={redundancy}"
            )
        return layout
    if n_groups is None:
        raise ValueError("n_groups must be given for lagc (a divisor of n_workers), got None")
    return lagc_layout(n_workers, redundancy, n_groups)


def exponential_delay(mean: float) -> rv_frozen:
    """Unit-load exponential computing time with mean ``mean`` (Section II)."""
    mean = check_real("mean", mean, low=0.0, low_open=True)
    return shifted_exponential(0.0, 1.0 / mean)


def pareto_delay(scale: float, shape: float) -> rv_frozen:
    """Unit-load Pareto computing time of LAGC Section II, ``P[X > t] = (scale/t)**shape`` for ``t >= scale``."""
    return pareto(
        check_real("scale", scale, low=0.0, low_open=True),
        check_real("shape", shape, low=0.0, low_open=True),
    )


def _family(dist):
    """``(name, shapes, loc, scale)`` of a frozen scipy distribution or None (no closed form)."""
    params = _family_parameters(dist)
    return None if params is None else (params[0].name, *params[1:])


def gc_gd_pareto_ratio(n_workers: int, redundancy: int, shape: float) -> float:
    """GC / GD expected time per iteration under Pareto times: ``r E[T_(N-r+1:N)] / E[T_(N:N)]``
    (eqs. 22-24 as reconstructed; the scale cancels). GC is faster per iteration when it is < 1.
    """
    n = check_int("n_workers", n_workers, low=1)
    r = check_int("redundancy", redundancy, low=1, high=n)
    beta = check_real("shape", shape, low=1.0, low_open=True)
    delay = pareto_delay(1.0, beta)
    return r * expected_order_statistic(delay, n - r + 1, n) / expected_order_statistic(delay, n, n)


def gc_gd_pareto_threshold(n_workers: int, redundancy: int) -> float:
    """The Pareto shape beta* below which GC beats GD per iteration (text after eq. 24):
    the root of :func:`gc_gd_pareto_ratio` = 1, which rises from 0 (beta -> 1) to r."""
    from scipy.optimize import brentq

    n = check_int("n_workers", n_workers, low=2)
    r = check_int("redundancy", redundancy, low=2, high=n)
    return float(brentq(lambda b: gc_gd_pareto_ratio(n, r, b) - 1.0, 1.0 + 1e-9, 1e3))


def expected_order_statistic(delay: rv_frozen, k: int, n: int, load: float = 1.0) -> float:
    """``E[T_(k:n)]`` of ``n`` i.i.d. worker times ``load * X`` (eq. 21/22, else eq. 28).

    Closed form (21) for exponential ``X`` (``scipy.stats.expon``), (22) for Pareto
    (``scipy.stats.pareto`` with ``loc=0``); numeric integration otherwise.
    """
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=1, high=n)
    load = check_real("load", load, low=0.0, low_open=True)
    name, shapes, loc, scale = _family(delay) or (None, (), 0.0, 1.0)
    if name == "expon":
        return load * expected_order_statistic_exponential(k, n, rate=1.0 / scale, shift=loc)
    if name == "pareto" and loc == 0.0:
        return load * expected_order_statistic_pareto(k, n, t0=scale, xi=shapes[0])
    return load * expected_order_statistic_numeric(delay, k, n)


class _GroupTime(stats.rv_continuous):
    """Completion time of a group: ``wait_for``-th fastest of its workers' ``load * X_i``.

    ``workers`` is one frozen distribution (identical workers, ``n`` of them) or a list of
    frozen distributions (non-identical workers, ``n=None``).
    """

    _counter = 0

    def __init__(self, workers=None, n=None, wait_for=1, load=1.0, **kwargs):
        self._workers, self._n, self._wait_for, self._load = workers, n, wait_for, load
        if "a" not in kwargs:
            dists = workers if isinstance(workers, list) else [workers]
            kwargs["a"] = min(float(d.support()[0]) for d in dists) * load
        if "name" not in kwargs:  # unique: HeterogeneousCluster groups families by name
            _GroupTime._counter += 1
            kwargs["name"] = f"lagc_group_time_{_GroupTime._counter}"
        super().__init__(**kwargs)

    def _updated_ctor_param(self):  # scipy re-creates the generator when freezing
        params = super()._updated_ctor_param()
        params.update(workers=self._workers, n=self._n, wait_for=self._wait_for, load=self._load)
        return params

    def _cdf(self, t):
        return order_statistic_cdf(
            self._workers, self._wait_for, np.asarray(t, dtype=float) / self._load, self._n
        )

    def _sf(self, t):
        return order_statistic_survival(
            self._workers, self._wait_for, np.asarray(t, dtype=float) / self._load, self._n
        )

    def _ppf(self, q):
        q = np.asarray(q, dtype=float)
        if self._n is not None:  # identical: P[Bin(n, p) >= k] = I_p(k, n-k+1), invert in p
            p = special.betaincinv(self._wait_for, self._n - self._wait_for + 1, q)
            return self._load * self._workers.ppf(p)
        dists = self._workers if isinstance(self._workers, list) else [self._workers]
        hi0 = max(float(d.ppf(0.5)) for d in dists) * self._load
        out = np.empty(q.shape)
        for idx, qq in np.ndenumerate(q):
            lo, hi = float(self.a), max(hi0, float(self.a) + 1.0)
            while self._cdf(hi) < qq:
                lo, hi = hi, 2.0 * hi
            for _ in range(80):  # bisection on the monotone CDF
                mid = 0.5 * (lo + hi)
                if self._cdf(mid) < qq:
                    lo = mid
                else:
                    hi = mid
            out[idx] = 0.5 * (lo + hi)
        return out


def group_completion_time(
    delay: rv_frozen | Sequence[rv_frozen], workers_per_group: int, wait_for: int, load: float = 1.0
) -> rv_frozen:
    """Frozen distribution of one group's completion time (the variables of eq. 28).

    A sequence ``delay`` holds the ``workers_per_group`` non-identical workers.
    """
    n = check_int("workers_per_group", workers_per_group, low=1)
    wait_for = check_int("wait_for", wait_for, low=1, high=n)
    load = check_real("load", load, low=0.0, low_open=True)
    if hasattr(delay, "rvs"):
        return _GroupTime(workers=delay, n=n, wait_for=wait_for, load=load)()
    dists = list(delay)
    if len(dists) != n:
        raise ValueError(f"delay must hold workers_per_group={n} distributions, got {len(dists)}")
    return _GroupTime(workers=dists, n=None, wait_for=wait_for, load=load)()


def _worker_dists(delay, n_workers):
    if isinstance(delay, HeterogeneousCluster):
        if delay.n_workers != n_workers:
            raise ValueError(
                f"delay must be a cluster of n_workers={n_workers} workers, got {delay.n_workers}"
            )
        return list(delay.dists)
    if hasattr(delay, "rvs"):
        return None
    raise ValueError(
        f"delay must be a frozen distribution or a HeterogeneousCluster, got delay={delay!r}"
    )


def expected_iteration_time(
    scheme: str,
    n_workers: int,
    redundancy: int = 1,
    n_groups: int | None = None,
    delay: rv_frozen | HeterogeneousCluster | None = None,
    n_selected: int | None = None,
) -> float:
    """Expected computing time of one iteration (Section V-A).

    GD eq. 23, GC eq. 24, LAG eq. 27 (``m = n_selected`` workers), grouped schemes eq. 28/29/31
    (``n_selected`` of ``G`` groups). ``delay``: unit-load distribution or a
    ``HeterogeneousCluster`` (then the first ``n_selected`` units are selected).
    """
    layout = scheme_layout(scheme, n_workers, redundancy, n_groups)
    dists = _worker_dists(delay, layout.n_workers)
    n_selected = layout.n_groups if n_selected is None else n_selected
    n_selected = check_int("n_selected", n_selected, low=0, high=layout.n_groups)
    if n_selected == 0:
        return 0.0
    fam = _family(delay) if dists is None else None
    if fam is None:  # no family to key the cache by
        return _iteration_time(layout, delay, dists, n_selected)
    key = (layout.n_workers, layout.stored_per_worker, layout.n_groups, n_selected, fam)
    if key not in _TIME_CACHE:
        if len(_TIME_CACHE) > 4096:
            _TIME_CACHE.clear()
        _TIME_CACHE[key] = _iteration_time(layout, delay, dists, n_selected)
    return _TIME_CACHE[key]


_TIME_CACHE: dict = {}  # eq. 28 integrals are reused across tables and curves


def _iteration_time(layout, delay, dists, n_selected):
    n_units = layout.n_groups
    n_g, k_g, load = layout.workers_per_group, layout.wait_for, layout.stored_per_worker
    if n_g == 1:  # every unit is one worker: plain order statistic (eq. 21/22)
        if dists is None:
            return expected_order_statistic(delay, n_selected, n_selected, load)
        return load * expected_order_statistic_numeric(dists[:n_selected], n_selected)
    if n_units == 1:  # one group: k-th of n (GC, eq. 24)
        if dists is None:
            return expected_order_statistic(delay, k_g, n_g, load)
        return load * expected_order_statistic_numeric(dists, k_g)
    if dists is None:
        group = group_completion_time(delay, n_g, k_g, load)
        return expected_order_statistic_numeric(group, n_selected, n_selected)
    groups = [
        group_completion_time(dists[g * n_g : (g + 1) * n_g], n_g, k_g, load)
        for g in range(n_selected)
    ]
    return expected_order_statistic_numeric(groups, n_selected)


def iteration_complexity_gd(kappa: float, initial_gap: float, eps: float) -> float:
    """Eq. (19): ``I_GD(ε) = κ log(Δ/ε)`` (stepsize ``1/L``); 0 when ``Δ <= ε``."""
    kappa = check_real("kappa", kappa, low=1.0)
    initial_gap = check_real("initial_gap", initial_gap, low=0.0, low_open=True)
    eps = check_real("eps", eps, low=0.0, low_open=True)
    return kappa * max(math.log(initial_gap / eps), 0.0)


def _check_lag(xi, history):
    xi = check_real("xi", xi, low=0.0)
    history = check_int("history", history, low=1)
    if history * xi >= 1.0:
        raise ValueError(
            f"xi must satisfy 0 <= xi < 1/D = {1.0 / history:g} for the LAG "
            f"stepsize (1 - sqrt(D xi))/L, got xi={xi:g}, D={history}"
        )
    return xi, history


def iteration_complexity_lag(
    kappa: float, initial_gap: float, eps: float, xi: float, history: int
) -> float:
    """Eq. (20): ``I_LAG(ε) = κ/(1 - sqrt(Dξ)) log(Δ/ε)`` (LAG Theorem 1, ``ξ_d = ξ``)."""
    xi, history = _check_lag(xi, history)
    return iteration_complexity_gd(kappa, initial_gap, eps) / (1.0 - math.sqrt(history * xi))


def lag_stepsize(total_smoothness: float, xi: float, history: int) -> float:
    """LAG stepsize (LAGC Section III-B) ``α = (1 - sqrt(Dξ))/L`` (reduces to ``1/L`` for ``ξ = 0``)."""
    total_smoothness = check_real("total_smoothness", total_smoothness, low=0.0, low_open=True)
    xi, history = _check_lag(xi, history)
    return (1.0 - math.sqrt(history * xi)) / total_smoothness


def selection_thresholds(xi: float, history: int, stepsize: float, n_units: int) -> np.ndarray:
    """``γ_d = ξ / (d α² M²)`` for ``d = 1..D`` (eq. 25), ``M`` = workers (LAG) or groups."""
    xi = check_real("xi", xi, low=0.0)
    history = check_int("history", history, low=1)
    stepsize = check_real("stepsize", stepsize, low=0.0, low_open=True)
    n_units = check_int("n_units", n_units, low=1)
    d = np.arange(1, history + 1)
    return xi / (d * stepsize**2 * n_units**2)


def selection_period(
    unit_smoothness: ArrayLike, xi: float, history: int, stepsize: float
) -> np.ndarray:
    """``d_m = max{d <= D : L_m² <= γ_d}`` (0 if none): unit ``m`` is selected at most once
    every ``d_m + 1`` iterations, i.e. in at most ``ceil(k/(d_m+1))`` of ``k`` (eq. 25).
    """
    L = check_array("unit_smoothness", unit_smoothness, ndim=1)
    gammas = selection_thresholds(xi, history, stepsize, L.size)
    return (L[:, None] ** 2 <= gammas[None, :]).sum(axis=1)


def heterogeneity_fraction(unit_smoothness: ArrayLike, gamma: ArrayLike) -> np.ndarray:
    """``h(γ) = (1/M) Σ_m 1(L_m² <= γ)`` (eq. 26; ``h_G`` of eq. 30 over groups)."""
    L = check_array("unit_smoothness", unit_smoothness, ndim=1)
    gamma = check_array("gamma", gamma)
    return (L[:, None] ** 2 <= gamma.reshape(-1)[None, :]).mean(axis=0).reshape(gamma.shape)


def selection_fraction_bound(
    unit_smoothness: ArrayLike, xi: float, history: int, stepsize: float
) -> float:
    """Upper bound ``1 - ΔC`` on the average fraction of selected units (eq. 26 / 30), with
    ``ΔC = Σ_{d=1}^{D} (1/d - 1/(d+1)) h(γ_d)``."""
    L = check_array("unit_smoothness", unit_smoothness, ndim=1)
    gammas = selection_thresholds(xi, history, stepsize, L.size)
    d = np.arange(1, gammas.size + 1)
    return 1.0 - float(np.sum((1.0 / d - 1.0 / (d + 1)) * heterogeneity_fraction(L, gammas)))


def _selected(unit_smoothness, total_smoothness, n_units, xi, history) -> tuple[float, int]:
    """``1 - ΔC`` at the eq. (20) step and ``m = ceil((1 - ΔC) M)`` (at least 1) units."""
    L_units = check_array("unit_smoothness", unit_smoothness, ndim=1, shape=(n_units,))
    alpha = lag_stepsize(total_smoothness, xi, history)
    fraction = selection_fraction_bound(L_units, xi, history, alpha)
    return fraction, max(1, min(n_units, math.ceil(fraction * n_units - 1e-12)))


def loads_per_iteration(
    scheme: str,
    n_workers: int,
    redundancy: int = 1,
    n_groups: int | None = None,
    n_selected: float | None = None,
) -> dict:
    """Downloads, uploads and fine-partition gradients of one iteration.

    With ``m = n_selected`` active units (workers for LAG, groups otherwise; all by default):
    downloads ``m N/G``, uploads ``m (N/G - min(r,N/G) + 1)``, computation
    ``m (N/G) min(r, N/G)`` — e.g. GD ``2N`` messages and ``N`` gradients, GC
    ``2N - r + 1`` messages and ``rN`` gradients (eq. 32, 33).
    """
    layout = scheme_layout(scheme, n_workers, redundancy, n_groups)
    m = layout.n_groups
    if n_selected is not None:
        m = check_real("n_selected", n_selected, low=0.0, high=layout.n_groups)
    downloads = m * layout.workers_per_group
    uploads = m * layout.wait_for
    return {
        "downloads": downloads,
        "uploads": uploads,
        "communication": downloads + uploads,
        "computation": m * layout.workers_per_group * layout.stored_per_worker,
    }


def complexities(
    scheme: str,
    n_workers: int,
    redundancy: int = 1,
    n_groups: int | None = None,
    *,
    delay: rv_frozen | HeterogeneousCluster,
    kappa: float,
    initial_gap: float,
    eps: float,
    unit_smoothness: ArrayLike | None = None,
    total_smoothness: float | None = None,
    xi: float = 0.0,
    history: int = 10,
) -> dict:
    """Time, communication and computation complexity at target gap ``ε`` (Table II).

    GD, GC, G-GD: ``I_GD(ε)`` iterations of the full per-iteration cost (eq. 23, 24, 29, 32,
    33, 35). LAG, G-LAG, LAGC: ``I_LAG(ε)`` iterations with at most ``ceil((1-ΔC) M)`` units
    selected (eq. 26, 27, 30, 31, 34): *upper bounds*; they need ``unit_smoothness`` (``L_m`` of
    the workers for LAG, groups for G-LAG / LAGC) and ``total_smoothness`` ``L``.

    Returns ``iterations``, ``selected`` (units per iteration), ``time_per_iter``,
    ``time``, ``communication``, ``computation``, ``bound`` (True for lazy schemes).
    """
    layout = scheme_layout(scheme, n_workers, redundancy, n_groups)
    lazy = scheme in ("lag", "g-lag", "lagc")
    if lazy:
        if unit_smoothness is None or total_smoothness is None:
            raise ValueError(f"unit_smoothness and total_smoothness must be given for {scheme}")
        iterations = iteration_complexity_lag(kappa, initial_gap, eps, xi, history)
        _, selected = _selected(unit_smoothness, total_smoothness, layout.n_groups, xi, history)
    else:
        iterations = iteration_complexity_gd(kappa, initial_gap, eps)
        selected = layout.n_groups
    t_iter = expected_iteration_time(
        scheme, n_workers, redundancy, layout.n_groups, delay, n_selected=selected
    )
    loads = loads_per_iteration(scheme, n_workers, redundancy, layout.n_groups, selected)
    return {
        "scheme": scheme,
        "n_groups": layout.n_groups,
        "iterations": iterations,
        "selected": selected,
        "time_per_iter": t_iter,
        "time": iterations * t_iter,
        "communication": iterations * loads["communication"],
        "computation": iterations * loads["computation"],
        "bound": lazy,
    }


def skip_smoothness_limit(xi: float, history: int, n_units: int, d: int = 1) -> float:
    """Largest ``L_m / L`` for which eq. (25) guarantees a skip, with the eq. (20) step size.

    ``L_m² <= γ_d = ξ/(d α² M²)`` with ``α = (1 - sqrt(Dξ))/L`` reads
    ``L_m/L <= sqrt(ξ/d) / ((1 - sqrt(Dξ)) M)``. Since the ``L_m`` of convex parts add up to at
    least ``L``, their mean is at least ``L/M``: a unit skips only if it is smoother than
    the average by the factor ``sqrt(ξ/d)/(1 - sqrt(Dξ))``, which is small unless
    ``sqrt(Dξ)`` is close to 1, where eq. (20)'s factor ``1/(1 - sqrt(Dξ))`` is large.
    """
    xi, history = _check_lag(xi, history)
    n_units = check_int("n_units", n_units, low=1)
    d = check_int("d", d, low=1, high=history)
    return math.sqrt(xi / d) / ((1.0 - math.sqrt(history * xi)) * n_units)


def lazy_time_ratio_bound(
    unit_smoothness: ArrayLike,
    total_smoothness: float,
    n_workers: int,
    redundancy: int,
    n_groups: int,
    *,
    delay: rv_frozen | HeterogeneousCluster,
    xi: float,
    history: int,
) -> dict:
    """Time bound of G-LAG / LAGC (eq. 31) over the time of its all-active twin (eq. 29).

    ``Δ`` and ``ε`` cancel: ``ratio = [I_LAG/I_GD] × E[T_(m:m)] / E[T_(G:G)]`` with
    ``I_LAG/I_GD = 1/(1 - sqrt(Dξ))`` (eq. 19, 20), ``m = ceil((1 - ΔC_G) G)`` (eq. 30).

    Returns ``iteration_factor``, ``selection_bound`` (``1 - ΔC_G``), ``selected``,
    ``time_factor`` and ``ratio`` (< 1: the lazy scheme wins in the bound).
    """
    layout = lagc_layout(n_workers, redundancy, n_groups)
    fraction, m = _selected(unit_smoothness, total_smoothness, layout.n_groups, xi, history)
    t_lazy = expected_iteration_time("lagc", n_workers, redundancy, n_groups, delay, n_selected=m)
    t_all = expected_iteration_time("lagc", n_workers, redundancy, n_groups, delay)
    factor = 1.0 / (1.0 - math.sqrt(history * xi))
    return {
        "iteration_factor": factor,
        "selection_bound": fraction,
        "selected": m,
        "time_factor": t_lazy / t_all,
        "ratio": factor * t_lazy / t_all,
    }
