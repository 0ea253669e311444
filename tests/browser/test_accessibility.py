"""A keyboard-only session in the SVM playground, in English and in French (issue 52).

Only the keyboard: Tab from the top of the page reaches the skip link first, then the slider
named C; ArrowRight moves it, and within 2 s the status region says what changed (the new C and
the numbers); the slider's value text is its readout's. Then a point of each class is added by
typing its coordinates (the keyboard's way to a click on the chart): the class's toggle button
says it is pressed, and the chart's description counts one more point of that class. Last, the
toggle that shows the charts' data as tables is reached and pressed, and the table of each class
holds its points. What the accessibility tree reads after C moved (the slider, the status) is
written to ``test-output/a11y/`` for people to read. The gallery passes axe in both languages.
"""
from __future__ import annotations

import io
import re
import time

import pytest

from ._a11y import axe_violations, check_dashboard, status_text
from .test_dashboards import LOAD_TIMEOUT_MS, page, screenshots, sync_api  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The page's texts the walk looks for, in each language (the catalog's translations).
TEXTS = {
    "en": {"class": "class {k}", "add": "add a point of the chosen class at (x₁, x₂)",
           "table": "table of the charts' data", "legend": "class {k} ({n})"},
    "fr": {"class": "classe {k}", "add": "ajouter un point de la classe choisie en (x₁, x₂)",
           "table": "tableau des données des graphiques", "legend": "classe {k} ({n})"},
}

# The focused element: its role, accessible name (as the page ties it) and state.
FOCUSED_JS = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const by = e.getAttribute('aria-labelledby');
  const label = by ? document.getElementById(by) : (e.labels && e.labels[0]);
  const name = (label ? label.textContent : (e.getAttribute('aria-label') || e.textContent))
    .replace(/\\s+/g, ' ').trim();
  const role = e.getAttribute('role') || ({BUTTON: 'button', INPUT: e.type === 'number' ?
    'spinbutton' : e.type, SELECT: 'combobox', A: 'link'}[e.tagName] || e.tagName.toLowerCase());
  return {role, name, valuetext: e.getAttribute('aria-valuetext'),
          pressed: e.getAttribute('aria-pressed')};
}"""


def _tab_to(pg, role, name, limit=120):
    """Press Tab until the focused element has ``role`` and ``name``; returns the tabs pressed."""
    seen = []
    for i in range(1, limit + 1):
        pg.keyboard.press("Tab")
        focused = pg.evaluate(FOCUSED_JS)
        if focused and focused["role"] == role and focused["name"] == name:
            return i
        seen.append(focused and f"{focused['role']}:{focused['name'][:30]}")
    pytest.fail(f"{limit} presses of Tab never reached the {role} {name!r}; reached {seen[:60]}")


def _description(pg):
    return pg.evaluate("""() => {
      const fig = document.querySelector('.js-plotly-plot').closest('[role=figure]');
      return document.getElementById(fig.getAttribute('aria-describedby')).textContent; }""")


def _add_point_by_keyboard(pg, texts, k, x, y, n_before):
    """Choose class ``k`` with its toggle, type (x, y), press the button; wait for the count."""
    _tab_to(pg, "button", texts["class"].format(k=k))
    pg.keyboard.press("Space")
    pg.wait_for_function("() => document.activeElement.getAttribute('aria-pressed') === 'true'",
                         timeout=10_000)
    _tab_to(pg, "spinbutton", "x₁")
    pg.keyboard.press("Control+A")
    pg.keyboard.type(str(x))
    _tab_to(pg, "spinbutton", "x₂")
    pg.keyboard.press("Control+A")
    pg.keyboard.type(str(y))
    _tab_to(pg, "button", texts["add"])
    pg.keyboard.press("Enter")
    legend = texts["legend"].format(k=k, n=n_before + 1)
    pg.wait_for_function("t => { const f = document.querySelector('.js-plotly-plot')"
                         ".closest('[role=figure]'); return document.getElementById("
                         "f.getAttribute('aria-describedby')).textContent.includes(t); }",
                         arg=legend, timeout=30_000)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_keyboard_only_session_in_the_svm_playground(page, served, screenshots, test_output,
                                                        lang):
    pg, texts, where = page, TEXTS[lang], f"svm_playground ({lang})"
    pg.goto(f"{served}voila/render/svm_playground.ipynb?lang={lang}&n_samples=100",
            wait_until="commit", timeout=LOAD_TIMEOUT_MS)
    pg.locator(".js-plotly-plot").first.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    pg.wait_for_function(f"() => document.documentElement.lang === '{lang}' && "
                         "document.querySelector('[role=status]') && "
                         "document.querySelector('[role=status]').textContent.trim()",
                         timeout=LOAD_TIMEOUT_MS)
    check_dashboard(pg, where, lang, reflow=False)
    pg.evaluate("() => document.activeElement && document.activeElement.blur()")
    pg.keyboard.press("Tab")                # from the top of the page
    first = pg.evaluate(FOCUSED_JS)
    assert first and first["role"] == "link" and "kernelnb-skip" in pg.evaluate(
        "() => document.activeElement.className"), f"{where}: the first Tab reached {first}"

    tabs = _tab_to(pg, "slider", "C")
    before = pg.evaluate(FOCUSED_JS)
    status_before = status_text(pg)
    pressed = time.monotonic()
    pg.keyboard.press("ArrowRight")
    try:
        pg.wait_for_function("b => document.querySelector('[role=status]').textContent"
                             ".replace(/\\s+/g, ' ').trim() !== b", arg=status_before,
                             timeout=2_000)
    except sync_api.TimeoutError:
        pytest.fail(f"{where}: the status region did not change within 2 s of ArrowRight on C")
    seconds = time.monotonic() - pressed
    pg.wait_for_function("b => document.activeElement.getAttribute('aria-valuetext') !== b",
                         arg=before["valuetext"], timeout=10_000)
    after = pg.evaluate(FOCUSED_JS)
    readout = pg.locator(".kernelnb-main-slider .widget-readout").inner_text().strip()
    assert after["valuetext"] == readout, f"{where}: C's value text {after} is not {readout!r}"
    said = status_text(pg)
    # the status line is prose in the page's language: a French decimal comma (the readout is
    # ipywidgets', which writes numbers one way)
    shown = readout.replace(".", ",") if lang == "fr" else readout
    colon = ":" if lang == "en" else " :"          # French typography: a space before
    assert said.startswith(f"C = {shown}{colon}"), f"{where}: the status says {said!r}"
    # what a screen reader is given: the slider (name, value text) and the status line
    out = test_output / "a11y"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"svm_playground_keyboard_{lang}.txt").write_text(
        f"Tab presses from the skip link to C: {tabs}\n"
        f"status changed {seconds:.2f} s after ArrowRight\n"
        f"focused before: {before}\nfocused after: {after}\n\n"
        f"slider (accessibility tree):\n{pg.locator('.kernelnb-main-slider').aria_snapshot()}\n\n"
        f"status region:\n{pg.locator('[role=status]').aria_snapshot()}\n", encoding="utf-8")

    counts = {k: int(re.search(re.escape(texts["legend"].format(k=k, n="NUM"))
                               .replace("NUM", r"(\d+)"), _description(pg)).group(1))
              for k in (0, 1)}
    _add_point_by_keyboard(pg, texts, 1, 0.4, 0.9, counts[1])
    _add_point_by_keyboard(pg, texts, 0, -0.6, -0.2, counts[0])

    _tab_to(pg, "button", texts["table"])
    pg.keyboard.press("Space")
    table = pg.locator(".kernelnb-tableview table").first
    table.wait_for(state="visible", timeout=30_000)
    captions = pg.locator(".kernelnb-tableview caption").all_inner_texts()
    for k in (0, 1):
        legend = texts["legend"].format(k=k, n=counts[k] + 1)
        assert any(c.startswith(legend) for c in captions), f"{where}: no table of {legend}"
    check_dashboard(pg, where, lang, reflow=False)   # the tables shown: still no violation
    pg.screenshot(path=str(screenshots / f"svm_playground-keyboard-{lang}.png"), full_page=True)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_gallery_passes_axe(page, served, lang):
    page.goto(f"{served}?lang={lang}", wait_until="load", timeout=LOAD_TIMEOUT_MS)
    assert page.evaluate("() => document.documentElement.lang") == lang
    assert axe_violations(page) == {}


# The centres of the first points of each class, in page pixels (plotly's own axis maps).
CLASS_POINTS_JS = """() => {
  const gd = document.querySelector('.js-plotly-plot');
  const box = gd.getBoundingClientRect(), xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  const out = {};
  gd._fullData.forEach(t => {
    if (t.meta !== 'class0' && t.meta !== 'class1') return;
    out[t.meta] = Array.from(t.x).slice(0, 40).map((x, i) => [
      box.left + xa._offset + xa.l2p(x), box.top + ya._offset + ya.l2p(t.y[i])]);
  });
  return out;
}"""
#: Chromium's simulated deficiencies (DevTools' Emulation.setEmulatedVisionDeficiency).
SIMULATED = ("none", "protanopia", "deuteranopia", "tritanopia")
#: The least CAM02-UCS difference between the two classes' markers as drawn (over the surface
#: behind them, opacity included): the series palette's floor
#: (tests/lab/app/test_accessibility.py).
DRAWN_FLOOR = 10.0


def test_the_classes_stay_apart_under_simulated_vision_deficiencies(page, served, screenshots):
    """The SVM playground's two classes, screenshot under each of Chromium's simulated
    deficiencies: the median colour of each class's marker centres stays apart."""
    colorspacious = pytest.importorskip("colorspacious")
    from PIL import Image
    import numpy as np
    pg = page
    pg.goto(f"{served}voila/render/svm_playground.ipynb?noise=0.1", wait_until="commit",
            timeout=LOAD_TIMEOUT_MS)
    pg.locator(".js-plotly-plot").first.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
    pg.wait_for_function("() => { const g = document.querySelector('.js-plotly-plot');"
                         " return g._fullData && g._fullData.some(t => t.meta === 'class0'); }",
                         timeout=LOAD_TIMEOUT_MS)
    pg.wait_for_timeout(1500)
    points = pg.evaluate(CLASS_POINTS_JS)
    assert len(points.get("class0", [])) >= 10 and len(points.get("class1", [])) >= 10
    session = pg.context.new_cdp_session(pg)
    found = {}
    try:
        for kind in SIMULATED:
            session.send("Emulation.setEmulatedVisionDeficiency", {"type": kind})
            shot = Image.open(io.BytesIO(pg.screenshot(full_page=True))).convert("RGB")
            shot.save(screenshots / f"svm_playground-vision-{kind}.png")
            pixels = np.asarray(shot, dtype=float) / 255
            medians = [np.median([pixels[int(round(y)), int(round(x))]
                                  for x, y in points[c]], axis=0) for c in ("class0", "class1")]
            ua, ub = (colorspacious.cspace_convert(m, "sRGB1", "CAM02-UCS") for m in medians)
            found[kind] = float(np.linalg.norm(ua - ub))
    finally:
        session.send("Emulation.setEmulatedVisionDeficiency", {"type": "none"})
        session.detach()
    print(f"class markers' colour difference (CAM02-UCS) under simulated vision: {found}")
    assert all(d >= DRAWN_FLOOR for d in found.values()), found
    # and the simulation changed the picture (a deficiency that did nothing would prove nothing)
    assert found["deuteranopia"] != found["none"] and found["tritanopia"] != found["none"]
