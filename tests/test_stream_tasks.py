"""Stream coded computing (paper 5), Appendix Example 3: task matrix and recovery."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from codedlib.codes import stream_tasks as tasks
from codedlib.codes.cyclic import cyclic_repetition_code


def cyclic_task_matrix(n, s):
    """The cyclic-repetition code's matrix as a task matrix: n tasks and chunks, K = n - s."""
    return tasks.TaskCode(cyclic_repetition_code(n, s).B, n - s, validate=False)


def test_example3_shape_and_parameters():
    code = tasks.example3_task_matrix()
    assert code.B.shape == (3, 3)
    assert code.K == 2 and code.B.shape[0] / code.K == pytest.approx(1.5)  # Omega
    assert np.count_nonzero(code.B, axis=1).max() == 2  # d = 2 < m = 3
    assert list(np.flatnonzero(code.B[0])) == [0, 2]  # G1 + 0.5 G3
    assert list(np.flatnonzero(code.B[1])) == [0, 1]  # G1 - G2
    assert list(np.flatnonzero(code.B[2])) == [1, 2]  # G2 + 0.5 G3


def test_example3_recovers_full_gradient_from_any_two_results():
    code = tasks.example3_task_matrix()
    rng = np.random.default_rng(0)
    G = rng.normal(size=(3, 7))  # partial gradients of the three chunks
    results = code.encode(G)
    for received in combinations(range(3), 2):
        got = code.decode(results[list(received)], received)
        np.testing.assert_allclose(got, G.sum(axis=0), atol=1e-12)
    tasks.TaskCode(code.B, 2)  # validated: every pair recovers the sum


def test_single_result_is_not_enough():
    code = tasks.example3_task_matrix()
    with pytest.raises(ValueError):
        tasks.TaskCode(code.B, 1)  # validated: a single result does not recover the sum
    with pytest.raises(ValueError, match="at least K=2"):
        code.decode(code.encode(np.eye(3))[:1], [0])
    with pytest.raises(ValueError, match="cannot recover"):
        tasks.decoding_vector(code.B, [1])


def test_bad_matrix_detected():
    B = np.array([[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
    with pytest.raises(ValueError):
        tasks.TaskCode(B, 2)
    with pytest.raises(ValueError, match="received"):
        tasks.decoding_vector(B, [0, 0])


def test_cyclic_task_matrix_recovers_from_any_k():
    code = cyclic_task_matrix(6, 2)
    assert code.K == 4 and code.B.shape[0] == 6
    rng = np.random.default_rng(1)
    G = rng.normal(size=(code.B.shape[1], 4))
    results = code.encode(G)
    for received in combinations(range(6), 4):
        np.testing.assert_allclose(
            code.decode(results[list(received)], received), G.sum(axis=0), atol=1e-9
        )


@settings(max_examples=25, deadline=None)
@given(st_.integers(2, 7), st_.data())
def test_any_k_results_recover_sum_property(n, data):
    """Cyclic task matrices: a random set of at least K received tasks recovers sum_j G_j."""
    s = data.draw(st_.integers(0, n - 1))
    code = cyclic_task_matrix(n, s)
    received = data.draw(st_.lists(st_.integers(0, n - 1), min_size=n - s, max_size=n, unique=True))
    G = np.random.default_rng(n * 31 + s).normal(size=(code.B.shape[1], 3))
    results = code.encode(G)[received]
    np.testing.assert_allclose(code.decode(results, received), G.sum(axis=0), atol=1e-8)
