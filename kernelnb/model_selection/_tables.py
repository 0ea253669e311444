"""Estimates along one hyper-parameter: :func:`bounds_table` (Chapelle's thesis, ch. 3).

The experiment behind the thesis's figures of the bounds: refit an SVC for each value of
``sigma`` or ``C`` (warm-started from the previous value) and tabulate every estimate there
(:func:`estimate_all`'s), with validation, test and leave-one-out errors when asked.
"""
from __future__ import annotations

import time

import numpy as np
from sklearn.base import clone

from .._callbacks import progress_caller, run_to_end
from .._validation import CALLBACK, check_param
from ._estimates import (DEFAULT_ETA, _check_eta, _estimates, _loo_steps, _Problem,
                         validation_error)

__all__ = ["bounds_table"]


def _check_values(values, param):
    try:
        v = np.asarray(values, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"values must be positive numbers (values of {param}), got "
                         f"{values!r}") from None
    if v.size == 0 or not np.all(np.isfinite(v)) or np.any(v <= 0):
        raise ValueError(f"values must be a non-empty list of positive finite numbers (values "
                         f"of {param}), got {np.array2string(v, threshold=8)}")
    return v


def _check_table_args(estimator, y, param, values, X_val, y_val, X_test, y_test, loo,
                      span_regularization):
    """The checked ``values`` (float64), ``y`` (1-D) and ``eta`` of :func:`bounds_table`."""
    if param not in ("sigma", "C"):
        raise ValueError(f"param must be 'sigma' or 'C', got {param!r}")
    if values is None:
        raise ValueError("values must be given (the values of the parameter to try)")
    v = _check_values(values, param)
    if not hasattr(estimator, "get_params") or "C" not in estimator.get_params():
        raise ValueError(f"estimator must be a kernelnb.svm.SVC, got {type(estimator).__name__}")
    if param == "sigma" and estimator.kernel != "rbf":
        raise ValueError(f"param='sigma' needs kernel='rbf', the estimator has "
                         f"kernel={estimator.kernel!r}")
    if param == "C" and (estimator.margin == "hard" or np.isinf(estimator.C)):
        raise ValueError("param='C' has no effect with margin='hard'; use margin='l1' or 'l2'")
    if (X_test is None) != (y_test is None):
        raise ValueError("X_test and y_test must be given together")
    if (X_val is None) != (y_val is None):
        raise ValueError("X_val and y_val must be given together")
    if not isinstance(loo, (bool, np.bool_)):
        raise ValueError(f"loo must be True or False, got {loo!r}")
    eta = _check_eta(span_regularization)
    y_arr = np.asarray(y).ravel()
    n_cls = np.unique(y_arr).size
    if n_cls != 2:
        raise ValueError(f"bounds_table is for two classes; y has {n_cls}")
    return v, y_arr, eta


def _table_row(estimator, X, y, param, value, alpha_init, eta, val, test, sphere=None):
    """Fit a clone of ``estimator`` at ``param=value`` warm-started from ``alpha_init`` and
    compute its row of :func:`bounds_table`, leave-one-out aside.

    ``val`` and ``test`` are ``(X, y)`` pairs or ``(None, None)``.  ``sphere`` is the previous
    value's ``(K~, (R^2, beta))``: the same K~ (``C`` along an L1 margin, whose K~ is K) has the
    same enclosing sphere, another one starts its QP from the previous weights (the centre moves
    little from one value to the next).  Returns the row, the signed duals of the fit (one per
    training point), the next value's warm start, the fitted model (its leave-one-out comes
    later, :func:`_table_loo`) and this value's ``sphere``.
    """
    model = clone(estimator).set_params(warm_start=False, callback=None, verbose=False,
                                        **{param: float(value)})
    t0 = time.perf_counter()
    model.fit(X, y, alpha_init=alpha_init)
    fit_time = time.perf_counter() - t0
    coef = np.zeros(len(y))
    coef[model.support_] = model.dual_coef_[0]
    t1 = time.perf_counter()
    pb = _Problem(model, X, y)
    pb.radius2("sphere", previous=sphere)      # before the estimates, which ask for it
    row = {param: float(value), **_estimates(pb, eta)}
    if val[0] is not None:
        row["validation"] = validation_error(model, *val)
    if test[0] is not None:
        row["test_error"] = validation_error(model, *test)
    row["R2"] = pb.radius2("sphere")[0]
    row["w2"] = pb.w2()
    row["n_sv"] = int(model.support_.size)
    row["fit_time"] = fit_time
    row["estimate_time"] = time.perf_counter() - t1
    row["n_trainings"] = 1
    return row, coef, model, (pb.Kt, pb.radius2("sphere"))


def _table_loo(row, model, X, y):
    """Add the leave-one-out error of ``model`` to its ``row`` (steps: one per retraining)."""
    t0 = time.perf_counter()
    res = yield from _loo_steps(model, X, y)
    row["loo"] = res.error
    row["n_trainings"] += res.n_trainings
    row["estimate_time"] += time.perf_counter() - t0


def _table(rows, partial=False):
    """The columns of ``rows``; ``partial``: with a ``'loo'`` column, NaN where a row has none
    yet."""
    keys = list(rows[0]) + (["loo"] if partial and "loo" not in rows[0] else [])
    return {k: np.array([r.get(k, np.nan) for r in rows]) for k in keys}


def _table_so_far(rows, param, values):
    """The table of every value with the rows fitted so far: NaN in every column of a value not
    fitted yet (``n_trainings`` 0 there), ``param`` the values."""
    n, done = len(values), len(rows)
    table = {}
    for k, col in _table(rows).items():
        full = np.full(n, np.nan) if k != "n_trainings" else np.zeros(n, dtype=col.dtype)
        full[:done] = col
        table[k] = full
    table[param] = np.asarray(values, dtype=np.float64).copy()
    return table


def bounds_table(estimator, X, y, *, param="sigma", values=None, X_val=None, y_val=None,
                 X_test=None, y_test=None, loo=False, callback=None,
                 span_regularization=DEFAULT_ETA):
    """Refit ``estimator`` along one hyper-parameter and tabulate every estimate.

    A clone of ``estimator`` is fitted for each entry of ``values`` *in the order given*, each
    fit warm-started (``alpha_init``) from the previous value's solution: the same training
    data, so the previous dual point is a valid (clipped, made feasible) start.  Sort the values
    for the warm starts to help most.

    Parameters
    ----------
    estimator : SVC
        A :class:`kernelnb.svm.SVC`, the template (fitted or not); its other parameters are
        kept.
    X : array-like of shape (n_samples, n_features)
        Training inputs.
    y : array-like of shape (n_samples,)
        Training labels (two classes).
    param : {'sigma', 'C'}, default='sigma'
        The parameter varied (``'sigma'`` needs the RBF kernel, ``'C'`` a soft margin).
    values : array-like of float
        The positive values of ``param`` to fit at, in the order given (required).
    X_val : array-like of shape (n_val, n_features) or None, default=None
        Validation inputs (given with ``y_val``): column ``'validation'``.
    y_val : array-like of shape (n_val,) or None, default=None
        Their labels.
    X_test : array-like of shape (n_test, n_features) or None, default=None
        Test inputs (given with ``y_test``): column ``'test_error'``.
    y_test : array-like of shape (n_test,) or None, default=None
        Their labels.
    loo : bool, default=False
        Also the exact leave-one-out error (column ``'loo'``; costs retrainings).
    callback : callable or None, default=None
        ``callback(info)``, called after each value with its row (a dict of floats) and
        ``'iteration'``, the value's index, e.g. to move a progress bar; returning ``False``
        stops there (the table then holds the values done).
    span_regularization : float, default=0.1
        ``eta`` of the regularised span.

    Returns
    -------
    dict of str -> ndarray of shape (len(values),)
        ``param`` (the values), every key of :data:`ESTIMATE_NAMES`, ``'validation'``,
        ``'test_error'`` and ``'loo'`` when asked, ``'R2'`` (enclosing sphere) and ``'w2'``
        (``||w||^2``), ``'n_sv'``, ``'fit_time'`` (seconds of the fit at that value),
        ``'estimate_time'`` (seconds of the estimates), ``'n_trainings'`` (SVMs trained for
        that row: 1 plus the leave-one-out retrainings).
    """
    return run_to_end(_bounds_table_steps(
        estimator, X, y, param=param, values=values, X_val=X_val, y_val=y_val, X_test=X_test,
        y_test=y_test, loo=loo, callback=callback, span_regularization=span_regularization))


def _bounds_table_steps(estimator, X, y, *, param="sigma", values=None, X_val=None, y_val=None,
                        X_test=None, y_test=None, loo=False, callback=None,
                        span_regularization=DEFAULT_ETA):
    """:func:`bounds_table` as a generator (same parameters, same result): it yields None after
    each fit and each leave-one-out retraining, and partial tables to draw.  Without ``loo``,
    after each value's fit but the last, the table of every value with the rows fitted so far
    (NaN in the others: the curves drawn as they grow); with ``loo``, every value's row without
    leave-one-out (``'loo'`` NaN) once they are fitted, then after each value's leave-one-out
    but the last, the table with the leave-one-out done so far.

    The fits come first, each warm-started from the previous one as in :func:`bounds_table`,
    then the leave-one-out of each value's model, in order: the numbers are the same as
    fitting and leaving out value by value, and the callback is still called after each value
    whose row is complete.
    """
    v, y_arr, eta = _check_table_args(estimator, y, param, values, X_val, y_val, X_test, y_test,
                                      loo, span_regularization)
    check_param("callback", callback, CALLBACK, "bounds_table")
    report = progress_caller(callback)
    rows, models = [], []
    coef_prev = sphere = None
    for i, value in enumerate(v):
        row, coef_prev, model, sphere = _table_row(estimator, X, y_arr, param, value, coef_prev,
                                                   eta, (X_val, y_val), (X_test, y_test), sphere)
        rows.append(row)
        models.append(model)
        yield None
        if not loo and report(dict(row, iteration=i)):
            break
        if not loo and i + 1 < v.size:
            yield _table_so_far(rows, param, v)
    if loo:
        yield _table(rows, partial=True)
        for i, (row, model) in enumerate(zip(rows, models)):
            yield from _table_loo(row, model, X, y_arr)
            if report(dict(row, iteration=i)):
                rows = rows[:i + 1]
                break
            if i + 1 < len(rows):
                yield _table(rows, partial=True)
    return _table(rows)
