"""The README's facts that follow from the repository: the notebooks its tables list, the
``make`` targets it names. (Its claims block is checked in ``test_claims.py``; run times and
benchmark figures are not in it: they depend on the machine and are printed by the runs.)"""

import re

from codedlib.claims import README_BEGIN, README_END
from codedlib.notebooks import REPO_ROOT, discover_notebooks

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
PROSE = README.split(README_BEGIN)[0] + README.split(README_END)[1]


def test_readme_tables_list_every_notebook():
    stems = {p.stem for p in discover_notebooks()}
    listed = set(re.findall(r"`notebooks/(\d\d-[\w-]+)\.ipynb`", PROSE))
    assert listed == stems
    needs = set(re.findall(r"^\| (\d\d-[\w-]+) \| [^|]+\|$", PROSE, flags=re.M))
    assert needs == stems


def test_readme_names_every_make_target():
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z]+):.*## ", makefile, flags=re.M))
    assert {"figures", "test", "lint", "book"} <= targets
    others = re.search(r"^Other targets:(.*?)\n\n", PROSE, flags=re.M | re.S).group(1)
    missing = sorted(t for t in targets - {"figures", "test", "help"} if f"`{t}`" not in others)
    assert not missing, f"README's 'Other targets' does not name {missing}"
