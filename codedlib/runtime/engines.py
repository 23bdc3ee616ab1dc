"""MPI engines: master--worker (UMW, SGD, GC), tree (CodedReduce), ring (RAR), DSAG.

Every process runs :func:`run` with the same :class:`~codedlib.runtime.config.RunConfig`.
Rank 0 is the root (master / tree root / DSAG coordinator / RAR watchdog); ranks
``1 .. N`` are workers ``0 .. N-1``. Each rank rebuilds the learning problem from the seed and
its own share of the data allocation from the same ``codes`` functions the simulator uses,
so the MPI run computes exactly the gradients of the simulation.

Iteration (master--worker and tree, CodedReduce Algorithm 2, CR.EXECUTE):

1. the root sends the iterate ``theta_t`` to its children; every node forwards it to its own
   children, then computes its local (coded) partial gradient and sleeps its injected delay;
2. a node with children waits for the first ``need`` fresh results (GC: ``N - S``; CR: any
   ``n - s`` children; UMW: all; SGD: the first ``N - S``), combines them with the decoding
   vector of the gradient code for exactly that set of survivors, adds its own coded gradient
   and sends the sum up (CR.EXECUTE steps 2--5);
3. the root decodes and takes the gradient step ``theta <- theta - eta * g / n_samples``,
   ``eta = step_scale / smoothness``.

Results from an older iterate are *stale*: they are logged in the trace and dropped (DSAG
folds them into its cache instead). With ``on_new_iterate="abandon"`` a worker still sleeping
its injected delay when a new iterate arrives drops the old task, so every iteration starts
with all workers (the papers' per-iteration model); with ``"finish"`` it completes the old task
first and then takes the newest queued iterate (DSAG Section IV-B: a task queue of length one).

Faults: a worker with an infinite injected delay never answers but still obeys STOP; with
``freeze_mode="stop"`` it sends itself ``SIGSTOP`` (a really frozen process). Only the root
enforces the ``timeout``: a tree node that cannot decode is just a straggler for its parent.
When the root has too few results after ``timeout`` seconds it stops every worker and raises
:class:`StragglerTimeout` naming the missing workers; a process that does not even obey STOP
is ended by ``MPI_Abort`` (see ``codedlib.runtime.__main__``).
"""

from __future__ import annotations

import itertools
import os
import platform
import signal
import sys
import time
from dataclasses import dataclass, field

import numpy as np

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
from codedlib.runtime.config import RunConfig, build_problem
from codedlib.runtime.injection import apply_freeze
from codedlib.runtime.traces import ITERATION_COLUMNS, TRACE_COLUMNS, RunResult

__all__ = ["Diverged", "NodePlan", "ParentSilent", "StragglerTimeout", "build_plan", "run",
           "watchdog_seconds", "worker_loads"]

TAG_DELAYS, TAG_READY = 111, 112
WORKER_GRACE = 1.0  # seconds a node waits for its children to finish at shutdown
#: Tasks a child may hold unanswered: a child that has not answered any of its last
#: MAX_OUTSTANDING tasks gets no new one until it answers (a frozen worker is not flooded
#: with tasks it never reads; a slow one that catches up is sent the newest iterate again).
MAX_OUTSTANDING = 4
ROOT_GRACE = 2.0  # seconds the root waits for every worker's trace at shutdown


class StragglerTimeout(RuntimeError):
    """More workers than the scheme tolerates did not answer within the timeout."""


class Diverged(RuntimeError):
    """The iterate or the loss stopped being finite: the step size is too large."""


class ParentSilent(RuntimeError):
    """An idle node heard nothing from its parent for longer than the root can be silent in a
    healthy run (the root is frozen or gone): the node ends the job instead of hanging."""


def inject_root_failure(config: RunConfig, iteration: int) -> None:
    """``fail_root_at`` fault injection: the root fails at ``iteration`` (-1: before the run)."""
    if config.fail_root_at is not None and config.fail_root_at == iteration:
        raise RuntimeError(f"injected root failure at iteration {iteration} (--fail-root-at)")


def watchdog_seconds(config: RunConfig) -> float:
    """Longest silence an idle node accepts from its parent: one iteration's ``timeout`` (the
    root's longest wait before it stops the run itself) plus the shutdown grace and a margin."""
    return config.timeout + ROOT_GRACE + 2.0


# ---------------------------------------------------------------------------- plans
@dataclass
class NodePlan:
    """What one rank does: its parent, children, local coded data and how it combines.

    ``terms``: list of ``(start, stop, coefficient)``; the node's coded partial gradient is
    ``sum(coef * problem.partial_gradient(theta, start, stop))``. ``need``: results it waits
    for from its children. ``combine(positions, vectors)``: decoded sum from the children at
    ``positions`` (indices into ``children``).
    """

    rank: int
    parent: int | None
    children: list = field(default_factory=list)
    terms: list = field(default_factory=list)
    need: int = 0
    combine: object = None
    label: str = ""

    @property
    def worker(self) -> int:
        return self.rank - 1


def _sum_combine(positions, vectors):
    return np.sum(vectors, axis=0)


def _scaled_sum(scale):
    def combine(positions, vectors):
        return scale * np.sum(vectors, axis=0)
    return combine


def _code_combine(code):
    """Combine with the gradient code's decoding vector for this set of survivors."""
    def combine(positions, vectors):
        a = np.asarray(code.decode(sorted(positions)), dtype=float)
        if a.shape == (code.B.shape[0],):
            coeffs = a[list(positions)]
        else:  # decoding vector over the survivors only, in sorted order
            order = {p: i for i, p in enumerate(sorted(positions))}
            coeffs = np.array([a[order[p]] for p in positions])
        return np.tensordot(coeffs, np.asarray(vectors), axes=1)
    return combine


def build_plan(config: RunConfig, n_samples: int, rank: int) -> NodePlan:
    """The :class:`NodePlan` of ``rank`` for ``config`` (pure function: every rank agrees)."""
    from codedlib.problems import even_partition

    N = config.n_workers
    scheme = config.scheme
    if scheme == "cr":
        from codedlib.runtime.tree import tree_plan

        return tree_plan(config, n_samples, rank)
    bounds = even_partition(n_samples, N)
    if rank == 0:
        plan = NodePlan(0, None, list(range(1, N + 1)), label="root")
        if scheme == "umw":
            plan.need, plan.combine = N, _sum_combine
        elif scheme == "sgd":
            plan.need = N - config.stragglers
            plan.combine = _scaled_sum(N / plan.need)
        elif scheme == "gc":
            from codedlib.codes.cyclic import cyclic_repetition_code

            plan.need = N - config.stragglers
            plan.combine = _code_combine(cyclic_repetition_code(N, config.stragglers))
        elif scheme == "dsag":
            plan.need = config.w
        return plan
    i = rank - 1
    plan = NodePlan(rank, 0, label=f"worker {i}")
    if scheme == "gc":
        from codedlib.codes.cyclic import cyclic_repetition_code

        code = cyclic_repetition_code(N, config.stragglers)
        B = np.asarray(code.B, dtype=float)
        plan.terms = [(int(bounds[j]), int(bounds[j + 1]), float(B[i, j]))
                      for j in code.support(i)]
    elif scheme == "dsag":
        from codedlib.runtime.dsag import dsag_terms

        plan.terms = dsag_terms(n_samples, N, i, config.subpartitions)
    else:  # umw, sgd, rar: uncoded, one partition each
        plan.terms = [(int(bounds[i]), int(bounds[i + 1]), 1.0)]
    return plan


def worker_loads(config: RunConfig, n_samples: int) -> np.ndarray:
    """Samples each worker processes per task (drives the ``cr6`` delay model, CR eq. 6)."""
    loads = []
    for rank in range(1, config.n_workers + 1):
        plan = build_plan(config, n_samples, rank)
        sizes = [stop - start for start, stop, _ in plan.terms]
        loads.append(sizes[0] if config.scheme == "dsag" else sum(sizes))
    return np.array(loads)


def gradient_error(problem, theta, g, n_parts: int) -> float:
    """``||g - g_serial|| / sum_j ||g_j||``: error of an aggregated gradient sum against the
    serial ``problem.partial_gradient(theta)``, relative to the scale of what was summed (the
    norms of the partial gradients ``g_j`` of ``n_parts`` even partitions). Unlike
    ``||g - g_serial|| / ||g_serial||`` this stays meaningful near the optimum, where
    ``g_serial -> 0`` while every message keeps its size (exact schemes give ~1e-15)."""
    from codedlib.problems import even_partition

    bounds = even_partition(problem.n_samples, n_parts)
    parts = [problem.partial_gradient(theta, int(a), int(b)) for a, b in itertools.pairwise(bounds)]
    scale = sum(float(np.linalg.norm(p)) for p in parts)
    return float(np.linalg.norm(g - np.sum(parts, axis=0)) / max(scale, 1e-300))


def local_gradient(problem, theta, terms) -> np.ndarray:
    g = np.zeros(problem.dim)
    for start, stop, coef in terms:
        if coef != 0.0 and stop > start:
            g += coef * problem.partial_gradient(theta, start, stop)
    return g


# ---------------------------------------------------------------------------- nodes
class Node:
    """Message handling shared by the root and the workers (see ``comm`` for the layout)."""

    def __init__(self, comm, config: RunConfig, plan: NodePlan, problem, t0: float):
        from mpi4py import MPI

        self.MPI = MPI
        self.comm = comm
        self.config = config
        self.plan = plan
        self.problem = problem
        self.dim = problem.dim
        self.t0 = t0
        self.poller = Poller(config.poll)
        self.sends = SendQueue()
        self.status = MPI.Status()
        self.child_pos = {c: k for k, c in enumerate(plan.children)}
        self.current = -1  # iteration being worked on
        self.sent_at = {}  # iteration -> time the iterate went to the children
        self.fresh = []  # (position, vector) for the current iteration, in arrival order
        self.rows = []
        self.pending_task = None
        self.stop = False
        self.done_children = set()
        self.traces = {}
        self.abandon = config.on_new_iterate == "abandon"
        self.last_heard = now()  # last message from the parent (idle nodes watch it)
        self.unanswered = {c: [] for c in plan.children}  # iterations sent, not yet answered
        self.skipped = {c: 0 for c in plan.children}  # tasks withheld from a silent child

    # -- receiving -----------------------------------------------------------------
    def pump(self) -> bool:
        """Receive everything waiting; True if the current work should be interrupted."""
        MPI, comm, status = self.MPI, self.comm, self.status
        while comm.Iprobe(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status):
            tag, src = status.Get_tag(), status.Get_source()
            if src == self.plan.parent:
                self.last_heard = now()
            if tag == TAG_TRACE:
                self.traces[src] = comm.recv(source=src, tag=TAG_TRACE)
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
            elif tag == TAG_DONE:
                self.done_children.add(src)
            self.poller.reset()
        return self.stop or (self.abandon and self.pending_task is not None)

    def on_result(self, src: int, buf: np.ndarray):
        """A child's result: charge the single-port delay t_c if fresh, log it, keep it."""
        task_it = int(buf[0])
        # an answer to task t settles every earlier task (the child always works on the newest)
        self.unanswered[src] = [it for it in self.unanswered.get(src, []) if it > task_it]
        fresh = task_it == self.current
        if fresh and self.config.t_c > 0:
            time.sleep(self.config.t_c)
        arrival = now()
        sent = self.sent_at.get(task_it, np.nan)
        elapsed = float(buf[3])
        self.rows.append({
            "iteration": self.current, "worker": src - 1, "compute_time": elapsed,
            "comm_time": (arrival - sent) - elapsed, "fresh": fresh,
            "wall_clock": arrival - self.t0, "injected_delay": float(buf[2]),
            "real_compute": float(buf[1]), "task_iteration": task_it, "used": False,
            "parent": self.plan.rank,
        })
        if fresh:
            self.fresh.append((self.child_pos[src], buf[HEADER:], len(self.rows) - 1))
        self.on_any_result(src, buf, fresh, len(self.rows) - 1)

    def on_any_result(self, src, buf, fresh, row):
        """Hook for DSAG (stale results matter there)."""

    def combine_fresh(self):
        """Combine the first ``need`` fresh results and mark them used."""
        first = self.fresh[: self.plan.need]
        for _, _, row in first:
            self.rows[row]["used"] = True
        positions = [p for p, _, _ in first]
        vectors = [v for _, v, _ in first]
        return self.plan.combine(positions, vectors)

    def send_task(self, iteration: int, theta: np.ndarray):
        task = np.empty(self.dim + 1)
        task[0] = iteration
        task[1:] = theta
        self.sent_at[iteration] = now()
        for child in self.plan.children:
            if child - 1 in DEAD_WORKERS:
                continue
            if len(self.unanswered[child]) >= MAX_OUTSTANDING:
                self.skipped[child] += 1  # silent (frozen?) child: no task until it answers
                continue
            self.unanswered[child].append(iteration)
            self.sends.isend(self.comm, task, child, TAG_TASK)
        for old in [k for k in self.sent_at if k < iteration - 50]:
            del self.sent_at[old]

    def wait(self, condition, deadline=None) -> bool:
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

    def __init__(self, comm, config, plan, problem, t0, delays, stop_at):
        super().__init__(comm, config, plan, problem, t0)
        self.delays = delays
        self.stop_at = stop_at
        self.tasks_done = 0

    def choose_terms(self):
        return self.plan.terms

    def result_range(self, terms):
        return (terms[0][0], terms[-1][1]) if terms else (0, 0)

    def process(self, task: np.ndarray):
        t = int(task[0])
        theta = task[1:]
        t_recv = now()
        self.current = t
        self.fresh = []
        if 0 <= self.stop_at <= t:
            os.kill(os.getpid(), signal.SIGSTOP)  # a really frozen process (freeze_mode="stop")
        if self.plan.children:
            self.send_task(t, theta)
        terms = self.choose_terms()
        c0 = now()
        g = local_gradient(self.problem, theta, terms)
        real = now() - c0
        delay = float(self.delays[t]) if t < len(self.delays) else 0.0
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
        start, stop = self.result_range(terms)
        buf = pack_result(t, real, delay, now() - t_recv, start, stop, g)
        self.sends.isend(self.comm, buf, self.plan.parent, TAG_RESULT)
        self.tasks_done += 1

    def run(self):
        limit = watchdog_seconds(self.config)
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
                        "root is frozen or gone; ending the job")
                self.sends.prune()
                self.poller.idle(self.last_heard + limit)
        self.shutdown()

    def shutdown(self):
        deadline = now() + WORKER_GRACE
        self.wait(lambda: self.sends.prune(), deadline)
        done = np.zeros(1)
        self.sends.isend(self.comm, done, self.plan.parent, TAG_DONE)
        children = set(self.plan.children)
        self.wait(lambda: children <= self.done_children, deadline)
        self.sends.isend_object(self.comm, self.rows, 0, TAG_TRACE)
        self.wait(lambda: self.sends.prune(), now() + WORKER_GRACE)


class RootNode(Node):
    """Master (UMW, SGD, GC) or tree root (CR): CR.EXECUTE step 5 and the gradient step."""

    def __init__(self, comm, config, plan, problem, t0, theta_star=None):
        super().__init__(comm, config, plan, problem, t0)
        self.theta_star = theta_star
        self.iteration_rows = []
        self.step = config.step_scale / problem.smoothness()
        self.theta = problem.initial_point()
        self.progress = None  # a ProgressWriter: completed iterations on disk as they finish

    def aggregate(self, t: int, deadline: float):
        """Wait for ``need`` fresh results and decode; raise StragglerTimeout at the deadline."""
        if not self.wait(lambda: len(self.fresh) >= self.plan.need, deadline):
            self.timeout_error(t)
        return self.combine_fresh()

    def timeout_error(self, t):
        got = sorted(self.plan.children[p] - 1 for p, _, _ in self.fresh)
        missing = sorted({c - 1 for c in self.plan.children} - set(got))
        cfg = self.config
        who = "children" if cfg.scheme == "cr" else "workers"
        raise StragglerTimeout(
            f"scheme {cfg.scheme!r} needs results from {self.plan.need} of its "
            f"{len(self.plan.children)} {who} per iteration (tolerates "
            f"{len(self.plan.children) - self.plan.need} "
            f"straggler(s)) but only {len(got)} arrived within timeout={cfg.timeout:g} s in "
            f"iteration {t}; results came from workers {got}, missing: {missing}. More workers "
            f"straggled, froze or died than the scheme tolerates; stopping the run.")

    def check_reference(self):
        """What the aggregate must equal (serial computation); None where no exact reference
        exists (DSAG's cache mixes iterates)."""
        if self.config.scheme == "dsag":
            return None
        if self.config.scheme == "sgd":  # the rescaled sum over exactly the workers used
            used = [self.plan.children[p] - 1 for p, _, _ in self.fresh[: self.plan.need]]
            from codedlib.problems import even_partition

            bounds = even_partition(self.problem.n_samples, self.config.n_workers)
            part = sum(self.problem.partial_gradient(self.theta, int(bounds[w]), int(bounds[w + 1]))
                       for w in used)
            return part * (self.config.n_workers / self.plan.need)
        return self.problem.partial_gradient(self.theta)

    def record_iteration(self, t, start, end, g):
        row = {"iteration": t, "start": start - self.t0, "end": end - self.t0,
               "iteration_time": end - start, "n_fresh": len(self.fresh)}
        n = self.problem.n_samples
        if self.config.check:
            ref = self.check_reference()
            if ref is None:
                row["grad_rel_error"] = np.nan
            elif self.config.scheme == "sgd":
                row["grad_rel_error"] = float(np.linalg.norm(g - ref)
                                              / max(float(np.linalg.norm(ref)), 1e-300))
            else:
                row["grad_rel_error"] = gradient_error(self.problem, self.theta, g,
                                                       self.config.n_workers)
        self.theta = self.theta - self.step * g / n
        row["loss"] = self.problem.loss(self.theta)
        if not np.isfinite(row["loss"]) or not np.all(np.isfinite(self.theta)):
            raise Diverged(
                f"the iterate diverged at iteration {t} (loss {row['loss']!r}): step = "
                f"step_scale / smoothness = {self.config.step_scale:g} / "
                f"{self.problem.smoothness():.4g} = {self.step:.4g}; lower --step-scale")
        if self.theta_star is not None:
            row["normalized_error"] = float(np.sum((self.theta - self.theta_star) ** 2)
                                            / np.sum(self.theta_star**2))
        self.iteration_rows.append(row)
        if self.progress is not None:
            self.progress.write(row)

    def run(self):
        for t in range(self.config.iterations):
            inject_root_failure(self.config, t)
            self.current = t
            self.fresh = []
            start = now()
            self.send_task(t, self.theta)
            g = self.aggregate(t, start + self.config.timeout)
            self.record_iteration(t, start, now(), g)

    def shutdown(self) -> list:
        """STOP every worker, collect their traces; return the workers that never answered."""
        stop = np.zeros(1)
        alive = [r for r in range(1, self.comm.Get_size()) if r - 1 not in DEAD_WORKERS]
        for rank in alive:
            self.sends.isend(self.comm, stop, rank, TAG_STOP)
        self.wait(lambda: all(r in self.traces for r in alive), now() + ROOT_GRACE)
        return sorted(r - 1 for r in alive if r not in self.traces)


# ---------------------------------------------------------------------------- driver
def _distribute_delays(comm, config, problem, rank):
    """Root draws the injected delays (seeded) and sends each worker its column; every worker
    answers READY once it has its data and plan, so the per-iteration ``timeout`` never
    includes process start-up.

    Column layout: ``[stop_at, start_wall, delay_0, ..., delay_{T-1}]``; ``stop_at >= 0``
    means the worker sends itself SIGSTOP from that iteration on (``freeze_mode="stop"``).
    """
    from mpi4py import MPI

    T, N = config.iterations, config.n_workers
    poller = Poller(config.poll)
    if rank == 0:
        loads = worker_loads(config, problem.n_samples) if config.delay.kind == "cr6" else None
        delays = config.delay.sample(T, N, rng=config.seed, loads=loads)
        stop_at = np.full(N, -1.0)
        if config.freeze_mode == "sleep":
            delays = apply_freeze(delays, config.freeze)
        else:
            for worker, it in config.freeze:
                stop_at[worker] = it
        start_wall = time.time()
        cols = [np.concatenate([[stop_at[w], start_wall], delays[:, w]]) for w in range(N)]
        reqs = [comm.Isend(col, dest=w + 1, tag=TAG_DELAYS) for w, col in enumerate(cols)]
        ready = [np.full(1, np.nan) for _ in range(N)]
        reqs += [comm.Irecv(buf, source=w + 1, tag=TAG_READY) for w, buf in enumerate(ready)]
        deadline = now() + startup_seconds(config)
        while not MPI.Request.Testall(reqs):
            if now() > deadline:
                missing = [w for w, buf in enumerate(ready) if not np.isfinite(buf[0])]
                raise RuntimeError(f"workers {missing} did not start within {startup_seconds(config):g} s")
            poller.idle()
        WORKER_PIDS.clear()
        WORKER_PIDS.update({w: int(buf[0]) for w, buf in enumerate(ready)})
        return delays, start_wall
    col = np.empty(T + 2)
    req = comm.Irecv(col, source=0, tag=TAG_DELAYS)
    deadline = now() + startup_seconds(config)
    while not req.Test():
        if now() > deadline:  # the root failed before the run (or is frozen): never hang
            raise ParentSilent(f"rank {rank} got no work from the root within {startup_seconds(config):g} s "
                               "of start-up: the root failed before the run or is frozen; ending the job")
        poller.idle()
    req = comm.Isend(np.full(1, float(os.getpid())), dest=0, tag=TAG_READY)
    while not req.Test():
        poller.idle()
    return col, None


#: ``{worker: pid}`` of the workers, on the root (sent with READY): names a dead worker.
WORKER_PIDS: dict = {}
#: Workers known dead on the root (from MPICH's SIGUSR1 under ``-disable-auto-cleanup``): they get
#: no task and no STOP, and the run goes on without them as long as the scheme tolerates it.
DEAD_WORKERS: set = set()


def startup_seconds(config: RunConfig) -> float:
    """How long start-up (data, plans, the delay hand-out) may take before a rank gives up."""
    return max(60.0, 4 * config.timeout)


def _meta(config, comm, command=None):
    from mpi4py import MPI

    lib = MPI.Get_library_version().strip().splitlines()[0][:80]
    injected = []
    if config.delay.kind != "none":
        injected.append(f"computation delay per (iteration, worker) slept before sending, "
                        f"drawn with seed {config.seed} from {config.delay.describe()}")
    if config.t_c > 0:
        injected.append(f"per-message delay t_c={config.t_c:g} s at each receiving node "
                        "(single-port model, CodedReduce Sec. III-C)")
    if config.freeze:
        how = "infinite injected delay" if config.freeze_mode == "sleep" else "SIGSTOP (real freeze)"
        injected.append("frozen workers " + ", ".join(f"{w} from iteration {t}" for w, t in config.freeze)
                        + f" by {how}")
    return {
        "scheme": config.scheme, "world_size": comm.Get_size(), "config": config.to_dict(),
        "mpi_library": lib, "host": platform.node(), "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "command": command or " ".join(["mpiexec", "-n", str(comm.Get_size()), "python", "-m",
                                        "codedlib.runtime"] + config.cli_args()),
        "real": (f"gradient computation (numpy, {config.samples} x {config.dim} {config.problem} data), "
                 f"MPI message transfer ({lib.split(',')[0]}), process scheduling "
                 f"({comm.Get_size()} processes on {os.cpu_count()} cores), polling granularity "
                 f"<= {config.poll:g} s"),
        "injected": "; ".join(injected) if injected else "nothing (all delays are real)",
        "notes": [],
    }


def run(config: RunConfig, comm=None, command: str | None = None,
        progress_dir=None, on_start=None) -> RunResult | None:
    """Run ``config`` on ``comm`` (default ``MPI.COMM_WORLD``); every rank must call it.

    Returns the :class:`~codedlib.runtime.traces.RunResult` on rank 0 and ``None`` elsewhere.
    Raises :class:`~codedlib.runtime.config.WorldSizeError` on every rank when the world has
    the wrong size, and :class:`StragglerTimeout` on rank 0 when too many workers fail.
    The result's ``meta["unresponsive"]`` lists workers that ignored STOP (e.g. SIGSTOPped);
    the caller must then end the job with ``comm.Abort`` (the CLI does). With
    ``progress_dir`` the root writes every completed iteration to ``iterations.csv`` there as
    it finishes, so a job ended from outside (a killed process) keeps what it completed.
    Raises :class:`Diverged` when the iterate stops being finite and
    :class:`ParentSilent` on a worker whose parent went silent.
    """
    import pandas as pd
    from mpi4py import MPI

    comm = MPI.COMM_WORLD if comm is None else comm
    config.check_world(comm.Get_size())
    rank = comm.Get_rank()
    problem, theta_star = build_problem(config)
    plan = build_plan(config, problem.n_samples, rank)  # before READY: start-up is not timed
    if rank == 0:
        inject_root_failure(config, -1)  # before the run: the workers are waiting for work
    column, _start_wall = _distribute_delays(comm, config, problem, rank)
    if rank == 0 and on_start is not None:
        on_start()  # every worker has its data, plan and delays: the run starts now
    t0 = now()
    if config.scheme == "rar":
        from codedlib.runtime.ring import run_rar

        return run_rar(comm, config, problem, theta_star, column, _meta(config, comm, command))
    if rank != 0:
        stop_at = int(column[0])
        node_cls = WorkerNode
        if config.scheme == "dsag":
            from codedlib.runtime.dsag import DSAGWorker as node_cls
        node_cls(comm, config, plan, problem, t0, column[2:], stop_at).run()
        return None
    if config.scheme == "dsag":
        from codedlib.runtime.dsag import DSAGCoordinator

        root = DSAGCoordinator(comm, config, plan, problem, t0, theta_star)
    else:
        root = RootNode(comm, config, plan, problem, t0, theta_star)
    meta = _meta(config, comm, command)
    if progress_dir is not None:
        from codedlib.runtime.traces import ProgressWriter

        root.progress = ProgressWriter(progress_dir, meta)
    error = None
    try:
        root.run()
    except (StragglerTimeout, Diverged) as exc:
        error = exc
    unresponsive = root.shutdown()
    if root.progress is not None:
        root.progress.close()
    rows = list(root.rows)
    for worker_rows in root.traces.values():
        rows.extend(worker_rows)
    trace = pd.DataFrame(rows, columns=TRACE_COLUMNS).sort_values(
        ["iteration", "wall_clock", "worker"], kind="stable").reset_index(drop=True)
    iterations = pd.DataFrame(root.iteration_rows, columns=ITERATION_COLUMNS)
    meta["unresponsive"] = unresponsive
    meta["withheld_tasks"] = {str(c - 1): k for c, k in root.skipped.items() if k}
    meta["delays"] = column.tolist() if config.iterations * config.n_workers <= 20000 else None
    meta["dead"] = sorted(DEAD_WORKERS)
    if unresponsive:
        meta["notes"].append(f"workers {unresponsive} did not answer STOP (frozen); ended by MPI_Abort")
    if DEAD_WORKERS:
        meta["notes"].append(f"workers {sorted(DEAD_WORKERS)} died during the run; it went on without them")
    result = RunResult(trace, iterations, None, meta)
    if error is not None:
        error.result = result
        raise error
    return result


def abort_if_needed(comm, result_or_error, code: int = 0):
    """End processes that ignored STOP (SIGSTOPped workers) with ``MPI_Abort``; a no-op
    otherwise. Flushes stdout/stderr first."""
    result = getattr(result_or_error, "result", result_or_error)
    meta = getattr(result, "meta", {}) or {}
    if meta.get("unresponsive"):
        sys.stdout.flush()
        sys.stderr.write(f"codedlib.runtime: workers {meta['unresponsive']} ignored STOP "
                         f"(frozen); ending them with MPI_Abort({code})\n")
        sys.stderr.flush()
        comm.Abort(code)
