/* SPDX-License-Identifier: MIT */
/*
 * python-probe.h - the Python probe in the traced program's environment:
 * python-probe.py, written as the sitecustomize module of a directory of
 * its own that goes first on PYTHONPATH, so that every Python interpreter
 * of the traced tree runs it at start-up (doc/events.md, "The Python
 * probe").
 */
#ifndef CUDATRACE_CLI_PYTHON_PROBE_H
#define CUDATRACE_CLI_PYTHON_PROBE_H

#include <stddef.h>

/*
 * Writes the probe into a new directory (under TMPDIR, the user's only),
 * its path into DIR (SIZE bytes), and puts it first on PYTHONPATH.
 * Returns 0, or -1 after one warning: the program then runs without it.
 */
int python_probe_prepare(char *dir, size_t size);

/*
 * Removes the directory python_probe_prepare made ("": nothing). A path
 * whose last part is not such a directory's name is left alone.
 */
void python_probe_remove(const char *dir);

#endif
