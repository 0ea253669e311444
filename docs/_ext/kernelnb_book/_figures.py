"""plotly figures in the book's static pages, drawn by the plotly.js that the site serves.

A notebook cell that shows a plotly figure (``fig.show()`` with plotly's ``plotly_mimetype``
renderer, as under JupyterLab) outputs the figure as JSON (``application/vnd.plotly.v1+json``).
A static page cannot draw that by itself, and plotly's HTML renderers either fetch plotly.js from
a CDN or embed its 4.8 MB in the first figure of every page. So the book renders that output as a
``<div class="kernelnb-plotly">`` holding the figure's JSON; ``kernelnb-book.js`` (served by the
site) draws every such div with the plotly.js copy that the ``plotly`` package ships, which the
site serves too and loads once, only on the pages that have a figure.

:class:`PlotlyMimeRenderer` is registered with myst-nb as a mime renderer: myst-nb finds those only
through the entry point group ``myst_nb.mime_renderers`` (MyST-NB issue #470), which
``docs/_ext/kernelnb_book.dist-info/entry_points.txt`` declares; importlib.metadata reads that
folder because ``docs/conf.py`` puts ``docs/_ext`` on ``sys.path``, so nothing is installed for
it. It acts only in a Sphinx project that loads :mod:`kernelnb_book` (elsewhere it declines, and
myst-nb goes on as without it).
"""
from __future__ import annotations

import html
import json

__all__ = ["PLOTLY_MIME", "FIGURE_CLASS", "figure_html", "PlotlyMimeRenderer"]

#: The mime type of a plotly figure in a notebook's outputs.
PLOTLY_MIME = "application/vnd.plotly.v1+json"
#: The class of the div that holds one figure (found by ``kernelnb-book.js`` and the tests).
FIGURE_CLASS = "kernelnb-plotly"


def _json_for_script(spec):
    """``spec`` as JSON that can sit inside a ``<script>`` element (no ``</`` in it)."""
    text = json.dumps(spec, separators=(",", ":"), allow_nan=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def figure_html(spec, *, css_class="", label=""):
    """The book's HTML for one plotly figure.

    Parameters
    ----------
    spec : dict
        The figure as plotly's JSON (``data``, ``layout``, optionally ``frames`` and ``config``);
        plotly's typed arrays (``{"dtype": ..., "bdata": ...}``) are kept as they are.
    css_class : str, default=""
        More CSS classes for the div.
    label : str, default=""
        An accessible name for the figure (``aria-label``).

    Returns
    -------
    str
        A ``div`` of class :data:`FIGURE_CLASS` whose JSON ``kernelnb-book.js`` draws.
    """
    if not isinstance(spec, dict) or "data" not in spec:
        raise ValueError(f"spec must be a plotly figure dict with 'data', got {type(spec).__name__}")
    height = (spec.get("layout") or {}).get("height") or 450
    classes = " ".join(filter(None, [FIGURE_CLASS, css_class]))
    # a figure (not an image: it holds controls, plotly's tool bar and the lesson's slider)
    aria = f' role="figure" aria-label="{html.escape(label)}"' if label else ""
    return (f'<div class="{classes}" style="min-height:{int(height)}px"{aria}>'
            f'<script type="application/json">{_json_for_script(spec)}</script></div>')


def _in_kernelnb_book(renderer):
    try:
        return bool(renderer.renderer.sphinx_env.config.kernelnb_book)
    except AttributeError:  # docutils alone, or another project's Sphinx build
        return False


class PlotlyMimeRenderer:
    """myst-nb mime renderer: a plotly figure output becomes :func:`figure_html`'s div.

    Only in a Sphinx project with :mod:`kernelnb_book` among its extensions; elsewhere it
    returns None and myst-nb renders the output as it would without kernelnb.
    """

    #: plotly's JSON comes before every other form of a figure, in the HTML builder only.
    mime_priority_overrides = [("html", PLOTLY_MIME, 5), ("dirhtml", PLOTLY_MIME, 5),
                               ("singlehtml", PLOTLY_MIME, 5)]

    @staticmethod
    def handle_mime(renderer, data, inline):
        """The nodes for ``data`` when it is a plotly figure in kernelnb's book, else None.

        Parameters
        ----------
        renderer : myst_nb.core.render.NbElementRenderer
            myst-nb's element renderer.
        data : myst_nb.core.render.MimeData
            One output's content and mime type.
        inline : bool
            Whether the output is inline (a glued value): plotly figures are never inline.

        Returns
        -------
        list of docutils.nodes.Node or None
        """
        if inline or data.mime_type != PLOTLY_MIME or not _in_kernelnb_book(renderer):
            return None
        from docutils import nodes
        spec = data.content
        if isinstance(spec, str):
            spec = json.loads(spec)
        return [nodes.raw("", figure_html(spec), format="html", classes=["output", "plotly"])]
