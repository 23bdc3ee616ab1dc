"""Benchmark: the event-driven w-of-N simulator of the DSAG paper (Section IV-B).

The paper (footnote 16): simulating 100 iterations with N = 100 workers and w = 50 takes
about 1.5 ms with the authors' (Julia) implementation. We time, in one run:

* the numba kernel on pre-drawn latencies,
* the same including drawing the gamma latencies (what the load balancer pays per call),
* the per-replica cost when vectorised over 100 replicas,
* the plain heapq event-driven reference (pure Python),
* one run of the load balancer's optimizer (Algorithm 1) for N = 100, w = 50.

Run: ``.venv/bin/python benchmarks/bench_dsag.py``.
"""

from __future__ import annotations

import time

import numpy as np
from _timing import best_time

from codedlib.latency.event_driven import simulate_event_driven, simulate_event_driven_heapq
from codedlib.latency.gamma_model import GammaLatencyModel
from codedlib.schemes.dsag import optimize_subpartitions

PAPER_MS = 1.5
N, W, ITERATIONS = 100, 50, 100


def best_of(fn, repeat=7, number=20):
    """Best mean time per call in ms over ``repeat`` batches of ``number`` calls."""
    return 1e3 * best_time(fn, repeat, number=number)


def main():
    rng = np.random.default_rng(0)
    model = GammaLatencyModel.from_cv(
        rng.uniform(1e-4, 1e-3, N), rng.uniform(0.02, 0.03, N), comm_cv=0.3, comp_cv=0.1
    )
    latency = model.sample_total((ITERATIONS,), rng=1)
    many = model.sample_total((100, ITERATIONS), rng=2)
    simulate_event_driven(latency, W)  # compile (cached on disk afterwards)

    # the compiled kernel and the reference agree exactly on the same latencies
    a, b = simulate_event_driven(latency, W), simulate_event_driven_heapq(latency, W)
    assert np.allclose(a.iteration_end, b.iteration_end) and np.array_equal(a.fresh, b.fresh)

    kernel = best_of(lambda: simulate_event_driven(latency, W), number=50)
    with_sampling = best_of(
        lambda: simulate_event_driven(model.sample_total((ITERATIONS,), rng=rng), W), number=50
    )
    batched = best_of(lambda: simulate_event_driven(many, W), repeat=5, number=5) / 100
    heap = best_of(lambda: simulate_event_driven_heapq(latency, W), repeat=3, number=3)

    p = np.full(N, 10)
    comp_full = model.comp_mean * 10
    start = time.perf_counter()
    _, info = optimize_subpartitions(
        p,
        np.full(N, 1000),
        model.comm_mean,
        model.comm_var,
        comp_full,
        model.comp_var * 100,
        W,
        rng=0,
        replicas=1,
    )
    optimizer = 1e3 * (time.perf_counter() - start)

    print(f"Event-driven simulation, N = {N}, w = {W}, {ITERATIONS} iterations (ms per run)")
    print(f"{'implementation':<44}{'ms':>10}{'paper/ours':>12}{'heapq/ours':>12}")
    rows = [
        ("numba kernel (latencies pre-drawn)", kernel),
        ("numba kernel + gamma sampling", with_sampling),
        ("numba kernel, per replica of 100 batched", batched),
        ("plain heapq reference (pure Python)", heap),
    ]
    for name, ms in rows:
        print(f"{name:<44}{ms:>10.3f}{PAPER_MS / ms:>12.1f}{heap / ms:>12.1f}")
    print(f"{'paper (footnote 16, Julia)':<44}{PAPER_MS:>10.3f}")
    print(
        f"\nAlgorithm 1 (N = {N}, w = {W}): {optimizer:.0f} ms for "
        f"{info['evaluations']} simulator calls ({optimizer / info['evaluations']:.2f} ms each)"
    )


if __name__ == "__main__":
    main()
