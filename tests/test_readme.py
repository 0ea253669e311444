"""The README is the repository's front door: short, its example runs as written, its links lead
somewhere, and its Binder link is never a placeholder.

The book's pages that the README links to hold the rest (hosting a class, speed, data, the French
course); ``docs/architecture.md`` is kept short enough to read in one sitting."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: Sizes in bytes of UTF-8 text (issue 49: a front door under 6 kB, an architecture read in one
#: sitting under 40 kB).
README_MAX = 6_000
ARCHITECTURE_MAX = 40_000


def _python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```$", text, re.M | re.S)


def test_readme_is_short():
    size = len(README.read_bytes())
    assert size < README_MAX, f"README.md is {size} bytes; move detail into the book (docs/)"


def test_architecture_reads_in_one_sitting():
    size = len((ROOT / "docs" / "architecture.md").read_bytes())
    assert size < ARCHITECTURE_MAX, (
        f"docs/architecture.md is {size} bytes; numbers belong in benchmarks/results/, "
        f"history in CHANGELOG.md")


@pytest.mark.slow  # over two seconds of CPU (a fresh interpreter): not in the fast loop
def test_readme_example_runs_as_written(tmp_path):
    blocks = _python_blocks(README.read_text(encoding="utf-8"))
    assert len(blocks) == 1, f"expected one python example in README.md, found {len(blocks)}"
    script = tmp_path / "example.py"
    script.write_text(blocks[0], encoding="utf-8")
    # a fresh interpreter outside the checkout: the example defines all it uses
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    errors = re.findall(r"error[^:]*:\s*([0-9.]+)", r.stdout)
    assert len(errors) == 2, r.stdout
    # a test error and a leave-one-out estimate are rates
    assert all(0.0 <= float(e) <= 1.0 for e in errors), r.stdout


def test_readme_links_exist():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)\)", text)
    local = [link for link in links if "://" not in link]
    assert "docs/screenshot.png" in local
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_readme_has_no_placeholder_binder_link():
    text = README.read_text(encoding="utf-8")
    assert "OWNER" not in text
    assert not re.search(r"mybinder\.org/v2/gh/[^/\s)]+/", text), (
        "a Binder link written into the README names one owner; the book derives it")


def test_readme_names_the_fast_loop():
    text = README.read_text(encoding="utf-8")
    assert 'python3 -m pytest -m "not slow and not browser"' in text
