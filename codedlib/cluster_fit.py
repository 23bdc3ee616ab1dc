"""Fit a :class:`~codedlib.cluster.ClusterModel` to a recorded latency trace (DSAG Sec. VI-A).

In order: (1) bursts (DSAG Sec. III-B): only when the lag-1 autocorrelation of
``X = compute_time / worker mean`` exceeds :data:`BURST_Z` ``/ sqrt(pairs)``, a two-state
Gaussian HMM on ``log X`` (EM, shared variance) gives enter / exit probabilities and the burst
factor (ratio of posterior-weighted means of X); (2) heterogeneity (DSAG Sec. VII-B): sorted
per-worker means fitted by least squares to ``b (1 + h k / N)``; (3) the delay family: each
family's unit-mean ML shape on the pooled X, the largest likelihood wins (one parameter each,
so also the AIC choice); (4) network: the median ``comm_time`` (queue waits out) is one
message of ``workload.dim`` numbers, latency assumed, bandwidth follows. The workload only
turns the share time into ``worker_flop_time``.

>>> from codedlib.cluster import ClusterModel
>>> true = ClusterModel(n_workers=6, family="gamma", shape=0.5, heterogeneity=0.4)
>>> fit = fit_cluster(synthetic_trace(true, 1000, rng=0))
>>> fit.cluster.family, round(fit.cluster.shape, 2), bool(abs(fit.cluster.heterogeneity - 0.4) < 0.1)
('gamma', 0.5, True)
>>> bool(abs(fit.message_time - true.message_time) < 1e-12), fit.cluster.burst_factor
(True, 1.0)

Reference: severinson2023dsag, reisizadeh2022codedreduce (eq. 6), halbawi2018reedsolomon (eq. 16).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import InputTypeError, RngLike, check_real
from codedlib.cluster import FAMILIES, ClusterModel, Workload
from codedlib.latency.gamma_model import validate_trace, without_queueing
from codedlib.latency.traces import REQUIRED_COLUMNS, read_trace, synchronous_trace
from codedlib.network import Network

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike

#: Bursts are fitted only when the pooled lag-1 autocorrelation of X exceeds BURST_Z / sqrt(pairs).
BURST_Z = 3.0
#: Fewest rows per worker a fit accepts.
MIN_ROWS_PER_WORKER = 5


# ---------------------------------------------------------------------- the result
@dataclass(frozen=True)
class ClusterFit:
    """A :class:`~codedlib.cluster.ClusterModel` fitted to a trace, and how (``notes``).

    ``loglik``: family -> log-likelihood of the pooled X at its ML shape; ``worker_order[k-1]``:
    the trace's worker given slowdown index ``k``; ``message_time`` in seconds.
    """

    cluster: ClusterModel
    loglik: dict[str, float]
    worker_order: tuple[int, ...]
    burst_autocorrelation: float
    message_time: float
    notes: list[str] = field(default_factory=list)

    def summary(self) -> pd.DataFrame:
        """``parameter, value, how`` (``"fitted"`` / ``"assumed"``), one row each."""
        import pandas as pd

        c = self.cluster
        given = any(n.startswith("family given") for n in self.notes)
        bursty = c.bursty
        rows = [
            ("n_workers", c.n_workers, "fitted"),
            ("family", c.family, "assumed" if given else "fitted"),
            ("shape", c.shape, "fitted"),
            ("heterogeneity", c.heterogeneity, "fitted"),
            ("share_time", c.share_time, "fitted"),
            ("burst_autocorrelation", self.burst_autocorrelation, "fitted"),
            ("burst_factor", c.burst_factor, "fitted"),
            ("burst_enter", c.burst_enter, "fitted" if bursty else "assumed"),
            ("burst_exit", c.burst_exit, "fitted" if bursty else "assumed"),
            ("message_time", self.message_time, "fitted"),
            ("latency", c.network.latency, "assumed"),
            ("bandwidth", c.network.bandwidth, "fitted"),
            ("dim", c.workload.dim, "assumed"),
            ("rows", c.workload.rows, "assumed"),
            ("worker_flop_time", c.worker_flop_time, "fitted"),
            ("master_flop_time", c.master_flop_time, "assumed"),
        ]
        rows += [(f"loglik[{f}]", v, "fitted") for f, v in self.loglik.items()]
        return pd.DataFrame(rows, columns=["parameter", "value", "how"])


# ---------------------------------------------------------------------- families
def _fit_shifted_exponential(x: np.ndarray) -> tuple[float, float]:
    """ML straggling share ``v`` of ``(1 - v) + v Exp(1)``: ``1 - v`` is the sample minimum."""
    n = x.size
    v = float(np.clip(1.0 - x.min(), 1e-9, 1.0 - 1e-9))
    ll = -n * math.log(v) - float(np.sum(x - (1.0 - v))) / v
    return v, ll


def _pareto_loglik(xi: float, n: int, sum_log: float) -> float:
    xm = (xi - 1.0) / xi
    return n * math.log(xi) + n * xi * math.log(xm) - (xi + 1.0) * sum_log


def _fit_pareto(x: np.ndarray) -> tuple[float, float]:
    """ML tail index ``xi > 1`` of the unit-mean Pareto, every sample in the support."""
    from scipy.optimize import minimize_scalar

    n, sum_log, xmin = x.size, float(np.sum(np.log(x))), float(x.min())
    xi_max = min(1.0 / (1.0 - xmin) if xmin < 1.0 else math.inf, 1e6)
    lo, hi = math.log(1e-6), math.log(max(xi_max - 1.0, 2e-6))
    res = minimize_scalar(
        lambda u: -_pareto_loglik(1.0 + math.exp(u), n, sum_log),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-10},
    )
    candidates = [1.0 + math.exp(res.x), 1.0 + math.exp(hi)]
    lls = [_pareto_loglik(xi, n, sum_log) for xi in candidates]
    best = int(np.argmax(lls))
    return candidates[best], lls[best]


def _fit_gamma(x: np.ndarray) -> tuple[float, float]:
    """ML ``cv = k^(-1/2)`` of the unit-mean gamma (shape ``k``): the root of the score."""
    from scipy.optimize import brentq
    from scipy.special import digamma, gammaln

    n, sum_log, sum_x = x.size, float(np.sum(np.log(x))), float(np.sum(x))

    def loglik(k):
        return n * (k * math.log(k) - gammaln(k)) + (k - 1.0) * sum_log - k * sum_x

    def score(u):
        k = math.exp(u)
        return n * (math.log(k) + 1.0 - digamma(k)) + sum_log - sum_x

    lo, hi = -20.0, 30.0
    if score(lo) <= 0:
        k = math.exp(lo)
    elif score(hi) >= 0:
        k = math.exp(hi)
    else:
        k = math.exp(brentq(score, lo, hi, xtol=1e-12))
    return 1.0 / math.sqrt(k), float(loglik(k))


_FITTERS = {
    "shifted_exponential": _fit_shifted_exponential,
    "pareto": _fit_pareto,
    "gamma": _fit_gamma,
}


def family_logliks(x: ArrayLike) -> dict[str, tuple[float, float]]:
    """``family -> (ML shape, loglik)`` of positive unit-mean factors ``x``, every family.

    >>> from codedlib.cluster import unit_delays
    >>> fits = family_logliks(unit_delays("pareto", 3.0, 5000, rng=0))
    >>> max(fits, key=lambda f: fits[f][1]), round(fits["pareto"][0], 1)
    ('pareto', 3.0)
    """
    x = np.asarray(x, dtype=float).ravel()
    if x.size < 2 or not np.all(np.isfinite(x)) or np.any(x <= 0):
        raise ValueError(f"x must hold at least 2 finite values > 0, got {x.size} values")
    return {f: _FITTERS[f](x) for f in FAMILIES}


# ---------------------------------------------------------------------- bursts
def _hmm_bursts(seqs, max_iter=200, tol=1e-6):
    """Two-state Gaussian HMM (Baum-Welch) on ``log X``: (p_enter, p_exit, burst posteriors)."""
    lengths = np.array([s.size for s in seqs])
    N, T = len(seqs), int(lengths.max())
    y = np.zeros((N, T))
    mask = np.zeros((N, T), dtype=bool)
    for j, s in enumerate(seqs):
        y[j, : s.size] = np.log(s)
        mask[j, : s.size] = True
    pair_mask = mask[:, 1:] & mask[:, :-1]
    obs = y[mask]
    # start: the top fifth of log X in a burst
    thr = np.quantile(obs, 0.8)
    mu = np.array([obs[obs <= thr].mean(), obs[obs > thr].mean()])
    var = max(float(np.var(obs)) * 0.5, 1e-12)
    A = np.array([[0.9, 0.1], [0.3, 0.7]])
    prev = -np.inf
    for _ in range(max_iter):
        pe, px = A[0, 1], A[1, 0]
        init = np.array([px, pe]) / (pe + px)
        b = np.exp(-((y[:, :, None] - mu) ** 2) / (2 * var)) / math.sqrt(2 * math.pi * var)
        b = np.where(mask[:, :, None], np.maximum(b, 1e-300), 1.0)
        alpha = np.empty((N, T, 2))
        c = np.empty((N, T))
        a = init * b[:, 0]
        c[:, 0] = a.sum(1)
        alpha[:, 0] = a / c[:, :1]
        for t in range(1, T):
            a = (alpha[:, t - 1] @ A) * b[:, t]
            c[:, t] = a.sum(1)
            alpha[:, t] = a / c[:, t : t + 1]
        beta = np.ones((N, T, 2))
        for t in range(T - 2, -1, -1):
            beta[:, t] = ((b[:, t + 1] * beta[:, t + 1]) @ A.T) / c[:, t + 1 : t + 2]
        gamma = alpha * beta
        gamma /= gamma.sum(2, keepdims=True)
        xi = (
            alpha[:, :-1, :, None]
            * A[None, None]
            * (b[:, 1:] * beta[:, 1:])[:, :, None, :]
            / c[:, 1:, None, None]
        )
        counts = xi[pair_mask].sum(0)
        A = counts / counts.sum(1, keepdims=True)
        A = np.clip(A, 1e-6, 1.0 - 1e-6)
        A /= A.sum(1, keepdims=True)
        g = gamma[mask]
        mu = (g * obs[:, None]).sum(0) / np.maximum(g.sum(0), 1e-300)
        var = max(float((g * (obs[:, None] - mu) ** 2).sum() / obs.size), 1e-12)
        ll = float(np.log(c[mask]).sum())
        if ll - prev < tol * obs.size:
            break
        prev = ll
    if mu[1] < mu[0]:  # label the slower state the burst
        A = A[::-1, ::-1]
        gamma = gamma[:, :, ::-1]
    post = [gamma[j, : lengths[j], 1] for j in range(N)]
    return float(A[0, 1]), float(A[1, 0]), post


# ---------------------------------------------------------------------- the fit
def fit_cluster(
    trace: pd.DataFrame | str | os.PathLike,
    *,
    family: str | None = None,
    shares: float = 1.0,
    workload: Workload | None = None,
    name: str = "your cluster",
) -> ClusterFit:
    """Fit a :class:`~codedlib.cluster.ClusterModel` to a latency trace (DSAG Section VI-A).

    ``trace``: a ``data/traces`` frame or CSV (``wall_clock`` orders rows and removes
    queue waits); rows are taken as complete, so abandoned tasks make the tail underestimated
    (noted). ``family``: imposed, or None for ML. ``shares``: shares per traced task.

    >>> from codedlib.latency.traces import trace_path
    >>> fit = fit_cluster(trace_path("umw-N12-gamma-hetero"))
    >>> fit.cluster.n_workers, fit.cluster.family
    (12, 'gamma')
    >>> fit.summary().set_index("parameter").loc["latency", "how"]
    'assumed'
    """
    trace, shares, workload = _check_fit_args(trace, family, shares, workload, name)
    notes = []
    workers, seqs = _worker_sequences(trace, notes)
    N = len(workers)
    means = np.array([s.mean() for s in seqs])
    xs = [s / m for s, m in zip(seqs, means)]
    r, factor, p_enter, p_exit, in_burst = _fit_bursts(xs, notes)
    if factor > 1.0:
        seqs = [s / np.where(b, factor, 1.0) for s, b in zip(seqs, in_burst)]
        means = np.array([s.mean() for s in seqs])
        xs = [s / m for s, m in zip(seqs, means)]
    base, h, rank = _fit_heterogeneity(seqs, means, notes)
    worker_order = tuple(np.asarray(workers)[rank].tolist())
    x = np.concatenate(xs)  # ---- family and shape
    fits = family_logliks(x)
    loglik = {f: fits[f][1] for f in FAMILIES}
    if family is None:
        family = max(loglik, key=loglik.get)
        notes.append(
            f"family {family} chosen by maximum likelihood over {x.size} pooled factors "
            + ", ".join(f"{f} {v:.1f}" for f, v in loglik.items())
        )
    else:
        notes.append(f"family given ({family}); shape fitted by maximum likelihood")
    message_time, network = _fit_network(trace, workload, notes)
    share_time = base / shares
    worker_flop_time = share_time / workload.share_flops
    notes.append(
        f"share time {share_time:.4g} s fitted (base mean / shares={shares:g}); workload "
        f"{workload} assumed, so worker_flop_time {worker_flop_time:.4g} s; master_flop_time "
        "assumed (ClusterModel default)"
    )
    kw = dict(n_workers=N, family=family, shape=fits[family][0], heterogeneity=h, name=name)
    kw.update(burst_factor=factor, burst_enter=p_enter, burst_exit=p_exit, network=network)
    cluster = ClusterModel(**kw, workload=workload, worker_flop_time=worker_flop_time)
    return ClusterFit(cluster, loglik, worker_order, float(r), message_time, notes)


def _check_fit_args(trace, family, shares, workload, name):
    if isinstance(trace, (str, os.PathLike)):
        trace = read_trace(trace)
    validate_trace(trace, REQUIRED_COLUMNS[:4], positive=True)  # iteration .. comm_time
    sizes = trace.groupby("worker").size()
    if sizes.size < 2:
        raise ValueError(f"trace must hold at least 2 workers, got {sizes.size}")
    if sizes.min() < MIN_ROWS_PER_WORKER:
        raise ValueError(
            f"trace must hold at least {MIN_ROWS_PER_WORKER} rows per worker, got "
            f"{int(sizes.min())} for worker {sizes.idxmin()!r}"
        )
    if family is not None:
        if not isinstance(family, str):
            raise InputTypeError(
                f"family must be None or a str, got family={family!r} ({type(family).__name__})"
            )
        if family not in FAMILIES:
            raise ValueError(f"family must be None or one of {list(FAMILIES)}, got {family!r}")
    shares = check_real("shares", shares, 0.0, low_open=True)
    if workload is None:
        workload = Workload()
    elif not isinstance(workload, Workload):
        raise InputTypeError(f"workload must be a Workload or None, got {type(workload).__name__}")
    if not isinstance(name, str):
        raise InputTypeError(f"name must be a str, got name={name!r}")
    return trace, shares, workload


def _worker_sequences(trace, notes):
    """Each worker's compute times in the order computed."""
    order_cols = ["wall_clock"] if "wall_clock" in trace.columns else ["iteration"]
    df = trace.sort_values(["worker", *order_cols], kind="stable")
    workers, seqs = [], []
    for w, g in df.groupby("worker", sort=True):
        workers.append(w)
        seqs.append(g["compute_time"].to_numpy(dtype=float))
    counts = [s.size for s in seqs]
    if min(counts) < max(counts):
        notes.append(
            f"rows per worker range from {min(counts)} to {max(counts)}: if late tasks were "
            "abandoned, the slowest times are missing (right-censored) and the fit, which takes "
            "the rows as complete, underestimates the tail"
        )
    return workers, seqs


def _fit_bursts(xs, notes):
    """(autocorrelation, factor, p_enter, p_exit, in-burst masks) of the factors ``xs``."""
    ds = [s - s.mean() for s in xs]  # pooled lag-1 autocorrelation, each centred on its mean
    num = sum(float(np.dot(d[:-1], d[1:])) for d in ds)
    den = sum(float(np.dot(d, d)) for d in ds)
    r, pairs = (num / den if den > 0 else 0.0), sum(s.size - 1 for s in xs)
    bound = BURST_Z / math.sqrt(max(pairs, 1))
    factor, p_enter, p_exit = 1.0, ClusterModel.burst_enter, ClusterModel.burst_exit
    in_burst = [np.zeros(s.size, dtype=bool) for s in xs]
    if r > bound:
        pe, px, post = _hmm_bursts(xs)
        w_in = sum(float(p.sum()) for p in post)
        w_out = sum(float((1 - p).sum()) for p in post)
        if w_in >= 1.0 and w_out >= 1.0 and pe + px < 1.0:
            mean_in = sum(float((p * x).sum()) for p, x in zip(post, xs)) / w_in
            mean_out = sum(float(((1 - p) * x).sum()) for p, x in zip(post, xs)) / w_out
            factor = max(mean_in / mean_out, 1.0)
        if factor > 1.0:
            p_enter, p_exit = pe, px
            in_burst = [p > 0.5 for p in post]
            notes.append(
                f"bursts fitted: lag-1 autocorrelation {r:.3f} > {BURST_Z:g}/sqrt({pairs}) = "
                f"{bound:.3f}; two-state HMM on log X: factor {factor:.3g} (ratio of mean X in / "
                f"out), enter {pe:.3g}, exit {px:.3g}"
            )
        else:
            notes.append(
                f"lag-1 autocorrelation {r:.3f} > {bound:.3f} but the two-state fit shows no "
                "persistent slower state: burst_factor = 1"
            )
    else:
        notes.append(
            f"no bursts: lag-1 autocorrelation {r:.3f} <= {BURST_Z:g}/sqrt({pairs}) = "
            f"{bound:.3f}; burst_factor = 1 (burst_enter / burst_exit: unused defaults)"
        )
    return r, factor, p_enter, p_exit, in_burst


def _fit_heterogeneity(seqs, means, notes):
    """(base, h, rank): sorted means ~ b (1 + h k / N) by least squares."""
    N = len(seqs)
    rank = np.argsort(means, kind="stable")
    sorted_means = means[rank]
    u = np.arange(1, N + 1) / N
    slope, intercept = np.polyfit(u, sorted_means, 1)
    if intercept > 0:
        base, h = float(intercept), float(max(slope, 0.0) / intercept)
    else:  # the line crosses zero before the first worker: bounded least squares
        from scipy.optimize import least_squares

        sol = least_squares(
            lambda p: p[0] * (1 + p[1] * u) - sorted_means,
            x0=[sorted_means[0], 1.0],
            bounds=([1e-300, 0.0], [np.inf, np.inf]),
        )
        base, h = float(sol.x[0]), float(sol.x[1])
        notes.append("heterogeneity: least-squares intercept <= 0, fitted with b > 0 bound")
    rel_se = math.sqrt(
        np.mean([np.var(s, ddof=1) / (s.size * s.mean() ** 2) for s in seqs])
    )  # relative standard error of one worker's mean
    from scipy.stats import norm

    blom = norm.ppf((np.arange(1, N + 1) - 0.375) / (N + 0.25))  # Blom's normal order means
    noise_h = float(np.polyfit(u, 1.0 + rel_se * blom, 1)[0]) if N > 1 else 0.0
    notes.append(
        f"heterogeneity {h:.3g} fitted by least squares over workers sorted by mean; sampling "
        f"noise alone (homogeneous workers) would give about {noise_h:.2g}"
    )
    return base, h, rank


def _fit_network(trace, workload, notes):
    """(message time, network): the median comm_time without queue waits, latency assumed."""
    comm = trace
    if "wall_clock" in trace.columns:
        comm = without_queueing(trace)
        waited = int((comm["queue_wait"] > 0).sum())
        if waited:
            notes.append(f"queue waits taken out of comm_time for {waited} rows")
    message_time = float(np.median(comm["comm_time"].to_numpy(dtype=float)))
    latency = min(Network().latency, 0.5 * message_time)
    network = Network.from_message_time(message_time, workload.dim, latency)
    notes.append(
        f"message time {message_time:.4g} s fitted (median comm_time) for a {workload.dim}-number "
        f"message; latency {latency:.3g} s assumed (one message size cannot separate latency "
        f"from bandwidth); bandwidth {network.bandwidth:.4g} B/s follows"
    )
    return message_time, network


# ---------------------------------------------------------------------- synthetic traces
def synthetic_trace(
    cluster: ClusterModel, n_iterations: int, rng: RngLike = None, *, shares: float = 1.0
) -> pd.DataFrame:
    """A ``data/traces`` trace drawn from ``cluster``: synchronous iterations of ``shares``
    shares per task, no queueing, one row per (iteration, worker) in arrival order.

    >>> df = synthetic_trace(ClusterModel(n_workers=3), 4, rng=0)
    >>> df.shape, list(df.columns[:4])
    ((12, 11), ['iteration', 'worker', 'compute_time', 'comm_time'])
    """
    if not isinstance(cluster, ClusterModel):
        raise InputTypeError(f"cluster must be a ClusterModel, got {type(cluster).__name__}")
    shares = check_real("shares", shares, 0.0, low_open=True)
    compute = cluster.compute_times(shares, n_iterations, rng)  # checks n_iterations and rng
    return synchronous_trace(compute, cluster.message_time)
