"""The seed runner: one frame per sweep, the same on every executor, clear errors."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from codedlib import replicate
from codedlib.replicate import check_seeds, first_reach, over_seeds, spawn_seeds


def two_arms(seed, n):
    rng = np.random.default_rng(seed)
    return [
        {"arm": "slow", "t": float(rng.exponential(size=n).sum() + 2)},
        {"arm": "fast", "t": float(rng.exponential(size=n).sum() + 1)},
    ]


def curve(seed, steps=5):
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.uniform(0.5, 1.5, steps))
    return pd.DataFrame({"method": "m", "time": t, "gap": 10.0 ** -np.arange(steps)})


def test_serial_frame_has_seed_column_in_seed_order():
    frame = over_seeds(two_arms, [3, 1, 2], executor=1, n=4)
    assert frame.columns.tolist() == ["seed", "arm", "t"]
    assert frame.seed.tolist() == [3, 3, 1, 1, 2, 2]
    again = two_arms(1, 4)
    assert frame.t.iloc[2] == again[0]["t"]


def test_processes_give_the_serial_frame():
    serial = over_seeds(curve, range(6), executor=1, steps=7)
    parallel = over_seeds(curve, range(6), executor=2, steps=7)
    pd.testing.assert_frame_equal(serial, parallel)


def test_default_executor_reads_the_environment(monkeypatch):
    monkeypatch.setenv("CODEDLIB_WORKERS", "1")
    assert replicate.default_workers() == 1
    monkeypatch.setenv("CODEDLIB_WORKERS", "0")
    with pytest.raises(ValueError, match="CODEDLIB_WORKERS"):
        replicate.default_workers()


@pytest.mark.parametrize(
    "seeds, match",
    [([], "at least one"), ([1, 1], "distinct"), ([-1], "seed"), (0, "seeds"), ([1.5], "seed")],
)
def test_bad_seeds(seeds, match):
    with pytest.raises(ValueError, match=match):
        check_seeds(seeds)


@pytest.mark.parametrize("executor", [0, True, "four", object()])
def test_bad_executor(executor):
    with pytest.raises(ValueError, match="executor"):
        over_seeds(curve, [0], executor=executor)


def test_a_measure_returning_something_else_is_refused():
    with pytest.raises(TypeError, match="mapping"):
        over_seeds(np.sqrt, [4], executor=1)


def test_spawn_seeds_is_the_seed_sequence_policy():
    seeds = spawn_seeds(7, 3)
    expected = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(7).spawn(3)]
    assert seeds == expected and len(set(seeds)) == 3


def test_first_reach():
    assert first_reach([1, 2, 3], [1.0, 0.1, 0.01], 0.1) == 2
    assert np.isnan(first_reach([1, 2, 3], [1.0, 0.1, 0.01], 1e-3))
    assert first_reach([1, 2, 3], [0.2, 0.5, 0.9], 0.5, below=False) == 2


def test_ipyparallel_cluster_gives_the_serial_frame():
    ipp = pytest.importorskip("ipyparallel")
    cloudpickle = pytest.importorskip("cloudpickle")
    serial = over_seeds(curve, range(4), executor=1, steps=6)
    # the engines cannot import this test module: send its functions by value, as a notebook's
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with ipp.Cluster(n=2, log_level=40) as client:
        client.wait_for_engines(2, timeout=120)
        client[:].use_cloudpickle()
        on_cluster = over_seeds(curve, range(4), executor=client, steps=6)
        replicate.set_default_executor(client)
        try:
            by_default = over_seeds(curve, range(4), steps=6)
        finally:
            replicate.set_default_executor(None)
    pd.testing.assert_frame_equal(serial, on_cluster)
    pd.testing.assert_frame_equal(serial, by_default)


def test_a_function_defined_after_the_pool_started_reaches_the_workers():
    over_seeds(curve, range(2), executor=2)  # the pool exists now
    namespace = {}
    exec(  # a notebook's own measure: defined in __main__-like code, not importable
        "import numpy as np\ndef late(seed, scale):\n    return {'x': scale * np.random.default_rng(seed).random()}",
        namespace,
    )
    late = namespace["late"]
    serial = over_seeds(late, range(4), executor=1, scale=3.0)
    pd.testing.assert_frame_equal(serial, over_seeds(late, range(4), executor=2, scale=3.0))


def test_no_executor_means_the_default(monkeypatch):
    monkeypatch.setenv("CODEDLIB_WORKERS", "2")
    pd.testing.assert_frame_equal(
        over_seeds(curve, range(3), executor=1), over_seeds(curve, range(3))
    )
