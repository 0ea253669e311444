"""The dashboard notebooks run headless (nbclient) and end with the dashboard widget; they are
committed without outputs."""
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

DASHBOARDS = Path(__file__).resolve().parents[3] / "dashboards"
NAMES = ["svm_playground", "margin_losses", "learning_curves"]


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_dashboard_notebook_executes(name, tmp_path):
    path = DASHBOARDS / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in nb.cells if c.cell_type == "code"), f"{path.name} has outputs committed"
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    mimes = [m for o in outputs for m in o.get("data", {})]
    assert "application/vnd.jupyter.widget-view+json" in mimes
    text = " ".join(str(o.get("text", "")) for o in outputs if o.output_type == "stream")
    assert "Traceback" not in text
