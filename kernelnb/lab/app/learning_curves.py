"""Learning curves: training and test error against the training-set size, for chosen estimators
on a chosen data set, mean and spread over repeated random splits, with the number of support
vectors on a second axis.

Estimators come from a registry (:data:`ESTIMATORS`, :func:`register_estimator`), so a later
issue adds its method with one call; data sets are the 2-D toys, the bundled UCI classification
sets and, when its files are present, a Fashion-MNIST subset (T-shirt vs shirt).
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import hashlib
import html
import importlib
import time
from typing import Callable, Optional

import numpy as np
import ipywidgets as widgets
from sklearn.base import ClassifierMixin
from ..._estimator import BaseEstimator
from ..viz._figure_widget import FigureWidget
from ... import kernels as _k
from ..._callbacks import run_to_end
from ...datasets import (TOY_DATASETS, TOY_NOISE, UCI_DATASETS, fashion_mnist_paths,
                        load_fashion_mnist)
from ...datasets._stratify import stratified_subset
from ...neighbors import KNeighborsClassifier
from ...regularized import RegularizedKernelClassifier
from ...svm import SVC
from ..i18n import N_, _
from ..viz import fit_time_figure, learning_curve_figure, time_exponent
from ..viz.curves import fit_time_traces, learning_curve_traces
from ._base import Dashboard, Lesson, TimeBudgetExceeded, log_slider, num, styled
from ._scheduler import throttled
from ._toys import TOY_DESCRIPTIONS, UCI_DESCRIPTIONS, toy_name

__all__ = ["LearningCurves", "CurveEstimator", "ESTIMATORS", "register_estimator",
           "learning_curve_data", "learning_curve_steps", "DATASETS", "training_sizes"]


@dataclasses.dataclass(frozen=True)
class CurveEstimator:
    """An estimator of the learning-curves dashboard (an entry of :data:`ESTIMATORS`).

    Parameters
    ----------
    name : str
        Registry key.
    label : str
        Legend and control text (short: the control shows about 26 characters), a msgid marked
        with ``N_`` (shown translated).
    make : callable
        ``make(params) -> estimator``: builds an unfitted scikit-learn estimator from the
        dashboard's parameters (a dict with ``C``, ``sigma``, ``n_neighbors``); features
        arrive standardised.
    n_support : callable, optional
        ``n_support(fitted) -> int``: the number of support vectors (or expansion points) of a
        fitted estimator; None when the notion does not apply.
    description : str, default=""
        One sentence on the method, for the reader of the registry.
    """

    name: str
    label: str
    make: Callable[[dict], object]
    n_support: Optional[Callable[[object], int]] = None
    description: str = ""


#: Registry of the estimators the dashboard offers, in display order.
ESTIMATORS: dict[str, CurveEstimator] = {}


def register_estimator(spec: CurveEstimator, replace=False):
    """Add an estimator to the dashboard's registry :data:`ESTIMATORS`.

    Parameters
    ----------
    spec : CurveEstimator
        The estimator, registered under ``spec.name``.
    replace : bool, default=False
        Overwrite an entry of the same name; without it such an entry is a ValueError.

    Returns
    -------
    CurveEstimator
        ``spec`` itself.
    """
    if not isinstance(spec, CurveEstimator):
        raise TypeError(f"spec must be a CurveEstimator, got {spec!r}")
    if spec.name in ESTIMATORS and not replace:
        raise ValueError(f"an estimator named {spec.name!r} is already registered")
    ESTIMATORS[spec.name] = spec
    return spec


register_estimator(CurveEstimator(
    "svc", N_("SVM (RBF)"),
    lambda p: SVC(C=p["C"], kernel="rbf", sigma=p["sigma"]),
    lambda m: int(m.support_.size),
    "C-SVC with the RBF kernel, decomposition solver of kernelnb.svm"))
register_estimator(CurveEstimator(
    "knn", N_("K nearest neighbours"),
    lambda p: KNeighborsClassifier(n_neighbors=p["n_neighbors"]),
    None, "kernelnb's KNN with Euclidean distance (baseline)"))
register_estimator(CurveEstimator(
    "klr", N_("kernel logistic regression"),
    lambda p: RegularizedKernelClassifier(loss="logistic", C=p["C"], sigma=p["sigma"]),
    None, "logistic loss + RKHS penalty, kernelnb.regularized (every point is an expansion point)"))

def _largescale(name):
    """A class of :mod:`kernelnb.largescale`, imported when an estimator is first built (the
    package brings Dask and the MLPs: a kernel that never draws them does not load them)."""
    return getattr(importlib.import_module("kernelnb.largescale"), name)


register_estimator(CurveEstimator(
    "mixture", N_("mixture of 4 SVMs"),
    lambda p: _largescale("MixtureSVC")(SVC(C=p["C"], sigma=p["sigma"]), gater="global",
                                        n_experts=4, max_iter=2, client="serial",
                                        random_state=0),
    lambda m: int(sum(getattr(e, "support_", np.empty(0)).size for e in m.experts_)),
    "Collobert's hard mixture (thesis Alg. 6.1): 4 SVM experts on parts of the data, an MLP "
    "gater, reassignment with the balance rule (kernelnb.largescale); #SV summed over experts"))
register_estimator(CurveEstimator(
    "mlp", N_("MLP (20 tanh units)"),
    lambda p: _largescale("MLPClassifier")(n_hidden=20, max_iter=100, random_state=0),
    None, "one hidden tanh layer, cross-entropy, stochastic gradient (kernelnb.largescale)"))
register_estimator(CurveEstimator(
    "mlp_tanh_mse", N_("MLP, tanh out + MSE"),
    lambda p: _largescale("MLPClassifier")(n_hidden=20, loss="tanh_squared", max_iter=100,
                                           random_state=0),
    None, "Collobert's MLP+Tanh+MSE (thesis Table 7.1): squared error on tanh of the output"))
register_estimator(CurveEstimator(
    "mlp_mse", N_("MLP, linear out + MSE"),
    lambda p: _largescale("MLPClassifier")(n_hidden=20, loss="squared", max_iter=100,
                                           random_state=0),
    None, "Collobert's MLP+MSE (thesis Table 7.1): squared error on the linear output"))
register_estimator(CurveEstimator(
    "moe", N_("soft mixture of 4 MLPs"),
    lambda p: _largescale("MixtureOfExpertsClassifier")(n_experts=4, n_hidden=10,
                                                        gater_n_hidden=20, loss="squared",
                                                        max_iter=100, random_state=0),
    None, "the standard soft mixture of experts of Collobert's Table 7.1 (MoE+MSE): "
          "4 experts of 10 tanh units, an MLP gater of 20 units, squared error"))
register_estimator(CurveEstimator(
    "simple_mlp", N_("Simple MLP (HardTanh)"),
    lambda p: _largescale("SimpleMLP")(n_hidden=20, max_iter=100, random_state=0,
                                       track_margin=False),
    None, "Collobert's margin MLP: HardTanh units, no output weights, beta-hinge loss"))
register_estimator(CurveEstimator(
    "margin_perceptron", N_("margin Perceptron"),
    lambda p: _largescale("MarginPerceptron")(max_iter=100, random_state=0,
                                              track_margin=False),
    None, "linear, updates while y f(x) < beta (thesis ch. 8)"))

register_estimator(CurveEstimator(
    "original_perceptron", N_("original Perceptron"),
    lambda p: _largescale("OriginalPerceptron")(max_iter=100, random_state=0,
                                                track_margin=False),
    None, "Rosenblatt's Perceptron (Collobert's thesis Alg. 3.1): updates on mistakes only, "
          "no margin; 100 epochs at most"))


class _SGDHingeAtC(ClassifierMixin, BaseEstimator):
    """Stochastic gradient on the hinge with the weight decay of the SVM of penalty ``C``:
    ``mu = 1 / (C L)`` (Collobert's thesis, eq. 8.16 and the conversion C = 1/(mu L)), ``L``
    the size of the training set it is fitted on, known only at ``fit``."""

    def __init__(self, C):
        self.C = C

    def fit(self, X, y):
        mu = 1.0 / (float(self.C) * len(X))
        self.model_ = _largescale("SGDHingeClassifier")(
            learning_rate=min(0.01, 0.5 / mu), weight_decay=mu, max_iter=100, random_state=0,
            track_margin=False).fit(X, y)
        return self

    def predict(self, X):
        return self.model_.predict(X)


register_estimator(CurveEstimator(
    "sgd_hinge", N_("linear SVM by SGD"),
    lambda p: _SGDHingeAtC(p["C"]),
    None, "stochastic gradient on the hinge with weight decay mu = 1/(C L), the linear SVM of "
          "the C slider trained by Collobert's eq. 8.16 (100 epochs)"))
register_estimator(CurveEstimator(
    "nilsson_mlp", N_("Nilsson MLP (21 signs)"),
    lambda p: _largescale("NilssonMLP")(n_hidden=21, learning_rate=0.1, max_iter=100,
                                        random_state=0, track_margin=False),
    None, "committee of 21 sign units voting, no margin (Collobert's Alg. 8.3, Nilsson 1965); "
          "λ = 0.1 (sign units need larger steps than the 0.01 of the HardTanh models)"))
register_estimator(CurveEstimator(
    "hinge_mlp", N_("MLP on the hinge"),
    lambda p: _largescale("HingeMLPClassifier")(n_hidden=20, max_iter=100, random_state=0,
                                                track_margin=False),
    None, "MLP with output weights trained on the hinge (Collobert's eq. 8.10, weight decays 0: "
          "early stopping by the epoch count)"))
register_estimator(CurveEstimator(
    "kernel_margin_perceptron", N_("kernel margin Perceptron"),
    lambda p: _largescale("KernelMarginPerceptron")(sigma=p["sigma"], max_iter=100,
                                                    random_state=0, track_margin=False),
    lambda m: int(m.support_.size),
    "Alg. 8.1 in dual form with the RBF kernel of the σ slider; its expansion points count as "
    "support vectors"))


def _fashion_home():
    """Folder argument for :func:`load_fashion_mnist` (None: ``KERNELNB_DATA`` or the user cache,
    as the loader looks them up), or raise FileNotFoundError."""
    try:
        if fashion_mnist_paths("train", data_home=None) is not None:
            return None
    except (OSError, ValueError):
        pass
    raise FileNotFoundError(_("Fashion-MNIST files not found (set KERNELNB_DATA to their "
                              "folder)"))


def _toy_loader(name):
    def load():
        return TOY_DATASETS[name][0](n_samples=600, noise=TOY_NOISE[name][0], random_state=0)
    return load


def _uci_loader(name):
    def load():
        return UCI_DATASETS[name][0]()
    return load


def _fashion_loader():
    X, y = load_fashion_mnist("train", data_home=_fashion_home(), n_samples=2000,
                              classes=(0, 6), random_state=0)
    return X, y


_FASHION = N_("Fashion-MNIST T-shirt vs shirt, 2000 images of 784 pixels")


def dataset_label(name):
    """A data set's name in the drop-down, in the language in effect.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`.

    Returns
    -------
    str
    """
    if name in TOY_DATASETS:
        return _("{name} (toy, 600 points)").format(name=toy_name(name))
    if name in UCI_DATASETS:
        return _("{name} (UCI)").format(name=name)
    return _(_FASHION).split(",")[0]


def dataset_description(name):
    """A data set's name and what it holds, in the language in effect.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`.

    Returns
    -------
    str
    """
    if name in TOY_DATASETS:
        return _("{name}: {description}").format(name=dataset_label(name),
                                                 description=_(TOY_DESCRIPTIONS[name]))
    if name in UCI_DATASETS:
        return _("{name}: {description}").format(name=dataset_label(name),
                                                 description=_(UCI_DESCRIPTIONS[name]))
    return _(_FASHION)


def _datasets():
    out = {}
    for name in TOY_DATASETS:
        out[name] = (dataset_description(name), _toy_loader(name))
    for name, entry in UCI_DATASETS.items():
        if entry[2] == "classification":
            out[name] = (dataset_description(name), _uci_loader(name))
    try:
        _fashion_home()
    except FileNotFoundError:
        pass  # the choice is hidden when the data is absent
    else:
        out["fashion_mnist"] = (dataset_description("fashion_mnist"), _fashion_loader)
    return out


#: ``{name: (description, loader() -> (X, y))}`` of the data sets offered (Fashion-MNIST only
#: when its files are found).
DATASETS = _datasets()


def _first_training_size(n_max):
    """The first size of a learning curve over a training pool of ``n_max`` points, unless told
    otherwise: a twentieth of the pool, at least 10."""
    return max(10, int(n_max) // 20)


def training_sizes(n_max, n_sizes, n_min=None):
    """Geometrically spaced training-set sizes for a learning curve.

    Parameters
    ----------
    n_max : int
        The largest size (the training pool), at least 4.
    n_sizes : int
        How many sizes, at least 2 (fewer come back where rounding makes two equal).
    n_min : int, optional
        The smallest size, default :func:`_first_training_size` of ``n_max``; held within
        [4, ``n_max``].

    Returns
    -------
    ndarray of int
        Increasing sizes from ``n_min`` to ``n_max``, without repeats.
    """
    n_max = int(n_max)
    if n_max < 4:
        raise ValueError(f"the training pool must hold at least 4 points, got {n_max}")
    n_sizes = int(n_sizes)
    if n_sizes < 2:
        raise ValueError(f"n_sizes must be >= 2, got {n_sizes}")
    n_min = int(n_min if n_min is not None else _first_training_size(n_max))
    n_min = min(max(n_min, 4), n_max)
    return np.unique(np.round(np.geomspace(n_min, n_max, n_sizes)).astype(int))


def learning_curve_data(estimators, X, y, sizes, n_repeats=5, test_fraction=0.3,
                        random_state=0, progress=None, params=None, should_stop=None):
    """Train and test errors (and #SV) against training-set size, over repeated random splits.

    The curves of :func:`learning_curve_steps` run to their end.

    Parameters
    ----------
    estimators : dict
        ``{label: CurveEstimator}``, the estimators compared.
    X : array-like of shape (n_samples, n_features)
        The data set; features are standardised on each training subset (one
        ``StandardScaler`` fitted on the subset, its standardised subset and test set shared
        by the estimators: what a pipeline per estimator computes).
    y : array-like of shape (n_samples,)
        Its labels; the test split is stratified on them.
    sizes : sequence of int
        Training-set sizes, each at most the training pool ``(1 - test_fraction) n``.
    n_repeats : int, default=5
        Random splits (test set and nested training subsets are redrawn each time).
    test_fraction : float in (0, 1), default=0.3
        Fraction of the data held out as the test set of each repeat.
    random_state : int, default=0
        Seed of the first repeat's split and subsets (repeat ``r`` uses ``random_state + r``).
    progress : callable, optional
        ``progress(fraction, text)``, called before each fit and at the end.
    params : dict, optional
        Passed to every ``CurveEstimator.make``.
    should_stop : callable ``should_stop() -> bool``, optional
        Asked before each fit (e.g. a time budget): when it answers True no new fit
        starts, and the result holds the repeats completed (or, when not even the first is, the
        sizes of the first repeat completed for every estimator) and says so in ``'stopped'``;
        with nothing completed, ``TimeoutError``.

    Returns
    -------
    dict ``{label: {'sizes', 'train_error', 'test_error', 'n_support', 'fit_time', 'stopped'}}``
        Arrays of shape (n_sizes, n_repeats) (fewer of either when stopped); ``n_support`` is
        None for estimators without it; ``stopped`` is False, or True when the time budget cut
        the work short.

    Raises
    ------
    TimeoutError
        When ``should_stop`` answers True before the first training size was fitted.
    """
    return run_to_end(learning_curve_steps(
        estimators, X, y, sizes, n_repeats=n_repeats, test_fraction=test_fraction,
        random_state=random_state, progress=progress, params=params, should_stop=should_stop))


def _curves_so_far(out, sizes, keep_sizes, keep_repeats, stopped):
    """The curves of the first ``keep_sizes`` sizes and ``keep_repeats`` repeats of ``out``."""
    cut = {}
    for label, res in out.items():
        cut[label] = dict(res, sizes=sizes[:keep_sizes], stopped=stopped)
        for k in ("train_error", "test_error", "fit_time", "n_support"):
            if res[k] is not None:
                cut[label][k] = res[k][:keep_sizes, :keep_repeats].copy()
    return cut


def _splits(y, sizes, test_fraction, seed):
    """The test positions of one repeat and its nested training subsets, one per size (read
    only): the stratified split of ``RandomState(seed)``, then the subsets of each size in turn
    from the same generator.  They depend on the labels and these numbers only, not on the
    estimators or their parameters, so a dashboard's slider step reuses them (a cache of the
    last few)."""
    key = tuple(y.tolist()) if y.dtype != object else None
    if key is None:
        return _draw_splits(y, sizes, test_fraction, seed)
    return _cached_splits(key, str(y.dtype), sizes, test_fraction, seed)


@functools.lru_cache(maxsize=64)
def _cached_splits(labels, dtype, sizes, test_fraction, seed):
    return _draw_splits(np.asarray(labels, dtype=dtype), sizes, test_fraction, seed)


def _draw_splits(y, sizes, test_fraction, seed):
    from sklearn.model_selection import train_test_split

    rs = np.random.RandomState(seed)
    idx_tr, idx_te = train_test_split(np.arange(y.shape[0]), test_size=test_fraction,
                                      stratify=y, random_state=rs)
    subs = tuple(np.sort(idx_tr[stratified_subset(y[idx_tr], n, rs)]) for n in sizes)
    for a in (idx_te, *subs):
        a.setflags(write=False)
    return idx_te, subs


def _standardised(scaler, A):
    """``scaler.transform(A)`` for a fitted ``StandardScaler``: for a float64 array, the same
    subtraction and division without the transform's input check (0.1-0.2 ms, a few times
    the arithmetic on a toy's subset, twice per training subset)."""
    if not (isinstance(A, np.ndarray) and A.dtype == np.float64 and A.ndim == 2):
        return scaler.transform(A)
    Z = A - scaler.mean_
    Z /= scaler.scale_
    return Z


#: The standardised training subsets and test sets of the last few curves (see
#: :func:`_standardised_split`), most recent last.
_STANDARDISED = collections.OrderedDict()
#: The most bytes :data:`_STANDARDISED` holds, the oldest dropped first: a toy's 30 to 150
#: subsets (sizes x repeats) take well under a megabyte; a Fashion-MNIST sample's would take
#: hundreds (its test set standardised once per subset), of which a kernel keeps this much.
_STANDARDISED_BYTES = 32 * 2**20


def _array_key(A):
    """A key of a numeric array's contents: its shape, dtype and a digest of its bytes; None
    for any other array (its bytes are not its values: nothing is kept for it)."""
    if A.dtype.kind not in "biuf":
        return None
    A = np.ascontiguousarray(A)
    return A.shape, A.dtype.str, hashlib.blake2b(A.data, digest_size=16).digest()


def _standardised_split(X, x_key, sub, idx_te):
    """``(Z_sub, Z_te, seconds)``: the rows ``sub`` of ``X`` standardised by a ``StandardScaler``
    fitted on them, the test rows ``idx_te`` standardised alike (both read only), and the
    seconds the scaler's fit and the subset's standardisation took when first computed.

    They depend on the data and the split only: a slider step of C, σ or K standardises
    again exactly what the previous step did (the splits are cached, :func:`_splits`), and
    ``StandardScaler.fit`` costs about 0.9 ms on a toy's subset, a third of the learning
    curves' work per step in a kernel. So the last few are kept (:data:`_STANDARDISED_BYTES`),
    keyed by the data's contents (``x_key``, :func:`_array_key`) and the rows' positions."""
    from sklearn.preprocessing import StandardScaler

    key = None if x_key is None else (x_key, sub.tobytes(), idx_te.tobytes())
    hit = None if key is None else _STANDARDISED.get(key)
    if hit is not None:
        _STANDARDISED.move_to_end(key)
        return hit
    t0 = time.perf_counter()
    X_sub = X[sub]
    scaler = StandardScaler().fit(X_sub)
    Z_sub = _standardised(scaler, X_sub)
    seconds = time.perf_counter() - t0
    Z_te = _standardised(scaler, X[idx_te])
    for Z in (Z_sub, Z_te):
        Z.setflags(write=False)
    hit = (Z_sub, Z_te, seconds)
    if key is None or Z_sub.nbytes + Z_te.nbytes > _STANDARDISED_BYTES // 4:
        return hit
    _STANDARDISED[key] = hit
    held = sum(z.nbytes + t.nbytes for z, t, _s in _STANDARDISED.values())
    while held > _STANDARDISED_BYTES:
        z, t, _s = _STANDARDISED.popitem(last=False)[1]
        held -= z.nbytes + t.nbytes
    return hit


def learning_curve_steps(estimators, X, y, sizes, n_repeats=5, test_fraction=0.3,
                         random_state=0, progress=None, params=None, should_stop=None):
    """:func:`learning_curve_data` one fit at a time, for the dashboard's partial results.

    A generator: it yields None after each fit, and the curves so far (a
    :func:`learning_curve_data` result with fewer sizes or repeats, ``stopped`` False) after
    each training size of the first repeat (the curves drawn point by point) and after each
    later repeat but the last; it returns the complete result, the same numbers as
    :func:`learning_curve_data` (whose parameters it takes).

    Parameters
    ----------
    estimators : dict
        ``{label: CurveEstimator}``, the estimators compared.
    X : array-like of shape (n_samples, n_features)
        The data set.
    y : array-like of shape (n_samples,)
        Its labels.
    sizes : sequence of int
        Training-set sizes.
    n_repeats : int, default=5
        Random splits.
    test_fraction : float in (0, 1), default=0.3
        Fraction of the data held out as the test set of each repeat.
    random_state : int, default=0
        Seed of the first repeat's split and subsets.
    progress : callable, optional
        ``progress(fraction, text)``, called before each fit and at the end.
    params : dict, optional
        Passed to every ``CurveEstimator.make``.
    should_stop : callable ``should_stop() -> bool``, optional
        Asked before each fit (see :func:`learning_curve_data`).

    Returns
    -------
    dict
        The :func:`learning_curve_data` result (the generator's return value).

    Yields
    ------
    None or dict
        None after a fit that completes no point of the curves; else the curves so far.

    Raises
    ------
    TimeoutError
        When ``should_stop`` answers True before the first training size was fitted.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D with as many rows as y, got {X.shape} and {y.shape}")
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    if int(n_repeats) < 1:
        raise ValueError(f"n_repeats must be >= 1, got {n_repeats!r}")
    sizes = np.asarray(sizes, dtype=int)
    n_pool = X.shape[0] - int(np.ceil(test_fraction * X.shape[0]))
    if sizes.size == 0 or sizes.min() < 2 or sizes.max() > n_pool:
        raise ValueError(f"sizes must lie in [2, {n_pool}] (the training pool), "
                         f"got {sizes.tolist()}")
    params = params or {}
    shape = (sizes.size, int(n_repeats))
    out = {label: dict(sizes=sizes, train_error=np.full(shape, np.nan),
                       test_error=np.full(shape, np.nan), fit_time=np.full(shape, np.nan),
                       n_support=None if spec.n_support is None else np.full(shape, np.nan))
           for label, spec in estimators.items()}
    total = sizes.size * int(n_repeats) * max(len(estimators), 1)
    done = 0
    x_key = _array_key(X)             # the data's key for _standardised_split
    stop = None                       # (repeat, size index) where the budget stopped the work
    for r in range(int(n_repeats)):
        if stop is not None:
            break
        idx_te, subs = _splits(y, tuple(int(n) for n in sizes), float(test_fraction),
                               int(random_state) + r)
        for i, n in enumerate(sizes):
            if stop is not None:
                break
            sub = subs[i]
            Z_sub, Z_te, scale_time = None, None, 0.0
            for label, spec in estimators.items():
                if should_stop is not None and should_stop():
                    stop = (r, i)           # this size is incomplete: it is left out
                    break
                if progress is not None:
                    progress(done / total, _("repeat {r}/{n_repeats}, n = {n}: {label}").format(
                        r=r + 1, n_repeats=n_repeats, n=n, label=_(spec.label)))
                if Z_sub is None:           # the standardisation of this subset, done once
                    Z_sub, Z_te, scale_time = _standardised_split(X, x_key, sub, idx_te)
                model = spec.make(params)
                t0 = time.perf_counter()
                model.fit(Z_sub, y[sub])
                res = out[label]
                # the time of a pipeline's fit: the standardisation and the estimator's fit
                res["fit_time"][i, r] = scale_time + time.perf_counter() - t0
                res["train_error"][i, r] = np.mean(model.predict(Z_sub) != y[sub])
                res["test_error"][i, r] = np.mean(model.predict(Z_te) != y[idx_te])
                if spec.n_support is not None:
                    res["n_support"][i, r] = spec.n_support(model)
                done += 1
                yield None
            last = r == int(n_repeats) - 1 and i == sizes.size - 1
            if stop is None and not last and (r == 0 or i == sizes.size - 1):
                yield _curves_so_far(out, sizes, i + 1 if r == 0 else sizes.size, r + 1, False)
    if stop is not None:
        r, i = stop
        if r == 0 and i == 0:
            raise TimeoutError(_("stopped before the first training size was fitted"))
        keep_sizes, keep_repeats = (sizes.size, r) if r > 0 else (i, 1)
        out = _curves_so_far(out, sizes, keep_sizes, keep_repeats, True)
    for res in out.values():
        res["stopped"] = stop is not None
    if progress is not None:
        progress(1.0, _("done"))
    return out


def _same_property(a, b):
    """Whether two property values of plotly's JSON form (arrays, dicts, lists, scalars) are
    equal, arrays of the same shape and dtype included (NaN equal to NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_property(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_property(u, v) for u, v in zip(a, b))
    return type(a) is type(b) and a == b


def _redraw(fig, traces):
    """Show ``traces`` in ``fig``: the traces it holds updated in place where they are the same
    series (in order, the same name and legend group, the same properties set; a widget gives
    the traces it is handed uids of its own), else replaced.  In place, only the properties
    that differ are handed to plotly (a step changes the data, seldom the style): plotly
    validates every property it is given, which was two thirds of the learning curves' drawing
    time in the kernel."""
    def series(d):
        return d.get("name"), d.get("legendgroup"), set(d) - {"uid"}

    old = [t.to_plotly_json() for t in fig.data]
    new = [t.to_plotly_json() for t in traces]
    same = len(old) == len(new) and all(series(o) == series(n) for o, n in zip(old, new))
    if not same:
        fig.data = []
        fig.add_traces(traces)
        return
    for trace, o, n in zip(fig.data, old, new):
        changed = {k: v for k, v in n.items()
                   if k not in ("type", "uid") and not _same_property(o.get(k), v)}
        if changed:
            trace.update(changed)


def _exponent_text(e):
    return num(e, ".2f") if np.isfinite(e) else _("– (too fast)")


class LearningCurves(Dashboard):
    """Learning curves of several estimators on one data set.

    Parameters
    ----------
    **params
        Initial control values: ``dataset`` (a key of :data:`DATASETS`), ``estimators`` (tuple
        of keys of :data:`ESTIMATORS`), ``C``, ``sigma``, ``n_neighbors``, ``n_repeats``,
        ``n_sizes``, ``test_fraction``.

    Notes
    -----
    :meth:`update` returns ``curves`` (the :func:`learning_curve_data` result), ``sizes`` and,
    per estimator key ``k``, ``test_error_<k>`` and ``train_error_<k>`` (mean at the largest
    size), ``test_error_first_<k>`` and ``train_error_first_<k>`` (at the smallest size),
    ``gap_<k>`` and ``gap_first_<k>`` (test minus training error at the largest and smallest
    sizes), ``n_support_<k>`` where it applies, and ``time_s`` for the whole computation.

    The lesson (:attr:`LESSONS`): as the training set grows the test error falls and the gap
    to the training error closes (Collobert's thesis, section 2.1, Fig. 2.1). :meth:`regime`
    notes a data set so easy that the test error is already near 0 at the smallest size.

    Examples
    --------
    >>> from kernelnb.lab.app import LearningCurves
    >>> app = LearningCurves(estimators=("knn",), n_repeats=1, n_sizes=3)
    >>> stats = app.update(view="time")              # the same curves, no refit
    >>> stats["sizes"].tolist(), stats["dataset_size"]
    ([21, 94, 420], 600)
    >>> app.update(estimators=())["error"]
    'ValueError: estimators: choose at least one estimator'
    """

    notebook = "learning_curves"
    title = N_("Learning curves")
    purpose = N_("Training and test error against the number of training points, mean ± one "
                 "standard deviation over random splits; dotted: the number of support vectors "
                 "(right axis).")
    STATS = [("dataset_size", N_("points in the data set"), "d")]
    LESSON_APP = {"n_sizes": 3, "n_repeats": 3}
    LESSONS = (Lesson(
        claim=N_("As the training set grows, the test error falls and the gap between test and "
                 "training error closes: the empirical risk becomes a good estimate of the "
                 "expected risk."),
        source=N_("Collobert 2004, thesis §2.1, Fig. 2.1"),
        # the gap's size: a K-NN vote on a handful of points can err more on its own training
        # points than on the test set
        holds=lambda s: all(s[f"test_error_{k}"] < s[f"test_error_first_{k}"]
                            and abs(s[f"gap_{k}"]) < abs(s[f"gap_first_{k}"])
                            for k in ("svc", "knn")),
        sweep={"C": (0.01, 1000.0), "sigma": (0.03, 30.0),
               "dataset": ("xor", "blobs", "breast_cancer")},
        seed_control=None),)
    #: Below this test error at the smallest size (every estimator) the curves cannot fall.
    TOO_EASY = 0.01

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "C",
        "values": [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0],
        "readout": [("test_error_first_svc", "SVM: test error at the smallest n", ".1%"),
                    ("test_error_svc", "at the largest", ".1%"),
                    ("gap_first_svc", "test − training error at the smallest n", ".1%"),
                    ("gap_svc", "at the largest", ".1%")],
        "why": "The lesson runs along the chart's x axis, the training set's size, at every "
               "setting: C goes from an SVM that can hardly fit (0.01) to one that fits every "
               "training point (1,000), and the readout gives the SVM's test error and its gap "
               "to the training error at the smallest and the largest size.",
    }

    def __init__(self, **params):
        self._cache = {}
        super().__init__(**params)

    def _build(self):
        c = self.controls
        c["dataset"] = styled(widgets.Dropdown(
            options=[(dataset_label(name), name) for name in DATASETS],
            value="moons", description=_("data set")))
        c["estimators"] = styled(widgets.SelectMultiple(
            options=[(_(spec.label), name) for name, spec in ESTIMATORS.items()],
            value=("svc", "knn"), rows=min(10, len(ESTIMATORS)), description=_("estimators")),
            tooltip=_("several with ctrl- or shift-click"))
        c["view"] = styled(widgets.ToggleButtons(
            options=[(_("errors"), "errors"), (_("time against n"), "time")], value="errors",
            description=_("show")), tooltip=_("error rates, or training time on log-log axes"))
        c["C"] = log_slider(_("C (SVM, KLR)"), 1.0, -2, 3, step=0.25, main=True,
                            tooltip=_("C of the SVM, of kernel logistic regression and of the "
                                      "SGD hinge (weight decay μ = 1/(C L))"))
        c["sigma"] = log_slider(_("σ (RBF)"), 1.0, -1.5, 1.5, step=0.05,
                                tooltip=_("RBF width on standardised features"))
        c["n_neighbors"] = styled(widgets.IntSlider(value=5, min=1, max=31, step=2,
                                                    description=_("K (KNN)")))
        c["n_repeats"] = styled(widgets.IntSlider(value=5, min=1, max=20,
                                                  description=_("repeats")))
        c["n_sizes"] = styled(widgets.IntSlider(value=6, min=3, max=12, description=_("sizes")))
        c["test_fraction"] = styled(widgets.FloatSlider(value=0.3, min=0.1, max=0.5, step=0.05,
                                                        description=_("test fraction")))
        self.description = widgets.HTML()
        fig = learning_curve_figure({"": dict(sizes=[1, 2], train_error=[0, 0],
                                              test_error=[0, 0])})
        fig.update_layout(height=600)
        self.fig = FigureWidget(fig)
        tfig = fit_time_figure({"": dict(sizes=[1, 2], fit_time=[1e-3, 2e-3])})
        tfig.update_layout(height=600)
        self.time_fig = FigureWidget(tfig)
        self.fig_box = widgets.Box([self.fig], layout=widgets.Layout(display="flex"))
        self.time_box = widgets.Box([self.time_fig], layout=widgets.Layout(display="none"))
        self.figures = [self.fig, self.time_fig]
        self._curves_key = self._curves = None

    def _control_rows(self):
        return [*self.controls.values(), self.description]

    def _layout(self):
        box = super()._layout()
        right = box.children[-1].children[1]
        right.children = [self.fig_box, self.time_box,
                          *(w for w in right.children if w not in (self.fig, self.time_fig))]
        return box

    def _load(self, name):
        if name not in DATASETS:
            raise ValueError(f"dataset must be one of {sorted(DATASETS)}, got {name!r}")
        if name not in self._cache:
            from sklearn.preprocessing import StandardScaler

            X, y = DATASETS[name][1]()
            X = np.asarray(X, dtype=np.float64)
            self._cache[name] = (X, np.asarray(y),
                                 _k.scale_sigma(StandardScaler().fit_transform(X)))
        return self._cache[name]

    def _adjust(self, params, given):
        if "dataset" in given and "sigma" not in given:
            # a width that suits the data set: scikit-learn's gamma='scale' on standardised features
            params["sigma"] = float(self._load(params["dataset"])[2])
        return params

    def _steps(self, p):
        names = tuple(p["estimators"])
        if not names:
            raise ValueError(_("estimators: choose at least one estimator"))
        unknown = [n for n in names if n not in ESTIMATORS]
        if unknown:
            raise ValueError(f"estimators must be among {list(ESTIMATORS)}, got {unknown}")
        X, y, _s = self._load(p["dataset"])
        for key in ("C", "sigma"):
            if not (np.isfinite(p[key]) and p[key] > 0):
                raise ValueError(f"{key} must be a positive number, got {p[key]!r}")
        n_pool = X.shape[0] - int(np.ceil(p["test_fraction"] * X.shape[0]))
        k_start = self._knn_start(names, p, n_pool)
        sizes = training_sizes(n_pool, p["n_sizes"], n_min=k_start)
        specs = {n: ESTIMATORS[n] for n in names}
        # switching the view redraws the same curves: no refit
        key = tuple((k, v) for k, v in sorted(p.items()) if k != "view")
        if key == self._curves_key:
            curves, elapsed = self._curves
        else:
            t0 = time.perf_counter()
            with self.busy(_("fitting…")):
                try:
                    steps = learning_curve_steps(
                        specs, X, y, sizes, n_repeats=p["n_repeats"],
                        test_fraction=p["test_fraction"], random_state=0,
                        progress=throttled(self.report_progress),
                        params=dict(C=float(p["C"]), sigma=float(p["sigma"]),
                                    n_neighbors=int(p["n_neighbors"])),
                        should_stop=lambda: self.time_left() <= 0)
                    curves = yield from self._partial_results(steps, p, X, k_start, t0)
                except TimeoutError as exc:
                    raise TimeBudgetExceeded(self.budget_message(_("the learning curves"))) \
                        from exc
            elapsed = time.perf_counter() - t0
            self._curves_key, self._curves = key, (curves, elapsed)
        first = next(iter(curves.values()))
        warning = ""
        if first["stopped"]:
            shape = first["test_error"].shape
            warning = (self.budget_message(_("the learning curves")) + "; " + _(
                "drawn: {done} of {repeats} repeat(s), sizes up to n = {n}").format(
                    done=shape[1], repeats=p["n_repeats"], n=int(first["sizes"][-1])))
        return dict(p=p, curves=curves, sizes=first["sizes"], X=X, time_s=elapsed,
                    warning=warning, k_start=k_start)

    @staticmethod
    def _partial_results(steps, p, X, k_start, t0):
        """Relay ``learning_curve_steps``: its pauses, and each partial curves as a result to
        draw; returns its complete curves."""
        while True:
            try:
                curves = next(steps)
            except StopIteration as end:
                return end.value
            if curves is not None:
                first = next(iter(curves.values()))
                # the title counts the repeats drawn
                curves = dict(p=dict(p, n_repeats=first["test_error"].shape[1]), curves=curves,
                              sizes=first["sizes"], X=X, time_s=time.perf_counter() - t0,
                              warning="", k_start=k_start)
            yield curves

    @staticmethod
    def _knn_start(names, p, n_pool):
        """The smallest training size when K-NN is drawn and its K exceeds the usual start
        (a vote of K neighbours needs K training points), else None (the usual start)."""
        if "knn" not in names:
            return None
        k = int(p["n_neighbors"])
        if k > n_pool:
            raise ValueError(_("n_neighbors: K = {k} is larger than the training pool ({n} "
                               "points)").format(k=k, n=n_pool))
        return k if k > _first_training_size(n_pool) else None

    def _render(self, r):
        p, curves = r["p"], r["curves"]
        labelled = {_(ESTIMATORS[k].label): v for k, v in curves.items()}
        traces, ticks, any_sv = learning_curve_traces(labelled)
        fig = self.fig
        _redraw(fig, traces)
        fig.layout.xaxis.update(tickvals=ticks, ticktext=[f"{t:.0f}" for t in ticks])
        fig.layout.yaxis2.visible = any_sv
        timed = p.get("view") == "time"
        self.fig_box.layout.display = "none" if timed else "flex"
        self.time_box.layout.display = "flex" if timed else "none"
        _redraw(self.time_fig, fit_time_traces(labelled))
        desc = dataset_description(p["dataset"])
        name = dataset_label(p["dataset"])
        self.time_fig.layout.title.text = _("{name}: training time against n (log-log; the "
                                            "slope is the exponent)").format(name=name)
        fig.layout.title.text = _("{name}: C = {C}, σ = {sigma}, K = {k}, {repeats} "
                                  "repeats").format(name=name, C=num(p["C"], ".3g"),
                                                    sigma=num(p["sigma"], ".3g"),
                                                    k=p["n_neighbors"], repeats=p["n_repeats"])
        note = ""
        if r["k_start"] is not None:
            note = "; " + _("the curves start at n = {n}: a vote of K = {k} neighbours needs as "
                            "many training points").format(n=r["k_start"], k=p["n_neighbors"])
        self.description.value = f"<small>{html.escape(desc)}{note}</small>"
        stats = dict(curves=curves, sizes=r["sizes"], dataset_size=int(r["X"].shape[0]),
                     n_features=int(r["X"].shape[1]), time_s=r["time_s"])
        if r["warning"]:
            stats["_warning"] = r["warning"]
        rows, times = [], []
        for k, c in curves.items():
            stats[f"test_error_{k}"] = float(c["test_error"][-1].mean())
            stats[f"train_error_{k}"] = float(c["train_error"][-1].mean())
            stats[f"test_error_first_{k}"] = float(c["test_error"][0].mean())
            stats[f"train_error_first_{k}"] = float(c["train_error"][0].mean())
            stats[f"gap_{k}"] = stats[f"test_error_{k}"] - stats[f"train_error_{k}"]
            stats[f"gap_first_{k}"] = (stats[f"test_error_first_{k}"]
                                       - stats[f"train_error_first_{k}"])
            stats[f"time_exponent_{k}"] = time_exponent(c["sizes"], c["fit_time"])
            nsv = "–"
            if c["n_support"] is not None:
                stats[f"n_support_{k}"] = float(c["n_support"][-1].mean())
                nsv = num(stats[f"n_support_{k}"], ".0f")
            label = html.escape(_(ESTIMATORS[k].label))
            rows.append(f"<tr><td>{label}</td>"
                        f"<td class='num'>{num(stats[f'train_error_{k}'], '.1%')}</td>"
                        f"<td class='num'>{num(stats[f'test_error_{k}'], '.1%')}"
                        f" ± {num(c['test_error'][-1].std(), '.1%')}</td>"
                        f"<td class='num'>{nsv}</td></tr>")
            times.append(f"<tr><td>{label}</td>"
                         f"<td class='num'>{num(1e3 * np.nanmean(c['fit_time'][-1]), '.0f')}</td>"
                         f"<td class='num'>{_exponent_text(stats[f'time_exponent_{k}'])}</td>"
                         "</tr>")
        n_last = int(r["sizes"][-1])
        heads = [html.escape(t) for t in (
            _("At the largest size, n = {n}:").format(n=n_last), _("estimator"), _("training"),
            _("test error"), _("#SV"), _("at n = {n}").format(n=n_last), _("fit (ms)"),
            _("time ∝ n^"), _("{d} features; computed in {s} s").format(
                d=stats["n_features"], s=num(stats["time_s"], ".2f")))]
        stats["_html"] = (f"<div style='font-size:13px;margin-top:4px'>{heads[0]}</div>"
                          f"<table><tr><th>{heads[1]}</th><th>{heads[2]}</th>"
                          f"<th>{heads[3]}</th><th>{heads[4]}</th></tr>" + "".join(rows)
                          + "</table>")
        stats["_details"] = (f"<table><tr><th>{heads[5]}</th><th>{heads[6]}</th>"
                             f"<th>{heads[7]}</th></tr>" + "".join(times) + "</table>"
                             f"<small>{heads[8]}</small>")
        return stats

    def regime(self, params, stats):
        """A note where every estimator's test error is near 0 already at the smallest size."""
        keys = [k for k in params["estimators"] if f"test_error_first_{k}" in stats]
        if keys and all(stats[f"test_error_first_{k}"] < self.TOO_EASY for k in keys):
            n0 = int(stats["sizes"][0])
            return [_("Already at n = {n} every test error is below {pct}: this data set is too "
                      "easy for the curves to fall; choose a harder one (xor, spirals, a UCI set) "
                      "or more noise.").format(n=n0, pct=num(self.TOO_EASY, ".0%"))]
        return []
