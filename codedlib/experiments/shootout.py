"""Notebook 06: which straggler mitigation wins where -- rankings, regime maps, scale, your cluster.

The schemes of :mod:`codedlib.schemes.shootout` on one cluster, seed by seed through
:func:`codedlib.replicate.over_seeds` (the schemes of a seed see the same draws), as tidy frames.
The fastest scheme (least mean time to target) *wins* when every other scheme's paired ratio
(:func:`codedlib.claims.ratio_interval`) has a 95 % interval above 1; the schemes whose
interval holds 1 are *tied* with it.

Reference: reisizadeh2022codedreduce, halbawi2018reedsolomon, severinson2023dsag,
zhang2021lagc, esfahanizadeh2022stream.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from codedlib._validation import check_int
from codedlib.claims import mean_interval, ratio_interval, spec
from codedlib.cluster import ClusterModel
from codedlib.network import Network
from codedlib.replicate import Executor, check_seeds, over_seeds
from codedlib.schemes.shootout import (
    SCHEMES,
    Shootout,
    _decode_time,
    _prepare,
    _tree_shares,
    chosen_parameters,
    mpich_allreduce_algorithm,
    simulate,
)
from codedlib.theory.codedreduce import r_cr
from codedlib.theory.reed_solomon import decoding_time

if TYPE_CHECKING:
    from pathlib import Path


def default_cluster(n_workers: int = 100, **changes: Any) -> ClusterModel:
    """The shoot-out's reference cluster: shifted-exponential straggling (share 0.5, CR eq. 6's
    ``a mu = 1``), no heterogeneity or bursts, 0.3 ms / 100 Mb/s network, 1000-parameter model,
    10 000 rows per share on 1 GFLOP/s workers (40 ms per share, 0.94 ms per message);
    ``changes``: other :class:`~codedlib.cluster.ClusterModel` fields."""
    return ClusterModel(n_workers=n_workers, name="reference cluster").with_(**changes)


# ------------------------------------------------------------------------------ ranking
def rank_schemes(runs: pd.DataFrame, metric: str = "time_to_target") -> pd.DataFrame:
    """Per scheme of the tidy ``runs`` (``scheme, seed, <metric>``; smaller is better, ``inf``:
    not reached): mean and 95 % interval over seeds, the paired ratio to the fastest with its
    interval, a verdict (``wins`` / ``tied`` / ``slower`` / ``not reached``) and the rank."""
    by = paired(runs, metric)
    finite = {s: bool(np.all(np.isfinite(v))) for s, v in by.items()}
    means = runs.groupby("scheme")[metric].mean()
    best = min((s for s in by if finite[s]), key=lambda s: means[s], default=None)
    inf = (math.inf,) * 3

    def to_best(s, v):  # the paired ratio to the fastest and its interval
        if best is None or not finite[s]:
            return inf
        return (1.0,) * 3 if s == best else ratio_interval(v, by[best])

    rows = [(s, *(mean_interval(v) if finite[s] else inf), *to_best(s, v)) for s, v in by.items()]
    cols = ["scheme", "mean", "ci_low", "ci_high", "ratio_to_best", "ratio_low", "ratio_high"]
    table = pd.DataFrame(rows, columns=cols).sort_values("mean", kind="stable", ignore_index=True)
    table["n_seeds"] = [len(by[s]) for s in table.scheme]
    tied = table[(table.scheme != best) & (table.ratio_low <= 1.0) & np.isfinite(table.ratio_low)]
    fastest = "wins" if tied.empty else "tied (fastest mean)"
    table["verdict"] = np.select(
        [~np.isfinite(table["mean"]), table.scheme == best, table.ratio_low <= 1.0],
        ["not reached", fastest, "tied"],
        "slower",
    ).tolist()
    table.insert(0, "rank", np.arange(1, len(table) + 1))
    return table


@dataclass
class Ranking:
    """Every scheme on one cluster over seeds: ``runs`` (a ``SchemeRun.summary`` row per scheme
    and seed), ``table`` (:func:`rank_schemes` of the time to target, with the paper, mean
    numbers and shares per iteration, seeds reached and tuned parameters), ``trajectories``
    (scheme, seed, iteration: clock time and gap)."""

    setup: Shootout
    runs: pd.DataFrame
    table: pd.DataFrame
    trajectories: pd.DataFrame = field(repr=False)

    @property
    def best(self) -> str | None:
        first = self.table.iloc[0]
        return first["scheme"] if np.isfinite(first["mean"]) else None

    @property
    def winners(self) -> list[str]:
        """The fastest scheme and those the interval cannot tell from it."""
        ok = self.table.verdict.isin(["wins", "tied (fastest mean)", "tied"])
        return self.table.loc[ok, "scheme"].tolist()


def _applicable(setup, schemes):
    names = list(SCHEMES) if schemes is None else list(schemes)
    for name in names:
        if name not in SCHEMES:
            raise ValueError(f"schemes must be names from {list(SCHEMES)}, got {name!r}")
    return [n for n in names if SCHEMES[n].applies(setup)]


def _planned_runs(task: int, setups: list, names: list, plan: list, timed: bool) -> list[dict]:
    """The measure of the (setup, seed) pair ``plan[task]``: every scheme of its ``names`` on
    that seed's draws, a ``SchemeRun.summary`` row each with its ``times`` and ``gaps`` (and
    ``wall_seconds``)."""
    i, seed = plan[task]
    setup = setups[i]
    factors = setup.cluster.factors(setup.max_iter, seed)
    rows = []
    for name in names[i]:
        t0 = time.perf_counter()
        run = simulate(setup, name, seed, factors=factors)
        row = run.summary(setup.target)
        if timed:
            row["wall_seconds"] = time.perf_counter() - t0
        rows.append({**row, "times": run.times, "gaps": run.gaps})
    return rows


def _prepared(index: int, setups: list, names: list) -> dict:
    """The measure that tunes ``setups[index]`` for its ``names`` (and computes their seed-free
    parts, :func:`~codedlib.schemes.shootout._prepare`): the setup's cache."""
    setup = setups[index]
    _prepare(setup, names[index])
    return {"cache": setup.__dict__["_cache"]}


def _over_setups(setups, names, seeds, executor, timed=False):
    """:func:`_planned_runs` of every setup (its scheme ``names``) and each of >= 2 ``seeds``
    through ``over_seeds``: the setups tuned at once (their caches travel back), then every
    (setup, seed) pair; per setup, columns in the order of a summary row, arrays apart."""
    seeds = check_seeds(seeds)
    if len(seeds) < 2:
        raise ValueError(
            f"seeds must name at least 2 seeds (an interval needs 2 independent replicas), "
            f"got seeds={seeds}"
        )
    index = range(len(setups))
    tuned = over_seeds(
        _prepared, index, executor=executor, desc="tuning", setups=setups, names=names
    )
    for setup, cache in zip(setups, tuned["cache"]):
        setup.__dict__.setdefault("_cache", {}).update(cache)
    plan = [(i, seed) for i in index for seed in seeds]
    desc = setups[0].cluster.name if len(setups) == 1 else "settings x seeds"
    setting = {"setups": setups, "names": names, "plan": plan, "timed": timed}
    runs = over_seeds(_planned_runs, range(len(plan)), executor=executor, desc=desc, **setting)
    which = np.array([plan[k][0] for k in runs["seed"]])
    runs["seed"] = [plan[k][1] for k in runs["seed"]]
    runs.insert(1, "seed", runs.pop("seed"))  # after the scheme
    parts = (runs[which == i].reset_index(drop=True) for i in index)
    return [
        (p.drop(columns=["times", "gaps"]), p[["scheme", "seed", "times", "gaps"]]) for p in parts
    ]


def _ranked(setup, runs, arrays) -> Ranking:
    """The :class:`Ranking` of one setup's runs."""
    traj = [
        pd.DataFrame(
            {
                "scheme": r.scheme,
                "seed": r.seed,
                "iteration": np.arange(r.gaps.size),
                "time": np.concatenate([[0.0], np.cumsum(r.times)]),
                "gap": r.gaps,
            }
        )
        for r in arrays.itertuples()
    ]
    table = rank_schemes(runs)
    extra = runs.groupby("scheme")[["numbers_per_iteration", "shares_per_iteration"]].mean()
    reached = runs.groupby("scheme")["reached"].sum().rename("seeds_reached")
    table = table.join(extra, on="scheme").join(reached, on="scheme")
    table.insert(2, "paper", table.scheme.map(lambda s: SCHEMES[s].paper))
    table["parameters"] = table.scheme.map(lambda s: chosen_parameters(setup, s))
    return Ranking(setup, runs, table, pd.concat(traj, ignore_index=True))


def _rankings(setups, schemes, seeds, executor=None) -> list[Ranking]:
    """:func:`ranking` of each setup, every setup and seed through one pool."""
    names = [_applicable(setup, schemes) for setup in setups]
    runs = _over_setups(setups, names, seeds, executor)
    return [_ranked(setup, *r) for setup, r in zip(setups, runs)]


def ranking(
    cluster: ClusterModel | Shootout,
    schemes: Sequence[str] | None = None,
    seeds: int | Iterable[int] = 5,
    executor: Executor = None,
    **setup_options: Any,
) -> Ranking:
    """Run every scheme (default: all that apply) on ``cluster`` (or a ``Shootout``, whose
    tuned choices are reused) for each of at least 2 seeds and rank them; ``setup_options`` go
    to :class:`~codedlib.schemes.shootout.Shootout`."""
    setup = cluster if isinstance(cluster, Shootout) else Shootout(cluster, **setup_options)
    return _rankings([setup], schemes, seeds, executor)[0]


def scheme_table(setup: Shootout) -> pd.DataFrame:
    """One row per scheme that applies at ``setup``: title, paper, engine, MPI engine, the
    largest shares per worker and the tuned parameters."""
    on = {n: s for n, s in SCHEMES.items() if s.applies(setup)}
    rows = [(s.title, s.paper, s.engine, s.runtime or "—") for s in on.values()]
    table = pd.DataFrame(rows, index=list(on), columns=["title", "paper", "engine", "mpi engine"])
    table["shares per worker"] = [float(s.layout(setup)["shares"].max()) for s in on.values()]
    table["parameters (tuned)"] = [chosen_parameters(setup, n) for n in on]
    return table


# ------------------------------------------------------------------------------ axes
#: Named one-way per-message latencies [s] for the ``latency`` axis, with where each comes from.
LATENCIES = {
    "RDMA fabric": (2e-6, "InfiniBand MPI ping-pong (osu_latency), 1-2 us one-way"),
    "data-centre TCP": (5e-5, "kernel TCP in one data centre: our round figure, unsourced"),
    "cloud VMs, one zone": (1.3e-4, "EC2 same-zone ping RTT 0.26 ms / 2 (orensol.com, 2009)"),
    "reference (0.3 ms)": (3e-4, "the shoot-out's reference network"),
    "cross-zone": (5e-4, "EC2 cross-zone ping RTT 0.9-1.1 ms / 2 (orensol.com, 2009)"),
}


#: The axes that set the straggling family (and its shape).
_FAMILY_AXES = {"pareto_tail": "pareto", "straggling": "shifted_exponential"}
#: Map axes (:func:`apply_axis` says what each changes; the figures' labels say it in words).
AXES = (*_FAMILY_AXES, "comm_to_comp", "latency", "heterogeneity", "burst_factor", "n_workers")


def _check_axis(axis):
    if axis not in AXES:
        raise ValueError(f"axis must be one of {list(AXES)}, got axis={axis!r}")


def apply_axis(cluster: ClusterModel, axis: str, value: float) -> ClusterModel:
    """``cluster`` with one :data:`AXES` quantity set to ``value``: the Pareto tail index or the
    shifted-exponential share set the family; comm/comp (one message over one share's mean
    time) moves the bandwidth alone (ratios below ``latency / share_time`` do not exist);
    ``latency`` keeps the bandwidth (named values: :data:`LATENCIES`)."""
    _check_axis(axis)
    if axis in _FAMILY_AXES:
        return cluster.with_(family=_FAMILY_AXES[axis], shape=float(value))
    net = cluster.network
    if axis == "latency":
        return cluster.with_(network=replace(net, latency=float(value)))
    if axis == "comm_to_comp":
        ratio, floor = float(value), net.latency / cluster.share_time
        if not ratio > floor:
            raise ValueError(
                f"comm_to_comp must be > latency / share_time = {floor:.3g} at latency "
                f"{net.latency:g} s, got {ratio}"
            )
        n_bytes = cluster.workload.dim * net.bytes_per_number
        bandwidth = n_bytes / (ratio * cluster.share_time - net.latency)
        return cluster.with_(network=Network(net.latency, bandwidth, net.bytes_per_number))
    return cluster.with_(**{axis: int(value) if axis == "n_workers" else float(value)})


def axis_value(cluster: ClusterModel, axis: str) -> float:
    """Where ``cluster`` sits on ``axis`` (NaN when its family has no such coordinate)."""
    _check_axis(axis)
    if axis in _FAMILY_AXES:
        return cluster.shape if cluster.family == _FAMILY_AXES[axis] else math.nan
    if axis == "latency":
        return cluster.network.latency
    return float(cluster.n_workers) if axis == "n_workers" else getattr(cluster, axis)


# ------------------------------------------------------------------------------ regime map
@dataclass
class RegimeMap:
    """Winners over a grid of two :data:`AXES` of ``base``: ``cells`` (one row per (x, y):
    ``winner``, ``verdict``, ``tied_with``, ``runner_up`` and ``margin`` = runner-up / winner
    paired ratio with ``margin_low`` / ``margin_high``) and ``runs`` (x, y, scheme, seed)."""

    x_axis: str
    y_axis: str
    base: ClusterModel
    cells: pd.DataFrame
    runs: pd.DataFrame


def _cell(x, y, table) -> dict:
    first, ok = table.iloc[0], bool(np.isfinite(table["mean"].iloc[0]))
    second = table.iloc[1] if len(table) > 1 else {"scheme": ""}
    return {
        "x": x,
        "y": y,
        "winner": first["scheme"] if ok else "none",
        "verdict": first["verdict"] if ok else "not reached",
        "tied_with": ",".join(table.loc[table.verdict == "tied", "scheme"]),
        "runner_up": second["scheme"],
        "margin": second.get("ratio_to_best", math.nan),
        "margin_low": second.get("ratio_low", math.nan),
        "margin_high": second.get("ratio_high", math.nan),
        "best_time": first["mean"],
    }


def _grid(base, x_axis, x_values, y_axis, y_values):
    """The (x, y, cluster) cells of a map, row by row."""
    return [
        (x, y, apply_axis(apply_axis(base, x_axis, x), y_axis, y))
        for y in y_values
        for x in x_values
    ]


def _regime_map(base, x_axis, y_axis, grid, rankings) -> RegimeMap:
    cells = [_cell(x, y, r.table) for (x, y, _), r in zip(grid, rankings)]
    runs = [r.runs.assign(x=x, y=y) for (x, y, _), r in zip(grid, rankings)]
    return RegimeMap(x_axis, y_axis, base, pd.DataFrame(cells), pd.concat(runs, ignore_index=True))


#: Notebook 06's four maps: key -> (title, figure name, x axis, y axis); the grids: ``SETTINGS``.
MAPS = {
    "a": ("Straggler tail x comm/comp", "map-tail-vs-communication", "pareto_tail", "comm_to_comp"),
    "b": ("Straggler tail x latency", "map-tail-vs-latency", "pareto_tail", "latency"),
    "c": ("Heterogeneity x bursts", "map-heterogeneity-vs-bursts", "heterogeneity", "burst_factor"),
    "d": ("Workers N x comm/comp", "map-workers-vs-communication", "n_workers", "comm_to_comp"),
}


def regime_maps(
    reference: ClusterModel, settings: dict, seeds: int | Iterable[int], max_iter: int
) -> dict[str, RegimeMap]:
    """Notebook 06's :data:`MAPS` on ``reference`` at the grids of ``settings["maps"]`` (a
    :data:`SETTINGS` entry): (c) on gamma straggling (cv 0.3), (d) at 200 iterations; every
    cell of the four maps and seed through one pool."""
    grids, setups = {}, []
    for key, (_, _, x_axis, y_axis) in MAPS.items():
        gamma = {"family": "gamma", "shape": 0.3} if key == "c" else {}
        base = reference.with_(name=f"map ({key})", **gamma)
        x_values, y_values = settings["maps"][key]
        grids[key] = base, _grid(base, x_axis, x_values, y_axis, y_values)
        iterations = 200 if key == "d" else max_iter
        setups += [Shootout(cluster, max_iter=iterations) for *_, cluster in grids[key][1]]
    rankings = iter(_rankings(setups, MAP_SCHEMES, seeds))
    return {
        key: _regime_map(base, *MAPS[key][2:], grid, [next(rankings) for _ in grid])
        for key, (base, grid) in grids.items()
    }


# ------------------------------------------------------------------------------ papers
def paper_operating_points() -> pd.DataFrame:
    """Each paper's own setting mapped onto the map's axes (our mapping; ``how`` says from
    which of the paper's numbers): paper, n_workers, family, shape, heterogeneity,
    burst_factor, comm_to_comp, how."""
    from codedlib.experiments.codedreduce import GRADIENT_NUMBERS
    from codedlib.experiments.dsag import AWS_TABLE_I
    from codedlib.schemes.codedreduce import TimingModel

    cr = TimingModel(gradient_numbers=GRADIENT_NUMBERS["fig11a"])
    cr_points = 7644 / 156  # Fig. 11(a): d = 7644 points over the (12, 2) tree's 156 workers
    cr_share = cr.a * cr_points * 2  # shift a d plus exponential mean d / mu (a mu = 1)
    (c_lo, c_hi), (z_lo, z_hi), p = AWS_TABLE_I["pca"]
    dsag_ratio = (0.5 * (c_lo + c_hi)) / (0.5 * (z_lo + z_hi) * p)
    se = "shifted_exponential"
    how = [
        "Fig. 11(a): a mu = 1 (share 0.5), t_c of p = 6500 on the paper's network over "
        "a d_i + d_i/mu for d/N points",
        "Fig. 2-3: Pareto xi = 1.1, n = 80; no communication term (comm/comp not modelled)",
        "Sec. VII-B/C: gamma (our cv 0.1), slowdown 0.4, Fig. 4 bursts x1.12, Table I AWS PCA "
        "comm over p = 100 tasks",
        "Sec. VI: exponential delays (share ~1), no network (comm/comp not modelled)",
        "Example 2: five exponential workers of different speeds (our h ~ 1)",
    ]
    return pd.DataFrame(
        {
            "paper": ["CodedReduce", "Reed–Solomon", "DSAG", "LAGC", "Stream"],
            "n_workers": [156, 80, 100, 12, 5],
            "family": [se, "pareto", "gamma", se, se],
            "shape": [0.5, 1.1, 0.1, 0.99, 0.99],
            "heterogeneity": [0.0, 0.0, 0.4, 0.0, 1.0],
            "burst_factor": [1.0, 1.0, 1.12, 1.0, 1.0],
            "comm_to_comp": [cr.t_c / cr_share, math.nan, dsag_ratio, math.nan, math.nan],
            "how": how,
        }
    )


def operating_point_cluster(point: Mapping[str, Any], base: ClusterModel) -> ClusterModel:
    """The cluster of one :func:`paper_operating_points` row: its N, family, shape,
    heterogeneity and bursts on ``base``'s network and workload, its comm/comp through the
    bandwidth; where that ratio is below ``base``'s latency allows, the latency is half the
    message time; where the paper models no communication (NaN) ``base``'s ratio stays."""
    shape = {k: float(point[k]) for k in ("shape", "heterogeneity", "burst_factor")}
    name, n_workers = f"{point['paper']} operating point", int(point["n_workers"])
    cluster = base.with_(n_workers=n_workers, family=point["family"], name=name, **shape)
    ratio = float(point["comm_to_comp"])
    if np.isfinite(ratio):
        if ratio * cluster.share_time <= cluster.network.latency:
            # below what base's latency allows: latency half of the paper's message time
            cluster = apply_axis(cluster, "latency", 0.5 * ratio * cluster.share_time)
        cluster = apply_axis(cluster, "comm_to_comp", ratio)
    return cluster


#: Each paper's headline: (paper, item), (quantity, slower scheme, faster scheme, metric), (the
#: paper's ratio slower / faster, or range, or None; the paper's words). A paper's claim key is
#: its name in lower case ("Reed–Solomon": "reed-solomon").
HEADLINES = (
    (
        ("CodedReduce", "CR Fig. 11(a)"),
        ("UMW / CR time to target", "gd", "cr", "time_to_target"),
        (31.7, "CR 31.7x faster than UMW"),
    ),
    (
        ("CodedReduce", "CR Fig. 11(a)"),
        ("RAR / CR time to target", "rar", "cr", "time_to_target"),
        (5.2, "CR 5.2x faster than RAR"),
    ),
    (
        ("Reed–Solomon", "RS Sec. 5, eq. (17)"),
        ("GC / RS-GC time to target", "gc", "rs", "time_to_target"),
        (None, "RS decoding O(f^2) beats the O(f^3) solve"),
    ),
    (
        ("DSAG", "DSAG Fig. 8"),
        ("SAG / DSAG time to target", "sag", "dsag", "time_to_target"),
        (None, "DSAG faster than SAG"),
    ),
    (
        ("DSAG", "DSAG Sec. VII-C"),
        ("DSAG / DSAG-LB time to target", "dsag", "dsag-lb", "time_to_target"),
        ((1.1, 1.15), "load balancing gains 10-15 %"),
    ),
    (
        ("LAGC", "LAGC Sec. VI"),
        ("GC / LAGC communication to target", "gc", "lagc", "numbers_to_target"),
        (None, "LAGC communicates less than GC"),
    ),
    (
        ("LAGC", "LAGC Sec. VI"),
        ("LAG / LAGC time to target", "lag", "lagc", "time_to_target"),
        (None, "LAGC faster than LAG under stragglers"),
    ),
    (
        ("Stream", "Stream Thm. 2 (Example 2)"),
        ("uniform / speed-proportional split time to target", "gd", "het-split", "time_to_target"),
        (None, "the optimal split beats the uniform one"),
    ),
)

#: Setup options of a paper's operating point: CodedReduce's Fig. 11(a) runs the (12, 2) tree.
#: Reed–Solomon's runs at its fixed S = 0.1 N (tuned, GC and RS would both pick S = 0, where
#: nothing is decoded and the headline is moot).
PAPER_SETUPS = {"CodedReduce": {"tree": (12, 2)}, "Reed–Solomon": {"tune": False}}


def paper_headlines(
    base: ClusterModel, seeds: int | Iterable[int] = 5, **setup_options: Any
) -> tuple[pd.DataFrame, dict[str, Ranking]]:
    """Replay :data:`HEADLINES` on :func:`operating_point_cluster` of every paper (``base``'s
    network and workload). Returns the rows (paper, item, quantity, ratio slower / faster with
    its 95 % paired interval, both arms per seed, the cluster and its iterations) and the
    rankings (paper name -> :class:`Ranking`)."""
    points = paper_operating_points().set_index("paper")
    setups = {}
    for name in dict.fromkeys(h[0][0] for h in HEADLINES):
        cluster = operating_point_cluster(points.loc[name].to_dict() | {"paper": name}, base)
        setups[name] = Shootout(cluster, **{**setup_options, **PAPER_SETUPS.get(name, {})})
    rankings = dict(zip(setups, _rankings(list(setups.values()), None, seeds)))
    rows = []
    for (name, item), (quantity, slower, faster, metric), (paper, words) in HEADLINES:
        by = paired(rankings[name].runs, metric)
        a, b = by[slower], by[faster]
        ok = np.all(np.isfinite(a)) and np.all(np.isfinite(b))
        ratio, lo, hi = ratio_interval(a, b) if ok else (math.nan,) * 3
        rows.append(
            {
                "paper": name,
                "item": item,
                "quantity": quantity,
                "slower": slower,
                "faster": faster,
                "paper_value": paper,
                "paper_text": words,
                "ratio": ratio,
                "ratio_low": lo,
                "ratio_high": hi,
                "numerator": a,
                "denominator": b,
                "cluster": rankings[name].setup.cluster.describe(),
                "max_iter": rankings[name].setup.max_iter,
            }
        )
    return pd.DataFrame(rows), rankings


def why_table(rankings: dict[str, Ranking]) -> pd.DataFrame:
    """For the two schemes of every :data:`HEADLINES` row, in :func:`paper_headlines`'
    ``rankings``: mean iterations to the target, time, shares and numbers per iteration (what
    decides a miss)."""
    cols = ["iterations_to_target", *(f"{q}_per_iteration" for q in ("time", "shares", "numbers"))]
    parts = [
        r.runs.groupby("scheme")[cols].mean().reset_index().assign(paper=paper)
        for paper, r in rankings.items()
    ]
    why = pd.concat(parts, ignore_index=True)[["scheme", "paper", *cols]]
    wanted = {(h[0][0], s) for h in HEADLINES for s in h[1][1:3]}  # (paper, slower or faster)
    return why[[(p, s) in wanted for p, s in zip(why.paper, why.scheme)]]


# ------------------------------------------------------------------------------ scale
def scale_study(
    base: ClusterModel,
    n_values: Sequence[int],
    schemes: Sequence[str] | None = None,
    seeds: int | Iterable[int] = 2,
    max_iter: int = 100,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every scheme from N = ``n_values[0]`` to ``n_values[-1]`` workers (weak scaling: the
    stand-in problem keeps its rows per worker); tree schemes choose (n, L) per N. Returns the
    runs (n_workers, scheme, seed, with the simulation's ``wall_seconds``; benchmarks own the
    performance claims) and the CodedReduce tree chosen at each N (``n_workers, n, L, used``)."""
    setups = [Shootout(apply_axis(base, "n_workers", N), max_iter=max_iter) for N in n_values]
    names = [_applicable(setup, schemes) for setup in setups]
    all_rows = _over_setups(setups, names, seeds, None, timed=True)
    runs = [rows.assign(n_workers=N, max_iter=max_iter) for N, (rows, _) in zip(n_values, all_rows)]
    trees = [  # CodedReduce's tree, chosen once per setup (cached)
        (N, *(SCHEMES["cr"].layout(setup)[k] for k in ("n", "L", "tree_workers")))
        for N, setup, setup_names in zip(n_values, setups, names)
        if "cr" in setup_names
    ]
    trees = pd.DataFrame(trees, columns=["n_workers", "n", "L", "used"])
    return pd.concat(runs, ignore_index=True), trees


# ------------------------------------------------------------------------------ your cluster
@dataclass
class YourCluster:
    """A user's cluster, its :class:`Ranking`, its ``position`` on the maps' :data:`AXES`
    (NaN where its family has no such coordinate) and the ``fit`` when it came from a trace."""

    cluster: ClusterModel
    ranking: Ranking
    position: dict
    fit: object = None


def your_cluster(
    source: ClusterModel | str | Path | pd.DataFrame,
    seeds: int | Iterable[int] = 5,
    n_workers: int | None = None,
    schemes: Sequence[str] | None = None,
    **setup_options: Any,
) -> YourCluster:
    """Rank every scheme on your cluster: a :class:`ClusterModel`, or a latency trace in the
    ``data/traces`` format fitted by :func:`codedlib.cluster_fit.fit_cluster`; ``n_workers``
    ranks it at another N (the fitted heterogeneity is per-N relative)."""
    from codedlib.cluster_fit import fit_cluster

    fit = None if isinstance(source, ClusterModel) else fit_cluster(source)
    cluster = source if fit is None else fit.cluster
    if n_workers is not None:
        cluster = cluster.with_(n_workers=check_int("n_workers", n_workers, 2))
    result = ranking(cluster, schemes, seeds, **setup_options)
    position = {axis: axis_value(cluster, axis) for axis in AXES}
    return YourCluster(cluster, result, position, fit)


# ------------------------------------------------------------------------------ notebook 06
#: Schemes of the regime maps: the best of each family (the event and lazy engines cost most).
MAP_SCHEMES = ("gd", "sgd", "gc", "cr", "rar", "mpi-allreduce", "dsag", "lagc")
#: Schemes of the scale study (to N = 10,000): the exact-gradient schemes, SGD and every
#: all-reduce.
_ALLREDUCES = tuple(n for n, s in SCHEMES.items() if s.timing == "allreduce")
SCALE_SCHEMES = ("gd", "sgd", "gc", "rs", "cr", "rar", *_ALLREDUCES)

#: Notebook 06's sizes; ``real_*``: the real-process section (``None``: every scheme).
SETTINGS = {
    "quick": {
        "n_workers": 24,
        "seeds": 2,
        "map_seeds": 2,
        "max_iter": 200,
        "maps": {  # key -> (x values, y values)
            "a": ([1.5, 5.0], [0.01, 1.0]),
            "b": ([1.5, 5.0], [2e-6, 5e-4]),
            "c": ([0.0, 2.0], [1.0, 3.0]),
            "d": ([10, 100], [0.1, 1.0]),
        },
        "n_values": [10, 100, 1000],
        "widget_n": 12,
        "widget_seeds": 2,
        "real_iterations": 8,
        "real_schemes": ("gc", "mpi-allreduce"),
        "real_workers": 4,
    },
    "faithful": {
        "n_workers": 100,
        "seeds": 5,
        "map_seeds": 5,
        "max_iter": 300,
        "maps": {
            "a": ([1.2, 5.0], [0.01, 0.1, 1.0, 10.0]),
            "b": ([1.2, 5.0], [v for v, _ in LATENCIES.values()]),
            "c": ([0.0, 1.0, 4.0], [1.0, 4.0]),
            "d": ([10, 100, 1000, 10_000], [0.1, 10.0]),
        },
        "n_values": [10, 100, 1000, 10_000],
        "widget_n": 24,
        "widget_seeds": 3,
        "real_iterations": 40,
        "real_schemes": None,
        "real_workers": 12,
    },
}


def paired(runs: pd.DataFrame, metric: str = "time_to_target") -> dict:
    """Scheme -> its ``metric`` per seed, in seed order (the arms of a paired ratio)."""
    return {s: g.sort_values("seed")[metric].to_numpy() for s, g in runs.groupby("scheme")}


# ------------------------------------------------------------------------------ claims
S1 = "1. The schemes"
S2 = "2. Ranking on the reference cluster"
S3 = "3. Each paper's headline on one cluster"
S4 = "4. Regime maps"
S5 = "5. Scale"


def _cr_load():
    lay = _tree_shares(Shootout(default_cluster(12), max_iter=10), 3, 2)
    return {"ours": float(lay["shares"].max()) / 12}


def _rs_decoding(reference, setup):
    need = setup.n_workers - setup.n_stragglers
    return {
        "paper": float(decoding_time(need, 1.0, "rs")) + need * reference.workload.dim,
        "ours": _decode_time(reference.with_(master_flop_time=1.0), need, "rs"),
        "setting": f"the shoot-out's RS-GC decoding charge at the master, f = {need} "
        "(1 s per FLOP to count FLOPs)",
    }


def _message(reference):
    net = reference.network
    return {
        "paper": net.latency + 8 * reference.workload.dim / net.bandwidth,
        "ours": reference.message_time,
        "setting": f"latency {net.latency * 1e3:g} ms, {net.bandwidth * 8 / 1e6:g} Mb/s, "
        f"dim = {reference.workload.dim}",
    }


def _runner_up(rank):
    best, second = rank.table.scheme.iloc[0], rank.table.scheme.iloc[1]
    by = paired(rank.runs)
    return {
        "numerator": by[second],
        "denominator": by[best],
        "setting": f"fastest {best}, runner-up {second}; {rank.setup.cluster.describe()}; "
        f"stand-in least squares; {len(by[best])} paired seeds",
    }


def _headline_specs(headlines, **_):
    """One row per :data:`HEADLINES` row: a paired comparison, or a qualitative row with the
    reached counts when one arm misses the target in some seed. RS's GC / RS-GC is the
    decoding FLOP formula the clock is given (``basis="check"``)."""
    specs = []
    for _, h in headlines.iterrows():
        n, basis = len(h.numerator), "check" if h["item"] == "RS Sec. 5, eq. (17)" else "paper"
        about = h.paper.lower().replace("–", "-")  # the paper's claim key
        row = partial(
            spec, item=h["item"], quantity=h["quantity"], section=S3, about=about, basis=basis
        )
        if np.isfinite(h.ratio):
            paper, kw = h.paper_value, {}
            if isinstance(paper, tuple):
                kw["paper_range"] = paper
            elif paper is not None and np.isfinite(paper):
                kw["paper"] = paper
            else:
                kw["paper_text"] = h.paper_text
            setting = (
                f"{h.cluster}; stand-in least squares (not the paper's data); {n} paired seeds"
            )
            pair = {"numerator": h.numerator, "denominator": h.denominator}
            specs.append(row("comparison", **pair, expected="greater", setting=setting, **kw))
            continue
        slow_ok, fast_ok = (int(np.isfinite(arm).sum()) for arm in (h.numerator, h.denominator))
        verdict = "not reproduced" if fast_ok < slow_ok else "partly"
        verdict = "reproduced" if fast_ok == n and slow_ok == 0 else verdict
        specs.append(
            row(
                "qualitative",
                paper=h.paper_text,
                verdict=verdict,
                ours=f"{h.faster} reaches the target in {fast_ok}/{n} seeds, {h.slower} in "
                f"{slow_ok}/{n} (within {h.max_iter} iterations)",
                setting=f"{h.cluster}; stand-in least squares; {n} paired seeds",
                reason="" if verdict == "reproduced" else "see the reached counts",
            )
        )
    return specs


def _map_cell(key, x_at, y_at, where, versus=None):
    """The row of one map cell (its first or last x and y): runner-up (or ``versus``) / winner
    time to target, or not attempted when there is nothing to compare."""

    def choose(maps, **_):
        m = maps[key]
        x = m.cells.x.unique()[0 if x_at == "first" else -1]
        y = m.cells.y.unique()[0 if y_at == "first" else -1]
        cell = m.cells[(m.cells.x == x) & (m.cells.y == y)].iloc[0]
        other = versus or cell.runner_up
        by = paired(m.runs[(m.runs.x == x) & (m.runs.y == y)])
        quantity = f"{'runner-up' if versus is None else versus} / winner, time to target, {where}"
        row = partial(
            spec, item=f"Regime map ({key})", quantity=quantity, section=S4, basis="check"
        )
        fair = cell.winner != "none" and other and other != cell.winner
        if not (fair and np.all(np.isfinite(by[other]))):
            reason = f"no other scheme to compare (winner {cell.winner})"
            return row("not_attempted", paper="", reason=reason)
        return row(
            "comparison",
            numerator=by[other],
            denominator=by[cell.winner],
            expected="greater",
            setting=f"winner {cell.winner}, {other} at {m.x_axis} = {x:g}, {m.y_axis} = {y:g}; "
            f"{m.base.describe()}; {len(by[other])} paired seeds",
        )

    return choose


def _scale(numerator, denominator, setting):
    def measured(study, reference):
        n = int(study.n_workers.iloc[-1])
        per = paired(study[study.n_workers == n], "time_per_iteration")
        text = setting(n, reference) + f"; {len(per[numerator])} paired seeds"
        return {"numerator": per[numerator], "denominator": per[denominator], "setting": text}

    return measured


_S1 = partial(spec, "exact", rtol=1e-12, section=S1, basis="check")
_CHECKED = partial(spec, "comparison", expected="greater", basis="check")
_S5 = partial(_CHECKED, "Scale, largest N", section=S5)

#: Notebook 06's claims per section (results: ``reference``, ``setup``, ``rank``,
#: ``headlines``, ``maps``, ``study``: the scale runs); callables pick their row from the numbers.
CLAIMS = {
    "schemes": [
        _S1(
            "CR Theorem 1, eq. (5)",
            "computation load r_CR of the (3, 2) tree, s = 1",
            _cr_load,
            paper=float(r_cr(3, 1, 2)),
            setting="shares per tree node / N in the shoot-out's CodedReduce at N = 12",
        ),
        _S1("RS eq. (17)", "decoding FLOPs f(f - 1) + f dim at f = N - S", _rs_decoding),
        _S1(
            "CR Sec. III-C (single port)",
            "one gradient message: latency + 8 dim / bandwidth [s]",
            _message,
        ),
    ],
    "ranking": [
        _CHECKED(
            "Ranking, reference cluster",
            "runner-up / fastest scheme, time to target",
            _runner_up,
            section=S2,
        )
    ],
    "headlines": [_headline_specs],
    "maps": [
        _map_cell("d", "last", "last", "largest N, most communication"),
        _map_cell("a", "first", "first", "heaviest tail, least communication"),
        _map_cell("b", "first", "last", "heaviest tail, highest latency"),
        _map_cell("b", "first", "last", "heaviest tail, highest latency", versus="mpi-allreduce"),
        _map_cell("c", "last", "last", "most heterogeneity and bursts"),
    ],
    "scale": [
        _S5(
            "GD / CodedReduce time per iteration",
            _scale("gd", "cr", lambda n, ref: f"N = {n}: {ref.with_(n_workers=n).describe()}"),
        ),
        _S5(
            "CodedReduce / MPI_Allreduce time per iteration",
            _scale(
                "cr",
                "mpi-allreduce",
                lambda n, ref: (
                    f"N = {n}, MPICH's choice {mpich_allreduce_algorithm(n, ref.workload.dim)}"
                ),
            ),
        ),
    ],
}
