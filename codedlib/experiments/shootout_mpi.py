"""Notebook 06, section 7: the claims of the real-process runs, read from the result of
:func:`codedlib.runtime.shootout.real_vs_predicted` (``experiments`` does not import
``runtime``); real-process timings are ``machine_dependent`` rows with basis ``check``.

Reference: reisizadeh2022codedreduce, severinson2023dsag.
"""

from __future__ import annotations

from functools import partial

from codedlib.claims import spec

TARGET = (0.9, 1.1)
TARGET_TEXT = "the simulator within ±10 % of real runs (our target)"
S7 = "7. Real processes"
_row = partial(spec, item="Real processes", section=S7, basis="check")
_interval = partial(
    _row, "interval", paper_range=TARGET, paper_text=TARGET_TEXT, machine_dependent=True
)


def _over_schemes(real, **_):
    """Measured / predicted over the schemes run (not attempted if fewer than two ran)."""
    ran, processes = real.frame[real.frame.status == "run"], real.cluster.n_workers + 1
    quantity = "measured / predicted mean iteration time, over the schemes run"
    if len(ran) < 2:
        why = "fewer than two schemes ran: " + "; ".join(real.frame.status)
        return _row("not_attempted", quantity=quantity, paper=TARGET_TEXT, reason=why)
    return _interval(
        quantity=quantity,
        samples=ran.ratio.to_numpy(),
        uncertainty="95 % t-interval over the schemes run (one real run each)",
        setting=f"{len(ran)} schemes ({', '.join(ran.scheme)}), {processes} MPI processes "
        f"on this machine; {real.cluster.describe()}",
        reason=f"what the injection does not hold (transfer, polling, {processes} processes "
        "on few cores) is the difference; the table above has each scheme's ratio",
    )


def _mpi_allreduce(real, **_):
    """MPICH's ``MPI_Allreduce`` alone: its measured 95 % interval over the prediction."""
    mpi = real.frame[real.frame.scheme == "mpi-allreduce"]
    quantity = "measured / predicted mean iteration time, MPI_Allreduce (MPICH)"
    if mpi.empty or mpi.status.iloc[0] != "run":
        why = "MPI_Allreduce did not run: " + ("not requested" if mpi.empty else mpi.status.iloc[0])
        return _row("not_attempted", quantity=quantity, paper=TARGET_TEXT, reason=why)
    m, p, processes = mpi.iloc[0], mpi.predicted_mean.iloc[0], real.cluster.n_workers + 1
    return _interval(
        quantity=quantity,
        estimate=(m.ratio, m.measured_ci_low / p, m.measured_ci_high / p),
        uncertainty=f"95 % t-interval of the measured mean over {m.iterations} iterations, "
        "over the prediction",
        setting=f"rar --allreduce mpi on {processes} MPI processes, injected delays; {m.method}",
        reason="the injected delays are the prediction; the rest is the real MPI_Allreduce, "
        f"polling and {processes} processes on few cores",
    )


#: Section 7's claims (result: ``real``, a ``RealVsPredicted``); each row's kind follows the
#: runs (:func:`codedlib.claims.evaluate`).
CLAIMS = {"real": [_over_schemes, _mpi_allreduce]}
