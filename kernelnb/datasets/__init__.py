"""Data sets of kernelnb: seed toys, bundled small UCI sets and a Fashion-MNIST loader.

* Toy generators (:mod:`kernelnb.datasets.toy`), deterministic under ``random_state``:
  :func:`make_two_spirals`, :func:`make_manifold_spiral` (Vincent's thesis, Table 13.1), :func:`make_moons`,
  :func:`make_xor`, :func:`make_blobs`, :func:`make_feature_selection_linear` and
  :func:`make_feature_selection_nonlinear` (Chapelle's thesis, ch. 5), :func:`make_sinc`; the registry
  :data:`TOY_DATASETS` of 2-D two-class toys for the dashboards. Class labels are 0/1.
* Bundled UCI sets (:mod:`kernelnb.datasets.uci`): :func:`load_sonar`, :func:`load_ionosphere`,
  :func:`load_pima`, :func:`load_breast_cancer`, :func:`load_boston`, :func:`load_dataset` and
  :data:`UCI_DATASETS`; sources and citations in ``data/ATTRIBUTION.txt`` (:func:`attribution`).
* :func:`load_fashion_mnist` reads the original idx files from ``data_home``, ``$KERNELNB_DATA`` or
  ``~/.cache/kernelnb``; it downloads only with ``download=True``.
* :func:`load_connect4` and :func:`connect4_splits` read the UCI Connect-4 positions (Collobert's
  thesis, ch. 7-8; the 126-input coding and the 50,000 / 7,500 / 10,000 split) from the same
  folders; :func:`connect4_positions` enumerates the 67,557 positions themselves, and the
  stand-alone ``scripts/build_connect4.py`` labels them once with a game solver and caches them.
"""
from .feature_toys import make_weston_linear, make_weston_nonlinear  # noqa: F401 (thesis ch. 5 toys)
from .large import make_large_problem  # noqa: F401 (scaling studies)
from .fashion_mnist import (
    FASHION_MNIST_CLASSES,
    FASHION_MNIST_URL,
    fashion_mnist_paths,
    load_fashion_mnist,
    read_idx,
)
from .toy import (
    MANIFOLD_SPIRAL_SIZES,
    TOY_DATASETS,
    TOY_NOISE,
    make_blobs,
    make_feature_selection_linear,
    make_feature_selection_nonlinear,
    make_manifold_spiral,
    make_manifold_spiral_splits,
    make_moons,
    make_rotation_toy,
    make_sinc,
    make_toy,
    make_two_spirals,
    make_xor,
)
from .uci import (
    UCI_DATASETS,
    attribution,
    load_boston,
    load_breast_cancer,
    load_dataset,
    load_ionosphere,
    load_pima,
    load_sonar,
)

__all__ = [
    "FASHION_MNIST_CLASSES", "FASHION_MNIST_URL", "fashion_mnist_paths", "load_fashion_mnist",
    "read_idx",
    "MANIFOLD_SPIRAL_SIZES", "TOY_DATASETS", "TOY_NOISE", "make_blobs",
    "make_feature_selection_linear", "make_feature_selection_nonlinear", "make_manifold_spiral",
    "make_manifold_spiral_splits", "make_moons", "make_rotation_toy", "make_sinc", "make_toy",
    "make_two_spirals",
    "make_xor",
    "UCI_DATASETS", "attribution", "load_boston", "load_breast_cancer", "load_dataset",
    "load_ionosphere", "load_pima", "load_sonar",
]

# --- issue15 connect4 ---
# The UCI Connect-4 set (Collobert's thesis, ch. 7-8): positions enumerated here, game values read
# from a cache file made once by scripts/build_connect4.py.
from .connect4 import (  # noqa: E402
    CONNECT4_COUNTS,
    CONNECT4_SIZES,
    connect4_positions,
    connect4_splits,
    encode_connect4,
    load_connect4,
)

__all__ += ["CONNECT4_COUNTS", "CONNECT4_SIZES", "connect4_positions", "connect4_splits",
            "encode_connect4", "load_connect4"]
# --- end issue15 connect4 ---
