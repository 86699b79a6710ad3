#!/bin/sh
# SPDX-License-Identifier: MIT
#
# nsys-holds-cupti.sh - another profiler holds CUPTI: examples/cuda/transfers
# runs under `nsys profile --trace=cuda` with libcudatrace.so injected as
# well. CUPTI takes one subscriber; when Nsight Systems has it first,
# cudatrace must write one line on stderr saying so, emit a tracer_error
# event of kind other_subscriber, trace nothing, and leave the program's
# output and exit status as they are untraced. (tests/trace/other-subscriber.sh
# shows the same on the simulator, whose CUPTI is told to refuse.)
#
# nsys sets CUDA_INJECTION64_PATH for its own library; cudatrace's is set
# after it, for the program only. Whether nsys still holds CUPTI then
# depends on how the installed nsys attaches (what it gives its target is
# printed as diagnostics): where cudatrace gets CUPTI, the test says so
# and checks the other side instead: no notice, no tracer_error event, and
# the program's operations traced.
#
# Skips everything without a real GPU; fails without nsys.

gpu_here=$(cd "$(dirname "$0")" && pwd)
. "$gpu_here/../lib/gpu-run.sh"

gpu_require_all
command -v nsys >/dev/null 2>&1 ||
	tap_fail_all "nsys is not installed (Nsight Systems: NVIDIA's cuda-nsight-systems-13-0, in cuda-toolkit-13-0)"
lttng_private_ns "$@"
trace_require_workload transfers
trace_daemon_or_fail
diag "GPUs: $gpu_names; $(nsys --version 2>&1 | head -n 1)"

TRACE_TIMEOUT=${TRACE_TIMEOUT:-300}
nsys_profile="nsys profile --trace=cuda --sample=none --cpuctxsw=none --force-overwrite=true"

# shellcheck disable=SC2086
gpu_run plain plain $trace_cmd
is "transfers runs on the GPU untraced" "$trace_status" 0
plain_status=$trace_status

# What nsys gives its target.
# shellcheck disable=SC2086
gpu_run probe plain $nsys_profile --output="$lttng_tmp/probe" /usr/bin/env
for var in CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH LD_PRELOAD; do
	value=$(sed -n "s/^$var=//p" "$lttng_tmp/probe.out" | head -n 1)
	diag "nsys gives its target $var=${value:-(unset)}"
done

if ! lttng_session_begin nsys; then
	tap_result 1 "the LTTng session starts"
	tap_done
fi
# The program's own stdout, stderr and exit status, apart from nsys's.
rm -f "$lttng_tmp/traced.status"
# shellcheck disable=SC2016,SC2086
gpu_run nsys plain $nsys_profile --output="$lttng_tmp/report" \
	/bin/sh -c '"$@" >"$0.out" 2>"$0.err"; echo $? >"$0.status"' "$lttng_tmp/traced" \
	env CUDA_INJECTION64_PATH="$trace_lib" \
	LTTNG_UST_REGISTER_TIMEOUT="${LTTNG_UST_REGISTER_TIMEOUT:-20000}" $trace_cmd
nsys_status=$trace_status
lttng_session_end nsys

if [ ! -s "$lttng_tmp/traced.status" ]; then
	tap_result 1 "nsys profile ran the program (nsys exit status $nsys_status)"
	trace_show_err nsys
	tail -n 10 "$lttng_tmp/nsys.out" | sed 's/^/#   /'
	tap_done
fi
is "under nsys and cudatrace: same exit status" "$(cat "$lttng_tmp/traced.status")" "$plain_status"
ok "under nsys and cudatrace: same output (addresses masked)" trace_same_output plain traced

notices=$(grep -c '^cudatrace: ' "$lttng_tmp/traced.err" || :)
grep -v '^cudatrace: ' "$lttng_tmp/traced.err" | head -n 5 | sed 's/^/# other stderr: /'
trace_read nsys || tap_done
operations=$(grep -c '^event=cudatrace:\(mem_alloc\|mem_free\|memcpy\|memset\|launch\) ' \
	"$lttng_tmp/nsys.events" || :)

errors=$(grep -c '^event=cudatrace:tracer_error .*kind=other_subscriber' \
	"$lttng_tmp/nsys.events" || :)
if [ "$notices" -eq 0 ] && [ "$operations" -gt 0 ]; then
	diag "nsys did not hold CUPTI when cudatrace subscribed: cudatrace traced $operations operations"
	is "cudatrace had CUPTI: no tracer_error event of kind other_subscriber" "$errors" 0
	# The trace beside nsys holds what the program printed it did.
	cp "$lttng_tmp/nsys.events" "$lttng_tmp/traced.events"
	gpu_check_printout traced transfers --checks printout,ops
	tap_done
fi
is "one 'cudatrace: ' line on stderr" "$notices" 1
ok "it says that another profiler holds CUPTI" \
	grep -q '^cudatrace: CUPTI is already in use by ' "$lttng_tmp/traced.err"
sed -n 's/^cudatrace: /# the notice: cudatrace: /p' "$lttng_tmp/traced.err"
is "one tracer_error event of kind other_subscriber" "$errors" 1
is "no operation is traced" "$operations" 0
tap_done
