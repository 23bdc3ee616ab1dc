"""Paper-vs-ours comparisons as data: one row per claim, with its interval and a verdict.

Every comparison a notebook makes between a paper's number and ours is recorded here as a
:class:`Claim` row, never only as prose. A notebook builds a :class:`ClaimsTable`, adds rows
with :meth:`ClaimsTable.exact`, :meth:`ClaimsTable.interval`, :meth:`ClaimsTable.comparison`
or :meth:`ClaimsTable.qualitative`, writes them to ``<fig_dir>/claims.csv`` and shows them as
its closing section. ``make figures`` copies the faithful-run rows to ``data/claims/`` and the
README's "What we reproduce" table is generated from those files (:func:`render_readme_table`).

The verdict vocabulary is fixed (:data:`VERDICTS`) and each row is checked against its own
numbers by :func:`check_claim` (the tests run it on every row a notebook writes):

- ``reproduced``: an exact or deterministic value equal to the paper's within the row's
  tolerance, or a comparison whose interval excludes equality in the paper's direction;
- ``reproduced within CI``: the paper's value (or range) lies inside our interval over seeds;
- ``partly``: part of the claim holds (the row's ``reason`` says which part);
- ``not reproduced``: the paper's value is outside our interval, or a comparison that the
  interval cannot tell apart ("indistinguishable") or reverses;
- ``paper erratum``: the paper's own numbers contradict it (the reason shows how);
- ``calibrated``: a match forced by a parameter chosen to hit the paper's value;
- ``not attempted``: the reason says why.

Example
-------
>>> claims = ClaimsTable("02-reed-solomon", paper="reed-solomon")
>>> row = claims.exact("Fig. 3, eq. (22)", "alpha*", paper=0.1477, ours=0.14772, rtol=1e-3,
...                    section="5. Fig. 3")
>>> row.verdict
'reproduced'
>>> check_claim(row)
[]

References
----------
.. [CR] A. Reisizadeh, S. Prakash, R. Pedarsani, A. S. Avestimehr, "CodedReduce: A Fast and
   Robust Framework for Gradient Aggregation in Distributed Learning", IEEE/ACM Trans.
   Networking 30(1), 2022, arXiv:1902.01981.
.. [RS] W. Halbawi, N. Azizan-Ruhi, F. Salehi, B. Hassibi, "Improving Distributed Gradient
   Descent Using Reed–Solomon Codes", IEEE ISIT, 2018, arXiv:1706.05436.
.. [DSAG] A. Severinson, E. Rosnes, S. El Rouayheb, A. Graell i Amat, "DSAG: A Mixed
   Synchronous-Asynchronous Iterative Method for Straggler-Resilient Learning", IEEE Trans.
   Communications, 2023, arXiv:2111.13877.
.. [LAGC] J. Zhang, O. Simeone, "LAGC: Lazily Aggregated Gradient Coding for Straggler-Tolerant
   and Communication-Efficient Distributed Learning", IEEE Trans. Neural Networks and
   Learning Systems 32(3), 2021, arXiv:1905.09148.
.. [SC] H. Esfahanizadeh, A. Cohen, M. Médard, "Stream Iterative Distributed Coded Computing for
   Learning Applications in Heterogeneous Systems", arXiv preprint, 2022, arXiv:2204.13195.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

__all__ = [
    "VERDICTS",
    "KINDS",
    "BASES",
    "PAPERS",
    "Claim",
    "ClaimsTable",
    "mean_interval",
    "ratio_interval",
    "proportion_interval",
    "check_claim",
    "claims_frame",
    "read_claims",
    "render_readme_table",
    "update_readme",
]

VERDICTS = (
    "reproduced",
    "reproduced within CI",
    "partly",
    "direction only",  # issue 23 (also added by another helper: keep one copy on merge)
    "inconclusive",
    "not reproduced",
    "paper erratum",
    "calibrated",
    "not attempted",
)
KINDS = ("exact", "interval", "comparison", "qualitative")
#: What a row stands for: ``paper`` (a number or statement printed in the paper, with its
#: locator), ``derived`` (our derivation from the paper's printed numbers), ``check`` (true by
#: construction, or our own consistency check). Only ``paper`` rows count in a tally.
BASES = ("paper", "derived", "check")
OUTCOMES = ("greater", "less", "indistinguishable")

#: The five papers (and the common-ground notebook) by key: citation key in references.bib
#: and the short form used in tables.
PAPERS = {
    "common": ("", "common", "Common ground (delay models, order statistics)"),
    "codedreduce": (
        "reisizadeh2022codedreduce",
        "CodedReduce",
        "Reisizadeh et al., CodedReduce, IEEE/ACM ToN 2022",
    ),
    "reed-solomon": (
        "halbawi2018reedsolomon",
        "Reed–Solomon GC",
        "Halbawi et al., Reed–Solomon gradient codes, ISIT 2018",
    ),
    "dsag": ("severinson2023dsag", "DSAG", "Severinson et al., DSAG, IEEE TCOM 2023"),
    "lagc": ("zhang2021lagc", "LAGC", "Zhang & Simeone, LAGC, IEEE TNNLS 2021"),
    "stream": (
        "esfahanizadeh2022stream",
        "Stream",
        "Esfahanizadeh et al., stream coded computing, arXiv 2022",
    ),
    "shootout": ("", "Shoot-out", "All five papers' schemes on one cluster (notebook 06)"),
}


@dataclass
class Claim:
    """One paper-vs-ours comparison.

    ``paper_value`` / ``paper_low`` / ``paper_high`` hold the paper's number (a point has
    low = high = value; a range "20–30 %" has value = NaN); ``our_value`` with
    ``ci_low`` / ``ci_high`` holds ours (equal bounds for an exact value). Text columns carry
    what a number cannot (a scheme name, a matrix, "faster"). ``outcome`` is set for
    comparisons: ``greater`` / ``less`` when the interval excludes ``null``, else
    ``indistinguishable``; ``expected`` is the paper's direction.

    Parameters
    ----------
    notebook : str
        Notebook stem the claim comes from.
    paper : str
        Paper key (one of ``PAPERS``).
    item : str
        The paper's item compared (figure, table, equation).
    quantity : str
        Quantity compared.
    kind : str
        Kind of comparison (value, interval, comparison, ...).
    verdict : str
        Verdict of the comparison.
    paper_value : float, default math.nan
        The paper's number (NaN for a range).
    paper_low : float, default math.nan
        Lower end of the paper's number or range.
    paper_high : float, default math.nan
        Upper end of the paper's number or range.
    paper_text : str, default ''
        The paper's value in words.
    our_value : float, default math.nan
        Our number.
    ci_low : float, default math.nan
        Lower end of our confidence interval.
    ci_high : float, default math.nan
        Upper end of our confidence interval.
    our_text : str, default ''
        Our value in words.
    uncertainty : str, default ''
        How our interval was obtained.
    n_seeds : int, default 0
        Number of seeds behind our value.
    rtol : float, default 0.0
        Relative tolerance of the comparison.
    null : float, default math.nan
        Null value the interval is compared with.
    expected : str, default ''
        The paper's direction: ``greater`` or ``less``.
    outcome : str, default ''
        ``greater``, ``less`` or ``indistinguishable``.
    unit : str, default ''
        Unit of the numbers.
    setting : str, default ''
        Our setting (stand-ins, sizes).
    reason : str, default ''
        Why the verdict is what it is.
    section : str, default ''
        Notebook section that makes the claim.
    mode : str, default ''
        ``quick`` or ``faithful`` run.
    headline : bool, default False
        Shown in the README's headline rows.
    basis : str, default 'paper'
        What the row stands for (one of ``BASES``).
    machine_dependent : bool, default False
        The numbers are wall-clock or real-process measurements of the machine that ran the
        notebook: committed files keep the verdict, not the numbers.
    """

    notebook: str
    paper: str
    item: str
    quantity: str
    kind: str
    verdict: str
    paper_value: float = math.nan
    paper_low: float = math.nan
    paper_high: float = math.nan
    paper_text: str = ""
    our_value: float = math.nan
    ci_low: float = math.nan
    ci_high: float = math.nan
    our_text: str = ""
    uncertainty: str = ""
    n_seeds: int = 0
    rtol: float = 0.0
    null: float = math.nan
    expected: str = ""
    outcome: str = ""
    unit: str = ""
    setting: str = ""
    reason: str = ""
    section: str = ""
    mode: str = ""
    headline: bool = False
    basis: str = "paper"
    machine_dependent: bool = False

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.notebook, self.item, self.quantity)

    def paper_display(self) -> str:
        if self.paper_text:
            return self.paper_text
        if _finite(self.paper_value):
            return _fmt(self.paper_value, self.unit)
        if _finite(self.paper_low) and _finite(self.paper_high):
            return f"{_fmt(self.paper_low)}–{_fmt(self.paper_high, self.unit)}"
        return "—"

    def ours_display(self) -> str:
        parts = []
        if _finite(self.our_value):
            if _finite(self.ci_low) and (self.ci_low != self.ci_high):
                parts.append(
                    f"{_fmt(self.our_value, digits=4)} [{_fmt(self.ci_low, digits=4)}, "
                    f"{_fmt(self.ci_high, digits=4)}]{(' ' + self.unit) if self.unit else ''}"
                )
            else:
                parts.append(_fmt(self.our_value, self.unit))
        if self.outcome and self.kind == "comparison":
            parts.append(f"({self.outcome})")
        if self.our_text:
            parts.append(self.our_text)
        return " ".join(parts) if parts else "—"


def _finite(x) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _fmt(x, unit: str = "", digits: int = 6) -> str:
    """A number as a reader wants it: a paper's 129.96 stays 129.96 (6 significant digits);
    our estimates with an interval are shown with ``digits=4``."""
    x = float(x)
    if x == 0:
        text = "0"
    elif abs(x) >= 1e6 or abs(x) < 1e-3:
        text = f"{x:.{min(digits, 4)}g}"
    elif abs(x - round(x)) < 1e-9 * max(1.0, abs(x)):
        text = f"{int(round(x))}"
    else:
        text = f"{x:.{digits}g}"
    return f"{text} {unit}".strip() if unit else text


def _as_samples(samples, name: str) -> np.ndarray:
    arr = np.asarray(samples, dtype=float).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a non-empty sequence of finite numbers, got {samples!r}")
    return arr


def mean_interval(samples, level: float = 0.95) -> tuple[float, float, float]:
    """Mean of independent replicas and its Student-t confidence interval.

    One sample gives an interval of zero width only if told so: a single replica has no
    spread estimate, so the interval is (-inf, inf) — a verdict then cannot claim a CI.

    Parameters
    ----------
    samples : array_like
        Independent replicas.
    level : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    tuple of float
        ``(mean, low, high)``.

    Examples
    --------
    >>> mean_interval([1.0, 2.0, 3.0])[0]
    2.0
    """
    from scipy import stats

    if not 0 < level < 1:
        raise ValueError(f"level must satisfy 0 < level < 1, got level={level}")
    x = _as_samples(samples, "samples")
    mean = float(x.mean())
    if x.size < 2:
        return mean, -math.inf, math.inf
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return mean, mean - half, mean + half


def ratio_interval(numerator, denominator, level: float = 0.95) -> tuple[float, float, float]:
    """Ratio of two paired positive quantities over seeds: geometric mean and t-interval on the
    log scale (seed i of both arms shares its random draws).

    Parameters
    ----------
    numerator : array_like
        Per-seed positive values of the first arm.
    denominator : array_like
        Per-seed positive values of the second arm, paired with ``numerator``.
    level : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    tuple of float
        ``(ratio, low, high)``.

    Examples
    --------
    >>> round(ratio_interval([2.0, 2.2, 1.8], [1.0, 1.1, 0.9])[0], 6)
    2.0
    """
    a = _as_samples(numerator, "numerator")
    b = _as_samples(denominator, "denominator")
    if a.shape != b.shape:
        raise ValueError(
            f"numerator and denominator must pair seed by seed, got {a.size} and {b.size}"
        )
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError("ratio_interval needs positive values in both arms")
    m, lo, hi = mean_interval(np.log(a / b), level)
    return math.exp(m), math.exp(lo), math.exp(hi)


def proportion_interval(
    successes: int, trials: int, level: float = 0.95
) -> tuple[float, float, float]:
    """Binomial proportion with its Wilson score interval (e.g. a test error on n images).

    Parameters
    ----------
    successes : int
        Number of successes.
    trials : int
        Number of trials.
    level : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    tuple of float
        ``(proportion, low, high)``.
    """
    from scipy import stats

    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(
            f"successes must satisfy 0 <= successes <= trials, got "
            f"successes={successes}, trials={trials}"
        )
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


def _outcome(lo: float, hi: float, null: float) -> str:
    if lo > null:
        return "greater"
    if hi < null:
        return "less"
    return "indistinguishable"


def _paper_range(claim: Claim) -> tuple[float, float] | None:
    if _finite(claim.paper_low) and _finite(claim.paper_high):
        return float(claim.paper_low), float(claim.paper_high)
    if _finite(claim.paper_value):
        return float(claim.paper_value), float(claim.paper_value)
    return None


def _within(value: float, lo: float, hi: float, rtol: float) -> bool:
    """``lo <= value <= hi``, each end widened by ``rtol`` (at least 1e-12 absolute)."""
    return lo - max(rtol * abs(lo), 1e-12) <= value <= hi + max(rtol * abs(hi), 1e-12)


def check_claim(claim: Claim) -> list[str]:
    """Every way ``claim``'s verdict disagrees with its own numbers (empty when consistent).

    Parameters
    ----------
    claim : Claim
        Paper-vs-ours claim to annotate the figure with.

    Returns
    -------
    list[str]
        Every way ``claim``'s verdict disagrees with its own numbers (empty when consistent).
    """
    problems = []
    if claim.verdict not in VERDICTS:
        problems.append(f"verdict {claim.verdict!r} not in {VERDICTS}")
    if claim.kind not in KINDS:
        problems.append(f"kind {claim.kind!r} not in {KINDS}")
    if claim.basis not in BASES:
        problems.append(f"basis {claim.basis!r} not in {BASES}")
    if not claim.item or not claim.quantity or not claim.section:
        problems.append("item, quantity and section are required")
    if (
        claim.verdict
        in ("partly", "not reproduced", "paper erratum", "calibrated", "not attempted")
        and not claim.reason.strip()
    ):
        problems.append(f"verdict {claim.verdict!r} needs a reason")
    if claim.verdict == "calibrated" and "calibrated" not in claim.setting.lower():
        problems.append("a calibrated row must name the calibrated parameter in its setting")
    if claim.verdict == "not attempted":
        return problems
    paper = _paper_range(claim)
    if claim.kind == "exact":
        if claim.verdict == "reproduced":
            if paper is not None and _finite(claim.our_value):
                lo, hi = paper
                if not _within(claim.our_value, lo, hi, claim.rtol):
                    problems.append(
                        f"reproduced but ours {claim.our_value} is not within "
                        f"rtol={claim.rtol} of the paper's {claim.paper_display()}"
                    )
            elif claim.paper_text.strip() != claim.our_text.strip():
                problems.append("reproduced but the paper's and our texts differ")
        if claim.verdict == "reproduced within CI":
            problems.append("an exact value has no CI: use 'reproduced'")
    elif claim.kind in ("interval", "comparison"):
        if not (
            _finite(claim.our_value)
            and not math.isnan(claim.ci_low)
            and not math.isnan(claim.ci_high)
        ):
            problems.append("interval rows need our_value, ci_low and ci_high")
            return problems
        if not claim.ci_low <= claim.our_value <= claim.ci_high:
            problems.append(
                f"our value {claim.our_value} outside its own interval "
                f"[{claim.ci_low}, {claim.ci_high}]"
            )
        if claim.verdict == "reproduced within CI":
            if paper is None or paper[1] < claim.ci_low or paper[0] > claim.ci_high:
                problems.append(
                    f"reproduced within CI but the paper's {claim.paper_display()} "
                    f"misses [{claim.ci_low:.4g}, {claim.ci_high:.4g}]"
                )
        if claim.kind == "comparison":
            if not _finite(claim.null) or claim.expected not in ("greater", "less"):
                problems.append("a comparison needs a finite null and expected in {greater, less}")
            else:
                outcome = _outcome(claim.ci_low, claim.ci_high, claim.null)
                if claim.outcome != outcome:
                    problems.append(f"outcome {claim.outcome!r} but the interval says {outcome!r}")
                if (
                    claim.verdict in ("reproduced", "reproduced within CI")
                    and outcome != claim.expected
                ):
                    problems.append(
                        f"verdict {claim.verdict!r} but the interval says {outcome!r}, "
                        f"the paper {claim.expected!r}"
                    )
        elif claim.verdict == "reproduced":
            problems.append("a stochastic value is reproduced only 'within CI'")
    return problems


class ClaimsTable:
    """The claims one notebook run makes, in the order it makes them.

    ``mode`` is ``"quick"`` or ``"faithful"`` (the notebook's ``quick`` parameter); every row
    records it. Rows are checked as they are added: an inconsistent verdict raises
    ``ValueError`` in the notebook, so it can never reach a table.

    Parameters
    ----------
    notebook : str
        Notebook stem.
    paper : str
        Paper key (one of ``PAPERS``).
    quick : bool, default False
        The notebook's ``quick`` parameter (sets ``mode``).
    """

    def __init__(self, notebook: str, *, paper: str, quick: bool = False):
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {sorted(PAPERS)}, got paper={paper!r}")
        self.notebook = notebook
        self.paper = paper
        self.mode = "quick" if quick else "faithful"
        self.rows: list[Claim] = []

    @contextlib.contextmanager
    def about(self, paper: str):
        """Rows added inside the block are about ``paper`` (a notebook that tests several
        papers' claims, e.g. the shoot-out replaying each paper's headline on one cluster)."""
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {sorted(PAPERS)}, got paper={paper!r}")
        before, self.paper = self.paper, paper
        try:
            yield self
        finally:
            self.paper = before

    # -- adding rows -------------------------------------------------------------------------
    def _add(self, claim: Claim) -> Claim:
        problems = check_claim(claim)
        if problems:
            raise ValueError(f"claim {claim.item!r} / {claim.quantity!r}: " + "; ".join(problems))
        self.rows = [r for r in self.rows if r.key != claim.key] + [claim]
        return claim

    def _base(self, item, quantity, kind, **kw) -> Claim:
        return Claim(
            notebook=self.notebook,
            paper=self.paper,
            item=item,
            quantity=quantity,
            kind=kind,
            mode=self.mode,
            **kw,
        )

    def exact(
        self,
        item: str,
        quantity: str,
        *,
        paper=None,
        ours=None,
        rtol: float = 1e-9,
        paper_range: tuple[float, float] | None = None,
        verdict: str | None = None,
        unit: str = "",
        setting: str = "",
        reason: str = "",
        section: str = "",
        headline: bool = False,
        ours_text: str = "",
        paper_text: str = "",
        basis: str = "paper",
    ) -> Claim:
        """A deterministic value (a formula, a count, a code property).

        Numbers: ``reproduced`` when ``ours`` is within ``rtol`` of ``paper`` (or inside
        ``paper_range``), else ``not reproduced`` unless ``verdict`` says otherwise
        (``calibrated``, ``paper erratum``, ``partly``). Text values (a scheme name, "True")
        compare as strings. ``ours_text`` / ``paper_text`` add words to a numeric row (the
        split behind a sum, the paper's own wording).
        """
        kw = dict(
            unit=unit,
            setting=setting,
            reason=reason,
            section=section,
            headline=headline,
            basis=basis,
            rtol=rtol,
            uncertainty="exact (deterministic)",
        )
        if isinstance(ours, str) or isinstance(paper, str):
            kw.update(paper_text="" if paper is None else str(paper), our_text=str(ours))
            match = paper is not None and str(paper).strip() == str(ours).strip()
        else:
            lo, hi = paper_range if paper_range is not None else (paper, paper)
            value = float(paper) if paper is not None else math.nan
            kw.update(
                paper_value=value,
                paper_low=float(lo),
                paper_high=float(hi),
                our_value=float(ours),
                ci_low=float(ours),
                ci_high=float(ours),
                our_text=ours_text,
                paper_text=paper_text,
            )
            match = _within(float(ours), float(lo), float(hi), rtol)
        if verdict is None:
            verdict = "reproduced" if match else "not reproduced"
        return self._add(self._base(item, quantity, "exact", verdict=verdict, **kw))

    def interval(
        self,
        item: str,
        quantity: str,
        *,
        samples=None,
        paper=None,
        paper_range: tuple[float, float] | None = None,
        estimate: tuple[float, float, float] | None = None,
        uncertainty: str = "",
        verdict: str | None = None,
        level: float = 0.95,
        unit: str = "",
        setting: str = "",
        reason: str = "",
        section: str = "",
        headline: bool = False,
        paper_text: str = "",
        basis: str = "paper",
    ) -> Claim:
        """A stochastic value: ``samples`` over independent seeds (mean and t-interval), or an
        ``estimate = (value, low, high)`` computed elsewhere (say what in ``uncertainty``).

        Verdict by default: ``reproduced within CI`` when the paper's value or range meets
        our interval, else ``not reproduced`` (pass ``verdict`` and ``reason`` for
        ``partly``, ``calibrated``, ``paper erratum``).
        """
        if (samples is None) == (estimate is None):
            raise ValueError("give exactly one of samples or estimate")
        if samples is not None:
            x = _as_samples(samples, "samples")
            value, lo, hi = mean_interval(x, level)
            n = int(x.size)
            uncertainty = uncertainty or f"{level:.0%} t-interval over {n} seeds"
        else:
            value, lo, hi = (float(v) for v in estimate)
            n = 0
            if not uncertainty:
                raise ValueError("an estimate needs its uncertainty described")
        p_lo, p_hi = paper_range if paper_range is not None else (paper, paper)
        claim = self._base(
            item,
            quantity,
            "interval",
            verdict="",
            our_value=value,
            ci_low=lo,
            ci_high=hi,
            paper_value=math.nan if paper is None else float(paper),
            paper_low=math.nan if p_lo is None else float(p_lo),
            paper_high=math.nan if p_hi is None else float(p_hi),
            paper_text=paper_text,
            uncertainty=uncertainty,
            n_seeds=n,
            unit=unit,
            setting=setting,
            reason=reason,
            section=section,
            headline=headline,
            basis=basis,
        )
        if verdict is None:
            rng_ = _paper_range(claim)
            verdict = (
                "reproduced within CI"
                if rng_ is not None and rng_[1] >= lo and rng_[0] <= hi
                else "not reproduced"
            )
        claim.verdict = verdict
        return self._add(claim)

    def comparison(
        self,
        item: str,
        quantity: str,
        *,
        numerator,
        denominator,
        expected: str,
        paper=None,
        paper_range: tuple[float, float] | None = None,
        paper_text: str = "",
        verdict: str | None = None,
        level: float = 0.95,
        unit: str = "×",
        setting: str = "",
        reason: str = "",
        section: str = "",
        headline: bool = False,
        basis: str = "paper",
    ) -> Claim:
        """ "A is faster / better than B": the paired ratio numerator/denominator over seeds,
        with a log-scale t-interval, against null = 1.

        ``expected`` is the paper's direction (``"greater"``: the ratio is above 1). The
        outcome is ``greater`` / ``less`` only when the interval excludes 1, else
        ``indistinguishable``. Default verdict: ``reproduced within CI`` when the paper gives a
        number that our interval holds, ``reproduced`` when it gives only the direction and we
        find it, ``partly`` when the direction holds but the paper's number is outside our
        interval, else ``not reproduced``.
        """
        if expected not in ("greater", "less"):
            raise ValueError(f"expected must be 'greater' or 'less', got expected={expected!r}")
        value, lo, hi = ratio_interval(numerator, denominator, level)
        n = len(np.ravel(numerator))
        outcome = _outcome(lo, hi, 1.0)
        paper_given = paper is not None or paper_range is not None
        p_lo, p_hi = paper_range if paper_range is not None else (paper, paper)
        claim = self._base(
            item,
            quantity,
            "comparison",
            verdict="",
            our_value=value,
            ci_low=lo,
            ci_high=hi,
            paper_value=math.nan if paper is None else float(paper),
            paper_low=math.nan if p_lo is None else float(p_lo),
            paper_high=math.nan if p_hi is None else float(p_hi),
            paper_text=paper_text or ("" if p_lo is not None else f"ratio {expected} than 1"),
            uncertainty=f"{level:.0%} t-interval of the log ratio over {n} paired seeds",
            n_seeds=n,
            null=1.0,
            expected=expected,
            outcome=outcome,
            unit=unit,
            setting=setting,
            reason=reason,
            section=section,
            headline=headline,
            basis=basis,
        )
        if verdict is None:
            rng_ = _paper_range(claim)
            if outcome != expected:
                verdict = "not reproduced"
            elif rng_ is None:
                verdict = "reproduced"
            elif rng_[1] >= lo and rng_[0] <= hi:
                verdict = "reproduced within CI"
            else:
                verdict = "partly"
        if verdict in ("partly", "not reproduced") and not reason:
            claim.reason = f"ratio {_fmt(value)} [{_fmt(lo)}, {_fmt(hi)}]: {outcome}" + (
                f"; paper {claim.paper_display()}" if paper_given else ""
            )
        claim.verdict = verdict
        return self._add(claim)

    def qualitative(
        self,
        item: str,
        quantity: str,
        *,
        paper: str,
        ours: str,
        verdict: str,
        reason: str = "",
        setting: str = "",
        section: str = "",
        uncertainty: str = "",
        headline: bool = False,
        basis: str = "paper",
    ) -> Claim:
        """A statement that is not a number ("Coded-RS has the lowest test error"): the verdict
        is the notebook's judgement and must come with a reason unless reproduced."""
        return self._add(
            self._base(
                item,
                quantity,
                "qualitative",
                verdict=verdict,
                paper_text=paper,
                our_text=ours,
                reason=reason,
                setting=setting,
                section=section,
                headline=headline,
                basis=basis,
                uncertainty=uncertainty,
            )
        )

    def not_attempted(
        self,
        item: str,
        quantity: str,
        *,
        paper: str,
        reason: str,
        section: str,
        headline: bool = False,
        basis: str = "paper",
    ) -> Claim:
        """A paper claim we do not reproduce at all, and why."""
        return self._add(
            self._base(
                item,
                quantity,
                "qualitative",
                verdict="not attempted",
                paper_text=paper,
                reason=reason,
                section=section,
                headline=headline,
                basis=basis,
            )
        )

    # -- output -----------------------------------------------------------------------------
    def to_frame(self):
        import pandas as pd

        columns = [f.name for f in fields(Claim)]
        return pd.DataFrame([asdict(r) for r in self.rows], columns=columns)

    def write(self, fig_dir) -> Path | None:
        """Write ``<fig_dir>/claims.csv`` (nothing when ``fig_dir`` is None)."""
        if fig_dir is None:
            return None
        out = Path(fig_dir)
        out.mkdir(parents=True, exist_ok=True)
        path = out / "claims.csv"
        self.to_frame().to_csv(path, index=False, float_format="%.10g", lineterminator="\n")
        return path

    def display_frame(self):
        """The table a reader sees (see :func:`claims_frame`)."""
        return claims_frame(self.rows)

    def show(self):
        """The closing table of a notebook, one row per claim, verdicts coloured."""
        colours = {
            "reproduced": "#d9f2d9",
            "reproduced within CI": "#d9f2d9",
            "partly": "#fff2cc",
            "calibrated": "#e0e8ff",
            "not reproduced": "#f8d7da",
            "paper erratum": "#eeeeee",
            "not attempted": "#eeeeee",
        }
        frame = self.display_frame()
        styled = (
            frame.style.hide(axis="index")
            .format(escape="html")
            .map(lambda v: f"background-color: {colours.get(v, '')}", subset=["verdict"])
            .set_properties(**{"text-align": "left", "vertical-align": "top"})
        )
        return styled

    def summary(self) -> str:
        """One line: how many rows per verdict."""
        counts = {}
        for r in self.rows:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        return ", ".join(
            f"{n} {v}" for v, n in sorted(counts.items(), key=lambda kv: VERDICTS.index(kv[0]))
        )


def claims_frame(rows: Sequence[Claim]):
    """The table a reader sees: paper, ours with interval, verdict, setting and reason.

    Parameters
    ----------
    rows : Sequence[Claim]
        Claims to show.

    Returns
    -------
    pandas.DataFrame
        One row per claim.
    """
    import pandas as pd

    return pd.DataFrame(
        {
            "item": [r.item for r in rows],
            "quantity": [r.quantity for r in rows],
            "paper": [r.paper_display() for r in rows],
            "ours": [r.ours_display() for r in rows],
            "uncertainty": [r.uncertainty for r in rows],
            "verdict": [r.verdict for r in rows],
            "setting": [r.setting for r in rows],
            "why / where": [
                (r.reason + (" — " if r.reason else "") + f"§ {r.section}") for r in rows
            ],
        }
    )


# -- reading and the README table -------------------------------------------------------------


def read_claims(paths: Iterable[str | Path] | str | Path) -> list[Claim]:
    """Claims from one or more ``claims.csv`` files (or a folder of them).

    Parameters
    ----------
    paths : Iterable[str | Path] | str | Path
        ``claims.csv`` files or folders of them.

    Returns
    -------
    list[Claim]
        Claims from one or more ``claims.csv`` files (or a folder of them).
    """
    import pandas as pd

    if isinstance(paths, (str, Path)):
        p = Path(paths)
        paths = sorted(p.glob("*.csv")) if p.is_dir() else [p]
    names = {f.name: f.type for f in fields(Claim)}
    rows = []
    for path in paths:
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=str)
        if "basis" not in frame.columns:  # files written before the field existed
            frame["basis"] = "paper"
        if "machine_dependent" not in frame.columns:
            frame["machine_dependent"] = "False"
        missing = set(names) - set(frame.columns)
        if missing:
            raise ValueError(f"{path}: claims file lacks columns {sorted(missing)}")
        for record in frame.to_dict("records"):
            kw = {}
            for name, typ in names.items():
                raw = record[name]
                if typ in ("float", float):
                    kw[name] = float(raw) if isinstance(raw, str) and raw != "" else math.nan
                elif typ in ("int", int):
                    kw[name] = int(float(raw)) if isinstance(raw, str) and raw != "" else 0
                elif typ in ("bool", bool):
                    kw[name] = str(raw).strip().lower() == "true"
                else:
                    kw[name] = raw if isinstance(raw, str) else ""
            rows.append(Claim(**kw))
    return rows


README_BEGIN = (
    "<!-- claims:begin (generated by `python -m codedlib.claims readme` from data/claims/) -->"
)
README_END = "<!-- claims:end -->"


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_readme_table(claims: Sequence[Claim]) -> str:
    """The README's "What we reproduce" block: verdict counts per paper and the headline rows.

    Parameters
    ----------
    claims : Sequence[Claim]
        Claims of every notebook.

    Returns
    -------
    str
        The README's "What we reproduce" block: verdict counts per paper and the headline rows.
    """
    lines = [
        README_BEGIN,
        "",
        "| Paper | Rows | " + " | ".join(VERDICTS) + " |",
        "|---|---:|" + "---:|" * len(VERDICTS),
    ]
    for key, (_, _, title) in PAPERS.items():
        rows = [c for c in claims if c.paper == key]
        if not rows:
            continue
        counts = [sum(c.verdict == v for c in rows) for v in VERDICTS]
        lines.append(
            f"| {title} | {len(rows)} | " + " | ".join(str(n) if n else "·" for n in counts) + " |"
        )
    lines += [
        "",
        "| Paper | Item | Quantity | Paper value | Ours [95 % CI] | Verdict | Setting |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in claims:
        if c.headline:
            lines.append(
                f"| {_md(PAPERS[c.paper][1])} "
                f"| {_md(c.item)} | {_md(c.quantity)} | {_md(c.paper_display())} "
                f"| {_md(c.ours_display())} | {_md(c.verdict)} | {_md(c.setting)} |"
            )
    lines += ["", README_END]
    return "\n".join(lines)


def update_readme(readme: str | Path, claims_dir: str | Path) -> bool:
    """Rewrite the generated block of ``readme`` from ``claims_dir``; True when it changed.

    Parameters
    ----------
    readme : str | Path
        Path of README.md.
    claims_dir : str | Path
        Folder of the published ``<stem>.csv`` claims.

    Returns
    -------
    bool
        Rewrite the generated block of ``readme`` from ``claims_dir``; True when it changed.
    """
    readme = Path(readme)
    text = readme.read_text(encoding="utf-8")
    if README_BEGIN not in text or README_END not in text:
        raise ValueError(
            f"{readme} has no generated claims block ({README_BEGIN!r} … {README_END!r})"
        )
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    new = head + render_readme_table(read_claims(claims_dir)) + tail
    if new != text:
        readme.write_text(new, encoding="utf-8")
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    import argparse

    repo_root = (
        Path(__file__).resolve().parent.parent
    )  # the checkout (as codedlib.notebooks.REPO_ROOT)
    parser = argparse.ArgumentParser(
        prog="python -m codedlib.claims",
        description="Regenerate the README claims table from data/claims/.",
    )
    parser.add_argument("command", choices=["readme", "check"])
    parser.add_argument("--claims", default=str(repo_root / "data" / "claims"))
    parser.add_argument("--readme", default=str(repo_root / "README.md"))
    args = parser.parse_args(argv)
    claims = read_claims(args.claims)
    bad = [(c.key, p) for c in claims for p in check_claim(c)]
    for key, problem in bad:
        print(f"{key}: {problem}")
    if args.command == "check":
        return 1 if bad else 0
    changed = update_readme(args.readme, args.claims)
    print(f"{args.readme}: {'updated' if changed else 'up to date'} ({len(claims)} claims)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
