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
    magnitude_factor,
    main,
    mean_interval,
    proportion_interval,
    ratio_interval,
    read_claims,
    render_readme_table,
    tally,
    update_readme,
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
    with pytest.raises(ValueError, match="at least 2 independent replicas"):
        mean_interval([2.0])
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


_GAIN = {"uncertainty": "t", "paper_range": (0.6, 0.7), "null": 1.0, "section": "8"}
_SIM = {"samples": [10.0, 10.2, 9.8, 10.1, 9.9], "paper": 10.8, "section": "4"}  # 10 [9.8, 10.2]
_FINE, _FAR = [47.0, 48.0, 49.0, 48.5, 47.5], [147.0, 148.0, 149.0, 148.5, 147.5]

#: interval rows: (the verdict, or "raises <match>", the row's keywords)
INTERVAL_CASES = {
    "inside the CI": ("reproduced within CI", {"samples": _FINE, "paper": 47.93, "section": "3"}),
    "outside, with a reason": (
        "not reproduced",
        {"samples": _FAR, "paper": 129.96, "reason": "queue", "section": "3"},
    ),
    "a stated verdict the CI misses": (
        "raises misses",
        {"samples": _FAR[:3], "paper": 129.96, "verdict": "reproduced within CI", "section": "3"},
    ),
    "reproduced needs an rtol": (
        "raises within the row's rtol",
        {"samples": [1.0, 1.1], "paper": 1.05, "verdict": "reproduced", "section": "3"},
    ),
    # the paper's range and the null both inside: 0.84 [0.69, 1.03] against 0.6-0.7, null 1
    "paper and null inside": (
        "inconclusive",
        {"estimate": (0.84, 0.69, 1.03), "reason": "holds 1", **_GAIN},
    ),
    "stated reproduced, null inside": (
        "raises also holds the null",
        {"estimate": (0.84, 0.69, 1.03), "verdict": "reproduced within CI", **_GAIN},
    ),
    "stated inconclusive, null outside": (
        "raises inconclusive needs",
        {"estimate": (0.84, 0.69, 0.98), "verdict": "inconclusive", "reason": "r", **_GAIN},
    ),
    "stated inconclusive, paper outside": (
        "raises inconclusive needs",
        {"estimate": (0.84, 0.75, 1.03), "verdict": "inconclusive", "reason": "r", **_GAIN},
    ),
    "paper inside, null outside": (
        "reproduced within CI",
        {"estimate": (0.84, 0.69, 0.98), **_GAIN},
    ),
    # simulation against simulation: the paper says 10.8
    "within rtol 10 %": ("reproduced", {"rtol": 0.1, **_SIM}),
    "8 % off, rtol 5 %": ("raises needs a reason", {"rtol": 0.05, **_SIM}),
    "negative rtol": ("raises rtol", {"rtol": -0.1, **_SIM}),
    # refusals: one replica, infinite bounds, NaN, levels
    "one replica": (
        "raises at least 2 independent replicas",
        {"samples": [1.0], "paper": 1e9, "section": "3"},
    ),
    "infinite estimate": (
        r"raises estimate\[1\]",
        {"estimate": (1.0, -math.inf, math.inf), "uncertainty": "x", "section": "3"},
    ),
    "NaN paper": ("raises paper", {"samples": [1.0, 2.0], "paper": math.nan, "section": "3"}),
    "NaN sample": ("raises samples", {"samples": [1.0, math.nan], "paper": 1.0, "section": "3"}),
    **{
        f"level {bad}": (
            "raises level",
            {"estimate": (1.0, 0.5, 1.5), "uncertainty": "x", "level": bad, "section": "3"},
        )
        for bad in (1.5, 0, 1, -0.1, math.nan)
    },
}


@pytest.mark.parametrize("case", list(INTERVAL_CASES))
def test_interval_verdicts_follow_the_interval(case):
    expected, kw = INTERVAL_CASES[case]
    t = table()
    if expected.startswith("raises "):
        with pytest.raises(ValueError, match=expected.removeprefix("raises ")):
            t.interval("Ex 2", "delay", **kw)
        assert not t.rows, "a refused row is not added"
        return
    row = t.interval("Ex 2", "delay", **kw)
    assert row.verdict == expected
    assert row.n_seeds == len(kw.get("samples", [])) or "estimate" in kw


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
    # the interval holds both 1 (no effect) and the paper's 1.2-1.3: we cannot tell
    assert row.outcome == "indistinguishable" and row.verdict == "inconclusive"
    assert row.ci_low < 1 < row.ci_high and row.ci_low < 1.2 < row.ci_high
    row = t.comparison(
        "Fig 8",
        "T(SAG)/T(DSAG+LB) far",
        numerator=noisy,
        denominator=base,
        expected="greater",
        paper=5.0,
        section="8",
    )
    assert row.verdict == "not reproduced" and "indistinguishable" in row.reason
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


# -- refusals: one replica, levels, counts, NaN --------------------------------------------


def test_one_replica_and_bad_levels_are_refused():
    with pytest.raises(ValueError, match="numerator: an interval needs at least 2"):
        ratio_interval([2.0], [1.0])
    t = table()
    with pytest.raises(ValueError, match="at least 2"):
        t.comparison("F", "r", numerator=[2.0], denominator=[1.0], expected="greater", section="8")
    for bad in (1.5, 0, 1, -0.1, math.nan):
        with pytest.raises(ValueError, match="level"):
            proportion_interval(1, 5, level=bad)
        with pytest.raises(ValueError, match="level"):
            ratio_interval([2.0, 3.0], [1.0, 1.0], level=bad)
    with pytest.raises(ValueError, match="successes"):
        proportion_interval(2.5, 5)
    with pytest.raises(ValueError, match="trials"):
        proportion_interval(2, 5.5)
    assert proportion_interval(np.int64(2), 5.0)[0] == 0.4  # whole numbers of any type
    assert not [r for r in t.rows]


def test_nan_numbers_are_refused_at_the_row():
    t = table()
    with pytest.raises(ValueError, match="ours"):
        t.exact("Thm 1", "r", paper=1.0, ours=math.nan, section="1")
    with pytest.raises(ValueError, match="paper"):
        t.exact("Thm 1", "r", paper=math.nan, ours=1.0, section="1")
    with pytest.raises(ValueError, match=r"paper_range\[1\]"):
        t.exact("Thm 1", "r", paper_range=(1.0, math.inf), ours=1.0, section="1")
    with pytest.raises(ValueError, match=r"paper_range\[0\]"):
        t.comparison(
            "F",
            "r",
            numerator=[2, 3],
            denominator=[1, 1],
            expected="greater",
            paper_range=(math.nan, 2.0),
            section="8",
        )
    assert not t.rows
    nan_row = Claim(
        notebook="n",
        paper="dsag",
        item="i",
        quantity="q",
        kind="exact",
        verdict="reproduced",
        paper_value=1.0,
        paper_low=1.0,
        paper_high=1.0,
        section="s",
    )
    assert any("not a finite number" in p for p in check_claim(nan_row))


# -- the new verdicts -----------------------------------------------------------------------


def test_magnitude_factor_compares_log_effects():
    assert magnitude_factor(0.94, 0.6, 0.7) == pytest.approx(math.log(0.7) / math.log(0.94))
    assert magnitude_factor(2.0, 4.0, 4.0) == pytest.approx(2.0)
    assert magnitude_factor(0.5, 0.25, 0.25) == pytest.approx(2.0)  # same either side of 1
    assert magnitude_factor(8.0, 2.0, 4.0) == pytest.approx(1.5)
    assert magnitude_factor(3.0, 2.0, 4.0) == 1.0
    assert magnitude_factor(1.0, 2.0, 2.0) == math.inf


def test_direction_only_when_the_magnitude_is_off_more_than_twice():
    t = table()
    base = np.random.default_rng(1).uniform(10, 20, size=5)
    jitter = np.array([1.0, 1.01, 0.99, 1.005, 0.995])
    # DSAG-LB / DSAG: 6 % lower against the paper's 30-40 % (ratio 0.6-0.7)
    row = t.comparison(
        "Fig 8",
        "LB gain",
        numerator=base * 0.94 * jitter,
        denominator=base,
        expected="less",
        paper_range=(0.6, 0.7),
        section="8",
    )
    assert row.outcome == "less" and row.verdict == "direction only"
    assert "off by 5.8×" in row.reason
    # 0.94 against 0.9: off by 1.7× in |log ratio|: a near miss
    row = t.comparison(
        "Fig 8",
        "LB gain near",
        numerator=base * 0.94 * jitter,
        denominator=base,
        expected="less",
        paper=0.9,
        section="8",
    )
    assert row.verdict == "partly"
    with pytest.raises(ValueError, match="only 1.7"):
        t.comparison(
            "Fig 8",
            "LB gain near",
            numerator=base * 0.94 * jitter,
            denominator=base,
            expected="less",
            paper=0.9,
            verdict="direction only",
            reason="r",
            section="8",
        )
    with pytest.raises(ValueError, match="interval says"):  # the direction must hold
        t.comparison(
            "Fig 8",
            "rev",
            numerator=base * 1.2 * jitter,
            denominator=base,
            expected="less",
            paper=0.5,
            verdict="direction only",
            reason="r",
            section="8",
        )


def test_a_one_sided_paper_range(tmp_path):
    t = table()
    base = np.random.default_rng(2).uniform(10, 20, size=5)
    jitter = np.array([1.0, 1.01, 0.99, 1.005, 0.995])
    row = t.comparison(
        "Sec. I",
        "uniform / optimal",
        numerator=base * 3 * jitter,
        denominator=base,
        expected="greater",
        paper_range=(2.5, math.inf),
        section="1",
    )
    assert row.verdict == "reproduced within CI" and row.paper_display() == "> 2.5 ×"
    row = t.comparison(
        "Sec. I",
        "uniform / optimal 2",
        numerator=base * 2 * jitter,
        denominator=base,
        expected="greater",
        paper_range=(2.5, math.inf),
        section="1",
    )
    assert row.verdict == "partly"  # log 2 against log 2.5: off by 1.3×
    t.write(tmp_path)
    assert read_claims(tmp_path / "claims.csv")[0].paper_high == math.inf
    with pytest.raises(ValueError, match=r"paper_range\[0\]"):
        t.comparison(
            "Sec. I",
            "x",
            numerator=base,
            denominator=base,
            expected="greater",
            paper_range=(-math.inf, math.inf),
            section="1",
        )


def test_simulation_against_simulation_within_a_stated_rtol():
    t = table()
    samples = [10.0, 10.2, 9.8, 10.1, 9.9]  # 10 [9.8, 10.2]; the paper's simulation says 10.8
    row = t.interval("Fig 4", "delay", samples=samples, paper=10.8, rtol=0.1, section="4")
    assert row.rtol == 0.1 and "rtol = 0.1" in row.uncertainty  # verdicts: INTERVAL_CASES
    stated = Claim(**{**row.__dict__, "rtol": 0.05})
    assert any("rtol=0.05" in p for p in check_claim(stated))


def test_library_callers_never_turn_one_replica_into_an_interval():
    from codedlib.cluster import ClusterModel
    from codedlib.experiments import codedreduce, shootout

    for seeds in (1, [3]):
        with pytest.raises(ValueError, match="seeds must (satisfy 2 <= seeds|name at least 2)"):
            shootout.ranking(ClusterModel(n_workers=6), seeds=seeds, max_iter=10)
    from codedlib.replicate import over_seeds

    one = codedreduce.fig2_summary(
        over_seeds(codedreduce.fig2_measure, [0], n_iterations=20)
    ).summary
    assert one["time_ci_low"].isna().all() and one["speedup_ci_high"].isna().all()
    assert one["mean_iteration_time"].notna().all()


# -- tallies: paper rows counted, derived and checks apart, headlines first ---------------


def mixed_table():
    t = table()
    t.exact("Eq 5", "check", paper=2, ours=2, basis="check", section="1")
    t.exact("Eq 6", "derived", paper=3, ours=4, basis="derived", reason="ours", section="1")
    t.exact("Eq 7", "derived ok", paper=3, ours=3, basis="derived", section="1")
    t.exact("Fig 1", "printed", paper=1, ours=1, section="1")
    t.exact("Abstract", "headline", paper=5, ours=5, headline=True, section="1")
    return t


def test_tally_counts_paper_rows_and_shows_the_rest_apart():
    t = mixed_table()
    tl = tally(t.rows)
    assert tl["paper rows"] == 2 and tl["reproduced"] == 2 and tl["not reproduced"] == 0
    assert tl["check"] == "1, all pass"
    assert tl["derived"] == "2: 1 reproduced, 1 not reproduced"
    assert t.summary().startswith(
        "paper rows 2: 2 reproduced · derived from the paper's numbers 2: 1"
    )
    assert t.summary().endswith("internal checks 1, all pass")
    frame = t.display_frame()
    assert list(frame["quantity"]) == ["headline", "printed", "derived", "derived ok", "check"]
    assert frame["basis"].iloc[0] == "paper (headline)"
    block = render_readme_table(t.rows)
    # headline rows lead the block, the tally row is the same function's output
    assert block.index("| Abstract |") < block.index("| Paper rows |")
    assert "| 2 | 2 | · | · | · | · | · | · | · | · | 2: 1 reproduced, 1 not reproduced " in block
    assert "| 1, all pass |" in block
    with pytest.raises(ValueError, match="headline"):
        t.exact("Abstract", "h2", paper=5, ours=5, headline=True, basis="derived", section="1")


def test_book_tally_is_the_readme_tally():
    from codedlib.book import _claims_html

    page = _claims_html(mixed_table().rows)
    assert "<th>paper rows</th>" in page and "<td>1, all pass</td>" in page
    assert "<td>2: 1 reproduced, 1 not reproduced</td>" in page
    assert page.index("headline") < page.index("printed") < page.index("derived ok")


def test_render_readme_table_names_an_unknown_paper():
    row = mixed_table().rows[0]
    with pytest.raises(ValueError, match="bogus"):
        render_readme_table([Claim(**{**row.__dict__, "paper": "bogus"})])


# -- reading and writing: errors name the file, row and column; writes are atomic ---------


def test_read_claims_names_file_line_and_column(tmp_path):
    path = mixed_table().write(tmp_path)
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    cells = lines[3].split(",")
    cells[header.index("our_value")] = "abc"
    path.write_text("\n".join([*lines[:3], ",".join(cells), *lines[4:]]) + "\n")
    with pytest.raises(ValueError, match=r"claims\.csv, line 4, column 'our_value': 'abc'"):
        read_claims(path)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match="empty.csv: not a claims CSV"):
        read_claims(tmp_path / "empty.csv")


def test_writes_are_atomic(tmp_path, monkeypatch):
    import codedlib.atomic

    t = mixed_table()
    path = t.write(tmp_path)
    before = path.read_text()
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{render_readme_table(t.rows)}\nend\n")
    t.exact("Fig 2", "new", paper=1, ours=1, section="1")
    t.write(tmp_path / "new")

    def killed(*args):
        raise OSError("killed mid-write")

    monkeypatch.setattr(codedlib.atomic.os, "replace", killed)
    readme_before = readme.read_text()
    with pytest.raises(OSError, match="killed"):
        t.write(tmp_path)
    with pytest.raises(OSError, match="killed"):
        update_readme(readme, tmp_path / "new")
    assert path.read_text() == before and readme.read_text() == readme_before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "claims.csv", "new"]


def test_cli_refuses_an_empty_or_missing_source(tmp_path, capsys):
    t = mixed_table()
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{render_readme_table(t.rows[:1])}\nend\n")
    before = readme.read_text()
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.csv").write_text("notebook,item\n1,2\n")
    for source, message in (
        (tmp_path / "empty", "no claims rows"),
        (tmp_path / "typo", "no such file or folder"),
        (tmp_path / "bad", "lacks columns"),
    ):
        with pytest.raises(SystemExit) as exit_:
            main(["readme", "--claims", str(source), "--readme", str(readme)])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "--claims" in err and message in err and "Traceback" not in err
        assert readme.read_text() == before
    with pytest.raises(ValueError, match="no claims rows"):
        update_readme(readme, tmp_path / "empty")
    assert readme.read_text() == before
    t.write(tmp_path / "good")
    assert main(["readme", "--claims", str(tmp_path / "good"), "--readme", str(readme)]) == 0
    assert "updated" in capsys.readouterr().out and readme.read_text() != before


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


def test_committed_machine_dependent_row_keeps_its_verdict_without_numbers():
    row = table().interval(
        "Sec. X", "a wall-clock time", samples=[1.0, 1.2, 1.1], paper=1.1, section="s"
    )
    blank = dict(our_value=math.nan, ci_low=math.nan, ci_high=math.nan)
    assert check_claim(Claim(**{**row.__dict__, **blank, "machine_dependent": True})) == []
    assert check_claim(Claim(**{**row.__dict__, **blank}))  # any other row needs its numbers
