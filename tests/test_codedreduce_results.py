"""CodedReduce results (issue item 4): experiments return namespaces or frames whose frames have
snake_case columns; display labels live in ``plots.codedreduce.LABELS``; every ``plot_*``
takes ``title=``."""

import inspect
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from codedlib.codes.codedreduce import allocate  # noqa: E402
from codedlib.experiments import codedreduce as ex  # noqa: E402
from codedlib.plots import codedreduce as crplots  # noqa: E402
from codedlib.replicate import over_seeds  # noqa: E402

SNAKE = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]*$")  # single-letter symbols (N, L, S) allowed


def _columns(frame):
    names = list(frame.columns) + [n for n in frame.index.names if n is not None]
    return [str(n) for n in names]


@pytest.fixture(scope="module")
def frames():
    conv = ex.convergence_over_seeds(
        "fig8", quick=True, n_iterations=5, seeds=[1, 2], sgd_learning_rate=(10.0, 100.0)
    )
    f2 = ex.fig2_summary(over_seeds(ex.fig2_measure, [1, 2], n_iterations=10))
    sweep = ex.model_speedup_range(
        {"N84": (4, 3, 1, 7644, 6500)},
        bandwidths=(1.25e7,),
        latencies=(3e-4,),
        a_mus=(1.0,),
        straggle_delays=(0.0,),
        n_iterations=5,
    )
    return {
        "example1": ex.example1_gc().table,
        "load_curves": ex.load_curves(alphas=[0.1, 0.5]),
        "table1": ex.table1(),
        "theorem2": ex.theorem2_check(ns=(8,), n_iterations=20),
        "fig2": ex.fig2_iteration_times(n_iterations=10),
        "fig2_summary": f2.summary,
        "fig2_per_seed": f2.per_seed,
        "sweep": sweep,
        "sweep_summary": ex.speedup_range_summary(sweep),
        "breakdown": ex.time_breakdown(n_iterations=10),
        "regime_map": ex.regime_map(
            bandwidths=(1.25e7, 1.25e9),
            latencies=(1e-5, 1e-2),
            straggle_delays=(0.0,),
            n_iterations=5,
        ),
        "curves": conv.curves,
        "speedups": conv.speedups,
        "final": conv.final,
        "intervals": ex.speedup_intervals(conv.speedups),
        "load_table": ex.load_table(),
    }


def test_every_frame_has_snake_case_columns(frames):
    for name, frame in frames.items():
        bad = [c for c in _columns(frame) if not SNAKE.match(c)]
        assert not bad, f"{name}: {bad}"


def test_labels_give_back_the_display_names(frames):
    shown = frames["fig2_summary"].rename(columns=crplots.LABELS)
    assert {"mean iteration time [s]", "CR speedup (ours)", "CR speedup (paper)"} <= set(
        shown.columns
    )
    assert {"ci low [s]", "ci high [s]", "speedup ci low", "speedup ci high"} <= set(shown.columns)
    np.testing.assert_array_equal(
        shown.to_numpy(dtype=float), frames["fig2_summary"].to_numpy(dtype=float)
    )
    thm = frames["theorem2"].rename(columns=crplots.LABELS)
    assert {"lower (7)", "Monte Carlo E[T_CR]", "MC - E[T_(n-s)]", "ci low"} <= set(thm.columns)
    # no two columns of a frame share a label
    for name, frame in frames.items():
        shown = frame.rename(columns=crplots.LABELS)
        assert len(set(shown.columns)) == len(shown.columns), name
    assert len(set(crplots.LABELS.values())) == len(crplots.LABELS)


def test_results_have_snake_case_fields():
    conv = ex.convergence("fig8", quick=True, n_iterations=4, sgd_learning_rate=(10.0, 100.0))
    for result in (ex.example1_gc(), ex.example2_codedreduce(), ex.seven_times_claim(), conv):
        for field in vars(result):
            assert SNAKE.match(field) and field == field.lower()


def test_every_plot_takes_title():
    public = [f for n, f in vars(crplots).items() if n.startswith("plot_")]
    for func in public:
        param = inspect.signature(func).parameters.get("title")
        assert param is not None, func.__name__
        assert param.default is None and param.kind is inspect.Parameter.KEYWORD_ONLY


def _titles(fig):
    texts = [ax.get_title() for ax in fig.axes]
    if fig._suptitle is not None:
        texts.append(fig._suptitle.get_text())
    return texts


def test_title_replaces_the_default(frames):
    alloc = allocate(3, 2, 1, 15)
    code = ex.example1_gc().code
    conv = ex.convergence("fig8", quick=True, n_iterations=4, sgd_learning_rate=(10.0, 100.0))
    claim = ex.seven_times_claim()
    calls = {
        "tree": lambda **kw: crplots.plot_tree(alloc, **kw),
        "topologies": lambda **kw: crplots.plot_topologies(**kw),
        "gc": lambda **kw: crplots.plot_gc_diagram(code, **kw),
        "rar": lambda **kw: crplots.plot_rar_schedule(3, **kw),
        "load": lambda **kw: crplots.plot_load_curves(frames["load_curves"], claim=claim, **kw),
        "theorem2": lambda **kw: crplots.plot_theorem2(frames["theorem2"], **kw),
        "iteration": lambda **kw: crplots.plot_iteration_times(frames["fig2_summary"], **kw),
        "convergence": lambda **kw: crplots.plot_convergence(conv, **kw),
        "breakdown": lambda **kw: crplots.plot_time_breakdown({"a": frames["breakdown"]}, **kw),
        "regime": lambda **kw: crplots.plot_regime_map(frames["regime_map"], **kw),
        "speedups": lambda **kw: crplots.plot_speedups_vs_paper(
            pd.DataFrame(
                {
                    "figure": ["fig2"],
                    "scheme": ["GC"],
                    "paper": [6.4],
                    "ours": [6.8],
                    "ci_low": [6.7],
                    "ci_high": [6.9],
                }
            ),
            **kw,
        ),
    }
    for name, call in calls.items():
        fig = call(title="my own title")
        assert "my own title" in _titles(fig), name
        plt.close(fig)
    # defaults are the documented helpers
    fig = crplots.plot_tree(alloc)
    assert fig.axes[0].get_title() == crplots.tree_title(alloc)
    plt.close(fig)
    fig = crplots.plot_gc_diagram(code)
    assert fig.axes[0].get_title() == crplots.gc_title(code)
    plt.close(fig)
