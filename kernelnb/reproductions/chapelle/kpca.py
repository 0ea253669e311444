"""The kernel PCA map's curves of Chapelle's thesis, section 2.2.1 (Fig. 2.4): test error against
the number of components, on a toy and on digits.
"""
from __future__ import annotations

import numpy as np
from ...prior.kpca import METHODS, KernelPCAMap

__all__ = ["kpca_components_curve", "digits_kpca_curve"]


# --------------------------------------------------------------------------------------------
# Fig. 2.4 in kind: test error of a linear SVM on psi against the number of components
# --------------------------------------------------------------------------------------------
def kpca_components_curve(X_train, y_train, X_test, y_test, n_components,
                          methods=METHODS, sigma="scale", C=10.0, random_state=0, **svm_params):
    """Test error of a linear SVM on the kernel PCA map against the number of components.

    The experiment of Chapelle's thesis, section 2.2.1 (Fig. 2.4): for each ``k`` in
    ``n_components`` and each method, a linear :class:`kernelnb.svm.SVC` is trained on the
    ``k``-component map of the training set and tested on the map of the test set.

    * ``'exact'``: the first ``k`` kernel PCA components (one eigendecomposition, then the
      first ``k`` columns: the map's coordinates are ordered by decreasing eigenvalue);
    * ``'subset'``: the map of ``k`` random training points (nested subsets for one seed);
    * ``'cholesky'``: incomplete Cholesky of rank ``k``, then SVD.

    Parameters
    ----------
    X_train : array-like of shape (n_train, n_features)
        Training inputs.
    y_train : array-like of shape (n_train,)
        Training labels (two classes).
    X_test : array-like of shape (n_test, n_features)
        Test inputs.
    y_test : array-like of shape (n_test,)
        Test labels.
    n_components : sequence of int
        The numbers ``k`` of components.
    methods : sequence of {'exact', 'subset', 'cholesky'}, default=('exact', 'subset', 'cholesky')
        The maps compared.
    sigma : float or 'scale', default='scale'
        RBF width of the map (:class:`KernelPCAMap`).
    C : float, default=10.0
        The linear SVM's C (the thesis does not give its value).
    random_state : int, default=0
        Seed of the random subsets.
    **svm_params
        Further :class:`kernelnb.svm.SVC` parameters.

    Returns
    -------
    dict
        ``{'n_components': array (n_k,), method: test errors array (n_k,), ...,
        'n_components_used': {method: array}}`` (a component count can fall below ``k`` when
        eigenvalues under the tolerance are dropped).
    """
    from ...svm import SVC

    ks = np.asarray([int(k) for k in n_components])
    if ks.size == 0 or np.any(ks < 1):
        raise ValueError(f"n_components must be a non-empty sequence of ints >= 1, got "
                         f"{list(n_components)!r}")
    for m in methods:
        if m not in METHODS:
            raise ValueError(f"methods must hold names among {METHODS}, got {m!r}")
    y_test = np.asarray(y_test)

    def error(Ztr, Zte):
        svm = SVC(kernel="linear", C=C, **svm_params).fit(Ztr, y_train)
        return float(np.mean(svm.predict(Zte) != y_test))

    out = {"n_components": ks, "n_components_used": {}}
    for m in methods:
        errs, used = [], []
        if m == "exact":
            psi = KernelPCAMap(n_components=int(ks.max()), sigma=sigma)
            Ztr = psi.fit_transform(X_train)
            Zte = psi.transform(X_test)
            for k in ks:
                r = min(int(k), psi.n_components_)
                errs.append(error(Ztr[:, :r], Zte[:, :r]))
                used.append(r)
        else:
            for k in ks:
                psi = KernelPCAMap(n_components=int(k), method=m, sigma=sigma,
                                   random_state=random_state)
                Ztr = psi.fit_transform(X_train)
                errs.append(error(Ztr, psi.transform(X_test)))
                used.append(psi.n_components_)
        out[m] = np.asarray(errs)
        out["n_components_used"][m] = np.asarray(used)
    return out


def digits_kpca_curve(n_components=(5, 10, 20, 50, 100, 200, 400, 898), n_train=None,
                      methods=METHODS, sigma="scale", C=10.0, random_state=0):
    """Fig. 2.4 of Chapelle's thesis in kind, on scikit-learn's 8x8 digits.

    USPS, the thesis's data, is not shipped.  Digits 0-4 against 5-9, pixels divided by 16.  The
    1797 images are shuffled with ``random_state`` and cut into two halves of 898 (the thesis cut
    USPS into 8 subsets of 900 training points): each half trains and the other half tests, in
    turn, and the two test errors are averaged.  ``n_train`` (default: the whole half) takes only
    the first ``n_train`` points of each training half (the notebook's small run).  The thesis's
    RBF width (``sigma = 5`` on USPS's 16x16 images in [-1, 1]) does not carry over to 8x8 images;
    ``sigma='scale'`` (scikit-learn's ``gamma='scale'``) is the default here, not tuned.

    Parameters
    ----------
    n_components : sequence of int, default=(5, 10, 20, 50, 100, 200, 400, 898)
        The numbers ``k`` of components.
    n_train : int or None, default=None
        Training points taken from each half (None: the whole half).
    methods : sequence of {'exact', 'subset', 'cholesky'}, default=('exact', 'subset', 'cholesky')
        The maps compared.
    sigma : float or 'scale', default='scale'
        RBF width of the map.
    C : float, default=10.0
        The linear SVM's C.
    random_state : int, default=0
        Seed of the shuffle and of the random subsets.

    Returns
    -------
    dict
        The dictionary of :func:`kpca_components_curve` with the errors averaged over the two
        halves, and ``'n_train'``.
    """
    from sklearn.datasets import load_digits

    X, digit = load_digits(return_X_y=True)
    X = X / 16.0
    y = np.where(digit <= 4, -1, 1)
    perm = np.random.RandomState(random_state).permutation(X.shape[0])
    half = X.shape[0] // 2
    parts = [perm[:half], perm[half:2 * half]]
    n_tr = half if n_train is None else min(int(n_train), half)
    ks = [min(int(k), n_tr) for k in n_components]
    runs = []
    for a, b in ((0, 1), (1, 0)):
        tr, te = parts[a][:n_tr], parts[b]
        runs.append(kpca_components_curve(X[tr], y[tr], X[te], y[te], ks, methods=methods,
                                          sigma=sigma, C=C, random_state=random_state))
    out = {"n_components": runs[0]["n_components"], "n_train": n_tr,
           "n_components_used": runs[0]["n_components_used"]}
    for m in methods:
        out[m] = np.mean([r[m] for r in runs], axis=0)
    return out
