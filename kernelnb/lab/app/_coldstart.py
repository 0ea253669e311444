"""What a cold dashboard kernel does not need to pay for: plotly's renderers without ``nbformat``.

plotly's renderers module (loaded with the first ``go.FigureWidget``) imports ``nbformat`` when
it is installed (it is: Voila needs it), only to check its version when a figure is shown with
``fig.show()``. That import pulls in ``jsonschema``, whose format checkers compile some 40
grammars (``rfc3987_syntax``): about 2 s of a cold dashboard kernel on 2 busy cores, for no chart
of a dashboard. :func:`install` (called when :mod:`kernelnb.lab.app` is imported, before any
dashboard module) makes the next import of ``plotly.io._renderers`` run with ``nbformat`` marked
unavailable and then hands it a stand-in that imports ``nbformat`` on first use, so ``fig.show()``
works as before. Import order does not matter: the hook waits for plotly's own import. Nothing is
done when the renderers or ``nbformat`` are already loaded, or plotly's internals differ.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install"]

_TARGET = "plotly.io._renderers"


class ImportedOnUse:
    """Stands for a module that is imported when one of its attributes is first read."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self):
        return f"<module {self._name!r}, imported on first use>"


def _optional_skip_set():
    """plotly's set of module names its optional imports treat as missing, or None."""
    try:
        from _plotly_utils import optional_imports
    except ImportError:
        return None
    skip = getattr(optional_imports, "_not_importable", None)
    return skip if isinstance(skip, set) else None


class _RenderersLoader(importlib.abc.Loader):
    """Runs the real loader of plotly's renderers module with ``nbformat`` deferred."""

    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        skip = _optional_skip_set()
        defer = (skip is not None and "nbformat" not in skip and "nbformat" not in sys.modules
                 and importlib.util.find_spec("nbformat") is not None)
        if defer:
            skip.add("nbformat")
        try:
            self._inner.exec_module(module)
        finally:
            if defer:
                skip.discard("nbformat")
        if defer and getattr(module, "nbformat", True) is None:
            module.nbformat = ImportedOnUse("nbformat")

    def __getattr__(self, name):          # get_source, is_package, ... of the real loader
        return getattr(self._inner, name)


class _RenderersFinder(importlib.abc.MetaPathFinder):
    """Finds ``plotly.io._renderers`` once, through the other finders, and wraps its loader."""

    def find_spec(self, name, path=None, target=None):
        if name != _TARGET:
            return None
        _uninstall()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _RenderersLoader(spec.loader)
                return spec
        return None


def _uninstall():
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _RenderersFinder)]


def install():
    """Defer ``nbformat`` in plotly's renderers module when it is imported later (idempotent)."""
    if _TARGET in sys.modules or "nbformat" in sys.modules:
        return
    if not any(isinstance(f, _RenderersFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _RenderersFinder())
