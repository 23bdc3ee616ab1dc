"""Interactive explorer for DSAG: cluster and method settings in, latency predictions
(event-driven vs order statistics, participation u_i) and a fresh convergence run out.

References
----------
.. [DSAG] A. Severinson, E. Rosnes, S. El Rouayheb, A. Graell i Amat, "DSAG: A Mixed
   Synchronous-Asynchronous Iterative Method for Straggler-Resilient Learning", IEEE Trans.
   Communications, 2023, arXiv:2111.13877.
"""

from __future__ import annotations

import numpy as np

from codedlib.widgets._common import Explorer, Report, float_slider, log_slider

__all__ = [
    "SLOWDOWN_PATTERNS", "convergence_report", "explore_dsag", "latency_prediction",
    "latency_report", "quick_convergence",
]

SLOWDOWN_PATTERNS = ("none", "linear (Sec. VII-B)", "3 workers x2")


def _slowdown_factors(pattern, n_workers, rng):
    if pattern == "none":
        return np.ones(n_workers)
    if pattern == "linear (Sec. VII-B)":
        return 1.0 + 0.4 * np.arange(1, n_workers + 1) / n_workers
    if pattern == "3 workers x2":
        f = np.ones(n_workers)
        f[rng.permutation(n_workers)[: min(3, n_workers)]] = 2.0
        return f
    raise ValueError(f"pattern must be one of {SLOWDOWN_PATTERNS}, got pattern={pattern!r}")


def _cluster(n_workers, pattern, burst_rate, n_steps, rng):
    from codedlib.latency.gamma_model import GammaLatencyModel, burst_slowdown

    model = GammaLatencyModel.from_cv(
        rng.uniform(2e-5, 6e-5, n_workers), 2.2 * rng.uniform(0.98, 1.02, n_workers), 0.3, 0.05
    )
    static = _slowdown_factors(pattern, n_workers, rng)
    if burst_rate > 0:
        bursts = burst_slowdown(model, n_steps, burst_rate, 0.05, 1.5, rng=rng)
    else:
        bursts = np.ones((n_steps, n_workers))
    return model, static * bursts


def latency_prediction(
    n_workers=49,
    w=10,
    n_subpartitions=100,
    pattern="linear (Sec. VII-B)",
    burst_rate=0.0,
    n_iterations=100,
    replicas=50,
    rng=0,
) -> dict:
    """Mean iteration latency of the w-th fastest of N (Sections IV-A and IV-B).

    Returns the event-driven prediction (workers stay busy with stale tasks), the
    independent-iterations order-statistic prediction and each worker's participation u_i.

    Parameters
    ----------
    n_workers : int, default 49
        Number of workers.
    w : int, default 10
        Results waited for per iteration. Must satisfy ``1 <= w <= n_workers``.
    n_subpartitions : int, default 100
        Subpartitions per worker. Must satisfy ``1 <= n_subpartitions <= 10000``.
    pattern : str, default 'linear (Sec. VII-B)'
        Slowdown pattern name.
    burst_rate : float, default 0.0
        Rate of latency bursts. Must satisfy ``0.0 <= burst_rate <= 1.0``.
    n_iterations : int, default 100
        Number of iterations.
    replicas : int, default 50
        Number of Monte Carlo replicas.
    rng : numpy.random.Generator, int or None, default 0
        Random generator or seed (see :func:`codedlib._validation.as_generator`).

    Returns
    -------
    dict
        Mean iteration latency of the w-th fastest of N (Sections IV-A and IV-B).
    """
    from codedlib._validation import as_generator, check_int, check_real
    from codedlib.latency.event_driven import simulate_event_driven

    n_workers = check_int("N", n_workers, 1, 500)
    w = check_int("w", w, 1, n_workers)
    p = check_int("n_subpartitions", n_subpartitions, 1, 10_000)
    burst_rate = check_real("burst_rate", burst_rate, 0.0, 1.0)
    rng = as_generator(rng)
    model, factors = _cluster(n_workers, pattern, burst_rate, n_iterations, rng)
    comm, comp = model.sample((replicas, n_iterations), rng=rng, load=1.0 / p, slowdown=factors)
    lat = comm + comp
    res = simulate_event_driven(lat, w, margin=0.02)
    order = np.partition(lat, w - 1, axis=2)[..., w - 1].mean()
    return {
        "event_driven": res.mean_latency,
        "order_statistic": float(order),
        "participation": res.participation,
    }


def quick_convergence(
    n_workers=49,
    w=10,
    n_subpartitions=10,
    eta=0.9,
    pattern="linear (Sec. VII-B)",
    burst_rate=0.0,
    time_limit=30.0,
    rng=0,
):
    """A fresh, small PCA run (sparse binary stand-in, 2 samples per subpartition, d = 30)
    of DSAG w, SAG w and SAG w = N in the chosen scenario; returns gap vs time rows.

    Parameters
    ----------
    n_workers : int, default 49
        Number of workers.
    w : int, default 10
        Results waited for per iteration. Must satisfy ``1 <= w <= n_workers``.
    n_subpartitions : int, default 10
        Subpartitions per worker. Must satisfy ``1 <= n_subpartitions <= 50``.
    eta : float, default 0.9
        Step size eta. Must satisfy ``0.0 < eta <= 2.0``.
    pattern : str, default 'linear (Sec. VII-B)'
        Slowdown pattern name.
    burst_rate : float, default 0.0
        Rate of latency bursts.
    time_limit : float, default 30.0
        Simulated time of each run, seconds. Must satisfy ``0.0 < time_limit <= 600.0``.
    rng : numpy.random.Generator, int or None, default 0
        Random generator or seed (see :func:`codedlib._validation.as_generator`).

    Returns
    -------
    pandas.DataFrame
        A fresh, small PCA run (sparse binary stand-in, 2 samples per subpartition, d = 30) of DSAG
        w, SAG w and SAG w = N in the chosen scenario; returns gap vs time rows.
    """
    import pandas as pd

    from codedlib._validation import as_generator, check_int, check_real
    from codedlib.experiments.dsag import pca_problem, pca_projection
    from codedlib.schemes.dsag import simulate_dsag

    n_workers = check_int("N", n_workers, 1, 200)
    w = check_int("w", w, 1, n_workers)
    p = check_int("n_subpartitions", n_subpartitions, 1, 50)
    eta = check_real("eta", eta, 0.0, 2.0, low_open=True)
    time_limit = check_real("time_limit", time_limit, 0.0, 600.0, low_open=True)
    rng = as_generator(rng)
    problem = pca_problem(n_samples=n_workers * p * 2, dim=30, k=3, rng=rng)
    projection = pca_projection(problem)
    gram = problem.X.T @ problem.X
    vals = np.linalg.eigvalsh(gram)
    best = vals[-3:].sum() / vals.sum()
    n_steps = 4000
    model, factors = _cluster(n_workers, pattern, burst_rate, n_steps, rng)

    def slowdown(time, iteration):
        return factors[min(iteration, n_steps - 1)]

    theta0 = projection(problem.initial_point(rng))
    frames = []
    for label, method, mw in (
        (f"DSAG w={w}", "dsag", w),
        (f"SAG w={w}", "sag", w),
        (f"SAG w={n_workers}", "sag", n_workers),
    ):
        gaps = []

        def record(theta, gaps=gaps):
            V = theta.reshape(-1, 3)
            gaps.append(max(best - np.sum(V * (gram @ V)) / vals.sum(), 0.0))
            return gaps[-1] < 1e-12

        run = simulate_dsag(
            problem,
            model,
            mw,
            p,
            eta,
            method=method,
            n_iterations=n_steps,
            time_limit=time_limit,
            slowdown=slowdown,
            projection=projection,
            theta0=theta0,
            record_every=2,
            callback=record,
            rng=rng,
        )
        frames.append(pd.DataFrame({"method": label, "time": run.history.time, "gap": gaps}))
    return pd.concat(frames, ignore_index=True)


def latency_report(N, w, n_subpartitions, pattern, bursts, burst_rate, seed, **_) -> Report:
    """Latency prediction text and the participation chart (ValueError on invalid input).

    Parameters
    ----------
    N : int
        Number of workers. Must satisfy ``1 <= N <= 500``.
    w
        Results waited for per iteration. Must satisfy ``1 <= w <= n_workers``.
    n_subpartitions
        Subpartitions per worker. Must satisfy ``1 <= n_subpartitions <= 10000``.
    pattern
        Slowdown pattern name.
    bursts
        Add latency bursts.
    burst_rate
        Rate of latency bursts. Must satisfy ``0.0 <= burst_rate <= 1.0``.
    seed : int
        Seed of the random generator.
    **_
        Further control values, ignored.

    Returns
    -------
    Report
        Latency prediction text and the participation chart (ValueError on invalid input).
    """
    from codedlib.plots import subplots

    pred = latency_prediction(N, w, n_subpartitions, pattern, burst_rate if bursts else 0.0,
                              rng=seed)
    gap = pred["event_driven"] / pred["order_statistic"] - 1
    text = (f"mean iteration latency: event-driven {1e3 * pred['event_driven']:.2f} ms, "
            f"order statistic {1e3 * pred['order_statistic']:.2f} ms "
            f"(the latter underestimates by {100 * gap:.1f}%)")
    fig, ax = subplots(figsize=(7, 2.8), layout="constrained")
    ax.bar(np.arange(1, N + 1), pred["participation"])
    ax.set(xlabel="worker", ylabel="participation $u_i$",
           title=f"stand-in cluster: N={N}, w={w}, {pattern}")
    return Report(html=f"<p>{text}</p>", figures=[fig])


def convergence_report(N, w, n_subpartitions, eta, pattern, bursts, burst_rate, seed) -> Report:
    """A fresh small PCA run of DSAG vs SAG (ValueError on invalid input).

    Parameters
    ----------
    N : int
        Number of workers. Must satisfy ``1 <= N <= 200``.
    w
        Results waited for per iteration. Must satisfy ``1 <= w <= n_workers``.
    n_subpartitions
        Subpartitions per worker. Must satisfy ``1 <= n_subpartitions <= 50``.
    eta
        Step size eta. Must satisfy ``0.0 < eta <= 2.0``.
    pattern
        Slowdown pattern name.
    bursts
        Add latency bursts.
    burst_rate
        Rate of latency bursts.
    seed : int
        Seed of the random generator.

    Returns
    -------
    Report
        A fresh small PCA run of DSAG vs SAG (ValueError on invalid input).
    """
    from codedlib.plots.dsag import plot_convergence

    df = quick_convergence(N, w, n_subpartitions, eta, pattern, burst_rate if bursts else 0.0,
                           rng=seed)
    fig = plot_convergence(df, title=f"fresh run: small PCA on a sparse binary stand-in, N={N}, w={w}")
    return Report(html="", figures=[fig])


def explore_dsag(n_workers: int = 49, w: int = 10, n_subpartitions: int = 10, seed: int = 0):
    """ipywidgets UI: N, w, subpartitions, η, slowdown pattern, bursts -> latency prediction
    (event-driven vs order statistics, participation u_i), recomputed on every change, and on
    request ("run convergence", with a progress bar) a fresh convergence run of DSAG vs SAG.
    Invalid settings show the error message. Returns a VBox with ``.latency`` and
    ``.convergence`` explorers.

    Parameters
    ----------
    n_workers : int, default 49
        Number of workers.
    w : int, default 10
        Results waited for per iteration.
    n_subpartitions : int, default 10
        Subpartitions per worker.
    seed : int, default 0
        Seed of the random generator.

    Returns
    -------
    ipywidgets.VBox
        The UI.
    """
    import ipywidgets as widgets

    style = {"description_width": "initial"}
    controls = {
        "N": widgets.IntSlider(value=n_workers, min=2, max=100, description="N", style=style),
        "w": widgets.IntSlider(value=w, min=1, max=100, description="w", style=style),
        "n_subpartitions": widgets.IntSlider(value=n_subpartitions, min=1, max=50,
                                             description="subpartitions", style=style),
        "eta": float_slider("eta", 0.9, 0.05, 1.5, 0.05, description="step η"),
        "pattern": widgets.Dropdown(options=SLOWDOWN_PATTERNS, value=SLOWDOWN_PATTERNS[1],
                                    description="slowdown", style=style),
        "bursts": widgets.Checkbox(value=False, description="bursts", style=style),
        "burst_rate": log_slider("burst_rate", 1e-3, 1e-4, 1e-1, description="burst rate"),
        "seed": widgets.IntText(value=seed, description="seed", style=style),
    }
    latency = Explorer(latency_report, controls,
                       watch=["N", "w", "n_subpartitions", "pattern", "bursts", "burst_rate",
                              "seed"],
                       rows=[["N", "w", "n_subpartitions"], ["eta", "pattern"],
                             ["bursts", "burst_rate", "seed"]])
    convergence = Explorer(convergence_report, controls, auto=False, button="run convergence",
                           rows=[])
    latency.refresh()
    box = widgets.VBox([latency.box, convergence.box])
    box.latency, box.convergence = latency, convergence
    return box
