"""Data sets of kernelnb: seed toys, bundled small UCI sets, Fashion-MNIST and Connect-4 loaders.

* Toy generators (:mod:`kernelnb.datasets.toy`), deterministic under ``random_state``:
  :func:`make_two_spirals`, :func:`make_manifold_spiral` and :func:`make_manifold_spiral_splits`
  (Vincent's thesis, Table 13.1), :func:`make_moons`, :func:`make_xor`, :func:`make_blobs`,
  :func:`make_feature_selection_linear` and :func:`make_feature_selection_nonlinear`
  (Chapelle's thesis, ch. 5), :func:`make_sinc`; :func:`make_toy` draws one of the 2-D
  two-class toys of the registry :data:`TOY_DATASETS` (the dashboards' data). Class labels are
  0/1, but for :func:`make_rotation_toy` (Chapelle's thesis, 6.6.2: -1/+1, a disc). :func:`make_large_problem` draws the synthetic problem of the scaling studies.
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
from .connect4 import connect4_positions, connect4_splits, encode_connect4, load_connect4
from .fashion_mnist import FASHION_MNIST_CLASSES, fashion_mnist_paths, load_fashion_mnist, read_idx
from .large import make_large_problem
from .toy import (
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
    # generators
    "make_blobs", "make_feature_selection_linear", "make_feature_selection_nonlinear",
    "make_large_problem", "make_manifold_spiral", "make_manifold_spiral_splits", "make_moons",
    "make_rotation_toy", "make_sinc", "make_toy", "make_two_spirals", "make_xor", "TOY_DATASETS",
    "TOY_NOISE",
    # bundled UCI sets
    "attribution", "load_boston", "load_breast_cancer", "load_dataset", "load_ionosphere",
    "load_pima", "load_sonar", "UCI_DATASETS",
    # Fashion-MNIST
    "fashion_mnist_paths", "load_fashion_mnist", "read_idx", "FASHION_MNIST_CLASSES",
    # Connect-4
    "connect4_positions", "connect4_splits", "encode_connect4", "load_connect4",
]
