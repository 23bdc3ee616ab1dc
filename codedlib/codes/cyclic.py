"""Cyclic-repetition gradient coding (Tandon et al., ICML 2017), CodedReduce's building block
(CR Sec. II-C, Alg. 1; its Example 1 / eq. (4) code is :data:`PAPER_EXAMPLE_B` / ``_A``).

Worker ``i`` holds partitions ``i..i+s (mod n)`` and sends ``b_i @ G``; any ``n - s``
survivors ``F`` have ``a`` (zero off ``F``) with ``a @ B = 1``. For Tandon's Gaussian null
space (condition 1e8-1e10 at n = 500-1000) we use ``H[:, m] = E[:, m mod (s+1)]``: exact when
``(s+1) | n`` (a decoding vector is the indicator of a residue class no straggler hits,
condition ~sqrt(n)), else perturbed (condition < ~1e7 up to n = 1000, s <= 10).

Reference: tandon2017gradient, reisizadeh2022codedreduce.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import RngLike, as_generator, check_array, check_int

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: Encoding matrix of the CR paper's Example 1 / eq. (4) (n = 3 workers, s = 1).
PAPER_EXAMPLE_B = np.array([[0.5, 1.0, 0.0], [0.0, 1.0, -1.0], [0.5, 0.0, 1.0]])
#: Decoding matrix of eq. (4); row f belongs to the f-th straggler set in
#: ``itertools.combinations(range(3), 1)`` order (straggler {0}, {1}, {2}).
PAPER_EXAMPLE_A = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, -1.0, 0.0]])

#: Condition number above which :meth:`GradientCode.decode` warns.
DEFAULT_CONDITION_WARNING = 1e10
#: Largest number of straggler patterns enumerated by ``decoding_matrix`` / validation.
DEFAULT_MAX_PATTERNS = 20_000


class DecodingConditionWarning(UserWarning):
    """The linear system solved for a decoding vector is ill-conditioned."""


@dataclass(frozen=True, eq=False)
class GradientCode:
    """A gradient code: encoding matrix ``B`` (``B[i, k]``: worker i's weight on partition k).

    >>> code = cyclic_repetition_code(5, 2)
    >>> bool(np.allclose(code.decode([0, 2, 4]) @ code.B, 1.0))
    True
    """

    B: np.ndarray
    stragglers: int
    #: Optional decoding matrix supplied by the user (rows in ``combinations`` order).
    A: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_workers(self) -> int:
        return int(self.B.shape[0])

    @property
    def n_partitions(self) -> int:
        return int(self.B.shape[1])

    @property
    def load(self) -> float:
        """Computation load: largest fraction of the partitions held by one worker.
        ``(s + 1) / n`` for the cyclic-repetition code (r_GC, CR paper Section II-C)."""
        return float(np.count_nonzero(self.B, axis=1).max()) / self.n_partitions

    def support(self, worker: int) -> np.ndarray:
        """Indices of the partitions held by ``worker`` (non-zero entries of ``B[worker]``)."""
        worker = check_int("worker", worker, 0, self.n_workers - 1)
        return np.flatnonzero(self.B[worker])

    def _survivor_indices(self, survivors) -> np.ndarray:
        n, s = self.n_workers, self.stragglers
        arr = np.asarray(survivors)
        if arr.dtype == bool:
            if arr.shape != (n,):
                raise ValueError(
                    f"survivors as a boolean mask must have shape ({n},), got shape {arr.shape}"
                )
            idx = np.flatnonzero(arr)
        else:
            if arr.ndim != 1 or (
                arr.size
                and not np.issubdtype(arr.dtype, np.integer)
                and not (np.issubdtype(arr.dtype, np.floating) and np.all(np.mod(arr, 1) == 0))
            ):
                raise ValueError(
                    f"survivors must be a 1-d array of worker indices, got {survivors!r}"
                )
            idx = arr.astype(np.int64)
            if idx.size and (idx.min() < 0 or idx.max() >= n):
                bad = idx[(idx < 0) | (idx >= n)][0]
                raise ValueError(f"survivor indices must satisfy 0 <= index < {n}, got {bad}")
            if np.unique(idx).size != idx.size:
                raise ValueError(f"survivor indices must be distinct, got {idx.tolist()}")
            idx = np.sort(idx)
        if idx.size < n - s:
            raise ValueError(
                f"need at least n - s = {n - s} survivors to decode (n={n}, s={s}), got {idx.size}"
            )
        return idx

    @cached_property
    def _decoder(self):
        """Min-norm ``a0 @ B = 1`` and left null space ``N``: a pattern solves ``N[S] c = -a0[S]``."""
        U, sv, Vt = np.linalg.svd(self.B, full_matrices=True)
        tol = sv[0] * max(self.B.shape) * np.finfo(float).eps if sv.size else 0.0
        rank = int(np.count_nonzero(sv > tol))
        if rank == 0:
            raise ValueError("B is the zero matrix; no partition is assigned to any worker")
        a0 = U[:, :rank] @ ((Vt[:rank] @ np.ones(self.n_partitions)) / sv[:rank])
        return a0, U[:, rank:], float(sv[0] / sv[rank - 1])

    def decode(
        self,
        survivors: ArrayLike,
        *,
        return_condition: bool = False,
        warn_condition: float = DEFAULT_CONDITION_WARNING,
    ) -> np.ndarray | tuple[np.ndarray, float]:
        """Decoding vector for the survivors (indices or a mask; Tandon et al., Alg. 1, online).

        ``return_condition`` adds ``cond(B) * cond(N[S])``, an estimate of ``cond(B[F])``.
        """
        idx = self._survivor_indices(survivors)
        a0, null, cond_b = self._decoder
        stragglers = np.setdiff1d(np.arange(self.n_workers), idx)
        a, cond = a0.copy(), cond_b
        if stragglers.size:
            system = null[stragglers]
            if system.shape[1] == 0:
                coeffs, cond_s = np.zeros(0), 1.0
            else:
                # rank-deficient but consistent systems are legitimate (e.g. (s+1) | n and two
                # stragglers in one residue class); the residual check below guards the rest
                coeffs, _res, rank, sv = np.linalg.lstsq(system, -a0[stragglers], rcond=1e-12)
                cond_s = float(sv[0] / sv[rank - 1]) if rank > 0 else 1.0
            a = a0 + null @ coeffs
            cond = cond_b * cond_s
        leak = float(np.max(np.abs(a[stragglers]))) if stragglers.size else 0.0
        a[stragglers] = 0.0
        residual = float(np.max(np.abs(a @ self.B - np.ones(self.n_partitions))))
        scale = max(1.0, float(np.max(np.abs(a))) * float(np.max(np.abs(self.B))))
        if not max(residual, leak) <= 1e-8 * scale * self.n_partitions:
            raise ValueError(
                f"survivors {idx.tolist()} cannot recover the full gradient: the all-ones "
                f"row is not in the span of their encoding rows (residual {max(residual, leak):.3g})"
            )
        if cond > warn_condition:
            warnings.warn(
                f"ill-conditioned decoding: condition number {cond:.3g} for "
                f"{idx.size} survivors (n={self.n_workers}, s={self.stragglers})",
                DecodingConditionWarning,
                stacklevel=2,
            )
        return (a, cond) if return_condition else a

    def decoding_condition(self, survivors: ArrayLike) -> float:
        """Condition number of the decoding system for ``survivors`` (see :meth:`decode`)."""
        return self.decode(survivors, return_condition=True, warn_condition=math.inf)[1]

    def decoding_matrix(self) -> np.ndarray:
        """Decoding matrix ``A`` (C(n, s) x n), rows in ``itertools.combinations`` order (eq. 4)."""
        if self.A is not None:
            return self.A.copy()
        n, s = self.n_workers, self.stragglers
        count = math.comb(n, s)
        if count > DEFAULT_MAX_PATTERNS:
            raise ValueError(
                f"decoding_matrix would have C(n, s) = C({n}, {s}) = {count} rows, above "
                f"max_patterns={DEFAULT_MAX_PATTERNS}; decode online with decode(survivors)"
            )
        rows = [
            self.decode(np.setdiff1d(np.arange(n), pattern), warn_condition=math.inf)
            for pattern in itertools.combinations(range(n), s)
        ]
        return np.array(rows).reshape(count, n)


def code_from_null_space(H: ArrayLike, s: int) -> GradientCode:
    """Tandon et al.'s cyclic construction (Algorithm 2) from ``H`` (s x n, H @ 1 = 0): row ``i``
    of ``B`` is the null vector of ``H[:, i..i+s mod n]`` of norm ``sqrt(s+1)`` and non-negative
    sum (``H = [[-2, 1, 1]]`` gives eq. (4)'s ``B`` up to row scaling)."""
    H = check_array("H", H, ndim=2)
    s = check_int("s", s, 0)
    n = H.shape[1]
    if s >= n:
        raise ValueError(f"s must satisfy 0 <= s < n, got s={s}, n={n}")
    if H.shape[0] != s:
        raise ValueError(f"H must have shape (s, n) = ({s}, {n}), got shape {H.shape}")
    if s == 0:
        return GradientCode(B=np.eye(n), stragglers=0)
    scale = max(1.0, float(np.abs(H).max()))
    if np.max(np.abs(H.sum(axis=1))) > 1e-9 * scale * n:
        raise ValueError("H must annihilate the all-ones vector (every row of H must sum to 0)")
    windows = (np.arange(n)[:, None] + np.arange(s + 1)[None, :]) % n  # (n, s+1)
    blocks = np.transpose(H[:, windows], (1, 0, 2))  # (n, s, s+1)
    _, sv, vt = np.linalg.svd(blocks)
    if np.any(sv[:, -1] <= 1e-10 * sv[:, 0]):
        worst = int(np.argmin(sv[:, -1] / sv[:, 0]))
        raise ValueError(
            f"H restricted to the window of worker {worst} has rank < s={s}; the cyclic "
            "construction needs every s x (s+1) window of H to have full rank"
        )
    rows = vt[:, -1, :]  # unit-norm null vectors, (n, s+1)
    signs = np.where(rows.sum(axis=1) < 0, -1.0, 1.0)
    rows = rows * (signs * math.sqrt(s + 1))[:, None]
    B = np.zeros((n, n))
    np.put_along_axis(B, windows, rows, axis=1)
    return GradientCode(B=B, stragglers=s)


def cyclic_repetition_code(
    n: int, s: int, rng: RngLike = None, *, null_space: ArrayLike | None = None
) -> GradientCode:
    """Cyclic-repetition gradient code: worker i holds partitions i..i+s (mod n), load (s+1)/n.

    Tandon et al. Algorithm 2 (CR Sec. II-C) with the given ``null_space`` H (s x n, e.g. a
    Gaussian one) or ``H[:, m] = E[:, m mod (s+1)]``, ``E`` an orthonormal basis of zero-sum
    vectors of R^{s+1}: exact when ``(s+1) | n`` (``B`` the all-ones band), else perturbed by
    ``0.1 N(0, 1)`` entries (``rng``; None: seed 0) and re-centred.

    >>> code = cyclic_repetition_code(6, 2)
    >>> code.B[0]
    array([1., 1., 1., 0., 0., 0.])
    >>> code.load
    0.5
    """
    n = check_int("n", n, 1)
    s = check_int("s", s, 0)
    if s >= n:
        raise ValueError(f"s must satisfy 0 <= s < n, got s={s}, n={n}")
    if null_space is None:
        basis, _ = np.linalg.qr(np.column_stack([np.ones(s + 1), np.eye(s + 1)[:, :s]]))
        null_space = basis[:, 1 : s + 1].T[:, np.arange(n) % (s + 1)]  # (s, n), rows sum to 0
        if n % (s + 1) != 0:
            gen = as_generator(0 if rng is None else rng)
            null_space = null_space + 0.1 * gen.standard_normal((s, n))
            null_space -= null_space.mean(axis=1, keepdims=True)
    return code_from_null_space(null_space, s)


def gradient_code_from_matrices(
    B: ArrayLike, s: int, A: ArrayLike | None = None, *, validate: bool = True
) -> GradientCode:
    """A given encoding matrix ``B`` (and decoding matrix ``A``) as a code (CR Section II-C, e.g.
    eq. (4)); ``validate`` checks all C(n, s) <= :data:`DEFAULT_MAX_PATTERNS` straggler patterns: the
    survivors span the all-ones row, ``A[f]`` (``combinations`` order) vanishes on the f-th
    straggler set and ``A[f] @ B == 1``.

    >>> code = gradient_code_from_matrices(PAPER_EXAMPLE_B, 1, PAPER_EXAMPLE_A)
    >>> code.decoding_matrix()[2] @ code.B
    array([1., 1., 1.])
    """
    B = check_array("B", B, ndim=2)
    n, k = B.shape
    if n < 1 or k < 1:
        raise ValueError(f"B must be non-empty, got shape {B.shape}")
    s = check_int("s", s, 0)
    if s >= n:
        raise ValueError(f"s must satisfy 0 <= s < n, got s={s}, n={n}")
    count = math.comb(n, s)
    if A is not None:
        A = check_array("A", A, ndim=2)
        if A.shape != (count, n):
            raise ValueError(
                f"A must have shape (C(n, s), n) = ({count}, {n}), got shape {A.shape}"
            )
    code = GradientCode(B=B.copy(), stragglers=s, A=None if A is None else A.copy())
    if not validate:
        return code
    if count > DEFAULT_MAX_PATTERNS:
        raise ValueError(
            f"cannot validate C(n, s) = C({n}, {s}) = {count} straggler patterns (limit "
            f"max_patterns={DEFAULT_MAX_PATTERNS}); pass validate=False to skip"
        )
    for f, pattern in enumerate(itertools.combinations(range(n), s)):
        code.decode(np.setdiff1d(np.arange(n), pattern), warn_condition=math.inf)  # or raises
        if A is not None:
            row = A[f]
            if np.any(row[list(pattern)] != 0):
                raise ValueError(
                    f"A[{f}] must be zero on its straggler set {list(pattern)}, got {row}"
                )
            err = float(np.max(np.abs(row @ B - np.ones(k))))
            if err > 1e-9 * max(1.0, float(np.abs(row).max() * np.abs(B).max())) * k:
                raise ValueError(
                    f"A[{f}] @ B must equal the all-ones row for stragglers {list(pattern)}, "
                    f"got {row @ B}"
                )
    return code
