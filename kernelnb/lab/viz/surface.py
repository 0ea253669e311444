"""Decision surfaces of 2-D classifiers: the function f on a grid, its -1/0/+1 level lines, the
training points by class and the support vectors, free (0 < alpha < C) or at bound (alpha = C).

The picture is the one of the SVM chapters of the seeds (Collobert's thesis ch. 1-3;
Chapelle's thesis ch. 1): the
separating surface f(x) = 0, the margins f(x) = +-1, and the points that define them.

The figure has a fixed trace order (:data:`SURFACE_TRACES`) so that a dashboard can update an
existing ``go.FigureWidget`` in place with :func:`surface_data` instead of rebuilding it.
"""
import numbers

import numpy as np
import plotly.graph_objects as go

from ..i18n import _
from ._style import (BASE_LAYOUT, CLASS_COLORS, CLASS_SYMBOLS, COLORBAR_MARGIN_R, DASHES,
                     SURFACE_SCALE, series_color, title_layout)

__all__ = ["SURFACE_TRACES", "LEVEL_LINE_TRACES", "plane_bounds", "decision_grid", "grid_arrays",
           "level_lines", "nice_levels", "support_masks", "margin_width", "surface_data",
           "decision_surface", "boundaries_figure", "ellipse_outlines"]

#: Trace order of :func:`decision_surface` (``fig.data[i].uid`` equals the name).
SURFACE_TRACES = ("surface", "boundary", "margins", "class0", "class1", "sv_free", "sv_bound")

#: The traces of :data:`SURFACE_TRACES` that draw level lines of f (f = 0 and f = +-1): contour
#: traces, or with ``lines=True`` line traces of :func:`level_lines` (their ``meta`` names them).
LEVEL_LINE_TRACES = ("boundary", "margins")

#: The ``meta`` of a line trace of :func:`level_lines` other than a plane's f = 0 and f = +-1
#: (the density explorer's levels of log p): screen readers hear it as contour lines too.
LEVELS_META = "levels"

#: Colour range of the surface: |f| beyond this saturates (the margins are at +-1).
Z_RANGE = 2.0


def _check_grid(grid):
    if isinstance(grid, (bool, np.bool_)) or not isinstance(grid, numbers.Integral) or grid < 2:
        raise ValueError(f"grid must be an integer >= 2, got {grid!r}")
    if grid > 1000:
        raise ValueError(f"grid must be at most 1000 (grid**2 decision values), got {grid!r}")
    return int(grid)


def _check_2d(X, name="X"):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n_samples, 2) for a plane figure, got {X.shape}")
    if X.shape[0] and not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return X


def plane_bounds(X, padding=0.1):
    """The rectangle of a set of 2-D points, widened on each side.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)
        Finite points of the plane.
    padding : float, default=0.1
        Each side moves out by this fraction of the points' span along its axis.

    Returns
    -------
    tuple of float
        ``(xmin, xmax, ymin, ymax)``; ``(-1, 1, -1, 1)`` for no points.
    """
    X = _check_2d(X)
    if X.shape[0] == 0:
        return (-1.0, 1.0, -1.0, 1.0)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    lo, hi = lo - padding * span, hi + padding * span
    return (float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1]))


def decision_grid(model, bounds, grid=100):
    """Decision values of ``model`` on a ``grid`` x ``grid`` lattice of the rectangle ``bounds``.

    Parameters
    ----------
    model : fitted binary classifier or None
        Its ``decision_function`` gives one value per 2-D point. None: a model that does not
        exist (a hard margin on a sample it cannot separate), every value NaN, nothing drawn.
    bounds : tuple of float
        ``(xmin, xmax, ymin, ymax)``, the rectangle covered.
    grid : int, default=100
        Points per axis, from 2 to 1000.

    Returns
    -------
    xs, ys : ndarray of shape (grid,)
        Grid coordinates.
    Z : ndarray of shape (grid, grid)
        ``Z[i, j] = f(xs[j], ys[i])`` (rows follow y, as plotly's heat maps expect).
    """
    grid = _check_grid(grid)
    xmin, xmax, ymin, ymax = bounds
    xs = np.linspace(xmin, xmax, grid)
    ys = np.linspace(ymin, ymax, grid)
    if model is None:
        return xs, ys, np.full((grid, grid), np.nan)
    xx, yy = np.meshgrid(xs, ys)
    P = np.column_stack([xx.ravel(), yy.ravel()])
    Z = np.asarray(model.decision_function(P), dtype=np.float64)
    if Z.ndim != 1:
        raise ValueError("decision_surface needs a binary classifier whose decision_function is "
                         f"one value per point; got shape {Z.shape}")
    return xs, ys, Z.reshape(grid, grid)


def grid_arrays(xs, ys, Z):
    """A grid for a ``FigureWidget``'s heat map or contour: its vectors and values in float32.

    kernelnb's ``FigureWidget`` (:mod:`kernelnb.lab.viz._figure_widget`) sends a 1-D numeric
    array as a binary buffer and a 2-D one as binary rows, which plotly.js draws as they come; a
    float64 grid would take twice the bytes for digits no pixel or colour of a chart shows
    (float32 keeps 7 significant digits).

    Parameters
    ----------
    xs, ys : array-like of shape (nx,) and (ny,)
        Grid coordinates, as :func:`decision_grid` gives them.
    Z : array-like of shape (ny, nx)
        ``Z[i, j]``, the value at ``(xs[j], ys[i])``.

    Returns
    -------
    x : ndarray of shape (nx,), float32
        ``xs``.
    y : ndarray of shape (ny,), float32
        ``ys``.
    z : ndarray of shape (ny, nx), float32
        ``Z``. All three are empty (shape ``(0,)``) when ``Z`` has no finite value (nothing to
        draw: a contour given a grid with no value logs an error in the browser).
    """
    xs, ys, Z = np.ravel(xs), np.ravel(ys), np.asarray(Z)
    if Z.shape != (ys.size, xs.size):
        raise ValueError(f"Z must have shape (len(ys), len(xs)) = {(ys.size, xs.size)}, "
                         f"got {Z.shape}")
    if not np.isfinite(Z).any():
        return tuple(np.empty(0, dtype=np.float32) for _ in range(3))
    return xs.astype(np.float32), ys.astype(np.float32), Z.astype(np.float32)


def level_lines(xs, ys, Z, levels):
    """The lines ``f = level`` of a grid of f, for each level, as one polyline.

    The grid's marching squares (contourpy, the algorithm of matplotlib's contours): each line
    crosses a cell's edges where f, interpolated linearly along the edge, equals the level, as
    the lines of a plotly contour trace do. A dashboard sends these few hundred points and
    plotly draws them as a line trace, where a contour trace would be sent the whole grid again
    and trace its lines in the browser at every drawing (in Chromium, two such traces per plane
    took a fifth of the KMP playground's time per slider step).

    Parameters
    ----------
    xs, ys : array-like of shape (nx,) and (ny,)
        Grid coordinates, as :func:`decision_grid` gives them.
    Z : array-like of shape (ny, nx)
        ``Z[i, j]``, the value at ``(xs[j], ys[i])``; NaN where f is not defined (no line
        crosses such a cell). Empty, with ``xs`` and ``ys`` (:func:`grid_arrays` of a grid
        without a finite value): no line.
    levels : sequence of float
        The levels, e.g. ``(0.0,)`` for a boundary, ``(-1.0, 1.0)`` for the margins.

    Returns
    -------
    x : ndarray of shape (n_points,)
        The lines' first coordinates, one line after the other, NaN between two (a gap in a
        plotly line trace); in the dtype of ``Z`` when it is float32 (:func:`grid_arrays`),
        else float64. Empty when no line crosses the grid (every value on one side, or none
        finite).
    y : ndarray of shape (n_points,)
        Their second coordinates, NaN where ``x`` is.
    """
    import contourpy

    xs, ys, Z = np.ravel(xs), np.ravel(ys), np.asarray(Z)
    dtype = np.float32 if Z.dtype == np.float32 else np.float64
    if Z.size == 0:                   # grid_arrays' grid of nothing to draw
        return np.empty(0, dtype=dtype), np.empty(0, dtype=dtype)
    if Z.shape != (ys.size, xs.size):
        raise ValueError(f"Z must have shape (len(ys), len(xs)) = {(ys.size, xs.size)}, "
                         f"got {Z.shape}")
    pieces = []
    if xs.size >= 2 and ys.size >= 2 and np.isfinite(Z).any():
        gen = contourpy.contour_generator(xs.astype(np.float64), ys.astype(np.float64),
                                          np.ma.masked_invalid(Z.astype(np.float64)),
                                          line_type=contourpy.LineType.ChunkCombinedNan)
        for level in levels:
            for chunk in gen.lines(float(level))[0]:
                if chunk is not None and len(chunk):
                    if pieces:
                        pieces.append(np.full((1, 2), np.nan))
                    pieces.append(chunk)
    if not pieces:
        return np.empty(0, dtype=dtype), np.empty(0, dtype=dtype)
    points = np.concatenate(pieces).astype(dtype)
    return points[:, 0].copy(), points[:, 1].copy()


def nice_levels(Z, n):
    """At most ``n`` round levels between the least and the greatest finite value of ``Z``.

    The step is the first of 1, 2 and 5 times a power of ten that is at least the range over
    ``n``, and the levels are its multiples strictly inside the range: the levels a plotly
    contour trace with ``ncontours=n`` chooses itself, for :func:`level_lines` to draw.

    Parameters
    ----------
    Z : array-like
        The values (any shape); NaN and infinite values are left out.
    n : int
        The most levels wanted, at least 1.

    Returns
    -------
    ndarray of shape (n_levels,)
        The levels, increasing; empty when ``Z`` has fewer than two distinct finite values.
    """
    if int(n) < 1:
        raise ValueError(f"n must be at least 1, got {n!r}")
    z = np.asarray(Z, dtype=np.float64)
    z = z[np.isfinite(z)]
    if z.size == 0 or z.max() <= z.min():
        return np.empty(0)
    lo, hi = float(z.min()), float(z.max())
    rough = (hi - lo) / int(n)
    power = 10.0 ** np.floor(np.log10(rough))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= rough * (1 - 1e-12))
    first, last = np.floor(lo / step) + 1, np.ceil(hi / step) - 1
    return step * np.arange(first, last + 1)


def support_masks(model):
    """Indices (into the training set) of the free and the at-bound support vectors.

    Parameters
    ----------
    model : fitted classifier
        Uses ``model.support_`` and ``model.at_bound_`` (kernelnb's SVC); for an estimator
        without ``at_bound_`` (scikit-learn's SVC) a support vector is at bound when
        ``|dual_coef_|`` reaches ``C`` to a relative 1e-8. Models without ``support_`` have no
        support vectors.

    Returns
    -------
    free : ndarray of int
        Training indices of the free support vectors (0 < alpha < C).
    bound : ndarray of int
        Training indices of the support vectors at bound (alpha = C).
    """
    support = getattr(model, "support_", None)
    if support is None:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    support = np.asarray(support, dtype=np.intp)
    at_bound = getattr(model, "at_bound_", None)
    if at_bound is None:
        C = float(getattr(model, "C", np.inf))
        coef = np.abs(np.atleast_2d(getattr(model, "dual_coef_", np.zeros((1, support.size)))))
        if coef.shape[1] != support.size and support.size and coef.shape[1] > support.max():
            coef = coef[:, support]       # one coefficient per training point (a dual Perceptron)
        at_bound = np.isfinite(C) & np.any(coef >= C * (1 - 1e-8), axis=0)
    at_bound = np.asarray(at_bound, dtype=bool)
    return support[~at_bound], support[at_bound]


def margin_width(model):
    """Geometric margin width ``2 / ||w||`` of a fitted binary kernel SVM.

    ``||w||^2 = sum_ij (y_i alpha_i)(y_j alpha_j) k(x_i, x_j)`` over the support vectors
    (``dual_coef_`` and the fitted ``kernel_`` of kernelnb's SVC); for kernelnb's L1 soft margin
    it is read from the dual objective, ``||w||^2 = 2 (objective_ + sum alpha)``.

    Parameters
    ----------
    model : fitted binary SVM
        Read through ``dual_coef_``, ``support_vectors_`` and ``kernel_``, or ``margin``,
        ``objective_`` and ``dual_coef_`` for kernelnb's L1 soft margin.

    Returns
    -------
    float
        The width; ``inf`` when w = 0 (no support vector), ``nan`` for a model without these
        attributes or with several binary problems.
    """
    coef = getattr(model, "dual_coef_", None)
    kern = getattr(model, "kernel_", None)
    sv = getattr(model, "support_vectors_", None)
    if coef is None:
        return float("nan")
    coef = np.atleast_2d(np.asarray(coef, dtype=np.float64))
    if coef.shape[0] != 1:
        return float("nan")
    if coef.shape[1] == 0:
        return float("inf")
    objective = getattr(model, "objective_", None)
    if (getattr(model, "margin", None) == "l1" and objective is not None
            and np.ndim(objective) == 0 and type(model).__module__.startswith("kernelnb.svm")):
        # kernelnb's L1 dual objective is D = ||w||^2 / 2 - sum(alpha), for any alpha: no kernel
        w2 = 2.0 * (float(objective) + float(np.abs(coef).sum()))
    elif kern is None or sv is None or not callable(kern):
        return float("nan")
    else:
        K = np.asarray(kern(np.asarray(sv, dtype=np.float64)), dtype=np.float64)
        w2 = float(coef[0] @ K @ coef[0])
    return 2.0 / np.sqrt(w2) if w2 > 0 else float("inf")


def _class_arrays(X, y, classes=None):
    y = np.asarray(y)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have different lengths: {X.shape[0]} and {y.shape[0]}")
    if classes is None:
        classes = np.unique(y)
    if len(classes) > 2:
        raise ValueError(f"a plane figure shows two classes, y has {len(classes)}: {list(classes)}")
    out = []
    for k in range(2):
        mask = (y == classes[k]) if k < len(classes) else np.zeros(y.shape, dtype=bool)
        out.append(X[mask])
    return classes, out


def surface_data(model, X, y, grid=100, bounds=None, padding=0.1, binary=False, lines=False,
                 margin_levels=(-1.0, 1.0)):
    """Everything :func:`decision_surface` draws, as ``{trace uid: {property: value}}``.

    A dashboard applies it to an existing figure (``fig.data[k].update(**props)``) inside
    ``batch_update()``.

    Parameters
    ----------
    model : fitted binary classifier with ``decision_function``
        As for :func:`decision_surface`.
    X : array-like of shape (n_samples, 2)
        The training points.
    y : array-like of shape (n_samples,)
        Their labels (at most two classes).
    grid : int, default=100
        The surface is evaluated on ``grid`` x ``grid`` points.
    bounds : tuple of float, optional
        ``(xmin, xmax, ymin, ymax)``; default: :func:`plane_bounds` of ``X`` with ``padding``.
    padding : float, default=0.1
        Widening of the data's box when ``bounds`` is None.
    binary : bool, default=False
        Give the surface and contour traces their grid in float32 (:func:`grid_arrays`), which
        kernelnb's ``FigureWidget`` sends as binary buffers: 40 kB a trace at grid=100, where
        float64 as nested JSON lists took 200 kB and its encoding's time.
    lines : bool, default=False
        The boundary and the margins as the ``x``, ``y`` of their lines (:func:`level_lines`),
        for a figure of :func:`decision_surface` with ``lines=True``; by default as the grid
        of a contour trace.
    margin_levels : sequence of float, default=(-1.0, 1.0)
        The levels of the margins' lines, with ``lines``.

    Returns
    -------
    dict
        One entry per name of :data:`SURFACE_TRACES` (the properties of that trace: ``x``,
        ``y``, ``z`` or ``x``, ``y``, ``name``), and ``'_bounds'``, the rectangle drawn.
    """
    X = _check_2d(X)
    if bounds is None:
        bounds = plane_bounds(X, padding)
    xs, ys, Z = decision_grid(model, bounds, grid)
    if binary:
        xs, ys, Z = grid_arrays(xs, ys, Z)
    classes, parts = _class_arrays(X, y, getattr(model, "classes_", None))
    free, bound = support_masks(model)
    names = [_("class {c}").format(c=c) for c in classes] + [_("(none)")] * (2 - len(classes))
    data = {"surface": dict(x=xs, y=ys, z=Z)}
    for uid, levels in zip(LEVEL_LINE_TRACES, ((0.0,), margin_levels)):
        data[uid] = (dict(zip(("x", "y"), level_lines(xs, ys, Z, levels))) if lines
                     else dict(x=xs, y=ys, z=Z))
    for k in range(2):
        data[f"class{k}"] = dict(x=parts[k][:, 0], y=parts[k][:, 1],
                                 name=f"{names[k]} ({parts[k].shape[0]})")
    data["sv_free"] = dict(x=X[free, 0], y=X[free, 1],
                           name=_("free SV, 0 < α < C ({n})").format(n=free.size))
    data["sv_bound"] = dict(x=X[bound, 0], y=X[bound, 1],
                            name=_("bound SV, α = C ({n})").format(n=bound.size))
    data["_bounds"] = bounds
    return data


def decision_surface(model, X, y, grid=100, show_margins=True, show_support=True, bounds=None,
                     padding=0.1, title=None, binary=False, lines=False):
    """Plotly figure of a fitted binary classifier on 2-D data.

    Parameters
    ----------
    model : fitted binary classifier with ``decision_function``
        Kernelnb's :class:`~kernelnb.svm.SVC` shows its support vectors (``support_``,
        ``at_bound_``); any other classifier shows its surface and boundary.
    X : array of shape (n_samples, 2)
        The training points (those the model was fitted on, so that ``support_`` indexes them).
    y : array of shape (n_samples,)
        Their labels (two classes).
    grid : int, default=100
        The surface is evaluated on ``grid`` x ``grid`` points.
    show_margins : bool, default=True
        Draw the level lines f = -1 and f = +1 (dashed) beside f = 0 (solid).
    show_support : bool, default=True
        Mark the support vectors, free (open circles) and at bound (open squares).
    bounds : (xmin, xmax, ymin, ymax), optional
        Plotted rectangle; default: the data's box widened by ``padding`` of its span.
    padding : float, default=0.1
        Widening of the data's box when ``bounds`` is None.
    title : str, optional
        Figure title (none by default).
    binary : bool, default=False
        Give the surface its grid in float32 (see :func:`surface_data`), the light form for a
        ``FigureWidget`` that is updated often.
    lines : bool, default=False
        Draw f = 0 and f = +-1 as line traces of :func:`level_lines` (the light form for a
        ``FigureWidget``, updated with :func:`surface_data` and ``lines=True``), not as contour
        traces.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces in the order of :data:`SURFACE_TRACES` (heat map of f, contour f = 0, contour
        f = +-1, the two classes, free SVs, bound SVs); each trace's ``uid`` and ``meta`` is its
        name there (a ``FigureWidget`` replaces uids, ``meta`` stays).
    """
    d = surface_data(model, X, y, grid=grid, bounds=bounds, padding=padding, binary=binary,
                     lines=lines)
    fig = go.Figure()
    fig.add_trace(go.Heatmap(
        uid="surface", meta="surface", name="f(x)", **d["surface"], colorscale=SURFACE_SCALE,
        zmid=0.0,
        zmin=-Z_RANGE, zmax=Z_RANGE, zauto=False, opacity=0.85,
        colorbar=dict(title=dict(text="f(x)", side="right"), thickness=12, len=0.75,
                      tickvals=[-2, -1, 0, 1, 2]),
        hovertemplate="x₁ = %{x:.2f}<br>x₂ = %{y:.2f}<br>f(x) = %{z:.3f}<extra></extra>"))
    styles = {"boundary": dict(name="f(x) = 0", line=dict(width=2.5, color="black")),
              "margins": dict(name="f(x) = ±1", visible=bool(show_margins),
                              line=dict(width=1.5, dash="dash", color="#333333"))}
    for uid, (start, end, size) in zip(LEVEL_LINE_TRACES, ((0.0, 0.0, 1.0), (-1.0, 1.0, 2.0))):
        style = styles[uid]
        if lines:
            fig.add_trace(go.Scatter(uid=uid, meta=uid, **d[uid], **style, mode="lines",
                                     connectgaps=False, showlegend=True, hoverinfo="skip"))
        else:
            color = style["line"]["color"]
            fig.add_trace(go.Contour(
                uid=uid, meta=uid, **d[uid], **style, showscale=False, showlegend=True,
                contours=dict(start=start, end=end, size=size, coloring="lines",
                              showlabels=False),
                colorscale=[[0, color], [1, color]], hoverinfo="skip"))
    for k in range(2):
        fig.add_trace(go.Scatter(
            uid=f"class{k}", meta=f"class{k}", **d[f"class{k}"], mode="markers",
            marker=dict(color=CLASS_COLORS[k], symbol=CLASS_SYMBOLS[k], size=7,
                        line=dict(color="white", width=0.6)),
            hovertemplate="(%{x:.2f}, %{y:.2f})<extra>%{fullData.name}</extra>"))
    fig.add_trace(go.Scatter(
        uid="sv_free", meta="sv_free", **d["sv_free"], mode="markers",
        visible=bool(show_support),
        marker=dict(symbol="circle-open", size=13, color="black", line=dict(width=1.6)),
        hoverinfo="skip"))
    fig.add_trace(go.Scatter(
        uid="sv_bound", meta="sv_bound", **d["sv_bound"], mode="markers",
        visible=bool(show_support),
        marker=dict(symbol="square-open", size=12, color="#555555", line=dict(width=1.2)),
        hoverinfo="skip"))
    xmin, xmax, ymin, ymax = d["_bounds"]
    fig.update_layout(
        **BASE_LAYOUT, title=title_layout(title), hovermode="closest",
        xaxis=dict(title=dict(text=_("x₁ (feature 1)")), range=[xmin, xmax], showgrid=False,
                   zeroline=False, constrain="domain"),
        yaxis=dict(title=dict(text=_("x₂ (feature 2)")), range=[ymin, ymax], showgrid=False,
                   zeroline=False, scaleanchor="x", scaleratio=1, constrain="domain"),
    )
    # room for the y tick labels (the axis range follows the data) and the colour bar of f(x)
    fig.update_layout(margin=dict(l=70, r=COLORBAR_MARGIN_R))
    return fig


def boundaries_figure(models, X, y, grid=100, bounds=None, padding=0.1, title=None):
    """The f = 0 lines of several fitted classifiers over the same 2-D data.

    Parameters
    ----------
    models : dict
        ``{label: fitted binary classifier}``: one solid/dashed coloured line per model, in
        order, labelled in the legend.
    X : array-like of shape (n_samples, 2)
        Points shown (e.g. the training data).
    y : array-like of shape (n_samples,)
        Their labels (at most two classes).
    grid : int, default=100
        Each model's decision function is evaluated on ``grid`` x ``grid`` points.
    bounds : tuple of float, optional
        ``(xmin, xmax, ymin, ymax)``; default: :func:`plane_bounds` of ``X`` with ``padding``.
    padding : float, default=0.1
        Widening of the data's box when ``bounds`` is None.
    title : str, optional
        Figure title (none by default).

    Returns
    -------
    plotly.graph_objects.Figure
        Two scatter traces (the classes, uids ``class0``/``class1``) then one contour per model
        (uid ``boundary<i>``).
    """
    X = _check_2d(X)
    if bounds is None:
        bounds = plane_bounds(X, padding)
    classes, parts = _class_arrays(X, y)
    fig = go.Figure()
    for k in range(2):
        name = (_("class {c} ({n})").format(c=classes[k], n=parts[k].shape[0])
                if k < len(classes) else _("(none)"))
        fig.add_trace(go.Scatter(
            uid=f"class{k}", x=parts[k][:, 0], y=parts[k][:, 1], name=name, mode="markers",
            marker=dict(color=CLASS_COLORS[k], symbol=CLASS_SYMBOLS[k], size=7, opacity=0.8,
                        line=dict(color="white", width=0.6))))
    for i, (label, model) in enumerate(models.items()):
        xs, ys, Z = decision_grid(model, bounds, grid)
        color = series_color(i)
        fig.add_trace(go.Contour(
            uid=f"boundary{i}", name=str(label), x=xs, y=ys, z=Z, showscale=False,
            showlegend=True, hoverinfo="skip",
            contours=dict(start=0.0, end=0.0, size=1.0, coloring="lines", showlabels=False),
            colorscale=[[0, color], [1, color]],
            line=dict(width=3, color=color, dash=DASHES[i % len(DASHES)])))
    xmin, xmax, ymin, ymax = bounds
    fig.update_layout(
        **BASE_LAYOUT, title=title_layout(title),
        xaxis=dict(title=dict(text=_("x₁ (feature 1)")), range=[xmin, xmax], zeroline=False,
                   constrain="domain"),
        yaxis=dict(title=dict(text=_("x₂ (feature 2)")), range=[ymin, ymax], zeroline=False,
                   scaleanchor="x", scaleratio=1, constrain="domain"),
    )
    return fig


def ellipse_outlines(centres, covariances, scale=1.0, n_points=33):
    """Outlines of ellipses around 2-D centres, as one polyline for a single plotly trace.

    The ellipse around centre ``c`` is ``{c + scale * L u : ||u|| = 1}`` with ``L L'`` its
    covariance; the outlines follow one another, separated by None.

    Parameters
    ----------
    centres : array of shape (n, 2)
        Centres of the ellipses.
    covariances : array of shape (n, 2, 2), (n,) or scalar
        Symmetric positive semi-definite 2x2 matrices; a number ``v`` stands for ``v * I``
        (a circle of radius ``scale * sqrt(v)``).
    scale : float, default=1.0
        Multiplies every semi-axis.
    n_points : int, default=33
        Points per outline (the first repeated as the last).

    Returns
    -------
    xs : list of float and None
        The x coordinates of the outlines, None after each.
    ys : list of float and None
        The y coordinates, aligned with ``xs``.
    """
    C = _check_2d(centres, "centres")
    S = np.asarray(covariances, dtype=np.float64)
    if S.ndim <= 1:
        S = np.broadcast_to(S.reshape(-1, 1, 1) * np.eye(2), (C.shape[0], 2, 2))
    if S.shape != (C.shape[0], 2, 2):
        raise ValueError(f"covariances must have shape ({C.shape[0]}, 2, 2) for "
                         f"{C.shape[0]} centres, got {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError("covariances must be finite")
    w, V = np.linalg.eigh(0.5 * (S + np.swapaxes(S, 1, 2)))
    if np.any(w < -1e-12 * np.maximum(1.0, np.abs(w).max())):
        raise ValueError("covariances must be positive semi-definite")
    L = V * np.sqrt(np.maximum(w, 0.0))[:, None, :]            # L L' = S, columns = semi-axes
    t = np.linspace(0.0, 2.0 * np.pi, int(n_points))
    U = np.stack([np.cos(t), np.sin(t)])                        # (2, n_points)
    P = C[:, :, None] + float(scale) * (L @ U)                  # (n, 2, n_points)
    sep = np.full((C.shape[0], 1), np.nan)
    xs = np.concatenate([P[:, 0], sep], axis=1).ravel()
    ys = np.concatenate([P[:, 1], sep], axis=1).ravel()
    return ([None if np.isnan(v) else float(v) for v in xs],
            [None if np.isnan(v) else float(v) for v in ys])
