"""Every bad input of the library audit (issue 16) that used to be silently accepted (WORST) or
to fail deep inside numpy/pandas (BAD-OBSCURE) now raises a clear error at the boundary,
naming the argument; wrong types raise a TypeError (that is also a ValueError, so callers such
as the widgets that catch the library's ValueError still do)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from codedlib._validation import InputTypeError


def _gamma_model(n=3):
    from codedlib.latency.gamma_model import GammaLatencyModel

    return GammaLatencyModel(np.full(n, 0.01), np.full(n, 1e-5), np.full(n, 0.02), np.full(n, 4e-5))


def _softmax():
    from codedlib.problems import SoftmaxRegression

    rng = np.random.default_rng(0)
    return SoftmaxRegression(rng.standard_normal((40, 3)), rng.integers(0, 3, 40), 3)


def _stream_workers():
    from codedlib.experiments.stream import heterogeneous_cluster

    return heterogeneous_cluster()


def _rs_problem():
    from codedlib.problems import SoftmaxRegression

    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((40, 4)), rng.integers(0, 3, 40)
    return SoftmaxRegression(X, y, 3), X[:20], y[:20]


def _rs(**kw):
    from codedlib.schemes.reed_solomon import fig2_schemes, simulate_schemes

    prob, X_test, y_test = _rs_problem()
    args = dict(
        problem=prob,
        X_test=X_test,
        y_test=y_test,
        schemes=fig2_schemes(10, 8, 5),
        n=10,
        time_budget=0.05,
    )
    args.update(kw)
    return simulate_schemes(**args)


def _cr_cfg():
    from codedlib.schemes.codedreduce import ClusterConfig

    return ClusterConfig(3, 2, 1, 120)


CASES = [
    # (audit row, call, exception, message)
    (
        97,
        lambda: __import__("codedlib.codes.codedreduce", fromlist=["x"]).Segments.whole(-1),
        ValueError,
        "d must satisfy 0 <= d",
    ),
    (
        248,
        lambda: __import__(
            "codedlib.experiments.stragglers", fromlist=["x"]
        ).pareto_limit_convergence(ns=[0, -5]),
        ValueError,
        "n in ns must satisfy 1 <=",
    ),
    (
        276,
        lambda: __import__("codedlib.experiments.stream", fromlist=["x"]).table2_delay_vs_K(
            K_values=[]
        ),
        ValueError,
        "K_values must hold at least one",
    ),
    (
        48,
        lambda: __import__("codedlib.latency.gamma_model", fromlist=["x"]).order_statistic_latency(
            _gamma_model(), [1], replicas=0
        ),
        ValueError,
        "replicas must satisfy",
    ),
    (
        36,
        lambda: __import__(
            "codedlib.latency.order_stats", fromlist=["x"]
        ).order_statistic_monte_carlo(stats.pareto(0.5), 10, 10, rng=0),
        ValueError,
        r"E\[T_\(k\)\] is infinite",
    ),
    (
        159,
        lambda: __import__("codedlib.problems", fromlist=["x"]).LeastSquares(
            np.ones((4, 2)) * (1 + 1j), np.ones(4)
        ),
        TypeError,
        "X must be real",
    ),
    (
        169,
        lambda: _softmax().error_rate(np.zeros(9), y=np.zeros(1)),
        ValueError,
        "y must have shape",
    ),
    (
        187,
        lambda: __import__("codedlib.schemes.codedreduce", fromlist=["x"]).simulate_iteration_times(
            _cr_cfg(), draws=np.full((5, 12), np.nan)
        ),
        ValueError,
        "draws must be finite",
    ),
    (
        188,
        lambda: __import__("codedlib.schemes.codedreduce", fromlist=["x"]).simulate_iteration_times(
            _cr_cfg(), draws=-np.ones((5, 12))
        ),
        ValueError,
        "draws must be finite and >= 0",
    ),
    (
        189,
        lambda: __import__("codedlib.schemes.codedreduce", fromlist=["x"]).master_receive_times(
            [0.0, 1.0], 2, -1.0
        ),
        ValueError,
        "message_time must be finite and >= 0",
    ),
    (
        190,
        lambda: __import__("codedlib.schemes.codedreduce", fromlist=["x"]).cr_times(
            _cr_cfg(),
            __import__("codedlib.schemes.codedreduce", fromlist=["x"]).TimingModel(),
            np.ones((2, 12)),
            loads=-np.ones(12),
        ),
        ValueError,
        "loads must be finite and >= 0",
    ),
    (
        196,
        lambda: (
            __import__("codedlib.schemes.dsag", fromlist=["x"])
            .GradientCache(10, shape=())
            .insert(0.5, 3, 0, 1.0)
        ),
        ValueError,
        "start must be an integer",
    ),
    (
        206,
        lambda: __import__("codedlib.schemes.dsag", fromlist=["x"]).balance_objective(
            [0, 1], [1.0, 1.0], [1.0, 1.0]
        ),
        ValueError,
        "p must hold positive",
    ),
    (
        214,
        lambda: __import__("codedlib.schemes.lagc", fromlist=["x"]).run_gd(
            __import__("codedlib.problems", fromlist=["x"]).LeastSquares(np.eye(4), np.ones(4)),
            2,
            delay=stats.expon(),
            f_star=np.nan,
            max_iter=2,
        ),
        ValueError,
        "f_star must be finite",
    ),
    (
        215,
        lambda: __import__("codedlib.schemes.lagc", fromlist=["x"]).run_gd(
            __import__("codedlib.problems", fromlist=["x"]).LeastSquares(np.eye(4), np.ones(4)),
            2,
            delay=stats.expon(),
            f_star="abc",
            max_iter=2,
        ),
        TypeError,
        "f_star must be a real number",
    ),
    (
        234,
        lambda: __import__("codedlib.schemes.stream", fromlist=["x"]).sample_task_times(
            _stream_workers(), [1.5] * 5, 3, 0
        ),
        ValueError,
        "kappa must hold non-negative integer",
    ),
    (
        233,
        lambda: __import__("codedlib.schemes.stream", fromlist=["x"]).sample_task_times(
            _stream_workers(), [0] * 5, 3, 0
        ),
        ValueError,
        "kappa must give at least one",
    ),
    (
        235,
        lambda: __import__("codedlib.schemes.stream", fromlist=["x"]).sample_task_times(
            _stream_workers(), [1] * 5, -1, 0
        ),
        ValueError,
        "n_iterations must satisfy",
    ),
    (
        237,
        lambda: __import__("codedlib.schemes.stream", fromlist=["x"]).fifo_delays(
            [1.0, 2.0, 3.0], [-5.0, 1.0, 1.0]
        ),
        ValueError,
        "service times must be >= 0",
    ),
    (
        132,
        lambda: __import__("codedlib.theory.lagc", fromlist=["x"]).heterogeneity_fraction(
            [1.0, 2.0], np.nan
        ),
        ValueError,
        "gamma must contain only finite",
    ),
    (
        116,
        lambda: __import__("codedlib.theory.reed_solomon", fromlist=["x"]).optimal_workers(
            10, 0.001, 0.05, 0.035
        ),
        ValueError,
        "xi must exceed 1/n",
    ),
    (
        119,
        lambda: __import__("codedlib.theory.reed_solomon", fromlist=["x"]).decoding_time(
            [-5, np.nan], 1e-9
        ),
        ValueError,
        "f must hold finite worker counts",
    ),
    (
        89,
        lambda: __import__("codedlib.codes.reed_solomon", fromlist=["x"]).accuracy_limit([]),
        ValueError,
        "ns must hold at least one",
    ),
    (
        255,
        lambda: __import__("codedlib.experiments.codedreduce", fromlist=["x"]).speedups(
            pd.DataFrame()
        ),
        ValueError,
        "curves must have the columns",
    ),
    (
        267,
        lambda: __import__("codedlib.experiments.dsag", fromlist=["x"]).time_to_gap(pd.DataFrame()),
        ValueError,
        "df must have the columns",
    ),
    (
        260,
        lambda: __import__("codedlib.experiments.reed_solomon", fromlist=["x"]).accuracy_study(
            ns=()
        ),
        ValueError,
        "ns must hold at least one",
    ),
    (
        261,
        lambda: __import__("codedlib.experiments.reed_solomon", fromlist=["x"]).fig2_summary(
            pd.DataFrame()
        ),
        ValueError,
        "df must have the columns",
    ),
    (
        54,
        lambda: __import__("codedlib.latency.event_driven", fromlist=["x"]).simulate_event_driven(
            [["a", "b"]], 1
        ),
        TypeError,
        "task_latency must be numeric",
    ),
    (
        55,
        lambda: __import__("codedlib.latency.event_driven", fromlist=["x"]).simulate_event_driven(
            np.ones((2, 3)), 1, busy_until=[0.0, 0.0]
        ),
        ValueError,
        "busy_until must have shape",
    ),
    (43, lambda: _gamma_model().sample(-1, rng=0), ValueError, "size must satisfy 0 <= size"),
    (
        14,
        lambda: (
            __import__("codedlib.latency.models", fromlist=["x"])
            .HeterogeneousCluster.identical(stats.expon(), 3)
            .cdfs("abc")
        ),
        TypeError,
        "t must be numeric",
    ),
    (
        19,
        lambda: __import__("codedlib.latency.models", fromlist=["x"]).sample_distribution(
            stats.expon(), -1
        ),
        ValueError,
        "size must satisfy 0 <= size",
    ),
    (
        20,
        lambda: __import__("codedlib.latency.models", fromlist=["x"]).sample_distribution(
            "notadist", 3
        ),
        TypeError,
        "dist must be a frozen scipy.stats",
    ),
    (
        160,
        lambda: __import__("codedlib.problems", fromlist=["x"]).LeastSquares([["a", "b"]], [1.0]),
        TypeError,
        "X must be numeric",
    ),
    (
        172,
        lambda: __import__("codedlib.problems", fromlist=["x"]).PCA.project(np.ones(6)),
        ValueError,
        "a flat theta needs d and k",
    ),
    (
        205,
        lambda: __import__("codedlib.schemes.dsag", fromlist=["x"]).gram_schmidt(np.ones(3)),
        ValueError,
        "V must be a 2-d array",
    ),
    (
        208,
        lambda: __import__("codedlib.schemes.dsag", fromlist=["x"]).optimize_subpartitions(
            [1, 1], [4, 4], [-1.0, 1.0], [0.1, 0.1], [1.0, 1.0], [0.1, 0.1], 1
        ),
        ValueError,
        "comm_mean must be >= 0",
    ),
    (227, lambda: _rs(schemes=[]), ValueError, "schemes must hold at least one"),
    (
        229,
        lambda: _rs(delays=np.full((50, 10), np.nan)),
        ValueError,
        "delays must contain only finite",
    ),
    (230, lambda: _rs(y_test=np.zeros(3, dtype=int)), ValueError, "X_test must have shape"),
]


@pytest.mark.parametrize("row, call, exc, match", CASES, ids=[f"audit-{c[0]}" for c in CASES])
def test_bad_input_gets_a_clear_error(row, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_type_errors_are_still_value_errors_for_callers_that_catch_those():
    from codedlib._validation import check_int

    with pytest.raises(ValueError):
        check_int("n", "3")
    assert issubclass(InputTypeError, TypeError) and issubclass(InputTypeError, ValueError)
