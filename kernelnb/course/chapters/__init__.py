"""The course's exercises and quizzes, one module per chapter (``ch01`` ... ``ch15``).

Each module defines ``EXERCISES`` (a tuple of :class:`kernelnb.course.Exercise`) and ``QUIZZES``
(a tuple of :class:`kernelnb.course.quizzes.Question`); the texts are English msgids marked with
``N_``, translated through the course's catalog (:mod:`kernelnb.course._i18n`).
"""
from __future__ import annotations

import importlib

__all__ = ["CHAPTERS", "exercises", "module"]

#: The chapters, as the notebooks of ``notebooks/`` number them.
CHAPTERS = tuple(f"{i:02d}" for i in range(1, 16))


def module(chapter):
    """The module of ``chapter``.

    Parameters
    ----------
    chapter : str
        ``"01"`` ... ``"15"``.

    Returns
    -------
    module
        The chapter's module (``ch03`` for ``"03"``), its exercises registered.
    """
    return importlib.import_module(f"{__name__}.ch{chapter}")


def exercises():
    """The exercises of every chapter, chapter by chapter (each module imported once).

    Returns
    -------
    list of Exercise
        In each chapter, in its ``EXERCISES`` order; registered by
        :mod:`kernelnb.course._checks`.
    """
    found = []
    for chapter in CHAPTERS:
        try:
            mod = module(chapter)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.ch{chapter}":
                raise
            continue
        found.extend(mod.EXERCISES)
    return found
