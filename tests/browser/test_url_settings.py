"""A dashboard's settings in its URL, in a real browser (issue: open it live at a setting).

``…/voila/render/svm_playground.ipynb?C=1000&sigma=0.2&dataset=spirals`` must open the SVM
playground at those values, with a kernel started for the request (it reads ``QUERY_STRING``) and
with a preheated one (which ran the dashboard before any request, and gets the query from the
page's URL-state widget); a bad or unknown value opens the page at the defaults for that control
and says which value was refused and why, never a traceback; the address follows the controls as
they move, so that a reload comes back to the same view.
"""
from __future__ import annotations

import json
import re
import time
import urllib.request
from urllib.parse import parse_qs, urlparse

import pytest

from ..conftest import kernelnb_serve
from .test_dashboards import (CHANGE_TIMEOUT_MS, LOAD_TIMEOUT_MS, _assert_clean,   # noqa: F401
                              page, screenshots, sync_api)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETTING = "C=1000&sigma=0.2&dataset=spirals"
TITLE_JS = "el => (el.layout && el.layout.title && el.layout.title.text) || ''"


def _open(page, url):
    """Open a dashboard page and wait for its chart and readout; returns the chart's locator."""
    page.goto(url, wait_until="commit", timeout=LOAD_TIMEOUT_MS)
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    stats = page.locator(".kernelnb-stats").first
    page.wait_for_function("el => el.innerText.trim().length > 0", arg=stats.element_handle(),
                           timeout=LOAD_TIMEOUT_MS)
    return chart


def _wait_title(page, chart, pattern):
    page.wait_for_function(f"([el, p]) => new RegExp(p).test(({TITLE_JS})(el))",
                           arg=[chart.element_handle(), pattern], timeout=CHANGE_TIMEOUT_MS)
    return chart.evaluate(TITLE_JS)


def _query(page):
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def _check_setting_applied(page, chart):
    title = _wait_title(page, chart, r"^spirals: SVM, RBF, σ = 0\.2, C = 1e\+03")
    assert "spirals" in title
    assert page.locator("select").first.input_value().startswith("spirals")
    readout = page.locator(".kernelnb-main-slider .widget-readout").first.inner_text()
    assert readout.strip() in ("1e+03", "1.00e+3", "1000"), readout
    # the address keeps the setting (the kernel's own query: the values off their defaults)
    page.wait_for_function("() => /dataset=spirals/.test(location.search)",
                           timeout=CHANGE_TIMEOUT_MS)
    q = _query(page)
    assert q["dataset"] == "spirals" and float(q["C"]) == 1000 and float(q["sigma"]) == 0.2, q


def test_a_link_opens_the_dashboard_at_its_setting(page, served, screenshots):
    chart = _open(page, f"{served}voila/render/svm_playground.ipynb?{SETTING}")
    _check_setting_applied(page, chart)
    _assert_clean(page, "svm_playground at a URL setting")
    page.screenshot(path=str(screenshots / "url-setting-svm_playground.png"))


def test_the_address_follows_the_controls_and_a_reload_comes_back(page, served):
    chart = _open(page, f"{served}voila/render/svm_playground.ipynb")
    _wait_title(page, chart, r"^moons: SVM, RBF, σ = 0\.5, C = 1$")
    assert "C=" not in page.url                     # at the defaults, nothing to write
    handle = page.locator(".kernelnb-main-slider .noUi-handle").first
    for _ in range(10):                             # C from 1 up by ten steps of 0.1 decade
        handle.focus()
        handle.press("ArrowRight")
    page.wait_for_function("() => /[?&]C=10(&|$)/.test(location.search)",
                           timeout=CHANGE_TIMEOUT_MS)
    title = _wait_title(page, chart, r"C = 10$")
    page.reload(wait_until="commit")
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    assert _wait_title(page, chart, r"C = 10$") == title
    query = _query(page)
    # the SVM playground's challenge is the page's state too: challenge=done once reached
    assert query.pop("challenge", "done") == "done"
    assert query == {"C": "10"}


def test_bad_values_open_the_defaults_and_say_why(page, served, screenshots):
    chart = _open(page, f"{served}voila/render/svm_playground.ipynb"
                        "?C=abc&Cx=3&kernel=bogus&sigma=1e9&seed=7")
    title = _wait_title(page, chart, r"^moons: SVM, RBF, σ = 0\.5, C = 1$")
    assert title
    error = page.locator(".kernelnb-error").first
    page.wait_for_function("el => /C=abc/.test(el.innerText)", arg=error.element_handle(),
                           timeout=CHANGE_TIMEOUT_MS)
    text = error.inner_text()
    for words in ("C=abc (not a number)", "Cx=3 (no such setting", "kernel=bogus (not one of "
                  "rbf, linear, poly)", "sigma=1e9 (outside 0.01"):
        assert words in text, (words, text)
    assert "Traceback" not in page.inner_text("body")
    # the value that passed was applied, and the address holds only it
    page.wait_for_function("() => /[?&]seed=7(&|$)/.test(location.search)",
                           timeout=CHANGE_TIMEOUT_MS)
    assert _query(page) == {"seed": "7"}
    page.screenshot(path=str(screenshots / "url-setting-refused.png"))


def test_a_preheated_kernel_takes_the_setting_from_the_page(browser):
    """A preheated kernel ran the dashboard before any request; the page's URL-state widget
    sends it the query when the page draws."""
    with kernelnb_serve("--preheat", "1", "--preheat-dashboards", "svm_playground",
                        log_name="url-preheat") as (url, _proc):
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            status = json.loads(urllib.request.urlopen(url + "kernelnb/api/status").read())
            if status["preheated_ready"] >= 1:
                break
            time.sleep(1)
        else:
            pytest.fail(f"no preheated kernel ready within 180 s: {status}")
        context = browser.new_context(viewport={"width": 1280, "height": 1500})
        pg = context.new_page()
        try:
            chart = _open(pg, f"{url}voila/render/svm_playground.ipynb?{SETTING}")
            _check_setting_applied(pg, chart)
        finally:
            context.close()
