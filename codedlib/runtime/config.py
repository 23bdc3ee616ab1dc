"""Run configuration for the MPI engines, world-size rules and the learning problem.

One :class:`RunConfig` describes a run: the scheme, its sizes, the problem, the injected
delays and the fault plan. Every rank builds the same config from the same command line, so
every rank can check the world size on its own and fail fast without communicating.

World sizes (``mpiexec -n K``): one root (rank 0) plus the workers,

========  =========================================================  ====================
scheme    workers                                                    K
========  =========================================================  ====================
umw       N (master waits for all)                                   N + 1
sgd       N (master uses the first N - S)                            N + 1
gc        N (cyclic-repetition code, any N - S)                      N + 1
rar       N (ring over the workers; rank 0 only watches and logs)    N + 1
cr        N = n + n^2 + ... + n^L ((n, L)-regular tree)              N + 1
dsag      N (coordinator waits for w fresh results)                  N + 1
========  =========================================================  ====================
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from codedlib._validation import check_int, check_real
from codedlib.runtime.injection import DelayModel, parse_freeze

__all__ = ["SCHEMES", "RunConfig", "WorldSizeError", "build_problem", "tree_size"]

SCHEMES = ("umw", "sgd", "gc", "rar", "cr", "dsag")
PROBLEMS = ("linreg", "logreg")


class WorldSizeError(ValueError):
    """The MPI world does not have the number of processes the scheme needs."""


def tree_size(n: int, L: int) -> int:
    """Number of workers ``N = n + n^2 + ... + n^L`` of an (n, L)-regular tree (CR Section III-A)."""
    return sum(n**layer for layer in range(1, L + 1))


@dataclass(frozen=True)
class RunConfig:
    """Everything one distributed run needs; see :func:`codedlib.runtime.engines.run`.

    Sizes: ``n_workers`` (N) for umw/sgd/gc/rar/dsag; ``n``, ``L``, ``s`` for cr;
    ``stragglers`` (S) for gc/sgd; ``w`` and ``subpartitions`` for dsag.
    Problem: ``problem`` ("linreg": CodedReduce eq. 10 synthetic least squares;
    "logreg": logistic regression on labels sign(x^T theta* + noise)), ``samples``, ``dim``.
    Delays: ``delay`` (a :class:`DelayModel` or its text), ``bursts``, ``t_c`` (per message).
    Faults: ``freeze`` ("W@T,..."), ``freeze_mode`` ("sleep": infinite injected delay,
    "stop": the worker sends itself SIGSTOP), ``timeout`` (seconds the root waits in one
    iteration before it stops the run with an error).
    ``on_new_iterate``: what a worker still busy with an old iterate does when a new one
    arrives: "abandon" (default for umw/sgd/gc/cr: every iteration starts with all workers,
    the papers' model) or "finish" (default for dsag: stale results are used).
    ``allreduce`` for rar: "mpi" (MPI_Allreduce) or "ring" (hand-written, per-round timing).
    ``check``: the root also computes the serial gradient and records the relative error.
    ``fail_root_at``: fault injection, the root raises an error at that iteration (-1: before
    the run starts); every process must still exit with a clear error.
    """

    scheme: str
    n_workers: int | None = None
    stragglers: int = 0
    n: int | None = None
    L: int | None = None
    s: int = 0
    w: int | None = None
    subpartitions: int = 1
    iterations: int = 10
    problem: str = "linreg"
    samples: int = 240
    dim: int = 20
    noise: float = 1.0
    step_scale: float = 1.0
    delay: DelayModel | str | None = None
    bursts: str | None = None
    t_c: float = 0.0
    timeout: float = 30.0
    seed: int = 0
    freeze: tuple | str | None = ()
    freeze_mode: str = "sleep"
    on_new_iterate: str | None = None
    allreduce: str = "mpi"
    margin: float = 0.02
    check: bool = False
    poll: float = 1e-3
    fail_root_at: int | None = None

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)
        if self.scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {list(SCHEMES)}, got scheme={self.scheme!r}")
        if self.scheme == "cr":
            if self.n is None or self.L is None:
                raise ValueError("scheme 'cr' needs the tree sizes n (children per parent) and L "
                                 f"(layers), got n={self.n}, L={self.L}")
            n = check_int("n", self.n, low=2)
            L = check_int("L", self.L, low=1)
            set_("s", check_int("s", self.s, low=0, high=n - 1))
            N = tree_size(n, L)
            if self.n_workers is not None and self.n_workers != N:
                raise ValueError(f"n_workers must equal n + ... + n^L = {N} for cr (n={n}, L={L}), "
                                 f"got n_workers={self.n_workers}")
            set_("n_workers", N)
        else:
            if self.n_workers is None:
                raise ValueError(f"scheme {self.scheme!r} needs n_workers (N >= 1), got n_workers=None")
            set_("n_workers", check_int("n_workers", self.n_workers, low=1))
        N = self.n_workers
        set_("stragglers", check_int("stragglers", self.stragglers, low=0, high=N - 1))
        if self.scheme == "dsag":
            w = N if self.w is None else self.w
            set_("w", check_int("w", w, low=1, high=N))
        set_("subpartitions", check_int("subpartitions", self.subpartitions, low=1))
        set_("iterations", check_int("iterations", self.iterations, low=1))
        if self.problem not in PROBLEMS:
            raise ValueError(f"problem must be one of {list(PROBLEMS)}, got problem={self.problem!r}")
        set_("dim", check_int("dim", self.dim, low=1))
        min_samples = N * self.subpartitions if self.scheme == "dsag" else N
        if self.scheme == "cr":
            # each tree node needs at least one sample per coded part (see codes.codedreduce)
            min_samples = max(N, self.n**self.L)
        set_("samples", check_int("samples", self.samples, low=min_samples))
        set_("noise", check_real("noise", self.noise, low=0.0))
        set_("step_scale", check_real("step_scale", self.step_scale, low=0.0, low_open=True))
        delay = self.delay
        if not isinstance(delay, DelayModel):
            delay = DelayModel.parse(delay, self.bursts)
        if delay.bursts and delay.kind == "none":
            raise ValueError("bursts need a base delay model (--delay), got delay='none'")
        if delay.bursts:  # the burst parameters are checked when the model is built: now
            delay.sample(1, N, rng=0, loads=np.ones(N))
        set_("delay", delay)
        set_("t_c", check_real("t_c", self.t_c, low=0.0))
        set_("timeout", check_real("timeout", self.timeout, low=0.0, low_open=True))
        set_("seed", check_int("seed", self.seed, low=0))
        freeze = parse_freeze(self.freeze) if isinstance(self.freeze, str) or self.freeze is None \
            else tuple((int(a), int(b)) for a, b in self.freeze)
        for worker, it in freeze:
            check_int("freeze worker", worker, low=0, high=N - 1)
            check_int("freeze iteration", it, low=0, high=self.iterations - 1)
        set_("freeze", freeze)
        if self.freeze_mode not in ("sleep", "stop"):
            raise ValueError(f"freeze_mode must be 'sleep' or 'stop', got freeze_mode={self.freeze_mode!r}")
        mode = self.on_new_iterate
        if mode is None:
            mode = "finish" if self.scheme in ("dsag", "rar") else "abandon"
        if mode not in ("abandon", "finish"):
            raise ValueError(f"on_new_iterate must be 'abandon' or 'finish', got on_new_iterate={mode!r}")
        set_("on_new_iterate", mode)
        if self.allreduce not in ("mpi", "ring"):
            raise ValueError(f"allreduce must be 'mpi' or 'ring', got allreduce={self.allreduce!r}")
        if self.fail_root_at is not None:
            set_("fail_root_at", check_int("fail_root_at", self.fail_root_at, low=-1,
                                           high=self.iterations - 1))
        set_("margin", check_real("margin", self.margin, low=0.0))
        set_("poll", check_real("poll", self.poll, low=0.0, low_open=True, high=0.1))
        if self.scheme == "rar" and self.freeze and self.allreduce == "mpi":
            # a frozen rank inside MPI_Allreduce would block the others inside the library;
            # the root's watchdog still stops the run after `timeout`.
            pass

    # ------------------------------------------------------------------ sizes
    @property
    def world_size(self) -> int:
        """Processes the scheme needs: the root plus N workers."""
        return self.n_workers + 1

    @property
    def tolerated(self) -> int:
        """Stragglers the scheme tolerates (per parent for cr)."""
        if self.scheme in ("gc", "sgd"):
            return self.stragglers
        if self.scheme == "cr":
            return self.s
        if self.scheme == "dsag":
            return self.n_workers - self.w
        return 0

    def check_world(self, size: int) -> None:
        """Raise :class:`WorldSizeError` with the exact ``mpiexec -n`` to use."""
        if size != self.world_size:
            sizes = (f"n={self.n}, L={self.L}: N = {' + '.join(f'{self.n}^{l}' for l in range(1, self.L + 1))}"
                     f" = {self.n_workers} workers" if self.scheme == "cr" else f"N={self.n_workers} workers")
            raise WorldSizeError(
                f"scheme {self.scheme!r} with {sizes} needs 1 root + {self.n_workers} workers = "
                f"{self.world_size} MPI processes, but this run has {size}; "
                f"launch it with: mpiexec -n {self.world_size} python -m codedlib.runtime ...")

    def replace(self, **changes) -> RunConfig:
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        fields.update(changes)
        if "delay" not in changes and "bursts" in changes:
            fields["delay"] = self.delay.to_text()
        return RunConfig(**fields)

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["delay"] = self.delay.to_text()
        out["bursts"] = self.delay.bursts_text()
        out["freeze"] = ",".join(f"{w}@{t}" for w, t in self.freeze)
        return out

    def cli_args(self) -> list[str]:
        """The command-line arguments that rebuild this config (for ``mpiexec``)."""
        d = self.to_dict()
        args = ["--scheme", self.scheme]
        if self.scheme == "cr":
            args += ["--n", str(self.n), "--L", str(self.L), "--s", str(self.s)]
        else:
            args += ["--N", str(self.n_workers), "--S", str(self.stragglers)]
        if self.scheme == "dsag":
            args += ["--w", str(self.w), "--subpartitions", str(self.subpartitions)]
        for name in ("iterations", "problem", "samples", "dim", "noise", "step_scale", "t_c",
                     "timeout", "seed", "freeze_mode", "on_new_iterate", "allreduce", "margin", "poll"):
            args += ["--" + name.replace("_", "-"), str(d[name])]
        args += ["--delay", d["delay"]]
        if d["bursts"]:
            args += ["--bursts", d["bursts"]]
        if d["freeze"]:
            args += ["--freeze", d["freeze"]]
        if self.check:
            args.append("--check")
        if self.fail_root_at is not None:
            args += ["--fail-root-at", str(self.fail_root_at)]
        return args


def build_problem(config: RunConfig):
    """The learning problem every rank rebuilds from the seed (no data is sent over MPI).

    ``linreg``: CodedReduce eq. (10), :func:`codedlib.problems.synthetic_linear_regression`
    with :class:`~codedlib.problems.LeastSquares`. ``logreg``: the same features with labels
    ``sign(y)`` and :class:`~codedlib.problems.LogisticRegression` (lam = 1/samples, as DSAG
    Section VII). Returns ``(problem, theta_star or None)``.
    """
    from codedlib.problems import LeastSquares, LogisticRegression, synthetic_linear_regression

    data = synthetic_linear_regression(config.samples, config.dim, config.noise, rng=config.seed)
    if config.problem == "linreg":
        return LeastSquares(data.X, data.y), data.theta_star
    labels = np.where(data.y >= 0, 1.0, -1.0)
    return LogisticRegression(data.X, labels, lam=1.0 / config.samples), None
