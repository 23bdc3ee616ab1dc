"""Notebook 02's claims, evaluated on their specs and small results without papermill."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from codedlib.claims import ClaimsTable, check_claim, evaluate, read_claims
from codedlib.experiments import reed_solomon as ex

FAITHFUL = Path(__file__).resolve().parents[1] / "data" / "claims" / "02-reed-solomon.csv"
PARAMS = dict(n=80, t0=0.001, xi=1.1, cg_N=0.035, f_rs=68, f_mds=33, time_budget=5.0)
PARAMS.update(fig2_seeds=10, decode_repeats=7, lam=1e-4, regime_seeds=5, seed=0)


@pytest.fixture(scope="module")
def P():
    P = ex.setup(ex.SETTINGS["quick"], c_m=None, **PARAMS)
    sizes = dict(P.sizes, rows_sets=10, n_random=2, mc_replicas=300, heavy_replicas=200)
    return SimpleNamespace(**vars(P) | {"sizes": sizes, "accuracy_ns": (10, 30, 80)})


def _check(specs, **results):
    table = ClaimsTable("02-reed-solomon", paper="reed-solomon", quick=True)
    rows = evaluate(table, specs, **results)
    assert [(r.item, r.quantity) for r in rows] == [(s.item, s.quantity) for s in specs]
    assert table.rows == rows
    for r in rows:
        assert check_claim(r) == [], (r.quantity, check_claim(r))
        assert r.verdict and r.section
    return rows


def test_claims_keys_match_the_faithful_table():
    keys = [(s.item, s.quantity) for specs in ex.CLAIMS.values() for s in specs]
    assert keys == [(r.item, r.quantity) for r in read_claims(FAITHFUL)]


def test_setup_caps_quick_sizes_and_calibrates_c_m(P):
    assert (P.time_budget, P.fig2_seeds, P.decode_repeats) == (0.4, 2, 3)
    lo, hi = P.c_m_window
    assert P.c_m_calibrated and lo <= P.c_m <= hi and not P.changed
    faithful = ex.setup(ex.SETTINGS["faithful"], c_m=1e-9, **PARAMS)
    assert (faithful.time_budget, faithful.fig2_seeds) == (5.0, 10)
    assert faithful.c_m_text == "c_m = 1e-09 s/FLOP (chosen)"
    assert 80 in faithful.accuracy_ns


def test_masks_and_encoding_rows(P):
    rows = _check(P.claims["sec1"], **ex.run_masks())
    assert all(r.verdict == "reproduced" for r in rows)
    results = dict(
        ex.run_encoding(SimpleNamespace(**vars(P) | {"sizes": dict(P.sizes, rows_sets=5)}))
    )
    results["exhaustive"] = ex.any_f_rows_exhaustive(8, 4, 3)  # small stand-in for 16, 8, 3
    rows = _check(P.claims["sec2"], **results)
    assert [r.our_text for r in rows[1:]] == ["True", "True", "True"]


def test_decoding_cost_rows_are_machine_dependent(P):
    largest = pd.DataFrame(
        {
            "f": 100,
            "n": 118,
            "root_power": 31,
            "alg3_seconds": [1.0, 1.1, 0.9],
            "lstsq_seconds": [30.0, 28.0, 33.0],
            "lu_seconds": [5.0, 6.0, 5.5],
            "alg3_residual": 1e-14,
            "lstsq_residual": 1e-14,
            "paper_root_residual": 0.4,
        }
    )
    lu, speed = _check(P.claims["sec3"], largest=largest, f_max=100)
    assert lu.machine_dependent and speed.machine_dependent and speed.outcome == "greater"
    assert "SVD" in speed.setting and "α = exp(2πi·31/n)" in speed.setting


def test_accuracy_delay_fig3_and_workers_rows(P):
    (acc,) = _check(P.claims["sec3b"], **ex.run_accuracy(P))
    assert acc.verdict == "partly" and "residual_tol" in acc.reason
    mc, limit, approx = _check(P.claims["sec4"], **ex.run_delay_model(P))
    assert mc.basis == "check" and limit.verdict == "reproduced"
    closed, numeric, caption = _check(P.claims["sec5"], **ex.run_fig3(P))
    assert closed.verdict == numeric.verdict == "reproduced"
    assert caption.verdict == "paper erratum"
    f_rs, f_mds = _check(P.claims["sec6"], **ex.run_workers_choice(P))
    assert f_rs.verdict == "reproduced" and f_mds.verdict == "calibrated"


def test_fig2_rows_on_a_small_run():
    small = dict(PARAMS, n=10, f_rs=8, f_mds=4, time_budget=0.1, fig2_seeds=3, seed=1)
    P = ex.setup(ex.SETTINGS["quick"], c_m=1e-9, **small)
    fig2 = ex.fig2_experiment(n=10, f_rs=8, f_mds=4, time_budget=0.1, n_seeds=3, seed=1)
    results = ex.run_fig2(P, fig2)
    wide = results["wide"]["test_error"]  # seed × scheme, schemes in run order
    assert list(wide.columns)[:2] == ["Coded-RS", "Coded-MDS"] and list(wide.index) == [0, 1, 2]
    _check(P.claims["fig2_times"], **results)
    rows = _check(P.claims["fig2"], **results)
    assert len(rows) == 8 and {r.kind for r in rows} == {"comparison"}
    (verdict,) = _check(P.claims["fig2_verdict"], fig2_rows=rows, **results)
    assert verdict.headline and verdict.verdict in ("reproduced", "partly", "not reproduced")
    assert verdict.verdict == "reproduced" or verdict.reason


def test_regime_rows_on_synthetic_metrics(P):
    rng = np.random.default_rng(0)
    frames = []
    for i, regime in enumerate(ex.STRAGGLER_REGIMES):
        rs = 0.1 + 0.01 * rng.random(4)
        # ignoring stragglers hurts only in our regimes
        ratio = np.array([1.05, 0.95, 1.02, 0.98]) if i == 0 else 2.0
        for scheme, err in (("Coded-RS", rs), ("Uncoded (f_RS=68)", rs * ratio)):
            frames.append(
                pd.DataFrame(
                    {"seed": range(4), "scheme": scheme, "test_error": err, "regime": regime}
                )
            )
    results = ex.run_regimes(P, "stand-in: digits; more", pd.concat(frames, ignore_index=True))
    rows = _check(P.claims["sec7b"], **results)
    assert [r.outcome for r in rows] == ["indistinguishable", "greater", "greater", "greater"]
    (merged,) = _check(P.claims["sec7b_verdict"], **results)
    assert merged.verdict == "partly" and merged.basis == "paper"
