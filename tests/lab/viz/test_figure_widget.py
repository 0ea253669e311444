"""kernelnb's FigureWidget sends 2-D numeric arrays as binary rows (kernelnb.lab.viz._figure_widget).

plotly's own serializer sends a 1-D numeric array as a binary buffer and anything else as JSON;
the widget's front end turns every ``{buffer, dtype, shape}`` into a typed array wherever it sits,
so a heat map's ``z`` arrives as an array of typed-array rows, which plotly.js draws (the browser
tests draw every dashboard that way)."""
import numpy as np
import plotly.graph_objects as go
import pytest
from ipywidgets.widgets.widget import _remove_buffers

from kernelnb.lab.viz._figure_widget import FigureWidget


def _sent(state):
    """The state as the comm sends it: JSON-able parts, buffer paths, buffers."""
    return _remove_buffers(state)


def test_a_2d_grid_goes_as_one_binary_buffer_per_row():
    Z = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    fig = FigureWidget(go.Figure(go.Heatmap(x=np.arange(4.0), y=np.arange(3.0), z=Z)))
    _, paths, buffers = _sent(fig.get_state())
    rows = {p[3]: b for p, b in zip(paths, buffers) if p[:3] == ["_widget_data", 0, "z"]}
    assert sorted(rows) == [0, 1, 2]
    for i, b in rows.items():
        np.testing.assert_array_equal(np.frombuffer(b, dtype=np.float32), Z[i])
    # the grid vectors stay one buffer each, as plotly sends them
    assert ["_widget_data", 0, "x", "buffer"] in paths


def test_an_update_of_z_sends_rows_and_the_kernel_keeps_the_2d_array():
    fig = FigureWidget(go.Figure(go.Contour(z=np.zeros((2, 2), np.float32))))
    sent = []                 # the restyle message as the comm would send it, when it is set
    fig.observe(lambda change: change["new"] is not None and sent.append(
        _sent(fig.get_state("_py2js_restyle"))), names="_py2js_restyle")
    Z = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    fig.data[0].z = Z
    assert fig.data[0].z.shape == (2, 3) and fig.data[0].z.dtype == np.float32
    (state, paths, buffers), = sent
    assert paths == [["_py2js_restyle", "restyle_data", "z", 0, i, "buffer"] for i in (0, 1)]
    assert [bytes(b) for b in buffers] == [Z[0].tobytes(), Z[1].tobytes()]


@pytest.mark.parametrize("Z", [np.arange(6, dtype=np.int64).reshape(2, 3),
                               np.array([["a", "b"], ["c", "d"]], dtype=object)])
def test_what_plotly_sends_as_json_stays_json(Z):
    """int64 has no typed array in plotly's front end, text none at all: plotly's lists."""
    fig = FigureWidget(go.Figure(go.Heatmap(z=Z)))
    state, paths, _ = _sent(fig.get_state())
    assert not [p for p in paths if "z" in p]
    assert state["_widget_data"][0]["z"] == Z.tolist()


def test_a_figure_inside_a_box_sends_its_traces_without_being_displayed():
    """The dashboards put their figures in ipywidgets boxes, which never display them one by one:
    the figure's own state must carry its traces and layout (plotly 6.0 filled them only when the
    figure itself was displayed, so a figure in a box was drawn empty; hence plotly>=6.1)."""
    import ipywidgets as widgets
    fig = FigureWidget(go.Figure(go.Scatter(x=[0.0, 1.0], y=[1.0, 2.0], name="points"),
                                 layout={"title": {"text": "t"}}))
    widgets.VBox([fig])
    state, _, _ = _sent(fig.get_state())
    assert [t["name"] for t in state["_widget_data"]] == ["points"]
    assert state["_widget_layout"]["title"]["text"] == "t"


def test_a_new_view_starts_from_the_figure_as_it_is_now_and_an_edit_is_sent_once():
    """An edit goes to the views that exist as a restyle message, and the traces and layout a
    view made later starts from (``_widget_data``, ``_widget_layout``: a page connecting asks
    for the whole state) are the figure's at that moment: no trait is assigned on an edit, which
    would send every trace a second time."""
    fig = FigureWidget(go.Figure(go.Scatter(x=[0.0, 1.0], y=[1.0, 2.0])))
    assigned = []
    fig.observe(lambda change: assigned.append(change["name"]),
                names=["_widget_data", "_widget_layout"])
    restyles = []
    fig.observe(lambda change: change["new"] is not None and restyles.append(change["new"]),
                names="_py2js_restyle")
    fig.data[0].y = np.array([5.0, 6.0])
    fig.layout.title.text = "now"
    assert assigned == [] and len(restyles) == 1
    state, paths, buffers = _sent(fig.get_state())
    (y,) = [b for p, b in zip(paths, buffers) if p == ["_widget_data", 0, "y", "buffer"]]
    np.testing.assert_array_equal(np.frombuffer(y, dtype=np.float64), [5.0, 6.0])
    assert state["_widget_layout"]["title"]["text"] == "now"
    # one trait asked for alone, as a list, or the default state: the same
    assert _sent(fig.get_state(["_widget_layout"]))[0]["_widget_layout"]["title"]["text"] == "now"
    assert fig.get_state("_view_count") == {"_view_count": fig._view_count}


def test_a_dashboard_update_sends_each_trace_once():
    """Moving a control restyles the figures; the state a new page starts from is not assigned
    (kernelnb's figures read it when asked, Dashboard.sync_figures skips them)."""
    from kernelnb.lab.app import SVMPlayground

    app = SVMPlayground()
    assigned = []
    for fig in app.figures:
        fig.observe(lambda change: assigned.append(change["name"]),
                    names=["_widget_data", "_widget_layout"])
    app.update(C=10.0)
    assert assigned == []
    z = _sent(app.fig.get_state())[0]["_widget_data"]
    assert any(t.get("type") == "heatmap" for t in z)


class _Recorded:
    """The messages a widget sends through its comm (outside a kernel, ipywidgets' dummy comm,
    whose ``send`` is replaced here)."""

    def __init__(self, widget):
        self.sent = []
        widget.comm.send = lambda data=None, metadata=None, buffers=None: self.sent.append(
            (data, buffers or []))


def _recording(fig):
    return _Recorded(fig)


def test_tick_labels_are_drawn_as_placed_on_every_cartesian_axis_without_an_edit():
    """ticklabeloverflow 'allow' on the first axes and on every axis the layout defines (a
    secondary y), not where the figure says otherwise, not on a colour bar; written in the
    figure's properties (what a view starts from), no edit sent."""
    from plotly.subplots import make_subplots
    from kernelnb.lab.viz._figure_widget import TICKLABEL_OVERFLOW
    f = make_subplots(rows=1, cols=2, specs=[[{}, {"secondary_y": True}]])
    f.add_scatter(x=[1, 2], y=[1, 2], row=1, col=1)
    f.add_scatter(x=[1, 2], y=[3, 4], row=1, col=2, secondary_y=True)
    f.add_heatmap(z=[[1, 2], [3, 4]])
    f.update_layout(xaxis=dict(ticklabeloverflow="hide past domain"))
    fig = FigureWidget(f)
    assert TICKLABEL_OVERFLOW == "allow"
    axes = {k: fig.layout[k].ticklabeloverflow for k in ("xaxis", "yaxis", "xaxis2", "yaxis2",
                                                          "yaxis3")}
    assert axes == {"xaxis": "hide past domain", **{k: "allow" for k in axes if k != "xaxis"}}
    assert fig.data[2].colorbar.ticklabeloverflow is None
    assert fig._last_layout_edit_id == 0 and fig._last_trace_edit_id == 0
    start = fig.get_state()["_widget_layout"]
    assert start["yaxis3"]["ticklabeloverflow"] == "allow" and start["yaxis3"]["overlaying"] == "y2"
    # the figure given: as it was
    assert "ticklabeloverflow" not in f.layout.yaxis.to_plotly_json()
    assert FigureWidget().layout.yaxis.ticklabeloverflow == "allow"     # traces added later


def test_an_edit_is_one_message_with_its_edit_ids_and_no_reset():
    """plotly sets the two edit ids, the edit, then the edit back to None: kernelnb's figure
    sends the three together, once, and not the reset; the kernel's own state is plotly's."""
    fig = FigureWidget(go.Figure(go.Scatter(x=[0.0, 1.0], y=[1.0, 2.0])))
    rec = _recording(fig)
    with fig.batch_update():
        fig.data[0].y = np.array([5.0, 6.0])
        fig.layout.title.text = "now"
    (data, buffers), = rec.sent
    assert data["method"] == "update"
    state = data["state"]
    assert sorted(state) == ["_last_layout_edit_id", "_last_trace_edit_id", "_py2js_update"]
    assert state["_last_trace_edit_id"] == state["_py2js_update"]["trace_edit_id"] == 1
    assert state["_last_layout_edit_id"] == state["_py2js_update"]["layout_edit_id"] == 1
    assert state["_py2js_update"]["layout_data"] == {"title.text": "now"}
    # the y values travel as a buffer, at the path the message names
    assert data["buffer_paths"] == [["_py2js_update", "style_data", "y", 0, "buffer"]]
    np.testing.assert_array_equal(np.frombuffer(buffers[0], dtype=np.float64), [5.0, 6.0])
    assert fig._py2js_update is None and fig._last_trace_edit_id == 1
    # a restyle alone (an edit outside batch_update): one message too
    rec.sent.clear()
    fig.data[0].name = "points"
    (data, _), = rec.sent
    assert sorted(data["state"]) == ["_last_layout_edit_id", "_last_trace_edit_id",
                                     "_py2js_restyle"]
    assert data["state"]["_py2js_restyle"]["restyle_data"] == {"name": ["points"]}


def test_what_the_view_sends_is_neither_echoed_nor_reset():
    """The view's trace deltas reach plotly's handler (the edit is no longer in process), and
    nothing goes back: no echo of them, no reset to None, no props to remove."""
    fig = FigureWidget(go.Figure(go.Scatter(x=[0.0, 1.0], y=[1.0, 2.0])))
    rec = _recording(fig)
    fig.data[0].y = np.array([5.0, 6.0])
    assert fig._trace_edit_in_process
    rec.sent.clear()
    fig.set_state({"_js2py_traceDeltas": {"trace_deltas": [{"uid": fig.data[0].uid}],
                                          "trace_edit_id": fig._last_trace_edit_id}})
    assert not fig._trace_edit_in_process and fig._js2py_traceDeltas is None
    assert rec.sent == []


def test_a_legend_click_from_the_view_is_applied_and_sent_once(monkeypatch):
    """A restyle made in the page (a legend click hides a trace) is applied in the kernel and
    sent back as one edit naming that view, which plotly's views skip; no echo of the click."""
    fig = FigureWidget(go.Figure([go.Scatter(y=[1.0, 2.0]), go.Scatter(y=[2.0, 1.0])]))
    rec = _recording(fig)
    fig.set_state({"_js2py_restyle": {"style_data": {"visible": ["legendonly"]},
                                      "style_traces": [1], "source_view_id": "view-1"}})
    assert fig.data[1].visible == "legendonly" and fig.data[0].visible is None
    (data, _), = rec.sent
    assert data["state"]["_py2js_restyle"]["source_view_id"] == "view-1"
    assert data["state"]["_py2js_restyle"]["restyle_traces"] == [1]


def test_a_plotly_figure_widget_sends_as_plotly_does():
    """plotly's own FigureWidget (a dashboard of one's own may use it) is untouched: four
    messages for the same edit, the reset included."""
    fig = go.FigureWidget(go.Figure(go.Scatter(x=[0.0, 1.0], y=[1.0, 2.0])))
    rec = _recording(fig)
    fig.data[0].name = "points"
    assert [sorted(d["state"]) for d, _ in rec.sent] == [
        ["_last_layout_edit_id"], ["_last_trace_edit_id"], ["_py2js_restyle"],
        ["_py2js_restyle"]]


def test_an_unchanged_array_holding_nan_is_not_sent_again():
    """plotly compares a new value with np.array_equal, for which NaN differs from NaN: a line
    with gaps (viz.level_lines) set again unchanged would be sent and redrawn. kernelnb's figure
    drops such an edit, and sends every real change (a new value, a value set back after
    another, a value the traces hold no more after a direct restyle or a legend click)."""
    line = np.array([0.0, 1.0, np.nan, 2.0, 3.0])
    fig = FigureWidget(go.Figure(go.Scatter(x=[0.0], y=[0.0], mode="lines")))
    rec = _recording(fig)

    def edits():
        out = [d["state"].get("_py2js_update") or d["state"].get("_py2js_restyle")
               for d, _ in rec.sent]
        rec.sent.clear()
        return [sorted((e.get("style_data") or e.get("restyle_data")).keys()) for e in out]

    fig.data[0].x = line
    assert edits() == [["x"]]
    fig.data[0].x = line.copy()                   # equal, NaN where NaN: nothing sent
    with fig.batch_update():
        fig.data[0].update(x=line.copy(), y=np.array([1.0, 2.0, np.nan, 3.0, 4.0]))
    assert edits() == [["y"]]
    np.testing.assert_array_equal(fig.data[0].x, line)
    changed = line.copy()
    changed[0] = 0.5
    fig.data[0].x = changed
    assert edits() == [["x"]]
    fig.data[0].x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])      # no NaN, then the line again
    fig.data[0].x = changed
    assert edits() == [["x"], ["x"]]
    fig.plotly_restyle({"x": [[9.0, 9.0]]}, 0)             # the trace holds another value
    rec.sent.clear()
    fig.data[0].x = changed
    assert edits() == [["x"]]
    np.testing.assert_array_equal(fig.data[0].x, changed)
    # a view's restyle (a legend click, another property) forgets too: the array is sent
    fig._handler_js2py_restyle({"new": {"style_data": {"visible": ["legendonly"]},
                                        "style_traces": [0], "source_view_id": None}})
    fig.plotly_update(restyle_data={"x": [[7.0]]}, trace_indexes=[0])
    rec.sent.clear()
    fig.data[0].x = changed
    assert edits() == [["x"]]


def test_the_arrays_remembered_are_those_of_the_figures_traces():
    """Traces replaced (a learning curve's series changed) take their arrays with them: what
    the figure remembers stays within a few per trace it holds."""
    fig = FigureWidget(go.Figure(go.Scatter(x=[0.0], y=[0.0])))
    for i in range(200):
        fig.data = []
        fig.add_scatter(x=np.array([float(i), np.nan, 1.0]), y=np.array([0.0, np.nan, 1.0]))
        fig.data[0].x = np.array([float(i), np.nan, 2.0])
    sent = fig.__dict__["_kb_sent_nan"]
    assert 1 <= len(sent) <= 4 * len(fig.data) + 16
    assert (fig.data[0].uid, "x") in sent


def test_a_plotly_figure_widget_still_sends_an_unchanged_array_holding_nan():
    """The figure kernelnb replaces, as it is: what the test above guards against."""
    line = np.array([0.0, np.nan, 1.0])
    fig = go.FigureWidget(go.Figure(go.Scatter(x=[0.0], y=[0.0])))
    rec = _recording(fig)
    fig.data[0].x = line
    n = len(rec.sent)
    fig.data[0].x = line.copy()
    assert len(rec.sent) > n


def test_moving_kmp_n_sends_nothing_to_the_unchanged_svm_chart():
    """The KMP playground's SVM plane does not depend on N: its lines (gaps as NaN) are drawn
    again unchanged at each step of N, and nothing of it is sent; the KMP plane is."""
    from kernelnb.lab.app import KMPPlayground

    app = KMPPlayground()
    kmp, svm = _recording(app.fig), _recording(app.svm_fig)
    for n in (11, 12, 13):
        app.update(n_basis=n)
    assert len(kmp.sent) == 3 and svm.sent == []
    app.update(C=3.0)                                  # the SVM changes: its chart is sent
    assert len(svm.sent) == 1
