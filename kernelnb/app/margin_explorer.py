"""Margin explorer: "a margin for everyone" (Collobert's thesis, 2004, ch. 8; Collobert & Bengio,
ICML 2004) on 2-D toy data.

The chosen model (the original Perceptron, the margin Perceptron, stochastic gradient on the hinge
with weight decay, or the Simple MLP) is drawn with its boundary f(x) = 0 and its margin band.
Two charts follow the margin Perceptron, the subject of the thesis's Theorems 8.2 and 8.3
(Fig. 8.2 in kind): its margin rho = 2/||w|| and its validation error against the learning rate
lambda (number of epochs fixed), and against the number of updates t (lambda fixed), with the
theorems' lower bounds

* Thm 8.3, after t updates: rho_t >= (2/lambda) / sqrt(t (2/lambda + (R + 1)^2));
* Thm 8.2, at convergence on separable data: rho >= rho_max / sqrt(1 + R^2) / (2 + R^2 lambda),

where R = max ||x_l|| and rho_max = 2/||u|| is the margin of the hard-margin linear SVM
(u, a).  The models train on standardised inputs, so R, rho and rho_max are measured there.
When the chosen model is linear, its own rho = 2/||w|| is drawn beside the margin Perceptron's.
"""
from __future__ import annotations

import html
import importlib
import time

import numpy as np
import ipywidgets as widgets
import plotly.graph_objects as go
from ._plotly import FigureWidget

from ..datasets import TOY_NOISE
from ..viz import SURFACE_TRACES, decision_surface, plane_bounds, surface_data
from ..viz._style import BASE_LAYOUT, series_color, title_layout
from ._base import Dashboard, log_slider, styled
from ._toys import BlankModel, add_toy_controls, make_toy, reset_noise_on_dataset_change

__all__ = ["MarginExplorer", "MARGIN_MODELS"]

#: Size of the validation sample drawn from the same distribution as the training points.
N_VAL = 500
#: Learning rates of the rho-against-lambda chart (log-spaced over the lambda slider's range).
LAMBDAS = np.logspace(-3, 0, 13)
#: Most points of the rho-against-t chart where the validation error is measured.
MAX_CHECKPOINTS = 40


def _largescale(name):
    """A class of :mod:`kernelnb.largescale`, imported when first used."""
    return getattr(importlib.import_module("..largescale", __package__), name)


#: The models offered: key -> (label, class name in kernelnb.largescale, linear?).
MARGIN_MODELS = {
    "margin_perceptron": ("margin Perceptron (Alg. 8.1)", "MarginPerceptron", True),
    "simple_mlp": ("Simple MLP (Alg. 8.2)", "SimpleMLP", False),
}


def _make(key, p, max_iter=None):
    """The unfitted model ``key`` for the dashboard parameters ``p``."""
    if key not in MARGIN_MODELS:
        raise ValueError(f"model must be one of {list(MARGIN_MODELS)}, got {key!r}")
    cls = _largescale(MARGIN_MODELS[key][1])
    epochs = int(p["epochs"] if max_iter is None else max_iter)
    common = dict(learning_rate=float(p["lam"]), max_iter=epochs, random_state=int(p["seed"]))
    if key == "margin_perceptron":
        return cls(beta=1.0, **common)
    if key == "simple_mlp":
        return cls(n_hidden=int(p["n_hidden"]), beta=float(p["beta"]), **common)
    raise ValueError(f"model {key!r} has no constructor")  # pragma: no cover


def _standardised(model, X):
    return (np.asarray(X, float) - model.mean_) / model.scale_


def linear_margin(model):
    """rho = 2 / ||w|| of a fitted linear margin model, w on the standardised inputs it trained
    on (inf when w = 0)."""
    w = np.asarray(model.weights_, float).ravel()
    norm = float(np.linalg.norm(w))
    return 2.0 / norm if norm > 0 else float("inf")


def max_margin(Xs, y, C=1e6):
    """rho_max = 2/||u|| of the hard-margin linear SVM on ``Xs`` and whether the points are
    linearly separable; (nan, False) when they are not.

    Separability is a linear feasibility problem, y_l (u . x_l + a) >= 1 for every l (scipy's
    ``linprog``, quick whatever the answer); only separable points go to the SVM (kernelnb's SVC
    at a large C, whose solution is then the hard-margin one), which would grind on a
    non-separable set at such a C.
    """
    from scipy.optimize import linprog

    from ..svm import SVC
    from ..viz import margin_width

    classes = np.unique(y)
    yy = np.where(y == classes[-1], 1.0, -1.0)
    A = -yy[:, None] * np.column_stack([Xs, np.ones(len(Xs))])
    lp = linprog(np.zeros(A.shape[1]), A_ub=A, b_ub=-np.ones(len(Xs)),
                 bounds=[(None, None)] * A.shape[1], method="highs")
    if lp.status != 0:
        return float("nan"), False
    svm = SVC(kernel="linear", C=C, tol=1e-4).fit(Xs, y)
    return float(margin_width(svm)), True


def bound_thm83(t, lam, R):
    """Thm 8.3: after t updates the margin Perceptron's rho_t >= (2/lam)/sqrt(t (2/lam + (R+1)^2))."""
    t = np.asarray(t, float)
    with np.errstate(divide="ignore"):
        return (2.0 / lam) / np.sqrt(t * (2.0 / lam + (R + 1.0) ** 2))


def bound_thm82(rho_max, lam, R):
    """Thm 8.2: on separable data the converged margin Perceptron's rho >= rho_max /
    sqrt(1 + R^2) / (2 + R^2 lam)."""
    return rho_max / np.sqrt(1.0 + R ** 2) / (2.0 + R ** 2 * np.asarray(lam, float))


class MarginExplorer(Dashboard):
    """The margin models of Collobert's ch. 8 on a 2-D toy, with the margin rho and its bounds.

    Parameters
    ----------
    grid : int, default=70
        Resolution of the decision surface.
    **params
        Initial control values: ``dataset``, ``noise``, ``n_samples``, ``seed``, ``model`` (a
        key of :data:`MARGIN_MODELS`), ``lam`` (learning rate), ``mu`` (weight decay of the
        SGD hinge), ``beta`` (Simple MLP), ``n_hidden``, ``epochs``.

    Notes
    -----
    :meth:`update` returns (and the readout shows) ``train_error``, ``val_error``, ``rho``
    (2/||w|| of a linear model; the Simple MLP's fixed 2 beta/sqrt(N) in hidden space),
    ``n_updates``, ``n_epochs``, ``R``, ``rho_max`` (nan when not separable), ``separable``,
    ``mp_rho``, ``mp_bound83`` (the margin Perceptron at the chosen lambda, and Thm 8.3 at its
    t), ``mp_bound82`` and, for the charts, ``lam_grid``, ``rho_lam``, ``bound83_lam``,
    ``val_error_lam``, ``t``, ``rho_t``, ``bound83_t``, ``val_error_t``.
    """

    notebook = "margin_explorer"
    gallery_order = 22
    title = "Margin explorer"
    purpose = ("Perceptrons, the SGD hinge and the Simple MLP of Collobert's ch. 8 on 2-D data: "
               "the margin band, and the margin ρ against the learning rate and the number of "
               "updates beside the bounds of Theorems 8.2 and 8.3.")
    STATS = [
        ("train_error", "training error", ".1%"),
        ("val_error", f"validation error ({N_VAL} new points)", ".1%"),
        ("rho", "margin ρ of the chosen model", ".4g"),
        ("n_updates", "updates t", "d"),
        ("n_epochs", "epochs run", "d"),
        ("R", "R = max ‖x‖ (standardised)", ".3g"),
        ("rho_max", "ρ_max (hard-margin SVM)", ".4g"),
        ("mp_rho", "margin Perceptron: ρ at this λ", ".4g"),
        ("mp_bound83", "  Thm 8.3 bound at its t", ".4g"),
        ("mp_bound82", "  Thm 8.2 bound (separable)", ".4g"),
        ("fit_time_ms", "fit time, all charts (ms)", ".0f"),
    ]

    def __init__(self, grid=70, **params):
        self.grid = grid
        self._data_key = None
        self._drawn_bounds = None
        super().__init__(**params)

    # -- widgets ---------------------------------------------------------------------------
    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=100, n_min=20, n_max=400)
        c["dataset"].value = "blobs"
        c["noise"].max = TOY_NOISE["blobs"][1]
        c["noise"].value = TOY_NOISE["blobs"][0]
        c["model"] = styled(widgets.Dropdown(
            options=[(label, key) for key, (label, _c, _l) in MARGIN_MODELS.items()],
            value="margin_perceptron", description="model"))
        c["lam"] = log_slider("λ (learning rate)", 0.01, -3, 0, step=0.25, main=True,
                              tooltip="step of every update; the margin grows as λ shrinks "
                                      "(Thms 8.2, 8.3)")
        c["epochs"] = styled(widgets.IntSlider(value=20, min=1, max=200, description="epochs"),
                             tooltip="most passes over the data (early stopping by hand)")
        c["mu"] = log_slider("μ (weight decay)", 1e-2, -4, 0, step=0.25,
                             tooltip="weight decay of the SGD hinge: the SVM with C = 1/(μL)")
        c["beta"] = styled(widgets.FloatSlider(value=1.0, min=0.1, max=5.0, step=0.1,
                                               description="β (Simple MLP)"),
                           tooltip="margin of the β-hinge |β − y f(x)|₊")
        c["n_hidden"] = styled(widgets.IntSlider(value=9, min=1, max=51, step=2,
                                                 description="N hidden"),
                               tooltip="HardTanh units of the Simple MLP (odd: the Nilsson MLP "
                                       "votes)")

        X, y = make_toy("blobs", TOY_NOISE["blobs"][0], 100, 0)
        self._bounds = plane_bounds(X, padding=0.15)
        fig = decision_surface(BlankModel(), X, y, grid=2, bounds=self._bounds, columns=True,
                               show_support=False)
        fig.update_layout(height=520, uirevision="keep")
        self.fig = FigureWidget(fig)

        self.lam_fig = FigureWidget(self._rho_figure("λ (learning rate)", log_x=True))
        self.t_fig = FigureWidget(self._rho_figure("updates t", log_x=True))
        self.figures = [self.fig, self.lam_fig, self.t_fig]

    @staticmethod
    def _rho_figure(xtitle, log_x):
        fig = go.Figure()
        traces = [("rho", "ρ = 2/‖w‖, margin Perceptron", series_color(0), "solid", "y"),
                  ("bound83", "Thm 8.3 lower bound", series_color(0), "dot", "y"),
                  ("bound82", "Thm 8.2 lower bound (separable)", series_color(2), "dash", "y"),
                  ("rho_max", "ρ_max (hard-margin SVM)", "#555555", "longdash", "y"),
                  ("rho_model", "ρ of the chosen model", series_color(3), "solid", "y"),
                  ("val", "validation error, margin Perceptron", series_color(1), "solid",
                   "y2")]
        for uid, name, color, dash, axis in traces:
            fig.add_trace(go.Scatter(x=[], y=[], name=name, meta=uid, uid=uid, yaxis=axis,
                                     mode="lines+markers" if uid in ("rho", "val", "rho_model")
                                     else "lines",
                                     marker=dict(size=5), line=dict(color=color, dash=dash)))
        fig.update_layout(
            **BASE_LAYOUT, height=380, title=title_layout(""),
            xaxis=dict(title=dict(text=xtitle), type="log" if log_x else "linear"),
            yaxis=dict(title=dict(text="margin ρ (log)"), type="log"),
            yaxis2=dict(title=dict(text="validation error"), overlaying="y", side="right",
                        range=[0, 0.6], tickformat=".0%", showgrid=False),
            shapes=[])
        fig.update_layout(margin=dict(l=60, r=60, t=110, b=50))
        return fig

    def _control_rows(self):
        c = self.controls
        return [c["dataset"], c["noise"], c["n_samples"], c["seed"],
                widgets.HTML("<b>model</b>"), c["model"], c["lam"], c["epochs"], c["mu"],
                c["beta"], c["n_hidden"]]

    def _adjust(self, params, given):
        params = reset_noise_on_dataset_change(self, params, given)
        key = params["model"]
        self.controls["mu"].disabled = key != "sgd_hinge"
        self.controls["beta"].disabled = key != "simple_mlp"
        self.controls["n_hidden"].disabled = key not in ("simple_mlp", "nilsson_mlp")
        return params

    # -- work ------------------------------------------------------------------------------
    def _data(self, p):
        key = (p["dataset"], float(p["noise"]), int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            X, y = make_toy(*key)
            Xv, yv = make_toy(key[0], key[1], N_VAL, key[3] + 7919)
            self._train = (np.asarray(X, float), np.asarray(y))
            self._val = (np.asarray(Xv, float), np.asarray(yv))
            self._bounds = plane_bounds(self._train[0], padding=0.15)
            self._sep_cache = None
            self._data_key = key
        return self._train

    def _separability(self, model, X, y):
        """(R, rho_max, separable) on the standardised training points (cached per sample)."""
        if self._sep_cache is None:
            Xs = _standardised(model, X)
            R = float(np.sqrt((Xs ** 2).sum(axis=1).max()))
            rho_max, separable = max_margin(Xs, y)
            self._sep_cache = (R, rho_max, separable)
        return self._sep_cache

    def _val_error(self, model):
        Xv, yv = self._val
        return float(np.mean(model.predict(Xv) != yv))

    def _lambda_sweep(self, p, X, y):
        """The margin Perceptron at every lambda of :data:`LAMBDAS` (epochs fixed)."""
        rho, t, val = [], [], []
        for lam in LAMBDAS:
            self.check_time("the sweep over λ")
            m = _make("margin_perceptron", {**p, "lam": float(lam)}).fit(X, y)
            rho.append(linear_margin(m))
            t.append(int(np.sum(m.n_updates_)))
            val.append(self._val_error(m))
        return np.array(rho), np.array(t), np.array(val)

    def _updates_path(self, p, X, y):
        """The margin Perceptron at the chosen lambda after 1, 2, ... epochs (the same random
        orders: the model draws its epochs' orders from ``random_state``): cumulative updates t,
        rho_t and the validation error."""
        epochs = int(p["epochs"])
        ks = np.unique(np.round(np.geomspace(1, epochs, min(epochs, MAX_CHECKPOINTS))).astype(int))
        t, rho, val = [], [], []
        for k in ks:
            self.check_time("the path over updates")
            m = _make("margin_perceptron", p, max_iter=int(k)).fit(X, y)
            t.append(int(np.sum(m.n_updates_)))
            rho.append(linear_margin(m))
            val.append(self._val_error(m))
            if m.n_epochs_ < k:          # converged: later epochs change nothing
                break
        return np.array(t), np.array(rho), np.array(val)

    def _compute(self, p):
        X, y = self._data(p)
        key = p["model"]
        if key not in MARGIN_MODELS:
            raise ValueError(f"model must be one of {list(MARGIN_MODELS)}, got {key!r}")
        lam = float(p["lam"])
        if not (np.isfinite(lam) and lam > 0):
            raise ValueError(f"lam (learning rate) must be a positive number, got {p['lam']!r}")
        t0 = time.perf_counter()
        with self.busy("fitting…"):
            model = _make(key, p).fit(X, y)
            mp = model if key == "margin_perceptron" else _make("margin_perceptron", p).fit(X, y)
            R, rho_max, separable = self._separability(mp, X, y)
            self.report_progress(0.2, "margin against λ…")
            rho_lam, t_lam, val_lam = self._lambda_sweep(p, X, y)
            self.report_progress(0.6, "margin against updates…")
            t_path, rho_path, val_path = self._updates_path(p, X, y)
            model_lam = None
            if MARGIN_MODELS[key][2] and key != "margin_perceptron":
                model_lam = np.array([linear_margin(_make(key, {**p, "lam": float(v)}).fit(X, y))
                                      for v in LAMBDAS])
        ms = 1e3 * (time.perf_counter() - t0)
        surface = surface_data(model, X, y, grid=self.grid, bounds=self._bounds, columns=True)
        mp_t = int(np.sum(mp.n_updates_))
        if MARGIN_MODELS[key][2]:
            rho = linear_margin(model)
        else:
            rho = 2.0 * float(p["beta"]) / np.sqrt(int(p["n_hidden"]))
        stats = dict(
            train_error=float(np.mean(model.predict(X) != y)), val_error=self._val_error(model),
            rho=rho, n_updates=int(np.sum(model.n_updates_)), n_epochs=int(model.n_epochs_),
            R=R, rho_max=rho_max, separable=separable, mp_rho=linear_margin(mp),
            mp_bound83=float(bound_thm83(max(mp_t, 1), lam, R)),
            mp_bound82=float(bound_thm82(rho_max, lam, R)) if separable else float("nan"),
            mp_converged=bool(mp.n_updates_[-1] == 0), fit_time_ms=ms,
            lam_grid=LAMBDAS, rho_lam=rho_lam, bound83_lam=bound_thm83(np.maximum(t_lam, 1),
                                                                       LAMBDAS, R),
            val_error_lam=val_lam, t=t_path, rho_t=rho_path,
            bound83_t=bound_thm83(np.maximum(t_path, 1), lam, R), val_error_t=val_path)
        return dict(p=p, surface=surface, stats=stats, model_lam=model_lam)

    # -- drawing ---------------------------------------------------------------------------
    def _render(self, r):
        p, s, st = r["p"], r["surface"], r["stats"]
        key = p["model"]
        label = MARGIN_MODELS[key][0]
        fig = self.fig
        same_grid = (self._drawn_bounds == s["_bounds"]
                     and len(fig.data[0].z) == len(s["surface"]["z"]))
        for k, uid in enumerate(SURFACE_TRACES):
            props = s[uid]
            if same_grid and uid in ("surface", "boundary", "margins"):
                props = {"z": props["z"]}
            fig.data[k].update(props)
        self._drawn_bounds = s["_bounds"]
        band = float(p["beta"]) if key == "simple_mlp" else 1.0
        margins = fig.data[SURFACE_TRACES.index("margins")]
        margins.contours.start, margins.contours.end = -band, band
        margins.contours.size = 2.0 * band
        margins.name = f"margin band f(x) = ±{band:g}"
        xmin, xmax, ymin, ymax = s["_bounds"]
        fig.layout.xaxis.range = [xmin, xmax]
        fig.layout.yaxis.range = [ymin, ymax]
        fig.layout.title.text = (f"{p['dataset']}: {label}, λ = {p['lam']:.3g}, "
                                 f"{st['n_updates']} updates in {st['n_epochs']} epoch(s)")

        lam, R = float(p["lam"]), st["R"]
        lf = self.lam_fig
        by = {tr.meta: tr for tr in lf.data}
        by["rho"].x, by["rho"].y = LAMBDAS, st["rho_lam"]
        by["bound83"].x, by["bound83"].y = LAMBDAS, st["bound83_lam"]
        by["val"].x, by["val"].y = LAMBDAS, st["val_error_lam"]
        sep = st["separable"]
        by["bound82"].x = LAMBDAS if sep else []
        by["bound82"].y = bound_thm82(st["rho_max"], LAMBDAS, R) if sep else []
        by["rho_max"].x = [LAMBDAS[0], LAMBDAS[-1]] if sep else []
        by["rho_max"].y = [st["rho_max"]] * 2 if sep else []
        ml = r["model_lam"]
        by["rho_model"].x = LAMBDAS if ml is not None else []
        by["rho_model"].y = ml if ml is not None else []
        by["rho_model"].name = f"ρ = 2/‖w‖, {label}"
        lf.layout.shapes = [dict(type="line", xref="x", yref="paper", x0=lam, x1=lam, y0=0, y1=1,
                                 line=dict(color="#888", dash="dot", width=1))]
        lf.layout.title.text = (f"Margin Perceptron after {p['epochs']} epoch(s): ρ and "
                                "validation error against λ (Fig. 8.2 a, b)")

        tf = self.t_fig
        by = {tr.meta: tr for tr in tf.data}
        t = np.maximum(st["t"], 1)
        by["rho"].x, by["rho"].y = t, st["rho_t"]
        by["val"].x, by["val"].y = t, st["val_error_t"]
        tt = np.geomspace(1, max(int(t[-1]), 2), 60)
        by["bound83"].x, by["bound83"].y = tt, bound_thm83(tt, lam, R)
        by["bound82"].x = [tt[0], tt[-1]] if sep else []
        by["bound82"].y = [st["mp_bound82"]] * 2 if sep else []
        by["rho_max"].x = [tt[0], tt[-1]] if sep else []
        by["rho_max"].y = [st["rho_max"]] * 2 if sep else []
        by["rho_model"].x, by["rho_model"].y = [], []
        tf.layout.title.text = (f"Margin Perceptron at λ = {lam:.3g}: ρ_t and validation error "
                                "against the updates t (Fig. 8.2 c, d)")
        stats = {k: v for k, v in st.items()}
        notes = []
        if not sep:
            notes.append("the training points are not linearly separable: Thm 8.2 does not "
                         "apply (no ρ_max)")
        elif not st["mp_converged"]:
            notes.append("the margin Perceptron has not converged in these epochs: Thm 8.2 "
                         "bounds its final margin")
        if not MARGIN_MODELS[key][2]:
            notes.append(f"the Simple MLP's margin in the space of its {p['n_hidden']} hidden "
                         f"units is fixed: ρ = 2β/√N = {st['rho']:.3g}")
        stats["_html"] = "".join(f"<p><small>{html.escape(n)}</small></p>" for n in notes)
        return stats
