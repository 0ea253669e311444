"""The notebooks generated from the exercises' one source: the student's holds no solution, the
nbgrader source has its markers and autograded cells, the French one speaks French, and the
solution notebooks execute with every check right."""
from __future__ import annotations

import nbformat
import pytest

from kernelnb.course import exercises
from kernelnb.course.build import notebook
from kernelnb.course.chapters import CHAPTERS

WRITTEN = sorted({e.chapter for e in exercises()})


def _solution_lines(ex):
    # lines of the solution that say something (an "answer = ..." of a starter is not one)
    return [l.strip() for l in ex.solution.splitlines() if len(l.strip()) > 12]


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("chapter", WRITTEN)
def test_student_notebook_holds_no_solution(chapter, lang):
    nb = notebook(chapter, "student", lang)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for ex in exercises(chapter):
        for line in _solution_lines(ex):
            assert line not in code, f"{ex.id}'s solution is in the student notebook: {line}"
        assert f'check("{ex.id}", answer)' in code and f'data("{ex.id}")' in code


def test_french_notebook_is_french():
    nb = notebook("03", "student", "fr")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "Exercice 03.1" in text and "Votre réponse" in text and nb.metadata["language"] == "fr"


@pytest.mark.parametrize("chapter", WRITTEN)
def test_nbgrader_source_has_markers_and_autograded_checks(chapter):
    nb = notebook(chapter, "nbgrader", "en")
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    exs = exercises(chapter)
    assert len(answers) == len(tests) == len(exs)
    for cell, ex in zip(answers, exs):
        assert cell.source.startswith("### BEGIN SOLUTION\n") and "### END SOLUTION" in cell.source
    for cell, ex in zip(tests, exs):
        assert f'assert_check("{ex.id}", answer)' in cell.source
        assert cell.metadata["nbgrader"]["locked"] and cell.metadata["nbgrader"]["points"] > 0


@pytest.mark.slow
def test_solution_notebooks_execute_with_every_check_right(tmp_path):
    from nbclient import NotebookClient
    # every chapter's solution cells in one notebook: one kernel start for the whole course
    merged = nbformat.v4.new_notebook(metadata=notebook(WRITTEN[0], "solution").metadata)
    merged.cells.append(nbformat.v4.new_code_cell(
        "from kernelnb.course import set_student\nset_student('nb-tester', keep=False)"))
    for chapter in WRITTEN:
        nb = notebook(chapter, "solution", "en")
        merged.cells.extend(c for c in nb.cells if c.cell_type == "code")
    for i, cell in enumerate(merged.cells):   # every check's result asserted right
        if cell.source.startswith("check("):
            cell.source = f"_r = {cell.source}\nassert _r.passed, _r.message\n_r"
    NotebookClient(merged, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = [o for c in merged.cells if c.cell_type == "code" and c.source.startswith("_r =")
             for o in c.outputs]
    assert len(shown) == sum(len(exercises(c)) for c in WRITTEN)
    assert all("right" in o["data"]["text/plain"] for o in shown)
