"""Invariance explorer: the rotation toy of Chapelle's thesis (section 6.6.2, Figs. 6.1-6.5)
with its tangent vectors, and the boundaries of the plain SVM, virtual support vectors (VSV),
the invariant SVM (ISVM, section 6.3.1), the invariant hyperplane in kernel PCA coordinates
(IH_KPCA, section 6.3.2) and the linear preprocessing hybrid (LIH), with the information ratio
(6.13) and the tangent term (6.14) live (:mod:`kernelnb.prior.invariance`).

The tangent term (6.14), ``sqrt(mean_i (w . dPhi(x_i))^2)``, is the root mean square of the
derivative of the decision function along the training points' tangents; the readout sets it
against the thesis's rule of thumb (section 6.6.2: "after training a reasonable value for (6.14)
should be in the range [0.2 - 0.4]"; smaller means the invariance is enforced more) and says
which way the invariance trade-off γ (the estimators' ``invariance``) would move it
(:func:`rule_of_thumb`).
"""
from __future__ import annotations

import html
import time

import ipywidgets as widgets
import numpy as np

from ...datasets import make_rotation_toy
from ...prior.invariance import (InvariantKPCASVC, InvariantSVC, LinearInvariantSVC, VirtualSVC,
                                tangent_vectors)
from ...svm import SVC
from ..viz import boundaries_figure, decision_grid, grid_arrays
from ..i18n import N_, _
from ._base import Dashboard, Lesson, _label, log_slider, num, styled
from ..viz._figure_widget import FigureWidget

__all__ = ["InvarianceExplorer", "EXPLORER_METHODS", "INVARIANCE_VALUES", "RULE_OF_THUMB",
           "rule_of_thumb", "tangent_arrows"]

#: the methods drawn, in the order of their boundary traces
EXPLORER_METHODS = ("SVM", "VSV", "ISVM", "IH_KPCA", "LIH")
N_TEST = 2000
BOUNDS = (-1.15, 1.15, -1.15, 1.15)
#: The values of the γ slider (the estimators' ``invariance``): denser towards 1, where the
#: scale-free trade-off starts to bite (averaged over 5 draws of the default sample, the tangent
#: term is 0.99 at 0.999 and reaches the rule's range from 0.9999 on: 0.43, 0.35 at 0.99995,
#: 0.21 at 0.99999).
INVARIANCE_VALUES = (0.0, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 0.9995, 0.9998,
                     0.9999, 0.99995, 0.99999)
#: Below this rotation (radians) the virtual examples nearly coincide with the support vectors.
SMALL_VSV_STEP = 0.15
#: The thesis's range for the tangent term (6.14) after training (section 6.6.2).
RULE_OF_THUMB = (0.2, 0.4)
#: Drawn length of a tangent vector d/dt (rotation by t radians), in plane units per unit.
ARROW_SCALE = 0.15
#: Arrowhead: length as a fraction of the arrow, half-angle of the V in degrees.
HEAD_FRACTION = 0.3
HEAD_HALF_ANGLE = 25.0


def rule_of_thumb(value, invariance=None):
    """Where a tangent term (6.14) lies against the thesis's range :data:`RULE_OF_THUMB`.

    Parameters
    ----------
    value : float
        The tangent term of a fitted invariant model (its ``invariance_rms_``).
    invariance : float, optional
        The trade-off γ it was fitted with: at the largest γ of :data:`INVARIANCE_VALUES` the
        advice for a term above the range is a smaller C (no larger γ is offered), at γ = 0
        the advice for a term below it is a larger C.

    Returns
    -------
    where : str
        'below', 'within' or 'above' the range (its ends count as within).
    advice : str
        A sentence for the readout, in the language in effect: which way the invariance
        trade-off would move the term.
    """
    lo, hi = RULE_OF_THUMB
    if value > hi:
        if invariance is not None and invariance >= INVARIANCE_VALUES[-1]:
            return "above", _("the invariance could be enforced more; γ is at its largest, a "
                              "smaller C lowers the term too")
        return "above", _("the invariance could be enforced more; the rule asks for a larger "
                          "γ")
    if value < lo:
        if invariance is not None and invariance <= 0:
            return "below", _("the model is smooth along the rotation already at γ = 0; a "
                              "larger C fits the data more closely")
        return "below", _("the invariance is enforced more than the rule asks; a smaller γ may "
                          "fit the data better")
    return "within", _("a reasonable γ by the rule")


#: The readout's words for :func:`rule_of_thumb`'s places (msgids).
WHERE_WORDS = {"above": N_("above"), "below": N_("below"), "within": N_("within")}


def tangent_arrows(X, T, scale=ARROW_SCALE, head=HEAD_FRACTION, half_angle=HEAD_HALF_ANGLE):
    """One polyline drawing an arrow from each ``X[i]`` to ``X[i] + scale * T[i]``.

    Per point: the shaft (start, tip), a gap, the arrowhead as a V (wing, tip, wing), a gap. The
    gaps are NaN (plotly breaks the line there), so that many arrows are one trace.

    Parameters
    ----------
    X : array-like of shape (n, 2)
        Start points.
    T : array-like of shape (n, 2)
        Tangent vectors, drawn times ``scale``.
    scale : float, default=ARROW_SCALE
        Drawn length of a tangent vector per unit.
    head : float, default=HEAD_FRACTION
        Length of each wing of the head as a fraction of the arrow's length.
    half_angle : float, default=HEAD_HALF_ANGLE
        Angle in degrees between each wing and the shaft (the wings are the shaft's
        direction reversed, turned by +- this angle).

    Returns
    -------
    x : ndarray of shape (7 n,)
        The x coordinates of the polyline, seven per arrow.
    y : ndarray of shape (7 n,)
        The y coordinates, aligned with ``x``.
    """
    X, T = np.asarray(X, float), np.asarray(T, float) * scale
    tip = X + T
    a = np.deg2rad(half_angle)
    back = -head * T
    rot = lambda v, t: np.c_[np.cos(t) * v[:, 0] - np.sin(t) * v[:, 1],  # noqa: E731
                             np.sin(t) * v[:, 0] + np.cos(t) * v[:, 1]]
    left, right = tip + rot(back, a), tip + rot(back, -a)
    gap = np.full_like(tip, np.nan)
    pts = np.stack([X, tip, gap, left, tip, right, gap], axis=1)    # (n, 7, 2)
    return pts[..., 0].ravel(), pts[..., 1].ravel()


class InvarianceExplorer(Dashboard):
    """The rotation toy of thesis section 6.6.2 with five ways of learning it.

    Parameters
    ----------
    grid : int, default=70
        Resolution of the boundary grid.
    **params
        Initial control values: ``sigma``, ``invariance`` (the trade-off γ; the page offers
        :data:`INVARIANCE_VALUES`, from Python any value in [0, 1)), ``C``, ``n_samples``,
        ``seed``, ``vsv_step`` (radians), ``shown`` (tuple of :data:`EXPLORER_METHODS`),
        ``tangents`` (bool: draw the tangent arrows, with their heads: :func:`tangent_arrows`).

    Notes
    -----
    :meth:`update` returns ``error_<method>`` (test error on 2000 fresh points) for every
    method, ``ratio`` (6.13, mean over the training points, from IH_KPCA), ``rms_isvm`` and
    ``rms_ih_kpca`` (6.14), ``invariance_eff`` (the ISVM's trade-off after the scale-free
    substitution)
    and ``fit_ms``, ``spacing`` (the mean distance from a training point to its nearest
    neighbour).

    The lessons (:attr:`LESSONS`, thesis section 6.6.2): the invariant SVM and IH_KPCA beat the
    plain SVM wherever the kernel is wider than the spacing of the points; virtual SVs help
    too; more invariance (γ towards 1) is better. :meth:`regime` notes a σ below the spacing
    and virtual examples rotated so little that they repeat the support vectors. The ISVM line
    is dashed: where the ratio (6.13) is 1 it lies on the IH_KPCA line.

    Examples
    --------
    >>> from kernelnb.lab.app import InvarianceExplorer
    >>> app = InvarianceExplorer(grid=20)
    >>> stats = app.update(sigma=0.5, shown=("SVM", "ISVM"))
    >>> stats["error_ISVM"] < stats["error_SVM"]     # the invariant SVM learns the rotation
    True
    >>> [trace.name.split()[0] for trace in app.figures[0].data if trace.visible is True]
    ['SVM', 'ISVM']
    >>> app.update(shown=("SVM", "KNN"))["error"]
    "ValueError: shown must hold names among ['SVM', 'VSV', 'ISVM', 'IH_KPCA', 'LIH'], got 'KNN'"
    """

    notebook = "invariance_explorer"
    title = N_("Invariance explorer")
    purpose = N_("Rotation invariance on a circle (Chapelle's thesis, ch. 6): tangent vectors, "
                 "and the boundaries of SVM, virtual SVs, the invariant SVM and its kernel-PCA "
                 "version as the kernel width and the invariance weight γ change.")
    STATS = [
        ("error_SVM", (N_("test error {name}"), {"name": "SVM"}), ".1%"),
        ("error_VSV", (N_("test error {name}"), {"name": "VSV"}), ".1%"),
        ("error_ISVM", (N_("test error {name}"), {"name": "ISVM"}), ".1%"),
        ("error_IH_KPCA", (N_("test error {name}"), {"name": "IH_KPCA"}), ".1%"),
        ("error_LIH", (N_("test error {name}"), {"name": "LIH"}), ".1%"),
        ("rms_isvm", (N_("tangent term (6.14) {name}"), {"name": "ISVM"}), ".3f"),
    ]
    #: Rows folded in the readout's details.
    DETAILS = [
        ("ratio", N_("ratio ‖dψ‖/‖dΦ‖ (6.13)"), ".3f"),
        ("rms_ih_kpca", (N_("tangent term (6.14) {name}"), {"name": "IH_KPCA"}), ".3f"),
        ("invariance_eff", N_("γ after the scale-free rule"), ".4f"),
        ("spacing", N_("mean distance to the nearest training point"), ".3f"),
        ("fit_ms", N_("fit time, all five (ms)"), ".0f"),
    ]
    LESSON_APP = {"grid": 12}
    LESSONS = (
        Lesson(claim=N_("Building the rotation invariance into the kernel (the invariant SVM "
                        "ISVM and its kernel-PCA version IH_KPCA, γ near 1) gives a lower test "
                        "error than the plain SVM."),
               source=N_("Chapelle 2002, thesis §6.6.2, Figs. 6.2–6.3"),
               holds=lambda s: (s["error_ISVM"] < s["error_SVM"]
                                and s["error_IH_KPCA"] < s["error_SVM"]),
               sweep={"sigma": (0.1, 0.3, 3.0, 10.0), "C": (1.0, 10000.0),
                      "n_samples": (10, 120)}, seeds=(0, 1, 2)),
        Lesson(claim=N_("Virtual support vectors (the support vectors rotated, then a second "
                        "SVM) lower the test error at every σ."),
               source=N_("Chapelle 2002, thesis §6.6.2"),
               holds=lambda s: s["error_VSV"] < s["error_SVM"],
               sweep={"vsv_step": (0.06, 0.5), "sigma": (0.3, 10.0)}, seeds=(0, 1, 2)),
        Lesson(claim=N_("The more invariance, the better: the invariant SVM's test error falls "
                        "as γ goes to 1 (γ = 0 is the plain SVM)."),
               source=N_("Chapelle 2002, thesis §6.6.2"),
               # never worse than the plain SVM beyond the solver's tolerance (γ = 0 is equal);
               # the fall itself is checked across the swept values by the tests
               holds=lambda s: s["error_ISVM"] <= s["error_SVM"] + 0.002,
               sweep={"invariance": (0.0, 0.99, 0.9999, 0.99999)}, seeds=(0, 1, 2)),
    )

    #: The book's lesson figure (:func:`kernelnb_book._dashboards.book_figure`).
    BOOK_FIGURE = {
        "control": "invariance",
        "values": [0.0, 0.9, 0.99, 0.995, 0.998, 0.999, 0.9999, 0.99995, 0.99999],
        "readout": ["error_SVM", "error_ISVM", "error_IH_KPCA", "error_VSV"],
        "why": "The lessons are about building the rotation invariance into the kernel: γ goes "
               "from 0, the plain SVM, to 0.99999 (watch the invariant SVM's dashed boundary "
               "beside the true circle), and the readout gives the test errors of the SVM, "
               "ISVM, IH_KPCA and VSV.",
    }

    def __init__(self, grid=70, **params):
        self.grid = grid
        self._data_key = None
        super().__init__(**params)

    def _build(self):
        c = self.controls
        c["sigma"] = log_slider(_("σ (RBF)"), 1.0, -1, 1, step=0.05, main=True,
                                tooltip=_("width of exp(-‖x - y‖² / (2σ²))"))
        c["invariance"] = styled(widgets.SelectionSlider(
            options=[(f"{g:g}", g) for g in INVARIANCE_VALUES], value=0.99995, description="γ"),
            tooltip=_("0: the plain SVM; towards 1: more invariance (scale free)"))
        c["C"] = log_slider("C", 1000.0, 0, 4, step=0.25)
        c["n_samples"] = styled(widgets.IntSlider(value=30, min=10, max=120, step=5,
                                                  description=_("n points")))
        c["seed"] = styled(widgets.IntSlider(value=0, min=0, max=20, description=_("draw")))
        c["vsv_step"] = styled(widgets.FloatSlider(value=0.3, min=0.02, max=0.5, step=0.02,
                                                   description=_("VSV angle")),
                               tooltip=_("rotation (radians) of the virtual support vectors"))
        c["shown"] = styled(widgets.SelectMultiple(options=list(EXPLORER_METHODS),
                                                   value=EXPLORER_METHODS, rows=5,
                                                   description=_("boundaries")))
        c["tangents"] = styled(widgets.Checkbox(value=True, description=_("tangent arrows"),
                                                indent=False))
        X, y = make_rotation_toy(30, random_state=0)
        fig = boundaries_figure({m: _Zero() for m in EXPLORER_METHODS}, X, y, grid=2,
                                bounds=BOUNDS)
        t = np.linspace(0, 2 * np.pi, 200)
        r = np.sqrt(0.7)
        fig.add_scatter(uid="truth", x=r * np.cos(t), y=r * np.sin(t), mode="lines",
                        name=_("true boundary ‖x‖² = 0.7"),
                        line=dict(color="#888", width=1.5, dash="dot"), hoverinfo="skip")
        fig.add_scatter(uid="tangents", x=[], y=[], mode="lines", name=_("tangent vectors"),
                        line=dict(color="#444", width=1.2), hoverinfo="skip",
                        connectgaps=False)
        # ISVM and IH_KPCA coincide where the ratio (6.13) is 1: ISVM dashed, drawn on top
        isvm = fig.data[2 + EXPLORER_METHODS.index("ISVM")]
        isvm.line.dash = "dash"
        isvm.name = _("ISVM (dashed)")
        fig.update_layout(height=560, title=dict(text=_("Rotation toy")))
        self.fig = FigureWidget(fig)
        self.figures = [self.fig]

    def _control_rows(self):
        c = self.controls
        return [widgets.HTML("<b>" + _("kernel and invariance") + "</b>"), c["sigma"],
                c["invariance"], c["C"], c["vsv_step"],
                widgets.HTML("<b>" + _("data") + "</b>"), c["n_samples"], c["seed"],
                widgets.HTML("<b>" + _("shown") + "</b>"), c["shown"], c["tangents"]]

    # -- work ------------------------------------------------------------------------------
    def _data(self, p):
        key = (int(p["n_samples"]), int(p["seed"]))
        if key != self._data_key:
            rng = np.random.RandomState(key[1])
            X, y = make_rotation_toy(key[0], random_state=rng)
            while np.unique(y).shape[0] < 2:
                X, y = make_rotation_toy(key[0], random_state=rng)
            self._train = (X, y)
            self._test = make_rotation_toy(
                N_TEST, random_state=np.random.RandomState(1000 + key[1]))
            self._data_key = key
        return self._train

    def _compute(self, p):
        shown = tuple(p["shown"])
        for m in shown:
            if m not in EXPLORER_METHODS:
                raise ValueError(_("{name} must hold names among {names}, got {value}").format(
                    name="shown", names=list(EXPLORER_METHODS), value=repr(m)))
        X, y = self._data(p)
        Xt, yt = self._test
        sigma, invariance, C = float(p["sigma"]), float(p["invariance"]), float(p["C"])
        common = dict(C=C, sigma=sigma, precision="float64", transformation="rotate_2d")
        models = {
            "SVM": SVC(C=C, sigma=sigma, precision="float64"),
            "VSV": VirtualSVC(step=float(p["vsv_step"]), **common),
            "ISVM": InvariantSVC(invariance=invariance, **common),
            "IH_KPCA": InvariantKPCASVC(invariance=invariance, **common),
            "LIH": LinearInvariantSVC(invariance=invariance, kernel="rbf", **common),
        }
        t0 = time.perf_counter()
        grids, errors = {}, {}
        for name, model in models.items():
            model.fit(X, y)
            errors[name] = float(np.mean(model.predict(Xt) != yt))
            grids[name] = decision_grid(model, BOUNDS, self.grid)
            self.check_time(_("the fits"))
        fit_ms = 1e3 * (time.perf_counter() - t0)
        D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
        np.fill_diagonal(D, np.inf)
        return dict(p=p, shown=shown, X=X, y=y, T=tangent_vectors(X, "rotate_2d"),
                    spacing=float(np.mean(D.min(axis=1))),
                    grids=grids, errors=errors, fit_ms=fit_ms,
                    ratio=models["IH_KPCA"].information_ratio_,
                    rms_isvm=models["ISVM"].invariance_rms_,
                    rms_ih_kpca=models["IH_KPCA"].invariance_rms_,
                    invariance_eff=models["ISVM"].invariance_)

    def _render(self, r):
        fig, X, y, p = self.fig, r["X"], r["y"], r["p"]
        for k, label in enumerate((-1, 1)):
            pts = X[y == label]
            fig.data[k].x, fig.data[k].y = pts[:, 0], pts[:, 1]
            fig.data[k].name = _("class {c} ({n})").format(c=label, n=pts.shape[0])
        for i, name in enumerate(EXPLORER_METHODS):
            tr = fig.data[2 + i]
            xs, ys, Z = r["grids"][name]
            tr.x, tr.y, tr.z = grid_arrays(xs, ys, Z)
            tr.visible = name in r["shown"]
            tr.name = "{} ({})".format(_("ISVM (dashed)") if name == "ISVM" else name,
                                       num(r["errors"][name], ".1%"))
        arrows = fig.data[2 + len(EXPLORER_METHODS) + 1]
        if p["tangents"]:
            arrows.x, arrows.y = tangent_arrows(X, r["T"])
        else:
            arrows.x, arrows.y = [], []
        fig.layout.title.text = _("Rotation toy: RBF σ = {sigma}, γ = {gamma}, C = {C}, n = "
                                  "{n}").format(sigma=num(p["sigma"], ".3g"),
                                                gamma=num(p["invariance"], "g"),
                                                C=num(p["C"], ".3g"), n=len(y))
        same = ("ISVM" in r["shown"] and "IH_KPCA" in r["shown"]
                and np.array_equal(np.sign(r["grids"]["ISVM"][2]),
                                   np.sign(r["grids"]["IH_KPCA"][2])))
        fig.layout.annotations = [dict(
            x=0, y=-0.08, xref="paper", yref="paper", xanchor="left", yanchor="top",
            showarrow=False, font=dict(size=12, color="#555"),
            text=_("ISVM (dashed) lies on IH_KPCA here: ratio (6.13) = {ratio}").format(
                ratio=num(r["ratio"], ".2f")))
            ] if same else []
        stats = {f"error_{m}": e for m, e in r["errors"].items()}
        stats.update(ratio=r["ratio"], rms_isvm=r["rms_isvm"], rms_ih_kpca=r["rms_ih_kpca"],
                     invariance_eff=r["invariance_eff"], fit_ms=r["fit_ms"],
                     spacing=r["spacing"])
        lo, hi = RULE_OF_THUMB
        verdicts = []
        for name, key in (("ISVM", "rms_isvm"), ("IH_KPCA", "rms_ih_kpca")):
            where, advice = rule_of_thumb(r[key], float(p["invariance"]))
            range_text = html.escape(_("{where} the range")).format(
                where="<b>" + html.escape(_(WHERE_WORDS[where])) + "</b>")
            verdicts.append("<li>" + html.escape(_("{name}: {value}, {range}: {advice}.")).format(
                name=name, value=num(r[key], '.3f'), range=range_text,
                advice=html.escape(advice)) + "</li>")
        rule = html.escape(_("The thesis's rule of thumb (§6.6.2): after training, the tangent "
                             "term (6.14) should lie in [{lo}, {hi}]; smaller means the "
                             "invariance is enforced more (tangents are d/dt of a rotation by t "
                             "radians).").format(lo=num(lo, "g"), hi=num(hi, "g")))
        stats["_html"] = (f"<p class='kernelnb-rule-of-thumb'><small>{rule}</small></p>"
                          f"<ul style='margin:0;font-size:13px'>{''.join(verdicts)}</ul>")
        stats["_details"] = "<table>" + "".join(
            f'<tr><td>{html.escape(_label(label))}</td><td class="num">{num(stats[key], spec)}'
            "</td></tr>" for key, label, spec in self.DETAILS) + "</table>"
        return stats

    def regime(self, params, stats):
        """Notes where σ is below the spacing of the points, or the virtual examples are rotated
        so little that they repeat the support vectors."""
        notes = []
        sigma, spacing = float(params["sigma"]), stats["spacing"]
        if sigma < spacing:
            notes.append(_("σ = {sigma} is below the mean distance between neighbouring training "
                           "points ({spacing}): the kernel sees each point alone, and no method, "
                           "invariant or not, generalises from so few neighbours.").format(
                               sigma=num(sigma, ".3g"), spacing=num(spacing, ".2f")))
        step = float(params["vsv_step"])
        if step < SMALL_VSV_STEP:
            notes.append(_("The virtual examples are rotated by {step} rad ({degrees}°) only: "
                           "they nearly repeat the support vectors, so VSV stays close to the "
                           "plain SVM.").format(step=num(step, "g"),
                                                degrees=num(np.degrees(step), ".0f")))
        return notes


class _Zero:
    """Placeholder classifier for the empty figure."""

    @staticmethod
    def decision_function(P):
        return np.zeros(len(P))
