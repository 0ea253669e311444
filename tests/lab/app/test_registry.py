"""The registry (``kernelnb.lab.app.REGISTRY``), the notebooks of ``dashboards/`` and the dashboard
classes correspond one to one; the gallery's cards are read from the registered classes' source
without importing them and agree with the imported classes; ``kernelnb.lab.app`` exports what its
modules export, and nothing else."""
import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
import textwrap

import pytest

import kernelnb.lab.app as app
from kernelnb.lab.app import Dashboard
from kernelnb.lab.server.gallery import DASHBOARDS, GalleryEntry, dashboards_dir, registry_cards


def _dashboard_classes():
    """Every public dashboard class of the public modules of kernelnb.lab.app, imported."""
    for info in pkgutil.iter_modules(app.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"kernelnb.lab.app.{info.name}")
    found, todo = set(), [Dashboard]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            module = sub.__module__.rsplit(".", 1)[-1]
            if (sub.__module__.startswith("kernelnb.lab.app.") and not module.startswith("_")
                    and not sub.__name__.startswith("_")):
                found.add(sub)
    return found


def mismatches(classes, notebooks, entries):
    """What breaks the one-to-one correspondence, as sentences (empty when all is well).

    classes: {class name: notebook stem it declares}; notebooks: stems of the ``.ipynb`` files;
    entries: the gallery's cards."""
    out = []
    declared = {}
    for cls, stem in sorted(classes.items()):
        if not stem:
            out.append(f"class {cls} declares no notebook")
        elif stem in declared:
            out.append(f"classes {declared[stem]} and {cls} declare the same notebook {stem}")
        else:
            declared[stem] = cls
    for stem in sorted(set(declared) - set(notebooks)):
        out.append(f"class {declared[stem]} has no notebook {stem}.ipynb")
    for stem in sorted(set(notebooks) - set(declared)):
        out.append(f"notebook {stem}.ipynb has no dashboard class")
    cards = [e.name for e in entries]
    if sorted(cards) != sorted(declared) or len(set(cards)) != len(cards):
        out.append(f"gallery cards {sorted(cards)} differ from the classes' notebooks "
                   f"{sorted(declared)}")
    return out


def test_gallery_notebooks_and_classes_correspond_one_to_one():
    classes = {c.__name__: c.notebook for c in _dashboard_classes()}
    notebooks = [p.stem for p in dashboards_dir().glob("*.ipynb")]
    assert len(classes) >= 8
    assert mismatches(classes, notebooks, DASHBOARDS) == []


def test_the_correspondence_check_catches_a_class_or_a_notebook_alone():
    entries = [GalleryEntry("a", "A", ""), GalleryEntry("b", "B", "")]
    assert mismatches({"A": "a", "B": "b"}, ["a", "b"], entries) == []
    assert mismatches({"A": "a", "B": "b", "C": "c"}, ["a", "b"], entries) == [
        "class C has no notebook c.ipynb",
        "gallery cards ['a', 'b'] differ from the classes' notebooks ['a', 'b', 'c']"]
    assert mismatches({"A": "a"}, ["a", "b"], entries[:1]) == ["notebook b.ipynb has no dashboard class"]
    assert mismatches({"A": "a", "B": ""}, ["a"], entries[:1]) == ["class B declares no notebook"]


def test_the_gallery_read_from_source_is_what_the_classes_hold():
    classes = {c.__name__: c for c in _dashboard_classes()}
    assert {e.class_name for e in DASHBOARDS} == set(classes)
    for e in DASHBOARDS:
        cls = classes[e.class_name]
        assert cls.__module__ == f"kernelnb.lab.app.{e.module}"
        assert (e.name, e.title, e.purpose) == (cls.notebook, cls.title, cls.purpose)
        assert e.thumbnail == (cls.thumbnail or f"{cls.notebook}.png")
        assert e.title != Dashboard.title and e.purpose, f"{cls.__name__} keeps the base's text"
    assert [(e.module, e.class_name) for e in DASHBOARDS] == list(app.REGISTRY)
    assert DASHBOARDS[0].name == "svm_playground"


def test_each_notebook_builds_its_class_under_its_title():
    by_stem = {e.name: e for e in DASHBOARDS}
    for path in dashboards_dir().glob("*.ipynb"):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        assert [c["cell_type"] for c in cells] == ["markdown", "code"], path.name
        e = by_stem[path.stem]
        heading = "".join(cells[0]["source"]).splitlines()[0]
        assert heading == f"# {e.title}", path.name
        code = "".join(cells[1]["source"])
        assert f"import {e.class_name}" in code and f"{e.class_name}()" in code, path.name


def test_every_dashboard_class_is_exported_by_kernelnb_app():
    for cls in _dashboard_classes():
        assert cls.__name__ in app.__all__
        assert getattr(app, cls.__name__) is cls
    for name in ("Dashboard", "CurveEstimator", "ESTIMATORS", "register_estimator",
                 "learning_curve_data"):
        assert name in app.__all__
    assert len(app.__all__) == len(set(app.__all__))


def test_the_exports_are_what_the_modules_export():
    """Every name of a public module's ``__all__`` is exported from its own module, and the
    package exports no name that its module does not define."""
    declared = {}
    for info in pkgutil.iter_modules(app.__path__):
        if info.name.startswith("_") or info.name == "gallery":
            continue
        module = importlib.import_module(f"kernelnb.lab.app.{info.name}")
        for name in module.__all__:
            declared.setdefault(name, info.name)
    listed = {**{name: module for module, name in app.REGISTRY}, **app.EXPORTS}
    listed.pop("Dashboard")
    assert listed == declared
    for name, module in listed.items():
        assert getattr(app, name) is getattr(sys.modules[f"kernelnb.lab.app.{module}"], name)


def test_a_registered_class_is_a_card(tmp_path):
    """A new module and its row: the card holds the class's own literals, in the registry's
    order, the thumbnail defaulting to the notebook's PNG."""
    (tmp_path / "new_idea.py").write_text(textwrap.dedent('''
        from ._base import Dashboard, N_

        class NewIdea(Dashboard):
            notebook = "new_idea"
            title = N_("New idea")
            purpose = "Something to try."

        class Other(Dashboard):
            notebook = "other"
            title = "Other"
            purpose = "Another."
            thumbnail = "other.svg"
        '''))
    cards = registry_cards([("new_idea", "Other"), ("new_idea", "NewIdea")], tmp_path)
    assert [(c.name, c.title, c.class_name, c.thumbnail, c.module) for c in cards] == [
        ("other", "Other", "Other", "other.svg", "new_idea"),
        ("new_idea", "New idea", "NewIdea", "new_idea.png", "new_idea")]


_ODD = '''
from ._base import (
    Dashboard,
)


def keep(cls):
    return cls


@keep
class Odd(Dashboard):
    """A docstring.

    def not_a_method(): mentioned in the docstring
    """
    notebook = "odd"
    purpose = ("two lines "
               "of purpose")

    @property
    def method(self):
        text = """a string in a method,
title = "not an attribute"
"""
        return text

    def other(self,
              x=1):
        return x

    title = "Set after the methods"
    thumbnail = """two lines,
at column 0"""
'''

_MINI_BASE = '''
class Dashboard:
    title = "Dashboard"
    purpose = ""
    notebook = ""
    thumbnail = ""
'''


def test_the_card_reads_what_python_reads_whatever_the_layout(tmp_path):
    """A decorated class, a docstring mentioning def, a multi-line import, attributes after
    the methods, a string at column 0 inside a method and in an attribute: the card agrees with
    Python."""
    pkg = tmp_path / "scanpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_base.py").write_text(_MINI_BASE)
    (pkg / "odd.py").write_text(_ODD)
    (card,) = registry_cards([("odd", "Odd")], pkg)
    sys.path.insert(0, str(tmp_path))
    try:
        odd = importlib.import_module("scanpkg.odd").Odd
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] == "scanpkg"]:
            del sys.modules[name]
    assert (card.name, card.purpose, card.title, card.thumbnail) == (
        odd.notebook, odd.purpose, odd.title, odd.thumbnail)
    assert card.title == "Set after the methods" and card.purpose == "two lines of purpose"


@pytest.mark.parametrize("row,body,match", [
    (("bad", "Bad"), '    title = "x"\n    purpose = "y"\n', "has no 'notebook'"),
    (("bad", "Bad"), '    notebook = "a"\n    purpose = "y"\n', "has no 'title'"),
    (("bad", "Bad"), '    notebook = "a"\n    title = "x".upper()\n', "must be a literal"),
    (("bad", "Missing"), '    notebook = "a"\n', "defines no class Missing"),
    (("nowhere", "Bad"), '    notebook = "a"\n', "nowhere.py does not exist"),
])
def test_card_errors_name_the_class(tmp_path, row, body, match):
    (tmp_path / "bad.py").write_text("from ._base import Dashboard\n\n\nclass Bad(Dashboard):\n"
                                     + body)
    with pytest.raises(ValueError, match=match) as info:
        registry_cards([row], tmp_path)
    assert f"kernelnb.lab.app.{row[0]}.{row[1]}" in str(info.value)


def test_two_classes_sharing_a_notebook_are_refused(tmp_path):
    (tmp_path / "twice.py").write_text(
        "from ._base import Dashboard\n\nclass A(Dashboard):\n    notebook = 'same'\n"
        "    title = 'A'\n    purpose = 'a'\n\nclass B(Dashboard):\n    notebook = 'same'\n"
        "    title = 'B'\n    purpose = 'b'\n")
    with pytest.raises(ValueError, match=r"share the notebook\(s\) \['same'\]"):
        registry_cards([("twice", "A"), ("twice", "B")], tmp_path)


def test_listing_the_dashboards_imports_none_of_them():
    code = textwrap.dedent("""
        import json, sys
        import kernelnb.lab.app as app
        from kernelnb.lab.server.gallery import DASHBOARDS, gallery_entries, dashboards_dir
        names = app.__all__
        entries = gallery_entries(dashboards_dir())
        heavy = [m for m in ("sklearn", "plotly", "ipywidgets", "kernelnb.svm") if m in sys.modules]
        loaded = sorted(m for m in sys.modules if m.startswith("kernelnb.lab.app."))
        print(json.dumps(dict(n=len(entries), heavy=heavy, loaded=loaded)))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["n"] == len(DASHBOARDS)
    assert got["heavy"] == []
    assert got["loaded"] == []
