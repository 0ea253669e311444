"""A chart's grid as the tests check it: one (x, y, z) per node."""
import numpy as np


def nodes(trace):
    """A heat map's or contour's grid (``x``, ``y`` its vectors, ``z`` rows along ``y``) as three
    columns, one entry per node, ``x`` running fastest; float64 for the comparisons."""
    x, y, z = (np.asarray(v, dtype=np.float64) for v in (trace.x, trace.y, trace.z))
    assert z.shape == (y.size, x.size), (x.shape, y.shape, z.shape)
    xx, yy = np.meshgrid(x, y)
    return xx.ravel(), yy.ravel(), z.ravel()


def level_values(line, surface):
    """The values of the heat map ``surface`` at the vertices of the line trace ``line``
    (its gaps left out), by scipy's linear interpolation of the heat map's grid: a vertex of a
    level line lies on a cell's edge, where that interpolation is linear along the edge, so it
    gives the level itself there (to the float32 rounding of the grid)."""
    from scipy.interpolate import RegularGridInterpolator
    x, y, z = (np.asarray(v, dtype=np.float64) for v in (surface.x, surface.y, surface.z))
    lx, ly = np.asarray(line.x, dtype=np.float64), np.asarray(line.y, dtype=np.float64)
    keep = np.isfinite(lx) & np.isfinite(ly)
    assert keep.any(), "the line has no vertex"
    at = RegularGridInterpolator((y, x), z, bounds_error=False, fill_value=None)  # float32 border
    return at(np.column_stack([ly[keep], lx[keep]])), z
