"""Explorers keep the values they are given, recompute once per change, redraw in place and
show one error style; no figure of theirs ever reaches pyplot (see codedlib.widgets._common)."""

import functools
import math

import pytest

pytest.importorskip("ipywidgets")

import ipywidgets as W  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

from codedlib.widgets import _common  # noqa: E402


def paper_widget_modules():
    """``codedlib.widgets``' paper modules: those declaring ``WIDGET_TESTS``."""
    import importlib
    import pkgutil

    import codedlib.widgets

    modules = {}
    for info in pkgutil.iter_modules(codedlib.widgets.__path__):
        module = importlib.import_module(f"codedlib.widgets.{info.name}")
        if hasattr(module, "WIDGET_TESTS"):
            modules[info.name] = module
    return modules


def _build(function, kwargs, *attribute):
    explorer = function(**kwargs)
    return getattr(explorer, attribute[0]) if attribute else explorer


def explorers():
    """Every paper widget module's ``WIDGET_TESTS["explorers"]``: name -> builder."""
    found = {}
    for module in paper_widget_modules().values():
        for name, spec in module.WIDGET_TESTS["explorers"].items():
            assert name not in found, f"two explorers named {name!r}"
            found[name] = functools.partial(_build, *spec)
    return found


def test_every_paper_notebook_has_a_widget_module():
    from codedlib.notebooks import discover_notebooks

    declared = sorted(m.WIDGET_TESTS["notebook"] for m in paper_widget_modules().values())
    assert declared == [p.stem for p in discover_notebooks()]


def walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


def browser_snap(slider):
    """What the browser sends back for a FloatSlider: the value rounded to min + k*step."""
    k = round((slider.value - slider.min) / slider.step)
    return slider.min + k * slider.step


@pytest.mark.parametrize("name", list(explorers()))
def test_explorer_keeps_its_values_and_draws_once(name):
    before = set(plt.get_fignums())
    explorer = explorers()[name]()
    assert explorer.calls == 1, "one recompute when built, none echoed"
    assert explorer.last_values == explorer.values()
    widgets = list(walk(explorer.box))
    assert not [w for w in widgets if isinstance(w, W.FloatLogSlider)], (
        "log sliders round the given value in the browser"
    )
    for slider in (w for w in widgets if isinstance(w, W.FloatSlider)):
        assert math.isclose(browser_snap(slider), slider.value, rel_tol=1e-12, abs_tol=1e-12), (
            slider.description,
            slider.value,
        )
    for control in explorer.controls.values():
        if (
            isinstance(
                control,
                (
                    W.IntSlider,
                    W.FloatSlider,
                    W.BoundedFloatText,
                    W.BoundedIntText,
                    W.Dropdown,
                    W.Text,
                ),
            )
            and len(control.description) > 8
        ):
            assert control.style.description_width == "initial", control.description
    shown = [image for image in explorer.images if image.layout.display != "none"]
    assert shown and all(image.value[:4] == b"\x89PNG" for image in shown)
    assert set(plt.get_fignums()) == before, "explorer figures must not stay in pyplot"


def test_error_style_clears_the_figure_and_recovers():
    from codedlib.widgets.reed_solomon import explore_reed_solomon

    explorer = explore_reed_solomon()
    first = explorer.images[0].value
    explorer.controls["w"].value = 5  # w > k
    assert explorer.status.value.startswith("<div class='codedlib-error'")
    assert "w must satisfy" in explorer.status.value
    assert explorer.images[0].layout.display == "none" and explorer.images[0].value == b""
    explorer.controls["w"].value = 3
    assert explorer.images[0].value == first  # same values, same pixels, same pane
    assert explorer.calls == 3


def test_hold_groups_changes_into_one_recompute():
    from codedlib.widgets.reed_solomon import explore_reed_solomon

    explorer = explore_reed_solomon()
    with explorer.hold():
        explorer.controls["n"].value = 12
        explorer.controls["w"].value = 2
    assert explorer.calls == 2 and explorer.last_values["n"] == 12


def test_button_explorer_runs_only_on_click_and_reenables():
    from codedlib.widgets.dsag import explore_dsag

    box = explore_dsag(n_workers=6, w=3, n_subpartitions=2)
    convergence = box.convergence
    assert convergence.calls == 0 and convergence.images[0].layout.display == "none"
    convergence.controls["w"].value = 4  # no recompute of the long run on a change
    assert convergence.calls == 0
    convergence.button.click()
    assert convergence.calls == 1 and not convergence.button.disabled
    assert convergence.images[0].value[:4] == b"\x89PNG"
    assert convergence.progress.layout.display == "none"


def test_sliders_refuse_values_off_their_grid():
    with pytest.raises(ValueError, match="not on the slider grid"):
        _common.float_slider("alpha", 0.1477, 0.0, 1.0, 0.01)
    with pytest.raises(ValueError, match=r"xi must satisfy 0.2 <= xi <= 4"):
        _common.float_slider("xi", 5.0, 0.2, 4.0, 0.05)
    with pytest.raises(ValueError, match=r"t0 must satisfy"):
        _common.log_slider("t0", 1.0, 1e-5, 1e-1)
    assert _common.log_slider("c_m", 1e-9, 1e-11, 1e-5).value == 1e-9


def test_error_html_escapes():
    text = _common.error_html(ValueError("k must satisfy 1 <= k <= 3, got k=<5>"))
    assert "&lt;5&gt;" in text and "ValueError" in text


def test_saving_from_jupyterlab_keeps_outputs_out_of_notebooks_dir(tmp_path):
    """The server's pre-save hook (jupyter/jupyter_server_config.py, used by `make lab`)."""
    from types import SimpleNamespace

    from codedlib.notebooks import REPO_ROOT, strip_outputs_pre_save

    def model():
        return {
            "type": "notebook",
            "content": {
                "metadata": {"widgets": {"state": {}}},
                "cells": [
                    {
                        "cell_type": "code",
                        "execution_count": 3,
                        "source": "1",
                        "outputs": [{"output_type": "execute_result"}],
                    },
                    {"cell_type": "markdown", "source": "x"},
                ],
            },
        }

    repo = SimpleNamespace(root_dir=str(REPO_ROOT))
    saved = model()
    strip_outputs_pre_save(saved, "notebooks/01-codedreduce.ipynb", repo)
    cell = saved["content"]["cells"][0]
    assert cell["outputs"] == [] and cell["execution_count"] is None
    assert "widgets" not in saved["content"]["metadata"]
    lab_on_notebooks = SimpleNamespace(root_dir=str(REPO_ROOT / "notebooks"))
    saved = model()
    strip_outputs_pre_save(saved, "01-codedreduce.ipynb", lab_on_notebooks)  # `make lab`
    assert saved["content"]["cells"][0]["outputs"] == []
    kept = model()
    strip_outputs_pre_save(kept, "build/notebooks/01-codedreduce.ipynb", repo)
    assert kept == model(), "executed copies elsewhere keep their outputs"


def test_make_lab_runs_as_root_with_the_project_config():
    import os
    import subprocess

    from codedlib.notebooks import REPO_ROOT

    out = subprocess.run(
        ["make", "-n", "--no-print-directory", "lab"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        pytest.skip(f"make -n lab failed: {out.stderr[:200]}")
    command = next(line for line in out.stdout.splitlines() if "jupyter lab" in line)
    assert "--config=jupyter/jupyter_server_config.py" in command
    assert ("--allow-root" in command) == (os.getuid() == 0)


def test_make_distclean_deletes_only_what_make_made_and_never_follows_links(tmp_path):
    """Issue 14 item 7: a .venv that is a symbolic link (or not made by make setup), linked
    figure folders and files make figures does not write all survive ``make distclean``."""
    import shutil
    import subprocess
    from pathlib import Path

    make = shutil.which("make")
    if make is None:
        pytest.skip("make not installed")
    repo = Path(__file__).resolve().parents[1]
    work = tmp_path / "repo"
    work.mkdir()
    shutil.copy(repo / "Makefile", work / "Makefile")
    outside = tmp_path / "outside"
    (outside / "env").mkdir(parents=True)
    (outside / "env" / "keep.txt").write_text("mine")
    (outside / "figs").mkdir()
    (outside / "figs" / "keep.png").write_text("mine")
    (work / ".venv").symlink_to(outside / "env")
    (work / "figures" / "00-nb").mkdir(parents=True)
    (work / "figures" / "00-nb" / "fig.png").write_text("made")
    (work / "figures" / "00-nb" / "claims.csv").write_text("made")
    (work / "figures" / "00-nb" / "notes.txt").write_text("mine")
    (work / "figures" / "01-nb").mkdir()
    (work / "figures" / "01-nb" / "fig.pdf").write_text("made")
    (work / "figures" / "linked").symlink_to(outside / "figs")
    (work / "figures" / "README.md").write_text("map")
    proc = subprocess.run(
        [make, "distclean"], cwd=work, capture_output=True, text=True, check=False, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "symbolic link: left alone" in proc.stdout
    assert (outside / "env" / "keep.txt").read_text() == "mine" and (work / ".venv").is_symlink()
    assert (outside / "figs" / "keep.png").exists() and (work / "figures" / "linked").is_symlink()
    assert not (work / "figures" / "00-nb" / "fig.png").exists()
    assert not (work / "figures" / "00-nb" / "claims.csv").exists()
    assert (work / "figures" / "00-nb" / "notes.txt").read_text() == "mine"
    assert not (work / "figures" / "01-nb").exists() and (work / "figures" / "README.md").exists()
    # a real .venv made by make setup (its stamp present) is removed
    (work / ".venv").unlink()
    (work / ".venv").mkdir()
    (work / ".venv" / ".setup-done").write_text("")
    assert (
        subprocess.run(
            [make, "distclean"], cwd=work, capture_output=True, check=False, timeout=60
        ).returncode
        == 0
    )
    assert not (work / ".venv").exists()
