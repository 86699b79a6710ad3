#!/bin/sh
# SPDX-License-Identifier: MIT
# Generate configure and the Makefile.in files from a fresh clone.
set -eu
cd "$(dirname "$0")"
mkdir -p build-aux m4
autoreconf --install --force
# automake does not install the TAP driver by itself.
tapdriver=$(ls /usr/share/automake-*/tap-driver.sh 2>/dev/null | tail -n 1)
[ -n "$tapdriver" ] || { echo "autogen.sh: automake's tap-driver.sh not found" >&2; exit 1; }
cp -f "$tapdriver" build-aux/tap-driver.sh
