"""What the dashboards say in words (issue 52): chart names and descriptions from the dashboard's
state, the status line after a change, the keyboard's way to a click, the table view, and the
palette told apart under simulated colour-vision deficiencies.

The browser side (axe, the accessibility tree, a keyboard-only session) is in
``tests/browser/test_accessibility.py`` and ``tests/browser/_a11y.py``.
"""
from __future__ import annotations

import html
import importlib
import itertools
import math
import re

import numpy as np
import pytest

from kernelnb.lab.app import SVMPlayground
from kernelnb.lab.server.gallery import DASHBOARDS
from kernelnb.lab.viz import _style


READOUT_CELL = re.compile(r'<td class="num">(.*?)</td>')


def _readout_values(app):
    """The numbers the readout's main table shows (the page's ``table.kernelnb-readout``)."""
    main = app.stats.value.split('<table class="kernelnb-readout">', 1)[1].split("</table>", 1)[0]
    return [html.unescape(v) for v in READOUT_CELL.findall(main)]


@pytest.fixture
def app():
    return SVMPlayground(grid=12, n_samples=60, lang="en")


def test_the_main_chart_is_named_by_its_title_and_described_by_its_numbers(app):
    (name, desc), (path_name, path_desc) = app.last_description
    assert name == app.fig.layout.title.text == "moons: SVM, RBF, σ = 0.5, C = 1"
    values = _readout_values(app)
    assert values and all(v in desc for v in values), (values, desc)
    n0 = sum(1 for t in app.fig.data if t.meta == "class0" for _ in t.x)
    assert f"class 0 ({n0})" in desc
    # the regions of the boundary: counted on the chart's own grid of f
    # (the heat map's z, rows along y)
    z = np.asarray(app.fig.data[0].z, dtype=float)
    assert z.shape == (12, 12)
    from scipy import ndimage
    assert (f"class 1 {ndimage.label(z > 0)[1]} region(s) of the plane and class 0 "
            f"{ndimage.label(z <= 0)[1]}") in desc
    assert path_name == "C path" and path_desc
    # the texts the page ties to each chart: its key on the figure, the ids in the hidden HTML
    key = app._a11y_key
    assert f"kernelnb-chart-{key}-0" in app.fig._dom_classes
    assert f'id="kernelnb-chart-name-{key}-0"' in app.chart_texts.value
    assert f'id="kernelnb-chart-desc-{key}-1"' in app.chart_texts.value


def test_the_status_line_says_what_changed_then_the_numbers(app):
    app.update(C=10.0)
    text = html.unescape(re.sub(r"<[^>]+>", "", app.status_line.value))
    assert text.startswith("C = 10: "), text
    assert all(v in text for v in _readout_values(app))
    app.update(kernel="linear", show_margins=False)
    text = html.unescape(re.sub(r"<[^>]+>", "", app.status_line.value))
    assert text.startswith("kernel = linear, show f = ±1 lines: off: "), text


def test_the_texts_speak_french():
    app = SVMPlayground(grid=12, n_samples=60, lang="fr")
    name, desc = app.last_description[0]
    assert name.startswith("lunes : SVM") and "classe 0 (30)" in desc and "," in desc
    app.update(C=10.0)
    assert html.unescape(app.status_line.value).startswith("<p>C = 10 : ")
    assert app.table_button.description == "tableau des données des graphiques"


def test_a_click_has_a_keyboard_way(app):
    assert app.point_button.description == "add a point of the chosen class at (x₁, x₂)"
    app.controls["click_class"].value = 1
    app.point_x.value, app.point_y.value = 0.4, 0.9
    app.point_button.click()
    assert app.last_stats["n_added"] == 1 and app._added[-1] == [0.4, 0.9, 1] or \
        list(app._added[-1]) == [0.4, 0.9, 1]
    out = app.click_at(math.nan, 0.0)
    assert "click ignored" in out["error"] and app.last_stats["n_added"] == 1


def test_the_table_view_lists_what_the_chart_draws(app):
    assert app.table_view.value == ""
    app.table_button.value = True
    table = app.table_view.value
    for trace in app.fig.data:
        if trace.type == "scatter" and trace.name and trace.x is not None and len(trace.x):
            n = len(trace.x)
            assert f"<caption>{html.escape(trace.name)} ({n} row{'s' if n != 1 else ''})" in table
    first = app.fig.data[3]
    assert f"<td>{float(first.x[0]):.4g}</td>" in table
    app.update(C=100.0)            # kept current while shown
    assert app.table_view.value != table or app.fig.data[5].x is None
    app.table_button.value = False
    assert app.table_view.value == ""


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("entry", DASHBOARDS, ids=[d.name for d in DASHBOARDS])
def test_every_chart_of_every_dashboard_is_named_and_described(entry, lang):
    cls = getattr(importlib.import_module(f"kernelnb.lab.app.{entry.module}"), entry.class_name)
    app = cls(lang=lang, **cls.LESSON_APP)
    charts = app._charts()
    assert len(app.last_description) == len(charts) >= 1
    for (name, desc), fig in zip(app.last_description, charts):
        assert name and desc, (entry.name, name, desc)
        assert any(f"kernelnb-chart-{app._a11y_key}-" in c for c in fig._dom_classes)
    values = _readout_values(app)
    assert all(v in app.last_description[0][1] for v in values), (values, app.last_description)
    assert app.status_line.value
    if lang == "en":
        for fig in charts:
            close = _alike_entries(fig)
            assert not close, f"{entry.name}: legend entries told apart by colour alone, too " \
                              f"close under a colour-vision deficiency: {close[:4]}"


# -- colour ------------------------------------------------------------------------------------
#: The deficiencies simulated (Machado, Oliveira & Fernandes 2009, at full severity, as
#: colorspacious implements them).
DEFICIENCIES = ("protanomaly", "deuteranomaly", "tritanomaly")
#: Colour differences in CAM02-UCS (ΔE' about 1 is a just-noticeable difference): the two
#: classes, which the surfaces and markers carry everywhere, must stay far apart; the series'
#: colours clearly apart.
CLASS_FLOOR = 20.0
SERIES_FLOOR = 10.0


def _rgb(hex_color):
    h = hex_color.lstrip("#")
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)]) / 255


def _delta_e(a, b, deficiency=None):
    # colorspacious is a test tool (the test extra); the jobs that install the lab alone skip
    # only the colour checks
    colorspacious = pytest.importorskip("colorspacious")
    a, b = _rgb(a), _rgb(b)
    if deficiency:
        space = {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}
        a = np.clip(colorspacious.cspace_convert(a, space, "sRGB1"), 0, 1)
        b = np.clip(colorspacious.cspace_convert(b, space, "sRGB1"), 0, 1)
    ua, ub = (colorspacious.cspace_convert(c, "sRGB1", "CAM02-UCS") for c in (a, b))
    return float(np.linalg.norm(ua - ub))


def _hex(color):
    """'#rrggbb' of a colour plotly was given as '#rgb', '#rrggbb' or 'rgb(a)(...)'; else None."""
    if not isinstance(color, str):
        return None
    color = color.strip()
    if re.fullmatch(r"#[0-9a-fA-F]{6}", color):
        return color
    if re.fullmatch(r"#[0-9a-fA-F]{3}", color):
        return "#" + "".join(c * 2 for c in color[1:])
    m = re.fullmatch(r"rgba?\(([^)]*)\)", color)
    if m:
        parts = [float(v) for v in m.group(1).split(",")]
        if len(parts) == 4 and parts[3] == 0:
            return None                       # transparent: the line colour speaks
        return "#%02x%02x%02x" % tuple(int(v) for v in parts[:3])
    return None


def _style_of(trace):
    """(colour, marker symbol, line dash) of a legend entry, as the chart draws it."""
    marker, line = getattr(trace, "marker", None), getattr(trace, "line", None)
    mode = getattr(trace, "mode", None) or ""
    color = None
    for candidate in (marker.color if marker is not None else None,
                      marker.line.color if marker is not None and marker.line is not None
                      else None,
                      line.color if line is not None else None):
        color = _hex(candidate)
        if color:
            break
    symbol = marker.symbol if marker is not None and "markers" in mode else None
    dash = line.dash if line is not None and ("lines" in mode or trace.type != "scatter") \
        else None
    return color, symbol, dash


def _alike_entries(fig):
    """Pairs of legend entries drawn in the same style (marker symbol, line dash) whose colours
    come closer than :data:`SERIES_FLOOR` under a simulated deficiency (or in full colour)."""
    entries = [(t.name, *_style_of(t)) for t in fig.data
               if t.name and t.showlegend is not False and t.type not in ("heatmap", "contour")]
    close = []
    for (n1, c1, s1, d1), (n2, c2, s2, d2) in itertools.combinations(entries, 2):
        if not (c1 and c2) or (s1, d1) != (s2, d2) or c1.lower() == c2.lower():
            continue
        worst = min(_delta_e(c1, c2, d) for d in (None, *DEFICIENCIES))
        if worst < SERIES_FLOOR:
            close.append((n1, c1, n2, c2, round(worst, 1)))
    return close


def _contrast_on_white(hex_color):
    c = _rgb(hex_color)
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return 1.05 / (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] + 0.05)


@pytest.mark.parametrize("deficiency", (None, *DEFICIENCIES))
def test_the_classes_stay_apart_under_colour_vision_deficiencies(deficiency):
    a, b = _style.CLASS_COLORS
    assert _delta_e(a, b, deficiency) >= CLASS_FLOOR
    assert len(set(_style.CLASS_SYMBOLS)) == 2          # and never colour alone


@pytest.mark.parametrize("deficiency", (None, *DEFICIENCIES))
def test_the_series_palette_stays_apart_under_colour_vision_deficiencies(deficiency):
    for a, b in itertools.combinations(_style.SERIES_COLORS, 2):
        assert _delta_e(a, b, deficiency) >= SERIES_FLOOR, (a, b, deficiency)


def test_every_mark_colour_has_3_to_1_against_white():
    for color in (*_style.CLASS_COLORS, *_style.SERIES_COLORS):
        assert _contrast_on_white(color) >= 3.0, color


def test_the_boundary_and_the_margins_are_told_apart_by_their_line_style(app):
    boundary, margins = (t for t in app.fig.data if t.type == "contour"
                         and t.contours.coloring in ("lines", "none"))
    assert boundary.line.dash != margins.line.dash
