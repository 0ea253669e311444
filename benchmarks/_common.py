"""Helpers shared by the benchmark scripts."""
from kernelnb.datasets import load_fashion_mnist


def fashion(kind):
    """Fashion-MNIST (``kind`` 'train' or 'test') where the loader finds it: the folder named by
    KERNELNB_DATA, else ~/.cache/kernelnb."""
    return load_fashion_mnist(kind)


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
