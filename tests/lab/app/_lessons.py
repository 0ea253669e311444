"""The check every dashboard's lessons go through (:class:`kernelnb.lab.app._base.Lesson`).

``check_lesson(app, lesson, control)`` runs :func:`kernelnb.lab.app._lessons.sweep_lesson` (the
function the book's dashboard pages report from): ``control`` moved across
``lesson.sweep[control]`` (the other controls at the values ``app`` holds, with the lesson's
``setting`` applied), every sample seed of the lesson run, the numbers averaged over the seeds whose
setting is inside the lesson's regime. It asserts ``lesson.holds`` on that mean at every value,
that a setting outside the regime says so in the readout, and that at least half of the swept
values are inside the regime, so that a lesson cannot pass by declaring its whole range out of
bounds.
"""
from __future__ import annotations

from kernelnb.lab.app._lessons import lesson_app, mean_stats, sweep_lesson

__all__ = ["check_lesson", "lesson_app", "mean_stats"]


def check_lesson(app, lesson, control):
    """Assert ``lesson`` on average over its seeds at every value of ``control`` it sweeps;
    returns ``{value: mean stats}`` for the settings inside the regime."""
    result = sweep_lesson(app, lesson, control)
    problems = result.failures()
    assert not problems, "\n".join(problems)
    return {p.value: p.mean for p in result.points if p.holds}
