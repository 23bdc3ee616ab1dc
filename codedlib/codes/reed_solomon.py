"""Reed–Solomon gradient codes (Halbawi, Azizan-Ruhi, Salehi, Hassibi 2017): n workers, k data
chunks, w per worker; the full gradient ``1_{1×k} g`` from the coded rows of *any* f = n − s
workers, s = ⌊wn/k⌋ − 1 (eq. 2). Algorithms 1 and 4 build the mask, 2 the encoding, 3 decodes
in O(f²) (:func:`least_squares_decoding_vector`: Tandon et al.'s generic O(f³) decoder).
``root_power`` is q of the primitive root α = exp(2πi·q/n), gcd(q, n) = 1 (default 1; 'auto':
:func:`well_conditioned_root_power`: smaller |B|, accurate decoding to larger n).

>>> code = reed_solomon_gradient_code(8, 4, 3)
>>> code.s, code.f
(5, 3)
>>> a = code.decode([1, 4, 6])          # length n, zero off the survivors
>>> bool(np.allclose(a @ code.B, 1))
True

Reference: halbawi2018reedsolomon, tandon2017gradient.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import RngLike, as_generator, check_int, check_real

if TYPE_CHECKING:
    from collections.abc import Iterable

    import pandas as pd
    from numpy.typing import ArrayLike


def row_balanced_mask_matrix(n: int, k: int, d: int, t: int = 0) -> np.ndarray:
    """Algorithm 1, ROWBALANCEDMASKMATRIX(n, k, d, t): column j has ones in rows
    (i + j·d + t) mod n, 0 <= i < d (eq. 24); row weights ⌈kd/n⌉ or ⌊kd/n⌋ (Prop. 2, eq. 26).

    >>> row_balanced_mask_matrix(8, 4, 6, 0)[:, 3]
    array([0, 0, 1, 1, 1, 1, 1, 1], dtype=int8)
    """
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=1)
    d = check_int("d", d, low=0, high=n)
    t = check_int("t", t, low=0, high=n - 1)
    rows = (np.arange(d)[None, :] + d * np.arange(k)[:, None] + t) % n  # (k, d)
    mask = np.zeros((n, k), dtype=np.int8)
    mask[rows, np.arange(k)[:, None]] = 1
    return mask


def _column_blocks(n: int, k: int, w: int) -> list:
    """Algorithm 4's blocks M_h, M_l as (column weight d, row shift of each column; column j has
    ones in rows 0..d−1 shifted by its shift): k_h = (nw) mod k columns of d_h = ⌈nw/k⌉ shifted
    by j d_h (none when k | nw), then k − k_h of d_l = ⌊nw/k⌋ shifted by j d_l + k_h d_h."""
    k_h, d_h, d_l = (n * w) % k, -(-n * w // k), n * w // k
    light = (d_l, (np.arange(k - k_h) * d_l + k_h * d_h) % n)
    return ([(d_h, (np.arange(k_h) * d_h) % n)] if k_h else []) + [light]


def _check_nkw(n, k, w):
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=1)
    w = check_int("w", w, low=1)
    if w > k:
        raise ValueError(
            f"w must satisfy 1 <= w <= k (a worker cannot hold more than the k chunks), "
            f"got w={w}, k={k}"
        )
    return n, k, w


def mask_matrix(n: int, k: int, w: int) -> np.ndarray:
    """Algorithm 4, MASKMATRIX(n, k, w): a mask whose every row has weight exactly w.

    M = [M_h  M_l] (eq. 27): k_h = (nw) mod k columns of weight ⌈nw/k⌉ (Algorithm 1, offset 0)
    and k − k_h of weight ⌊nw/k⌋ at offset (k_h d_h) mod n, which puts the heavy rows of M_l on
    the light rows of M_h (Lemma 1); ROWBALANCEDMASKMATRIX(n, k, nw/k, 0) when k | nw.

    >>> mask_matrix(8, 4, 3).sum(axis=1)
    array([3, 3, 3, 3, 3, 3, 3, 3])
    """
    n, k, w = _check_nkw(n, k, w)
    blocks = [row_balanced_mask_matrix(n, s.size, d, int(s[0])) for d, s in _column_blocks(n, k, w)]
    return np.concatenate(blocks, axis=1)


def straggler_tolerance(n: int, k: int, w: int) -> int:
    """Eq. (2): s = ⌊wn/k⌋ − 1, the most stragglers any scheme with load w/k tolerates."""
    n, k, w = _check_nkw(n, k, w)
    return n * w // k - 1


def _check_root_power(n: int, root_power: int) -> int:
    q = check_int("root_power", root_power, low=1, high=max(n - 1, 1))
    if math.gcd(q, n) != 1:
        raise ValueError(
            f"root_power must be coprime with n so that exp(2πi·q/n) is a primitive n-th root "
            f"of unity, got root_power={q}, n={n} (gcd {math.gcd(q, n)})"
        )
    return q


def roots_of_unity(n: int, root_power: int = 1) -> np.ndarray:
    """The evaluation points α^i, i = 0..n−1, with α = exp(2πi·q/n) (eq. 6),
    exponents reduced mod n first."""
    n = check_int("n", n, low=1)
    q = _check_root_power(n, root_power)
    return np.exp(2j * np.pi * ((q * np.arange(n)) % n) / n)


def _base_column(one_minus: np.ndarray, d: int) -> np.ndarray:
    """b[i] = ∏_{r=d}^{n-1} (1 − α^{i−r}): the column whose mask is ones in rows 0..d-1."""
    n = one_minus.size
    zeros = np.arange(d, n)
    return np.prod(one_minus[(np.arange(n)[:, None] - zeros[None, :]) % n], axis=1)


def encoding_matrix(n: int, k: int, w: int, root_power: int = 1) -> np.ndarray:
    """Algorithm 2, ENCODINGMATRIX(n, k, w): the complex n×k B[i, j] = t_j(α^i) =
    ∏_{r: M[r,j]=0} (1 − α^{i−r}), zero off the mask, t_j(0) = 1, B = G T (eqs. 6, 11); each
    column a cyclic shift of one of two base columns (O(n²)). ValueError when ⌊nw/k⌋ < 2 (Sec. 8.2).
    """
    n, k, w = _check_nkw(n, k, w)
    q = _check_root_power(n, root_power)
    _check_tolerance(n, k, w)
    one_minus = 1.0 - roots_of_unity(n, q)  # 1 − α^m, m = 0..n−1
    rows = np.arange(n)
    columns = []
    for d, shifts in _column_blocks(n, k, w):
        base = _base_column(one_minus, d)
        base[d:] = 0.0  # exact zeros off the support
        columns.append(base[(rows[:, None] - shifts[None, :]) % n])
    return np.concatenate(columns, axis=1)


def _check_tolerance(n, k, w):
    d_l = n * w // k
    if d_l < 2:
        need = -(-2 * k // n)
        raise ValueError(
            f"floor(n*w/k) must be >= 2 for the code to tolerate a straggler (eq. 2), got "
            f"n={n}, k={k}, w={w} (floor(nw/k)={d_l}); use w >= {need}"
        )


def well_conditioned_root_power(n: int, k: int, w: int, max_candidates: int = 64) -> int:
    """A primitive root exponent q that minimises max |B| for the mask of (n, k, w) (ours: Sec. 3.3
    with α^q for α): with q = 1 each t_j's zeros sit on one arc and |B| grows exponentially in n.
    Tries up to ``max_candidates`` q <= n/2 coprime with n."""
    n, k, w = _check_nkw(n, k, w)
    _check_tolerance(n, k, w)
    cands = np.array([q for q in range(1, n // 2 + 1) if math.gcd(q, n) == 1] or [1])
    if cands.size > max_candidates:
        cands = cands[np.unique(np.linspace(0, cands.size - 1, max_candidates).astype(int))]
    blocks = _column_blocks(n, k, w)
    best_q, best = 1, np.inf
    for q in cands:
        one_minus = 1.0 - roots_of_unity(n, int(q))
        # every column of a block is a cyclic shift of its base column: same max |B|
        worst = max(np.abs(_base_column(one_minus, d)[:d]).max() for d, _ in blocks)
        if worst < best * (1 - 1e-12):
            best_q, best = int(q), worst
    return best_q


def _check_survivors(survivors, n, f=None):
    arr = np.asarray(survivors)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer) and arr.size:
        raise ValueError(f"survivors must be a 1-d sequence of worker indices, got {survivors!r}")
    arr = arr.astype(int)
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise ValueError(
            f"survivors must satisfy 0 <= index < n={n}, got indices {arr.min()}..{arr.max()}"
        )
    if np.unique(arr).size != arr.size:
        raise ValueError(f"survivors must be distinct worker indices, got {arr.tolist()}")
    if f is not None and arr.size < f:
        raise ValueError(
            f"need at least f={f} survivors to decode (s={n - f} stragglers tolerated), "
            f"got {arr.size}"
        )
    return arr


def _algorithm3(F, n, table):
    """Algorithm 3 / eq. (14) for checked survivors ``F``: a_l = ∏_{j≠l} (1 − α^{i_l − i_j})^{-1},
    the first row of G_F^{-1} (eq. 13: a B_F = 1); O(f²) look-ups in ``table``."""
    lookup = table[(F[:, None] - F[None, :]) % n]
    np.fill_diagonal(lookup, 1.0)
    return np.prod(lookup, axis=1)


def vandermonde_decoding_vector(survivors: ArrayLike, n: int, root_power: int = 1) -> np.ndarray:
    """Solve eq. (12), a G_F = e_1, with a dense O(f³) linear solve (reference for Algorithm 3)."""
    n = check_int("n", n, low=2)
    F = _check_survivors(survivors, n)
    f = F.size
    points = roots_of_unity(n, root_power)[F]
    G = points[:, None] ** np.arange(f)[None, :]
    rhs = np.zeros(f, dtype=complex)
    rhs[0] = 1.0
    return np.linalg.solve(G.T, rhs)


def least_squares_decoding_vector(B_F: ArrayLike) -> np.ndarray:
    """Generic decoder: the minimum-norm a with a B_F = 1 (numpy lstsq, O(f k min(f, k))).
    Equal to Algorithm 3's vector when B_F has full row rank f."""
    B_F = np.asarray(B_F)
    if B_F.ndim != 2:
        raise ValueError(f"B_F must be a 2-d array, got shape {B_F.shape}")
    ones = np.ones(B_F.shape[1], dtype=B_F.dtype)
    a, *_ = np.linalg.lstsq(B_F.T, ones, rcond=None)
    return a


class DecodingAccuracyWarning(RuntimeWarning):
    """A decoding vector misses ``a B_F = 1`` by more than the code's tolerance."""


class DecodingAccuracyError(ArithmeticError):
    """A decoding vector misses ``a B_F = 1`` by more than the code's tolerance."""


@dataclass(frozen=True)
class ReedSolomonGradientCode:
    """A Reed–Solomon gradient code (a :class:`~codedlib.codes.protocol.GradientCodeLike`): mask
    M, complex n×k encoding B and Algorithm 3's decoder (``decode``: length n, zero off the
    survivors; ``decoding_vector``: length f)."""

    n: int
    k: int
    w: int
    root_power: int
    M: np.ndarray = field(repr=False)
    B: np.ndarray = field(repr=False)
    table: np.ndarray = field(repr=False)
    residual_tol: float = 1e-6
    on_inaccurate: str = "warn"

    def __post_init__(self):
        if self.on_inaccurate not in ("warn", "raise", "ignore"):
            raise ValueError(
                "on_inaccurate must be 'warn', 'raise' or 'ignore', "
                f"got on_inaccurate={self.on_inaccurate!r}"
            )

    def residual(self, survivors: ArrayLike, a: ArrayLike | None = None) -> float:
        """``max |a B_F − 1|`` of the decoding vector for ``survivors`` (first f): one
        product, the accuracy every decoding is checked against."""
        F = _check_survivors(survivors, self.n, self.f)[: self.f]
        a = _algorithm3(F, self.n, self.table) if a is None else a
        return float(np.max(np.abs(a @ self.B[F] - 1.0)))

    def _vector(self, survivors, check: bool):
        """The first f of ``survivors`` (checked) and Algorithm 3's vector for them."""
        F = _check_survivors(survivors, self.n, self.f)[: self.f]
        a = _algorithm3(F, self.n, self.table)
        if not check or self.on_inaccurate == "ignore":
            return F, a
        res = self.residual(F, a)
        if not res <= self.residual_tol:
            msg = (
                f"Algorithm 3's decoding vector for n={self.n}, f={self.f} misses a·B_F = 1 by "
                f"{res:.3g} (tolerance residual_tol={self.residual_tol:g}): the root "
                f"α = exp(2πi·{self.root_power}/n) is too badly spread at this n in double "
                "precision; build the code with root_power='auto'"
            )
            if self.on_inaccurate == "raise":
                raise DecodingAccuracyError(msg)
            warnings.warn(msg, DecodingAccuracyWarning, stacklevel=3)
        return F, a

    @property
    def s(self) -> int:
        """Straggler tolerance, eq. (2)."""
        return self.n * self.w // self.k - 1

    @property
    def f(self) -> int:
        """Workers the master waits for, f = n − s."""
        return self.n - self.s

    @property
    def n_workers(self) -> int:
        """Number of workers n (the :class:`~codedlib.codes.protocol.GradientCodeLike` name)."""
        return self.n

    @property
    def stragglers(self) -> int:
        """Straggler tolerance s (the :class:`~codedlib.codes.protocol.GradientCodeLike` name)."""
        return self.s

    @property
    def load(self) -> float:
        """Fraction of the data each worker processes, α = w/k."""
        return self.w / self.k

    def decoding_vector(self, survivors: ArrayLike, check: bool = True) -> np.ndarray:
        """Algorithm 3 for the first f of ``survivors`` (the f fastest, in arrival order):
        the length-f vector a_F with a_F B[F] = 1. With ``check`` its residual is measured
        (one product) and, above ``residual_tol``, reported per ``on_inaccurate``
        (:class:`DecodingAccuracyWarning` or :class:`DecodingAccuracyError`)."""
        return self._vector(survivors, check)[1]

    def decode(self, survivors: ArrayLike, check: bool = True) -> np.ndarray:
        """Length-n decoding vector (shared GradientCode interface): a @ B == 1, with a zero
        outside the first f of ``survivors`` and Algorithm 3's weights on them (checked as in
        :meth:`decoding_vector`)."""
        F, a_F = self._vector(survivors, check)
        a = np.zeros(self.n, dtype=complex)
        a[F] = a_F
        return a


def reed_solomon_gradient_code(
    n: int, k: int, w: int, root_power: int | str = 1, on_inaccurate: str = "warn"
) -> ReedSolomonGradientCode:
    """The code of Algorithms 2 and 4; a decoding vector with max|a B_F − 1| > ``residual_tol``
    (1e-6) warns, raises (``on_inaccurate="raise"``) or passes (``"ignore"``)."""
    n, k, w = _check_nkw(n, k, w)
    if isinstance(root_power, str):
        if root_power != "auto":
            raise ValueError(f"root_power must be an int or 'auto', got root_power={root_power!r}")
        root_power = well_conditioned_root_power(n, k, w)
    q = _check_root_power(n, root_power)
    M, B = mask_matrix(n, k, w), encoding_matrix(n, k, w, q)
    table = np.zeros(n, dtype=complex)  # Section 4.1: (1 − α^i)^{-1} at i = 1..n−1, 0 unused
    table[1:] = 1.0 / (1.0 - roots_of_unity(n, q)[1:])
    return ReedSolomonGradientCode(n, k, w, q, M, B, table, on_inaccurate=on_inaccurate)


def worst_case_survivors(n: int, f: int, root_power: int = 1, start: int = 0) -> np.ndarray:
    """Survivors whose s = n − f stragglers form one arc of evaluation points (workers start, …,
    start + s − 1 mod n for q = 1): the worst-conditioned interpolation at 0 of eq. (14)."""
    n = check_int("n", n, low=2)
    f = check_int("f", f, low=1, high=n)
    q = _check_root_power(n, root_power)
    arc = (start + np.arange(n - f)) % n  # exponents of α_0 = exp(2πi/n) to drop
    stragglers = (arc * pow(q, -1, n)) % n  # workers whose point α^i = α_0^{q i} lies on the arc
    return np.setdiff1d(np.arange(n), stragglers)


def _gradient_relative_error(code, F, g, exact):
    a = code.decoding_vector(F)
    total = a @ (code.B[F] @ g)
    err = np.linalg.norm(total.real - exact) / np.linalg.norm(exact)
    return err, np.max(np.abs(total.imag)) / np.max(np.abs(exact)), code.residual(F, a)


def decoding_accuracy(
    n: int, k: int, w: int, root_power: int | str = 1, n_random: int = 20, rng: RngLike = None
) -> dict:
    """Round-off of online decoding (Algorithm 3): the largest ‖Re(a C_F) − 1g‖/‖1g‖, imaginary
    part and residual over every rotation of the worst-case arc and ``n_random`` random survivor
    sets; g is standard normal, k × 8."""
    n_random = check_int("n_random", n_random, low=1)
    gen = as_generator(rng)
    code = reed_solomon_gradient_code(n, k, w, root_power, on_inaccurate="ignore")  # measured here
    g = gen.standard_normal((code.k, 8))
    exact = g.sum(axis=0)
    out = {key: getattr(code, key) for key in ("n", "k", "w", "s", "f", "root_power")}
    out["max_abs_B"] = float(np.abs(code.B).max())
    starts = range(code.n) if code.n <= 200 else np.linspace(0, code.n - 1, 50).astype(int)
    for kind, sets in (
        ("worst", [worst_case_survivors(code.n, code.f, code.root_power, st) for st in starts]),
        ("random", [np.sort(gen.choice(code.n, code.f, replace=False)) for _ in range(n_random)]),
    ):
        stats = np.array([_gradient_relative_error(code, F, g, exact) for F in sets]).max(axis=0)
        out |= {f"{kind}_{c}": float(v) for c, v in zip(("error", "imag", "residual"), stats)}
    return out


def accuracy_limit(
    ns: Iterable[int],
    load: float = 0.15,
    root_power: int | str = 1,
    tol: float = 1e-6,
    n_random: int = 20,
    rng: RngLike = None,
) -> tuple[pd.DataFrame, dict]:
    """Algorithm 3's round-off over n (k = n, w = max(2, round(load·n))): a table of
    :func:`decoding_accuracy` rows and ``limits["worst"|"random"]``, the largest n up to which
    every n of the sweep has error <= ``tol`` (None if the smallest fails)."""
    load = check_real("load", load, low=0.0, high=1.0, low_open=True)
    tol = check_real("tol", tol, low=0.0, low_open=True)
    gen = as_generator(rng)
    if len(ns) == 0:
        raise ValueError("ns must hold at least one n, got an empty sequence")
    ns = sorted(int(check_int("n", v, low=2)) for v in ns)
    import pandas as pd  # an MPI rank using the code never loads pandas

    table = pd.DataFrame(
        [
            decoding_accuracy(n, n, min(n, max(2, round(load * n))), root_power, n_random, rng=gen)
            for n in ns
        ]
    )
    ok = {kind: (table[f"{kind}_error"] <= tol).to_numpy() for kind in ("worst", "random")}
    upto = {kind: v.size if v.all() else int(np.argmin(v)) for kind, v in ok.items()}  # first miss
    return table, {kind: int(table["n"].iloc[u - 1]) if u else None for kind, u in upto.items()}
