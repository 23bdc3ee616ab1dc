"""The runtime's errors, a rank's :class:`NodePlan` and the nodes every scheme derives from.

An iteration (CodedReduce Algorithm 2, CR.EXECUTE): a :class:`WorkerNode` forwards the iterate
to its children, computes its coded partial gradient, sleeps its injected delay, combines the
first ``need`` fresh results of its children and sends the sum up; the :class:`RootNode`
decodes and takes the step.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

import numpy as np

from codedlib.problems import even_partition
from codedlib.runtime.comm import (
    HEADER,
    TAG_DONE,
    TAG_RESULT,
    TAG_STOP,
    TAG_TASK,
    TAG_TRACE,
    Poller,
    SendQueue,
    now,
    pack_result,
    sleep_interruptible,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    import pandas as pd
    from mpi4py import MPI

    from codedlib.codes.protocol import GradientCodeLike
    from codedlib.problems import Problem
    from codedlib.runtime.config import RunConfig

    #: ``(start, stop, coef)``: ``coef * problem.partial_gradient(theta, start, stop)``
    Term = tuple[int, int, float | complex]
    Combine = Callable[[list[int], list[np.ndarray]], np.ndarray]

WORKER_GRACE = 1.0  # seconds a node waits for its children to finish at shutdown
#: A child that answered none of its last MAX_OUTSTANDING tasks gets no new one until it answers
MAX_OUTSTANDING = 4
ROOT_GRACE = 2.0  # seconds the root waits for every worker's trace at shutdown


class StragglerTimeout(RuntimeError):
    """More workers than the scheme tolerates did not answer within the timeout."""


class Diverged(RuntimeError):
    """The iterate or the loss stopped being finite: the step size is too large."""


class ParentSilent(RuntimeError):
    """An idle node heard nothing from its parent for too long (the root is frozen or gone)."""


def inject_root_failure(config: RunConfig, iteration: int) -> None:
    """``fail_root_at``: the root fails at ``iteration`` (-1: before the run)."""
    if config.fail_root_at is not None and config.fail_root_at == iteration:
        raise RuntimeError(f"injected root failure at iteration {iteration} (--fail-root-at)")


# ---------------------------------------------------------------------------- plans
@dataclass
class NodePlan:
    """What one rank does: its parent, its children (it waits for ``need`` of them and
    ``combine(positions in children, vectors)`` decodes their sum) and its coded ``terms``."""

    rank: int
    parent: int | None
    children: list[int] = field(default_factory=list)
    terms: list[Term] = field(default_factory=list)
    need: int = 0
    combine: Combine | None = None
    label: str = ""
    child_kind: str = "workers"  # what the children are called in error messages

    @property
    def worker(self) -> int:
        return self.rank - 1


def scaled_sum(scale: float) -> Combine:
    """A combine: ``scale`` times the sum of the received vectors."""
    return lambda positions, vectors: scale * np.sum(vectors, axis=0)


def code_combine(code: GradientCodeLike) -> Combine:
    """Combine with the gradient code's decoding vector for this set of survivors."""

    def combine(positions, vectors):
        a = np.asarray(code.decode(sorted(positions)), dtype=float)  # length N, 0 off survivors
        return np.tensordot(a[list(positions)], np.asarray(vectors), axes=1)

    return combine


def gradient_error(
    problem: Problem,
    theta: np.ndarray,
    g: np.ndarray,
    n_parts: int,
    which: Iterable[int] | None = None,
) -> float:
    """``||g - g_serial|| / sum_j ||g_j||`` over ``n_parts`` even partitions (``which``: only
    those): unlike ``/ ||g_serial||``, meaningful near the optimum (exact schemes give ~1e-15)."""
    bounds = even_partition(problem.n_samples, n_parts)
    which = range(n_parts) if which is None else which
    parts = [problem.partial_gradient(theta, int(bounds[p]), int(bounds[p + 1])) for p in which]
    scale = sum(float(np.linalg.norm(p)) for p in parts)
    return float(np.linalg.norm(g - np.sum(parts, axis=0)) / max(scale, 1e-300))


def local_gradient(problem: Problem, theta: np.ndarray, terms: list[Term]) -> np.ndarray:
    """``sum(coef * partial_gradient(theta, start, stop))`` over ``terms`` (complex for RS)."""
    complex_code = any(isinstance(c, complex) for _, _, c in terms)
    g = np.zeros(problem.dim, dtype=complex if complex_code else float)
    for start, stop, coef in terms:
        if coef != 0.0 and stop > start:
            g += coef * problem.partial_gradient(theta, start, stop)
    return g


# ---------------------------------------------------------------------------- nodes
class Node:
    """Message handling shared by the root and the workers (see ``comm`` for the layout)."""

    reads_stale = False  # DSAG's cache: a stale result costs t_c like a fresh one

    def __init__(
        self, comm: MPI.Comm, config: RunConfig, plan: NodePlan, problem: Problem, t0: float
    ) -> None:
        from mpi4py import MPI

        self.MPI, self.comm, self.config, self.plan, self.problem = MPI, comm, config, plan, problem
        self.dim, self.t0 = problem.dim, t0
        self.poller, self.sends, self.status = Poller(config.poll), SendQueue(), MPI.Status()
        self.child_pos = {c: k for k, c in enumerate(plan.children)}
        self.current = -1  # iteration being worked on
        self.sent_at = {}  # iteration -> time the iterate went to the children
        self.fresh = []  # (position, vector) for the current iteration, in arrival order
        self.rows, self.traces, self.done_children = [], {}, set()
        self.pending_task, self.stop = None, False
        self.abandon = config.on_new_iterate == "abandon"
        self.last_heard = now()  # last message from the parent (idle nodes watch it)
        self.unanswered = {c: [] for c in plan.children}  # iterations sent, not yet answered
        self.skipped = {c: 0 for c in plan.children}  # tasks withheld from a silent child

    def setup(self) -> None:
        """A scheme's node adds its own state here (after the base class built its own)."""

    # -- receiving -----------------------------------------------------------------

    def pump(self) -> bool:
        """Receive everything waiting; True if the current work should be interrupted."""
        MPI, comm, status = self.MPI, self.comm, self.status
        while comm.Iprobe(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status):
            tag, src = status.Get_tag(), status.Get_source()
            if src == self.plan.parent:
                self.last_heard = now()
            if tag == TAG_TRACE:  # a node's last message: it ends now (not a death)
                self.traces[src] = comm.recv(source=src, tag=TAG_TRACE)
                ENDED_WORKERS.add(src - 1)
                continue
            count = status.Get_count(MPI.DOUBLE)
            buf = np.empty(max(count, 1))
            comm.Recv([buf, count, MPI.DOUBLE], source=src, tag=tag)
            if tag == TAG_TASK:
                if self.pending_task is None or buf[0] > self.pending_task[0]:
                    self.pending_task = buf
            elif tag == TAG_RESULT:
                self.on_result(src, buf)
            elif tag == TAG_STOP:
                self.stop = True
                if buf[0] > 0:  # the root knows of a dead process: MPI_Finalize would wait for it
                    SKIP_FINALIZE.add(self.plan.rank)
            elif tag == TAG_DONE:
                self.done_children.add(src)
            else:
                self.on_message(tag, src, buf)
            self.poller.reset()
        return self.stop or (self.abandon and self.pending_task is not None)

    def on_result(self, src: int, buf: np.ndarray) -> None:
        """A child's result: charge t_c if the node reads it, log it, keep it if fresh."""
        task_it = int(buf[0])
        # an answer to task t settles every earlier task (the child always works on the newest)
        self.unanswered[src] = [it for it in self.unanswered.get(src, []) if it > task_it]
        fresh = task_it == self.current
        if (fresh or self.reads_stale) and self.config.t_c > 0:
            time.sleep(self.config.t_c)
        arrival = now()
        sent = self.sent_at.get(task_it, np.nan)
        elapsed = float(buf[3])
        row = dict(iteration=self.current, worker=src - 1, compute_time=elapsed)
        row.update(comm_time=(arrival - sent) - elapsed, fresh=fresh, wall_clock=arrival - self.t0)
        row.update(injected_delay=float(buf[2]), real_compute=float(buf[1]))
        self.rows.append(row | dict(task_iteration=task_it, used=False, parent=self.plan.rank))
        if fresh:
            self.fresh.append((self.child_pos[src], buf[HEADER:], len(self.rows) - 1))
        self.on_any_result(src, buf, fresh, len(self.rows) - 1)

    def on_message(self, tag: int, src: int, buf: np.ndarray) -> None:
        """Hook for an engine's own messages (the RAR watchdog's)."""

    def on_any_result(self, src: int, buf: np.ndarray, fresh: bool, row: int) -> None:
        """Hook for DSAG (stale results matter there)."""

    def combine_fresh(self) -> np.ndarray:
        """Combine the first ``need`` fresh results and mark them used."""
        first = self.fresh[: self.plan.need]
        for _, _, row in first:
            self.rows[row]["used"] = True
        return self.plan.combine([p for p, _, _ in first], [v for _, v, _ in first])

    def send_task(self, iteration: int, theta: np.ndarray, to: Iterable[int] | None = None) -> None:
        """Send the iterate to the children (``to``: only those, e.g. LAGC's selected groups)."""
        task = np.concatenate(([float(iteration)], theta))
        self.sent_at[iteration] = now()
        for child in self.plan.children if to is None else to:
            if child - 1 in DEAD_WORKERS:
                continue
            if len(self.unanswered[child]) >= MAX_OUTSTANDING:
                self.skipped[child] += 1  # silent (frozen?) child: no task until it answers
                continue
            self.unanswered[child].append(iteration)
            self.sends.isend(self.comm, task, child, TAG_TASK)
        for old in [k for k in self.sent_at if k < iteration - 50]:
            del self.sent_at[old]

    def wait(self, condition: Callable[[], bool], deadline: float | None = None) -> bool:
        """Pump and nap until ``condition()``; False on interruption or deadline."""
        while True:
            interrupted = self.pump()
            if condition():
                return True
            if interrupted or (deadline is not None and now() >= deadline):
                return False
            self.sends.prune()
            self.poller.idle(deadline)


class WorkerNode(Node):
    """A worker or inner tree node (CR.EXECUTE steps 1--4)."""

    def __init__(
        self,
        comm: MPI.Comm,
        config: RunConfig,
        plan: NodePlan,
        problem: Problem,
        t0: float,
        delays: np.ndarray,
        stop_at: int,
        start_wall: float = 0.0,
    ) -> None:
        super().__init__(comm, config, plan, problem, t0)
        self.delays, self.stop_at, self.tasks_done = delays, stop_at, 0
        self.setup()

    def choose_terms(self) -> list[Term]:
        return self.plan.terms

    def task_delay(self, t: int, terms: list[Term]) -> float:
        """Injected computation delay of the task of iteration ``t`` (seconds; ``inf``: frozen)."""
        return float(self.delays[t]) if t < len(self.delays) else 0.0

    def process(self, task: np.ndarray) -> None:
        t, theta, t_recv = int(task[0]), task[1:], now()
        self.current, self.fresh = t, []
        if 0 <= self.stop_at <= t:
            os.kill(os.getpid(), signal.SIGSTOP)  # freeze_mode="stop"; the root resumes it
            self.stop_at = -1  # at the end of the run, to hear STOP and end cleanly
            self.wait(lambda: self.stop, now() + WORKER_GRACE)
            return
        if self.plan.children:
            self.send_task(t, theta)
        terms = self.choose_terms()
        c0 = now()
        g = local_gradient(self.problem, theta, terms)
        real = now() - c0
        delay = self.task_delay(t, terms)
        if np.isinf(delay):  # frozen: never answer again, but obey STOP
            self.abandon = False
            self.wait(lambda: self.stop)
            return
        if not sleep_interruptible(delay, self.pump, self.poller):
            return
        if self.plan.children:
            if not self.wait(lambda: len(self.fresh) >= self.plan.need):
                return  # abandoned for a newer iterate, or stopped
            g = g + self.combine_fresh()
        if np.iscomplexobj(g):  # a complex code (Reed-Solomon): send [re, im] pairs as float64
            g = np.ascontiguousarray(g).view(np.float64)
        start, stop = (terms[0][0], terms[-1][1]) if terms else (0, 0)
        buf = pack_result(t, real, delay, now() - t_recv, start, stop, g)
        self.sends.isend(self.comm, buf, self.plan.parent, TAG_RESULT)
        self.tasks_done += 1

    def run(self) -> None:
        # the longest silence from the parent: the root's longest wait, its grace and a margin
        limit = self.config.timeout + ROOT_GRACE + 2.0
        while not self.stop:
            self.pump()
            if self.stop:
                break
            if self.pending_task is not None:
                task, self.pending_task = self.pending_task, None
                self.process(task)
                self.poller.reset()
                self.last_heard = max(self.last_heard, now() - self.config.poll)
            else:
                silent = now() - self.last_heard
                if silent > limit:
                    raise ParentSilent(
                        f"worker {self.plan.worker} (rank {self.plan.rank}) is idle and heard nothing "
                        f"from its parent (rank {self.plan.parent}) for {silent:.1f} s (limit: "
                        f"--timeout {self.config.timeout:g} s + {limit - self.config.timeout:g} s): the "
                        "root is frozen or gone; ending the job"
                    )
                self.sends.prune()
                self.poller.idle(self.last_heard + limit)
        self.shutdown()

    def shutdown(self) -> None:
        deadline = now() + WORKER_GRACE
        self.wait(lambda: self.sends.prune(), deadline)
        self.sends.isend(self.comm, np.zeros(1), self.plan.parent, TAG_DONE)
        children = set(self.plan.children)
        self.wait(lambda: children <= self.done_children, deadline)
        self.sends.isend_object(self.comm, self.rows, 0, TAG_TRACE)
        self.wait(lambda: self.sends.prune(), now() + WORKER_GRACE)


class RootNode(Node):
    """Master or tree root: CR.EXECUTE step 5 and the gradient step."""

    trace_order = ("iteration", "wall_clock", "worker")  # how the trace rows are sorted

    def __init__(
        self,
        comm: MPI.Comm,
        config: RunConfig,
        plan: NodePlan,
        problem: Problem,
        t0: float,
        theta_star: np.ndarray | None = None,
    ) -> None:
        super().__init__(comm, config, plan, problem, t0)
        self.theta_star, self.iteration_rows = theta_star, []
        self.notes, self.extra = [], {}  # the run's meta["notes"] and more entries of its meta
        self.step = config.step_scale / problem.smoothness()
        self.theta = problem.initial_point()
        self.progress = None  # a ProgressWriter: completed iterations on disk as they finish
        self.setup()

    def timeout_error(self, t: int) -> NoReturn:
        got = sorted(self.plan.children[p] - 1 for p, _, _ in self.fresh)
        missing = sorted({c - 1 for c in self.plan.children} - set(got))
        cfg, plan = self.config, self.plan
        raise StragglerTimeout(
            f"scheme {cfg.scheme!r} needs results from {plan.need} of its {len(plan.children)} "
            f"{plan.child_kind} per iteration (tolerates {len(plan.children) - plan.need} "
            f"straggler(s)) but only {len(got)} arrived within timeout={cfg.timeout:g} s in "
            f"iteration {t}; results came from workers {got}, missing: {missing}. More workers "
            f"straggled, froze or died than the scheme tolerates; stopping the run."
        )

    def check_error(self, g: np.ndarray) -> float:
        """``--check``: :func:`gradient_error` of ``g`` (overridden where ``g`` is partial)."""
        return gradient_error(self.problem, self.theta, g, self.config.n_workers)

    def record_step(self, t: int, row: dict, g: np.ndarray) -> None:
        """``--check``, the gradient step, loss, divergence, error against ``theta*``, progress."""
        n = self.problem.n_samples
        if self.config.check:
            row["grad_rel_error"] = self.check_error(g)
        self.theta = self.theta - self.step * g / n
        row["loss"] = self.problem.loss(self.theta)
        if not np.isfinite(row["loss"]) or not np.all(np.isfinite(self.theta)):
            raise Diverged(
                f"the iterate diverged at iteration {t} (loss {row['loss']!r}): step = "
                f"step_scale / smoothness = {self.config.step_scale:g} / "
                f"{self.problem.smoothness():.4g} = {self.step:.4g}; lower --step-scale"
            )
        if self.theta_star is not None:
            row["normalized_error"] = float(
                np.sum((self.theta - self.theta_star) ** 2) / np.sum(self.theta_star**2)
            )
        self.iteration_rows.append(row)
        if self.progress is not None:
            self.progress.write(row)

    def begin(self, t: int) -> Iterable[int] | None:
        """Hook before iteration ``t`` sends the iterate: the children to send it to (None: all)."""

    def ready(self) -> bool:
        """Whether the current iteration has the results it waits for."""
        return len(self.fresh) >= self.plan.need

    def finish(self, start: float) -> tuple[float, np.ndarray]:
        """``(end, gradient)`` of the iteration begun at ``start`` once :meth:`ready`."""
        return now(), self.combine_fresh()

    def run(self) -> None:
        for t in range(self.config.iterations):
            inject_root_failure(self.config, t)
            self.current, self.fresh = t, []
            to = self.begin(t)
            start = now()
            self.send_task(t, self.theta, to)
            if not self.wait(self.ready, start + self.config.timeout):
                self.timeout_error(t)
            end, g = self.finish(start)
            row = {"iteration": t, "start": start - self.t0, "end": end - self.t0}
            row.update(iteration_time=end - start, n_fresh=len(self.fresh))
            self.record_step(t, row, g)

    def collect(self) -> tuple[list[dict], pd.DataFrame | None]:
        """``(trace rows, ring rounds or None)``: the root's rows and every worker's."""
        return self.rows + [row for rows in self.traces.values() for row in rows], None

    def shutdown(self) -> list[int]:
        """STOP every worker, collect their traces; return the workers that never answered."""
        stop = np.full(1, 1.0 if DEAD_WORKERS else 0.0)  # 1: a process died, skip MPI_Finalize
        alive = [r for r in range(1, self.comm.Get_size()) if r - 1 not in DEAD_WORKERS]
        # a SIGSTOPped worker cannot read STOP: resume it first so that the job exits 0
        resumed = resume_stopped([r - 1 for r in alive])
        for rank in alive:
            self.sends.isend(self.comm, stop, rank, TAG_STOP)
        done = lambda: all(r in self.traces for r in alive)  # noqa: E731
        if not self.wait(done, now() + ROOT_GRACE):
            late = resume_stopped([r - 1 for r in alive if r not in self.traces])
            resumed += late
            if late:
                self.wait(done, now() + ROOT_GRACE)
        if resumed:
            self.notes.append(
                f"workers {sorted(set(resumed))} were stopped (SIGSTOP) at the end of the run; "
                "the root resumed them (SIGCONT) so that they could end cleanly"
            )
        return sorted(r - 1 for r in alive if r not in self.traces)


def resume_stopped(workers: Iterable[int]) -> list[int]:
    """SIGCONT those of ``workers`` that are stopped ``codedlib.runtime`` processes here."""
    resumed = []
    for w in workers:
        pid = WORKER_PIDS.get(w)
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
                state = fh.read().rsplit(")", 1)[-1].split()[0]
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                ours = b"codedlib.runtime" in fh.read()
        except (OSError, TypeError, IndexError):
            continue
        if state in ("T", "t") and ours:
            os.kill(pid, signal.SIGCONT)
            resumed.append(w)
    return resumed


#: On the root: workers that sent their trace (their exit is no death), ``{worker: pid}`` (from
#: READY) and workers known dead (MPICH's SIGUSR1; they get no task and no STOP).
ENDED_WORKERS: set = set()
WORKER_PIDS: dict = {}
DEAD_WORKERS: set = set()
#: Non-empty on a rank whose job lost a process: it skips ``MPI_Finalize`` (would wait forever).
SKIP_FINALIZE: set = set()
