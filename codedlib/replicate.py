"""Run a measure once per seed and stack the results: the one replication runner.

``over_seeds(measure, seeds, **setting)`` calls ``measure(seed, **setting)`` (returning a
mapping, a list of mappings or a ``DataFrame``) for every seed and stacks the rows in seed
order with a ``seed`` column first, so every ``executor`` returns the serial run's frame:
``None`` the session default (:func:`set_default_executor`, else ``CODEDLIB_WORKERS``
processes, else every core), an ``int`` that many local processes (``1``: this one), or an
ipyparallel client or view (its engines must import ``codedlib``). The measure travels with
cloudpickle (a notebook's function too); :func:`spawn_seeds` derives replica seeds.

>>> import numpy as np
>>> def draw(seed, n):
...     return {"mean": float(np.random.default_rng(seed).normal(size=n).mean())}
>>> over_seeds(draw, [0, 1], executor=1, n=4).columns.tolist()
['seed', 'mean']
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from codedlib._validation import check_int
from codedlib.progress import track

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: ``None`` (the default), a number of local worker processes, or an ipyparallel client/view.
Executor = Any
Measure = Callable[..., Mapping | Sequence[Mapping] | pd.DataFrame]

_default: Executor = None
_pools: dict[int, ProcessPoolExecutor] = {}


def spawn_seeds(seed: int, n: int) -> list[int]:
    """``n`` independent replica seeds from one base ``seed`` (``SeedSequence(seed).spawn``)."""
    seed = check_int("seed", seed, low=0)
    n = check_int("n", n, low=1)
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(n)]


def check_seeds(seeds: int | Iterable[int]) -> list[int]:
    """Distinct non-negative integer seeds; an int ``n`` means ``range(n)``."""
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool):
        seeds = range(check_int("seeds", seeds, low=1))
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds must hold at least one seed, got seeds=[]")
    checked = [check_int("seed", s, low=0) for s in seeds]
    if len(set(checked)) != len(checked):
        raise ValueError(f"seeds must be distinct (independent replicas), got seeds={checked}")
    return checked


def default_workers() -> int:
    """``CODEDLIB_WORKERS`` if set, else the cores this process may use."""
    env = os.environ.get("CODEDLIB_WORKERS", "").strip()
    if env:
        return check_int("CODEDLIB_WORKERS", int(env), low=1)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def set_default_executor(executor: Executor) -> None:
    """The executor ``over_seeds`` uses when given none (``None`` restores the default)."""
    global _default
    _default = _check_executor(executor)


def _check_executor(executor: Executor) -> Executor:
    if executor is None:
        return None
    if isinstance(executor, (int, np.integer)) and not isinstance(executor, bool):
        return check_int("executor", executor, low=1)
    if hasattr(executor, "map_sync") or hasattr(executor, "load_balanced_view"):
        return executor
    raise ValueError(
        "executor must be None, a worker count >= 1 or an ipyparallel Client/View, "
        f"got executor={executor!r}"
    )


@atexit.register
def _shutdown_pools() -> None:
    for pool in _pools.values():
        pool.shutdown(wait=False, cancel_futures=True)
    _pools.clear()


class _Call:
    """``measure(seed, **setting)``, pickled with cloudpickle (a notebook's function too)."""

    def __init__(self, measure: Measure, setting: Mapping):
        self.measure, self.setting = measure, dict(setting)

    def __getstate__(self):
        import cloudpickle

        return cloudpickle.dumps((self.measure, self.setting))

    def __setstate__(self, state):
        import pickle

        self.measure, self.setting = pickle.loads(state)

    def __call__(self, seed: int):
        return self.measure(seed, **self.setting)


def _run(call: _Call, seeds: list[int], executor: Executor, desc: str) -> list:
    executor = _default if executor is None else executor
    executor = default_workers() if executor is None else _check_executor(executor)
    if isinstance(executor, int):
        workers = min(executor, len(seeds))
        if workers <= 1:
            return [call(s) for s in track(seeds, desc)]
        if executor not in _pools:
            _pools[executor] = ProcessPoolExecutor(max_workers=executor)
        futures = [_pools[executor].submit(call, s) for s in seeds]
        return [f.result() for f in track(futures, desc)]
    view = executor.load_balanced_view() if hasattr(executor, "load_balanced_view") else executor
    return list(track(view.map_sync(call, seeds), desc, total=len(seeds)))


def _rows(seed: int, out) -> pd.DataFrame:
    if isinstance(out, pd.DataFrame):
        frame = out.copy()
    elif isinstance(out, Mapping):
        frame = pd.DataFrame([dict(out)])
    elif isinstance(out, Sequence) and all(isinstance(r, Mapping) for r in out):
        frame = pd.DataFrame([dict(r) for r in out])
    else:
        raise TypeError(
            f"a measure returns a mapping, a list of mappings or a DataFrame, got {type(out).__name__}"
        )
    if "seed" in frame:
        frame = frame.drop(columns="seed")
    frame.insert(0, "seed", seed)
    return frame


def over_seeds(
    measure: Measure,
    seeds: int | Iterable[int],
    *,
    executor: Executor = None,
    desc: str | None = None,
    **setting,
) -> pd.DataFrame:
    """``measure(seed, **setting)`` for every seed, stacked in seed order with a ``seed``
    column; ``desc`` labels the progress bar (default: the measure's name)."""
    if not callable(measure):
        raise ValueError(f"measure must be callable, got measure={measure!r}")
    seeds = check_seeds(seeds)
    outs = _run(_Call(measure, setting), seeds, executor, desc or measure.__name__)
    return pd.concat([_rows(s, o) for s, o in zip(seeds, outs)], ignore_index=True)


def first_reach(x: ArrayLike, y: ArrayLike, target: float, *, below: bool = True) -> float:
    """The first recorded ``x`` at which ``y`` reaches ``target`` (``y <= target`` when
    ``below``, else ``y >= target``); NaN if it never does."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have one shape, got {x.shape} and {y.shape}")
    ok = y <= target if below else y >= target
    return float(x[np.argmax(ok)]) if ok.any() else float("nan")
