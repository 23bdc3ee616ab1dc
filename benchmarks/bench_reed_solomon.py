"""Benchmark: Reed–Solomon GC online decoding (Algorithm 3) vs least squares; accuracy limit.

Run: .venv/bin/python benchmarks/bench_reed_solomon.py

1. Time for one decoding vector at f = 50, 200, 800 (k = n ≈ f / 0.85, random survivors):
   Algorithm 3 (O(f²) table look-ups) vs numpy least squares on a B_F = 1 (the generic O(f³)
   decoder) vs a dense solve of the Vandermonde system of eq. (12). One BLAS thread, best of 3.
   The codes use root_power="auto": with the paper's root α = e^{2πi/n}, Algorithm 3 is not
   accurate in double precision beyond n ≈ 70 (part 2), and an inaccurate decoder is not timed.
2. Largest n whose decoded gradient keeps relative error <= 1e-6, worst-case and random survivor
   sets, for the paper's root α = e^{2πi/n} and for root_power="auto" (w/k ≈ 0.16, k = n).
"""

from __future__ import annotations

import time

import numpy as np
from _timing import best_time
from threadpoolctl import threadpool_limits

from codedlib.codes.reed_solomon import (
    accuracy_limit,
    least_squares_decoding_vector,
    reed_solomon_gradient_code,
    vandermonde_decoding_vector,
)


def decoding_times(fs=(50, 200, 800), straggler_fraction=0.15, seed=0):
    rng = np.random.default_rng(seed)
    print("1. decoding-vector time (one BLAS thread, best of 3; root_power='auto')")
    print(
        f"{'f':>5} {'n':>5} {'alg3 [ms]':>10} {'lstsq [ms]':>11} {'vander [ms]':>12} "
        f"{'lstsq/alg3':>11} {'vander/alg3':>12}"
    )
    for f in fs:
        n = round(f / (1 - straggler_fraction))
        code = reed_solomon_gradient_code(n, n, n - f + 1, root_power="auto")
        F = np.sort(rng.choice(n, f, replace=False))
        B_F = code.B[F]
        t3 = best_time(lambda c=code, F=F: c.decoding_vector(F))
        tl = best_time(lambda B_F=B_F: least_squares_decoding_vector(B_F))
        tv = best_time(lambda F=F, n=n: vandermonde_decoding_vector(F, n))
        print(
            f"{f:5d} {n:5d} {t3 * 1e3:10.3f} {tl * 1e3:11.2f} {tv * 1e3:12.2f} "
            f"{tl / t3:11.0f} {tv / t3:12.1f}"
        )


def accuracy(ns=(40, 50, 60, 70, 80, 90, 100, 120, 160, 200, 300), load=13 / 80):
    print("\n2. accuracy limit (relative gradient error <= 1e-6), k = n, w = round(load n)")
    for root in (1, "auto"):
        table, limits = accuracy_limit(ns, load=load, root_power=root, n_random=10, rng=0)
        label = "alpha = exp(2 pi i/n) (paper)" if root == 1 else "root_power='auto'"
        print(
            f"  {label}: largest accurate n = {limits['worst']} (worst-case survivors), "
            f"{limits['random']} (random survivors)"
        )
        errs = ", ".join(f"n={r.n}: {r.worst_error:.1e}" for r in table.itertuples())
        print(f"    worst-case error: {errs}")


if __name__ == "__main__":
    start = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        decoding_times()
        accuracy()
    print(f"\ntotal {time.perf_counter() - start:.1f} s")
