"""The gaters of the hard mixtures of SVMs (:class:`~kernelnb.largescale.MixtureSVC`,
:class:`~kernelnb.largescale.MixtureSVR`; Collobert, Bengio & Bengio 2002, Collobert's thesis
ch. 6): which experts to trust at each input.

A gater is given to a mixture as ``gater=``, either by name (``'global'``, ``'local'``,
``'uniform'``: that gater with its defaults) or as one of the objects below, whose parameters
are the gater's own (``MixtureSVC(gater=GlobalGater(n_hidden=64))``; a grid search reaches them
as ``gater__n_hidden``, as it reaches a pipeline's steps).  They hold parameters only: the
mixture's fit trains the gater with its experts and keeps the result (``gater_``, a
:class:`GaterMLP`, for the global gater; ``densities_``, ``platt_`` and ``log_prior_`` for the
local one).

:class:`GlobalGater` (thesis Alg. 6.1)
    A one-hidden-layer tanh MLP with softmax outputs ``g_k(x)``, trained with the experts fixed
    on the mixture's global cost ``1/L sum_l 1/2 (y_l - tanh(sum_k g_k(x_l) f_k(x_l)))^2``
    (without the tanh in regression).
:class:`LocalGater` (thesis Alg. 6.2)
    Bayes' rule on one generative model per expert, ``P(k|x) = P(x|k) P(k) / sum_j P(x|j)
    P(j)``, with a diagonal Gaussian mixture for ``P(x|k)``.
:class:`UniformGater`
    ``g_k = 1/K`` and no reassignment: the thesis's ablation baseline.
"""
from __future__ import annotations

import math

import numpy as np
from .._estimator import BaseEstimator

from .._validation import NONNEGATIVE_INT, POSITIVE, POSITIVE_INT, check_params, str_options
from .mlp import _standardizer

__all__ = ["GaterMLP", "GlobalGater", "LocalGater", "UniformGater", "resolve_gater"]


class GlobalGater(BaseEstimator):
    """The global gater of a hard mixture of SVMs (Collobert's thesis, Alg. 6.1): an MLP.

    ``g(x) = softmax(W2 tanh(W1 x + b1) + b2)`` over the K experts, trained at every outer
    iteration with the experts fixed, on the mixture's global cost
    ``1/2 (y - tanh(sum_k g_k(x) f_k(x)))^2`` (classification) or ``1/2 (y - sum_k g_k(x)
    f_k(x))^2`` (regression), by mini-batch Adam, warm-started from the previous iteration (the
    thesis: stochastic gradient, an approximate minimisation warm-started from the previous
    iteration).  The examples are then reassigned to the experts it prefers (the balance rule).

    The experts are evaluated, and the gater trained, on a random subsample of ``n_samples``
    training points fixed for the fit: the thesis's gater sees every training point, which
    costs every expert's output on every point, quadratic in the training set's size; with a
    bounded subsample an outer iteration stays linear in it (thesis 6.1.3).

    Parameters
    ----------
    n_hidden : int, default=32
        Hidden tanh units (the thesis: 150 or 500 on Forest).
    epochs : int, default=10
        Epochs of training per outer iteration (warm-started).
    learning_rate : float, default=3e-3
        Adam's step size.
    batch_size : int, default=128
        Mini-batch size.
    n_samples : int or None, default=20000
        Training points (a random subsample, the same for the whole fit) on which the experts
        are evaluated and the gater trained; None: all of them, as in the thesis (the fit is
        then quadratic in n), or a fifth of them with ``holdout``.
    holdout : bool, default=True
        Keep the gater's points out of the experts' training sets (at most a fifth of the
        training set), so that the gater learns from the experts' outputs on points they have
        not seen.  ``False`` is the thesis's choice; on noisy data the gater then learns to
        trust every expert on the region it was just given, where its outputs are fitted, not
        predicted (see :mod:`kernelnb.largescale.mixture`).

    See Also
    --------
    LocalGater : Bayes' rule on the experts' densities (Alg. 6.2).
    UniformGater : Every expert weighs 1/K.

    Examples
    --------
    >>> from kernelnb.largescale import GlobalGater, MixtureSVC
    >>> MixtureSVC(gater=GlobalGater(n_hidden=64, epochs=5)).get_params()["gater__n_hidden"]
    64
    """

    kind = "global"
    _parameter_constraints = {
        "n_hidden": POSITIVE_INT,
        "epochs": NONNEGATIVE_INT,
        "learning_rate": POSITIVE,
        "batch_size": POSITIVE_INT,
        "n_samples": [*POSITIVE_INT, None],
        "holdout": ["boolean"],
    }

    def __init__(self, *, n_hidden=32, epochs=10, learning_rate=3e-3, batch_size=128,
                 n_samples=20000, holdout=True):
        self.n_hidden = n_hidden
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.n_samples = n_samples
        self.holdout = holdout


class LocalGater(BaseEstimator):
    """The local gater of a hard mixture of SVMs (Collobert's thesis, Alg. 6.2): Bayes' rule.

    ``P(k|x) = P(x|k) P(k) / sum_j P(x|j) P(j)``, with ``P(x|k)`` a Gaussian mixture with
    diagonal covariances (scikit-learn's ``GaussianMixture(covariance_type='diag')``; the thesis
    writes full covariances, impractical in hundreds of dimensions) fitted on the expert's
    examples and ``P(k) = |D_k| / L``.  A classifier's experts are Platt-scaled,
    ``P(y=+1|x, k) = 1 / (1 + exp(-(a_k f_k(x) + b_k)))``; a regressor's ``P(y|x,k)`` is the
    Gaussian ``N(f_k(x), s_k^2)``, ``s_k^2`` the expert's mean squared residual on its own
    points.  The reassignment sorts the experts by ``P(y_l|x_l,k) P(x_l|k) P(k)`` (eq. 6.5);
    the densities are fitted in the expert tasks, beside the experts.

    Parameters
    ----------
    n_components : int, default=1
        Components of each expert's diagonal Gaussian mixture ``P(x|k)``.
    reg_covar : float, default=1e-3
        Added to the diagonal variances of ``P(x|k)`` (scikit-learn's ``GaussianMixture``
        name).

    See Also
    --------
    GlobalGater : The MLP gater (Alg. 6.1).
    UniformGater : Every expert weighs 1/K.

    Examples
    --------
    >>> from kernelnb.largescale import LocalGater, MixtureSVC
    >>> MixtureSVC(gater=LocalGater(n_components=2)).gater.n_components
    2
    """

    kind = "local"
    _parameter_constraints = {"n_components": POSITIVE_INT, "reg_covar": POSITIVE}

    def __init__(self, *, n_components=1, reg_covar=1e-3):
        self.n_components = n_components
        self.reg_covar = reg_covar


class UniformGater(BaseEstimator):
    """The uniform gater of a hard mixture of SVMs: ``g_k = 1/K``, and no reassignment.

    The experts trained once on a random partition, averaged: the ablation baseline of
    Collobert's thesis (ch. 6), one outer iteration.

    Parameters
    ----------
    n_samples : int or None, default=20000
        Training points (a random subsample, fixed for the fit) on which the experts are
        evaluated to record the training error and cost; None: all of them.

    See Also
    --------
    GlobalGater : The MLP gater (Alg. 6.1).
    LocalGater : Bayes' rule on the experts' densities (Alg. 6.2).

    Examples
    --------
    >>> from kernelnb.largescale import MixtureSVC, UniformGater
    >>> MixtureSVC(gater=UniformGater()).gater.kind
    'uniform'
    """

    kind = "uniform"
    _parameter_constraints = {"n_samples": [*POSITIVE_INT, None]}

    def __init__(self, *, n_samples=20000):
        self.n_samples = n_samples


#: The gaters by name: what ``gater='global'`` (and the others) stands for.
GATERS = {"global": GlobalGater, "local": LocalGater, "uniform": UniformGater}

#: The constraint of a mixture's ``gater`` parameter: a name or a gater object.
GATER_CONSTRAINT = [str_options(set(GATERS)), GlobalGater, LocalGater, UniformGater]


def resolve_gater(gater):
    """The gater object a mixture's ``gater`` parameter stands for, its parameters checked.

    Parameters
    ----------
    gater : {'global', 'local', 'uniform'}, GlobalGater, LocalGater or UniformGater
        A name (that gater with its defaults) or a gater object (returned as it is).

    Returns
    -------
    GlobalGater, LocalGater or UniformGater
        The gater.
    """
    if isinstance(gater, str):
        gater = GATERS[gater]()
    check_params(gater)
    return gater


class GaterMLP:
    """The network of the global gater (:class:`GlobalGater`): a small softmax MLP.

    ``g(x) = softmax(W2 tanh(W1 x + b1) + b2)``, trained on the global criterion of Collobert's
    thesis, Alg. 6.1.  Inputs are standardised with the mean and standard deviation of the
    training inputs (:meth:`set_scaling`, else the first :meth:`fit`).  :meth:`fit` runs
    mini-batch Adam on the mixture's global cost ``1/2 (y - tanh(sum_k g_k f_k))^2``
    (``link='tanh'``, classification) or ``1/2 (y - sum_k g_k f_k)^2`` (``link='identity'``,
    regression) with the expert outputs ``F`` fixed, continuing from the current weights (warm
    start).

    Parameters
    ----------
    n_features : int
        Inputs of the gater.
    n_hidden : int
        Hidden tanh units.
    n_experts : int
        Outputs: one weight per expert.
    rng : numpy.random.Generator
        Draws the initial weights.
    dtype : numpy float type, default=np.float64
        Float type of the weights and arithmetic (the mixtures use float32: the gater is the
        sequential part of a fit, and float32 halves its memory traffic).
    link : {'tanh', 'identity'}, default='tanh'
        The function of the mixed output in the global cost.

    Attributes
    ----------
    W1, b1, W2, b2 : ndarray
        The weights, of shapes (n_features, n_hidden), (n_hidden,), (n_hidden, n_experts) and
        (n_experts,).
    mean_, scale_ : ndarray of shape (n_features,) or None
        The input standardisation (None before :meth:`set_scaling` or :meth:`fit`).

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.largescale import GaterMLP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((50, 3))
    >>> gater = GaterMLP(3, 8, 2, rng).set_scaling(X)
    >>> gater.gate(X).shape
    (50, 2)
    """

    def __init__(self, n_features, n_hidden, n_experts, rng, dtype=np.float64, link="tanh"):
        if link not in ("tanh", "identity"):
            raise ValueError(f"link must be 'tanh' or 'identity', got {link!r}")
        self.n_hidden, self.n_experts, self.dtype, self.link = n_hidden, n_experts, dtype, link
        self.W1 = (rng.standard_normal((n_features, n_hidden))
                   / math.sqrt(n_features)).astype(dtype)
        self.b1 = np.zeros(n_hidden, dtype=dtype)
        # Small output weights: the first gater is nearly uniform.
        self.W2 = (0.01 * rng.standard_normal((n_hidden, n_experts))
                   / math.sqrt(n_hidden)).astype(dtype)
        self.b2 = np.zeros(n_experts, dtype=dtype)
        self.mean_ = self.scale_ = None

    def set_scaling(self, X):
        """Standardise inputs by the mean and standard deviation of ``X`` (scikit-learn's
        ``StandardScaler``: constant features keep a scale of 1)."""
        self.mean_, self.scale_ = _standardizer(X)
        return self

    def standardise(self, X):
        """``(X - mean) / std`` in the gater's precision."""
        return ((X - self.mean_) / self.scale_).astype(self.dtype, copy=False)

    def gate(self, X, Z=None):
        """Gater weights ``g_k(x)``, shape (n_samples, n_experts); rows sum to 1.  ``Z``: the
        already standardised inputs, if at hand."""
        return self._forward(self.standardise(X) if Z is None else Z)[1]

    def logits(self, X):
        """The softmax's inputs ``W2 tanh(W1 z + b1) + b2``: the same ranking of the experts as
        :meth:`gate`, without the exponentials and the normalisation."""
        return np.tanh(self.standardise(X) @ self.W1 + self.b1) @ self.W2 + self.b2

    def _forward(self, Z):
        H = np.tanh(Z @ self.W1 + self.b1)
        A = H @ self.W2 + self.b2
        A -= A.max(axis=1, keepdims=True)
        G = np.exp(A)
        G /= G.sum(axis=1, keepdims=True)
        return H, G

    @staticmethod
    def cost(G, F, y, link="tanh"):
        """The global cost ``mean 1/2 (y - tanh(sum_k g_k f_k))^2`` (without the tanh for
        ``link='identity'``)."""
        out = np.sum(G * F, axis=1)
        return float(0.5 * np.mean((y - (np.tanh(out) if link == "tanh" else out)) ** 2))

    def fit(self, X, y, F, epochs, learning_rate, batch_size, rng, Z=None):
        """Minimise the global cost over the gater's weights, the experts' outputs fixed.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Inputs.
        y : ndarray of shape (n_samples,)
            Targets: +-1 (``link='tanh'``) or real values (``link='identity'``).
        F : ndarray of shape (n_samples, n_experts)
            The experts' outputs at ``X``.
        epochs : int
            Passes of mini-batch Adam over the samples.
        learning_rate : float
            Adam's step size.
        batch_size : int
            Samples per mini-batch.
        rng : numpy.random.Generator
            Draws the order of every epoch.
        Z : ndarray of shape (n_samples, n_features), optional
            ``X`` already standardised (see :meth:`standardise`).

        Returns
        -------
        self : GaterMLP
            The trained gater.
        """
        if self.mean_ is None:
            self.set_scaling(X)
        if Z is None:
            Z = self.standardise(X)
        F = np.asarray(F, dtype=self.dtype)
        y = np.asarray(y, dtype=self.dtype)
        params = [self.W1, self.b1, self.W2, self.b2]
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        b1, b2, eps, t = 0.9, 0.999, 1e-8, 0
        n = Z.shape[0]
        for _ in range(int(epochs)):
            perm = rng.permutation(n)
            for s in range(0, n, batch_size):
                idx = perm[s:s + batch_size]
                Zb, Fb, yb = Z[idx], F[idx], y[idx]
                H, G = self._forward(Zb)
                out = np.sum(G * Fb, axis=1)
                if self.link == "tanh":
                    z = np.tanh(out)
                    d_out = -(yb - z) * (1.0 - z * z) / idx.shape[0]
                else:
                    d_out = -(yb - out) / idx.shape[0]
                dA = G * (Fb - out[:, None]) * d_out[:, None]  # softmax Jacobian
                gW2 = H.T @ dA
                gb2 = dA.sum(axis=0)
                dH = (dA @ self.W2.T) * (1.0 - H * H)
                gW1 = Zb.T @ dH
                gb1 = dH.sum(axis=0)
                t += 1
                c1, c2 = 1.0 / (1 - b1 ** t), 1.0 / (1 - b2 ** t)
                for p, g, mi, vi in zip(params, (gW1, gb1, gW2, gb2), m, v):
                    mi *= b1
                    mi += (1 - b1) * g
                    vi *= b2
                    vi += (1 - b2) * g * g
                    p -= learning_rate * c1 * mi / (np.sqrt(vi * c2) + eps)
        return self
