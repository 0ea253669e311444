"""The documentation: the Sphinx build of ``docs/`` and the Examples sections of the estimators.

* The HTML build (the command of the README's "Documentation" section) runs with warnings as
  errors into a temporary folder, never into the checkout, without executing the notebooks; the
  pages it must produce are checked (the API page of :class:`kernelnb.svm.SVC`, a course
  notebook, ``architecture.md``), and that no page loads anything from another host.
* The ``Examples`` sections of the main estimators' docstrings run as doctests.
"""
from __future__ import annotations

import doctest
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

DOCS = REPO / "docs"
BUILD_COMMAND = "python3 -m sphinx -W --keep-going -b html docs docs/_build/html"

#: estimators whose class docstring carries an Examples section run as a doctest
EXAMPLES = [
    ("kernelnb.svm", "SVC"),
    ("kernelnb.kmp", "KMPClassifier"),
    ("kernelnb.neighbors", "KNeighborsClassifier"),
    ("kernelnb.neighbors", "ParzenClassifier"),
    ("kernelnb.ridge", "KernelRidge"),
]


def _source_files():
    """The files under docs/ (the notebooks copied in by the build excluded)."""
    return {p.relative_to(DOCS) for p in DOCS.rglob("*")
            if p.is_file() and p.relative_to(DOCS).parts[0] != "notebooks"}


@pytest.fixture(scope="module")
def html(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs")
    before = _source_files()
    cmd = BUILD_COMMAND.split()
    cmd[0] = sys.executable
    cmd[-1] = str(out / "html")
    cmd[-1:-1] = ["-d", str(out / "doctrees")]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"the docs build failed:\n{r.stdout[-3000:]}\n{r.stderr[-6000:]}"
    assert _source_files() == before, "the build wrote into docs/"
    return out / "html"


def test_readme_documents_the_build_command():
    assert BUILD_COMMAND in (REPO / "README.md").read_text()
    assert "docs/_build/" in (REPO / ".gitignore").read_text().split()


def test_conf_does_not_execute_notebooks():
    text = (DOCS / "conf.py").read_text()
    assert re.search(r'^nb_execution_mode = "off"$', text, re.M)


def test_api_page_of_svc(html):
    page = (html / "api" / "svm.html").read_text()
    assert 'id="kernelnb.svm.SVC"' in page and 'id="kernelnb.svm.SVR"' in page
    assert "Support vector classifier trained by decomposition" in page
    assert "Parameters" in page and "cache_size" in page
    # methods written in a private base class are on the page; scikit-learn's are not
    assert 'id="kernelnb.svm.SVC.predict"' in page and 'id="kernelnb.svm.SVC.fit"' in page
    assert 'id="kernelnb.svm.SVC.get_params"' not in page and "_request" not in page
    # every subpackage's page is reachable from the API index
    index = (html / "api" / "index.html").read_text()
    for name in ("svm", "kmp", "neighbors", "ridge", "model_selection", "largescale", "datasets",
                 "kernels", "viz", "app"):
        assert f'href="{name}.html"' in index, name
    ridge = (html / "api" / "ridge.html").read_text()
    assert 'id="kernelnb.ridge.KernelRidge"' in ridge and "Examples" in ridge
    assert re.search(r'class="doctest[^"]*".*make_sinc', ridge, re.S)   # the Examples' code


def test_every_course_notebook_has_a_page(html):
    notebooks = sorted((REPO / "notebooks").glob("*.ipynb"))
    assert notebooks
    for nb_path in notebooks:
        page = html / "notebooks" / f"{nb_path.stem}.html"
        assert page.is_file(), page
    nb_path = REPO / "notebooks" / "03_svm.ipynb"
    nb = json.loads(nb_path.read_text())
    text = (html / "notebooks" / "03_svm.html").read_text()
    code = next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code" and c["source"])
    first_line = next(line for line in code.splitlines() if line.strip())
    words = re.findall(r"[A-Za-z_]{3,}", first_line)
    assert words and all(w in text for w in words), first_line
    with_outputs = sum(1 for c in nb["cells"] if c.get("outputs"))
    assert text.count('class="cell_output') == with_outputs     # shown as stored, not executed
    # listed on the course page
    assert 'href="notebooks/03_svm.html"' in (html / "course.html").read_text()


def test_architecture_page_keeps_its_content(html):
    text = (html / "architecture.html").read_text()
    source = (DOCS / "architecture.md").read_text()
    title = next(line[2:].strip() for line in source.splitlines() if line.startswith("# "))
    assert title in text and "svm/_smo.pyx" in text


_EXTERNAL = re.compile(
    r"""<(?:script|link|img|iframe|source|video|audio|embed)\b[^>]*?\b(?:src|href)\s*=\s*["']?"""
    r"""(?:https?:)?//""", re.I)
_CSS_EXTERNAL = re.compile(r"""(?:@import|url\()\s*["']?(?:https?:)?//""", re.I)


def test_nothing_is_loaded_from_another_host(html):
    found = []
    for path in html.rglob("*"):
        if path.suffix == ".html":
            found += [f"{path.relative_to(html)}: {m.group(0)}"
                      for m in _EXTERNAL.finditer(path.read_text(errors="replace"))]
        elif path.suffix == ".css":
            found += [f"{path.relative_to(html)}: {m.group(0)}"
                      for m in _CSS_EXTERNAL.finditer(path.read_text(errors="replace"))]
    assert not found, "\n".join(found)
    # math stays as TeX, with no MathJax script (it would come from a CDN)
    pages = "".join(p.read_text() for p in (html / "notebooks").glob("*.html"))
    assert 'class="math notranslate' in pages
    assert not re.search(r"<script[^>]*mathjax", pages, re.I)


def test_the_external_check_finds_a_cdn_script():
    assert _EXTERNAL.search('<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex.js">')
    assert _EXTERNAL.search("<link rel=stylesheet href='//fonts.example.org/a.css'>")
    assert not _EXTERNAL.search('<script src="_static/doctools.js">')
    assert _CSS_EXTERNAL.search("@import url('https://fonts.example.org/css')")


@pytest.mark.parametrize("module, name", EXAMPLES)
def test_examples_run_as_doctests(module, name):
    mod = importlib.import_module(module)
    obj = getattr(mod, name)
    doc = obj.__doc__ or ""
    assert re.search(r"^\s*Examples\n\s*-{8}\n\s*>>> ", doc, re.M), f"{module}.{name}: no Examples"
    tests = [t for t in doctest.DocTestFinder(exclude_empty=True).find(obj, f"{module}.{name}",
                                                                       module=mod)
             if t.examples]
    assert tests
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 3 and result.failed == 0, f"{module}.{name}: {result}"
