"""A dashboard's settings in its URL (kernelnb.lab.app._urlstate, Dashboard.apply_query).

Every control of every dashboard can be written into a query string and read back to the same
value; values a control cannot take are refused with the reason, by the same limits that check a
slider value sent by a page; a kernel Voila starts for a request draws its first picture at the
request's setting.
"""
from __future__ import annotations

import math

import pytest

from kernelnb.lab.server import gallery
from kernelnb.lab.app._lessons import lesson_app
from kernelnb.lab.app._urlstate import (MAX_QUERY, Refusal, decode_value, encode_value,
                                        parse_query, query_string, query_text)

CLASSES = [getattr(__import__(f"kernelnb.lab.app.{e.module}", fromlist=[e.class_name]),
                   e.class_name) for e in gallery.DASHBOARDS if e.class_name]


@pytest.fixture(scope="module")
def svm():
    from kernelnb.lab.app import SVMPlayground
    return SVMPlayground(grid=10)


def _other_value(app, name):
    """A value of control ``name`` other than its default, inside its declared limits."""
    lim, default = app._limits[name], app.defaults[name]
    if lim.kind == "range":
        for value in (lim.hi, lim.lo, (lim.lo + lim.hi) / 2):
            if math.isfinite(value):
                value = int(value) if lim.integer else float(value)
                if value != default:
                    return value
        return None
    if lim.kind == "options":
        return next((o for o in lim.options if o != default), None)
    if lim.kind == "multi":
        others = tuple(o for o in lim.options if o not in tuple(default))[:2]
        return others or None
    if lim.kind == "bool":
        return not default
    return None


@pytest.mark.parametrize("cls", CLASSES, ids=[c.__name__ for c in CLASSES])
def test_every_control_goes_through_the_url_and_back(cls):
    app = lesson_app(cls)
    assert query_string(app, app.defaults) == ""   # at the defaults the URL says nothing
    checked = 0
    for name in app.controls:
        value = _other_value(app, name)
        if value is None:
            continue
        query = query_string(app, {**app.defaults, name: value})
        assert query.startswith(f"{name}="), query
        params, refused = parse_query(app, "?" + query)
        assert not refused, (name, query, refused)
        got = params[name]
        if isinstance(value, float):
            assert got == pytest.approx(value, rel=1e-5), (name, query)
            assert app._limits[name].lo <= got <= app._limits[name].hi
        else:
            assert got == value and type(got) is type(value), (name, query, got)
        checked += 1
    assert checked >= len(app.controls) - 1, f"{cls.__name__}: {checked} controls checked"


@pytest.mark.parametrize("query, key, reason", [
    ("C=abc", "C", "not a number"),
    ("C=nan", "C", "not a finite number"),
    ("C=inf", "C", "not a finite number"),
    ("C=1e400", "C", "not a finite number"),
    ("C=1e9", "C", "outside 0.001"),
    ("n_samples=50.5", "n_samples", "not a whole number"),
    ("kernel=sigmoid", "kernel", "not one of rbf, linear, poly"),
    ("show_margins=maybe", "show_margins", "not true or false"),
    ("gamma=2", "gamma", "no such setting; the settings are dataset"),
])
def test_bad_values_are_refused_with_the_reason(svm, query, key, reason):
    params, refused = parse_query(svm, query)
    assert key not in params
    assert len(refused) == 1 and isinstance(refused[0], Refusal)
    assert refused[0][0] == key and reason in refused[0][2], refused
    assert str(refused[0]).startswith(f"{key}=")


def test_reserved_keys_and_odd_queries(svm):
    assert parse_query(svm, "?token=abc&lang=fr&C=10") == ({"C": 10.0}, [])
    assert parse_query(svm, "") == ({}, [])
    assert parse_query(svm, "?") == ({}, [])
    params, refused = parse_query(svm, "C=" + "1" * (MAX_QUERY + 10))
    assert params == {} and "longer than" in refused[0][2]
    params, refused = parse_query(svm, None)
    assert params == {} and refused
    # case-insensitive options and booleans, numbers in any form
    assert parse_query(svm, "kernel=RBF&show_margins=OFF&C=1e2") == (
        {"kernel": "rbf", "C": 100.0, "show_margins": False}, [])
    assert query_text("?C=1&C=2", "C") == "2" and query_text("C=1", "sigma") == ""


def test_encode_decode_values():
    assert encode_value(True) == "true" and encode_value(1000.0) == "1000"
    assert encode_value(0.2) == "0.2" and encode_value(("a", "b")) == "a,b"
    assert encode_value(1 / 3) == "0.333333"


def test_an_end_of_a_log_slider_written_in_6_digits_is_that_end(svm):
    top = svm._limits["sigma"].hi                        # 10 ** 1.5
    assert encode_value(top) == "31.6228" and 31.6228 > top
    assert parse_query(svm, "sigma=31.6228") == ({"sigma": top}, [])
    params, refused = parse_query(svm, "sigma=31.63")
    assert not params and "outside" in refused[0][2]


def test_apply_query_applies_what_passes_and_names_the_rest(svm):
    try:
        refused = svm.apply_query("?C=1000&sigma=0.2&dataset=spirals&C2=1&kernel=bogus")
        assert [r[0] for r in refused] == ["C2", "kernel"]
        p = svm.params()
        assert (p["C"], p["sigma"], p["dataset"], p["kernel"]) == (1000.0, 0.2, "spirals", "rbf")
        assert "C2=1 (no such setting" in svm.last_error and "kernel=bogus" in svm.last_error
        assert svm.figures[0].layout.title.text.startswith("spirals: SVM, RBF, σ = 0.2")
        query = svm.url.query
        assert "C=1000" in query and "sigma=0.2" in query and "dataset=spirals" in query
        revision = svm.url.revision
        # the same query again changes nothing and recomputes nothing
        stats = svm.last_stats
        svm.apply_query("?C=1000&sigma=0.2&dataset=spirals")
        assert svm.last_stats is stats and svm.url.revision == revision + 1
    finally:
        svm.update(**svm.defaults)
    assert svm.url.query == ""


def test_a_choice_changes_a_range_before_its_number_is_checked():
    """The noise range depends on the data set: ?dataset=...&noise=... checks the noise against
    the range of the data set asked for, not the default data set's."""
    from kernelnb.datasets import TOY_NOISE
    from kernelnb.lab.app import SVMPlayground
    app = SVMPlayground(grid=10)
    wide = max(TOY_NOISE, key=lambda k: TOY_NOISE[k][1])
    top = TOY_NOISE[wide][1]
    assert top > TOY_NOISE["moons"][1]
    refused = app.apply_query(f"dataset={wide}&noise={top}")
    assert not refused
    assert app.params()["noise"] == pytest.approx(top)
    refused = app.apply_query(f"noise={2 * top}")
    assert refused and "outside" in refused[0][2]


def test_a_kernel_started_for_a_request_opens_at_its_setting(monkeypatch):
    from kernelnb.lab.app import SVMPlayground
    monkeypatch.setenv("VOILA_PREHEAT", "False")
    monkeypatch.setenv("QUERY_STRING", "C=100&kernel=linear&nonsense=1")
    app = SVMPlayground(grid=10)
    assert app.url.enabled
    assert app.params()["C"] == 100.0 and app.params()["kernel"] == "linear"
    assert app.figures[0].layout.title.text.endswith("linear, C = 100")
    assert "nonsense=1 (no such setting" in app.last_error
    assert app.url.query == "kernel=linear&C=100"


def test_a_preheated_or_notebook_kernel_ignores_the_environment(monkeypatch):
    from kernelnb.lab.app import SVMPlayground
    monkeypatch.setenv("QUERY_STRING", "C=100")
    monkeypatch.setenv("VOILA_PREHEAT", "True")       # preheated: the page sends the query
    app = SVMPlayground(grid=10)
    assert app.params()["C"] == 1.0 and app.url.enabled
    app.url.page_query = "?C=100"                       # what the page's widget sends
    assert app.params()["C"] == 100.0
    monkeypatch.delenv("VOILA_PREHEAT")                 # a notebook: the URL is not touched
    assert not SVMPlayground(grid=10).url.enabled


# -- what clicks made, kept by the page across kernels ---------------------------------------
def _clicked(name):
    from kernelnb.lab.app import (ActiveLearning, DataCleaning, LocalMethodsPlayground,
                                  SVMPlayground)
    if name == "svm":
        app = SVMPlayground(grid=10)
        app.add_point(0.5, 0.2, label=0)
        app.add_point(-0.4, 0.9, label=1)
        return SVMPlayground, app
    if name == "cleaning":
        app = DataCleaning(grid=10)
        app.flip_at(0.5, 0.5)
        return DataCleaning, app
    if name == "active":
        app = ActiveLearning(grid=10)
        app.answer(1)
        app.answer(0)
        return ActiveLearning, app
    app = LocalMethodsPlayground(grid=10)
    app.query(0.1, 0.2)
    return LocalMethodsPlayground, app


@pytest.mark.parametrize("name", ["svm", "cleaning", "active", "local"])
def test_what_clicks_made_comes_back_in_a_new_dashboard(name):
    import json
    cls, app = _clicked(name)
    kept = app.url.clicks
    assert kept and json.loads(kept) == app.clicks_state()
    fresh = cls(grid=10)
    assert fresh.url.clicks == ""
    fresh.url.page_clicks = kept                      # what the page sends a new kernel
    assert fresh.clicks_state() == app.clicks_state()
    assert fresh.url.clicks == kept
    if name == "svm":
        assert fresh.last_stats["n_added"] == 2
    if name == "active":
        assert fresh.last_stats["n_labeled"] == app.last_stats["n_labeled"]


def test_kept_clicks_are_checked_like_clicks():
    from kernelnb.lab.app import SVMPlayground
    app = SVMPlayground(grid=10)
    app.url.page_clicks = '[[1e9, 0, 1], "x", [0.2, 0.2, 5], [0.3, 0.1, 0], [0.1, 0.1, true]]'
    assert app.clicks_state() == [[0.3, 0.1, 0]]          # only the point a click could add
    app.url.page_clicks = '{"points": []}'
    assert "could not be restored" in app.last_error and "not a list" in app.last_error
    app.url.page_clicks = "[" * 10 + "1"
    assert "could not be restored" in app.last_error
    app.url.page_clicks = "[" + "0," * 60000 + "0]"
    assert "longer than" in app.last_error
