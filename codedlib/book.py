"""A static HTML book of the executed notebooks, for readers who will not run anything.

``make book`` (``python -m codedlib.book``) renders the executed notebooks of
``build/notebooks/`` (missing ones are run first) into ``build/book/`` with nbconvert's ``lab``
template: one page per notebook, figures embedded, and an ``index.html`` with the papers, the
claims table of the run and a figure map. The pages open from disk without a network (MathJax
2 copied from the ``jupyter-server-mathjax`` package; no script or stylesheet from elsewhere).
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
from pathlib import Path

from codedlib.claims import COLOURS, PAPERS, VERDICTS, claims_frame, read_claims, tally
from codedlib.notebooks import REPO_ROOT, discover_notebooks, run_notebook

_FIG_ANCHOR = "fig-{}"
MATHJAX_DIR = "mathjax"
# nbconvert's lab page without what it would fetch from a CDN; MathJax with the web fonts that
# jupyter-server-mathjax ships (STIX-Web only)
_PAGE_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{{ super() }}
<script type="text/x-mathjax-config">
MathJax.Hub.Config({"HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web",
                                 imageFont: null}});
</script>
{%- endblock html_head_js_mathjax -%}
"""


def bibliography(path: str | Path = REPO_ROOT / "references.bib") -> dict[str, dict[str, str]]:
    """Entries of a plain BibTeX file as ``{key: {field: value}}`` (braces stripped)."""
    text = Path(path).read_text(encoding="utf-8")
    entries = {}
    for match in re.finditer(r"@\w+\{([^,]+),(.*?)\n\}", text, flags=re.S):
        fields = {}
        for field in re.finditer(r"(\w+)\s*=\s*\{(.*?)\},?\s*$", match.group(2), flags=re.M):
            fields[field.group(1).lower()] = (
                re.sub(r"[{}]", "", field.group(2)).replace("\\'e", "é").replace("--", "–")
            )
        entries[match.group(1).strip()] = fields
    return entries


def _paper_reference(entry: dict[str, str]) -> str:
    venue = entry.get("journal") or entry.get("booktitle") or entry.get("note", "")
    parts = [
        entry.get("author", "").replace(" and ", "; "),
        f"<em>{html.escape(entry.get('title', ''))}</em>",
        html.escape(venue),
        entry.get("year", ""),
        entry.get("eprint") and f"arXiv:{entry['eprint']}",
        entry.get("doi") and f"doi:{entry['doi']}",
    ]
    return ", ".join(p for p in parts if p)


def _anchor_figures(nb) -> list[str]:
    """Put an HTML anchor before every figure ``save_figure`` showed; return their names."""
    import nbformat

    names = []
    for cell in nb["cells"]:
        outputs = []
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("codedlib_figure")
            if name and "image/png" in output.get("data", {}):
                names.append(name)
                anchor = {"text/html": f'<a id="{_FIG_ANCHOR.format(name)}"></a>'}
                outputs.append(nbformat.v4.new_output("display_data", data=anchor))
            outputs.append(output)
        if cell["cell_type"] == "code":
            cell["outputs"] = outputs
    return names


def _export_page(executed: Path, out: Path) -> tuple[str, list[str]]:
    import jinja2
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.reads(executed.read_text(encoding="utf-8"), as_version=4)
    figures = _anchor_figures(nb)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    heading = re.search(r"^# (.*)$", markdown, flags=re.M)
    title = heading.group(1).strip() if heading else executed.stem
    back = f"[← back to the index](index.html) · executed notebook `{executed.name}`"
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(back + " of the codedlib companion"))
    exporter = HTMLExporter(
        template_name="lab",
        template_file="book.html.j2",
        extra_loaders=[jinja2.DictLoader({"book.html.j2": _PAGE_TEMPLATE})],
        mathjax_url=f"{MATHJAX_DIR}/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe",
    )
    body, _ = exporter.from_notebook_node(nb)
    (out / f"{executed.stem}.html").write_text(body, encoding="utf-8")
    return title, figures


_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em;
       line-height: 1.45; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
"""


def _claims_html(claims) -> str:
    if not claims:
        return "<p>No claims recorded (the notebooks were not run with a figure folder).</p>"
    head = ("paper", "paper rows", *VERDICTS, "derived", "internal checks")
    rows = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for key, (_, _short, title) in PAPERS.items():
        if mine := [c for c in claims if c.paper == key]:
            t = tally(mine)
            counts = (
                str(t[k]) if t[k] else "·" for k in ("paper rows", *VERDICTS, "derived", "check")
            )
            cells = "".join(f"<td>{html.escape(c)}</td>" for c in counts)
            rows.append(f"<tr><td>{html.escape(title)}</td>{cells}</tr>")
    frame = claims_frame(claims, notebook=True)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    rows += ["</table>", f"<table><tr>{head}</tr>"]
    for record in frame.itertuples(index=False):
        cells = []
        for column, value in zip(frame.columns, record):
            text = html.escape(str(value))
            if column == "notebook":
                text = f'<a href="{html.escape(str(value))}.html">{text}</a>'
            colour = COLOURS.get(value, "") if column == "verdict" else ""
            css = f' style="background: {colour}"' if colour else ""
            cells.append(f"<td{css}>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    rows.append("</table>")
    return "\n".join(rows)


def build_book(
    executed_dir: str | Path = "build/notebooks",
    out_dir: str | Path = "build/book",
    *,
    fig_root: str | Path | None = "figures",
) -> Path:
    """Render the executed notebooks (``ValueError`` if one is missing) and an index with the
    claims of ``<fig_root>/<stem>/claims.csv`` into ``out_dir``; returns ``index.html``."""
    executed_dir, out = Path(executed_dir), Path(out_dir)
    sources = discover_notebooks()
    missing = [p.name for p in sources if not (executed_dir / p.name).exists()]
    if missing:
        raise ValueError(f"executed_dir={str(executed_dir)!r} lacks executed notebooks {missing}")
    out.mkdir(parents=True, exist_ok=True)
    try:
        import jupyter_server_mathjax
    except ImportError:
        raise RuntimeError(
            "the book typesets equations with the MathJax of the jupyter-server-mathjax package: "
            "run `make setup` (or pip install jupyter-server-mathjax)"
        ) from None
    mathjax = Path(jupyter_server_mathjax.__file__).parent / "static"  # MathJax 2
    shutil.copytree(mathjax, out / MATHJAX_DIR, dirs_exist_ok=True)
    pages = [(s.stem, *_export_page(executed_dir / s.name, out)) for s in sources]
    csvs = [] if fig_root is None else [Path(fig_root) / s.stem / "claims.csv" for s in sources]
    claims = read_claims([p for p in csvs if p.exists()])
    bib = bibliography()
    papers = "".join(
        f"<li>{_paper_reference(bib[key])}</li>" for key, _, _ in PAPERS.values() if key in bib
    )
    contents = "".join(
        f'<li><a href="{stem}.html">{html.escape(title)}</a> ({len(figures)} figures)</li>'
        for stem, title, figures in pages
    )
    figure_map = "".join(
        f'<tr><td><a href="{stem}.html">{stem}</a></td><td>'
        + ", ".join(
            f'<a href="{stem}.html#{_FIG_ANCHOR.format(name)}">{html.escape(name)}</a>'
            for name in figures
        )
        + "</td></tr>"
        for stem, _, figures in pages
    )
    modes = sorted({c.mode for c in claims})
    index = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>codedlib — the executed companion</title>
<style>{_STYLE}</style></head><body>
<h1>codedlib — straggler-resilient distributed gradient descent, reproduced</h1>
<p>The executed notebooks of the companion, with every figure inline. Each notebook puts what
its paper reports beside what we measure; every such comparison is a row of the claims table
below, with its interval over independent seeds and a verdict. Run: {html.escape(", ".join(modes) or "unknown")}.</p>
<h2>The papers</h2><ol>{papers}</ol>
<h2>The notebooks</h2><ol>{contents}</ol>
<h2>Every claim, paper vs ours</h2>
{_claims_html(claims)}
<h2>Figure map</h2>
<table><tr><th>notebook</th><th>figures (each links to its place in the page)</th></tr>{figure_map}</table>
</body></html>
"""
    path = out / "index.html"
    path.write_text(index, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point of ``python -m codedlib.book`` (``make book``)."""
    parser = argparse.ArgumentParser(
        prog="python -m codedlib.book",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--executed", default="build/notebooks", help="the run's notebooks")
    parser.add_argument("--fig-root", default="figures", help="claims.csv files of that run")
    parser.add_argument("--out", default="build/book")
    parser.add_argument("--timeout", type=float, default=3600)
    args = parser.parse_args(argv)
    executed = Path(args.executed)
    for source in discover_notebooks():
        if not (executed / source.name).exists():
            print(f"[run] {source.name}: not in {executed}, running it (faithful)", flush=True)
            run_notebook(source, fig_root=args.fig_root, out_dir=executed, timeout=args.timeout)
    index = build_book(executed, args.out, fig_root=args.fig_root)
    print(f"book: {index.resolve().as_uri()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
