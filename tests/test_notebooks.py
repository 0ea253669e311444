"""The course notebooks (``notebooks/*.ipynb``) run from top to bottom without an error.

The notebooks are executed once per test session, by the book's build (``book`` in
``tests/conftest.py``: the README's docs command executes them two at a time, each in a fresh
``python3`` kernel started in ``notebooks/``, as ``kernelnb lab`` opens them, and keeps the executed
notebooks in a jupyter-cache). These tests read each executed notebook from that cache: a cell
that raised would have failed the build, naming the notebook and the cell. The notebooks carry
their own checks (``assert`` cells comparing each rule with scikit-learn or with an explicit
computation). The committed files must also be clean: outputs stripped, no path of the machine
they were written on.
"""
import json
import re
from pathlib import Path

import nbformat
import pytest

from kernelnb_book._execute import cached_notebook

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
PLOTLY_MIME = "application/vnd.plotly.v1+json"

# Absolute paths that must not leak into a committed notebook (outputs, metadata, code).
ABSOLUTE_PATH = re.compile(r"(?<![\w.])/(?:work|root|home|Users|tmp)/")
# Working notes of the project that a reader of a notebook does not have.
INTERNAL_NOTE = re.compile(r"seed_\d{3}|shared/research|DESIGN\.md")


#: A course notebook's link to a dashboard on the default ``kernelnb serve`` (the book points it at
#: its configured server).
LIVE_LINK = re.compile(r"\]\((http://127\.0\.0\.1:8866/voila/render/(\w+)\.ipynb(?:\?([^)\s]*))?)\)")


def _ids(paths):
    return [p.name for p in paths]


def test_notebooks_exist():
    names = [p.name for p in NOTEBOOKS]
    for expected in ("01_knn_parzen_nadaraya_watson.ipynb", "02_kernels_kernel_ridge.ipynb",
                     "03_svm.ipynb", "04_inside_the_solver.ipynb"):
        assert expected in names, f"{expected} missing from {NOTEBOOK_DIR.name}/: {names}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_is_committed_clean(path):
    text = path.read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", path.name
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: cell {i} has outputs (strip them)"
            assert cell.execution_count is None, f"{path.name}: cell {i} has an execution count"
    leaked = ABSOLUTE_PATH.findall(text)
    assert not leaked, f"{path.name} contains absolute paths: {leaked}"
    # the notebooks cite the published theses and papers, not the project's working notes
    internal = INTERNAL_NOTE.findall(text)
    assert not internal, f"{path.name} refers to internal notes: {internal}"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_runs(path, book):
    nb = cached_notebook(book.cache, path)
    assert nb is not None, f"{path.name}: the book's build holds no execution of its code cells"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code if c.source.strip()), \
        f"{path.name}: a code cell was not executed"
    outputs = [out for cell in code for out in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    figures = [o for o in outputs if PLOTLY_MIME in o.get("data", {})]
    assert figures, f"{path.name} shows no plotly figure"
    for fig in figures:
        spec = fig["data"][PLOTLY_MIME]
        assert spec["data"], f"{path.name}: a figure without traces"
    # Nothing is fetched from the internet: no output refers to a CDN.
    dumped = json.dumps([o for o in outputs])
    assert "cdn.plot.ly" not in dumped and "cdn.jsdelivr" not in dumped and "unpkg.com" not in dumped


def test_every_chapter_links_to_a_dashboard_at_a_valid_setting():
    """Each chapter ends with links that open a dashboard at a setting; every link names a
    dashboard and a setting its controls accept (parsed as the dashboard parses its URL)."""
    import importlib

    from kernelnb.lab.server import gallery
    from kernelnb.lab.app._lessons import lesson_app
    from kernelnb.lab.app._urlstate import parse_query
    from kernelnb_book import rewrite_live_url

    entries = {e.name: e for e in gallery.DASHBOARDS if e.class_name}
    apps = {}
    for path in NOTEBOOKS:
        nb = nbformat.read(str(path), as_version=4)
        links = [m for c in nb.cells if c.cell_type == "markdown"
                 for m in LIVE_LINK.findall(c.source)]
        assert links, f"{path.name}: no link to a live dashboard"
        for url, name, query in links:
            assert name in entries, f"{path.name}: {url} names no dashboard"
            if name not in apps:
                e = entries[name]
                cls = getattr(importlib.import_module(f"kernelnb.lab.app.{e.module}"),
                              e.class_name)
                apps[name] = lesson_app(cls)
            params, refused = parse_query(apps[name], query)
            assert params and not refused, f"{path.name}: {url}: {refused}"
            assert rewrite_live_url(url, "https://lab.example.org/c1/").startswith(
                f"https://lab.example.org/c1/voila/render/{name}.ipynb")
