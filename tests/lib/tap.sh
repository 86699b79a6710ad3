# SPDX-License-Identifier: MIT
#
# tap.sh - TAP helpers for the shell tests (POSIX sh). Source it, call the
# helpers, end with tap_done: the plan is printed last, so a script that dies
# half way has no plan and the harness reports an error.
#
#   ok DESC CMD [ARGS...]     passes when CMD exits 0
#   is DESC GOT EXPECTED      passes when the strings are equal
#   skip WHY [COUNT]          COUNT skipped tests (default 1)
#   diag TEXT                 a "# TEXT" line
#   tap_relay PREFIX FILE     re-number the TAP lines of a sub-program's or
#                             checker's output (FILE) into this script's
#   tap_done                  print the plan and exit
#   tap_skip_all WHY          skip the whole script
#   tap_fail_all WHY          one failed test saying WHY, and the end of the
#                             script: what the tests need is missing
#
# A test skips only for what the machine cannot change (tests/README.md):
# WHY starts with "no GPU: " (no NVIDIA GPU or driver here) or "no
# unshare: " (no permission to create the namespaces a test runs in). A
# skip for any other reason is reported as a failure. Anything else the
# tests need and do not find (a Debian package, a program the build
# should have made, a helper that failed) is a failure: tap_fail_all,
# naming the Debian package of a missing dependency.

tap_n=0
tap_failed=0

tap_result() { # STATUS DESC
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $2"
	fi
}

ok() {
	tap_desc=$1
	shift
	if "$@"; then
		tap_result 0 "$tap_desc"
	else
		tap_result 1 "$tap_desc"
	fi
}

is() {
	if [ "$2" = "$3" ]; then
		tap_result 0 "$1"
	else
		tap_result 1 "$1"
		diag "  got:      '$2'"
		diag "  expected: '$3'"
	fi
}

# tap_skip_allowed WHY: WHY is one of the reasons a test may skip for.
tap_skip_allowed() {
	case $1 in
	"no GPU: "* | "no unshare: "*) return 0 ;;
	esac
	return 1
}

skip() {
	tap_count_skip=${2:-1}
	while [ "$tap_count_skip" -gt 0 ]; do
		if tap_skip_allowed "$1"; then
			tap_n=$((tap_n + 1))
			echo "ok $tap_n # SKIP $1"
		else
			tap_result 1 "skipped for a reason that is not allowed: $1"
		fi
		tap_count_skip=$((tap_count_skip - 1))
	done
}

diag() {
	echo "# $*"
}

# Copy the results of FILE, numbered afresh and prefixed; comments pass
# through. A sub-program that printed no plan, or whose count disagrees
# with its plan, died half way: that is one more failure.
tap_relay() {
	tap_prefix=$1
	tap_file=$2
	tap_sub_plan=""
	tap_sub_seen=0
	while IFS= read -r tap_line || [ -n "$tap_line" ]; do
		case $tap_line in
		"not ok"*)
			tap_sub_seen=$((tap_sub_seen + 1))
			tap_result 1 "$tap_prefix: $(tap_strip "${tap_line#not ok}")"
			;;
		"ok"*)
			tap_sub_seen=$((tap_sub_seen + 1))
			tap_rest=$(tap_strip "${tap_line#ok}")
			case $tap_rest in
			"# SKIP"* | "# skip"*)
				tap_why=${tap_rest#\# [Ss][Kk][Ii][Pp]}
				tap_why=${tap_why# }
				skip "$tap_why ($tap_prefix)"
				;;
			*) tap_result 0 "$tap_prefix: $tap_rest" ;;
			esac
			;;
		1..*) tap_sub_plan=${tap_line#1..} ;;
		"#"*) echo "$tap_line" ;;
		"Bail out!"*) tap_result 1 "$tap_prefix: $tap_line" ;;
		esac
	done <"$tap_file"
	if [ -z "$tap_sub_plan" ]; then
		tap_result 1 "$tap_prefix: ran to the end (printed its plan)"
	elif [ "$tap_sub_plan" != "$tap_sub_seen" ]; then
		tap_result 1 "$tap_prefix: ran $tap_sub_seen tests of its plan of $tap_sub_plan"
	fi
}

# "ok 12 - what" -> "what": drop the number and the dash.
tap_strip() {
	echo "$1" | sed -e 's/^[[:space:]]*[0-9]*[[:space:]]*-*[[:space:]]*//'
}

tap_done() {
	echo "1..$tap_n"
	exit 0
}

# Skip the whole script: no GPU, or no namespaces (see above); any other
# reason fails.
tap_skip_all() {
	if ! tap_skip_allowed "$*"; then
		tap_fail_all "skipped for a reason that is not allowed: $*"
	elif [ "$tap_n" -gt 0 ]; then
		skip "$*"
		tap_done
	fi
	echo "1..0 # SKIP $*"
	exit 0
}

# The script cannot go on: a missing dependency (WHY names its Debian
# package), a program the build did not make, a helper that failed.
tap_fail_all() {
	tap_result 1 "$*"
	tap_done
}
