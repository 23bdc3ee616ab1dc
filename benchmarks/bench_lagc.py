"""Benchmark: per-iteration simulation cost of each LAGC-paper scheme (codedlib.schemes.lagc).

Runs every scheme for a fixed number of iterations on the notebook's problem (N=12, r=3) with
shared delays and prints microseconds per iteration and the ratio to GD, plus the cost of one
eq. 28 evaluation (numeric) against a Monte Carlo estimate of the same mean with comparable
accuracy. Run: ``.venv/bin/python benchmarks/bench_lagc.py`` (well under a minute).
"""

from __future__ import annotations

import time
from functools import partial

from _timing import best_time

from codedlib.experiments import lagc as ex
from codedlib.latency.order_stats import order_statistic_monte_carlo
from codedlib.schemes.lagc import DelayStream, run_scheme
from codedlib.theory import lagc as th

N, R, ITERATIONS, REPLICAS = 12, 3, 400, 20


def per_iteration_cost():
    problem = ex.heterogeneous_regression(N, 50, 20, rng=0)
    delay = ex.make_delay("pareto", shape=2.0)
    alpha = 1.0 / (problem.n_samples * problem.smoothness())
    rows = []
    for label, scheme, groups in ex.default_configs(N, R):
        delays = DelayStream(delay, N, REPLICAS, rng=0)
        run = partial(
            run_scheme,
            scheme,
            problem,
            N,
            R,
            groups,
            delays=delays,
            xi=0.05,
            history=10,
            stepsize=alpha,
            max_iter=ITERATIONS,
        )
        best = best_time(run)
        rows.append((label, 1e6 * best / ITERATIONS))
    return rows


def eq28_cost():
    delay = ex.make_delay("pareto", shape=2.0)
    t0 = time.perf_counter()
    value = th.expected_iteration_time("g-gd", N, R, N // R, delay)
    t_numeric = time.perf_counter() - t0
    group = th.group_completion_time(delay, R, 1, load=R)
    t0 = time.perf_counter()
    mc = order_statistic_monte_carlo(group, N // R, N // R, replicas=200_000, rng=0)
    t_mc = time.perf_counter() - t0
    return value, t_numeric, mc, t_mc


def main():
    rows = per_iteration_cost()
    base = rows[0][1]
    print(
        f"Per-iteration simulation cost, N={N}, r={R}, {REPLICAS} delay replicas, "
        f"{ITERATIONS} iterations (best of 3)"
    )
    print(f"{'scheme':<12}{'us/iter':>10}{'ratio to GD':>14}")
    for label, us in rows:
        print(f"{label:<12}{us:>10.1f}{us / base:>14.2f}")
    value, t_numeric, mc, t_mc = eq28_cost()
    print(
        f"\neq. 28 (G-GD, Pareto shape 2): numeric {value:.5f} in {1e3 * t_numeric:.1f} ms; "
        f"Monte Carlo {mc.mean:.5f} ± {mc.stderr:.5f} (200k replicas) in {1e3 * t_mc:.1f} ms; "
        f"ratio MC/numeric time {t_mc / t_numeric:.1f}"
    )


if __name__ == "__main__":
    main()
