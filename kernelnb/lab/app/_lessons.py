"""Checking a dashboard's lessons: one control moved across its sweep, the seeds averaged.

A :class:`~kernelnb.lab.app._base.Lesson` says what a dashboard teaches and how to check it on the
numbers :meth:`Dashboard.update` returns. :func:`sweep_lesson` moves one control across
``lesson.sweep[control]`` (the other controls at the dashboard's values and the lesson's
``setting``), runs the update for every sample seed of the lesson, averages the numbers over the
seeds whose setting is inside the lesson's regime (``stats['regime']`` empty), and applies
``lesson.holds`` to that mean. A value where every seed is outside the regime is left out.

The tests assert the result (``tests/lab/app/_lessons.py``: every in-regime value holds, at least
half of the sweep is inside the regime, every regime note met is shown in the readout) and the
book shows it on each dashboard's page (how many settings and seeds, how many hold, the notes
met), both from this one function.
"""
from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np

__all__ = ["mean_stats", "SweepPoint", "LessonSweep", "sweep_lesson", "lesson_app"]


def mean_stats(runs):
    """The mean of every numeric entry over the dicts ``runs`` (keys all of them have).

    Parameters
    ----------
    runs : list of dict
        What :meth:`Dashboard.update` returned for each seed.

    Returns
    -------
    dict
        Key -> mean, for the keys whose values are real numbers (booleans excluded) in every run.
    """
    keys = set.intersection(*(set(r) for r in runs)) if runs else set()
    out = {}
    for k in keys:
        vals = [r[k] for r in runs]
        if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in vals):
            out[k] = float(np.mean(vals))
    return out


@dataclasses.dataclass
class SweepPoint:
    """One value of a swept control.

    Attributes
    ----------
    value : object
        The control's value.
    seeds : int
        Sample seeds run at this value.
    inside : int
        Seeds whose setting is inside the lesson's regime (no regime note).
    mean : dict or None
        The mean numbers over those seeds (None when there are none).
    holds : bool or None
        ``lesson.holds(mean)``; None when every seed is outside the regime.
    notes : tuple of str
        The distinct regime notes met at this value.
    notes_shown : bool
        Whether every note was shown in the dashboard's readout.
    """

    value: object
    seeds: int
    inside: int
    mean: dict | None
    holds: bool | None
    notes: tuple
    notes_shown: bool = True


@dataclasses.dataclass
class LessonSweep:
    """What :func:`sweep_lesson` found for one lesson and one control.

    Attributes
    ----------
    dashboard : str
        The dashboard's class name.
    lesson : kernelnb.lab.app._base.Lesson
        The lesson.
    control : str
        The control moved.
    points : list of SweepPoint
        One per swept value, in the sweep's order.
    """

    dashboard: str
    lesson: object
    control: str
    points: list

    @property
    def n_values(self):
        """Values swept."""
        return len(self.points)

    @property
    def n_runs(self):
        """Updates run (values x seeds)."""
        return sum(p.seeds for p in self.points)

    @property
    def n_inside(self):
        """Values with at least one seed inside the regime."""
        return sum(p.holds is not None for p in self.points)

    @property
    def n_hold(self):
        """Values where the lesson holds on the mean."""
        return sum(bool(p.holds) for p in self.points)

    @property
    def passed(self):
        """Every in-regime value holds, at least half the values are in the regime, and every
        regime note was shown in the readout."""
        return (self.n_hold == self.n_inside and self.n_inside >= self.n_values / 2
                and all(p.notes_shown for p in self.points))

    def failures(self):
        """Plain-words reasons why :attr:`passed` is False (empty when it passed).

        Returns
        -------
        list of str
        """
        out = []
        for p in self.points:
            if p.holds is False:
                shown = ", ".join(f"{k}={v:.4g}" for k, v in sorted(p.mean.items())
                                  if math.isfinite(v))
                out.append(f"{self.dashboard}: lesson {self.lesson.claim!r} fails at "
                           f"{self.control}={p.value!r} (mean over {p.inside} seed(s)): {shown}")
            if not p.notes_shown:
                out.append(f"{self.dashboard}: at {self.control}={p.value!r} a regime note is "
                           "not shown in the readout")
        if self.n_inside < self.n_values / 2:
            outside = [p.value for p in self.points if p.holds is None]
            out.append(f"{self.dashboard}: {self.control} leaves the regime at most of its "
                       f"swept values ({outside})")
        return out


def lesson_app(cls):
    """A dashboard of class ``cls`` built as its lessons are checked (``cls.LESSON_APP``).

    Parameters
    ----------
    cls : type
        A :class:`~kernelnb.lab.app.Dashboard` subclass.

    Returns
    -------
    kernelnb.lab.app.Dashboard
    """
    return cls(**dict(getattr(cls, "LESSON_APP", {}) or {}))


def sweep_lesson(app, lesson, control):
    """Move ``control`` across ``lesson.sweep[control]`` and check the lesson at every value.

    Parameters
    ----------
    app : kernelnb.lab.app.Dashboard
        A built dashboard; its current values (with ``lesson.setting`` on top) are the other
        controls' values, and they are put back afterwards.
    lesson : kernelnb.lab.app._base.Lesson
        The lesson.
    control : str
        A key of ``lesson.sweep``.

    Returns
    -------
    LessonSweep
    """
    if control not in lesson.sweep:
        raise ValueError(f"control {control!r} is not swept by this lesson; it sweeps "
                         f"{sorted(lesson.sweep)}")
    defaults = app.params()
    if lesson.setting:   # one update, so that the controls that depend on these follow
        app.update(raise_errors=True, **dict(lesson.setting))
    base = app.params()
    seeds = lesson.seeds if lesson.seed_control else (None,)
    points = []
    try:
        for value in lesson.sweep[control]:
            runs, notes, shown = [], [], True
            for seed in seeds:
                params = {**base, control: value}
                if lesson.seed_control:
                    params[lesson.seed_control] = seed
                stats = app.lesson_stats(params)
                if stats["regime"]:
                    notes += [n for n in stats["regime"] if n not in notes]
                    shown = shown and "kernelnb-regime" in app.stats.value
                    continue
                runs.append(stats)
            mean = mean_stats(runs) if runs else None
            holds = bool(lesson.holds(mean)) if runs else None
            points.append(SweepPoint(value=value, seeds=len(seeds), inside=len(runs),
                                     mean=mean, holds=holds, notes=tuple(notes),
                                     notes_shown=shown))
    finally:
        app.lesson_done(defaults)
    return LessonSweep(dashboard=type(app).__name__, lesson=lesson, control=control,
                       points=points)
