"""Every repository path the documentation names exists: the README, the book's own pages
(``docs/*.md``) and the comments and docstrings of the package, the book's extension, the tests
and the benchmarks. A path that a move or a rename left behind sends the next reader nowhere.

A path is a word starting with one of the repository's top folders (``kernelnb/``, ``tests/``,
``docs/``, ...). Not checked, each for its reason:

* paths with a placeholder or a pattern (``<name>``, ``*``, ``{...}``, ``...``): they name a
  family of files, not one;
* what a build or a run writes (:data:`GENERATED`): it exists only after that build;
* the server's URL routes (:data:`ROUTES`): they name addresses, not files;
* string literals in code (test inputs, messages): only comments and docstrings are read there.

The dotted names of kernelnb's modules, classes and functions in the same prose resolve too
(``kernelnb.lab.app.REGISTRY``): a module that moved leaves no reference to its old name.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP = ("kernelnb", "tests", "docs", "benchmarks", "notebooks", "dashboards", "scripts", "deploy",
       "binder")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*[\w/])" % "|".join(TOP))

#: Written by a build or a run, never committed (.gitignore lists them).
GENERATED = (
    "docs/_build/",           # the book's build (html, caches)
    "docs/notebooks/",        # the notebooks copied into the book at build
    "docs/fr/",               # the French notebooks made for the book
    "docs/dashboards/",       # the dashboard pages generated at build
    "notebooks/fr/",          # the French notebooks `kernelnb lab --lang fr` makes
    "kernelnb/lab/dashboards",  # the dashboards copied into the package by setup.py's build
)
GENERATED_FILES = re.compile(r"^docs/reproductions/(?!results/)[^/]+\.md$")   # made at build
#: Addresses served by kernelnb serve, not files of the repository.
ROUTES = ("kernelnb/api/", "kernelnb/esm/", "kernelnb/static/")


def _tracked(*paths):
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", *paths],
                         cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("needs a git checkout")
    return [p for p in out.stdout.split() if (ROOT / p).is_file()]


def _python_prose(source: str) -> str:
    """The comments and docstrings of a Python module (each on the line it starts on)."""
    lines = [""] * (source.count("\n") + 1)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                lines[tok.start[0] - 1] += " " + tok.string
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body
                if body and isinstance(body[0], ast.Expr) and isinstance(
                        getattr(body[0], "value", None), ast.Constant) and isinstance(
                        body[0].value.value, str):
                    lines[body[0].lineno - 1] += " " + body[0].value.value.replace("\n", " ")
    except (SyntaxError, tokenize.TokenError):
        return source
    return "\n".join(lines)


def _cython_prose(source: str) -> str:
    """Comments (``#`` and ``/* */``) and triple-quoted strings of a Cython file."""
    keep = re.findall(r'#[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""', source, re.S)
    return "\n".join(keep)


def named_paths():
    """{path named: [where]} over the README, the book's pages and the code's prose."""
    found = {}
    sources = ["README.md", *[p for p in _tracked("docs") if p.endswith(".md")],
               *[p for p in _tracked("kernelnb", "docs/_ext", "tests", "benchmarks", "scripts")
                 if p.endswith((".py", ".pyx", ".pxd"))]]
    for rel in sources:
        text = (ROOT / rel).read_text(encoding="utf-8", errors="replace")
        if rel.endswith(".py"):
            text = _python_prose(text)
        elif rel.endswith((".pyx", ".pxd")):
            text = _cython_prose(text)
        for match in PATH.finditer(text):
            path = match.group(1).rstrip(".")
            rest = text[match.end():match.end() + 3]
            if rest.startswith(("*", "<", "{", "...")) or text[match.start() - 1:match.start()] == "<":
                continue                          # a pattern or a placeholder
            found.setdefault(path, []).append(f"{rel}:{text.count(chr(10), 0, match.start()) + 1}")
    return found


def _exempt(path: str, where=()) -> bool:
    if path.startswith("benchmarks/results/") and where and all(
            w.startswith("benchmarks/") for w in where):
        return True                 # the result file a benchmark writes, named by that benchmark
    return (path.startswith(GENERATED) or path.startswith(ROUTES)
            or GENERATED_FILES.match(path) is not None)


def _exists(path: str, where: list[str]) -> bool:
    if (ROOT / path).exists():
        return True
    # a book page's links are relative to docs/ (``dashboards/index`` is docs/dashboards/index)
    in_docs = [w for w in where if w.startswith("docs/")]
    if in_docs:
        candidate = f"docs/{path}"
        return _exempt(candidate) or any((ROOT / f"{candidate}{ext}").exists()
                                         for ext in ("", ".md", ".ipynb"))
    return False


@pytest.mark.slow  # over two seconds of CPU: not in the fast loop
def test_every_named_path_exists():
    found = named_paths()
    assert len(found) > 50          # the scan reads the prose it should
    missing = {p: w for p, w in found.items() if not _exempt(p, w) and not _exists(p, w)}
    assert not missing, "paths named that do not exist:\n" + "\n".join(
        f"  {p} (named in {', '.join(w[:3])})" for p, w in sorted(missing.items()))


def test_the_scan_finds_a_path_in_each_kind_of_prose():
    py = _python_prose('"""See tests/nowhere_a.py."""\nx = "tests/not_prose.py"  # tests/nowhere_b.py\n')
    assert "tests/nowhere_a.py" in py and "tests/nowhere_b.py" in py
    assert "not_prose" not in py
    pyx = _cython_prose('# kernelnb/nowhere_c.pyx\ncdef int x = 1\n/* docs/nowhere_d.md */\n')
    assert "kernelnb/nowhere_c.pyx" in pyx and "docs/nowhere_d.md" in pyx
    assert [m.group(1) for m in PATH.finditer("in `benchmarks/bench_x.py`.")] == [
        "benchmarks/bench_x.py"]
    assert _exempt("docs/_build/html") and _exempt("kernelnb/api/status")
    assert not _exempt("docs/architecture.md")


DOTTED = re.compile(r"(?<![\w.])(kernelnb(?:\.\w+)+)")
#: Dotted words that are not Python names: file names (the catalogs), a host, a key of the
#: book's figure JSON (``kernelnb.readouts``, read by docs/_ext/kernelnb_book/static's script).
NOT_NAMES = re.compile(r"^kernelnb\.(pot?|mo|readouts|example\.org)$")


def _resolves(name: str) -> bool:
    if (ROOT / (name.replace(".", "/") + ".pxd")).is_file():
        return True                 # a Cython declaration file (cimported, never imported)
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if found:
            try:
                obj = importlib.import_module(module)
                for attr in parts[i:]:
                    obj = getattr(obj, attr)
            except (ImportError, AttributeError):
                return False
            return True
    return False


@pytest.mark.slow          # imports every module named, the lab's and the course's too
def test_every_named_module_and_object_exists():
    found = {}
    for rel in ["README.md", *[p for p in _tracked("docs") if p.endswith(".md")],
                *[p for p in _tracked("kernelnb", "docs/_ext", "tests", "benchmarks", "scripts")
                  if p.endswith((".py", ".pyx", ".pxd"))]]:
        text = (ROOT / rel).read_text(encoding="utf-8", errors="replace")
        if rel.endswith(".py"):
            text = _python_prose(text)
        elif rel.endswith((".pyx", ".pxd")):
            text = _cython_prose(text)
        for match in DOTTED.finditer(text):
            found.setdefault(match.group(1).rstrip("."), []).append(rel)
    assert "kernelnb.lab.app.REGISTRY" in found
    missing = {n: w for n, w in found.items() if not NOT_NAMES.match(n) and not _resolves(n)}
    assert not missing, "names that do not resolve:\n" + "\n".join(
        f"  {n} (named in {', '.join(sorted(set(w))[:3])})" for n, w in sorted(missing.items()))


def test_the_name_check_fails_on_a_moved_name():
    assert _resolves("kernelnb.lab.server.gallery.registry_cards")
    assert _resolves("kernelnb._rbf_pass")
    assert not _resolves("kernelnb.lab.book")
    assert not _resolves("kernelnb.svm.NoSuchSolver")
