"""Validation helpers and the deterministic figure writer."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from codedlib._validation import as_generator, check_array, check_int, check_real  # noqa: E402
from codedlib.plots import save_figure, set_style  # noqa: E402


def test_check_int_messages():
    assert check_int("n", 3, low=1) == 3
    assert check_int("n", 4.0, low=1) == 4
    with pytest.raises(ValueError, match=r"s must satisfy 0 <= s <= 2, got s=5"):
        check_int("s", 5, low=0, high=2)
    with pytest.raises(ValueError, match=r"n must be an integer, got n=2.5"):
        check_int("n", 2.5)
    with pytest.raises(ValueError, match=r"n must be an integer"):
        check_int("n", True)


def test_check_real_messages():
    assert check_real("xi", 1.5, low=1, low_open=True) == 1.5
    with pytest.raises(ValueError, match=r"xi must satisfy 1 < xi, got xi=1"):
        check_real("xi", 1.0, low=1, low_open=True)
    with pytest.raises(ValueError, match="finite"):
        check_real("t0", float("nan"))
    assert check_real("t", np.inf, low=0, high=np.inf) == np.inf
    with pytest.raises(ValueError, match="finite"):
        check_real("t", np.inf, low=0)


def test_check_array_and_generator():
    with pytest.raises(ValueError, match=r"X must be a 2-d array"):
        check_array("X", [1, 2], ndim=2)
    with pytest.raises(ValueError, match=r"y must have shape"):
        check_array("y", np.ones(3), shape=(4,))
    a = as_generator(5).random(3)
    b = as_generator(np.random.default_rng(5)).random(3)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="rng must be"):
        as_generator("seed")


def _figure():
    set_style()
    fig, ax = plt.subplots()
    ax.plot(np.arange(10), np.arange(10) ** 2, label="x²")
    ax.legend()
    return fig


def test_save_figure_is_byte_deterministic(tmp_path):
    first = [p.read_bytes() for p in save_figure(_figure(), "f", tmp_path / "a")]
    second = [p.read_bytes() for p in save_figure(_figure(), "f", tmp_path / "b")]
    assert len(first) == 2 and first == second
    assert b"CreationDate" not in first[1]
    plt.close("all")


def test_save_figure_none_and_bad_name(tmp_path):
    assert save_figure(_figure(), "f", None) == []
    with pytest.raises(ValueError, match="plain file stem"):
        save_figure(_figure(), "a/b", tmp_path)
    plt.close("all")


def _write_notebook(
    path, body, parameters="interactive = True\nquick = False\nseed = 0\nfig_dir = None\n"
):
    import nbformat

    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell(parameters)
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(body)]
    nbformat.write(nb, path)
    return path


def test_runner_injects_parameters_and_fails_on_cell_error(tmp_path):
    import papermill as pm

    from codedlib.notebooks import notebook_has_outputs, parameters_cell, run_notebook

    body = (
        "import matplotlib.pyplot as plt\nfrom codedlib.plots import save_figure\n"
        "assert quick is True and interactive is False\n"
        "fig, ax = plt.subplots(); ax.plot([0, seed])\nsave_figure(fig, 'probe', fig_dir)\n"
    )
    good = _write_notebook(tmp_path / "good.ipynb", body)
    assert parameters_cell(good)["seed"] == 0 and not notebook_has_outputs(good)
    out = run_notebook(
        good,
        quick=True,
        interactive=False,
        parameters={"seed": 3},
        fig_root=tmp_path / "figs",
        out_dir=tmp_path / "out",
        timeout=120,
    )
    assert notebook_has_outputs(out)
    assert (tmp_path / "figs" / "good" / "probe.png").exists()
    bad = _write_notebook(tmp_path / "bad.ipynb", "raise RuntimeError('boom')")
    with pytest.raises(pm.PapermillExecutionError, match="boom"):
        run_notebook(bad, quick=True, fig_root=None, out_dir=tmp_path / "out", timeout=120)


def test_runner_rejects_malformed_parameters(tmp_path):
    from codedlib.notebooks import parameters_cell, run_notebook

    nb = _write_notebook(tmp_path / "p.ipynb", "pass", parameters="quick = False\nx = f()\n")
    with pytest.raises(ValueError, match="not a literal"):
        parameters_cell(nb)
    nb = _write_notebook(tmp_path / "q.ipynb", "pass", parameters="quick = False\n")
    with pytest.raises(ValueError, match="lacks interactive, seed, fig_dir"):
        parameters_cell(nb)
    ok = _write_notebook(tmp_path / "r.ipynb", "pass")
    with pytest.raises(ValueError, match="has no parameter 'n'"):
        run_notebook(ok, parameters={"n": 3}, fig_root=None, out_dir=tmp_path)


def test_the_version_is_written_once():
    """pyproject reads the version from codedlib.__version__; CITATION.cff quotes the same."""
    import re
    from importlib.metadata import version

    import codedlib
    from codedlib.notebooks import REPO_ROOT

    pyproject = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject and not re.search(
        r'^version\s*=\s*"', pyproject, re.M
    )
    assert version("codedlib") == codedlib.__version__
    cff = (REPO_ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r'^version:\s*"?([^"\n]+)"?', cff, re.M).group(1) == codedlib.__version__


def test_publish_keeps_machine_dependent_numbers_out_of_data_claims(tmp_path):
    """Two runs that differ only in a timing publish the same file and the same README block;
    the run's own claims.csv keeps the numbers."""
    import dataclasses
    import math

    from codedlib.claims import ClaimsTable, read_claims, render_readme_table
    from codedlib.notebooks import publish_claims

    published = []
    for run, slow in enumerate(([18.0, 19.0, 20.0], [17.0, 22.0, 21.0])):
        table = ClaimsTable("nb", paper="reed-solomon")
        row = table.comparison(
            "Alg. 3",
            "decoding time ratio",
            numerator=slow,
            denominator=[1.0, 1.05, 0.95],
            expected="greater",
            paper_text="faster",
            section="3",
            headline=True,
        )
        table.rows = [dataclasses.replace(row, machine_dependent=True)]
        table.write(tmp_path / f"run{run}" / "nb")
        path = publish_claims(tmp_path / f"run{run}", "nb", tmp_path / f"data{run}")
        published.append(path.read_text(encoding="utf-8"))
        (mine,) = read_claims(path)
        (measured,) = read_claims(tmp_path / f"run{run}" / "nb" / "claims.csv")
        assert math.isnan(mine.our_value) and math.isnan(mine.ci_low) and math.isnan(mine.ci_high)
        assert measured.our_value == pytest.approx(row.our_value)
        assert (mine.verdict, mine.outcome, mine.machine_dependent) == (
            row.verdict,
            "greater",
            True,
        )
    assert published[0] == published[1]
    assert render_readme_table(read_claims(tmp_path / "data0")) == render_readme_table(
        read_claims(tmp_path / "data1")
    )


def test_jobs_run_notebooks_at_once_longest_first_and_report_every_failure(tmp_path, monkeypatch):
    import json
    import os
    import threading
    from pathlib import Path

    import codedlib.notebooks as nbmod

    nbs = nbmod.discover_notebooks()[:3]
    started, running, peak = [], set(), []
    lock, both = threading.Lock(), threading.Barrier(2, timeout=30)

    def fake_run(nb, fig_root, **_):
        assert Path(nb).is_file() and Path(fig_root).is_absolute()
        os.chdir(tmp_path)  # papermill runs a notebook from its folder: the cwd moves
        with lock:
            started.append(Path(nb).stem)
            running.add(nb)
            peak.append(len(running))
        if len(started) <= 2:
            both.wait()  # the first two must be running together
        with lock:
            running.discard(nb)
        if Path(nb) == nbs[1]:
            raise RuntimeError("cell failed")

    monkeypatch.setattr(nbmod, "run_notebook", fake_run)
    monkeypatch.chdir(nbmod.REPO_ROOT)  # relative paths, as `make figures` gives them
    out = tmp_path / "nb"
    out.mkdir()
    (out / "durations-quick.json").write_text(json.dumps({nbs[0].stem: 1, nbs[2].stem: 9}))
    rel = [str(nb.relative_to(nbmod.REPO_ROOT)) for nb in nbs]
    argv = [*rel, "--quick", "--fig-root", "build/f", "--out", str(out)]
    assert nbmod.main([*argv, "--jobs", "2"]) == 1  # the failure is reported, the rest ran
    assert started[2] == nbs[0].stem  # unknown (nbs[1]) and 9 s (nbs[2]) first, then 1 s
    assert set(started[:2]) == {nbs[1].stem, nbs[2].stem} and max(peak) == 2
    recorded = json.loads((out / "durations-quick.json").read_text())
    assert set(recorded) == {nbs[0].stem, nbs[2].stem}  # a failed run records no duration
    with pytest.raises(SystemExit):
        nbmod.main([*argv, "--jobs", "0"])
