"""Fixtures shared by the data-set tests."""
import urllib.request

import pytest


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No KERNELNB_DATA from the caller, an empty user cache, and no network (a loader that
    tries ``urlopen`` fails the test)."""
    monkeypatch.delenv("KERNELNB_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    def refuse(*args, **kwargs):
        raise AssertionError("the loader tried to use the network")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
