"""The book's exercise pages (docs/_ext/kernelnb_course_book.py) without Sphinx: the student
page of every chapter holds no solution and the instructor's does; both languages; every quiz is
a form of native inputs with a live region, its formulas in MathJax's delimiters."""
from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

from kernelnb.course import exercises
from kernelnb.course.chapters import CHAPTERS
from kernelnb.course.quizzes import quizzes

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))
import kernelnb_course_book as book   # noqa: E402


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_student_page_holds_no_solution_and_instructor_page_does(chapter):
    for lang in ("en", "fr"):
        student = book.chapter_page(chapter, lang, solutions=False)
        instructor = book.chapter_page(chapter, lang, solutions=True)
        for ex in exercises(chapter):
            for line in ex.solution.splitlines():
                line = line.strip()
                if len(line) > 12:
                    assert line not in student, (ex.id, lang, line)
            assert ex.solution.strip() in instructor
            assert f'data("{ex.id}")' in student


def test_french_page_is_french():
    page = book.chapter_page("01", "fr", solutions=False)
    assert "Exercices et quiz du chapitre 01" in page and "Vérifier" in page
    assert "L'estimateur de Nadaraya–Watson" in page


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_quizzes_are_native_forms_with_a_live_region(chapter):
    for q in quizzes(chapter):
        form = book.quiz_html(q, "en")
        assert form.startswith("<form class=\"kernelnb-quiz tex2jax_process\"")
        assert 'role="status" aria-live="polite"' in form and '<button type="submit">' in form
        if q.kind == "choice":
            assert form.count('type="radio"') == len(q.choices)
        else:
            assert 'inputmode="decimal"' in form
        assert "$" not in re.sub(r'data-[a-z]+="[^"]*"', "", form)   # formulas as \\( \\)
        data = json.loads(html.unescape(re.search(r'data-quiz="([^"]*)"', form).group(1)))
        assert data["id"] == q.id


def test_pages_written_for_both_languages(tmp_path):
    paths = book.write_pages(tmp_path, solutions=False)
    assert len(paths) == 2 * len(CHAPTERS)
    assert (tmp_path / "fr" / "exercises" / "15.md").is_file()
