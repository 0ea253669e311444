"""The course in French: one gettext catalog per notebook, and the French notebooks made from it.

The English notebook is the one source. Its Markdown cells are split into translation units by a
Markdown parser (markdown-it-py, CommonMark with tables, and ``$...$`` / ``$$...$$`` kept whole by
the dollarmath plugin, as the book's myst-parser reads them): a heading, a paragraph, an item of a
top-level list, a block quote, a table row. A unit's exact source text (without the markup that
places it: ``## ``, ``* ``, ``> ``) is its gettext ``msgid``. Code fences, blocks of pure math,
table delimiter rows and the blank lines between blocks are copied, not translated; code cells are
copied whole, with their metadata, so that the jupyter-cache, which hashes the code cells and the
``kernelspec``, finds the English notebook's execution for the French one.

The translations live beside the notebooks, one catalog a notebook:
``notebooks/locale/<lang>/LC_MESSAGES/<notebook stem>.po``, read and written with Babel.
:func:`update_catalogs` extracts the units and merges them into the catalogs (a unit whose English
changed becomes *fuzzy* with its previous text shown, a unit gone becomes obsolete);
:func:`build` writes the French notebooks (``notebooks/fr/``, generated, not committed): the English
notebook with each unit replaced by its translation, and ``language: fr`` in its metadata. A unit
with no translation, or a fuzzy one, stays in English there (and ``build --strict`` fails).

Command line, from the repository root::

    python -m kernelnb.lab.i18n.notebooks update    # notebooks -> catalogs (extract and merge)
    python -m kernelnb.lab.i18n.notebooks build     # notebooks + catalogs -> notebooks/fr/
    python -m kernelnb.lab.i18n.notebooks check 03  # what is left to translate or fix in 03

``kernelnb lab --lang fr`` builds them and opens JupyterLab on them; the book builds them into its
"Le cours en français" part (:mod:`kernelnb.lab.book`).

The course is Memisevic's lecture 10 of "Fondements de l'apprentissage machine" (Université de
Montréal, 2014), taught in French, and its French terms are those of the sources: that lecture,
P. Vincent, "Modèles à noyaux à structure locale" (PhD thesis, Université de Montréal, 2003), and
the French summaries of O. Chapelle's (Paris VI, 2004) and R. Collobert's (Paris VI, 2004) theses,
kept in ``glossary_fr.tsv`` beside this module.
"""
from __future__ import annotations

import argparse
import copy
import io
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Unit", "markdown_units", "notebook_units", "catalog_path", "languages",
           "extract_catalog", "read_catalog", "write_catalog", "update_catalogs",
           "translate_notebook", "build", "GlossaryTerm", "read_glossary", "check_translation",
           "check_catalog", "main"]

#: The language the notebooks are written in (the catalogs' msgids).
SOURCE_LANGUAGE = "en"
#: The catalogs' folder, relative to the notebooks' folder (gettext's layout).
LOCALE_DIR = "locale"

_LIST_MARKER = re.compile(r"^( {0,3}(?:[*+-]|\d{1,9}[.)]))( +|$)")
_QUOTE_MARKER = re.compile(r"^ {0,3}> ?")
_ATX = re.compile(r"^( {0,3}#{1,6})(?:[ \t]+|$)")


@dataclass(frozen=True)
class Unit:
    """One translation unit of a Markdown cell.

    Parameters
    ----------
    kind : str
        ``"heading"``, ``"paragraph"``, ``"list item"``, ``"quote"`` or ``"table row"``.
    text : str
        The unit's exact source text, without the markup that places it (a heading's ``#``, a
        list item's marker and indentation, a quote's ``>``): the catalog's ``msgid``.
    start, end : int
        The unit's lines in the cell's source (``end`` excluded).
    prefix : str
        The markup put back before the first line of a translation (``"## "``, ``"* "``,
        ``"> "``).
    indent : str
        The markup put back before each following line (a list item's indentation, ``"> "``).
    cell : int
        The cell's index in the notebook (-1 for a lone Markdown text).
    cell_id : str
        The cell's id (empty for a lone Markdown text).
    """

    kind: str
    text: str
    start: int
    end: int
    prefix: str = ""
    indent: str = ""
    cell: int = -1
    cell_id: str = ""

    def render(self, text):
        """The lines that put ``text`` (this unit's translation) in the unit's place.

        Parameters
        ----------
        text : str
            A translation of :attr:`text`.

        Returns
        -------
        list of str
        """
        out = []
        for i, line in enumerate(text.split("\n")):
            mark = self.prefix if i == 0 else self.indent
            out.append(mark + line if line.strip() else mark.rstrip())
        return out


def _parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    # As myst-parser (the book) and JupyterLab read a notebook: CommonMark, tables, and $$ inside
    # a paragraph being inline math (myst_dmath_double_inline in docs/conf.py).
    return MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, double_inline=True)


_MD = None


def _md():
    global _MD
    if _MD is None:
        _MD = _parser()
    return _MD


def _inline(text):
    """The inline tokens of ``text`` (math, code, links, plain text), flattened."""
    return [child for tok in _md().parseInline(text) for child in tok.children or ()]


def _has_words(text):
    """Whether ``text`` has something to translate once its math, code and link targets are
    removed (a table row of formulas, a paragraph of inline math alone, do not)."""
    words = " ".join(t.content for t in _inline(text) if t.type == "text")
    return bool(re.search(r"[^\W\d_]{2,}", words))


def _trim(lines, start, end):
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


def markdown_units(source):
    """The translation units of a Markdown text, in order.

    Parameters
    ----------
    source : str
        A Markdown cell's source.

    Returns
    -------
    list of Unit
        Headings, paragraphs, items of top-level lists, block quotes and table rows that have
        words to translate; math blocks, code, rules, HTML and table delimiter rows are left out
        (they are copied as they are).
    """
    lines = source.split("\n")
    tokens = _md().parse(source)
    units = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.level != 0 or tok.map is None or tok.nesting == -1:
            i += 1
            continue
        start, end = tok.map
        end = _trim(lines, start, end)
        if tok.type == "heading_open":
            match = _ATX.match(lines[start])
            if match and end == start + 1:
                text = lines[start][match.end():].rstrip()
                text = re.sub(r"[ \t]+#+$", "", text)
                units.append(Unit("heading", text, start, end, prefix=match.group(1) + " "))
            else:   # a setext heading: its text lines, the underline kept
                units.append(Unit("heading", "\n".join(lines[start:end - 1]), start, end - 1))
        elif tok.type == "paragraph_open":
            units.append(Unit("paragraph", "\n".join(lines[start:end]), start, end))
        elif tok.type == "blockquote_open":
            body = [_QUOTE_MARKER.sub("", line, count=1) for line in lines[start:end]]
            units.append(Unit("quote", "\n".join(body), start, end, prefix="> ", indent="> "))
        elif tok.type in ("bullet_list_open", "ordered_list_open"):
            depth = 0
            for item in tokens[i + 1:]:
                if item.type in ("bullet_list_open", "ordered_list_open"):
                    depth += 1
                elif item.type in ("bullet_list_close", "ordered_list_close"):
                    if depth == 0:
                        break
                    depth -= 1
                elif item.type == "list_item_open" and depth == 0:
                    units.append(_list_item(lines, *item.map))
        elif tok.type == "table_open":
            for row in tokens[i + 1:]:
                if row.type == "table_close":
                    break
                if row.type == "tr_open":
                    r0, r1 = row.map
                    units.append(Unit("table row", "\n".join(lines[r0:r1]), r0, r1))
        i += 1
    return [u for u in units if _has_words(u.text)]


def _list_item(lines, start, end):
    end = _trim(lines, start, end)
    first = lines[start]
    match = _LIST_MARKER.match(first)
    marker = match.group(1).lstrip() + " "
    lead = first[:len(first) - len(first.lstrip())]
    width = len(match.group(0)) if match.group(2) else len(match.group(1)) + 1
    body = [first[len(match.group(0)):]]
    for line in lines[start + 1:end]:
        strip = len(line) - len(line.lstrip(" "))
        body.append(line[min(strip, width):])
    return Unit("list item", "\n".join(body), start, end, prefix=lead + marker,
                indent=" " * width)


def notebook_units(nb):
    """The translation units of a notebook's Markdown cells, in order.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The English notebook.

    Returns
    -------
    list of Unit
        Each with its cell's index and id set.
    """
    return [unit for index, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
            for unit in _cell_units(nb, index)]


def _cell_units(nb, index):
    cell = nb.cells[index]
    return [Unit(u.kind, u.text, u.start, u.end, u.prefix, u.indent, index,
                 cell.get("id", "") or "") for u in markdown_units(cell.source)]


def catalog_path(notebooks_dir, stem, lang="fr"):
    """The catalog of one notebook in one language.

    Parameters
    ----------
    notebooks_dir : path-like
        The notebooks' folder.
    stem : str
        The notebook's file name without ``.ipynb``.
    lang : str, default="fr"
        The catalog's language.

    Returns
    -------
    pathlib.Path
        ``<notebooks_dir>/locale/<lang>/LC_MESSAGES/<stem>.po``.
    """
    return Path(notebooks_dir) / LOCALE_DIR / lang / "LC_MESSAGES" / f"{stem}.po"


def languages(notebooks_dir):
    """The languages the notebooks' folder has catalogs for.

    Parameters
    ----------
    notebooks_dir : path-like
        The notebooks' folder.

    Returns
    -------
    list of str
        E.g. ``["fr"]``; empty when there is no ``locale/`` folder.
    """
    root = Path(notebooks_dir) / LOCALE_DIR
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and any((p / "LC_MESSAGES").glob("*.po")))


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
        "# Made by: python -m kernelnb.lab.i18n.notebooks update")
    return catalog


def _plain(catalog):
    """Markdown is not a Python format string: Babel flags a msgid with ``%`` in it as one."""
    for message in catalog:
        message.flags.discard("python-format")
    for message in catalog.obsolete.values():
        message.flags.discard("python-format")


def read_catalog(path):
    """Read a notebook's catalog.

    Parameters
    ----------
    path : path-like
        A ``.po`` file.

    Returns
    -------
    babel.messages.catalog.Catalog
        The catalog, obsolete entries included.
    """
    from babel.messages.pofile import read_po
    with open(path, "rb") as f:
        catalog = read_po(f, abort_invalid=True)
    _plain(catalog)
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


def _translation(catalog, text):
    message = catalog.get(text) if catalog is not None else None
    if message is None or message.fuzzy or not message.string:
        return None
    return message.string


def translate_notebook(nb, catalog, lang="fr"):
    """The notebook with each unit of its Markdown cells replaced by its translation.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The English notebook.
    catalog : babel.messages.catalog.Catalog or None
        Its catalog (None: nothing translated).
    lang : str, default="fr"
        Written into the notebook's metadata (``language``).

    Returns
    -------
    translated : nbformat.NotebookNode
        A new notebook; its code cells are the English ones, untouched.
    missing : list of Unit
        The units left in English (no translation, or a fuzzy one).
    """
    out = copy.deepcopy(nb)
    out.metadata["language"] = lang
    missing = []
    for index, cell in enumerate(out.cells):
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        for unit in reversed(_cell_units(nb, index)):
            text = _translation(catalog, unit.text)
            if text is None:
                missing.append(unit)
                continue
            lines[unit.start:unit.end] = unit.render(text)
        cell.source = _live_links_in(lang, "\n".join(lines))
    missing.sort(key=lambda u: (u.cell, u.start))
    return out, missing


#: A chapter's link to a dashboard on the default ``kernelnb serve``.
_LIVE_LINK = re.compile(r"\((http://127\.0\.0\.1:8866/voila/render/\w+\.ipynb)(\?[^)\s]*)?\)")


def _live_links_in(lang, text):
    """``text`` with its links to live dashboards asking for ``lang`` (``lang=fr`` in the query),
    so that a French chapter opens the dashboards in French."""
    def add(m):
        query = (m.group(2) or "?")[1:]
        pairs = [p for p in query.split("&") if p and not p.startswith("lang=")]
        return f"({m.group(1)}?{'&'.join(pairs + [f'lang={lang}'])})"
    return _LIVE_LINK.sub(add, text)


@dataclass
class BuildReport:
    """What :func:`build` wrote, for one notebook."""

    path: Path
    units: int
    missing: list = field(default_factory=list)
    written: bool = False


def _default_notebooks():
    here = Path.cwd() / "notebooks"
    if here.is_dir():
        return here
    checkout = Path(__file__).resolve().parents[3] / "notebooks"
    if checkout.is_dir():
        return checkout
    raise SystemExit("no notebooks/ folder here nor in a kernelnb checkout: pass --notebooks DIR")


def build(notebooks_dir, lang="fr", out_dir=None, *, keep_newer=False):
    """Write the translated notebooks.

    Parameters
    ----------
    notebooks_dir : path-like
        The folder of the English notebooks (and of ``locale/``).
    lang : str, default="fr"
        The language to write.
    out_dir : path-like or None
        Where to write them (default ``<notebooks_dir>/<lang>/``). Notebooks there that have no
        English notebook any more are removed.
    keep_newer : bool, default=False
        Leave alone a translated notebook newer than its English notebook and its catalog (one a
        student edited in JupyterLab); by default every file is made to match (rewritten only when
        its content differs, so a book build reads again only what changed).

    Returns
    -------
    list of BuildReport
        One a notebook, in order.

    Raises
    ------
    ValueError
        When ``lang`` is the source language or the folder has no catalog in it.
    """
    import nbformat

    notebooks_dir = Path(notebooks_dir)
    if lang == SOURCE_LANGUAGE or not re.fullmatch(r"[a-z]{2,3}(_[A-Z]{2})?", str(lang)):
        raise ValueError(f"lang must name a translation of the notebooks, got {lang!r}")
    if lang not in languages(notebooks_dir):
        raise ValueError(f"lang={lang!r}: no catalog in "
                         f"{notebooks_dir / LOCALE_DIR / lang / 'LC_MESSAGES'}")
    out_dir = Path(out_dir) if out_dir is not None else notebooks_dir / lang
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = sorted(notebooks_dir.glob("*.ipynb"))
    names = {p.name for p in sources}
    for stale in out_dir.glob("*.ipynb"):
        if stale.name not in names:
            stale.unlink()
    reports = []
    for path in sources:
        po = catalog_path(notebooks_dir, path.stem, lang)
        target = out_dir / path.name
        nb = nbformat.read(str(path), as_version=4)
        catalog = read_catalog(po) if po.is_file() else None
        translated, missing = translate_notebook(nb, catalog, lang)
        report = BuildReport(target, len(notebook_units(nb)), missing)
        reports.append(report)
        if keep_newer and target.is_file():
            newest = max(path.stat().st_mtime, po.stat().st_mtime if po.is_file() else 0)
            if target.stat().st_mtime > newest:
                continue
        text = nbformat.writes(translated) + "\n"
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            report.written = True
    return reports


def main(argv=None):
    """``python -m kernelnb.lab.i18n.notebooks {update,build,check}``.

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
        prog="python -m kernelnb.lab.i18n.notebooks",
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
    notebooks_dir = args.notebooks if args.notebooks is not None else _default_notebooks()
    if not notebooks_dir.is_dir():
        parser.error(f"--notebooks {str(notebooks_dir)!r} is not a directory")
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
    try:
        reports = build(notebooks_dir, args.lang, args.out)
    except ValueError as exc:
        parser.error(str(exc))
    left = 0
    for r in reports:
        left += len(r.missing)
        print(f"{r.path}: {r.units - len(r.missing)}/{r.units} units translated"
              f"{' (written)' if r.written else ''}")
        for unit in r.missing[:3] if not args.strict else r.missing:
            first = unit.text.split("\n")[0][:70]
            print(f"    in English: cell {unit.cell} ({unit.kind}): {first}")
    return 1 if args.strict and left else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
