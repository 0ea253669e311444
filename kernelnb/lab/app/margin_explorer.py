"""Margin explorer: "a margin for everyone" (Collobert's thesis, 2004, ch. 8; Collobert & Bengio,
ICML 2004) on 2-D toy data.

The chosen model (the original Perceptron, the margin Perceptron, stochastic gradient on the hinge
with weight decay, the kernel margin Perceptron (RBF kernel, width by scikit-learn's 'scale'
rule), the Nilsson MLP or the Simple MLP), stopped after at most t updates (Fig. 8.3's
early stopping) and a number of epochs, is drawn with its boundary f(x) = 0 and its margin band.
Two charts follow the margin Perceptron, the subject of the thesis's Theorems 8.2 and 8.3
(Fig. 8.2 in kind): its margin rho = 2/||w|| and its validation error against the learning rate
lambda (t updates), and against the number of updates t (lambda fixed), with the theorems' lower
bounds

* Thm 8.3, after t updates: rho_t >= (2/lambda) / sqrt(t (2/lambda + (R + 1)^2));
* Thm 8.2, at convergence on separable data: rho >= rho_max / sqrt(1 + R^2) / (2 + R^2 lambda),

where R = max ||x_l|| and rho_max = 2/||u|| is the margin of the hard-margin linear SVM
(u, a).  The models train on standardised inputs, so R, rho and rho_max are measured there.
The margin-Perceptron curves come from :func:`kernelnb.reproductions.collobert.margin.margin_curves` (the protocol of
Fig. 8.2), one trial at a time under the dashboard's time budget; for the SGD hinge its own
rho = 2/||w|| is drawn beside them, and the readout compares its cost (8.15) with the SVM's
(C = 1/(mu L)) and gives Theorem 8.1's epoch count 1/(L lambda mu).  Separability is checked by a
linear programme before the hard-margin SVM is asked for rho_max.  In a page the drawn model's
surface and readout come first (a partial result), the rho charts when their curves are done.
"""
from __future__ import annotations

import html
import importlib
import time

import numpy as np
import ipywidgets as widgets
import plotly.graph_objects as go
from ..viz._figure_widget import FigureWidget

from ...datasets import TOY_NOISE, make_toy
from ..viz import SURFACE_TRACES, decision_surface, plane_bounds, surface_data
from ..viz._style import BASE_LAYOUT, series_color, title_layout
from ..i18n import N_, _, ngettext
from ._base import Dashboard, Lesson, log_slider, num, styled
from ._toys import BlankModel, add_toy_controls, reset_noise_on_dataset_change, toy_name

__all__ = ["MarginExplorer", "MARGIN_MODELS"]

#: Size of the validation sample drawn from the same distribution as the training points.
N_VAL = 500
#: Learning rates of the rho-against-lambda chart (log-spaced over the lambda slider's range).
LAMBDAS = np.logspace(-3, 0, 13)


def _largescale(name):
    """A class of :mod:`kernelnb.largescale`, imported when first used."""
    return getattr(importlib.import_module("kernelnb.largescale"), name)


#: The models offered: key -> (label, class name in kernelnb.largescale, linear?).
MARGIN_MODELS = {
    "original_perceptron": (N_("original Perceptron (Alg. 3.1)"), "OriginalPerceptron", True),
    "margin_perceptron": (N_("margin Perceptron (Alg. 8.1)"), "MarginPerceptron", True),
    "sgd_hinge": (N_("SGD hinge + weight decay (8.16)"), "SGDHingeClassifier", True),
    "kernel_margin_perceptron": (N_("kernel margin Perceptron (RBF)"), "KernelMarginPerceptron",
                                 False),
    "nilsson_mlp": (N_("Nilsson MLP (Alg. 8.3)"), "NilssonMLP", False),
    "simple_mlp": (N_("Simple MLP (Alg. 8.2)"), "SimpleMLP", False),
}


def _make(key, p, **extra):
    """The unfitted model ``key`` for the dashboard parameters ``p`` (at most ``epochs`` epochs
    and ``updates`` updates)."""
    if key not in MARGIN_MODELS:
        raise ValueError(_("{name} must be one of {names}, got {value}").format(
            name="model", names=list(MARGIN_MODELS), value=repr(key)))
    cls = _largescale(MARGIN_MODELS[key][1])
    kw = dict(max_iter=int(p["epochs"]), max_updates=_updates(p), random_state=int(p["seed"]))
    if key != "original_perceptron":
        kw["learning_rate"] = float(p["lam"])
    if key == "sgd_hinge":
        kw["weight_decay"] = float(p["mu"])
    if key == "simple_mlp":
        kw["beta"] = float(p["beta"])
    if key in ("simple_mlp", "nilsson_mlp"):
        kw["n_hidden"] = int(p["n_hidden"])
    kw.update(extra)
    return cls(**kw)


def _updates(p):
    return max(1, int(round(float(p["updates"]))))


def linear_svm_objective(Xs, y, mu):
    """The SVM objective (thesis 8.15) mu/2 ||w||^2 + (1/L) sum_l |1 - y_l f(x_l)|_+ at the
    solution of kernelnb's linear SVC with C = 1/(mu L) (the thesis's conversion), on the
    inputs as given."""
    from ...svm import SVC

    L = Xs.shape[0]
    svm = SVC(kernel="linear", C=1.0 / (mu * L), tol=1e-5).fit(Xs, y)
    w = np.asarray(svm.dual_coef_, float)[0] @ np.asarray(svm.support_vectors_, float)
    yy = np.where(np.asarray(y) == svm.classes_[1], 1.0, -1.0)
    f = svm.decision_function(Xs)
    return float(0.5 * mu * w @ w + np.mean(np.maximum(0.0, 1.0 - yy * f)))


class _SurfaceOnly:
    """A fitted classifier seen by the decision-surface helpers as f and its classes only."""

    def __init__(self, model):
        self.classes_ = model.classes_
        self.decision_function = model.decision_function


class MarginExplorer(Dashboard):
    """The margin models of Collobert's ch. 8 on a 2-D toy, with the margin rho and its bounds.

    Parameters
    ----------
    grid : int, default=70
        Resolution of the decision surface.
    **params
        Initial control values: ``dataset``, ``noise``, ``n_samples``, ``seed``, ``model`` (a
        key of :data:`MARGIN_MODELS`), ``lam`` (learning rate), ``updates`` (t: the most
        updates of the drawn model, the fixed t of the rho-against-lambda chart and the last t
        of the rho-against-t chart), ``epochs`` (most epochs of the drawn model), ``mu``
        (weight decay of the SGD hinge), ``beta`` (Simple MLP), ``n_hidden`` (Simple and
        Nilsson MLPs), ``trials`` (random example orders averaged in the rho charts).

    Notes
    -----
    :meth:`update` returns (and the readout shows) ``train_error``, ``val_error``, ``rho``
    (``margin_history_``'s last rho of the drawn model: 2/||w|| for the linear ones, the fixed
    2 beta/sqrt(N) in the hidden space of the Simple MLP and 2/sqrt(N) of the Nilsson MLP),
    ``n_updates``, ``n_epochs``, ``R``, ``rho_max`` (nan when not separable), ``separable``,
    ``mp_rho``, ``mp_bound83`` (the margin Perceptron after t updates at the chosen lambda, and
    Thm 8.3 there), ``mp_bound82``, ``mp_converged``, ``mp_violations`` (training points with
    y f(x) < 1), ``mp_achieved`` (the margin its hyperplane achieves, 2 min_l y_l f(x_l)/||w||,
    never above rho_max), ``rho_small_lam`` and ``rho_large_lam`` (rho after t updates at the
    smallest and largest lambda of the chart), for the SGD hinge ``objective``,
    ``svm_objective`` and ``thm81_epochs``, and ``curves`` (the
    :func:`kernelnb.reproductions.collobert.margin.margin_curves` result drawn in the two rho
    charts).

    Examples
    --------
    >>> from kernelnb.lab.app import MarginExplorer
    >>> app = MarginExplorer(grid=20, trials=1, updates=50)
    >>> stats = app.update(model="original_perceptron")
    >>> stats["separable"], stats["train_error"], stats["n_updates"]
    (True, 0.0, 2)
    >>> stats = app.update(model="margin_perceptron", updates=500)
    >>> stats["mp_converged"], stats["mp_bound82"] <= stats["mp_rho"] <= stats["rho_max"]
    (True, True)
    >>> app.update(model="sgd_hinge", lam=10.0, mu=1.0)["error"]
    'ValueError: lam * mu must be below 1 for the SGD hinge, got 10'
    """

    notebook = "margin_explorer"
    title = N_("Margin explorer")
    purpose = N_("Perceptrons, the SGD hinge and the Simple MLP of Collobert's ch. 8 on 2-D "
                 "data: the margin band, and the margin ρ against the learning rate and the "
                 "number of updates beside the bounds of Theorems 8.2 and 8.3.")
    STATS = [
        ("train_error", N_("training error"), ".1%"),
        ("val_error", (N_("validation error ({n} new points)"), {"n": N_VAL}), ".1%"),
        ("rho", N_("margin ρ of the drawn model"), ".3g"),
        ("objective", N_("SGD hinge: objective (8.15)"), ".4g"),
        ("svm_objective", N_("the SVM's, C = 1/(μL)"), ".4g"),
        ("thm81_epochs", N_("Thm 8.1: epochs ≳ 1/(Lλμ)"), ".3g"),
        ("rho_max", N_("ρ_max (hard-margin SVM)"), ".3g"),
        ("mp_rho", N_("margin Perceptron: ρ_t = 2/‖w‖"), ".3g"),
        ("mp_achieved", N_("margin it achieves, 2 min y f/‖w‖"), ".3g"),
        ("mp_bound82", N_("Thm 8.2 lower bound (converged)"), ".3g"),
        ("mp_bound83", N_("Thm 8.3 lower bound (after t)"), ".3g"),
    ]
    LESSON_APP = {"grid": 20, "trials": 1, "updates": 200}
    LESSONS = (
        Lesson(claim=N_("Once the margin Perceptron has converged on separable data, its margin "
                        "ρ = 2/‖w‖ lies between the lower bound of Theorem 8.2 and ρ_max, the "
                        "hard-margin SVM's; and after the same t updates a smaller learning rate "
                        "λ leaves a larger margin."),
               source=N_("Collobert 2004, §8.3, Thms 8.2–8.3, Fig. 8.2"),
               holds=lambda s: s["mp_bound82"] <= s["mp_rho"] <= s["rho_max"] * (1 + 1e-3)
               and s["rho_small_lam"] > s["rho_large_lam"],
               sweep={"lam": (0.03, 1.0), "updates": (100, 1000)},
               seeds=(0, 1, 2)),
    )

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "lam",
        "values": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0],
        "app": {"updates": 1000},
        "readout": ["rho", "mp_bound82", "rho_max", "val_error"],
        "why": "The lesson is about the margin the Perceptron leaves as its rate λ changes: the "
               "chart draws the margin band f(x) = ±1 of the model after at most 1,000 updates, "
               "and the readout puts its width ρ beside the lower bound of Theorem 8.2 and "
               "ρ_max, the hard-margin SVM's (a rate too small to converge in 1,000 updates "
               "is flagged).",
    }

    def __init__(self, grid=70, **params):
        self.grid = grid
        self._data_key = None
        self._drawn_bounds = None
        self._drawn_surface = None
        self._sep_cache = None
        super().__init__(**params)

    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=100, n_min=20, n_max=400)
        c["dataset"].value = "blobs"
        c["noise"].max = TOY_NOISE["blobs"][1]
        c["noise"].value = TOY_NOISE["blobs"][0]
        c["model"] = styled(widgets.Dropdown(
            options=[(_(label), key) for key, (label, _c, _l) in MARGIN_MODELS.items()],
            value="margin_perceptron", description=_("model")))
        c["lam"] = log_slider(_("λ (rate)"), 0.1, -3, 0, step=0.25, main=True,
                              tooltip=_("learning rate: the step of every update; the margin "
                                        "grows as λ shrinks (Thms 8.2, 8.3)"))
        c["updates"] = log_slider(_("updates t"), 300, 1, 3.5, step=0.1, readout_format=".0f",
                                  tooltip=_("most updates (early stopping, Fig. 8.3); the t of "
                                            "the ρ charts"))
        c["epochs"] = styled(widgets.IntSlider(value=50, min=1, max=200,
                                               description=_("epochs")),
                             tooltip=_("most passes over the data"))
        c["mu"] = log_slider(_("μ (decay)"), 1e-2, -4, 0, step=0.25,
                             tooltip=_("weight decay of the SGD hinge: the SVM with C = 1/(μL)"))
        c["beta"] = styled(widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1,
                                               description=_("β (margin)")),
                           tooltip=_("margin of the β-hinge |β − y f(x)|₊"))
        c["n_hidden"] = styled(widgets.IntSlider(value=9, min=1, max=51, step=2,
                                                 description=_("N hidden")),
                               tooltip=_("hidden units of the Simple and the Nilsson MLP (odd: "
                                         "the Nilsson MLP votes)"))
        c["trials"] = styled(widgets.IntSlider(value=2, min=1, max=10,
                                               description=_("trials (ρ)")),
                             tooltip=_("random example orders averaged in the ρ charts (the "
                                       "thesis's Fig. 8.2 averages 10)"))

        X, y = make_toy("blobs", 100, noise=TOY_NOISE["blobs"][0], random_state=0)
        self._bounds = plane_bounds(X, padding=0.15)
        fig = decision_surface(BlankModel(), X, y, grid=2, bounds=self._bounds, binary=True,
                               lines=True, show_support=False)
        fig.update_layout(height=470, uirevision="keep")
        self.fig = FigureWidget(fig)
        self.lam_fig = FigureWidget(self._rho_figure(_("learning rate λ (log)")))
        self.t_fig = FigureWidget(self._rho_figure(_("updates t (log)")))
        self.figures = [self.fig, self.lam_fig, self.t_fig]

    @staticmethod
    def _rho_figure(xtitle):
        fig = go.Figure()
        traces = [("rho", _("ρ = 2/‖w‖, margin Perceptron"), series_color(0), "solid", "y"),
                  ("bound83", _("Thm 8.3 lower bound"), series_color(0), "dot", "y"),
                  ("bound82", _("Thm 8.2 lower bound"), series_color(2), "dash", "y"),
                  ("rho_max", _("ρ_max (hard-margin SVM)"), "#555555", "longdash", "y"),
                  ("rho_model", _("ρ of the drawn model"), series_color(3), "solid", "y"),
                  ("val", _("validation error (right axis)"), series_color(1), "solid", "y2")]
        for uid, name, color, dash, axis in traces:
            fig.add_trace(go.Scatter(
                x=[], y=[], name=name, meta=uid, uid=uid, yaxis=axis,
                mode="lines+markers" if uid in ("rho", "val", "rho_model") else "lines",
                marker=dict(size=5), line=dict(color=color, dash=dash)))
        fig.update_layout(
            **BASE_LAYOUT, height=360, title=title_layout(""),
            xaxis=dict(title=dict(text=xtitle), type="log"),
            yaxis=dict(title=dict(text=_("margin ρ (log)")), type="log", dtick="D2"),
            yaxis2=dict(title=dict(text=_("validation error")), overlaying="y", side="right",
                        range=[0, 0.1], tickformat=".0%", showgrid=False),
            shapes=[])
        fig.update_layout(margin=dict(l=60, r=70, t=120, b=70))
        return fig

    def _control_rows(self):
        c = self.controls
        return [c["dataset"], c["noise"], c["n_samples"], c["seed"],
                widgets.HTML("<b>" + _("model") + "</b>"), c["model"], c["lam"], c["updates"],
                c["epochs"], c["mu"], c["beta"], c["n_hidden"],
                widgets.HTML("<b>" + _("ρ charts") + "</b>"),
                c["trials"]]

    def _adjust(self, params, given):
        params = reset_noise_on_dataset_change(self, params, given)
        key = params["model"]
        self.controls["lam"].disabled = key == "original_perceptron"
        self.controls["mu"].disabled = key != "sgd_hinge"
        self.controls["beta"].disabled = key != "simple_mlp"
        self.controls["n_hidden"].disabled = key not in ("simple_mlp", "nilsson_mlp")
        return params

    def _data(self, p):
        key = (p["dataset"], float(p["noise"]), int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            X, y = make_toy(key[0], key[2], noise=key[1], random_state=key[3])
            Xv, yv = make_toy(key[0], N_VAL, noise=key[1], random_state=key[3] + 7919)
            self._train = (np.asarray(X, float), np.asarray(y))
            self._val = (np.asarray(Xv, float), np.asarray(yv))
            self._bounds = plane_bounds(self._train[0], padding=0.15)
            self._sep_cache = None
            self._data_key = key
        return self._train

    def _separability(self, X, y):
        """(rho_max, separable) of the standardised training points (cached per sample)."""
        if self._sep_cache is None:
            try:              # maximal_margin asks the LP first and refuses inseparable points
                rho_max, _R = _largescale("maximal_margin")(X, y)
                self._sep_cache = (float(rho_max), True)
            except ValueError:
                self._sep_cache = (float("nan"), False)
        return self._sep_cache

    def _curves(self, X, y, p, study, estimator, what):
        """:func:`kernelnb.reproductions.collobert.margin.margin_curves`, one trial at a time, averaged over the
        trials run (the bound uses their largest radius); at the time budget no new trial
        starts (the first always runs) and ``n_trials`` says how many were averaged."""
        from ...reproductions.collobert.margin import margin_curves
        Xv, yv = self._val
        runs = []
        for i in range(int(p["trials"])):
            if runs and self.time_left() <= 0:        # keep the trials done; the page says so
                break
            self.report_progress(i / int(p["trials"]), _("{what}: trial {i}").format(what=what,
                                                                                       i=i + 1))
            runs.append(margin_curves(X, y, Xv, yv, n_trials=1, estimator=estimator,
                                      random_state=int(p["seed"]) + 1000 * i, **study))
        out = dict(runs[0])
        for k in ("rho_lr", "val_error_lr", "rho_t", "val_error_t"):
            out[k] = np.mean([r[k] for r in runs], axis=0)
        worst = max(runs, key=lambda r: r["radius"])
        out.update(radius=worst["radius"], bound_lr=worst["bound_lr"], bound_t=worst["bound_t"],
                   n_trials=len(runs))
        return out

    def _steps(self, p):
        """The drawn model and its surface first (a partial result: the decision surface and
        its readout), then the margin Perceptron's curves of the ρ charts (most of the work),
        then the complete result."""
        X, y = self._data(p)
        key = p["model"]
        if key not in MARGIN_MODELS:
            raise ValueError(_("{name} must be one of {names}, got {value}").format(
                name="model", names=list(MARGIN_MODELS), value=repr(key)))
        for name in ("lam", "mu", "updates"):
            v = p[name]
            if not (isinstance(v, (int, float, np.number)) and np.isfinite(v) and v > 0):
                raise ValueError(_("{name} must be a positive number, got {value}").format(
                    name=name, value=repr(v)))
        if key == "sgd_hinge" and p["lam"] * p["mu"] >= 1:
            raise ValueError(_("lam * mu must be below 1 for the SGD hinge, got {value}").format(
                value=num(p["lam"] * p["mu"], ".3g")))
        lam, t_max = float(p["lam"]), _updates(p)
        Xv, yv = self._val
        t0 = time.perf_counter()
        with self.busy(_("fitting…")):
            model = _make(key, p).fit(X, y)
            self.check_time(_("the fit"))
            rho_max, separable = self._separability(X, y)
            fit_s = time.perf_counter() - t0
            # the surface only (no support-vector marks: viz.support_masks reads an SVC's
            # dual_coef_, which the kernel margin Perceptron holds for every training example)
            band = self._band(p)
            surface = surface_data(_SurfaceOnly(model), X, y, grid=self.grid,
                                   bounds=self._bounds, binary=True, lines=True,
                                   margin_levels=(-band, band) if band > 0 else ())
            first = dict(train_error=float(np.mean(model.predict(X) != y)),
                         val_error=float(np.mean(model.predict(Xv) != yv)),
                         rho=float(model.margin_history_["rho"][-1]),
                         n_updates=int(model.n_updates_total_), n_epochs=int(model.n_iter_),
                         rho_max=rho_max, separable=separable)
            yield dict(p=p, surface=surface, stats=first, model_curves=None)
            t1 = time.perf_counter()
            self.report_progress(0.2, _("margin against λ and t…"))
            step = max(1, t_max // 40)
            study = dict(learning_rates=LAMBDAS, n_updates=t_max, learning_rate=lam,
                         updates=step * np.arange(1, t_max // step + 1))
            curves = self._curves(X, y, p, study, None, _("margin against λ and t"))
            model_curves = None
            if key == "sgd_hinge":
                study["learning_rates"] = LAMBDAS[LAMBDAS * p["mu"] < 1]
                model_curves = self._curves(X, y, p, study, _make("sgd_hinge", p),
                                            _("the SGD hinge against λ and t"))
            mp = model if key == "margin_perceptron" else _make("margin_perceptron", p).fit(X, y)
        R = float(mp.radius_)
        mp_t = int(mp.n_updates_total_)
        yy = np.where(y == mp.classes_[1], 1.0, -1.0)
        mp_violations = int(np.sum(yy * mp.decision_function(X) < 1.0))
        stats = dict(
            first, R=R,
            mp_rho=float(mp.margin_history_["rho"][-1]),
            mp_bound83=float(_largescale("margin_bound_updates")(max(mp_t, 1), R, lam)),
            mp_bound82=(float(_largescale("margin_bound_separable")(rho_max, R, lam))
                        if separable else float("nan")),
            mp_converged=bool(mp.n_updates_[-1] == 0), mp_violations=mp_violations,
            mp_achieved=2.0 * float(mp.margin_history_["geometric_margin"][-1]),
            rho_small_lam=float(curves["rho_lr"][0]), rho_large_lam=float(curves["rho_lr"][-1]),
            curves=curves)
        if key == "sgd_hinge":
            Xs = (X - model.mean_) / model.scale_
            stats.update(objective=float(np.ravel(model.objective_)[0]),
                         svm_objective=linear_svm_objective(Xs, y, float(p["mu"])),
                         thm81_epochs=float(model.theorem_8_1_epochs_.order))
        stats["fit_time_ms"] = 1e3 * (fit_s + time.perf_counter() - t1)
        return dict(p=p, surface=surface, stats=stats, model_curves=model_curves)

    @staticmethod
    def _band(p):
        """The half-width of the margin band drawn, f(x) = ±band: the simple MLP's fixed
        margin β, none for Nilsson's MLP (it has no margin), 1 for the others."""
        return {"simple_mlp": float(p["beta"]), "nilsson_mlp": 0.0}.get(p["model"], 1.0)

    def _render(self, r):
        p, s, st = r["p"], r["surface"], r["stats"]
        key = p["model"]
        label = _(MARGIN_MODELS[key][0])
        fig = self.fig
        if s is not self._drawn_surface:       # the complete result's is its partial's
            same_grid = (self._drawn_bounds == s["_bounds"]
                         and len(fig.data[0].z) == len(s["surface"]["z"]))
            for k, uid in enumerate(SURFACE_TRACES):
                props = s[uid]
                if same_grid and uid == "surface":
                    props = {"z": props["z"]}
                fig.data[k].update(props)
            self._drawn_bounds = s["_bounds"]
            self._drawn_surface = s
        band = self._band(p)
        margins = fig.data[SURFACE_TRACES.index("margins")]
        margins.visible = band > 0
        margins.name = _("margin band f(x) = ±{band}").format(band=num(band, "g"))
        xmin, xmax, ymin, ymax = s["_bounds"]
        fig.layout.xaxis.range = [xmin, xmax]
        fig.layout.yaxis.range = [ymin, ymax]
        rate = "" if key == "original_perceptron" else f", λ = {num(p['lam'], '.3g')}"
        fig.layout.title.text = _("{dataset}: {model}{rate}, {updates} updates in {epochs} "
                                  "epoch(s)").format(dataset=toy_name(p["dataset"]), model=label,
                                                     rate=rate, updates=st["n_updates"],
                                                     epochs=st["n_epochs"])

        if "curves" not in st:         # the partial result: the surface and its readout
            return dict(st)
        c, mc, sep = st["curves"], r["model_curves"], st["separable"]
        lam, R, t_max = float(p["lam"]), st["R"], int(c["n_updates"])
        bound82 = _largescale("margin_bound_separable")
        lf = self.lam_fig
        by = {tr.meta: tr for tr in lf.data}
        by["rho"].x, by["rho"].y = c["learning_rates"], c["rho_lr"]
        by["bound83"].x, by["bound83"].y = c["learning_rates"], c["bound_lr"]
        by["val"].x, by["val"].y = c["learning_rates"], c["val_error_lr"]
        by["bound82"].x = c["learning_rates"] if sep else []
        by["bound82"].y = (bound82(st["rho_max"], R, np.asarray(c["learning_rates"], float))
                           if sep else [])
        ends = [c["learning_rates"][0], c["learning_rates"][-1]]
        by["rho_max"].x, by["rho_max"].y = (ends, [st["rho_max"]] * 2) if sep else ([], [])
        by["rho_model"].x = mc["learning_rates"] if mc is not None else []
        by["rho_model"].y = mc["rho_lr"] if mc is not None else []
        by["rho_model"].name = f"ρ = 2/‖w‖, {label}"
        lf.layout.shapes = [dict(type="line", xref="x", yref="paper", x0=lam, x1=lam, y0=0, y1=1,
                                 line=dict(color="#888", dash="dot", width=1))]
        lf.layout.title.text = _("Margin Perceptron after t = {t} updates: ρ and validation error "
                                 "against λ (Fig. 8.2 a, b; {n} trial(s))").format(
                                     t=t_max, n=c["n_trials"])

        tf = self.t_fig
        by = {tr.meta: tr for tr in tf.data}
        by["rho"].x, by["rho"].y = c["updates"], c["rho_t"]
        by["bound83"].x, by["bound83"].y = c["updates"], c["bound_t"]
        by["val"].x, by["val"].y = c["updates"], c["val_error_t"]
        ends = [c["updates"][0], c["updates"][-1]]
        by["bound82"].x, by["bound82"].y = ((ends, [st["mp_bound82"]] * 2) if sep else ([], []))
        by["rho_max"].x, by["rho_max"].y = (ends, [st["rho_max"]] * 2) if sep else ([], [])
        by["rho_model"].x = mc["updates"] if mc is not None else []
        by["rho_model"].y = mc["rho_t"] if mc is not None else []
        by["rho_model"].name = f"ρ = 2/‖w‖, {label}"
        tf.layout.title.text = _("Margin Perceptron at λ = {lam}: ρ_t and validation error "
                                 "against the updates t (Fig. 8.2 c, d)").format(
                                     lam=num(lam, ".3g"))
        for f, errs in ((lf, c["val_error_lr"]), (tf, c["val_error_t"])):
            top = float(np.nanmax(errs)) if np.size(errs) else 0.0
            top = max(0.05, 1.15 * top) if np.isfinite(top) else 1.0
            step = float(np.select([top > 0.4, top > 0.2, top > 0.08], [0.1, 0.05, 0.02], 0.01))
            f.layout.yaxis2.update(range=[0, top], tickmode="linear", tick0=0, dtick=step,
                                   tickformat=".0%" if step >= 0.01 else ".1%")
        stats = dict(st)
        done = [cv["n_trials"] for cv in (c, mc) if cv is not None]
        if min(done) < int(p["trials"]):
            stats["_warning"] = (self.budget_message(_("the ρ charts")) + "; " + _(
                "drawn: {done} of {trials} trial(s)").format(done=min(done), trials=p["trials"]))
        notes = []
        if key in ("simple_mlp", "nilsson_mlp"):
            notes.append(_("the margin of the {model} in the space of its {n} hidden units is "
                           "fixed (no output weights): ρ = {rho}").format(
                               model=label.split(" (")[0], n=p["n_hidden"],
                               rho=num(st["rho"], ".3g")))
        if key == "sgd_hinge" and st["n_epochs"] < st["thm81_epochs"]:
            notes.append(_("Thm 8.1: reaching the SVM takes on the order of 1/(Lλμ) = {epochs} "
                           "epochs; {ran} ran").format(epochs=num(st["thm81_epochs"], ".3g"),
                                                        ran=st["n_epochs"]))
        stats["_html"] = "".join(f"<p><small>{html.escape(n)}</small></p>" for n in notes)
        rows = [(_("updates t run"), f"{st['n_updates']}"), (_("epochs run"), f"{st['n_epochs']}"),
                (_("R = max ‖x‖ (standardised inputs)"), num(st["R"], ".3g")),
                (_("margin Perceptron ρ after t, at λ = {lo} and {hi}").format(
                    lo=num(LAMBDAS[0], "g"), hi=num(LAMBDAS[-1], "g")),
                 _("{a} and {b}").format(a=num(st["rho_small_lam"], ".3g"),
                                         b=num(st["rho_large_lam"], ".3g"))),
                (_("fit time, all charts"), num(st["fit_time_ms"], ".0f") + " ms")]
        stats["_details"] = "<table>" + "".join(
            f"<tr><td>{html.escape(k)}</td><td class='num'>{v}</td></tr>" for k, v in rows) + \
            "</table>"
        return stats

    def regime(self, params, stats):
        """Inseparable points (no ρ_max, no Thm 8.2), or a margin Perceptron that has not
        converged (ρ_t = 2/‖w‖ is not yet a margin, and can exceed ρ_max)."""
        if not stats["separable"]:
            return [_("The training points are not linearly separable: there is no ρ_max and "
                      "Theorem 8.2 does not apply (Theorem 8.3 still bounds ρ_t).")]
        if not stats["mp_converged"]:
            v = stats["mp_violations"]
            return [ngettext(
                "The margin Perceptron has not converged: {v} training point still has y f(x) "
                "< 1, so ρ_t = 2/‖w‖ = {rho} is the width of a band those points still break "
                "(not yet a margin that separates them) and it can exceed ρ_max = {rho_max}; "
                "the margin its hyperplane achieves is {achieved}. More epochs or updates (or a "
                "larger λ) let it converge.",
                "The margin Perceptron has not converged: {v} training points still have y "
                "f(x) < 1, so ρ_t = 2/‖w‖ = {rho} is the width of a band those points still "
                "break (not yet a margin that separates them) and it can exceed ρ_max = "
                "{rho_max}; the margin its hyperplane achieves is {achieved}. More epochs or "
                "updates (or a larger λ) let it converge.", v).format(
                    v=v, rho=num(stats["mp_rho"], ".3g"), rho_max=num(stats["rho_max"], ".3g"),
                    achieved=num(stats["mp_achieved"], ".3g"))]
        return []
