"""Toy data generators: the synthetic sets of the seed texts plus the classic 2-D classification toys.

Every generator is deterministic under ``random_state`` (an int, None or a
:class:`numpy.random.RandomState`, resolved by :func:`sklearn.utils.check_random_state`) and
returns numpy arrays. Two-class classification toys return integer labels 0/1 (the estimators
map them to -1/+1 themselves); :func:`make_sinc` returns a float regression target and
:func:`make_manifold_spiral` is a density-estimation set (no labels). The Gaussian noise is drawn
even when ``noise=0``: for a fixed ``random_state``, changing ``noise`` moves the same points
(X(noise) = X(0) + noise * Z), which keeps a dashboard's noise slider continuous.

References: the Manifold Parzen spiral is the experiment of Vincent's thesis (2003), Table 13.1 and
Fig. 13.2; the feature-selection toys are those of Chapelle's thesis (2002), ch. 5, after Weston et
al., NIPS 2000. The 2-D classification toys (spirals, moons, XOR, blobs) are
stand-ins for the 2-D data of the theses' figures, which is not published.
"""
import numpy as np
from sklearn import datasets as _skd

from .._validation import str_options, check_param
from ._checks import check_int, check_nonnegative, check_positive, check_rng

__all__ = [
    "make_two_spirals",
    "make_manifold_spiral",
    "make_manifold_spiral_splits",
    "MANIFOLD_SPIRAL_SIZES",
    "make_moons",
    "make_xor",
    "make_blobs",
    "make_feature_selection_linear",
    "make_feature_selection_nonlinear",
    "make_sinc",
    "TOY_DATASETS",
    "TOY_NOISE",
    "make_toy",
]


def _split_classes(n_samples):
    n0 = n_samples // 2
    return n0, n_samples - n0


def make_two_spirals(n_samples=200, *, noise=0.0, turns=1.5, random_state=None):
    """Two interleaved Archimedean spirals, one per class.

    Class 0 lies on the curve r = a / (2 pi turns) for angles a in [0, 2 pi turns], i.e. the point
    at radius r has polar angle 2 pi turns r (mod 2 pi); class 1 is the same curve turned by pi.
    Radii are drawn as r = sqrt(u), u ~ U(0, 1), which spreads the points about evenly along the
    arms; the data fit in the unit disc before noise. Isotropic Gaussian noise of standard deviation
    ``noise`` is then added to both coordinates. The rows are shuffled.

    Parameters
    ----------
    n_samples : int, default=200
        Total number of points (>= 2); class 0 gets ``n_samples // 2`` of them.
    noise : float, default=0.0
        Standard deviation of the Gaussian noise added to each coordinate (>= 0). The gap between
        neighbouring arms of different classes is 1 / (2 turns), so with 1.5 turns a noise around
        0.1 already makes the classes overlap.
    turns : float, default=1.5
        Number of turns of each spiral (> 0).
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The points.
    y : ndarray of shape (n_samples,)
        Their labels, 0 and 1 (int).

    Examples
    --------
    >>> from kernelnb.datasets import make_two_spirals
    >>> X, y = make_two_spirals(100, noise=0.05, random_state=0)
    >>> print(X.shape, y.sum())
    (100, 2) 50
    """
    n_samples = check_int("n_samples", n_samples, minimum=2)
    noise = check_nonnegative("noise", noise)
    turns = check_positive("turns", turns)
    rng = check_rng(random_state)
    n0, n1 = _split_classes(n_samples)
    y = np.repeat(np.array([0, 1]), [n0, n1])
    r = np.sqrt(rng.uniform(0.0, 1.0, n_samples))
    angle = 2.0 * np.pi * turns * r + np.pi * y
    X = np.column_stack([r * np.cos(angle), r * np.sin(angle)])
    X += noise * rng.standard_normal(X.shape)  # drawn even for noise=0: same points, more noise
    order = rng.permutation(n_samples)
    return X[order], y[order]


#: Split sizes of the spiral experiment (Vincent's thesis, Table 13.1).
MANIFOLD_SPIRAL_SIZES = {"train": 300, "valid": 300, "test": 10000}


def make_manifold_spiral(n_samples=300, *, noise=0.01, random_state=None, return_t=False):
    """The 2-D spiral of the Manifold Parzen experiments (Vincent's thesis, Table 13.1, Fig. 13.2).

    t ~ U(3, 15), x = 0.04 t sin(t) + e_x, y = 0.04 t cos(t) + e_y with e_x, e_y ~ N(0, noise^2)
    independent. The thesis writes the noise as N(0, 0.01) with its N(mu, sigma) convention, i.e. a
    standard deviation of 0.01 (our reading of that convention), which is the default here.

    Parameters
    ----------
    n_samples : int, default=300
        Number of points (the thesis uses 300 train, 300 validation and 10000 test points, see
        :data:`MANIFOLD_SPIRAL_SIZES` and :func:`make_manifold_spiral_splits`).
    noise : float, default=0.01
        Standard deviation of the Gaussian noise on each coordinate (>= 0).
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.
    return_t : bool, default=False
        Also return the curve parameter t of each point (the position along the manifold).

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Density-estimation data: there are no labels.
    t : ndarray of shape (n_samples,)
        Only when ``return_t`` is True.
    """
    n_samples = check_int("n_samples", n_samples)
    noise = check_nonnegative("noise", noise)
    rng = check_rng(random_state)
    t = rng.uniform(3.0, 15.0, n_samples)
    X = np.column_stack([0.04 * t * np.sin(t), 0.04 * t * np.cos(t)])
    X += noise * rng.standard_normal(X.shape)  # drawn even for noise=0: same points, more noise
    return (X, t) if return_t else X


def make_manifold_spiral_splits(*, noise=0.01, random_state=None, sizes=None):
    """Train, validation and test sets of the spiral experiment (300 / 300 / 10000 points).

    Parameters
    ----------
    noise : float, default=0.01
        Standard deviation of the Gaussian noise on each coordinate (>= 0), as in
        :func:`make_manifold_spiral`.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws: the three sets are drawn in the order train, valid, test from one
        random stream.
    sizes : dict, default=None
        ``{'train': n, 'valid': n, 'test': n}``, overriding :data:`MANIFOLD_SPIRAL_SIZES`
        (Vincent's thesis, Table 13.1).

    Returns
    -------
    dict
        ``{'train': X, 'valid': X, 'test': X}``, each an ndarray of shape (n, 2).
    """
    sizes = dict(MANIFOLD_SPIRAL_SIZES if sizes is None else sizes)
    if set(sizes) != set(MANIFOLD_SPIRAL_SIZES):
        raise ValueError(f"sizes must have the keys {sorted(MANIFOLD_SPIRAL_SIZES)}, got {sorted(sizes)}")
    rng = check_rng(random_state)
    return {k: make_manifold_spiral(sizes[k], noise=noise, random_state=rng)
            for k in ("train", "valid", "test")}


def make_moons(n_samples=200, *, noise=0.1, random_state=None):
    """Two interleaving half circles (scikit-learn's ``make_moons``), labels 0/1, rows shuffled.

    Parameters
    ----------
    n_samples : int, default=200
        Total number of points (>= 2).
    noise : float, default=0.1
        Standard deviation of the Gaussian noise on each coordinate (>= 0); the moons have radius 1.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The points.
    y : ndarray of shape (n_samples,)
        Their labels, 0 and 1 (int).
    """
    n_samples = check_int("n_samples", n_samples, minimum=2)
    noise = check_nonnegative("noise", noise)
    X, y = _skd.make_moons(n_samples=n_samples, noise=noise, shuffle=True,
                           random_state=check_rng(random_state))
    return X.astype(np.float64), y.astype(np.int64)


def make_xor(n_samples=200, *, noise=0.1, random_state=None):
    """The XOR problem: points uniform in [-1, 1]^2, label 1 in the 2nd and 4th quadrants.

    The label of a point is taken before the noise: y = 1 if x1 * x2 < 0 else 0; then Gaussian
    noise of standard deviation ``noise`` moves each coordinate, so that points near the axes may end
    up on the other side. No linear classifier does better than chance on it.

    Parameters
    ----------
    n_samples : int, default=200
        Number of points (>= 2).
    noise : float, default=0.1
        Standard deviation of the Gaussian noise on each coordinate (>= 0).
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The points.
    y : ndarray of shape (n_samples,)
        Their labels, 0 and 1 (int).
    """
    n_samples = check_int("n_samples", n_samples, minimum=2)
    noise = check_nonnegative("noise", noise)
    rng = check_rng(random_state)
    X = rng.uniform(-1.0, 1.0, (n_samples, 2))
    y = (X[:, 0] * X[:, 1] < 0).astype(np.int64)
    X += noise * rng.standard_normal(X.shape)  # drawn even for noise=0: same points, more noise
    return X, y


def make_blobs(n_samples=200, *, centers=2, cluster_std=1.0, n_features=2, random_state=None):
    """Isotropic Gaussian blobs (scikit-learn's ``make_blobs``), labels 0..k-1, rows shuffled.

    Parameters
    ----------
    n_samples : int, default=200
        Total number of points, split as evenly as possible between the blobs.
    centers : int or array-like of shape (k, n_features), default=2
        Number of blobs (centres drawn uniformly in the box [-10, 10]^n_features, as scikit-learn
        does) or the centres themselves.
    cluster_std : float, default=1.0
        Standard deviation of each blob (>= 0).
    n_features : int, default=2
        Dimension when ``centers`` is an int.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The points.
    y : ndarray of shape (n_samples,)
        The index of each point's blob (int).
    """
    n_samples = check_int("n_samples", n_samples, minimum=1)
    cluster_std = check_nonnegative("cluster_std", cluster_std)
    n_features = check_int("n_features", n_features)
    if isinstance(centers, (int, np.integer)) and not isinstance(centers, bool):
        centers = check_int("centers", centers)
        if centers > n_samples:
            raise ValueError(f"centers ({centers}) must not exceed n_samples ({n_samples})")
    else:
        centers = np.asarray(centers, dtype=np.float64)
        if centers.ndim != 2 or centers.shape[0] < 1 or not np.all(np.isfinite(centers)):
            raise ValueError(f"centers must be an int or a finite 2-D array of centres, got {centers!r}")
        n_features = centers.shape[1]
    X, y = _skd.make_blobs(n_samples=n_samples, n_features=n_features, centers=centers,
                           cluster_std=cluster_std, shuffle=True,
                           random_state=check_rng(random_state))
    return X.astype(np.float64), y.astype(np.int64)


def _labels(y01, labels, caller):
    check_param("labels", labels, [str_options({"01", "pm1"})], caller)
    return y01 if labels == "01" else 2 * y01 - 1


def make_feature_selection_linear(n_samples=100, *, n_features=202, noise_std=20.0, labels="01",
                                  return_relevant=False, random_state=None):
    """Linear feature-selection toy: 6 relevant features out of 202 (Chapelle's thesis, §5.1.3).

    From Chapelle's thesis, ch. 5 (after Weston et al., NIPS 2000). With s = +1 or -1 with
    probability 1/2 each:

    * with probability 0.7, x_i = s N(i, 1) for i = 1, 2, 3 and x_i = N(0, 1) for i = 4, 5, 6;
    * otherwise x_i = N(0, 1) for i = 1, 2, 3 and x_i = s N(i - 3, 1) for i = 4, 5, 6;
    * x_7 .. x_202 = N(0, 20): pure noise.

    The label is y = 1 for s = +1 and y = 0 (or -1) for s = -1. The relevant (and redundant)
    features are the first six columns; two are enough for a low error, one of each group of
    three. The thesis learns it with a linear SVM.

    The source writes the noise as N(0, 20), which may mean a variance or a standard deviation of
    20 (the text is ambiguous). We read the second argument of N as a standard deviation,
    as in N(i, 1) of the same recipe and in the notation of Vincent's thesis; pass
    ``noise_std=sqrt(20)`` for the variance reading. The choice does not matter for the figure it
    is used in (a linear SVM on all 202 features with 30 training points, 28% test error in
    Fig. 5.3): that number is reproduced only with standardised features (about 27% in our runs,
    against about 45-50% unscaled), and after standardisation the noise scale cancels out.

    Parameters
    ----------
    n_samples : int, default=100
        Number of points.
    n_features : int, default=202
        Total number of features (>= 6): the 6 relevant ones come first, then noise.
    noise_std : float, default=20.0
        Standard deviation of the irrelevant features (>= 0).
    labels : {'01', 'pm1'}, default='01'
        Label coding: 0/1 (as the package's other toys) or -1/+1 (``y = s``).
    return_relevant : bool, default=False
        Also return the indices of the relevant features.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The points.
    y : ndarray of shape (n_samples,)
        Their labels (int; not exactly balanced: drawn at random).
    relevant : ndarray of int
        ``[0, 1, 2, 3, 4, 5]``, only with ``return_relevant=True``.

    Examples
    --------
    >>> from kernelnb.datasets import make_feature_selection_linear
    >>> X, y, relevant = make_feature_selection_linear(50, return_relevant=True, random_state=0)
    >>> print(X.shape, relevant)
    (50, 202) [0 1 2 3 4 5]
    """
    caller = "make_feature_selection_linear"
    n_samples = check_int("n_samples", n_samples)
    n_features = check_int("n_features", n_features, minimum=6)
    noise_std = check_nonnegative("noise_std", noise_std)
    check_param("return_relevant", return_relevant, ["boolean"], caller)
    rng = check_rng(random_state)
    s = rng.choice(np.array([-1.0, 1.0]), n_samples)
    first = rng.uniform(size=n_samples) < 0.7
    means = np.array([1.0, 2.0, 3.0])
    signal = s[:, None] * rng.normal(means, 1.0, (n_samples, 3))
    plain = rng.standard_normal((n_samples, 3))
    X = np.empty((n_samples, n_features))
    X[:, :3] = np.where(first[:, None], signal, plain)
    X[:, 3:6] = np.where(first[:, None], plain, signal)
    X[:, 6:] = noise_std * rng.standard_normal((n_samples, n_features - 6))
    y = _labels((s > 0).astype(np.int64), labels, caller)
    return (X, y, np.arange(6)) if return_relevant else (X, y)


def make_feature_selection_nonlinear(n_samples=100, *, n_features=52, noise_std=20.0,
                                     labels="01", return_relevant=False, random_state=None):
    """Non-linear feature-selection toy: 2 relevant features out of 52 (Chapelle's thesis, §5.1.3).

    With s = +1 or -1 with probability 1/2 each, (x_1, x_2) ~ N(mu, I) where mu is drawn with equal
    probability from {(-3/4, -3), (3/4, 3)} when s = -1 and from {(3, -3), (-3, 3)} when s = +1;
    x_3 .. x_52 = N(0, 20) (read as a standard deviation, see
    :func:`make_feature_selection_linear`). Label y = 1 for s = +1, 0 (or -1) for s = -1. The
    thesis learns it with a degree-2 polynomial kernel.

    Parameters
    ----------
    n_samples : int, default=100
        Number of points.
    n_features : int, default=52
        Total number of features (>= 2): the 2 relevant ones come first, then noise.
    noise_std : float, default=20.0
        Standard deviation of the irrelevant features (>= 0).
    labels : {'01', 'pm1'}, default='01'
        Label coding: 0/1 (as the package's other toys) or -1/+1 (``y = s``).
    return_relevant : bool, default=False
        Also return the indices of the relevant features.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The points.
    y : ndarray of shape (n_samples,)
        Their labels (int).
    relevant : ndarray of int
        ``[0, 1]``, only with ``return_relevant=True``.

    Examples
    --------
    >>> from kernelnb.datasets import make_feature_selection_nonlinear
    >>> X, y = make_feature_selection_nonlinear(40, n_features=10, labels="pm1", random_state=0)
    >>> print(X.shape, sorted(set(y.tolist())))
    (40, 10) [-1, 1]
    """
    caller = "make_feature_selection_nonlinear"
    n_samples = check_int("n_samples", n_samples)
    n_features = check_int("n_features", n_features, minimum=2)
    noise_std = check_nonnegative("noise_std", noise_std)
    check_param("return_relevant", return_relevant, ["boolean"], caller)
    rng = check_rng(random_state)
    y = (rng.uniform(size=n_samples) < 0.5).astype(np.int64)
    which = rng.randint(0, 2, n_samples)
    centres = np.array([[[-0.75, -3.0], [0.75, 3.0]],     # y = 0 (s = -1)
                        [[3.0, -3.0], [-3.0, 3.0]]])      # y = 1 (s = +1)
    X = np.empty((n_samples, n_features))
    X[:, :2] = centres[y, which] + rng.standard_normal((n_samples, 2))
    X[:, 2:] = noise_std * rng.standard_normal((n_samples, n_features - 2))
    y = _labels(y, labels, caller)
    return (X, y, np.arange(2)) if return_relevant else (X, y)


def make_sinc(n_samples=100, *, noise=0.1, random_state=None):
    """1-D regression toy: y = sinc(x) + e, x ~ U(-5, 5), e ~ N(0, noise^2).

    sinc(x) = sin(pi x) / (pi x) (numpy's convention, :func:`numpy.sinc`), with sinc(0) = 1.

    Parameters
    ----------
    n_samples : int, default=100
        Number of points.
    noise : float, default=0.1
        Standard deviation of the Gaussian noise on y (>= 0).
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
        The inputs x.
    y : ndarray of shape (n_samples,)
        The noisy targets (float).
    """
    n_samples = check_int("n_samples", n_samples)
    noise = check_nonnegative("noise", noise)
    rng = check_rng(random_state)
    x = rng.uniform(-5.0, 5.0, n_samples)
    y = np.sinc(x)
    y = y + noise * rng.standard_normal(n_samples)
    return x[:, None], y


def _blobs_toy(n_samples=200, noise=0.5, random_state=None):
    """Two Gaussian blobs centred at (-1, -1) and (1, 1) with standard deviation ``noise``."""
    noise = check_nonnegative("noise", noise)
    return make_blobs(n_samples, centers=[[-1.0, -1.0], [1.0, 1.0]], cluster_std=noise,
                      random_state=random_state)


def _spirals_toy(n_samples=200, noise=0.05, random_state=None):
    return make_two_spirals(n_samples, noise=noise, random_state=random_state)


#: 2-D two-class toys for the dashboards: ``{name: (callable, one-line description)}``. Every
#: callable takes ``(n_samples=200, noise=<default>, random_state=None)`` and returns ``(X, y)``
#: with X of shape (n, 2), roughly within [-2, 2]^2, and labels 0/1; ``noise`` is always the
#: standard deviation of Gaussian noise in data units (for 'blobs', the blob's standard deviation).
TOY_DATASETS = {
    "spirals": (_spirals_toy, "two interleaved spirals, 1.5 turns each (radius 1)"),
    "moons": (make_moons, "two interleaving half circles"),
    "xor": (make_xor, "XOR: uniform square, classes in opposite quadrants"),
    "blobs": (_blobs_toy, "two Gaussian blobs centred at (-1, -1) and (1, 1)"),
}

#: Default and suggested maximum of ``noise`` per toy, for sliders: ``{name: (default, maximum)}``.
TOY_NOISE = {
    "spirals": (0.05, 0.3),
    "moons": (0.1, 0.5),
    "xor": (0.1, 0.5),
    "blobs": (0.5, 1.5),
}


def make_toy(name, n_samples=200, *, noise=None, random_state=None):
    """Draw a sample of the 2-D two-class toy ``name`` of :data:`TOY_DATASETS`.

    Parameters
    ----------
    name : {'spirals', 'moons', 'xor', 'blobs'}
        The toy (a key of :data:`TOY_DATASETS`).
    n_samples : int, default=200
        Number of points.
    noise : float, default=None
        Standard deviation of the Gaussian noise in data units (for 'blobs', the blobs'
        standard deviation); None: the toy's default (:data:`TOY_NOISE`).
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        The points, roughly within [-2, 2]^2.
    y : ndarray of shape (n_samples,)
        Their labels, 0 and 1 (int).

    Examples
    --------
    >>> from kernelnb.datasets import make_toy
    >>> X, y = make_toy("xor", 50, noise=0.0, random_state=0)
    >>> print(X.shape, sorted(set(y.tolist())))
    (50, 2) [0, 1]
    """
    if not isinstance(name, str) or name not in TOY_DATASETS:
        # the names in a stable order (a set's order changes from one process to the next)
        raise ValueError(f"The 'name' parameter of make_toy must be one of "
                         f"{sorted(TOY_DATASETS)}. Got {name!r} instead.")
    func = TOY_DATASETS[name][0]
    if noise is None:
        noise = TOY_NOISE[name][0]
    return func(n_samples=n_samples, noise=noise, random_state=random_state)


def make_rotation_toy(n_samples, *, random_state=None):
    """The rotation toy of Chapelle's thesis, section 6.6.2: a disc against the rest of a square.

    Parameters
    ----------
    n_samples : int
        The number of points.
    random_state : int, RandomState instance or None, default=None
        The points' random draw.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Points uniform on ``[-1, 1]^2``.
    y : ndarray of shape (n_samples,)
        ``sign(||x||^2 - 0.7)``: -1 inside the disc, +1 outside (the labels are invariant
        under rotations about the origin).
    """
    n_samples = check_int("n_samples", n_samples)
    rng = check_rng(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n_samples, 2))
    return X, np.where((X ** 2).sum(axis=1) > 0.7, 1, -1)
