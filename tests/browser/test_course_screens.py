"""What a student sees of the course's checks and challenges, in a real browser, in both languages.

* A check's answer: chapter 3's first exercise (the SVM's decision function from its dual) as a
  student does it in their generated notebook, executed by a kernel: a first wrong answer (σ² for
  2σ², a mistake the check knows), the same again (the second, more precise hint), then the right
  one. The executed notebook is exported to HTML as JupyterLab shows outputs (nbconvert's lab
  template: the same ``_repr_html_`` boxes, executed in a process of its own) and opened in Chromium at a laptop's width.
* A dashboard challenge completed: the SVM playground served by ``kernelnb serve``, its panel
  "not yet", then the page at its challenge's solution: "done", and ``challenge=done`` in the
  page's address.

The screenshots go to ``test-output/screenshots/course/``.
"""
from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import parse_qs, urlparse

import nbformat
import pytest

from kernelnb.course import _i18n as course_i18n
from kernelnb.course._checks import get
from kernelnb.lab import i18n
from kernelnb.lab.app._challenge import ChallengePanel
from kernelnb.lab.app._challenges import CHALLENGES

from .test_dashboards import LOAD_TIMEOUT_MS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WRONG = ("(2 * sigma ** 2)", "(sigma ** 2)")          # σ² where the kernel divides by 2σ²


@pytest.fixture(scope="module")
def shots(test_output):
    d = test_output / "screenshots" / "course"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _exercise_03_1(tmp_path, lang):
    """Chapter 3's student notebook cut to exercise 03.1, its answer cell written three times
    (wrong, wrong again, right: the solution notebook's), each followed by the check."""
    for kind in ("student", "solution"):
        subprocess.run([sys.executable, "-m", "kernelnb.course.build", kind, "--lang", lang,
                        "--chapter", "03", "--out", str(tmp_path / kind)], check=True,
                       timeout=300, capture_output=True)
    student = nbformat.read(str(tmp_path / "student" / "exercises_03.ipynb"), 4)
    solution = nbformat.read(str(tmp_path / "solution" / "exercises_03_solutions.ipynb"), 4)
    checks = [i for i, c in enumerate(student.cells) if c.source.startswith('check("03.1"')]
    assert len(checks) == 1, "the student notebook has one check of 03.1"
    right, = [c.source for c in solution.cells if "answer = (alpha * y) @ K + b" in c.source]
    assert WRONG[0] in right
    wrong = right.replace(*WRONG)
    i = checks[0]
    check = student.cells[i].source
    assert "answer = (alpha * y)" not in "".join(c.source for c in student.cells[:i])
    cells = student.cells[:i - 1] + [nbformat.v4.new_code_cell(s) for s in
                                      (wrong, check, wrong, check, right, check)]
    student.cells = cells
    return student


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_checks_answers_wrong_then_right_as_a_student_sees_them(browser, shots, tmp_path,
                                                                   lang):
    nb = _exercise_03_1(tmp_path, lang)
    source = tmp_path / f"check_{lang}.ipynb"
    nbformat.write(nb, str(source))
    # executed and exported by nbconvert in a process of its own (as a student's kernel runs
    # apart from the page): the student's language from the environment, as a hub sets it
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    env["KERNELNB_LANG"] = lang
    subprocess.run([sys.executable, "-m", "nbconvert", "--to", "html", "--template", "lab",
                    "--execute", "--ExecutePreprocessor.timeout=300",
                    "--ExecutePreprocessor.kernel_name=python3", str(source)],
                   check=True, timeout=600, env=env, cwd=tmp_path, capture_output=True)
    page_path = tmp_path / f"check_{lang}.html"
    assert page_path.exists()

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        pg = context.new_page()
        pg.goto(page_path.as_uri(), wait_until="load")
        boxes = pg.locator(".kernelnb-check")
        assert boxes.count() == 3, pg.locator(".jp-OutputArea-output").all_inner_texts()
        assert [boxes.nth(k).get_attribute("lang") for k in range(3)] == [lang] * 3
        first, second, third = (boxes.nth(k).inner_text().strip() for k in range(3))
        # the course's words for this language, from its catalog
        ex = get("03.1")
        t = lambda m: course_i18n.gettext(m, lang)          # noqa: E731
        title = t(ex.title)
        sigma_squared, = [m for m in ex.mistakes if "2σ²" in m.message]
        assert first.startswith("✗ 03.1") and second.startswith("✗ 03.1"), (first, second)
        assert t(sigma_squared.message) in first and t(sigma_squared.message) in second
        assert t(ex.hints[0]) in first and t(ex.hints[1]) not in first, first
        assert t(ex.hints[1]) in second, second            # the second try: the precise hint
        assert third == t("✓ {id} {title}: right.").format(id="03.1", title=title), third
        heading = pg.locator("h3").first.inner_text().replace("¶", "").strip()
        assert heading == t("Exercise {id}: {title}").format(id="03.1", title=title), heading
        if lang == "fr":
            assert t(ex.hints[0]) != ex.hints[0] and title != ex.title   # translated
            assert heading.startswith("Exercice 03.1 : "), heading      # a space before ':'
        pg.screenshot(path=str(shots / f"check_{lang}.png"), full_page=True)
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_dashboard_challenge_completed(browser, served, shots, lang):
    challenge = CHALLENGES["SVMPlayground"]
    with i18n.language(lang):
        todo, done = (i18n.gettext(ChallengePanel.TODO_TEXT),
                      i18n.gettext(ChallengePanel.DONE_TEXT))
        task = i18n.gettext(challenge.task)
    assert todo != done
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        pg = context.new_page()
        panel = pg.locator(".kernelnb-challenge")
        pg.goto(f"{served}voila/render/svm_playground.ipynb?lang={lang}&dataset=moons",
                wait_until="commit", timeout=LOAD_TIMEOUT_MS)
        panel.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
        pg.wait_for_function("t => document.querySelector('.kernelnb-challenge')"
                             ".innerText.includes(t)", arg=todo, timeout=LOAD_TIMEOUT_MS)
        assert task in panel.inner_text()
        panel.screenshot(path=str(shots / f"challenge_{lang}_not_yet.png"))
        query = "&".join(f"{k}={v}" for k, v in challenge.solution.items())
        pg.goto(f"{served}voila/render/svm_playground.ipynb?lang={lang}&dataset=moons&{query}",
                wait_until="commit", timeout=LOAD_TIMEOUT_MS)
        panel.wait_for(state="visible", timeout=LOAD_TIMEOUT_MS)
        pg.wait_for_function("t => document.querySelector('.kernelnb-challenge')"
                             ".innerText.includes(t)", arg=done, timeout=LOAD_TIMEOUT_MS)
        # the state in a polite live region (a screen reader says it), the address says done
        live = pg.locator(".kernelnb-challenge [aria-live=polite]")
        assert done in live.inner_text()
        pg.wait_for_function("() => new URLSearchParams(location.search).get('challenge') "
                             "=== 'done'", timeout=30_000)
        assert parse_qs(urlparse(pg.url).query)["challenge"] == ["done"]
        pg.screenshot(path=str(shots / f"challenge_{lang}_done.png"), full_page=True)
        panel.screenshot(path=str(shots / f"challenge_{lang}_done_panel.png"))
    finally:
        context.close()
