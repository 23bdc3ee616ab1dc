"""Stream coded computing (paper 5): Section VI-A's setting, and the uniform split's rate
stability (Section IV-A) in closed form against long simulated streams."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from codedlib.experiments import stream as ex
from codedlib.plots import stream as sp
from codedlib.schemes import stream as sim
from codedlib.theory import stream as th


def test_section6a_setting_is_the_papers():
    s = ex.SECTION6A
    # Section VI / VI-A as printed
    assert (s["n_workers"], s["complexity"], s["K"], s["omega"]) == (5, 500.0, 1000, 1.0)
    assert (s["iterations"], s["arrival_rate"], s["gamma"], s["n_jobs"]) == (10, 0.01, 1.0, 3)
    # Poisson arrivals: E[T_a] = 100, E[T_a^2] = 20,000 (Section VI)
    assert 1 / s["arrival_rate"] == pytest.approx(100.0)
    assert 2 / s["arrival_rate"] ** 2 == pytest.approx(20_000.0)
    # the stand-in: Example 2's workers, same work per job (I K C) as an Example 2 job
    assert s["speed_scale"] == pytest.approx(10 * 1000 * 500 / (50 * 50 * 2_827_440))
    w = ex.section6a_workers()
    rates = np.asarray(th.EXAMPLE2["rates"]) * s["speed_scale"]
    np.testing.assert_allclose(w.task_mean, 500.0 / rates)  # m_p = C / mu_p (Section VI-A)
    np.testing.assert_allclose(np.sqrt(w.task_var), w.task_mean)  # exponential: sigma_p = m_p
    np.testing.assert_allclose(w.comm_time, th.EXAMPLE2["comm_time"])
    per_job_ex2 = 50 * 50 / np.asarray(th.EXAMPLE2["rates"]) * th.EXAMPLE2["complexity"]
    np.testing.assert_allclose(10 * 1000 * w.task_mean, per_job_ex2)
    # Fig. 2 and Fig. 3 run on this setting: 1000 tasks, uniform 200 each
    df = ex.fig2_split_metrics()
    assert df["kappa_uniform"].tolist() == [200] * 5 and df["kappa_optimal"].sum() == 1000
    act = ex.fig3_activity()
    assert len(act.uniform.jobs["arrival"]) == 3
    assert act.optimal.kappa.sum() == 1000
    assert act.uniform.intervals["iteration"].max() == 9


def test_stability_threshold_closed_form():
    w = ex.section6a_workers()
    uni = th.uniform_split(w, 1000, 1.0)
    t = th.stability_threshold(w, uni.kappa, 10, 0.01)
    by_hand = 0.01 * 10 * np.max(w.comm_time + 200 * w.task_mean)
    assert t.rho_slowest == pytest.approx(by_hand, rel=1e-12)
    assert t.slowest == int(np.argmax(w.task_mean))  # worker 4, the slowest, overloaded
    assert t.rho >= t.rho_slowest and t.critical_rate <= t.critical_rate_slowest
    e1, _ = th.iteration_time_moments(w, uni.kappa)
    assert t.critical_rate * 10 * e1 == pytest.approx(1.0)
    assert t.rho == pytest.approx(0.01 / t.critical_rate)
    assert not t.stable and t.drift == pytest.approx(10 * e1 - 100)
    # the paper's lambda sits just above the uniform threshold, far below the optimal one
    opt = th.stability_threshold(w, th.optimal_split(w, 1000, 1.0, 1.0).kappa, 10, 0.01)
    assert t.critical_rate < 0.01 < opt.critical_rate and opt.stable and opt.drift == 0.0
    # one worker: the slowest-worker closed form is exact
    one = th.StreamWorkers.exponential([2.0], [0.3])
    t1 = th.stability_threshold(one, [4], 3, 0.1)
    assert t1.rho == pytest.approx(t1.rho_slowest, rel=1e-8)
    assert t1.rho == pytest.approx(0.1 * 3 * (0.3 + 4 / 2.0), rel=1e-8)


def test_threshold_against_long_simulation():
    """Below the closed-form critical rate the delays stay bounded, above it they grow by
    E[T_s] - E[T_a] per job."""
    seeds = tuple(range(6))
    scan = ex.stability_scan(
        rate_factors=(0.85, 1.15, 1.3), n_jobs=6000, seeds=seeds, include_paper_rate=False
    )
    st, thr = scan.streams, scan.thresholds
    uni = st[st["split"] == "uniform"]
    thr_u = thr[thr["split"] == "uniform"].set_index("rate_factor")
    # the simulated service time is eq. (8)'s
    assert uni["service_mean"].mean() == pytest.approx(thr_u["service_mean"].iloc[0], rel=0.01)
    below = uni[np.isclose(uni["rate_factor"], 0.85)]
    assert (thr_u.loc[below["rate_factor"].iloc[0], "drift"]) == 0.0
    # stable: no growth over the stream (last quarter about the first), slope ~ 0
    assert (below["last_quarter"] / below["first_quarter"]).mean() < 1.3
    assert abs(below["slope"].mean()) < 0.05
    for f in (1.15, 1.3):
        g = uni[np.isclose(uni["rate_factor"], f)]
        drift = thr_u.loc[g["rate_factor"].iloc[0], "drift"]
        assert drift > 5
        half = 2.571 * g["slope"].std(ddof=1) / np.sqrt(len(g))  # t_{0.975, 5}
        assert abs(g["slope"].mean() - drift) <= max(half, 0.1 * drift)
        assert (g["last_quarter"] > 3 * g["first_quarter"]).all()
    # the optimal split is stable at every rate of the scan
    opt = st[st["split"] == "optimal"]
    assert (opt["last_quarter"] / opt["first_quarter"]).max() < 1.1
    plt.close(
        sp.plot_stability(
            ex.stability_scan(rate_factors=(0.9, 1.1), n_jobs=400, seeds=(0, 1)),
            ex.section6a_speed_window(scales=[0.5, 1, 2]),
            title="stability",
        )
    )


def test_speed_window_brackets_the_stand_in():
    win = ex.section6a_speed_window(scales=np.geomspace(0.3, 5, 9))
    t = win.table
    assert np.all(np.diff(t["rho_uniform"]) > 0) and np.all(np.diff(t["rho_optimal"]) > 0)
    assert np.all(t["rho_uniform"] > t["rho_optimal"])
    assert win.s_uniform < 1.0 < win.s_optimal
    w = ex.section6a_workers()
    for kind, s in (("uniform", win.s_uniform), ("optimal", win.s_optimal)):
        ws = w.with_complexity(s)
        split = (
            th.uniform_split(ws, 1000, 1.0)
            if kind == "uniform"
            else th.optimal_split(ws, 1000, 1.0, 1.0)
        )
        assert th.stability_threshold(ws, split.kappa, 10, 0.01).rho == pytest.approx(1.0, abs=2e-3)


def test_earlier_fig3_setting_was_stable():
    """Example 2's Omega = 1.1 (the earlier Fig. 3): purging keeps the uniform split stable;
    at Omega = 1 it is not."""
    w = th.example2_workers()
    uni = th.uniform_split(w, 50, 1.1)
    itr = sim.sample_iteration_times(w, uni.kappa, 50, 5000, True, np.random.default_rng(1))
    assert 0.01 * 50 * itr.mean() < 0.8
    assert not th.stability_threshold(w, th.uniform_split(w, 50, 1.0).kappa, 50, 0.01).stable


def test_fig3_wait_check_paired_and_ordered():
    df = ex.fig3_wait_check(n_streams=300, seed=3)
    assert len(df) == 600 and set(df["split"]) == {"uniform", "optimal"}
    share = df.groupby("split")["waited"].mean()
    assert share["uniform"] > share["optimal"] + 0.15
    one = ex.fig3_wait_check(n_streams=5, n_jobs=1)
    assert not one["waited"].any() and (one["mean_wait"].abs() < 1e-9).all()


def test_stability_inputs_validated():
    w = ex.section6a_workers()
    kappa = th.uniform_split(w, 1000, 1.0).kappa
    with pytest.raises(ValueError, match="arrival_rate"):
        th.stability_threshold(w, kappa, 10, 0.0)
    with pytest.raises(ValueError, match="iterations"):
        th.stability_threshold(w, kappa, 0, 0.01)
    with pytest.raises(ValueError, match="kappa"):
        th.stability_threshold(w, [1, 2], 10, 0.01)
    with pytest.raises(ValueError, match="seeds"):
        ex.stability_scan(seeds=(0,), n_jobs=100)
    with pytest.raises(ValueError, match="rate_factor"):
        ex.stability_scan(rate_factors=(0.0,), n_jobs=100, seeds=(0, 1))
    with pytest.raises(ValueError, match="n_streams"):
        ex.fig3_wait_check(n_streams=1)
    with pytest.raises(ValueError, match="scales"):
        ex.section6a_speed_window(scales=[-1.0])
