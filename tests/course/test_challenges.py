"""Every gallery dashboard sets a challenge; its defaults do not reach it, its solution does
through update(); the done state goes into the page's address and comes back from it; the panel
speaks French."""
from __future__ import annotations

import importlib

import pytest

pytest.importorskip("ipywidgets", reason="the dashboards are in kernelnb's [lab] extra")

from kernelnb.lab.app import _challenge            # noqa: E402
from kernelnb.lab.app._challenges import CHALLENGES  # noqa: E402
from kernelnb.lab.server.gallery import dashboard_entries  # noqa: E402


def _dashboard(name):
    for entry in dashboard_entries():
        if entry.class_name == name:
            module = importlib.import_module(entry.module if "." in entry.module
                                             else f"kernelnb.lab.app.{entry.module}")
            return getattr(module, name)
    raise LookupError(f"{name} is not a gallery dashboard")


def test_every_gallery_dashboard_has_a_challenge():
    names = {e.class_name for e in dashboard_entries() if e.class_name}
    assert len(names) == 16
    assert names == set(CHALLENGES), (sorted(names - set(CHALLENGES)),
                                      sorted(set(CHALLENGES) - names))


@pytest.mark.parametrize("name", sorted(CHALLENGES))
def test_the_solution_reaches_the_challenge_through_update(name):
    cls = _dashboard(name)
    app = cls(lang="en", **cls.LESSON_APP)
    assert app.challenge_panel is not None
    assert not app.challenge_panel.done, "the defaults already reach it"
    assert "challenge=done" not in app.url_query()
    stats = app.update(raise_errors=True, **CHALLENGES[name].solution)
    assert CHALLENGES[name].judge(stats, app.params())
    assert app.challenge_panel.done and "✓" in app.challenge_panel.widget.value
    assert app.url_query().endswith("challenge=done")


def test_done_comes_back_from_the_address_and_speaks_french():
    from kernelnb.lab.app.regression_selection import RegressionSelectionExplorer
    app = RegressionSelectionExplorer(lang="fr")
    assert not app.challenge_panel.done
    assert "Défi" in app.challenge_panel.widget.value
    refused = app.apply_query("?d=9&challenge=done")
    assert refused == [] and app.challenge_panel.done
    assert "Fait" in app.challenge_panel.widget.value and "challenge=done" in app.url_query()
    query, done = _challenge.split_query("?C=10&challenge=done&lang=fr")
    assert done and query == "?C=10&lang=fr"
