"""Benchmark for paper 5 (stream coded computing): simulation and theory speed.

Run: ``.venv/bin/python benchmarks/bench_stream.py``. Prints measured times and ratios from
this one run:

* Section VI simulation (Example 2, J = 1000 jobs, I = 50 iterations, purging), vectorised
  vs a plain per-iteration Python reference (same model: K-th task result ends the iteration);
* FIFO queue: vectorised Lindley recursion vs a Python loop;
* ``E[T_itr]``, ``E[T_itr^2]`` for P = 100 workers: composite Gauss-Legendre on all nodes at
  once vs ``scipy.integrate.quad`` on the same survival function;
* the full-size Fig. 4 sweep point (K = 1000, Omega = 1.2, J = 1000, I = 10): its time only
  (a Python reference at that size would take hours; no speed-up is claimed).
"""

from __future__ import annotations

import numpy as np
from _timing import timed
from scipy import integrate

from codedlib.experiments import stream as ex
from codedlib.schemes import stream as sim
from codedlib.theory import stream as th


def reference_stream(workers, kappa, K, iterations, lam, n_jobs, seed):
    """Plain Python: one iteration at a time, one worker at a time, then a Lindley loop."""
    rng = np.random.default_rng(seed)
    arrivals = np.cumsum(rng.exponential(1 / lam, n_jobs))
    free, delays = 0.0, []
    for j in range(n_jobs):
        service = 0.0
        for _ in range(iterations):
            results = []
            for p, k in enumerate(kappa):
                t = workers.comm_time[p]
                for _ in range(int(k)):
                    t += rng.exponential(workers.task_mean[p])
                    results.append(t)
            results.sort()
            service += results[K - 1]
        start = max(arrivals[j], free)
        free = start + service
        delays.append(free - arrivals[j])
    return float(np.mean(delays))


def quad_moments(workers, kappa):
    start = float(np.max(workers.comm_time[np.asarray(kappa) > 0]))
    stop = start + 60.0

    def surv(t):
        return 1.0 - float(th.iteration_time_cdf(workers, kappa, np.array([t]))[0])

    e1 = start + integrate.quad(surv, start, stop, limit=400, epsabs=1e-13, epsrel=1e-11)[0]
    e2 = (
        start**2
        + integrate.quad(
            lambda t: 2 * t * surv(t), start, stop, limit=400, epsabs=1e-13, epsrel=1e-11
        )[0]
    )
    return e1, e2


def main():
    rows = []
    w = th.example2_workers()
    split = th.optimal_split(w, 50, 1.1, 1.0)
    t_vec, res = timed(lambda: sim.simulate_stream(w, split.kappa, 50, 50, 0.01, 1000, True, 0), 3)
    n_ref = 100
    t_ref, ref = timed(lambda: reference_stream(w, split.kappa, 50, 50, 0.01, n_ref, 0))
    t_ref_scaled = t_ref * 1000 / n_ref
    rows.append(
        (
            "simulate J=1000, I=50 (Example 2)",
            t_vec,
            f"reference (Python loop) {t_ref_scaled:.2f} s (from {n_ref} jobs)",
            t_ref_scaled / t_vec,
        )
    )
    rng = np.random.default_rng(1)
    arrivals = np.cumsum(rng.exponential(100, 100_000))
    service = rng.exponential(60, 100_000)
    t_q, _ = timed(lambda: sim.fifo_delays(arrivals, service), 3)

    def loop():
        free, out = 0.0, np.empty(arrivals.size)
        for j in range(arrivals.size):
            free = max(arrivals[j], free) + service[j]
            out[j] = free
        return out

    t_loop, _ = timed(loop)
    rows.append(("FIFO Lindley, 100k jobs", t_q, f"Python loop {t_loop:.3f} s", t_loop / t_q))
    unit = ex.heterogeneous_cluster()
    workers = unit.with_complexity(50 / 350)
    kappa = th.optimal_split(workers, 350, 1.0, 1.0).kappa
    t_gl, m_gl = timed(lambda: th.iteration_time_moments(workers, kappa), 3)
    t_quad, m_quad = timed(lambda: quad_moments(workers, kappa))
    rows.append(
        (
            "E[T_itr], E[T_itr^2], P=100 (Table II, K=350)",
            t_gl,
            f"scipy quad {t_quad:.2f} s, |diff| {abs(m_gl[0] - m_quad[0]):.1e}",
            t_quad / t_gl,
        )
    )
    w4 = th.example2_workers(complexity=ex.FIG4_SETTINGS["Z"] / 1000)
    k4 = th.optimal_split(w4, 1000, 1.2, 1.0).kappa
    t4, _ = timed(lambda: sim.simulate_stream(w4, k4, 1000, 10, 0.01, 1000, True, 0))
    rows.append(("Fig. 4 point: K=1000, Omega=1.2, J=1000, I=10", t4, "no reference run", None))
    print(f"{'case':50s} {'ours [s]':>9s}  {'speed-up':>9s}  reference")
    for name, t, note, ratio in rows:
        speedup = "—" if ratio is None else f"{ratio:.1f}"
        print(f"{name:50s} {t:9.4f}  {speedup:>9s}  {note}")
    print(
        f"(Example 2 mean delay, one stream: vectorised {res.mean_delay:.2f} s over 1000 jobs; "
        f"reference {ref:.2f} s over {n_ref} jobs)"
    )


if __name__ == "__main__":
    main()
