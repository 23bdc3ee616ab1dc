"""Stream iterative coded computing on heterogeneous workers (Esfahanizadeh, Cohen, Médard):
closed forms of the system model (Section II, eq. 1), the optimal load split (Section III,
eqs. 4-5, Theorem 2: ``kappa_p(theta)``, ``theta`` by a root search, integer rounding keeping
``sum kappa_p = K Omega``, the uniform split, Example 1), queueing (Section IV: rate
stability, ``F_itr = prod F_p``, eq. 8's service moments, Kingman eq. 6, Pollaczek-Khinchin
eq. 7, the lower bound eq. 9) and Algorithm 1's code parameters (Section V, eq. 10).

Task times are described by their first two moments; where a distribution is needed a task
time is gamma with those moments (the paper's ``Exp(mu_p / C)`` when ``sigma_p = m_p``).

Reference: esfahanizadeh2022stream.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from scipy import optimize, stats

from codedlib._validation import check_array, check_int, check_real

if TYPE_CHECKING:
    from collections.abc import Iterable

    import pandas as pd
    from numpy.typing import ArrayLike


def _require(name, values, ok, rule):
    """ValueError naming the first entry of ``values`` where ``ok`` fails."""
    if not np.all(ok):
        p = int(np.flatnonzero(~np.asarray(ok))[0])
        raise ValueError(f"{name} must satisfy {name} {rule}, got {name}[{p}]={values[p]:g}")


@dataclass(frozen=True)
class StreamWorkers:
    """P heterogeneous workers: task-time moments and per-iteration communication time.

    ``task_mean[p] = E[T_p] = m_p``, ``task_second_moment[p] = E[T_p^2]`` and
    ``comm_time[p] = c_p`` (Section II, Fig. 1). Validated on construction: P >= 1,
    ``m_p > 0``, ``E[T_p^2] >= m_p^2`` (non-negative variance), ``c_p >= 0``.
    """

    task_mean: np.ndarray
    task_second_moment: np.ndarray
    comm_time: np.ndarray

    def __post_init__(self):
        mean = check_array("task_mean", self.task_mean, ndim=1)
        if mean.size == 0:
            raise ValueError("the cluster must have P >= 1 workers, got P=0")
        second = check_array("task_second_moment", self.task_second_moment, shape=mean.shape)
        comm = check_array("comm_time", self.comm_time, shape=mean.shape)
        _require("task_mean", mean, mean > 0, "> 0 (E[T_p] of every worker)")
        _require("task_second_moment", second, second >= 0, ">= 0")
        var_ok = second - mean**2 >= -1e-12 * np.maximum(mean**2, 1.0)
        _require("task_second_moment", second, var_ok, ">= task_mean^2 (variance >= 0)")
        _require("comm_time", comm, comm >= 0, ">= 0")
        second = np.maximum(second, mean**2)
        for name, arr in (("task_mean", mean), ("task_second_moment", second), ("comm_time", comm)):
            arr = arr.copy()
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @classmethod
    def exponential(
        cls, rates: ArrayLike, comm_time: ArrayLike, complexity: float = 1.0
    ) -> StreamWorkers:
        """Workers with ``T_p ~ Exp(mu_p / C)`` (Example 2): ``m_p = sigma_p = C / mu_p``."""
        rates = check_array("rates", rates, ndim=1)
        _require("rates", rates, rates > 0, "> 0")
        complexity = check_real("complexity", complexity, low=0, low_open=True)
        mean = complexity / rates
        return cls(mean, 2.0 * mean**2, comm_time)

    @property
    def n_workers(self) -> int:
        return int(self.task_mean.size)

    @property
    def task_var(self) -> np.ndarray:
        """``sigma_p^2 = E[T_p^2] - E[T_p]^2`` (eq. 5)."""
        return np.maximum(self.task_second_moment - self.task_mean**2, 0.0)

    def with_complexity(self, complexity: float) -> StreamWorkers:
        """Assumption 1: tasks of complexity C take ``C U_p``: ``E[T_p] = C E[U_p]``,
        ``E[T_p^2] = C^2 E[U_p^2]`` (``self`` describes unit-complexity tasks ``U_p``)."""
        c = check_real("complexity", complexity, low=0, low_open=True)
        return StreamWorkers(c * self.task_mean, c**2 * self.task_second_moment, self.comm_time)

    def gamma_parameters(self) -> tuple[np.ndarray, np.ndarray]:
        """Shape and scale of a gamma task time with these moments (``inf, 0`` if deterministic).

        ``shape = m^2 / sigma^2`` and ``scale = sigma^2 / m``; exponential tasks give shape 1.
        """
        var = self.task_var
        shape = np.where(var > 0, self.task_mean**2 / np.where(var > 0, var, 1.0), np.inf)
        return shape, var / self.task_mean


# Example 2 (Section IV): five workers, Exp(mu_p / C) task times.
EXAMPLE2 = {
    "rates": (5.29e7, 7.26e7, 3.10e7, 1.37e7, 6.03e7),
    "comm_time": (0.0481, 0.0562, 0.0817, 0.0509, 0.0893),
    "complexity": 2_827_440.0,  # C = d * alpha * n / m = 51 * 10 * 554400 / 100
    "K": 50,
    "omega": 1.1,
    "iterations": 50,
    "arrival_rate": 0.01,
    "gamma": 1.0,
    "paper_optimal_delay": 47.93,
    "paper_uniform_delay": 129.96,
    "paper_lower_bound": 42.04,
}


def example2_workers(complexity: float = EXAMPLE2["complexity"]) -> StreamWorkers:
    """The P = 5 workers of Example 2 (``T_p ~ Exp(mu_p / C)``, listed ``c_p``)."""
    return StreamWorkers.exponential(EXAMPLE2["rates"], EXAMPLE2["comm_time"], complexity)


def total_tasks(K: int, omega: float) -> int:
    """``K * Omega`` as an integer (tasks per iteration, Sec. V); ValueError if it is not one."""
    K = check_int("K", K, low=1)
    omega = check_real("omega", omega, low=1.0)
    total = K * omega
    if abs(total - round(total)) > 1e-9 * max(1.0, total):
        raise ValueError(
            f"K*omega must be an integer number of tasks, got K={K}, omega={omega:g}, "
            f"K*omega={total:g}"
        )
    return round(total)


def split_coefficients(
    workers: StreamWorkers, gamma: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``a_p = c_p + gamma c_p^2``, ``b_p = m_p + 2 gamma c_p m_p + gamma sigma_p^2`` and
    ``q_p = gamma m_p^2`` of problem (5), so that for ``kappa > 0``
    ``E[T_{p,kappa}] + gamma E[T_{p,kappa}^2] = a_p + b_p kappa + q_p kappa^2``.
    """
    gamma = check_real("gamma", gamma, low=0.0)
    m, c = workers.task_mean, workers.comm_time
    return c + gamma * c**2, m + 2 * gamma * c * m + gamma * workers.task_var, gamma * m**2


def assignment_moments(workers: StreamWorkers, kappa: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``E[T_{p,kappa_p}]`` and ``E[T_{p,kappa_p}^2]`` of eq. (1) (Section III-B).

    ``E[T] = c I + kappa m``; ``E[T^2] = c^2 I + 2 kappa c m + kappa E[T_p^2] +
    kappa (kappa - 1) m^2`` with ``I = 1[kappa > 0]``; ``kappa`` may be real (relaxation).
    """
    kappa = _check_kappa(workers, kappa)
    ind = (kappa > 0).astype(float)
    m, c, s2 = workers.task_mean, workers.comm_time, workers.task_second_moment
    first = c * ind + kappa * m
    second = c**2 * ind + 2 * kappa * c * m + kappa * s2 + kappa * (kappa - 1) * m**2
    return first, second


def balance_metric(workers: StreamWorkers, kappa: ArrayLike, gamma: float) -> np.ndarray:
    """``E[T_{p,kappa_p}] + gamma E[T_{p,kappa_p}^2]`` per worker (Fig. 2b, eq. 4)."""
    gamma = check_real("gamma", gamma, low=0.0)
    first, second = assignment_moments(workers, kappa)
    return first + gamma * second


def kappa_of_theta(workers: StreamWorkers, theta: float, gamma: float) -> np.ndarray:
    """Theorem 2: ``kappa_p = b_p/(2 gamma m_p^2) (-1 + sqrt(1 + 4 gamma m_p^2 (theta-a_p)^+ / b_p^2))``.

    Evaluated in the algebraically equal, cancellation-free form
    ``2 (theta - a_p)^+ / (b_p + sqrt(b_p^2 + 4 gamma m_p^2 (theta - a_p)^+))``, which is also
    the limit ``(theta - a_p)^+ / b_p`` for ``gamma -> 0``.
    """
    theta = check_real("theta", theta, low=0.0)
    a, b, q = split_coefficients(workers, gamma)
    excess = np.maximum(theta - a, 0.0)
    return 2.0 * excess / (b + np.sqrt(b**2 + 4.0 * q * excess))


def solve_theta(workers: StreamWorkers, n_tasks: float, gamma: float) -> float:
    """The unique ``theta`` with ``sum_p kappa_p(theta) = n_tasks`` (Theorem 2).

    ``sum kappa_p`` is continuous and strictly increasing in ``theta`` above ``min a_p``;
    the bracket is ``[min a_p, max_p h_p(n_tasks)]`` where ``h_p(k) = a_p + b_p k + q_p k^2``
    (at the upper end every worker alone already takes ``n_tasks``). Brent's method.
    """
    n_tasks = check_real("n_tasks", n_tasks, low=0.0, low_open=True)
    a, b, q = split_coefficients(workers, gamma)
    lo, hi = float(np.min(a)), float(np.max(a + b * n_tasks + q * n_tasks**2))

    def excess(theta):
        return float(np.sum(kappa_of_theta(workers, theta, gamma))) - n_tasks

    hi = hi * (1 + 1e-9) + 1e-300
    while excess(hi) < 0:  # guards round-off at the bracket's end only
        hi *= 2.0
    return float(
        optimize.brentq(excess, lo, hi, xtol=1e-15 * max(1.0, hi), rtol=1e-15, maxiter=500)
    )


def round_split(kappa: ArrayLike, n_tasks: int) -> np.ndarray:
    """Closest integers to ``kappa`` summing to ``n_tasks`` (footnote 2, Section VI).

    Largest-remainder rounding: floor every entry, then give the missing tasks to the
    largest fractional parts (ties to the lower index). Zero entries stay zero.
    """
    kappa = check_array("kappa", kappa, ndim=1)
    n_tasks = check_int("n_tasks", n_tasks, low=0)
    if np.any(kappa < 0):
        raise ValueError("kappa must be non-negative")
    if abs(kappa.sum() - n_tasks) > 1e-6 * max(1.0, n_tasks):
        raise ValueError(f"kappa must sum to n_tasks={n_tasks}, got sum={kappa.sum():g}")
    base = np.floor(kappa + 1e-9).astype(np.int64)
    missing = n_tasks - int(base.sum())
    frac = kappa - base
    if missing > 0:
        order = np.lexsort((np.arange(kappa.size), -frac))
        base[order[:missing]] += 1
    elif missing < 0:  # only through the 1e-9 guard; take back from the smallest parts
        order = np.lexsort((np.arange(kappa.size), frac))
        order = order[base[order] > 0]
        base[order[:-missing]] -= 1
    return base


@dataclass(frozen=True)
class LoadSplit:
    """A load split: continuous ``kappa`` (Theorem 2), integer ``kappa`` and ``theta``.

    ``active`` marks ``{p : a_p < theta}`` (proof of Theorem 2). For the uniform split
    ``theta`` is nan and ``kappa_continuous = K Omega / P``.
    """

    kind: str
    theta: float
    kappa_continuous: np.ndarray
    kappa: np.ndarray
    active: np.ndarray = field(repr=False)

    @property
    def n_active(self) -> int:
        return int(np.count_nonzero(self.active))


def optimal_split(workers: StreamWorkers, K: int, omega: float, gamma: float) -> LoadSplit:
    """Optimal split of ``K Omega`` tasks per iteration (Theorem 2), rounded to integers."""
    n_tasks = total_tasks(K, omega)
    theta = solve_theta(workers, n_tasks, gamma)
    kappa = kappa_of_theta(workers, theta, gamma)
    a, _, _ = split_coefficients(workers, gamma)
    rounded = round_split(kappa * (n_tasks / kappa.sum()), n_tasks)
    return LoadSplit("optimal", theta, kappa, rounded, a < theta)


def uniform_split(workers: StreamWorkers, K: int, omega: float) -> LoadSplit:
    """Baseline oblivious to heterogeneity: ``K Omega / P`` tasks each, rounded (Section VI)."""
    n_tasks = total_tasks(K, omega)
    kappa = np.full(workers.n_workers, n_tasks / workers.n_workers)
    rounded = round_split(kappa, n_tasks)
    return LoadSplit("uniform", math.nan, kappa, rounded, rounded > 0)


def example1_kappa(rates: ArrayLike, theta: float, gamma: float) -> np.ndarray:
    """Example 1 (``c_p = 0``, ``T_p ~ Exp(mu_p)``):
    ``kappa_p = (mu_p + gamma)/(2 gamma) (-1 + sqrt(1 + 4 gamma mu_p^2 theta / (mu_p + gamma)^2))``.
    """
    r = check_array("rates", rates, ndim=1)
    theta = check_real("theta", theta, low=0.0)
    g = check_real("gamma", gamma, low=0.0, low_open=True)
    return (r + g) / (2 * g) * (-1 + np.sqrt(1 + 4 * g * r**2 * theta / (r + g) ** 2))


class UnstableQueueError(ValueError):
    """Raised when ``E[T_s] >= E[T_a]``: the master's queue is not rate stable (Section IV-A)."""


def _check_kappa(workers: StreamWorkers, kappa) -> np.ndarray:
    kappa = check_array("kappa", kappa, shape=(workers.n_workers,))
    _require("kappa", kappa, kappa >= 0, ">= 0")
    return kappa


def _assignment_distributions(workers: StreamWorkers, kappa):
    """Shift, shape and scale of each active ``T_{p,kappa_p}`` (shifted gamma) and its mean
    work ``kappa_p m_p`` (the step of a deterministic worker)."""
    kappa = _check_kappa(workers, kappa)
    a, (shape, scale) = kappa > 0, workers.gamma_parameters()
    return workers.comm_time[a], kappa[a] * shape[a], scale[a], kappa[a] * workers.task_mean[a]


def iteration_time_cdf(workers: StreamWorkers, kappa: ArrayLike, t: ArrayLike) -> np.ndarray:
    """``F_itr(t) = prod_{p active} F_p(t)`` for no purging (Section IV).

    ``T_{p,kappa}`` is ``c_p`` plus a gamma variable of shape ``kappa_p m_p^2/sigma_p^2``
    and scale ``sigma_p^2/m_p`` (for exponential tasks: shape ``kappa_p``, scale
    ``C/mu_p``, the shifted gamma of Section VI); deterministic tasks give a step.
    """
    shift, shape, scale, det = _assignment_distributions(workers, kappa)
    t = np.asarray(t, dtype=float)
    out = np.ones_like(t)
    for c, k, s, d in zip(shift, shape, scale, det):
        out = out * (stats.gamma.cdf(t - c, k, scale=s) if np.isfinite(k) else t >= c + d)
    return out


def iteration_time_moments(workers: StreamWorkers, kappa: ArrayLike) -> tuple[float, float]:
    """``E[T_itr]`` and ``E[T_itr^2]`` for ``T_itr = max_p T_{p,kappa_p}`` (no purging): the
    integrals of the survival function of ``F_itr = prod_p F_p`` (Section IV) by composite
    16-point Gauss-Legendre on panels (deterministic workers' steps are panel edges), doubled
    until two results agree to a relative 1e-10.
    """
    shift, shape, scale, det = _assignment_distributions(workers, kappa)
    if shift.size == 0:
        raise ValueError("kappa must assign at least one task, got all zeros")
    stochastic = np.isfinite(shape)
    steps = shift[~stochastic] + det[~stochastic]
    start = float(max(shift.max(), steps.max() if steps.size else 0.0))  # F_itr = 0 below
    if not np.any(stochastic):
        return start, start**2
    c, k, s = shift[stochastic, None], shape[stochastic, None], scale[stochastic, None]
    stop = float(np.max(c[:, 0] + stats.gamma.isf(1e-17, k[:, 0], scale=s[:, 0])))
    edges_fixed = np.unique(
        np.concatenate(([start, stop], steps[(steps > start) & (steps < stop)]))
    )
    nodes, weights = np.polynomial.legendre.leggauss(16)

    def integrals(n_panels):
        edges = np.unique(
            np.concatenate(
                [np.linspace(lo, hi, n_panels + 1) for lo, hi in itertools.pairwise(edges_fixed)]
            )
        )
        half = np.diff(edges)[:, None] / 2
        t = ((edges[:-1, None] + edges[1:, None]) / 2 + half * nodes).ravel()
        wts = (half * weights).ravel()
        with np.errstate(divide="ignore"):
            log_f = stats.gamma.logcdf(t[None, :] - c, k, scale=s).sum(axis=0)
        if steps.size:
            log_f = log_f + np.where(np.all(t[None, :] >= steps[:, None], axis=0), 0.0, -np.inf)
        surv = -np.expm1(log_f)
        return float(wts @ surv), float(wts @ (2 * t * surv))

    prev = integrals(32)
    for n_panels in (64, 128, 256, 512, 1024, 2048, 4096, 8192):
        cur = integrals(n_panels)
        tol = (1e-10 * (start + abs(cur[0])), 1e-10 * (start**2 + abs(cur[1])))
        if all(abs(x - y) <= t for x, y, t in zip(cur, prev, tol)):
            break
        prev = cur
    return start + cur[0], start**2 + cur[1]


def service_time_moments(
    iter_mean: float, iter_second: float, iterations: int
) -> tuple[float, float]:
    """Eq. (8): ``E[T_s] = I E[T_itr]``, ``E[T_s^2] = I E[T_itr^2] + I (I-1) E[T_itr]^2``."""
    I = check_int("iterations", iterations, low=1)
    iter_mean = check_real("iter_mean", iter_mean, low=0.0)
    iter_second = check_real("iter_second", iter_second, low=0.0)
    if iter_second < iter_mean**2 * (1 - 1e-12):
        raise ValueError(
            f"iter_second must satisfy iter_second >= iter_mean^2, got {iter_second:g} < "
            f"{iter_mean**2:g}"
        )
    return I * iter_mean, I * iter_second + I * (I - 1) * iter_mean**2


def is_stable(service_mean: float, arrival_mean: float) -> bool:
    """Rate stability of the master's G/G/1 queue: ``E[T_s] < E[T_a]`` (Section IV-A)."""
    service_mean = check_real("service_mean", service_mean, low=0.0, high=np.inf)
    arrival_mean = check_real("arrival_mean", arrival_mean, low=0.0, low_open=True)
    return service_mean < arrival_mean


def _require_stable(service_mean, arrival_mean):
    if not is_stable(service_mean, arrival_mean):
        raise UnstableQueueError(
            f"queue is unstable: E[T_s]={service_mean:g} >= E[T_a]={arrival_mean:g} "
            f"(rho={service_mean / arrival_mean:.3f} >= 1); the average delay grows without bound"
        )


def kingman_delay(
    service_mean: float, service_second: float, arrival_mean: float, arrival_second: float
) -> float:
    """Kingman's approximation, eq. (6): ``D ~ E[T_s](1 + rho/(1-rho) (c_a^2 + c_s^2)/2)``."""
    service_mean = check_real("service_mean", service_mean, low=0.0)
    service_second = check_real("service_second", service_second, low=0.0)
    arrival_mean = check_real("arrival_mean", arrival_mean, low=0.0, low_open=True)
    arrival_second = check_real("arrival_second", arrival_second, low=0.0)
    _require_stable(service_mean, arrival_mean)
    rho = service_mean / arrival_mean
    ca2 = (arrival_second - arrival_mean**2) / arrival_mean**2
    cs2 = (service_second - service_mean**2) / service_mean**2 if service_mean > 0 else 0.0
    return service_mean * (1 + rho / (1 - rho) * (ca2 + cs2) / 2)


def pollaczek_khinchin_delay(
    service_mean: float, service_second: float, arrival_rate: float
) -> float:
    """Pollaczek-Khinchin, eq. (7): ``D = E[T_s] + lambda E[T_s^2] / (2 (1 - lambda E[T_s]))``."""
    service_mean = check_real("service_mean", service_mean, low=0.0)
    service_second = check_real("service_second", service_second, low=0.0)
    arrival_rate = check_real("arrival_rate", arrival_rate, low=0.0, low_open=True)
    _require_stable(service_mean, 1.0 / arrival_rate)
    return service_mean + arrival_rate * service_second / (2 * (1 - arrival_rate * service_mean))


@dataclass(frozen=True)
class StabilityThreshold:
    """Where a split's queue turns unstable (Section IV-A): ``rho = lambda I E[T_itr]`` (eq. 8,
    no purging; exact for Omega = 1) and ``critical_rate`` where ``rho = 1``; ``*_slowest``:
    the same for the slowest worker alone (``E[T_{p,kappa}] = c_p + kappa_p m_p``), a lower
    bound on ``rho``; ``drift = E[T_s] - E[T_a]``, how much longer each job of an unstable
    FIFO queue waits than the one before it (0 when stable).
    """

    rho: float
    rho_slowest: float
    critical_rate: float
    critical_rate_slowest: float
    slowest: int
    service_mean: float
    arrival_rate: float

    @property
    def stable(self) -> bool:
        return self.rho < 1.0

    @property
    def drift(self) -> float:
        return max(0.0, self.service_mean - 1.0 / self.arrival_rate)


def stability_threshold(
    workers: StreamWorkers, kappa: ArrayLike, iterations: int, arrival_rate: float
) -> StabilityThreshold:
    """Rate stability of a split (Section IV-A): ``rho`` from ``F_itr`` and the slowest worker's
    closed-form utilisation ``lambda I (c_p + kappa_p m_p)``, with both critical rates."""
    iterations = check_int("iterations", iterations, low=1)
    arrival_rate = check_real("arrival_rate", arrival_rate, low=0.0, low_open=True)
    first, _ = assignment_moments(workers, kappa)
    slowest = int(np.argmax(first))
    e1, _ = iteration_time_moments(workers, kappa)
    service, slow, lam = iterations * e1, iterations * float(first[slowest]), arrival_rate
    return StabilityThreshold(
        lam * service, lam * slow, 1.0 / service, 1.0 / slow, slowest, service, lam
    )


@dataclass(frozen=True)
class DelayPrediction:
    """No-purging prediction for one split (Section IV-B): ``E[T_s]``, ``rho`` and delays.

    ``pk_delay`` (eq. 7) and ``kingman_delay`` (eq. 6) are ``inf`` when not ``stable``.
    """

    service_mean: float
    rho: float
    stable: bool
    pk_delay: float
    kingman_delay: float


def predict_delay(
    workers: StreamWorkers, kappa: ArrayLike, iterations: int, arrival_rate: float
) -> DelayPrediction:
    """Theory for Poisson arrivals, no purging: ``F_itr`` -> eq. (8) -> eqs. (6)-(7)."""
    arrival_rate = check_real("arrival_rate", arrival_rate, low=0.0, low_open=True)
    e1, e2 = iteration_time_moments(workers, kappa)
    s1, s2 = service_time_moments(e1, e2, iterations)
    ta = 1.0 / arrival_rate
    stable = is_stable(s1, ta)
    if stable:
        pk = pollaczek_khinchin_delay(s1, s2, arrival_rate)
        king = kingman_delay(s1, s2, ta, 2.0 * ta**2)
    else:
        pk = king = math.inf
    return DelayPrediction(s1, s1 * arrival_rate, stable, pk, king)


def lower_bound_delay(workers: StreamWorkers, K: int, iterations: int) -> float:
    """Eq. (9): ``D_L = I (K / sum_p 1/E[T_p] + (1/P) sum_p c_p)``."""
    K = check_int("K", K, low=1)
    iterations = check_int("iterations", iterations, low=1)
    return iterations * (K / np.sum(1.0 / workers.task_mean) + np.mean(workers.comm_time))


def lower_bound_queue_delay(
    workers: StreamWorkers, K: int, iterations: int, arrival_rate: float
) -> float:
    """Not in the paper: the single ideal worker of Section IV-C, deterministic service
    ``D_L`` (eq. 9), behind the same Poisson queue — P-K (eq. 7) with ``E[T_s^2] = D_L^2``,
    i.e. ``D_L + lambda D_L^2 / (2 (1 - rho))``: the "theory lower bound" of the authors' code
    (``Analysis_Omega.m``, GitHub hesfahanizadeh/Layered_Computations_Cloudnet).
    """
    d = lower_bound_delay(workers, K, iterations)
    return pollaczek_khinchin_delay(d, d**2, arrival_rate)


def mismatch(workers: StreamWorkers, kappa: ArrayLike, gamma: float, over: str = "all") -> float:
    """Eq. (10): numerical variance of ``E[T_{p,kappa}] + gamma E[T_{p,kappa}^2]``.

    ``over="all"`` runs over every worker in P, as printed (idle workers contribute 0);
    ``over="active"`` only over workers with ``kappa_p > 0`` (the quantisation mismatch).
    """
    values = balance_metric(workers, kappa, gamma)
    if over == "active":
        values = values[np.asarray(kappa) > 0]
    elif over != "all":
        raise ValueError(f"over must be 'all' or 'active', got over={over!r}")
    return float(np.var(values))


def optimise_code_parameters(
    unit_workers: StreamWorkers, Z: float, K_values: Iterable[int], omega: float, gamma: float
) -> pd.DataFrame:
    """Algorithm 1: for each code ``{K, C = Z/K, Omega}`` scale the unit-task moments
    (Assumption 1), split by Theorem 2, quantise and compute the mismatch (eq. 10): one row per
    code with ``C``, ``mismatch`` (``mismatch_active``: active workers only), ``theta``,
    ``n_active`` and ``n_assigned`` (workers with a task after rounding); Algorithm 1 keeps the
    code with the smallest mismatch (first on ties).
    """
    import pandas as pd

    Z = check_real("Z", Z, low=0.0, low_open=True)
    K_values = np.asarray(K_values)
    if K_values.ndim != 1 or K_values.size == 0:
        raise ValueError("K_values must be a non-empty 1-d sequence of integers")
    rows = []
    for K in [check_int("K", K, low=1) for K in K_values]:
        w = unit_workers.with_complexity(Z / K)
        s = optimal_split(w, K, omega, gamma)
        mm = [mismatch(w, s.kappa, gamma, over) for over in ("all", "active")]
        rows.append((K, Z / K, *mm, s.theta, s.n_active, int(np.count_nonzero(s.kappa))))
    columns = ["K", "C", "mismatch", "mismatch_active", "theta", "n_active", "n_assigned"]
    return pd.DataFrame(rows, columns=columns)
