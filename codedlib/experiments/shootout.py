"""Notebook 06: which straggler mitigation wins where -- rankings, regime maps, scale, your cluster.

Every function runs the schemes of :mod:`codedlib.schemes.shootout` on one
:class:`codedlib.cluster.ClusterModel` and returns a small result object holding tidy
``pandas`` frames (snake_case columns, one row per scheme and seed or per map cell); labels
for display are set by :mod:`codedlib.plots.shootout`.

"Wins" is said only where the interval says so: the fastest scheme (least mean time to the
target over seeds) *wins* a setting when, for every other scheme, the paired ratio of times
(:func:`codedlib.claims.ratio_interval`, seeds share their straggling draws) has a 95 %
interval above 1; otherwise the schemes whose interval holds 1 are *tied* with it.

References
----------
.. [CR] A. Reisizadeh, S. Prakash, R. Pedarsani, A. S. Avestimehr, "CodedReduce: A Fast and
   Robust Framework for Gradient Aggregation in Distributed Learning", IEEE/ACM Trans.
   Networking, 2022, arXiv:1902.01981.
.. [RS] W. Halbawi, N. Azizan, F. Salehi, B. Hassibi, "Improving Distributed Gradient Descent
   Using Reed-Solomon Codes", IEEE ISIT, 2018, arXiv:1706.05436.
.. [DSAG] A. Severinson, E. Rosnes, S. El Rouayheb, A. Graell i Amat, "DSAG: A Mixed
   Synchronous-Asynchronous Iterative Method for Straggler-Resilient Learning", IEEE Trans.
   Communications, 2023, arXiv:2111.13877.
.. [LAGC] J. Zhang, O. Simeone, "LAGC: Lazily Aggregated Gradient Coding for Straggler-Tolerant
   and Communication-Efficient Distributed Learning", IEEE Trans. Neural Networks and Learning
   Systems 32(3), 2021, arXiv:1905.09148.
.. [SC] H. Esfahanizadeh, A. Cohen, M. Médard, "Stream Iterative Distributed Coded Computing for
   Learning Applications in Heterogeneous Systems", arXiv preprint, 2022, arXiv:2204.13195.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from codedlib._validation import check_int
from codedlib.claims import mean_interval, ratio_interval
from codedlib.cluster import ClusterModel
from codedlib.network import Network
from codedlib.schemes.shootout import SCHEMES, Shootout, chosen_parameters, simulate

__all__ = [
    "AXES",
    "LATENCIES",
    "HEADLINES",
    "Headlines",
    "axis_value",
    "operating_point_cluster",
    "paper_headlines",
    "Ranking",
    "RegimeMap",
    "ScaleStudy",
    "YourCluster",
    "apply_axis",
    "default_cluster",
    "paper_operating_points",
    "rank_schemes",
    "ranking",
    "regime_map",
    "scale_study",
    "your_cluster",
]


def default_cluster(n_workers: int = 100, **changes) -> ClusterModel:
    """The shoot-out's reference cluster: shifted-exponential straggling (share 0.5, CR eq. 6's
    ``a mu = 1``), no heterogeneity or bursts, 0.3 ms / 100 Mb/s network, 1000-parameter model,
    10 000 rows per share on 1 GFLOP/s workers (40 ms per share, 0.94 ms per message).

    Parameters
    ----------
    n_workers : int, default 100
        Number of workers N.
    **changes
        Other :class:`~codedlib.cluster.ClusterModel` fields to change.

    Returns
    -------
    ClusterModel
        The reference cluster.
    """
    base = ClusterModel(n_workers=n_workers, name="reference cluster")
    return base.with_(**changes) if changes else base


# ------------------------------------------------------------------------------ ranking
def rank_schemes(runs: pd.DataFrame, metric: str = "time_to_target") -> pd.DataFrame:
    """Per scheme: mean and 95 % interval of ``metric`` over seeds, the paired ratio to the
    fastest scheme with its interval, and a verdict (``wins`` / ``tied`` / ``slower`` /
    ``not reached``).

    Parameters
    ----------
    runs : pandas.DataFrame
        Tidy rows ``scheme, seed, <metric>`` (seeds paired across schemes).
    metric : str, default 'time_to_target'
        The column ranked (smaller is better; ``inf``: not reached).

    Returns
    -------
    pandas.DataFrame
        One row per scheme, fastest first: ``mean, ci_low, ci_high, ratio_to_best, ratio_low,
        ratio_high, n_seeds, verdict, rank``.
    """
    rows = []
    finite = runs.groupby("scheme")[metric].apply(lambda v: bool(np.all(np.isfinite(v))))
    means = runs.groupby("scheme")[metric].mean()
    reached = [s for s in means.index if finite[s]]
    best = min(reached, key=lambda s: means[s]) if reached else None
    by = {s: g.sort_values("seed")[metric].to_numpy() for s, g in runs.groupby("scheme")}
    for scheme, values in by.items():
        mean, lo, hi = mean_interval(values) if finite[scheme] else (math.inf,) * 3
        if best is None or not finite[scheme]:
            ratio = r_lo = r_hi = math.inf
        elif scheme == best:
            ratio = r_lo = r_hi = 1.0
        else:
            ratio, r_lo, r_hi = ratio_interval(values, by[best])
        rows.append(
            {
                "scheme": scheme,
                "mean": mean,
                "ci_low": lo,
                "ci_high": hi,
                "ratio_to_best": ratio,
                "ratio_low": r_lo,
                "ratio_high": r_hi,
                "n_seeds": len(values),
            }
        )
    table = pd.DataFrame(rows).sort_values("mean", kind="stable").reset_index(drop=True)
    tied = table[(table.scheme != best) & (table.ratio_low <= 1.0) & np.isfinite(table.ratio_low)]
    verdicts = []
    for _, r in table.iterrows():
        if not np.isfinite(r["mean"]):
            verdicts.append("not reached")
        elif r["scheme"] == best:
            verdicts.append("wins" if tied.empty else "tied (fastest mean)")
        elif r["ratio_low"] <= 1.0:
            verdicts.append("tied")
        else:
            verdicts.append("slower")
    table["verdict"] = verdicts
    table["rank"] = np.arange(1, len(table) + 1)
    return table


@dataclass
class Ranking:
    """Every scheme on one cluster over seeds.

    ``runs``: one row per (scheme, seed) (:meth:`codedlib.schemes.shootout.SchemeRun.summary`).
    ``table``: :func:`rank_schemes` of time to target, with the mean communication (numbers per
    iteration) and computation (shares per iteration) of each scheme added.
    ``trajectories``: one row per (scheme, seed, iteration): clock time and relative gap.

    Attributes
    ----------
    setup : Shootout
        The setting every scheme ran in.
    runs, table, trajectories : pandas.DataFrame
        As above.
    """

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


def ranking(cluster: ClusterModel, schemes=None, seeds=5, **setup_options) -> Ranking:
    """Run every scheme on ``cluster`` for each seed (common straggling draws) and rank them.

    Parameters
    ----------
    cluster : ClusterModel
        The cluster.
    schemes : sequence of str, optional
        Names from :data:`codedlib.schemes.shootout.SCHEMES` (default: every scheme that applies).
    seeds : int or sequence of int, default 5
        Seeds ``0..seeds-1`` or the seeds themselves (at least 2 for an interval).
    **setup_options
        Passed on to :class:`codedlib.schemes.shootout.Shootout` (``target``, ``max_iter``, ...).

    Returns
    -------
    Ranking
        Tidy runs, the ranked table and the trajectories.
    """
    seeds = _seeds(seeds)
    setup = Shootout(cluster, **setup_options)
    names = _applicable(setup, schemes)
    rows, traj = [], []
    for seed in seeds:
        factors = cluster.factors(setup.max_iter, seed)
        for name in names:
            run = simulate(setup, name, seed, factors=factors)
            rows.append(run.summary(setup.target))
            clock = np.concatenate([[0.0], np.cumsum(run.times)])
            traj.append(
                pd.DataFrame(
                    {
                        "scheme": name,
                        "seed": seed,
                        "iteration": np.arange(clock.size),
                        "time": clock,
                        "gap": run.gaps,
                    }
                )
            )
    runs = pd.DataFrame(rows)
    table = rank_schemes(runs)
    extra = runs.groupby("scheme")[["numbers_per_iteration", "shares_per_iteration"]].mean()
    reached = runs.groupby("scheme")["reached"].sum().rename("seeds_reached")
    table = table.join(extra, on="scheme").join(reached, on="scheme")
    table["title"] = table.scheme.map(lambda s: SCHEMES[s].title)
    table["paper"] = table.scheme.map(lambda s: SCHEMES[s].paper)
    table["parameters"] = table.scheme.map(lambda s: chosen_parameters(setup, s))
    return Ranking(setup, runs, table, pd.concat(traj, ignore_index=True))


def _seeds(seeds):
    """Seeds as a list of at least 2 (a ranking's interval needs 2 independent replicas)."""
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        return list(range(check_int("seeds", seeds, 2)))
    seeds = [check_int("seeds", s, 0) for s in seeds]
    if len(seeds) < 2:
        raise ValueError(
            f"seeds must name at least 2 seeds (an interval needs 2 independent replicas), "
            f"got seeds={seeds}"
        )
    return seeds


# ------------------------------------------------------------------------------ axes
def _with_comm_to_comp(cluster: ClusterModel, ratio: float) -> ClusterModel:
    """The cluster whose message time is ``ratio`` shares, realised through the bandwidth
    alone: latency stays physical, so ratios below ``latency / share_time`` do not exist."""
    net = cluster.network
    floor = net.latency / cluster.share_time
    if not ratio > floor:
        raise ValueError(
            f"comm_to_comp must be > latency / share_time = {floor:.3g} at latency "
            f"{net.latency:g} s, got {ratio}"
        )
    n_bytes = cluster.workload.dim * net.bytes_per_number
    bandwidth = n_bytes / (ratio * cluster.share_time - net.latency)
    return cluster.with_(network=Network(net.latency, bandwidth, net.bytes_per_number))


#: Named one-way per-message latencies [s] for the ``latency`` axis, with where each comes from.
LATENCIES = {
    "RDMA fabric": (2e-6, "InfiniBand MPI ping-pong (osu_latency), 1-2 us one-way"),
    "data-centre TCP": (5e-5, "kernel TCP in one data centre: our round figure, unsourced"),
    "cloud VMs, one zone": (1.3e-4, "EC2 same-zone ping RTT 0.26 ms / 2 (orensol.com, 2009)"),
    "reference (0.3 ms)": (3e-4, "the shoot-out's reference network"),
    "cross-zone": (5e-4, "EC2 cross-zone ping RTT 0.9-1.1 ms / 2 (orensol.com, 2009)"),
}


#: Map axes: what each changes in the cluster.
AXES = {
    "pareto_tail": "Pareto tail index xi of the straggling factor (smaller: heavier tail)",
    "straggling": "shifted-exponential straggling share v (0: none, 1: pure exponential)",
    "comm_to_comp": "one message's time over one share's mean computation time (via bandwidth)",
    "latency": "per-message latency [s] (bandwidth kept; see LATENCIES)",
    "heterogeneity": "slowdown strength h: worker i is 1 + h i / N times slower",
    "burst_factor": "slowdown inside a Markov burst (1: no bursts)",
    "n_workers": "number of workers N (the stand-in problem grows with N)",
}


def apply_axis(cluster: ClusterModel, axis: str, value) -> ClusterModel:
    """``cluster`` with one :data:`AXES` quantity set to ``value``.

    Parameters
    ----------
    cluster : ClusterModel
        The cluster.
    axis : str
        A key of :data:`AXES`.
    value : float
        The new value.

    Returns
    -------
    ClusterModel
        The changed copy.
    """
    if axis == "pareto_tail":
        return cluster.with_(family="pareto", shape=float(value))
    if axis == "straggling":
        return cluster.with_(family="shifted_exponential", shape=float(value))
    if axis == "comm_to_comp":
        return _with_comm_to_comp(cluster, float(value))
    if axis == "latency":
        return cluster.with_(network=replace(cluster.network, latency=float(value)))
    if axis == "heterogeneity":
        return cluster.with_(heterogeneity=float(value))
    if axis == "burst_factor":
        return cluster.with_(burst_factor=float(value))
    if axis == "n_workers":
        return cluster.with_(n_workers=int(value))
    raise ValueError(f"axis must be one of {list(AXES)}, got axis={axis!r}")


def axis_value(cluster: ClusterModel, axis: str) -> float:
    """Where ``cluster`` sits on ``axis`` (NaN when its family has no such coordinate).

    Parameters
    ----------
    cluster : ClusterModel
        The cluster.
    axis : str
        A key of :data:`AXES`.

    Returns
    -------
    float
        Its coordinate.
    """
    if axis == "pareto_tail":
        return cluster.shape if cluster.family == "pareto" else math.nan
    if axis == "straggling":
        return cluster.shape if cluster.family == "shifted_exponential" else math.nan
    if axis == "comm_to_comp":
        return cluster.comm_to_comp
    if axis == "latency":
        return cluster.network.latency
    if axis == "heterogeneity":
        return cluster.heterogeneity
    if axis == "burst_factor":
        return cluster.burst_factor
    if axis == "n_workers":
        return float(cluster.n_workers)
    raise ValueError(f"axis must be one of {list(AXES)}, got axis={axis!r}")


# ------------------------------------------------------------------------------ regime map
@dataclass
class RegimeMap:
    """Winners over a grid of two axes.

    ``cells``: one row per (x, y): ``winner`` (fastest mean time to target), ``verdict``
    (``wins`` / ``tied``), ``tied_with`` (schemes the interval cannot tell from it),
    ``runner_up`` and ``margin`` (runner-up / winner paired ratio) with ``margin_low`` /
    ``margin_high``. ``runs``: every (x, y, scheme, seed) row.

    Attributes
    ----------
    x_axis, y_axis : str
        Keys of :data:`AXES`.
    base : ClusterModel
        The cluster the cells change.
    cells, runs : pandas.DataFrame
        As above.
    """

    x_axis: str
    y_axis: str
    base: ClusterModel
    cells: pd.DataFrame
    runs: pd.DataFrame


def regime_map(
    base: ClusterModel,
    x_axis: str,
    x_values,
    y_axis: str,
    y_values,
    schemes=None,
    seeds=3,
    progress=None,
    **setup_options,
) -> RegimeMap:
    """Which scheme reaches the target first at each (x, y) of a grid (module docstring).

    Parameters
    ----------
    base : ClusterModel
        The cluster every cell changes two quantities of.
    x_axis : str
        A key of :data:`AXES`.
    x_values : sequence
        Grid values of the x axis.
    y_axis : str
        A key of :data:`AXES`.
    y_values : sequence
        Grid values of the y axis.
    schemes : sequence of str, optional
        Schemes compared (default: all that apply at each cell).
    seeds : int or sequence, default 3
        Seeds per cell (paired across schemes).
    progress : callable, optional
        Called as ``progress(done, total)`` after each cell.
    **setup_options
        Passed on to :class:`codedlib.schemes.shootout.Shootout`.

    Returns
    -------
    RegimeMap
        Cells with winner, ties and margin; every run.
    """
    for axis in (x_axis, y_axis):
        if axis not in AXES:
            raise ValueError(f"axis must be one of {list(AXES)}, got {axis!r}")
    if x_axis == y_axis:
        raise ValueError(f"x_axis and y_axis must differ, got {x_axis!r} twice")
    cells, all_runs = [], []
    total = len(x_values) * len(y_values)
    for j, y in enumerate(y_values):
        for i, x in enumerate(x_values):
            cluster = apply_axis(apply_axis(base, x_axis, x), y_axis, y)
            result = ranking(cluster, schemes, seeds, **setup_options)
            runs = result.runs.assign(x=x, y=y)
            all_runs.append(runs)
            table = result.table
            first = table.iloc[0]
            second = table.iloc[1] if len(table) > 1 else None
            ok = np.isfinite(first["mean"])
            cells.append(
                {
                    "x": x,
                    "y": y,
                    "winner": first["scheme"] if ok else "none",
                    "verdict": first["verdict"] if ok else "not reached",
                    "tied_with": ",".join(table.loc[table.verdict == "tied", "scheme"]),
                    "runner_up": "" if second is None else second["scheme"],
                    "margin": math.nan if second is None else second["ratio_to_best"],
                    "margin_low": math.nan if second is None else second["ratio_low"],
                    "margin_high": math.nan if second is None else second["ratio_high"],
                    "best_time": first["mean"],
                }
            )
            if progress is not None:
                progress(j * len(x_values) + i + 1, total)
    return RegimeMap(
        x_axis, y_axis, base, pd.DataFrame(cells), pd.concat(all_runs, ignore_index=True)
    )


# ------------------------------------------------------------------------------ papers
def paper_operating_points() -> pd.DataFrame:
    """Each paper's own setting mapped onto the map's axes (our mapping; ``how`` says from
    which of the paper's numbers).

    Returns
    -------
    pandas.DataFrame
        Columns: paper, n_workers, family, shape, heterogeneity, burst_factor, comm_to_comp,
        how.
    """
    from codedlib.experiments.codedreduce import GRADIENT_NUMBERS
    from codedlib.experiments.dsag import AWS_TABLE_I
    from codedlib.schemes.codedreduce import TimingModel

    cr = TimingModel(gradient_numbers=GRADIENT_NUMBERS["fig11a"])
    cr_points = 7644 / 156  # Fig. 11(a): d = 7644 points over the (12, 2) tree's 156 workers
    cr_share = cr.a * cr_points * 2  # shift a d plus exponential mean d / mu (a mu = 1)
    (c_lo, c_hi), (z_lo, z_hi), p = AWS_TABLE_I["pca"]
    dsag_ratio = (0.5 * (c_lo + c_hi)) / (0.5 * (z_lo + z_hi) * p)
    rows = [
        ("CodedReduce", 156, "shifted_exponential", 0.5, 0.0, 1.0, cr.t_c / cr_share,
         "Fig. 11(a): a mu = 1 (share 0.5), t_c of p = 6500 on the paper's network over "
         "a d_i + d_i/mu for d/N points"),
        ("Reed–Solomon", 80, "pareto", 1.1, 0.0, 1.0, math.nan,
         "Fig. 2-3: Pareto xi = 1.1, n = 80; no communication term (comm/comp not modelled)"),
        ("DSAG", 100, "gamma", 0.1, 0.4, 1.12, dsag_ratio,
         "Sec. VII-B/C: gamma (our cv 0.1), slowdown 0.4, Fig. 4 bursts x1.12, Table I AWS PCA "
         "comm over p = 100 tasks"),
        ("LAGC", 12, "shifted_exponential", 0.99, 0.0, 1.0, math.nan,
         "Sec. VI: exponential delays (share ~1), no network (comm/comp not modelled)"),
        ("Stream", 5, "shifted_exponential", 0.99, 1.0, 1.0, math.nan,
         "Example 2: five exponential workers of different speeds (our h ~ 1)"),
    ]  # fmt: skip
    cols = [
        "paper",
        "n_workers",
        "family",
        "shape",
        "heterogeneity",
        "burst_factor",
        "comm_to_comp",
        "how",
    ]
    return pd.DataFrame(rows, columns=cols)


def operating_point_cluster(point, base: ClusterModel) -> ClusterModel:
    """The cluster of one :func:`paper_operating_points` row: its N, family, shape,
    heterogeneity and bursts on ``base``'s network and workload, its comm/comp through the
    bandwidth; where that ratio is below ``base``'s latency allows, the latency is half the
    message time; where the paper models no communication (NaN) ``base``'s ratio stays.

    Parameters
    ----------
    point : mapping
        A row of :func:`paper_operating_points` (with ``paper``).
    base : ClusterModel
        Network and workload.

    Returns
    -------
    ClusterModel
        The paper's point as a cluster.
    """
    cluster = base.with_(
        n_workers=int(point["n_workers"]),
        family=point["family"],
        shape=float(point["shape"]),
        heterogeneity=float(point["heterogeneity"]),
        burst_factor=float(point["burst_factor"]),
        name=f"{point['paper']} operating point",
    )
    ratio = float(point["comm_to_comp"])
    if np.isfinite(ratio):
        if ratio * cluster.share_time <= cluster.network.latency:
            # below what base's latency allows: latency half of the paper's message time
            cluster = apply_axis(cluster, "latency", 0.5 * ratio * cluster.share_time)
        cluster = apply_axis(cluster, "comm_to_comp", ratio)
    return cluster


#: Each paper's headline, as (paper key, item, quantity, slower scheme, faster scheme, metric,
#: paper's ratio or range or None, the paper's words). The ratio is slower / faster.
HEADLINES = (
    ("codedreduce", "CR Fig. 11(a)", "UMW / CR time to target", "gd", "cr", "time_to_target",
     31.7, "CR 31.7x faster than UMW"),
    ("codedreduce", "CR Fig. 11(a)", "RAR / CR time to target", "rar", "cr", "time_to_target",
     5.2, "CR 5.2x faster than RAR"),
    ("reed-solomon", "RS Sec. 5, eq. (17)", "GC / RS-GC time to target", "gc", "rs",
     "time_to_target", None, "RS decoding O(f^2) beats the O(f^3) solve"),
    ("dsag", "DSAG Fig. 8", "SAG / DSAG time to target", "sag", "dsag", "time_to_target",
     None, "DSAG faster than SAG"),
    ("dsag", "DSAG Sec. VII-C", "DSAG / DSAG-LB time to target", "dsag", "dsag-lb",
     "time_to_target", (1.10, 1.15), "load balancing gains 10-15 %"),
    ("lagc", "LAGC Sec. VI", "GC / LAGC communication to target", "gc", "lagc",
     "numbers_to_target", None, "LAGC communicates less than GC"),
    ("lagc", "LAGC Sec. VI", "LAG / LAGC time to target", "lag", "lagc", "time_to_target",
     None, "LAGC faster than LAG under stragglers"),
    ("stream", "Stream Thm. 2 (Example 2)", "uniform / speed-proportional split time to target",
     "gd", "het-split", "time_to_target", None, "the optimal split beats the uniform one"),
)  # fmt: skip

#: Setup options of a paper's operating point: CodedReduce's Fig. 11(a) runs the (12, 2) tree.
#: Reed–Solomon's runs at its fixed S = 0.1 N (tuned, GC and RS would both pick S = 0, where
#: nothing is decoded and the headline is moot).
PAPER_SETUPS = {"CodedReduce": {"tree": (12, 2)}, "Reed–Solomon": {"tune": False}}

_PAPER_NAMES = {
    "codedreduce": "CodedReduce",
    "reed-solomon": "Reed–Solomon",
    "dsag": "DSAG",
    "lagc": "LAGC",
    "stream": "Stream",
}


@dataclass
class Headlines:
    """Each paper's headline on its operating point of the one cluster: ``rows`` (one per
    headline: paper, item, quantity, ratio slower/faster with its 95 % paired interval,
    the per-seed values of both arms) and the ``rankings`` per paper.

    Attributes
    ----------
    rows : pandas.DataFrame
        As above.
    rankings : dict
        Paper name -> :class:`Ranking` at its operating point.
    """

    rows: pd.DataFrame
    rankings: dict


def paper_headlines(base: ClusterModel, seeds=5, **setup_options) -> Headlines:
    """Replay :data:`HEADLINES` on :func:`operating_point_cluster` of every paper.

    Parameters
    ----------
    base : ClusterModel
        Network and workload of every operating point.
    seeds : int or sequence, default 5
        Paired seeds.
    **setup_options
        Passed on to :class:`codedlib.schemes.shootout.Shootout`.

    Returns
    -------
    Headlines
        One row per headline and the rankings behind them.
    """
    points = paper_operating_points().set_index("paper")
    rankings, rows = {}, []
    for key, item, quantity, slower, faster, metric, paper, words in HEADLINES:
        name = _PAPER_NAMES[key]
        if name not in rankings:
            cluster = operating_point_cluster(points.loc[name].to_dict() | {"paper": name}, base)
            options = {**setup_options, **PAPER_SETUPS.get(name, {})}
            rankings[name] = ranking(cluster, None, seeds, **options)
        runs = rankings[name].runs
        a = runs[runs.scheme == slower].sort_values("seed")[metric].to_numpy()
        b = runs[runs.scheme == faster].sort_values("seed")[metric].to_numpy()
        ok = np.all(np.isfinite(a)) and np.all(np.isfinite(b))
        ratio, lo, hi = ratio_interval(a, b) if ok else (math.nan,) * 3
        rows.append(
            {"paper_key": key, "paper": name, "item": item, "quantity": quantity,
             "slower": slower, "faster": faster, "metric": metric, "paper_value": paper,
             "paper_text": words, "ratio": ratio, "ratio_low": lo, "ratio_high": hi,
             "numerator": a, "denominator": b,
             "cluster": rankings[name].setup.cluster.describe()}
        )  # fmt: skip
    return Headlines(pd.DataFrame(rows), rankings)


# ------------------------------------------------------------------------------ scale
@dataclass
class ScaleStudy:
    """Time per iteration and to target vs N, and the simulator's own cost.

    ``runs``: one row per (n_workers, scheme, seed) with ``time_per_iteration``,
    ``time_to_target`` and ``wall_seconds`` (the simulation's wall-clock time, for the
    notebook; benchmarks own the performance claims).

    Attributes
    ----------
    runs : pandas.DataFrame
        As above.
    trees : pandas.DataFrame
        The CodedReduce tree chosen at each N: ``n_workers, n, L, used``.
    """

    runs: pd.DataFrame
    trees: pd.DataFrame


def scale_study(
    base: ClusterModel, n_values, schemes=None, seeds=2, max_iter=100, **setup_options
) -> ScaleStudy:
    """Every scheme from N = ``n_values[0]`` to ``n_values[-1]`` workers (weak scaling: the
    stand-in problem keeps its rows per worker); tree schemes choose (n, L) per N.

    Parameters
    ----------
    base : ClusterModel
        The cluster whose N changes.
    n_values : sequence of int
        Numbers of workers.
    schemes : sequence of str, optional
        Schemes (default: all that apply at each N).
    seeds : int or sequence, default 2
        Seeds per N.
    max_iter : int, default 100
        Iterations per run.
    **setup_options
        Passed on to :class:`codedlib.schemes.shootout.Shootout`.

    Returns
    -------
    ScaleStudy
        Every run and the trees chosen.
    """
    rows, trees = [], []
    seed_list = _seeds(seeds)
    for N in n_values:
        cluster = apply_axis(base, "n_workers", N)
        setup = Shootout(cluster, max_iter=max_iter, **setup_options)
        names = _applicable(setup, schemes)
        for seed in seed_list:
            factors = cluster.factors(max_iter, seed)
            for name in names:
                t0 = time.perf_counter()
                run = simulate(setup, name, seed, factors=factors)
                wall = time.perf_counter() - t0
                row = run.summary(setup.target)
                row.update(n_workers=N, wall_seconds=wall, max_iter=max_iter)
                rows.append(row)
        if "cr" in names:
            lay = SCHEMES["cr"].layout(setup)  # chosen once per setup (cached)
            trees.append(
                {"n_workers": N, "n": lay["n"], "L": lay["L"], "used": lay["tree_workers"]}
            )
    return ScaleStudy(pd.DataFrame(rows), pd.DataFrame(trees))


# ------------------------------------------------------------------------------ your cluster
@dataclass
class YourCluster:
    """A user's cluster: the fitted model (if from a trace), the ranking and its position on
    the map's axes (``position``: axis -> value).

    Attributes
    ----------
    cluster : ClusterModel
        The cluster ranked.
    ranking : Ranking
        Every scheme on it.
    position : dict
        :data:`AXES` key -> value (NaN where the family has no such coordinate).
    fit : ClusterFit or None
        The fit, when the cluster came from a trace.
    """

    cluster: ClusterModel
    ranking: Ranking
    position: dict
    fit: object = None


def your_cluster(source, seeds=5, n_workers=None, schemes=None, **setup_options) -> YourCluster:
    """Rank every scheme on your cluster: a :class:`ClusterModel`, or a latency trace in the
    ``data/traces`` format (a path or DataFrame) fitted by :func:`codedlib.cluster_fit.fit_cluster`.

    Parameters
    ----------
    source : ClusterModel, str, pathlib.Path or pandas.DataFrame
        The cluster description or a trace.
    seeds : int or sequence, default 5
        Seeds of the ranking.
    n_workers : int, optional
        Rank at this N instead of the trace's (the fitted heterogeneity is per-N relative).
    schemes : sequence of str, optional
        Schemes to rank.
    **setup_options
        Passed on to :class:`codedlib.schemes.shootout.Shootout`.

    Returns
    -------
    YourCluster
        The cluster, its ranking and where it sits on the map's axes.
    """
    fit = None
    if isinstance(source, ClusterModel):
        cluster = source
    else:
        from codedlib.cluster_fit import fit_cluster

        fit = fit_cluster(source)
        cluster = fit.cluster
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
SCALE_SCHEMES = ("gd", "sgd", "gc", "rs", "cr", "rar", "rd", "rabenseifner", "binomial",
                 "mpi-allreduce")  # fmt: skip

#: Notebook 06's sizes (``settings(quick)``).
SETTINGS = {
    "quick": {
        "n_workers": 24, "seeds": 2, "map_seeds": 2, "max_iter": 200,
        "tails": [1.5, 5.0], "ratios": [0.01, 1.0], "latencies": [2e-6, 5e-4],
        "hets": [0.0, 2.0], "bursts": [1.0, 3.0], "n_grid": [10, 100], "n_ratios": [0.1, 1.0],
        "n_values": [10, 100, 1000], "widget_n": 12, "widget_seeds": 2,
    },
    "faithful": {
        "n_workers": 100, "seeds": 5, "map_seeds": 5, "max_iter": 300,
        "tails": [1.2, 5.0], "ratios": [0.01, 0.1, 1.0, 10.0],
        "latencies": [v for v, _ in LATENCIES.values()],
        "hets": [0.0, 1.0, 4.0], "bursts": [1.0, 4.0], "n_grid": [10, 100, 1000, 10_000],
        "n_ratios": [0.1, 10.0], "n_values": [10, 100, 1000, 10_000], "widget_n": 24,
        "widget_seeds": 3,
    },
}  # fmt: skip


def settings(quick: bool) -> dict:
    """Notebook 06's sizes: :data:`SETTINGS` ``"quick"`` or ``"faithful"``."""
    return dict(SETTINGS["quick" if quick else "faithful"])


def record_headlines(claims, headlines: Headlines, section: str, max_iter: int) -> None:
    """One claims row per :data:`HEADLINES` row: a paired comparison, or a qualitative row
    with the reached counts when one arm misses the target in some seed. RS's GC / RS-GC is
    the decoding FLOP formula the clock is given (``basis="check"``)."""
    for _, h in headlines.rows.iterrows():
        paper, kw = h.paper_value, {}
        if isinstance(paper, tuple):
            kw["paper_range"] = paper
        elif paper is not None and np.isfinite(paper):
            kw["paper"] = paper
        else:
            kw["paper_text"] = h.paper_text
        basis = "check" if h["item"] == "RS Sec. 5, eq. (17)" else "paper"
        n = len(h.numerator)
        with claims.about(h.paper_key):
            if np.isfinite(h.ratio):
                claims.comparison(
                    h["item"], h["quantity"], numerator=h.numerator, denominator=h.denominator,
                    expected="greater", section=section, basis=basis,
                    setting=f"{h.cluster}; stand-in least squares (not the paper's data); "
                    f"{n} paired seeds", **kw,
                )  # fmt: skip
                continue
            slow_ok, fast_ok = (
                int(np.isfinite(h.numerator).sum()),
                int(np.isfinite(h.denominator).sum()),
            )
            verdict = ("reproduced" if fast_ok == n and slow_ok == 0
                       else "not reproduced" if fast_ok < slow_ok else "partly")  # fmt: skip
            claims.qualitative(
                h["item"], h["quantity"], paper=h.paper_text, verdict=verdict, basis=basis,
                ours=f"{h.faster} reaches the target in {fast_ok}/{n} seeds, {h.slower} in "
                f"{slow_ok}/{n} (within {max_iter} iterations)", section=section,
                setting=f"{h.cluster}; stand-in least squares; {n} paired seeds",
                reason="" if verdict == "reproduced" else "see the reached counts",
            )  # fmt: skip


def paired(runs: pd.DataFrame, metric: str = "time_to_target") -> dict:
    """Scheme -> its ``metric`` per seed, in seed order (the arms of a paired ratio)."""
    return {s: g.sort_values("seed")[metric].to_numpy() for s, g in runs.groupby("scheme")}


def map_cell_claim(claims, m: RegimeMap, x, y, label: str, where: str, section: str,
                   versus: str | None = None):  # fmt: skip
    """Claims row of one map cell: runner-up (or ``versus``) / winner time to target."""
    runs = m.runs[(m.runs.x == x) & (m.runs.y == y)]
    cell = m.cells[(m.cells.x == x) & (m.cells.y == y)].iloc[0]
    other = versus or cell.runner_up
    by = paired(runs)
    item = f"Regime map {label}"
    quantity = f"{'runner-up' if versus is None else versus} / winner, time to target, {where}"
    if (
        cell.winner == "none"
        or not other
        or other == cell.winner
        or not np.all(np.isfinite(by[other]))
    ):
        return claims.not_attempted(item, quantity, paper="", section=section, basis="check",
                                    reason=f"no other scheme to compare (winner {cell.winner})")  # fmt: skip
    return claims.comparison(
        item, quantity, numerator=by[other], denominator=by[cell.winner], expected="greater",
        section=section, basis="check",
        setting=f"winner {cell.winner}, {other} at "
        f"{m.x_axis} = {x:g}, {m.y_axis} = {y:g}; {m.base.describe()}; "
        f"{len(by[other])} paired seeds",
    )  # fmt: skip
