/* SPDX-License-Identifier: MIT */
/*
 * build-id.h - the GNU build id of an ELF object, from its notes
 * (NT_GNU_BUILD_ID in a PT_NOTE segment), as hex. The injection library
 * reads the notes in memory (loaded-objects.c), the audit library from
 * the file (audit.c).
 */
#ifndef CUDATRACE_LIBTRACE_BUILD_ID_H
#define CUDATRACE_LIBTRACE_BUILD_ID_H

#include <stddef.h>

#define BUILD_ID_MAX 64 /* bytes; GNU ld writes 20 (SHA-1) */
/* Room for a build id as hex, with its NUL. */
#define BUILD_ID_TEXT (2 * BUILD_ID_MAX + 1)

/* The build id among the SIZE bytes of notes at NOTES into OUT (BUILD_ID_TEXT
 * bytes); OUT is left alone when there is none. */
void build_id_from_notes(const unsigned char *notes, size_t size, char *out);

#endif
