"""The lab's catalogs kept in step with the code: extract, update, check (Babel).

The strings marked in the lab's code (``_()``, ``N_()``; ``tr()`` in the error page's template)
and the Markdown cells of the dashboards' notebooks (their titles and texts, a message per
heading and paragraph: :func:`extract_notebook_markdown`) are extracted as ``kernelnb/locale/babel.cfg`` says into ``kernelnb/locale/kernelnb.pot``, and
merged into each language's catalog ``kernelnb/locale/<lang>/LC_MESSAGES/kernelnb.po``: a new
message arrives untranslated, a message gone from the code is dropped. The translator then fills
the ``.po``; :func:`problems` lists what is missing (the tests fail on any). The compiled
``kernelnb.mo`` is built by the package build (``setup.py``), never committed.

Command line, from the repository root::

    python -m kernelnb.lab.i18n.catalog update    # code -> kernelnb.pot -> each kernelnb.po
    python -m kernelnb.lab.i18n.catalog check     # untranslated, fuzzy or stale messages
"""
from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from . import DOMAIN, LANGUAGES, SOURCE_LANGUAGE, locale_dir

__all__ = ["KEYWORDS", "repository", "extract", "extract_notebook_markdown", "template_path",
           "catalog_path", "update", "problems", "main"]

#: The extraction keywords: gettext's own (``_``, ``ngettext``, ...), ``N_`` and ``tr``.
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "tr": None}


def repository() -> Path:
    """The source checkout the catalogs are extracted from (the folder of ``pyproject.toml``).

    Returns
    -------
    pathlib.Path
        The repository's root.
    """
    root = locale_dir().parents[1]
    if not (root / "pyproject.toml").is_file():
        raise FileNotFoundError(f"kernelnb's catalogs are extracted from a source checkout; "
                                f"{root} has no pyproject.toml")
    return root


def template_path() -> Path:
    """``kernelnb/locale/kernelnb.pot``.

    Returns
    -------
    pathlib.Path
        The template of the catalogs.
    """
    return locale_dir() / f"{DOMAIN}.pot"


def catalog_path(lang) -> Path:
    """The ``.po`` catalog of ``lang``.

    Parameters
    ----------
    lang : str
        One of :data:`kernelnb.lab.i18n.LANGUAGES` other than English.

    Returns
    -------
    pathlib.Path
        ``kernelnb/locale/<lang>/LC_MESSAGES/kernelnb.po``.
    """
    return locale_dir() / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract():
    """The messages marked in the code, as a Babel catalog (each with the files it is in).

    Returns
    -------
    babel.messages.catalog.Catalog
        Every message once, with the files that use it.
    """
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir
    from babel.messages.frontend import parse_mapping_cfg

    root = repository()
    with open(locale_dir() / "babel.cfg", encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f)
    catalog = Catalog(project="kernelnb", domain=DOMAIN, charset="utf-8",
                      fuzzy=False)
    for filename, _lineno, message, comments, context in extract_from_dir(
            root, method_map, options_map, keywords=KEYWORDS,
            directory_filter=lambda d: _in_package(root, d)):
        catalog.add(message, None, [(filename, None)], auto_comments=comments, context=context)
    return catalog


def _in_package(root, folder):
    """Whether Babel walks ``folder``: the package's folders and the dashboards' notebooks, not
    caches or the checkout's rest."""
    rel = Path(folder).resolve().relative_to(root)
    return (rel.parts[:1] in (("kernelnb",), ("dashboards",))
            and not any(p.startswith((".", "__")) for p in rel.parts))


def extract_notebook_markdown(fileobj, keywords, comment_tags, options):
    """Babel extractor of a notebook's Markdown cells, a message per heading and paragraph.

    The dashboards' titles and texts, shown above each dashboard: each heading's text and each
    paragraph is a message (:func:`kernelnb.lab.i18n.markdown_units`).

    Parameters
    ----------
    fileobj : file
        The notebook, opened in binary mode.
    keywords, comment_tags : iterable
        Babel's (not used: every Markdown unit is a message).
    options : dict
        Babel's options (not used).

    Yields
    ------
    tuple
        ``(cell number, "_", message, [])``, Babel's extractor record.
    """
    import json

    from . import markdown_units
    notebook = json.loads(fileobj.read().decode("utf-8"))
    for k, cell in enumerate(notebook.get("cells", []), start=1):
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        for unit in markdown_units("".join(source) if isinstance(source, list) else source):
            yield k, "_", unit, []


def _write(catalog, path, **kwargs):
    from babel.messages.pofile import write_po
    buf = io.BytesIO()
    write_po(buf, catalog, sort_output=True, include_lineno=False, width=100,
             omit_header=False, **kwargs)
    text = buf.getvalue()
    old = path.read_bytes() if path.is_file() else b""
    # the header's dates change on every write: keep a file whose messages are the same
    strip = (lambda b: b"\n".join(line for line in b.splitlines()
                                  if not line.startswith((b'"POT-Creation-Date',
                                                          b'"PO-Revision-Date'))))
    if strip(old) != strip(text):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text)
        return True
    return False


def _read(path, lang=None):
    from babel.messages.pofile import read_po
    with open(path, "rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def update():
    """Extract the code's messages into ``kernelnb.pot`` and merge them into every catalog.

    Returns
    -------
    list of pathlib.Path
        The files written (a file whose messages did not change is left as it is).
    """
    from babel.messages.catalog import Catalog
    template = extract()
    written = []
    if _write(template, template_path()):
        written.append(template_path())
    for lang in LANGUAGES:
        if lang == SOURCE_LANGUAGE:
            continue
        path = catalog_path(lang)
        catalog = _read(path, lang) if path.is_file() else Catalog(locale=lang, domain=DOMAIN,
                                                                   project="kernelnb")
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        if _write(catalog, path, ignore_obsolete=True):
            written.append(path)
    return written


def problems(lang):
    """What keeps ``lang``'s catalog from matching the code: each a line of text.

    Parameters
    ----------
    lang : str
        A language of :data:`kernelnb.lab.i18n.LANGUAGES` other than English.

    Returns
    -------
    list of str
        Messages of the code the catalog lacks, messages it holds that the code no longer has,
        and messages untranslated or fuzzy; empty when the catalog is complete.
    """
    code = {m.id for m in extract() if m.id}
    catalog = _read(catalog_path(lang), lang)
    held = {m.id: m for m in catalog if m.id}
    out = [f"not in the catalog (run 'python -m kernelnb.lab.i18n.catalog update'): {m!r}"
           for m in sorted(code - set(held), key=str)]
    out += [f"no longer in the code: {m!r}" for m in sorted(set(held) - code, key=str)]
    for mid, m in sorted(held.items(), key=lambda kv: str(kv[0])):
        strings = m.string if isinstance(m.string, (list, tuple)) else [m.string]
        if m.fuzzy:
            out.append(f"fuzzy: {mid!r}")
        elif not all(strings):
            out.append(f"untranslated: {mid!r}")
    return out


def main(argv=None):
    """The command line (``update`` or ``check``).

    Parameters
    ----------
    argv : list of str or None
        The arguments (None: the command line's).

    Returns
    -------
    int
        The exit status.
    """
    parser = argparse.ArgumentParser(prog="python -m kernelnb.lab.i18n.catalog",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("update", "check"))
    args = parser.parse_args(argv)
    if args.command == "update":
        for path in update():
            print(f"wrote {path.relative_to(repository())}")
        return 0
    found = [f"{lang}: {p}" for lang in LANGUAGES if lang != SOURCE_LANGUAGE
             for p in problems(lang)]
    print("\n".join(found) or "every message is translated")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
