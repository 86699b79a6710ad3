# SPDX-License-Identifier: MIT
#
# perfetto-venv.sh - a Python that has Perfetto's own protos, to decode
# what `cudatrace export --format perfetto` writes (POSIX sh). Source
# tap.sh first.
#
#   perfetto_python DIR   $perfetto_python: the Python of a virtual
#                         environment in DIR/perfetto-venv (made on first
#                         use, then reused) with PyPI's perfetto, which
#                         ships perfetto_trace_pb2, and protobuf; fails
#                         and ends the script when it cannot be made
#                         (Debian: python3-venv; PyPI must be reachable)

perfetto_python() {
	perfetto_venv=$1/perfetto-venv
	perfetto_python=$perfetto_venv/bin/python
	perfetto_import='from perfetto.protos.perfetto.trace import perfetto_trace_pb2'
	"$perfetto_python" -c "$perfetto_import" 2>/dev/null && return 0
	rm -rf "$perfetto_venv"
	python3 -m venv "$perfetto_venv" >"$1/perfetto-venv.log" 2>&1 ||
		tap_fail_all "python3 -m venv fails (Debian: python3-venv): $(tail -n 1 "$1/perfetto-venv.log")"
	"$perfetto_venv/bin/pip" install --quiet 'perfetto>=0.10' protobuf \
		>>"$1/perfetto-venv.log" 2>&1 ||
		tap_fail_all "pip cannot install PyPI's perfetto into $perfetto_venv: $(tail -n 1 "$1/perfetto-venv.log")"
	"$perfetto_python" -c "$perfetto_import" >>"$1/perfetto-venv.log" 2>&1 ||
		tap_fail_all "PyPI's perfetto has no perfetto_trace_pb2: $(tail -n 1 "$1/perfetto-venv.log")"
}
