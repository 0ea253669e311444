"""What the chapter sources share: the kernel in numpy (the statement's formula, k(x, y) =
exp(-||x - y||^2 / (2 sigma^2)), the course's convention), data draws and dashboard checks."""
from __future__ import annotations

import numpy as np

from .._i18n import N_

__all__ = ["gauss", "sq_dists", "toy", "dashboard_stats", "N_", "cv_accuracy"]


def sq_dists(A, B):
    """Squared Euclidean distances between the rows of A and of B (exact, no cancellation
    guard needed at these sizes: the data are O(1) and the tolerances 1e-6 relative)."""
    A, B = np.asarray(A, float), np.asarray(B, float)
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)


def gauss(A, B, sigma, denominator=2.0):
    """The Gaussian kernel block exp(-||a - b||^2 / (denominator sigma^2)); ``denominator=1``
    is the σ²-for-2σ² mistake."""
    return np.exp(-sq_dists(A, B) / (denominator * sigma ** 2))


def toy(rng, name="moons", n=60, noise=0.2):
    """A 2-D toy sample drawn from the student's generator (kernelnb's generator, seeded by it)."""
    from ...datasets import make_toy
    X, y = make_toy(name, n, noise=noise, random_state=int(rng.integers(2 ** 31 - 1)))
    return np.asarray(X, float), np.asarray(y)


_APPS: dict = {}


def dashboard_stats(cls_path, app_kwargs, **params):
    """The numbers a dashboard's own ``update()`` gives at ``params`` (the dashboard built once
    per kernel and kept: a check recomputes what the student saw, with the dashboard's code)."""
    module, name = cls_path.rsplit(".", 1)
    key = (cls_path, tuple(sorted(app_kwargs.items())))
    if key not in _APPS:
        import importlib
        cls = getattr(importlib.import_module(module), name)
        _APPS[key] = cls(lang="en", **app_kwargs)
    return _APPS[key].update(raise_errors=True, **params)


def cv_accuracy(estimator, X, y, folds=5, seed=0):
    """Accuracies of ``estimator`` over stratified ``folds``-fold cross-validation (scikit-learn's
    splitter, shuffled by ``seed``): the spread a reference is judged against."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold
    out = []
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, y):
        model = clone(estimator).fit(X[train], y[train])
        out.append(float(np.mean(model.predict(X[test]) == y[test])))
    return np.array(out)
