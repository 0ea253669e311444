"""Regression model selection: a noisy 1-D target, the least-squares Fourier fit with d basis
functions, and each criterion's estimate of the risk against d beside the true risk (Chapelle's
thesis, chapter 9; :func:`kernelnb.model_selection.regression_risk_estimates`).

x is uniform on [-pi, pi] (the Fourier basis is then orthonormal), y = f(x) + noise; the DEE and
ADJ criteria use 1000 unlabeled points drawn from the same distribution; the true risk is
computed by quadrature.
"""
from __future__ import annotations

import html

import numpy as np
import ipywidgets as widgets
from ..viz._figure_widget import FigureWidget

from ...model_selection import REGRESSION_CRITERIA, basis_matrix, regression_risk_estimates
from ...reproductions.chapelle.regression import _true_risk_factory, regression_target
from ..i18n import N_, _
from ._base import Dashboard, Lesson, log_slider, num, styled

__all__ = ["RegressionSelectionExplorer"]

#: Largest number of basis functions drawn.
MAX_DIM = 60
#: Unlabeled points used by DEE and ADJ.
N_UNLABELED = 1000
TARGETS = ("quadratic", "sinc", "step")
#: What each criterion's short name stands for (legend hover and readout details).
CRITERION_NAMES = {
    "adj": N_("ADJ (Schuurmans' metric, unlabeled points)"),
    "seb": N_("SEB (smallest-eigenvalue bound)"),
    "cv5": N_("CV5 (5-fold cross-validation)"),
    "dee": N_("DEE (direct eigenvalue estimator, unlabeled points)"),
    "ucb": N_("UCB (uniform convergence bound)"),
    "gcv": N_("GCV (generalized cross-validation)"),
    "ric": N_("RIC (risk inflation criterion)"),
    "bic": "BIC (Schwarz)",
    "fpe": N_("FPE (Akaike's final prediction error)"),
    "cpm": "Cp (Mallows)",
}
#: The targets as the drop-down names them (msgids).
TARGET_NAMES = {"quadratic": N_("quadratic"), "sinc": "sinc", "step": N_("step")}
#: The criteria drawn at first (the others are one click on the legend away).
SHOWN = ("adj", "dee", "cv5", "fpe")
#: Beyond this n the largest d drawn (MAX_DIM) is well below n: not a small sample any more.
SMALL_SAMPLE_N = int(np.floor(40 * MAX_DIM / 23))
#: Below this n at most 11 terms can be fitted and one draw decides every choice.
TINY_N = 20


def largest_dim(n):
    """The largest d considered for n points: Fig. 9.2's range ceil(23 n / 40), at most
    ``MAX_DIM``."""
    return int(min(np.ceil(23 * n / 40), MAX_DIM))


def sample(target, n, noise, seed):
    """(x, y, x_unlabeled) of the dashboard for these controls."""
    rng = np.random.RandomState(seed)
    x = rng.uniform(-np.pi, np.pi, n)
    y = regression_target(target)(x) + noise * rng.randn(n)
    return x, y, rng.uniform(-np.pi, np.pi, N_UNLABELED)


class RegressionSelectionExplorer(Dashboard):
    """The Fourier fit of a noisy 1-D target and every chapter-9 criterion's risk estimate.

    Parameters
    ----------
    lang : str or None, default=None
        The language it speaks ('en' or 'fr'; see :class:`~kernelnb.lab.app.Dashboard`).
    **params
        Initial control values: ``target``, ``n``, ``noise``, ``seed``, ``d``.

    Notes
    -----
    :meth:`update` returns ``best_d`` (the d of smallest true risk), ``true_risk_d`` (the true
    risk of the fit drawn), and for every criterion ``d_<name>`` (its choice) and
    ``ratio_<name>`` (R(f_dhat) / min_d R(f_d), the thesis's (9.22)).

    The lesson (:attr:`LESSONS`): on a small sample, ADJ and DEE choose a d whose true risk is
    close to the smallest, where FPE's penalty is too weak at large d and it may choose far too
    many terms (thesis section 9.4, Fig. 9.2 and Tables 9.1-9.2). :meth:`regime` notes an n so
    large that the largest d drawn is far below n, or so small (below 20) that one draw decides.

    Examples
    --------
    >>> from kernelnb.lab.app import RegressionSelectionExplorer
    >>> app = RegressionSelectionExplorer()
    >>> stats = app.update(target="sinc", d=5)
    >>> stats["best_d"], stats["d_adj"], stats["ratio_adj"]
    (8, 8, 1.0)
    >>> app.figures[0].layout.title.text
    'sinc target, n = 40, noise 0.05: fit with d = 5'
    >>> app.update(n=150)["regime"][0][:48]
    'n = 150: the largest d drawn (60) is far below n'
    """

    notebook = "regression_selection"
    title = N_("Regression model selection")
    purpose = N_("How many Fourier terms for a few noisy points? Each criterion of Chapelle's "
                 "chapter 9 (DEE, SEB, ADJ, FPE, UCB, GCV, RIC, BIC, Cp, CV) estimates the risk "
                 "against d, beside the true risk.")
    STATS = [("best_d", N_("d of smallest true risk"), "d"),
             ("true_risk_d", N_("true risk of the fit drawn"), ".3g")] + [
        (f"ratio_{c}", (N_("{name}: risk of its d / best"), {"name": c.upper()}), ".3g")
        for c in SHOWN]
    LESSONS = (Lesson(
        claim=N_("With few points, ADJ and DEE choose a number of terms d whose true risk is "
                 "close to the best (ratio near 1), while FPE underestimates the risk at large d "
                 "and can choose far too many terms."),
        source=N_("Chapelle 2002, thesis §9.4, Fig. 9.2 and Tables 9.1–9.2"),
        # the thesis's mean ratios of ADJ and DEE stay below 3.7 over its 12 settings (Table
        # 9.2); averaged over 5 draws neither is worse than FPE beyond the draws' spread (0.1)
        holds=lambda s: (s["ratio_adj"] < 4 and s["ratio_dee"] < 4
                         and max(s["ratio_adj"], s["ratio_dee"]) <= s["ratio_fpe"] + 0.1),
        sweep={"target": TARGETS, "n": (10, 20, 40, 80, 150), "noise": (0.005, 0.05, 0.5)},
        seeds=(0, 1, 2, 3, 4)),)

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "n",
        "figure": 1,
        "values": [10, 15, 20, 30, 40, 60, 80, 100, 150],
        "readout": ["best_d", "ratio_adj", "ratio_dee", "ratio_fpe"],
        "why": "The lesson is about the number of terms each criterion chooses with few "
               "points: this chart draws every criterion's estimate of the risk against d "
               "beside the true risk (each one's choice in the legend) as the number of points "
               "goes from 10 to 150, and the readout gives the true risk of the choices of "
               "ADJ, DEE and FPE over the best one's.",
    }

    def _build(self):
        c = self.controls
        c["target"] = styled(widgets.Dropdown(
            options=[(_(TARGET_NAMES.get(t, t)), t) for t in TARGETS], value="quadratic",
            description=_("target f")))
        c["n"] = styled(widgets.IntSlider(value=40, min=10, max=150, description=_("n points")))
        c["noise"] = log_slider(_("noise σ"), 0.05, -2.5, 0, step=0.05)
        c["seed"] = styled(widgets.IntSlider(value=0, min=0, max=50, description=_("seed")))
        c["d"] = styled(widgets.IntSlider(value=9, min=1, max=MAX_DIM,
                                          description=_("d (fit)")))
        c["d"].add_class("kernelnb-main-slider")
        fit = FigureWidget()
        xy = "x = %{x:.3g}, y = %{y:.3g}<extra>%{fullData.name}</extra>"
        fit.add_scatter(x=[], y=[], mode="markers", name=_("training points"), uid="points",
                        hovertemplate=xy)
        fit.add_scatter(x=[], y=[], mode="lines", name=_("target f"), uid="target",
                        line=dict(color="black", dash="dot"), hovertemplate=xy)
        fit.add_scatter(x=[], y=[], mode="lines", name=_("fit with d functions"), uid="fit",
                        hovertemplate=xy)
        fit.update_layout(height=380, title=dict(text=_("Fourier fit")),
                          xaxis=dict(title=dict(text="x"), range=[-np.pi, np.pi]),
                          margin=dict(l=50, r=200, t=40, b=60))
        risk = FigureWidget()
        hover = "d = %{x}: %{y:.3g}<extra>%{fullData.name}</extra>"
        risk.add_scatter(x=[], y=[], mode="lines+markers", name=_("true risk"), uid="true",
                         line=dict(color="black", width=3), hovertemplate=hover)
        for name in REGRESSION_CRITERIA:
            risk.add_scatter(x=[], y=[], mode="lines", name=name.upper(), uid=name,
                             hovertemplate=hover,
                             visible=True if name in SHOWN else "legendonly")
        risk.add_scatter(x=[], y=[], mode="lines", name=_("training error"), uid="emp",
                         line=dict(color="grey", dash="dash"), hovertemplate=hover)
        risk.update_layout(height=420, title=dict(text=_("Estimated and true risk against d")),
                           xaxis=dict(title=dict(text=_("d (number of basis functions)"))),
                           # one tick a decade, read as 0.01, 0.1, 1
                           yaxis=dict(title=dict(text=_("risk (mean squared error, log "
                                                        "scale)")),
                                      type="log", dtick=1, tickformat="~g"),
                           legend=dict(title=dict(text=_("click: show / hide"))),
                           margin=dict(l=75, r=200, t=40, b=60))
        self.fig, self.risk = fit, risk
        self.figures = [fit, risk]

    def _compute(self, p):
        if p["target"] not in TARGETS:
            raise ValueError(_("{name} must be one of {names}, got {value}").format(
                name="target", names=TARGETS, value=repr(p["target"])))
        n, noise = int(p["n"]), float(p["noise"])
        x, y, u = sample(p["target"], n, noise, int(p["seed"]))
        D = largest_dim(n)
        res = regression_risk_estimates(x, y, u, max_dim=D)
        true = _true_risk_factory(regression_target(p["target"]), len(res.dims), "fourier",
                                  noise)(res.coef)
        d = int(min(int(p["d"]), len(res.dims)))
        return dict(p=p, x=x, y=y, res=res, true=true, d=d)

    def _render(self, r):
        res, true, d, p = r["res"], r["true"], r["d"], r["p"]
        grid = np.linspace(-np.pi, np.pi, 400)
        self.fig.data[0].x, self.fig.data[0].y = r["x"], r["y"]
        self.fig.data[1].x, self.fig.data[1].y = grid, regression_target(p["target"])(grid)
        self.fig.data[2].x = grid
        self.fig.data[2].y = basis_matrix(grid, d) @ res.coef[:d, d - 1]
        self.fig.data[2].name = _("fit with d = {d}").format(d=d)
        self.fig.layout.title.text = (
            _("{target} target, n = {n}, noise {noise}: fit with d = {d}").format(
                target=_(TARGET_NAMES.get(p["target"], p["target"])), n=int(p["n"]),
                noise=num(float(p["noise"]), ".3g"), d=d)
            + (" " + _("(the largest d for this n)") if d < int(p["d"]) else ""))
        dims = res.dims
        self.risk.data[0].x, self.risk.data[0].y = dims, true
        for k, name in enumerate(REGRESSION_CRITERIA):
            est = np.where(np.isfinite(res.estimates[name]), res.estimates[name], np.nan)
            self.risk.data[1 + k].x, self.risk.data[1 + k].y = dims, est
            self.risk.data[1 + k].name = f"{name.upper()} (d = {res.chosen[name]})"
        self.risk.data[-1].x, self.risk.data[-1].y = dims, res.empirical_risk
        # the true risk and the training error whole, with a decade of room above the true risk
        # for the estimates (those beyond it, which run to infinity as d nears n, are clipped
        # at the top of the plot)
        emp = np.asarray(res.empirical_risk, float)
        lo = max(min(float(np.min(true)), float(np.min(emp[emp > 0], initial=np.inf))) / 2,
                 1e-8)
        hi = 10 * float(np.max(true))
        self.risk.layout.yaxis.range = [np.log10(lo), np.log10(hi)]
        stats = dict(best_d=int(np.argmin(true)) + 1, true_risk_d=float(true[d - 1]),
                     largest_d=int(len(dims)))
        rows = []
        for name in REGRESSION_CRITERIA:
            stats[f"d_{name}"] = res.chosen[name]
            stats[f"ratio_{name}"] = float(true[res.chosen[name] - 1] / true.min())
            rows.append(f"<tr><td>{html.escape(_(CRITERION_NAMES[name]))}</td><td class='num'>"
                        f"{res.chosen[name]}</td><td class='num'>"
                        f"{num(stats[f'ratio_{name}'], '.3g')}</td></tr>")
        heads = [html.escape(t) for t in (_("criterion"), _("d chosen"),
                                          _("risk of its d / best"))]
        stats["_details"] = (f"<table><tr><th>{heads[0]}</th><th>{heads[1]}</th>"
                             f"<th>{heads[2]}</th></tr>" + "".join(rows) + "</table>")
        return stats

    def regime(self, params, stats):
        """A note where n is so large that the d drawn stay far below n (chapter 9 is about
        d up to about n/2, where the penalties differ)."""
        n = int(params["n"])
        if n < TINY_N:
            return [_("n = {n}: only d ≤ {d} can be fitted and every choice rests on a handful "
                      "of points: from one draw to the next any criterion may choose badly (the "
                      "thesis's figures use 40 to 50 points).").format(n=n,
                                                                      d=stats["largest_d"])]
        if n > SMALL_SAMPLE_N:
            return [_("n = {n}: the largest d drawn ({d}) is far below n, so this is no longer "
                      "the small sample of chapter 9 (d up to about n/2): every criterion chooses "
                      "about as well here.").format(n=n, d=stats["largest_d"])]
        return []
