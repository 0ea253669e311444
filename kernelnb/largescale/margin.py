"""The margin models of Collobert's thesis, chapter 8 (Collobert & Bengio, ICML 2004).

* :class:`MarginPerceptron` (Algorithm 8.1, Duda & Hart 1973): ``f(x) = w . x + b`` from
  ``w = 0, b = 0``; every example with ``y f(x) <= beta`` moves ``w += lam y x, b += lam y``
  (stochastic gradient of the beta-hinge ``|beta - y f(x)|_+``, no weight decay).  The thesis
  fixes ``beta = 1``; from a zero start only ``learning_rate / beta`` matters for the decision.
* :class:`SimpleMLP` (Algorithm 8.2): a committee of HardTanh units with **no output weights**,
  ``f(x) = b + sum_n HardTanh(v_n . x + a_n)``, ``HardTanh(z) = clip(z, -1, 1)``, trained on the
  beta-hinge: on an example with ``y f(x) <= beta`` every unit in its linear region
  (``|v_n . x + a_n| <= 1``) moves by ``v_n += lam y x, a_n += lam y``, and ``b += lam y``.
  The margin in the space of the hidden units is ``2 beta / sqrt(n_hidden)``.

  Initialisation: the printed Algorithm 8.2 says "initialize w and b to zero" (copied from
  Algorithm 8.1); the text says the only thing making the hidden units differ is their random
  initialisation, so here ``v_n ~ N(0, init_scale^2 / d I)`` (on standardised inputs
  ``v_n . x`` then has a standard deviation of about ``init_scale``), ``a_n = 0`` and ``b = 0``.

Both standardise their inputs (``mean_``, ``scale_``) and run their epochs in Cython
(:mod:`kernelnb.largescale._mlp`), in a fresh random order every epoch.  Training stops after
an epoch without any update (every example has ``y f(x) > beta``), after ``max_iter`` epochs, or
with ``early_stopping`` when the validation accuracy has not improved for
``n_iter_no_change`` epochs (the weights of the best epoch are kept), which is how the thesis
regularises both.

Both are binary classifiers; more than two classes are handled one-vs-rest (one model per
class trained on ``+1`` for the class and ``-1`` for the rest, the same example order for all;
the prediction is the class of largest ``f``).
"""
from __future__ import annotations

import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._validation import NONNEGATIVE, POSITIVE, POSITIVE_INT, check_input, check_params
from . import _mlp
from .mlp import SGD_CONSTRAINTS, _labels, _run_epochs, _split, _standardizer

__all__ = ["MarginPerceptron", "SimpleMLP"]


class _BaseMargin(ClassifierMixin, BaseEstimator):
    _parameter_constraints = {**SGD_CONSTRAINTS, "beta": NONNEGATIVE}

    def _prepare(self, X, y, X_val, y_val):
        check_params(self)
        X, y = check_input(self, X, y)
        check_classification_targets(y)
        rng = check_random_state(self.random_state)
        X, y, Xv, yv = _split(self, X, y, X_val, y_val, rng, True)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes, got 1 "
                             f"class ({self.classes_[0]!r})")
        self.mean_, self.scale_ = _standardizer(X)
        Xs = np.ascontiguousarray((X - self.mean_) / self.scale_)
        yi = np.searchsorted(self.classes_, y)
        K = self.classes_.shape[0]
        if K == 2:
            Y = (2.0 * yi - 1.0)[None, :]
        else:
            Y = np.where(yi[None, :] == np.arange(K)[:, None], 1.0, -1.0)
        val_score = None if Xv is None else (lambda: self.score(Xv, yv))
        return Xs, np.ascontiguousarray(Y), val_score, rng

    def _train(self, Xs, Y, rng, val_score, run_one, state):
        """Epochs of ``run_one(k, y_k, order) -> (loss, updates)`` over the binary problems."""
        self.n_updates_ = []

        def epoch(order):
            loss, upd = 0.0, 0
            for k in range(Y.shape[0]):
                lk, uk = run_one(k, Y[k], order)
                loss += lk
                upd += uk
            self.n_updates_.append(int(upd))
            return loss / Y.shape[0], upd == 0

        _run_epochs(self, Xs.shape[0], rng, epoch, val_score, state, stop_on_loss=False)

    def _std(self, X):
        check_is_fitted(self, "classes_")
        X = check_input(self, X, reset=False)
        return (X - self.mean_) / self.scale_

    def decision_function(self, X):
        """``f(x)``: shape (n,) for two classes (> 0 means ``classes_[1]``), else
        (n, n_classes) (one-vs-rest)."""
        F = self._f(self._std(X))
        return F[:, 0] if F.shape[1] == 1 else F

    def predict(self, X):
        """Class labels."""
        D = self.decision_function(X)          # checks the fit before classes_ is read
        return _labels(self.classes_, D)


class MarginPerceptron(_BaseMargin):
    """The margin Perceptron (thesis Algorithm 8.1): stochastic gradient of the beta-hinge
    ``|beta - y (w . x + b)|_+`` from zero weights, without weight decay.

    Parameters
    ----------
    beta : float, default=1.0
        Margin asked of every example (the thesis uses 1).
    learning_rate : float, default=0.01
        Step ``lam`` of every update.
    max_iter : int, default=100
        Most epochs (``n_iter_`` = ``n_epochs_`` ran).  Named ``max_epochs`` before kernelnb 0.2
        (still accepted, with a ``FutureWarning``).
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` (stratified) and keep the weights of the epoch with
        the best validation accuracy; ``fit(X_val=, y_val=)`` gives the validation set.
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=10
        Epochs without a better validation accuracy before stopping (early stopping only).
    random_state : int, RandomState or None
        Seeds the split and the order of every epoch.
    verbose : bool, default=False

    Attributes
    ----------
    classes_ : array
    mean_, scale_ : arrays (n_features,)
        Input standardisation.
    weights_, bias_ : arrays (n_models, n_features), (n_models,)
        On standardised inputs (one model for two classes, one per class otherwise).
    coef_, intercept_ : the same hyperplanes on the raw inputs.
    loss_curve_ : list of float
        Mean beta-hinge per epoch (each example's before its update).
    n_updates_ : list of int
        Updates made in each epoch.
    validation_scores_, best_epoch_, best_validation_score_, n_epochs_, fit_time_
    """

    def __init__(self, beta=1.0, learning_rate=0.01, max_iter=100, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=10, random_state=None,
                 verbose=False, max_epochs="deprecated"):
        self.beta = beta
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_epochs = max_epochs
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y, X_val=None, y_val=None):
        """Train on (X, y); ``X_val, y_val`` give the early-stopping validation set.

        Returns
        -------
        self
        """
        t0 = time.perf_counter()
        Xs, Y, val_score, rng = self._prepare(X, y, X_val, y_val)
        W = np.zeros((Y.shape[0], Xs.shape[1]))
        B = np.zeros((Y.shape[0], 1))
        self.weights_, self._b = W, B
        lr, beta = float(self.learning_rate), float(self.beta)

        def run_one(k, yk, order):
            return _mlp.margin_perceptron_epoch(Xs, yk, order, W[k], B[k], lr, beta)

        self._train(Xs, Y, rng, val_score, run_one, {"W": W, "B": B})
        self.bias_ = B[:, 0].copy()
        self.coef_ = W / self.scale_
        self.intercept_ = self.bias_ - self.coef_ @ self.mean_
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _f(self, Xs):
        return Xs @ self.weights_.T + self._b[:, 0]


class SimpleMLP(_BaseMargin):
    """The Simple MLP (thesis Algorithm 8.2): ``f(x) = b + sum_n HardTanh(v_n . x + a_n)``, no
    output weights, trained on the beta-hinge by its sparse stochastic algorithm.

    Parameters
    ----------
    n_hidden : int, default=20
        Number of HardTanh units N (the margin in hidden space is ``2 beta / sqrt(N)``).
    beta : float, default=1.0
        Margin of the beta-hinge ``|beta - y f(x)|_+``.
    learning_rate : float, default=0.01
        Step ``lam`` of every update.
    init_scale : float, default=1.0
        ``v_n ~ N(0, init_scale^2 / n_features I)`` (random: see the module's note on the
        printed pseudo-code); ``a_n = 0``, ``b = 0``.
    max_iter, early_stopping, validation_fraction, n_iter_no_change, random_state, verbose
        As :class:`MarginPerceptron`; ``random_state`` also seeds the initialisation.

    Attributes
    ----------
    classes_, mean_, scale_ : as :class:`MarginPerceptron`
    hidden_weights_ : array (n_models, n_hidden, n_features)
        ``v_n`` on standardised inputs (one model for two classes, one per class otherwise).
    hidden_bias_ : array (n_models, n_hidden)
        ``a_n``.
    bias_ : array (n_models,)
        ``b``.
    loss_curve_, n_updates_, validation_scores_, best_epoch_, best_validation_score_,
    n_epochs_, fit_time_ : as :class:`MarginPerceptron`
    """

    def __init__(self, n_hidden=20, beta=1.0, learning_rate=0.01, init_scale=1.0,
                 max_iter=100, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, random_state=None, verbose=False,
                 max_epochs="deprecated"):
        self.n_hidden = n_hidden
        self.beta = beta
        self.learning_rate = learning_rate
        self.init_scale = init_scale
        self.max_iter = max_iter
        self.max_epochs = max_epochs
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose

    _parameter_constraints = {**_BaseMargin._parameter_constraints, "n_hidden": POSITIVE_INT,
                              "init_scale": POSITIVE}

    def fit(self, X, y, X_val=None, y_val=None):
        """Train on (X, y); ``X_val, y_val`` give the early-stopping validation set.

        Returns
        -------
        self
        """
        t0 = time.perf_counter()
        Xs, Y, val_score, rng = self._prepare(X, y, X_val, y_val)
        n_models, d, N = Y.shape[0], Xs.shape[1], int(self.n_hidden)
        V = rng.standard_normal((n_models, N, d)) * (float(self.init_scale) / np.sqrt(d))
        A = np.zeros((n_models, N))
        B = np.zeros((n_models, 1))
        self.hidden_weights_, self.hidden_bias_, self._b = V, A, B
        lr, beta = float(self.learning_rate), float(self.beta)

        def run_one(k, yk, order):
            return _mlp.simple_mlp_epoch(Xs, yk, order, V[k], A[k], B[k], lr, beta)

        self._train(Xs, Y, rng, val_score, run_one, {"V": V, "A": A, "B": B})
        self.bias_ = B[:, 0].copy()
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _f(self, Xs):
        F = np.empty((Xs.shape[0], self.hidden_weights_.shape[0]))
        for k in range(F.shape[1]):
            Z = Xs @ self.hidden_weights_[k].T + self.hidden_bias_[k]
            F[:, k] = np.clip(Z, -1.0, 1.0).sum(axis=1) + self._b[k, 0]
        return F
