"""The claims of notebook 00-stragglers, evaluated on small frames without papermill."""

import pandas as pd
import pytest

from codedlib.claims import VERDICTS, ClaimsTable, check_claim, evaluate
from codedlib.experiments import stragglers as ex
from codedlib.latency.models import pareto, shifted_exponential
from codedlib.replicate import over_seeds

SEEDS = [0, 1, 2]


@pytest.fixture(scope="module")
def results():
    models = ex.standard_models()
    hetero_cluster = ex.demo_cluster(20, spread=1.0, cv=0.05)
    bursts = ex.bursty_path(n_workers=36, n_iterations=200, rng=0)
    grid = ex.grid_summary(
        {
            "exponential": ex.order_statistic_comparison(
                shifted_exponential(0.0, 1.0), 6, replicas=2_000, rng=0
            ),
            "Pareto xi=2": ex.order_statistic_comparison(
                pareto(1.0, 2.0), 6, replicas=2_000, rng=1
            ),
        }
    )
    return {
        "models": models,
        "cr": ex.codedreduce_conventions(),
        "ks_tests": over_seeds(
            ex.ecdf_ks, range(5), executor=1, cluster=ex.demo_cluster(12), n_samples=2000
        ),
        "bursts": bursts,
        "paths": over_seeds(ex.burst_stats, SEEDS, executor=1, n_workers=36, n_iterations=200),
        "consistency": ex.burst_consistency(),
        "run_needed": ex.burst_run_needed(),
        "burst_workers": 36,
        "burst_iterations": 200,
        "known": ex.known_values_table(replicas=2_000, rng=0),
        "reference_mc": ex.reference_monte_carlo(SEEDS, 2_000, executor=1),
        "replicas": 2_000,
        "grid": grid,
        "n_grid": 6,
        "finite_k": ex.finite_means(),
        "hetero": ex.non_identical_comparison(hetero_cluster, replicas=2_000, rng=0),
        "mild": ex.non_identical_comparison(ex.demo_cluster(20, 0.4, 0.2), replicas=500, rng=0),
        "hetero_mc": over_seeds(
            ex.monte_carlo_means,
            SEEDS,
            executor=1,
            dist_or_cluster=hetero_cluster,
            ks=[10, 20],
            replicas=2_000,
        ),
        "rs": ex.rs_finite_n(),
        "factors": ex.rs_appendix_factors(),
        "cost": ex.cost_of_waiting(
            models, n=10, ks=ex.cost_ks(10)[0], cluster=ex.demo_cluster(10, 0.4, 0.2)
        ),
    }


@pytest.mark.parametrize("section", list(ex.CLAIMS))
def test_every_spec_adds_a_checked_row(section, results):
    table = ClaimsTable("00-stragglers", paper="common", quick=True)
    specs = ex.CLAIMS[section]
    rows = evaluate(table, specs, **results)
    assert [(r.item, r.quantity) for r in rows] == [(s.item, s.quantity) for s in specs]
    assert len(table.rows) == len(specs)
    for row in rows:
        assert row.verdict in VERDICTS and not check_claim(row)


def test_claim_keys_match_the_committed_faithful_claims():
    faithful = pd.read_csv("data/claims/00-stragglers.csv")
    keys = [(s.item, s.quantity) for specs in ex.CLAIMS.values() for s in specs]
    assert keys == list(zip(faithful["item"], faithful["quantity"]))


def test_settings_presets_share_their_keys():
    assert set(ex.SETTINGS["quick"]) == set(ex.SETTINGS["faithful"])
    assert ex.SETTINGS["quick"]["replicas"] < ex.SETTINGS["faithful"]["replicas"]
