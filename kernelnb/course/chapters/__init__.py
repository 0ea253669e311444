"""The course's exercises and quizzes, one module per chapter (``ch01`` ... ``ch15``).

Each module defines ``EXERCISES`` (a tuple of :class:`kernelnb.course.Exercise`) and ``QUIZZES``
(a tuple of :class:`kernelnb.course.quizzes.Question`); the texts are English msgids marked with
``N_``, translated through the course's catalog (:mod:`kernelnb.course._i18n`).
"""
from __future__ import annotations

import importlib

__all__ = ["CHAPTERS", "load_all", "module"]

#: The chapters, as the notebooks of ``notebooks/`` number them.
CHAPTERS = tuple(f"{i:02d}" for i in range(1, 16))
_loaded = []


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


def load_all():
    """Import every chapter module once and register its exercises."""
    if _loaded:
        return
    _loaded.append(True)
    from .._model import register
    for chapter in CHAPTERS:
        try:
            mod = module(chapter)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.ch{chapter}":
                raise
            continue
        for ex in mod.EXERCISES:
            register(ex)
