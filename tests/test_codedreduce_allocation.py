"""CodedReduce allocation and execution (Algorithms 1-2, Example 2, Figs. 6-7)."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codedlib.codes.codedreduce import (
    Segments,
    allocate,
    comp_alloc,
    exact_data_unit,
    execute,
    local_messages_from_point_gradients,
    position_of,
    rank_of,
)
from codedlib.codes.cyclic import PAPER_EXAMPLE_A, PAPER_EXAMPLE_B, gradient_code_from_matrices
from codedlib.theory.codedreduce import n_tree_workers, r_cr

PAPER_CODE = gradient_code_from_matrices(PAPER_EXAMPLE_B, 1, PAPER_EXAMPLE_A)


def _rel_err(got, want):
    return np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-300)


def test_tree_indexing_round_trips():
    n, L = 3, 3
    assert n_tree_workers(n, L) == 3 + 9 + 27
    assert rank_of(0, 0, n) == 0 and rank_of(1, 0, n) == 1 and rank_of(2, 0, n) == 4
    for rank in range(1 + n_tree_workers(n, L)):
        assert rank_of(*position_of(rank, n), n) == rank
    alloc = allocate(n, L, 1, 270)
    for nd in alloc.nodes[1:]:
        parent = alloc.nodes[nd.parent]
        assert nd.rank in parent.children
        assert parent.children.index(nd.rank) == nd.index % n
        assert parent.layer == nd.layer - 1


def test_example2_allocation_matches_the_paper():
    # (3, 2) tree, s = 1, B of eq. (4); d = 15 makes every set an integer size.
    alloc = allocate(3, 2, 1, 15, code=PAPER_CODE)
    assert r_cr(3, 1, 2, exact=True) == Fraction(4, 15)
    np.testing.assert_array_equal(alloc.load_points, np.full(12, 4))  # r_CR d = 4
    d = 15
    D = [np.arange(0, 5), np.arange(5, 10), np.arange(10, 15)]  # D_1, D_2, D_3

    def vec(pairs):
        out = np.zeros(d)
        for idx, coef in pairs:
            out[idx] += coef
        return out

    # D^T(1,1) = 1/2 D_1 U D_2, D^T(1,3) = 1/2 D_1 U D_3
    np.testing.assert_allclose(
        alloc.node(1, 0).subtree_data.coefficient_vector(d), vec([(D[0], 0.5), (D[1], 1.0)])
    )
    np.testing.assert_allclose(
        alloc.node(1, 2).subtree_data.coefficient_vector(d), vec([(D[0], 0.5), (D[2], 1.0)])
    )
    # D^T(1,1) cut into 5 subsets of 2 points (in order): node (1,1) keeps the first two
    sub = [np.array([0, 1]), np.array([2, 3]), np.array([4, 5]), np.array([6, 7]), np.array([8, 9])]
    coef_in_tree = vec([(D[0], 0.5), (D[1], 1.0)])
    S = [[(idx, coef_in_tree[idx])] for idx in sub]  # D_k^T(1,1) with its coefficients

    def combo(*terms):
        out = np.zeros(d)
        for factor, k in terms:
            for idx, coef in S[k]:
                out[idx] += factor * coef
        return out

    np.testing.assert_allclose(
        alloc.node(1, 0).local_data.coefficient_vector(d), combo((1, 0), (1, 1))
    )
    # D(2,1) = 1/2 D_3^T U D_4^T, D(2,2) = D_4^T U (-1) D_5^T, D(2,3) = 1/2 D_3^T U D_5^T
    np.testing.assert_allclose(
        alloc.node(2, 0).local_data.coefficient_vector(d), combo((0.5, 2), (1, 3))
    )
    np.testing.assert_allclose(
        alloc.node(2, 1).local_data.coefficient_vector(d), combo((1, 3), (-1, 4))
    )
    np.testing.assert_allclose(
        alloc.node(2, 2).local_data.coefficient_vector(d), combo((0.5, 2), (1, 4))
    )


def test_example2_messages_and_master_decoding():
    alloc = allocate(3, 2, 1, 15, code=PAPER_CODE)
    rng = np.random.default_rng(0)
    G = rng.standard_normal((15, 4))
    local = local_messages_from_point_gradients(alloc, G)
    g = [G[0:5].sum(0), G[5:10].sum(0), G[10:15].sum(0)]
    # node (1,1) (rank 1) with surviving children (2,1), (2,2) (ranks 4, 5): row [2, -1, 0]
    m11 = alloc.combine(1, {4: local[4], 5: local[5]}, local[1])
    np.testing.assert_allclose(alloc.decoding_coefficients([0, 1]), [2.0, -1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(m11, 0.5 * g[0] + g[1], atol=1e-12)
    # master with (1,1), (1,3): second row [1, 0, 1]
    _, msgs = execute(alloc, local, stragglers=[2])
    np.testing.assert_allclose(alloc.decoding_coefficients([0, 2]), [1.0, 0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(msgs[3], 0.5 * g[0] + g[2], atol=1e-12)
    np.testing.assert_allclose(msgs[0], G.sum(0), atol=1e-12)


@pytest.mark.parametrize(
    "n,s,L", [(3, 1, 2), (4, 1, 3), (12, 1, 2), (12, 3, 2), (5, 2, 2), (2, 0, 3)]
)
def test_every_node_holds_exactly_r_cr_d_points_when_d_is_exact(n, s, L):
    unit = exact_data_unit(n, s, L)
    d = unit * 2
    alloc = allocate(n, L, s, d)
    want = r_cr(n, s, L, exact=True) * d
    assert want.denominator == 1
    np.testing.assert_array_equal(alloc.load_points, np.full(n_tree_workers(n, L), int(want)))
    assert exact_data_unit(3, 1, 2) == 15


def _random_pattern(alloc, rng, max_per_parent=None):
    s = alloc.s if max_per_parent is None else max_per_parent
    stragglers = []
    for parent in alloc.parents():
        k = int(rng.integers(0, s + 1))
        stragglers += list(rng.choice(alloc.nodes[parent].children, size=k, replace=False))
    return stragglers


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 12),
    L=st.integers(1, 3),
    data=st.data(),
)
def test_exact_recovery_for_random_trees_and_straggler_patterns(n, L, data):
    s = data.draw(st.integers(0, n - 1))
    d = data.draw(st.integers(1, 600))
    seed = data.draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    alloc = allocate(n, L, s, d, rng=seed)
    G = rng.standard_normal((d, 3))
    local = local_messages_from_point_gradients(alloc, G)
    want = G.sum(axis=0)
    for _ in range(3):
        got, _ = execute(alloc, local, _random_pattern(alloc, rng))
        assert _rel_err(got, want) <= 1e-9
    # loads equal r_CR d up to rounding when d is not a multiple of exact_data_unit
    assert np.max(np.abs(alloc.load_points - alloc.r_cr * d)) <= 3.0


@pytest.mark.parametrize("n,s", [(3, 1), (4, 1), (3, 2)])
def test_every_straggler_pattern_two_layers(n, s):
    """All patterns with exactly s stragglers under every surviving parent of a 2-layer tree."""
    alloc = allocate(n, 2, s, 97, rng=1)
    G = np.random.default_rng(2).standard_normal((97, 2))
    local = local_messages_from_point_gradients(alloc, G)
    want = G.sum(axis=0)
    top = alloc.nodes[0].children
    count = 0
    for top_lost in itertools.combinations(top, s):
        alive = [c for c in top if c not in top_lost]
        per_parent = [list(itertools.combinations(alloc.nodes[p].children, s)) for p in alive]
        for lower in itertools.product(*per_parent):
            pattern = list(top_lost) + [r for group in lower for r in group]
            got, _ = execute(alloc, local, pattern)
            assert _rel_err(got, want) <= 1e-9
            count += 1
    assert count == len(list(itertools.combinations(top, s))) * len(
        list(itertools.combinations(range(n), s))
    ) ** (n - s)


def test_straggling_subtree_root_loses_whole_subtree_but_recovery_holds():
    alloc = allocate(4, 3, 1, 500)
    G = np.random.default_rng(3).standard_normal((500, 2))
    local = local_messages_from_point_gradients(alloc, G)
    # rank 1 = node (1,1) straggles; its children also straggle (irrelevant: sub-tree lost)
    got, msgs = execute(alloc, local, [1] + list(alloc.nodes[1].children))
    assert 1 not in msgs
    assert _rel_err(got, G.sum(0)) <= 1e-9


def test_more_than_s_stragglers_under_a_parent_is_a_clear_error():
    alloc = allocate(3, 2, 1, 45)
    local = np.zeros((13, 2))
    with pytest.raises(
        ValueError, match=r"more than s=1 stragglers under parent \(1,2\) \(rank 2\): 2 of its 3"
    ):
        execute(alloc, local, [7, 8])
    with pytest.raises(ValueError, match=r"under parent master \(rank 0\): 3 of its 3"):
        execute(alloc, local, [1, 2, 3])
    with pytest.raises(ValueError, match="more than s=1 stragglers under parent"):
        alloc.combine(1, {4: np.zeros(2)}, np.zeros(2))
    with pytest.raises(ValueError, match="not a child"):
        alloc.combine(1, {7: np.zeros(2), 4: np.zeros(2)}, np.zeros(2))
    with pytest.raises(ValueError, match="straggler rank must satisfy"):
        execute(alloc, local, [13])


def test_bad_tree_parameters_give_clear_errors():
    with pytest.raises(ValueError, match=r"s must satisfy 0 <= s < n, got s=3, n=3"):
        allocate(3, 2, 3, 100)
    with pytest.raises(ValueError, match="L must satisfy 1 <= L"):
        allocate(3, 0, 1, 100)
    with pytest.raises(ValueError, match="n must satisfy 1 <= n"):
        allocate(0, 2, 0, 100)
    with pytest.raises(ValueError, match="d must satisfy 1 <= d"):
        allocate(3, 2, 1, 0)
    with pytest.raises(ValueError, match="code must be an"):
        allocate(4, 2, 1, 100, code=PAPER_CODE)


def test_plan_and_combine_reproduce_execute_like_an_mpi_run():
    """Each rank computes its local gradient from its segments with a problem's partial
    gradients and combines the first n - s children: the master gets the full gradient."""
    from codedlib.problems import LeastSquares, synthetic_linear_regression

    data = synthetic_linear_regression(210, 6, rng=0)
    prob = LeastSquares(data.X, data.y)
    theta = prob.initial_point(rng=1)
    alloc = allocate(3, 2, 1, prob.n_samples)
    rng = np.random.default_rng(4)
    messages = {}
    for rank in range(alloc.n_workers, -1, -1):
        nd = alloc.nodes[rank]
        local = sum(
            (c * prob.partial_gradient(theta, a, b) for a, b, c in nd.local_data.as_tuples()),
            np.zeros(prob.dim),
        )
        if nd.children:
            arrival = rng.permutation(nd.children)[: alloc.n - alloc.s]
            messages[rank] = alloc.combine(rank, {c: messages[c] for c in arrival}, local)
        else:
            messages[rank] = local
    np.testing.assert_allclose(messages[0], prob.n_samples * prob.gradient(theta), rtol=1e-9)
    assert alloc.nodes[0].local_data.as_tuples() == [] and alloc.nodes[0].parent is None


def test_comp_alloc_and_inspection_helpers():
    parts = comp_alloc(Segments.whole(30), PAPER_CODE)
    assert [p.describe() for p in parts] == [
        "0.5*[0:10) + 1*[10:20)",
        "1*[10:20) + -1*[20:30)",
        "0.5*[0:10) + 1*[20:30)",
    ]
    alloc = allocate(3, 2, 1, 45)
    df = alloc.to_dataframe()
    assert len(df) == 13 and df.loc[0, "node"] == "master"
    assert (df["n_points"].iloc[1:] == 12).all()
    graph = alloc.to_networkx()
    assert graph.number_of_nodes() == 13 and graph.number_of_edges() == 12
    assert graph.nodes[4]["label"] == "(2,1)"
    M = np.array([nd.local_data.coefficient_vector(45) for nd in alloc.nodes])
    np.testing.assert_array_equal(np.count_nonzero(M, axis=1)[1:], alloc.load_points)


def test_docstring_examples_run():
    import doctest

    import codedlib.codes.codedreduce
    import codedlib.codes.cyclic
    import codedlib.theory.codedreduce

    for module in (codedlib.codes.cyclic, codedlib.codes.codedreduce, codedlib.theory.codedreduce):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


@pytest.mark.parametrize("n,s", [(12, 1), (12, 11), (11, 5)])
def test_largest_three_layer_trees_recover_exactly(n, s):
    rng = np.random.default_rng(n + s)
    alloc = allocate(n, 3, s, 997, rng=s)
    G = rng.standard_normal((997, 2))
    local = local_messages_from_point_gradients(alloc, G)
    for _ in range(2):
        got, _ = execute(alloc, local, _random_pattern(alloc, rng))
        assert _rel_err(got, G.sum(0)) <= 1e-9


@pytest.mark.parametrize("n,L", [(1, 3), (2, 3), (3, 2), (4, 3), (12, 2)])
def test_tree_links_are_networkx_balanced_tree(n, L):
    """Breadth-first (heap) ranks: the parent/children of every rank are those of
    ``networkx.balanced_tree(n, L)``, which numbers its nodes breadth-first from the root 0."""
    import networkx as nx

    from codedlib.codes.codedreduce import tree_links
    from codedlib.theory.codedreduce import n_tree_workers

    tree = nx.bfs_tree(nx.balanced_tree(n, L), 0)
    assert tree.number_of_nodes() == n_tree_workers(n, L) + 1
    for rank in tree.nodes:
        parent, children = tree_links(n, L, rank)
        preds = list(tree.predecessors(rank))
        assert parent == (preds[0] if preds else None)
        assert children == sorted(tree.successors(rank))
    alloc = allocate(n, L, 0, n**L * 2) if n > 1 else None
    if alloc is not None:
        assert [nd.parent for nd in alloc.nodes] == [tree_links(n, L, r)[0] for r in tree.nodes]
    with pytest.raises(ValueError, match="rank"):
        tree_links(n, L, n_tree_workers(n, L) + 1)
