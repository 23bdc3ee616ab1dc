"""Fig. 2 simulation: five schemes on one clock with the same Pareto delays."""

import numpy as np
import pytest

from codedlib.problems import SoftmaxRegression, digits_multiclass, even_partition
from codedlib.schemes.reed_solomon import (
    SchemeSpec,
    chunk_gradient_function,
    fig2_schemes,
    pareto_delays,
    simulate_schemes,
)
from codedlib.theory.reed_solomon import expected_iteration_time


@pytest.fixture(scope="module")
def small_problem():
    data = digits_multiclass()
    X, y = data.X[:300], data.y[:300]
    return SoftmaxRegression(X, y, 10, lam=1e-3), data.X_test[:100], data.y_test[:100]


def test_chunk_gradients_vectorised_path_matches_partial_gradient(small_problem):
    prob, _, _ = small_problem
    theta = np.random.default_rng(0).standard_normal(prob.dim) * 0.1
    bounds = even_partition(prob.n_samples, 13)
    fast = chunk_gradient_function(prob, bounds)(theta)
    slow = np.stack([prob.partial_gradient(theta, bounds[j], bounds[j + 1]) for j in range(13)])
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        fast.sum(axis=0), prob.n_samples * prob.gradient(theta), rtol=1e-12, atol=1e-10
    )


def test_coded_schemes_follow_the_exact_gradient_path(small_problem):
    """Coded-RS, Coded-MDS and uncoded-all compute the same iterates; only the clock differs."""
    prob, Xt, yt = small_problem
    n = 12
    schemes = fig2_schemes(n, f_rs=9, f_mds=5)
    df = simulate_schemes(prob, Xt, yt, schemes, n=n, time_budget=0.3, rng=1)
    by = {name: g.set_index("iteration") for name, g in df.groupby("scheme")}
    ref = by[f"Uncoded (all {n})"]
    for name in ("Coded-RS", "Coded-MDS"):
        common = ref.index.intersection(by[name].index)
        assert len(common) > 3
        np.testing.assert_allclose(
            by[name].loc[common, "train_loss"], ref.loc[common, "train_loss"], rtol=1e-9
        )
        assert by[name]["decode_error"].max() < 1e-9
    assert by["Coded-RS"]["imag"].max() < 1e-9
    # ignoring stragglers does not follow the exact path
    ign = by["Uncoded (f_MDS=5)"]
    assert ign["decode_error"].iloc[1:].min() > 1e-3
    # waiting for fewer workers buys more iterations within the same time
    assert len(by["Uncoded (f_MDS=5)"]) > len(by["Uncoded (f_RS=9)"]) >= len(ref)
    assert df.groupby("scheme")["time"].max().max() <= 0.3
    assert not df.isna().any().any()


def test_clock_uses_shared_delays_and_eq17_costs(small_problem):
    prob, Xt, yt = small_problem
    n, t0, xi, cg_N, c_m = 10, 0.001, 1.1, 0.035, 1e-6
    delays = pareto_delays(400, n, t0, xi, rng=5)
    schemes = [
        SchemeSpec("rs", "rs", 7),
        SchemeSpec("mds", "mds", 4),
        SchemeSpec("ign", "uncoded", 4),
    ]
    df = simulate_schemes(
        prob, Xt, yt, schemes, n=n, t0=t0, xi=xi, cg_N=cg_N, c_m=c_m, time_budget=1.0, delays=delays
    )
    srt = np.sort(delays, axis=1)
    expected_extra = {
        "rs": cg_N * 4 / n + c_m * 7 * 6,
        "mds": cg_N * 7 / n + c_m * 4**3,
        "ign": cg_N / n,
    }
    for spec in schemes:
        g = df[(df.scheme == spec.name) & (df.iteration > 0)]
        its = g["iteration"].to_numpy() - 1
        np.testing.assert_allclose(
            g["iteration_time"], srt[its, spec.wait - 1] + expected_extra[spec.name]
        )
        np.testing.assert_allclose(g["time"], np.cumsum(g["iteration_time"]))


def test_mean_iteration_time_matches_eq17():
    """Average simulated iteration time vs the exact eq. (17) (simulation against closed form)."""
    n, t0, xi, cg_N, c_m = 80, 0.001, 1.1, 0.035, 1e-9
    delays = pareto_delays(100_000, n, t0, xi, rng=3)
    srt = np.sort(delays, axis=1)
    for f, dec in ((68, "rs"), (33, "mds")):
        spec = SchemeSpec("x", dec, f)
        sim = srt[:, f - 1] + cg_N * spec.load(n) + c_m * (f * (f - 1) if dec == "rs" else f**3)
        exact = expected_iteration_time(f, n, t0, xi, cg_N, c_m, dec)
        assert abs(sim.mean() - exact) < 5 * sim.std() / np.sqrt(sim.size)


def test_bad_inputs(small_problem):
    prob, Xt, yt = small_problem
    with pytest.raises(ValueError, match="f_rs must satisfy 1 <= f_rs <= 78"):
        fig2_schemes(80, 79, 33)
    with pytest.raises(ValueError, match=r"xi must satisfy xi > 1/\(n-f\+1\)"):
        simulate_schemes(prob, Xt, yt, [SchemeSpec("rs", "rs", 10)], n=10, xi=0.5)
    with pytest.raises(ValueError, match="delays must have shape"):
        simulate_schemes(prob, Xt, yt, fig2_schemes(10, 7, 4), n=10, delays=np.ones((5, 3)))
    with pytest.raises(ValueError, match="time_budget must satisfy"):
        simulate_schemes(prob, Xt, yt, fig2_schemes(10, 7, 4), n=10, time_budget=0)
