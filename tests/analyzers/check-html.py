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

The first page: what was traced, then each finding a block (an article)
of its severity's class, badged with its word (FAILED, WARNING, ADVICE),
numbered in order, most severe first, headed by its summary and saying
what to do; the plot a finding belongs to (the device memory of its
process and device for a failed allocation or a growth, the transfers
for a hotspot) is beside it, not with the other plots. The screenshot
shows each finding's border in its severity's colour (red, amber,
blue), in the order of the findings (those it reaches): the colours are
looked for in its pixels, the browser's computed style not being in
the DOM it dumps.

The first page as the browser rendered it is written to
WORKDIR/first-page.txt, each finding its heading then its parts
indented, for check-first-page.py --html to compare with the ledger.
The page is loaded from a copy, WORKDIR/report.html (a browser takes a
file for HTML by its name); Chromium's profile and files stay in
WORKDIR.
"""
import argparse
import base64
import html.parser
import os
import re
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import simcheck  # noqa: E402

tap = simcheck.Tap()
CHROMIUM = os.environ.get("CHROMIUM", "chromium")
TIME_LIMIT = 120


# The severities: the class of a finding's block, the word of its badge and its colour.
SEVERITIES = {
    "critical": ("FAILED", (0xc6, 0x28, 0x28)),
    "warning": ("WARNING", (0xf0, 0xa8, 0x00)),
    "advice": ("ADVICE", (0x15, 0x65, 0xc0)),
}
# The labelled parts of a finding, in the order the page gives them.
PARTS = ("why", "where", "advice", "caveat", "plot-ref")
VOID = {"img", "br", "meta", "hr", "input", "link", "wbr"}


def fold(text):
    return re.sub(r"\s+", " ", text).strip()


class Dom(html.parser.HTMLParser):
    """What the rendered DOM holds: its elements, its text, the first page, the images.

    The first page is section#diagnosis: header.traced (what was traced,
    its losses), then each finding an article.finding with its heading
    (rank, badge, summary), its labelled parts and the plot beside it, or
    p.nothing.
    """

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.text = []
        self.images = []
        self.alts = []
        self.external = []
        self.traced = []        # the lines of header.traced
        self.findings = []      # one dict per article.finding
        self.nothing = None
        self.plots_section = []  # the plots of section#plots
        self._skip = 0
        self._stack = []        # (tag, classes, id) of the open elements
        self._grab = None       # [text] of the element being read

    def _open(self, cls, what):
        return any(tag == cls and what in classes for tag, classes, _ in self._stack)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        self.tags.append(tag)
        if tag in ("style", "script", "title"):
            self._skip += 1
        if tag == "article" and "finding" in classes:
            self.findings.append({"classes": classes, "severity": a.get("data-severity"),
                                  "kind": a.get("data-kind"), "id": a.get("id"),
                                  "head": "", "rank": "", "badge": "", "summary": "",
                                  "parts": [], "plots": [], "refs": []})
        in_finding = self._open("article", "finding")
        if tag == "img":
            self.images.append(a.get("src") or "")
            self.alts.append(a.get("alt") or "")
            if in_finding:
                self.findings[-1]["plots"].append(a.get("alt") or "")
            elif any(t == "section" and i == "plots" for t, _, i in self._stack):
                self.plots_section.append(a.get("alt") or "")
        if tag == "a" and in_finding:
            self.findings[-1]["refs"].append(a.get("href") or "")
        for key in ("src", "href"):
            value = a.get(key)
            if value and not value.startswith("data:") and not value.startswith("#"):
                self.external.append(f"<{tag} {key}={value[:80]}>")
        if tag not in VOID:
            self._stack.append((tag, classes, a.get("id")))

    def handle_endtag(self, tag):
        if tag in ("style", "script", "title"):
            self._skip = max(0, self._skip - 1)
        while self._stack:
            t, classes, _ = self._stack.pop()
            if t == tag:
                break

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)
        if self._open("header", "traced") and self._stack[-1][0] in ("p", "span"):
            top = [c for t, c, _ in self._stack if t == "p"]
            key = id(top[-1]) if top else None
            if not self.traced or self.traced[-1][0] != key:
                self.traced.append([key, ""])
            self.traced[-1][1] += data
        if self._open("p", "nothing"):
            self.nothing = (self.nothing or "") + data
        if not self._open("article", "finding"):
            return
        f = self.findings[-1]
        if any(t == "h3" for t, _, _ in self._stack):
            f["head"] += data
            for part in ("rank", "badge", "summary"):
                if self._open("span", part):
                    f[part] += data
        for part in PARTS:
            if self._open("p", part):
                ps = [c for t, c, _ in self._stack if t == "p"]
                if not f["parts"] or f["parts"][-1][2] is not ps[-1]:
                    f["parts"].append([part, "", ps[-1]])
                f["parts"][-1][1] += data

    def first_page(self):
        """The page as text, as check-first-page.py --html reads it: what was
        traced, then each finding its heading and, indented, its parts."""
        lines = [fold(t) for _, t in self.traced]
        for f in self.findings:
            lines.append(fold(f["head"]))
            lines += ["   " + fold(text) for _, text, _ in f["parts"]]
        if self.nothing is not None:
            lines.append(fold(self.nothing))
        return "\n".join(lines) + "\n"


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
    """(width, height, channels, the rows of pixels unfiltered) of an 8-bit RGB or
    RGBA PNG, or None when it is not one."""
    data = open(path, "rb").read()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    pos, idat, head = 8, b"", None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", chunk[:13])
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    if not head or not idat:
        return None
    width, height, depth, colour, _, _, interlace = head
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or not channels or interlace:
        return None
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 0xff
        elif kind == 2:
            row = bytearray((a + b) & 0xff for a, b in zip(row, prev))
        elif kind == 3:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + prev[i]) >> 1)) & 0xff
        elif kind == 4:
            for i in range(stride):
                a = row[i - channels] if i >= channels else 0
                b = prev[i]
                c = prev[i - channels] if i >= channels else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                row[i] = (row[i] + pred) & 0xff
        rows.append(bytes(row))
        prev = row
    return width, height, channels, rows


def stripes(pixels, colour, min_height=30, max_x=80):
    """The tops of the vertical stripes of COLOUR at the left of the page (a
    finding's border): runs of at least MIN_HEIGHT rows whose leftmost pixel
    of COLOUR is at the same x, below MAX_X."""
    width, height, channels, rows = pixels
    want = bytes(colour)
    tops, run, at = [], 0, None
    for y, row in enumerate(rows + [b""]):
        x = None
        i = row.find(want)
        while i >= 0:
            if i % channels == 0:
                x = i // channels
                break
            i = row.find(want, i + 1)
        if x is not None and x < max_x and (x == at or run == 0):
            run, at = run + 1, x
            continue
        if run >= min_height:
            tops.append(y - run)
        run, at = (1, x) if x is not None and x < max_x else (0, None)
    return tops


def check_findings(dom):
    """Each finding a block of its severity's class, its badge the word, ranked
    most severe first, with what to do; the plot it belongs to beside it."""
    order = list(SEVERITIES)
    ranks = [f["rank"].strip() for f in dom.findings]
    tap.ok(ranks == [f"{n}." for n in range(1, len(ranks) + 1)],
           "the findings are numbered 1, 2, ... in order", ranks)
    severities = [f["severity"] for f in dom.findings]
    tap.ok(all(s in SEVERITIES for s in severities) and
           severities == sorted(severities, key=order.index),
           "the findings are most severe first", severities)
    plots_of_page = set(dom.plots_section)
    placed = set()
    for f in dom.findings:
        name = f"finding {f['rank']} {fold(f['summary'])[:60]!r}"
        word = SEVERITIES.get(f["severity"], ("?",))[0]
        tap.ok("finding" in f["classes"] and f["severity"] in f["classes"] and
               fold(f["badge"]) == word and f["id"] == f"finding-{f['rank'].rstrip('.')}",
               f"{name}: a block of class {f['severity']}, badged {word}",
               f["classes"], f["badge"])
        labels = [fold(text).split(":")[0] for _, text, _ in f["parts"]]
        tap.ok(fold(f["summary"]) and "What to do" in labels,
               f"{name}: headed by its summary, says what to do", labels)
        where = " ".join(text for part, text, _ in f["parts"] if part == "where")
        m = re.search(r"\(pid (\d+)\)(, device (\d+))?", where)
        want = None
        if f["kind"] in ("allocation_failure", "memory_growth", "site_growth", "leak") and m:
            # a range's growth is of a process: the memory of a device of it
            want = f"memory-{m.group(1)}-dev{m.group(3) or ''}"
        elif f["kind"] == "transfer_hotspot":
            want = "transfers"
        if want and any(n == want or want.endswith("-dev") and n.startswith(want)
                        for n in dom.alts):
            names = f["plots"] + [ref[len("#plot-"):] for ref in f["refs"]]
            if want.endswith("-dev"):
                want = next((n for n in names if n.startswith(want)), want)
            # beside it, or beside an earlier finding, which it links to
            beside = want in f["plots"] or want in placed and f"#plot-{want}" in f["refs"]
            tap.ok(beside and want not in plots_of_page,
                   f"{name}: the plot {want} is beside it ({f['kind']})",
                   f["plots"], f["refs"], sorted(plots_of_page))
        placed.update(f["plots"])


def check_colours(dom, pixels):
    """The screenshot shows each finding's border in its severity's colour, in
    the order of the findings (those the screenshot reaches)."""
    found = []
    for severity, (_, colour) in SEVERITIES.items():
        found += [(top, severity) for top in stripes(pixels, colour)]
    found.sort()
    seen = [severity for _, severity in found]
    want = [f["severity"] for f in dom.findings]
    tap.ok(want[:len(seen)] == seen and (seen or not want),
           "the screenshot shows the findings' borders in their severities' colours, in order",
           f"borders: {found}", f"findings: {want}")


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
    tap.ok(dom.traced and (dom.findings or dom.nothing),
           "the first page is rendered: what was traced, then the findings or Nothing found")
    page_text = dom.first_page()
    with open(os.path.join(args.workdir, "first-page.txt"), "w", encoding="utf-8") as f:
        f.write(page_text)
    check_findings(dom)
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
    run = chromium(args.workdir, "--window-size=1280,1600", "--force-color-profile=srgb",
                   f"--screenshot={shot}", url)
    pixels = png_pixels(shot) if os.path.exists(shot) else None
    tap.ok(pixels is not None and pixels[0] == 1280 and pixels[1] == 1600,
       "the screenshot is a 1280x1600 PNG", run.stderr.decode(errors="replace")[-400:])
    if pixels:
        scan = b"".join(pixels[3])
        # a blank page is one colour
        tap.ok(len(set(scan)) > 16 and sum(1 for b in scan[::7] if b not in (0, 255)) >
               len(scan) // 700, "the screenshot is not blank", f"{len(set(scan))} distinct bytes")
        check_colours(dom, pixels)
    tap.done()
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
