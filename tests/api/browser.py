"""Debian's headless chromium driven by Playwright (never `playwright install`), for the page's
tests: tabs of any size, and the checks that a page's layout is sound (nothing wider than the
screen, no seat label covered, no card's face clipped)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = (390, 844)
LAPTOP = (1280, 800)
TV = (1920, 1080)

needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (apt-get install chromium)")


@contextmanager
def chromium() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def tab(browser: Any, size: tuple[int, int], timeout_ms: int = 30_000, init: str | None = None) -> Iterator[Any]:
    """A tab of ``size``; the page's own errors fail the test when the tab closes."""
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.set_default_timeout(timeout_ms)
    if init:
        page.add_init_script(init)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield page
    finally:
        page.close()
    assert not errors, errors


def wait_for_seq(page: Any, seq: int) -> None:
    page.wait_for_function("s => Number(document.body.dataset.seq) >= s", arg=seq)
    # layout.js places the felt's seats and cards as the state is drawn: wait for a frame after it
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


# Every fault of layout on the page as it is now, in words (an empty list: none).
LAYOUT_FAULTS = """
() => {
  const W = document.documentElement.clientWidth;
  const faults = [];
  const name = (e) => e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}` +
    ` "${(e.textContent || '').trim().slice(0, 30)}"`;
  const shown = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden' && !e.closest('dialog');
  };
  const page = document.scrollingElement.scrollWidth;
  if (page > W + 1) faults.push(`the page is ${page}px wide on a ${W}px screen`);
  for (const e of document.querySelectorAll('body *')) {
    if (!shown(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.right > W + 1 || r.left < -1) {
      faults.push(`${name(e)} reaches from ${Math.round(r.left)} to ${Math.round(r.right)}px on a ${W}px screen`);
    }
  }
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { e, l: r.left, r: r.right, t: r.top, b: r.bottom };
  };
  const felt = [...document.querySelectorAll('#table .seat, #table .in-trick, #table .centre')].filter(shown).map(box);
  for (let i = 0; i < felt.length; i++) for (let j = i + 1; j < felt.length; j++) {
    const p = felt[i], q = felt[j];
    const seat = p.e.classList.contains('seat') || q.e.classList.contains('seat');
    const overlap = p.l < q.r - 1 && q.l < p.r - 1 && p.t < q.b - 1 && q.t < p.b - 1;
    if (seat && overlap) faults.push(`${name(p.e)} overlaps ${name(q.e)}`);
  }
  const feltBox = document.getElementById('table').getBoundingClientRect();
  for (const s of felt.filter(b => b.e.classList.contains('seat'))) {
    const off = s.l < feltBox.left - 1 || s.r > feltBox.right + 1 || s.t < feltBox.top - 1 || s.b > feltBox.bottom + 1;
    if (off) faults.push(`${name(s.e)} lies off the felt`);
  }
  for (const card of document.querySelectorAll('.card')) {
    if (!shown(card)) continue;
    const c = card.getBoundingClientRect();
    for (const part of card.children) {
      const r = part.getBoundingClientRect();
      const out = r.left < c.left - 1 || r.right > c.right + 1 || r.top < c.top - 1 || r.bottom > c.bottom + 1;
      if (out) faults.push(`the "${part.textContent}" of ${card.dataset.card} is clipped by its card`);
    }
  }
  for (const e of document.querySelectorAll('.played, .record-row .card')) {
    const panel = e.closest('.panel');
    if (!shown(e) || !panel) continue;
    const r = e.getBoundingClientRect();
    const p = panel.getBoundingClientRect();
    if (r.right > p.right + 1) faults.push(`${name(e)} is cut off at the right of ${name(panel)}`);
  }
  for (const e of document.querySelectorAll('.seat > div, .scores th, .scores td')) {
    if (shown(e) && e.scrollWidth > e.clientWidth + 1) faults.push(`${name(e)} does not fit its box`);
  }
  const text = document.body.innerText;
  for (const m of text.matchAll(/\\b1 (cards|tricks|events)\\b/g)) faults.push(`"${m[0]}"`);
  return faults;
}
"""


def layout_faults(page: Any) -> list[str]:
    faults: list[str] = page.evaluate(LAYOUT_FAULTS)
    return faults
