"""Benchmark: the shoot-out simulator (codedlib.schemes.shootout) from N = 10 to 10,000 workers.

Target (module docstring of the shoot-out): every scheme simulates ``N = 10,000`` workers for
100 iterations in seconds on one core. For each scheme and N in 10, 100, 1000, 10,000 we time
one run from scratch (a new :class:`Shootout`: the stand-in problem, its smoothness and
optimum, and every scheme's free parameter tuned on the pilot draw (``so.tune``) included;
CPU seconds of this process, best of 5, of 3 at N = 10,000) and print seconds per
worker-iteration and the growth exponent of the total time with N (least-squares slope of
log time on log N, and between N = 1000 and 10,000). Then, in the same run, ratios against
the plain per-paper simulators on the same work:

* LAG / LAGC / G-LAG / G-GD: :func:`codedlib.schemes.lagc.run_lag_ps`, ``run_lagc``,
  ``run_g_lag``, ``run_g_gd`` on the shoot-out's problem at N = 1000 (same trajectory: checked);
* DSAG: :func:`codedlib.schemes.dsag.simulate_dsag` (a heapq event loop, one partial gradient
  per task, ``semantics="deadline"``) at N = 1000 with the same problem, w, sub-partitions,
  margin and step, against one event-engine run (step already tuned). Its clock has no
  single-port master, so only the cost is compared.

The script asks for one processor (``os.sched_setaffinity``) and one BLAS thread. Run:
``.venv/bin/python benchmarks/bench_shootout.py`` (about two minutes).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402
from _timing import best_time  # noqa: E402

from codedlib.cluster import ClusterModel  # noqa: E402
from codedlib.latency.gamma_model import GammaLatencyModel  # noqa: E402
from codedlib.schemes import shootout as so  # noqa: E402
from codedlib.schemes.dsag import simulate_dsag  # noqa: E402

SIZES = (10, 100, 1000, 10_000)
ITERATIONS = 100
TARGET_N, TARGET_SECONDS = 10_000, 10.0
REFERENCE_N = 1000


def one_core() -> str:
    """Pin this process to one processor if the platform allows it."""
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to cpu {cpu}"
    except (AttributeError, OSError):
        return "not pinned (no sched_setaffinity)"


def setup_for(N: int) -> so.Shootout:
    return so.Shootout(ClusterModel(n_workers=N), max_iter=ITERATIONS)


def scaling():
    """CPU seconds of one from-scratch run of each scheme at each N."""
    so.simulate(setup_for(10), "dsag")  # import-time and first-call costs out of the way
    seconds = {}
    for name, scheme in so.SCHEMES.items():
        for N in SIZES:
            if scheme.applies(setup_for(N)):
                seconds[name, N] = cpu_time(
                    lambda N=N, name=name: so.simulate(setup_for(N), name), N
                )
    return seconds


def cpu_time(fn, N: int = 0, repeat: int | None = None) -> float:
    """Best CPU seconds of this process over ``repeat`` calls (5 below N = 10,000, else 3):
    the machine may be shared, and CPU time does not count the time other processes run."""
    if repeat is None:
        repeat = 5 if N < 10_000 else 3
    return best_time(fn, repeat=repeat, clock=time.process_time)


def growth_exponent(sizes, seconds) -> float:
    """Slope of log(seconds) on log(N)."""
    if len(sizes) < 2:
        return float("nan")
    return float(np.polyfit(np.log(sizes), np.log(seconds), 1)[0])


def lazy_ratios():
    """(scheme, paper seconds, shoot-out seconds) at N = REFERENCE_N, same trajectories."""
    setup = setup_for(REFERENCE_N)
    rows = []
    for name in ("lag", "lagc", "g-lag", "g-gd"):
        ours = so.simulate(setup, name)
        ref = so.lagc_reference_run(setup, name)
        assert np.allclose(ours.gaps, ref.gap / ref.gap[0], rtol=0, atol=1e-10), name
        t_ref = cpu_time(lambda name=name: so.lagc_reference_run(setup, name), repeat=3)
        t_ours = cpu_time(lambda name=name: so.simulate(setup, name))
        rows.append((name, t_ref, t_ours))
    return rows


def dsag_ratio():
    """(simulate_dsag seconds, one event-engine run in seconds) at N = REFERENCE_N."""
    N = REFERENCE_N
    cluster = ClusterModel(n_workers=N, family="gamma", shape=0.5)
    setup = so.Shootout(cluster, max_iter=ITERATIONS)
    lay = so.simulate(setup, "dsag").layout  # tunes and caches the step
    model = GammaLatencyModel.from_cv(
        np.full(N, cluster.message_time), np.full(N, cluster.share_time), 1e-3, cluster.shape
    )

    def reference():
        simulate_dsag(
            setup.problem,
            model,
            lay["w"],
            setup.subpartitions,
            lay["step"] / setup.smoothness,
            margin=setup.margin,
            n_iterations=ITERATIONS,
            rng=0,
            semantics="deadline",
        )

    t_ref = cpu_time(reference, repeat=2)
    t_ours = cpu_time(lambda: so.simulate(setup, "dsag"))
    return t_ref, t_ours


def main():
    where = one_core()
    start = time.perf_counter()
    seconds = scaling()
    print(
        f"Shoot-out simulation, {ITERATIONS} iterations, one run from scratch: CPU seconds "
        f"(best of 5, of 3 at N = 10,000), {where}"
    )
    head = "".join(f"{'N=' + format(N, ','):>11}" for N in SIZES)
    print(f"{'scheme':<14}{head}{'us/worker-iter':>16}{'exponent':>10}{'1k-10k':>8}")
    slowest = None
    for name in so.SCHEMES:
        sizes = [N for N in SIZES if (name, N) in seconds]
        ts = [seconds[name, N] for N in sizes]
        cells = "".join(
            f"{seconds[name, N]:>11.3f}" if (name, N) in seconds else f"{'n/a':>11}" for N in SIZES
        )
        big = sizes[-1]
        per = 1e6 * seconds[name, big] / (big * ITERATIONS)
        tail = f"{growth_exponent(sizes[-2:], ts[-2:]):>8.2f}" if big == SIZES[-1] else f"{'—':>8}"
        print(f"{name:<14}{cells}{per:>16.3f}{growth_exponent(sizes, ts):>10.2f}{tail}")
        if (name, TARGET_N) in seconds and (
            slowest is None or seconds[name, TARGET_N] > seconds[slowest, TARGET_N]
        ):
            slowest = name
    print(
        "(exponent: slope of log time on log N over all sizes; 1k-10k: between the two largest;\n"
        " us/worker-iter at the largest N the scheme applies to;\n"
        " — where a scheme stops below N = 10,000: dsag-lb applies to N <= 500)"
    )

    at_target = {n: seconds[n, TARGET_N] for n in so.SCHEMES if (n, TARGET_N) in seconds}
    under = [n for n, t in at_target.items() if t < TARGET_SECONDS]
    print(
        f"\nTarget: N = {TARGET_N:,} x {ITERATIONS} iterations in seconds on one core "
        f"(< {TARGET_SECONDS:g} s each): {len(under)} of {len(at_target)} schemes under; "
        f"slowest {slowest} {at_target[slowest]:.2f} s, all {sum(at_target.values()):.1f} s"
    )
    for name, t in at_target.items():
        print(f"  {name:<10}{t:>8.2f} s  {'under' if t < TARGET_SECONDS else 'OVER'}")

    print(f"\nAgainst the per-paper simulators, N = {REFERENCE_N:,}, {ITERATIONS} iterations")
    print(f"{'scheme':<14}{'paper s':>10}{'shoot-out s':>13}{'paper/shoot-out':>17}")
    for name, t_ref, t_ours in lazy_ratios():
        print(f"{name:<10}{t_ref:>10.3f}{t_ours:>13.3f}{t_ref / t_ours:>17.1f}")
    t_ref, t_ours = dsag_ratio()
    print(
        f"{'dsag':<10}{t_ref:>10.3f}{t_ours:>13.3f}{t_ref / t_ours:>17.1f}"
        "   (simulate_dsag vs one event-engine run, step tuned beforehand)"
    )
    print(f"\n(benchmark wall time {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
