"""Every notebook: a valid parameters cell, no committed outputs, and a clean quick run whose
figures are inline and on disk and whose claims are consistent and assert the papers' exact
numbers (``tests/expected_claims/<notebook>.json``)."""

import json
import os
import shutil
import time
from html import unescape
from pathlib import Path

import pytest

from codedlib.atomic import atomic_write
from codedlib.claims import check_claim, read_claims
from codedlib.notebooks import (
    REPO_ROOT,
    discover_notebooks,
    inline_figures,
    notebook_has_outputs,
    parameters_cell,
    run_notebook,
)

NOTEBOOKS = discover_notebooks()
IDS = [p.stem for p in NOTEBOOKS]
EXPECTED_DIR = Path(__file__).parent / "expected_claims"
FAITHFUL_DIR = REPO_ROOT / "data" / "claims"


def expected_claims(stem: str) -> dict:
    path = EXPECTED_DIR / f"{stem}.json"
    assert path.exists(), f"{path} is missing: every notebook lists the claims the tests pin"
    return json.loads(path.read_text(encoding="utf-8"))


def find_claim(claims, item, quantity):
    rows = [c for c in claims if c.item == item and c.quantity == quantity]
    assert len(rows) == 1, f"expected one claim {item!r} / {quantity!r}, found {len(rows)}"
    return rows[0]


def assert_exact_claims(claims, stem):
    """The papers' exact numbers, asserted exactly (value within rtol, or text equal)."""
    expected = expected_claims(stem)
    assert expected["exact"], f"{stem}: no exact claim pinned"
    for spec in expected["exact"]:
        row = find_claim(claims, spec["item"], spec["quantity"])
        assert row.kind == "exact", (spec, row.kind)
        if "value" in spec:
            assert row.our_value == pytest.approx(
                spec["value"], rel=spec.get("rtol", 1e-9), abs=spec.get("atol", 0.0)
            ), (spec, row.our_value)
        if "text" in spec:
            assert row.our_text == spec["text"], (spec, row.our_text)
        if "verdict" in spec:
            assert row.verdict == spec["verdict"], (spec, row.verdict)


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_committed_without_outputs(path):
    assert not notebook_has_outputs(path), f"{path.name} carries outputs: strip them"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_parameters_cell(path):
    params = parameters_cell(path)
    assert params["quick"] is False and params["interactive"] is True
    assert params["fig_dir"] is None and isinstance(params["seed"], int)


@pytest.fixture(scope="session")
def quick_runs(tmp_path_factory):
    """This worker's folder for its quick runs."""
    return tmp_path_factory.getbasetemp() / "quick-runs"


@pytest.fixture(scope="session")
def shared_runs(tmp_path_factory):
    """One folder all pytest-xdist workers of this session share: each finished quick run is
    published there, and the book test builds from it (whichever worker ran each notebook)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = tmp_path_factory.getbasetemp()
    return (base.parent if worker else base) / "shared-quick-runs"


def run_quick(path, root):
    return run_notebook(
        path,
        quick=True,
        interactive=True,
        fig_root=root / "figures",
        out_dir=root / "executed",
        timeout=300,
    )


def publish_run(path, root, shared):
    """Copy a finished quick run (figures first, then the notebook) into the shared folder; a
    notebook present there means its run is complete."""
    target = shared / "figures" / path.stem
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(root / "figures" / path.stem, target)
    (shared / "executed").mkdir(parents=True, exist_ok=True)
    with atomic_write(shared / "executed" / path.name, "wb") as fh:
        fh.write((root / "executed" / path.name).read_bytes())


@pytest.mark.notebook
@pytest.mark.timeout(900)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_quick_run(path, quick_runs, shared_runs):
    """Quick sizes, widgets built too; any cell error fails. Every saved figure is shown
    inline exactly once; the claims the run wrote are consistent, pin the papers' exact
    numbers, and are the same rows as the faithful run's in data/claims/."""
    running = shared_runs / "running" / path.stem
    running.parent.mkdir(parents=True, exist_ok=True)
    running.touch()
    try:
        executed = run_quick(path, quick_runs)
        publish_run(path, quick_runs, shared_runs)
    finally:
        running.unlink()
    figures = quick_runs / "figures" / path.stem
    pngs = sorted(p.stem for p in figures.glob("*.png"))
    assert pngs, f"{path.name} wrote no figure"
    assert pngs == sorted(p.stem for p in figures.glob("*.pdf"))
    shown = inline_figures(executed)
    assert sorted(name for name in shown if name) == pngs, "every saved figure inline, once"
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    unlisted = [stem for stem in pngs if f"`{stem}`" not in readme]
    assert not unlisted, f"README's figure map lacks {unlisted}"

    claims = read_claims(figures / "claims.csv")
    assert claims, f"{path.name} recorded no claim"
    assert {c.mode for c in claims} == {"quick"}
    assert {c.notebook for c in claims} == {path.stem}
    problems = [(c.item, c.quantity, p) for c in claims for p in check_claim(c)]
    assert not problems, problems
    assert_exact_claims(claims, path.stem)
    faithful = FAITHFUL_DIR / f"{path.stem}.csv"
    if faithful.exists():
        assert {c.key for c in claims} == {c.key for c in read_claims(faithful)}, (
            "quick and faithful runs must record the same claims (re-run make figures)"
        )

    # the closing section renders the table from the rows (the last verdict cell is shown)
    cells = json.loads(Path(executed).read_text(encoding="utf-8"))["cells"]
    html = "".join(
        "".join(o.get("data", {}).get("text/html", "")) for c in cells for o in c.get("outputs", [])
    )
    for c in claims:
        assert c.quantity in unescape(html), f"claim {c.quantity!r} not rendered in the notebook"


def _html_ids(text: str) -> set[str]:
    import re

    return set(re.findall(r'\bid="([^"]+)"', text))


@pytest.mark.notebook
@pytest.mark.timeout(1800)
def test_book_from_quick_runs(quick_runs, shared_runs):
    """The static book: a page per notebook, every inline figure embedded in its page, every
    internal link and anchor resolving, the claims table and the figure map on the index."""
    import re
    from urllib.parse import unquote

    from codedlib.book import build_book

    for path in NOTEBOOKS:  # reuse this session's quick runs, from whichever worker
        done = shared_runs / "executed" / path.name
        deadline = time.monotonic() + 900
        while (shared_runs / "running" / path.stem).exists() and time.monotonic() < deadline:
            time.sleep(2)  # another worker is running it
        if not done.exists():
            run_quick(path, quick_runs)
            publish_run(path, quick_runs, shared_runs)
    quick_runs = shared_runs
    out = quick_runs / "book"
    index = build_book(quick_runs / "executed", out, fig_root=quick_runs / "figures")
    pages = {p.name: p.read_text(encoding="utf-8") for p in out.glob("*.html")}
    assert set(pages) == {"index.html"} | {f"{p.stem}.html" for p in NOTEBOOKS}
    for path in NOTEBOOKS:
        page = pages[f"{path.stem}.html"]
        figures = inline_figures(quick_runs / "executed" / path.name)
        embedded = re.findall(r'<img[^>]+src="data:image/png;base64,', page)
        assert len(embedded) >= len(figures) > 0, path.stem
        assert not re.findall(r'<img[^>]+src="(?!data:)', page), "figures must be embedded"
        for name in figures:
            assert f'id="fig-{name}"' in page
    index_html = pages["index.html"]
    for c in read_claims([quick_runs / "figures" / p.stem / "claims.csv" for p in NOTEBOOKS]):
        assert c.verdict in index_html
    checked = 0
    for name, text in pages.items():
        for href in re.findall(r'href="([^"]+)"', text):
            if re.match(r"^[a-z]+:", href):
                continue  # external (https:, mailto:)
            target, _, fragment = href.partition("#")
            target = target or name
            assert target in pages, f"{name}: broken link {href}"
            if fragment:  # a browser matches the raw fragment, then its percent-decoding
                ids = _html_ids(pages[target])
                assert fragment in ids or unquote(fragment) in ids, f"{name}: broken anchor {href}"
            checked += 1
    assert checked > len(NOTEBOOKS)
    assert index.name == "index.html"
