"""Docstring fragments (kernelnb._docstrings): a description shared by several estimators is
written once and substituted whole, at the indentation of the line that names it."""
import inspect

import pytest

import kernelnb.largescale.margin as margin
from kernelnb._docstrings import fill_doc, substitute

MARGIN_MODELS = [margin.MarginPerceptron, margin.OriginalPerceptron, margin.SGDHingeClassifier,
                 margin.SimpleMLP, margin.NilssonMLP, margin.HingeMLPClassifier,
                 margin.KernelMarginPerceptron]


def test_a_token_line_becomes_the_fragment_at_its_indentation():
    doc = "Title.\n\n    Parameters\n    ----------\n    a : int\n        A.\n    %(shared)s\n"
    out = substitute(doc, {"shared": """
        b : float
            Shared, 5 % of it.

            Second paragraph.
        """})
    assert out == ("Title.\n\n    Parameters\n    ----------\n    a : int\n        A.\n"
                   "    b : float\n        Shared, 5 % of it.\n\n        Second paragraph.\n")


def test_only_whole_token_lines_are_replaced_and_unknown_names_fail():
    assert substitute("50 %(x)s of it", {"x": "never"}) == "50 %(x)s of it"
    assert substitute(None, {}) is None
    with pytest.raises(KeyError, match="'missing' is not defined"):
        substitute("    %(missing)s\n", {"x": "y"})


def test_fill_doc_fills_a_class_and_its_methods():
    @fill_doc(p="q : int\n    Q.")
    class A:
        """A.

        Parameters
        ----------
        %(p)s
        """

        def fit(self):
            """Fit.

            Parameters
            ----------
            %(p)s
            """

    assert "        q : int\n            Q." in A.__doc__
    assert "            q : int\n                Q." in A.fit.__doc__


@pytest.mark.parametrize("cls", MARGIN_MODELS, ids=lambda c: c.__name__)
def test_the_margin_models_docstrings_are_whole(cls):
    params = inspect.signature(cls).parameters
    doc, fit_doc = inspect.getdoc(cls), inspect.getdoc(cls.fit)
    assert "%(" not in doc and "%(" not in fit_doc
    for name in params:                     # every parameter described, once
        assert doc.count(f"\n{name} : ") == 1, name
    for name in ("fit_time_", "n_iter_", "classes_"):
        assert doc.count(f"\n{name} : ") == 1, name
    for name in ("X", "y", "X_val", "y_val"):
        assert fit_doc.count(f"\n{name} : ") == 1, name
    # the shared text is the same in every class
    shared = inspect.getdoc(margin.MarginPerceptron)
    start = shared.index("max_iter : ")
    assert shared[start:shared.index("\n\nAttributes")] in doc
