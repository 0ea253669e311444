"""What the dashboards on 2-D toy data share: the data-set controls, the noise reset when the data
set changes, the check of a clicked point, and a blank model for the empty first figure.  The
samples themselves are drawn by :func:`kernelnb.datasets.make_toy`."""
from __future__ import annotations

import numpy as np
import ipywidgets as widgets

from ...datasets import TOY_DATASETS, TOY_NOISE
from ._base import styled

__all__ = ["TOY_LABELS", "BlankModel", "add_toy_controls", "click_problem",
           "reset_noise_on_dataset_change", "toy_options"]

#: The data sets as the drop-down names them: short enough for its box at the dashboards' control
#: width (the full descriptions, ``TOY_DATASETS[name][1]``, are the drop-down's tooltip).
TOY_LABELS = {"spirals": "spirals (1.5 turns)", "moons": "moons (half circles)",
              "xor": "XOR (quadrants)", "blobs": "two Gaussian blobs"}


def toy_options():
    """The ``(label, name)`` options of a toy data-set drop-down, and its tooltip."""
    options = [(TOY_LABELS.get(n, n), n) for n in TOY_DATASETS]
    tooltip = "; ".join(f"{n}: {TOY_DATASETS[n][1]}" for n in TOY_DATASETS)
    return options, tooltip


class BlankModel:
    """Placeholder model for building an empty figure: f = 0 everywhere, no support vectors."""

    classes_ = np.array([0, 1])

    @staticmethod
    def decision_function(P):
        return np.zeros(len(P))


def add_toy_controls(controls, n_value=200, n_min=20, n_max=1000):
    """Add the ``dataset``, ``noise``, ``n_samples`` and ``seed`` controls (moons by default)."""
    options, tooltip = toy_options()
    controls["dataset"] = styled(widgets.Dropdown(options=options, value="moons",
                                                  description="data set"), tooltip=tooltip)
    controls["noise"] = styled(widgets.FloatSlider(value=TOY_NOISE["moons"][0], min=0.0,
                                                   max=TOY_NOISE["moons"][1], step=0.01,
                                                   description="noise"))
    controls["n_samples"] = styled(widgets.IntSlider(value=n_value, min=n_min, max=n_max, step=10,
                                                     description="n points"))
    controls["seed"] = styled(widgets.BoundedIntText(value=0, min=0, max=10**6,
                                                     description="sample seed"))


def reset_noise_on_dataset_change(dashboard, params, given):
    """When the data set changes (and no noise is given), use its default noise and range."""
    if "dataset" in given and "noise" not in given and params["dataset"] in TOY_NOISE:
        default, top = TOY_NOISE[params["dataset"]]
        with dashboard.changing_limits("noise"):   # the new range becomes the declared one
            dashboard.controls["noise"].max = top
        params["noise"] = default
    return params


def click_problem(x, y, bounds):
    """Why a click at (x, y) on a chart of ``bounds`` (xmin, xmax, ymin, ymax) cannot be used, or
    None. A page can send any coordinates: they must be finite numbers inside the chart's area
    widened by its own width and height on each side."""
    try:
        x, y = float(x), float(y)
    except (TypeError, ValueError):
        return f"the click's coordinates are not numbers: ({x!r}, {y!r})"
    if not (np.isfinite(x) and np.isfinite(y)):
        return f"the click's coordinates are not finite: ({x}, {y})"
    xmin, xmax, ymin, ymax = bounds
    w, h = xmax - xmin, ymax - ymin
    if not (xmin - w <= x <= xmax + w and ymin - h <= y <= ymax + h):
        return f"({x:.3g}, {y:.3g}) lies far outside the chart"
    return None
