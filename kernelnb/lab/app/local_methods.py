"""Local methods playground and density explorer (Vincent's thesis ch. 11 and 13;
the K-nearest-neighbour and Parzen-window lecture of a machine-learning course).

* :class:`LocalMethodsPlayground`: KNN, HKNN, CKNN, the Parzen classifier and the kernel centroid
  (Vincent's thesis §5.3.4) on 2-D data, with sliders K, lambda and h; click on the chart to choose a query point and see, for each class, its
  K neighbours, their local hull (affine for HKNN, convex for CKNN) and the projection on it.
* :class:`DensityExplorer`: Parzen against Manifold Parzen on the spiral and other 2-D toys, with
  sliders h, sigma, d and k; log-density contours, the local Gaussians as ellipses on a toggle,
  and the training and test ANLL.
"""
from __future__ import annotations

import html

import numpy as np
import ipywidgets as widgets
import plotly.graph_objects as go
from scipy.spatial import ConvexHull, QhullError

from ..viz._figure_widget import FigureWidget

from ...datasets import TOY_DATASETS, make_manifold_spiral, make_toy
from ...neighbors import (CKNNClassifier, HKNNClassifier, KernelCentroidClassifier,
                         KNeighborsClassifier, ManifoldParzen, ParzenClassifier, ParzenDensity)
from ..._special import logsumexp_rows
from ..viz import (SURFACE_TRACES, decision_surface, ellipse_outlines, grid_arrays, level_lines,
                  nice_levels, plane_bounds, surface_data)
from ..viz.surface import LEVELS_META
from ..i18n import N_, _
from ._base import MAIN_SLIDER_CLASS, Dashboard, Lesson, log_slider, num, speaks, styled
from ._toys import (BlankModel, add_toy_controls, click_problem, reset_noise_on_dataset_change,
                    toy_options)

__all__ = ["LocalMethodsPlayground", "DensityExplorer"]

N_TEST = 1000
CLASS_LINE = ("#1f77b4", "#d62728")
METHODS = [(N_("K nearest neighbours"), "knn"), (N_("HKNN (local hyperplane)"), "hknn"),
           (N_("CKNN (local convex hull)"), "cknn"), (N_("Parzen classifier"), "parzen"),
           (N_("kernel centroid"), "centroid")]
#: The methods with a width h (the others have K neighbours).
WIDTH_METHODS = ("parzen", "centroid")


class _Scored:
    """A fitted classifier seen through a signed score for the surface (positive: classes_[1])."""

    def __init__(self, model):
        self.model = model
        self.classes_ = model.classes_

    def decision_function(self, X):
        m = self.model
        if hasattr(m, "hull_distances") or hasattr(m, "centroid_distances"):
            return m.decision_function(X)
        return 2.0 * (m.predict_proba(X)[:, 1] - 0.5)


def _hull_outline(N):
    """Closed outline of the 2-D points N, counter-clockwise: their convex hull (Qhull, through
    ``scipy.spatial.ConvexHull``); a segment between the extreme points for two points or points
    on one line."""
    N = np.asarray(N, dtype=float)
    if len(N) >= 3:
        try:
            ring = N[ConvexHull(N).vertices]
            return np.append(ring[:, 0], ring[0, 0]), np.append(ring[:, 1], ring[0, 1])
        except QhullError:          # flat: every point on one line (or all equal)
            pass
    order = np.lexsort((N[:, 1], N[:, 0]))
    ends = N[[order[0], order[-1]]] if len(N) >= 3 else N
    return ends[:, 0], ends[:, 1]


class LocalMethodsPlayground(Dashboard):
    """KNN, HKNN, CKNN, Parzen and the kernel centroid on 2-D data; click to see local hulls.

    Parameters
    ----------
    grid : int, default=60
        Resolution of the decision surface.
    **params
        Initial control values: ``dataset``, ``noise``, ``n_samples``, ``seed``, ``method``
        ('knn', 'hknn', 'cknn', 'parzen', 'centroid'), ``n_neighbors`` (K), ``weight_decay``
        (lambda, HKNN), ``bandwidth`` (h: the Parzen window's width, and the Gaussian kernel's
        width sigma of the kernel centroid).

    Notes
    -----
    :meth:`query` (or a click) sets the query point, (0.5, 0.25) at first. :meth:`update`
    returns (and the readout shows) ``train_error``, ``test_error``, ``query``,
    ``query_class``, ``predict_ms`` and, for HKNN and CKNN, ``dist_0`` and ``dist_1``: the
    query's squared distances to each class's local hull; and, whatever the method, the test
    errors at this K of KNN (``knn_test_error``), HKNN at this lambda (``hknn_test_error``),
    HKNN without weight decay (``hknn0_test_error``, lambda = 1e-4) and CKNN
    (``cknn_test_error``). With the kernel centroid (Vincent's thesis §5.3.4: each class is the
    centroid of its points' images in the feature space of a Gaussian kernel of width h), also
    ``parzen_test_error`` (the Parzen classifier of the same h) and ``parzen_agreement``: the
    fraction of test points the two classify alike. The squared distance to a class centroid is
    a constant minus twice the class's Parzen density (§5.3.4), so they nearly always agree;
    a wide h makes the centroid the nearest class mean, a straight boundary.

    Examples
    --------
    >>> from kernelnb.lab.app import LocalMethodsPlayground
    >>> app = LocalMethodsPlayground(grid=20, n_samples=60)
    >>> stats = app.update(method="cknn", n_neighbors=4)
    >>> stats["query_class"], stats["dist_0"] < stats["dist_1"]
    (0, True)
    >>> app.update(method="knn", n_neighbors=5)["query_class"]
    0
    >>> bool(app.update(method="centroid", bandwidth=0.3)["parzen_agreement"] > 0.9)
    True
    >>> app.query(1e9, 0)["error"]
    'click ignored: (1e+09, 0) lies far outside the chart'
    """

    notebook = "local_methods"
    click_action = "query"
    click_label = N_("put the query point at (x₁, x₂)")
    title = N_("Local methods")
    purpose = N_("K nearest neighbours, local hyperplane (HKNN) and convex (CKNN) distances, "
                 "Parzen windows, kernel centroid: move K, λ and h; click on the chart to see a "
                 "point's neighbours and hulls.")
    STATS = [
        ("train_error", N_("training error"), ".1%"),
        ("test_error", (N_("test error ({n} new points)"), {"n": N_TEST}), ".1%"),
        ("query", N_("query point"), lambda q: _point(q)),
        ("query_class", N_("predicted class of the query"), "d"),
        ("dist_0", N_("squared distance to class 0's hull"), ".3g"),
        ("dist_1", N_("squared distance to class 1's hull"), ".3g"),
    ]
    #: Weight decay of "HKNN without weight decay" in the comparison (tiny, for a stable solve).
    LAMBDA_NONE = 1e-4
    LESSON_APP = {"grid": 5}
    LESSONS = (
        Lesson(claim=N_("Without weight decay HKNN takes every direction between its neighbours "
                        "for an invariance (in 2-D, 3 neighbours already span the plane), and "
                        "its test error rises, most at small K and on noisy data; a weight decay "
                        "λ repairs it: HKNN with λ never does worse."),
               source=N_("Vincent 2003, §11.3.1 and §11.3.3, Fig. 11.3"),
               holds=lambda s: s["hknn_test_error"] <= s["hknn0_test_error"] + 0.005,
               sweep={"n_neighbors": (3, 15), "weight_decay": (0.001, 10.0),
                      "noise": (0.0, 0.35)},
               seeds=(0, 1, 2)),
    )

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`): the
    #: lesson is about HKNN, not the default method.
    BOOK_FIGURE = {
        "control": "weight_decay",
        "values": [0.0001, 0.000316, 0.001, 0.00316, 0.01, 0.0316, 0.1, 0.316, 1.0, 3.16,
                   10.0, 31.6, 100.0],
        "app": {"method": "hknn"},
        "readout": ["train_error", "test_error"],
        "why": "The lesson is about HKNN's weight decay λ: the dashboard is set to HKNN, and λ "
               "goes from 0.0001, nearly none, to 100; the readout gives the training and test "
               "errors.",
    }

    def __init__(self, grid=60, **params):
        self.grid = grid
        self._data_key = None
        self._query = np.array([0.5, 0.25])
        self._query_clicked = False
        self._compare_cache = (None, None)
        super().__init__(**params)

    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=150, n_min=20, n_max=600)
        c["noise"].value = 0.2      # noisy enough for the methods' test errors to differ
        c["method"] = styled(widgets.Dropdown(options=[(_(label), v) for label, v in METHODS],
                                              value="cknn", description=_("method")))
        c["n_neighbors"] = styled(widgets.IntSlider(value=4, min=1, max=30, description="K"))
        c["n_neighbors"].add_class(MAIN_SLIDER_CLASS)
        c["weight_decay"] = log_slider("λ (HKNN)", 0.01, -4, 2, step=0.1,
                                       tooltip=_("weight decay of the local hyperplane solve"))
        c["bandwidth"] = log_slider(_("h (width)"), 0.2, -2, 0.5, step=0.05,
                                    tooltip=_("Parzen window width h; the width σ = h of the "
                                              "kernel centroid's Gaussian kernel"))
        X, y = TOY_DATASETS["moons"][0](n_samples=150, noise=0.2, random_state=0)
        self._bounds = plane_bounds(X, padding=0.15)
        fig = decision_surface(BlankModel(), X, y, grid=2, bounds=self._bounds, binary=True,
                               show_margins=False, show_support=False)
        for k in range(2):
            fig.add_scatter(x=[], y=[], mode="markers",
                            name=_("neighbours in class {k}").format(k=k),
                            marker=dict(size=13, color="rgba(0,0,0,0)",
                                        line=dict(width=2.5, color=CLASS_LINE[k])))
            fig.add_scatter(x=[], y=[], mode="lines", name=_("hull of class {k}").format(k=k),
                            fill="toself",
                            line=dict(width=1.5, color=CLASS_LINE[k]), opacity=0.35)
            fig.add_scatter(x=[], y=[], mode="lines+markers",
                            name=_("projection on class {k}").format(k=k),
                            line=dict(width=2, dash="dot", color=CLASS_LINE[k]),
                            marker=dict(size=6, color=CLASS_LINE[k]))
        fig.add_scatter(x=[], y=[], mode="markers", name=_("query point"),
                        marker=dict(symbol="star", size=16, color="#2ca02c", line=dict(width=1)))
        fig.update_layout(height=560, uirevision="keep", clickmode="event")
        self.fig = FigureWidget(fig)
        self.fig.data[0].on_click(self._on_click)
        self.figures = [self.fig]

    def _data(self, p):
        key = (p["dataset"], float(p["noise"]), int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            self._train = make_toy(key[0], key[2], noise=key[1], random_state=key[3])
            self._test = make_toy(key[0], N_TEST, noise=key[1], random_state=key[3] + 7919)
            self._bounds = plane_bounds(self._train[0], padding=0.15)
            self._data_key = key
        return self._train

    @speaks
    def query(self, x, y):
        """Choose the query point whose neighbours and hulls are drawn.

        A point that is not a pair of finite numbers inside the chart's area (widened by its own
        size on each side) is ignored with a message in the page (``{'error': ...}``)."""
        problem = click_problem(x, y, self._bounds)
        if problem is not None:
            msg = _("click ignored: {why}").format(why=problem)
            self.show_error(msg)
            return {"error": msg}
        self._query = np.array([float(x), float(y)])
        self._query_clicked = True
        return self.update()

    def clicks_state(self):
        """The query point chosen by a click, ``[[x, y]]`` (kept by the page), or None.

        Returns
        -------
        list or None
        """
        q = getattr(self, "_query", None)
        return [[float(q[0]), float(q[1])]] if q is not None and self._query_clicked else None

    def restore_clicks(self, state):
        """Choose again the query point of :meth:`clicks_state` (checked as a click is).

        Parameters
        ----------
        state : list
            ``[[x, y]]``.

        Returns
        -------
        int
            1 when the point was restored, else 0.
        """
        if state and isinstance(state[0], list) and len(state[0]) == 2 and \
                click_problem(state[0][0], state[0][1], self._bounds) is None:
            self.query(state[0][0], state[0][1])
            return 1
        return 0

    def _adjust(self, params, given):
        params = reset_noise_on_dataset_change(self, params, given)
        m = params["method"]
        self.controls["weight_decay"].disabled = m != "hknn"
        self.controls["bandwidth"].disabled = m not in WIDTH_METHODS
        self.controls["n_neighbors"].disabled = m in WIDTH_METHODS
        return params

    def _model(self, p):
        m, K = p["method"], int(p["n_neighbors"])
        if m == "knn":
            return KNeighborsClassifier(n_neighbors=K)
        if m == "hknn":
            return HKNNClassifier(n_neighbors=K, weight_decay=float(p["weight_decay"]))
        if m == "cknn":
            return CKNNClassifier(n_neighbors=K)
        if m == "parzen":
            return ParzenClassifier(sigma=float(p["bandwidth"]))
        if m == "centroid":
            return KernelCentroidClassifier(sigma=float(p["bandwidth"]))
        raise ValueError(f"method must be one of {[v for _, v in METHODS]}, got {m!r}")

    def _compute(self, p):
        import time

        X, y = self._data(p)
        # K per class cannot exceed the smallest class (few points, large K): use that many
        # and say so (regime); the K slider keeps the student's value.
        smallest = int(np.min(np.unique(y, return_counts=True)[1]))
        p = {**p, "n_neighbors": min(int(p["n_neighbors"]), smallest)}
        model = self._model(p).fit(X, y)
        t0 = time.perf_counter()
        surf = surface_data(_Scored(model), X, y, grid=self.grid, bounds=self._bounds, binary=True)
        dt = 1e3 * (time.perf_counter() - t0)
        Xt, yt = self._test
        q = self._query
        compare = self._compare(p, X, y)
        test_error = compare.get(f"{p['method']}_test_error")   # the same model: not twice
        if test_error is None:
            test_error = float(np.mean(model.predict(Xt) != yt))
        stats = dict(train_error=float(np.mean(model.predict(X) != y)), test_error=test_error,
                     query=tuple(q), query_class=int(model.predict(q[None, :])[0]),
                     predict_ms=dt)
        stats.update(compare)
        if p["method"] == "centroid":
            # Vincent §5.3.4: d(x, class) = constant - 2 p_class(x) with a Gaussian kernel;
            # the Parzen classifier of the same width, on the same test points
            parzen = ParzenClassifier(sigma=float(p["bandwidth"])).fit(X, y).predict(Xt)
            stats.update(parzen_test_error=float(np.mean(parzen != yt)),
                         parzen_agreement=float(np.mean(parzen == model.predict(Xt))))
        local = []
        if hasattr(model, "local_hulls"):
            local = model.local_hulls(q)
            D = model.hull_distances(q[None, :])[0]
            stats.update(dist_0=float(D[0]), dist_1=float(D[1]))
        elif p["method"] == "knn":
            idx = model.kneighbors(q[None, :])[1]
            for c in model.classes_:
                nb = X[idx[0]][y[idx[0]] == c]
                local.append({"class": c, "neighbors": nb, "projection": None})
        return dict(surf=surf, local=local, method=p["method"], stats=stats, p=p)

    def _compare(self, p, X, y):
        """Test errors at this K of KNN, HKNN (this λ and none) and CKNN (cached)."""
        K, lam = int(p["n_neighbors"]), float(p["weight_decay"])
        key = (self._data_key, K, lam)
        if self._compare_cache[0] != key:
            Xt, yt = self._test
            models = {"knn": KNeighborsClassifier(n_neighbors=K),
                      "hknn": HKNNClassifier(n_neighbors=K, weight_decay=lam),
                      "hknn0": HKNNClassifier(n_neighbors=K, weight_decay=self.LAMBDA_NONE),
                      "cknn": CKNNClassifier(n_neighbors=K)}
            self._compare_cache = (key, {f"{k}_test_error": float(np.mean(
                m.fit(X, y).predict(Xt) != yt)) for k, m in models.items()})
        return self._compare_cache[1]

    def regime(self, params, stats):
        """A K so large that the neighbourhood is no longer local."""
        y = self._train[1]
        smallest = int(np.min(np.unique(y, return_counts=True)[1]))
        K = int(params["n_neighbors"])
        if K > smallest and params["method"] not in WIDTH_METHODS:
            return [_("K = {k} is more than the smallest class ({n} points): the methods use K = "
                      "{n}, every point of that class, so nothing is local any more").format(
                          k=K, n=smallest)]
        if params["method"] not in WIDTH_METHODS and 4 * K > smallest:
            return [_("K = {k} is more than a quarter of the smallest class ({n} points): the "
                      "neighbourhood is no longer local (the thesis's K are a small fraction of a "
                      "class), so the hulls say little about the point's surroundings").format(
                          k=K, n=smallest)]
        return []

    def _render(self, r):
        fig = self.fig
        for k, uid in enumerate(SURFACE_TRACES):
            fig.data[k].update(r["surf"][uid])
        base = len(SURFACE_TRACES)
        for k in range(2):
            h = r["local"][k] if k < len(r["local"]) else None
            nb_t, hull_t, proj_t = fig.data[base + 3 * k: base + 3 * k + 3]
            if h is None or len(h["neighbors"]) == 0:
                nb_t.update(x=[], y=[])
                hull_t.update(x=[], y=[])
                proj_t.update(x=[], y=[])
                continue
            N = np.asarray(h["neighbors"])
            nb_t.update(x=N[:, 0], y=N[:, 1])
            if r["method"] in ("hknn", "cknn"):
                hx, hy = _hull_outline(N)
                hull_t.update(x=hx, y=hy, fill="toself" if r["method"] == "cknn" else None)
                P = h["projection"]
                proj_t.update(x=[self._query[0], P[0]], y=[self._query[1], P[1]])
            else:
                hull_t.update(x=[], y=[])
                proj_t.update(x=[], y=[])
        fig.data[base + 6].update(x=[self._query[0]], y=[self._query[1]])
        xmin, xmax, ymin, ymax = r["surf"]["_bounds"]
        fig.layout.xaxis.range = [xmin, xmax]
        fig.layout.yaxis.range = [ymin, ymax]
        p = r["p"]
        detail = {"knn": f"K = {p['n_neighbors']}",
                  "hknn": f"K = {p['n_neighbors']}, λ = {num(p['weight_decay'], '.3g')}",
                  "cknn": f"K = {p['n_neighbors']}",
                  "parzen": f"h = {num(p['bandwidth'], '.3g')}",
                  "centroid": _("Gaussian kernel, σ = h = {h}").format(
                      h=num(p["bandwidth"], ".3g"))}[r["method"]]
        fig.layout.title.text = f"{_(dict((v, k) for k, v in METHODS)[r['method']])}, {detail}"
        st = dict(r["stats"])
        K, lam = p["n_neighbors"], p["weight_decay"]
        rows = [(_("KNN, K = {k}").format(k=K), st["knn_test_error"]),
                (f"HKNN, λ = {num(lam, '.3g')}", st["hknn_test_error"]),
                (_("HKNN without weight decay (λ = {lam})").format(
                    lam=num(self.LAMBDA_NONE, "g")), st["hknn0_test_error"]),
                (f"CKNN, K = {K}", st["cknn_test_error"])]
        head = html.escape(_("test error at this K"))
        st["_html"] = (f"<table><tr><th>{head}</th><th></th></tr>" + "".join(
            f"<tr><td>{html.escape(k)}</td><td class='num'>{num(v, '.1%')}</td></tr>"
            for k, v in rows) + "</table>")
        if r["method"] == "centroid":
            h = num(p["bandwidth"], ".3g")
            texts = [html.escape(t) for t in (
                _("at this h"), _("kernel centroid, h = {h}").format(h=h),
                _("Parzen classifier, h = {h}").format(h=h), _("test points both classify alike"),
                _("With a Gaussian kernel the distance to a class centroid is a constant − 2 × "
                  "the class's Parzen density, so the centroid decides like the Parzen "
                  "classifier; a wide h makes it the nearest class mean, a straight line"),
                _("Vincent 2003, §5.3.4"))]
            st["_html"] += (
                f"<table><tr><th>{texts[0]}</th><th></th></tr>"
                f"<tr><td>{texts[1]}</td>"
                f"<td class='num'>{num(st['test_error'], '.1%')}</td></tr>"
                f"<tr><td>{texts[2]}</td>"
                f"<td class='num'>{num(st['parzen_test_error'], '.1%')}</td></tr>"
                f"<tr><td>{texts[3]}</td>"
                f"<td class='num'>{num(st['parzen_agreement'], '.1%')}</td></tr></table>"
                f"<div class='kernelnb-lesson'>{texts[4]} <small>({texts[5]})</small>.</div>")
        st["_details"] = _("prediction on the grid: {ms} ms").format(
            ms=num(st["predict_ms"], ".0f"))
        return st


def _point(q):
    """A point's coordinates as the language in effect writes them: ``(0.50, 0.25)``, and
    ``(0,50 ; 0,25)`` where the decimal mark is a comma."""
    x, y = num(q[0], ".2f"), num(q[1], ".2f")
    return f"({x}, {y})" if num(0.5) == "0.5" else f"({x}\u202f; {y})"


def _signed(v):
    """An ANLL to 3 decimals with a true minus sign."""
    return num(v, ".3f").replace("-", "−")


def model_spacing(X):
    """Distance from each point to its nearest neighbour."""
    from scipy.spatial import cKDTree
    d = cKDTree(X).query(X, k=2)[0]
    return d[:, 1]


class DensityExplorer(Dashboard):
    """Parzen against Manifold Parzen density estimation on 2-D data.

    Parameters
    ----------
    grid : int, default=90
        Resolution of the log-density heat map and its level lines.
    **params
        Initial control values: ``dataset`` ('spiral' or a 2-D toy), ``n_samples``, ``seed``,
        ``model`` ('parzen', 'manifold'), ``bandwidth`` (h, Parzen), ``sigma`` (the Manifold
        Parzen's isotropic noise), ``n_components`` (d), ``n_neighbors`` (k), ``ellipses``
        (draw the local Gaussians).

    Notes
    -----
    :meth:`update` returns (and the readout shows) ``train_anll`` and ``test_anll`` (average
    negative log-likelihood of the training points and of 1000 new points) and ``n_train``;
    whatever the model shown, ``manifold_anll`` (the Manifold Parzen's test ANLL at this sigma,
    d, k) and ``parzen_best_anll`` with ``parzen_best_h``: the test ANLL of the Parzen window
    whose width h is chosen on a validation sample of 300 points (Table 13.1's protocol).

    Examples
    --------
    >>> from kernelnb.lab.app import DensityExplorer
    >>> app = DensityExplorer(grid=20, n_samples=100)
    >>> stats = app.update(model="parzen", bandwidth=0.05)
    >>> stats["n_train"], stats["train_anll"] < stats["test_anll"]
    (100, True)
    >>> stats = app.update(model="manifold", n_samples=300, sigma=0.01)
    >>> stats["manifold_anll"] < stats["parzen_best_anll"]   # Table 13.1
    True
    >>> app.update(dataset="circles")["error"]
    "ValueError: dataset must be 'spiral' or one of [...], got 'circles'"
    """

    notebook = "density_explorer"
    title = N_("Density explorer")
    purpose = N_("Parzen windows against Manifold Parzen windows: move h, σ, d and k and watch "
                 "the density contours, the local Gaussians and the test log-likelihood.")
    STATS = [
        ("train_anll", N_("training ANLL (lower: likelier)"), _signed),
        ("test_anll", (N_("test ANLL ({n} new points)"), {"n": N_TEST}), _signed),
        ("manifold_anll", N_("Manifold Parzen at this σ, d, k"), _signed),
        ("parzen_best_anll", N_("Parzen, h chosen on validation"), _signed),
    ]
    #: Widths h the validation chooses the Parzen window from (log-spaced).
    PARZEN_WIDTHS = np.logspace(-2.5, -0.5, 17)
    #: The most log-density levels drawn as lines over the heat map (:func:`nice_levels`): the
    #: heat map carries the density's colours, the lines mark round values of log p. Each line
    #: is sent with its vertices (a contour trace's were traced in the browser): 15 levels made
    #: the book's lesson figure (9 frames) 721 kB, over its page's budget; 10 make it 615 kB.
    N_LEVELS = 10
    #: Noise of the thesis's spiral (x and y standard deviation, Table 13.1).
    SPIRAL_NOISE = 0.01
    LESSON_APP = {"grid": 5}
    LESSONS = (
        Lesson(claim=N_("Tuned near the spiral's noise (σ ≈ 0.01, k ≈ 11), Manifold Parzen "
                        "windows give new points a higher likelihood (lower test ANLL) than the "
                        "best ordinary Parzen window: their Gaussians lie along the curve."),
               source=N_("Vincent 2003, ch. 13, Table 13.1 (−1.466 against −1.183)"),
               holds=lambda s: s["manifold_anll"] < s["parzen_best_anll"],
               sweep={"sigma": (0.005, 0.016, 0.05), "n_neighbors": (5, 20, 40)},
               seeds=(0, 1, 2)),
    )

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "sigma",
        "values": [0.001, 0.002, 0.004, 0.007, 0.01, 0.016, 0.03, 0.05, 0.1],
        "readout": ["test_anll", "parzen_best_anll", "train_anll"],
        "why": "The lesson is about Manifold Parzen tuned near the spiral's noise: σ, the "
               "spread each local Gaussian keeps across the curve, goes from 0.001 to 0.1 "
               "through the thesis's 0.01, and the readout puts the test ANLL beside that of "
               "the best ordinary Parzen window.",
    }

    def __init__(self, grid=90, **params):
        self.grid = grid
        self._data_key = None
        self._parzen_best = None
        self._manifold_cache = (None, None)
        self._manifold_model = ManifoldParzen()
        super().__init__(**params)

    def _build(self):
        c = self.controls
        toys, tooltip = toy_options()
        c["dataset"] = styled(widgets.Dropdown(options=[(_("spiral (thesis ch. 13)"), "spiral"),
                                                        *toys],
                                               value="spiral", description=_("data set")),
                              tooltip=_("spiral: the Manifold Parzen spiral of Vincent's thesis, "
                                        "ch. 13") + "; " + tooltip)
        c["n_samples"] = styled(widgets.IntSlider(value=300, min=30, max=1000, step=10,
                                                  description=_("n points")))
        c["seed"] = styled(widgets.BoundedIntText(value=0, min=0, max=10**6,
                                                  description=_("sample seed")))
        c["model"] = styled(widgets.ToggleButtons(options=[("Parzen", "parzen"),
                                                           ("Manifold", "manifold")],
                                                  value="manifold", description=_("model")))
        c["model"].style.button_width = "90px"
        c["bandwidth"] = log_slider("h (Parzen)", 0.013, -3, 0, step=0.05,
                                    tooltip=_("Parzen window width h"))
        c["sigma"] = log_slider(_("σ (noise)"), 0.007, -3.5, -0.5, step=0.05, main=True,
                                tooltip=_("Manifold Parzen: isotropic noise σ"))
        c["n_components"] = styled(widgets.IntSlider(value=1, min=0, max=2, description="d"))
        c["n_neighbors"] = styled(widgets.IntSlider(value=11, min=1, max=40, description="k"))
        c["ellipses"] = styled(widgets.Checkbox(value=True,
                                                description=_("local Gaussians as ellipses"),
                                                indent=False))
        fig = go.Figure()
        # the log-density as a heat map and its levels as one line trace (level_lines): a
        # filled contour trace is traced again by plotly.js at every drawing, in the browser
        # (15 filled levels took 120-160 ms of Chromium's main thread per step of this page)
        fig.add_heatmap(x=[0, 1], y=[0, 1], z=[[0, 0], [0, 0]], colorscale="Viridis",
                        zsmooth="fast", colorbar=dict(title="log p(x)"), name=_("log density"))
        fig.add_scatter(x=[], y=[], mode="lines", name=_("log-density levels"),
                        line=dict(width=0.7, color="rgba(255,255,255,0.55)"), hoverinfo="skip",
                        showlegend=False, meta=LEVELS_META)
        fig.add_scatter(x=[], y=[], mode="markers", name=_("training points"),
                        marker=dict(size=4, color="white", line=dict(width=0.5, color="black")))
        fig.add_scatter(x=[], y=[], mode="lines", name=_("local Gaussians (1 σ)"),
                        line=dict(width=1, color="firebrick"))
        # equal scales on both axes: the plot area shrinks to the data's shape (constrain
        # "domain") instead of the x range growing past the density
        fig.update_layout(height=560, uirevision="keep", xaxis_title="x₁", yaxis_title="x₂",
                          xaxis=dict(constrain="domain"),
                          yaxis=dict(scaleanchor="x", scaleratio=1, constrain="domain"),
                          legend=dict(orientation="h", y=-0.15),
                          margin=dict(l=80, r=120, t=100, b=105))
        self.fig = FigureWidget(fig)
        self.figures = [self.fig]

    def _adjust(self, params, given):
        manifold = params["model"] == "manifold"
        for name in ("sigma", "n_components", "n_neighbors", "ellipses"):
            self.controls[name].disabled = not manifold
        self.controls["bandwidth"].disabled = manifold
        return params

    def _data(self, p):
        key = (p["dataset"], int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            if key[0] == "spiral":
                self._train = make_manifold_spiral(n_samples=key[1], random_state=key[2])
                self._valid = make_manifold_spiral(n_samples=300, random_state=key[2] + 104729)
                self._test = make_manifold_spiral(n_samples=N_TEST, random_state=key[2] + 7919)
            elif key[0] in TOY_DATASETS:
                make = TOY_DATASETS[key[0]][0]
                self._train = make(n_samples=key[1], random_state=key[2])[0]
                self._valid = make(n_samples=300, random_state=key[2] + 104729)[0]
                self._test = make(n_samples=N_TEST, random_state=key[2] + 7919)[0]
            else:
                raise ValueError(_("dataset must be 'spiral' or one of {names}, got "
                                   "{value}").format(names=sorted(TOY_DATASETS),
                                                     value=repr(key[0])))
            self._parzen_best = None
            self._data_key = key
        return self._train

    def _best_parzen(self, X):
        """(h, test ANLL) of the Parzen window whose width the validation sample chooses."""
        if self._parzen_best is None:
            # validation ANLL of every width from one distance matrix (the Parzen estimator's
            # formula, -log mean N(v; x_i, h^2 I)); the chosen width is refitted below
            from scipy.spatial.distance import cdist
            D2 = cdist(self._valid, X, "sqeuclidean")
            dim = X.shape[1]
            scores = [-np.mean(logsumexp_rows(-D2 / (2 * h * h))) + np.log(len(X))
                      + 0.5 * dim * np.log(2 * np.pi * h * h) for h in self.PARZEN_WIDTHS]
            h = float(self.PARZEN_WIDTHS[int(np.argmin(scores))])
            self._parzen_best = (h, ParzenDensity(sigma=h).fit(X).anll(self._test))
        return self._parzen_best

    def _manifold(self, X, p):
        """(Manifold Parzen fitted on X at this d, k, sigma, its test ANLL); kept while the data
        and these three stay, so that a step of the Parzen width h refits nothing else."""
        key = (self._data_key, int(p["n_components"]), int(p["n_neighbors"]), float(p["sigma"]))
        if self._manifold_cache[0] != key:
            # one estimator refitted: a step of sigma reuses its neighbourhoods
            manifold = self._manifold_model.set_params(n_components=key[1], n_neighbors=key[2],
                                                       sigma=key[3])
            manifold.fit(X)
            self._manifold_cache = (key, (manifold, manifold.anll(self._test)))
        return self._manifold_cache[1]

    def _compute(self, p):
        X = self._data(p)
        manifold, manifold_test = self._manifold(X, p)
        if p["model"] == "parzen":
            model = ParzenDensity(sigma=float(p["bandwidth"])).fit(X)
        else:
            model = manifold
        h_best, parzen_best = self._best_parzen(X)
        xmin, xmax, ymin, ymax = plane_bounds(X, padding=0.15)
        gx, gy = np.linspace(xmin, xmax, self.grid), np.linspace(ymin, ymax, self.grid)
        A, B = np.meshgrid(gx, gy)
        Z = model.score_samples(np.column_stack([A.ravel(), B.ravel()])).reshape(A.shape)
        floor = np.percentile(Z, 60) - 8.0          # keep the colours on the data, not the void
        ell = None
        if p["model"] == "manifold" and p["ellipses"]:
            ell = self._ellipses(model, X)
        test = manifold_test if model is manifold else model.anll(self._test)
        return dict(X=X, gx=gx, gy=gy, Z=np.maximum(Z, floor), ell=ell, p=p, stats=dict(
            train_anll=model.anll(X), test_anll=test, n_train=len(X),
            manifold_anll=manifold_test,
            parzen_best_anll=parzen_best, parzen_best_h=h_best,
            spacing=float(np.median(model_spacing(X)))))

    @staticmethod
    def _ellipses(model, X, every=None):
        """One-sigma outlines of the local Gaussians (every few points), None-separated."""
        every = every or max(1, len(X) // 60)
        rows = np.arange(0, len(X), every)
        s2 = float(model.sigma) ** 2
        V = model.components_[rows]                       # (m, d, 2), d may be 0
        # the d leading directions carry their variances, sigma^2 the rest
        covs = s2 * np.eye(2) + np.einsum("mkj,mk,mkl->mjl", V, model.variances_[rows] - s2, V)
        return ellipse_outlines(X[rows], covs)

    def _render(self, r):
        fig = self.fig
        # the heat map's grid in float32: binary buffers, not nested JSON lists
        x, y, z = grid_arrays(r["gx"], r["gy"], r["Z"])
        fig.data[0].update(x=x, y=y, z=z)
        # (a grid without a finite value: empty, and so no level and no line)
        lx, ly = level_lines(x, y, z, nice_levels(r["Z"], self.N_LEVELS))
        fig.data[1].update(x=lx, y=ly)
        fig.data[2].update(x=r["X"][:, 0], y=r["X"][:, 1])
        if r["ell"] is None:
            fig.data[3].update(x=[], y=[])
        else:
            # float32 with NaN between the outlines (a gap, as None): binary, not JSON lists
            fig.data[3].update(x=np.array(r["ell"][0], dtype=np.float32),
                               y=np.array(r["ell"][1], dtype=np.float32))
        p = r["p"]
        what = (f"Parzen, h = {num(p['bandwidth'], '.3g')}" if p["model"] == "parzen" else
                f"Manifold Parzen, d = {p['n_components']}, k = {p['n_neighbors']}, "
                f"σ = {num(p['sigma'], '.3g')}")
        fig.layout.title.text = _("{what}: test ANLL {anll}").format(
            what=what, anll=num(r["stats"]["test_anll"], ".3f"))
        fig.layout.xaxis.range = [float(r["gx"][0]), float(r["gx"][-1])]
        fig.layout.yaxis.range = [float(r["gy"][0]), float(r["gy"][-1])]
        st = dict(r["stats"])
        st["_details"] = _("{n} training points; the Parzen window chosen on 300 validation "
                           "points has h = {h}").format(n=st["n_train"],
                                                        h=num(st["parzen_best_h"], ".3g"))
        return st

    def regime(self, params, stats):
        """Settings away from the tuned neighbourhood of Table 13.1, or a window that isolates
        the points."""
        notes = []
        sigma, k, n = float(params["sigma"]), int(params["n_neighbors"]), int(params["n_samples"])
        if params["model"] == "parzen" and float(params["bandwidth"]) < 0.5 * stats["spacing"]:
            notes.append(_("h = {h} is below half the typical distance between neighbouring "
                           "points ({spacing}): the density is a spike on every training "
                           "point").format(h=num(params["bandwidth"], ".3g"),
                                           spacing=num(stats["spacing"], ".2g")))
        if params["dataset"] != "spiral":
            notes.append(_("The lesson is about the thesis's spiral (a curve with noise 0.01); "
                           "on this data set σ and k are not tuned for Manifold Parzen."))
            return notes
        if int(params["n_components"]) == 0:
            notes.append(_("With d = 0 Manifold Parzen is an ordinary Parzen window of width "
                           "σ."))
        if not 0.5 * self.SPIRAL_NOISE <= sigma <= 1.6 * self.SPIRAL_NOISE:
            thin = sigma < self.SPIRAL_NOISE
            notes.append((_("σ = {sigma} is far from the spiral's noise ({noise}): Table 13.1 "
                            "tunes σ on a validation set; with Gaussians this thin the best "
                            "Parzen window can do better") if thin else
                          _("σ = {sigma} is far from the spiral's noise ({noise}): Table 13.1 "
                            "tunes σ on a validation set; with Gaussians this thick the best "
                            "Parzen window can do better")).format(
                              sigma=num(sigma, ".3g"), noise=num(self.SPIRAL_NOISE)))
        if k < 5:
            notes.append(_("k = {k} neighbours are too few to find the direction of the "
                           "spiral").format(k=k))
        elif k > 20:
            notes.append(_("k = {k} neighbours reach along the bends of the spiral: the local "
                           "direction they find is blurred").format(k=k))
        if n < 200:
            notes.append(_("{n} points sample the spiral too sparsely for local directions "
                           "(Table 13.1 uses 300)").format(n=n))
        return notes
