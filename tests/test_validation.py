"""kernelnb._validation: the one parameter check and the one input check."""
import re

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import InvalidParameterError

import kernelnb._validation as validation
from kernelnb._validation import (
    CALLBACK,
    POSITIVE,
    POSITIVE_INT,
    check_input,
    check_param,
    check_params,
    check_representable,
)
from kernelnb.datasets import _checks


class _Toy(BaseEstimator):
    _parameter_constraints = {"width": POSITIVE, "k": POSITIVE_INT,
                              "mode": [validation.str_options({"a", "b"})], "callback": CALLBACK}

    def __init__(self, width=1.0, k=1, mode="a", callback=None):
        self.width, self.k, self.mode, self.callback = width, k, mode, callback


@pytest.mark.parametrize("params, name", [
    (dict(width=0.0), "width"), (dict(width=np.inf), "width"), (dict(width=np.nan), "width"),
    (dict(k=0), "k"), (dict(k=1.5), "k"), (dict(mode="c"), "mode"), (dict(callback=3), "callback"),
])
def test_one_error_type_naming_the_parameter(params, name):
    with pytest.raises(InvalidParameterError,
                       match=rf"The '{name}' parameter of _Toy must be .* Got .* instead") as err:
        check_params(_Toy(**params))
    assert isinstance(err.value, ValueError) and isinstance(err.value, TypeError)


def test_valid_parameters_pass_and_check_param_returns_the_value():
    check_params(_Toy(width=2, k=3, mode="b", callback=print))
    assert check_param("n", 4, POSITIVE_INT, "f") == 4
    with pytest.raises(ValueError, match="The 'n' parameter of f must be an int"):
        check_param("n", -4, POSITIVE_INT, "f")


@pytest.mark.parametrize("precision, ok, bad", [("float32", 1e18, 1e19), ("float64", 1e153, 1e155)])
def test_representable_limits(precision, ok, bad):
    """|x| up to sqrt(max / (4 d)): squared distances stay finite in the solver's precision."""
    check_representable(np.array([[ok, 0.0]]) / np.sqrt(2), precision)
    with pytest.raises(ValueError, match=f"magnitude .* {precision}"):
        check_representable(np.array([[bad, 0.0]]), precision)


@pytest.mark.parametrize("precision, ok, bad", [("float32", 1e17, 1e19), ("float64", 1e152, 1e155)])
def test_representable_many_large_values(precision, ok, bad):
    """The one-read shortcut (||X|| below the limit) must not decide alone: many values each
    below the limit have a norm above it (and in float64 a sum of squares that overflows), and
    a single value above the limit among many small ones is still found."""
    many = np.full((2000, 2), ok)
    check_representable(many, precision)
    small = np.zeros((2000, 2))
    small[1234, 1] = -bad
    with pytest.raises(ValueError, match=f"magnitude 1e\\+{int(np.log10(bad))}:.*{precision}"):
        check_representable(small, precision)


def test_representable_counts_scales_and_polynomial_degree():
    X = np.ones((2, 2))
    check_representable(X, "float32", scale=[1e17, 1.0])
    with pytest.raises(ValueError, match="float32"):
        check_representable(X, "float32", scale=[1e20, 1.0])
    check_representable(X * 1e5, "float32", degree=3, offset=1.0)
    with pytest.raises(ValueError, match="degree-3 polynomial"):
        check_representable(X * 1e7, "float32", degree=3, offset=1.0)
    check_representable(X, "float32", scale=object())       # not numbers: the table names it


def test_check_input_is_validate_data_plus_the_range():
    est = _Toy()
    X = np.arange(6.0).reshape(3, 2)
    Xc, yc = check_input(est, X, np.array([0.0, 1.0, 2.0]), y_numeric=True)
    assert est.n_features_in_ == 2 and Xc.dtype == np.float64
    with pytest.raises(ValueError, match="y holds a value of magnitude"):
        check_input(est, X, np.array([0.0, 1.0, 1e300]), y_numeric=True)
    with pytest.raises(ValueError, match="features"):
        check_input(est, np.ones((2, 3)), reset=False)
    with pytest.raises(ValueError, match="float32"):
        check_input(est, X * 1e30, precision="float32")


def test_dataset_checks_take_name_then_value_and_the_old_order():
    """The data-set helpers use the same mechanism; (value, name) is still understood."""
    def make_thing(n):
        return _checks.check_int("n_samples", n, minimum=2)

    assert make_thing(3) == 3
    with pytest.raises(ValueError, match="The 'n_samples' parameter of make_thing must be an int "
                                         r"in the range \[2, inf\)\. Got 1 instead"):
        make_thing(1)
    assert _checks.check_positive(2.5, "width") == 2.5


def test_every_input_goes_through_the_one_check():
    """No module of the package calls scikit-learn's validate_data itself: the range check of
    check_input would be skipped there."""
    from pathlib import Path

    import kernelnb

    root = Path(kernelnb.__file__).parent
    direct = [str(p.relative_to(root)) for p in root.rglob("*.py")
              if p.name != "_validation.py" and "validate_data(" in p.read_text(encoding="utf-8")]
    assert not direct, f"call kernelnb._validation.check_input instead in {direct}"


def test_no_private_scikit_learn_name_is_re_exported():
    """kernelnb._validation builds scikit-learn's constraints with constructors of its own: none
    of sklearn.utils._param_validation's names is part of it (in ``__all__`` or as an attribute
    the estimators could import), and every public module of the package that is imported holds
    no object defined in that private module under a public name."""
    import importlib
    import pkgutil

    import kernelnb
    from sklearn.utils import _param_validation as private

    theirs = {n for n in dir(private) if not n.startswith("_")}
    assert not theirs & set(validation.__all__)
    assert not {n for n in vars(validation) if not n.startswith("_")} & theirs - {"Integral",
                                                                                  "Real", "np"}
    leaked = []
    for info in pkgutil.walk_packages(kernelnb.__path__, "kernelnb."):
        if ".lab" in info.name or ".course" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if not name.startswith("_") and isinstance(value, type) and \
                    value.__module__ == private.__name__:
                leaked.append(f"{info.name}.{name}")
    assert not leaked


def test_the_constructors_build_working_constraints():
    import numbers

    table = {"a": [validation.interval(numbers.Real, 0, 1, closed="left")],
             "b": [validation.interval("real_not_int", 0, 1, closed="neither")],
             "c": [validation.str_options(["x", "y"])],
             "d": [validation.options(numbers.Real, {np.inf})],
             "e": [validation.has_methods(["get_params"])]}
    good = {"a": 0, "b": 0.5, "c": "y", "d": np.inf, "e": _Toy()}
    for name, constraint in table.items():
        assert check_param(name, good[name], constraint, "f") is good[name]
    for name, bad in [("a", 1), ("b", 1), ("c", "z"), ("d", 2.0), ("e", 3)]:
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of f"):
            check_param(name, bad, table[name], "f")


def test_the_base_class_reads_each_classs_parameter_names_once():
    """kernelnb's BaseEstimator gives scikit-learn's names (sklearn's own function is the
    reference) for every public estimator, a class whose __init__ is replaced is read again, and
    clone and get_params work as scikit-learn's."""
    import sklearn.base
    from sklearn.base import clone

    from kernelnb._estimator import BaseEstimator as Base

    from ._estimators import public_estimator_classes

    classes = public_estimator_classes()
    assert len(classes) > 30
    theirs = sklearn.base.BaseEstimator._get_param_names.__func__
    for cls in classes.values():
        assert issubclass(cls, Base), f"{cls.__name__} has scikit-learn's BaseEstimator"
        assert cls._get_param_names() == theirs(cls)

    class Toy(Base):
        def __init__(self, a=1, b=2):
            self.a, self.b = a, b

    assert Toy().get_params() == {"a": 1, "b": 2}
    names = Toy._get_param_names()
    names.append("x")                                 # a caller's list is its own
    assert Toy._get_param_names() == ["a", "b"]

    def init(self, c=3):
        self.c = c

    Toy.__init__ = init
    assert Toy().get_params() == {"c": 3}
    copy = clone(Toy(c=5))
    assert type(copy) is Toy and copy.get_params() == {"c": 5}


@pytest.mark.parametrize("y", [
    np.array([0, 1, 1, 0]), np.array([True, False, True]),
    np.arange(10),                                # 10 classes of 10 labels: 20 or fewer
    np.repeat(np.arange(5), 6),                   # 5 classes of 30 labels
    np.arange(30),                                # 30 of 30: scikit-learn >= 1.7 warns
    np.arange(30).astype(np.uint8),
    np.array([0.0, 1.0, 1.0]),                    # float labels: scikit-learn's own check
    np.array(["a", "b"]), [0, 1, 2],
])
def test_the_target_check_is_scikit_learns(y):
    """kernelnb's check_classification_targets passes and warns as scikit-learn's (whose
    "more unique classes than half the samples" warning exists from 1.7 on)."""
    import warnings

    from sklearn.utils.multiclass import check_classification_targets as theirs

    with warnings.catch_warnings(record=True) as ours_w:
        warnings.simplefilter("always")
        validation.check_classification_targets(y)
    with warnings.catch_warnings(record=True) as theirs_w:
        warnings.simplefilter("always")
        theirs(y)
    assert [str(w.message) for w in ours_w] == [str(w.message) for w in theirs_w]


@pytest.mark.parametrize("y", [np.array([0.5, 1.0, 2.0]), np.zeros((2, 2, 2), dtype=int),
                               np.array([object(), object()], dtype=object)])
def test_the_target_check_refuses_what_scikit_learn_refuses(y):
    from sklearn.utils.multiclass import check_classification_targets as theirs

    with pytest.raises(ValueError) as expected:
        theirs(y)
    with pytest.raises(ValueError) as err:
        validation.check_classification_targets(y)
    assert str(err.value) == str(expected.value)


def test_an_array_check_array_would_keep_is_not_read_again(monkeypatch):
    """A 2-D array of the dtype and order asked for is returned as it is, with the number of
    features still checked (by validate_data, which checks the feature names too); any other
    input goes through check_array (a copy in the order asked for, scikit-learn's messages)."""
    import sklearn.utils.validation as skv

    est = _Toy()
    X = np.arange(12.0).reshape(4, 3)
    real = skv.check_array
    read = []

    def counted(*args, **kwargs):
        read.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(skv, "check_array", counted)
    assert check_input(est, X, dtype=np.float64, order="C") is X and est.n_features_in_ == 3
    assert check_input(est, X, reset=False, dtype=[np.float64, np.float32], order="C") is X
    with pytest.raises(ValueError, match="X has 2 features, but _Toy is expecting 3 features"):
        check_input(est, X[:, :2].copy(), reset=False, dtype=np.float64, order="C")
    assert read == []
    F = np.asfortranarray(X)
    C = check_input(est, F, reset=False, dtype=np.float64, order="C")
    assert C is not F and C.flags.c_contiguous and np.array_equal(C, X)
    X32 = X.astype(np.float32)
    assert check_input(est, X32, reset=False, dtype=np.float64).dtype == np.float64
    for bad, match in [(np.ones((0, 3)), "0 sample"), (np.ones(3), "Expected 2D array"),
                       (np.full((2, 3), np.nan), "NaN")]:
        with pytest.raises(ValueError, match=match):
            check_input(est, bad, reset=False, dtype=np.float64, order="C")
    # the Fortran, float32, empty and 1-D ones (the NaN one is refused by check_input's own
    # finiteness check, whichever path)
    assert len(read) == 4


def test_a_target_check_X_y_would_keep_is_not_read_again(monkeypatch):
    """With a target, an X and a y that check_X_y would return as they are (a 1-D C-contiguous
    array of integers, booleans or finite floats, one per row) skip it; every other target goes
    through it, with scikit-learn's messages and warnings."""
    import warnings

    import sklearn.utils.validation as skv
    from sklearn.exceptions import DataConversionWarning

    est = _Toy()
    X = np.arange(12.0).reshape(4, 3)
    real = skv.check_array
    read = []

    def counted(*args, **kwargs):
        read.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(skv, "check_array", counted)
    for y in (np.array([0, 1, 0, 1]), np.array([True, False, True, True]),
              np.array([0.5, -1.0, 2.0, 3.0]), np.array([1, 2, 3, 4], dtype=np.uint8)):
        Xv, yv = check_input(est, X, y, dtype=np.float64, order="C")
        assert Xv is X and np.shares_memory(yv, y) and yv.dtype == y.dtype
        np.testing.assert_array_equal(yv, y)
        assert check_input(est, X, y, dtype=np.float64, y_numeric=True,
                           multi_output=False)[1] is y
    assert read == []
    # what check_X_y must see: its messages, and its copy of a strided target
    for y, match in [(np.array([0.0, np.nan, 1.0, 1.0]), "Input y contains NaN"),
                     (np.array([0.0, np.inf, 1.0, 1.0]), "Input y contains infinity"),
                     (np.array([0, 1, 1]), "inconsistent numbers of samples")]:
        with pytest.raises(ValueError, match=match):
            check_input(est, X, y, dtype=np.float64)
    strided = np.array([0, 9, 1, 9, 0, 9, 1, 9])[::2]
    yv = check_input(est, X, strided, dtype=np.float64)[1]
    assert yv.flags.c_contiguous and np.array_equal(yv, [0, 1, 0, 1])
    assert check_input(est, X, np.array([0, 1, 0, 1], dtype=object), dtype=np.float64,
                       y_numeric=True)[1].dtype == np.float64
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert check_input(est, X, np.array([[0], [1], [0], [1]]), dtype=np.float64)[1].ndim == 1
    assert any(issubclass(w.category, DataConversionWarning) for w in caught)
    assert len(read) == 12   # X and y of each of the 6 calls


@pytest.mark.parametrize("params", [
    dict(), dict(width=2), dict(width=0.0), dict(width=-1), dict(width=np.nan), dict(width="2"),
    dict(k=3), dict(k=np.int64(3)), dict(k=0), dict(k=1.0), dict(k=True), dict(mode="b"),
    dict(mode="c"), dict(mode=None), dict(callback=print), dict(callback=3),
])
def test_the_parameter_check_agrees_with_scikit_learns(params):
    """check_params passes exactly where scikit-learn's validate_parameter_constraints does (and
    then raises its error); check_param likewise, with one list of constraints."""
    from sklearn.utils._param_validation import validate_parameter_constraints

    est = _Toy(**params)
    try:
        validate_parameter_constraints(_Toy._parameter_constraints, est.get_params(),
                                       caller_name="_Toy")
    except InvalidParameterError as exc:
        with pytest.raises(InvalidParameterError) as err:
            check_params(est)
        assert str(err.value) == str(exc)
    else:
        check_params(est)
    name, value = next(iter(params.items()), ("width", 1.0))
    constraints = _Toy._parameter_constraints[name]
    try:
        validate_parameter_constraints({name: constraints}, {name: value}, caller_name="f")
    except InvalidParameterError as exc:
        with pytest.raises(InvalidParameterError, match=re.escape(str(exc))):
            check_param(name, value, constraints, "f")
    else:
        assert check_param(name, value, constraints, "f") is value


def test_the_constraint_objects_are_made_once_per_table(monkeypatch):
    made = []
    real = validation._sk.make_constraint
    monkeypatch.setattr(validation._sk, "make_constraint", lambda c: made.append(c) or real(c))

    class Fresh(_Toy):
        _parameter_constraints = dict(_Toy._parameter_constraints)

    check_params(Fresh(width=3.0))
    first = len(made)
    assert first == sum(len(c) for c in Fresh._parameter_constraints.values())
    check_params(Fresh(width=4.0, k=2))
    one = list(POSITIVE_INT)
    check_param("k", 5, one, "f")
    check_param("k", 6, one, "f")
    assert len(made) == first + len(one)
    with pytest.raises(InvalidParameterError, match="The 'width' parameter of Fresh"):
        check_params(Fresh(width=-1.0))
