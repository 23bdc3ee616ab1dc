"""Order statistics of worker latencies: closed forms, numeric integration, Monte Carlo.

A master that waits for the ``k`` fastest of ``n`` workers waits for the ``k``-th order
statistic ``T_(k)`` (``k = n`` is the slowest worker). This module gives its expectation

* in closed form for shifted exponentials (harmonic numbers; LAGC eq. 21, CodedReduce
  Appendix) and Pareto delays (gamma functions; Reed--Solomon GC Appendix, LAGC eq. 22),
* as Reed--Solomon GC Proposition 1's large-``n`` limit ``t0 alpha**(-1/xi)`` (eq. 19),
* by numeric integration ``E[T_(k)] = int (1 - F_(k)(t)) dt`` for any distribution and for
  non-identical workers (LAGC eq. 28), with ``F_(k)`` computed exactly by a Poisson-binomial
  recursion over workers,
* by Monte Carlo for anything (vectorised over replicas with ``np.partition``).

>>> from codedlib.latency.order_stats import expected_order_statistic_exponential
>>> round(expected_order_statistic_exponential(10, 10), 6)   # H_10
2.928968

Reference: reisizadeh2022codedreduce, halbawi2018reedsolomon, zhang2021lagc.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from scipy import integrate, special, stats

from codedlib._validation import RngLike, as_generator, check_int, check_real
from codedlib.latency.models import HeterogeneousCluster, _family_parameters, sample_distribution

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike
    from scipy.stats._distn_infrastructure import rv_frozen


def harmonic_number(n: int) -> float:
    """``H_n = 1 + 1/2 + ... + 1/n`` (``H_0 = 0``; ``digamma(n+1) + gamma_E`` beyond 10**6)."""
    n = check_int("n", n, low=0)
    if n <= 1_000_000:
        return float(np.sum(1.0 / np.arange(n, 0, -1, dtype=float)))  # small terms first
    return float(special.digamma(n + 1.0) + np.euler_gamma)


def _check_k_n(k, n):
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=1, high=n)
    return k, n


def expected_order_statistic_exponential(
    k: int, n: int, rate: float = 1.0, shift: float = 0.0
) -> float:
    """``E[T_(k)]`` for ``n`` i.i.d. shifted exponentials: ``shift + (H_n - H_{n-k}) / rate``.

    LAGC eq. (21); CodedReduce Appendix (``E[T_(n-s)] = (H_n - H_s)/lambda + shift``).
    """
    k, n = _check_k_n(k, n)
    rate = check_real("rate", rate, low=0.0, low_open=True)
    shift = check_real("shift", shift)
    return shift + (harmonic_number(n) - harmonic_number(n - k)) / rate


def expected_order_statistic_pareto(k: int, n: int, t0: float, xi: float) -> float:
    """``E[T_(k)]`` for ``n`` i.i.d. Pareto(``t0``, ``xi``) delays (RS GC Appendix, LAGC eq. 22).

    ``t0 Gamma(n-k+1-1/xi) Gamma(n+1) / (Gamma(n-k+1) Gamma(n+1-1/xi))`` via ``gammaln``;
    ValueError unless ``xi (n-k+1) > 1`` (infinite mean).
    """
    k, n = _check_k_n(k, n)
    t0 = check_real("t0", t0, low=0.0, low_open=True)
    xi = check_real("xi", xi, low=0.0, low_open=True)
    m = n - k + 1  # number of workers at least as slow as the k-th
    if xi * m <= 1.0:
        raise ValueError(
            "xi must satisfy xi > 1/(n-k+1) for a finite mean of the k-th order statistic, "
            f"got xi={xi:g}, n={n}, k={k} (needs xi > {1.0 / m:g})"
        )
    log_ratio = (
        special.gammaln(m - 1.0 / xi)
        + special.gammaln(n + 1.0)
        - special.gammaln(m)
        - special.gammaln(n + 1.0 - 1.0 / xi)
    )
    return t0 * float(np.exp(log_ratio))


def pareto_order_statistic_limit(t0: float, xi: float, alpha: float) -> float:
    """Reed--Solomon GC Proposition 1 / eq. (19): ``lim E[T_((1-alpha) n)] = t0 alpha**(-1/xi)``.

    ``alpha = w/k`` is the fraction of workers not waited for (eq. 18); the limit is the
    Pareto ``(1-alpha)``-quantile.
    """
    t0 = check_real("t0", t0, low=0.0, low_open=True)
    xi = check_real("xi", xi, low=0.0, low_open=True)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True)
    return t0 * alpha ** (-1.0 / xi)


# --------------------------------------------------------------------------------------
# Numeric integration (LAGC eq. 28)
# --------------------------------------------------------------------------------------
def _as_cluster(dist_or_dists, n):
    """Return ``(source, n)``, ``source`` one distribution or a :class:`HeterogeneousCluster`,
    after checking ``n`` against the input."""
    if isinstance(dist_or_dists, HeterogeneousCluster):
        cluster = dist_or_dists
    elif hasattr(dist_or_dists, "rvs") and hasattr(dist_or_dists, "cdf"):
        if n is None:
            raise ValueError("n must be given (n >= 1) for a single distribution, got n=None")
        return dist_or_dists, check_int("n", n, low=1)
    else:
        cluster = HeterogeneousCluster(dist_or_dists)
    if n is not None:
        n = check_int("n", n, low=1)
        if n != cluster.n_workers:
            raise ValueError(
                f"n must equal the number of worker distributions {cluster.n_workers}, got n={n}"
            )
    return cluster, cluster.n_workers


def _at_least_k_probability(p: np.ndarray, k: int, complement: bool = True) -> np.ndarray:
    """``P[at least k of N independent events]``; ``p`` has shape ``(..., N)``.

    Poisson-binomial recursion on counts capped at ``k`` (``O(N k)``); ``complement=True`` may
    run on the complementary events (faster, less relative precision near 0).
    """
    n_workers = p.shape[-1]
    if complement and k > n_workers - k + 1:  # at least k successes <=> at most N-k failures
        return 1.0 - _at_least_k_probability(1.0 - p, n_workers - k + 1)
    # counts[..., j] = P[j successes so far] for j < k; counts[..., k] = P[>= k]
    counts = np.zeros(p.shape[:-1] + (k + 1,))
    counts[..., 0] = 1.0
    for i in range(n_workers):
        q = p[..., i, None]
        moved = counts[..., :-1] * q
        counts[..., :-1] *= 1.0 - q
        counts[..., 1:] += moved
    return counts[..., k]


def _count_tail_probabilities(p: np.ndarray, ms) -> np.ndarray:
    """``P[at least m of N independent events]`` for every ``m`` in ``ms``: shape ``(..., len(ms))``.

    Full Poisson-binomial pmf (``O(N**2)``) summed from the top (tiny tails stay precise).
    """
    n_workers = p.shape[-1]
    pmf = np.zeros(p.shape[:-1] + (n_workers + 1,))
    pmf[..., 0] = 1.0
    for i in range(n_workers):
        q = p[..., i, None]
        moved = pmf[..., : i + 1] * q
        pmf[..., : i + 1] *= 1.0 - q
        pmf[..., 1 : i + 2] += moved
    tails = np.cumsum(pmf[..., ::-1], axis=-1)[..., ::-1]  # tails[..., m] = P[count >= m]
    return tails[..., np.asarray(ms)]


def order_statistic_cdf(
    dist_or_dists: rv_frozen | Sequence[rv_frozen] | HeterogeneousCluster,
    k: int,
    t: ArrayLike,
    n: int | None = None,
) -> np.ndarray:
    """CDF ``F_(k)(t) = P[T_(k) <= t]`` of the ``k``-th fastest of the workers.

    Identical workers (one distribution and ``n``): ``P[Bin(n, F(t)) >= k]``. Non-identical
    workers (a sequence of distributions or a ``HeterogeneousCluster``): exact Poisson-binomial
    recursion over the workers' CDFs ``F_i(t)`` (no subset enumeration).
    """
    source, n = _as_cluster(dist_or_dists, n)
    k = check_int("k", k, low=1, high=n)
    t = np.asarray(t, dtype=float)
    if not isinstance(source, HeterogeneousCluster):
        return stats.binom.sf(k - 1, n, np.clip(source.cdf(t), 0.0, 1.0))
    return np.clip(_at_least_k_probability(np.clip(source.cdfs(t), 0.0, 1.0), k), 0.0, 1.0)


def _survival_matrix(source, n, ks, t) -> np.ndarray:
    """``P[T_(k) > t]`` for 1-d ``t`` and every ``k`` in ``ks``: shape ``(len(t), len(ks))``.

    ``T_(k) > t`` iff at least ``n-k+1`` workers are still running at ``t``; computed from the
    workers' survival functions so far tails keep full relative precision.
    """
    ms = n - np.asarray(ks) + 1
    if not isinstance(source, HeterogeneousCluster):
        sf = np.clip(source.sf(t), 0.0, 1.0)
        return stats.binom.sf(ms[None, :] - 1, n, sf[:, None])
    sfs = np.clip(source.sfs(t), 0.0, 1.0)
    if len(ms) == 1:
        return _at_least_k_probability(sfs, int(ms[0]), complement=False)[:, None]
    return _count_tail_probabilities(sfs, ms)


def order_statistic_survival(
    dist_or_dists: rv_frozen | Sequence[rv_frozen] | HeterogeneousCluster,
    k: int,
    t: ArrayLike,
    n: int | None = None,
) -> np.ndarray:
    """``P[T_(k) > t] = P[at least n-k+1 workers exceed t]``, from ``sf`` (precise far tails)."""
    source, n = _as_cluster(dist_or_dists, n)
    k = check_int("k", k, low=1, high=n)
    t = np.asarray(t, dtype=float)
    flat = _survival_matrix(source, n, [k], t.ravel())
    return flat[:, 0].reshape(t.shape)


def _order_statistic_quantiles(source, dists, k, n, levels, iterations=80):
    """Quantiles of ``T_(k)`` at ``levels`` by vectorised bisection.

    Brackets: ``P[T_(k) <= lo] <= sum_i F_i(lo) <= q`` for ``lo = min_i F_i^{-1}(q/N)`` and
    ``P[T_(k) > hi] <= 1 - q`` for ``hi = max_i F_i^{-1}(1 - (1-q)/N)``.
    """
    n_dists = len(dists) if len(dists) > 1 else n
    lo = np.array([min(float(d.ppf(q / n_dists)) for d in dists) for q in levels])
    hi = np.array([max(float(d.ppf(1.0 - (1.0 - q) / n_dists)) for d in dists) for q in levels])
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        below = order_statistic_cdf(source, k, mid, n) < levels
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        if np.all(hi - lo <= 1e-12 * np.maximum(np.abs(hi), 1e-300)):
            break
    return 0.5 * (lo + hi)


_TAIL_DECADES = 12.0  # the log-scale tail integral runs to 10**12 times the bulk


def expected_order_statistics_numeric(
    dist_or_dists: rv_frozen | Sequence[rv_frozen] | HeterogeneousCluster,
    ks: Sequence[int] | None = None,
    n: int | None = None,
    rtol: float = 1e-10,
    divergent: str = "raise",
) -> np.ndarray:
    """``E[T_(k)]`` for several ``k`` at once by numeric integration (LAGC eq. 28).

    ``E[T_(k)] = L + int_L^inf P[T_(k) > t] dt`` (``L`` the lowest support point; minus
    ``int_{-inf}^L F_(k)`` if unbounded below), with ``P[T_(k) > t]`` exact (binomial, or
    Poisson-binomial over the workers' survival functions). Adaptive Gauss--Kronrod
    (``scipy.integrate.cubature``) over the bulk, a log grid up to ``10**12`` times it, and a
    closed-form power-law remainder (exact for Pareto). ``divergent`` ("raise" or "inf") for an
    ``E[T_(k)]`` that does not exist (Pareto: ``xi (n-k+1) <= 1``).
    """
    source, n = _as_cluster(dist_or_dists, n)
    ks = np.arange(1, n + 1) if ks is None else np.asarray(_check_ks(ks, n))
    rtol = check_real("rtol", rtol, low=0.0, low_open=True)
    if divergent not in ("raise", "inf"):
        raise ValueError(f"divergent must be 'raise' or 'inf', got divergent={divergent!r}")
    dists = list(source.dists) if isinstance(source, HeterogeneousCluster) else [source]

    lower = min(float(d.support()[0]) for d in dists)
    # breakpoints: quantiles of the smallest and largest requested order statistics
    levels = np.array([1e-3, 0.1, 0.5, 0.9, 0.999])
    knots = np.concatenate(
        [_order_statistic_quantiles(source, dists, int(k), n, levels) for k in {ks.min(), ks.max()}]
    )
    start = lower if np.isfinite(lower) else min(0.0, float(knots.min()))
    upper = float(knots.max())
    if upper <= 0.0:  # bulk at or below zero: integrate linearly up to a positive point
        upper = abs(upper) + 1.0
    upper = max(upper, start + 1e-12)
    # kinks: every worker's lower support end (the shifts), plus the quantile knots
    kinks = np.array([float(d.support()[0]) for d in dists] + knots.tolist())
    kinks = np.unique(kinks[np.isfinite(kinks) & (kinks > start) & (kinks < upper)])
    points = [np.array([p]) for p in kinks]

    # tail exponent s of P[T_(k) > t] ~ t**(-s) far out; s <= 1 means no finite mean
    far = upper * 10.0**_TAIL_DECADES
    s_far, s_near = _survival_matrix(source, n, ks, np.array([far, far / 1e3]))
    with np.errstate(divide="ignore", invalid="ignore"):
        exponent = np.where(s_far > 0.0, np.log(s_near / s_far) / np.log(1e3), np.inf)
    finite = exponent > 1.0 + 1e-6
    if not finite.all() and divergent == "raise":
        bad = int(ks[~finite][0])
        raise ValueError(
            f"E[T_(k)] does not exist for k={bad}, n={n}: the tail P[T_(k) > t] decays like "
            f"t**(-{exponent[~finite][0]:.4g}), the exponent must be > 1 "
            "(Pareto: needs xi (n-k+1) > 1)"
        )
    result = np.full(ks.shape, np.inf)
    if not finite.any():
        return result
    good = ks[finite]
    scale = max(abs(start), abs(upper))
    opts = {"rtol": rtol, "atol": 1e-15 * scale}

    def bulk(x):
        return _survival_matrix(source, n, good, x[:, 0])

    def log_tail(u):
        t = upper * np.exp(u[:, 0])
        return _survival_matrix(source, n, good, t) * t[:, None]

    body = integrate.cubature(bulk, [start], [upper], points=points or None, **opts).estimate
    # a light tail decays on the scale of the bulk's width, i.e. u ~ width / upper: give the
    # adaptive rule geometric breakpoints from there so it cannot step over the mass
    u_max = _TAIL_DECADES * np.log(10.0)
    width = max(upper - float(knots.min()), 1e-12 * upper) / upper
    u_points = width * 2.0 ** np.arange(0, 200)
    u_points = [np.array([u]) for u in u_points[u_points < u_max]]
    tail = integrate.cubature(log_tail, [0.0], [u_max], points=u_points, **opts).estimate
    with np.errstate(divide="ignore", invalid="ignore"):
        remainder = np.where(s_far[finite] > 0, s_far[finite] * far / (exponent[finite] - 1.0), 0.0)
    values = start + body + tail + remainder
    if not np.isfinite(lower):  # support unbounded below: subtract int_{-inf}^{start} F_(k)
        span = max(abs(start), abs(upper - start), 1.0)

        def left_cdf(v):  # t = start - span v / (1 - v), v in [0, 1)
            v = v[:, 0]
            t = start - span * v / (1.0 - v)
            return (1.0 - _survival_matrix(source, n, good, t)) * (span / (1.0 - v) ** 2)[:, None]

        values -= integrate.cubature(left_cdf, [0.0], [1.0], rtol=rtol, atol=1e-15).estimate
    result[finite] = values
    return result


def expected_order_statistic_numeric(
    dist_or_dists: rv_frozen | Sequence[rv_frozen] | HeterogeneousCluster,
    k: int,
    n: int | None = None,
    rtol: float = 1e-10,
) -> float:
    """``E[T_(k)]`` by numeric integration (LAGC eq. 28); ValueError if the mean is infinite."""
    k = check_int("k", k, low=1)  # the upper bound n is checked with the workers
    return float(expected_order_statistics_numeric(dist_or_dists, [k], n, rtol=rtol)[0])


# --------------------------------------------------------------------------------------
# Monte Carlo
# --------------------------------------------------------------------------------------
class OrderStatisticEstimate(NamedTuple):
    """Monte Carlo estimate: ``mean`` and its standard error ``stderr`` (scalars or arrays)."""

    mean: float | np.ndarray
    stderr: float | np.ndarray


_CHUNK_ELEMENTS = 1 << 21  # ~16 MB of float64 per chunk


def _check_ks(k, n):
    ks = np.atleast_1d(np.asarray(k))
    if ks.ndim != 1 or ks.size == 0:
        raise ValueError(f"k must be an integer or a 1-d sequence of integers, got k={k!r}")
    return [
        check_int("k", int(x) if float(x).is_integer() else x, low=1, high=n) for x in ks.tolist()
    ]


def order_statistic_samples(
    dist_or_cluster: rv_frozen | Sequence[rv_frozen] | HeterogeneousCluster,
    k: int | Sequence[int],
    n: int | None = None,
    replicas: int = 100_000,
    rng: RngLike = None,
    chunk_size: int | None = None,
) -> np.ndarray:
    """Samples of ``T_(k)`` over ``replicas`` independent rounds of all workers.

    Shape ``(replicas,)`` for an int ``k``, ``(replicas, len(k))`` for a sequence; drawn in
    chunks of about 2M values, reduced with ``np.partition``.
    """
    source, n = _as_cluster(dist_or_cluster, n)
    ks = _check_ks(k, n)
    replicas = check_int("replicas", replicas, low=1)
    rng = as_generator(rng)
    if chunk_size is None:
        chunk_size = max(1, _CHUNK_ELEMENTS // n)
    chunk_size = check_int("chunk_size", chunk_size, low=1)
    kth = np.array(ks) - 1
    out = np.empty((replicas, len(ks)))
    for start in range(0, replicas, chunk_size):
        rows = min(chunk_size, replicas - start)
        if isinstance(source, HeterogeneousCluster):
            block = source.sample(rows, rng)
        else:
            block = sample_distribution(source, (rows, n), rng)
        block.partition(np.unique(kth), axis=1)  # in place: no copy of the chunk
        out[start : start + rows] = block[:, kth]
    return out[:, 0] if np.ndim(k) == 0 else out


def order_statistic_monte_carlo(
    dist_or_cluster: rv_frozen | Sequence[rv_frozen] | HeterogeneousCluster,
    k: int | Sequence[int],
    n: int | None = None,
    replicas: int = 100_000,
    rng: RngLike = None,
    chunk_size: int | None = None,
) -> OrderStatisticEstimate:
    """Monte Carlo ``E[T_(k)]`` with its standard error, for any workers.

    One distribution means ``n`` identical workers; arrays when ``k`` is a sequence. Pareto /
    Lomax workers with tail index ``xi`` need ``xi (n - k + 1) > 1`` (RS paper, appendix): the
    Monte Carlo mean of an infinite ``E[T_(k)]`` would be a seed-dependent finite number.
    """
    replicas = check_int("replicas", replicas, low=2)
    n = _as_cluster(dist_or_cluster, n)[1]  # n and k checked first
    ks = _check_ks(k, n)
    params = _family_parameters(dist_or_cluster)
    if params is not None and params[0].name in ("pareto", "lomax"):
        family, (xi, *_), _, _ = params
        if bad := [j for j in ks if xi * (n - j + 1) <= 1]:
            raise ValueError(
                f"E[T_(k)] is infinite for {family.name} workers with tail index xi={xi:g}, "
                f"k={bad[0]}, n={n}: xi (n - k + 1) must exceed 1 for a finite mean to estimate"
            )
    samples = order_statistic_samples(dist_or_cluster, k, n, replicas, rng, chunk_size)
    mean = samples.mean(axis=0)
    stderr = samples.std(axis=0, ddof=1) / np.sqrt(replicas)
    if np.ndim(k) == 0:
        return OrderStatisticEstimate(float(mean), float(stderr))
    return OrderStatisticEstimate(mean, stderr)
