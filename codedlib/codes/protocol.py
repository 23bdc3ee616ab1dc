"""The gradient-code interface, written down once, and one cached decoder for all its users.

A gradient code (Tandon et al.; Reed–Solomon codes of Halbawi et al.) has ``n_workers`` rows of
an encoding matrix ``B`` (worker ``i`` sends ``B[i] @ G`` for the stacked partition gradients
``G``), tolerates ``stragglers`` missing workers, and ``decode(survivors)`` returns a length
``n_workers`` decoding vector ``a``, zero off the survivors, with ``a @ B == 1`` — so
``a[F] @ (B[F] @ G)`` is the full gradient sum for the survivors ``F``.
:class:`~codedlib.codes.cyclic.GradientCode` (real) and
:class:`~codedlib.codes.reed_solomon.ReedSolomonGradientCode` (complex) both satisfy
:class:`GradientCodeLike`.

A scheme meets the same straggler patterns again and again, so it decodes each pattern once:
:class:`CachedDecoder` keeps the decoding vectors of the most recent patterns (keyed by the
sorted survivor tuple, least recently used evicted beyond ``maxsize``) and
:meth:`CachedDecoder.combine` applies one to the survivors' coded messages.

Example
-------
>>> from codedlib.codes.cyclic import cyclic_repetition_code
>>> code = cyclic_repetition_code(4, 1)
>>> isinstance(code, GradientCodeLike)
True
>>> decoder = CachedDecoder(code)
>>> G = np.arange(8.0).reshape(4, 2)
>>> decoder.combine(code.B[[0, 2, 3]] @ G, [0, 2, 3]).round(12)
array([12., 16.])

References
----------
.. [GC] R. Tandon, Q. Lei, A. G. Dimakis, N. Karampatziakis, "Gradient Coding: Avoiding
   Stragglers in Distributed Learning", ICML (PMLR 70), 2017, arXiv:1612.03301.
.. [RS] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving Distributed Gradient
   Descent Using Reed–Solomon Codes", IEEE ISIT, 2018, arXiv:1706.05436.
.. [CR] A. Reisizadeh, S. Prakash, R. Pedarsani, A. S. Avestimehr, "CodedReduce: A Fast and
   Robust Framework for Gradient Aggregation in Distributed Learning", IEEE/ACM Trans.
   Networking 30(1), 2022, arXiv:1902.01981.
.. [LAGC] J. Zhang, O. Simeone, "LAGC: Lazily Aggregated Gradient Coding for Straggler-Tolerant
   and Communication-Efficient Distributed Learning", IEEE Trans. Neural Networks and
   Learning Systems 32(3), 2021, arXiv:1905.09148.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol, runtime_checkable

import numpy as np

from codedlib._validation import InputTypeError, check_int

__all__ = ["DEFAULT_DECODER_CACHE", "CachedDecoder", "GradientCodeLike"]

#: Straggler patterns whose decoding vectors a :class:`CachedDecoder` keeps by default.
DEFAULT_DECODER_CACHE = 1024


@runtime_checkable
class GradientCodeLike(Protocol):
    """What every gradient code offers: ``B``, ``n_workers``, ``stragglers``, ``decode``.

    ``isinstance(code, GradientCodeLike)`` checks that the members exist (not their types).

    Attributes
    ----------
    B : numpy.ndarray
        Encoding matrix, one row per worker (real or complex).
    n_workers : int
        Number of workers, ``B.shape[0]``.
    stragglers : int
        Number of stragglers s tolerated: any ``n_workers - s`` survivors decode.
    """

    B: np.ndarray

    @property
    def n_workers(self) -> int: ...

    @property
    def stragglers(self) -> int: ...

    def decode(self, survivors) -> np.ndarray:
        """Length ``n_workers`` vector ``a``, zero off ``survivors``, with ``a @ B == 1``."""
        ...


class CachedDecoder:
    """Decoding vectors of a gradient code, computed once per straggler pattern.

    :meth:`vector` returns ``code.decode(sorted(survivors))`` and keeps it (read-only) for the
    ``maxsize`` most recently used patterns; :meth:`combine` applies it to the survivors'
    coded messages. A pattern met again costs a dictionary look-up instead of a decode, and
    gives the very same vector, so results do not depend on the cache.

    Parameters
    ----------
    code : GradientCodeLike
        The gradient code (e.g. :class:`~codedlib.codes.cyclic.GradientCode` or
        :class:`~codedlib.codes.reed_solomon.ReedSolomonGradientCode`).
    maxsize : int, default DEFAULT_DECODER_CACHE
        Largest number of straggler patterns kept. Must satisfy ``1 <= maxsize``.

    Attributes
    ----------
    hits : int
        Calls answered from the cache.
    misses : int
        Calls that decoded.

    Examples
    --------
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

    def __repr__(self) -> str:
        return (
            f"CachedDecoder({type(self.code).__name__}(n_workers={self.code.n_workers}, "
            f"stragglers={self.code.stragglers}), maxsize={self.maxsize}, cached={len(self)})"
        )

    def __len__(self) -> int:
        return len(self._vectors)

    def clear(self) -> None:
        """Forget every cached vector (the hit and miss counts too)."""
        self._vectors.clear()
        self.hits = self.misses = 0

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

    def vector(self, survivors) -> np.ndarray:
        """Decoding vector for ``survivors`` (any order): ``code.decode(sorted(survivors))``.

        Parameters
        ----------
        survivors : sequence of int
            Distinct indices of the workers whose messages arrived; the code's ``decode``
            checks them (ValueError for bad indices or too few survivors, never cached).

        Returns
        -------
        numpy.ndarray
            Read-only length ``n_workers`` vector ``a``, zero off the survivors, ``a @ B == 1``.
        """
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

    def combine(self, messages, survivors) -> np.ndarray:
        """Decoded sum ``vector(survivors)[survivors] @ messages``.

        Parameters
        ----------
        messages : array_like
            Coded messages, row ``m`` from worker ``survivors[m]`` (``B[survivors] @ G``).
        survivors : sequence of int
            Distinct indices of the workers that sent ``messages``, in the rows' order.

        Returns
        -------
        numpy.ndarray
            The full gradient sum ``1 @ G`` (complex for complex codes: take ``.real``).
        """
        idx = self._indices(survivors)
        messages = np.asarray(messages)
        if messages.ndim == 0 or messages.shape[0] != idx.size:
            raise ValueError(
                f"messages must have one row per survivor ({idx.size}), got shape {messages.shape}"
            )
        return self.vector(idx)[idx] @ messages
