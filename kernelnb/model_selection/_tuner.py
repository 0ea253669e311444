"""GradientTuner: choose C, sigma and scaling factors by minimising a bound (thesis ch. 4).

The loop of Chapelle's thesis, ch. 4: train the SVM at theta = (log C, log sigma, log scales), compute
the criterion T and its gradient (:func:`criterion_and_gradient`), take a quasi-Newton step
(scipy's L-BFGS-B), repeat.  Every SVM is warm-started from the previous solution's duals, and
the last evaluations are cached so that scipy's ``fun`` and ``jac`` never train twice at a point.
"""
from __future__ import annotations

import time
import warnings

import numpy as np
from scipy.optimize import minimize
from .._estimator import BaseEstimator
from sklearn.base import ClassifierMixin, clone
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .. import kernels as _k
from .._config import get_config
from .._fit import fit_context
from .._validation import (CALLBACK, NONNEGATIVE, NONNEGATIVE_INT, POSITIVE, str_options,
                           check_input)
from ..svm import SVC
from ._gradient import CRITERIA, RADII, _check_tune, criterion_and_gradient, full_dual

__all__ = ["GradientTuner"]


class _Stop(Exception):
    """Raised from the iteration callback to end the optimisation."""


class GradientTuner(ClassifierMixin, BaseEstimator):
    """Tune an SVC's C, sigma and/or scaling factors by gradient descent on a bound.

    Minimises the radius-margin bound ``R^2 ||w||^2`` or the smoothed span estimate of the
    leave-one-out error over the logarithms of the tuned parameters with L-BFGS-B (a
    quasi-Newton method; the thesis used second-order updates with a loose stopping rule,
    ch. 4.5.1).
    The criterion is minimised through its logarithm, which has the same minimiser and makes
    the stopping tolerance relative.

    Parameters
    ----------
    estimator : SVC or None, default=None
        The starting point and fixed settings (kernel, margin, tol, ...).  ``None`` means
        ``SVC(margin='l2', C=1, sigma='scale')``: the thesis starts from C = 1 on standardised
        inputs; ``sigma='scale'`` (scikit-learn's ``gamma='scale'``) gives
        ``sigma = sqrt(n_features * Var(X) / 2)``, i.e. about ``sqrt(n_features / 2)`` on
        standardised inputs, a width of the order of the distances between points.
        Tuning ``'C'`` or the ``'span'`` criterion needs the L2 soft margin
        (``margin='l2'``: a hard margin on ``K + I/C``, where C is a kernel parameter and the
        criteria are differentiable in it, thesis ch. 4.2): an SVC with ``margin='l1'`` (the
        package's default ``SVC()``) is then tuned in the L2 formulation, with its other
        settings kept; ``margin_`` says which formulation was tuned.
    criterion : {'radius_margin', 'span'}, default='radius_margin'
        The criterion minimised: the radius-margin bound ``R^2 ||w||^2`` or the smoothed span
        estimate (see :func:`criterion_and_gradient`).
    tune : sequence of {'C', 'sigma', 'scales'}, default=('C', 'sigma')
        Parameters tuned (in log scale).  ``'scales'``: one factor per feature, starting from
        the estimator's ``scales`` (RBF) or ones; for 'linear'/'poly' kernels they multiply the
        inputs (also at prediction).
    radius : {'variance', 'sphere'}, default='variance'
        R^2 of the radius-margin bound (see :func:`criterion_and_gradient`).
    max_iter : int, default=30
        Maximum number of quasi-Newton iterations.
    tol : float, default=1e-3
        Stop when the projected gradient of log T falls below ``tol`` in every tuned log
        parameter: moving C or sigma by a factor e would then change T by less than
        ``100 * tol`` percent to first order.  The default 1e-3 is the thesis's "loose
        stopping criterion" (ch. 4.5.1: the exact minimiser is not needed).  A
        relative-decrease test on log T per iteration would stop the search in flat valleys of
        T far from their minimum (see Notes).
    verbose : bool, default=False
        Print one line per iteration.
    callback : callable or None, default=None
        ``callback(record)``, called after every iteration with the record appended to
        ``history_``; returning ``False`` stops the optimisation.
    refit : bool, default=True
        Keep the SVM trained at the best point as ``best_estimator_`` (it was trained on all of
        ``X`` during the search: no extra training).  ``predict`` needs it.
    span_regularization : float, default=0.1
        ``eta`` of the regularised span (criterion 'span').
    log_bounds : tuple of (float, float), default=(-12.0, 12.0)
        Box on every log parameter (absolute log values, not relative to the start) keeping
        the SVMs well-posed.

    Attributes
    ----------
    best_params_ : dict
        ``C``, ``sigma`` (RBF) and ``scales`` (array) at the lowest criterion evaluated.
    best_estimator_ : SVC
        The SVM at ``best_params_`` (``refit=True``).
    margin_ : str
        The soft margin of the SVMs trained in the search: ``'l2'`` when the estimator's
        ``margin='l1'`` was replaced (see ``estimator``), else the estimator's own.
    scales_ : ndarray of shape (n_features,)
        The scaling factors at ``best_params_``.
    criterion_ : float
        The criterion at ``best_params_``.
    history_ : list of dict
        One record per iteration (iteration 0 is the start): ``iteration``, ``criterion``,
        ``C``, ``sigma``, ``scales`` (copy), ``n_trainings`` so far, ``training_error``,
        ``n_SV``, ``time`` (seconds since fit started).
    n_trainings_ : int
        SVMs trained (one per distinct point evaluated).
    n_iter_ : int
        Quasi-Newton iterations done.
    stop_reason_ : str
        scipy's message (``'CONVERGENCE: NORM OF PROJECTED GRADIENT <= PGTOL'`` when the
        stopping rule was met), ``'callback'``, ``'max_iter=0'`` or ``'interrupted'``.
    interrupted_ : bool
        Whether ``fit`` was interrupted (Ctrl-C or a dashboard's stop).
    fit_time_ : float
        Seconds of the whole fit.
    classes_ : ndarray of shape (2,)
        The class labels.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Notes
    -----
    Ctrl-C during ``fit`` propagates.  Under
    ``kernelnb.config_context(keep_partial_on_interrupt=True)`` it stops the search with one
    warning and keeps the best point so far (``interrupted_ = True``,
    ``stop_reason_ = 'interrupted'``); an interrupt before the first SVM is trained propagates
    even then.

    The stopping rule and the first step (checked on the bundled UCI sets, see
    ``benchmarks/bench_tuner_uci.py``).  From the default start the search reaches the minimum
    of T that a dense grid of evaluations finds; the few trainings it takes there come from
    the start (sigma='scale') lying close to the minimiser of R^2 ||w||^2 on standardised
    inputs, not from an early stop.  From other starts, two defects of the earlier rule
    stopped it after one or a few iterations with ``|d log T / d theta|`` still at 0.01-0.03:

    * L-BFGS-B takes ``-grad`` itself as its first trial step when every variable is boxed
      (bounds on both sides), i.e. a step of ~0.02 in log C from C = 0.01;
    * its relative-decrease test (``ftol``) fired in the long flat valleys of log T (large C
      on separable data, where ``d log T / d log C`` is ~0.01 over several units of log C).

    The search now scales its variables so that the first trial step has length 1 in the
    log parameters (what L-BFGS-B does for unbounded variables) and stops on the projected
    gradient (``tol``); a relative decrease of log T under 1e-9 per iteration remains as a
    guard, and scipy's budget of evaluations (``maxfun``) is ``2 * max_iter`` trainings.

    T is not convex in (log C, log sigma): it also decreases towards the plateau sigma -> 0
    (K = I, every point a support vector, zero gradient) and towards large sigma (the linear
    limit).  From a start far from the minimiser, e.g. C = 100 on Pima or C = 0.01 on Sonar,
    T can be lower on those sides than at the start, and the search (any descent method)
    may end there; from C = 1, sigma = 'scale' it did not on the bundled sets.  When the
    search ends on the first plateau (the median kernel value between a point and its
    nearest neighbour below 1e-4) ``fit`` warns (``RuntimeWarning``).

    The start stays ``sigma='scale'`` rather than the thesis's ``log sigma = -2`` in its
    kernel ``exp(-||x - y||^2 / (2 n sigma^2))`` (n the input dimension): that is sigma =
    0.14 sqrt(n) here, where the kernel of two points at the typical squared distance 2n of
    standardised inputs is exp(-54) (only near neighbours interact): on the bundled UCI sets
    the search reached the same minimum from there, with up to three times more trainings
    than from 'scale'.  The variance radius stays the default (thesis ch. 4.4: "better to
    use the variance ... than the radius"): on Sonar both radii had their minimum at the same
    point of a dense (C, sigma) grid; on Pima and breast cancer the sphere's minimiser lay
    at a smaller C and sigma, with test errors within half a point of the variance's.

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.model_selection import GradientTuner
    >>> X, y = make_moons(n_samples=60, noise=0.2, random_state=0)
    >>> tuner = GradientTuner(max_iter=5).fit(X, y)
    >>> print(sorted(tuner.best_params_))
    ['C', 'scales', 'sigma']
    >>> print(tuner.criterion_ <= tuner.history_[0]["criterion"])
    True
    >>> print(tuner.predict(X[:3]).shape)
    (3,)
    """

    # One table (kernelnb._validation) checked by fit_context; _check_params_extra adds the
    # relations.
    _parameter_constraints = {
        "estimator": [SVC, None],
        "criterion": [str_options(set(CRITERIA))],
        "tune": [str, "array-like"],
        "radius": [str_options(set(RADII))],
        "max_iter": NONNEGATIVE_INT,
        "tol": POSITIVE,
        "verbose": ["verbose"],
        "callback": CALLBACK,
        "refit": ["boolean"],
        "span_regularization": NONNEGATIVE,
        "log_bounds": ["array-like"],
    }
    # Relative decrease of log T per iteration under which L-BFGS-B stops: a guard only (the
    # stopping rule is the projected gradient, ``tol``); see _minimize.
    _FTOL = 1e-9
    # Trainings allowed per iteration (scipy's maxfun = this * max_iter).
    _MAXFUN_PER_ITER = 2

    def __init__(self, estimator=None, *, criterion="radius_margin", tune=("C", "sigma"),
                 radius="variance", max_iter=30, tol=1e-3, verbose=False, callback=None,
                 refit=True, span_regularization=0.1, log_bounds=(-12.0, 12.0)):
        self.estimator = estimator
        self.criterion = criterion
        self.tune = tune
        self.radius = radius
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.callback = callback
        self.refit = refit
        self.span_regularization = span_regularization
        self.log_bounds = log_bounds

    def _check_params_extra(self):
        """The rules the parameter table cannot state: the names of ``tune``, the box."""
        _check_tune(self.tune)
        self._log_bounds()

    def _log_bounds(self):
        """``log_bounds`` as two floats ``low < high``."""
        try:
            lo, hi = (float(v) for v in self.log_bounds)
        except (TypeError, ValueError):
            raise ValueError(f"log_bounds must be a pair (low, high), got {self.log_bounds!r}") from None
        if not lo < hi:
            raise ValueError(f"log_bounds must satisfy low < high, got {self.log_bounds!r}")
        return lo, hi

    @fit_context
    def fit(self, X, y):
        """Search the parameters on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Training labels (two classes).

        Returns
        -------
        self : GradientTuner
            The fitted tuner.
        """
        t_start = time.perf_counter()
        est = SVC(margin="l2", C=1.0, sigma="scale") if self.estimator is None else self.estimator
        tune, bounds = _check_tune(self.tune), self._log_bounds()
        est = self._formulation(est, tune)
        X, y = self._check_data(X, y, est)
        params = _LogParameters(tune, est.kernel, *_start_point(est, X), bounds)
        search = _Search(self, est, X, y, params, t_start)
        self.history_ = search.history
        try:
            reason = self._run(search, params.theta0, bounds)
        except KeyboardInterrupt:
            if get_config()["keep_partial_on_interrupt"]:
                self._interrupted_search = (search, params)     # for _on_interrupt
            raise
        self._keep_best(search, reason, params)
        return self

    def _on_interrupt(self):
        """After Ctrl-C in ``fit``: keep the best point evaluated so far, if there is one (the
        fit wrapper then warns once and sets ``interrupted_``)."""
        search, params = self.__dict__.pop("_interrupted_search", (None, None))
        if search is None or search.best is None:
            return False
        self._keep_best(search, "interrupted", params)
        return True

    def _formulation(self, est, tune):
        """``est``, or its clone in the L2 soft margin where the search needs it; sets
        ``margin_``.

        The radius-margin and span gradients in C hold for the L2 soft margin, where C enters
        the kernel ``K + I/C`` (thesis ch. 4.2); with the L1 margin C is a box, the bound is not
        differentiable in it and the span formula needs every support vector on the margin.
        """
        l1 = est.margin == "l1" and not np.isinf(est.C)
        if l1 and ("C" in tune or self.criterion == "span"):
            est = clone(est).set_params(margin="l2")
            if self.verbose:
                print("[GradientTuner] the estimator has margin='l1': tuning the L2 soft margin "
                      "(margin='l2', C folded into the kernel K + I/C)", flush=True)
        self.margin_ = "hard" if np.isinf(est.C) else est.margin
        return est

    def _check_data(self, X, y, est):
        """``(X, y)`` checked (two classes); sets ``classes_``."""
        X, y = check_input(self, X, y, order="C", precision=est.precision)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] != 2:
            raise ValueError("Only binary classification is supported: GradientTuner tunes one "
                             f"binary SVM; y has {self.classes_.shape[0]} classes")
        return X, y

    def _run(self, search, theta0, bounds):
        """Record the start, then run L-BFGS-B; returns why the search stopped."""
        try:
            search.record(theta0, 0)
            if self.max_iter > 0:
                return self._minimize(search, theta0, bounds)
            return "max_iter=0"
        except _Stop:
            return "callback"

    def _minimize(self, search, theta0, bounds):
        """scipy's L-BFGS-B on log T over the box ``bounds``; returns scipy's message.

        Two things make L-BFGS-B's defaults wrong for this criterion (see the class Notes):

        * With every variable boxed, L-BFGS-B's first trial step is ``-grad`` itself (step
          length 1; unbounded variables get a unit-length step).  The gradient of log T is
          often ~0.01 per unit of log parameter, so the first step moved the parameters by
          ~1 % and its decrease fell under any relative-decrease test.  The search therefore
          runs in the variable ``u = (theta - theta0) / s`` with ``s = |grad_0|^(-1/2)``: the
          first trial step has length 1 in ``theta`` (a factor e on C or sigma); after it the
          quasi-Newton curvature pairs set the steps, as without the scaling.
        * Log T is flat over long ranges of log C (data separable at large C) and of log sigma:
          a per-iteration relative-decrease test (scipy's ``ftol``) stopped the search in such
          valleys while the gradient still pointed to a point with a much smaller T.  The
          stopping rule is the projected gradient of log T (``tol``), with ``ftol`` at
          ``_FTOL`` only as a guard against stagnation.
        """
        g0 = search.log_criterion(theta0)[1]
        norm = float(np.linalg.norm(g0))
        s = 1.0 / np.sqrt(norm) if norm > 0 and np.isfinite(norm) else 1.0
        lo, hi = bounds
        ubounds = [((lo - t) / s, (hi - t) / s) for t in theta0]

        def to_theta(u):
            return np.clip(theta0 + s * np.asarray(u, dtype=np.float64), lo, hi)

        def fun(u):
            f, g = search.log_criterion(to_theta(u))
            return f, s * g

        def callback(intermediate_result):
            search.on_iteration(to_theta(intermediate_result.x))

        res = minimize(fun, np.zeros_like(theta0), jac=True, method="L-BFGS-B",
                       callback=callback, bounds=ubounds,
                       options={"maxiter": int(self.max_iter), "ftol": self._FTOL,
                                "gtol": float(self.tol) * s,
                                "maxfun": self._MAXFUN_PER_ITER * int(self.max_iter)})
        return str(res.message)

    def _keep_best(self, search, reason, params):
        """The fitted attributes from the best point evaluated."""
        best = search.best
        self.n_iter_ = search.n_iter
        self.stop_reason_ = reason
        self.n_trainings_ = search.n_train
        self.criterion_ = float(best["value"])
        self.best_params_ = {"C": best["C"]}
        if params.kind == "rbf":
            self.best_params_["sigma"] = best["sigma"]
        self.best_params_["scales"] = best["scales"].copy()
        self.scales_ = best["scales"].copy()
        self._scale_inputs = params.kind != "rbf" and "scales" in params.slices
        if self.refit:
            self.best_estimator_ = best["fitted"]
        if params.kind == "rbf":
            _warn_if_isolated(best, search.X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # ------------------------------------------------------------------------------------
    def _inputs(self, X):
        check_is_fitted(self, "best_estimator_")
        X = check_input(self, X, order="C", reset=False,
                        precision=getattr(self.best_estimator_, "precision", None))
        return X * self.scales_ if self._scale_inputs else X

    def decision_function(self, X):
        """The decision values of ``best_estimator_``."""
        X = self._inputs(X)
        return self.best_estimator_.decision_function(X)

    def predict(self, X):
        """Class labels predicted by ``best_estimator_``."""
        X = self._inputs(X)
        return self.best_estimator_.predict(X)


# Below this kernel value between a point and its nearest neighbour the point is isolated.
_ISOLATED = 1e-4


def _warn_if_isolated(best, X):
    """Warn when the RBF width at the best point is far below the distances between points.

    There the kernel matrix is nearly the identity, every point is a support vector, T is
    flat and its gradient vanishes (exp(-d^2 / (2 sigma^2)) underflows): a search that starts
    there stops at once, e.g. sigma = 1 on the 60 standardised features of Sonar, whose
    points are ~11 apart.
    """
    K = np.array(best["fitted"].kernel_(X), dtype=np.float64)
    np.fill_diagonal(K, 0.0)
    nearest = np.median(K.max(axis=1))
    if nearest < _ISOLATED:
        warnings.warn(f"GradientTuner ended at sigma={best['sigma']:.3g}, where the kernel value "
                      f"between a point and its nearest neighbour is {nearest:.1e} (median): the "
                      "kernel matrix is nearly the identity and the criterion is flat there. "
                      "Start from a wider kernel, e.g. the default sigma='scale'.",
                      RuntimeWarning, stacklevel=5)


def _start_point(est, X):
    """``C``, ``sigma`` (RBF, resolved on ``X``; else None) and scales the search starts from."""
    d = X.shape[1]
    C0 = float(est.C)
    if est.kernel == "rbf" and est.scales is not None:
        s0 = np.asarray(est.scales, dtype=np.float64).ravel()
    else:
        s0 = np.ones(d)
    if s0.shape[0] != d:
        raise ValueError(f"the estimator's scales have {s0.shape[0]} entries but X has {d} "
                         "features")
    sigma0 = None
    if est.kernel == "rbf":
        sigma0 = _k.KernelSpec.of(est, scales=s0).resolve_sigma(X)
    return C0, sigma0, s0


class _LogParameters:
    """The parameters <-> ``theta``, the vector of the logarithms of the tuned ones.

    ``slices[name]`` locates a tuned parameter in ``theta``; the others keep their starting
    values.  ``theta0`` is the start, clipped to the box ``bounds``.
    """

    def __init__(self, tune, kind, C0, sigma0, s0, bounds):
        self.kind = kind
        self.C0, self.sigma0, self.s0 = C0, sigma0, s0
        self.slices, theta0 = {}, []
        for name in tune:
            if name == "C":
                self.slices[name] = slice(len(theta0), len(theta0) + 1)
                theta0.append(np.log(C0))
            elif name == "sigma":
                if kind != "rbf":
                    raise ValueError(f"tune names 'sigma', which only the 'rbf' kernel has "
                                     f"(kernel={kind!r})")
                self.slices[name] = slice(len(theta0), len(theta0) + 1)
                theta0.append(np.log(sigma0))
            else:
                if np.any(s0 <= 0):
                    raise ValueError("scales must be positive to be tuned in log scale")
                self.slices[name] = slice(len(theta0), len(theta0) + s0.shape[0])
                theta0.extend(np.log(s0))
        self.tune = tune
        self.theta0 = np.clip(np.array(theta0, dtype=np.float64), *bounds)

    def unpack(self, theta):
        """``(C, sigma, scales)`` at ``theta`` (scales: a new array)."""
        sl = self.slices
        C = float(np.exp(theta[sl["C"]][0])) if "C" in sl else self.C0
        sigma = float(np.exp(theta[sl["sigma"]][0])) if "sigma" in sl else self.sigma0
        s = np.exp(theta[sl["scales"]]) if "scales" in sl else self.s0.copy()
        return C, sigma, s


class _Search:
    """One search of :meth:`GradientTuner.fit`: the evaluations of the criterion (each SVM
    warm-started from the previous one; the last ones cached, so that scipy's ``fun`` and
    ``jac`` never train twice at a point), the best point and the history."""

    _CACHE_SIZE = 8

    def __init__(self, tuner, est, X, y, params, t_start):
        self.tuner, self.est, self.X, self.y = tuner, est, X, y
        self.params = params
        self.t_start = t_start
        self.alpha = self.beta = self.best = None   # warm starts; best evaluation so far
        self.n_train = 0
        self.n_iter = 0
        self.cache = {}
        self.history = []

    def evaluate(self, theta):
        """The evaluation at ``theta`` (a dict), from the cache or by training an SVM."""
        key = np.asarray(theta, dtype=np.float64).tobytes()
        if key in self.cache:
            return self.cache[key]
        entry = self._train(theta)
        if len(self.cache) > self._CACHE_SIZE:
            self.cache.pop(next(iter(self.cache)))
        self.cache[key] = entry
        if self.best is None or entry["value"] < self.best["value"]:
            self.best = entry
        return entry

    def _train(self, theta):
        """Train the SVM at ``theta`` and compute T and its gradient; update the warm starts."""
        tuner, tune = self.tuner, self.params.tune
        rbf = self.params.kind == "rbf"
        C, sigma, s = self.params.unpack(theta)
        params = {"C": C}
        if rbf:
            params.update(sigma=sigma, scales=s)
        model = clone(self.est).set_params(**params)
        with warnings.catch_warnings():
            # an SVM interrupted inside the search says so; the tuner's fit warns once instead
            warnings.filterwarnings("ignore", message=".*was interrupted", category=RuntimeWarning)
            value, grad, fitted = criterion_and_gradient(
                model, self.X, self.y, tuner.criterion, tune, radius=tuner.radius,
                span_regularization=tuner.span_regularization, alpha_init=self.alpha,
                scales=None if rbf else s, beta_init=self.beta)
        self.n_train += 1
        if getattr(fitted, "fit_status_", 0) == 2 or getattr(fitted, "interrupted_", False):
            raise KeyboardInterrupt
        self.alpha = full_dual(fitted, self.X.shape[0])
        if tuner.radius == "sphere" and "beta" in fitted.criterion_info_:
            self.beta = fitted.criterion_info_["beta"]
        g = np.concatenate([np.atleast_1d(grad[name]) for name in tune])
        return {"value": value, "grad": g, "fitted": fitted, "C": C, "sigma": sigma,
                "scales": s.copy()}

    def log_criterion(self, theta):
        """scipy's ``fun`` with ``jac=True``: ``log T`` and its gradient."""
        e = self.evaluate(theta)
        v = max(e["value"], 1e-300)
        return np.log(v), e["grad"] / v

    def on_iteration(self, theta):
        """After every quasi-Newton iteration: record the new iterate ``theta``."""
        self.n_iter += 1
        self.record(np.asarray(theta), self.n_iter)

    def record(self, theta, iteration):
        """Append the history record of ``theta``, print it, call the callback (``False``
        raises :class:`_Stop`)."""
        e = self.evaluate(theta)
        rec = self._history_record(e, iteration)
        self.history.append(rec)
        tuner = self.tuner
        if tuner.verbose:
            sig = "" if e["sigma"] is None else f"  sigma {e['sigma']:.4g}"
            print(f"[GradientTuner] iter {iteration:3d}  {tuner.criterion} {e['value']:.6g}"
                  f"  C {e['C']:.4g}{sig}  n_SV {rec['n_SV']}  train err "
                  f"{rec['training_error']:.3f}  trainings {self.n_train}", flush=True)
        if tuner.callback is not None and tuner.callback(rec) is False:
            raise _Stop

    def _history_record(self, e, iteration):
        """The record of evaluation ``e`` (see ``GradientTuner.history_``)."""
        Xp = self.X if self.params.kind == "rbf" else self.X * e["scales"]
        return {
            "iteration": iteration,
            "criterion": e["value"],
            "C": e["C"],
            "sigma": e["sigma"],
            "scales": e["scales"].copy(),
            "n_trainings": self.n_train,
            "training_error": float(np.mean(e["fitted"].predict(Xp) != self.y)),
            "n_SV": int(e["fitted"].support_.shape[0]),
            "time": time.perf_counter() - self.t_start,
        }
