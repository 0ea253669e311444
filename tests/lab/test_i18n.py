"""The lab's languages (kernelnb.lab.i18n): the catalog complete and in step with the code, the
glossary's terms used, the build's compiled catalog, the choice of a page's language, numbers
written per language."""
from __future__ import annotations

import ast
import csv
import gettext
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest

from kernelnb.lab import i18n
from kernelnb.lab.i18n import catalog

pytest.importorskip("babel", reason="Babel reads and extracts the catalogs")

REPO = Path(__file__).resolve().parents[2]
GLOSSARY = REPO / "docs" / "_ext" / "glossary_fr.tsv"


@pytest.fixture(scope="module")
def french():
    """The French catalog as Babel reads it: {msgid: msgstr} (plural forms: the first)."""
    cat = catalog._read(catalog.catalog_path("fr"), "fr")
    return {m.id if isinstance(m.id, str) else m.id[0]:
            m.string if isinstance(m.string, str) else m.string[0]
            for m in cat if m.id}


def test_every_message_is_translated_and_the_catalog_follows_the_code():
    """An extraction of the code finds exactly the catalog's messages, each translated and none
    fuzzy (``python -m kernelnb.lab.i18n.catalog update`` then fill the .po)."""
    problems = catalog.problems("fr")
    assert not problems, f"{len(problems)} problem(s) in the French catalog:\n" + "\n".join(
        problems[:40])


def _messages_inside_fstrings(path):
    """(line, text) of each gettext call on a literal written inside an f-string's braces."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr):
            for inner in ast.walk(node):
                if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                        and inner.func.id in ("_", "N_", "gettext", "ngettext") and inner.args
                        and isinstance(inner.args[0], ast.Constant)):
                    found.append((inner.lineno, inner.args[0].value))
    return found


@pytest.mark.parametrize("package", ["lab", "course"])
def test_no_message_is_written_inside_an_fstring(package):
    """Babel does not extract a call written inside an f-string's braces (``f"{_('on')}"``): the
    message would reach no catalog and a French page would show it in English."""
    root = REPO / "kernelnb" / package
    hidden = [f"{p.relative_to(REPO)}:{line}: {text!r}" for p in sorted(root.rglob("*.py"))
              for line, text in _messages_inside_fstrings(p)]
    assert not hidden, "messages inside f-strings (no catalog has them):\n" + "\n".join(hidden)


def test_the_fstring_check_finds_a_message_inside_braces(tmp_path):
    src = tmp_path / "m.py"
    src.write_text('x = f"{label}: {_(\'on\') if v else _(\'off\')}"\ny = _("plain")\n')
    assert _messages_inside_fstrings(src) == [(1, "on"), (1, "off")]


def test_the_template_holds_the_code_messages():
    code = {m.id for m in catalog.extract() if m.id}
    template = {m.id for m in catalog._read(catalog.template_path()) if m.id}
    assert template == code, (f"kernelnb.pot is stale: missing {sorted(code - template)[:5]}, "
                              f"stale {sorted(template - code)[:5]}")


def _fields(text):
    return sorted(f for _lit, f, _spec, _conv in string.Formatter().parse(text) if f is not None)


def test_translations_keep_every_placeholder(french):
    """A translation names the same ``{fields}`` as its message (a lost or misspelt field would
    raise or print wrong at run time)."""
    wrong = [(m, t) for m, t in french.items() if "{" in m and _fields(m) != _fields(t)]
    assert not wrong, wrong[:10]


def test_catalog_messages_are_not_left_in_english(french):
    """A message with two words or more (of four letters or more, lower case) is translated
    into other words: a copied msgid would show English in a French page; names, formulas and
    short labels may stay the same."""
    same = [m for m, t in french.items()
            if m == t and len(re.findall(r"\b[a-z]{4,}\b", re.sub(r"\{\w*\}", "", m))) >= 2]
    assert not same, same[:20]


def _glossary():
    with open(GLOSSARY, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    assert rows[0] == ["english", "french", "source"], rows[0]
    return rows[1:]


def _term(term, french=False):
    """A term as a pattern: its words whole, joined by spaces or hyphens ("soft margin",
    "soft-margin"), each with an optional plural (and, in French, a feminine: "gaussiennes")."""
    suffix = r"(?:s|x|es|e|ne|nes|le|les)?" if french else r"(?:s|es)?"
    words = [re.escape(w) + suffix for w in term.split()]
    before = r"(?<!\w)" if french else r"(?<![\w-])"
    return re.compile(before + r"[\s\u00a0-]+".join(words) + r"(?!\w)", re.IGNORECASE)


def test_glossary_is_well_formed():
    rows = _glossary()
    assert rows and all(len(r) == 3 and all(c.strip() for c in r) for r in rows), \
        [r for r in rows if len(r) != 3 or not all(c.strip() for c in r)]
    english = [r[0].lower() for r in rows]
    assert len(set(english)) == len(english), sorted(e for e in english if english.count(e) > 1)


def test_catalog_uses_the_glossary_terms(french):
    """Wherever a message says a glossary term, its translation says the term's French (the
    field's words as its French sources use them); where a longer term holds a shorter one
    ("Manifold Parzen", "manifold"), the longer one is checked."""
    misses = []
    terms = sorted(_glossary(), key=lambda row: -len(row[0]))     # the longest terms first
    for msgid, msgstr in french.items():
        text = re.sub(r"\{\w*\}", " ", msgid)
        for english, french_term, _source in terms:
            en = _term(english)
            if en.search(text):
                if not _term(french_term, french=True).search(msgstr):
                    misses.append(f"{english!r} -> {french_term!r}: {msgid!r} => {msgstr!r}")
                # a shorter term inside this one ("manifold" in "Manifold Parzen") is this one
                text = en.sub(" ", text)
    assert not misses, f"{len(misses)} translation(s) without the glossary's term:\n" + \
        "\n".join(misses[:30])


def test_the_package_build_compiles_the_catalog(tmp_path):
    """setup.py's build_py writes kernelnb/locale/fr/LC_MESSAGES/kernelnb.mo into the build, with
    every message of the .po (an editable install writes it into the checkout the same way).
    build_py needs no Cython (only pip's build environment has it: not a test venv), so the
    build runs here with Cython made unimportable, as in a fresh venv."""
    script = ("import runpy, sys\n"
              "sys.modules['Cython'] = sys.modules['Cython.Distutils'] = None\n"
              f"sys.argv = ['setup.py', '-q', 'build_py', '--build-lib', {str(tmp_path)!r}]\n"
              "runpy.run_path('setup.py', run_name='__main__')\n")
    r = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    mo = tmp_path / "kernelnb" / "locale" / "fr" / "LC_MESSAGES" / "kernelnb.mo"
    with open(mo, "rb") as f:
        compiled = gettext.GNUTranslations(f)
    po = {m.id: m.string for m in catalog._read(catalog.catalog_path("fr"), "fr")
          if m.id and isinstance(m.id, str)}
    assert {k: compiled.gettext(k) for k in po} == po
    assert not list(tmp_path.rglob("*.po")), "the .po sources are not package data"


def test_the_french_catalog_is_found():
    assert i18n.translate("Lesson", "fr") == "Leçon"
    assert i18n.translate("Lesson", "en") == "Lesson"
    assert i18n.msgid_of("Leçon", "fr") == "Lesson"
    assert i18n.msgid_of("Lesson", "en") == "Lesson"
    assert i18n.msgid_of("no such text", "fr") is None
    with i18n.language("fr"):
        assert i18n._("Lesson") == "Leçon"
        with i18n.language("en"):
            assert i18n._("Lesson") == "Lesson"
        assert i18n.get_language() == "fr"
    with pytest.raises(ValueError, match="lang must be one of 'en', 'fr', got 'de'"):
        with i18n.language("de"):
            pass


@pytest.mark.parametrize("value, spec, en, fr", [
    (0.5, "", "0.5", "0,5"),
    (0.5, ".3g", "0.5", "0,5"),
    (12345, ",d", "12,345", "12\u202f345"),
    (1234.5678, ",.2f", "1,234.57", "1\u202f234,57"),
    (0.123, ".1%", "12.3%", "12,3\u202f%"),
    (1e-5, ".2g", "1e-05", "1e-05"),
    (-3.25, ".2f", "-3.25", "-3,25"),
    (7, "d", "7", "7"),
])
def test_numbers_follow_the_language(value, spec, en, fr):
    assert i18n.number(value, spec, "en") == en == format(value, spec)
    assert i18n.number(value, spec, "fr") == fr
    with i18n.language("fr"):
        assert i18n.number(value, spec) == fr
    assert i18n.PLOTLY_SEPARATORS["fr"][0] == "," and i18n.PLOTLY_SEPARATORS["en"] == ".,"


@pytest.mark.parametrize("query, accept, default, expected", [
    ("fr", "en-US,en;q=0.9", "en", "fr"),         # the URL first
    ("en", "fr", "fr", "en"),
    ("FR-ca", None, None, "fr"),
    ("xx", "fr", "fr", "en"),                      # a bad lang: English, no error
    ("", "fr", None, "en"),
    ("<script>", None, None, "en"),
    (None, "fr-CA,fr;q=0.9,en;q=0.8", "en", "fr"),  # then the browser
    (None, "de-DE,de;q=0.9,en;q=0.5,fr;q=0.4", "fr", "en"),
    (None, "en;q=0.2, fr;q=0.8", "en", "fr"),
    (None, "fr;q=0", "en", "en"),
    (None, ["de", "fr-FR", "en"], "en", "fr"),     # navigator.languages
    (None, "de, *", "fr", "fr"),                   # then the server's default
    (None, None, "fr", "fr"),
    (None, "garbage;;;q=x,", "xx", "en"),
])
def test_a_page_language_is_chosen(query, accept, default, expected):
    assert i18n.choose(query, accept, default) == expected


def test_the_default_language_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(i18n.DEFAULT_ENV, "fr")
    assert i18n.default_language() == "fr" and i18n.get_language() == "fr"
    assert i18n.choose(None, None) == "fr"
    monkeypatch.setenv(i18n.DEFAULT_ENV, "klingon")
    assert i18n.default_language() == "en"
    monkeypatch.delenv(i18n.DEFAULT_ENV)
    assert i18n.default_language() == "en"


def test_every_loss_label_is_a_message():
    """The losses' labels (library strings) are shown by the lab: each is marked there."""
    from kernelnb import losses
    from kernelnb.lab.viz.losses import LOSS_LABELS, REGRESSION_LABELS
    labels = {losses.get_loss(n).label for n in losses.LOSS_NAMES}
    assert labels <= set(LOSS_LABELS), sorted(labels - set(LOSS_LABELS))
    regression = {losses.get_loss(n).label for n in losses.LOSS_NAMES
                  if losses.get_loss(n).kind == "regression"}
    assert regression and regression <= set(REGRESSION_LABELS), regression
