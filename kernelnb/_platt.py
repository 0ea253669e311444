"""Platt's sigmoid for SVM outputs, the package's one fit (used by the mixture of SVMs'
experts and by active learning's posteriors)."""
from __future__ import annotations

import numpy as np
from scipy.special import expit, log_expit

__all__ = ["platt_fit"]


def platt_fit(F, y, max_iter=100, tol=1e-10):
    """Platt's sigmoid ``P(y=+1 | f) = expit(a f + b)`` by maximum likelihood, for a batch.

    Fits (8.3) of Chapelle's thesis (section 8.4.1; Platt 2000), with Platt's smoothed targets
    ``(n+ + 1)/(n+ + 2)`` and ``1/(n- + 2)`` so that separable data give finite ``a, b``.  The
    thesis writes ``1/(1 + exp(A f + B))``: ``A = -a``, ``B = -b``.  Active learning fits one
    sigmoid per candidate and label (fast GEM, thesis 8.6), so the fits are vectorised: Newton
    steps on the 2x2 Hessians of every row at once with backtracking (the safeguarded Newton
    method of Lin, Lin & Weng, *A note on Platt's probabilistic outputs for support vector
    machines*, Machine Learning 68, 2007).

    Parameters
    ----------
    F : array of shape (n_fits, n_points) or (n_points,)
        Outputs (e.g. leave-one-out SVM outputs) of each fit's points.
    y : array of the same shape
        Their labels, ``+1`` or ``-1``.
    max_iter : int, default=100
        Most Newton steps.
    tol : float, default=1e-10
        Stop when every gradient's largest entry is below ``tol``.

    Returns
    -------
    ndarray of shape (n_fits, 2) or (2,)
        ``(a, b)`` per fit.

    Examples
    --------
    >>> import numpy as np
    >>> from kernelnb.unlabeled import platt_fit
    >>> f = np.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0])
    >>> y = np.array([-1, -1, 1, -1, 1, 1])
    >>> a, b = platt_fit(f, y)
    >>> bool(a > 0)
    True
    """
    F = np.asarray(F, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    single = F.ndim == 1
    F = np.atleast_2d(F)
    y = np.atleast_2d(y)
    pos = y > 0
    n_pos = pos.sum(axis=1, keepdims=True)
    n_neg = (~pos).sum(axis=1, keepdims=True)
    t = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    a = np.zeros(F.shape[0])
    b = np.log((n_pos[:, 0] + 1.0) / (n_neg[:, 0] + 1.0))

    def nll(a, b):
        z = a[:, None] * F + b[:, None]
        return -np.sum(t * log_expit(z) + (1 - t) * log_expit(-z), axis=1)

    value = nll(a, b)
    for _ in range(max_iter):
        z = a[:, None] * F + b[:, None]
        p = expit(z)
        r = p - t
        ga, gb = np.sum(r * F, axis=1), np.sum(r, axis=1)
        if max(np.max(np.abs(ga)), np.max(np.abs(gb))) < tol:
            break
        w = p * (1 - p)
        haa = np.sum(w * F * F, axis=1) + 1e-12
        hab = np.sum(w * F, axis=1)
        hbb = np.sum(w, axis=1) + 1e-12
        det = haa * hbb - hab * hab
        da = -(hbb * ga - hab * gb) / det
        db = -(haa * gb - hab * ga) / det
        step = np.ones_like(a)
        todo = np.ones(a.shape[0], dtype=bool)
        for _ in range(40):          # backtracking: halve until the likelihood does not drop
            na, nb = a + step * da, b + step * db
            nv = nll(na, nb)
            ok = todo & (nv <= value + 1e-4 * step * (ga * da + gb * db) + 1e-12)
            a = np.where(ok, na, a)
            b = np.where(ok, nb, b)
            value = np.where(ok, nv, value)
            todo &= ~ok
            if not todo.any():
                break
            step = np.where(todo, step * 0.5, step)
    out = np.column_stack([a, b])
    return out[0] if single else out
