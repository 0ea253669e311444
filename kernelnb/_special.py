"""Special functions the estimators share.

scipy's ``logsumexp`` pays for its generality (any axis, weights, signs, array types) on every
call; on the small blocks a fit evaluates many times (a Fisher kernel's n x M responsibilities
at each of a tuning's evaluations: 200 x 4 took it 80 us, the function below 20 us) that is
most of the work.
"""
from __future__ import annotations

import numpy as np

__all__ = ["logsumexp_rows"]


def logsumexp_rows(A):
    """log sum_j exp(A[i, j]) for every row i of a 2-D float array, overwriting ``A``.

    The max-shifted sum: the row's largest entry m_i is taken out (so the largest exp is 1,
    nothing overflows, and a row of very negative log-densities keeps its precision), then
    ``m_i + log sum_j exp(A_ij - m_i)``, made in place on the block.  A row of ``-inf`` gives
    ``-inf``, a row holding ``+inf`` gives ``+inf`` and one holding NaN gives NaN, as scipy's
    ``logsumexp``.  Used by the Parzen and Manifold Parzen densities (Vincent 2003, ch. 13:
    log p(x) = log (1/l) sum_i N_i(x)) and the Fisher kernel's mixture (Jaakkola & Haussler
    1999: its responsibilities, at every evaluation of the tuning)."""
    m = A.max(axis=1)
    odd = ~np.isfinite(m)                 # a row of -inf, or holding +inf or NaN: its max
    shift = np.where(odd, 0.0, m)
    A -= shift[:, None]
    # After the shift the largest term is exp(0) = 1, so terms below exp(-700) (about 1e-304) are
    # under the sum's rounding; raising them to it changes no sum, and spares the exponential its
    # slow path for arguments far below its underflow (most of a density's far components).
    np.maximum(A, -700.0, out=A)
    np.exp(A, out=A)
    out = np.log(A.sum(axis=1)) + shift
    out[odd] = m[odd]
    return out
