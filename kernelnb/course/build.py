"""Generate the course's notebooks from the exercises' one source (:mod:`kernelnb.course.chapters`).

Three notebooks per chapter, in English or French (the course's catalog):

* ``student``: statement, data cell, a starter cell, the check; no solution in it;
* ``solution``: the same with the solution's code in the answer cell (the tests execute these);
* ``nbgrader``: the source an instructor gives to ``nbgrader generate_assignment``: the solution
  between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` in a cell marked ``solution``, and an
  autograded, locked test cell per exercise that calls :func:`kernelnb.course.assert_check` (an
  ``AssertionError`` with the check's message when the answer is wrong: the feedback names it).

They are build outputs, never committed (nothing is kept twice by hand)::

    python -m kernelnb.course.build student  --lang fr --out exercises/    # every chapter
    python -m kernelnb.course.build nbgrader --chapter 03 --out source/ch03/

The book's exercise pages are made from the same source by the book's extension
(``docs/_ext/kernelnb_course_book.py``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import chapters
from ._i18n import N_, gettext
from ._checks import exercises

__all__ = ["MODES", "data_cell", "notebook", "write", "main", "notebook_name"]

MODES = ("student", "solution", "nbgrader")
_STARTER_NOTE = N_("# your code here: set answer")
_EXERCISES = N_("Exercises")
#: An exercise's heading (French puts a space before the colon).
_HEADING = N_("Exercise {id}: {title}")
#: The words of the book's exercise pages (docs/_ext/kernelnb_course_book.py).
PAGE_WORDS = {"title": N_("Exercises and quizzes of chapter {chapter}"),
              "intro": N_("Run these exercises in a notebook (`python -m kernelnb.course.build "
                          "student`, or the chapter's notebook of exercises): your data are drawn "
                          "for you and the checks answer there. The quizzes are checked in this "
                          "page."),
              "data": N_("Your data"), "start": N_("Start from"), "hint": N_("Hint {n}"),
              "solution": N_("Solution"), "quizzes": N_("Quizzes"),
              "chapter": N_("The chapter: {title}"), "index": N_("Exercises and quizzes")}


def _nbformat():
    import nbformat
    return nbformat


def data_cell(ex):
    """The code of the notebook cell that loads the student's data for ``ex``.

    Parameters
    ----------
    ex : Exercise
        The exercise.

    Returns
    -------
    str
        Its imports, ``d = data("<id>")`` and one variable per name of the statement.
    """
    names = list(ex.data_for("anonymous"))
    head = ex.imports + "from kernelnb.course import data, check\n"
    unpack = f"{', '.join(names)} = " + ", ".join(f"d.{n}" for n in names)
    return f'{head}d = data("{ex.id}")\n{unpack}\n'


def statement_markdown(ex, lang):
    """The Markdown of an exercise's statement in ``lang``."""
    _ = lambda m: gettext(m, lang)   # noqa: E731
    kind = _(ex.KINDS[ex.kind])
    heading = _(_HEADING).format(id=ex.id, title=_(ex.title))
    text = f"### {heading}\n\n*{kind}*\n\n{_(ex.statement)}\n"
    if ex.answer_kind:
        text += "\n" + _("**Your answer** (`answer`): {what}.").format(what=_(ex.answer_kind)) \
            + "\n"
    if ex.needs:
        text += "\n" + _("This exercise needs kernelnb's `{extra}` extra.").format(
            extra=ex.needs) + "\n"
    return text


def notebook_name(chapter, mode):
    """The file name of ``chapter``'s exercise notebook in ``mode``.

    Parameters
    ----------
    chapter : str
        ``"01"`` ... ``"15"``.
    mode : {"student", "solution", "nbgrader"}
        The notebook's kind (the nbgrader source has the student notebook's name).

    Returns
    -------
    str
        ``exercises_<chapter>.ipynb`` or ``exercises_<chapter>_solutions.ipynb``.
    """
    suffix = {"student": "", "solution": "_solutions", "nbgrader": ""}[mode]
    return f"exercises_{chapter}{suffix}.ipynb"


def notebook(chapter, mode="student", lang="en"):
    """The exercises of ``chapter`` as a notebook.

    Parameters
    ----------
    chapter : str
        ``"01"`` ... ``"15"``.
    mode : {"student", "solution", "nbgrader"}, default="student"
        Without the solutions; with them; nbgrader's source (solution markers, autograded
        test cells that call the checks).
    lang : {"en", "fr"}, default="en"
        The language of the statements and hints.

    Returns
    -------
    nbformat.NotebookNode
        The notebook, with no outputs.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got mode={mode!r}")
    nbf = _nbformat()
    _ = lambda m: gettext(m, lang)   # noqa: E731
    exs = exercises(chapter)
    if not exs:
        raise ValueError(f"chapter {chapter!r} has no exercises; chapters: "
                         f"{', '.join(chapters.CHAPTERS)}")
    nb = nbf.v4.new_notebook()
    nb.metadata.update({"kernelspec": {"name": "python3", "display_name": "Python 3",
                                       "language": "python"},
                        "language_info": {"name": "python"}, "language": lang,
                        "kernelnb": {"chapter": chapter, "mode": mode}})
    intro = _("Exercises of chapter {chapter}. Run each data cell: it gives you *your* data "
              "(drawn for you from your student id). Set `answer`, then run the check: it says "
              "whether the answer is right, or what is wrong with a hint.").format(
                  chapter=chapter)
    cells = [nbf.v4.new_markdown_cell(f"# {_(_EXERCISES)} {chapter}\n\n{intro}\n")]
    for ex in exs:
        slug = ex.id.replace(".", "_")
        cells.append(nbf.v4.new_markdown_cell(statement_markdown(ex, lang)))
        cells.append(nbf.v4.new_code_cell(data_cell(ex)))
        if mode == "student":
            cells.append(nbf.v4.new_code_cell(_(_STARTER_NOTE) + "\n" + ex.starter))
        elif mode == "solution":
            cells.append(nbf.v4.new_code_cell(ex.solution))
        else:
            cell = nbf.v4.new_code_cell(
                "### BEGIN SOLUTION\n" + ex.solution + "### END SOLUTION\n")
            cell.metadata["nbgrader"] = {"grade": False, "grade_id": f"answer_{slug}",
                                         "locked": False, "solution": True,
                                         "schema_version": 3}
            cells.append(cell)
        if ex.kind == "data":
            md = nbf.v4.new_markdown_cell(_("*Why this choice? Write it here.*"))
            cells.append(md)
        if mode == "nbgrader":
            test = nbf.v4.new_code_cell(
                f'from kernelnb.course import assert_check\nassert_check("{ex.id}", answer)\n')
            test.metadata["nbgrader"] = {"grade": True, "grade_id": f"check_{slug}",
                                         "locked": True, "points": ex.nbgrader_points,
                                         "solution": False, "schema_version": 3}
            cells.append(test)
        else:
            cells.append(nbf.v4.new_code_cell(f'check("{ex.id}", answer)'))
    nb.cells = cells
    return nb


def write(out, mode="student", lang="en", chapter_list=None):
    """Write the exercise notebooks of ``chapter_list`` under ``out``.

    Parameters
    ----------
    out : path-like
        The folder (made if missing).
    mode : {"student", "solution", "nbgrader"}, default="student"
        As in :func:`notebook`.
    lang : {"en", "fr"}, default="en"
        As in :func:`notebook`.
    chapter_list : list of str or None, default=None
        The chapters (None: every chapter that has exercises).

    Returns
    -------
    list of pathlib.Path
        The notebooks written.
    """
    nbf = _nbformat()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for chapter in chapter_list or chapters.CHAPTERS:
        if not exercises(chapter):
            continue
        path = out / notebook_name(chapter, mode)
        nbf.write(notebook(chapter, mode, lang), str(path))
        written.append(path)
    return written


def main(argv=None):
    """``python -m kernelnb.course.build {student,solution,nbgrader}``: write the notebooks.

    Parameters
    ----------
    argv : list of str or None, default=None
        The arguments (None: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status (0).
    """
    parser = argparse.ArgumentParser(prog="python -m kernelnb.course.build",
                                     description="Generate the course's exercise notebooks.")
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--lang", default="en", choices=("en", "fr"))
    parser.add_argument("--chapter", action="append", help="a chapter (01 ... 15); repeatable")
    parser.add_argument("--out", default=".", help="the folder to write to")
    args = parser.parse_args(argv)
    for path in write(args.out, args.mode, args.lang, args.chapter):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
