"""One exercise of the course, as its author writes it: statement, data, solution, check, hints.

An :class:`Exercise` is one source (written in a chapter module of
:mod:`kernelnb.course.chapters`, solution first): its statement, the student's data (drawn from
their seed, :mod:`kernelnb.course._identity`), the solution's code, the expected answer computed
with kernelnb's own solvers, how an answer is judged (to a tolerance the computation justifies, or
by a property: KKT conditions, positive semi-definiteness, an accuracy within a reference
cross-validation's spread), the wrong answers students make (:class:`Mistake`, each with its own
message) and two hints, the second more precise. Everything else (the student notebook, the book
page, the nbgrader source, the French) is generated from it (:mod:`kernelnb.course.build`); the
answers are judged by :mod:`kernelnb.course._checks`.
"""
from __future__ import annotations

import dataclasses
import typing

import numpy as np

from . import _identity
from ._i18n import N_

__all__ = ["Exercise", "Mistake", "close", "fmt"]

_CACHE: dict = {}
_CACHE_SIZE = 256


def fmt(value, lang, spec=".4g"):
    """A number as ``lang`` writes it (a decimal comma in French)."""
    text = format(float(value), spec)
    return text.replace(".", ",") if lang == "fr" else text


def close(rtol=1e-6, atol=1e-9):
    """A comparison of an answer (number or array) with a value, to ``rtol`` and ``atol``.

    Parameters
    ----------
    rtol, atol : float
        The tolerances of :func:`numpy.allclose`; each exercise says why its own are what they
        are (the computation's rounding, a solver's stopping tolerance).

    Returns
    -------
    callable
        ``same(answer, value) -> bool`` (False for an answer of another shape or not a number).
    """
    def same(answer, value):
        try:
            a = np.asarray(answer, dtype=float)
            v = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return False
        if a.shape != v.shape:
            if a.size == v.size == 1:
                a, v = a.reshape(()), v.reshape(())
            else:
                return False
        return bool(np.all(np.isfinite(a)) and np.allclose(a, v, rtol=rtol, atol=atol))
    same.rtol, same.atol = rtol, atol
    return same


@dataclasses.dataclass(frozen=True)
class Mistake:
    """A wrong answer students make, recognised and named.

    Parameters
    ----------
    message : str
        What is wrong, an English msgid (marked with ``N_``); may name ``{fields}`` that
        ``fields(d)`` fills.
    answer : callable or None
        ``answer(d) -> value``: the wrong answer computed on the data ``d`` (the tests feed it to
        the check); compared with the exercise's ``same``.
    detect : callable or None
        ``detect(answer, d) -> bool`` where a comparison with one value does not say it (e.g. a
        scaler fitted on all the data); default: ``same(answer, self.answer(d))``.
    example : callable or None
        ``example(d) -> value``: a wrong answer of this kind for the tests, when ``answer`` is
        not given.
    """

    message: str
    answer: typing.Optional[typing.Callable] = None
    detect: typing.Optional[typing.Callable] = None
    example: typing.Optional[typing.Callable] = None

    def wrong_answer(self, d):
        """A wrong answer of this kind on the data ``d`` (for the tests)."""
        return (self.example or self.answer)(d)

    def matches(self, answer, d, same):
        if self.detect is not None:
            try:
                return bool(self.detect(answer, d))
            except Exception:  # noqa: BLE001 - an odd answer is simply not this mistake
                return False
        try:
            return same(answer, self.answer(d))
        except Exception:  # noqa: BLE001
            return False


@dataclasses.dataclass
class Exercise:
    """One exercise, its one source (see the module docstring).

    Parameters
    ----------
    id : str
        ``"<chapter>.<n>"``, e.g. ``"03.2"``.
    kind : str
        ``"formula"`` (write it from the formula), ``"dashboard"`` (find it with a dashboard) or
        ``"data"`` (on real data: choose and justify, with the library).
    title, statement : str
        English msgids; the statement is Markdown (``$...$`` formulas) and names the data's
        variables.
    make_data : callable
        ``make_data(rng) -> dict``: the student's data from a ``numpy.random.Generator``; the
        keys are the variables of the notebook's data cell, in order.
    solution : str
        The solution's code: it sets ``answer`` from the data's variables.
    expected : callable
        ``expected(d) -> value``: the expected answer on the data ``d``, computed with kernelnb's
        solvers (or by the statement's formula in numpy where the exercise is that formula).
    hints : tuple of str
        Two msgids: the first hint, then a more precise one (never the solution).
    same : callable
        ``same(answer, expected) -> bool`` (default :func:`close` ``(1e-6, 1e-9)``).
    judge : callable or None
        ``judge(answer, d, expected) -> None`` when right, else ``(msgid, fields)``; replaces
        ``same`` for checks of a property (KKT conditions, PSD, a spread).
    mistakes : tuple of Mistake
        The wrong answers students make, each recognised with its own message.
    starter : str
        The code the student starts from (default ``answer = ...``).
    imports : str
        Code of the notebook's first cell (the imports the solution and the starter use).
    answer_kind : str
        What ``answer`` is, a msgid shown in the statement's last line.
    chapter_notebook : str
        The course notebook the exercise belongs to (its stem).
    needs : str
        The extra the check needs (``"lab"`` for a dashboard's), or "".
    nbgrader_points : int
        The points of the exercise's autograded test cell in the nbgrader assignment.
    """

    id: str
    kind: str
    title: str
    statement: str
    make_data: typing.Callable
    solution: str
    expected: typing.Callable
    hints: tuple
    same: typing.Callable = dataclasses.field(default_factory=close)
    judge: typing.Optional[typing.Callable] = None
    mistakes: tuple = ()
    starter: str = "answer = ...\n"
    imports: str = "import numpy as np\n"
    answer_kind: str = ""
    chapter_notebook: str = ""
    needs: str = ""
    nbgrader_points: int = 2

    KINDS = {"formula": N_("from the formula"), "dashboard": N_("with a dashboard"),
             "data": N_("on real data")}

    def __post_init__(self):
        if self.kind not in self.KINDS:
            raise ValueError(f"kind must be one of {sorted(self.KINDS)}, got kind={self.kind!r}")
        if len(self.hints) != 2:
            raise ValueError(f"exercise {self.id}: two hints, the second more precise")

    @property
    def chapter(self):
        return self.id.split(".")[0]

    def data_for(self, who=None):
        """The data of student ``who`` (None: the student of this kernel), cached."""
        s = _identity.seed(self.id, who)
        key = ("data", self.id, s)
        if key not in _CACHE:
            if len(_CACHE) > _CACHE_SIZE:
                _CACHE.clear()
            _CACHE[key] = self.make_data(np.random.default_rng(s))
        return _CACHE[key]

    def expected_for(self, who=None):
        s = _identity.seed(self.id, who)
        key = ("expected", self.id, s)
        if key not in _CACHE:
            _CACHE[key] = self.expected(self.data_for(who))
        return _CACHE[key]

    def is_right(self, answer, d, expected):
        """``None`` when ``answer`` is right on ``d``, else ``(msgid, fields)``."""
        if self.judge is not None:
            return self.judge(answer, d, expected)
        if self.same(answer, expected):
            return None
        return (N_("this is not the expected value on your data."), {})

    def run_solution(self, d):
        """The solution's answer on the data ``d`` (its code run with the data's variables)."""
        scope: dict = {}
        exec(compile(self.imports, f"<{self.id} imports>", "exec"), scope)   # noqa: S102
        scope.update(d)
        exec(compile(self.solution, f"<{self.id} solution>", "exec"), scope)   # noqa: S102
        return scope["answer"]
