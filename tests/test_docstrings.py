"""Every public class and function passes numpydoc's validation; every estimator and every
dashboard class has an Examples section that runs as a doctest.

"Public" is what a public module lists in its ``__all__`` (a module is public when no part of
its dotted name below ``kernelnb`` starts with an underscore), defined in kernelnb itself.  The
checks numpydoc makes are all applied except those listed in ``IGNORED`` (the same choice as
scikit-learn's ``test_docstrings``, for the same reasons).
"""
from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re

import numpy as np
import numpydoc.validate as numpydoc_validate  # the "test" extra installs it
import pytest
from sklearn.base import BaseEstimator

import kernelnb

#: numpydoc checks not applied: where the summary starts (GL01, GL02), "See Also" (SA01), an
#: extended summary (ES01) and Examples (EX01: required below for estimators and dashboards
#: only); SS05 (summary in the infinitive) is a style of its own that this package does not use
IGNORED = {"GL01", "GL02", "SA01", "ES01", "EX01", "SS05"}


def _public_objects():
    found = {}
    for info in pkgutil.walk_packages(kernelnb.__path__, "kernelnb."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name, None)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if not getattr(obj, "__module__", "").startswith("kernelnb"):
                continue
            found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    return dict(sorted(found.items()))


PUBLIC = _public_objects()


def _needs_examples(obj):
    if not inspect.isclass(obj):
        return False
    if issubclass(obj, BaseEstimator):
        return not inspect.isabstract(obj) and not obj.__name__.startswith("_")
    try:
        from kernelnb.lab.app import Dashboard
    except ImportError:           # the lab's extra not installed
        return False
    return issubclass(obj, Dashboard) and obj is not Dashboard


def test_the_public_api_is_found():
    assert "kernelnb.svm.estimators.SVC" in PUBLIC
    assert len(PUBLIC) > 100


@pytest.mark.parametrize("qualname", list(PUBLIC))
def test_numpydoc_validation(qualname):
    result = numpydoc_validate.validate(qualname)
    errors = [f"{code}: {message}" for code, message in result["errors"] if code not in IGNORED]
    assert not errors, f"{qualname}:\n" + "\n".join(errors)


EXAMPLED = [q for q, obj in PUBLIC.items() if _needs_examples(obj)]


def test_every_estimator_and_dashboard_is_listed():
    assert "kernelnb.svm.estimators.SVC" in EXAMPLED
    assert any(".lab." in q for q in EXAMPLED)


@pytest.mark.parametrize("qualname", EXAMPLED)
def test_examples_run_as_doctests(qualname):
    obj = PUBLIC[qualname]
    doc = obj.__doc__ or ""
    assert re.search(r"^\s*Examples\n\s*-{8}\n(?:.*\n)*?\s*>>> ", doc, re.M), \
        f"{qualname}: no Examples section with code"
    module = importlib.import_module(obj.__module__)
    tests = [t for t in doctest.DocTestFinder(exclude_empty=True, recurse=False).find(
        obj, qualname, module=module, globs={}) if t.examples]
    assert tests
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    state = np.get_printoptions()
    try:
        for t in tests:
            runner.run(t)
    finally:
        np.set_printoptions(**state)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 2 and result.failed == 0, f"{qualname}: {result}"
