"""An installed kernelnb is self-contained: nothing in the package refers to the project's internal
notes or to folders beside a source checkout (none of which ship with an install)."""
from __future__ import annotations

import re
from pathlib import Path

import kernelnb

PACKAGE = Path(kernelnb.__file__).resolve().parent
TEXT = {".py", ".pyx", ".pxd", ".ipynb", ".j2", ".html", ".txt", ".md", ".json", ".cfg"}
OUTSIDE = re.compile(r"\.\./shared|shared/(?:data|research|seeds)|seed_00\d|\bseeds/\d|"
                     r"DESIGN\.md|research/peers", re.IGNORECASE)


def test_package_refers_to_nothing_outside_itself():
    found = []
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in TEXT or not path.is_file() or "__pycache__" in path.parts:
            continue
        for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{lineno}: {line.strip()[:100]}")
    assert not found, "the package points outside itself:\n" + "\n".join(found)


def test_the_check_finds_a_reference():
    assert OUTSIDE.search("see ``../shared/research/seed_004.md`` section 1.5")
    assert OUTSIDE.search("Conventions (DESIGN.md)") and not OUTSIDE.search("shared memory")
    assert OUTSIDE.search("the course lecture, ``seeds/003``") and not OUTSIDE.search("seeds 3")


def test_the_repository_holds_no_symbolic_link():
    import subprocess
    repo = PACKAGE.parent
    if not (repo / ".git").exists():
        return                       # an installed copy: nothing to check
    listed = subprocess.run(["git", "ls-files", "-s"], cwd=repo, capture_output=True, text=True,
                            check=True).stdout.splitlines()
    links = [line.split("\t", 1)[1] for line in listed if line.startswith("120000 ")]
    assert not links, f"symbolic links break a Windows checkout: {links}"
