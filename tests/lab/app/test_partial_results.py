"""Partial results (kernelnb.lab.app._scheduler): a dashboard whose work is a generator of steps
draws its first partial result and returns when a control moves in a kernel (a running asyncio
loop), finishes in ``pending``, and ends with the complete result, the numbers an update called
from Python gives; a control moved meanwhile closes the unfinished work. The last test runs a
real ipykernel: the page gets the partial drawings while the kernel still reads new control
values between the steps."""
from __future__ import annotations

import asyncio
import time

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go
import pytest

from kernelnb.lab.app import Dashboard
from kernelnb.lab.viz._figure_widget import FigureWidget


class Counting(Dashboard):
    """``n`` steps, each adding its index to a total; a partial result after each step. A step
    raises at ``fail_at`` (1-based, 0: never), and takes ``delay`` seconds."""

    delay = 0.0

    partial_every_s = 0.0          # every partial result drawn, one step per slice
    first_slice_s = 10.0           # the update itself runs to the first partial result
    slice_s = 0.0

    def _build(self):
        self.controls = {"n": widgets.IntSlider(value=3, min=1, max=60),
                         "fail_at": widgets.IntSlider(value=0, min=0, max=60)}
        self.figures = [FigureWidget(go.Figure(go.Scatter(x=[0], y=[0])))]
        self.drawn, self.closed = [], []

    def _steps(self, p):
        total = 0
        try:
            with self.busy("counting"):
                for i in range(p["n"]):
                    self.check_time()
                    if i + 1 == p["fail_at"]:
                        raise RuntimeError("step failed")
                    time.sleep(self.delay)
                    total += i
                    self.report_progress((i + 1) / p["n"])
                    yield None
                    yield dict(n=p["n"], done=i + 1, total=total)
        except GeneratorExit:
            self.closed.append(p["n"])
            raise
        return dict(n=p["n"], done=p["n"], total=total)

    def _render(self, r):
        self.drawn.append((r["n"], r["done"]))
        self.figures[0].data[0].y = [r["total"]]
        return dict(r)


@pytest.fixture
def app():
    return Counting()


def test_an_update_from_python_is_complete_and_draws_once(app):
    app.drawn.clear()
    stats = app.update(n=5)
    assert stats["total"] == 10 and "partial" not in stats and app.pending is None
    assert app.drawn == [(5, 5)]
    app.controls["n"].value = 6                  # no event loop: complete at once
    assert app.last_stats["total"] == 15 and app.pending is None and app.drawn[-1] == (6, 6)


def test_in_a_kernel_the_partial_results_arrive_in_order_and_end_with_the_complete_one(app):
    complete = Counting().update(n=7)
    app.progress_after_s = 0.0                   # the bar shows at once (see the next test)

    async def main():
        app.drawn.clear()
        app.controls["n"].value = 7              # what a page's message does in the kernel
        first = dict(app.last_stats)
        assert app.pending is not None and first["partial"] and app.drawn == [(7, 1)]
        assert app.progress.layout.visibility == "visible" and app.progress.value == 1 / 7
        await app.pending
        return first

    first = asyncio.run(main())
    assert first["done"] == 1 and first["total"] == 0
    done = [d for n, d in app.drawn]
    assert all(n == 7 for n, _d in app.drawn) and done == sorted(done) and done[-1] == 7
    assert len(done) >= 7                        # every step's partial result, then the end
    assert "partial" not in app.last_stats and app.pending is None and not app.last_error
    assert app.progress.layout.visibility == "hidden"
    assert app.last_stats["total"] == complete["total"] == 21
    assert list(app.figures[0].data[0].y) == [21]
    # the state a page connecting now starts from is the end's
    assert app.figures[0].get_state("_widget_data")["_widget_data"][0]["y"] == [21]


def test_the_progress_bar_shows_only_for_work_that_lasts(app):
    """After a short update the next one shows no progress bar before it has lasted
    progress_after_s (none at all if it ends sooner: no widget message for it); one that lasts
    shows it from then on, and after a long update the next shows it at once."""
    shown = []
    app.progress.layout.observe(
        lambda change: shown.append((change["new"], time.perf_counter())), names="visibility")
    app.update(n=2)                                   # a short update: the one before the next

    def in_kernel(n):
        async def main():
            start = time.perf_counter()
            app.controls["n"].value = n
            first = app.progress.layout.visibility
            await app.pending
            return start, first
        return asyncio.run(main())

    shown.clear()
    in_kernel(5)                                      # short again: no bar, no message
    assert shown == [] and app.progress.layout.visibility == "hidden"
    app.delay = 0.1                                   # 8 steps of 0.1 s: past progress_after_s
    start, first = in_kernel(8)
    assert first == "hidden"                          # not at the first step
    visible_at = [t for v, t in shown if v == "visible"]
    assert len(visible_at) == 1 and visible_at[0] - start >= app.progress_after_s
    assert app.progress.layout.visibility == "hidden" and app._last_update_s >= 0.8
    shown.clear()
    start, first = in_kernel(3)                       # after a long update: at once
    assert first == "visible" and [v for v, _t in shown] == ["visible", "hidden"]


def test_a_control_moved_meanwhile_closes_the_unfinished_work(app):
    async def main():
        app.drawn.clear()
        app.controls["n"].value = 50
        old = app.pending
        for _ in range(5):                       # a few slices of the long work
            await asyncio.sleep(0.005)
        assert not old.done()
        app.controls["n"].value = 4              # handled between two slices
        assert app.closed == [50] and (old.cancelling() or old.cancelled())
        await app.pending
        await asyncio.sleep(0.01)
        return old

    old = asyncio.run(main())
    assert old.done()
    first_new = app.drawn.index((4, 1))
    assert all(n == 50 for n, _d in app.drawn[:first_new])
    assert all(n == 4 for n, _d in app.drawn[first_new:])   # nothing of the old setting after
    assert app.last_stats["total"] == 6 and "partial" not in app.last_stats
    assert (50, 50) not in app.drawn


def test_an_update_from_python_stops_the_pending_work(app):
    async def main():
        app.controls["n"].value = 40
        assert app.pending is not None
        stats = app.update(n=2)                  # a notebook's call: complete when it returns
        assert app.pending is None and stats["total"] == 1 and "partial" not in stats
        await asyncio.sleep(0.01)

    asyncio.run(main())
    assert app.closed == [40] and app.drawn[-1] == (2, 2)


def test_an_error_in_a_later_step_is_shown_and_the_dashboard_answers(app):
    async def main():
        app.controls["fail_at"].value = 4
        app.controls["n"].value = 6
        await app.pending

    asyncio.run(main())
    assert "step failed" in app.last_error and "step failed" in app.error.value
    assert app.pending is None and app.progress.layout.visibility == "hidden"
    assert list(app.figures[0].data[0].y) == [3]          # the last partial result stays
    assert app.update(fail_at=0)["total"] == 15 and app.error.value == ""


def test_the_time_budget_holds_across_the_pending_work(app):
    """The budget of an update counts the work finished in ``pending`` too: past it a step's
    check_time stops the work with the budget's message; what was drawn stays."""
    app.time_budget_s, app.delay = 0.05, 0.005

    async def main():
        app.controls["n"].value = 60
        assert app.pending is not None
        await app.pending

    asyncio.run(main())
    assert "time budget" in app.last_error and app.pending is None
    assert app.drawn[-1][0] == 60 and 1 <= app.drawn[-1][1] < 60
    assert app.progress.layout.visibility == "hidden"


# ------------------------------------------------------------------------ figures held
class Holding(Counting):
    """Counting with a second chart that the first partial result leaves as it is (the
    complete result draws it again); what each chart shows after every drawing is kept."""

    hold_under_s = 0.2

    def _build(self):
        super()._build()
        self.figures.append(FigureWidget(go.Figure(go.Scatter(x=[0], y=[0]))))
        self.shown = []

    def _render(self, r):
        stats = super()._render(r)
        self.figures[1].data[0].y = [r["done"]]
        return stats

    def _held_in_partial(self, partial):
        return (self.figures[1],)

    def _draw(self, result, values, t0, partial=False, hold=()):
        stats = super()._draw(result, values, t0, partial=partial, hold=hold)
        self.shown.append((list(self.figures[0].data[0].y), list(self.figures[1].data[0].y)))
        return stats


def _moved_in_a_kernel(app, n):
    async def main():
        app.shown.clear()
        app.controls["n"].value = n
        first = list(app.shown)
        await app.pending
        return first

    return asyncio.run(main())


def test_a_first_partial_result_leaves_the_held_figure_when_the_end_is_near():
    app = Holding()
    app.update(n=5)                                  # from Python: its tail, well under 0.2 s
    assert app._last_tail_s < app.hold_under_s
    first = _moved_in_a_kernel(app, 7)
    # the first chart shows the partial result (total 0 after one step), the second is left
    # at the last complete result (done = 5), not drawn twice in a moment
    assert first == [([0], [5])]
    # nothing else partial was drawn before the end (it came within hold_under_s), and the end
    # shows both charts' complete result, the one a Python update gives
    assert app.shown[1:] == [([21], [7])]
    assert Holding().update(n=7)["total"] == app.last_stats["total"] == 21
    state = app.figures[1].get_state("_widget_data")["_widget_data"]
    assert state[0]["y"] == [7]                      # what a page connecting now starts from


def test_without_a_short_tail_the_first_partial_result_is_drawn_whole():
    app = Holding()
    app._last_tail_s = 0.5                           # the last update's work went on 0.5 s
    assert _moved_in_a_kernel(app, 6)[0] == ([0], [1])
    assert app.shown[-1] == ([15], [6])
    app.__dict__.pop("_last_tail_s")                 # no update measured: nothing to go by
    assert app._last_tail_s == float("inf")
    assert _moved_in_a_kernel(app, 4)[0] == ([0], [1])


def test_a_held_partial_result_is_drawn_whole_when_the_work_goes_on():
    """The prediction fails (the previous update was quick, this one is not): after
    hold_under_s the latest partial result is drawn whole, then every partial_every_s."""
    app = Holding()
    app.hold_under_s, app.partial_every_s = 0.05, 0.0
    app.update(n=2)
    app.delay = 0.01                                 # 40 steps of 10 ms: 0.4 s of work
    first = _moved_in_a_kernel(app, 40)
    assert first == [([0], [2])]                     # held
    partial = app.shown[1:-1]
    assert partial, app.shown
    done_first = partial[0][1][0]                    # the held chart, drawn whole at last
    assert 2 <= done_first < 40 and partial[0][0] == [sum(range(done_first))]
    assert all(a[1][0] < b[1][0] for a, b in zip(partial, partial[1:]))
    assert app.shown[-1] == ([780], [40])
    assert app._last_tail_s >= 0.3                   # the next update draws its first whole


# ------------------------------------------------------------------------ in a real kernel
KERNEL_CODE = """
import time, ipywidgets as widgets, plotly.graph_objects as go
from kernelnb.lab.app import Dashboard
from kernelnb.lab.viz._figure_widget import FigureWidget

class Slow(Dashboard):
    partial_every_s = 0.0
    def _build(self):
        self.controls = {"n": widgets.IntSlider(value=1, min=1, max=100)}
        self.figures = [FigureWidget(go.Figure(go.Scatter(x=[0], y=[0])))]
        self.shown = widgets.Text()
    def _steps(self, p):
        for i in range(p["n"]):
            time.sleep(0.05)                       # a step of work
            yield dict(n=p["n"], done=i + 1)
        return dict(n=p["n"], done=p["n"])
    def _render(self, r):
        self.shown.value = f"{r['n']}:{r['done']}"
        return {}

app = Slow()
"""


@pytest.mark.slow
def test_a_kernel_sends_the_partial_results_and_reads_a_new_control_between_steps():
    """In ipykernel: the update a control's message starts draws its first partial result at
    once and returns; the rest goes out as it is drawn; a second control value sent meanwhile is
    handled before the first work would have ended, and nothing of the first is drawn after."""
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3")
    try:
        kc.execute(KERNEL_CODE)
        comms, idle = {}, False
        deadline = time.monotonic() + 60
        while not idle and time.monotonic() < deadline:
            msg = kc.get_iopub_msg(timeout=60)
            if msg["msg_type"] == "comm_open":
                state = msg["content"]["data"]["state"]
                comms.setdefault(state["_model_name"], msg["content"]["comm_id"])
            idle = (msg["msg_type"] == "status" and comms
                    and msg["content"]["execution_state"] == "idle")
        slider, text = comms["IntSliderModel"], comms["TextModel"]

        def send(value):
            kc.shell_channel.send(kc.session.msg("comm_msg", {
                "comm_id": slider, "data": {"method": "update", "state": {"value": value},
                                            "buffer_paths": []}}))
            return time.monotonic()

        shown = []
        t0 = send(40)                   # 40 steps of 50 ms: 2 s of work
        second = None
        end = t0 + 10
        while time.monotonic() < end:
            try:
                msg = kc.get_iopub_msg(timeout=0.05)
            except Exception:  # noqa: BLE001 - queue.Empty: nothing yet
                msg = None
            if second is None and time.monotonic() - t0 > 0.4:
                second = send(3)
            if msg is None or msg["msg_type"] != "comm_msg":
                continue
            content = msg["content"]
            if content["comm_id"] == text and "value" in content["data"].get("state", {}):
                shown.append((content["data"]["state"]["value"], time.monotonic() - t0))
                if shown[-1][0] == "3:3":
                    break
        assert shown and shown[0][0] == "40:1" and shown[0][1] < 0.5, shown
        firsts = [i for i, (v, _t) in enumerate(shown) if v.startswith("3:")]
        assert firsts, shown
        switch = firsts[0]
        assert all(v.startswith("40:") for v, _t in shown[:switch]), shown
        assert all(v.startswith("3:") for v, _t in shown[switch:]), shown
        assert shown[-1][0] == "3:3" and shown[-1][1] < 1.5, shown   # 40 steps would take 2 s
        assert len(shown[:switch]) >= 3, shown      # partial results went out meanwhile
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


# ------------------------------------------------------------------------ the three dashboards
def _numbers(stats, skip):
    """The readout's numbers (scalars), timings left out."""
    return {k: v for k, v in stats.items()
            if k not in skip and isinstance(v, (int, float)) and not isinstance(v, bool)}


def _in_kernel(app, control, value):
    """Move ``control`` as a page does in a kernel; every result drawn, then the stats."""
    drawn = []
    render = app._render
    app._render = lambda r: drawn.append(r) or render(r)
    app.partial_every_s = app.slice_s = 0.0          # every partial result drawn
    app.hold_under_s = 0.0                           # whole, none held for the end

    async def main():
        app.controls[control].value = value
        first = dict(app.last_stats)
        if app.pending is not None:
            await app.pending
        return first

    try:
        first = asyncio.run(main())
    finally:
        del app._render
    return first, drawn, app.last_stats


def _learning_curves():
    from kernelnb.lab.app import LearningCurves
    return LearningCurves(n_repeats=2, n_sizes=3), "C", 3.0, \
        lambda r: (r["curves"]["svc"]["test_error"].shape[1],
                   r["curves"]["svc"]["test_error"].shape[0]), \
        ("update_ms", "time_s") + tuple(f"time_exponent_{k}" for k in ("svc", "knn"))


def _bounds_explorer():
    from kernelnb.lab.app import BoundsExplorer
    return BoundsExplorer(grid=10, n_samples=50), "loo", True, \
        lambda r: int(np.sum(~np.isnan(r["table"]["loo"]))) if "loo" in r["table"] else -1, \
        ("update_ms", "table_ms")


def _feature_selection():
    from kernelnb.lab.app import FeatureSelection
    return FeatureSelection(schedule="half", max_iter=3), "n_keep", 3, \
        lambda r: len(r["curve"]), ("update_ms", "run_s")


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
@pytest.mark.parametrize("make", [_learning_curves, _bounds_explorer, _feature_selection],
                         ids=lambda f: f.__name__.strip("_"))
def test_the_dashboards_draw_their_partial_results_in_order_and_end_as_python_does(make):
    """Learning curves (points, then repeats), the bounds explorer's leave-one-out curve (value
    by value) and the feature selection (stage by stage): moved in a kernel, each draws partial
    results in order, then the complete result, whose numbers are those of the same update
    called from Python."""
    app, control, value, progress, timings = make()
    reference, *_ = make()
    expected = reference.update(raise_errors=True, **{control: value})
    first, drawn, final = _in_kernel(app, control, value)
    assert first.get("partial") and len(drawn) >= 3, (first, len(drawn))
    marks = [progress(r) for r in drawn]
    assert marks == sorted(marks) and marks[0] < marks[-1], marks
    assert not app.last_error and "partial" not in final and app.pending is None
    assert _numbers(final, timings) == _numbers(expected, timings)
    assert app.progress.layout.visibility == "hidden"


def test_an_update_keeps_the_partial_model_of_an_interrupted_fit(monkeypatch):
    # A script's fit lets Ctrl-C propagate (kernelnb._config); a dashboard's update turns on
    # keep_partial_on_interrupt around its work, so that an SVM stopped by an interrupt is still
    # drawn, and turns it off again when the update ends.
    import kernelnb
    from kernelnb.lab.app import SVMPlayground
    from kernelnb.svm import estimators as svm_estimators

    seen = []
    original = svm_estimators.SVC.fit

    def recording_fit(self, *args, **kwargs):
        seen.append(kernelnb.get_config()["keep_partial_on_interrupt"])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(svm_estimators.SVC, "fit", recording_fit)
    app = SVMPlayground()
    seen.clear()
    stats = app.update(C=2.0, raise_errors=True)
    assert "error" not in stats and seen and all(seen)
    assert kernelnb.get_config()["keep_partial_on_interrupt"] is False


def _figure_json(fig):
    """A figure's traces and layout as plotly's JSON, the traces' uids left out."""
    import json

    import plotly.io as pio
    out = json.loads(pio.to_json(fig))
    for trace in out["data"]:
        trace.pop("uid", None)
    return out


@pytest.mark.slow  # two dashboards, each updated from Python and in a kernel
@pytest.mark.parametrize("make", [
    lambda: __import__("kernelnb.lab.app", fromlist=["BoundsExplorer"]).BoundsExplorer(
        grid=10, n_samples=60),
    lambda: __import__("kernelnb.lab.app", fromlist=["FisherKernelExplorer"])
    .FisherKernelExplorer(n_samples=60)], ids=["bounds_explorer", "fisher_kernel"])
def test_a_held_figure_ends_as_the_complete_result_draws_it(make):
    """The bounds explorer's curves and the Fisher kernel's toy chart, held at the first partial
    result: the page's charts then end exactly as an update from Python draws them."""
    app, reference = make(), make()
    held = app._held_in_partial(None)
    assert held and all(fig in app.figures for fig in held)
    before = [_figure_json(fig) for fig in held]
    app._last_tail_s = 0.0                          # the end is expected at once: hold

    async def main():
        app.controls["C"].value = 4.0
        assert app.pending is not None and app.last_stats.get("partial")
        # the held charts are as they were; the page marks them stale until the end
        assert [_figure_json(fig) for fig in held] == before
        await app.pending

    asyncio.run(main())
    assert not app.last_error and "partial" not in app.last_stats
    reference.update(raise_errors=True, C=4.0)
    assert [_figure_json(f) for f in app.figures] == [_figure_json(f) for f in reference.figures]
