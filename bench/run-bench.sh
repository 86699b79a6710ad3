#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run-bench.sh - what tracing costs, printed as ratios from one run (`make
# bench`); nothing is asserted. On the simulated GPU, with call-loop (small
# pinned uploads and kernel launches on one stream):
#
#   - host time per call untraced, traced with no session daemon, traced
#     with a daemon but no session (with and without activity records),
#     and traced into a session with API calls on; target: under 5 %
#     overhead without a session. The floor under the no-session cases is
#     measured too: idle-inject attaches CUPTI and loads lttng-ust and does
#     nothing else, so what a case costs above it is cudatrace's own;
#   - the cost of one bare LTTng event of a memcpy's size (bare-loop, the
#     benchmark's own provider) in the same run, and from it the tracer's
#     own work per call against the cost of the events it emits; target:
#     at most 2x;
#   - trace bytes per call, with the contexts `cudatrace record` adds;
#     target: at most 80 on average, and 48 with --no-api (CUDATRACE_API=0),
#     which writes the same trace of this loop: each of its calls has its
#     semantic event. They are split into what the events' own fields take
#     and what every event carries besides (LTTng's event header, the vpid
#     context, and the vtid context on host events only).
#     tests/cli/record-size.sh bounds the same figure, on a copy loop and a
#     launch loop, with and without --no-api, in every `make check`.
#
# Each timing is the best of BENCH_REPS rounds (default 5) of BENCH_ROUNDS
# iterations (default 20000, two calls each); every round measures every
# case once, so that a busy moment of the machine does not fall on one
# case only. Runs in a private mount namespace with its own session
# daemon, like the trace tests.

bench_here=$(cd "$(dirname "$0")" && pwd)
CUDATRACE_SRCDIR=$(cd "$bench_here/.." && pwd)
export CUDATRACE_SRCDIR
. "$bench_here/../tests/lib/tap.sh"
. "$bench_here/../tests/lib/lttng-session.sh"
. "$bench_here/../tests/lib/trace-run.sh"

# What the benchmark cannot run without ends it with an error.
bench_missing() {
	echo "run-bench: $*" >&2
	exit 1
}
lttng_private_ns "$@"
trace_require_all
bench_bin=${BENCH_BUILDDIR:-$trace_builddir/bench}
[ -x "$bench_bin/call-loop" ] ||
	bench_missing "bench/call-loop is not built (configure found no nvcc? NVIDIA's cuda-nvcc-13-0)"
[ -x "$bench_bin/bare-loop" ] || bench_missing "bench/bare-loop is not built"
bench_floor="$bench_bin/.libs/idle-inject.so"
[ -e "$bench_floor" ] || bench_missing "bench/idle-inject.so is not built"
reps=${BENCH_REPS:-5}
rounds=${BENCH_ROUNDS:-20000}
calls=$((2 * rounds))

# The simulator's GPU keeps up with the host: short kernels and copies.
CUDASIM_KERNEL_NS=200
CUDASIM_COPY_LATENCY_NS=200
CUDASIM_LAUNCH_LATENCY_NS=100
CUDATRACE_API=1
TRACE_NO_LEDGER=1
# The channels and contexts `cudatrace record` makes (cli/session.c), so
# that the bytes are those of a recorded trace: the GPU events in a channel
# of their own, without vtid.
LTTNG_TEST_CONTEXTS="vpid vtid"
LTTNG_TEST_GPU_CONTEXTS="vpid"
export CUDASIM_KERNEL_NS CUDASIM_COPY_LATENCY_NS CUDASIM_LAUNCH_LATENCY_NS CUDATRACE_API
export LTTNG_TEST_CONTEXTS LTTNG_TEST_GPU_CONTEXTS

if ! lttng_daemon_start; then
	echo "run-bench: lttng-sessiond does not start" >&2
	exit 1
fi

# The value of KEY=V in the last line of FILE.
field() {
	tail -n 1 "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# keep_best CASE VALUE: best_CASE becomes the smaller of it and VALUE.
keep_best() {
	eval "bench_old=\${best_$1:-}"
	if [ -z "$bench_old" ]; then
		eval "best_$1=$2"
	else
		eval "best_$1=$(awk -v a="$bench_old" -v b="$2" 'BEGIN { print (b + 0 < a + 0) ? b : a }')"
	fi
}

# call_loop CASE traced|plain [ENV...]: one timed run of call-loop.
call_loop() {
	bench_case=$1
	bench_mode=$2
	shift 2
	trace_run "$bench_case" "$bench_mode" env "$@" "$bench_bin/call-loop" "$rounds"
	if [ "$trace_status" -ne 0 ]; then
		echo "run-bench: call-loop ($bench_case) failed with status $trace_status:" >&2
		cat "$lttng_tmp/$bench_case.err" >&2
		exit 1
	fi
	keep_best "$bench_case" "$(field ns_per_call "$lttng_tmp/$bench_case.out")"
}

# Traced with no daemon to talk to: a namespace of its own, inside ours,
# where /var/run/lttng is empty again.
no_daemon() {
	trace_run no_daemon traced unshare -m --propagation private sh -c \
		'mount -t tmpfs cudatrace-bench /var/run/lttng && exec "$@"' sh \
		"$bench_bin/call-loop" "$rounds"
	if [ "$trace_status" -ne 0 ]; then
		echo "run-bench: call-loop (no daemon) failed with status $trace_status:" >&2
		cat "$lttng_tmp/no_daemon.err" >&2
		exit 1
	fi
	keep_best no_daemon "$(field ns_per_call "$lttng_tmp/no_daemon.out")"
}

echo "cudatrace benchmark: $rounds x (cudaMemcpyAsync + launch), best of $reps rounds"
rep=0
while [ $rep -lt "$reps" ]; do
	call_loop untraced plain
	call_loop floor plain CUDA_INJECTION64_PATH="$bench_floor" \
		LTTNG_UST_REGISTER_TIMEOUT="${LTTNG_UST_REGISTER_TIMEOUT:-20000}"
	no_daemon
	call_loop no_session traced
	call_loop no_activity traced CUDATRACE_ACTIVITY=0
	lttng_session_begin "calls$rep" 4M 8 || exit 1
	call_loop session traced
	lttng_session_end "calls$rep"
	calls_trace=$lttng_trace
	# The bare event, as many as call-loop has calls, in a session of its own.
	LTTNG_TEST_EVENTS='cudatrace_bench:*' lttng_session_begin "bare$rep" 4M 8 || exit 1
	"$bench_bin/bare-loop" "$calls" >"$lttng_tmp/bare.out" || exit 1
	lttng_session_end "bare$rep"
	keep_best bare "$(field ns_per_event "$lttng_tmp/bare.out")"
	bare_trace=$lttng_trace
	rep=$((rep + 1))
done
"$trace_python_bt2" "$bench_here/trace-stats.py" "$calls_trace" >"$lttng_tmp/calls.stats" || exit 1
"$trace_python_bt2" "$bench_here/trace-stats.py" "$bare_trace" >"$lttng_tmp/bare.stats" || exit 1

# shellcheck disable=SC2154
awk -v untraced="$best_untraced" -v floor="$best_floor" -v no_daemon="$best_no_daemon" \
	-v no_session="$best_no_session" -v no_activity="$best_no_activity" \
	-v traced="$best_session" -v bare="$best_bare" -v calls="$calls" \
	-v stats="$(cat "$lttng_tmp/calls.stats")" -v bare_stats="$(cat "$lttng_tmp/bare.stats")" '
function stat(line, key,    n, i, parts, kv) {
	n = split(line, parts, " ")
	for (i = 1; i <= n; i++) {
		split(parts[i], kv, "=")
		if (kv[1] == key)
			return kv[2]
	}
	return 0
}
function row(what, value, note) {
	printf "  %-32s %8.1f   %+7.1f %%%s\n", what, value, 100 * (value - untraced) / untraced, note
}
BEGIN {
	host = stat(stats, "host_events") / calls
	gpu = stat(stats, "gpu_events") / calls
	bytes = stat(stats, "content_bytes") / calls
	payload = stat(stats, "payload_bytes") / calls
	file_bytes = stat(stats, "file_bytes") / calls
	events = stat(stats, "events")
	bare_bytes = stat(bare_stats, "content_bytes") / stat(bare_stats, "events")
	overhead = traced - untraced
	emitted = host * bare
	own = overhead - emitted
	printf "host time per call (ns):\n"
	printf "  %-32s %8.1f\n", "untraced", untraced
	row("CUPTI and lttng-ust, no tracer", floor, "   (the floor: idle-inject)")
	row("traced, no session daemon", no_daemon, "")
	row("traced, daemon but no session", no_session, "   (target: under +5 %)")
	row("  the same, activity off", no_activity, "   (CUDATRACE_ACTIVITY=0)")
	printf "  cudatrace'\''s own cost without a session: %+.1f %% over the floor\n", 100 * (no_session - floor) / untraced
	printf "  (the floor: the simulated CUPTI'\''s hooks on every call, and the simulator'\''s locks\n"
	printf "  costing more once lttng-ust'\''s threads make the process multi-threaded)\n"
	row("traced into a session", traced, "")
	printf "events per call: %.2f host (on the calling thread), %.2f GPU (on CUPTI'\''s thread)\n", host, gpu
	printf "one bare LTTng event of a memcpy event'\''s size: %.1f ns, %.1f bytes\n", bare, bare_bytes
	printf "tracer overhead per call: %.1f ns = %.1f ns emitting %.2f events + %.1f ns of its own\n", overhead, emitted, host, own
	printf "  (its own work includes the simulated CUPTI'\''s: callbacks and activity records)\n"
	if (emitted > 0)
		printf "  own work / cost of its events: %6.2f x   (target: at most 2 x)\n", own / emitted
	printf "trace bytes per call: %.1f   (target: at most 80; 48 with --no-api, the same here)\n", bytes
	printf "  %.1f on disk with packet padding; %.1f per event\n", file_bytes, (events > 0 ? bytes * calls / events : 0)
	if (events > 0) {
		per_event = (bytes - payload) * calls / events
		printf "  = %.1f of the events'\'' fields + %.1f of what each event carries besides\n", payload, bytes - payload
		printf "    (%.1f bytes an event: LTTng'\''s event header, the vpid context and, on\n", per_event
		printf "    host events, vtid; packet headers are a fraction of a byte)\n"
		printf "  with %.2f events a call, that alone is %.1f bytes a call; see doc/events.md,\n", (host + gpu), (host + gpu) * per_event
		printf "  \"Size of the trace\"\n"
	}
}'
