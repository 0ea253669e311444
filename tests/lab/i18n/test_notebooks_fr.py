"""The course in French (issue 42): one source per notebook, its translation beside it.

* every translation unit of every notebook (heading, paragraph, list item, quote, table row) has a
  French translation in ``notebooks/locale/fr/LC_MESSAGES/<stem>.po``, not fuzzy, that keeps the
  unit's formulas (``$`` counts and the TeX between them), code spans, link targets and Markdown
  structure, and uses the glossary's French term wherever the English uses its English term; the
  catalogs hold every unit of the notebooks and nothing else (``update`` was run);
* the generated French notebook holds the very code cells of the English one (sources, order,
  metadata, ids) and its ``kernelspec``: the jupyter-cache gives both the same hash, so executing
  one language (the book's build, ``tests/test_notebooks.py``) tests both;
* the checks themselves find what they look for (a changed formula, a lost link, a wrapped line
  that starts a list, a missing term, a fuzzy entry, an English change merged as fuzzy).

Fast: no kernel, no book (the book's French chapters are checked by ``tests/test_docs.py``).
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

import notebook_catalogs as nbcat   # docs/_ext (tests/conftest.py puts it on sys.path)

from kernelnb.lab.i18n import notebooks as nbi18n

REPO = Path(__file__).resolve().parents[3]
NOTEBOOK_DIR = REPO / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
GLOSSARY = nbcat.read_glossary()


def _ids(paths):
    return [p.stem for p in paths]


@pytest.fixture(scope="module")
def french(tmp_path_factory):
    """The French notebooks, built once into a temporary folder: name -> notebook."""
    out = tmp_path_factory.mktemp("fr")
    nbi18n.build(NOTEBOOK_DIR, "fr", out)
    return {p.name: nbformat.read(str(p), as_version=4) for p in out.glob("*.ipynb")}


def test_there_are_fifteen_notebooks_and_a_catalog_each():
    assert len(NOTEBOOKS) == 15
    missing = [p.name for p in NOTEBOOKS
               if not nbi18n.catalog_path(NOTEBOOK_DIR, p.stem, "fr").is_file()]
    assert not missing, (f"no French catalog for {missing}: "
                         "python docs/_ext/notebook_catalogs.py update")
    assert nbi18n.languages(NOTEBOOK_DIR) == ["fr"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_every_unit_is_translated_with_its_formulas_links_and_terms(path):
    po = nbi18n.catalog_path(NOTEBOOK_DIR, path.stem, "fr")
    if not po.is_file():
        pytest.fail(f"{path.name}: no French catalog {po.relative_to(REPO)}")
    catalog = nbi18n.read_catalog(po)
    problems = nbcat.check_catalog(path, catalog, GLOSSARY)
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems[:40])
    # and the catalog is the notebook's: as many entries as distinct units
    units = {u.text for u in nbi18n.notebook_units(nbformat.read(str(path), as_version=4))}
    assert {m.id for m in catalog if m.id} == units


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_the_french_notebook_holds_the_english_code_cells(path, french, tmp_path):
    from jupyter_cache.cache.main import JupyterCacheBase

    english = nbformat.read(str(path), as_version=4)
    fr = french[path.name]
    assert fr.metadata["language"] == "fr"
    assert fr.metadata["kernelspec"] == english.metadata["kernelspec"]
    assert [c.cell_type for c in fr.cells] == [c.cell_type for c in english.cells]
    assert [c.get("id") for c in fr.cells] == [c.get("id") for c in english.cells]
    for en_cell, fr_cell in zip(english.cells, fr.cells):
        if en_cell.cell_type == "code":
            assert fr_cell == en_cell, f"{path.name}: code cell {en_cell.get('id')} differs"
    # what the jupyter-cache hashes (code cells, their metadata, the kernelspec) is the same,
    # so a cached execution of one language is the other's
    cache = JupyterCacheBase(str(tmp_path / "cache"))
    assert cache.create_hashed_notebook(fr)[1] == cache.create_hashed_notebook(english)[1]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_every_markdown_cell_is_french_with_the_english_structure(path, french):
    english = nbformat.read(str(path), as_version=4)
    fr = french[path.name]
    for i, (en_cell, fr_cell) in enumerate(zip(english.cells, fr.cells)):
        if en_cell.cell_type != "markdown":
            continue
        en_lines, fr_lines = en_cell.source.split("\n"), fr_cell.source.split("\n")
        assert nbcat._blocks(fr_lines) == nbcat._blocks(en_lines), (path.name, i)
        # an English sentence kept whole (a table row of names and formulas may stay as it is)
        left = [u.text for u in nbi18n.markdown_units(en_cell.source)
                if len(nbcat._ENGLISH_WORDS.findall(nbcat._prose(u.text))) >= 2
                and u.text in fr_cell.source]
        assert not left, f"{path.name}: cell {i} keeps English text: {left[0][:60]!r}"


def test_the_units_rebuild_every_notebook_exactly():
    """Each unit's text put back in its place (the identity translation) gives the notebook
    byte for byte: nothing of a Markdown cell is lost or added by the split."""
    from babel.messages.catalog import Catalog

    for path in NOTEBOOKS:
        nb = nbformat.read(str(path), as_version=4)
        identity = Catalog(locale="fr")
        for unit in nbi18n.notebook_units(nb):
            identity.add(unit.text, unit.text)
        out, missing = nbi18n.translate_notebook(nb, identity)
        assert not missing
        # (the links to live dashboards also ask for the language: see the next test)
        rebuilt = [re.sub(r"[?&]lang=fr(?=\))", "", c.source) for c in out.cells]
        assert rebuilt == [c.source for c in nb.cells], path.name


def test_units_of_a_markdown_text():
    source = ("# A title\n\nSome text with $x^2$\nover two lines.\n\n$$\\int f$$\n\n"
              "* an item\n  continued\n* another, `code`\n\n> a quote\n> on two lines\n\n"
              "| name | value |\n|---|---|\n| one | $k$ |\n| $x$ | $y$ |\n\n```python\nx = 1\n```\n")
    units = nbi18n.markdown_units(source)
    assert [(u.kind, u.text) for u in units] == [
        ("heading", "A title"),
        ("paragraph", "Some text with $x^2$\nover two lines."),
        ("list item", "an item\ncontinued"),
        ("list item", "another, `code`"),
        ("quote", "a quote\non two lines"),
        ("table row", "| name | value |"),
        ("table row", "| one | $k$ |"),
    ]   # the math block, the row of formulas alone and the code fence are not translated
    assert units[2].render("un élément\nsur deux lignes") == ["* un élément", "  sur deux lignes"]
    assert units[4].render("une citation\n\nen deux") == ["> une citation", ">", "> en deux"]


def _unit(kind, text):
    return next(u for u in nbi18n.markdown_units(
        {"paragraph": text, "list item": "* " + text, "table row": f"{text}\n|---|---|"}[kind])
        if u.kind == kind)


@pytest.mark.parametrize("english, french, problem", [
    ("The margin $\\gamma = 1/\\|w\\|$ grows.", "La marge $\\gamma = 1/\\|w\\|$ croît.", None),
    ("The margin $\\gamma = 1/\\|w\\|$ grows.", "La marge $\\gamma = 1/\\|w\\|$ croît, $C$.",
     "formulas differ"),
    ("The margin $\\gamma = 1/\\|w\\|$ grows.", "La marge $\\gamma = 1/|w|$ croît.",
     "formulas differ"),
    ("The margin $$M$$ grows.", "La marge $M$ croît.", "formulas differ"),
    ("See [the page](http://a.org/x?y=1).", "Voir [la page](http://a.org/x?y=2).",
     "link targets differ"),
    ("Set `C=1` and look.", "Mettez `C=10` et regardez.", "codes differ"),
    ("A long margin sentence\nthat wraps here.", "Une longue phrase sur la marge\n- qui commence une liste.",
     "Markdown structure differs"),
    ("The margin grows.", "La distance croît.", "glossary: 'margin' is 'marge'"),
    ("The margin grows with the data.", "La marge grows with the data.", "English left"),
    ("See Vapnik's \"Bounds on the error\".", "Voir « Bounds on the error » de Vapnik.", None),
    ("Two support vectors remain.", "Deux vecteurs de support restent.", None),
    ("The kernel ridge regression fits.", "La régression ridge à noyau s'ajuste.", None),
])
def test_check_translation_finds_what_is_lost(english, french, problem):
    problems = nbcat.check_translation(_unit("paragraph", english), french, GLOSSARY)
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems


def test_check_translation_of_list_items_and_table_rows():
    item = _unit("list item", "a margin item")
    assert nbcat.check_translation(item, "un élément de marge", GLOSSARY) == []
    assert nbcat.check_translation(item, "un élément de marge\n# titre", GLOSSARY)
    row = _unit("table row", "| margin | wide |")
    assert nbcat.check_translation(row, "| marge | large |", GLOSSARY) == []
    assert nbcat.check_translation(row, "| marge | large | en plus |", GLOSSARY)


def _tiny_notebook(path, paragraphs):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# The margin\n\n" + "\n\n".join(paragraphs)),
                nbformat.v4.new_code_cell("x = 1")]
    nbformat.write(nb, str(path))


def test_update_merges_a_changed_english_as_fuzzy_and_a_removed_one_as_obsolete(tmp_path):
    nb = tmp_path / "01_tiny.ipynb"
    _tiny_notebook(nb, ["The kernel is smooth.", "A removed sentence about nothing."])
    assert nbcat.update_catalogs(tmp_path)["01_tiny"][:3] == (3, 0, 0)
    po = nbi18n.catalog_path(tmp_path, "01_tiny")
    catalog = nbi18n.read_catalog(po)
    for message, french in zip([m for m in catalog if m.id],
                               ["La marge", "Le noyau est lisse.", "Une phrase retirée."]):
        message.string = french
    nbcat.write_catalog(catalog, po)
    assert nbcat.check_catalog(nb, nbi18n.read_catalog(po), GLOSSARY) == []
    assert nbcat.main(["build", "--notebooks", str(tmp_path), "--strict"]) == 0
    built = nbformat.read(str(tmp_path / "fr" / nb.name), as_version=4)
    assert built.cells[0].source == "# La marge\n\nLe noyau est lisse.\n\nUne phrase retirée."

    _tiny_notebook(nb, ["The kernel is very smooth."])           # the English changes
    assert nbcat.update_catalogs(tmp_path)["01_tiny"] == (2, 1, 1, True)
    catalog = nbi18n.read_catalog(po)
    changed = catalog.get("The kernel is very smooth.")
    assert changed.fuzzy and changed.string == "Le noyau est lisse."
    assert '#| msgid "The kernel is smooth."' in po.read_text(encoding="utf-8")  # for the translator
    assert "A removed sentence about nothing." in catalog.obsolete
    problems = nbcat.check_catalog(nb, catalog, GLOSSARY)
    assert len(problems) == 1 and "fuzzy" in problems[0] and "01_tiny.ipynb, cell 0" in problems[0]
    # a fuzzy translation is not used: the unit stays in English, and --strict says so
    assert nbcat.main(["build", "--notebooks", str(tmp_path), "--strict"]) == 1
    built = nbformat.read(str(tmp_path / "fr" / nb.name), as_version=4)
    assert built.cells[0].source == "# La marge\n\nThe kernel is very smooth."
    assert nbcat.main(["check", "--notebooks", str(tmp_path)]) == 1


def test_build_refuses_a_language_without_catalogs(tmp_path):
    _tiny_notebook(tmp_path / "a.ipynb", ["Text."])
    with pytest.raises(ValueError, match="lang='fr': no catalog"):
        nbi18n.build(tmp_path, "fr")
    with pytest.raises(ValueError, match="lang must name a translation"):
        nbi18n.build(tmp_path, "en")


def test_glossary_lines_are_complete_and_consistent():
    assert len(GLOSSARY) >= 80
    by_english = {}
    for term in GLOSSARY:
        assert term.source, f"{term.english!r}: no source given"
        by_english.setdefault(term.english.lower(), set()).add(term.french)
    twice = {e: f for e, f in by_english.items() if len(f) > 1}
    assert not twice, f"English terms with two French terms: {twice}"
    for english, french in (("kernel", "noyau"), ("support vector", "vecteur de support"),
                            ("Parzen windows", "fenêtres de Parzen"),
                            ("matching pursuit", "poursuite adaptative"),
                            ("radius-margin bound", "borne rayon-marge"),
                            ("active learning", "apprentissage actif")):
        assert french in by_english[english.lower()], english


def test_kernelnb_lab_opens_on_the_french_notebooks(tmp_path):
    from kernelnb.lab import cli

    _tiny_notebook(tmp_path / "01_tiny.ipynb", ["The kernel is smooth."])
    nbcat.update_catalogs(tmp_path)
    po = nbi18n.catalog_path(tmp_path, "01_tiny")
    catalog = nbi18n.read_catalog(po)
    for message, french in zip([m for m in catalog if m.id], ["La marge", "Le noyau est lisse."]):
        message.string = french
    nbcat.write_catalog(catalog, po)
    args, extra = cli.build_parser().parse_known_args(
        ["lab", "--notebooks", str(tmp_path), "--lang", "fr"])
    cmd = cli.lab_command(args, extra)
    assert f"--ServerApp.root_dir={tmp_path / 'fr'}" in cmd
    built = tmp_path / "fr" / "01_tiny.ipynb"
    assert "Le noyau est lisse." in built.read_text(encoding="utf-8")
    # a French notebook the student changed since is kept
    nb = nbformat.read(str(built), as_version=4)
    nb.cells[1].source = "x = 2  # mine"
    nbformat.write(nb, str(built))
    cli.lab_command(args, extra)
    assert "x = 2  # mine" in built.read_text(encoding="utf-8")
    # a folder without French catalogs: a clear refusal
    empty = tmp_path / "empty"
    empty.mkdir()
    args, extra = cli.build_parser().parse_known_args(
        ["lab", "--notebooks", str(empty), "--lang", "fr"])
    with pytest.raises(SystemExit, match="--lang fr: lang='fr': no catalog"):
        cli.lab_command(args, extra)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_a_french_chapter_opens_its_dashboards_in_french(path, french):
    """The links to live dashboards are the English chapter's, asking for French (lang=fr)."""
    link = re.compile(r"\((http://127\.0\.0\.1:8866/voila/render/[^)\s]+)\)")
    english = nbformat.read(str(path), as_version=4)
    en = [u for c in english.cells if c.cell_type == "markdown" for u in link.findall(c.source)]
    fr = [u for c in french[path.name].cells if c.cell_type == "markdown"
          for u in link.findall(c.source)]
    assert en and len(fr) == len(en), path.name
    for a, b in zip(en, fr):
        assert b == a + ("&" if "?" in a else "?") + "lang=fr", (a, b)
