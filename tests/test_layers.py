"""kernelnb's three layers and the one direction of their imports.

* the **library**: every module of ``kernelnb`` outside ``kernelnb.reproductions`` and
  ``kernelnb.lab`` (estimators and their building blocks);
* the **reproductions** (``kernelnb.reproductions``): the protocols that recompute the source
  texts' published tables and figures, with the published numbers beside them;
* the **lab** (``kernelnb.lab``): dashboards, figures, the server and the command line.

Imports run one way, lab -> reproductions -> library: the library imports neither of the others,
the reproductions do not import the lab. Every import statement of every module is read (at any
depth, relative or absolute), not only those run at import time.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kernelnb

PACKAGE = Path(kernelnb.__file__).resolve().parent


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in ("lab", "reproductions"):
        return parts[1]
    return "library"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> list[str]:
    """The absolute names of the kernelnb modules ``path`` imports."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append(target)
            found += [f"{target}.{a.name}" for a in node.names]
    return [m for m in found if m == "kernelnb" or m.startswith("kernelnb.")]


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
ALLOWED = {"library": {"library"}, "reproductions": {"library", "reproductions"},
           "lab": {"library", "reproductions", "lab"}}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_one_way(path):
    own = _layer(_module_name(path))
    wrong = sorted({m for m in imported_modules(path) if _layer(m) not in ALLOWED[own]})
    assert not wrong, f"{_module_name(path)} ({own}) imports {wrong}"


def test_the_three_layers_exist():
    layers = {_layer(_module_name(p)) for p in SOURCES}
    assert layers == {"library", "reproductions", "lab"}


def test_the_check_reads_relative_imports(tmp_path, monkeypatch):
    fake = PACKAGE / "svm" / "estimators.py"
    found = imported_modules(fake)
    assert "kernelnb.kernels" in found or any(m.startswith("kernelnb.") for m in found)
    assert _layer("kernelnb.lab.app.svm_playground") == "lab"
    assert _layer("kernelnb.reproductions.vincent_kmp") == "reproductions"
    assert _layer("kernelnb.svm") == "library"



def _import_targets(path: Path) -> list[str]:
    """The absolute module names after ``from`` and ``import`` in ``path`` (kernelnb's only)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                out.append(".".join(base + ([node.module] if node.module else [])))
            else:
                out.append(node.module or "")
    return [m for m in out if m == "kernelnb" or m.startswith("kernelnb.")]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_import_names_a_module_that_exists(path):
    """Relative imports are read at any depth, also inside functions (run only when called):
    each must name a kernelnb module that exists (a moved module's old relative imports fail)."""
    import importlib.util
    missing = sorted({m for m in _import_targets(path) if importlib.util.find_spec(m) is None})
    assert not missing, f"{_module_name(path)} imports modules that do not exist: {missing}"
