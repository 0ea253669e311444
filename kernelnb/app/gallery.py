"""The dashboard gallery: which dashboards exist and the landing page that links them.

Adding a dashboard to kernelnb takes three things: an app class in :mod:`kernelnb.app`, a thin
notebook ``dashboards/<name>.ipynb`` that builds and displays it, and one :class:`Dashboard` entry
in :data:`DASHBOARDS` below. A thumbnail ``kernelnb/static/<name>.png`` (or ``.svg``) is optional:
without one the card shows a plain placeholder.

This module only describes and renders; serving lives in :mod:`kernelnb.server`.
"""
from __future__ import annotations

import html
import importlib.resources
import importlib.util
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Dashboard", "DASHBOARDS", "dashboards_dir", "static_dir", "thumbnail_file",
           "gallery_entries", "render_gallery"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Dashboard:
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
        File name of the thumbnail image in ``kernelnb/static/``.
    """

    name: str
    title: str
    purpose: str
    thumbnail: str = ""

    def __post_init__(self):
        if not self.name or "/" in self.name or self.name.endswith(".ipynb"):
            raise ValueError(f"Dashboard name must be a notebook stem without '/' or '.ipynb', "
                             f"got name={self.name!r}")
        if not self.thumbnail:
            object.__setattr__(self, "thumbnail", f"{self.name}.png")

    @property
    def notebook(self) -> str:
        """File name of the dashboard notebook."""
        return f"{self.name}.ipynb"


#: The dashboards of the gallery, in display order.
DASHBOARDS: list[Dashboard] = [
    Dashboard(
        "svm_playground", "SVM playground",
        "Fit an SVM on 2-D toy data: kernel, C and sigma on log sliders, decision surface with "
        "margins, support vectors free or at bound, errors and the C path.",
        "svm_playground.png"),
    Dashboard(
        "margin_losses", "Margin losses",
        "Every margin loss of kernelnb against m = y f(x), with derivatives, and the boundaries two "
        "losses fit on the same data.",
        "margin_losses.png"),
    Dashboard(
        "learning_curves", "Learning curves",
        "Training and test error against training-set size for several estimators and data sets, "
        "with the number of support points.",
        "learning_curves.png"),
    Dashboard(
        "kmp_playground", "Kernel Matching Pursuit",
        "Choose the number of support points N directly and compare with an SVM; the far-cluster "
        "example of the squared and tanh losses.",
        "kmp_playground.png"),
    Dashboard(
        "local_methods", "Local methods",
        "KNN, HKNN, CKNN and Parzen windows on 2-D data: K, lambda and h; click a point to see its "
        "neighbours, local hulls and projections.",
        "local_methods.png"),
    Dashboard(
        "density_explorer", "Density explorer",
        "Parzen against Manifold Parzen windows on the spiral: contours, local Gaussians and the "
        "test log-likelihood.",
        "density_explorer.png"),
    Dashboard(
        "bounds_explorer", "Bounds explorer",
        "Leave-one-out estimates and bounds of an SVM (span, radius-margin, Jaakkola-Haussler, "
        "Opper-Winther, xi-alpha) against log sigma or log C, next to the test error.",
        "bounds_explorer.png"),
    Dashboard(
        "feature_selection", "Feature selection",
        "Scaling factors inside the kernel optimised on the radius-margin bound, then backward "
        "elimination: the thesis's toys with their relevant features, and the digits' factor map.",
        "feature_selection.png"),
]


def _checkout_dir(name: str) -> Path | None:
    """``<repo>/<name>`` when kernelnb runs from a source checkout (editable install)."""
    candidate = Path(__file__).resolve().parents[2] / name
    if candidate.is_dir() and (candidate.parent / "pyproject.toml").is_file():
        return candidate
    return None


def dashboards_dir() -> Path:
    """Directory holding the dashboard notebooks: the package data ``kernelnb/dashboards``.

    In the repository ``kernelnb/dashboards`` is a symbolic link to the top-level ``dashboards/``
    folder, so the notebooks live at the top of the repository and a (non-editable) install copies
    them into the package. A source checkout's ``dashboards/`` is the fallback.
    """
    try:
        spec = importlib.util.find_spec("kernelnb.dashboards")
    except (ImportError, ValueError):
        spec = None
    for loc in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(loc).resolve()
        if path.is_dir() and any(path.glob("*.ipynb")):
            return path
    checkout = _checkout_dir("dashboards")
    if checkout is not None:
        return checkout
    raise FileNotFoundError(
        "kernelnb: no dashboards found (neither the package data 'kernelnb/dashboards' nor a "
        "'dashboards/' folder of a source checkout); pass --dashboards DIR")


def static_dir() -> Path:
    """Directory of kernelnb's static files (thumbnails, gallery CSS)."""
    return Path(__file__).resolve().parents[1] / "static"


def thumbnail_file(dashboard: Dashboard) -> Path | None:
    """Path of the dashboard's thumbnail, or None when it has none yet."""
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
                    dashboards: list[Dashboard] | None = None) -> list[Dashboard]:
    """Cards to show for ``directory``: registered dashboards present there, then any other notebook.

    A registered dashboard whose notebook is missing is left out (with a warning); a notebook that
    is not registered gets a card titled from its first markdown heading.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"dashboards directory {str(directory)!r} does not exist")
    dashboards = DASHBOARDS if dashboards is None else dashboards
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
            out.append(Dashboard(p.stem, _notebook_title(p), "A notebook of the dashboards folder.",
                                 f"{p.stem}.png"))
    return out


_PLACEHOLDER = ("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 320 200' role='img' "
                "aria-label='no thumbnail'><rect width='320' height='200' fill='#eef1f5'/>"
                "<text x='160' y='112' font-size='40' text-anchor='middle' fill='#8a94a6' "
                "font-family='sans-serif'>{initial}</text></svg>")


def render_gallery(directory: os.PathLike | str, render_prefix: str, static_prefix: str,
                   dashboards: list[Dashboard] | None = None) -> str:
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
    dashboards : list of Dashboard, optional
        Registry to use instead of :data:`DASHBOARDS`.

    Returns
    -------
    str
        A self-contained page (inline CSS, no external asset).
    """
    entries = gallery_entries(directory, dashboards)
    cards = []
    for d in entries:
        thumb = thumbnail_file(d)
        if thumb is not None:
            img = (f'<img src="{html.escape(static_prefix + thumb.name)}" alt="" '
                   f'loading="lazy" width="320" height="200">')
        else:
            svg = _PLACEHOLDER.format(initial=html.escape(d.title[:1].upper() or "?"))
            img = f'<div class="placeholder">{svg}</div>'
        href = html.escape(render_prefix + d.notebook)
        cards.append(
            f'<a class="card" href="{href}" data-dashboard="{html.escape(d.name)}">'
            f'{img}<h2>{html.escape(d.title)}</h2><p>{html.escape(d.purpose)}</p></a>')
    body = "\n".join(cards) if cards else '<p class="empty">No dashboard notebooks found.</p>'
    template = (importlib.resources.files("kernelnb") / "templates" / "gallery.html").read_text(
        encoding="utf-8")
    return template.replace("{{ cards }}", body).replace("{{ count }}", str(len(entries)))
