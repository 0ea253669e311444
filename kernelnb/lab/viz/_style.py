"""Colours and shared layout of kernelnb's charts (one place, so every figure agrees).

The two classes use the ends of ColorBrewer's diverging RdBu scale (colour-blind safe), the same
scale the decision surface uses, so that a point's colour matches the side of the boundary that
predicts it.  Series (losses, estimators, bounds) use a palette told apart by students with
protanopia, deuteranopia or tritanopia (five of Okabe & Ito's colour-universal-design colours, with
a dark red): every pair stays at least 10 apart in CAM02-UCS under the simulated deficiencies of
Machado et al. (2009), and each has 3:1 contrast on white (WCAG 2.2, 1.4.11); a series beyond the
sixth repeats a colour with another line style (never colour alone, 1.4.1).  The tests check it
(``tests/lab/app/test_accessibility.py``).
"""

#: Marker colours of the negative (first) and positive (second) class.
CLASS_COLORS = ("#2166ac", "#b2182b")
#: Marker symbols of the two classes (shape as well as colour, for grey-scale prints).
CLASS_SYMBOLS = ("circle", "diamond")
#: Diverging scale of the decision function, negative blue, positive red, white at 0.
SURFACE_SCALE = [[0.0, "#4393c3"], [0.25, "#92c5de"], [0.5, "#f7f7f7"],
                 [0.75, "#f4a582"], [1.0, "#d6604d"]]
#: Qualitative palette for series: blue, vermillion, bluish green, reddish purple, black, dark red.
SERIES_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000", "#a00000")
#: Line dash of the repeated series (second estimator of the same colour, derivatives, ...).
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")

#: Layout shared by every figure: white template, margins, legend above the plot area.
#:
#: A figure's margins must hold what plotly draws there (tick labels and axis titles, a legend
#: beside the plot, a colour bar): where they do not, plotly widens them and draws the whole
#: figure a second time. So each figure
#: declares margins wide enough for its default settings at 1280 and 1920 px wide windows, with a
#: few pixels to spare for another machine's fonts; the browser tests check that no chart of a
#: dashboard is widened at either size.
BASE_LAYOUT = dict(
    template="plotly_white",
    margin=dict(l=60, r=20, t=95, b=60),
    legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0.0,
                bgcolor="rgba(255,255,255,0.7)"),
    font=dict(size=13),
    colorway=list(SERIES_COLORS),
)

#: Right margin of a figure with a vertical colour bar beside its plot area (plotly places the
#: bar at 1.02 of the plot's width: 89 px of margin at 930 px wide, 102 px at 1570 px).
COLORBAR_MARGIN_R = 110


def series_color(i):
    """Colour of the ``i``-th series."""
    return SERIES_COLORS[i % len(SERIES_COLORS)]


def title_layout(text):
    """Layout ``title``: top left of the figure, above the legend row (empty text: no title)."""
    return dict(text=text or "", x=0.01, xanchor="left", y=0.985, yref="container",
                yanchor="top", font=dict(size=15))
