"""Curves against a size or a hyper-parameter: learning curves (error against training-set size,
with the number of support vectors) and the C path of an SVM (#SV and errors against C).
"""
import numpy as np
import plotly.graph_objects as go

from ..i18n import _, number
from ._style import BASE_LAYOUT, series_color, title_layout

__all__ = ["learning_curve_figure", "learning_curve_traces", "fit_time_figure", "fit_time_traces",
           "time_exponent", "c_path_figure", "c_marker"]


def _rgba(hex_color, alpha):
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def _matrix(values, n_sizes, what, name):
    a = np.asarray(values, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] != n_sizes:
        raise ValueError(f"curves[{name!r}][{what!r}] must have shape (n_sizes={n_sizes}, "
                         f"n_repeats), got {np.shape(values)}")
    return a


def _band(x, mean, spread, color, uid, group):
    lower, upper = np.clip(mean - spread, 0.0, 1.0), np.clip(mean + spread, 0.0, 1.0)  # rates
    return go.Scatter(uid=uid, x=np.concatenate([x, x[::-1]]),
                      y=np.concatenate([upper, lower[::-1]]), fill="toself",
                      fillcolor=_rgba(color, 0.15), line=dict(width=0), mode="lines",
                      hoverinfo="skip", showlegend=False, legendgroup=group)


def learning_curve_traces(curves, show_train=True):
    """The traces of :func:`learning_curve_figure`, without the figure.

    A dashboard that redraws its curves updates its own figure with them.

    Parameters
    ----------
    curves : dict
        As for :func:`learning_curve_figure`.
    show_train : bool, default=True
        Also the training error (dashed).

    Returns
    -------
    traces : list of plotly.graph_objects.Scatter
        In :func:`learning_curve_figure`'s order, with its uids.
    ticks : ndarray
        The sizes, the size axis's tick values.
    any_sv : bool
        Whether a trace is on the support-vector axis y2.
    """
    if not curves:
        raise ValueError("curves must hold at least one estimator's results, got an empty mapping")
    traces = []
    any_sv = False
    for i, (name, c) in enumerate(curves.items()):
        x = np.asarray(c["sizes"], dtype=np.float64).ravel()
        n = x.size
        color = series_color(i)
        test = _matrix(c["test_error"], n, "test_error", name)
        traces.append(_band(x, test.mean(1), test.std(1), color, f"test_band:{name}", name))
        traces.append(go.Scatter(
            uid=f"test:{name}", name=_("{name}: test error").format(name=name),
            legendgroup=name, x=x, y=test.mean(1), mode="lines+markers",
            line=dict(color=color, width=2.5), customdata=test.std(1),
            hovertemplate="n = %{x}<br>" + _("test error") + " %{y:.1%} ± %{customdata:.1%}"
                          "<extra>" + str(name) + "</extra>"))
        if show_train:
            train = _matrix(c["train_error"], n, "train_error", name)
            traces.append(_band(x, train.mean(1), train.std(1), color, f"train_band:{name}", name))
            traces.append(go.Scatter(
                uid=f"train:{name}", name=_("{name}: training error").format(name=name),
                legendgroup=name, x=x, y=train.mean(1), mode="lines+markers",
                line=dict(color=color, width=1.8, dash="dash"), marker=dict(symbol="circle-open"),
                customdata=train.std(1),
                hovertemplate="n = %{x}<br>" + _("training error")
                              + " %{y:.1%} ± %{customdata:.1%}<extra>" + str(name)
                              + "</extra>"))
        nsv = c.get("n_support")
        if nsv is not None:
            any_sv = True
            nsv = _matrix(nsv, n, "n_support", name)
            traces.append(go.Scatter(
                uid=f"nsv:{name}", name=_("{name}: # support vectors").format(name=name),
                legendgroup=name, x=x, y=nsv.mean(1), yaxis="y2", mode="lines+markers",
                line=dict(color=color, width=1.5, dash="dot"), marker=dict(symbol="x", size=7),
                hovertemplate="n = %{x}<br>%{y:.0f} " + _("support vectors") + "<extra>"
                              + str(name) + "</extra>"))
    ticks = np.unique(np.concatenate([np.asarray(c["sizes"], dtype=float).ravel()
                                      for c in curves.values()]))
    return traces, ticks, any_sv


def learning_curve_figure(curves, title=None, show_train=True, log_x=True):
    """Training and test error against training-set size, with the number of support vectors.

    The mean over repeats is a line, mean ± one standard deviation a band; the number of support
    vectors is on a second y axis.

    Parameters
    ----------
    curves : dict
        ``{estimator label: dict}``; each value has ``'sizes'`` (n_sizes,), ``'train_error'``
        and ``'test_error'`` (n_sizes, n_repeats) error rates in [0, 1], and optionally
        ``'n_support'`` (n_sizes, n_repeats) or None for estimators without support vectors.
    title : str, optional
        Figure title (none by default).
    show_train : bool, default=True
        Also draw the training error (dashed).
    log_x : bool, default=True
        Logarithmic size axis.

    Returns
    -------
    plotly.graph_objects.Figure
        Per estimator, in order: test band, test mean (uid ``'test:<label>'``), then train band and
        mean (``'train:<label>'``) when ``show_train``, then ``'nsv:<label>'`` on axis y2 when it
        has support vectors.
    """
    traces, ticks, any_sv = learning_curve_traces(curves, show_train)
    fig = go.Figure(traces)
    layout = dict(BASE_LAYOUT)
    # many series: the legend goes under the plot, where it hides neither data nor the title
    layout["legend"] = dict(orientation="h", x=0.0, xanchor="left", y=-0.18, yanchor="top")
    layout["margin"] = dict(l=70, r=60, t=50, b=200)   # room for the French legend too
    fig.update_layout(
        **layout, title=title_layout(title), hovermode="x unified",
        xaxis=dict(title=dict(text=_("training-set size n (points)")),
                   type="log" if log_x else "linear", tickmode="array", tickvals=ticks,
                   ticktext=[f"{t:.0f}" for t in ticks]),
        yaxis=dict(title=dict(text=_("error rate")), tickformat=".0%", rangemode="tozero"),
        yaxis2=dict(title=dict(text=_("number of support vectors")), overlaying="y",
                    side="right", rangemode="tozero", showgrid=False, visible=any_sv,
                    tickmode="auto",
                    nticks=6, tickformat=",.0f"),
    )
    return fig


def c_marker(C):
    """Layout shapes and annotations marking the current ``C`` on a C-path figure.

    Parameters
    ----------
    C : float or None
        The value to mark; None marks nothing.

    Returns
    -------
    dict
        ``{'shapes': [...], 'annotations': [...]}`` for ``fig.update_layout``: a dotted vertical
        line at ``C`` and its label, or two empty lists for None (which clears a marker).
    """
    if C is None:
        return dict(shapes=[], annotations=[])
    C = float(C)
    # on a log axis plotly places shapes at the data value but annotations at its log10
    lc = float(np.log10(C))
    return dict(
        shapes=[dict(type="line", xref="x", yref="paper", x0=C, x1=C, y0=0, y1=1,
                     line=dict(color="#444444", width=1.5, dash="dot"))],
        annotations=[dict(x=lc, xref="x", y=1.0, yref="paper", yanchor="bottom",
                          text="C = " + number(C, ".3g"), showarrow=False,
                          font=dict(size=12))])


def c_path_figure(Cs, n_support, train_error, test_error=None, n_bound=None, current_C=None,
                  title=None):
    """Number of support vectors and errors of an SVM along its regularisation path in C.

    Parameters
    ----------
    Cs : array of shape (n_C,)
        Positive values of C (log axis).
    n_support : array of shape (n_C,)
        Number of support vectors of each fit.
    train_error, test_error : array of shape (n_C,)
        Error rates in [0, 1]; ``test_error`` may be None.
    n_bound : array of shape (n_C,), optional
        How many of the support vectors are at bound (alpha = C).
    current_C : float, optional
        Marked by a vertical line.
    title : str, optional
        Figure title (none by default).

    Returns
    -------
    plotly.graph_objects.Figure
        Traces ``train`` and ``test`` (axis y, error rate) then ``nsv`` and ``nbound`` (axis y2),
        one point per C.
    """
    Cs = np.asarray(Cs, dtype=np.float64).ravel()
    if Cs.size == 0 or not np.all(Cs > 0):
        raise ValueError(f"Cs must be positive numbers, got {Cs!r}")
    arrays = {"n_support": n_support, "train_error": train_error, "test_error": test_error,
              "n_bound": n_bound}
    for key, val in arrays.items():
        if val is not None and np.asarray(val).shape != Cs.shape:
            raise ValueError(f"{key} must have one value per C (shape {Cs.shape}), got shape "
                             f"{np.asarray(val).shape}")
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        uid="train", name=_("training error"), x=Cs,
        y=np.asarray(train_error, dtype=np.float64),
        mode="lines+markers", line=dict(color=series_color(0), dash="dash"),
        hovertemplate="C = %{x:.3g}<br>" + _("training error") + " %{y:.1%}<extra></extra>"))
    fig.add_trace(go.Scatter(
        uid="test", name=_("test error"), x=Cs,
        y=(np.full(Cs.shape, np.nan) if test_error is None else np.asarray(test_error, float)),
        mode="lines+markers", line=dict(color=series_color(0), width=2.5),
        visible=test_error is not None,
        hovertemplate="C = %{x:.3g}<br>" + _("test error") + " %{y:.1%}<extra></extra>"))
    fig.add_trace(go.Scatter(
        uid="nsv", name=_("# support vectors"), x=Cs,
        y=np.asarray(n_support, dtype=np.float64),
        yaxis="y2", mode="lines+markers", line=dict(color=series_color(1)),
        marker=dict(symbol="x"),
        hovertemplate="C = %{x:.3g}<br>%{y:.0f} " + _("support vectors") + "<extra></extra>"))
    fig.add_trace(go.Scatter(
        uid="nbound", name=_("# at bound (α = C)"), x=Cs,
        y=(np.full(Cs.shape, np.nan) if n_bound is None else np.asarray(n_bound, float)),
        yaxis="y2", mode="lines+markers", line=dict(color=series_color(1), dash="dot"),
        marker=dict(symbol="square-open"), visible=n_bound is not None,
        hovertemplate="C = %{x:.3g}<br>%{y:.0f} " + _("at bound") + "<extra></extra>"))
    fig.update_layout(
        **BASE_LAYOUT, title=title_layout(title), hovermode="x unified",
        xaxis=dict(title=dict(text=_("C (soft-margin penalty, log scale)")), type="log"),
        yaxis=dict(title=dict(text=_("error rate")), tickformat=".0%", rangemode="tozero"),
        yaxis2=dict(title=dict(text=_("number of support vectors")), overlaying="y",
                    side="right",
                    rangemode="tozero", showgrid=False),
    )
    fig.update_layout(margin=dict(l=80, r=65, b=70), **c_marker(current_C))
    return fig


#: Below this training time (s) at the largest size, fixed costs (validation, Python calls) hide
#: how the work grows with n, and no exponent is reported.
MIN_TIMED_S = 0.02


def time_exponent(sizes, times, min_time=MIN_TIMED_S):
    """Empirical exponent of the training time: the slope of log(time) against log(n).

    Parameters
    ----------
    sizes : array-like of shape (n_sizes,)
        Training-set sizes n.
    times : array-like of shape (n_sizes,) or (n_sizes, n_repeats)
        Training times in seconds (averaged over repeats, NaNs ignored).
    min_time : float, default=MIN_TIMED_S
        Below this largest mean time (seconds) fixed costs, not the algorithm, set the slope,
        and no exponent is returned.

    Returns
    -------
    float
        The least-squares slope (1 for linear growth) over the sizes with a positive finite
        time; NaN with fewer than two such sizes or when the largest mean time is below
        ``min_time``.
    """
    n = np.asarray(sizes, dtype=np.float64).ravel()
    t = np.asarray(times, dtype=np.float64)
    if t.ndim == 2:
        t = np.nanmean(t, axis=1)
    ok = np.isfinite(t) & (t > 0) & (n > 0)
    if ok.sum() < 2 or np.max(t[ok]) < min_time:
        return float("nan")
    return float(np.polyfit(np.log(n[ok]), np.log(t[ok]), 1)[0])


def fit_time_traces(curves):
    """The traces of :func:`fit_time_figure`, without the figure.

    Parameters
    ----------
    curves : dict
        As for :func:`fit_time_figure`.

    Returns
    -------
    list of plotly.graph_objects.Scatter
        One per estimator, with :func:`fit_time_figure`'s uids.
    """
    if not curves:
        raise ValueError("curves must hold at least one estimator's results, got an empty mapping")
    traces = []
    for i, (name, c) in enumerate(curves.items()):
        x = np.asarray(c["sizes"], dtype=np.float64).ravel()
        t = _matrix(c["fit_time"], x.size, "fit_time", name)
        mean = np.nanmean(t, axis=1)
        slope = time_exponent(x, t)
        label = (_("{name}: time ∝ n^{slope}").format(name=name, slope=number(slope, ".2f"))
                 if np.isfinite(slope)
                 else _("{name} (too fast here for an exponent)").format(name=name))
        traces.append(go.Scatter(uid=f"time:{name}", x=x, y=mean, mode="lines+markers",
                                 name=label, line=dict(color=series_color(i), width=2)))
    return traces


def fit_time_figure(curves, title=None):
    """Training time against training-set size on log-log axes, one line per estimator.

    Parameters
    ----------
    curves : dict
        ``{estimator label: dict}`` as for :func:`learning_curve_figure`, each value with
        ``'sizes'`` and a ``'fit_time'`` array of shape (n_sizes, n_repeats) in seconds.
    title : str, optional
        Figure title; by default one that says the slope is the exponent.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per estimator (uid ``'time:<label>'``), the mean time over repeats; its
        legend entry gives the exponent of :func:`time_exponent`.
    """
    fig = go.Figure(fit_time_traces(curves))
    fig.update_layout(**BASE_LAYOUT)
    fig.update_layout(xaxis=dict(title=_("training points n"), type="log"),
                      yaxis=dict(title=_("training time (s)"), type="log"),
                      legend=dict(orientation="h", x=0, y=-0.18, yanchor="top"),
                      margin=dict(l=80, b=140),
                      title=title_layout(title or _("Training time against n (log-log: slope = "
                                                    "exponent)")))
    return fig
