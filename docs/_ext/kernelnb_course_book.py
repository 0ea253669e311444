"""The book's exercise and quiz pages, generated from the course's one source (kernelnb.course).

One page per chapter and language, written at ``builder-inited`` (generated, never committed):
``exercises/<chapter>.md`` and ``fr/exercises/<chapter>.md``, each with the chapter's exercises
(statement, the data cell, the starter, the hints folded in ``<details>``) and its quizzes.

Solutions: the student build leaves them out of the pages altogether (not hidden: absent, so
that no page source holds them); the instructor's build shows them under each exercise. One
option, the Sphinx configuration value ``kernelnb_course_solutions``, defaulting to the
environment variable ``KERNELNB_BOOK_SOLUTIONS`` (``1``: the instructor's build)::

    KERNELNB_BOOK_SOLUTIONS=1 python3 -m sphinx -W -b html docs docs/_build/instructor

Quizzes are checked in the reader's browser with no kernel: native radio inputs or a text input
and a Check button in a ``<form>`` (keyboard-operable), the feedback in a polite live region, the
formulas typeset by the book's own MathJax (``\\(...\\)`` inside a ``tex2jax_process`` block),
by this extension's small script and style sheet (``course_static/``), nothing from another host.
"""
from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "course_static"
_DOLLAR = re.compile(r"\$([^$]+)\$")


def _math(text):
    """``$...$`` as MathJax's inline delimiters, the rest escaped for HTML."""
    out, last = [], 0
    for m in _DOLLAR.finditer(text):
        out.append(html.escape(text[last:m.start()]))
        out.append("\\(" + html.escape(m.group(1)) + "\\)")
        last = m.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def quiz_html(question, lang):
    """One quiz as an HTML form (see the module docstring)."""
    from kernelnb.course.quizzes import words
    w = words(lang)
    data = question.as_dict(lang)
    qid = "kq-" + question.id.replace(".", "-") + "-" + lang
    parts = [f'<form class="kernelnb-quiz tex2jax_process" id="{qid}" lang="{lang}" '
             f'data-quiz="{html.escape(json.dumps(data, ensure_ascii=False))}" '
             f'data-words="{html.escape(json.dumps(w, ensure_ascii=False))}">',
             f"<fieldset><legend>{html.escape(w['quiz'])} {question.id[:2]}.{question.id[4:]}: "
             f"{_math(data['prompt'])}</legend>"]
    if question.kind == "choice":
        for i, choice in enumerate(data["choices"]):
            parts.append(f'<label><input type="radio" name="{qid}" value="{i}"> '
                         f"{_math(choice['text'])}</label>")
    else:
        parts.append(f'<label>{html.escape(w["answer"])} <input type="text" '
                     f'inputmode="decimal" name="{qid}" autocomplete="off"></label>')
    parts.append(f'<button type="submit">{html.escape(w["check"])}</button>'
                 '<div class="kq-feedback" role="status" aria-live="polite"></div>'
                 "</fieldset></form>")
    return "".join(parts)


def chapter_page(chapter, lang, solutions):
    """The Markdown (MyST) page of ``chapter``'s exercises and quizzes in ``lang``."""
    from kernelnb.course import exercises
    from kernelnb.course._i18n import gettext
    from kernelnb.course.build import PAGE_WORDS, data_cell, statement_markdown
    from kernelnb.course.quizzes import quizzes
    _ = lambda m: gettext(m, lang)   # noqa: E731
    w = {k: _(v) for k, v in PAGE_WORDS.items()}
    lines = [f"# {w['title'].format(chapter=chapter)}", "", w["intro"], ""]
    for ex in exercises(chapter):
        statement = statement_markdown(ex, lang).replace("### ", "## ", 1)
        lines += [statement, f"**{w['data']}**", "", "```python", data_cell(ex).rstrip(), "```",
                  "", f"**{w['start']}**", "", "```python", ex.starter.rstrip(),
                  f'check("{ex.id}", answer)', "```", ""]
        for n, hint in enumerate(ex.hints, 1):
            lines += [f"<details><summary>{html.escape(w['hint'].format(n=n))}</summary>",
                      html.escape(_(hint)), "</details>", ""]
        if solutions:
            lines += [f"**{w['solution']}**", "", "```python", ex.solution.rstrip(), "```", ""]
    qs = quizzes(chapter)
    if qs:
        lines += [f"## {w['quizzes']}", ""]
        for q in qs:
            lines += ["```{raw} html", quiz_html(q, lang), "```", ""]
    return "\n".join(lines) + "\n"


def write_pages(srcdir, solutions):
    """Write every chapter's page in both languages under ``srcdir``; returns the paths."""
    from kernelnb.course import exercises
    from kernelnb.course.chapters import CHAPTERS
    written = []
    for lang, folder in (("en", Path(srcdir) / "exercises"),
                         ("fr", Path(srcdir) / "fr" / "exercises")):
        folder.mkdir(parents=True, exist_ok=True)
        keep = set()
        for chapter in CHAPTERS:
            if not exercises(chapter):
                continue
            path = folder / f"{chapter}.md"
            text = chapter_page(chapter, lang, solutions)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            keep.add(path.name)
            written.append(path)
        for stale in folder.glob("*.md"):
            if stale.name not in keep:
                stale.unlink()
    return written


def _solutions_default():
    return os.environ.get("KERNELNB_BOOK_SOLUTIONS", "") in ("1", "true", "yes")


def _on_config(app, config):
    config.html_static_path.append(str(STATIC))


def _on_builder_inited(app):
    write_pages(app.srcdir, bool(app.config.kernelnb_course_solutions))


def setup(app):
    """Register the pages' option, their generation and their script and style sheet."""
    app.add_config_value("kernelnb_course_solutions", _solutions_default(), "env")
    app.connect("config-inited", _on_config)
    app.connect("builder-inited", _on_builder_inited)
    app.add_js_file("kernelnb-quiz.js", loading_method="defer")
    app.add_css_file("kernelnb-quiz.css")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
