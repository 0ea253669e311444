"""Every exercise's solution passes its check on three students' data; each wrong answer of a kind
students make fails with its own message, in English and in French; hints get more precise; a
copied answer fails and says why; nbgrader's mode raises AssertionError with the message."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from kernelnb.course import _identity, assert_check, check, data, exercises, get
from kernelnb.course._i18n import gettext

STUDENTS = ("alice", "bob", "chloé")
EXERCISES = exercises()
IDS = [ex.id for ex in EXERCISES]


def test_every_chapter_has_three_exercises_three_quizzes_and_the_course_all_kinds():
    from kernelnb.course.chapters import CHAPTERS
    from kernelnb.course.quizzes import quizzes
    per = {c: [e for e in EXERCISES if e.chapter == c] for c in CHAPTERS}
    short = {c: len(v) for c, v in per.items() if len(v) < 3}
    assert not short, f"chapters with fewer than 3 exercises: {short}"
    assert {e.kind for e in EXERCISES} == {"formula", "dashboard", "data"}
    few = {c: len(quizzes(c)) for c in CHAPTERS if len(quizzes(c)) < 3}
    assert not few, f"chapters with fewer than 3 quizzes: {few}"
    assert {q.kind for q in quizzes()} == {"choice", "numeric"}


@pytest.mark.parametrize("exercise_id", IDS)
def test_solution_passes_on_three_students(exercise_id, as_student):
    ex = get(exercise_id)
    for who in STUDENTS:
        as_student(who)
        answer = ex.run_solution(data(exercise_id))
        result = check(exercise_id, answer, lang="en")
        assert result.passed, f"{who}: {result.message}"
        assert result.kind == "right"


@pytest.mark.parametrize("exercise_id", IDS)
def test_each_mistake_gets_its_own_message_in_both_languages(exercise_id, as_student):
    ex = get(exercise_id)
    assert ex.mistakes, f"{exercise_id} recognises no wrong answer"
    as_student("alice")
    d = data(exercise_id)
    for mistake in ex.mistakes:
        for lang in ("en", "fr"):
            result = check(exercise_id, mistake.wrong_answer(d), lang=lang)
            assert not result.passed
            assert result.kind == "mistake", result.message
            own = gettext(mistake.message, lang)
            assert own in result.message
            if lang == "fr":
                assert own != mistake.message, "no French for this mistake"


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_data_are_each_students_own_and_stable(exercise_id):
    a, b = get(exercise_id).data_for("alice"), get(exercise_id).data_for("bob")
    assert list(a) == list(b)
    assert any(not np.array_equal(np.asarray(a[k], dtype=object), np.asarray(b[k], dtype=object))
               for k in a), "two students got the same data"
    again = get(exercise_id).make_data(np.random.default_rng(_identity.seed(exercise_id, "alice")))
    for k in a:
        assert np.array_equal(np.asarray(a[k], dtype=object), np.asarray(again[k], dtype=object))


def test_seed_is_sha256_of_student_and_exercise():
    digest = hashlib.sha256("alice\x0003.1".encode()).digest()
    assert _identity.seed("03.1", "alice") == int.from_bytes(digest[:8], "big") >> 1
    assert _identity.seed("03.1", "alice") != _identity.seed("03.2", "alice")


def test_hints_get_more_precise_and_never_give_the_solution(as_student):
    as_student("alice")
    ex = get("03.1")
    first = check("03.1", np.zeros(5), lang="en")
    second = check("03.1", np.zeros(5), lang="en")
    assert ex.hints[0] in first.message and ex.hints[1] in second.message
    for line in ex.solution.splitlines():
        assert line.strip() not in first.message + second.message
    assert check("03.1", ex.run_solution(data("03.1"))).passed
    assert ex.hints[0] in check("03.1", np.zeros(5)).message    # right resets the count


def test_a_copied_answer_fails_and_says_it_fits_another_students_data(as_student, monkeypatch):
    monkeypatch.setenv("KERNELNB_COURSE_ROSTER", "alice,bob")
    as_student("bob")
    bobs = get("03.1").run_solution(data("03.1"))
    as_student("alice")
    for lang, words in (("en", "another student's data"), ("fr", "un autre étudiant")):
        result = check("03.1", bobs, lang=lang)
        assert not result.passed and result.kind == "other-data"
        assert words in result.message and "alice" in result.message


def test_any_mismatch_says_the_data_are_the_students_own(as_student):
    as_student("alice")
    result = check("03.1", np.arange(5.0), lang="en")
    assert result.kind == "wrong" and "drawn for you, student alice" in result.message


def test_a_transposed_matrix_is_named(as_student):
    as_student("alice")
    ex = get("02.1")
    K = ex.run_solution(data("02.1"))
    assert K.shape[0] != K.shape[1]
    result = check("02.1", K.T, lang="en")
    assert result.kind == "mistake" and "transpose" in result.message


def test_nbgrader_mode_raises_assertion_error_with_the_message(as_student, monkeypatch):
    as_student("alice")
    with pytest.raises(AssertionError) as err:
        assert_check("03.1", np.zeros(5), lang="fr")
    assert "03.1" in str(err.value) and "Indice" in str(err.value)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    with pytest.raises(AssertionError, match="not the expected value|transpose|missing"):
        check("03.1", np.ones(5), lang="en")
    assert check("03.1", get("03.1").run_solution(data("03.1")), lang="en").passed


def test_autograde_reads_the_student_from_nbgrader_folder(tmp_path, monkeypatch):
    folder = tmp_path / "autograded" / "s_42" / "ch03"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv("JUPYTERHUB_USER", "the-instructor")
    assert _identity.student() == "s_42"
    monkeypatch.delenv("NBGRADER_EXECUTION")
    assert _identity.student() == "the-instructor"


def test_set_student_keeps_the_id_for_the_next_kernels(tmp_path, monkeypatch):
    from kernelnb.course import set_student
    set_student("dana")
    assert (tmp_path / "student").read_text().strip() == "dana"
    _identity._current[0] = None
    assert _identity.student() == "dana"
    with pytest.raises(ValueError, match="student must be"):
        set_student("no spaces allowed")


def test_language_comes_from_argument_then_environment(as_student, monkeypatch):
    as_student("alice")
    assert "Indice" in check("03.1", np.zeros(5), lang="fr").message
    monkeypatch.setenv("KERNELNB_LANG", "fr")
    assert "Indice" in check("03.1", np.zeros(5)).message
    assert "Hint" in check("03.1", np.zeros(5), lang="en").message
    with pytest.raises(ValueError, match="lang must be"):
        check("03.1", np.zeros(5), lang="de")


def test_unknown_exercise_names_the_ids():
    with pytest.raises(KeyError, match="03.1"):
        check("99.9", 1.0)


def test_result_renders_as_html_status():
    as_html = check("03.1", None, lang="en")._repr_html_()
    assert 'role="status"' in as_html and "no answer yet" in as_html


def test_the_french_catalog_is_complete():
    from kernelnb.course.catalog import problems
    assert problems("fr") == []
