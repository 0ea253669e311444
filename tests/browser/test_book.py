"""The built book in a real browser: Debian's headless Chromium driven by Python Playwright.

The session's book (``book`` in ``tests/conftest.py``: the README's docs command, warnings as
errors) is served on loopback by a plain static file server, and every page is opened at a
phone's 390×844 here and at a laptop's 1280×800 by the axe audit (``test_book_a11y``, which makes
the same checks on each page before axe runs). On each: no console warning or error, no request to
another host, no raw TeX left in the text (every formula typeset by the site's MathJax), every
plotly figure drawn, no sideways scrolling and no figure wider than the window. A dashboard page's
lesson slider (the page's native range input, which replaces plotly's) moves its figure and its
readout when clicked; the search page finds "support vector".
Screenshots of a chapter, a dashboard page (slider moved) and a reproduction page at both widths
go to ``test-output/screenshots/book/``.
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

CHROMIUM = os.environ.get("KERNELNB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (install Debian's 'chromium'; .ci/run does)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="Python Playwright is not installed (pip install playwright)")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-dev-shm-usage"]
SIZES = ((1280, 800), (390, 844))
# The browser's own request for /favicon.ico, and two notes of Chromium's software rendering
# (no GPU here) about the WebGL canvas of a 3-D figure: they say how Chromium draws, not that the
# page failed (the figure is drawn, which the test checks).
HARMLESS_CONSOLE = re.compile(r"/favicon\.ico|GL Driver Message \(OpenGL, Performance|"
                              r"Canvas2D: Multiple readback operations using getImageData",
                              re.IGNORECASE)
DRAW_TIMEOUT_MS = 90_000

#: Every figure drawn (or failed), MathJax done with the page (its startup promise).
SETTLED_JS = """async () => {
  const figs = Array.from(document.querySelectorAll('div.kernelnb-plotly'));
  const t0 = Date.now();
  while (figs.some(f => !['yes', 'failed'].includes(f.getAttribute('data-drawn')))) {
    if (Date.now() - t0 > %d) break;
    await new Promise(r => setTimeout(r, 100));
  }
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  return figs.map(f => f.getAttribute('data-drawn'));
}""" % DRAW_TIMEOUT_MS

#: TeX left as text: \\( \\[ $$ or a TeX command, outside code (pre, code) and MathJax's output.
RAW_TEX_JS = r"""() => {
  const walker = document.createTreeWalker(document.querySelector('main') || document.body,
                                           NodeFilter.SHOW_TEXT);
  const found = [];
  const tex = /\\\(|\\\[|\$\$|\\(frac|mathbf|sum|alpha|sigma|operatorname|left|right|top|le|ge)\b/;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest('pre, code, script, style, mjx-container, .highlight, .kernelnb-plotly'))
      continue;
    if (tex.test(n.textContent)) found.push(n.textContent.trim().slice(0, 80));
  }
  return found.slice(0, 5);
}"""

#: Sideways scrolling and figures wider than the window or their column.
LAYOUT_JS = """() => {
  const d = document.scrollingElement || document.documentElement;
  const cut = [];
  for (const f of document.querySelectorAll('div.kernelnb-plotly .main-svg')) {
    const r = f.getBoundingClientRect();
    const box = f.closest('div.kernelnb-plotly').getBoundingClientRect();
    if (r.right > window.innerWidth + 1 || r.width > box.width + 1) {
      cut.push(`figure ${Math.round(r.width)} px wide at x=${Math.round(r.left)}`);
    }
  }
  return {scroll: [d.scrollWidth, window.innerWidth], cut: cut};
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site(book):
    handler = functools.partial(_Quiet, directory=str(book.html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def shots(test_output):
    d = test_output / "screenshots" / "book"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _pages(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.html")
                  if not p.relative_to(root).parts[0].startswith("_"))


def _watch(pg):
    pg.problems, pg.external = [], []

    def on_console(m):
        where = (m.location or {}).get("url", "")
        text = f"{m.type}: {m.text}" + (f" ({where})" if where else "")
        if m.type in ("warning", "error") and not HARMLESS_CONSOLE.search(text):
            pg.problems.append(text[:300])

    pg.on("console", on_console)
    pg.on("pageerror", lambda e: pg.problems.append(f"pageerror: {e}"[:300]))

    def on_request(req):
        host = urlparse(req.url).hostname
        if host not in (None, "127.0.0.1", "localhost") and not req.url.startswith(
                ("data:", "blob:")):
            pg.external.append(req.url)

    pg.on("request", on_request)


def settled_page_problems(pg, where):
    """Wait until the page loaded in ``pg`` (watched by :func:`_watch`) is settled and return
    (its problems, the figures it drew, the formulas it typeset). A problem is a figure not
    drawn, TeX left as text, sideways scrolling, a figure wider than the window or its column, a
    console warning or error, or a request to another host since the page was loaded."""
    drawn = pg.evaluate(SETTLED_JS)
    n_formulas = pg.evaluate("() => document.querySelectorAll('mjx-container').length")
    problems = []
    if any(d != "yes" for d in drawn):
        problems.append(f"{where}: figures not drawn: {drawn}")
    raw = pg.evaluate(RAW_TEX_JS)
    if raw:
        problems.append(f"{where}: TeX left as text: {raw}")
    layout = pg.evaluate(LAYOUT_JS)
    scroll, room = layout["scroll"]
    if scroll > room + 1:
        problems.append(f"{where}: the page scrolls sideways ({scroll} px in {room})")
    problems += [f"{where}: {c}" for c in layout["cut"]]
    problems += [f"{where}: {m}" for m in pg.problems]
    problems += [f"{where}: request to another host: {u}" for u in pg.external]
    return problems, len(drawn), n_formulas


#: The phone's size. At the laptop's, the axe audit (test_book_a11y) opens every page and makes
#: these same checks on it before axe runs, so the pages are not opened a third time.
PHONE = SIZES[1]


def test_every_page_at_a_phones_width(book, site, browser):
    width, height = PHONE
    pages = _pages(book.html)
    assert len(pages) > 40, pages
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    _watch(pg)
    problems = []
    n_figures = n_formulas = 0
    try:
        for path in pages:
            pg.problems.clear()
            pg.external.clear()
            pg.goto(f"{site}/{path}", wait_until="load")
            found, figures, formulas = settled_page_problems(pg, f"{path} at {width}x{height}")
            problems += found
            n_figures += figures
            n_formulas += formulas
    finally:
        context.close()
    print(f"{len(pages)} pages at {width}x{height}: {n_figures} figures drawn, "
          f"{n_formulas} formulas typeset")
    assert not problems, "\n".join(problems[:40])


def _fingerprint(pg):
    return pg.evaluate("""() => {
      const gd = document.querySelector('.kernelnb-lesson-figure .js-plotly-plot');
      const plain = (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
      return JSON.stringify(gd.data.map(t => t.z || t.y), plain).length + ':' +
             JSON.stringify(gd.data.map(t => t.z || t.y), plain).slice(0, 4000);
    }""")


@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_lesson_slider_moves_the_figure(book, site, browser, shots, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    _watch(pg)
    try:
        pg.goto(f"{site}/dashboards/svm_playground.html", wait_until="load")
        assert pg.evaluate(SETTLED_JS)[0] == "yes"
        figure = pg.locator(".kernelnb-lesson-figure")
        figure.scroll_into_view_if_needed()
        before, readout = _fingerprint(pg), pg.inner_text(".kernelnb-frame-readout")
        control = pg.locator(".kernelnb-lesson-figure input[type=range]")
        assert control.count() == 1
        box = control.bounding_box()
        pg.mouse.click(box["x"] + 0.95 * box["width"], box["y"] + box["height"] / 2)
        pg.wait_for_function(
            "(r) => document.querySelector('.kernelnb-frame-readout').textContent !== r",
            arg=readout, timeout=20_000)
        pg.wait_for_timeout(500)
        assert _fingerprint(pg) != before, "the figure did not change with the slider"
        figure.screenshot(path=str(shots / f"dashboard_svm_playground_slider_{width}.png"))
        pg.screenshot(path=str(shots / f"dashboard_svm_playground_{width}.png"))
        assert not pg.problems, pg.problems
    finally:
        context.close()


@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_screenshots_of_a_chapter_and_a_reproduction(book, site, browser, shots, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    try:
        for path in ["notebooks/03_svm.html"] + sorted(
                str(p.relative_to(book.html)) for p in (book.html / "reproductions").glob(
                    "*.html") if p.stem != "index")[:1]:
            pg.goto(f"{site}/{path}", wait_until="load")
            pg.evaluate(SETTLED_JS)
            name = path.replace("/", "_").removesuffix(".html")
            pg.screenshot(path=str(shots / f"{name}_{width}.png"))
    finally:
        context.close()


def test_search_finds_support_vectors(book, site, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    try:
        pg.goto(f"{site}/search.html?q=support+vector", wait_until="load")
        pg.wait_for_selector("#search-results ul.search li", timeout=30_000)
        hits = pg.locator("#search-results ul.search li").all_inner_texts()
        assert len(hits) >= 3, hits
        assert any("Support vector machines" in h for h in hits), hits[:10]
    finally:
        context.close()
