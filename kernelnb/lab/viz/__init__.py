"""Figures of kernelnb: pure functions from a fitted model or data to a plotly ``go.Figure``.

No widgets here: the dashboards of :mod:`kernelnb.lab.app` wrap these figures in ``go.FigureWidget``
and update them in place; notebooks show them directly.
"""
from .curves import c_marker, c_path_figure, fit_time_figure, learning_curve_figure, time_exponent
from .losses import loss_axes_layout, loss_curves, margin_marker
from .surface import (LEVEL_LINE_TRACES, SURFACE_TRACES, boundaries_figure, decision_grid,
                      decision_surface, ellipse_outlines, grid_arrays, level_lines, margin_width,
                      nice_levels, plane_bounds, support_masks, surface_data)

__all__ = ["LEVEL_LINE_TRACES", "SURFACE_TRACES", "boundaries_figure", "c_marker",
           "c_path_figure", "fit_time_figure", "time_exponent", "decision_grid",
           "decision_surface", "ellipse_outlines", "grid_arrays", "learning_curve_figure",
           "level_lines", "loss_axes_layout", "loss_curves", "margin_marker", "margin_width",
           "nice_levels", "plane_bounds", "support_masks", "surface_data"]
