"""The server's own pages in the reader's language (kernelnb.lab.server, kernelnb.lab.server.gallery,
templates/, static/kernelnb-watch.js): the gallery, the "class is full" page, the error pages and
the message of a page whose kernel is gone; ``?lang=`` first, then ``Accept-Language``, then the
server's default, a bad ``lang`` giving English."""
from __future__ import annotations

import argparse
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import kernelnb.lab
from kernelnb.lab import i18n
from kernelnb.lab.server.gallery import DASHBOARDS, render_gallery
from kernelnb.lab.server.app import (WATCH_TEXTS, full_page, request_language, strip_external,
                                 watch_texts)

#: the lab as installed (a wheel's, or the checkout's in an editable install)
LAB = Path(kernelnb.lab.__file__).resolve().parent


class _Request:
    def __init__(self, query, accept):
        self.query, self.headers = query, ({"Accept-Language": accept} if accept else {})


class _Handler:
    """What request_language reads of a tornado handler: the query and the headers."""

    def __init__(self, query=(), accept=None):
        self.request = _Request(query, accept)

    def get_query_arguments(self, name):
        return [v for k, v in self.request.query if k == name]


@pytest.mark.parametrize("query, accept, default, expected", [
    ([("lang", "fr")], "en-GB,en", None, "fr"),
    ([("lang", "en")], "fr", "fr", "en"),
    ([("lang", "xx")], "fr", "fr", "en"),          # a bad lang: English, no error
    ([], "fr-CA,fr;q=0.9", None, "fr"),
    ([], "de", "fr", "fr"),                         # the server's default (kernelnb serve --lang)
    ([], None, None, "en"),
])
def test_a_request_language(monkeypatch, query, accept, default, expected):
    if default:
        monkeypatch.setenv(i18n.DEFAULT_ENV, default)
    else:
        monkeypatch.delenv(i18n.DEFAULT_ENV, raising=False)
    assert request_language(_Handler(query, accept)) == expected


def test_the_class_is_full_page_in_both_languages():
    en = full_page(12, 12, "/base/", "en")
    fr = full_page(12, 12, "/base/", "fr")
    assert '<html lang="en">' in en and "The class is full" in en and "Back to the gallery" in en
    assert '<html lang="fr">' in fr and "La classe est pleine" in fr
    assert "Retour à la galerie" in fr and 'href="/base/"' in fr
    for page in (en, fr):
        assert "<code>--max-kernels 12</code>" in page and "{running}" not in page
    assert "runs 12 dashboards" in en and "fait déjà tourner 12 tableaux de bord" in fr
    assert "The class is full" not in fr


def test_the_gallery_speaks_the_readers_language(tmp_path):
    for d in DASHBOARDS:
        (tmp_path / d.notebook).write_text("{}")
    fr = render_gallery(tmp_path, "/voila/render/", "/static/", lang="fr", keep_lang=True)
    en = render_gallery(tmp_path, "/voila/render/", "/static/", lang="en")
    assert '<html lang="fr">' in fr and "Tableaux de bord kernelnb" in fr
    assert '<html lang="en">' in en and "kernelnb dashboards" in en
    for d in DASHBOARDS:
        assert f"<h2>{i18n.translate(d.title, 'fr')}</h2>".replace("'", "&#x27;") in fr
        assert f'href="/voila/render/{d.notebook}?lang=fr"' in fr    # the reader's choice kept
        assert f'href="/voila/render/{d.notebook}"' in en            # none: the browser decides
    # the switch: the other language a link, the current one marked
    assert '<a lang="en" hreflang="en" href="?lang=en">English</a>' in fr
    assert '<strong lang="fr" aria-current="page">Français</strong>' in fr
    assert '<a lang="fr" hreflang="fr" href="?lang=fr">Français</a>' in en


def test_kernel_gone_texts_in_every_language_and_the_scripts_fallbacks():
    texts = watch_texts(default="fr")
    assert texts["default"] == "fr" and set(texts) == {"default", *i18n.LANGUAGES}
    assert texts["en"] == WATCH_TEXTS
    assert texts["fr"]["button"] == "Relancer le tableau de bord"
    assert all(texts["fr"][k] != v for k, v in WATCH_TEXTS.items() if len(v.split()) > 2)
    assert "{n}" in texts["fr"]["memory"] and "{n}" in texts["fr"]["culled_idle_n"]
    # kernelnb-watch.js and kernelnb-a11y.js (the skip link) keep the English texts as
    # fallbacks: the same as the messages
    js = "".join((LAB / "static" / name).read_text()
                 for name in ("kernelnb-watch.js", "kernelnb-a11y.js"))
    found = {}
    for key, body in re.findall(r't\("(\w+)",\s*((?:"[^"]*"\s*\+?\s*)+)\)', js):
        found[key] = "".join(re.findall(r'"([^"]*)"', body))
    assert found == WATCH_TEXTS, {k: (found.get(k), v) for k, v in WATCH_TEXTS.items()
                                  if found.get(k) != v}


def test_the_error_page_speaks_the_request_language():
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(
        str(LAB / "templates" / "voila")), autoescape=True)
    ns = dict(status_code=404, status_message="Not Found", message="", base_url="/x/")
    fr = env.get_template("404.html").render(
        **ns, kernelnb_lang="fr", kernelnb_gettext=lambda m: i18n.translate(m, "fr"))
    assert '<html lang="fr">' in fr and "404: Page introuvable" in fr
    assert "Retour à la galerie" in fr
    en = env.get_template("error.html").render(**ns)        # a handler that gives no language
    assert '<html lang="en">' in en and "404: Not Found" in en and "Back to the gallery" in en


def test_serve_takes_a_default_language_and_passes_accept_language():
    from kernelnb.lab.cli import build_parser, serve_argv, serve_language_env
    from kernelnb.lab.server.gallery import dashboards_dir
    args, extra = build_parser().parse_known_args(["serve", "--lang", "fr", "--dashboards",
                                                   str(dashboards_dir())])
    assert serve_language_env(args) == {i18n.DEFAULT_ENV: "fr"}
    assert "--VoilaConfiguration.http_header_envs=Accept-Language" in serve_argv(args, extra)
    args, _ = build_parser().parse_known_args(["serve"])
    assert serve_language_env(args) == {}
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--lang", "de"])
    from kernelnb.lab.hub import singleuser_config
    assert singleuser_config()["VoilaConfiguration"]["http_header_envs"] == ["Accept-Language"]


def _get(url, accept=None):
    req = urllib.request.Request(url, headers={"Accept-Language": accept} if accept else {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def test_served_pages_follow_the_request(served):
    status, page = _get(served, "fr-FR,fr;q=0.9,en;q=0.5")
    assert status == 200 and '<html lang="fr">' in page and "Tableaux de bord kernelnb" in page
    assert "?lang=" not in page.split("<main", 1)[1]       # the browser chose: links stay plain
    status, page = _get(served + "?lang=en", "fr")
    assert status == 200 and '<html lang="en">' in page and "kernelnb dashboards" in page
    status, page = _get(served + "?lang=xx")
    assert status == 200 and '<html lang="en">' in page
    status, page = _get(served + "?lang=fr")
    assert "/voila/render/svm_playground.ipynb?lang=fr" in page
    status, page = _get(served + "no/such/page?lang=fr")
    assert status == 404 and "Page introuvable" in page and strip_external(page) == page
    status, page = _get(served + "voila/render/no_such.ipynb", "fr")
    assert status == 404 and "Retour à la galerie" in page


def test_the_dashboards_texts_in_french():
    """Every dashboard notebook's Markdown (its title and text, shown above the dashboard) has a
    French version, unit by unit, with its markup."""
    from kernelnb.lab.server.gallery import dashboards_dir
    from kernelnb.lab.server.app import dashboard_markdown
    tables = dashboard_markdown(dashboards_dir())
    assert set(tables) == set(i18n.LANGUAGES) - {"en"}
    french = tables["fr"]
    assert len(french) == len(DASHBOARDS)
    for source, text in french.items():
        units = i18n.markdown_units(source)
        assert units and all(i18n.translate(u, "fr") != u for u in units if len(u.split()) > 2)
        assert text.startswith("# ") and text.count("\n\n") == source.strip().count("\n\n")
        assert text.count("**") == source.count("**") and text.count("*") == source.count("*")
    svm = next(t for s, t in french.items() if s.startswith("# SVM playground"))
    assert svm.startswith("# Bac à sable SVM\n\nUne machine à vecteurs de support")
