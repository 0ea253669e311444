"""The built book against WCAG 2.2 AA in a real browser (issue 52, the book's part).

The session's book (``book`` in ``tests/conftest.py``) is served on loopback and every page is
opened once at a laptop's 1280×800 in Debian's headless Chromium, one browser context for them
all, where the book page walk's checks are made (``test_book``: at this size they are made here
only, the pages opened once) and then axe-core 4.12
(``axe-playwright-python``, injected from the package, nothing fetched) runs the WCAG 2.0, 2.1
and 2.2 A and AA rules on it, and each page's ``<html lang>`` must be its language (``fr`` under
``fr/`` and on the French accessibility statement, ``en`` elsewhere), with the navigation's links
to pages of the other language marked with theirs. A violation that only upstream can fix is
listed in :data:`UPSTREAM` with its upstream issue: it is counted and printed, never dropped
silently; any other violation fails the test. The counts per kind of page (chapter, dashboard
page, reproduction, course/quiz page, API page, other) are printed and written to
``test-output/a11y/book_axe.json``.

Then what axe does not check: the lesson figure's control on a dashboard page is reached with
Tab, is named by its visible label, says in ``aria-valuetext`` the value its ``<output>`` shows,
and an ArrowRight key press changes the figure and the page's status region within 2 s.
"""
from __future__ import annotations

import functools
import http.server
import json
import re
import threading
import time
from collections import Counter, defaultdict

import pytest

from .test_book import SETTLED_JS, _pages, _Quiet, _watch, settled_page_problems

axe_module = pytest.importorskip("axe_playwright_python.sync_playwright",
                                 reason="axe-playwright-python is not installed")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The WCAG rules axe runs: 2.0, 2.1 and 2.2, levels A and AA.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]}
#: The French pages outside the ``fr/`` folder.
FRENCH_PAGES = {"accessibilite.html"}
#: The time a key press has to show in the figure and the status region (issue 52).
CHANGE_MS = 2_000

#: Violations only upstream can fix: (axe rule, a pattern the node's CSS target matches, the
#: upstream issue, what it is). Each one found is counted and printed.
UPSTREAM: tuple[tuple[str, re.Pattern, str, str], ...] = ()


def kind(path: str) -> str:
    """The kind of a book page, by its folder (the French course's like the English)."""
    parts = path.split("/")
    if parts[0] == "fr" and len(parts) > 1:
        parts = parts[1:]
    return {"notebooks": "chapter", "dashboards": "dashboard page",
            "reproductions": "reproduction", "exercises": "course/quiz page",
            "api": "API page"}.get(parts[0] if len(parts) > 1 else "", "other page")


def expected_language(path: str) -> str:
    return "fr" if path.startswith("fr/") or path in FRENCH_PAGES else "en"


def upstream_reason(rule: str, target: str) -> str | None:
    for known_rule, pattern, issue, what in UPSTREAM:
        if rule == known_rule and pattern.search(target):
            return f"{issue} ({what})"
    return None


#: Per navigation link: its text, its target, the language it is read in (the nearest lang).
LINK_LANGUAGES_JS = """() => Array.from(document.querySelectorAll(
    '.bd-sidebar-primary a[href], .toctree-wrapper a[href]')).map(a => ({
      text: a.textContent.trim().slice(0, 60), href: a.getAttribute('href'),
      target: new URL(a.getAttribute('href'), location.href).pathname,
      lang: a.closest('[lang]').getAttribute('lang')}))"""


@pytest.fixture(scope="module")
def site(book):
    handler = functools.partial(_Quiet, directory=str(book.html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def audit(site, root, browser, pages):
    """Open each page once at a laptop's size, make the book page walk's checks on it
    (:func:`.test_book.settled_page_problems`), run axe once on it; returns (per page: kind, lang,
    violations with their nodes' targets, the navigation's links' languages), and the problems."""
    axe = axe_module.Axe()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    _watch(pg)
    found, problems = {}, []
    n_figures = n_formulas = 0
    try:
        for path in pages:
            pg.problems.clear()
            pg.external.clear()
            pg.goto(f"{site}/{path}", wait_until="load")
            # the book page walk's checks at this size (test_book: figures drawn, formulas
            # typeset, no sideways scrolling, no console problem, nothing from another host),
            # made before axe: axe fetches the style sheets again to read them, and resolves a
            # theme's @import against the page, a 404 of its own
            found_here, figures, formulas = settled_page_problems(pg, f"{path} at 1280x800")
            problems += found_here
            n_figures += figures
            n_formulas += formulas
            response = axe.run(pg, options=AXE_OPTIONS).response
            found[path] = {
                "kind": kind(path),
                "lang": pg.evaluate("() => document.documentElement.getAttribute('lang')"),
                "violations": [{"rule": v["id"], "impact": v.get("impact"),
                                "help": v.get("help"),
                                "targets": [" ".join(map(str, n.get("target", [])))
                                            for n in v.get("nodes", [])]}
                               for v in response.get("violations", [])],
                "links": pg.evaluate(LINK_LANGUAGES_JS),
            }
    finally:
        context.close()
    print(f"{len(pages)} pages at 1280x800: {n_figures} figures drawn, "
          f"{n_formulas} formulas typeset")
    return found, problems


def tally(found):
    """Violations (nodes) per kind of page and rule, split into kernelnb's and upstream's."""
    ours, upstream = defaultdict(Counter), defaultdict(Counter)
    listed = []
    for path, page in found.items():
        for v in page["violations"]:
            for target in v["targets"]:
                reason = upstream_reason(v["rule"], target)
                if reason:
                    upstream[page["kind"]][f"{v['rule']}: {reason}"] += 1
                else:
                    ours[page["kind"]][v["rule"]] += 1
                    listed.append(f"{path}: {v['rule']} ({v['impact']}): {v['help']} at {target}")
    return ours, upstream, listed


def test_every_page_passes_axe_and_says_its_language(book, site, browser, test_output):
    pages = _pages(book.html)
    assert len(pages) > 40, pages
    assert FRENCH_PAGES <= set(pages), "the French accessibility statement is not built"
    t0 = time.perf_counter()
    found, problems = audit(site, book.html, browser, pages)
    ours, upstream, listed = tally(found)
    kinds = Counter(page["kind"] for page in found.values())
    report = {k: {"pages": kinds[k], "violations": sum(ours[k].values()),
                  "by_rule": dict(ours[k]), "upstream": dict(upstream[k])} for k in sorted(kinds)}
    out = test_output / "a11y"
    out.mkdir(parents=True, exist_ok=True)
    (out / "book_axe.json").write_text(json.dumps({"summary": report, "pages": found},
                                                  indent=1, ensure_ascii=False))
    print(f"axe ({', '.join(WCAG_TAGS)}) on {len(pages)} pages in "
          f"{time.perf_counter() - t0:.0f} s:")
    for k, row in report.items():
        print(f"  {k}: {row['pages']} pages, {row['violations']} violation nodes "
              f"{row['by_rule'] or ''}; upstream's: {sum(row['upstream'].values())} "
              f"{row['upstream'] or ''}")

    wrong_lang = [f"{p}: lang={page['lang']!r}, expected {expected_language(p)!r}"
                  for p, page in found.items() if page["lang"] != expected_language(p)]
    # a navigation link to a page of the other language is read in that language
    root = "/"
    unmarked = []
    for path, page in found.items():
        for link in page["links"]:
            target = link["target"][len(root):]
            if not target.endswith(".html"):
                continue
            want = expected_language(target)
            if link["lang"] != want:
                unmarked.append(f"{path}: link {link['text']!r} to {target} is read as "
                                f"{link['lang']!r}, not {want!r}")
    assert not wrong_lang, "\n".join(wrong_lang[:40])
    assert not unmarked, f"{len(unmarked)} links:\n" + "\n".join(unmarked[:20])
    assert not problems, "\n".join(problems[:20])
    assert not listed, f"{len(listed)} violations:\n" + "\n".join(listed[:60])


#: The lesson figure's control: its label, value text, output, the status region's text.
CONTROL_JS = """() => {
  const input = document.querySelector('.kernelnb-lesson-figure input[type=range]');
  if (!input) return null;
  const label = document.querySelector(`label[for="${input.id}"]`);
  const output = document.querySelector(`output[for="${input.id}"]`);
  const status = input.closest('.kernelnb-lesson-figure').querySelector('[role=status]');
  return {id: input.id, label: label && label.textContent.trim(),
          labels: Array.from(input.labels || []).map(l => l.textContent.trim()),
          valuetext: input.getAttribute('aria-valuetext'), value: input.value,
          output: output && output.textContent.trim(),
          status: status && status.textContent.trim(),
          figure: (() => { const f = input.closest('[role=figure]');
                           const d = f && document.getElementById(f.getAttribute('aria-describedby'));
                           return {name: f && f.getAttribute('aria-label'),
                                   description: d && d.textContent.trim()}; })(),
          focused: document.activeElement === input};
}"""


def _figure_state(pg):
    return pg.evaluate("""() => {
      const gd = document.querySelector('.kernelnb-lesson-figure .js-plotly-plot');
      const plain = (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
      return JSON.stringify(gd.data.map(t => t.z || t.y), plain).slice(0, 20000);
    }""")


def test_the_lesson_control_by_keyboard(book, site, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    _watch(pg)
    try:
        pg.goto(f"{site}/dashboards/svm_playground.html", wait_until="load")
        assert pg.evaluate(SETTLED_JS)[0] == "yes"
        # no plotly slider left: the page's own control moves the frames
        assert pg.locator(".kernelnb-lesson-figure .slider-container").count() == 0
        before = pg.evaluate(CONTROL_JS)
        assert before, "no range input in the lesson figure"
        assert before["labels"] == [before["label"]] and before["label"] == "C", before
        assert before["valuetext"] == before["output"] and before["output"], before
        assert before["status"] == "", before            # present from the start, empty
        # Tab reaches it (the page's other stops first: skip link, navigation, header, links)
        for presses in range(1, 400):
            pg.keyboard.press("Tab")
            if pg.evaluate(CONTROL_JS)["focused"]:
                break
        else:
            pytest.fail("Tab never reached the lesson's range input")
        figure = _figure_state(pg)
        t0 = time.perf_counter()
        pg.keyboard.press("ArrowRight")
        pg.wait_for_function("""([id, status]) => {
            const el = document.getElementById(id).closest('.kernelnb-lesson-figure');
            const s = el.querySelector('[role=status]').textContent.trim();
            return s !== '' && s !== status;
        }""", arg=[before["id"], before["status"]], timeout=CHANGE_MS)
        pg.wait_for_function("(f) => JSON.stringify(document.querySelector("
                             "'.kernelnb-lesson-figure .js-plotly-plot').data.map(t => t.z || "
                             "t.y), (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v))"
                             ".slice(0, 20000) !== f", arg=figure,
                             timeout=max(1, CHANGE_MS - 1000 * (time.perf_counter() - t0)))
        after = pg.evaluate(CONTROL_JS)
        assert int(after["value"]) == int(before["value"]) + 1, (before, after)
        assert after["valuetext"] == after["output"] != before["output"], (before, after)
        # the status says what changed: the control, its new value and the frame's readout
        readout = pg.inner_text(".kernelnb-frame-readout").strip()
        assert after["status"].startswith(f"C = {after['output']}"), after
        assert readout and readout in after["status"], (readout, after["status"])
        # the figure is named and described by the dashboard's describer, for the frame on show
        # (the SVM playground's: its title with the new C, the readout's numbers, the regions)
        name, desc = after["figure"]["name"], after["figure"]["description"]
        assert name and f"C = {after['output']}" in name, after["figure"]
        assert desc and desc != before["figure"]["description"] and "region" in desc, after
        print(f"Tab presses to the control: {presses}; {before['output']} -> "
              f"{after['output']}; status: {after['status']!r}")
        assert not pg.problems, pg.problems
    finally:
        context.close()
