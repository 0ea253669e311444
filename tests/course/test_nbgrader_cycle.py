"""The nbgrader cycle for real, with nbgrader's own command line on a temporary course and exchange:
the instructor releases the chapter 3 assignment (generated from the exercises' source), two
students fetch it, one answers right and one wrong, both submit; the instructor collects,
autogrades (the checks run in nbgrader's test cells, on each student's own data), exports the
grades (CSV) and releases feedback, which each student fetches: full marks for one, less for the
other, and the feedback names what was wrong.

On a hub each student is a Unix account; here one account plays the three parts, so nbgrader's
notion of the current user (``nbgrader.utils.get_osusername``) is set per command from
``NBGRADER_TEST_USER`` by a small launcher. Everything else is nbgrader's unchanged path."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
import textwrap

import nbformat
import pytest

pytest.importorskip("nbgrader", reason="nbgrader is in kernelnb's [hub] extra")

from kernelnb.course.build import notebook   # noqa: E402

pytestmark = pytest.mark.slow

LAUNCH = textwrap.dedent("""
    import os, sys
    import nbgrader.utils as u
    u.get_osusername = lambda: os.environ["NBGRADER_TEST_USER"]
    from nbgrader.apps.nbgraderapp import NbGraderApp
    sys.exit(NbGraderApp.launch_instance())
""")


def _run(args, cwd, user, config):
    env = {**os.environ, "NBGRADER_TEST_USER": user, "HOME": str(cwd),
           "JUPYTER_CONFIG_DIR": str(config), "KERNELNB_STUDENT_FILE": str(cwd / ".student")}
    for name in ("JUPYTERHUB_USER", "NBGRADER_EXECUTION", "KERNELNB_LANG"):
        env.pop(name, None)
    proc = subprocess.run([sys.executable, "-c", LAUNCH, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"nbgrader {' '.join(args)} as {user}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


def test_release_fetch_submit_collect_autograde_feedback(tmp_path):
    course, exchange, config = tmp_path / "course", tmp_path / "exchange", tmp_path / "config"
    for d in (course, exchange, config):
        d.mkdir()
    exchange.chmod(0o777)
    (config / "nbgrader_config.py").write_text(textwrap.dedent(f"""
        c = get_config()
        c.CourseDirectory.course_id = "kernelnb"
        c.CourseDirectory.root = {str(course)!r}
        c.CourseDirectory.db_url = "sqlite:///{course}/gradebook.db"
        c.Exchange.root = {str(exchange)!r}
        c.Exchange.path_includes_course = True
        c.ExecutePreprocessor.timeout = 300
    """))
    source = course / "source" / "ch03"
    source.mkdir(parents=True)
    nbformat.write(notebook("03", "nbgrader", "en"), str(source / "exercises_03.ipynb"))

    teacher = dict(cwd=course, user="teacher", config=config)
    # generate_assignment adds the assignment to the gradebook, autograde the students it finds
    _run(["generate_assignment", "ch03", "--force"], **teacher)
    released = nbformat.read(str(course / "release" / "ch03" / "exercises_03.ipynb"), 4)
    assert "### BEGIN SOLUTION" not in str(released) and "svc.support_" not in str(released)
    _run(["release_assignment", "ch03"], **teacher)

    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source
                 for c in notebook("03", "nbgrader", "en").cells
                 if c.metadata.get("nbgrader", {}).get("solution")}
    for who in ("alice", "bob"):
        home = tmp_path / who
        home.mkdir()
        _run(["fetch_assignment", "ch03", "--course", "kernelnb"], cwd=home, user=who,
             config=config)
        path = home / "kernelnb" / "ch03" / "exercises_03.ipynb"   # path_includes_course
        nb = nbformat.read(str(path), 4)
        for cell in nb.cells:
            gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            if gid in solutions:
                code = solutions[gid]
                if who == "bob" and gid == "answer_03_1":    # sigma^2 for 2 sigma^2
                    code = code.replace("(2 * sigma ** 2)", "(sigma ** 2)")
                cell.source = code
        nbformat.write(nb, str(path))
        _run(["submit", "ch03", "--course", "kernelnb"], cwd=home, user=who, config=config)

    _run(["collect", "ch03"], **teacher)
    _run(["autograde", "ch03", "--force"], **teacher)
    _run(["export", "--to", str(course / "grades.csv")], **teacher)
    with open(course / "grades.csv") as f:
        grades = {row["student_id"]: row for row in csv.DictReader(f)}
    full = float(grades["alice"]["max_score"])
    assert full > 0 and float(grades["alice"]["score"]) == full
    assert 0 < float(grades["bob"]["score"]) < full

    _run(["generate_feedback", "ch03", "--force"], **teacher)
    _run(["release_feedback", "ch03"], **teacher)
    for who in ("alice", "bob"):
        home = tmp_path / who
        _run(["fetch_feedback", "ch03", "--course", "kernelnb"], cwd=home, user=who,
             config=config)
        pages = list((home / "kernelnb" / "ch03" / "feedback").rglob("*.html"))
        assert pages, f"no feedback fetched for {who}"
        text = pages[0].read_text()
        if who == "bob":
            assert "AssertionError" in text and "divides by σ²" in text
        else:
            assert "AssertionError" not in text
