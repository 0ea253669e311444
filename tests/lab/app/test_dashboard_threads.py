"""A dashboard's update runs on one BLAS and OpenMP thread (kernelnb._threads.dashboard_threads):
in a notebook the browser drawing the charts holds a core, and small OpenMP teams would wait for
it.  Here, beside the lab's other tests, because it needs ipywidgets (the library's own thread
tests, tests/test_threads.py, run where only the core is installed)."""
import os

import ipywidgets as widgets

from kernelnb._threads import n_threads
from kernelnb.lab.app import Dashboard


def test_a_dashboards_update_computes_on_one_openmp_thread(monkeypatch):
    """The update of a dashboard, called from Python, runs its work inside dashboard_threads
    (as the steps a kernel runs in slices do, kernelnb.lab.app._scheduler)."""
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    seen = []

    class Threads(Dashboard):
        def _build(self):
            self.controls = {"n": widgets.IntSlider(value=1, min=1, max=3)}
            self.figures = []

        def _compute(self, p):
            seen.append(n_threads(None))
            return {}

        def _render(self, r):
            return {}

    app = Threads()
    app.update(n=2)
    assert seen == [1, 1]
    assert n_threads(None) == len(os.sched_getaffinity(0))
