/* SPDX-License-Identifier: MIT */
/*
 * python-frames.h - the Python stack of the calling thread, read from the
 * interpreter's own frames without the GIL and without allocating, so
 * that an allocation made from Python names the Python function and line
 * that asked for it, even when the call released the GIL (ctypes,
 * PyTorch).
 */
#ifndef CUDATRACE_PYTHON_FRAMES_H
#define CUDATRACE_PYTHON_FRAMES_H

#include <stddef.h>

/*
 * The calling thread's Python frames, innermost first, at most DEPTH of
 * them, written into BUF (LEN bytes) as one line a frame,
 * "LINE\tFUNCTION\tFILE\n" (FUNCTION qualified from 3.11, Model.step, and
 * bare before, step; LINE 0 when the code has none; a tab or a
 * newline in a name is written as '?'). Returns the bytes written, not
 * NUL-terminated: 0 when the process runs no Python interpreter whose
 * layout this file knows (CPython 3.9 to 3.13, release builds), when the
 * thread runs no Python code, or when a frame does not look as it should.
 */
size_t python_frames_format(char *buf, size_t len, unsigned depth);

#endif /* CUDATRACE_PYTHON_FRAMES_H */
