#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The commands of README.md's "Using it" block, run as written, on
# cudatrace as a user has it after tools/quickstart: installed (`make
# install DESTDIR=` into a scratch directory, whose bin comes first on a
# Debian PATH), with a home of its own, from a directory that stands for
# the top of the source tree (its examples/), and no session daemon at
# first. Each command must exit with 0 and do what the README says:
#
#   cudatrace record ...   a trace directory that reads back with its
#                          notes, and the short report on stderr
#   cudatrace report ...   the report's sections (text, the default), a
#                          JSON or CSV report, the plots of --plot DIR
#   cudatrace list         a line for every trace recorded before it
#   cudatrace export ...   with --format ctf, a CTF trace babeltrace2
#                          reads, of cudatrace_gpu begin and end events
#   cudatrace jupyter install
#                          a kernelspec that runs the installed cudatrace
#
# What the README says the first example's record and report lead with
# (the quote that starts with "memory_growth.py:", its line from the
# program's source) is held to what they print.
#
# A command this test does not know how to check fails it: a README edit
# comes with its check here.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

lttng_private_ns "$@"
trace_require_all
readme="$trace_srcdir/README.md"
[ -f "$readme" ] || tap_fail_all "README.md is not in the tree ($readme)"
# The daemon that the first record starts is adopted, so that it is
# stopped on every exit path.
cli_bare_ns

# ---- install
stage="$lttng_tmp/stage"
bindir=${CUDATRACE_BINDIR:-/usr/local/bin}
(
	unset MAKEFLAGS MFLAGS MAKELEVEL
	exec "${MAKE:-make}" -C "$trace_builddir" install DESTDIR="$stage"
) >"$lttng_tmp/install.log" 2>&1
install_status=$?
is "make install DESTDIR=$stage exits with 0" "$install_status" 0
[ "$install_status" = 0 ] || tail -n 15 "$lttng_tmp/install.log" | sed 's/^/#   /'
installed="$stage$bindir"
[ -x "$installed/cudatrace" ] || tap_fail_all "no cudatrace was installed in $installed"
[ -x "$installed/cudasim-env" ] || tap_fail_all "no cudasim-env was installed in $installed"

# ---- the user's environment: nothing of the build tree's
for var in $(env | sed -n 's/^\(CUDASIM_[A-Za-z0-9_]*\|CUDATRACE[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$var"
done
unset LD_LIBRARY_PATH CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH \
	XDG_DATA_HOME XDG_CONFIG_HOME JUPYTER_DATA_DIR JUPYTER_PATH JUPYTER_CONFIG_DIR \
	JUPYTER_RUNTIME_DIR IPYTHONDIR PYTHONPATH
HOME=$LTTNG_HOME
# Debian's PATH, the installed bin first.
PATH="$installed:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
export HOME PATH
# A sanitizer build: Python loads the instrumented simulator only with the
# ASan runtime first, so python3 in PATH is a wrapper that preloads it.
cli_asan=$(trace_asan_runtime)
if [ -n "$cli_asan" ]; then
	python=$(command -v python3) || tap_fail_all "no python3 in $PATH (Debian: python3)"
	cli_python_wrapper readme_python "$python"
	PATH="$(dirname "$readme_python"):$PATH"
fi
# The top of the source tree, as far as the commands read it.
tree="$lttng_tmp/tree"
mkdir -p "$tree"
ln -s "$trace_srcdir/examples" "$tree/examples"

# ---- the commands
awk '/^## / { block = ($0 == "## Using it"); next }
	block && /^    [^ ]/ { sub(/^    /, ""); print }' "$readme" >"$lttng_tmp/commands"
count=$(wc -l <"$lttng_tmp/commands")
ok "README.md's \"Using it\" block has commands ($count)" test "$count" -gt 0
diag "with PATH=$PATH"

traces=""
number=0
# The README's quote of the growth finding of memory_growth.py, on one line.
growth_quote=$("$trace_python" -c 'import re, sys
m = re.search(r"\"(memory_growth\.py:[^\"]*)\"", " ".join(open(sys.argv[1]).read().split()))
print(m.group(1) if m else "")' "$readme")
growth_line=$(grep -n 'malloc(KEPT_PER_STEP)' "$trace_srcdir/examples/python/memory_growth.py" |
	cut -d: -f1)
ok "README.md quotes the growth finding of memory_growth.py" test -n "$growth_quote"
ok "... at the line of the source that keeps the memory ($growth_line)" \
	test "${growth_quote%% in step *}" = "memory_growth.py:$growth_line"
growth_trace=""

# says_growth FILE: the first finding of FILE, its blanks folded, is the README's quote.
says_growth() {
	cli_first_finding "$1" | tr -s ' \n' '  ' | grep -qF -- "1. WARNING $growth_quote"
}

# readme_words LINE: set the positional parameters to LINE's words, up to
# a comment, without expanding them.
readme_words() {
	set -f
	# shellcheck disable=SC2086
	set -- $1
	set +f
	readme_args=""
	for readme_word in "$@"; do
		case $readme_word in
		"#"*) break ;;
		esac
		readme_args="$readme_args $readme_word"
	done
}

# The value of an option, given as "-o X", "--output X" or "--output=X".
option_value() { # SHORT LONG WORDS...
	short=$1
	long=$2
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--) return 1 ;;
		"$long="*) echo "${1#"$long"=}" && return 0 ;;
		"$short" | "$long") [ $# -ge 2 ] && echo "$2" && return 0 ;;
		esac
		shift
	done
	return 1
}

check_record() { # TAG WORDS...
	tag=$1
	shift
	dir=$(option_value -o --output "$@") || dir=""
	if [ -z "$dir" ]; then
		parent=$(option_value "" --trace-dir "$@") || parent=.
		dir=$(cd "$tree/$parent" 2>/dev/null &&
			ls -d cudatrace-* 2>/dev/null | grep -Fvx -f "$lttng_tmp/before" | head -n 1)
		[ -n "$dir" ] && dir="$parent/$dir"
	fi
	case $dir in
	/*) ;;
	"") dir="$tree/(none)" ;;
	*) dir="$tree/$dir" ;;
	esac
	ok "$tag: it leaves a trace directory with its notes ($dir)" test -s "$dir/cudatrace.info"
	ok "$tag: the notes say the program exited with 0" \
		grep -qx 'end_code=0' "$dir/cudatrace.info"
	ok "$tag: ... of itself" grep -qx 'end=exited' "$dir/cudatrace.info"
	ok "$tag: the short report is on stderr" grep -q 'Peak GPU memory' "$lttng_tmp/$tag.err"
	case " $* " in
	*/memory_growth.py\ *)
		growth_trace=$dir
		ok "$tag: it leads with the growth README.md quotes" says_growth "$lttng_tmp/$tag.err"
		;;
	esac
	if trace_read "$tag" "$dir"; then
		allocations=$(trace_count "$tag" mem_alloc)
		ok "$tag: the trace holds the program's allocations ($allocations)" \
			test "$allocations" -gt 0
	else
		tap_result 1 "$tag: the trace holds the program's allocations"
	fi
	traces="$traces $(basename "$dir")"
}

check_report() { # TAG WORDS...
	tag=$1
	shift
	format=$(option_value -f --format "$@") || format=text
	output=$(option_value -o --output "$@") || output=""
	plots=$(option_value "" --plot "$@") || plots=""
	report="$lttng_tmp/$tag.out"
	if [ -n "$output" ]; then
		case $output in
		/*) report=$output ;;
		*) report="$tree/$output" ;;
		esac
		ok "$tag: it writes the report to $output" test -s "$report"
	fi
	case $format in
	text)
		for section in Trace Memory Transfers; do
			ok "$tag: the report has its $section section" grep -q "^$section" "$report"
		done
		# the last word: the trace
		for trace in "$@"; do :; done
		if [ -n "$growth_trace" ] && [ "$tree/$trace" = "$growth_trace" ]; then
			ok "$tag: its first page leads with the growth README.md quotes" \
				says_growth "$report"
		fi
		;;
	json)
		ok "$tag: the report is JSON with the trace, memory and transfers sections" \
			"$trace_python" -c 'import json, sys
report = json.load(open(sys.argv[1]))
sys.exit(0 if all(k in report for k in ("trace", "memory", "transfers")) else 1)' "$report"
		;;
	csv)
		ok "$tag: the report is CSV" grep -q , "$report"
		;;
	*)
		tap_result 1 "$tag: a report format this test does not check ($format)"
		;;
	esac
	if [ -n "$plots" ]; then
		case $plots in
		/*) ;;
		*) plots="$tree/$plots" ;;
		esac
		ok "$tag: --plot draws SVG plots" sh -c 'ls "$1"/*.svg >/dev/null 2>&1' - "$plots"
		ok "$tag: and PNG ones" sh -c 'ls "$1"/*.png >/dev/null 2>&1' - "$plots"
	fi
}

check_export() { # TAG WORDS...
	tag=$1
	shift
	format=$(option_value -f --format "$@") || format=""
	output=$(option_value -o --output "$@") || output=""
	case $output in
	/*) ;;
	*) output="$tree/$output" ;;
	esac
	if [ "$format" != ctf ]; then
		tap_result 1 "$tag: an export format this test does not check ($format)"
		return
	fi
	ok "$tag: it writes a CTF trace ($output)" test -s "$output/metadata"
	if trace_read "$tag" "$output"; then
		begins=$(grep -c '^event=cudatrace_gpu:[a-z]*_begin ' "$lttng_tmp/$tag.events")
		ends=$(grep -c '^event=cudatrace_gpu:[a-z]*_end ' "$lttng_tmp/$tag.events")
		ok "$tag: it holds GPU operations, a begin and an end each ($begins)" \
			test "$begins" -gt 0 -a "$begins" = "$ends"
	else
		tap_result 1 "$tag: it holds GPU operations, a begin and an end each"
	fi
}

check_list() { # TAG
	ok "$1: it lists traces ($(echo $traces))" test -n "$traces"
	for trace in $traces; do
		ok "$1: it shows $trace" grep -q "^$trace " "$lttng_tmp/$1.out"
	done
}

check_jupyter() { # TAG WORDS...
	tag=$1
	shift
	name=$(option_value "" --name "$@") || name=cudatrace-python3
	prefix=$(option_value "" --prefix "$@") || prefix=""
	if [ -n "$prefix" ]; then
		spec="$prefix/share/jupyter/kernels/$name/kernel.json"
	else
		spec="$HOME/.local/share/jupyter/kernels/$name/kernel.json"
	fi
	ok "$tag: it writes the kernelspec ($spec)" test -s "$spec"
	ok "$tag: the kernel runs under the installed cudatrace record" \
		"$trace_python" -c 'import json, os, sys
argv = json.load(open(sys.argv[1]))["argv"]
sys.exit(0 if os.path.realpath(argv[0]) == os.path.realpath(sys.argv[2])
         and argv[1] == "record" and "ipykernel_launcher" in argv else 1)' \
		"$spec" "$installed/cudatrace"
}

while IFS= read -r line; do
	number=$((number + 1))
	tag="command-$number"
	readme_words "$line"
	set -f
	# shellcheck disable=SC2086
	set -- $readme_args
	set +f
	command="$*"
	(cd "$tree" && ls -d cudatrace-* 2>/dev/null) >"$lttng_tmp/before"
	status=0
	(cd "$tree" && exec timeout "${CLI_TIMEOUT:-300}" sh -c "$line") \
		</dev/null >"$lttng_tmp/$tag.out" 2>"$lttng_tmp/$tag.err" || status=$?
	is "$tag: \`$command\` exits with 0" "$status" 0
	if [ "$status" != 0 ]; then
		tail -n 15 "$lttng_tmp/$tag.err" | sed 's/^/#   /'
	fi
	[ -n "$lttng_daemon_pid" ] || cli_adopt_daemon || :
	case "$1 ${2:-}" in
	"cudatrace record") shift 2 && check_record "$tag" "$@" ;;
	"cudatrace report") shift 2 && check_report "$tag" "$@" ;;
	"cudatrace list") check_list "$tag" ;;
	"cudatrace export") shift 2 && check_export "$tag" "$@" ;;
	"cudatrace jupyter")
		if [ "${3:-}" = install ]; then
			shift 3 && check_jupyter "$tag" "$@"
		else
			tap_result 1 "$tag: a command this test does not know how to check: $command"
		fi
		;;
	*) tap_result 1 "$tag: a command this test does not know how to check: $command" ;;
	esac
done <"$lttng_tmp/commands"
tap_done
