#!/bin/sh
# SPDX-License-Identifier: MIT
#
# cudasim-env.sh - the cudasim-env script (tests/cudasim/cudasim-env, built
# from cudasim-env.in): --print output, running a program through it on the
# libraries of the build tree, VAR=VALUE pairs, the simulator's libraries
# loaded whatever path the program names them by (programs/rpath-cudart:
# a DT_RPATH to the toolkit, a dlopen of a full path), --device-files, and
# exit status 2 for a bad --libdir or option.

. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/tap.sh"
. "${TESTS_SRCDIR:-$(dirname "$0")/..}/lib/sim.sh"

: "${CUDASIM_ENV:=$TESTS_BUILDDIR/cudasim/cudasim-env}"
[ -x "$CUDASIM_ENV" ] || tap_fail_all "cudasim-env is not built ($CUDASIM_ENV)"
sim_require_libs
sim_program init-threads
program=$sim_path
sim_tmpdir

# Run the script itself with no simulator on the path, as a user would.
run_env() { # OUT ERR ARGS...
	env_out=$1
	env_err=$2
	shift 2
	env_status=0
	env -u CUDASIM_LIBDIR "$CUDASIM_ENV" "$@" >"$env_out" 2>"$env_err" || env_status=$?
}

# --print: exports of LD_LIBRARY_PATH with the libdir first, and of LD_AUDIT
# with the simulator's audit library first.
run_env "$sim_tmp/print" "$sim_tmp/print.err" --libdir "$CUDASIM_LIBDIR" --print
is "--print exits 0" "$env_status" 0
is "--print prints two lines" "$(wc -l <"$sim_tmp/print" | tr -d ' ')" 2
is "--print names the audit library in LD_AUDIT" \
	"$(sed -n "s/^export LD_AUDIT='\\([^']*\\)'\$/\\1/p" "$sim_tmp/print")" \
	"$CUDASIM_LIBDIR/libcudasim-audit.so"
eval_audit=$(LD_AUDIT=/some/audit.so sh -c \
	"eval \"\$(env -u CUDASIM_LIBDIR '$CUDASIM_ENV' --libdir '$CUDASIM_LIBDIR' --print)\" &&
	echo \"\$LD_AUDIT\"")
is "eval of --print keeps the caller's LD_AUDIT after the audit library" "$eval_audit" \
	"$CUDASIM_LIBDIR/libcudasim-audit.so:/some/audit.so"
printed=$(sed -n "s/^export LD_LIBRARY_PATH='\\([^']*\\)'\$/\\1/p" "$sim_tmp/print")
case $printed in
"$CUDASIM_LIBDIR" | "$CUDASIM_LIBDIR":*) first=yes ;;
*) first=no ;;
esac
is "--print puts the libdir first on LD_LIBRARY_PATH" "$first" yes
eval_path=$(LD_LIBRARY_PATH=/some/where sh -c \
	"eval \"\$(env -u CUDASIM_LIBDIR '$CUDASIM_ENV' --libdir '$CUDASIM_LIBDIR' --print)\" &&
	echo \"\$LD_LIBRARY_PATH\"")
is "eval of --print keeps the caller's LD_LIBRARY_PATH after the libdir" "$eval_path" \
	"$CUDASIM_LIBDIR:/some/where"
run_env "$sim_tmp/print2" "$sim_tmp/print2.err" --libdir="$CUDASIM_LIBDIR"
ok "no command means --print" cmp -s "$sim_tmp/print" "$sim_tmp/print2"

# Running a program: it gets the simulator, and its own exit status.
sim_run "$sim_tmp/direct" "$sim_tmp/direct.err" "$program"
run_env "$sim_tmp/run" "$sim_tmp/run.err" --libdir "$CUDASIM_LIBDIR" "$program"
is "a program run through cudasim-env exits 0" "$env_status" 0
ok "its output is the same as with LD_LIBRARY_PATH set by hand" \
	cmp -s "$sim_tmp/direct" "$sim_tmp/run"
run_env "$sim_tmp/false" "$sim_tmp/false.err" --libdir "$CUDASIM_LIBDIR" sh -c 'exit 7'
is "the program's exit status comes back" "$env_status" 7
# shellcheck disable=SC2016 # expanded by the inner shell
run_env "$sim_tmp/var" "$sim_tmp/var.err" --libdir "$CUDASIM_LIBDIR" CUDASIM_DEVICES=3 \
	sh -c 'echo "$CUDASIM_DEVICES $LD_LIBRARY_PATH"'
is "VAR=VALUE pairs reach the program" "$(cut -d' ' -f1 "$sim_tmp/var")" 3
run_env "$sim_tmp/nodev" "$sim_tmp/nodev.err" --libdir "$CUDASIM_LIBDIR" CUDASIM_NO_DEVICE=1 \
	"$program"
is "CUDASIM_NO_DEVICE=1 through cudasim-env makes cuInit fail" \
	"$(grep -c '^ok .*cuInit returns CUDA_SUCCESS' "$sim_tmp/nodev" | tr -d ' ')" 0

# A DT_RPATH to the toolkit wins over LD_LIBRARY_PATH, and a dlopen of a full
# path searches nothing; through cudasim-env both get the simulator's
# libraries.
sim_program rpath-cudart
rpath_program=$sim_path
real_cupti="${CUPTI_LIBDIR:-$CUDA_HOME/lib64}/libcupti.so.13"
sim_run "$sim_tmp/rpath-plain" "$sim_tmp/rpath-plain.err" "$rpath_program" "$real_cupti"
is "without cudasim-env the DT_RPATH loads the toolkit's runtime" \
	"$(grep -c "^loaded $CUDASIM_LIBDIR/libcudart" "$sim_tmp/rpath-plain" | tr -d ' ')" 0
run_env "$sim_tmp/rpath" "$sim_tmp/rpath.err" --libdir "$CUDASIM_LIBDIR" "$rpath_program" \
	"$real_cupti"
is "through cudasim-env it runs (exit 0)" "$env_status" 0
ok "... on the simulator's runtime" grep -q "^loaded $CUDASIM_LIBDIR/libcudart.so.13" \
	"$sim_tmp/rpath"
ok "... and its CUPTI, for the dlopen of $real_cupti" \
	grep -q "^loaded $CUDASIM_LIBDIR/libcupti.so.13" "$sim_tmp/rpath"
is "... and no other CUDA library" \
	"$(grep '^loaded ' "$sim_tmp/rpath" | grep -v "^loaded $CUDASIM_LIBDIR/" | tr '\n' ' ')" ""

# --cuda12, where the build has the CUDA 12 flavour: a CUDA 12.9 driver
# unless CUDASIM_DRIVER_VERSION says otherwise, the flavour after the
# libdir, and its libraries whatever path they are asked for by (here
# dlopens of CUDA 12's real ones).
if [ -n "${CUDA12_HOME:-}" ]; then
	run_env "$sim_tmp/print12" "$sim_tmp/print12.err" --libdir "$CUDASIM_LIBDIR" --cuda12 --print
	is "--cuda12 --print sets a CUDA 12.9 driver" \
		"$(sed -n "s/^export CUDASIM_DRIVER_VERSION='\\([0-9]*\\)'\$/\\1/p" "$sim_tmp/print12")" 12090
	case $(sed -n "s/^export LD_LIBRARY_PATH='\\([^']*\\)'\$/\\1/p" "$sim_tmp/print12") in
	"$CUDASIM_LIBDIR:$CUDASIM_LIBDIR/cuda12" | "$CUDASIM_LIBDIR:$CUDASIM_LIBDIR/cuda12":*) after=yes ;;
	*) after=no ;;
	esac
	is "--cuda12 --print puts the CUDA 12 flavour right after the libdir" "$after" yes
	# shellcheck disable=SC2016 # expanded by the inner shell
	run_env "$sim_tmp/ver12" "$sim_tmp/ver12.err" --libdir "$CUDASIM_LIBDIR" --cuda12 \
		CUDASIM_DRIVER_VERSION=12020 sh -c 'echo "$CUDASIM_DRIVER_VERSION"'
	is "--cuda12 keeps a CUDASIM_DRIVER_VERSION given" "$(cat "$sim_tmp/ver12")" 12020
	run_env "$sim_tmp/rpath12" "$sim_tmp/rpath12.err" --libdir "$CUDASIM_LIBDIR" --cuda12 \
		"$rpath_program" "${CUDART12_LIBDIR:-$CUDA12_HOME/lib64}/libcudart.so.12" \
		"${CUPTI12_LIBDIR:-$CUDA12_HOME/lib64}/libcupti.so.12"
	is "--cuda12: a program loading CUDA 12's libraries by full path runs (exit 0)" "$env_status" 0
	is "... on the simulator's libcudart.so.12 and libcupti.so.12" \
		"$(sed -n 's/^loaded \(.*\.so\.12[.0-9]*\)$/\1/p' "$sim_tmp/rpath12" | sort | tr '\n' ' ')" \
		"$(readlink -f "$CUDASIM_LIBDIR/cuda12/libcudart.so.12") $(readlink -f \
			"$CUDASIM_LIBDIR/cuda12/libcupti.so.12") "
fi

# --device-files: NVIDIA's device files, empty, in a mount namespace of the
# command's own (what JAX looks for before it loads CUDA); the machine's
# /dev does not change, and the rest of /dev works.
had_ctl=no
[ -e /dev/nvidiactl ] && had_ctl=yes
if unshare --mount true 2>/dev/null; then
	# shellcheck disable=SC2016 # expanded by the inner shell
	run_env "$sim_tmp/devfiles" "$sim_tmp/devfiles.err" --libdir "$CUDASIM_LIBDIR" \
		--device-files CUDASIM_DEVICES=2 sh -c 'for f in nvidiactl nvidia0 nvidia1 nvidia2; do
			[ -e "/dev/$f" ] && echo "$f"
		done
		echo ok >/dev/null && echo null
		echo "$LD_AUDIT"'
	is "--device-files: the command runs (exit 0)" "$env_status" 0
	is "... and sees /dev/nvidiactl and one /dev/nvidiaN for each of CUDASIM_DEVICES=2" \
		"$(head -n 3 "$sim_tmp/devfiles" | tr '\n' ' ')" "nvidiactl nvidia0 nvidia1 "
	is "... and the rest of /dev as it is (/dev/null)" "$(sed -n 4p "$sim_tmp/devfiles")" null
	is "... with the simulator's environment" "$(sed -n 5p "$sim_tmp/devfiles")" \
		"$CUDASIM_LIBDIR/libcudasim-audit.so"
	is "... while the machine's /dev keeps what it had" \
		"$([ -e /dev/nvidiactl ] && echo yes || echo no)" "$had_ctl"
else
	skip "no unshare: cannot create a mount namespace for --device-files" 5
fi
run_env "$sim_tmp/devprint" "$sim_tmp/devprint.err" --libdir "$CUDASIM_LIBDIR" --device-files --print
is "--device-files with --print exits 2" "$env_status" 2

# Errors: exit 2 and a message on stderr.
run_env "$sim_tmp/bad" "$sim_tmp/bad.err" --libdir "$sim_tmp/nowhere" "$program"
is "a --libdir without the libraries exits 2" "$env_status" 2
ok "... and says why on stderr" test -s "$sim_tmp/bad.err"
ok "... without running the program" test ! -s "$sim_tmp/bad"
run_env "$sim_tmp/bad2" "$sim_tmp/bad2.err" --libdir
is "--libdir without a directory exits 2" "$env_status" 2
run_env "$sim_tmp/bad3" "$sim_tmp/bad3.err" --no-such-option
is "an unknown option exits 2" "$env_status" 2
run_env "$sim_tmp/help" "$sim_tmp/help.err" --help
is "--help exits 0" "$env_status" 0
ok "--help prints the usage" grep -q '^Usage: cudasim-env' "$sim_tmp/help"
tap_done
