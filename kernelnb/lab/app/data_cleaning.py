"""Data cleaning: which labels of a 2-D toy are wrong? (Chapelle's thesis, section 5.2).

A toy sample with some labels flipped at random (and any point's label flipped by clicking it);
an SVM fitted on it; the points ranked by a suspicion score (:mod:`kernelnb.prior.cleaning`:
SVM-xi, SUB-xi, LOO-xi through the span, GRAD-C), the top suspects circled with their rank and the
points actually flipped crossed. The readout tells how many flipped points are among the top
suspects and their ranks (the thesis's rank-1 and "mean <= 10" scores, for one sample).

The lesson is the thesis's finding (Fig. 5.5): every score puts a flipped label near the top, the
simple slack of one SVM about as well as the costlier ones. It holds where the SVM does not fit
the flipped labels (C not too large, σ not too narrow), the classes do not overlap and few labels
are flipped (the thesis flips one in 60); :meth:`DataCleaning.regime` says when it is not so.
"""
from __future__ import annotations

import time

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go

from ...prior.cleaning import CLEANING_METHODS, rank_suspects
from ...svm import SVC
from ..viz import SURFACE_TRACES, decision_surface, plane_bounds, surface_data
from ..i18n import N_, _
from ._base import MAIN_SLIDER_CLASS, Dashboard, Lesson, log_slider, num, speaks, styled
from ..viz._figure_widget import FigureWidget
from ...datasets import make_toy
from ._toys import (BlankModel, add_toy_controls, click_problem,
                    reset_noise_on_dataset_change, toy_name)

__all__ = ["DataCleaning"]

#: Trace order of the main chart: the decision surface's, then suspects and flipped points.
TRACES = SURFACE_TRACES + ("suspects", "flipped")
#: Subsamples of SUB-xi and L-BFGS iterations of GRAD-C (kept small for an interactive page).
N_SUBSAMPLES = 30
GRAD_C_ITER = 20
#: Share of the labels flipped above which the wrong labels are no longer rare.
MAX_FLIPPED = 0.1
#: Test error of an SVM on the true labels above which the classes overlap.
MAX_CLEAN_ERROR = 0.1
#: Share of the flipped points the SVM may fit (classify as their wrong label).
MAX_FITTED = 0.5
METHOD_NAMES = {"svm_xi": "SVM-ξ", "sub_xi": "SUB-ξ", "loo_xi": "LOO-ξ",
                "grad_c": "GRAD-C"}


class DataCleaning(Dashboard):
    """Rank the training points of a 2-D toy by how likely their label is wrong.

    Parameters
    ----------
    grid : int, default=60
        Resolution of the decision surface.
    **params
        Initial control values: ``dataset``, ``noise``, ``n_samples``, ``seed``, ``n_flip``
        (labels flipped at random), ``method`` ('svm_xi', 'sub_xi', 'loo_xi', 'grad_c'), ``C``,
        ``sigma``, ``n_show`` (suspects highlighted).

    Notes
    -----
    :meth:`update` returns (and the readout shows) ``method``, ``n_flipped``,
    ``found_in_top``, ``best_rank``, ``mean_rank_capped`` (mean of min(10, rank) over the
    flipped points), and folded in details ``train_error``, ``time_ms``, ``clean_error`` (the
    training error of the same SVM on the true labels: the classes' overlap) and
    ``fitted_flips`` (the share of the flipped points the SVM classifies as their wrong label);
    and ``suspects`` (indices, most suspect first) and ``flipped`` (indices) for tests.

    Examples
    --------
    >>> from kernelnb.lab.app import DataCleaning
    >>> app = DataCleaning(grid=20)
    >>> stats = app.update(method="svm_xi", n_flip=5)
    >>> stats["method"], stats["n_flipped"], stats["found_in_top"]
    ('SVM-ξ', 5, 5)
    >>> app.update(n_flip=2)["n_flipped"]
    2
    """

    notebook = "data_cleaning"
    click_action = "flip_at"
    click_label = N_("flip the label nearest (x₁, x₂)")
    title = N_("Data cleaning")
    purpose = N_("Flip some labels of a 2-D toy and see which points an SVM suspects: SVM-ξ, "
                 "SUB-ξ, LOO-ξ and GRAD-C rank them. Click a point to flip its label.")
    STATS = [
        ("method", N_("score"), "s"),
        ("n_flipped", N_("labels flipped"), "d"),
        ("found_in_top", N_("flipped among the circled suspects"), "d"),
        ("best_rank", N_("best rank of a flipped point"), "d"),
        ("mean_rank_capped", N_("mean of min(10, rank), flipped points"), ".2f"),
    ]
    LESSON_APP = {"grid": 10}
    LESSONS = (Lesson(
        claim=N_("Every score ranks the flipped labels near the top, the slack ξ of one SVM "
                 "about as well as the costlier SUB-ξ, LOO-ξ and GRAD-C: on average min(10, "
                 "rank) stays at 5 or below, where ranks drawn at random give about 9."),
        source=N_("Chapelle 2002, thesis §5.2 and Fig. 5.5"),
        holds=lambda s: s["mean_rank_capped"] <= 5.0,
        sweep={"method": ("svm_xi", "sub_xi", "loo_xi", "grad_c"), "C": (0.1, 1.0, 1000.0),
               "sigma": (0.03, 0.15, 0.5, 2.0), "noise": (0.0, 0.1, 0.5), "n_flip": (1, 4, 20)},
        seeds=(0, 1, 2)),)

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "n_flip",
        "values": [1, 2, 3, 4, 6, 8, 10, 12, 16, 20],
        "app": {"n_show": 10},
        "readout": ["n_flipped", "found_in_top", "mean_rank_capped"],
        "why": "The lesson says that the slack ξ of one SVM ranks the flipped labels near the "
               "top: the labels flipped at random go from 1 to 20, the ten most suspect points "
               "are circled (the lesson's min(10, rank)), and the readout gives how many "
               "flipped labels are among them and their mean rank.",
    }

    def __init__(self, grid=60, **params):
        self.grid = grid
        self._data_key = None
        self._clicked: set = set()
        super().__init__(**params)

    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=80, n_min=20, n_max=300)
        c["n_flip"] = styled(widgets.IntSlider(value=4, min=0, max=20,
                                               description=_("random flips")))
        # the slider the browser tests move: one more flip changes the chart and the numbers
        c["n_flip"].add_class(MAIN_SLIDER_CLASS)
        c["method"] = styled(widgets.ToggleButtons(
            options=[(METHOD_NAMES[m], m) for m in CLEANING_METHODS], value="svm_xi",
            description=_("score"),
            tooltips=[_("slack ξ of the SVM"), _("slack ξ of the SVM on a subsample"),
                      _("leave-one-out slack ξ (span estimate)"),
                      _("gradient of the bound in C_i")]))
        c["method"].style.button_width = "90px"
        c["C"] = log_slider("C", 1.0, -2, 3, step=0.1,
                            tooltip=_("soft-margin penalty C (log scale)"))
        c["sigma"] = log_slider(_("σ (RBF)"), 0.5, -1.5, 1, step=0.05,
                                tooltip=_("RBF width σ: k = exp(−‖x−y‖²/2σ²)"))
        c["n_show"] = styled(widgets.IntSlider(value=5, min=1, max=20,
                                               description=_("suspects")),
                             tooltip=_("suspects circled on the chart"))
        self.clear_button = widgets.Button(description=_("undo clicks"), icon="eraser",
                                           layout=widgets.Layout(width="190px"))
        self.clear_button.on_click(lambda _b: self.clear_clicks())
        X, y = make_toy("moons", 80, noise=0.2, random_state=0)
        self._bounds = plane_bounds(X, padding=0.15)
        fig = decision_surface(BlankModel(), X, y, grid=2, bounds=self._bounds, binary=True)
        fig.add_trace(go.Scatter(
            uid="suspects", meta="suspects", name=_("top suspects (rank)"), x=[], y=[], text=[],
            mode="markers+text", textposition="top right",
            textfont=dict(color="#b00020", size=12),
            marker=dict(symbol="circle-open", size=18, color="#b00020", line=dict(width=2.5)),
            hoverinfo="skip"))
        fig.add_trace(go.Scatter(
            uid="flipped", meta="flipped", name=_("label flipped"), x=[], y=[], mode="markers",
            marker=dict(symbol="x-thin-open", size=11, color="black", line=dict(width=2)),
            hoverinfo="skip"))
        fig.update_layout(height=560, uirevision="keep", clickmode="event")
        self.fig = FigureWidget(fig)
        for k in (0, TRACES.index("class0"), TRACES.index("class1")):
            self.fig.data[k].on_click(self._on_click)
        self.figures = [self.fig]

    def _control_rows(self):
        c = self.controls
        return [c["dataset"], c["noise"], c["n_samples"], c["seed"], c["n_flip"],
                widgets.HTML("<b>" + _("model and score") + "</b>"), c["method"], c["C"],
                c["sigma"], widgets.HTML("<b>" + _("chart") + "</b>"), c["n_show"],
                widgets.HBox([self.clear_button])]

    def _data(self, p):
        """The sample, its true labels and the set of flipped indices."""
        key = (p["dataset"], float(p["noise"]), int(p["n_samples"]), int(p["seed"]),
               int(p["n_flip"]))
        if key != self._data_key:
            X, y = make_toy(key[0], key[2], noise=key[1], random_state=key[3])
            self._X, self._y_true = np.asarray(X, float), np.asarray(y)
            rng = np.random.RandomState(key[3] + 104729)
            n_flip = min(key[4], self._X.shape[0])
            self._random_flips = set(rng.choice(self._X.shape[0], n_flip, replace=False).tolist())
            self._bounds = plane_bounds(self._X, padding=0.15)
            self._clicked = set()
            self._data_key = key
        flipped = np.array(sorted(self._random_flips ^ self._clicked), dtype=int)
        y = self._y_true.copy()
        classes = np.unique(self._y_true)
        if flipped.size and classes.size == 2:
            y[flipped] = np.where(y[flipped] == classes[0], classes[1], classes[0])
        return self._X, y, flipped

    @speaks
    def flip_at(self, x, y):
        """Flip the label of the training point nearest to (x, y) (a click) and refit; clicking
        it again flips it back.  A click that is not a pair of finite numbers near the chart is
        ignored with a message (returned as ``{'error': ...}``)."""
        problem = click_problem(x, y, self._bounds)
        if problem is not None:
            msg = _("click ignored: {why}").format(why=problem)
            self.show_error(msg)
            return {"error": msg}
        X = self._X
        i = int(np.argmin((X[:, 0] - float(x)) ** 2 + (X[:, 1] - float(y)) ** 2))
        self._clicked ^= {i}
        return self.update()

    def clicks_state(self):
        """The training points whose label a click flipped, by index (kept by the page).

        Returns
        -------
        list of int
        """
        return sorted(int(i) for i in self._clicked)

    def restore_clicks(self, state):
        """Flip again the points of :meth:`clicks_state` (indices of this sample) and refit.

        Parameters
        ----------
        state : list of int

        Returns
        -------
        int
            The flips restored.
        """
        n = self._X.shape[0]
        kept = {int(i) for i in state if isinstance(i, int) and not isinstance(i, bool)
                and 0 <= i < n}
        if kept:
            self._clicked = kept
            self.update()
        return len(kept)

    @speaks
    def clear_clicks(self):
        """Undo every flip made by clicks and refit."""
        self._clicked = set()
        return self.update()

    def _adjust(self, params, given):
        return reset_noise_on_dataset_change(self, params, given)

    def _compute(self, p):
        X, y, flipped = self._data(p)
        if np.unique(y).size < 2:
            raise ValueError(_("every label is now the same class: flip some back"))
        est = SVC(C=float(p["C"]), sigma=float(p["sigma"]), precision="float64", n_jobs=1)
        model = SVC(**est.get_params()).fit(X, y)
        clean = SVC(**est.get_params()).fit(X, self._y_true)
        clean_error = float(np.mean(clean.predict(X) != self._y_true))
        fitted = (float(np.mean(model.predict(X[flipped]) == y[flipped])) if flipped.size
                  else 0.0)
        t0 = time.perf_counter()
        order, scores = rank_suspects(est, X, y, p["method"], n_subsamples=N_SUBSAMPLES,
                                      max_iter=GRAD_C_ITER, random_state=0)
        elapsed = time.perf_counter() - t0
        surface = surface_data(model, X, y, grid=self.grid, bounds=self._bounds, binary=True)
        rank = np.empty(X.shape[0], dtype=int)
        rank[order] = np.arange(1, X.shape[0] + 1)
        k = int(p["n_show"])
        ranks = rank[flipped]
        stats = dict(
            method=METHOD_NAMES[p["method"]], n_flipped=int(flipped.size),
            found_in_top=int(np.sum(ranks <= k)),
            best_rank=int(ranks.min()) if ranks.size else 0,
            mean_rank_capped=float(np.mean(np.minimum(10, ranks))) if ranks.size else 0.0,
            train_error=float(np.mean(model.predict(X) != y)), time_ms=1e3 * elapsed,
            clean_error=clean_error, fitted_flips=fitted,
            suspects=order[:k].tolist(), flipped=flipped.tolist())
        return dict(surface=surface, X=X, order=order, flipped=flipped, p=p, stats=stats)

    def _render(self, r):
        s, X, p = r["surface"], r["X"], r["p"]
        fig = self.fig
        for k, uid in enumerate(SURFACE_TRACES):
            fig.data[k].update(s[uid])
        top = r["order"][: int(p["n_show"])]
        sus = fig.data[TRACES.index("suspects")]
        sus.update(x=X[top, 0], y=X[top, 1], text=[str(j + 1) for j in range(top.size)])
        fl = r["flipped"]
        fig.data[TRACES.index("flipped")].update(x=X[fl, 0], y=X[fl, 1])
        xmin, xmax, ymin, ymax = s["_bounds"]
        fig.layout.xaxis.range = [xmin, xmax]
        fig.layout.yaxis.range = [ymin, ymax]
        fig.layout.title.text = _("{dataset}: {method} suspects, SVM C = {C}, σ = {sigma}").format(
            dataset=toy_name(p["dataset"]), method=METHOD_NAMES[p["method"]],
            C=num(p["C"], ".3g"), sigma=num(p["sigma"], ".3g"))
        stats = dict(r["stats"])
        nf = stats["n_flipped"]
        stats["_details"] = _(
            "training error with the flipped labels: {train} %; with the true labels: {clean} %; "
            "flipped labels the SVM fits: {fits} of {n}; scores computed in {ms} ms").format(
                train=num(100 * stats["train_error"], ".1f"),
                clean=num(100 * stats["clean_error"], ".1f"),
                fits=round(stats["fitted_flips"] * nf), n=nf, ms=num(stats["time_ms"], ".0f"))
        return stats

    def regime(self, params, stats):
        """Notes where the setting leaves the regime of the thesis's experiment (one label of
        60 flipped, C tuned): no label flipped, too many flipped (more than
        :data:`MAX_FLIPPED`), the SVM fits most flipped labels (C too large or σ too narrow),
        or the classes overlap (the SVM errs on more than :data:`MAX_CLEAN_ERROR` of the true
        labels).

        Parameters
        ----------
        params : dict
            The control values of the update.
        stats : dict
            The numbers it computed.

        Returns
        -------
        list of str
            Plain-words notes; empty inside the regime.
        """
        nf, n = stats["n_flipped"], self._X.shape[0]
        if nf == 0:
            return [_("no label is flipped: there is nothing to find (raise the random flips or "
                      "click a point)")]
        notes = []
        if nf > MAX_FLIPPED * n:
            notes.append(_("{nf} of {n} labels are flipped ({pct} %): wrong labels are no longer "
                           "rare and neighbouring ones back each other up; the thesis flips one "
                           "label in 60").format(nf=nf, n=n, pct=num(100 * nf / n, ".1f")))
        if stats["fitted_flips"] > MAX_FITTED:
            notes.append(_("the SVM fits {fits} of the {nf} flipped labels (C = {C}, σ = "
                           "{sigma}): their slack no longer marks them; lower C or widen "
                           "σ").format(fits=round(stats["fitted_flips"] * nf), nf=nf,
                                       C=num(float(params["C"]), ".3g"),
                                       sigma=num(float(params["sigma"]), ".3g")))
        if stats["clean_error"] > MAX_CLEAN_ERROR:
            notes.append(_("even with the true labels the SVM errs on {pct} % of the points (the "
                           "classes overlap, or C and σ make it too smooth for them): those "
                           "points compete with the flipped ones for the top ranks").format(
                               pct=num(100 * stats["clean_error"], ".1f")))
        return notes
