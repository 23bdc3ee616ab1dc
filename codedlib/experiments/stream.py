"""Experiments for paper 5 (stream coded computing): one function per figure / table,
returning tidy frames (the paper's ``K``, ``C``, ``J`` keep their letter) or namespaces of them
for :mod:`codedlib.plots.stream`; the notebook's sizes are :data:`SETTINGS`, each
section's run one ``*_results`` dict and its claims :data:`CLAIMS`.

Worker sets. Example 2 lists its five workers; Sections VI-A/B and VI-C (Fig. 5, P = 100) do
not, so we use Example 2's own workers; for Figs. 2-3, Section VI-A's listed setting with
Example 2's workers slowed so one Section VI-A job is one Example 2 job of work
(:func:`section6a_workers`); for Fig. 4, Example 2's workers with ``Z = K C`` of Example 2 and
``K = 1000``, ``I = 10``, ``lambda = 0.01`` (stable for every Omega, as Section VI-B
requires); for Figs. 5-7 and Table II a seeded P = 100 cluster (:func:`heterogeneous_cluster`).

Reference: esfahanizadeh2022stream.
"""

from __future__ import annotations

from dataclasses import asdict
from functools import partial, wraps
from itertools import combinations
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from codedlib._validation import as_generator, check_int, check_real
from codedlib.claims import mean_interval, proportion_interval, ratio_interval, spec
from codedlib.progress import track
from codedlib.replicate import over_seeds
from codedlib.schemes import stream as sim
from codedlib.theory import stream as th

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from numpy.typing import ArrayLike

    from codedlib.claims import Claim

# Figs. 2-3: Section VI-A as printed; only the workers are a stand-in (section6a_workers).
SECTION6A = {
    "n_workers": 5,
    "complexity": 500.0,  # C, operations per task
    "K": 1000,
    "omega": 1.0,
    "iterations": 10,
    "arrival_rate": 0.01,  # Poisson: E[T_a] = 100 s, E[T_a^2] = 20,000 s^2
    "gamma": 1.0,
    "n_jobs": 3,  # Fig. 3 draws the first J = 3 jobs
    # stand-in: Example 2's mu_p scaled by (I K C)_VI-A / (I K C)_Example 2
    "speed_scale": 10 * 1000 * 500.0 / (50 * 50 * 2_827_440.0),
}


def section6a_workers() -> th.StreamWorkers:
    """Stand-in for Section VI-A's five workers, shown (Fig. 2a) but not listed: Example 2's
    workers with every ``mu_p`` times ``speed_scale`` ``= (I K C)_VI-A / (I K C)_Ex.2 = 7.07e-4``
    (one Section VI-A job is one Example 2 job of work). A choice, not a fit; the
    text agrees: Section VI-B's "stronger" workers (our Fig. 4 stand-in) are 5x faster, and
    Fig. 2(a) draws ``m_p`` (here 0.010-0.052 s) on the axis of ``c_p`` (0.048-0.089 s).
    """
    s = SECTION6A
    rates = np.asarray(th.EXAMPLE2["rates"]) * s["speed_scale"]
    return th.StreamWorkers.exponential(rates, th.EXAMPLE2["comm_time"], s["complexity"])


# Fig. 4: Example 2's workers, Z = 50 * 2,827,440 fixed, K = 1000 (Section VI-B), I = 10.
FIG4_SETTINGS = {
    "K": 1000,
    "Z": 50 * th.EXAMPLE2["complexity"],
    "iterations": 10,
    "arrival_rate": 0.01,
    "gamma": 1.0,
}

# Figs. 5-7 / Table II: our seeded stand-in for the paper's unlisted P = 100 cluster.
CLUSTER_SETTINGS = {
    "n_workers": 100,
    "seed": 2022,
    "speed_log_sigma": 0.8,  # unit-task speed 1/E[U_p] ~ lognormal(0, 0.8)
    "comm_max": 8.0,  # c_p ~ Uniform(0, 8) seconds
    "Z": 50.0,  # K * C
    "omega": 1.0,
    "iterations": 10,
    "arrival_rate": 0.01,
    "gamma": 1.0,
    "K_values": tuple(range(50, 610, 10)),
    "table_K": (110, 200, 350, 510),
    "paper_table_delay": (9.19e4, 8.07e4, 7.71e4, 7.50e4),
    "paper_best_K": 350,
    "paper_theta": 646.24,
    "paper_active": 33,
}


def _summary_row(summary: sim.DelaySummary) -> dict:
    """Mean, CI, per-stream range and the central 95 % of the per-stream averages (where one
    stream of J jobs falls); an unstable summary keeps only rho (no averages)."""
    ok, d = summary.stable, summary.per_seed
    spread = (np.min(d), np.max(d), *np.percentile(d, [2.5, 97.5])) if ok else [np.nan] * 4
    return (
        {"mean": summary.mean, "ci_halfwidth": summary.ci_halfwidth}
        | dict(zip(("seed_min", "seed_max", "q025", "q975"), map(float, spread)))
        | {"rho": summary.rho, "stable": ok, "per_seed": tuple(d) if ok else ()}
    )


def example2_streams(n_jobs: int = 1000, seeds: Sequence[int] = tuple(range(10))) -> pd.DataFrame:
    """Example 2, one row per (seed, arm): one stream's average job delay, mean queue wait and
    mean service time. Arms: ``optimal``, ``uniform`` (purging), ``<split>, no purging`` (nan
    averages when unstable) and ``ideal worker`` (eq. 9's deterministic service ``D_L`` behind
    the same queue). One seed gives every arm the same arrival times.
    """
    n_jobs = check_int("n_jobs", n_jobs, low=1)
    return over_seeds(_example2_stream, seeds, desc="stream seeds", n_jobs=n_jobs)


def _example2_stream(seed, *, n_jobs) -> list[dict]:
    """One seed of :func:`example2_streams`: its five arms on the same arrival times."""
    cols = ("arm", "mean_delay", "mean_wait", "mean_service", "rho", "stable")
    ex, w, rows = th.EXAMPLE2, th.example2_workers(), []
    K, I, lam = ex["K"], ex["iterations"], ex["arrival_rate"]
    splits = _example2_splits(w)
    for purging in (True, False):
        for name, split in splits.items():
            one = sim.simulate_stream(w, split.kappa, K, I, lam, n_jobs, purging, seed)
            ok, arm = one.stable, name if purging else f"{name}, no purging"
            means = [
                float(np.mean(x)) if ok else np.nan for x in (one.delays, one.start - one.arrivals)
            ]
            rows.append(dict(zip(cols, (arm, *means, float(one.service.mean()), one.rho, ok))))
    # the ideal worker behind the same arrivals (every arm's stream draws them first)
    d_l = th.lower_bound_delay(w, K, I)
    start, finish = sim.fifo_delays(one.arrivals, np.full(n_jobs, d_l))
    means = [float(np.mean(x - one.arrivals)) for x in (finish, start)]
    return rows + [dict(zip(cols, ("ideal worker", *means, d_l, d_l * lam, bool(d_l * lam < 1))))]


def example2_comparison(
    n_jobs: int = 1000, seeds: Sequence[int] = tuple(range(10))
) -> SimpleNamespace:
    """Example 2: optimal vs uniform split and the lower bound, paper vs ours: our closed form
    and simulation (mean and 95 % CI over seeds; the central 95 % of single streams; the
    percentile of the paper's single-stream value among ours): ``table`` (one row per quantity),
    ``streams`` (:func:`example2_streams`), ``lower_bound`` (eq. 9) and ``lower_bound_queue``."""
    ex, w = th.EXAMPLE2, th.example2_workers()
    K, I, lam = ex["K"], ex["iterations"], ex["arrival_rate"]
    seeds = tuple(seeds)
    if len(seeds) < 2:
        raise ValueError(f"seeds must hold at least 2 seeds for an interval, got {len(seeds)}")
    streams, rows = example2_streams(n_jobs, seeds), []

    def add(quantity, paper, theory, arm, note):
        row = {"quantity": quantity, "arm": arm, "paper": paper, "theory": theory}
        if arm:
            g = streams[streams["arm"] == arm]
            service, d = float(g["mean_service"].mean()), g["mean_delay"]
            ok = bool(g["stable"].all() and service * lam < 1)
            summary = sim.DelaySummary.of_streams(d, service * lam, ok)
            row |= {f"sim_{k}": v for k, v in _summary_row(summary).items()}
            # the paper's figure is one stream of J jobs: where does it fall among ours?
            ok = summary.stable and np.isfinite(paper)
            row["paper_percentile"] = float(np.mean(d <= paper)) * 100 if ok else np.nan
        rows.append(row | {"note": note})

    for kind, split in _example2_splits(w).items():
        pred = th.predict_delay(w, split.kappa, I, lam)
        note = f"Section VI simulation, integer split {split.kappa.tolist()}"
        add(f"{kind} split, purging (simulated)", ex[f"paper_{kind}_delay"], np.nan, kind, note)
        unstable = f"UNSTABLE: E[T_s]={pred.service_mean:.1f} s >= E[T_a]={1 / lam:.0f} s"
        note = "stable" if pred.stable else unstable
        quantity = f"{kind} split, no purging: P-K eq. (7)"
        add(quantity, np.nan, pred.pk_delay, f"{kind}, no purging", note)
    d_l, p_lb = th.lower_bound_delay(w, K, I), ex["paper_lower_bound"]
    note = "service time of one ideal worker: no queueing"
    add("lower bound D_L, eq. (9) as printed", p_lb, d_l, "", note)
    d_lq = th.lower_bound_queue_delay(w, K, I, lam)
    queue = "eq. (9) service behind the Poisson queue"
    note = "not in the paper; D_L plus the mean M/D/1 queue wait"
    add(f"{queue} (M/D/1, eq. 7)", p_lb, d_lq, "", note)
    note = "not in the paper; same arrivals as the splits"
    add(f"{queue} (simulated)", p_lb, np.nan, "ideal worker", note)
    table = pd.DataFrame(rows)
    return SimpleNamespace(table=table, streams=streams, lower_bound=d_l, lower_bound_queue=d_lq)


def _example2_splits(workers):
    return _splits(workers, th.EXAMPLE2["K"], th.EXAMPLE2["omega"], 1.0, ("optimal", "uniform"))


def _setting_streams(n_streams, seed, J, poisson=True, rate=th.EXAMPLE2["arrival_rate"], first=0):
    """``n_streams`` Example 2 streams with purging per split, stream ``r`` drawn from the seed
    ``[seed, r]`` (both splits on its arrivals): split -> list of (job delays, realised arrival
    rate ``J / t_J``)."""
    kw = {"seed": seed, "J": J, "poisson": poisson, "rate": rate}
    frame = over_seeds(
        _setting_stream, range(first, first + n_streams), desc="Example 2 streams", **kw
    )
    return {kind: list(frame[kind]) for kind in ("optimal", "uniform")}


def _setting_stream(r, *, seed, J, poisson, rate) -> dict:
    """Stream ``r`` of :func:`_setting_streams`: split -> (job delays, realised rate)."""
    K, I, w, out = th.EXAMPLE2["K"], th.EXAMPLE2["iterations"], th.example2_workers(), {}
    for kind, split in _example2_splits(w).items():
        rng = np.random.default_rng([seed, r])
        arr = np.cumsum(rng.exponential(1 / rate, J)) if poisson else np.arange(1, J + 1) / rate
        itr = sim.sample_iteration_times(w, split.kappa, K, J * I, True, rng)
        _, finish = sim.fifo_delays(arr, itr.reshape(J, I).sum(axis=1))
        out[kind] = (finish - arr, J / arr[-1])
    return out


def _rate_match(n_streams, n_jobs, seed):
    """The listed setting's streams of :func:`example2_setting_check` (``runs``: split -> list of
    (delays, realised rate)), one row per stream, and per split the least-squares line of
    average delay against realised rate with the rate where it meets the paper's value."""
    runs = _setting_streams(n_streams, seed, n_jobs)
    d = {k: np.array([np.mean(x) for x, _ in v]) for k, v in runs.items()}
    rate = [r for _, r in runs["optimal"]]
    streams = pd.DataFrame({"stream": range(n_streams), "realised_rate": rate, **d})
    match = []
    for kind in runs:
        paper = th.EXAMPLE2[f"paper_{kind}_delay"]
        slope, icept = np.polyfit(streams["realised_rate"], streams[kind], 1)
        fit = (paper - icept) / slope
        share = float(np.mean(streams["realised_rate"] <= fit))
        line = {"slope": slope, "intercept": icept, "rate_matching_paper": fit}
        match.append({"split": kind, "paper": paper, **line, "share_of_streams_that_slow": share})
    return runs, streams, pd.DataFrame(match)


def example2_setting_check(
    n_streams: int = 200, n_jobs: int = 1000, seed: int = 0
) -> SimpleNamespace:
    """Why the paper's Example 2 pair (47.93 s, 129.96 s) sits low among our streams.

    Candidate setting differences, each on ``n_streams`` paired streams (both splits share
    arrivals): as listed (Poisson, J = ``n_jobs``, purging); deterministic arrivals every
    1/lambda; J = 100, 300 (the queue starts empty); a warm-up of 200 jobs dropped (the listed
    streams' later jobs). Then each listed stream's *realised* rate ``J / t_J`` against its two
    delays: a least-squares line per split and the rate at which it meets the paper's value.
    Returns ``variants`` (the last row at the calibrated ``lambda_fit``), the listed ``streams``
    and the per-split fit ``match``.
    """
    n_streams = check_int("n_streams", n_streams, low=3)
    n_jobs = check_int("n_jobs", n_jobs, low=10)
    splits = ("optimal", "uniform")
    paper = {k: th.EXAMPLE2[f"paper_{k}_delay"] for k in splits}
    moments = (("mean", np.mean), ("sd", lambda x: x.std(ddof=1)))

    def row(setting, d):
        both = (d["optimal"] <= paper["optimal"]) & (d["uniform"] <= paper["uniform"])
        values = {f"{k}_{m}": f(d[k]) for k in splits for m, f in moments}
        return {"setting": setting, **values, "both_at_or_below_paper": float(np.mean(both))}

    listed, streams, match = _rate_match(n_streams, n_jobs, seed)
    runs = {(n_jobs, True): listed}
    for J, poisson in track([(n_jobs, False), (100, True), (300, True)], "Example 2 settings"):
        runs[J, poisson] = _setting_streams(n_streams, seed, J, poisson)
    cases = {  # label: (J, Poisson arrivals, jobs dropped); the warm-up reuses the listed streams
        f"as listed (Poisson, J = {n_jobs})": (n_jobs, True, 0),
        "deterministic arrivals every 1/λ": (n_jobs, False, 0),
        "J = 100 jobs": (100, True, 0),
        "J = 300 jobs": (300, True, 0),
        "first 200 jobs dropped (warm-up)": (n_jobs, True, 200),
    }
    rows = [
        row(label, {k: np.array([np.mean(d[warm:]) for d, _ in v]) for k, v in runs[J, p].items()})
        for label, (J, p, warm) in cases.items()
    ]
    # one arrival rate for both splits (the mean of the two matches): a calibrated check
    lam_fit = float(np.mean(match["rate_matching_paper"].to_numpy()))
    cal = _setting_streams(n_streams, seed, n_jobs, rate=lam_fit, first=10_000)
    cal = {k: np.array([np.mean(d) for d, _ in v]) for k, v in cal.items()}
    rows.append(row(f"λ = {lam_fit:.5f} (calibrated on both paper values)", cal))
    variants = pd.DataFrame(rows)
    return SimpleNamespace(variants=variants, streams=streams, match=match, lambda_fit=lam_fit)


def _splits(workers, K, omega, gamma, kinds=("uniform", "optimal")) -> dict:
    make = {"uniform": th.uniform_split, "optimal": partial(th.optimal_split, gamma=gamma)}
    return {k: make[k](workers, K, omega) for k in kinds}


def fig2_split_metrics(
    workers: th.StreamWorkers | None = None,
    K: int = SECTION6A["K"],
    omega: float = SECTION6A["omega"],
    gamma: float = SECTION6A["gamma"],
) -> pd.DataFrame:
    """Fig. 2: per worker ``m_p, c_p, sigma_p`` (a) and ``E[T]+gamma E[T^2]`` (b) per split;
    defaults: Section VI-A (:data:`SECTION6A`, :func:`section6a_workers`).

    ``caption_formula_*`` evaluates Fig. 2's caption,
    ``c + gamma c^2 + 2 gamma kappa c m + kappa m + kappa (kappa-1) sigma^2``, which is not
    ``E[T_{p,kappa}] + gamma E[T_{p,kappa}^2]`` (eqs. 4-5, what we plot).
    """
    w = section6a_workers() if workers is None else workers
    opt, uni = _splits(w, K, omega, gamma, ("optimal", "uniform")).values()
    m, c, s2 = w.task_mean, w.comm_time, w.task_var

    def caption(kappa):
        fixed = c * (kappa > 0) + gamma * c**2 * (kappa > 0)
        return fixed + 2 * gamma * kappa * c * m + kappa * m + kappa * (kappa - 1) * s2

    kappa = {"optimal_continuous": opt.kappa_continuous, "optimal": opt.kappa, "uniform": uni.kappa}
    caption_of = {"optimal": opt.kappa.astype(float), "optimal_continuous": opt.kappa_continuous}
    return pd.DataFrame(
        {"worker": np.arange(1, w.n_workers + 1), "m_p": m, "c_p": c, "sigma_p": np.sqrt(s2)}
        | {f"kappa_{k}": v for k, v in kappa.items()}
        | {f"metric_{k}": th.balance_metric(w, v, gamma) for k, v in kappa.items()}
        | {f"caption_formula_{k}": caption(v) for k, v in caption_of.items()}
        | {"theta": opt.theta}
    )


def fig3_activity(
    n_jobs: int = SECTION6A["n_jobs"], seed: int = 0, iterations: int = SECTION6A["iterations"]
) -> SimpleNamespace:
    """Fig. 3: busy intervals of every worker for the first ``n_jobs`` jobs, both splits on the
    same arrival times; defaults: Section VI-A (:data:`SECTION6A`, :func:`section6a_workers`).
    Per split: ``intervals`` (``job, iteration, worker, start, stop``), ``jobs`` (``arrival,
    start, finish``), ``n_workers`` and ``kappa``."""
    s, w, out = SECTION6A, section6a_workers(), {}
    for kind, split in _splits(w, s["K"], s["omega"], s["gamma"]).items():
        run = (w, split.kappa, s["K"], iterations, s["arrival_rate"], n_jobs, seed)
        rows, jobs = sim.activity_trace(*run)
        frames = {"intervals": pd.DataFrame(rows), "jobs": pd.DataFrame(jobs)}
        out[kind] = SimpleNamespace(**frames, n_workers=w.n_workers, kappa=split.kappa)
    return SimpleNamespace(**out)


def fig3_wait_check(n_streams: int = 400, seed: int = 0, n_jobs: int | None = None) -> pd.DataFrame:
    """How often does a picture of the first ``n_jobs`` jobs (Fig. 3: J = 3) show a queue wait?

    ``n_streams`` short Section VI-A streams, both splits on each stream's arrivals; one row per
    (stream, split): ``waited`` (a job started after its arrival) and ``mean_wait``. Omega = 1:
    ``T_itr = max_p T_{p,kappa_p}`` (eq. 2 with equality), drawn directly.
    """
    s, w = SECTION6A, section6a_workers()
    n_streams = check_int("n_streams", n_streams, low=2)
    J = s["n_jobs"] if n_jobs is None else check_int("n_jobs", n_jobs, low=1)
    K, I, lam = s["K"], s["iterations"], s["arrival_rate"]
    splits = _splits(w, K, s["omega"], s["gamma"])
    rows = []
    for r in range(n_streams):
        arrivals = np.cumsum(np.random.default_rng([seed, r]).exponential(1 / lam, J))
        for kind, split in splits.items():
            rng = np.random.default_rng([seed, r, 1])
            itr = sim.sample_iteration_times(w, split.kappa, K, J * I, False, rng)
            wait = sim.fifo_delays(arrivals, itr.reshape(J, I).sum(axis=1))[0] - arrivals
            # start - arrival is a difference of sums: round-off, not a wait, below 1 us
            waited = bool(np.any(wait > 1e-6))
            rows.append({"stream": r, "split": kind, "waited": waited, "mean_wait": wait.mean()})
    return pd.DataFrame(rows)


def stability_scan(
    rate_factors: Sequence[float] = (0.8, 0.9, 0.95, 1.05, 1.1, 1.25),
    n_jobs: int = 10_000,
    seeds: Sequence[int] = tuple(range(10)),
    include_paper_rate: bool = True,
) -> SimpleNamespace:
    """The uniform split's stability threshold (Section IV-A) against long simulated streams.

    Section VI-A's setting (Omega = 1: ``T_itr = max_p T_{p,kappa_p}``, drawn directly) at
    ``rate_factors`` times the uniform split's critical rate ``1 / (I E[T_itr])`` and the
    paper's lambda = 0.01; every rate reuses the seed's random numbers (paired). ``streams``:
    one row per (split, seed, rate) with the least-squares ``slope`` of job delay against job
    index (an unstable queue grows by ``E[T_s] - E[T_a]`` per job) and the mean delay of the
    first and last quarter; ``slopes``: its mean and 95 % interval per (split, rate);
    ``thresholds``: each split's closed forms per rate; ``by_job``: the job delay at the
    paper's rate in blocks of ``n_jobs // 100`` jobs, mean over seeds and 95 % half-width.
    """
    s, w = SECTION6A, section6a_workers()
    n_jobs = check_int("n_jobs", n_jobs, low=20)
    seeds = tuple(seeds)
    if len(seeds) < 2:
        raise ValueError(f"seeds must hold at least 2 seeds for an interval, got {len(seeds)}")
    K, I, lam0 = s["K"], s["iterations"], s["arrival_rate"]
    splits = _splits(w, K, s["omega"], s["gamma"])
    crit = th.stability_threshold(w, splits["uniform"].kappa, I, lam0).critical_rate
    rates = [check_real("rate_factor", f, low=0.0, low_open=True) * crit for f in rate_factors]
    rates = sorted(set(rates + [lam0] if include_paper_rate else rates))
    thresholds, rows, by_job = [], [], []
    for kind, split in splits.items():
        for t in (th.stability_threshold(w, split.kappa, I, lam) for lam in rates):
            thresholds.append({"split": kind, **asdict(t), "drift": t.drift})
        kw = {"kappa": split.kappa, "rates": rates, "critical_rate": crit, "n_jobs": n_jobs}
        runs = over_seeds(_scan_stream, seeds, desc=f"stability scan ({kind})", workers=w, **kw)
        delays_at_paper = [d for d in runs.pop("delays") if d is not None]
        runs.insert(0, "split", kind)
        rows.append(runs)
        if lam0 in rates:
            block = max(1, n_jobs // 100)
            n_blocks = n_jobs // block
            dd = np.array(delays_at_paper)[:, : n_blocks * block]
            dd = dd.reshape(len(seeds), n_blocks, block).mean(axis=2)
            half = sim.t_halfwidth(dd.std(axis=0, ddof=1), len(seeds))
            job = (np.arange(n_blocks) + 0.5) * block
            one = {"split": kind, "job": job, "mean_delay": dd.mean(axis=0), "ci_halfwidth": half}
            by_job.append(pd.DataFrame(one | {"block": block}))
    streams = pd.concat(rows, ignore_index=True)
    thresholds = pd.DataFrame(thresholds)
    thresholds["rate_factor"] = thresholds["arrival_rate"] / crit
    g = streams.groupby(["split", "arrival_rate"])["slope"]
    half = sim.t_halfwidth(g.std(ddof=1), g.count())
    slopes = pd.DataFrame({"slope": g.mean(), "ci_halfwidth": half})
    by_job = pd.concat(by_job, ignore_index=True) if by_job else pd.DataFrame()
    return SimpleNamespace(
        streams=streams, thresholds=thresholds, by_job=by_job, slopes=slopes.reset_index()
    )


def _scan_stream(seed, *, workers, kappa, rates, critical_rate, n_jobs) -> list[dict]:
    """One seed of :func:`stability_scan`: one stream's arrivals and service at every rate (the
    job delays kept at the paper's rate)."""
    s, I, q = SECTION6A, SECTION6A["iterations"], n_jobs // 4
    xc = np.arange(n_jobs, dtype=float) - (n_jobs - 1) / 2  # job index minus its mean
    rng = np.random.default_rng([seed, 7])
    unit_gaps = rng.exponential(1.0, n_jobs)  # arrivals at rate lam: unit_gaps / lam
    service = sim.sample_iteration_times(workers, kappa, s["K"], n_jobs * I, False, rng)
    service = service.reshape(n_jobs, I).sum(axis=1)
    rows = []
    for lam in rates:
        arrivals = np.cumsum(unit_gaps) / lam
        _, finish = sim.fifo_delays(arrivals, service)
        d = finish - arrivals
        rows.append(
            {
                "arrival_rate": lam,
                "rate_factor": lam / critical_rate,
                "slope": float(xc @ (d - d.mean()) / (xc @ xc)),
                "first_quarter": float(d[:q].mean()),
                "last_quarter": float(d[-q:].mean()),
                "service_mean": float(service.mean()),
                "delays": d if lam == s["arrival_rate"] else None,
            }
        )
    return rows


def section6a_speed_window(scales: ArrayLike | None = None) -> SimpleNamespace:
    """Section VI-A's statement (optimal split stable, uniform not) against the unlisted
    workers' speed: ``rho`` of both splits (eq. 8, Omega = 1) with every task time of the
    stand-in scaled by ``s`` (``s > 1``: slower), and the scales where ``rho = 1``; the statement
    holds for ``s_uniform <= s < s_optimal``, the stand-in is ``s = 1``; ``fig4_scale`` is Fig. 4's
    stand-in's ``s`` and ``rho_fig4`` the uniform split's ``rho`` there."""
    from scipy import optimize

    s, w = SECTION6A, section6a_workers()
    K, omega, gamma, I, lam = s["K"], s["omega"], s["gamma"], s["iterations"], s["arrival_rate"]

    def rho(kind, scale):
        ws = w.with_complexity(scale)
        split = _splits(ws, K, omega, gamma)[kind]
        return th.stability_threshold(ws, split.kappa, I, lam).rho

    scales = np.geomspace(0.1, 10.0, 41) if scales is None else np.asarray(scales, dtype=float)
    if scales.ndim != 1 or scales.size == 0 or np.any(scales <= 0):
        raise ValueError("scales must be a non-empty 1-d sequence of positive numbers")
    kinds = ("uniform", "optimal")
    table = pd.DataFrame(
        {"scale": scales} | {f"rho_{k}": [rho(k, x) for x in scales] for k in kinds}
    )
    roots = {
        f"s_{k}": float(optimize.brentq(lambda x, k=k: rho(k, x) - 1.0, 1e-3, 1e3, rtol=1e-6))
        for k in kinds
    }
    # Fig. 4's stand-in (Example 2's per-iteration work, C = Z/K) is ours with task times x this
    fig4_scale = (FIG4_SETTINGS["Z"] / FIG4_SETTINGS["K"]) * s["speed_scale"] / s["complexity"]
    rho_fig4 = rho("uniform", fig4_scale)
    return SimpleNamespace(table=table, **roots, fig4_scale=fig4_scale, rho_fig4=rho_fig4)


def fig4_delay_vs_redundancy(
    omegas: Sequence[float],
    seeds: Sequence[int] = tuple(range(5)),
    n_jobs: int = 1000,
    n_realizations: int = 100,
) -> SimpleNamespace:
    """Fig. 4: average job delay vs Omega - uniform and optimal (simulated, purging), theory
    without purging (eq. 7), lower bound (eq. 9); plus job-delay realisations (bottom panel).
    One seed gives every arm and every Omega the same arrival times (paired comparisons).
    Returns ``table`` (per Omega), ``realizations`` and ``per_seed`` (``omega, arm, seed,
    mean_delay``).
    """
    s = FIG4_SETTINGS
    K, I, lam, gamma = s["K"], s["iterations"], s["arrival_rate"], s["gamma"]
    w = th.example2_workers(complexity=s["Z"] / K)
    seeds, rows, realizations, per_seed = tuple(seeds), [], [], []
    d_l, d_lq = th.lower_bound_delay(w, K, I), th.lower_bound_queue_delay(w, K, I, lam)

    def add(row, omega, arm, kappa, purging):
        summary = sim.simulate_mean_delay(w, kappa, K, I, lam, n_jobs, purging, seeds)
        prefix = arm.replace(", no purging", "_no_purging")
        row.update({f"{prefix}_{k}": v for k, v in _summary_row(summary).items()})
        delay = summary.per_seed if summary.stable else np.nan
        one = {"omega": omega, "arm": arm, "seed": seeds, "mean_delay": delay}
        per_seed.append(pd.DataFrame(one))

    for omega in omegas:
        opt, uni = _splits(w, K, omega, gamma, ("optimal", "uniform")).values()
        row = {"omega": omega, "theory_no_purging": th.predict_delay(w, opt.kappa, I, lam).pk_delay}
        row |= {"lower_bound": d_l, "lower_bound_queue": d_lq}
        for split in (opt, uni):
            add(row, omega, split.kind, split.kappa, True)
            one = sim.simulate_stream(w, split.kappa, K, I, lam, n_realizations, True, seeds[0])
            frame = {"omega": omega, "split": split.kind, "delay": one.delays}
            realizations.append(pd.DataFrame(frame))
        add(row, omega, "optimal, no purging", opt.kappa, False)
        rows.append(row)
    realizations, per_seed = (pd.concat(x, ignore_index=True) for x in (realizations, per_seed))
    return SimpleNamespace(table=pd.DataFrame(rows), realizations=realizations, per_seed=per_seed)


def fig4_no_purging_check(
    omegas: Sequence[float], seeds: Sequence[int] = tuple(range(40)), n_jobs: int = 1000
) -> pd.DataFrame:
    """Fig. 4's no-purging theory (eqs. 7-8) against a no-purging simulation of the optimal
    split over many streams, the same seeds at every Omega: one row per Omega with ``inside``
    (the theory within the simulation's 95 % CI)."""
    s = FIG4_SETTINGS
    K, I, lam, gamma = s["K"], s["iterations"], s["arrival_rate"], s["gamma"]
    w, seeds, rows = th.example2_workers(complexity=s["Z"] / K), tuple(seeds), []
    for omega in omegas:
        split = th.optimal_split(w, K, omega, gamma)
        theory = th.predict_delay(w, split.kappa, I, lam).pk_delay
        summary = sim.simulate_mean_delay(w, split.kappa, K, I, lam, n_jobs, False, seeds)
        mean, half = summary.mean, summary.ci_halfwidth
        row = {"omega": omega, "theory": theory, "sim_mean": mean, "sim_ci_halfwidth": half}
        rows.append(row | {"inside": bool(abs(theory - mean) <= half), "n_seeds": len(seeds)})
    return pd.DataFrame(rows)


def heterogeneous_cluster() -> th.StreamWorkers:
    """Seeded stand-in for the paper's P = 100 cluster (Fig. 5; the paper does not list it).

    Unit-complexity task times ``U_p ~ Exp`` with speed ``1/E[U_p]`` lognormal(0, sigma) and
    communication times ``c_p ~ Uniform(0, comm_max)`` (:data:`CLUSTER_SETTINGS`). Returns unit-task ``StreamWorkers``
    (Assumption 1 scales them by ``C``).
    """
    s = CLUSTER_SETTINGS
    rng = as_generator(s["seed"])
    speed = rng.lognormal(0.0, s["speed_log_sigma"], s["n_workers"])
    comm = rng.uniform(0.0, s["comm_max"], s["n_workers"])
    return th.StreamWorkers.exponential(speed, comm, 1.0)


def table2_delay_vs_K(
    K_values: Sequence[int] = CLUSTER_SETTINGS["table_K"],
    seeds: Sequence[int] = tuple(range(5)),
    n_jobs: int = 1000,
    unit_workers: th.StreamWorkers | None = None,
    Z: float = CLUSTER_SETTINGS["Z"],
) -> pd.DataFrame:
    """Table II: Algorithm 1's row per K (:func:`~codedlib.theory.stream.optimise_code_parameters`)
    with the average job delay (optimal split, purging) and theory; unstable configurations
    show ``stable = False`` and no average."""
    s = CLUSTER_SETTINGS
    w = heterogeneous_cluster() if unit_workers is None else unit_workers
    if not (K_values := [check_int("K", k, low=1) for k in K_values]):
        raise ValueError("K_values must hold at least one K, got K_values=[]")
    I, lam = s["iterations"], s["arrival_rate"]
    paper = dict(zip(s["table_K"], s["paper_table_delay"]))
    rows = []
    for K in K_values:
        workers = w.with_complexity(Z / K)
        split = th.optimal_split(workers, K, s["omega"], s["gamma"])
        pred = th.predict_delay(workers, split.kappa, I, lam)
        summary = sim.simulate_mean_delay(workers, split.kappa, K, I, lam, n_jobs, True, seeds)
        row = {"paper_delay": paper.get(K, np.nan), "service_mean": pred.service_mean}
        row |= {"theory_no_purging": pred.pk_delay}
        rows.append(row | {f"sim_{k}": v for k, v in _summary_row(summary).items()})
    table = th.optimise_code_parameters(w, Z, K_values, s["omega"], s["gamma"])
    return pd.concat([table, pd.DataFrame(rows)], axis=1)


def queueing_check(
    seeds: Sequence[int] = tuple(range(12)),
    n_jobs: int = 1000,
    arrival_rates: Sequence[float] = (0.005, 0.01, 0.015),
) -> pd.DataFrame:
    """Kingman (eq. 6) and P-K (eq. 7) vs simulation for Omega = 1 without purging (exact case),
    Example 2 workers with the optimal split; an unstable rate is reported, not averaged.
    """
    ex, w = th.EXAMPLE2, th.example2_workers()
    K, I = ex["K"], ex["iterations"]
    kappa = th.optimal_split(w, K, 1.0, ex["gamma"]).kappa
    rows = []
    for lam in arrival_rates:
        pred = th.predict_delay(w, kappa, I, lam)
        row = {"arrival_rate": lam, "rho": pred.rho, "stable": pred.stable, "pk": pred.pk_delay}
        row["kingman"] = pred.kingman_delay
        if pred.stable:
            summary = sim.simulate_mean_delay(w, kappa, K, I, lam, n_jobs, False, seeds)
            row.update({f"sim_{k}": v for k, v in _summary_row(summary).items()})
            row["pk_inside_ci"] = bool(abs(pred.pk_delay - summary.mean) <= summary.ci_halfwidth)
        rows.append(row)
    return pd.DataFrame(rows)


def unstable_growth(
    K: int = 350,
    Z: float = 250.0,
    n_jobs: Sequence[int] = (250, 500, 1000),
    seeds: Sequence[int] = (0, 1),
    unit_workers: th.StreamWorkers | None = None,
) -> pd.DataFrame:
    """An unstable stream (``E[T_s] > E[T_a]``) on the stand-in cluster, optimal split, Omega
    = 1: one row per (seed, J) with the average delay of the first J jobs of one stream, which
    grows as the linear-drift ``prediction`` ``E[T_s] + (J - 1)/2 (E[T_s] - E[T_a])``."""
    w = heterogeneous_cluster() if unit_workers is None else unit_workers
    n_jobs = sorted(check_int("n_jobs", j, low=1) for j in n_jobs)
    workers = w.with_complexity(Z / K)
    split = th.optimal_split(workers, K, 1.0, CLUSTER_SETTINGS["gamma"])
    kw = {"workers": workers, "kappa": split.kappa, "K": K, "n_jobs": n_jobs}
    return over_seeds(_unstable_stream, seeds, desc="unstable-stream seeds", **kw)


def _unstable_stream(seed, *, workers, kappa, K, n_jobs) -> list[dict]:
    """One seed of :func:`unstable_growth`: the first-J averages of one long stream."""
    I, lam = CLUSTER_SETTINGS["iterations"], CLUSTER_SETTINGS["arrival_rate"]
    one = sim.simulate_stream(workers, kappa, K, I, lam, n_jobs[-1], True, seed)
    return [
        {
            "J": J,
            "mean_delay": float(one.delays[:J].mean()),
            "service_mean": one.service_mean,
            "prediction": one.service_mean + (J - 1) / 2 * (one.service_mean - 1 / lam),
            "rho": one.rho,
        }
        for J in n_jobs
    ]


def paper_table2_stability() -> SimpleNamespace:
    """What the paper's own Section VI-C numbers say about its queue (Table II, Fig. 7).

    With exponential tasks every active worker at ``theta`` (Theorem 2) has
    ``(-1 + sqrt(1 + 8 gamma theta)) / (4 gamma) <= E[T_{p,kappa}] <= (-1 + sqrt(1 + 4 gamma
    theta)) / (2 gamma)`` (``Var <= E^2``), and with Omega = 1 ``E[T_s] >= I`` times the lower
    end; inverting the linear drift (:func:`unstable_growth`), a ``J``-job average ``D`` means
    ``E[T_s] ~ (D + (J - 1)/2 E[T_a]) / (1 + (J - 1)/2)``, with J = 1000 (times in seconds,
    ``implied_service_mean`` keyed by K).
    """
    s = CLUSTER_SETTINGS
    theta, gamma, I, lam = s["paper_theta"], s["gamma"], s["iterations"], s["arrival_rate"]
    low = (-1 + np.sqrt(1 + 8 * gamma * theta)) / (4 * gamma)
    high = (-1 + np.sqrt(1 + 4 * gamma * theta)) / (2 * gamma)
    half = (1000 - 1) / 2
    implied = [(d + half / lam) / (1 + half) for d in s["paper_table_delay"]]
    return SimpleNamespace(
        theta=theta,
        assignment_mean_low=float(low),
        assignment_mean_high=float(high),
        service_mean_low=float(I * low),
        arrival_mean=1 / lam,
        implied_service_mean=dict(zip(s["table_K"], map(float, implied))),
    )


def calibrate_work(target_service_mean: float, K: int, unit_workers: th.StreamWorkers) -> float:
    """The total work ``Z = K C`` at which the stand-in's optimal split has the mean job service
    time ``target_service_mean`` (eq. 8, no purging), to within a step of the integer split:
    a *calibrated* stand-in for what the paper's Table II implies, never a fitted number."""
    from scipy import optimize

    s = CLUSTER_SETTINGS
    target = check_real("target_service_mean", target_service_mean, low=0, low_open=True)
    K = check_int("K", K, low=1)

    def service(Z):
        workers = unit_workers.with_complexity(Z / K)
        split = th.optimal_split(workers, K, 1.0, s["gamma"])
        return s["iterations"] * th.iteration_time_moments(workers, split.kappa)[0]  # eq. (8)

    lo, hi = 1e-6, float(s["Z"])
    if (floor := service(lo)) >= target:
        msg = f"target_service_mean must exceed the communication floor {floor:.4g}, got {target:g}"
        raise ValueError(msg)
    while service(hi) < target:
        lo, hi = hi, hi * 2.0
    # the integer split jumps with Z, so E[T_s](Z) has small steps: a relative 1e-4 in Z
    # is as close as the target can be met anyway
    return float(optimize.brentq(lambda z: service(z) - target, lo, hi, rtol=1e-4))


# -- Notebook 05: its sizes, one run per section and the claims each section makes ---------

# the notebook's parameters cell holds n_jobs, n_seeds and n_seeds_example2 (faithful values)
SETTINGS = {
    "quick": {
        "n_jobs": 150,
        "n_seeds": 2,
        "n_seeds_example2": 3,
        "queueing_min_seeds": 4,
        "scan_jobs": 3000,
        "scan_seeds": 5,
        "fig4_omegas": (1.0, 1.06, 1.5),
        "no_purging_seeds": 6,
        "wait_streams": 100,
    },
    "faithful": {
        "queueing_min_seeds": 12,
        "scan_jobs": 10_000,
        "scan_seeds": 10,
        "fig4_omegas": (1.0, 1.02, 1.04, 1.06, 1.08, 1.1, 1.12, 1.15, 1.2, 1.3, 1.5),
        "no_purging_seeds": 40,
        "wait_streams": 2000,
    },
}
QUEUEING_RATES = (0.005, 0.01, 0.015, 0.025)  # the last is past saturation (no row)

_VIA, _F4, _CL = SECTION6A, FIG4_SETTINGS, CLUSTER_SETTINGS
STANDIN_VI_A = (
    f"Section VI-A as printed: P = 5, T_p ~ Exp(μ_p/C), C = {_VIA['complexity']:g}, "
    f"K = {_VIA['K']}, Ω = {_VIA['omega']:g}, I = {_VIA['iterations']}, "
    f"λ = {_VIA['arrival_rate']}, γ = {_VIA['gamma']:g}; stand-in for its unlisted five workers "
    f"(chosen, not fitted): Example 2's μ_p × {_VIA['speed_scale']:.4g} (one Section VI-A job is "
    f"one Example 2 job of work), c_p as listed"
)
STANDIN_FIG4 = (
    f"stand-in: Example 2's workers for Section VI-B's unlisted 'stronger' set; chosen: "
    f"Z = K·C of Example 2, K = {_F4['K']} (C = {_F4['Z'] / _F4['K']:,.0f}), "
    f"I = {_F4['iterations']}, λ = {_F4['arrival_rate']}"
)
STANDIN_CLUSTER = (
    f"stand-in: seeded P = {_CL['n_workers']} cluster (seed {_CL['seed']}) for Fig. 5's "
    f"unlisted one; chosen: 1/E[U_p] ~ lognormal(0, {_CL['speed_log_sigma']}), "
    f"c_p ~ U(0, {_CL['comm_max']:g}) s, Z = K·C = {_CL['Z']:g}, Ω = {_CL['omega']:g}, "
    f"I = {_CL['iterations']}, λ = {_CL['arrival_rate']}"
)


def example2_setting(gamma: float = 1.0) -> str:
    """The claims' setting text for Example 2 as listed (γ is the notebook's parameter)."""
    e = th.EXAMPLE2
    return (
        f"Example 2 as listed: P = 5, T_p ~ Exp(μ_p/C), K = {e['K']}, Ω = {e['omega']}, "
        f"I = {e['iterations']}, λ = {e['arrival_rate']}, γ = {gamma:g}"
    )


def show(rows: Iterable[Claim]) -> None:
    """Print claim rows as 'paper | ours -> verdict' lines (the notebook's prose quotes them)."""
    for r in rows:
        print(
            f"- {r.item} / {r.quantity}:\n    paper {r.paper_display()} | ours {r.ours_display()}"
            f"  [{r.uncertainty}] -> {r.verdict}"
        )


def _interval(item, quantity, measured, miss_reason="", unit="×", **fixed):
    """An interval spec: ``measured`` returns ``samples`` (and any other measured argument, a
    ``miss_reason`` too); the reason is recorded only when the paper's value (or range) misses
    our 95 % mean interval."""

    p_lo, p_hi = fixed.get("paper_range") or (fixed.get("paper"),) * 2

    @wraps(measured)  # claims.evaluate passes the results measured's signature names
    def run(**results):
        kw = measured(**results)
        why, (_, lo, hi) = kw.pop("miss_reason", miss_reason), mean_interval(kw["samples"])
        return kw | {"reason": "" if p_hi >= lo and p_lo <= hi else why}

    return spec("interval", item, quantity, run, unit=unit, **fixed)


def split_results(gamma: float = 1.0) -> dict:
    """Section 1: Theorem 2 on Example 2, Fig. 2's metrics on Section VI-A and Example 1."""
    e, workers = th.EXAMPLE2, th.example2_workers()
    fig2 = fig2_split_metrics(section6a_workers(), _VIA["K"], _VIA["omega"], gamma)
    theta6a = float(fig2["theta"].iloc[0])
    spread = {  # the three metrics and the caption's expression under the real optimal split
        c: float(np.ptp(fig2[c]) / theta6a)
        for c in fig2
        if c.startswith(("metric_", "caption_formula_optimal_continuous"))
    }
    rates = np.array([0.5, 1.0, 2.0, 7.0])
    s1 = th.optimal_split(th.StreamWorkers.exponential(rates, np.zeros(4)), 40, 1.0, gamma)
    return {
        "gamma": gamma,
        "workers": workers,
        "opt": th.optimal_split(workers, e["K"], e["omega"], gamma),
        "uni": th.uniform_split(workers, e["K"], e["omega"]),
        "fig2": fig2,
        "spread": spread,
        "example1": s1,
        "example1_kappa": th.example1_kappa(rates, s1.theta, gamma),
    }


def _verdict(holds, why):
    """``reproduced``, or ``not reproduced`` with the reason ``why``."""
    return {"verdict": "reproduced" if holds else "not reproduced", "reason": "" if holds else why}


def _fig2_qualitative(spread, fig2):
    holds = spread["metric_uniform"] > 10 * spread["metric_optimal"]
    ratio = {c: float(fig2[c].max() / fig2[c].min()) for c in ("metric_optimal", "metric_uniform")}
    return {
        "ours": (
            f"(max−min)/θ: {spread['metric_optimal']:.3f} with integer κ (max/min "
            f"{ratio['metric_optimal']:.3f}), {spread['metric_uniform']:.2f} uniform (max/min "
            f"{ratio['metric_uniform']:.1f}; worker {fig2['m_p'].idxmax() + 1}, the slowest, "
            "overloaded)"
        ),
        **_verdict(holds, "the uniform spread is not an order of magnitude above the optimal one"),
    }


def example2_results(n_jobs: int, seeds: Sequence[int], gamma: float = 1.0) -> dict:
    """Section 2: Example 2's two splits and the ideal worker on paired streams."""
    res = example2_comparison(n_jobs=n_jobs, seeds=seeds)
    per_stream = {  # seed x arm
        k: res.streams.pivot(index="seed", columns="arm", values=f"mean_{k}")
        for k in ("delay", "wait", "service")
    }
    return per_stream | {
        "example2": res,
        "lower_bound_queue": res.lower_bound_queue,
        "setting": example2_setting(gamma) + f"; J = {n_jobs}",
        "setting_listed": example2_setting(gamma),
    }


def _example2_arm(arm):
    """The interval row of one split's mean delay against the paper's single stream."""

    def measured(delay, setting):
        p_opt, p_uni = th.EXAMPLE2["paper_optimal_delay"], th.EXAMPLE2["paper_uniform_delay"]
        d = delay[arm]
        share = float(np.mean(d <= th.EXAMPLE2[f"paper_{arm}_delay"]))
        kw = {"samples": d.to_numpy(), "setting": setting}
        if arm == "uniform":
            return kw | {
                "reason": f"the paper's one stream is {1 - p_uni / d.mean():.1%} below our mean; "
                f"{share:.0%} of our single streams are at or below it; a slower arrival rate "
                "explains both values (calibrated row below)"
            }
        both_low = float(np.mean((d <= p_opt) & (delay["uniform"] <= p_uni)))
        m_opt, lo_opt, hi_opt = mean_interval(d)
        return kw | {
            "verdict": None if lo_opt <= p_opt <= hi_opt else "partly",
            "reason": f"the paper's one stream is {1 - p_opt / m_opt:.1%} below our mean over "
            f"{len(delay)} streams, yet a common single stream: {share:.0%} of ours are at or "
            f"below it (both paper values at once: {both_low:.0%}); the splits follow the paper's "
            "rules, we tune nothing",
        }

    return measured


def _example2_ratio(delay, setting, printed):
    """Uniform / optimal delay: more than 2.5x (Section I) or the printed pair's ratio."""
    num, den = delay["uniform"].to_numpy(), delay["optimal"].to_numpy()
    _, rlo, rhi = ratio_interval(num, den)
    p, kw = _EX2_RATIO, {"numerator": num, "denominator": den, "setting": setting}
    if printed:
        reason = (
            f"{np.mean(num / den <= p):.0%} of our single-stream ratios are at or below "
            f"{p:.2f}; the uniform split's miss (row above) carries the difference"
        )
        return kw | {"verdict": None if rlo <= p <= rhi else "not reproduced", "reason": reason}
    return kw | _verdict(rlo > 2.5, "the interval does not exclude 2.5")


_EX2_RATIO = th.EXAMPLE2["paper_uniform_delay"] / th.EXAMPLE2["paper_optimal_delay"]


def _code_lower_bound(q):
    return (
        "the authors' code (Analysis_Omega.m, 'theory lower bound', GitHub hesfahanizadeh/"
        f"Layered_Computations_Cloudnet) adds the M/D/1 queue wait λS²/(2(1−ρ)) to the service "
        f"term: {q:.2f} s here"
    )


def _lower_bound_row(example2, lower_bound_queue, setting_listed):
    d_l, p_lb = example2.lower_bound, th.EXAMPLE2["paper_lower_bound"]
    return {
        "ours": d_l,
        "setting": setting_listed,
        "reason": f"eq. (9) with the listed μ_p, c_p, K, I gives {d_l:.2f} s; "
        f"{_code_lower_bound(lower_bound_queue)}, so the printed {p_lb} s comes from a different "
        "formula than eq. (9) as printed",
    }


def _ideal_worker_row(delay, lower_bound_queue, setting):
    p_lb = th.EXAMPLE2["paper_lower_bound"]
    _, lo, hi = mean_interval(delay["ideal worker"])
    return {
        "samples": delay["ideal worker"].to_numpy(),
        "verdict": None if lo <= p_lb <= hi else "partly",
        "reason": f"not in the paper: {_code_lower_bound(lower_bound_queue)}; the queue wait "
        f"closes most of the gap from eq. (9) but overshoots the printed value by "
        f"{lower_bound_queue - p_lb:.2f} s",
        "setting": setting + "; same arrivals as the splits",
    }


def _setting_check_row(check, n_jobs, gamma=1.0):
    e = th.EXAMPLE2
    m2, v2 = check.match.set_index("split"), check.variants.set_index("setting")
    lam_fit, cal = check.lambda_fit, v2.iloc[-1]
    cal_ok = all(
        abs(cal[f"{k}_mean"] - e[f"paper_{k}_delay"]) <= 2 * cal[f"{k}_sd"] for k in m2.index
    )
    rate = m2["rate_matching_paper"]
    pair = [
        f"{v2.iloc[i]['optimal_mean']:.1f} / {v2.iloc[i]['uniform_mean']:.1f} s" for i in (1, 2, 4)
    ]
    return {
        "paper": f"{e['paper_optimal_delay']} s (optimal) and {e['paper_uniform_delay']} s "
        f"(uniform), one stream at λ = {e['arrival_rate']}",
        "ours": (
            f"deterministic arrivals give {pair[0]}, J = 100 {pair[1]}, a dropped warm-up "
            f"{pair[2]}: none moves both to the paper; both splits meet the paper at one realised "
            f"arrival rate ({rate['optimal']:.5f} and {rate['uniform']:.5f} jobs/s, "
            f"{100 * (1 - lam_fit / e['arrival_rate']):.0f} % below λ), and λ = {lam_fit:.5f} "
            f"gives {cal['optimal_mean']:.2f} ± {cal['optimal_sd']:.2f} s and "
            f"{cal['uniform_mean']:.1f} ± {cal['uniform_sd']:.1f} s (mean ± sd of single streams)"
        ),
        "reason": (
            f"calibrated parameter: the arrival rate λ = {lam_fit:.5f} (from both paper values) "
            + (
                "reproduces both at once within 2 sd of a single stream: the paper's stream had "
                "arrivals about that much slower than λ = 0.01 (a lower effective λ, or an "
                f"unusually slow stream: {100 * m2['share_of_streams_that_slow'].min():.1f} % of "
                "ours are that slow)"
                if cal_ok
                else "does not reproduce both at once: the difference is not the arrival rate alone"
            )
        ),
        "setting": example2_setting(gamma) + f"; calibrated: λ = {lam_fit:.5f}; J = {n_jobs}; "
        f"{len(check.streams)} streams per setting",
    }


def _queueing_spec(rate):
    def measured(queueing, gamma=1.0):
        r = queueing.set_index("arrival_rate").loc[rate]
        return {
            "samples": np.asarray(r.sim_per_seed) / r.pk,
            "setting": f"{example2_setting(gamma).replace('Ω = 1.1', 'Ω = 1')} except λ; optimal "
            f"split; J = 1000 jobs per stream; ρ = {r.rho:.3f}",
        }

    return _interval(
        "Section IV-B, eq. (7)",
        f"simulated / P–K delay, Ω = 1, no purging, λ = {rate:g}",
        measured,
        "the simulation's interval excludes the P–K value",
        paper=1.0,
        paper_text="1 (eq. 7 is precise for Ω = 1)",
    )


def fig3_results(seed: int = 0, gamma: float = 1.0) -> dict:
    """Section 4: Fig. 3's activity and the closed-form stability of both Section VI-A splits."""
    w6a = section6a_workers()
    splits = _splits(w6a, _VIA["K"], _VIA["omega"], gamma)
    thresholds = {
        k: th.stability_threshold(w6a, s.kappa, _VIA["iterations"], _VIA["arrival_rate"])
        for k, s in splits.items()
    }
    # the earlier figure's setting: Example 2 at Ω = 1.1 with purging (simulated E[T_itr])
    e, w = th.EXAMPLE2, th.example2_workers()
    uni = th.uniform_split(w, e["K"], e["omega"])
    itr = sim.sample_iteration_times(w, uni.kappa, e["K"], 20_000, True, seed)
    return {
        "activity": fig3_activity(seed=seed),
        "splits6a": splits,
        "thresholds": thresholds,
        "rho_example2_uniform": e["arrival_rate"] * e["iterations"] * itr.mean(),
    }


def _standin(holds, thresholds, otherwise=""):
    """``partly`` when the paper's instability ``holds`` (on our stand-in only), else the reason
    ``otherwise``."""
    if not holds:
        return {"verdict": None, "reason": otherwise}
    margin = _VIA["arrival_rate"] / thresholds["uniform"].critical_rate - 1
    return {
        "verdict": "partly",
        "reason": f"holds on our stand-in only: λ = 0.01 is {margin:.1%} past its uniform "
        "threshold, and the paper's Section VI-A workers are unlisted (speed window row below)",
    }


def _fig3_stable_row(thresholds):
    tu = thresholds["uniform"]
    return {
        "ours": "unstable" if not tu.stable else "stable",
        "setting": f"{STANDIN_VI_A}; ρ = λE[T_s] (eq. 8): uniform {tu.rho:.3f}, optimal "
        f"{thresholds['optimal'].rho:.3f}",
        **_standin(not tu.stable, thresholds, "our stand-in workers give a stable uniform split"),
    }


def _fig3_rho_row(thresholds, splits6a):
    tu = thresholds["uniform"]
    return {
        "ours": tu.rho_slowest,
        "ours_text": f"worker {tu.slowest + 1}, κ = {splits6a['uniform'].kappa[tu.slowest]}; "
        f"ρ (F_itr) = {tu.rho:.4f}",
        **_standin(tu.rho_slowest >= 1, thresholds, "below 1 on our stand-in"),
    }


def fig3_stability_results(seed: int, scan_jobs: int, scan_seeds: int, wait_streams: int) -> dict:
    """Section 4: the threshold against long streams (``scan_summary``: mean growth per job
    and first/last-quarter delays per (split, rate), with ρ and drift), the speed window,
    3-job pictures."""
    scan = stability_scan(n_jobs=scan_jobs, seeds=tuple(range(seed, seed + scan_seeds)))
    ss, keys = scan.streams, ["split", "rate_factor"]
    paper_rate = np.isclose(ss["arrival_rate"], _VIA["arrival_rate"])
    quarters = {"first_q": ("first_quarter", "mean"), "last_q": ("last_quarter", "mean")}
    summ = ss.groupby(keys).agg(slope=("slope", "mean"), slope_sd=("slope", "std"), **quarters)
    return {
        "scan": scan,
        "scan_summary": summ.reset_index().merge(scan.thresholds[[*keys, "rho", "drift"]], on=keys),
        "window": section6a_speed_window(),
        "scan_setting": f"{STANDIN_VI_A}; {scan_seeds} streams of {scan_jobs} jobs",
        "at_paper": {k: ss[(ss["split"] == k) & paper_rate] for k in ("uniform", "optimal")},
        "waits": fig3_wait_check(n_streams=wait_streams, seed=seed),
    }


def _drift_row(at_paper, thresholds, scan_setting):
    tu = thresholds["uniform"]
    return {
        "samples": at_paper["uniform"]["slope"].to_numpy() / tu.drift,
        "setting": f"{scan_setting}; closed-form drift {tu.drift:.3f} s per job",
    }


def _grow_row(at_paper, thresholds, scan_setting):
    u = at_paper["uniform"]
    return {
        "numerator": u["last_quarter"].to_numpy(),
        "denominator": u["first_quarter"].to_numpy(),
        **_standin(ratio_interval(u["last_quarter"], u["first_quarter"])[1] > 1, thresholds),
        "setting": scan_setting,
    }


def _window_row(thresholds, window):
    tu, s_u, s_o = thresholds["uniform"], window.s_uniform, window.s_optimal
    return {
        "ours": (
            f"λ* uniform = {tu.critical_rate:.5f}, optimal = "
            f"{thresholds['optimal'].critical_rate:.4f} jobs/s: λ = 0.01 is "
            f"{100 * (_VIA['arrival_rate'] / tu.critical_rate - 1):.1f} % above the uniform "
            f"threshold; the pair holds for task-time scales s ∈ [{s_u:.3f}, {s_o:.2f}) of our "
            f"stand-in (s = 1); at the Fig. 4 stand-in's speeds (s = {window.fig4_scale:.2g}) the "
            f"uniform ρ is {window.rho_fig4:.2f}"
        ),
        "reason": (
            f"holds on our stand-in (chosen from Example 2's work per job, not fitted), but only "
            f"{100 * (1 - s_u):.1f} % past the threshold: workers {100 * (1 - s_u):.1f} % faster "
            f"make the uniform split stable. Section VI-A's workers are unlisted, so the statement "
            f"can be checked only for a speed window (×{s_o / s_u:.2f} wide), not for the paper's "
            "five"
        ),
    }


def _wait_row(waits):
    w = {
        kind: proportion_interval(int(g["waited"].sum()), len(g)) + (float(g["mean_wait"].mean()),)
        for kind, g in waits.groupby("split")
    }
    pu, po = w["uniform"], w["optimal"]
    return {
        "ours": (
            f"uniform {pu[0]:.0%} [{pu[1]:.0%}, {pu[2]:.0%}] of streams (mean wait {pu[3]:.1f} s), "
            f"optimal {po[0]:.0%} [{po[1]:.0%}, {po[2]:.0%}] ({po[3]:.1f} s)"
        ),
        **_verdict(
            pu[1] > po[2],
            "a 3-job picture does not separate the splits; instability is a property of ρ "
            "(rows above)",
        ),
        "uncertainty": f"Wilson 95 % intervals over {len(waits) // 2} paired 3-job streams",
    }


def fig4_results(
    omegas: Sequence[float], seeds: Sequence[int], n_jobs: int, no_purging_seeds: Sequence[int]
) -> dict:
    """Section 5: Fig. 4's delays per Ω, per stream, and the no-purging theory check."""
    f4 = fig4_delay_vs_redundancy(omegas=omegas, seeds=seeds, n_jobs=n_jobs)
    per_seed = f4.per_seed.pivot(index=["omega", "seed"], columns="arm", values="mean_delay")
    o_hi = max(omegas)
    return {
        "fig4": f4,
        "t4": f4.table.set_index("omega"),
        "opt_at": {o: per_seed.loc[o, "optimal"].to_numpy() for o in (1.0, 1.06, o_hi)},
        "uni_at": {o: per_seed.loc[o, "uniform"].to_numpy() for o in (1.0, o_hi)},
        "o_hi": o_hi,
        "setting4": STANDIN_FIG4 + f"; {len(seeds)} streams of {n_jobs} jobs",
        "no_purging": fig4_no_purging_check(omegas=omegas, seeds=no_purging_seeds, n_jobs=1000),
    }


def example3_results(seed: int = 0) -> dict:
    """Section 6: Example 3's task matrix decodes the sum from any K = 2 of its 3 results."""
    from codedlib.codes import stream_tasks

    code = stream_tasks.example3_task_matrix()
    G = np.random.default_rng(seed).normal(size=(3, 4))  # partial gradients of the three chunks
    results, pairs = code.encode(G), list(combinations(range(3), 2))
    err = [np.abs(code.decode(results[list(r)], r) - G.sum(axis=0)).max() for r in pairs]
    decoding = {
        "received": pairs,
        "coefficients": [np.round(stream_tasks.decoding_vector(code.B, r), 3) for r in pairs],
        "max_error": err,
        "relative_error": [e / np.abs(G.sum(axis=0)).max() for e in err],
    }
    return {"code": code, "decoding": pd.DataFrame(decoding)}


def code_parameter_results(
    unit: th.StreamWorkers, K_values: Sequence[int] = CLUSTER_SETTINGS["K_values"]
) -> dict:
    """Section 7, Figs. 6-7: Algorithm 1's mismatch (eq. 10), theta and active workers vs K
    (K C = Z) on the stand-in cluster; ``search``: the table and the best K over all workers
    and over the active ones."""
    s = CLUSTER_SETTINGS
    table = th.optimise_code_parameters(unit, s["Z"], K_values, s["omega"], s["gamma"])
    st = table.set_index("K")
    best_k, best_active = (int(st[c].idxmin()) for c in ("mismatch", "mismatch_active"))
    search = SimpleNamespace(table=table, best_k=best_k, best_k_active_only=best_active)
    return {"search": search, "st": st, "best": st.loc[best_k]}


CLUSTER_REASON = (
    "the paper's P = 100 cluster is not listed (Fig. 5 is a picture); ours is a seeded "
    "stand-in, so its value is shown for orientation, not as an attempt at the paper's"
)
UNSTABLE_REASON = (
    "the paper's Table II comes from an unstable queue (rows below: its averages grow with J) on "
    "an unlisted cluster; our stand-in's queue is stable, a different regime: shown for "
    "orientation, not as an attempt"
)


def table2_results(unit: th.StreamWorkers, seeds: Sequence[int], n_jobs: int) -> dict:
    """Section 7: Table II's delays per K on the stand-in, per stream."""
    t2 = table2_delay_vs_K(unit_workers=unit, seeds=seeds, n_jobs=n_jobs)
    # per-stream averages, one column per stable K (an unstable K has none)
    ps2 = pd.DataFrame({K: v for K, v in zip(t2["K"], t2["sim_per_seed"]) if v}, index=seeds)
    by_K = t2.set_index("K")
    disagree = [
        (p, q)
        for p, q in combinations(by_K.index, 2)
        if np.sign(by_K.loc[p, "mismatch"] - by_K.loc[q, "mismatch"])
        != np.sign(by_K.loc[p, "sim_mean"] - by_K.loc[q, "sim_mean"])
    ]
    return {
        "t2": t2,
        "ps2": ps2,
        "disagree": disagree,
        "setting2": STANDIN_CLUSTER + f"; optimal split; {len(seeds)} streams of {n_jobs} jobs",
    }


def calibrated_growth_results(unit: th.StreamWorkers, seeds: Sequence[int], target: float) -> dict:
    """Section 7: an unstable stream at the E[T_s] the paper's K = 350 value implies."""
    Z = calibrate_work(target, K=350, unit_workers=unit)
    growth = unstable_growth(K=350, Z=Z, seeds=seeds, unit_workers=unit)
    return {
        "Z_cal": Z,
        "growth": growth,
        "target": target,
        "at_J": growth[growth["J"] == growth["J"].max()],
    }


_PD = _CL["paper_table_delay"]


def _real_kappa_row(opt, gamma=1.0):
    real = ", ".join(f"{k:.3f}" for k in opt.kappa_continuous)
    return {
        "ours": float(opt.kappa_continuous.sum()),
        "setting": f"{example2_setting(gamma)}; θ = {opt.theta:.6g}; real κ = ({real})",
    }


def _integer_kappa_row(opt, gamma=1.0):
    return {
        "ours": int(opt.kappa.sum()),
        "setting": f"{example2_setting(gamma)}; closest integers to Theorem 2 with Σ = KΩ "
        "(footnote 2) by largest remainder; the paper prints no κ_p",
        "ours_text": "κ = (" + ", ".join(map(str, opt.kappa)) + ")",  # pinned by the tests
    }


def _caption_row(spread):
    return {
        "ours": spread["caption_formula_optimal_continuous"],
        "reason": (
            "the caption's c+γc²+2γκcm+κm+κ(κ−1)σ² is not eq. (4)'s E[T]+γE[T²] (it drops γ "
            "on κσ² and κ²m² and a κm² term); under the optimal split, where the figure's bars "
            f"are equal, it varies by {spread['caption_formula_optimal_continuous']:.1%} of θ "
            "across workers; we plot eq. (4)"
        ),
    }


def _fig6_not_monotone(search):
    holds = bool(np.any(np.diff(search.table["mismatch"].to_numpy()) >= 0))
    why = "on our stand-in the mismatch falls with every K step"
    return {"ours": str(holds), "reason": "" if holds else why}


def _paper_stability_row(paper_stability):
    pt = paper_stability
    implied = pt.implied_service_mean.values()
    return {
        "ours": (
            f"θ = {pt.theta} ⇒ E[T_s] ≥ {pt.service_mean_low:.0f} s > E[T_a] = "
            f"{pt.arrival_mean:.0f} s: unstable; the values imply E[T_s] ≈ "
            f"{min(implied):.0f}–{max(implied):.0f} s"
        )
    }


def _calibrated_row(at_J, Z_cal, target):
    return {
        "samples": at_J["mean_delay"].to_numpy(),
        "setting": (
            f"calibrated: Z = K·C = {Z_cal:.4g} so that the stand-in's E[T_s] (eq. 8) is "
            f"{at_J['service_mean'].mean():.4g} s (target {target:.4g} s; the integer split "
            f"moves in steps); {STANDIN_CLUSTER.split(';')[0]}; {len(at_J)} streams"
        ),
    }


def _fig4_reach_miss(t4):
    gap = t4.loc[1.06, "lower_bound_queue"] / t4.loc[1.06, "lower_bound"]
    return (
        f"eq. (9) leaves out the queue wait: the same ideal worker behind the queue (M/D/1) is "
        f"{gap:.3f}× eq. (9), and the optimal split's ratio to it is the next row"
    )


_greater = partial(spec, "comparison", expected="greater")
_exact0 = partial(spec, "exact", paper=0.0, rtol=0.0)  # a deterministic check: exactly 0
# the stand-in cluster's values, shown for orientation
_fig6_row = partial(
    spec, "exact", verdict="not attempted", reason=CLUSTER_REASON, setting=STANDIN_CLUSTER
)
_table2_unstable = partial(_greater, "Table II", verdict="not attempted", reason=UNSTABLE_REASON)

#: The claims of notebook 05, by section, in the notebook's order (``claims.evaluate``).
CLAIMS = {
    "theorem2": [
        spec("exact", "Theorem 2 (Example 2)", q, row, paper=55, unit="tasks", basis="check", **kw)
        for q, row, kw in (
            ("Σκ_p(θ) = KΩ, real κ", _real_kappa_row, {"rtol": 1e-9}),
            ("integer optimal split κ_p (Σ = KΩ)", _integer_kappa_row, {}),
        )
    ],
    "fig2": [
        _exact0(
            "Fig. 2(b), eq. (4)",
            "spread of E[T]+γE[T²] across workers, real κ (max−min)/θ",
            lambda spread: {"ours": spread["metric_optimal_continuous"]},
            setting=STANDIN_VI_A,
            basis="check",
        ),
        spec(
            "qualitative",
            "Fig. 2(b)",
            "metric equal under the optimal split, spread under the uniform one",
            _fig2_qualitative,
            paper="the same for all workers (optimal split); notable variance (uniform split)",
            uncertainty="exact (deterministic)",
            setting=STANDIN_VI_A,
        ),
        _exact0(
            "Fig. 2(b) caption",
            "caption expression: spread across workers, optimal real κ, (max−min)/θ",
            _caption_row,
            verdict="paper erratum",
            setting=STANDIN_VI_A,
        ),
    ],
    "example1": [
        _exact0(
            "Example 1",
            "max |κ_p(Theorem 2) − κ_p(Example 1)| / max κ_p",
            lambda example1, example1_kappa, gamma=1.0: {
                "ours": float(
                    np.max(np.abs(example1.kappa_continuous - example1_kappa))
                    / np.max(example1_kappa)
                ),
                "setting": f"chosen: μ_p = (0.5, 1, 2, 7), c_p = 0, KΩ = 40, γ = {gamma:g}",
            },
            basis="check",
        )
    ],
    "example2": [
        *(
            spec(
                "interval",
                "Example 2",
                f"average job delay, {arm} split (mean over J-job streams)",
                _example2_arm(arm),
                paper=th.EXAMPLE2[f"paper_{arm}_delay"],
                headline=True,
                unit="s",
            )
            for arm in ("optimal", "uniform")
        ),
        _greater(
            "Section I",
            "delay ratio uniform / optimal split, Example 2 setting: more than 2.5×",
            lambda delay, setting: _example2_ratio(delay, setting, False),
            paper_text="more than two and a half (Section I)",
            headline=True,
        ),
        _greater(
            "Example 2",
            "delay ratio uniform / optimal split, 129.96 / 47.93",
            lambda delay, setting: _example2_ratio(delay, setting, True),
            paper=_EX2_RATIO,
            paper_text=f"129.96 / 47.93 = {_EX2_RATIO:.2f} (our ratio of two printed values)",
            basis="derived",
        ),
        spec(
            "exact",
            "Example 2, eq. (9)",
            "lower bound D_L as printed",
            _lower_bound_row,
            paper=th.EXAMPLE2["paper_lower_bound"],
            rtol=1e-3,
            unit="s",
            verdict="paper erratum",
            headline=True,
        ),
        spec(
            "interval",
            "Example 2, eq. (9) + queue wait",
            "ideal worker (service D_L) behind the Poisson queue (mean over J-job streams)",
            _ideal_worker_row,
            paper=th.EXAMPLE2["paper_lower_bound"],
            unit="s",
            basis="derived",
        ),
    ],
    "example2_setting": [
        spec(
            "qualitative",
            "Example 2",
            "the setting difference behind the paper's two delays",
            _setting_check_row,
            verdict="calibrated",
            basis="derived",
        )
    ],
    "queueing": [_queueing_spec(rate) for rate in QUEUEING_RATES[:3]],
    "fig3": [
        spec(
            "exact",
            "Fig. 3, Section VI-A",
            "uniform split at Ω = 1: rate stable?",
            _fig3_stable_row,
            paper="unstable",
        ),
        spec(
            "exact",
            "Fig. 3, Section IV-A (closed form)",
            "uniform split: slowest worker's utilisation λI(c_p + κ_p m_p)",
            _fig3_rho_row,
            paper_range=(1.0, 1e300),
            rtol=0.0,  # one-sided: ≥ 1 (finite: CSV round trip)
            paper_text="≥ 1 ('not stable due to the large service time')",
            setting=STANDIN_VI_A,
            basis="derived",
        ),
    ],
    "fig3_stability": [
        _interval(
            "Fig. 3, Section IV-A",
            "uniform split, λ = 0.01: simulated delay growth per job / (E[T_s] − E[T_a])",
            _drift_row,
            "the simulated growth is not the closed-form drift",
            paper=1.0,
            paper_text="1 (an unstable queue grows by E[T_s] − E[T_a] per job)",
            basis="derived",
        ),
        _greater(
            "Fig. 3, Section VI-A",
            "uniform split, λ = 0.01: mean delay, last / first quarter of a long stream",
            _grow_row,
            paper_text="not stable: the queue wait grows without bound",
        ),
        _interval(
            "Fig. 3, Section VI-A",
            "optimal split, λ = 0.01: mean delay, last / first quarter of a long stream",
            lambda at_paper, scan_setting: {
                "samples": at_paper["optimal"]["last_quarter"].to_numpy()
                / at_paper["optimal"]["first_quarter"].to_numpy(),
                "setting": scan_setting,
            },
            "the optimal split's delays drift over the stream",
            paper=1.0,
            paper_text="stable (the optimal split has no growing queue)",
            basis="derived",
        ),
        spec(
            "qualitative",
            "Fig. 3, Section VI-A (workers unlisted)",
            "where the paper's λ sits against the stability thresholds",
            _window_row,
            paper="at λ = 0.01 the uniform split is not stable, the optimal one is; Section "
            "VI-B's 'stronger' workers are stable for every Ω",
            verdict="partly",
            uncertainty="exact (closed form and F_itr, eq. 8)",
            setting=STANDIN_VI_A,
        ),
        spec(
            "qualitative",
            "Fig. 3 (J = 3 jobs)",
            "share of 3-job pictures in which a job waits in the queue",
            _wait_row,
            paper="the uniform solution experiences a notable waiting time in the queue",
            setting=STANDIN_VI_A,
        ),
    ],
    "fig4": [
        _greater(
            "Fig. 4",
            "delay ratio uniform / optimal at Ω = 1",
            lambda uni_at, opt_at, setting4: {
                "numerator": uni_at[1.0],
                "denominator": opt_at[1.0],
                "setting": setting4,
            },
            paper_text="optimal dramatically lower, particularly at low Ω",
        ),
        _interval(
            "Fig. 4",
            "delay ratio uniform / optimal at the largest Ω (1.5)",
            lambda uni_at, opt_at, o_hi, setting4: {
                "samples": uni_at[o_hi] / opt_at[o_hi],
                "setting": setting4,
            },
            "the gap has not closed to 5 % at our largest Ω",
            paper_range=(0.95, 1.05),
            paper_text="similar for a large amount of redundancy (read: within 5 %)",
        ),
        _interval(
            "Fig. 4, eq. (7)",
            "simulated (purging) / theory at Ω = 1",
            lambda opt_at, t4, setting4: {
                "samples": opt_at[1.0] / t4.loc[1.0, "theory_no_purging"],
                "setting": setting4,
            },
            "the interval excludes 1 (short streams started empty are biased low)",
            paper=1.0,
            paper_text="1 (theory almost coincides with simulation at Ω = 1)",
        ),
        _greater(
            "Fig. 4, eq. (7)",
            "theory / simulated (purging) at the largest Ω (1.5)",
            lambda opt_at, t4, o_hi, setting4: {
                "numerator": np.full(len(opt_at[o_hi]), t4.loc[o_hi, "theory_no_purging"]),
                "denominator": opt_at[o_hi],
                "setting": setting4,
            },
            paper_text="theory (no purging) diverges above the simulation as Ω grows",
        ),
        _interval(
            "Fig. 4, eq. (9)",
            "optimal delay at Ω = 1.06 / D_L (eq. 9)",
            lambda opt_at, t4, setting4: {
                "samples": opt_at[1.06] / t4.loc[1.06, "lower_bound"],
                "setting": setting4,
                "miss_reason": _fig4_reach_miss(t4),
            },
            paper_range=(1.0, 1.01),
            paper_text="reaches the lower bound at Ω ≈ 1.06 (read: within 1 %)",
        ),
        _interval(
            "Fig. 4, eq. (9) + queue wait",
            "optimal delay at Ω = 1.06 / D_L behind the queue (M/D/1)",
            lambda opt_at, t4, setting4: {
                "samples": opt_at[1.06] / t4.loc[1.06, "lower_bound_queue"],
                "setting": setting4
                + "; not in the paper: eq. (9)'s service behind the Poisson queue",
            },
            "the optimal split's interval is not within 1 % of the queued ideal worker",
            paper_range=(1.0, 1.01),
            paper_text="reaches the lower bound at Ω ≈ 1.06 (read: within 1 %)",
            basis="derived",
        ),
    ],
    "example3": [
        _exact0(
            "Example 3 (Appendix)",
            "max relative decoding error, any K = 2 of the 3 task results",
            lambda decoding: {"ours": float(decoding["relative_error"].max())},
            setting="the paper's B; chosen: random partial gradients G (3 × 4), seed = notebook "
            "seed",
        )
    ],
    "fig5": [
        spec(
            "not_attempted",
            "Fig. 5",
            "the P = 100 heterogeneous cluster",
            paper="a picture of 100 workers; values not listed",
            reason=f"replaced by a seeded stand-in ({STANDIN_CLUSTER})",
        )
    ],
    "fig6": [
        spec(
            "exact",
            "Fig. 6",
            "mismatch (eq. 10) vs K is not strictly decreasing",
            _fig6_not_monotone,
            paper="True",
            setting=STANDIN_CLUSTER,
        ),
        _fig6_row(
            "Fig. 6, Algorithm 1",
            "K with the smallest mismatch (eq. 10, all workers)",
            lambda search: {"ours": search.best_k},
            paper=_CL["paper_best_K"],
        ),
        _fig6_row(
            "Fig. 7",
            "θ at the best K",
            lambda best: {"ours": float(best["theta"])},
            paper=_CL["paper_theta"],
        ),
        _fig6_row(
            "Fig. 7",
            "active workers (Theorem 2) at the best K",
            lambda best: {"ours": int(best["n_active"])},
            paper=_CL["paper_active"],
        ),
    ],
    "table2": [
        *(
            spec(
                "interval",
                "Table II",
                f"average job delay, K = {K}",
                lambda ps2, setting2, K=K: {"samples": ps2[K].to_numpy(), "setting": setting2},
                paper=paper,
                unit="s",
                verdict="not attempted",
                reason=CLUSTER_REASON + "; the paper's value is from an unstable queue (row below)",
            )
            for K, paper in zip(_CL["table_K"], _PD)
        ),
        _table2_unstable(
            "delay ratio K = 110 / K = 350",
            lambda ps2, setting2: {
                "numerator": ps2[110].to_numpy(),
                "denominator": ps2[350].to_numpy(),
                "setting": setting2,
            },
            paper=_PD[0] / _PD[2],
            paper_text=f"more than 16 % lower at K = 350 (ratio > {1 / (1 - 0.16):.3f}; 9.19e4 / "
            f"7.71e4 = {_PD[0] / _PD[2]:.3f})",
        ),
        _table2_unstable(
            "plateau: gain K = 110 → 350 over gain K = 350 → 510",
            lambda ps2, setting2: {
                "numerator": ps2[110].to_numpy() / ps2[350].to_numpy(),
                "denominator": ps2[350].to_numpy() / ps2[510].to_numpy(),
                "setting": setting2,
            },
            paper_text=(
                f"after a certain point more tasks bring no notable benefit: 110 → 350 gains "
                f"{_PD[0] / _PD[2]:.3f}×, 350 → 510 only {_PD[2] / _PD[3]:.3f}×"
            ),
        ),
    ],
    "table2_stability": [
        spec(
            "qualitative",
            "Table II, Section IV-A",
            "rate stability of the paper's Section VI-C queue",
            _paper_stability_row,
            paper=f"finite average delays {min(_PD):.3g}–{max(_PD):.3g} s",
            verdict="paper erratum",
            reason=(
                "the paper's own θ (Fig. 7) and I, λ (Section VI) make E[T_s] > E[T_a] (Ω = 1 "
                "assumed; Section VI-C states none), so its averages grow with J and are no "
                "steady delay; the calibrated run below shows an unstable stream at that E[T_s] "
                "gives the paper's magnitude"
            ),
            uncertainty="exact (arithmetic on the paper's numbers)",
            setting="the paper's θ = 646.24, γ = 1, I = 10, λ = 0.01, J = 1000; exponential tasks",
        )
    ],
    "table2_calibrated": [
        spec(
            "interval",
            "Table II (calibrated stand-in)",
            "J = 1000 average delay of an unstable stream, K = 350",
            _calibrated_row,
            paper=_PD[2],
            unit="s",
            paper_text=f"{_PD[2]:.3g} s (K = 350)",
            verdict="calibrated",
            reason=(
                "an unstable stream with the E[T_s] the paper's value implies gives an average of "
                "the paper's magnitude, growing linearly with J (table above): the mechanism, not "
                "a reproduction"
            ),
            basis="derived",
        )
    ],
}
_SECTIONS = {
    "1. Optimal load split": ("theorem2", "fig2", "example1"),
    "2. Example 2": ("example2", "example2_setting"),
    "3. Queueing theory vs simulation": ("queueing",),
    "4. Fig. 3": ("fig3", "fig3_stability"),
    "5. Fig. 4": ("fig4",),
    "6. Appendix, Example 3": ("example3",),
    "7. Code parameters": ("fig5", "fig6", "table2", "table2_stability", "table2_calibrated"),
}
for _section, _names in _SECTIONS.items():
    for _spec_row in (s for name in _names for s in CLAIMS[name]):
        _spec_row.fixed["section"] = _section
