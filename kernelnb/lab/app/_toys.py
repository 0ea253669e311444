"""What the dashboards on 2-D toy data share: the data-set controls, the noise reset when the data
set changes, the check of a clicked point, and a blank model for the empty first figure.  The
samples themselves are drawn by :func:`kernelnb.datasets.make_toy`. The data sets' names and
descriptions as the dashboards show them (toys and bundled UCI sets) are here too, marked for
translation."""
from __future__ import annotations

import numpy as np
import ipywidgets as widgets

from ...datasets import TOY_DATASETS, TOY_NOISE
from ..i18n import N_, _
from ._base import num, styled

__all__ = ["TOY_LABELS", "TOY_NAMES", "UCI_DESCRIPTIONS", "BlankModel", "add_toy_controls", "click_problem",
           "reset_noise_on_dataset_change", "toy_name", "toy_options"]

#: The data sets as the drop-down names them: short enough for its box at the dashboards' control
#: width (msgids; the drop-down's tooltip describes each, :data:`TOY_DESCRIPTIONS`).
TOY_LABELS = {"spirals": N_("spirals (1.5 turns)"), "moons": N_("moons (half circles)"),
              "xor": N_("XOR (quadrants)"), "blobs": N_("two Gaussian blobs")}
#: Each data set in a word, as the charts' titles name it (msgids).
TOY_NAMES = {"spirals": N_("spirals"), "moons": N_("moons"), "xor": N_("XOR"),
             "blobs": N_("blobs")}
#: What each data set is, for the drop-down's tooltip (msgids).
TOY_DESCRIPTIONS = {
    "spirals": N_("spirals: two interleaved spirals, 1.5 turns each (radius 1)"),
    "moons": N_("moons: two interleaving half circles"),
    "xor": N_("XOR: uniform square, classes in opposite quadrants"),
    "blobs": N_("blobs: two Gaussian blobs centred at (-1, -1) and (1, 1)"),
}


#: The bundled UCI classification sets as the dashboards describe them (msgids).
UCI_DESCRIPTIONS = {
    "sonar": N_("Sonar, mines (1) vs. rocks (0): 208 x 60"),
    "ionosphere": N_("Ionosphere radar returns, good (1) vs. bad (0): 351 x 34"),
    "pima": N_("Pima Indians diabetes, positive (1) vs. negative (0): 768 x 8"),
    "breast_cancer": N_("Wisconsin breast cancer (original), malignant (1) vs. benign (0): "
                        "683 x 9 complete samples of 699"),
}


def toy_name(name):
    """A data set's name in a word, in the language in effect (a chart's title)."""
    return _(TOY_NAMES[name]) if name in TOY_NAMES else str(name)


def toy_options():
    """The ``(label, name)`` options of a toy data-set drop-down, and its tooltip."""
    options = [(_(TOY_LABELS.get(n, n)), n) for n in TOY_DATASETS]
    tooltip = "; ".join(_(TOY_DESCRIPTIONS[n]) if n in TOY_DESCRIPTIONS else n
                        for n in TOY_DATASETS)
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
                                                  description=_("data set")), tooltip=tooltip)
    controls["noise"] = styled(widgets.FloatSlider(value=TOY_NOISE["moons"][0], min=0.0,
                                                   max=TOY_NOISE["moons"][1], step=0.01,
                                                   description=_("noise")))
    controls["n_samples"] = styled(widgets.IntSlider(value=n_value, min=n_min, max=n_max, step=10,
                                                     description=_("n points")))
    controls["seed"] = styled(widgets.BoundedIntText(value=0, min=0, max=10**6,
                                                     description=_("sample seed")))


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
        return _("the click's coordinates are not numbers: ({x}, {y})").format(x=repr(x),
                                                                                y=repr(y))
    if not (np.isfinite(x) and np.isfinite(y)):
        return _("the click's coordinates are not finite: ({x}, {y})").format(x=x, y=y)
    xmin, xmax, ymin, ymax = bounds
    w, h = xmax - xmin, ymax - ymin
    if not (xmin - w <= x <= xmax + w and ymin - h <= y <= ymax + h):
        return _("({x}, {y}) lies far outside the chart").format(x=num(x, ".3g"),
                                                                 y=num(y, ".3g"))
    return None
