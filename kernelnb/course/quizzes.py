"""The book's quizzes: multiple-choice and numeric questions, each answer explained.

A quiz is written in its chapter's module (:mod:`kernelnb.course.chapters`) beside the exercises,
its texts English msgids translated through the course's catalog. The book shows it checked in the
reader's browser with no kernel (the book's own script, ``docs/_ext/course_static/kernelnb-quiz.js``):
:func:`quiz_json` gives what that script reads, in one language. Since the check runs in the
browser, the answers are in the page, as with any self-test; graded work is the exercises'.
"""
from __future__ import annotations

import dataclasses
import json

from ._i18n import N_, gettext

__all__ = ["Choice", "Question", "WORDS", "quizzes", "quiz_json", "words"]

#: The quiz's interface words (the book's script shows them in the page's language).
WORDS = {"check": N_("Check"), "right": N_("Right."), "wrong": N_("Not right."),
         "choose": N_("Choose an answer first."), "number": N_("Type a number first."),
         "answer": N_("Your answer"), "quiz": N_("Quiz")}


def words(lang):
    """The quiz script's own words (:data:`WORDS`) in ``lang``.

    Parameters
    ----------
    lang : str
        ``"en"`` or ``"fr"``.

    Returns
    -------
    dict of str
        Each word's key and its text.
    """
    return {k: gettext(v, lang) for k, v in WORDS.items()}


@dataclasses.dataclass(frozen=True)
class Choice:
    """One answer of a multiple-choice question.

    Parameters
    ----------
    text : str
        The answer, a msgid (``$...$`` formulas allowed).
    correct : bool
        Whether it is the right one.
    why : str
        The explanation shown when it is chosen, a msgid.
    """

    text: str
    correct: bool
    why: str


@dataclasses.dataclass(frozen=True)
class Question:
    """A quiz question.

    Parameters
    ----------
    id : str
        ``"<chapter>.q<n>"``.
    prompt : str
        The question, a msgid (Markdown-free text with ``$...$`` formulas).
    kind : str
        ``"choice"`` (one right answer among ``choices``) or ``"numeric"`` (a number within
        ``tolerance`` of ``value``).
    choices : tuple of Choice
        The answers of a multiple-choice question.
    value, tolerance : float
        A numeric question's answer and how far from it an answer may be.
    right, wrong : str
        For a numeric question: the explanation shown for a right and for a wrong answer.
    """

    id: str
    prompt: str
    kind: str = "choice"
    choices: tuple = ()
    value: float = 0.0
    tolerance: float = 0.0
    right: str = ""
    wrong: str = ""

    def __post_init__(self):
        if self.kind == "choice" and sum(c.correct for c in self.choices) != 1:
            raise ValueError(f"quiz {self.id}: exactly one right choice")
        if self.kind not in ("choice", "numeric"):
            raise ValueError(f"quiz {self.id}: kind must be 'choice' or 'numeric'")

    def as_dict(self, lang):
        _ = lambda m: gettext(m, lang)   # noqa: E731
        out = {"id": self.id, "kind": self.kind, "prompt": _(self.prompt)}
        if self.kind == "choice":
            out["choices"] = [{"text": _(c.text), "correct": c.correct, "why": _(c.why)}
                              for c in self.choices]
        else:
            out.update(value=self.value, tolerance=self.tolerance, right=_(self.right),
                       wrong=_(self.wrong))
        return out


def quizzes(chapter=None):
    """The quiz questions (of one chapter, ``"03"``), in order.

    Parameters
    ----------
    chapter : str or None, default=None
        ``"01"`` ... ``"15"``; None: every chapter.

    Returns
    -------
    list of Question
        By chapter, in each chapter's order.
    """
    from . import chapters
    found = []
    for ch in chapters.CHAPTERS if chapter is None else (chapter,):
        try:
            found.extend(chapters.module(ch).QUIZZES)
        except ModuleNotFoundError:
            continue
    return found


def quiz_json(chapter, lang):
    """The chapter's questions in ``lang`` as JSON text for the book's quiz script.

    Parameters
    ----------
    chapter : str
        ``"01"`` ... ``"15"``.
    lang : str
        ``"en"`` or ``"fr"``.

    Returns
    -------
    str
        A JSON list of the questions, their texts translated.
    """
    return json.dumps([q.as_dict(lang) for q in quizzes(chapter)], ensure_ascii=False)
