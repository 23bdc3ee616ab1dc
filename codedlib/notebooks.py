"""Run the companion notebooks headlessly with papermill (``make figures`` and the tests).

Every notebook's first code cell is tagged ``parameters`` and holds literals only
(``interactive``, ``quick``, ``seed``, ``fig_dir`` and the paper's knobs); figures go to
``<fig_root>/<notebook stem>/``, the executed copy to a build folder.

Command line::

    python -m codedlib.notebooks --publish           # every notebook, faithful sizes -> figures/,
                                                     # claims -> data/claims/, README table
    python -m codedlib.notebooks notebooks/00-stragglers.ipynb --quick --fig-root /tmp/figs

Committed files (``data/claims/*.csv``, the README's claims table) change only with
``--publish`` (``make figures`` passes it); a side run leaves them alone.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codedlib.atomic import write_text_atomic

REPO_ROOT = Path(__file__).resolve().parent.parent
REQUIRED_PARAMETERS = ("interactive", "quick", "seed", "fig_dir")


def discover_notebooks(root: str | Path | None = None) -> list[Path]:
    """All ``*.ipynb`` under ``root`` (default ``notebooks/``), sorted by name."""
    root = REPO_ROOT / "notebooks" if root is None else Path(root)
    return sorted(p for p in root.glob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def _load(path: Path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def parameters_cell(path: str | Path) -> dict:
    """The literal assignments of the notebook's ``parameters`` cell (``ValueError`` unless
    it is the first code cell, holds only ``name = literal`` lines and the required names)."""
    path = Path(path)
    code_cells = [c for c in _load(path)["cells"] if c["cell_type"] == "code"]
    if not code_cells or "parameters" not in code_cells[0].get("metadata", {}).get("tags", []):
        raise ValueError(f"{path.name}: the first code cell must be tagged 'parameters'")
    source = "".join(code_cells[0]["source"])
    values = {}
    for node in ast.parse(source).body:
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            raise ValueError(f"{path.name}: parameters cell may hold only `name = literal` lines")
        try:
            values[node.targets[0].id] = ast.literal_eval(node.value)
        except ValueError as exc:
            raise ValueError(
                f"{path.name}: parameter {node.targets[0].id} is not a literal"
            ) from exc
    missing = [name for name in REQUIRED_PARAMETERS if name not in values]
    if missing:
        raise ValueError(f"{path.name}: parameters cell lacks {', '.join(missing)}")
    return values


def notebook_has_outputs(path: str | Path) -> bool:
    """True when any code cell carries outputs or an execution count."""
    return any(
        c.get("outputs") or c.get("execution_count")
        for c in _load(Path(path))["cells"]
        if c["cell_type"] == "code"
    )


def run_notebook(
    path: str | Path,
    *,
    quick: bool = False,
    interactive: bool = False,
    fig_root: str | Path | None = "figures",
    out_dir: str | Path = "build/notebooks",
    timeout: float = 3600,
    parameters: dict | None = None,
) -> Path:
    """Execute one notebook with papermill (in its folder; ``fig_root=None``: no figures
    saved) and return the executed copy's path; a failing cell raises papermill's error."""
    import papermill as pm

    path = Path(path).resolve()
    declared = parameters_cell(path)
    params = {"quick": bool(quick), "interactive": bool(interactive)}
    if fig_root is not None:
        params["fig_dir"] = str((Path(fig_root) / path.stem).resolve())
    for name, value in (parameters or {}).items():
        if name not in declared:
            raise ValueError(
                f"{path.name} has no parameter {name!r}; it declares {sorted(declared)}"
            )
        params[name] = value
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    output_path = out / path.name
    # the kernel's working directory too, whatever another thread does to the process's (--jobs)
    where = dict(cwd=str(path.parent), resources={"metadata": {"path": str(path.parent)}})
    kw = dict(kernel_name="python3", language="python", progress_bar=False, **where)
    kw.update(parameters=params, execution_timeout=timeout, request_save_on_cell_execute=False)
    with _kernel_environment():
        pm.execute_notebook(str(path), str(output_path), **kw)
    return output_path


#: MPLBACKEND=Agg would replace the inline backend and leave the notebook without figures.
KERNEL_ENV_DROP = ("MPLBACKEND",)
#: One BLAS thread per process unless set (a 956 x 812 product is 9x slower with 2 on 2 cores).
KERNEL_ENV_DEFAULTS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@contextlib.contextmanager
def _kernel_environment():
    """Launch kernels with the inline matplotlib backend, whatever the caller's environment."""
    saved = {name: os.environ.pop(name) for name in KERNEL_ENV_DROP if name in os.environ}
    added = [name for name in KERNEL_ENV_DEFAULTS if name not in os.environ]
    os.environ.update({name: KERNEL_ENV_DEFAULTS[name] for name in added})
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)
        os.environ.update(saved)


def _durations(durations_file: Path) -> dict:
    """Seconds of each notebook's last run (empty when there is no readable record)."""
    try:
        return json.loads(durations_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def inline_figures(executed: str | Path) -> list[str]:
    """The names ``save_figure`` tagged the figures an executed notebook shows with (or "")."""
    return [
        output.get("metadata", {}).get("codedlib_figure", "")
        for cell in _load(Path(executed))["cells"]
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    ]


def strip_outputs_pre_save(
    model: dict, path: str, contents_manager: object | None = None, **_
) -> None:
    """Jupyter ``pre_save_hook`` (``make lab``): a notebook saved in ``notebooks/`` keeps no
    outputs, execution counts or widget state."""
    if model.get("type") != "notebook" or not isinstance(nb := model.get("content"), dict):
        return
    root = Path(getattr(contents_manager, "root_dir", REPO_ROOT)).resolve()
    if (root / path.lstrip("/")).resolve().parent != (REPO_ROOT / "notebooks").resolve():
        return
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    nb.get("metadata", {}).pop("widgets", None)


def publish_claims(fig_root: str | Path, stem: str, claims_dir: str | Path) -> Path | None:
    """Copy a faithful run's ``<fig_root>/<stem>/claims.csv`` to ``<claims_dir>/<stem>.csv``,
    machine-dependent rows without their numbers (a rerun elsewhere changes the committed file
    only if a verdict changed)."""
    import csv
    import io

    source = Path(fig_root) / stem / "claims.csv"
    if not source.exists():
        return None
    with open(source, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
        columns = reader.fieldnames or []
    for row in rows:
        if str(row.get("machine_dependent", "")).strip().lower() == "true":
            row.update(our_value="", ci_low="", ci_high="")
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    target = Path(claims_dir) / f"{stem}.csv"
    target.parent.mkdir(parents=True, exist_ok=True)
    return write_text_atomic(target, text.getvalue())


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point of ``python -m codedlib.notebooks``."""
    parser = argparse.ArgumentParser(
        prog="python -m codedlib.notebooks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: all of notebooks/")
    parser.add_argument("--quick", action="store_true", help="shrunken sizes (CI mode)")
    parser.add_argument("--interactive", action="store_true", help="also build the widgets")
    parser.add_argument("--fig-root", default="figures", help="figures go to FIG_ROOT/<stem>/")
    parser.add_argument("--out", default="build/notebooks", help="executed notebooks go here")
    parser.add_argument("--timeout", type=float, default=3600, help="per-cell timeout (s)")
    claims = str(REPO_ROOT / "data" / "claims")
    parser.add_argument("--claims", default=claims, help="--publish copies claims.csv here")
    publish = "faithful runs rewrite --claims and the README table (make figures does)"
    parser.add_argument("--publish", action="store_true", help=publish)
    jobs = "notebooks run at once, longest first (each kernel's seeds: CODEDLIB_WORKERS)"
    parser.add_argument("--jobs", type=int, default=1, help=jobs)
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got --jobs {args.jobs}")

    paths = args.notebooks or discover_notebooks()
    if not paths:
        print("no notebooks found", file=sys.stderr)
        return 1
    # papermill changes the working directory while a notebook runs: absolute paths first
    paths = [Path(nb).resolve() for nb in paths]
    args.fig_root, args.out, args.claims = (
        str(Path(p).resolve()) for p in (args.fig_root, args.out, args.claims)
    )
    durations_file = Path(args.out) / f"durations-{'quick' if args.quick else 'faithful'}.json"
    if args.jobs > 1:  # longest last run first, unknown ones before
        last = _durations(durations_file)
        paths = sorted(paths, key=lambda nb: -last.get(nb.stem, float("inf")))

    def one(nb):
        start = time.perf_counter()
        print(f"[run] {nb} (quick={args.quick})", flush=True)
        kw = dict(quick=args.quick, interactive=args.interactive, fig_root=args.fig_root)
        try:
            run_notebook(nb, **kw, out_dir=args.out, timeout=args.timeout)
        except Exception as exc:  # report every notebook, then fail
            print(f"[FAIL] {nb}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            return nb, None
        seconds = time.perf_counter() - start
        print(f"[ok]  {nb} in {seconds:.1f} s", flush=True)
        written = Path(args.fig_root) / nb.stem / "claims.csv"
        if not args.quick and args.publish:
            if published := publish_claims(args.fig_root, nb.stem, args.claims):
                print(f"      claims -> {published}", flush=True)
        elif not args.quick and written.exists():
            unchanged = "committed claims and README unchanged; --publish copies them"
            print(f"      claims: {written} ({unchanged})", flush=True)
        return nb, seconds

    with _kernel_environment():  # entered once: the threads' own entries change nothing
        if args.jobs == 1:
            outcomes = [one(nb) for nb in paths]
        else:
            with ThreadPoolExecutor(args.jobs) as pool:
                outcomes = list(pool.map(one, paths))
    failures = [nb for nb, seconds in outcomes if seconds is None]
    seconds = _durations(durations_file) | {nb.stem: s for nb, s in outcomes if s is not None}
    durations_file.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(durations_file, json.dumps(seconds, indent=1, sort_keys=True))
    if not args.quick and args.publish and not failures:
        from codedlib.claims import update_readme

        if update_readme(REPO_ROOT / "README.md", args.claims):
            print("README.md: claims table regenerated from", args.claims, flush=True)
    if failures:
        print(
            f"{len(failures)} notebook(s) failed: {', '.join(map(str, failures))}", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
