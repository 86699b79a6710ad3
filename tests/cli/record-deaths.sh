#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `cudatrace record` says why a program ended, on the simulated GPU, and
# `cudatrace report` says it again from the record's notes:
#   - killed by the kernel's OOM killer in a memory-limited cgroup that
#     the test makes (cgroup v1 or v2, whichever the machine has), while
#     its GPU memory was fine: a host-memory death, with its resident
#     memory against the cgroup's limit;
#   - a segfault of its own, and a sticky CUDA error (the simulator's
#     CUDASIM_KERNEL_FAULT) it exited on: told apart;
#   - a program that keeps host memory it prints: its resident memory, as
#     record saw it, holds at least that;
#   - one SIGKILLed in a PID namespace of its own: the kernel log, whose
#     pids are the first namespace's, is not read for it;
#   - each death is the first finding of the diagnosis, on the first page
#     of record's summary and of `cudatrace report --brief`, with its
#     numbers; a sticky error is one even without record's notes;
#   - record's summary, its post-mortem and the report say the same
#     findings in the same words, and the report's process_end says the
#     death as its finding does; after a clean exit it shows no signal,
#     no CUDA error, no exception and no framework message as unknown.
# Ground truth: the exit status, the program's own printout, the
# simulator's ledger, and the limit the test wrote into the cgroup.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

cli_setup "$@"
cli_with_daemon

MIB=1048576

# info TAG KEY: KEY's value in TAG's cudatrace.info.
info() {
	sed -n "s/^$2=//p" "$lttng_tmp/$1/cudatrace.info"
}

# report_json TAG: the JSON report of TAG's trace, into TAG.json.
report_json() {
	"$cli_bin" report --format json -o "$lttng_tmp/$1.json" "$lttng_tmp/$1"
}

# brief TAG: the first page of TAG's report, into TAG.brief.
brief() {
	"$cli_bin" report --brief -o "$lttng_tmp/$1.brief" "$lttng_tmp/$1"
}

# first_finding TAG ERE: the first finding on TAG.brief's first page
# (its lines, joined) matches ERE.
first_finding() {
	sed -n '/^1\. /,/^2\. /p' "$lttng_tmp/$1.brief" | grep -v '^2\. ' | tr -s '\n ' '  ' >"$lttng_tmp/$1.first"
	if grep -Eq -- "$2" "$lttng_tmp/$1.first"; then
		return 0
	fi
	diag "the first finding of $1 does not match '$2': $(cat "$lttng_tmp/$1.first")"
	return 1
}

# summary_first TAG ERE: the same, on record's own summary (TAG.err).
summary_first() {
	sed -n '/^1\. /,/^\(2\. \|  [A-Z]\)/p' "$lttng_tmp/$1.err" | sed '$d' | tr -s '\n ' '  ' >"$lttng_tmp/$1.sfirst"
	if grep -Eq -- "$2" "$lttng_tmp/$1.sfirst"; then
		return 0
	fi
	diag "record's first finding for $1 does not match '$2': $(cat "$lttng_tmp/$1.sfirst")"
	return 1
}

# json TAG EXPR: EXPR evaluated on TAG.json's document (d).
json() {
	"$trace_python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$lttng_tmp/$1.json" "$2"
}

# 1. A sticky CUDA error: the kernel faults, the program exits with 1.
CUDASIM_KERNEL_FAULT=1 cli_record sticky -o "$lttng_tmp/sticky" -- \
	"$trace_python" "$cli_workload" --steps 2 --kernel
cli_status_is "sticky: the program's own status comes back" 1
ok "sticky: the simulator's ledger has the fault" grep -q 'op=kernel_fault' "$lttng_tmp/sticky.ledger"
ok "sticky: the program printed the error it got" \
	grep -q 'cudaDeviceSynchronize failed: 700' "$lttng_tmp/sticky.err"
is "sticky: the notes say a CUDA error" "$(info sticky death)" cuda-error
is "sticky: the notes name it" "$(info sticky cuda_error)" cudaErrorIllegalAddress
is "sticky: and the call that returned it" "$(info sticky cuda_error_api)" cudaDeviceSynchronize
ledger_error=$(sed -n 's/.* op=error api=\([^ ]*\) result=\(cudaError[A-Za-z]*\).*/\2 ([0-9]+) from \1/p' "$lttng_tmp/sticky.ledger" | head -n 1)
is "sticky: the ledger's error" "$ledger_error" "cudaErrorIllegalAddress ([0-9]+) from cudaDeviceSynchronize"
ledger_error=$(echo "$ledger_error" | sed 's/[()]/\\&/g')
ok "sticky: record's diagnosis leads with it, and the end" summary_first sticky \
	"^1\. FAILED python3 got $ledger_error, a sticky CUDA error.*; then python3 exited with status 1"
ok "sticky: cudatrace report reads it" report_json sticky
is "sticky: the report's process_end cause" "$(json sticky 'd["process_end"]["cause"]')" cuda-error
is "sticky: the report's sticky_errors section" \
	"$(json sticky '[(e["error"], e["api"], e["code"]) for e in d["sticky_errors"]]')" \
	"[('cudaErrorIllegalAddress', 'cudaDeviceSynchronize', 700)]"
is "sticky: the report's first finding is the error the program died of" \
	"$(json sticky '(lambda f: (f["kind"], f["death"], f["verdict"], f["numbers"]["code"]))(d["findings"][0])')" \
	"('sticky_error', 'cuda-error', 'cudaErrorIllegalAddress', 700)"
is "sticky: told once" "$(json sticky 'len([f for f in d["findings"] if f["death"]])')" 1
sync_line=$(grep -n 'check(runtime.cudaDeviceSynchronize(), "cudaDeviceSynchronize")' "$cli_workload" | cut -d: -f1)
is "sticky: where the call that returned it was made, the program's line" \
	"$(json sticky '(d["sticky_errors"][0]["site"], d["findings"][0]["where"]["site"])')" \
	"('workload.py:$sync_line in main', 'workload.py:$sync_line in main')"
ok "sticky: report --brief" brief sticky
ok "sticky: its first page leads with it, and what to do" first_finding sticky \
	"^1\. FAILED python3 got $ledger_error.*; then python3 exited with status 1.*CUDA_LAUNCH_BLOCKING=1.*compute-sanitizer"
ok "sticky: record's diagnosis leads with the report's first finding, word for word" \
	cli_same_death sticky "$lttng_tmp/sticky.err"
# Without record's notes (a trace made otherwise): the trace's sticky error alone.
mkdir "$lttng_tmp/sticky-bare"
cp -R "$lttng_tmp/sticky/." "$lttng_tmp/sticky-bare/"
rm -f "$lttng_tmp/sticky-bare/cudatrace.info"
ok "sticky, no notes: cudatrace report reads it" report_json sticky-bare
is "sticky, no notes: no process_end, and the error is still the first finding" \
	"$(json sticky-bare '("process_end" in d, d["findings"][0]["kind"], d["findings"][0]["verdict"], d["findings"][0]["death"], d["findings"][0]["severity"])')" \
	"(False, 'sticky_error', 'cudaErrorIllegalAddress', None, 'critical')"

# 1b. The same in a program built by nvcc, with call stacks: the launch
# site is the program's function (run_step), not nvcc's stubs
# (__device_stub__, __cudaLaunchKernel) nor the kernel's host wrapper;
# the cudaMalloc that fails after it, with the sticky error, is told by
# the sticky error's finding, not as an allocation failure with a
# memory verdict (the device had room).
rt_sticky="$trace_builddir/tests/programs/rt-sticky"
CUDATRACE_STACK_CALLS=1 CUDASIM_KERNEL_FAULT=1 cli_record rt-sticky -o "$lttng_tmp/rt-sticky" -- \
	"$rt_sticky" fault
cli_status_is "rt-sticky: the program's own status comes back" 1
is "rt-sticky: the program got the sticky error from both calls" \
	"$(grep -E '^(sync|malloc) ' "$lttng_tmp/rt-sticky.out" | tr '\n' ' ')" \
	"sync cudaErrorIllegalAddress malloc cudaErrorIllegalAddress "
is "rt-sticky: the ledger's cudaMalloc failed with it" \
	"$(sed -n 's/.* op=error api=cudaMalloc result=\([^ ]*\).*/\1/p' "$lttng_tmp/rt-sticky.ledger")" \
	cudaErrorIllegalAddress
ok "rt-sticky: cudatrace report reads it" report_json rt-sticky
is "rt-sticky: the kernel and the function that launched it" \
	"$(json rt-sticky '(d["sticky_errors"][0]["kernel"], d["sticky_errors"][0]["launch_site"], d["sticky_errors"][0]["failed_after"], d["sticky_errors"][0]["site"])')" \
	"('scale(float*, int)', 'run_step(float*) (rt-sticky)', 1, 'main (rt-sticky)')"
is "rt-sticky: the failed cudaMalloc has no memory verdict, and its site" \
	"$(json rt-sticky '[(f["verdict"], f["result"], f["site"]) for f in d["memory"]["failures"]]')" \
	"[('cuda_error', 700, 'grow(float**, unsigned long) (rt-sticky)')]"
is "rt-sticky: the findings: the sticky error, and no allocation failure" \
	"$(json rt-sticky '[f["kind"] for f in d["findings"] if f["severity"] == "critical"]')" \
	"['sticky_error']"
is "rt-sticky: it died of the sticky error" "$(json rt-sticky 'd["process_end"]["cause"]')" cuda-error
ok "rt-sticky: record's first finding says where the kernel was launched" summary_first rt-sticky \
	"^1\. FAILED rt-sticky got cudaErrorIllegalAddress .* kernel scale\(float\*, int\), launched at run_step\(float\*\) \(rt-sticky\)"

# 1c. An allocation refused for a bad argument: a CUDA error, told as
# such, with no memory verdict and no out-of-memory death.
CUDATRACE_STACK_CALLS=1 cli_record rt-argument -o "$lttng_tmp/rt-argument" -- "$rt_sticky" argument
cli_status_is "rt-argument: the program's own status comes back" 1
is "rt-argument: the program got cudaErrorInvalidValue" \
	"$(sed -n 's/^malloc //p' "$lttng_tmp/rt-argument.out")" cudaErrorInvalidValue
ok "rt-argument: cudatrace report reads it" report_json rt-argument
is "rt-argument: its finding names the error, and no lack of memory" \
	"$(json rt-argument '[(f["kind"], f["verdict"], "cudaErrorInvalidValue (1)" in f["explanation"]) for f in d["findings"] if f["severity"] == "critical"]')" \
	"[('allocation_failure', 'cuda_error', True), ('process_death', 'unknown', False)]"
is "rt-argument: not an out-of-memory death" "$(info rt-argument death)" unknown

# 1d. A hang: the kernel runs for a minute (CUDASIM_KERNEL_NS), the
# program waits for it in cudaDeviceSynchronize, and timeout(1) ends it
# with SIGTERM after 6 s. The first finding is the wait it never returned
# from, at the program's line, not the timeout's exit status.
CUDASIM_KERNEL_NS=60000000000 cli_record hang -o "$lttng_tmp/hang" -- \
	timeout -s TERM 6 "$trace_python" "$cli_workload" --steps 1 --kernel
cli_status_is "hang: record exits with timeout's status" 124
ok "hang: cudatrace report reads it" report_json hang
# (how much of the 6 s it waited depends on how soon the program reached it)
is "hang: the wait open at the end, where the program called it, a second or more of the 6 s" \
	"$(json hang '[(w["process"], w["api"], w["site"], 1e9 <= w["open_ns"] <= 6.5e9) for w in d["open_waits"]]')" \
	"[('python3', 'cudaDeviceSynchronize', 'workload.py:$sync_line in main', True)]"
is "hang: the first finding is that wait" \
	"$(json hang '(lambda f: (f["kind"], f["severity"], f["where"]["site"], f["where"]["api"]))(d["findings"][0])')" \
	"('open_wait', 'critical', 'workload.py:$sync_line in main', 'cudaDeviceSynchronize')"
ok "hang: record's summary leads with it" summary_first hang \
	"^1\. FAILED python3 was waiting in cudaDeviceSynchronize for [0-9.]+ s when its trace ended; it never returned"

# 2. A segfault of its own, after working CUDA calls, in a program a
# wrapper (env) exec'd: it is named as the trace knows its pid.
# (In a sanitizer build, ASan would turn the SIGSEGV into an abort.)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0" \
	cli_record segv -o "$lttng_tmp/segv" -- env CUDATRACE_TEST_WRAPPED=1 \
	"$trace_python" "$cli_workload" --steps 2 --segfault
cli_status_is "segv: record exits with 128 + SIGSEGV" 139
is "segv: the notes say a fault signal" "$(info segv death)" fault-signal
is "segv: no CUDA error is put on it" "$(info segv cuda_error)" ""
ok "segv: record's diagnosis leads with the crash" summary_first segv \
	'^1\. FAILED python3 crashed: it was killed by SIGSEGV, a fault of its own.*gdb'
ok "segv: record's post-mortem follows it" cli_has segv '^Post-mortem: python3 .* was killed by SIGSEGV'
ok "segv: cudatrace report reads it" report_json segv
is "segv: the report's cause and signal" \
	"$(json segv '(d["process_end"]["cause"], d["process_end"]["signal_name"], d["process_end"]["cuda_error"])')" \
	"('fault-signal', 'SEGV', None)"
is "segv: the report's process_end names the command run and the process it became" \
	"$(json segv '(d["process_end"]["program"], d["process_end"]["process"])')" "('env', 'python3')"
is "segv: the death's finding names the process where it happened" \
	"$(json segv '(d["findings"][0]["where"]["process"], d["findings"][0]["where"]["pid"] == d["process_end"]["pid"])')" \
	"('python3', True)"
is "segv: the report's first finding is the death" \
	"$(json segv '(d["findings"][0]["kind"], d["findings"][0]["verdict"], d["findings"][0]["death"], d["findings"][0]["source"])')" \
	"('process_death', 'fault-signal', 'fault-signal', 'process_end')"
ok "segv: report --brief" brief segv
ok "segv: its first page leads with it" first_finding segv \
	'^1\. FAILED python3 crashed: it was killed by SIGSEGV'
ok "segv: record's diagnosis leads with the report's first finding, word for word" \
	cli_same_death segv "$lttng_tmp/segv.err"
ok "segv: and so does the post-mortem file" \
	cli_same_death segv "$lttng_tmp/segv/postmortem.txt"
is "segv: the report's process_end says it in the words of its finding" \
	"$(json segv 'd["process_end"]["summary"] == d["findings"][0]["summary"] + "."')" True

# 2b. A GPU allocation that fails, and the program exits with 1 after it.
# A period of a minute: the host memory samples are the failure's and the exit's.
CUDATRACE_HOST_MEMORY_PERIOD_MS=60000 cli_record gpuoom -o "$lttng_tmp/gpuoom" -- \
	"$trace_python" "$cli_workload" --steps 2 --fail-alloc --exit 1
cli_status_is "gpuoom: the program's own status comes back" 1
ok "gpuoom: the ledger has the failed allocation" grep -q 'op=alloc_failed' "$lttng_tmp/gpuoom.ledger"
is "gpuoom: the notes say a GPU out-of-memory" "$(info gpuoom death)" gpu-oom
is "gpuoom: with the size the ledger failed" "$(info gpuoom gpu_failed_bytes)" \
	"$(sed -n 's/.*op=alloc_failed.* size=\([0-9]*\).*/\1/p' "$lttng_tmp/gpuoom.ledger" | tail -n 1)"
ok "gpuoom: record's diagnosis leads with the failure, and the end it led to" summary_first gpuoom \
	'^1\. FAILED cudaMalloc of .* failed on device 0: out of memory; then python3 exited with status 1'
ok "gpuoom: cudatrace report reads it" report_json gpuoom
is "gpuoom: the failure's finding tells the death, with the size the ledger failed" \
	"$(json gpuoom '(d["findings"][0]["kind"], d["findings"][0]["death"], d["findings"][0]["numbers"]["requested_bytes"])')" \
	"('allocation_failure', 'gpu-oom', $(sed -n 's/.*op=alloc_failed.* size=\([0-9]*\).*/\1/p' "$lttng_tmp/gpuoom.ledger" | tail -n 1))"
ok "gpuoom: record's diagnosis leads with the report's first finding, word for word" \
	cli_same_death gpuoom "$lttng_tmp/gpuoom.err"
is "gpuoom: and no other finding repeats it" \
	"$(json gpuoom 'len([f for f in d["findings"] if f["death"] or f["kind"] == "process_death"])')" 1
is "gpuoom: the failed allocation woke the host memory sampler, and the exit" \
	"$(json gpuoom 'd["host_memory"]["processes"][0]["samples"]')" 2
is "gpuoom: its first sample follows the failure within a second" \
	"$(json gpuoom '0 <= d["host_memory"]["processes"][0]["first_time_ns"] - d["memory"]["failures"][0]["time_ns"] < 10**9')" True

# 3. Host memory it holds and prints: record's samples hold at least that.
cli_record host -o "$lttng_tmp/host" -- "$trace_python" "$cli_workload" --steps 6 --host-mib 96 --host-hold 0.5
cli_status_is "host: the program exits with 0" 0
held=$(sed -n 's/^host \([0-9]*\) MiB$/\1/p' "$lttng_tmp/host.out" | tail -n 1)
is "host: the program printed what it holds" "$held" 96
is "host: the notes say it ended well" "$(info host death)" none
peak=$(info host host_rss_peak_bytes)
ok "host: the peak resident memory ($peak bytes) holds the 96 MiB it printed" \
	test "${peak:-0}" -ge $((96 * MIB))
ok "host: and is not far above (less than 96 MiB + 256 MiB of interpreter)" \
	test "${peak:-0}" -lt $(((96 + 256) * MIB))
ok "host: cudatrace report reads it" report_json host
is "host: the report's host memory is the notes'" \
	"$(json host 'd["process_end"]["host_memory"]["rss_peak_bytes"]')" "$peak"
# After a clean exit, no signal and no CUDA error are "unknown": there were none.
"$cli_bin" report -o "$lttng_tmp/host.txt" "$lttng_tmp/host"
sed -n '/^How the program ended$/,/^Host memory of the program:$/p' "$lttng_tmp/host.txt" >"$lttng_tmp/host.end"
ok "host: the text report says how it ended" grep -q '^exit status: *0$' "$lttng_tmp/host.end"
is "host: with no signal, no CUDA error, no failed allocation" \
	"$(grep -E '^(signal|signal name|cuda error|cuda error api|gpu failed|gpu verdict): ' "$lttng_tmp/host.end" | sed 's/: */: /' | tr '\n' ,)" \
	"signal: none,signal name: none,cuda error: none,cuda error api: none,gpu failed: none,gpu verdict: none,"
is "host: no uncaught exception, no framework's out-of-memory message" \
	"$(grep -E '^(exception|exception site|exception message|framework oom|framework oom request): ' "$lttng_tmp/host.end" | sed 's/: */: /' | tr '\n' ,)" \
	"exception: none,exception site: none,exception message: none,framework oom: none,framework oom request: none,"
sed -n '/^Its last words on standard error$/,/^Its last lines/p' "$lttng_tmp/host.txt" >"$lttng_tmp/host.words"
is "host: nor in its last words on standard error" \
	"$(grep -E '^(exception|out of memory): ' "$lttng_tmp/host.words" | sed 's/: */: /' | tr '\n' ,)" \
	"exception: none,out of memory: none,"
# The tracer's own samples (host_memory events, every 500 ms by default).
samples=$(json host 'd["host_memory"]["processes"][0]["samples"]')
ok "host: the tracer sampled its host memory ($samples samples)" test "${samples:-0}" -ge 2
traced_peak=$(json host 'd["host_memory"]["processes"][0]["rss_peak_bytes"]')
ok "host: the traced peak ($traced_peak) holds the 96 MiB it printed" \
	test "${traced_peak:-0}" -ge $((96 * MIB)) -a "${traced_peak:-0}" -lt $(((96 + 256) * MIB))
ok "host: the series has a point at 96 MiB or more" \
	json host 'max(p["max_rss_bytes"] for p in d["host_memory"]["timeline"]) >= 96 << 20 or exit(1)'
ok "host: --plot draws its host memory beside its device memory" \
	"$cli_bin" report --plot "$lttng_tmp/host-plots" -o /dev/null "$lttng_tmp/host"
hpid=$(json host 'd["host_memory"]["processes"][0]["pid"]')
ok "host: as host-memory-$hpid.svg and .png" \
	test -s "$lttng_tmp/host-plots/host-memory-$hpid.svg" -a -s "$lttng_tmp/host-plots/host-memory-$hpid.png"
ok "host: and the device memory plot is there too" \
	test -s "$lttng_tmp/host-plots/memory-$hpid-dev0.svg"
is "host: its limit is the machine's or its cgroup's" \
	"$(json host 'd["host_memory"]["processes"][0]["limit_of"] in ("machine", "cgroup")')" True

# 4. Killed by the OOM killer in a cgroup with a 160 MiB limit.
limit=$((160 * MIB))
cg=""
if [ -d /sys/fs/cgroup/memory ] && grep -q '^[0-9]*:[^:]*memory[^:]*:' /proc/self/cgroup; then
	cg_version=1
	cg_parent=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:[^:]*memory[^:]*://p' /proc/self/cgroup)
else
	cg_version=2
	cg_parent=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
fi
cg=${cg_parent%/}/cudatrace-deaths-$$
if ! mkdir "$cg" 2>"$lttng_tmp/cgroup.err"; then
	tap_fail_all "cannot create the memory cgroup $cg (cgroup v$cg_version): $(cat "$lttng_tmp/cgroup.err"); the test needs root"
fi
# cgroup v2: the memory controller must be on for the parent's children.
# A cgroup other than the root that holds processes cannot turn it on
# ("no internal processes", Documentation/admin-guide/cgroup-v2.rst), as
# in a container whose processes sit in its cgroup namespace's root: then
# they wait in a sibling leaf while the test runs, and go back after.
cg_rest=""
cg_enabled=""
cg_restore() {
	[ -n "$cg_enabled" ] && echo -memory 2>/dev/null >"$cg_parent/cgroup.subtree_control"
	if [ -n "$cg_rest" ] && [ -d "$cg_rest" ]; then
		while read -r pid; do
			echo "$pid" 2>/dev/null >"$cg_parent/cgroup.procs"
		done <"$cg_rest/cgroup.procs"
		rmdir "$cg_rest" 2>/dev/null || diag "cannot remove $cg_rest"
	fi
	cg_enabled=""
	cg_rest=""
}
if [ $cg_version = 2 ] && [ ! -e "$cg/memory.max" ]; then
	if ! echo +memory 2>/dev/null >"$cg_parent/cgroup.subtree_control"; then
		cg_rest=${cg_parent%/}/cudatrace-deaths-$$-rest
		mkdir "$cg_rest" 2>/dev/null &&
			while read -r pid; do
				echo "$pid" 2>/dev/null >"$cg_rest/cgroup.procs"
			done <"$cg_parent/cgroup.procs"
	fi
	if echo +memory 2>/dev/null >"$cg_parent/cgroup.subtree_control"; then
		cg_enabled=1
	else
		cg_restore
		rmdir "$cg"
		tap_fail_all "cannot turn the memory controller on under $cg_parent (cgroup v2: its cgroup.subtree_control); the test needs root"
	fi
fi
if [ $cg_version = 1 ]; then
	echo $limit >"$cg/memory.limit_in_bytes"
	# With swap, the limit of memory and swap together too, or it swaps instead.
	[ -e "$cg/memory.memsw.limit_in_bytes" ] && echo $limit >"$cg/memory.memsw.limit_in_bytes"
else
	echo $limit >"$cg/memory.max"
	[ -e "$cg/memory.swap.max" ] && echo 0 >"$cg/memory.swap.max"
fi
rm -f "$lttng_tmp/oom.ledger"
oom_status=0
# The program moves itself into the cgroup as it starts (record follows it
# there); the tracer samples its host memory every 50 ms.
CUDATRACE_HOST_MEMORY_PERIOD_MS=50 CUDASIM_LEDGER="$lttng_tmp/oom.ledger" timeout 120 "$cli_bin" record -o "$lttng_tmp/oom" -- \
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" \
	"$trace_python" "$cli_workload" --steps 3 --host-grow 8 \
	>"$lttng_tmp/oom.out" 2>"$lttng_tmp/oom.err" || oom_status=$?
rmdir "$cg" 2>/dev/null || diag "cannot remove $cg"
cg_restore
is "oom: record exits with 128 + SIGKILL" "$oom_status" 137
held=$(sed -n 's/^host \([0-9]*\) MiB$/\1/p' "$lttng_tmp/oom.out" | tail -n 1)
ok "oom: the program held host memory up to near the limit (${held:-0} MiB printed)" \
	test "${held:-0}" -ge 64
is "oom: the notes say a host-memory death" "$(info oom death)" host-oom
ok "oom: the cgroup counted the OOM kill ($(info oom oom_kills))" test "$(info oom oom_kills)" -ge 1
is "oom: the notes' limit is the cgroup's" "$(info oom host_limit_bytes) $(info oom host_limit)" \
	"$limit cgroup"
rss=$(info oom host_rss_peak_bytes)
# The resident set counts the shared libraries' pages, which the cgroup
# may not be charged for: it can pass the limit by those.
ok "oom: its peak resident memory ($rss) holds what it printed" \
	test "${rss:-0}" -ge $((held * MIB))
# What it allocated itself (anonymous memory) is what the cgroup is charged
# for it: the kernel kept it within the limit, where the resident set is
# not. Sampled (every 50 ms here, the program growing 8 MiB each 20 ms), it
# may miss the last steps: near the limit, more than half of it.
anon=$(info oom host_anon_peak_bytes)
ok "oom: the memory it allocated ($anon) nears the limit, within it, under the resident peak" \
	test "${anon:-0}" -gt $((limit / 2)) -a "${anon:-0}" -le "$limit" -a "${anon:-0}" -le "${rss:-0}"
ok "oom: no GPU allocation failed (the ledger)" cli_lacks "$lttng_tmp/oom.ledger" 'op=alloc_failed|result=cudaErrorMemoryAllocation'
is "oom: and the notes count none" "$(info oom failures)" 0
rss_mib=$(awk -v b="${rss:-0}" 'BEGIN { printf "%.2f", b / 1048576 }')
anon_mib=$(awk -v b="${anon:-0}" 'BEGIN { printf "%.2f", b / 1048576 }')
ok "oom: record's diagnosis leads with it: what it allocated against the limit, its resident set beside it, GPU memory fine" summary_first oom \
	"^1\. FAILED python3 was killed by the kernel.s OOM killer: host memory ran out \(the memory it allocated reached at least $anon_mib MiB of 160\.00 MiB, its cgroup.s limit\).*GPU memory was not the cause: no GPU allocation failed.*its resident set peaked at $rss_mib MiB: that counts the files and shared memory it maps.*raise the memory limit of its cgroup"
ok "oom: cudatrace report reads it" report_json oom
is "oom: the tracer's samples name the cgroup's limit" \
	"$(json oom '[(p["limit_bytes"], p["limit_of"]) for p in d["host_memory"]["processes"]][-1]')" \
	"($limit, 'cgroup')"
traced_peak=$(json oom 'd["host_memory"]["processes"][-1]["rss_peak_bytes"]')
ok "oom: the traced peak ($traced_peak) nears the limit: more than half of it" \
	test "${traced_peak:-0}" -gt $((limit / 2))
is "oom: the report's cause, limit and kills" \
	"$(json oom '(d["process_end"]["cause"], d["process_end"]["host_memory"]["limit_bytes"], d["process_end"]["host_memory"]["limit_of"], d["process_end"]["host_memory"]["oom_kills"] >= 1)')" \
	"('host-oom', $limit, 'cgroup', True)"
# The kernel log is not readable everywhere (null then); where it is, it names the program.
is "oom: the kernel log, where readable, names it as killed" \
	"$(json oom 'd["process_end"]["host_memory"]["oom_in_kernel_log"] in (None, True)')" True
is "oom: the report has no failed GPU allocation" \
	"$(json oom 'd["process_end"]["gpu_failed_bytes"]')" None
is "oom: the report's first finding: host memory, the limit the test set, the peak record saw" \
	"$(json oom '(d["findings"][0]["kind"], d["findings"][0]["verdict"], d["findings"][0]["numbers"]["limit_bytes"], d["findings"][0]["numbers"]["rss_peak_bytes"], d["findings"][0]["numbers"]["anon_peak_bytes"], d["findings"][0]["certainty"])')" \
	"('process_death', 'host-oom', $limit, $rss, $anon, 'lower_bound')"
ok "oom: report --brief" brief oom
ok "oom: its first page leads with it" first_finding oom \
	"^1\. FAILED python3 was killed by the kernel.s OOM killer: host memory ran out \(the memory it allocated reached at least $anon_mib MiB of 160\.00 MiB"
ok "oom: record's diagnosis leads with the report's first finding, word for word" \
	cli_same_death oom "$lttng_tmp/oom.err"
ok "oom: and so does the post-mortem file" \
	cli_same_death oom "$lttng_tmp/oom/postmortem.txt"

# 5. SIGKILLed in a PID namespace of its own, as in a container. The
# kernel log names processes by their pids in the first namespace, so a
# readable log without the line proves nothing there: record does not look
# (null), where in the first namespace it says false.
if unshare -p -f --mount-proc true 2>/dev/null; then
	pidns_status=0
	timeout -k 10 60 unshare -p -f --mount-proc "$cli_bin" record -o "$lttng_tmp/pidns" -- \
		sh -c 'sleep 1; kill -9 $$' >"$lttng_tmp/pidns.out" 2>"$lttng_tmp/pidns.err" || pidns_status=$?
	is "pidns: record exits with 128 + SIGKILL" "$pidns_status" 137
	is "pidns: its notes say it was killed" "$(info pidns end)" killed
	is "pidns: the kernel log is not read for it" "$(info pidns oom_logged)" ""
else
	skip "no unshare: cannot create a PID namespace (unshare -p)" 3
fi
tap_done
