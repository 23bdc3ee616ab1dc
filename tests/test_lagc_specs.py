"""Notebook 04's claims as specs (``experiments.lagc.CLAIMS``), evaluated on small frames.

No papermill: each section's specs run on synthetic results shaped like the notebook's, and
every spec must add one checked row, in order, with its declared item and quantity.
"""

import numpy as np
import pandas as pd
import pytest

from codedlib import claims
from codedlib.experiments import lagc as ex


@pytest.fixture(scope="module")
def nb():
    return ex.Notebook(ex.SETTINGS["quick"], grid_seeds=2)


@pytest.fixture(scope="module")
def summary(nb):
    """Per (seed, delay, rule, scheme): the columns the specs read, with the layouts' fixed loads."""
    gen = np.random.default_rng(0)
    n, r = nb.n_workers, nb.redundancy
    msgs = {"GD": 2 * n, "GC": 2 * n - r + 1, "G-GD": n + n // r}
    grads = {"GD": n, "GC": r * n, "G-GD": r * n}
    base = {"GD": 2.0, "GC": 2.2, "G-GD": 1.5}
    rows = []
    for seed in range(nb.n_seeds):
        for dname in nb.delays:
            for rule in ex.RULES:
                for label, scheme, _ in nb.configs:
                    lazy = scheme in ("lag", "g-lag", "lagc")
                    it = 100.0 * (1.5 if lazy and rule == "theory" else 1.0) + (seed if lazy else 0)
                    formula = base.get(label, 1.0 + 0.1 * gen.random())
                    tpi = formula * (1 + 0.01 * gen.standard_normal())
                    rows.append(
                        {
                            "seed": seed,
                            "delay": dname,
                            "rule": rule,
                            "scheme": label,
                            "lazy": lazy,
                            "iterations": it,
                            "iter_bound": 3 * it,
                            "time": it * tpi,
                            "communication": it * msgs.get(label, n * (0.5 + 0.1 * gen.random())),
                            "computation": it * grads.get(label, n * (0.5 + 0.1 * gen.random())),
                            "time_per_iter": tpi,
                            "time_per_iter_formula": formula,
                            "messages_per_iter": msgs.get(label, n * (0.5 + 0.1 * gen.random())),
                            "gradients_per_iter": grads.get(label, n * (0.5 + 0.1 * gen.random())),
                            "active_fraction": 0.5 if lazy else 1.0,
                            "selection_bound": 0.9 if lazy else np.nan,
                            "eq25_respected": True,
                            "table2_time": 4 * it * tpi,
                            "table2_communication": 1e9,
                            "table2_computation": 1e9,
                        }
                    )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def grid(nb):
    rows = []
    for seed in range(nb.grid_seeds):
        for dname in nb.delays:
            for xi_ in nb.grid_xi:
                for d in nb.grid_d:
                    for rule in ex.RULES:
                        f = 1 / (1 - np.sqrt(d * xi_))
                        rows.append(
                            {
                                "seed": seed,
                                "delay": dname,
                                "xi": xi_,
                                "history": d,
                                "sqrt_d_xi": np.sqrt(d * xi_),
                                "rule": rule,
                                "iterations": 10 * f,
                                "ggd_iterations": 10,
                                "active_fraction": 0.6,
                                "time": 12 * f + seed,
                                "ggd_time": 10.0,
                                "sim_ratio": 1.2 * f,
                                "sim_iteration_factor": f,
                                "iter_bound": 40 * f,
                                "bound_time": 60 * f + 10,
                                "selection_bound": 0.9,
                                "iteration_factor": f,
                                "bound_ratio": 1.5 * f,
                            }
                        )
    return pd.DataFrame(rows)


def _check(table, specs, **results):
    rows = claims.evaluate(table, specs, **results)
    assert [(r.item, r.quantity) for r in rows] == [(s.item, s.quantity) for s in specs]
    assert all(r.verdict in claims.VERDICTS for r in rows)
    return rows


def test_every_section_adds_one_checked_row_per_spec(nb, summary, grid):
    table = claims.ClaimsTable("04-lagc", paper="lagc", quick=True)
    _check(table, ex.CLAIMS["sec2"](nb), layouts=ex.storage_layouts())
    loads = pd.concat(
        {"GC (r=2)": pd.DataFrame({"downloads": [3], "uploads": [2], "computation": [6]})}, axis=1
    )
    remark2 = pd.DataFrame(
        {
            "pair": list(ex.REMARK2_PAIRS),
            "max |iterate difference|": [0.0, 0.0],
            "same times": [True, True],
            "same loads": [True, True],
            "same selections": [False, True],
        }
    )
    rows = _check(table, ex.CLAIMS["remark2"](nb), remark2=remark2, loads=loads)
    assert all(r.verdict == "reproduced" for r in rows)
    eq28 = pd.DataFrame(
        {
            "quantity": [s.quantity for s in ex.CLAIMS["sec3"](nb)],
            "eq. (28) numeric": [s.fixed["paper"] for s in ex.CLAIMS["sec3"](nb)],
        }
    )
    assert all(r.verdict == "reproduced" for r in _check(table, ex.CLAIMS["sec3"](nb), eq28=eq28))
    _check(table, ex.CLAIMS["sec5"](nb))
    for key in ("table1", "robustness", "time_per_iter", "eq28", "selection", "table2"):
        _check(table, ex.CLAIMS[key](nb), summary=summary)
    sweep = ex.gc_gd_beta_sweep(nb.n_workers, nb.redundancy, n_seeds=3, replicas=2000, rng=0)
    _check(table, ex.CLAIMS["beta"](nb), sweep=sweep)
    rows = _check(table, ex.CLAIMS["conclusion"](nb), summary=summary)
    outcomes = dict(zip(ex.conclusion_keys(nb), rows))
    assert ex.conclusion_text(nb, outcomes).count("G-LAG /") == len(rows)
    _check(table, ex.CLAIMS["computation"](nb), summary=summary)
    _check(table, ex.CLAIMS["best"](nb), summary=summary, outcomes=outcomes)
    curves_r = pd.DataFrame(
        {
            "delay": [d for d in nb.delays for _ in range(3)],
            "redundancy": nb.redundancy,
            "scheme": ["GD", "G-LAG", "G-GD"] * 2,
            "time": [3.0, 1.0, 2.0] * 2,
            "communication": [3.0, 1.0, 2.0] * 2,
        }
    )
    (rank,) = _check(table, ex.CLAIMS["sec8"](nb)[:1], curves_r=curves_r, summary=summary)
    assert "rank 1 of 3" in rank.our_text
    _check(table, ex.CLAIMS["sec8"](nb)[1:])
    rows = _check(
        table,
        ex.CLAIMS["sec9"](nb),
        grid=grid,
        grid_summary=ex.bound_grid_summary(grid),
        spread=3.0,
    )
    assert rows[0].our_text == "True" and rows[1].our_text == "True"
    assert len(table.rows) == sum(len(f(nb)) for f in ex.CLAIMS.values())


def test_quick_preset_overrides_the_parameters():
    quick = ex.Notebook(ex.SETTINGS["quick"], n_seeds=8, dim=20)
    faithful = ex.Notebook(ex.SETTINGS["faithful"], n_seeds=8, dim=20)
    assert (quick.n_seeds, quick.dim, faithful.n_seeds, faithful.dim) == (3, 8, 8, 20)
    assert quick.grid_d == (1, 10) and faithful.grid_d == (1, 2, 5, 10)
    assert "N=12 partitions × 20 samples" in quick.data and quick.title("grid").startswith(
        "Issue 13"
    )
