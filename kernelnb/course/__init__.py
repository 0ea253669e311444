"""kernelnb's course as something a student does: exercises whose answers kernelnb checks.

In a notebook, a JupyterLab session or a Voila page::

    from kernelnb.course import data, check
    d = data("03.2")            # this student's data for exercise 03.2
    answer = ...                # computed from d
    check("03.2", answer)       # right, or what is wrong and a hint, in the student's language

Each student's data are drawn from a seed of their identity (the JupyterHub user, or the id set
once with :func:`set_student`) and the exercise, and the check computes the expected answer on
them, so a copied answer does not fit. In an nbgrader test cell :func:`assert_check` (or
:func:`check` under nbgrader's autograder) raises ``AssertionError`` with the same message.

The exercises are written in :mod:`kernelnb.course.chapters`, one module per chapter, one source
per exercise (statement, data, solution, check, hints, the wrong answers students make);
:mod:`kernelnb.course.build` generates from them the student notebooks, the solution notebooks,
the nbgrader sources, the book's pages and their French versions; the quizzes of the book are
written beside them (:mod:`kernelnb.course.quizzes`).
"""
from ._i18n import set_language
from ._identity import seed, set_student, student
from ._checks import Result, assert_check, check, data, exercises, get, reset_attempts
from ._exercise import Exercise, Mistake

__all__ = ["check", "assert_check", "data", "set_student", "student", "seed", "set_language",
           "exercises", "get", "reset_attempts", "Exercise", "Mistake", "Result"]
