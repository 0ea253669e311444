"""The dashboard gallery: which dashboards exist and the landing page that links them.

The gallery's cards are the dashboards of :data:`kernelnb.lab.app.REGISTRY`, in its order, each
described by its class's attributes ``title``, ``purpose``, ``notebook`` (stem of its notebook in
``dashboards/``) and ``thumbnail`` (optional, default ``<notebook>.png`` in
``kernelnb/lab/static/``), written as literals (or ``N_(literal)``) in the class's own body. They
are read from the source, not imported (:func:`registry_cards`), so that the server and
``kernelnb serve --preheat`` list the dashboards without loading every dashboard's scikit-learn,
plotly and estimators. Adding a dashboard takes its class, its row in the registry and its
two-cell notebook ``dashboards/<notebook>.ipynb`` (a markdown title, then a cell that builds and
shows it); without a thumbnail the card shows a plain placeholder.

The page speaks the reader's language (:func:`render_gallery`'s ``lang``): the cards' titles and
purposes are the classes' msgids translated, with a switch between the lab's languages; a
language the reader chose in the URL is kept on the cards' links.

This module only describes and renders; serving lives in :mod:`kernelnb.lab.server`.
"""
from __future__ import annotations

import ast
import functools
import html
import importlib.resources
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from .. import i18n
from ..i18n import N_

__all__ = ["GalleryEntry", "DASHBOARDS", "registry_cards", "dashboard_entries", "dashboards_dir",
           "static_dir", "thumbnail_file", "gallery_entries", "render_gallery"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GalleryEntry:
    """One card of the gallery.

    Parameters
    ----------
    name : str
        Stem of the notebook in ``dashboards/`` (``svm_playground`` for ``svm_playground.ipynb``).
    title : str
        Card title.
    purpose : str
        One line saying what a student learns or does with it.
    thumbnail : str
        File name of the thumbnail image in ``kernelnb/lab/static/``.
    class_name, module : str
        The dashboard class and its module in :mod:`kernelnb.lab.app` (empty for a notebook of the
        folder that no class describes).
    """

    name: str
    title: str
    purpose: str
    thumbnail: str = ""
    class_name: str = ""
    module: str = ""

    def __post_init__(self):
        if not self.name or "/" in self.name or self.name.endswith(".ipynb"):
            raise ValueError(f"GalleryEntry name must be a notebook stem without '/' or '.ipynb', "
                             f"got name={self.name!r}")
        if not self.thumbnail:
            object.__setattr__(self, "thumbnail", f"{self.name}.png")

    @property
    def notebook(self) -> str:
        """File name of the dashboard notebook."""
        return f"{self.name}.ipynb"


#: The class attributes a card is made of, each written in the dashboard class's own body.
CARD_ATTRIBUTES = ("notebook", "title", "purpose", "thumbnail")
_REQUIRED = ("notebook", "title", "purpose")


def _class_attributes(cls: ast.ClassDef, where: str) -> dict:
    """The literal values of the card attributes assigned in ``cls``'s own body."""
    values = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        for t in targets:
            if isinstance(t, ast.Name) and t.id in CARD_ATTRIBUTES:
                if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                        and value.func.id == "N_" and len(value.args) == 1
                        and not value.keywords):
                    value = value.args[0]       # N_("text"): a message, translated when shown
                try:
                    values[t.id] = ast.literal_eval(value)
                except ValueError:
                    raise ValueError(f"{where}.{t.id} must be a literal or N_(literal) (the "
                                     f"gallery reads it from the source without importing the "
                                     f"dashboard)") from None
    return values


def registry_cards(registry=None, package_dir: os.PathLike | str | None = None
                   ) -> list[GalleryEntry]:
    """The gallery's cards of the dashboards of a registry, in the registry's order.

    Each card is read from its class's own body in its module's source, not imported: the
    server, ``kernelnb serve --preheat`` and the gallery list the dashboards without loading
    their scikit-learn, plotly and estimators. ``tests/lab/app/test_registry.py`` checks that
    what is read is what the imported classes hold.

    Parameters
    ----------
    registry : sequence of (str, str), optional
        (module, class name) pairs; default :data:`kernelnb.lab.app.REGISTRY`.
    package_dir : path-like, optional
        Folder of the modules; default this package's.

    Returns
    -------
    list of GalleryEntry
        One card per row of the registry.

    Raises
    ------
    ValueError
        When a registered class or module is missing, a card attribute is not written as a
        literal in the class's own body, or two classes share a notebook.
    """
    if registry is None:
        from ..app import REGISTRY as registry
    if package_dir is None:
        package_dir = Path(__file__).resolve().parents[1] / "app"     # kernelnb/lab/app
    package_dir = Path(package_dir)
    trees = {}
    cards = []
    for module, class_name in registry:
        where = f"kernelnb.lab.app.{module}.{class_name}"
        if module not in trees:
            path = package_dir / f"{module}.py"
            if not path.is_file():
                raise ValueError(f"the registry names {where}, but {path.name} does not exist")
            trees[module] = ast.parse(path.read_text(encoding="utf-8"), filename=path.name)
        node = next((n for n in trees[module].body
                     if isinstance(n, ast.ClassDef) and n.name == class_name), None)
        if node is None:
            raise ValueError(f"the registry names {where}, but {module}.py defines no class "
                             f"{class_name}")
        values = _class_attributes(node, where)
        missing = [a for a in _REQUIRED if not values.get(a)]
        if missing:
            raise ValueError(f"dashboard class {where} has no {missing[0]!r} attribute in its "
                             f"own body (the card's {', '.join(_REQUIRED)})")
        cards.append(GalleryEntry(values["notebook"], values["title"], values["purpose"],
                                  values.get("thumbnail", ""), class_name=class_name,
                                  module=module))
    names = [c.name for c in cards]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"several dashboard classes share the notebook(s) {twice}")
    return cards


@functools.lru_cache(maxsize=1)
def _dashboards() -> tuple:
    return tuple(registry_cards())


def dashboard_entries() -> list[GalleryEntry]:
    """The gallery's cards, one per dashboard of :data:`kernelnb.lab.app.REGISTRY`, in its order.

    The classes' source is read once (:func:`registry_cards`), then kept.

    Returns
    -------
    list of GalleryEntry
        A new list at each call.
    """
    return list(_dashboards())


def __getattr__(name):
    if name == "DASHBOARDS":          # read from the classes' source when first asked for
        return dashboard_entries()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _checkout_dir(name: str) -> Path | None:
    """``<repo>/<name>`` when kernelnb runs from a source checkout (editable install)."""
    candidate = Path(__file__).resolve().parents[3] / name
    if candidate.is_dir() and (candidate.parent / "pyproject.toml").is_file():
        return candidate
    return None


def dashboards_dir() -> Path:
    """Directory holding the dashboard notebooks.

    An installed kernelnb carries them as package data in ``kernelnb/lab/dashboards`` (the build
    copies the repository's top-level ``dashboards/`` there: see ``setup.py``); an editable
    install from a source checkout reads the checkout's ``dashboards/``.

    Returns
    -------
    pathlib.Path
        The folder of the ``*.ipynb`` dashboards.
    """
    installed = Path(__file__).resolve().parents[1] / "dashboards"
    if installed.is_dir() and any(installed.glob("*.ipynb")):
        return installed
    checkout = _checkout_dir("dashboards")
    if checkout is not None:
        return checkout
    raise FileNotFoundError(
        "kernelnb: no dashboards found (neither the package data 'kernelnb/lab/dashboards' nor a "
        "'dashboards/' folder of a source checkout); pass --dashboards DIR")


def static_dir() -> Path:
    """Directory of kernelnb's static files (thumbnails, gallery CSS).

    Returns
    -------
    pathlib.Path
        The ``static`` folder of the package.
    """
    return Path(__file__).resolve().parents[1] / "static"


def thumbnail_file(dashboard: GalleryEntry) -> Path | None:
    """Path of a card's thumbnail image.

    Parameters
    ----------
    dashboard : GalleryEntry
        The card; its ``thumbnail`` is looked for in :func:`static_dir`, then
        ``<name>.png`` and ``<name>.svg``.

    Returns
    -------
    pathlib.Path or None
        The first of these files that exists, or None when the dashboard has no thumbnail yet.
    """
    for name in (dashboard.thumbnail, f"{dashboard.name}.png", f"{dashboard.name}.svg"):
        if name:
            p = static_dir() / name
            if p.is_file():
                return p
    return None


def _notebook_title(path: Path) -> str:
    """First markdown heading of a notebook, else its stem."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "markdown":
                src = "".join(cell.get("source", ""))
                for line in src.splitlines():
                    if line.startswith("#"):
                        return line.lstrip("#").strip()
    except (OSError, ValueError):
        pass
    return path.stem.replace("_", " ").capitalize()


def gallery_entries(directory: os.PathLike | str,
                    dashboards: list[GalleryEntry] | None = None) -> list[GalleryEntry]:
    """Cards to show for a folder of notebooks.

    A dashboard class whose notebook is missing is left out (with a warning); a notebook that no
    class describes gets a card titled from its first markdown heading.

    Parameters
    ----------
    directory : path-like
        Folder of the dashboard notebooks (``*.ipynb``); it must exist.
    dashboards : list of GalleryEntry, optional
        Cards to use instead of the dashboard classes' (:func:`dashboard_entries`).

    Returns
    -------
    list of GalleryEntry
        The dashboards whose notebook is in ``directory``, in their order, then one card per
        other notebook there, by file name.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"dashboards directory {str(directory)!r} does not exist")
    dashboards = dashboard_entries() if dashboards is None else dashboards
    present = {p.name: p for p in sorted(directory.glob("*.ipynb"))}
    out = []
    for d in dashboards:
        if d.notebook in present:
            out.append(d)
        else:
            log.warning("kernelnb: dashboard %r has no notebook %s in %s", d.title, d.notebook,
                        directory)
    known = {d.notebook for d in dashboards}
    for fname, p in present.items():
        if fname not in known:
            out.append(GalleryEntry(p.stem, _notebook_title(p), _OTHER_NOTEBOOK,
                                    f"{p.stem}.png"))
    return out


#: The gallery's own texts (msgids), and a notebook's card that no class describes.
_TEXTS = {
    "title": N_("kernelnb dashboards"),
    "tagline": N_("A kernel-methods lab: pick a dashboard, move the sliders, watch the model "
                  "change."),
    "footer": N_("Served by Voilà; code cells are hidden. The notebooks run in a kernel on this "
                 "machine."),
    "empty": N_("No dashboard notebooks found."),
    "switch": N_("Language"),
}
_OTHER_NOTEBOOK = N_("A notebook of the dashboards folder.")

_PLACEHOLDER = ("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 320 200' role='img' "
                "aria-label='no thumbnail'><rect width='320' height='200' fill='#eef1f5'/>"
                "<text x='160' y='112' font-size='40' text-anchor='middle' fill='#8a94a6' "
                "font-family='sans-serif'>{initial}</text></svg>")


def _language_switch(lang):
    """Links to the gallery in each language, the current one marked."""
    links = []
    for code in i18n.LANGUAGES:
        name = html.escape(i18n.LANGUAGE_NAMES[code])
        if code == lang:
            links.append(f'<strong lang="{code}" aria-current="page">{name}</strong>')
        else:
            links.append(f'<a lang="{code}" hreflang="{code}" href="?lang={code}">{name}</a>')
    label = html.escape(i18n.translate(_TEXTS["switch"], lang))
    return (f'<nav class="lang" aria-label="{label}" data-lang="{lang}">'
            + " · ".join(links) + "</nav>")


def render_gallery(directory: os.PathLike | str, render_prefix: str, static_prefix: str,
                   dashboards: list[GalleryEntry] | None = None, lang: str | None = None,
                   keep_lang: bool = False) -> str:
    """HTML of the gallery page.

    Parameters
    ----------
    directory : path
        Folder of the dashboard notebooks (see :func:`gallery_entries`).
    render_prefix : str
        URL prefix of Voila's render handler, e.g. ``/voila/render/``; a card links to
        ``render_prefix + name + '.ipynb'``.
    static_prefix : str
        URL prefix under which the files of :func:`static_dir` are served.
    dashboards : list of GalleryEntry, optional
        Cards to use instead of the dashboard classes' (:func:`dashboard_entries`).
    lang : str or None, default=None
        The page's language (None: :func:`kernelnb.lab.i18n.default_language`).
    keep_lang : bool, default=False
        Whether the cards' links carry ``?lang=``: the reader chose the language in the URL, and
        the dashboards follow that choice rather than their browser's.

    Returns
    -------
    str
        A self-contained page (inline CSS, no external asset).
    """
    lang = i18n.supported(lang) or i18n.default_language()

    def tr(message):
        return i18n.translate(message, lang)

    entries = gallery_entries(directory, dashboards)
    query = "?" + urlencode({"lang": lang}) if keep_lang else ""
    cards = []
    for d in entries:
        thumb = thumbnail_file(d)
        if thumb is not None:
            img = (f'<img src="{html.escape(static_prefix + thumb.name)}" alt="" '
                   f'loading="lazy" width="320" height="200">')
        else:
            svg = _PLACEHOLDER.format(initial=html.escape(tr(d.title)[:1].upper() or "?"))
            img = f'<div class="placeholder">{svg}</div>'
        href = html.escape(render_prefix + d.notebook + query)
        cards.append(
            f'<a class="card" href="{href}" data-dashboard="{html.escape(d.name)}">'
            f'{img}<h2>{html.escape(tr(d.title))}</h2><p>{html.escape(tr(d.purpose))}</p></a>')
    body = ("\n".join(cards) if cards
            else f'<p class="empty">{html.escape(tr(_TEXTS["empty"]))}</p>')
    template = (importlib.resources.files("kernelnb.lab") / "templates" / "gallery.html").read_text(
        encoding="utf-8")
    fields = {"lang": lang, "title": html.escape(tr(_TEXTS["title"])),
              "tagline": html.escape(tr(_TEXTS["tagline"])),
              "footer": html.escape(tr(_TEXTS["footer"])), "switch": _language_switch(lang),
              "count": str(len(entries))}
    for key, value in fields.items():
        template = template.replace("{{ " + key + " }}", value)
    return template.replace("{{ cards }}", body)
