"""A dashboard's kernel loads what that dashboard uses: ``kernelnb.lab.app`` imports its dashboards on
first use, and the learning curves' large-scale estimators and scikit-learn's model-selection
machinery load when first needed. kernelnb does this with its own imports only: it hooks no
import of another package. Each check runs in a fresh interpreter (this process has imported
everything already).

``nbformat`` and ``jsonschema`` are not in the list below: plotly's ``FigureWidget`` imports
plotly's renderers, which import ``nbformat`` (and so ``jsonschema`` and its RFC 3987 grammar)
to read its version for ``fig.show()``. plotly offers no public way to defer that
(plotly/plotly.py#4856), and the import hook that did it is gone. A served dashboard kernel skips
only jsonschema's RFC 3987 grammar (see ``kernelnb.lab.viz._figure_widget.skip_iri_grammar`` and
tests/lab/app/test_plotly_bundle.py)."""
import json
import subprocess
import sys

import pytest

HEAVY = ("dask", "distributed", "bokeh", "kernelnb.largescale",
         "kernelnb.model_selection", "sklearn.model_selection", "sklearn.pipeline")


def _fresh(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
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


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
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


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_kernelnb_hooks_no_import():
    """Importing kernelnb's dashboards and building one adds no finder, loader or path hook of
    kernelnb's to the import system (another package's modules are imported as they are)."""
    got = _fresh("""
import json, sys

def hooks():
    return [type(h).__module__ + "." + type(h).__qualname__
            for h in [*sys.meta_path, *sys.path_hooks]]

import kernelnb.lab.app
seen = hooks()
from kernelnb.lab.app import SVMPlayground
SVMPlayground(grid=10)
print(json.dumps(hooks() + seen))
""")
    assert not [h for h in got if h.startswith("kernelnb")], got


def test_public_names_still_import():
    import kernelnb.lab.app as app
    for name in app.__all__:
        assert getattr(app, name) is not None
    with pytest.raises(AttributeError):
        app.NoSuchDashboard
    from kernelnb.lab.app import ESTIMATORS, BoundsExplorer, Dashboard  # noqa: F401
    assert issubclass(BoundsExplorer, Dashboard) and "svc" in ESTIMATORS
