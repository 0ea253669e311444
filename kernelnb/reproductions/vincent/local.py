"""Reproductions of Vincent's thesis tables on the local methods (chapters 11, 13 and 14).

* :func:`spiral_table` — Table 13.1: density estimation on the spiral (300 train, 300 validation,
  10000 test points), ordinary Parzen against Manifold Parzen with d = 1 and d = 2 (and the local
  Gaussian density of section 14.3, which the thesis proposes without testing), every
  hyperparameter chosen by the validation ANLL; the test ANLL is reported.
* :func:`digits_table` — Table 11.1 in spirit: KNN, SVM, HKNN and CKNN test error with every
  hyperparameter chosen on a validation set.  The thesis used USPS and MNIST, which are not
  available here: scikit-learn's 8x8 digits and Fashion-MNIST stand in.
* :func:`hull_error_curves` — Fig. 11.3: error against K for CKNN and for HKNN at several lambda.
* :func:`reduced_reference_table` — Table 11.2: HKNN and CKNN with the support vectors of a
  Gaussian SVM as the reference set, beside the full reference set and the SVM itself.
* :func:`class_density_table` — Table 13.2 in kind: the density of one class, Parzen against
  Manifold Parzen (and the local Gaussian density), test ANLL with standard errors.
* :func:`bayes_tables` — Tables 13.3 and 13.4 in kind: Bayes classifiers built on Parzen and
  Manifold Parzen class densities against the SVM, hyperparameters chosen by validation error
  (13.3) and by validation ANCLL (13.4).

Every selection is made on a validation set (Table 11.2 of the thesis chose K and lambda on the
test set; here they are chosen on validation).  A selection that lands on the edge of its grid
is flagged (``"on_edge"``) and warned about: the optimum may lie outside the grid.
"""
from __future__ import annotations

import itertools
import time
import warnings

import numpy as np

from ...datasets import make_manifold_spiral_splits
from ...svm import SVC
from ...neighbors import _neighbors
from ...neighbors._base import kneighbors, n_threads
from ..._threads import blas_single_thread
from ...neighbors.knn import KNeighborsClassifier
from ...neighbors.local_density import LocalGaussianDensity
from ...neighbors.local_hyperplane import CKNNClassifier, HKNNClassifier
from ...neighbors.manifold_parzen import ManifoldParzen, ManifoldParzenClassifier
from ...neighbors.parzen import ParzenClassifier, ParzenDensity

__all__ = ["SPIRAL_PUBLISHED", "SPIRAL_PUBLISHED_PARAMS", "TABLE_11_1_EXPECTATION",
           "TABLE_11_2_PUBLISHED", "TABLE_13_2_PUBLISHED", "TABLE_13_3_PUBLISHED", "TABLE_13_4_PUBLISHED",
           "SPIRAL_SIGMA_GRID", "spiral_table", "digits_table", "hull_error_curves",
           "reduced_reference_table", "class_density_table", "bayes_tables", "grid_integral"]

#: Thesis Table 13.1, test ANLL on the spiral.
SPIRAL_PUBLISHED = {"Parzen": -1.183, "Manifold Parzen d=1": -1.466, "Manifold Parzen d=2": -1.419}
#: The hyperparameters the thesis selected for Table 13.1.
SPIRAL_PUBLISHED_PARAMS = {"Parzen": {"sigma": 0.0173},
                           "Manifold Parzen d=1": {"n_neighbors": 11, "sigma": 0.09},
                           "Manifold Parzen d=2": {"n_neighbors": 10, "sigma": 0.00001}}
#: What Table 11.1 shows (USPS/MNIST): HKNN and CKNN at or below the SVM, well below KNN.
TABLE_11_1_EXPECTATION = "HKNN and CKNN at or below SVM, well below KNN"
#: Thesis Table 11.2 (MNIST, reference set = the 16712 support vectors of a Gaussian SVM, 28 % of
#: the 60000 training images; K and lambda chosen on the test set): test error %.
TABLE_11_2_PUBLISHED = {"HKNN": (1.23, "K=60, lambda=10"), "CKNN": (1.36, "K=45")}
#: Thesis Table 13.2 (MNIST digit 2, 5400 / 558 / 1032): test ANLL (standard error).
TABLE_13_2_PUBLISHED = {"Parzen": (-197.19, 3.55, "sigma=0.19"),
                        "Manifold Parzen": (-695.15, 5.21, "d=50, k=80, sigma=0.09")}
#: Thesis Table 13.3 (USPS, 6291 / 1000 / 2007, selection by validation error): test error %.
TABLE_13_3_PUBLISHED = {"SVM": (4.68, "C=100, sigma=8"), "Parzen": (5.08, "sigma=0.8"),
                        "Manifold Parzen": (4.08, "d=11, k=11, sigma^2=0.1")}
#: Thesis Table 13.4 (USPS, selection by validation ANCLL): test ANCLL.
TABLE_13_4_PUBLISHED = {"Parzen": (0.3478, "sigma=0.8"),
                        "Manifold Parzen": (0.3384, "d=17, k=17, sigma^2=0.75")}

#: Manifold Parzen noise widths searched on the spiral: a geometric grid from 1e-6 to 0.3 that
#: holds the thesis's selections (0.09 for d = 1, 0.00001 for d = 2) exactly.
SPIRAL_SIGMA_GRID = np.unique(np.concatenate([np.geomspace(1e-6, 0.3, 19), [1e-5, 0.09]]))


def _on_edge(name, params, grids):
    """The names of the parameters of ``params`` that sit on the first or last value of their
    (numeric, more than two-valued) grid in ``grids``; a warning names them."""
    edge = []
    for key, grid in grids.items():
        g = np.sort(np.asarray(list(grid), dtype=float))
        if g.size > 2 and params.get(key) is not None and params[key] in (g[0], g[-1]):
            edge.append(key)
    if edge:
        warnings.warn(f"{name}: the selected {', '.join(f'{k}={params[k]}' for k in edge)} lies "
                      "on the edge of its grid; the optimum may lie outside it", UserWarning,
                      stacklevel=3)
    return edge


def _select_density(name, make, grid, Xtr, Xva, Xte):
    """Fit ``make(**p)`` for every p of ``grid`` (a dict of value lists, the product is
    searched), keep the smallest validation ANLL; return the row of the table."""
    keys = list(grid)
    best = None
    for values in itertools.product(*(grid[k] for k in keys)):
        p = dict(zip(keys, values))
        try:
            model = make(**p).fit(Xtr)
        except ValueError:           # e.g. n_neighbors < n_components: not a valid point
            continue
        lv = model.score_samples(Xva)
        v = float(-np.mean(lv))
        if np.isfinite(v) and (best is None or v < best[0]):
            best = (v, p, model, lv)
    if best is None:
        raise ValueError(f"{name}: no point of the grid {grid} gives a finite validation ANLL")
    v, p, model, lv = best
    lt = model.score_samples(Xte)
    return {"valid_anll": v, "valid_se": float(np.std(lv) / np.sqrt(lv.size)),
            "test_anll": float(-np.mean(lt)), "test_se": float(np.std(lt) / np.sqrt(lt.size)),
            "params": {k: (int(x) if isinstance(x, (int, np.integer)) else float(x))
                       for k, x in p.items()},
            "on_edge": _on_edge(name, p, grid)}


def spiral_table(random_state=0, h_grid=None, sigma_grid=None,
                 k_grid=(4, 6, 8, 10, 11, 15, 20), local_width_grid=None, local=True,
                 integral_points=241):
    """Table 13.1 (the spiral): each density's parameters chosen on the validation ANLL.

    The Manifold Parzen noise width is searched on :data:`SPIRAL_SIGMA_GRID` by default, which
    holds the thesis's selected values (0.09 for d = 1, 0.00001 for d = 2).  With ``local=True``
    the local Gaussian density (:class:`LocalGaussianDensity`, thesis section 14.3, untested
    there) with d = 1 and d = 2 is selected the same way (fixed kernel widths
    ``local_width_grid``, noise widths ``sigma_grid``).

    Parameters
    ----------
    random_state : int, default=0
        Seed of the spiral's splits (:func:`kernelnb.datasets.make_manifold_spiral_splits`).
    h_grid : array-like or None, default=None
        Parzen widths tried (None: 16 values from 0.004 to 0.08, log-spaced).
    sigma_grid : array-like or None, default=None
        Noise widths of Manifold Parzen and the local Gaussian (None:
        :data:`SPIRAL_SIGMA_GRID`).
    k_grid : sequence of int, default=(4, 6, 8, 10, 11, 15, 20)
        Neighbours of Manifold Parzen tried.
    local_width_grid : array-like or None, default=None
        Kernel widths of the local Gaussian density (None: 9 values from 0.005 to 0.2).
    local : bool, default=True
        Add the local Gaussian density rows.
    integral_points : int, default=241
        Grid points per axis of the local density's mass (:func:`grid_integral`).

    Returns
    -------
    dict
        {name: {"test_anll", "test_se", "valid_anll", "valid_se", "params", "on_edge"}};
        ``on_edge`` lists the parameters selected on the edge of their grid (a warning says
        so).  The local Gaussian rows also hold ``integral``, the estimator's mass (it is not
        normalised), and ``test_anll_normalised``, the test ANLL divided by that mass.
    """
    data = make_manifold_spiral_splits(random_state=random_state)
    tr, va, te = data["train"], data["valid"], data["test"]
    h_grid = np.geomspace(0.004, 0.08, 16) if h_grid is None else h_grid
    sigma_grid = SPIRAL_SIGMA_GRID if sigma_grid is None else sigma_grid
    out = {"Parzen": _select_density("Parzen", ParzenDensity, {"sigma": list(h_grid)}, tr, va, te)}
    for d in (1, 2):
        out[f"Manifold Parzen d={d}"] = _select_density(
            f"Manifold Parzen d={d}", ManifoldParzen,
            {"n_components": [d], "n_neighbors": [k for k in k_grid if k >= d],
             "sigma": list(sigma_grid)}, tr, va, te)
    if local:
        widths = np.geomspace(0.005, 0.2, 9) if local_width_grid is None else local_width_grid
        for d in (1, 2):
            row = _select_density(
                f"Local Gaussian d={d}", LocalGaussianDensity,
                {"n_components": [d], "sigma": list(widths), "noise": list(sigma_grid)},
                tr, va, te)
            # the local estimator is not normalised: measure its mass and the test ANLL it would
            # have once divided by it
            mass = grid_integral(LocalGaussianDensity(**row["params"]).fit(tr), tr, integral_points)
            row.update(integral=mass, test_anll_normalised=row["test_anll"] + float(np.log(mass)))
            out[f"Local Gaussian d={d}"] = row
    return out


def grid_integral(density, X, n_points=241, margin=0.25):
    """The integral of ``exp(density.score_samples)`` over a box holding 1-D or 2-D data.

    The box holds X, widened by ``margin`` times its extent on each side; the midpoint rule on
    ``n_points`` per axis.  A normalised density gives about 1.

    Parameters
    ----------
    density : estimator
        A fitted density with ``score_samples`` (log-density).
    X : array-like of shape (n_samples, 1) or (n_samples, 2)
        The data the box holds.
    n_points : int, default=241
        Grid points per axis.
    margin : float, default=0.25
        Widening of the box on each side, as a fraction of the data's extent.

    Returns
    -------
    float
        The integral.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] not in (1, 2):
        raise ValueError(f"grid_integral needs 1-D or 2-D data, got shape {X.shape}")
    lo, hi = X.min(axis=0), X.max(axis=0)
    lo, hi = lo - margin * (hi - lo), hi + margin * (hi - lo)
    axes = [lo[j] + (np.arange(n_points) + 0.5) * (hi[j] - lo[j]) / n_points
            for j in range(X.shape[1])]
    G = np.column_stack([a.ravel() for a in np.meshgrid(*axes)])
    cell = float(np.prod((hi - lo) / n_points))
    return float(np.exp(density.score_samples(G)).sum() * cell)


def _select(make_grid, Xtr, ytr, Xva, yva):
    best = None
    for params in make_grid:
        model = params.pop("_make")(**params)
        err = 1 - model.fit(Xtr, ytr).score(Xva, yva)
        if best is None or err < best[0]:
            best = (err, params, model)
    return best


def digits_table(Xtr, ytr, Xva, yva, Xte, yte, K_grid=(1, 3, 5, 8, 12), lam_grid=(0.0, 1.0, 10.0),
                 C_grid=(1, 10, 100), sigma_factors=(0.5, 1, 2), progress=None):
    """Validation-selected KNN, SVM, HKNN and CKNN (Vincent's thesis, Table 11.1 in kind).

    Parameters
    ----------
    Xtr : array-like of shape (n_train, n_features)
        Training inputs.
    ytr : array-like of shape (n_train,)
        Training labels.
    Xva : array-like of shape (n_valid, n_features)
        Validation inputs (the selection).
    yva : array-like of shape (n_valid,)
        Validation labels.
    Xte : array-like of shape (n_test, n_features)
        Test inputs.
    yte : array-like of shape (n_test,)
        Test labels.
    K_grid : sequence of int, default=(1, 3, 5, 8, 12)
        Neighbours tried (K > 1 for HKNN and CKNN).
    lam_grid : sequence of float, default=(0.0, 1.0, 10.0)
        HKNN's weight decays tried.
    C_grid : sequence of float, default=(1, 10, 100)
        The SVM's C tried.
    sigma_factors : sequence of float, default=(0.5, 1, 2)
        The SVM's widths, as factors of :func:`kernelnb.kernels.scale_sigma`.
    progress : callable or None, default=None
        Called with a message string after each step.

    Returns
    -------
    dict
        {name: (test error, chosen parameters)}.
    """
    from ...kernels import scale_sigma

    s0 = scale_sigma(Xtr)
    grids = {
        "KNN": [dict(_make=KNeighborsClassifier, n_neighbors=K) for K in K_grid],
        "SVM": [dict(_make=SVC, C=C, sigma=f * s0) for C in C_grid for f in sigma_factors],
        "HKNN": [dict(_make=HKNNClassifier, n_neighbors=K, weight_decay=lam)
                 for K in K_grid if K > 1 for lam in lam_grid],
        "CKNN": [dict(_make=CKNNClassifier, n_neighbors=K) for K in K_grid if K > 1],
    }
    out = {}
    for name, grid in grids.items():
        _, params, model = _select(grid, Xtr, ytr, Xva, yva)
        out[name] = (1 - model.score(Xte, yte), params)
        if progress is not None:
            progress(name)
    return out


def hull_error_curves(Xref, yref, Xq, yq, K_grid=(2, 5, 10, 20, 40, 60), lam_grid=(0.0, 1.0, 10.0),
                      cknn=True, n_jobs=None, progress=None):
    """Fig. 11.3: the error of HKNN (one curve per lambda) and of CKNN against K.

    The reference set is (Xref, yref) and the error is measured on (Xq, yq) (a validation or a
    test set).  One neighbour search per class with the largest K serves every K and lambda
    (HKNNClassifier and CKNNClassifier give the same predictions point by point).

    Parameters
    ----------
    Xref : array-like of shape (n_reference, n_features)
        The reference set.
    yref : array-like of shape (n_reference,)
        Its labels.
    Xq : array-like of shape (n_queries, n_features)
        The points the error is measured on.
    yq : array-like of shape (n_queries,)
        Their labels.
    K_grid : sequence of int, default=(2, 5, 10, 20, 40, 60)
        Neighbours per class.
    lam_grid : sequence of float, default=(0.0, 1.0, 10.0)
        HKNN's weight decays (one curve each).
    cknn : bool, default=True
        Add the CKNN curve.
    n_jobs : int or None, default=None
        Threads (None: those the context allows; -1: every core).
    progress : callable or None, default=None
        Called with a message string after each K.

    Returns
    -------
    dict
        {"K": array of the K values, "HKNN lambda=<lam>": errors, ..., "CKNN": errors}.
    """
    yref, yq = np.asarray(yref), np.asarray(yq)
    classes = np.unique(yref)
    K_grid = np.array(sorted({int(k) for k in K_grid}))
    smallest = min(int(np.sum(yref == c)) for c in classes)
    if K_grid.size == 0 or K_grid[0] < 1 or K_grid[-1] > smallest:
        raise ValueError(f"K_grid must hold values between 1 and the size of the smallest class "
                         f"of the reference set ({smallest}), got {K_grid.tolist()}")
    search_dt = np.float32 if np.asarray(Xref).dtype == np.float32 else np.float64
    Qs = np.ascontiguousarray(Xq, dtype=search_dt)
    Q64 = np.ascontiguousarray(Xq, dtype=np.float64)
    refs, idxs = [], []
    for c in classes:
        Rc = np.ascontiguousarray(np.asarray(Xref)[yref == c])
        idxs.append(kneighbors(Qs, Rc.astype(search_dt, copy=False), int(K_grid[-1]), n_jobs)[1])
        refs.append(Rc.astype(np.float64))
    nt = n_threads(n_jobs)
    names = [f"HKNN lambda={lam:g}" for lam in lam_grid] + (["CKNN"] if cknn else [])
    out = {"K": K_grid}
    out.update({name: np.empty(K_grid.size) for name in names})
    for i, K in enumerate(K_grid):
        for name in names:
            D = np.empty((Q64.shape[0], classes.size))
            for c, (Rc, idx) in enumerate(zip(refs, idxs)):
                sub = np.ascontiguousarray(idx[:, :K])
                with blas_single_thread():
                    if name == "CKNN":
                        D[:, c] = _neighbors.convex_distances(Q64, Rc, sub, nt)
                    else:
                        lam = float(lam_grid[names.index(name)])
                        D[:, c] = _neighbors.hyperplane_distances(Q64, Rc, sub, lam, nt)
            out[name][i] = float(np.mean(classes[np.argmin(D, axis=1)] != yq))
        if progress is not None:
            progress(f"K={K}")
    return out


def _best_svm(Xtr, ytr, Xva, yva, C_grid, sigma_grid):
    """(validation error, params, fitted model, its fit seconds) of the best SVC of the grid."""
    best = None
    for C, s in itertools.product(C_grid, sigma_grid):
        t = time.perf_counter()
        m = SVC(C=C, sigma=s).fit(Xtr, ytr)
        seconds = time.perf_counter() - t
        err = 1 - m.score(Xva, yva)
        if best is None or err < best[0]:
            best = (err, {"C": float(C), "sigma": float(s)}, m, seconds)
    return best


def reduced_reference_table(Xtr, ytr, Xva, yva, Xte, yte, C_grid=(10.0,), sigma_factors=(1.0,),
                            K_grid=(5, 10, 20, 40, 60), lam_grid=(1.0, 10.0, 30.0),
                            full_reference=True, n_jobs=None, progress=None):
    """Table 11.2: HKNN and CKNN whose reference set is the support vectors of a Gaussian SVM.

    The SVM (:class:`kernelnb.svm.SVC`, one-vs-one; C from ``C_grid`` and sigma from
    ``sigma_factors`` times :func:`kernelnb.kernels.scale_sigma` of the training set) is chosen on
    the validation error; its support vectors form the reduced reference set.  K (and lambda for
    HKNN) are then chosen on the validation error, and the test error is reported, for the SV
    reference and, with ``full_reference=True``, for the whole training set.

    The thesis (MNIST: 16712 support vectors, 28 % of 60000) chose K and lambda on the *test* set;
    here they are chosen on the validation set, so the test errors are honest estimates.

    Returns {"SVM": row, "HKNN (SV reference)": row, "CKNN (SV reference)": row, and the same two
    "(full reference)" rows}; a row is {"valid_error", "test_error", "params", "n_reference",
    "on_edge"}, the SVM row also holds ``support_indices`` (the reduced reference set, rows of
    Xtr) and ``fit_seconds``, and the HKNN rows also hold ``valid_curves``, the validation errors of
    :func:`hull_error_curves` (HKNN at every lambda and CKNN against K: Fig. 11.3) that the
    selection used.

    Parameters
    ----------
    Xtr : array-like of shape (n_train, n_features)
        Training inputs.
    ytr : array-like of shape (n_train,)
        Training labels.
    Xva : array-like of shape (n_valid, n_features)
        Validation inputs (the selection).
    yva : array-like of shape (n_valid,)
        Validation labels.
    Xte : array-like of shape (n_test, n_features)
        Test inputs.
    yte : array-like of shape (n_test,)
        Test labels.
    C_grid : sequence of float, default=(10.0,)
        The SVM's C tried.
    sigma_factors : sequence of float, default=(1.0,)
        The SVM's widths, as factors of :func:`kernelnb.kernels.scale_sigma`.
    K_grid : sequence of int, default=(5, 10, 20, 40, 60)
        Neighbours per class tried.
    lam_grid : sequence of float, default=(1.0, 10.0, 30.0)
        HKNN's weight decays tried.
    full_reference : bool, default=True
        Add the rows with the whole training set as reference.
    n_jobs : int or None, default=None
        Threads (None: those the context allows; -1: every core).
    progress : callable or None, default=None
        Called with a message string after each step.

    Returns
    -------
    dict
        The rows described above.
    """
    from ...kernels import scale_sigma

    ytr = np.asarray(ytr)
    s0 = scale_sigma(Xtr)
    sig = [f * s0 for f in sigma_factors]
    err, p, svm, seconds = _best_svm(Xtr, ytr, Xva, yva, C_grid, sig)
    sv = np.sort(np.asarray(svm.support_))
    out = {"SVM": {"valid_error": float(err), "test_error": float(1 - svm.score(Xte, yte)),
                   "params": p, "n_reference": int(sv.size), "support_indices": sv,
                   "fit_seconds": seconds,
                   "on_edge": _on_edge("SVM", p, {"C": C_grid, "sigma": sig})}}
    if progress is not None:
        progress(f"SVM: {sv.size} support vectors ({100 * sv.size / len(ytr):.0f} %)")
    refs = [("SV reference", Xtr[sv], ytr[sv])]
    if full_reference:
        refs.append(("full reference", Xtr, ytr))
    for label, Xr, yr in refs:
        smallest = min(int(np.sum(yr == c)) for c in np.unique(yr))
        Ks = [k for k in K_grid if 2 <= k <= smallest]
        curves = hull_error_curves(Xr, yr, Xva, yva, Ks, lam_grid, n_jobs=n_jobs)
        Ks = curves["K"]
        # HKNN: the (K, lambda) of smallest validation error (ties: the smaller K, then lambda)
        errs = np.array([curves[f"HKNN lambda={lam:g}"] for lam in lam_grid])   # (lam, K)
        j, i = np.unravel_index(np.argmin(errs.T), errs.T.shape)
        hp = {"n_neighbors": int(Ks[j]), "weight_decay": float(lam_grid[i])}
        model = HKNNClassifier(**hp, n_jobs=n_jobs).fit(Xr, yr)
        edge = _on_edge(f"HKNN ({label})", hp, {"n_neighbors": Ks, "weight_decay": lam_grid})
        out[f"HKNN ({label})"] = {"valid_error": float(errs[i, j]),
                                  "test_error": float(1 - model.score(Xte, yte)), "params": hp,
                                  "n_reference": int(len(yr)), "valid_curves": curves,
                                  "on_edge": edge}
        j = int(np.argmin(curves["CKNN"]))
        cp = {"n_neighbors": int(Ks[j])}
        model = CKNNClassifier(**cp, n_jobs=n_jobs).fit(Xr, yr)
        out[f"CKNN ({label})"] = {"valid_error": float(curves["CKNN"][j]),
                                  "test_error": float(1 - model.score(Xte, yte)), "params": cp,
                                  "n_reference": int(len(yr)),
                                  "on_edge": _on_edge(f"CKNN ({label})", cp, {"n_neighbors": Ks})}
        if progress is not None:
            progress(f"HKNN, CKNN on the {label}")
    return out


def class_density_table(Xtr, Xva, Xte, parzen_grid, mparzen_grid, local_grid=None):
    """Table 13.2 in kind: the density of one class, Parzen against Manifold Parzen.

    The local Gaussian density joins when ``local_grid`` is given; each is chosen by the
    validation ANLL.

    Parameters
    ----------
    Xtr : array-like of shape (n_train, n_features)
        Training points of the class.
    Xva : array-like of shape (n_valid, n_features)
        Validation points (the selection).
    Xte : array-like of shape (n_test, n_features)
        Test points.
    parzen_grid : sequence of float
        Parzen widths tried.
    mparzen_grid : dict
        Value lists for :class:`~kernelnb.neighbors.ManifoldParzen` (n_components,
        n_neighbors, sigma), whose product is searched.
    local_grid : dict or None, default=None
        Value lists for :class:`~kernelnb.neighbors.LocalGaussianDensity`.

    Returns
    -------
    dict
        {name: {"valid_anll", "valid_se", "test_anll", "test_se", "params", "on_edge"}}, the
        standard errors being those of the mean of -log p over the points.
    """
    out = {"Parzen": _select_density("Parzen", ParzenDensity, {"sigma": list(parzen_grid)},
                                     Xtr, Xva, Xte),
           "Manifold Parzen": _select_density("Manifold Parzen", ManifoldParzen, dict(mparzen_grid),
                                              Xtr, Xva, Xte)}
    if local_grid is not None:
        out["Local Gaussian"] = _select_density("Local Gaussian", LocalGaussianDensity,
                                                dict(local_grid), Xtr, Xva, Xte)
    return out


def _class_scores(model, X, y):
    """(error, ANCLL) of a probabilistic classifier on (X, y)."""
    lp = model.predict_log_proba(X)
    pos = np.searchsorted(model.classes_, y)
    return (float(np.mean(model.classes_[np.argmax(lp, axis=1)] != y)),
            float(-np.mean(lp[np.arange(len(y)), pos])))


def bayes_tables(Xtr, ytr, Xva, yva, Xte, yte, parzen_grid, mparzen_grid, C_grid=(10.0,),
                 sigma_factors=(1.0,), progress=None):
    """Tables 13.3 and 13.4 in kind: Bayes classifiers from class densities against an SVM.

    Parzen and Manifold Parzen class densities (:class:`ParzenClassifier`,
    :class:`ManifoldParzenClassifier`, priors = class frequencies) against a Gaussian SVM.

    Each hyperparameter point is fitted once; the selection by validation error (ties broken by
    the validation ANCLL) gives Table 13.3, the selection by validation ANCLL (average negative
    conditional log-likelihood -(1/m) sum log P(c_i | x_i)) gives Table 13.4.  The SVM (C from
    ``C_grid``, sigma from ``sigma_factors`` times :func:`kernelnb.kernels.scale_sigma`) enters
    Table 13.3 only, as in the thesis.

    Parameters
    ----------
    Xtr : array-like of shape (n_train, n_features)
        Training inputs.
    ytr : array-like of shape (n_train,)
        Training labels.
    Xva : array-like of shape (n_valid, n_features)
        Validation inputs (the selection).
    yva : array-like of shape (n_valid,)
        Validation labels.
    Xte : array-like of shape (n_test, n_features)
        Test inputs.
    yte : array-like of shape (n_test,)
        Test labels.
    parzen_grid : sequence of float
        Parzen widths tried.
    mparzen_grid : dict
        Value lists for :class:`ManifoldParzenClassifier`, whose product is searched.
    C_grid : sequence of float, default=(10.0,)
        The SVM's C tried.
    sigma_factors : sequence of float, default=(1.0,)
        The SVM's widths, as factors of :func:`kernelnb.kernels.scale_sigma`.
    progress : callable or None, default=None
        Called with a message string after each step.

    Returns
    -------
    dict
        {"by_error": {name: row}, "by_ancll": {name: row}}, a row being {"valid_error",
        "test_error", "valid_ancll", "test_ancll", "params", "on_edge"} (the SVM's ANCLL is
        None).
    """
    from ...kernels import scale_sigma

    yva, yte = np.asarray(yva), np.asarray(yte)
    grids = {"Parzen": (ParzenClassifier, {"sigma": list(parzen_grid)}),
             "Manifold Parzen": (ManifoldParzenClassifier, dict(mparzen_grid))}
    by_err, by_ancll = {}, {}
    for name, (make, grid) in grids.items():
        keys = list(grid)
        scored = []
        for values in itertools.product(*(grid[k] for k in keys)):
            p = dict(zip(keys, values))
            try:
                model = make(**p).fit(Xtr, ytr)
            except ValueError:
                continue
            scored.append((*_class_scores(model, Xva, yva), p, model))
        if not scored:
            raise ValueError(f"{name}: no valid point in the grid {grid}")
        for table, key in ((by_err, lambda r: (r[0], r[1])), (by_ancll, lambda r: (r[1], r[0]))):
            ve, va, p, model = min(scored, key=key)
            te, ta = _class_scores(model, Xte, yte)
            table[name] = {"valid_error": ve, "test_error": te, "valid_ancll": va,
                           "test_ancll": ta,
                           "params": {k: (int(x) if isinstance(x, (int, np.integer)) else float(x))
                                      for k, x in p.items()},
                           "on_edge": _on_edge(name, p, grid)}
        if progress is not None:
            progress(name)
    s0 = scale_sigma(Xtr)
    sig = [f * s0 for f in sigma_factors]
    err, p, svm, seconds = _best_svm(Xtr, ytr, Xva, yva, C_grid, sig)
    by_err["SVM"] = {"valid_error": float(err), "test_error": float(1 - svm.score(Xte, yte)),
                     "valid_ancll": None, "test_ancll": None, "params": p,
                     "fit_seconds": seconds,
                     "on_edge": _on_edge("SVM", p, {"C": C_grid, "sigma": sig})}
    return {"by_error": by_err, "by_ancll": by_ancll}
