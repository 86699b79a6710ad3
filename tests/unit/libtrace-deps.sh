#!/bin/sh
# SPDX-License-Identifier: MIT
#
# libtrace's objects use each other's symbols without a cycle: tools/
# check-deps on the objects of libcudatrace.so (the core convenience
# library and inject.c's object). And check-deps itself: it fails, naming
# the cycle, on objects made here that call each other, and passes on
# objects that do not.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

top_srcdir=$(cd "$here/../.." && pwd)
check_deps="${PYTHON3:-python3} $top_srcdir/tools/check-deps"
builddir=${CUDATRACE_BUILDDIR:-$top_srcdir}
libs="$builddir/libtrace/.libs"
cc=${LIBTRACE_CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/libtrace-deps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# ------------------------------------------------------------- libtrace
if [ -e "$libs/libcudatrace-core.a" ] && [ -e "$libs/libcudatrace_la-inject.o" ]; then
	$check_deps --graph "$libs/libcudatrace-core.a" "$libs/libcudatrace_la-inject.o" \
		>"$tmp/graph" 2>"$tmp/cycles"
	status=$?
	is "libtrace: no dependency cycle between its objects" "$status" 0
	[ "$status" = 0 ] || sed 's/^/# /' "$tmp/cycles"
	sed 's/^/# /' "$tmp/graph"
	# Not a vacuous pass: the graph holds every module, state.c and log.c
	# as leaves, and the entry points on top.
	ok "libtrace: the graph has the modules of the library" \
		test "$(wc -l <"$tmp/graph")" -ge 20
	is "libtrace: state uses no other module" "$(grep '^state:' "$tmp/graph")" "state:"
	is "libtrace: log uses no other module" "$(grep '^log:' "$tmp/graph")" "log:"
	is "libtrace: config uses no other module" "$(grep '^config:' "$tmp/graph")" "config:"
	is "libtrace: no module uses inject" "$(grep -c ':.* inject\( \|$\)' "$tmp/graph")" 0
else
	skip "libtrace is not built ($libs)" 6
fi

# ------------------------------------------------------------ check-deps
# a() calls b(), b() calls a(): a cycle of two. c() calls a(): no cycle.
cat >"$tmp/a.c" <<'C'
int b(int x);
int a(int x) { return x ? b(x - 1) : 0; }
C
cat >"$tmp/b.c" <<'C'
int a(int x);
int b(int x) { return x ? a(x - 1) : 1; }
C
cat >"$tmp/c.c" <<'C'
int a(int x);
int c(int x) { return a(x) + 1; }
C
cat >"$tmp/d.c" <<'C'
int c(int x);
int d(int x) { return c(x) + 2; }
C
if (cd "$tmp" && $cc -c a.c b.c c.c d.c) 2>"$tmp/cc.err"; then
	$check_deps "$tmp/a.o" "$tmp/b.o" "$tmp/c.o" 2>"$tmp/ab.err"
	is "check-deps: fails on two objects that call each other" "$?" 1
	ok "check-deps: prints the cycle" grep -q '^cycle: a -> b -> a$' "$tmp/ab.err"
	ok "check-deps: names the symbols behind it" grep -q '^  a uses b of b$' "$tmp/ab.err"
	$check_deps "$tmp/a.o" "$tmp/c.o" "$tmp/d.o" 2>"$tmp/acd.err"
	is "check-deps: passes on objects without a cycle" "$?" 0
	ar rc "$tmp/abcd.a" "$tmp/a.o" "$tmp/b.o" "$tmp/c.o" "$tmp/d.o"
	$check_deps --graph "$tmp/abcd.a" >"$tmp/abcd.graph" 2>"$tmp/abcd.err"
	is "check-deps: finds the cycle among an archive's members" "$?" 1
	is "check-deps: the graph of an archive's members, leaves first" \
		"$(tr '\n' ';' <"$tmp/abcd.graph")" "b: a;a: b;c: a;d: c;"
else
	sed 's/^/# /' "$tmp/cc.err"
	skip "no C compiler ($cc)" 6
fi

tap_done
