"""The small UCI data sets shipped with kernelnb (``data/*.csv.gz``, target in the last column).

Sources and citations are in ``data/ATTRIBUTION.txt`` (see also :func:`attribution`). The files are
read with the standard library only (gzip + csv), so no pandas is needed.

Label convention for the classification sets: integer labels 0/1, 1 being the class named
``positive`` in :data:`UCI_DATASETS` (mine, good radar return, diabetes, malignant). The kernelnb and
scikit-learn estimators map them to -1/+1 themselves; for the ±1 targets of the seeds' formulas use
``2 * y - 1``.
"""
import csv
import gzip
from importlib import resources

import numpy as np

from .._validation import str_options, check_param

__all__ = [
    "load_sonar",
    "load_ionosphere",
    "load_pima",
    "load_breast_cancer",
    "load_boston",
    "load_dataset",
    "attribution",
    "UCI_DATASETS",
]


def _read_csv(filename):
    """Return (header, rows) of a gzipped CSV of the package's data folder, as strings."""
    ref = resources.files(__package__).joinpath("data", filename)
    with ref.open("rb") as raw, gzip.open(raw, "rt", newline="", encoding="utf-8") as fh:
        rows = [row for row in csv.reader(fh) if row]
    header, rows = rows[0], rows[1:]
    for i, row in enumerate(rows):
        if len(row) != len(header):
            raise ValueError(f"{filename}: line {i + 2} has {len(row)} fields, the header {len(header)}")
    return header, rows


def _to_float(cells, filename):
    out = np.empty((len(cells), len(cells[0]) if cells else 0))
    for i, row in enumerate(cells):
        for j, v in enumerate(row):
            v = v.strip()
            if v in ("", "NA", "?"):
                out[i, j] = np.nan
            else:
                try:
                    out[i, j] = float(v)
                except ValueError:
                    raise ValueError(f"{filename}: line {i + 2}, column {j + 1}: {v!r} is not a number") from None
    return out


def _classification(filename, labels, drop_first=False):
    header, rows = _read_csv(filename)
    start = 1 if drop_first else 0
    X = _to_float([r[start:-1] for r in rows], filename)
    try:
        y = np.array([labels[r[-1].strip()] for r in rows], dtype=np.int64)
    except KeyError as e:
        raise ValueError(f"{filename}: unknown class label {e.args[0]!r}, expected one of {sorted(labels)}") from None
    return X, y, header[start:-1]


def _finish(X, y, names, return_feature_names):
    return (X, y, list(names)) if return_feature_names else (X, y)


def load_sonar(*, return_feature_names=False):
    """Sonar, mines vs. rocks (Gorman and Sejnowski, 1988): 208 x 60, labels 1 = mine, 0 = rock.

    The 60 features are energies in frequency bands, in [0, 1]. 111 mines (M) and 97 rocks (R).

    Parameters
    ----------
    return_feature_names : bool, default=False
        Also return the names of the features (those of the source file).

    Returns
    -------
    X : ndarray of shape (208, 60)
        The features (float64).
    y : ndarray of shape (208,)
        The labels (int64).
    feature_names : list of str
        Only when ``return_feature_names`` is True.
    """
    X, y, names = _classification("sonar.csv.gz", {"M": 1, "R": 0})
    return _finish(X, y, names, return_feature_names)


def load_ionosphere(*, return_feature_names=False):
    """Ionosphere radar returns (Sigillito et al., 1989): 351 x 34, labels 1 = good, 0 = bad.

    Feature 2 (``V2``) is constant 0 in the source and is kept, so that the columns match the UCI
    description; drop it or standardise with care. 225 good and 126 bad returns.

    Parameters
    ----------
    return_feature_names : bool, default=False
        Also return the names of the features (those of the source file).

    Returns
    -------
    X : ndarray of shape (351, 34)
        The features (float64).
    y : ndarray of shape (351,)
        The labels (int64).
    feature_names : list of str
        Only when ``return_feature_names`` is True.
    """
    X, y, names = _classification("ionosphere.csv.gz", {"good": 1, "bad": 0})
    return _finish(X, y, names, return_feature_names)


def load_pima(*, return_feature_names=False):
    """Pima Indians diabetes (Smith et al., 1988): 768 x 8, labels 1 = diabetes (pos), 0 = neg.

    Features: pregnancies, plasma glucose, diastolic pressure, triceps skin fold, insulin, body mass
    index, diabetes pedigree, age. As in the source, a 0 stands for a missing value in glucose,
    pressure, triceps, insulin and mass; the loader keeps these zeros. 500 negative, 268 positive.

    Parameters
    ----------
    return_feature_names : bool, default=False
        Also return the names of the features (those of the source file).

    Returns
    -------
    X : ndarray of shape (768, 8)
        The features (float64).
    y : ndarray of shape (768,)
        The labels (int64).
    feature_names : list of str
        Only when ``return_feature_names`` is True.
    """
    X, y, names = _classification("pimaindiansdiabetes.csv.gz", {"pos": 1, "neg": 0})
    return _finish(X, y, names, return_feature_names)


def load_breast_cancer(*, missing="drop", return_feature_names=False):
    """Wisconsin breast cancer, original (Wolberg and Mangasarian, 1990): 699 x 9.

    Labels 1 = malignant (241), 0 = benign (458). The sample-code-number column of the source is
    dropped; the 9 features are cytological scores from 1 to 10. The feature ``Bare.nuclei`` is
    missing for 16 samples (14 benign, 2 malignant).

    This is the original 699-sample set of the seeds' era, not scikit-learn's
    ``load_breast_cancer`` (the 569 x 30 diagnostic set).

    Parameters
    ----------
    missing : {'drop', 'median', 'keep'}, default='drop'
        'drop' removes the 16 incomplete samples (683 remain), 'median' replaces a missing value
        by the median of its feature over the samples that have it, 'keep' leaves NaN in X.
    return_feature_names : bool, default=False
        Also return the names of the features (those of the source file).

    Returns
    -------
    X : ndarray of shape (683, 9) or (699, 9)
        The features (float64).
    y : ndarray of shape (683,) or (699,)
        The labels (int64).
    feature_names : list of str
        Only when ``return_feature_names`` is True.
    """
    check_param("missing", missing, [str_options({"drop", "median", "keep"})], "load_breast_cancer")
    X, y, names = _classification("breastcancer.csv.gz", {"malignant": 1, "benign": 0},
                                  drop_first=True)
    holes = np.isnan(X)
    if missing == "drop":
        keep = ~holes.any(axis=1)
        X, y = X[keep], y[keep]
    elif missing == "median":
        med = np.nanmedian(X, axis=0)
        X = np.where(holes, med[None, :], X)
    return _finish(X, y, names, return_feature_names)


def load_boston(*, return_feature_names=False):
    """Boston housing (Harrison and Rubinfeld, 1978): 506 x 13, regression target MEDV.

    The target is the median value of owner-occupied homes in $1000s (5 to 50; the values at 50
    are censored). Feature ``b`` = 1000 (Bk - 0.63)^2, where Bk is the proportion of Black
    residents, encodes an assumption the original authors made about race; scikit-learn removed
    this data set for that reason. It is kept here because the seeds' era used it as a standard SVR
    benchmark; teach with it knowingly, or drop that column.

    Parameters
    ----------
    return_feature_names : bool, default=False
        Also return the names of the features (those of the source file).

    Returns
    -------
    X : ndarray of shape (506, 13)
        The features (float64).
    y : ndarray of shape (506,)
        The target MEDV (float64).
    feature_names : list of str
        Only when ``return_feature_names`` is True.
    """
    header, rows = _read_csv("bostonhousing.csv.gz")
    data = _to_float(rows, "bostonhousing.csv.gz")
    return _finish(data[:, :-1], data[:, -1].copy(), header[:-1], return_feature_names)


#: ``{name: (loader, one-line description, task)}``, task being 'classification' or 'regression'.
UCI_DATASETS = {
    "sonar": (load_sonar, "Sonar, mines (1) vs. rocks (0): 208 x 60", "classification"),
    "ionosphere": (load_ionosphere, "Ionosphere radar returns, good (1) vs. bad (0): 351 x 34",
                   "classification"),
    "pima": (load_pima, "Pima Indians diabetes, positive (1) vs. negative (0): 768 x 8",
             "classification"),
    "breast_cancer": (load_breast_cancer,
                      "Wisconsin breast cancer (original), malignant (1) vs. benign (0): 683 x 9 "
                      "complete samples of 699", "classification"),
    "boston": (load_boston, "Boston housing, median home value: 506 x 13", "regression"),
}


def load_dataset(name, **kwargs):
    """Load the bundled data set ``name`` (a key of :data:`UCI_DATASETS`).

    Parameters
    ----------
    name : str
        'sonar', 'ionosphere', 'pima', 'breast_cancer' or 'boston'; the names 'breastcancer',
        'breast-cancer', 'pimaindiansdiabetes' and 'bostonhousing' (those of the CSV files) are
        accepted too.
    **kwargs : dict
        Keyword arguments of the loader (e.g. ``missing='median'`` for 'breast_cancer').

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The features.
    y : ndarray of shape (n_samples,)
        The labels or the regression target.
    feature_names : list of str
        Only with ``return_feature_names=True``.

    Examples
    --------
    >>> from kernelnb.datasets import load_dataset
    >>> X, y = load_dataset("sonar")
    >>> print(X.shape, y.shape)
    (208, 60) (208,)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {name!r}")
    key = name.strip().lower().replace("-", "_")
    key = {"breastcancer": "breast_cancer", "pimaindiansdiabetes": "pima",
           "bostonhousing": "boston"}.get(key, key)
    if key not in UCI_DATASETS:
        raise ValueError(f"name must be one of {sorted(UCI_DATASETS)}, got {name!r}")
    return UCI_DATASETS[key][0](**kwargs)


def attribution():
    """Return the text of ``data/ATTRIBUTION.txt``.

    Returns
    -------
    str
        The sources, citations and licence notes of the bundled data sets.
    """
    ref = resources.files(__package__).joinpath("data", "ATTRIBUTION.txt")
    with ref.open("r", encoding="utf-8") as fh:
        return fh.read()
