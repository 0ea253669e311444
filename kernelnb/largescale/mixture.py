"""Hard mixtures of SVM experts trained in parallel on Dask (Collobert's thesis, chapter 6):
:class:`MixtureSVC` (classification) and :class:`MixtureSVR` (regression).

One SVM on L examples costs about O(L^2) or more.  A hard mixture splits the training set between
K SVM experts of about L/K examples each, trains them independently (in parallel: one Dask task
per expert), and lets a gater decide, for every input, which experts to trust.  The partition is
then improved by reassigning every example to the expert the gater prefers, subject to a capacity
of L/K + 1 examples per expert (Collobert's thesis, Alg. 6.1 and 6.2).

The mixture is a meta-estimator: ``expert`` is the estimator every expert is a clone of
(:class:`kernelnb.svm.SVC` by default), ``gater`` the gater, by name or as an object of
:mod:`kernelnb.largescale._gater` that carries its own parameters.

Gaters
------
``'global'``, :class:`~kernelnb.largescale.GlobalGater` (Alg. 6.1)
    A one-hidden-layer tanh MLP with softmax outputs ``g_k(x)``, trained on the *whole* training set
    with the experts fixed, to minimise the mixture's global cost

        1/L sum_l 1/2 (y_l - tanh(sum_k g_k(x_l) f_k(x_l)))^2 ,

    ``f_k`` the experts' SVM decision values.  The thesis trains it by stochastic gradient and
    notes that the minimisation may be approximate and warm-started from the previous outer
    iteration: here mini-batch Adam for the gater's ``epochs``, warm-started (a small numpy
    network, inputs standardised).  Reassignment: each example, in a random order, goes to the
    first expert in decreasing order of ``g_k(x_l)`` that holds fewer than ``L // K + 1`` examples
    (the balance rule; it uses x only, not y).  Prediction: ``sign(sum_k g_k(x) f_k(x))``.
``'local'``, :class:`~kernelnb.largescale.LocalGater` (Alg. 6.2)
    Bayes' rule with one generative model per expert: ``P(k|x) = P(x|k) P(k) / sum_j P(x|j) P(j)``.
    ``P(x|k)`` is a Gaussian mixture with *diagonal* covariances (scikit-learn's
    ``GaussianMixture(covariance_type='diag')``, the gater's ``n_components`` and ``reg_covar``;
    the thesis writes full covariances, impractical in 784 dimensions) fitted on the
    expert's examples, ``P(k) = |D_k| / L``, and each SVM expert is Platt-scaled:
    ``P(y=+1|x, k) = 1 / (1 + exp(-(a_k f_k(x) + b_k)))``, ``a_k, b_k`` fitted by the negative
    log-likelihood on the expert's own training outputs with Platt's smoothed targets (the
    thesis writes the sigmoid as ``1/(1+exp(a - y w f))``; this is the usual normalised form).
    Reassignment sorts the experts by ``P(y_l|x_l,k) P(x_l|k) P(k)`` (eq. 6.5) with the same
    capacity rule.  Everything but the reassignment runs in the expert tasks.  Prediction:
    ``P(y=+1|x) = sum_k P(k|x) P(y=+1|x,k)``.
``'uniform'``, :class:`~kernelnb.largescale.UniformGater`
    ``g_k = 1/K`` and no reassignment: the experts on a random partition, averaged (the thesis's
    ablation baseline).  One outer iteration.

Outer iterations: iteration t trains the experts on the current partition (parallel), then the
gater, records the validation error, and -- except after the last one -- reassigns.  The model
returned is the iteration with the lowest validation error (experts and gater trained together),
and the loop stops when the validation error has not improved for ``n_iter_no_change``
iterations: the thesis's Alg. 6.1 stops "when the validation error rises".

Cost of an iteration (Collobert, Bengio & Bengio 2002; thesis 6.1.3: linear in L for a fixed
expert size M = L/K).  The thesis trains the gater on the whole training set, which needs every
expert's output on every training point: K * L evaluations of an expert of M support vectors, L^2
work in all.  Here the global gater is trained on a random subsample of its ``n_samples``
training points (fixed for the fit), where alone the experts are evaluated; the held-out
validation set has at most ``max_validation`` points (the thesis: 10,000 on Forest); the
reassignment needs only the gater on all L points (one pass, no expert) and each point's first
few preferences.  An iteration then costs K expert trainings of size M, K * (n_samples +
max_validation) expert evaluations and one gater pass over L points: linear in L.  The default
``n_experts='auto'`` keeps M fixed as L grows: one expert per 2,000 points of the experts' pool,
the expert size of the thesis's Forest runs (100,000 examples, 50 experts).  The local gater
still evaluates every expert on every training point (its reassignment, eq. 6.5, needs
P(y_l|x_l,k) for all l and k).

Why the gater's points are held out (``GlobalGater(holdout=True)``).  In Alg. 6.1 the gater is trained on
the experts' outputs on their own training points.  An SVM with a large C fits its training
points, noisy labels included, so those outputs are better than the expert's predictions: after
a reassignment each expert holds the region where the gater preferred it, the warm-started gater
sees every expert "right" on its own region and sharpens, and the mixture learns its own
partition instead of the problem (the validation error climbs with each reassignment on noisy
data).  With the gater's points given to no expert, the gater sees what a new point would get.
Keeping the best iteration (Alg. 6.1) means the fit never returns a degraded model either way.

Why the held-out points are given back (``refit_held_out=True``, the default).  While the
iterations run, the experts share only what is left after the validation set and the gater's
points, which costs accuracy where the SVM's error still falls with n.  So, once the iterations
have fixed the partition, the gater and the best iteration on held-out data, every held-out
point goes to the expert the gater prefers (balance rule over all of X) and each expert is
refitted once on all its points, starting from its solution on its old points and zero on the
points added (a feasible start: the box and ``sum y_i alpha_i = 0`` still hold).  The gater is
not retrained, so it was trained only on outputs of experts that had not seen its points.
``benchmarks/bench_mixture_noisy.py`` measures the mixture against one SVC with and without it.

Regression (:class:`MixtureSVR`).  The thesis's regression extension (ch. 6) replaces
``P(y|x,k)`` by ``E[y|x,k]``: ``E[y|x] = sum_k P(k|x) E[y|x,k]`` with epsilon-SVR experts
(:class:`kernelnb.svm.SVR`) trained on their subsets and the global gater trained, experts fixed,
on the squared error ``1/2 (y - sum_k g_k(x) f_k(x))^2`` (no tanh: the output is a regression
value).  The targets are standardised inside the estimator (so ``epsilon`` and ``C`` are in
units of the targets' standard deviation); the training and validation errors are mean squared
errors in the targets' units.  Everything else -- the layout, the balance rule, the outer
iterations, the best iteration kept, Dask -- is the classifier's code.  The local gater of
regression models ``P(y|x,k)`` as a Gaussian ``N(f_k(x), s_k^2)`` around the expert's output,
``s_k^2`` its mean squared residual on its own points (what Platt scaling is to the classifier):
``P(k|x)`` is Bayes' rule on the experts' densities ``P(x|k)`` as for classification,
``E[y|x] = sum_k P(k|x) f_k(x)``, and the reassignment scores are
``log N(y_l; f_k(x_l), s_k^2) + log P(x_l|k) + log P(k)`` (eq. 6.5 with that density).

Distribution: see :mod:`kernelnb.largescale._dask`.  The training, gater and validation inputs
are scattered to every worker once for the iterations (and all of X once more for the refit),
under keys of their own, and released when that phase ends; each task receives the index array
of its expert's examples and returns the fitted expert with its decision values on the gater's
and validation points.  A worker lost during the fit costs nothing while another worker holds
the data (Dask reruns its task there); when the only copy is lost the fit stops with a
``RuntimeError`` that says so (:class:`~kernelnb.largescale._dask.TaskRunner`).  Tasks run with
BLAS held to one thread and the expert's ``n_jobs=1``, in the same code serially and on Dask, so
that a seed gives the same model either way.  A live Dask client is given to ``fit(client=...)``,
never held as a parameter: ``clone`` deep-copies parameters, and a copied client would be a
second connection (or fail), not the caller's cluster.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, log_expit, logsumexp
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin, RegressorMixin, clone
from sklearn.utils import check_random_state
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import ThreadpoolController

from .._callbacks import progress_caller
from .._docstrings import fill_doc
from .._fit import fit_context
from .._platt import platt_fit
from .._threads import n_threads
from .._validation import (CALLBACK, FRACTION, N_JOBS, POSITIVE_INT, check_input, check_param,
                           check_params, has_methods, str_options)
from ..kernels import KernelSpec
from ..svm import SVC, SVR
from . import _mlp
from ._dask import TaskRunner, dask_client
from ._gater import GATER_CONSTRAINT, GaterMLP, resolve_gater

__all__ = ["MixtureSVC", "MixtureSVR", "balanced_assignment"]
# Smallest noise variance of a regression expert's P(y|x,k), in units of the standardised
# targets' variance.
_MIN_NOISE = 1e-4

_POOLS = None


def _one_thread():
    """Every thread pool (BLAS, OpenMP) held to one thread, as threadpoolctl's
    ``threadpool_limits(limits=1)``, with the loaded libraries scanned once per process: a scan
    reads the process's memory map, and a fit enters a limit in each expert task."""
    global _POOLS
    if _POOLS is None:
        _POOLS = ThreadpoolController()
    return _POOLS.limit(limits=1)


# --------------------------------------------------------------------------------------------
# Reassignment with the balance rule


def balanced_assignment(scores, capacity, order=None):
    """Assign each example to its preferred expert among those not yet full.

    Example ``l`` (taken in ``order``) goes to the first expert, in decreasing order of
    ``scores[l]``, that holds fewer than ``capacity`` examples (thesis Alg. 6.1, step 2.3).

    Parameters
    ----------
    scores : array-like of shape (n_samples, n_experts)
        Larger is preferred (gater weights, or log posteriors).  Ties go to the lower index.
    capacity : int
        Maximum number of examples per expert (the thesis's ``L/K + 1``); ``n_experts *
        capacity`` must be at least ``n_samples``.
    order : array-like of int, optional
        The order in which examples choose (default: 0, 1, ..., n-1).

    Returns
    -------
    ndarray of int of shape (n_samples,)
        The expert of each example.

    Examples
    --------
    >>> from kernelnb.largescale import balanced_assignment
    >>> balanced_assignment([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3]], capacity=2)
    array([0, 0, 1])
    """
    scores = np.asarray(scores)
    if scores.ndim != 2:
        raise ValueError(f"scores must be a 2-D array (n_samples, n_experts), got shape "
                         f"{scores.shape}")
    n, k = scores.shape
    prefs = _top_preferences(scores)
    return _assign_from_preferences(prefs, lambda l: scores[l], n, k, capacity, order,
                                    lambda rows: scores[rows])


# Preferences kept per example: the first few experts in its order suffice unless they are all
# full when its turn comes (then its whole row is sorted).
_TOP = 16


def _top_preferences(scores):
    """The ``min(K, _TOP)`` preferred experts of each row, best first (ties: lower index).
    ``scores`` in any float precision; NaN and -inf rank last.

    Taken by ``_TOP`` passes of ``argmax`` (each marks its pick -inf), which gives them in
    order without a partition and a sort."""
    scores = np.asarray(scores)
    if scores.dtype.kind != "f":
        scores = scores.astype(np.float64)
    n, k = scores.shape
    m = min(k, _TOP)
    low = np.isnan(scores) | (scores == -np.inf)
    if m == k:
        return np.argsort(-np.where(low, -np.inf, scores), axis=1, kind="stable")
    # unusable scores become the lowest finite value (they tie, lower index first); a pick
    # becomes -inf, below all of them
    A = np.where(low, np.finfo(scores.dtype).min, scores)
    out = np.empty((n, m), dtype=np.int64)
    rows = np.arange(n)
    for j in range(m):
        pick = A.argmax(axis=1)
        out[:, j] = pick
        A[rows, pick] = -np.inf
    return out


def _subsets(assignment, k):
    """The training indices of each of the ``k`` experts (ascending), from one stable sort:
    O(L log L) where one ``flatnonzero(assignment == j)`` per expert costs O(K L), which grows
    as n^2 when the number of experts grows with n.  Entries below 0 (held-out points) belong to
    no expert."""
    idx = np.flatnonzero(assignment >= 0)
    owner = assignment[idx]
    ordered = idx[np.argsort(owner, kind="stable")]
    return np.split(ordered, np.cumsum(np.bincount(owner, minlength=k))[:-1])


# Rows whose listed preferences are refreshed at once when one of them finds all its listed
# experts full (see _assign_from_preferences).
_REFRESH_ROWS = 4096


def _assign_from_preferences(prefs, row_scores, n, k, capacity, order, block_scores=None,
                             counts=None):
    """The balance rule on precomputed preferences (``prefs`` is updated in place).  ``counts``:
    the examples each expert already holds (default none), counted against its capacity.

    An example whose listed preferences are all full when its turn comes goes to its best
    expert among those not full.  With ``block_scores(rows)`` (the full scores of several
    rows) the lists of this example and of the next ``_REFRESH_ROWS`` in ``order`` are rebuilt
    at once among the experts not full yet -- the same choices, since experts only fill up --
    instead of scoring the examples one at a time with ``row_scores(l)`` (one gater pass per
    example: on large mixtures, where most experts fill up before the last examples' turn,
    that was a fifth of the examples and most of the sequential time)."""
    capacity = int(capacity)
    counts = (np.zeros(k, dtype=np.int64) if counts is None
              else np.array(counts, dtype=np.int64))
    if capacity * k < n + counts.sum():
        raise ValueError(f"capacity={capacity} times {k} experts cannot hold {n} examples"
                         + (f" besides the {counts.sum()} they hold" if counts.any() else ""))
    order = np.ascontiguousarray(np.arange(n) if order is None else order, dtype=np.int64)
    prefs = np.ascontiguousarray(prefs, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    full = (counts >= capacity).astype(np.uint8)
    short = prefs.shape[1] < k
    t = 0
    while True:
        # the examples in turn, in C, until one finds every expert of its list full
        t = _mlp.balance_run(prefs, order, t, capacity, counts, full, out)
        if t >= n:
            return out
        l = int(order[t])
        if block_scores is not None and short:
            rows = order[t:t + _REFRESH_ROWS]
            sc = np.array(block_scores(rows), dtype=np.float64)   # NaN ranks last there too
            sc[:, full.view(bool)] = -np.inf
            prefs[rows] = _top_preferences(sc)
            if not full.view(bool)[prefs[l]].all():
                continue                              # example l now lists a free expert
        # one example: its best expert among those not full
        sc = np.nan_to_num(np.asarray(row_scores(l), dtype=np.float64), nan=-np.inf)
        free = ~full.view(bool)
        sc[~free] = -np.inf
        e = int(np.argmax(sc)) if short else int(np.flatnonzero(free)[0])
        if not free[e]:
            e = int(np.flatnonzero(free)[0])
        out[l] = e
        counts[e] += 1
        if counts[e] >= capacity:
            full[e] = 1
        t += 1


# --------------------------------------------------------------------------------------------
# Expert tasks (module level: they are pickled to the Dask workers)


class _ConstantExpert:
    """An expert whose examples hold a single class (or none): a constant decision value."""

    def __init__(self, value):
        self.value = float(value)

    def decision_function(self, X):
        return np.full(np.shape(X)[0], self.value)

    predict = decision_function


def _prepare_rbf32(expert):
    """The float32 :class:`kernelnb.kernels.KernelExpansion` of a Gaussian SVC expert (the
    package's one block evaluator, centred on the expert's training mean); ``None`` for any
    other expert (then its own float64 ``decision_function`` is used)."""
    from ..kernels import RBF, KernelExpansion

    if not isinstance(expert, (SVC, SVR)) or not isinstance(expert.kernel_, RBF) \
            or expert.support_.shape[0] == 0:
        return None
    return KernelExpansion(expert.kernel_, expert.support_vectors_, expert.dual_coef_[0],
                           dtype=np.float32, block_mb=32)


def _expert_decision(expert, X, prepared, regression):
    """Decision values of one expert on ``X``.

    The experts are evaluated on the gater's points and the validation points at every outer
    iteration: for Gaussian kernelnb experts in float32 (one SGEMM and one fused exp pass per
    block of about 32 MB, half the memory traffic of float64), with relative errors near 1e-6.
    A point's value does not depend on the other points of its block.  ``regression``: the
    expert's output is its prediction, else its decision value.
    """
    if prepared is None:
        return _raw_output(expert, X, regression)
    return prepared(X) + float(expert.intercept_[0])


def _raw_output(expert, X, regression):
    """An expert's real-valued output: a regressor's prediction, a classifier's decision value
    (positive: class +1)."""
    return expert.predict(X) if regression else expert.decision_function(X)


def _expert_task(X, y, Xs, S, Xv, idx, expert, regression, local, seed, alpha_init=None):
    """Train a clone of the estimator ``expert`` on ``X[idx]`` and evaluate it where the gater
    needs it.

    ``regression``: the targets are real values (a subset of fewer than two points gets a
    constant expert), else +-1 (a subset of one class gets a constant expert).  ``local``:
    ``(n_components, reg_covar)`` of the local gater, whose density ``P(x|k)`` and scaling of
    ``P(y|x,k)`` are fitted here beside the expert, or None.  ``alpha_init``: a warm start for
    a kernelnb SVC expert (its signed dual coefficients on ``idx``,
    :meth:`kernelnb.svm.SVC.fit`), or None.

    ``Xs = X[S]`` are the gater's points (a bounded subsample of the training set for the global
    gater, every training point for the local one): the expert is evaluated there and on the
    validation points ``Xv`` only, never on the whole training set -- so an outer iteration costs
    ``K * (|S| + |Xv|)`` kernel rows of an expert's size, linear in ``L`` for a fixed expert size.
    Runs with BLAS on one thread whether called serially or on a Dask worker (same arithmetic).
    """
    t0 = time.perf_counter()
    with _one_thread():
        yk = y[idx]
        if idx.shape[0] == 0:
            expert = _ConstantExpert(0.0)
        elif regression and idx.shape[0] < 2:
            expert = _ConstantExpert(float(np.mean(yk)))
        elif not regression and np.unique(yk).shape[0] < 2:
            expert = _ConstantExpert(float(yk[0]))
        else:
            expert = clone(expert)
            if alpha_init is None:
                expert.fit(X[idx], yk)
            else:
                expert.fit(X[idx], yk, alpha_init=alpha_init)
        prepared = _prepare_rbf32(expert)
        # (the refit of refit_held_out evaluates the experts nowhere: no gater's points)
        dec = _expert_decision(expert, Xs, prepared, regression) if Xs.shape[0] else np.empty(0)
        out = {"expert": expert, "dec": dec,
               "dec_val": (_expert_decision(expert, Xv, prepared, regression) if Xv.shape[0]
                           else np.empty(0))}
        if local is not None:
            # here Xs is the whole training set (S = all); Platt on the expert's own outputs
            own = dec[idx]
            if regression:
                # P(y|x,k) = N(y; f_k(x), s_k^2): s_k^2 the expert's mean squared residual on
                # its own points, the maximum-likelihood variance (floored: an expert that fits
                # its points exactly must not claim zero noise)
                s2 = float(np.mean((yk - own) ** 2)) if idx.shape[0] else 1.0
                out["platt"] = np.array([max(s2, _MIN_NOISE), 0.0])
            else:
                out["platt"] = platt_fit(own, yk) if idx.shape[0] else np.array([0.0, 0.0])
            if idx.shape[0] == 0:
                out["gmm"] = None
                out["logpx"] = np.full(Xs.shape[0], -np.inf)
                out["logpx_val"] = np.full(Xv.shape[0], -np.inf)
            else:
                from sklearn.mixture import GaussianMixture

                n_components, reg_covar = local
                gmm = GaussianMixture(n_components=min(n_components, idx.shape[0]),
                                      covariance_type="diag", reg_covar=reg_covar,
                                      random_state=seed).fit(X[idx])
                out["gmm"] = gmm
                out["logpx"] = gmm.score_samples(Xs)
                out["logpx_val"] = gmm.score_samples(Xv) if Xv.shape[0] else np.empty(0)
    out["time"] = time.perf_counter() - t0
    return out


def _warm_start(expert, old, new):
    """The refit's warm start of an expert (``refit_held_out``): its solution on its points
    ``old`` laid out on ``new`` (both ascending indices of X, ``old`` a subset of ``new``), zero
    on the points added.  The dual variables of the smaller problem stay feasible for the
    larger one (the added points at zero keep the box and ``sum y_i alpha_i = 0``), so the
    solver starts from the old optimum instead of from zero and reaches the same optimum
    (within its tolerance).  None for an expert that is not a two-class SVC."""
    if type(expert) is not SVC or getattr(expert, "classes_", np.empty(0)).shape[0] != 2:
        return None
    pos = np.searchsorted(new, old)
    if old.shape[0] == 0 or pos[-1] >= new.shape[0] or not np.array_equal(new[pos], old):
        return None
    init = np.zeros(new.shape[0])
    init[pos[expert.support_]] = expert.dual_coef_[0]
    return init


# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layout:
    """The split of one fit's data (see ``MixtureSVC._layout``)."""

    tr_idx: np.ndarray
    val_idx: np.ndarray
    Xtr: np.ndarray
    ytr: np.ndarray
    Xv: np.ndarray
    yv: np.ndarray
    S: np.ndarray
    Xs: np.ndarray
    ys_s: np.ndarray
    pool: np.ndarray
    L: int
    P: int
    n_val: int
    local: bool
    holdout: bool
    capacity: int


#: Examples per expert of ``n_experts='auto'``: the thesis's runs on Forest (Collobert, 2004,
#: Table 6.1) give 100,000 training examples to 50 SVM experts, 2,000 each.  With the expert
#: size fixed an outer iteration costs O(L) (ch. 6.1.3), so the fit grows about linearly in n.
EXPERT_SIZE = 2000

_CONSTRAINTS = {
    "expert": [None, has_methods(["fit", "decision_function"])],
    "gater": GATER_CONSTRAINT,
    "n_experts": [*POSITIVE_INT, str_options({"auto"})],
    "max_iter": POSITIVE_INT,
    "validation_fraction": [*FRACTION, None],
    "max_validation": [*POSITIVE_INT, None],
    "n_iter_no_change": [*POSITIVE_INT, None],
    "balance": ["boolean"],
    "refit_held_out": ["boolean"],
    # a value that clone, pickle and get_params handle; a live client is fit's client=
    "client": [None, str],
    "n_jobs": N_JOBS,
    "random_state": ["random_state"],
    "verbose": ["verbose"],
    "callback": CALLBACK,
}


# The parameters and fitted attributes MixtureSVC and MixtureSVR share, written once and
# substituted into both docstrings (kernelnb._docstrings.fill_doc).
_DOC = dict(
    gater_parameter="""
gater : {'global', 'local', 'uniform'} or gater object, default='global'
    Which experts to trust at each input (:mod:`kernelnb.largescale._gater`): the MLP
    gater trained on the mixture's global cost (:class:`GlobalGater`, Alg. 6.1), Bayes'
    rule on a density per expert (:class:`LocalGater`, Alg. 6.2), or ``1/K`` without
    reassignment (:class:`UniformGater`).  A name stands for that gater with its defaults;
    a gater object carries its own parameters (``gater__epochs`` for a grid search).
n_experts : int or 'auto', default='auto'
    Number K of experts; each holds at most ``L // K + 1`` training examples.  ``'auto'``:
    one expert per 2,000 examples of the experts' pool (:meth:`pool_size`; at least 2), the
    expert size of the thesis's SVM mixtures on Forest (100,000 examples, 50 experts, Table
    6.1).  The experts then keep their size as n grows and the fit's time grows about
    linearly in n (ch. 6.1.3), where with a fixed K every expert's solve grows with n as one
    SVM's does.  ``n_experts_`` is the number used.
max_iter : int, default=3
    Most outer iterations (expert training, gater training, reassignment); the thesis used
    5.  The uniform gater runs one.
""",
    layout_parameters="""
validation_fraction : float in (0, 1) or None, default=0.1
    Fraction of the training set held out (at random) to record the validation error
    after each outer iteration, used only when ``fit`` gets no ``X_val``; None uses every
    example for training (``validation_errors_`` is NaN, and the last iteration is
    returned).
max_validation : int or None, default=10000
    At most this many held-out points (every expert is evaluated on them at each
    iteration; a given ``X_val`` is used whole).
n_iter_no_change : int or None, default=2
    Stop when the validation error has not improved (strictly) for this many consecutive
    outer iterations; None runs all ``max_iter``.  Either way the iteration with the
    lowest validation error is returned (thesis Alg. 6.1).
balance : bool, default=True
    Apply the capacity ``L // K + 1`` when reassigning.  ``False`` lets every example go
    to its preferred expert -- only to show what goes wrong (the thesis: one expert then
    captures everything).
refit_held_out : bool, default=True
    After the outer iterations, give the points held out of X -- the validation set drawn
    by ``validation_fraction`` and the global gater's points of ``holdout`` -- to the
    experts of the returned iteration (each to the expert the gater prefers among those
    holding fewer than ``n // K + 1`` points; at random for the uniform gater) and refit
    every expert once on all its points, a kernelnb SVC expert starting from its solution
    on its old points: the experts then share all of X, as one SVM would.  The gater is not
    retrained (it keeps what it learnt from outputs on points the experts had not seen);
    ``validation_errors_`` are those of the iterations before the refit.  Costs one more
    round of expert training (measured in ``benchmarks/results/mixture_refit.json``).
    ``False``: the best iteration as trained, the thesis's model.
""",
    runtime_parameters="""
client : None, 'threads', 'serial' or str, default=None
    Where the expert tasks run (see :mod:`kernelnb.largescale._dask`): None starts a
    ``LocalCluster`` of ``n_jobs`` worker threads in this process for this fit and closes
    it (it works from a script without a main guard, a notebook or a Voila kernel), and
    where Dask is not installed (no ``kernelnb[dask]``) runs them as ``'threads'`` does;
    ``'threads'`` runs them on a thread pool of ``n_jobs`` threads in this process, without
    Dask (the tasks release the GIL, so the threads use that many cores); ``'serial'`` runs
    them one after the other in this thread; a scheduler address such as
    ``'tcp://10.0.0.5:8786'`` runs them on that cluster (a client is connected for the fit
    and closed after it).  Every choice gives the same model for the same seed.  A live
    ``distributed.Client`` is not a parameter: it is given to ``fit(X, y, client=...)`` for
    that fit only, so that ``clone``, ``get_params`` and pickling never copy a connection.
n_jobs : int or None, default=None
    Workers of the embedded cluster of ``client=None`` (or threads of the thread pool of
    ``'threads'``, which stands in for it without Dask): None one per core the context allows (at most ``OMP_NUM_THREADS``
    or a threadpoolctl OpenMP limit), -1 one per core, k that many.
random_state : int, RandomState instance or None, default=None
    Seeds the validation split, the initial partition, the gater's initialisation and
    mini-batches, and the order of reassignment.  The same seed gives the same model
    serially and on Dask.
verbose : bool, default=False
    Print one line per outer iteration.
callback : callable or None, default=None
    ``callback(info)`` after each outer iteration, with a dict (``iteration``,
    ``expert_sizes``, ``validation_error``, ``train_error``, ``train_cost``,
    ``parallel_time``, ``gater_time``); returning ``False`` stops after that iteration
    (the experts and gater then match).
""",
    fitted_attributes="""
n_experts_ : int
    The number of experts K of the fit (``n_experts``, or what ``'auto'`` chose).
n_iter_ : int
    Outer iterations run.
best_iteration_ : int
    The iteration (from 0) whose experts and gater are returned: the first with the
    lowest validation error.
sigma_ : float or None
    The experts' common width: the expert's ``sigma``, ``'scale'`` resolved once on the
    training set (None for an expert without a Gaussian width).
gater_samples_ : int
    Points on which the gater was trained (global gater) or the training error recorded.
expert_sizes_ : list of ndarray
    Examples per expert at each outer iteration (before its expert training).
assignment_ : ndarray of int of shape (n_samples,)
    Expert of each training example in the returned iteration (-1 for the validation
    points held out of X, -2 for the gater's held-out points); with ``refit_held_out``
    the expert every point was refitted on.
""",
    timing_attributes="""
expert_times_ : list of ndarray
    Seconds each expert task took, per iteration (measured where it ran).
parallel_time_ : float
    Wall-clock seconds in the expert-training phases (submit to gather), the refit of
    ``refit_held_out`` included.
gater_time_ : float
    Seconds spent training gaters and reassigning (the sequential part).
cpu_time_ : float
    The sum of all expert task times plus ``gater_time_``: the fit's time on one CPU.
fit_time_ : float
    Wall-clock seconds of ``fit`` (including starting the embedded cluster).
""",
)


class _MixtureSVM(BaseEstimator):
    """The hard mixture's fit (thesis Alg. 6.1/6.2) shared by :class:`MixtureSVC` and
    :class:`MixtureSVR`; a subclass gives ``_link`` (the gater's output function),
    ``_check_data`` (checked inputs and the experts' targets), ``_val_targets`` (the
    experts' targets of given validation labels), ``_default_expert`` (the expert of
    ``expert=None``) and ``_error`` (training and validation error)."""

    _link = "tanh"

    # ---------------------------------------------------------------------------------------
    def _gater(self):
        """The gater object ``gater`` stands for, its parameters checked."""
        return resolve_gater(self.gater)

    def _kind(self):
        """``'global'``, ``'local'`` or ``'uniform'``: the kind of gater ``gater`` is."""
        return self.gater if isinstance(self.gater, str) else self.gater.kind

    def _expert(self):
        """The expert estimator (``expert``, or the default one), not fitted, not copied."""
        return self._default_expert() if self.expert is None else self.expert

    def _check_params_extra(self):
        self._gater()
        expert = self._expert()
        if getattr(type(expert), "_parameter_constraints", None) is not None:
            check_params(expert)         # before the tasks: a bad C fails here, not on a worker
        params = expert.get_params(deep=False)
        kernel = params.get("kernel")
        if isinstance(kernel, str) and kernel == "precomputed":
            raise ValueError(f"an expert with kernel='precomputed' is not supported by "
                             f"{type(self).__name__} (the experts see different subsets); give "
                             "a kernel name or a callable")

    def _expert_prototype(self, Xtr):
        """The clone every expert task clones again: one thread (``n_jobs=1`` where the expert
        has it: the tasks run side by side) and one width for every expert and iteration
        (thesis ch. 6: the experts' sigma and C are the same for all experts and iterations).
        ``sigma='scale'`` is resolved here, on the whole training set: resolved by each expert
        on its own subset it would give the experts of a reassigned (regional,
        smaller-variance) partition narrower kernels than the random partition's."""
        proto = clone(self._expert())
        params = proto.get_params(deep=False)
        if "n_jobs" in params:
            proto.set_params(n_jobs=1)
        sigma = params.get("sigma")
        if isinstance(sigma, str) and sigma == "scale":
            width = KernelSpec.of(proto).resolve_sigma(Xtr, np.float32)  # the experts' precision
            if width is not None:
                proto.set_params(sigma=float(width))
        sigma = proto.get_params(deep=False).get("sigma")
        self.sigma_ = float(sigma) if isinstance(sigma, (int, float)) and not isinstance(
            sigma, bool) else None
        return proto

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None, client=None):
        """Fit the mixture (thesis Alg. 6.1; Alg. 6.2 for the local gater).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Targets: two classes (:class:`MixtureSVC`) or real values (:class:`MixtureSVR`).
        X_val : array-like of shape (n_val, n_features), optional
            Validation inputs, on which the error of every outer iteration is recorded and the
            best iteration chosen; without them ``validation_fraction`` of X is held out.
        y_val : array-like of shape (n_val,), optional
            Their targets.
        client : str, distributed.Client or ThreadPoolClient, optional
            Where this fit's expert tasks run, in place of the ``client`` parameter: a live
            client (anything with ``submit``, ``scatter`` and ``gather``) is used as it is
            and left open; it is not stored on the estimator.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit(X, y, X_val, y_val, self.client if client is None else client)

    def _fit(self, X, y, X_val, y_val, where):
        """The fit on ``where`` (the ``client`` of this fit)."""
        spec = self._gater()
        X, ys = self._check_data(X, y)
        K = self._resolve_n_experts(X.shape[0])
        self.n_experts_ = K
        val = None
        if X_val is not None or y_val is not None:
            if X_val is None or y_val is None:
                raise ValueError("X_val and y_val go together: give both or neither")
            Xv, yv = check_input(self, X_val, y_val, dtype=np.float64, order="C", reset=False,
                                 precision=np.float32, y_numeric=self._link == "identity")
            val = (Xv, self._val_targets(yv))
        rs = check_random_state(self.random_state)
        rng = np.random.default_rng(rs.randint(2**31 - 1))
        lay = self._layout(X, ys, K, rng, val)
        n_outer = 1 if spec.kind == "uniform" else int(self.max_iter)

        # Initial random partition of the pool into K subsets of size about P/K.
        assignment = np.full(lay.L, -1, dtype=np.int64)
        assignment[lay.pool[rng.permutation(lay.P)]] = np.arange(lay.P) % K
        task = (self._expert_prototype(lay.Xtr), self._link == "identity",
                (int(spec.n_components), float(spec.reg_covar)) if spec.kind == "local" else None)
        gater = Zs = None
        if spec.kind == "global" and K > 1:
            gater = GaterMLP(X.shape[1], int(spec.n_hidden), K, rng, dtype=np.float32,
                             link=self._link)
            gater.set_scaling(lay.Xtr)
            with _one_thread():
                Zs = gater.standardise(lay.Xs)  # once per fit, not once per outer iteration
        self.gater_ = gater
        self.gater_samples_ = lay.S.shape[0]
        # Seeds of the experts' tasks from their own stream, so that a fit with max_iter = t is
        # exactly the first t iterations of a longer one.
        seed_rng = np.random.default_rng(int(rng.integers(2**62)))
        patience = self.n_iter_no_change
        report = progress_caller(self.callback)

        self.expert_sizes_, self.expert_times_ = [], []
        val_errs, tr_errs, tr_costs = [], [], []
        best, best_err, since_best = None, np.inf, 0
        parallel_time = gater_time = cpu_tasks = 0.0
        with dask_client(where, n_workers=n_threads(self.n_jobs)) as client:
            # the data of the iterations, on the workers until the loop ends
            with TaskRunner(client, (lay.Xtr, lay.ytr, lay.Xs, lay.S, lay.Xv)) as runner:
                for it in range(n_outer):
                    sizes = np.bincount(assignment[lay.pool], minlength=K)
                    self.expert_sizes_.append(sizes)
                    t0 = time.perf_counter()
                    subsets = _subsets(assignment, K)
                    seeds = seed_rng.integers(0, 2**31 - 1, size=K)
                    results = runner.map(_expert_task, [(subsets[k], *task, int(seeds[k]))
                                                        for k in range(K)])
                    parallel_time += time.perf_counter() - t0
                    times = np.array([r["time"] for r in results])
                    self.expert_times_.append(times)
                    cpu_tasks += times.sum()

                    t0 = time.perf_counter()
                    self.experts_ = [r["expert"] for r in results]
                    state = self._combine(results, lay, sizes, gater, Zs, rng, spec)
                    tr_costs.append(state["train_cost"])
                    tr_errs.append(self._error(state["train_dec"], lay.ys_s))
                    val_errs.append(self._error(state["val_dec"], lay.yv) if lay.n_val else np.nan)
                    self._record_assignment(lay, assignment, X.shape[0])
                    # Alg. 6.1 keeps the iteration with the best validation error; without a
                    # validation set the last one.
                    if not lay.n_val or val_errs[-1] < best_err:
                        best_err = val_errs[-1] if lay.n_val else best_err
                        since_best = 0
                        best = self._snapshot(it)
                    else:
                        since_best += 1
                    stop = patience is not None and since_best >= patience
                    if self.verbose:
                        print(f"[{type(self).__name__}] iteration {it + 1}/{n_outer}: sizes "
                              f"{sizes.min()}-"
                              f"{sizes.max()}, train cost {tr_costs[-1]:.4f}, train error "
                              f"{tr_errs[-1]:.4f}, validation error {val_errs[-1]:.4f}, experts "
                              f"{times.sum():.1f} s (wall {parallel_time:.1f} s so far)",
                              flush=True)
                    info = dict(iteration=it, expert_sizes=sizes, validation_error=val_errs[-1],
                                train_error=tr_errs[-1], train_cost=tr_costs[-1],
                                parallel_time=parallel_time, gater_time=gater_time)
                    stop = report(info) or stop
                    if it < n_outer - 1 and not stop:
                        assignment = self._reassign(lay, K, state, rng)
                    gater_time += time.perf_counter() - t0
                    if stop:
                        break
            self._restore(best)
            if self.refit_held_out:
                t0 = time.perf_counter()
                refit_tasks = self._refit_held_out(client, X, ys, K, task, seed_rng, rng, spec)
                parallel_time += time.perf_counter() - t0
                cpu_tasks += refit_tasks
        self.n_iter_ = len(val_errs)
        self.validation_errors_ = np.array(val_errs)
        self.train_errors_ = np.array(tr_errs)
        self.train_costs_ = np.array(tr_costs)
        self.parallel_time_ = parallel_time
        self.gater_time_ = gater_time
        self.cpu_time_ = cpu_tasks + gater_time
        return self

    # -- the pieces of fit -----------------------------------------------------------------
    def _sizes(self, n, K, given_val=False):
        """``(n_val, n_holdout, pool)`` for ``n`` examples and ``K`` experts: the validation
        set held out of them (none with ``validation_fraction=None`` or ``given_val``), the
        global gater's held-out points (0 without its ``holdout``; at most a fifth of the
        training set) and the experts' pool."""
        spec = self._gater()
        n_val = 0
        if self.validation_fraction is not None and not given_val:
            n_val = int(math.floor(self.validation_fraction * n))
            if self.max_validation is not None:
                n_val = min(n_val, int(self.max_validation))
            n_val = min(n_val, n - K)
        L = n - n_val
        n_s = 0
        if spec.kind == "global" and bool(spec.holdout) and K > 1:
            n_s = L // 5 if spec.n_samples is None else min(int(spec.n_samples), L // 5)
            n_s = max(n_s, 1)
        return n_val, n_s, L - n_s

    def _resolve_n_experts(self, n):
        """K for ``n`` examples: ``n_experts``, or with ``'auto'`` one expert per
        :data:`EXPERT_SIZE` examples of the experts' pool (at least 2, at most n)."""
        if self.n_experts == "auto":
            pool = self._sizes(n, 2)[2]
            return int(min(n, max(2, round(pool / EXPERT_SIZE))))
        K = int(self.n_experts)
        if K > n:
            raise ValueError(f"n_experts={K} is larger than the number of training examples "
                             f"({n})")
        return K

    def n_experts_for(self, n_samples):
        """The number of experts a fit on ``n_samples`` examples uses (``n_experts_`` after
        the fit): ``n_experts``, or with ``'auto'`` one per 2,000 points of
        :meth:`pool_size` (at least 2).

        Examples
        --------
        >>> MixtureSVC().n_experts_for(60_000)
        22
        """
        check_params(self)
        n = check_param("n_samples", n_samples, POSITIVE_INT,
                        f"{type(self).__name__}.n_experts_for")
        return self._resolve_n_experts(int(n))

    def pool_size(self, n_samples):
        """How many of ``n_samples`` training examples the experts share: all but the validation
        set and, with the global gater's ``holdout``, the gater's held-out points.  The thesis's cost analysis
        (6.1.3) fixes the expert size M; for experts of about M examples choose
        ``n_experts = round(pool_size(n) / M)``, as ``n_experts='auto'`` does with M = 2,000
        (``n_experts`` counts here only through ``n_experts > 1``: one expert has no gater to
        hold points out for).

        Examples
        --------
        >>> MixtureSVC(n_experts=10).pool_size(100_000)
        72000
        """
        check_params(self)            # not a fit: the wrapper of fit has not checked them
        n = check_param("n_samples", n_samples, POSITIVE_INT,
                        f"{type(self).__name__}.pool_size")
        K = 2 if self.n_experts == "auto" else int(self.n_experts)
        return self._sizes(int(n), K)[2]

    def _layout(self, X, ys, K, rng, val=None):
        """Where each point serves: the validation set, the gater's points S, the experts' pool.

        Validation: the given ``val = (Xv, yv)``, or a fraction of the data, at most
        ``max_validation`` points (the thesis: 10,000 on Forest) -- every expert is evaluated
        on it at every iteration.  S: for the
        global and uniform gaters a random subsample of at most the gater's ``n_samples``
        training points, the same for the whole fit (the experts are evaluated there, not on
        all L points), held out from the experts with the global gater's ``holdout``; the
        local gater's
        reassignment needs every expert's output on every training point, so S is the whole
        training set there.  The pool: every training point, or all but S."""
        n = X.shape[0]
        n_val, n_s, _ = self._sizes(n, K, given_val=val is not None)
        if val is None:
            perm = rng.permutation(n)
            val_idx, tr_idx = np.sort(perm[:n_val]), np.sort(perm[n_val:])
            Xv, yv = X[val_idx], ys[val_idx]
        else:
            val_idx, tr_idx = np.empty(0, dtype=np.int64), np.arange(n)
            (Xv, yv), n_val = val, val[0].shape[0]
        Xtr, ytr = X[tr_idx], ys[tr_idx]
        L = Xtr.shape[0]
        spec = self._gater()
        local = spec.kind == "local"
        holdout = n_s > 0
        if holdout:
            S = np.sort(rng.choice(L, size=n_s, replace=False))
            in_s = np.zeros(L, dtype=bool)
            in_s[S] = True
            pool = np.flatnonzero(~in_s)
        else:
            if local or spec.n_samples is None or spec.n_samples >= L:
                S = np.arange(L)
            else:
                S = np.sort(rng.choice(L, size=int(spec.n_samples), replace=False))
            pool = np.arange(L)
        P = pool.shape[0]
        return _Layout(tr_idx=tr_idx, val_idx=val_idx, Xtr=Xtr, ytr=ytr, Xv=Xv,
                       yv=yv, S=S, Xs=Xtr[S], ys_s=ytr[S], pool=pool, L=L, P=P,
                       n_val=n_val, local=local, holdout=holdout,
                       capacity=P // K + 1 if self.balance else P)

    def _set_local_gater(self, results, sizes, n):
        """The local gater from its experts' results (Alg. 6.2): each expert's Platt scaling,
        its density P(x|k) and its prior P(k) = its share of the ``n`` points."""
        self.platt_ = np.array([r["platt"] for r in results])
        self.densities_ = [r["gmm"] for r in results]
        with np.errstate(divide="ignore"):
            self.log_prior_ = np.log(sizes / n)

    def _combine(self, results, lay, sizes, gater, Zs, rng, spec):
        """After the experts of an iteration: train the gater (global) or set up the local
        posterior, and the mixture's decision on the gater's points and the validation set."""
        F = np.column_stack([r["dec"] for r in results])          # on S
        Fv = np.column_stack([r["dec_val"] for r in results]) if lay.n_val else None
        out = dict(F=F, val_dec=None)
        if lay.local:
            self._set_local_gater(results, sizes, lay.L)
            out["logpx"] = logpx = np.column_stack([r["logpx"] for r in results])
            if self._link == "identity":
                # regression: E[y|x] = sum_k P(k|x) f_k(x)
                post = self._local_posterior(logpx)
                out["train_dec"] = np.sum(post * F, axis=1)
                out["train_cost"] = float(0.5 * np.mean((lay.ys_s - out["train_dec"]) ** 2))
                if lay.n_val:
                    lv = np.column_stack([r["logpx_val"] for r in results])
                    out["val_dec"] = np.sum(self._local_posterior(lv) * Fv, axis=1)
                return out
            p_pos = self._local_p_pos(self._local_posterior(logpx), F)
            pr = np.where(lay.ys_s > 0, p_pos, 1 - p_pos)
            out["train_cost"] = float(-np.mean(np.log(np.clip(pr, 1e-300, None))))
            out["train_dec"] = p_pos - 0.5
            if lay.n_val:
                lv = np.column_stack([r["logpx_val"] for r in results])
                out["val_dec"] = self._local_p_pos(self._local_posterior(lv), Fv) - 0.5
            return out
        if gater is not None:
            # Small matrix products: one BLAS thread (spinning threads on shared cores made
            # them 8x slower).
            with _one_thread():
                gater.fit(lay.Xs, lay.ys_s, F, int(spec.epochs), float(spec.learning_rate),
                          int(spec.batch_size), rng, Z=Zs)
                G = gater.gate(lay.Xs, Z=Zs).astype(np.float64)
        else:
            G = np.full((lay.S.shape[0], F.shape[1]), 1.0 / F.shape[1])
        out.update(G=G, train_cost=GaterMLP.cost(G, F, lay.ys_s, self._link),
                   train_dec=np.sum(G * F, axis=1))
        if lay.n_val:
            out["val_dec"] = np.sum(self._gate(lay.Xv) * Fv, axis=1)
        return out

    def _record_assignment(self, lay, assignment, n):
        """``assignment_`` over the n points of X: -1 validation, -2 the gater's held-out
        points."""
        self.assignment_ = np.full(n, -1, dtype=np.int64)
        self.assignment_[lay.tr_idx] = assignment
        if lay.holdout:
            self.assignment_[lay.tr_idx[lay.S]] = -2

    def _reassign(self, lay, K, state, rng):
        """Every pool point to its preferred expert that is not full (thesis Alg. 6.1 step 2.3):
        preferred by the gater (global), by ``log P(y|x,k) + log P(x|k) + log P(k)`` (local)."""
        order = rng.permutation(lay.P)
        if lay.local and self._link == "identity":
            s2 = self.platt_[:, 0][None, :]
            logpy = -0.5 * (lay.ytr[:, None] - state["F"]) ** 2 / s2 - 0.5 * np.log(2 * np.pi * s2)
            scores = logpy + state["logpx"] + self.log_prior_[None, :]
            return balanced_assignment(scores, lay.capacity, order)
        if lay.local:
            z = self._platt_z(state["F"])
            logpy = np.where(lay.ytr[:, None] > 0, log_expit(z), log_expit(-z))
            scores = logpy + state["logpx"] + self.log_prior_[None, :]
            return balanced_assignment(scores, lay.capacity, order)
        if lay.holdout:
            prefs, row_scores, block_scores = self._preferences(lay.Xtr[lay.pool], lay.S[:0],
                                                                state["G"])
        else:
            prefs, row_scores, block_scores = self._preferences(lay.Xtr, lay.S, state["G"])
        assignment = np.full(lay.L, -1, dtype=np.int64)
        assignment[lay.pool] = _assign_from_preferences(prefs, row_scores, lay.P, K,
                                                        lay.capacity, order, block_scores)
        return assignment

    def _refit_held_out(self, client, X, ys, K, task, seed_rng, rng, spec):
        """``refit_held_out``: after the outer iterations, give the points held out of X (the
        validation set and the gater's points) to the experts of the returned iteration and
        refit every expert once on all its points.  Returns the seconds of the expert tasks.

        The held-out points go, in a random order, to the expert the returned gater prefers
        (``g_k(x)``; the local gater's ``P(k|x)``: their labels are not used) among those not
        full, with the capacity ``n // K + 1`` over the n points of X and the experts' pool
        points kept where they are; for the uniform gater at random, under the same capacity.
        The gater is not retrained: it was trained on the experts' outputs on points they had
        not seen, and stays so.  The local gater's ``P(x|k)``, Platt scaling and ``P(k)`` are
        refitted with its experts (Alg. 6.2 fits them on each expert's own points)."""
        assignment = self.assignment_.copy()
        held = np.flatnonzero(assignment < 0)
        if held.shape[0] == 0:
            return 0.0
        n = X.shape[0]
        m = held.shape[0]
        if spec.kind == "uniform":
            scores = rng.random((m, K))
        else:
            scores = self._gate(X[held])
        counts = np.bincount(assignment[assignment >= 0], minlength=K)
        capacity = n // K + 1 if self.balance else n
        assignment[held] = _assign_from_preferences(
            _top_preferences(scores), lambda l: scores[l], m, K, capacity, rng.permutation(m),
            lambda rows: scores[rows], counts=counts)
        local = spec.kind == "local"
        S = np.arange(n) if local else np.empty(0, dtype=np.int64)
        subsets = _subsets(assignment, K)
        seeds = seed_rng.integers(0, 2**31 - 1, size=K)
        inits = [_warm_start(self.experts_[k], np.flatnonzero(self.assignment_ == k), subsets[k])
                 for k in range(K)]
        with TaskRunner(client, (X, ys, X if local else X[:0], S, X[:0])) as runner:
            results = runner.map(_expert_task, [(subsets[k], *task, int(seeds[k]), inits[k])
                                  for k in range(K)])
        self.experts_ = [r["expert"] for r in results]
        if local:
            self._set_local_gater(results, np.bincount(assignment, minlength=K), n)
        self.assignment_ = assignment
        if self.verbose:
            print(f"[{type(self).__name__}] refit on the {m} held-out points too: sizes "
                  f"{min(map(len, subsets))}-{max(map(len, subsets))}", flush=True)
        return float(sum(r["time"] for r in results))

    def _snapshot(self, it):
        """What the model of iteration ``it`` consists of (the gater's weights copied: it is
        trained further, in place, by the next iterations)."""
        state = dict(best_iteration_=it, experts_=self.experts_, assignment_=self.assignment_)
        if self.gater_ is not None:
            state["_gater_weights"] = [p.copy() for p in (self.gater_.W1, self.gater_.b1,
                                                          self.gater_.W2, self.gater_.b2)]
        for name in ("platt_", "densities_", "log_prior_"):
            if hasattr(self, name):
                state[name] = getattr(self, name)
        return state

    def _restore(self, state):
        weights = state.pop("_gater_weights", None)
        if weights is not None:
            g = self.gater_
            g.W1, g.b1, g.W2, g.b2 = weights
        for name, value in state.items():
            setattr(self, name, value)

    def _preferences(self, Xtr, S, G_s):
        """Each training point's preferred experts by the gater (best first), computed in
        blocks without holding the (L, K) weights, and two functions giving the full scores of
        one point and of several (for :func:`_assign_from_preferences`).  The scores are the
        gater's logits (the same ranking as its weights).  The cost is one gater pass over the
        L points."""
        K = len(self.experts_)
        gater = self.gater_
        if gater is None:  # one expert
            return (np.zeros((Xtr.shape[0], 1), dtype=np.int64), lambda l: np.ones(K),
                    lambda rows: np.ones((len(rows), K)))
        if S.shape[0] == Xtr.shape[0]:
            return _top_preferences(G_s), lambda l: G_s[l], lambda rows: G_s[rows]
        L = Xtr.shape[0]
        prefs = np.empty((L, min(K, _TOP)), dtype=np.int64)
        step = max(1024, int(2**22 // K))
        with _one_thread():
            for s in range(0, L, step):
                prefs[s:s + step] = _top_preferences(gater.logits(Xtr[s:s + step]))

        def row_scores(l):  # one row: no thread pool to limit (entering a limit costs more than one row)
            return gater.logits(Xtr[l:l + 1])[0]

        def block_scores(rows):
            with _one_thread():
                return gater.logits(Xtr[rows])

        return prefs, row_scores, block_scores

    # ---------------------------------------------------------------------------------------
    def _platt_z(self, F):
        return self.platt_[:, 0][None, :] * F + self.platt_[:, 1][None, :]

    def _local_posterior(self, logpx):
        lj = logpx + self.log_prior_[None, :]
        lse = logsumexp(lj, axis=1, keepdims=True)
        return np.exp(lj - lse)

    def _local_p_pos(self, post, F):
        return np.sum(post * expit(self._platt_z(F)), axis=1)

    def expert_decisions(self, X):
        """Outputs ``f_k(x)`` of every expert (SVC decision values, SVR predictions on the
        standardised target scale), shape (n_samples, n_experts)."""
        check_is_fitted(self)
        X = check_input(self, X, dtype=np.float64, order="C", reset=False, precision=np.float32)
        return self._expert_decisions(X)

    def _expert_decisions(self, X):
        # Each expert's own float64 decision function: the float32 path of the fit
        # (:func:`_expert_decision`) rounds a point's value differently depending on its row in
        # the block (about 1e-7 relative), and a prediction must not depend on its neighbours.
        regression = self._link == "identity"
        return np.column_stack([_raw_output(e, X, regression) for e in self.experts_])

    def gate(self, X):
        """Weights of the experts at each point, shape (n_samples, n_experts): the global gater's
        softmax ``g_k(x)``, the local gater's posterior ``P(k|x)``, or ``1/K``."""
        check_is_fitted(self)
        X = check_input(self, X, dtype=np.float64, order="C", reset=False, precision=np.float32)
        return self._gate(X)

    def _gate(self, X):
        K = len(self.experts_)
        if self._kind() == "local":
            logpx = np.column_stack([
                d.score_samples(X) if d is not None else np.full(X.shape[0], -np.inf)
                for d in self.densities_])
            return self._local_posterior(logpx)
        if self.gater_ is not None:
            with _one_thread():
                return self.gater_.gate(X).astype(np.float64)
        return np.full((X.shape[0], K), 1.0 / K)

    def _mixed(self, X):
        """``sum_k g_k(x) f_k(x)`` on checked inputs (global and uniform gaters)."""
        return np.sum(self._gate(X) * self._expert_decisions(X), axis=1)


@fill_doc(**_DOC)
class MixtureSVC(ClassifierMixin, _MixtureSVM):
    """Hard mixture of SVM experts, trained in parallel on Dask, for classification.

    The training set is split between K SVM experts trained independently (one Dask task per
    expert), a global, local or uniform gater learns which experts to trust at each input, and
    the examples are reassigned to the experts the gater prefers under a capacity rule, for a
    few outer iterations (Collobert's thesis, ch. 6, Alg. 6.1 and 6.2; see
    :mod:`kernelnb.largescale.mixture`).  The iteration with the lowest validation error is
    kept, and by default (``refit_held_out``) its experts are then refitted once on their
    points and on the validation and gater's points, which the iterations held out of their
    training: one more round of expert training, for the accuracy of experts that share all
    of X.

    More than two classes are learnt one-vs-rest, as the thesis's two-class mixture allows:
    one two-class mixture per class (that class against the others, with the same parameters
    and seed), in ``estimators_``; ``decision_function`` stacks their decision values and
    ``predict`` takes the largest.  The cost is that of ``n_classes`` two-class mixtures.  The
    attributes below describe a two-class fit: with more classes each of ``estimators_`` has
    them, and ``gate`` and ``expert_decisions`` are read from those.

    Parameters
    ----------
    expert : classifier or None, default=None
        The estimator each expert is a clone of (as a scikit-learn meta-estimator's
        ``estimator``): None is :class:`kernelnb.svm.SVC` with its defaults, or e.g.
        ``SVC(C=10, sigma=0.5)``.  The experts learn two classes coded -1/+1 and are read by
        their ``decision_function``.  Every expert has the same parameters at every
        iteration, as in the thesis; ``sigma='scale'`` is resolved once on the whole training
        set (``sigma_``), and ``n_jobs`` is set to 1 (the experts train side by side).
        ``kernel='precomputed'`` is refused (the experts see different subsets).  A grid
        search reaches its parameters as ``expert__C``.
    %(gater_parameter)s
    %(layout_parameters)s
    %(runtime_parameters)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    estimators_ : list of MixtureSVC or None
        More than two classes: the two-class mixture of each class against the rest (its
        ``classes_[1]`` is True: the class); None for two classes.
    experts_ : list
        The fitted experts, clones of ``expert`` (constant experts for single-class subsets).
    platt_ : ndarray of shape (n_experts, 2)
        Local gater: Platt's ``a_k, b_k`` of each expert.
    densities_ : list of GaussianMixture
        Local gater: ``P(x|k)``.
    log_prior_ : ndarray of shape (n_experts,)
        Local gater: ``log P(k)``.
    gater_ : GaterMLP or None
        The global gater's trained network (None for the other gaters and for one expert).
    %(fitted_attributes)s
    validation_errors_ : ndarray of shape (n_iterations,)
        Classification error on the validation set per outer iteration.
    train_errors_ : ndarray of shape (n_iterations,)
        Classification error on the gater's points per outer iteration.
    train_costs_ : ndarray of shape (n_iterations,)
        The global criterion ``mean 1/2 (y - tanh(f(x)))^2`` on the gater's points (global
        and uniform gaters), the negative log-likelihood ``-mean log P(y|x)`` (local gater).
    %(timing_attributes)s

    References
    ----------
    R. Collobert, S. Bengio and Y. Bengio, "A parallel mixture of SVMs for very large scale
    problems", Neural Computation 14(5), 2002; R. Collobert, "Large Scale Machine Learning",
    PhD thesis, Universite Paris VI, 2004, ch. 6 (Alg. 6.1, 6.2; Tables 6.1-6.3).

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.largescale import GlobalGater, MixtureSVC
    >>> from kernelnb.svm import SVC
    >>> X, y = make_moons(n_samples=400, noise=0.2, random_state=0)
    >>> clf = MixtureSVC(SVC(C=10.0, sigma=0.5), gater=GlobalGater(epochs=2), n_experts=2,
    ...                  max_iter=2, client="serial", random_state=0).fit(X[:300], y[:300])
    >>> clf.gate(X[300:302]).shape
    (2, 2)
    >>> print(clf.score(X[300:], y[300:]) > 0.9)
    True
    """

    _parameter_constraints = _CONSTRAINTS

    def __init__(self, expert=None, *, gater="global", n_experts="auto", max_iter=3,
                 validation_fraction=0.1, max_validation=10000, n_iter_no_change=2, balance=True,
                 refit_held_out=True, client=None, n_jobs=None, random_state=None, verbose=False,
                 callback=None):
        self.expert = expert
        self.gater = gater
        self.n_experts = n_experts
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.max_validation = max_validation
        self.n_iter_no_change = n_iter_no_change
        self.balance = balance
        self.refit_held_out = refit_held_out
        self.client = client
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None, client=None):
        """Fit the mixture (thesis Alg. 6.1; Alg. 6.2 for the local gater); one-vs-rest for
        more than two classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Class labels.
        X_val : array-like of shape (n_val, n_features), optional
            Validation inputs, on which the error of every outer iteration is recorded and the
            best iteration chosen; without them ``validation_fraction`` of X is held out.
        y_val : array-like of shape (n_val,), optional
            Their labels.
        client : str, distributed.Client or ThreadPoolClient, optional
            Where this fit's expert tasks run, in place of the ``client`` parameter: a live
            client (anything with ``submit``, ``scatter`` and ``gather``) is used as it is
            and left open; it is not stored on the estimator.

        Returns
        -------
        self : MixtureSVC
            The fitted classifier.
        """
        where = self.client if client is None else client
        Xc, yc = check_input(self, X, y, dtype=np.float64, order="C", precision=np.float32)
        check_classification_targets(yc)
        classes = np.unique(yc)
        self.estimators_ = None
        if classes.shape[0] <= 2:
            return self._fit(Xc, yc, X_val, y_val, where)
        if X_val is not None and y_val is not None:
            unknown = ~np.isin(np.asarray(y_val), classes)
            if unknown.any():
                raise ValueError(f"y_val has labels that are not in y: "
                                 f"{np.unique(np.asarray(y_val)[unknown])[:5].tolist()}")
        self.classes_ = classes
        seed = self.random_state
        if seed is None or isinstance(seed, np.random.RandomState):
            seed = int(check_random_state(seed).randint(2**31 - 1))
        self.estimators_ = []
        with dask_client(where, n_workers=n_threads(self.n_jobs)) as resolved:
            for c in classes:
                est = clone(self).set_params(random_state=seed)
                yv = None if y_val is None else np.asarray(y_val) == c
                est.fit(Xc, yc == c, X_val=X_val, y_val=yv,
                        client="serial" if resolved is None else resolved)
                self.estimators_.append(est)
        self.n_iter_ = np.array([e.n_iter_ for e in self.estimators_])
        self.n_experts_ = self.estimators_[0].n_experts_
        return self

    def _one_vs_rest(self):
        return getattr(self, "estimators_", None) is not None

    def gate(self, X):
        """Weights of the experts at each point, shape (n_samples, n_experts): the global gater's
        softmax ``g_k(x)``, the local gater's posterior ``P(k|x)``, or ``1/K``.  Two classes only
        (with more, each of ``estimators_`` has its own gater)."""
        self._two_classes("gate")
        return super().gate(X)

    def expert_decisions(self, X):
        """Outputs ``f_k(x)`` of every expert, shape (n_samples, n_experts).  Two classes only
        (with more, each of ``estimators_`` has its own experts)."""
        self._two_classes("expert_decisions")
        return super().expert_decisions(X)

    def _two_classes(self, what):
        check_is_fitted(self)
        if self._one_vs_rest():
            raise ValueError(f"{what} is per two-class mixture: this fit has {len(self.classes_)} "
                             f"classes, one mixture per class in estimators_ (use "
                             f"estimators_[j].{what})")

    # -- what makes it a classifier ---------------------------------------------------------
    @staticmethod
    def _default_expert():
        return SVC()

    @staticmethod
    def _error(dec, y):
        """Classification error of the decisions ``dec`` (> 0: +1) against +-1 targets."""
        return float(np.mean((dec > 0) != (y > 0)))

    def _check_data(self, X, y):
        """Checked inputs and the targets as -1/+1 (``classes_`` set)."""
        X, y = check_input(self, X, y, dtype=np.float64, order="C", precision=np.float32)
        check_classification_targets(y)
        classes, y_idx = np.unique(y, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(f"MixtureSVC needs y with 2 classes, got 1 class ({classes[0]!r})")
        self.classes_ = classes
        return X, np.where(y_idx == 1, 1.0, -1.0)

    def _val_targets(self, y_val):
        """Given validation labels as -1/+1 (every label one of ``classes_``)."""
        unknown = ~np.isin(y_val, self.classes_)
        if unknown.any():
            raise ValueError(f"y_val has labels that are not in y: "
                             f"{np.unique(y_val[unknown])[:5].tolist()}")
        return np.where(y_val == self.classes_[1], 1.0, -1.0)

    def decision_function(self, X):
        """``sum_k g_k(x) f_k(x)`` (global, uniform), or the log-odds of ``P(y=+1|x)`` (local);
        positive means ``classes_[1]``.  More than two classes: one column per class, the
        decision value of its mixture against the rest."""
        check_is_fitted(self)
        if self._one_vs_rest():
            return np.column_stack([e.decision_function(X) for e in self.estimators_])
        X = check_input(self, X, dtype=np.float64, order="C", reset=False, precision=np.float32)
        F = self._expert_decisions(X)
        G = self._gate(X)
        if self._kind() == "local":
            p = np.clip(self._local_p_pos(G, F), 1e-300, 1 - 1e-16)
            return np.log(p) - np.log1p(-p)
        return np.sum(G * F, axis=1)

    def predict_proba(self, X):
        """Local gater: ``[P(y=classes_[0]|x), P(y=classes_[1]|x)]``; global and uniform:
        ``(1 + tanh(f(x))) / 2`` (the mixture's output read as a probability, uncalibrated).
        More than two classes: each class's probability against the rest, normalised to sum
        to one over the classes."""
        d = self.decision_function(X)
        p = expit(d) if self._kind() == "local" else 0.5 * (1 + np.tanh(d))
        if self._one_vs_rest():
            # each class's probability against the rest, normalised over the classes
            return p / np.maximum(p.sum(axis=1, keepdims=True), 1e-300)
        return np.column_stack([1 - p, p])

    def predict(self, X):
        """Predict the classes of ``X``: the sign of the decision value, or (more than two
        classes) the class of the largest one."""
        d = self.decision_function(X)
        if self._one_vs_rest():
            return self.classes_[np.argmax(d, axis=1)]
        return self.classes_[(d > 0).astype(int)]


_SVR_CONSTRAINTS = dict(_CONSTRAINTS)
_SVR_CONSTRAINTS.update(expert=[None, has_methods(["fit", "predict"])])


@fill_doc(**_DOC)
class MixtureSVR(RegressorMixin, _MixtureSVM):
    """Hard mixture of epsilon-SVR experts, trained in parallel on Dask, for regression.

    ``E[y|x] = sum_k P(k|x) E[y|x,k]`` (Collobert's thesis ch. 6, the regression form of Alg.
    6.1), trained as :class:`MixtureSVC` is: experts on their subsets in parallel, the global
    gater on their outputs (squared error of the mixed output, no tanh), reassignment with the
    balance rule, the best iteration kept and, by default (``refit_held_out``), its experts
    refitted once on their points and the held-out ones.  The targets are standardised inside
    the estimator.

    Parameters
    ----------
    expert : regressor or None, default=None
        The estimator each expert is a clone of (as a scikit-learn meta-estimator's
        ``estimator``): None is :class:`kernelnb.svm.SVR` with its defaults, or e.g.
        ``SVR(C=10, epsilon=0.05)``.  The experts learn the standardised targets (the targets
        are standardised inside the estimator), so an SVR's ``C`` and ``epsilon`` are in
        units of the targets' standard deviation; they are read by their ``predict``.  Every
        expert has the same parameters at every iteration, as in the thesis;
        ``sigma='scale'`` is resolved once on the whole training set (``sigma_``), and
        ``n_jobs`` is set to 1.  ``kernel='precomputed'`` is refused.
    %(gater_parameter)s
    %(layout_parameters)s
    %(runtime_parameters)s

    Attributes
    ----------
    y_mean_, y_scale_ : float
        Target standardisation.
    experts_ : list
        The fitted experts, clones of ``expert`` (constant experts for subsets of fewer than
        two points).
    gater_ : GaterMLP or None
        The global gater's trained network (None for the other gaters and for one expert).
    platt_ : ndarray of shape (n_experts, 2)
        Local gater: ``[s_k^2, 0]``, the noise variance of each expert's ``P(y|x,k)`` on the
        standardised targets (floored at 1e-4).
    densities_ : list of GaussianMixture
        Local gater: ``P(x|k)``.
    log_prior_ : ndarray of shape (n_experts,)
        Local gater: ``log P(k)``.
    %(fitted_attributes)s
    validation_errors_ : ndarray of shape (n_iterations,)
        Mean squared error (in the targets' units) on the validation set per outer iteration.
    train_errors_ : ndarray of shape (n_iterations,)
        Mean squared error (in the targets' units) on the gater's points per outer iteration.
    train_costs_ : ndarray of shape (n_iterations,)
        The gater's criterion ``mean 1/2 (y - sum_k g_k f_k)^2`` on the standardised targets.
    %(timing_attributes)s

    References
    ----------
    R. Collobert, S. Bengio and Y. Bengio, "A parallel mixture of SVMs for very large scale
    problems", Neural Computation 14(5), 2002; R. Collobert, "Large Scale Machine Learning",
    PhD thesis, Universite Paris VI, 2004, ch. 6.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.largescale import GlobalGater, MixtureSVR
    >>> from kernelnb.svm import SVR
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-3, 3, size=(300, 1))
    >>> y = np.sin(X[:, 0]) + 0.1 * rng.randn(300)
    >>> reg = MixtureSVR(SVR(C=10.0), gater=GlobalGater(epochs=2), n_experts=2, max_iter=2,
    ...                  client="serial", random_state=0).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    >>> print(reg.score(X, y) > 0.8)
    True
    """

    _parameter_constraints = _SVR_CONSTRAINTS
    _link = "identity"

    def __init__(self, expert=None, *, gater="global", n_experts="auto", max_iter=3,
                 validation_fraction=0.1, max_validation=10000, n_iter_no_change=2, balance=True,
                 refit_held_out=True, client=None, n_jobs=None, random_state=None, verbose=False,
                 callback=None):
        self.expert = expert
        self.gater = gater
        self.n_experts = n_experts
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.max_validation = max_validation
        self.n_iter_no_change = n_iter_no_change
        self.balance = balance
        self.refit_held_out = refit_held_out
        self.client = client
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.callback = callback

    @staticmethod
    def _default_expert():
        return SVR()

    def _error(self, dec, y):
        """Mean squared error, in the targets' units, of standardised predictions."""
        return float(np.mean((dec - y) ** 2) * self.y_scale_ ** 2)

    def _check_data(self, X, y):
        """Checked inputs and the standardised targets (``y_mean_``, ``y_scale_`` set)."""
        X, y = check_input(self, X, y, dtype=np.float64, order="C", precision=np.float32,
                           y_numeric=True)
        if X.shape[0] < 2:
            raise ValueError("MixtureSVR needs at least 2 samples, got one sample")
        y = np.asarray(y, dtype=np.float64)
        self.y_mean_ = float(np.mean(y))
        sd = float(np.std(y))
        self.y_scale_ = sd if sd > 0 else 1.0
        return X, (y - self.y_mean_) / self.y_scale_

    def _val_targets(self, y_val):
        """Given validation targets, standardised as the training targets."""
        return (np.asarray(y_val, dtype=np.float64) - self.y_mean_) / self.y_scale_

    def predict(self, X):
        """``sum_k g_k(x) f_k(x)`` in the targets' units."""
        check_is_fitted(self)
        X = check_input(self, X, dtype=np.float64, order="C", reset=False, precision=np.float32)
        return self._mixed(X) * self.y_scale_ + self.y_mean_
