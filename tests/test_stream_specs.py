"""Notebook 05's claims as specs (experiments.stream.CLAIMS), evaluated on small runs without
papermill: every spec adds one checked row, in the order and with the keys of the committed
faithful table."""

from pathlib import Path

import pandas as pd
import pytest

from codedlib import claims
from codedlib.experiments import stream as ex

DATA = Path(__file__).resolve().parents[1] / "data" / "claims"


@pytest.fixture(scope="module")
def evaluated():
    """Every section of the notebook on tiny sizes; (section, rows) in the notebook's order."""
    table = claims.ClaimsTable("05-stream", paper="stream", quick=True)
    seeds, n_jobs = (0, 1), 40
    out = []

    def run(key, **results):
        out.append((key, claims.evaluate(table, ex.CLAIMS[key], **results)))

    r1 = ex.split_results(1.0)
    for key in ("theorem2", "fig2", "example1"):
        run(key, **r1)
    run("example2", **ex.example2_results(n_jobs, (0, 1, 2), 1.0))
    check = ex.example2_setting_check(n_streams=4, n_jobs=n_jobs, seed=0)
    run("example2_setting", check=check, n_jobs=n_jobs, gamma=1.0)
    qc = ex.queueing_check(seeds=seeds, n_jobs=60, arrival_rates=ex.QUEUEING_RATES)
    run("queueing", queueing=qc, gamma=1.0)
    r3 = ex.fig3_results(0, 1.0)
    run("fig3", **r3)
    r3 |= ex.fig3_stability_results(0, 200, 2, 20)
    run("fig3_stability", **r3)
    run("fig4", **ex.fig4_results((1.0, 1.06, 1.5), seeds, n_jobs, seeds))
    run("example3", **ex.example3_results(0))
    unit = ex.heterogeneous_cluster()
    run("fig5")
    run("fig6", **ex.code_parameter_results(unit))
    run("table2", **ex.table2_results(unit, seeds, n_jobs))
    pt = ex.paper_table2_stability()
    run("table2_stability", paper_stability=pt)
    Z = ex.calibrate_work(pt.implied_service_mean[350], K=350, unit_workers=unit)
    growth = ex.unstable_growth(K=350, Z=Z, n_jobs=(20, 40), seeds=seeds, unit_workers=unit)
    at_J = growth[growth["J"] == growth["J"].max()]
    run("table2_calibrated", at_J=at_J, Z_cal=Z, target=1.0, n_streams=len(seeds))
    return table, out


def test_every_spec_adds_one_checked_row(evaluated):
    table, out = evaluated
    assert [k for k, _ in out] == list(ex.CLAIMS)
    for key, rows in out:
        assert len(rows) == len(ex.CLAIMS[key]), key
        for row, s in zip(rows, ex.CLAIMS[key]):
            assert (row.item, row.quantity) == (s.item, s.quantity)
            assert claims.check_claim(row) == [], (key, row.quantity)
    assert len(table.rows) == sum(len(v) for v in ex.CLAIMS.values())


def test_keys_and_order_match_the_faithful_table(evaluated):
    table, _ = evaluated
    faithful = pd.read_csv(DATA / "05-stream.csv", keep_default_na=False)
    assert [r.key[1:] for r in table.rows] == list(zip(faithful["item"], faithful["quantity"]))
    fixed = faithful.set_index(["item", "quantity"])
    for r in table.rows:  # what the paper says does not depend on the run
        row = fixed.loc[(r.item, r.quantity)]
        assert (r.kind, r.basis, r.section) == (row["kind"], row["basis"], row["section"])


def test_queueing_rows_are_the_stable_rates():
    qc = ex.queueing_check(seeds=(0, 1), n_jobs=30, arrival_rates=ex.QUEUEING_RATES)
    assert qc.loc[qc["stable"], "arrival_rate"].tolist() == list(ex.QUEUEING_RATES[:3])


def test_settings_presets_name_the_same_sizes():
    quick, faithful = ex.SETTINGS["quick"], ex.SETTINGS["faithful"]
    assert set(faithful) <= set(quick)
    assert set(quick) - set(faithful) == {"n_jobs", "n_seeds", "n_seeds_example2"}
