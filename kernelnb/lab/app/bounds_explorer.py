"""Bounds explorer: the generalisation-error estimates of an SVM against log sigma or log C.

Data set (the 2-D toys or a bundled UCI set), margin (L1 or L2 soft margin), C and sigma on log
sliders. The main chart draws every estimate of :mod:`kernelnb.model_selection` (span, smoothed
span, radius-margin with the sphere or the variance, Jaakkola-Haussler, Opper-Winther, xi-alpha,
Wahba's approximate bound (thesis section 3.1: every point Jaakkola-Haussler counts adds at least
1 to it, so it never lies below that count), SV fraction, training error; the exact leave-one-out
error on request) and the true test error over 15 values around the current one
(:func:`kernelnb.model_selection.bounds_table`, each fit warm-started from the previous), with the
current value marked; in a page the curves grow value by value as the SVMs are fitted, and the
exact leave-one-out curve is filled value by value while the rest is on show. On the toys a
second chart shows the data, the boundary and each support vector's span S_p^2 (colour), crossed
where the span rule predicts a leave-one-out error. (Chapelle's thesis ch. 3-4, Figs 3.4/3.5.)
"""
from __future__ import annotations

import html
import time

import numpy as np
import ipywidgets as widgets
import plotly.graph_objects as go

from ..viz._figure_widget import FigureWidget

from ...datasets import TOY_DATASETS, UCI_DATASETS, make_toy
from ...model_selection import estimate_all
from ...model_selection._estimates import _loo_steps, _Problem, _span_errors
from ...model_selection._tables import _bounds_table_steps
from ...svm import SVC
from ..viz import grid_arrays, level_lines, plane_bounds
from ..i18n import N_, _, ngettext
from ._base import Dashboard, Lesson, log_slider, num, styled
from ._scheduler import throttled
from ._toys import UCI_DESCRIPTIONS, add_toy_controls, reset_noise_on_dataset_change, toy_name

__all__ = ["BoundsExplorer", "CURVES", "UCI_SETS", "memorising"]

#: Curves of the main chart: (column of the table, label, colour, dash). The colours are the
#: series palette (:data:`kernelnb.lab.viz._style.SERIES_COLORS`, told apart under colour-vision
#: deficiencies); a colour used twice has another line style.
CURVES = [
    ("test_error", N_("test error"), "#000000", "solid"),
    ("loo", N_("leave-one-out (exact)"), "#000000", "dash"),
    ("span", N_("span"), "#D55E00", "solid"),
    ("span_regularized", N_("span, smoothed (η = 0.1)"), "#D55E00", "dash"),
    ("radius_margin", N_("R²‖w‖²/n (sphere)"), "#0072B2", "solid"),
    ("radius_margin_variance", N_("R²‖w‖²/n (variance)"), "#0072B2", "dash"),
    ("jaakkola_haussler", "Jaakkola-Haussler", "#009E73", "solid"),
    ("opper_winther", "Opper-Winther", "#CC79A7", "solid"),
    ("xi_alpha", N_("ξα (Joachims)"), "#a00000", "solid"),
    ("wahba", "Wahba", "#009E73", "dash"),
    ("sv_fraction", N_("#SV / n"), "#CC79A7", "dot"),
    ("training_error", N_("training error"), "#7f7f7f", "dot"),
]
#: The curves drawn at first (the others are one click on the legend away; the exact
#: leave-one-out is drawn when it is computed).
SHOWN = ("test_error", "loo", "span", "radius_margin", "jaakkola_haussler", "xi_alpha",
         "sv_fraction")
#: The estimates whose distance to the test error along the chart the readout gives.
GAPS = ("span", "radius_margin", "jaakkola_haussler", "xi_alpha", "wahba")
#: Bundled UCI sets offered (two classes), standardised on the training part.
UCI_SETS = ("breast_cancer", "sonar")
#: Points of the grid and its half-width in decades around the current value.
N_GRID = 15
HALF_DECADES = 1.4
#: Test sample size of the toys.
N_TEST = 1000
#: Test points kept aside at least, for the UCI sets.
MIN_UCI_TEST = 50


def memorising(table):
    """Rows of a bounds table where the SVM memorises its sample.

    Those are the rows of a :func:`~kernelnb.model_selection.bounds_table` with every training
    point a support vector and none misclassified (a width far below the spacing of the points,
    or a hard margin through noise). There leave-one-out, and the span with it, errs on nearly
    every point whatever the test error is.

    Parameters
    ----------
    table : dict
        The table, with its ``sv_fraction`` and ``training_error`` columns.

    Returns
    -------
    ndarray of bool
        One entry per row.
    """
    return (np.asarray(table["sv_fraction"]) >= 1.0) & (np.asarray(table["training_error"]) == 0)


def _ticks_125(lo, hi):
    """Ticks 1, 2, 5 times the powers of ten between ``lo`` and ``hi`` (a log axis read as
    0.1, 0.2, 0.5, 1, ...)."""
    out = [m * 10.0 ** e for e in range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1)
           for m in (1, 2, 5)]
    return [float(f"{t:.3g}") for t in out if lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9)]


class BoundsExplorer(Dashboard):
    """Error estimates of an SVM along sigma or C, against the test error.

    Parameters
    ----------
    grid : int, default=60
        Resolution of the decision boundary of the 2-D chart.
    **params
        Initial control values (see :attr:`controls`): ``dataset`` (a toy or ``'breast_cancer'``,
        ``'sonar'``), ``noise``, ``n_samples``, ``seed``, ``margin`` ('l1', 'l2'), ``C``,
        ``sigma``, ``axis`` ('sigma' or 'C': the parameter of the main chart's x axis), ``loo``.

    Notes
    -----
    :meth:`update` returns (and the readout shows) the estimates of the current model
    (``span``, ``radius_margin``, ...), ``test_error``, ``n_support``, ``n_train``, ``n_fits``
    (SVMs trained for the chart) and ``table_ms``; ``table`` is the whole
    :func:`~kernelnb.model_selection.bounds_table`; ``gap_<estimate>`` is the mean distance
    between an estimate and the test error along the chart (``span``, ``radius_margin``,
    ``jaakkola_haussler``, ``xi_alpha``, ``wahba``), leaving out the values of the axis where
    the SVM memorises its sample (:func:`memorising`, shaded on the chart).

    The lesson (:attr:`LESSONS`): the span estimate follows the test error along σ and C, far
    closer than the radius-margin bound or ξα (thesis section 3.4, Figs. 3.4-3.5). Wahba's
    approximate bound (``wahba``, thesis section 3.1; one click on the legend) is never below
    the Jaakkola-Haussler count: every point that count makes an error adds at least 1 to it.
    :meth:`regime` notes a setting where the SVM memorises its sample.

    Examples
    --------
    >>> from kernelnb.lab.app import BoundsExplorer
    >>> app = BoundsExplorer(grid=20, n_samples=60)
    >>> stats = app.update(axis="C")
    >>> stats["n_train"], stats["n_fits"]
    (60, 15)
    >>> bool(stats["gap_span"] < stats["gap_radius_margin"])
    True
    >>> app.update(axis="gamma")["error"]
    "ValueError: axis must be 'sigma' or 'C', got 'gamma'"
    """

    notebook = "bounds_explorer"
    title = N_("Bounds explorer")
    purpose = N_("Leave-one-out estimates and bounds of an SVM (span, radius-margin, ...) "
                 "against log σ or log C, compared with the test error.")
    STATS = [
        ("test_error", N_("test error"), ".1%"),
        ("loo", N_("leave-one-out (exact)"), ".1%"),
        ("span", N_("span estimate"), ".1%"),
        ("radius_margin", N_("R²‖w‖²/n (sphere, ≤ 1)"), ".1%"),
        ("gap_span", N_("span's mean distance to the test error along the chart"), ".1%"),
        ("gap_radius_margin", N_("R²‖w‖²/n's mean distance"), ".1%"),
        ("n_support", N_("support vectors"), "d"),
    ]
    #: Rows folded in the readout's details.
    DETAILS = [
        ("span_regularized", N_("smoothed span (η = 0.1)"), ".1%"),
        ("radius_margin_variance", N_("R²‖w‖²/n (variance, ≤ 1)"), ".1%"),
        ("jaakkola_haussler", "Jaakkola-Haussler", ".1%"),
        ("opper_winther", "Opper-Winther", ".1%"),
        ("xi_alpha", "ξα", ".1%"),
        ("wahba", N_("Wahba (≥ Jaakkola-Haussler)"), ".1%"),
        ("sv_fraction", N_("#SV / n"), ".1%"),
        ("training_error", N_("training error"), ".1%"),
        ("gap_jaakkola_haussler", N_("Jaakkola-Haussler's mean distance to the test error"),
         ".1%"),
        ("gap_xi_alpha", N_("ξα's mean distance to the test error"), ".1%"),
        ("gap_wahba", N_("Wahba's mean distance to the test error"), ".1%"),
        ("n_train", N_("training points"), "d"),
        ("n_fits", N_("SVMs trained for the chart"), "d"),
        ("table_ms", N_("chart computed in (ms)"), ".0f"),
    ]
    LESSON_APP = {"grid": 10, "n_samples": 50}
    LESSONS = (Lesson(
        claim=N_("The span estimate follows the test error along σ and C, far closer than the "
                 "radius-margin bound R²‖w‖²/n or ξα, which stay well above it."),
        source=N_("Chapelle 2002, thesis §3.4, Figs. 3.4–3.5"),
        # the mean distance along the chart: the span's within 10 points of the test error,
        # at most half the radius-margin bound's and below ξα's
        holds=lambda s: (s["gap_span"] <= 0.1 and s["gap_span"] <= s["gap_radius_margin"] / 2
                         and s["gap_span"] < s["gap_xi_alpha"]),
        sweep={"sigma": (0.05, 0.5, 5.0), "C": (0.03, 1.0, 300.0), "margin": ("l1", "l2"),
               "axis": ("sigma", "C")},
        seeds=(0, 1, 2)),)

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "C",
        "values": [0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0],
        "readout": ["gap_span", "gap_radius_margin", "n_support"],
        "why": "The chart runs along σ already; the lesson says that the span estimate "
               "follows the test error along σ and C, so the slider moves C, and the readout "
               "gives the mean distance of the span estimate and of R²‖w‖²/n to the test error "
               "along the chart.",
    }

    def __init__(self, grid=60, **params):
        self.grid = grid
        self._data_key = None
        self._table_cache = (None, None)
        super().__init__(**params)

    def _build(self):
        c = self.controls
        add_toy_controls(c, n_value=200, n_min=20, n_max=400)
        c["dataset"].options = list(c["dataset"].options) + [
            (_("{name} — UCI, {desc}").format(name=n, desc=_(UCI_DESCRIPTIONS[n]).split(":")[0]),
             n) for n in UCI_SETS]
        c["dataset"].value = "moons"          # new options reset the value to the first one
        c["margin"] = styled(widgets.ToggleButtons(
            options=[("L1 (C-SVM)", "l1"), ("L2 (K + I/C)", "l2")], value="l1",
            description=_("margin")))
        c["margin"].style.button_width = "98px"
        c["C"] = log_slider("C", 1.0, -2, 3, step=0.1,
                            tooltip=_("soft-margin penalty C (log scale)"))
        c["sigma"] = log_slider(_("σ (RBF)"), 0.5, -1.5, 1.5, step=0.05, main=True,
                                tooltip=_("RBF width σ: k = exp(−‖x−y‖²/2σ²)"))
        c["axis"] = styled(widgets.ToggleButtons(options=[("log σ", "sigma"), ("log C", "C")],
                                                 value="sigma", description=_("x axis")))
        c["axis"].style.button_width = "70px"
        c["loo"] = styled(widgets.Checkbox(value=False, indent=False,
                                           description=_("exact leave-one-out (slower)")))

        main = go.Figure()
        for key, label, color, dash in CURVES:
            main.add_scatter(x=[1.0], y=[0.0], mode="lines+markers", name=_(label), uid=key,
                             line=dict(color=color, dash=dash,
                                       width=3 if key == "test_error" else 2),
                             marker=dict(size=5),
                             visible=(False if key == "loo" else True if key in SHOWN
                                      else "legendonly"),
                             hovertemplate="%{x:.3g}: %{y:.1%}<extra>%{fullData.name}</extra>")
        main.update_layout(height=430, template="plotly_white", uirevision="keep",
                           xaxis=dict(type="log", title="σ"),
                           yaxis=dict(title=_("error rate"), range=[0, 1.02], tickformat=".0%"),
                           legend=dict(font=dict(size=11)), margin=dict(l=75, r=215, t=50, b=60),
                           title=dict(text=_("estimates along σ"), font=dict(size=15)))
        self.fig = FigureWidget(main)

        plane = go.Figure()
        # f = 0 as the line of the plane's grid (viz.level_lines): its few hundred points are
        # sent, not the grid for a contour trace to trace again in the browser at each drawing
        plane.add_scatter(x=[], y=[], mode="lines", uid="boundary", meta="boundary",
                          name="f = 0", line=dict(color="#333333", width=2), connectgaps=False,
                          showlegend=False, hoverinfo="skip")
        xy = "(%{x:.3g}, %{y:.3g})<extra>%{fullData.name}</extra>"
        for k, (color, symbol) in enumerate((("#1f77b4", "circle"), ("#ff7f0e", "diamond"))):
            plane.add_scatter(x=[], y=[], mode="markers", name=_("class {c}").format(c=k),
                              uid=f"class{k}",
                              marker=dict(color=color, symbol=symbol, size=6, opacity=0.55),
                              hovertemplate=xy)
        plane.add_scatter(x=[], y=[], mode="markers", name=_("SV: span S²"), uid="spans",
                          marker=dict(size=11, color=[], colorscale="Viridis", showscale=True,
                                      symbol="circle-open", line=dict(width=2.5),
                                      colorbar=dict(title="S²", len=0.8)),
                          hovertemplate="S² = %{marker.color:.3g}<extra></extra>")
        plane.add_scatter(x=[], y=[], mode="markers", name=_("span rule: LOO error"),
                          uid="span_errors", marker=dict(symbol="x-thin", size=12,
                                                         line=dict(width=2, color="#d62728")),
                          hovertemplate=xy)
        plane.update_layout(height=430, template="plotly_white", uirevision="plane",
                            legend=dict(orientation="h", y=-0.12),
                            margin=dict(l=40, r=100, t=50, b=85),
                            title=dict(text=_("support vectors and their spans"),
                                       font=dict(size=15)))
        self.plane_fig = FigureWidget(plane)
        self.plane_box = widgets.Box([self.plane_fig])
        self.note = widgets.HTML("")
        self.figures = [self.fig, self.plane_fig]

    def _control_rows(self):
        c = self.controls
        return [c["dataset"], c["noise"], c["n_samples"], c["seed"],
                widgets.HTML("<b>" + _("model") + "</b>"), c["margin"], c["C"], c["sigma"],
                widgets.HTML("<b>" + _("chart") + "</b>"), c["axis"], c["loo"]]

    def _layout(self):
        box = super()._layout()
        right = box.children[-1].children[1]
        right.children = [self.fig, self.note, self.plane_box, self.stats]
        return box

    def _data(self, p):
        name = p["dataset"]
        key = (name, float(p["noise"]) if name in TOY_DATASETS else None, int(p["n_samples"]),
               int(p["seed"]))
        if key != self._data_key:
            if name in TOY_DATASETS:
                X, y = make_toy(name, int(p["n_samples"]), noise=float(p["noise"]),
                                random_state=int(p["seed"]))
                Xt, yt = make_toy(name, N_TEST, noise=float(p["noise"]),
                                  random_state=int(p["seed"]) + 7919)
            elif name in UCI_SETS:
                X, y, Xt, yt = self._uci(name, int(p["n_samples"]), int(p["seed"]))
            else:
                raise ValueError(_("{name} must be one of {names}, got {value}").format(
                    name="dataset", names=sorted(TOY_DATASETS) + list(UCI_SETS),
                    value=repr(name)))
            if np.unique(y).size != 2:
                raise ValueError(_("the sample of {name} holds {k} class(es); the estimates need "
                                   "two: draw another sample (seed) or more points").format(
                                       name=repr(name), k=np.unique(y).size))
            self._train = (np.asarray(X, float), np.asarray(y))
            self._test = (np.asarray(Xt, float), np.asarray(yt))
            self._data_key = key
        return self._train, self._test

    @staticmethod
    def _uci(name, n, seed):
        X, y = UCI_DATASETS[name][0]()
        X = np.asarray(X, dtype=float)
        n = int(min(n, X.shape[0] - MIN_UCI_TEST))
        order = np.random.default_rng(seed).permutation(X.shape[0])
        tr, te = order[:n], order[n:]
        mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
        sd[sd == 0] = 1.0
        Z = (X - mu) / sd
        return Z[tr], y[tr], Z[te], y[te]

    def _adjust(self, params, given):
        is_toy = params["dataset"] in TOY_DATASETS
        if is_toy:
            params = reset_noise_on_dataset_change(self, params, given)
        self.controls["noise"].disabled = not is_toy
        return params

    @staticmethod
    def _grid(value):
        lv = np.log10(float(value))
        return 10.0 ** np.linspace(lv - HALF_DECADES, lv + HALF_DECADES, N_GRID)

    def _steps(self, p):
        C, sigma, axis = p["C"], p["sigma"], p["axis"]
        if not (isinstance(C, (int, float)) and np.isfinite(C) and C > 0):
            raise ValueError(_("{name} must be a positive number, got {value}").format(
                name="C", value=repr(C)))
        if not (isinstance(sigma, (int, float)) and np.isfinite(sigma) and sigma > 0):
            raise ValueError(_("{name} must be a positive number, got {value}").format(
                name="sigma", value=repr(sigma)))
        if axis not in ("sigma", "C"):
            raise ValueError(_("{name} must be {a} or {b}, got {value}").format(
                name="axis", a="'sigma'", b="'C'", value=repr(axis)))
        if p["margin"] not in ("l1", "l2"):
            raise ValueError(_("{name} must be {a} or {b}, got {value}").format(
                name="margin", a="'l1'", b="'l2'", value=repr(p["margin"])))
        (X, y), (Xt, yt) = self._data(p)
        model = SVC(C=float(C), sigma=float(sigma), margin=p["margin"], tol=1e-3).fit(X, y)
        # the current model's estimates; its leave-one-out (retrainings) once the chart is drawn
        current = estimate_all(model, X, y)
        current["test_error"] = float(np.mean(model.predict(Xt) != yt))
        out = dict(p=p, current=current, model=model, X=X, y=y)
        if X.shape[1] == 2:
            out["plane"] = self._plane(model, X, y)
        key = (self._data_key, p["margin"], axis, float(C), float(sigma), bool(p["loo"]))
        if self._table_cache[0] == key:
            table, table_ms = self._table_cache[1]
        else:
            values = self._grid(sigma if axis == "sigma" else C)
            template = SVC(C=float(C), sigma=float(sigma), margin=p["margin"], tol=1e-3)
            t0 = time.perf_counter()
            with self.busy(_("{n} SVMs along {axis}…").format(
                    n=N_GRID, axis="σ" if axis == "sigma" else "C")):
                progress = throttled(self.report_progress)
                steps = _bounds_table_steps(
                    template, X, y, param=axis, values=values, X_test=Xt, y_test=yt,
                    loo=bool(p["loo"]),
                    callback=lambda info: self._table_progress(info["iteration"], progress))
                table = yield from self._partial_tables(steps, out, t0)
            table_ms = 1e3 * (time.perf_counter() - t0)
            self._table_cache = (key, (table, table_ms))
        if p["loo"] and "loo" not in current:
            yield from self._current_loo(current, model, X, y)
        return dict(out, table=table, table_ms=table_ms)

    def _held_in_partial(self, partial):
        """The curves chart: its first partial table (one value fitted, or every value without
        its leave-one-out) is drawn again, whole, a moment later; the plane's chart is not."""
        return (self.fig,)

    def _partial_tables(self, steps, out, t0):
        """Relay ``_bounds_table_steps``: its pauses, and each partial table (the curves, or
        the leave-one-out curve, filled so far) as a result to draw, the current model's
        leave-one-out computed after the first; returns the complete table."""
        current = out["current"]
        while True:
            try:
                table = next(steps)
            except StopIteration as end:
                return end.value
            if table is None:
                yield None
                continue
            yield dict(out, table=table, current=dict(current),
                       table_ms=1e3 * (time.perf_counter() - t0))
            if out["p"]["loo"] and "loo" not in current:
                yield from self._current_loo(current, out["model"], out["X"], out["y"])

    @staticmethod
    def _current_loo(current, model, X, y):
        """The exact leave-one-out of the current model into ``current`` (what ``estimate_all``
        with ``loo=True`` adds), one retraining per step."""
        res = yield from _loo_steps(model, X, y)
        current.update(loo=res.error, loo_trainings=res.n_trainings)

    def _table_progress(self, i, progress):
        """Callback of ``bounds_table``: the progress bar (``progress``, a throttled
        ``report_progress``), and the time budget (one row, up to n
        SVMs with the exact leave-one-out, is the unit of work; with it a row is complete once
        every value's SVM is fitted and the row's leave-one-out done)."""
        progress((i + 1) / N_GRID, _("{i} / {n} values").format(i=i + 1, n=N_GRID))
        if i + 1 < N_GRID:
            self.check_time(_("the chart of {n} values (after {i})").format(n=N_GRID, i=i + 1))

    def _plane(self, model, X, y):
        pb = _Problem(model, X, y)              # one kernel for the spans and the span rule
        sv = pb.sv
        S2sv = pb.spans(0.0)[0][sv]
        rule = _span_errors(pb, 0.0)
        err = np.zeros(sv.size, dtype=bool) if rule is None else rule[sv]
        xmin, xmax, ymin, ymax = plane_bounds(X, padding=0.1)
        gx = np.linspace(xmin, xmax, self.grid)
        gy = np.linspace(ymin, ymax, self.grid)
        G = np.c_[np.repeat(gx[None, :], self.grid, 0).ravel(),
                  np.repeat(gy[:, None], self.grid, 1).ravel()]
        Z = model.decision_function(G).reshape(self.grid, self.grid)
        return dict(gx=gx, gy=gy, Z=Z, sv=sv, S2=S2sv, err=err,
                    bounds=(xmin, xmax, ymin, ymax))

    def _render(self, r):
        p, table, cur = r["p"], r["table"], r["current"]
        axis = p["axis"]
        x = table[axis]
        fig = self.fig
        now = float(p[axis])
        sym = "σ" if axis == "sigma" else "C"
        for k, (key, _label, _color, _dash) in enumerate(CURVES):
            tr = fig.data[k]
            if key in table:
                tr.x, tr.y = x, table[key]
                tr.hovertemplate = (f"{sym} = %{{x:.3g}}: %{{y:.1%}}"
                                    "<extra>%{fullData.name}</extra>")
                if tr.visible is False:       # a curve back on the chart; hidden ones stay so
                    tr.visible = True if key in SHOWN else "legendonly"
            else:
                tr.visible = False
        other = (f"C = {num(p['C'], '.3g')}" if axis == "sigma"
                 else f"σ = {num(p['sigma'], '.3g')}")
        fig.layout.xaxis.title.text = sym
        fig.layout.xaxis.range = [np.log10(x.min()), np.log10(x.max())]
        ticks = _ticks_125(x.min(), x.max())
        fig.layout.xaxis.tickvals = ticks
        fig.layout.xaxis.ticktext = [num(t, "g") for t in ticks]
        shapes = [dict(type="line", xref="x", yref="paper", x0=now, x1=now, y0=0,
                       y1=1, line=dict(color="#444444", width=1.5, dash="dot"))]
        notes = [dict(x=float(np.log10(now)), xref="x", y=1.0, yref="paper",
                      yanchor="bottom", showarrow=False,
                      text=f"{sym} = {num(now, '.3g')}", font=dict(size=12))]
        mem = memorising(table)
        if mem.any():
            # shade the values where the SVM memorises its sample (runs of rows, edges halfway
            # to the next value in log scale)
            lx = np.log10(np.asarray(x, float))
            half = (lx[1] - lx[0]) / 2 if lx.size > 1 else 0.5
            edges = np.flatnonzero(np.diff(np.r_[0, mem.astype(int), 0]))
            for a, b in zip(edges[::2], edges[1::2]):
                shapes.append(dict(type="rect", xref="x", yref="paper",
                                   x0=10 ** max(lx[a] - half, lx[0]),
                                   x1=10 ** min(lx[b - 1] + half, lx[-1]), y0=0, y1=1,
                                   fillcolor="#999999", opacity=0.15, line=dict(width=0),
                                   layer="below"))
            notes.append(dict(x=0, xref="paper", y=1.0, yref="paper", xanchor="left",
                              yanchor="bottom", showarrow=False,
                              text=_("grey band: every point a support vector, none "
                                     "misclassified"),
                              font=dict(size=11, color="#555555")))
        fig.layout.shapes = shapes
        fig.layout.annotations = notes
        margin = "L1" if p["margin"] == "l1" else "L2"
        fig.layout.title.text = _("{dataset}: estimates along {sym} ({margin} margin, {other}, "
                                  "n = {n})").format(dataset=toy_name(p["dataset"]), sym=sym,
                                                     margin=margin, other=other,
                                                     n=r["X"].shape[0])
        if "plane" in r:
            self._render_plane(r)
            self.plane_box.layout.display = "flex"
            self.note.value = ""
        else:
            self.plane_box.layout.display = "none"
            self.note.value = "<small>{}</small>".format(html.escape(
                _("The spans are drawn for the 2-D toys; this data set has {d} features.")
                .format(d=r["X"].shape[1])))
        stats = {k: v for k, v in cur.items() if k != "loo_trainings"}
        stats.update(n_support=int(r["model"].support_.size), n_train=int(r["X"].shape[0]),
                     n_fits=int(np.sum(table["n_trainings"])), table_ms=float(r["table_ms"]),
                     table=table)
        keep = ~mem if (~mem).any() else np.ones_like(mem)
        test = np.asarray(table["test_error"], float)[keep]
        for key in GAPS:
            gap = np.abs(np.asarray(table[key], float)[keep] - test)
            gap = gap[~np.isnan(gap)]        # a partial table's values not fitted yet are NaN
            stats[f"gap_{key}"] = float(gap.mean()) if gap.size else float("nan")
        rows = "".join(f"<tr><td>{html.escape(_(label))}</td>"
                       f"<td class='num'>{num(stats[key], spec)}</td>"
                       "</tr>" for key, label, spec in self.DETAILS if key in stats)
        small = html.escape(_("distances: mean |estimate − test error| over the chart, leaving "
                              "out the shaded values"))
        stats["_details"] = f"<table>{rows}</table><small>{small}</small>"
        return stats

    def regime(self, params, stats):
        """A note where the SVM memorises its sample at the current setting."""
        if stats.get("sv_fraction", 0) >= 1.0 and stats.get("training_error", 1) == 0:
            return [_("Every training point is a support vector and none is misclassified: the "
                      "SVM memorises its sample, and leave-one-out (hence the span) then errs on "
                      "nearly every point whatever the test error; a larger σ (or a smaller C "
                      "with noise) leaves this regime.")]
        return []

    def _render_plane(self, r):
        pl, X, y, model = r["plane"], r["X"], r["y"], r["model"]
        fig = self.plane_fig
        # the line f = 0 of the grid in float32 (binary buffers, not nested JSON lists)
        x, yl = level_lines(*grid_arrays(pl["gx"], pl["gy"], pl["Z"]), [0.0])
        fig.data[0].update(x=x, y=yl)
        for k in (0, 1):
            m = y == model.classes_[k]
            fig.data[1 + k].update(x=X[m, 0], y=X[m, 1])
        sv = pl["sv"]
        fig.data[3].update(x=X[sv, 0], y=X[sv, 1], marker=dict(color=pl["S2"]))
        e = sv[pl["err"]]
        fig.data[4].update(x=X[e, 0], y=X[e, 1])
        xmin, xmax, ymin, ymax = pl["bounds"]
        fig.layout.xaxis.range = [xmin, xmax]
        fig.layout.yaxis.range = [ymin, ymax]
        errors = int(pl["err"].sum())
        fig.layout.title.text = _("{sv}, span S² (colour); {errors} (×)").format(
            sv=ngettext("{n} support vector", "{n} support vectors", sv.size).format(n=sv.size),
            errors=ngettext("{n} predicted LOO error", "{n} predicted LOO errors",
                            errors).format(n=errors))
