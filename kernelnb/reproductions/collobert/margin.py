"""The margin experiments of Collobert's thesis, chapter 8 (Fig. 8.2): the margin and the validation
error of a margin model against the learning rate and the number of updates; and the published
numbers of its Tables 8.1 and 8.2 (recomputed by ``benchmarks/bench_margin_tables.py``).
"""
from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state
from ..._validation import (POSITIVE, POSITIVE_INT, check_param)
from ...largescale.margin import (MarginPerceptron, _checked_once,
                                 margin_bound_updates)

__all__ = ["PUBLISHED_TABLE_8_1", "PUBLISHED_TABLE_8_2", "margin_curves"]

#: Collobert's thesis, Table 8.1 (published): test error (%) and training-time factor relative
#: to the Simple MLP, on (Forest, Connect-4): ``{model: ((error Forest, error Connect-4),
#: (factor Forest, factor Connect-4))}``; hyperparameters chosen on a validation set.
PUBLISHED_TABLE_8_1 = {"SVM": ((10.5, 11.4), (428.8, 357.1)),
                       "MLP (CE)": ((8.9, 11.4), (29.1, 11.1)),
                       "Simple MLP": ((7.3, 10.1), (1.0, 1.0))}
#: Collobert's thesis, Table 8.2 (published): margin against no margin, test error (%) on
#: (Forest, Connect-4).
PUBLISHED_TABLE_8_2 = {"Original Perceptron": (31.6, 25.6), "Margin Perceptron": (23.8, 20.3),
                       "Nilsson MLP": (10.5, 17.2), "Simple MLP": (7.3, 10.1)}


def margin_curves(X, y, X_val, y_val, learning_rates=None, n_updates=100, learning_rate=0.01,
                  updates=None, n_trials=10, train_size=None, estimator=None, random_state=0):
    """The protocol of Fig. 8.2 of Collobert's thesis: margin and error against lambda and t.

    The margin ``rho`` and the validation error of a margin model against the learning rate
    ``lam`` (the number of updates fixed) and against the number of updates ``t`` (``lam``
    fixed), averaged over trials, with Theorem 8.3's bound.

    The thesis used 200 Connect-4 training examples and 10 trials.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training inputs.
    y : array-like of shape (n_samples,)
        Training labels, two classes.
    X_val : array-like of shape (n_val, n_features)
        Validation inputs.
    y_val : array-like of shape (n_val,)
        Validation labels.
    learning_rates : array-like, default=None
        The ``lam`` of the first study (None: ``numpy.logspace(-3, 1, 9)``).
        The ``lam`` of the first study.
    n_updates : int, default=100
        The fixed ``t`` of the first study (a run that converges earlier keeps its final
        weights).
    learning_rate : float, default=0.01
        The fixed ``lam`` of the second study.
    updates : array of int, optional
        The ``t`` of the second study, multiples of their smallest value (default: ``n_updates
        / 10, 2 n_updates / 10, ..., 4 n_updates``).
    n_trials : int, default=10
        Trials differ by their random example order and, with ``train_size``, by their
        training subset.
    train_size : int, optional
        Draw this many training examples (stratified) from ``X`` for every trial.
    estimator : estimator or None, default=None
        An unfitted margin model of :mod:`kernelnb.largescale` with a ``learning_rate``
        (:class:`~kernelnb.largescale.KernelMarginPerceptron`,
        :class:`~kernelnb.largescale.SimpleMLP`, ...); None:
        :class:`~kernelnb.largescale.MarginPerceptron` (``beta = 1``).
    random_state : int, default=0
        Seed of the trials' example orders and subsets.

    Returns
    -------
    dict
        ``learning_rates``, ``rho_lr``, ``val_error_lr`` (means over trials, shape
        (n_lr,)) and ``*_std``; ``updates``, ``rho_t``, ``val_error_t`` and ``*_std``;
        ``bound_lr`` / ``bound_t``: Theorem 8.3 at ``(n_updates, lam)`` / ``(t, learning_rate)``
        with the trials' largest radius ``R`` (meaningful for the margin Perceptrons);
        ``trials_rho_lr`` ... the per-trial arrays (n_trials, ...).
    """
    from sklearn.base import clone
    from sklearn.model_selection import train_test_split

    check_param("n_updates", n_updates, POSITIVE_INT, "margin_curves")
    check_param("n_trials", n_trials, POSITIVE_INT, "margin_curves")
    check_param("learning_rate", learning_rate, POSITIVE, "margin_curves")
    lrs = np.logspace(-3, 1, 9) if learning_rates is None else np.asarray(learning_rates, float)
    if lrs.ndim != 1 or lrs.size == 0 or np.any(lrs <= 0):
        raise ValueError("learning_rates must be a non-empty 1-D array of positive numbers")
    if updates is None:
        step = max(1, n_updates // 10)
        updates = step * np.arange(1, 41)
    updates = np.asarray(updates, dtype=np.int64)
    if updates.ndim != 1 or updates.size == 0 or updates.min() < 1 or np.any(
            updates % updates.min()):
        raise ValueError("updates must be positive multiples of their smallest value")
    if np.unique(np.asarray(y)).shape[0] != 2:
        raise ValueError("margin_curves needs two classes")
    base = MarginPerceptron() if estimator is None else estimator
    base = clone(base).set_params(max_iter=100000, n_iter_no_change=10 ** 9,
                                  track_margin=True, validation_fraction=None)
    beta = float(base.get_params().get("beta", 1.0)) or 1.0
    X, y = np.asarray(X), np.asarray(y)
    rng = check_random_state(random_state)
    out = {k: np.full((n_trials, lrs.size), np.nan) for k in ("rho_lr", "val_error_lr")}
    out.update({k: np.full((n_trials, updates.size), np.nan) for k in ("rho_t", "val_error_t")})
    radius = 0.0
    with _checked_once():     # the fits of a trial share one sample: checked once
        for trial in range(n_trials):
            seed = int(rng.randint(2 ** 31 - 1))
            Xt, yt = X, y
            if train_size is not None and train_size < X.shape[0]:
                Xt, _, yt, _ = train_test_split(X, y, train_size=train_size, stratify=y,
                                                random_state=seed)
            for j, lam in enumerate(lrs):
                est = clone(base).set_params(learning_rate=float(lam), max_updates=int(n_updates),
                                             record_every=None, random_state=seed)
                h = est.fit(Xt, yt, X_val=X_val, y_val=y_val).margin_history_
                radius = max(radius, est.radius_)
                out["rho_lr"][trial, j] = h["rho"][-1]
                out["val_error_lr"][trial, j] = h["validation_error"][-1]
            est = clone(base).set_params(learning_rate=float(learning_rate),
                                         max_updates=int(updates.max()),
                                         record_every=int(updates.min()), random_state=seed)
            h = est.fit(Xt, yt, X_val=X_val, y_val=y_val).margin_history_
            radius = max(radius, est.radius_)
            for j, t in enumerate(updates):
                # the first record at t updates or more; a converged run keeps its last weights
                at = np.flatnonzero(h["updates"] >= t)
                i = at[0] if at.size else len(h["updates"]) - 1
                out["rho_t"][trial, j] = h["rho"][i]
                out["val_error_t"][trial, j] = h["validation_error"][i]
    res = {"learning_rates": lrs, "updates": updates, "n_updates": int(n_updates),
           "learning_rate": float(learning_rate), "radius": radius}
    for key, a in out.items():
        res[key] = a.mean(axis=0)
        res[key + "_std"] = a.std(axis=0)
        res["trials_" + key] = a
    res["bound_lr"] = np.array([margin_bound_updates(n_updates, radius, lam, beta)
                                for lam in lrs])
    res["bound_t"] = margin_bound_updates(updates, radius, learning_rate, beta)
    return res
