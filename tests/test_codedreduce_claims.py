"""Notebook 01's claims evaluated from their specs on small frames, without papermill: every
spec of ``experiments.codedreduce.CLAIMS`` adds one checked row, and the specs declare the
committed faithful rows' keys in the same order."""

import csv
from pathlib import Path

import pytest

from codedlib.claims import ClaimsTable, evaluate
from codedlib.experiments import codedreduce as ex
from codedlib.network import Network
from codedlib.replicate import over_seeds
from codedlib.schemes.codedreduce import TimingModel

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def results():
    network = Network.from_message_time(0.05, 120_000, 3e-4)
    model = TimingModel(a=5e-5, mu=1.0 / 5e-5, network=network)
    seeds = [1, 2]
    net, clock, _ = ex.clock_texts(network, 5e-5, 1.0, 0.05, 120_000)
    ex2 = ex.example2_codedreduce(d=15, rng=0)
    m2 = ex.figure_model("fig2", model)
    # one small convergence run stands in for every figure: the specs read its frames only
    conv10 = ex.convergence_over_seeds(
        "fig10", model=model, n_iterations=5, quick=True, seeds=seeds
    )
    sweep = ex.model_speedup_range(
        ex.RANGE_SETTINGS,
        bandwidths=(1.25e7,),
        latencies=(3e-4,),
        a_mus=(1.0,),
        straggle_delays=(0.0,),
        n_iterations=3,
    )
    f2 = ex.fig2_summary(over_seeds(ex.fig2_measure, seeds, model=m2, n_iterations=10))
    strag = TimingModel(a=m2.a, mu=m2.mu, network=network, straggle_prob=0.02)
    return dict(
        seed=0,
        seeds=seeds,
        CLOCK=clock,
        NET=net,
        STRAG="straggler regime: q = 0.02 (assumed), D = 0.5 s (calibrated: CR/RAR = 4.3× in Fig. 2)",
        model=model,
        latency=network.latency,
        iterations=10,
        replicas=20,
        ex1=ex.example1_gc(rng=0),
        ex2=ex2,
        outcome=ex.remark3_outcome(ex2.allocation),
        claim7=ex.seven_times_claim(0.5),
        t1=ex.table1(N=156, n=12, L=2, s=3),
        thm2=ex.theorem2_check(ns=(8, 16, 32, 64), model=model, n_iterations=20, rng=0),
        net_table=ex.cr_rar_network_table(model, n_iterations=5, rng=0),
        ranges=ex.speedup_range_summary(sweep),
        regimes=ex.regime_table(model, 5, 0),
        f2=f2,
        f2s=ex.fig2_summary(over_seeds(ex.fig2_measure, seeds, model=strag, n_iterations=10)),
        D_cal=0.5,
        conv={name: conv10 for name in ex.FIGURE_SETTINGS},
        coded_runs={
            f: ex.coded_gradient_descent(f, n_iterations=3, model=model, quick=True, rng=0)
            for f in ("fig8", "fig10")
        },
        eq6=ex.fig2_summary(
            over_seeds(ex.fig2_measure, seeds, tree=(12, 2, 5, 49920), n_iterations=5)
        ).summary,
        complexity=ex.gradient_complexity(conv10, seeds[0]),
    )


@pytest.mark.parametrize("section", list(ex.CLAIMS))
def test_every_spec_adds_one_checked_row(section, results):
    table = ClaimsTable("01-codedreduce", paper="codedreduce", quick=True)
    specs = ex.CLAIMS[section]
    rows = evaluate(table, specs, **results)  # each row passes check_claim as it is added
    assert [(r.item, r.quantity) for r in rows] == [(s.item, s.quantity) for s in specs]
    assert len(table.to_frame()) == len(specs)
    assert all(r.verdict for r in rows)


def test_speed_table_pairs_rows_with_figures(results):
    table = ClaimsTable("01-codedreduce", paper="codedreduce", quick=True)
    rows = evaluate(table, ex.CLAIMS["speedups"], **results)
    speed = ex.speed_table(results["f2"], rows)
    assert len(speed) == 3 + len(ex.SPEEDUP_KEYS)
    assert speed["figure"].iloc[3] == "fig8" and speed["scheme"].iloc[3] == "UMW"


def test_specs_declare_the_committed_rows_in_order():
    with open(ROOT / "data" / "claims" / "01-codedreduce.csv", newline="") as f:
        committed = [(r["item"], r["quantity"]) for r in csv.DictReader(f)]
    declared = [(s.item, s.quantity) for specs in ex.CLAIMS.values() for s in specs]
    assert declared == committed[: len(declared)]
    # the rest is the real-run section's machine-dependent rows (runtime/notebook.py)
    assert len(committed) - len(declared) <= 2
