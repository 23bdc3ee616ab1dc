"""CodedReduce tree allocation and execution (Reisizadeh et al., Algorithms 1 and 2).

An ``(n, L)``-regular tree has a master (layer 0) and ``L`` layers of workers, every parent
having ``n`` children: ``N = n + n^2 + ... + n^L`` workers. Node ``(l, i)`` (layer ``l``,
0-based index ``i`` in its layer) has *rank* ``1 + n + ... + n^(l-1) + i`` (master rank 0,
breadth-first), parent ``(l-1, i // n)`` and children ``(l+1, n i + j)``, ``j = 0..n-1``.

A data set with coefficients (:class:`Segments`; ``g_{bD} = b g_D``, Sec. III-A): in
:func:`allocate` each node keeps the *first* ``r_CR d`` points of its sub-tree set and passes
the rest down (Example 2); leaves keep their whole sub-tree set.

Data size not divisible. Loads are exact iff ``d`` is a multiple of :func:`exact_data_unit`
(15 for the paper's (3, 2), s = 1 example). Otherwise partitions differ by one point (larger
parts spread around the cycle), internal nodes keep ``round(r_CR d)`` points, leaves keep what
reaches them, and recovery stays exact.

The MPI engine calls :meth:`CodedReduceAllocation.combine`, as :func:`execute` does.

Reference: reisizadeh2022codedreduce, tandon2017gradient.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import RngLike, check_array, check_int
from codedlib.codes.cyclic import GradientCode, cyclic_repetition_code
from codedlib.codes.protocol import CachedDecoder
from codedlib.theory.codedreduce import check_tree, n_tree_workers, r_cr

if TYPE_CHECKING:
    import networkx as nx
    import pandas as pd
    from numpy.typing import ArrayLike


def _layer_offset(layer: int, n: int) -> int:
    """Rank of node (layer, 0): 1 + n + ... + n^(layer-1); 0 for the master."""
    return sum(n**m for m in range(layer))


def rank_of(layer: int, index: int, n: int) -> int:
    """Breadth-first rank of node ``(layer, index)`` of Section III-A's tree; the master ``(0, 0)`` is rank 0."""
    n = check_int("n", n, 1)
    layer = check_int("layer", layer, 0)
    index = check_int("index", index, 0, n**layer - 1)
    return _layer_offset(layer, n) + index


def position_of(rank: int, n: int) -> tuple[int, int]:
    """Inverse of :func:`rank_of`: ``(layer, index)`` of a rank (Section III-A's tree)."""
    n = check_int("n", n, 1)
    rank = check_int("rank", rank, 0)
    layer = 0
    while rank >= _layer_offset(layer + 1, n):
        layer += 1
    return layer, rank - _layer_offset(layer, n)


def tree_links(n: int, L: int, rank: int) -> tuple[int | None, list[int]]:
    """Parent and children of ``rank`` in the (n, L)-regular tree (CR Section III-A).

    The one definition the allocation and the MPI runtime use; the master's parent is None.

    Examples
    --------
    >>> tree_links(3, 2, 0), tree_links(3, 2, 2), tree_links(3, 2, 7)
    ((None, [1, 2, 3]), (0, [7, 8, 9]), (2, []))
    """
    n, L = check_tree(n, L)
    rank = check_int("rank", rank, 0, n_tree_workers(n, L))
    layer, index = position_of(rank, n)
    parent = None if layer == 0 else rank_of(layer - 1, index // n, n)
    children = [rank_of(layer + 1, n * index + j, n) for j in range(n)] if layer < L else []
    return parent, children


@dataclass(frozen=True, eq=False)
class Segments:
    """Ordered data set with coefficients: points ``start..stop-1`` weighted by ``coef``.

    Gradient over it: ``sum_k coef[k] * sum_{x in [start[k], stop[k])} grad l(theta; x)``.
    """

    starts: np.ndarray
    stops: np.ndarray
    coefs: np.ndarray

    @classmethod
    def whole(cls, d: int) -> Segments:
        d = check_int("d", d, low=0)
        return cls(np.array([0]), np.array([d]), np.array([1.0]))

    @property
    def size(self) -> int:
        return int(np.sum(self.stops - self.starts))

    def scaled(self, factor: float) -> Segments:
        return Segments(self.starts, self.stops, self.coefs * factor)

    def slice(self, begin: int, end: int) -> Segments:
        """Points ``begin..end-1`` of the ordered list (positions, not data indices)."""
        cum = np.concatenate([[0], np.cumsum(self.stops - self.starts)])
        lo, hi = np.maximum(begin, cum[:-1]), np.minimum(end, cum[1:])
        keep = lo < hi
        offset = (self.starts - cum[:-1])[keep]
        return Segments(
            (lo[keep] + offset).astype(np.int64),
            (hi[keep] + offset).astype(np.int64),
            self.coefs[keep].astype(float),
        )

    @staticmethod
    def concat(parts: Iterable[Segments]) -> Segments:
        parts, none = [p for p in parts if p.starts.size], np.zeros(0, dtype=np.int64)
        return Segments(
            np.concatenate([none, *(p.starts for p in parts)]).astype(np.int64),
            np.concatenate([none, *(p.stops for p in parts)]).astype(np.int64),
            np.concatenate([np.zeros(0), *(p.coefs for p in parts)]).astype(float),
        )

    def coefficient_vector(self, d: int) -> np.ndarray:
        """Dense length-``d`` vector: the coefficient of every data point (0 if absent)."""
        out = np.zeros(d)
        for a, b, c in zip(self.starts, self.stops, self.coefs):
            out[a:b] += c
        return out

    def gradient(self, partial_gradient: Callable[[int, int], np.ndarray]) -> np.ndarray | float:
        """``sum_k coef_k * partial_gradient(start_k, stop_k)`` (the coded gradient g_D)."""
        terms = zip(self.starts, self.stops, self.coefs)
        return sum((c * partial_gradient(int(a), int(b)) for a, b, c in terms), 0.0)

    def as_tuples(self) -> list[tuple[int, int, float]]:
        return [(int(a), int(b), float(c)) for a, b, c in zip(self.starts, self.stops, self.coefs)]

    def describe(self, max_items: int = 4) -> str:
        """Short text such as ``0.5*[0:12) + 1*[15:18)``."""
        items = [f"{c:g}*[{a}:{b})" for a, b, c in self.as_tuples()]
        if len(items) > max_items:
            items = items[:max_items] + [f"... ({len(items) - max_items} more)"]
        return " + ".join(items) if items else "(none)"


def comp_alloc(data: Segments, code: GradientCode) -> list[Segments]:
    """COMPALLOC (Algorithm 1): allocate an ordered data set among ``code.n_workers`` workers.

    Splits ``data`` into ``k = code.n_partitions`` consecutive parts and gives worker ``i``
    ``D_(i) = U_kappa b_{i kappa} D_kappa`` (parts in increasing ``kappa``).

    Examples
    --------
    >>> from codedlib.codes.cyclic import PAPER_EXAMPLE_B, gradient_code_from_matrices
    >>> code = gradient_code_from_matrices(PAPER_EXAMPLE_B, 1)
    >>> comp_alloc(Segments.whole(30), code)[0].describe()
    '0.5*[0:10) + 1*[10:20)'
    """
    k = code.n_partitions
    base, extra = divmod(data.size, k)
    sizes = np.full(k, base, dtype=np.int64)
    if extra:  # parts differ by at most one, the larger spread evenly around the cycle
        sizes[(np.arange(extra) * k) // extra] += 1
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    parts = [data.slice(bounds[j], bounds[j + 1]) for j in range(k)]
    return [
        Segments.concat([parts[j].scaled(code.B[i, j]) for j in np.flatnonzero(code.B[i])])
        for i in range(code.n_workers)
    ]


def exact_data_unit(n: int, s: int, L: int) -> int:
    """Smallest ``d`` for which every uniform partition and every node load is an integer.

    Data sizes that are multiples of it give every node exactly ``r_CR d`` points.
    ``exact_data_unit(3, 1, 2) == 15`` (Example 2: r_CR d = 4d/15).
    """
    n, L, s = check_tree(n, L, s)
    r = r_cr(n, s, L, exact=True)
    fractions = [Fraction(1, n), r]
    subtree = Fraction(s + 1, n)
    for _ in range(1, L):
        chunk = (subtree - r) / n
        fractions.append(chunk)
        subtree = (s + 1) * chunk
    return math.lcm(*(f.denominator for f in fractions))


@dataclass(frozen=True, eq=False)
class TreeNode:
    """One node of the CR tree with its data allocation (Fig. 6 / Fig. 7).

    ``subtree_data`` is ``D^T(l,i)``, the data set with coefficients of the sub-tree rooted
    here, and ``local_data`` is ``D(l,i)``, the node's own; the node was allocated with row
    ``index % n`` of ``B``, its place among its parent's children.
    """

    rank: int
    layer: int
    index: int
    parent: int | None
    children: tuple[int, ...]
    subtree_data: Segments
    local_data: Segments

    @property
    def n_points(self) -> int:
        return self.local_data.size

    @property
    def label(self) -> str:
        return "master" if self.layer == 0 else f"({self.layer},{self.index + 1})"


@dataclass(frozen=True, eq=False)
class CodedReduceAllocation:
    """CR.ALLOCATE result: the whole (n, L) tree, nodes in heap order (rank 0 the master)."""

    n: int
    L: int
    s: int
    d: int
    code: GradientCode
    nodes: tuple[TreeNode, ...]

    @property
    def n_workers(self) -> int:
        return len(self.nodes) - 1

    @property
    def r_cr(self) -> float:
        """r_CR of eq. (5) for this tree."""
        return r_cr(self.n, self.s, self.L)

    @property
    def load_points(self) -> np.ndarray:
        """Local data count of every worker (ranks 1..N)."""
        return np.array([node.n_points for node in self.nodes[1:]])

    def node(self, layer: int, index: int) -> TreeNode:
        return self.nodes[rank_of(layer, index, self.n)]

    def parents(self) -> list[int]:
        """Ranks that have children (master and layers 0..L-1), bottom layer first."""
        return [nd.rank for nd in reversed(self.nodes) if nd.children]

    @cached_property
    def _decoder(self) -> CachedDecoder:
        """The family code's decoding vectors, one per straggler pattern (every family
        shares the code, so one cache serves the whole tree)."""
        return CachedDecoder(self.code)

    def decoding_coefficients(self, survivor_positions: Iterable[int]) -> np.ndarray:
        """Decoding vector over the ``n`` children positions (cached per pattern, read-only;
        :class:`~codedlib.codes.protocol.CachedDecoder`)."""
        return self._decoder.vector(list(survivor_positions))

    def combine(
        self, rank: int, child_messages: Mapping[int, np.ndarray], local: ArrayLike = 0.0
    ) -> np.ndarray | float:
        """CR.EXECUTE step at ``rank``: ``m = sum_j a_j m_(child j) + g_D(rank)``.

        ``child_messages`` maps child *ranks* to their messages; at least ``n - s`` of the
        node's children are needed (any extra are used too). Leaves return ``local``.
        """
        nd = self.nodes[rank]
        if not nd.children:
            if child_messages:
                raise ValueError(f"node {nd.label} (rank {rank}) is a leaf and has no children")
            return local
        first = nd.children[0]
        positions = []
        for child in child_messages:
            if child not in nd.children:
                raise ValueError(
                    f"rank {child} is not a child of {nd.label} (rank {rank}); its children are ranks {nd.children[0]}..{nd.children[-1]}"
                )
            positions.append(child - first)
        down = sorted(set(nd.children) - set(child_messages))
        if len(down) > self.s:
            raise ValueError(
                f"more than s={self.s} stragglers under parent {nd.label} (rank {rank}): {len(down)} of its {self.n} children straggle (ranks {down})"
            )
        a = self.decoding_coefficients(positions)
        return sum((a[c - first] * np.asarray(m) for c, m in child_messages.items()), local)

    def to_dataframe(self) -> pd.DataFrame:
        """One row per node: rank, layer, index, label, parent, n_points, local and sub-tree
        data as text (Fig. 7 as a table)."""
        import pandas as pd

        rows = [
            dict(rank=nd.rank, node=nd.label, layer=nd.layer, parent=nd.parent)
            | dict(n_points=nd.n_points, subtree_points=nd.subtree_data.size)
            | dict(local_data=nd.local_data.describe(), subtree_data=nd.subtree_data.describe())
            for nd in self.nodes
        ]
        return pd.DataFrame(rows).set_index("rank")

    def to_networkx(self) -> nx.DiGraph:
        """The tree as a ``networkx.DiGraph`` (edges parent -> child) with node attributes
        ``layer, index, label, n_points, local_data``."""
        import networkx as nx

        graph = nx.DiGraph()
        for nd in self.nodes:
            attrs = dict(layer=nd.layer, index=nd.index, label=nd.label, n_points=nd.n_points)
            graph.add_node(nd.rank, **attrs, local_data=nd.local_data.describe())
            if nd.parent is not None:
                graph.add_edge(nd.parent, nd.rank)
        return graph


def allocate(
    n: int, L: int, s: int, d: int, code: GradientCode | None = None, rng: RngLike = None
) -> CodedReduceAllocation:
    """CR.ALLOCATE (Algorithm 2): data allocation of an (n, L)-regular tree, ``s`` per parent.

    Example (the paper's Example 2, d = 15)
    ----------------------------------------
    >>> from codedlib.codes.cyclic import PAPER_EXAMPLE_B, gradient_code_from_matrices
    >>> alloc = allocate(3, 2, 1, 15, code=gradient_code_from_matrices(PAPER_EXAMPLE_B, 1))
    >>> alloc.node(1, 0).local_data.describe()
    '0.5*[0:4)'
    >>> alloc.load_points.tolist() == [4] * 12
    True
    """
    n, L, s = check_tree(n, L, s)
    d = check_int("d", d, 1)
    code = cyclic_repetition_code(n, s, rng=rng) if code is None else code
    if code.n_workers != n or code.stragglers != s:
        raise ValueError(
            f"code must be an (n={n}, s={s}) gradient code, got n_workers={code.n_workers}, stragglers={code.stragglers}"
        )
    keep = round(r_cr(n, s, L, exact=True) * d)  # r_CR d, rounded when not an integer
    nodes, shares = [], {0: Segments.whole(d)}  # D^T(l,i), handed down by the parent
    for rank in range(1 + n_tree_workers(n, L)):
        layer, index = position_of(rank, n)
        parent, children = tree_links(n, L, rank)
        share = shares.pop(rank)
        # the master keeps nothing, a leaf everything, any other node its first r_CR d points
        own = 0 if layer == 0 else min(keep, share.size) if children else share.size
        if children:  # COMPALLOC of the rest among its children
            shares.update(zip(children, comp_alloc(share.slice(own, share.size), code)))
        local = share.slice(0, own)
        nodes.append(TreeNode(rank, layer, index, parent, tuple(children), share, local))
    return CodedReduceAllocation(n=n, L=L, s=s, d=d, code=code, nodes=tuple(nodes))


@lru_cache(maxsize=32)
def tree_allocation(n: int, L: int, s: int, d: int) -> CodedReduceAllocation:
    """CR.ALLOCATE (Algorithm 2) with the default code (deterministic: cached, never mutated)."""
    return allocate(n, L, s, d)


def local_messages_from_point_gradients(
    alloc: CodedReduceAllocation, point_gradients: ArrayLike
) -> np.ndarray:
    """Every rank's coded local gradient (Algorithm 2's local messages; one row per rank) from ``(d, p)`` point gradients.

    Prefix sums, so each segment costs O(p).
    """
    G = check_array("point_gradients", point_gradients, ndim=2, shape=(alloc.d, None))
    prefix = np.vstack([np.zeros((1, G.shape[1])), np.cumsum(G, axis=0)])
    out = np.zeros((len(alloc.nodes), G.shape[1]))
    for nd in alloc.nodes:
        if nd.n_points:
            out[nd.rank] = nd.local_data.gradient(lambda a, b: prefix[b] - prefix[a])
    return out


def execute(
    alloc: CodedReduceAllocation,
    local_messages: ArrayLike,
    stragglers: Iterable[int] = (),
    survivors: Mapping[int, ArrayLike] | None = None,
) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """CR.EXECUTE (Algorithm 2): aggregate coded gradients up the tree.

    ``local_messages``: an ``(N+1, p)`` array of every rank's ``g_D(l,i)`` (row 0 ignored).
    ``survivors`` (``{parent_rank: child ranks}``) names the children a parent combines;
    default all non-stragglers. Returns ``(gradient, messages)``: the master's aggregate
    (``= g_D`` exactly) and every delivered message by rank.
    """
    table = np.asarray(local_messages, dtype=float)
    if table.shape[0] != len(alloc.nodes):
        raise ValueError(
            f"local_messages must have N+1 = {len(alloc.nodes)} rows (one per rank), got {table.shape[0]}"
        )
    straggling = {check_int("straggler rank", r, 1, alloc.n_workers) for r in stragglers}
    survivors = dict(survivors or {})
    messages: dict[int, np.ndarray] = {}
    for rank in sorted(set(range(len(alloc.nodes))) - straggling, reverse=True):  # bottom first
        nd = alloc.nodes[rank]
        own = table[rank] if rank else 0.0
        if rank in survivors:
            chosen = [int(c) for c in np.atleast_1d(survivors[rank])]
            lost = [c for c in chosen if c in straggling]
            if lost:
                raise ValueError(
                    f"survivors of {nd.label} (rank {rank}) include straggling ranks {lost}"
                )
        else:
            chosen = [c for c in nd.children if c not in straggling]
        messages[rank] = alloc.combine(rank, {c: messages[c] for c in chosen}, own)
    return messages[0], messages
