"""codedlib.claims: verdicts follow from the numbers; the faithful claims in data/claims/ are
consistent, use >= 5 seeds, and are what the README shows. Repository hygiene: licence,
citation metadata, and no path outside the repository in any tracked file."""

import math
import subprocess

import numpy as np
import pytest

from codedlib.claims import (
    VERDICTS,
    Claim,
    ClaimsTable,
    check_claim,
    mean_interval,
    proportion_interval,
    ratio_interval,
    read_claims,
    render_readme_table,
)
from codedlib.notebooks import REPO_ROOT, discover_notebooks

CLAIMS_DIR = REPO_ROOT / "data" / "claims"


def table():
    return ClaimsTable("99-test", paper="dsag")


def test_mean_interval_matches_t_quantile():
    mean, lo, hi = mean_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    assert mean == 3.0
    # t_{0.975, 4} = 2.776445; s = sqrt(2.5); half = 2.776445 * sqrt(2.5 / 5)
    assert hi - mean == pytest.approx(2.776445105 * math.sqrt(0.5), rel=1e-8)
    assert mean - lo == pytest.approx(hi - mean)
    assert mean_interval([2.0])[1:] == (-math.inf, math.inf)
    with pytest.raises(ValueError, match="samples"):
        mean_interval([])
    with pytest.raises(ValueError, match="level"):
        mean_interval([1, 2], level=1.5)


def test_ratio_and_proportion_intervals():
    value, lo, hi = ratio_interval([2.0, 4.0], [1.0, 2.0])
    assert (value, lo, hi) == (2.0, 2.0, 2.0)  # identical paired ratios: no spread
    with pytest.raises(ValueError, match="pair seed by seed"):
        ratio_interval([1.0, 2.0], [1.0])
    p, lo, hi = proportion_interval(10, 449)
    assert p == pytest.approx(10 / 449) and lo < p < hi
    # Wilson interval of 10/449 (closed form by hand): centre and half-width
    z = 1.959963985
    centre = (p + z * z / 898) / (1 + z * z / 449)
    assert (lo + hi) / 2 == pytest.approx(centre, rel=1e-9)
    with pytest.raises(ValueError, match="successes"):
        proportion_interval(5, 3)


def test_exact_verdicts_follow_the_numbers():
    t = table()
    assert t.exact("Thm 1", "r", paper=4 / 15, ours=4 / 15, section="1").verdict == "reproduced"
    with pytest.raises(ValueError, match="section"):
        t.exact("Thm 1", "r1", paper=4 / 15, ours=4 / 15)
    assert (
        t.exact(
            "Thm 1", "r2", paper=4 / 15, ours=0.27, rtol=1e-3, reason="differs", section="1"
        ).verdict
        == "not reproduced"
    )
    assert t.exact("Eq 5", "mask", paper="True", ours="True", section="1").verdict == "reproduced"
    with pytest.raises(ValueError, match="needs a reason"):
        t.exact("Eq 17", "f", paper=33, ours=68, section="6")
    row = t.exact("Eq 17", "f", paper=33, ours=68, reason="c_m", section="6")
    assert row.verdict == "not reproduced"
    with pytest.raises(ValueError, match="not within"):
        t.exact("Eq 17", "f2", paper=33, ours=68, verdict="reproduced", section="6")
    with pytest.raises(ValueError, match="calibrated parameter"):
        t.exact(
            "Eq 17", "f3", paper=33, ours=33, verdict="calibrated", reason="c_m chosen", section="6"
        )
    assert (
        t.exact(
            "Eq 17",
            "f3",
            paper=33,
            ours=33,
            verdict="calibrated",
            reason="c_m chosen",
            setting="calibrated: c_m = 1.2e-7",
            section="6",
        ).verdict
        == "calibrated"
    )


def test_interval_verdicts_follow_the_interval():
    t = table()
    row = t.interval(
        "Ex 2", "delay", samples=[47.0, 48.0, 49.0, 48.5, 47.5], paper=47.93, section="3"
    )
    assert row.verdict == "reproduced within CI" and row.n_seeds == 5
    row = t.interval(
        "Ex 2",
        "uniform",
        samples=[147.0, 148.0, 149.0, 148.5, 147.5],
        paper=129.96,
        reason="queue",
        section="3",
    )
    assert row.verdict == "not reproduced"
    with pytest.raises(ValueError, match="misses"):
        t.interval(
            "Ex 2",
            "u2",
            samples=[147.0, 148.0, 149.0],
            paper=129.96,
            verdict="reproduced within CI",
            section="3",
        )
    with pytest.raises(ValueError, match="only 'within CI'"):
        t.interval("Ex 2", "u3", samples=[1.0, 1.1], paper=1.05, verdict="reproduced", section="3")


def test_comparison_says_indistinguishable_inside_the_noise():
    t = table()
    rng = np.random.default_rng(0)
    base = rng.uniform(18, 28, size=5)
    noisy = base * np.array([0.9, 1.25, 0.95, 1.15, 1.0])  # +6 % on average, spread ±15 %
    row = t.comparison(
        "Fig 8",
        "T(SAG)/T(DSAG+LB)",
        numerator=noisy,
        denominator=base,
        expected="greater",
        paper_range=(1.2, 1.3),
        section="8",
    )
    assert row.outcome == "indistinguishable" and row.verdict == "not reproduced"
    assert row.ci_low < 1 < row.ci_high
    row = t.comparison(
        "Fig 8",
        "T(SAG)/T(DSAG)",
        numerator=base * 1.3,
        denominator=base,
        expected="greater",
        section="8",
    )
    assert row.outcome == "greater" and row.verdict == "reproduced"
    with pytest.raises(ValueError, match="interval says"):
        t.comparison(
            "Fig 8",
            "x",
            numerator=base,
            denominator=base * 1.3,
            expected="greater",
            verdict="reproduced",
            section="8",
        )


def test_check_claim_catches_inconsistent_rows():
    good = Claim(
        notebook="n",
        paper="dsag",
        item="i",
        quantity="q",
        kind="interval",
        verdict="reproduced within CI",
        paper_value=1.0,
        paper_low=1.0,
        paper_high=1.0,
        our_value=1.1,
        ci_low=0.9,
        ci_high=1.3,
        section="s",
    )
    assert check_claim(good) == []
    assert check_claim(Claim(**{**good.__dict__, "verdict": "great"}))
    assert check_claim(Claim(**{**good.__dict__, "ci_low": 1.05}))  # paper outside CI
    assert check_claim(Claim(**{**good.__dict__, "our_value": 2.0}))  # ours outside own CI
    assert check_claim(Claim(**{**good.__dict__, "section": ""}))
    assert set(VERDICTS) >= {"reproduced", "calibrated", "not attempted"}


def test_claims_round_trip_through_csv(tmp_path):
    t = table()
    t.exact("Thm 1", "r_CR", paper=4 / 15, ours=4 / 15, section="1", headline=True)
    t.interval("Ex 2", "delay", samples=[47.0, 48.0, 49.0], paper=47.93, section="3")
    t.qualitative("Fig 2", "best", paper="RS", ours="RS", verdict="reproduced", section="7")
    t.write(tmp_path)
    back = read_claims(tmp_path / "claims.csv")
    assert [c.key for c in back] == [c.key for c in t.rows]
    for a, b in zip(back, t.rows):
        for name, value in a.__dict__.items():
            other = b.__dict__[name]
            if isinstance(value, float) and math.isnan(value):
                assert math.isnan(other), name
            else:
                assert (
                    value == pytest.approx(other, rel=1e-9)
                    if isinstance(value, float)
                    else value == other
                ), name
    assert "Thm 1" in render_readme_table(back)


# -- the faithful run's claims (data/claims/, written by `make figures`) -------------------

FAITHFUL = sorted(CLAIMS_DIR.glob("*.csv"))


def test_every_notebook_has_faithful_claims():
    assert {p.stem for p in FAITHFUL} == {p.stem for p in discover_notebooks()}, (
        "run `make figures` to record every notebook's faithful claims in data/claims/"
    )


@pytest.mark.parametrize("path", FAITHFUL, ids=[p.stem for p in FAITHFUL])
def test_faithful_claims_are_consistent(path):
    claims = read_claims(path)
    assert claims and {c.mode for c in claims} == {"faithful"}
    assert {c.notebook for c in claims} == {path.stem}
    problems = [(c.item, c.quantity, p) for c in claims for p in check_claim(c)]
    assert not problems, problems
    for c in claims:
        if c.kind in ("interval", "comparison"):
            assert c.uncertainty, (c.key, "no uncertainty described")
            if "seeds" in c.uncertainty:
                assert c.n_seeds >= 5, (c.key, f"faithful runs use >= 5 seeds, got {c.n_seeds}")
    assert len({c.key for c in claims}) == len(claims)


def test_faithful_claims_pin_the_exact_numbers():
    from test_notebooks import assert_exact_claims

    for path in FAITHFUL:
        assert_exact_claims(read_claims(path), path.stem)


def test_readme_table_is_generated_from_data_claims():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert render_readme_table(read_claims(FAITHFUL)) in readme, (
        "README's claims block is stale: run `python -m codedlib.claims readme`"
    )


# -- repository hygiene ---------------------------------------------------------------------


def _tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return [REPO_ROOT / line for line in out.stdout.splitlines()]


def test_no_tracked_file_points_outside_the_repository():
    outside = [
        "../" + "shared",
        "shared/" + "papers",
        "papers/" + "1-",
        "papers/" + "2-",
        "/" + "work/",
        "/" + "root/",
        "/" + "home/",
    ]
    offenders = []
    for path in _tracked_files():
        if not path.is_file() or path.suffix in {".png", ".pdf"}:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        offenders += [(str(path.relative_to(REPO_ROOT)), s) for s in outside if s in text]
    assert not offenders, offenders


def test_licence_and_citation_metadata():
    import tomllib

    assert (REPO_ROOT / "LICENSE").read_text().startswith("MIT License")
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    cff = (REPO_ROOT / "CITATION.cff").read_text(encoding="utf-8")
    import codedlib

    assert project["dynamic"] == ["version"]  # single source: codedlib.__version__
    assert "cff-version: 1.2.0" in cff and f'version: "{codedlib.__version__}"' in cff
    bib = (REPO_ROOT / "references.bib").read_text(encoding="utf-8")
    from codedlib.book import bibliography
    from codedlib.claims import PAPERS

    entries = bibliography(REPO_ROOT / "references.bib")
    for key, _, _ in PAPERS.values():
        if key:
            assert key in entries and entries[key].get("eprint") or entries[key].get("doi"), key
    assert bib.count("@") == len(entries)
