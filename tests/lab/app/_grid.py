"""A chart's grid as the tests check it: one (x, y, z) per node."""
import numpy as np


def nodes(trace):
    """A heat map's or contour's grid (``x``, ``y`` its vectors, ``z`` rows along ``y``) as three
    columns, one entry per node, ``x`` running fastest; float64 for the comparisons."""
    x, y, z = (np.asarray(v, dtype=np.float64) for v in (trace.x, trace.y, trace.z))
    assert z.shape == (y.size, x.size), (x.shape, y.shape, z.shape)
    xx, yy = np.meshgrid(x, y)
    return xx.ravel(), yy.ravel(), z.ravel()
