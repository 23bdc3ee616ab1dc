"""Experiments and claims of the opening notebook ``00-stragglers``: delay models and order
statistics (CR eq. 6, RS eq. 16 and Prop. 1, DSAG Sec. III, LAGC eqs. 21-22 and 28).

One function per figure or table, the measures :func:`over_seeds` runs once per seed
(:func:`monte_carlo_means`, :func:`ecdf_ks`, :func:`burst_stats`), the notebook's sizes
(:data:`SETTINGS`) and its claims (:data:`CLAIMS`, section key -> specs evaluated by
:func:`codedlib.claims.evaluate`).

Reference: reisizadeh2022codedreduce, halbawi2018reedsolomon, severinson2023dsag, zhang2021lagc,
esfahanizadeh2022stream, david2003order.
"""

from __future__ import annotations

import math
from functools import partial
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from codedlib._validation import RngLike, as_generator, check_int, check_real
from codedlib.claims import mean_interval, spec
from codedlib.latency.models import (
    HeterogeneousCluster,
    MarkovBursts,
    _family_parameters,
    codedreduce_compute_time,
    gamma_from_moments,
    pareto,
    shifted_exponential,
)
from codedlib.latency.order_stats import (
    expected_order_statistic_exponential,
    expected_order_statistic_numeric,
    expected_order_statistic_pareto,
    expected_order_statistics_numeric,
    harmonic_number,
    order_statistic_monte_carlo,
    pareto_order_statistic_limit,
)
from codedlib.replicate import over_seeds

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from numpy.typing import ArrayLike
    from scipy.stats._distn_infrastructure import rv_frozen

    from codedlib.replicate import Executor

#: reference values (issue 2): exponential mean 1 and Pareto t0=1, xi=2, both with n = 10
KNOWN_VALUES = [
    {"model": "exponential, mean 1", "n": 10, "k": 10, "reference": 2.928968},
    {"model": "exponential, mean 1", "n": 10, "k": 8, "reference": 1.428968},
    {"model": "Pareto t0=1, xi=2", "n": 10, "k": 10, "reference": 5.675464},
    {"model": "Pareto t0=1, xi=2", "n": 10, "k": 8, "reference": 2.128299},
]

#: The reference models of :data:`KNOWN_VALUES` (exponential mean 1, Pareto t0 = 1, xi = 2).
REFERENCE_MODELS = {
    "exponential, mean 1": shifted_exponential(0.0, 1.0),
    "Pareto t0=1, xi=2": pareto(1.0, 2.0),
}


def standard_models(mean: float = 1.0, cv: float = 0.5) -> dict:
    """Shifted exponential, Pareto and gamma delays with the same ``mean``, by display name.

    * shifted exponential (CR eq. 6): standard deviation ``cv * mean`` (rate ``1/(cv mean)``,
      shift ``mean (1 - cv)``), so ``cv <= 1``;
    * Pareto (RS eq. 16): ``xi = 3``, ``t0 = 2 mean / 3`` (finite variance);
    * gamma (DSAG): variance ``(cv mean)**2``.
    """
    mean = check_real("mean", mean, low=0.0, low_open=True)
    cv = check_real("cv", cv, low=0.0, high=1.0, low_open=True)
    std = cv * mean
    return {
        "shifted exponential": shifted_exponential(mean - std, 1.0 / std),
        "Pareto": pareto(2.0 * mean / 3.0, 3.0),
        "gamma": gamma_from_moments(mean, std**2),
    }


def delay_model_curves(models: dict) -> pd.DataFrame:
    """pdf, cdf and survival ``P[T > t]`` of each model (by name) on a grid (long format): 400
    points linear over the bulk, 400 logarithmic far into the tail."""
    if not models:
        raise ValueError("models must hold at least one distribution, got an empty dict")
    bulk = max(float(d.ppf(0.995)) for d in models.values())
    far = max(float(d.ppf(1 - 1e-5)) for d in models.values())
    low = min(float(d.ppf(0.01)) for d in models.values())
    tail = np.geomspace(max(low, 1e-3 * bulk), far, 400)
    t = np.unique(np.concatenate([np.linspace(0.0, bulk, 400), tail]))
    frames = [
        pd.DataFrame({"model": name, "t": t, "pdf": d.pdf(t), "cdf": d.cdf(t), "sf": d.sf(t)})
        for name, d in models.items()
    ]
    return pd.concat(frames, ignore_index=True)


def demo_cluster(n_workers: int = 12, spread: float = 0.4, cv: float = 0.2) -> HeterogeneousCluster:
    """Gamma workers whose means grow linearly: worker i has mean ``1 + spread * i/(N-1)``.

    After DSAG's artificial eX3 scenario (worker i slowed by ``(i/N) * 0.4``); one ``cv``.
    """
    n_workers = check_int("n_workers", n_workers, low=1)
    spread = check_real("spread", spread, low=0.0)
    cv = check_real("cv", cv, low=0.0, low_open=True)
    means = 1.0 + spread * np.arange(n_workers) / max(n_workers - 1, 1)
    return HeterogeneousCluster.from_gamma_moments(means, (cv * means) ** 2)


def _workers(cluster: HeterogeneousCluster, workers) -> list[int]:
    """0-based indices of ``workers`` (negative ones count from the end)."""
    n = cluster.n_workers
    return [check_int("worker", w, low=-n, high=n - 1) % n for w in workers]


def cluster_ecdf(
    cluster: HeterogeneousCluster,
    workers: Sequence[int] = (0, -1),
    n_samples: int = 2000,
    rng: RngLike = None,
) -> pd.DataFrame:
    """Empirical CDF of ``n_samples`` draws of the chosen workers next to their model CDF."""
    n_samples = check_int("n_samples", n_samples, low=1)
    samples = cluster.sample(n_samples, as_generator(rng))
    ecdf = np.arange(1, n_samples + 1) / n_samples
    frames = [
        pd.DataFrame({"worker": i + 1, "t": x, "ecdf": ecdf, "model_cdf": cluster.dists[i].cdf(x)})
        for i in _workers(cluster, workers)
        for x in [np.sort(samples[:, i])]
    ]
    return pd.concat(frames, ignore_index=True)


def bursty_path(
    n_workers: int = 36,
    n_iterations: int = 600,
    factor: float = 1.12,
    p_enter: float = 0.0007,
    p_exit: float = 0.05,
    rng: RngLike = None,
) -> SimpleNamespace:
    """A sampled :class:`MarkovBursts` path of gamma workers (mean 1, cv 0.03; DSAG Sec. III-B,
    Fig. 4: +12% bursts): ``path`` (iteration, worker (1-based), latency, in_burst),
    ``summary`` (stationary vs sampled), ``model`` and every worker's ``sample``.

    Defaults are calibrated to DSAG's description of AWS: bursts raise the mean latency by
    12% (``factor = 1.12``) and last ``1/p_exit = 20`` iterations; ``p_enter = 0.0007`` makes
    the stationary probability that at least one of ``N = 36`` workers is in a burst about 40%.
    The path holds the three workers with the most burst iterations, as DSAG Fig. 4 shows.
    """
    base = gamma_from_moments(1.0, 0.03**2)
    model = MarkovBursts(base, p_enter, p_exit, factor, n_workers=n_workers)
    path = model.sample_path(n_iterations, as_generator(rng))
    shown = sorted(np.argsort(-path.in_burst.sum(axis=0), kind="stable")[:3].tolist())
    frame = pd.DataFrame(
        {
            "iteration": np.tile(np.arange(n_iterations), len(shown)),
            "worker": np.repeat(np.array(shown) + 1, n_iterations),
            "latency": path.latency[:, shown].T.ravel(),
            "in_burst": path.in_burst[:, shown].T.ravel(),
        }
    )
    pi, burst = model.burst_probability, path.in_burst
    some_burst = 1.0 - (1.0 - pi) * (1.0 - model.p_enter) ** (n_iterations - 1)
    rows = [  # quantity, stationary value, sampled value
        ("burst fraction", pi, burst.mean()),
        ("mean latency", model.stationary_means()[0], path.latency.mean()),
        ("P[some worker in a burst]", 1.0 - (1.0 - pi) ** model.n_workers, burst.any(1).mean()),
        ("workers with >= 1 burst", some_burst, burst.any(axis=0).mean()),
    ]
    columns = ["quantity", "stationary", "sampled"]
    summary = pd.DataFrame([(q, float(a), float(b)) for q, a, b in rows], columns=columns)
    return SimpleNamespace(path=frame, summary=summary, model=model, sample=path)


def closed_form(dist: rv_frozen, k: int, n: int) -> float:
    """Closed-form ``E[T_(k)]`` for shifted exponential (LAGC eq. 21) or Pareto (eq. 22)
    workers; ``nan`` for other families."""
    params = _family_parameters(dist)
    if params is None:
        return math.nan
    family, shapes, loc, scale = params
    if family.name == "expon":
        return expected_order_statistic_exponential(k, n, rate=1.0 / scale, shift=loc)
    if family.name == "pareto":
        return loc + expected_order_statistic_pareto(k, n, scale, shapes[0])
    return math.nan


def known_values_table(replicas: int = 100_000, rng: RngLike = None) -> pd.DataFrame:
    """The issue's reference values next to closed form, numeric integration and Monte Carlo."""
    rng = as_generator(rng)
    rows = []
    for ref in KNOWN_VALUES:
        dist, n, k = REFERENCE_MODELS[ref["model"]], ref["n"], ref["k"]
        mc = order_statistic_monte_carlo(dist, k, n, replicas=replicas, rng=rng)
        exact, numeric = closed_form(dist, k, n), expected_order_statistic_numeric(dist, k, n)
        row = dict(closed_form=exact, numeric=numeric, monte_carlo=mc.mean, mc_stderr=mc.stderr)
        rows.append(ref | row | {"z": (mc.mean - exact) / mc.stderr})
    return pd.DataFrame(rows)


def order_statistic_comparison(
    dist: rv_frozen,
    n: int,
    ks: ArrayLike | None = None,
    replicas: int = 20_000,
    rng: RngLike = None,
) -> pd.DataFrame:
    """``E[T_(k)]`` for ``k`` in ``ks`` (default all of ``1..n``) three ways.

    Columns ``k``, ``mc_valid`` (finite variance, so the standard error means something:
    Pareto ``xi (n-k+1) > 2``), ``closed_form`` (nan: none, inf: infinite mean), ``numeric``,
    ``mc_mean, mc_stderr, z`` (Monte Carlo minus closed form, or numeric without one, in
    standard errors).
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
    params = _family_parameters(dist)
    xi = params[1][0] if params is not None and params[0].name == "pareto" else math.inf
    rows = []
    for k, numeric, mean, se in zip(ks.tolist(), numerics, means, ses):
        try:
            exact = closed_form(dist, k, n)
        except ValueError:  # infinite mean (Pareto with xi (n-k+1) <= 1)
            exact = math.inf
        numeric, mean, se = float(numeric), float(mean), float(se)
        target = exact if not math.isnan(exact) else numeric
        z = (mean - target) / se if math.isfinite(target) else math.nan
        rows.append((k, bool(xi * (n - k + 1) > 2.0), exact, numeric, mean, se, z))
    columns = ["k", "mc_valid", "closed_form", "numeric", "mc_mean", "mc_stderr", "z"]
    return pd.DataFrame(rows, columns=columns)


def non_identical_comparison(
    cluster: HeterogeneousCluster,
    ks: ArrayLike | None = None,
    replicas: int = 20_000,
    rng: RngLike = None,
) -> pd.DataFrame:
    """LAGC eq. (28) for non-identical workers: numeric integration vs Monte Carlo.

    Also the i.i.d. approximation (one gamma with the pooled moments; DSAG Fig. 5's point).
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
    mean, stderr = np.atleast_1d(mc.mean), np.atleast_1d(mc.stderr)
    return pd.DataFrame(
        {
            "k": ks,
            "numeric": numeric,
            "mc_mean": mean,
            "mc_stderr": stderr,
            "z": (mean - numeric) / stderr,
            "iid_approximation": iid,
            "iid_relative_error": iid / numeric - 1.0,
        }
    )


def pareto_limit_convergence(
    t0: float = 0.001,
    xi: float = 1.1,
    alphas: Sequence[float] = (0.1477, 0.3, 0.5),
    ns: Sequence[int] | None = None,
) -> pd.DataFrame:
    """RS Proposition 1: exact ``E[T_(k)]`` with ``k = ceil((1-alpha) n)`` vs eq. (19)'s limit.

    Defaults: the paper's delay (Fig. 2/3) and ``alpha* = 0.1477`` (Fig. 3); sizes with an
    infinite mean are skipped.
    """
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
            if xi * (n - k + 1) > 1.0:
                exact = expected_order_statistic_pareto(k, n, t0, xi)
                rows.append((alpha, n, k, exact, limit, exact / limit - 1.0))
    return pd.DataFrame(rows, columns=["alpha", "n", "k", "exact", "limit", "relative_error"])


def cost_of_waiting(
    models: dict,
    n: int = 100,
    ks: ArrayLike | None = None,
    cluster: HeterogeneousCluster | None = None,
) -> pd.DataFrame:
    """``E[T_(k)] / E[T]`` as the master waits for ``k`` of ``n`` workers (numeric, LAGC eq. 28).

    ``E[T]`` is each model's single-worker mean (``inf`` where none); a ``cluster`` of ``n``
    workers is added as "heterogeneous cluster", over its average worker mean; ``ks``
    defaults to :func:`cost_ks`'s.
    """
    n = check_int("n", n, low=1)
    ks = cost_ks(n)[0] if ks is None else np.asarray(ks)
    curves = [
        (name, expected_order_statistics_numeric(d, ks, n, divergent="inf"), float(d.mean()))
        for name, d in models.items()
    ]
    if cluster is not None:
        if cluster.n_workers != n:
            raise ValueError(
                f"cluster must have n={n} workers, got cluster.n_workers={cluster.n_workers}"
            )
        mean = float(cluster.means().mean())
        curves.append(
            ("heterogeneous cluster", expected_order_statistics_numeric(cluster, ks), mean)
        )
    rows = [
        (name, k, k / n, float(v), float(v) / mean)
        for name, values, mean in curves
        for k, v in zip(ks.tolist(), values)
    ]
    return pd.DataFrame(rows, columns=["model", "k", "fraction", "expected", "relative"])


# --------------------------------------------------------------------------------------
# Measures run once per seed by codedlib.replicate.over_seeds (one generator per seed)
# --------------------------------------------------------------------------------------
def monte_carlo_means(
    seed: int,
    dist_or_cluster: rv_frozen | HeterogeneousCluster,
    ks: ArrayLike,
    n: int | None = None,
    replicas: int = 20_000,
) -> list[dict]:
    """Monte Carlo ``E[T_(k)]`` and its standard error for each ``k`` in ``ks`` (rows ``k,
    mc_mean, mc_stderr``); ``dist_or_cluster`` as in ``order_statistic_monte_carlo``."""
    ks = np.atleast_1d(np.asarray(ks))
    est = order_statistic_monte_carlo(dist_or_cluster, ks, n, replicas=replicas, rng=seed)
    return [
        {"k": int(k), "mc_mean": float(mean), "mc_stderr": float(se)}
        for k, mean, se in zip(ks.tolist(), np.atleast_1d(est.mean), np.atleast_1d(est.stderr))
    ]


def ecdf_ks(
    seed: int,
    cluster: HeterogeneousCluster,
    workers: Sequence[int] = (0, -1),
    n_samples: int = 2000,
) -> list[dict]:
    """Kolmogorov--Smirnov distance and p-value of ``n_samples`` draws of each chosen worker
    against its model CDF (DSAG Fig. 3 style; uniform p-values under the model)."""
    from scipy import stats

    n_samples = check_int("n_samples", n_samples, low=1)
    idxs = _workers(cluster, workers)
    samples = cluster.sample(n_samples, as_generator(seed))
    tests = [(idx, stats.kstest(samples[:, idx], cluster.dists[idx].cdf)) for idx in idxs]
    return [
        {"worker": i + 1, "n_samples": n_samples, "ks_statistic": float(t.statistic)}
        | {"p_value": float(t.pvalue)}
        for i, t in tests
    ]


def burst_stats(seed: int, **options) -> dict:
    """Burst statistics of one :func:`bursty_path` (``options``: its sizes and rates): shares
    of worker-iterations in a burst, of iterations with some worker in a burst, of workers
    with a burst; latency in / out of a burst (nan without bursts)."""
    path = bursty_path(**options, rng=seed).sample
    burst = path.in_burst
    ratio = (
        float(path.latency[burst].mean() / path.latency[~burst].mean())
        if burst.any() and (~burst).any()
        else math.nan
    )
    return {
        "burst_fraction": float(burst.mean()),
        "any_burst": float(burst.any(axis=1).mean()),
        "workers_with_burst": float(burst.any(axis=0).mean()),
        "burst_latency_ratio": ratio,
        "burst_iterations": int(burst.sum()),
    }


def _calibrated_pi(n_workers, any_fraction) -> float:
    """Per-worker burst probability pi with ``1 - (1 - pi)**N = any_fraction``."""
    n_workers = check_int("n_workers", n_workers, low=1)
    any_fraction = check_real(
        "any_fraction", any_fraction, low=0.0, high=1.0, low_open=True, high_open=True
    )
    return 1.0 - (1.0 - any_fraction) ** (1.0 / n_workers)


def burst_consistency(
    n_workers: int = 36,
    any_fraction: float = 0.40,
    run_in_bursts: float = 30.0,
    burst_lengths: Sequence[float] = (5, 10, 20, 50, 100),
) -> pd.DataFrame:
    """DSAG Sec. III-B's burst statements under independent two-state Markov workers.

    For each mean burst length ``L = 1/p_exit`` (iterations), ``p_enter`` is calibrated so
    that ``1 - (1 - pi)**N = any_fraction`` (some worker in a burst; DSAG: 40 %), the run lasts
    ``run_in_bursts * L`` iterations (DSAG: 30), and ``workers_with_burst`` is the expected
    share of workers with a burst, ``1 - (1 - pi)(1 - p_enter)**(I - 1)`` (stationary start).
    """
    pi = _calibrated_pi(n_workers, any_fraction)
    run_in_bursts = check_real("run_in_bursts", run_in_bursts, low=0.0, low_open=True)
    rows = []
    for length in np.atleast_1d(np.asarray(burst_lengths, dtype=float)).tolist():
        length = check_real("burst_length", length, low=1.0)
        p_exit = 1.0 / length
        p_enter = pi * p_exit / (1.0 - pi)
        n_iterations = max(1, int(round(run_in_bursts * length)))
        share = 1.0 - (1.0 - pi) * (1.0 - p_enter) ** (n_iterations - 1)
        rows.append(
            (length, n_iterations, p_enter, p_exit, pi, 1.0 - (1.0 - pi) ** n_workers, share)
        )
    columns = ["mean_burst_length", "n_iterations", "p_enter", "p_exit", "burst_probability"]
    return pd.DataFrame(rows, columns=columns + ["any_burst", "workers_with_burst"])


def burst_run_needed(n_workers: int = 36, any_fraction: float = 0.40, share: float = 0.5) -> float:
    """Run length, in mean burst lengths, for ``share`` of the workers to burst at least once.

    Calibrated as :func:`burst_consistency`, long bursts (``p_enter -> 0``): solves
    ``1 - (1 - pi) exp(-R pi / (1 - pi)) = share`` for ``R`` (0 when ``pi >= share``).
    """
    pi = _calibrated_pi(n_workers, any_fraction)
    share = check_real("share", share, low=0.0, high=1.0, low_open=True, high_open=True)
    if pi >= share:
        return 0.0
    return (1.0 - pi) / pi * math.log((1.0 - pi) / (1.0 - share))


#: The notebook's sizes: ``SETTINGS["quick" if quick else "faithful"]``.
SETTINGS = {
    "quick": {
        "n_grid": 20,
        "n_cost": 30,
        "replicas": 20_000,
        "n_seeds": 5,
        "n_paths": 10,
        "burst_workers": 36,
        "burst_iterations": 300,
        "widget_replicas": 2_000,
    },
    "faithful": {
        "n_grid": 20,
        "n_cost": 100,
        "replicas": 100_000,
        "n_seeds": 10,
        "n_paths": 30,
        "burst_workers": 36,
        "burst_iterations": 600,
        "widget_replicas": 20_000,
    },
}

# CR Section V: a = 5e-5 s per data point, a mu = 1; d = 49920 images over N = 156 workers
# before coding; n = 12 children, resiliency 5/12
CR_A, CR_MU, CR_D_I, CR_N, CR_S = 5e-5, 1 / 5e-5, 49920 // 156, 12, 5
# RS Section 6 delay and Fig. 3's optimal load; n = 80 machines
RS_T0, RS_XI, RS_ALPHA, RS_N = 0.001, 1.1, 0.1477, 80
RS_F = int(np.ceil((1 - RS_ALPHA) * RS_N)) + 1  # eq. (18)'s f
XI_HEAVY, N_HEAVY = 0.6, 10


def model_moments(models: Mapping[str, rv_frozen]) -> pd.DataFrame:
    """Mean, variance and two tail probabilities of each model."""
    rows = {name: (d.mean(), d.var(), d.sf(3.0), d.sf(10.0)) for name, d in models.items()}
    columns = ["mean", "variance", "P[T > 3]", "P[T > 10]"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=columns)


def codedreduce_conventions() -> pd.DataFrame:
    """CR eq. (6) vs the Theorem 2 proof's rate at CR's constants: shift, random part, mean,
    ``E[T_(n-s)]`` and the appendix's ``(d_i/mu)(H_n - H_s) + a d_i``."""
    d_i, a, mu, n, s = CR_D_I, CR_A, CR_MU, CR_N, CR_S
    rows = {
        c: (d.support()[0], d.std(), d.mean(), closed_form(d, n - s, n))
        for c in ("eq6", "appendix")
        for d in [codedreduce_compute_time(d_i, a, mu, rate_convention=c)]
    }
    columns = ["shift a d_i [s]", "random part [s]", "mean [s]", f"E[T_({n - s}) of {n}] [s]"]
    cr = pd.DataFrame.from_dict(rows, orient="index", columns=columns)
    cr.loc["appendix", "CR appendix formula [s]"] = (
        d_i / mu * (harmonic_number(n) - harmonic_number(s)) + a * d_i
    )
    return cr


def cluster_moments(cluster: HeterogeneousCluster) -> pd.DataFrame:
    """Mean and variance of each worker (columns: workers 1..N)."""
    return pd.DataFrame(
        {"mean": cluster.means(), "variance": cluster.variances()},
        index=pd.RangeIndex(1, cluster.n_workers + 1, name="worker"),
    ).T


def reference_monte_carlo(
    seeds: int | Iterable[int], replicas: int, executor: Executor = None
) -> pd.DataFrame:
    """:func:`monte_carlo_means` of each :data:`REFERENCE_MODELS` model at its
    :data:`KNOWN_VALUES` ``k`` (n = 10) over ``seeds``, with a ``model`` column."""
    frames = [
        over_seeds(
            monte_carlo_means,
            seeds,
            executor=executor,
            dist_or_cluster=dist,
            ks=[ref["k"] for ref in KNOWN_VALUES if ref["model"] == model],
            n=10,
            replicas=replicas,
        ).assign(model=model)
        for model, dist in REFERENCE_MODELS.items()
    ]
    return pd.concat(frames, ignore_index=True)


def grid_summary(comparisons: dict) -> pd.DataFrame:
    """Largest numeric error and Monte Carlo ``|z|`` of :func:`order_statistic_comparison`
    frames (by name)."""
    rows = {
        name: (
            np.max(np.abs(c["numeric"] / c["closed_form"] - 1)),
            c.loc[c["mc_valid"], "z"].abs().max(),
            int(c["mc_valid"].sum()),
        )
        for name, c in comparisons.items()
    }
    columns = ["max |numeric / closed form - 1|", "max |z| (finite variance)"]
    return pd.DataFrame.from_dict(
        rows, orient="index", columns=columns + ["k with finite variance"]
    )


def finite_means(xi: float = XI_HEAVY, n: int = N_HEAVY) -> list[int]:
    """The ``k`` whose Pareto(1, ``xi``) ``E[T_(k)]`` the numeric integral finds finite."""
    heavy = expected_order_statistics_numeric(
        pareto(1.0, xi), np.arange(1, n + 1), n, divergent="inf"
    )
    return [k for k, v in zip(range(1, n + 1), heavy) if np.isfinite(v)]


def rs_finite_n() -> pd.DataFrame:
    """RS eq. (19)'s limit next to the exact ``E[T_(k)]`` at ``n_big = 10^5`` and at the paper's
    ``n`` (``k = ceil((1-alpha) n)`` and eq. (18)'s ``f = k + 1``), in ms (RS Sec. 6 delay)."""
    t0, xi, alpha, n, n_big, f = RS_T0, RS_XI, RS_ALPHA, RS_N, 100_000, RS_F
    k_big = math.ceil((1 - alpha) * n_big)
    rs = pd.DataFrame(
        {
            "value [ms]": [
                1e3 * pareto_order_statistic_limit(t0, xi, alpha),
                1e3 * expected_order_statistic_pareto(k_big, n_big, t0, xi),
                1e3 * expected_order_statistic_pareto(f - 1, n, t0, xi),
                1e3 * expected_order_statistic_pareto(f, n, t0, xi),
            ]
        },
        index=[
            "eq. (19) limit t0 alpha^(-1/xi) (paper's T_f uses this)",
            f"exact, k = ceil((1-alpha) n) = {k_big} of n = {n_big}",
            f"exact, k = ceil((1-alpha) n) = {f - 1} of n = {n}",
            f"exact, f = ceil((1-alpha) n) + 1 = {f} of n = {n} (eq. 18)",
        ],
    )
    rs["relative to the limit"] = rs["value [ms]"] / rs["value [ms]"].iloc[0] - 1
    return rs


def rs_appendix_factors(xi: float = RS_XI, alpha: float = RS_ALPHA, n: int = 10**8) -> dict:
    """The two factors of the RS appendix's proof of Proposition 1 at ``n`` (the paper: they
    tend to ``e^(-xi)`` and ``e^xi``), their product and the limits ``e^(-+1/xi)``, ``e^(-+xi)``."""
    first = math.exp((alpha * n + 0.5) * math.log1p(-1 / (xi * (alpha * n + 1))))
    second = math.exp((-n - 0.5) * math.log1p(-1 / (xi * (n + 1))))
    return {
        "first": first,
        "e^(-1/xi)": math.exp(-1 / xi),
        "paper's e^(-xi)": math.exp(-xi),
        "second": second,
        "e^(1/xi)": math.exp(1 / xi),
        "paper's e^xi": math.exp(xi),
        "product": first * second,
    }


def cost_ks(n: int) -> tuple[np.ndarray, list[int]]:
    """The ``k`` of the cost-of-waiting curve (25 spread over 1..n plus the shown ones) and the
    shown ``k``."""
    shown = [1, n // 2, int(0.9 * n), n - 1, n]
    return np.unique(np.r_[np.linspace(1, n, 25).round(), shown]).astype(int), shown


def _mc_check(samples, exact) -> dict:
    """An interval row's Monte Carlo means over seeds against a formula; a miss says by how
    many standard errors (a 95 % interval misses 1 time in 20)."""
    mean, low, high = mean_interval(samples)
    reason = ""
    if not (low <= exact <= high):
        se = float(np.std(samples, ddof=1)) / math.sqrt(len(samples))
        reason = (
            f"measured: the Monte Carlo mean is {mean - exact:+.3g} from the formula, "
            f"{(mean - exact) / se:+.1f} standard errors over {len(samples)} seeds; "
            "a 95 % interval misses the true value 1 time in 20"
        )
    return {"samples": samples, "paper": exact, "reason": reason}


def _verdict(ok: bool, reason: str, missed="not reproduced") -> dict:
    return {"verdict": "reproduced" if ok else missed, "reason": "" if ok else reason}


# --------------------------------------------------------------------------------------
# Claims, by notebook section (evaluate(table, CLAIMS[key], **results))
# --------------------------------------------------------------------------------------
def _model_claims() -> list:
    exact = partial(spec, "exact", section="1. Delay models", basis="check", rtol=1e-12)
    gamma = (
        "chosen: e = 1, v = 0.25; paper value: the e and v the footnote's shape "
        "and scale are built from; ours: the frozen gamma's moments"
    )
    return [
        exact(
            "RS eq. (16)",
            "P[T > 10 t0], t0 = 0.001 s, ξ = 1.1",
            lambda: {"ours": pareto(RS_T0, RS_XI).sf(10 * RS_T0)},
            paper=(RS_T0 / (10 * RS_T0)) ** RS_XI,
            setting="RS Sec. 6 delay parameters; paper value: (t0/t)^ξ from eq. (16); "
            "ours: codedlib pareto(t0, ξ).sf",
        ),
        exact(
            "RS eq. (16)",
            "mean of Pareto(t0 = 2/3, ξ = 3)",
            lambda models: {"ours": models["Pareto"].mean()},
            paper=3.0 * (2 / 3) / (3.0 - 1.0),
            setting="chosen: t0 = 2/3, ξ = 3 (mean 1); paper value: ξ t0/(ξ − 1), the mean of "
            "eq. (16); ours: the frozen distribution's mean",
        ),
    ] + [
        exact(
            "DSAG fn. 14 (gamma)",
            f"{what} of gamma(shape e²/v, scale v/e)",
            lambda models, m=method: {"ours": getattr(models["gamma"], m)()},
            paper=paper,
            setting=gamma,
        )
        for what, method, paper in (("mean", "mean", 1.0), ("variance", "var", 0.5**2))
    ]


def _cr_erratum(cr):
    (eq6_std, eq6_mean), (app_std, app_mean) = cr[["random part [s]", "mean [s]"]].to_numpy()
    return {
        "ours": f"random part {eq6_std:.3g} s vs {app_std:.3g} s, mean {eq6_mean:.4g} s vs "
        f"{app_mean:.4g} s at CR's constants",
        "reason": "the two rates agree only if a = d_i: eq. (6) as printed makes the "
        f"computation time almost deterministic (random part {eq6_std / app_std:.1e} of the "
        "appendix's); Theorem 2's bounds follow the appendix. codedlib offers both "
        "(rate_convention)",
    }


def _codedreduce_claims() -> list:
    setting = (
        f"CR Sec. V constants a = 5e-5 s/sample, aμ = 1; chosen: d_i = 49920/156 = {CR_D_I} "
        "samples (uncoded share)"
    )
    exact = partial(spec, "exact", section="1.1 CodedReduce eq. (6)", basis="check", unit="s")
    app = codedreduce_compute_time(CR_D_I, CR_A, CR_MU, rate_convention="appendix")
    eq6 = [  # quantity, column of cr's eq6 row, paper value and what it is
        (
            "mean of T_i, rate μ/a",
            "mean [s]",
            CR_A * CR_D_I + CR_A / CR_MU,
            "a d_i + a/μ, the mean of eq. (6)",
        ),
        ("std of T_i, rate μ/a", "random part [s]", CR_A / CR_MU, "a/μ from eq. (6)"),
    ]
    return [
        exact(
            "CR eq. (6)",
            quantity,
            lambda cr, c=column: {"ours": cr.loc["eq6", c]},
            paper=paper,
            rtol=1e-12,
            setting=setting + f"; paper value: {what}",
        )
        for quantity, column, paper, what in eq6
    ] + [
        exact(
            "CR App. (Thm. 2 proof)",
            f"E[T_(n-s)], n = {CR_N}, s = {CR_S}, rate μ/d_i",
            lambda cr: {
                "paper": cr.loc["appendix", "CR appendix formula [s]"],
                "ours": expected_order_statistic_numeric(app, CR_N - CR_S, CR_N),
            },
            rtol=1e-9,
            setting=setting + "; paper value: the appendix's (d_i/μ)(H_n − H_s) + a d_i; "
            "ours: numeric integration (LAGC eq. 28 route)",
        ),
        spec(
            "qualitative",
            "CR eq. (6) vs App.",
            "exponential rate: eq. (6) vs Thm. 2 proof",
            _cr_erratum,
            paper="eq. (6): rate μ/a; proof of Theorem 2: rate μ/d_i (same computation-time model)",
            verdict="paper erratum",
            setting=setting,
            section="1.1 CodedReduce eq. (6)",
        ),
    ]


def _cluster_claims() -> list:
    section = partial(spec, section="1.2 Heterogeneous workers")
    return [
        section(
            "interval",
            "DSAG Fig. 3 (style)",
            "KS p-value, sampled vs model CDF",
            lambda ks_tests: {
                "samples": ks_tests["p_value"],
                "uncertainty": f"95 % t-interval over {len(ks_tests)} tests "
                f"({ks_tests['seed'].nunique()} seeds × 2 workers)",
            },
            paper=0.5,
            paper_text="gamma CDF fits the samples (p-values uniform, mean 0.5)",
            setting="stand-in: 12 gamma workers, means 1→1.4 (chosen, DSAG eX3-like), cv 0.2 "
            "(chosen), 2000 draws of workers 1 and 12 per seed; paper value: the mean p-value "
            "when the samples follow the model",
            basis="check",
        ),
        section(
            "not_attempted",
            "DSAG Fig. 3",
            "gamma fit to two Azure workers",
            paper="gamma CDFs fit the recorded per-iteration latency of two Azure workers; "
            "worker 2 is 14 % slower",
            reason="we have no Azure traces: this section samples a chosen gamma cluster, so it "
            "checks the sampler, not the paper's fit; notebook 03-dsag fits the model to latency "
            "recorded by our own MPI runs",
        ),
    ]


def _burst_paths(column, bursts, paths, consistency, burst_workers, burst_iterations):
    """A row on ``column`` of the sampled paths (one value per seed)."""
    m = bursts.model
    pi = m.burst_probability
    setting = (
        f"{burst_workers} gamma workers (mean 1, cv 0.03, chosen), {burst_iterations} iterations "
        f"per path, stationary start; calibrated: p_enter = {m.p_enter:g}, "
        f"factor = {m.factor:g}; chosen: p_exit = {m.p_exit:g}"
    )
    rows = {
        "burst_fraction": {
            "paper": pi,
            "setting": setting + "; paper value: the chain's stationary law (our model of "
            "DSAG's bursts; DSAG gives no formula)",
        },
        "any_burst": {
            "paper": 1 - (1 - pi) ** burst_workers,
            "setting": setting + "; paper value: the stationary 1 − (1 − π)^N",
        },
        "burst_latency_ratio": {"setting": setting},
        "workers_with_burst": {
            "setting": setting + f" ({burst_iterations / m.mean_burst_length:g} burst lengths)",
            "reason": f"measured: calibrated to 40 %, a worker bursts at least once in "
            f"{burst_iterations} iterations with probability "
            f"{bursts.summary['stationary'].iloc[3]:.2f} (stationary value, first table above); "
            "with DSAG's own burst/run ratio the model gives at most "
            f"{consistency['workers_with_burst'].max():.2f} (next row)",
        },
    }
    return {"samples": paths[column].dropna(), **rows[column]}


def _burst_calibrated(bursts):
    m = bursts.model
    return {
        "ours": 1 - (1 - m.burst_probability) ** 36,
        "setting": f"calibrated: p_enter = {m.p_enter:g}; chosen: p_exit = {m.p_exit:g}; "
        "ours: the stationary 1 − (1 − π)^36",
    }


def _burst_share(consistency, run_needed):
    most = consistency["workers_with_burst"].max()
    return {
        "ours": most,
        "reason": f"measured (table above): calibrated to 40 % of iterations, independent "
        f"workers whose bursts last 1/30 of the run burst at least once with probability "
        f"{most:.2f} at most, whatever the burst length; 'most' would need runs of "
        f"≥ {run_needed:.0f} burst lengths (bursts of ≤ {30 * 60 / run_needed:.0f} s in "
        "DSAG's 30 minutes) or bursts shared between workers, which the model does not have",
    }


def _burst_claims() -> list:
    section = partial(spec, section="1.3 Bursty workers")
    calibrated = partial(section, verdict="calibrated")
    return [
        section(
            "interval",
            "DSAG Sec. III-B (model)",
            quantity,
            partial(_burst_paths, column),
            basis="check",
        )
        for quantity, column in (
            ("sampled burst fraction vs p_enter/(p_enter+p_exit)", "burst_fraction"),
            ("sampled P[some worker in a burst]", "any_burst"),
        )
    ] + [
        calibrated(
            "exact",
            "DSAG Fig. 4",
            "stationary P[some of 36 workers in a burst]",
            _burst_calibrated,
            paper=0.40,
            rtol=0.05,
            reason="p_enter was chosen to hit the paper's 40 %",
        ),
        calibrated(
            "interval",
            "DSAG Fig. 4",
            "mean latency in a burst / outside",
            partial(_burst_paths, "burst_latency_ratio"),
            paper=1.12,
            unit="×",
            reason="factor = 1.12 was chosen to hit the paper's +12 %",
        ),
        section(
            "interval",
            "DSAG Fig. 4",
            "sampled share of workers with >= 1 burst",
            partial(_burst_paths, "workers_with_burst"),
            paper_range=(0.5, 1.0),
            paper_text="most of the 36 workers",
            basis="derived",
        ),
        section(
            "exact",
            "DSAG Fig. 4",
            "share of workers with >= 1 burst, run = 30 bursts",
            _burst_share,
            paper_range=(0.5, 1.0),
            rtol=0.0,
            headline=True,
            setting="DSAG Sec. III-B: 40 % of iterations with some of N = 36 workers in a burst, "
            "~1-minute bursts in a ~30-minute run; chosen: independent workers, "
            "stationary start, burst lengths 5–100 iterations; paper value: 'most' (> 0.5)",
        ),
    ]


#: per reference model: item, label and the closed-form function of its rows
_REFERENCE_ROWS = {
    "exponential, mean 1": ("LAGC eq. (21)", "exp. mean 1", "expected_order_statistic_exponential"),
    "Pareto t0=1, xi=2": (
        "RS App. / LAGC eq. (22)",
        "Pareto(1, 2)",
        "expected_order_statistic_pareto",
    ),
}


def _reference_mc(i, known, reference_mc, replicas):
    """Monte Carlo over seeds of :data:`KNOWN_VALUES` row ``i`` against its closed form."""
    model, k, n = (KNOWN_VALUES[i][key] for key in ("model", "k", "n"))
    rows = reference_mc[(reference_mc["model"] == model) & (reference_mc["k"] == k)]
    heavy = (
        " T_(10) of 10 has infinite variance (ξ(n−k+1) = 2): the interval is only indicative."
        if model.startswith("Pareto") and k == n
        else ""
    )
    return {
        **_mc_check(rows["mc_mean"], known["closed_form"].iloc[i]),
        "setting": f"{replicas} rounds per seed; paper value: the closed form "
        f"({_REFERENCE_ROWS[model][2]}).{heavy}",
    }


def _reference_claims() -> list:
    reference = partial(spec, section="2.1 Reference values", basis="check")
    specs = []
    for i, ref in enumerate(KNOWN_VALUES):
        item, label, function = _REFERENCE_ROWS[ref["model"]]
        what = f"E[T_({ref['k']})] of {ref['n']}, {label}"
        specs += [
            reference(
                "exact",
                item,
                f"{what}: numeric",
                lambda known, i=i: {
                    "paper": known["closed_form"].iloc[i],
                    "ours": known["numeric"].iloc[i],
                },
                rtol=1e-9,
                setting=f"paper value: the closed form ({function}; reference {ref['reference']}); "
                "ours: numeric integration of 1 − F_(k) (LAGC eq. 28)",
            ),
            reference("interval", item, f"{what}: Monte Carlo", partial(_reference_mc, i)),
        ]
    return specs


def _grid_row(name, grid, replicas, n_grid):
    row = grid.loc[name]
    ok = row.iloc[0] < 1e-8 and row.iloc[1] < 4
    return {
        "ours": f"numeric within {row.iloc[0]:.1e} (relative) for every k; Monte Carlo "
        f"within {row.iloc[1]:.1f} standard errors for the {int(row.iloc[2])} k with "
        "finite variance",
        **_verdict(
            ok, "the largest deviation exceeds 1e-8 (numeric) or 4 standard errors (Monte Carlo)"
        ),
        "uncertainty": f"one Monte Carlo run of {replicas} rounds; pass: relative error "
        "< 1e-8, |z| < 4",
        "setting": f"n = {n_grid}; chosen: exponential mean 1, Pareto t0 = 1, ξ = 2",
    }


def _finite(finite_k):
    contiguous = finite_k == list(range(1, max(finite_k) + 1))
    return {"ours": f"k <= {max(finite_k)}" if contiguous else str(finite_k)}


def _grid_claims() -> list:
    check = partial(spec, section="2.2 E[T_(k)] for every k", basis="check")
    paper_k = max(k for k in range(1, N_HEAVY + 1) if XI_HEAVY * (N_HEAVY - k + 1) > 1)
    return [
        check(
            "qualitative",
            item,
            f"all k = 1..n: numeric and Monte Carlo vs closed form, {name}",
            partial(_grid_row, name),
            paper=f"E[T_(k)] given by {formula} for every k",
        )
        for name, item, formula in (
            ("exponential", "LAGC eq. (21)", "eq. (21)"),
            ("Pareto xi=2", "RS App. / LAGC eq. (22)", "the Vännman / eq. (22) closed form"),
        )
    ] + [
        check(
            "exact",
            "RS App. / LAGC eq. (22)",
            f"finite E[T_(k)], Pareto ξ = {XI_HEAVY}, n = {N_HEAVY}",
            _finite,
            paper=f"k <= {paper_k}",
            setting="chosen: t0 = 1, ξ = 0.6; paper value: the Gamma functions of eq. (22) need "
            "ξ(n − k + 1) > 1; ours: where the numeric integral converges",
        )
    ]


def _iid_row(frame, strong=None) -> dict:
    """The i.i.d. model's largest relative error on ``frame`` (and, for the milder cluster,
    against the ``strong`` one's)."""
    errors = frame["iid_relative_error"]
    err = errors.abs().max()
    if strong is None:
        ours = f"largest |error| {err:.1%}; {errors.iloc[0]:+.1%} at k = 1, {errors.iloc[-1]:+.1%} at k = 20"
        reason = f"the i.i.d. model errs by at most {err:.1%} here"
    else:
        ours = f"largest |error| {err:.1%}"
        reason = (
            f"measured: with the milder spread the i.i.d. shortcut errs by at most {err:.1%} "
            f"(vs {strong['iid_relative_error'].abs().max():.1%} for means 1→2): how much "
            "accuracy it costs depends on how heterogeneous the workers are"
        )
    return {"ours": ours, **_verdict(err > 0.01, reason, "partly")}


_HETERO = "stand-in: 20 gamma workers, means 1→2, cv 0.05 (chosen)"


def _hetero_mc(k, hetero, hetero_mc, replicas):
    exact = float(hetero.loc[hetero["k"] == k, "numeric"].iloc[0])
    return {
        **_mc_check(hetero_mc.loc[hetero_mc["k"] == k, "mc_mean"], exact),
        "setting": _HETERO + f"; {replicas} rounds per seed; paper value: eq. (28) "
        "integrated numerically with the per-worker CDFs (Poisson-binomial)",
    }


def _hetero_claims() -> list:
    section = partial(spec, section="2.3 Non-identical workers")
    iid = partial(
        section,
        "qualitative",
        "DSAG Fig. 5 (style)",
        paper="the i.i.d. model (global mean and variance) can significantly reduce accuracy",
        uncertainty="exact (numeric integration)",
        basis="check",
    )
    return [
        section(
            "interval",
            "LAGC eq. (28)",
            f"E[T_({k})] of 20 non-identical: Monte Carlo",
            partial(_hetero_mc, k),
            basis="check",
        )
        for k in (10, 20)
    ] + [
        iid(
            "i.i.d.-model error, means 1→2, cv 0.05",
            lambda hetero: _iid_row(hetero),
            setting=_HETERO,
        ),
        iid(
            "i.i.d.-model error, means 1→1.4, cv 0.2",
            lambda hetero, mild: _iid_row(mild, hetero),
            setting="stand-in: 20 gamma workers, means 1→1.4, cv 0.2 (chosen)",
        ),
        section(
            "not_attempted",
            "DSAG Fig. 5",
            "recorded vs predicted w-th fastest latency, Azure N = 72",
            paper="the per-worker model predicts the recorded latency; the i.i.d. model is less "
            "accurate",
            reason="no Azure traces: this section compares the two models with each other on a "
            "stand-in cluster; notebook 03-dsag compares them with latency recorded by our own "
            "MPI runs",
        ),
    ]


def _finite_n(row, rs):
    return {
        "paper": rs["value [ms]"].iloc[0],
        "ours": rs["value [ms]"].iloc[row],
        "reason": f"Proposition 1's limit holds (previous row), but at the paper's own "
        f"n = {RS_N} the exact expectation is {rs['relative to the limit'].iloc[row]:+.0%} "
        "off the limit that T_f (eqs. 20-21) uses in its place",
    }


def _pareto_limit_claims() -> list:
    setting = (
        "RS Sec. 6 delay t0 = 0.001 s, ξ = 1.1, Fig. 3's α* = 0.1477; paper value: eq. (19)'s "
        "limit t0 α^(−1/ξ) (pareto_order_statistic_limit); ours: the exact Vännman expectation "
        "(RS App.)"
    )
    exact = partial(spec, "exact", section="2.4 RS Proposition 1")
    at80 = partial(exact, "RS eqs. (20)-(21) at n = 80", rtol=1e-3, unit="ms", verdict="partly")
    return [
        exact(
            "RS Prop. 1 / eq. (19)",
            "E[T_(⌈(1−α)n⌉)] at n = 10^5",
            lambda rs: {"paper": rs["value [ms]"].iloc[0], "ours": rs["value [ms]"].iloc[1]},
            rtol=1e-4,
            unit="ms",
            setting=setting,
            headline=True,
        ),
        *(
            at80(
                quantity,
                partial(_finite_n, row),
                setting=setting + f"; n = {RS_N} machines (RS Sec. 6)",
                basis="derived",
            )
            for row, quantity in (
                (2, f"E[T_({RS_F - 1})] of {RS_N}, k = ⌈(1−α)n⌉"),
                (3, f"E[T_({RS_F})] of {RS_N}, eq. (18)'s f"),
            )
        ),
        exact(
            "RS App. (proof of Prop. 1)",
            "limit of (1 − 1/(ξ(αn+1)))^(αn+1/2)",
            lambda factors: {"ours": factors["first"]},
            paper=math.exp(-RS_XI),
            rtol=1e-3,
            verdict="paper erratum",
            setting="ξ = 1.1, α = 0.1477; paper value: e^(−ξ) as printed; ours: the factor at "
            "n = 10^8",
            reason=f"the factor tends to e^(−1/ξ) = {math.exp(-1 / RS_XI):.4f}, not e^(−ξ) = "
            f"{math.exp(-RS_XI):.4f}; the second factor likewise tends to e^(1/ξ), not e^ξ, so "
            "the two still cancel and eq. (19) stands",
        ),
    ]


def _all_n(name, setting, cost, models):
    n = int(cost["k"].max())
    dist = models[name]
    return {
        "paper": closed_form(dist, n, n) / dist.mean(),
        "ours": cost.set_index(["model", "k"])["relative"][(name, n)],
        "setting": f"n = {n}; " + setting + "; ours: numeric integration",
    }


def _growing(cost):
    up = {
        name: bool(np.all(np.diff(part.sort_values("k")["expected"]) > 0))
        for name, part in cost.groupby("model")
    }
    return {
        "ours": ", ".join(
            f"{name}: {'increasing' if u else 'not increasing'}" for name, u in up.items()
        ),
        **_verdict(all(up.values()), "a curve is not increasing in k"),
        "setting": f"n = {int(cost['k'].max())}, {cost['k'].nunique()} values of k; the "
        "Section 1 models and the gamma cluster",
    }


def _cost_claims() -> list:
    check = partial(spec, section="2.5 Cost of waiting", basis="check")
    return [
        check(
            "exact",
            item,
            f"cost of waiting for all n, {label}",
            partial(_all_n, name, setting),
            rtol=1e-8,
            unit="× E[T]",
        )
        for name, item, label, setting in (
            (
                "shifted exponential",
                "LAGC eq. (21)",
                "shifted exp.",
                "chosen: shift 0.5, rate 2 (mean 1); paper value: eq. (21), shift + H_n/rate, "
                "over the mean",
            ),
            (
                "Pareto",
                "LAGC eq. (22)",
                "Pareto ξ = 3",
                "chosen: t0 = 2/3, ξ = 3 (mean 1); paper value: eq. (22) over the mean",
            ),
        )
    ] + [
        check(
            "qualitative",
            "LAGC eqs. (21)-(22)",
            "E[T_(k)] increases with k",
            _growing,
            paper="the averages (21) and (22) increase with the mean of each worker and with k",
            uncertainty="exact (numeric integration)",
        )
    ]


#: The notebook's claims by section: ``evaluate(table, CLAIMS[key], **results)``.
CLAIMS = {
    "models": _model_claims(),
    "codedreduce": _codedreduce_claims(),
    "cluster": _cluster_claims(),
    "bursts": _burst_claims(),
    "reference": _reference_claims(),
    "grid": _grid_claims(),
    "hetero": _hetero_claims(),
    "pareto_limit": _pareto_limit_claims(),
    "cost": _cost_claims(),
}
