"""Sphinx configuration of kernelnb's documentation.

Build (from the repository root; nothing is executed, nothing is fetched from another host):

    python3 -m sphinx -W --keep-going -b html docs docs/_build/html

Sources: ``index.md``, ``architecture.md``, the API pages under ``api/`` (autodoc of the public
names of each subpackage, docstrings in numpydoc style read by ``sphinx.ext.napoleon``) and the
course notebooks (copied from the repository's ``notebooks/`` into the git-ignored
``docs/notebooks/`` when the build starts: the repository holds no symbolic link), rendered by
myst-nb as they are stored, without running them.
"""
from __future__ import annotations

import os
import shutil
import sys

# The checkout's package (with its compiled extensions built in place, ``pip install -e .``) or
# the installed one: the checkout comes first so that the pages describe these sources.
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

import kernelnb  # noqa: E402


def _copy_notebooks():
    """``docs/notebooks/`` made anew from the repository's ``notebooks/*.ipynb``."""
    here = os.path.dirname(os.path.abspath(__file__))
    source = os.path.join(here, "..", "notebooks")
    target = os.path.join(here, "notebooks")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    for name in sorted(os.listdir(source)):
        if name.endswith(".ipynb"):
            shutil.copy2(os.path.join(source, name), os.path.join(target, name))


_copy_notebooks()

project = "kernelnb"
author = "kernelnb contributors"
copyright = "kernelnb contributors"
release = version = kernelnb.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_nb",
]

# Unlabelled code blocks (the layer diagrams of architecture.md) are plain text; notebook cells
# and doctest blocks name their own language.
highlight_language = "text"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
root_doc = "index"

# --- notebooks: rendered as stored, never executed ---
nb_execution_mode = "off"
# No widget manager: require.js and the widgets' HTML manager would come from a CDN.
nb_ipywidgets_js = {}
myst_enable_extensions = ["dollarmath", "amsmath"]
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

# --- HTML: builtin theme, and nothing loaded from another host ---
html_theme = "alabaster"
html_title = f"kernelnb {release}"
html_static_path: list[str] = []
html_theme_options = {"description": "A kernel-methods lab", "fixed_sidebar": True,
                      "show_relbars": True}
# Math stays as TeX in the page (``\(...\)``), with no MathJax from a CDN; see ``_plain_math``.
html_math_renderer = "kernelnb_plain"


def _plain_math(app):
    """A math renderer for HTML that writes the TeX source and loads no script.

    Sphinx's default renderer (MathJax) fetches its script from a CDN, which the project's
    rule "nothing served is fetched from another host" excludes. The markup is the one MathJax
    reads, so a local MathJax copy can be added later without touching the pages.
    """
    from docutils import nodes
    from sphinx.util.math import get_node_equation_number, wrap_displaymath

    def visit_inline(self, node):
        self.body.append(self.starttag(node, "span", "", CLASS="math notranslate"))
        self.body.append(self.encode(f"\\({node.astext()}\\)") + "</span>")
        raise nodes.SkipNode

    def visit_block(self, node):
        self.body.append(self.starttag(node, "div", CLASS="math notranslate"))
        if node["number"]:
            number = get_node_equation_number(self, node)
            self.body.append(f'<span class="eqno">({number})</span>')
        if node.get("nowrap"):
            self.body.append(self.encode(node.astext()))
        else:
            self.body.append(self.encode(wrap_displaymath(node.astext(), None, False)))
        self.body.append("</div>\n")
        raise nodes.SkipNode

    app.add_html_math_renderer("kernelnb_plain", (visit_inline, None), (visit_block, None))


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
    _plain_math(app)
    app.connect("autodoc-skip-member", _skip_foreign_members)
