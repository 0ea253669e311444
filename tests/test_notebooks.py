"""The course notebooks (``notebooks/*.ipynb``) run from top to bottom without an error.

Each notebook is executed with nbclient in a fresh ``python3`` kernel, from the ``notebooks/``
folder (as ``kernelnb lab`` opens them).  The notebooks carry their own checks (``assert``
cells comparing each rule with scikit-learn or with an explicit computation), so an exception in
any cell fails the test.  The committed files must also be clean: outputs stripped, no path of the
machine they were written on.
"""
import json
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 240  # seconds per cell; the slowest cell takes a few seconds on 2 cores
PLOTLY_MIME = "application/vnd.plotly.v1+json"

# Absolute paths that must not leak into a committed notebook (outputs, metadata, code).
ABSOLUTE_PATH = re.compile(r"(?<![\w.])/(?:work|root|home|Users|tmp)/")
# Working notes of the project that a reader of a notebook does not have.
INTERNAL_NOTE = re.compile(r"seed_\d{3}|shared/research|DESIGN\.md")


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


def _execute(path):
    """Run one notebook in a fresh kernel; returns (notebook with outputs, seconds)."""
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=CELL_TIMEOUT, allow_errors=False,
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}})
    # The kernel inherits this environment plus plotly's default renderer in JupyterLab (drawn
    # offline by the plotly extension); Fashion-MNIST is found where the loader looks,
    # KERNELNB_DATA or ~/.cache/kernelnb (notebook 4 falls back to a toy otherwise).
    t0 = time.perf_counter()
    # raises CellExecutionError (with the traceback) on the first failing cell
    client.execute(env={**os.environ, "PLOTLY_RENDERER": "plotly_mimetype"})
    return nb, time.perf_counter() - t0


@pytest.fixture(scope="module")
def notebook_runs(request):
    """The selected notebooks, executed two at a time in the background from the first test on.

    Each notebook runs in a kernel process of its own, so two of them keep both cores of a small
    machine busy where one left the second mostly idle (the notebooks are half of the suite's
    time). Each test waits for its own notebook; a failure is raised in that notebook's test."""
    selected = [item.callspec.params["path"] for item in request.session.items
                if getattr(item, "originalname", None) == "test_notebook_runs"]
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="notebook")
    runs = {path: pool.submit(_execute, path) for path in selected}
    yield runs
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_runs(path, notebook_runs):
    nb, elapsed = notebook_runs[path].result()
    print(f"{path.name}: executed in {elapsed:.1f} s (beside another notebook)")

    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    figures = [o for o in outputs if PLOTLY_MIME in o.get("data", {})]
    assert figures, f"{path.name} shows no plotly figure"
    for fig in figures:
        spec = fig["data"][PLOTLY_MIME]
        assert spec["data"], f"{path.name}: a figure without traces"
    # Nothing is fetched from the internet: no output refers to a CDN.
    dumped = json.dumps([o for o in outputs])
    assert "cdn.plot.ly" not in dumped and "cdn.jsdelivr" not in dumped and "unpkg.com" not in dumped
