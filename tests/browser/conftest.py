"""The one headless Chromium of the browser tests (Debian's, driven by Python Playwright).

One instance for the browser tests: Playwright's sync API allows one driver per thread, so every
module's tests share it (each opens contexts and pages of its own). It is closed when the last of
them has run (package scope): while the sync API is started, its asyncio loop is this thread's
running loop, and the tests after would take themselves for code in a kernel (a dashboard's
update then finishes in an asyncio task instead of returning complete).
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("KERNELNB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-dev-shm-usage"]


@pytest.fixture(scope="package")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (install Debian's 'chromium'; .ci/run does)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="Python Playwright is not installed")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


# -- console messages --------------------------------------------------------------------------
# A page of kernelnb logs no console error, and no warning but those below: shared-module version
# warnings that only upstream can remove. Voila's page is a JupyterLab front end whose core
# packages are the ones Voila was built with (Voila 0.5.9 to 0.5.13: JupyterLab 4.2.5,
# "_JUPYTERLAB.CORE_OUTPUT"), while the widget extensions it loads are built against newer ones:
# Voila 0.5.13's own widget manager (@voila-dashboards/widgets-manager8, against JupyterLab 4.5)
# and jupyterlab_widgets 3.0.14 and later (@jupyter-widgets/jupyterlab-manager, against 4.6).
# webpack's module federation then warns once per shared package whose version is below the one
# an extension was built against, and uses the page's own. Each entry: the message's pattern,
# and the upstream issue that tracks it.
UPSTREAM_CONSOLE_WARNINGS = (
    (re.compile(r"Unsatisfied version [\d.]+ from _JUPYTERLAB\.CORE_OUTPUT of shared singleton "
                r"module @jupyterlab/[a-z-]+ \(required \^[\d.]+\)"),
     "voila-dashboards/voila#1514 (Voila's bundled JupyterLab core is older than the widget "
     "extensions' builds)"),
    (re.compile(r"No satisfying version \(\^[\d.]+\) of shared module @jupyterlab/[a-z-]+ found "
                r"in shared scope default\.\nAvailable versions: [\d.]+ from "
                r"_JUPYTERLAB\.CORE_OUTPUT"),
     "voila-dashboards/voila#1514 (the same, for a package the extension does not require to "
     "be a singleton)"),
)


def upstream_warning(kind: str, text: str) -> str | None:
    """The upstream reference of a console message a page may log, or None when the message is
    a problem of kernelnb's (every error, and every warning not in
    :data:`UPSTREAM_CONSOLE_WARNINGS`)."""
    if kind != "warning":
        return None
    for pattern, reference in UPSTREAM_CONSOLE_WARNINGS:
        if pattern.fullmatch(text):
            return reference
    return None
