"""One-hidden-layer MLPs trained as in Collobert's thesis (2004, ch. 3, 4 and 7).

``f(x) = W2 tanh(W1 x + b1) + b2``, trained by plain stochastic gradient: one example at a time,
in a fresh random order every epoch, with either a weight decay ``mu/2 (||W1||^2 + ||W2||^2)``
(the biases are not decayed) or early stopping on a validation set.  Inputs are standardised
inside the estimator (training-set mean and standard deviation, stored as ``mean_`` and
``scale_``; constant columns keep a scale of 1), as the thesis does for every data set.

Classification (:class:`MLPClassifier`):

* ``loss='cross_entropy'``: two classes -> one output and the logistic loss
  ``log(1 + exp(-y f(x)))`` (``y = +-1``); more classes -> one output per class and the softmax
  cross-entropy.  ``predict_proba`` is available.
* ``loss='squared'``: one output per class (one output for two classes) with targets +-1 and
  the loss ``1/2 ||t - f(x)||^2`` (the thesis's "MLP+MSE", Table 7.1).
* ``loss='tanh_squared'``: the same targets with a tanh on every output, ``z = tanh(f(x))``, and
  the loss ``1/2 ||t - z||^2`` (the thesis's "MLP+Tanh+MSE", ch. 7: the factor
  ``c(z) = (1 - z^2)(1 + 2zy - 3z^2)`` of the Hessian's off-diagonal blocks, eq. 7.15, goes to
  zero as the outputs saturate, see :mod:`kernelnb.largescale.hessian`).

Regression (:class:`MLPRegressor`): squared error on the targets standardised inside the
estimator (``y_mean_``, ``y_scale_``), one output per target column.

The epoch loop is Cython (:mod:`kernelnb.largescale._mlp`); the learning rate of the t-th example
seen is ``learning_rate / (1 + decay * t)``.  Without early stopping, training stops after
``max_iter`` epochs or when the epoch's mean training loss has not decreased by ``tol`` for
``n_iter_no_change`` epochs; with early stopping, when the validation score (accuracy, or R^2
for regression) has not improved by ``tol`` for ``n_iter_no_change`` epochs, and the weights
of the best validation epoch are kept.  ``callback(info)`` is called after every epoch (keys
``iteration``, ``loss``, ``validation_score``, ``estimator``: the estimator itself, whose
weights are those of the epoch just run) and may return ``False`` to stop.
"""
from __future__ import annotations

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._callbacks import progress_caller
from .._fit import fit_context
from .._validation import (CALLBACK, FRACTION, NONNEGATIVE, POSITIVE, POSITIVE_INT, str_options,
                           check_input)
from . import _mlp

__all__ = ["MLPClassifier", "MLPRegressor", "init_mlp_weights", "mlp_loss_grad"]

_CLS_LOSSES = ("cross_entropy", "squared", "tanh_squared")


# -- helpers shared with the margin models ----------------------------------------------------
def _standardizer(X):
    """Column mean and standard deviation (1 where a column is constant): scikit-learn's
    ``StandardScaler`` statistics."""
    scaler = StandardScaler().fit(X)
    return scaler.mean_, scaler.scale_


#: the parameters every stochastic-gradient estimator of this package shares
SGD_CONSTRAINTS = {
    "learning_rate": POSITIVE,
    "max_iter": POSITIVE_INT,
    "n_iter_no_change": POSITIVE_INT,
    "validation_fraction": [*FRACTION, None],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
    "callback": CALLBACK,
}


def _split(est, X, y, X_val, y_val, rng, stratify):
    """Training and validation parts: the given validation set, a random split of
    ``validation_fraction`` (stratified by class when every class has two members), or no
    validation set (``validation_fraction=None``)."""
    if X_val is not None:
        if y_val is None:
            raise ValueError("y_val is required with X_val")
        X_val, y_val = check_input(est, X_val, y_val, reset=False, multi_output=not stratify,
                                   y_numeric=not stratify)
        return X, y, X_val, y_val
    if y_val is not None:
        raise ValueError("X_val is required with y_val")
    if est.validation_fraction is None:
        return X, y, None, None
    n = X.shape[0]
    n_val = int(round(est.validation_fraction * n))
    if n_val < 1 or n - n_val < 1:
        raise ValueError(f"validation_fraction={est.validation_fraction} of {n} samples leaves "
                         f"no training or no validation sample")
    perm = rng.permutation(n)
    if stratify:
        _, inv, counts = np.unique(y, return_inverse=True, return_counts=True)
        if counts.min() >= 2 and n_val >= counts.shape[0]:
            # each class gives its share of the validation set (at least one example)
            share = counts * n_val / n
            take = np.maximum(1, np.floor(share)).astype(int)
            rest = n_val - take.sum()
            for c in np.argsort(share - np.floor(share))[::-1][:max(rest, 0)]:
                take[c] += 1
            val = np.concatenate([perm[inv[perm] == c][:min(take[c], counts[c] - 1)]
                                  for c in range(counts.shape[0])])
        else:
            # random, but never the last training example of a class
            left, val = counts.copy(), []
            for i in perm:
                if len(val) == n_val:
                    break
                if left[inv[i]] > 1:
                    left[inv[i]] -= 1
                    val.append(i)
            val = np.asarray(val, dtype=int)
            if val.shape[0] == 0:
                raise ValueError("validation_fraction needs a class with at least 2 samples to "
                                 "hold one out for validation")
        mask = np.zeros(n, bool)
        mask[val] = True
        return X[~mask], y[~mask], X[mask], y[mask]
    val, tr = np.sort(perm[:n_val]), np.sort(perm[n_val:])
    return X[tr], y[tr], X[val], y[val]


def _run_epochs(est, n, rng, epoch, val_score, state, stop_on_loss=True, report=None):
    """The epoch loop shared by the estimators of this package.

    ``epoch(order) -> (mean training loss, converged)`` runs one epoch in place on the arrays of
    ``state`` (a dict); ``val_score()`` scores the current weights on the validation set (or is
    None).  Sets ``loss_curve_``, ``validation_scores_``, ``n_iter_`` and, with a validation
    set, ``best_epoch_`` / ``best_validation_score_`` and restores the best weights.
    ``report(info) -> bool`` (see :func:`kernelnb._callbacks.progress_caller`) is called after
    every epoch; True stops the loop."""
    est.loss_curve_ = []
    est.validation_scores_ = [] if val_score is not None else None
    est.best_epoch_ = est.best_validation_score_ = None
    best_loss, best_score, best_state, bad = np.inf, -np.inf, None, 0
    tol = float(getattr(est, "tol", 0.0))
    ep = 0
    for ep in range(1, int(est.max_iter) + 1):
        order = rng.permutation(n).astype(np.intp)
        loss, converged = epoch(order)
        est.loss_curve_.append(float(loss))
        msg = f"epoch {ep}: training loss {loss:.6g}"
        if val_score is not None:
            score = float(val_score())
            est.validation_scores_.append(score)
            msg += f", validation score {score:.6g}"
            bad = bad + 1 if score <= best_score + tol else 0
            if score > best_score:
                best_score, best_state = score, {k: v.copy() for k, v in state.items()}
                est.best_epoch_ = ep
        elif stop_on_loss:
            bad = bad + 1 if loss > best_loss - tol else 0
            best_loss = min(best_loss, loss)
        if est.verbose:
            print(msg)
        if report is not None and report(dict(
                iteration=ep, loss=float(loss), estimator=est,
                validation_score=est.validation_scores_[-1] if val_score is not None else None)):
            break
        if converged or bad >= est.n_iter_no_change:
            break
    est.n_iter_ = ep
    if best_state is not None:
        for k, v in best_state.items():
            state[k][...] = v
        est.best_validation_score_ = best_score


# -- loss and gradient for given weights (used by the tests) ----------------------------------
def init_mlp_weights(rng, n_features, n_hidden, n_outputs):
    """Draw the initial weights of a one-hidden-layer MLP (LeCun et al., 1998).

    Uniform weights of standard deviation ``1/sqrt(fan_in)``, zero biases; ``W1`` is drawn
    before ``W2``.

    Parameters
    ----------
    rng : numpy.random.RandomState or numpy.random.Generator
        Source of the uniform draws (its ``uniform`` method is called).
    n_features : int
        Inputs ``d`` of the net.
    n_hidden : int
        Hidden units ``H``.
    n_outputs : int
        Outputs ``K``.

    Returns
    -------
    W1 : ndarray of shape (n_hidden, n_features)
        Input weights of the hidden units.
    b1 : ndarray of shape (n_hidden,)
        Hidden biases (zeros).
    W2 : ndarray of shape (n_outputs, n_hidden)
        Output weights.
    b2 : ndarray of shape (n_outputs,)
        Output biases (zeros).
    """
    W1 = rng.uniform(-1.0, 1.0, (n_hidden, n_features)) * np.sqrt(3.0 / n_features)
    W2 = rng.uniform(-1.0, 1.0, (n_outputs, n_hidden)) * np.sqrt(3.0 / n_hidden)
    return W1, np.zeros(n_hidden), W2, np.zeros(n_outputs)


def mlp_loss_grad(X, T, W1, b1, W2, b2, loss="squared", weight_decay=0.0):
    """Compute the mean loss of an MLP and its gradient with the training loop's own code.

    The cost is ``(1/n) sum_l Q(x_l, t_l) + weight_decay/2 (||W1||^2 + ||W2||^2)`` for the net
    ``W2 tanh(W1 x + b1) + b2``, by the Cython forward and backward passes of the epoch loop.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs.
    T : array-like of shape (n_samples, n_outputs)
        Targets: any values for ``'squared'`` and ``'tanh_squared'``, +-1 (one output) for
        ``'logistic'``, one-hot rows for ``'softmax'``.
    W1 : array-like of shape (n_hidden, n_features)
        Input weights of the hidden units.
    b1 : array-like of shape (n_hidden,)
        Hidden biases.
    W2 : array-like of shape (n_outputs, n_hidden)
        Output weights.
    b2 : array-like of shape (n_outputs,)
        Output biases.
    loss : {'squared', 'tanh_squared', 'logistic', 'softmax'}, default='squared'
        The per-example loss ``Q``; ``'tanh_squared'`` is ``1/2 ||t - tanh(o)||^2`` of the
        outputs ``o``.
    weight_decay : float, default=0.0
        The factor ``mu`` of the penalty ``mu/2 (||W1||^2 + ||W2||^2)``.

    Returns
    -------
    J : float
        The cost.
    gW1, gb1, gW2, gb2 : ndarray
        Its gradient with respect to ``W1, b1, W2, b2`` (the shapes of the weights).
    """
    if loss not in _mlp.LOSSES:
        raise ValueError(f"loss must be one of {tuple(_mlp.LOSSES)}, got {loss!r}")
    X, T, W1, b1, W2, b2 = (np.ascontiguousarray(a, dtype=np.float64)
                            for a in (X, T, W1, b1, W2, b2))
    return _mlp.mlp_loss_grad(X, T, W1, b1, W2, b2, float(weight_decay), _mlp.LOSSES[loss])


# -- estimators --------------------------------------------------------------------------------

def _labels(classes, D):
    """Class labels from decision values: shape (n,) (> 0 means ``classes[1]``) or (n, k)."""
    if D.ndim == 1:
        return classes[(D > 0).astype(int)]
    return classes[np.argmax(D, axis=1)]


def _class_targets(classes, y, negative=-1.0):
    """Targets (n, K) of the labels ``y``: one column of +-1 for two classes, else one column
    per class holding 1 for the class and ``negative`` elsewhere (0 for the cross-entropies,
    -1 for the squared errors and the one-vs-rest margin models)."""
    yi = np.searchsorted(classes, y)
    K = classes.shape[0]
    if K == 2:
        return (2.0 * yi - 1.0)[:, None]
    T = np.full((y.shape[0], K), float(negative))
    T[np.arange(y.shape[0]), yi] = 1.0
    return T


class _SGDData:
    """The data side shared by the MLPs and the soft mixture of experts: input checks, the
    validation split, the input standardisation (``mean_``, ``scale_``) and the targets
    (class coding, or regression targets standardised inside: ``y_mean_``, ``y_scale_``)."""

    def _prepare(self, X, y, X_val, y_val, classification):
        X, y = check_input(self, X, y, multi_output=not classification,
                           y_numeric=not classification)
        if classification:
            check_classification_targets(y)
        rng = check_random_state(self.random_state)
        X, y, Xv, yv = _split(self, X, y, X_val, y_val, rng, classification)
        self.mean_, self.scale_ = _standardizer(X)
        return (X - self.mean_) / self.scale_, y, Xv, yv, rng

    def _targets(self, y):
        """Class targets: 0 off the class for the cross-entropy losses, -1 otherwise."""
        return _class_targets(self.classes_, y, 0.0 if self.loss == "cross_entropy" else -1.0)

    def _standardized_targets(self, y):
        """Regression targets as a float (n, n_targets) array, standardised."""
        self._y_1d = y.ndim == 1
        Y = y.reshape(y.shape[0], -1).astype(np.float64)
        self.y_mean_, self.y_scale_ = _standardizer(Y)
        return (Y - self.y_mean_) / self.y_scale_

    def _target_scale(self, O):
        """Outputs on the standardised targets back in the targets' units and shape."""
        O = O * self.y_scale_ + self.y_mean_
        return O[:, 0] if self._y_1d else O


class _BaseMLP(_SGDData, BaseEstimator):
    _parameter_constraints = {**SGD_CONSTRAINTS, "n_hidden": POSITIVE_INT, "decay": NONNEGATIVE,
                              "weight_decay": NONNEGATIVE, "tol": NONNEGATIVE}

    def __init__(self, *, n_hidden=20, learning_rate=0.01, decay=0.0, weight_decay=0.0,
                 max_iter=100, tol=1e-4, validation_fraction=None, n_iter_no_change=10,
                 random_state=None, verbose=False, callback=None):
        self.n_hidden = n_hidden
        self.learning_rate = learning_rate
        self.decay = decay
        self.weight_decay = weight_decay
        self.max_iter = max_iter
        self.tol = tol
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def _fit_net(self, X, T, loss_kind, val_score, rng):
        """Initialise and train the net on standardised X and targets T (n, K)."""
        n, d = X.shape
        W1, b1, W2, b2 = init_mlp_weights(rng, d, int(self.n_hidden), T.shape[1])
        self.hidden_weights_, self.hidden_bias_ = W1, b1
        self.output_weights_, self.output_bias_ = W2, b2
        Xc = np.ascontiguousarray(X)
        Tc = np.ascontiguousarray(T, dtype=np.float64)
        counter = [0]
        lr, dec, wd = float(self.learning_rate), float(self.decay), float(self.weight_decay)

        def epoch(order):
            loss, counter[0] = _mlp.mlp_epoch(Xc, Tc, order, W1, b1, W2, b2, lr, dec, wd,
                                              counter[0], loss_kind)
            if not np.isfinite(loss) or not np.all(np.isfinite(W2)):
                raise ValueError(f"training diverged (loss {loss}): lower learning_rate "
                                 f"(now {self.learning_rate})")
            return loss, False

        _run_epochs(self, n, rng, epoch, val_score,
                    {"W1": W1, "b1": b1, "W2": W2, "b2": b2},
                    report=progress_caller(self.callback))

    def _outputs(self, X):
        check_is_fitted(self, "output_weights_")
        X = check_input(self, X, reset=False)
        Z = np.tanh(((X - self.mean_) / self.scale_) @ self.hidden_weights_.T + self.hidden_bias_)
        return Z @ self.output_weights_.T + self.output_bias_


class MLPClassifier(ClassifierMixin, _BaseMLP):
    """One-hidden-layer tanh MLP classifier trained by per-example stochastic gradient.

    The net ``f(x) = W2 tanh(W1 x + b1) + b2`` of Collobert's thesis (2004, ch. 3, 4 and 7),
    on inputs standardised inside the estimator, is trained one example at a time in a fresh
    random order every epoch (see :mod:`kernelnb.largescale.mlp`).

    Parameters
    ----------
    n_hidden : int, default=20
        Number of tanh hidden units.
    loss : {'cross_entropy', 'squared', 'tanh_squared'}, default='cross_entropy'
        Cross-entropy (logistic for two classes, softmax otherwise), squared error on +-1
        targets (one output per class; one output for two classes), or squared error of the
        tanh of those outputs (the thesis's "MLP+Tanh+MSE", Table 7.1).
    learning_rate : float, default=0.01
        Step of the first example; the t-th example seen uses
        ``learning_rate / (1 + decay * t)``.
    decay : float, default=0.0
        Learning-rate decay per example seen.
    weight_decay : float, default=0.0
        The factor ``mu`` of the penalty ``mu/2 (||W1||^2 + ||W2||^2)``, applied at every
        example (the biases are not decayed).
    max_iter : int, default=100
        Most passes (epochs) over the training set.
    tol : float, default=1e-4
        Smallest improvement of the training loss (or of the validation accuracy with a
        validation set) that counts.
    validation_fraction : float in (0, 1) or None, default=None
        Part of the training set held out (stratified) to stop early and keep the weights of
        the epoch with the best validation accuracy; used only when ``fit`` gets no ``X_val``.
        None: no held-out part.
    n_iter_no_change : int, default=10
        Epochs without improvement before stopping.
    random_state : int, RandomState instance or None, default=None
        Seeds the split, the initialisation and the order of every epoch.
    verbose : bool, default=False
        Print the loss (and validation score) after every epoch.
    callback : callable or None, default=None
        ``callback(info)`` after every epoch, with a dict (``iteration``, ``loss``,
        ``validation_score``, ``estimator``: this estimator with the weights of that epoch);
        returning ``False`` stops training.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    mean_, scale_ : ndarray of shape (n_features,)
        Input standardisation (of the training part only).
    hidden_weights_ : ndarray of shape (n_hidden, n_features)
        ``W1``, on standardised inputs.
    hidden_bias_ : ndarray of shape (n_hidden,)
        ``b1``.
    output_weights_ : ndarray of shape (n_outputs, n_hidden)
        ``W2``: one output for two classes, one per class otherwise.
    output_bias_ : ndarray of shape (n_outputs,)
        ``b2``.
    loss_curve_ : list of float
        Mean training loss per epoch (each example's loss before its update).
    validation_scores_ : list of float or None
        Validation accuracy per epoch (None without a validation set).
    best_epoch_ : int or None
        With a validation set, the epoch whose weights are kept.
    best_validation_score_ : float or None
        Its validation accuracy.
    n_iter_ : int
        Epochs run.
    fit_time_ : float
        Seconds the fit took.

    References
    ----------
    R. Collobert, "Large Scale Machine Learning", PhD thesis, Universite Paris VI, 2004,
    chapters 3, 4 and 7.  Y. LeCun, L. Bottou, G. Orr and K.-R. Muller, "Efficient
    BackProp", 1998 (the initialisation).

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.largescale import MLPClassifier
    >>> X, y = make_moons(n_samples=200, noise=0.1, random_state=0)
    >>> clf = MLPClassifier(n_hidden=10, learning_rate=0.1, max_iter=50, random_state=0)
    >>> clf.fit(X[:150], y[:150]).predict(X[150:155]).shape
    (5,)
    >>> print(clf.score(X[150:], y[150:]) > 0.9)
    True
    """

    _parameter_constraints = {**_BaseMLP._parameter_constraints,
                              "loss": [str_options(set(_CLS_LOSSES))]}

    def __init__(self, *, n_hidden=20, loss="cross_entropy", learning_rate=0.01, decay=0.0,
                 weight_decay=0.0, max_iter=100, tol=1e-4, validation_fraction=None,
                 n_iter_no_change=10, random_state=None, verbose=False, callback=None):
        super().__init__(n_hidden=n_hidden, learning_rate=learning_rate, decay=decay,
                         weight_decay=weight_decay, max_iter=max_iter, tol=tol,
                         validation_fraction=validation_fraction,
                         n_iter_no_change=n_iter_no_change, random_state=random_state,
                         verbose=verbose, callback=callback)
        self.loss = loss

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Train on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        X_val : array-like of shape (n_val, n_features), optional
            Validation inputs: training stops early on their accuracy, and the weights of the
            best epoch are kept.
        y_val : array-like of shape (n_val,), optional
            Their labels.

        Returns
        -------
        self : MLPClassifier
            The fitted estimator.
        """
        Xs, y, Xv, yv, rng = self._prepare(X, y, X_val, y_val, classification=True)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] < 2:
            raise ValueError(f"MLPClassifier needs samples of at least 2 classes, got 1 class "
                             f"({self.classes_[0]!r})")
        K = self.classes_.shape[0]
        if self.loss == "cross_entropy":
            kind = _mlp.LOSSES["logistic" if K == 2 else "softmax"]
        else:
            kind = _mlp.LOSSES[self.loss]
        val_score = None if Xv is None else (lambda: self.score(Xv, yv))
        self._fit_net(Xs, self._targets(y), kind, val_score, rng)
        return self

    def decision_function(self, X):
        """Outputs of the net: shape (n,) for two classes (> 0 means ``classes_[1]``), else
        (n, n_classes); with ``loss='tanh_squared'`` their tanh (the model's outputs)."""
        O = self._outputs(X)
        if self.loss == "tanh_squared":
            O = np.tanh(O)
        return O[:, 0] if O.shape[1] == 1 else O

    def predict(self, X):
        """Class labels."""
        D = self.decision_function(X)          # checks the fit before classes_ is read
        return _labels(self.classes_, D)

    def _has_proba(self):
        if self.loss != "cross_entropy":
            raise AttributeError("predict_proba needs loss='cross_entropy'")
        return True

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities (logistic or softmax outputs), shape (n, n_classes)."""
        D = self.decision_function(X)
        if D.ndim == 1:
            p = 0.5 * (1.0 + np.tanh(0.5 * D))        # the logistic function, without overflow
            return np.column_stack([1.0 - p, p])
        D = D - D.max(axis=1, keepdims=True)
        E = np.exp(D)
        return E / E.sum(axis=1, keepdims=True)

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`, computed without underflow."""
        D = self.decision_function(X)
        if D.ndim == 1:
            D = np.column_stack([np.zeros_like(D), D])
        m = D.max(axis=1, keepdims=True)
        return D - m - np.log(np.exp(D - m).sum(axis=1, keepdims=True))


class MLPRegressor(RegressorMixin, _BaseMLP):
    """One-hidden-layer tanh MLP regressor trained by per-example stochastic gradient.

    The net ``f(x) = W2 tanh(W1 x + b1) + b2`` of Collobert's thesis (2004, ch. 3 and 4),
    one linear output per target column, is trained on the squared error of the targets
    standardised inside the estimator (``y_mean_``, ``y_scale_``), one example at a time in a
    fresh random order every epoch (see :mod:`kernelnb.largescale.mlp`).

    Parameters
    ----------
    n_hidden : int, default=20
        Number of tanh hidden units.
    learning_rate : float, default=0.01
        Step of the first example; the t-th example seen uses
        ``learning_rate / (1 + decay * t)``.
    decay : float, default=0.0
        Learning-rate decay per example seen.
    weight_decay : float, default=0.0
        The factor ``mu`` of the penalty ``mu/2 (||W1||^2 + ||W2||^2)``, applied at every
        example (the biases are not decayed).
    max_iter : int, default=100
        Most passes (epochs) over the training set.
    tol : float, default=1e-4
        Smallest improvement of the training loss (or of the validation R^2 with a validation
        set) that counts.
    validation_fraction : float in (0, 1) or None, default=None
        Part of the training set held out (at random) to stop early and keep the weights of
        the epoch with the best validation R^2; used only when ``fit`` gets no ``X_val``.
        None: no held-out part.
    n_iter_no_change : int, default=10
        Epochs without improvement before stopping.
    random_state : int, RandomState instance or None, default=None
        Seeds the split, the initialisation and the order of every epoch.
    verbose : bool, default=False
        Print the loss (and validation score) after every epoch.
    callback : callable or None, default=None
        ``callback(info)`` after every epoch, with a dict (``iteration``, ``loss``,
        ``validation_score``, ``estimator``: this estimator with the weights of that epoch);
        returning ``False`` stops training.

    Attributes
    ----------
    mean_, scale_ : ndarray of shape (n_features,)
        Input standardisation (of the training part only).
    y_mean_, y_scale_ : ndarray of shape (n_targets,)
        Target standardisation.
    hidden_weights_ : ndarray of shape (n_hidden, n_features)
        ``W1``, on standardised inputs.
    hidden_bias_ : ndarray of shape (n_hidden,)
        ``b1``.
    output_weights_ : ndarray of shape (n_targets, n_hidden)
        ``W2``, on standardised targets.
    output_bias_ : ndarray of shape (n_targets,)
        ``b2``.
    loss_curve_ : list of float
        Mean training loss per epoch (on the standardised targets).
    validation_scores_ : list of float or None
        Validation R^2 per epoch (None without a validation set).
    best_epoch_ : int or None
        With a validation set, the epoch whose weights are kept.
    best_validation_score_ : float or None
        Its validation R^2.
    n_iter_ : int
        Epochs run.
    fit_time_ : float
        Seconds the fit took.

    References
    ----------
    R. Collobert, "Large Scale Machine Learning", PhD thesis, Universite Paris VI, 2004,
    chapters 3 and 4.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.largescale import MLPRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-2, 2, size=(200, 1))
    >>> y = np.sin(X[:, 0]) + 0.05 * rng.randn(200)
    >>> reg = MLPRegressor(n_hidden=10, learning_rate=0.05, max_iter=100, random_state=0)
    >>> reg.fit(X, y).predict(X[:3]).shape
    (3,)
    >>> print(reg.score(X, y) > 0.9)
    True
    """

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Train on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Targets.
        X_val : array-like of shape (n_val, n_features), optional
            Validation inputs: training stops early on their R^2, and the weights of the best
            epoch are kept.
        y_val : array-like of shape (n_val,) or (n_val, n_targets), optional
            Their targets.

        Returns
        -------
        self : MLPRegressor
            The fitted estimator.
        """
        Xs, y, Xv, yv, rng = self._prepare(X, y, X_val, y_val, classification=False)
        T = self._standardized_targets(y)
        val_score = None if Xv is None else (lambda: self.score(Xv, yv))
        self._fit_net(Xs, T, _mlp.LOSSES["squared"], val_score, rng)
        return self

    def predict(self, X):
        """Predicted targets, shape (n,) or (n, n_targets) as ``y`` was."""
        return self._target_scale(self._outputs(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
