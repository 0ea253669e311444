"""The base class of kernelnb's estimators: scikit-learn's, with the parameter names read once.

scikit-learn's :class:`sklearn.base.BaseEstimator` finds an estimator's parameters by reading
the signature of its class's ``__init__`` (``inspect.signature``) on every ``get_params``, so on
every ``clone``, ``set_params``, ``repr`` and parameter check. That is about 0.1 ms a call: on
the small problems of a dashboard step (a model selection that trains a hundred SVMs on 30
points, a learning curve's thirty fits), the signatures took more time than the solver. The
names depend only on the class and its ``__init__``; :class:`BaseEstimator` reads them once per
pair. Everything else is scikit-learn's.
"""
from __future__ import annotations

import functools

from sklearn import base as _sk_base

__all__ = ["BaseEstimator"]


@functools.lru_cache(maxsize=None)
def _param_names(cls, init):
    """scikit-learn's names of ``cls``'s constructor parameters (sorted), for ``init`` as it is
    (a class whose ``__init__`` is replaced is read again)."""
    return tuple(_sk_base.BaseEstimator._get_param_names.__func__(cls))


class BaseEstimator(_sk_base.BaseEstimator):
    """:class:`sklearn.base.BaseEstimator`, reading a class's parameter names once."""

    @classmethod
    def _get_param_names(cls):
        return list(_param_names(cls, cls.__init__))
