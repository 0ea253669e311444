"""Margin losses against the margin m = y f(x), with their derivatives: the KMP paper's Fig. 5
(Vincent & Bengio 2002, §3.2) and the loss figures of Collobert's thesis (2004, ch. 3 and 8),
from the loss objects of :mod:`kernelnb.losses`.
"""
import numpy as np
import plotly.graph_objects as go

from ... import losses as _losses
from ..i18n import N_, _, number
from ._style import BASE_LAYOUT, SERIES_COLORS, title_layout

__all__ = ["loss_curves", "loss_axes_layout", "margin_marker"]

_VALUE_RANGE = (-0.25, 4.25)
#: The series palette; the losses beyond its length repeat a colour with another line style.
_PALETTE = SERIES_COLORS
_DERIV_RANGE = (-3.25, 1.25)
_M_TITLE = N_("margin m = y·f(x)  (residual r = y − f for the ε-insensitive loss)")
#: The losses' labels (:attr:`kernelnb.losses.Loss.label`) as the lab shows them, marked for
#: translation (tests/lab/test_i18n.py checks that every loss's label is here).
LOSS_LABELS = (
    N_("hinge [1 − m]₊ (SVM)"), N_("squared hinge [1 − m]₊² (L2-SVM)"),
    N_("logistic log(1 + e^−m) (LogitBoost)"), N_("LogitBoost log₂(1 + e^−2m) (KMP Fig. 5)"),
    N_("exponential e^−m (AdaBoost)"), N_("1 − tanh m (Doom II)"),
    N_("(0.65 − tanh m)² (KMP-tanh)"), N_("squared (1 − m)² (KMP-mse)"),
    N_("perceptron [−m]₊"), N_("0-1 error 1[m ≤ 0]"), N_("VRM erf φ(−m) (Chapelle)"),
    N_("VRM surrogate [½ − m/(σ√2π)]₊ (Fig. 2.2)"), N_("ε-insensitive [|r| − 0.1]₊ (SVR)"))
#: The regression losses' labels as the chart names them: a loss of the residual r, not of m.
REGRESSION_LABELS = {"ε-insensitive [|r| − 0.1]₊ (SVR)": N_("ε-insensitive [|r| − 0.1]₊ (SVR) "
                                                            "— of r")}


def _resolve(names):
    if names is None:
        names = _losses.LOSS_NAMES
    if isinstance(names, (str, _losses.Loss)):
        names = [names]
    out = []
    for n in names:
        loss = _losses.get_loss(n)
        if loss.name not in [l.name for l in out]:
            out.append(loss)
    if not out:
        raise ValueError(f"names must name at least one loss, got {names!r}")
    return out


def _color(loss):
    """A fixed colour per loss (the same whichever losses are shown); the 0-1 error is grey."""
    if loss.name == "zero_one":
        return "#7f7f7f"
    names = [n for n in _losses.LOSS_NAMES if n != "zero_one"]
    i = names.index(loss.name) if loss.name in names else 0
    return _PALETTE[i % len(_PALETTE)]


def _dash(loss):
    # squared and squared hinge coincide for m < 1: dash the squared loss so both show; a loss
    # whose colour repeats an earlier one's (beyond the palette's length) gets another style
    fixed = {"zero_one": "dot", "squared": "dash", "epsilon_insensitive": "dashdot"}
    if loss.name in fixed:
        return fixed[loss.name]
    names = [n for n in _losses.LOSS_NAMES if n != "zero_one"]
    i = names.index(loss.name) if loss.name in names else 0
    return ("solid", "longdash", "dashdot", "dot")[(i // len(_PALETTE)) % 4]


def loss_label(loss):
    """A loss's label in the language in effect (:data:`LOSS_LABELS`; "— of r" added for a
    regression loss, :data:`REGRESSION_LABELS`).

    Parameters
    ----------
    loss : kernelnb.losses.Loss

    Returns
    -------
    str
    """
    label = getattr(loss, "label", None) or loss.name
    if getattr(loss, "kind", "margin") == "regression":
        return _(REGRESSION_LABELS.get(label, label + " — of r"))
    return _(label)


def loss_axes_layout(show_derivative):
    """Layout update switching a loss figure between the loss panel alone and loss + derivative.

    Parameters
    ----------
    show_derivative : bool
        True: the loss panel on top and the derivative panel under it; False: the loss panel
        alone, the derivative axes hidden.

    Returns
    -------
    dict
        Axis settings (``xaxis``, ``yaxis``, ``xaxis2``, ``yaxis2``) for ``fig.update_layout``
        on a figure of :func:`loss_curves`.
    """
    if show_derivative:
        return dict(
            xaxis=dict(showticklabels=False, title=dict(text="")),
            yaxis=dict(domain=[0.45, 1.0]),
            xaxis2=dict(visible=True), yaxis2=dict(visible=True, domain=[0.0, 0.37]))
    return dict(
        xaxis=dict(showticklabels=True, title=dict(text=_(_M_TITLE))),
        yaxis=dict(domain=[0.0, 1.0]),
        xaxis2=dict(visible=False), yaxis2=dict(visible=False, domain=[0.0, 0.37]))


def margin_marker(m):
    """Layout shapes and annotations marking the margin ``m`` on a loss figure.

    Parameters
    ----------
    m : float or None
        The margin to mark; None marks nothing.

    Returns
    -------
    dict
        ``{'shapes': [...], 'annotations': [...]}`` for ``fig.update_layout``: a dotted vertical
        line at ``m`` and its label, or two empty lists for None (which clears a marker).
    """
    if m is None:
        return dict(shapes=[], annotations=[])
    m = float(m)
    return dict(
        shapes=[dict(type="line", xref="x", yref="paper", x0=m, x1=m, y0=0, y1=1,
                     line=dict(color="#444444", width=1.5, dash="dot"))],
        annotations=[dict(x=m, xref="x", y=1.0, yref="paper", yanchor="bottom",
                          text="m = " + number(m, ".2f"), showarrow=False,
                          font=dict(size=12))])


def loss_curves(names=None, show_derivative=False, margin_range=(-2.0, 3.0), n_points=501,
                highlight=None, title=None):
    """Plot margin losses L(m) (and dL/dm) against the margin m = y f(x).

    Parameters
    ----------
    names : sequence of str or Loss, optional
        Losses of :mod:`kernelnb.losses` (names, aliases or objects); default: all of
        :data:`kernelnb.losses.LOSS_NAMES`. A regression loss (ε-insensitive) is drawn against
        the residual r = y - f on the same axis, and says so in its legend.
    show_derivative : bool, default=False
        Show a second panel with the derivatives dL/dm (traces are always present, hidden when
        False, so a dashboard toggles them without rebuilding the figure).
    margin_range : (float, float), default=(-2, 3)
        Lowest and highest margin drawn (finite, low < high).
    n_points : int, default=501
        Points of each curve (at least 2); m = 0 is added when the range holds it.
    highlight : float, optional
        Draw a vertical line at this margin.
    title : str, optional
        Figure title (none by default).

    Returns
    -------
    plotly.graph_objects.Figure
        For each loss, in order, a value trace (uid ``'value:<name>'``, meta
        ``['value', name]``, axes x/y) then a derivative trace (uid ``'deriv:<name>'``, meta
        ``['deriv', name]``, axes x2/y2). A ``FigureWidget`` replaces uids; ``meta`` stays.
    """
    try:
        lo, hi = (float(v) for v in margin_range)
    except (TypeError, ValueError):
        raise ValueError(f"margin_range must be two numbers (low, high), "
                         f"got {margin_range!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"margin_range must be finite with low < high, got {margin_range!r}")
    if int(n_points) < 2:
        raise ValueError(f"n_points must be >= 2, got {n_points!r}")
    losses = _resolve(names)
    m = np.linspace(lo, hi, int(n_points))
    if lo < 0 < hi and not np.any(m == 0):
        m = np.sort(np.append(m, 0.0))  # the kinks and the 0-1 step sit at m = 0 or 1
    fig = go.Figure()
    for loss in losses:
        color = _color(loss)
        dash = _dash(loss)
        fig.add_trace(go.Scatter(
            uid=f"value:{loss.name}", meta=["value", loss.name], name=loss_label(loss),
            legendgroup=loss.name, x=m,
            y=loss.value(m), mode="lines",
            line=dict(color=color, width=2.2, dash=dash,
                      shape="hv" if loss.name == "zero_one" else "linear"),
            xaxis="x", yaxis="y",
            hovertemplate="m = %{x:.2f}<br>L = %{y:.3f}<extra>" + loss.name + "</extra>"))
        fig.add_trace(go.Scatter(
            uid=f"deriv:{loss.name}", meta=["deriv", loss.name], name=f"dL/dm {loss.name}",
            legendgroup=loss.name,
            showlegend=False, x=m, y=loss.derivative(m), mode="lines",
            line=dict(color=color, width=1.8, dash=dash), xaxis="x2", yaxis="y2",
            visible=bool(show_derivative),
            hovertemplate="m = %{x:.2f}<br>dL/dm = %{y:.3f}<extra>" + loss.name + "</extra>"))
    layout = dict(BASE_LAYOUT)
    layout["legend"] = dict(orientation="v", x=1.02, xanchor="left", y=1.0, yanchor="top",
                            title=dict(text=_("loss L(m)")))
    layout["margin"] = dict(l=60, r=315, t=60, b=60)
    # transparent plot areas: the hidden derivative panel must not paint over the loss panel
    layout["plot_bgcolor"] = "rgba(0,0,0,0)"
    fig.update_layout(
        **layout, title=title_layout(title), hovermode="closest",
        xaxis=dict(range=[lo, hi], anchor="y", zeroline=True, zerolinecolor="#bbbbbb"),
        xaxis2=dict(range=[lo, hi], anchor="y2", matches="x", zeroline=True,
                    zerolinecolor="#bbbbbb", title=dict(text=_(_M_TITLE))),
        yaxis=dict(range=list(_VALUE_RANGE), anchor="x", title=dict(text=_("loss L(m)"))),
        yaxis2=dict(range=list(_DERIV_RANGE), anchor="x2", title=dict(text="dL/dm")),
    )
    fig.update_layout(**loss_axes_layout(show_derivative))
    fig.update_layout(**margin_marker(highlight))
    return fig
