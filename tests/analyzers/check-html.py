#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-html.py - load an HTML report of `cudatrace report --format html`
in a real browser (headless Chromium), as TAP lines.

  check-html.py REPORT.html WORKDIR [--text TEXT ...] [--plots N]

Chromium renders the page (--dump-dom: the DOM after parsing) and takes a
screenshot of it. The page must be self-contained (no script, no style
sheet, frame or image from elsewhere), hold no element made from the
trace's strings (no <script> element; each TEXT, which may hold markup,
is in the rendered text as text), show the first page and N plots (as
SVG images), and the screenshot must be a PNG that is not blank.

The first page as the browser rendered it is written to
WORKDIR/first-page.txt, for check-first-page.py to compare with the
ledger. The page is loaded from a copy, WORKDIR/report.html (a browser
takes a file for HTML by its name); Chromium's profile and files stay in
WORKDIR.
"""
import argparse
import base64
import html.parser
import os
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import simcheck  # noqa: E402

tap = simcheck.Tap()
CHROMIUM = os.environ.get("CHROMIUM", "chromium")
TIME_LIMIT = 120


class Dom(html.parser.HTMLParser):
    """What the rendered DOM holds: its elements, its text, the first page, the images."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.text = []
        self.first_page = None
        self.images = []
        self.external = []
        self._in_page = False
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag in ("style", "script", "title"):
            self._skip += 1
        if tag == "pre" and "first-page" in (a.get("class") or ""):
            self._in_page = True
            self.first_page = ""
        if tag == "img":
            self.images.append(a.get("src") or "")
        for key in ("src", "href"):
            value = a.get(key)
            if value and not value.startswith("data:") and not value.startswith("#"):
                self.external.append(f"<{tag} {key}={value[:80]}>")

    def handle_endtag(self, tag):
        if tag in ("style", "script", "title"):
            self._skip = max(0, self._skip - 1)
        if tag == "pre":
            self._in_page = False

    def handle_data(self, data):
        if self._in_page:
            self.first_page += data
        if not self._skip:
            self.text.append(data)


def chromium(workdir, *args):
    env = dict(os.environ, HOME=workdir)
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           f"--user-data-dir={workdir}/profile", *args]
    try:
        return subprocess.run(cmd, env=env, capture_output=True, timeout=TIME_LIMIT)
    except FileNotFoundError:
        print(f"Bail out! {CHROMIUM} is not installed (Debian: chromium; tools/install-deps)")
        sys.exit(1)


def png_pixels(path):
    """(width, height, the decompressed scanlines) of a PNG, or None when it is not one."""
    data = open(path, "rb").read()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    pos, idat, size = 8, b"", None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            size = struct.unpack(">II", chunk[:8])
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    if not size or not idat:
        return None
    return size[0], size[1], zlib.decompress(idat)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("report")
    p.add_argument("workdir")
    p.add_argument("--text", action="append", default=[])
    p.add_argument("--plots", type=int, default=None)
    args = p.parse_args()
    raw = open(args.report, encoding="utf-8").read()
    # a browser takes a file for HTML by its name
    page = os.path.join(os.path.abspath(args.workdir), "report.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(raw)
    url = "file://" + page

    tap.ok(raw.startswith("<!DOCTYPE html>") and raw.rstrip().endswith("</html>"),
       "the report is one HTML document")

    run = chromium(args.workdir, "--dump-dom", url)
    tap.ok(run.returncode == 0 and run.stdout, "chromium renders the page",
       run.stderr.decode(errors="replace")[-400:])
    dom = Dom()
    dom.feed(run.stdout.decode("utf-8", errors="replace"))
    tap.ok(not dom.external, "self-contained: nothing is loaded from elsewhere", *dom.external)
    tap.ok("script" not in dom.tags and "iframe" not in dom.tags and "link" not in dom.tags,
       "no script, frame or style sheet element", sorted(set(dom.tags)))
    text = "".join(dom.text)
    for t in args.text:
        tap.ok(t in text, f"the rendered text holds {t!r} as text")
    tap.ok(dom.first_page, "the first page is rendered")
    with open(os.path.join(args.workdir, "first-page.txt"), "w", encoding="utf-8") as f:
        f.write(dom.first_page or "")
    svgs = [src for src in dom.images if src.startswith("data:image/svg+xml;base64,")]
    if args.plots is not None:
        tap.ok(len(svgs) == args.plots == len(dom.images), f"{args.plots} plots, as SVG images",
           [src[:60] for src in dom.images])
    good = []
    for src in svgs:
        svg = base64.b64decode(src.split(",", 1)[1])
        good.append(svg.lstrip().startswith(b"<?xml") and b"<svg" in svg)
    tap.ok(all(good), "each plot is an SVG document")

    shot = os.path.join(args.workdir, "screenshot.png")
    run = chromium(args.workdir, "--window-size=1280,1600", f"--screenshot={shot}", url)
    pixels = png_pixels(shot) if os.path.exists(shot) else None
    tap.ok(pixels is not None and pixels[0] == 1280 and pixels[1] == 1600,
       "the screenshot is a 1280x1600 PNG", run.stderr.decode(errors="replace")[-400:])
    if pixels:
        scan = pixels[2]
        # a blank page is one colour: its filtered scanlines hold two or three byte values
        tap.ok(len(set(scan)) > 16 and sum(1 for b in scan if b not in (0, 255)) > len(scan) // 100,
           "the screenshot is not blank", f"{len(set(scan))} distinct bytes")
    tap.done()
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
