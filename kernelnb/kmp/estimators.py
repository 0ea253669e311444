"""Kernel Matching Pursuit estimators (Vincent & Bengio, Machine Learning 48, 2002).

``f(x) = b + sum_n a_n K(x, x_{gamma_n})`` is built greedily from a dictionary of kernel
functions centred on the training points (or a random subset of them), plus an optional
constant atom (the bias, Eq. 14).

* ``loss='squared'`` (KMP-mse): the variants ``'basic'`` (Fig. 1), ``'backfit'`` (orthogonal MP,
  Eq. 6) and ``'prefit'`` (Fig. 3, Eq. 7; the paper's default), in Cython
  (:mod:`kernelnb.kmp._kmp`), with the error of every N along the path.
* any other differentiable margin loss of :mod:`kernelnb.losses` (e.g. ``'tanh'`` =
  (0.65 - tanh m)^2, the paper's KMP-tanh): gradient descent in function space (Fig. 4): choose the
  atom most correlated with the pseudo-residue, line-search its weight, and refit all weights
  every ``refit_every`` steps.

Dictionaries (``dictionary=``): ``'kernel'`` (the paper's, one kernel function per candidate
point); ``'widths'``: Gaussians of several widths ``sigma * width_factors`` per candidate point;
``'oriented'``: per candidate point a Gaussian with the local covariance of Manifold Parzen
windows (Vincent's thesis ch. 13: the ``n_components`` leading principal directions of its
``n_neighbors`` nearest neighbours plus ``sigma^2`` in every direction, estimated by
:class:`kernelnb.neighbors.ManifoldParzen`), ``exp(-(x - x_i)' C_i^{-1} (x - x_i) / 2)``.  Both
are extensions suggested in Vincent's thesis (2003, ch. 14).

Early stopping: with validation data (``fit(X, y, X_val=..., y_val=...)``, or else the
``validation_fraction`` of X held out) the path is computed up to ``n_basis`` (stopping after
``n_iter_no_change`` steps without improvement) and the N with the smallest validation error is
kept (Table 3's protocol).
"""
from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import solve_triangular
from scipy.optimize import minimize, minimize_scalar
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from .._validation import check_classification_targets
from sklearn.utils.validation import check_is_fitted
from .._estimator import BaseEstimator

from .. import kernels as _k
from .._fit import fit_context
from .._validation import (FRACTION, NONNEGATIVE_INT, POSITIVE, POSITIVE_INT, interval, str_options,
                           check_input)
from ..losses import Loss
from . import _kmp

__all__ = ["KMPClassifier", "KMPRegressor"]

_VARIANTS = ("basic", "backfit", "prefit")


class _BaseKMP(BaseEstimator):
    # One table (kernelnb._validation) checked by the fit wrapper (kernelnb._fit.fit_context);
    # _check_params_extra adds the rules between parameters.
    _parameter_constraints = {
        "n_basis": POSITIVE_INT,
        "variant": [str_options(set(_VARIANTS))],
        "kernel": [str_options({"linear", "poly", "rbf", "precomputed"}), callable],
        "sigma": [*POSITIVE, str_options({"scale"})],
        "scales": ["array-like", None],
        "degree": POSITIVE_INT,
        "coef0": [interval(numbers.Real, None, None, closed="neither")],
        "bias": ["boolean"],
        "n_candidates": [*POSITIVE_INT, None],
        "loss": [str, Loss],
        "refit_every": POSITIVE_INT,
        "validation_fraction": [*FRACTION, None],
        "n_iter_no_change": [*POSITIVE_INT, None],
        "precision": [str_options({"float64", "float32"})],
        "cache_size": POSITIVE,
        "random_state": ["random_state"],
        "dictionary": [str_options({"kernel", "widths", "oriented"})],
        "width_factors": ["array-like"],
        "n_components": NONNEGATIVE_INT,
        "n_neighbors": POSITIVE_INT,
    }

    def __init__(self, *, n_basis=50, variant="prefit", kernel="rbf", sigma=1.0, scales=None,
                 degree=3, coef0=1.0, bias=True, n_candidates=None, loss="squared",
                 refit_every=5, validation_fraction=None, n_iter_no_change=None,
                 precision="float64", cache_size=2048, random_state=None, dictionary="kernel",
                 width_factors=(0.5, 1.0, 2.0), n_components=1, n_neighbors=10):
        self.n_basis = n_basis
        self.variant = variant
        self.kernel = kernel
        self.sigma = sigma
        self.scales = scales
        self.degree = degree
        self.coef0 = coef0
        self.bias = bias
        self.n_candidates = n_candidates
        self.loss = loss
        self.refit_every = refit_every
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.precision = precision
        self.cache_size = cache_size
        self.random_state = random_state
        self.dictionary = dictionary
        self.width_factors = width_factors
        self.n_components = n_components
        self.n_neighbors = n_neighbors

    # -- validation --------------------------------------------------------------------------
    def _check_params_extra(self):
        if self.kernel == "precomputed":
            raise ValueError("kernel='precomputed' is not supported by KMP (the dictionary is "
                             "built from the training points); pass a callable instead")
        if self.dictionary != "kernel" and self.kernel != "rbf":
            raise ValueError(f"dictionary={self.dictionary!r} is made of Gaussians: it needs "
                             f"kernel='rbf', got kernel={self.kernel!r}")
        if self.dictionary == "widths":
            f = np.asarray(self.width_factors, dtype=np.float64).ravel()
            if f.size == 0 or not np.all(np.isfinite(f)) or np.any(f <= 0):
                raise ValueError("width_factors must be a non-empty list of positive factors of "
                                 f"sigma, got {self.width_factors!r}")

    def _check_input(self, X, y="no_validation", reset=True, **kwargs):
        """The one input check, in the dictionary's precision after the kernel's scales."""
        poly = dict(degree=self.degree, offset=self.coef0) if self.kernel == "poly" else {}
        return check_input(self, X, y, reset=reset, precision=self.precision,
                           scale=self.scales, **poly, **kwargs)

    def _make_kernel(self, X):
        """The fitted kernel (:meth:`kernelnb.kernels.KernelSpec.fit`, in the dictionary's
        ``precision``)."""
        kern = _k.KernelSpec.of(self).fit(X, dtype=np.dtype(self.precision))
        self.sigma_ = kern.sigma if isinstance(kern, _k.RBF) else None
        return kern

    # -- dictionary --------------------------------------------------------------------------
    def _make_atoms(self, X, cand):
        """Describe the atoms of a non-kernel dictionary (centre, width, local covariance) for
        the candidate points ``X[cand]``; atom ``j * len(cand) + i`` is centred on
        ``X[cand[i]]``."""
        centres = X[cand]
        if self.dictionary == "widths":
            f = np.asarray(self.width_factors, dtype=np.float64).ravel()
            J = f.shape[0]
            return {"centre": np.tile(cand, J), "X": np.tile(centres, (J, 1)),
                    "sigma": np.repeat(self.sigma_ * f, cand.shape[0])}
        from ..neighbors import ManifoldParzen

        mp = ManifoldParzen(n_components=int(self.n_components), n_neighbors=self.n_neighbors,
                            sigma=self.sigma_, n_jobs=1).fit(X)
        return {"centre": cand, "X": centres, "sigma": np.full(cand.shape[0], self.sigma_),
                "components": mp.components_[cand], "variances": mp.variances_[cand]}

    @staticmethod
    def _eval_atoms(X, atoms, dtype=np.float64):
        """Values of the described atoms at the rows of X, shape (n_samples, n_atoms)."""
        C = atoms["X"]
        out = np.empty((X.shape[0], C.shape[0]), dtype=dtype)
        for s in np.unique(atoms["sigma"]):
            cols = np.flatnonzero(atoms["sigma"] == s)
            if "components" not in atoms:
                out[:, cols] = _k.RBF(float(s))(X, C[cols])
                continue
            # (x - c)' C^{-1} (x - c) with C = s^2 I + sum_j (lam_j - s^2) v_j v_j'
            s2 = float(s) ** 2
            d2 = euclidean_distances(X, C[cols], squared=True) / s2
            V, lam = atoms["components"][cols], atoms["variances"][cols]
            if V.shape[1]:
                P = np.einsum("mn,adn->mad", X, V) - np.einsum("an,adn->ad", C[cols], V)[None]
                d2 += np.einsum("mad,ad->ma", P * P, 1.0 / lam - 1.0 / s2)
            out[:, cols] = np.exp(-0.5 * d2)
        return out

    def atoms(self, X):
        """Values of every atom of the fitted dictionary at X, shape (n_samples, n_atoms), the
        constant (bias) atom excluded: the columns KMP chooses from (e.g. for a basis-pursuit
        baseline on the same dictionary)."""
        check_is_fitted(self)
        X = self._check_input(X, reset=False)
        D = self._dictionary(X, self._centres)
        return np.asarray(D[:, :D.shape[1] - 1] if self.bias else D)

    def _dictionary(self, X, centres):
        """D[i, k] = K(x_i, centre_k) (+ a constant column when ``bias``), Fortran order.

        Computed as K(centres, X) (+ a row of ones), whose transpose is already Fortran-ordered:
        no copy of the l x M matrix."""
        dt = np.dtype(self.precision)
        if self.dictionary != "kernel":
            Dt = self._eval_atoms(X.astype(np.float64), self._atoms, dt).T
        elif isinstance(self.kernel_, _k.CallableKernel):
            Dt = np.asarray(self.kernel_(centres, X), dtype=dt)
        else:
            Dt = np.asarray(self.kernel_(centres.astype(dt), X.astype(dt)), dtype=dt)
        if self.bias:
            Dt = np.vstack([Dt, np.ones((1, X.shape[0]), dtype=dt)])
        return np.ascontiguousarray(Dt).T

    def _split(self, X, y, X_val, y_val, stratify):
        if X_val is not None:
            if y_val is None:
                raise ValueError("y_val is required with X_val")
            X_val, y_val = self._check_input(X_val, y_val, reset=False)
            return X, y, X_val, y_val
        if self.validation_fraction is None:
            return X, y, None, None
        strat = y if stratify else None
        try:
            return _swap(train_test_split(X, y, test_size=self.validation_fraction,
                                          random_state=self.random_state, stratify=strat))
        except ValueError:
            return _swap(train_test_split(X, y, test_size=self.validation_fraction,
                                          random_state=self.random_state))

    def _fit_targets(self, X, T, X_val, T_val, classification):
        """Fit one path per column of T (±1 targets for classification); set the attributes."""
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        cand = np.arange(n)
        if self.n_candidates is not None and self.n_candidates < n:
            cand = np.sort(rng.choice(n, self.n_candidates, replace=False))
        self.kernel_ = self._make_kernel(X)
        n_atoms = cand.shape[0]
        if self.dictionary != "kernel":
            self._atoms = self._make_atoms(X, cand)
            n_atoms = self._atoms["centre"].shape[0]
        M = n_atoms + (1 if self.bias else 0)
        # back-/pre-fitting choose distinct atoms; basic MP and Fig. 4 may choose one again
        Ns = self._n_basis_per_target(T.shape[1])
        if Ns.max() > M and self.variant != "basic" and self.loss == "squared":
            raise ValueError(f"n_basis={self.n_basis} is larger than the dictionary ({M} atoms: "
                             f"{n_atoms} atoms on {cand.shape[0]} candidate points"
                             f"{' + bias' if self.bias else ''})")
        need_mb = np.dtype(self.precision).itemsize * n * M / 2**20
        blocked = need_mb > self.cache_size
        if blocked and self.loss != "squared":
            raise ValueError(f"the dictionary needs {need_mb:.0f} MB (n_samples x n_candidates "
                             f"values), more than cache_size={self.cache_size}; only "
                             "loss='squared' recomputes kernel columns in blocks: lower "
                             "n_candidates or use precision='float32'")
        if blocked and self.dictionary != "kernel":
            raise ValueError(f"the dictionary needs {need_mb:.0f} MB, more than cache_size="
                             f"{self.cache_size}; dictionary={self.dictionary!r} is not "
                             "recomputed in blocks: lower n_candidates or use precision='float32'")
        centres = X[cand]
        self.blocked_ = blocked
        if blocked:
            D = Dv = None
        else:
            D = self._dictionary(X, centres)
            Dv = None if X_val is None else self._dictionary(X_val, centres)
        patience = -1 if self.n_iter_no_change is None or Dv is None else int(self.n_iter_no_change)
        self.paths_ = []
        for j in range(T.shape[1]):
            yv = None if T_val is None else np.ascontiguousarray(T_val[:, j])
            if self.loss == "squared" and blocked:
                res = self._blocked_path(X, X_val, centres, T[:, j], yv, classification,
                                         patience, need_mb, int(Ns[j]))
            elif self.loss == "squared":
                res = _kmp.squared_path(D, np.ascontiguousarray(T[:, j]), int(Ns[j]),
                                        _kmp.VARIANTS[self.variant], Dv, yv, classification,
                                        1e-10, patience)
            else:
                res = _loss_path(D, T[:, j], int(Ns[j]), self._loss, int(self.refit_every),
                                 Dv, yv, patience)
            self.paths_.append(res)
        self._centres = centres
        self.candidates_ = cand
        self._n_atoms_total = M
        # N per target: the best validation error, or all steps taken
        self.n_basis_ = []
        for res in self.paths_:
            if res["val_error"] is not None and len(res["val_error"]):
                self.n_basis_.append(int(np.argmin(res["val_error"])) + 1)
            else:
                self.n_basis_.append(len(res["basis"]))
        steps = np.array([len(res["basis"]) for res in self.paths_], dtype=np.int64)
        # one path per target: an array for the classifier (one-vs-rest problems), an int for
        # the regressor (one problem)
        self.n_iter_ = steps if classification else int(steps[0])
        self._set_weights()

    def _n_basis_per_target(self, n_targets):
        """``n_basis`` as one positive int per target (an int is shared by all)."""
        if np.ndim(self.n_basis) == 0:
            return np.full(n_targets, int(self.n_basis), dtype=np.int64)
        Ns = np.asarray(self.n_basis).ravel()
        ints = Ns.size == 0 or np.issubdtype(Ns.dtype, np.integer)
        if Ns.shape[0] != n_targets or not ints or np.any(Ns < 1):
            raise ValueError(f"n_basis must be a positive int or one positive int per class "
                             f"({n_targets} one-vs-rest paths, in the order of classes_), got "
                             f"{self.n_basis!r}")
        return Ns.astype(np.int64)

    def _blocked_path(self, X, X_val, centres, t, yv, classification, patience, need_mb, N):
        """The squared-loss path with kernel columns recomputed in blocks (cache_size too small)."""
        M = centres.shape[0] + (1 if self.bias else 0)
        n_c = centres.shape[0]
        # columns per block so that one block stays within a tenth of cache_size
        block = int(max(1, min(M, self.cache_size * 2**20 / 10 / (8.0 * X.shape[0]))))

        def atoms(P, lo, hi):
            hi_c = min(hi, n_c)
            B = (np.asarray(self.kernel_(P, centres[lo:hi_c]), dtype=np.float64)
                 if lo < hi_c else np.zeros((P.shape[0], 0)))
            if self.bias and hi > n_c:
                B = np.hstack([B, np.ones((P.shape[0], 1))])
            return B

        return _squared_path_blocked(
            lambda lo, hi: atoms(X, lo, hi), M, np.asarray(t, dtype=np.float64), N,
            self.variant, lambda k: atoms(X, k, k + 1)[:, 0],
            None if X_val is None else (lambda k: atoms(X_val, k, k + 1)[:, 0]),
            yv, classification, block, 1e-10, patience)

    def _weights_at(self, res, N):
        """Weights per dictionary atom of a path's model with its first N steps."""
        w = np.zeros(self._n_atoms_total)
        if "U" in res:
            a = solve_triangular(res["U"][:N, :N], res["z"][:N])
            np.add.at(w, res["basis"][:N], a)
        elif "step_coef" in res:   # basic MP: weights accumulate when an atom is chosen again
            np.add.at(w, res["basis"][:N], res["step_coef"][:N])
        else:
            w = res["alpha_steps"][N - 1].copy()
        return w

    def _set_weights(self):
        W = np.column_stack([self._weights_at(r, N) for r, N in zip(self.paths_, self.n_basis_)])
        n_c = self._n_atoms_total - (1 if self.bias else 0)
        used = np.flatnonzero(np.any(W[:n_c] != 0, axis=1))
        if self.dictionary == "kernel":
            self.support_ = self.candidates_[used]
            self.support_vectors_ = self._centres[used]
        else:
            self._used_atoms = {k: v[used] for k, v in self._atoms.items()}
            self.support_ = self._used_atoms["centre"]
            self.support_vectors_ = self._used_atoms["X"]
            self.atom_sigma_ = self._used_atoms["sigma"]
        self.coef_ = W[used].T                    # (n_targets, n_support)
        self.intercept_ = W[n_c] if self.bias else np.zeros(W.shape[1])
        self.train_errors_ = [r["train_error"] for r in self.paths_]
        self.validation_errors_ = [r["val_error"] for r in self.paths_]

    def set_n_basis(self, n_basis):
        """Use the first ``n_basis`` steps of the fitted path(s) (no refitting); a sequence gives
        one N per target (per class of a one-vs-rest fit)."""
        check_is_fitted(self)
        Ns = np.broadcast_to(np.asarray(n_basis), (len(self.paths_),)) \
            if np.ndim(n_basis) == 0 else np.asarray(n_basis)
        if Ns.shape != (len(self.paths_),):
            raise ValueError(f"n_basis must be an int or one value per target "
                             f"({len(self.paths_)}), got {len(Ns)} values")
        for r, N in zip(self.paths_, Ns):
            if not 1 <= N <= len(r["basis"]):
                raise ValueError(f"n_basis must be between 1 and {len(r['basis'])}, got {N}")
        self.n_basis_ = [int(N) for N in Ns]
        self._set_weights()
        return self

    def _raw_decision(self, X):
        check_is_fitted(self)
        X = self._check_input(X, reset=False)
        if self.support_vectors_.shape[0] == 0:
            return np.tile(self.intercept_, (X.shape[0], 1))
        if self.dictionary != "kernel":
            return self._eval_atoms(X, self._used_atoms) @ self.coef_.T + self.intercept_
        expansion = _k.KernelExpansion(self.kernel_, self.support_vectors_, self.coef_.T)
        return expansion(X) + self.intercept_

    @property
    def _loss(self):
        from ..losses import get_loss

        return get_loss(self.loss)


def _squared_path_blocked(columns, n_atoms, y, N, variant, col, val_col=None, yval=None,
                          classification=True, block=256, eps=1e-10, patience=-1):
    """The squared-loss pursuit of :func:`kernelnb.kmp._kmp.squared_path` without storing the
    dictionary: ``columns(lo, hi)`` returns the atoms lo..hi-1 evaluated at the training points
    (l x b) and is called block by block for every product with the dictionary; ``col(k)`` and
    ``val_col(k)`` give one atom at the training and validation points.  Memory O(l * (block + N));
    time O(N * M * l) kernel evaluations, recomputed at each step."""
    l, M = y.shape[0], n_atoms

    def dict_t(v):                        # D' v, block by block
        return np.concatenate([columns(lo, min(lo + block, M)).T @ v for lo in range(0, M, block)])

    norm2 = np.concatenate([np.einsum("ij,ij->j", B, B) for B in
                            (columns(lo, min(lo + block, M)) for lo in range(0, M, block))])
    s = norm2.copy()
    R = y.astype(np.float64).copy()
    c = dict_t(R)
    Q = np.zeros((l, N))
    U = np.zeros((N, N))
    z = np.zeros(N)
    nv = 0 if yval is None else yval.shape[0]
    Qv = np.zeros((nv, N))
    fval = np.zeros(nv)
    basis, step_coef, train_err, val_err = [], [], [], []
    best, since = np.inf, 0
    floor = eps * norm2
    n = 0
    for _ in range(N + M):
        if n >= N:
            break
        ok = norm2 > 0 if variant == "basic" else (norm2 > 0) & (s > floor)
        denom = s if variant == "prefit" else norm2
        score = np.where(ok, c * c / np.where(ok, denom, 1.0), -1.0)
        g = int(np.argmax(score))
        if score[g] <= 0:
            break
        d = col(g)
        if variant == "basic":
            r = c[g] / norm2[g]
            R -= r * d
            c -= r * dict_t(d)
            if nv:
                fval += r * val_col(g)
            step_coef.append(r)
        else:
            q = d.copy()
            h = np.zeros(n)
            for _ in range(2):
                hk = Q[:, :n].T @ q
                q -= Q[:, :n] @ hk
                h += hk
            nq = np.sqrt(q @ q)
            if nq <= np.sqrt(floor[g]) or nq == 0:
                s[g] = 0.0
                continue
            q /= nq
            Q[:, n] = q
            U[:n, n] = h
            U[n, n] = nq
            r = q @ R
            z[n] = r
            t = dict_t(q)
            c -= r * t
            s -= t * t
            s[g] = 0.0
            R -= r * q
            if nv:
                dv = val_col(g) - Qv[:, :n] @ h
                Qv[:, n] = dv / nq
                fval += r * Qv[:, n]
        basis.append(g)
        f = y - R
        train_err.append(np.mean((f > 0) != (y > 0)) if classification else np.mean((y - f) ** 2))
        n += 1
        if nv:
            val_err.append(np.mean((fval > 0) != (yval > 0)) if classification
                           else np.mean((yval - fval) ** 2))
            if val_err[-1] < best:
                best, since = val_err[-1], 0
            else:
                since += 1
                if 0 < patience <= since:
                    break
    out = {"basis": np.array(basis, dtype=np.int32), "train_error": np.array(train_err),
           "val_error": np.array(val_err) if nv else None, "residual": R}
    if variant == "basic":
        out["step_coef"] = np.array(step_coef)
    else:
        out["U"] = U[:n, :n].copy()
        out["z"] = z[:n].copy()
    return out


def _swap(parts):
    X_tr, X_va, y_tr, y_va = parts
    return X_tr, y_tr, X_va, y_va


def _loss_path(D, y, N, loss, refit_every, Dv, yv, patience):
    """Fig. 4 of the KMP paper for a margin loss L(m), m = y f, targets y in {-1, +1}."""
    l, M = D.shape
    norm2 = np.einsum("ij,ij->j", D, D)
    ok = norm2 > 0
    f = np.zeros(l)
    basis, alpha, chosen = [], np.zeros(0), []
    steps_w, train_err, val_err = [], [], []
    best, since = np.inf, 0

    def total(a, cols):
        return loss.value(y * (D[:, cols] @ a)).sum()

    def grad(a, cols):
        m = y * (D[:, cols] @ a)
        return D[:, cols].T @ (y * loss.derivative(m))

    for n in range(N):
        g = -y * loss.derivative(y * f)            # pseudo-residue -dL/df (Eq. 8)
        c = D.T @ g
        score = np.where(ok, c * c / np.where(ok, norm2, 1.0), -1.0)
        k = int(np.argmax(score))
        if score[k] <= 0:
            break
        chosen.append(k)
        if k in basis:
            pos = basis.index(k)
        else:
            basis.append(k)
            alpha = np.append(alpha, 0.0)
            pos = len(basis) - 1
        if (n + 1) % refit_every != 0:
            d = D[:, k]
            res = minimize_scalar(lambda a: loss.value(y * (f + a * d)).sum())
            alpha[pos] += float(res.x)
        else:
            cols = list(basis)
            # a partial, warm-started refit (the paper refits "often enough", by CG): on the
            # non-convex tanh loss an uncapped L-BFGS wanders for thousands of evaluations
            res = minimize(total, alpha, args=(cols,), jac=grad, method="L-BFGS-B",
                           options={"maxiter": 100})
            if res.fun <= total(alpha, cols):
                alpha = res.x
        f = D[:, basis] @ alpha
        w = np.zeros(M)
        w[basis] = alpha
        steps_w.append(w)
        train_err.append(np.mean((f > 0) != (y > 0)))
        if Dv is not None:
            fv = Dv[:, basis] @ alpha
            val_err.append(np.mean((fv > 0) != (yv > 0)))
            if val_err[-1] < best:
                best, since = val_err[-1], 0
            else:
                since += 1
                if 0 < patience <= since:
                    break
    return {
        "basis": np.array(chosen, dtype=np.int32),
        "alpha_steps": np.array(steps_w),
        "train_error": np.array(train_err),
        "val_error": np.array(val_err) if Dv is not None else None,
    }


class KMPClassifier(ClassifierMixin, _BaseKMP):
    """Kernel Matching Pursuit classifier (Vincent & Bengio, Machine Learning 48, 2002).

    The pursuit fits ±1 targets; more than two classes are learnt one-vs-rest (one path per
    class).

    Parameters
    ----------
    n_basis : int or array-like of int, default=50
        Maximal number of support points N (steps of the pursuit).  With more than two
        classes, one N per class (in the order of ``classes_``) stops each one-vs-rest path at
        its own N (e.g. the number of support vectors of each class's SVM, Vincent & Bengio's
        Table 9.1 protocol) instead of running every class to the largest.
    variant : {'prefit', 'backfit', 'basic'}, default='prefit'
        How the weights are fitted with the squared loss: pre-fitting (Fig. 3, Eq. 7; the
        paper's default), back-fitting (orthogonal matching pursuit, Eq. 6) or basic matching
        pursuit (Fig. 1).  Non-squared losses always use Fig. 4.
    kernel : {'rbf', 'linear', 'poly'} or callable, default='rbf'
        The kernel of the dictionary's functions; a callable ``f(X, Y) -> K``.
    sigma : float or 'scale', default=1.0
        RBF width, ``k(x, y) = exp(-||s (x - y)||^2 / (2 sigma^2))``; the KMP paper's width
        ``s`` in ``exp(-||x - y||^2 / s^2)`` is ``sigma = s / sqrt(2)``.  ``'scale'`` as
        scikit-learn's ``gamma='scale'``.
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors of the RBF kernel (None: all ones).
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel (the ``(1 + x.z)^p`` of Vincent's thesis).
    bias : bool, default=True
        Add the constant function to the dictionary (Eq. 14).
    n_candidates : int, default=None
        Build the dictionary on a random subset of that many training points (None: all).
    loss : str or Loss, default='squared'
        'squared' (KMP-mse) or a differentiable margin loss of :mod:`kernelnb.losses` ('tanh' is
        KMP-tanh), minimised by gradient descent in function space (Fig. 4).
    refit_every : int, default=5
        Non-squared losses: refit all weights every that many steps (Fig. 4's p).
    validation_fraction : float, default=None
        Hold out that fraction of X to choose N by validation error (early stopping); used
        only when ``fit`` gets no ``X_val``.  None: no validation data.
    n_iter_no_change : int, default=None
        With validation data, stop the pursuit after that many steps without a better
        validation error (None: compute the path up to ``n_basis``).
    precision : {'float64', 'float32'}, default='float64'
        Float type of the dictionary's kernel values.  The pursuit is bound by reading the
        dictionary once per step, so float32 halves time and memory; the residue and scores
        stay in float64.
    cache_size : float, default=2048
        Memory in MB the dictionary may use (n_samples x n_candidates values).  Beyond it the
        squared-loss pursuit recomputes kernel columns in blocks at every step
        (``blocked_``): memory O(n_samples x (block + N)), time O(N x M x l) kernel
        evaluations.
    random_state : int, RandomState instance or None, default=None
        Draws the candidate points and the held-out validation fraction.
    dictionary : {'kernel', 'widths', 'oriented'}, default='kernel'
        The atoms per candidate point: the kernel function; Gaussians of the widths
        ``sigma * width_factors``; or an oriented Gaussian with the point's Manifold Parzen
        covariance (``n_components`` principal directions of its ``n_neighbors`` nearest
        neighbours plus ``sigma^2`` in every direction).  The last two need ``kernel='rbf'``.
    width_factors : sequence of float, default=(0.5, 1.0, 2.0)
        ``dictionary='widths'``: the widths, as positive factors of the fitted ``sigma_``.
    n_components : int, default=1
        ``dictionary='oriented'``: principal directions per atom (0: the Gaussian kernel).
    n_neighbors : int, default=10
        ``dictionary='oriented'``: neighbours of each local covariance.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels; for two classes ``decision_function > 0`` means ``classes_[1]``.
    coef_ : ndarray of shape (n_targets, n_support)
        Weights of the chosen atoms per target (one target for two classes, else one per
        class).
    support_ : ndarray of shape (n_support,)
        Training indices of the chosen points (of each chosen atom's centre, repeated when two
        widths of one point are chosen).
    support_vectors_ : ndarray of shape (n_support, n_features)
        The centres of the chosen atoms.
    intercept_ : ndarray of shape (n_targets,)
        The weight of the constant atom per target (0 without ``bias``).
    n_basis_ : list of int
        N kept per target: the step with the smallest validation error, or all steps taken.
    atom_sigma_ : ndarray of shape (n_support,)
        ``dictionary`` 'widths' or 'oriented': the width of each chosen atom.
    train_errors_ : list of ndarray
        Per target, the training error for N = 1, 2, ... (error rate for classification,
        mean squared error for regression).
    validation_errors_ : list of ndarray or None
        Per target, the validation error for N = 1, 2, ... (None without validation data).
    paths_ : list of dict
        The pursuit path of each target (chosen atoms in order and their weights).
    candidates_ : ndarray of int
        Training indices of the dictionary's candidate points.
    blocked_ : bool
        Whether the dictionary exceeded ``cache_size`` and was recomputed in blocks.
    kernel_ : kernelnb.kernels.Kernel
        The fitted kernel.
    sigma_ : float or None
        The RBF width used (``'scale'`` resolved).
    fit_time_ : float
        Seconds spent in ``fit``.
    n_iter_ : ndarray of shape (n_targets,)
        Pursuit steps taken per target (at most ``n_basis``).

    References
    ----------
    P. Vincent & Y. Bengio, Kernel Matching Pursuit, Machine Learning 48, 2002 (Figs. 1, 3 and 4,
    Eqs. 6, 7 and 14); P. Vincent, PhD thesis, Université de Montréal, 2003, ch. 14 (the
    'widths' and 'oriented' dictionaries).

    Examples
    --------
    >>> from kernelnb.datasets import make_moons
    >>> from kernelnb.kmp import KMPClassifier
    >>> X, y = make_moons(n_samples=200, noise=0.2, random_state=0)
    >>> kmp = KMPClassifier(n_basis=10, sigma=0.5).fit(X[:150], y[:150])
    >>> print(kmp.support_vectors_.shape)
    (10, 2)
    >>> print(round(kmp.score(X[150:], y[150:]), 2))
    1.0
    """

    _parameter_constraints = {**_BaseKMP._parameter_constraints,
                              "n_basis": [*POSITIVE_INT, "array-like"]}

    def _check_params_extra(self):
        super()._check_params_extra()
        if self.loss != "squared":
            loss = self._loss
            if loss.kind != "margin" or not loss.smooth:
                raise ValueError("loss must be 'squared' or a differentiable margin loss of "
                                 f"kernelnb.losses (Fig. 4 follows its derivative), got {self.loss!r}")

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Compute the pursuit path and keep its first ``n_basis_`` steps.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Class labels.
        X_val : array-like of shape (n_val, n_features), default=None
            Validation inputs: N is chosen by their error (and the pursuit stops early with
            ``n_iter_no_change``).  None: ``validation_fraction`` of X is held out when it is
            set.
        y_val : array-like of shape (n_val,), default=None
            Validation labels (required with ``X_val``).

        Returns
        -------
        KMPClassifier
            The fitted classifier.
        """
        X, y = self._check_input(X, y)
        check_classification_targets(y)
        _check_n_samples(X.shape[0])
        classes = np.unique(y)
        if classes.shape[0] < 2:
            raise ValueError(f"KMPClassifier needs at least two classes; got 1 class ({classes[0]!r})")
        self.classes_ = classes
        X_fit, y_fit, X_va, y_va = self._split(X, y, X_val, y_val, stratify=True)
        T = self._targets(y_fit)
        T_val = None if y_va is None else self._targets(y_va)
        self._fit_targets(X_fit, T, X_va, T_val, classification=True)
        return self

    def _targets(self, y):
        if self.classes_.shape[0] == 2:
            return np.where(y == self.classes_[1], 1.0, -1.0)[:, None]
        return np.column_stack([np.where(y == c, 1.0, -1.0) for c in self.classes_])

    def decision_function(self, X):
        """Decision values of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            ``f(x)``: for two classes positive means ``classes_[1]``; for more, one column per
            class (one-vs-rest).
        """
        f = self._raw_decision(X)
        return f[:, 0] if self.classes_.shape[0] == 2 else f

    def predict(self, X):
        """Predict the classes of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,)
            The predicted labels, taken from ``classes_``.
        """
        f = self._raw_decision(X)
        if self.classes_.shape[0] == 2:
            return self.classes_[(f[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(f, axis=1)]


class KMPRegressor(RegressorMixin, _BaseKMP):
    """Kernel Matching Pursuit regression with the squared loss (Vincent & Bengio, 2002).

    Parameters
    ----------
    n_basis : int, default=50
        Maximal number of support points N (steps of the pursuit).
    variant : {'prefit', 'backfit', 'basic'}, default='prefit'
        How the weights are fitted with the squared loss: pre-fitting (Fig. 3, Eq. 7; the
        paper's default), back-fitting (orthogonal matching pursuit, Eq. 6) or basic matching
        pursuit (Fig. 1).
    kernel : {'rbf', 'linear', 'poly'} or callable, default='rbf'
        The kernel of the dictionary's functions; a callable ``f(X, Y) -> K``.
    sigma : float or 'scale', default=1.0
        RBF width, ``k(x, y) = exp(-||s (x - y)||^2 / (2 sigma^2))``; the KMP paper's width
        ``s`` in ``exp(-||x - y||^2 / s^2)`` is ``sigma = s / sqrt(2)``.  ``'scale'`` as
        scikit-learn's ``gamma='scale'``.
    scales : array-like of shape (n_features,), default=None
        Per-feature scaling factors of the RBF kernel (None: all ones).
    degree : int, default=3
        Degree of the polynomial kernel ``(<x, y> + coef0) ** degree``.
    coef0 : float, default=1.0
        Offset of the polynomial kernel (the ``(1 + x.z)^p`` of Vincent's thesis).
    bias : bool, default=True
        Add the constant function to the dictionary (Eq. 14).
    n_candidates : int, default=None
        Build the dictionary on a random subset of that many training points (None: all).
    loss : {'squared'}, default='squared'
        The loss: regression supports the squared loss (KMP-mse) only.
    refit_every : int, default=5
        Unused by the squared loss (kept for the parameters shared with
        :class:`KMPClassifier`).
    validation_fraction : float, default=None
        Hold out that fraction of X to choose N by validation error (early stopping); used
        only when ``fit`` gets no ``X_val``.  None: no validation data.
    n_iter_no_change : int, default=None
        With validation data, stop the pursuit after that many steps without a better
        validation error (None: compute the path up to ``n_basis``).
    precision : {'float64', 'float32'}, default='float64'
        Float type of the dictionary's kernel values.  The pursuit is bound by reading the
        dictionary once per step, so float32 halves time and memory; the residue and scores
        stay in float64.
    cache_size : float, default=2048
        Memory in MB the dictionary may use (n_samples x n_candidates values).  Beyond it the
        squared-loss pursuit recomputes kernel columns in blocks at every step
        (``blocked_``): memory O(n_samples x (block + N)), time O(N x M x l) kernel
        evaluations.
    random_state : int, RandomState instance or None, default=None
        Draws the candidate points and the held-out validation fraction.
    dictionary : {'kernel', 'widths', 'oriented'}, default='kernel'
        The atoms per candidate point: the kernel function; Gaussians of the widths
        ``sigma * width_factors``; or an oriented Gaussian with the point's Manifold Parzen
        covariance (``n_components`` principal directions of its ``n_neighbors`` nearest
        neighbours plus ``sigma^2`` in every direction).  The last two need ``kernel='rbf'``.
    width_factors : sequence of float, default=(0.5, 1.0, 2.0)
        ``dictionary='widths'``: the widths, as positive factors of the fitted ``sigma_``.
    n_components : int, default=1
        ``dictionary='oriented'``: principal directions per atom (0: the Gaussian kernel).
    n_neighbors : int, default=10
        ``dictionary='oriented'``: neighbours of each local covariance.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_support)
        Weights of the chosen atoms.
    support_ : ndarray of shape (n_support,)
        Training indices of the chosen points (of each chosen atom's centre, repeated when two
        widths of one point are chosen).
    support_vectors_ : ndarray of shape (n_support, n_features)
        The centres of the chosen atoms.
    intercept_ : ndarray of shape (n_targets,)
        The weight of the constant atom per target (0 without ``bias``).
    n_basis_ : list of int
        N kept per target: the step with the smallest validation error, or all steps taken.
    atom_sigma_ : ndarray of shape (n_support,)
        ``dictionary`` 'widths' or 'oriented': the width of each chosen atom.
    train_errors_ : list of ndarray
        Per target, the training error for N = 1, 2, ... (error rate for classification,
        mean squared error for regression).
    validation_errors_ : list of ndarray or None
        Per target, the validation error for N = 1, 2, ... (None without validation data).
    paths_ : list of dict
        The pursuit path of each target (chosen atoms in order and their weights).
    candidates_ : ndarray of int
        Training indices of the dictionary's candidate points.
    blocked_ : bool
        Whether the dictionary exceeded ``cache_size`` and was recomputed in blocks.
    kernel_ : kernelnb.kernels.Kernel
        The fitted kernel.
    sigma_ : float or None
        The RBF width used (``'scale'`` resolved).
    fit_time_ : float
        Seconds spent in ``fit``.
    n_iter_ : int
        Pursuit steps taken (at most ``n_basis``).

    References
    ----------
    P. Vincent & Y. Bengio, Kernel Matching Pursuit, Machine Learning 48, 2002 (Figs. 1 and 3,
    Eqs. 6, 7 and 14).

    Examples
    --------
    >>> from kernelnb.datasets import make_sinc
    >>> from kernelnb.kmp import KMPRegressor
    >>> X, y = make_sinc(n_samples=100, noise=0.05, random_state=0)
    >>> reg = KMPRegressor(n_basis=8, sigma=1.0).fit(X, y)
    >>> print(reg.n_iter_, reg.support_vectors_.shape)   # 7 kernel functions and the bias
    8 (7, 1)
    >>> print(round(reg.score(X, y), 2))
    0.96
    """

    def _check_params_extra(self):
        super()._check_params_extra()
        if self.loss != "squared":
            raise ValueError(f"KMPRegressor supports loss='squared' only, got {self.loss!r}")

    @fit_context
    def fit(self, X, y, *, X_val=None, y_val=None):
        """Compute the pursuit path and keep its first ``n_basis_`` steps.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Real targets.
        X_val : array-like of shape (n_val, n_features), default=None
            Validation inputs: N is chosen by their mean squared error (and the pursuit stops
            early with ``n_iter_no_change``).  None: ``validation_fraction`` of X is held out
            when it is set.
        y_val : array-like of shape (n_val,), default=None
            Validation targets (required with ``X_val``).

        Returns
        -------
        KMPRegressor
            The fitted regressor.
        """
        X, y = self._check_input(X, y, y_numeric=True)
        _check_n_samples(X.shape[0])
        X_fit, y_fit, X_va, y_va = self._split(X, y, X_val, y_val, stratify=False)
        T_val = None if y_va is None else np.asarray(y_va, dtype=np.float64)[:, None]
        self._fit_targets(X_fit, np.asarray(y_fit, dtype=np.float64)[:, None], X_va, T_val,
                          classification=False)
        return self

    def predict(self, X):
        """Predict the targets of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``f(x) = b + sum_n a_n K(x, x_n)``.
        """
        return self._raw_decision(X)[:, 0]


def _check_n_samples(n_samples):
    if n_samples < 2:
        raise ValueError(f"KMP needs at least 2 samples, got {n_samples} sample")
