"""Straggler injection: per-(iteration, worker) delays drawn from the ``latency`` models.

A worker sleeps ``delays[t, i]`` s after really computing, before sending (drawn up front by
the root from the seed, so MPI and simulation share the draw); a receiving node spends ``t_c``
s per message (CR Sec. III-C, single port). Kinds: ``none``; ``shiftexp`` (``shift``, ``rate``,
CR eq. 6); ``cr6`` (shift ``a d_i``, rate ``mu / a`` or ``mu / d_i`` by ``convention``);
``pareto`` (``t0``, ``xi``, RS eq. 16); ``gamma`` (DSAG Sec. III-A, worker ``i`` mean
``mean (1 + spread i / N)``, Sec. VII-B); ``--bursts p_enter=,p_exit=,factor=`` (DSAG
Sec. III-B). CLI syntax ``kind:key=value,...``; a bare kind takes :data:`DEFAULT_PARAMS`;
``delays_file``: an explicit ``(iterations, N)`` ``.npy`` (:func:`load_delays`).

>>> d = DelayModel.parse("shiftexp:shift=0.01,rate=100").sample(n_iterations=3, n_workers=4, rng=0)
>>> d.shape, bool((d >= 0.01).all())
((3, 4), True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import RngLike, as_generator, check_int, check_real

if TYPE_CHECKING:
    import os
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

    from codedlib.latency.models import HeterogeneousCluster

DELAY_KINDS = {
    "none": (),
    "shiftexp": ("shift", "rate"),
    "cr6": ("a", "mu"),
    "pareto": ("t0", "xi"),
    "gamma": ("mean", "var"),
}
_OPTIONAL = {"gamma": {"spread": 0.0}, "cr6": {"convention": "eq6"}}
#: Parameters used when the command line names a kind alone (``--delay pareto``), in seconds.
DEFAULT_PARAMS = {
    "shiftexp": {"shift": 0.05, "rate": 20.0},
    "cr6": {"a": 1e-3, "mu": 1.0},
    "pareto": {"t0": 0.05, "xi": 2.5},
    "gamma": {"mean": 0.1, "var": 1e-3, "spread": 0.4},
}
_ALIASES = dict.fromkeys(
    ("shifted-exp", "shifted_exponential", "shifted-exponential", "exp"), "shiftexp"
)
_BURST_KEYS = ("p_enter", "p_exit", "factor")


def _parse_params(text: str, what: str) -> dict:
    params = {}
    if not text:
        return params
    for item in text.split(","):
        if "=" not in item:
            raise ValueError(
                f"{what} parameters must look like key=value, got {item!r} in {text!r}"
            )
        key, value = (part.strip() for part in item.split("=", 1))
        try:
            params[key] = float(value)
        except ValueError:
            params[key] = value
    return params


@dataclass(frozen=True)
class DelayModel:
    """An injected computation-delay model (module docstring), seconds and rates in 1/s."""

    kind: str = "none"
    params: dict = field(default_factory=dict)
    bursts: dict | None = None

    def __post_init__(self):
        if self.kind not in DELAY_KINDS:
            raise ValueError(
                f"delay kind must be one of {sorted(DELAY_KINDS)}, got kind={self.kind!r}"
            )
        allowed = set(DELAY_KINDS[self.kind]) | set(_OPTIONAL.get(self.kind, {}))
        missing = [k for k in DELAY_KINDS[self.kind] if k not in self.params]
        unknown = [k for k in self.params if k not in allowed]
        if missing or unknown:
            raise ValueError(
                f"delay model {self.kind!r} takes parameters {sorted(allowed)}, "
                f"got params={self.params!r} (missing {missing}, unknown {unknown})"
            )
        if self.bursts is not None and set(self.bursts) != set(_BURST_KEYS):
            raise ValueError(
                f"bursts must give exactly {list(_BURST_KEYS)}, got bursts={self.bursts!r}"
            )
        if self.kind != "none":
            self._base_dist(1)  # checks the numbers

    @classmethod
    def parse(cls, text: str | None, bursts: str | None = None) -> DelayModel:
        """Build from the command-line form ``kind:key=value,...`` (``None`` or ``"none"``: no delay)."""
        if text is None or text.strip() in ("", "none"):
            kind, params = "none", {}
        else:
            kind, _, rest = text.partition(":")
            kind = _ALIASES.get(kind.strip(), kind.strip())
            if kind not in DELAY_KINDS:
                raise ValueError(
                    f"delay kind must be one of {sorted(DELAY_KINDS)}, got delay={text!r}"
                )
            params = _parse_params(rest, f"delay {kind!r}") or dict(DEFAULT_PARAMS.get(kind, {}))
        burst_params = _parse_params(bursts.replace("bursts:", ""), "bursts") if bursts else None
        return cls(kind, params, burst_params)

    def to_text(self) -> str:
        if self.kind == "none":
            return "none"
        return self.kind + ":" + ",".join(f"{k}={v}" for k, v in self.params.items())

    def bursts_text(self) -> str | None:
        if self.bursts is None:
            return None
        return ",".join(f"{k}={self.bursts[k]}" for k in _BURST_KEYS)

    def describe(self) -> str:
        bursts = f" with Markov bursts ({self.bursts_text()})" if self.bursts else ""
        return self.to_text() + bursts

    def _base_dist(self, n_points: int):
        from codedlib.latency import models

        p = self.params
        if self.kind == "shiftexp":
            return models.shifted_exponential(p["shift"], p["rate"])
        if self.kind == "pareto":
            from codedlib.cluster import _check_shape

            try:  # the rule ClusterModel applies to its Pareto shape: a finite mean
                _check_shape("pareto", p["xi"])
            except (ValueError, TypeError):
                raise ValueError(
                    f"delay 'pareto': xi must satisfy xi > 1 (a finite mean, the rule "
                    f"ClusterModel applies to its Pareto shape), got xi={p['xi']!r}"
                ) from None
            return models.pareto(p["t0"], p["xi"])
        if self.kind == "gamma":
            check_real("spread", p.get("spread", 0.0), low=0.0)
            return models.gamma_from_moments(p["mean"], p["var"])
        if self.kind == "cr6":
            return models.codedreduce_compute_time(
                max(int(n_points), 1), p["a"], p["mu"], rate_convention=p.get("convention", "eq6")
            )
        raise ValueError(f"delay kind {self.kind!r} has no distribution")

    def cluster(
        self, n_workers: int, loads: ArrayLike | None = None
    ) -> HeterogeneousCluster | None:
        """The per-worker model (None for ``none``; ``cr6`` needs the ``loads``)."""
        from codedlib.latency.models import (
            HeterogeneousCluster,
            gamma_from_moments,
            linear_slowdown,
        )

        n_workers = check_int("n_workers", n_workers, low=1)
        if self.kind == "none":
            return None
        if self.kind == "cr6":
            if loads is None or len(loads) != n_workers:
                raise ValueError(
                    f"loads must give the samples of each of the n_workers={n_workers} "
                    f"workers for the cr6 delay model, got loads={loads!r}"
                )
            return HeterogeneousCluster([self._base_dist(d) for d in loads])
        if self.kind == "gamma":
            mean, var = self.params["mean"], self.params["var"]
            factors = linear_slowdown(n_workers, float(self.params.get("spread", 0.0)))
            return HeterogeneousCluster(
                [gamma_from_moments(mean * f, var * f * f) for f in factors]
            )
        return HeterogeneousCluster.identical(self._base_dist(1), n_workers)

    def sample(
        self, n_iterations: int, n_workers: int, rng: RngLike = None, loads: ArrayLike | None = None
    ) -> np.ndarray:
        """Injected delays ``(n_iterations, n_workers)`` in seconds (zeros for ``none``)."""
        n_iterations = check_int("n_iterations", n_iterations, low=1)
        rng = as_generator(rng)
        cluster = self.cluster(n_workers, loads)  # checks n_workers
        if cluster is None:
            if self.bursts:
                raise ValueError("bursts need a base delay model (--delay), got delay='none'")
            return np.zeros((n_iterations, n_workers))
        if self.bursts:
            from codedlib.latency.models import MarkovBursts

            b = self.bursts
            model = MarkovBursts(cluster, b["p_enter"], b["p_exit"], b["factor"])
            return model.sample_path(n_iterations, rng).latency
        return cluster.sample(n_iterations, rng)


def load_delays(path: str | os.PathLike, n_iterations: int, n_workers: int) -> np.ndarray:
    """The ``(n_iterations, n_workers)`` array of seconds in the ``.npy`` file ``path`` (row
    ``t``, column ``i``: worker ``i`` in iteration ``t``; ``inf``: never answers)."""
    try:
        delays = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"delays_file must be a readable .npy file, got delays_file={str(path)!r} ({exc})"
        ) from None
    if delays.shape != (n_iterations, n_workers) or not np.issubdtype(delays.dtype, np.number):
        raise ValueError(
            f"delays_file must hold a numeric array of shape (iterations, N) = "
            f"({n_iterations}, {n_workers}), got dtype {delays.dtype} and shape {delays.shape} "
            f"in delays_file={str(path)!r}"
        )
    delays = np.asarray(delays, dtype=float)
    if np.isnan(delays).any() or (delays < 0).any():
        raise ValueError(
            f"delays_file must hold delays >= 0 (seconds; inf: never answers), got minimum "
            f"{np.nanmin(delays) if not np.isnan(delays).all() else np.nan!r} and "
            f"{int(np.isnan(delays).sum())} NaN in delays_file={str(path)!r}"
        )
    return delays


def parse_freeze(text: str | None) -> tuple[tuple[int, int], ...]:
    """``"2@0,5@3"`` -> ((2, 0), (5, 3)): worker (rank - 1) 2 freezes from iteration 0, ..."""
    if not text:
        return ()
    out = []
    for item in text.split(","):
        worker, _, it = item.strip().partition("@")
        try:
            out.append((int(worker), int(it) if it else 0))
        except ValueError:
            raise ValueError(
                f"freeze must look like WORKER[@ITERATION],..., got freeze={text!r}"
            ) from None
    return tuple(out)


def apply_freeze(delays: np.ndarray, freeze: Iterable[tuple[int, int]]) -> np.ndarray:
    """``delays`` with ``inf`` for every frozen ``(w, t0)`` from ``t0`` on."""
    delays = np.array(delays, dtype=float, copy=True)
    for worker, start in freeze:
        delays[start:, worker] = np.inf
    return delays
