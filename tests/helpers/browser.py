"""Headless Chromium for the page tests: load a page with no network, dump its DOM, take a
screenshot, or measure at a given window width whether anything runs past the right edge."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

LAYOUT_PROBE = """<script>
window.addEventListener("load", function () {
  document.querySelectorAll("[hidden]").forEach(function (e) { if (e.id !== "errors") e.hidden = false; });
  var root = document.documentElement, clipped = [];
  function describe(el) {
    var text = (el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 60);
    return el.tagName.toLowerCase() + ": " + text;
  }
  document.querySelectorAll("table, pre").forEach(function (el) {
    var box = el.parentElement, own = el.tagName === "PRE" ? (el.querySelector("code") || el) : el;
    var overflowing = own.scrollWidth > own.clientWidth + 1 || el.getBoundingClientRect().width > box.clientWidth + 1;
    if (overflowing && el.getBoundingClientRect().width > 0) clipped.push(describe(el));
  });
  var out = document.createElement("pre");
  out.id = "layout-probe";
  out.textContent = JSON.stringify({scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, clipped: clipped});
  document.body.appendChild(out);
});
</script>"""
"""Unhides every panel, then records the page's width against the window's and every table or
code block wider than its box (a block that must be scrolled sideways to be read)."""


def browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    raise FileNotFoundError("no headless browser: install Debian's chromium (docs/development.md)")


def headless(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Chromium with no network, sandbox or GPU, as root in a container."""
    profile.mkdir(parents=True, exist_ok=True)
    cmd = [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
           f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args, page.as_uri()]  # fmt: skip
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def layout_at(page: Path, profile: Path, width: int = 1280) -> dict[str, Any]:
    """``{scrollWidth, clientWidth, clipped}`` of ``page`` in a window ``width`` pixels wide,
    measured on a copy beside it (so its stylesheets and scripts resolve as they do for it)."""
    probe = page.with_name(f"{page.stem}.layout-probe.html")
    text = page.read_text(encoding="utf-8")
    probe.write_text(text.replace("</body>", LAYOUT_PROBE + "</body>", 1), encoding="utf-8")
    try:
        dom = headless(
            probe, profile, "--dump-dom", f"--window-size={width},900", "--virtual-time-budget=5000"
        ).stdout
    finally:
        probe.unlink()
    found = re.search(r'<pre id="layout-probe">(.*?)</pre>', dom, flags=re.S)
    assert found, "the layout probe did not run"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))  # fmt: skip
