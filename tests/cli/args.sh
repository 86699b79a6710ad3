#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Every verb rejects nonsense on its command line with one message that
# names the argument, and exit status 2, before it does anything: paths
# longer than the system takes (and longer than a message line), a
# --library that is not a tracing library CUDA can inject, session names
# that cannot be file names, empty or unknown lists, buffer sizes out of
# range, traces nested deeper than list and report look, export paths
# longer than the system takes. And
# `cudatrace jupyter install` writes a valid kernel.json whatever the
# display name holds.

cli_here=$(cd "$(dirname "$0")" && pwd)
. "$cli_here/../lib/cli.sh"

jupyter_python=${JUPYTER_PYTHON:-/usr/bin/python3}
cli_setup "$@"
"$jupyter_python" -c 'import ipykernel' 2>/dev/null ||
	tap_fail_all "$jupyter_python cannot import ipykernel (Debian: python3-ipykernel)"
cli_without_daemon

# A path of 5000 bytes, and one with a name of 300 bytes.
long=$(printf '%05000d' 0 | tr 0 a)
long_name="$lttng_tmp/$(printf '%0300d' 0 | tr 0 b)/trace"

# fails_short VERB TAG PATTERN ARGS...: cli_fails, and the message is one
# line shorter than the path it is about.
fails_short() {
	cli_fails "$@"
	ok "$2: one line, shorter than the path" \
		test "$(wc -l <"$lttng_tmp/$2.err")" = 1 -a "$(wc -c <"$lttng_tmp/$2.err")" -lt 1000
}

# ---- record
fails_short record long-output "-o 'a*\\.\\.\\.': the path is 5000 bytes long" -o "$long" -- /bin/true
fails_short record long-name "-o '.*': it holds a name of 300 bytes" -o "$long_name" -- /bin/true
fails_short record long-trace-dir "--trace-dir 'a*\\.\\.\\.': the path is 5000 bytes" \
	--trace-dir "$long" -- /bin/true
fails_short record long-library "--library 'a*\\.\\.\\.': the path is 5000 bytes" \
	--library "$long" -- /bin/true
(cd "$lttng_tmp" && "$cli_bin" record -o "$(printf '%04000d' 0 | tr 0 c)" -- /bin/true) \
	>"$lttng_tmp/long-relative.out" 2>"$lttng_tmp/long-relative.err"
is "long-relative: exit status 2" "$?" 2
ok "long-relative: the path with the current directory is too long" \
	cli_has long-relative "-o 'c*\\.\\.\\.': the path is .* bytes long"

echo 'not a library' >"$lttng_tmp/text.so"
cli_fails record library-text "tracing library .*text.so \\(named by --library\\) cannot be used: it is not a shared library \\(not an ELF file\\)" \
	--library "$lttng_tmp/text.so" -o "$lttng_tmp/t-text" -- /bin/true
cli_fails record library-executable "tracing library /bin/true .*cannot be used: it exports no InitializeInjection" \
	--library /bin/true -o "$lttng_tmp/t-exe" -- /bin/true
noinject="$trace_builddir/tests/inject/.libs/libnoinject.so"
[ -e "$noinject" ] || tap_fail_all "the test library without an entry point is not built ($noinject)"
cli_fails record library-no-entry "libnoinject.so .*exports no InitializeInjection, the entry point CUDA calls: it is not cudatrace's tracing library" \
	--library "$noinject" -o "$lttng_tmp/t-noentry" -- /bin/true
CUDATRACE_LIB=$noinject cli_fails record library-env "named by CUDATRACE_LIB\\) cannot be used: it exports no InitializeInjection" \
	-o "$lttng_tmp/t-env" -- /bin/true
ok "no trace directory is left by a refused library" \
	test ! -e "$lttng_tmp/t-text" -a ! -e "$lttng_tmp/t-exe" -a ! -e "$lttng_tmp/t-noentry"
ok "the program did not run untraced: no session daemon was started" \
	test ! -e /var/run/lttng/lttng-sessiond.pid

cli_fails record name-slash "--name=a/b: a session name holds letters, digits" --name a/b -- /bin/true
cli_fails record name-dots "--name=\\.\\.: a session name" --name .. -- /bin/true
cli_fails record name-long "a session name holds .* 128 at most" --name "$(printf '%0129d' 0)" -- /bin/true
cli_fails record activity-comma "--activity=,: give all, none, or a comma-separated list" --activity=, -- /bin/true
cli_fails record activity-empty-kind "--activity=kernel,,memcpy: give" --activity=kernel,,memcpy -- /bin/true
cli_fails record subbuf-huge "--subbuf-size=2G: give a power of 2 from 4K to 1G" --subbuf-size=2G -- /bin/true
cli_fails record num-subbuf-huge "--num-subbuf=8192: give a power of 2 from 2 to 4096" --num-subbuf=8192 -- /bin/true

# ---- export
fails_short export export-long-output "-o 'a*\\.\\.\\.': the path is 5000 bytes long" \
	--format ctf -o "$long" "$lttng_tmp"
fails_short export export-long-name "-o '.*': it holds a name of 300 bytes" \
	--format ctf -o "$long_name" "$lttng_tmp"
cli_fails export export-no-output "no output given" --format ctf "$lttng_tmp"

# ---- list
fails_short list list-long "the directory 'a*\\.\\.\\.': the path is 5000 bytes long" "$long"
deep="$lttng_tmp/listing"
mkdir -p "$deep/shallow" "$deep/nested/1/2/3/4/5/6/7/8/9/10/11/12/13/14"
: >"$deep/shallow/metadata"
: >"$deep/nested/1/2/3/4/5/6/7/8/9/10/11/12/13/14/metadata"
cli_fails list list-deep "$deep/nested holds a trace 14 directories down, deeper than the 12 .*: give the trace's own directory, $deep/nested/1/2/.*/14\$" "$deep"
ok "list-deep: the shallow trace is listed all the same" grep -q '^shallow ' "$lttng_tmp/list-deep.out"
mkdir -p "$deep/ok/1/2/3/4/5/6/7/8/9/10/11"
: >"$deep/ok/1/2/3/4/5/6/7/8/9/10/11/metadata"
rm -r "$deep/nested"
"$cli_bin" list "$deep" >"$lttng_tmp/list-12.out" 2>"$lttng_tmp/list-12.err"
is "a trace 11 directories down is listed: exit 0" "$?" 0
ok "a trace 11 directories down is listed" grep -q '^ok ' "$lttng_tmp/list-12.out"

fails_short export export-long-trace "the trace 'a*\\.\\.\\.': the path is 5000 bytes long" \
	-o "$lttng_tmp/x.pftrace" "$long"

# ---- jupyter
fails_short jupyter jupyter-long-prefix "--prefix 'a*\\.\\.\\.': the path is 5000 bytes long" \
	install --prefix "$long" --python "$jupyter_python"
cli_fails jupyter jupyter-bad-utf8-dir "--trace-dir is not valid UTF-8: Jupyter's kernel.json cannot hold it" \
	install --prefix "$lttng_tmp/jp" --python "$jupyter_python" --trace-dir "$lttng_tmp/$(printf 'x\377')"
ok "jupyter-bad-utf8-dir: no kernel.json is written" \
	test ! -e "$lttng_tmp/jp/share/jupyter/kernels/cudatrace-python3/kernel.json"
name=$(printf 'My "GPU" \\ kernel\ttab\nline\001ctl \377\376 caf\303\251')
"$cli_bin" jupyter install --prefix "$lttng_tmp/jp" --python "$jupyter_python" \
	--trace-dir "$lttng_tmp/jp-traces" --display-name "$name" >"$lttng_tmp/jp.out" 2>&1
is "jupyter install with an odd display name: exit 0" "$?" 0
"$jupyter_python" - "$lttng_tmp/jp/share/jupyter/kernels/cudatrace-python3/kernel.json" \
	>"$lttng_tmp/jp.check" 2>&1 <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")  # strict: the file is UTF-8
spec = json.loads(raw)
want = 'My "GPU" \\ kernel\ttab\nline\x01ctl \ufffd\ufffd caf\u00e9'
assert spec["display_name"] == want, repr(spec["display_name"])
assert spec["argv"][1:3] == ["record", "--trace-dir"], spec["argv"]
print("ok")
PY
ok "kernel.json is valid UTF-8 JSON holding the name (invalid bytes as U+FFFD)" \
	grep -qx ok "$lttng_tmp/jp.check"
sed 's/^/#   /' "$lttng_tmp/jp.check" | grep -v '^#   ok$' || :
tap_done
