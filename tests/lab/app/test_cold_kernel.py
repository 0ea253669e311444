"""A dashboard's kernel loads what that dashboard uses: ``kernelnb.lab.app`` imports its dashboards on
first use, the learning curves' large-scale estimators and scikit-learn's model-selection
machinery load when first needed, and plotly's widgets come without ``nbformat``/``jsonschema``.
Each check runs in a fresh interpreter (this process has imported everything already)."""
import json
import subprocess
import sys

import pytest

HEAVY = ("nbformat", "jsonschema", "dask", "distributed", "bokeh", "kernelnb.largescale",
         "kernelnb.model_selection", "sklearn.model_selection", "sklearn.pipeline")


def _fresh(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["SVMPlayground", "MarginLosses", "LocalMethodsPlayground",
                                  "DensityExplorer", "KMPPlayground"])
def test_building_a_dashboard_loads_no_heavy_module_it_does_not_use(name):
    loaded = _fresh(f"""
import json, sys
from kernelnb.lab.app import {name}
app = {name}(grid=10)
assert not app.last_error, app.last_error
others = [m for m in sys.modules if m.startswith("kernelnb.lab.app.")]
print(json.dumps(dict(heavy=[m for m in {HEAVY!r} if m in sys.modules], app_modules=others)))
""")
    # kernelnb.kmp's estimator module imports train_test_split itself (its validation split)
    allowed = {"sklearn.model_selection"} if name == "KMPPlayground" else set()
    assert set(loaded["heavy"]) <= allowed, loaded["heavy"]
    assert "kernelnb.lab.app.learning_curves" not in loaded["app_modules"]
    assert "kernelnb.lab.app.feature_selection" not in loaded["app_modules"]


def test_learning_curves_load_the_large_scale_estimators_only_when_chosen():
    loaded = _fresh("""
import json, sys
from kernelnb.lab.app import LearningCurves
app = LearningCurves(n_repeats=1, n_sizes=3)
before = "kernelnb.largescale" in sys.modules
app.update(estimators=("margin_perceptron",))
assert not app.last_error, app.last_error
print(json.dumps(dict(before=before, after="kernelnb.largescale" in sys.modules)))
""")
    assert loaded == dict(before=False, after=True)


@pytest.mark.parametrize("first", ["import kernelnb.lab.app", "import kernelnb.lab.app._base",
                                   "import kernelnb.lab.app.gallery"])
def test_plotly_show_still_finds_nbformat(first):
    got = _fresh("""
import json, sys
{first}
import plotly.graph_objects as go
go.FigureWidget()
import plotly.io._renderers as r
before = "nbformat" in sys.modules
version = r.nbformat.__version__        # what fig.show() checks
print(json.dumps(dict(before=before, version=version, after="nbformat" in sys.modules)))
""".replace("{first}", first))
    assert got["before"] is False and got["after"] is True
    assert int(got["version"].split(".")[0]) >= 4


def test_public_names_still_import():
    import kernelnb.lab.app as app
    for name in app.__all__:
        assert getattr(app, name) is not None
    with pytest.raises(AttributeError):
        app.NoSuchDashboard
    from kernelnb.lab.app import ESTIMATORS, BoundsExplorer, Dashboard  # noqa: F401
    assert issubclass(BoundsExplorer, Dashboard) and "svc" in ESTIMATORS
