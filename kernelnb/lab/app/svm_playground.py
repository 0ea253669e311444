"""SVM playground: an SVM on 2-D toy data, as LIBSVM's svm-toy with the theses' pictures.

Data set, noise and size; click on the chart to add a point of the chosen class; kernel; C and
sigma on log sliders. The chart shows the decision function, the f = -1, 0, +1 lines and the
support vectors, free (0 < alpha < C) or at bound (alpha = C); the readout gives the margin width
2/||w||, the errors, #SV, the dual objective and the fit time. The "C path" toggle adds #SV and
errors along C, fitted with warm starts by :func:`kernelnb.svm.svc_path`.
(Collobert's thesis ch. 1-3; Chapelle's thesis ch. 1.)

The lesson is Vapnik's support-vector count bound (Chapelle's thesis, chapter 3, the "SV count"
estimate): the expected leave-one-out error is at most the expected fraction of support vectors,
so the test error stays below #SV / n at every C and σ; it says little where every point is a
support vector (C so small that every α is at C, σ so narrow that every point is an island or so
wide that the kernel is flat), and :meth:`SVMPlayground.regime` says so.
"""
from __future__ import annotations

import numpy as np
import ipywidgets as widgets
from ..viz._figure_widget import FigureWidget

from ...datasets import TOY_NOISE, make_toy
from ...svm import SVC, svc_path
from ..viz import (SURFACE_TRACES, c_marker, c_path_figure, decision_surface, margin_width,
                   plane_bounds, support_masks, surface_data)
from ..i18n import N_, _
from . import _a11y
from ._base import Dashboard, Lesson, log_slider, num, speaks, styled
from ._toys import (BlankModel, add_toy_controls, click_problem,
                    reset_noise_on_dataset_change, toy_name)

__all__ = ["SVMPlayground"]

#: Values of C of the C path (log-spaced over the slider's range).
PATH_CS = np.logspace(-2, 4, 19)
#: Size of the test sample drawn from the same distribution.
N_TEST = 1000
#: Most points clicks may add (a page can send clicks from a script).
MAX_ADDED = 500
#: Fraction of support vectors from which the count bound is void (every point, or nearly).
VOID_SV = 0.95


class SVMPlayground(Dashboard):
    """Interactive SVM on a 2-D toy data set.

    Parameters
    ----------
    grid : int, default=100
        Resolution of the decision surface (grid x grid evaluations).
    **params
        Initial control values (see :attr:`controls`): ``dataset`` ('moons', 'spirals', 'xor',
        'blobs'), ``noise``, ``n_samples``, ``seed``, ``kernel`` ('rbf', 'linear', 'poly'),
        ``C``, ``sigma``, ``degree``, ``click_class`` (0 or 1), ``show_margins``, ``c_path``.

    Notes
    -----
    :meth:`update` returns (and the readout shows) ``train_error``, ``test_error``,
    ``n_support``, ``n_free``, ``n_bound``, ``margin_width``, ``dual_objective``,
    ``fit_time_ms``, ``n_iter``, ``n_train``, ``n_added``, ``sv_fraction`` (#SV / n, the
    support-vector count bound on the leave-one-out error), and with the C path on, ``path_Cs``,
    ``path_n_support``, ``path_train_error``, ``path_test_error``. The readout shows the errors,
    the support vectors and the margin; the rest is folded in its details.

    Examples
    --------
    >>> from kernelnb.lab.app import SVMPlayground
    >>> app = SVMPlayground(grid=20, n_samples=60)
    >>> stats = app.update(kernel="linear", C=10.0)
    >>> stats["n_train"], stats["n_support"] == stats["n_free"] + stats["n_bound"]
    (60, True)
    >>> app.figures[0].layout.title.text
    'moons: SVM, linear, C = 10'
    >>> app.add_point(0.5, 0.2, label=0)["n_added"]
    1
    >>> app.update(dataset="circles")["error"]
    "ValueError: The 'name' parameter of make_toy must be one of ['blobs', ...]. Got 'circles' ..."
    """

    notebook = "svm_playground"
    click_action = "add_point"
    click_label = N_("add a point of the chosen class at (x₁, x₂)")
    title = N_("SVM playground")
    purpose = N_("Fit a support vector machine on 2-D toy data. Click on the chart to add a point "
                 "of the chosen class; move C and σ and watch the margins and the support "
                 "vectors.")
    STATS = [
        ("train_error", N_("training error"), ".1%"),
        ("test_error", (N_("test error ({n} new points)"), {"n": N_TEST}), ".1%"),
        ("sv_fraction", N_("support vectors #SV / n"), ".1%"),
        ("sv_text", N_("free (0 < α < C) / at bound (α = C)"), "s"),
        ("margin_width", N_("margin width 2/‖w‖"), ".3g"),
        ("n_added", N_("points added by clicks"), "d"),
    ]
    LESSON_APP = {"grid": 10}
    LESSONS = (Lesson(
        claim=N_("The fraction of support vectors bounds the leave-one-out error: on average the "
                 "test error stays below #SV / n, whatever C and σ; few support vectors promise a "
                 "low error."),
        source=N_("Vapnik; Chapelle 2002, thesis ch. 3 (the support-vector count)"),
        holds=lambda s: s["test_error"] <= s["sv_fraction"],
        sweep={"C": (0.01, 1.0, 100.0, 1e4), "sigma": (0.01, 0.05, 0.5, 5.0),
               "kernel": ("rbf", "linear", "poly"), "noise": (0.0, 0.3)},
        seeds=(0, 1, 2)),)

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "C",
        "values": [0.01, 0.0316, 0.1, 0.316, 1.0, 3.16, 10.0, 31.6, 100.0, 316.0, 1000.0,
                   3160.0, 10000.0],
        "app": {"noise": 0.2},
        "why": "The lesson sets the test error against #SV / n whatever C: C goes from 0.01, "
               "every point a support vector and a smooth boundary, to 10,000, few support "
               "vectors and a boundary that bends round single points, on moons noisy enough "
               "(0.2) for the classes to touch; the readout gives both numbers at each C.",
    }

    def __init__(self, grid=100, **params):
        self.grid = grid
        self._data_key = None
        self._added: list = []
        self._path_cache = (None, None)
        self._drawn_bounds = None
        self._model_cache = (None, None)
        super().__init__(**params)

    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=200, n_min=20, n_max=1000)
        c["kernel"] = styled(widgets.ToggleButtons(
            options=[("rbf", "rbf"), (_("linear"), "linear"), ("poly", "poly")], value="rbf",
            description=_("kernel")))
        c["kernel"].style.button_width = "68px"
        c["C"] = log_slider("C", 1.0, -3, 4, step=0.1, main=True,
                            tooltip=_("soft-margin penalty C (log scale)"))
        c["sigma"] = log_slider(_("σ (RBF)"), 0.5, -2, 1.5, step=0.05,
                                tooltip=_("RBF width σ: k = exp(−‖x−y‖²/2σ²)"))
        c["degree"] = styled(widgets.IntSlider(value=3, min=1, max=6,
                                               description=_("degree (poly)")))
        c["click_class"] = styled(widgets.ToggleButtons(
            options=[(_("class 0"), 0), (_("class 1"), 1)], value=1,
            description=_("click adds")))
        c["click_class"].style.button_width = "80px"
        c["show_margins"] = styled(widgets.Checkbox(value=True,
                                                    description=_("show f = ±1 lines"),
                                                    indent=False))
        c["c_path"] = styled(widgets.Checkbox(value=False, description=_("C path (#SV, errors)"),
                                              indent=False))
        self.clear_button = widgets.Button(description=_("clear added points"), icon="eraser",
                                           layout=widgets.Layout(width="210px"))
        self.clear_button.on_click(lambda _b: self.clear_points())
        self.resample_button = widgets.Button(description=_("new sample"), icon="refresh",
                                              layout=widgets.Layout(width="160px"))
        self.resample_button.on_click(lambda _b: self.new_sample())

        X, y = self._make_data("moons", 200, noise=TOY_NOISE["moons"][0], random_state=0)
        self._bounds = plane_bounds(X, padding=0.15)
        fig = decision_surface(BlankModel(), X, y, grid=2, bounds=self._bounds, binary=True)
        fig.update_layout(height=560, uirevision="keep", clickmode="event")
        # A click adds a point where it lands, through the heat map's click callback; plotly
        # gives a click to the trace it hovers, and in 'closest' mode a data point within 20 px
        # wins over the heat map (8 of 10 clicks on moons went to the data points and were
        # lost). The data points take no hover: the heat map's label gives x₁, x₂ and f(x).
        fig.update_traces(hoverinfo="skip", hovertemplate=None,
                          selector=lambda t: t.meta in ("class0", "class1"))
        self.fig = FigureWidget(fig)
        self.fig.data[0].on_click(self._on_click)
        path = c_path_figure(PATH_CS[:1], [0], [0.0], [0.0], [0], title=_("C path"))
        path.update_layout(height=330)
        self.path_fig = FigureWidget(path)
        self.path_box = widgets.Box([self.path_fig], layout=widgets.Layout(display="none"))
        self.figures = [self.fig, self.path_fig]

    def _control_rows(self):
        c = self.controls
        return [c["dataset"], c["noise"], c["n_samples"], c["seed"],
                widgets.HBox([self.resample_button]),
                widgets.HTML("<b>" + _("model") + "</b>"), c["kernel"], c["C"], c["sigma"],
                c["degree"], widgets.HTML("<b>" + _("chart") + "</b>"), c["click_class"],
                widgets.HBox([self.clear_button]),
                c["show_margins"], c["c_path"]]

    def _layout(self):
        box = super()._layout()
        # the C path figure sits in a box that is hidden while the toggle is off
        right = box.children[-1].children[1]
        right.children = [self.fig, self.path_box, self.stats]
        return box

    def chart_notes(self, index, stats):
        """The main chart says where the boundary runs: how many regions of the plane each class
        gets (the connected parts of the sign of f on the chart's grid)."""
        z = _a11y.surface_grid(self.fig.data[0]) if index == 0 else None
        if z is None:
            return []
        from scipy import ndimage
        positive, negative = ndimage.label(z > 0)[1], ndimage.label(z <= 0)[1]
        return [_("the boundary f = 0 gives class 1 {pos} region(s) of the plane and "
                  "class 0 {neg}").format(pos=positive, neg=negative)]

    _make_data = staticmethod(make_toy)

    def _data(self, p):
        key = (p["dataset"], float(p["noise"]), int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            X, y = self._make_data(key[0], key[2], noise=key[1], random_state=key[3])
            Xt, yt = self._make_data(key[0], N_TEST, noise=key[1], random_state=key[3] + 7919)
            self._base = (np.asarray(X, float), np.asarray(y))
            self._test = (np.asarray(Xt, float), np.asarray(yt))
            self._bounds = plane_bounds(self._base[0], padding=0.15)
            self._added = []
            self._data_key = key
        X, y = self._base
        if self._added:
            A = np.asarray(self._added, dtype=float)
            X = np.vstack([X, A[:, :2]])
            y = np.concatenate([y, A[:, 2].astype(y.dtype)])
        return X, y

    @speaks
    def new_sample(self):
        """Draw a new sample: the seed one up, and refit."""
        return self.update(seed=self.controls["seed"].value + 1)

    @speaks
    def add_point(self, x, y, label=None):
        """Add a training point of class ``label`` (default: the "click adds" class) and refit.

        A point that is not a pair of finite numbers inside the chart's area (the plane shown,
        widened by its own size on each side), or one beyond :data:`MAX_ADDED` added points,
        is not added: the message is shown in the page and returned as ``{'error': ...}``.
        """
        label = self.controls["click_class"].value if label is None else label
        if label not in (0, 1):
            raise ValueError(f"label must be 0 or 1, got {label!r}")
        problem = click_problem(x, y, self._bounds)
        if problem is None and len(self._added) >= MAX_ADDED:
            problem = _("at most {n} points can be added by clicks: 'clear added points' "
                        "first").format(n=MAX_ADDED)
        if problem is not None:
            msg = _("click ignored: {why}").format(why=problem)
            self.show_error(msg)
            return {"error": msg}
        self._added.append((float(x), float(y), int(label)))
        return self.update()

    def clicks_state(self):
        """The points added by clicks, ``[[x, y, label], ...]`` (kept by the page).

        Returns
        -------
        list
        """
        return [[x, y, label] for x, y, label in self._added]

    def restore_clicks(self, state):
        """Add back the points of :meth:`clicks_state` (checked as clicks are) and refit once.

        Parameters
        ----------
        state : list
            ``[[x, y, label], ...]``.

        Returns
        -------
        int
            The points restored.
        """
        kept = []
        for entry in state[:MAX_ADDED]:
            if (isinstance(entry, list) and len(entry) == 3 and entry[2] in (0, 1)
                    and not isinstance(entry[2], bool)
                    and click_problem(entry[0], entry[1], self._bounds) is None):
                kept.append((float(entry[0]), float(entry[1]), int(entry[2])))
        if kept:
            self._added = kept
            self.update()
        return len(kept)

    @speaks
    def clear_points(self):
        """Remove the points added by clicks and refit."""
        self._added = []
        return self.update()

    def _adjust(self, params, given):
        params = reset_noise_on_dataset_change(self, params, given)
        kernel = params["kernel"]
        self.controls["sigma"].disabled = kernel != "rbf"
        self.controls["degree"].disabled = kernel != "poly"
        return params

    def _svc_params(self, p):
        return dict(kernel=p["kernel"], sigma=float(p["sigma"]), degree=int(p["degree"]),
                    coef0=1.0, tol=1e-3)

    def _compute(self, p):
        X, y = self._data(p)
        C = p["C"]
        key = (self._data_key, tuple(self._added), C, tuple(sorted(self._svc_params(p).items())))
        if self._model_cache[0] == key:   # chart-only change (margins shown, click class...)
            model = self._model_cache[1]
        else:
            model = SVC(C=C, **self._svc_params(p)).fit(X, y)
            self._model_cache = (key, model)
        surface = surface_data(model, X, y, grid=self.grid, bounds=self._bounds, binary=True)
        Xt, yt = self._test
        free, bound = support_masks(model)
        out = dict(model=model, surface=surface, p=p, stats=dict(
            train_error=float(np.mean(model.predict(X) != y)),
            test_error=float(np.mean(model.predict(Xt) != yt)),
            n_support=int(model.support_.size), n_free=int(free.size), n_bound=int(bound.size),
            margin_width=float(margin_width(model)), dual_objective=float(model.objective_),
            n_iter=int(np.sum(model.n_iter_)), fit_time_ms=1e3 * float(model.fit_time_),
            n_train=int(X.shape[0]), n_added=len(self._added)))
        if p["c_path"]:
            out["path"] = self._c_path(X, y, p)
        return out

    def _c_path(self, X, y, p):
        key = (self._data_key, len(self._added), tuple(sorted(self._svc_params(p).items())))
        if self._path_cache[0] == key:
            return self._path_cache[1]
        Xt, yt = self._test
        with self.busy(_("C path: {n} fits, warm-started along C…").format(n=PATH_CS.size)):
            models = svc_path(X, y, Cs=PATH_CS, **self._svc_params(p))
            self.report_progress(0.9, _("C path: errors…"))
            path = dict(
                Cs=np.array([m.C for m in models]),
                n_support=np.array([m.support_.size for m in models]),
                n_bound=np.array([int(np.sum(m.at_bound_)) for m in models]),
                train_error=np.array([np.mean(m.predict(X) != y) for m in models]),
                test_error=np.array([np.mean(m.predict(Xt) != yt) for m in models]))
        self._path_cache = (key, path)
        return path

    def _render(self, r):
        s, p = r["surface"], r["p"]
        fig = self.fig
        same_grid = (self._drawn_bounds == s["_bounds"]
                     and len(fig.data[0].z) == len(s["surface"]["z"]))
        for k, uid in enumerate(SURFACE_TRACES):
            props = s[uid]
            if same_grid and uid in ("surface", "boundary", "margins"):
                props = {"z": props["z"]}  # the grid nodes did not move: send f only
            fig.data[k].update(props)
        self._drawn_bounds = s["_bounds"]
        fig.data[SURFACE_TRACES.index("margins")].visible = bool(p["show_margins"])
        xmin, xmax, ymin, ymax = s["_bounds"]
        fig.layout.xaxis.range = [xmin, xmax]
        fig.layout.yaxis.range = [ymin, ymax]
        kern = {"rbf": _("RBF, σ = {sigma}").format(sigma=num(p["sigma"], ".3g")),
                "linear": _("linear"),
                "poly": _("polynomial, degree {degree}").format(degree=p["degree"])}[p["kernel"]]
        fig.layout.title.text = _("{dataset}: SVM, {kernel}, C = {C}").format(
            dataset=toy_name(p["dataset"]), kernel=kern, C=num(p["C"], ".3g"))
        stats = dict(r["stats"])
        n = stats["n_train"]
        stats["sv_fraction"] = stats["n_support"] / n
        stats["sv_text"] = f"{stats['n_free']} / {stats['n_bound']}"
        stats["_details"] = _(
            "{n_sv} support vectors of {n} training points; dual objective {dual}; {n_iter} "
            "solver iterations; fit time {ms} ms").format(
                n_sv=stats["n_support"], n=n, dual=num(stats["dual_objective"], ".5g"),
                n_iter=stats["n_iter"], ms=num(stats["fit_time_ms"], ".1f"))
        if "path" in r:
            path = r["path"]
            self.path_box.layout.display = "flex"
            pf = self.path_fig
            for k, (key, uid) in enumerate([("train_error", "train"), ("test_error", "test"),
                                            ("n_support", "nsv"), ("n_bound", "nbound")]):
                pf.data[k].x = path["Cs"]
                pf.data[k].y = path[key]
            pf.layout.update(c_marker(p["C"]))
            stats.update(path_Cs=path["Cs"], path_n_support=path["n_support"],
                         path_train_error=path["train_error"], path_test_error=path["test_error"])
        else:
            self.path_box.layout.display = "none"
        return stats

    def regime(self, params, stats):
        """A note where (nearly) every point is a support vector, so that the count bound
        #SV / n ≥ 95 % says nothing, with its cause: C so small that every α is at C, σ below
        the distance between neighbouring points, σ so wide the kernel is flat.

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
        if stats["sv_fraction"] < VOID_SV:
            return []
        sv = _("{pct} % of the points are support vectors").format(
            pct=num(100 * stats["sv_fraction"], ".1f"))
        X = self._base[0]
        d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
        np.fill_diagonal(d2, np.inf)
        nn = float(np.median(np.sqrt(d2.min(axis=1))))
        spread = float(np.sqrt(np.mean(np.sum((X - X.mean(axis=0)) ** 2, axis=1))))
        sigma, rbf = float(params["sigma"]), params["kernel"] == "rbf"
        if rbf and sigma < nn:
            why = _("σ = {sigma} is below the typical distance between neighbours ({nn}): each "
                    "point is an island and the SVM memorises the sample").format(
                        sigma=num(sigma, ".3g"), nn=num(nn, ".2g"))
        elif rbf and sigma > 3 * spread:
            why = _("σ = {sigma} is much wider than the data (spread {spread}): the kernel is "
                    "nearly constant and f nearly flat").format(sigma=num(sigma, ".3g"),
                                                                spread=num(spread, ".2f"))
        elif stats["n_bound"] >= 0.95 * stats["n_train"]:
            why = _("C = {C} is so small that every α sits at its bound C: f is nearly "
                    "flat").format(C=num(float(params["C"]), ".3g"))
        else:
            why = _("the kernel cannot separate the classes")
        return [_("{sv}: {why}, and the bound #SV / n says nothing").format(sv=sv, why=why)]
