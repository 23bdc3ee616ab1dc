"""Docstrings say what the name, the type and the glossary do not (issue 24, item 4).

The rules, on every module under ``codedlib``:

* the module has a docstring;
* each public function or class (a name without a leading underscore, defined in the module)
  has a docstring whose first line is a summary;
* a numpydoc ``Parameters`` section, where one is written, names only real parameters (a stale
  entry misleads), and is not required: the name, the type annotation and the glossary
  (``docs/CONVENTIONS.md``) carry the meaning of ``rng``, ``ax``, ``n``, ``seed`` …;
* each public function of ``theory/``, ``codes/`` and ``schemes/`` names its paper locator
  (eq., Algorithm, Section, Figure, Table, Theorem …) or says it is ours.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import codedlib

MODULES = sorted(
    ["codedlib"] + [m.name for m in pkgutil.walk_packages(codedlib.__path__, "codedlib.")]
)


def _public(module_name):
    mod = importlib.import_module(module_name)
    for name, obj in list(vars(mod).items()):
        if name.startswith("_"):
            continue
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module_name:
            yield name, obj


def _documented_parameters(doc: str) -> list[str]:
    """Names listed in a numpydoc Parameters section (``name : type`` or ``name``)."""
    match = re.search(
        r"^\s*Parameters\s*\n\s*-{3,}\s*\n(.*?)(?:^\s*\n\s*\w[\w ]*\n\s*-{3,}|\Z)", doc, re.M | re.S
    )
    if not match:
        return []
    body = match.group(1)
    indent = min((len(ln) - len(ln.lstrip()) for ln in body.splitlines() if ln.strip()), default=0)
    names = []
    for line in body.splitlines():
        if line.strip() and len(line) - len(line.lstrip()) == indent:
            entry = re.fullmatch(r"(\*{0,2}\w+(?:, \*{0,2}\w+)*)(?: : .*)?", line.strip())
            if entry is None:  # prose after the section: the section has ended
                break
            names += [n.strip().lstrip("*") for n in entry.group(1).split(",")]
    return names


@pytest.mark.parametrize("module_name", MODULES)
def test_module_has_docstring(module_name):
    mod = importlib.import_module(module_name)
    assert (mod.__doc__ or "").strip(), f"{module_name} has no module docstring"


@pytest.mark.parametrize("module_name", MODULES)
def test_public_api_has_summary_and_true_parameters(module_name):
    problems = []
    for name, obj in _public(module_name):
        doc = inspect.getdoc(obj) or ""
        if not doc.strip() or not doc.splitlines()[0].strip():
            problems.append(f"{name}: no summary line")
            continue
        try:
            params = set(inspect.signature(obj).parameters)
        except (TypeError, ValueError):
            continue
        if inspect.isclass(obj):
            params |= {f for f in getattr(obj, "__dataclass_fields__", {})}
            params |= set(getattr(obj, "__annotations__", {}))
        stale = [p for p in _documented_parameters(doc) if p and p not in params]
        if stale:
            problems.append(f"{name}: Parameters lists {stale}, not in the signature")
    assert not problems, f"{module_name}:\n  " + "\n  ".join(problems)


def test_parameter_parser_reads_numpydoc():
    doc = "Summary.\n\nParameters\n----------\nn, s : int\n    Sizes.\nrng : Generator\n    x\n"
    assert _documented_parameters(doc) == ["n", "s", "rng"]


#: A paper locator: what a function of the paper layers implements, where the paper says it.
ANCHOR = re.compile(
    r"\b(eqs?\.|Alg\.|Algorithm|Sec\.|Section|Figs?\.|Table|Theorem|Lemma|Example|Remark|"
    r"Corollary|Proposition|Definition|Appendix|fn\.)|§|\(\d+\)",
    re.I,
)
#: Packages whose functions implement the papers (the runtime, plots and widgets serve them).
PAPER_LAYERS = ("codedlib.theory.", "codedlib.codes.", "codedlib.schemes.")


@pytest.mark.parametrize("module_name", [m for m in MODULES if m.startswith(PAPER_LAYERS)])
def test_paper_layer_functions_cite_the_paper(module_name):
    """Every public function of theory/, codes/ and schemes/ names the equation, algorithm,
    section, figure or table it implements; our own construction says so ("ours")."""
    missing = [
        name
        for name, obj in _public(module_name)
        if inspect.isfunction(obj)
        and not ANCHOR.search(doc := inspect.getdoc(obj) or "")
        and "ours" not in doc.lower()
    ]
    assert not missing, f"{module_name}: no paper locator in {missing}"
