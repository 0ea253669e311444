"""CI sees what a newcomer sees: ``.ci/run`` makes a fresh virtual environment on every run and runs
the README's test command, exactly as written there, inside it; a failure of either half (pytest's
exit code 5, "no tests collected", included) fails the run.  And only ``.ci/run`` knows where CI
keeps its data folder: the rest of the repository finds data through ``KERNELNB_DATA`` or the user
cache, as it does for anyone.

The script is run for real, with stand-ins for ``python3``, ``chromium`` and the hub's proxy first
on the PATH that log each call and exit with the code a test asks for (nothing is installed or
built); and once on a PATH with neither, where a stand-in for ``apt-get`` records what it is asked
to install.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CI_RUN = ROOT / ".ci" / "run"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def readme_test_command():
    """The README's test command: its one indented (code) line that runs pytest."""
    lines = [ln.strip() for ln in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
             if ln.startswith("    ") and "-m pytest" in ln]
    assert len(lines) == 1, f"expected one test command in README.md, found {lines}"
    return lines[0]


# A stand-in for python3 (and, copied into the virtual environment it "creates", for that
# environment's python3): logs "<VIRTUAL_ENV>|<its own path>|<arguments>" and answers
#   -c ...              -> exit 0
#   -m venv DIR         -> DIR/bin/activate (puts DIR/bin first on the PATH) and DIR/bin/python3
#   -m pip ...          -> exit $FAKE_PIP_RC
#   -m pytest ...       -> exit $FAKE_PYTEST_RC
#   .../build_connect4.py ... --data-home DIR -> writes the file when $FAKE_BUILD_RC is 0
FAKE_PYTHON = """#!{python}
import os, shutil, sys
from pathlib import Path

args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write("|".join([os.environ.get("VIRTUAL_ENV", ""), sys.argv[0], " ".join(args)]) + "\\n")
if args[:1] == ["-c"]:                  # the check that venv can be made
    sys.exit(0)
if args[:2] == ["-m", "venv"]:
    venv = Path(args[2])
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "activate").write_text(
        f'export VIRTUAL_ENV="{{venv}}"\\nexport PATH="{{venv}}/bin:$PATH"\\n')
    shutil.copy(sys.argv[0], venv / "bin" / "python3")
    sys.exit(0)
if args[:2] == ["-m", "pip"]:
    sys.exit(int(os.environ.get("FAKE_PIP_RC", "0")))
if args[:2] == ["-m", "pytest"]:
    # which job: the wheel's runs in a copy of tests/ named from-wheel, the lowest versions' in
    # the environment named lowest; what each saw of the PATH goes to FAKE_ENV_LOG
    job = ("WHEEL" if Path.cwd().name == "from-wheel" else
           "LOWEST" if os.environ.get("VIRTUAL_ENV", "").endswith("/lowest") else "")
    with open(os.environ["FAKE_ENV_LOG"], "a") as log:
        log.write("|".join([job or "MAIN", str(Path.cwd()), str(shutil.which("gcc")),
                            str(shutil.which("cc"))]) + "\\n")
    sys.exit(int(os.environ.get("FAKE_" + (job + "_" if job else "") + "PYTEST_RC", "0")))
if args[:3] == ["-m", "build", "--outdir"]:       # the sdist, then the wheel from it
    out = Path(args[3])
    out.mkdir(parents=True)
    (out / "kernelnb-0.1.0.tar.gz").write_bytes(b"")
    (out / "kernelnb-0.1.0-cp311-cp311-linux_x86_64.whl").write_bytes(b"")
    sys.exit(int(os.environ.get("FAKE_WHEEL_BUILD_RC", "0")))
if args[:4] == ["-m", "auditwheel", "repair", "--wheel-dir"]:
    out = Path(args[4])
    out.mkdir(parents=True)
    (out / "kernelnb-0.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
     ).write_bytes(b"")
    sys.exit(int(os.environ.get("FAKE_REPAIR_RC", "0")))
if args and args[0] == ".ci/lowest_constraints.py":   # the real script
    import subprocess
    sys.exit(subprocess.call([sys.executable, *args]))
if args and args[0].endswith("build_connect4.py"):
    rc = int(os.environ.get("FAKE_BUILD_RC", "1"))
    if rc == 0:
        out = Path(args[args.index("--data-home") + 1]) / "connect-4" / "connect-4.data.gz"
        out.parent.mkdir(parents=True)
        out.write_bytes(b"")
    sys.exit(rc)
sys.exit(f"unexpected python3 call: {{args}}")
"""


#: What .ci/run runs besides bash's builtins and the stand-ins (for a PATH of nothing else).
SYSTEM_TOOLS = ("dirname", "mktemp", "rm", "id", "head", "grep", "mkdir", "ln", "cp")


def run_ci(tmp_path, bare=False, **codes):
    """Run .ci/run with the stand-ins; returns (exit code, [(venv, program, arguments)], output).

    ``bare``: a PATH of the stand-in for python3, the system tools the script runs and stand-ins
    for ``apt-get`` and ``sudo`` (which log "apt-get <arguments>"), and no chromium nor proxy."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    fake = bin_dir / "python3"
    fake.write_text(FAKE_PYTHON.format(python=sys.executable))
    stand_ins = {"chromium": "#!/bin/sh\nexit 0\n",
                 # what .ci/run reads of the proxy: a Node.js script (its first line)
                 "configurable-http-proxy": "#!/usr/bin/env node\nprocess.exit(0)\n"}
    if bare:
        stand_ins = {"apt-get": '#!/bin/sh\necho "apt-get $*" >> "$FAKE_LOG"\n',
                     "sudo": '#!/bin/sh\nexec "$@"\n'}
        for tool in SYSTEM_TOOLS:
            (bin_dir / tool).symlink_to(shutil.which(tool))
    for name, text in stand_ins.items():
        (bin_dir / name).write_text(text)
    for path in bin_dir.iterdir():
        if not path.is_symlink():
            path.chmod(0o755)
    log = tmp_path / "calls.log"
    log.touch()
    (tmp_path / "env.log").touch()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "KERNELNB_DATA")}
    path = str(bin_dir) if bare else f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env.update(PATH=path, FAKE_LOG=str(log), FAKE_ENV_LOG=str(tmp_path / "env.log"),
               TMPDIR=str(tmp_path), **{k: str(v) for k, v in codes.items()})
    proc = subprocess.run([shutil.which("bash"), str(CI_RUN)], env=env, capture_output=True,
                          text=True, timeout=120)
    calls = [tuple(line.split("|", 2)) if "|" in line else ("", "", line)
             for line in log.read_text().splitlines()]
    return proc.returncode, calls, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def passing_run(tmp_path_factory):
    """One run in which every step passes (no Connect-4 file built), read by each test that
    checks what a passing run does: (its folder, exit code, calls, output)."""
    folder = tmp_path_factory.mktemp("passing-run")
    return (folder, *run_ci(folder, FAKE_BUILD_RC=1))


def _in_venv(calls, argv):
    """The calls of ``python3 <argv>`` made by a virtual environment's python3."""
    return [c for c in calls if c[2] == argv and c[0] and c[1] == f"{c[0]}/bin/python3"]


def test_the_readme_command_is_in_the_script_verbatim():
    command = readme_test_command()
    assert command == 'python3 -m pip install -e ".[test]" && python3 -m pytest -ra'
    script = CI_RUN.read_text(encoding="utf-8")
    assert any(line.startswith(command) for line in script.splitlines()), (
        f"{CI_RUN.relative_to(ROOT)} does not run the README's command as written: {command}")


def test_a_fresh_environment_and_the_readme_command_in_it(passing_run):
    tmp_path, rc, calls, out = passing_run
    assert rc == 0, out
    # first a new virtual environment, made by the python3 found on the PATH ...
    calls = [c for c in calls if not c[2].startswith("-c ")]
    assert calls[0][0] == "" and calls[0][2].startswith("-m venv ")
    venv = calls[0][2].split(" ", 2)[2]
    assert Path(venv).is_relative_to(tmp_path)              # a new folder of this run (TMPDIR)
    # ... then the README's two commands, in order, by that environment's python3
    pip, pytest_ = readme_test_command().split(" && ")
    assert [c[2] for c in calls[1:3]] == [pip.removeprefix("python3 ").replace('"', ""),
                                          pytest_.removeprefix("python3 ")]
    assert all(c[0] == venv and c[1] == f"{venv}/bin/python3" for c in calls[1:3])
    assert not Path(venv).exists()                          # and removed at the end
    assert "Connect-4 not built" in out


def test_chromium_and_the_hubs_proxy_are_installed_from_debian_when_missing(tmp_path,
                                                                           passing_run):
    rc, calls, out = run_ci(tmp_path, bare=True, FAKE_BUILD_RC=1)
    assert rc == 0, out
    apt = [c[2] for c in calls if c[2].startswith("apt-get ")]
    assert "apt-get install -y chromium" in apt
    assert "apt-get install -y node-configurable-http-proxy" in apt
    # and not when they are there (the stand-ins of run_ci)
    _, rc, calls, out = passing_run
    assert rc == 0 and not [c for c in calls if c[2].startswith("apt-get ")], out


def test_the_connect4_file_tests_run_when_the_file_is_built(tmp_path):
    rc, calls, out = run_ci(tmp_path, FAKE_BUILD_RC=0)
    assert rc == 0, out
    assert _in_venv(calls, "-m pytest -ra tests/datasets/test_connect4.py")


@pytest.mark.parametrize("codes", [dict(FAKE_PYTEST_RC=1), dict(FAKE_PYTEST_RC=5),
                                   dict(FAKE_PIP_RC=1)],
                         ids=["tests-fail", "no-tests-collected", "install-fails"])
def test_a_failure_fails_the_run(tmp_path, codes):
    rc, calls, out = run_ci(tmp_path, FAKE_BUILD_RC=0, **codes)
    assert rc == int(next(iter(codes.values()))), out
    assert not any("build_connect4" in c[2] for c in calls)   # nothing runs after the failure
    if "FAKE_PIP_RC" in codes:
        assert not _in_venv(calls, "-m pytest -ra")


def _work(calls):
    """The run's folder ($WORK): where the first virtual environment was made."""
    first = next(c for c in calls if c[2].startswith("-m venv "))
    return Path(first[2].split(" ", 2)[2]).parent


def _env_log(tmp_path):
    """What each pytest call saw: [(job, cwd, gcc on PATH, cc on PATH)]."""
    return [tuple(line.split("|")) for line in (tmp_path / "env.log").read_text().splitlines()]


def test_the_wheel_is_built_repaired_and_tested_where_there_is_no_compiler(passing_run):
    tmp_path, rc, calls, out = passing_run
    assert rc == 0, out
    work = _work(calls)
    main_venv = str(work / "venv")
    # build (sdist, then the wheel from it) and repair, by the main environment's python3
    build = [c for c in calls if c[2].startswith("-m build ")]
    assert [c[2] for c in build] == [f"-m build --outdir {work}/dist ."]
    assert build[0][1] == f"{main_venv}/bin/python3"
    repair = [c[2] for c in calls if c[2].startswith("-m auditwheel ")]
    assert repair == [f"-m auditwheel repair --wheel-dir {work}/wheelhouse "
                      f"{work}/dist/kernelnb-0.1.0-cp311-cp311-linux_x86_64.whl"]
    # the repaired (manylinux) wheel alone, in an environment of its own
    wheel = (f"{work}/wheelhouse/kernelnb-0.1.0-cp311-cp311-manylinux_2_17_x86_64."
             "manylinux2014_x86_64.whl")
    installs = [c for c in calls if c[1] == f"{work}/wheel/bin/python3"
                and c[2].startswith("-m pip install")]
    assert [c[2] for c in installs] == [f"-m pip install {wheel} pytest>=7 pytest-timeout>=2 "
                                        "numpydoc>=1.6",
                                        f"-m pip install {wheel}[lab] nbclient>=0.10 "
                                        "nbformat>=5.9"]
    # its tests: the library's alone, then the lab's with the lab extra, from a copy of tests/
    # outside the checkout, with no compiler
    runs = _env_log(tmp_path)
    wheel_runs = [r for r in runs if r[0] == "WHEEL"]
    assert len(wheel_runs) == 2
    for run in wheel_runs:
        assert Path(run[1]) == work / "from-wheel"
        assert not Path(run[1]).is_relative_to(ROOT)
        assert run[2:] == ("None", "None")                    # neither gcc nor cc on its PATH
    pytest_args = [c[2] for c in calls if c[1] == f"{work}/wheel/bin/python3"
                   and c[2].startswith("-m pytest")]
    assert len(pytest_args) == 2
    for folder in ("tests/svm", "tests/kmp", "tests/neighbors", "tests/test_packaging.py"):
        assert f" {folder}" in pytest_args[0]
    assert "tests/lab" not in pytest_args[0] and "tests/browser" not in pytest_args[0]
    assert " tests/lab " in pytest_args[1] and "tests/browser" not in pytest_args[1]
    assert "--ignore=tests/lab/book" in pytest_args[1]
    assert (work / "from-wheel").exists() is False             # the run's folder is removed


def test_the_lowest_versions_job(passing_run):
    tmp_path, rc, calls, out = passing_run
    assert rc == 0, out
    work = _work(calls)
    assert any(c[2] == ".ci/lowest_constraints.py lab test-tools" for c in calls)
    lowest = f"{work}/lowest/bin/python3"
    installs = [c[2] for c in calls if c[1] == lowest and c[2].startswith("-m pip install")]
    assert len(installs) == 1 and installs[0].startswith(f"-m pip install -c {work}/lowest.txt ")
    assert "manylinux2014_x86_64.whl[lab]" in installs[0]
    tests = [c[2] for c in calls if c[1] == lowest and c[2].startswith("-m pytest")]
    assert len(tests) == 1
    assert '-m not slow and not browser tests' in tests[0].replace('"', "")
    for left_out in ("tests/browser", "tests/test_docs.py", "tests/lab/book",
                     "tests/lab/test_hub.py"):
        assert f"--ignore={left_out}" in tests[0]
    runs = [r for r in _env_log(tmp_path) if r[0] == "LOWEST"]
    assert len(runs) == 1 and Path(runs[0][1]) == ROOT        # the checkout's sources


@pytest.mark.parametrize("codes", [dict(FAKE_WHEEL_BUILD_RC=1), dict(FAKE_REPAIR_RC=1),
                                   dict(FAKE_WHEEL_PYTEST_RC=1), dict(FAKE_LOWEST_PYTEST_RC=1),
                                   dict(FAKE_LOWEST_PYTEST_RC=5)],
                         ids=["build-fails", "repair-fails", "wheel-tests-fail",
                              "lowest-tests-fail", "lowest-no-tests"])
def test_a_failure_of_a_second_job_fails_the_run(tmp_path, codes):
    rc, calls, out = run_ci(tmp_path, FAKE_BUILD_RC=1, **codes)
    assert rc == int(next(iter(codes.values()))), out
    if "FAKE_LOWEST_PYTEST_RC" not in codes:                  # nothing after the failed step
        assert not any(c[2].startswith(".ci/lowest_constraints.py") for c in calls)


def test_the_lowest_constraints_are_pyprojects_lower_bounds():
    import runpy
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    r = subprocess.run([sys.executable, ".ci/lowest_constraints.py", "lab", "test-tools"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    pins = dict(line.split("==") for line in r.stdout.split())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for requirement in project["dependencies"] + project["optional-dependencies"]["lab"]:
        name, bound = re.match(r"([A-Za-z0-9._-]+)[^>]*>=\s*([0-9.]+)", requirement).groups()
        assert pins[re.sub(r"[-_.]+", "-", name).lower()] == bound, requirement
    assert {"pytest", "pytest-timeout"} <= set(pins) and "jupyterhub" not in pins
    module = runpy.run_path(str(ROOT / ".ci" / "lowest_constraints.py"))
    assert module["lower_bounds"](["a>=1.2", "b[x]>=3; python_version<'4'", "kernelnb[lab]"]) \
        == [("a", "1.2"), ("b", "3")]
    with pytest.raises(SystemExit, match="declares no lower bound"):
        module["lower_bounds"](["c<2"])


# Where CI keeps its data: the folder beside the clone, ``../shared``.  Only .ci/run may name it
# (this file and tests/test_self_contained.py name it as the pattern they look for).
SHARED = re.compile(r"\.\./shared\b|[\"']shared[\"']\s*/\s*[\"']data[\"']")
PROJECT = ["README.md", "pyproject.toml", "setup.py", "kernelnb", "tests", "benchmarks",
           "notebooks", "dashboards", "scripts", "docs", "binder"]


def project_files():
    """The repository's files: git's list (tracked, and new files it does not ignore), else the
    project's folders walked (a copy without git)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], cwd=ROOT, capture_output=True,
                             check=True).stdout
        return [ROOT / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        paths = [ROOT / name for name in PROJECT]
        return [f for p in paths for f in ([p] if p.is_file() else p.rglob("*"))]


def test_only_the_ci_script_names_the_shared_data_folder():
    allowed = {CI_RUN, Path(__file__).resolve(), ROOT / "tests" / "test_self_contained.py"}
    found = []
    for path in project_files():
        if path in allowed or not path.is_file() or path.suffix in (".so", ".c", ".png", ".gz"):
            continue
        for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if SHARED.search(line):
                found.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()[:100]}")
    assert not found, "data looked for beside the checkout:\n" + "\n".join(found)


def test_the_pattern_finds_the_old_lookups():
    assert SHARED.search('REAL = ROOT / ".." / "shared" / "data" / "fashion-mnist"')
    assert SHARED.search("also look in `../shared/data` beside the repository")
    assert SHARED.search('parents[2].parent / "shared" / "data"')
    assert not SHARED.search("shared memory") and not SHARED.search('shared_xaxes="columns"')


def _library_tests():
    """The paths of the wheel job's LIBRARY_TESTS array: what runs where only the core is
    installed."""
    m = re.search(r"LIBRARY_TESTS=\(([^)]*)\)", CI_RUN.read_text(encoding="utf-8"))
    assert m, "LIBRARY_TESTS not found in .ci/run"
    return m.group(1).split()


def test_the_library_tests_import_nothing_the_core_lacks():
    """The wheel job runs LIBRARY_TESTS with the core alone: a test there that imports a module
    of an extra (the lab's ipywidgets, say, even inside the test's body) fails only in CI.  An
    extra is reached there through pytest.importorskip, which says why it skips (an import of
    a module the same file asks importorskip for is one that runs after it)."""
    import ast

    from tests.test_packaging import NOT_IN_THE_CORE

    found = []
    for name in _library_tests():
        path = ROOT / name
        assert path.exists(), f"{name} in LIBRARY_TESTS does not exist"
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            tree = ast.parse(file.read_text(encoding="utf-8"))
            skipped = {node.args[0].value.split(".")[0] for node in ast.walk(tree)
                       if isinstance(node, ast.Call) and getattr(node.func, "attr", None)
                       == "importorskip" and node.args and isinstance(node.args[0], ast.Constant)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module]
                else:
                    continue
                for mod in names:
                    top = mod.split(".")[0]
                    if top in skipped:
                        continue
                    if top in NOT_IN_THE_CORE or mod.startswith("kernelnb.lab"):
                        found.append(f"{file.relative_to(ROOT)}:{node.lineno}: {mod}")
    assert not found, "library tests importing an extra:\n" + "\n".join(found)
