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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * A key of the calling thread's Python frames, at most DEPTH of them:
 * the same frames at the same instructions give the same key, and
 * different ones, almost surely, different keys. Cheap enough for every
 * call (no line is computed, nothing is written): a call whose key is
 * its thread's last one comes from the same Python line by the same
 * path. 0 when python_frames_format would write nothing.
 */
uint64_t python_frames_key(unsigned depth);

/* Set once it is known that the process runs no Python this file can read. */
extern bool python_frames_none;

/* Whether the process is known to run no Python whose frames this file
 * reads: one load, for calls a loop makes. */
static inline bool python_frames_absent(void)
{
	return __atomic_load_n(&python_frames_none, __ATOMIC_RELAXED);
}

#endif /* CUDATRACE_PYTHON_FRAMES_H */
