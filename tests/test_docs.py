"""The book: the Sphinx build of ``docs/`` and the Examples sections of the estimators.

* The book (the README's command, warnings as errors) is built once per session into a temporary
  folder (``book`` in ``tests/conftest.py``), never into the checkout; the pages it must produce
  are checked: the course's chapters executed (their figures, as many as the executed notebooks
  show), the API page of :class:`kernelnb.svm.SVC`, a page per dashboard, ``architecture.md``;
  formulas go to a MathJax the site serves, and no page loads anything from another host. A second
  build executes and computes nothing; a failing cell fails a build, naming the notebook and cell.
  The tests that read the book are marked slow, as ``tests/test_notebooks.py``'s are: the build
  they wait for executes the course and computes every dashboard and reproduction page.
* The ``Examples`` sections of the main estimators' docstrings run as doctests.

The browser's view of the built site (figures drawn, formulas typeset, no sideways scrolling) is
``tests/browser/test_book.py``.
"""
from __future__ import annotations

import doctest
import importlib
import json
import re
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from kernelnb.lab.server.gallery import DASHBOARDS
from kernelnb_book._execute import NotebookFailed, cached_notebook, execute_into_cache
from kernelnb_book._figures import FIGURE_CLASS, PLOTLY_MIME

from .conftest import BOOK_COMMAND, REPO, build_book

DOCS = REPO / "docs"
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
#: Folders the build writes into docs/ (git-ignored): the notebooks copied, the generated pages,
#: the French course (generated from the notebooks' catalogs).
GENERATED = ("notebooks", "dashboards", "reproductions", "fr")

#: estimators whose class docstring carries an Examples section run as a doctest
EXAMPLES = [
    ("kernelnb.svm", "SVC"),
    ("kernelnb.kmp", "KMPClassifier"),
    ("kernelnb.neighbors", "KNeighborsClassifier"),
    ("kernelnb.neighbors", "ParzenClassifier"),
    ("kernelnb.ridge", "KernelRidge"),
]


def _tracked_docs():
    """The files under docs/ that are the book's sources (the generated folders excluded)."""
    return {p.relative_to(DOCS) for p in DOCS.rglob("*")
            if p.is_file() and p.relative_to(DOCS).parts[0] not in GENERATED
            and "_build" not in p.relative_to(DOCS).parts}


def test_readme_documents_the_build_command():
    readme = (REPO / "README.md").read_text()
    assert BOOK_COMMAND in readme
    ignored = (REPO / ".gitignore").read_text().split()
    assert "docs/_build/" in ignored
    for pattern in ("docs/notebooks/", "docs/dashboards/", "docs/reproductions/*.md",
                    "docs/fr/"):
        assert pattern in ignored, pattern


def test_conf_executes_notebooks_through_a_cache():
    text = (DOCS / "conf.py").read_text()
    assert re.search(r'^nb_execution_mode = "cache"$', text, re.M)
    assert re.search(r"^nb_execution_raise_on_error = True", text, re.M)
    assert '"kernelnb_book"' in text and 'html_theme = "sphinx_book_theme"' in text


@pytest.mark.slow
def test_the_build_writes_only_its_generated_folders(book):
    # the session's build ran before this test: the sources under docs/ are the tracked ones
    import subprocess
    r = subprocess.run(["git", "status", "--porcelain", "--ignored=no", "docs"], cwd=REPO,
                       capture_output=True, text=True)
    untracked = [line for line in r.stdout.splitlines() if line.startswith("??")]
    assert not untracked, f"the build left files in docs/ that git does not ignore: {untracked}"


@pytest.mark.slow
def test_every_chapter_is_executed_with_its_figures(book):
    assert NOTEBOOKS
    for path in NOTEBOOKS:
        page = book.html / "notebooks" / f"{path.stem}.html"
        assert page.is_file(), page
        executed = cached_notebook(book.cache, path)
        assert executed is not None, f"{path.name}: no cached execution"
        figures = sum(1 for c in executed.cells if c.cell_type == "code"
                      for o in c.outputs if PLOTLY_MIME in o.get("data", {}))
        text = page.read_text()
        assert figures and text.count(f'<div class="{FIGURE_CLASS}') == figures, path.name
        # printed numbers are on the page too: every stream output's first line
        for cell in executed.cells:
            for out in cell.get("outputs", ()):
                if out.get("output_type") == "stream" and out.get("name") == "stdout":
                    first = next((ln for ln in out["text"].splitlines() if ln.strip()), "")
                    words = re.findall(r"[A-Za-z]{4,}", first)[:3]
                    assert all(w in text for w in words), (path.name, first)
    # listed in the book's navigation
    index = (book.html / "index.html").read_text()
    assert 'href="notebooks/03_svm.html"' in index


@pytest.mark.slow
def test_the_french_chapters_are_the_english_executions(book):
    """The course in French (issue 42): every chapter generated from its catalog, rendered from
    the English chapter's cached execution (nothing executed for it), with the same figures."""
    log = book.log
    assert re.search(rf"\[kernelnb\] translated notebooks: 0 executed, {len(NOTEBOOKS)} from the "
                     r"cache", log), log[-2000:]
    for path in NOTEBOOKS:
        english = (book.html / "notebooks" / f"{path.stem}.html").read_text()
        page = book.html / "fr" / "notebooks" / f"{path.stem}.html"
        assert page.is_file(), page
        text = page.read_text()
        assert '<html lang="fr"' in text, path.name
        assert text.count(f'<div class="{FIGURE_CLASS}') == \
            english.count(f'<div class="{FIGURE_CLASS}'), path.name
        assert "Essayez en direct" in text and "http://127.0.0.1:8866/voila/render/" in text
    index = (book.html / "index.html").read_text()
    assert "Le cours en français" in index and 'href="fr/notebooks/03_svm.html"' in index


@pytest.mark.slow
def test_a_page_per_dashboard(book):
    names = [e.name for e in DASHBOARDS if e.class_name]
    assert len(names) == 16
    index = (book.html / "dashboards" / "index.html").read_text()
    for name in names:
        page = book.html / "dashboards" / f"{name}.html"
        assert page.is_file(), name
        text = page.read_text()
        assert f'href="{name}.html"' in index, name
        assert "What the sweep found" in text and "kernelnb-lesson-figure" in text, name
        # the live dashboard's address, at its defaults and at settings
        assert f"http://127.0.0.1:8866/voila/render/{name}.ipynb" in text, name
        assert re.search(rf"http://127\.0\.0\.1:8866/voila/render/{name}\.ipynb\?\w+=", text), name


@pytest.mark.slow
def test_the_svm_playground_page_shows_its_lesson_and_frames(book):
    from kernelnb.lab.app import SVMPlayground
    text = (book.html / "dashboards" / "svm_playground.html").read_text()
    lesson = SVMPlayground.LESSONS[0]
    assert lesson.claim.split(":")[0] in text
    spec = json.loads(re.search(
        r'kernelnb-lesson-figure"[^>]*><script type="application/json">(.*?)</script>', text,
        re.S).group(1).replace("<\\/", "</"))
    values = [step["label"] for step in spec["layout"]["sliders"][0]["steps"]]
    # the values the class declares for its book figure, C's default among them
    from kernelnb_book._dashboards import nice_labels
    declared = SVMPlayground.BOOK_FIGURE["values"]
    assert SVMPlayground.BOOK_FIGURE["control"] == "C" and 1.0 in declared
    assert values == nice_labels(declared) and "1" in values and "10,000" in values
    assert len(spec["frames"]) == len(values) and set(spec["kernelnb"]["readouts"]) == \
        {f["name"] for f in spec["frames"]}


@pytest.mark.slow
def test_architecture_page_keeps_its_content(book):
    text = (book.html / "architecture.html").read_text()
    source = (DOCS / "architecture.md").read_text()
    title = next(line[2:].strip() for line in source.splitlines() if line.startswith("# "))
    assert title in text and "svm/_smo.pyx" in text


@pytest.mark.slow
def test_api_page_of_svc(book):
    page = (book.html / "api" / "svm.html").read_text()
    assert 'id="kernelnb.svm.SVC"' in page and 'id="kernelnb.svm.SVR"' in page
    assert "Support vector classifier trained by decomposition" in page
    assert "Parameters" in page and "cache_size" in page
    # methods written in a private base class are on the page; scikit-learn's are not
    assert 'id="kernelnb.svm.SVC.predict"' in page and 'id="kernelnb.svm.SVC.fit"' in page
    assert 'id="kernelnb.svm.SVC.get_params"' not in page and "_request" not in page
    index = (book.html / "api" / "index.html").read_text()
    for name in ("svm", "kmp", "neighbors", "ridge", "model_selection", "largescale", "datasets",
                 "kernels", "viz", "app"):
        assert f'href="{name}.html"' in index, name
    ridge = (book.html / "api" / "ridge.html").read_text()
    assert 'id="kernelnb.ridge.KernelRidge"' in ridge and "Examples" in ridge
    assert re.search(r'class="doctest[^"]*".*make_sinc', ridge, re.S)   # the Examples' code


_EXTERNAL = re.compile(
    r"""<(?:script|link|img|iframe|source|video|audio|embed)\b[^>]*?\b(?:src|href)\s*=\s*["']?"""
    r"""(?:https?:)?//""", re.I)
_CSS_EXTERNAL = re.compile(r"""(?:@import|url\()\s*["']?(?:https?:)?//""", re.I)


@pytest.mark.slow
def test_nothing_is_loaded_from_another_host(book):
    found = []
    for path in book.html.rglob("*"):
        if path.suffix == ".html":
            found += [f"{path.relative_to(book.html)}: {m.group(0)}"
                      for m in _EXTERNAL.finditer(path.read_text(errors="replace"))]
        elif path.suffix == ".css":
            found += [f"{path.relative_to(book.html)}: {m.group(0)}"
                      for m in _CSS_EXTERNAL.finditer(path.read_text(errors="replace"))]
    assert not found, "\n".join(found)


_LINK = re.compile(r'<(?:a|link|script|img)\b[^>]*?\b(?:href|src)\s*=\s*"([^"]*)"', re.I)
_ID = re.compile(r'\bid\s*=\s*"([^"]+)"')


@pytest.mark.slow
def test_every_internal_link_resolves(book):
    """Every relative link of every page names a file of the site, and its #anchor an id there."""
    ids, broken, checked = {}, [], 0
    # the site's pages; _static holds the theme's Jinja macro files (webpack-macros.html),
    # which no page links to and whose links are template code
    pages = [p for p in book.html.rglob("*.html")
             if not {"_sources", "_static"} & set(p.relative_to(book.html).parts)]
    for page in pages:
        text = page.read_text(errors="replace")
        for target in _LINK.findall(text):
            if not target or target.startswith(("http:", "https:", "mailto:", "data:",
                                                "javascript:", "//")):
                continue
            path, _, anchor = target.partition("#")
            path = path.split("?")[0]
            file = (page.parent / path).resolve() if path else page
            checked += 1
            if file.is_dir():
                file = file / "index.html"
            if not file.is_file():
                broken.append(f"{page.relative_to(book.html)}: {target}")
                continue
            if anchor and file.suffix == ".html":
                if file not in ids:
                    ids[file] = set(_ID.findall(file.read_text(errors="replace")))
                if anchor not in ids[file]:
                    broken.append(f"{page.relative_to(book.html)}: {target} (no such anchor)")
    assert checked > 1000
    assert not broken, f"{len(broken)} broken link(s):\n" + "\n".join(broken[:40])


@pytest.mark.slow
def test_mathjax_and_plotly_are_served_by_the_site(book):
    page = (book.html / "notebooks" / "03_svm.html").read_text()
    scripts = re.findall(r'<script[^>]*src="([^"]+)"', page)
    mathjax = [s for s in scripts if "tex-chtml.js" in s]
    plotly = [s for s in scripts if "plotly.min.js" in s]
    assert mathjax and plotly and len(plotly) == 1, scripts
    for src in mathjax + plotly:
        assert not src.startswith(("http:", "https:", "//"))
        assert (book.html / "notebooks" / src.split("?")[0]).resolve().is_file(), src
    # MathJax's fonts and the TeX extensions it loads on demand are there too
    static = book.html / "_static" / "mathjax"
    assert list((static / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert (static / "input" / "tex" / "extensions" / "ams.js").is_file()
    # pages without a figure do not load plotly.js
    # (the architecture notes name plotly.min.js and the figures' class in their text)
    assert not [s for s in re.findall(r'<script[^>]*src="([^"]+)"',
                                      (book.html / "architecture.html").read_text())
                if "plotly.min.js" in s]


@pytest.mark.slow
def test_a_rebuild_executes_and_computes_nothing(book):
    r, seconds = build_book(book.html.parent, book.cache.parent)
    assert r.returncode == 0, r.stderr[-3000:]
    log = r.stdout + r.stderr
    assert re.search(r"\[kernelnb\] notebooks: 0 executed, \d+ from the cache", log), log[-2000:]
    assert "Executing notebook" not in log           # myst-nb found every notebook cached
    assert "computing" not in log, "dashboard pages computed again"
    print(f"cold build {book.seconds:.0f} s, cached rebuild {seconds:.0f} s")


def _notebook(path, source):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# A chapter"),
                nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_code_cell(source)]
    nbformat.write(nb, str(path))


def test_a_failing_cell_names_the_notebook_and_the_cell(tmp_path):
    _notebook(tmp_path / "broken.ipynb", "y = x + undefined_name")
    with pytest.raises(NotebookFailed, match=r"broken\.ipynb: cell 2 raised NameError") as info:
        execute_into_cache([tmp_path / "broken.ipynb"], tmp_path / "cache", tmp_path)
    assert "y = x + undefined_name" in str(info.value)


@pytest.mark.slow  # a Sphinx build and its kernel: over two seconds
def test_a_failing_cell_fails_the_build(tmp_path):
    """A book project of one broken notebook: the build stops, naming it."""
    (tmp_path / "src" / "nbs").mkdir(parents=True)
    _notebook(tmp_path / "src" / "nbs" / "chapter.ipynb", "1 / 0")
    (tmp_path / "src" / "conf.py").write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(DOCS / "_ext")!r})   # the book's extension, as docs/conf.py does
        extensions = ["myst_nb", "kernelnb_book"]
        nb_execution_mode = "cache"
        nb_execution_raise_on_error = True
        kernelnb_notebooks = "nbs"
        kernelnb_pages = False
        exclude_patterns = ["_build", "nbs"]
    """))
    (tmp_path / "src" / "index.md").write_text("# Index\n\n```{toctree}\nnotebooks/chapter\n```\n")
    import subprocess
    r = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-b", "html", str(tmp_path / "src"),
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0
    assert "chapter.ipynb: cell 2 raised ZeroDivisionError" in r.stdout + r.stderr


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


def test_the_external_check_finds_a_cdn_script():
    assert _EXTERNAL.search('<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex.js">')
    assert _EXTERNAL.search("<link rel=stylesheet href='//fonts.example.org/a.css'>")
    assert not _EXTERNAL.search('<script src="_static/doctools.js">')
    assert _CSS_EXTERNAL.search("@import url('https://fonts.example.org/css')")
