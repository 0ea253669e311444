"""The one estimator API: keyword-only constructors and the one fit wrapper, in every estimator."""
from __future__ import annotations

import inspect

import pytest

from ._estimators import public_estimator_classes

# the library's estimators, found without importing the lab (this file runs with the core alone)
ESTIMATORS = {f"{cls.__module__}.{cls.__qualname__}": cls
              for cls in public_estimator_classes().values()}
#: a meta-estimator's wrapped object may come first, positionally (scikit-learn's GridSearchCV;
#: the mixtures' expert)
WRAPPED = {"estimator", "embedding", "expert"}


def test_the_estimators_are_found():
    assert "kernelnb.svm.estimators.SVC" in ESTIMATORS and len(ESTIMATORS) > 40


@pytest.mark.parametrize("qualname", list(ESTIMATORS))
def test_constructors_are_keyword_only(qualname):
    params = list(inspect.signature(ESTIMATORS[qualname].__init__).parameters.values())[1:]
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert positional in ([], *([name] for name in WRAPPED)), \
        f"{qualname}: positional constructor parameters {positional}"


@pytest.mark.parametrize("qualname", list(ESTIMATORS))
def test_fit_goes_through_the_one_wrapper(qualname):
    cls = ESTIMATORS[qualname]
    fit = getattr(cls, "fit", None)
    assert fit is not None, f"{qualname} has no fit"
    # functools.wraps leaves the wrapped function on __wrapped__, and fit_context's code object
    wrapper_code = fit.__code__.co_name == "wrapper" and fit.__code__.co_filename.endswith("_fit.py")
    assert wrapper_code, f"{qualname}.fit is not decorated with kernelnb._fit.fit_context"
