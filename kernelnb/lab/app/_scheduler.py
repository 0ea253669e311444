"""The partial-results scheduler: long work drawn as it goes, and a kernel that keeps answering.

A dashboard whose work can take seconds defines ``_steps(params)`` instead of ``_compute``: a
generator that yields ``None`` where the work may pause, or a partial result (one ``_render``
draws: the first points of a curve, the repeats done so far), and returns the complete result.
Called from Python, :meth:`kernelnb.lab.app.Dashboard.update` runs it to the end and draws the
complete result only, so its numbers are those of the unchanged computation. When a control
moves in a kernel (a page, a notebook), the update draws the first partial result and returns
(:meth:`StepScheduler._start_steps`); the rest runs as an asyncio task on the kernel's event
loop, a slice of steps at a time, drawing the latest partial result every
:attr:`StepScheduler.partial_every_s` and the complete one at the end
(:meth:`StepScheduler._finish_steps`; the dashboard's ``pending`` is that task). A first partial
result that the complete one follows within :attr:`StepScheduler.hold_under_s` (as it did at the
dashboard's previous update) is drawn without the figures the complete result draws again
(:meth:`StepScheduler._held_in_partial`): the browser redraws a page's charts one after another,
tens of milliseconds each, so a chart drawn twice in a moment delays the complete picture by a
drawing. Between slices
the kernel reads its messages, so a control moved meanwhile is handled at once: its update closes
the unfinished work (:meth:`StepScheduler.stop_pending`; the figures then show the new setting's
results only). Widget messages leave the kernel as they are made, during an update as after it;
what a page cannot do is send the kernel a new control value before the update running returns,
hence the slices.

:class:`StepScheduler` is a mixin of :class:`kernelnb.lab.app.Dashboard`: it draws with the
dashboard's ``_draw`` and ``_failed``, speaks with ``speaking()`` and keeps the task and its
steps in the ``pending`` and ``_steps_open`` that ``Dashboard.__init__`` sets.
"""
from __future__ import annotations

import asyncio
import math
import time

from ..._callbacks import run_to_end
from ..._config import config_context
from ..._threads import dashboard_threads

__all__ = ["StepScheduler", "run_timed", "throttled"]

#: Seconds between two moves of a progress bar by :func:`throttled`.
PROGRESS_EVERY_S = 0.1


def _running_loop():
    """The asyncio loop running in this thread (a kernel's), or None (a script, a test)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def throttled(report, every_s=PROGRESS_EVERY_S):
    """``report(fraction, text)`` (a dashboard's ``report_progress``) passed on at most once
    every ``every_s`` seconds, the first call always: work that reports each of its many small
    steps moves the bar as often as a page can show it, not with a widget message per step.

    Parameters
    ----------
    report : callable
        ``report(fraction, text)``.
    every_s : float, default=PROGRESS_EVERY_S
        The least time between two calls passed on.

    Returns
    -------
    callable
        ``call(fraction, text="")``.
    """
    last = [-math.inf]

    def call(fraction, text=""):
        now = time.perf_counter()
        if now - last[0] >= every_s:
            last[0] = now
            report(fraction, text)
    return call


def _advance(steps, until, stop_at_partial=False):
    """Run ``steps`` until the clock ``until`` (``time.perf_counter``), its end or, with
    ``stop_at_partial``, its first partial result: ``(done, result, latest partial or None)``."""
    partial = None
    while True:
        try:
            out = next(steps)
        except StopIteration as stop:
            return True, stop.value, partial
        if out is not None:
            partial = out
            if stop_at_partial:
                return False, None, partial
        if time.perf_counter() >= until:
            return False, None, partial


def run_timed(steps):
    """Run ``steps`` to their end: ``(result, seconds from the first partial result to the end)``,
    the seconds None where the steps yield no partial result."""
    done, result, _partial = _advance(steps, math.inf, stop_at_partial=True)
    if done:
        return result, None
    start = time.perf_counter()
    result = run_to_end(steps)
    return result, time.perf_counter() - start


class StepScheduler:
    """Runs a dashboard's ``_steps`` in a kernel in slices (see the module docstring); a mixin of
    :class:`kernelnb.lab.app.Dashboard`."""

    #: Seconds between two drawings of partial results (``_steps``), in a kernel.
    partial_every_s: float = 0.4
    #: Seconds of steps the update itself runs, in a kernel, before it draws what it has and
    #: leaves the rest to :attr:`pending` (a partial result drawn ends it sooner).
    first_slice_s: float = 0.3
    #: Seconds of steps between two pauses of the task that finishes an update in a kernel.
    slice_s: float = 0.05
    #: The pause itself: a timer rather than ``asyncio.sleep(0)``, which is not always enough
    #: for ipykernel to read its shell socket (measured with ipykernel 7.4, a chain of 0.3 s
    #: steps with ``sleep(0)`` between them: a control moved meanwhile was handled only after
    #: the chain's end; with 1 ms pauses, after the step under way).
    PAUSE_S = 0.002
    #: Seconds: where the work after the first partial result took less than this at the last
    #: update, the next first partial result is drawn without the figures of
    #: :meth:`_held_in_partial`; if the work then goes on this long, the partial result is
    #: drawn whole.
    hold_under_s: float = 0.2
    #: Seconds the work after the first partial result took at the last update (Python or
    #: kernel); infinite before one.
    _last_tail_s: float = math.inf

    def _held_in_partial(self, partial):
        """The figures a first partial result ``partial`` leaves as they are, when the complete
        result is expected within :attr:`hold_under_s`: those the complete result draws
        again. The page keeps them marked stale until then. By default, none."""
        return ()

    def _start_steps(self, loop, steps, values, t0):
        """In a kernel: run ``steps`` for :attr:`first_slice_s` (or to their first partial
        result), draw what there is, and leave the rest to a task (:attr:`pending`)."""
        with dashboard_threads(), config_context(keep_partial_on_interrupt=True):
            done, result, partial = _advance(steps, time.perf_counter() + self.first_slice_s,
                                             stop_at_partial=True)
        if done:
            return self._draw(result, values, t0)
        held = ()
        if partial is not None and self._last_tail_s < self.hold_under_s:
            held = tuple(self._held_in_partial(partial))
        try:
            stats = (self._draw(partial, values, t0, partial=True, hold=held)
                     if partial is not None else {"partial": True})
        except BaseException:
            steps.close()
            raise
        self._steps_open = steps
        self.pending = loop.create_task(
            self._finish_steps(steps, values, t0, partial if held else None))
        return stats

    async def _finish_steps(self, steps, values, t0, held=None):
        """The rest of a stepwise update: slices of steps with pauses between them (the kernel
        reads its messages there), the latest partial result drawn every
        :attr:`partial_every_s` (``held``, a first partial result drawn without some figures:
        drawn whole after :attr:`hold_under_s`), then the complete result."""
        drawn = start = time.perf_counter()
        latest = held
        wait = self.hold_under_s if held is not None else self.partial_every_s
        try:
            while True:
                await asyncio.sleep(self.PAUSE_S)
                with self.speaking(), dashboard_threads(), \
                        config_context(keep_partial_on_interrupt=True):
                    done, result, partial = _advance(steps, time.perf_counter() + self.slice_s)
                    if done:
                        self._last_tail_s = time.perf_counter() - start
                        self._steps_open = None
                        self._draw(result, values, t0)
                        return
                    latest = partial if partial is not None else latest
                    if latest is not None and time.perf_counter() - drawn >= wait:
                        self._draw(latest, values, t0, partial=True)
                        drawn, latest, wait = time.perf_counter(), None, self.partial_every_s
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - shown as an update's error would be
            self._steps_open = None
            steps.close()
            with self.speaking():
                self._failed(exc, values)
        finally:
            if self.pending is asyncio.current_task():
                self.pending = None

    def stop_pending(self):
        """Stop the unfinished work of the last update (:attr:`pending`), if any: its steps
        are closed (their progress bar hidden) and nothing more of it is drawn.

        Returns
        -------
        bool
            Whether there was unfinished work.
        """
        task, steps = self.pending, self._steps_open
        self.pending = self._steps_open = None
        if task is not None and not task.done():
            task.cancel()
        if steps is not None:
            steps.close()
        self._deadline = math.inf
        return steps is not None
