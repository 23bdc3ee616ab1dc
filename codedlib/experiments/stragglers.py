"""Experiments of the opening notebook ``00-stragglers``: delay models and order statistics.

One function per figure/table; each returns a DataFrame (or a small result dataclass):

* :func:`standard_models` -- the three single-worker models with matched mean (CR eq. 6,
  RS eq. 16, DSAG gamma);
* :func:`delay_model_curves` -- pdf, cdf and survival of each model on a grid;
* :func:`cluster_ecdf` -- empirical vs model CDF of a few workers of a heterogeneous cluster
  (DSAG Fig. 3 style);
* :func:`bursty_path` -- latency of a few bursty workers over iterations (DSAG Fig. 4 style);
* :func:`known_values_table` -- the issue's known order-statistic values, closed form vs
  numeric vs Monte Carlo;
* :func:`order_statistic_comparison` -- ``E[T_(k)]`` for every ``k`` of ``n``: closed form,
  numeric integration (LAGC eq. 28) and Monte Carlo with standard errors;
* :func:`non_identical_comparison` -- numeric (Poisson-binomial) vs Monte Carlo for a
  heterogeneous cluster;
* :func:`pareto_limit_convergence` -- RS Proposition 1: exact ``E[T_((1-alpha) n)]`` vs the
  limit ``t0 alpha**(-1/xi)`` (eq. 19) as ``n`` grows;
* :func:`cost_of_waiting` -- ``E[T_(k)]`` relative to the mean single-worker latency as the
  master waits for more of the ``n`` workers.

Replicas over independent seeds (tidy frames with a ``seed`` column, one generator
``np.random.default_rng(seed)`` per seed), for the notebook's claims with intervals:

* :func:`monte_carlo_over_seeds` -- Monte Carlo ``E[T_(k)]``, one estimate per seed;
* :func:`ecdf_ks_over_seeds` -- Kolmogorov--Smirnov distance and p-value of sampled workers
  against their model CDF (DSAG Fig. 3 style);
* :func:`bursts_over_seeds` -- burst statistics of sampled :class:`MarkovBursts` paths
  (DSAG Fig. 4 style);

and one deterministic table:

* :func:`burst_consistency` -- for bursts calibrated to a given probability that some worker
  is in a burst, the expected share of workers that see at least one burst in a run of a
  given number of burst lengths (DSAG Section III-B's statements side by side);
  :func:`burst_run_needed` -- how many burst lengths a run must last for a given share.

Reference: reisizadeh2022codedreduce, halbawi2018reedsolomon, severinson2023dsag, zhang2021lagc, esfahanizadeh2022stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from codedlib._validation import as_generator, check_array, check_int, check_real
from codedlib.latency.models import (
    HeterogeneousCluster,
    MarkovBursts,
    _family_parameters,
    gamma_from_moments,
    pareto,
    shifted_exponential,
)
from codedlib.latency.order_stats import (
    expected_order_statistic_exponential,
    expected_order_statistic_numeric,
    expected_order_statistic_pareto,
    expected_order_statistics_numeric,
    order_statistic_monte_carlo,
    pareto_order_statistic_limit,
)
from codedlib.progress import track

__all__ = [
    "KNOWN_VALUES",
    "BurstyPathResult",
    "StandardModelsResult",
    "burst_consistency",
    "burst_run_needed",
    "bursts_over_seeds",
    "bursty_path",
    "closed_form",
    "cluster_ecdf",
    "cost_of_waiting",
    "delay_model_curves",
    "demo_cluster",
    "ecdf_ks_over_seeds",
    "known_values_table",
    "monte_carlo_over_seeds",
    "non_identical_comparison",
    "order_statistic_comparison",
    "pareto_limit_convergence",
    "standard_models",
]

#: reference values (issue 2): exponential mean 1 and Pareto t0=1, xi=2, both with n = 10
KNOWN_VALUES = [
    {"model": "exponential, mean 1", "n": 10, "k": 10, "reference": 2.928968},
    {"model": "exponential, mean 1", "n": 10, "k": 8, "reference": 1.428968},
    {"model": "Pareto t0=1, xi=2", "n": 10, "k": 10, "reference": 5.675464},
    {"model": "Pareto t0=1, xi=2", "n": 10, "k": 8, "reference": 2.128299},
]


@dataclass(frozen=True)
class StandardModelsResult:
    """The three single-worker delay models of :func:`standard_models` (same mean).

    :meth:`named` gives them by their display names (``"shifted exponential"``, ``"Pareto"``,
    ``"gamma"``), the ``model`` values of :func:`delay_model_curves` and
    :func:`cost_of_waiting`, which take this object or such a dict.

    Attributes
    ----------
    shifted_exponential : scipy.stats frozen distribution
        Shifted exponential (CR eq. 6).
    """

    shifted_exponential: object
    pareto: object
    gamma: object

    def named(self) -> dict:
        """The models by display name, in the order shifted exponential, Pareto, gamma."""
        return {
            "shifted exponential": self.shifted_exponential,
            "Pareto": self.pareto,
            "gamma": self.gamma,
        }


def _named_models(models) -> dict:
    """``models`` as a ``{name: distribution}`` dict (a :class:`StandardModelsResult` or a dict)."""
    return models.named() if isinstance(models, StandardModelsResult) else models


def standard_models(mean: float = 1.0, cv: float = 0.5) -> StandardModelsResult:
    """Shifted exponential, Pareto and gamma delays with the same ``mean``.

    * shifted exponential (CR eq. 6): standard deviation ``cv * mean`` (rate ``1/(cv mean)``,
      shift ``mean (1 - cv)``), so ``cv <= 1``;
    * Pareto (RS eq. 16): ``xi = 3``, ``t0 = 2 mean / 3`` (finite variance);
    * gamma (DSAG): variance ``(cv mean)**2``.
    """
    mean = check_real("mean", mean, low=0.0, low_open=True)
    cv = check_real("cv", cv, low=0.0, high=1.0, low_open=True)
    std = cv * mean
    return StandardModelsResult(
        shifted_exponential=shifted_exponential(mean - std, 1.0 / std),
        pareto=pareto(2.0 * mean / 3.0, 3.0),
        gamma=gamma_from_moments(mean, std**2),
    )


def delay_model_curves(models, t=None, n_points: int = 400) -> pd.DataFrame:
    """pdf, cdf and survival ``P[T > t]`` of each model on a grid (long format).

    Parameters
    ----------
    t : optional
        Time point(s) at which to evaluate.
    """
    models = _named_models(models)
    if not models:
        raise ValueError("models must hold at least one distribution, got an empty dict")
    if t is None:  # linear grid over the bulk, log grid far into the tail
        n_points = check_int("n_points", n_points, low=2)
        bulk = max(float(d.ppf(0.995)) for d in models.values())
        far = max(float(d.ppf(1 - 1e-5)) for d in models.values())
        low = min(float(d.ppf(0.01)) for d in models.values())
        tail = np.geomspace(max(low, 1e-3 * bulk), far, n_points)
        t = np.unique(np.concatenate([np.linspace(0.0, bulk, n_points), tail]))
    t = check_array("t", t, ndim=1)
    frames = [
        pd.DataFrame({"model": name, "t": t, "pdf": d.pdf(t), "cdf": d.cdf(t), "sf": d.sf(t)})
        for name, d in models.items()
    ]
    return pd.concat(frames, ignore_index=True)


def demo_cluster(n_workers: int = 12, spread: float = 0.4, cv: float = 0.2) -> HeterogeneousCluster:
    """Gamma workers whose means grow linearly: worker i has mean ``1 + spread * i/(N-1)``.

    DSAG's artificial eX3 scenario slows worker i by a factor ``(i/N) * 0.4``; the coefficient
    of variation ``cv`` is the same for every worker.

    Parameters
    ----------
    spread : float, default 0.4
        Relative increase of the mean from the first to the last worker. Must satisfy
        ``0.0 <= spread``.
    """
    n_workers = check_int("n_workers", n_workers, low=1)
    spread = check_real("spread", spread, low=0.0)
    cv = check_real("cv", cv, low=0.0, low_open=True)
    means = 1.0 + spread * np.arange(n_workers) / max(n_workers - 1, 1)
    return HeterogeneousCluster.from_gamma_moments(means, (cv * means) ** 2)


def cluster_ecdf(
    cluster: HeterogeneousCluster, workers=(0, -1), n_samples: int = 2000, rng=None
) -> pd.DataFrame:
    """Empirical CDF of ``n_samples`` draws of the chosen workers next to their model CDF."""
    n_samples = check_int("n_samples", n_samples, low=1)
    samples = cluster.sample(n_samples, as_generator(rng))
    frames = []
    for w in workers:
        idx = (
            check_int("worker", w, low=-cluster.n_workers, high=cluster.n_workers - 1)
            % cluster.n_workers
        )
        x = np.sort(samples[:, idx])
        frames.append(
            pd.DataFrame(
                {
                    "worker": idx + 1,
                    "t": x,
                    "ecdf": np.arange(1, n_samples + 1) / n_samples,
                    "model_cdf": cluster.dists[idx].cdf(x),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class BurstyPathResult:
    """A sampled :class:`MarkovBursts` path (:func:`bursty_path`).

    Attributes
    ----------
    path : pandas.DataFrame
        Columns iteration, worker (1-based), latency, in_burst, for the shown workers.
    summary : pandas.DataFrame
        Columns quantity, stationary, sampled: burst fraction, mean latency, P[some worker in
        a burst], workers with >= 1 burst.
    """

    path: pd.DataFrame
    summary: pd.DataFrame
    model: MarkovBursts


def bursty_path(
    n_workers: int = 36,
    n_iterations: int = 600,
    shown=None,
    mean: float = 1.0,
    cv: float = 0.03,
    factor: float = 1.12,
    p_enter: float = 0.0007,
    p_exit: float = 0.05,
    rng=None,
) -> BurstyPathResult:
    """A sampled :class:`MarkovBursts` path (DSAG Sec. III-B, Fig. 4: +12% bursts).

    Defaults are calibrated to DSAG's description of AWS: bursts raise the mean latency by
    12% (``factor = 1.12``) and last ``1/p_exit = 20`` iterations; ``p_enter = 0.0007`` makes
    the stationary probability that at least one of ``N = 36`` workers is in a burst about 40%.

    ``shown`` lists the workers to return (default: the three with the most burst iterations).
    Returns a :class:`BurstyPathResult`: ``path`` (iteration, worker, latency, in_burst for the
    shown workers), ``summary`` (stationary vs sampled burst fraction, mean latency, share of
    iterations with some worker in a burst, share of workers with a burst) and ``model``.

    Parameters
    ----------
    shown : optional
        Workers to return; default a few.
    """
    n_workers = check_int("n_workers", n_workers, low=1)
    model = MarkovBursts(
        gamma_from_moments(mean, (cv * mean) ** 2), p_enter, p_exit, factor, n_workers=n_workers
    )
    path = model.sample_path(n_iterations, as_generator(rng))
    if shown is None:  # like DSAG Fig. 4: show the three workers with the most burst time
        shown = sorted(np.argsort(-path.in_burst.sum(axis=0), kind="stable")[:3].tolist())
    rows = []
    for w in shown:
        idx = check_int("worker", w, low=0, high=n_workers - 1)
        rows.append(
            pd.DataFrame(
                {
                    "iteration": np.arange(n_iterations),
                    "worker": idx + 1,
                    "latency": path.latency[:, idx],
                    "in_burst": path.in_burst[:, idx],
                }
            )
        )
    pi = model.burst_probability
    summary = pd.DataFrame(
        {
            "quantity": [
                "burst fraction",
                "mean latency",
                "P[some worker in a burst]",
                "workers with >= 1 burst",
            ],
            "stationary": [
                pi,
                float(model.stationary_means()[0]),
                1.0 - (1.0 - pi) ** n_workers,
                1.0 - (1.0 - pi) * (1.0 - model.p_enter) ** (n_iterations - 1),
            ],
            "sampled": [
                float(path.in_burst.mean()),
                float(path.latency.mean()),
                float(path.in_burst.any(axis=1).mean()),
                float(path.in_burst.any(axis=0).mean()),
            ],
        }
    )
    return BurstyPathResult(path=pd.concat(rows, ignore_index=True), summary=summary, model=model)


def closed_form(dist, k: int, n: int) -> float:
    """Closed-form ``E[T_(k)]`` for shifted exponential (harmonic numbers) or Pareto (gamma
    functions) workers; ``nan`` for other families.

    Parameters
    ----------
    dist : scipy.stats frozen distribution
        Delay distribution of one worker.
    k : int
        Order of the order statistic (k-th fastest of n).
    """
    params = _family_parameters(dist)
    if params is None:
        return math.nan
    family, shapes, loc, scale = params
    if family.name == "expon":
        return expected_order_statistic_exponential(k, n, rate=1.0 / scale, shift=loc)
    if family.name == "pareto":
        return loc + expected_order_statistic_pareto(k, n, scale, shapes[0])
    return math.nan


def known_values_table(replicas: int = 100_000, rng=None) -> pd.DataFrame:
    """The issue's reference values next to closed form, numeric integration and Monte Carlo."""
    rng = as_generator(rng)
    models = {
        "exponential, mean 1": shifted_exponential(0.0, 1.0),
        "Pareto t0=1, xi=2": pareto(1.0, 2.0),
    }
    rows = []
    for ref in KNOWN_VALUES:
        dist, n, k = models[ref["model"]], ref["n"], ref["k"]
        mc = order_statistic_monte_carlo(dist, k, n, replicas=replicas, rng=rng)
        exact = closed_form(dist, k, n)
        rows.append(
            {
                **ref,
                "closed_form": exact,
                "numeric": expected_order_statistic_numeric(dist, k, n),
                "monte_carlo": mc.mean,
                "mc_stderr": mc.stderr,
                "z": (mc.mean - exact) / mc.stderr,
            }
        )
    return pd.DataFrame(rows)


def _finite_variance(dist, k: int, n: int) -> bool:
    """Whether ``T_(k)`` has a finite variance, i.e. a meaningful Monte Carlo standard error.

    Pareto: ``xi (n-k+1) > 2``; the other models here have all moments.
    """
    params = _family_parameters(dist)
    if params is not None and params[0].name == "pareto":
        return bool(params[1][0] * (n - k + 1) > 2.0)
    return True


def order_statistic_comparison(
    dist, n: int, ks=None, replicas: int = 20_000, rng=None
) -> pd.DataFrame:
    """``E[T_(k)]`` for ``k`` in ``ks`` (default all of ``1..n``) three ways.

    Columns: ``k``, ``mc_valid`` (the variance is finite so the standard error means something;
    Pareto needs ``xi (n-k+1) > 2``), ``closed_form`` (nan where none exists, inf where the
    mean is infinite),
    ``numeric`` (nan where infinite), ``mc_mean, mc_stderr, z`` (MC minus closed form, in
    standard errors; against numeric when there is no closed form).

    Parameters
    ----------
    dist : scipy.stats frozen distribution
        Delay distribution of one worker.
    """
    n = check_int("n", n, low=1)
    ks = np.arange(1, n + 1) if ks is None else np.asarray(ks)
    numerics = expected_order_statistics_numeric(dist, ks, n, divergent="inf")
    # a Monte Carlo mean of an infinite expectation means nothing: estimated only where finite
    finite = np.isfinite(np.asarray(numerics, dtype=float))
    means, ses = np.full(len(ks), np.nan), np.full(len(ks), np.nan)
    if finite.any():
        mc = order_statistic_monte_carlo(dist, ks[finite], n, replicas=replicas, rng=rng)
        means[finite], ses[finite] = np.atleast_1d(mc.mean), np.atleast_1d(mc.stderr)
    rows = []
    for k, numeric, mean, se in zip(ks.tolist(), numerics, means, ses):
        try:
            exact = closed_form(dist, k, n)
        except ValueError:  # infinite mean (Pareto with xi (n-k+1) <= 1)
            exact = math.inf
        numeric = float(numeric)
        target = exact if not math.isnan(exact) else numeric
        rows.append(
            {
                "k": k,
                "mc_valid": _finite_variance(dist, k, n),
                "closed_form": exact,
                "numeric": numeric,
                "mc_mean": float(mean),
                "mc_stderr": float(se),
                "z": (float(mean) - target) / float(se) if math.isfinite(target) else math.nan,
            }
        )
    return pd.DataFrame(rows)


def non_identical_comparison(
    cluster: HeterogeneousCluster, ks=None, replicas: int = 20_000, rng=None
) -> pd.DataFrame:
    """LAGC eq. (28) for non-identical workers: numeric integration vs Monte Carlo.

    Also lists the i.i.d. approximation that replaces every worker by the cluster's average
    distribution moments (gamma with the mean of means and mean of variances), to show what
    ignoring heterogeneity costs (DSAG Fig. 5's point).
    """
    n = cluster.n_workers
    ks = np.arange(1, n + 1) if ks is None else np.asarray(ks)
    mc = order_statistic_monte_carlo(cluster, ks, replicas=replicas, rng=rng)
    pooled = gamma_from_moments(
        float(cluster.means().mean()),
        float(cluster.variances().mean() + cluster.means().var()),
    )
    numeric = expected_order_statistics_numeric(cluster, ks)
    iid = expected_order_statistics_numeric(pooled, ks, n)
    return pd.DataFrame(
        {
            "k": ks,
            "numeric": numeric,
            "mc_mean": np.atleast_1d(mc.mean),
            "mc_stderr": np.atleast_1d(mc.stderr),
            "z": (np.atleast_1d(mc.mean) - numeric) / np.atleast_1d(mc.stderr),
            "iid_approximation": iid,
            "iid_relative_error": iid / numeric - 1.0,
        }
    )


def pareto_limit_convergence(
    t0: float = 0.001, xi: float = 1.1, alphas=(0.1477, 0.3, 0.5), ns=None
) -> pd.DataFrame:
    """RS Proposition 1: exact ``E[T_(k)]`` with ``k = ceil((1-alpha) n)`` vs eq. (19)'s limit.

    Defaults are the paper's Pareto delay (``t0 = 0.001``, ``xi = 1.1``, Fig. 2/3) and its
    optimal ``alpha* = 0.1477`` (Fig. 3). Columns: ``alpha, n, k, exact, limit,
    relative_error``. Sizes where the exact mean is infinite are skipped.

    Parameters
    ----------
    t0 : float, default 0.001
        Scale (minimum) of the Pareto delay, seconds.
    xi : float, default 1.1
        Shape (tail index) of the Pareto delay.
    """
    t0 = check_real("t0", t0, low=0.0, low_open=True)
    xi = check_real("xi", xi, low=0.0, low_open=True)
    if ns is None:
        ns = np.unique(np.round(np.logspace(1, 5, 25)).astype(int))
    else:
        ns = np.array([check_int("n in ns", n, low=1) for n in np.atleast_1d(ns)])
        if ns.size == 0:
            raise ValueError("ns must hold at least one size, got ns=[]")
    alphas = [
        check_real("alpha", a, low=0.0, high=1.0, low_open=True, high_open=True)
        for a in np.atleast_1d(alphas)
    ]
    rows = []
    for alpha in alphas:
        limit = pareto_order_statistic_limit(t0, xi, alpha)
        for n in ns.tolist():
            k = max(1, math.ceil((1.0 - alpha) * n - 1e-9))
            if xi * (n - k + 1) <= 1.0:
                continue
            exact = expected_order_statistic_pareto(k, n, t0, xi)
            rows.append(
                {
                    "alpha": alpha,
                    "n": n,
                    "k": k,
                    "exact": exact,
                    "limit": limit,
                    "relative_error": exact / limit - 1.0,
                }
            )
    return pd.DataFrame(rows)


def cost_of_waiting(
    models, n: int = 100, ks=None, cluster: HeterogeneousCluster | None = None
) -> pd.DataFrame:
    """``E[T_(k)] / E[T]`` as the master waits for ``k`` of ``n`` workers (numeric, LAGC eq. 28).

    ``E[T]`` is each model's single-worker mean, so the curve is the price of waiting for more
    workers. ``inf`` where the mean does not exist. A ``cluster`` (of ``n`` workers) is added
    as "heterogeneous cluster", normalised by its average worker mean.
    """
    n = check_int("n", n, low=1)
    ks = (
        np.unique(np.linspace(1, n, min(n, 25)).round().astype(int))
        if ks is None
        else np.asarray(ks)
    )
    rows = []

    def add(name, values, mean):
        for k, value in zip(ks.tolist(), values):
            rows.append(
                {
                    "model": name,
                    "k": k,
                    "fraction": k / n,
                    "expected": float(value),
                    "relative": float(value) / mean,
                }
            )

    for name, dist in _named_models(models).items():
        add(
            name,
            expected_order_statistics_numeric(dist, ks, n, divergent="inf"),
            float(dist.mean()),
        )
    if cluster is not None:
        if cluster.n_workers != n:
            raise ValueError(
                f"cluster must have n={n} workers, got cluster.n_workers={cluster.n_workers}"
            )
        add(
            "heterogeneous cluster",
            expected_order_statistics_numeric(cluster, ks),
            float(cluster.means().mean()),
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------
# Replicas over independent seeds (for the claims' intervals)
# --------------------------------------------------------------------------------------
def _check_seeds(seeds) -> list[int]:
    seeds = list(np.atleast_1d(np.asarray(seeds)).tolist())
    if not seeds:
        raise ValueError(f"seeds must hold at least one integer seed, got seeds={seeds!r}")
    checked = [check_int("seed", s, low=0) for s in seeds]
    if len(set(checked)) != len(checked):
        raise ValueError(f"seeds must be distinct (independent replicas), got seeds={seeds!r}")
    return checked


def monte_carlo_over_seeds(
    dist_or_cluster, ks, n: int | None = None, replicas: int = 20_000, seeds=range(5)
) -> pd.DataFrame:
    """Monte Carlo ``E[T_(k)]`` for each ``k`` in ``ks``, once per independent seed.

    ``dist_or_cluster`` as in :func:`~codedlib.latency.order_stats.order_statistic_monte_carlo`
    (a frozen distribution with ``n``, or a :class:`HeterogeneousCluster`). Each seed draws
    ``replicas`` rounds from ``np.random.default_rng(seed)``. Returns a tidy frame
    ``seed, k, mc_mean, mc_stderr`` (one row per seed and ``k``).

    Parameters
    ----------
    dist_or_cluster
        Delay distribution or heterogeneous cluster to sample from.
    """
    seeds = _check_seeds(seeds)
    ks = np.atleast_1d(np.asarray(ks))
    rows = []
    for s in track(seeds, "Monte Carlo seeds"):
        est = order_statistic_monte_carlo(dist_or_cluster, ks, n, replicas=replicas, rng=s)
        for k, mean, se in zip(ks.tolist(), np.atleast_1d(est.mean), np.atleast_1d(est.stderr)):
            rows.append({"seed": s, "k": int(k), "mc_mean": float(mean), "mc_stderr": float(se)})
    return pd.DataFrame(rows)


def ecdf_ks_over_seeds(
    cluster: HeterogeneousCluster, workers=(0, -1), n_samples: int = 2000, seeds=range(5)
) -> pd.DataFrame:
    """Kolmogorov--Smirnov distance between sampled and model CDF, per seed and worker.

    Each seed samples ``n_samples`` rounds of the whole cluster (as :func:`cluster_ecdf`) and
    tests the chosen workers' samples against their own model CDF. Under the model the
    p-value is uniform on [0, 1] (mean 0.5). Returns ``seed, worker (1-based), n_samples,
    ks_statistic, p_value``.
    """
    from scipy import stats

    seeds = _check_seeds(seeds)
    n_samples = check_int("n_samples", n_samples, low=1)
    idxs = [
        check_int("worker", w, low=-cluster.n_workers, high=cluster.n_workers - 1)
        % cluster.n_workers
        for w in workers
    ]
    rows = []
    for s in track(seeds, "ECDF seeds"):
        samples = cluster.sample(n_samples, as_generator(s))
        for idx in idxs:
            test = stats.kstest(samples[:, idx], cluster.dists[idx].cdf)
            rows.append(
                {
                    "seed": s,
                    "worker": idx + 1,
                    "n_samples": n_samples,
                    "ks_statistic": float(test.statistic),
                    "p_value": float(test.pvalue),
                }
            )
    return pd.DataFrame(rows)


def bursts_over_seeds(
    n_workers: int = 36,
    n_iterations: int = 600,
    seeds=range(5),
    mean: float = 1.0,
    cv: float = 0.03,
    factor: float = 1.12,
    p_enter: float = 0.0007,
    p_exit: float = 0.05,
) -> pd.DataFrame:
    """Burst statistics of independent :class:`MarkovBursts` paths, one per seed.

    Same model and defaults as :func:`bursty_path` (DSAG Sec. III-B calibration). Columns:
    ``seed``, ``burst_fraction`` (share of worker-iterations in a burst),
    ``any_burst`` (share of iterations with at least one worker in a burst),
    ``workers_with_burst`` (share of workers with at least one burst iteration),
    ``burst_latency_ratio`` (mean latency in a burst / outside one; nan without bursts),
    ``burst_iterations`` (number of worker-iterations in a burst).
    """
    seeds = _check_seeds(seeds)
    n_workers = check_int("n_workers", n_workers, low=1)
    n_iterations = check_int("n_iterations", n_iterations, low=1)
    model = MarkovBursts(
        gamma_from_moments(mean, (cv * mean) ** 2), p_enter, p_exit, factor, n_workers=n_workers
    )
    rows = []
    for s in track(seeds, "burst seeds"):
        path = model.sample_path(n_iterations, as_generator(s))
        burst = path.in_burst
        ratio = (
            float(path.latency[burst].mean() / path.latency[~burst].mean())
            if burst.any() and (~burst).any()
            else math.nan
        )
        rows.append(
            {
                "seed": s,
                "burst_fraction": float(burst.mean()),
                "any_burst": float(burst.any(axis=1).mean()),
                "workers_with_burst": float(burst.any(axis=0).mean()),
                "burst_latency_ratio": ratio,
                "burst_iterations": int(burst.sum()),
            }
        )
    return pd.DataFrame(rows)


def burst_consistency(
    n_workers: int = 36,
    any_fraction: float = 0.40,
    run_in_bursts: float = 30.0,
    burst_lengths=(5, 10, 20, 50, 100),
) -> pd.DataFrame:
    """DSAG Sec. III-B's burst statements under independent two-state Markov workers.

    DSAG reports (AWS, ``N = 36``): at least one worker is in a burst in about 40 % of the
    iterations, bursts last about a minute, the run lasts about 30 minutes, and most workers
    see at least one burst. For each mean burst length ``L = 1/p_exit`` (iterations) this
    calibrates ``p_enter`` so that ``1 - (1 - pi)**N = any_fraction`` with
    ``pi = p_enter / (p_enter + p_exit)``, sets the run to ``run_in_bursts * L`` iterations
    and returns the expected share of workers with at least one burst iteration,
    ``1 - (1 - pi)(1 - p_enter)**(I - 1)`` (stationary start). Columns:
    ``mean_burst_length, n_iterations, p_enter, p_exit, burst_probability, any_burst,
    workers_with_burst``. As ``L`` grows the share tends to
    ``1 - (1 - pi) exp(-run_in_bursts pi / (1 - pi))``.

    Parameters
    ----------
    any_fraction : float, default 0.4
        Fraction of iterations with at least one worker in a burst. Must satisfy
        ``0.0 < any_fraction < 1.0``.
    run_in_bursts : float, default 30.0
        Length of the run in mean burst lengths.
    burst_lengths : tuple, default (5, 10, 20, 50, 100)
        Mean burst lengths ``1/p_exit``, iterations.
    """
    n_workers = check_int("n_workers", n_workers, low=1)
    any_fraction = check_real(
        "any_fraction", any_fraction, low=0.0, high=1.0, low_open=True, high_open=True
    )
    run_in_bursts = check_real("run_in_bursts", run_in_bursts, low=0.0, low_open=True)
    pi = 1.0 - (1.0 - any_fraction) ** (1.0 / n_workers)
    rows = []
    for length in np.atleast_1d(np.asarray(burst_lengths, dtype=float)).tolist():
        length = check_real("burst_length", length, low=1.0)
        p_exit = 1.0 / length
        p_enter = pi * p_exit / (1.0 - pi)
        n_iterations = max(1, int(round(run_in_bursts * length)))
        rows.append(
            {
                "mean_burst_length": length,
                "n_iterations": n_iterations,
                "p_enter": p_enter,
                "p_exit": p_exit,
                "burst_probability": pi,
                "any_burst": 1.0 - (1.0 - pi) ** n_workers,
                "workers_with_burst": 1.0 - (1.0 - pi) * (1.0 - p_enter) ** (n_iterations - 1),
            }
        )
    return pd.DataFrame(rows)


def burst_run_needed(n_workers: int = 36, any_fraction: float = 0.40, share: float = 0.5) -> float:
    """Run length, in mean burst lengths, for ``share`` of the workers to burst at least once.

    Same calibration as :func:`burst_consistency` (``1 - (1 - pi)**N = any_fraction``), in
    the limit of long bursts (``p_enter -> 0``): solves
    ``1 - (1 - pi) exp(-R pi / (1 - pi)) = share`` for ``R``. Returns ``0.0`` when the
    stationary start alone gives the share (``pi >= share``).

    Parameters
    ----------
    any_fraction : float, default 0.4
        Fraction of iterations with at least one worker in a burst. Must satisfy
        ``0.0 < any_fraction < 1.0``.
    share : float, default 0.5
        Share of the workers that must burst at least once.
    """
    n_workers = check_int("n_workers", n_workers, low=1)
    any_fraction = check_real(
        "any_fraction", any_fraction, low=0.0, high=1.0, low_open=True, high_open=True
    )
    share = check_real("share", share, low=0.0, high=1.0, low_open=True, high_open=True)
    pi = 1.0 - (1.0 - any_fraction) ** (1.0 / n_workers)
    if pi >= share:
        return 0.0
    return (1.0 - pi) / pi * math.log((1.0 - pi) / (1.0 - share))
