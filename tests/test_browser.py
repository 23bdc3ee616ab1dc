"""The browser tier: every notebook in JupyterLab, in a real Chromium, as a person uses it.

For each notebook (quick mode, ``interactive = True``): open it in JupyterLab (127.0.0.1, a
token, the project's own server config, and JupyterLab's *default* widget transport — comms
over kernel subshells — so the drawing path is tested where it used to break), Run All, then
change controls. Asserted: every cell ran, no traceback and no page error, every inline figure
and every explorer figure has content (pixels, not a blank PNG), a change redraws the
explorer's figure in place (same ``<img>``, new pixels), the values the explorer used are the
values typed (its report recomputed here from the controls' values must match), invalid input
shows the error style with no stale figure, and the Log Console stays empty. Screenshots and
the response time of each change go to ``build/browser/``.

The static book (``make book``) is opened here too, from disk with every non-file request
refused: its equations must be typeset (MathJax shipped in the book) and no raw ``$`` left.

Needs Chromium (Debian package ``chromium``; ``.ci/run`` installs it) and Playwright (PyPI,
``codedlib[test]``). Without them the tier is skipped and ``make test`` says so loudly.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from codedlib.notebooks import REPO_ROOT, discover_notebooks

CHROMIUM = os.environ.get("CODEDLIB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = REPO_ROOT / "build" / "browser"
TOKEN = "codedlib-browser-test"
NOTEBOOKS = discover_notebooks()
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _quick_copy(source: Path, target: Path) -> None:
    """The notebook with ``quick = True`` (interactive stays True) and a kernelspec."""
    nb = json.loads(source.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    text = "".join(cell["source"])
    assert re.search(r"^quick = False\b", text, flags=re.M), source.name
    cell["source"] = re.sub(r"^quick = False\b", "quick = True", text, flags=re.M)
    nb.setdefault("metadata", {}).setdefault(
        "kernelspec",
        {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"},
    )
    target.write_text(json.dumps(nb), encoding="utf-8")


def _require_browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"BROWSER TIER SKIPPED: no Chromium at {CHROMIUM} (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="BROWSER TIER SKIPPED: no playwright")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on a copy of the notebooks; yields ``(base_url, root)``."""
    _require_browser()
    root = tmp_path_factory.mktemp("lab")
    for nb in NOTEBOOKS:
        _quick_copy(nb, root / nb.name)
    settings = root / ".settings"  # JupyterLab's default transport: comms over subshells
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (
        settings / "@jupyterlab" / "apputils-extension" / "kernels-settings.jupyterlab-settings"
    ).write_text(json.dumps({"commsOverSubshells": "perCommTarget"}))
    (
        settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    ).write_text(json.dumps({"fetchNews": "false"}))
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env.update(JUPYTERLAB_SETTINGS_DIR=str(settings), JUPYTER_CONFIG_DIR=str(root / ".jupyter"))
    jupyter = Path(os.sys.executable).parent / "jupyter"
    log = open(root / "lab.log", "w")
    proc = subprocess.Popen(
        [
            str(jupyter),
            "lab",
            "--no-browser",
            "--allow-root",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.root_dir={root}",
            f"--config={REPO_ROOT / 'jupyter' / 'jupyter_server_config.py'}",
        ],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError((root / "lab.log").read_text()) from None
                time.sleep(0.5)
        else:
            raise RuntimeError("JupyterLab did not start: " + (root / "lab.log").read_text())
        yield base, root
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def browser():
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


# -- page helpers ------------------------------------------------------------------------------

PIXELS_JS = """(img) => {
  if (!img.complete || !img.naturalWidth) return [0, 0, 0];
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const x = c.getContext('2d'); x.drawImage(img, 0, 0);
  const d = x.getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4)
    if (d[i + 3] > 0 && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) n++;
  return [c.width, c.height, n];
}"""


def wait_idle(page, timeout=600.0, settle=3):
    """Until the kernel is idle and no cell is queued, ``settle`` polls in a row."""
    deadline, calm = time.monotonic() + timeout, 0
    while time.monotonic() < deadline:
        busy = page.locator('.jp-Notebook-ExecutionIndicator[data-status="busy"]').count()
        queued = page.locator('.jp-InputPrompt:text-matches("\\\\[\\\\*\\\\]")').count()
        calm = calm + 1 if not busy and not queued else 0
        if calm >= settle:
            return
        time.sleep(0.5)
    raise AssertionError(f"the notebook was still running after {timeout:.0f} s")


def dismiss_dialogs(page) -> bool:
    """Accept JupyterLab's kernel dialog; True if it was shown."""
    shown = False
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    if accept.count() and accept.first.is_visible():
        accept.first.click()
        shown = True
    return shown


def open_with_kernel(page, timeout=120.0, quiet=5.0):
    """Wait for the notebook's kernel to be idle with no dialog for ``quiet`` seconds (the
    kernel dialog can appear a moment after the page has loaded)."""
    deadline = time.monotonic() + timeout
    calm_since = None
    while time.monotonic() < deadline:
        if dismiss_dialogs(page):
            calm_since = None
        idle = page.locator('.jp-Notebook-ExecutionIndicator[data-status="idle"]').count()
        if idle and page.locator(".jp-Dialog").count() == 0:
            calm_since = calm_since or time.monotonic()
            if time.monotonic() - calm_since >= quiet:
                return
        else:
            calm_since = None
        time.sleep(0.25)
    raise AssertionError("the notebook's kernel did not start")


def menu(page, top, item):
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{top}$")).first.click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{item}$")).first.click()


def figure_state(page, selector):
    """``[(src, (width, height, ink))]`` of every visible image matching ``selector``."""
    out = []
    for img in page.locator(selector).all():
        if img.is_visible():
            out.append((img.get_attribute("src"), tuple(img.evaluate(PIXELS_JS))))
    return out


def explorer(page, index):
    return page.locator(".codedlib-explorer").nth(index)


def control(box, label):
    """The input of the control whose label starts with ``label`` inside ``box``."""
    row = box.locator(".widget-inline-hbox").filter(
        has=box.page.locator(".widget-label", has_text=re.compile("^" + re.escape(label)))
    )
    return row.first


def set_value(ctl, value):
    select = ctl.locator("select")
    if select.count():
        select.select_option(label=str(value))
        return
    field = ctl.locator("input[type=number], input[type=text], textarea")
    if field.count():
        field.first.fill(str(value))
        field.first.press("Enter")
        return
    readout = ctl.locator(".widget-readout")
    readout.click()
    readout.press("Control+a")
    readout.type(str(value))
    readout.press("Enter")


def read_value(ctl):
    select = ctl.locator("select")
    if select.count():
        return select.evaluate("s => s.options[s.selectedIndex].text")
    field = ctl.locator("input[type=number], input[type=text], textarea")
    if field.count():
        return field.first.input_value()
    return ctl.locator(".widget-readout").inner_text()


def status_text(box) -> str:
    return box.locator(".codedlib-status").inner_text().strip()


def figure_of(box, k=0):
    img = box.locator(".codedlib-figure").nth(k)
    return img.get_attribute("src"), (tuple(img.evaluate(PIXELS_JS)) if img.is_visible() else None)


def redraw(page, box, act, k=0, timeout=120.0):
    """Do ``act()``, wait for the explorer's figure ``k`` to change; return seconds taken."""
    before = figure_of(box, k)[0]
    start = time.monotonic()
    act()
    while time.monotonic() - start < timeout:
        src, pixels = figure_of(box, k)
        if src != before and pixels and pixels[2] > 0:
            return time.monotonic() - start
        time.sleep(0.05)
    raise AssertionError(f"figure {k} was not redrawn within {timeout:.0f} s")


def restatus(box, act, timeout=120.0):
    """Do ``act()``, wait for the explorer's status text to change; return seconds taken."""
    before = status_text(box)
    start = time.monotonic()
    act()
    while time.monotonic() - start < timeout:
        if status_text(box) != before:
            return time.monotonic() - start
        time.sleep(0.05)
    raise AssertionError(f"the status was not updated within {timeout:.0f} s")


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# -- what a person does in each notebook --------------------------------------------------------


def interact_stragglers(page, record):
    from codedlib.widgets import stragglers as wd

    order = explorer(page, 0)
    record(
        "00 order statistics: k 16 -> 10",
        redraw(page, order, lambda: set_value(control(order, "k"), 10)),
    )
    assert "k=10" in status_text(order)
    set_value(control(order, "k"), 40)  # k > n: the error style, no stale figure
    order.locator(".codedlib-error").wait_for(timeout=60_000)
    assert "k must satisfy" in status_text(order)
    assert figure_of(order)[1] is None
    record(
        "00 order statistics: model -> gamma",
        redraw(
            page,
            order,
            lambda: (
                set_value(control(order, "k"), 12),
                set_value(control(order, "model"), "gamma"),
            ),
        ),
    )
    assert (
        read_value(control(order, "mean")) == "1.00" and read_value(control(order, "var")) == "0.25"
    )
    bursts = explorer(page, 2)
    record(
        "00 bursts: p_enter 0.0007 -> 0.0003",
        redraw(page, bursts, lambda: set_value(control(bursts, "p_enter"), 0.0003)),
    )
    p_exit = float(read_value(control(bursts, "p_exit")))
    factor = float(read_value(control(bursts, "factor")))
    assert (p_exit, factor) == (0.05, 1.12)
    _, expected = wd.bursts_report(0.0003, p_exit, factor, seed=0)
    assert normalise(status_text(bursts)) == normalise(expected)


def interact_codedreduce(page, record):
    box = explorer(page, 0)
    record(
        "01 explorer: seed 0 -> 1 (new simulation)",
        redraw(page, box, lambda: set_value(control(box, "seed"), 1), k=1),
    )
    record(
        "01 explorer: L 3 -> 2 (analytic + tree)",
        redraw(page, box, lambda: set_value(control(box, "L"), 2), k=0),
    )
    assert re.search(r"\bN\s+20\b", status_text(box)), status_text(box)  # 4 + 16 workers
    assert read_value(control(box, "a [s/point]")) == "0.00005"


def interact_reed_solomon(page, record):
    from codedlib.experiments import reed_solomon as ex
    from codedlib.widgets.reed_solomon import code_summary

    # the notebook's c_m is calibrated: the geometric middle of the window where eq. (17) gives f_MDS
    low, high = ex.c_m_range_for_f_mds(ex.PAPER["f_mds"], ex.PAPER["n"], 0.001, 1.1, 0.035)
    c_m = float(np.sqrt(low * high))
    box = explorer(page, 0)
    values = {
        name: float(read_value(control(box, label)))
        for name, label in [("t0", "t0"), ("cg_N", "c_g·N"), ("c_m", "c_m")]
    }
    assert values == {"t0": 0.001, "cg_N": 0.035, "c_m": c_m}  # no rounding by the browser
    text, _ = code_summary(8, 4, 3, 0.001, 1.1, 0.035, c_m)
    assert normalise(status_text(box)) == normalise(text)
    assert "alpha* (eq. 22) = 0.1477" in status_text(box)
    record(
        "02 explorer: t0 0.001 -> 0.002",
        redraw(page, box, lambda: set_value(control(box, "t0"), 0.002)),
    )
    text, _ = code_summary(8, 4, 3, 0.002, 1.1, 0.035, c_m)
    assert normalise(status_text(box)) == normalise(text)
    set_value(control(box, "w"), 5)  # w > k
    box.locator(".codedlib-error").wait_for(timeout=60_000)
    assert figure_of(box)[1] is None
    record("02 explorer: w back to 3", redraw(page, box, lambda: set_value(control(box, "w"), 3)))


def interact_dsag(page, record):
    latency = explorer(page, 0)
    record(
        "03 latency: seed 0 -> 1",
        redraw(page, latency, lambda: set_value(control(latency, "seed"), 1)),
    )
    assert "event-driven" in status_text(latency)
    convergence = explorer(page, 1)
    button = convergence.locator("button", has_text="run convergence")
    record("03 convergence: run", redraw(page, convergence, button.click, timeout=300))
    assert button.is_enabled()


def interact_lagc(page, record):
    box = explorer(page, 0)
    assert not control(box, "Pareto t0").is_visible()  # only the chosen delay's parameters
    set_value(control(box, "delay"), "pareto")
    control(box, "Pareto t0").wait_for(state="visible", timeout=30_000)
    control(box, "exponential mean").wait_for(state="hidden", timeout=30_000)
    button = box.locator("button", has_text="Run")
    record("04 explorer: pareto delays, Run", redraw(page, box, button.click, timeout=300))
    set_value(control(box, "G"), 5)
    button.click()
    box.locator(".codedlib-error").wait_for(timeout=120_000)
    assert "n_groups must divide" in status_text(box) and figure_of(box)[1] is None


def interact_stream(page, record):
    from codedlib.widgets.stream import split_report

    box = explorer(page, 0)
    record(
        "05 explorer: simulate off (same chart, new text)",
        restatus(box, lambda: box.locator("input[type=checkbox]").uncheck()),
    )
    assert "simulated with purging" not in status_text(box)
    record("05 explorer: K 50 -> 60", redraw(page, box, lambda: set_value(control(box, "K"), 60)))
    values = {label: read_value(control(box, label)) for label in ("μ_p", "c_p", "γ")}
    _, expected = split_report(
        values["μ_p"],
        values["c_p"],
        1.0,
        60,
        float(read_value(control(box, "Ω"))),
        float(values["γ"]),
        float(read_value(control(box, "λ"))),
        int(read_value(control(box, "I"))),
        simulate=False,
    )
    assert normalise(status_text(box)) == normalise(expected)
    set_value(control(box, "c_p"), "0.1")
    box.locator(".codedlib-error").wait_for(timeout=60_000)
    assert "same number of workers" in status_text(box) and figure_of(box)[1] is None


def interact_shootout(page, record):
    from codedlib.widgets.shootout import TRACE_NONE

    box = explorer(page, 0)
    button = box.locator("button", has_text="Rank the schemes")
    assert "N=12" in status_text(box) and "fastest" in status_text(box)  # ranked on display
    set_value(control(box, "N"), 20)
    record("06 your cluster: N 12 -> 20, rank", redraw(page, box, button.click, timeout=300))
    assert "N=20" in status_text(box)
    set_value(control(box, "or a trace"), "dsag-N12-w6-steady.csv")
    record("06 your cluster: a trace, rank", redraw(page, box, button.click, timeout=300))
    assert "fitted from dsag-N12-w6-steady.csv" in normalise(status_text(box))
    set_value(control(box, "or a trace"), TRACE_NONE)
    set_value(control(box, "delay family"), "pareto")
    set_value(control(box, "shape"), 0.5)
    button.click()
    box.locator(".codedlib-error").wait_for(timeout=120_000)
    assert "shape must satisfy 1.0 < shape" in status_text(box) and figure_of(box)[1] is None


def interactions():
    """notebook stem -> ``interact_<module>``, for each ``codedlib.widgets`` module declaring
    ``WIDGET_TESTS`` (its notebook)."""
    import importlib
    import pkgutil

    import codedlib.widgets

    found = {}
    for info in pkgutil.iter_modules(codedlib.widgets.__path__):
        spec = getattr(
            importlib.import_module(f"codedlib.widgets.{info.name}"), "WIDGET_TESTS", None
        )
        if spec is not None:
            found[spec["notebook"]] = globals()[f"interact_{info.name}"]
    return found


INTERACTIONS = interactions()


def test_every_notebook_has_an_interaction():
    assert sorted(INTERACTIONS) == [p.stem for p in NOTEBOOKS]


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_in_jupyterlab(path, lab, browser):
    base, root = lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems: list[str] = []
    page.on("pageerror", lambda err: problems.append(f"page error: {err}"))
    timings: dict[str, float] = {}
    try:
        page.goto(f"{base}/lab/tree/{path.name}?reset&token={TOKEN}")
        open_with_kernel(page)
        started = time.monotonic()
        menu(page, "Run", "Run All Cells")
        time.sleep(2)
        wait_idle(page)
        timings["run all [s]"] = time.monotonic() - started
        page.screenshot(path=str(ARTIFACTS / f"{path.stem}-run-all.png"))

        unrun = page.locator(".jp-CodeCell .jp-InputPrompt").filter(
            has_text=re.compile(r"^\[ \]:$")
        )
        assert unrun.count() == 0, f"{unrun.count()} code cells did not run"
        errors = page.locator('[data-mime-type="application/vnd.jupyter.stderr"]').filter(
            has_text="Traceback"
        )
        assert errors.count() == 0, errors.first.inner_text()[:2000]
        inline = figure_state(page, ".jp-RenderedImage img")
        assert inline, "no inline figure"
        blank = [src[:60] for src, (_, _, ink) in inline if ink == 0]
        assert not blank, f"{len(blank)} blank inline figures"
        panes = figure_state(page, ".codedlib-figure")
        assert panes and all(ink > 0 for _, (_, _, ink) in panes), panes

        INTERACTIONS[path.stem](page, lambda name, seconds: timings.__setitem__(name, seconds))
        wait_idle(page)
        page.screenshot(path=str(ARTIFACTS / f"{path.stem}-after.png"), full_page=False)
        for i, box in enumerate(page.locator(".codedlib-explorer").all()):
            box.scroll_into_view_if_needed()
            box.screenshot(path=str(ARTIFACTS / f"{path.stem}-explorer-{i}.png"))

        menu(page, "View", "Show Log Console")
        panel = page.locator(".jp-LogConsolePanel")
        panel.wait_for(timeout=30_000)
        time.sleep(1)
        entries = panel.locator(".jp-OutputArea-child")
        assert entries.count() == 0, (
            f"Log Console: {entries.count()} entries: " + panel.inner_text()[:1000]
        )
        assert not problems, problems
    finally:
        (ARTIFACTS / f"{path.stem}-timings.json").write_text(json.dumps(timings, indent=1))
        print(json.dumps(timings, indent=1))
        page.close()


# -- the static book, offline ------------------------------------------------------------------

# a script, stylesheet or module a page would fetch from another host
REMOTE_ASSET = re.compile(
    r"<script[^>]*\ssrc=[\"']?(?:https?:)?//"
    r"|<link[^>]*\shref=[\"']?(?:https?:)?//"
    r"|\bimport\s*\(\s*[\"'](?:https?:)?//"
    r"|@import\s+(?:url\()?[\"']?(?:https?:)?//",
    flags=re.I,
)


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """The book of the committed notebooks (their markdown holds the equations); its folder."""
    from codedlib.book import build_book

    out = tmp_path_factory.mktemp("book")
    build_book(REPO_ROOT / "notebooks", out, fig_root=None)
    return out


def test_book_pages_fetch_nothing_from_another_host(book):
    pages = sorted(book.glob("*.html"))
    assert len(pages) == len(NOTEBOOKS) + 1
    assert (book / "mathjax" / "MathJax.js").is_file()
    assert REMOTE_ASSET.search('<script src="https://cdn.example/x.js">')  # the probe bites
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not REMOTE_ASSET.search(text), (page.name, REMOTE_ASSET.search(text).group(0))
        if page.name != "index.html":
            assert 'src="mathjax/MathJax.js?' in text, page.name


TYPESET_JS = r"""() => new Promise(done => MathJax.Hub.Queue(() => {
  const math = document.querySelectorAll('.MathJax, .MathJax_Display').length;
  const errors = document.querySelectorAll('.MathJax_Error, .merror').length;
  const raw = [];
  for (const md of document.querySelectorAll('.jp-RenderedMarkdown')) {
    const copy = md.cloneNode(true);
    copy.querySelectorAll('code, pre, script, .MathJax, .MathJax_Display, .MJX_Assistive_MathML')
      .forEach(e => e.remove());
    const text = copy.textContent;
    for (const m of text.matchAll(/\$/g))
      raw.push(text.slice(Math.max(0, m.index - 40), m.index + 40));
  }
  done([math, errors, raw.slice(0, 5)]);
}))"""


@pytest.mark.timeout(900)
def test_book_typesets_every_equation_offline(book, browser):
    context = browser.new_context()
    refused: list[str] = []

    def only_files(route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", only_files)
    try:
        page = context.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda err: problems.append(str(err)))
        for path in NOTEBOOKS:
            page.goto((book / f"{path.stem}.html").as_uri(), wait_until="load", timeout=300_000)
            page.wait_for_function("window.MathJax && MathJax.Hub", timeout=60_000)
            math, errors, raw = page.evaluate(TYPESET_JS)
            assert math > 0, f"{path.stem}: no typeset equation"
            assert errors == 0, f"{path.stem}: {errors} MathJax errors"
            assert not raw, f"{path.stem}: raw $ left: {raw}"
        assert not refused, refused
        assert not problems, problems
    finally:
        context.close()
