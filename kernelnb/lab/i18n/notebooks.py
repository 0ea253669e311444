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
:func:`build` writes the French notebooks (``notebooks/fr/``, generated, not committed): the English
notebook with each unit replaced by its translation, and ``language: fr`` in its metadata. A unit
with no translation, or a fuzzy one, stays in English there (and ``build --strict`` fails).

This module is what a user runs: ``kernelnb lab --lang fr`` builds the French notebooks and opens
JupyterLab on them, Binder's ``postBuild`` runs ``python -m kernelnb.lab.i18n.notebooks build``,
and the book builds them into its "Le cours en français" part (``docs/_ext/kernelnb_book``). The
catalogs' maintenance (extracting the units and merging them into the catalogs, checking the
translations against the French glossary) is the translators' work and lives with the docs:
``docs/_ext/notebook_catalogs.py``.

The course is Memisevic's lecture 10 of "Fondements de l'apprentissage machine" (Université de
Montréal, 2014), taught in French, and its French terms are those of the sources: that lecture,
P. Vincent, "Modèles à noyaux à structure locale" (PhD thesis, Université de Montréal, 2003), and
the French summaries of O. Chapelle's (Paris VI, 2004) and R. Collobert's (Paris VI, 2004) theses,
kept in ``docs/_ext/glossary_fr.tsv``.
"""
from __future__ import annotations

import argparse
import copy
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
    """``python -m kernelnb.lab.i18n.notebooks build``: write the translated notebooks.

    Parameters
    ----------
    argv : list of str or None
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 1 when ``--strict`` and a unit was left untranslated.
    """
    parser = argparse.ArgumentParser(
        prog="python -m kernelnb.lab.i18n.notebooks",
        description="Build the translated course notebooks from the English ones and their "
                    "catalogs (the catalogs are maintained with docs/_ext/notebook_catalogs.py "
                    "in a kernelnb checkout).")
    add_build_arguments(parser)
    args = parser.parse_args(argv)
    return run_build(parser, args)


def add_build_arguments(parser):
    """The command line of :func:`build`: ``build [--notebooks DIR] [--lang L] [--out DIR]
    [--strict]``."""
    parser.add_argument("command", choices=("build",), help="build: write the translated notebooks")
    parser.add_argument("--notebooks", type=Path, default=None,
                        help="the English notebooks' folder (default: ./notebooks, else the "
                             "checkout's)")
    parser.add_argument("--lang", default="fr", help="the translation's language (default fr)")
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write (default <notebooks>/<lang>/)")
    parser.add_argument("--strict", action="store_true",
                        help="fail when a unit has no translation or a fuzzy one")


def notebooks_folder(parser, args):
    """``--notebooks``, or the default folder; a parser error when it is not a directory."""
    notebooks_dir = args.notebooks if args.notebooks is not None else _default_notebooks()
    if not notebooks_dir.is_dir():
        parser.error(f"--notebooks {str(notebooks_dir)!r} is not a directory")
    return notebooks_dir


def run_build(parser, args):
    """Run :func:`build` for parsed arguments and print what it wrote; the exit status."""
    notebooks_dir = notebooks_folder(parser, args)
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
