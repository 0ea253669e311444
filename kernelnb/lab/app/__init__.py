"""Dashboards of kernelnb: one class per dashboard (widgets, ``go.FigureWidget``s and a pure
``update(**params)``), built on :class:`Dashboard` and the figures of :mod:`kernelnb.lab.viz`.

The notebooks of ``dashboards/`` only build one and display it, e.g.
``SVMPlayground().widget``. The gallery is derived from the dashboard classes
(:mod:`kernelnb.lab.app.gallery`).

What this package exports is what its public modules export: :class:`Dashboard` and every name
in the ``__all__`` of a public module (``svm_playground``, ``learning_curves``, ...), so a new
dashboard module is exported by its own ``__all__``. Each name is imported from its module when
first used (``from kernelnb.lab.app import SVMPlayground`` loads the SVM playground only, not the
learning curves' estimators nor the model-selection machinery), so that a dashboard's kernel
starts with what that dashboard needs; which module holds a name is read from the modules'
``__all__`` in their source, not by importing them.
"""
import importlib

_exports = None


def _where():
    """{public name: submodule that defines it}, read once from the modules' ``__all__``."""
    global _exports
    if _exports is None:
        import re                     # here, not at import: kernelnb.lab.app itself stays cheap
        from pathlib import Path

        found = {"Dashboard": "_base"}
        for path in sorted(Path(__file__).parent.glob("*.py")):
            if path.stem.startswith("_") or path.stem == "gallery":
                continue
            block = re.search(r"^__all__\s*=\s*[\[(](.*?)[\])]",
                              path.read_text(encoding="utf-8"), re.S | re.M)
            for name in re.findall(r"""["'](\w+)["']""", block.group(1)) if block else ():
                found.setdefault(name, path.stem)
        _exports = found
    return _exports


def __getattr__(name):
    if name == "__all__":
        return list(_where())
    module = _where().get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value          # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_where()))
