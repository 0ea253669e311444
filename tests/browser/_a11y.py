"""Accessibility checks of a dashboard page (issue 52, WCAG 2.2 AA), shared by the browser tests.

:func:`check_dashboard` runs on a page the test has opened and waited for (a dashboard drawn):

* axe-core (``axe-playwright-python``, the axe 4.12 it embeds, injected into the page, offline)
  with the WCAG 2.0, 2.1 and 2.2 A and AA rules: no violation but those listed in
  :data:`UPSTREAM_VIOLATIONS` with their upstream issue (counted, never hidden);
* what axe does not check, read from the browser's accessibility tree (Chromium's, through the
  DevTools protocol: the names and values a screen reader gets): every slider, button, check box,
  list box and text field has a name; every slider's value text is its readout's text; every
  chart is a figure with a name and a description, and the main chart's description holds the
  readout's numbers (it says what the chart shows now); one status region, one ``main``
  landmark, headings in order from one ``h1``, ``<html lang>`` the page's language;
* at 320 CSS px wide (WCAG 1.4.10, reflow) and at 640 (a laptop's 1280 px at 200 % zoom, 1.4.4)
  nothing but a chart needs sideways scrolling.
"""
from __future__ import annotations

import re

#: Axe's rule sets of WCAG 2.0, 2.1 and 2.2, levels A and AA.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
#: Violations only upstream can fix: rule id -> upstream reference. None today; an entry here is
#: counted and printed by every test that meets it.
UPSTREAM_VIOLATIONS: dict = {}
#: Roles of controls that must have an accessible name.
NAMED_ROLES = {"slider", "button", "checkbox", "combobox", "textbox", "spinbutton", "radio",
               "listbox", "switch", "tab", "link"}

# Each readout value a dashboard shows, each slider with its readout, each chart's texts.
PAGE_FACTS_JS = """() => {
  const text = el => (el ? el.textContent.replace(/\\s+/g, ' ').trim() : '');
  const sliders = [...document.querySelectorAll('.widget-slider')].map(box => {
    const handle = box.querySelector('[role=slider]');
    const readout = box.querySelector('.widget-readout');
    return {label: text(box.querySelector('label')),
            valuetext: handle ? handle.getAttribute('aria-valuetext') : null,
            readout: readout && readout.style.display !== 'none' ? text(readout) : null,
            visible: !!(box.offsetWidth || box.offsetHeight)};
  });
  const charts = [...document.querySelectorAll('.js-plotly-plot')].map(plot => {
    const fig = plot.closest('[role=figure]');
    const ref = (attr) => fig && fig.getAttribute(attr)
      ? text(document.getElementById(fig.getAttribute(attr))) : '';
    return {figure: !!fig, name: ref('aria-labelledby'), description: ref('aria-describedby'),
            visible: !!(plot.offsetWidth || plot.offsetHeight)};
  });
  return {sliders, charts,
          readout: [...(document.querySelector('.kernelnb-stats table.kernelnb-readout') ||
                        document.createElement('table')).querySelectorAll('td.num')].map(text),
          status: [...document.querySelectorAll('[role=status]')].map(text),
          headings: [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]
            .filter(h => h.offsetWidth || h.offsetHeight).map(h => Number(h.tagName[1])),
          small: [...document.querySelectorAll(
              '.jupyter-widgets input, .jupyter-widgets select, .jupyter-widgets button, '
              + '[role=slider], .widget-readout')]
            .filter(e => !e.closest('.modebar, .js-plotly-plot'))
            // a check box's target is its label, which toggles it too
            .map(e => [e.tagName + (e.getAttribute('role') ? '.' + e.getAttribute('role') : ''),
                       (e.type === 'checkbox' && e.closest('label') || e).getBoundingClientRect()])
            .filter(([, r]) => r.width > 0 && (r.width < 23.5 || r.height < 23.5))
            .map(([t, r]) => t + ' ' + Math.round(r.width) + 'x' + Math.round(r.height)),
          main: document.querySelectorAll('main, [role=main]').length,
          lang: document.documentElement.lang};
}"""

# What needs sideways scrolling at the window's width, charts left out (they scroll on their own).
OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('[role=figure], .js-plotly-plot, script, style')) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 1 && getComputedStyle(el).position !== 'fixed') {
      wide.push((el.className && el.className.baseVal === undefined ? el.className : el.tagName)
                .toString().slice(0, 60) + ' right=' + Math.round(r.right));
    }
  }
  return {width, scroll: document.scrollingElement.scrollWidth, wide: wide.slice(0, 8)};
}"""


def axe_violations(page):
    """axe's WCAG A/AA violations on the page: {rule id: [targets]}."""
    from axe_playwright_python.sync_playwright import Axe
    result = Axe().run(page, options={"runOnly": {"type": "tag", "values": AXE_TAGS}})
    return {v["id"]: [n["target"] for n in v["nodes"]] for v in result.response["violations"]}


def ax_nodes(page):
    """Chromium's accessibility tree (every node), through the DevTools protocol."""
    session = page.context.new_cdp_session(page)
    try:
        return session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()


def _value(node, key):
    return ((node.get(key) or {}).get("value") or "").strip()


def unnamed_controls(page):
    """Controls without an accessible name: ["role (description)"]."""
    out = []
    for node in ax_nodes(page):
        role = _value(node, "role")
        if node.get("ignored") or role not in NAMED_ROLES:
            continue
        if not _value(node, "name"):
            out.append(f"{role} {_value(node, 'description')!r}")
    return out


def upstream_counts(violations):
    """The violations that are upstream's: {rule: (count, reference)}; printed for the log."""
    counted = {rule: (len(targets), UPSTREAM_VIOLATIONS[rule])
               for rule, targets in violations.items() if rule in UPSTREAM_VIOLATIONS}
    if counted:
        print(f"upstream accessibility violations: {counted}")
    return counted


def check_dashboard(page, where, lang, reflow=True):
    """Fail (AssertionError naming ``where``) on any accessibility problem of the page."""
    violations = axe_violations(page)
    upstream_counts(violations)
    ours = {rule: targets[:4] for rule, targets in violations.items()
            if rule not in UPSTREAM_VIOLATIONS}
    assert not ours, f"{where}: axe finds WCAG A/AA violations: {ours}"
    unnamed = unnamed_controls(page)
    assert not unnamed, f"{where}: controls without an accessible name: {unnamed[:8]}"
    facts = page.evaluate(PAGE_FACTS_JS)
    assert facts["lang"] == lang, f"{where}: <html lang={facts['lang']!r}>, expected {lang!r}"
    assert facts["main"] == 1, f"{where}: {facts['main']} main landmarks, expected one"
    assert not facts["small"], f"{where}: controls under 24 × 24 px (2.5.8): {facts['small'][:6]}"
    levels = facts["headings"]
    assert levels and levels[0] == 1 and all(b <= a + 1 for a, b in zip(levels, levels[1:])), \
        f"{where}: headings out of order (levels {levels}): one h1 first, no level skipped"
    assert len(facts["status"]) == 1 and facts["status"][0], \
        f"{where}: expected one status region with text, found {facts['status']}"
    wrong = [s for s in facts["sliders"] if s["readout"] and s["valuetext"] != s["readout"]]
    assert not wrong, f"{where}: sliders whose value text is not their readout's: {wrong[:4]}"
    charts = facts["charts"]
    assert charts, f"{where}: no chart"
    bad = [c for c in charts if c["visible"] and not (c["figure"] and c["name"] and c["description"])]
    assert not bad, f"{where}: charts without a figure role, a name or a description: {bad[:3]}"
    main = next(c for c in charts if c["visible"])
    missing = [v for v in facts["readout"] if v and v not in main["description"]]
    assert not missing, (f"{where}: the main chart's description does not give the readout's "
                         f"{missing} (it says {main['description'][:300]!r})")
    if reflow:
        # 320 CSS px: a phone (1.4.10); 640: a 1280 px laptop at 200 % zoom (1.4.4)
        size = page.viewport_size
        try:
            for width in (320, 640):
                page.set_viewport_size({"width": width, "height": 800})
                page.wait_for_timeout(600)
                over = page.evaluate(OVERFLOW_JS)
                assert over["scroll"] <= over["width"] + 1, \
                    f"{where}: at {width} px wide the page scrolls sideways ({over})"
        finally:
            page.set_viewport_size(size)
    return facts


def status_text(page):
    return re.sub(r"\s+", " ", page.locator("[role=status]").first.inner_text()).strip()
