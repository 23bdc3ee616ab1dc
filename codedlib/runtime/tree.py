"""CodedReduce on MPI: the (n, L)-regular tree of ranks (CR Algorithm 2).

MPI rank = tree rank of :mod:`codedlib.codes.codedreduce` (master 0, breadth first); parent,
children, data segments and decoding (CR.ALLOCATE, CR.EXECUTE) come from
:class:`~codedlib.codes.codedreduce.CodedReduceAllocation`, as in the simulator; the message
passing is the generic :class:`codedlib.runtime.nodes.WorkerNode` / ``RootNode``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from codedlib.codes.codedreduce import tree_allocation, tree_links
from codedlib.runtime.comm import Poller, wait_all
from codedlib.runtime.nodes import NodePlan

if TYPE_CHECKING:
    from mpi4py import MPI

    from codedlib.runtime.config import RunConfig


def tree_plan(config: RunConfig, n_samples: int, rank: int) -> NodePlan:
    """The plan of ``rank`` in the CR tree."""
    alloc = tree_allocation(config.n, config.L, config.s, n_samples)
    nd = alloc.nodes[rank]
    children = list(nd.children)

    def combine(positions, vectors):
        return alloc.combine(rank, {children[k]: v for k, v in zip(positions, vectors)}, 0.0)

    need = (alloc.n - alloc.s) if children else 0  # waits for the first n - s children
    kw = dict(terms=nd.local_data.as_tuples(), need=need, combine=combine, label=nd.label)
    return NodePlan(rank, nd.parent, children, child_kind="children", **kw)


def tree_reduce(
    comm: MPI.Comm, vector: np.ndarray, n: int, L: int, blocking: bool = False
) -> np.ndarray:
    """Sum ``vector`` up the (n, L) tree to rank 0 (CR.EXECUTE, s = 0) and back down to every
    rank; probing naps (1 ms) unless ``blocking=True``."""
    rank = comm.Get_rank()
    parent, children = tree_links(n, L, rank)
    poller = None if blocking else Poller(1e-3)
    total = np.array(vector, dtype=float, copy=True)
    bufs = [np.empty_like(total) for _ in children]
    reqs = [comm.Irecv(b, source=c, tag=21) for b, c in zip(bufs, children)]
    wait_all(reqs, poller)
    for b in bufs:
        total += b
    if parent is not None:  # up to the parent, then the sum back down
        wait_all([comm.Isend(total, dest=parent, tag=21)], poller)
        wait_all([comm.Irecv(total, source=parent, tag=22)], poller)
    wait_all([comm.Isend(total, dest=c, tag=22) for c in children], poller)
    return total
