"""Debian's Chromium driven by Playwright for Python, as every browser test here uses it.

Playwright never downloads a browser here: it starts /usr/bin/chromium (scripts/setup.sh installs
both) with a throw-away profile and the flags that keep it from stalling on a machine without
internet access."""

from contextlib import contextmanager
from pathlib import Path

import pytest

try:
    from playwright import sync_api
except ImportError:
    pytest.fail("Playwright for Python is missing: run scripts/setup.sh", pytrace=False)

CHROMIUM = Path("/usr/bin/chromium")
# Without these, Chromium stalls on a machine without internet access (its background services
# keep retrying).
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@contextmanager
def chromium(profile: Path, viewport: dict[str, int], timeout_ms: int = 30_000):
    """A headless Chromium context on a fresh profile; closed (with the browser) on leaving."""
    assert CHROMIUM.is_file(), "chromium is not installed: run scripts/setup.sh"
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True,
            viewport=viewport,
        )
        context.set_default_timeout(timeout_ms)
        try:
            yield context
        finally:
            context.close()
