"""Reading a gettext catalog: the compiled ``.mo``, or its ``.po`` compiled in memory when that is
newer (a source checkout, where a translator has just edited it).

Used by the lab's messages (:mod:`kernelnb.lab.i18n`, domain ``kernelnb``) and by the course's
(:mod:`kernelnb.course`, domain ``kernelnb_course``); Babel compiles a ``.po`` when it is
installed, else the ``.mo`` the package's build wrote is read.
"""
from __future__ import annotations

import gettext as _gettext
import io
import logging
from pathlib import Path

__all__ = ["read_catalog"]

log = logging.getLogger(__name__)


def _compiled(po: Path):
    """A catalog compiled in memory from ``po`` (Babel), or None when Babel is missing."""
    try:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
    except ImportError:
        return None
    with open(po, "rb") as f:
        catalog = read_po(f)
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return _gettext.GNUTranslations(buf)


def read_catalog(folder, domain, what):
    """The translations of ``folder/<domain>.mo`` (or of the newer ``.po`` beside it).

    Parameters
    ----------
    folder : path-like
        The catalog's ``LC_MESSAGES`` folder.
    domain : str
        The gettext domain (the files' stem).
    what : str
        Who speaks English when the catalog cannot be read (for the log's warning).

    Returns
    -------
    gettext.NullTranslations
        The catalog; the null catalog (English) when neither file can be read.
    """
    folder = Path(folder)
    mo, po = folder / f"{domain}.mo", folder / f"{domain}.po"
    try:
        if po.is_file() and (not mo.is_file() or po.stat().st_mtime > mo.stat().st_mtime):
            compiled = _compiled(po)
            if compiled is not None:
                return compiled
        with open(mo, "rb") as f:
            return _gettext.GNUTranslations(f)
    except OSError as exc:
        log.warning("kernelnb: no %s catalog (%s): %s speaks English", folder.parent.name, exc,
                    what)
        return _gettext.NullTranslations()
