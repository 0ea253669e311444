"""The standard (soft) mixture of experts trained by stochastic gradient (Collobert's thesis,
2004, ch. 3, 6 and 7; Jacobs, Jordan, Nowlan & Hinton 1991).

``f(x) = sum_k g_k(x) f_k(x)``: K experts, each a one-hidden-layer tanh MLP
``f_k(x) = W2_k tanh(W1_k x + b1_k) + b2_k``, and a softmax gater ``g(x) = softmax(G2 u + c2)``
with ``u = tanh(G1 x + c1)`` (an MLP gater, ``gater_n_hidden`` units) or ``u = x`` (a linear
gater, ``gater_n_hidden=0``).  Unlike the hard mixtures of :mod:`kernelnb.largescale.mixture`,
every expert sees every example: the whole model is trained at once, one example at a time, by
the Cython loop :func:`kernelnb.largescale._mlp.moe_epoch` (same learning-rate schedule, weight
decay, input standardisation, early stopping and validation as :mod:`kernelnb.largescale.mlp`).

Criteria (``loss``):

``'squared'``
    ``1/2 ||t - f(x)||^2`` with targets +-1 (one output for two classes, one per class
    otherwise) or the standardised regression targets: the thesis's "MoE+MSE" of Table 7.1.
    Across experts the per-example Hessian's off-diagonal blocks are
    ``g_i g_j df_i/du_i (df_j/du_j)^T`` (thesis eq. 7.10), which vanish as the gater specialises
    (see :mod:`kernelnb.largescale.hessian`).
``'cross_entropy'`` (classification)
    The negative log-likelihood of ``P(y|x) = sum_k P(k|x) P(y|x,k)`` with ``P(k|x) = g_k(x)``
    and each expert a logistic (two classes) or softmax model of ``y``: the thesis's ch. 6
    baseline ("10 MLP experts with 50 hidden units and a 150-unit MLP gater, trained by
    stochastic gradient ascent on the log-likelihood").

The defaults are that baseline's sizes (10 experts of 50 hidden units, gater of 150 units).
"""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp, softmax
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._callbacks import progress_caller
from .._fit import fit_context
from .._validation import (NONNEGATIVE, NONNEGATIVE_INT, POSITIVE, POSITIVE_INT, str_options,
                           check_input)
from . import _mlp
from .mlp import SGD_CONSTRAINTS, _labels, _run_epochs, _SGDData, init_mlp_weights

__all__ = ["MixtureOfExpertsClassifier", "MixtureOfExpertsRegressor", "init_moe_weights",
           "moe_loss_grad"]

#: the weights of a mixture, in the order of :func:`moe_loss_grad`
MOE_WEIGHTS = ("W1", "b1", "W2", "b2", "G1", "c1", "G2", "c2")


def init_moe_weights(rng, n_features, n_experts, n_hidden, n_outputs, gater_n_hidden):
    """Draw the initial weights of a soft mixture of MLP experts (LeCun et al., 1998).

    Every expert is drawn as :func:`~kernelnb.largescale.mlp.init_mlp_weights` draws an MLP,
    one expert after the other, then the gater; the biases are zero.

    Parameters
    ----------
    rng : numpy.random.RandomState or numpy.random.Generator
        Source of the uniform draws (its ``uniform`` method is called).
    n_features : int
        Inputs ``d``.
    n_experts : int
        Experts ``K``.
    n_hidden : int
        Hidden units ``H`` of each expert.
    n_outputs : int
        Outputs ``C`` of each expert.
    gater_n_hidden : int
        Hidden units ``Hg`` of the gater (0: a linear gater).

    Returns
    -------
    dict
        ``W1 (K, H, d), b1 (K, H), W2 (K, C, H), b2 (K, C)`` (the experts),
        ``G1 (max(Hg, 1), d), c1 (max(Hg, 1),), G2 (K, Hg or d), c2 (K,)`` (the gater; G1 and
        c1 are an unused row of zeros for the linear gater).
    """
    K, H, C, Hg, d = n_experts, n_hidden, n_outputs, gater_n_hidden, n_features
    w = {"W1": np.empty((K, H, d)), "b1": np.zeros((K, H)), "W2": np.empty((K, C, H)),
         "b2": np.zeros((K, C))}
    for k in range(K):
        w["W1"][k], _, w["W2"][k], _ = init_mlp_weights(rng, d, H, C)
    if Hg > 0:
        w["G1"], w["c1"], w["G2"], w["c2"] = init_mlp_weights(rng, d, Hg, K)
    else:
        w["G1"], w["c1"] = np.zeros((1, d)), np.zeros(1)
        w["G2"] = rng.uniform(-1.0, 1.0, (K, d)) * np.sqrt(3.0 / d)
        w["c2"] = np.zeros(K)
    return w


def moe_loss_grad(X, T, weights, gater_n_hidden, loss="squared"):
    """Compute the mean loss of a mixture and its gradient with the training loop's own code.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs.
    T : array-like of shape (n_samples, n_outputs)
        Targets: any values for ``'squared'``; +-1 (one output) or one-hot rows for
        ``'likelihood'``.
    weights : dict
        The mixture's weights, as :func:`init_moe_weights` returns them.
    gater_n_hidden : int
        Hidden units of the gater (0: linear gater).
    loss : {'squared', 'likelihood'}, default='squared'
        Squared error of the mixed output, or negative log-likelihood of the mixture of
        logistic or softmax experts.

    Returns
    -------
    J : float
        The mean loss over (X, T).
    grads : dict
        Its gradient, with the keys of ``weights``.
    """
    if loss not in _mlp.MOE_LOSSES:
        raise ValueError(f"loss must be one of {tuple(_mlp.MOE_LOSSES)}, got {loss!r}")
    X, T = (np.ascontiguousarray(a, dtype=np.float64) for a in (X, T))
    w = [np.ascontiguousarray(weights[k], dtype=np.float64) for k in MOE_WEIGHTS]
    out = _mlp.moe_loss_grad(X, T, *w, int(gater_n_hidden), _mlp.MOE_LOSSES[loss])
    return out[0], dict(zip(MOE_WEIGHTS, out[1:]))


def moe_forward(Z, w, gater_n_hidden):
    """Forward pass on standardised inputs ``Z`` (n, d).

    Returns ``(Hx (n, K, H) experts' hidden outputs, O (n, K, C) experts' outputs,
    U (n, Hg) gater's hidden outputs or None, G (n, K) gater's weights)``."""
    Hx = np.tanh(np.einsum("nd,khd->nkh", Z, w["W1"]) + w["b1"])
    O = np.einsum("nkh,kch->nkc", Hx, w["W2"]) + w["b2"]
    U = np.tanh(Z @ w["G1"].T + w["c1"]) if gater_n_hidden > 0 else None
    G = softmax((U if U is not None else Z) @ w["G2"].T + w["c2"], axis=1)
    return Hx, O, U, G


class _BaseMoE(_SGDData, BaseEstimator):
    _parameter_constraints = {
        **SGD_CONSTRAINTS, "n_experts": POSITIVE_INT, "n_hidden": POSITIVE_INT,
        "gater_n_hidden": NONNEGATIVE_INT, "gater_learning_rate": [*POSITIVE, None],
        "decay": NONNEGATIVE, "weight_decay": NONNEGATIVE, "tol": NONNEGATIVE}

    def __init__(self, *, n_experts=10, n_hidden=50, gater_n_hidden=150, learning_rate=0.01,
                 gater_learning_rate=None, decay=0.0, weight_decay=0.0, max_iter=100, tol=1e-4,
                 validation_fraction=None, n_iter_no_change=10, random_state=None,
                 verbose=False, callback=None):
        self.n_experts = n_experts
        self.n_hidden = n_hidden
        self.gater_n_hidden = gater_n_hidden
        self.learning_rate = learning_rate
        self.gater_learning_rate = gater_learning_rate
        self.decay = decay
        self.weight_decay = weight_decay
        self.max_iter = max_iter
        self.tol = tol
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    def _fit_mixture(self, Z, T, loss_kind, val_score, rng):
        """Initialise and train the mixture on standardised inputs Z and targets T (n, C)."""
        n, d = Z.shape
        Hg = int(self.gater_n_hidden)
        w = init_moe_weights(rng, d, int(self.n_experts), int(self.n_hidden), T.shape[1], Hg)
        self.weights_ = w
        Zc = np.ascontiguousarray(Z)
        Tc = np.ascontiguousarray(T, dtype=np.float64)
        lr = float(self.learning_rate)
        lrg = lr if self.gater_learning_rate is None else float(self.gater_learning_rate)
        dec, wd = float(self.decay), float(self.weight_decay)
        counter = [0]

        def epoch(order):
            loss, counter[0] = _mlp.moe_epoch(Zc, Tc, order, *(w[k] for k in MOE_WEIGHTS), Hg,
                                              lr, lrg, dec, wd, counter[0], loss_kind)
            if not np.isfinite(loss) or not np.all(np.isfinite(w["W2"])):
                raise ValueError(f"training diverged (loss {loss}): lower learning_rate "
                                 f"(now {self.learning_rate})")
            return loss, False

        _run_epochs(self, n, rng, epoch, val_score, w,
                    report=progress_caller(self.callback))

    def _forward(self, X):
        check_is_fitted(self, "weights_")
        X = check_input(self, X, reset=False)
        return moe_forward((X - self.mean_) / self.scale_, self.weights_,
                           int(self.gater_n_hidden))

    def gate(self, X):
        """The gater's weights ``g_k(x) = P(k|x)``, shape (n_samples, n_experts)."""
        return self._forward(X)[3]

    def expert_outputs(self, X):
        """Every expert's outputs ``f_k(x)``, shape (n_samples, n_experts, n_outputs)."""
        return self._forward(X)[1]

    @property
    def n_parameters_(self):
        """Number of weights and biases of the fitted mixture (the thesis compares models of
        about equal numbers of parameters)."""
        check_is_fitted(self, "weights_")
        w = self.weights_
        n = sum(w[k].size for k in ("W1", "b1", "W2", "b2", "G2", "c2"))
        return n + (w["G1"].size + w["c1"].size if int(self.gater_n_hidden) > 0 else 0)


class MixtureOfExpertsClassifier(ClassifierMixin, _BaseMoE):
    """Standard soft mixture of MLP experts with a softmax gater, for classification.

    ``f(x) = sum_k g_k(x) f_k(x)``: K one-hidden-layer tanh MLP experts and a softmax gater
    (an MLP, or linear), all trained at once by per-example stochastic gradient on the whole
    training set (see :mod:`kernelnb.largescale.moe`).  The defaults are the sizes of the
    thesis's ch. 6 baseline (10 experts of 50 hidden units, a gater of 150 units).

    Parameters
    ----------
    n_experts : int, default=10
        Number K of MLP experts.
    n_hidden : int, default=50
        Hidden tanh units of each expert.
    gater_n_hidden : int, default=150
        Hidden tanh units of the gater; 0 makes it linear (``softmax(G2 x + c2)``).
    loss : {'squared', 'cross_entropy'}, default='squared'
        Squared error of the mixed output on +-1 targets (the thesis's "MoE+MSE"), or the
        negative log-likelihood of ``P(y|x) = sum_k g_k(x) P(y|x,k)`` with logistic (two
        classes) or softmax experts.
    learning_rate : float, default=0.01
        Step of the first example for the experts; the t-th example uses
        ``learning_rate / (1 + decay * t)``.
    gater_learning_rate : float or None, default=None
        The same for the gater (None: ``learning_rate``).
    decay : float, default=0.0
        Learning-rate decay per example seen.
    weight_decay : float, default=0.0
        Shrinks every weight matrix of the experts and the gater at every example (the
        penalty ``weight_decay/2`` times their squared norms; the biases are not decayed).
    max_iter : int, default=100
        Most passes (epochs) over the training set.
    tol : float, default=1e-4
        Smallest improvement of the training loss (or of the validation score with a
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
    weights_ : dict
        ``W1 (K, H, d), b1 (K, H), W2 (K, C, H), b2 (K, C)`` (the experts on standardised
        inputs), ``G1 (Hg, d), c1 (Hg,), G2 (K, Hg or d), c2 (K,)`` (the gater), as in
        :func:`init_moe_weights`.
    n_parameters_ : int
        Number of weights and biases of the mixture.
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
    ch. 3, ch. 6 (the MLP mixture baseline) and ch. 7 (Table 7.1,
    eq. 7.10).  R. A. Jacobs, M. I. Jordan, S. J. Nowlan and G. E. Hinton, "Adaptive
    mixtures of local experts", Neural Computation 3(1), 1991.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.largescale import MixtureOfExpertsClassifier
    >>> X, y = make_moons(n_samples=200, noise=0.1, random_state=0)
    >>> clf = MixtureOfExpertsClassifier(n_experts=3, n_hidden=5, gater_n_hidden=5,
    ...                                  learning_rate=0.1, max_iter=30, random_state=0)
    >>> clf.fit(X[:150], y[:150]).gate(X[150:152]).shape
    (2, 3)
    >>> print(clf.score(X[150:], y[150:]) > 0.9)
    True
    """

    _parameter_constraints = {**_BaseMoE._parameter_constraints,
                              "loss": [str_options({"squared", "cross_entropy"})]}

    def __init__(self, *, n_experts=10, n_hidden=50, gater_n_hidden=150, loss="squared",
                 learning_rate=0.01, gater_learning_rate=None, decay=0.0, weight_decay=0.0,
                 max_iter=100, tol=1e-4, validation_fraction=None, n_iter_no_change=10,
                 random_state=None, verbose=False, callback=None):
        super().__init__(n_experts=n_experts, n_hidden=n_hidden, gater_n_hidden=gater_n_hidden,
                         learning_rate=learning_rate, gater_learning_rate=gater_learning_rate,
                         decay=decay, weight_decay=weight_decay, max_iter=max_iter, tol=tol,
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
        self : MixtureOfExpertsClassifier
            The fitted estimator.
        """
        Z, y, Xv, yv, rng = self._prepare(X, y, X_val, y_val, classification=True)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] < 2:
            raise ValueError(f"MixtureOfExpertsClassifier needs samples of at least 2 classes, "
                             f"got 1 class ({self.classes_[0]!r})")
        kind = _mlp.MOE_LOSSES["likelihood" if self.loss == "cross_entropy" else "squared"]
        val_score = None if Xv is None else (lambda: self.score(Xv, yv))
        self._fit_mixture(Z, self._targets(y), kind, val_score, rng)
        return self

    def _log_proba(self, X):
        _, O, _, G = self._forward(X)
        if O.shape[2] == 1:      # two classes: logistic experts, P(classes_[1] | x, k)
            lp = np.stack([-np.logaddexp(0.0, O[:, :, 0]), -np.logaddexp(0.0, -O[:, :, 0])],
                          axis=2)
        else:
            lp = O - logsumexp(O, axis=2, keepdims=True)
        with np.errstate(divide="ignore"):
            return logsumexp(np.log(G)[:, :, None] + lp, axis=1)

    def decision_function(self, X):
        """``sum_k g_k(x) f_k(x)`` (squared error) or the log-odds / log-probabilities of the
        likelihood mixture; shape (n,) for two classes (> 0 means ``classes_[1]``), else
        (n, n_classes)."""
        if self.loss == "cross_entropy":
            L = self._log_proba(X)
            return L[:, 1] - L[:, 0] if L.shape[1] == 2 else L
        _, O, _, G = self._forward(X)
        F = np.einsum("nk,nkc->nc", G, O)
        return F[:, 0] if F.shape[1] == 1 else F

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
        """``P(y|x) = sum_k g_k(x) P(y|x,k)``, shape (n, n_classes)."""
        return np.exp(self._log_proba(X))

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`, computed without underflow."""
        return self._log_proba(X)


class MixtureOfExpertsRegressor(RegressorMixin, _BaseMoE):
    """Standard soft mixture of MLP experts with a softmax gater, for regression.

    ``f(x) = sum_k g_k(x) f_k(x)``: K one-hidden-layer tanh MLP experts and a softmax gater
    (an MLP, or linear), trained at once by per-example stochastic gradient on the squared
    error of the targets standardised inside the estimator (``y_mean_``, ``y_scale_``), one
    output per target column (see :mod:`kernelnb.largescale.moe`).

    Parameters
    ----------
    n_experts : int, default=10
        Number K of MLP experts.
    n_hidden : int, default=50
        Hidden tanh units of each expert.
    gater_n_hidden : int, default=150
        Hidden tanh units of the gater; 0 makes it linear (``softmax(G2 x + c2)``).
    learning_rate : float, default=0.01
        Step of the first example for the experts; the t-th example uses
        ``learning_rate / (1 + decay * t)``.
    gater_learning_rate : float or None, default=None
        The same for the gater (None: ``learning_rate``).
    decay : float, default=0.0
        Learning-rate decay per example seen.
    weight_decay : float, default=0.0
        Shrinks every weight matrix of the experts and the gater at every example (the
        penalty ``weight_decay/2`` times their squared norms; the biases are not decayed).
    max_iter : int, default=100
        Most passes (epochs) over the training set.
    tol : float, default=1e-4
        Smallest improvement of the training loss (or of the validation score with a
        validation set) that counts.
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
    y_mean_, y_scale_ : ndarray of shape (n_targets,)
        Target standardisation.
    mean_, scale_ : ndarray of shape (n_features,)
        Input standardisation (of the training part only).
    weights_ : dict
        ``W1 (K, H, d), b1 (K, H), W2 (K, C, H), b2 (K, C)`` (the experts on standardised
        inputs), ``G1 (Hg, d), c1 (Hg,), G2 (K, Hg or d), c2 (K,)`` (the gater), as in
        :func:`init_moe_weights`.
    n_parameters_ : int
        Number of weights and biases of the mixture.
    loss_curve_ : list of float
        Mean training loss per epoch (each example's loss before its update).
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
    ch. 3 and ch. 7.  R. A. Jacobs, M. I. Jordan, S. J. Nowlan and G. E. Hinton, "Adaptive
    mixtures of local experts", Neural Computation 3(1), 1991.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.largescale import MixtureOfExpertsRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-2, 2, size=(200, 1))
    >>> y = np.abs(X[:, 0]) + 0.05 * rng.randn(200)
    >>> reg = MixtureOfExpertsRegressor(n_experts=2, n_hidden=5, gater_n_hidden=0,
    ...                                 learning_rate=0.05, max_iter=50, random_state=0)
    >>> reg.fit(X, y).expert_outputs(X[:3]).shape
    (3, 2, 1)
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
            Validation inputs: training stops early on their R^2, and the weights of the
            best epoch are kept.
        y_val : array-like of shape (n_val,) or (n_val, n_targets), optional
            Their targets.

        Returns
        -------
        self : MixtureOfExpertsRegressor
            The fitted estimator.
        """
        Z, y, Xv, yv, rng = self._prepare(X, y, X_val, y_val, classification=False)
        T = self._standardized_targets(y)
        val_score = None if Xv is None else (lambda: self.score(Xv, yv))
        self._fit_mixture(Z, T, _mlp.MOE_LOSSES["squared"], val_score, rng)
        return self

    def predict(self, X):
        """Predicted targets, shape (n,) or (n, n_targets) as ``y`` was."""
        _, O, _, G = self._forward(X)
        return self._target_scale(np.einsum("nk,nkc->nc", G, O))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
