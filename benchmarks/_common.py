"""Helpers shared by the benchmark scripts."""
import os
from pathlib import Path

from kernelnb.datasets import load_fashion_mnist


def fashion(kind):
    """Fashion-MNIST from KERNELNB_DATA, else from ../shared/data beside the repository."""
    shared = Path(__file__).resolve().parents[1].parent / "shared" / "data"
    home = None if os.environ.get("KERNELNB_DATA") or not shared.is_dir() else shared
    return load_fashion_mnist(kind, data_home=home)


def peer_svcs():
    """The peers' SVC classes, ``(scikit-learn's, scikit-learn-intelex's)``; None for one that is
    not installed."""
    try:
        from sklearn.svm import SVC as sk
    except ImportError:  # pragma: no cover
        sk = None
    try:
        from sklearnex.svm import SVC as skx
    except ImportError:
        skx = None
    return sk, skx
