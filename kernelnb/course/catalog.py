"""The course's translation catalog: extract its messages, merge them into the French catalog, and
say what is left to translate.

The messages are the texts marked with ``N_`` or ``_`` in ``kernelnb/course/`` (the chapter
sources, the checks' answers, the notebooks' fixed texts), extracted by Babel; the catalog is
``kernelnb/locale/fr/LC_MESSAGES/kernelnb_course.po`` (:func:`kernelnb.course._i18n.catalog_path`).
From the repository root::

    python -m kernelnb.course.catalog update   # new messages in, vanished ones marked obsolete
    python -m kernelnb.course.catalog check    # untranslated, fuzzy, or {fields} that differ
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from ._i18n import DOMAIN, catalog_path

__all__ = ["extract", "update", "problems", "main"]

_FIELD = re.compile(r"\{(\w*)\}")


def extract():
    """The course's messages, extracted from its sources.

    Returns
    -------
    babel.messages.catalog.Catalog
        Each msgid with the places it comes from.
    """
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir
    root = Path(__file__).resolve().parent
    catalog = Catalog(domain=DOMAIN, project="kernelnb", charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
            str(root), method_map=[("**.py", "python")], keywords={"_": None, "N_": None}):
        catalog.add(message, locations=[(f"kernelnb/course/{filename}", lineno)])
    return catalog


def update(lang="fr"):
    """Merge the extracted messages into ``lang``'s catalog (kept translations stay).

    Parameters
    ----------
    lang : str, default="fr"
        The catalog's language.

    Returns
    -------
    pathlib.Path
        The catalog written.
    """
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po
    template = extract()
    path = catalog_path(lang)
    if path.is_file():
        with open(path, "rb") as f:
            catalog = read_po(f, locale=lang, domain=DOMAIN)
    else:
        catalog = Catalog(locale=lang, domain=DOMAIN, project="kernelnb", charset="utf-8")
    catalog.update(template, no_fuzzy_matching=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        write_po(f, catalog, width=100, omit_header=False, ignore_obsolete=True)
    return path


def problems(lang="fr"):
    """What is left to do in ``lang``'s catalog.

    Parameters
    ----------
    lang : str, default="fr"
        The catalog's language.

    Returns
    -------
    list of tuple
        ``(msgid, why)`` for each message untranslated, fuzzy, with other fields than its
        msgid's or missing; empty when the catalog is complete.
    """
    from babel.messages.pofile import read_po
    with open(catalog_path(lang), "rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    wanted = {m.id for m in extract() if m.id}
    found = []
    for m in catalog:
        if not m.id or m.id not in wanted:
            continue
        if not m.string:
            found.append((m.id, "untranslated"))
        elif m.fuzzy:
            found.append((m.id, "fuzzy"))
        elif sorted(_FIELD.findall(m.id)) != sorted(_FIELD.findall(m.string)):
            found.append((m.id, "fields differ"))
    missing = wanted - {m.id for m in catalog}
    found.extend((m, "not in the catalog") for m in sorted(missing))
    return found


def main(argv=None):
    """``python -m kernelnb.course.catalog {update,check}``.

    Parameters
    ----------
    argv : list of str or None, default=None
        The arguments (None: ``sys.argv[1:]``).

    Returns
    -------
    int
        0, 1 when ``check`` found something left to translate, 2 for an unknown command.
    """
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["update"]:
        print(update())
        return 0
    if argv[:1] == ["check"]:
        left = problems()
        for msgid, why in left:
            print(f"{why}: {msgid[:100]!r}")
        return 1 if left else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
