"""The lab in French, in a real browser (issue 42): every dashboard, the gallery, the page whose
kernel is gone.

One French pass over the 16 dashboards, on a server whose kernels were preheated in English
(the page's browser speaks French: the kernel re-labels its widgets and charts and redraws):
each page shows no English message (its text, its charts' texts and its options, read against
the English catalog), writes its numbers with a decimal comma (readout cells, chart ticks),
cuts nothing and does not scroll sideways at 1280×800 (French runs about 20 % longer), answers
its main slider, and logs nothing. English pages are checked by ``test_dashboards.py``. Then the
kernels started for a page: ``?lang=fr`` and the browser's ``Accept-Language``, a bad ``lang``
giving English, the address keeping the language, and the kernel-gone message in French; and the
gallery in both languages with its language switch. Screenshots for people go to
``test-output/screenshots/`` (``fr-<dashboard>-1280.png``, ``gallery-fr.png``).
"""
from __future__ import annotations

import json
import os
import re
import signal
import time
import urllib.request

import pytest

from kernelnb.lab import i18n
from kernelnb.lab.server.gallery import DASHBOARDS

from ..conftest import kernelnb_serve
from .conftest import upstream_warning
from ._a11y import check_dashboard
from .test_dashboards import (ANYWIDGET_INIT, CHANGE_TIMEOUT_MS, CUT_TEXT_JS,  # noqa: F401
                              FINGERPRINT_JS, LOAD_TIMEOUT_MS, SCROLL_JS, WIDENED_MARGINS_JS,
                              _assert_clean, _console_problems, page, screenshots, sync_api)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: A French reader's browser: navigator.languages and Accept-Language.
FRENCH = dict(locale="fr-FR", extra_http_headers={"Accept-Language": "fr-FR,fr;q=0.9"})
#: Everything a page shows as text: the body's, its charts' SVG texts (titles, axes, legends,
#: annotations), the options of its lists and drop-downs, and its controls' tooltips.
TEXTS_JS = """() => {
  const out = [document.body.innerText];
  for (const e of document.querySelectorAll('.js-plotly-plot svg text')) out.push(e.textContent);
  for (const e of document.querySelectorAll('select option')) out.push(e.textContent);
  for (const e of document.querySelectorAll('[title]')) out.push(e.getAttribute('title'));
  return out.join('\\n');
}"""
#: The charts' tick labels and the readout's number cells.
NUMBERS_JS = """() => [
  ...Array.from(document.querySelectorAll('.js-plotly-plot .xtick text, .js-plotly-plot .ytick text,'
                + ' .js-plotly-plot .y2tick text')).map(e => e.textContent),
  ...Array.from(document.querySelectorAll('.kernelnb-stats td.num')).map(e => e.textContent)]"""


def _english_messages():
    """(whole messages, fragments): the English msgids whose French differs, and the long
    literal parts of those with fields, that a French page must not show."""
    whole, fragments = set(), set()
    for msgid, msgstr in i18n.translations("fr")._catalog.items():
        if not isinstance(msgid, str) or not msgid or msgid == msgstr:
            continue
        parts = [p.strip() for p in re.split(r"\{\w*\}|%\{[^}]*\}", msgid)]
        if len(parts) == 1:
            whole.add(msgid.strip(" .:"))
        fragments.update(p for p in parts if len(p) >= 14 and len(p.split()) >= 3)
    return whole, fragments


def english_left(text):
    """The English messages found in ``text`` (a page's texts, one per line or segment)."""
    whole, fragments = _english_messages()
    found = set()
    for line in text.splitlines():
        for seg in re.split(r"; |\t", line):
            seg = seg.strip(" .:")
            if seg in whole:
                found.add(seg)
    found |= {f for f in fragments if f in text}
    return sorted(found)


def _status(url):
    with urllib.request.urlopen(url + "kernelnb/api/status", timeout=30) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def preheated():
    """A server whose 16 dashboards each have a kernel preheated in English (the default)."""
    n = len(DASHBOARDS)
    with kernelnb_serve("--preheat", str(n), "--max-kernels", str(n + 6),
                        log_name="languages_preheated", timeout=120,
                        env={i18n.DEFAULT_ENV: "en"}) as (url, _proc):
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and _status(url).get("preheated_ready", 0) < n:
            time.sleep(2)
        assert _status(url).get("preheated_ready", 0) >= n, _status(url)
        yield url


@pytest.fixture
def french_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, **FRENCH)
    pg = context.new_page()
    pg.console_problems = []
    pg.console_all = []

    def on_console(m):
        pg.console_all.append(f"{m.type}: {m.text}"[:300])
        where = (m.location or {}).get("url", "")
        if m.type in ("warning", "error") and upstream_warning(m.type, m.text) is None:
            pg.console_problems.append(f"{m.type}: {m.text} ({where})"[:500])

    pg.on("console", on_console)
    pg.on("pageerror", lambda e: pg.console_problems.append(f"pageerror: {e}"[:500]))
    yield pg
    context.close()


def _open_french(pg, url):
    """Open a page and wait until its kernel speaks French (``<html lang>``, the lesson)."""
    pg.goto(url, wait_until="commit", timeout=LOAD_TIMEOUT_MS)
    chart = pg.locator(".js-plotly-plot").first
    chart.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    stats = pg.locator(".kernelnb-stats").first
    pg.wait_for_function("el => el.innerText.includes('Leçon')", arg=stats.element_handle(),
                         timeout=LOAD_TIMEOUT_MS)
    pg.wait_for_function("() => document.documentElement.lang === 'fr'", timeout=CHANGE_TIMEOUT_MS)
    return chart, stats


def _move_main_slider(pg, chart, stats):
    before, text = chart.evaluate(FINGERPRINT_JS), stats.inner_text()
    main = pg.locator(".kernelnb-main-slider .noUi-handle")
    handle = main.first if main.count() else pg.locator(".noUi-handle").first
    changed = (f"([el, st, b, t]) => ({FINGERPRINT_JS})(el) !== b && st.innerText !== t")
    for _ in range(4):
        handle.focus()
        handle.press("ArrowRight")
        try:
            pg.wait_for_function(changed, arg=[chart.element_handle(), stats.element_handle(),
                                              before, text], timeout=CHANGE_TIMEOUT_MS // 4)
            return True
        except sync_api.TimeoutError:
            continue
    return False


@pytest.mark.parametrize("dashboard", DASHBOARDS, ids=[d.name for d in DASHBOARDS])
def test_a_preheated_dashboard_in_french(french_page, preheated, screenshots, dashboard):
    pg, where = french_page, f"{dashboard.name} (fr)"
    chart, stats = _open_french(pg, f"{preheated}voila/render/{dashboard.notebook}")
    assert _move_main_slider(pg, chart, stats), f"{where}: the main slider changed nothing"
    pg.wait_for_timeout(1500)              # every chart redrawn after the move
    _assert_clean(pg, where, console=False)
    left = english_left(pg.evaluate(TEXTS_JS))
    assert not left, f"{where}: English shown on the French page: {left}"
    points = [t for t in pg.evaluate(NUMBERS_JS) if re.search(r"\d\.\d", t)]
    assert not points, f"{where}: numbers with a decimal point: {points[:10]}"
    assert "Leçon" in stats.inner_text() and pg.evaluate("() => window.kernelnbLang") == "fr"
    # the same accessibility as in English (issue 52), in French: names, values, descriptions
    check_dashboard(pg, where, "fr", reflow=False)
    pg.screenshot(path=str(screenshots / f"fr-{dashboard.name}-1280.png"), full_page=True)
    problems = [f"cut text: {c}" for c in pg.evaluate(CUT_TEXT_JS)]
    problems += pg.evaluate(WIDENED_MARGINS_JS)
    scroll_width, inner = pg.evaluate(SCROLL_JS)
    if scroll_width > inner:
        problems.append(f"the page scrolls sideways ({scroll_width} px in a {inner} px window)")
    console = _console_problems(pg, where)
    assert not problems and not console, "\n".join(problems + ([console] if console else []))


def test_a_kernel_started_for_a_french_page(browser, served, screenshots):
    """Kernels started for the page's request: ?lang=fr, then the browser's Accept-Language; a
    bad lang gives English without an error; the address keeps lang; the kernel-gone message
    speaks French."""
    from .test_faults import _kernel_id, _kernel_pid, _wait_message
    title_js = "el => el.layout.title.text"
    context = browser.new_context(viewport={"width": 1280, "height": 800})     # English browser
    try:
        pg = context.new_page()
        chart, stats = _open_french(pg, f"{served}voila/render/svm_playground.ipynb?lang=fr")
        assert chart.evaluate(title_js) == "lunes\u00a0: SVM, RBF, σ = 0,5, C = 1"
        assert "erreur de test" in stats.inner_text()
        _move_main_slider(pg, chart, stats)
        pg.wait_for_function("() => /[?&]C=/.test(location.search)", timeout=CHANGE_TIMEOUT_MS)
        assert "lang=fr" in pg.url                       # the language stays in the address
        # the kernel gone: the message in French
        pid = _kernel_pid(_kernel_id(pg))
        t0 = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        _seconds, text = _wait_message(pg, t0, "s'est arrêté de façon inattendue")
        assert pg.locator(".kernelnb-gone-button").inner_text() == "Relancer le tableau de bord"
        pg.screenshot(path=str(screenshots / "fr-kernel-gone.png"))
        # a bad lang: English, no error
        pg.goto(f"{served}voila/render/svm_playground.ipynb?lang=klingon", wait_until="commit")
        chart = pg.locator(".js-plotly-plot").first
        chart.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
        pg.wait_for_function("() => document.documentElement.lang === 'en'",
                             timeout=CHANGE_TIMEOUT_MS)
        assert chart.evaluate(title_js) == "moons: SVM, RBF, σ = 0.5, C = 1"
        _assert_clean(pg, "svm_playground?lang=klingon", console=False)
    finally:
        context.close()
    context = browser.new_context(viewport={"width": 1280, "height": 800}, **FRENCH)
    try:
        pg = context.new_page()                          # no lang: the browser's languages
        chart, _stats = _open_french(pg, f"{served}voila/render/local_methods.ipynb")
        assert chart.evaluate(title_js).startswith("CKNN (enveloppe convexe), K = ")
        assert "lang=" not in pg.url
    finally:
        context.close()


def test_the_gallery_in_both_languages(french_page, served, screenshots):
    pg = french_page
    pg.goto(served, wait_until="load")                 # a French browser: the gallery in French
    assert pg.evaluate("() => document.documentElement.lang") == "fr"
    titles = pg.locator("a.card h2").all_inner_texts()
    assert titles[:len(DASHBOARDS)] == [i18n.translate(d.title, "fr") for d in DASHBOARDS]
    left = english_left(pg.evaluate(TEXTS_JS))
    assert not left, f"English shown on the French gallery: {left}"
    assert not pg.evaluate(CUT_TEXT_JS) and pg.evaluate(SCROLL_JS)[0] <= 1280
    pg.screenshot(path=str(screenshots / "gallery-fr.png"), full_page=True)
    # the switch: English, kept on the cards' links
    pg.get_by_role("link", name="English").click()
    pg.wait_for_function("() => document.documentElement.lang === 'en'")
    assert pg.locator("a.card h2").first.inner_text() == DASHBOARDS[0].title
    assert pg.locator("a.card").first.get_attribute("href").endswith("?lang=en")
    pg.get_by_role("link", name="Français").click()
    pg.wait_for_function("() => document.documentElement.lang === 'fr'")
    href = pg.locator("a.card").first.get_attribute("href")
    assert href.endswith(f"/voila/render/{DASHBOARDS[0].notebook}?lang=fr")
    assert not pg.console_problems, pg.console_problems
