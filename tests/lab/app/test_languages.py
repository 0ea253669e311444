"""The dashboards in French as well as English (Dashboard.set_language, kernelnb.lab.i18n.relabel).

Every dashboard built in French shows no English message in its widgets or charts (labels,
tooltips, option labels, buttons, headings, the readout, the lesson, the charts' titles, axes,
legends and hover labels) and writes its numbers with a decimal comma; switched back to English it
shows exactly what a dashboard built in English shows. A kernel preheated in English switches
when its page asks for French (the URL's ``lang``, else the browser's languages), a kernel started
for a French request is built in French, a bad ``lang`` gives English, and the refusals speak the
page's language.
"""
from __future__ import annotations

import html
import re

import pytest

from kernelnb.lab import i18n
from kernelnb.lab.server import gallery
from kernelnb.lab.app._lessons import lesson_app
from kernelnb.lab.i18n.relabel import _widgets_under

CLASSES = [getattr(__import__(f"kernelnb.lab.app.{e.module}", fromlist=[e.class_name]),
                   e.class_name) for e in gallery.DASHBOARDS if e.class_name]

_TAGS = re.compile(r"<style.*?</style>|<[^>]*>", re.S)
_SEGMENTS = re.compile(r"\n|; ")


def _texts(app, dynamic=True):
    """(where, text) of everything the dashboard shows or puts in a tooltip or hover label."""
    out = []
    # (the readout, the messages, the status line and the charts' texts are written by each
    # update: the dynamic texts)
    skip = set() if dynamic else {id(app.stats), id(app.error), id(app.status),
                                  id(app.status_line), id(app.chart_texts), id(app.table_view)}
    roots = [app.widget, *app.controls.values(), *app._widget_attributes()]
    for k, w in enumerate(_widgets_under(roots)):
        kind = type(w).__name__
        for trait in ("description", "tooltip", "placeholder"):
            if w.has_trait(trait) and getattr(w, trait):
                out.append((f"{kind}.{trait}", getattr(w, trait)))
        for trait in ("tooltips", "titles", "_options_labels"):
            if w.has_trait(trait):
                out += [(f"{kind}.{trait}", t) for t in getattr(w, trait) if t]
        if kind in ("HTML", "HTMLMath", "Label") and id(w) not in skip and w.value:
            out.append((f"{kind}.value", w.value))
    figures = {id(f): f for f in [*app.figures, *(a for a in app._widget_attributes()
                                                  if hasattr(a, "layout") and hasattr(a, "data"))]}
    for fig in figures.values():
        lay = fig.layout.to_plotly_json()
        if (lay.get("title") or {}).get("text") and dynamic:
            out.append(("figure.title", lay["title"]["text"]))
        for name, axis in lay.items():
            if re.match(r"^[xyz]axis\d*$", name) and ((axis or {}).get("title") or {}).get("text"):
                out.append((f"figure.{name}", axis["title"]["text"]))
        for note in lay.get("annotations") or ():
            if note.get("text") and dynamic:
                out.append(("figure.annotation", note["text"]))
        for trace in fig.data:
            for prop in ("name", "hovertemplate"):
                value = getattr(trace, prop, None)
                if isinstance(value, str) and value and (dynamic or prop == "hovertemplate"):
                    out.append((f"trace.{prop}", value))
    return out


def _segments(text):
    plain = html.unescape(_TAGS.sub("\n", text))
    return [s.strip(" .:") for s in _SEGMENTS.split(plain) if s.strip(" .:")]


@pytest.fixture(scope="module")
def english_messages():
    """English msgids a French page must not show: those whose translation differs, as whole
    segments, and the longer literal fragments of the messages with fields."""
    whole, fragments = set(), set()
    for msgid, msgstr in i18n.translations("fr")._catalog.items():
        if not isinstance(msgid, str) or not msgid or msgstr == msgid:
            continue
        literal = re.split(r"\{\w*\}", msgid)
        if len(literal) == 1:
            whole.add(msgid.strip(" .:"))
        fragments.update(f.strip() for f in literal
                         if len(f.strip()) >= 14 and len(f.split()) >= 3)
    return whole, fragments


def _english_left(app, english_messages):
    whole, fragments = english_messages
    found = []
    for where, text in _texts(app):
        for seg in _segments(text):
            if seg in whole:
                found.append(f"{where}: {seg!r}")
        plain = html.unescape(_TAGS.sub(" ", text))
        found += [f"{where}: …{f!r}… in {plain[:80]!r}" for f in fragments if f in plain]
    return found


@pytest.mark.parametrize("cls", CLASSES, ids=[c.__name__ for c in CLASSES])
def test_a_dashboard_speaks_french_and_back(cls, english_messages):
    """Built in French: no English message shown, numbers with a decimal comma, the charts'
    decimal mark a comma; switched to English: what an English build shows, to the letter."""
    kwargs = dict(getattr(cls, "LESSON_APP", {}) or {})
    app = cls(lang="fr", **kwargs)
    assert app.lang == "fr" and app.url.lang == "fr"
    left = _english_left(app, english_messages)
    assert not left, f"{cls.__name__}: English shown in French:\n" + "\n".join(left[:30])
    cells = re.findall(r'<td class="num">(.*?)</td>', app.stats.value)
    assert cells and not [c for c in cells if re.search(r"\d\.\d", c)], cells
    assert all(f.layout.separators == i18n.PLOTLY_SEPARATORS["fr"] for f in app.figures)
    assert "Leçon" in app.stats.value or not cls.LESSONS
    # back in English: the texts of a dashboard built in English
    app.set_language("en")
    english = cls(lang="en", **kwargs)
    assert sorted(_texts(app, dynamic=False)) == sorted(_texts(english, dynamic=False))
    assert app.fig.layout.title.text == english.fig.layout.title.text \
        if hasattr(app, "fig") else True
    assert all(f.layout.separators in (None, ".,") for f in app.figures)


def test_a_preheated_dashboard_follows_its_page(monkeypatch):
    """Built before any request (in the server's default, English), then taken by a page: the
    browser's languages, else its URL's lang, decide; the setting of the URL is applied too."""
    from kernelnb.lab.app import SVMPlayground
    monkeypatch.setenv("VOILA_PREHEAT", "True")
    monkeypatch.delenv(i18n.DEFAULT_ENV, raising=False)
    app = SVMPlayground(grid=10)
    assert app.lang == "en" and "training error" in app.stats.value
    app.url.page_languages = ["fr-CA", "fr", "en"]
    app.url.page_query = "?C=10"
    assert app.lang == "fr" and app.controls["C"].value == 10
    assert "erreur d'apprentissage" in html.unescape(app.stats.value)
    assert app.controls["kernel"]._options_labels == ("rbf", "linéaire", "poly")
    assert app.fig.layout.title.text == "lunes\u00a0: SVM, RBF, σ = 0,5, C = 10"
    # the URL's lang wins over the browser's; a value naming no language gives English
    app.url.page_query = "?lang=en"
    assert app.lang == "en" and app.fig.layout.title.text == "moons: SVM, RBF, σ = 0.5, C = 10"
    app.url.page_query = "?lang=fr"
    assert app.lang == "fr"
    app.url.page_query = "?lang=xx&C=100"
    assert app.lang == "en" and not app.last_error and app.controls["C"].value == 100


def test_a_kernel_started_for_a_french_request_is_built_in_french(monkeypatch):
    from kernelnb.lab.app import SVMPlayground
    monkeypatch.setenv("VOILA_PREHEAT", "False")
    monkeypatch.setenv("QUERY_STRING", "C=10")
    monkeypatch.setenv("HTTP_ACCEPT_LANGUAGE", "fr-FR,fr;q=0.9,en;q=0.8")
    app = SVMPlayground(grid=10)
    assert app.lang == "fr" and app.controls["C"].value == 10
    assert app.fig.layout.title.text.endswith("C = 10") and "lunes" in app.fig.layout.title.text
    # the page then sends its query and the browser's languages: nothing changes
    app.url.page_languages = ["en-US"]
    app.url.page_query = "?C=10"
    assert app.lang == "fr"
    monkeypatch.setenv("QUERY_STRING", "lang=en&C=10")
    assert SVMPlayground(grid=10).lang == "en"
    monkeypatch.setenv("QUERY_STRING", "lang=de")
    assert SVMPlayground(grid=10).lang == "en"       # a bad lang: English
    monkeypatch.delenv("HTTP_ACCEPT_LANGUAGE")
    monkeypatch.setenv("QUERY_STRING", "")
    monkeypatch.setenv(i18n.DEFAULT_ENV, "fr")       # kernelnb serve --lang fr
    assert SVMPlayground(grid=10).lang == "fr"


def test_refusals_and_clicks_speak_the_page_language():
    from kernelnb.lab.app import SVMPlayground
    app = SVMPlayground(grid=10, lang="fr")
    refused = app.apply_query("?C=abc&nope=1&sigma=1e9")
    assert len(refused) == 3
    shown = html.unescape(app.error.value)
    assert "l'adresse de la page demande des réglages" in shown
    assert "pas un nombre" in shown and "aucun réglage de ce nom" in shown
    assert "hors de 0,01 … 31,6228" in shown, shown
    out = app.add_point(1e6, 0.0)
    assert out["error"].startswith("clic ignoré\u00a0:") and "loin en dehors" in out["error"]
    app.controls["C"].set_state({"value": float("nan")})
    assert "valeur(s) refusée(s)" in app.last_error
    app.time_budget_s = 0.0
    assert "arrêt au temps alloué de 0 s" in app.budget_message()
    with pytest.raises(ValueError, match="lang must be one of 'en', 'fr', got lang='de'"):
        SVMPlayground(grid=10, lang="de")
    with pytest.raises(ValueError, match="lang must be one of"):
        app.set_language("EN")
