"""The course's exercises found by id, and the answers a student gets.

The exercises are those of the chapter modules of :mod:`kernelnb.course.chapters`
(:class:`kernelnb.course._exercise.Exercise`), registered when first asked for.
:func:`check` judges an answer on the student's own data and returns a :class:`Result` (shown in
a notebook, JupyterLab or a Voila page as a coloured box, as text elsewhere); under nbgrader's
autograder, with ``strict=True`` or through :func:`assert_check`, a wrong answer raises
``AssertionError`` with the same message. The answer says what is wrong and gives a hint (the first
on the first wrong try of an exercise in this kernel, the more precise one after), never the
solution.
"""
from __future__ import annotations

import html
import os

import numpy as np

from . import _identity, chapters
from ._exercise import fmt
from ._i18n import N_, gettext, resolve

__all__ = ["Result", "register", "get", "exercises", "data", "check", "assert_check",
           "reset_attempts"]

_REGISTRY: dict = {}
_ATTEMPTS: dict = {}
_loaded = []


class Result:
    """A check's answer: right or not, and the message in the student's language.

    Shown as a coloured box in a notebook, JupyterLab or a Voila page (``_repr_html_``, with a
    ``role="status"`` so that a screen reader reads it), as text elsewhere. True when right.

    Parameters
    ----------
    exercise : str
        The exercise's id.
    passed : bool
        Whether the answer is right.
    message : str
        What the student reads: right, or what is wrong and a hint.
    kind : str
        ``"right"``, ``"mistake"`` (a known wrong answer), ``"other-data"`` (fits another
        student's data), ``"wrong"`` or ``"no-answer"``.
    lang : str
        The language of ``message``.
    """

    def __init__(self, exercise, passed, message, kind, lang):
        self.exercise, self.passed, self.message, self.kind, self.lang = (
            exercise, passed, message, kind, lang)

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return self.message

    def _repr_html_(self):
        colour = ("#e6f4ea", "#1e6b34") if self.passed else ("#fdecea", "#8a1c14")
        body = html.escape(self.message).replace("\n", "<br>")
        return (f'<div class="kernelnb-check" role="status" lang="{self.lang}" '
                f'style="background:{colour[0]};color:{colour[1]};padding:6px 10px;'
                f'border-radius:4px;font-family:sans-serif">{body}</div>')


def register(exercise):
    """Add ``exercise`` to the course (its id must be new)."""
    if exercise.id in _REGISTRY:
        raise ValueError(f"exercise id {exercise.id!r} is registered twice")
    _REGISTRY[exercise.id] = exercise
    return exercise


def _load():
    """Register every chapter's exercises, once."""
    if _loaded:
        return
    _loaded.append(True)
    for ex in chapters.exercises():
        register(ex)


def get(exercise_id):
    """The exercise ``exercise_id`` (e.g. ``"03.2"``).

    Parameters
    ----------
    exercise_id : str
        The exercise's id, ``"<chapter>.<n>"`` (e.g. ``"03.2"``).

    Returns
    -------
    Exercise
        Its one source: statement, data, solution, check, hints.

    Raises
    ------
    KeyError
        With the ids there are, when there is none of that id.
    """
    _load()
    if not isinstance(exercise_id, str) or exercise_id not in _REGISTRY:
        raise KeyError(f"no exercise {exercise_id!r}; the exercises are "
                       f"{', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[exercise_id]


def exercises(chapter=None):
    """The course's exercises (of one chapter: ``"03"``), in order.

    Parameters
    ----------
    chapter : str or None, default=None
        ``"01"`` ... ``"15"``; None: every chapter.

    Returns
    -------
    list of Exercise
        By id.
    """
    _load()
    found = [e for k, e in sorted(_REGISTRY.items()) if chapter is None or e.chapter == chapter]
    return found


class Data(dict):
    """The student's data for an exercise: a dict whose entries are also attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def data(exercise_id, student=None):
    """The data of exercise ``exercise_id`` for this student (drawn from their seed).

    Parameters
    ----------
    exercise_id : str
        The exercise's id, ``"<chapter>.<n>"`` (e.g. ``"03.2"``).
    student : str or None
        Another student's id (an instructor looking at a student's data); None: this kernel's
        student (:func:`kernelnb.course.student`).

    Returns
    -------
    Data
        The variables named by the statement (a copy: changing them changes nothing of the
        check's).
    """
    ex = get(exercise_id)
    return Data({k: (v.copy() if isinstance(v, np.ndarray) else v)
                 for k, v in ex.data_for(student).items()})


def _other_students():
    """Ids whose data an answer may have been computed on: the default id and a course roster
    (``KERNELNB_COURSE_ROSTER``, comma-separated), this student left out."""
    roster = [s.strip() for s in os.environ.get("KERNELNB_COURSE_ROSTER", "").split(",")]
    me = _identity.student()
    return [s for s in dict.fromkeys([_identity.ANONYMOUS, *roster]) if s and s != me]


def _blank(answer):
    return answer is None or answer is Ellipsis


def _judge(ex, answer, lang):
    """(kind, message) of ``answer`` to exercise ``ex``."""
    _ = lambda m: gettext(m, lang)   # noqa: E731
    if _blank(answer):
        return "no-answer", _("no answer yet: set answer to your result, then run the check.")
    d, expected = ex.data_for(), ex.expected_for()
    try:
        verdict = ex.is_right(answer, d, expected)
    except Exception as exc:  # noqa: BLE001 - a malformed answer is a wrong answer, named
        verdict = (N_("the answer could not be read ({error})."),
                   {"error": f"{type(exc).__name__}: {str(exc)[:120]}"})
    if verdict is None:
        return "right", None
    for mistake in ex.mistakes:
        if mistake.matches(answer, d, ex.same):
            return "mistake", _(mistake.message)
    if ex.judge is None:
        try:
            a = np.asarray(answer, dtype=float)
            e = np.asarray(expected, dtype=float)
            if a.ndim == 2 and a.shape == e.T.shape and a.shape != e.shape and \
                    ex.same(a.T, e):
                return "mistake", _("your matrix is the transpose of the expected one: check "
                                    "which index runs over rows and which over columns.")
            if a.ndim == 2 and a.shape == e.shape and a.shape[0] == a.shape[1] and \
                    not ex.same(a, e) and ex.same(a.T, e):
                return "mistake", _("your matrix is the transpose of the expected one: check "
                                    "which index runs over rows and which over columns.")
            if a.shape != e.shape and a.size != e.size:
                return "wrong", _("the answer has shape {got}, the expected one {want}.").format(
                    got=a.shape, want=e.shape)
        except (TypeError, ValueError):
            return "wrong", _("the answer should be a number or an array of numbers.")
        for other in _other_students():
            try:
                if ex.same(answer, ex.expected_for(other)):
                    return "other-data", _(
                        "this answer fits another student's data, not yours: compute it on "
                        "the data that data(\"{id}\") gives you (student {me}).").format(
                            id=ex.id, me=_identity.student())
            except Exception:  # noqa: BLE001
                continue
    msgid, fields = verdict
    return "wrong", _(msgid).format(**{k: (fmt(v, lang) if isinstance(v, float) else v)
                                       for k, v in fields.items()}) + " " + _(
        "(Your data are drawn for you, student {me}: an answer computed on other data does "
        "not fit them.)").format(me=_identity.student())


def check(exercise_id, answer, lang=None, strict=None):
    """Judge ``answer`` to exercise ``exercise_id`` on this student's data.

    Parameters
    ----------
    exercise_id : str
        E.g. ``"03.2"``.
    answer : object
        The student's answer (a number, an array, a fitted estimator: the statement says).
    lang : str or None
        ``"en"`` or ``"fr"`` (None: see :func:`kernelnb.course._i18n.resolve`).
    strict : bool or None
        Raise ``AssertionError`` with the message when the answer is wrong (None: when run by
        nbgrader's autograder or validator, ``NBGRADER_EXECUTION`` set).

    Returns
    -------
    Result
        Right, or what is wrong and a hint: the first hint on the first wrong try of this
        exercise in this kernel, the second (more precise) after.

    Raises
    ------
    AssertionError
        A wrong answer, in strict mode.
    """
    ex = get(exercise_id)
    lang = resolve(lang)
    _ = lambda m: gettext(m, lang)   # noqa: E731
    kind, what = _judge(ex, answer, lang)
    title = _(ex.title)
    if kind == "right":
        _ATTEMPTS.pop(ex.id, None)
        result = Result(ex.id, True, _("✓ {id} {title}: right.").format(id=ex.id, title=title),
                        kind, lang)
    else:
        tries = _ATTEMPTS.get(ex.id, 0) + (kind != "no-answer")
        _ATTEMPTS[ex.id] = tries
        hint = _(ex.hints[min(max(tries, 1), len(ex.hints)) - 1])
        result = Result(ex.id, False, _("✗ {id} {title}: {what}").format(
            id=ex.id, title=title, what=what) + "\n" + _("Hint: {hint}").format(hint=hint),
            kind, lang)
    if strict is None:
        strict = bool(os.environ.get("NBGRADER_EXECUTION"))
    if strict and not result.passed:
        raise AssertionError(result.message)
    return result


def assert_check(exercise_id, answer, lang=None):
    """:func:`check`, raising ``AssertionError`` with its message on a wrong answer.

    The way of an nbgrader test cell: the cell fails, and the feedback shows the message.

    Parameters
    ----------
    exercise_id : str
        The exercise's id, ``"<chapter>.<n>"`` (e.g. ``"03.2"``).
    answer : object
        The student's answer.
    lang : str or None, default=None
        The message's language (None: as :func:`check` chooses).

    Returns
    -------
    Result
        The right answer's result (a wrong one raises).
    """
    return check(exercise_id, answer, lang=lang, strict=True)


def reset_attempts(exercise_id=None):
    """Forget the wrong tries (of one exercise, or of all): the next hint is the first again.

    Parameters
    ----------
    exercise_id : str or None, default=None
        The exercise whose tries are forgotten; None: every exercise's.
    """
    if exercise_id is None:
        _ATTEMPTS.clear()
    else:
        _ATTEMPTS.pop(exercise_id, None)
