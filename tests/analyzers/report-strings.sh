#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Strings that come from the traced program (process, API, kernel and
# device names, NVTX messages, the host name) through `cudatrace report`,
# from make-ctf.py's "strings" trace, which writes them as LTTng does (text
# sequences) with terminal escape sequences, forged lines, bytes that are
# not UTF-8, quotes and commas in them:
#   - JSON and CSV are valid UTF-8, and parse (Python's json and csv), the
#     strings coming back as they were in JSON but for the invalid bytes,
#     escaped as the text report shows them in CSV, which holds no control
#     character but its line ends;
#   - text holds no control character at all but its line ends, and no
#     line that the program wrote;
#   - the plots are drawn;
#   - HTML, loaded in headless Chromium, holds the markup of an NVTX
#     range as text, and no element made of it;
#   - an empty NVTX message pushed after a non-empty one stays empty;
# and through what `cudatrace record` prints (cli/summary.c: the short
# report and the post-mortem, by analyzers/summary-print) and `cudatrace
# list` (the trace in a directory whose name holds an escape sequence and
# a line break): no control character but the line ends, no forged line,
# the names shown escaped.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
trace="$report_tmp/strings"
"$report_python" "$report_here/make-ctf.py" strings "$trace" >"$report_tmp/truth.json" ||
	tap_fail_all "make-ctf.py makes the trace of hostile strings"

report_run json --format=json "$trace"
report_exits json 0
report_run csv --format=csv "$trace"
report_exits csv 0
report_run text "$trace"
report_exits text 0
report_run plot --plot="$report_tmp/plots" "$trace"
report_exits plot 0
report_run html --format=html "$trace"
report_exits html 0

# The record summary and the post-mortem of a program killed by SIGKILL.
summary_print=${TESTS_BUILDDIR:-$report_builddir/tests}/analyzers/summary-print
[ -x "$summary_print" ] || tap_fail_all "analyzers/summary-print is not built ($summary_print)"
"$summary_print" "$trace" >"$report_tmp/summary.out" 2>&1
is "summary: reads the trace" "$?" 0
"$summary_print" "$trace" 9 >"$report_tmp/postmortem.out" 2>&1
is "post-mortem: reads the trace" "$?" 0

# `cudatrace list` of a directory holding the trace (no cudatrace.info: read from the trace).
listed="$report_tmp/listed/$(printf 'tr\033[2Jace\nFAKE: listed')"
mkdir -p "$listed" && cp -r "$trace"/. "$listed"/ ||
	tap_fail_all "cannot copy the trace for cudatrace list"
"$report_cmd" list "$report_tmp/listed" >"$report_tmp/list.out" 2>"$report_tmp/list.err"
is "list: exits 0" "$?" 0
ok "plot: the memory plot of the process with the hostile names is drawn" \
	test -s "$report_tmp/plots/memory-4343-dev0.png"

# What each format holds, as TAP from Python.
"$report_python" - "$report_tmp" >"$report_tmp/check.tap" 2>&1 <<'EOF'
import csv
import io
import json
import sys
import unicodedata

tmp = sys.argv[1]
truth = json.load(open(f"{tmp}/truth.json"))
hostile = truth["hostile"]
n = 0


def check(name, cond, why=""):
    global n
    n += 1
    print(f"{'ok' if cond else 'not ok'} {n} - {name}")
    if not cond and why:
        print("# " + str(why)[:400])


def utf8(fmt):
    data = open(f"{tmp}/{fmt}.out", "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        check(f"{fmt}: valid UTF-8", False, e)
        return None
    check(f"{fmt}: valid UTF-8", True)
    return text


# JSON
text = utf8("json")
report = None
try:
    report = json.loads(text or "")
    check("json: parses", True)
except ValueError as e:
    check("json: parses", False, e)
if report:
    procs = {p["pid"]: p for p in report["trace"]["processes"]}
    check("json: the process name, its invalid byte replaced",
          procs.get(truth["pid"], {}).get("process") == 'ev\x1b[2Jil,"q\ufffd',
          procs.get(truth["pid"]))
    check("json: the host name with its quotes",
          procs.get(truth["pid"], {}).get("hostname") == 'synthetic, "quoted" h\u00f4te')
    leaks = {d["pid"]: d["leaks"] for d in report["memory"]["devices"]}
    leak = leaks.get(truth["pid"], [{}])[0]
    check("json: the NVTX path keeps the message's quotes, comma, line breaks, escape",
          leak.get("nvtx_path", "").startswith(hostile["range"] + "/"), leak)
    check("json: the API name keeps its escape sequence and quotes",
          leak.get("api") == hostile["api"], leak)
    check("json: an empty NVTX message stays empty",
          leaks.get(truth["empty_pid"], [{}])[0].get("nvtx_path") == truth["empty_nvtx_path"],
          leaks.get(truth["empty_pid"]))
    devices = report["trace"]["devices"]
    check("json: the device name", devices and devices[0]["name"].startswith("Sim\b\b\bGPU\t"),
          devices)

# CSV
text = utf8("csv")
tables = {}
if text is not None:
    try:
        name = None
        for row in csv.reader(io.StringIO(text, newline="")):
            if row and row[0].startswith("# "):
                name = row[0][2:]
                tables[name] = []
            elif row and name:
                tables[name].append(row)
        check("csv: parses", True)
    except csv.Error as e:
        check("csv: parses", False, e)
sites = tables.get("memory.devices.leak_sites", [])
rows = [dict(zip(sites[0], r)) for r in sites[1:]] if sites else []
site = [r["site"] for r in rows if r["pid"] == str(truth["pid"])]


def escaped(s):
    """S as ct_format_text shows it (S being valid UTF-8)."""
    out = ""
    for c in s:
        o = ord(c)
        if c in "\n\r\t":
            out += {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[c]
        elif o < 0x20 or o == 0x7F:
            out += f"\\x{o:02x}"
        elif 0x80 <= o <= 0x9F or o in (0x2028, 0x2029) or 0x202A <= o <= 0x202E \
                or 0x2066 <= o <= 0x2069:
            out += f"\\u{o:04x}"
        else:
            out += c
    return out


check("csv: a site with commas, quotes and line breaks comes back whole, escaped",
      site and site[0].startswith(escaped(hostile["range"]) + "/")
      and site[0].endswith(":" + escaped(hostile["api"])), site)
check("csv: an empty NVTX message stays empty",
      [r["site"] for r in rows if r["pid"] == str(truth["empty_pid"])] == ["outer/:cudaMalloc"],
      rows)

def safe_for_terminal(name, text):
    """No control character in TEXT but its line ends, and no line a string began."""
    controls = sorted({f"U+{ord(c):04X}" for c in text
                       if c != "\n" and (unicodedata.category(c) == "Cc"
                                         or c in "\u2028\u2029\u202a\u202b\u202c\u202d\u202e"
                                         "\u2066\u2067\u2068\u2069")})
    check(f"{name}: no control character but the line ends", not controls, controls)
    check(f"{name}: no line forged by a string of the trace",
          not any(line.startswith("FAKE") for line in text.split("\n")), text[:400])


if text is not None:
    safe_for_terminal("csv", text)

# text
text = utf8("text")
if text is not None:
    safe_for_terminal("text", text)
    check("text: escape sequences shown escaped",
          "ev\\x1b[2Jil" in text and "\\x1b]0;pwned\\x07" in text and "\\r\\nFAKE" in text)
    check("text: an empty NVTX message stays empty", "outer/:cudaMalloc" in text)


# What record and list print for people: as the text report
def for_people(name, shows):
    text = utf8(name)
    if text is None:
        return
    safe_for_terminal(name, text)
    for what in shows:
        check(f"{name}: shows {what} escaped", what in text, text[:400])


process = 'ev\\x1b[2Jil,"q\\xff'
site = 'train,"a"\\r\\nFAKE: 0 leaks\\x1b[31m<script>x</script>'
api = 'cudaMal\\x1b]0;pwned\\x07loc,"x"'
for_people("summary", [process, site, api])
for_people("postmortem", [process, site])
for_people("list", ["tr\\x1b[2Jace\\nFAKE: listed", process])
print(f"1..{n}")
EOF
tap_relay strings "$report_tmp/check.tap"

# HTML, in a real browser: the markup in the NVTX range is text, not an element.
mkdir -p "$report_tmp/html"
"$report_python" "$report_here/check-html.py" "$report_tmp/html.out" "$report_tmp/html" \
	--text "<script>x</script>" >"$report_tmp/html.tap" 2>&1
tap_relay html "$report_tmp/html.tap"
tap_done
