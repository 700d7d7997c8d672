"""Debian's headless Chromium driven by Playwright for Python, for the tests that look at pages.

The browser is /usr/bin/chromium (scripts/setup-tests.sh installs it and Playwright), never one that
Playwright downloads. The flags keep it from stalling on a machine without internet access (its
background services keep retrying otherwise)."""

from contextlib import contextmanager
from pathlib import Path

import pytest

try:
    from playwright import sync_api
except ImportError:
    pytest.fail("Playwright for Python is missing: run scripts/setup-tests.sh", pytrace=False)

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def require_chromium():
    assert CHROMIUM.is_file(), "chromium is not installed: run scripts/setup-tests.sh"


@contextmanager
def chromium(**launch_options):
    """A headless Chromium for one test module; closed when the block ends."""
    require_chromium()
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True, **launch_options
        )
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def chromium_profile(profile: Path, **options):
    """A headless Chromium with a profile of its own (a persistent context), as a browser a user
    keeps open; closed when the block ends."""
    require_chromium()
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True,
            **options,
        )
        try:
            yield context
        finally:
            context.close()
