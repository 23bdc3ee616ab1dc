"""codedlib.runtime from notebooks: run_for_real (mpiexec and ipyparallel backends), the
simulator comparison, the runtime plots and the widget."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import matplotlib
import numpy as np
import pytest

# MPI jobs from this file run on the same pytest-xdist worker as tests/test_runtime.py
pytestmark = pytest.mark.mpi

matplotlib.use("Agg")

from codedlib.runtime.config import RunConfig
from codedlib.runtime.notebook import mpiexec_path, scheme_config
from codedlib.runtime.validation import (
    compare_with_simulator,
    predict_iteration_time,
    replay_iteration_times,
)

try:
    mpiexec_path()
    HAVE_MPI = True
except RuntimeError:
    HAVE_MPI = False
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="mpiexec not found")


# ---------------------------------------------------------------------------- configs
def test_scheme_config_sizes():
    assert scheme_config("cr", quick=True).world_size == 7
    assert scheme_config("cr", quick=False).world_size == 13
    assert scheme_config("gc", quick=False).stragglers == 3
    cfg = scheme_config("gc", quick=True, n_workers=5)
    assert cfg.n_workers == 5 and cfg.stragglers == 0
    with pytest.raises(ValueError, match="scheme must be one of"):
        scheme_config("ring")
    with pytest.raises(ValueError, match=r"stragglers must satisfy"):
        scheme_config("gc", n_workers=3, stragglers=5)


# ---------------------------------------------------------------------------- simulator side
def test_replay_matches_order_statistics_and_tree_recursion():
    rng = np.random.default_rng(0)
    d = rng.exponential(size=(50, 6))
    gc = RunConfig("gc", n_workers=6, stragglers=2)
    np.testing.assert_allclose(replay_iteration_times(gc, d), np.sort(d, axis=1)[:, 3])
    umw = RunConfig("umw", n_workers=6)
    np.testing.assert_allclose(replay_iteration_times(umw, d), d.max(axis=1))
    # (2, 2) tree, s = 1: root needs 1 of its 2 children; child j waits for itself and 1 of
    # its 2 leaves (worker indices 2 + 2j, 3 + 2j)
    cr = RunConfig("cr", n=2, L=2, s=1)
    inner = [np.maximum(d[:, j], np.minimum(d[:, 2 + 2 * j], d[:, 3 + 2 * j])) for j in range(2)]
    np.testing.assert_allclose(replay_iteration_times(cr, d), np.minimum(*inner))
    # single-port: t_c per handled message, messages one at a time
    a = np.array([[0.0, 0.0, 5.0]])
    port = RunConfig("umw", n_workers=3, t_c=1.0)
    assert replay_iteration_times(port, a)[0] == pytest.approx(6.0)


@pytest.mark.parametrize(
    "config",
    [
        RunConfig(
            "gc", n_workers=6, stragglers=2, delay="shiftexp:shift=0.01,rate=100", iterations=20
        ),
        RunConfig("sgd", n_workers=5, stragglers=1, delay="pareto:t0=0.01,xi=3", iterations=20),
        RunConfig(
            "rar",
            n_workers=4,
            allreduce="ring",
            t_c=0.001,
            delay="gamma:mean=0.02,var=1e-5,spread=0.4",
            iterations=20,
        ),
    ],
)
def test_closed_form_prediction_agrees_with_monte_carlo_replay(config):
    closed = predict_iteration_time(config)
    assert "order_stats" in closed["method"]
    draws = config.delay.sample(20000, config.n_workers, rng=1, loads=None)
    mc = replay_iteration_times(config, draws)
    assert abs(mc.mean() - closed["mean"]) < 4 * mc.std() / np.sqrt(mc.size) + 1e-9


# ---------------------------------------------------------------------------- real runs
@pytest.fixture(scope="module")
def quick_runs():
    from codedlib.runtime.notebook import run_for_real

    gc = run_for_real("gc", quick=True, backend="mpiexec", iterations=8)  # ~0.1 s each
    ring = run_for_real(
        "rar", quick=True, backend="mpiexec", iterations=6, allreduce="ring", t_c=0.001
    )
    return {"gc": gc, "rar-ring": ring}


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(120)
def test_run_with_mpiexec_and_compare_with_simulator(quick_runs):
    gc = quick_runs["gc"]
    assert gc.iterations["grad_rel_error"].max() < 1e-10
    assert set(gc.trace["worker"]) == {0, 1, 2}
    table = compare_with_simulator(quick_runs)
    assert list(table["name"]) == ["gc", "rar-ring"]
    row = table.iloc[0]
    # the replay of the injected draw can only be faster than the real run (real costs add)
    assert row["replayed"] <= row["measured"] * 1.02
    assert row["predicted"] == pytest.approx(
        0.05 + (1 / 3 + 1 / 2) / 20
    )  # E[X_(2:3)], shifted exp.


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(120)
def test_beyond_tolerance_error_reaches_the_notebook():
    from codedlib.runtime.notebook import run_for_real

    with pytest.raises(RuntimeError, match="needs results from 2 of its 3 workers"):
        run_for_real(
            "gc", quick=True, backend="mpiexec", freeze="0@1,2@1", timeout=1.0, iterations=4
        )


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(120)
def test_runs_of_one_world_size_share_one_job(monkeypatch):
    """real_runs: consecutive runs of one world size are one mpiexec job
    (codedlib.runtime.batch), each result its own run; a failing run ends its job, which
    returns the runs before it and the error, and real_runs raises it."""
    import codedlib.runtime.notebook as nbmod

    jobs, batch = [], nbmod.run_batch_with_mpiexec
    monkeypatch.setattr(
        nbmod,
        "run_batch_with_mpiexec",
        lambda configs: jobs.append([c.scheme for c in configs]) or batch(configs),
    )
    fast = {"iterations": 4, "delay": "shiftexp:shift=0.01,rate=100"}
    results, table, not_run = nbmod.real_runs(["gc", "umw", "cr"], **fast)
    assert jobs == [["gc", "umw"], ["cr"]]  # 4, 4 and 7 processes
    assert {s: r.meta["scheme"] for s, r in results.items()} == {s: s for s in results}
    assert list(results) == list(table["name"]) == ["gc", "umw", "cr"] and not not_run
    assert all(len(r.iterations) == 4 for r in results.values())
    frozen = scheme_config("gc", freeze="0@1,2@1", timeout=1.0, **fast)
    done, error = batch([scheme_config("umw", **fast), frozen, scheme_config("gc", **fast)])
    assert [r.meta["scheme"] for r in done] == ["umw"]
    assert isinstance(error, RuntimeError)
    assert "needs results from 2 of its 3 workers" in str(error)
    with pytest.raises(RuntimeError, match="needs results from 2 of its 3 workers"):
        nbmod.real_runs({"umw": {}, "gc": {"freeze": "0@1,2@1", "timeout": 1.0}}, **fast)


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(180)
def test_run_for_real_on_ipyparallel_mpi_engines():
    from codedlib.runtime.notebook import run_for_real

    result = run_for_real("gc", quick=True, iterations=5)
    assert result.meta["world_size"] == 4
    assert result.iterations["grad_rel_error"].max() < 1e-10
    assert {"iteration", "worker", "compute_time", "comm_time", "fresh", "wall_clock"} <= set(
        result.trace
    )


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(180)
def test_mpi_cluster_shuts_down_on_error():
    from codedlib.runtime.notebook import mpi_cluster

    with pytest.raises(KeyError), mpi_cluster(2) as view:
        pids = view.apply_sync(os.getpid)
        assert len(pids) == 2
        raise KeyError("boom")
    deadline = time.time() + 20
    alive = list(pids)
    while alive and time.time() < deadline:
        alive = [p for p in alive if _alive(p)]
        time.sleep(0.2)
    assert not alive


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie waiting to be reaped counts as gone
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


# ---------------------------------------------------------------------------- plots, widget
@needs_mpi
@pytest.mark.mpi
def test_runtime_plots(quick_runs):
    import matplotlib.pyplot as plt

    from codedlib.plots import runtime as rp

    table = compare_with_simulator(quick_runs)
    figs = [
        rp.plot_iteration_times(quick_runs),
        rp.plot_worker_latency(quick_runs["gc"].trace),
        rp.plot_loss_vs_time(quick_runs, metric="normalized_error"),
        rp.plot_measured_vs_predicted(table),
    ]
    for fig in figs:
        assert fig.axes and fig.axes[0].has_data()
        plt.close(fig)


def test_widget_shows_errors_instead_of_raising():
    from codedlib.widgets.runtime import config_from_controls, explore_run_for_real

    box = explore_run_for_real(quick=True, backend="mpiexec")
    ctl = box.controls
    ctl["scheme"].value = "cr"
    assert "7 MPI processes" in box.status.value
    ctl["s"].value = 5
    assert "s must satisfy" in box.status.value
    assert box.controls["N"].layout.display == "none" and box.controls["s"].layout.display == ""
    box.run_button.click()  # bad input: shows the error, runs nothing
    assert "s must satisfy" in box.messages.value and box.image.layout.display == "none"
    assert not box.run_button.disabled
    ctl["s"].value = 1
    ctl["delay"].value = "pareto:t0=0.05,xi=-1"
    assert "xi must satisfy" in box.status.value
    values = {
        "scheme": "gc",
        "N": 3,
        "S": 1,
        "n": 2,
        "L": 2,
        "s": 1,
        "w": 2,
        "delay": "pareto:t0=0.05,xi=2.5",
        "t_c_ms": 2.0,
        "iterations": 3,
    }
    cfg = config_from_controls(values, quick=True)
    assert cfg.delay.params == {"t0": 0.05, "xi": 2.5} and cfg.t_c == 0.002 and cfg.stragglers == 1
    with pytest.raises(ValueError, match="t_c"):
        config_from_controls({**values, "t_c_ms": -1.0})
    with pytest.raises(ValueError, match="schemes must be"):
        explore_run_for_real(schemes=("nope",))


@needs_mpi
@pytest.mark.mpi
@pytest.mark.timeout(120)
def test_widget_runs_a_scheme():
    from codedlib.widgets.runtime import explore_run_for_real

    box = explore_run_for_real(
        schemes=("gc",), quick=True, backend="mpiexec", delay="shiftexp:shift=0.01,rate=100"
    )
    box.controls["iterations"].value = 4
    box.run_button.click()
    text = box.messages.value
    assert "max relative gradient error vs serial" in text
    assert "simulator prediction for the injected model" in text
    assert box.image.value[:4] == b"\x89PNG" and box.image.layout.display == ""
    assert not box.run_button.disabled and box.progress.layout.display == "none"


def test_a_run_killed_from_outside_is_a_visible_not_run_row(monkeypatch, tmp_path):
    """real_run_section: a scheme whose every attempt lost a rank to an outside SIGKILL is
    reported (table row, figure text, warning), the others still run and are compared."""
    import codedlib.runtime.notebook as nbmod
    from codedlib.plots.runtime import real_run_section

    calls = []

    def fake_batch(configs):  # every job loses a rank in its first run
        calls.append([c.scheme for c in configs])
        return [], nbmod.KilledFromOutside("an MPI rank was SIGKILLed from outside the job")

    monkeypatch.setattr(nbmod, "run_batch_with_mpiexec", fake_batch)
    with pytest.warns(RuntimeWarning, match="SIGKILLed from outside"):
        results, table = real_run_section(["gc", "umw"], fig_dir=tmp_path, figure="killed")
    assert results == {} and calls == [["gc", "umw"], ["umw"]]  # umw again, in a new job
    assert table["name"].tolist() == ["gc", "umw"]
    assert table["method"].str.startswith("not run:").all() and table["measured"].isna().all()
    assert (tmp_path / "killed.png").exists()


def test_a_worker_rank_builds_its_plan_without_the_heavy_libraries():
    """A worker of every scheme (its config unpickled from rank 0, as ``main`` sends it)
    builds its data and plan without scipy.stats & co (an LAGC worker once imported
    theory.lagc: 1 s of CPU on each of 12 ranks)."""
    import pickle

    from codedlib.runtime.registry import SCHEMES

    configs = [scheme_config(s, quick=False) for s in SCHEMES]
    code = (
        "import pickle, sys\n"
        "from codedlib.runtime.config import build_problem\n"
        "for c in pickle.loads(sys.stdin.buffer.read()):\n"
        "    c.spec.plan(c, build_problem(c)[0].n_samples, 1)\n"
        "print(sorted(m for m in ('numba', 'scipy.stats', 'scipy.optimize', 'pandas') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps(configs), capture_output=True, check=True
    )
    assert out.stdout.decode().strip() == "[]", out.stdout


def test_the_mpi_package_does_not_draw():
    """Layering: importing codedlib.runtime's modules loads no plotting."""
    code = (
        "import sys, pkgutil, importlib, codedlib.runtime as r\n"
        "for m in pkgutil.iter_modules(r.__path__):\n"
        "    if m.name != '__main__': importlib.import_module('codedlib.runtime.' + m.name)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('codedlib.plots', 'matplotlib'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_an_mpi_rank_starts_without_the_heavy_libraries():
    """Every rank of every ``mpiexec`` imports the entry point, the registry and the engines;
    numba, scipy.stats, scipy.optimize and pandas (about 2 s of CPU per process together) load
    only where they are used: the simulator, the analysis, the root's trace at the end."""
    code = (
        "import sys, codedlib.runtime.__main__, codedlib.runtime.engines\n"
        "print(sorted(m for m in ('numba', 'scipy.stats', 'scipy.optimize', 'pandas') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
