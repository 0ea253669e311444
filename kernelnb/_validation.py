"""One way to validate, for every estimator of kernelnb.

* **Constructor parameters**: each estimator declares a table ``_parameter_constraints``
  (scikit-learn's format, ``{name: [constraint, ...]}``, so that scikit-learn's estimator checks
  read it) and calls :func:`check_params` at the start of ``fit``.  A constraint is one of
  scikit-learn's strings (``"boolean"``, ``"random_state"``, ``"verbose"``), a type, ``callable``,
  ``None``, or one made by this module's own constructors: :func:`interval`,
  :func:`str_options`, :func:`options`, :func:`has_methods` and the shared lists below.  Those
  constructors are kernelnb's vocabulary; they build scikit-learn's constraint objects, and this
  module is the only one of the package that imports scikit-learn's private
  ``_param_validation`` (nothing of it is re-exported: were it to change, this module alone
  would follow).  A bad value raises scikit-learn's ``InvalidParameterError``, which
  subclasses both ``ValueError`` and ``TypeError``, with a message naming the parameter:
  ``The 'sigma' parameter of SVC must be a float in the range (0.0, inf). Got -1 instead.``
  A single value outside an estimator (a data set generator's argument, a helper's) goes
  through :func:`check_param`, the same machinery.
  Callbacks have one rule: :data:`CALLBACK` (a callable or None).

* **Input arrays**: :func:`check_input` wraps :func:`sklearn.utils.validation.validate_data`
  (2-D, non-empty, finite, consistent lengths, the number of features seen in ``fit``) and adds
  one check scikit-learn does not make: every value is representable in the solver's precision
  *after* the products a kernel forms.  Squared distances and inner products reach
  ``4 d max|x|^2``; in float32 (the SVM and KMP fast paths) that overflows from
  ``max|x| ~ 9e18 / sqrt(d)``, in float64 from ``~ 7e153 / sqrt(d)``, and an overflow turns into
  ``inf``/``NaN`` kernel values and a silently wrong model.  Such inputs raise a
  ``ValueError`` instead.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils import _param_validation as _sk
from sklearn.utils.multiclass import check_classification_targets as _sk_check_targets
from sklearn.utils.validation import check_array, validate_data

__all__ = [
    "CALLBACK", "N_JOBS", "POSITIVE", "POSITIVE_INT", "NONNEGATIVE", "NONNEGATIVE_INT",
    "FRACTION", "interval", "str_options", "options", "has_methods", "check_input",
    "check_param", "check_params", "check_representable", "check_sample_weight",
    "check_classification_targets",
]

# -- the constraints' constructors --------------------------------------------------------


def interval(kind, left, right, *, closed):
    """A number of type ``kind`` between ``left`` and ``right``.

    Parameters
    ----------
    kind : {numbers.Integral, numbers.Real, 'real_not_int'}
        Integers, real numbers (integers included), or real numbers that are not integers.
    left, right : float or None
        The bounds; None is unbounded on that side.
    closed : {'left', 'right', 'both', 'neither'}
        Which bounds belong to the interval.

    Returns
    -------
    object
        A constraint for ``_parameter_constraints``.
    """
    if isinstance(kind, str) and kind == "real_not_int":
        kind = _sk.RealNotInt
    return _sk.Interval(kind, left, right, closed=closed)


def str_options(names):
    """One of the strings ``names``.

    Parameters
    ----------
    names : iterable of str
        The accepted strings.

    Returns
    -------
    object
        A constraint for ``_parameter_constraints``.
    """
    return _sk.StrOptions(set(names))


def options(kind, values):
    """One of ``values``, of type ``kind`` (e.g. ``options(numbers.Real, {np.inf})``).

    Parameters
    ----------
    kind : type
        The type the value must have.
    values : set
        The accepted values.

    Returns
    -------
    object
        A constraint for ``_parameter_constraints``.
    """
    return _sk.Options(kind, set(values))


def has_methods(names):
    """Any object with the methods ``names`` (an estimator, a client).

    Parameters
    ----------
    names : str or list of str
        The methods the object must have.

    Returns
    -------
    object
        A constraint for ``_parameter_constraints``.
    """
    return _sk.HasMethods(names)


# -- shared constraints (lists, so that ``POSITIVE + [str_options({"scale"})]`` composes) ---
#: a finite number > 0
POSITIVE = [interval(Real, 0, None, closed="neither")]
#: a finite number >= 0
NONNEGATIVE = [interval(Real, 0, None, closed="left")]
#: an integer >= 1
POSITIVE_INT = [interval(Integral, 1, None, closed="left")]
#: an integer >= 0
NONNEGATIVE_INT = [interval(Integral, 0, None, closed="left")]
#: a number strictly between 0 and 1
FRACTION = [interval("real_not_int", 0, 1, closed="neither")]
#: threads: a positive integer, -1 (every core) or None
N_JOBS = [interval(Integral, 1, None, closed="left"), options(Integral, {-1}), None]
#: the one rule for callbacks: a callable or None (anything else: InvalidParameterError)
CALLBACK = [callable, None]


#: ``{id(x): (x, made)}``: each table of ``_parameter_constraints`` (``made``: ``{name:
#: constraint objects or "no_validation"}``) and each list of constraints handed to
#: :func:`check_param` (``made``: the objects), made into scikit-learn's constraint objects
#: once; ``x`` is held, so its ``id`` is not reused; a table or list once used is not changed
_MADE: dict = {}


def _made(x, make):
    """``make(x)``, computed once for the object ``x`` (while the cache holds it)."""
    entry = _MADE.get(id(x))
    if entry is None or entry[0] is not x:
        if len(_MADE) >= 1024:          # lists made on the fly at each call: keep it bounded
            _MADE.clear()
        entry = _MADE[id(x)] = (x, make(x))
    return entry[1]


def _objects(constraints):
    if isinstance(constraints, str) and constraints == "no_validation":
        return constraints
    return [_sk.make_constraint(c) for c in constraints]


def _table_objects(table):
    return {name: _objects(c) for name, c in table.items()}


def _met(constraints, value) -> bool:
    """scikit-learn's rule in ``validate_parameter_constraints``: ``value`` meets one of the
    constraint objects (or the parameter is not validated)."""
    return isinstance(constraints, str) or any(c.is_satisfied_by(value) for c in constraints)


def check_params(estimator):
    """Check ``estimator``'s constructor parameters against its ``_parameter_constraints``.

    Raises scikit-learn's ``InvalidParameterError`` (a ``ValueError`` and a ``TypeError``)
    naming the first parameter that matches none of its constraints. The constraint objects
    are made once per table (making them was most of the check's time, about 0.1 ms a fit);
    where a value meets none, scikit-learn's own check says which and why."""
    table = type(estimator)._parameter_constraints
    made = _made(table, _table_objects)
    params = estimator.get_params(deep=False)
    if not all(_met(made[name], value) for name, value in params.items() if name in made):
        _sk.validate_parameter_constraints(table, params, caller_name=type(estimator).__name__)


def check_param(name, value, constraints, caller):
    """Check one value against a list of constraints (the format of ``_parameter_constraints``)
    and return it unchanged; ``caller`` names the function or class in the error message."""
    if not _met(_made(constraints, _objects), value):
        _sk.validate_parameter_constraints({name: list(constraints)}, {name: value},
                                           caller_name=caller)
    return value


def _limit(precision, n_terms, degree=1, offset=0.0):
    """Largest |x| whose kernel products stay finite in ``precision``: ``4 n_terms |x|^2``
    (squared distances), and ``(n_terms |x|^2 + |offset|) ** degree`` for a polynomial kernel
    of degree > 1 (its inner products)."""
    degree = max(int(degree), 1)
    top = float(np.finfo(precision).max) ** (1.0 / degree) - abs(float(offset))
    factor = 4.0 if degree == 1 else 1.0
    return float(np.sqrt(max(top, 0.0) / (factor * max(int(n_terms), 1))))


def _sum_of_squares(A):
    """``sum A**2`` in one read for a C-contiguous float64 array (NaN or inf when ``A`` holds
    one, or when the squares overflow), else None.

    numpy's own loop (``einsum``), not BLAS: OpenBLAS's threaded ``ddot`` waits for its threads,
    and on a machine with as many cores as threads, just after one of kernelnb's OpenMP regions
    (whose threads still spin), that wait is far longer than one thread's read of the array."""
    if not (isinstance(A, np.ndarray) and A.dtype == np.float64 and A.flags.c_contiguous):
        return None
    a = A.reshape(-1)
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.einsum("i,i->", a, a))


def check_representable(A, precision=np.float64, name="X", n_terms=None, scale=None, degree=1,
                        offset=0.0, sum_of_squares=None):
    """Raise a ``ValueError`` when the kernel products of ``A`` would overflow ``precision``.

    ``A`` is a finite 2-D (or 1-D) array; ``n_terms`` is the number of summed products (the
    number of features by default); ``scale`` multiplies the columns first (a kernel's
    per-feature scaling factors, when they broadcast); ``degree`` and ``offset`` are those of a
    polynomial kernel ``(<x, y> + offset) ** degree``; ``sum_of_squares``: ``sum A**2`` when the
    caller has it."""
    A = np.asarray(A)
    if A.size == 0 or A.dtype.kind not in "fiu":
        return
    if n_terms is None:
        n_terms = A.shape[1] if A.ndim == 2 else 1
    precision = np.dtype(precision)
    limit = _limit(precision, n_terms, degree, offset)
    if scale is None:
        # max |A| <= ||A||: one BLAS read of the input settles the common case (the two reads of
        # max and min below are left for inputs near the limit)
        ss = _sum_of_squares(A) if sum_of_squares is None else sum_of_squares
        if ss is not None and ss < 0.25 * limit * limit:
            return
    # max |A| from the extremes, without the copy np.abs(A) would make of the whole input
    m = max(abs(float(np.max(A))), abs(float(np.min(A))))
    if scale is not None:
        try:
            s = np.asarray(scale, dtype=np.float64)
        except (TypeError, ValueError):   # not numbers: the parameter table names it
            s = np.empty(0)
        if A.ndim == 2 and s.ndim == 1 and s.shape[0] == A.shape[1] and np.all(np.isfinite(s)):
            col = np.maximum(np.abs(A.max(axis=0).astype(np.float64)),
                             np.abs(A.min(axis=0).astype(np.float64)))
            m = float(np.max(col * np.abs(s)))
    if not m < limit:
        what = ("squared distances and inner products" if degree == 1 else
                f"the degree-{int(degree)} polynomial kernel")
        raise ValueError(
            f"{name} holds a value of magnitude {m:.3g}: too large for this estimator's "
            f"{precision.name} computations ({what} over {n_terms} feature(s) would overflow "
            f"above |{name}| ~ {limit:.2g}); rescale {name}, e.g. with "
            f"sklearn.preprocessing.StandardScaler")


def _array_kept(X, dtype, order) -> bool:
    """Whether ``check_array`` would return ``X`` unchanged and raise nothing: a 2-D numpy array
    (not a subclass) with a row and a column at least, of one of the ``dtype`` asked for, in
    the ``order`` asked for (its finiteness is :func:`check_input`'s own check either way)."""
    if not (type(X) is np.ndarray and X.ndim == 2 and X.shape[0] >= 1 and X.shape[1] >= 1):
        return False
    dtypes = dtype if isinstance(dtype, (list, tuple)) else [dtype]
    if dtype is None or not any(X.dtype == np.dtype(d) for d in dtypes):
        return False
    return (order is None or (order == "C" and X.flags.c_contiguous)
            or (order == "F" and X.flags.f_contiguous))


def _target_kept(y, n_samples) -> bool:
    """Whether ``check_X_y``'s check of the target would return ``y``'s values unchanged and
    raise nothing: a C-contiguous 1-D numpy array (not a subclass) of booleans, integers or
    finite floats, one per row of X (``column_or_1d`` returns such an array's own data, and
    ``y_numeric`` converts only object arrays)."""
    if not (type(y) is np.ndarray and y.ndim == 1 and y.shape[0] == n_samples
            and y.flags.c_contiguous):
        return False
    if y.dtype.kind in "biu":
        return True
    if y.dtype.kind != "f":
        return False
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(np.add.reduce(y)))   # a finite sum: every entry finite


#: the options of ``check_input`` under which an array kept by :func:`_array_kept` (and a target
#: kept by :func:`_target_kept`) comes back from ``validate_data`` as it went in
_KEEPING_OPTIONS = frozenset({"order", "y_numeric"})


def _checked_already(X, y, dtype, kwargs) -> bool:
    """Whether ``check_input``'s call of ``check_array`` on ``X`` (``check_X_y`` on ``X`` and
    ``y``) would return them unchanged and raise nothing (:func:`_array_kept`,
    :func:`_target_kept`), with no option but ``order``, ``y_numeric`` and
    ``multi_output=False``."""
    opts = dict(kwargs)
    if opts.get("multi_output") is False:
        del opts["multi_output"]
    if set(opts) - _KEEPING_OPTIONS or not _array_kept(X, dtype, opts.get("order")):
        return False
    if y is None or (isinstance(y, str) and y == "no_validation"):
        return True
    return _target_kept(y, X.shape[0])


def check_input(estimator, X="no_validation", y="no_validation", *, reset=True,
                precision=None, scale=None, degree=1, offset=0.0, dtype=np.float64, **kwargs):
    """The one input check of every ``fit``, ``predict``, ``score_samples``, ...

    :func:`sklearn.utils.validation.validate_data` (2-D, non-empty, finite, consistent
    lengths, ``n_features_in_``; extra keyword arguments are passed on), then
    :func:`check_representable` on X in ``precision`` (default: the dtype X comes out with) with
    the kernel's per-feature ``scale`` (and a polynomial kernel's ``degree`` and ``offset``), and
    on numeric targets (``y_numeric=True``) in float64.

    X's finiteness is read from its sum of squares, the read :func:`check_representable` makes
    anyway (finite squares mean finite entries), instead of the sum that ``validate_data`` reads
    for it; where that sum is not finite, scikit-learn's own check says which entry is wrong.

    Returns what ``validate_data`` returns: X, or (X, y)."""
    finite = kwargs.pop("ensure_all_finite", True)
    if _checked_already(X, y, dtype, kwargs):
        # check_array (check_X_y) would return X (and y) as they are: validate_data's own part
        # only (the number of features, the feature names), without check_array's reading of
        # each input's type (0.05-0.1 ms an array)
        out = validate_data(estimator, X, y, reset=reset, skip_check_array=True)
    else:
        out = validate_data(estimator, X, y, reset=reset, dtype=dtype,
                            ensure_all_finite=False if finite is True else finite, **kwargs)
    no_x = isinstance(X, str) and X == "no_validation"
    no_y = y is None or (isinstance(y, str) and y == "no_validation")
    Xv = None if no_x else (out if no_y else out[0])
    if Xv is not None and hasattr(Xv, "dtype"):
        ss = _sum_of_squares(Xv)
        if finite is True and not (ss is not None and np.isfinite(ss)):
            # NaN or inf (scikit-learn's message), or squares that overflow (then nothing here)
            check_array(Xv, ensure_all_finite=True, dtype=None, ensure_2d=False,
                        ensure_min_samples=0, ensure_min_features=0, estimator=estimator,
                        input_name="X")
        check_representable(Xv, Xv.dtype if precision is None else precision, "X", scale=scale,
                            degree=degree, offset=offset, sum_of_squares=ss)
    if not no_y and kwargs.get("y_numeric"):
        yv = out if no_x else out[1]
        check_representable(np.asarray(yv).reshape(-1), np.float64, "y",
                            n_terms=np.asarray(yv).shape[0])
    return out


def check_classification_targets(y):
    """Raise a ``ValueError`` unless ``y`` holds class labels (not a regression target).

    :func:`sklearn.utils.multiclass.check_classification_targets`, which reads the type of the
    target (:func:`~sklearn.utils.multiclass.type_of_target`, about 0.4 ms on a hundred labels),
    and warns when a multiclass ``y`` of more than 20 entries has more distinct values than half
    their number. A 1-D array of integers or booleans is always binary or multiclass, so where
    it cannot draw that warning (20 entries or fewer, or few distinct values) it passes
    without; anything else is scikit-learn's check.

    Parameters
    ----------
    y : array-like
        The targets of ``fit``.
    """
    if isinstance(y, np.ndarray) and y.ndim == 1 and y.size and y.dtype.kind in "biu":
        n = y.shape[0]
        if n <= 20 or np.unique(y).shape[0] <= round(0.5 * n):
            return
    _sk_check_targets(y)


def check_sample_weight(sample_weight, X):
    """The weights of the rows of ``X`` as a float64 array of shape ``(n_samples,)``.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,), float or None
        None: every row weighs 1; a number: every row weighs it.
    X : ndarray of shape (n_samples, n_features)
        The (validated) inputs the weights belong to.

    Returns
    -------
    ndarray of shape (n_samples,)
        The weights, finite; a ``ValueError`` names ``sample_weight`` when they are not a 1-D
        array of one finite number per row, or are all zero.
    """
    n = X.shape[0]
    if sample_weight is None:
        return np.ones(n)
    if isinstance(sample_weight, Real):
        return np.full(n, float(sample_weight))
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sample_weight must be numbers, got {type(sample_weight).__name__}") \
            from exc
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(f"sample_weight must have shape ({n},), one weight per sample; got "
                         f"shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight must be finite (it holds NaN or infinity)")
    if n and not np.any(w):
        raise ValueError("sample_weight is zero for every sample: nothing to fit")
    return w
