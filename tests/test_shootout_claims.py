"""Notebook 06's claims as specs (codedlib.experiments.shootout.CLAIMS, shootout_mpi.CLAIMS),
evaluated on small hand-made results without papermill: every row is added and checked, and
its key is one of the committed faithful file's."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from codedlib.claims import ClaimsTable, evaluate
from codedlib.experiments import shootout as ex
from codedlib.experiments import shootout_mpi as exm
from codedlib.notebooks import REPO_ROOT
from codedlib.schemes import shootout as so

FAITHFUL = pd.read_csv(REPO_ROOT / "data" / "claims" / "06-shootout.csv")
KEYS = set(zip(FAITHFUL.paper, FAITHFUL["item"], FAITHFUL.quantity))


def _runs(values: dict, metric="time_to_target", **extra) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"scheme": s, "seed": i, metric: v, **extra}
            for s, vals in values.items()
            for i, v in enumerate(vals)
        ]
    )


def _check(table: ClaimsTable, rows, n: int, kinds=None):
    assert len(rows) == n and table.rows[-n:] == rows
    for row in rows:
        assert (row.paper, row.item, row.quantity) in KEYS, row.key
    if kinds is not None:
        assert [r.kind for r in rows] == kinds


@pytest.fixture
def table():
    return ClaimsTable("06-shootout", paper="shootout", quick=True)


def test_scheme_formulas(table):
    reference = ex.default_cluster(24)
    setup = so.Shootout(reference, max_iter=10)
    rows = evaluate(table, ex.CLAIMS["schemes"], reference=reference, setup=setup)
    _check(table, rows, 3, ["exact"] * 3)
    assert all(r.verdict == "reproduced" for r in rows)
    assert "f = 22" in rows[1].setting  # N - S at N = 24


def test_ranking_runner_up(table):
    runs = _runs({"a": [1.0, 1.1, 0.9], "b": [2.0, 2.1, 1.9]})
    setup = SimpleNamespace(cluster=ex.default_cluster(8))
    rank = ex.Ranking(setup, runs, ex.rank_schemes(runs), pd.DataFrame())
    [row] = evaluate(table, ex.CLAIMS["ranking"], rank=rank)
    _check(table, [row], 1, ["comparison"])
    assert row.our_value == pytest.approx(2.0, rel=0.05) and row.verdict == "reproduced"
    assert row.setting.startswith("fastest a, runner-up b;") and "3 paired seeds" in row.setting


def test_headlines_compare_or_count_reached(table):
    rows = []
    for (name, item), (quantity, slower, faster, _metric), (paper, words) in ex.HEADLINES:
        a, b = np.array([2.0, 2.2]), np.array([1.0, 1.1])
        if slower == "sag":  # one arm misses the target: a qualitative row
            a = np.array([math.inf, 2.0])
        ratio = a[0] / b[0] if np.all(np.isfinite(a)) else math.nan
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
                "numerator": a,
                "denominator": b,
                "cluster": "c",
                "max_iter": 50,
            }
        )
    added = evaluate(table, ex.CLAIMS["headlines"], headlines=pd.DataFrame(rows))
    _check(table, added, len(ex.HEADLINES))
    sag = [r for r in added if r.item == "DSAG Fig. 8"][0]
    assert sag.kind == "qualitative" and sag.verdict == "partly" and sag.paper == "dsag"
    assert "in 1/2 (within 50 iterations)" in sag.our_text
    rs = [r for r in added if r.item == "RS Sec. 5, eq. (17)"][0]
    assert rs.basis == "check" and rs.kind == "comparison"


def _map(key, winner="gd", other="rar"):
    x_axis, y_axis = ex.MAPS[key][2:]
    cells, runs = [], []
    for y in (1.0, 2.0):
        for x in (10, 20):
            cells.append({"x": x, "y": y, "winner": winner, "runner_up": other})
            runs.append(
                _runs({winner: [1.0, 1.2], other: [2.0, 2.3], "mpi-allreduce": [3.0, 3.1]}).assign(
                    x=x, y=y
                )
            )
    return ex.RegimeMap(
        x_axis,
        y_axis,
        ex.default_cluster(8),
        pd.DataFrame(cells),
        pd.concat(runs, ignore_index=True),
    )


def test_map_cells_compare_or_are_not_attempted(table):
    maps = {key: _map(key) for key in ex.MAPS}
    maps["c"] = _map("c", winner="none", other="")
    rows = evaluate(table, ex.CLAIMS["maps"], maps=maps)
    _check(table, rows, 5, ["comparison"] * 4 + ["qualitative"])
    assert [r.item for r in rows] == [
        "Regime map (d)",
        "Regime map (a)",
        "Regime map (b)",
        "Regime map (b)",
        "Regime map (c)",
    ]
    assert "n_workers = 20, comm_to_comp = 2" in rows[0].setting  # last x, last y
    assert "pareto_tail = 10, comm_to_comp = 1" in rows[1].setting  # first x, first y
    assert rows[3].our_value == pytest.approx(np.sqrt(3.0 * 3.1 / 1.2), rel=1e-9)
    assert rows[4].verdict == "not attempted"


def test_scale_at_the_largest_n(table):
    study = pd.concat(
        [
            _runs(
                {"gd": [3.0, 3.3], "cr": [1.0, 1.2], "mpi-allreduce": [0.5, 0.6]},
                "time_per_iteration",
            ).assign(n_workers=n)
            for n in (10, 1000)
        ]
    )
    rows = evaluate(table, ex.CLAIMS["scale"], study=study, reference=ex.default_cluster(8))
    _check(table, rows, 2, ["comparison", "comparison"])
    assert rows[0].setting.startswith("N = 1000: ") and rows[0].setting.endswith("2 paired seeds")
    assert "MPICH's choice rabenseifner;" in rows[1].setting


def test_real_runs_interval_or_not_attempted(table):
    frame = pd.DataFrame(
        {
            "scheme": ["gd", "gc", "mpi-allreduce"],
            "status": ["run"] * 3,
            "ratio": [1.02, 1.05, 1.01],
            "predicted_mean": [0.1, 0.1, 0.1],
            "measured_ci_low": [0.099, 0.1, 0.098],
            "measured_ci_high": [0.105, 0.11, 0.104],
            "iterations": [7, 7, 7],
            "method": ["m"] * 3,
        }
    )
    real = SimpleNamespace(frame=frame, cluster=ex.default_cluster(12))
    rows = evaluate(table, exm.CLAIMS["real"], real=real)
    _check(table, rows, 2, ["interval", "interval"])
    assert all(r.machine_dependent for r in rows)
    failed = SimpleNamespace(frame=frame.iloc[:1].assign(status="not run: x"), cluster=real.cluster)
    rows = evaluate(table, exm.CLAIMS["real"], real=failed)
    assert [r.verdict for r in rows] == ["not attempted"] * 2
    assert rows[1].reason == "MPI_Allreduce did not run: not requested"
