#!/bin/sh
# SPDX-License-Identifier: MIT
#
# checker-on-simulator.sh - the one test of tests/gpu/ that needs no GPU: it
# proves check-printout.py, the checker the GPU tests rely on, where it can
# run every day. Each example is traced on the simulated GPU as
# tests/trace/workload.sh does (same arguments as gpu/trace-examples.sh);
# the checker must pass on its printout and trace (so it follows the
# examples' output formats), and must fail, on the test concerned, on
# doctored copies: a printed size changed, a printed free removed, an event
# twice, the first call missing from the trace, a copy's host memory
# misprinted, a GPU interval moved out of its call, a GPU record with a
# wrong correlation id.

# The awk programs below are in single quotes on purpose.
# shellcheck disable=SC2016

gpu_here=$(cd "$(dirname "$0")" && pwd)
. "$gpu_here/../lib/tap.sh"
. "$gpu_here/../lib/lttng-session.sh"
. "$gpu_here/../lib/trace-run.sh"

trace_setup "$@"
gpu_checker="$trace_srcdir/tests/gpu/check-printout.py"
trace_daemon_or_fail

# check TAG EXAMPLE PRINTOUT EVENTS: the checker's TAP in TAG.check, and
# its exit status in check_status.
check() {
	check_status=0
	"$trace_python" "$gpu_checker" --example "$2" --device simulated --printout "$3" \
		--trace "$4" >"$lttng_tmp/$1.check" 2>&1 || check_status=$?
}

# rejects DESC TAG EXAMPLE PRINTOUT EVENTS PATTERN: the checker fails, and
# one of its failed tests matches PATTERN.
rejects() {
	rejects_desc=$1
	shift
	check "$@"
	if [ "$check_status" -ne 0 ] && grep -q "^not ok [0-9]* - $5" "$lttng_tmp/$1.check"; then
		tap_result 0 "doctored, rejected: $rejects_desc"
		grep "^not ok" "$lttng_tmp/$1.check" | head -n 3 | sed 's/^/#   /'
	else
		tap_result 1 "doctored, rejected: $rejects_desc"
		sed 's/^/#   /' "$lttng_tmp/$1.check" | head -n 30
	fi
}

# edit FILE AWK-PROGRAM [VAR=VALUE...]: FILE's lines through awk, into
# FILE.doctored.
edit() {
	edit_file=$1
	edit_program=$2
	shift 2
	awk "$@" "$edit_program" "$edit_file" >"$edit_file.doctored"
}

# The value of KEY in the first line of FILE that matches the awk pattern.
first_value() {
	awk -v key="$3" "$2"' { for (i = 1; i <= NF; i++) if (index($i, key "=") == 1) {
		print substr($i, length(key) + 2); exit } }' "$1"
}

# trace_on_simulator NAME [ARGS...]: the example traced on the simulator,
# with its printout in NAME.out and its events in NAME.events; then the
# checker on both. Returns non-zero when there is nothing to check.
# trace_tagged TAG EXAMPLE [ARGS...]: EXAMPLE traced as TAG, then checked.
trace_tagged() {
	tag=$1
	example=$2
	shift 2
	trace_workload_or_fail "$example" || return 1
	trace_session "$tag" || return 1
	# shellcheck disable=SC2086
	trace_run "$tag" traced $trace_cmd "$@"
	lttng_session_end "$tag"
	is "$tag runs traced on the simulator" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	trace_read "$tag" || return 1
	check "$tag" "$example" "$lttng_tmp/$tag.out" "$lttng_tmp/$tag.events"
	tap_relay "$tag" "$lttng_tmp/$tag.check"
	return 0
}

trace_on_simulator() {
	trace_tagged "$1" "$@"
}

if trace_on_simulator allocations --leak; then
	out="$lttng_tmp/allocations.out"
	events="$lttng_tmp/allocations.events"
	edit "$out" '!done && /^cudaMalloc 1000 bytes / { sub(/1000/, "1001"); done = 1 } { print }'
	rejects "allocations: a printed size changed (1000 -> 1001)" size allocations \
		"$out.doctored" "$events" 'allocations:'
	edit "$out" '!done && /^cudaFree 0x/ { done = 1; next } { print }'
	rejects "allocations: a printed free removed" free allocations \
		"$out.doctored" "$events" 'frees:'
	edit "$events" '{ print } !done && /^event=cudatrace:mem_alloc / { print; done = 1 }'
	rejects "allocations: a mem_alloc event twice" twice allocations \
		"$out" "$events.doctored" 'allocations:'
	# The first call as it would be lost: its ENTER before cudatrace
	# subscribed, so no event records it (its mem_alloc or api_call).
	corr=$(first_value "$events" \
		'/^event=cudatrace:(mem_alloc|api_call) .* (api_)?domain=runtime /' correlation_id)
	edit "$events" '/^event=cudatrace:(api_entry|api_call|mem_alloc) / &&
		index($0 " ", " correlation_id=" corr " ") { next } { print }' -v corr="$corr"
	rejects "allocations: the first call (correlation id $corr) missing from the trace" first \
		allocations "$out" "$events.doctored" 'the program.s first runtime call'
fi

if trace_on_simulator transfers 2; then
	out="$lttng_tmp/transfers.out"
	events="$lttng_tmp/transfers.events"
	edit "$out" '!done && /^cudaMemcpy HtoD .* from pinned memory$/ {
		sub(/pinned/, "pageable"); done = 1 } { print }'
	rejects "transfers: a pinned copy printed as pageable" host transfers \
		"$out.doctored" "$events" 'copies:'
	# A blocking copy whose GPU work ends after its call returned.
	corr=$(first_value "$events" \
		'/^event=cudatrace:memcpy .* direction=DtoH .* host=pinned sync=1 /' correlation_id)
	leave=$(awk -v corr="$corr" '/^event=cudatrace:memcpy / &&
		index($0 " ", " correlation_id=" corr " ") { sub(/^[^ ]* ts=/, ""); sub(/ .*/, "");
		print; exit }' "$events")
	: "${leave:=0}"
	# its record: a gpu_memcpy(_times) line's end, or its duration in a
	# gpu_batch (base + start[i] + duration[i]: doc/events.md)
	"$trace_python" - "$events" "$corr" "$((leave + 5000))" >"$events.doctored" <<'PY'
import sys

path, corr, late = sys.argv[1], sys.argv[2], int(sys.argv[3])
for line in open(path, encoding="ascii", errors="replace"):
    words = line.rstrip("\n").split(" ")
    pairs = dict(w.partition("=")[::2] for w in words)
    if words[0] in ("event=cudatrace:gpu_memcpy", "event=cudatrace:gpu_memcpy_times") \
            and pairs.get("correlation_id") == corr:
        words = ["end=%d" % late if w.startswith("end=") else w for w in words]
    elif words[0] == "event=cudatrace:gpu_batch" \
            and corr in pairs.get("correlation_id", "").split(","):
        i = pairs["correlation_id"].split(",").index(corr)
        durations = pairs["duration"].split(",")
        durations[i] = str(late - int(pairs["base"], 0) - int(pairs["start"].split(",")[i], 0))
        words = ["duration=" + ",".join(durations) if w.startswith("duration=") else w
                 for w in words]
    print(" ".join(words))
PY
	rejects "transfers: a synchronous DtoH copy ending 5 us after its call" window transfers \
		"$out" "$events.doctored" 'the GPU interval'
	# the first kernel's record: a gpu_kernel(_times|_shaped) line, or a
	# kernel's in a gpu_batch (record 1 or 2: doc/events.md)
	"$trace_python" - "$events" >"$events.doctored" <<'PY'
import sys

done = False
for line in open(sys.argv[1], encoding="ascii", errors="replace"):
    words = line.rstrip("\n").split(" ")
    pairs = dict(w.partition("=")[::2] for w in words)
    column = None
    if done:
        pass
    elif words[0] in ("event=cudatrace:gpu_kernel", "event=cudatrace:gpu_kernel_times",
                      "event=cudatrace:gpu_kernel_shaped"):
        column = ["999999"]
    elif words[0] == "event=cudatrace:gpu_batch":
        kinds = pairs.get("record", "").split(",")
        column = pairs.get("correlation_id", "").split(",")
        kernels = [i for i, kind in enumerate(kinds) if kind in ("1", "2") and i < len(column)]
        if kernels:
            column[kernels[0]] = "999999"
        else:
            column = None
    if column is not None:
        done = True
        words = ["correlation_id=" + ",".join(column) if w.startswith("correlation_id=") else w
                 for w in words]
    print(" ".join(words))
PY
	rejects "transfers: a gpu_kernel with a wrong correlation id" corr transfers \
		"$out" "$events.doctored" 'every gpu_kernel'
fi

trace_on_simulator threads 4 25 || :
trace_on_simulator nvtx-ranges 3 || :
if trace_on_simulator leaky-steps 6; then
	edit "$lttng_tmp/leaky-steps.events" '!done && /^event=cudatrace:memset / { done = 1; next }
		{ print }'
	rejects "leaky-steps: a memset missing from the trace" memset leaky-steps \
		"$lttng_tmp/leaky-steps.out" "$lttng_tmp/leaky-steps.events.doctored" 'memsets:'
fi
# Every GPU record whole (CUDATRACE_COMPACT=0), as a real GPU's check of
# the compact forms runs (trace-examples.sh): each record is checked
# against its call on what the compact forms take from the call; a record
# whose stream is not its call's is rejected.
CUDATRACE_COMPACT=0
export CUDATRACE_COMPACT
if trace_tagged transfers-whole transfers 2; then
	events="$lttng_tmp/transfers-whole.events"
	ok "transfers-whole: the copies' records are whole" \
		grep -q '^event=cudatrace:gpu_memcpy ' "$events"
	edit "$events" '!done && /^event=cudatrace:gpu_memcpy / {
		sub(/ stream=[0-9]+/, " stream=4242"); done = 1 } { print }'
	rejects "transfers-whole: a whole gpu_memcpy on another stream than its call's" \
		stream transfers "$lttng_tmp/transfers-whole.out" "$events.doctored" 'every gpu_kernel'
fi
unset CUDATRACE_COMPACT
CUDASIM_DEVICES=2
export CUDASIM_DEVICES
trace_on_simulator two-devices || :
unset CUDASIM_DEVICES
tap_done
