"""Nothing a student does is lost: faults under an open dashboard, in a real browser.

For each fault — the page's kernel killed (as the out-of-memory killer would), the kernel culled
after a while without use, the server restarted, the connection dropped, the fork server killed,
a kernel past its memory limit — the page shows one plain message in place of its widgets within
10 s (``kernelnb-watch.js``; no broken-link icon, no traceback), its button brings the dashboard
back at the same settings (its address holds them) with the points clicked in (kept in the
browser's storage), other open dashboards keep working, and no kernel process is left behind.
The screenshots go to ``test-output/screenshots/faults/``.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from ..conftest import REPO, free_port, kernelnb_serve
from .test_dashboards import (CHANGE_TIMEOUT_MS, LOAD_TIMEOUT_MS,  # noqa: F401
                              sync_api)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MESSAGE_S = 10          # the message is up within this many seconds of the fault
SETTING = "C=100&dataset=spirals"
TITLE_JS = "el => (el.layout && el.layout.title && el.layout.title.text) || ''"


@pytest.fixture(scope="module")
def shots(test_output):
    d = test_output / "screenshots" / "faults"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _open(context, url, path):
    pg = context.new_page()
    pg.problems = []
    pg.on("pageerror", lambda e: pg.problems.append(f"pageerror: {e}"))
    pg.goto(f"{url}voila/render/{path}", wait_until="commit", timeout=LOAD_TIMEOUT_MS)
    chart = pg.locator(".js-plotly-plot").first
    chart.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    stats = pg.locator(".kernelnb-stats").first
    pg.wait_for_function("el => el.innerText.trim().length > 0", arg=stats.element_handle(),
                         timeout=LOAD_TIMEOUT_MS)
    return pg


def _kernel_id(pg):
    return pg.evaluate("() => JSON.parse(document.getElementById('jupyter-config-data')"
                       ".textContent).kernelId")


def _kernel_pid(kernel_id):
    """The process of a kernel: the one holding the sockets its connection file names (IPC
    sockets named after the kernel, or TCP ports; a forked kernel's command line is its fork
    server's, so it cannot be found by that)."""
    ports = set()
    for f in Path("/tmp").glob(f"*/kernel-{kernel_id}.json"):
        info = json.loads(f.read_text())
        if info.get("transport") == "tcp":
            ports |= {info[k] for k in ("shell_port", "iopub_port", "stdin_port",
                                        "control_port", "hb_port") if k in info}
    for proc in psutil.process_iter():
        try:
            for c in proc.net_connections(kind="all"):
                addr = c.laddr if isinstance(c.laddr, str) else getattr(c.laddr, "port", None)
                if (isinstance(addr, str) and kernel_id in addr) or addr in ports:
                    return proc.pid
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    raise AssertionError(f"no process holds kernel {kernel_id}'s sockets")


def _wait_message(pg, started, words):
    box = pg.locator(".kernelnb-gone-box")
    box.wait_for(state="visible", timeout=(MESSAGE_S + 5) * 1000)
    seconds = time.monotonic() - started
    text = box.inner_text()
    assert seconds <= MESSAGE_S, f"the message came {seconds:.1f} s after the fault"
    assert words in text, text
    # nothing but the message: no broken-link icon, no traceback, the widgets hidden
    assert not pg.locator(".jupyter-widgets-disconnected:visible").count()
    assert "Traceback" not in pg.inner_text("body")
    assert not pg.locator(".js-plotly-plot:visible").count()
    return seconds, text


def _title(pg):
    return pg.locator(".js-plotly-plot").first.evaluate(TITLE_JS)


def _bring_back(pg, title):
    """Click the button; the dashboard comes back with the same chart title (settings)."""
    t0 = time.monotonic()
    pg.locator(".kernelnb-gone-button").click()
    pg.wait_for_load_state("commit")
    chart = pg.locator(".js-plotly-plot").first
    chart.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    pg.wait_for_function(f"([el, t]) => ({TITLE_JS})(el) === t",
                         arg=[chart.element_handle(), title], timeout=CHANGE_TIMEOUT_MS)
    return time.monotonic() - t0


def _still_works(pg):
    """A dashboard page reacts to its main slider."""
    stats = pg.locator(".kernelnb-stats").first
    before = stats.inner_text()
    handle = pg.locator(".kernelnb-main-slider .noUi-handle").first
    for _ in range(3):
        handle.focus()
        handle.press("ArrowRight")
        try:
            pg.wait_for_function("([el, b]) => el.innerText !== b",
                                 arg=[stats.element_handle(), before], timeout=15_000)
            return
        except sync_api.TimeoutError:
            continue
    raise AssertionError("the other dashboard no longer reacts to its slider")


def _add_point(pg):
    """Click once on the SVM playground's chart (adds a point) and wait for the readout."""
    chart = pg.locator(".js-plotly-plot").first
    box = chart.locator(".nsewdrag").first.bounding_box()
    pg.mouse.click(box["x"] + 0.3 * box["width"], box["y"] + 0.4 * box["height"])
    pg.wait_for_function("() => /points added by clicks\\s+1\\b/.test("
                         "document.querySelector('.kernelnb-stats').innerText)",
                         timeout=CHANGE_TIMEOUT_MS)


def _points_added(pg):
    pg.wait_for_function("() => /points added by clicks\\s+\\d+/.test("
                         "document.querySelector('.kernelnb-stats').innerText)",
                         timeout=CHANGE_TIMEOUT_MS)
    text = pg.locator(".kernelnb-stats").first.inner_text()
    return int(text.split("points added by clicks")[1].split()[0])


def _gone(pids):
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            if proc.status() != psutil.STATUS_ZOMBIE:
                return False
        except psutil.NoSuchProcess:
            continue
    return True


def _wait_gone(pids, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(pids):
            return
        time.sleep(0.3)
    raise AssertionError(f"kernel processes left behind: {[p for p in pids if not _gone([p])]}")


def _report(name, message_s, back_s, text):
    print(f"FAULT {name}: message after {message_s:.1f} s, back after {back_s:.1f} s: {text!r}")


@pytest.fixture(scope="module")
def server():
    port = free_port()
    with kernelnb_serve(port=port, log_name="faults") as (url, proc):
        yield url, proc, port


def test_a_killed_kernel_is_said_and_the_page_comes_back(browser, server, shots):
    url, proc, _port = server
    context = browser.new_context(viewport={"width": 1280, "height": 1200})
    try:
        pg = _open(context, url, f"svm_playground.ipynb?{SETTING}")
        other = _open(context, url, "local_methods.ipynb")
        _add_point(pg)
        title = _title(pg)
        pid = _kernel_pid(_kernel_id(pg))
        t0 = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        message_s, text = _wait_message(pg, t0, "stopped unexpectedly")
        pg.screenshot(path=str(shots / "killed-message.png"))
        _still_works(other)
        _wait_gone([pid])
        back_s = _bring_back(pg, title)
        assert "spirals" in title and _points_added(pg) == 1
        pg.screenshot(path=str(shots / "killed-back.png"))
        _report("kernel killed", message_s, back_s, text)
        assert not pg.problems
    finally:
        context.close()


def test_a_dropped_connection_is_said_and_the_page_comes_back(browser, server, shots):
    url, proc, _port = server
    context = browser.new_context(viewport={"width": 1280, "height": 1200})
    try:
        pg = _open(context, url, f"svm_playground.ipynb?{SETTING}")
        title = _title(pg)
        pid = _kernel_pid(_kernel_id(pg))
        t0 = time.monotonic()
        context.set_offline(True)
        # the network is gone: the kernel's websocket drops (closed here, as a network failure
        # would; Chromium's offline mode stops new connections, not open ones)
        pg.evaluate("() => window.jupyterapp.widgetManager.kernel._ws.close()")
        message_s, text = _wait_message(pg, t0, "not answering")
        pg.screenshot(path=str(shots / "offline-message.png"))
        context.set_offline(False)
        back_s = _bring_back(pg, title)
        _report("connection dropped", message_s, back_s, text)
        # the old page's kernel has no page any more: it is culled like any abandoned kernel
        assert psutil.pid_exists(pid) or _gone([pid])
    finally:
        context.close()


def test_a_killed_fork_server_stops_no_page(browser, server, shots):
    url, proc, _port = server
    forks = [p for p in psutil.Process(proc.pid).children(recursive=True)
             if p.name() == "kernelnb-forks"]
    if not forks:
        pytest.fail("no fork server under kernelnb serve (kernelnb-forks)")
    deadline = time.monotonic() + 120
    while json.loads(urllib.request.urlopen(url + "kernelnb/api/status").read())[
            "fork_server"] != "ready" and time.monotonic() < deadline:
        time.sleep(0.5)
    context = browser.new_context(viewport={"width": 1280, "height": 1200})
    try:
        pg = _open(context, url, f"svm_playground.ipynb?{SETTING}")
        assert psutil.Process(_kernel_pid(_kernel_id(pg))).name() == "kernelnb-kernel"  # forked
        forks[0].kill()
        _still_works(pg)                                       # the open page keeps working
        fresh = _open(context, url, "kmp_playground.ipynb")    # and a new one opens
        _still_works(fresh)
        gone = pg.locator(".kernelnb-gone-box")
        assert not gone.count(), gone.inner_text()
        _wait_gone([forks[0].pid])        # the dead fork server is reaped, not left a zombie
    finally:
        context.close()


def test_a_restarted_server_is_said_and_the_page_comes_back(browser, shots):
    port = free_port()
    context = browser.new_context(viewport={"width": 1280, "height": 1200})
    try:
        with kernelnb_serve(port=port, log_name="faults-restart-1") as (url, proc):
            pg = _open(context, url, f"svm_playground.ipynb?{SETTING}")
            _add_point(pg)
            title = _title(pg)
            pid = _kernel_pid(_kernel_id(pg))
            t0 = time.monotonic()
            proc.kill()           # the server crashes (its kernels must not outlive it)
        message_s, text = _wait_message(pg, t0, "")
        assert "not answering" in text or "restarted" in text, text
        _wait_gone([pid])
        pg.screenshot(path=str(shots / "restart-message.png"))
        with kernelnb_serve(port=port, log_name="faults-restart-2") as (url, proc):
            back_s = _bring_back(pg, title)
            assert _points_added(pg) == 1
            pg.screenshot(path=str(shots / "restart-back.png"))
        _report("server restarted", message_s, back_s, text)
    finally:
        context.close()


def test_a_culled_kernel_is_said_and_the_page_comes_back(browser, shots):
    port = free_port()
    context = browser.new_context(viewport={"width": 1280, "height": 1200})
    try:
        with kernelnb_serve("--cull-idle", "12", port=port, log_name="faults-cull") as (url, proc):
            pg = _open(context, url, f"svm_playground.ipynb?{SETTING}")
            title = _title(pg)
            pid = _kernel_pid(_kernel_id(pg))
            # culled 12 s after its last activity, checked every 3 s; then the message
            deadline = time.monotonic() + 60
            while psutil.pid_exists(pid) and not _gone([pid]) and time.monotonic() < deadline:
                time.sleep(0.2)
            t0 = time.monotonic()
            message_s, text = _wait_message(pg, t0, "without use")
            pg.screenshot(path=str(shots / "culled-message.png"))
            back_s = _bring_back(pg, title)
            _report("kernel culled", message_s, back_s, text)
    finally:
        context.close()


# A dashboard of the test's own: every dashboard of the gallery stays far under a kernel's least
# limit at every setting (each adds under 25 MB to a drawn kernel), so the page past the limit is
# this one, whose slider holds an array of that many megabytes (touched, so it is resident).
HOG = """\
import numpy as np
import ipywidgets as widgets
import plotly.graph_objects as go
from kernelnb.lab.app._base import MAIN_SLIDER_CLASS, Dashboard, styled
from kernelnb.lab.viz._figure_widget import FigureWidget


class MemoryHog(Dashboard):
    notebook = "memory_hog"
    title = "Memory hog"
    purpose = "Holds an array of the chosen megabytes."
    STATS = [("megabytes", "megabytes held", "d")]

    def _build(self):
        self.controls["megabytes"] = styled(widgets.IntSlider(
            value=10, min=10, max=4000, step=10, description="MB"))
        self.controls["megabytes"].add_class(MAIN_SLIDER_CLASS)
        self.figures = [FigureWidget(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])))]

    def _compute(self, p):
        block = np.ones(int(p["megabytes"]) * 2 ** 17)
        return {"megabytes": int(p["megabytes"]), "sum": float(block.sum())}

    def _render(self, r):
        self.figures[0].data[0].y = [0, r["sum"] / 2 ** 17]
        return {"megabytes": r["megabytes"]}


MemoryHog().widget
"""


def test_a_kernel_past_its_memory_limit_is_refused_or_said(browser, shots, tmp_path):
    """With a low limit, a heavy setting either fails in the kernel (MemoryError shown in the
    page, the dashboard lives on) or ends the kernel (the page says why); another page is
    unaffected."""
    import nbformat
    folder = tmp_path / "dashboards"
    shutil.copytree(REPO / "dashboards", folder)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(HOG)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, folder / "memory_hog.ipynb")
    port = free_port()
    context = browser.new_context(viewport={"width": 1280, "height": 1200})
    try:
        with kernelnb_serve("--kernel-memory", "700", "--dashboards", str(folder), port=port,
                            log_name="faults-memory") as (url, proc):
            other = _open(context, url, "svm_playground.ipynb")
            pg = _open(context, url, "memory_hog.ipynb")
            t0 = time.monotonic()
            pg.evaluate("() => { const u = new URL(location.href); u.search = "
                        "'?megabytes=1500'; location.href = u.href; }")
            pg.wait_for_function(
                "() => document.querySelector('.kernelnb-gone-box') || /memory|Memory/.test("
                "(document.querySelector('.kernelnb-error') || {}).innerText || '')",
                timeout=120_000)
            seconds = time.monotonic() - t0
            gone = pg.locator(".kernelnb-gone-box").count() > 0
            text = (pg.locator(".kernelnb-gone-box").inner_text() if gone
                    else pg.locator(".kernelnb-error").first.inner_text())
            assert "memory" in text.lower(), text
            pg.screenshot(path=str(shots / "memory.png"))
            if not gone:     # refused in the kernel: the page lives on, at a setting that fits
                handle = pg.locator(".kernelnb-main-slider .noUi-handle").first
                handle.focus()
                handle.press("Home")
                handle.press("ArrowRight")              # 20 MB
                pg.wait_for_function(
                    "() => /megabytes held\\s+20\\b/.test(document.querySelector("
                    "'.kernelnb-stats').innerText) && !(document.querySelector("
                    "'.kernelnb-error') || {}).innerText", timeout=30_000)
            _still_works(other)
            print(f"FAULT memory limit: {'kernel ended' if gone else 'refused in the page'} "
                  f"after {seconds:.1f} s: {text!r}")
    finally:
        context.close()
