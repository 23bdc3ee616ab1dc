"""LAGC and G-LAG on MPI (Zhang and Simeone, TNNLS 2021, Algorithm 1 and Remark 3).

The N workers form ``G`` groups of ``N/G`` consecutive workers; group ``g`` owns the fine
partitions ``g N/G .. (g+1) N/G - 1`` (even partitions of the data) and stores them cyclically,
``min(r, N/G)`` per worker: the layout of :func:`codedlib.theory.lagc.lagc_layout`, the one the
simulator (:func:`codedlib.schemes.lagc.run_lagc`) uses. Inside a group the workers send the
rows of a cyclic-repetition gradient code (Tandon et al.), so the parameter server (rank 0)
decodes the group's gradient from its ``N/G - min(r, N/G) + 1`` fastest workers; with
``N/G <= r`` (G-LAG) every worker holds the whole group partition and the fastest one suffices.

Laziness, eq. (17): in iteration ``k >= 1`` group ``g`` is selected (its workers get
``theta^k``) only if ``L_g^2 ||theta_hat_g - theta^k||^2 > xi / (alpha^2 G^2)
sum_{d=1}^{D} ||theta^{k+1-d} - theta^{k-d}||^2``, ``theta_hat_g`` the iterate of its last
update and ``L_g`` the smoothness of its sum loss; the other groups' last gradients are reused
(eq. 18) and the step is ``alpha = (1 - sqrt(D xi)) / L`` (``1/L`` for ``xi = 0``, when every
group is selected and the run is plain GC per group).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NoReturn

import numpy as np

from codedlib.codes.cyclic import cyclic_repetition_code
from codedlib.problems import even_partition
from codedlib.runtime.comm import now
from codedlib.runtime.nodes import (
    NodePlan,
    RootNode,
    StragglerTimeout,
    code_combine,
    gradient_error,
)

if TYPE_CHECKING:
    from codedlib.runtime.config import RunConfig
    from codedlib.theory.lagc import LAGCLayout


def layout_of(config: RunConfig) -> LAGCLayout:
    """The group layout of the config (N, r, G)."""
    from codedlib.theory.lagc import lagc_layout  # scipy.stats: kept out of every rank's start-up

    return lagc_layout(config.n_workers, config.redundancy, config.groups)


def lagc_plan(config: RunConfig, n_samples: int, rank: int) -> NodePlan:
    """Root: every worker a child (the groups are decoded in :class:`LAGCRoot`); worker ``i``
    of group ``g``: row ``i mod N/G`` of its group's code over the group's fine partitions."""
    N = config.n_workers
    if rank == 0:
        need = layout_of(config).wait_for
        return NodePlan(0, None, list(range(1, N + 1)), need=need, label="parameter server")
    # a worker needs only N/G and min(r, N/G) (LAGCLayout's, checked by the root's config):
    # no theory.lagc, whose scipy.stats costs each worker 1 s of CPU at start-up
    n_g = N // config.groups
    stored = min(config.redundancy, n_g)
    bounds = even_partition(n_samples, N)
    i = rank - 1
    g, j = divmod(i, n_g)
    if stored == n_g:  # the whole group partition, uncoded (G-LAG)
        coefs = np.ones(n_g)
    else:
        coefs = np.asarray(cyclic_repetition_code(n_g, stored - 1).B, dtype=float)[j]
    terms = [
        (int(bounds[g * n_g + c]), int(bounds[g * n_g + c + 1]), float(coefs[c]))
        for c in range(n_g)
        if coefs[c] != 0
    ]
    return NodePlan(rank, 0, terms=terms, label=f"worker {i} (group {g})")


class LAGCRoot(RootNode):
    """The parameter server of LAGC / G-LAG (see the module docstring)."""

    def setup(self) -> None:
        config, problem = self.config, self.problem
        self.layout = layout_of(config)
        G, n_g = self.layout.n_groups, self.layout.workers_per_group
        if self.layout.coded:  # the cyclic-repetition code inside one group
            code = cyclic_repetition_code(n_g, self.layout.stored_per_worker - 1)
            self.combine = code_combine(code)
        else:
            self.combine = lambda positions, vectors: vectors[0]
        bounds = even_partition(problem.n_samples, config.n_workers)
        self.group_bounds = [(int(bounds[g * n_g]), int(bounds[(g + 1) * n_g])) for g in range(G)]
        self.L_g = np.array([(b - a) * problem.smoothness(a, b) for a, b in self.group_bounds])
        self.step *= 1.0 - math.sqrt(config.history * config.xi)  # alpha = (1 - sqrt(D xi)) / L
        self.theta_hat = np.repeat(self.theta[None, :], G, axis=0)
        self.stale = [np.zeros(problem.dim) for _ in range(G)]
        self.steps = []  # ||theta^{k+1} - theta^k||^2
        self.n_selected = []

    def begin(self, t: int) -> list[int]:
        """Eq. (17): select the groups whose workers get the new iterate (``steps`` gets the
        previous iteration's ``||theta^{k+1} - theta^k||^2``)."""
        cfg, G, n_g = self.config, self.layout.n_groups, self.layout.workers_per_group
        if t:
            self.steps.append(float(np.sum((self.theta - self.previous) ** 2)))
        self.previous = self.theta
        self.selected = np.ones(G, dtype=bool)
        if t and cfg.xi != 0.0:
            alpha = self.step / self.problem.n_samples  # the step on the sum objective
            diff = self.theta_hat - self.theta[None, :]
            lhs = self.L_g**2 * np.einsum("ij,ij->i", diff, diff)
            rhs = cfg.xi / (alpha**2 * G**2) * float(sum(self.steps[-cfg.history :]))
            self.selected = lhs > rhs
        return [c for c in self.plan.children if self.selected[(c - 1) // n_g]]

    def _group_results(self) -> dict[int, list]:
        """Fresh results per group: ``{g: [(position in group, vector, row), ...]}``."""
        n_g = self.layout.workers_per_group
        groups = {}
        for pos, vec, row in self.fresh:
            g, j = divmod(pos, n_g)
            groups.setdefault(g, []).append((j, vec, row))
        return groups

    def _short(self) -> list[int]:
        """The selected groups with fewer than ``wait_for`` fresh results."""
        groups, wait = self._group_results(), self.layout.wait_for
        return [g for g in np.flatnonzero(self.selected).tolist() if len(groups.get(g, ())) < wait]

    def ready(self) -> bool:
        return not self._short()

    def finish(self, start: float) -> tuple[float, np.ndarray]:
        """Decode the selected groups; the others' last gradients are reused (eq. 18)."""
        self.fresh_groups = {}
        for g, results in self._group_results().items():
            if not self.selected[g]:
                continue
            positions, vectors, rows = zip(*results[: self.layout.wait_for])
            for row in rows:
                self.rows[row]["used"] = True
            self.stale[g] = self.fresh_groups[g] = self.combine(list(positions), list(vectors))
            self.theta_hat[g] = self.theta
        self.n_selected.append(int(self.selected.sum()))
        return now(), np.sum(self.stale, axis=0)

    def run(self) -> None:
        super().run()
        self.notes.append(
            f"LAGC: groups selected per iteration {np.mean(self.n_selected):.2f} of "
            f"{self.layout.n_groups} on average (xi={self.config.xi:g}, D={self.config.history})"
        )
        self.extra["groups_selected"] = self.n_selected

    def timeout_error(self, t: int) -> NoReturn:
        n_g, wait = self.layout.workers_per_group, self.layout.wait_for
        short = self._short()
        got = {self.plan.children[p] - 1 for p, _, _ in self.fresh}
        missing = sorted(w for g in short for w in range(g * n_g, (g + 1) * n_g) if w not in got)
        raise StragglerTimeout(
            f"scheme {self.config.scheme!r} needs results from {wait} of the {n_g} workers of every "
            f"selected group per iteration (tolerates {n_g - wait} straggler(s) per group) but groups "
            f"{short} had fewer within timeout={self.config.timeout:g} s in iteration {t}; missing: "
            f"{missing}. More workers straggled, froze or died than the scheme tolerates; stopping the run."
        )

    def check_error(self, g: np.ndarray) -> float:
        """The decoded gradients of this iteration's selected groups against the serial
        computation at the same iterate (the stale groups' are by design from older iterates)."""
        if not self.fresh_groups:
            return 0.0
        got = np.sum(list(self.fresh_groups.values()), axis=0)
        n_g = self.layout.workers_per_group
        which = [p for g in self.fresh_groups for p in range(g * n_g, (g + 1) * n_g)]
        return gradient_error(self.problem, self.theta, got, self.config.n_workers, which)
