#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The analyzers' layers (analyzers/README.md): each folder includes only
# its own headers and those of the folders below it, none holds more than
# 25 C files, and no object of libanalyzers depends, through the symbols
# it uses, on one that depends back on it (check-layers.py).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

python=${PYTHON3:-python3}
"$python" -c 'pass' 2>/dev/null || tap_fail_all "$python does not run (Debian: python3)"
command -v nm >/dev/null || tap_fail_all "nm is missing (Debian: binutils)"
builddir=${CUDATRACE_BUILDDIR:-$(cd "$here/../.." && pwd)}
[ -d "$builddir/analyzers" ] || tap_fail_all "no analyzers build in $builddir"
exec "$python" "$here/check-layers.py" "$here/../.." "$builddir/analyzers"
