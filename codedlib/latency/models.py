"""Delay models for straggling workers, as frozen ``scipy.stats`` distributions.

Papers: CodedReduce eq. (6) (shifted exponential), Reed--Solomon GC eq. (16) (Pareto),
DSAG Section III and footnote 14 (gamma from mean and variance), DSAG Sec. III-A
(:class:`HeterogeneousCluster`) and Sec. III-B (:class:`MarkovBursts`).

>>> import numpy as np
>>> from codedlib.latency.models import shifted_exponential, HeterogeneousCluster
>>> d = shifted_exponential(shift=1.0, rate=2.0)
>>> float(d.mean())
1.5
>>> cluster = HeterogeneousCluster([d, shifted_exponential(0.0, 1.0)])
>>> cluster.sample(4, rng=0).shape
(4, 2)

Reference: reisizadeh2022codedreduce, halbawi2018reedsolomon, severinson2023dsag, zhang2021lagc.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from codedlib._validation import (
    InputTypeError,
    RngLike,
    as_generator,
    check_array,
    check_int,
    check_real,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from scipy.stats._distn_infrastructure import rv_frozen


# --------------------------------------------------------------------------------------
# Single-worker models
# --------------------------------------------------------------------------------------
def shifted_exponential(shift: float, rate: float) -> rv_frozen:
    """Shifted exponential: ``P[T <= t] = 1 - exp(-rate (t - shift))`` for ``t >= shift``.

    ``scipy.stats.expon(loc=shift, scale=1/rate)``; ``shift`` in seconds.
    """
    shift = check_real("shift", shift, low=0.0)
    rate = check_real("rate", rate, low=0.0, low_open=True)
    return stats.expon(loc=shift, scale=1.0 / rate)


def codedreduce_compute_time(
    n_points: int, a: float, mu: float, rate_convention: str = "eq6"
) -> rv_frozen:
    """Computation time of a worker holding ``n_points`` samples (CodedReduce eq. 6).

    ``n_points`` is ``d_i``, ``a`` seconds per data point, ``mu`` the straggling parameter.
    ``rate_convention="eq6"``: eq. (6) as printed, shift ``a d_i``, rate ``mu / a``;
    ``"appendix"``: rate ``mu / d_i``, as the proof of Theorem 2 (bounds 7-8) uses. The two
    coincide only when ``a == d_i``.
    """
    n_points = check_int("n_points", n_points, low=1)
    a = check_real("a", a, low=0.0, low_open=True)
    mu = check_real("mu", mu, low=0.0, low_open=True)
    rates = {"eq6": mu / a, "appendix": mu / n_points}
    if rate_convention not in rates:
        raise ValueError(
            f"rate_convention must be one of {list(rates)}, got rate_convention={rate_convention!r}"
        )
    return shifted_exponential(a * n_points, rates[rate_convention])


def pareto(t0: float, xi: float) -> rv_frozen:
    """Pareto delay (Reed--Solomon GC eq. 16): ``P[T <= t] = 1 - (t0/t)**xi`` for ``t >= t0``.

    ``scipy.stats.pareto(b=xi, scale=t0)``. The mean ``xi t0 / (xi - 1)`` is finite only for
    ``xi > 1`` and the variance only for ``xi > 2`` (``.mean()`` / ``.var()`` return ``inf``).
    """
    t0 = check_real("t0", t0, low=0.0, low_open=True)
    xi = check_real("xi", xi, low=0.0, low_open=True)
    return stats.pareto(b=xi, scale=t0)


def linear_slowdown(n_workers: int, strength: float = 0.4) -> np.ndarray:
    """DSAG Section VII-B's static slowdown: worker ``i = 1, ..., N`` (entry ``i - 1``) is
    ``1 + (i/N) strength`` times slower (paper: strength 0.4).

    >>> linear_slowdown(4).tolist()
    [1.1, 1.2, 1.3, 1.4]
    """
    n_workers = check_int("n_workers", n_workers, 1)
    strength = check_real("strength", strength, 0.0)
    return 1.0 + strength * np.arange(1, n_workers + 1) / n_workers


def gamma_from_moments(mean: float, var: float) -> rv_frozen:
    """Gamma with mean ``e``, variance ``v``: shape e²/v, scale v/e (DSAG Sec. III, fn. 14)."""
    mean = check_real("mean", mean, low=0.0, low_open=True)
    var = check_real("var", var, low=0.0, low_open=True)
    return stats.gamma(a=mean**2 / var, scale=var / mean)


# --------------------------------------------------------------------------------------
# Several workers
# --------------------------------------------------------------------------------------
def _check_distribution(name: str, dist):
    needed = ("rvs", "cdf", "mean", "var", "support")
    missing = [attr for attr in needed if not hasattr(dist, attr)]
    if missing:
        raise ValueError(
            f"{name} must be a frozen scipy.stats distribution (needs {', '.join(needed)}), "
            f"got {name}={dist!r}"
        )
    return dist


def _family_parameters(dist):
    """``(family, shapes, loc, scale)`` of a frozen scipy distribution, or None (an unusual
    frozen object, sampled as it is)."""
    family = getattr(dist, "dist", None)
    if not isinstance(family, stats.rv_continuous):
        return None
    try:  # the arguments as scipy itself reads them: shapes, then loc and scale
        shapes, loc, scale = family._parse_args(*dist.args, **dist.kwds)
        return family, tuple(float(x) for x in shapes), float(loc), float(scale)
    except (TypeError, ValueError, AttributeError):
        return None


def _draw_family(family, shapes, loc, scale, size, rng: np.random.Generator) -> np.ndarray:
    """Draw ``size`` values of a scipy family with broadcast ``shapes``, ``loc``, ``scale``.

    Exponential, Pareto and gamma use numpy's generators directly (faster than scipy's
    ``rvs``); other families go through ``family.rvs``.
    """
    name = family.name
    if name == "expon":
        out = rng.standard_exponential(size)
    elif name == "pareto":
        out = rng.standard_exponential(size)  # log(T / t0) ~ Exp(xi)
        out /= shapes[0]
        np.exp(out, out=out)
    elif name == "gamma":
        out = rng.standard_gamma(shapes[0], size)
    else:
        return family.rvs(*shapes, loc=loc, scale=scale, size=size, random_state=rng)
    out *= scale
    out += loc
    return out


def sample_distribution(
    dist: rv_frozen, size: int | tuple[int, ...], rng: RngLike = None
) -> np.ndarray:
    """Draw ``size`` i.i.d. values of a frozen distribution (fast path for the papers' models)."""
    rng = as_generator(rng)
    if not hasattr(dist, "rvs"):
        raise InputTypeError(f"dist must be a frozen scipy.stats distribution, got {dist!r}")
    dims = (size,) if np.ndim(size) == 0 else tuple(size)
    for k in dims:
        check_int("size", k, low=0)
    params = _family_parameters(dist)
    if params is None:
        return np.asarray(dist.rvs(size=size, random_state=rng), dtype=float)
    return _draw_family(*params, size, rng)


class HeterogeneousCluster:
    """A cluster of ``N`` independent workers, each with its own delay distribution.

    DSAG Sec. III-A; LAGC eq. (28) computes order statistics of such workers.

    >>> from codedlib.latency.models import HeterogeneousCluster, gamma_from_moments
    >>> c = HeterogeneousCluster.from_gamma_moments([1.0, 2.0], [0.1, 0.2])
    >>> c.n_workers, c.means().round(6).tolist()
    (2, [1.0, 2.0])
    """

    def __init__(self, dists: Sequence[rv_frozen]):
        if hasattr(dists, "rvs") or isinstance(dists, (str, bytes)):
            raise ValueError(
                "dists must be a sequence of frozen distributions (one per worker), "
                f"got a single distribution dists={dists!r}"
            )
        dists = list(dists)
        if len(dists) < 1:
            raise ValueError("dists must hold at least one distribution, got len(dists)=0")
        self.dists = tuple(_check_distribution(f"dists[{i}]", d) for i, d in enumerate(dists))
        self._groups = self._group_by_family()

    # constructors -----------------------------------------------------------------------
    @classmethod
    def identical(cls, dist: rv_frozen, n_workers: int) -> HeterogeneousCluster:
        """``n_workers`` workers sharing the distribution ``dist``."""
        return cls([dist] * check_int("n_workers", n_workers, low=1))

    @classmethod
    def from_gamma_moments(cls, means: ArrayLike, variances: ArrayLike) -> HeterogeneousCluster:
        """Gamma workers with per-worker means and variances (DSAG's fitted model)."""
        means = check_array("means", means, ndim=1)
        variances = check_array("variances", variances, ndim=1, shape=means.shape)
        return cls([gamma_from_moments(m, v) for m, v in zip(means, variances)])

    # grouping -----------------------------------------------------------------------------
    def _group_by_family(self):
        """Group workers by scipy family (and shape count) for vectorised sampling."""
        groups: dict = {}
        singles = []
        for index, dist in enumerate(self.dists):
            params = _family_parameters(dist)
            if params is None:
                singles.append(index)
                continue
            family, shapes, loc, scale = params
            # class, name and support: frozen copies of one family share them, distinct families do not
            key = (type(family), family.name, family.a, family.b, len(shapes))
            groups.setdefault(key, (family, []))[1].append((index, shapes, loc, scale))
        out = []
        for family, members in groups.values():
            idx, shapes, loc, scale = zip(*members)
            shapes = np.array(shapes, dtype=float).reshape(len(idx), -1).T
            out.append((family, np.array(idx), shapes, np.array(loc), np.array(scale)))
        return out, singles

    # properties ---------------------------------------------------------------------------
    @property
    def n_workers(self) -> int:
        """Number of workers ``N``."""
        return len(self.dists)

    def __repr__(self) -> str:
        names = sorted(
            {getattr(getattr(d, "dist", None), "name", type(d).__name__) for d in self.dists}
        )
        return f"HeterogeneousCluster(n_workers={self.n_workers}, families={names})"

    def means(self) -> np.ndarray:
        """Per-worker means, shape ``(N,)``."""
        return np.array([float(d.mean()) for d in self.dists])

    def variances(self) -> np.ndarray:
        """Per-worker variances, shape ``(N,)``."""
        return np.array([float(d.var()) for d in self.dists])

    def cdfs(self, t: ArrayLike) -> np.ndarray:
        """Per-worker CDFs at ``t``: shape ``np.shape(t) + (N,)``."""
        return self._per_worker("cdf", t)

    def sfs(self, t: ArrayLike) -> np.ndarray:
        """Per-worker survival functions ``P[T_i > t]``: shape ``np.shape(t) + (N,)``."""
        return self._per_worker("sf", t)

    def _per_worker(self, function: str, t) -> np.ndarray:
        """``function`` ("cdf" or "sf") of every worker at ``t``, one call per family group."""
        t = check_array("t", t, finite=False)
        out = np.empty(t.shape + (self.n_workers,))
        groups, singles = self._groups
        for family, idx, shapes, loc, scale in groups:
            out[..., idx] = getattr(family, function)(t[..., None], *shapes, loc=loc, scale=scale)
        for i in singles:
            out[..., i] = getattr(self.dists[i], function)(t)
        return out

    def sample(self, n_samples: int, rng: RngLike = None) -> np.ndarray:
        """Draw ``n_samples`` independent rounds of all workers: array ``(n_samples, N)``."""
        n_samples = check_int("n_samples", n_samples, low=0)
        rng = as_generator(rng)
        out = np.empty((n_samples, self.n_workers))
        groups, singles = self._groups
        for family, idx, shapes, loc, scale in groups:
            if idx.size == self.n_workers:  # one family: draw straight into the output
                out = _draw_family(family, shapes, loc, scale, (n_samples, idx.size), rng)
            else:
                out[:, idx] = _draw_family(family, shapes, loc, scale, (n_samples, idx.size), rng)
        for i in singles:
            out[:, i] = self.dists[i].rvs(size=n_samples, random_state=rng)
        return out


# --------------------------------------------------------------------------------------
# Bursty workers
# --------------------------------------------------------------------------------------
class MarkovBursts:
    """Workers with bursts of high latency driven by a two-state Markov chain per worker.

    DSAG Sec. III-B, Fig. 4. Per step normal -> burst with ``p_enter``, back with ``p_exit``;
    in a burst the ``base`` latency (a distribution plus ``n_workers``, or a
    ``HeterogeneousCluster``) is multiplied by ``factor`` (Fig. 4: ~1.12).
    """

    def __init__(
        self,
        base: rv_frozen | HeterogeneousCluster,
        p_enter: float,
        p_exit: float,
        factor: float,
        n_workers: int | None = None,
    ):
        if not isinstance(base, HeterogeneousCluster):
            _check_distribution("base", base)
            if n_workers is None:
                raise ValueError(
                    "n_workers must be given (>= 1) when base is one distribution, "
                    "got n_workers=None"
                )
            base = HeterogeneousCluster.identical(base, n_workers)
        elif n_workers is not None and check_int("n_workers", n_workers, low=1) != base.n_workers:
            raise ValueError(
                f"n_workers must equal the cluster size {base.n_workers}, got n_workers={n_workers}"
            )
        self.cluster = base
        self.p_enter = check_real("p_enter", p_enter, low=0.0, high=1.0, low_open=True)
        self.p_exit = check_real("p_exit", p_exit, low=0.0, high=1.0, low_open=True)
        self.factor = check_real("factor", factor, low=0.0, low_open=True)

    @property
    def n_workers(self) -> int:
        return self.cluster.n_workers

    @property
    def burst_probability(self) -> float:
        """Stationary probability of being in a burst, ``p_enter / (p_enter + p_exit)``."""
        return self.p_enter / (self.p_enter + self.p_exit)

    @property
    def mean_burst_length(self) -> float:
        """Expected burst duration in iterations, ``1 / p_exit``."""
        return 1.0 / self.p_exit

    def stationary_means(self) -> np.ndarray:
        """Per-worker mean latency under the stationary chain, shape ``(N,)``."""
        pi = self.burst_probability
        return self.cluster.means() * (1.0 - pi + pi * self.factor)

    def sample_states(self, n_iterations: int, rng: RngLike = None) -> np.ndarray:
        """Burst indicators, boolean array ``(n_iterations, N)``, from the stationary law."""
        n_iterations = check_int("n_iterations", n_iterations, low=1)
        rng = as_generator(rng)
        states = np.empty((n_iterations, self.n_workers), dtype=bool)
        states[0] = rng.random(self.n_workers) < self.burst_probability
        uniforms = rng.random((n_iterations, self.n_workers))
        for it in range(1, n_iterations):  # sequential in time, vectorised over workers
            u, state = uniforms[it], states[it - 1]
            states[it] = state ^ np.where(state, u < self.p_exit, u < self.p_enter)
        return states

    def sample_path(self, n_iterations: int, rng: RngLike = None) -> SimpleNamespace:
        """Sample ``n_iterations`` iterations of all workers: ``latency`` and ``in_burst``,
        both ``(n_iterations, N)``."""
        rng = as_generator(rng)
        states = self.sample_states(n_iterations, rng)
        base = self.cluster.sample(n_iterations, rng)
        return SimpleNamespace(latency=np.where(states, base * self.factor, base), in_burst=states)
