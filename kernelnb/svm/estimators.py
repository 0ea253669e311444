"""SVC and SVR estimators on top of the Cython decomposition solver (:mod:`kernelnb.svm._smo`).

Formulations (``margin``):

* ``'l1'``: the usual C-SVC / epsilon-SVR soft margin, box ``0 <= alpha_i <= C_i``.
* ``'l2'``: the L2 soft margin ``min 1/2 ||w||^2 + C/2 sum xi_i^2``, solved as a hard margin on
  ``K + I / C`` (Chapelle's thesis ch. 2 and 4).
* ``'hard'``: no slack (``C`` is ignored); on data that is not separable the solver stops at
  ``max_iter`` (a default cap applies) with a warning.

Multi-class classification is one-vs-one as in LIBSVM: one binary problem per pair of classes,
voting at prediction time.
"""
from __future__ import annotations

import numbers
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .. import _kernels
from .._callbacks import progress_caller
from .._config import get_config
from .._fit import fit_context
from .._threads import blas_single_thread, blas_threads_for, n_threads
from .._validation import (CALLBACK, N_JOBS, NONNEGATIVE, POSITIVE, interval, options,
                           str_options, check_input, check_sample_weight)
from .. import kernels as _k
from . import _smo

__all__ = ["SVC", "SVR", "svc_path"]

_KINDS = {"linear": _smo.KIND_LINEAR, "poly": _smo.KIND_POLY, "rbf": _smo.KIND_RBF}
_MARGINS = ("l1", "l2", "hard")
# Upper bound used for variables without one (hard and L2 margins): large enough never to be
# reached, small enough that differences of two bounds stay finite.
_NO_BOUND = 1e250


def _physical_memory_mb():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return float("inf")


class _BaseSVM(BaseEstimator):
    """Parameters, validation and the call into the solver shared by SVC and SVR."""

    # One table (kernelnb._validation, scikit-learn's constraints) checked by the fit wrapper
    # (kernelnb._fit.fit_context); _check_params_extra adds what a table cannot say.
    _parameter_constraints = {
        "C": [interval(numbers.Real, 0, None, closed="neither"), options(numbers.Real, {np.inf})],
        "kernel": [str_options(set(_k.KERNEL_NAMES)), callable],
        "sigma": [interval(numbers.Real, 0, None, closed="neither"), str_options({"scale"})],
        "scales": ["array-like", None],
        "degree": [interval(numbers.Integral, 1, None, closed="left")],
        "coef0": [interval(numbers.Real, None, None, closed="neither")],
        "margin": [str_options(set(_MARGINS))],
        "tol": POSITIVE,
        "cache_size": POSITIVE,
        "max_iter": [interval(numbers.Integral, -1, None, closed="left")],
        "shrinking": ["boolean"],
        "warm_start": ["boolean"],
        "n_jobs": N_JOBS,
        "verbose": ["verbose"],
        "callback": CALLBACK,
        "q": [str_options({"auto"}), interval(numbers.Integral, 2, None, closed="left")],
        "precision": [str_options({"float32", "float64"})],
    }

    def _check_params_extra(self):
        cs = self.cache_size
        if cs > _physical_memory_mb():
            raise ValueError(f"cache_size={cs!r} MB is larger than this machine's memory "
                             f"({_physical_memory_mb():.0f} MB)")
        q = self.q
        if not isinstance(q, str) and q % 2:
            raise ValueError(f"q must be 'auto' or an even integer >= 2, got {q!r}")

    def _check_input(self, X, y="no_validation", reset=True, **kwargs):
        """The one input check, in the solver's precision and after the kernel's scaling."""
        scales = None if self.scales is None or self.kernel == "precomputed" else self.scales
        poly = dict(degree=self.degree, offset=self.coef0) if self.kernel == "poly" else {}
        return check_input(self, X, y, reset=reset, dtype=[np.float64, np.float32], order="C",
                           precision=self.precision, scale=scales, **poly, **kwargs)

    # -- kernel and data -------------------------------------------------------------------
    def _resolve_kernel(self, X, sample_weight=None):
        """The fitted kernel (:meth:`kernelnb.kernels.KernelSpec.fit`: sigma='scale' resolved on
        the scaled training data, weighted by ``sample_weight`` when the weights differ, the
        training mean kept for prediction)."""
        dtype = np.float64 if self.precision == "float64" else np.float32
        if sample_weight is not None and np.all(sample_weight == sample_weight[0]):
            sample_weight = None                   # equal weights: the plain variance
        kern = _k.KernelSpec.of(self).fit(X, dtype=dtype, sample_weight=sample_weight)
        self.sigma_ = kern.sigma if isinstance(kern, _k.RBF) else None
        return kern

    def _solver_data(self, X):
        """(X32, Kpre, kind, gamma, coef0, degree) describing the training kernel to the solver."""
        kern = self.kernel_
        if self.precision == "float64" or isinstance(kern, (_k.Precomputed, _k.CallableKernel)):
            X64 = np.asarray(X, dtype=np.float64)
            K = X64 if isinstance(kern, _k.Precomputed) else kern(X64)
            if K.shape[0] != K.shape[1]:
                raise ValueError(f"a precomputed kernel must be square at fit, got shape {K.shape}")
            if not np.all(np.isfinite(K)):
                raise ValueError("the kernel matrix contains NaN or infinite values")
            # float64: the exact path (the solver reads these rows as they are)
            dtype = np.float64 if self.precision == "float64" else np.float32
            return None, np.ascontiguousarray(K, dtype=dtype), _smo.KIND_PRECOMPUTED, 0.0, 0.0, 1
        if isinstance(kern, _k.RBF):
            Xs = kern.scale(X).astype(np.float32)
            Xs -= Xs.mean(axis=0)  # the training mean (in float32): limits cancellation
            return np.ascontiguousarray(Xs), None, _smo.KIND_RBF, kern.gamma, 0.0, 1
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        if isinstance(kern, _k.Polynomial):
            return X32, None, _smo.KIND_POLY, 1.0, kern.coef0, kern.degree
        return X32, None, _smo.KIND_LINEAR, 0.0, 0.0, 1

    @staticmethod
    def _diag(data, idx):
        X32, Kpre, kind, gamma, coef0, degree = data
        if Kpre is not None:
            return np.asarray(Kpre[idx, idx], dtype=np.float64)
        if kind == _smo.KIND_RBF:
            return np.ones(len(idx))
        sq = np.einsum("ij,ij->i", X32[idx].astype(np.float64), X32[idx].astype(np.float64))
        if kind == _smo.KIND_POLY:
            return (gamma * sq + coef0) ** degree
        return sq

    def _n_threads(self):
        return n_threads(self.n_jobs)

    def _progress(self, prefix, stop=None):
        """The callback handed to the solver: verbose lines, the user's callback, and the stop
        flag that worker threads check (Ctrl-C reaches only the main thread)."""
        user = self.callback
        if not self.verbose and user is None and stop is None:
            return None
        report = progress_caller(user)

        def cb(it, gap, obj):
            if stop is not None and stop.is_set():
                return False
            if self.verbose:
                print(f"[kernelnb.svm] {prefix}iter {it:8d}  kkt gap {gap:.3e}  dual objective {obj:.6g}",
                      flush=True)
            if report(dict(iteration=it, kkt_gap=gap, objective=obj, problem=prefix.strip())):
                return False
            return None

        return cb

    def _whole_kernel(self, data, n_problems=1):
        """When the whole float32 kernel matrix fits in ``cache_size``, compute it once (one
        multi-threaded BLAS product, symmetric, then the fused kernel pass) and let every binary
        problem read its rows from it: in one-vs-one each class's block would otherwise be
        recomputed by every pair it belongs to.  Otherwise leave the rows to the solver's cache.

        A single problem on data too large for the CPU's caches is left to the solver too: its
        working sets compute only the rows they visit."""
        X32, Kpre, kind, gamma, coef0, degree = data
        if Kpre is not None or not self._precompute_whole:
            return data
        n = X32.shape[0]
        if 4.0 * n * n > float(self.cache_size) * 2**20:
            return data
        if n_problems == 1 and self.q != 2 and 4.0 * X32.size > _SMALL_DATA:
            return data
        if kind == _smo.KIND_RBF:
            # direct evaluation for few features, else X X' and a vectorised exp (the solver's)
            with blas_threads_for(n * n * X32.shape[1]):
                G = _smo.rbf_matrix(X32, gamma, self._n_threads())
            return None, G, _smo.KIND_PRECOMPUTED, 0.0, 0.0, 1
        with blas_threads_for(n * n * X32.shape[1]):
            G = X32 @ X32.T   # numpy uses BLAS syrk for a product with its own transpose
        if kind == _smo.KIND_POLY:
            _kernels.poly_from_gram(G, gamma, coef0, degree)
        return None, np.ascontiguousarray(G, dtype=np.float32), _smo.KIND_PRECOMPUTED, 0.0, 0.0, 1

    # Set to False (tests) to force the row cache even when the whole kernel would fit.
    _precompute_whole = True

    def _solve(self, data, idx, yv, ex, p, ub, dadd, alpha0, prefix="", max_iter=None,
               n_threads=1, cache_share=1, stop=None):
        """Run the solver on the sub-problem made of the examples ``idx``.

        ``ex`` maps the problem's variables to positions in ``idx``.  With a kernel matrix the
        solver reads rows of the whole matrix through global indices (no copy per problem)."""
        X32, Kpre, kind, gamma, coef0, degree = data
        QD = self._diag(data, idx)[ex] + dadd
        K64 = None
        if Kpre is not None:
            Xs, Ks, ex = None, Kpre, idx[ex]
            if Kpre.dtype == np.float64:
                Ks, K64 = None, Kpre
        else:
            Xs, Ks = np.ascontiguousarray(X32[idx]), None
        alpha0 = _feasible(alpha0, yv, ub)
        cache_mb = float(self.cache_size) / cache_share
        q = self._working_set_size(len(idx), cache_mb, Kpre is not None,
                                   0 if X32 is None else X32.shape[1])
        if max_iter is None:
            max_iter = int(self.max_iter)
            if self._margin == "hard" and max_iter < 0:
                max_iter = max(10_000_000, 100 * len(yv))
        res = _smo.solve_dual(
            Xs, Ks, kind, gamma, coef0, degree,
            np.ascontiguousarray(yv, dtype=np.int8), np.ascontiguousarray(ex, dtype=np.int32),
            np.ascontiguousarray(p, dtype=np.float64), np.ascontiguousarray(ub, dtype=np.float64),
            np.ascontiguousarray(dadd, dtype=np.float64), np.ascontiguousarray(QD, dtype=np.float64),
            np.ascontiguousarray(alpha0, dtype=np.float64), cache_mb,
            _block_size(len(idx)), bool(self.shrinking), float(self.tol), int(max_iter),
            self._progress(prefix, stop), 1000, n_threads, q, K64,
        )
        res["q"] = q
        return res

    def _working_set_size(self, n, cache_mb, whole, d):
        """The q the solver uses on a problem of n examples in d features: the given one, or with
        ``'auto'`` pairs (SMO) on a whole kernel matrix (one-vs-one problems sharing it) and on
        tiny problems, and blocks of q rows (SVMTorch's working sets) otherwise: as many as half
        the kernel cache holds, at most 512 (``_Q_MAX``) and n / 2.

        Past the cache, pairs compute their rows one miss at a time, each re-reading all of X;
        blocks compute them by GEMM.  Since the row cache keeps a reconstruction's cached rows
        (``_RowCache.ensure``), blocks win on cheap rows of few features too (the speed page's
        SVC tables, from ``benchmarks/bench_svm.py``)."""
        if self.q != "auto":
            return min(int(self.q), 2 * max(n // 2, 1)) if n >= 4 else 2
        rows = int(cache_mb * 2**20 / (4.0 * max(n, 1)))
        if whole or n < 4 * _Q_MIN:
            return 2
        q = min(_Q_MAX, rows // 2, n // 2)
        return max(_Q_MIN, q - q % 2)

    @property
    def _margin(self):
        """The formulation solved: C = inf is the hard margin whatever ``margin`` says."""
        return "hard" if np.isinf(self.C) else self.margin

    def _bounds(self, C_i):
        """(upper bounds, diagonal additions) of the dual for per-sample C_i."""
        if self._margin == "l1":
            return C_i, np.zeros_like(C_i)
        ub = np.full_like(C_i, _NO_BOUND)
        if self._margin == "hard":
            return ub, np.zeros_like(C_i)
        return ub, 1.0 / C_i

    def _report_status(self, statuses):
        """Set ``fit_status_`` (the worst over the binary problems) and say what it means.

        The solver catches Ctrl-C itself and returns the state it reached (status 2); once that
        state is assembled into the model the interrupt is handed on to the fit wrapper
        (:func:`kernelnb._fit.fit_context`).  Under ``keep_partial_on_interrupt``
        (:func:`kernelnb.config_context`) its :meth:`_on_interrupt` keeps the model: ``fit``
        returns it with ``interrupted_ = True`` and a ``RuntimeWarning``; otherwise the
        interrupt propagates."""
        statuses = np.atleast_1d(statuses)
        worst = int(statuses.max()) if statuses.size else 0
        self.fit_status_ = worst
        if worst == 1:
            hint = (" The data may not be separable: use margin='l1' or 'l2'."
                    if self._margin == "hard" else " Raise max_iter or tol.")
            # stacklevel: _report_status, fit, the fit wrapper, the caller
            warnings.warn(f"{type(self).__name__} did not converge within max_iter={self.max_iter} "
                          f"iterations.{hint}", ConvergenceWarning, stacklevel=4)
        elif worst == 2:
            if get_config()["keep_partial_on_interrupt"]:
                self._solver_interrupted = True
            raise KeyboardInterrupt

    def _on_interrupt(self):
        """Keep the model when the solver stopped on Ctrl-C and its state was assembled
        (``fit_status_ = 2``); an interrupt anywhere else in ``fit`` propagates."""
        return self.__dict__.pop("_solver_interrupted", False)

    @property
    def _coef_matrix(self):
        """Coefficients of the support vectors per binary problem, shape (n_SV, n_problems)."""
        return self.dual_coef_.T

    # -- prediction ------------------------------------------------------------------------
    def _prepare_prediction(self, X):
        """Keep what prediction needs: the block evaluator of the support vectors
        (:class:`kernelnb.kernels.KernelExpansion`, centred on the *training* mean, so a point's
        decision never depends on the other rows of its batch), in float64."""
        kern = self.kernel_
        if isinstance(kern, _k.Precomputed):
            self._expansion = None
            return
        self._expansion = _k.KernelExpansion(kern, self.support_vectors_, dtype=np.float64)

    def _kernel_to_sv(self, X):
        """Yield (rows slice, float64 block of K(X[rows], support_vectors_)) from a precomputed
        kernel's columns."""
        n = X.shape[0]
        n_sv = max(self.support_.shape[0], 1)
        step = max(1, min(n, int(8 * 2**20 // n_sv)))  # about 64 MB of float64 per block
        if X.shape[1] != self.shape_fit_[0]:
            raise ValueError(f"a precomputed kernel at predict must have shape (n_samples, "
                             f"{self.shape_fit_[0]}), got {X.shape}")
        for s in range(0, n, step):
            yield slice(s, s + step), np.asarray(X[s:s + step][:, self.support_], dtype=np.float64)

    def _pair_decisions(self, X):
        """Decision values of every binary problem: shape (n_samples, n_problems)."""
        check_is_fitted(self)
        X = self._check_input(X, reset=False)
        if self._expansion is not None:
            # the fused evaluation (KernelExpansion.dot): no kernel block is stored
            return self._expansion.dot(X, self._coef_matrix) + self.intercept_
        out = np.empty((X.shape[0], self._coef_matrix.shape[1]))
        for rows, Kb in self._kernel_to_sv(X):
            out[rows] = Kb @ self._coef_matrix
        return out + self.intercept_

    def _pair_positive(self, X):
        """Whether each binary problem's decision is positive, shape (n_samples, n_problems):
        the signs of :meth:`_pair_decisions`, from a float32 product where its error bound
        settles them (:meth:`kernelnb.kernels.KernelExpansion.positive`)."""
        check_is_fitted(self)
        if self._expansion is None:
            return self._pair_decisions(X) > 0
        X = self._check_input(X, reset=False)
        return self._expansion.positive(X, self._coef_matrix, self.intercept_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


# Bounds of the automatic working-set size: below _Q_MIN rows a GEMM block costs about as much as
# its rows one by one; above _Q_MAX the sub-problem's q x q float64 block (2 MB at 512, 8 MB at
# 1024) outgrows a core's caches, and loading it (q^2 reads per sub-problem) and its SMO steps
# (O(q) each) cost more than the fewer sub-problems save
# (benchmarks/results/svm_working_set_cap.json).
_Q_MIN, _Q_MAX = 16, 512
# Training data (float32) up to this size stays in the CPU's caches: a single problem on it takes
# the whole kernel matrix when the matrix fits in the cache (_BaseSVM._whole_kernel).
_SMALL_DATA = 4 * 2**20


def _block_size(n):
    """Rows per GEMM block on a cache miss: large enough for BLAS, small enough to stay useful."""
    return int(min(256, max(16, n // 40)))


def _feasible(alpha0, yv, ub):
    """Clip a warm start into the box and restore sum_i y_i alpha_i = 0."""
    a = np.clip(np.asarray(alpha0, dtype=np.float64), 0.0, ub)
    s = float(np.dot(yv, a))
    # A solver's own solution satisfies y'a = 0 only to rounding; rescaling it would move its
    # variables at C off the bound by 1e-15, which makes them free and violating again.
    if abs(s) > 1e-12 * max(1.0, float(np.abs(a).sum())):
        side = yv > 0 if s > 0 else yv < 0
        tot = a[side].sum()
        if tot > 0:
            a[side] *= max(0.0, 1.0 - abs(s) / tot)
    return a


class SVC(ClassifierMixin, _BaseSVM):
    """Support vector classifier trained by decomposition (SMO with second-order selection).

    Multi-class problems are solved one-vs-one as in LIBSVM: one binary problem per pair of
    classes, voting at prediction time.

    Parameters
    ----------
    C : float, default=1.0
        Soft-margin penalty (> 0).  ``C = inf`` is the hard margin (as ``margin='hard'``).
    kernel : {'rbf', 'linear', 'poly', 'precomputed'} or callable, default='rbf'
        The kernel; a callable ``f(X, Y) -> K`` is evaluated in blocks outside the solver.
    sigma : float or 'scale', default='scale'
        RBF width: ``k(x, y) = exp(-||s (x - y)||^2 / (2 sigma^2))``.  ``'scale'`` gives the width
        equivalent to scikit-learn's ``gamma='scale'`` (``sigma^2 = n_features Var(X) / 2``, the
        data's own scale), the default as in scikit-learn.  ``1 / (2 sigma^2)`` must be a normal
        number in the solver's ``precision`` (a ``ValueError`` names ``sigma`` otherwise).
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors ``s`` of the RBF kernel (None: all ones).
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel; the default is the ``(1 + x.z)^p`` of Collobert's,
        Vincent's and Chapelle's theses.
    margin : {'l1', 'l2', 'hard'}, default='l1'
        Soft margin with linear slack (C-SVC), with squared slack (hard margin on ``K + I/C``,
        Chapelle's thesis ch. 4), or no slack (on data that is not separable the solver stops
        at ``max_iter``, a default cap applying, with a warning).
    tol : float, default=1e-3
        Stop when the maximal KKT violation is at most ``tol`` (LIBSVM's rule).
    cache_size : float, default=200
        Memory in MB for kernel values (float32 rows).  When the whole kernel matrix fits, it
        is computed once and shared by the one-vs-one problems.
    max_iter : int, default=-1
        Iteration limit per binary problem (-1: none; the hard margin caps it anyway).
    shrinking : bool, default=True
        Shrinking of bound variables (LIBSVM's heuristic, with a final check on the whole problem).
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C per class (``'balanced'``: by ``n_samples / (n_classes * count)``).
    decision_function_shape : {'ovr', 'ovo'}, default='ovr'
        Shape of :meth:`decision_function` for more than two classes: one column per class
        (votes, ties broken by the summed confidences) or one per pair of classes.
    warm_start : bool, default=False
        Start from the previous fit's dual variables (same data), e.g. along a path of C.
    n_jobs : int or None, default=None
        Threads used: one binary problem uses them for its kernel blocks; several (multi-class)
        are solved concurrently.  None: the threads the context allows (every core, at most
        ``OMP_NUM_THREADS`` or a threadpoolctl OpenMP limit); -1: every core; k: k threads.
    verbose : bool, default=False
        Print the KKT gap and dual objective every 1000 iterations.
    callback : callable, default=None
        ``callback(info)`` is called every 1000 iterations with a dict (``iteration``,
        ``kkt_gap``, ``objective``, ``problem``: which binary problem, '' for one); returning
        ``False`` stops the solver (``fit_status_=3``).  Ctrl-C stops it cleanly and
        propagates; under ``kernelnb.config_context(keep_partial_on_interrupt=True)`` (the
        dashboards') ``fit`` returns the model reached instead (``fit_status_=2``,
        ``interrupted_=True``).
    q : 'auto' or int, default='auto'
        Working-set size, an even integer >= 2.  2 is SMO (a pair per step, Fan, Chen & Lin 2005
        second-order selection).  Larger q is SVMTorch's decomposition (Collobert & Bengio 2001,
        JMLR; Collobert's thesis ch. 5): the q/2 most violating variables of each side are
        selected at once, their q kernel rows computed in GEMM blocks, and the q-variable
        sub-problem solved by SMO steps on that cached block before the gradient of the others
        is updated.  Either way the solver stops on the same KKT rule (``tol``) and reaches the
        same optimum.  ``'auto'``: pairs on small data (4 MB) or when several one-vs-one
        problems share the whole kernel matrix, otherwise q up to 512 (half the rows the cache
        holds); the cache is enlarged to hold q rows if needed.
    precision : {'float32', 'float64'}, default='float32'
        Float type of the kernel values the solver reads.  ``'float32'`` (as LIBSVM's cache) is
        the fast path.  ``'float64'`` computes the whole kernel matrix once in float64
        (8 n^2 bytes, whatever ``cache_size``) and solves on it exactly: for callers that need
        duals and gradients to more digits than float32 gives (model selection's bounds and
        their derivatives).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels; for two classes ``decision_function > 0`` means ``classes_[1]``.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data, ordered by class.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The support vectors (empty for a precomputed kernel).
    n_support_ : ndarray of shape (n_classes,)
        Number of support vectors per class.
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
        ``y_i alpha_i`` in LIBSVM's one-vs-one layout (as scikit-learn).
    pair_dual_coef_ : ndarray of shape (n_SV, n_pairs)
        ``y_i alpha_i`` of each support vector in each binary problem (one column per pair of
        classes, in the order (0, 1), (0, 2), ..., (1, 2), ...; one column for two classes):
        the decision of pair p is ``K(X, support_vectors_) @ pair_dual_coef_[:, p] +
        intercept_[p]``.
    intercept_ : ndarray of shape (n_pairs,)
        The offset of each binary problem's decision.
    objective_ : float or ndarray of shape (n_pairs,)
        Dual objective ``1/2 a'Qa - sum a`` (per pair of classes for multi-class;
        ``- sum gamma_i a_i`` with ``margins``).
    n_iter_ : ndarray of shape (n_pairs,)
        Solver iterations per binary problem.
    fit_status_ : int
        0 converged, 1 max_iter reached, 2 interrupted, 3 stopped by the callback.
    interrupted_ : bool
        Whether the fit was interrupted (Ctrl-C) and kept the state reached.
    at_bound_ : ndarray of bool, shape (n_SV,)
        Support vectors whose alpha is at its upper bound (always False for 'l2'/'hard').
    kernel_ : kernelnb.kernels.Kernel
        The fitted kernel.
    sigma_ : float or None
        The RBF width used (``'scale'`` resolved).
    fit_time_ : float
        Seconds spent in ``fit``.
    n_kernel_rows_ : int
        Kernel rows computed by the solver (cache misses and prefetched rows), all problems
        together.
    q_ : int
        Working-set size used (2: pairs; the largest over the binary problems).

    References
    ----------
    Collobert, thesis ch. 5 (SVMTorch decomposition), and Collobert & Bengio, SVMTorch, JMLR 1,
    2001; Fan, Chen & Lin (2005), second-order working-set selection; Chapelle, thesis ch. 2 and 4
    (L2 margin).

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.svm import SVC
    >>> X, y = make_moons(n_samples=200, noise=0.2, random_state=0)
    >>> clf = SVC(C=10, sigma=0.5).fit(X[:150], y[:150])
    >>> clf.predict(X[150:155])
    array([1, 1, 0, 0, 1])
    >>> print(round(clf.score(X[150:], y[150:]), 2))
    0.98
    >>> print(clf.fit_status_)
    0
    """

    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "class_weight": [dict, str_options({"balanced"}), None],
        "decision_function_shape": [str_options({"ovr", "ovo"})],
    }

    def __init__(self, *, C=1.0, kernel="rbf", sigma="scale", scales=None, degree=3, coef0=1.0,
                 margin="l1", tol=1e-3, cache_size=200, max_iter=-1, shrinking=True,
                 class_weight=None, decision_function_shape="ovr", warm_start=False,
                 n_jobs=None, verbose=False, callback=None, q="auto", precision="float32"):
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.scales = scales
        self.degree = degree
        self.coef0 = coef0
        self.margin = margin
        self.tol = tol
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.class_weight = class_weight
        self.decision_function_shape = decision_function_shape
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback
        self.q = q
        self.precision = precision

    @fit_context
    def fit(self, X, y, sample_weight=None, *, alpha_init=None, margins=None):
        """Fit the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs, or the kernel matrix of shape (n_samples, n_samples) when
            ``kernel='precomputed'``.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies C per sample (weight 0 removes the sample).
        alpha_init : array-like of shape (n_samples,), default=None
            Two classes only: a warm start given as signed dual coefficients ``y_i alpha_i``
            for every training sample (the layout of ``dual_coef_`` expanded to all samples,
            ``y_i = +1`` for ``classes_[1]``).  It is clipped to the box and made feasible.
        margins : array-like of shape (n_samples,), default=None
            Per-sample margins ``gamma_i > 0`` (finite): the constraints become
            ``y_i f(x_i) >= gamma_i - xi_i`` and a unit of slack of sample i costs
            ``C_i / gamma_i``.  With ``margin='l1'`` this is the adaptive-width VRM-SVM of
            Chapelle's thesis §2.3.1 (primal ``min 1/2 ||w||^2 + C sum xi_i / gamma_i``, dual
            ``max sum gamma_i alpha_i - 1/2 a'(yy' o K)a``, ``sum y_i alpha_i = 0``,
            ``0 <= alpha_i <= C_i / gamma_i``); in the solver's terms ``p_i = -gamma_i`` and
            ``ub_i = C_i / gamma_i``.  With ``'l2'`` the slack term is ``C_i xi_i^2 / (2 gamma_i)``
            (diagonal ``gamma_i / C_i``), with ``'hard'`` only the margins change.  All ones is
            the plain SVM.  Multi-class: every one-vs-one problem uses the margins of its
            samples.  See :class:`kernelnb.prior.VicinalSVC`, which computes them from the
            data.

        Returns
        -------
        SVC
            The fitted classifier.
        """
        X, y = self._check_input(X, y)
        check_classification_targets(y)
        sw = check_sample_weight(sample_weight, X)
        if np.any(sw < 0):
            raise ValueError("sample_weight must be non-negative")
        classes, y_idx = np.unique(y, return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(f"SVC needs at least two classes in y; got 1 class ({classes[0]!r})")
        self.classes_ = classes
        gam = _check_margins(margins, X.shape[0])
        cw = self._class_weights(classes, y_idx)
        C_i = sw * cw[y_idx] * (1.0 if self._margin == "hard" else float(self.C))
        previous = getattr(self, "_alphas", None) if self.warm_start else None
        if previous is not None and getattr(self, "_fit_n", None) != X.shape[0]:
            previous = None
        if alpha_init is not None:
            if classes.shape[0] != 2:
                raise ValueError("alpha_init is for two classes; got "
                                 f"{classes.shape[0]} classes (use warm_start=True instead)")
            a_init = np.asarray(alpha_init, dtype=np.float64).ravel()
            if a_init.shape[0] != X.shape[0] or not np.all(np.isfinite(a_init)):
                raise ValueError(f"alpha_init must hold {X.shape[0]} finite values, got shape "
                                 f"{np.shape(alpha_init)}")
            keep = sw > 0
            previous = [np.abs(a_init[keep])]

        self.kernel_ = self._resolve_kernel(X, sw)
        n_cls = classes.shape[0]
        data = self._whole_kernel(self._solver_data(X), n_cls * (n_cls - 1) // 2)
        pairs = [(a, b) for a in range(n_cls) for b in range(a + 1, n_cls)]
        problems = []
        for p_i, (a, b) in enumerate(pairs):
            idx = np.flatnonzero(((y_idx == a) | (y_idx == b)) & (sw > 0))
            # Binary: +1 is classes_[1] so that decision > 0 means classes_[1] (scikit-learn);
            # multi-class pairs: +1 is the first class of the pair (LIBSVM's one-vs-one).
            pos = b if n_cls == 2 else a
            yv = np.where(y_idx[idx] == pos, 1, -1).astype(np.int8)
            if np.unique(yv).size < 2:
                raise ValueError("every class needs a sample with positive weight; class "
                                 f"{classes[a if (yv > 0).all() else b]!r} has none")
            # margins gamma_i: linear term -gamma_i, slack price C_i / gamma_i (box or diagonal)
            ub, dadd = self._bounds(C_i[idx] / gam[idx])
            a0 = np.zeros(idx.shape[0])
            if previous is not None and p_i < len(previous) and previous[p_i].shape == a0.shape:
                a0 = previous[p_i]
            prefix = "" if n_cls == 2 else f"classes {classes[a]!r}/{classes[b]!r}: "
            problems.append((idx, yv, ub, dadd, a0, prefix, -gam[idx]))
        results = self._solve_all(data, problems)
        alphas = [r["alpha"] for r in results]
        self._alphas = alphas
        self._fit_n = X.shape[0]
        self._assemble(X, y_idx, results, pairs)
        self._report_status([r["status"] for r in results])
        return self

    @property
    def _coef_matrix(self):
        return self.pair_dual_coef_

    def _solve_all(self, data, problems):
        """Solve the binary problems: one at a time with all threads on its kernel blocks, or
        (several problems) concurrently, one thread each, largest first.  BLAS is limited to
        one thread meanwhile so that only the solver's threads use the cores."""
        n_threads = self._n_threads()
        results = [None] * len(problems)
        stop = threading.Event()

        def run(k, threads, share):
            idx, yv, ub, dadd, a0, prefix, lin = problems[k]
            res = self._solve(data, idx, yv, np.arange(idx.shape[0]), lin,
                              ub, dadd, a0, prefix, max_iter=0 if stop.is_set() else None,
                              n_threads=threads, cache_share=share,
                              stop=stop if n_workers > 1 else None)
            if res["status"] == 2:
                stop.set()
            res.update(idx=idx, yv=yv, ub=ub)
            results[k] = res

        n_workers = min(n_threads, len(problems))
        with blas_single_thread():
            if n_workers <= 1:
                for k in range(len(problems)):
                    run(k, n_threads, 1)
            else:
                order = sorted(range(len(problems)), key=lambda k: -problems[k][0].shape[0])
                with ThreadPoolExecutor(max_workers=n_workers) as pool:
                    futures = [pool.submit(run, k, 1, n_workers) for k in order]
                    try:
                        for f in futures:
                            f.result()
                    except KeyboardInterrupt:
                        stop.set()
                        for f in futures:
                            f.result()
                        for r in results:
                            if r is not None and r["status"] == 3:
                                r["status"] = 2
        return results

    def _class_weights(self, classes, y_idx):
        cw = np.ones(classes.shape[0])
        if self.class_weight is None:
            return cw
        if isinstance(self.class_weight, str):
            if self.class_weight != "balanced":
                raise ValueError(f"class_weight must be a dict, 'balanced' or None, got "
                                 f"{self.class_weight!r}")
            counts = np.bincount(y_idx, minlength=classes.shape[0])
            return y_idx.shape[0] / (classes.shape[0] * np.maximum(counts, 1))
        if not isinstance(self.class_weight, dict):
            raise ValueError(f"class_weight must be a dict, 'balanced' or None, got {self.class_weight!r}")
        for label, w in self.class_weight.items():
            where = np.flatnonzero(classes == label)
            if where.size == 0:
                raise ValueError(f"class_weight names the label {label!r}, which is not in y")
            if not w > 0:
                raise ValueError(f"class_weight[{label!r}] must be positive, got {w!r}")
            cw[where[0]] = float(w)
        return cw

    def _assemble(self, X, y_idx, results, pairs):
        """Build scikit-learn's attributes from the per-pair dual solutions."""
        n, n_cls = X.shape[0], self.classes_.shape[0]
        coef_full = np.zeros((n, len(pairs)))
        for p_i, res in enumerate(results):
            coef_full[res["idx"], p_i] = res["yv"] * res["alpha"]
        is_sv = np.any(coef_full != 0, axis=1)
        # Support vectors ordered by class, then by index (LIBSVM / scikit-learn layout).
        order = np.concatenate([np.flatnonzero(is_sv & (y_idx == c)) for c in range(n_cls)])
        self.support_ = order.astype(np.int32)
        self.n_support_ = np.array([np.sum(is_sv & (y_idx == c)) for c in range(n_cls)], dtype=np.int32)
        if isinstance(self.kernel_, _k.Precomputed):
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[self.support_]
        self.shape_fit_ = X.shape
        self._prepare_prediction(X)
        self.pair_dual_coef_ = coef_full[self.support_]
        sv_class = y_idx[self.support_]
        if n_cls == 2:
            self.dual_coef_ = self.pair_dual_coef_.T.copy()
        else:
            dual = np.zeros((n_cls - 1, self.support_.shape[0]))
            for p_i, (a, b) in enumerate(pairs):
                in_a, in_b = sv_class == a, sv_class == b
                dual[b - 1, in_a] = self.pair_dual_coef_[in_a, p_i]
                dual[a, in_b] = self.pair_dual_coef_[in_b, p_i]
            self.dual_coef_ = dual
        self.intercept_ = -np.array([r["rho"] for r in results])
        self.n_iter_ = np.array([r["n_iter"] for r in results], dtype=np.int64)
        self.n_kernel_rows_ = int(sum(r["n_kernel_rows"] for r in results))
        self.q_ = int(max(r["q"] for r in results))
        objs = np.array([r["objective"] for r in results])
        self.objective_ = float(objs[0]) if n_cls == 2 else objs
        if n_cls == 2:
            res = results[0]
            pos = np.searchsorted(res["idx"], self.support_)
            self.at_bound_ = (self._margin == "l1") & (res["alpha"][pos] >= res["ub"][pos])
        else:
            self.at_bound_ = np.zeros(self.support_.shape[0], dtype=bool)
            C_full = np.full(n, np.inf)
            for res in results:
                at = (self._margin == "l1") & (res["alpha"] >= res["ub"])
                C_full[res["idx"][at]] = -1
            self.at_bound_ = C_full[self.support_] < 0
        self._pairs = pairs

    def decision_function(self, X):
        """Decision values of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, or the kernel between them and the training points when
            ``kernel='precomputed'``.

        Returns
        -------
        ndarray of shape (n_samples,), (n_samples, n_classes) or (n_samples, n_pairs)
            For two classes, positive means ``classes_[1]``; for more, one column per class
            (``decision_function_shape='ovr'``) or per pair of classes (``'ovo'``).
        """
        dec = self._pair_decisions(X)
        n_cls = self.classes_.shape[0]
        if n_cls == 2:
            return dec[:, 0]
        if self.decision_function_shape == "ovo":
            return dec
        return _ovo_to_ovr(dec, self._pairs, n_cls)

    def predict(self, X):
        """Predict the classes of ``X`` (one-vs-one votes for more than two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, or the kernel between them and the training points when
            ``kernel='precomputed'``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted labels, taken from ``classes_``.
        """
        positive = self._pair_positive(X)
        n_cls = self.classes_.shape[0]
        if n_cls == 2:
            return self.classes_[positive[:, 0].astype(int)]
        votes = np.zeros((positive.shape[0], n_cls), dtype=np.int64)
        for p_i, (a, b) in enumerate(self._pairs):
            pos = positive[:, p_i]
            votes[pos, a] += 1
            votes[~pos, b] += 1
        return self.classes_[np.argmax(votes, axis=1)]


def _check_margins(margins, n):
    """The per-sample margins of :meth:`SVC.fit` as a float64 array (all ones when None)."""
    if margins is None:
        return np.ones(n)
    try:
        gam = np.asarray(margins, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"margins must be an array of {n} positive finite numbers, got "
                         f"{type(margins).__name__}") from None
    if gam.ndim != 1 or gam.shape[0] != n:
        raise ValueError(f"margins must have shape ({n},) (one per sample), got shape "
                         f"{gam.shape}")
    bad = ~(np.isfinite(gam) & (gam > 0))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"margins must be positive and finite; margins[{i}] = "
                         f"{float(gam[i])!r}")
    return gam


def _ovo_to_ovr(dec, pairs, n_cls):
    """One-vs-rest scores from one-vs-one decisions: votes, plus the summed confidences squashed
    into (-1/3, 1/3) so that they only break ties between equal vote counts."""
    votes = np.zeros((dec.shape[0], n_cls))
    conf = np.zeros((dec.shape[0], n_cls))
    for p_i, (a, b) in enumerate(pairs):
        pos = dec[:, p_i] > 0
        votes[pos, a] += 1
        votes[~pos, b] += 1
        conf[:, a] += dec[:, p_i]
        conf[:, b] -= dec[:, p_i]
    return votes + conf / (3.0 * (np.abs(conf) + 1.0))


class SVR(RegressorMixin, _BaseSVM):
    """Epsilon-support vector regression (SVMTorch's regression; Collobert's thesis ch. 5).

    The dual has two variables per example (alpha and alpha*) sharing one kernel row; the
    solver selects them independently, as SVMTorch does.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the residuals outside the tube (> 0, finite).
    epsilon : float, default=0.1
        Half-width of the insensitive tube (>= 0).
    kernel : {'rbf', 'linear', 'poly', 'precomputed'} or callable, default='rbf'
        The kernel; a callable ``f(X, Y) -> K`` is evaluated in blocks outside the solver.
    sigma : float or 'scale', default='scale'
        RBF width: ``k(x, y) = exp(-||s (x - y)||^2 / (2 sigma^2))``; ``'scale'`` as in
        :class:`SVC` (the default, as scikit-learn's ``gamma='scale'``).
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors ``s`` of the RBF kernel (None: all ones).
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel (the ``(1 + x.z)^p`` of the theses).
    margin : {'l1'}, default='l1'
        The formulation: only the linear slack of epsilon-SVR is supported.
    tol : float, default=1e-3
        Stop when the maximal KKT violation is at most ``tol``.
    cache_size : float, default=200
        Memory in MB for kernel values (float32 rows).
    max_iter : int, default=-1
        Iteration limit (-1: none).
    shrinking : bool, default=True
        Shrinking of bound variables (with a final check on the whole problem).
    warm_start : bool, default=False
        Start from the previous fit's dual variables (same data).
    n_jobs : int or None, default=None
        Threads used for the kernel blocks.  None: the threads the context allows (every core,
        at most ``OMP_NUM_THREADS`` or a threadpoolctl OpenMP limit); -1: every core; k: k.
    verbose : bool, default=False
        Print the KKT gap and dual objective every 1000 iterations.
    callback : callable, default=None
        ``callback(info)`` is called every 1000 iterations with a dict (``iteration``,
        ``kkt_gap``, ``objective``, ``problem``); returning ``False`` stops the solver
        (``fit_status_=3``).
    q : 'auto' or int, default='auto'
        Working-set size, an even integer >= 2 (2: SMO pairs; larger: SVMTorch's blocks of
        rows), as in :class:`SVC`.
    precision : {'float32', 'float64'}, default='float32'
        Float type of the kernel values the solver reads (``'float64'``: the whole kernel
        matrix once, exact duals).

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The support vectors (empty for a precomputed kernel).
    n_support_ : ndarray of shape (1,)
        Number of support vectors.
    dual_coef_ : ndarray of shape (1, n_SV)
        ``alpha_i - alpha*_i`` of the support vectors.
    intercept_ : ndarray of shape (1,)
        The offset b of ``f(x) = sum_i dual_coef_i k(x_i, x) + b``.
    objective_ : float
        Dual objective at the solution.
    n_iter_ : int
        Solver iterations.
    fit_status_ : int
        0 converged, 1 max_iter reached, 2 interrupted, 3 stopped by the callback.
    interrupted_ : bool
        Whether the fit was interrupted (Ctrl-C) and kept the state reached.
    at_bound_ : ndarray of bool, shape (n_SV,)
        Support vectors whose coefficient is at the bound C.
    kernel_ : kernelnb.kernels.Kernel
        The fitted kernel.
    sigma_ : float or None
        The RBF width used.
    fit_time_ : float
        Seconds spent in ``fit``.
    n_kernel_rows_ : int
        Kernel rows computed by the solver.
    q_ : int
        Working-set size used.

    References
    ----------
    Collobert, thesis ch. 5, and Collobert & Bengio, SVMTorch, JMLR 1, 2001.

    Examples
    --------
    >>> from kernelnb.datasets import make_sinc
    >>> from kernelnb.svm import SVR
    >>> X, y = make_sinc(n_samples=100, noise=0.05, random_state=0)
    >>> reg = SVR(C=10, epsilon=0.05, sigma=1.0).fit(X, y)
    >>> print(reg.fit_status_, reg.predict(X[:3]).shape)
    0 (3,)
    >>> print(round(reg.score(X, y), 2))
    0.97
    """

    _parameter_constraints = {**_BaseSVM._parameter_constraints, "epsilon": NONNEGATIVE}

    def __init__(self, *, C=1.0, epsilon=0.1, kernel="rbf", sigma="scale", scales=None, degree=3,
                 coef0=1.0, margin="l1", tol=1e-3, cache_size=200, max_iter=-1, shrinking=True,
                 warm_start=False, n_jobs=None, verbose=False, callback=None, q="auto",
                 precision="float32"):
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.sigma = sigma
        self.scales = scales
        self.degree = degree
        self.coef0 = coef0
        self.margin = margin
        self.tol = tol
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback
        self.q = q
        self.precision = precision

    def _check_params_extra(self):
        super()._check_params_extra()
        if self.margin != "l1":
            raise ValueError(f"SVR supports margin='l1' only, got {self.margin!r}")
        if not np.isfinite(self.C):
            raise ValueError(f"SVR needs a finite C, got {self.C!r}")

    @fit_context
    def fit(self, X, y, sample_weight=None, *, alpha_init=None):
        """Fit the regressor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs, or the kernel matrix of shape (n_samples, n_samples) when
            ``kernel='precomputed'``.
        y : array-like of shape (n_samples,)
            Real targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies C per sample (weight 0 removes the sample).
        alpha_init : array-like of shape (n_samples,), default=None
            A warm start given as the coefficients ``alpha_i - alpha*_i`` of every training
            sample (``dual_coef_`` expanded to all samples).

        Returns
        -------
        SVR
            The fitted regressor.
        """
        X, y = self._check_input(X, y, y_numeric=True)
        eps = float(self.epsilon)
        y = np.asarray(y, dtype=np.float64)
        sw = check_sample_weight(sample_weight, X)
        if np.any(sw < 0):
            raise ValueError("sample_weight must be non-negative")
        self.kernel_ = self._resolve_kernel(X, sw)
        data = self._whole_kernel(self._solver_data(X))
        idx = np.flatnonzero(sw > 0)
        if idx.size == 0:
            raise ValueError("sample_weight is zero for every sample")
        m = idx.shape[0]
        C_i = float(self.C) * sw[idx]
        yv = np.concatenate([np.ones(m), -np.ones(m)])
        ex = np.concatenate([np.arange(m), np.arange(m)])
        p = np.concatenate([eps - y[idx], eps + y[idx]])
        ub = np.concatenate([C_i, C_i])
        a0 = np.zeros(2 * m)
        prev = getattr(self, "_alpha2", None) if self.warm_start else None
        if prev is not None and prev.shape == a0.shape:
            a0 = prev
        if alpha_init is not None:
            c = np.asarray(alpha_init, dtype=np.float64).ravel()
            if c.shape[0] != X.shape[0] or not np.all(np.isfinite(c)):
                raise ValueError(f"alpha_init must hold {X.shape[0]} finite values, got shape "
                                 f"{np.shape(alpha_init)}")
            c = c[idx]
            a0 = np.concatenate([np.maximum(c, 0.0), np.maximum(-c, 0.0)])
        with blas_single_thread():
            res = self._solve(data, idx, yv, ex, p, ub, np.zeros(2 * m), a0,
                              n_threads=self._n_threads())
        self._alpha2 = res["alpha"]
        coef = np.zeros(X.shape[0])
        coef[idx] = res["alpha"][:m] - res["alpha"][m:]
        self.support_ = np.flatnonzero(coef != 0).astype(np.int32)
        self.support_vectors_ = (np.empty((0, 0)) if isinstance(self.kernel_, _k.Precomputed)
                                 else X[self.support_])
        self.shape_fit_ = X.shape
        self._prepare_prediction(X)
        self.n_support_ = np.array([self.support_.shape[0]], dtype=np.int32)
        self.dual_coef_ = coef[self.support_][None, :]
        self.intercept_ = np.array([-res["rho"]])
        self.n_iter_ = int(res["n_iter"])
        self.n_kernel_rows_ = int(res["n_kernel_rows"])
        self.q_ = int(res["q"])
        self.objective_ = float(res["objective"])
        full_ub = np.zeros(X.shape[0])
        full_ub[idx] = C_i
        self.at_bound_ = np.abs(coef[self.support_]) >= full_ub[self.support_]
        self._report_status(res["status"])
        return self

    def predict(self, X):
        """Predict the targets of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, or the kernel between them and the training points when
            ``kernel='precomputed'``.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``f(x) = sum_i dual_coef_i k(x_i, x) + intercept_``.
        """
        return self._pair_decisions(X)[:, 0]


def svc_path(X, y, *, Cs, **params):
    """Fit one :class:`SVC` per value of C, each warm-started from the previous solution.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training inputs.
    y : array-like of shape (n_samples,)
        Class labels.
    Cs : array-like of float
        The values of C (> 0), in any order; they are fitted in increasing order.
    **params : dict
        The other parameters of :class:`SVC` (keyword arguments of its constructor).

    Returns
    -------
    list of SVC
        One fitted model per value of ``Cs``, in increasing order of C.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.svm import svc_path
    >>> X, y = make_moons(n_samples=100, noise=0.2, random_state=0)
    >>> path = svc_path(X, y, Cs=[10, 0.1, 1], sigma=0.5)
    >>> [m.C for m in path]
    [0.1, 1.0, 10.0]
    """
    Cs = np.sort(np.asarray(Cs, dtype=np.float64).ravel())
    if Cs.size == 0 or np.any(~(Cs > 0)):
        raise ValueError(f"Cs must be positive numbers, got {Cs!r}")
    model = SVC(**params).set_params(warm_start=True)
    out = []
    for C in Cs:
        model.set_params(C=float(C)).fit(X, y)
        fitted = SVC(**{**params, "C": float(C)})
        fitted.__dict__.update({k: v for k, v in model.__dict__.items() if k.endswith("_") or k.startswith("_")})
        fitted.warm_start = params.get("warm_start", False)
        out.append(fitted)
    return out
