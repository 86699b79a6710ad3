# SPDX-License-Identifier: MIT
#
# best3.sh - the best of three runs, for the benchmarks that run in the
# scratch directory of tests/lib/cli.sh (loop-bench.sh, torch-bench.sh):
# source it after cli_setup.
#
#   best3 [--fresh OUT] CMD...
#       the best elapsed time of three runs of CMD and the largest peak RSS
#       among them, "seconds kilobytes"; a run that fails ends the caller's
#       subshell with 1. With --fresh, OUT, what CMD writes, is removed
#       before each run, outside its time (as median3's, bench-lib.sh).

best3() {
	fresh=
	if [ "$1" = --fresh ]; then
		fresh=$2
		shift 2
	fi
	for run in 1 2 3; do
		[ -z "$fresh" ] || rm -rf "$fresh"
		/usr/bin/time -f "%e %M" -o "$lttng_tmp/time.$run" "$@" >/dev/null 2>&1 || {
			echo "$(basename "$0" .sh): $* failed" >&2
			exit 1
		}
	done
	cat "$lttng_tmp/time.1" "$lttng_tmp/time.2" "$lttng_tmp/time.3" |
		awk 'NR == 1 || $1 < t { t = $1 } $2 > m { m = $2 } END { print t, m }'
}
