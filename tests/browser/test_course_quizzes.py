"""The book's quizzes in Chromium: every quiz of every chapter answered wrong, then right, in
English and French, from the pages that docs/_ext/kernelnb_course_book.py generates (built here
by Sphinx in a small book of those pages alone, with the book's MathJax served from the site); by
keyboard for one of them, at a phone's width. The student build's pages hold no solution, the
instructor's do."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kernelnb.course import exercises
from kernelnb.course.quizzes import quizzes

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _build(tmp, solutions):
    pytest.importorskip("myst_parser")
    from sphinx.cmd.build import build_main
    sys.path.insert(0, str(REPO / "docs" / "_ext"))
    import kernelnb_book
    src = tmp / ("src_instructor" if solutions else "src")
    src.mkdir()
    (src / "conf.py").write_text(
        "extensions = ['myst_parser', 'sphinx.ext.mathjax', 'kernelnb_course_book']\n"
        f"kernelnb_course_solutions = {solutions}\n"
        f"html_static_path = [{str(kernelnb_book.mathjax_source().parent)!r}]\n"
        "mathjax_path = 'mathjax/tex-chtml.js'\n"
        "myst_enable_extensions = ['dollarmath']\n")
    (src / "index.md").write_text("# Course\n\n```{toctree}\n:glob:\n\nexercises/*\n"
                                  "fr/exercises/*\n```\n")
    out = tmp / ("html_instructor" if solutions else "html")
    assert build_main(["-q", "-b", "html", str(src), str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("course_book")
    return _build(tmp, False), _build(tmp, True)


@pytest.fixture(scope="module")
def site(books):
    """The student book served over HTTP on 127.0.0.1 (MathJax loads its parts by fetch, which a
    file: page may not), as the book is served."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(Quiet, directory=str(books[0])))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(10)


def test_student_pages_hold_no_solution_and_instructor_pages_do(books):
    student, instructor = books
    for ex in exercises():
        line = max(ex.solution.splitlines(), key=len).strip()
        page = f"exercises/{ex.chapter}.html"
        assert line not in (student / page).read_text().replace("&#39;", "'"), ex.id
        text = (instructor / page).read_text()
        import html as _html
        assert line in _html.unescape(__import__("re").sub(r"<[^>]+>", "", text)), ex.id


def _answer(form, q, right, fr):
    if q.kind == "choice":
        index = next(i for i, c in enumerate(q.choices) if c.correct == right)
        form.locator("input[type=radio]").nth(index).check()
    else:
        value = q.value if right else q.value + 10 * (q.tolerance + 1)
        text = f"{value:g}".replace(".", ",") if fr else f"{value:g}"
        form.locator("input[type=text]").fill(text)
    form.locator("button[type=submit]").click()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_quiz_answer_checked_wrong_then_right(site, browser, lang):
    context = browser.new_context(viewport={"width": 390, "height": 844})   # a phone
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    chapters = sorted({q.id[:2] for q in quizzes()})
    assert chapters
    for chapter in chapters:
        folder = "exercises" if lang == "en" else "fr/exercises"
        page.goto(f"{site}/{folder}/{chapter}.html")
        page.wait_for_function("() => window.MathJax && MathJax.startup && "
                               "MathJax.startup.promise", timeout=60_000)
        page.evaluate("() => MathJax.startup.promise.then(() => true)")
        if any("$" in q.prompt for q in quizzes(chapter)):      # formulas typeset offline
            assert page.locator("form.kernelnb-quiz mjx-container").count() > 0
        for q in quizzes(chapter):
            form = page.locator(f"#kq-{q.id.replace('.', '-')}-{lang}")
            feedback = form.locator(".kq-feedback")
            _answer(form, q, right=False, fr=lang == "fr")
            assert "kq-wrong" in feedback.get_attribute("class")
            told = feedback.inner_text()
            assert told.startswith("✗ ")          # a mark, not colour alone
            wrong = q.as_dict(lang)
            why_wrong = (next(c["why"] for c in wrong["choices"] if not c["correct"])
                         if q.kind == "choice" else wrong["wrong"])
            assert why_wrong.split("$")[0][:20] in told
            _answer(form, q, right=True, fr=lang == "fr")
            assert "kq-right" in feedback.get_attribute("class")
            want = q.as_dict(lang)
            why = (next(c["why"] for c in want["choices"] if c["correct"]) if q.kind == "choice"
                   else want["right"])
            assert feedback.inner_text().startswith("✓ Right" if lang == "en" else "✓ Juste")
            assert why.split("$")[0][:20] in feedback.inner_text()
    (REPO / "test-output").mkdir(exist_ok=True)
    page.screenshot(path=str(REPO / "test-output" / f"course_quiz_{lang}_phone.png"),
                    full_page=False)
    assert not errors
    assert all(u.startswith(site) or u.startswith("data:") for u in requests), requests
    context.close()


def test_a_quiz_answered_with_the_keyboard(site, browser):
    page = browser.new_page()
    page.goto(f"{site}/exercises/03.html")
    form = page.locator("#kq-03-q1-en")
    form.locator("input[type=radio]").first.focus()
    page.keyboard.press("Space")           # the first choice, the right one in 03.q1
    page.keyboard.press("Enter")           # submits the form
    assert "kq-right" in form.locator(".kq-feedback").get_attribute("class")
    assert form.locator(".kq-feedback").get_attribute("aria-live") == "polite"
    page.close()
