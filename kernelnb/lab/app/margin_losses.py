"""Margin losses: every loss of :mod:`kernelnb.losses` against the margin m = y f(x), with the
derivatives on a toggle (the KMP paper's Fig. 5, Vincent & Bengio 2002, §3.2;
Collobert's thesis, 2004, ch. 3; the vicinal-risk erf loss and its surrogate of Chapelle's
thesis, 2002, §1.3 and Fig. 2.2), and the boundaries that two chosen losses fit on the
same 2-D toy data (:class:`kernelnb.regularized.RegularizedKernelClassifier`, same kernel, same C).
Collobert's MSE on a tanh output (thesis eq. 7.5, Table 7.1) is drawn and fitted beside them, and the
readout names the losses his chapter 3, 7 and 8 models train on.
"""
from __future__ import annotations

import html
import time

import numpy as np
import ipywidgets as widgets
from ..viz._figure_widget import FigureWidget

from ... import losses as _losses
from ...datasets import TOY_DATASETS, TOY_NOISE
from ...regularized import RegularizedKernelClassifier
from ..i18n import N_, _
from ..viz import (boundaries_figure, loss_axes_layout, loss_curves, margin_marker,
                   plane_bounds, decision_grid, grid_arrays)
from ..viz.losses import loss_label
from ._base import Dashboard, Lesson, log_slider, num, styled
from ._toys import TOY_NAMES, toy_name

__all__ = ["MarginLosses", "FIT_LOSSES"]

#: Losses offered for the fitted boundaries: the margin losses that can be minimised by gradient.
#: (Not 'zero_one', no gradient; not 'perceptron', whose regularised minimiser is f = 0; not
#: 'vrm_hinge', a rescaled hinge whose minimiser is the SVM's, see
#: :class:`kernelnb.prior.VicinalSVC`.)  'vrm', the erf loss of the vicinal risk (Chapelle's
#: thesis §1.3), is fitted penalised: mean phi(-y f) + ||f||^2 / (2 C n), where C plays the part
#: of the vicinity width.
FIT_LOSSES = tuple(n for n in _losses.LOSS_NAMES
                   if _losses.LOSSES[n].kind == "margin"
                   and n not in ("zero_one", "perceptron", "vrm_hinge")) + ("tanh_mse",)
N_TEST = 1000

#: Collobert's MSE on a tanh output (thesis eq. 7.5, the MLP+Tanh+MSE of Table 7.1): for y = +-1,
#: 1/2 (y - tanh f)^2 = 1/2 (1 - tanh m)^2, half of :mod:`kernelnb.losses`' 'tanh' loss with
#: target 1.  It is drawn and fitted under the name 'tanh_mse' (fitted as the 'tanh' loss at
#: target 1 and C/2, the same minimiser).
TANH_MSE = "tanh_mse"
TANH_MSE_LABEL = N_("½(1 − tanh m)² (tanh + MSE, Collobert)")

#: The losses Collobert's ch. 7-8 models train, for the readout.
CHAPTER8_LOSSES = (
    ("hinge", N_("SVM; SGD hinge + weight decay (8.16); margin Perceptron and Simple MLP at β = "
                 "1; hinge MLP (8.10)")),
    ("perceptron", N_("original Perceptron (Alg. 3.1): with any weight decay its minimiser is "
                      "f = 0, so it is drawn, not fitted")),
    (TANH_MSE, N_("MLP + tanh output + MSE (Table 7.1)")),
    ("squared", N_("MLP + MSE and the mixture of experts (Table 7.1): (1 − m)² = (y − f)²")),
    ("logistic", N_("MLP + cross-entropy (Table 7.1)")),
)


def _tanh_mse():
    return _losses.get_loss("tanh", target=1.0)


def _value(name, m):
    if name == TANH_MSE:
        return 0.5 * _tanh_mse().value(m)
    return _losses.LOSSES[name].value(m)


def _derivative(name, m):
    if name == TANH_MSE:
        return 0.5 * _tanh_mse().derivative(m)
    return _losses.LOSSES[name].derivative(m)


def _loss_label(name):
    return _(TANH_MSE_LABEL) if name == TANH_MSE else loss_label(_losses.LOSSES[name])


#: The names a student reads for each loss (tables, titles, the fitted boundaries' legend).
SHORT_NAMES = {
    "hinge": N_("hinge"), "squared_hinge": N_("squared hinge"),
    "logistic": N_("logistic (cross-entropy)"), "logitboost": "LogitBoost",
    "exponential": N_("exponential"), "1-tanh": "1 − tanh m", "tanh": "KMP-tanh",
    "squared": N_("squared (MSE)"), "perceptron": N_("perceptron"), "zero_one": N_("0-1 error"),
    "vrm": N_("VRM erf"), "vrm_hinge": N_("VRM surrogate"),
    "epsilon_insensitive": N_("ε-insensitive"), TANH_MSE: "tanh + MSE",
}


def _short(name):
    return _(SHORT_NAMES[name])

#: The curves drawn at first: Collobert's Fig. 8.1 (hinge and cross-entropy) with the 0-1 error
#: they stand for and the other losses his ch. 3, 7 and 8 train on; the rest one click away.
DEFAULT_SHOWN = ("zero_one", "hinge", "logistic", "perceptron", "squared", TANH_MSE)


def _num(v):
    """A loss value or derivative to 3 significant digits, never '-0'."""
    v = float(v)
    if abs(v) < 5e-4:
        return "0"
    return num(v, ".3g").replace("-", "−")


def _median_spacing(X):
    """Median distance from a point to its nearest neighbour."""
    from scipy.spatial import cKDTree
    d = cKDTree(X).query(X, k=2)[0]
    return float(np.median(d[:, 1]))


class MarginLosses(Dashboard):
    """Margin losses and their fitted boundaries.

    Parameters
    ----------
    grid : int, default=80
        Resolution of the boundary grid.
    **params
        Initial control values: ``shown`` (tuple of loss names), ``derivative`` (bool),
        ``margin`` (the margin marked on the chart), ``loss_a``, ``loss_b`` (names in
        :data:`FIT_LOSSES`), ``dataset``, ``noise``, ``n_samples``, ``seed``, ``C``, ``sigma``.

    Notes
    -----
    :meth:`update` returns ``margin``, ``values`` and ``derivatives`` ({loss: L(m)} and
    {loss: L'(m)} of the shown losses at the marked margin), for each fitted loss
    ``a``/``b``: ``train_error_a``, ``test_error_a``, ``fit_time_ms_a``, ..., and
    ``disagreement``: the fraction of the test points the two boundaries classify differently.
    The lesson (Collobert's Fig. 8.1): the hinge and its smooth version, the cross-entropy,
    fit nearly the same boundary.

    Examples
    --------
    >>> from kernelnb.lab.app import MarginLosses
    >>> app = MarginLosses(grid=20)
    >>> stats = app.update(margin=0.5, shown=("hinge", "squared", "logistic"))
    >>> {name: round(value, 3) for name, value in stats["values"].items()}
    {'hinge': 0.5, 'squared': 0.25, 'logistic': 0.474}
    >>> stats["derivatives"]["hinge"]
    -1.0
    >>> stats["disagreement"] < 0.05      # hinge and cross-entropy: nearly the same boundary
    True
    """

    notebook = "margin_losses"
    title = N_("Margin losses")
    purpose = N_("Losses of the margin m = y·f(x) and their derivatives (KMP paper, Fig. 5); "
                 "the hinge and its smooth version, the cross-entropy, fit nearly the same "
                 "boundary (Collobert, Fig. 8.1): pick two losses to compare.")
    STATS = [
        ("test_error_a", N_("loss A: test error"), ".1%"),
        ("test_error_b", N_("loss B: test error"), ".1%"),
        ("disagreement", N_("test points A and B classify differently"), ".1%"),
    ]
    LESSON_APP = {"grid": 30}
    LESSONS = (
        Lesson(claim=N_("The hinge and its smooth version, the cross-entropy (logistic loss), "
                        "fit nearly the same boundary: they classify fewer than 5% of new points "
                        "differently, at every C, σ and noise level."),
               source=N_("Collobert 2004, ch. 8, Fig. 8.1"),
               holds=lambda s: s["disagreement"] < 0.05
               and abs(s["test_error_a"] - s["test_error_b"]) < 0.03,
               sweep={"C": (0.01, 100.0), "sigma": (0.05, 3.0), "noise": (0.0, 0.45)},
               seeds=(0, 1, 2)),
    )

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`): the
    #: boundaries the losses fit, not the loss curves.
    BOOK_FIGURE = {
        "control": "C",
        "figure": 1,
        "values": [0.01, 0.0316, 0.1, 0.316, 1.0, 3.16, 10.0, 31.6, 100.0, 316.0, 1000.0],
        "why": "The lesson is about the boundaries the two losses fit, not about the loss "
               "curves: this chart draws the boundary of the hinge (A) and of the cross-entropy "
               "(B) on the same sample while C, which the lesson says does not matter, goes "
               "from 0.01 to 1,000; the readout gives the share of test points they classify "
               "differently.",
    }

    def __init__(self, grid=80, **params):
        self.grid = grid
        self._fit_cache = {}
        self._data_key = None
        super().__init__(**params)

    def _build(self):
        c = self.controls
        names = (*_losses.LOSS_NAMES, TANH_MSE)
        # the list takes the column's whole width, its name on the row above (the longest
        # options, a formula and its source, need about 245 px), and shows every loss without
        # scrolling (scrolled to the chosen ones, it cut its top row in half)
        c["shown"] = styled(widgets.SelectMultiple(
            options=[(_loss_label(n), n) for n in names], value=DEFAULT_SHOWN, rows=len(names),
            description=_("losses shown")), tooltip=_("several with ctrl- or shift-click"))
        c["shown"].style.description_width = "0px"
        c["derivative"] = styled(widgets.Checkbox(value=False,
                                                  description=_("show derivatives dL/dm"),
                                                  indent=False))
        c["margin"] = styled(widgets.FloatSlider(value=0.5, min=-2.0, max=3.0, step=0.05,
                                                 description=_("mark m =")))
        c["margin"].add_class("kernelnb-main-slider")
        fit_opts = [(_short(n), n) for n in FIT_LOSSES]
        c["loss_a"] = styled(widgets.Dropdown(options=fit_opts, value="hinge",
                                              description=_("loss A")))
        c["loss_b"] = styled(widgets.Dropdown(options=fit_opts, value="logistic",
                                              description=_("loss B")))
        c["dataset"] = styled(widgets.Dropdown(
            options=[(_(TOY_NAMES.get(n, n)), n) for n in TOY_DATASETS], value="moons",
            description=_("data set")))
        c["noise"] = styled(widgets.FloatSlider(value=0.25, min=0.0, max=TOY_NOISE["moons"][1],
                                                step=0.01, description=_("noise")))
        c["n_samples"] = styled(widgets.IntSlider(value=150, min=20, max=600, step=10,
                                                  description=_("n points")))
        c["seed"] = styled(widgets.BoundedIntText(value=0, min=0, max=10**6,
                                                  description=_("sample seed")))
        c["C"] = log_slider("C", 1.0, -2, 3, step=0.1,
                            tooltip=_("J = mean loss + ‖f‖²/(2Cn): larger C, less "
                                      "regularisation"))
        c["sigma"] = log_slider(_("σ (RBF)"), 0.5, -1.5, 1, step=0.05)

        fig = loss_curves(show_derivative=False, highlight=0.5)
        m = np.asarray(fig.data[0].x)
        for kind, ys, axes in (("value", _value(TANH_MSE, m), ("x", "y")),
                               ("deriv", _derivative(TANH_MSE, m), ("x2", "y2"))):
            fig.add_scatter(x=m, y=ys, mode="lines", meta=[kind, TANH_MSE],
                            uid=f"{kind}:{TANH_MSE}",
                            name=_(TANH_MSE_LABEL) if kind == "value" else f"dL/dm {TANH_MSE}",
                            legendgroup=TANH_MSE, showlegend=kind == "value",
                            visible=kind == "value", xaxis=axes[0], yaxis=axes[1],
                            line=dict(color="#006d5b", width=2.2, dash="dashdot"))
        self.fig = FigureWidget(fig)
        self.fig.update_layout(height=480, title=dict(text=_("Losses of the margin m = y·f(x)")))
        X = np.zeros((2, 2))
        self.bfig = FigureWidget(boundaries_figure({"A": _Zero(), "B": _Zero()}, X,
                                                      np.array([0, 1]), grid=2))
        self.bfig.update_layout(height=480, title=dict(text=_("Fitted boundaries f(x) = 0")))
        self.figures = [self.fig, self.bfig]

    def _control_rows(self):
        c = self.controls
        return [widgets.HTML("<b>" + _("loss curves") + "</b>"), widgets.Label(_("losses shown")),
                c["shown"], c["derivative"], c["margin"],
                widgets.HTML("<b>" + _("fitted boundaries") + "</b>"), c["loss_a"], c["loss_b"],
                c["dataset"],
                c["noise"], c["n_samples"], c["seed"], c["C"], c["sigma"]]

    def _adjust(self, params, given):
        if "dataset" in given and "noise" not in given and params["dataset"] in TOY_NOISE:
            default, top = TOY_NOISE[params["dataset"]]
            with self.changing_limits("noise"):   # the new range becomes the declared one
                self.controls["noise"].max = top
            params["noise"] = max(default, 0.5 * top)
        return params

    def _data(self, p):
        name = p["dataset"]
        if name not in TOY_DATASETS:
            raise ValueError(f"dataset must be one of {sorted(TOY_DATASETS)}, got {name!r}")
        key = (name, float(p["noise"]), int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            make = TOY_DATASETS[name][0]
            X, y = make(n_samples=key[2], noise=key[1], random_state=key[3])
            Xt, yt = make(n_samples=N_TEST, noise=key[1], random_state=key[3] + 7919)
            self._train, self._test = (np.asarray(X, float), np.asarray(y)), \
                (np.asarray(Xt, float), np.asarray(yt))
            self._bounds = plane_bounds(self._train[0], padding=0.15)
            self._spacing = _median_spacing(self._train[0])
            self._data_key = key
            self._fit_cache = {}
        return self._train

    def _fit(self, loss, p):
        key = (loss, float(p["C"]), float(p["sigma"]))
        if key not in self._fit_cache:
            X, y = self._train
            t0 = time.perf_counter()
            C = float(p["C"])
            if loss == TANH_MSE:                 # 1/2 the 'tanh' loss at target 1: C/2 fits it
                fit_loss, C = _tanh_mse(), C / 2.0
            else:
                fit_loss = loss
            model = RegularizedKernelClassifier(loss=fit_loss, C=C, sigma=float(p["sigma"]))
            model.fit(X, y)
            ms = 1e3 * (time.perf_counter() - t0)
            Xt, yt = self._test
            xs, ys, Z = decision_grid(model, self._bounds, self.grid)
            self._fit_cache[key] = dict(
                xs=xs, ys=ys, Z=Z, fit_time_ms=ms,
                train_error=float(np.mean(model.predict(X) != y)),
                test_pred=model.predict(Xt), test_error=float(np.mean(model.predict(Xt) != yt)))
        return self._fit_cache[key]

    def _compute(self, p):
        shown = tuple(p["shown"])
        for n in shown:
            if n != TANH_MSE:
                _losses.get_loss(n)  # validates the names
        m = float(p["margin"])
        if not np.isfinite(m):
            raise ValueError(f"margin must be a finite number, got {p['margin']!r}")
        for which in ("loss_a", "loss_b"):
            if p[which] not in FIT_LOSSES:
                raise ValueError(f"{which} must be one of {list(FIT_LOSSES)}, got {p[which]!r}")
        self._data(p)
        fits = {"a": self._fit(p["loss_a"], p), "b": self._fit(p["loss_b"], p)}
        values = {n: float(_value(n, m)) for n in shown}
        derivs = {n: float(_derivative(n, m)) for n in shown}
        return dict(p=p, shown=shown, m=m, fits=fits, values=values, derivatives=derivs)

    def _render(self, r):
        p, shown = r["p"], set(r["shown"])
        fig = self.fig
        for tr in fig.data:
            kind, name = tr.meta if tr.meta else (None, None)
            if kind == "value":
                tr.visible = name in shown
            elif kind == "deriv":
                tr.visible = bool(p["derivative"]) and name in shown
        fig.layout.update(loss_axes_layout(bool(p["derivative"])))
        fig.layout.update(margin_marker(r["m"]))
        bf = self.bfig
        X, y = self._train
        for k in range(2):
            pts = X[y == np.unique(y)[k]]
            bf.data[k].x, bf.data[k].y = pts[:, 0], pts[:, 1]
            bf.data[k].name = _("class {c} ({n})").format(c=np.unique(y)[k], n=pts.shape[0])
        for k, which in enumerate("ab"):
            f = r["fits"][which]
            tr = bf.data[2 + k]
            tr.x, tr.y, tr.z = grid_arrays(f["xs"], f["ys"], f["Z"])
            tr.name = _("{model}: {loss}").format(model=which.upper(),
                                                  loss=_short(p[f"loss_{which}"]))
        xmin, xmax, ymin, ymax = self._bounds
        bf.layout.xaxis.range = [xmin, xmax]
        bf.layout.yaxis.range = [ymin, ymax]
        bf.layout.title.text = _("f(x) = 0 fitted by A ({a}) and B ({b}), RBF σ = {sigma}, "
                                 "C = {C}").format(a=_short(p["loss_a"]), b=_short(p["loss_b"]),
                                                   sigma=num(p["sigma"], ".3g"),
                                                   C=num(p["C"], ".3g"))
        fa, fb = r["fits"]["a"], r["fits"]["b"]
        stats = dict(margin=r["m"], values=r["values"], derivatives=r["derivatives"],
                     disagreement=float(np.mean(fa["test_pred"] != fb["test_pred"])))
        for which in "ab":
            f = r["fits"][which]
            stats.update({f"train_error_{which}": f["train_error"],
                          f"test_error_{which}": f["test_error"],
                          f"fit_time_ms_{which}": f["fit_time_ms"]})
        rows = "".join(
            f"<tr><td>{html.escape(_short(n))}</td>"
            f"<td class='num'>{_num(r['values'][n])}</td>"
            f"<td class='num'>{_num(r['derivatives'][n])}</td></tr>"
            for n in (*_losses.LOSS_NAMES, TANH_MSE) if n in r["values"])
        models = "".join(f"<tr><td>{html.escape(_short(n))}</td><td>{html.escape(_(w))}</td>"
                         f"</tr>" for n, w in CHAPTER8_LOSSES)
        errors = "".join(
            "<tr><td>" + html.escape(_("{model}: {loss}").format(
                model=w.upper(), loss=_short(p[f"loss_{w}"]))) + "</td>"
            f"<td class='num'>{num(f['train_error'], '.1%')}</td>"
            f"<td class='num'>{num(f['test_error'], '.1%')}"
            f"</td><td class='num'>{num(f['fit_time_ms'], '.0f')}</td></tr>"
            for w, f in (("a", fa), ("b", fb)))
        head = html.escape(_("loss at m = {m}").format(m=num(r["m"], ".2f")))
        stats["_html"] = (f"<table><tr><th>{head}</th><th>L(m)</th>"
                          f"<th>dL/dm</th></tr>{rows}</table>")
        heads = [html.escape(t) for t in (
            _("fitted"), _("training error"), _("test error ({n} points)").format(n=N_TEST),
            _("fit (ms)"), _("loss"), _("what trains on it (Collobert, ch. 3, 7, 8)"))]
        stats["_details"] = (f"<table><tr><th>{heads[0]}</th><th>{heads[1]}</th>"
                             f"<th>{heads[2]}</th><th>{heads[3]}</th></tr>"
                             f"{errors}</table>"
                             f"<table><tr><th>{heads[4]}</th><th>{heads[5]}</th></tr>"
                             f"{models}</table>")
        return stats

    def regime(self, params, stats):
        """A width σ far below the spacing of the points: each point gets its own bump and both
        losses memorise the sample (the boundaries then say little about the losses)."""
        notes = []
        if float(params["sigma"]) < 0.5 * self._spacing:
            notes.append(_("σ = {sigma} is below half the typical distance between neighbouring "
                           "points ({spacing}): each point sits in its own bump of the kernel "
                           "and both losses memorise the sample").format(
                               sigma=num(params["sigma"], ".3g"),
                               spacing=num(self._spacing, ".2g")))
        return notes


class _Zero:
    """Placeholder classifier for the empty figure."""

    @staticmethod
    def decision_function(P):
        return np.zeros(len(P))
