#!/bin/sh
# SPDX-License-Identifier: MIT
# The Trace Compass XML analyses of doc/tracecompass/ validate against
# Trace Compass's own schemas (tests/export/tracecompass-xsd, copied from
# Trace Compass: see PROVENANCE.txt there), with xmllint; and the schemas
# do reject an analysis that is not valid, so the validation means
# something. Which events and fields the analyses name is checked against
# real traces in ctf-gpu-time.sh.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

srcdir=$(cd "$here/../.." && pwd)
schema=$here/tracecompass-xsd/xmlDefinition.xsd
command -v xmllint >/dev/null 2>&1 || tap_fail_all "xmllint is missing (Debian: libxml2-utils)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudatrace-tcxml.XXXXXX") || tap_fail_all "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT

count=0
for xml in "$srcdir"/doc/tracecompass/*.xml; do
	[ -e "$xml" ] || continue
	count=$((count + 1))
	name=$(basename "$xml")
	if xmllint --noout --schema "$schema" "$xml" >"$tmp/out" 2>&1; then
		tap_result 0 "$name validates against Trace Compass's XSD"
	else
		tap_result 1 "$name validates against Trace Compass's XSD"
		sed 's/^/#   /' "$tmp/out" | head -n 10
	fi
done
# memory, API calls, NVTX ranges, GPU streams, allocation lifetimes
ok "the five analyses are there ($count)" test "$count" -ge 5

# A state value of a type Trace Compass does not have: the schema says no.
sed 's/type="eventField" value="delta"/type="bytes" value="delta"/' \
	"$srcdir/doc/tracecompass/cudatrace-memory.xml" >"$tmp/broken.xml"
ok "the broken copy differs" sh -c '! cmp -s "$1" "$2"' sh \
	"$srcdir/doc/tracecompass/cudatrace-memory.xml" "$tmp/broken.xml"
ok "an analysis with a state value of an unknown type does not validate" \
	sh -c '! xmllint --noout --schema "$1" "$2" 2>/dev/null' sh "$schema" "$tmp/broken.xml"
tap_done
