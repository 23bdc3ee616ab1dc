"""Notebook 06's experiments: rankings with intervals, regime maps, operating points, your
cluster, and the explorer's wiring."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from codedlib.claims import ClaimsTable
from codedlib.cluster import ClusterModel
from codedlib.experiments import shootout as ex
from codedlib.notebooks import REPO_ROOT
from codedlib.schemes import shootout as so

TRACE = REPO_ROOT / "data" / "traces" / "dsag-N12-w6-steady.csv"


def _runs(values: dict) -> pd.DataFrame:
    rows = [(s, i, v) for s, vals in values.items() for i, v in enumerate(vals)]
    return pd.DataFrame(rows, columns=["scheme", "seed", "time_to_target"])


def test_rank_schemes_wins_only_where_the_interval_says_so():
    clear = ex.rank_schemes(_runs({"a": [1.0, 1.1, 0.9, 1.05], "b": [2.0, 2.2, 1.8, 2.1]}))
    assert clear.scheme.tolist() == ["a", "b"]
    assert clear.verdict.tolist() == ["wins", "slower"]
    assert clear.ratio_to_best.iloc[1] == pytest.approx(2.0, rel=0.02)
    assert clear.ratio_low.iloc[1] > 1

    noisy = ex.rank_schemes(_runs({"a": [1.0, 2.0, 1.0, 2.0], "b": [2.0, 1.0, 2.1, 1.1]}))
    assert noisy.verdict.tolist() == ["tied (fastest mean)", "tied"]
    assert noisy.ratio_low.iloc[1] <= 1 <= noisy.ratio_high.iloc[1]

    missing = ex.rank_schemes(_runs({"a": [1.0, 1.2], "b": [math.inf, 1.0]}))
    assert missing.set_index("scheme").verdict.to_dict() == {"a": "wins", "b": "not reached"}


@pytest.fixture(scope="module")
def small_ranking():
    return ex.ranking(ex.default_cluster(12), seeds=3, max_iter=200)


def test_ranking_runs_every_scheme_on_common_draws(small_ranking):
    r = small_ranking
    applicable = [n for n, s in so.SCHEMES.items() if s.applies(r.setup)]
    assert sorted(r.table.scheme) == sorted(applicable)
    assert len(r.runs) == 3 * len(applicable)
    assert r.table["mean"].is_monotonic_increasing
    exact = [n for n in applicable if so.SCHEMES[n].engine == "exact"]
    traj = r.trajectories[r.trajectories.seed == 0]
    gaps = {n: traj[traj.scheme == n].gap.to_numpy() for n in exact}
    for n in exact[1:]:
        np.testing.assert_array_equal(gaps[n], gaps[exact[0]])  # same iterates, other clocks
    assert r.best in r.winners
    # paired seeds: the best scheme's own ratio is exactly 1
    assert r.table.ratio_to_best.iloc[0] == 1.0


def test_ranking_is_reproducible():
    a = ex.ranking(ex.default_cluster(8), schemes=["gd", "dsag"], seeds=2, max_iter=80)
    b = ex.ranking(ex.default_cluster(8), schemes=["gd", "dsag"], seeds=2, max_iter=80)
    pd.testing.assert_frame_equal(a.runs, b.runs)
    again = ex.ranking(a.setup, schemes=["gd", "dsag"], seeds=2)  # its tuned choices reused
    assert again.setup is a.setup
    pd.testing.assert_frame_equal(a.runs, again.runs)


def test_apply_axis_sets_each_quantity_and_keeps_physics():
    base = ex.default_cluster(20)
    c = ex.apply_axis(base, "comm_to_comp", 0.37)
    assert c.comm_to_comp == pytest.approx(0.37, rel=1e-12)
    # the message time still follows from latency + bytes / bandwidth
    assert c.message_time == pytest.approx(
        c.network.latency + 8 * c.workload.dim / c.network.bandwidth, rel=1e-12
    )
    assert ex.apply_axis(base, "pareto_tail", 2.5).family == "pareto"
    assert ex.apply_axis(base, "n_workers", 64).n_workers == 64
    for axis in ex.AXES:
        value = {"pareto_tail": 3.0, "straggling": 0.3, "n_workers": 30}.get(axis, 2.0)
        assert ex.axis_value(ex.apply_axis(base, axis, value), axis) == pytest.approx(value)
    with pytest.raises(ValueError, match="axis must be one of"):
        ex.apply_axis(base, "colour", 1)
    with pytest.raises(ValueError, match="comm_to_comp must be > latency"):
        ex.apply_axis(base, "comm_to_comp", 0.0)


def test_regime_map_cells():
    base = ex.default_cluster(8)
    grid = ex._grid(base, "comm_to_comp", [0.01, 10.0], "heterogeneity", [0.0])
    setups = [so.Shootout(cluster, max_iter=250) for *_, cluster in grid]
    rankings = ex._rankings(setups, ["gd", "rar", "cr", "gc"], 2)
    m = ex._regime_map(base, "comm_to_comp", "heterogeneity", grid, rankings)
    assert len(m.cells) == 2 and set(m.cells.winner) <= {"gd", "rar", "cr", "gc"}
    assert len(m.runs) == 2 * 2 * 4
    for _, c in m.cells.iterrows():
        assert c.margin >= 1 or c.verdict.startswith("tied")
    # a network 1000x slower per message: the winner's time grows
    t = m.cells.set_index("x").best_time
    assert t[10.0] > t[0.01]


def test_operating_points_map_onto_the_cluster():
    points = ex.paper_operating_points()
    assert set(points.paper) == {"CodedReduce", "Reed–Solomon", "DSAG", "LAGC", "Stream"}
    base = ex.default_cluster(10)
    for _, p in points.iterrows():
        c = ex.operating_point_cluster(p.to_dict(), base)
        assert c.n_workers == p.n_workers and c.family == p.family
        expected = p.comm_to_comp if np.isfinite(p.comm_to_comp) else base.comm_to_comp
        assert c.comm_to_comp == pytest.approx(expected, rel=1e-12)
    # CodedReduce's point: t_c of p = 6500 over 2 a d_i with d_i = 7644 / 156 (a mu = 1)
    cr = points.set_index("paper").loc["CodedReduce"]
    assert cr.comm_to_comp == pytest.approx(
        (3e-4 + 8 * 6500 * 0.05 / (8 * 120_000 - 3e-4 * 0)) / (2 * 5e-5 * 49), rel=0.05
    )


def test_your_cluster_from_a_trace_and_from_a_model():
    fitted = ex.your_cluster(TRACE, seeds=2, schemes=["gd", "dsag", "sgd"], max_iter=80)
    assert fitted.fit is not None and fitted.cluster.n_workers == 12
    assert set(fitted.position) == set(ex.AXES)
    assert fitted.position["n_workers"] == 12
    given = ex.your_cluster(ClusterModel(n_workers=6), seeds=2, schemes=["gd"], max_iter=250)
    assert given.fit is None and given.ranking.best == "gd"
    moved = ex.your_cluster(TRACE, seeds=2, n_workers=24, schemes=["gd"], max_iter=50)
    assert moved.cluster.n_workers == 24
    with pytest.raises(ValueError, match="schemes must be names"):
        ex.ranking(ClusterModel(n_workers=6), schemes=["nope"], seeds=2)
    with pytest.raises(ValueError, match="seeds must"):
        ex.ranking(ClusterModel(n_workers=6), seeds=[], max_iter=10)


def test_claims_about_another_paper():
    table = ClaimsTable("06-shootout", paper="shootout", quick=True)
    with table.about("dsag"):
        row = table.exact("x", "y", paper=1.0, ours=1.0, section="s")
    after = table.exact("x2", "y2", paper=1.0, ours=1.0, section="s")
    assert (row.paper, after.paper) == ("dsag", "shootout")
    with pytest.raises(ValueError, match="paper must be one of"):
        with table.about("nope"):
            pass


def test_explorer_wires_the_library(monkeypatch):
    pytest.importorskip("ipywidgets")
    from codedlib.widgets import shootout as ws

    box = ws.explore_your_cluster(n_workers=6, seeds=2, max_iter=60)
    box.refresh()
    assert box.images[0].value and "N=6" in box.status.value
    result, text = ws.your_cluster_report(6, "gamma", 0.3, 0.4, 1.0, 0.05, ws.TRACE_NONE, 2, 60)
    assert result.cluster.comm_to_comp == pytest.approx(0.05) and "heterogeneity 0.4" in text
    box.controls["family"].value = "pareto"
    box.controls["shape"].value = 0.5
    box.refresh()
    assert "shape must satisfy 1.0 &lt; shape" in box.status.value
    assert box.images[0].layout.display == "none"
    with pytest.raises(ValueError, match="trace must be one of"):
        ws.your_cluster_report(6, "gamma", 0.3, 0.0, 1.0, 0.05, "missing.csv", 2, 60)
    assert ws.trace_choices()[0] == ws.TRACE_NONE and TRACE.name in ws.trace_choices()


def test_comm_to_comp_moves_bandwidth_only_and_latency_has_its_own_axis():
    base = ex.default_cluster(20)
    for ratio in (0.01, 0.1, 1.0, 10.0):
        c = ex.apply_axis(base, "comm_to_comp", ratio)
        assert c.network.latency == base.network.latency
        assert c.comm_to_comp == pytest.approx(ratio, rel=1e-12)
    with pytest.raises(ValueError, match="comm_to_comp must be > latency / share_time"):
        ex.apply_axis(base, "comm_to_comp", 0.5 * base.network.latency / base.share_time)
    fast = ex.apply_axis(base, "latency", ex.LATENCIES["RDMA fabric"][0])
    assert fast.network.latency == 2e-6 and fast.network.bandwidth == base.network.bandwidth
    assert fast.comm_to_comp < base.comm_to_comp


def test_ranking_in_two_processes_is_the_serial_ranking():
    kw = {"schemes": ["gd", "cr", "dsag"], "seeds": [3, 5], "max_iter": 60}
    serial = ex.ranking(ex.default_cluster(8), executor=1, **kw)
    parallel = ex.ranking(ex.default_cluster(8), executor=2, **kw)
    pd.testing.assert_frame_equal(serial.runs, parallel.runs)
    pd.testing.assert_frame_equal(serial.table, parallel.table)
    pd.testing.assert_frame_equal(serial.trajectories, parallel.trajectories)
