"""Master--worker schemes on MPI: root rank 0, workers 1..N, plans from the ``codes`` functions.

UMW sums all N even partitions; SGD rescales the first ``N - S`` by ``N / (N - S)``; GC is
Tandon et al.'s cyclic code decoded from any ``N - S``; RS-GC (Halbawi et al.) has ``k = N``,
``w = S + 1`` (so ``s = S``), sends ``[re, im]`` pairs and decodes by Algorithm 3.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from codedlib.codes.cyclic import cyclic_repetition_code
from codedlib.codes.reed_solomon import reed_solomon_gradient_code
from codedlib.problems import even_partition
from codedlib.runtime.nodes import NodePlan, RootNode, code_combine, scaled_sum

if TYPE_CHECKING:
    from codedlib.codes.protocol import GradientCodeLike
    from codedlib.codes.reed_solomon import ReedSolomonGradientCode
    from codedlib.runtime.config import RunConfig
    from codedlib.runtime.nodes import Combine


def star_plan(
    config: RunConfig,
    n_samples: int,
    rank: int,
    need: int = 0,
    combine: Combine | None = None,
    label: str = "root",
) -> NodePlan:
    """Root: all workers as children; worker ``i``: its even partition (uncoded)."""
    N = config.n_workers
    if rank == 0:
        return NodePlan(0, None, list(range(1, N + 1)), need=need, combine=combine, label=label)
    bounds = even_partition(n_samples, N)
    i = rank - 1
    return NodePlan(rank, 0, terms=[(int(bounds[i]), int(bounds[i + 1]), 1.0)], label=f"worker {i}")


def umw_plan(config: RunConfig, n_samples: int, rank: int) -> NodePlan:
    """Uncoded, the master waits for all N workers."""
    return star_plan(config, n_samples, rank, config.n_workers, scaled_sum(1.0))


def sgd_plan(config: RunConfig, n_samples: int, rank: int) -> NodePlan:
    """Uncoded, the master uses the first ``N - S`` results, rescaled by ``N / (N - S)``."""
    need = config.n_workers - config.stragglers
    return star_plan(config, n_samples, rank, need, scaled_sum(config.n_workers / need))


def _coded(
    config: RunConfig, n_samples: int, rank: int, code: GradientCodeLike, combine: Combine
) -> NodePlan:
    """Worker ``i`` computes ``sum_j B[i, j] g_j`` over the code's N partitions."""
    N = config.n_workers
    if rank == 0:
        return star_plan(config, n_samples, 0, N - config.stragglers, combine)
    bounds = even_partition(n_samples, N)
    i = rank - 1
    B = np.asarray(code.B)
    terms = [(int(bounds[j]), int(bounds[j + 1]), B[i, j].item()) for j in range(N) if B[i, j] != 0]
    return NodePlan(rank, 0, terms=terms, label=f"worker {i}")


def gc_plan(config: RunConfig, n_samples: int, rank: int) -> NodePlan:
    """Cyclic-repetition gradient code (Tandon et al.), any ``N - S`` workers decode."""
    code = cyclic_repetition_code(config.n_workers, config.stragglers)
    return _coded(config, n_samples, rank, code, code_combine(code))


@lru_cache(maxsize=8)
def rs_code(n_workers: int, stragglers: int) -> ReedSolomonGradientCode:
    """RS gradient code with ``k = N``, ``w = S + 1`` (RS eq. 2); an inaccurate decoding raises."""
    kw = dict(root_power="auto", on_inaccurate="raise")
    return reed_solomon_gradient_code(n_workers, n_workers, stragglers + 1, **kw)


def _rs_combine(code: ReedSolomonGradientCode) -> Combine:
    """Algorithm 3 on the survivors' complex coded rows (sent as float64 ``[re, im]`` pairs)."""

    def combine(positions, vectors):
        a = code.decode(sorted(positions))  # length N, zero off the survivors
        rows = np.asarray(vectors, dtype=np.float64).view(np.complex128)
        return np.real(a[list(positions)] @ rows)

    return combine


def rs_plan(config: RunConfig, n_samples: int, rank: int) -> NodePlan:
    """Reed--Solomon gradient code (Halbawi et al.), any ``N - S`` workers decode."""
    code = rs_code(config.n_workers, config.stragglers)
    return _coded(config, n_samples, rank, code, _rs_combine(code))


class SGDRoot(RootNode):
    """Checks SGD against the rescaled sum over the workers used, not the full gradient."""

    def check_error(self, g: np.ndarray) -> float:
        used = [self.plan.children[p] - 1 for p, _, _ in self.fresh[: self.plan.need]]
        bounds = even_partition(self.problem.n_samples, self.config.n_workers)
        part = sum(
            self.problem.partial_gradient(self.theta, int(bounds[w]), int(bounds[w + 1]))
            for w in used
        )
        ref = part * (self.config.n_workers / self.plan.need)
        return float(np.linalg.norm(g - ref) / max(float(np.linalg.norm(ref)), 1e-300))
