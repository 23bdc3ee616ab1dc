"""Fig. 2 of the Reed–Solomon GC paper: five schemes on one simulated clock.

n workers, Pareto(t0, ξ) delays (eq. 16), Nesterov's accelerated gradient on a problem split
into k = n contiguous chunks; every scheme sees the same delay matrix, and an iteration takes
T = (f-th smallest delay) + c_g N · load + T_dec(f) (eqs. 15, 17; c_m seconds per FLOP).
Schemes: ``Coded-RS`` (s = n − f_RS, Algorithm 3), ``Coded-MDS`` (Tandon et al.'s cyclic code,
s = n − f_MDS, O(f³) solve), ``Uncoded (all n)`` and ``Uncoded (f_RS)`` / ``(f_MDS)``, which
use the f fastest chunks rescaled to the full data (Pan et al.'s backup workers). The coded
schemes really encode and decode, so decoding round-off is simulated and recorded.

Reference: halbawi2018reedsolomon, tandon2017gradient.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from codedlib._validation import RngLike, as_generator, check_array, check_int, check_real
from codedlib.codes.cyclic import cyclic_repetition_code
from codedlib.codes.reed_solomon import reed_solomon_gradient_code
from codedlib.latency.models import pareto
from codedlib.problems import SoftmaxRegression, even_partition
from codedlib.theory.reed_solomon import decoding_time

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from numpy.typing import ArrayLike


@dataclass(frozen=True)
class SchemeSpec:
    """One straggler-mitigation scheme of Fig. 2: ``kind`` "rs" (Reed–Solomon code), "mds"
    (Tandon et al.'s cyclic-repetition code) or "uncoded"; ``wait`` is f, the workers awaited."""

    name: str
    kind: str
    wait: int

    def load(self, n: int) -> float:
        """Fraction of the data one worker processes: (n − f + 1)/n coded, 1/n uncoded."""
        return (n - self.wait + 1) / n if self.kind in ("rs", "mds") else 1.0 / n


def fig2_schemes(n: int, f_rs: int, f_mds: int) -> list[SchemeSpec]:
    """The five schemes of Fig. 2 for ``n`` workers."""
    n = check_int("n", n, low=3)
    f_rs = check_int("f_rs", f_rs, low=1, high=n - 2)
    f_mds = check_int("f_mds", f_mds, low=1, high=n - 1)
    return [
        SchemeSpec("Coded-RS", "rs", f_rs),
        SchemeSpec("Coded-MDS", "mds", f_mds),
        SchemeSpec(f"Uncoded (all {n})", "uncoded", n),
        SchemeSpec(f"Uncoded (f_RS={f_rs})", "uncoded", f_rs),
        SchemeSpec(f"Uncoded (f_MDS={f_mds})", "uncoded", f_mds),
    ]


def pareto_delays(
    n_iterations: int, n: int, t0: float, xi: float, rng: RngLike = None
) -> np.ndarray:
    """An (n_iterations × n) matrix of i.i.d. Pareto(t0, ξ) delays (eq. 16)."""
    n_iterations = check_int("n_iterations", n_iterations, low=1)
    n = check_int("n", n, low=1)
    return pareto(t0, xi).rvs(size=(n_iterations, n), random_state=as_generator(rng))


def chunk_gradient_function(
    problem: SoftmaxRegression, bounds: ArrayLike
) -> Callable[[np.ndarray], np.ndarray]:
    """Return θ ↦ the (k × dim) matrix of partial gradient sums g_j = Σ_{i in chunk j} ∇f_i(θ)
    (Section 2.1) of a :class:`~codedlib.problems.SoftmaxRegression` over the k + 1 chunk
    ``bounds``, in one pass: g_j = X_jᵀ (P_j − Y_j) batched over a zero-padded (k, max chunk, p)
    copy of the data."""
    if not isinstance(problem, SoftmaxRegression):
        raise TypeError(f"problem must be a SoftmaxRegression, got {type(problem).__name__}")
    bounds = np.asarray(bounds, dtype=np.int64)
    k = bounds.size - 1
    sizes = np.diff(bounds)
    width = int(sizes.max())
    chunk_of = np.repeat(np.arange(k), sizes)
    slot = np.arange(problem.n_samples) - bounds[chunk_of]
    X_pad = np.zeros((k, width, problem.X.shape[1]))
    X_pad[chunk_of, slot] = problem.X
    rows = np.arange(problem.n_samples)
    W_shape, ridge = (problem.X.shape[1], problem.n_classes), problem.lam * sizes[:, None]

    def softmax_chunks(theta):
        theta = np.asarray(theta, dtype=float)
        scores = problem.X @ theta.reshape(W_shape)
        # scipy.special.softmax's operations without its array-API dispatch: the same bits
        probs = np.exp(scores - scores.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        probs[rows, problem.y] -= 1.0
        P_pad = np.zeros((k, width, problem.n_classes))
        P_pad[chunk_of, slot] = probs
        grads = np.matmul(X_pad.transpose(0, 2, 1), P_pad).reshape(k, -1)
        return grads + ridge * theta[None, :]

    return softmax_chunks


def _make_code(spec: SchemeSpec, n: int):
    if spec.kind == "rs":
        # the simulation measures and records every decoding's error itself (decode_error)
        return reed_solomon_gradient_code(n, n, n - spec.wait + 1, on_inaccurate="ignore")
    if spec.kind == "mds":
        return cyclic_repetition_code(n, n - spec.wait)
    return None


def _row(blas, name, problem, X_test, y_test, it, clock, dt, theta, max_err, max_imag):
    """One recorded row of :func:`simulate_schemes`, on one BLAS thread (``blas``: a
    ``threadpoolctl.ThreadpoolController``): many small matrix products, for which
    multi-threaded OpenBLAS was ~20x slower on a shared 2-core machine."""
    with blas.limit(limits=1, user_api="blas"):
        error = problem.error_rate(theta, X_test, y_test)
        return (name, it, clock, dt, error, problem.loss(theta), max_err, max_imag)


def _used_gradient(spec, code, g, exact, survivors, rescale):
    """The gradient the master uses from the survivors' rows, and its relative imaginary part:
    the rescaled partial sum (uncoded) or the decoded one (coded)."""
    if spec.kind == "uncoded":
        return g[survivors].sum(axis=0) * rescale, 0.0
    coded = code.B[survivors] @ g  # only the survivors' rows reach the master
    a = code.decode(survivors)
    if a.size == code.B.shape[0]:  # cyclic code: length-n vector, zero off the survivors
        a = a[survivors]
    total = a @ coded
    if not np.iscomplexobj(total):
        return total, 0.0
    return total.real, float(np.max(np.abs(total.imag)) / max(np.max(np.abs(exact)), 1e-300))


def _check_waits(schemes, n, xi):
    for spec in schemes:
        check_int(f"wait of {spec.name}", spec.wait, low=1, high=n)
        if spec.kind in ("rs", "mds") and xi * (n - spec.wait + 1) <= 1:
            raise ValueError(
                f"xi must satisfy xi > 1/(n-f+1) for {spec.name} (f={spec.wait}), got xi={xi:g}"
            )


def _check_delays(delays, n):
    delays = check_array("delays", delays)
    if np.any(delays < 0):
        raise ValueError(f"delays must be >= 0 seconds, got min(delays)={delays.min():g}")
    if delays.ndim != 2 or delays.shape[1] != n:
        raise ValueError(f"delays must have shape (iterations, n={n}), got {delays.shape}")
    return delays


def simulate_schemes(
    problem: SoftmaxRegression,
    X_test: np.ndarray,
    y_test: np.ndarray,
    schemes: Iterable[SchemeSpec],
    n: int = 80,
    t0: float = 0.001,
    xi: float = 1.1,
    cg_N: float = 0.035,
    c_m: float = 1e-9,
    time_budget: float = 5.0,
    rng: RngLike = None,
    delays: np.ndarray | None = None,
    record_interval: float | None = None,
) -> pd.DataFrame:
    """Sec. 6, Fig. 2: every scheme with Nesterov's accelerated gradient until ``time_budget`` seconds.

    All schemes start from ``problem.initial_point()`` and share one delay matrix (``delays``,
    or drawn with ``rng``). One row per (scheme, iteration), a row at time 0 for the initial
    point: scheme, iteration, time, iteration_time, test_error, train_loss, decode_error (the
    used gradient's relative error against the exact sum) and imag (largest |imaginary part| /
    |gradient|, Coded-RS). With ``record_interval`` (simulated s) only the first iteration after
    each multiple of it and the last one are written, decode_error and imag as maxima since the
    previous row; None records every iteration. The step is 1/L.
    """
    n = check_int("n", n, low=3)
    schemes = list(schemes)
    if not schemes:
        raise ValueError("schemes must hold at least one scheme, got an empty list")
    y_test = check_array("y_test", y_test, ndim=1)
    X_test = check_array("X_test", X_test, ndim=2, shape=(y_test.shape[0], None))
    t0 = check_real("t0", t0, low=0.0, low_open=True)
    xi = check_real("xi", xi, low=0.0, low_open=True)
    cg_N = check_real("cg_N", cg_N, low=0.0)
    c_m = check_real("c_m", c_m, low=0.0)
    time_budget = check_real("time_budget", time_budget, low=0.0, low_open=True)
    if n > problem.n_samples:
        raise ValueError(f"n must be <= the number of samples {problem.n_samples}, got n={n}")
    _check_waits(schemes, n, xi)
    step_size = 1.0 / problem.smoothness()
    if record_interval is not None:
        record_interval = check_real("record_interval", record_interval, low=0.0, low_open=True)
    bounds = even_partition(problem.n_samples, n)
    gradients_of = chunk_gradient_function(problem, bounds)
    sizes = np.diff(bounds)
    N = problem.n_samples

    if delays is None:
        fastest = min(t0 + cg_N * s.load(n) for s in schemes)
        n_iter = int(np.ceil(time_budget / fastest)) + 1
        delays = pareto_delays(n_iter, n, t0, xi, rng)
    delays = _check_delays(delays, n)
    order = np.argsort(delays, axis=1, kind="stable")  # arrival order per iteration
    sorted_delays = np.take_along_axis(delays, order, axis=1)

    from threadpoolctl import ThreadpoolController

    blas = ThreadpoolController()  # scans the loaded libraries once, not once per row (5 ms)
    rows = []
    for spec in schemes:
        code = _make_code(spec, n)
        decoder = "offline" if spec.kind == "uncoded" else spec.kind
        t_extra = cg_N * spec.load(n) + float(decoding_time(spec.wait, c_m, decoder))
        theta = problem.initial_point()
        theta_prev = theta.copy()
        next_record = 0.0 if record_interval is None else record_interval
        clock = max_err = max_imag = last_dt = 0.0
        record = functools.partial(_row, blas, spec.name, problem, X_test, y_test)
        rows.append(record(0, 0.0, 0.0, theta, 0.0, 0.0))
        for it in range(delays.shape[0]):
            dt = sorted_delays[it, spec.wait - 1] + t_extra
            if clock + dt > time_budget:
                if record_interval is not None and rows[-1][1] != it:  # keep the last iterate
                    rows.append(record(it, clock, last_dt, theta, max_err, max_imag))
                break
            last_dt = dt
            clock += dt
            t = it + 1  # Sec. 6: Nesterov's point y_t = θ_t + (t − 1)/(t + 2) (θ_t − θ_{t−1})
            y = theta + (t - 1.0) / (t + 2.0) * (theta - theta_prev)
            survivors = order[it, : spec.wait]
            g = gradients_of(y)  # worker i holds chunk i (uncoded)
            exact = g.sum(axis=0)
            full, imag = _used_gradient(spec, code, g, exact, survivors, N / sizes[survivors].sum())
            dec_err = float(np.linalg.norm(full - exact) / max(np.linalg.norm(exact), 1e-300))
            theta_prev, theta = theta, y - step_size * full / N
            max_err, max_imag = max(max_err, dec_err), max(max_imag, imag)
            if clock >= next_record:
                rows.append(record(it + 1, clock, dt, theta, max_err, max_imag))
                max_err = max_imag = 0.0
                if record_interval is not None:
                    next_record = (np.floor(clock / record_interval) + 1) * record_interval
        else:
            raise RuntimeError(
                f"{spec.name} used all {delays.shape[0]} delay rows before time_budget; "
                "pass a longer delays matrix"
            )
    columns = "scheme iteration time iteration_time test_error train_loss decode_error imag"
    return pd.DataFrame(rows, columns=columns.split())
