"""Feature selection dashboard: scaling factors optimised by gradient, then backward elimination
(Chapelle's thesis §5.1, after Weston et al., NIPS 2000).

Data: the Weston linear toy (6 relevant features of 202, linear kernel), the non-linear toy (2 of
52, degree-2 polynomial kernel) or scikit-learn's 8x8 digits, 0-4 against 5-9 (one factor per
pixel, RBF kernel). Every change of a control, or the Run button, runs
:class:`kernelnb.model_selection.ScalingSelector`: the bar chart of the factors moves at every
evaluation of ``R^2/M^2`` (relevant features in colour on the toys; on the digits the factors are
also drawn as the 8x8 map), beside the criterion and the test error against the evaluations and
the elimination curve (test error against the number of features kept); in a kernel each stage
(or each step of the forward selection) is drawn as it ends, while the rest runs. The method
drop-down also offers :class:`kernelnb.model_selection.ForwardSpanSelector`, forward selection on
the span estimate (thesis §5.1.4): the bars are then each feature's span estimate alone and the
curve the test error and span estimate of the SVM after each feature added.

The same bound put to a generative model's parameters (thesis §5.3, the Fisher kernel of a
Gaussian mixture) is the Fisher kernel dashboard's (:mod:`kernelnb.lab.app.fisher_kernel`); an
old notebook's ``method='fisher'`` or an old link's ``?method=fisher`` is refused here with a
message that names it.
"""
from __future__ import annotations

import html
import time

import numpy as np
import ipywidgets as widgets
import plotly.graph_objects as go

from ..viz._figure_widget import FigureWidget
from sklearn.preprocessing import StandardScaler

from ...datasets import make_feature_selection_linear, make_feature_selection_nonlinear
from ...kernels import scale_sigma
from ...model_selection import (ForwardSpanSelector, GradientTuner, ScalingSelector,
                                criterion_and_gradient)
from ...svm import SVC
from ..i18n import N_, _
from ._base import MAIN_SLIDER_CLASS, Dashboard, Lesson, log_slider, num, speaks, styled

__all__ = ["FeatureSelection", "FEATURE_DATASETS"]

N_TEST = 500
#: name -> (label, default training size, default features kept)
FEATURE_DATASETS = {
    "linear": (N_("linear toy: 6 relevant of 202 (linear SVM)"), 30, 2),
    "nonlinear": (N_("non-linear toy: 2 relevant of 52 (polynomial, degree 2)"), 50, 2),
    "digits": (N_("digits 0-4 vs 5-9: 64 pixels (RBF)"), 200, 16),
}
#: The drop-down's names for the data sets (short enough for its box; the long ones are its
#: tooltip).
_SHORT = {"linear": N_("linear: 6 of 202"), "nonlinear": N_("non-linear: 2 of 52"),
          "digits": N_("digits (64 pixels)")}
_RELEVANT = {"linear": np.arange(6), "nonlinear": np.arange(2), "digits": np.array([], dtype=int)}
_BLUE, _RED, _GREY = "#2b6cb0", "#d1495b", "#a0aec0"
#: Seconds between two live redraws of the factors during a run.
LIVE_EVERY_S = 0.15
#: The methods: the scaling factors (gradient on R²/M², then elimination) and forward selection
#: on the span estimate.
METHODS = {"scaling": N_("scaling factors (R²/M²)"), "forward": N_("forward on the span")}
#: The settings of the Fisher kernel method this dashboard had, the Fisher kernel dashboard's
#: now (:mod:`kernelnb.lab.app.fisher_kernel`): a setting name and its value (None: any value).
MOVED_TO_FISHER = (("method", "fisher"), ("n_components", None))


def _moved_to_fisher(name, value):
    """Whether the setting ``name`` = ``value`` is one of :data:`MOVED_TO_FISHER`."""
    return any(name == key and (moved is None or isinstance(value, str) and value == moved)
               for key, moved in MOVED_TO_FISHER)


def _digits():
    from sklearn.datasets import load_digits
    X, digit = load_digits(return_X_y=True)
    return X / 16.0, (digit >= 5).astype(int)


class FeatureSelection(Dashboard):
    """Feature selection by scaling factors tuned on ``R^2/M^2``, or forward on the span.

    The selections run on the thesis's toys and on the digits.

    Parameters
    ----------
    **params
        Initial control values: ``dataset`` ('linear', 'nonlinear', 'digits'; choosing one
        sets ``n_samples`` and ``n_keep`` to its defaults in :data:`FEATURE_DATASETS` unless
        they are given too), ``n_samples`` (training points, the main slider), ``seed``,
        ``method`` ('scaling': the scaling factors; 'forward': forward selection on the span
        estimate), ``n_keep`` (features kept at the end), ``C`` (of the L2 soft margin),
        ``schedule`` ('thesis', 'half', 'one') and ``max_iter`` (L-BFGS iterations per stage)
        of the scaling factors, ``tune_path`` (also tune (C, sigma) of an RBF SVM by
        gradient). The Fisher kernel's settings of old notebooks (``method='fisher'``,
        ``n_components``) are left out: the dashboard draws the selection and shows a message
        that names :class:`~kernelnb.lab.app.fisher_kernel.FisherKernelExplorer`, where they
        are now.

    Notes
    -----
    :meth:`update` (and :meth:`run`) returns ``kept`` (indices), ``n_relevant_kept`` (on the
    toys), ``test_error_all`` (the SVM with every factor at 1), ``test_error_scaled`` (factors
    optimised, no elimination), ``test_error_final``, ``criterion_start``, ``criterion_end``,
    ``n_evaluations``, ``n_trainings``, ``run_s``, the curves ``trace_criterion``,
    ``trace_test_error``, ``curve_n_features``, ``curve_test_error``, and with ``tune_path``
    ``path_C``, ``path_sigma``, ``path_test_error``, ``path_trainings``.

    With ``method='forward'`` (:class:`~kernelnb.model_selection.ForwardSpanSelector`, thesis
    §5.1.4: each step trains one SVM per remaining feature and adds the feature whose SVM has
    the smallest span estimate, so ``n_keep`` steps cost about ``n_keep`` times the number of
    features in SVM trainings) it returns ``kept`` (in the order added), ``n_relevant_kept``,
    ``test_error_all``, ``test_error_final``, ``span_final`` (the span estimate of the last
    step's SVM), ``n_trainings``, ``run_s`` and the curves ``curve_n_features``,
    ``curve_test_error`` and ``curve_span`` (per step: the chosen SVM's test error and span
    estimate); the bars are the span estimates of the first step (an SVM on each feature
    alone). A run stopped at the time budget keeps the features chosen so far.

    The criterion chart draws, per stage, the best R²/M² reached so far and the test error of
    that SVM; the evaluations where the L-BFGS line search tried a step that raised the
    criterion (and went back) are grey dots, and the dotted lines are the removals. The bar
    chart shows the factors after the first optimisation, over all features, with the kept
    ones starred (the final factors of the removed features are 0).

    The lesson (:attr:`LESSONS`): on the linear toy, optimising the factors alone lowers the
    test error far below the SVM's on all features, and the elimination keeps relevant
    features (thesis section 5.1, Fig. 5.3). :meth:`regime` notes the digits, where no feature
    is irrelevant.

    Examples
    --------
    >>> from kernelnb.lab.app import FeatureSelection
    >>> app = FeatureSelection(dataset="nonlinear", schedule="half", max_iter=3, n_keep=13)
    >>> stats = app.last_stats       # the first run: 2 relevant features of 52
    >>> len(stats["kept"]), stats["n_relevant_kept"]
    (13, 2)
    >>> app.update(n_keep=500)["error"]
    'ValueError: n_keep must be between 1 and 52 for this data set, got 500'
    >>> print(app.update(method="fisher")["error"])
    ValueError: method='fisher': the Fisher kernel has its own dashboard now, ...:
    the page fisher_kernel.ipynb, or FisherKernelExplorer() in a notebook
    """

    notebook = "feature_selection"
    title = N_("Feature selection by scaling factors")
    purpose = N_("One factor per feature inside the kernel, optimised by gradient descent on the "
                 "radius-margin bound, then backward elimination of the smallest factors.")
    STATS = [
        ("kept_text", N_("features kept"), "s"),
        ("n_relevant_kept", N_("of them relevant"), "d"),
        ("test_error_all", (N_("test error, all factors 1 ({n} new points)"), {"n": N_TEST}),
         ".1%"),
        ("test_error_scaled", N_("test error, factors optimised"), ".1%"),
        ("test_error_final", N_("test error, features kept"), ".1%"),
        ("path_test_error", N_("RBF SVM tuned by gradient: test error"), ".1%"),
        ("span_final", N_("span estimate, features kept"), ".1%"),
    ]
    #: Rows folded in the readout's details.
    DETAILS = [
        ("criterion_start", N_("R²/M² at the start"), ".3g"),
        ("criterion_end", N_("R²/M² at the end"), ".3g"),
        ("n_evaluations", N_("evaluations (SVM trainings)"), "d"),
        ("run_s", N_("run time (s)"), ".2f"),
        ("path_C", N_("RBF SVM tuned by gradient: C"), ".3g"),
        ("path_sigma", "  σ", ".3g"),
        ("path_trainings", N_("SVM trainings of the descent"), "d"),
    ]
    LESSON_APP = {"schedule": "half", "max_iter": 3, "n_keep": 6}
    LESSONS = (Lesson(
        claim=N_("Optimising one scaling factor per feature on R²/M² lowers the test error far "
                 "below the SVM's on all 202 features, and the elimination of the smallest "
                 "factors keeps relevant features."),
        source=N_("Chapelle 2002, thesis §5.1, Fig. 5.3 (28% → 4.6% with 30 points)"),
        holds=lambda s: (s["test_error_scaled"] < s["test_error_all"] / 2
                         and s["test_error_final"] < s["test_error_all"]
                         and s["n_relevant_kept"] >= 1),
        sweep={"n_samples": (20, 100), "C": (0.1, 1000.0)},
        seeds=(0, 1, 2)),)

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "n_samples",
        "values": [20, 30, 50, 100, 200, 400],
        "readout": ["test_error_all", "test_error_scaled", "kept_text", "n_relevant_kept"],
        "why": "The lesson is about the scaling factors that R²/M² gives the 202 features: the "
               "chart shows them, the relevant features in colour, as the training set grows "
               "from 20 to 400 points, and the readout gives the test error with every factor "
               "1 and with the optimised factors, and the features kept.",
    }

    def __init__(self, **params):
        self._data_cache = {}
        self._live_t = 0.0
        # an old notebook's Fisher kernel settings: the selection is drawn at the other values,
        # under the message that names the dashboard that has them now
        moved = {k: params.pop(k) for k in list(params) if _moved_to_fisher(k, params[k])}
        super().__init__(**params)
        if moved:
            with self.speaking():
                self.show_error(self._moved_message(moved))

    def moved_setting(self, name, value):
        """The Fisher kernel's settings this dashboard had (``method='fisher'``,
        ``n_components``) are :class:`~kernelnb.lab.app.fisher_kernel.FisherKernelExplorer`'s
        now: the reason names that dashboard (see :meth:`Dashboard.moved_setting`)."""
        if not _moved_to_fisher(name, value):
            return None
        from .fisher_kernel import FisherKernelExplorer as moved_to
        return _("the Fisher kernel has its own dashboard now, “{title}”: the page {page}, or "
                 "{cls}() in a notebook").format(title=_(moved_to.title),
                                                 page=f"{moved_to.notebook}.ipynb",
                                                 cls=moved_to.__name__)

    def _build(self):
        c = self.controls
        c["dataset"] = styled(widgets.Dropdown(
            options=[(_(_SHORT[name]), name) for name in FEATURE_DATASETS], value="linear",
            description=_("data set")),
            tooltip="; ".join(_(label) for label, _n, _k in FEATURE_DATASETS.values()))
        c["n_samples"] = styled(widgets.IntSlider(value=30, min=20, max=400, step=10,
                                                  description=_("n training")),
                                tooltip=_("number of training points"))
        c["n_samples"].add_class(MAIN_SLIDER_CLASS)
        c["seed"] = styled(widgets.BoundedIntText(value=0, min=0, max=10**6,
                                                  description=_("sample seed")))
        c["method"] = styled(widgets.Dropdown(
            options=[(_(label), key) for key, label in METHODS.items()], value="scaling",
            description=_("method")),
            tooltip=_("scaling factors: gradient descent on R²/M², then elimination of the "
                      "smallest; forward: add, one at a time, the feature whose SVM has the "
                      "smallest span estimate (thesis §5.1.4)"))
        c["n_keep"] = styled(widgets.IntSlider(value=2, min=1, max=52, description=_("keep")),
                             tooltip=_("number of features kept at the end of the elimination"))
        c["C"] = log_slider(_("C (L2 margin)"), 10.0, -1, 3, step=0.25,
                            tooltip=_("C of the L2 soft margin: a hard margin on K + I/C"))
        c["schedule"] = styled(widgets.Dropdown(
            options=[(_("halve, then 1 (thesis)"), "thesis"), (_("always halve"), "half"),
                     (_("one at a time"), "one")], value="thesis",
            description=_("elimination")),
            tooltip=_("thesis: remove half of the features while more than 10 remain, then one "
                      "at a time"))
        c["max_iter"] = styled(widgets.IntSlider(value=30, min=1, max=100,
                                                 description=_("iterations")),
                               tooltip=_("L-BFGS iterations per stage"))
        c["tune_path"] = widgets.Checkbox(
            value=False, description=_("also tune (C, σ) of an RBF SVM by gradient"),
            indent=False, tooltip=_("GradientTuner on log C and log sigma, drawn over a map of "
                                    "R²/M²"))
        self.run_button = widgets.Button(description=_("Run"), icon="play",
                                         button_style="primary",
                                         layout=widgets.Layout(width="120px"))
        # a click, as a control's move, draws each stage while the rest runs
        self.run_button.on_click(lambda _b: self.update(_progressive=True))

        bars = go.Figure()
        hover = _("feature %{x}: s = %{y:.3g}") + "<extra></extra>"
        bars.add_bar(x=[0], y=[1.0], name=_("irrelevant features"), marker_color=_GREY,
                     hovertemplate=hover)
        bars.add_bar(x=[0], y=[0.0], name=_("relevant features"), marker_color=_RED,
                     hovertemplate=hover)
        bars.add_scatter(x=[], y=[], mode="markers", name=_("kept at the end"),
                         marker=dict(symbol="star", size=11, color="#222"),
                         hovertemplate=_("feature %{x} kept") + "<extra></extra>")
        bars.update_layout(title=_("Scaling factors"), barmode="overlay", height=330,
                           xaxis_title=_("feature"), yaxis_title=_("factor s"),
                           margin=dict(l=60, r=20, t=50, b=60), uirevision="keep",
                           legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom"))
        self.fig = FigureWidget(bars)
        heat = go.Figure(go.Heatmap(z=np.ones((8, 8)), colorscale="Blues", zmin=0,
                                    colorbar=dict(title="s"),
                                    hovertemplate=_("pixel (%{y}, %{x}): s = %{z:.3g}")
                                    + "<extra></extra>"))
        heat.update_layout(title=_("Factor map (8 x 8 pixels)"), width=360, height=330,
                           yaxis=dict(autorange="reversed", scaleanchor="x"),
                           margin=dict(l=40, r=90, t=50, b=30))
        self.map_fig = FigureWidget(heat)
        self.map_box = widgets.Box([self.map_fig], layout=widgets.Layout(display="none"))
        tr = go.Figure()
        tr.add_scatter(x=[1], y=[1], mode="lines", name=_("R²/M², best so far"), line=dict(
            color=_BLUE), hovertemplate=_("evaluation %{x}: R²/M² = %{y:.3g}") + "<extra></extra>")
        tr.add_scatter(x=[1], y=[0], mode="lines", name=_("its test error"), yaxis="y2",
                       line=dict(color=_RED),
                       hovertemplate=_("evaluation %{x}: test error %{y:.1%}") + "<extra></extra>")
        tr.add_scatter(x=[], y=[], mode="markers", name=_("line-search trials, undone"),
                       marker=dict(color=_GREY, size=5),
                       hovertemplate=_("evaluation %{x}: a trial step, R²/M² = %{y:.3g}")
                       + "<extra></extra>")
        tr.update_layout(title=_("Criterion and test error against the evaluations"), height=300,
                         xaxis_title=_("evaluation (one SVM training each); dotted: removals"),
                         # log scale: a removal stage can send the bound up 1000-fold for a
                         # few evaluations, which flattened the rest of the curve
                         yaxis=dict(title=_("R²/M² (log scale)"), type="log"),
                         yaxis2=dict(title=_("test error"), overlaying="y", side="right",
                                     rangemode="tozero", tickformat=".0%"),
                         margin=dict(l=70, r=70, t=50, b=60), uirevision="keep",
                         legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom"))
        self.trace_fig = FigureWidget(tr)
        el = go.Figure()
        el.add_scatter(x=[1], y=[0], mode="lines+markers", name=_("test error"),
                       line=dict(color=_RED),
                       hovertemplate=_("%{x} features: test error %{y:.1%}") + "<extra></extra>")
        el.add_scatter(x=[], y=[], mode="lines+markers", name=_("span estimate"),
                       line=dict(color=_BLUE, dash="dash"), visible=False,
                       hovertemplate=_("%{x} features: span estimate %{y:.1%}")
                       + "<extra></extra>")
        el.update_layout(title=_("Elimination: test error against the number of features kept"),
                         height=300, xaxis=dict(title=_("features kept (log scale)"), type="log",
                                                tickvals=[1, 2, 5, 10, 20, 50, 100, 200]),
                         yaxis=dict(title=_("test error"), rangemode="tozero", tickformat=".0%"),
                         margin=dict(l=60, r=20, t=50, b=60), uirevision="keep")
        self.elim_fig = FigureWidget(el)
        self.trace_box = widgets.VBox([self.trace_fig])   # a column: the chart keeps its width
        path = go.Figure()
        path.add_contour(x=[0, 1], y=[0, 1], z=[[0, 0], [0, 0]], colorscale="Viridis",
                         contours=dict(coloring="heatmap", showlabels=False), line_width=0.5,
                         colorbar=dict(title="log10 R²/M²"), name=_("criterion"))
        path.data[0].hovertemplate = ("log10 C = %{x:.2f}, log10 σ = %{y:.2f}: "
                                      "log10 R²/M² = %{z:.3g}<extra></extra>")
        path.add_scatter(x=[0], y=[0], mode="lines+markers", name=_("gradient path"),
                         hovertemplate="(%{x:.2f}, %{y:.2f})<extra></extra>",
                         line=dict(color="white", width=2), marker=dict(size=6, color="white"))
        path.add_scatter(x=[0], y=[0], mode="markers", name=_("end"),
                         marker=dict(symbol="star", size=14, color=_RED,
                                     line=dict(color="white", width=1)))
        path.update_layout(title=_("Tuning (log C, log σ) of an RBF SVM: the path over R²/M²"),
                           height=360, xaxis_title="log10 C", yaxis_title="log10 σ",
                           margin=dict(l=60, r=125, t=50, b=95), uirevision="keep",
                           legend=dict(orientation="h", x=0, y=-0.2, yanchor="top"))
        self.path_fig = FigureWidget(path)
        self.path_box = widgets.Box([self.path_fig], layout=widgets.Layout(display="none"))
        self.elim_box = widgets.VBox([self.elim_fig])     # a column, as the trace chart's
        self.figures = [self.fig, self.map_fig, self.trace_fig, self.elim_fig, self.path_fig]

    def _control_rows(self):
        c = self.controls
        return [c["dataset"], c["n_samples"], c["seed"],
                widgets.HTML("<b>" + _("Method") + "</b>"),
                c["method"], c["n_keep"], c["C"], c["schedule"],
                c["max_iter"], c["tune_path"], widgets.HBox([self.run_button])]

    def _layout(self):
        box = super()._layout()
        right = box.children[-1].children[1]
        self.bars_row = widgets.HBox([self.fig, self.map_box])
        # the bars first: the page's first chart is the main one (browser tests)
        right.children = [self.bars_row, self.trace_box, self.elim_box, self.path_box,
                          self.stats]
        return box

    def _data(self, name, n, seed):
        """(X, y, X_test, y_test) of a data set; the last one drawn is kept."""
        if name not in FEATURE_DATASETS:
            raise ValueError(_("{name} must be one of {names}, got {value}").format(
                name="dataset", names=sorted(FEATURE_DATASETS), value=repr(name)))
        key = (name, int(n), int(seed))
        if key not in self._data_cache:
            if name == "digits":
                X, y = _digits()
                p = np.random.RandomState(seed).permutation(len(y))
                if n + N_TEST > len(y):
                    raise ValueError(_("n_samples must be at most {n} for the digits, got "
                                       "{value}").format(n=len(y) - N_TEST, value=n))
                tr, te = p[:n], p[n:n + N_TEST]
                data = (X[tr], y[tr], X[te], y[te])
            else:
                make = (make_feature_selection_linear if name == "linear"
                        else make_feature_selection_nonlinear)
                rng = np.random.RandomState(seed)
                X, y = make(int(n), random_state=rng)
                Xt, yt = make(N_TEST, random_state=rng)
                sc = StandardScaler().fit(X)        # the thesis standardises the inputs
                data = (sc.transform(X), y, sc.transform(Xt), yt)
            if np.unique(data[1]).size < 2:
                raise ValueError(_("the training sample has one class only: draw another "
                                   "seed or more points"))
            self._data_cache = {key: data}
        return self._data_cache[key]

    @staticmethod
    def _estimator(name, C):
        common = dict(C=float(C), margin="l2", n_jobs=1, max_iter=100000)
        if name == "linear":
            return SVC(kernel="linear", **common)
        if name == "nonlinear":
            return SVC(kernel="poly", degree=2, coef0=1.0, **common)
        return SVC(kernel="rbf", sigma="scale", **common)

    def _adjust(self, params, given):
        if "dataset" in given and params["dataset"] in FEATURE_DATASETS:
            _label, n, k = FEATURE_DATASETS[params["dataset"]]
            if "n_samples" not in given:
                params["n_samples"] = n
            if "n_keep" not in given:
                params["n_keep"] = k
        scaling = params["method"] == "scaling"
        self.controls["schedule"].disabled = not scaling
        self.controls["max_iter"].disabled = not scaling
        return params

    @speaks
    def run(self):
        """Run the selection again with the current controls (what the Run button does; from
        Python, complete when it returns)."""
        return self.update()

    def _live(self, rec, Xt, yt, relevant, sizes, trace):
        """Callback of the selector: keep the trace; now and then, move the progress bar and
        redraw the factors (each is a message to the page: not one per evaluation)."""
        err = ScalingSelector._error_of(rec["estimator"], Xt, yt, rec["features"], rec["scales"])
        trace.append((rec["criterion"], err, rec["stage"]))
        now = time.perf_counter()
        if now - self._live_t > LIVE_EVERY_S:
            self._live_t = now
            done = sizes.index(rec["n_features"]) if rec["n_features"] in sizes else 0
            self.report_progress((done + min(rec["evaluation"], 30) / 30) / len(sizes),
                                 _("stage {stage}/{stages}: {d} features, R²/M² = {value}").format(
                                     stage=rec["stage"] + 1, stages=len(sizes),
                                     d=rec["n_features"], value=num(rec["criterion"], ".4g")))
            self._draw_factors(rec["scales"], relevant)
        # past the time budget the selector stops with the state reached (stopped_)
        return False if self.time_left() <= 0 else None

    def _steps(self, p):
        if p["method"] not in METHODS:
            raise ValueError(_("{name} must be one of {names}, got {value}").format(
                name="method", names=sorted(METHODS), value=repr(p["method"])))
        name = p["dataset"]
        X, y, Xt, yt = self._data(name, p["n_samples"], p["seed"])
        d = X.shape[1]
        if not 1 <= int(p["n_keep"]) <= d:
            raise ValueError(_("n_keep must be between 1 and {d} for this data set, got "
                               "{value}").format(d=d, value=p["n_keep"]))
        if p["method"] == "forward":
            return (yield from self._forward_steps(p, X, y, Xt, yt))
        est = self._estimator(name, p["C"])
        relevant = _RELEVANT[name]
        trace = []
        sel = ScalingSelector(est, n_features_to_select=int(p["n_keep"]), schedule=p["schedule"],
                              max_iter=int(p["max_iter"]))
        sizes = sel.planned_sizes(d)
        sel.set_params(callback=lambda r: self._live(r, Xt, yt, relevant, sizes, trace))
        plain = self._estimator(name, p["C"]).fit(X, y)
        test_error_all = float(np.mean(plain.predict(Xt) != yt))
        curve = []                           # per stage: features, its SVM's test error
        t0 = time.perf_counter()
        with self.busy(_("optimising the scaling factors…")):
            for rec in sel._fit_steps(X, y):       # one record per stage
                curve.append(self._stage_point(rec, Xt, yt))
                kept = np.setdiff1d(rec["features"], rec["removed"])
                # the stage drawn: its factors, the features it keeps, the curves so far
                yield self._scaling_result(
                    p, sel, trace, curve, kept, relevant, None, "", test_error_all, None,
                    time.perf_counter() - t0,
                    final=np.where(np.isin(np.arange(d), kept), rec["scales"], 0.0))
        run_s = time.perf_counter() - t0
        curve.append(self._stage_point(sel.history_[-1], Xt, yt))
        path = (yield from self._tune_path(X, y, Xt, yt, p["C"])) if p.get("tune_path") else None
        kept = sel.get_support(indices=True)
        warning = ""
        if getattr(sel, "stopped_", False) or (path is not None and path["stopped"]):
            warning = self.budget_message(_("the selection") if sel.stopped_
                                          else _("the (C, σ) tuning"))
            if sel.stopped_:
                warning += "; " + _("drawn: the state reached, {k} features kept").format(
                    k=len(kept))
        return self._scaling_result(p, sel, trace, curve, kept, relevant, path, warning,
                                    test_error_all, float(np.mean(sel.predict(Xt) != yt)), run_s,
                                    final=sel.scales_)

    def _held_in_partial(self, partial):
        """The charts a first stage's result leaves as they are when the run ends within
        :attr:`hold_under_s`: the criterion, the elimination curve, the digits' map and the
        (C, σ) path, which the complete result draws again. The factors' bars are drawn: they
        are those of the first optimisation, the ones the complete result shows."""
        return (self.trace_fig, self.elim_fig, self.map_fig, self.path_fig)

    @staticmethod
    def _stage_point(rec, Xt, yt):
        """The elimination curve's point of a stage: its number of features and the test error
        of its SVM."""
        m = rec["estimator"]
        e = np.mean(m.predict(ScalingSelector.inputs_of(m, Xt, rec["features"], rec["scales"]))
                    != yt)
        return len(rec["features"]), float(e)

    @staticmethod
    def _scaling_result(p, sel, trace, curve, kept, relevant, path, warning, test_error_all,
                        test_error_final, run_s, final):
        """What ``_render`` draws of the scaling factors, complete or after a stage (then
        without ``test_error_final``; ``final``: the factors of the features kept)."""
        stats = dict(kept=kept, kept_text=", ".join(str(i) for i in kept[:20])
                     + (" …" if len(kept) > 20 else ""),
                     n_relevant_kept=int(np.isin(kept, relevant).sum()) if len(relevant)
                     else None,
                     test_error_all=test_error_all, test_error_scaled=curve[0][1],
                     criterion_start=float(sel.history_[0]["criterion_start"]),
                     criterion_end=float(sel.history_[-1]["criterion"]),
                     n_evaluations=int(len(trace)), n_trainings=int(sel.n_trainings_),
                     run_s=run_s)
        if test_error_final is not None:
            stats["test_error_final"] = test_error_final
        return dict(p=p, sel=sel, trace=np.array(trace), curve=np.array(curve), kept=kept,
                    path=path, relevant=relevant, final=final, warning=warning,
                    stage_ends=np.cumsum([h["n_evaluations"] for h in sel.history_]),
                    stats=stats)

    def _forward_steps(self, p, X, y, Xt, yt):
        """Forward selection on the span estimate (ForwardSpanSelector), step by step."""
        name, d, k = p["dataset"], X.shape[1], int(p["n_keep"])
        relevant = _RELEVANT[name]

        def step(rec):
            done = rec["iteration"] + 1
            self.report_progress(done / k, _("{done}/{k} features chosen, {n} SVMs this "
                                             "step").format(done=done, k=k,
                                                            n=len(rec["candidates"])))
            return False if self.time_left() <= 0 else None

        sel = ForwardSpanSelector(self._estimator(name, p["C"]), n_features_to_select=k,
                                  callback=step)
        plain = self._estimator(name, p["C"]).fit(X, y)
        test_error_all = float(np.mean(plain.predict(Xt) != yt))
        curve = []                      # the SVM chosen at each step: its test error and span
        t0 = time.perf_counter()
        with self.busy(_("forward selection: {d} SVMs for the first feature…").format(d=d)):
            for rec in sel._fit_steps(X, y):
                if rec is None:
                    yield None
                    continue
                curve.append(self._forward_point(rec, Xt, yt))
                yield self._forward_result(p, sel, curve, relevant, None, "", test_error_all,
                                           None, time.perf_counter() - t0)
        run_s = time.perf_counter() - t0
        curve += [self._forward_point(h, Xt, yt) for h in sel.history_[len(curve):]]
        path = (yield from self._tune_path(X, y, Xt, yt, p["C"])) if p.get("tune_path") else None
        order = sel.order_
        stopped = len(order) < k
        warning = ""
        if stopped or (path is not None and path["stopped"]):
            warning = self.budget_message(_("the forward selection") if stopped
                                          else _("the (C, σ) tuning"))
            if stopped:
                warning += "; " + _("drawn: the {k} features chosen so far").format(k=len(order))
        return self._forward_result(p, sel, curve, relevant, path, warning, test_error_all,
                                    float(np.mean(sel.predict(Xt) != yt)), run_s)

    @staticmethod
    def _forward_point(rec, Xt, yt):
        """The curve's point of a forward step: features chosen, the test error of the step's
        SVM (on the columns chosen, in the order added) and its span estimate."""
        feats = np.r_[rec["selected"], rec["added"]].astype(int)
        return (feats.size, float(np.mean(rec["estimator"].predict(Xt[:, feats]) != yt)),
                float(rec["span"][rec["candidates"] == rec["added"]][0]))

    @staticmethod
    def _forward_result(p, sel, curve, relevant, path, warning, test_error_all,
                        test_error_final, run_s):
        """What ``_render_forward`` draws, complete or after a step (then without
        ``test_error_final``)."""
        order = np.array([h["added"] for h in sel.history_], dtype=int)
        first = sel.history_[0]
        spans = np.full(sel.n_features_in_, np.nan)
        spans[first["candidates"]] = first["span"]
        stats = dict(kept=order, kept_text=", ".join(str(i) for i in order[:20])
                     + (" …" if len(order) > 20 else ""),
                     n_relevant_kept=int(np.isin(order, relevant).sum()) if len(relevant)
                     else None,
                     test_error_all=test_error_all, span_final=curve[-1][2],
                     n_trainings=int(sel.n_trainings_), run_s=run_s)
        if test_error_final is not None:
            stats["test_error_final"] = test_error_final
        return dict(p=p, sel=sel, curve=np.array(curve), kept=order, path=path,
                    relevant=relevant, spans=spans, warning=warning, stats=stats)

    PATH_GRID = 7

    def _tune_path(self, X, y, Xt, yt, C):
        """R²/M² of an RBF SVM (L2 margin, all features) on a coarse (log C, log sigma) grid, and
        the GradientTuner's path from (C, the 'scale' width) over it (steps: one per value of
        the grid, then the descent)."""
        sig0 = float(scale_sigma(X))
        lc = np.linspace(-1.0, 3.0, self.PATH_GRID)
        ls = np.log10(sig0) + np.linspace(-1.0, 1.0, self.PATH_GRID)
        Z = np.empty((ls.size, lc.size))
        base = SVC(kernel="rbf", margin="l2", n_jobs=1, max_iter=100000)
        with self.busy(_("map of R²/M² over (C, σ)…")):
            for i, s_ in enumerate(ls):
                for j, c_ in enumerate(lc):
                    self.check_time(_("the map of R²/M²"))
                    est = base.set_params(C=10.0 ** c_, sigma=10.0 ** s_)
                    Z[i, j] = criterion_and_gradient(est, X, y, tune=("C",))[0]
                    self.report_progress((i * lc.size + j + 1) / Z.size,
                                         _("map of R²/M² over (C, σ)…"))
                    yield None
        with self.busy(_("gradient descent on (log C, log σ)…")):
            tuner = GradientTuner(base.set_params(C=float(C), sigma=sig0), tune=("C", "sigma"),
                                  callback=lambda rec: False if self.time_left() <= 0 else None
                                  ).fit(X, y)
        hist = tuner.history_
        return dict(lc=lc, ls=ls, Z=np.log10(np.maximum(Z, 1e-300)),
                    C=np.log10([h["C"] for h in hist]), sigma=np.log10([h["sigma"] for h in hist]),
                    n_trainings=int(tuner.n_trainings_),
                    stopped=self.time_left() <= 0,
                    test_error=float(np.mean(tuner.predict(Xt) != yt)))

    def _draw_factors(self, scales, relevant, kept=None, final=None):
        """Bars of ``scales`` (relevant features in colour); with ``kept``, a star over each
        kept feature; the digits' map shows ``final`` (default ``scales``)."""
        d = scales.shape[0]
        is_rel = np.zeros(d, dtype=bool)
        is_rel[relevant] = True
        idx = np.arange(d)
        with self.fig.batch_update():
            self.fig.data[0].x, self.fig.data[0].y = idx[~is_rel], scales[~is_rel]
            self.fig.data[1].x, self.fig.data[1].y = idx[is_rel], scales[is_rel]
            self.fig.data[1].visible = bool(is_rel.any())
            self.fig.data[0].name = _("irrelevant features") if is_rel.any() else _("pixels")
            self.fig.data[0].marker.color = _GREY if is_rel.any() else _BLUE
            kept = np.asarray([] if kept is None else kept, dtype=int)
            top = float(np.max(scales)) if d else 1.0
            self.fig.data[2].x = kept
            self.fig.data[2].y = np.maximum(scales[kept], 0) + 0.06 * top
            self.fig.data[2].visible = bool(kept.size)
        if d == 64:
            self.map_fig.data[0].z = (scales if final is None else final).reshape(8, 8)

    def _render(self, r):
        p, sel = r["p"], r["sel"]
        digits = p["dataset"] == "digits"
        self.map_box.layout.display = "flex" if digits else "none"
        forward = p["method"] == "forward"
        self.trace_box.layout.display = "none" if forward else "flex"
        self.elim_fig.data[1].visible = forward
        self.fig.layout.yaxis.title.text = _("span estimate") if forward else _("factor s")
        hover = (_("feature %{x} alone: span estimate %{y:.1%}") if forward
                 else _("feature %{x}: s = %{y:.3g}")) + "<extra></extra>"
        self.fig.data[0].hovertemplate = self.fig.data[1].hovertemplate = hover
        self.fig.data[2].name = _("chosen") if forward else _("kept at the end")
        if forward:
            return self._render_forward(r)
        self.elim_fig.layout.title.text = _("Elimination: test error against the number of "
                                            "features kept")
        # the factors after the first optimisation, over all features (at the end the removed
        # ones are 0, which would leave a bar or two on a wide axis), the kept ones starred
        first = sel.history_[0]["scales"]
        self._draw_factors(first, r["relevant"], kept=r["kept"], final=r["final"])
        d, k = r["final"].shape[0], len(r["kept"])
        schedule = dict((v, label) for label, v in self.controls["schedule"].options)
        self.fig.layout.title.text = _("Scaling factors after optimising all {d}; ★ the {k} kept "
                                       "({schedule})").format(
                                           d=d, k=k, schedule=_(schedule.get(p["schedule"],
                                                                             p["schedule"])))
        self.map_fig.layout.title.text = _("Factor map: the {k} pixels kept").format(k=k)
        tr = r["trace"]
        ev = np.arange(1, len(tr) + 1)
        best, best_err, trial = self._best_so_far(tr)
        self.trace_fig.data[0].x, self.trace_fig.data[0].y = ev, best
        self.trace_fig.data[1].x, self.trace_fig.data[1].y = ev, best_err
        self.trace_fig.data[2].x, self.trace_fig.data[2].y = ev[trial], tr[trial, 0]
        # the test error's own ticks, every 5 or 10 points (not aligned to the log axis)
        top = float(np.nanmax(best_err)) if len(best_err) else 0.0
        self.trace_fig.layout.yaxis2.update(tickmode="linear", tick0=0,
                                            dtick=0.05 if top <= 0.3 else 0.1,
                                            range=[0, max(0.1, 1.1 * top)])
        self.trace_fig.layout.shapes = [
            dict(type="line", x0=e + 0.5, x1=e + 0.5, y0=0, y1=1, yref="paper",
                 line=dict(color="#888", width=1, dash="dot")) for e in r["stage_ends"][:-1]]
        cv = r["curve"]
        self.elim_fig.data[0].x, self.elim_fig.data[0].y = cv[:, 0], cv[:, 1]
        self.elim_fig.data[0].text = [_("{d} features").format(d=int(k)) for k in cv[:, 0]]
        stats = dict(r["stats"])
        self._render_path(r["path"], stats)
        stats["trace_criterion"], stats["trace_test_error"] = tr[:, 0], tr[:, 1]
        stats["trace_trials"] = int(trial.sum())
        stats["curve_n_features"], stats["curve_test_error"] = cv[:, 0], cv[:, 1]
        return self._finish(stats, r)

    def _render_forward(self, r):
        kept = r["kept"]
        d, k = r["spans"].shape[0], len(kept)
        support = np.zeros(d)
        support[kept] = 1.0
        self._draw_factors(r["spans"], r["relevant"], kept=kept, final=support)
        self.fig.layout.title.text = _("Span estimate of an SVM on each feature alone; ★ the {k} "
                                       "chosen").format(k=k)
        self.map_fig.layout.title.text = _("Pixel map: the {k} pixels chosen").format(k=k)
        cv = r["curve"]
        self.elim_fig.layout.title.text = _("Forward selection: test error and span estimate "
                                            "against the features chosen")
        self.elim_fig.data[0].x, self.elim_fig.data[0].y = cv[:, 0], cv[:, 1]
        self.elim_fig.data[0].text = [_("{d} features").format(d=int(n)) for n in cv[:, 0]]
        self.elim_fig.data[1].x, self.elim_fig.data[1].y = cv[:, 0], cv[:, 2]
        stats = dict(r["stats"])
        self._render_path(r["path"], stats)
        stats["curve_n_features"], stats["curve_test_error"] = cv[:, 0], cv[:, 1]
        stats["curve_span"] = cv[:, 2]
        n_train = stats["n_trainings"]
        text = html.escape(_("Forward selection adds, one at a time, the feature whose SVM has "
                             "the smallest span estimate of the leave-one-out error: {n} SVM "
                             "trainings here (the number of features at each step), in {s} s. "
                             "On the toys it picks relevant features, as the gradient "
                             "does").format(n=n_train, s=num(stats["run_s"], ".1f")))
        source = html.escape(_("Chapelle 2002, §5.1.4, Fig. 5.2"))
        stats["_html"] = (f"<div class='kernelnb-lesson'>{text} <small>({source})</small>."
                          "</div>")
        return self._finish(stats, r)

    def _finish(self, stats, r):
        """The folded details table, the run's warning, and no relevant-kept count where the
        data set has no known relevant features; returns ``stats``."""
        stats["_details"] = "<table>" + "".join(
            f'<tr><td>{html.escape(_(label))}</td><td class="num">{num(stats[key], spec)}</td>'
            '</tr>' for key, label, spec in self.DETAILS if key in stats) + "</table>"
        if r["warning"]:
            stats["_warning"] = r["warning"]
        if "n_relevant_kept" in stats and stats["n_relevant_kept"] is None:
            stats.pop("n_relevant_kept")
        return stats

    def _render_path(self, path, stats):
        """The (C, σ) tuning chart and its numbers, when it was run."""
        self.path_box.layout.display = "flex" if path is not None else "none"
        if path is not None:
            pf = self.path_fig
            pf.data[0].update(x=path["lc"], y=path["ls"], z=path["Z"])
            pf.data[1].update(x=path["C"], y=path["sigma"])
            pf.data[2].update(x=path["C"][-1:], y=path["sigma"][-1:])
            stats.update(path_trainings=path["n_trainings"], path_test_error=path["test_error"],
                         path_C=10.0 ** path["C"][-1], path_sigma=10.0 ** path["sigma"][-1])

    @staticmethod
    def _best_so_far(trace):
        """Per stage, the running minimum of the criterion and the test error of the evaluation
        reaching it; and the evaluations above it (line-search trials that went back)."""
        best = np.empty(len(trace))
        err = np.empty(len(trace))
        trial = np.zeros(len(trace), dtype=bool)
        stage, b, e = None, np.inf, np.nan
        for i, (c, t, st) in enumerate(trace):
            if st != stage:
                stage, b, e = st, np.inf, np.nan
            if c <= b:
                b, e = c, t
            else:
                trial[i] = True
            best[i], err[i] = b, e
        return best, err, trial

    def regime(self, params, stats):
        """A note on the digits, where no pixel is irrelevant (the lesson is the toys')."""
        if params["dataset"] == "digits":
            return [_("On the digits every pixel carries a little of the class: there are no "
                      "irrelevant features to find, and keeping few pixels costs accuracy. The "
                      "lesson is the toys' (a few relevant features among many noisy ones).")]
        return []
