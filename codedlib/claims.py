"""Paper-vs-ours comparisons as data: one :class:`Claim` row per claim, with its interval and
a verdict.

A notebook builds a :class:`ClaimsTable`, adds rows (``exact``, ``interval``, ``comparison``,
``qualitative``; each method says how it picks its verdict), writes ``<fig_dir>/claims.csv``
and shows them as its closing section; ``make figures`` copies the faithful rows to
``data/claims/``, from which the README's "What we reproduce" block is generated
(:func:`render_readme_table`). A row stands for a number or statement the paper prints
(basis ``paper``, its ``item`` the locator), our ``derived`` one, or our own ``check``
(:data:`BASES`); tallies count ``paper`` rows by verdict. The verdicts (:data:`VERDICTS`) are
checked against each row's own numbers by :func:`check_claim`; an interval needs >= 2
replicas, and no number may be NaN or infinite except one end of a ``paper_range``
(``(2.5, math.inf)``: the paper's "more than 2.5×").

>>> claims = ClaimsTable("02-reed-solomon", paper="reed-solomon")
>>> row = claims.exact("Fig. 3, eq. (22)", "alpha*", paper=0.1477, ours=0.14772, rtol=1e-3,
...                    section="5. Fig. 3")
>>> row.verdict, check_claim(row)
('reproduced', [])
"""

from __future__ import annotations

import contextlib
import html
import inspect
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from codedlib._validation import check_int, check_real
from codedlib.atomic import write_text_atomic

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pandas as pd
    from numpy.typing import ArrayLike
    from pandas.io.formats.style import Styler

VERDICTS = (
    "reproduced",
    "reproduced within CI",
    "partly",
    "direction only",
    "inconclusive",
    "not reproduced",
    "paper erratum",
    "calibrated",
    "not attempted",
)
#: Verdicts that count as a pass for a derived row or an internal check.
PASSING = ("reproduced", "reproduced within CI")
KINDS = ("exact", "interval", "comparison", "qualitative")
#: What a row stands for (module docstring); only ``paper`` rows count in a tally.
BASES = ("paper", "derived", "check")
#: A comparison's magnitude is "off" when our effect and the paper's differ by more than this
#: factor (:func:`magnitude_factor`).
MAGNITUDE_FACTOR = 2.0

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
    """One paper-vs-ours comparison: the paper's point (low = high = value) or range (value
    NaN), ours with its interval (equal bounds when exact), texts for what a number cannot say.
    ``outcome`` (comparisons) is ``greater`` / ``less`` when the interval excludes ``null``,
    else ``indistinguishable``; ``expected`` the paper's direction; ``headline`` an abstract or
    conclusion claim; ``machine_dependent`` wall-clock or real-process numbers (committed files
    keep the verdict, not the numbers)."""

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
        lo, hi = self.paper_low, self.paper_high
        if _finite(lo) and _finite(hi):
            return f"{_fmt(lo)}–{_fmt(hi, self.unit)}"
        if _finite(lo) and hi == math.inf:
            return f"> {_fmt(lo, self.unit)}"
        if _finite(hi) and lo == -math.inf:
            return f"< {_fmt(hi, self.unit)}"
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


def _number(value, name: str) -> float:
    """``value`` as a finite float, or a ValueError naming ``name``."""
    if not _finite(value):
        raise ValueError(f"{name} must be a finite number, got {name}={value!r}")
    return float(value)


def _check_level(level) -> float:
    return check_real("level", level, 0, 1, low_open=True, high_open=True)


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


def _replicas(arr: np.ndarray, name: str) -> np.ndarray:
    if arr.size < 2:
        raise ValueError(
            f"{name}: an interval needs at least 2 independent replicas, got {arr.size} "
            f"({name}={arr.tolist()!r}); one replica has no spread to estimate"
        )
    return arr


def mean_interval(samples: ArrayLike, level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)``: mean of >= 2 independent replicas and its Student-t interval.

    >>> mean_interval([1.0, 2.0, 3.0])[0]
    2.0
    """
    from scipy import stats

    level = _check_level(level)
    x = _replicas(_as_samples(samples, "samples"), "samples")
    mean = float(x.mean())
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return mean, mean - half, mean + half


def ratio_interval(
    numerator: ArrayLike, denominator: ArrayLike, level: float = 0.95
) -> tuple[float, float, float]:
    """``(ratio, low, high)`` of two paired positive arms over >= 2 seeds: geometric mean and
    t-interval on the log scale.

    >>> round(ratio_interval([2.0, 2.2, 1.8], [1.0, 1.1, 0.9])[0], 6)
    2.0
    """
    a = _as_samples(numerator, "numerator")
    b = _as_samples(denominator, "denominator")
    if a.shape != b.shape:
        raise ValueError(
            f"numerator and denominator must pair seed by seed, got {a.size} and {b.size}"
        )
    _replicas(a, "numerator")
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError("ratio_interval needs positive values in both arms")
    m, lo, hi = mean_interval(np.log(a / b), level)
    return math.exp(m), math.exp(lo), math.exp(hi)


def proportion_interval(
    successes: int, trials: int, level: float = 0.95
) -> tuple[float, float, float]:
    """``(proportion, low, high)``: binomial proportion with its Wilson score interval."""
    from scipy import stats

    level = _check_level(level)
    trials = check_int("trials", trials, low=1)
    successes = check_int("successes", successes, low=0, high=trials)
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return p, max(0.0, centre - half), min(1.0, centre + half)


def magnitude_factor(ours: float, paper_low: float, paper_high: float, null: float = 1.0) -> float:
    """How many times our effect ``|log(ours / null)|`` is off from the nearest of the paper's
    range (1 inside it; zero against non-zero is infinitely off): 0.94 against 0.70 is off by
    log(0.70)/log(0.94) ≈ 5.8.

    >>> round(magnitude_factor(0.94, 0.6, 0.7), 2)
    5.76
    """

    def effect(x):
        return abs(math.log(x / null)) if 0 < x < math.inf else math.inf

    e = effect(ours)
    ends = [effect(paper_low), effect(paper_high)]
    e_min = 0.0 if min(paper_low, paper_high) <= null <= max(paper_low, paper_high) else min(ends)
    e_max = max(ends)
    if e_min <= e <= e_max:
        return 1.0
    if e < e_min:
        return math.inf if e == 0 else e_min / e
    return math.inf if e_max == 0 else e / e_max


def _outcome(lo: float, hi: float, null: float) -> str:
    if lo > null:
        return "greater"
    if hi < null:
        return "less"
    return "indistinguishable"


def _paper_range(claim: Claim) -> tuple[float, float] | None:
    lo, hi = float(claim.paper_low), float(claim.paper_high)
    if not (math.isnan(lo) or math.isnan(hi)) and (_finite(lo) or _finite(hi)):
        return lo, hi
    if _finite(claim.paper_value):
        return float(claim.paper_value), float(claim.paper_value)
    return None


def _within(value: float, lo: float, hi: float, rtol: float) -> bool:
    """``lo <= value <= hi``, each end widened by ``rtol`` (at least 1e-12 absolute)."""
    return lo - max(rtol * abs(lo), 1e-12) <= value <= hi + max(rtol * abs(hi), 1e-12)


def _meets(paper: tuple[float, float] | None, lo: float, hi: float) -> bool:
    return paper is not None and paper[1] >= lo and paper[0] <= hi


def _near(paper: tuple[float, float] | None, ours: float, rtol: float) -> bool:
    """The paper's value (or range) lies within ``rtol`` of ours (relative to ours)."""
    if paper is None or not rtol > 0:
        return False
    tol = rtol * abs(ours)
    return paper[0] - tol <= ours <= paper[1] + tol


def _holds_null(claim: Claim) -> bool:
    return _finite(claim.null) and claim.ci_low <= claim.null <= claim.ci_high


def check_claim(claim: Claim) -> list[str]:
    """Every way ``claim``'s verdict disagrees with its own numbers (empty when consistent)."""
    problems = _check_fields(claim)
    if claim.verdict == "not attempted":
        return problems
    if claim.machine_dependent and not _finite(claim.our_value):
        return problems  # committed form: the numbers stay in the run's own outputs
    paper = _paper_range(claim)
    if claim.kind == "exact":
        problems += _check_exact(claim, paper)
    elif claim.kind in ("interval", "comparison"):
        problems += _check_interval(claim, paper)
    elif claim.verdict in ("reproduced within CI", "inconclusive", "direction only"):
        problems.append(f"a qualitative row has no interval: {claim.verdict!r} does not apply")
    return problems


def _check_fields(claim: Claim) -> list[str]:
    problems = []
    if claim.verdict not in VERDICTS:
        problems.append(f"verdict {claim.verdict!r} not in {VERDICTS}")
    if claim.kind not in KINDS:
        problems.append(f"kind {claim.kind!r} not in {KINDS}")
    if claim.basis not in BASES:
        problems.append(f"basis {claim.basis!r} not in {BASES}")
    if claim.headline and claim.basis != "paper":
        problems.append(
            f"a headline row states the paper's claim: basis 'paper', not {claim.basis!r}"
        )
    if not claim.item or not claim.quantity or not claim.section:
        problems.append("item, quantity and section are required")
    if claim.verdict not in PASSING and not claim.reason.strip():
        problems.append(f"verdict {claim.verdict!r} needs a reason")
    if claim.verdict == "calibrated" and "calibrated" not in claim.setting.lower():
        problems.append("a calibrated row must name the calibrated parameter in its setting")
    return problems


def _check_exact(claim: Claim, paper: tuple[float, float] | None) -> list[str]:
    problems = []
    if paper is not None and not _finite(claim.our_value):
        problems.append(f"our value is {claim.our_value}, not a finite number")
    elif claim.verdict == "reproduced":
        if paper is not None:
            if not _within(claim.our_value, *paper, claim.rtol):
                problems.append(
                    f"reproduced but ours {claim.our_value} is not within "
                    f"rtol={claim.rtol} of the paper's {claim.paper_display()}"
                )
        elif claim.paper_text.strip() != claim.our_text.strip():
            problems.append("reproduced but the paper's and our texts differ")
    if claim.verdict in ("reproduced within CI", "inconclusive", "direction only"):
        problems.append(f"an exact value has no interval: {claim.verdict!r} does not apply")
    return problems


def _check_interval(claim: Claim, paper: tuple[float, float] | None) -> list[str]:
    lo, hi = claim.ci_low, claim.ci_high
    if not (_finite(claim.our_value) and _finite(lo) and _finite(hi)):
        return ["interval rows need finite our_value, ci_low and ci_high"]
    problems = []
    if 0 < claim.n_seeds < 2:
        problems.append(f"an interval needs >= 2 independent replicas, got {claim.n_seeds}")
    if not lo <= claim.our_value <= hi:
        problems.append(f"our value {claim.our_value} outside its own interval [{lo}, {hi}]")
    span = f"[{lo:.4g}, {hi:.4g}]"
    if claim.verdict == "reproduced within CI" and not _meets(paper, lo, hi):
        problems.append(
            f"reproduced within CI but the paper's {claim.paper_display()} misses {span}"
        )
    if claim.kind == "interval" and claim.verdict in PASSING and _holds_null(claim):
        problems.append(
            f"{claim.verdict!r} but {span} also holds the null {claim.null:g}: 'inconclusive'"
        )
    if claim.verdict == "inconclusive" and not (_holds_null(claim) and _meets(paper, lo, hi)):
        problems.append(
            f"inconclusive needs an interval holding both the paper's value and the null; "
            f"{span} vs paper {claim.paper_display()}, null {claim.null:g}"
        )
    if claim.kind == "comparison":
        problems += _check_comparison(claim, paper)
    elif claim.verdict == "reproduced" and not _near(paper, claim.our_value, claim.rtol):
        problems.append(
            "a stochastic value is 'reproduced' only with the paper's value within the row's "
            f"rtol of ours (rtol={claim.rtol:g}, paper {claim.paper_display()}, ours "
            f"{claim.our_value:.4g}); else 'reproduced within CI'"
        )
    elif claim.verdict == "direction only":
        problems.append("'direction only' applies to comparisons")
    return problems


def _check_comparison(claim: Claim, paper: tuple[float, float] | None) -> list[str]:
    if not _finite(claim.null) or claim.expected not in ("greater", "less"):
        return ["a comparison needs a finite null and expected in {greater, less}"]
    problems = []
    outcome = _outcome(claim.ci_low, claim.ci_high, claim.null)
    if claim.outcome != outcome:
        problems.append(f"outcome {claim.outcome!r} but the interval says {outcome!r}")
    if claim.verdict in (*PASSING, "direction only") and outcome != claim.expected:
        problems.append(
            f"verdict {claim.verdict!r} but the interval says {outcome!r}, "
            f"the paper {claim.expected!r}"
        )
    if claim.verdict == "direction only":
        if paper is None:
            problems.append("'direction only' needs the paper's number")
        elif _meets(paper, claim.ci_low, claim.ci_high):
            problems.append("'direction only' but the paper's value lies in our interval")
        elif (factor := magnitude_factor(claim.our_value, *paper, claim.null)) <= MAGNITUDE_FACTOR:
            problems.append(
                f"'direction only' but the magnitude is off by only {factor:.2f}× "
                f"(<= {MAGNITUDE_FACTOR:g}×): 'partly'"
            )
    return problems


def _paper_fields(paper, paper_range, one_sided: bool = True) -> dict:
    """The paper's value and range as Claim fields (a point when only ``paper`` is given); with
    ``one_sided``, one end of the range may be infinite (the paper's "more than 2.5×")."""
    lo = hi = value = math.nan if paper is None else _number(paper, "paper")
    if paper_range is not None:
        lo, hi = paper_range
        open_end = one_sided and (lo == -math.inf) != (hi == math.inf)
        lo = lo if open_end and lo == -math.inf else _number(lo, "paper_range[0]")
        hi = hi if open_end and hi == math.inf else _number(hi, "paper_range[1]")
    return {"paper_value": value, "paper_low": lo, "paper_high": hi}


COLOURS = {
    "reproduced": "#d9f2d9",
    "reproduced within CI": "#d9f2d9",
    "partly": "#fff2cc",
    "direction only": "#fde5cc",
    "inconclusive": "#eeeeee",
    "calibrated": "#e0e8ff",
    "not reproduced": "#f8d7da",
    "paper erratum": "#eeeeee",
    "not attempted": "#eeeeee",
}


class ClaimsTable:
    """The claims one notebook run makes, in order, each checked as it is added (an
    inconsistent verdict, a NaN or fewer than 2 replicas raise ``ValueError``). Every add
    method passes the row's other :class:`Claim` fields as keywords (``**meta``)."""

    def __init__(self, notebook: str, *, paper: str, quick: bool = False):
        if paper not in PAPERS:
            raise ValueError(f"paper must be one of {sorted(PAPERS)}, got paper={paper!r}")
        self.notebook = notebook
        self.paper = paper
        self.mode = "quick" if quick else "faithful"
        self.rows: list[Claim] = []

    @contextlib.contextmanager
    def about(self, paper: str) -> Iterator[ClaimsTable]:
        """Rows added inside the block are about ``paper`` (the shoot-out's)."""
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
        kw["machine_dependent"] = bool(kw.get("machine_dependent", False))
        return Claim(self.notebook, self.paper, item, quantity, kind, mode=self.mode, **kw)

    def exact(
        self,
        item: str,
        quantity: str,
        *,
        paper: float | str | None = None,
        ours: float | str | None = None,
        rtol: float = 1e-9,
        paper_range: tuple[float, float] | None = None,
        verdict: str | None = None,
        ours_text: str = "",
        paper_text: str = "",
        **meta,
    ) -> Claim:
        """A deterministic value (a formula, a count, a code property).

        Numbers: ``reproduced`` when ``ours`` is within ``rtol`` of ``paper`` (or inside
        ``paper_range``), else ``not reproduced`` unless ``verdict`` says otherwise
        (``calibrated``, ``paper erratum``, ``partly``). Text values (a scheme name, "True")
        compare as strings. ``ours_text`` / ``paper_text`` add words to a numeric row (the
        split behind a sum, the paper's own wording).
        """
        rtol = check_real("rtol", rtol, low=0)
        kw = dict(meta, rtol=rtol, uncertainty="exact (deterministic)")
        if isinstance(ours, str) or isinstance(paper, str):
            kw.update(paper_text="" if paper is None else str(paper), our_text=str(ours))
            match = paper is not None and str(paper).strip() == str(ours).strip()
        else:
            ours = _number(ours, "ours")
            if paper is None and paper_range is None:
                raise ValueError("a numeric exact row needs paper or paper_range")
            kw.update(_paper_fields(paper, paper_range, one_sided=False), our_text=ours_text)
            kw.update(our_value=ours, ci_low=ours, ci_high=ours, paper_text=paper_text)
            match = _within(ours, kw["paper_low"], kw["paper_high"], rtol)
        if verdict is None:
            verdict = "reproduced" if match else "not reproduced"
        return self._add(self._base(item, quantity, "exact", verdict=verdict, **kw))

    def interval(
        self,
        item: str,
        quantity: str,
        *,
        samples: ArrayLike | None = None,
        paper: float | None = None,
        paper_range: tuple[float, float] | None = None,
        estimate: tuple[float, float, float] | None = None,
        uncertainty: str = "",
        verdict: str | None = None,
        level: float = 0.95,
        rtol: float = 0.0,
        null: float | None = None,
        **meta,
    ) -> Claim:
        """A stochastic value: ``samples`` over >= 2 independent seeds (mean and t-interval), or
        an ``estimate = (value, low, high)`` with finite bounds computed elsewhere (say what in
        ``uncertainty``).

        Verdict by default: ``inconclusive`` when our interval holds both the paper's value and
        ``null`` (no effect, if the row has one); ``reproduced within CI`` when it holds the
        paper's value; ``reproduced`` when the paper's value (a simulation itself) lies within
        ``rtol`` of ours — the tolerance is stated in the row; else ``not reproduced`` (pass
        ``verdict`` and ``reason`` for ``partly``, ``calibrated``, ``paper erratum``).
        """
        level, rtol = _check_level(level), check_real("rtol", rtol, low=0)
        if (samples is None) == (estimate is None):
            raise ValueError("give exactly one of samples or estimate")
        if samples is not None:
            x = _as_samples(samples, "samples")
            value, lo, hi = mean_interval(x, level)
            n = int(x.size)
            uncertainty = uncertainty or f"{level:.0%} t-interval over {n} seeds"
        else:
            value, lo, hi = (_number(v, f"estimate[{i}]") for i, v in enumerate(estimate))
            n = 0
            if not uncertainty:
                raise ValueError("an estimate needs its uncertainty described")
        if rtol > 0:
            uncertainty += f"; reproduced if the paper's value is within rtol = {rtol:g} of ours"
        kw = dict(meta, our_value=value, ci_low=lo, ci_high=hi, uncertainty=uncertainty)
        kw.update(_paper_fields(paper, paper_range), n_seeds=n, rtol=rtol)
        kw.update(null=math.nan if null is None else _number(null, "null"))
        claim = self._base(item, quantity, "interval", verdict="", **kw)
        if verdict is None:
            rng_ = _paper_range(claim)
            if _meets(rng_, lo, hi):
                verdict = "inconclusive" if _holds_null(claim) else "reproduced within CI"
            else:
                verdict = "reproduced" if _near(rng_, value, rtol) else "not reproduced"
        claim.verdict = verdict
        return self._add(claim)

    def comparison(
        self,
        item: str,
        quantity: str,
        *,
        numerator: ArrayLike,
        denominator: ArrayLike,
        expected: str,
        paper: float | None = None,
        paper_range: tuple[float, float] | None = None,
        paper_text: str = "",
        verdict: str | None = None,
        level: float = 0.95,
        unit: str = "×",
        **meta,
    ) -> Claim:
        """ "A is faster / better than B": the paired ratio numerator/denominator over seeds,
        with a log-scale t-interval, against null = 1.

        ``expected`` is the paper's direction (``"greater"``: the ratio is above 1). The
        outcome is ``greater`` / ``less`` only when the interval excludes 1, else
        ``indistinguishable``. Default verdict, when the direction holds: ``reproduced within
        CI`` when the paper gives a number that our interval holds, ``reproduced`` when it gives
        only the direction, ``direction only`` when its number is off in magnitude by more than
        2× (:func:`magnitude_factor`), else ``partly``. When the interval holds 1:
        ``inconclusive`` if it also holds the paper's number, else ``not reproduced``; a
        reversed direction is ``not reproduced``.
        """
        if expected not in ("greater", "less"):
            raise ValueError(f"expected must be 'greater' or 'less', got expected={expected!r}")
        value, lo, hi = ratio_interval(numerator, denominator, level)
        n = len(np.ravel(numerator))
        outcome = _outcome(lo, hi, 1.0)
        paper_given = paper is not None or paper_range is not None
        kw = dict(meta, our_value=value, ci_low=lo, ci_high=hi, n_seeds=n, null=1.0, unit=unit)
        kw.update(_paper_fields(paper, paper_range), expected=expected, outcome=outcome)
        kw.update(paper_text=paper_text or ("" if paper_given else f"ratio {expected} than 1"))
        kw.update(uncertainty=f"{level:.0%} t-interval of the log ratio over {n} paired seeds")
        claim = self._base(item, quantity, "comparison", verdict="", **kw)
        rng_ = _paper_range(claim)
        if verdict is None:
            if outcome == expected:
                if rng_ is None:
                    verdict = "reproduced"
                elif _meets(rng_, lo, hi):
                    verdict = "reproduced within CI"
                elif magnitude_factor(value, *rng_) > MAGNITUDE_FACTOR:
                    verdict = "direction only"
                else:
                    verdict = "partly"
            elif outcome == "indistinguishable" and _meets(rng_, lo, hi):
                verdict = "inconclusive"
            else:
                verdict = "not reproduced"
        if verdict not in PASSING and not claim.reason:
            claim.reason = f"ratio {_fmt(value)} [{_fmt(lo)}, {_fmt(hi)}]: {outcome}" + (
                f"; paper {claim.paper_display()}" if paper_given else ""
            )
            if verdict in ("partly", "direction only") and rng_ is not None:
                claim.reason += f"; effect |log ratio| off by {magnitude_factor(value, *rng_):.2g}×"
        claim.verdict = verdict
        return self._add(claim)

    def qualitative(
        self, item: str, quantity: str, *, paper: str, ours: str, verdict: str, **meta
    ) -> Claim:
        """A statement that is not a number ("Coded-RS has the lowest test error"): the verdict
        is the notebook's judgement and must come with a reason unless reproduced."""
        kw = dict(verdict=verdict, paper_text=paper, our_text=ours)
        return self._add(self._base(item, quantity, "qualitative", **kw, **meta))

    def not_attempted(
        self, item: str, quantity: str, *, paper: str, reason: str, section: str, **meta
    ) -> Claim:
        """A paper claim we do not reproduce at all, and why."""
        kw = dict(paper=paper, reason=reason, section=section)
        return self.qualitative(item, quantity, ours="", verdict="not attempted", **kw, **meta)

    # -- output -----------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        import pandas as pd

        columns = [f.name for f in fields(Claim)]
        return pd.DataFrame([asdict(r) for r in self.rows], columns=columns)

    def write(self, fig_dir: str | Path | None) -> Path | None:
        """Write ``<fig_dir>/claims.csv`` (nothing when ``fig_dir`` is None)."""
        if fig_dir is None:
            return None
        out = Path(fig_dir)
        out.mkdir(parents=True, exist_ok=True)
        text = self.to_frame().to_csv(index=False, float_format="%.10g", lineterminator="\n")
        return write_text_atomic(out / "claims.csv", text)

    def display_frame(self) -> pd.DataFrame:
        """:func:`claims_frame` of the rows."""
        return claims_frame(self.rows)

    def show(self) -> Styler:
        """The closing table of a notebook, verdicts coloured, :meth:`summary` as caption."""
        return (
            self.display_frame()
            .style.hide(axis="index")
            .format(escape="html")
            .map(lambda v: f"background-color: {COLOURS.get(v, '')}", subset=["verdict"])
            .set_properties(**{"text-align": "left", "vertical-align": "top"})
            .set_caption(html.escape(self.summary()))
        )

    def summary(self) -> str:
        """The tally of :func:`tally` in one line: the README's row for this notebook."""
        t = tally(self.rows)
        counts = ", ".join(f"{t[v]} {v}" for v in VERDICTS if t[v]) or "none"
        derived, checks = ("none" if t[k] == "·" else t[k] for k in ("derived", "check"))
        return (
            f"paper rows {t['paper rows']}: {counts} · derived from the paper's numbers {derived}"
            f" · internal checks {checks}"
        )


#: The ClaimsTable method each spec kind calls.
SPEC_KINDS = ("exact", "interval", "comparison", "qualitative", "not_attempted")


@dataclass(frozen=True)
class Spec:
    """A claim declared beside the experiment that measures it: ``fixed`` is what is said
    before any run; ``measured(**results it names)`` gives the measured arguments (``ours``,
    ``samples``, ``numerator``/``denominator``, a ``verdict``/``reason``); ``about`` overrides
    the table's paper for this row."""

    kind: str
    item: str
    quantity: str
    fixed: dict
    measured: Callable[..., dict] | None = None
    about: str | None = None


def spec(
    kind: str,
    item: str,
    quantity: str,
    measured: Callable[..., dict] | None = None,
    *,
    about: str | None = None,
    **fixed,
) -> Spec:
    """One :class:`Spec`; ``kind`` names the :class:`ClaimsTable` method (:data:`SPEC_KINDS`)."""
    if kind not in SPEC_KINDS:
        raise ValueError(f"kind must be one of {SPEC_KINDS}, got kind={kind!r}")
    if about is not None and about not in PAPERS:
        raise ValueError(f"about must be one of {sorted(PAPERS)}, got about={about!r}")
    if measured is not None and not callable(measured):
        raise ValueError(f"measured must be callable, got measured={measured!r}")
    return Spec(kind, item, quantity, dict(fixed), measured, about)


def _wanted(fn: Callable, results: dict) -> dict:
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return results
    missing = [p.name for p in params if p.name not in results and p.default is p.empty]
    if missing:
        raise ValueError(f"evaluate needs the results {missing} (given: {sorted(results)})")
    return {p.name: results[p.name] for p in params if p.name in results}


def evaluate(table: ClaimsTable, specs: Iterable[Spec], **results) -> list[Claim]:
    """Add one row per spec (or per spec a callable entry returns from the results it names)
    to ``table``, its measured part read from ``results``; returns the rows added."""
    entries = [e if isinstance(e, Spec) else e(**_wanted(e, results)) for e in specs]
    rows = []
    for s in [s for e in entries for s in (e if isinstance(e, list) else [e])]:
        kw = dict(s.fixed)
        if s.measured is not None:
            kw.update(s.measured(**_wanted(s.measured, results)))
        with contextlib.nullcontext() if s.about is None else table.about(s.about):
            rows.append(getattr(table, s.kind)(s.item, s.quantity, **kw))
    return rows


def _apart(rows: Sequence[Claim]) -> str:
    if not rows:
        return "·"
    if all(r.verdict in PASSING for r in rows):
        return f"{len(rows)}, all pass"
    counts = ((v, sum(r.verdict == v for r in rows)) for v in VERDICTS)
    return f"{len(rows)}: " + ", ".join(f"{n} {v}" for v, n in counts if n)


def tally(rows: Sequence[Claim]) -> dict:
    """The verdict counts of the ``paper`` rows (``"paper rows"`` and one key per verdict), and
    the ``derived`` and ``check`` rows apart ("12, all pass" or "12: 10 reproduced, 2 partly")."""
    paper = [r for r in rows if r.basis == "paper"]
    out = {"paper rows": len(paper), **{v: sum(r.verdict == v for r in paper) for v in VERDICTS}}
    return out | {b: _apart([r for r in rows if r.basis == b]) for b in ("derived", "check")}


def _ordered(rows: Sequence[Claim]) -> list[Claim]:
    """Each paper's rows together, its headline rows first, then paper, derived, check rows."""
    order = list(PAPERS)
    return sorted(
        rows,
        key=lambda r: (
            order.index(r.paper) if r.paper in order else len(order),
            not r.headline,
            BASES.index(r.basis) if r.basis in BASES else len(BASES),
        ),
    )


def claims_frame(rows: Sequence[Claim], *, notebook: bool = False) -> pd.DataFrame:
    """The table a reader sees, in :func:`tally`'s grouping (headline rows lead): paper, ours
    with interval, verdict, basis, setting and reason (after the notebook, if asked)."""
    import pandas as pd

    rows = _ordered(rows)
    return pd.DataFrame(
        {
            **({"notebook": [r.notebook for r in rows]} if notebook else {}),
            "item": [r.item for r in rows],
            "quantity": [r.quantity for r in rows],
            "paper": [r.paper_display() for r in rows],
            "ours": [r.ours_display() for r in rows],
            "uncertainty": [r.uncertainty for r in rows],
            "verdict": [r.verdict for r in rows],
            "basis": [r.basis + (" (headline)" if r.headline else "") for r in rows],
            "setting": [r.setting for r in rows],
            "why / where": [
                (r.reason + (" — " if r.reason else "") + f"§ {r.section}") for r in rows
            ],
        }
    )


# -- reading and the README table -------------------------------------------------------------


def _cell(raw, typ: str):
    """One CSV cell as the field's type (``ValueError`` when it is not one)."""
    empty = not isinstance(raw, str) or raw.strip() == ""
    if typ == "float":
        return math.nan if empty else float(raw)
    if typ == "int":
        if empty:
            return 0
        x = float(raw)
        if not x.is_integer():
            raise ValueError("not a whole number")
        return int(x)
    if typ == "bool":
        text = "false" if empty else raw.strip().lower()
        if text not in ("true", "false"):
            raise ValueError("not True or False")
        return text == "true"
    return "" if empty else raw


def read_claims(paths: Iterable[str | Path] | str | Path) -> list[Claim]:
    """Claims from ``claims.csv`` files or folders of them; a file that is not a claims table
    or a bad cell raises ``ValueError`` naming the file, the line and the column."""
    import pandas as pd

    if isinstance(paths, (str, Path)):
        p = Path(paths)
        paths = sorted(p.glob("*.csv")) if p.is_dir() else [p]
    names = {f.name: f.type for f in fields(Claim)}
    rows = []
    for path in paths:
        try:
            frame = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=str)
        except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as err:
            raise ValueError(f"{path}: not a claims CSV ({err})") from None
        missing = set(names) - set(frame.columns)
        if missing:
            raise ValueError(f"{path}: claims file lacks columns {sorted(missing)}")
        for line, record in enumerate(frame.to_dict("records"), start=2):
            kw = {}
            for name, typ in names.items():
                try:
                    kw[name] = _cell(record[name], str(typ))
                except ValueError as err:
                    raise ValueError(
                        f"{path}, line {line}, column {name!r}: {record[name]!r} is not a "
                        f"valid {typ} ({err})"
                    ) from None
            rows.append(Claim(**kw))
    return rows


README_BEGIN = (
    "<!-- claims:begin (generated by `python -m codedlib.claims readme` from data/claims/) -->"
)
README_END = "<!-- claims:end -->"


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_readme_table(claims: Sequence[Claim]) -> str:
    """The README's "What we reproduce" block: the headline rows, then :func:`tally` per paper."""
    unknown = sorted({c.paper for c in claims} - set(PAPERS))
    if unknown:
        raise ValueError(
            f"unknown paper keys {unknown}: each row's paper must be in {list(PAPERS)}"
        )
    lines = [
        README_BEGIN,
        "",
        "| Paper | Item | Quantity | Paper value | Ours [95 % CI] | Verdict | Setting |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {_md(PAPERS[c.paper][1])} | {_md(c.item)} | {_md(c.quantity)} "
        f"| {_md(c.paper_display())} | {_md(c.ours_display())} | {_md(c.verdict)} "
        f"| {_md(c.setting)} |"
        for c in _ordered(claims)
        if c.headline
    ]
    lines += [
        "",
        "| Paper | Paper rows | " + " | ".join(VERDICTS) + " | Derived | Internal checks |",
        "|---|---:|" + "---:|" * len(VERDICTS) + "---|---|",
    ]
    for key, (_, _, title) in PAPERS.items():
        rows = [c for c in claims if c.paper == key]
        if rows:
            t = tally(rows)
            counts = " | ".join(str(t[v]) if t[v] else "·" for v in VERDICTS)
            lines.append(
                f"| {title} | {t['paper rows']} | {counts} | {t['derived']} | {t['check']} |"
            )
    lines += ["", README_END]
    return "\n".join(lines)


def _source_claims(source: str | Path) -> list[Claim]:
    if not Path(source).exists():
        raise ValueError(f"{source}: no such file or folder")
    if not (claims := read_claims(source)):
        raise ValueError(f"{source}: no claims rows (expected <notebook>.csv files)")
    return claims


def update_readme(readme: str | Path, claims_dir: str | Path) -> bool:
    """Rewrite the generated block of ``readme`` from ``claims_dir``; True when it changed
    (``ValueError``, the README left as it is, for an empty or missing source)."""
    readme, claims = Path(readme), _source_claims(claims_dir)
    text = readme.read_text(encoding="utf-8")
    if README_BEGIN not in text or README_END not in text:
        raise ValueError(
            f"{readme} has no generated claims block ({README_BEGIN!r} … {README_END!r})"
        )
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    new = head + render_readme_table(claims) + tail
    if new != text:
        write_text_atomic(readme, new)
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    """``python -m codedlib.claims readme|check``; exit 2 with one message on a bad source."""
    import argparse

    repo_root = Path(__file__).resolve().parent.parent  # as codedlib.notebooks.REPO_ROOT
    parser = argparse.ArgumentParser(
        prog="python -m codedlib.claims",
        description="Regenerate the README claims table from data/claims/ (or check the rows).",
    )
    parser.add_argument("command", choices=["readme", "check"])
    parser.add_argument("--claims", default=str(repo_root / "data" / "claims"))
    parser.add_argument("--readme", default=str(repo_root / "README.md"))
    args = parser.parse_args(argv)
    try:
        claims = _source_claims(args.claims)
        render_readme_table(claims)
    except ValueError as err:
        parser.error(f"--claims {err}; the README is left as it is")
    bad = [(c.key, p) for c in claims for p in check_claim(c)]
    for key, problem in bad:
        print(f"{key}: {problem}")
    if args.command == "check":
        return 1 if bad else 0
    if not Path(args.readme).is_file():
        parser.error(f"--readme {args.readme}: no such file")
    try:
        changed = update_readme(args.readme, args.claims)
    except ValueError as err:
        parser.error(f"--readme {args.readme}: {err}")
    print(f"{args.readme}: {'updated' if changed else 'up to date'} ({len(claims)} claims)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
