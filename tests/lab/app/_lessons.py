"""The check every dashboard's lessons go through (:class:`kernelnb.lab.app._base.Lesson`).

``check_lesson(app, lesson, control)`` moves ``control`` across ``lesson.sweep[control]`` (the
other controls at the values ``app`` was built with), runs ``update`` for every sample seed of the
lesson, averages the numeric numbers over the seeds where the setting is inside the lesson's
regime (``stats['regime']`` empty), and asserts ``lesson.holds`` on that mean. A setting outside
the regime must say so in the readout; a setting where every seed is outside is left out. At
least half of the swept values must be inside the regime, so that a lesson cannot pass by
declaring its whole range out of bounds.
"""
from __future__ import annotations

import math
import numbers

import numpy as np


def mean_stats(runs):
    """The mean of every numeric entry over the dicts ``runs`` (NaN where any run lacks it)."""
    keys = set.intersection(*(set(r) for r in runs)) if runs else set()
    out = {}
    for k in keys:
        vals = [r[k] for r in runs]
        if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in vals):
            out[k] = float(np.mean(vals))
    return out


def check_lesson(app, lesson, control):
    """Assert ``lesson`` on average over its seeds at every value of ``control`` it sweeps;
    returns ``{value: mean stats}`` for the settings inside the regime."""
    defaults = app.params()
    held, outside = {}, []
    try:
        for value in lesson.sweep[control]:
            runs = []
            for seed in (lesson.seeds if lesson.seed_control else (None,)):
                params = {**defaults, control: value}
                if lesson.seed_control:
                    params[lesson.seed_control] = seed
                stats = app.update(raise_errors=True, **params)
                if stats["regime"]:
                    readout = app.stats.value
                    assert "kernelnb-regime" in readout, "a regime note is not shown"
                    continue
                runs.append(stats)
            if not runs:
                outside.append(value)
                continue
            mean = mean_stats(runs)
            assert lesson.holds(mean), (
                f"{type(app).__name__}: lesson {lesson.claim!r} fails at {control}={value!r} "
                f"(mean over {len(runs)} seed(s)): "
                + ", ".join(f"{k}={v:.4g}" for k, v in sorted(mean.items())
                            if math.isfinite(v)))
            held[value] = mean
    finally:
        app.update(**defaults)
    assert len(held) >= len(lesson.sweep[control]) / 2, (
        f"{type(app).__name__}: {control} leaves the regime at most of its swept values "
        f"({outside})")
    return held
