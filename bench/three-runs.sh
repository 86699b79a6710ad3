# SPDX-License-Identifier: MIT
#
# three-runs.sh - three timed runs of a command, for the benchmarks (POSIX
# sh): source it.
#
#   three_runs DIR [--fresh OUT] CMD...
#       runs CMD three times, each run's "seconds kilobytes" (elapsed
#       time, peak RSS) in DIR/time.1 to DIR/time.3; a run that fails
#       ends the caller's subshell with 1. With --fresh, OUT (the file or
#       directory CMD writes) is removed before each run, outside its
#       time: a run is timed for its own writing, not for the kernel's
#       dropping of the last run's file when it is truncated or removed.
#   best3 [--fresh OUT] CMD...
#       for the benchmarks that run in the scratch directory of
#       tests/lib/cli.sh (loop-bench.sh, torch-bench.sh; source this after
#       cli_setup): the best elapsed time of the three runs and the largest
#       peak RSS among them, "seconds kilobytes".
#   (bench-lib.sh's median3 gives the median run.)

three_runs() {
	dir=$1
	shift
	fresh=
	if [ "$1" = --fresh ]; then
		fresh=$2
		shift 2
	fi
	for run in 1 2 3; do
		[ -z "$fresh" ] || rm -rf "$fresh"
		/usr/bin/time -f "%e %M" -o "$dir/time.$run" "$@" >/dev/null 2>&1 || {
			echo "$(basename "$0" .sh): $* failed" >&2
			exit 1
		}
	done
}

best3() {
	three_runs "$lttng_tmp" "$@"
	cat "$lttng_tmp/time.1" "$lttng_tmp/time.2" "$lttng_tmp/time.3" |
		awk 'NR == 1 || $1 < t { t = $1 } $2 > m { m = $2 } END { print t, m }'
}
