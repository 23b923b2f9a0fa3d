"""Regenerate the documentation's pictures from real data: the HTML report and ``inspect view`` on
the arena-hard-auto v0.1 judgments in ``../shared/data``, imported with ``arenahard import``.

    python docs/screenshots.py [--out docs/images]

Needs headless Chromium (Debian's ``chromium``; ``.ci/install`` installs it). ``inspect view``
is started on a free loopback port, photographed and stopped. Nothing is fetched from the network.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
V01 = REPO.parent / "shared" / "data" / "arena-hard-v0.1"
JUDGES = ["gpt-4o", "gpt-3.5-turbo-0125", "gpt-4-1106-preview", "gemini-1.5-pro-api-0514"]


def browser() -> str:
    """The Chromium binary on PATH."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    sys.exit("no headless browser: install Debian's chromium (apt-get install chromium)")


def screenshot(
    url: str, png: Path, profile: Path, size: tuple[int, int], ready: str, scale: float = 1.0
) -> None:
    """Headless Chromium opens ``url`` and, once the page's text contains ``ready`` (a page that
    loads its data from a server is not ready when it has loaded), saves a screenshot; ``scale``
    pixels per CSS pixel keep text sharp when the docs show the picture narrower than taken."""
    port = free_port()
    cmd = [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
           f"--remote-debugging-port={port}", "about:blank"]  # fmt: skip
    chromium = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(f"http://127.0.0.1:{port}/json", chromium, "chromium")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json") as r:
            [page] = [t for t in json.load(r) if t["type"] == "page"]
        data = asyncio.run(_capture(page["webSocketDebuggerUrl"], url, ready, size, scale))
    finally:
        chromium.terminate()
        chromium.wait(timeout=30)
    png.write_bytes(data)
    print(f"wrote {png}")


async def _capture(
    websocket: str, url: str, ready: str, size: tuple[int, int], scale: float
) -> bytes:
    """Navigate, wait for ``ready`` in the page's text, capture: Chrome's DevTools protocol over
    the websocket client aiohttp (an Inspect dependency) provides."""
    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(websocket, max_msg_size=0) as ws:
            calls = 0

            async def call(method: str, **params: object) -> dict:
                nonlocal calls
                calls += 1
                await ws.send_json({"id": calls, "method": method, "params": params})
                while (reply := await ws.receive_json()).get("id") != calls:
                    pass
                return reply.get("result", {})

            await call("Emulation.setDeviceMetricsOverride", width=size[0], height=size[1],
                       deviceScaleFactor=scale, mobile=False)  # fmt: skip
            await call("Page.navigate", url=url)
            text = ""
            for _ in range(240):
                found = await call("Runtime.evaluate", expression="document.body ? document.body.innerText : ''", returnByValue=True)  # fmt: skip
                text = found["result"].get("value", "")
                if ready in text:
                    break
                await asyncio.sleep(0.5)
            else:
                sys.exit(f"{url} never showed {ready!r}; it shows: {text[:300]!r}")
            await asyncio.sleep(1.5)  # let layout and fonts settle
            shot = await call("Page.captureScreenshot", format="png")
            return base64.b64decode(shot["data"])


def wait_for(url: str, process: subprocess.Popen[bytes], name: str, seconds: float = 120) -> None:
    """Poll ``url`` until it answers; stop if ``process`` exits or time runs out."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"{name} did not start")
            time.sleep(0.5)


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def arenahard(*args: str) -> None:
    """Run an ``arenahard`` command in this process; stop on failure."""
    from inspect_arenahard.cli import main

    if main(list(args)) != 0:
        sys.exit(f"arenahard {args[0]} failed")


def view_screenshot(logs: Path, png: Path, profile: Path) -> None:
    """``inspect view`` on ``logs``, photographed on the gpt-4o log's samples, then stopped."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "inspect_ai", "view", "--log-dir", str(logs), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_for(url, server, "inspect view")
        log = next(p for p in sorted(logs.glob("*.eval")) if _model(p).endswith("gpt-4o"))
        screenshot(f"{url}#/logs/{log.name}", png, profile, (1400, 800), "Samples")
    finally:
        server.terminate()
        server.wait(timeout=30)


def _model(log: Path) -> str:
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(log), header_only=True).eval.model


def main() -> None:
    """Import the judgments, write the report, photograph it and ``inspect view``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        logs = work / "logs"
        for judge in JUDGES:
            arenahard("import", "arena-hard-auto", str(V01), "--judge", judge, "--out", str(logs))
        arenahard("report", str(logs), "--html", str(work / "report"))
        page = (work / "report" / "index.html").as_uri()
        # near the width the docs' content column shows it at (text stays legible), twice as sharp
        screenshot(
            page, args.out / "report.png", work / "chromium-report", (900, 1150), "Leaderboard", 2
        )
        view_screenshot(logs, args.out / "inspect_view.png", work / "chromium-view")


if __name__ == "__main__":
    main()
