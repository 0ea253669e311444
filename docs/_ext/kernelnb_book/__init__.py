"""kernelnb's book: the Sphinx extension that turns ``docs/`` into the course's site.

It lives with the docs (``docs/_ext/kernelnb_book``), not in the installed package: only the
book's build uses it. ``docs/conf.py`` puts ``docs/_ext`` on ``sys.path`` and loads it
(``extensions = [..., "kernelnb_book"]``); it


* copies the course notebooks into the source tree (``docs/notebooks/``, git-ignored) and
  executes those whose code cells the jupyter-cache does not hold, two at a time, before Sphinx
  reads them (:mod:`kernelnb_book._execute`): myst-nb then renders every chapter from the
  cache, with its figures, tables and printed numbers, and a rebuild in which no code cell
  changed executes nothing;
* writes the course in each language its notebooks have catalogs for (``docs/fr/notebooks/``,
  git-ignored; :mod:`kernelnb.lab.i18n.notebooks`): the English notebooks with their prose
  translated and their code cells unchanged, so that the jupyter-cache serves them the English
  chapters' outputs and nothing is executed for them;
* writes a page per dashboard (``docs/dashboards/``, git-ignored) from the dashboard classes
  (:mod:`kernelnb_book._dashboards`): purpose, controls and their ranges, lessons with their
  sources, what each lesson's sweep found (computed at build, cached), the lesson figure that
  moves in the reader's browser, and links that open the live dashboard at a setting;
* serves what the pages need from the site itself: plotly.js (the copy the ``plotly`` package
  ships, loaded only on pages that have a figure), MathJax 3 (the files of the
  ``sphinx-mathjax-offline`` package: the TeX-to-HTML component, its TeX extensions and fonts),
  and ``kernelnb-book.js``, which draws the figures (:mod:`kernelnb_book._figures`).

Configuration values (``docs/conf.py``): ``kernelnb_live_url`` (where ``kernelnb serve`` answers;
default the ``KERNELNB_LIVE_URL`` environment variable, else ``http://127.0.0.1:8866``),
``kernelnb_binder_url`` (a Binder launch URL of the repository, e.g.
``https://mybinder.org/v2/gh/OWNER/kernelnb/HEAD``; default ``KERNELNB_BINDER_URL``, else none),
``kernelnb_notebooks`` (the notebooks' folder, relative to ``docs/``),
``kernelnb_notebook_workers`` (notebooks executed at once, default 2; dashboard pages computed at
once too), ``kernelnb_cache_path`` (where the computed pages are kept; default ``.kernelnb_cache``
beside the output folder), ``kernelnb_pages`` (False: no dashboard or reproduction pages, for a
project that only wants the course's notebooks executed), ``kernelnb_reproductions_results``
(the folder of the reproductions' results files, relative to ``docs/``, which the benchmarks
write with ``--results-dir``: :mod:`kernelnb_book._reproductions`).
"""
from __future__ import annotations

import fnmatch
import os
import re
import shutil
from pathlib import Path

__all__ = ["setup", "live_url", "rewrite_live_url", "static_dir", "mathjax_source",
           "cache_path"]

_HERE = Path(__file__).resolve().parent
DEFAULT_LIVE_URL = "http://127.0.0.1:8866"
#: The MathJax files the site serves (relative to the package's mathjax folder): the TeX input
#: with CommonHTML output, the TeX extensions it loads on demand, its fonts, its menu, its
#: accessibility components (assistive MathML, the explorer, and the MathML input that the
#: explorer's semantic enrichment loads) and the speech rule engine's rules per language
#: (``sre/mathmaps``: the explorer's speech, in French on French pages).
MATHJAX_PARTS = ("tex-chtml.js", "input/tex/extensions", "input/mml.js",
                 "output/chtml/fonts/woff-v2", "ui", "a11y", "sre/mathmaps")
#: The language of the book's pages when nothing says otherwise (``language`` in conf.py).
BOOK_LANGUAGE = "en"


def static_dir():
    """The folder of the book's own scripts and styles.

    Returns
    -------
    pathlib.Path
        ``docs/_ext/kernelnb_book/static`` (``kernelnb-book.js``, ``kernelnb-book.css``).
    """
    return _HERE / "static"


def mathjax_source():
    """The folder of MathJax 3 that the ``sphinx-mathjax-offline`` package ships.

    Returns
    -------
    pathlib.Path
        The package's ``static/mathjax`` folder (``tex-chtml.js`` and what it loads).

    Raises
    ------
    RuntimeError
        When that package is not installed (it is in kernelnb's ``docs`` extra).
    """
    import importlib.util
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or not spec.origin:
        raise RuntimeError("the book serves MathJax from the 'sphinx-mathjax-offline' package, "
                           "which is not installed: pip install -e '.[docs]'")
    folder = Path(spec.origin).parent / "static" / "mathjax"
    if not (folder / "tex-chtml.js").is_file():
        raise RuntimeError(f"no tex-chtml.js in {folder}: a broken sphinx-mathjax-offline install")
    return folder


def live_url(config, notebook, query=""):
    """The address of a dashboard on the configured ``kernelnb serve``.

    Parameters
    ----------
    config : sphinx.config.Config or None
        The book's configuration (``kernelnb_live_url``); None for the default.
    notebook : str
        The dashboard's notebook stem, e.g. ``"svm_playground"``.
    query : str, default=""
        Its URL settings, e.g. ``"C=1000&sigma=0.2"``.

    Returns
    -------
    str
        ``<base>/voila/render/<notebook>.ipynb`` with ``?query`` when one is given.
    """
    base = (getattr(config, "kernelnb_live_url", None) or DEFAULT_LIVE_URL).rstrip("/")
    url = f"{base}/voila/render/{notebook}.ipynb"
    return f"{url}?{query}" if query else url


def _copy_notebooks(app):
    """``docs/notebooks/`` made to match the repository's notebooks (unchanged files kept, so
    that Sphinx reads again only the notebooks that changed)."""
    source = (Path(app.confdir) / app.config.kernelnb_notebooks).resolve()
    target = Path(app.srcdir) / "notebooks"
    target.mkdir(exist_ok=True)
    names = {p.name for p in source.glob("*.ipynb")}
    remove_stale(target, names)
    for name in sorted(names):
        src, dst = source / name, target / name
        if not dst.is_file() or dst.read_bytes() != src.read_bytes():
            shutil.copy2(src, dst)
    return source, sorted(target.glob("*.ipynb"))


def _translate_notebooks(app, source):
    """``docs/<lang>/notebooks/``: the course in each language ``<source>/locale/`` holds."""
    from kernelnb.lab.i18n.notebooks import build, languages
    return [report.path for lang in languages(source)
            for report in build(source, lang, Path(app.srcdir) / lang / "notebooks")]


def _cache_path(app):
    configured = getattr(app.env, "mystnb_config", None)
    configured = getattr(configured, "execution_cache_path", "") if configured else ""
    return Path(configured) if configured else \
        Path(app.outdir).parent.joinpath(".jupyter_cache").resolve()


def cache_path(app):
    """The folder where the book keeps its computed pages (the dashboards', the reproductions').

    ``kernelnb_cache_path`` when configured, else ``.kernelnb_cache`` beside the output folder.

    Parameters
    ----------
    app : sphinx.application.Sphinx
        The running Sphinx application (its configuration and output folder).

    Returns
    -------
    pathlib.Path
        The folder (created by the pages' writers when missing).
    """
    configured = app.config.kernelnb_cache_path
    return Path(configured) if configured else Path(app.outdir).parent / ".kernelnb_cache"


def sources_digest(skip=None, extra=()):
    """A digest of kernelnb's sources: every ``.py``, ``.pyx`` and ``.pxd`` file of the package
    (its path and its bytes), those for which ``skip(path relative to the package)`` is true
    left out, then the files of ``extra``; the cache key of the book's computed pages.

    Parameters
    ----------
    skip : callable, optional
        Takes a file's :class:`pathlib.Path` relative to the package; True leaves it out.
    extra : iterable of path-like, default=()
        More files (this extension's modules, which live outside the package), by name and bytes.

    Returns
    -------
    str
        16 hexadecimal digits.
    """
    import hashlib

    import kernelnb
    root = Path(kernelnb.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd") or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(root)
        if skip is not None and skip(rel):
            continue
        digest.update(str(rel).encode())
        digest.update(path.read_bytes())
    for path in map(Path, extra):
        digest.update(f"kernelnb_book/{path.name}".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def write_if_changed(path, text):
    """Write ``text`` to ``path`` unless it already holds it (Sphinx then reads it again only
    when it changed)."""
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def remove_stale(target, keep, pattern="*"):
    """Remove what ``target`` holds matching ``pattern`` whose name is not in ``keep`` (a
    generated page whose source is gone)."""
    for stale in target.glob(pattern):
        if stale.name not in keep:
            if stale.is_dir():
                shutil.rmtree(stale)
            else:
                stale.unlink()


def _execute_notebooks(app, source, notebooks, label="notebooks"):
    from sphinx.errors import ExtensionError
    from sphinx.util import logging

    from ._execute import NotebookFailed, execute_into_cache

    if app.config.nb_execution_mode != "cache":
        return
    log = logging.getLogger(__name__)
    excluded = [p for p in notebooks if any(
        fnmatch.fnmatch(f"notebooks/{p.name}", pattern) or fnmatch.fnmatch(p.name, pattern)
        for pattern in app.config.nb_execution_excludepatterns)]
    notebooks = [p for p in notebooks if p not in excluded]
    if excluded:
        log.info(f"[kernelnb] not executed (nb_execution_excludepatterns): "
                 f"{', '.join(p.name for p in excluded)}")
    env = dict(os.environ)
    # The figures go out as plotly's JSON (drawn by the site's plotly.js), as under JupyterLab.
    env["PLOTLY_RENDERER"] = "plotly_mimetype"
    try:
        report = execute_into_cache(notebooks, _cache_path(app), source,
                                    workers=app.config.kernelnb_notebook_workers,
                                    timeout=app.config.nb_execution_timeout, env=env,
                                    log=lambda message: log.info(f"[kernelnb] {message}"))
    except NotebookFailed as exc:
        raise ExtensionError(f"a course notebook failed while the book was built:\n{exc}") \
            from None
    if label == "notebooks":
        app.env.kernelnb_execution = report
    log.info(f"[kernelnb] {label}: {len(report.executed)} executed, "
             f"{len(report.cached)} from the cache, {report.wall_seconds:.1f} s")


def _on_builder_inited(app):
    source, notebooks = _copy_notebooks(app)
    translated = _translate_notebooks(app, source)
    if app.config.kernelnb_pages:
        from . import _dashboards, _reproductions
        _dashboards.write_pages(app)
        _reproductions.write_pages(app)
    _execute_notebooks(app, source, notebooks)
    if translated:  # their code cells are the English ones: in the cache the line above filled
        _execute_notebooks(app, source, translated, label="translated notebooks")


def rewrite_live_url(uri, base):
    """A link to a dashboard on the default ``kernelnb serve``, pointed at ``base`` instead.

    The course notebooks' links name the default server, so that they work as they are for a
    student who runs it; the book points them at its configured one.

    Parameters
    ----------
    uri : str
        A link's target.
    base : str
        The configured server, e.g. ``https://kernelnb.example.org/class``.

    Returns
    -------
    str
        ``uri`` with :data:`DEFAULT_LIVE_URL` replaced by ``base`` when it is a dashboard's
        address there; else ``uri`` unchanged.
    """
    prefix = DEFAULT_LIVE_URL + "/voila/render/"
    if not uri.startswith(prefix) or not base:
        return uri
    return base.rstrip("/") + "/voila/render/" + uri[len(prefix):]


def _on_doctree_resolved(app, doctree, docname):
    from docutils import nodes
    base = app.config.kernelnb_live_url
    for ref in doctree.findall(nodes.reference):
        uri = ref.get("refuri", "")
        if uri.startswith(DEFAULT_LIVE_URL + "/voila/render/"):
            ref["refuri"] = rewrite_live_url(uri, base)
            ref["classes"] = list(ref.get("classes", [])) + ["kernelnb-live-link-inline"]


def page_language(app, docname):
    """The language a page of the book is written in.

    A page of a language's folder (``fr/notebooks/...``, ``fr/exercises/...``: the course
    translated) is in that language; a page whose front matter says ``lang: fr`` is in French;
    every other page is in the book's language (``language`` in conf.py, else English).

    Parameters
    ----------
    app : sphinx.application.Sphinx
        The running Sphinx application (its environment's page metadata).
    docname : str
        The page's name, e.g. ``"fr/notebooks/03_svm"``.

    Returns
    -------
    str
        A language code, e.g. ``"fr"``.
    """
    folder = re.match(r"([a-z]{2,3})/(notebooks|exercises)/", docname)
    if folder:
        return folder.group(1)
    declared = (app.env.metadata.get(docname) or {}).get("lang")
    return str(declared) if declared else (app.config.language or BOOK_LANGUAGE)


def _languages_script(app, page_lang):
    """The pages in another language than ``page_lang``, for kernelnb-book.js to mark the
    links of the navigation to them with their language."""
    import json
    other = {}
    for docname in sorted(app.env.found_docs):
        lang = page_language(app, docname)
        if lang != page_lang:
            other[app.builder.get_target_uri(docname)] = lang
    return "window.kernelnbPageLanguages = " + json.dumps(
        {"page": page_lang, "book": app.config.language or BOOK_LANGUAGE, "others": other},
        separators=(",", ":"))


def _on_page(app, pagename, templatename, context, doctree):
    from ._figures import FIGURE_CLASS
    lang = page_language(app, pagename)
    # <html lang="fr"> on a translated chapter, exercise page or French page
    context["language"] = lang
    app.add_js_file(None, body=_languages_script(app, lang), priority=400)
    if lang != BOOK_LANGUAGE and context.get("has_maths_elements"):
        # the formulas' speech (MathJax's explorer) in the page's language; MathJax's own
        # configuration (conf.py) comes first, MathJax itself runs after the page is read
        app.add_js_file(None, priority=501, body=(
            "if (window.MathJax) { MathJax.options = MathJax.options || {}; "
            "MathJax.options.sre = Object.assign({}, MathJax.options.sre, "
            f"{{locale: {lang!r}}}); }}"))
    body = context.get("body", "")
    # a figure's div, not a page that names the class in its text (the architecture notes do)
    if re.search(r'<div class="%s[ "]' % re.escape(FIGURE_CLASS), body):
        app.add_js_file("plotly.min.js", priority=450, loading_method="defer")


def _copy_assets(app, exc):
    if exc is not None or app.builder.format != "html":
        return
    import plotly
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(plotly.__file__).parent / "package_data" / "plotly.min.js",
                    static / "plotly.min.js")
    source = mathjax_source()
    target = static / "mathjax"
    for part in MATHJAX_PARTS:
        src, dst = source / part, target / part
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        elif src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)


def _on_config(app, config):
    config.html_static_path = list(config.html_static_path) + [str(static_dir())]
    if not config.mathjax_path or "://" in str(config.mathjax_path):
        config.mathjax_path = "mathjax/tex-chtml.js"
    mathjax_source()  # fail early, with the package to install, rather than after the build


def setup(app):
    """Register the book's configuration values, events and files with Sphinx.

    Parameters
    ----------
    app : sphinx.application.Sphinx
        The Sphinx application loading the extension.

    Returns
    -------
    dict
        Sphinx's extension metadata (version, parallel read and write safe).
    """
    app.setup_extension("sphinx.ext.mathjax")
    app.add_config_value("kernelnb_book", True, "env")
    app.add_config_value("kernelnb_live_url",
                         os.environ.get("KERNELNB_LIVE_URL", DEFAULT_LIVE_URL), "env")
    app.add_config_value("kernelnb_binder_url", os.environ.get("KERNELNB_BINDER_URL", ""), "env")
    app.add_config_value("kernelnb_notebooks", "../notebooks", "env")
    app.add_config_value("kernelnb_notebook_workers", 2, "env")
    app.add_config_value("kernelnb_reproductions_results", "reproductions/results", "env")
    app.add_config_value("kernelnb_cache_path", "", "env")
    app.add_config_value("kernelnb_pages", True, "env")
    app.connect("config-inited", _on_config)
    app.connect("builder-inited", _on_builder_inited)
    app.connect("doctree-resolved", _on_doctree_resolved)
    app.connect("html-page-context", _on_page)
    app.connect("build-finished", _copy_assets)
    app.add_js_file("kernelnb-book.js", priority=600, loading_method="defer")
    app.add_css_file("kernelnb-book.css")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
