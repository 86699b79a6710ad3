#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace report` on wrong arguments and on input that is not a usable
# cudatrace trace: a clear message on stderr and exit status 2, never a
# crash (in a sanitizer build, any error report aborts and fails the test).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
ctf() { # SCENARIO DIR
	"$report_python" "$report_here/make-ctf.py" "$1" "$2" >/dev/null
}

# --- arguments
report_run no-args
report_exits no-args 2
report_says no-args "no trace given"

report_run help --help
report_exits help 0
ok "help: describes the options" grep -q -- "--format=FORMAT" "$report_tmp/help.out"

report_run bad-option --frobnicate "$report_tmp"
report_exits bad-option 2
report_says bad-option "unknown option"

report_run bad-format --format=xml "$report_tmp"
report_exits bad-format 2
report_says bad-format "unknown format 'xml'"

report_run bad-device --device=300 "$report_tmp"
report_exits bad-device 2
report_says bad-device "not a device number"

report_run bad-time --from=yesterday "$report_tmp"
report_exits bad-time 2
report_says bad-time "not a time"

# what strtod would take, and is not a time
for time in +nan +inf nan -5 +-1s +0x10s +1e3s " +5" "+1.5.2s" "+" "+s" "5ms"; do
	tag=time-$(printf '%s' "$time" | tr -c 'a-z0-9.' '_')
	report_run "$tag" --from="$time" "$report_tmp"
	report_exits "$tag" 2
	report_says "$tag" "from=$time is not a time"
done
report_run time-too-far --to=+10000000000s "$report_tmp"
report_exits time-too-far 2
report_says time-too-far "to=+10000000000s: too far"
report_run time-beyond-clock --from=99999999999999999999 "$report_tmp"
report_exits time-beyond-clock 2
report_says time-beyond-clock "too far"

report_run bad-window --from=+2s --to=+1s "$report_tmp"
report_exits bad-window 2
report_says bad-window "from=+2s is after --to=+1s"

report_run bad-analysis --analysis=memory,astrology "$report_tmp"
report_exits bad-analysis 2
report_says bad-analysis "unknown analysis 'astrology'"

report_run no-analysis --analysis= "$report_tmp"
report_exits no-analysis 2
report_says no-analysis "needs at least one analysis"

report_run empty-analysis --analysis=memory, "$report_tmp"
report_exits empty-analysis 2
report_says empty-analysis "analysis=memory,: an empty name"

report_run empty-output --output= "$report_tmp"
report_exits empty-output 2
report_says empty-output "output needs a file name"

report_run empty-plot --plot= "$report_tmp"
report_exits empty-plot 2
report_says empty-plot "plot needs a directory"

report_run brief-json --brief --format=json "$report_tmp"
report_exits brief-json 2
report_says brief-json "brief is for the text and HTML reports, not json"

report_run brief-details --brief --details "$report_tmp"
report_exits brief-details 2
report_says brief-details "brief and --details contradict each other"

report_run missing-value --format
report_exits missing-value 2

# a path longer than a path may be, and one longer than a message: named all the same
long=$("$report_python" -c 'print("/nowhere/" + "x" * 5000)')
report_run long-path "$long"
report_exits long-path 2
report_says long-path "/nowhere/xxx.*xxx' is too long for a path"
long=$("$report_python" -c 'print("/nowhere/" + "/".join(["y" * 200] * 12))')
report_run long-missing "$long"
report_exits long-missing 2
report_says long-missing "cannot open '/nowhere/yyy.*yyy': No such file or directory"

# --- input that is not a trace
report_run missing "$report_tmp/nowhere"
report_exits missing 2
report_says missing "cannot open"

echo "hello" >"$report_tmp/file"
report_run file "$report_tmp/file"
report_exits file 2
report_says file "is not a trace"

mkdir "$report_tmp/empty"
report_run empty-dir "$report_tmp/empty"
report_exits empty-dir 2
report_says empty-dir "no trace in"

# a trace nested deeper than the search goes
deep="$report_tmp/deep/1/2/3/4/5/6/7/8/9/10/11/12/13"
mkdir -p "$deep" && ctf basic "$deep/trace"
report_run too-deep "$report_tmp/deep"
report_exits too-deep 2
report_says too-deep "no trace in '.*/deep' within 12 directory levels"
report_run deep-trace "$deep/trace"
report_exits deep-trace 0

# a trace named twice, or found twice, is read once
events() { # TAG
	"$report_python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["trace"]["events"])' \
		"$report_tmp/$1.out" 2>/dev/null
}
report_run once --format=json "$deep/trace"
report_run named-twice --format=json "$deep/trace" "$deep/trace"
report_exits named-twice 0
report_says named-twice "is named twice: it is read once"
is "named twice: its events count once" "$(events named-twice)" "$(events once)"
report_run found-twice --format=json "$report_tmp/deep/1/2/3/4/5/6/7/8/9/10/11" "$deep/trace"
report_exits found-twice 0
report_says found-twice "is named twice: it is read once"
is "found twice: its events count once" "$(events found-twice)" "$(events once)"
ln -s "$deep/trace" "$report_tmp/link"
report_run linked-twice --format=json "$deep" "$report_tmp/link"
report_exits linked-twice 0
report_says linked-twice "'.*/link' is the same trace as '.*/13/trace'"
is "linked twice: its events count once" "$(events linked-twice)" "$(events once)"

mkdir "$report_tmp/garbage"
head -c 3000 /dev/urandom >"$report_tmp/garbage/metadata"
cp "$report_tmp/garbage/metadata" "$report_tmp/garbage/stream_0"
report_run_damaged garbage "$report_tmp/garbage"
report_exits garbage 2
report_says garbage "not a readable trace"

# metadata cut in the middle of a declaration
ctf basic "$report_tmp/cut-metadata"
head -c 1500 "$report_tmp/cut-metadata/metadata" >"$report_tmp/m" &&
	mv "$report_tmp/m" "$report_tmp/cut-metadata/metadata"
report_run_damaged cut-metadata "$report_tmp/cut-metadata"
report_exits cut-metadata 2
report_says cut-metadata "the metadata of '.*cut-metadata' is cut short"

# metadata made invalid (a type that does not exist)
ctf basic "$report_tmp/bad-metadata"
sed 's/uint64_t _address;/no_such_type _address;/' "$report_tmp/bad-metadata/metadata" \
	>"$report_tmp/m" && mv "$report_tmp/m" "$report_tmp/bad-metadata/metadata"
report_run_damaged bad-metadata "$report_tmp/bad-metadata"
report_exits bad-metadata 2
report_says bad-metadata "not a readable trace"

# --- traces that are not cudatrace's, or not of a version this reader knows
ctf foreign "$report_tmp/foreign"
report_run foreign "$report_tmp/foreign"
report_exits foreign 2
report_says foreign "no cudatrace events"

# call stacks in objects whose recorded paths are a FIFO, a device, a
# directory, a missing file, a relative path: named without reading them
ctf stacks "$report_tmp/stacks" >/dev/null
report_run stacks "$report_tmp/stacks"
report_exits stacks 0
ok "stacks: the site is named from the object's path alone" \
	grep -q "fifo+0x1234" "$report_tmp/stacks.out"
ok "stacks: a Python stack's site is its first frame" \
	grep -q "train.py:12 in step" "$report_tmp/stacks.out"
ok "stacks: ... and the lines after one that is not a frame are left out" \
	sh -c '! grep -q "shown\.py" "$1"' sh "$report_tmp/stacks.out"
report_run stacks-json --format json -o "$report_tmp/stacks.json" "$report_tmp/stacks"
report_exits stacks-json 0
ok "stacks: ... and is JSON, with the Python frames kept" \
	/usr/bin/python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
sites = doc["memory"]["devices"][0]["leak_sites"]
frames = [f for s in sites for f in s.get("stack") or [] if f["python"]]
sys.exit(not (len(frames) == 2 and frames[0]["function"] == "step" and frames[0]["line"] == 12
              and len(frames[1]["function"]) == 2000))' "$report_tmp/stacks.json"

ctf future "$report_tmp/future"
report_run future "$report_tmp/future"
report_exits future 2
report_says future "newer than this reader"

ctf old-layout "$report_tmp/old-layout"
report_run old-layout "$report_tmp/old-layout"
report_exits old-layout 2
report_says old-layout "has no field 'delta'"

ctf empty "$report_tmp/no-events"
report_run no-events "$report_tmp/no-events"
report_exits no-events 2
report_says no-events "no events"

# --- the command itself
status=0
"$report_cmd" frobnicate >/dev/null 2>"$report_tmp/verb.err" || status=$?
is "an unknown verb exits 2" "$status" 2
status=0
"$report_cmd" --version >"$report_tmp/version.out" 2>&1 || status=$?
is "--version exits 0" "$status" 0
ok "--version names the version" grep -q "^cudatrace [0-9]" "$report_tmp/version.out"
tap_done
