"""One stratified random subset, for the data sets and the learning curves."""
import numpy as np

__all__ = ["stratified_subset"]


def stratified_subset(y, n, random_state):
    """Sorted positions of ``n`` elements of ``y`` keeping its class proportions.

    scikit-learn's ``train_test_split(stratify=y)`` draws them (class proportions kept up to
    rounding). Where it cannot stratify (a class with a single member, or ``n`` smaller than
    the number of classes) one element of each class is taken first, as far as ``n`` allows,
    then the rest at random.

    Parameters
    ----------
    y : array of shape (m,)
        Labels.
    n : int
        Size of the subset; ``n >= m`` returns every position.
    random_state : int or numpy.random.RandomState

    Returns
    -------
    ndarray of int, shape (min(n, m),)
        Increasing positions in ``y``.
    """
    from sklearn.model_selection import train_test_split
    from sklearn.utils import check_random_state

    y = np.asarray(y)
    pos = np.arange(y.shape[0])
    if n >= pos.size:
        return pos
    rs = check_random_state(random_state)
    try:
        sub, _ = train_test_split(pos, train_size=int(n), stratify=y, random_state=rs)
    except ValueError:          # too few members to stratify: one of each class, then at random
        first = np.array([rs.choice(pos[y == c]) for c in np.unique(y)], dtype=pos.dtype)
        first = rs.permutation(first)[:n]
        rest = rs.permutation(np.setdiff1d(pos, first))[:n - first.size]
        sub = np.concatenate([first, rest])
    return np.sort(sub)
