"""Notebook 03's claims (``ex.CLAIMS``) evaluated on small frames, without papermill: every
spec adds one row, checked as it is added (issue 24)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from codedlib.claims import ClaimsTable, check_claim, evaluate
from codedlib.experiments import dsag as ex

SEEDS = [0, 1, 2]


def _runs(methods, rates, n_workers, time_limit=1.0):
    """Synthetic Fig. 8 runs: per seed and method, a gap falling geometrically in time."""
    rows = []
    for s in SEEDS:
        for m in methods:
            rate = rates.get(m, 5.0) * (1 + 0.05 * s)
            for it in range(1, 41):
                t = it * time_limit / 40
                rows.append(
                    dict(
                        seed=s,
                        method=m,
                        iteration=it,
                        time=t,
                        gap=10 ** (-rate * t * 3),
                        n_fresh=10 + (m.startswith("DSAG-LB")),
                        total_subpartitions=100.0,
                    )
                )
    df = pd.DataFrame(rows)
    df.attrs.update(n_workers=n_workers)
    return df


def _problems():
    labels = [m[0] for m in ex.fig8_methods(49, 10)]
    rates = {"DSAG w=10": 6.0, "SAG w=49": 5.0, "DSAG-LB w=10": 6.5, "GD": 2.0, "SGD w=10": 0.5}
    rates |= {"SAG w=10": 0.5, "SAG-LB w=10": 0.6}
    out = {}
    for problem, gaps in (("PCA", ex.PCA_GAPS), ("log. reg.", ex.LOG_GAPS)):
        df = _runs(labels, rates, 49)
        out[problem] = (df, ex.time_to_gap_per_seed(df, gaps), f"{problem} setting", 1.0)
    return out


def _trace():
    models = [
        "injected",
        "order statistic (injected)",
        "injected, shuffled",
        "gamma fit (long draw)",
        "gamma fit (trace, queueing as latency)",
        "gamma fit (trace)",
        "order statistic (trace fit)",
    ]
    band = pd.DataFrame(
        {"mean": np.linspace(0.8, 1.2, 7), "low": np.linspace(0.7, 1.1, 7)},
        index=pd.Index(models, name="model"),
    )
    band["high"] = band["mean"] + 0.1
    halves = [
        "fit on the first half / second half recorded",
        "fit on the second half / first half recorded",
    ]
    split = pd.DataFrame({"model": np.repeat(halves, 20), "ratio": np.linspace(0.9, 1.3, 40)})
    tp = SimpleNamespace(
        n_iterations=40,
        replay=1.1,
        recorded=1.0,
        queued_share=0.3,
        queue_wait_mean=4e-3,
        split_half=split,
    )
    return dict(tp=tp, band=band, band_ratio=band / tp.recorded)


def _results():
    problems = _problems()
    aws_labels = [m[0] for m in ex.aws_methods(10)]
    aws_rates = {"DSAG w=10": 6.0, "SAG w=100": 5.0, "DSAG-LB w=20": 7.0, "GD": 2.0}
    aws_ps = {
        kind: ex.time_to_gap_per_seed(_runs(aws_labels, aws_rates, 100), ex.PCA_GAPS)
        for kind in ("pca", "logistic")
    }
    noise_table = pd.DataFrame(
        {
            "comp_cv": [0.005, 0.02],
            "schedule": ["every 0.05 s, no run time"] * 2,
            "LB / DSAG": [0.8, 0.95],
            "ci low": [0.7, 0.85],
            "ci high": [0.9, 1.05],
            "seeds": [3, 3],
            "censored": [0, 1],
            "LB slower in": [0, 1],
            "DSAG iterations": [400.0, 420.0],
        }
    )
    return dict(
        fig1=SimpleNamespace(
            average=pd.DataFrame({"load": [1.0, 4.0], "mean": [1.0, 4.0], "var": [1.0, 16.0]})
        ),
        fig23=SimpleNamespace(slower_by=0.1),
        fig4_seeds=pd.DataFrame({"any_burst_fraction": [0.38, 0.42, 0.40]}),
        ks_summary=pd.DataFrame(
            {"median_ks": [0.1, 0.3], "rejected": [0, 10], "workers": [12, 12]},
            index=["comm_time", "compute_time"],
        ),
        trace_checks={"t": pd.Series({"heterogeneous_max": 0.01, "iid_max": 0.05})},
        fig5_err=pd.DataFrame(
            {"iid_max": [0.1, 0.2, 0.15], "heterogeneous_max": [0.01, 0.02, 0.01]}
        ),
        setting="stand-in",
        ends6=pd.DataFrame(
            {
                "w": [9, 9, 72, 72],
                "recorded": [2.0, 2.1, 3.0, 3.1],
                "order_statistic": [1.5, 1.6, 3.0, 3.1],
                "event_driven_ratio": [1.0, 1.01, 1.0, 1.0],
                "order_statistic_ratio": [0.75, 0.76, 1.0, 1.01],
            }
        ),
        ms=np.array([1.0, 1.2, 1.1]),
        summary="ours and the authors' agree",
        margin=0.02,
        replicas=5,
        seeds=SEEDS,
        **ex.paper_examples(),
        fig7_last=pd.DataFrame({"not_balanced": [2.0, 2.1], "load_balanced": [1.0, 1.05]}),
        problems=problems,
        lb_rows=ex.lb_decompositions(problems, 10),
        noise_table=noise_table,
        sweep=ex.LB_SWEEP["quick"],
        seed=0,
        n_workers=49,
        sgd=dict(
            slope=-0.5,
            intercept=0.0,
            paper_rows=16587.0,
            n_runs=4,
            floor_at_paper=8e-3,
            rows_for_1e3=1e6,
        ),
        rows=(2, 8),
        sgd_seeds=[0],
        pca_size=ex.SETTINGS["quick"]["pca"],
        aws_ps=aws_ps,
        aws_sizes=ex.SETTINGS["quick"]["aws"],
        aws_setting="AWS-like stand-in, Table I means (calibrated)",
    )


@pytest.fixture(scope="module")
def results():
    return _results()


@pytest.mark.parametrize("section", sorted(ex.CLAIMS) + ["fig6 trace"])
def test_every_spec_adds_one_checked_row(section, results):
    table = ClaimsTable("03-dsag", paper="dsag", quick=True)
    if section == "fig6 trace":
        specs, extra = ex.CLAIMS["fig6 steady"], _trace()
    else:
        specs, extra = ex.CLAIMS[section], (_trace() if section.startswith("fig6 ") else {})
    rows = evaluate(table, specs, **{**results, **extra})
    assert len(rows) == len(specs) == len(table.rows)
    assert [(r.item, r.quantity) for r in rows] == [(s.item, s.quantity) for s in specs]
    for r in rows:
        assert not check_claim(r), (r.quantity, check_claim(r))
        assert r.section and (r.reason or r.verdict.startswith("reproduced"))


def test_claim_keys_are_unique_and_follow_w():
    keys = [(s.item, s.quantity) for specs in ex.CLAIMS.values() for s in specs]
    assert len(keys) == len(set(keys)) == 66
    other = ex.claim_specs(w=12, n_workers=50)
    assert other["fig8"][0].quantity == "time to gap 0.0001: DSAG w=12 / SAG w=N"


def test_run_seeds_and_settings():
    assert ex.run_seeds(3, 5, ex.SETTINGS["quick"]) == [3, 4]
    assert ex.run_seeds(0, 3, ex.SETTINGS["faithful"]) == [0, 1, 2, 3, 4]
    assert ex.run_seeds(0, 7, ex.SETTINGS["faithful"]) == list(range(7))
    assert set(ex.SETTINGS["quick"]) == set(ex.SETTINGS["faithful"])


def test_settings_fill_the_faithful_subpartitions_from_the_parameters():
    f = ex.settings("faithful")  # the parameters' defaults: the paper's p = 100 / 10
    for sizes in (f, f["aws"]):
        assert sizes["pca"]["n_subpartitions"] == 100
        assert sizes["logistic"]["n_subpartitions"] == 10
    g = ex.settings("faithful", pca_subpartitions=50, logreg_subpartitions=5)
    assert g["pca"]["n_subpartitions"] == g["aws"]["pca"]["n_subpartitions"] == 50
    assert g["logistic"]["n_subpartitions"] == g["aws"]["logistic"]["n_subpartitions"] == 5
    assert ex.SETTINGS["faithful"]["pca"]["n_subpartitions"] is None  # the preset is not changed
    assert ex.settings("quick", 50, 5)["pca"] == ex.SETTINGS["quick"]["pca"]  # quick sizes stay
