"""The one headless Chromium of the browser tests (Debian's, driven by Python Playwright).

One instance for the browser tests: Playwright's sync API allows one driver per thread, so every
module's tests share it (each opens contexts and pages of its own). It is closed when the last of
them has run (package scope): while the sync API is started, its asyncio loop is this thread's
running loop, and the tests after would take themselves for code in a kernel (a dashboard's
update then finishes in an asyncio task instead of returning complete).
"""
from __future__ import annotations

import os
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
