#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace report` on damaged traces made from make-ctf.py's: the trace
# laid out as LTTng writes it (packetized metadata, index files), the
# plain one (text metadata, no index) and the plain one as babeltrace2's
# own CTF writer writes it, each cut, bit-flipped and zeroed in every file
# by damage.py (which runs `cudatrace list` on each copy too); metadata
# too large, nested too deep, not CTF, naming a member twice or declaring
# a pointer; packet counts babeltrace2 aborts on; a bit flipped in an
# event's timestamp (a call centuries long); a GPU stream file cut inside
# its first packet; 0xff packet times; `cudatrace list` of damaged traces
# beside good ones; a recorded trace whose metadata, ust/ or a stream file
# is gone, or that holds fewer events than its notes count (never called
# complete); a damaged trace read with a good one. Each run ends in
# bounded time with exit status 0 (a report that says what was lost) or 2
# (a message in cudatrace's terms), never a crash: in a sanitizer build,
# an error report aborts, which fails the run.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/report-lib.sh"

report_locate
ctf() { # SCENARIO DIR
	"$report_python" "$report_here/make-ctf.py" "$1" "$2" >/dev/null ||
		tap_fail_all "make-ctf.py makes the $1 trace"
}

# --- every file of a trace damaged in many ways
ctf lttng "$report_tmp/lttng"
ctf basic "$report_tmp/basic"
for trace in lttng basic; do
	"$report_python" "$report_here/damage.py" "$report_cmd" "$report_tmp/$trace" \
		"$report_tmp/work-$trace" 1 >"$report_tmp/$trace.tap" 2>&1
	tap_relay "$trace" "$report_tmp/$trace.tap"
done

# --- a trace of another CTF writer (babeltrace2's sink.ctf.fs: its own packet
# header and context, clock and stream class), damaged the same ways
if babeltrace2 "$report_tmp/basic" -o ctf -w "$report_tmp/other-writer" >/dev/null 2>&1; then
	metadata=$(find "$report_tmp/other-writer" -name metadata -type f | head -n 1)
	"$report_python" "$report_here/damage.py" "$report_cmd" "$(dirname "$metadata")" \
		"$report_tmp/work-other-writer" 1 >"$report_tmp/other-writer.tap" 2>&1
	tap_relay other-writer "$report_tmp/other-writer.tap"
else
	tap_result 1 "babeltrace2 writes a CTF trace with sink.ctf.fs (Debian: babeltrace2)"
fi

# --- the metadata cut inside a packet: babeltrace2 alone never ends there
cp -r "$report_tmp/lttng" "$report_tmp/metadata-cut"
head -c 6000 "$report_tmp/lttng/metadata" >"$report_tmp/metadata-cut/metadata"
report_run_damaged metadata-cut --format=json "$report_tmp/metadata-cut"
report_exits metadata-cut 0
report_says metadata-cut "metadata of '.*metadata-cut' is cut short inside its packet at byte 4096"
field() { # TAG EXPRESSION
	"$report_python" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" \
		"$report_tmp/$1.out" 2>/dev/null
}
is "metadata cut: reported as incomplete" "$(field metadata-cut "d['trace']['complete']")" False

# --- a packet size and an index entry beyond the file: babeltrace2 alone aborts
cp -r "$report_tmp/lttng" "$report_tmp/sizes"
cp -r "$report_tmp/lttng" "$report_tmp/index"
"$report_python" - "$report_tmp" <<'PY'
import struct, sys
d = sys.argv[1]
with open(f"{d}/sizes/cudatrace_0", "r+b") as f:      # the second packet: 2^63 bits
    f.seek(4096 + 48)
    f.write(struct.pack("<Q", 1 << 63))
with open(f"{d}/index/index/cudatrace_0.idx", "r+b") as f:  # the first entry's offset: 1 MiB
    f.seek(16)
    f.write(struct.pack(">Q", 1 << 20))
PY
report_run_damaged sizes --format=json "$report_tmp/sizes"
report_exits sizes 0
report_says sizes "stream file 'cudatrace_0' of '.*sizes' has a corrupt packet (its size) at byte 4096"
ok "sizes: the events of the first packet are analysed" test "$(field sizes "d['trace']['events']")" -gt 5
is "sizes: reported as incomplete" "$(field sizes "d['trace']['complete']")" False
report_run_damaged index --format=json "$report_tmp/index"
report_exits index 0
report_says index "the index of stream file 'cudatrace_0' of '.*index' does not match it"
is "index: every event is read without it" "$(field index "d['trace']['events']")" 25
is "index: reported as complete" "$(field index "d['trace']['complete']")" True

# --- a packet after the first whose count of discarded events, or whose
# sequence number, is 2^64 - 1: babeltrace2 alone aborts (it takes the
# value for "none")
for count in events-discarded:56 seq-num:64; do
	cp -r "$report_tmp/lttng" "$report_tmp/${count%:*}"
	"$report_python" - "$report_tmp/${count%:*}/cudatrace_0" "${count#*:}" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:      # the second packet's context field
    f.seek(4096 + int(sys.argv[2]))
    f.write(struct.pack("<Q", (1 << 64) - 1))
PY
	report_run_damaged "${count%:*}" --format=json "$report_tmp/${count%:*}"
	report_exits "${count%:*}" 0
	report_says "${count%:*}" "stream file 'cudatrace_0' of '.*${count%:*}' has a corrupt packet (its count of discarded events or its sequence number) at byte 4096"
	ok "${count%:*}: the events of the first packet are analysed" \
		test "$(field "${count%:*}" "d['trace']['events']")" -gt 5
done

# --- one flipped bit (2^62) in the timestamp of an event that records a
# call: a call centuries long, left out of the API table and said; the
# sums saturate rather than overflow (a sanitizer build aborts on that)
"$report_python" "$report_here/make-ctf.py" bench-gpu 300 "$report_tmp/calls" >/dev/null ||
	tap_fail_all "make-ctf.py makes the bench-gpu trace"
"$report_python" - "$report_cmd" "$report_tmp/calls" "$report_tmp/flipped" <<'PY' >"$report_tmp/flip.log" 2>&1
import json, os, shutil, struct, subprocess, sys
cmd, trace, out = sys.argv[1:4]
data = open(f"{trace}/cudatrace_0", "rb").read()
# the events' 64-bit timestamps: the values of the trace's first second (make-ctf.py's clock)
for at in range(64, 4096):
    if not 10**9 <= struct.unpack_from("<Q", data, at)[0] < 10**9 + 10**8:
        continue
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(trace, out)
    flipped = bytearray(data)
    flipped[at + 7] ^= 0x40
    open(f"{out}/cudatrace_0", "wb").write(flipped)
    r = subprocess.run([cmd, "report", "--format=json", out], capture_output=True)
    if r.returncode == 0 and any(a["implausible_calls"] for a in json.loads(r.stdout)["api"]):
        print(f"flipped at {at + 7}")
        sys.exit(0)
sys.exit(1)
PY
ok "flipped: a timestamp whose flipped bit makes a call centuries long is found" \
	test "$?" = 0 || sed 's/^/#   /' "$report_tmp/flip.log"
report_run_damaged flipped --format=json "$report_tmp/flipped"
report_exits flipped 0
report_says flipped "API calls that returned after more than a year, a damaged time: [1-9][0-9]*, left out of the API table"
report_says flipped "the trace's events span more than a year: an event's time is damaged"
ok "flipped: no API's host time adds up to a year" \
	test "$(field flipped "max(a['total_ns'] for a in d['api']) < 365 * 86400 * 10**9")" = True
ok "flipped: the implausible calls are counted" \
	test "$(field flipped "sum(a['implausible_calls'] for a in d['api'])")" -gt 0

# --- the GPU stream file cut inside its first packet, inside its first
# gpu_batch: babeltrace2 alone aborts when another stream file's source is
# read after it failed. Every verb, with one decoding group and several.
cp -r "$report_tmp/calls" "$report_tmp/gpu-cut"
truncate -s 1000 "$report_tmp/gpu-cut/cudatrace-gpu_0"
cp -r "$report_tmp/calls" "$report_tmp/host-only"
rm "$report_tmp/host-only/cudatrace-gpu_0"
report_run_damaged host-only --format=json "$report_tmp/host-only"
# verb_run TAG VERB ARGS...: as report_run_damaged, for another verb
verb_run() {
	verb_tag=$1
	shift
	verb_asan=${ASAN_OPTIONS:-}
	report_status=0
	ASAN_OPTIONS="${verb_asan:+$verb_asan:}detect_leaks=0" timeout -k 10 "$report_time_limit" \
		"$report_cmd" "$@" >"$report_tmp/$verb_tag.out" 2>"$report_tmp/$verb_tag.err" ||
		report_status=$?
}
# the same packet, its sizes made those of the bytes there (as a repair
# makes them): no check sees it, the event cut short stops the decoding
cp -r "$report_tmp/gpu-cut" "$report_tmp/gpu-sized"
"$report_python" - "$report_tmp/gpu-sized/cudatrace-gpu_0" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:      # content_size and packet_size: 1000 bytes
    f.seek(40)
    f.write(struct.pack("<QQ", 8000, 8000))
PY
for groups in 1 2; do
	CUDATRACE_DECODE_GROUPS=$groups
	export CUDATRACE_DECODE_GROUPS
	report_run_damaged gpu-sized-$groups --format=json "$report_tmp/gpu-sized"
	report_exits gpu-sized-$groups 0
	report_says gpu-sized-$groups "event data that cannot be decoded (corrupt, or cut short) ends a stream"
	ok "gpu-sized-$groups: the host stream files' events are analysed" \
		test "$(field gpu-sized-$groups "d['trace']['events']")" -ge \
		"$(field host-only "d['trace']['events']")"
	report_run_damaged gpu-cut-$groups --format=json "$report_tmp/gpu-cut"
	report_exits gpu-cut-$groups 0
	report_says gpu-cut-$groups "stream file 'cudatrace-gpu_0' of '.*gpu-cut' ends in a partial packet"
	ok "gpu-cut-$groups: the host stream files' events are analysed" \
		test "$(field gpu-cut-$groups "d['trace']['events']")" -ge \
		"$(field host-only "d['trace']['events']")"
	report_run_damaged gpu-cut-text-$groups "$report_tmp/gpu-cut"
	report_exits gpu-cut-text-$groups 0
	verb_run gpu-cut-perfetto-$groups export -o "$report_tmp/gpu-cut.pftrace" "$report_tmp/gpu-cut"
	report_exits gpu-cut-perfetto-$groups 0
	rm -rf "$report_tmp/gpu-cut-ctf"
	verb_run gpu-cut-ctf-$groups export --format ctf -o "$report_tmp/gpu-cut-ctf" \
		"$report_tmp/gpu-cut"
	ok "gpu-cut-ctf-$groups: exits 0 or 2 (no GPU operation left), no crash" \
		test "$report_status" = 0 -o "$report_status" = 2
done
unset CUDATRACE_DECODE_GROUPS

# --- 0xff bytes in a packet's timestamp_begin or timestamp_end, or a
# packet that ends before it begins: babeltrace2 alone aborts, or reads
# nothing of the trace. The packets before it are read.
for case in begin:24:ffffffffffffffff end:32:ffffffffffffffff order:31:ff; do
	tag=times-${case%%:*}
	cp -r "$report_tmp/lttng" "$report_tmp/$tag"
	at=${case#*:}
	"$report_python" - "$report_tmp/$tag/cudatrace_0" "$((4096 + ${at%%:*}))" "${at#*:}" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:      # the second packet's context field
    f.seek(int(sys.argv[2]))
    f.write(bytes.fromhex(sys.argv[3]))
PY
	report_run_damaged "$tag" --format=json "$report_tmp/$tag"
	report_exits "$tag" 0
	report_says "$tag" "stream file 'cudatrace_0' of '.*$tag' has a corrupt packet (its times) at byte 4096"
	ok "$tag: the events of the first packet are analysed" \
		test "$(field "$tag" "d['trace']['events']")" -gt 5
	is "$tag: reported as incomplete" "$(field "$tag" "d['trace']['complete']")" False
done

# --- `cudatrace list` of damaged traces beside good ones: each listed, exit 0
mkdir -p "$report_tmp/listed"
cp -r "$report_tmp/lttng" "$report_tmp/listed/good"
cp -r "$report_tmp/calls" "$report_tmp/listed/good-gpu"
cp -r "$report_tmp/gpu-cut" "$report_tmp/times-begin" "$report_tmp/listed/"
cp -r "$report_tmp/basic" "$report_tmp/listed/not-ctf"
echo "hello, this is not a trace" >"$report_tmp/listed/not-ctf/metadata"
verb_run listed list "$report_tmp/listed"
report_exits listed 0
for name in good good-gpu gpu-cut times-begin not-ctf; do
	ok "listed: a line for $name" grep -q "^$name " "$report_tmp/listed.out"
done
ok "listed: the good traces' peaks" \
	sh -c 'grep -q "^good  .*27\.00 MiB" "$1" && grep -q "^good-gpu .*MiB" "$1"' sh "$report_tmp/listed.out"

# --- a trace laid out as `cudatrace record` leaves it (its notes, with the
# events its recorder counted, and a loaded library's list beside ust/),
# then its metadata, its ust/ directory or its stream file removed, or
# fewer events in it than the notes count: never complete, said on stderr
recorded() { # TAG
	mkdir -p "$report_tmp/$1/ust/uid/0"
	cp -r "$report_tmp/lttng" "$report_tmp/$1/ust/uid/0/64-bit"
	printf 'version=1\nsession=s\nmode=local\nprogram=synthetic\nevents=%s\ncomplete=true\n' \
		"${2:-25}" >"$report_tmp/$1/cudatrace.info"
	printf '/usr/lib/libcuda.so.1\tlibcuda.so.1\t\t/usr/lib/libcuda.so.1\n' \
		>"$report_tmp/$1/objects-4242"
}
recorded whole
report_run_damaged whole --format=json "$report_tmp/whole"
report_exits whole 0
is "whole: complete, nothing said" "$(field whole "d['trace']['complete']")$(cat "$report_tmp/whole.err")" True
report_run_damaged whole-twice --format=json "$report_tmp/whole" "$report_tmp/whole"
report_exits whole-twice 0
is "whole named twice: complete, its events counted once" \
	"$(field whole-twice "d['trace']['complete']") $(grep -vc 'is named twice' "$report_tmp/whole-twice.err")" \
	"True 0"
recorded no-metadata
rm "$report_tmp/no-metadata/ust/uid/0/64-bit/metadata"
recorded no-ust
rm -r "$report_tmp/no-ust/ust"
recorded fewer 30
for tag in no-metadata no-ust fewer; do
	report_run_damaged "$tag" --format=json "$report_tmp/$tag"
	report_exits "$tag" 0
	is "$tag: reported as incomplete" "$(field "$tag" "d['trace']['complete']")" False
done
report_says no-metadata "the trace holds 0 of the 25 events its recorder counted (cudatrace.info): its metadata or its stream files are missing"
report_says no-ust "the trace holds 0 of the 25 events its recorder counted"
report_says fewer "the trace holds 25 of the 30 events its recorder counted (cudatrace.info): stream files are missing or damaged"
is "fewer: why, in trace.error" "$(field fewer "'30 events' in d['trace']['error']")" True
recorded no-stream
rm "$report_tmp/no-stream/ust/uid/0/64-bit/cudatrace_0"
report_run_damaged no-stream --format=json "$report_tmp/no-stream"
report_exits no-stream 2
report_says no-stream "stream file 'cudatrace_0' of '.*no-stream/ust/uid/0/64-bit' is missing (its index is there)"
report_says no-stream "the trace holds 0 of the 25 events its recorder counted"
# a trace without notes: its index names the stream file that is not there
cp -r "$report_tmp/calls" "$report_tmp/indexed"
mkdir "$report_tmp/indexed/index"
for f in cudatrace_0 cudatrace_1 cudatrace-gpu_0; do
	: >"$report_tmp/indexed/index/$f.idx"
done
rm "$report_tmp/indexed/cudatrace_1"
report_run_damaged indexed --format=json "$report_tmp/indexed"
report_exits indexed 0
report_says indexed "stream file 'cudatrace_1' of '.*indexed' is missing (its index is there)"
is "indexed: reported as incomplete" "$(field indexed "d['trace']['complete']")" False

# --- metadata that cudatrace does not hand to babeltrace2
cp -r "$report_tmp/basic" "$report_tmp/huge"
"$report_python" - "$report_tmp/huge/metadata" <<'PY'
import sys
# 5 MiB: declarations that never end, as a file that is not metadata may look
with open(sys.argv[1], "a") as f:
    f.write("/* " + "x" * (5 << 20) + " */\n")
PY
report_run_damaged huge "$report_tmp/huge"
report_exits huge 2
report_says huge "its metadata is 5.0 MiB, more than the 4 MiB cudatrace reads"

cp -r "$report_tmp/basic" "$report_tmp/deep"
"$report_python" -c 'import sys; open(sys.argv[1], "a").write("struct s " + "{ " * 100 + "}" * 100 + ";\n")' \
	"$report_tmp/deep/metadata"
report_run_damaged deep "$report_tmp/deep"
report_exits deep 2
report_says deep "its metadata nests declarations more than 32 deep"

cp -r "$report_tmp/basic" "$report_tmp/not-ctf"
echo "hello, this is not a trace" >"$report_tmp/not-ctf/metadata"
report_run_damaged not-ctf "$report_tmp/not-ctf"
report_exits not-ctf 2
report_says not-ctf "its metadata is not CTF 1.8"

# A copy TAG of the plain trace, the first OLD of its metadata replaced by NEW.
edited() { # TAG OLD NEW: a copy of the basic trace, OLD in its metadata made NEW
	cp -r "$report_tmp/basic" "$report_tmp/$1"
	edited_again "$@"
}

edited_again() { # TAG OLD NEW: the same in TAG's metadata, edited before
	"$report_python" - "$report_tmp/$1/metadata" "$2" "$3" <<'PY' ||
import sys
path, old, new = sys.argv[1:4]
text = open(path).read()
open(path, "w").write(text.replace(old, new, 1))
PY
		tap_fail_all "cannot edit the metadata of $1"
}

# a member named twice ("_x" is "x" in CTF 1.8): babeltrace2 alone aborts
edited member-twice "uint16_t _cbid;" "$(printf 'uint16_t _cbid;\n\t\tuint16_t cbid;')"
report_run_damaged member-twice "$report_tmp/member-twice"
report_exits member-twice 2
report_says member-twice "a structure or variant has two members named 'cbid'"

# a pointer after a type of its own: babeltrace2 alone aborts
edited pointer "uint16_t _cbid;" "integer { size = 16; align = 8; } *_cbid;"
report_run_damaged pointer "$report_tmp/pointer"
report_exits pointer 2
report_says pointer "its metadata is not valid CTF: it declares a pointer"

# a sequence whose length names no field before it: babeltrace2 2.0 alone
# aborts on some (its event.context is resolved per event class)
edited length-undeclared "} __name_length;" "} __name_size;"
report_run_damaged length-undeclared "$report_tmp/length-undeclared"
report_exits length-undeclared 2
report_says length-undeclared \
	"a sequence's length names '__name_length', which no field before it declares"

# a variant whose tag names no field before it
edited tag-undeclared "uint16_t _cbid;" \
	"$(printf 'uint16_t _cbid;\n\t\tvariant <_kind> { uint8_t a; } _choice;')"
report_run_damaged tag-undeclared "$report_tmp/tag-undeclared"
report_exits tag-undeclared 2
report_says tag-undeclared "a variant's tag names '_kind', which no field before it declares"

# a variant's option that no label of an enumeration names (no tag value
# selects it): babeltrace2 2.0 alone aborts; options named by labels, one
# of them quoted, pass that screen and meet the next
edited option-unlabelled "uint16_t _cbid;" \
	"$(printf 'uint16_t _cbid;\n\t\tenum : uint8_t { one = 1, "two" = 2 } _kind;\n\t\tvariant <_kind> { uint8_t one; uint16_t three; } _choice;')"
report_run_damaged option-unlabelled "$report_tmp/option-unlabelled"
report_exits option-unlabelled 2
report_says option-unlabelled \
	"a variant's option 'three' is no label of an enumeration, so no tag selects it"
edited option-labelled "uint16_t _cbid;" \
	"$(printf 'uint16_t _cbid;\n\t\tenum : uint8_t { one = 1, "two" = 2 } _kind;\n\t\tvariant <_kind> { uint8_t one; uint16_t two; } _choice;\n\t\tuint8_t _s[_undeclared];')"
report_run_damaged option-labelled "$report_tmp/option-labelled"
report_exits option-labelled 2
report_says option-labelled \
	"a sequence's length names '_undeclared', which no field before it declares"

# options whose ranges overlap in their enumeration, once written and once
# implicit (a label without a value is the one after the entry before it),
# and an option given two ranges that overlap: babeltrace2 2.0 alone aborts
edited options-overlap "uint16_t _cbid;" \
	"$(printf 'uint16_t _cbid;\n\t\tenum : uint8_t { a = 0 ... 10, b = 5 ... 20 } _kind;\n\t\tvariant <_kind> { uint8_t a; uint16_t b; } _choice;')"
edited options-implicit "uint16_t _cbid;" \
	"$(printf 'uint16_t _cbid;\n\t\tenum : uint8_t { a, b, c = 1 } _kind;\n\t\tvariant <_kind> { uint8_t b; uint16_t c; } _choice;')"
edited option-twice "uint16_t _cbid;" \
	"$(printf 'uint16_t _cbid;\n\t\tenum : uint8_t { a = 0 ... 10, a = 5 ... 20 } _kind;\n\t\tvariant <_kind> { uint8_t a; } _choice;')"
for each in options-overlap options-implicit option-twice; do
	report_run_damaged $each "$report_tmp/$each"
	report_exits $each 2
done
report_says options-overlap \
	"a variant's options 'a' and 'b' have ranges that overlap in one enumeration"
report_says options-implicit \
	"a variant's options 'b' and 'c' have ranges that overlap in one enumeration"
report_says option-twice "a variant's option 'a' has ranges that overlap in its enumeration"

# an enumeration's range that ends before it starts, in its integer's
# signedness (its own, a typedef's, a typealias's): babeltrace2 2.0 alone
# aborts (-1 is 2^64 - 1 unsigned, and 2^64 - 1 is -1 signed); -1 ... 5
# signed passes that screen and meets the next
edited range-unsigned "uint16_t _cbid;" \
	"$(printf 'uint16_t _cbid;\n\t\tenum : uint8_t { a = -1 ... 5 } _kind;')"
edited range-signed "uint16_t _cbid;" \
	"$(printf 'uint16_t _cbid;\n\t\tenum : integer { size = 8; signed = true; } { a = 0 ... 18446744073709551615 } _kind;')"
edited range-typedef "uint16_t _cbid;" \
	"$(printf 'uint16_t _cbid;\n\t\tenum : s8_t { a = 5 ... -1 } _kind;')"
edited_again range-typedef "stream {" \
	"$(printf 'typedef integer { size = 8; align = 8; signed = true; } s8_t;\n\nstream {')"
for each in range-unsigned range-signed range-typedef; do
	report_run_damaged $each "$report_tmp/$each"
	report_exits $each 2
	report_says $each "the range of enumeration label 'a' ends before it starts"
done
edited range-ordered "uint16_t _cbid;" \
	"$(printf 'uint16_t _cbid;\n\t\tenum : s8_t { a = -1 ... 5 } _kind;\n\t\tuint8_t _s[_undeclared];')"
edited_again range-ordered "stream {" \
	"$(printf 'typealias integer { size = 8; align = 8; signed = 1; } := s8_t;\n\nstream {')"
report_run_damaged range-ordered "$report_tmp/range-ordered"
report_exits range-ordered 2
report_says range-ordered "a sequence's length names '_undeclared', which no field before it declares"

# a context of an event class's own that holds a sequence (in a structure
# named before) or a variant: valid CTF, on which babeltrace2 2.0 alone
# aborts; and an event header that holds a sequence, on which it dies of
# SIGSEGV
edited context-sequence "fields := struct {" \
	"$(printf 'context := struct {\n\t\tstruct counted _c;\n\t};\n\tfields := struct {')"
edited_again context-sequence "stream {" \
	"$(printf 'struct counted { uint8_t n; uint8_t s[n]; };\n\nstream {')"
edited context-variant "fields := struct {" \
	"$(printf 'context := struct {\n\t\tenum : uint8_t { a = 1, b = 2 } _k;\n\t\tvariant <_k> { uint8_t a; uint16_t b; } _v;\n\t};\n\tfields := struct {')"
for each in context-sequence context-variant; do
	report_run_damaged $each "$report_tmp/$each"
	report_exits $each 2
	report_says $each \
		"an event class whose context holds a sequence or a variant, which babeltrace2 2.0 cannot read"
done
edited header-sequence "clock_t timestamp;" \
	"$(printf 'clock_t timestamp;\n\t\tuint8_t _s[stream.packet.context.cpu_id];')"
report_run_damaged header-sequence "$report_tmp/header-sequence"
report_exits header-sequence 2
report_says header-sequence "an event header that holds a sequence, which babeltrace2 2.0 cannot read"

# a scope whose type is not a structure (CTF 1.8 makes each one): an
# event's fields an integer, an event header a string; babeltrace2 2.0
# alone dies of SIGSEGV
edited fields-integer "fields := struct {" "$(printf 'fields := uint32_t;\n\tunused := struct {')"
edited header-string "event.header := struct {" \
	"$(printf 'event.header := string;\n\tunused := struct {')"
for each in fields-integer header-string; do
	report_run_damaged $each "$report_tmp/$each"
	report_exits $each 2
	report_says $each "a scope whose type is not a structure, which babeltrace2 2.0 cannot read"
done

# a clock's precision of 2^64 - 1, babeltrace2 2.0's "unknown": it alone aborts
edited precision-unknown "precision = 1;" "precision = 18446744073709551615;"
report_run_damaged precision-unknown "$report_tmp/precision-unknown"
report_exits precision-unknown 2
report_says precision-unknown "gives a clock a precision of 2^64 - 1 or more"

# a sequence whose length names a field of a scope read after its own
# (CTF 1.8, 7.3.2): babeltrace2 2.0 alone aborts
edited length-later "fields := struct {" \
	"$(printf 'context := struct {\n\t\tuint8_t _s[event.fields._x];\n\t};\n\tfields := struct {')"
report_run_damaged length-later "$report_tmp/length-later"
report_exits length-later 2
report_says length-later \
	"a sequence's length in event.context names a field of event.fields, a scope read after it"

# a second stream class with no event class, whose event context holds a
# sequence (as an LTTng channel whose events were never declared, with a
# context of its own): babeltrace2 2.0 alone aborts, resolving that
# context per event class. Nothing of the trace is lost: the report is the
# unedited trace's.
cp -r "$report_tmp/basic" "$report_tmp/no-event-class"
"$report_python" - "$report_tmp/no-event-class/metadata" <<'PY' ||
import sys
path = sys.argv[1]
text = open(path).read()
start = text.index("stream {")
block = text[start:text.index("\n};\n", start) + 4].replace("id = 0;", "id = 1;", 1)
context = block.index("event.context := struct {") + len("event.context := struct {")
block = (block[:context] + "\n\t\tuint16_t __tag_length;\n\t\tuint8_t _tag[ __tag_length ];"
         + block[context:])
open(path, "w").write(text + "\n" + block)
PY
	tap_fail_all "cannot edit the metadata of no-event-class"
report_run_damaged no-event-class --format=json "$report_tmp/no-event-class"
report_exits no-event-class 0
report_run unedited --format=json "$report_tmp/basic"
is "no event class: the events of the unedited trace" \
	"$(field no-event-class "d['trace']['events']")" "$(field unedited "d['trace']['events']")"
is "no event class: reported as complete" "$(field no-event-class "d['trace']['complete']")" True

# --- a damaged trace and a good one: the good one is read, the other said
ctf foreign "$report_tmp/foreign"
report_run_damaged mixed --format=json "$report_tmp/not-ctf" "$report_tmp/foreign" \
	"$report_tmp/basic"
report_exits mixed 0
report_says mixed "skipping '.*not-ctf': its metadata is not CTF 1.8"
is "mixed: the good trace's events and the other provider's are counted" \
	"$(field mixed "d['trace']['events'], d['trace']['other_events']")" "25 10"
tap_done
