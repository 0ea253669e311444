"""The course's French catalogs: their maintenance, with the docs (not in the installed package).

The notebooks' translation units and the French notebooks built from the catalogs are
:mod:`kernelnb.lab.i18n.notebooks` (what ``kernelnb lab --lang fr`` and Binder run). This tool is
the translators' side: it extracts every English notebook's units and merges them into its
catalog ``notebooks/locale/<lang>/LC_MESSAGES/<notebook stem>.po`` (a unit whose English changed
becomes *fuzzy* with its previous text shown, a unit gone becomes obsolete), and checks the
translations: untranslated or fuzzy units, a formula, a code span or a link target lost, a table
row's cells, English left in, and the French terms of the glossary (``glossary_fr.tsv`` beside
this file: the terms of Memisevic's lecture 10 of "Fondements de l'apprentissage machine",
Université de Montréal, 2014; P. Vincent, "Modèles à noyaux à structure locale", PhD thesis,
Université de Montréal, 2003; the French summaries of O. Chapelle's and R. Collobert's theses,
Paris VI, 2004).

Command line, from the repository root::

    python docs/_ext/notebook_catalogs.py update    # notebooks -> catalogs (extract and merge)
    python docs/_ext/notebook_catalogs.py check 03  # what is left to translate or fix in 03
    python docs/_ext/notebook_catalogs.py build     # notebooks + catalogs -> notebooks/fr/
"""
from __future__ import annotations

import argparse
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from kernelnb.lab.i18n.notebooks import (_inline, _md, _plain, catalog_path, notebook_units,
                                         notebooks_folder, read_catalog, run_build)


def _location(unit, name):
    return (f"{name}#{unit.cell_id or unit.cell}", unit.start + 1)


def extract_catalog(path, lang="fr"):
    """A catalog of one notebook's units with no translation (gettext's template).

    Parameters
    ----------
    path : path-like
        An English notebook.
    lang : str, default="fr"
        The catalog's language.

    Returns
    -------
    babel.messages.catalog.Catalog
        One entry a distinct unit, in the notebook's order, located at its cell and line.
    """
    import nbformat

    path = Path(path)
    nb = nbformat.read(str(path), as_version=4)
    catalog = _new_catalog(path.stem, lang)
    for unit in notebook_units(nb):
        catalog.add(unit.text, "", locations=[_location(unit, path.name)],
                    auto_comments=[unit.kind])
    _plain(catalog)
    return catalog


def _new_catalog(stem, lang):
    from babel.messages.catalog import Catalog
    catalog = Catalog(locale=lang, domain=stem, project="kernelnb", version="course",
                      copyright_holder="kernelnb contributors",
                      last_translator="kernelnb contributors",
                      language_team=f"kernelnb ({lang})", fuzzy=False)
    catalog.header_comment = (
        f"# The course notebook {stem}.ipynb, translated ({lang}).\n"
        "# Copyright (C) kernelnb contributors\n"
        "# This file is distributed under the same license as the kernelnb project.\n"
        "# Made by: python docs/_ext/notebook_catalogs.py update")
    return catalog


def write_catalog(catalog, path):
    """Write a catalog as a ``.po`` file.

    The entries stay in the notebook's order, and a fuzzy entry keeps its previous English for
    the translator.

    Parameters
    ----------
    catalog : babel.messages.catalog.Catalog
        The catalog to write.
    path : path-like
        The ``.po`` file (its folder is created).

    Returns
    -------
    bool
        Whether the file changed.
    """
    from babel.messages.pofile import write_po
    buf = io.BytesIO()
    write_po(buf, catalog, width=0, sort_output=False, include_previous=True)
    data = buf.getvalue()
    path = Path(path)
    if path.is_file() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def update_catalogs(notebooks_dir, lang="fr"):
    """Extract every notebook's units and merge them into its catalog.

    A new unit gets an empty translation; a unit whose English changed keeps its old translation
    marked fuzzy (with the old English as ``#| msgid``) until a translator checks it; a unit no
    longer in the notebook becomes obsolete (``#~``).

    Parameters
    ----------
    notebooks_dir : path-like
        The folder of the English notebooks.
    lang : str, default="fr"
        The catalogs' language.

    Returns
    -------
    dict
        Notebook stem -> ``(units, translated, fuzzy, changed)``: the numbers of distinct units,
        of those translated (not fuzzy), of fuzzy ones, and whether the file changed.
    """
    report = {}
    for path in sorted(Path(notebooks_dir).glob("*.ipynb")):
        template = extract_catalog(path, lang)
        target = catalog_path(notebooks_dir, path.stem, lang)
        if target.is_file():
            catalog = read_catalog(target)
            catalog.update(template, update_creation_date=False)
            _plain(catalog)
        else:
            catalog = template
        changed = write_catalog(catalog, target)
        messages = [m for m in catalog if m.id]
        report[path.stem] = (len(messages),
                             sum(1 for m in messages if m.string and not m.fuzzy),
                             sum(1 for m in messages if m.fuzzy), changed)
    return report


#: The glossary of the French terms (English term, French term, where the sources use it).
GLOSSARY_FR = Path(__file__).with_name("glossary_fr.tsv")


@dataclass(frozen=True)
class GlossaryTerm:
    """One line of the glossary: an English term and the French term that translates it.

    Parameters
    ----------
    english : str
        The English term, singular (a plural ending is accepted in the text: ``kernel`` matches
        ``kernels``).
    french : str
        The French term, singular (a plural or feminine ending is accepted in the text: ``noyau``
        matches ``noyaux``, ``non étiqueté`` matches ``non étiquetées``); case is ignored, and
        a space, a hyphen and an en dash between words are the same (``hyper-parameter``,
        ``hyper parameter``; ``radius-margin``, ``radius–margin``).
    source : str
        Where the sources use the French term.
    """

    english: str
    french: str
    source: str = ""

    @staticmethod
    def _pattern(term, endings):
        words = [re.escape(w) for w in re.split(r"[\s\u00a0\u2010-\u2013-]+", term.strip()) if w]
        body = r"[\s\u00a0\u2010-\u2013-]*".join(f"{w}{endings}" for w in words)
        return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)

    def english_spans(self, text):
        """Where ``text`` (prose: math and code left out) uses the English term.

        Parameters
        ----------
        text : str

        Returns
        -------
        list of tuple
            ``(start, end)`` of each use.
        """
        return [m.span() for m in self._pattern(self.english, _EN_ENDINGS).finditer(text)]

    def in_french(self, text):
        """Whether ``text`` uses the French term.

        Parameters
        ----------
        text : str

        Returns
        -------
        bool
        """
        return bool(self._pattern(self.french, _FR_ENDINGS).search(text))


_EN_ENDINGS = r"(?:s|es|'s|')?"
_FR_ENDINGS = r"(?:s|x|e|es|ne|nes)?"


def _terms_used(glossary, english):
    """The glossary terms an English text uses, a term inside a longer one's use left out
    (``kernel`` inside ``kernel ridge regression`` asks only for the longer term's French)."""
    used, covered = [], []
    for term in sorted(glossary, key=lambda t: -len(t.english)):
        spans = [s for s in term.english_spans(english)
                 if not any(a <= s[0] and s[1] <= b for a, b in covered)]
        if spans:
            used.append(term)
            covered += spans
    return used


def read_glossary(path=None):
    """The glossary's terms.

    Parameters
    ----------
    path : path-like or None
        A tab-separated file: a header line, then one line a term: English, French, sources
        (further columns are ignored). Default: ``glossary_fr.tsv`` beside this module.

    Returns
    -------
    list of GlossaryTerm
        In the file's order.
    """
    path = GLOSSARY_FR if path is None else Path(path)
    terms = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if number == 0 or not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) < 2 or not cols[0].strip() or not cols[1].strip():
            raise ValueError(f"{path.name}, line {number + 1}: expected 'English<TAB>French"
                             f"<TAB>sources', got {line!r}")
        terms.append(GlossaryTerm(cols[0].strip(), cols[1].strip(),
                                  cols[2].strip() if len(cols) > 2 else ""))
    return terms


def _prose(text):
    """The words of a unit: its plain text, math, code and link targets left out."""
    return " ".join(t.content for t in _inline(text) if t.type == "text")


_QUOTED = re.compile(r'"[^"]*"|“[^”]*”|«[^»]*»')
#: Words of English prose that no French sentence uses: two of them in a translation mean an
#: English sentence was left in it.
_ENGLISH_WORDS = re.compile(r"\b(the|and|with|which|this|that|from|is|are|of|for|to|by|its)\b",
                            re.IGNORECASE)


def _kept(text):
    """What a translation must keep exactly: formulas, code, link and image targets."""
    formulas, code, targets = [], [], []
    for tok in _inline(text):
        if tok.type.startswith("math"):
            formulas.append(f"{tok.markup}{tok.content}{tok.markup}")
        elif tok.type == "code_inline":
            code.append(tok.content)
        elif tok.type == "link_open":
            targets.append(tok.attrs.get("href", ""))
        elif tok.type == "image":
            targets.append(tok.attrs.get("src", ""))
    return sorted(formulas), sorted(code), sorted(targets)


def _blocks(lines):
    """The block structure of Markdown lines: the block tokens' types and tags, in order."""
    return [(t.type, t.tag) for t in _md().parse("\n".join(lines))
            if t.type != "inline" and t.nesting >= 0]


def check_translation(unit, text, glossary=()):
    """What is wrong with a translation of a unit, if anything.

    Parameters
    ----------
    unit : Unit
        The English unit.
    text : str
        Its translation.
    glossary : iterable of GlossaryTerm
        Terms the translation must use where the English does.

    Returns
    -------
    list of str
        One line a problem: a formula, a code span or a link target changed or missing (``$``
        counts and the TeX between them, compared as multisets since French may order them
        otherwise), a different Markdown structure (a wrapped line that starts a list, a
        heading over two lines, a table row with another number of cells), English prose left
        in it (two words of English such as "the", "with", outside quotes), a glossary term not
        used (in the English outside double quotes: a quoted title is cited as it is); empty
        when the translation keeps all of it.
    """
    problems = []
    (f_en, c_en, l_en), (f_fr, c_fr, l_fr) = _kept(unit.text), _kept(text)
    for what, en, fr in (("formula", f_en, f_fr), ("code", c_en, c_fr),
                         ("link target", l_en, l_fr)):
        if en != fr:
            gone = [x for x in en if x not in fr]
            new = [x for x in fr if x not in en]
            problems.append(f"{what}s differ: English only {gone}, French only {new}"
                            if gone or new else f"{what}s differ in number: {en} vs {fr}")
    if unit.kind == "table row":
        def cells(t):
            return sum(tok.content.count("|") for tok in _inline(t) if tok.type == "text")
        if cells(unit.text) != cells(text) or "\n" in text:
            problems.append("table row: another number of cells, or more than one line")
    elif _blocks(unit.render(text)) != _blocks(unit.render(unit.text)):
        problems.append(f"Markdown structure differs: {_blocks(unit.render(unit.text))} "
                        f"became {_blocks(unit.render(text))}")
    french = _prose(text)
    left = _ENGLISH_WORDS.findall(_QUOTED.sub(" ", french))
    if len(left) >= 2:
        problems.append(f"English left in the translation: {sorted(set(w.lower() for w in left))}")
    # a quoted English title ("Kernel Matching Pursuit", a paper's) is cited as it is
    for term in _terms_used(glossary, _QUOTED.sub(" ", _prose(unit.text))):
        if not term.in_french(french):
            problems.append(f"glossary: {term.english!r} is {term.french!r}")
    return problems


def check_catalog(path, catalog, glossary=()):
    """The problems of one notebook's catalog.

    Parameters
    ----------
    path : path-like
        The English notebook.
    catalog : babel.messages.catalog.Catalog
        Its catalog in one language.
    glossary : iterable of GlossaryTerm
        Terms the translations must use where the English does.

    Returns
    -------
    list of str
        One line a problem, naming the notebook, the cell and the unit's first words: a unit
        missing from the catalog, untranslated or fuzzy, or a translation that
        :func:`check_translation` finds wrong; entries of the catalog no longer in the
        notebook.
    """
    import nbformat

    path = Path(path)
    nb = nbformat.read(str(path), as_version=4)
    problems, seen = [], set()
    glossary = list(glossary)
    for unit in notebook_units(nb):
        where = (f"{path.name}, cell {unit.cell} ({unit.cell_id}), {unit.kind} "
                 f"{unit.text.splitlines()[0][:60]!r}")
        if unit.text in seen:
            continue
        seen.add(unit.text)
        message = catalog.get(unit.text)
        if message is None:
            problems.append(f"{where}: not in the catalog (run the 'update' command)")
        elif not message.string:
            problems.append(f"{where}: not translated")
        elif message.fuzzy:
            problems.append(f"{where}: fuzzy (the English changed: check the translation, "
                            "then remove the fuzzy flag)")
        else:
            problems += [f"{where}: {p}" for p in check_translation(unit, message.string,
                                                                     glossary)]
    stale = [m.id for m in catalog if m.id and m.id not in seen]
    problems += [f"{path.name}: the catalog has an entry the notebook no longer has "
                 f"(run the 'update' command): {s.splitlines()[0][:60]!r}" for s in stale]
    return problems


def main(argv=None):
    """``python docs/_ext/notebook_catalogs.py {update,build,check}``.

    Parameters
    ----------
    argv : list of str or None
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 1 when ``check`` found a problem or ``build --strict`` left a unit
        untranslated.
    """
    parser = argparse.ArgumentParser(
        prog="python docs/_ext/notebook_catalogs.py",
        description="The course notebooks' translations: update the catalogs from the English "
                    "notebooks, or build the translated notebooks from them.")
    parser.add_argument("command", choices=("update", "build", "check"),
                        help="update: extract the notebooks' units and merge them into the "
                             "catalogs; build: write the translated notebooks; check: list "
                             "the units untranslated, fuzzy, or whose translation lost a "
                             "formula, a code span, a link or a glossary term")
    parser.add_argument("stems", nargs="*", metavar="NOTEBOOK",
                        help="check: only these notebooks (file name stems or their first "
                             "characters, e.g. 03)")
    parser.add_argument("--notebooks", type=Path, default=None,
                        help="the English notebooks' folder (default: ./notebooks, else the "
                             "checkout's)")
    parser.add_argument("--lang", default="fr", help="the translation's language (default fr)")
    parser.add_argument("--out", type=Path, default=None,
                        help="build: where to write (default <notebooks>/<lang>/)")
    parser.add_argument("--strict", action="store_true",
                        help="build: fail when a unit has no translation or a fuzzy one")
    args = parser.parse_args(argv)
    notebooks_dir = notebooks_folder(parser, args)
    if args.command == "update":
        for stem, (units, done, fuzzy, changed) in update_catalogs(notebooks_dir,
                                                                   args.lang).items():
            print(f"{stem}: {done}/{units} translated, {fuzzy} fuzzy"
                  f"{' (updated)' if changed else ''}")
        return 0
    if args.command == "check":
        glossary = read_glossary() if args.lang == "fr" else []
        found = 0
        for path in sorted(notebooks_dir.glob("*.ipynb")):
            if args.stems and not any(path.stem.startswith(s) for s in args.stems):
                continue
            po = catalog_path(notebooks_dir, path.stem, args.lang)
            if not po.is_file():
                print(f"{path.name}: no catalog {po}")
                found += 1
                continue
            problems = check_catalog(path, read_catalog(po), glossary)
            found += len(problems)
            print("\n".join(problems) if problems else f"{path.name}: complete")
        return 1 if found else 0
    return run_build(parser, args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
