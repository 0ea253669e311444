"""The bad-input matrix: every public estimator found in the package (``tests/_estimators.py``)
against NaN, inf, huge finite values, empty input, wrong shapes and bad parameters.  Each must
raise a clear ``ValueError`` (``InvalidParameterError`` for parameters, which is also a
``TypeError``) whose message names the parameter or the problem: never a crash, a NaN output or
a silently wrong model."""
import warnings

import numpy as np
import pytest
from sklearn.base import is_regressor
from sklearn.utils import get_tags
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    generate_invalid_param_val,
    make_constraint,
)

from tests._estimators import ESTIMATOR_CLASSES, make

NAMES = list(ESTIMATOR_CLASSES)


def _data(est, n=40, d=3, seed=0):
    """(X, y, supervised) of a small, well separated problem suited to ``est``."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    if is_regressor(est):
        y = X[:, 0] + 0.5 * X[:, 1] + 0.05 * rng.randn(n)
    else:
        y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    return X, y, get_tags(est).target_tags.required


def _fit(est, X, y, supervised):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # convergence warnings of tiny fits
        return est.fit(X, y) if supervised else est.fit(X)


def _outputs(est, X):
    """Every prediction-like method the fitted estimator has, on X."""
    out = {}
    for method in ("predict", "decision_function", "predict_proba", "score_samples", "transform"):
        if hasattr(est, method):
            out[method] = np.asarray(getattr(est, method)(X))
    assert out, f"{type(est).__name__} has no prediction method"
    return out


def _solves_in_float32(est):
    """Estimators whose solver reads float32 (SVM decomposition, KMP's fast path, and what
    runs SVMs inside: the tuners, the selectors, the mixture)."""
    params = est.get_params(deep=False)
    if params.get("precision") == "float32":
        return True
    inner = params.get("estimator", "absent")
    if inner is None or getattr(inner, "precision", None) == "float32":
        return True
    return type(est).__name__ == "MixtureSVC"


@pytest.fixture(params=NAMES)
def case(request):
    est = make(ESTIMATOR_CLASSES[request.param])
    return (est,) + _data(est)


# -- fit --------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad, message", [(np.nan, "NaN"), (np.inf, "infinity"),
                                          (-np.inf, "infinity"),
                                          (1e300, "too large|magnitude")])
def test_fit_rejects_non_finite_and_huge_values(case, bad, message):
    est, X, y, supervised = case
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(ValueError, match=message):
        _fit(est, X, y, supervised)


def test_float32_overflow_is_refused_or_harmless(case):
    """One entry of 1e39 (finite in float64, inf in float32): a float32 solver must refuse it;
    any other estimator may accept it, but then its outputs stay finite and a classifier keeps
    (nearly) its accuracy on the other points."""
    est, X, y, supervised = case
    Xb = X.copy()
    Xb[3, 1] = 1e39
    if _solves_in_float32(est):
        with pytest.raises(ValueError, match="too large|magnitude|float32"):
            _fit(est, Xb, y, supervised)
        return
    try:
        _fit(est, Xb, y, supervised)
    except ValueError as err:          # refusing is fine too, with a message that says why
        assert "too large" in str(err) or "magnitude" in str(err) or "overflow" in str(err)
        return
    rest = np.delete(np.arange(len(X)), 3)
    for method, out in _outputs(est, Xb[rest]).items():
        assert np.all(np.isfinite(out)), f"{method} gives non-finite values"


def test_fit_rejects_empty_input(case):
    est, X, y, supervised = case
    with pytest.raises(ValueError, match="0 sample"):
        _fit(est, X[:0], y[:0], supervised)


def test_fit_rejects_1d_X(case):
    est, X, y, supervised = case
    with pytest.raises(ValueError, match="2D array"):
        _fit(est, X[:, 0], y, supervised)


def test_fit_rejects_mismatched_y(case):
    est, X, y, supervised = case
    if not supervised:
        # an unsupervised estimator ignores y, whatever its length: the fit must still be sound
        for out in _outputs(_fit(est, X, y[:-5], True), X).values():
            assert np.all(np.isfinite(out))
        return
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        _fit(est, X, y[:-5], supervised)


REGRESSORS = [n for n in NAMES if is_regressor(ESTIMATOR_CLASSES[n]())]


@pytest.mark.parametrize("name", REGRESSORS)
@pytest.mark.parametrize("bad, message", [(np.nan, "NaN"), (np.inf, "infinity"),
                                          (1e300, "y holds a value of magnitude")])
def test_regressors_reject_bad_targets(name, bad, message):
    """A huge target overflows the squares of a least-squares fit (or the targets'
    standardisation) into NaN: refused like a huge input."""
    est = make(ESTIMATOR_CLASSES[name])
    X, y, _ = _data(est)
    y = y.copy()
    y[4] = bad
    with pytest.raises(ValueError, match=message):
        _fit(est, X, y, True)


# -- predict ----------------------------------------------------------------------------------
@pytest.fixture
def fitted(case):
    est, X, y, supervised = case
    return _fit(est, X, y, supervised), X


def test_predict_is_finite_on_good_input(fitted):
    est, X = fitted
    for method, out in _outputs(est, X).items():
        if out.dtype.kind in "fc":
            assert np.all(np.isfinite(out)), f"{method} gives non-finite values"


@pytest.mark.parametrize("bad, message", [(np.nan, "NaN"), (np.inf, "infinity"),
                                          (1e300, "too large|magnitude")])
def test_predict_rejects_non_finite_and_huge_values(fitted, bad, message):
    est, X = fitted
    X = X[:5].copy()
    X[2, 0] = bad
    for method in ("predict", "decision_function", "score_samples", "transform"):
        if hasattr(est, method):
            with pytest.raises(ValueError, match=message):
                getattr(est, method)(X)


def test_predict_rejects_wrong_number_of_features(fitted):
    est, X = fitted
    for method in ("predict", "decision_function", "score_samples", "transform"):
        if hasattr(est, method):
            with pytest.raises(ValueError, match="features"):
                getattr(est, method)(X[:, :2])


def test_predict_rejects_1d_and_empty_X(fitted):
    est, X = fitted
    method = next(m for m in ("predict", "score_samples", "transform") if hasattr(est, m))
    with pytest.raises(ValueError, match="2D array"):
        getattr(est, method)(X[0])
    with pytest.raises(ValueError, match="0 sample"):
        getattr(est, method)(X[:0])


# -- parameters -------------------------------------------------------------------------------
def _bad_values(constraints):
    """Values outside a parameter's constraints: below/above an interval (negative or zero
    where a positive number is needed), a string that is not an option, a non-callable where a
    callable is needed, and an object of no accepted type."""
    values = [object()]
    for c in constraints:
        if isinstance(c, (Interval, StrOptions)):
            try:
                values.append(generate_invalid_param_val(make_constraint(c)))
            except NotImplementedError:
                pass
        if c is callable:
            values.append(3)
    return values


def _param_cases():
    for name, cls in ESTIMATOR_CLASSES.items():
        table = getattr(cls, "_parameter_constraints", {})
        for param, constraints in table.items():
            if constraints == "no_validation":
                continue
            for k, value in enumerate(_bad_values(constraints)):
                yield pytest.param(name, param, value, id=f"{name}-{param}-{k}")


@pytest.mark.parametrize("name, param, value", list(_param_cases()))
def test_bad_parameter_names_itself(name, param, value):
    est = make(ESTIMATOR_CLASSES[name], **{param: value})
    X, y, supervised = _data(est)
    with pytest.raises(ValueError, match=f"The '{param}' parameter of {name} must be"):
        _fit(est, X, y, supervised)


@pytest.mark.parametrize("name", [n for n in NAMES
                                  if "callback" in ESTIMATOR_CLASSES[n]().get_params()])
def test_non_callable_callback_one_rule(name):
    """One rule for callbacks everywhere: a non-callable raises InvalidParameterError (both a
    ValueError and a TypeError), naming ``callback``."""
    est = make(ESTIMATOR_CLASSES[name], callback="print")
    X, y, supervised = _data(est)
    with pytest.raises(InvalidParameterError, match="'callback' parameter"):
        _fit(est, X, y, supervised)


def test_every_estimator_has_a_table():
    """The matrix of bad parameters is derived from the tables: none may be missing."""
    missing = [n for n, cls in ESTIMATOR_CLASSES.items()
               if not getattr(cls, "_parameter_constraints", None)]
    assert not missing, f"no parameter table: {missing}"


# -- the solver's precision after the kernel's scaling ----------------------------------------
def test_float32_svm_refuses_what_its_kernel_scaling_would_overflow():
    """The training accuracy of an SVC fell from 94 % to 12 % without a word when one entry
    reached 1e38: in float32 the squared distances overflow.  The same happens when moderate
    values meet large per-feature scales; both are refused, naming X and the precision, and the
    float64 solver accepts what it can represent."""
    SVC = ESTIMATOR_CLASSES["SVC"]
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    y = (X[:, 0] > 0).astype(int)
    for Xb, params in [(np.where(np.arange(3) == 1, 1e38, X), {}),
                       (X, dict(scales=[1e20, 1.0, 1.0]))]:
        with pytest.raises(ValueError, match=r"X holds a value of magnitude .* float32"):
            SVC(**params).fit(Xb, y)
    big = X * 1e25                           # fine in float64 (squares ~1e50)
    model = SVC(sigma="scale", precision="float64").fit(big, y)
    assert model.score(big, y) == SVC(sigma="scale").fit(X, y).score(X, y)
    with pytest.raises(ValueError, match="float32"):
        SVC(sigma="scale").fit(big, y)


def test_float32_polynomial_kernel_overflow_is_refused():
    """(x.y + 1)^3 overflows float32 long before x does: at |x| ~ 1e8 on 3 features an SVC fell
    to 39 % training accuracy with non-finite decisions; now the fit says why it cannot work."""
    SVC = ESTIMATOR_CLASSES["SVC"]
    rng = np.random.RandomState(0)
    X = rng.randn(80, 3)
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    ok = SVC(kernel="poly").fit(X * 1e4, y)
    assert ok.score(X * 1e4, y) > 0.9
    with pytest.raises(ValueError, match="degree-3 polynomial kernel .* overflow"):
        SVC(kernel="poly").fit(X * 1e8, y)
    # the float64 solver has room for it
    assert np.all(np.isfinite(SVC(kernel="poly", precision="float64", max_iter=20000)
                              .fit(X * 1e8, y).decision_function(X * 1e8)))
