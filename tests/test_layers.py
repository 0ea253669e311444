"""kernelnb's three layers and the one direction of their imports.

* the **library**: every module of ``kernelnb`` outside ``kernelnb.reproductions`` and
  ``kernelnb.lab`` (estimators and their building blocks);
* the **reproductions** (``kernelnb.reproductions``): the protocols that recompute the source
  texts' published tables and figures, with the published numbers beside them;
* the **lab** (``kernelnb.lab``): dashboards, figures, the server and the command line.

Imports run one way, lab -> reproductions -> library: the library imports neither of the others,
the reproductions do not import the lab. The console command (:data:`COMMAND`) stands above all
three. Every import statement of every module is read (at any
depth, relative or absolute), not only those run at import time.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import kernelnb

PACKAGE = Path(kernelnb.__file__).resolve().parent


#: The console command (``kernelnb``, ``python -m kernelnb``) stands above the three layers: it
#: answers ``--version`` with the library alone and imports the lab only for ``serve`` and ``lab``.
COMMAND = ("kernelnb._command", "kernelnb.__main__")


def _layer(module: str) -> str:
    if module in COMMAND:
        return "command"
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
           "lab": {"library", "reproductions", "lab"},
           "command": {"library", "reproductions", "lab", "command"}}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_one_way(path):
    own = _layer(_module_name(path))
    wrong = sorted({m for m in imported_modules(path) if _layer(m) not in ALLOWED[own]})
    assert not wrong, f"{_module_name(path)} ({own}) imports {wrong}"


def test_the_three_layers_exist():
    layers = {_layer(_module_name(p)) for p in SOURCES}
    assert layers == {"library", "reproductions", "lab", "command"}


def _fake_package(root: Path, files: dict) -> Path:
    """A package ``kernelnb`` under ``root`` with the given modules (relative path -> source)."""
    for rel, source in files.items():
        path = root / "kernelnb" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(root).parents:
            if parent != Path(".") and not (root / parent / "__init__.py").exists():
                (root / parent / "__init__.py").write_text("")
        path.write_text(source)
    return root / "kernelnb"


def test_the_check_reads_relative_absolute_and_nested_imports(tmp_path, monkeypatch):
    """Every form of import is resolved to its absolute kernelnb name: relative at any depth,
    absolute, and inside a function (run only when called); other packages are left out."""
    pkg = _fake_package(tmp_path, {"lab/app/board.py": (
        "import numpy\n"
        "from . import _base\n"
        "from ..viz import surface\n"
        "from ...svm import SVC\n"
        "import kernelnb.kernels\n"
        "def later():\n"
        "    from ...reproductions.vincent import kmp\n")})
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    found = imported_modules(pkg / "lab" / "app" / "board.py")
    assert found == ["kernelnb.lab.app", "kernelnb.lab.app._base", "kernelnb.lab.viz",
                     "kernelnb.lab.viz.surface", "kernelnb.svm", "kernelnb.svm.SVC",
                     "kernelnb.kernels", "kernelnb.reproductions.vincent",
                     "kernelnb.reproductions.vincent.kmp"]


@pytest.mark.parametrize("rel,source,layer,wrong", [
    ("svm/leak.py", "def f():\n    from ..lab import app\n", "library", ["kernelnb.lab",
                                                                         "kernelnb.lab.app"]),
    ("ridge2.py", "import kernelnb.reproductions.chapelle\n", "library",
     ["kernelnb.reproductions.chapelle"]),
    ("reproductions/vincent/x.py", "from ...lab.viz import curves\n", "reproductions",
     ["kernelnb.lab.viz", "kernelnb.lab.viz.curves"]),
    ("lab/ok.py", "from ..reproductions import results\nfrom .. import svm\n", "lab", []),
])
def test_an_import_against_the_layers_is_caught(tmp_path, monkeypatch, rel, source, layer, wrong):
    """The rule itself: a library module importing the lab or the reproductions, and the
    reproductions importing the lab, are reported; the lab may import both."""
    pkg = _fake_package(tmp_path, {rel: source})
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    name = _module_name(pkg / rel)
    assert _layer(name) == layer
    got = sorted(m for m in imported_modules(pkg / rel) if _layer(m) not in ALLOWED[layer])
    assert got == wrong


def test_the_layers_of_real_modules():
    assert _layer("kernelnb.lab.app.svm_playground") == "lab"
    assert _layer("kernelnb.reproductions.vincent.kmp") == "reproductions"
    assert _layer("kernelnb.svm") == "library" and _layer("kernelnb") == "library"
    assert "kernelnb.kernels" in imported_modules(PACKAGE / "svm" / "estimators.py")


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


def _module_graph() -> dict[str, set[str]]:
    """Module or package -> the kernelnb modules and packages it imports, at any depth of its
    code. A package's ``__init__`` is a node like any module (``course/_model.py`` and the
    ``course.chapters`` package were a circle); a module's edge to a package that holds it is
    left out, since Python always runs a package's ``__init__`` before its modules."""
    modules = {_module_name(p): p for p in SOURCES}
    return {name: {m for m in imported_modules(path)
                   if m in modules and m != name and not name.startswith(m + ".")}
            for name, path in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    """No two modules import each other, directly or through others, even inside a function
    (``lab/server/_memory.py`` and ``_kernelpool.py``, ``lab/cli.py`` and the server, the
    course's checks and its chapters were one)."""
    assert _circles(_module_graph()) == []


def test_the_circle_check_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == [["a", "b", "c"]]
