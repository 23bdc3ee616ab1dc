"""codedlib.runtime: configuration, delay injection, traces, DSAG cache (in-process) and real
MPI runs (``mpiexec`` subprocesses with timeouts; skipped when mpiexec is missing).

The MPI runs are grouped: one job per world size runs every scheme one after the other
(``codedlib.runtime.checks``), because starting 13 Python processes on 2 cores is the slow
part.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codedlib.latency.traces import TRACE_COLUMNS, read_trace
from codedlib.runtime.config import RunConfig, WorldSizeError
from codedlib.runtime.dsag import dsag_terms
from codedlib.runtime.injection import DelayModel, apply_freeze, parse_freeze
from codedlib.runtime.notebook import (
    KILLED_FROM_OUTSIDE,
    killed_from_outside,
    mpiexec_command,
    mpiexec_env,
)
from codedlib.runtime.registry import SCHEMES, tree_size

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
MPIEXEC = shutil.which("mpiexec", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
needs_mpi = pytest.mark.skipif(MPIEXEC is None, reason="mpiexec not found")


pytestmark = pytest.mark.mpi


def mpirun(n_procs, module_args, timeout=120):
    """``mpiexec -n K python -m mpi4py -m ...`` as a subprocess; returns CompletedProcess (no
    retry: the SIGKILLs once seen here had a cause of ours, see ``KilledFromOutside``)."""
    return subprocess.run(
        mpiexec_command(n_procs, module_args),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=mpiexec_env(),
        check=False,
    )


def check_lines(proc):
    return {
        d["name"]: d
        for d in (
            json.loads(line[6:]) for line in proc.stdout.splitlines() if line.startswith("CHECK ")
        )
    }


# ---------------------------------------------------------------------------- launching
def test_killed_from_outside_rule():
    """Exit 9 with an empty stderr (and no results, when a results file is named) is a kill from
    outside; anything else is a failure of ours (the rule both retry loops use)."""

    def done(code, err=""):
        return subprocess.CompletedProcess(["mpiexec"], code, stdout="", stderr=err)

    assert KILLED_FROM_OUTSIDE == 9
    assert killed_from_outside(done(9)) and killed_from_outside(done(9, " \n"))
    assert killed_from_outside(done(9, b""))  # bytes output (text=False) too
    assert not killed_from_outside(done(9, "Traceback ...\nValueError: x"))
    assert not killed_from_outside(done(0)) and not killed_from_outside(done(1))
    assert killed_from_outside(done(9, None))  # stderr not captured: nothing said
    with pytest.raises(TypeError, match="proc must be a subprocess.CompletedProcess"):
        killed_from_outside(9)


def test_killed_from_outside_with_results(tmp_path):
    proc = subprocess.CompletedProcess(["mpiexec"], 9, stdout="", stderr="")
    results = tmp_path / "run.json"
    assert killed_from_outside(proc, results)
    results.write_text("{}")
    assert not killed_from_outside(proc, results)  # the job finished: not a lost rank


@needs_mpi
def test_mpiexec_command_and_env(monkeypatch):
    cmd = mpiexec_command(3, ["codedlib.runtime.checks", "--quiet"])
    assert Path(cmd[0]).name == "mpiexec" and Path(cmd[0]).exists()
    assert cmd[1:] == [
        "-n",
        "3",
        sys.executable,
        "-m",
        "mpi4py",
        "-m",
        "codedlib.runtime.checks",
        "--quiet",
    ]
    with pytest.raises(ValueError, match="n_procs must satisfy"):
        mpiexec_command(0, ["x"])
    with pytest.raises(TypeError, match="module_args must be a sequence"):
        mpiexec_command(2, "codedlib.runtime")
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMPI_MCA_rmaps_base_oversubscribe"):
        monkeypatch.delenv(name, raising=False)
    env = mpiexec_env()
    assert env["PATH"].split(os.pathsep)[0] == str(BIN)
    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(ROOT)
    assert env["OMP_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == "1"
    assert env["OMPI_MCA_rmaps_base_oversubscribe"] == "1"


# ---------------------------------------------------------------------------- config
def test_world_size_rules():
    assert tree_size(3, 2) == 12
    cfg = RunConfig("cr", n=3, L=2, s=1)
    assert cfg.n_workers == 12 and cfg.world_size == 13 and cfg.tolerated == 1
    cfg.check_world(13)
    with pytest.raises(
        WorldSizeError, match=r"needs 1 root \+ 12 workers = 13 MPI processes, but this run has 4"
    ):
        cfg.check_world(4)
    assert RunConfig("gc", n_workers=3, stragglers=1).world_size == 4


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"scheme": "foo", "n_workers": 3}, "scheme must be one of"),
        (
            {"scheme": "gc", "n_workers": 3, "stragglers": 3},
            r"stragglers must satisfy 0 <= stragglers <= 2",
        ),
        ({"scheme": "cr", "n": 3, "L": 2, "s": 3}, r"s must satisfy 0 <= s <= 2"),
        ({"scheme": "cr", "n": 3}, "needs the tree sizes"),
        ({"scheme": "dsag", "n_workers": 4, "w": 5}, r"w must satisfy 1 <= w <= 4"),
        (
            {"scheme": "gc", "n_workers": 3, "freeze": "7@0"},
            r"freeze worker must satisfy 0 <= freeze worker <= 2",
        ),
        ({"scheme": "gc", "n_workers": 3, "delay": "expo:rate=1"}, "delay kind must be one of"),
        ({"scheme": "gc", "n_workers": 3, "delay": "shiftexp:shift=1"}, "missing"),
        (
            {"scheme": "gc", "n_workers": 3, "delay": "shiftexp:shift=1,rate=-2"},
            "rate must satisfy",
        ),
        ({"scheme": "gc", "n_workers": 3, "timeout": 0}, "timeout must satisfy"),
    ],
)
def test_config_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RunConfig(**kwargs)


def test_cli_args_round_trip():
    from codedlib.runtime.__main__ import config_from_args, parser

    cfg = RunConfig(
        "dsag",
        n_workers=5,
        w=3,
        subpartitions=2,
        delay="gamma:mean=0.02,var=1e-4,spread=0.4",
        bursts="p_enter=0.1,p_exit=0.5,factor=2",
        freeze="1@2",
        t_c=0.001,
        check=True,
    )
    again = config_from_args(parser().parse_args(cfg.cli_args() + ["--out", "x"]))
    assert again.to_dict() == cfg.to_dict()


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
@pytest.mark.parametrize("quick", [True, False])
def test_every_registered_scheme_round_trips_through_the_command_line(scheme, quick):
    """The command line and cli_args() come from one field definition: every registry entry's
    default config survives the trip, and the command line names only its own sizes."""
    from codedlib.runtime.__main__ import config_from_args, parser
    from codedlib.runtime.config import SCHEME_FIELDS, cli_fields
    from codedlib.runtime.notebook import scheme_config

    cfg = scheme_config(scheme, quick=quick, bursts="p_enter=0.1,p_exit=0.5,factor=2", freeze="1@2")
    args = cfg.cli_args()
    assert config_from_args(parser().parse_args(args)).to_dict() == cfg.to_dict()
    spec = cfg.spec
    for f in cli_fields():
        if f.name in SCHEME_FIELDS and f.name not in spec.params:
            assert f.metadata["flags"][0] not in args, (scheme, f.name)
    assert cfg.tolerated >= 0 and cfg.world_size == cfg.n_workers + 1


def test_cli_aliases():
    from codedlib.runtime.__main__ import config_from_args, parser

    cfg = config_from_args(
        parser().parse_args(["--scheme", "gc", "--workers", "4", "--s", "1", "--delay", "pareto"])
    )
    assert (cfg.n_workers, cfg.stragglers, cfg.s) == (4, 1, 0)
    assert cfg.delay.params == {"t0": 0.05, "xi": 2.5}
    assert DelayModel.parse("shifted-exp").to_text() == "shiftexp:shift=0.05,rate=20.0"


# ---------------------------------------------------------------------------- injection
def test_delay_models_match_latency_models():
    from codedlib.latency.models import pareto, shifted_exponential

    d = DelayModel.parse("shiftexp:shift=0.01,rate=100").sample(4000, 3, rng=0)
    assert d.min() >= 0.01
    assert abs(d.mean() - shifted_exponential(0.01, 100).mean()) < 0.001
    p = DelayModel.parse("pareto:t0=0.01,xi=3").sample(4000, 2, rng=1)
    assert p.min() >= 0.01 and abs(p.mean() - pareto(0.01, 3).mean()) < 0.002
    g = DelayModel.parse("gamma:mean=0.02,var=1e-5,spread=0.4").cluster(5).means()
    np.testing.assert_allclose(
        g, 0.02 * (1 + 0.4 * np.arange(1, 6) / 5)
    )  # Sec. VII-B: worker i = 1..N
    loads = [10, 20]
    c = DelayModel.parse("cr6:a=0.001,mu=2").cluster(2, loads)
    np.testing.assert_allclose(c.means(), [0.001 * 10 + 0.001 / 2, 0.001 * 20 + 0.001 / 2])
    # same seed, same draw
    m = DelayModel.parse("shiftexp:shift=0.01,rate=100", bursts="p_enter=0.2,p_exit=0.5,factor=4")
    np.testing.assert_array_equal(m.sample(20, 3, rng=5), m.sample(20, 3, rng=5))
    assert DelayModel.parse("none").sample(3, 2).sum() == 0


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 9)), max_size=4))
@settings(max_examples=30, deadline=None)
def test_freeze_sets_infinite_delays_from_the_iteration_on(freeze):
    delays = np.ones((10, 5))
    out = apply_freeze(delays, freeze)
    for w in range(5):
        starts = [t for ww, t in freeze if ww == w]
        expect_inf = np.arange(10) >= min(starts) if starts else np.zeros(10, bool)
        np.testing.assert_array_equal(np.isinf(out[:, w]), expect_inf)
    text = ",".join(f"{w}@{t}" for w, t in freeze)
    assert parse_freeze(text) == tuple(freeze)


# ---------------------------------------------------------------------------- plans
@given(st.integers(1, 12), st.integers(1, 5), st.integers(0, 50))
@settings(max_examples=40, deadline=None)
def test_dsag_subpartitions_tile_the_data_like_the_simulator(n_workers, p, extra):
    from codedlib.schemes.dsag import p_start, p_stop

    n = n_workers * p + extra
    ranges = [r for i in range(n_workers) for r in dsag_terms(n, n_workers, i, p)]
    assert [a for a, _, _ in ranges] == [0] + [b for _, b, _ in ranges[:-1]]  # contiguous
    assert ranges[-1][1] == n and all(b > a for a, b, _ in ranges)
    for i in range(n_workers):  # each worker's sub-partitions stay inside its simulator range
        mine = dsag_terms(n, n_workers, i, p)
        assert mine[0][0] == p_start(n, n_workers, i + 1) - 1 and mine[-1][1] == p_stop(
            n, n_workers, i + 1
        )


@pytest.mark.parametrize(
    "config",
    [
        RunConfig("gc", n_workers=5, stragglers=2, samples=53),
        RunConfig("umw", n_workers=4, samples=41),
        RunConfig("cr", n=3, L=2, s=1, samples=61),
        RunConfig("rs", n_workers=5, stragglers=2, samples=53),
        RunConfig("rs", n_workers=12, stragglers=3, samples=97),
    ],
    ids=["gc", "umw", "cr", "rs-5-2", "rs-12-3"],
)
def test_plans_recover_the_gradient_for_every_straggler_pattern(config):
    """In-process replay of the engines' plans: for every set of ``need`` surviving children
    at every node, the root's decoded sum equals the serial gradient (what the MPI run does,
    without MPI)."""

    from codedlib.runtime.config import build_problem
    from codedlib.runtime.nodes import local_gradient

    problem, _ = build_problem(config)
    theta = np.random.default_rng(3).standard_normal(problem.dim)
    exact = problem.partial_gradient(theta)
    plans = [config.spec.plan(config, problem.n_samples, r) for r in range(config.world_size)]
    rng = np.random.default_rng(0)

    def message(rank, root_pattern):
        plan = plans[rank]
        g = local_gradient(problem, theta, plan.terms)
        if plan.children:
            if rank == 0:
                pos = list(root_pattern)
            else:  # any n - s children of an inner node, in a random arrival order
                pos = list(rng.permutation(len(plan.children))[: plan.need])
            g = g + plan.combine(pos, [message(plan.children[p], root_pattern) for p in pos])
        if np.iscomplexobj(g):  # what a Reed-Solomon worker sends: [re, im] pairs
            g = g.view(np.float64)
        return g

    root = plans[0]
    for pattern in itertools.combinations(range(len(root.children)), root.need):
        got = message(0, rng.permutation(pattern))
        np.testing.assert_allclose(got, exact, rtol=1e-10, atol=1e-10 * np.abs(exact).max())


# ---------------------------------------------------------------------------- traces
def test_read_trace_parses_header_and_booleans(tmp_path):
    text = (
        "# made by hand\n"
        + ",".join(TRACE_COLUMNS)
        + "\n0,1,0.1,0.01,True,0.2,0.05,0.05,0,False,0\n"
    )
    df = read_trace(text)
    assert df["fresh"].dtype == bool and bool(df["fresh"].iloc[0]) and not df["used"].iloc[0]
    with pytest.raises(ValueError, match="missing"):
        read_trace("a,b\n1,2\n")


def test_recorded_traces_are_readable_and_fit_the_dsag_model():
    from codedlib.latency.gamma_model import fit_gamma_model
    from codedlib.latency.traces import list_traces, trace_path

    names = list_traces()
    assert {"umw-N12-real", "umw-N12-gamma-hetero", "cr-n3-L2-s1-shiftexp"} <= set(names)
    for name in names:
        path = trace_path(name)
        text = path.read_text()
        assert text.startswith("# recorded by: python -m codedlib.runtime.record_traces"), path
        assert "# injected:" in text and "# real:" in text
        df = read_trace(path)
        assert len(df) > 0 and (df["compute_time"] >= 0).all() and (df["comm_time"] >= 0).all()
    # the injected heterogeneous gamma delays show through the fitted per-worker means
    model = fit_gamma_model(read_trace(trace_path("umw-N12-gamma-hetero")))
    means = model.mean_latency()
    assert means[-1] > means[0] and 0.03 < means.mean() < 0.12
    with pytest.raises(ValueError, match="name must be one of"):
        trace_path("nope")


# ---------------------------------------------------------------------------- MPI runs
@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(150)
def test_mpi_all_schemes_on_4_processes():
    """GC, CR (n=3, L=1), UMW and RAR (MPI_Allreduce and the hand-written ring) recover the
    serial gradient exactly under injected stragglers; a frozen worker within tolerance does
    not stop GC."""
    proc = mpirun(4, ["codedlib.runtime.checks", "--frozen"], timeout=120)
    assert proc.returncode == 0, proc.stderr
    runs = check_lines(proc)
    kernels = runs.pop("allreduce-kernels")
    assert "tree(n=3,L=1,blocking=False)" in kernels["kernels"] and kernels["max_abs_error"] < 1e-12
    assert {
        "gc",
        "rs",
        "cr(n=3,L=1)",
        "rar",
        "rar-ring",
        "umw",
        "sgd",
        "dsag",
        "gc-frozen",
        "rs-frozen",
    } <= set(runs)
    for name, r in runs.items():
        assert r["iterations"] == 6, name
        if r["exact"]:
            assert r["max_grad_rel_error"] < 1e-10, (name, r)
    # SGD is checked against what it computes: the rescaled sum over the workers it used
    assert runs["sgd"]["max_grad_rel_error"] < 1e-10
    # the injected stragglers really changed who was waited for
    assert len(runs["gc"]["root_patterns"]) >= 2
    # worker 0 frozen from iteration 1 on: never among the survivors again, run completes
    frozen_run = runs["gc-frozen"]["root_survivors"]
    assert len(frozen_run) == 6 and all(0 not in used for used in frozen_run[1:])


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(150)
def test_mpi_gc_cr_rar_on_13_processes_with_frozen_workers():
    """N = 12: GC (S=3), CR on the (3, 2) tree of the paper's Example 2 and on (12, 1), and
    RAR recover the serial gradient exactly; CR keeps running with a frozen leaf and a frozen
    inner node under different parents."""
    proc = mpirun(13, ["codedlib.runtime.checks", "--frozen"], timeout=140)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr)
    runs = check_lines(proc)
    kernels = runs["allreduce-kernels"]  # tree aggregation and ring all-reduce vs MPI_Allreduce
    assert {"tree(n=3,L=2,blocking=False)", "tree(n=12,L=1,blocking=True)", "ring"} <= set(
        kernels["kernels"]
    )
    assert kernels["max_abs_error"] < 1e-12
    for name in (
        "gc",
        "rs",
        "cr(n=3,L=2)",
        "cr(n=12,L=1)",
        "rar",
        "gc-frozen",
        "rs-frozen",
        "cr(n=3,L=2)-frozen",
    ):
        assert name in runs, (name, proc.stdout, proc.stderr)
        assert runs[name]["iterations"] == 6
        assert runs[name]["max_grad_rel_error"] < 1e-10, runs[name]
    # inner node 1 frozen from iteration 2: the root decodes from nodes 0 and 2 afterwards
    assert all(used == [0, 2] for used in runs["cr(n=3,L=2)-frozen"]["root_survivors"][2:])
    # GC, S = 3: workers 0..2 frozen from iteration 1 on
    assert all(not {0, 1, 2} & set(used) for used in runs["gc-frozen"]["root_survivors"][1:])
    # RS-GC (Halbawi et al.), S = 3: workers 1..3 (a contiguous arc of evaluation points, the
    # worst-conditioned pattern) frozen from iteration 1; any 9 of 12 still decode exactly
    assert all(
        len(used) == 9 and not {1, 2, 3} & set(used)
        for used in runs["rs-frozen"]["root_survivors"][1:]
    )
    assert len(runs["rs"]["root_patterns"]) >= 2  # the injected stragglers changed who was used


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(120)
def test_mpi_cr_completes_with_a_sigstopped_worker(tmp_path):
    """CR on the (3, 2) tree with worker 4 really frozen (SIGSTOP) from iteration 2: every
    iteration completes with the exact gradient; at the end the root resumes the stopped
    worker (SIGCONT) so that it ends like the others, and the job exits 0 with no abort."""
    record = tmp_path / "checks.jsonl"
    proc = mpirun(
        13, ["codedlib.runtime.checks", "--sigstop", "--record", str(record)], timeout=110
    )
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr)
    assert "MPI_Abort" not in proc.stderr + proc.stdout and "BAD TERMINATION" not in proc.stdout
    runs = {d["name"]: d for d in map(json.loads, record.read_text().splitlines())}
    run = runs["cr(n=3,L=2)-sigstop"]
    assert run["iterations"] == 6 and run["max_grad_rel_error"] < 1e-10, run
    assert run["frozen"] == [[4, 2]] and run["unresponsive"] == []
    assert any("workers [4] were stopped (SIGSTOP)" in note for note in run["notes"]), run


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--scheme", "gc", "--N", "3", "--S", "1", "--freeze", "1@1,2@1"],
            ["needs results from 2 of its 3 workers", "missing: [1, 2]", "in iteration 1"],
        ),
        (
            [
                "--scheme",
                "cr",
                "--n",
                "3",
                "--L",
                "1",
                "--s",
                "1",
                "--freeze",
                "0@2,2@2",
                "--freeze-mode",
                "stop",
            ],
            ["needs results from 2 of its 3 children", "missing: [0, 2]", "in iteration 2"],
        ),
        (
            ["--scheme", "rar", "--N", "3", "--freeze", "2@1"],
            ["iteration 1 did not finish within timeout=1.5 s", "tolerates no straggler"],
        ),
    ],
)
def test_mpi_beyond_tolerance_stops_with_clear_error(args, message):
    """More frozen workers than tolerated (infinite injected delay, or SIGSTOP): the root
    stops the run after --timeout with a message naming the missing workers; never hangs."""
    proc = mpirun(
        4, ["codedlib.runtime", *args, "--iterations", "5", "--timeout", "1.5"], timeout=50
    )
    assert proc.returncode == 3, proc.stderr
    for text in message:
        assert text in proc.stderr


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(60)
def test_mpi_wrong_world_size_fails_fast():
    proc = mpirun(
        3, ["codedlib.runtime", "--scheme", "cr", "--n", "3", "--L", "2", "--s", "1"], timeout=50
    )
    assert proc.returncode == 2
    assert "needs 1 root + 12 workers = 13 MPI processes, but this run has 3" in proc.stderr
    assert "mpiexec -n 13" in proc.stderr


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(90)
def test_mpi_cli_writes_trace_and_loss_curve(tmp_path):
    out = tmp_path / "run"
    proc = mpirun(
        4,
        [
            "codedlib.runtime",
            "--scheme",
            "dsag",
            "--N",
            "3",
            "--w",
            "2",
            "--subpartitions",
            "2",
            "--iterations",
            "8",
            "--delay",
            "gamma:mean=0.01,var=2e-5,spread=0.4",
            "--t-c",
            "0.001",
            "--compare",
            "--out",
            str(out),
            "--trace",
            str(tmp_path / "t.csv"),
        ],
        timeout=80,
    )
    assert proc.returncode == 0, proc.stderr
    assert "injected: computation delay" in proc.stdout and "t_c=0.001" in proc.stdout
    assert "event-driven simulation" in proc.stdout  # --compare: DSAG's simulator prediction
    trace = read_trace(out / "trace.csv")
    assert list(trace.columns[:6]) == TRACE_COLUMNS[:6]
    assert read_trace(tmp_path / "t.csv").equals(trace)
    assert set(trace["worker"]) <= {0, 1, 2}
    assert (trace["comm_time"] > 0).all()
    # compute time = real computation + the injected delay, which dominates here
    assert (trace["compute_time"] >= trace["injected_delay"]).all()
    header = (out / "trace.csv").read_text().splitlines()[:5]
    assert header[0].startswith("# codedlib.runtime trace: scheme=dsag")
    import pandas as pd

    it = pd.read_csv(out / "iterations.csv", comment="#")
    assert len(it) == 8 and it["loss"].iloc[-1] < it["loss"].iloc[0]


def test_replay_uses_the_simulators_single_port_and_tree_timing():
    """One timing model (issue 14): the MPI prediction replays the injected delays through
    the paper-figure simulator; a hand-computed (2, 2) tree and a single-port master."""
    from codedlib.runtime.validation import replay_iteration_times

    cr = RunConfig("cr", n=2, L=2, s=1, t_c=1.0)
    # worker 0 waits for its faster child (1) + 1 s -> 2; worker 1 for its child (2) + 1 -> 3
    # but computes until 5; the root takes the first of {2, 5} + 1 s = 3
    assert replay_iteration_times(cr, [[0.0, 5.0, 1.0, 3.0, 2.0, 2.0]]).tolist() == [3.0]
    gc = RunConfig("gc", n_workers=3, stragglers=1, t_c=0.5)
    # ready at 0, 0.2, 9: the master receives two messages one after the other
    assert replay_iteration_times(gc, [[0.2, 0.0, 9.0]]).tolist() == [1.0]


@pytest.mark.parametrize(
    "config",
    [
        RunConfig("lagc", n_workers=6, redundancy=2, groups=2, samples=61),
        RunConfig("lagc", n_workers=6, redundancy=3, groups=1, samples=61),
        RunConfig("g-lag", n_workers=6, redundancy=3, samples=61),
    ],
    ids=["lagc-6-2-2", "lagc-gc", "g-lag"],
)
def test_lagc_groups_decode_their_gradient_from_any_fastest_workers(config):
    """LAGC's plans (the simulator's layout, theory.lagc): every group's gradient is decoded
    exactly from any ``wait_for`` of its workers, as the parameter server does on MPI."""
    from codedlib.problems import even_partition
    from codedlib.runtime.config import build_problem
    from codedlib.runtime.lagc import layout_of
    from codedlib.runtime.nodes import local_gradient

    problem, _ = build_problem(config)
    theta = np.random.default_rng(3).standard_normal(problem.dim)
    layout = layout_of(config)
    n_g, wait = layout.workers_per_group, layout.wait_for
    bounds = even_partition(problem.n_samples, config.n_workers)
    from codedlib.codes.cyclic import cyclic_repetition_code
    from codedlib.runtime.nodes import code_combine

    combine = (
        code_combine(cyclic_repetition_code(n_g, layout.stored_per_worker - 1))
        if layout.coded
        else (lambda positions, vectors: vectors[0])
    )
    for g in range(layout.n_groups):
        exact = problem.partial_gradient(theta, int(bounds[g * n_g]), int(bounds[(g + 1) * n_g]))
        msgs = [
            local_gradient(
                problem, theta, config.spec.plan(config, problem.n_samples, 1 + g * n_g + j).terms
            )
            for j in range(n_g)
        ]
        for pattern in itertools.permutations(range(n_g), wait):
            got = combine(list(pattern), [msgs[j] for j in pattern])
            np.testing.assert_allclose(got, exact, rtol=1e-10, atol=1e-10 * np.abs(exact).max())
    assert config.tolerated == n_g - wait


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(200)
@pytest.mark.parametrize(
    "args, n_procs, lazy",
    [
        (
            [
                "--scheme",
                "lagc",
                "--N",
                "6",
                "--r",
                "2",
                "--G",
                "2",
                "--xi",
                "0.01",
                "--freeze",
                "4@3",
            ],
            7,
            True,
        ),
        (["--scheme", "lagc", "--N", "6", "--r", "2", "--G", "2", "--xi", "0"], 7, False),
        (["--scheme", "g-lag", "--N", "4", "--r", "2", "--xi", "0.01", "--freeze", "1@3"], 5, True),
    ],
    ids=["lagc-lazy-frozen", "lagc-xi0", "g-lag-frozen"],
)
def test_mpi_lagc_and_g_lag_decode_exactly_and_skip_groups(args, n_procs, lazy, tmp_path):
    """LAGC / G-LAG on real processes: every selected group's gradient equals the serial one
    (--check), a frozen worker within a group's tolerance is survived, and with xi > 0 the
    selection rule (17) skips groups (fewer tasks), with xi = 0 it never does."""
    out = tmp_path / "run"
    proc = mpirun(
        n_procs,
        [
            "codedlib.runtime",
            *args,
            "--iterations",
            "40",
            "--delay",
            "shiftexp:shift=0.005,rate=200",
            "--check",
            "--timeout",
            "20",
            "--out",
            str(out),
            "--quiet",
        ],
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    import pandas as pd

    its = pd.read_csv(out / "iterations.csv", comment="#")
    assert len(its) == 40 and its["grad_rel_error"].max() < 1e-10
    assert its["loss"].iloc[-1] < its["loss"].iloc[0]
    meta = json.loads((out / "run.json").read_text())
    selected = meta["groups_selected"]
    G = meta["config"]["groups"]
    assert selected[0] == G
    assert (np.mean(selected) < G) if lazy else all(s == G for s in selected)
    if "--freeze" in args:
        frozen = int(args[args.index("--freeze") + 1].split("@")[0])
        trace = read_trace(out / "trace.csv")
        used = trace[(trace["worker"] == frozen) & trace["used"]]["iteration"]
        assert used.empty or used.max() < 3  # never used after it froze


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(200)
def test_mpi_dsag_load_balancer_gives_slow_workers_smaller_tasks(tmp_path):
    """DSAG-LB (Section VI) on real processes: with per-worker mean delays 1x, 1.5x, 2x (gamma,
    spread 1.5), the coordinator's balancer, from the latencies it profiles, moves the
    workers' sub-partitions apart: the slowest ends with the most (smallest tasks)."""
    out = tmp_path / "run"
    proc = mpirun(
        4,
        [
            "codedlib.runtime",
            "--scheme",
            "dsag-lb",
            "--N",
            "3",
            "--w",
            "2",
            "--subpartitions",
            "4",
            "--samples",
            "600",
            "--iterations",
            "80",
            "--delay",
            "gamma:mean=0.02,var=1e-5,spread=1.5",
            "--lb-interval",
            "0.2",
            "--lb-window",
            "0.8",
            "--timeout",
            "20",
            "--out",
            str(out),
            "--quiet",
        ],
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    meta = json.loads((out / "run.json").read_text())
    assert meta["repartitions"], meta["notes"]
    final = meta["subpartitions_final"]
    assert final[2] > final[0], final
    import pandas as pd

    its = pd.read_csv(out / "iterations.csv", comment="#")
    # every iteration ran (the optimizer runs between iterations); whether the loss falls over
    # 80 iterations depends on the run's timing for DSAG at this step size, with or without LB
    assert len(its) == 80 and np.isfinite(its["loss"]).all()
