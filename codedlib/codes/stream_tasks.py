"""Task matrices for stream coded gradient descent (Esfahanizadeh et al., Appendix).

The data set is split into ``m`` chunks; task ``r`` computes the partial gradients of the
``d`` chunks where row ``r`` of the sparse ``K Omega x m`` matrix ``B`` is non-zero and returns
``sum_j B[r, j] G_j``. The master recovers ``G_1 + ... + G_m`` from any ``K`` task results
when the all-ones row lies in the span of every ``K``-row sub-matrix of ``B``.

Tasks are the "workers" of a gradient code tolerating ``K Omega - K`` stragglers, so encoding,
validation and decoding reuse :mod:`codedlib.codes.cyclic`.

References: references.bib keys esfahanizadeh2022stream, tandon2017gradient.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import check_array, check_int
from codedlib.codes.cyclic import GradientCode, gradient_code_from_matrices

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


class TaskCode:
    """A task matrix ``B`` (``n_tasks x m``) from which any ``K`` task results recover the sum.

    ``encode(G)`` returns ``B @ G`` (``G``: one row per chunk); ``validate`` checks every
    ``K``-subset of tasks (the Appendix's any-K recovery: a ValueError when one fails).
    """

    def __init__(self, B, K, validate=True):
        self.B = check_array("B", B, ndim=2)
        self.K = check_int("K", K, low=1, high=self.B.shape[0])
        # a gradient code whose "workers" are the tasks; validation checks every K-subset
        self.gradient_code: GradientCode = gradient_code_from_matrices(
            self.B, self.B.shape[0] - self.K, validate=validate
        )

    def encode(self, partial_gradients: ArrayLike) -> np.ndarray:
        G = np.asarray(partial_gradients, dtype=float)
        if G.shape[0] != self.B.shape[1]:
            raise ValueError(
                f"partial_gradients must have {self.B.shape[1]} rows (one per chunk), "
                f"got shape {G.shape}"
            )
        return self.B @ G

    def decode(self, results: ArrayLike, received: ArrayLike) -> np.ndarray:
        """``sum_j G_j`` from the results of the tasks ``received`` (any ``K`` or more)."""
        received = np.asarray(received, dtype=np.int64)
        if received.size < self.K:
            raise ValueError(
                f"received must hold at least K={self.K} task results, got {received.size}"
            )
        results = np.asarray(results, dtype=float)
        if results.shape[0] != received.size:
            raise ValueError(
                f"results must have one row per received task ({received.size}), "
                f"got shape {results.shape}"
            )
        return self.gradient_code.decode(received)[received] @ results


def example3_task_matrix() -> TaskCode:
    """Example 3 / Fig. 8: ``B = [[1, 0, .5], [1, -1, 0], [0, 1, .5]]``, ``K = 2``."""
    B = np.array([[1.0, 0.0, 0.5], [1.0, -1.0, 0.0], [0.0, 1.0, 0.5]])
    return TaskCode(B, 2)


def decoding_vector(B: ArrayLike, received: ArrayLike) -> np.ndarray:
    """Coefficients ``a`` with ``a @ B[received] = 1`` (the all-ones row; Appendix, eq. (11)).

    ``GradientCode.decode`` of the code whose workers are the tasks, restricted to them.
    """
    B = check_array("B", B, ndim=2)
    received, n = np.asarray(received, dtype=np.int64), B.shape[0]
    ok = received.ndim == 1 and received.size > 0 and np.unique(received).size == received.size
    if not ok or np.any(received < 0) or np.any(received >= n):
        raise ValueError(
            f"received must be a non-empty list of distinct task indices in [0, {n}), "
            f"got {received.tolist()}"
        )
    code = gradient_code_from_matrices(B, B.shape[0] - received.size, validate=False)
    return code.decode(received)[received]
