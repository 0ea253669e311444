"""kernelnb installs as a library: the core and its extras (issue 48).

* importing any library module (everything under ``kernelnb/`` but the lab) imports none of the
  lab's, Dask's or the docs' packages, and works where they are not installed (a subprocess whose
  import system refuses them);
* the ``kernelnb`` command: ``--version`` prints the version, written in one place
  (``kernelnb.__version__``, read by setuptools); without the lab, ``serve`` and ``lab`` say in
  one line which extra to install and exit non-zero, with no traceback;
* the command's list of the lab's packages is the ``lab`` extra of ``pyproject.toml``.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kernelnb
from kernelnb._command import LAB_MODULES

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))

#: Top-level modules that only the extras (lab, dask, hub, docs) bring; no library module may
#: import one.
NOT_IN_THE_CORE = ("IPython", "ipykernel", "ipywidgets", "anywidget", "plotly", "voila",
                   "jupyterlab", "jupyterlab_widgets", "jupyter_server", "jupyter_client",
                   "jupyter_core", "nbformat", "nbclient", "traitlets", "tornado", "zmq",
                   "dask", "distributed", "bokeh", "tqdm", "babel", "markdown_it",
                   "mdit_py_plugins", "sphinx", "myst_nb", "jupyterhub", "psutil")

#: A meta-path finder that makes the packages of ``NOT_IN_THE_CORE`` (given in ``BLOCKED``)
#: look uninstalled, as in an environment that holds the core alone.
BLOCKER = textwrap.dedent("""
    import sys
    class _Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
            return None
    sys.meta_path.insert(0, _Blocker())
""")

#: Imports every library module (the lab excepted) and prints, as JSON, what each one added to
#: sys.modules among ``NOT_IN_THE_CORE``, and the modules that failed to import.
IMPORT_ALL = textwrap.dedent("""
    import importlib, json, pkgutil, sys, traceback
    import kernelnb
    names = sorted(m.name for m in pkgutil.walk_packages(kernelnb.__path__, "kernelnb.")
                   if not (m.name == "kernelnb.lab" or m.name.startswith("kernelnb.lab.")
                           or m.name == "kernelnb.__main__"))
    added, failed = {}, {}
    for name in names:
        before = set(sys.modules)
        try:
            importlib.import_module(name)
        except Exception:
            failed[name] = traceback.format_exc(limit=3)
        new = {m.split(".")[0] for m in set(sys.modules) - before} & set(FORBIDDEN)
        if new:
            added[name] = sorted(new)
    print(json.dumps({"names": names, "added": added, "failed": failed}))
""")


def _python(code, *args, timeout=300):
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)


def _import_all(blocked):
    code = (f"FORBIDDEN = {NOT_IN_THE_CORE!r}\nBLOCKED = {tuple(blocked)!r}\n" + BLOCKER
            + IMPORT_ALL)
    r = _python(code)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_no_library_module_imports_the_lab_dask_or_the_docs():
    report = _import_all(blocked=())
    # the walk found the library: the estimators' packages, the data, the reproductions
    for name in ("kernelnb.svm", "kernelnb.largescale.mixture", "kernelnb.largescale._dask",
                 "kernelnb.datasets", "kernelnb.reproductions.results", "kernelnb._command"):
        assert name in report["names"], name
    assert not any(n.startswith("kernelnb.lab") for n in report["names"])
    assert report["failed"] == {}, report["failed"]
    assert report["added"] == {}, f"library modules importing the extras' packages: " \
                                  f"{report['added']}"


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_every_library_module_imports_with_the_core_alone():
    report = _import_all(blocked=NOT_IN_THE_CORE)
    assert report["failed"] == {}, "\n".join(f"{k}:\n{v}" for k, v in report["failed"].items())
    assert len(report["names"]) > 50


def test_the_blocker_blocks():
    """The check above could pass only because nothing was blocked: a blocked package fails to
    import in that subprocess."""
    r = _python(f"BLOCKED = ('plotly', 'distributed')\n{BLOCKER}\nimport plotly")
    assert r.returncode != 0 and "No module named 'plotly' (blocked)" in r.stderr


def test_version_is_written_once_and_printed():
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr":
                                                                      "kernelnb.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", kernelnb.__version__)
    r = subprocess.run([sys.executable, "-m", "kernelnb", "--version"], capture_output=True,
                       text=True, timeout=120, cwd=REPO)
    assert r.returncode == 0 and r.stdout.strip() == f"kernelnb {kernelnb.__version__}"
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{kernelnb.__version__}]" in changelog


def test_the_console_script_is_the_light_command():
    assert PYPROJECT["project"]["scripts"] == {"kernelnb": "kernelnb._command:main"}


def _command_without_the_lab(*args):
    code = (f"BLOCKED = {NOT_IN_THE_CORE!r}\n{BLOCKER}\n"
            "import sys\nfrom kernelnb._command import main\nsys.exit(main(sys.argv[1:]))")
    return _python(code, *args, timeout=120)


def test_serve_without_the_lab_says_which_extra_in_one_line():
    for command in ("serve", "lab"):
        r = _command_without_the_lab(command, "--port", "9999")
        assert r.returncode == 2, (r.returncode, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, r.stderr
        assert lines[0].startswith(f"kernelnb {command}: the lab is not installed (missing ")
        assert "pip install 'kernelnb[lab]'" in lines[0] and "voila" in lines[0]
        assert "Traceback" not in r.stderr and r.stdout == ""
    r = _command_without_the_lab("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"kernelnb {kernelnb.__version__}"
    r = _command_without_the_lab("--help")
    assert r.returncode == 0 and "kernelnb[lab]" in r.stdout


def test_serve_with_the_lab_reaches_the_lab_command():
    """With the lab installed the command is the lab's: its own parser answers (a bad port is
    refused by ``kernelnb serve``'s option check, not by the light command)."""
    from kernelnb._command import missing_lab_modules

    if missing_lab_modules():
        pytest.skip(f"the lab is not installed here (missing {missing_lab_modules()})")
    r = subprocess.run([sys.executable, "-m", "kernelnb", "serve", "--port", "0"],
                       capture_output=True, text=True, timeout=120, cwd=REPO)
    assert r.returncode == 2 and "--port" in r.stderr and "not installed" not in r.stderr


def _distribution(requirement):
    return re.match(r"[A-Za-z0-9._-]+", requirement).group(0)


def test_the_command_knows_the_lab_extra():
    lab = [_distribution(r) for r in PYPROJECT["project"]["optional-dependencies"]["lab"]]
    assert sorted(LAB_MODULES) == sorted(lab)


def test_the_core_is_the_library_and_the_extras_are_named():
    core = {_distribution(r) for r in PYPROJECT["project"]["dependencies"]}
    assert core == {"numpy", "scipy", "scikit-learn", "threadpoolctl"}
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {"lab", "dask", "hub", "docs", "test", "all"} <= set(extras)
    dask = {_distribution(r) for r in extras["dask"]}
    assert {"dask", "distributed"} <= dask
    # ranges only: no requirement is pinned to one release
    for name, requirements in [("dependencies", PYPROJECT["project"]["dependencies"])] + \
            list(extras.items()):
        for r in requirements:
            assert "==" not in r, (name, r)


def test_the_package_ships_its_data_and_catalogs_and_no_docs_tooling():
    """What an installed kernelnb holds (the wheel's files, or the checkout's for an editable
    install): the data and their attribution, every catalog compiled (``.mo``), and none of the
    book's tooling, which lives in ``docs/_ext``."""
    root = Path(kernelnb.__file__).resolve().parent
    assert (root / "datasets" / "data" / "ATTRIBUTION.txt").is_file()
    assert sorted(p.name for p in (root / "datasets" / "data").glob("*.csv.gz")) == [
        "bostonhousing.csv.gz", "breastcancer.csv.gz", "ionosphere.csv.gz",
        "pimaindiansdiabetes.csv.gz", "sonar.csv.gz"]
    # the lab's and the course's catalogs: compiled into the wheel (its .po sources stay out);
    # a checkout reads its .po files (and compiles them when their .mo is missing or older)
    installed = "site-packages" in root.parts or "dist-packages" in root.parts
    for domain in ("kernelnb", "kernelnb_course"):
        catalog = root / "locale" / "fr" / "LC_MESSAGES" / domain
        assert catalog.with_suffix(".mo" if installed else ".po").is_file(), catalog
    if installed:
        assert not list((root / "locale").rglob("*.po"))
    assert not (root / "lab" / "book").exists()
    assert not list(root.rglob("glossary_fr.tsv")) and not list(root.rglob("notebook_catalogs*"))
    import importlib.util
    assert importlib.util.find_spec("kernelnb.lab.i18n.notebooks") is not None  # what users run
