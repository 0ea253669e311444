"""KMP playground: Kernel Matching Pursuit against the SVM on 2-D toy data (the KMP paper's Fig. 6
and Fig. 7; Vincent & Bengio, Machine Learning 48, 2002).

The number of support points N is a slider: the pursuit is fitted once up to its largest N and
the slider reads a prefix of the path (no refit).  Beside it, an SVM with its support vectors and
the training / validation error against N with the current N marked; a button sets N to the SVM's
number of support vectors (Fig. 6).  The second tab is Fig. 7: with a linear kernel, a far,
well-classified cluster pulls the squared loss's boundary; the tanh loss's hardly moves.
"""
from __future__ import annotations

import html

import numpy as np
import ipywidgets as widgets
import plotly.graph_objects as go

from ..viz._figure_widget import FigureWidget

from ...kmp import KMPClassifier
from ...svm import SVC
from ..viz import SURFACE_TRACES, boundaries_figure, decision_surface, plane_bounds, surface_data
from ..i18n import N_, _
from ._base import MAIN_SLIDER_CLASS, Dashboard, Lesson, log_slider, num, speaks, styled
from ...datasets import make_toy
from ._toys import BlankModel, add_toy_controls, reset_noise_on_dataset_change

__all__ = ["KMPPlayground", "far_cluster_data"]

#: Longest path fitted: squared loss (fast, Cython) and other losses (Fig. 4, scipy line searches).
MAX_N_SQUARED = 200
MAX_N_LOSS = 60
N_TEST = 1000
LOSSES = [(N_("squared (KMP-mse)"), "squared"), (N_("(0.65 − tanh m)² (KMP-tanh)"), "tanh"),
          (N_("logistic"), "logistic"), (N_("exponential"), "exponential")]


def far_cluster_data(distance=6.0, random_state=0):
    """The data of the KMP paper's Fig. 7: two overlapping classes and a far cluster.

    Parameters
    ----------
    distance : float, default=6.0
        The far cluster's centre is ``(distance, -0.66 * distance)``.
    random_state : int, default=0
        Seed of the Gaussian draws.

    Returns
    -------
    X : ndarray of shape (160, 2)
        60 points of class 0 around (-1, 0), 60 of class 1 around (1, 0), then the 40 points of
        the far cluster, of class 1.
    y : ndarray of shape (160,)
        The labels, 0 or 1.
    """
    rng = np.random.RandomState(random_state)
    A = rng.randn(60, 2) * 0.5 + [-1.0, 0.0]
    B = rng.randn(60, 2) * 0.5 + [1.0, 0.0]
    far = rng.randn(40, 2) * 0.3 + [distance, -0.66 * distance]
    X = np.vstack([A, B, far])
    y = np.r_[np.zeros(60), np.ones(100)].astype(int)
    return X, y


class KMPPlayground(Dashboard):
    """Interactive Kernel Matching Pursuit beside an SVM.

    Parameters
    ----------
    grid : int, default=80
        Resolution of the decision surfaces.
    **params
        Initial control values: ``dataset``, ``noise``, ``n_samples``, ``seed``, ``variant``
        ('prefit', 'backfit', 'basic'), ``loss`` ('squared', 'tanh', 'logistic',
        'exponential'), ``sigma``, ``n_basis`` (N), ``C`` (the SVM's), ``cluster_distance``
        (Fig. 7 tab).

    Notes
    -----
    :meth:`update` returns (and the readout shows) ``n_basis_used``, ``kmp_train_error``,
    ``kmp_valid_error``, ``kmp_test_error``, ``svm_n_support``, ``svm_test_error``,
    ``best_n`` (smallest validation error on the path) and ``best_test_error`` (the test error
    there: early stopping on the validation set), ``n_points`` (distinct training points among
    the N picks) and ``bias_picked``, ``fit_time_ms``, and the Fig. 7 training errors
    ``far_error_mse`` and ``far_error_tanh``. :meth:`match_svm` sets N to the SVM's number of
    support vectors.

    Examples
    --------
    >>> from kernelnb.lab.app import KMPPlayground
    >>> app = KMPPlayground(grid=20, n_samples=60)
    >>> app.update(n_basis=5)["n_basis_used"]
    5
    >>> stats = app.match_svm()              # Fig. 6: as many support points as the SVM
    >>> stats["n_basis_used"] == stats["svm_n_support"]
    True
    >>> stats["far_error_tanh"] < stats["far_error_mse"]   # Fig. 7: the far cluster pulls mse
    True
    """

    notebook = "kmp_playground"
    title = N_("Kernel Matching Pursuit")
    purpose = N_("Choose the number of support points N directly and compare with an SVM: "
                 "stopped on a validation set, KMP classifies about as well with far fewer "
                 "support points.")
    STATS = [
        ("n_basis_used", N_("KMP support points N"), "d"),
        ("kmp_test_error", (N_("KMP test error at this N ({n} new points)"), {"n": N_TEST}),
         ".1%"),
        ("best_n", N_("N chosen on the validation set"), "d"),
        ("best_test_error", N_("KMP test error at that N"), ".1%"),
        ("svm_n_support", N_("SVM support vectors"), "d"),
        ("svm_test_error", N_("SVM test error"), ".1%"),
    ]
    LESSON_APP = {"grid": 5}
    LESSONS = (
        Lesson(claim=N_("Stopped at the N its validation error chooses, pre-fitting KMP "
                        "classifies new points about as well as the SVM (within 2 points) with "
                        "fewer support points."),
               source=N_("Vincent & Bengio 2002, §5, Tables 2–3; Vincent 2003, ch. 9"),
               holds=lambda s: s["best_test_error"] <= s["svm_test_error"] + 0.02
               and s["best_n"] < s["svm_n_support"],
               sweep={"sigma": (0.2, 2.0), "noise": (0.0, 0.3), "n_samples": (60, 400),
                      "C": (0.1, 10.0)},
               seeds=(0, 1, 2)),
        Lesson(claim=N_("Basic matching pursuit keeps re-picking points it already chose: its N "
                        "steps use far fewer distinct points, which is why back-fitting and "
                        "pre-fitting are used for sparse solutions."),
               source=N_("Vincent 2003, §9.2, Fig. 9.6; Vincent & Bengio 2002, Fig. 6"),
               holds=lambda s: s["n_points"] <= 0.8 * s["n_basis_used"],
               sweep={"sigma": (0.2, 2.0), "n_basis": (20, 150)},
               seeds=(0, 1, 2), setting={"variant": "basic", "n_basis": 60}),
    )

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "n_basis",
        "values": [1, 2, 3, 5, 8, 10, 15, 20, 30, 50, 80],
        "readout": ["kmp_test_error", "best_n", "best_test_error", "svm_n_support",
                    "svm_test_error"],
        "why": "The lesson compares KMP stopped at the N its validation error chooses with the "
               "SVM: the slider adds support points, in the order KMP picks them, from 1 to "
               "80, and the readout gives KMP's test error at this N and at the N chosen, "
               "beside the SVM's support vectors and test error.",
    }

    def __init__(self, grid=80, **params):
        self.grid = grid
        self._data_key = None
        self._path_cache = (None, None)
        self._svm_cache = (None, None)
        self._far_cache = (None, None)
        super().__init__(**params)

    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=200, n_min=40, n_max=600)
        c["noise"].value = 0.2     # noisy enough for the validation set to choose N
        c["variant"] = styled(widgets.ToggleButtons(
            options=[(_("prefit"), "prefit"), (_("backfit"), "backfit"), (_("basic"), "basic")],
            value="prefit", description=_("variant"),
            tooltips=[_("pre-fitting: each step picks the point that leaves the smallest error "
                        "once every weight is refitted"),
                      _("back-fitting: each step picks as basic MP does, then refits every "
                        "weight"),
                      _("basic matching pursuit: each step fits one weight, the others stay")]))
        c["variant"].style.button_width = "66px"
        c["loss"] = styled(widgets.Dropdown(options=[(_(label), v) for label, v in LOSSES],
                                            value="squared", description=_("loss")))
        c["sigma"] = log_slider(_("σ (RBF)"), 0.5, -1.5, 1, step=0.05,
                                tooltip=_("RBF width σ: k = exp(−‖x−y‖²/2σ²)"))
        c["n_basis"] = styled(widgets.IntSlider(value=10, min=1, max=MAX_N_SQUARED,
                                                description="N"))
        c["n_basis"].add_class(MAIN_SLIDER_CLASS)
        c["C"] = log_slider(_("C (SVM)"), 1.0, -2, 3, step=0.1, tooltip=_("the SVM's penalty C"))
        c["cluster_distance"] = styled(widgets.FloatSlider(value=6.0, min=2.0, max=12.0, step=0.5,
                                                           description=_("far cluster at")))
        self.same_button = widgets.Button(description=_("N = SVM's #SV (Fig. 6)"),
                                          icon="balance-scale",
                                          layout=widgets.Layout(width="240px"))
        self.same_button.on_click(lambda _b: self.match_svm())

        X, y = self._make_data("moons", 200, noise=c["noise"].value, random_state=0)
        bounds = plane_bounds(X, padding=0.15)
        blank = BlankModel()
        kfig = decision_surface(blank, X, y, grid=2, bounds=bounds, binary=True, lines=True,
                                show_margins=False)
        kfig.update_traces(selector=dict(meta="sv_free"), mode="markers+text",
                           textposition="top center", textfont=dict(size=11, color="black"),
                           marker=dict(symbol="circle-open", size=14, color="#1b7837",
                                       line=dict(width=2.2)))
        side = dict(width=470, height=520, uirevision="keep", margin=dict(l=70, r=10, t=50, b=155),
                    legend=dict(orientation="h", x=0, y=-0.16, yanchor="top", font=dict(size=11)))
        kfig.update_layout(title="KMP", **side)
        kfig.update_traces(selector=dict(type="heatmap"), showscale=False)
        self.fig = FigureWidget(kfig)
        sfig = decision_surface(blank, X, y, grid=2, bounds=bounds, binary=True, lines=True,
                                show_margins=True)
        sfig.update_layout(title="SVM", **side)
        sfig.update_traces(selector=dict(type="heatmap"), showscale=False)
        self.svm_fig = FigureWidget(sfig)
        pfig = go.Figure()
        pfig.add_scatter(x=[1], y=[0], mode="lines", name=_("training error"),
                         line=dict(dash="dot"))
        pfig.add_scatter(x=[1], y=[0], mode="lines", name=_("validation error"))
        pfig.add_scatter(x=[1, 1], y=[0, 1], mode="lines", name=_("current N"),
                         line=dict(color="black", width=1))
        pfig.update_layout(height=300, title=_("Error against the number of support points N"),
                           xaxis_title="N", yaxis_title=_("error rate"), yaxis_rangemode="tozero",
                           margin=dict(l=60, r=200, t=50, b=60), uirevision="keep")
        self.path_fig = FigureWidget(pfig)
        Xf, yf = far_cluster_data()
        ffig = boundaries_figure({"SVM": BlankModel(), "KMP-mse": BlankModel(), "KMP-tanh": BlankModel()},
                                 Xf, yf, grid=2, title=_("Fig. 7: linear kernel, a far cluster"))
        ffig.update_layout(height=460, uirevision="keep")
        self.far_fig = FigureWidget(ffig)
        self.figures = [self.fig, self.svm_fig, self.path_fig, self.far_fig]

    def _control_rows(self):
        c = self.controls
        return [c["dataset"], c["noise"], c["n_samples"], c["seed"],
                widgets.HTML("<b>KMP</b>"), c["variant"], c["loss"], c["sigma"], c["n_basis"],
                widgets.HTML("<b>SVM</b>"), c["C"], widgets.HBox([self.same_button]),
                widgets.HTML("<b>" + _("Fig. 7 tab") + "</b>"), c["cluster_distance"]]

    def _layout(self):
        box = super()._layout()
        right = box.children[-1].children[1]
        main = widgets.VBox([widgets.HBox([self.fig, self.svm_fig]), self.path_fig, self.stats])
        tabs = widgets.Tab(children=[main, widgets.VBox([self.far_fig])])
        tabs.set_title(0, _("Playground (Fig. 6)"))
        tabs.set_title(1, _("Far cluster (Fig. 7)"))
        right.children = [tabs]
        return box

    _make_data = staticmethod(make_toy)

    def _data(self, p):
        key = (p["dataset"], float(p["noise"]), int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            self._train = self._make_data(key[0], key[2], noise=key[1], random_state=key[3])
            self._valid = self._make_data(key[0], key[2], noise=key[1], random_state=key[3] + 104729)
            self._test = self._make_data(key[0], N_TEST, noise=key[1], random_state=key[3] + 7919)
            self._bounds = plane_bounds(self._train[0], padding=0.15)
            self._data_key = key
        return self._train

    @speaks
    def match_svm(self):
        """Set N to the SVM's number of support vectors (the paper's Fig. 6 comparison)."""
        model = self._svm_cache[1]
        if model is None:
            return self.update()
        return self.update(n_basis=int(min(len(model.support_), self.controls["n_basis"].max)))

    def _adjust(self, params, given):
        params = reset_noise_on_dataset_change(self, params, given)
        self.controls["variant"].disabled = params["loss"] != "squared"
        return params

    def _compute(self, p):
        X, y = self._data(p)
        sigma = float(p["sigma"])
        squared = p["loss"] == "squared"
        max_n = MAX_N_SQUARED if squared else MAX_N_LOSS
        key = (self._data_key, sigma, p["variant"] if squared else "fig4", p["loss"])
        if self._path_cache[0] != key:
            Xv, yv = self._valid
            with self.busy(_("fitting the KMP path…")):
                model = KMPClassifier(n_basis=min(max_n, len(y) + 1 if p["variant"] == "basic" else len(y)),
                                      variant=p["variant"], loss=p["loss"], sigma=sigma,
                                      refit_every=5).fit(X, y, X_val=Xv, y_val=yv)
            self._path_cache = (key, model)
        model = self._path_cache[1]
        steps = len(model.paths_[0]["basis"])
        N = int(min(max(1, p["n_basis"]), steps))
        model.set_n_basis(N)
        skey = (self._data_key, sigma, float(p["C"]))
        if self._svm_cache[0] != skey:
            self._svm_cache = (skey, SVC(C=float(p["C"]), sigma=sigma).fit(X, y))
        svm = self._svm_cache[1]
        Xt, yt = self._test
        # KMP's f = ±1 lines are never shown (its margins trace stays hidden): none traced
        surf = surface_data(model, X, y, grid=self.grid, bounds=self._bounds, binary=True,
                            lines=True, margin_levels=())
        order = [int(k) for k in model.paths_[0]["basis"][:N]]
        steps_of = {}                  # point -> the steps that picked it (basic MP re-picks)
        for step, k in enumerate(order, start=1):
            if k < len(y):             # the last atom is the constant (the bias): no point
                steps_of.setdefault(k, []).append(str(step))
        centres = list(steps_of)
        bias = len(y) in order
        label = (_("support points by pick order ({n} + bias at step {step})").format(
            n=len(centres), step=order.index(len(y)) + 1) if bias else
            _("support points by pick order ({n})").format(n=len(centres)))
        surf["sv_free"] = dict(x=X[centres, 0], y=X[centres, 1],
                               text=[",".join(steps_of[k][:3]) + ("…" if len(steps_of[k]) > 3
                                                                  else "") for k in centres],
                               name=label)
        surf["sv_bound"] = dict(x=[], y=[], name="")
        best = int(np.argmin(model.validation_errors_[0])) + 1
        model.set_n_basis(best)
        best_test = float(np.mean(model.predict(self._test[0]) != self._test[1]))
        model.set_n_basis(N)
        ssurf = surface_data(svm, X, y, grid=self.grid, bounds=self._bounds, binary=True,
                             lines=True)
        far = self._far(float(p["cluster_distance"]))
        val = model.validation_errors_[0]
        return dict(p=p, surf=surf, ssurf=ssurf, N=N, model=model, far=far,
                    train_err=model.train_errors_[0], val_err=val, stats=dict(
                        n_basis_used=N,
                        kmp_train_error=float(model.train_errors_[0][N - 1]),
                        kmp_valid_error=float(val[N - 1]),
                        kmp_test_error=float(np.mean(model.predict(Xt) != yt)),
                        best_n=best, best_test_error=best_test,
                        n_points=len(centres), bias_picked=bias, path_length=steps,
                        svm_n_support=int(len(svm.support_)),
                        svm_test_error=float(np.mean(svm.predict(Xt) != yt)),
                        fit_time_ms=1e3 * float(model.fit_time_),
                        far_error_mse=far["errors"]["KMP-mse"],
                        far_error_tanh=far["errors"]["KMP-tanh"]))

    def _far(self, distance):
        if self._far_cache[0] == distance:
            return self._far_cache[1]
        X, y = far_cluster_data(distance)
        models = {"SVM": SVC(C=1.0, kernel="linear").fit(X, y),
                  "KMP-mse": KMPClassifier(n_basis=3, kernel="linear").fit(X, y),
                  "KMP-tanh": KMPClassifier(n_basis=3, kernel="linear", loss="tanh",
                                            refit_every=1).fit(X, y)}
        # All three are linear, so each decision function is a plane, and the contour plotly
        # draws of a plane on a 2 x 2 grid (edge crossings by linear interpolation, a straight
        # segment between them) is its exact zero line: 12 numbers to send, not 3 x 120 x 120
        # (860 kB of the page's widget state).
        fig = boundaries_figure(models, X, y, grid=2, title="")
        out = dict(fig=fig, errors={k: float(np.mean(m.predict(X) != y)) for k, m in models.items()})
        self._far_cache = (distance, out)
        return out

    def _render(self, r):
        p = r["p"]
        for fig, surf in ((self.fig, r["surf"]), (self.svm_fig, r["ssurf"])):
            for k, uid in enumerate(SURFACE_TRACES):
                if fig.data[k].visible is False:
                    continue       # KMP's f = ±1 lines are never shown: their grid is not sent
                fig.data[k].update(surf[uid])
            xmin, xmax, ymin, ymax = surf["_bounds"]
            fig.layout.xaxis.range = [xmin, xmax]
            fig.layout.yaxis.range = [ymin, ymax]
        kind = _(p["variant"]) if p["loss"] == "squared" else _("Fig. 4 (gradient)")
        self.fig.layout.title.text = _("KMP, {kind}, loss {loss}, N = {n}").format(
            kind=kind, loss=_(dict((v, label) for label, v in LOSSES).get(p["loss"], p["loss"])),
            n=r["N"])
        self.svm_fig.layout.title.text = _("SVM, C = {C}: {n} support vectors").format(
            C=num(p["C"], ".3g"), n=r["stats"]["svm_n_support"])
        n = np.arange(1, len(r["train_err"]) + 1)
        pf = self.path_fig
        pf.data[0].x, pf.data[0].y = n, r["train_err"]
        pf.data[1].x, pf.data[1].y = n, r["val_err"]
        top = float(max(np.max(r["train_err"]), np.max(r["val_err"]), 0.05))
        pf.data[2].x, pf.data[2].y = [r["N"], r["N"]], [0, top]
        src = r["far"]["fig"]
        for k, tr in enumerate(src.data):
            if k < len(self.far_fig.data):
                props = dict(x=tr.x, y=tr.y, name=tr.name)
                if tr.type == "contour":
                    props["z"] = tr.z
                self.far_fig.data[k].update(props)
        self.far_fig.layout.xaxis.range = src.layout.xaxis.range
        self.far_fig.layout.yaxis.range = src.layout.yaxis.range
        self.far_fig.layout.title.text = _("Fig. 7: linear kernel, far cluster at distance "
                                           "{d}").format(d=num(p["cluster_distance"], ".1f"))
        st = dict(r["stats"])
        rows = [(_("KMP training error at N"), num(st["kmp_train_error"], ".1%")),
                (_("KMP validation error at N"), num(st["kmp_valid_error"], ".1%")),
                (_("distinct training points among the N picks"),
                 _("{n} + the bias").format(n=st["n_points"]) if st["bias_picked"]
                 else str(st["n_points"])),
                (_("KMP path fit"), num(st["fit_time_ms"], ".0f") + " ms"),
                (_("Fig. 7 tab: KMP-mse training error"), num(st["far_error_mse"], ".1%")),
                (_("Fig. 7 tab: KMP-tanh training error"), num(st["far_error_tanh"], ".1%"))]
        st["_details"] = "<table>" + "".join(
            f"<tr><td>{html.escape(k)}</td><td class='num'>{html.escape(v)}</td></tr>"
            for k, v in rows) + "</table>"
        return st

    def regime(self, params, stats):
        """N beyond the fitted path, or a width σ that isolates the training points."""
        notes = []
        if int(params["n_basis"]) > stats["path_length"]:
            notes.append(_("N = {n} is more than the pursuit took: it stopped after {steps} steps "
                           "(the training residual was used up), so the page shows N = "
                           "{used}").format(n=params["n_basis"], steps=stats["path_length"],
                                            used=stats["n_basis_used"]))
        X = self._train[0]
        from scipy.spatial import cKDTree
        d = cKDTree(X).query(X, k=2)[0]
        spacing = float(np.median(d[:, 1]))
        if float(params["sigma"]) < 0.5 * spacing:
            notes.append(_("σ = {sigma} is below half the typical distance between neighbouring "
                           "points ({spacing}): each kernel function covers one point, so KMP "
                           "needs about one support point per training point").format(
                               sigma=num(params["sigma"], ".3g"), spacing=num(spacing, ".2g")))
        return notes
