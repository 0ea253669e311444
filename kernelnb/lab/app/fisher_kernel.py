"""Fisher kernel dashboard: an SVM on the Fisher scores of a Gaussian mixture, the mixture's means
chosen by maximum likelihood or by the radius-margin bound (Chapelle's thesis §5.3, after
Jaakkola & Haussler, NIPS 1999).

A generative model ``p(x | theta)`` gives each point its Fisher score
``U_x = grad_theta log p(x | theta)``; the SVM works on ``x~ = I^-1/2 U_x`` (``I`` the empirical
information matrix), with the linear kernel: the Fisher kernel. The thesis proposes, without
testing it, to choose ``theta`` by minimising the bound ``R^2/M^2`` of that SVM, as chapter 4
chooses a kernel's parameters by gradient, rather than by maximum likelihood, which describes the
inputs whatever their labels. Here the model is a mixture of spherical Gaussians on a 2-D toy
(the two moons by default, :func:`kernelnb.datasets.make_toy`) and ``theta`` its means: every
change of a control fits :class:`kernelnb.model_selection.FisherKernelSVC` twice on the same
points, with the same mixture and C, once with the likelihood's means and once with the means
moved by L-BFGS on ``R^2/M^2``. The main chart shows the points, both sets of means and both
decision boundaries; the second, the bound at every evaluation of the tuning.

The same bound chooses per-feature scaling factors in the feature selection dashboard
(:mod:`kernelnb.lab.app.feature_selection`, thesis §5.1).
"""
from __future__ import annotations

import html
import time

import numpy as np
import ipywidgets as widgets
import plotly.graph_objects as go

from ...datasets import TOY_DATASETS, TOY_NOISE, make_toy
from ..._callbacks import run_to_end
from ...model_selection import FisherKernelSVC
from ..i18n import N_, _, ngettext
from ..viz import decision_grid, grid_arrays, level_lines, plane_bounds
from ..viz._figure_widget import FigureWidget
from ..viz._style import CLASS_COLORS, CLASS_SYMBOLS
from ._base import MAIN_SLIDER_CLASS, Dashboard, Lesson, log_slider, num, styled
from ._toys import toy_name, toy_options

__all__ = ["FisherKernelExplorer"]

#: The toys' noise: the moons' of course notebook 09 (§7), each other toy's default; the test
#: points are drawn after the training points, from the same seed.
NOISE = {**{name: TOY_NOISE[name][0] for name in TOY_DATASETS}, "moons": 0.2}
N_TEST = 500
#: Largest mixture, and the range of C: the L2-margin SVM on the Fisher scores slows down steeply
#: as C grows, and every evaluation of the tuning trains one.
MAX_COMPONENTS = 6
MIN_C, MAX_C = 0.1, 10.0           # the C slider's ends: 10**-1 and 10**1
#: Training points a call from Python may ask for (the slider stops at 400).
MAX_SAMPLES = 1000
#: Points per axis of the grid the decision boundaries are drawn from.
GRID = 80
_ML_COLOR, _RM_COLOR = "#555555", "#e08a00"
_BLUE, _GREY = "#2b6cb0", "#a0aec0"


def sample(dataset, n, seed):
    """``(X, y, X_test, y_test)``: ``n`` training and :data:`N_TEST` test points of the toy
    ``dataset`` (noise :data:`NOISE`), both drawn from ``seed``."""
    rng = np.random.RandomState(seed)
    X, y = make_toy(dataset, int(n), noise=NOISE[dataset], random_state=rng)
    Xt, yt = make_toy(dataset, N_TEST, noise=NOISE[dataset], random_state=rng)
    return X, y, Xt, yt


class FisherKernelExplorer(Dashboard):
    """Fisher kernel of a Gaussian mixture, its means by likelihood or by ``R^2/M^2`` (§5.3).

    Parameters
    ----------
    lang : str or None, default=None
        The language it speaks ('en' or 'fr'; see :class:`~kernelnb.lab.app.Dashboard`).
    **params
        Initial control values: ``dataset`` (a toy of :data:`kernelnb.datasets.TOY_DATASETS`,
        default 'moons', with the noise of :data:`NOISE`), ``n_samples`` (training points, 20 to
        400 on the slider, up to 1000 from Python), ``seed`` (draws the points and starts the
        mixture), ``n_components`` (Gaussians of the mixture, 1 to 6, the main slider) and ``C``
        (of the L2 soft margin, 0.1 to 10).

    Notes
    -----
    Each update fits :class:`~kernelnb.model_selection.FisherKernelSVC` with ``n_components``
    spherical Gaussians and ``C``, seeded by ``seed``, once with ``criterion='likelihood'`` and
    once with ``criterion='radius_margin'``, on ``n_samples`` points of the toy and tests both
    on 500 new points drawn from the same seed. :meth:`update` returns
    ``test_error_ml``, ``test_error_rm``, ``radius_margin_ml``, ``radius_margin_rm`` (``R^2/M^2``
    of each SVM), ``means_ml``, ``means_rm``, ``n_evaluations`` and ``n_iterations`` of the
    tuning, ``fit_s_ml``, ``fit_s_rm`` and the curve ``trace_criterion`` (``R^2/M^2`` at every
    evaluation of the tuning, the first at the likelihood's means). Every value is checked in the
    kernel, also those passed from Python: a value out of range is refused with a message that
    names it.

    The lesson (:attr:`LESSONS`): means chosen by ``R^2/M^2`` give a lower bound and a lower test
    error than the likelihood's (proposed in thesis section 5.3), on every toy. :meth:`regime`
    notes a mixture of one Gaussian, whose Fisher kernel is linear wherever its mean is.

    Examples
    --------
    >>> from kernelnb.lab.app import FisherKernelExplorer
    >>> app = FisherKernelExplorer(n_samples=60, n_components=2)
    >>> s = app.last_stats
    >>> bool(s["radius_margin_rm"] < s["radius_margin_ml"]), s["means_rm"].shape
    (True, (2, 2))
    >>> print(app.update(C=100.0)["error"])
    ValueError: C must be a number between 0.1 and 10 (...), got 100.0
    >>> app.update(dataset="blobs", n_components=2)["test_error_rm"] < 0.05
    True
    """

    notebook = "fisher_kernel"
    title = N_("Fisher kernel tuned by R²/M²")
    purpose = N_("An SVM on the Fisher scores of a Gaussian mixture fitted to a 2-D toy: the "
                 "mixture's means chosen by maximum likelihood, or moved to minimise the "
                 "radius-margin bound R²/M² (Chapelle's thesis §5.3).")
    STATS = [
        ("test_error_ml", (N_("test error, means by likelihood ({n} new points)"),
                           {"n": N_TEST}), ".1%"),
        ("test_error_rm", N_("test error, means by R²/M²"), ".1%"),
        ("radius_margin_ml", N_("R²/M², means by likelihood"), ".3g"),
        ("radius_margin_rm", N_("R²/M², means by R²/M²"), ".3g"),
        ("fit_s_rm", N_("time of the tuning (s)"), ".2f"),
    ]
    #: Rows folded in the readout's details.
    DETAILS = [
        ("n_evaluations", N_("evaluations (SVM trainings)"), "d"),
        ("n_iterations", N_("L-BFGS iterations of the tuning"), "d"),
        ("fit_s_ml", N_("time of the likelihood fit (s)"), ".2f"),
    ]
    LESSONS = (Lesson(
        claim=N_("Choosing the generative model's parameters (the mixture's means) by R²/M² "
                 "rather than by likelihood lowers the test error of its Fisher kernel."),
        source=N_("Chapelle 2002, thesis §5.3 (proposed there; Jaakkola & Haussler 1999)"),
        holds=lambda s: (s["test_error_rm"] < s["test_error_ml"]
                         and s["radius_margin_rm"] < s["radius_margin_ml"]),
        sweep={"n_components": (1, 2, 4, 6), "C": (0.1, 10.0), "n_samples": (40, 400),
               "dataset": ("moons", "spirals", "xor", "blobs")},
        seeds=(0, 1, 2, 3)),)

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "n_components",
        "values": [1, 2, 3, 4, 5, 6],
        "readout": ["test_error_ml", "test_error_rm", "radius_margin_ml", "radius_margin_rm"],
        "why": "The lesson compares two ways of choosing the mixture's means: the chart shows "
               "both sets of means and both decision boundaries on the moons as the mixture "
               "grows from one Gaussian (a linear kernel) to six, and the readout gives the test "
               "error and R²/M² of each kernel.",
    }

    def _build(self):
        c = self.controls
        options, tooltip = toy_options()
        c["dataset"] = styled(widgets.Dropdown(options=options, value="moons",
                                               description=_("data set")), tooltip=tooltip)
        c["n_samples"] = styled(widgets.IntSlider(value=200, min=20, max=400, step=10,
                                                  description=_("n training")),
                                tooltip=_("number of training points"))
        c["seed"] = styled(widgets.BoundedIntText(value=0, min=0, max=10**6,
                                                  description=_("sample seed")))
        c["n_components"] = styled(widgets.IntSlider(
            value=4, min=1, max=MAX_COMPONENTS, description=_("components")),
            tooltip=_("Gaussians of the mixture whose Fisher scores the SVM uses"))
        c["n_components"].add_class(MAIN_SLIDER_CLASS)
        c["C"] = log_slider(_("C (L2 margin)"), 1.0, -1, 1, step=0.25,
                            tooltip=_("C of the L2 soft margin: a hard margin on K + I/C"))
        self.fig = FigureWidget(self._main_figure())
        bound = go.Figure()
        bound.add_scatter(x=[1], y=[1], mode="lines", name=_("R²/M², lowest so far"),
                          line=dict(color=_BLUE),
                          hovertemplate=_("evaluation %{x}: R²/M² = %{y:.3g}")
                          + "<extra></extra>")
        bound.add_scatter(x=[], y=[], mode="markers", name=_("line-search trials, undone"),
                          marker=dict(color=_GREY, size=5),
                          hovertemplate=_("evaluation %{x}: a trial step, R²/M² = %{y:.3g}")
                          + "<extra></extra>")
        # less than a decade from the likelihood's means to the tuned ones: a linear axis
        bound.update_layout(title=_("R²/M² while the means move (evaluation 1: the likelihood's "
                                    "means)"), height=300,
                            xaxis_title=_("evaluation (one SVM training each)"),
                            yaxis=dict(title="R²/M²", type="linear"),
                            margin=dict(l=70, r=20, t=50, b=60), uirevision="keep",
                            legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom"))
        self.trace_fig = FigureWidget(bound)
        self.figures = [self.fig, self.trace_fig]

    @staticmethod
    def _main_figure():
        """The main chart: the two classes, the means by likelihood and by R²/M², and the
        decision boundary of each kernel (the legend beside the plot, in a margin wide enough for
        the French labels)."""
        f = go.Figure()
        for k in range(2):
            f.add_scatter(x=[], y=[], mode="markers", name=_("class {c}").format(c=k),
                          marker=dict(color=CLASS_COLORS[k], symbol=CLASS_SYMBOLS[k], size=6,
                                      opacity=0.75, line=dict(color="white", width=0.5)),
                          hovertemplate="(%{x:.2f}, %{y:.2f})<extra></extra>")
        for name, color, dash in ((_("boundary, likelihood"), _ML_COLOR, "dash"),
                                  (_("boundary, R²/M²"), _RM_COLOR, "solid")):
            # f = 0 as the line of its grid (viz.level_lines), not a contour trace of the grid
            f.add_scatter(x=[], y=[], mode="lines", name=name, meta="boundary",
                          showlegend=True, hoverinfo="skip", connectgaps=False,
                          line=dict(width=2.5, color=color, dash=dash))
        f.add_scatter(x=[], y=[], mode="markers", name=_("means by likelihood"),
                      marker=dict(symbol="x", size=13, color=_ML_COLOR,
                                  line=dict(color="white", width=1)),
                      hovertemplate=_("likelihood mean (%{x:.2f}, %{y:.2f})")
                      + "<extra></extra>")
        f.add_scatter(x=[], y=[], mode="markers", name=_("means by R²/M²"),
                      marker=dict(symbol="star", size=16, color=_RM_COLOR,
                                  line=dict(color="black", width=1)),
                      hovertemplate=_("R²/M² mean (%{x:.2f}, %{y:.2f})") + "<extra></extra>")
        f.update_layout(title=_("Fisher kernel of a Gaussian mixture"),
                        height=400, xaxis=dict(title="x₁", zeroline=False, constrain="domain"),
                        yaxis=dict(title="x₂", zeroline=False, scaleanchor="x",
                                   constrain="domain"),
                        margin=dict(l=70, r=250, t=50, b=60), uirevision="keep",
                        legend=dict(x=1.02, y=1.0, xanchor="left", yanchor="top"))
        return f

    @staticmethod
    def _checked(p):
        """The controls' values checked again here (a page or a notebook can send any value):
        ``(dataset, n_samples, n_components, C, seed)``; a ValueError names the first one out of
        range."""
        def integer(name, lo, hi):
            v = p[name]
            if (isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer))
                    or not lo <= v <= hi):
                raise ValueError(_("{name} must be an integer between {lo} and {hi}, got "
                                   "{value}").format(name=name, lo=lo, hi=hi, value=repr(v)))
            return int(v)

        if not isinstance(p["dataset"], str) or p["dataset"] not in TOY_DATASETS:
            raise ValueError(_("{name} must be one of {names}, got {value}").format(
                name="dataset", names=sorted(TOY_DATASETS), value=repr(p["dataset"])))
        n = integer("n_samples", 20, MAX_SAMPLES)
        m = integer("n_components", 1, MAX_COMPONENTS)
        seed = integer("seed", 0, 2**32 - 1)
        C = p["C"]
        if (isinstance(C, (bool, np.bool_)) or not isinstance(C, (int, float, np.number))
                or not MIN_C <= C <= MAX_C):
            raise ValueError(_("C must be a number between {low} and {top} (the SVM on the "
                               "Fisher scores slows down steeply as C grows), got {value}").format(
                                   low=num(MIN_C, "g"), top=num(MAX_C, "g"), value=repr(C)))
        return p["dataset"], n, m, float(C), seed

    def _steps(self, p):
        """The toy; FisherKernelSVC with the means by likelihood and by R²/M², same mixture
        (seeded by the sample seed), same C; both boundaries on a grid. The likelihood's kernel
        is the tuning's starting point (its first evaluation): it is drawn first, as a partial
        result, while the means move."""
        dataset, n, m, C, seed = self._checked(p)
        X, y, Xt, yt = sample(dataset, n, seed)
        if np.unique(y).size < 2:
            raise ValueError(_("the training sample has one class only: draw another seed or "
                               "more points"))
        with self.busy(_("Fisher kernel, {m} components: means by likelihood…").format(m=m)):
            t0 = time.perf_counter()
            rm = FisherKernelSVC(n_components=m, C=C, criterion="radius_margin",
                                 random_state=seed)
            steps = rm._fit_steps(X, y)
            next(steps)                  # the mixture, and the SVM at the likelihood's means
            ml = rm._likelihood_model()  # what criterion='likelihood' fits
            fit_ml = time.perf_counter() - t0
            partial = self._result(p, X, y, Xt, yt, ml, None, fit_ml, None)
            yield partial
            self.report_progress(0.3, _("tuning the means by R²/M² (L-BFGS)…"))
            run_to_end(steps)
            fit_rm = time.perf_counter() - t0
        return self._result(p, X, y, Xt, yt, ml, rm, fit_ml, fit_rm, partial)

    def _held_in_partial(self, partial):
        """The toy's chart, whose boundaries the complete result draws again: the partial
        result shows the bound at the likelihood's means (the tuning's first evaluation)."""
        return (self.fig,)

    @staticmethod
    def _result(p, X, y, Xt, yt, ml, rm, fit_ml, fit_rm, partial=None):
        """The result drawn: with ``rm=None`` the likelihood's kernel alone (a partial result,
        the tuning under way), else both; the likelihood's grid of ``partial`` is kept when the
        chart's rectangle is the same."""
        # the rectangle of the points and of both sets of means (a tuned mean can leave the
        # data), so that everything drawn stays inside the chart
        means = [ml.means_] if rm is None else [ml.means_, rm.means_]
        bounds = plane_bounds(np.vstack([X, *means]), padding=0.08)
        grids = {}
        if partial is not None and partial["bounds"] == bounds:
            grids["likelihood"] = partial["grids"]["likelihood"]
        for tune, model in (("likelihood", ml), ("radius_margin", rm)):
            if tune not in grids:   # no R²/M² kernel yet: a grid of NaN, nothing drawn
                grids[tune] = decision_grid(model, bounds, GRID if model is not None else 2)
        stats = dict(test_error_ml=float(np.mean(ml.predict(Xt) != yt)),
                     radius_margin_ml=float(ml.radius_margin_), means_ml=ml.means_.copy(),
                     fit_s_ml=fit_ml)
        if rm is not None:
            stats.update(
                test_error_rm=float(np.mean(rm.predict(Xt) != yt)),
                radius_margin_rm=float(rm.radius_margin_), means_rm=rm.means_.copy(),
                trace_criterion=np.array([h["radius_margin"] for h in rm.history_]),
                n_evaluations=len(rm.history_), n_iterations=int(rm.n_iter_) - 1,
                fit_s_rm=fit_rm)
        else:           # the bound at the likelihood's means: the tuning's first evaluation
            stats["trace_criterion"] = np.array([h["radius_margin"] for h in ml.history_])
        return dict(p=p, X=X, y=y, bounds=bounds, grids=grids, stats=stats)

    def _render(self, r):
        """The toy with both sets of means and both boundaries; R²/M² along the tuning."""
        X, y, st, p = r["X"], r["y"], r["stats"], r["p"]
        f = self.fig
        for k in range(2):
            f.data[k].x, f.data[k].y = X[y == k, 0], X[y == k, 1]
        for i, tune in enumerate(("likelihood", "radius_margin")):
            # the line f = 0 of the grid in float32: binary buffers, not nested JSON lists
            x, yc = level_lines(*grid_arrays(*r["grids"][tune]), [0.0])
            f.data[2 + i].update(x=x, y=yc)
        for i, key in enumerate(("means_ml", "means_rm")):
            means = st.get(key, np.empty((0, 2)))      # no tuned means yet: none drawn
            f.data[4 + i].x, f.data[4 + i].y = means[:, 0], means[:, 1]
        xmin, xmax, ymin, ymax = r["bounds"]
        f.layout.xaxis.range, f.layout.yaxis.range = [xmin, xmax], [ymin, ymax]
        m = int(p["n_components"])
        f.layout.title.text = ngettext(
            "{data}, {n} points: Fisher kernel of {m} Gaussian, C = {C}",
            "{data}, {n} points: Fisher kernel of {m} Gaussians, C = {C}", m).format(
                data=toy_name(p["dataset"]), n=len(y), m=m, C=num(p["C"], ".3g"))
        curve = st["trace_criterion"]
        ev = np.arange(1, len(curve) + 1)
        best = np.minimum.accumulate(curve)  # one stage: the lowest so far; above it, trials
        trial = curve > best
        t = self.trace_fig
        t.data[0].x, t.data[0].y = ev, best
        t.data[1].x, t.data[1].y = ev[trial], curve[trial]
        stats = dict(st)
        if "means_rm" not in st:       # a partial result: the tuning is under way
            text = _("tuning the means by R²/M² (L-BFGS)…")
            stats["_html"] = f"<div class='kernelnb-lesson'>{html.escape(text)}</div>"
            return stats
        stats["trace_trials"] = int(trial.sum())
        # tuned means that meet are drawn on top of each other: say so (checklist item 9)
        close = self._overlapping(st["means_rm"], max(xmax - xmin, ymax - ymin))
        overlap = (" " + _("{k} of the ★ lie on top of each other: the tuning brought those "
                           "means together.").format(k=close + 1) if close else "")
        text = _("The likelihood puts the means where the inputs are dense, whatever their "
                 "labels; R²/M² moves them to where the Fisher scores separate the classes ({n} "
                 "SVM trainings).").format(n=stats["n_evaluations"])
        stats["_html"] = f"<div class='kernelnb-lesson'>{html.escape(text + overlap)}</div>"
        stats["_details"] = "<table>" + "".join(
            f'<tr><td>{html.escape(_(label))}</td><td class="num">{num(stats[key], spec)}</td>'
            '</tr>' for key, label, spec in self.DETAILS if key in stats) + "</table>"
        return stats

    @staticmethod
    def _overlapping(means, width):
        """How many means lie within 3 % of the chart's width of an earlier one."""
        return int(sum(np.any(np.hypot(*(means[:i] - means[i]).T) < 0.03 * width)
                       for i in range(len(means))))

    def chart_notes(self, index, stats):
        """The main chart says where each set of means lies; the second, how far the bound
        fell."""
        if "means_ml" not in stats:
            return []
        if index == 0:
            def where(means):
                return ", ".join(_("({x}, {y})").format(x=num(a, ".2f"), y=num(b, ".2f"))
                                 for a, b in means)
            return [_("means by likelihood at {ml}; means by R²/M² at {rm}").format(
                ml=where(stats["means_ml"]), rm=where(stats["means_rm"]))]
        if index == 1 and len(stats["trace_criterion"]):
            curve = stats["trace_criterion"]
            return [_("R²/M² goes from {start} at the likelihood's means to {end}, its lowest, "
                      "in {n} evaluations").format(start=num(float(curve[0]), ".3g"),
                                                   end=num(float(np.min(curve)), ".3g"),
                                                   n=len(curve))]
        return []

    def regime(self, params, stats):
        """A note on a mixture of one Gaussian, whose Fisher kernel is linear (nothing for the
        bound to choose), and on two Gaussians for the two spirals, too few for either choice of
        means to follow the arms."""
        if int(params["n_components"]) == 1:
            return [_("With one Gaussian the Fisher score (x − μ)/s² is a linear function of "
                      "x: the Fisher kernel is the linear kernel (a straight boundary) "
                      "wherever the mean is, so there is nothing for R²/M² to choose. The "
                      "lesson needs two Gaussians or more.")]
        if params["dataset"] == "spirals" and int(params["n_components"]) == 2:
            # Each mean's score is its posterior, a logistic function of x between two
            # Gaussians, times the linear x − μ (thesis §5.3): a boundary with one bend, which
            # cannot wind with two arms whatever the means.
            return [_("Two Gaussians are too few for the two spirals: whatever their means, "
                      "the Fisher kernel's boundary cannot wind with the arms (test error "
                      "{ml} with the likelihood's means, {rm} with R²/M²'s), so there is "
                      "nothing for R²/M² to win. The lesson needs three Gaussians or more "
                      "here.").format(ml=num(stats["test_error_ml"], ".0%"),
                                      rm=num(stats["test_error_rm"], ".0%"))]
        return []
