"""Every bad input of the library audit (issue 16) that used to be silently accepted (WORST) or
to fail deep inside numpy/pandas (BAD-OBSCURE) now raises a clear error at the boundary,
naming the argument; wrong types raise a TypeError (that is also a ValueError, so callers such
as the widgets that catch the library's ValueError still do)."""

from __future__ import annotations

from pathlib import Path

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
        lambda: __import__("codedlib.network", fromlist=["x"]).single_port_receive(
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
        lambda: __import__("codedlib.experiments.dsag", fromlist=["x"]).mean_time_to_gap(
            pd.DataFrame()
        ),
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
        "V must be a 2-d array",
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


# ---------------------------------------------------------------- issue 25: newer modules
COMMITTED = ("data/claims", "data/traces", "README.md")


def _committed_state():
    """Bytes of every committed data file the commands below could rewrite."""
    from codedlib.notebooks import REPO_ROOT

    files = [REPO_ROOT / "README.md"]
    for folder in COMMITTED[:2]:
        files += sorted((REPO_ROOT / folder).glob("*.csv"))
    return {str(f): f.read_bytes() for f in files}


@pytest.fixture
def committed_unchanged():
    before = _committed_state()
    yield
    assert _committed_state() == before, "a committed file changed"


def _good_trace_text():
    from codedlib.latency.traces import trace_path

    return trace_path("gc-N12-S3-shiftexp").read_text(encoding="utf-8")


def _data_rows(text):
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("iteration,"))
    return lines, head


def _set_field(text, row, column, value):
    lines, head = _data_rows(text)
    names = lines[head].split(",")
    fields = lines[head + row].split(",")
    fields[names.index(column)] = value
    lines[head + row] = ",".join(fields)
    return "\n".join(lines) + "\n"


TRACE_CASES = [
    # (case, corrupt the good text, the message names)
    (
        "truncated",
        lambda t: t[: t.rstrip().rfind(",") - 3],
        r"row \d+, column '\w+'.*truncated file",
    ),
    ("header-only", lambda t: "\n".join(_data_rows(t)[0][: _data_rows(t)[1] + 1]), "header only"),
    ("fresh-yes", lambda t: _set_field(t, 2, "fresh", "yes"), "row 2, column 'fresh'.*boolean"),
    ("fresh-maybe", lambda t: _set_field(t, 5, "fresh", "maybe"), "row 5, column 'fresh'"),
    (
        "compute-fast",
        lambda t: _set_field(t, 3, "compute_time", "fast"),
        "row 3, column 'compute_t",
    ),
    ("compute-neg", lambda t: _set_field(t, 4, "compute_time", "-1"), "row 4, .*>= 0"),
    ("worker-nan", lambda t: _set_field(t, 1, "worker", "nan"), "row 1, column 'worker'"),
    ("wall-inf", lambda t: _set_field(t, 6, "wall_clock", "inf"), "row 6, column 'wall_clock'"),
    ("empty", lambda t: "", "empty file"),
]


@pytest.mark.parametrize("case, corrupt, match", TRACE_CASES, ids=[c[0] for c in TRACE_CASES])
def test_read_trace_refuses_a_corrupt_file_naming_file_row_and_column(
    tmp_path, case, corrupt, match
):
    from codedlib.latency.traces import read_trace

    path = tmp_path / f"{case}.csv"
    path.write_text(corrupt(_good_trace_text()), encoding="utf-8")
    with pytest.raises(ValueError, match=match) as err:
        read_trace(path)
    assert str(path) in str(err.value)


def test_read_trace_missing_path_and_the_good_file_still_reads(tmp_path):
    from codedlib.latency.traces import read_trace, trace_path

    with pytest.raises(ValueError, match="no such file"):
        read_trace(tmp_path / "absent.csv")
    df = read_trace(trace_path("gc-N12-S3-shiftexp"))
    assert df["fresh"].dtype == bool and df["worker"].dtype == np.int64 and len(df) > 0


@pytest.mark.parametrize(
    "name", ["../claims/00-stragglers", "/etc/passwd", "gc-N12-S3-shiftexp.csv"]
)
def test_trace_names_cannot_leave_the_trace_folder(name):
    from codedlib.latency.traces import trace_path

    with pytest.raises(ValueError, match="name must be one of"):
        trace_path(name)


NEW_MODULE_CASES = [
    # (what, call, exception, message)
    (
        "unit-delays-negative-size",
        lambda: __import__("codedlib.cluster", fromlist=["x"]).unit_delays("pareto", 3.0, -1),
        ValueError,
        "size must be an int >= 0",
    ),
    (
        "port-nan-arrival",
        lambda: __import__("codedlib.schemes.shootout", fromlist=["x"]).port_receive(
            [0.1, np.nan, 0.3], 2, 0.01
        ),
        ValueError,
        "ready must be .* 1 NaN",
    ),
    (
        "port-scalar-arrival",
        lambda: __import__("codedlib.schemes.shootout", fromlist=["x"]).port_receive(0.1, 1, 0.01),
        ValueError,
        "ready must be an array of arrival times, got the scalar 0.1",
    ),
    (
        "port-need-too-large",
        lambda: __import__("codedlib.schemes.shootout", fromlist=["x"]).port_receive(
            [0.1, 0.2], 3, 0.01
        ),
        ValueError,
        "need must satisfy 0 <= need <= 2",
    ),
    (
        "pareto-delay-infinite-mean",
        lambda: __import__("codedlib.runtime.injection", fromlist=["x"]).DelayModel.parse(
            "pareto:t0=0.01,xi=0.5"
        ),
        ValueError,
        r"xi must satisfy xi > 1 .*ClusterModel",
    ),
]


@pytest.mark.parametrize(
    "what, call, exc, match", NEW_MODULE_CASES, ids=[c[0] for c in NEW_MODULE_CASES]
)
def test_new_modules_bad_input_gets_a_clear_error(what, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_pareto_delay_and_cluster_model_share_one_rule():
    from codedlib.cluster import ClusterModel
    from codedlib.runtime.injection import DelayModel

    for xi in (0.5, 1.0):
        with pytest.raises(ValueError):
            ClusterModel(family="pareto", shape=xi)
        with pytest.raises(ValueError):
            DelayModel.parse(f"pareto:t0=0.01,xi={xi}")
    ClusterModel(family="pareto", shape=1.5)
    DelayModel.parse("pareto:t0=0.01,xi=1.5")


def test_notebook_side_run_leaves_committed_claims_alone(
    tmp_path, monkeypatch, committed_unchanged
):
    import codedlib.claims
    import codedlib.notebooks as nbmod

    def fake_run(nb, fig_root, **_):
        folder = Path(fig_root) / Path(nb).stem
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "claims.csv").write_text("notebook,item\nx,y\n", encoding="utf-8")

    readme_calls = []
    monkeypatch.setattr(nbmod, "run_notebook", fake_run)
    monkeypatch.setattr(codedlib.claims, "update_readme", lambda *a: readme_calls.append(a))
    nb = nbmod.discover_notebooks()[0]
    figs = tmp_path / "figs"
    assert nbmod.main([str(nb), "--fig-root", str(figs), "--out", str(tmp_path / "nb")]) == 0
    assert readme_calls == []  # no --publish: the README is not regenerated
    published = tmp_path / "claims"
    args = ["--fig-root", str(figs), "--out", str(tmp_path / "nb"), "--claims", str(published)]
    assert nbmod.main([str(nb), *args, "--publish"]) == 0
    assert (published / f"{nb.stem}.csv").read_text(encoding="utf-8") == "notebook,item\nx,y\n"
    assert len(readme_calls) == 1


def test_record_traces_refuses_to_overwrite_without_force(
    tmp_path, monkeypatch, committed_unchanged
):
    import codedlib.runtime.notebook
    from codedlib.runtime import record_traces

    def must_not_run(*a, **k):
        raise AssertionError("a run started although the command was refused")

    monkeypatch.setattr(codedlib.runtime.notebook, "run_with_mpiexec", must_not_run)
    assert record_traces.main([]) == 2  # data/traces holds every trace
    name = next(iter(record_traces.TRACE_RUNS))
    (tmp_path / f"{name}.csv").write_text("old\n", encoding="utf-8")
    assert record_traces.main([str(tmp_path), name]) == 2
    assert (tmp_path / f"{name}.csv").read_text(encoding="utf-8") == "old\n"
    assert record_traces.main([str(tmp_path), "bogus"]) == 2


def test_read_trace_names_a_row_cut_at_a_field_boundary(tmp_path):
    from codedlib.latency.traces import read_trace

    text = _good_trace_text().rstrip("\n")
    path = tmp_path / "cut.csv"
    path.write_text(text[: text.rfind(",")] + "\n", encoding="utf-8")  # last field missing
    with pytest.raises(ValueError, match=r"column 'parent'.*last row: a truncated file"):
        read_trace(path)
