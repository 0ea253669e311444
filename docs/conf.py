"""Sphinx configuration of kernelnb's book.

Build (from the repository root), with warnings as errors:

    python3 -m sphinx -W --keep-going -b html docs docs/_build/html

The book is made of: the course (the notebooks of ``notebooks/``, executed at build through a
jupyter-cache in ``docs/_build/.jupyter_cache``, so that a rebuild in which no code cell changed
executes nothing), a page per dashboard and the reproductions (both generated at build from the
code by the book's Sphinx extension, ``docs/_ext/kernelnb_book``), the API reference (autodoc of
each subpackage's public names, numpydoc docstrings read by ``sphinx.ext.napoleon``) and the
architecture notes. The theme is sphinx-book-theme; MathJax, plotly.js and the theme's fonts and
icons are served from the site, which loads nothing from another host.
"""
from __future__ import annotations

import os
import sys

# The checkout's package (with its compiled extensions built in place, ``pip install -e .``) or
# the installed one: the checkout comes first so that the pages describe these sources.
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))
# The book's own extension lives with the docs, not in the installed package: docs/_ext holds it
# (kernelnb_book) and its entry point for myst-nb (kernelnb_book.dist-info, which importlib.metadata
# finds on sys.path).
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "_ext")))

import kernelnb  # noqa: E402

project = "kernelnb"
author = "kernelnb contributors"
copyright = "kernelnb contributors"
release = version = kernelnb.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_nb",
    "sphinx_book_theme",
    "kernelnb_book",
    "kernelnb_course_book",  # exercise and quiz pages from kernelnb.course (docs/_ext)
    "kernelnb_speed",        # the speed page from benchmarks/results, the Binder link (docs/_ext)
]

# Unlabelled code blocks (the layer diagrams of architecture.md) are plain text; notebook cells
# and doctest blocks name their own language.
highlight_language = "text"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
root_doc = "index"

# --- the course notebooks: executed at build, outputs kept in a jupyter-cache ---
nb_execution_mode = "cache"
nb_execution_timeout = 600          # seconds a cell may run
nb_execution_raise_on_error = True  # a failing cell fails the build (the notebook and cell named)
nb_execution_show_tb = True
# No widget manager: require.js and the widgets' HTML manager would come from a CDN (the
# notebooks show plain plotly figures, drawn by the site's plotly.js).
nb_ipywidgets_js = {}
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_dmath_double_inline = True    # $$...$$ inside a paragraph, as JupyterLab reads it
myst_heading_anchors = 3

# --- API pages ---
# Inherited members too (SVC's predict is written once in a private base class), but only those
# written in kernelnb: scikit-learn's own (get_params, score, ...) are documented by scikit-learn.
autodoc_default_options = {"members": True, "undoc-members": True, "inherited-members": True,
                           "member-order": "bysource"}
autodoc_typehints = "none"          # the signatures and the numpydoc sections say the types
autodoc_mock_imports: list[str] = []
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_ivar = True            # "Attributes" as field lists (no duplicate object entries)
napoleon_use_rtype = False

# --- formulas: MathJax 3 served by the site (kernelnb_book copies it from the
# sphinx-mathjax-offline package into _static/mathjax) ---
mathjax_path = "mathjax/tex-chtml.js"
# (myst-parser sets the classes MathJax typesets: math, output_area, tex2jax_process)
# Screen readers: every formula carries its MathML (assistive MathML, hidden from sight), and
# MathJax's explorer is on, loaded with MathJax (not later by its menu, which would typeset the
# page twice): a formula is reached with Tab and read, and walked through with the arrow keys,
# by the speech rule engine, in French on French pages (kernelnb_book sets the locale per page).
# Its files, the rules of each language included, are served by the site (kernelnb_book).
mathjax3_config = {
    "tex": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]]},
    "loader": {"load": ["a11y/explorer"]},
    "options": {"menuOptions": {"settings": {"assistiveMml": True, "explorer": True}}},
}

# --- HTML: sphinx-book-theme, nothing loaded from another host ---
html_theme = "sphinx_book_theme"
html_title = f"kernelnb {release}"
html_static_path: list[str] = []
html_theme_options = {
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "navigation_with_keys": False,
    "show_navbar_depth": 1,
}
# pydata-sphinx-theme's light/dark switch starts on light (the plotly figures are drawn on white)
html_context = {"default_mode": "light"}
html_last_updated_fmt = None


def _defined_outside_kernelnb(obj):
    target = getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj
    module = getattr(target, "__module__", None)
    return module is not None and not module.startswith("kernelnb")


def _skip_foreign_members(app, what, name, obj, skip, options):
    """Members of a class written outside kernelnb (scikit-learn's mixins, and the
    ``set_<method>_request`` methods it adds to every estimator) are left out: their docstrings
    refer to scikit-learn's glossary, which these pages do not have."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    if what == "class" and _defined_outside_kernelnb(obj):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_members)
