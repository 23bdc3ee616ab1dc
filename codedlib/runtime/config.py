"""A run's configuration (each field declared once with its command-line form, :func:`option`),
its world size and its problem. Every rank builds the same :class:`RunConfig` from the same
command line and checks it on its own, without communicating.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from codedlib._validation import InputTypeError, check_int, check_real
from codedlib.problems import LeastSquares, LogisticRegression, synthetic_linear_regression
from codedlib.runtime.injection import DelayModel, load_delays, parse_freeze
from codedlib.runtime.registry import SCHEMES, get_scheme

if TYPE_CHECKING:
    from codedlib.problems import Problem
    from codedlib.runtime.registry import Scheme

PROBLEMS = ("linreg", "logreg")

#: The fields some schemes use (those their records list in ``params``); the others use all.
SCHEME_FIELDS = frozenset(p for s in SCHEMES.values() for p in s.params)
#: Most injected delays (iterations x workers) a run draws: 2**27 float64 values, 1 GiB.
MAX_DELAY_CELLS = 2**27


class WorldSizeError(ValueError):
    """The MPI world does not have the number of processes the scheme needs."""


def option(
    default: object,
    *flags: str,
    help: str,
    kind: type | None = None,
    choices: tuple | None = None,
    alias_of: str | None = None,
    metavar: str | None = None,
) -> Any:
    """A :class:`RunConfig` field with its options (the first is written by ``cli_args``);
    ``alias_of``: where its value goes for a scheme that does not use it (``--s`` = ``--S``)."""
    kind = kind or type(default)
    md = dict(flags=flags, help=help, kind=kind, choices=choices, alias_of=alias_of)
    return dataclasses.field(default=default, metadata=md | {"metavar": metavar})


@dataclass(frozen=True)
class RunConfig:
    """Everything one distributed run needs; a field in :data:`SCHEME_FIELDS` applies to the
    schemes whose record lists it (the others keep its default)."""

    scheme: str = option(None, "--scheme", kind=str, help="the scheme (see the registry)")
    n_workers: int | None = option(
        None, "--N", "--workers", kind=int, help="workers N (cr: n + ... + n^L)"
    )
    stragglers: int = option(0, "--S", help="stragglers tolerated (gc, sgd, rs)")
    n: int | None = option(None, "--n", kind=int, help="children per parent (cr)")
    L: int | None = option(None, "--L", kind=int, help="tree layers (cr)")
    s: int = option(0, "--s", alias_of="stragglers", help="stragglers per parent (cr); else --S")
    w: int | None = option(None, "--w", kind=int, help="fresh results DSAG waits for (default N)")
    subpartitions: int = option(1, "--subpartitions", help="DSAG sub-partitions per worker")
    redundancy: int = option(
        1, "--r", "--redundancy", help="LAGC/G-LAG: partitions stored per worker (r)"
    )
    groups: int | None = option(
        None, "--G", "--groups", kind=int, help="LAGC: groups G | N (G-LAG: N/r)"
    )
    xi: float = option(0.0, "--xi", help="LAGC: laziness xi of rule (17); 0: all groups every time")
    history: int = option(10, "--history", help="LAGC: past steps D of rule (17) (D xi < 1)")
    iterations: int = option(10, "--iterations", help="gradient steps")
    problem: str = option("linreg", "--problem", choices=PROBLEMS, help="learning problem")
    samples: int = option(240, "--samples", help="data points")
    dim: int = option(20, "--dim", help="features")
    noise: float = option(1.0, "--noise", help="label noise of the synthetic data")
    step_scale: float = option(1.0, "--step-scale", help="step = step_scale / smoothness")
    delay: DelayModel | str | None = option(
        None,
        "--delay",
        kind=str,
        help="injected computation delay (seconds), e.g. shiftexp:shift=0.01,rate=100, "
        "pareto:t0=0.01,xi=2, gamma:mean=0.02,var=4e-5,spread=0.4, cr6:a=1e-4,mu=1; "
        "a kind alone uses defaults (shiftexp = shifted-exp: 50 ms + Exp(mean 50 ms)); "
        "default none",
    )
    bursts: str | None = option(
        None, "--bursts", kind=str, help="Markov bursts on top: p_enter=0.05,p_exit=0.2,factor=3"
    )
    delays_file: str | None = option(
        None,
        "--delays-file",
        kind=str,
        metavar="PATH",
        help="injected computation delays as an explicit (iterations, N) array of seconds in a "
        ".npy file (row t, column i: worker i in iteration t) instead of a --delay model",
    )
    t_c: float = option(0.0, "--t-c", help="injected seconds per received message")
    timeout: float = option(
        30.0, "--timeout", help="seconds the root waits within one iteration before failing"
    )
    seed: int = option(0, "--seed", help="seed of the data and of the injected delays")
    freeze: tuple | str | None = option(
        (), "--freeze", kind=str, help="freeze workers: WORKER[@ITERATION],... (workers 0..N-1)"
    )
    freeze_mode: str = option(
        "sleep",
        "--freeze-mode",
        choices=("sleep", "stop"),
        help="sleep: infinite delay; stop: SIGSTOP",
    )
    on_new_iterate: str | None = option(
        None,
        "--on-new-iterate",
        kind=str,
        choices=("abandon", "finish"),
        help="a busy worker given a newer iterate abandons or finishes its task",
    )
    allreduce: str = option("mpi", "--allreduce", choices=("mpi", "ring"), help="RAR's all-reduce")
    margin: float = option(0.02, "--margin", help="DSAG extra wait fraction (2 %%)")
    lb_interval: float = option(
        0.5, "--lb-interval", help="DSAG-LB: seconds between runs of the load balancer"
    )
    lb_window: float = option(2.0, "--lb-window", help="DSAG-LB: seconds of latency profiled")
    lb_threshold: float = option(
        0.1, "--lb-threshold", help="DSAG-LB: least relative improvement before p changes"
    )
    check: bool = option(
        False, "--check", help="also compute the serial gradient and record the relative error"
    )
    poll: float = option(1e-3, "--poll", help="longest nap between probes (s)")
    fail_root_at: int | None = option(
        None,
        "--fail-root-at",
        kind=int,
        metavar="T",
        help="fault injection: the root raises an error at iteration T (-1: before the run)",
    )

    def __post_init__(self):  # noqa: C901 (one check per field, each naming it)
        set_ = lambda k, v: object.__setattr__(self, k, v)
        check = lambda kind, k, **bounds: set_(k, kind(k, getattr(self, k), **bounds))
        spec = get_scheme(self.scheme)
        for f in cli_fields():  # a field the scheme does not use keeps its default
            if f.name in SCHEME_FIELDS and f.name not in spec.params:
                set_(f.name, f.default)
        for name, value in spec.sizes(self).items():
            set_(name, value)
        N = self.n_workers
        check(check_int, "subpartitions", low=1)
        check(check_int, "iterations", low=1)
        if self.iterations * N > MAX_DELAY_CELLS:  # the root draws every injected delay up front
            gib = lambda cells: f"{cells * 8 / 2**30:.3g} GiB"
            raise ValueError(
                f"iterations must satisfy iterations * N <= {MAX_DELAY_CELLS:,} (the injected delays "
                f"are drawn up front: {gib(MAX_DELAY_CELLS)}), got iterations={self.iterations:,} with "
                f"N={N} ({gib(self.iterations * N)}): at most {MAX_DELAY_CELLS // N:,} iterations"
            )
        if self.on_new_iterate is None:
            set_("on_new_iterate", spec.on_new_iterate)
        for f in cli_fields():
            value, choices = getattr(self, f.name), f.metadata["choices"]
            if choices and value not in choices:
                raise ValueError(f"{f.name} must be one of {list(choices)}, got {f.name}={value!r}")
        check(check_int, "dim", low=1)
        check(check_int, "samples", low=spec.min_samples(self))
        check(check_real, "noise", low=0.0)
        check(check_real, "step_scale", low=0.0, low_open=True)
        delay = self.delay
        delay = delay if isinstance(delay, DelayModel) else DelayModel.parse(delay, self.bursts)
        if delay.bursts:  # the burst parameters (and a base model) are checked when it is built
            delay.sample(1, N, rng=0, loads=np.ones(N))
        set_("delay", delay)
        if self.delays_file is not None:
            if not isinstance(self.delays_file, str | os.PathLike):
                raise InputTypeError(
                    f"delays_file must be a path (str or os.PathLike), got "
                    f"{type(self.delays_file).__name__}"
                )
            path = os.fspath(self.delays_file)
            if not path.endswith(".npy"):
                raise ValueError(f"delays_file must be a .npy file, got delays_file={path!r}")
            if delay.kind != "none":
                raise ValueError(
                    "delays_file replaces the delay model: give one of delay and delays_file, "
                    f"got delay={delay.to_text()!r} and delays_file={path!r}"
                )
            set_("delays_file", path)
        check(check_real, "t_c", low=0.0)
        check(check_real, "timeout", low=0.0, low_open=True)
        check(check_int, "seed", low=0)
        freeze = (
            parse_freeze(self.freeze)
            if isinstance(self.freeze, str) or self.freeze is None
            else tuple((int(a), int(b)) for a, b in self.freeze)
        )
        for worker, it in freeze:
            check_int("freeze worker", worker, low=0, high=N - 1)
            check_int("freeze iteration", it, low=0, high=self.iterations - 1)
        set_("freeze", freeze)
        if self.fail_root_at is not None:
            check(check_int, "fail_root_at", low=-1, high=self.iterations - 1)
        check(check_real, "margin", low=0.0)
        check(check_real, "lb_interval", low=0.0, low_open=True)
        check(check_real, "lb_window", low=0.0, low_open=True)
        check(check_real, "lb_threshold", low=0.0, high=1.0, high_open=True)
        check(check_real, "poll", low=0.0, low_open=True, high=0.1)

    def injected_delays(self, loads: np.ndarray | None = None) -> np.ndarray:
        """The delays ``(iterations, N)`` the root hands out (before freezes): ``delays_file``,
        else a draw with the run's seed (``loads``: samples per worker, for ``cr6``)."""
        if self.delays_file is not None:
            return load_delays(self.delays_file, self.iterations, self.n_workers)
        return self.delay.sample(self.iterations, self.n_workers, rng=self.seed, loads=loads)

    @property
    def spec(self) -> Scheme:
        return SCHEMES[self.scheme]

    @property
    def world_size(self) -> int:
        return self.n_workers + 1

    @property
    def tolerated(self) -> int:
        return self.spec.tolerated(self)

    def check_world(self, size: int) -> None:
        """Raise :class:`WorldSizeError` with the exact ``mpiexec -n`` to use."""
        if size != self.world_size:
            raise WorldSizeError(
                f"scheme {self.scheme!r} with {self.spec.sizes_text(self)} needs 1 root + "
                f"{self.n_workers} workers = {self.world_size} MPI processes, but this run has {size}; "
                f"launch it with: mpiexec -n {self.world_size} python -m codedlib.runtime ..."
            )

    def replace(self, **changes: Any) -> RunConfig:
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)} | changes
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
        d, spec, args = self.to_dict(), self.spec, []
        for f in cli_fields():
            value, md = d[f.name], f.metadata
            if f.name in SCHEME_FIELDS and (f.name in spec.derived or f.name not in spec.params):
                continue
            if value is None or value == "" or (md["kind"] is bool and not value):
                continue
            args += [md["flags"][0]] if md["kind"] is bool else [md["flags"][0], str(value)]
        return args


def cli_fields() -> list[dataclasses.Field]:
    """The :class:`RunConfig` fields that have a command-line form, in declaration order."""
    return [f for f in dataclasses.fields(RunConfig) if f.metadata.get("flags")]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One option per :class:`RunConfig` field; options not given stay out of the namespace."""
    for f in cli_fields():
        md = f.metadata
        kw = {"dest": f.name, "default": argparse.SUPPRESS, "help": md["help"]}
        if md["kind"] is bool:
            parser.add_argument(*md["flags"], action="store_true", **kw)
            continue
        if f.name == "scheme":
            kw.update(
                required=True, choices=list(SCHEMES), help=md["help"] + ": " + ", ".join(SCHEMES)
            )
        elif f.default not in (None, (), "") and "default" not in md["help"]:
            kw["help"] += f" (default {f.default})"
        kw.update({k: md[k] for k in ("choices", "metavar") if md[k]})
        parser.add_argument(*md["flags"], type=md["kind"], **kw)


def config_from_namespace(values: dict) -> RunConfig:
    """The :class:`RunConfig` of the given options (an alias goes to its field)."""
    fields = {f.name: f for f in cli_fields()}
    given = {k: v for k, v in values.items() if k in fields}
    spec = get_scheme(given.get("scheme"))
    for name in list(given):
        md = fields[name].metadata
        if name in SCHEME_FIELDS and name not in spec.params:
            value, target, flag = given.pop(name), md["alias_of"], md["flags"][0]
            if target not in spec.params:
                usable = [fields[k].metadata["flags"][0] for k in spec.params if k in fields]
                raise ValueError(
                    f"{flag} does not apply to scheme {spec.name!r} (its own options: "
                    f"{', '.join(usable) or 'none'})"
                )
            if target in given:
                raise ValueError(
                    f"{flag} is {fields[target].metadata['flags'][0]} for scheme "
                    f"{spec.name!r}: give one of them"
                )
            given[target] = value
    return RunConfig(**given)


def build_problem(config: RunConfig) -> tuple[Problem, np.ndarray | None]:
    """``(problem, theta_star)`` every rank rebuilds from the seed: ``linreg`` CR eq. (10),
    ``logreg`` its labels ``sign(y)`` with lam = 1/samples (DSAG Section VII)."""
    data = synthetic_linear_regression(config.samples, config.dim, config.noise, rng=config.seed)
    if config.problem == "linreg":
        return LeastSquares(data.X, data.y), data.theta_star
    labels = np.where(data.y >= 0, 1.0, -1.0)
    return LogisticRegression(data.X, labels, lam=1.0 / config.samples), None
