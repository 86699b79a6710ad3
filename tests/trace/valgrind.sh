#!/bin/sh
# SPDX-License-Identifier: MIT
#
# libcudatrace.so under valgrind's memcheck, inside a traced program under a
# live session: no invalid access and no leak of its own. Suppressions
# (valgrind.supp) cover documented third-party leaks only, each with why.
# The program's output and exit status stay those of the untraced run.

trace_here=$(cd "$(dirname "$0")" && pwd)
. "$trace_here/../lib/tap.sh"
. "$trace_here/../lib/lttng-session.sh"
. "$trace_here/../lib/trace-run.sh"

trace_setup "$@"
command -v "${VALGRIND:-valgrind}" >/dev/null 2>&1 ||
	tap_fail_all "${VALGRIND:-valgrind} is not installed (Debian: valgrind)"
# tests/Makefile.am leaves this test out of a sanitizer build.
[ -z "$(trace_asan_runtime)" ] ||
	tap_fail_all "an AddressSanitizer build: valgrind cannot run it (ASan checks it instead)"
trace_daemon_or_fail

# Smaller devices keep memcheck's shadow of the simulator's mappings small.
CUDASIM_DEVICE_MEMORY=512M
CUDASIM_CONTEXT_MEMORY=16M
export CUDASIM_DEVICE_MEMORY CUDASIM_CONTEXT_MEMORY
TRACE_TIMEOUT=300

for workload in transfers driver-api; do
	trace_workload_or_fail "$workload" || continue
	tag="$workload-memcheck"
	trace_run "$workload-plain" plain $trace_cmd
	trace_session "$tag" || continue
	trace_run "$tag" traced "${VALGRIND:-valgrind}" --tool=memcheck --leak-check=full \
		--show-leak-kinds=definite,indirect --track-origins=yes --num-callers=30 \
		--keep-debuginfo=yes --child-silent-after-fork=yes \
		--suppressions="$trace_here/valgrind.supp" --xml=yes \
		--xml-file="$lttng_tmp/$tag.xml" $trace_cmd
	lttng_session_end "$tag"
	is "$tag: exit status as untraced" "$trace_status" 0
	[ "$trace_status" = 0 ] || trace_show_err "$tag"
	ok "$tag: same output as untraced" trace_same_output "$workload-plain" "$tag"
	"$trace_python" "$trace_here/check-valgrind.py" "$lttng_tmp/$tag.xml" libcudatrace.so \
		>"$lttng_tmp/$tag.tap" 2>&1
	tap_relay "$tag" "$lttng_tmp/$tag.tap"
	if trace_read "$tag"; then
		traced=$(trace_count "$tag" memcpy)
		ok "$tag: the program was traced ($traced memcpy events)" test "$traced" -gt 0
	fi
done
tap_done
