"""The Binder launch, rebuilt without Docker.

What repo2docker does with ``binder/``: install ``binder/requirements.txt`` into the image's Python,
then run ``binder/postBuild``, then start a Jupyter server at the repository root. Here:

* the repository's files (tracked and new, not the ignored build outputs) are copied to a temporary
  folder, as a fresh clone would be;
* a fresh virtual environment is made with ``--system-site-packages``, so that the packages this
  machine already has are inherited, and ``pip install -r binder/requirements.txt`` runs in it as
  repo2docker runs it: a pin this machine satisfies is kept (no download), one it does not (a
  newer dask than pinned, released since) is installed into the venv from the package index,
  and the test checks the venv then runs every pinned release;
  kernelnb itself is NOT inherited: ``binder/postBuild`` builds and installs it into the venv;
  the inherited packages' Jupyter data (Voila's templates, the widgets' front-end) lives under the
  base interpreter's ``share/jupyter``, which ``JUPYTER_PATH`` points at (on Binder all of it is in
  one environment);
* from that venv, ``kernelnb serve`` answers the gallery, and a Jupyter server configured by
  postBuild (as Binder starts it) serves the gallery at ``/kernelnb/`` and a dashboard at
  Voila's render URL ``/voila/render/dashboards/<name>.ipynb``.
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from kernelnb.lab.server.gallery import DASHBOARDS

from .conftest import REPO, TEST_OUTPUT, free_port, kernelnb_serve, stop_process, wait_http

pytestmark = pytest.mark.slow

BINDER = REPO / "binder"


def _runtime_requirements():
    """The requirements of binder/requirements.txt, build tools left out."""
    from packaging.requirements import Requirement

    for line in (BINDER / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        if req.name.lower() not in ("setuptools", "wheel", "cython"):
            yield req


def _repo_files():
    """Files a clone would have: git's tracked and untracked-not-ignored files."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs git to list the repository's files")
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=REPO, capture_output=True, check=True).stdout
    return sorted({f for f in out.decode().split("\0") if f})


def _clone(dest: Path) -> Path:
    override = os.environ.get("KERNELNB_TEST_DASHBOARDS")   # see conftest.dashboards_folder
    for rel in _repo_files():
        src = REPO / rel
        if not os.path.lexists(src):            # deleted in the work tree, not committed yet
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), target)
        elif src.is_file():
            shutil.copy2(src, target)
    if override:
        (dest / "dashboards").mkdir(exist_ok=True)
        for nb in Path(override).glob("*.ipynb"):
            shutil.copy2(nb, dest / "dashboards" / nb.name)
    return dest


def test_the_binder_venv_runs_the_pinned_releases(binder_env):
    """After ``pip install -r binder/requirements.txt``, the venv imports each runtime package at
    its pinned release, the inherited one or the one pip put in the venv over it."""
    repo, venv, env = binder_env
    pins = {req.name: str(req.specifier) for req in _runtime_requirements()}
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import json, sys; from importlib.metadata import version;"
         "print(json.dumps({n: version(n) for n in json.loads(sys.argv[1])}))", json.dumps(pins)],
        cwd=venv, env=env, capture_output=True, text=True, check=True).stdout
    have = json.loads(out)
    from packaging.specifiers import SpecifierSet
    wrong = {n: (pins[n], v) for n, v in have.items() if not SpecifierSet(pins[n]).contains(v)}
    assert not wrong, f"binder venv: pinned vs installed {wrong}"


def test_runtime_requirements_are_pinned_releases():
    """Binder builds the image months after a commit: every runtime package is pinned to one
    release (a range would let numpy, scipy or dask move under the pinned scikit-learn and
    widgets), and distributed is the same release as dask (they are released together)."""
    pins = {}
    for req in _runtime_requirements():
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{req}: pin one release (==)"
        pins[req.name.lower()] = specs[0].version
    for name in ("numpy", "scipy", "scikit-learn", "dask", "distributed"):
        assert name in pins, f"binder/requirements.txt does not pin {name}"
    assert pins["dask"] == pins["distributed"], pins


def test_postbuild_is_strict():
    text = (BINDER / "postBuild").read_text()
    assert text.startswith("#!") and re.search(r"^set -e", text, re.M)
    assert os.access(BINDER / "postBuild", os.X_OK)


def _inherit_running_environment(venv):
    """When the tests run in a virtual environment (CI's, a developer's), ``--system-site-packages``
    gives the new venv the *base* interpreter's packages, not this one's, and postBuild's pip
    downloaded and installed all of Jupyter again (minutes, and the package index needed). A
    path file adds this environment's site-packages after the venv's own: the pinned packages
    are inherited as the module docstring says. Its lines are plain folders, so this
    environment's own path files (an editable kernelnb's import hook) are not run: kernelnb is
    still found only once postBuild has installed it into the venv."""
    if sys.prefix == sys.base_prefix:
        return
    import sysconfig
    here = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    purelib = sysconfig.get_paths(vars={"base": str(venv), "platbase": str(venv)})["purelib"]
    Path(purelib, "_kernelnb_test_inherits.pth").write_text("\n".join(here) + "\n")


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory):
    root = tmp_path_factory.mktemp("binder")
    repo = _clone(root / "repo")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    _inherit_running_environment(venv)
    bindir = venv / "bin"
    env = {**os.environ, "VIRTUAL_ENV": str(venv), "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1",
           "JUPYTER_PATH": os.pathsep.join(
               p for p in dict.fromkeys((str(Path(sys.prefix) / "share" / "jupyter"),
                                         str(Path(sys.base_prefix) / "share" / "jupyter"),
                                         os.environ.get("JUPYTER_PATH"))) if p)}
    env.pop("PYTHONPATH", None)
    (TEST_OUTPUT / "logs").mkdir(parents=True, exist_ok=True)
    # repo2docker's two steps: the requirements (only what this machine lacks is downloaded; pip
    # leaves an inherited package where it is and puts the pinned one in the venv, ahead of it),
    # then postBuild.
    for name, cmd in (("binder_requirements",
                       [str(bindir / "python"), "-m", "pip", "install", "-r",
                        str(repo / "binder" / "requirements.txt")]),
                      ("binder_postBuild", ["bash", str(repo / "binder" / "postBuild")])):
        log = TEST_OUTPUT / "logs" / f"{name}.log"
        with open(log, "w") as fh:
            r = subprocess.run(cmd, cwd=repo, env=env, stdout=fh, stderr=subprocess.STDOUT,
                               timeout=600)
        assert r.returncode == 0, f"{name} failed:\n{log.read_text()[-4000:]}"
    return repo, venv, env


def test_postbuild_installs_kernelnb_into_the_venv(binder_env):
    repo, venv, env = binder_env
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import kernelnb, kernelnb.svm._smo as s, kernelnb.lab.server.gallery as g;"
         "print(kernelnb.__file__); print(s.__file__); print(g.dashboards_dir())"],
        cwd=venv, env=env, capture_output=True, text=True, check=True).stdout.split("\n")
    for path in out[:3]:
        assert Path(path).resolve().is_relative_to(venv.resolve()), out   # not the checkout's copy
    shipped = {p.stem for p in Path(out[2]).glob("*.ipynb")}
    assert {d.name for d in DASHBOARDS} <= shipped
    assert (venv / "bin" / "kernelnb").exists()
    assert (venv / "etc" / "jupyter" / "jupyter_server_config.d" / "kernelnb.json").is_file()


def test_binder_venv_serves_the_gallery(binder_env):
    repo, venv, env = binder_env
    with kernelnb_serve(command=[str(venv / "bin" / "kernelnb")], env=env, cwd=venv,
                        log_name="binder_serve") as (url, _):
        with urllib.request.urlopen(url, timeout=30) as r:
            page = r.read().decode()
    for d in DASHBOARDS:
        assert f'href="/voila/render/{d.notebook}"' in page and d.title in page


def test_binder_jupyter_server_renders_a_dashboard(binder_env):
    """As Binder starts it: a Jupyter server at the repository root, configured by postBuild."""
    repo, venv, env = binder_env
    port, token = free_port(), "binder-test-token"
    log = TEST_OUTPUT / "logs" / "binder_jupyter_server.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            # -P: as Binder's ``jupyter`` launcher script, the working directory (the checkout,
            # whose kernelnb has no compiled extensions) is not put on sys.path.
            [str(venv / "bin" / "python"), "-P", "-m", "jupyter_server", "--no-browser", f"--port={port}",
             "--ServerApp.ip=127.0.0.1", f"--ServerApp.root_dir={repo}",
             f"--IdentityProvider.token={token}",
             *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else [])],
            cwd=repo, env=env, stdout=fh, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/"
    try:
        try:
            gallery = wait_http(f"{base}kernelnb/?token={token}", 90, proc)
        except (TimeoutError, RuntimeError) as exc:
            raise AssertionError(f"{exc}\nserver log:\n{log.read_text()[-3000:]}") from None
        first = DASHBOARDS[0]
        assert f'href="/voila/render/dashboards/{first.notebook}"' in gallery
        with urllib.request.urlopen(f"{base}voila/render/dashboards/{first.notebook}?token={token}",
                                    timeout=180) as r:
            assert r.status == 200
            page = r.read().decode()
        assert "Traceback" not in page and "There was an error when executing" not in page
        assert "application/vnd.jupyter.widget-view+json" in page      # the dashboard's widgets
        # its typesetter is kernelnb's plain one (no MathJax loaded), served by the extension
        config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">'
                                      r"(.*?)</script>", page, re.S).group(1))
        assert config["fullMathjaxUrl"] == "/kernelnb/lab/static/plain-math.js"
        with urllib.request.urlopen(f"{base}kernelnb/lab/static/plain-math.js?token={token}",
                                    timeout=30) as r:
            assert r.status == 200 and b"window.MathJax" in r.read()
        # code cells are stripped: no line of their source shows in the page
        nb = json.loads((repo / "dashboards" / first.notebook).read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                for line in "".join(cell["source"]).splitlines():
                    if len(line.strip()) > 12:
                        assert html.escape(line.strip(), quote=False) not in page, line
    finally:
        stop_process(proc)
