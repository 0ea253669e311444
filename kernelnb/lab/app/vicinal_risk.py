"""Vicinal risk: each training point drawn with its vicinity (a circle of radius sigma_i, or the
ellipse of the ellipsoidal VRM), and the boundaries of the hard-margin SVM, of the soft-margin
SVM, of the adaptive-width VRM-SVM, of the vicinal risk itself and of the ellipsoidal VRM
(Chapelle's thesis §1.3, §2.3.1 and §2.3.2, Figs. 2.5 and 2.8; :mod:`kernelnb.prior.vicinal`).

The hard SVM is the one the thesis sets VRM against (§2.3.1's table: hard SVM, soft SVM, VRM
with one width, VRM with adaptive widths): no slack, so no C. When the sample is not separable
with the chosen kernel it has no solution (its dual grows without end): the solver is stopped
after :data:`HARD_MAX_ITER` steps, a linear program decides whether the sample is separable at
all, and the chart and the readout say which of the two stopped it instead of drawing a boundary.

The width rule (k nearest neighbours or a quantile of the distances), its factor and k set the
widths; the soft SVMs share C, and every model the kernel. With the linear kernel the circles
are the vicinities the models use; with the RBF and polynomial kernels the VRM-SVM and the erf
model measure the widths in the kernel's feature space (the circles show the same rule in the
input plane).

The ellipsoidal VRM takes one input-space width, the mean of the rule's widths, and mixes it
with the plain SVM's vicinity by the weight lambda; its ellipses are
:meth:`~kernelnb.prior.EllipsoidalVicinalSVC.vicinity_covariances`, drawn at sqrt(d) standard
deviations (radius sigma at lambda = 1). They are circles for the linear and RBF kernels and
ellipses for the polynomial kernel of degree 2, the kernel of the thesis's Fig. 2.8; the readout
compares the smallest input-space margin ``y f / ||grad f||`` of the SVM and of the ellipsoidal
VRM.

By default three boundaries are drawn (hard SVM, VRM-SVM, vicinal risk); the soft SVM and the
ellipsoidal VRM, which mostly lie on the others on the default sample, are one click on their
legend entries away. The plot's area widens to hold every circle.
"""
from __future__ import annotations

import html
import time
import warnings

import numpy as np
import ipywidgets as widgets
from sklearn.exceptions import ConvergenceWarning

from ..viz._figure_widget import FigureWidget

from ...datasets import TOY_NOISE, make_toy
from ...largescale.margin import linearly_separable
from ...prior import (EllipsoidalVicinalSVC, VicinalRiskClassifier, VicinalSVC, input_margins,
                     vicinity_widths)
from ...svm import SVC
from ..viz import (boundaries_figure, decision_grid, ellipse_outlines, grid_arrays,
                   plane_bounds)
from ..i18n import N_, _, ngettext
from ._base import Dashboard, Lesson, log_slider, num, styled
from ._toys import BlankModel, add_toy_controls, reset_noise_on_dataset_change

__all__ = ["VicinalRisk"]

#: Size of the test sample drawn from the same distribution.
N_TEST = 1000
#: The fitted models, in the chart's order (labels of the boundary traces).
MODELS = (N_("hard SVM"), N_("soft SVM (C)"), N_("VRM-SVM (adaptive margins)"),
          N_("vicinal risk (erf)"), N_("ellipsoidal VRM (input margin)"))
#: Their keys in the stats (``train_error_<key>``, ``test_error_<key>``).
MODEL_KEYS = ("hard", "svm", "vsvc", "vrm", "evrm")
#: Models drawn only once their legend entry is clicked (at most about six curves by default).
HIDDEN_MODELS = (MODELS[1], MODELS[4])
#: The kernels offered: the polynomial one has degree 2 and coef0 = 1 (Fig. 2.8).
KERNELS = ("linear", "poly", "rbf")
#: Most fixed-point steps of the ellipsoidal VRM (each one SVM).
N_FIXED_POINT = 20
#: Most solver steps of the hard-margin SVM. On a sample that is not separable its dual grows
#: without end, and the solver's own cap (10 million steps) takes seconds; separable toys of up
#: to 300 points settled within about 110,000 (measured on every toy, kernel and width offered).
HARD_MAX_ITER = 300_000
#: Eigenvalues of the Gram matrix at most this times the largest count as zero in the
#: separability test (the solver reads the kernel in float32).
_SEPARABLE_RTOL = 1e-10


def _smallest_positive(margins):
    """The smallest of the positive input margins (correctly classified points), or NaN."""
    pos = margins[margins > 0]
    return float(pos.min()) if pos.size else float("nan")


def separable(K, y):
    """Whether some ``f = sum_j a_j k(x_j, .) + b`` has ``y_i f(x_i) >= 1`` at every training
    point, i.e. whether the hard-margin SVM on the Gram matrix ``K`` has a solution: the linear
    separability (:func:`kernelnb.largescale.margin.linearly_separable`, one linear program) of
    the points' coordinates ``V`` in feature space, ``K = V V'``, eigenvalues at most
    :data:`_SEPARABLE_RTOL` times the largest dropped."""
    lam, U = np.linalg.eigh((K + K.T) / 2)
    keep = lam > _SEPARABLE_RTOL * max(lam[-1], 0.0)
    return linearly_separable(U[:, keep] * np.sqrt(lam[keep]), y)


def _hard_problem(p, X, y, hard):
    """None when the hard-margin SVM ``hard`` settled, else (short line for the chart,
    paragraph)."""
    if hard.fit_status_ == 0:
        return None
    kern = {"linear": _("the linear kernel"), "poly": _("the poly 2 kernel")}.get(
        p["kernel"]) or _("the RBF kernel of σ = {sigma}").format(sigma=num(p["sigma"], ".3g"))
    if not separable(hard.kernel_(X), y):
        # distinct points are always separable with an RBF kernel in exact arithmetic; a wide
        # one makes the Gram matrix singular to working precision
        wide = (_(", to working precision (a wide RBF kernel's Gram matrix is nearly singular)")
                if p["kernel"] == "rbf" else "")
        return (_("hard SVM: none, the sample is not separable with {kernel}").format(
                    kernel=kern),
                _("No hard-margin SVM: this sample is not separable with {kernel}{wide}. No "
                  "boundary of that kernel leaves every training point on its own side, so the "
                  "hard margin has no solution; the soft SVM and the VRM boundaries pay for the "
                  "points on the wrong side instead. Lower the noise, or take a more flexible "
                  "kernel (poly 2, or RBF with a smaller σ) to see the hard SVM against "
                  "VRM.").format(kernel=kern, wide=wide))
    steps = num(HARD_MAX_ITER, ",d")
    return (_("hard SVM: not settled in {steps} steps").format(steps=steps),
            _("No hard-margin SVM drawn: the sample is separable with {kernel}, but only by a "
              "margin so thin that the solver had not settled after {steps} steps (its dual "
              "variables grow as the margin shrinks). Lower the noise or change σ.").format(
                  kernel=kern, steps=steps))


class VicinalRisk(Dashboard):
    """Vicinities of the training points and the boundaries they lead to.

    Parameters
    ----------
    grid : int, default=80
        Resolution of the boundary grid.
    **params
        Initial control values: ``dataset``, ``noise``, ``n_samples``, ``seed``, ``kernel``
        ('linear', 'poly' of degree 2, 'rbf'), ``C``, ``sigma`` (RBF), ``width`` ('knn',
        'quantile'), ``width_factor``, ``n_neighbors``, ``show_circles``, ``ellipsoid_weight``
        (lambda of the ellipsoidal VRM), ``show_ellipses``.

    Notes
    -----
    :meth:`update` returns (and the readout shows) ``train_error_<m>`` and ``test_error_<m>``
    for m in ``hard`` (the hard-margin SVM; NaN when it has no solution, see the module's
    docstring), ``svm`` (the soft-margin SVM), ``vsvc``, ``vrm``, ``evrm`` (the ellipsoidal
    VRM), ``vicinal_risk`` (of the erf model at its solution), ``mean_width``, ``margin_min``
    and ``margin_max`` (the VRM-SVM's gamma_i), ``input_margin_svm`` and ``input_margin_evrm``
    (the smallest
    ``y_i f(x_i) / ||grad f(x_i)||`` over the training points the model classifies correctly,
    NaN if none; ``input_margin_hard`` the same for the hard SVM), ``fixed_point_iter``,
    ``fit_time_ms``. The readout shows the test errors and the mean width; the rest is folded
    in its details.

    Examples
    --------
    >>> from kernelnb.lab.app import VicinalRisk
    >>> app = VicinalRisk(grid=20)
    >>> before = app.last_stats["mean_width"]
    >>> after = app.update(width_factor=1.0)["mean_width"]   # the factor was 0.5
    >>> round(after / before, 6)
    2.0
    >>> app.update(kernel="sigmoid")["error"]
    "ValueError: kernel must be one of linear, poly, rbf, got 'sigmoid'"
    """

    notebook = "vicinal_risk"
    title = N_("Vicinal risk")
    purpose = N_("Each point gets a vicinity whose width follows the local density (Chapelle's "
                 "VRM); compare the hard-margin SVM with the VRM boundaries as the widths "
                 "change, and with the ellipsoidal VRM that widens the margin in the input "
                 "plane.")
    STATS = [
        ("test_error_hard", N_("hard SVM: test error"), ".1%"),
        ("test_error_svm", N_("soft SVM: test error"), ".1%"),
        ("test_error_vsvc", N_("VRM-SVM: test error"), ".1%"),
        ("test_error_vrm", N_("vicinal risk (erf): test error"), ".1%"),
        ("test_error_evrm", N_("ellipsoidal VRM: test error"), ".1%"),
        ("mean_width", N_("mean width σ̄"), ".3g"),
    ]
    LESSON_APP = {"grid": 10}
    LESSONS = (Lesson(
        claim=N_("Replacing each point by a vicinity costs nothing against the hard-margin SVM: "
                 "on average the vicinal risk's test error stays within one point of it, "
                 "whatever the widths, and it still gives a boundary where the sample is not "
                 "separable and the hard SVM has none."),
        source=N_("Chapelle 2002, thesis §1.3 and §2.3.1"),
        holds=lambda s: s["test_error_vrm"] <= s["test_error_hard"] + 0.01,
        sweep={"width_factor": (0.1, 8.0), "n_samples": (10,), "kernel": ("poly", "rbf")},
        seeds=(0, 1, 2)),)

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "width_factor",
        "values": [0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0],
        "readout": ["test_error_hard", "test_error_vrm", "test_error_vsvc", "mean_width"],
        "why": "The lesson says that the widths of the vicinities cost nothing against the "
               "hard-margin SVM: the width factor grows the circles drawn round the points from "
               "a tenth to eight times the mean distance to their neighbours, and the readout "
               "puts the vicinal risk's test error beside the hard SVM's.",
    }

    def __init__(self, grid=80, **params):
        self.grid = grid
        self._data_key = None
        super().__init__(**params)

    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=40, n_min=10, n_max=300)
        c["dataset"].value = "blobs"
        c["noise"].max = TOY_NOISE["blobs"][1]
        c["noise"].value = TOY_NOISE["blobs"][0]
        c["kernel"] = styled(widgets.ToggleButtons(
            options=[(_("linear"), "linear"), ("poly 2", "poly"), ("RBF", "rbf")],
            value="linear", description=_("kernel"),
            tooltips=["x·z", _("(x·z + 1)², the kernel of Fig. 2.8"), "exp(−‖x − z‖² / 2σ²)"]))
        c["kernel"].style.button_width = "66px"
        c["C"] = log_slider("C", 1.0, -2, 3, step=0.1,
                            tooltip=_("penalty of the soft margins (the soft SVM, the VRM-SVM "
                                      "and the ellipsoidal VRM; the hard SVM has none), log "
                                      "scale"))
        c["sigma"] = log_slider(_("σ (RBF)"), 1.0, -1, 1, step=0.05)
        c["width"] = styled(widgets.ToggleButtons(
            options=[(_("k nearest"), "knn"), (_("quantile"), "quantile")], value="knn",
            description=_("width rule")))
        c["width"].style.button_width = "90px"
        c["width_factor"] = log_slider(_("width factor"), 0.5, -1.5, 1, step=0.05, main=True,
                                       tooltip=_("multiplies every width σᵢ"))
        c["n_neighbors"] = styled(widgets.IntSlider(value=5, min=1, max=15,
                                                    description=_("k neighbours")))
        c["show_circles"] = styled(widgets.Checkbox(value=True,
                                                    description=_("draw the vicinities"),
                                                    indent=False))
        c["ellipsoid_weight"] = styled(widgets.FloatSlider(
            value=1.0, min=0.0, max=1.0, step=0.05, description=_("weight λ"),
            tooltip=_("λ of the ellipsoidal VRM: 1 = input-space margin, 0 = the plain SVM")))
        c["show_ellipses"] = styled(widgets.Checkbox(
            value=False, description=_("draw the ellipsoidal VRM's vicinities"), indent=False))
        X = np.array([[-1.0, -1.0], [1.0, 1.0]])
        y = np.array([0, 1])
        self._bounds = plane_bounds(X, padding=0.15)
        fig = boundaries_figure({m: BlankModel() for m in MODELS}, X, y, grid=2,
                                bounds=self._bounds)
        fig.add_scatter(x=[], y=[], mode="lines", name=_("vicinities (radius σᵢ)"),
                        uid="circles", line=dict(color="rgba(90,90,90,0.45)", width=1),
                        hoverinfo="skip")
        fig.add_scatter(x=[], y=[], mode="lines", name=_("ellipsoidal VRM vicinities"),
                        uid="ellipses", line=dict(color="rgba(148,52,110,0.55)", width=1, dash="dot"),
                        hoverinfo="skip")
        for tr in fig.data:
            if tr.name in HIDDEN_MODELS:
                tr.visible = "legendonly"
        fig.update_layout(height=560, title=dict(text=_("Vicinal risk")))
        self.fig = FigureWidget(fig)
        self.figures = [self.fig]

    def _control_rows(self):
        c = self.controls
        return [c["dataset"], c["noise"], c["n_samples"], c["seed"],
                widgets.HTML("<b>" + _("vicinities") + "</b>"), c["width"], c["width_factor"],
                c["n_neighbors"], c["show_circles"],
                widgets.HTML("<b>" + _("models") + "</b>"), c["kernel"], c["C"], c["sigma"],
                widgets.HTML("<b>" + _("ellipsoidal VRM") + "</b>"), c["ellipsoid_weight"],
                c["show_ellipses"]]

    def _adjust(self, params, given):
        params = reset_noise_on_dataset_change(self, params, given)
        self.controls["sigma"].disabled = params["kernel"] != "rbf"
        self.controls["n_neighbors"].disabled = params["width"] != "knn"
        return params

    def _data(self, p):
        key = (p["dataset"], float(p["noise"]), int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            X, y = make_toy(key[0], key[2], noise=key[1], random_state=key[3])
            Xt, yt = make_toy(key[0], N_TEST, noise=key[1], random_state=key[3] + 7919)
            self._train = (np.asarray(X, float), np.asarray(y))
            self._test = (np.asarray(Xt, float), np.asarray(yt))
            self._bounds = plane_bounds(self._train[0], padding=0.15)
            self._data_key = key
        return self._train

    def _compute(self, p):
        X, y = self._data(p)
        if p["width"] not in ("knn", "quantile"):
            raise ValueError(_("{name} must be {a} or {b}, got {value}").format(
                name="width", a="'knn'", b="'quantile'", value=repr(p["width"])))
        if p["kernel"] not in KERNELS:
            raise ValueError(_("{name} must be one of {names}, got {value}").format(
                name="kernel", names=", ".join(KERNELS), value=repr(p["kernel"])))
        rule = dict(width=p["width"], width_factor=float(p["width_factor"]),
                    n_neighbors=int(p["n_neighbors"]))
        kern = dict(kernel=p["kernel"], sigma=float(p["sigma"]), degree=2, coef0=1.0)
        radii = vicinity_widths(X, p["width"], n_neighbors=int(p["n_neighbors"]),
                                factor=float(p["width_factor"]))
        # the plot holds every circle drawn (and the boundaries are drawn over all of it)
        bounds = self._bounds
        if p["show_circles"]:
            pad = 0.05 * max(bounds[1] - bounds[0], bounds[3] - bounds[2])
            bounds = (min(bounds[0], float(np.min(X[:, 0] - radii)) - pad),
                      max(bounds[1], float(np.max(X[:, 0] + radii)) + pad),
                      min(bounds[2], float(np.min(X[:, 1] - radii)) - pad),
                      max(bounds[3], float(np.max(X[:, 1] + radii)) + pad))
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            # a sample the kernel cannot separate is an outcome here, said in the page
            warnings.simplefilter("ignore", ConvergenceWarning)
            hard = SVC(margin="hard", max_iter=HARD_MAX_ITER, **kern).fit(X, y)
        models = {
            MODELS[0]: hard,
            MODELS[1]: SVC(C=float(p["C"]), **kern).fit(X, y),
            MODELS[2]: VicinalSVC(C=float(p["C"]), **rule, **kern).fit(X, y),
            MODELS[3]: VicinalRiskClassifier(**rule, **kern).fit(X, y),
            MODELS[4]: EllipsoidalVicinalSVC(
                C=float(p["C"]), vicinity_sigma=float(np.mean(radii)),
                ellipsoid_weight=float(p["ellipsoid_weight"]), n_fixed_point=N_FIXED_POINT,
                **kern).fit(X, y),
        }
        ms = 1e3 * (time.perf_counter() - t0)
        hard_problem = _hard_problem(p, X, y, hard)
        Xt, yt = self._test
        grids, stats = {}, {}
        for key, (m, model) in zip(MODEL_KEYS, models.items()):
            if m == MODELS[0] and hard_problem is not None:
                grids[m] = decision_grid(None, bounds, self.grid)      # nothing to draw
                stats[f"train_error_{key}"] = stats[f"test_error_{key}"] = float("nan")
                continue
            grids[m] = decision_grid(model, bounds, self.grid)
            stats[f"train_error_{key}"] = float(np.mean(model.predict(X) != y))
            stats[f"test_error_{key}"] = float(np.mean(model.predict(Xt) != yt))
        vs, ev = models[MODELS[2]], models[MODELS[4]]
        stats.update(vicinal_risk=float(models[MODELS[3]].vicinal_risk_),
                     mean_width=float(np.mean(vs.sigmas_)),
                     margin_min=float(vs.margins_.min()), margin_max=float(vs.margins_.max()),
                     input_margin_hard=(float("nan") if hard_problem is not None else
                                        _smallest_positive(input_margins(hard, X, y))),
                     input_margin_svm=_smallest_positive(input_margins(models[MODELS[1]], X, y)),
                     input_margin_evrm=_smallest_positive(ev.input_margins_),
                     fixed_point_iter=int(ev.n_fixed_point_iter_), fit_time_ms=ms)
        covs = ev.vicinity_covariances(X) if p["show_ellipses"] else None
        return dict(p=p, X=X, y=y, radii=radii, grids=grids, stats=stats, bounds=bounds,
                    margins=vs.margins_, covs=covs, converged=ev.fixed_point_converged_,
                    hard_problem=hard_problem)

    def _render(self, r):
        p, X, y = r["p"], r["X"], r["y"]
        fig = self.fig
        classes = np.unique(y)
        for k in range(2):
            pts = X[y == classes[k]]
            fig.data[k].x, fig.data[k].y = pts[:, 0], pts[:, 1]
            fig.data[k].name = _("class {c} ({n})").format(c=classes[k], n=pts.shape[0])
        for i, m in enumerate(MODELS):
            xs, ys, Z = r["grids"][m]
            tr = fig.data[2 + i]
            tr.x, tr.y, tr.z = grid_arrays(xs, ys, Z)
        problem = r["hard_problem"]
        fig.data[2].name = (_(MODELS[0]) if problem is None
                            else _("hard SVM: none (see the note)"))
        fig.layout.annotations = [] if problem is None else [dict(
            text=html.escape(problem[0]), xref="paper", yref="paper", x=0.01, y=0.99,
            xanchor="left", yanchor="top", showarrow=False, align="left",
            font=dict(color="#8a1c14", size=13), bgcolor="rgba(253,236,234,0.9)",
            bordercolor="#f5c2c0", borderwidth=1, borderpad=4)]
        cx, cy = ellipse_outlines(X, r["radii"] ** 2) if p["show_circles"] else ([], [])
        fig.data[2 + len(MODELS)].x, fig.data[2 + len(MODELS)].y = cx, cy
        fig.data[2 + len(MODELS)].visible = bool(p["show_circles"])
        # sqrt(d) standard deviations: radius sigma where the vicinity is the input sphere
        ex, ey = (ellipse_outlines(X, r["covs"], scale=np.sqrt(X.shape[1]))
                  if r["covs"] is not None else ([], []))
        fig.data[3 + len(MODELS)].x, fig.data[3 + len(MODELS)].y = ex, ey
        fig.data[3 + len(MODELS)].visible = r["covs"] is not None
        xmin, xmax, ymin, ymax = r["bounds"]
        fig.layout.xaxis.range = [xmin, xmax]
        fig.layout.yaxis.range = [ymin, ymax]
        kern = {"linear": _("linear"), "poly": "poly (x·z + 1)²"}.get(
            p["kernel"]) or f"RBF σ = {num(p['sigma'], '.3g')}"
        rule = (_("mean distance to {k} neighbours").format(k=p["n_neighbors"])
                if p["width"] == "knn" else _("5/1000 quantile of the distances"))
        fig.layout.title.text = _("Vicinities σᵢ = {factor} × {rule}; {kernel}, C = {C}").format(
            factor=num(p["width_factor"], ".3g"), rule=rule, kernel=kern, C=num(p["C"], ".3g"))
        stats = dict(r["stats"])
        order = np.argsort(r["margins"])
        point = _("point {i}")
        rows = "".join(f"<tr><td>{html.escape(point.format(i=int(i)))}</td>"
                       f"<td class='num'>{num(r['radii'][i], '.3g')}</td>"
                       f"<td class='num'>{num(r['margins'][i], '.3f')}</td></tr>"
                       for i in np.r_[order[:2], order[-2:]])
        note = ("" if r["converged"] else "<p>{}</p>".format(html.escape(
            _("The ellipsoidal VRM's fixed point stopped after {n} steps without settling (the "
              "thesis gives no guarantee): its boundary is the last step's.").format(
                  n=N_FIXED_POINT))))
        if problem is not None:
            note = f"<p class='kernelnb-hard-note'>{html.escape(problem[1])}</p>" + note
        stats["_html"] = note
        pct = lambda v: "–" if not np.isfinite(v) else num(100 * v, ".1f") + " %"  # noqa: E731
        short = lambda v: "–" if not np.isfinite(v) else num(v, ".3g")  # noqa: E731
        train = ", ".join(f"{_(name)} {pct(stats[f'train_error_{key}'])}" for key, name in zip(
            MODEL_KEYS, (N_("hard SVM"), N_("soft SVM"), N_("VRM-SVM"), N_("vicinal risk"),
                         N_("ellipsoidal VRM"))))
        steps = stats["fixed_point_iter"]
        texts = [html.escape(t) for t in (
            _("Training errors: {errors}.").format(errors=train),
            _("Vicinal risk at its minimum: {risk}. VRM-SVM margins γᵢ = σᵢ/σ̄ from {lo} to "
              "{hi}.").format(risk=num(stats["vicinal_risk"], ".3f"),
                              lo=num(stats["margin_min"], ".3f"),
                              hi=num(stats["margin_max"], ".3f")),
            ngettext("Smallest input margin y f/‖∇f‖ (correctly classified points): hard SVM "
                     "{hard}, soft SVM {soft}, ellipsoidal VRM {evrm} after {steps} fixed-point "
                     "step. Fit time, five models: {ms} ms.",
                     "Smallest input margin y f/‖∇f‖ (correctly classified points): hard SVM "
                     "{hard}, soft SVM {soft}, ellipsoidal VRM {evrm} after {steps} fixed-point "
                     "steps. Fit time, five models: {ms} ms.", steps).format(
                         hard=short(stats["input_margin_hard"]),
                         soft=short(stats["input_margin_svm"]),
                         evrm=short(stats["input_margin_evrm"]), steps=steps,
                         ms=num(stats["fit_time_ms"], ".0f")),
            _("smallest / largest"))]
        stats["_details"] = (
            f"<p>{texts[0]}</p><p>{texts[1]}</p><p>{texts[2]}</p>"
            f"<table><tr><th>{texts[3]}</th><th>σᵢ</th>"
            f"<th>γᵢ</th></tr>{rows}</table>")
        return stats

    def regime(self, params, stats):
        """A note where the hard-margin SVM has no solution (the sample is not separable with
        the kernel, or only by a margin too thin to settle): the lesson compares the vicinal
        risk with it, which needs it to exist.

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
        if np.isfinite(stats["test_error_hard"]):
            return []
        return [_("no hard-margin SVM on this sample (see below): the vicinal risk still has a "
                  "boundary, but there is no hard SVM to compare it with")]
