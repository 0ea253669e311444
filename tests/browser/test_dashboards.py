"""The dashboards in a real browser: Debian's headless Chromium driven by Python Playwright.

A session-wide ``kernelnb serve`` on a free loopback port; the gallery and then every dashboard of
``kernelnb.lab.server.gallery.DASHBOARDS`` are opened; each dashboard must show its plotly chart, react to a
slider (chart and numbers change) and show no error or traceback. Screenshots for people go to
``test-output/screenshots/``.

What a dashboard provides for these tests (the contract with ``kernelnb.lab.app``):

* its main chart is the first plotly figure of the page (``.js-plotly-plot``);
* its numbers (errors, #SV, times, ...) are in a widget with CSS class ``kernelnb-stats``;
* its error messages are in a widget with CSS class ``kernelnb-error`` (empty when all is well);
* the slider the test moves is the one with CSS class ``kernelnb-main-slider`` if any, else the
  first slider of the page; one step right must change the main chart and the numbers.

Set ``KERNELNB_UPDATE_THUMBNAILS=1`` to also rewrite the gallery thumbnails
(``kernelnb/lab/static/<name>.png``) from the rendered charts, and the README's ``docs/screenshot.png``.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import warnings
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlparse

import pytest

from kernelnb.lab.server.gallery import DASHBOARDS, static_dir

from .._hosts import references_to_other_hosts
from ._a11y import check_dashboard
from .conftest import upstream_warning

CHROMIUM = os.environ.get("KERNELNB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (install Debian's 'chromium'; .ci/run does)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="Python Playwright is not installed (pip install playwright)")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LOAD_TIMEOUT_MS = 150_000    # a cold dashboard takes ~12 s on 2 cores; several may start at once
CHANGE_TIMEOUT_MS = 90_000
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-dev-shm-usage"]
# Every console error a page logs, and every warning but the upstream ones listed in
# tests/browser/conftest.py (UPSTREAM_CONSOLE_WARNINGS), fails its test (checklist item 16).
# A front end whose packages do not match beyond those (Voila's JupyterLab core and the widget
# extensions) says so with these words.
MISMATCH_CONSOLE = re.compile(r"Unsatisfied version|No satisfying version", re.IGNORECASE)
#: The two window sizes every page is checked at (checklist items 4 and 5).
SIZES = ((1280, 800), (1920, 1080))

# A fingerprint of a plotly graph div: its traces and shapes, typed arrays made plain.
FINGERPRINT_JS = """(el) => {
  const plain = (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
  return JSON.stringify({data: el.data, shapes: (el.layout || {}).shapes,
                         annotations: (el.layout || {}).annotations}, plain);
}"""


#: A name in the core of the MathJax 3 that Voila's front-end bundles (its output jax), in no
#: script a page needs when its typesetter is kernelnb's plain one.
MATHJAX_CORE = "AbstractOutputJax"


@lru_cache(maxsize=1)
def _voila_mathjax_scripts() -> frozenset:
    """The names of the scripts of Voila's front-end that hold MathJax 3's core."""
    from jupyter_core.paths import jupyter_path
    for folder in map(Path, jupyter_path("voila", "templates", "base", "static")):
        if (folder / "voila.js").is_file():
            return frozenset(f.name for f in folder.glob("*.js")
                             if MATHJAX_CORE in f.read_text(encoding="utf-8", errors="replace"))
    return frozenset()


def _typesetters_fetched(page):
    """(Voila's MathJax 3 scripts fetched, whether kernelnb's plain typesetter was fetched)."""
    names = [urlparse(n).path for n in
             page.evaluate("() => performance.getEntriesByType('resource').map(e => e.name)")]
    mathjax = _voila_mathjax_scripts()
    return ([n for n in names if "/voila/static/" in n and n.rsplit("/", 1)[-1] in mathjax],
            any(n.endswith("/kernelnb/lab/static/plain-math.js") for n in names))


@pytest.fixture(scope="session")
def screenshots(test_output):
    d = test_output / "screenshots"
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture
def page(browser, served):
    """A fresh page that records console errors and requests leaving this machine."""
    context = browser.new_context(viewport={"width": 1280, "height": 1500})
    pg = context.new_page()
    pg.console_problems = []
    pg.console_upstream = []
    pg.console_all = []
    pg.external_requests = []

    def on_console(m):
        pg.console_all.append(f"{m.type}: {m.text}"[:300])
        if m.type in ("warning", "error"):
            where = (m.location or {}).get("url", "")
            text = f"{m.type}: {m.text}" + (f" ({where})" if where else "")
            if upstream_warning(m.type, m.text) is None:
                pg.console_problems.append(text[:500])
            else:
                pg.console_upstream.append(m.text[:300])

    pg.on("console", on_console)
    pg.on("pageerror", lambda e: pg.console_problems.append(f"pageerror: {e}"[:500]))

    def on_request(req):
        host = urlparse(req.url).hostname
        if host not in (None, "127.0.0.1", "localhost") and not req.url.startswith("data:"):
            pg.external_requests.append(req.url)

    pg.on("request", on_request)
    yield pg
    context.close()


ANYWIDGET_INIT = re.compile(r"\[anywidget\] Failed to initialize model")


def _console_problems(pg, where):
    """The warnings and errors the page logged, as one message ('' when none)."""
    problems = pg.console_problems
    if not problems:
        return ""
    hint = ("\n(the front-end packages do not match each other beyond the upstream warnings "
            "of tests/browser/conftest.py: Voila's JupyterLab core and the widget extensions)"
            if any(MISMATCH_CONSOLE.search(m) for m in problems) else "")
    return (f"{where}: the browser console has {len(problems)} warning(s) or error(s):\n"
            + "\n".join(problems) + hint)


def _assert_clean(pg, where, console=True):
    """No traceback or error shown in the page; with ``console``, none logged either."""
    text = pg.inner_text("body")
    for bad in ("Traceback", "There was an error when executing cell", "Error displaying widget"):
        assert bad not in text, f"{where}: the page shows {bad!r}:\n{text[:2000]}"
    errors = [t.strip() for t in pg.locator(".kernelnb-error").all_inner_texts() if t.strip()]
    assert not errors, f"{where}: the dashboard shows an error: {errors}"
    if console:
        message = _console_problems(pg, where)
        assert not message, message


# Text cut by its box (checklist item 4): every control's label, each toggle button, the slider
# readouts, the readout table's cells, a drop-down whose chosen option is wider than the box and
# any option of a list (a <select> does not overflow: an option's text is measured in the
# select's font).  1 px of tolerance for sub-pixel rounding.
CUT_TEXT_JS = """() => {
  const shown = e => e.getClientRects().length > 0 && e.clientWidth > 0;
  const name = e => {
    const w = e.closest('.widget-inline-hbox');
    const label = w && w.querySelector('.widget-label');
    return label && label !== e ? ` (control "${label.textContent.trim()}")` : '';
  };
  const cut = [];
  const boxes = '.widget-label, .widget-label-basic, .widget-inline-hbox label, .widget-readout,'
    + ' .widget-toggle-button, .widget-button, .jupyter-button, .widget-radio-box label,'
    + ' .kernelnb-stats td, .kernelnb-stats th';
  for (const e of document.querySelectorAll(boxes)) {
    if (!shown(e) || e.scrollWidth <= e.clientWidth + 1) continue;
    cut.push(`${[e.tagName.toLowerCase(), ...e.classList].join(".")}${name(e)}: `
             + `"${(e.innerText || e.textContent).trim()}" needs ${e.scrollWidth} px, `
             + `has ${e.clientWidth} px`);
  }
  const canvas = document.createElement('canvas').getContext('2d');
  for (const e of document.querySelectorAll('select')) {
    if (!shown(e)) continue;
    const st = getComputedStyle(e);
    canvas.font = `${st.fontStyle} ${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
    if (e.multiple || e.size > 1) {          // a list: each of its options
      const room = e.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight);
      for (const o of e.options) {
        const ost = getComputedStyle(o);
        const need = canvas.measureText(o.text).width + parseFloat(ost.paddingLeft || 0)
                     + parseFloat(ost.paddingRight || 0);
        if (need > room + 1) {
          cut.push(`select${name(e)} option: "${o.text}" needs ${Math.ceil(need)} px, `
                   + `has ${Math.floor(room)} px`);
        }
      }
      continue;
    }
    if (e.selectedIndex < 0) continue;
    const text = e.options[e.selectedIndex].text;
    const need = canvas.measureText(text).width;
    const room = e.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight);
    if (need > room + 1) {
      cut.push(`select${name(e)}: "${text}" needs ${Math.ceil(need)} px, has ${Math.floor(room)} px`);
    }
  }
  return cut;
}"""

SCROLL_JS = """() => {
  const d = document.scrollingElement || document.documentElement;
  return [d.scrollWidth, window.innerWidth];
}"""


# Charts whose declared margins did not hold what plotly draws there (checklist item 19: tick
# labels, axis titles, a legend or a colour bar beside the plot): plotly then widens the margin and
# draws the whole figure a second time (kernelnb.lab.viz._style.BASE_LAYOUT). Margins plotly
# narrows (a figure too small for them) are not reported.
WIDENED_MARGINS_JS = """() => {
  const out = [];
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const full = gd._fullLayout;
    if (!full || !full._size) continue;
    const title = full.title && full.title.text ? full.title.text : '(untitled)';
    const wider = ['l', 'r', 't', 'b']
      .filter(k => Math.round(full._size[k]) > Math.round(full.margin[k]))
      .map(k => `${k} ${Math.round(full.margin[k])} -> ${Math.round(full._size[k])} px`);
    if (wider.length) out.push(`chart "${title.slice(0, 60)}" (${Math.round(full.width)} px wide): `
                               + `plotly widened its margins: ${wider.join(', ')}`);
  }
  return out;
}"""


def _design_problems(page, screenshots, name):
    """Screenshot ``name`` at each of :data:`SIZES` (resizing the open page) and list what is cut
    or scrolls sideways there, and the charts whose margins plotly had to widen."""
    problems = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(700)       # plotly redraws its charts after a window resize
        page.screenshot(path=str(screenshots / f"{name}-{width}.png"), full_page=True)
        problems += [f"{width}x{height}: cut text: {c}" for c in page.evaluate(CUT_TEXT_JS)]
        problems += [f"{width}x{height}: {c}" for c in page.evaluate(WIDENED_MARGINS_JS)]
        scroll_width, inner = page.evaluate(SCROLL_JS)
        if scroll_width > inner:
            problems.append(f"{width}x{height}: the page scrolls sideways "
                            f"({scroll_width} px wide in a {inner} px window)")
    return problems


def test_gallery_lists_every_dashboard(page, served, screenshots):
    page.goto(served, wait_until="load")
    cards = page.locator("a.card")
    names = cards.evaluate_all("els => els.map(e => e.dataset.dashboard)")
    assert names[:len(DASHBOARDS)] == [d.name for d in DASHBOARDS]
    for d in DASHBOARDS:
        card = page.locator(f'a.card[data-dashboard="{d.name}"]')
        assert card.locator("h2").inner_text().strip() == d.title
        assert card.get_attribute("href").endswith(f"/voila/render/{d.name}.ipynb")
        # every thumbnail image actually loaded (a broken image has naturalWidth 0).  The
        # thumbnails are lazy: the page's load event does not wait for them, so each is scrolled
        # to and waited for until the browser is done with it, loaded or broken
        img = card.locator("img, svg").first
        if img.evaluate("e => e.tagName.toLowerCase()") == "img":
            img.scroll_into_view_if_needed()
            handle = img.element_handle()
            page.wait_for_function("e => e.complete", arg=handle, timeout=LOAD_TIMEOUT_MS)
            assert handle.evaluate("e => e.naturalWidth > 0"), f"{d.name}: thumbnail broken"
    page.screenshot(path=str(screenshots / "gallery.png"), full_page=True)
    assert not page.external_requests, f"the gallery fetched from outside: {page.external_requests}"
    message = _console_problems(page, "gallery")
    assert not message, message
    # The first card leads to the dashboard's render URL.
    with page.expect_navigation(timeout=LOAD_TIMEOUT_MS, wait_until="commit"):
        cards.first.click()
    assert page.url.endswith(f"/voila/render/{DASHBOARDS[0].name}.ipynb")


def _scaled_png(page, png: bytes, width: int, height: int | None = None) -> bytes:
    """``png`` scaled to ``width`` (and cropped to ``height``, centred), drawn by the browser."""
    import base64
    data = page.evaluate(
        """async ([b64, w, h]) => {
          const img = new Image();
          img.src = 'data:image/png;base64,' + b64;
          await img.decode();
          const s = h ? Math.max(w / img.width, h / img.height) : w / img.width;
          h = h || Math.round(img.height * s);
          const c = document.createElement('canvas');
          c.width = w; c.height = h;
          const ctx = c.getContext('2d');
          ctx.fillStyle = '#ffffff'; ctx.fillRect(0, 0, w, h);
          ctx.imageSmoothingQuality = 'high';
          ctx.drawImage(img, (w - img.width * s) / 2, (h - img.height * s) / 2,
                        img.width * s, img.height * s);
          return c.toDataURL('image/png').split(',')[1];
        }""", [base64.b64encode(png).decode(), width, height])
    return base64.b64decode(data)


def _update_pictures(page, chart, name):
    """Rewrite the gallery thumbnail kernelnb/lab/static/<name>.png (the main chart, 320x200) and,
    for the first dashboard, the README's docs/screenshot.png."""
    (static_dir() / f"{name}.png").write_bytes(_scaled_png(page, chart.screenshot(), 320, 200))
    if name == DASHBOARDS[0].name:
        shot = page.screenshot(clip={"x": 0, "y": 0, "width": 1280, "height": 900})
        docs = Path(__file__).resolve().parents[2] / "docs"
        (docs / "screenshot.png").write_bytes(_scaled_png(page, shot, 720))


def _open_and_move(page, served, dashboard):
    """Open the dashboard, move its main slider one step; returns (chart, stats, stats_before,
    chart_changed, stats_changed) once both changed or CHANGE_TIMEOUT_MS passed."""
    where = dashboard.name
    response = page.goto(f"{served}voila/render/{dashboard.notebook}", wait_until="commit",
                         timeout=LOAD_TIMEOUT_MS)
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    stats = page.locator(".kernelnb-stats").first
    stats.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    page.wait_for_function("el => el.data && el.data.length > 0", arg=chart.element_handle(),
                           timeout=LOAD_TIMEOUT_MS)
    page.wait_for_function("el => el.innerText.trim().length > 0", arg=stats.element_handle(),
                           timeout=LOAD_TIMEOUT_MS)
    # The rendered page as served refers to no other host (what is fetched is checked apart).
    hits = references_to_other_hosts(response.text())
    assert not hits, f"{where}: the page refers to another host: {hits[:3]}"
    # Code cells are stripped: no input area with source shows.
    assert page.locator(".jp-InputArea-editor").count() == 0, f"{where}: code cells are shown"
    _assert_clean(page, where, console=False)

    chart_before = chart.evaluate(FINGERPRINT_JS)
    stats_before = stats.inner_text()

    main = page.locator(".kernelnb-main-slider .noUi-handle")
    handle = main.first if main.count() else page.locator(".noUi-handle").first
    assert handle.count() == 1, f"{where}: no slider on the page"
    # One step right; pressed again if nothing moved (a key event can land before the widget
    # manager is listening), and the wait grows until CHANGE_TIMEOUT_MS in all.
    changed_js = (f"([el, st, before, stBefore]) => ({FINGERPRINT_JS})(el) !== before"
                  " && st.innerText !== stBefore")
    args = [chart.element_handle(), stats.element_handle(), chart_before, stats_before]
    waited, step = 0, 15_000
    while True:
        handle.focus()
        handle.press("ArrowRight")
        try:
            page.wait_for_function(changed_js, arg=args, timeout=step)
            return chart, stats, stats_before, True, True
        except sync_api.TimeoutError:
            waited += step
            if waited >= CHANGE_TIMEOUT_MS:
                return (chart, stats, stats_before, chart.evaluate(FINGERPRINT_JS) != chart_before,
                        stats.inner_text() != stats_before)


@pytest.mark.parametrize("dashboard", DASHBOARDS, ids=[d.name for d in DASHBOARDS])
def test_dashboard_renders_and_reacts(page, served, screenshots, dashboard):
    where = dashboard.name
    chart, stats, stats_before, chart_changed, stats_changed = _open_and_move(page, served,
                                                                             dashboard)
    if stats_changed and not chart_changed:
        # Seen once on a heavily loaded machine: the kernel answered (the numbers changed) but
        # the chart's view applied none of the figure's updates. Say so, and try a fresh page:
        # the test still fails if a second page does not redraw either.
        page.screenshot(path=str(screenshots / f"{dashboard.name}-STALE.png"), full_page=True)
        warnings.warn(f"{where}: the chart did not redraw on the first page; reloading once")
        chart, stats, stats_before, chart_changed, stats_changed = _open_and_move(page, served,
                                                                                 dashboard)
    if not (chart_changed and stats_changed):
        page.screenshot(path=str(screenshots / f"{dashboard.name}-FAILED.png"), full_page=True)
        pytest.fail(f"{where}: {CHANGE_TIMEOUT_MS / 1000:.0f} s after moving the slider, "
                    f"chart changed: {chart_changed}, numbers changed: {stats_changed}; "
                    f"browser console (last 30):\n" + "\n".join(page.console_all[-30:]))
    assert stats.inner_text() != stats_before
    _assert_clean(page, where, console=False)
    # the dashboards write their math in Unicode: the page's typesetter is kernelnb's plain one,
    # and none of the MathJax Voila bundles is fetched (kernelnb.lab.server.app.plain_math_hook)
    assert _voila_mathjax_scripts(), f"no script of Voila's front-end holds {MATHJAX_CORE!r}"
    mathjax, plain = _typesetters_fetched(page)
    assert plain and not mathjax, f"{where}: typesetter: plain {plain}, MathJax 3 {mathjax}"

    page.wait_for_timeout(2500)         # let every chart receive its update and redraw (busy machine)
    if os.environ.get("KERNELNB_UPDATE_THUMBNAILS"):
        _update_pictures(page, chart, dashboard.name)
    # The design at two window sizes (the same page, resized), then everything found at once:
    # what is cut, sideways scrolling and what the console logged.
    problems = _design_problems(page, screenshots, dashboard.name)
    console = _console_problems(page, where)
    if console and all(ANYWIDGET_INIT.search(m) for m in page.console_problems):
        # Seen once in a whole run (active learning, 2 cores busy with the rest of the suite):
        # one figure's front-end model failed to start. Say so and try a fresh page; the test
        # still fails if the second page logs anything.
        warnings.warn(f"{where}: {console}; reloading once")
        page.console_problems.clear()
        _open_and_move(page, served, dashboard)
        page.wait_for_timeout(2500)
        problems = _design_problems(page, screenshots, dashboard.name)
        console = _console_problems(page, where)
    assert not problems and not console, "\n".join(
        ([f"{where}: {len(problems)} layout problem(s):"] + problems if problems else [])
        + ([console] if console else []))
    assert not page.external_requests, f"{where}: assets fetched from outside: {page.external_requests}"
    # WCAG 2.2 AA (issue 52): axe's rules, names and values, charts described, reflow at 320 px
    facts = check_dashboard(page, where, "en")
    assert any(c["name"] for c in facts["charts"]), f"{where}: no chart is named"


def _open_with_readout(page, served, name):
    """Open dashboard ``name`` and wait until its chart is visible and its readout filled:
    ``(dashboard, chart locator, readout locator)``."""
    dashboard = next(d for d in DASHBOARDS if d.name == name)
    page.goto(f"{served}voila/render/{dashboard.notebook}", wait_until="commit",
              timeout=LOAD_TIMEOUT_MS)
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    stats = page.locator(".kernelnb-stats").first
    page.wait_for_function("el => el.innerText.trim().length > 0", arg=stats.element_handle(),
                           timeout=LOAD_TIMEOUT_MS)
    return dashboard, chart, stats


def test_vicinal_risk_draws_the_ellipsoidal_vicinities(page, served, screenshots):
    """The ellipses of the ellipsoidal VRM, as a student reaches them: the 'poly 2' kernel and
    the checkbox, clicked in the page; the trace fills and the readout names the input margins."""
    dashboard, chart, stats = _open_with_readout(page, served, "vicinal_risk")
    page.get_by_role("button", name="poly 2").click()
    page.get_by_role("checkbox", name="draw the ellipsoidal VRM's vicinities").check()
    filled = ("el => el.data.some(t => t.name === 'ellipsoidal VRM vicinities' && t.x"
              " && t.x.length > 0 && t.visible !== false)")
    page.wait_for_function(filled, arg=chart.element_handle(), timeout=CHANGE_TIMEOUT_MS)
    assert "poly (x·z + 1)²" in chart.evaluate("el => el.layout.title.text")
    # lambda from 1 down to 0.5 (ten steps of 0.05): the circles become ellipses
    before = chart.evaluate(FINGERPRINT_JS)
    handle = page.locator(".widget-slider", has_text="weight λ").locator(".noUi-handle")
    handle.focus()
    for _ in range(10):
        handle.press("ArrowLeft")
    page.wait_for_function(f"([el, before]) => ({FINGERPRINT_JS})(el) !== before",
                           arg=[chart.element_handle(), before], timeout=CHANGE_TIMEOUT_MS)
    assert "smallest input margin" in stats.text_content().lower()   # in the folded details
    _assert_clean(page, dashboard.name)
    page.wait_for_timeout(1500)
    page.screenshot(path=str(screenshots / "vicinal_risk-ellipses.png"), full_page=True)


def test_vicinal_risk_says_when_no_hard_margin_exists(page, served, screenshots):
    """Moons with the linear kernel, chosen in the page: no line separates them, so the chart
    says there is no hard-margin SVM (an annotation over the plot) and the readout explains it,
    with no error shown and the other boundaries still drawn."""
    dashboard, chart, stats = _open_with_readout(page, served, "vicinal_risk")
    assert "No hard-margin SVM" not in stats.inner_text()
    from kernelnb.lab.app._toys import TOY_LABELS
    page.locator(".widget-dropdown", has_text="data set").locator("select").select_option(
        label=TOY_LABELS["moons"])
    said = ("el => ((el.layout || {}).annotations || []).some("
            "a => a.text && a.text.includes('not separable'))")
    page.wait_for_function(said, arg=chart.element_handle(), timeout=CHANGE_TIMEOUT_MS)
    page.wait_for_function("el => el.innerText.includes('No hard-margin SVM')",
                           arg=stats.element_handle(), timeout=CHANGE_TIMEOUT_MS)
    names = chart.evaluate("el => el.data.map(t => t.name)")
    assert any(n.startswith("hard SVM: none") for n in names)
    assert "not separable with the linear kernel" in stats.inner_text()
    _assert_clean(page, dashboard.name)
    page.wait_for_timeout(1500)
    page.screenshot(path=str(screenshots / "vicinal_risk-not-separable.png"), full_page=True)


# Ten clicks at distinct places of the plot area, 120 ms apart, as a mouse button pressed and
# released there with no move before (no hover phase: plotly computes its hover from the click
# itself); the page's own mousedown/mouseup handlers receive them as from a mouse.
CLICKS_JS = """async ([points, pause]) => {
  const drag = document.querySelector('.js-plotly-plot .nsewdrag');
  for (const [x, y] of points) {
    const o = {clientX: x, clientY: y, bubbles: true, cancelable: true, view: window, button: 0};
    drag.dispatchEvent(new MouseEvent('mousedown', {...o, buttons: 1}));
    document.dispatchEvent(new MouseEvent('mouseup', {...o, buttons: 0}));
    await new Promise(r => setTimeout(r, pause));
  }
}"""
# The clicked places in data coordinates (plotly's axes convert pixels), and the class-1 points.
TO_DATA_JS = """(el, points) => {
  const xa = el._fullLayout.xaxis, ya = el._fullLayout.yaxis, r = el.getBoundingClientRect();
  return points.map(([x, y]) => [xa.p2c(x - r.left - xa._offset), ya.p2c(y - r.top - ya._offset)]);
}"""
CLASS1_JS = """el => { const t = el.data.find(t => t.meta === 'class1');
  return Array.from(t.x).map((x, i) => [x, Array.from(t.y)[i]]); }"""


def test_svm_playground_counts_every_click(page, served, screenshots):
    """Checklist item 17: ten quick clicks on the chart, at distinct places and with no hover
    first, add ten points of the chosen class, each where it was clicked (within one cell of the
    decision surface's grid, the resolution a click is read at)."""
    dashboard, chart, stats = _open_with_readout(page, served, "svm_playground")
    page.wait_for_function("el => /points added by clicks\\s+0\\b/.test(el.innerText)",
                           arg=stats.element_handle(), timeout=CHANGE_TIMEOUT_MS)
    page.wait_for_timeout(1000)          # the view's handlers are attached once it has drawn
    box = chart.locator(".nsewdrag").first.bounding_box()
    # Distinct places over the plot area; their data coordinates as the axes stand before the
    # clicks (the chart's legend, which counts the points, may shift the plot area afterwards).
    points = [(box["x"] + box["width"] * (0.2 + 0.066 * i),
               box["y"] + box["height"] * (0.75 - 0.05 * i if i % 2 else 0.25 + 0.05 * i))
              for i in range(10)]
    clicked = chart.evaluate(TO_DATA_JS, points)
    before = chart.evaluate(CLASS1_JS)
    page.evaluate(CLICKS_JS, [points, 120])
    page.wait_for_function("el => /points added by clicks\\s+10\\b/.test(el.innerText)",
                           arg=stats.element_handle(), timeout=CHANGE_TIMEOUT_MS)
    page.wait_for_function(f"el => ({CLASS1_JS})(el).length === {len(before) + 10}",
                           arg=chart.element_handle(), timeout=CHANGE_TIMEOUT_MS)
    added = chart.evaluate(CLASS1_JS)[len(before):]
    # the heat map's grid spacing (its x and y may be given per cell: their distinct values)
    dx, dy = chart.evaluate("""el => { const h = el.data.find(t => t.type === 'heatmap');
      return [h.x, h.y].map(v => {
      const u = [...new Set(Array.from(v).flat())].sort((a, b) => a - b);
      return u[1] - u[0]; }); }""")
    for (cx, cy) in clicked:
        assert any(abs(ax - cx) <= dx and abs(ay - cy) <= dy for ax, ay in added), (
            f"no point added near the click at ({cx:.3f}, {cy:.3f}); added: {added}")
    _assert_clean(page, dashboard.name)
    page.screenshot(path=str(screenshots / "svm_playground-clicks.png"), full_page=True)


def test_an_old_fisher_link_names_the_fisher_kernel_dashboard(page, served, screenshots):
    """The Fisher kernel left the feature selection dashboard for a page of its own (issue 49).
    An old link, ``feature_selection.ipynb?method=fisher&n_components=2``, draws the selection
    and says in the page where the Fisher kernel is now, and the address drops the refused
    settings; the Fisher kernel's page draws the moons with both sets of means and boundaries."""
    where = "feature_selection?method=fisher"
    page.goto(f"{served}voila/render/feature_selection.ipynb?method=fisher&n_components=2",
              wait_until="commit", timeout=LOAD_TIMEOUT_MS)
    said = page.locator(".kernelnb-error", has_text="fisher_kernel.ipynb").first
    said.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    text = said.inner_text()
    assert "method=fisher" in text and "n_components=2" in text, text
    assert "“Fisher kernel tuned by R²/M²”" in text and "FisherKernelExplorer()" in text, text
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    page.wait_for_function("el => el.data && el.data.some(t => t.name === 'relevant features')",
                           arg=chart.element_handle(), timeout=CHANGE_TIMEOUT_MS)
    page.wait_for_function("() => !window.location.search.includes('fisher')",
                           timeout=CHANGE_TIMEOUT_MS)
    body = page.inner_text("body")
    assert "Traceback" not in body and "Error displaying widget" not in body
    message = _console_problems(page, where)
    assert not message, message
    page.screenshot(path=str(screenshots / "feature_selection-old-fisher-link.png"),
                    full_page=True)
    dashboard, chart, stats = _open_with_readout(page, served, "fisher_kernel")
    page.wait_for_function("el => el.innerText.includes('means by likelihood')",
                           arg=stats.element_handle(), timeout=CHANGE_TIMEOUT_MS)
    names = chart.evaluate("el => el.data.map(t => t.name)")
    assert {"means by likelihood", "means by R²/M²", "boundary, likelihood",
            "boundary, R²/M²"} <= set(names) and len(names) == 6
    assert chart.evaluate("el => el.layout.title.text").startswith("moons, 200 points")
    _assert_clean(page, dashboard.name)


# What both scripts through the figures' shim start with: the shim imported as a module, a figure
# model as plotly's front-end reads it (anywidget's model: get, set, on) holding ``data``, and
# waits (``until`` gives up after 10 s).
SHIM_PAGE_PRELUDE = """
  const mod = await import(URL.createObjectURL(new Blob([shim], {type: "text/javascript"})));
  const figureModel = (data) => {
    const state = {_widget_data: data, _widget_layout: {}, _config: {},
                   _last_layout_edit_id: 0, _last_trace_edit_id: 0};
    for (const k of ["addTraces", "deleteTraces", "moveTraces", "restyle", "relayout", "update",
                     "animate", "removeLayoutProps", "removeTraceProps"]) {
      state["_py2js_" + k] = null;
    }
    const handlers = {};
    return {get: (k) => state[k], on: (e, f) => { (handlers[e] ||= []).push(f); },
      set: (k, v) => { state[k] = v; (handlers["change:" + k] || []).forEach((f) => f()); },
      off() {}, save_changes() {}, send() {}};
  };
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (ok) => { for (let i = 0; i < 200 && !ok(); i++) await pause(50); };
"""

# A figure with a bar trace and an untyped (scatter) one; then a box trace added as plotly.py adds
# traces.
DEFERRED_TRACES_JS = "async (shim) => {" + SHIM_PAGE_PRELUDE + """
  const traces = () => Object.keys(Plotly.PlotSchema.get().traces).sort();
  const atLoad = traces();
  const model = figureModel([{type: "bar", y: [1, 2]}, {y: [2, 1]}]);
  const w = mod.default();
  w.initialize({model});
  const afterInit = traces();
  const el = document.getElementById("g");
  w.render({model, el});
  await until(() => el.querySelectorAll(".bars .point").length > 0);
  const bars = el.querySelectorAll(".bars .point").length;
  model.set("_py2js_addTraces", {trace_data: [{type: "box", y: [1, 2, 3]}],
                                 trace_edit_id: 1, layout_edit_id: 1});
  await until(() => el.querySelectorAll(".boxlayer .trace").length > 0);
  const boxes = el.querySelectorAll(".boxlayer .trace").length;
  const afterAdd = traces();
  globalThis.__TRACES_GLOBAL__(["nosuchtype", "__proto__", "constructor", "bar", "heatmap"]);
  return {atLoad, afterInit, bars, boxes, afterAdd, atEnd: traces()};
}"""


def _run_shim(browser, body, script, bundle):
    """Evaluate ``script`` (called with the figures' shim for ``bundle``) in a page whose body is
    ``body``, the page and the bundle answered by Playwright at a made-up origin (nothing leaves
    the machine): (its result, the warnings and errors the page logged)."""
    from kernelnb.lab.viz._figure_widget import esm_shim
    origin = "http://kernelnb.test/"

    def answer(route):
        url = route.request.url
        if url == origin + bundle.route:
            route.fulfill(body=bundle.body, content_type="text/javascript")
        elif url == origin + "page":
            route.fulfill(body=f"<html><body>{body}</body></html>", content_type="text/html")
        else:
            route.fulfill(status=404, body="")

    context = browser.new_context()
    try:
        context.route(origin + "**", answer)
        pg = context.new_page()
        problems = []
        pg.on("console", lambda m: m.type in ("warning", "error") and problems.append(m.text))
        pg.on("pageerror", lambda e: problems.append(str(e)))
        pg.goto(origin + "page")
        return pg.evaluate(script, esm_shim(bundle.route)), problems
    finally:
        context.close()


def test_served_plotly_registers_other_trace_types_when_a_figure_needs_them(browser):
    """The served bundle registers scatter, contour and heatmap when it loads; the figures' shim
    registers a bar trace's type before plotly draws the figure, and a box trace's before plotly
    adds it, and both are drawn. Registering again, or an unknown name, does nothing (and logs
    nothing)."""
    from kernelnb.lab.server._plotly_bundle import EAGER_TRACES, PLOTLY_TRACES_GLOBAL, plotly_bundle
    bundle = plotly_bundle()
    assert {"bar", "box"} <= set(bundle.deferred) and not EAGER_TRACES & set(bundle.deferred)
    out, problems = _run_shim(
        browser, "<div id='g' style='width:500px;height:350px'></div>",
        DEFERRED_TRACES_JS.replace("__TRACES_GLOBAL__", PLOTLY_TRACES_GLOBAL), bundle)
    eager = sorted({"scatter"} | EAGER_TRACES)
    assert out["atLoad"] == eager
    assert out["afterInit"] == sorted(eager + ["bar"]) and out["bars"] == 2
    assert out["afterAdd"] == sorted(eager + ["bar", "box"]) and out["boxes"] == 1
    assert out["atEnd"] == out["afterAdd"]
    assert not problems, problems


# Every deferred trace type registered at once: each of its modules left as text in the served
# bundle is compiled and run.
ALL_DEFERRED_JS = "async (shim) => {" + SHIM_PAGE_PRELUDE + """
  const traces = () => Object.keys(Plotly.PlotSchema.get().traces).sort();
  const atLoad = traces();
  globalThis.__TRACES_GLOBAL__(__DEFERRED__);
  return {atLoad, atEnd: traces()};
}"""


def test_served_plotly_registers_every_deferred_trace_type(browser):
    """Registering every deferred trace type through the served bundle compiles and runs each
    module factory it serves as text (compile_on_demand); plotly then knows every type, and the
    page logs nothing."""
    from kernelnb.lab.server._plotly_bundle import EAGER_TRACES, PLOTLY_TRACES_GLOBAL, plotly_bundle
    bundle = plotly_bundle()
    assert bundle.on_demand > 100
    assert (bundle.body.count(b"return eval(") + bundle.body.count(b"return(__kbOnDemand_")
            == bundle.on_demand)
    out, problems = _run_shim(
        browser, "", ALL_DEFERRED_JS.replace("__TRACES_GLOBAL__", PLOTLY_TRACES_GLOBAL)
        .replace("__DEFERRED__", json.dumps(list(bundle.deferred))), bundle)
    assert out["atLoad"] == sorted({"scatter"} | EAGER_TRACES)
    assert out["atEnd"] == sorted(set(out["atLoad"]) | set(bundle.deferred))
    assert not problems, problems


# The synthetic bundle of tests/lab/app/test_on_demand.py as a classic script, run in a page:
# what requiring the factory of its table gives, and the order the factories ran in.
ON_DEMAND_JS = """(src) => {
  (0, eval)(src);
  const lib = globalThis.__kbOnDemand;
  delete globalThis.__kbOnDemand;
  const later = lib.table[0][1]();
  return {later, again: lib.table[0][1]() === later, log: lib.log.slice()};
}"""


def test_a_factory_served_as_text_runs_as_the_code_did(browser):
    """The synthetic bundle before and after compile_on_demand, each as a classic script in
    Chromium: the factory its table holds (left as text with the ones only it reaches) gives the
    same exports, once, and the factories run in the same order, with the same ``this`` and
    arguments; a function left as text still constructs with ``new`` (its prototype, its length
    and name kept)."""
    from kernelnb.lab.server._plotly_bundle._classic_script import classic_script
    from kernelnb.lab.server._plotly_bundle._on_demand import compile_on_demand

    from ..lab.app.test_on_demand import BUNDLE, _table_span
    rewritten, count, _ = compile_on_demand(BUNDLE, ignore=[_table_span(BUNDLE)])
    assert count == 10
    context = browser.new_context()
    try:
        pg = context.new_page()
        before, after = (pg.evaluate(ON_DEMAND_JS, classic_script(src, "__kbOnDemand"))
                         for src in (BUNDLE, rewritten))
    finally:
        context.close()
    assert after == before
    assert before["later"] == {"u": 2, "s": 1, "h": "set by esm", "re": '}"\'', "t": "}\u2028",
                               "f": "inner//", "c": "derived of base",
                               "p": [10, True, 2, "Point"], "g": [1, 0], "nt": "function",
                               "b": ["first", "second"]}
    assert before["again"]
    assert before["log"] == ["used", "shared", "later:undefined:2", "esm"]


# Three figures through the shim: one in a shown element, one in an element under a hidden
# (display: none) box, shown later, and one hidden whose view is removed before it is shown.
HIDDEN_FIGURES_JS = "async (shim) => {" + SHIM_PAGE_PRELUDE + """
  const view = (id) => {
    const model = figureModel([{type: "scatter", y: [1, 3, 2]}]);
    const w = mod.default();
    w.initialize({model});
    return w.render({model, el: document.getElementById(id)});
  };
  const drawn = (id) => document.querySelectorAll(`#${id} .main-svg`).length > 0;
  view("shown"); view("later");
  const removed = view("removed");
  await until(() => drawn("shown"));
  await pause(500);
  const before = {shown: drawn("shown"), later: drawn("later"), removed: drawn("removed")};
  removed();
  document.getElementById("box").style.display = "block";
  await until(() => drawn("later"));
  await pause(500);
  const gd = document.getElementById("later");
  return {before, after: {later: drawn("later"), removed: drawn("removed")},
          width: gd._fullLayout ? gd._fullLayout.width : null};
}"""


def test_served_plotly_draws_a_hidden_figure_when_it_is_first_shown(browser):
    """Through the figures' shim, a figure whose element is not laid out (under a hidden box) is
    not drawn while it stays hidden, and is drawn at its box's width once the box shows; a figure
    whose view is removed while hidden is never drawn; a shown figure is drawn at once."""
    from kernelnb.lab.server._plotly_bundle import plotly_bundle
    out, problems = _run_shim(
        browser, "<div id='shown' style='width:400px'></div>"
                 "<div id='box' style='display:none;width:600px'>"
                 "<div id='later'></div><div id='removed'></div></div>",
        HIDDEN_FIGURES_JS, plotly_bundle())
    assert out["before"] == {"shown": True, "later": False, "removed": False}
    assert out["after"] == {"later": True, "removed": False}
    assert out["width"] == 600
    assert not problems, problems


#: Records, from the page, when the main chart is marked stale and unmarked, when its drawing
#: (anything under it) changes, and its state at the key press.
STALE_JS = """(el) => {
  window.__kbStale = {marked: [], unmarked: [], drawn: [], atKey: null};
  // the chart as the key press leaves it, in the key's own task (this listener, on the bubbling
  // phase, runs after the page's own, on the capturing phase)
  document.addEventListener('keydown', () => {
    window.__kbStale.atKey = [el.getAttribute('aria-busy'), getComputedStyle(el).opacity,
                              el.classList.contains('kernelnb-busy')];
  }, {once: true});
  new MutationObserver(ms => { for (const m of ms) {
    if (m.target === el && m.type === 'attributes' && m.attributeName === 'aria-busy')
      window.__kbStale[el.getAttribute('aria-busy') === 'true' ? 'marked' : 'unmarked']
        .push(performance.now());
    else if (m.target !== el) window.__kbStale.drawn.push(performance.now());
  } }).observe(el, {subtree: true, childList: true, attributes: true, characterData: true});
}"""


@pytest.mark.parametrize("name", ["svm_playground", "margin_explorer"])
def test_a_moved_slider_marks_the_charts_stale_until_they_are_redrawn(page, served, screenshots,
                                                                       name):
    """At the key press, before the kernel answers, the page fades its charts and says
    aria-busy (kernelnb-busy.js); the mark goes with the chart's next drawing (a partial result
    for the margin explorer, the final picture for the SVM playground), not before."""
    dashboard, chart, _stats = _open_with_readout(page, served, name)
    page.wait_for_function("el => el.data && el.data.length > 0", arg=chart.element_handle(),
                           timeout=LOAD_TIMEOUT_MS)
    page.wait_for_timeout(1500)                    # the first picture's drawing is over
    chart.evaluate(STALE_JS)
    handle = page.locator(".kernelnb-main-slider .noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")
    # at once, in the same task as the key: faded and busy
    now = page.evaluate("() => window.__kbStale.atKey")
    assert now == ["true", "0.55", True], f"{name}: {now}"
    page.screenshot(path=str(screenshots / f"{name}-stale.png"))
    page.wait_for_function("el => el.getAttribute('aria-busy') === null",
                           arg=chart.element_handle(), timeout=CHANGE_TIMEOUT_MS)
    times = page.evaluate("() => window.__kbStale")
    assert len(times["marked"]) == 1 and len(times["unmarked"]) == 1, times
    assert times["drawn"] and times["drawn"][0] <= times["unmarked"][0], times
    assert chart.evaluate("el => getComputedStyle(el).opacity") == "1"
    assert page.locator("[aria-busy=true]").count() == 0
