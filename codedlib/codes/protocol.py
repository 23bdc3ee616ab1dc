"""The gradient-code interface and one cached decoder for all its users (tandon2017gradient,
halbawi2018reedsolomon): worker ``i`` sends ``B[i] @ G``; ``a[F] @ (B[F] @ G)`` is the full sum.

>>> from codedlib.codes.cyclic import cyclic_repetition_code
>>> code = cyclic_repetition_code(4, 1)
>>> CachedDecoder(code).combine(code.B[[0, 2, 3]] @ np.arange(8.0).reshape(4, 2), [0, 2, 3])
array([12., 16.])
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from codedlib._validation import InputTypeError, check_int

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: Straggler patterns whose decoding vectors a :class:`CachedDecoder` keeps by default.
DEFAULT_DECODER_CACHE = 1024


@runtime_checkable
class GradientCodeLike(Protocol):
    """A gradient code (real or complex ``B``); ``isinstance`` checks the members exist."""

    B: np.ndarray

    @property
    def n_workers(self) -> int: ...

    @property
    def stragglers(self) -> int: ...

    def decode(self, survivors: ArrayLike) -> np.ndarray:
        """Length ``n_workers`` vector ``a``, zero off ``survivors``, with ``a @ B == 1``."""
        ...


class CachedDecoder:
    """Read-only decoding vectors, one per straggler pattern, the ``maxsize`` latest kept.

    >>> from codedlib.codes.cyclic import cyclic_repetition_code
    >>> decoder = CachedDecoder(cyclic_repetition_code(6, 2), maxsize=8)
    >>> a = decoder.vector([5, 0, 3, 1])
    >>> a is decoder.vector([0, 1, 3, 5]), decoder.hits, decoder.misses, len(decoder)
    (True, 1, 1, 1)
    """

    def __init__(self, code: GradientCodeLike, maxsize: int = DEFAULT_DECODER_CACHE):
        if not isinstance(code, GradientCodeLike):
            raise InputTypeError(
                "code must be a gradient code with B, n_workers, stragglers and "
                f"decode(survivors), got {type(code).__name__}"
            )
        self.code = code
        self.maxsize = check_int("maxsize", maxsize, low=1)
        self._vectors: OrderedDict[tuple[int, ...], np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._vectors)

    @staticmethod
    def _indices(survivors) -> np.ndarray:
        idx = np.asarray(survivors)
        if idx.ndim != 1:
            raise ValueError(
                f"survivors must be a 1-d sequence of worker indices, got shape {idx.shape}"
            )
        if idx.size and (idx.dtype == bool or not np.issubdtype(idx.dtype, np.integer)):
            raise InputTypeError(
                "survivors must be integer worker indices (for a boolean mask pass "
                f"np.flatnonzero(mask)), got dtype {idx.dtype}"
            )
        return idx.astype(np.int64, copy=False)

    def vector(self, survivors: ArrayLike) -> np.ndarray:
        """``code.decode(sorted(survivors))``, decoded once (invalid survivors never cached)."""
        key = tuple(int(i) for i in np.sort(self._indices(survivors)))
        cached = self._vectors.get(key)
        if cached is not None:
            self._vectors.move_to_end(key)
            self.hits += 1
            return cached
        a = np.asarray(self.code.decode(np.array(key, dtype=np.int64)))
        a.setflags(write=False)
        self.misses += 1
        self._vectors[key] = a
        if len(self._vectors) > self.maxsize:
            self._vectors.popitem(last=False)
        return a

    def combine(self, messages: ArrayLike, survivors: ArrayLike) -> np.ndarray:
        """Decoded sum ``1 @ G`` (complex for complex codes) from ``B[survivors] @ G``."""
        idx = self._indices(survivors)
        messages = np.asarray(messages)
        if messages.ndim == 0 or messages.shape[0] != idx.size:
            raise ValueError(
                f"messages must have one row per survivor ({idx.size}), got shape {messages.shape}"
            )
        return self.vector(idx)[idx] @ messages
